/*
 * inspect_json.c - an inspection as JSON, in two layouts:
 *
 *   - "nnscan.inspect" (schema_version 1): the contract scripts parse,
 *     documented in docs/inspect.md and checked against
 *     docs/inspect.schema.json by the tests. Modules aggregated, every call
 *     with its tensors, the passes, the first NaN/Inf offenders. Raw
 *     numbers: milliseconds and bytes. It only ever grows.
 *   - the layout torch_inspector ("Inspector Gadgets") saves, nested
 *     {name: {"info": {...}, "children": {...}}}, with its key names and
 *     units (MB of 10^6 bytes, ms), so tools written for it keep working;
 *     the values are nnscan's (inclusive times that nest, all inputs).
 *
 * The HTML page of an inspection (NNS_FORMAT_HTML) is the "nnscan.inspect"
 * document inside html.c's page, whose viewer has an adapter for it.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../base/base.h"
#include "report_int.h"

/* ==== Values ==== */

/* A double, or null when NaN/Inf (JSON has neither). */
static void j_num(nns__jw *w, const char *key, size_t klen, double v) {
  nns__jw_double(w, key, klen, v, 9, false);
}

/* Milliseconds: to the nanosecond, which no clock here beats. */
static void j_ms(nns__jw *w, const char *key, size_t klen, double v) {
  nns__jw_double(w, key, klen, v, 6, true);
}

/* -1 (unknown) as null. */
static void j_opt_i64(nns__jw *w, const char *key, size_t klen, int64_t v) {
  if (v < 0)
    nns__jw_null(w, key, klen);
  else
    nns__jw_int(w, key, klen, v);
}

/* An index, or null for none ((size_t)-1). */
static void j_index(nns__jw *w, const char *key, size_t klen, size_t v) {
  if (v == (size_t)-1)
    nns__jw_null(w, key, klen);
  else
    nns__jw_int(w, key, klen, (int64_t)v);
}

/* "name": true for each (name, bit) of a flag set. */
typedef struct flag_key {
  const char *name;
  unsigned bit;
} flag_key;

static void j_flags(nns__jw *w, unsigned flags, const flag_key *keys,
                    int n) {
  for (int i = 0; i < n; i++) {
    nns__jw_key(w, keys[i].name);
    nns__jw_bool(w, NNS__JV, (flags & keys[i].bit) != 0);
  }
}

static const flag_key tensor_flags[] = {{"checked", NNS_TENSOR_CHECKED},
                                        {"nan", NNS_TENSOR_NAN},
                                        {"inf", NNS_TENSOR_INF}};
static const flag_key nonfinite_flags[] = {
    {"output", NNS_NONFINITE_OUTPUT},
    {"input", NNS_NONFINITE_INPUT},
    {"grad_input", NNS_NONFINITE_GRAD_INPUT},
    {"grad_output", NNS_NONFINITE_GRAD_OUTPUT}};

static void j_dims(nns__jw *w, const char *key, size_t klen,
                   const nns_inspect_tensor_info *t) {
  nns__jw_arr(w, key, klen);
  for (int d = 0; d < t->rank; d++)
    nns__jw_int(w, NNS__JV, t->dims[d]);
  nns__jw_end(w, NULL);
}

/* One phase of a call: its two ends, and whether both times are known. */
typedef struct span {
  bool known;
  nns_inspect_event start, end;
} span;

static span fwd_span(const nns_inspect_call_info *c) {
  return (span){c->forward_known != 0, c->fwd_start, c->fwd_end};
}

static span bwd_span(const nns_inspect_call_info *c) {
  return (span){c->backward_known != 0, c->bwd_start, c->bwd_end};
}

/* Change of the live-bytes counter over a span; false when not known. */
static bool live_delta(const span *s, int64_t *out) {
  if (!s->known || s->start.live_bytes < 0 || s->end.live_bytes < 0)
    return false;
  *out = s->end.live_bytes - s->start.live_bytes;
  return true;
}

/* ==== nnscan.inspect ==== */

