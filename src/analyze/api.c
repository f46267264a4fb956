/*
 * api.c - the public read accessors of the analysis (nnscan.h, "Analysis"):
 * totals, parameter dtypes, op types, parameters, layers and uncounted ops.
 * Before nns_model_analyze (or after a failed one) every list is empty and
 * every total zero; an index out of range gives a zeroed row.
 */
#include <string.h>

#include "analyze.h"

static const nns__analysis *an(const nns_model *m) {
  return m ? m->analysis : NULL;
}

void nns_model_totals(const nns_model *m, nns_totals *out) {
  memset(out, 0, sizeof *out);
  out->peak_node = "";
  if (an(m))
    *out = an(m)->totals;
}

size_t nns_model_param_dtype_count(const nns_model *m) {
  return an(m) ? an(m)->n_dtypes : 0;
}

void nns_model_param_dtype(const nns_model *m, size_t i, int *dtype,
                           int64_t *elements, int64_t *bytes) {
  const nns__analysis *a = an(m);
  *dtype = 0;
  *elements = *bytes = 0;
  if (!a || i >= a->n_dtypes)
    return;
  *dtype = a->dtypes[i].dtype;
  *elements = a->dtypes[i].elements;
  *bytes = a->dtypes[i].bytes;
}

size_t nns_model_op_type_count(const nns_model *m) {
  return an(m) ? an(m)->n_optypes : 0;
}

void nns_model_op_type(const nns_model *m, size_t i, const char **domain,
                       const char **op_type, int *counted,
                       nns_counts *counts) {
  const nns__analysis *a = an(m);
  *domain = *op_type = "";
  *counted = 0;
  memset(counts, 0, sizeof *counts);
  if (!a || i >= a->n_optypes)
    return;
  *domain = a->optypes[i].domain;
  *op_type = a->optypes[i].op_type;
  *counted = a->optypes[i].counted;
  *counts = a->optypes[i].counts;
}

size_t nns_model_param_count(const nns_model *m) {
  return an(m) ? an(m)->n_params : 0;
}

void nns_model_param(const nns_model *m, size_t i, nns_param_info *out) {
  const nns__analysis *a = an(m);
  memset(out, 0, sizeof *out);
  out->name = out->storage = "";
  if (a && i < a->n_params)
    *out = a->params[i];
}

size_t nns_model_layer_count(const nns_model *m) {
  return an(m) ? an(m)->n_layers : 0;
}

void nns_model_layer(const nns_model *m, size_t i, nns_layer_info *out) {
  const nns__analysis *a = an(m);
  memset(out, 0, sizeof *out);
  out->name = out->path = out->type = out->op_types = "";
  out->parent = out->input_value = out->output_value = (size_t)-1;
  if (a && i < a->n_layers)
    *out = a->layers[i].info;
}

size_t nns_model_uncounted_op_count(const nns_model *m) {
  return an(m) ? an(m)->n_uncounted : 0;
}

void nns_model_uncounted_op(const nns_model *m, size_t i, const char **domain,
                            const char **op_type, size_t *node_count) {
  const nns__analysis *a = an(m);
  *domain = *op_type = "";
  *node_count = 0;
  if (!a || i >= a->n_uncounted)
    return;
  *domain = a->uncounted[i].domain;
  *op_type = a->uncounted[i].op_type;
  *node_count = a->uncounted[i].nodes;
}

const char *nns_model_layer_class(const nns_model *m, size_t i) {
  const nns__analysis *a = an(m);
  return a && i < a->n_layers ? a->layers[i].module_class : NULL;
}

size_t nns_model_branch_count(const nns_model *m) {
  return an(m) ? an(m)->n_branches : 0;
}

void nns_model_branch(const nns_model *m, size_t i, const char **node,
                      int *then_branch, int *known) {
  const nns__analysis *a = an(m);
  *node = "";
  *then_branch = *known = 0;
  if (!a || i >= a->n_branches)
    return;
  const nns__branch_row *b = &a->branches[i];
  *node = b->node->name[0] ? b->node->name
                           : a->layers[a->nodes[b->node->index].layer].info.path;
  *then_branch = b->branch == NNS__BRANCH_THEN;
  *known = b->known;
}
