/*
 * json.c - the summary as JSON: the machine contract ("nnscan.summary",
 * schema_version 1), documented in docs/json.md and checked against
 * docs/summary.schema.json by the tests.
 *
 * Numbers are always raw integers whatever the options say; the layers
 * appear twice, as a flat preorder list (easy to filter) and as a nested
 * tree (easy to walk), both cut at the chosen depth. The contract only ever
 * grows: a new field is a new key, never a changed one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* Keys are literals: `"key": ` is pasted into one literal at compile time
 * and written with one copy, numbers without printf (a 100k-node summary
 * writes millions of keys). */
#define J_KEY(key) "\"" key "\": ", sizeof("\"" key "\": ") - 1
#define j_key(o, key) nns__out_put((o), J_KEY(key))
#define j_int(o, key, v) j_int_at((o), J_KEY(key), (v))
#define j_bool(o, key, v) j_bool_at((o), J_KEY(key), (v))

static void j_int_at(nns__out *o, const char *key, size_t len, int64_t v) {
  nns__out_put(o, key, len);
  nns__out_int(o, v);
}

static void j_bool_at(nns__out *o, const char *key, size_t len, bool v) {
  nns__out_put(o, key, len);
  if (v)
    nns__out_put(o, "true", 4);
  else
    nns__out_put(o, "false", 5);
}

/* {"name": N, "dtype": D, "shape": S} as `nnscan shapes` writes a value:
 * a dim is an integer, a symbol's string, or null when nothing is known. */
static void j_value(nns__out *o, const nns_analysis *a, size_t i) {
  const nns_model *m = nns_analysis_model(a);
  if (i == (size_t)-1 || i >= nns_model_value_count(m)) {
    nns__out_str(o, "null");
    return;
  }
  nns_value_info v = nns__value_of(m, a, i);
  nns__out_str(o, "{\"name\": ");
  nns__out_json_str(o, v.name);
  nns__out_str(o, ", \"dtype\": ");
  nns__out_json_str(o, v.dtype ? nns_dtype_name(v.dtype) : NULL);
  nns__out_str(o, ", \"shape\": ");
  if (v.rank < 0) {
    nns__out_str(o, "null");
  } else {
    nns__out_str(o, "[");
    for (int d = 0; d < v.rank; d++) {
      nns_dim dim = nns__dim_of(m, a, i, d);
      if (d)
        nns__out_str(o, ", ");
      if (dim.value >= 0)
        nns__out_int(o, dim.value);
      else
        nns__out_json_str(o, dim.symbol);
    }
    nns__out_str(o, "]");
  }
  if (nns__kind_name(v.kind)) {
    nns__out_str(o, ", \"kind\": ");
    nns__out_json_str(o, nns__kind_name(v.kind));
  }
  nns__out_str(o, "}");
}

static void j_flags(nns__out *o, unsigned f) {
  nns__out_put(o, "{", 1);
  j_bool(o, "partial", f & NNS_COUNT_PARTIAL);
  nns__out_put(o, ", ", 2);
  j_bool(o, "symbolic", f & NNS_COUNT_SYMBOLIC);
  nns__out_put(o, ", ", 2);
  j_bool(o, "shared", f & NNS_COUNT_SHARED);
  nns__out_put(o, ", ", 2);
  j_bool(o, "unbounded", f & NNS_COUNT_UNBOUNDED);
  nns__out_put(o, "}", 1);
}

static void j_axes(nns__out *o, const int64_t *v, int axes) {
  nns__out_str(o, "[");
  for (int a = 0; a < axes; a++) {
    nns__out_str(o, a ? ", " : "");
    nns__out_int(o, v[a]);
  }
  nns__out_str(o, "]");
}

/* A field that differs between positions: per axis its period and the
 * pixels [first, last] that positions 0..period-1 read (position i +
 * period reads those of i moved by period * stride). Layers only. */