static void j_tensor(nns__jw *w, const nns_inspect_tensor_info *t) {
  nns__jw_obj(w, NNS__JV);
  nns__jw_str(w, NNS__JK("role"), nns_tensor_role_name(t->role));
  nns__jw_str(w, NNS__JK("name"), t->name);
  nns__jw_str(w, NNS__JK("dtype"), nns_dtype_name(t->dtype));
  j_dims(w, NNS__JK("shape"), t);
  nns__jw_int(w, NNS__JK("bytes"), t->bytes);
  j_flags(w, t->flags, tensor_flags, 3);
  if (t->flags & NNS_TENSOR_STATS) {
    nns__jw_obj(w, NNS__JK("stats"));
    j_num(w, NNS__JK("min"), t->min);
    j_num(w, NNS__JK("max"), t->max);
    j_num(w, NNS__JK("mean"), t->mean);
    j_num(w, NNS__JK("std"), t->std);
    j_num(w, NNS__JK("zero_fraction"), t->zero_fraction);
    nns__jw_end(w, NULL);
  } else {
    nns__jw_null(w, NNS__JK("stats"));
  }
  nns__jw_end(w, NULL);
}

static void j_phase(nns__jw *w, const char *key, size_t klen,
                    const span *s, double incl, double self,
                    int64_t alloc, int64_t self_alloc) {
  nns__jw_obj(w, key, klen);
  j_ms(w, NNS__JK("start_ms"), s->known ? s->start.time_ms : NAN);
  j_ms(w, NNS__JK("inclusive_ms"), incl);
  j_ms(w, NNS__JK("self_ms"), self);
  j_opt_i64(w, NNS__JK("alloc_bytes"), alloc);
  j_opt_i64(w, NNS__JK("self_alloc_bytes"), self_alloc);
  int64_t d;
  if (live_delta(s, &d))
    nns__jw_int(w, NNS__JK("live_delta_bytes"), d);
  else
    nns__jw_null(w, NNS__JK("live_delta_bytes"));
  nns__jw_end(w, NULL);
}

static void j_call(nns__jw *w, const nns_inspection *in, size_t i) {
  nns_inspect_call_info c = nns__icall_of(in, i);
  nns_inspect_batch_info b = nns__ibatch_of(in, c.batch);
  span fwd = fwd_span(&c), bwd = bwd_span(&c);
  nns__jw_obj(w, NNS__JV);
  nns__jw_int(w, NNS__JK("index"), (int64_t)i);
  nns__jw_int(w, NNS__JK("module"), (int64_t)c.module);
  j_index(w, NNS__JK("parent"), c.parent);
  nns__jw_int(w, NNS__JK("rank"), b.rank);
  nns__jw_int(w, NNS__JK("pass"), b.pass);
  nns__jw_bool(w, NNS__JK("raised"), c.flags & NNS_CALL_RAISED);
  nns__jw_bool(w, NNS__JK("no_grad"), c.flags & NNS_CALL_NO_GRAD);
  j_phase(w, NNS__JK("forward"), &fwd, c.fwd_inclusive_ms, c.fwd_self_ms,
          c.fwd_alloc_bytes, c.fwd_self_alloc_bytes);
  if (bwd.known)
    j_phase(w, NNS__JK("backward"), &bwd, c.bwd_inclusive_ms, c.bwd_self_ms,
            c.bwd_alloc_bytes, c.bwd_self_alloc_bytes);
  else
    nns__jw_null(w, NNS__JK("backward"));
  nns__jw_str(w, NNS__JK("forward_role"), nns_nonfinite_role_name(c.fwd_role));
  nns__jw_str(w, NNS__JK("backward_role"),
              nns_nonfinite_role_name(c.bwd_role));
  nns__jw_arr(w, NNS__JK("tensors"));
  for (size_t k = 0; k < c.tensor_count; k++) {
    nns_inspect_tensor_info t = nns__itensor_of(in, i, k);
    j_tensor(w, &t);
  }
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}

/* Bytes of a module's tensors of one role, by dtype, over all its calls
 * (from first_call on): {"float32": 1234}. Dtypes are few; a linear table
 * is enough. */
