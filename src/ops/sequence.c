/*
 * sequence.c - sequences and optionals: Sequence*, SplitToSequence,
 * ConcatFromSequence, SequenceMap, Optional*.
 *
 * A sequence value's type holds the type of its elements (kind SEQUENCE,
 * dtype and dims of the elements, elem_kind TENSOR); an optional's holds
 * the type of what it contains. Elements of one sequence may differ in
 * shape, so a sequence's element dims are the merge of every element that
 * went in (typemerge.h): a dim all elements agree on is kept, others become
 * fresh symbols. Where a sequence is built by sequence ops with known
 * positions, its exact elements are found again by walking back through
 * its producers (seq_elems), so SequenceAt, SequenceLength and
 * ConcatFromSequence can be exact.
 *
 * Costs (docs/metrics.md): a sequence holds its tensors by reference, so
 * building, reading and editing one (Construct, Insert, At, Erase, Length)
 * and wrapping a value in an optional are views with no cost. The two ops
 * that cut a tensor into a sequence or join one back copy every element:
 * SplitToSequence 2 * numel(input), ConcatFromSequence 2 * numel(output)
 * DMAs, as Split and Concat. SequenceMap runs its body once per element.
 */
#include <string.h>

#include "typemerge.h"

/* ==== Helpers ==== */

/* Output i = a sequence whose elements have type t. */
static void out_seq(nns__ictx *cx, int i, const nns__type *t) {
  nns__out_type(cx, i, t);
  nns__out_kind(cx, i, NNS_KIND_SEQUENCE,
                t->kind && t->kind != NNS_KIND_SEQUENCE ? t->kind
                                                        : NNS_KIND_TENSOR);
}

/* The element type of a sequence input (kind TENSOR); NULL when absent. */
static bool elem_type(const nns__ictx *cx, int i, nns__type *t) {
  const nns__type *s = nns__in_type(cx, i);
  if (!s)
    return false;
  *t = *s;
  t->kind = s->elem_kind ? s->elem_kind : NNS_KIND_TENSOR;
  t->elem_kind = 0;
  return true;
}

/* Bounds on element tracking (seq_elems). */
enum { SEQ_MAX_ELEMS = 1024, SEQ_MAX_DEPTH = 64 };

/* Rules that seq_elems recognises a sequence's producer by. */
static nns_status seq_empty_shape(nns__ictx *cx);
static nns_status seq_construct_shape(nns__ictx *cx);
static nns_status seq_insert_shape(nns__ictx *cx);
static nns_status seq_erase_shape(nns__ictx *cx);
static nns_status split_to_seq_shape(nns__ictx *cx);
static int64_t seq_elems(nns__ictx *cx, const nns__value *v, nns__type **out,
                         int depth);

/* One-element known integer contents of v. */
static bool value_int(const nns__value *v, int64_t *out) {
  const nns__const *c = v ? v->cval : NULL;
  if (!c || c->numel != 1 || !c->i || c->i[0].sym)
    return false;
  *out = c->i[0].v;
  return true;
}


/* True when input i is the output of a SequenceEmpty (known to hold no
 * element, so its element type says nothing). */
static bool from_empty(const nns__ictx *cx, int i) {
  const nns__value *v = nns__in(cx, i);
  return v && v->producer && v->producer->op &&
         v->producer->op->shape == seq_empty_shape;
}

static nns_status need_sequence(nns__ictx *cx, int i) {
  const nns__type *t = nns__in_type(cx, i);
  if (t && t->kind && t->kind != NNS_KIND_SEQUENCE)
    return nns__fail(cx, NNS_E_SHAPE, "input %d must be a sequence", i);
  return NNS_OK;
}

/* ==== SequenceEmpty, SequenceConstruct, Insert, At, Erase, Length ==== */

static nns_status seq_empty_shape(nns__ictx *cx) {
  nns__type t = {.dtype = (int32_t)nns__attr_int(cx, "dtype"),
                 .kind = NNS_KIND_TENSOR, .rank = -1};
  out_seq(cx, 0, &t);
  return NNS_OK;
}

static nns_status seq_construct_shape(nns__ictx *cx) {
  nns__type t = {.rank = -1};
  bool first = true;
  for (int i = 0; i < nns__n_in(cx); i++) {
    const nns__type *e = nns__in_type(cx, i);
    if (!e)
      continue;
    if (first)
      t = *e;
    else
      nns__type_merge(cx, &t, e, &t);
    first = false;
  }
  out_seq(cx, 0, &t);
  return NNS_OK;
}

