/*
 * rf_axes.c - receptive-field rules for ops that move, reduce or mix along
 * axes rather than slide over space (see rf_axes.h): the view rule that
 * finds where each spatial axis went, and the "mixes these dims" helper of
 * normalisations and Softmax.
 */
#include <stdlib.h>
#include <string.h>

#include "rf_axes.h"
#include "rf_period.h"
#include "shape_util.h"

int nns__rf_axis_at(const nns__rf *in, int32_t d) {
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++)
    if (in->dim[k] == d || (in->win[k] && in->wdim[k] == d))
      return k;
  return -1;
}

bool nns__rf_plain(const nns__rf *r) {
  for (int k = 0; k < r->f.axes && k < NNS_RF_MAX_AXES; k++)
    if (r->len[k] || r->win[k])
      return false;
  return true;
}

void nns__rf_set_whole(nns__rf *out) {
  int axes = out->f.axes; /* reported as before: how many axes were lost */
  memset(out, 0, sizeof *out);
  out->f.axes = axes;
  out->f.whole = 1;
  out->f.global_context = 1;
}

void nns__rf_set_full(nns__rf *r) {
  memset(r->per, 0, sizeof r->per);
  memset(r->f.period, 0, sizeof r->f.period);
  memset(r->f.field, 0, sizeof r->f.field);
  memset(r->f.stride, 0, sizeof r->f.stride);
  memset(r->f.padding, 0, sizeof r->f.padding);
  r->f.whole = 1;
  r->f.global_context = 1;
  r->full = true;
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

/* Plain axes of same size and same product of the dims before them
 * (symbolic dims too): false when one is not found. */
static nns_status view_plain(const nns__type *tx, const nns__type *ty,
                             const nns__rf *in, nns__rf *out, bool *ok) {
  *ok = true;
  prefix *a = malloc(2 * sizeof *a);
  if (!a)
    return NNS_E_NOMEM;
  prefix *b = a + 1;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES && *ok; k++) {
    int32_t p = in->dim[k], found = -1;
    if (p >= 0 && p < tx->rank && prefix_of(tx->dims, p, a))
      for (int32_t q = 0; q < ty->rank && found < 0; q++)
        if (nns__dim_eq(ty->dims[q], tx->dims[p]) &&
            prefix_of(ty->dims, q, b) && prefix_eq(a, b))
          found = q;
    *ok = found >= 0;
    out->dim[k] = (int8_t)found;
  }
  free(a);
  return NNS_OK;
}

/* A run of `len` positions of an axis in dim `dim`, stepping its index by
 * `sub`. */
typedef struct span {
  int32_t dim;
  int64_t len, sub;
} span;

/* st[d]: how many elements one step of dim d moves (the product of the
 * dims after it); false unless every size is known and positive. */
static bool elem_strides(const nns__type *t, int64_t *st) {
  int64_t s = 1;
  for (int32_t d = t->rank - 1; d >= 0; d--) {
    if (t->dims[d].sym || t->dims[d].v < 1)
      return false;
    st[d] = s;
    if (!nns__mul_i64(s, t->dims[d].v, &s))
      return false;
  }
  return true;
}

/* The dim of t whose steps cover element stride e (size > 1), or -1. */
static int32_t dim_at(const nns__type *t, const int64_t *st, int64_t e) {
  for (int32_t q = 0; q < t->rank; q++)
    if (t->dims[q].v > 1 && st[q] <= e && e / st[q] < t->dims[q].v)
      return q;
  return -1;
}

/* `len` positions stepping by e elements, placed in t: one span when they
 * fit in one dim; when `split`, two (windows, then positions within a
 * window) when they fill a dim and continue into another. 0: lost. */
static int place(const nns__type *t, const int64_t *st, int64_t e,
                 int64_t len, bool split, span out[2]) {
  int32_t q = dim_at(t, st, e);
  if (q < 0 || e % st[q])
    return 0;
  int64_t sub = e / st[q], n = t->dims[q].v;
  if (sub <= n && len <= n / sub && n % (sub * len) == 0) {
    out[0] = (span){q, len, sub};
    return 1;
  }
  if (!split || sub != 1 || len % n || n < 2)
    return 0;
  span outer[2];
  if (place(t, st, st[q] * n, len / n, false, outer) != 1)
    return 0; /* st[q] * n is at most the element count: no overflow */
  out[0] = outer[0];
  out[1] = (span){q, n, 1};
  return 2;
}

/* Known sizes: every axis placed whole, split into windows or merged
 * back; false when one is lost or shares a dim with something that is
 * not a spatial axis' positions. */
