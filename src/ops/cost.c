/*
 * cost.c - the arithmetic every cost rule shares: saturating counts,
 * symbolic dims counted as 1 (and flagged), and the cost rules many ops have
 * in common (element-wise, views, data movement), written once.
 */
#include "op.h"

int64_t nns__cmul(nns__cost *c, int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || !nns__mul_i64(a, b, &r)) {
    c->overflow = c->overflow || (a >= 0 && b >= 0);
    return a < 0 || b < 0 ? 0 : INT64_MAX;
  }
  return r;
}

int64_t nns__cadd(nns__cost *c, int64_t a, int64_t b) {
  int64_t r;
  if (!nns__add_i64(a, b, &r)) {
    c->overflow = true;
    return INT64_MAX;
  }
  return r;
}

int64_t nns__dim_count(nns__cost *c, nns__dim d, const nns_model *m) {
  if (!d.sym)
    return d.v;
  c->symbolic = true;
  const nns__symbol *s = nns__sym_get(m, d.sym);
  /* A monomial coef*a*b with every atom at 1 is its coefficient. */
  return s && s->n_factors && s->coef > 0 ? s->coef : 1;
}

static int64_t type_count(nns__ictx *cx, nns__cost *c, const nns__type *t) {
  if (!t || t->rank < 0)
    return -1;
  int64_t n = 1;
  for (int32_t k = 0; k < t->rank; k++)
    n = nns__cmul(c, n, nns__dim_count(c, t->dims[k], cx->m));
  return n;
}

int64_t nns__in_count(nns__ictx *cx, nns__cost *c, int i) {
  return type_count(cx, c, nns__in_type(cx, i));
}

int64_t nns__out_count(nns__ictx *cx, nns__cost *c, int i) {
  if (!nns__has_out(cx, i))
    return -1;
  return type_count(cx, c, &cx->node->out[i]->type);
}

/* Adds the element counts of every present output (write) to *total. */
static nns_status add_writes(nns__ictx *cx, nns__cost *c, int64_t *total) {
  for (int i = 0; i < nns__n_out(cx); i++) {
    if (!nns__has_out(cx, i))
      continue;
    int64_t n = nns__out_count(cx, c, i);
    if (n < 0)
      return NNS__UNCOUNTED;
    *total = nns__cadd(c, *total, n);
  }
  return NNS_OK;
}

/* DMAs of reading every present input and writing every present output. */
static nns_status reads_and_writes(nns__ictx *cx, nns__cost *c,
                                   int64_t *total) {
  int64_t t = 0;
  for (int i = 0; i < nns__n_in(cx); i++) {
    if (!nns__has_in(cx, i))
      continue;
    int64_t n = nns__in_count(cx, c, i);
    if (n < 0)
      return NNS__UNCOUNTED;
    t = nns__cadd(c, t, n);
  }
  nns_status st = add_writes(cx, c, &t);
  *total = t;
  return st;
}

nns_status nns__cost_eltwise(nns__ictx *cx, nns__cost *c, int64_t k) {
  int64_t y = nns__out_count(cx, c, 0);
  if (y < 0)
    return NNS__UNCOUNTED;
  c->flops = nns__cmul(c, k, y);
  c->macs = 0;
  return reads_and_writes(cx, c, &c->dmas);
}

nns_status nns__cost_view(nns__ictx *cx, nns__cost *c) {
  (void)cx;
  c->flops = c->macs = c->dmas = 0;
  c->view = true;
  return NNS_OK;
}

nns_status nns__cost_move(nns__ictx *cx, nns__cost *c) {
  c->flops = c->macs = 0;
  return reads_and_writes(cx, c, &c->dmas);
}

nns_status nns__cost_rw(nns__ictx *cx, nns__cost *c, int64_t flops,
                        int64_t reads) {
  if (flops < 0 || reads < 0)
    return NNS__UNCOUNTED;
  int64_t dmas = reads;
  nns_status st = add_writes(cx, c, &dmas);
  if (st != NNS_OK)
    return st;
  c->flops = flops;
  c->macs = 0;
  c->dmas = dmas;
  return NNS_OK;
}

nns_status nns__cost_x(nns__ictx *cx, nns__cost *c, int64_t fx, int64_t fy) {
  int64_t x = nns__in_count(cx, c, 0), y = nns__out_count(cx, c, 0);
  if (x < 0 || y < 0)
    return NNS__UNCOUNTED;
  return nns__cost_rw(cx, c,
                      nns__cadd(c, nns__cmul(c, fx, x), nns__cmul(c, fy, y)),
                      x);
}

nns_status nns__cost_move_x(nns__ictx *cx, nns__cost *c) {
  return nns__cost_x(cx, c, 0, 0);
}
