/*
 * custom.c - operators the user registers for one model
 * (nns_model_register_op): an nns__op entry whose rules call the user's
 * callbacks, looked up before the built-in table.
 */
#include "op.h"

const nns__op *nns__custom_find(const nns_model *m, const char *domain,
                                const char *name) {
  for (const nns__op *e = nns__map_get(&m->custom_ops, name); e; e = NULL)
    if (e->domain == domain)
      return e;
  return NULL;
}