static void j_rf_period(nns__out *o, const nns_analysis *an, size_t layer,
                        const nns_rf *rf, int axes) {
  bool any = false;
  for (int a = 0; a < axes; a++)
    any |= rf->period[a] > 1;
  if (!any || rf->whole)
    return;
  nns__out_str(o, ", \"period\": [");
  for (int a = 0; a < axes; a++) {
    nns__out_str(o, a ? ", " : "");
    nns__out_int(o, rf->period[a] > 1 ? rf->period[a] : 1);
  }
  nns__out_str(o, "], \"spans\": [");
  for (int a = 0; a < axes; a++) {
    nns__out_str(o, a ? ", [" : "[");
    int p = rf->period[a] > 1 ? rf->period[a] : 1;
    for (int i = 0; i < p; i++) {
      int64_t first = 0, last = 0;
      nns_analysis_layer_rf_span(an, layer, a, i, &first, &last);
      nns__out_str(o, i ? ", [" : "[");
      nns__out_int(o, first);
      nns__out_str(o, ", ");
      nns__out_int(o, last);
      nns__out_str(o, "]");
    }
    nns__out_str(o, "]");
  }
  nns__out_str(o, "]");
}

/* null when the value has no spatial axes and is not a global view. */
static void j_rf(nns__out *o, const nns_analysis *a, size_t layer,
                 const nns_rf *rf) {
  int axes = rf->axes < 0 ? 0 : rf->axes > NNS_RF_MAX_AXES ? NNS_RF_MAX_AXES
                                                          : rf->axes;
  if (axes == 0 && !rf->whole) {
    nns__out_str(o, "null");
    return;
  }
  nns__out_str(o, "{");
  j_int(o, "axes", axes);
  nns__out_str(o, ", \"field\": ");
  j_axes(o, rf->field, axes);
  nns__out_str(o, ", \"stride\": ");
  j_axes(o, rf->stride, axes);
  nns__out_str(o, ", \"padding\": ");
  j_axes(o, rf->padding, axes);
  nns__out_str(o, ", ");
  j_bool(o, "whole", rf->whole);
  nns__out_str(o, ", ");
  j_bool(o, "global_context", rf->global_context || rf->whole);
  if (a)
    j_rf_period(o, a, layer, rf, axes);
  nns__out_str(o, "}");
}

/* A double for the roofline's figures (seconds, FLOP/s, ratios): 9
 * significant digits, enough to compare with what a test computes. */
static void j_double_at(nns__out *o, const char *key, size_t len, double v) {
  nns__out_put(o, key, len);
  nns__out_fmt(o, "%.9g", v);
}
#define j_double(o, key, v) j_double_at((o), J_KEY(key), (v))

/* The counts every layer, op type and the totals share; with `roof` (the
 * analysis named a device) the roofline's intensity, bound and times. */
static void j_counts(nns__out *o, const nns_counts *k, bool roof) {
  j_int(o, "params", k->params);
  nns__out_str(o, ", ");
  j_int(o, "buffers", k->buffers);
  nns__out_str(o, ", ");
  j_int(o, "param_bytes", k->param_bytes);
  nns__out_str(o, ", ");
  j_int(o, "flops", k->flops);
  nns__out_str(o, ", ");
  j_int(o, "macs", k->macs);
  nns__out_str(o, ", ");
  j_int(o, "dmas", k->dmas);
  nns__out_str(o, ", ");
  j_int(o, "activation_bytes", k->activation_bytes);
  nns__out_str(o, ", ");
  j_int(o, "nodes", k->nodes);
  nns__out_str(o, ", \"flags\": ");
  j_flags(o, k->flags);
  /* Grown in API v1: only when there is something to say, so summaries of
   * models without frozen parameters read as before. */
  if (k->frozen) {
    nns__out_str(o, ", ");
    j_int(o, "frozen", k->frozen);
  }
  /* Masked attention (docs/metrics.md): where a known mask leaves pairs
   * out; absent means equal to macs / flops. */
  if (k->macs_unmasked != k->macs || k->flops_unmasked != k->flops) {
    nns__out_str(o, ", ");
    j_int(o, "macs_unmasked", k->macs_unmasked);
    nns__out_str(o, ", ");
    j_int(o, "flops_unmasked", k->flops_unmasked);
  }
  /* Mixture-of-experts layers (and what holds them) only: 0 on op types. */
  if (k->params_active &&
      k->params_active != nns__sum_sat(k->params, k->frozen)) {
    nns__out_str(o, ", ");
    j_int(o, "params_active", k->params_active);
  }
  if (k->weight_bytes_read && k->weight_bytes_read != k->param_bytes) {
    nns__out_str(o, ", ");
    j_int(o, "weight_bytes_read", k->weight_bytes_read);
  }
  nns__out_str(o, ", ");
  j_int(o, "bytes", k->bytes);
  nns__out_str(o, ", ");
  j_double(o, "intensity", k->intensity);
  if (!roof)
    return;
  nns__out_str(o, ", \"bound\": ");
  nns__out_json_str(o, nns_bound_name(k->bound));
  nns__out_str(o, ", ");
  j_double(o, "time_s", k->time_s);
  nns__out_str(o, ", ");
  j_double(o, "compute_time_s", k->compute_time_s);
  nns__out_str(o, ", ");
  j_double(o, "memory_time_s", k->memory_time_s);
}

