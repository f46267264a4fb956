/*
 * reduce.c - reductions: the Reduce* family (axes as an attribute, or for
 * ReduceSum from opset 13 as an input), ArgMax/ArgMin, TopK and CumSum, and
 * PyTorch's bucketize (a search, in the recorder's pytorch.aten domain).
 *
 * The shape rule is the same for every Reduce*: the reduced axes become 1
 * (keepdims) or disappear. Axes that come from a graph input are not
 * guessed: with keepdims the rank is still known (and a dim that is already
 * 1 stays 1), without it the rank is unknown. The folds reduce small
 * constants; ReduceProd over a Shape output gives the element count as a
 * symbolic product ("batch*seq").
 *
 * Costs count the straightforward loop over X (docs/metrics.md): one
 * operation per element read, plus the per-output finishing step (sqrt,
 * log) where there is one. A reduction over a spatial axis ends the
 * value's receptive field: it sees the whole input, as global pooling does.
 */
#include <math.h>
#include <string.h>

#include "elem.h"
#include "rf_axes.h"
#include "shape_util.h"

/* ==== Reduce* shape ==== */

/* True when the axes are input 1: ReduceSum from opset 13 (its entry has
 * noop_with_empty_axes), and every Reduce* from opset 18, which a newer
 * model reaches through the opset-17 entries - a second input only exists
 * there, and reading `axes` from the absent attribute would reduce every
 * axis. */
static bool axes_from_input(const nns__ictx *cx) {
  for (const nns__attr_spec *s = cx->op->attrs; s && s->name; s++)
    if (strcmp(s->name, "noop_with_empty_axes") == 0)
      return true;
  return nns__n_in(cx) > 1;
}

/* The axes to reduce: *n = -1 when absent or empty (all axes, or none with
 * noop_with_empty_axes), *known = false when they come from a graph input
 * whose values are not known. */
static void reduce_axes(nns__ictx *cx, const int64_t **axes, int64_t *n,
                        bool *known) {
  *axes = NULL;
  *n = -1;
  *known = true;
  if (!axes_from_input(cx)) {
    int32_t count = nns__attr_ints(cx, "axes", axes);
    *n = count > 0 ? count : -1;
    return;
  }
  if (!nns__has_in(cx, 1) || nns__in_numel(cx, 1) == 0)
    return;
  if (nns__in_known_ints(cx, 1, axes, n)) {
    if (*n == 0)
      *n = -1;
    return;
  }
  *known = false;
}

/* Sets out[k] for each axis of a rank-r input: true when reduced. */
static nns_status reduced_axes(nns__ictx *cx, int32_t r, bool *out) {
  const int64_t *axes;
  int64_t n;
  bool known;
  reduce_axes(cx, &axes, &n, &known);
  for (int32_t k = 0; k < r; k++)
    out[k] = n < 0;
  for (int64_t j = 0; j < n; j++) {
    int32_t a;
    nns_status st = nns__axis_or_fail(cx, axes[j], r, &a, "axis");
    if (st != NNS_OK)
      return st;
    out[a] = true; /* a repeated axis is reduced once, as onnx does */
  }
  return NNS_OK;
}

