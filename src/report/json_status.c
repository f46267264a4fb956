/*
 * json_status.c - the diagnostics behind the statuses of the
 * "nnscan.summary" v2 document (json_status.h): one per node the analysis
 * could not count in full (no cost rule, no usable size, a failed rule, no
 * shape rule, an unbounded loop, a saturated count), one per If counted
 * without knowing its condition, one per load or inference warning, and
 * the model-wide ones (an input whose symbolic dims were taken as 1, a
 * saturated total). A layer's statuses follow from its counts' flags; the
 * diagnostics say why. Read through the public accessors only.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "json_status.h"

static const struct {
  const char *code, *severity, *text;
  unsigned metrics;
} diag_table[] = {
#define NNS__DIAG_ROW_(name, code, sev, metrics, text) {code, sev, text, metrics},
    NNS__DIAG_MAP(NNS__DIAG_ROW_)
#undef NNS__DIAG_ROW_
};

/* A diagnostic's metric i by key: NNS_METRIC_MAP's, then the
 * attention products over the pairs a mask allows (NNS__M_UNMASKED's
 * bits). */
enum { KEYS = NNS__M_COUNT + 2 };
static const char *metric_key(int i) {
  return i < NNS__M_COUNT       ? nns_metric_name(i)
         : i == NNS__M_COUNT    ? "macs_unmasked"
                                : "flops_unmasked";
}

const char *nns__diag_code_name(nns__diag_code c) {
  return diag_table[c].code;
}
const char *nns__diag_severity(nns__diag_code c) {
  return diag_table[c].severity;
}
unsigned nns__diag_metrics(nns__diag_code c) { return diag_table[c].metrics; }
const char *nns__diag_text(nns__diag_code c) { return diag_table[c].text; }

static bool add(nns__jstatus *s, nns__jdiag d) {
  nns__jdiag *v = nns__grow(s->diags, &s->cap, s->count + 1, sizeof *v, 16);
  if (!v)
    return false;
  s->diags = v;
  s->diags[s->count++] = d;
  return true;
}

/* Index of (domain, op) in the uncounted (or unknown) op list, or -1. */
static size_t op_index(const nns_analysis *a, bool uncounted,
                       const char *dom, const char *op) {
  size_t n = uncounted ? nns_analysis_uncounted_op_count(a)
                       : nns_analysis_unknown_op_count(a);
  for (size_t i = 0; i < n; i++) {
    const char *d = NULL, *o = NULL;
    size_t c = 0;
    if (uncounted)
      nns_analysis_uncounted_op(a, i, &d, &o, &c);
    else
      nns_analysis_unknown_op(a, i, &d, &o, &c);
    if (o && d && !strcmp(o, op) && !strcmp(d, dom))
      return i;
  }
  return (size_t)-1;
}

/* Why an uncounted node was not counted: its op type's reasons, and where
 * they are mixed, whether the node has a value of unknown size. */
static nns__diag_code why(const nns_analysis *a, size_t op, size_t node,
                          const nns_node_info *ni) {
  const nns_model *m = nns_analysis_model(a);
  size_t k[3] = {0, 0, 0};
  nns_analysis_uncounted_op_why(a, op, &k[0], &k[1], &k[2]);
  if (k[0] && !k[1] && !k[2])
    return NNS__D_COST_NO_RULE;
  if (k[2] && !k[0] && !k[1])
    return NNS__D_COST_FAILED;
  if (k[1] && !k[0] && !k[2])
    return NNS__D_COST_NO_SIZE;
  for (size_t j = 0; j < ni->input_count + ni->output_count; j++) {
    size_t v = (size_t)-1;
    if (j < ni->input_count)
      nns_model_node_input(m, node, j, &v);
    else
      nns_model_node_output(m, node, j - ni->input_count, &v);
    if (v == (size_t)-1)
      continue;
    nns_value_info vi = nns__value_of(m, a, v);
    if (vi.rank < 0 && k[1])
      return NNS__D_COST_NO_SIZE;
    for (int d = 0; d < vi.rank && k[1]; d++)
      if (nns__dim_of(m, a, v, d).value < 0)
        return NNS__D_COST_NO_SIZE;
  }
  return k[2] ? NNS__D_COST_FAILED : NNS__D_COST_NO_RULE;
}