/* The device and dtypes the roofline used (only when there is one). */
static void j_hardware(nns__out *o, const nns_totals *t) {
  const nns_hardware *h = &t->hardware;
  nns__out_str(o, "  \"hardware\": {\"name\": ");
  nns__out_json_str(o, h->name);
  nns__out_str(o, ", \"description\": ");
  nns__out_json_str(o, h->description);
  nns__out_str(o, ", \"source\": ");
  nns__out_json_str(o, h->source);
  nns__out_str(o, ",\n    \"compute_dtype\": ");
  nns__out_json_str(o, nns_compute_dtype_name(t->compute_dtype));
  nns__out_str(o, ", \"float_dtype\": ");
  nns__out_json_str(o, nns_compute_dtype_name(t->float_dtype));
  nns__out_str(o, ", ");
  j_double(o, "matrix_peak_flops", h->peak_flops[t->compute_dtype]);
  nns__out_str(o, ", ");
  j_double(o, "other_peak_flops", h->peak_flops[t->float_dtype]);
  nns__out_str(o, ", ");
  j_double(o, "bandwidth", h->bandwidth);
  nns__out_str(o, ",\n    \"peak_flops\": {");
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++) {
    nns__out_str(o, d ? ", \"" : "\"");
    nns__out_str(o, nns_compute_dtype_name(d));
    nns__out_str(o, "\": ");
    if (h->peak_flops[d] > 0)
      nns__out_fmt(o, "%.9g", h->peak_flops[d]);
    else
      nns__out_str(o, "null");
  }
  nns__out_str(o, "}},\n");
}

/* Tokens and FLOPs per token, for a model with a token dimension. */
static void j_tokens(nns__out *o, const nns_counts *all, int64_t tokens) {
  if (tokens <= 0)
    return;
  nns__out_str(o, ",\n    ");
  j_int(o, "tokens", tokens);
  nns__out_fmt(o, ", \"flops_per_token\": %.17g, "
               "\"flops_unmasked_per_token\": %.17g",
               (double)all->flops / (double)tokens,
               (double)all->flops_unmasked / (double)tokens);
}

/* "Conv,Relu" -> ["Conv", "Relu"]. */
static void j_op_types(nns__out *o, const char *list) {
  nns__out_str(o, "[");
  if (list && *list) {
    const char *p = list;
    bool first = true;
    while (*p) {
      size_t n = strcspn(p, ",");
      char buf[256];
      if (n >= sizeof buf)
        n = sizeof buf - 1;
      memcpy(buf, p, n);
      buf[n] = 0;
      nns__out_str(o, first ? "" : ", ");
      nns__out_json_str(o, buf);
      first = false;
      p += strcspn(p, ",");
      if (*p)
        p++;
    }
  }
  nns__out_str(o, "]");
}

