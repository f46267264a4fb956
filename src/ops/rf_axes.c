/*
 * rf_axes.c - receptive-field rules for ops that move, reduce or mix along
 * axes rather than slide over space (see rf_axes.h): the view rule that
 * finds where each spatial axis went, and the "mixes these dims" helper of
 * normalisations and Softmax.
 */
#include <stdlib.h>
#include <string.h>

#include "rf_axes.h"
#include "shape_util.h"

int nns__rf_axis_at(const nns__rf *in, int32_t d) {
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++)
    if (in->dim[k] == d)
      return k;
  return -1;
}

void nns__rf_set_whole(nns__rf *out) {
  int axes = out->f.axes; /* reported as before: how many axes were lost */
  memset(out, 0, sizeof *out);
  out->f.axes = axes;
  out->f.whole = 1;
  out->f.global_context = 1;
}

/* The product of dims [0, n) as a known coefficient and the sorted ids of
 * its symbols; false on overflow or too many symbols. */
typedef struct prefix {
  int64_t coef;
  int32_t n_sym;
  uint32_t sym[NNS__RANK_LIMIT];
} prefix;

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static bool prefix_of(const nns__dim *d, int32_t n, prefix *p) {
  p->coef = 1;
  p->n_sym = 0;
  for (int32_t k = 0; k < n; k++) {
    if (d[k].sym) {
      if (p->n_sym >= NNS__RANK_LIMIT)
        return false;
      p->sym[p->n_sym++] = d[k].sym;
    } else if (!nns__mul_i64(p->coef, d[k].v, &p->coef)) {
      return false;
    }
  }
  qsort(p->sym, (size_t)p->n_sym, sizeof p->sym[0], cmp_u32);
  return true;
}

static bool prefix_eq(const prefix *a, const prefix *b) {
  return a->coef == b->coef && a->n_sym == b->n_sym &&
         !memcmp(a->sym, b->sym, (size_t)a->n_sym * sizeof a->sym[0]);
}

nns_status nns__rf_view(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  if (in->f.whole)
    return NNS_OK;
  const nns__type *tx = nns__in_type(cx, 0);
  const nns__type *ty = nns__has_out(cx, 0) ? &cx->node->out[0]->type : NULL;
  if (!tx || !ty || tx->rank < 0 || ty->rank < 0 ||
      tx->rank > NNS__RANK_LIMIT || ty->rank > NNS__RANK_LIMIT) {
    nns__rf_set_whole(out);
    return NNS_OK;
  }
  prefix *a = malloc(2 * sizeof *a);
  if (!a)
    return NNS_E_NOMEM;
  prefix *b = a + 1;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++) {
    int32_t p = in->dim[k], found = -1;
    if (p >= 0 && p < tx->rank && prefix_of(tx->dims, p, a))
      for (int32_t q = 0; q < ty->rank && found < 0; q++)
        if (nns__dim_eq(ty->dims[q], tx->dims[p]) &&
            prefix_of(ty->dims, q, b) && prefix_eq(a, b))
          found = q;
    if (found < 0) {
      nns__rf_set_whole(out);
      break;
    }
    out->dim[k] = (int8_t)found;
  }
  free(a);
  return NNS_OK;
}

void nns__rf_mix(const nns__rf *in, const bool *mixed, int32_t rank,
                 nns__rf *out) {
  *out = *in;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++)
    if (in->dim[k] >= 0 && in->dim[k] < rank && mixed[in->dim[k]])
      out->f.global_context = 1;
}

/* Mixes dims [axis, axis + count) of input 0, count -1 meaning to the
 * last dim. */
static nns_status mix_dims(nns__ictx *cx, int64_t axis, int32_t count,
                           const nns__rf *in, nns__rf *out) {
  *out = *in;
  int32_t r = nns__in_rank(cx, 0), a;
  if (r < 0 || r > NNS__RANK_LIMIT || !nns__axis(axis, r, &a))
    return NNS_OK;
  bool mixed[NNS__RANK_LIMIT] = {false};
  for (int32_t d = a; d < r && (count < 0 || d < a + count); d++)
    mixed[d] = true;
  nns__rf_mix(in, mixed, r, out);
  return NNS_OK;
}

nns_status nns__rf_mix_from(nns__ictx *cx, int64_t first, const nns__rf *in,
                            nns__rf *out) {
  return mix_dims(cx, first, -1, in, out);
}

nns_status nns__rf_mix_axis(nns__ictx *cx, int64_t axis, const nns__rf *in,
                            nns__rf *out) {
  return mix_dims(cx, axis, 1, in, out);
}
