/*
 * api.c - the public read accessors of nodes and of an analysis (nnscan.h,
 * "Nodes" and "Analysis"): totals, parameter dtypes, op types, parameters,
 * layers, uncounted ops, branches, each node with its counts, the
 * live-activation curve, and the inference the analysis counted.
 *
 * Node structure is the model's, readable from the load on; everything an
 * analysis computes is read through its own handle. Bad handles, indexes
 * and out pointers give NNS_E_ARG; list counts are 0 for a NULL handle.
 */
#include <string.h>

#include "analyze.h"
#include "reads.h"

/* NNS_E_ARG for a NULL analysis or out. */
static nns_status analysed(const nns_analysis *a, const void *out) {
  return a && out ? NNS_OK : NNS_E_ARG;
}

const nns_model *nns_analysis_model(const nns_analysis *a) {
  return a ? a->model : NULL;
}

nns_status nns_analysis_totals(const nns_analysis *a, nns_totals *out) {
  nns_status st = analysed(a, out);
  return st ? st : NNS__PUT(out, &a->totals, NNS__V1_TOTALS);
}

nns_status nns_analysis_total_counts(const nns_analysis *a, nns_counts *out) {
  nns_status st = analysed(a, out);
  return st ? st : NNS__PUT(out, &a->all, NNS__V1_COUNTS);
}

nns_status nns_analysis_total_rf(const nns_analysis *a, nns_rf *out) {
  nns_status st = analysed(a, out);
  return st ? st : NNS__PUT(out, &a->rf, NNS__V1_RF);
}

size_t nns_analysis_param_dtype_count(const nns_analysis *a) {
  return a ? a->n_dtypes : 0;
}

nns_status nns_analysis_param_dtype(const nns_analysis *a, size_t i, int *dtype,
                                 int64_t *elements, int64_t *bytes) {
  nns_status st = analysed(a, dtype);
  if (st)
    return st;
  if (i >= a->n_dtypes || !elements || !bytes)
    return NNS_E_ARG;
  *dtype = a->dtypes[i].dtype;
  *elements = a->dtypes[i].elements;
  *bytes = a->dtypes[i].bytes;
  return NNS_OK;
}

size_t nns_analysis_op_type_count(const nns_analysis *a) {
  return a ? a->n_optypes : 0;
}

nns_status nns_analysis_op_type(const nns_analysis *a, size_t i,
                                nns_op_type_info *out) {
  if (!a || !out || i >= a->n_optypes)
    return NNS_E_ARG;
  const nns__optype_row *r = &a->optypes[i];
  nns_op_type_info info = {.domain = r->domain,
                           .op_type = r->op_type,
                           .counted = r->counted,
                           .family = r->family};
  return NNS__PUT(out, &info, NNS__V1_OP_TYPE_INFO);
}

nns_status nns_analysis_op_type_counts(const nns_analysis *a, size_t i,
                                    nns_counts *out) {
  nns_status st = analysed(a, out);
  if (st)
    return st;
  if (i >= a->n_optypes)
    return NNS_E_ARG;
  return NNS__PUT(out, &a->optypes[i].counts, NNS__V1_COUNTS);
}

size_t nns_analysis_param_count(const nns_analysis *a) {
  return a ? a->n_params : 0;
}

nns_status nns_analysis_param(const nns_analysis *a, size_t i,
                           nns_param_info *out) {
  nns_status st = analysed(a, out);
  if (st)
    return st;
  if (i >= a->n_params)
    return NNS_E_ARG;
  return NNS__PUT(out, &a->params[i], NNS__V1_PARAM_INFO);
}

size_t nns_analysis_layer_count(const nns_analysis *a) {
  return a ? a->n_layers : 0;
}

