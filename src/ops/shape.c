/*
 * shape.c - operators that rearrange a tensor without looking at its values:
 * Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Expand,
 * Tile, Pad, and the shape queries Shape, Size and Identity. (Indexing ops -
 * Slice, Gather, Scatter, ... - are in shape_index.c.)
 *
 * These carry the shape arithmetic of PyTorch and Hugging Face exports:
 * Shape(x) -> Gather -> Unsqueeze -> Concat -> Reshape. Their folds copy
 * integer elements as nns__dim, so a symbolic dim read by Shape comes back
 * out of Reshape as the same symbol, and Reshape's -1 is solved with the
 * monomial arithmetic of sym.c: (batch*seq*4096) / (batch*32*128) = seq.
 *
 * Cost (docs/metrics.md): the reshaping ops and queries are views (all
 * zero); the others move data, reading their first input (Concat: every
 * input) and writing their outputs. Shapes, axes, split sizes, repeats and
 * pads are arguments and not counted as reads. Flatten ends the spatial
 * structure: its output sees the whole input.
 */
#include <string.h>

#include "rf_axes.h"
#include "rf_period.h"
#include "shape_util.h"

/* ==== Common ==== */

static nns_status rank_limit(nns__ictx *cx, int64_t rank) {
  return nns__fail(cx, NNS_E_LIMIT, "output rank %lld is beyond %d",
                   (long long)rank, NNS__RANK_LIMIT);
}

static nns_status missing_input(nns__ictx *cx, const char *what) {
  return nns__fail(cx, NNS_E_MODEL, "required input '%s' is missing", what);
}

/* The fold of every op that keeps the elements in order (Reshape, Flatten,
 * Squeeze, Unsqueeze, Identity). */
static nns_status copy_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  if (!x)
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  if (!y || y->numel != x->numel)
    return NNS__NOFOLD;
  for (int64_t k = 0; k < y->numel; k++)
    if (!nns__elem_copy(y, k, x, k))
      return NNS__NOFOLD;
  return NNS_OK;
}

/* ==== Reshape ==== */

static nns_status reshape_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  const nns__dim *s;
  int64_t n;
  nns__arg_state st =
      nns__ints_arg(cx, cx->op->since < 5 ? "shape" : NULL, 1, &s, &n);
  if (st == NNS__ARG_ABSENT)
    return cx->op->since < 5
               ? nns__fail(cx, NNS_E_ATTR, "attribute 'shape' is missing")
               : missing_input(cx, "shape");
  if (n > NNS__RANK_LIMIT)
    return rank_limit(cx, n);
  if (st == NNS__ARG_UNKNOWN) {
    /* The target's length still gives the rank. */
    nns__out_shape(cx, 0, dt, n >= 0 ? (int32_t)n : -1);
    return NNS_OK;
  }
  bool allowzero = cx->op->since >= 14 && nns__attr_int(cx, "allowzero");
  int32_t r = (int32_t)n;
  nns__dim *d = nns__out_shape(cx, 0, dt, r);
  if (!d && r > 0)
    return NNS_OK; /* output omitted, or out of memory */
  int32_t infer = -1;
  bool zero = false;
  for (int32_t k = 0; k < r; k++) {
    nns__dim e = s[k];
    if (e.sym) {
      d[k] = e; /* a dim read by Shape upstream: the same symbol */
    } else if (e.v == -1) {
      if (infer >= 0)
        return nns__fail(cx, NNS_E_SHAPE,
                         "target shape has -1 at both index %d and %d", infer,
                         k);
      infer = k;
    } else if (e.v < -1) {
      return nns__fail(cx, NNS_E_SHAPE, "target shape has %lld at index %d",
                       (long long)e.v, k);
    } else if (e.v == 0 && !allowzero) {
      /* 0 copies the input's dim at the same index. */
      if (x && x->rank >= 0 && k >= x->rank)
        return nns__fail(cx, NNS_E_SHAPE,
                         "target shape has 0 at index %d, past the input's "
                         "rank %d",
                         k, x->rank);
      if (x && x->rank >= 0)
        d[k] = x->dims[k];
    } else {
      zero |= e.v == 0;
      d[k] = e;
    }
  }
  if (allowzero && zero && infer >= 0)
    return nns__fail(cx, NNS_E_SHAPE,
                     "target shape has both 0 and -1 with allowzero=1");
  if (!x || x->rank < 0)
    return NNS_OK;
  nns__dim total = nns__dims_product(cx, x->dims, x->rank);
  nns__dim other = nns__dim_known(1);
  for (int32_t k = 0; k < r; k++)
    if (k != infer)
      other = nns__mul(cx, other, d[k]);
  char a[64], b[64];
  if (infer >= 0) {
    if (!other.sym && other.v == 0)
      return NNS_OK; /* 0 * anything: -1 is not determined */
    if (!total.sym && !other.sym && total.v % other.v != 0)
      return nns__fail(cx, NNS_E_SHAPE,
                       "cannot reshape %lld elements into a shape whose "
                       "other dims hold %lld each",
                       (long long)total.v, (long long)other.v);
    /* Exact when the symbols cancel: (batch*seq*4096)/(4096) = batch*seq. */
    d[infer] = nns__div(cx, total, other);
  } else if (!total.sym && !other.sym && total.v != other.v) {
    return nns__fail(cx, NNS_E_SHAPE,
                     "cannot reshape %s elements into %s elements",
                     nns__dim_str(cx->m, total, a, sizeof a),
                     nns__dim_str(cx->m, other, b, sizeof b));
  }
  return NNS_OK;
}

static const nns__attr_spec reshape1_attrs[] = {
    NNS__A_OPT("shape", INTS), NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
static const nns__attr_spec reshape14_attrs[] = {NNS__A_INT("allowzero", 0),
                                                 NNS__A_END};

/* ==== Flatten ==== */

static nns_status flatten_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  nns__dim *d = nns__out_shape(cx, 0, nns__in_dtype(cx, 0), 2);
  if (!x || x->rank < 0 || !d)
    return NNS_OK;
  int64_t axis = nns__attr_int(cx, "axis");
  /* The axis ranges over [-r, r]: a split point, not a dim. (Negative
   * axes, documented from opset 11, are accepted at every opset in this
   * family: PyTorch exports them earlier and runtimes accept them.) */
  if (axis < -(int64_t)x->rank || axis > x->rank)
    return nns__fail(cx, NNS_E_ATTR, "axis %lld is out of range for rank %d",
                     (long long)axis, x->rank);
  int32_t a = (int32_t)(axis < 0 ? axis + x->rank : axis);
  d[0] = nns__dims_product(cx, x->dims, a);
  d[1] = nns__dims_product(cx, x->dims + a, x->rank - a);
  return NNS_OK;
}

