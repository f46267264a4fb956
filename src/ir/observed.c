/*
 * observed.c - the sizes a binding observed the model's values take when it
 * ran (packed record observed_shape), held against what inference gives:
 * the recorder's self-test, asked once per summary. Comparing here, over
 * the values it already holds, spares a binding the whole shapes report
 * (300 KB of JSON for LLaMA-3-8B) only to find, as a rule, nothing.
 */
#include "ir.h"

/* Whether main-graph value v has, as inferred, exactly o's sizes. */
static bool same_shape(const nns_model *m, const nns__value *v,
                       const nns__observed *o) {
  if (v->type.rank != o->rank)
    return false;
  for (int32_t k = 0; k < o->rank; k++)
    if (nns__value_dim(m, v->index, (int)k).value != o->dims[k])
      return false;
  return true;
}

nns_status nns_model_shape_mismatches(const nns_model *m, const char **names,
                                      size_t cap, size_t *count,
                                      nns_error *err) {
  if (!m || !count || (cap && !names))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_shape_mismatches: model or count is NULL, or "
                    "names is NULL with cap %zu", cap);
  size_t n = 0;
  for (size_t i = 0; i < m->n_observed; i++) {
    const nns__observed *o = &m->observed[i];
    const nns__value *v =
        m->graph ? nns__map_get(&m->graph->scope, o->name) : NULL;
    if (v && same_shape(m, v, o))
      continue;
    if (n < cap)
      names[n] = o->name;
    n++;
  }
  *count = n;
  return NNS_OK;
}