nns_status nns_analysis_layer(const nns_analysis *a, size_t i,
                           nns_layer_info *out) {
  nns_status st = analysed(a, out);
  if (st)
    return st;
  if (i >= a->n_layers)
    return NNS_E_ARG;
  const nns__linfo *l = &a->layers[i].info;
  nns_layer_info info = {
      .size = sizeof info,
      .name = l->name,
      .path = l->path,
      .depth = a->layers[i].depth,
      .parent = l->parent == NNS__NONE32 ? (size_t)-1 : l->parent,
      .child_count = l->child_count,
      .type = l->type,
      .op_types = l->op_types,
      .input_value =
          l->input_value == NNS__NONE32 ? (size_t)-1 : l->input_value,
      .output_value =
          l->output_value == NNS__NONE32 ? (size_t)-1 : l->output_value,
      .call_count = l->call_count,
      .not_called = l->not_called};
  /* A caller built against this header (the reports, once per layer and
   * column) gets the row in one store, not through the sized copy. */
  if (out->size == sizeof info) {
    *out = info;
    return NNS_OK;
  }
  return NNS__PUT(out, &info, NNS__V1_LAYER_INFO);
}

nns_status nns_analysis_layer_counts(const nns_analysis *a, size_t i,
                                  nns_counts *out) {
  nns_status st = analysed(a, out);
  if (st)
    return st;
  if (i >= a->n_layers)
    return NNS_E_ARG;
  if (out->size == sizeof *out) { /* built against this header */
    nns__layer_counts(a, i, out);
    out->size = sizeof *out;
    return NNS_OK;
  }
  nns_counts row;
  nns__layer_counts(a, i, &row);
  return NNS__PUT(out, &row, NNS__V1_COUNTS);
}

nns_status nns_analysis_layer_rf(const nns_analysis *a, size_t i, nns_rf *out) {
  nns_status st = analysed(a, out);
  if (st)
    return st;
  if (i >= a->n_layers)
    return NNS_E_ARG;
  return NNS__PUT(out, nns__layer_rf(a, i), NNS__V1_RF);
}

/* reads.h: reads without a copy, for the text summary's walks over every
 * layer. */
bool nns__analysis_layer_tree(const nns_analysis *a, size_t i, int *depth,
                              size_t *parent) {
  if (!a || i >= a->n_layers)
    return false;
  const nns__linfo *l = &a->layers[i].info;
  *depth = a->layers[i].depth;
  *parent = l->parent == NNS__NONE32 ? (size_t)-1 : l->parent;
  return true;
}

const nns_rf *nns__analysis_layer_rf(const nns_analysis *a, size_t i) {
  return a && i < a->n_layers ? nns__layer_rf(a, i) : NULL;
}

nns_status nns_analysis_layer_rf_span(const nns_analysis *a, size_t i, int axis,
                                   int64_t pos, int64_t *first,
                                   int64_t *last) {
  nns_status st = analysed(a, first);
  if (st)
    return st;
  if (!last || i >= a->n_layers)
    return NNS_E_ARG;
  const nns__alayer *la = &a->layers[i];
  const nns_rf *rf = nns__layer_rf(a, i);
  if (rf->whole || rf->axes <= 0)
    return NNS_E_NOTFOUND;
  if (axis < 0 || axis >= rf->axes || axis >= NNS_RF_MAX_AXES)
    return NNS_E_ARG;
  /* Offsets relative to stride * pos (rf_period.h). */
  int64_t lo = rf->padding[axis] == INT64_MIN ? INT64_MAX
                                              : -rf->padding[axis];
  int64_t hi = 0, at = 0;
  if (!nns__add_i64(lo, rf->field[axis] - 1, &hi))
    hi = INT64_MAX;
  const nns__rf_per *per = la->per ? &la->per[axis] : NULL;
  if (per && per->period > 1) {
    int64_t r = pos % per->period;
    r += r < 0 ? per->period : 0;
    lo = per->lo[r];
    hi = per->hi[r];
  }
  if (!nns__mul_i64(rf->stride[axis], pos, &at) ||
      !nns__add_i64(at, lo, first) || !nns__add_i64(at, hi, last))
    return NNS_E_LIMIT;
  return NNS_OK;
}