static void j_layer(nns__out *o, const nns_analysis *a, size_t i,
                    const char *root_name) {
  bool roof = nns__totals_of(a).hardware.name != NULL;
  nns_layer_info l = nns__layer_of(a, i);
  nns_counts counts = nns__layer_counts_of(a, i);
  nns_rf rf = nns__layer_rf_of(a, i);
  nns__out_str(o, "{\"index\": ");
  nns__out_int(o, (int64_t)i);
  nns__out_str(o, ", \"path\": ");
  nns__out_json_str(o, l.path ? l.path : "");
  nns__out_str(o, ", \"name\": ");
  nns__out_json_str(o, l.depth == 0 ? root_name : l.name ? l.name : "");
  nns__out_str(o, ", \"depth\": ");
  nns__out_int(o, l.depth);
  nns__out_str(o, ", \"parent\": ");
  if (l.parent == (size_t)-1)
    nns__out_str(o, "null");
  else
    nns__out_int(o, (int64_t)l.parent);
  nns__out_str(o, ", \"children\": ");
  nns__out_int(o, (int64_t)l.child_count);
  nns__out_str(o, ", \"type\": ");
  nns__out_json_str(o, l.type ? l.type : "");
  nns__out_str(o, ", \"class\": ");
  const char *cls = NULL;
  nns_analysis_layer_class(a, i, &cls);
  nns__out_json_str(o, cls);
  nns__out_str(o, ", \"op_types\": ");
  j_op_types(o, l.op_types);
  nns__out_str(o, ", \"input\": ");
  j_value(o, a, l.input_value);
  nns__out_str(o, ", \"output\": ");
  j_value(o, a, l.output_value);
  nns__out_str(o, ", ");
  j_counts(o, &counts, roof);
  nns__out_str(o, ", \"rf\": ");
  j_rf(o, a, i, &rf);
  nns__out_str(o, "}");
}

static void j_op_list(nns__out *o, const nns_analysis *a, bool uncounted) {
  size_t n = uncounted ? nns_analysis_uncounted_op_count(a)
                       : nns_analysis_unknown_op_count(a);
  nns__out_str(o, "[");
  for (size_t i = 0; i < n; i++) {
    const char *dom = NULL, *op = NULL;
    size_t cnt = 0;
    if (uncounted)
      nns_analysis_uncounted_op(a, i, &dom, &op, &cnt);
    else
      nns_analysis_unknown_op(a, i, &dom, &op, &cnt);
    nns__out_str(o, i ? ", {\"domain\": " : "{\"domain\": ");
    nns__out_json_str(o, dom ? dom : "");
    nns__out_str(o, ", \"op_type\": ");
    nns__out_json_str(o, op ? op : "");
    nns__out_fmt(o, ", \"nodes\": %zu", cnt);
    size_t k[3] = {0, 0, 0};
    if (uncounted &&
        nns_analysis_uncounted_op_why(a, i, &k[0], &k[1], &k[2]) == NNS_OK)
      nns__out_fmt(o, ", \"no_rule\": %zu, \"no_size\": %zu, "
                      "\"failed\": %zu", k[0], k[1], k[2]);
    nns__out_str(o, "}");
  }
  nns__out_str(o, "]");
}

void nns__json_model_fields(nns__out *o, const nns_model *m,
                            const char *path) {
  nns_model_info info = nns__info_of(m);
  nns__out_str(o, "\"path\": ");
  nns__out_json_str(o, path);
  nns__out_fmt(o, ", \"ir_version\": %lld, \"producer\": ",
               (long long)info.ir_version);
  nns__out_json_str(o, info.producer_name);
  nns__out_str(o, ", \"producer_version\": ");
  nns__out_json_str(o, info.producer_version);
  nns__out_str(o, ", \"graph\": ");
  nns__out_json_str(o, info.graph_name);
  nns__out_fmt(o, ", \"nodes\": %zu, \"subgraph_nodes\": %zu",
               info.node_count, info.subgraph_node_count);
}