static void j_bytes_by_dtype(nns__jw *w, const char *key, size_t klen,
                             const nns_inspection *in, size_t first_call,
                             nns_tensor_role role) {
  enum { MAXD = 32 };
  int dt[MAXD];
  int64_t by[MAXD];
  int nd = 0;
  for (size_t i = first_call; i != (size_t)-1;) {
    nns_inspect_call_info c = nns__icall_of(in, i);
    for (size_t k = 0; k < c.tensor_count; k++) {
      nns_inspect_tensor_info t = nns__itensor_of(in, i, k);
      if (t.role != role)
        continue;
      int j = 0;
      while (j < nd && dt[j] != t.dtype)
        j++;
      if (j == nd) {
        if (nd == MAXD)
          continue;
        dt[nd] = t.dtype;
        by[nd++] = 0;
      }
      by[j] = nns__add_sat_i64(by[j], t.bytes);
    }
    i = c.next_same;
  }
  nns__jw_obj(w, key, klen);
  for (int j = 0; j < nd; j++) {
    nns__jw_key(w, nns_dtype_name(dt[j]));
    nns__jw_int(w, NNS__JV, by[j]);
  }
  nns__jw_end(w, NULL);
}

static void j_spread(nns__jw *w, const char *key, size_t klen,
                     const double v[3]) {
  nns__jw_obj(w, key, klen);
  j_ms(w, NNS__JK("min"), v[0]);
  j_ms(w, NNS__JK("median"), v[1]);
  j_ms(w, NNS__JK("max"), v[2]);
  nns__jw_end(w, NULL);
}

static void j_rank_or_null(nns__jw *w, const char *key, size_t klen,
                           int rank) {
  if (rank < 0)
    nns__jw_null(w, key, klen);
  else
    nns__jw_int(w, key, klen, rank);
}

/* A module's totals of one phase over its calls. */
static void j_phase_total(nns__jw *w, const char *key, size_t klen,
                          double incl, double self, int64_t alloc,
                          int64_t self_alloc) {
  nns__jw_obj(w, key, klen);
  j_ms(w, NNS__JK("inclusive_ms"), incl);
  j_ms(w, NNS__JK("self_ms"), self);
  nns__jw_int(w, NNS__JK("alloc_bytes"), alloc);
  nns__jw_int(w, NNS__JK("self_alloc_bytes"), self_alloc);
  nns__jw_end(w, NULL);
}