static nns_status seq_insert_shape(nns__ictx *cx) {
  nns_status st = need_sequence(cx, 0);
  if (st != NNS_OK)
    return st;
  nns__type s, t;
  const nns__type *e = nns__in_type(cx, 1);
  if (!elem_type(cx, 0, &s) || !e)
    return nns__fail(cx, NNS_E_SHAPE, "needs a sequence and a tensor");
  nns__in_const(cx, 2); /* decoded for the element tracking below */
  if (from_empty(cx, 0))
    t = *e; /* the first element decides */
  else
    nns__type_merge(cx, &s, e, &t);
  if (!t.dtype)
    t.dtype = s.dtype;
  out_seq(cx, 0, &t);
  return NNS_OK;
}

/* The element at a known position of a sequence whose elements are known
 * is exactly that element; otherwise the merge of all of them. */
static nns_status seq_at_shape(nns__ictx *cx) {
  nns_status st = need_sequence(cx, 0);
  nns__type t, *el;
  int64_t pos;
  if (st != NNS_OK)
    return st;
  if (!elem_type(cx, 0, &t))
    return nns__fail(cx, NNS_E_SHAPE, "input_sequence is missing");
  nns__in_const(cx, 1); /* decode the position for value_int */
  int64_t n = seq_elems(cx, nns__in(cx, 0), &el, 0);
  if (n >= 0 && value_int(nns__in(cx, 1), &pos)) {
    if (pos < -n || pos >= n)
      return nns__fail(cx, NNS_E_SHAPE,
                       "position %lld is out of range for a sequence of %lld",
                       (long long)pos, (long long)n);
    t = el[pos < 0 ? pos + n : pos];
  }
  nns__out_type(cx, 0, &t);
  return NNS_OK;
}

static nns_status seq_erase_shape(nns__ictx *cx) {
  nns_status st = need_sequence(cx, 0);
  nns__in_const(cx, 1); /* decoded for the element tracking below */
  if (st == NNS_OK)
    nns__out_like(cx, 0, 0, 0);
  return st;
}

static nns_status seq_length_shape(nns__ictx *cx) {
  nns__out_shape(cx, 0, NNS_DT_INT64, 0);
  return NNS_OK;
}

/* ==== SplitToSequence, ConcatFromSequence ==== */

/*
 * Without `split`: pieces of length 1 along axis (the axis dropped when
 * keepdims is 0). A scalar split s: pieces of length s, the last one shorter
 * unless s divides the axis. A 1-D split: its lengths, one per piece.
 *
 * Fills *axis and *drop, and *count with the number of pieces and *lens
 * with their lengths when known (else -1 and NULL). Fails the node on a bad
 * axis or split.
 */
static nns_status split_pieces(nns__ictx *cx, const nns__type *x,
                               int32_t *axis, bool *drop, int64_t *n_pieces,
                               nns__dim **lens) {
  *lens = NULL;
  *drop = false;
  *n_pieces = -1;
  nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank,
                                    axis, "axis");
  if (st != NNS_OK)
    return st;
  nns__dim len = x->dims[*axis];
  const nns__dim *s = NULL;
  int64_t n = 0, count = -1;
  int32_t sr = nns__in_rank(cx, 1);
  if (!nns__has_in(cx, 1)) {
    *drop = nns__attr_int(cx, "keepdims") == 0;
    count = len.sym ? -1 : len.v;
  } else if (sr > 1) {
    return nns__fail(cx, NNS_E_SHAPE,
                     "split must be a scalar or 1-D, it has rank %d", sr);
  } else if (!nns__in_ints(cx, 1, &s, &n) || n < 1) {
    /* Unknown lengths; a 1-D split of known size still gives the count. */
    const nns__type *st_ = nns__in_type(cx, 1);
    s = NULL;
    if (sr == 1 && !st_->dims[0].sym)
      count = st_->dims[0].v;
  } else if (sr == 0) {
    if (!s[0].sym && s[0].v <= 0)
      return nns__fail(cx, NNS_E_SHAPE, "split %lld must be positive",
                       (long long)s[0].v);
    if (!s[0].sym && !len.sym)
      count = len.v / s[0].v + (len.v % s[0].v != 0);
  } else {
    int64_t sum = 0;
    bool all_known = true;
    for (int64_t k = 0; k < n; k++) {
      if (s[k].sym || __builtin_add_overflow(sum, s[k].v, &sum)) {
        all_known = false;
      } else if (s[k].v < 0) {
        return nns__fail(cx, NNS_E_SHAPE, "split length %lld is negative",
                         (long long)s[k].v);
      }
    }
    if (all_known && !len.sym && sum != len.v)
      return nns__fail(cx, NNS_E_SHAPE,
                       "split lengths sum to %lld, axis %d has %lld",
                       (long long)sum, *axis, (long long)len.v);
    count = n;
  }
  if (count < 0 || count > SEQ_MAX_ELEMS)
    return NNS_OK;
  *lens = nns__alloc(cx, ((size_t)count + 1) * sizeof **lens);
  if (!*lens)
    return NNS_OK;
  for (int64_t k = 0; k < count; k++) {
    if (!s)
      (*lens)[k] = nns__has_in(cx, 1) ? nns__fresh(cx) : nns__dim_known(1);
    else if (sr == 1)
      (*lens)[k] = s[k];
    else /* scalar split: the last piece takes the remainder */
      (*lens)[k] = nns__dim_known(k + 1 < count ? s[0].v
                                                : len.v - s[0].v * k);
  }
  *n_pieces = count;
  return NNS_OK;
}