static void j_model(nns__out *o, const nns_analysis *a,
                    const nns_report_options *opt, const char *name) {
  const nns_model *m = nns_analysis_model(a);
  nns__out_str(o, "  \"model\": {\"name\": ");
  nns__out_json_str(o, name);
  nns__out_str(o, ", ");
  nns__json_model_fields(o, m, opt->model_path);
  nns__out_str(o, ", \"opsets\": {");
  for (size_t k = 0; k < nns_model_opset_count(m); k++) {
    const char *dom;
    int64_t ver;
    nns_model_opset(m, k, &dom, &ver);
    nns__out_str(o, k ? ", " : "");
    nns__out_json_str(o, dom ? dom : "");
    nns__out_fmt(o, ": %lld", (long long)ver);
  }
  nns__out_str(o, "}},\n  \"inputs\": [");
  for (size_t k = 0; k < nns_model_input_count(m); k++) {
    nns__out_str(o, k ? ", " : "");
    j_value(o, a, nns__input_of(m, k));
  }
  nns__out_str(o, "],\n  \"outputs\": [");
  for (size_t k = 0; k < nns_model_output_count(m); k++) {
    nns__out_str(o, k ? ", " : "");
    j_value(o, a, nns__output_of(m, k));
  }
  nns__out_str(o, "],\n");
}

static void j_totals(nns__out *o, const nns_analysis *a) {
  nns_totals t = nns__totals_of(a);
  nns_counts all = nns__total_counts_of(a);
  nns_rf rf = nns__total_rf_of(a);
  nns__out_str(o, "  \"totals\": {");
  j_counts(o, &all, t.hardware.name != NULL);
  if (all.macs_unmasked == all.macs && all.flops_unmasked == all.flops) {
    nns__out_str(o, ", ");  /* the totals always say */
    j_int(o, "macs_unmasked", all.macs_unmasked);
    nns__out_str(o, ", ");
    j_int(o, "flops_unmasked", all.flops_unmasked);
  }
  j_tokens(o, &all, t.tokens);
  nns__out_str(o, ",\n    ");
  j_bool(o, "complete", !(all.flags & (NNS_COUNT_PARTIAL | NNS_COUNT_UNBOUNDED |
                                       NNS_COUNT_OVERFLOW)));
  nns__out_str(o, ", ");
  j_bool(o, "saturated", (all.flags & NNS_COUNT_OVERFLOW) != 0);
  nns__out_str(o, ", ");
  j_int(o, "params_total",
        nns__sum_sat(nns__sum_sat(all.params, all.buffers), all.frozen));
  nns__out_str(o, ", ");
  j_int(o, "params_unique", t.params_unique);
  nns__out_str(o, ", ");
  j_int(o, "param_bytes_unique", t.param_bytes_unique);
  nns__out_str(o, ", ");
  j_int(o, "constants", t.constants);
  nns__out_str(o, ",\n    ");
  j_int(o, "input_bytes", t.input_bytes);
  nns__out_str(o, ", ");
  j_int(o, "peak_activation_bytes", t.peak_activation_bytes);
  nns__out_str(o, ", \"peak_node\": ");
  nns__out_json_str(o, t.peak_node);
  if (t.kv_cache_bytes_read || t.kv_cache_bytes) { /* a decoder step */
    nns__out_str(o, ",\n    ");
    j_int(o, "kv_cache_bytes_read", t.kv_cache_bytes_read);
    nns__out_str(o, ", ");
    j_int(o, "kv_cache_bytes_written", t.kv_cache_bytes_written);
    nns__out_str(o, ", ");
    j_int(o, "kv_cache_bytes", t.kv_cache_bytes);
  }
  nns__out_str(o, ",\n    \"training\": {\"estimate\": true, \"optimizer\": ");
  nns__out_json_str(o, nns_optimizer_name(t.optimizer));
  nns__out_str(o, ", ");
  j_int(o, "param_bytes", t.train_param_bytes);
  nns__out_str(o, ", ");
  j_int(o, "grad_bytes", t.train_grad_bytes);
  nns__out_str(o, ", ");
  j_int(o, "optimizer_bytes", t.train_optimizer_bytes);
  nns__out_str(o, ", ");
  j_int(o, "activation_bytes", t.train_activation_bytes);
  nns__out_str(o, ", ");
  j_int(o, "total_bytes", t.train_total_bytes);
  nns__out_str(o, "},\n    \"rf\": ");
  j_rf(o, NULL, 0, &rf);
  nns__out_str(o, "},\n");
}