static nns_status reduce_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st != NNS_OK)
    return st;
  const nns__type *t = nns__in_type(cx, 0);
  bool keep = nns__attr_int(cx, "keepdims") != 0;
  const int64_t *axes;
  int64_t n;
  bool known;
  reduce_axes(cx, &axes, &n, &known);
  if (known && n < 0 && nns__attr_int(cx, "noop_with_empty_axes")) {
    nns__out_like(cx, 0, 0, 0); /* no axes: the input unchanged */
    return NNS_OK;
  }
  if (known && n < 0 && !keep) {
    nns__out_shape(cx, 0, t->dtype, 0); /* everything: a scalar */
    return NNS_OK;
  }
  if (t->rank < 0 || (!known && !keep)) {
    nns__out_shape(cx, 0, t->dtype, -1);
    return NNS_OK;
  }
  bool *red = nns__alloc(cx, (size_t)t->rank + 1);
  if (!red)
    return NNS_E_NOMEM;
  if (known && (st = reduced_axes(cx, t->rank, red)) != NNS_OK)
    return st;
  int32_t r = 0;
  for (int32_t k = 0; k < t->rank; k++)
    r += !known || keep || !red[k];
  nns__dim *d = nns__out_shape(cx, 0, t->dtype, r);
  for (int32_t k = 0, o = 0; d && k < t->rank; k++) {
    nns__dim x = t->dims[k];
    if (!known) /* any axis may be reduced: only a 1 stays known */
      d[o++] = !x.sym && x.v == 1 ? x : nns__fresh(cx);
    else if (!red[k])
      d[o++] = x;
    else if (keep)
      d[o++] = nns__dim_known(1);
  }
  return NNS_OK;
}

/* ==== Reduce* folds ==== */

typedef enum red_op {
  R_SUM, R_MEAN, R_PROD, R_MAX, R_MIN, R_L1, R_L2, R_LOG_SUM,
  R_LOG_SUM_EXP, R_SUM_SQUARE
} red_op;

/* One integer step, symbols allowed: sums and products stay expressions;
 * the max of two different symbols (or a symbol and a number) is a fresh
 * symbol. */
static void red_int(nns__ictx *cx, red_op op, nns__dim *acc, nns__dim x) {
  switch (op) {
  case R_SUM: *acc = nns__add(cx, *acc, x); break;
  case R_PROD: *acc = nns__mul(cx, *acc, x); break;
  default: /* R_MAX, R_MIN */
    if (nns__dim_eq(*acc, x))
      break;
    if (acc->sym || x.sym)
      *acc = nns__fresh(cx); /* max(batch, 3): unknown */
    else if ((op == R_MAX) == (x.v > acc->v))
      *acc = x;
  }
}

/*
 * Reduces input 0 over the reduced axes into output 0. Each input element
 * adds into the output element whose index drops the reduced coordinates
 * (ostride 0). Integer Sum/Prod/Max/Min run on nns__dim so that symbols
 * flow; everything else in doubles, converted to the output dtype.
 */