/* roof: some module has a roofline time (the run named a device). */
static nns_status j_module(nns__jw *w, const nns_inspection *in, size_t m,
                           bool roof) {
  nns_inspect_module_info info = nns__imodule_of(in, m), *d = &info;
  nns_inspect_stats full;
  if (!nns__istats_of(in, m, &full))
    return NNS_E_NOMEM;
  const nns_inspect_stats *s = &full;
  nns__jw_obj(w, NNS__JV);
  nns__jw_int(w, NNS__JK("index"), (int64_t)m);
  nns__jw_str(w, NNS__JK("path"), d->path);
  nns__jw_str(w, NNS__JK("name"), d->name);
  nns__jw_str(w, NNS__JK("type"), d->type);
  j_index(w, NNS__JK("parent"), d->parent);
  nns__jw_int(w, NNS__JK("depth"), d->depth);
  nns__jw_int(w, NNS__JK("params"), d->params);
  nns__jw_int(w, NNS__JK("learnable_params"), d->learnable_params);
  nns__jw_int(w, NNS__JK("param_bytes"), d->param_bytes);
  nns__jw_int(w, NNS__JK("grad_bytes"), d->grad_bytes);
  nns__jw_arr(w, NNS__JK("param_dtypes"));
  for (size_t k = 0; k < d->param_dtype_count; k++) {
    const nns_inspect_dtype_bytes *b = &d->param_dtypes[k];
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("dtype"), nns_dtype_name(b->dtype));
    nns__jw_int(w, NNS__JK("bytes"), b->bytes);
    nns__jw_int(w, NNS__JK("learnable_bytes"), b->learnable_bytes);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
  j_opt_i64(w, NNS__JK("flops"), d->flops);
  j_opt_i64(w, NNS__JK("macs"), d->macs);
  /* The roofline (docs/inspect.md): only in runs that name a device. */
  if (roof) {
    double frac = nns__inspect_roof_fraction(in, d, s);
    if (d->roofline_ms > 0)
      nns__jw_double(w, NNS__JK("roofline_ms"), d->roofline_ms, 9, false);
    else
      nns__jw_null(w, NNS__JK("roofline_ms"));
    if (frac >= 0)
      nns__jw_double(w, NNS__JK("roof_fraction"), frac, 6, false);
    else
      nns__jw_null(w, NNS__JK("roof_fraction"));
  }
  if (d->saved_bytes >= 0) /* a static prediction was given */
    nns__jw_int(w, NNS__JK("predicted_saved_bytes"), d->saved_bytes);
  nns__jw_int(w, NNS__JK("calls"), s->calls);
  nns__jw_int(w, NNS__JK("backward_calls"), s->backward_calls);
  j_phase_total(w, NNS__JK("forward"), s->fwd_inclusive_ms, s->fwd_self_ms,
                s->fwd_alloc_bytes, s->fwd_self_alloc_bytes);
  j_phase_total(w, NNS__JK("backward"), s->bwd_inclusive_ms, s->bwd_self_ms,
                s->bwd_alloc_bytes, s->bwd_self_alloc_bytes);
  nns__jw_obj(w, NNS__JK("bytes"));
  j_bytes_by_dtype(w, NNS__JK("input"), in, d->first_call,
                   NNS_TENSOR_INPUT);
  j_bytes_by_dtype(w, NNS__JK("output"), in, d->first_call,
                   NNS_TENSOR_OUTPUT);
  j_bytes_by_dtype(w, NNS__JK("grad_input"), in, d->first_call,
                   NNS_TENSOR_GRAD_INPUT);
  j_bytes_by_dtype(w, NNS__JK("grad_output"), in, d->first_call,
                   NNS_TENSOR_GRAD_OUTPUT);
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JK("nonfinite"));
  j_flags(w, s->nonfinite, nonfinite_flags, 4);
  nns__jw_str(w, NNS__JK("forward_role"),
              nns_nonfinite_role_name(s->fwd_role));
  nns__jw_str(w, NNS__JK("backward_role"),
              nns_nonfinite_role_name(s->bwd_role));
  if (s->nonfinite_rank < 0)
    nns__jw_null(w, NNS__JK("first_rank"));
  else
    nns__jw_int(w, NNS__JK("first_rank"), s->nonfinite_rank);
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JK("ranks"));
  nns__jw_int(w, NNS__JK("count"), s->ranks);
  j_spread(w, NNS__JK("forward_ms"), s->rank_fwd_ms);
  j_spread(w, NNS__JK("backward_ms"), s->rank_bwd_ms);
  nns__jw_obj(w, NNS__JK("slowest"));
  j_rank_or_null(w, NNS__JK("forward"), s->rank_fwd_slowest);
  j_rank_or_null(w, NNS__JK("backward"), s->rank_bwd_slowest);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
  return NNS_OK;
}

static void j_offender(nns__jw *w, const char *key, size_t klen,
                       const nns_inspection *in,
                       const nns_inspect_offender *f) {
  if (!f->found) {
    nns__jw_null(w, key, klen);
    return;
  }
  nns__jw_obj(w, key, klen);
  nns__jw_int(w, NNS__JK("module"), (int64_t)f->module);
  nns__jw_str(w, NNS__JK("path"), nns__imodule_of(in, f->module).path);
  nns__jw_int(w, NNS__JK("call"), (int64_t)f->call);
  nns__jw_int(w, NNS__JK("rank"), f->rank);
  nns__jw_int(w, NNS__JK("pass"), f->pass);
  nns__jw_str(w, NNS__JK("role"), nns_nonfinite_role_name(f->role));
  nns__jw_end(w, NULL);
}