/* Type of a piece of x of length `len` along axis (dropped if `drop`). */
static nns__type piece_type(nns__ictx *cx, const nns__type *x, int32_t axis,
                            bool drop, nns__dim len) {
  nns__type t = {.dtype = x->dtype, .kind = NNS_KIND_TENSOR,
                 .rank = drop ? x->rank - 1 : x->rank};
  t.dims = nns__alloc(cx, ((size_t)x->rank + 1) * sizeof *t.dims);
  if (!t.dims) {
    t.rank = -1;
    return t;
  }
  for (int32_t k = 0, o = 0; k < x->rank; k++) {
    if (k == axis && drop)
      continue;
    t.dims[o++] = k == axis ? len : x->dims[k];
  }
  return t;
}

static nns_status split_to_seq_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  nns__type t = {.dtype = nns__in_dtype(cx, 0), .kind = NNS_KIND_TENSOR,
                 .rank = -1};
  if (!x || x->rank < 0) {
    out_seq(cx, 0, &t);
    return NNS_OK;
  }
  if (x->rank == 0)
    return nns__fail(cx, NNS_E_SHAPE, "cannot split a scalar");
  int32_t axis;
  bool drop;
  nns__dim *lens;
  int64_t count;
  nns_status st = split_pieces(cx, x, &axis, &drop, &count, &lens);
  if (st != NNS_OK)
    return st;
  /* The pieces' common length, or a fresh symbol when they differ. */
  nns__dim piece = count > 0 ? lens[0] : nns__fresh(cx);
  for (int64_t k = 1; k < count; k++)
    if (!nns__dim_eq(lens[k], piece))
      piece = nns__fresh(cx);
  if (count < 0 && !nns__has_in(cx, 1))
    piece = nns__dim_known(1);
  t = piece_type(cx, x, axis, drop, piece);
  out_seq(cx, 0, &t);
  return NNS_OK;
}

/* ==== Tracking the elements of a sequence ==== */

/*
 * The element types of sequence v, found by walking back through the
 * sequence ops that built it (SequenceEmpty, Construct, Insert, Erase,
 * SplitToSequence) with known positions. Returns the element count and
 * sets *out (arena), or -1 when the contents are not known exactly.
 * Producers are recognised by their rule, not their name.
 */