static bool push_id(nns__jstatus *s, size_t layer, size_t id) {
  size_t *v = nns__grow(s->ids[layer], &s->id_cap[layer],
                        s->id_count[layer] + 1, sizeof *v, 4);
  if (!v)
    return false;
  s->ids[layer] = v;
  v[s->id_count[layer]++] = id;
  return true;
}

nns_status nns__jstatus_build(nns__jstatus *s, const nns_analysis *a) {
  const nns_model *m = nns_analysis_model(a);
  memset(s, 0, sizeof *s);
  size_t nl = nns_analysis_layer_count(a), nn = nns_model_node_count(m);
  s->layers = nl;
  size_t slots = nl ? nl : 1;
  s->ids = calloc(slots, sizeof *s->ids);
  s->id_count = calloc(slots, sizeof *s->id_count);
  s->id_cap = calloc(slots, sizeof *s->id_cap);
  s->uncounted = calloc(slots, sizeof *s->uncounted);
  s->nodes = calloc(slots, sizeof *s->nodes);
  if (!s->ids || !s->id_count || !s->id_cap || !s->uncounted || !s->nodes)
    goto nomem;
  bool any_saturated = false;
  for (size_t i = 0; i < nn; i++) {
    nns_node_info ni = {.size = sizeof ni};
    if (nns_analysis_node(a, i, &ni) != NNS_OK)
      continue;
    size_t layer = ni.layer < nl ? ni.layer : nl ? 0 : (size_t)-1;
    nns__jdiag d = {.node = i, .where = ni.name, .op = ni.op_type,
                    .domain = ni.domain, .module = ni.module_path,
                    .layer = layer};
    size_t op = op_index(a, true, ni.domain, ni.op_type);
    bool counted = (ni.flags & NNS_NODE_COUNTED) != 0;
    if (!counted && op != (size_t)-1) {
      d.code = why(a, op, i, &ni);
      if (!add(s, d))
        goto nomem;
      if (layer != (size_t)-1)
        s->uncounted[layer]++;
    }
    if (layer != (size_t)-1 && (counted || op != (size_t)-1))
      s->nodes[layer]++;
    if (op_index(a, false, ni.domain, ni.op_type) != (size_t)-1) {
      d.code = NNS__D_SHAPE_NO_RULE;
      if (!add(s, d))
        goto nomem;
    }
    nns_counts k = {.size = sizeof k};
    if (counted && nns_analysis_node_counts(a, i, &k) == NNS_OK) {
      if (k.flags & NNS_COUNT_UNBOUNDED) {
        d.code = NNS__D_LOOP_UNBOUNDED;
        if (!add(s, d))
          goto nomem;
      }
      if (k.flags & NNS_COUNT_MASK_UNKNOWN) {
        d.code = NNS__D_MASK_UNKNOWN;
        if (!add(s, d))
          goto nomem;
      }
      const char *approx = nns__analysis_node_approx(a, i);
      if (approx) {
        d.code = NNS__D_COST_APPROXIMATE;
        d.message = approx;
        bool ok = add(s, d);
        d.message = NULL;
        if (!ok)
          goto nomem;
      }
      if (k.flags & NNS_COUNT_OVERFLOW) {
        d.code = NNS__D_COUNT_SATURATED;
        any_saturated = true;
        if (!add(s, d))
          goto nomem;
      }
    }
  }
  for (size_t i = 0; i < nns_analysis_branch_count(a); i++) {
    const char *node = NULL;
    int then_branch = 0, known = 0;
    nns_analysis_branch(a, i, &node, &then_branch, &known);
    if (known == 0 && !add(s, (nns__jdiag){.code = NNS__D_BRANCH_UNKNOWN,
                                           .node = (size_t)-1, .where = node,
                                           .op = "If", .domain = "",
                                           .layer = (size_t)-1}))
      goto nomem;
  }
  for (size_t i = 0; i < nns_analysis_warning_count(a); i++)
    if (!add(s, (nns__jdiag){.code = NNS__D_MODEL_WARNING, .node = (size_t)-1,
                             .layer = (size_t)-1,
                             .message = nns__warning_of(a, i)}))
      goto nomem;
  /* Model-wide: given to every layer whose counts carry the flag. */
  s->global_first = s->count;
  nns_counts all = nns__total_counts_of(a);
  if (all.flags & NNS_COUNT_SYMBOLIC) {
    for (size_t k = 0; k < nns_model_input_count(m); k++) {
      char opt[512];
      const char *name = nns__input_fix(m, a, k, opt, sizeof opt);
      if (name && !add(s, (nns__jdiag){.code = NNS__D_SYMBOL_AS_1,
                                       .node = (size_t)-1, .where = name,
                                       .layer = (size_t)-1}))
        goto nomem;
    }
  }
  if ((all.flags & NNS_COUNT_OVERFLOW) && !any_saturated &&
      !add(s, (nns__jdiag){.code = NNS__D_COUNT_SATURATED, .node = (size_t)-1,
                           .layer = (size_t)-1}))
    goto nomem;
  /* Each node diagnostic belongs to its layer and every ancestor. */
  for (size_t id = 0; id < s->global_first; id++) {
    for (size_t l = s->diags[id].layer; l < nl;) {
      if (!push_id(s, l, id))
        goto nomem;
      l = nns__layer_of(a, l).parent;
    }
  }
  /* Node counts over subtrees: in preorder a parent comes before its
   * children, so a reverse walk has every child summed before its parent
   * passes its total on. */
  for (size_t i = nl; i-- > 1;) {
    size_t p = nns__layer_of(a, i).parent;
    if (p < nl) {
      s->nodes[p] += s->nodes[i];
      s->uncounted[p] += s->uncounted[i];
    }
  }
  return NNS_OK;
nomem:
  nns__jstatus_free(s);
  return NNS_E_NOMEM;
}

