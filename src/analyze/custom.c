/*
 * custom.c - what the caller counted itself: MACs given per module
 * (nns_model_set_module_macs), for modules whose work the op table cannot
 * see (a binding's custom-op rules, as thop's custom_ops), put in place of
 * the layer's counted MACs with the difference carried to every ancestor.
 */
#include <string.h>

#include "analyze.h"

nns_status nns_model_set_module_macs(nns_model *m, const char *path,
                                     int64_t macs, nns_error *err) {
  if (!m || !path)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_module_macs needs a model and a path");
  if (macs < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "module '%s': MACs must not be negative (%lld)", path,
                    (long long)macs);
  nns__module_decl *d = nns__module_decl_of(m, path);
  if (!d)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  d->macs = macs;
  d->macs_given = true;
  return NNS_OK;
}

/* Innermost first (layers are in preorder, so backwards), so that an
 * outer module's given count, applied last, is the one its row shows. */
void nns__custom_macs_apply(const nns_model *m, nns__analysis *a) {
  if (m->modules.count == 0)
    return;
  for (size_t l = a->n_layers; l-- > 0;) {
    const char *path = a->layers[l].info.path;
    const nns__module_decl *d =
        path ? nns__map_get(&m->modules, path) : NULL;
    if (!d || !d->macs_given)
      continue;
    int64_t delta = d->macs - a->layers[l].counts.macs;
    for (size_t k = l; k != (size_t)-1; k = nns__layer_up(a, k))
      a->layers[k].counts.macs += delta;
  }
}
