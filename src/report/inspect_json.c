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

static void j_key(nns__out *o, const char *key) {
  nns__out_json_str(o, key);
  nns__out_put(o, ": ", 2);
}

/* A double, or null when NaN/Inf (JSON has neither). */
static void j_num(nns__out *o, double v) {
  if (!isfinite(v))
    nns__out_put(o, "null", 4);
  else
    nns__out_fmt(o, "%.9g", v);
}

/* Milliseconds: to the nanosecond, which no clock here beats. */
static void j_ms(nns__out *o, double v) {
  if (!isfinite(v))
    nns__out_put(o, "null", 4);
  else
    nns__out_fmt(o, "%.6f", v);
}

static void j_i64(nns__out *o, int64_t v) {
  nns__out_fmt(o, "%lld", (long long)v);
}

/* -1 (unknown) as null. */
static void j_opt_i64(nns__out *o, int64_t v) {
  if (v < 0)
    nns__out_put(o, "null", 4);
  else
    j_i64(o, v);
}

static void j_bool(nns__out *o, bool v) {
  nns__out_str(o, v ? "true" : "false");
}

/* ", \"name\": true" for each (name, bit) of a flag set. */
typedef struct flag_key {
  const char *name;
  unsigned bit;
} flag_key;

static void j_flags(nns__out *o, unsigned flags, const flag_key *keys,
                    int n) {
  for (int i = 0; i < n; i++) {
    if (i)
      nns__out_put(o, ", ", 2);
    j_key(o, keys[i].name);
    j_bool(o, (flags & keys[i].bit) != 0);
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

static const char *role_name(nns_nonfinite_role r) {
  return r == NNS_NONFINITE_PRODUCER     ? "producer"
         : r == NNS_NONFINITE_PROPAGATOR ? "propagator"
                                         : NULL;
}

static const char *tensor_role_name(nns_tensor_role r) {
  static const char *names[] = {"input", "output", "grad_input",
                                "grad_output"};
  return names[r];
}

static void j_dims(nns__out *o, const nns__itensor *t) {
  nns__out_put(o, "[", 1);
  for (int d = 0; d < t->rank; d++) {
    if (d)
      nns__out_put(o, ", ", 2);
    j_i64(o, t->dims[d]);
  }
  nns__out_put(o, "]", 1);
}

/* Change of the live-bytes counter over a span; false when not known. */
static bool live_delta(const nns__ispan *s, int64_t *out) {
  if (!s->known || s->start.live_bytes < 0 || s->end.live_bytes < 0)
    return false;
  *out = s->end.live_bytes - s->start.live_bytes;
  return true;
}

/* ==== nnscan.inspect ==== */

static void j_tensor(nns__out *o, const nns__itensor *t) {
  nns__out_str(o, "{\"role\": ");
  nns__out_json_str(o, tensor_role_name(t->role));
  nns__out_str(o, ", \"name\": ");
  nns__out_json_str(o, t->name);
  nns__out_str(o, ", \"dtype\": ");
  nns__out_json_str(o, nns_dtype_name(t->dtype));
  nns__out_str(o, ", \"shape\": ");
  j_dims(o, t);
  nns__out_str(o, ", \"bytes\": ");
  j_i64(o, t->bytes);
  nns__out_str(o, ", ");
  j_flags(o, t->flags, tensor_flags, 3);
  nns__out_str(o, ", \"stats\": ");
  if (t->flags & NNS_TENSOR_STATS) {
    nns__out_str(o, "{\"min\": ");
    j_num(o, t->min);
    nns__out_str(o, ", \"max\": ");
    j_num(o, t->max);
    nns__out_str(o, ", \"mean\": ");
    j_num(o, t->mean);
    nns__out_str(o, ", \"std\": ");
    j_num(o, t->std);
    nns__out_str(o, ", \"zero_fraction\": ");
    j_num(o, t->zero_fraction);
    nns__out_str(o, "}");
  } else {
    nns__out_str(o, "null");
  }
  nns__out_str(o, "}");
}

static void j_phase(nns__out *o, const nns__ispan *s, double incl,
                    double self, int64_t alloc, int64_t self_alloc) {
  nns__out_str(o, "{\"start_ms\": ");
  j_ms(o, s->known ? s->start.time_ms : NAN);
  nns__out_str(o, ", \"inclusive_ms\": ");
  j_ms(o, incl);
  nns__out_str(o, ", \"self_ms\": ");
  j_ms(o, self);
  nns__out_str(o, ", \"alloc_bytes\": ");
  j_opt_i64(o, alloc);
  nns__out_str(o, ", \"self_alloc_bytes\": ");
  j_opt_i64(o, self_alloc);
  nns__out_str(o, ", \"live_delta_bytes\": ");
  int64_t d;
  if (live_delta(s, &d))
    j_i64(o, d);
  else
    nns__out_str(o, "null");
  nns__out_str(o, "}");
}

static void j_call(nns__out *o, const nns_inspection *in, size_t i) {
  const nns__icall *c = &in->calls[i];
  const nns__ibatch *b = &in->batches[c->batch];
  nns__out_fmt(o, "{\"index\": %zu, \"module\": %zu, \"parent\": ", i,
               c->module);
  if (c->parent == (size_t)-1)
    nns__out_str(o, "null");
  else
    nns__out_fmt(o, "%zu", c->parent);
  nns__out_fmt(o, ", \"rank\": %d, \"pass\": %lld, \"raised\": %s, "
                  "\"no_grad\": %s, \"forward\": ",
               b->rank, (long long)b->pass,
               c->flags & NNS_CALL_RAISED ? "true" : "false",
               c->flags & NNS_CALL_NO_GRAD ? "true" : "false");
  j_phase(o, &c->fwd, c->fwd_incl, c->fwd_self, c->fwd_alloc,
          c->fwd_self_alloc);
  nns__out_str(o, ", \"backward\": ");
  if (c->bwd.known)
    j_phase(o, &c->bwd, c->bwd_incl, c->bwd_self, c->bwd_alloc,
            c->bwd_self_alloc);
  else
    nns__out_str(o, "null");
  nns__out_str(o, ", \"forward_role\": ");
  nns__out_json_str(o, role_name(c->fwd_role));
  nns__out_str(o, ", \"backward_role\": ");
  nns__out_json_str(o, role_name(c->bwd_role));
  nns__out_str(o, ", \"tensors\": [");
  for (size_t k = 0; k < c->tensor_count; k++) {
    if (k)
      nns__out_str(o, ", ");
    j_tensor(o, &c->tensors[k]);
  }
  nns__out_str(o, "]}");
}

/* Bytes of a module's tensors of one role, by dtype, over all its calls:
 * {"float32": 1234}. Dtypes are few; a linear table is enough. */
static void j_bytes_by_dtype(nns__out *o, const nns_inspection *in,
                             size_t m, nns_tensor_role role) {
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
  nns__out_str(o, "{");
  for (int j = 0; j < nd; j++) {
    if (j)
      nns__out_str(o, ", ");
    j_key(o, nns_dtype_name(dt[j]));
    j_i64(o, by[j]);
  }
  nns__out_str(o, "}");
}

static void j_spread(nns__out *o, const double v[3]) {
  nns__out_str(o, "{\"min\": ");
  j_ms(o, v[0]);
  nns__out_str(o, ", \"median\": ");
  j_ms(o, v[1]);
  nns__out_str(o, ", \"max\": ");
  j_ms(o, v[2]);
  nns__out_str(o, "}");
}

/* A module's totals of one phase over its calls. */
static void j_phase_total(nns__out *o, double incl, double self,
                          int64_t alloc, int64_t self_alloc) {
  nns__out_str(o, "{\"inclusive_ms\": ");
  j_ms(o, incl);
  nns__out_str(o, ", \"self_ms\": ");
  j_ms(o, self);
  nns__out_fmt(o, ", \"alloc_bytes\": %lld, \"self_alloc_bytes\": %lld}",
               (long long)alloc, (long long)self_alloc);
}

static nns_status j_module(nns__out *o, const nns_inspection *in,
                           size_t m) {
  const nns__imodule *d = &in->modules[m];
  nns_inspect_stats full;
  if (nns__inspect_stats(in, m, &full))
    return NNS_E_NOMEM;
  const nns_inspect_stats *s = &full;
  nns__out_fmt(o, "{\"index\": %zu, \"path\": ", m);
  nns__out_json_str(o, d->path);
  nns__out_str(o, ", \"name\": ");
  nns__out_json_str(o, d->name);
  nns__out_str(o, ", \"type\": ");
  nns__out_json_str(o, d->type);
  nns__out_str(o, ", \"parent\": ");
  if (d->parent == (size_t)-1)
    nns__out_str(o, "null");
  else
    nns__out_fmt(o, "%zu", d->parent);
  nns__out_fmt(o, ", \"depth\": %d, \"params\": %lld, "
                  "\"learnable_params\": %lld, \"param_bytes\": %lld, "
                  "\"grad_bytes\": %lld, \"param_dtypes\": [",
               d->depth, (long long)d->params,
               (long long)d->learnable_params, (long long)d->param_bytes,
               (long long)d->grad_bytes);
  for (size_t k = 0; k < d->dtype_count; k++) {
    nns__out_str(o, k ? ", {\"dtype\": " : "{\"dtype\": ");
    nns__out_json_str(o, nns_dtype_name(d->dtypes[k].dtype));
    nns__out_fmt(o, ", \"bytes\": %lld, \"learnable_bytes\": %lld}",
                 (long long)d->dtypes[k].bytes,
                 (long long)d->dtypes[k].learnable_bytes);
  }
  nns__out_str(o, "], \"flops\": ");
  j_opt_i64(o, d->flops);
  nns__out_str(o, ", \"macs\": ");
  j_opt_i64(o, d->macs);
  /* The roofline (docs/inspect.md): only in runs that name a device. */
  if (nns__inspect_has_roofline(in)) {
    double frac = nns__inspect_roof_fraction(in, m);
    nns__out_str(o, ", \"roofline_ms\": ");
    if (d->roofline_ms > 0)
      nns__out_fmt(o, "%.9g", d->roofline_ms);
    else
      nns__out_str(o, "null");
    nns__out_str(o, ", \"roof_fraction\": ");
    if (frac >= 0)
      nns__out_fmt(o, "%.6g", frac);
    else
      nns__out_str(o, "null");
  }
  nns__out_fmt(o, ", \"calls\": %lld, \"backward_calls\": %lld, "
                  "\"forward\": ",
               (long long)s->calls, (long long)s->backward_calls);
  j_phase_total(o, s->fwd_inclusive_ms, s->fwd_self_ms, s->fwd_alloc_bytes,
                s->fwd_self_alloc_bytes);
  nns__out_str(o, ", \"backward\": ");
  j_phase_total(o, s->bwd_inclusive_ms, s->bwd_self_ms, s->bwd_alloc_bytes,
                s->bwd_self_alloc_bytes);
  nns__out_str(o, ", \"bytes\": {\"input\": ");
  j_bytes_by_dtype(o, in, m, NNS_TENSOR_INPUT);
  nns__out_str(o, ", \"output\": ");
  j_bytes_by_dtype(o, in, m, NNS_TENSOR_OUTPUT);
  nns__out_str(o, ", \"grad_input\": ");
  j_bytes_by_dtype(o, in, m, NNS_TENSOR_GRAD_INPUT);
  nns__out_str(o, ", \"grad_output\": ");
  j_bytes_by_dtype(o, in, m, NNS_TENSOR_GRAD_OUTPUT);
  nns__out_str(o, "}, \"nonfinite\": {");
  j_flags(o, s->nonfinite, nonfinite_flags, 4);
  nns__out_str(o, ", \"forward_role\": ");
  nns__out_json_str(o, role_name(s->fwd_role));
  nns__out_str(o, ", \"backward_role\": ");
  nns__out_json_str(o, role_name(s->bwd_role));
  nns__out_str(o, ", \"first_rank\": ");
  if (s->nonfinite_rank < 0)
    nns__out_str(o, "null");
  else
    nns__out_fmt(o, "%d", s->nonfinite_rank);
  nns__out_fmt(o, "}, \"ranks\": {\"count\": %d, \"forward_ms\": ", s->ranks);
  j_spread(o, s->rank_fwd_ms);
  nns__out_str(o, ", \"backward_ms\": ");
  j_spread(o, s->rank_bwd_ms);
  nns__out_str(o, "}}");
  return NNS_OK;
}

static void j_offender(nns__out *o, const nns_inspection *in,
                       const nns_inspect_offender *f) {
  if (!f->found) {
    nns__out_str(o, "null");
    return;
  }
  nns__out_fmt(o, "{\"module\": %zu, \"path\": ", f->module);
  nns__out_json_str(o, in->modules[f->module].path);
  nns__out_fmt(o, ", \"call\": %zu, \"rank\": %d, \"pass\": %lld, "
                  "\"role\": ",
               f->call, f->rank, (long long)f->pass);
  nns__out_json_str(o, role_name(f->role));
  nns__out_str(o, "}");
}

/* A pass's forward and backward time: its outermost calls together. */
static void j_pass(nns__out *o, const nns_inspection *in, size_t b) {
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
  nns__out_fmt(o, "{\"rank\": %d, \"pass\": %lld, \"wall_start\": %.6f, "
                  "\"calls\": %zu, \"forward_ms\": ",
               p->rank, (long long)p->pass, p->wall_start, p->call_count);
  j_ms(o, fwd);
  nns__out_str(o, ", \"backward_ms\": ");
  j_ms(o, bwd);
  nns__out_str(o, "}");
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
  nns__out_str(o, "{\n\"schema\": \"nnscan.inspect\",\n\"schema_version\": 1,"
                  "\n\"nnscan_version\": ");
  nns__out_json_str(o, nns_version());
  nns__out_str(o, ",\n\"model\": {\"name\": ");
  nns__out_json_str(o, root_name(in, opt));
  nns__out_str(o, ", \"type\": ");
  nns__out_json_str(o, in->module_count ? in->modules[0].type : NULL);
  nns__out_str(o, "},\n\"meta\": {");
  for (size_t i = 0; i < in->meta_count; i++) {
    if (i)
      nns__out_str(o, ", ");
    j_key(o, in->meta[i].key);
    nns__out_json_str(o, in->meta[i].value);
  }
  int ranks = 0;
  for (size_t b = 0; b < in->batch_count; b++)
    if (in->batches[b].rank + 1 > ranks)
      ranks = in->batches[b].rank + 1;
  nns__out_fmt(o, "},\n\"ranks\": %d,\n\"passes\": [", ranks);
  for (size_t b = 0; b < in->batch_count; b++) {
    nns__out_str(o, b ? ",\n  " : "\n  ");
    j_pass(o, in, b);
  }
  nns__out_str(o, "],\n\"first_nonfinite\": {\"forward\": ");
  j_offender(o, in, &in->first[0]);
  nns__out_str(o, ", \"backward\": ");
  j_offender(o, in, &in->first[1]);
  nns__out_str(o, "},\n");
  nns__inspect_roofline_json(o, in);
  nns__out_str(o, "\"modules\": [");
  for (size_t m = 0; m < in->module_count; m++) {
    nns__out_str(o, m ? ",\n  " : "\n  ");
    if (j_module(o, in, m))
      return NNS_E_NOMEM;
  }
  nns__out_str(o, "],\n\"calls\": [");
  for (size_t i = 0; i < in->call_count; i++) {
    nns__out_str(o, i ? ",\n  " : "\n  ");
    j_call(o, in, i);
  }
  nns__out_str(o, "]\n}\n");
  return NNS_OK;
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

static void seed_shapes(nns__out *o, const nns__icall *c,
                        nns_tensor_role role, bool bytes) {
  nns__out_str(o, "[");
  bool any = false;
  for (size_t k = 0; c && k < c->tensor_count; k++) {
    const nns__itensor *t = &c->tensors[k];
    if (t->role != role)
      continue;
    if (any)
      nns__out_str(o, ", ");
    any = true;
    if (bytes)
      j_num(o, (double)t->bytes / MB);
    else
      j_dims(o, t);
  }
  nns__out_str(o, "]");
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

static void seed_info(nns__out *o, const nns_inspection *in, size_t m) {
  const nns__imodule *d = &in->modules[m];
  const nns_inspect_stats *s = &d->stats;
  const nns__icall *fc = first_with(in, m, NNS_TENSOR_OUTPUT);
  const nns__icall *gc = first_with(in, m, NNS_TENSOR_GRAD_OUTPUT);
  const nns__icall *gi = first_with(in, m, NNS_TENSOR_GRAD_INPUT);
  int64_t in_bytes = 0;
  for (size_t k = 0; fc && k < fc->tensor_count; k++)
    if (fc->tensors[k].role == NNS_TENSOR_INPUT)
      in_bytes = nns__add_sat_i64(in_bytes, fc->tensors[k].bytes);
  nns__out_str(o, "{\"type\": ");
  nns__out_json_str(o, d->type);
  nns__out_str(o, ", \"input_shapes\": ");
  seed_shapes(o, fc, NNS_TENSOR_INPUT, false);
  nns__out_str(o, ", \"output_shapes\": ");
  seed_shapes(o, fc, NNS_TENSOR_OUTPUT, false);
  nns__out_str(o, ", \"grad_in_shape\": ");
  seed_shapes(o, gi, NNS_TENSOR_GRAD_INPUT, false);
  nns__out_str(o, ", \"grad_out_shape\": ");
  seed_shapes(o, gc, NNS_TENSOR_GRAD_OUTPUT, false);
  nns__out_fmt(o, ", \"num_parameters\": %lld, "
                  "\"num_learnable_parameters\": %lld, "
                  "\"param_memory_usage\": ",
               (long long)d->params, (long long)d->learnable_params);
  j_num(o, (double)d->param_bytes / MB);
  nns__out_str(o, ", \"gradient_memory_usage\": ");
  j_num(o, (double)d->grad_bytes / MB);
  nns__out_str(o, ", \"input_memory_usage\": ");
  seed_shapes(o, fc, NNS_TENSOR_INPUT, true);
  nns__out_str(o, ", \"output_memory_usage\": ");
  seed_shapes(o, fc, NNS_TENSOR_OUTPUT, true);
  nns__out_str(o, ", \"effective_additional_memory_fwd\": ");
  j_num(o, seed_mem(in, m, false));
  nns__out_str(o, ", \"effective_additional_memory_bwd\": ");
  j_num(o, seed_mem(in, m, true));
  nns__out_str(o, ", \"forward_nan\": ");
  j_bool(o, s->nonfinite & NNS_NONFINITE_OUTPUT);
  nns__out_str(o, ", \"grad_in_nan\": ");
  j_bool(o, s->nonfinite & NNS_NONFINITE_GRAD_INPUT);
  nns__out_str(o, ", \"grad_out_nan\": ");
  j_bool(o, s->nonfinite & NNS_NONFINITE_GRAD_OUTPUT);
  nns__out_str(o, ", \"total_memory\": ");
  j_num(o, (double)nns__add_sat_i64(
                 nns__add_sat_i64(d->param_bytes, d->grad_bytes), in_bytes) /
               MB);
  nns__out_str(o, ", \"forward_latency\": ");
  j_ms(o, nns__inspect_per_pass(in, s->fwd_inclusive_ms));
  nns__out_str(o, ", \"backward_latency\": ");
  j_ms(o, nns__inspect_per_pass(in, s->bwd_inclusive_ms));
  /* nnscan's own keys, after the seed's. */
  nns__out_fmt(o, ", \"calls\": %lld, \"forward_latency_self\": ",
               (long long)s->calls);
  j_ms(o, nns__inspect_per_pass(in, s->fwd_self_ms));
  nns__out_str(o, ", \"backward_latency_self\": ");
  j_ms(o, nns__inspect_per_pass(in, s->bwd_self_ms));
  nns__out_str(o, "}");
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
static void seed_flat_key(nns__out *o, const nns_inspection *in, size_t top,
                          size_t m) {
  const nns__imodule *t = &in->modules[top], *d = &in->modules[m];
  size_t skip = t->path_len + 1;
  char buf[512];
  bool below = d->path_len > skip && d->path[t->path_len] == '.' &&
               !strncmp(d->path, t->path, t->path_len);
  const char *rel = below ? d->path + skip : d->path;
  size_t rel_len = below ? d->path_len - skip : d->path_len;
  if (below && rel_len <= 200) {
    j_key(o, rel);
    return;
  }
  nns__inspect_path_cell(buf, sizeof buf - 24, rel, rel_len);
  size_t n = strlen(buf);
  snprintf(buf + n, sizeof buf - n, "#%zu", m);
  j_key(o, buf);
}

/* Every descendant of top, in preorder, as flat children. */
static void seed_flat(nns__out *o, const nns_inspection *in, size_t top) {
  bool any = false;
  size_t m = in->modules[top].first_child;
  while (m != (size_t)-1) {
    if (any)
      nns__out_str(o, ", ");
    any = true;
    seed_flat_key(o, in, top, m);
    nns__out_str(o, "{\"info\": ");
    seed_info(o, in, m);
    nns__out_str(o, ", \"children\": {}}");
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
  if (!in->module_count) {
    nns__out_str(o, "{}\n");
    return NNS_OK;
  }
  nns__out_str(o, "{");
  j_key(o, root_name(in, opt));
  size_t m = 0;
  for (;;) {
    const nns__imodule *d = &in->modules[m];
    nns__out_str(o, "{\"info\": ");
    seed_info(o, in, m);
    nns__out_str(o, ", \"children\": {");
    if (d->first_child != (size_t)-1 && d->depth < SEED_MAX_DEPTH) {
      m = d->first_child;
      j_key(o, in->modules[m].name);
      continue;
    }
    if (d->first_child != (size_t)-1)
      seed_flat(o, in, m);
    /* Close this module, and every ancestor whose last child it was. */
    for (;;) {
      nns__out_str(o, "}}");
      size_t next = in->modules[m].next_sibling;
      if (next != (size_t)-1) {
        nns__out_str(o, ", ");
        m = next;
        j_key(o, in->modules[m].name);
        break;
      }
      m = in->modules[m].parent;
      if (m == (size_t)-1) {
        nns__out_str(o, "}\n");
        return NNS_OK;
      }
    }
  }
}