static const nns__attr_spec axis1_attrs[] = {NNS__A_INT("axis", 1), NNS__A_END};

/* ==== Squeeze, Unsqueeze ==== */

static nns_status squeeze_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  const nns__dim *ax;
  int64_t n;
  nns__arg_state st =
      nns__ints_arg(cx, cx->op->since < 13 ? "axes" : NULL, 1, &ax, &n);
  if (!x || x->rank < 0 || x->rank > NNS__RANK_LIMIT) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  int32_t r = x->rank;
  bool drop[NNS__RANK_LIMIT] = {false};
  int32_t dropped = 0;
  if (st == NNS__ARG_ABSENT) {
    /* Every dim that is 1 goes; a symbolic dim may or may not be 1. */
    for (int32_t k = 0; k < r; k++) {
      if (x->dims[k].sym) {
        nns__out_shape(cx, 0, dt, -1);
        return NNS_OK;
      }
      if (x->dims[k].v == 1)
        drop[k] = true, dropped++;
    }
  } else if (st == NNS__ARG_UNKNOWN) {
    nns__out_shape(cx, 0, dt, n >= 0 && n <= r ? (int32_t)(r - n) : -1);
    return NNS_OK;
  } else {
    for (int64_t i = 0; i < n; i++) {
      int32_t a;
      if (ax[i].sym) {
        nns__out_shape(cx, 0, dt, -1);
        return NNS_OK;
      }
      nns_status s = nns__axis_or_fail(cx, ax[i].v, r, &a, "axis");
      if (s != NNS_OK)
        return s;
      if (drop[a])
        return nns__fail(cx, NNS_E_ATTR, "axis %d is listed twice", a);
      if (!x->dims[a].sym && x->dims[a].v != 1)
        return nns__fail(cx, NNS_E_SHAPE,
                         "cannot squeeze axis %d: its dim is %lld, not 1", a,
                         (long long)x->dims[a].v);
      drop[a] = true;
      dropped++;
    }
  }
  nns__dim *d = nns__out_shape(cx, 0, dt, r - dropped);
  for (int32_t k = 0, j = 0; d && k < r; k++)
    if (!drop[k])
      d[j++] = x->dims[k];
  return NNS_OK;
}

static nns_status unsqueeze_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  const nns__dim *ax;
  int64_t n;
  nns__arg_state st =
      nns__ints_arg(cx, cx->op->since < 13 ? "axes" : NULL, 1, &ax, &n);
  if (st == NNS__ARG_ABSENT)
    return missing_input(cx, "axes");
  if (!x || x->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  if (n >= 0 && x->rank + n > NNS__RANK_LIMIT)
    return rank_limit(cx, x->rank + n);
  int32_t r = x->rank + (int32_t)n;
  if (st == NNS__ARG_UNKNOWN || !nns__dims_known(ax, n)) {
    nns__out_shape(cx, 0, dt, n >= 0 ? r : -1);
    return NNS_OK;
  }
  bool ins[NNS__RANK_LIMIT] = {false};
  for (int64_t i = 0; i < n; i++) {
    int32_t a;
    nns_status s = nns__axis_or_fail(cx, ax[i].v, r, &a, "axis");
    if (s != NNS_OK)
      return s;
    if (ins[a])
      return nns__fail(cx, NNS_E_ATTR, "axis %d is listed twice", a);
    ins[a] = true;
  }
  nns__dim *d = nns__out_shape(cx, 0, dt, r);
  for (int32_t k = 0, j = 0; d && k < r; k++)
    d[k] = ins[k] ? nns__dim_known(1) : x->dims[j++];
  return NNS_OK;
}

static const nns__attr_spec axes_opt_attrs[] = {NNS__A_OPT("axes", INTS),
                                                NNS__A_END};
static const nns__attr_spec axes_req_attrs[] = {NNS__A_REQ("axes", INTS),
                                                NNS__A_END};

/* ==== Transpose ==== */

/* The permutation: the attribute, or the reverse of the dims. Returns its
 * length, or -1 when it cannot be known (no perm and unknown rank). */
static int32_t transpose_perm(nns__ictx *cx, int64_t *perm) {
  const int64_t *p;
  int32_t n = nns__attr_ints(cx, "perm", &p);
  int32_t r = nns__in_rank(cx, 0);
  if (n < 0) {
    for (int32_t k = 0; k < r && k < NNS__RANK_LIMIT; k++)
      perm[k] = r - 1 - k;
    return r;
  }
  for (int32_t k = 0; k < n && k < NNS__RANK_LIMIT; k++)
    perm[k] = p[k];
  return n;
}

static nns_status transpose_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  int64_t perm[NNS__RANK_LIMIT];
  int32_t n = transpose_perm(cx, perm);
  if (n > NNS__RANK_LIMIT)
    return rank_limit(cx, n);
  if (x && x->rank >= 0 && n != x->rank)
    return nns__fail(cx, NNS_E_ATTR, "perm has %d entries for rank %d", n,
                     x->rank);
  bool seen[NNS__RANK_LIMIT] = {false};
  for (int32_t k = 0; k < n; k++) {
    if (perm[k] < 0 || perm[k] >= n || seen[perm[k]])
      return nns__fail(cx, NNS_E_ATTR,
                       "perm is not a permutation of 0..%d (entry %d is "
                       "%lld)",
                       n - 1, k, (long long)perm[k]);
    seen[perm[k]] = true;
  }
  nns__dim *d = nns__out_shape(cx, 0, dt, n);
  if (!x || x->rank < 0)
    return NNS_OK;
  for (int32_t k = 0; d && k < n; k++)
    d[k] = x->dims[perm[k]];
  return NNS_OK;
}