static void j_symbols(nns__out *o, const nns_analysis *a) {
  const nns_model *m = nns_analysis_model(a);
  /* The symbolic dims of the graph inputs: those a count took as 1 (when
   * the totals are flagged symbolic) and a user can fix with --input. */
  nns_counts all = nns__total_counts_of(a);
  nns__out_str(o, "  \"symbols\": [");
  const char *seen[64];
  int shown = (int)nns__input_symbols(m, a, seen, 64);
  for (int k = 0; k < shown; k++) {
    nns__out_str(o, k ? ", " : "");
    nns__out_json_str(o, seen[k]);
  }
  nns__out_fmt(o, "],\n  \"symbols_taken_as_1\": %s,\n",
               all.flags & NNS_COUNT_SYMBOLIC ? "true" : "false");
  /* The graph inputs with a symbolic dim, and the --input option that
   * fixes each (symbols written N). */
  nns__out_str(o, "  \"symbolic_inputs\": [");
  shown = 0;
  for (size_t k = 0; k < nns_model_input_count(m); k++) {
    char opt[512];
    const char *name = nns__input_fix(m, a, k, opt, sizeof opt);
    if (!name)
      continue;
    nns__out_str(o, shown++ ? ",\n    {\"input\": " : "\n    {\"input\": ");
    nns__out_json_str(o, name);
    nns__out_str(o, ", \"option\": ");
    nns__out_json_str(o, opt);
    nns__out_str(o, "}");
  }
  nns__out_str(o, shown ? "\n  ],\n" : "],\n");
  /* Which branch each If's costs follow. */
  nns__out_str(o, "  \"branches\": [");
  size_t nb = nns_analysis_branch_count(a);
  for (size_t i = 0; i < nb; i++) {
    const char *node;
    int then_branch, known;
    nns_analysis_branch(a, i, &node, &then_branch, &known);
    nns__out_str(o, i ? ",\n    {\"node\": " : "\n    {\"node\": ");
    nns__out_json_str(o, node);
    nns__out_fmt(o, ", \"counted\": \"%s\", \"condition_known\": %s}",
                 then_branch ? "then_branch" : "else_branch",
                 known == 1 ? "true" : "false");
  }
  nns__out_str(o, nb ? "\n  ],\n" : "],\n");
}

/* What goes before point i of a per-node array: 16 to a line. Written
 * without printf, as are the numbers: these arrays have a point per node. */
static void j_point_sep(nns__out *o, size_t i) {
  if (i % 16)
    nns__out_put(o, ", ", 2);
  else if (i)
    nns__out_put(o, ",\n      ", 8);
}

/* The live-activation curve, one point per main-graph node in running
 * order, and the layer of each node: the innermost one shown at this
 * depth, so every index is a layer of "layers". */
static void j_memory(nns__out *o, const nns_analysis *a, int maxd) {
  size_t n = nns_analysis_memory_count(a), peak = nns_analysis_memory_peak(a);
  nns__out_str(o, "  \"memory\": {\"peak_position\": ");
  if (peak == (size_t)-1)
    nns__out_str(o, "null");
  else
    nns__out_fmt(o, "%zu", peak);
  nns__out_str(o, ",\n    \"live_bytes\": [");
  for (size_t i = 0; i < n; i++) {
    int64_t b = 0;
    size_t l = 0;
    nns_analysis_memory_point(a, i, &b, &l);
    j_point_sep(o, i);
    nns__out_int(o, b);
  }
  nns__out_str(o, "],\n    \"node_layers\": [");
  size_t prev_in = (size_t)-1, prev_out = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t b = 0;
    size_t l = 0;
    nns_analysis_memory_point(a, i, &b, &l);
    if (l == prev_in) {
      l = prev_out; /* consecutive nodes mostly share a layer */
    } else {
      prev_in = l;
      nns_layer_info li = nns__layer_of(a, l);
      while (li.depth > maxd && li.parent != (size_t)-1) {
        l = li.parent;
        li = nns__layer_of(a, l);
      }
      prev_out = l;
    }
    j_point_sep(o, i);
    nns__out_int(o, (int64_t)l);
  }
  nns__out_str(o, "]},\n");
}