void nns__jstatus_free(nns__jstatus *s) {
  for (size_t i = 0; s->ids && i < s->layers; i++)
    free(s->ids[i]);
  free(s->ids);
  free(s->id_count);
  free(s->id_cap);
  free(s->uncounted);
  free(s->nodes);
  free(s->diags);
  memset(s, 0, sizeof *s);
}

/* Does a global diagnostic apply to counts flagged `flags`? */
static bool global_applies(const nns__jdiag *d, unsigned flags) {
  if (d->code == NNS__D_SYMBOL_AS_1)
    return flags & NNS_COUNT_SYMBOLIC;
  if (d->code == NNS__D_COUNT_SATURATED)
    return flags & NNS_COUNT_OVERFLOW;
  return false;
}

/* The ids of the diagnostics of `layer` (0: the model's for the totals)
 * that touch a metric of `mask`, into w as the array under key. */
static void write_ids_at(nns__jw *w, const char *key, size_t klen,
                         const nns__jstatus *s, size_t layer, unsigned flags,
                         unsigned mask) {
  nns__jw_arr(w, key, klen);
  if (layer < s->layers)
    for (size_t k = 0; k < s->id_count[layer]; k++) {
      size_t id = s->ids[layer][k];
      if (!mask || (nns__diag_metrics(s->diags[id].code) & mask))
        nns__jw_int(w, NNS__JV, (int64_t)id);
    }
  for (size_t id = s->global_first; id < s->count; id++)
    if (global_applies(&s->diags[id], flags) &&
        (!mask || (nns__diag_metrics(s->diags[id].code) & mask)))
      nns__jw_int(w, NNS__JV, (int64_t)id);
  nns__jw_end(w, NULL);
}

static void write_ids(nns__jw *w, const nns__jstatus *s, size_t layer,
                      unsigned flags, unsigned mask) {
  write_ids_at(w, NNS__JK("diagnostics"), s, layer, flags, mask);
}

void nns__json_unmasked_status(nns__jw *w, const nns__jstatus *s,
                               size_t layer, const nns_counts *k) {
  if (!s) {
    if (k->flags & NNS_COUNT_MASK_UNKNOWN)
      nns__jw_str(w, NNS__JK("unmasked_status"), "partial");
    return;
  }
  /* Over the pairs a mask allows: partial where a mask is not known, and
   * wherever the dense products' counts themselves are. */
  unsigned touch = NNS__M(MACS) | NNS__M(FLOPS) | NNS__M_UNMASKED;
  bool partial = (nns__jstatus_partial(s, layer, k) & touch) != 0;
  nns__jw_str(w, NNS__JK("unmasked_status"), partial ? "partial" : "complete");
  if (partial) {
    size_t l = layer == (size_t)-1 ? 0 : layer;
    write_ids_at(w, NNS__JK("unmasked_diagnostics"), s, l, k->flags, touch);
  }
}