/* A pass's forward and backward time: its outermost calls together. */
static void j_pass(nns__jw *w, const nns_inspection *in, size_t b) {
  nns_inspect_batch_info p = nns__ibatch_of(in, b);
  double fwd = 0, bwd = 0;
  for (size_t i = p.first_call; i < p.first_call + p.call_count; i++) {
    nns_inspect_call_info c = nns__icall_of(in, i);
    if (c.parent != (size_t)-1)
      continue;
    if (!isnan(c.fwd_inclusive_ms))
      fwd += c.fwd_inclusive_ms;
    if (!isnan(c.bwd_inclusive_ms))
      bwd += c.bwd_inclusive_ms;
  }
  nns__jw_obj(w, NNS__JV);
  nns__jw_int(w, NNS__JK("rank"), p.rank);
  nns__jw_int(w, NNS__JK("pass"), p.pass);
  j_ms(w, NNS__JK("wall_start"), p.wall_start);
  nns__jw_int(w, NNS__JK("calls"), (int64_t)p.call_count);
  j_ms(w, NNS__JK("forward_ms"), fwd);
  j_ms(w, NNS__JK("backward_ms"), bwd);
  nns__jw_end(w, NULL);
}

/* The model's name: the caller's, else the root module's type. */
static const char *root_name(const nns_inspection *in,
                             const nns_report_options *o) {
  if (o && o->model_name && *o->model_name)
    return o->model_name;
  const char *type = nns_inspection_module_count(in)
                         ? nns__imodule_of(in, 0).type
                         : "";
  return *type ? type : "model";
}

/* The first offender of the forward (backward 0) or of the backward. */
static nns_inspect_offender first_offender(const nns_inspection *in,
                                           int backward) {
  nns_inspect_offender f = {.size = sizeof f};
  nns_inspection_first_nonfinite(in, backward, &f, NULL);
  return f;
}

nns_status nns__inspect_json(const nns_inspection *in,
                             const nns_report_options *opt, nns__out *o) {
  nns__jw jw, *w = &jw;
  nns__jw_init(w, o);
  nns__jw_obj_brk(w, NNS__JV, "\n");
  nns__jw_str(w, NNS__JK("schema"), "nnscan.inspect");
  nns__jw_int(w, NNS__JK("schema_version"), 1);
  nns__jw_str(w, NNS__JK("nnscan_version"), nns_version());
  nns__jw_obj(w, NNS__JK("model"));
  nns__jw_str(w, NNS__JK("name"), root_name(in, opt));
  nns__jw_str(w, NNS__JK("type"), nns_inspection_module_count(in)
                                      ? nns__imodule_of(in, 0).type
                                      : NULL);
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JK("meta"));
  for (size_t i = 0; i < nns_inspection_meta_count(in); i++) {
    const char *key = "", *value = NULL;
    nns_inspection_meta(in, i, &key, &value, NULL);
    nns__jw_key(w, key);
    nns__jw_str(w, NNS__JV, value);
  }
  nns__jw_end(w, NULL);
  nns__jw_int(w, NNS__JK("ranks"), nns__inspect_ranks(in));
  nns__jw_arr_brk(w, NNS__JK("passes"), "\n  ");
  for (size_t b = 0; b < nns_inspection_batch_count(in); b++)
    j_pass(w, in, b);
  nns__jw_end(w, NULL);
  nns__inspect_ranks_json(w, in);
  nns__jw_obj(w, NNS__JK("first_nonfinite"));
  nns_inspect_offender fwd = first_offender(in, 0), bwd = first_offender(in, 1);
  j_offender(w, NNS__JK("forward"), in, &fwd);
  j_offender(w, NNS__JK("backward"), in, &bwd);
  nns__jw_end(w, NULL);
  nns__inspect_roofline_json(w, in);
  nns_status st = NNS_OK;
  bool roof = nns__inspect_has_roofline(in);
  nns__jw_arr_brk(w, NNS__JK("modules"), "\n  ");
  for (size_t m = 0; m < nns_inspection_module_count(in) && st == NNS_OK; m++)
    st = j_module(w, in, m, roof);
  nns__jw_end(w, NULL);
  nns__jw_arr_brk(w, NNS__JK("calls"), "\n  ");
  for (size_t i = 0; i < nns_inspection_call_count(in) && st == NNS_OK; i++)
    j_call(w, in, i);
  nns__jw_end(w, NULL);
  nns__jw_end(w, "\n");
  nns__out_put(o, "\n", 1);
  nns_status jst = nns__jw_finish(w);
  return st != NNS_OK ? st : jst;
}