nns_status nns__report_json(const nns_analysis *a,
                            const nns_report_options *opt, nns__out *o) {
  const char *name = nns__model_name(nns_analysis_model(a), opt);
  int maxd = nns__report_depth(opt);
  nns__out_str(o, "{\n  \"schema\": \"nnscan.summary\",\n"
                  "  \"schema_version\": 1,\n  \"nnscan_version\": ");
  nns__out_json_str(o, nns_version());
  nns__out_str(o, ",\n");
  j_model(o, a, opt, name);
  nns_totals t = nns__totals_of(a);
  nns__out_str(o, "  \"options\": {\"max_depth\": ");
  if (maxd == INT32_MAX)
    nns__out_str(o, "null");
  else
    nns__out_fmt(o, "%d", maxd);
  nns__out_str(o, ", \"optimizer\": ");
  nns__out_json_str(o, nns_optimizer_name(t.optimizer));
  nns__out_str(o, "},\n");
  j_totals(o, a);
  bool roof = t.hardware.name != NULL;
  if (roof)
    j_hardware(o, &t);

  nns__out_str(o, "  \"params_by_dtype\": [");
  for (size_t i = 0; i < nns_analysis_param_dtype_count(a); i++) {
    int dt = 0;
    int64_t el = 0, by = 0;
    nns_analysis_param_dtype(a, i, &dt, &el, &by);
    nns__out_str(o, i ? ", {\"dtype\": " : "{\"dtype\": ");
    nns__out_json_str(o, nns_dtype_name(dt));
    nns__out_fmt(o, ", \"elements\": %lld, \"bytes\": %lld}", (long long)el,
                 (long long)by);
  }
  /* The table's families in its order: what "family" below names, and the
   * HTML page's colour index (stable from one model to the next). */
  nns__out_str(o, "],\n  \"families\": [");
  for (size_t i = 0; nns_family_name(i); i++) {
    nns__out_str(o, i ? ", " : "");
    nns__out_json_str(o, nns_family_name(i));
  }
  nns__out_str(o, "],\n  \"op_types\": [");
  for (size_t i = 0; i < nns_analysis_op_type_count(a); i++) {
    nns_op_type_info ot = {.size = sizeof ot, .domain = "", .op_type = ""};
    nns_counts k = {.size = sizeof k};
    nns_analysis_op_type(a, i, &ot);
    nns_analysis_op_type_counts(a, i, &k);
    nns__out_str(o, i ? ",\n    {\"domain\": " : "\n    {\"domain\": ");
    nns__out_json_str(o, ot.domain ? ot.domain : "");
    nns__out_str(o, ", \"op_type\": ");
    nns__out_json_str(o, ot.op_type ? ot.op_type : "");
    nns__out_str(o, ", ");
    j_bool(o, "counted", ot.counted);
    nns__out_str(o, ", \"family\": ");
    nns__out_json_str(o, ot.family ? ot.family : "unknown");
    nns__out_str(o, ", ");
    j_counts(o, &k, roof);
    nns__out_str(o, "}");
  }
  nns__out_str(o, nns_analysis_op_type_count(a) ? "\n  ],\n" : "],\n");
  nns__out_str(o, "  \"uncounted_ops\": ");
  j_op_list(o, a, true);
  nns__out_str(o, ",\n  \"unknown_ops\": ");
  j_op_list(o, a, false);
  nns__out_str(o, ",\n");
  j_symbols(o, a);

  nns__out_str(o, "  \"parameters\": [");
  size_t np = nns_analysis_param_count(a), nl = nns_analysis_layer_count(a);
  for (size_t i = 0; i < np; i++) {
    nns_param_info p = {.size = sizeof p, .name = "", .storage = "",
                        .layer = (size_t)-1};
    nns_analysis_param(a, i, &p);
    nns__out_str(o, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
    nns__out_json_str(o, p.name);
    nns__out_str(o, ", \"storage\": ");
    nns__out_json_str(o, p.storage);
    nns__out_str(o, ", \"kind\": ");
    nns__out_json_str(o, nns_param_kind_name(p.kind));
    nns__out_str(o, ", \"dtype\": ");
    nns__out_json_str(o, p.dtype ? nns_dtype_name(p.dtype) : NULL);
    nns__out_str(o, ", ");
    j_int(o, "elements", p.elements);
    nns__out_str(o, ", ");
    j_int(o, "bytes", p.bytes);
    nns__out_str(o, ", \"layer\": ");
    if (p.layer < nl) {
      nns_layer_info l = nns__layer_of(a, p.layer);
      nns__out_json_str(o, l.path ? l.path : "");
    } else {
      nns__out_str(o, "null");
    }
    nns__out_str(o, ", ");
    j_bool(o, "shared", p.shared);
    nns__out_str(o, ", ");
    j_bool(o, "copy", p.is_copy);
    nns__out_str(o, "}");
  }
  nns__out_str(o, np ? "\n  ],\n" : "],\n");

  nns__out_str(o, "  \"warnings\": [");
  for (size_t k = 0; k < nns_analysis_warning_count(a); k++) {
    nns__out_str(o, k ? ",\n    " : "\n    ");
    nns__out_json_str(o, nns__warning_of(a, k));
  }
  nns__out_str(o, nns_analysis_warning_count(a) ? "\n  ],\n" : "],\n");

  j_memory(o, a, maxd);

  /* The flat list, in preorder. */
  nns__out_str(o, "  \"layers\": [");
  bool first = true;
  for (size_t i = 0; i < nl; i++) {
    nns_layer_info l = nns__layer_of(a, i);
    if (l.depth > maxd)
      continue;
    nns__out_str(o, first ? "\n    " : ",\n    ");
    first = false;
    j_layer(o, a, i, name);
  }
  nns__out_str(o, "\n  ],\n  \"tree\": ");

  /* The same layers nested. Preorder makes the open nodes a chain of
   * increasing depth: a layer closes every open node at its depth or
   * deeper, then opens its own. No recursion, so a hostile depth cannot
   * exhaust the stack. */
  int *open = malloc((nl ? nl : 1) * sizeof *open);
  if (!open)
    return NNS_E_NOMEM;
  size_t nopen = 0;
  for (size_t i = 0; i < nl; i++) {
    nns_layer_info l = nns__layer_of(a, i);
    if (l.depth > maxd)
      continue;
    bool sibling = false;
    while (nopen && open[nopen - 1] >= l.depth) {
      nns__out_str(o, "]}");
      nopen--;
      sibling = true;
    }
    if (!nopen && sibling) {
      /* A second root: the API promises one, so keep the JSON valid by
       * dropping the rest. */
      break;
    }
    if (nopen)
      nns__out_str(o, sibling ? ",\n    " : "\n    ");
    nns__out_str(o, "{\"name\": ");
    nns__out_json_str(o, l.depth == 0 ? name : l.name ? l.name : "");
    nns__out_str(o, ", \"info\": ");
    j_layer(o, a, i, name);
    nns__out_str(o, ", \"children\": [");
    open[nopen++] = l.depth;
  }
  if (nopen == 0 && nl == 0)
    nns__out_str(o, "null");
  while (nopen) {
    nns__out_str(o, "]}");
    nopen--;
  }
  free(open);
  nns__out_str(o, "\n}\n");
  return NNS_OK;
}