static nns_status reduce_fold(nns__ictx *cx, red_op op) {
  const nns__const *x = nns__const_in(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !y)
    return NNS__NOFOLD;
  const nns__type *t = nns__in_type(cx, 0);
  int32_t r = t->rank, dt = cx->node->out[0]->type.dtype;
  bool *red = nns__alloc(cx, (size_t)r + 1);
  int64_t *ostride = nns__alloc(cx, ((size_t)r + 1) * sizeof *ostride);
  int64_t *coord = nns__alloc(cx, ((size_t)r + 1) * sizeof *coord);
  int64_t *count = nns__alloc(cx, ((size_t)y->numel + 1) * sizeof *count);
  double *acc = nns__alloc(cx, ((size_t)y->numel + 1) * sizeof *acc);
  double *max = nns__alloc(cx, ((size_t)y->numel + 1) * sizeof *max);
  if (!red || !ostride || !coord || !count || !acc || !max)
    return NNS_E_NOMEM;
  const int64_t *axes;
  int64_t n;
  bool known;
  reduce_axes(cx, &axes, &n, &known);
  if (!known)
    return NNS__NOFOLD;
  if (n < 0 && nns__attr_int(cx, "noop_with_empty_axes"))
    for (int32_t k = 0; k < r; k++)
      red[k] = false;
  else if (reduced_axes(cx, r, red) != NNS_OK)
    return NNS__NOFOLD;
  int64_t stride = 1;
  for (int32_t k = r - 1; k >= 0; k--) {
    ostride[k] = red[k] ? 0 : stride;
    stride *= red[k] ? 1 : t->dims[k].v;
    coord[k] = 0;
  }
  if (stride != y->numel)
    return NNS__NOFOLD;
  bool ints = x->i && y->i &&
              (op == R_SUM || op == R_PROD || op == R_MAX || op == R_MIN);
  for (int64_t o = 0; o < y->numel; o++) {
    count[o] = 0;
    acc[o] = op == R_PROD ? 1 : 0;
    max[o] = -INFINITY;
    if (ints)
      y->i[o] = nns__dim_known(op == R_PROD ? 1 : 0);
  }
  /* Two passes for LogSumExp: the maxima first, for a stable sum. */
  for (int pass = op == R_LOG_SUM_EXP ? 0 : 1; pass < 2; pass++) {
    for (int64_t e = 0; e < x->numel; e++) {
      int64_t o = 0;
      for (int32_t k = 0; k < r; k++)
        o += coord[k] * ostride[k];
      for (int32_t k = r - 1; k >= 0; k--) /* advance the odometer */
        if (++coord[k] < t->dims[k].v)
          break;
        else
          coord[k] = 0;
      if (ints) {
        if (count[o]++ == 0 && (op == R_MAX || op == R_MIN))
          y->i[o] = x->i[e];
        else
          red_int(cx, op, &y->i[o], x->i[e]);
        continue;
      }
      double v;
      if (!nns__elem_f(x, e, &v))
        return NNS__NOFOLD;
      if (pass == 0) {
        max[o] = v > max[o] ? v : max[o];
        continue;
      }
      bool first = count[o]++ == 0;
      switch (op) {
      case R_SUM: case R_MEAN: case R_LOG_SUM: acc[o] += v; break;
      case R_PROD: acc[o] *= v; break;
      case R_MAX: acc[o] = first || v > acc[o] || isnan(v) ? v : acc[o]; break;
      case R_MIN: acc[o] = first || v < acc[o] || isnan(v) ? v : acc[o]; break;
      case R_L1: acc[o] += fabs(v); break;
      case R_L2: case R_SUM_SQUARE: acc[o] += v * v; break;
      case R_LOG_SUM_EXP:
        acc[o] += isinf(max[o]) ? exp(v) : exp(v - max[o]);
        break;
      }
    }
  }
  if (ints)
    return NNS_OK;
  for (int64_t o = 0; o < y->numel; o++) {
    double v = acc[o];
    if (count[o] == 0 && (op == R_MAX || op == R_MIN || op == R_MEAN))
      return NNS__NOFOLD; /* an empty reduction with no defined value */
    switch (op) {
    case R_MEAN: v /= (double)count[o]; break;
    case R_L2: v = sqrt(v); break;
    case R_LOG_SUM: v = v > 0 ? log(v) : v == 0 ? -INFINITY : NAN; break;
    case R_LOG_SUM_EXP:
      v = count[o] == 0 ? -INFINITY
                        : log(v) + (isinf(max[o]) ? 0 : max[o]);
      break;
    default: break;
    }
    int64_t iv;
    if (y->f) {
      if (!nns__to_float_dtype(v, dt, &y->f[o]))
        return NNS__NOFOLD;
    } else if (y->i && nns__float_to_int(v, dt, &iv)) {
      y->i[o] = nns__dim_known(iv);
    } else {
      return NNS__NOFOLD;
    }
  }
  return NNS_OK;
}

#define FOLD_WITH(name, op)                                                    \
  static nns_status name##_fold(nns__ictx *cx) { return reduce_fold(cx, op); }
FOLD_WITH(sum, R_SUM)
FOLD_WITH(mean, R_MEAN)
FOLD_WITH(prod, R_PROD)
FOLD_WITH(max, R_MAX)
FOLD_WITH(min, R_MIN)
FOLD_WITH(l1, R_L1)
FOLD_WITH(l2, R_L2)
FOLD_WITH(log_sum, R_LOG_SUM)
FOLD_WITH(log_sum_exp, R_LOG_SUM_EXP)
FOLD_WITH(sum_square, R_SUM_SQUARE)
#undef FOLD_WITH

