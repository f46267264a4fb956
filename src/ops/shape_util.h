/*
 * shape_util.h - helpers shared by the shape-family files (shape.c,
 * shape_index.c) and generate.c: integer-list arguments that moved from
 * attributes to inputs across opsets (axes, pads, split, shape), and the
 * element copies and index arithmetic of their fold kernels. The kernels
 * copy nns__dim elements as they are, so a symbolic element of a shape
 * vector (batch, seq) flows through Gather, Concat, Slice and Reshape.
 */
#ifndef NNS_OPS_SHAPE_UTIL_H
#define NNS_OPS_SHAPE_UTIL_H

#include "elem.h" /* the cost helpers nns__cost_rw, nns__cost_move_x */

/* Highest rank a rule produces; the loader accepts no more either. */
enum { NNS__RANK_LIMIT = 64 };

/* ==== Integer-list arguments ==== */

typedef enum nns__arg_state {
  NNS__ARG_ABSENT = 0, /* not given (attribute or optional input missing) */
  NNS__ARG_KNOWN,      /* *vals holds *n elements (possibly symbolic) */
  NNS__ARG_UNKNOWN     /* given but not constant; *n its length or -1 */
} nns__arg_state;

/*
 * Reads an integer list given by attribute `attr` when attr is not NULL,
 * else by input `in`. Elements are nns__dim, so a shape vector assembled
 * from Shape outputs keeps its symbols.
 */
static inline nns__arg_state nns__ints_arg(nns__ictx *cx, const char *attr,
                                           int in, const nns__dim **vals,
                                           int64_t *n) {
  *vals = NULL;
  *n = -1;
  if (attr) {
    const int64_t *a;
    int32_t c = nns__attr_ints(cx, attr, &a);
    if (c < 0)
      return NNS__ARG_ABSENT;
    nns__dim *d = nns__alloc(cx, ((size_t)c + 1) * sizeof *d);
    if (!d)
      return NNS__ARG_UNKNOWN;
    for (int32_t k = 0; k < c; k++)
      d[k] = nns__dim_known(a[k]);
    *vals = d;
    *n = c;
    return NNS__ARG_KNOWN;
  }
  if (!nns__has_in(cx, in))
    return NNS__ARG_ABSENT;
  if (nns__in_ints(cx, in, vals, n))
    return NNS__ARG_KNOWN;
  const nns__type *t = nns__in_type(cx, in);
  if (t && t->rank == 1 && !t->dims[0].sym)
    *n = t->dims[0].v;
  else if (t && t->rank == 0)
    *n = 1;
  return NNS__ARG_UNKNOWN;
}

/* True when all n elements are known numbers. */
static inline bool nns__dims_known(const nns__dim *d, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    if (d[k].sym)
      return false;
  return true;
}

/* ==== Fold helpers ==== */

/* Known contents of input i, only when its type is static, of at most
 * NNS__RANK_LIMIT dims, and holds exactly as many elements as the constant:
 * the fold kernels index it by its dims. */
static inline const nns__const *nns__fold_in(nns__ictx *cx, int i) {
  const nns__type *t = nns__in_type(cx, i);
  if (!t || t->kind != NNS_KIND_TENSOR || !nns__type_static(t) ||
      t->rank > NNS__RANK_LIMIT)
    return NULL;
  const nns__const *c = nns__in_const(cx, i);
  if (!c)
    return NULL;
  int64_t n = 1;
  for (int32_t k = 0; k < t->rank; k++)
    if (!nns__mul_i64(n, t->dims[k].v, &n))
      return NULL;
  return n == c->numel ? c : NULL;
}

/* Output i's type, once its shape rule has run (NULL when absent). */
static inline const nns__type *nns__out_type_of(const nns__ictx *cx, int i) {
  return nns__has_out(cx, i) ? &cx->node->out[i]->type : NULL;
}

/* Copies element xi of x to element yi of y; false when their element
 * kinds differ (then the fold gives up). */
static inline bool nns__elem_copy(nns__const *y, int64_t yi,
                                  const nns__const *x, int64_t xi) {
  if (y->i && x->i)
    y->i[yi] = x->i[xi];
  else if (y->f && x->f)
    y->f[yi] = x->f[xi];
  else if (y->s && x->s)
    y->s[yi] = x->s[xi];
  else
    return false;
  return true;
}

/* Row-major strides of a static type into st (rank entries). */
static inline void nns__strides(const nns__type *t, int64_t *st) {
  int64_t s = 1;
  for (int32_t k = t->rank - 1; k >= 0; k--) {
    st[k] = s;
    s *= t->dims[k].v; /* cannot overflow: the numel was checked */
  }
}

/* Splits flat index o of a static type into coordinates c. */
static inline void nns__unravel(const nns__type *t, int64_t o, int64_t *c) {
  for (int32_t k = t->rank - 1; k >= 0; k--) {
    int64_t d = t->dims[k].v;
    c[k] = d ? o % d : 0;
    o = d ? o / d : 0;
  }
}

/* d + k, printed "seq-1" rather than "seq+-1" for negative k. */
static inline nns__dim nns__dim_plus(nns__ictx *cx, nns__dim d, int64_t k) {
  if (k >= 0)
    return nns__add(cx, d, nns__dim_known(k));
  if (k == INT64_MIN)
    return nns__fresh(cx);
  return nns__sub(cx, d, nns__dim_known(-k));
}

#endif
