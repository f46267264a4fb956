/*
 * rf_period.c - receptive fields that differ between positions (see
 * rf_period.h). Offsets are kept relative to stride*i, so that one period
 * of them describes every position; sums saturate like the rest of the
 * field arithmetic.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rf_period.h"
#include "shape_util.h"

static int64_t sadd(int64_t a, int64_t b) {
  int64_t r;
  return nns__add_i64(a, b, &r) ? r : b > 0 ? INT64_MAX : INT64_MIN;
}

static int64_t smul(int64_t a, int64_t b) {
  int64_t r;
  return nns__mul_i64(a, b, &r) ? r : (a < 0) != (b < 0) ? INT64_MIN
                                                          : INT64_MAX;
}

static int64_t neg(int64_t x) { return x == INT64_MIN ? INT64_MAX : -x; }

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* lcm(a, b) for positive a and b, or 0 when it passes the period limit. */
static int32_t lcm_period(int64_t a, int64_t b) {
  int64_t l = a / gcd64(a, b);
  if (b > NNS__RF_PERIOD_MAX || l > NNS__RF_PERIOD_MAX / b)
    return 0;
  return (int32_t)(l * b);
}

/* The pool's entry for axis k of r, or NULL when it has none. */
static const nns__rf_per *entry(const nns__rf_pool *pool, const nns__rf *r,
                                int k) {
  uint32_t id = r->per[k];
  return pool && id > 0 && id < pool->n ? &pool->items[id] : NULL;
}

int32_t nns__rf_period(const nns__rf_pool *pool, const nns__rf *r, int k) {
  const nns__rf_per *e = entry(pool, r, k);
  return e ? e->period : 1;
}

void nns__rf_offsets(const nns__rf_pool *pool, const nns__rf *r, int k,
                     int64_t i, int64_t *lo, int64_t *hi) {
  const nns__rf_per *e = entry(pool, r, k);
  if (e) {
    int64_t m = i % e->period;
    m += m < 0 ? e->period : 0;
    *lo = e->lo[m];
    *hi = e->hi[m];
    return;
  }
  *lo = neg(r->f.padding[k]);
  *hi = sadd(sadd(r->f.field[k], -1), *lo);
}

/* A new pool entry, or 0 when out of memory. */
static uint32_t pool_add(nns__rf_pool *pool) {
  if (!pool)
    return 0;
  if (pool->n == 0)
    pool->n = 1; /* entry 0 means none */
  if (pool->n == UINT32_MAX)
    return 0; /* entries are numbered with 32 bits */
  nns__rf_per *items =
      nns__grow(pool->items, &pool->cap, (size_t)pool->n + 1, sizeof *items, 64);
  if (!items)
    return 0;
  pool->items = items;
  return pool->n++;
}

void nns__rf_pool_free(nns__rf_pool *pool) {
  free(pool->items);
  memset(pool, 0, sizeof *pool);
}

/* Axis k from the offsets of p positions (p <= NNS__RF_PERIOD_MAX), cut to
 * the shortest period that repeats; nns_rf gets the widest field and
 * position 0's padding. Without room in the pool, the envelope. */
static void set_axis(nns__rf_pool *pool, nns__rf *r, int k, int32_t p,
                     const int64_t *lo, const int64_t *hi) {
  int32_t q = 1;
  for (; q < p; q++) {
    if (p % q)
      continue;
    bool repeats = true;
    for (int32_t m = q; m < p && repeats; m++)
      repeats = lo[m] == lo[m % q] && hi[m] == hi[m % q];
    if (repeats)
      break;
  }
  uint32_t id = q > 1 ? pool_add(pool) : 0;
  int64_t widest = 0, env_lo = lo[0], env_hi = hi[0];
  for (int32_t m = 0; m < q; m++) {
    int64_t w = sadd(sadd(hi[m], neg(lo[m])), 1);
    widest = w > widest ? w : widest;
    env_lo = lo[m] < env_lo ? lo[m] : env_lo;
    env_hi = hi[m] > env_hi ? hi[m] : env_hi;
  }
  r->per[k] = id;
  r->f.period[k] = id ? q : 1;
  if (q > 1 && !id) { /* no room: the envelope */
    widest = sadd(sadd(env_hi, neg(env_lo)), 1);
    lo = &env_lo;
  }
  r->f.field[k] = widest;
  r->f.padding[k] = neg(lo[0]);
  if (id) {
    nns__rf_per *e = &pool->items[id];
    e->period = q;
    memcpy(e->lo, lo, (size_t)q * sizeof *lo);
    memcpy(e->hi, hi, (size_t)q * sizeof *hi);
  }
}

static void envelope_axis(nns__rf_pool *pool, nns__rf *r, int k) {
  const nns__rf_per *e = entry(pool, r, k);
  if (!e) {
    r->per[k] = 0;
    return;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int32_t m = 0; m < e->period; m++) {
    lo = e->lo[m] < lo ? e->lo[m] : lo;
    hi = e->hi[m] > hi ? e->hi[m] : hi;
  }
  set_axis(pool, r, k, 1, &lo, &hi);
}

