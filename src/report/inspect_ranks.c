/*
 * inspect_ranks.c - the rank rows of an inspection (torch.distributed):
 * each rank's passes' time and memory, the collectives it issued while it
 * was inspected and the static per-rank counts of its shards, as the
 * JSON's "per_rank" array and the text footer's "Per rank" lines.
 * docs/inspect.md, "Ranks".
 */
#include <math.h>
#include <stdio.h>

#include "report_int.h"

static nns_inspect_rank_info rank_of(const nns_inspection *in, size_t i) {
  nns_inspect_rank_info x = {.size = sizeof x};
  nns_inspection_rank(in, i, &x, NULL);
  return x;
}

bool nns__inspect_has_rank_rows(const nns_inspection *in) {
  size_t n = nns_inspection_rank_count(in);
  for (size_t i = 0; i < n; i++)
    if (rank_of(in, i).comm_known)
      return true;
  return n > 1;
}

static void j_kinds(nns__jw *w, const char *key, size_t klen,
                    const int64_t *v) {
  nns__jw_obj(w, key, klen);
  for (int k = 0; k < NNS_COMM_KIND_COUNT; k++) {
    nns__jw_key(w, nns_comm_kind_name(k));
    nns__jw_int(w, NNS__JV, v[k]);
  }
  nns__jw_end(w, NULL);
}

static int64_t kinds_sum(const int64_t *v) {
  int64_t s = 0;
  for (int k = 0; k < NNS_COMM_KIND_COUNT; k++)
    s = v[k] > INT64_MAX - s ? INT64_MAX : s + v[k];
  return s;
}

/* The static per-rank counts: the keys of a summary's totals.per_rank
 * (docs/metrics.md, "Per rank"), without the budget. */
static void j_counts(nns__jw *w, const nns_inspect_rank_info *x) {
  const nns_per_rank *r = &x->counts;
  nns__jw_obj(w, NNS__JK("counts"));
  nns__jw_int(w, NNS__JK("world_size"), r->world_size);
  nns__jw_obj(w, NNS__JK("mesh"));
  for (size_t i = 0; i < x->mesh_count; i++) {
    nns__jw_key(w, x->mesh_name[i]);
    nns__jw_int(w, NNS__JV, x->mesh_size[i]);
  }
  nns__jw_end(w, NULL);
  nns__jw_bool(w, NNS__JK("estimate"), r->estimate != 0);
  nns__jw_int(w, NNS__JK("params"), r->params);
  nns__jw_int(w, NNS__JK("param_bytes"), r->param_bytes);
  nns__jw_int(w, NNS__JK("grad_bytes"), r->grad_bytes);
  nns__jw_int(w, NNS__JK("optimizer_bytes"), r->optimizer_bytes);
  nns__jw_int(w, NNS__JK("saved_bytes"), r->saved_bytes);
  nns__jw_int(w, NNS__JK("train_peak_bytes"), r->train_peak_bytes);
  nns__jw_int(w, NNS__JK("flops"), r->flops);
  nns__jw_int(w, NNS__JK("macs"), r->macs);
  nns__jw_int(w, NNS__JK("comm_bytes"), r->comm_bytes);
  j_kinds(w, NNS__JK("comm"), r->comm);
  nns__jw_end(w, NULL);
}

static void j_opt_bytes(nns__jw *w, const char *key, size_t klen, int64_t v) {
  if (v < 0)
    nns__jw_null(w, key, klen);
  else
    nns__jw_int(w, key, klen, v);
}

