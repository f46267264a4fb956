/*
 * custom.c - operators the user registers for one model
 * (nns_model_register_op, as thop's custom_ops): each registration is an
 * nns__op entry whose shape and cost rules are trampolines into the user's
 * callbacks, looked up before the built-in table. The callbacks see the
 * node through the nns_op_ctx_* accessors, which are the rule context
 * (nns__ictx) under its public name.
 *
 * Registrations live in the model's arena, keyed by interned op type; one
 * op type may be registered for several domains.
 */
#include <limits.h>
#include <string.h>

#include "op.h"

/* ==== Registrations ==== */

typedef struct nns__custom {
  nns__op entry;            /* what the drivers see; entry.ext points here */
  nns_shape_fn shape;       /* the user's callbacks (either may be NULL) */
  nns_cost_fn cost;
  void *user;
  struct nns__custom *next; /* same op type, another domain */
} nns__custom;

/* A status the callback returned, as one the library reports. */
static nns_status user_status(nns_status st) {
  return st > NNS_OK && st <= NNS_E_NOTFOUND ? st : NNS_E_SHAPE;
}

static nns_status custom_shape(nns__ictx *cx) {
  const nns__custom *c = cx->op->ext;
  nns_status st = c->shape(c->user, (nns_op_ctx *)cx);
  if (st == NNS_OK)
    return NNS_OK;
  return nns__fail(cx, user_status(st), "the registered shape rule failed "
                   "(%s)", nns_status_name(st));
}

static nns_status custom_cost(nns__ictx *cx, nns__cost *cost) {
  const nns__custom *c = cx->op->ext;
  int64_t flops = 0, macs = 0, dmas = 0;
  nns_status st = c->cost(c->user, (const nns_op_ctx *)cx, &flops, &macs,
                          &dmas);
  /* The callback saw symbolic dims as -1; say whether there were any. */
  bool symbolic = false;
  for (int i = 0; i < nns__n_in(cx); i++) {
    const nns__type *t = nns__in_type(cx, i);
    for (int32_t k = 0; t && k < t->rank; k++)
      if (t->dims[k].sym)
        symbolic = true;
  }
  /* The user's error is the rule's failure, reported as such; a negative
   * count is "no usable size" only when a symbolic dim can explain it. */
  if (st != NNS_OK)
    return nns__fail(cx, user_status(st), "the registered cost rule failed "
                     "(%s)", nns_status_name(st));
  if (flops < 0 || macs < 0 || dmas < 0) {
    if (symbolic)
      return NNS__UNCOUNTED;
    return nns__fail(cx, NNS_E_ARG, "the registered cost rule returned a "
                     "negative count");
  }
  cost->flops = flops;
  cost->macs = macs;
  cost->dmas = dmas;
  cost->symbolic = symbolic;
  return NNS_OK;
}

const nns__op *nns__custom_find(const nns_model *m, const char *domain,
                                const char *name) {
  for (const nns__custom *c = nns__map_get(&m->custom_ops, name); c;
       c = c->next)
    if (c->entry.domain == domain)
      return &c->entry;
  return NULL;
}

nns_status nns_model_register_op(nns_model *m, const char *domain,
                                 const char *op_type, nns_shape_fn shape,
                                 nns_cost_fn cost, void *user,
                                 nns_error *err) {
  if (!m || !op_type || !op_type[0])
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "register_op: model and op type are required");
  /* Nodes name the default domain "" ("ai.onnx" is mapped to it). */
  if (!domain || strcmp(domain, "ai.onnx") == 0)
    domain = "";
  const char *d = nns__intern_cstr(&m->strings, domain);
  const char *name = nns__intern_cstr(&m->strings, op_type);
  if (!d || !name)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  nns__custom *head = nns__map_get(&m->custom_ops, name), *c = head;
  while (c && c->entry.domain != d)
    c = c->next;
  if (!c) {
    c = nns__arena_alloc(&m->arena, sizeof *c);
    if (!c)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    c->entry.domain = d;
    c->entry.name = name;
    c->entry.since = 1;
    c->entry.until = INT_MAX;
    c->entry.ext = c;
    c->next = head;
    if (!nns__map_put(&m->custom_ops, name, c))
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  c->shape = shape;
  c->cost = cost;
  c->user = user;
  c->entry.shape = shape ? custom_shape : NULL;
  c->entry.cost = cost ? custom_cost : NULL;
  /* Ops resolved by an earlier inference must be looked up again. */
  nns__map_free(&m->op_cache);
  return NNS_OK;
}

/* ==== The node, as a callback sees it ==== */