static nns_status transpose_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  nns__const *y = x ? nns__out_const(cx, 0) : NULL;
  if (!y)
    return NNS__NOFOLD;
  const nns__type *tx = nns__in_type(cx, 0), *ty = nns__out_type_of(cx, 0);
  int64_t perm[NNS__RANK_LIMIT], xs[NNS__RANK_LIMIT], c[NNS__RANK_LIMIT];
  if (transpose_perm(cx, perm) != tx->rank || ty->rank != tx->rank)
    return NNS__NOFOLD;
  nns__strides(tx, xs);
  for (int64_t o = 0; o < y->numel; o++) {
    nns__unravel(ty, o, c);
    int64_t src = 0;
    for (int32_t k = 0; k < ty->rank; k++)
      src += c[k] * xs[perm[k]];
    if (!nns__elem_copy(y, o, x, src))
      return NNS__NOFOLD;
  }
  return NNS_OK;
}

static const nns__attr_spec transpose_attrs[] = {NNS__A_OPT("perm", INTS),
                                                 NNS__A_END};

/* ==== Concat ==== */

static nns_status concat_shape(nns__ictx *cx) {
  int n_in = nns__n_in(cx);
  int32_t dt = 0, r = -1;
  for (int i = 0; i < n_in; i++) {
    if (!nns__has_in(cx, i))
      return nns__fail(cx, NNS_E_MODEL, "input %d is missing", i);
    if (!dt)
      dt = nns__in_dtype(cx, i);
    if (r < 0)
      r = nns__in_rank(cx, i);
  }
  if (n_in == 0)
    return nns__fail(cx, NNS_E_MODEL, "Concat has no inputs");
  if (r < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  int32_t axis;
  nns_status s =
      nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), r, &axis, "axis");
  if (s != NNS_OK)
    return s;
  nns__dim *d = nns__out_shape(cx, 0, dt, r);
  if (!d)
    return NNS_OK;
  nns__dim sum = nns__dim_known(0);
  bool first = true, sum_known = true;
  for (int i = 0; i < n_in; i++) {
    const nns__type *t = nns__in_type(cx, i);
    if (t->rank < 0) {
      sum_known = false;
      continue;
    }
    if (t->rank != r)
      return nns__fail(cx, NNS_E_SHAPE, "input %d has rank %d, input 0 %d", i,
                       t->rank, r);
    for (int32_t k = 0; k < r; k++) {
      nns__dim e = t->dims[k];
      if (k == axis)
        continue;
      if (first || (d[k].sym && !e.sym)) {
        d[k] = e; /* prefer a known number; equal dims otherwise */
      } else if (!d[k].sym && !e.sym && d[k].v != e.v) {
        return nns__fail(cx, NNS_E_SHAPE,
                         "dim %d is %lld in input %d but %lld in an earlier "
                         "input",
                         k, (long long)e.v, i, (long long)d[k].v);
      }
    }
    first = false;
    sum = nns__add(cx, sum, t->dims[axis]);
  }
  d[axis] = sum_known ? sum : nns__fresh(cx);
  return NNS_OK;
}

static nns_status concat_fold(nns__ictx *cx) {
  nns__const *y = nns__out_const(cx, 0);
  const nns__type *ty = nns__out_type_of(cx, 0);
  int n_in = nns__n_in(cx);
  if (!y || ty->rank < 1)
    return NNS__NOFOLD;
  int32_t axis;
  if (!nns__axis(nns__attr_int(cx, "axis"), ty->rank, &axis))
    return NNS__NOFOLD;
  int64_t outer = 1, inner = 1;
  for (int32_t k = 0; k < axis; k++)
    outer *= ty->dims[k].v;
  for (int32_t k = axis + 1; k < ty->rank; k++)
    inner *= ty->dims[k].v;
  for (int i = 0; i < n_in; i++)
    if (!nns__fold_in(cx, i))
      return NNS__NOFOLD;
  int64_t o = 0;
  for (int64_t b = 0; b < outer; b++) {
    for (int i = 0; i < n_in; i++) {
      const nns__const *x = nns__fold_in(cx, i);
      int64_t chunk = nns__in_dim(cx, i, axis).v * inner;
      for (int64_t e = 0; e < chunk; e++, o++)
        if (o >= y->numel || !nns__elem_copy(y, o, x, b * chunk + e))
          return NNS__NOFOLD;
    }
  }
  return o == y->numel ? NNS_OK : NNS__NOFOLD;
}

static const nns__attr_spec concat1_attrs[] = {NNS__A_INT("axis", 1),
                                               NNS__A_END};
static const nns__attr_spec concat4_attrs[] = {NNS__A_REQ("axis", INT),
                                               NNS__A_END};

/* ==== Split ==== */

/* The split sizes: attribute "split" before opset 13 (opset 1 also took
 * them as input 1), input 1 from opset 13. */
static nns__arg_state split_sizes(nns__ictx *cx, const nns__dim **s,
                                  int64_t *n) {
  if (cx->op->since >= 13)
    return nns__ints_arg(cx, NULL, 1, s, n);
  nns__arg_state st = nns__ints_arg(cx, "split", 1, s, n);
  if (st == NNS__ARG_ABSENT && cx->op->since == 1)
    st = nns__ints_arg(cx, NULL, 1, s, n);
  return st;
}

