/*
 * module_decl.c - the modules a caller declared (nns_model_set_module), read
 * back in declaration order with the shapes it recorded at their
 * boundaries: what the layers tables (NNS_FORMAT_LAYERS_*) show for modules
 * that own no node (Dropout, Identity in eval).
 */
#include <string.h>

#include "analyze.h"

enum { MAX_DECL_RANK = 64 };

static bool shape_ok(const int64_t *dims, int rank) {
  if (rank < -1 || rank > MAX_DECL_RANK || (rank > 0 && !dims))
    return false;
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0)
      return false;
  return true;
}

static bool copy_shape(nns__arena *a, const int64_t *dims, int rank,
                       int64_t **out_dims, int *out_rank) {
  int64_t *d = NULL;
  if (rank > 0) {
    d = nns__arena_alloc(a, (size_t)rank * sizeof *d);
    if (!d)
      return false;
    memcpy(d, dims, (size_t)rank * sizeof *d);
  }
  *out_dims = d;
  *out_rank = rank;
  return true;
}

nns_status nns_model_set_module_shapes(nns_model *m, const char *path,
                                       const int64_t *input_shape,
                                       int input_rank,
                                       const int64_t *output_shape,
                                       int output_rank, nns_error *err) {
  if (!m || !path)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_module_shapes needs a model and a path");
  if (!shape_ok(input_shape, input_rank) ||
      !shape_ok(output_shape, output_rank))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "module '%s': a shape needs a rank from -1 to %d, its "
                    "dims (not NULL) and no negative dim",
                    path, MAX_DECL_RANK);
  const char *p = nns__intern_cstr(&m->strings, path);
  nns__module_decl *d = p ? nns__map_get(&m->modules, p) : NULL;
  if (!d || !d->class_name)
    return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                    "module '%s' was not declared (nns_model_set_module)",
                    path);
  if (!copy_shape(&m->arena, input_shape, input_rank, &d->in_shape,
                  &d->in_rank) ||
      !copy_shape(&m->arena, output_shape, output_rank, &d->out_shape,
                  &d->out_rank))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  return NNS_OK;
}

size_t nns_model_module_count(const nns_model *m) {
  return m ? m->modules.count : 0;
}

nns_status nns_model_module(const nns_model *m, size_t i,
                            nns_module_info *out) {
  if (!m || !out || i >= m->modules.count)
    return NNS_E_ARG;
  const nns__module_decl *d = m->module_order[i];
  nns_module_info info = {
      .size = sizeof info,
      .path = d->path,
      .class_name = d->class_name,
      .call_count = d->call_count,
      .macs_given = d->macs_given,
      .macs = d->macs_given ? d->macs : 0,
      .input_rank = d->in_rank,
      .output_rank = d->out_rank,
      .input_shape = d->in_shape,
      .output_shape = d->out_shape,
  };
  return NNS__PUT(out, &info, sizeof info);
}