/* ==== ArgMax, ArgMin ==== */

/* int64 indices; the axis becomes 1 or disappears. */
static nns_status arg_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st != NNS_OK)
    return st;
  const nns__type *t = nns__in_type(cx, 0);
  if (t->rank < 0) {
    nns__out_shape(cx, 0, NNS_DT_INT64, -1);
    return NNS_OK;
  }
  int32_t axis;
  if ((st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), t->rank, &axis,
                              "axis")) != NNS_OK)
    return st;
  if (!t->dims[axis].sym && t->dims[axis].v == 0)
    return nns__fail(cx, NNS_E_SHAPE, "axis %d has size 0: no index to pick",
                     axis);
  bool keep = nns__attr_int(cx, "keepdims") != 0;
  nns__dim *d = nns__out_shape(cx, 0, NNS_DT_INT64, t->rank - !keep);
  for (int32_t k = 0, o = 0; d && k < t->rank; k++)
    if (k != axis)
      d[o++] = t->dims[k];
    else if (keep)
      d[o++] = nns__dim_known(1);
  return NNS_OK;
}

/* ==== TopK ==== */

/*
 * Values (X's dtype) and Indices (int64): X's shape with the axis replaced
 * by k. k is an attribute before opset 10, then a one-element input; when
 * it is not known the axis gets a fresh symbol, and a symbolic k (computed
 * from a Shape) is used as it is.
 */
static nns_status topk_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, cx->opset >= 10 ? 2 : 1);
  if (st != NNS_OK)
    return st;
  const nns__type *t = nns__in_type(cx, 0);
  nns__dim k = nns__fresh(cx);
  if (cx->opset < 10) {
    k = nns__dim_known(nns__attr_int(cx, "k"));
  } else {
    int64_t numel = nns__in_numel(cx, 1);
    if (numel >= 0 && numel != 1)
      return nns__fail(cx, NNS_E_SHAPE, "K must hold one value, has %lld",
                       (long long)numel);
    const nns__dim *kv;
    int64_t n;
    if (nns__in_ints(cx, 1, &kv, &n) && n == 1)
      k = kv[0];
  }
  if (!k.sym && k.v < 0)
    return nns__fail(cx, NNS_E_ATTR, "k is %lld, must not be negative",
                     (long long)k.v);
  for (int i = 0; i < 2; i++) {
    int32_t dt = i == 0 ? t->dtype : NNS_DT_INT64;
    if (t->rank < 0) {
      nns__out_shape(cx, i, dt, -1);
      continue;
    }
    int32_t axis;
    if ((st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), t->rank,
                                &axis, "axis")) != NNS_OK)
      return st;
    nns__dim x = t->dims[axis];
    if (!k.sym && !x.sym && k.v > x.v)
      return nns__fail(cx, NNS_E_SHAPE, "k is %lld but axis %d has size %lld",
                       (long long)k.v, axis, (long long)x.v);
    nns__dim *d = nns__out_shape(cx, i, dt, t->rank);
    if (d) {
      nns__dims_copy(d, t->dims, t->rank);
      d[axis] = k;
    }
  }
  return NNS_OK;
}

/* ==== CumSum ==== */

static nns_status cumsum_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 2);
  if (st != NNS_OK)
    return st;
  int64_t numel = nns__in_numel(cx, 1);
  if (numel >= 0 && numel != 1)
    return nns__fail(cx, NNS_E_SHAPE, "axis must hold one value, has %lld",
                     (long long)numel);
  const int64_t *axis;
  int64_t n;
  int32_t rank = nns__in_rank(cx, 0), a;
  if (rank >= 0 && nns__in_known_ints(cx, 1, &axis, &n) && n == 1 &&
      (st = nns__axis_or_fail(cx, axis[0], rank, &a, "axis")) != NNS_OK)
    return st;
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

/* ==== Cost rules ==== */