static nns_status split_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  int n_out = nns__n_out(cx);
  if (!x || x->rank < 0) {
    for (int i = 0; i < n_out; i++)
      nns__out_shape(cx, i, dt, -1);
    return NNS_OK;
  }
  int32_t axis;
  nns_status s =
      nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank, &axis, "axis");
  if (s != NNS_OK)
    return s;
  nns__dim whole = x->dims[axis];
  const nns__dim *sz;
  int64_t n;
  nns__arg_state st = split_sizes(cx, &sz, &n);
  if (st == NNS__ARG_KNOWN) {
    if (n != n_out)
      return nns__fail(cx, NNS_E_ATTR, "split has %lld sizes for %d outputs",
                       (long long)n, n_out);
    nns__dim sum = nns__dim_known(0);
    for (int64_t i = 0; i < n; i++) {
      if (!sz[i].sym && sz[i].v < 0)
        return nns__fail(cx, NNS_E_ATTR, "split size %lld is negative",
                         (long long)sz[i].v);
      sum = nns__add(cx, sum, sz[i]);
    }
    if (!sum.sym && !whole.sym && sum.v != whole.v)
      return nns__fail(cx, NNS_E_SHAPE,
                       "split sizes add up to %lld, the dim is %lld",
                       (long long)sum.v, (long long)whole.v);
  } else if (st == NNS__ARG_ABSENT && nns__spec_has(cx, "num_outputs") &&
             nns__attr_has(cx, "num_outputs")) {
    /* Split-18: num_outputs parts of ceil(dim / num_outputs), the last
     * one what is left (smaller when the dim does not divide). */
    int64_t k = nns__attr_int(cx, "num_outputs");
    if (k != n_out)
      return nns__fail(cx, NNS_E_ATTR, "num_outputs is %lld for %d outputs",
                       (long long)k, n_out);
    if (!whole.sym && whole.v > 0 && (k - 1) * ((whole.v + k - 1) / k) >=
                                         whole.v)
      return nns__fail(cx, NNS_E_SHAPE, "dim %lld does not split into %lld "
                       "parts", (long long)whole.v, (long long)k);
    if (!whole.sym && whole.v % k != 0) {
      int64_t part = (whole.v + k - 1) / k;
      for (int i = 0; i < n_out; i++) {
        nns__dim *d = nns__out_shape(cx, i, dt, x->rank);
        if (!d)
          continue;
        nns__dims_copy(d, x->dims, x->rank);
        d[axis] = nns__dim_known(i + 1 < n_out ? part
                                               : whole.v - part * (k - 1));
      }
      return NNS_OK;
    }
  } else if (st == NNS__ARG_ABSENT && n_out > 0 && !whole.sym &&
             whole.v % n_out != 0) {
    return nns__fail(cx, NNS_E_SHAPE,
                     "dim %lld does not split into %d equal parts",
                     (long long)whole.v, n_out);
  }
  for (int i = 0; i < n_out; i++) {
    nns__dim *d = nns__out_shape(cx, i, dt, x->rank);
    if (!d)
      continue;
    nns__dims_copy(d, x->dims, x->rank);
    if (st == NNS__ARG_KNOWN)
      d[axis] = sz[i];
    else if (st == NNS__ARG_ABSENT)
      d[axis] = nns__div(cx, whole, nns__dim_known(n_out));
    else
      d[axis] = nns__fresh(cx);
  }
  return NNS_OK;
}

static nns_status split_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  if (!x)
    return NNS__NOFOLD;
  const nns__type *tx = nns__in_type(cx, 0);
  int32_t axis;
  if (!nns__axis(nns__attr_int(cx, "axis"), tx->rank, &axis))
    return NNS__NOFOLD;
  int64_t outer = 1, inner = 1, whole = tx->dims[axis].v;
  for (int32_t k = 0; k < axis; k++)
    outer *= tx->dims[k].v;
  for (int32_t k = axis + 1; k < tx->rank; k++)
    inner *= tx->dims[k].v;
  /* Every output's size along the axis, to know where the next begins. */
  int64_t off = 0;
  for (int i = 0; i < nns__n_out(cx); i++) {
    const nns__type *ty = nns__out_type_of(cx, i);
    if (!ty || !nns__type_static(ty) || ty->rank != tx->rank)
      return NNS__NOFOLD;
    int64_t len = ty->dims[axis].v;
    if (len < 0 || len > whole - off)
      return NNS__NOFOLD;
    nns__const *y = nns__out_const(cx, i);
    if (!y)
      return NNS__NOFOLD;
    int64_t o = 0;
    for (int64_t b = 0; b < outer; b++)
      for (int64_t e = 0; e < len * inner; e++, o++)
        if (!nns__elem_copy(y, o, x, (b * whole + off) * inner + e))
          return NNS__NOFOLD;
    off += len;
  }
  return NNS_OK;
}

/* ==== CenterCropPad ==== */

/*
 * CenterCropPad (opset 18): each axis in `axes` (all when absent) becomes
 * the matching value of `shape`, cropped or padded about the centre; the
 * other axes are kept. Unknown shape values leave fresh symbols.
 */
static nns_status center_crop_pad_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  if (!x || x->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  const int64_t *axes;
  int32_t n_axes = nns__attr_ints(cx, "axes", &axes);
  const nns__dim *v = NULL;
  int64_t n = 0;
  bool known = nns__in_ints(cx, 1, &v, &n);
  int64_t want = n_axes < 0 ? x->rank : n_axes;
  if (known && n != want)
    return nns__fail(cx, NNS_E_SHAPE, "shape has %lld values for %lld axes",
                     (long long)n, (long long)want);
  nns__dim *d = nns__out_dims(cx, 0, dt, x->rank);
  if (!d)
    return NNS_OK;
  nns__dims_copy(d, x->dims, x->rank);
  for (int64_t k = 0; k < want; k++) {
    int32_t a = (int32_t)k;
    if (n_axes >= 0) {
      nns_status st = nns__axis_or_fail(cx, axes[k], x->rank, &a, "axes");
      if (st != NNS_OK)
        return st;
    }
    d[a] = known ? v[k] : nns__fresh(cx);
  }
  return NNS_OK;
}

static const nns__attr_spec center_crop_pad_attrs[] = {
    NNS__A_OPT("axes", INTS), NNS__A_END};

static const nns__attr_spec split1_attrs[] = {
    NNS__A_INT("axis", 0), NNS__A_OPT("split", INTS), NNS__A_END};
static const nns__attr_spec split13_attrs[] = {NNS__A_INT("axis", 0),
                                               NNS__A_END};
static const nns__attr_spec split18_attrs[] = {
    NNS__A_INT("axis", 0), NNS__A_OPT("num_outputs", INT), NNS__A_END};

/* ==== Shape, Size, Identity ==== */

/* The slice [*start, *end) of the dims Shape reports (opset 15 start/end,
 * clamped as the spec says); false when the input's rank is unknown. */