static int64_t seq_elems(nns__ictx *cx, const nns__value *v, nns__type **out,
                         int depth) {
  const nns__node *p = v ? v->producer : NULL;
  *out = NULL;
  if (!p || !p->op || depth > SEQ_MAX_DEPTH || v != p->out[0])
    return -1;
  nns__rule_fn rule = p->op->shape;
  nns__type *prev = NULL, *t;
  int64_t n = 0, pos;
  if (rule == seq_empty_shape)
    return 0;
  if (rule == seq_construct_shape) {
    if (p->n_in > SEQ_MAX_ELEMS ||
        !(t = nns__alloc(cx, ((size_t)p->n_in + 1) * sizeof *t)))
      return -1;
    for (int32_t i = 0; i < p->n_in; i++) {
      if (!p->in[i])
        return -1;
      t[i] = p->in[i]->type;
    }
    *out = t;
    return p->n_in;
  }
  if (rule == seq_insert_shape || rule == seq_erase_shape) {
    bool insert = rule == seq_insert_shape;
    int pos_in = insert ? 2 : 1;
    if (p->n_in < (insert ? 2 : 1) || !p->in[0] || (insert && !p->in[1]) ||
        (n = seq_elems(cx, p->in[0], &prev, depth + 1)) < 0)
      return -1;
    const nns__value *pv = p->n_in > pos_in ? p->in[pos_in] : NULL;
    pos = insert ? n : n - 1;
    if (pv && !value_int(pv, &pos))
      return -1;
    if (pos < 0)
      pos += n;
    if (pos < 0 || pos > n || (!insert && pos == n) ||
        n + 1 > SEQ_MAX_ELEMS ||
        !(t = nns__alloc(cx, ((size_t)n + 2) * sizeof *t)))
      return -1;
    int64_t m = 0;
    for (int64_t k = 0; k <= n; k++) {
      if (insert && k == pos)
        t[m++] = p->in[1]->type;
      if (k < n && (insert || k != pos))
        t[m++] = prev[k];
    }
    *out = t;
    return m;
  }
  if (rule == split_to_seq_shape) {
    nns__ictx pcx = *cx;
    pcx.node = (nns__node *)p;
    pcx.op = p->op;
    pcx.opset = p->opset;
    const nns__type *x = nns__in_type(&pcx, 0);
    int32_t axis;
    bool drop;
    nns__dim *lens;
    if (!x || x->rank < 1 ||
        split_pieces(&pcx, x, &axis, &drop, &n, &lens) != NNS_OK || n < 0 ||
        !(t = nns__alloc(cx, ((size_t)n + 1) * sizeof *t)))
      return -1;
    for (int64_t k = 0; k < n; k++)
      t[k] = piece_type(cx, x, axis, drop, lens[k]);
    *out = t;
    return n;
  }
  return -1;
}

static nns_status seq_length_fold(nns__ictx *cx) {
  nns__type *e;
  int64_t n = seq_elems(cx, nns__in(cx, 0), &e, 0);
  nns__const *c = n >= 0 ? nns__out_const(cx, 0) : NULL;
  if (!c)
    return NNS__NOFOLD;
  c->i[0] = nns__dim_known(n);
  return NNS_OK;
}

/* Concatenates along axis (or stacks along a new axis). The other dims are
 * the elements' merged dims; the axis is the sum of the elements' (the
 * count with new_axis) when the elements are known, else fresh. */
static nns_status concat_from_seq_shape(nns__ictx *cx) {
  nns_status st = need_sequence(cx, 0);
  nns__type e = {.rank = -1};
  if (st != NNS_OK)
    return st;
  if (!elem_type(cx, 0, &e) || e.rank < 0) {
    nns__out_shape(cx, 0, e.dtype, -1);
    return NNS_OK;
  }
  bool new_axis = nns__attr_int(cx, "new_axis") != 0;
  int32_t rank = e.rank + (new_axis ? 1 : 0), axis;
  if (rank == 0)
    return nns__fail(cx, NNS_E_SHAPE, "cannot concatenate scalars without "
                     "new_axis");
  st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), rank, &axis, "axis");
  if (st != NNS_OK)
    return st;
  nns__type *el;
  int64_t n = seq_elems(cx, nns__in(cx, 0), &el, 0);
  nns__dim total = nns__fresh(cx);
  if (n > 0 && new_axis) {
    total = nns__dim_known(n);
  } else if (n > 0) {
    total = nns__dim_known(0);
    for (int64_t k = 0; k < n; k++) {
      if (el[k].rank != e.rank) {
        total = nns__fresh(cx);
        break;
      }
      total = nns__add(cx, total, el[k].dims[axis]);
    }
  }
  nns__dim *d = nns__out_shape(cx, 0, e.dtype, rank);
  for (int32_t k = 0, s = 0; d && k < rank; k++) {
    if (k == axis) {
      d[k] = total;
      s += new_axis ? 0 : 1;
    } else {
      d[k] = e.dims[s++];
    }
  }
  return NNS_OK;
}

/* ==== SequenceMap ==== */

/* The body runs once per element: its inputs are an element of each
 * sequence input (tensors pass whole), its outputs are collected into
 * sequences. */
