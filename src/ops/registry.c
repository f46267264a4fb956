/*
 * registry.c - the operator table as one list of family tables, and lookup
 * by (domain, name, opset version); an op's family is the table it is in.
 */
#include <string.h>

#include "op.h"

#define NNS__FAMILY(f) extern const nns__op nns__ops_##f[];
#include "families.h"
#undef NNS__FAMILY

static const nns__op *const families[] = {
#define NNS__FAMILY(f) nns__ops_##f,
#include "families.h"
#undef NNS__FAMILY
};

static const char *const family_names[] = {
#define NNS__FAMILY(f) #f,
#include "families.h"
#undef NNS__FAMILY
};

enum { N_FAMILIES = sizeof families / sizeof families[0] };

/* Whether table entry e is op `name` of `domain`. The first characters
 * first: a lookup walks the whole table, where most names differ there
 * (a strcmp call per entry made a lookup cost 10k instructions). */
static inline bool is_op(const nns__op *e, const char *domain,
                         const char *name) {
  return e->name[0] == name[0] && !strcmp(e->name, name) &&
         !strcmp(e->domain, domain);
}

const char *nns__op_family(const char *domain, const char *name) {
  for (size_t f = 0; f < N_FAMILIES; f++)
    for (const nns__op *e = families[f]; e->name; e++)
      if (is_op(e, domain, name))
        return family_names[f];
  return NULL;
}

const nns__op *nns__op_find(const char *domain, const char *name,
                            int64_t version, bool *newer) {
  const nns__op *best = NULL, *newest = NULL;
  *newer = false;
  for (size_t f = 0; f < N_FAMILIES; f++) {
    for (const nns__op *e = families[f]; e->name; e++) {
      if (!is_op(e, domain, name))
        continue;
      if (version >= e->since && version <= e->until)
        best = e;
      if (!newest || e->until > newest->until)
        newest = e;
    }
  }
  if (best)
    return best;
  /* A domain the model does not import, or a newer opset than the table
   * knows: the newest rule is the best guess, and the caller says so. */
  if (newest && (version < 0 || version > newest->until)) {
    *newer = version > newest->until;
    return newest;
  }
  return NULL;
}

size_t nns__op_table_size(void) {
  size_t n = 0;
  for (size_t f = 0; f < N_FAMILIES; f++)
    for (const nns__op *e = families[f]; e->name; e++)
      n++;
  return n;
}

const nns__op *nns__op_table_at(size_t i) {
  for (size_t f = 0; f < N_FAMILIES; f++)
    for (const nns__op *e = families[f]; e->name; e++)
      if (i-- == 0)
        return e;
  return NULL;
}

size_t nns_op_count(void) { return nns__op_table_size(); }

int nns_opset_max(void) { return NNS__OPSET_MAX; }

const char *nns_family_name(size_t i) {
  return i < N_FAMILIES ? family_names[i] : NULL;
}

nns_status nns_op_get(size_t i, nns_op_info *out) {
  const nns__op *e = NULL;
  const char *family = NULL;
  for (size_t f = 0, k = i; f < N_FAMILIES && !e; f++)
    for (const nns__op *x = families[f]; x->name && !e; x++)
      if (k-- == 0) {
        e = x;
        family = family_names[f];
      }
  if (!e || !out)
    return NNS_E_ARG;
  nns_op_info info = {0};
  info.family = family;
  info.domain = e->domain;
  info.name = e->name;
  info.since_version = e->since;
  info.until_version = e->until;
  info.has_shape_rule = e->shape != NULL;
  info.has_fold = e->fold != NULL;
  info.has_cost_rule = e->cost != NULL;
  info.has_rf_rule = e->rf != NULL;
  info.roles = e->roles ? e->roles : "";
  info.no_grad = e->no_grad ? e->no_grad : "";
  return NNS__PUT(out, &info, NNS__V1_OP_INFO);
}