static bool shape_range(nns__ictx *cx, int32_t *start, int32_t *end) {
  int32_t r = nns__in_rank(cx, 0);
  if (r < 0)
    return false;
  int64_t s = 0, e = r;
  if (cx->op->since >= 15) {
    s = nns__attr_int(cx, "start");
    if (nns__attr_has(cx, "end"))
      e = nns__attr_int(cx, "end");
  }
  s = s < 0 ? s + r : s;
  e = e < 0 ? e + r : e;
  s = s < 0 ? 0 : s > r ? r : s;
  e = e < 0 ? 0 : e > r ? r : e;
  *start = (int32_t)s;
  *end = (int32_t)(e < s ? s : e);
  return true;
}

static nns_status shape_shape(nns__ictx *cx) {
  int32_t s, e;
  nns__dim *d = nns__out_shape(cx, 0, NNS_DT_INT64, 1);
  if (d && shape_range(cx, &s, &e))
    d[0] = nns__dim_known(e - s);
  return NNS_OK;
}

/* Needs no constant input: the dims themselves are the values. */
static nns_status shape_fold(nns__ictx *cx) {
  int32_t s, e;
  if (!shape_range(cx, &s, &e))
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  if (!y || y->numel != e - s || !y->i)
    return NNS__NOFOLD;
  for (int32_t k = s; k < e; k++)
    y->i[k - s] = nns__in_dim(cx, 0, k);
  return NNS_OK;
}

static const nns__attr_spec shape15_attrs[] = {
    NNS__A_INT("start", 0), NNS__A_OPT("end", INT), NNS__A_END};

static nns_status size_shape(nns__ictx *cx) {
  nns__out_shape(cx, 0, NNS_DT_INT64, 0);
  return NNS_OK;
}

static nns_status size_fold(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  nns__const *y = x && x->rank >= 0 ? nns__out_const(cx, 0) : NULL;
  if (!y || !y->i)
    return NNS__NOFOLD;
  y->i[0] = nns__dims_product(cx, x->dims, x->rank);
  return NNS_OK;
}

static nns_status identity_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

/* ==== Expand ==== */

static nns_status expand_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  const nns__dim *s;
  int64_t n;
  nns__arg_state st = nns__ints_arg(cx, NULL, 1, &s, &n);
  if (st == NNS__ARG_ABSENT)
    return missing_input(cx, "shape");
  if (n > NNS__RANK_LIMIT)
    return rank_limit(cx, n);
  if (!x || x->rank < 0 || n < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  int32_t r = x->rank > n ? x->rank : (int32_t)n;
  if (st == NNS__ARG_UNKNOWN) {
    /* A known dim other than 1 survives any broadcast that succeeds. */
    nns__dim *d = nns__out_shape(cx, 0, dt, r);
    for (int32_t k = 0; d && k < x->rank; k++)
      if (!x->dims[k].sym && x->dims[k].v != 1)
        d[r - x->rank + k] = x->dims[k];
    return NNS_OK;
  }
  for (int64_t k = 0; k < n; k++)
    if (!s[k].sym && s[k].v < 0)
      return nns__fail(cx, NNS_E_SHAPE, "target shape has %lld at index %lld",
                       (long long)s[k].v, (long long)k);
  int32_t rank;
  nns__dim *dims;
  nns_status status =
      nns__broadcast_shapes(cx, x->rank, x->dims, (int32_t)n, s, &rank, &dims);
  if (status != NNS_OK)
    return status;
  nns__dim *d = nns__out_shape(cx, 0, dt, rank);
  if (d)
    nns__dims_copy(d, dims, rank);
  return NNS_OK;
}

/* Expand and Tile: output coordinate c reads input coordinate c mod dim,
 * aligned to the right (a broadcast dim of 1 always reads index 0). */
static nns_status repeat_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  nns__const *y = x ? nns__out_const(cx, 0) : NULL;
  if (!y)
    return NNS__NOFOLD;
  const nns__type *tx = nns__in_type(cx, 0), *ty = nns__out_type_of(cx, 0);
  if (ty->rank < tx->rank)
    return NNS__NOFOLD;
  int64_t xs[NNS__RANK_LIMIT], c[NNS__RANK_LIMIT];
  nns__strides(tx, xs);
  int32_t lead = ty->rank - tx->rank;
  for (int64_t o = 0; o < y->numel; o++) {
    nns__unravel(ty, o, c);
    int64_t src = 0;
    for (int32_t k = 0; k < tx->rank; k++) {
      int64_t d = tx->dims[k].v;
      if (d == 0)
        return NNS__NOFOLD;
      src += (c[lead + k] % d) * xs[k];
    }
    if (!nns__elem_copy(y, o, x, src))
      return NNS__NOFOLD;
  }
  return NNS_OK;
}

/* ==== Tile ==== */

static nns_status tile_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  if (!x || x->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  nns__dim *d = nns__out_shape(cx, 0, dt, x->rank);
  if (!d)
    return NNS_OK;
  const nns__dim *rep;
  int64_t n;
  if (cx->op->since < 6) {
    /* Tile-1: scalar inputs `tiles` and `axis`. */
    const int64_t *t, *a;
    int64_t nt, na;
    nns__dims_copy(d, x->dims, x->rank);
    int32_t axis;
    if (!nns__in_known_ints(cx, 1, &t, &nt) ||
        !nns__in_known_ints(cx, 2, &a, &na) || nt != 1 || na != 1) {
      if (nns__in_known_ints(cx, 2, &a, &na) && na == 1 &&
          nns__axis(a[0], x->rank, &axis))
        d[axis] = nns__fresh(cx);
      else
        nns__out_shape(cx, 0, dt, x->rank);
      return NNS_OK;
    }
    nns_status s = nns__axis_or_fail(cx, a[0], x->rank, &axis, "axis");
    if (s != NNS_OK)
      return s;
    if (t[0] < 0)
      return nns__fail(cx, NNS_E_SHAPE, "tiles is %lld", (long long)t[0]);
    d[axis] = nns__mul(cx, x->dims[axis], nns__dim_known(t[0]));
    return NNS_OK;
  }
  nns__arg_state st = nns__ints_arg(cx, NULL, 1, &rep, &n);
  if (st == NNS__ARG_ABSENT)
    return missing_input(cx, "repeats");
  if (st == NNS__ARG_UNKNOWN)
    return NNS_OK;
  if (n != x->rank)
    return nns__fail(cx, NNS_E_SHAPE, "repeats has %lld entries for rank %d",
                     (long long)n, x->rank);
  for (int32_t k = 0; k < x->rank; k++) {
    if (!rep[k].sym && rep[k].v < 0)
      return nns__fail(cx, NNS_E_SHAPE, "repeats[%d] is %lld", k,
                       (long long)rep[k].v);
    d[k] = nns__mul(cx, x->dims[k], rep[k]);
  }
  return NNS_OK;
}