static bool view_parts(const nns__type *tx, const nns__type *ty,
                       const nns__rf *in, nns__rf *out) {
  int64_t sx[NNS__RANK_LIMIT], sy[NNS__RANK_LIMIT];
  if (!elem_strides(tx, sx) || !elem_strides(ty, sy))
    return false;
  int axes = in->f.axes < NNS_RF_MAX_AXES ? in->f.axes : NNS_RF_MAX_AXES;
  span got[NNS_RF_MAX_AXES][2];
  int n_got[NNS_RF_MAX_AXES];
  for (int k = 0; k < axes; k++) {
    int32_t d = in->dim[k];
    if (d < 0 || d >= tx->rank)
      return false;
    span p = {d, in->len[k] ? in->len[k] : tx->dims[d].v,
              in->len[k] ? in->sub[k] : 1};
    int64_t e;
    if (!nns__mul_i64(sx[d], p.sub, &e))
      return false;
    if (!in->win[k]) {
      n_got[k] = place(ty, sy, e, p.len, true, got[k]);
      if (!n_got[k])
        return false;
      continue;
    }
    int32_t w = in->wdim[k];
    int64_t ew;
    if (w < 0 || w >= tx->rank || !nns__mul_i64(sx[w], in->wsub[k], &ew) ||
        place(ty, sy, e, p.len, false, &got[k][0]) != 1 ||
        place(ty, sy, ew, in->win[k], false, &got[k][1]) != 1)
      return false;
    n_got[k] = 2;
    span *o = &got[k][0], *i = &got[k][1];
    if (o->dim == i->dim && o->sub == i->sub * i->len) { /* merged back */
      *o = (span){o->dim, o->len * i->len, i->sub};
      n_got[k] = 1;
    }
  }
  /* A dim holding a whole axis or positions within windows holds nothing
   * but spatial positions (windows may share a dim with the batch). */
  for (int k = 0; k < axes; k++) {
    const span *s = &got[k][n_got[k] - 1];
    int64_t prod = 1;
    for (int j = 0; j < axes; j++)
      for (int m = 0; m < n_got[j]; m++)
        if (got[j][m].dim == s->dim &&
            !nns__mul_i64(prod, got[j][m].len, &prod))
          return false;
    if (prod != ty->dims[s->dim].v)
      return false;
  }
  for (int k = 0; k < axes; k++)
    for (int m = 0; m < n_got[k]; m++)
      if (got[k][m].len > INT32_MAX || got[k][m].sub > INT32_MAX)
        return false; /* nns__rf keeps them in 32 bits */
  for (int k = 0; k < axes; k++) {
    const span *o = &got[k][0];
    bool alone = n_got[k] == 1 && o->sub == 1 &&
                 o->len == ty->dims[o->dim].v;
    out->dim[k] = (int8_t)o->dim;
    out->len[k] = alone ? 0 : (int32_t)o->len;
    out->sub[k] = alone ? 0 : (int32_t)o->sub;
    out->wdim[k] = (int8_t)(n_got[k] == 2 ? got[k][1].dim : 0);
    out->win[k] = n_got[k] == 2 ? (int32_t)got[k][1].len : 0;
    out->wsub[k] = n_got[k] == 2 ? (int32_t)got[k][1].sub : 0;
  }
  return true;
}

/*
 * A reshape that only moves dims of size 1, written by tf2onnx for the
 * Transpose back to channels-last after a convolution whose output is
 * 1x1 ([N, C, 1, 1] -> [N, 1, 1, C]): same rank, the dims other than 1 in
 * the same order, so it is that permutation. Each 1 of x goes to the 1 of
 * y in the same rank among the 1s (H and W keep their order). map[d]: the
 * dim of y that holds dim d of x.
 */
static bool moves_ones(const nns__type *tx, const nns__type *ty,
                       int32_t *map) {
  if (tx->rank != ty->rank)
    return false;
  int32_t j = 0, one = 0;
  for (int32_t d = 0; d < tx->rank; d++) {
    if (nns__dim_eq(tx->dims[d], nns__dim_known(1))) {
      while (one < ty->rank && !nns__dim_eq(ty->dims[one], nns__dim_known(1)))
        one++;
      if (one == ty->rank)
        return false;
      map[d] = one++;
      continue;
    }
    while (j < ty->rank && nns__dim_eq(ty->dims[j], nns__dim_known(1)))
      j++;
    if (j == ty->rank || !nns__dim_eq(tx->dims[d], ty->dims[j]))
      return false;
    map[d] = j++;
  }
  return true;
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
  bool ok = false;
  if (nns__rf_plain(in)) {
    nns_status st = view_plain(tx, ty, in, out, &ok);
    if (st != NNS_OK)
      return st;
  }
  int32_t map[NNS__RANK_LIMIT];
  if (!ok && nns__rf_plain(in) && moves_ones(tx, ty, map)) {
    *out = *in;
    ok = true;
    for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES && ok; k++) {
      ok = in->dim[k] >= 0 && in->dim[k] < tx->rank;
      if (ok)
        out->dim[k] = (int8_t)map[in->dim[k]];
    }
  }
  if (!ok) {
    *out = *in;
    if (!view_parts(tx, ty, in, out))
      nns__rf_set_whole(out);
  }
  return NNS_OK;
}

void nns__rf_mix(const nns__rf *in, const bool *mixed, int32_t rank,
                 nns__rf *out) {
  *out = *in;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++)
    if ((in->dim[k] >= 0 && in->dim[k] < rank && mixed[in->dim[k]]) ||
        (in->win[k] && in->wdim[k] >= 0 && in->wdim[k] < rank &&
         mixed[in->wdim[k]]))
      out->f.global_context = 1;
}

void nns__rf_attend(nns__rf_pool *pool, const nns__rf *a, const nns__rf *b,
                    int32_t bdim, nns__rf *out) {
  *out = *a;
  if (b->f.whole && !b->full) {
    out->f.global_context = 1;
    return;
  }
  out->f.global_context |= b->f.global_context;
  bool every = b->full;
  nns__rf summed = *b;
  for (int k = 0; k < b->f.axes && k < NNS_RF_MAX_AXES; k++) {
    if (b->dim[k] == bdim)
      every = true; /* the whole axis, or across its windows */
    else if (b->win[k] && b->wdim[k] == bdim)
      nns__rf_window(pool, &summed, k, b->win[k]);
  }
  if (every) {
    nns__rf_set_full(out);
    return;
  }
  /* Weights and values come from the same positions in attention; where
   * they do not, the output reads both. */
  for (int k = 0; k < out->f.axes && k < b->f.axes && k < NNS_RF_MAX_AXES;
       k++)
    nns__rf_unite_axis(pool, out, &summed, k);
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