size_t nns_analysis_uncounted_op_count(const nns_analysis *a) {
  return a ? a->n_uncounted : 0;
}

nns_status nns_analysis_uncounted_op(const nns_analysis *a, size_t i,
                                  const char **domain, const char **op_type,
                                  size_t *node_count) {
  nns_status st = analysed(a, domain);
  if (st)
    return st;
  if (i >= a->n_uncounted || !op_type || !node_count)
    return NNS_E_ARG;
  *domain = a->uncounted[i].domain;
  *op_type = a->uncounted[i].op_type;
  *node_count = a->uncounted[i].nodes;
  return NNS_OK;
}

nns_status nns_analysis_uncounted_op_why(const nns_analysis *a, size_t i,
                                      size_t *no_rule, size_t *no_size,
                                      size_t *failed) {
  nns_status st = analysed(a, no_rule);
  if (st)
    return st;
  if (i >= a->n_uncounted || !no_size || !failed)
    return NNS_E_ARG;
  *no_rule = a->uncounted[i].no_rule;
  *no_size = a->uncounted[i].no_size;
  *failed = a->uncounted[i].failed;
  return NNS_OK;
}

nns_status nns_analysis_uncounted_op_lost(const nns_analysis *a, size_t i,
                                       size_t *node, int *how) {
  nns_status st = analysed(a, node);
  if (st)
    return st;
  if (i >= a->n_uncounted || !how)
    return NNS_E_ARG;
  const nns__node *at = a->uncounted[i].lost_at;
  *node = at && at->list_index != UINT32_MAX ? at->list_index : (size_t)-1;
  *how = at ? a->uncounted[i].lost_how : NNS_SIZE_LOST_NONE;
  return NNS_OK;
}

/* ==== Nodes ==== */

size_t nns_model_node_count(const nns_model *m) {
  return m ? m->n_nodes : 0;
}

static bool all_outputs_known(const nns__node *n) {
  bool any = false;
  for (int32_t k = 0; k < n->n_out; k++) {
    if (!n->out[k])
      continue;
    if (!n->out[k]->cval)
      return false;
    any = true;
  }
  return any;
}

/* Node i's row as the model gives it (no analysis: "" and (size_t)-1). */
static nns_node_info node_info(const nns_model *m, size_t i) {
  const nns__node *n = m->nodes[i];
  nns_node_info info = {0};
  info.op_type = n->op_type;
  info.domain = n->domain;
  info.name = n->name;
  info.opset = n->opset > 0 ? n->opset : -1;
  info.graph_depth = n->graph ? n->graph->depth : 0;
  uint32_t p = m->node_parent[i];
  info.parent = p == UINT32_MAX ? (size_t)-1 : (size_t)p;
  info.parent_attr = m->node_parent_attr[i];
  info.input_count = (size_t)n->n_in;
  info.output_count = (size_t)n->n_out;
  if (m->inferred && n->op)
    info.flags |= NNS_NODE_RULE | (n->op->ext ? NNS_NODE_CUSTOM : 0u);
  if (m->inferred && all_outputs_known(n))
    info.flags |= NNS_NODE_CONSTANT;
  if (nns__node_holds_graph(n))
    info.flags |= NNS_NODE_SUBGRAPHS;
  info.module_path = "";
  info.layer = (size_t)-1;
  info.kernel = (size_t)-1;
  info.kernel_nodes = 1;
  if (n->kernel_count && n->graph == m->graph) {
    info.kernel = m->graph->nodes[n->kernel_first].list_index;
    info.kernel_nodes = (size_t)n->kernel_count;
  }
  return info;
}

nns_status nns_model_node(const nns_model *m, size_t i, nns_node_info *out) {
  if (!m || i >= m->n_nodes || !out)
    return NNS_E_ARG;
  nns_node_info info = node_info(m, i);
  return NNS__PUT(out, &info, NNS__V1_NODE_INFO);
}