static nns_status inspect_json(const void *in, const nns_report_options *opt,
                               nns__out *o) {
  return nns__inspect_json(in, opt, o);
}

nns_status nns__inspect_html(const nns_inspection *in,
                             const nns_report_options *opt, nns__out *o) {
  char title[512];
  snprintf(title, sizeof title, "%s: nnscan inspection", root_name(in, opt));
  return nns__html_of(o, "nnscan.inspect", title, inspect_json, in, opt);
}

/* ==== The seed tool's layout ==== */

static const double MB = 1e6;

/* A call a seed row shows: its index ((size_t)-1: none) and how many
 * tensors it has. */
typedef struct seed_call {
  size_t index, tensors;
} seed_call;

/* The tensors of `role` of call c (none: an empty list), their shapes or
 * their sizes in MB. */
static void seed_shapes(nns__jw *w, const char *key, size_t klen,
                        const nns_inspection *in, seed_call c,
                        nns_tensor_role role, bool bytes) {
  nns__jw_arr(w, key, klen);
  for (size_t k = 0; k < c.tensors; k++) {
    nns_inspect_tensor_info t = nns__itensor_of(in, c.index, k);
    if (t.role != role)
      continue;
    if (bytes)
      j_num(w, NNS__JV, (double)t.bytes / MB);
    else
      j_dims(w, NNS__JV, &t);
  }
  nns__jw_end(w, NULL);
}

/* What a seed row takes from a module's calls (d->first_call on), in one
 * walk over them:
 *   - the seed kept one call per module: nnscan shows, for each of the
 *     roles OUTPUT, GRAD_OUTPUT and GRAD_INPUT (first[0..2]), the first
 *     call that holds a tensor of that role, else the first call, else
 *     none, and says how many calls there were;
 *   - the memory added during the forward (mem[0]) and the backward
 *     (mem[1]) per pass, in MB: the allocator's live counter where it was
 *     read (what the seed meant), else the bytes allocated (s). */
static void seed_calls(const nns_inspection *in,
                       const nns_inspect_module_info *d,
                       const nns_inspect_stats *s, seed_call first[3],
                       double mem[2]) {
  static const nns_tensor_role role[3] = {
      NNS_TENSOR_OUTPUT, NNS_TENSOR_GRAD_OUTPUT, NNS_TENSOR_GRAD_INPUT};
  bool found[3] = {false, false, false};
  int missing = 3;
  int64_t live[2] = {0, 0};
  bool have_live[2] = {false, false};
  for (int r = 0; r < 3; r++)
    first[r] = (seed_call){d->first_call, 0};
  for (size_t i = d->first_call; i != (size_t)-1;) {
    nns_inspect_call_info c = nns__icall_of(in, i);
    for (int r = 0; r < 3 && i == d->first_call; r++)
      first[r].tensors = c.tensor_count;
    for (size_t k = 0; k < c.tensor_count && missing; k++) {
      nns_tensor_role tr = nns__itensor_of(in, i, k).role;
      for (int r = 0; r < 3; r++)
        if (!found[r] && tr == role[r]) {
          found[r] = true;
          first[r] = (seed_call){i, c.tensor_count};
          missing--;
        }
    }
    span phase[2] = {fwd_span(&c), bwd_span(&c)};
    for (int b = 0; b < 2; b++) {
      int64_t delta;
      if (live_delta(&phase[b], &delta)) {
        live[b] = nns__add_sat_i64(live[b], delta);
        have_live[b] = true;
      }
    }
    i = c.next_same;
  }
  int64_t alloc[2] = {s->fwd_alloc_bytes, s->bwd_alloc_bytes};
  for (int b = 0; b < 2; b++)
    mem[b] = nns__inspect_per_pass(
                 in, (double)(have_live[b] ? live[b] : alloc[b])) /
             MB;
}