static const nns__ictx *ictx(const nns_op_ctx *cx) {
  return (const nns__ictx *)cx;
}

static nns_status public_dim(const nns_model *m, const nns__type *t,
                             int axis, nns_dim *out) {
  if (!t || !out || axis < 0 || axis >= t->rank)
    return NNS_E_ARG;
  nns_dim d = {.value = -1};
  nns__dim x = t->dims[axis];
  if (!x.sym) {
    d.value = x.v;
  } else {
    const nns__symbol *s = nns__sym_get(m, x.sym);
    d.symbol = s ? s->name : NULL;
  }
  return NNS__PUT(out, &d, NNS__V1_DIM);
}

static const nns__type *out_type(const nns__ictx *c, size_t i) {
  if (!c || i >= (size_t)c->node->n_out || !c->node->out[i])
    return NULL;
  return &c->node->out[i]->type;
}

static const nns__type *in_type(const nns__ictx *c, size_t i) {
  if (!c || i >= (size_t)c->node->n_in)
    return NULL;
  return nns__in_type(c, (int)i);
}

size_t nns_op_ctx_input_count(const nns_op_ctx *cx) {
  return cx ? (size_t)ictx(cx)->node->n_in : 0;
}

size_t nns_op_ctx_output_count(const nns_op_ctx *cx) {
  return cx ? (size_t)ictx(cx)->node->n_out : 0;
}

int nns_op_ctx_input_dtype(const nns_op_ctx *cx, size_t i) {
  const nns__type *t = in_type(ictx(cx), i);
  return t ? t->dtype : 0;
}

int nns_op_ctx_input_rank(const nns_op_ctx *cx, size_t i) {
  const nns__type *t = in_type(ictx(cx), i);
  return t ? t->rank : -1;
}

nns_status nns_op_ctx_input_dim(const nns_op_ctx *cx, size_t i, int axis,
                                nns_dim *out) {
  return public_dim(cx ? ictx(cx)->m : NULL, in_type(ictx(cx), i), axis,
                    out);
}

int nns_op_ctx_output_rank(const nns_op_ctx *cx, size_t i) {
  const nns__type *t = out_type(ictx(cx), i);
  return t ? t->rank : -1;
}

nns_status nns_op_ctx_output_dim(const nns_op_ctx *cx, size_t i, int axis,
                                 nns_dim *out) {
  return public_dim(cx ? ictx(cx)->m : NULL, out_type(ictx(cx), i), axis,
                    out);
}

/* The node's own attribute (a registered op declares no attribute specs,
 * so the table's lookup, which ignores undeclared ones, does not apply). */
static const nns__attr *attr(const nns__ictx *c, const char *name) {
  if (!c || !name)
    return NULL;
  const nns__node *n = c->node;
  for (int32_t i = 0; i < n->n_attrs; i++) {
    const nns__attr *a = &n->attrs[i];
    if (strcmp(a->name, name) != 0)
      continue;
    if (!a->ref_attr_name)
      return a;
    if (!c->call)
      return NULL;
    for (int32_t k = 0; k < c->call->n_attrs; k++)
      if (strcmp(c->call->attrs[k].name, a->ref_attr_name) == 0)
        return &c->call->attrs[k];
    return NULL;
  }
  return NULL;
}

int64_t nns_op_ctx_attr_int(const nns_op_ctx *cx, const char *name,
                            int64_t def) {
  const nns__attr *a = attr(ictx(cx), name);
  if (a && a->type == NNS__AT_INT)
    return a->i;
  return def;
}

double nns_op_ctx_attr_float(const nns_op_ctx *cx, const char *name,
                             double def) {
  const nns__attr *a = attr(ictx(cx), name);
  if (a && a->type == NNS__AT_FLOAT)
    return a->f;
  if (a && a->type == NNS__AT_INT)
    return (double)a->i;
  return def;
}

nns_status nns_op_ctx_set_output(nns_op_ctx *cx, size_t i, int dtype,
                                 int rank, const int64_t *dims) {
  nns__ictx *c = (nns__ictx *)cx;
  if (!c || i >= (size_t)c->node->n_out || dtype < 0 || rank < -1 ||
      rank > 64 || (rank > 0 && !dims))
    return NNS_E_ARG;
  if (!c->node->out[i])
    return NNS_OK; /* an omitted optional output */
  nns__dim *d = nns__out_shape(c, (int)i, dtype, rank);
  if (rank > 0 && !d)
    return NNS_E_NOMEM;
  for (int k = 0; k < rank; k++)
    if (dims[k] >= 0)
      d[k] = nns__dim_known(dims[k]);
  return NNS_OK;
}
