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

#include "../inspect/inspect_int.h"
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
                   const nns__itensor *t) {
  nns__jw_arr(w, key, klen);
  for (int d = 0; d < t->rank; d++)
    nns__jw_int(w, NNS__JV, t->dims[d]);
  nns__jw_end(w, NULL);
}

/* Change of the live-bytes counter over a span; false when not known. */
static bool live_delta(const nns__ispan *s, int64_t *out) {
  if (!s->known || s->start.live_bytes < 0 || s->end.live_bytes < 0)
    return false;
  *out = s->end.live_bytes - s->start.live_bytes;
  return true;
}

/* ==== nnscan.inspect ==== */

static void j_tensor(nns__jw *w, const nns__itensor *t) {
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
                    const nns__ispan *s, double incl, double self,
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
  const nns__icall *c = &in->calls[i];
  const nns__ibatch *b = &in->batches[c->batch];
  nns__jw_obj(w, NNS__JV);
  nns__jw_int(w, NNS__JK("index"), (int64_t)i);
  nns__jw_int(w, NNS__JK("module"), (int64_t)c->module);
  j_index(w, NNS__JK("parent"), c->parent);
  nns__jw_int(w, NNS__JK("rank"), b->rank);
  nns__jw_int(w, NNS__JK("pass"), b->pass);
  nns__jw_bool(w, NNS__JK("raised"), c->flags & NNS_CALL_RAISED);
  nns__jw_bool(w, NNS__JK("no_grad"), c->flags & NNS_CALL_NO_GRAD);
  j_phase(w, NNS__JK("forward"), &c->fwd, c->fwd_incl, c->fwd_self,
          c->fwd_alloc, c->fwd_self_alloc);
  if (c->bwd.known)
    j_phase(w, NNS__JK("backward"), &c->bwd, c->bwd_incl, c->bwd_self,
            c->bwd_alloc, c->bwd_self_alloc);
  else
    nns__jw_null(w, NNS__JK("backward"));
  nns__jw_str(w, NNS__JK("forward_role"),
              nns_nonfinite_role_name(c->fwd_role));
  nns__jw_str(w, NNS__JK("backward_role"),
              nns_nonfinite_role_name(c->bwd_role));
  nns__jw_arr(w, NNS__JK("tensors"));
  for (size_t k = 0; k < c->tensor_count; k++)
    j_tensor(w, &c->tensors[k]);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}

/* Bytes of a module's tensors of one role, by dtype, over all its calls:
 * {"float32": 1234}. Dtypes are few; a linear table is enough. */