static nns_status seq_map_shape(nns__ictx *cx) {
  const nns__attr *a = nns__attr_get(cx, "body");
  nns__graph *g = a && a->type == NNS__AT_GRAPH ? a->g : NULL;
  if (!g)
    return nns__fail(cx, NNS_E_ATTR, "attribute 'body' must be a graph");
  int n_in = nns__n_in(cx), n_out = nns__n_out(cx);
  if (g->n_inputs != n_in || g->n_outputs != n_out)
    return nns__fail(cx, NNS_E_SHAPE,
                     "body has %d inputs and %d outputs, the node %d and %d",
                     g->n_inputs, g->n_outputs, n_in, n_out);
  nns__type *in = nns__alloc(cx, ((size_t)n_in + 1) * sizeof *in);
  if (!in)
    return nns__fail(cx, NNS_E_NOMEM, "out of memory");
  for (int i = 0; i < n_in; i++) {
    const nns__type *t = nns__in_type(cx, i);
    in[i] = (nns__type){.rank = -1};
    if (t && t->kind == NNS_KIND_SEQUENCE)
      elem_type(cx, i, &in[i]);
    else if (t)
      in[i] = *t;
  }
  nns_status st = cx->infer_subgraph(cx, g, in, n_in);
  if (st != NNS_OK)
    return st;
  for (int i = 0; i < n_out; i++)
    if (g->outputs[i])
      out_seq(cx, i, &g->outputs[i]->type);
  return NNS_OK;
}

/* ==== Optional ==== */

static nns_status optional_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0);
  const nns__attr *a = nns__attr_get(cx, "type");
  nns__type c = {.rank = -1};
  if (t)
    c = *t;
  else if (a && a->type == NNS__AT_TYPE_PROTO && a->tp)
    c = *a->tp;
  else
    return nns__fail(cx, NNS_E_ATTR,
                     "an Optional without input needs attribute 'type'");
  uint8_t inner = c.kind ? c.kind : NNS_KIND_TENSOR;
  nns__out_type(cx, 0, &c);
  nns__out_kind(cx, 0, NNS_KIND_OPTIONAL, inner);
  return NNS_OK;
}

static nns_status optional_has_shape(nns__ictx *cx) {
  nns__out_shape(cx, 0, NNS_DT_BOOL, 0);
  return NNS_OK;
}

/* An optional with no input is known to be empty; one made from a value
 * (or a non-optional input) is known to hold it. */
static nns_status optional_has_fold(nns__ictx *cx) {
  const nns__value *v = nns__in(cx, 0);
  const nns__node *p = v ? v->producer : NULL;
  int known = -1;
  if (!v && cx->op->since >= 18) /* 18: the input itself is optional */
    known = 0;
  else if (v && v->type.kind && v->type.kind != NNS_KIND_OPTIONAL)
    known = 1;
  else if (p && p->op && p->op->shape == optional_shape)
    known = p->n_in > 0 && p->in[0] != NULL;
  nns__const *c = known >= 0 ? nns__out_const(cx, 0) : NULL;
  if (!c)
    return NNS__NOFOLD;
  c->i[0] = nns__dim_known(known);
  return NNS_OK;
}

static nns_status optional_get_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0);
  if (!t) {
    nns__out_shape(cx, 0, 0, -1);
    return NNS_OK;
  }
  nns__type c = *t;
  if (t->kind == NNS_KIND_OPTIONAL) {
    c.kind = t->elem_kind ? t->elem_kind : NNS_KIND_TENSOR;
    c.elem_kind = c.kind == NNS_KIND_SEQUENCE ? NNS_KIND_TENSOR : 0;
  }
  nns__out_type(cx, 0, &c);
  if (nns__has_out(cx, 0)) /* out_type maps kind 0 to TENSOR; keep ours */
    nns__out_kind(cx, 0, c.kind ? c.kind : NNS_KIND_TENSOR, c.elem_kind);
  return NNS_OK;
}

/* ==== Costs ==== */

/* SplitToSequence: the pieces partition the input; each element is read
 * once and written once. */
static nns_status split_to_seq_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n = nns__in_count(cx, c, 0);
  if (n < 0)
    return NNS__UNCOUNTED;
  c->flops = c->macs = 0;
  c->dmas = nns__cmul(c, 2, n);
  return NNS_OK;
}

/* ConcatFromSequence: every element of the output is read from an element
 * of the sequence and written once. */
static nns_status concat_from_seq_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n = nns__out_count(cx, c, 0);
  if (n < 0)
    return NNS__UNCOUNTED;
  c->flops = c->macs = 0;
  c->dmas = nns__cmul(c, 2, n);
  return NNS_OK;
}

/*
 * SequenceMap: the body's cost (from the analysis, on the element types it
 * was inferred with) times the number of elements, when the first sequence
 * input's length is known (seq_elems). Otherwise one run of the body,
 * flagged unbounded. Collecting the outputs into sequences is a view.
 */