void nns__inspect_ranks_json(nns__jw *w, const nns_inspection *in) {
  if (!nns__inspect_has_rank_rows(in))
    return;
  nns__jw_arr_brk(w, NNS__JK("per_rank"), "\n  ");
  for (size_t i = 0; i < nns_inspection_rank_count(in); i++) {
    nns_inspect_rank_info x = rank_of(in, i);
    nns__jw_obj(w, NNS__JV);
    nns__jw_int(w, NNS__JK("rank"), x.rank);
    nns__jw_int(w, NNS__JK("passes"), x.passes);
    nns__jw_double(w, NNS__JK("forward_ms"), x.fwd_ms, 6, true);
    nns__jw_double(w, NNS__JK("backward_ms"), x.bwd_ms, 6, true);
    j_opt_bytes(w, NNS__JK("forward_alloc_bytes"), x.fwd_alloc_bytes);
    j_opt_bytes(w, NNS__JK("backward_alloc_bytes"), x.bwd_alloc_bytes);
    if (!x.comm_known) {
      nns__jw_null(w, NNS__JK("collectives"));
    } else {
      nns__jw_obj(w, NNS__JK("collectives"));
      nns__jw_int(w, NNS__JK("bytes_total"), kinds_sum(x.comm_bytes));
      j_kinds(w, NNS__JK("bytes"), x.comm_bytes);
      j_kinds(w, NNS__JK("calls"), x.comm_calls);
      nns__jw_end(w, NULL);
    }
    if (x.has_counts)
      j_counts(w, &x);
    else
      nns__jw_null(w, NNS__JK("counts"));
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
}

/* v per pass of the rank, as bytes in IEC units (clever) or raw. */
static void per_pass_bytes(char *buf, size_t size, int64_t v, int64_t passes,
                           bool raw) {
  if (v < 0) {
    snprintf(buf, size, "-");
    return;
  }
  int64_t p = passes > 0 ? (int64_t)llround((double)v / (double)passes) : v;
  if (raw)
    snprintf(buf, size, "%lld B", (long long)p);
  else
    nns__fmt_clever(buf, size, p, true);
}

static void per_pass_ms(char *buf, size_t size, double ms, int64_t passes,
                        bool raw) {
  double v = passes > 0 ? ms / (double)passes : ms;
  if (raw)
    snprintf(buf, size, "%.3f ms", v);
  else if (!(v > 0))
    snprintf(buf, size, "0");
  else
    nns__fmt_seconds(buf, size, v / 1e3, false);
}

void nns__inspect_ranks_text(nns__out *o, const nns_inspection *in,
                             const nns_report_options *opt) {
  if (!nns__inspect_has_rank_rows(in))
    return;
  bool raw = opt && opt->numbers == NNS_NUMBERS_RAW;
  nns__out_str(o, "Per rank (per pass of the rank; static counts of its "
                  "shards per step):\n");
  for (size_t i = 0; i < nns_inspection_rank_count(in); i++) {
    nns_inspect_rank_info x = rank_of(in, i);
    char fwd[32], bwd[32], fm[32], bm[32];
    per_pass_ms(fwd, sizeof fwd, x.fwd_ms, x.passes, raw);
    per_pass_ms(bwd, sizeof bwd, x.bwd_ms, x.passes, raw);
    per_pass_bytes(fm, sizeof fm, x.fwd_alloc_bytes, x.passes, raw);
    per_pass_bytes(bm, sizeof bm, x.bwd_alloc_bytes, x.passes, raw);
    nns__out_fmt(o,
                 "rank %d: %lld pass%s; forward %s, backward %s; "
                 "memory forward %s, backward %s\n",
                 x.rank, (long long)x.passes, x.passes == 1 ? "" : "es", fwd,
                 bwd, fm, bm);
    if (x.comm_known) {
      char b[32];
      per_pass_bytes(b, sizeof b, kinds_sum(x.comm_bytes), x.passes, raw);
      nns__out_fmt(o, "rank %d collectives seen %s:", x.rank, b);
      for (int k = 0; k < NNS_COMM_KIND_COUNT; k++) {
        per_pass_bytes(b, sizeof b, x.comm_bytes[k], x.passes, raw);
        nns__out_fmt(o, "%s %s %s (%lld calls)", k ? "," : "",
                     nns_comm_kind_name(k), b, (long long)x.comm_calls[k]);
      }
      nns__out_str(o, "\n");
    }
    if (x.has_counts) {
      const nns_per_rank *r = &x.counts;
      char par[32], grad[32], opt_b[32], saved[32], peak[32], comm[32],
          macs[32];
      nns__fmt_clever(par, sizeof par, r->param_bytes, true);
      nns__fmt_clever(grad, sizeof grad, r->grad_bytes, true);
      nns__fmt_clever(opt_b, sizeof opt_b, r->optimizer_bytes, true);
      nns__fmt_clever(saved, sizeof saved, r->saved_bytes, true);
      nns__fmt_clever(peak, sizeof peak, r->train_peak_bytes, true);
      nns__fmt_clever(comm, sizeof comm, r->comm_bytes, true);
      nns__fmt_clever(macs, sizeof macs, r->macs, false);
      nns__out_fmt(o,
                   "rank %d static counts (%lld ranks%s): peak %s; params %s, "
                   "gradients %s, optimizer state %s, saved %s; MACs "
                   "%s; sends %s\n",
                   x.rank, (long long)r->world_size,
                   r->estimate ? ", estimate" : "", peak, par, grad, opt_b,
                   saved, macs, comm);
    }
  }
}