static void j_bytes_by_dtype(nns__jw *w, const char *key, size_t klen,
                             const nns_inspection *in, size_t m,
                             nns_tensor_role role) {
  enum { MAXD = 32 };
  int dt[MAXD];
  int64_t by[MAXD];
  int nd = 0;
  for (size_t i = in->modules[m].first_call; i != (size_t)-1;
       i = in->calls[i].next_same) {
    const nns__icall *c = &in->calls[i];
    for (size_t k = 0; k < c->tensor_count; k++) {
      const nns__itensor *t = &c->tensors[k];
      if (t->role != role)
        continue;
      int j = 0;
      while (j < nd && dt[j] != t->dtype)
        j++;
      if (j == nd) {
        if (nd == MAXD)
          continue;
        dt[nd] = t->dtype;
        by[nd++] = 0;
      }
      by[j] = nns__add_sat_i64(by[j], t->bytes);
    }
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

static nns_status j_module(nns__jw *w, const nns_inspection *in, size_t m) {
  const nns__imodule *d = &in->modules[m];
  nns_inspect_stats full;
  if (nns__inspect_stats(in, m, &full))
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
  for (size_t k = 0; k < d->dtype_count; k++) {
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("dtype"), nns_dtype_name(d->dtypes[k].dtype));
    nns__jw_int(w, NNS__JK("bytes"), d->dtypes[k].bytes);
    nns__jw_int(w, NNS__JK("learnable_bytes"), d->dtypes[k].learnable_bytes);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
  j_opt_i64(w, NNS__JK("flops"), d->flops);
  j_opt_i64(w, NNS__JK("macs"), d->macs);
  /* The roofline (docs/inspect.md): only in runs that name a device. */
  if (nns__inspect_has_roofline(in)) {
    double frac = nns__inspect_roof_fraction(in, m);
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
  j_bytes_by_dtype(w, NNS__JK("input"), in, m, NNS_TENSOR_INPUT);
  j_bytes_by_dtype(w, NNS__JK("output"), in, m, NNS_TENSOR_OUTPUT);
  j_bytes_by_dtype(w, NNS__JK("grad_input"), in, m, NNS_TENSOR_GRAD_INPUT);
  j_bytes_by_dtype(w, NNS__JK("grad_output"), in, m, NNS_TENSOR_GRAD_OUTPUT);
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
  nns__jw_str(w, NNS__JK("path"), in->modules[f->module].path);
  nns__jw_int(w, NNS__JK("call"), (int64_t)f->call);
  nns__jw_int(w, NNS__JK("rank"), f->rank);
  nns__jw_int(w, NNS__JK("pass"), f->pass);
  nns__jw_str(w, NNS__JK("role"), nns_nonfinite_role_name(f->role));
  nns__jw_end(w, NULL);
}

/* A pass's forward and backward time: its outermost calls together. */
static void j_pass(nns__jw *w, const nns_inspection *in, size_t b) {
  const nns__ibatch *p = &in->batches[b];
  double fwd = 0, bwd = 0;
  for (size_t i = p->first_call; i < p->first_call + p->call_count; i++) {
    const nns__icall *c = &in->calls[i];
    if (c->parent != (size_t)-1)
      continue;
    if (!isnan(c->fwd_incl))
      fwd += c->fwd_incl;
    if (!isnan(c->bwd_incl))
      bwd += c->bwd_incl;
  }
  nns__jw_obj(w, NNS__JV);
  nns__jw_int(w, NNS__JK("rank"), p->rank);
  nns__jw_int(w, NNS__JK("pass"), p->pass);
  j_ms(w, NNS__JK("wall_start"), p->wall_start);
  nns__jw_int(w, NNS__JK("calls"), (int64_t)p->call_count);
  j_ms(w, NNS__JK("forward_ms"), fwd);
  j_ms(w, NNS__JK("backward_ms"), bwd);
  nns__jw_end(w, NULL);
}

static const char *root_name(const nns_inspection *in,
                             const nns_report_options *o) {
  if (o && o->model_name && *o->model_name)
    return o->model_name;
  return in->module_count && *in->modules[0].type ? in->modules[0].type
                                                  : "model";
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
  nns__jw_str(w, NNS__JK("type"), in->module_count ? in->modules[0].type
                                                   : NULL);
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JK("meta"));
  for (size_t i = 0; i < in->meta_count; i++) {
    nns__jw_key(w, in->meta[i].key);
    nns__jw_str(w, NNS__JV, in->meta[i].value);
  }
  nns__jw_end(w, NULL);
  int ranks = 0;
  for (size_t b = 0; b < in->batch_count; b++)
    if (in->batches[b].rank + 1 > ranks)
      ranks = in->batches[b].rank + 1;
  nns__jw_int(w, NNS__JK("ranks"), ranks);
  nns__jw_arr_brk(w, NNS__JK("passes"), "\n  ");
  for (size_t b = 0; b < in->batch_count; b++)
    j_pass(w, in, b);
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JK("first_nonfinite"));
  j_offender(w, NNS__JK("forward"), in, &in->first[0]);
  j_offender(w, NNS__JK("backward"), in, &in->first[1]);
  nns__jw_end(w, NULL);
  nns__inspect_roofline_json(w, in);
  nns_status st = NNS_OK;
  nns__jw_arr_brk(w, NNS__JK("modules"), "\n  ");
  for (size_t m = 0; m < in->module_count && st == NNS_OK; m++)
    st = j_module(w, in, m);
  nns__jw_end(w, NULL);
  nns__jw_arr_brk(w, NNS__JK("calls"), "\n  ");
  for (size_t i = 0; i < in->call_count && st == NNS_OK; i++)
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

static void seed_shapes(nns__jw *w, const char *key, size_t klen,
                        const nns__icall *c, nns_tensor_role role,
                        bool bytes) {
  nns__jw_arr(w, key, klen);
  for (size_t k = 0; c && k < c->tensor_count; k++) {
    const nns__itensor *t = &c->tensors[k];
    if (t->role != role)
      continue;
    if (bytes)
      j_num(w, NNS__JV, (double)t->bytes / MB);
    else
      j_dims(w, NNS__JV, t);
  }
  nns__jw_end(w, NULL);
}

/* The first call of module m that holds a tensor of `role` (the seed kept
 * one call: nnscan shows the first, and says how many there were). */
static const nns__icall *first_with(const nns_inspection *in, size_t m,
                                    nns_tensor_role role) {
  const nns__icall *first = NULL;
  for (size_t i = in->modules[m].first_call; i != (size_t)-1;
       i = in->calls[i].next_same) {
    const nns__icall *c = &in->calls[i];
    if (!first)
      first = c;
    for (size_t k = 0; k < c->tensor_count; k++)
      if (c->tensors[k].role == role)
        return c;
  }
  return first;
}

/* Memory added during a phase per pass, in MB: the allocator's live
 * counter where it was read (what the seed meant), else the bytes
 * allocated. */
static double seed_mem(const nns_inspection *in, size_t m, bool backward) {
  int64_t live = 0;
  bool have_live = false;
  for (size_t i = in->modules[m].first_call; i != (size_t)-1;
       i = in->calls[i].next_same) {
    const nns__icall *c = &in->calls[i];
    int64_t d;
    if (live_delta(backward ? &c->bwd : &c->fwd, &d)) {
      live = nns__add_sat_i64(live, d);
      have_live = true;
    }
  }
  const nns_inspect_stats *s = &in->modules[m].stats;
  double bytes = have_live ? (double)live
                           : (double)(backward ? s->bwd_alloc_bytes
                                               : s->fwd_alloc_bytes);
  return nns__inspect_per_pass(in, bytes) / MB;
}

static void seed_info(nns__jw *w, const nns_inspection *in, size_t m) {
  const nns__imodule *d = &in->modules[m];
  const nns_inspect_stats *s = &d->stats;
  const nns__icall *fc = first_with(in, m, NNS_TENSOR_OUTPUT);
  const nns__icall *gc = first_with(in, m, NNS_TENSOR_GRAD_OUTPUT);
  const nns__icall *gi = first_with(in, m, NNS_TENSOR_GRAD_INPUT);
  int64_t in_bytes = 0;
  for (size_t k = 0; fc && k < fc->tensor_count; k++)
    if (fc->tensors[k].role == NNS_TENSOR_INPUT)
      in_bytes = nns__add_sat_i64(in_bytes, fc->tensors[k].bytes);
  nns__jw_obj(w, NNS__JK("info"));
  nns__jw_str(w, NNS__JK("type"), d->type);
  seed_shapes(w, NNS__JK("input_shapes"), fc, NNS_TENSOR_INPUT, false);
  seed_shapes(w, NNS__JK("output_shapes"), fc, NNS_TENSOR_OUTPUT, false);
  seed_shapes(w, NNS__JK("grad_in_shape"), gi, NNS_TENSOR_GRAD_INPUT, false);
  seed_shapes(w, NNS__JK("grad_out_shape"), gc, NNS_TENSOR_GRAD_OUTPUT,
              false);
  nns__jw_int(w, NNS__JK("num_parameters"), d->params);
  nns__jw_int(w, NNS__JK("num_learnable_parameters"), d->learnable_params);
  j_num(w, NNS__JK("param_memory_usage"), (double)d->param_bytes / MB);
  j_num(w, NNS__JK("gradient_memory_usage"), (double)d->grad_bytes / MB);
  seed_shapes(w, NNS__JK("input_memory_usage"), fc, NNS_TENSOR_INPUT, true);
  seed_shapes(w, NNS__JK("output_memory_usage"), fc, NNS_TENSOR_OUTPUT, true);
  j_num(w, NNS__JK("effective_additional_memory_fwd"), seed_mem(in, m, false));
  j_num(w, NNS__JK("effective_additional_memory_bwd"), seed_mem(in, m, true));
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
}

void nns__inspect_path_cell(char *buf, size_t size, const char *path,
                            size_t len);

/* Modules nest one JSON level pair per depth; below this depth the seed
 * layout is flattened, so that any JSON parser loads it (Python's stops
 * near 1000 levels): a module at SEED_MAX_DEPTH lists all its descendants
 * as its own "children", keyed by their path below it, each with empty
 * "children". */
enum { SEED_MAX_DEPTH = 64 };

/* The key of descendant m flattened under module top: its path below top
 * ("3.conv"), cut to its end and made unique with "#<index>" when long.
 * A binding's paths need not nest: one that does not extend top's path
 * is keyed by its whole path and index. */
static void seed_flat_key(nns__jw *w, const nns_inspection *in,
                          size_t top, size_t m) {
  const nns__imodule *t = &in->modules[top], *d = &in->modules[m];
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
static void seed_flat(nns__jw *w, const nns_inspection *in, size_t top) {
  size_t m = in->modules[top].first_child;
  while (m != (size_t)-1) {
    seed_flat_key(w, in, top, m);
    nns__jw_obj(w, NNS__JV);
    seed_info(w, in, m);
    nns__jw_obj(w, NNS__JK("children"));
    nns__jw_end(w, NULL);
    nns__jw_end(w, NULL);
    /* Next in preorder, without leaving top's subtree. */
    if (in->modules[m].first_child != (size_t)-1) {
      m = in->modules[m].first_child;
      continue;
    }
    while (m != top && in->modules[m].next_sibling == (size_t)-1)
      m = in->modules[m].parent;
    m = m == top ? (size_t)-1 : in->modules[m].next_sibling;
  }
}

/* Depth-first with an explicit stack: a report should not lean on the C
 * stack, and the nesting stops at SEED_MAX_DEPTH. */
nns_status nns__inspect_seed(const nns_inspection *in,
                             const nns_report_options *opt, nns__out *o) {
  nns__jw jw, *w = &jw;
  nns__jw_init(w, o);
  nns__jw_obj(w, NNS__JV);
  if (!in->module_count) {
    nns__jw_end(w, NULL);
    nns__out_put(o, "\n", 1);
    return nns__jw_finish(w);
  }
  nns__jw_key(w, root_name(in, opt));
  size_t m = 0;
  for (;;) {
    const nns__imodule *d = &in->modules[m];
    nns__jw_obj(w, NNS__JV);
    seed_info(w, in, m);
    nns__jw_obj(w, NNS__JK("children"));
    if (d->first_child != (size_t)-1 && d->depth < SEED_MAX_DEPTH) {
      m = d->first_child;
      nns__jw_key(w, in->modules[m].name);
      continue;
    }
    if (d->first_child != (size_t)-1)
      seed_flat(w, in, m);
    /* Close this module, and every ancestor whose last child it was. */
    for (;;) {
      nns__jw_end(w, NULL); /* its children */
      nns__jw_end(w, NULL); /* the module */
      size_t next = in->modules[m].next_sibling;
      if (next != (size_t)-1) {
        m = next;
        nns__jw_key(w, in->modules[m].name);
        break;
      }
      m = in->modules[m].parent;
      if (m == (size_t)-1) {
        nns__jw_end(w, NULL);
        nns__out_put(o, "\n", 1);
        return nns__jw_finish(w);
      }
    }
  }
}