static nns_status seq_map_cost(nns__ictx *cx, nns__cost *c) {
  const nns__attr *a = nns__attr_get(cx, "body");
  nns__graph *g = a && a->type == NNS__AT_GRAPH ? a->g : NULL;
  nns__cost body = {0};
  if (!cx->cost_subgraph || !g)
    return NNS__UNCOUNTED;
  nns_status st = cx->cost_subgraph(cx, g, &body);
  if (st != NNS_OK)
    return st;
  *c = (nns__cost){0};
  int64_t n = -1;
  for (int i = 0; i < nns__n_in(cx) && n < 0; i++) {
    const nns__type *t = nns__in_type(cx, i);
    nns__type *el;
    if (t && t->kind == NNS_KIND_SEQUENCE)
      n = seq_elems(cx, nns__in(cx, i), &el, 0);
  }
  if (n < 0) {
    n = 1;
    c->unbounded = true;
  }
  c->flops = nns__cmul(c, body.flops, n);
  c->macs = nns__cmul(c, body.macs, n);
  c->dmas = nns__cmul(c, body.dmas, n);
  c->bytes = nns__cmul(c, body.bytes, n);
  c->symbolic |= body.symbolic;
  c->unbounded |= body.unbounded;
  c->partial |= body.partial;
  c->overflow |= body.overflow;
  return NNS_OK;
}

/* ==== Table ==== */

static const nns__attr_spec empty_attrs[] = {NNS__A_INT("dtype", 1),
                                             NNS__A_END};
static const nns__attr_spec split_attrs[] = {
    NNS__A_INT("axis", 0), NNS__A_INT("keepdims", 1), NNS__A_END};
static const nns__attr_spec concat_attrs[] = {
    NNS__A_REQ("axis", INT), NNS__A_INT("new_axis", 0), NNS__A_END};
static const nns__attr_spec map_attrs[] = {NNS__A_REQ("body", GRAPH),
                                           NNS__A_END};
static const nns__attr_spec optional_attrs[] = {NNS__A_OPT("type", TYPE_PROTO),
                                                NNS__A_END};

const nns__op nns__ops_sequence[] = {
    {"", "SequenceEmpty", 11, NNS__OPSET_MAX, "", empty_attrs, seq_empty_shape,
     NULL,
     NNS__VIEW},
    {"", "SequenceConstruct", 11, NNS__OPSET_MAX, "a", NULL,
     seq_construct_shape, NULL,
     NNS__VIEW},
    {"", "SequenceInsert", 11, NNS__OPSET_MAX, "aac", NULL, seq_insert_shape,
     NULL,
     NNS__VIEW},
    {"", "SequenceAt", 11, NNS__OPSET_MAX, "ac", NULL, seq_at_shape, NULL,
     NNS__VIEW},
    {"", "SequenceErase", 11, NNS__OPSET_MAX, "ac", NULL, seq_erase_shape, NULL,
     NNS__VIEW},
    {"", "SequenceLength", 11, NNS__OPSET_MAX, "a", NULL, seq_length_shape,
     seq_length_fold, true, NNS__VIEW},
    {"", "SplitToSequence", 11, NNS__OPSET_MAX, "ac", split_attrs,
     split_to_seq_shape,
     NULL, .cost = split_to_seq_cost},
    {"", "ConcatFromSequence", 11, NNS__OPSET_MAX, "a", concat_attrs,
     concat_from_seq_shape, NULL, .cost = concat_from_seq_cost},
    {"", "SequenceMap", 17, NNS__OPSET_MAX, "a", map_attrs, seq_map_shape, NULL,
     .cost = seq_map_cost},
    {"", "Optional", 15, NNS__OPSET_MAX, "a", optional_attrs, optional_shape,
     NULL,
     NNS__VIEW},
    {"", "OptionalHasElement", 15, 17, "a", NULL,
     optional_has_shape,
     optional_has_fold, true, NNS__VIEW},
    /* 18: a plain tensor (or nothing) is accepted where an optional was. */
    {"", "OptionalHasElement", 18, NNS__OPSET_MAX, "a", NULL,
     optional_has_shape,
     optional_has_fold, true, NNS__VIEW},
    {"", "OptionalGetElement", 15, 17, "a", NULL,
     optional_get_shape, NULL,
     NNS__VIEW},
    {"", "OptionalGetElement", 18, NNS__OPSET_MAX, "a", NULL,
     optional_get_shape, NULL,
     NNS__VIEW},
    NNS__OP_END,
};