/* ==== Pad ==== */

typedef enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP, PAD_BAD } pad_mode;

/* wrap is opset 19's. */
static pad_mode pad_mode_of(const nns__ictx *cx) {
  const char *m = nns__attr_str(cx, "mode");
  return strcmp(m, "constant") == 0                       ? PAD_CONSTANT
         : strcmp(m, "reflect") == 0                      ? PAD_REFLECT
         : strcmp(m, "edge") == 0                         ? PAD_EDGE
         : strcmp(m, "wrap") == 0 && cx->op->since >= 19 ? PAD_WRAP
                                                          : PAD_BAD;
}

/*
 * The pads, 2 per axis of X. From opset 18 an `axes` input (input 3) says
 * which axes the pads are for; they are spread here to every axis (0 on
 * the others), so the shape, fold and field rules read one form.
 */
static nns__arg_state pad_amounts(nns__ictx *cx, const nns__dim **p,
                                  int64_t *n) {
  const char *attr = cx->op->since < 2    ? "paddings"
                     : cx->op->since < 11 ? "pads"
                                          : NULL;
  nns__arg_state st = nns__ints_arg(cx, attr, 1, p, n);
  if (st != NNS__ARG_KNOWN || cx->op->since < 18 || !nns__has_in(cx, 3))
    return st;
  int32_t r = nns__in_rank(cx, 0);
  const int64_t *axes;
  int64_t na;
  if (r < 0 || !nns__in_known_ints(cx, 3, &axes, &na) || 2 * na != *n) {
    *n = -1;
    return NNS__ARG_UNKNOWN;
  }
  nns__dim *full = nns__alloc(cx, sizeof *full * 2 * (size_t)(r ? r : 1));
  if (!full) {
    *n = -1;
    return NNS__ARG_UNKNOWN;
  }
  for (int32_t k = 0; k < 2 * r; k++)
    full[k] = nns__dim_known(0);
  for (int64_t k = 0; k < na; k++) {
    int32_t a;
    if (!nns__axis(axes[k], r, &a)) {
      *n = -1;
      return NNS__ARG_UNKNOWN;
    }
    full[a] = (*p)[k];
    full[a + r] = (*p)[k + na];
  }
  *p = full;
  *n = 2 * (int64_t)r;
  return NNS__ARG_KNOWN;
}

static nns_status pad_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  if (pad_mode_of(cx) == PAD_BAD)
    return nns__fail(cx, NNS_E_ATTR,
                     "mode '%s' is not %s", nns__attr_str(cx, "mode"),
                     cx->op->since >= 19 ? "constant, reflect, edge or wrap"
                                         : "constant, reflect or edge");
  const nns__dim *p;
  int64_t n;
  nns__arg_state st = pad_amounts(cx, &p, &n);
  if (st == NNS__ARG_ABSENT)
    return missing_input(cx, "pads");
  if (!x || x->rank < 0) {
    /* The pads list gives the rank: two entries per axis. */
    nns__out_shape(cx, 0, dt,
                   n >= 0 && n % 2 == 0 && n / 2 <= NNS__RANK_LIMIT
                       ? (int32_t)(n / 2)
                       : -1);
    return NNS_OK;
  }
  int32_t r = x->rank;
  if (n >= 0 && n != 2 * (int64_t)r)
    return nns__fail(cx, NNS_E_ATTR, "pads has %lld entries for rank %d",
                     (long long)n, r);
  nns__dim *d = nns__out_shape(cx, 0, dt, r);
  if (!d || st != NNS__ARG_KNOWN)
    return NNS_OK;
  for (int32_t k = 0; k < r; k++) {
    /* Known pads are summed first: "seq+3", not "seq+1+2". */
    d[k] = nns__add(cx, x->dims[k], nns__add(cx, p[k], p[k + r]));
    if (!d[k].sym && d[k].v < 0)
      return nns__fail(
          cx, NNS_E_SHAPE, "pads %lld and %lld make dim %d negative (%lld)",
          (long long)p[k].v, (long long)p[k + r].v, k, (long long)d[k].v);
  }
  return NNS_OK;
}

/* Where out-of-range index s along a dim of size d reads from, or -1 for
 * the constant. */
static int64_t pad_source(pad_mode mode, int64_t s, int64_t d) {
  if (s >= 0 && s < d)
    return s;
  if (mode == PAD_CONSTANT || d == 0)
    return -1;
  if (mode == PAD_EDGE || d == 1)
    return s < 0 ? 0 : d - 1;
  if (mode == PAD_WRAP)
    return ((s % d) + d) % d;
  int64_t period = 2 * (d - 1); /* reflect: 0 1 2 1 0 1 2 ... */
  s %= period;
  if (s < 0)
    s += period;
  return s < d ? s : period - s;
}

