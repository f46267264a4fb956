/*
 * api.c - the public read accessors of nnscan.h over the IR: model
 * information, opsets, metadata, values and their dims, diagnostics.
 */
#include <string.h>

#include "ir.h"

static const char *or_empty(const char *s) { return s ? s : ""; }

void nns_model_get_info(const nns_model *m, nns_model_info *out) {
  memset(out, 0, sizeof *out);
  if (!m)
    return;
  out->ir_version = m->ir_version;
  out->producer_name = or_empty(m->producer_name);
  out->producer_version = or_empty(m->producer_version);
  out->domain = or_empty(m->domain);
  out->model_version = m->model_version;
  out->graph_name = m->graph ? or_empty(m->graph->name) : "";
  out->node_count = m->graph ? (size_t)m->graph->n_nodes : 0;
  out->subgraph_node_count = m->subgraph_nodes;
  out->function_count = (size_t)m->n_functions;
}

size_t nns_model_opset_count(const nns_model *m) {
  return m ? (size_t)m->n_opsets : 0;
}

void nns_model_opset(const nns_model *m, size_t i, const char **domain,
                     int64_t *version) {
  *domain = or_empty(m->opset_domains[i]);
  *version = m->opset_versions[i];
}

size_t nns_model_metadata_count(const nns_model *m) {
  return m ? (size_t)m->n_meta : 0;
}

void nns_model_metadata(const nns_model *m, size_t i, const char **key,
                        const char **value) {
  *key = or_empty(m->meta_keys[i]);
  *value = or_empty(m->meta_values[i]);
}

size_t nns_model_value_count(const nns_model *m) {
  return m ? m->n_values : 0;
}

void nns_model_value(const nns_model *m, size_t i, nns_value_info *out) {
  memset(out, 0, sizeof *out);
  out->rank = -1;
  if (!m || i >= m->n_values)
    return;
  const nns__value *v = m->values[i];
  out->name = v->name;
  out->dtype = v->type.dtype;
  out->kind = (nns_type_kind)v->type.kind;
  out->role = (nns_value_role)v->role;
  out->rank = v->type.rank;
  out->graph_depth = v->graph ? v->graph->depth : 0;
  out->has_constant = v->init != NULL || v->cval != NULL;
}

nns_dim nns_model_value_dim(const nns_model *m, size_t i, int axis) {
  nns_dim d = {-1, NULL};
  if (!m || i >= m->n_values)
    return d;
  const nns__value *v = m->values[i];
  if (axis < 0 || axis >= v->type.rank)
    return d;
  nns__dim x = v->type.dims[axis];
  if (!x.sym) {
    d.value = x.v;
    return d;
  }
  const nns__symbol *s = nns__sym_get(m, x.sym);
  d.symbol = s ? s->name : NULL;
  return d;
}

size_t nns_model_find_value(const nns_model *m, const char *name) {
  if (!m || !m->graph || !name)
    return (size_t)-1;
  for (size_t i = 0; i < m->n_values; i++)
    if (m->values[i]->graph == m->graph &&
        strcmp(m->values[i]->name, name) == 0)
      return i;
  return (size_t)-1;
}

static bool is_real_input(const nns__value *v) { return v && !v->init; }

size_t nns_model_input_count(const nns_model *m) {
  size_t n = 0;
  for (int32_t i = 0; m && m->graph && i < m->graph->n_inputs; i++)
    n += is_real_input(m->graph->inputs[i]);
  return n;
}

size_t nns_model_input(const nns_model *m, size_t k) {
  for (int32_t i = 0; i < m->graph->n_inputs; i++)
    if (is_real_input(m->graph->inputs[i]) && k-- == 0)
      return m->graph->inputs[i]->index;
  return (size_t)-1;
}

size_t nns_model_output_count(const nns_model *m) {
  return m && m->graph ? (size_t)m->graph->n_outputs : 0;
}

size_t nns_model_output(const nns_model *m, size_t k) {
  const nns__value *v = m->graph->outputs[k];
  return v ? v->index : (size_t)-1;
}

size_t nns_model_unknown_op_count(const nns_model *m) {
  return m ? m->n_unknown : 0;
}

void nns_model_unknown_op(const nns_model *m, size_t i, const char **domain,
                          const char **op_type, size_t *node_count) {
  *domain = m->unknown[i].domain;
  *op_type = m->unknown[i].op_type;
  *node_count = m->unknown[i].count;
}

size_t nns_model_warning_count(const nns_model *m) {
  return m ? m->n_warnings : 0;
}

const char *nns_model_warning(const nns_model *m, size_t i) {
  return i < m->n_warnings ? m->warnings[i] : "";
}