void nns__rf_envelope(nns__rf_pool *pool, nns__rf *r) {
  for (int k = 0; k < r->f.axes && k < NNS_RF_MAX_AXES; k++)
    envelope_axis(pool, r, k);
}

void nns__rf_translate(nns__rf_pool *pool, nns__rf *r, int k, int64_t t) {
  int32_t p = nns__rf_period(pool, r, k);
  int64_t lo[NNS__RF_PERIOD_MAX], hi[NNS__RF_PERIOD_MAX];
  int64_t shift = smul(r->f.stride[k], t);
  for (int32_t m = 0; m < p; m++) {
    int64_t l, h;
    nns__rf_offsets(pool, r, k, sadd(m, t), &l, &h);
    lo[m] = sadd(l, shift);
    hi[m] = sadd(h, shift);
  }
  set_axis(pool, r, k, p, lo, hi);
}

void nns__rf_resample(nns__rf_pool *pool, nns__rf *r, int k, int64_t start,
                      int64_t step) {
  if (step < 1)
    return;
  int32_t p = nns__rf_period(pool, r, k);
  int32_t q = (int32_t)(p / gcd64(p, step));
  int64_t lo[NNS__RF_PERIOD_MAX], hi[NNS__RF_PERIOD_MAX];
  int64_t shift = smul(r->f.stride[k], start);
  for (int32_t m = 0; m < q; m++) {
    int64_t l, h;
    nns__rf_offsets(pool, r, k, sadd(start, smul(step, m)), &l, &h);
    lo[m] = sadd(l, shift);
    hi[m] = sadd(h, shift);
  }
  r->f.stride[k] = smul(r->f.stride[k], step);
  set_axis(pool, r, k, q, lo, hi);
}

void nns__rf_window(nns__rf_pool *pool, nns__rf *r, int k, int64_t w) {
  if (w < 2)
    return;
  int64_t j = r->f.stride[k];
  int32_t p = lcm_period(nns__rf_period(pool, r, k), w);
  if (!p) { /* too long a period: where the window lies is not followed */
    envelope_axis(pool, r, k);
    int64_t lo, hi;
    nns__rf_offsets(pool, r, k, 0, &lo, &hi);
    lo = sadd(lo, neg(smul(w - 1, j)));
    hi = sadd(hi, smul(w - 1, j));
    set_axis(pool, r, k, 1, &lo, &hi);
    return;
  }
  int64_t lo[NNS__RF_PERIOD_MAX], hi[NNS__RF_PERIOD_MAX];
  for (int32_t m = 0; m < p; m++) {
    int64_t first = m / w * w, l = INT64_MAX, h = INT64_MIN;
    for (int64_t t = first; t < first + w; t++) {
      int64_t tl, th, at = smul(j, t - m);
      nns__rf_offsets(pool, r, k, t, &tl, &th);
      tl = sadd(tl, at);
      th = sadd(th, at);
      l = tl < l ? tl : l;
      h = th > h ? th : h;
    }
    lo[m] = l;
    hi[m] = h;
  }
  set_axis(pool, r, k, p, lo, hi);
}

void nns__rf_unite_axis(nns__rf_pool *pool, nns__rf *acc, const nns__rf *b,
                        int k) {
  int32_t pa = nns__rf_period(pool, acc, k), pb = nns__rf_period(pool, b, k);
  if (pa == 1 && pb == 1) { /* the common case: no pool, no copies */
    nns_rf *x = &acc->f;
    const nns_rf *y = &b->f;
    int64_t lx = neg(x->padding[k]), ly = neg(y->padding[k]);
    int64_t lo = lx < ly ? lx : ly;
    int64_t ex = sadd(sadd(x->field[k], -1), lx);
    int64_t ey = sadd(sadd(y->field[k], -1), ly);
    int64_t hi = ex > ey ? ex : ey;
    if (y->stride[k] > x->stride[k])
      x->stride[k] = y->stride[k];
    set_axis(pool, acc, k, 1, &lo, &hi);
    return;
  }
  nns__rf bb = *b;
  int32_t p = 0;
  if (acc->f.stride[k] == b->f.stride[k])
    p = lcm_period(pa, pb);
  if (!p) { /* other strides (merging unlike fields) or a long period */
    envelope_axis(pool, acc, k);
    envelope_axis(pool, &bb, k);
    p = 1;
  }
  int64_t lo[NNS__RF_PERIOD_MAX], hi[NNS__RF_PERIOD_MAX];
  for (int32_t m = 0; m < p; m++) {
    int64_t la, ha, lb, hb;
    nns__rf_offsets(pool, acc, k, m, &la, &ha);
    nns__rf_offsets(pool, &bb, k, m, &lb, &hb);
    lo[m] = la < lb ? la : lb;
    hi[m] = ha > hb ? ha : hb;
  }
  if (b->f.stride[k] > acc->f.stride[k])
    acc->f.stride[k] = b->f.stride[k];
  set_axis(pool, acc, k, p, lo, hi);
}
