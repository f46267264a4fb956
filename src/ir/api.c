/*
 * api.c - the public read accessors of nnscan.h over the IR: model
 * information, opsets, metadata, values and their dims, diagnostics.
 *
 * Every accessor checks its handle, index and out pointers (NNS_E_ARG) and
 * fills the caller's sized struct only up to its size (nns__put_sized).
 */
#include <string.h>

#include "ir.h"

static const char *or_empty(const char *s) { return s ? s : ""; }

nns_status nns_model_get_info(const nns_model *m, nns_model_info *out) {
  if (!m || !out)
    return NNS_E_ARG;
  nns_model_info info = {0};
  info.ir_version = m->ir_version;
  info.producer_name = or_empty(m->producer_name);
  info.producer_version = or_empty(m->producer_version);
  info.domain = or_empty(m->domain);
  info.model_version = m->model_version;
  info.graph_name = m->graph ? or_empty(m->graph->name) : "";
  info.node_count = m->graph ? (size_t)m->graph->n_nodes : 0;
  info.subgraph_node_count = m->subgraph_nodes;
  info.function_count = (size_t)m->n_functions;
  return NNS__PUT(out, &info, NNS__V1_MODEL_INFO);
}

size_t nns_model_opset_count(const nns_model *m) {
  return m ? (size_t)m->n_opsets : 0;
}

nns_status nns_model_opset(const nns_model *m, size_t i, const char **domain,
                           int64_t *version) {
  if (!m || i >= (size_t)m->n_opsets || !domain || !version)
    return NNS_E_ARG;
  *domain = or_empty(m->opset_domains[i]);
  *version = m->opset_versions[i];
  return NNS_OK;
}

size_t nns_model_metadata_count(const nns_model *m) {
  return m ? (size_t)m->n_meta : 0;
}

nns_status nns_model_metadata(const nns_model *m, size_t i, const char **key,
                              const char **value) {
  if (!m || i >= (size_t)m->n_meta || !key || !value)
    return NNS_E_ARG;
  *key = or_empty(m->meta_keys[i]);
  *value = or_empty(m->meta_values[i]);
  return NNS_OK;
}

size_t nns_model_value_count(const nns_model *m) {
  return m ? m->n_values : 0;
}

nns_status nns_model_value(const nns_model *m, size_t i,
                           nns_value_info *out) {
  if (!m || i >= m->n_values || !out)
    return NNS_E_ARG;
  const nns__value *v = m->values[i];
  nns_value_info info = {0};
  info.name = v->name;
  info.dtype = v->type.dtype;
  info.kind = (nns_type_kind)v->type.kind;
  info.role = (nns_value_role)v->role;
  info.rank = v->type.rank;
  info.graph_depth = v->graph ? v->graph->depth : 0;
  info.has_constant = v->init != NULL || v->cval != NULL;
  info.producer = v->producer ? nns__node_index(m, v->producer) : (size_t)-1;
  return NNS__PUT(out, &info, NNS__V1_VALUE_INFO);
}

nns_dim nns__value_dim(const nns_model *m, size_t i, int axis) {
  nns_dim d = {.size = sizeof d, .value = -1};
  if (!m || i >= m->n_values)
    return d;
  const nns__value *v = m->values[i];
  if (axis < 0 || axis >= v->type.rank)
    return d;
  nns__dim x = v->type.dims[axis];
  if (!x.sym) {
    d.value = x.v;
  } else {
    const nns__symbol *s = nns__sym_get(m, x.sym);
    d.symbol = s ? s->name : NULL;
  }
  return d;
}

nns_status nns_model_value_dim(const nns_model *m, size_t i, int axis,
                               nns_dim *out) {
  if (!m || i >= m->n_values || !out || axis < 0 ||
      axis >= m->values[i]->type.rank)
    return NNS_E_ARG;
  nns_dim d = nns__value_dim(m, i, axis);
  return NNS__PUT(out, &d, NNS__V1_DIM);
}

nns_status nns_model_find_value(const nns_model *m, const char *name,
                                size_t *index) {
  if (!m || !name || !index)
    return NNS_E_ARG;
  for (size_t i = 0; i < m->n_values; i++)
    if (m->values[i]->graph == m->graph &&
        strcmp(m->values[i]->name, name) == 0) {
      *index = i;
      return NNS_OK;
    }
  return NNS_E_NOTFOUND;
}

static bool is_real_input(const nns__value *v) { return v && !v->init; }

size_t nns_model_input_count(const nns_model *m) {
  size_t n = 0;
  for (int32_t i = 0; m && m->graph && i < m->graph->n_inputs; i++)
    n += is_real_input(m->graph->inputs[i]);
  return n;
}

nns_status nns_model_input(const nns_model *m, size_t k, size_t *value) {
  if (!m || !m->graph || !value)
    return NNS_E_ARG;
  for (int32_t i = 0; i < m->graph->n_inputs; i++)
    if (is_real_input(m->graph->inputs[i]) && k-- == 0) {
      *value = m->graph->inputs[i]->index;
      return NNS_OK;
    }
  return NNS_E_ARG;
}

size_t nns_model_output_count(const nns_model *m) {
  return m && m->graph ? (size_t)m->graph->n_outputs : 0;
}

nns_status nns_model_output(const nns_model *m, size_t k, size_t *value) {
  if (!m || !m->graph || k >= (size_t)m->graph->n_outputs || !value)
    return NNS_E_ARG;
  const nns__value *v = m->graph->outputs[k];
  *value = v ? v->index : (size_t)-1;
  return NNS_OK;
}

size_t nns_model_unknown_op_count(const nns_model *m) {
  return m ? m->n_unknown : 0;
}

nns_status nns_model_unknown_op(const nns_model *m, size_t i,
                                const char **domain, const char **op_type,
                                size_t *node_count) {
  if (!m || i >= m->n_unknown || !domain || !op_type || !node_count)
    return NNS_E_ARG;
  *domain = m->unknown[i].domain;
  *op_type = m->unknown[i].op_type;
  *node_count = m->unknown[i].count;
  return NNS_OK;
}

size_t nns_model_warning_count(const nns_model *m) {
  return m ? m->n_warnings : 0;
}

nns_status nns_model_warning(const nns_model *m, size_t i,
                             const char **message) {
  if (!m || i >= m->n_warnings || !message)
    return NNS_E_ARG;
  *message = m->warnings[i];
  return NNS_OK;
}

unsigned nns_model_state(const nns_model *m) {
  if (!m)
    return 0;
  return (m->inferred ? NNS_STATE_INFERRED : 0u) |
         (m->analyzed ? NNS_STATE_ANALYZED : 0u);
}