/* The "info" of module m (its row d). */
static nns_status seed_info(nns__jw *w, const nns_inspection *in, size_t m,
                            const nns_inspect_module_info *d) {
  nns_inspect_stats stats, *s = &stats;
  if (!nns__istats_of(in, m, s))
    return NNS_E_NOMEM;
  seed_call first[3];
  double mem[2];
  seed_calls(in, d, s, first, mem);
  seed_call fc = first[0], gc = first[1], gi = first[2];
  int64_t in_bytes = 0;
  for (size_t k = 0; k < fc.tensors; k++) {
    nns_inspect_tensor_info t = nns__itensor_of(in, fc.index, k);
    if (t.role == NNS_TENSOR_INPUT)
      in_bytes = nns__add_sat_i64(in_bytes, t.bytes);
  }
  nns__jw_obj(w, NNS__JK("info"));
  nns__jw_str(w, NNS__JK("type"), d->type);
  seed_shapes(w, NNS__JK("input_shapes"), in, fc, NNS_TENSOR_INPUT, false);
  seed_shapes(w, NNS__JK("output_shapes"), in, fc, NNS_TENSOR_OUTPUT, false);
  seed_shapes(w, NNS__JK("grad_in_shape"), in, gi, NNS_TENSOR_GRAD_INPUT,
              false);
  seed_shapes(w, NNS__JK("grad_out_shape"), in, gc, NNS_TENSOR_GRAD_OUTPUT,
              false);
  nns__jw_int(w, NNS__JK("num_parameters"), d->params);
  nns__jw_int(w, NNS__JK("num_learnable_parameters"), d->learnable_params);
  j_num(w, NNS__JK("param_memory_usage"), (double)d->param_bytes / MB);
  j_num(w, NNS__JK("gradient_memory_usage"), (double)d->grad_bytes / MB);
  seed_shapes(w, NNS__JK("input_memory_usage"), in, fc, NNS_TENSOR_INPUT,
              true);
  seed_shapes(w, NNS__JK("output_memory_usage"), in, fc, NNS_TENSOR_OUTPUT,
              true);
  j_num(w, NNS__JK("effective_additional_memory_fwd"), mem[0]);
  j_num(w, NNS__JK("effective_additional_memory_bwd"), mem[1]);
  nns__jw_bool(w, NNS__JK("forward_nan"), s->nonfinite & NNS_NONFINITE_OUTPUT);
  nns__jw_bool(w, NNS__JK("grad_in_nan"),
               s->nonfinite & NNS_NONFINITE_GRAD_INPUT);
  nns__jw_bool(w, NNS__JK("grad_out_nan"),
               s->nonfinite & NNS_NONFINITE_GRAD_OUTPUT);
  j_num(w, NNS__JK("total_memory"),
        (double)nns__add_sat_i64(
            nns__add_sat_i64(d->param_bytes, d->grad_bytes), in_bytes) /
            MB);
  j_ms(w, NNS__JK("forward_latency"),
       nns__inspect_per_pass(in, s->fwd_inclusive_ms));
  j_ms(w, NNS__JK("backward_latency"),
       nns__inspect_per_pass(in, s->bwd_inclusive_ms));
  /* nnscan's own keys, after the seed's. */
  nns__jw_int(w, NNS__JK("calls"), s->calls);
  j_ms(w, NNS__JK("forward_latency_self"),
       nns__inspect_per_pass(in, s->fwd_self_ms));
  j_ms(w, NNS__JK("backward_latency_self"),
       nns__inspect_per_pass(in, s->bwd_self_ms));
  nns__jw_end(w, NULL);
  return NNS_OK;
}

/* Modules nest one JSON level pair per depth; below this depth the seed
 * layout is flattened, so that any JSON parser loads it (Python's stops
 * near 1000 levels): a module at SEED_MAX_DEPTH lists all its descendants
 * as its own "children", keyed by their path below it, each with empty
 * "children". */
enum { SEED_MAX_DEPTH = 64 };