nns_status nns_analysis_node(const nns_analysis *a, size_t i,
                             nns_node_info *out) {
  if (!a || i >= a->model->n_nodes || !out)
    return NNS_E_ARG;
  const nns_model *m = a->model;
  nns_node_info info = node_info(m, i);
  const nns__node *n = m->nodes[i];
  const nns__node *top = nns__top_node(n);
  if (top->graph == a->main && top->index < a->n_nodes) {
    uint32_t l = a->nodes[top->index].layer;
    info.layer = l;
    info.module_path = a->layers[l].info.path;
  }
  bool counted = n->graph == a->main ? a->nodes[n->index].counted
                                     : a->node_counted && a->node_counted[i];
  if (counted)
    info.flags |= NNS_NODE_COUNTED;
  return NNS__PUT(out, &info, NNS__V1_NODE_INFO);
}

nns_status nns_model_node_input(const nns_model *m, size_t i, size_t k,
                                size_t *value) {
  if (!m || i >= m->n_nodes || !value || k >= (size_t)m->nodes[i]->n_in)
    return NNS_E_ARG;
  const nns__value *v = m->nodes[i]->in[k];
  *value = v && v->index != UINT32_MAX ? v->index : (size_t)-1;
  return NNS_OK;
}

nns_status nns_model_node_output(const nns_model *m, size_t i, size_t k,
                                 size_t *value) {
  if (!m || i >= m->n_nodes || !value || k >= (size_t)m->nodes[i]->n_out)
    return NNS_E_ARG;
  const nns__value *v = m->nodes[i]->out[k];
  *value = v && v->index != UINT32_MAX ? v->index : (size_t)-1;
  return NNS_OK;
}

nns_status nns_analysis_node_counts(const nns_analysis *a, size_t i,
                                 nns_counts *out) {
  nns_status st = analysed(a, out);
  if (st)
    return st;
  const nns_model *m = a->model;
  if (i >= m->n_nodes)
    return NNS_E_ARG;
  const nns__node *n = m->nodes[i];
  static const nns_counts none = {.nodes = 1};
  nns_counts row;
  const nns_counts *c = a->node_counts ? &a->node_counts[i] : &none;
  if (n->graph == a->main) {
    nns__node_counts(a, n->index, &row);
    c = &row;
  }
  return NNS__PUT(out, c, NNS__V1_COUNTS);
}

nns_status nns_model_set_param_kind(nns_model *m, const char *value_name,
                                    nns_param_kind kind, nns_error *err) {
  if (!m || !value_name || !m->graph)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_param_kind needs a model and a name");
  if ((unsigned)kind > NNS_PARAM_FROZEN)
    return nns__err(err, NNS_E_ARG, -1, NULL, "unknown parameter kind %d",
                    (int)kind);
  const char *n = nns__intern_cstr(&m->strings, value_name);
  if (!n)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (!nns__map_get(&m->graph->scope, n))
    return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                    "the main graph has no value '%s'", value_name);
  if (!nns__map_put(&m->param_kinds, n, (void *)(uintptr_t)(kind + 1)))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  return NNS_OK;
}

nns_status nns_analysis_layer_class(const nns_analysis *a, size_t i,
                                 const char **class_name) {
  nns_status st = analysed(a, class_name);
  if (st)
    return st;
  if (i >= a->n_layers)
    return NNS_E_ARG;
  *class_name = a->layers[i].module_class;
  return NNS_OK;
}

const char *nns__analysis_node_approx(const nns_analysis *a, size_t i) {
  for (size_t k = 0; a && k < a->n_approx; k++)
    if (a->approx[k].node == i)
      return a->approx[k].why;
  return NULL;
}

size_t nns_analysis_branch_count(const nns_analysis *a) {
  return a ? a->n_branches : 0;
}