/* FLOPs fx*numel(X) + fy*numel(Y); DMAs numel(X) + numel(Y) (axes and K
 * are arguments, not data). Accumulating from zero counts one operation
 * per element of X, so ReduceMean's divisions are within its numel(X)
 * (METRICS.md). */
#define X_COST(name, fx, fy)                                                   \
  static nns_status name##_cost(nns__ictx *cx, nns__cost *c) {                 \
    return nns__cost_x(cx, c, fx, fy);                                         \
  }
X_COST(per_x, 1, 0)         /* Sum, Mean, Prod, Max, Min, ArgMax, CumSum */
X_COST(per_x2, 2, 0)        /* L1 (abs, add), SumSquare (mul, add) */
X_COST(l2, 2, 1)            /* L2: SumSquare, then a sqrt per output */
X_COST(log_sum, 1, 1)       /* Sum, then a log per output */
X_COST(log_sum_exp, 2, 1)   /* exp and add per element, log per output */
#undef X_COST

/*
 * TopK as a naive partial selection sort: along each slice of n elements,
 * k passes each scan the elements not yet taken, n - i comparisons on pass
 * i (counting from an initial -inf, as ArgMax's numel(X) does):
 *   k n - k (k - 1) / 2 per slice (k = 1: n, ArgMax's count).
 * k is read from the output's dim, n from X's.
 */
static nns_status topk_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *t = nns__in_type(cx, 0);
  int64_t x = nns__in_count(cx, c, 0);
  int32_t axis;
  if (!t || x < 0 || !nns__axis(nns__attr_int(cx, "axis"), t->rank, &axis))
    return NNS__UNCOUNTED;
  int o = nns__has_out(cx, 0) ? 0 : 1;
  const nns__type *ty = nns__has_out(cx, o) ? &cx->node->out[o]->type : NULL;
  if (!ty || ty->rank != t->rank)
    return NNS__UNCOUNTED;
  int64_t n = nns__dim_count(c, t->dims[axis], cx->m);
  int64_t k = nns__dim_count(c, ty->dims[axis], cx->m);
  if (k > n)
    k = n; /* a symbol counted as 1 */
  int64_t outer = 1;
  for (int32_t d = 0; d < t->rank; d++)
    if (d != axis)
      outer = nns__cmul(c, outer, nns__dim_count(c, t->dims[d], cx->m));
  /* k (k - 1) / 2, halving the even factor */
  int64_t taken = k <= 0       ? 0
                  : k % 2 == 0 ? nns__cmul(c, k / 2, k - 1)
                               : nns__cmul(c, k, (k - 1) / 2);
  int64_t kn = nns__cmul(c, k, n);
  int64_t per = kn == INT64_MAX ? kn : kn - taken; /* taken <= kn: k <= n */
  return nns__cost_rw(cx, c, nns__cmul(c, outer, per), x);
}

/* ==== Receptive field ==== */

/* Dim d less the reduced dims before it. */
static int8_t after_reduce(const bool *red, int32_t d) {
  int32_t before = 0;
  for (int32_t e = 0; e < d; e++)
    before += red[e];
  return (int8_t)(d - before);
}

/*
 * What reducing the dims flagged in red[0..r) does to the field of input
 * 0: a reduced spatial dim (or part of one: its windows, the positions
 * within them) is gone (the output sees the whole input along it: whole);
 * otherwise the field is kept, its spatial axes moving down past the
 * reduced dims when they are dropped (keepdims 0).
 */
static void reduce_dims_rf(const nns__rf *in, const bool *red, int32_t r,
                           bool keepdims, nns__rf *out) {
  *out = *in;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++) {
    int32_t d = in->dim[k], w = in->win[k] ? in->wdim[k] : -1;
    if (d < 0 || d >= r || w >= r)
      continue;
    if (red[d] || (w >= 0 && red[w])) {
      nns__rf_set_whole(out);
      return;
    }
    if (!keepdims) {
      out->dim[k] = after_reduce(red, d);
      if (w >= 0)
        out->wdim[k] = after_reduce(red, w);
    }
  }
}