static nns_status pad_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  const nns__dim *p;
  int64_t n;
  if (!x || pad_amounts(cx, &p, &n) != NNS__ARG_KNOWN || !nns__dims_known(p, n))
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  const nns__type *tx = nns__in_type(cx, 0), *ty = nns__out_type_of(cx, 0);
  if (!y || y->s || n != 2 * (int64_t)tx->rank || ty->rank != tx->rank)
    return NNS__NOFOLD;
  /* The fill value: attribute `value` before opset 11, else input 2. */
  double fill = 0.0;
  nns__dim ifill = nns__dim_known(0);
  if (cx->op->since < 11) {
    fill = nns__attr_float(cx, "value");
    if (!(fill > -9.2e18 && fill < 9.2e18))
      return NNS__NOFOLD;
    ifill = nns__dim_known((int64_t)fill);
  } else if (nns__has_in(cx, 2)) {
    const nns__const *v = nns__in_const(cx, 2);
    if (!v || v->numel < 1)
      return NNS__NOFOLD;
    if (v->f && y->f)
      fill = v->f[0];
    else if (v->i && y->i)
      ifill = v->i[0];
    else
      return NNS__NOFOLD;
  }
  pad_mode mode = pad_mode_of(cx);
  int64_t xs[NNS__RANK_LIMIT], c[NNS__RANK_LIMIT];
  nns__strides(tx, xs);
  for (int64_t o = 0; o < y->numel; o++) {
    nns__unravel(ty, o, c);
    int64_t src = 0;
    for (int32_t k = 0; k < tx->rank && src >= 0; k++) {
      int64_t s = pad_source(mode, c[k] - p[k].v, tx->dims[k].v);
      src = s < 0 ? -1 : src + s * xs[k];
    }
    if (src >= 0) {
      if (!nns__elem_copy(y, o, x, src))
        return NNS__NOFOLD;
    } else if (y->i) {
      y->i[o] = ifill;
    } else {
      y->f[o] = fill;
    }
  }
  return NNS_OK;
}

static const nns__attr_spec pad1_attrs[] = {
    NNS__A_STR("mode", "constant"), NNS__A_REQ("paddings", INTS),
    NNS__A_FLOAT("value", 0.0), NNS__A_END};
static const nns__attr_spec pad2_attrs[] = {
    NNS__A_STR("mode", "constant"), NNS__A_REQ("pads", INTS),
    NNS__A_FLOAT("value", 0.0), NNS__A_END};
static const nns__attr_spec pad11_attrs[] = {NNS__A_STR("mode", "constant"),
                                             NNS__A_END};

/* ==== Receptive field ==== */

/* Transpose: spatial axis k moves to the output dim that reads its dim. */
static nns_status transpose_rf(nns__ictx *cx, const nns__rf *in,
                               nns__rf *out) {
  *out = *in;
  int64_t perm[NNS__RANK_LIMIT];
  int32_t n = transpose_perm(cx, perm);
  if (in->f.whole)
    return NNS_OK;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++) {
    int32_t found = -1, wfound = in->win[k] ? -1 : 0;
    for (int32_t q = 0; q < n && q < NNS__RANK_LIMIT; q++) {
      if (perm[q] == in->dim[k])
        found = q;
      if (in->win[k] && perm[q] == in->wdim[k])
        wfound = q;
    }
    if (found < 0 || wfound < 0) { /* perm unknown or malformed */
      nns__rf_set_whole(out);
      return NNS_OK;
    }
    out->dim[k] = (int8_t)found;
    out->wdim[k] = (int8_t)wfound;
  }
  return NNS_OK;
}

/*
 * Concat of X[k:n] and X[0:k] along a spatial dim is a rotation,
 * torch.roll(X, -k) (Swin's cyclic shift and its reverse). Output position
 * i < n - k is X's position i + k, and position i >= n - k is X's i + k - n:
 * a translation, the one of the longer piece. The other piece's positions
 * wrap around; like padding, that is a border effect which the field of an
 * interior position does not describe (in Swin a mask keeps wrapped
 * positions from mixing, and the reverse roll puts them back). Any other
 * Concat merges its inputs' fields (NNS__RF_MERGE).
 */
static nns_status concat_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  const nns__node *n = cx->node;
  if (in->f.whole || !nns__rf_plain(in) || n->n_in != 2)
    return NNS__RF_MERGE;
  const nns__node *p0 = n->in[0] ? n->in[0]->producer : NULL;
  const nns__node *p1 = n->in[1] ? n->in[1]->producer : NULL;
  if (!p0 || !p1 || !p0->op || !p1->op || p0->n_in < 1 || p1->n_in < 1 ||
      !p0->in[0] || p0->in[0] != p1->in[0])
    return NNS__RF_MERGE;
  nns_error local;
  nns__ictx c0 = {.m = cx->m, .node = (nns__node *)p0, .op = p0->op,
                  .opset = p0->opset, .err = &local};
  nns__ictx c1 = c0;
  c1.node = (nns__node *)p1;
  c1.op = p1->op;
  c1.opset = p1->opset;
  const nns__type *x = &p0->in[0]->type;
  int32_t a0, a1, axis;
  int64_t f0, l0, f1, l1;
  if (!nns__slice_span(&c0, &a0, &f0, &l0) ||
      !nns__slice_span(&c1, &a1, &f1, &l1) || x->rank < 1 ||
      !nns__axis(nns__attr_int(cx, "axis"), x->rank, &axis) || a0 != axis ||
      a1 != axis || x->dims[axis].sym || nns__rf_axis_at(in, axis) < 0)
    return NNS__RF_MERGE;
  bool rotation = f0 > 0 && l0 > 0 && f1 == 0 && l1 == f0 &&
                  f0 + l0 == x->dims[axis].v;
  if (!rotation)
    return NNS__RF_MERGE;
  if (l0 >= l1)
    return NNS_OK;
  /* Mostly the second piece (a roll forward, by -(n - k)): its positions
   * start l0 further along the output. */
  const nns__rf *second = cx->n_rf_in > 1 && cx->rf_in ? cx->rf_in[1] : NULL;
  int k = second ? nns__rf_axis_at(second, axis) : -1;
  if (k < 0 || second->f.whole || !nns__rf_plain(second))
    return NNS__RF_MERGE;
  *out = *second;
  nns__rf_translate(cx->rf_pool, out, k, -l0);
  return NNS_OK;
}

/* Pad: output pixel i of a padded spatial axis is input pixel i - b (b
 * the leading pad; negative crops), so the effective padding grows by b
 * jumps; the field is the input's. Pads that are not known constants
 * leave the field as it is. */
static nns_status pad_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  const nns__dim *p;
  int64_t n;
  int32_t r = nns__in_rank(cx, 0);
  if (in->f.whole || r < 0 || pad_amounts(cx, &p, &n) != NNS__ARG_KNOWN ||
      n != 2 * (int64_t)r)
    return NNS_OK;
  if (!nns__rf_plain(in)) {
    nns__rf_set_whole(out);
    return NNS_OK;
  }
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++) {
    int32_t d = in->dim[k];
    if (d >= 0 && d < r && !p[d].sym && p[d].v != INT64_MIN)
      nns__rf_translate(cx->rf_pool, out, k, -p[d].v);
  }
  return NNS_OK;
}