void nns__json_diag_ids(nns__jw *w, const nns__jstatus *s, size_t layer,
                        unsigned flags) {
  write_ids(w, s, layer == (size_t)-1 ? 0 : layer, flags, 0);
}

unsigned nns__jstatus_partial(const nns__jstatus *s, size_t layer,
                              const nns_counts *k) {
  size_t l = layer == (size_t)-1 ? 0 : layer;
  /* Which metrics the flags make lower bounds (NNS_METRIC_MAP's rule). */
  unsigned partial = nns_metrics_partial(k->flags);
  /* ... and the diagnostics of the subtree (an unknown op's outputs). */
  if (l < s->layers)
    for (size_t j = 0; j < s->id_count[l]; j++)
      partial |= nns__diag_metrics(s->diags[s->ids[l][j]].code);
  return partial;
}

void nns__json_metrics(nns__jw *w, const nns__jstatus *s, size_t layer,
                       const nns_counts *k) {
  size_t l = layer == (size_t)-1 ? 0 : layer;
  const int64_t values[NNS__M_COUNT] = {
#define NNS__METRIC_VALUE_(name, bit, key, lower, member, mflags, text)        \
  k->member,
      NNS_METRIC_MAP(NNS__METRIC_VALUE_)
#undef NNS__METRIC_VALUE_
  };
  unsigned partial = nns__jstatus_partial(s, layer, k);
  /* Not one node of the subtree counted: its costs are not known at all. */
  bool none_counted = l < s->layers && s->nodes[l] &&
                      s->uncounted[l] == s->nodes[l];
  nns__jw_obj(w, NNS__JK("metrics"));
  for (int i = 0; i < NNS__M_COUNT; i++) {
    unsigned bit = 1u << i;
    nns__jw_key(w, nns_metric_name(i));
    nns__jw_obj(w, NNS__JV);
    if (!(partial & bit)) {
      nns__jw_str(w, NNS__JK("status"), "complete");
      nns__jw_int(w, NNS__JK("value"), values[i]);
    } else if (none_counted && (bit & NNS__M_COST)) {
      nns__jw_str(w, NNS__JK("status"), "unavailable");
    } else {
      nns__jw_str(w, NNS__JK("status"), "partial");
      nns__jw_int(w, NNS__JK("known_value"), values[i]);
    }
    if (partial & bit)
      write_ids(w, s, l, k->flags, bit);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
}

void nns__json_diagnostics(nns__jw *w, const nns__jstatus *s) {
  nns__jw_arr_brk(w, NNS__JK("diagnostics"), "\n    ");
  for (size_t id = 0; id < s->count; id++) {
    const nns__jdiag *d = &s->diags[id];
    nns__jw_obj(w, NNS__JV);
    nns__jw_int(w, NNS__JK("id"), (int64_t)id);
    nns__jw_str(w, NNS__JK("code"), nns__diag_code_name(d->code));
    nns__jw_str(w, NNS__JK("severity"), nns__diag_severity(d->code));
    nns__jw_str(w, NNS__JK("message"),
                d->message ? d->message : nns__diag_text(d->code));
    if (d->node == (size_t)-1)
      nns__jw_null(w, NNS__JK("node"));
    else
      nns__jw_int(w, NNS__JK("node"), (int64_t)d->node);
    nns__jw_str(w, NNS__JK("where"), d->where);
    nns__jw_str(w, NNS__JK("op"), d->op);
    nns__jw_str(w, NNS__JK("domain"), d->domain);
    nns__jw_str(w, NNS__JK("module"), d->module);
    if (d->layer == (size_t)-1)
      nns__jw_null(w, NNS__JK("layer"));
    else
      nns__jw_int(w, NNS__JK("layer"), (int64_t)d->layer);
    nns__jw_arr(w, NNS__JK("metrics"));
    for (int i = 0; i < KEYS; i++)
      if (nns__diag_metrics(d->code) & (1u << i))
        nns__jw_str(w, NNS__JV, metric_key(i));
    nns__jw_end(w, NULL);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, "\n  ");
}