/* Reduce*: ReduceMean over axes 2 and 3 is how exports often write a
 * global average pool; a reduction over channels keeps the field. Axes
 * that are not known leave the field as it is. */
static nns_status reduce_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  int32_t r = nns__in_rank(cx, 0);
  if (r < 0 || r > NNS__RANK_LIMIT || in->f.axes <= 0)
    return NNS_OK;
  const int64_t *axes;
  int64_t n;
  bool known;
  reduce_axes(cx, &axes, &n, &known);
  if (!known || (n < 0 && nns__attr_int(cx, "noop_with_empty_axes")))
    return NNS_OK;
  bool red[NNS__RANK_LIMIT] = {false};
  for (int32_t d = 0; n < 0 && d < r; d++) /* every axis */
    red[d] = true;
  for (int64_t j = 0; j < n; j++) {
    int32_t a;
    if (nns__axis(axes[j], r, &a))
      red[a] = true;
  }
  reduce_dims_rf(in, red, r, nns__attr_int(cx, "keepdims") != 0, out);
  return NNS_OK;
}

/* ArgMax, ArgMin along one axis: the same. */
static nns_status arg_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  int32_t r = nns__in_rank(cx, 0), a;
  if (r < 0 || r > NNS__RANK_LIMIT ||
      !nns__axis(nns__attr_int(cx, "axis"), r, &a))
    return NNS_OK;
  bool red[NNS__RANK_LIMIT] = {false};
  red[a] = true;
  reduce_dims_rf(in, red, r, nns__attr_int(cx, "keepdims") != 0, out);
  return NNS_OK;
}

/* ==== Attribute specs ==== */

static const nns__attr_spec reduce_attrs[] = {
    NNS__A_OPT("axes", INTS), NNS__A_INT("keepdims", 1), NNS__A_END};
static const nns__attr_spec reduce13_attrs[] = {
    NNS__A_INT("keepdims", 1), NNS__A_INT("noop_with_empty_axes", 0),
    NNS__A_END};
static const nns__attr_spec arg1_attrs[] = {
    NNS__A_INT("axis", 0), NNS__A_INT("keepdims", 1), NNS__A_END};
static const nns__attr_spec arg12_attrs[] = {
    NNS__A_INT("axis", 0), NNS__A_INT("keepdims", 1),
    NNS__A_INT("select_last_index", 0), NNS__A_END};
static const nns__attr_spec topk1_attrs[] = {
    NNS__A_INT("axis", -1), NNS__A_REQ("k", INT), NNS__A_END};
static const nns__attr_spec topk10_attrs[] = {NNS__A_INT("axis", -1),
                                              NNS__A_END};
static const nns__attr_spec topk11_attrs[] = {
    NNS__A_INT("axis", -1), NNS__A_INT("largest", 1), NNS__A_INT("sorted", 1),
    NNS__A_END};
static const nns__attr_spec bucketize_attrs[] = {
    NNS__A_INT("out_int32", 0), NNS__A_INT("right", 0), NNS__A_END};
static const nns__attr_spec cumsum_attrs[] = {
    NNS__A_INT("exclusive", 0), NNS__A_INT("reverse", 0), NNS__A_END};

/* ==== PyTorch's bucketize ==== */

/* The bucket of each element of X among the sorted boundaries (input 1):
 * X's shape, int64 (int32 with out_int32). */
static nns_status bucketize_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0,
                nns__attr_int(cx, "out_int32") ? NNS_DT_INT32 : NNS_DT_INT64);
  return NNS_OK;
}

/* A binary search over the B boundaries per element, as PyTorch's kernel
 * does: ceil(log2(B + 1)) comparisons, each reading one boundary. FLOPs
 * numel(X) steps, DMAs numel(X) (1 + steps) + numel(Y). */