/* ==== view_as_real (pytorch.aten) ==== */

/* PyTorch's view_as_real: a complex tensor read as its (real, imaginary)
 * pairs, (..., 2) of the real type. A view, so free; the recorder reads a
 * complex buffer through it where complex arithmetic is spelled on that
 * form (docs/metrics.md, "Complex multiply"). */
static nns_status view_as_real_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  int32_t real = dt == NNS_DT_COMPLEX64    ? NNS_DT_FLOAT
                 : dt == NNS_DT_COMPLEX128 ? NNS_DT_DOUBLE
                                           : 0;
  if (!real)
    return nns__fail(cx, NNS_E_SHAPE, "input is not complex (%s)",
                     nns_dtype_name(dt));
  if (!x || x->rank < 0) {
    nns__out_shape(cx, 0, real, -1);
    return NNS_OK;
  }
  if (x->rank + 1 > NNS__RANK_LIMIT)
    return rank_limit(cx, x->rank + 1);
  nns__dim *d = nns__out_shape(cx, 0, real, x->rank + 1);
  for (int32_t k = 0; d && k < x->rank; k++)
    d[k] = x->dims[k];
  if (d)
    d[x->rank] = nns__dim_known(2);
  return NNS_OK;
}

/* ==== Table ==== */

const nns__op nns__ops_shape[] = {
    {"pytorch.aten", "view_as_real", 1, 1, "a", NULL, view_as_real_shape,
     NULL, NNS__VIEW},
    {"", "Reshape", 1, 4, "a", reshape1_attrs, reshape_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Reshape", 5, 13, "ac", NULL, reshape_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Reshape", 14, NNS__OPSET_MAX, "ac", reshape14_attrs, reshape_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Flatten", 1, NNS__OPSET_MAX, "a", axis1_attrs, flatten_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Squeeze", 1, 12, "a", axes_opt_attrs, squeeze_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Squeeze", 13, NNS__OPSET_MAX, "ac", NULL, squeeze_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Unsqueeze", 1, 12, "a", axes_req_attrs, unsqueeze_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Unsqueeze", 13, NNS__OPSET_MAX, "ac", NULL, unsqueeze_shape, copy_fold,
     NNS__VIEW, .rf = nns__rf_view, .rf_parts = true, .attn = NNS__ATTN_KEEP},
    {"", "Transpose", 1, NNS__OPSET_MAX, "a", transpose_attrs, transpose_shape,
     transpose_fold, .cost = nns__cost_move, .rf = transpose_rf,
     .rf_parts = true},
    {"", "Concat", 1, 3, "a", concat1_attrs, concat_shape, concat_fold,
     .cost = nns__cost_move, .rf = concat_rf, .rf_parts = true},
    {"", "Concat", 4, NNS__OPSET_MAX, "a", concat4_attrs, concat_shape,
     concat_fold,
     .cost = nns__cost_move, .rf = concat_rf, .rf_parts = true},
    {"", "Split", 1, 1, "ac", split1_attrs, split_shape, split_fold,
     .cost = nns__cost_move_x},
    {"", "Split", 2, 12, "a", split1_attrs, split_shape, split_fold,
     .cost = nns__cost_move_x},
    {"", "Split", 13, 17, "ac", split13_attrs, split_shape,
     split_fold,
     .cost = nns__cost_move_x},
    {"", "CenterCropPad", 18, NNS__OPSET_MAX, "ac", center_crop_pad_attrs,
     center_crop_pad_shape, NULL, .cost = nns__cost_move_x},
    /* 18 added num_outputs (uneven: the last part is smaller). */
    {"", "Split", 18, NNS__OPSET_MAX, "ac", split18_attrs, split_shape,
     split_fold,
     .cost = nns__cost_move_x},
    {"", "Shape", 1, 14, "a", NULL, shape_shape, shape_fold, true,
     NNS__VIEW, .no_grad = "1"},
    {"", "Shape", 15, NNS__OPSET_MAX, "a", shape15_attrs, shape_shape,
     shape_fold, true, NNS__VIEW, .no_grad = "1"},
    {"", "Size", 1, NNS__OPSET_MAX, "a", NULL, size_shape, size_fold, true,
     NNS__VIEW, .no_grad = "1"},
    {"", "Identity", 1, NNS__OPSET_MAX, "a", NULL, identity_shape, copy_fold,
     NNS__VIEW, .attn = NNS__ATTN_KEEP},
    {"", "Expand", 8, NNS__OPSET_MAX, "ac", NULL, expand_shape, repeat_fold,
     .cost = nns__cost_move_x, .attn = NNS__ATTN_KEEP},
    {"", "Tile", 1, 5, "acc", NULL, tile_shape, repeat_fold,
     .cost = nns__cost_move_x},
    {"", "Tile", 6, NNS__OPSET_MAX, "ac", NULL, tile_shape, repeat_fold,
     .cost = nns__cost_move_x},
    {"", "Pad", 1, 1, "a", pad1_attrs, pad_shape, pad_fold,
     .cost = nns__cost_move_x, .rf = pad_rf, .rf_parts = true},
    {"", "Pad", 2, 10, "a", pad2_attrs, pad_shape, pad_fold,
     .cost = nns__cost_move_x, .rf = pad_rf, .rf_parts = true},
    {"", "Pad", 11, 17, "acc", pad11_attrs, pad_shape, pad_fold,
     .cost = nns__cost_move_x, .rf = pad_rf, .rf_parts = true},
    /* 18 added the axes input; 19 the wrap mode. */
    {"", "Pad", 18, 18, "accc", pad11_attrs, pad_shape, pad_fold,
     .cost = nns__cost_move_x, .rf = pad_rf, .rf_parts = true},
    {"", "Pad", 19, NNS__OPSET_MAX, "accc", pad11_attrs, pad_shape, pad_fold,
     .cost = nns__cost_move_x, .rf = pad_rf, .rf_parts = true},
    NNS__OP_END,
};