/* The key of descendant d (module m) flattened under module t: its path
 * below t ("3.conv"), cut to its end and made unique with "#<index>" when
 * long. A binding's paths need not nest: one that does not extend t's
 * path is keyed by its whole path and index. */
static void seed_flat_key(nns__jw *w, const nns_inspect_module_info *t,
                          const nns_inspect_module_info *d, size_t m) {
  size_t skip = t->path_len + 1;
  char buf[512];
  bool below = d->path_len > skip && d->path[t->path_len] == '.' &&
               !strncmp(d->path, t->path, t->path_len);
  const char *rel = below ? d->path + skip : d->path;
  size_t rel_len = below ? d->path_len - skip : d->path_len;
  if (below && rel_len <= 200) {
    nns__jw_key(w, rel);
    return;
  }
  nns__inspect_path_cell(buf, sizeof buf - 24, rel, rel_len);
  size_t n = strlen(buf);
  snprintf(buf + n, sizeof buf - n, "#%zu", m);
  nns__jw_key(w, buf);
}

/* Every descendant of top, in preorder, as flat children. */
static nns_status seed_flat(nns__jw *w, const nns_inspection *in,
                            size_t top) {
  nns_inspect_module_info t = nns__imodule_of(in, top);
  size_t m = t.first_child;
  while (m != (size_t)-1) {
    nns_inspect_module_info d = nns__imodule_of(in, m);
    seed_flat_key(w, &t, &d, m);
    nns__jw_obj(w, NNS__JV);
    if (seed_info(w, in, m, &d))
      return NNS_E_NOMEM;
    nns__jw_obj(w, NNS__JK("children"));
    nns__jw_end(w, NULL);
    nns__jw_end(w, NULL);
    /* Next in preorder, without leaving top's subtree. */
    if (d.first_child != (size_t)-1) {
      m = d.first_child;
      continue;
    }
    while (m != top && d.next_sibling == (size_t)-1) {
      m = d.parent;
      d = nns__imodule_of(in, m);
    }
    m = m == top ? (size_t)-1 : d.next_sibling;
  }
  return NNS_OK;
}

/* Depth-first with an explicit stack: a report should not lean on the C
 * stack, and the nesting stops at SEED_MAX_DEPTH. */
nns_status nns__inspect_seed(const nns_inspection *in,
                             const nns_report_options *opt, nns__out *o) {
  nns__jw jw, *w = &jw;
  nns__jw_init(w, o);
  nns__jw_obj(w, NNS__JV);
  if (!nns_inspection_module_count(in)) {
    nns__jw_end(w, NULL);
    nns__out_put(o, "\n", 1);
    return nns__jw_finish(w);
  }
  nns__jw_key(w, root_name(in, opt));
  size_t m = 0;
  nns_inspect_module_info d = nns__imodule_of(in, m); /* module m's row */
  for (;;) {
    nns__jw_obj(w, NNS__JV);
    if (seed_info(w, in, m, &d))
      goto nomem;
    nns__jw_obj(w, NNS__JK("children"));
    if (d.first_child != (size_t)-1 && d.depth < SEED_MAX_DEPTH) {
      m = d.first_child;
      d = nns__imodule_of(in, m);
      nns__jw_key(w, d.name);
      continue;
    }
    if (d.first_child != (size_t)-1 && seed_flat(w, in, m))
      goto nomem;
    /* Close this module, and every ancestor whose last child it was. */
    for (;;) {
      nns__jw_end(w, NULL); /* its children */
      nns__jw_end(w, NULL); /* the module */
      if (d.next_sibling != (size_t)-1) {
        m = d.next_sibling;
        d = nns__imodule_of(in, m);
        nns__jw_key(w, d.name);
        break;
      }
      m = d.parent;
      if (m == (size_t)-1) {
        nns__jw_end(w, NULL);
        nns__out_put(o, "\n", 1);
        return nns__jw_finish(w);
      }
      d = nns__imodule_of(in, m);
    }
  }
nomem: /* a module's stats (the writer is released all the same) */
  nns__jw_finish(w);
  return NNS_E_NOMEM;
}