static nns_status bucketize_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), b = nns__in_count(cx, c, 1);
  if (x < 0 || b < 0)
    return NNS__UNCOUNTED;
  int64_t steps = 0;
  while (steps < 63 && ((int64_t)1 << steps) < b + 1)
    steps++;
  int64_t compares = nns__cmul(c, x, steps);
  return nns__cost_rw(cx, c, compares, nns__cadd(c, x, compares));
}

/* ==== The table ==== */

/* Every Reduce* but ReduceSum keeps `axes` an attribute up to opset 17;
 * from 18 it is an optional input, as ReduceSum's from 13. */
#define REDUCE(nm, fold, cf)                                                   \
  {"", nm, 1, 17, "a", reduce_attrs, reduce_shape, fold,                       \
   .cost = cf,                                                                 \
   .rf = reduce_rf, .rf_parts = true},                                         \
  {"", nm, 18, NNS__OPSET_MAX, "ac", reduce13_attrs, reduce_shape, fold,       \
   .cost = cf,                                                                 \
   .rf = reduce_rf, .rf_parts = true}

const nns__op nns__ops_reduce[] = {
    {"", "ReduceSum", 1, 12, "a", reduce_attrs, reduce_shape, sum_fold,
     .cost = per_x_cost, .rf = reduce_rf, .rf_parts = true},
    {"", "ReduceSum", 13, NNS__OPSET_MAX, "ac", reduce13_attrs, reduce_shape,
     sum_fold,
     .cost = per_x_cost, .rf = reduce_rf, .rf_parts = true},
    REDUCE("ReduceMean", mean_fold, per_x_cost),
    REDUCE("ReduceProd", prod_fold, per_x_cost),
    REDUCE("ReduceMax", max_fold, per_x_cost),
    REDUCE("ReduceMin", min_fold, per_x_cost),
    REDUCE("ReduceL1", l1_fold, per_x2_cost),
    REDUCE("ReduceL2", l2_fold, l2_cost),
    REDUCE("ReduceLogSum", log_sum_fold, log_sum_cost),
    REDUCE("ReduceLogSumExp", log_sum_exp_fold, log_sum_exp_cost),
    REDUCE("ReduceSumSquare", sum_square_fold, per_x2_cost),

    {"", "ArgMax", 1, 11, "a", arg1_attrs, arg_shape, NULL,
     .cost = per_x_cost, .rf = arg_rf, .rf_parts = true,
     .no_grad = "1"},
    {"", "ArgMax", 12, NNS__OPSET_MAX, "a", arg12_attrs, arg_shape, NULL,
     .cost = per_x_cost, .rf = arg_rf, .rf_parts = true,
     .no_grad = "1"},
    {"", "ArgMin", 1, 11, "a", arg1_attrs, arg_shape, NULL,
     .cost = per_x_cost, .rf = arg_rf, .rf_parts = true,
     .no_grad = "1"},
    {"", "ArgMin", 12, NNS__OPSET_MAX, "a", arg12_attrs, arg_shape, NULL,
     .cost = per_x_cost, .rf = arg_rf, .rf_parts = true,
     .no_grad = "1"},

    {"", "TopK", 1, 9, "a", topk1_attrs, topk_shape, NULL, .cost = topk_cost},
    {"", "TopK", 10, 10, "ac", topk10_attrs, topk_shape, NULL,
     .cost = topk_cost},
    {"", "TopK", 11, NNS__OPSET_MAX, "ac", topk11_attrs, topk_shape, NULL,
     .cost = topk_cost},

    {"", "CumSum", 11, NNS__OPSET_MAX, "ac", cumsum_attrs, cumsum_shape, NULL,
     .cost = per_x_cost},
    /* PyTorch's bucketize, which ONNX has no operator for (the recorder's
     * domain for aten ops, version 1): the boundaries are a lookup table,
     * never a parameter. */
    {"pytorch.aten", "bucketize", 1, 1, "ac", bucketize_attrs,
     bucketize_shape, NULL, .cost = bucketize_cost, .no_grad = "1"},
    NNS__OP_END,
};
