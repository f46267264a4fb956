/*
 * ctx.c - the helpers shape and fold rules work through: reading inputs,
 * attributes (with the entry's defaults), setting outputs, broadcasting and
 * symbolic dim arithmetic. Rules never touch the IR's fields directly for
 * these, so that every rule reports errors and unknowns the same way.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "op.h"

/* ==== Errors and warnings ==== */

nns_status nns__fail(nns__ictx *cx, nns_status code, const char *fmt, ...) {
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const nns__node *n = cx->node;
  const char *label = n->name[0] ? n->name : n->op_type;
  return nns__err(cx->err, code, n->offset, label, "node '%s' (%s%s%s): %s",
                  n->name[0] ? n->name : "(unnamed)",
                  n->domain[0] ? n->domain : "", n->domain[0] ? "." : "",
                  n->op_type, what);
}

void nns__node_warn(nns__ictx *cx, const char *fmt, ...) {
  char what[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const nns__node *n = cx->node;
  nns__warn(cx->m, "node '%s' (%s): %s", n->name[0] ? n->name : "(unnamed)",
            n->op_type, what);
}

void *nns__alloc(nns__ictx *cx, size_t n) {
  return nns__arena_alloc(&cx->m->infer_arena, n);
}

/* ==== Inputs ==== */

int nns__n_in(const nns__ictx *cx) { return cx->node->n_in; }

nns__value *nns__in(const nns__ictx *cx, int i) {
  if (i < 0 || i >= cx->node->n_in)
    return NULL;
  return cx->node->in[i];
}

bool nns__has_in(const nns__ictx *cx, int i) { return nns__in(cx, i) != NULL; }

const nns__type *nns__in_type(const nns__ictx *cx, int i) {
  nns__value *v = nns__in(cx, i);
  return v ? &v->type : NULL;
}

int32_t nns__in_dtype(const nns__ictx *cx, int i) {
  nns__value *v = nns__in(cx, i);
  return v ? v->type.dtype : 0;
}

int32_t nns__in_rank(const nns__ictx *cx, int i) {
  nns__value *v = nns__in(cx, i);
  return v ? v->type.rank : -1;
}

nns__dim nns__in_dim(const nns__ictx *cx, int i, int axis) {
  nns__value *v = nns__in(cx, i);
  if (axis < 0)
    axis += v->type.rank;
  return v->type.dims[axis];
}

int64_t nns__in_numel(const nns__ictx *cx, int i) {
  const nns__type *t = nns__in_type(cx, i);
  if (!t || !nns__type_static(t))
    return -1;
  int64_t n = 1;
  for (int32_t k = 0; k < t->rank; k++)
    if (!nns__mul_i64(n, t->dims[k].v, &n))
      return -1;
  return n;
}

/* Bytes a constant of n elements of dtype takes once decoded. */
static int64_t const_bytes(int32_t dtype, int64_t n) {
  int64_t each = dtype == NNS_DT_STRING        ? (int64_t)sizeof(const char *)
                 : nns__dtype_is_float(dtype) ? (int64_t)sizeof(double)
                                              : (int64_t)sizeof(nns__dim);
  return (n + 1) * each + (int64_t)sizeof(nns__const);
}

/* Takes `bytes` from the model's folding budget (NNS__FOLD_BUDGET); false,
 * with one warning per run naming the node, when they do not fit. Small
 * values (NNS__FOLD_SMALL) always fit. */
static bool fold_budget_take(nns__ictx *cx, int64_t bytes) {
  nns_model *m = cx->m;
  if (bytes <= NNS__FOLD_BUDGET - m->fold_bytes) {
    m->fold_bytes += bytes;
    return true;
  }
  if (bytes <= NNS__FOLD_SMALL)
    return true;
  if (m->fold_bytes <= NNS__FOLD_BUDGET) {
    nns__node_warn(cx, "constant folding stopped here: the model's folded "
                   "values would take more than the %lld MiB budget; from "
                   "here on values are not folded and stay unknown",
                   (long long)(NNS__FOLD_BUDGET >> 20));
    m->fold_bytes = NNS__FOLD_BUDGET + 1; /* warned */
  }
  return false;
}

const nns__const *nns__in_const(nns__ictx *cx, int i) {
  nns__value *v = nns__in(cx, i);
  if (!v)
    return NULL;
  if (v->cval || v->cval_done)
    return v->cval;
  v->cval_done = true;
  if (!v->init || v->init->numel > NNS__FOLD_MAX ||
      !fold_budget_take(cx, const_bytes(v->init->dtype, v->init->numel)))
    return NULL;
  nns__const *c = nns__arena_alloc(&cx->m->infer_arena, sizeof *c);
  if (!c)
    return NULL;
  /* A missing or unreadable external file just leaves the value unknown;
   * the loader already warned about the file. */
  if (nns__tensor_decode(cx->m, v->init, NNS__FOLD_MAX, c, NULL) != NNS_OK)
    return NULL;
  v->cval = c;
  return c;
}

bool nns__in_ints(nns__ictx *cx, int i, const nns__dim **vals, int64_t *n) {
  const nns__const *c = nns__in_const(cx, i);
  if (!c || !c->i)
    return false;
  *vals = c->i;
  *n = c->numel;
  return true;
}

bool nns__in_known_ints(nns__ictx *cx, int i, const int64_t **vals,
                        int64_t *n) {
  const nns__dim *d;
  int64_t count;
  if (!nns__in_ints(cx, i, &d, &count))
    return false;
  int64_t *out = nns__arena_array(&cx->m->infer_arena, (size_t)count + 1,
                                  sizeof *out);
  if (!out)
    return false;
  for (int64_t k = 0; k < count; k++) {
    if (d[k].sym)
      return false;
    out[k] = d[k].v;
  }
  *vals = out;
  *n = count;
  return true;
}

/* ==== Attributes ==== */

/* Rules look attributes up by string literal thousands of times per model;
 * the literal is usually the spec's own (merged constants), so a pointer
 * compare and a first-character check spare most strcmp calls. */
static inline bool same_name(const char *a, const char *b) {
  return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

static const nns__attr_spec *spec_of(const nns__ictx *cx, const char *name) {
  const nns__attr_spec *spec = cx->op ? cx->op->attrs : NULL;
  /* By pointer first: a rule passes its spec's own literal. */
  for (const nns__attr_spec *s = spec; s && s->name; s++)
    if (s->name == name)
      return s;
  for (const nns__attr_spec *s = spec; s && s->name; s++)
    if (same_name(s->name, name))
      return s;
  return NULL;
}

bool nns__spec_has(const nns__ictx *cx, const char *name) {
  return spec_of(cx, name) != NULL;
}

static const nns__attr *node_attr(const nns__node *n, const char *name) {
  for (int32_t i = 0; i < n->n_attrs; i++)
    if (same_name(n->attrs[i].name, name))
      return &n->attrs[i];
  return NULL;
}

const nns__attr *nns__attr_get(const nns__ictx *cx, const char *name) {
  /* An attribute the op does not have at this opset is ignored (the driver
   * warned about it), so a rule never reads, say, a newer opset's option. */
  if (cx->op && !spec_of(cx, name))
    return NULL;
  const nns__attr *a = node_attr(cx->node, name);
  /* In a function body, an attribute may stand for one of the caller's. */
  if (a && a->ref_attr_name)
    return cx->call ? node_attr(cx->call, a->ref_attr_name) : NULL;
  return a;
}

bool nns__attr_has(const nns__ictx *cx, const char *name) {
  return nns__attr_get(cx, name) != NULL;
}

int64_t nns__attr_int(const nns__ictx *cx, const char *name) {
  const nns__attr *a = nns__attr_get(cx, name);
  if (a && a->type == NNS__AT_INT)
    return a->i;
  /* Tolerate a float where an int is expected, saturating: a hostile
   * 4e34 must not be undefined behaviour; the rule then rejects the value.
   * A NaN counts as absent. */
  if (a && a->type == NNS__AT_FLOAT && a->f == a->f) {
    if (a->f >= 9.2e18)
      return INT64_MAX;
    if (a->f <= -9.2e18)
      return INT64_MIN;
    return (int64_t)a->f;
  }
  const nns__attr_spec *s = spec_of(cx, name);
  return s && s->has_default ? s->i : 0;
}

double nns__attr_float(const nns__ictx *cx, const char *name) {
  const nns__attr *a = nns__attr_get(cx, name);
  if (a && a->type == NNS__AT_FLOAT)
    return a->f;
  if (a && a->type == NNS__AT_INT)
    return (double)a->i;
  const nns__attr_spec *s = spec_of(cx, name);
  return s && s->has_default ? s->f : 0.0;
}

const char *nns__attr_str(const nns__ictx *cx, const char *name) {
  const nns__attr *a = nns__attr_get(cx, name);
  if (a && a->type == NNS__AT_STRING && a->s)
    return a->s;
  const nns__attr_spec *s = spec_of(cx, name);
  return s && s->has_default && s->s ? s->s : "";
}

int32_t nns__attr_ints(const nns__ictx *cx, const char *name,
                       const int64_t **vals) {
  const nns__attr *a = nns__attr_get(cx, name);
  if (a && a->type == NNS__AT_INTS) {
    *vals = a->ints;
    return a->n;
  }
  *vals = NULL;
  return -1;
}

int32_t nns__attr_floats(const nns__ictx *cx, const char *name,
                         const double **vals) {
  const nns__attr *a = nns__attr_get(cx, name);
  if (a && a->type == NNS__AT_FLOATS) {
    *vals = a->floats;
    return a->n;
  }
  *vals = NULL;
  return -1;
}

const nns__tensor *nns__attr_tensor(const nns__ictx *cx, const char *name) {
  const nns__attr *a = nns__attr_get(cx, name);
  return a && a->type == NNS__AT_TENSOR ? a->t : NULL;
}

/* ==== Outputs ==== */

int nns__n_out(const nns__ictx *cx) { return cx->node->n_out; }

bool nns__has_out(const nns__ictx *cx, int i) {
  return i >= 0 && i < cx->node->n_out && cx->node->out[i];
}

nns__dim nns__fresh(nns__ictx *cx) {
  nns__dim d = {0, nns__sym_fresh(cx->m)};
  return d;
}

/* Output i's type with `rank` dims; each dim a fresh unknown when `fresh`,
 * else left for the caller to fill at once. */
static nns__dim *out_dims(nns__ictx *cx, int i, int32_t dtype, int32_t rank,
                          bool fresh) {
  if (!nns__has_out(cx, i))
    return NULL;
  nns__value *v = cx->node->out[i];
  v->type.dtype = dtype;
  v->type.kind = NNS_KIND_TENSOR;
  v->type.elem_kind = 0;
  v->type.rank = rank < 0 ? -1 : rank;
  v->type.dims = NULL;
  if (rank <= 0)
    return NULL;
  nns__dim *d = nns__arena_array(&cx->m->infer_arena, (size_t)rank, sizeof *d);
  if (!d) {
    v->type.rank = -1;
    return NULL;
  }
  for (int32_t k = 0; fresh && k < rank; k++)
    d[k] = nns__fresh(cx);
  v->type.dims = d;
  return d;
}

/* Whether two runs of `rank` dims are equal, value and symbol alike. */
static bool dims_equal(const nns__dim *a, const nns__dim *b, int32_t rank) {
  if (a == b)
    return true;
  for (int32_t k = 0; k < rank; k++)
    if (a[k].v != b[k].v || a[k].sym != b[k].sym)
      return false;
  return true;
}

/*
 * An output whose dims are one of the node's inputs' points at that
 * input's array rather than copying it: an elementwise chain (Relu, Mul,
 * Add) gives every value its input's shape, and the copies were most of
 * the inference arena (6 MB of fresh pages in a 100k-node graph). This is
 * safe because a value's dims are never written once the node that made
 * it is inferred: rules write only the arrays nns__out_shape and
 * nns__out_dims hand out, the control-flow rules copy before they edit
 * (type_copy), and fill_unknowable (src/infer) rewrites only symbols the
 * node itself made, which an input's dims cannot hold.
 */
static const nns__dim *input_dims(const nns__ictx *cx, const nns__dim *dims,
                                  int32_t rank) {
  for (int32_t k = 0; dims && k < cx->node->n_in; k++) {
    const nns__value *v = cx->node->in[k];
    if (!v || v->type.rank != rank || !v->type.dims)
      continue;
    if (dims_equal(v->type.dims, dims, rank))
      return v->type.dims;
  }
  return NULL;
}

/* Output i's type with `rank` dims that an input holds (input_dims). */
static void out_shared(nns__ictx *cx, int i, int32_t dtype, int32_t rank,
                       const nns__dim *dims) {
  nns__value *v = cx->node->out[i];
  v->type.dtype = dtype;
  v->type.kind = NNS_KIND_TENSOR;
  v->type.elem_kind = 0;
  v->type.rank = rank;
  v->type.dims = (nns__dim *)dims; /* shared, never written (see above) */
}

nns__dim *nns__out_shape(nns__ictx *cx, int i, int32_t dtype, int32_t rank) {
  return out_dims(cx, i, dtype, rank, true);
}

nns__dim *nns__out_dims(nns__ictx *cx, int i, int32_t dtype, int32_t rank) {
  return out_dims(cx, i, dtype, rank, false);
}

void nns__out_type(nns__ictx *cx, int i, const nns__type *t) {
  if (!nns__has_out(cx, i) || !t)
    return;
  const nns__dim *same = t->rank > 0 ? input_dims(cx, t->dims, t->rank)
                                     : NULL;
  if (same) {
    out_shared(cx, i, t->dtype, t->rank, same);
  } else {
    nns__dim *d = nns__out_dims(cx, i, t->dtype, t->rank); /* copied over */
    if (d)
      nns__dims_copy(d, t->dims, t->rank);
  }
  nns__value *v = cx->node->out[i];
  v->type.kind = t->kind ? t->kind : NNS_KIND_TENSOR;
  v->type.elem_kind = t->elem_kind;
}

void nns__out_like(nns__ictx *cx, int i, int j, int32_t dtype) {
  const nns__type *t = nns__in_type(cx, j);
  if (!t) {
    nns__out_shape(cx, i, dtype, -1);
    return;
  }
  nns__out_type(cx, i, t);
  if (dtype && nns__has_out(cx, i))
    cx->node->out[i]->type.dtype = dtype;
}

void nns__out_dtype(nns__ictx *cx, int i, int32_t dtype) {
  nns__out_shape(cx, i, dtype, -1);
}

void nns__out_kind(nns__ictx *cx, int i, uint8_t kind, uint8_t elem_kind) {
  if (!nns__has_out(cx, i))
    return;
  cx->node->out[i]->type.kind = kind;
  cx->node->out[i]->type.elem_kind = elem_kind;
}

nns__const *nns__out_const(nns__ictx *cx, int i) {
  if (!nns__has_out(cx, i))
    return NULL;
  nns__value *v = cx->node->out[i];
  if (v->type.kind != NNS_KIND_TENSOR || !nns__type_static(&v->type))
    return NULL;
  int64_t n = 1;
  for (int32_t k = 0; k < v->type.rank; k++)
    if (!nns__mul_i64(n, v->type.dims[k].v, &n) || n > NNS__FOLD_MAX)
      return NULL;
  int32_t dt = v->type.dtype;
  if (!fold_budget_take(cx, const_bytes(dt, n)))
    return NULL;
  nns__const *c = nns__arena_alloc(&cx->m->infer_arena, sizeof *c);
  if (!c)
    return NULL;
  c->numel = n;
  if (dt == NNS_DT_STRING)
    c->s = nns__arena_array(&cx->m->infer_arena, (size_t)n + 1, sizeof *c->s);
  else if (nns__dtype_is_float(dt))
    c->f = nns__arena_array(&cx->m->infer_arena, (size_t)n + 1, sizeof *c->f);
  else if (nns__dtype_is_int(dt))
    c->i = nns__arena_array(&cx->m->infer_arena, (size_t)n + 1, sizeof *c->i);
  else
    return NULL;
  if (!c->s && !c->f && !c->i)
    return NULL;
  v->cval = c;
  v->cval_done = true;
  return c;
}

/* ==== Dims ==== */

bool nns__axis(int64_t axis, int32_t rank, int32_t *out) {
  if (axis < -(int64_t)rank || axis >= rank)
    return false;
  *out = (int32_t)(axis < 0 ? axis + rank : axis);
  return true;
}

nns_status nns__axis_or_fail(nns__ictx *cx, int64_t axis, int32_t rank,
                             int32_t *out, const char *what) {
  if (nns__axis(axis, rank, out))
    return NNS_OK;
  return nns__fail(cx, NNS_E_ATTR, "%s %lld is out of range for rank %d",
                   what, (long long)axis, rank);
}

bool nns__type_static(const nns__type *t) {
  if (!t || t->rank < 0)
    return false;
  for (int32_t k = 0; k < t->rank; k++)
    if (t->dims[k].sym)
      return false;
  return true;
}

nns__dim nns__mul(nns__ictx *cx, nns__dim a, nns__dim b) {
  return nns__dim_mul(cx->m, a, b);
}
nns__dim nns__add(nns__ictx *cx, nns__dim a, nns__dim b) {
  return nns__dim_add(cx->m, a, b);
}
nns__dim nns__sub(nns__ictx *cx, nns__dim a, nns__dim b) {
  return nns__dim_sub(cx->m, a, b);
}
nns__dim nns__div(nns__ictx *cx, nns__dim a, nns__dim b) {
  return nns__dim_div(cx->m, a, b);
}

nns__dim nns__dims_product(nns__ictx *cx, const nns__dim *d, int32_t n) {
  nns__dim p = nns__dim_known(1);
  for (int32_t k = 0; k < n; k++)
    p = nns__mul(cx, p, d[k]);
  return p;
}

/* The broadcast of a and b into d (room for max(ra, rb) dims, neither a
 * nor b). */
static nns_status broadcast_into(nns__ictx *cx, int32_t ra, const nns__dim *a,
                                 int32_t rb, const nns__dim *b, nns__dim *d) {
  int32_t r = ra > rb ? ra : rb;
  for (int32_t k = 0; k < r; k++) {
    int32_t ia = k - (r - ra), ib = k - (r - rb);
    nns__dim x = ia >= 0 ? a[ia] : nns__dim_known(1);
    nns__dim y = ib >= 0 ? b[ib] : nns__dim_known(1);
    if (nns__dim_eq(x, y))
      d[k] = x;
    else if (!x.sym && x.v == 1)
      d[k] = y;
    else if (!y.sym && y.v == 1)
      d[k] = x;
    else if (!x.sym && !y.sym) {
      char sa[32], sb[32];
      return nns__fail(cx, NNS_E_SHAPE,
                       "shapes do not broadcast: dim %d is %s in one input "
                       "and %s in another",
                       k, nns__dim_str(cx->m, x, sa, sizeof sa),
                       nns__dim_str(cx->m, y, sb, sizeof sb));
    } else if (!x.sym)
      d[k] = x; /* a symbol broadcast against n (n != 1) must be n or 1 */
    else if (!y.sym)
      d[k] = y;
    else
      d[k] = nns__fresh(cx); /* two different symbols: unknown */
  }
  return NNS_OK;
}

nns_status nns__broadcast_shapes(nns__ictx *cx, int32_t ra, const nns__dim *a,
                                 int32_t rb, const nns__dim *b, int32_t *rank,
                                 nns__dim **dims) {
  int32_t r = ra > rb ? ra : rb;
  nns__dim *d = nns__arena_array(&cx->m->infer_arena, (size_t)r + 1, sizeof *d);
  if (!d)
    return nns__fail(cx, NNS_E_NOMEM, "out of memory");
  nns_status st = broadcast_into(cx, ra, a, rb, b, d);
  if (st == NNS_OK) {
    *rank = r;
    *dims = d;
  }
  return st;
}

/* Whether t and u have the same rank and dims, value and symbol alike. */
static bool same_dims(const nns__type *t, const nns__type *u) {
  return t->rank == u->rank && dims_equal(t->dims, u->dims, t->rank);
}

nns_status nns__broadcast(nns__ictx *cx, int first, int count, int out,
                          int32_t dtype) {
  /* Inputs all of one known shape (an elementwise chain's, which share
   * one dims array) broadcast to it: the output shares it without a pass
   * dim by dim. */
  const nns__type *one = NULL;
  bool alike = true;
  for (int i = first; i < first + count && alike; i++) {
    const nns__type *t = nns__in_type(cx, i);
    if (!t)
      continue;
    alike = t->rank > 0 && t->dims && (!one || same_dims(t, one));
    one = one ? one : t;
  }
  if (alike && one && nns__has_out(cx, out)) {
    out_shared(cx, out, dtype, one->rank, one->dims);
    return NNS_OK;
  }
  int32_t rank = 0;
  nns__dim *dims = NULL;
  /* The running shape lives on the stack, in two buffers taken in turn
   * (a broadcast cannot write over its own input): it is scratch, and in
   * the inference arena it was 12 MB of a 100k-node graph, every byte a
   * fresh page. Ranks past the buffers take the arena. */
  nns__dim buf[2][16];
  int turn = 0;
  for (int i = first; i < first + count; i++) {
    const nns__type *t = nns__in_type(cx, i);
    if (!t)
      continue;
    if (t->rank < 0) {
      nns__out_shape(cx, out, dtype, -1);
      return NNS_OK;
    }
    nns_status st;
    int32_t r = rank > t->rank ? rank : t->rank;
    if (r <= 16) {
      st = broadcast_into(cx, rank, dims, t->rank, t->dims, buf[turn]);
      if (st == NNS_OK) {
        rank = r;
        dims = buf[turn];
        turn ^= 1;
      }
    } else {
      st = nns__broadcast_shapes(cx, rank, dims, t->rank, t->dims, &rank,
                                 &dims);
    }
    if (st != NNS_OK)
      return st;
  }
  const nns__dim *same =
      rank > 0 && nns__has_out(cx, out) ? input_dims(cx, dims, rank) : NULL;
  if (same) {
    out_shared(cx, out, dtype, rank, same);
    return NNS_OK;
  }
  nns__dim *d = nns__out_dims(cx, out, dtype, rank);
  if (d)
    nns__dims_copy(d, dims, rank);
  return NNS_OK;
}