nns_status nns_analysis_branch(const nns_analysis *a, size_t i, const char **node,
                            int *then_branch, int *known) {
  nns_status st = analysed(a, node);
  if (st)
    return st;
  if (i >= a->n_branches || !then_branch || !known)
    return NNS_E_ARG;
  const nns__branch_row *b = &a->branches[i];
  *node = b->node->name[0] ? b->node->name
                           : a->layers[a->nodes[b->node->index].layer].info.path;
  *then_branch = b->branch == NNS__BRANCH_THEN;
  *known = b->known ? 1 : b->only ? 2 : 0;
  return NNS_OK;
}

/* ==== The live-activation curve ==== */

size_t nns_analysis_memory_count(const nns_analysis *a) {
  return a && a->live_bytes ? a->n_nodes : 0;
}

nns_status nns_analysis_memory_point(const nns_analysis *a, size_t i,
                                     int64_t *live_bytes, size_t *layer) {
  if (!live_bytes || !layer || i >= nns_analysis_memory_count(a))
    return NNS_E_ARG;
  *live_bytes = a->live_bytes[i];
  *layer = a->nodes[a->order[i]->index].layer;
  return NNS_OK;
}

size_t nns_analysis_memory_peak(const nns_analysis *a) {
  return nns_analysis_memory_count(a) ? a->peak_position : (size_t)-1;
}

/* ==== The inference it counted ==== */

nns_status nns_analysis_value(const nns_analysis *a, size_t i,
                              nns_value_info *out) {
  nns_value_info info = {.size = sizeof info};
  if (!a || !out || nns_model_value(a->model, i, &info) != NNS_OK)
    return NNS_E_ARG;
  const nns__vtype *t = &a->vtypes[i];
  info.dtype = t->dtype;
  info.kind = (nns_type_kind)t->kind;
  info.rank = t->rank;
  info.has_constant = t->has_constant;
  return NNS__PUT(out, &info, NNS__V1_VALUE_INFO);
}

/* reads.h: the reports' by-value read. */
nns_dim nns__analysis_value_dim(const nns_analysis *a, size_t i, int axis) {
  nns_dim x = {.size = sizeof x, .value = -1};
  if (!a || i >= a->model->n_values || axis < 0 ||
      axis >= a->vtypes[i].rank)
    return x;
  const nns__vdim *d = &a->dims[a->vtypes[i].first + (uint32_t)axis];
  x.value = d->value;
  x.symbol = d->symbol;
  return x;
}

/* reads.h: the rank alone, by value. */
int nns__analysis_value_rank(const nns_analysis *a, size_t i) {
  return a && i < a->model->n_values ? a->vtypes[i].rank : -1;
}

nns_status nns_analysis_value_dim(const nns_analysis *a, size_t i, int axis,
                                  nns_dim *out) {
  if (!a || !out || i >= a->model->n_values || axis < 0 ||
      axis >= a->vtypes[i].rank)
    return NNS_E_ARG;
  nns_dim x = nns__analysis_value_dim(a, i, axis);
  return NNS__PUT(out, &x, NNS__V1_DIM);
}

size_t nns_analysis_unknown_op_count(const nns_analysis *a) {
  return a ? a->n_unknown : 0;
}

nns_status nns_analysis_unknown_op(const nns_analysis *a, size_t i,
                                   const char **domain, const char **op_type,
                                   size_t *node_count) {
  if (!a || i >= a->n_unknown || !domain || !op_type || !node_count)
    return NNS_E_ARG;
  *domain = a->unknown[i].domain;
  *op_type = a->unknown[i].op_type;
  *node_count = a->unknown[i].count;
  return NNS_OK;
}

size_t nns_analysis_warning_count(const nns_analysis *a) {
  return a ? a->n_warnings : 0;
}

nns_status nns_analysis_warning(const nns_analysis *a, size_t i,
                                const char **message) {
  if (!a || i >= a->n_warnings || !message)
    return NNS_E_ARG;
  *message = a->warnings[i];
  return NNS_OK;
}
