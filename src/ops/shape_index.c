/*
 * shape_index.c - operators that pick elements by index: Slice, Gather,
 * GatherElements, GatherND, the Scatter family, Compress, OneHot, Trilu,
 * ReverseSequence and NonZero. The second half of the "shape" family (see
 * shape.c).
 *
 * Slice and Gather on the output of Shape are the other half of PyTorch's
 * shape arithmetic (`x.size(1)`, `x[:, 1:]`), so both resolve symbolic dims
 * where the result is determined: a slice from 1 to INT64_MAX of a dim
 * "seq" is "seq-1", and a Gather from a shape vector returns its symbol.
 */
#include <math.h>
#include <string.h>

#include "rf_axes.h"
#include "rf_period.h"
#include "shape_util.h"

static nns_status missing_input(nns__ictx *cx, const char *what) {
  return nns__fail(cx, NNS_E_MODEL, "required input '%s' is missing", what);
}

/* ==== Slice ==== */

/*
 * The arguments moved from attributes (opset 1-9: starts, ends, axes) to
 * inputs (opset 10+: starts, ends, axes, steps).
 */
typedef struct slice_args {
  nns__arg_state st_starts, st_ends, st_axes, st_steps;
  const nns__dim *starts, *ends, *axes, *steps;
  int64_t n_starts, n_ends, n_axes, n_steps;
} slice_args;

static void slice_read(nns__ictx *cx, slice_args *a) {
  bool attrs = cx->op->since < 10;
  a->st_starts =
      nns__ints_arg(cx, attrs ? "starts" : NULL, 1, &a->starts, &a->n_starts);
  a->st_ends =
      nns__ints_arg(cx, attrs ? "ends" : NULL, 2, &a->ends, &a->n_ends);
  a->st_axes =
      nns__ints_arg(cx, attrs ? "axes" : NULL, 3, &a->axes, &a->n_axes);
  a->st_steps = NNS__ARG_ABSENT;
  a->steps = NULL;
  a->n_steps = -1;
  if (!attrs)
    a->st_steps = nns__ints_arg(cx, NULL, 4, &a->steps, &a->n_steps);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* The spec's slice of a dim of known size d: clamps start and end (for
 * either sign of step, INT64_MIN/MAX included) and returns the length;
 * *start is the first index read. */
static int64_t slice_exact(int64_t d, int64_t s, int64_t e, int64_t step,
                           int64_t *start) {
  *start = 0;
  if (d == 0)
    return 0;
  if (s < 0)
    s += d; /* d >= 0: cannot overflow */
  if (e < 0)
    e += d;
  if (step > 0) {
    s = clamp64(s, 0, d);
    e = clamp64(e, 0, d);
    *start = s;
    return e > s ? (int64_t)((uint64_t)(e - s - 1) / (uint64_t)step) + 1 : 0;
  }
  s = clamp64(s, 0, d - 1);
  e = clamp64(e, -1, d - 1);
  *start = s;
  uint64_t mag = (uint64_t)0 - (uint64_t)step; /* |step|, INT64_MIN too */
  return s > e ? (int64_t)((uint64_t)(s - e - 1) / mag) + 1 : 0;
}

/*
 * A slice index on a dim d that is symbolic (or an index that is): base +
 * off, where base is 0 (an absolute index), d, or the index's own symbol.
 *
 * A symbolic dim's size is not known, so clamping cannot be decided. The
 * rule assumes what a PyTorch export's slices satisfy: a symbolic dim is
 * at least as long as the plain numbers sliced from it (x[1:] of "seq" is
 * "seq-1", x[-3:] is 3), and a symbolic index (a size read with Shape) is
 * within its dim. INT_MAX-style indices (|e| >= INT32_MAX, the spec's own
 * advice for "to the end") clamp to the end or the start. A plain number
 * as the upper bound of a symbolic dim (x[:3] of "batch") could clamp, so
 * it is not `trusted`, and neither is any length that could come out
 * negative under those assumptions: both are left unknown.
 */
typedef struct bound {
  nns__dim base; /* 0 for an absolute index */
  int64_t off;
  bool trusted; /* false: a number that may lie past a symbolic dim */
  bool at_end;  /* the dim's end (d going forwards, d-1 backwards) */
} bound;

static bound slice_bound(nns__dim e, nns__dim d, bool neg_step, bool is_start) {
  /* Clamp range: [0, d] going forwards; going backwards [0, d-1] for the
   * start and [-1, d-1] for the end. */
  int64_t lo = neg_step && !is_start ? -1 : 0, hi = neg_step ? -1 : 0;
  bound b = {nns__dim_known(0), 0, true, false};
  if (e.sym) {
    b.base = e;
    b.at_end = nns__dim_eq(e, d);
    b.off = b.at_end ? hi : 0;
  } else if (!d.sym) {
    /* Known dim: clamp exactly as the spec does. */
    int64_t v = e.v < 0 ? e.v + d.v : e.v;
    b.off = clamp64(v, lo, d.v + hi);
    b.at_end = b.off == d.v + hi;
  } else if (e.v >= INT32_MAX) {
    b.base = d;
    b.off = hi;
    b.at_end = true;
  } else if (e.v <= -INT32_MAX) {
    b.off = lo;
  } else if (e.v < 0) {
    b.base = d;
    b.off = e.v;
  } else {
    b.off = e.v;
    b.trusted = false;
  }
  return b;
}

/* Length of a slice where the dim or an index is symbolic (see bound):
 * hi - lo = (hi.base - lo.base) + (hi.off - lo.off), when that is sure to
 * be non-negative under the assumptions. */
static nns__dim slice_sym_len(nns__ictx *cx, nns__dim d, nns__dim s, nns__dim e,
                              int64_t step) {
  bool neg = step < 0;
  if (!d.sym && d.v == 0)
    return nns__dim_known(0);
  bound bs = slice_bound(s, d, neg, true), be = slice_bound(e, d, neg, false);
  bound hi = neg ? bs : be, lo = neg ? be : bs;
  nns__dim len;
  int64_t diff;
  if (__builtin_sub_overflow(hi.off, lo.off, &diff))
    return nns__fresh(cx);
  bool hi_dim = d.sym && nns__dim_eq(hi.base, d);
  if (nns__dim_eq(hi.base, lo.base)) {
    if (!hi.trusted && diff > 0)
      return nns__fresh(cx);
    len = nns__dim_known(diff);
  } else if (!hi.trusted) {
    return nns__fresh(cx);
  } else if (nns__dim_is_known(lo.base) && (hi_dim || diff >= 0)) {
    /* x[1:] = d-1, x[:-1] = d-1 (d assumed long enough); x[:S] = S. */
    len = nns__dim_plus(cx, hi.base, diff);
  } else if (!nns__dim_is_known(lo.base) && !nns__dim_eq(lo.base, d) &&
             hi.at_end && !neg) {
    /* x[S:] = d - S, S within the dim. (Going backwards, an end S = d
     * would clamp to d-1: left unknown.) */
    len = nns__dim_is_known(hi.base)
              ? nns__sub(cx, nns__dim_known(diff), lo.base)
              : nns__dim_plus(cx, nns__sub(cx, hi.base, lo.base), diff);
  } else {
    return nns__fresh(cx);
  }
  uint64_t mag = step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step;
  if (nns__dim_is_known(len)) {
    if (len.v <= 0)
      return nns__dim_known(0);
    return nns__dim_known((int64_t)((uint64_t)(len.v - 1) / mag) + 1);
  }
  if (mag == 1)
    return len;
  if (mag > INT32_MAX)
    return nns__fresh(cx);
  /* ceil(len / step) */
  return nns__div(cx, nns__dim_plus(cx, len, (int64_t)mag - 1),
                  nns__dim_known((int64_t)mag));
}

/* Validates the argument lists against each other; fills axes[] with the
 * normalised axis of each entry (n of them). Returns NNS_OK, an error, or
 * NNS__NOFOLD when the axes are not known. */
static nns_status slice_axes(nns__ictx *cx, const slice_args *a, int32_t r,
                             int32_t *axes) {
  int64_t n = a->n_starts;
  if (a->n_ends != n)
    return nns__fail(cx, NNS_E_SHAPE, "%lld starts but %lld ends", (long long)n,
                     (long long)a->n_ends);
  if (a->st_steps == NNS__ARG_KNOWN && a->n_steps != n)
    return nns__fail(cx, NNS_E_SHAPE, "%lld starts but %lld steps",
                     (long long)n, (long long)a->n_steps);
  if (a->st_axes == NNS__ARG_KNOWN && a->n_axes != n)
    return nns__fail(cx, NNS_E_SHAPE, "%lld starts but %lld axes", (long long)n,
                     (long long)a->n_axes);
  if (n > r)
    return nns__fail(cx, NNS_E_SHAPE, "%lld starts for rank %d", (long long)n,
                     r);
  if (a->st_axes == NNS__ARG_UNKNOWN ||
      (a->st_axes == NNS__ARG_KNOWN && !nns__dims_known(a->axes, n)))
    return NNS__NOFOLD;
  bool seen[NNS__RANK_LIMIT] = {false};
  for (int64_t i = 0; i < n; i++) {
    int32_t ax = (int32_t)i;
    if (a->st_axes == NNS__ARG_KNOWN) {
      nns_status st = nns__axis_or_fail(cx, a->axes[i].v, r, &ax, "axis");
      if (st != NNS_OK)
        return st;
    }
    if (seen[ax])
      return nns__fail(cx, NNS_E_SHAPE, "axis %d is sliced twice", ax);
    seen[ax] = true;
    axes[i] = ax;
  }
  return NNS_OK;
}

static nns_status slice_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  slice_args a;
  slice_read(cx, &a);
  if (a.st_starts == NNS__ARG_ABSENT || a.st_ends == NNS__ARG_ABSENT)
    return missing_input(cx, a.st_starts ? "ends" : "starts");
  if (!x || x->rank < 0 || x->rank > NNS__RANK_LIMIT) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  int32_t r = x->rank;
  nns__dim *d = nns__out_shape(cx, 0, dt, r);
  if (!d)
    return NNS_OK;
  nns__dims_copy(d, x->dims, r);
  int32_t axes[NNS__RANK_LIMIT];
  if (a.st_starts == NNS__ARG_UNKNOWN || a.st_ends == NNS__ARG_UNKNOWN) {
    /* Bounds unknown: the sliced axes are unknown, the others pass. */
    int64_t n = a.n_starts >= 0 ? a.n_starts : a.n_ends;
    if (a.st_axes == NNS__ARG_KNOWN)
      n = a.n_axes;
    bool listed = a.st_axes == NNS__ARG_KNOWN && nns__dims_known(a.axes, n);
    if (n < 0 || n > r || (a.st_axes != NNS__ARG_ABSENT && !listed)) {
      nns__out_shape(cx, 0, dt, r);
      return NNS_OK;
    }
    for (int64_t i = 0; i < n; i++) {
      int32_t ax = (int32_t)i;
      if (listed) {
        nns_status st = nns__axis_or_fail(cx, a.axes[i].v, r, &ax, "axis");
        if (st != NNS_OK)
          return st;
      }
      d[ax] = nns__fresh(cx);
    }
    return NNS_OK;
  }
  nns_status st = slice_axes(cx, &a, r, axes);
  if (st == NNS__NOFOLD) {
    nns__out_shape(cx, 0, dt, r); /* axes unknown: every dim may change */
    return NNS_OK;
  }
  if (st != NNS_OK)
    return st;
  for (int64_t i = 0; i < a.n_starts; i++) {
    int32_t ax = axes[i];
    nns__dim step = nns__dim_known(1);
    if (a.st_steps == NNS__ARG_KNOWN)
      step = a.steps[i];
    if (a.st_steps == NNS__ARG_UNKNOWN || step.sym) {
      d[ax] = nns__fresh(cx);
      continue;
    }
    if (step.v == 0)
      return nns__fail(cx, NNS_E_SHAPE, "step for axis %d is 0", ax);
    nns__dim s = a.starts[i], e = a.ends[i], dim = x->dims[ax];
    int64_t first;
    if (!dim.sym && !s.sym && !e.sym)
      d[ax] = nns__dim_known(slice_exact(dim.v, s.v, e.v, step.v, &first));
    else
      d[ax] = slice_sym_len(cx, dim, s, e, step.v);
  }
  return NNS_OK;
}

static nns_status slice_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  if (!x)
    return NNS__NOFOLD;
  const nns__type *tx = nns__in_type(cx, 0);
  slice_args a;
  slice_read(cx, &a);
  int32_t r = tx->rank, axes[NNS__RANK_LIMIT];
  if (a.st_starts != NNS__ARG_KNOWN || a.st_ends != NNS__ARG_KNOWN ||
      a.st_steps == NNS__ARG_UNKNOWN ||
      !nns__dims_known(a.starts, a.n_starts) ||
      !nns__dims_known(a.ends, a.n_ends) ||
      (a.st_steps == NNS__ARG_KNOWN && !nns__dims_known(a.steps, a.n_steps)) ||
      slice_axes(cx, &a, r, axes) != NNS_OK)
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  const nns__type *ty = nns__out_type_of(cx, 0);
  if (!y || ty->rank != r)
    return NNS__NOFOLD;
  int64_t start[NNS__RANK_LIMIT], step[NNS__RANK_LIMIT];
  int64_t xs[NNS__RANK_LIMIT], c[NNS__RANK_LIMIT];
  for (int32_t k = 0; k < r; k++)
    start[k] = 0, step[k] = 1;
  for (int64_t i = 0; i < a.n_starts; i++) {
    int32_t ax = axes[i];
    step[ax] = a.st_steps == NNS__ARG_KNOWN ? a.steps[i].v : 1;
    if (step[ax] == 0 || slice_exact(tx->dims[ax].v, a.starts[i].v, a.ends[i].v,
                                     step[ax], &start[ax]) != ty->dims[ax].v)
      return NNS__NOFOLD;
  }
  nns__strides(tx, xs);
  for (int64_t o = 0; o < y->numel; o++) {
    nns__unravel(ty, o, c);
    int64_t src = 0;
    for (int32_t k = 0; k < r; k++)
      src += (start[k] + c[k] * step[k]) * xs[k];
    if (src < 0 || src >= x->numel || !nns__elem_copy(y, o, x, src))
      return NNS__NOFOLD;
  }
  return NNS_OK;
}

/*
 * Receptive field of Gather along a dim that holds no spatial axis (q, k
 * and v picked out of one tensor): the spatial dims after it move by the
 * rank of the indices less one. Picking positions along a spatial dim
 * loses the axes (whole).
 */
static nns_status gather_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  const nns__type *x = nns__in_type(cx, 0), *ix = nns__in_type(cx, 1);
  int32_t axis;
  if (in->f.whole)
    return NNS_OK;
  if (!x || !ix || x->rank < 0 || ix->rank < 0 ||
      !nns__axis(nns__attr_int(cx, "axis"), x->rank, &axis) ||
      nns__rf_axis_at(in, axis) >= 0) {
    nns__rf_set_whole(out);
    return NNS_OK;
  }
  int32_t shift = ix->rank - 1;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++) {
    if (in->dim[k] > axis)
      out->dim[k] = (int8_t)(in->dim[k] + shift);
    if (in->win[k] && in->wdim[k] > axis)
      out->wdim[k] = (int8_t)(in->wdim[k] + shift);
  }
  return NNS_OK;
}

/*
 * Receptive field: output pixel i of a sliced spatial dim is input pixel
 * first + i*step, so the effective padding drops by first*j and the jump
 * becomes j*step; the field is the input's. A negative step (a flip) or
 * bounds that are not known constants leave the field as it is.
 */
static nns_status slice_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  const nns__type *x = nns__in_type(cx, 0);
  if (in->f.whole || !x || x->rank < 0 || x->rank > NNS__RANK_LIMIT)
    return NNS_OK;
  if (!nns__rf_plain(in)) {
    nns__rf_set_whole(out);
    return NNS_OK;
  }
  slice_args a;
  slice_read(cx, &a);
  int32_t axes[NNS__RANK_LIMIT];
  if (a.st_starts != NNS__ARG_KNOWN || a.st_ends != NNS__ARG_KNOWN ||
      a.st_steps == NNS__ARG_UNKNOWN ||
      slice_axes(cx, &a, x->rank, axes) != NNS_OK)
    return NNS_OK;
  for (int64_t i = 0; i < a.n_starts; i++) {
    int k = nns__rf_axis_at(in, axes[i]);
    nns__dim step = a.st_steps == NNS__ARG_KNOWN ? a.steps[i]
                                                 : nns__dim_known(1);
    nns__dim d = x->dims[axes[i]], s = a.starts[i], e = a.ends[i];
    if (k < 0 || step.sym || step.v < 1 || d.sym || s.sym || e.sym)
      continue;
    int64_t first;
    slice_exact(d.v, s.v, e.v, step.v, &first);
    nns__rf_resample(cx->rf_pool, out, k, first, step.v);
  }
  return NNS_OK;
}

bool nns__slice_span(nns__ictx *cx, int32_t *axis, int64_t *first,
                     int64_t *len) {
  const nns__type *x = nns__in_type(cx, 0);
  if (cx->op->rf != slice_rf || !x || x->rank < 1 ||
      x->rank > NNS__RANK_LIMIT)
    return false; /* not a Slice (its table entry) */
  slice_args a;
  slice_read(cx, &a);
  int32_t axes[NNS__RANK_LIMIT];
  if (a.st_starts != NNS__ARG_KNOWN || a.st_ends != NNS__ARG_KNOWN ||
      a.st_steps == NNS__ARG_UNKNOWN || a.n_starts != 1 ||
      slice_axes(cx, &a, x->rank, axes) != NNS_OK)
    return false;
  nns__dim d = x->dims[axes[0]], s = a.starts[0], e = a.ends[0];
  nns__dim step = a.st_steps == NNS__ARG_KNOWN ? a.steps[0]
                                               : nns__dim_known(1);
  if (d.sym || s.sym || e.sym || step.sym || step.v != 1)
    return false;
  *axis = axes[0];
  *len = slice_exact(d.v, s.v, e.v, 1, first);
  return true;
}

static const nns__attr_spec slice1_attrs[] = {
    NNS__A_REQ("starts", INTS), NNS__A_REQ("ends", INTS),
    NNS__A_OPT("axes", INTS), NNS__A_END};

/* ==== Gather ==== */

/* Gather's and GatherND's data x and indices ix, both of known rank.
 * False with *st to return otherwise: the indices are missing, or the
 * output takes the data's dtype with an unknown rank. */
static bool gather_ranked(nns__ictx *cx, const nns__type **x,
                          const nns__type **ix, nns_status *st) {
  *x = nns__in_type(cx, 0);
  *ix = nns__in_type(cx, 1);
  *st = NNS_OK;
  if (!*ix)
    *st = missing_input(cx, "indices");
  else if (!*x || (*x)->rank < 0 || (*ix)->rank < 0)
    nns__out_shape(cx, 0, nns__in_dtype(cx, 0), -1);
  else
    return true;
  return false;
}

static nns_status gather_shape(nns__ictx *cx) {
  const nns__type *x, *ix;
  nns_status st;
  if (!gather_ranked(cx, &x, &ix, &st))
    return st;
  int32_t dt = nns__in_dtype(cx, 0);
  int32_t axis;
  st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank, &axis, "axis");
  if (st != NNS_OK)
    return st;
  int64_t r = (int64_t)x->rank - 1 + ix->rank;
  if (r > NNS__RANK_LIMIT)
    return nns__fail(cx, NNS_E_LIMIT, "output rank %lld is beyond %d",
                     (long long)r, NNS__RANK_LIMIT);
  /* Known indices into a known dim must be in range. */
  const int64_t *iv;
  int64_t n;
  nns__dim dim = x->dims[axis];
  if (!dim.sym && nns__in_known_ints(cx, 1, &iv, &n))
    for (int64_t k = 0; k < n; k++)
      if (iv[k] < -dim.v || iv[k] >= dim.v)
        return nns__fail(cx, NNS_E_SHAPE,
                         "index %lld is out of range for axis %d of size "
                         "%lld",
                         (long long)iv[k], axis, (long long)dim.v);
  nns__dim *d = nns__out_shape(cx, 0, dt, (int32_t)r);
  if (!d)
    return NNS_OK;
  int32_t j = 0;
  for (int32_t k = 0; k < axis; k++)
    d[j++] = x->dims[k];
  for (int32_t k = 0; k < ix->rank; k++)
    d[j++] = ix->dims[k];
  for (int32_t k = axis + 1; k < x->rank; k++)
    d[j++] = x->dims[k];
  return NNS_OK;
}

/* Reads index `v` into a dim of size d (negative counts from the end);
 * false when out of range or symbolic. */
static bool index_in(nns__dim v, int64_t d, int64_t *out) {
  if (v.sym || v.v < -d || v.v >= d)
    return false;
  *out = v.v < 0 ? v.v + d : v.v;
  return true;
}

static nns_status gather_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0), *ix = nns__fold_in(cx, 1);
  if (!x || !ix || !ix->i)
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  int32_t axis;
  if (!y || !nns__axis(nns__attr_int(cx, "axis"), tx->rank, &axis))
    return NNS__NOFOLD;
  int64_t outer = 1, inner = 1, dim = tx->dims[axis].v, q = ix->numel;
  for (int32_t k = 0; k < axis; k++)
    outer *= tx->dims[k].v;
  for (int32_t k = axis + 1; k < tx->rank; k++)
    inner *= tx->dims[k].v;
  if (outer * q * inner != y->numel)
    return NNS__NOFOLD;
  for (int64_t b = 0; b < outer; b++)
    for (int64_t j = 0; j < q; j++) {
      int64_t at;
      if (!index_in(ix->i[j], dim, &at))
        return NNS__NOFOLD;
      for (int64_t e = 0; e < inner; e++)
        if (!nns__elem_copy(y, (b * q + j) * inner + e, x,
                            (b * dim + at) * inner + e))
          return NNS__NOFOLD;
    }
  return NNS_OK;
}

static const nns__attr_spec axis0_attrs[] = {NNS__A_INT("axis", 0), NNS__A_END};

/* ==== GatherElements ==== */

/* The flat position in the data (type tx, strides xs) that element o of
 * the indices (type ti, values ix) names along `axis`: GatherElements
 * reads there, ScatterElements writes there. False when the index or a
 * coordinate is out of the data's range. */
static bool element_at(const nns__type *tx, const int64_t *xs,
                       const nns__type *ti, const nns__const *ix,
                       int32_t axis, int64_t o, int64_t *at) {
  int64_t c[NNS__RANK_LIMIT];
  nns__unravel(ti, o, c);
  if (!index_in(ix->i[o], tx->dims[axis].v, &c[axis]))
    return false;
  int64_t p = 0;
  for (int32_t k = 0; k < tx->rank; k++) {
    if (c[k] >= tx->dims[k].v)
      return false;
    p += c[k] * xs[k];
  }
  *at = p;
  return true;
}

static nns_status gather_elements_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0), *ix = nns__in_type(cx, 1);
  int32_t dt = nns__in_dtype(cx, 0);
  if (!ix)
    return missing_input(cx, "indices");
  if (x && x->rank >= 0) {
    int32_t axis;
    nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank,
                                      &axis, "axis");
    if (st != NNS_OK)
      return st;
    if (ix->rank >= 0 && ix->rank != x->rank)
      return nns__fail(cx, NNS_E_SHAPE, "indices have rank %d, data %d",
                       ix->rank, x->rank);
  }
  /* The output has the indices' shape and the data's dtype. */
  nns__dim *d = nns__out_shape(cx, 0, dt, ix->rank);
  if (d)
    nns__dims_copy(d, ix->dims, ix->rank);
  return NNS_OK;
}

static nns_status gather_elements_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0), *ix = nns__fold_in(cx, 1);
  if (!x || !ix || !ix->i)
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  const nns__type *tx = nns__in_type(cx, 0), *ti = nns__in_type(cx, 1);
  int32_t axis;
  if (!y || y->numel != ix->numel || ti->rank != tx->rank ||
      !nns__axis(nns__attr_int(cx, "axis"), tx->rank, &axis))
    return NNS__NOFOLD;
  int64_t xs[NNS__RANK_LIMIT];
  nns__strides(tx, xs);
  for (int64_t o = 0; o < y->numel; o++) {
    int64_t src;
    if (!element_at(tx, xs, ti, ix, axis, o, &src) ||
        !nns__elem_copy(y, o, x, src))
      return NNS__NOFOLD;
  }
  return NNS_OK;
}

/* ==== GatherND ==== */

static nns_status gather_nd_shape(nns__ictx *cx) {
  const nns__type *x, *ix;
  nns_status st;
  if (!gather_ranked(cx, &x, &ix, &st))
    return st;
  int32_t dt = nns__in_dtype(cx, 0);
  int64_t b = cx->op->since >= 12 ? nns__attr_int(cx, "batch_dims") : 0;
  int32_t r = x->rank, q = ix->rank;
  if (q < 1 || r < 1)
    return nns__fail(cx, NNS_E_SHAPE,
                     "data rank %d and indices rank %d "
                     "must both be at least 1",
                     r, q);
  if (b < 0 || b >= q || b >= r)
    return nns__fail(cx, NNS_E_ATTR,
                     "batch_dims %lld must be below the "
                     "ranks of data (%d) and indices (%d)",
                     (long long)b, r, q);
  nns__dim last = ix->dims[q - 1];
  if (last.sym) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  if (last.v < 1 || last.v > r - b)
    return nns__fail(cx, NNS_E_SHAPE,
                     "indices' last dim %lld must be in "
                     "1..%lld (data rank %d minus batch_dims)",
                     (long long)last.v, (long long)(r - b), r);
  int32_t out_r = q - 1 + r - (int32_t)b - (int32_t)last.v;
  if (out_r > NNS__RANK_LIMIT)
    return nns__fail(cx, NNS_E_LIMIT, "output rank %d is beyond %d", out_r,
                     NNS__RANK_LIMIT);
  nns__dim *d = nns__out_shape(cx, 0, dt, out_r);
  int32_t j = 0;
  for (int32_t k = 0; d && k < b; k++) {
    nns__dim e = x->dims[k], f = ix->dims[k];
    if (!e.sym && !f.sym && e.v != f.v)
      return nns__fail(cx, NNS_E_SHAPE,
                       "batch dim %d is %lld in data but "
                       "%lld in indices",
                       k, (long long)e.v, (long long)f.v);
    d[j++] = e.sym ? f : e;
  }
  for (int32_t k = (int32_t)b; d && k < q - 1; k++)
    d[j++] = ix->dims[k];
  for (int32_t k = (int32_t)(b + last.v); d && k < r; k++)
    d[j++] = x->dims[k];
  return NNS_OK;
}

static const nns__attr_spec gather_nd12_attrs[] = {NNS__A_INT("batch_dims", 0),
                                                   NNS__A_END};

/* ==== Scatter family ==== */

/* Checks that two shapes agree where both dims are known. */
static nns_status dims_agree(nns__ictx *cx, const nns__dim *a,
                             const nns__dim *b, int32_t n, const char *what) {
  for (int32_t k = 0; k < n; k++)
    if (!a[k].sym && !b[k].sym && a[k].v != b[k].v)
      return nns__fail(cx, NNS_E_SHAPE, "%s differ in dim %d: %lld vs %lld",
                       what, k, (long long)a[k].v, (long long)b[k].v);
  return NNS_OK;
}

/* The scatter reduction: 0 none, 1 add, 2 mul, 3 min, 4 max; -1 for
 * another. min and max are ONNX 18's, taken at every opset from 16: the
 * recorder spells scatter_reduce's amin/amax so, and nothing else in
 * those opsets means otherwise. */
static int reduction_of(nns__ictx *cx) {
  static const char *const names[] = {"none", "add", "mul", "min", "max"};
  const char *red = nns__attr_str(cx, "reduction"); /* "" before opset 16 */
  if (!red[0])
    return 0;
  for (int k = 0; k < 5; k++)
    if (strcmp(red, names[k]) == 0)
      return k;
  return -1;
}

static nns_status reduction_ok(nns__ictx *cx) {
  if (reduction_of(cx) < 0)
    return nns__fail(cx, NNS_E_ATTR, "reduction '%s' is not none, add, mul, "
                     "min or max", nns__attr_str(cx, "reduction"));
  return NNS_OK;
}

/* Every scatter's inputs: the data x (its type may be unknown), indices
 * ix and updates u, which must be there, and a reduction it knows. */
static nns_status scatter_inputs(nns__ictx *cx, const nns__type **x,
                                 const nns__type **ix, const nns__type **u) {
  *x = nns__in_type(cx, 0);
  *ix = nns__in_type(cx, 1);
  *u = nns__in_type(cx, 2);
  if (!*ix || !*u)
    return missing_input(cx, *ix ? "updates" : "indices");
  return reduction_ok(cx);
}

/* Scatter and ScatterElements: indices and updates have the data's rank
 * and one shape. The output is the data's type. */
static nns_status scatter_elements_shape(nns__ictx *cx) {
  const nns__type *x, *ix, *u;
  nns_status st = scatter_inputs(cx, &x, &ix, &u);
  if (!ix || !u)
    return st;
  if (st == NNS_OK && x && x->rank >= 0) {
    int32_t axis;
    st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank, &axis,
                           "axis");
    if (st == NNS_OK && ix->rank >= 0 && ix->rank != x->rank)
      st = nns__fail(cx, NNS_E_SHAPE, "indices have rank %d, data %d", ix->rank,
                     x->rank);
  }
  if (st == NNS_OK && ix->rank >= 0 && u->rank >= 0) {
    if (ix->rank != u->rank)
      return nns__fail(cx, NNS_E_SHAPE, "indices have rank %d, updates %d",
                       ix->rank, u->rank);
    st = dims_agree(cx, ix->dims, u->dims, ix->rank, "indices and updates");
  }
  if (st == NNS_OK)
    nns__out_like(cx, 0, 0, 0);
  return st;
}

/* ScatterND: updates has shape indices.shape[:-1] + data.shape[k:], where
 * k = indices.shape[-1]. */
static nns_status scatter_nd_shape(nns__ictx *cx) {
  const nns__type *x, *ix, *u;
  nns_status st = scatter_inputs(cx, &x, &ix, &u);
  if (st != NNS_OK)
    return st;
  if (x && x->rank >= 0 && ix->rank >= 1 && u->rank >= 0 &&
      !ix->dims[ix->rank - 1].sym) {
    int64_t k = ix->dims[ix->rank - 1].v;
    if (k > x->rank)
      return nns__fail(cx, NNS_E_SHAPE,
                       "indices' last dim %lld exceeds the "
                       "data's rank %d",
                       (long long)k, x->rank);
    int64_t want = ix->rank - 1 + x->rank - k;
    if (u->rank != want)
      return nns__fail(cx, NNS_E_SHAPE,
                       "updates have rank %d, expected "
                       "%lld",
                       u->rank, (long long)want);
    st = dims_agree(cx, u->dims, ix->dims, ix->rank - 1, "updates and indices");
    if (st == NNS_OK)
      st = dims_agree(cx, u->dims + ix->rank - 1, x->dims + k,
                      x->rank - (int32_t)k, "updates and data");
    if (st != NNS_OK)
      return st;
  }
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

/* Writes update element ui into output element yi with the reduction
 * (reduction_of's numbers); integer elements stay symbolic under add and
 * mul, and min and max fold known numbers only. */
static bool scatter_put(nns__ictx *cx, nns__const *y, int64_t yi,
                        const nns__const *u, int64_t ui, int red) {
  if (red == 0)
    return nns__elem_copy(y, yi, u, ui);
  if (y->i && u->i && red >= 3) {
    nns__dim a = y->i[yi], b = u->i[ui];
    if (a.sym || b.sym)
      return false;
    y->i[yi] = (red == 3) == (b.v < a.v) ? b : a;
  } else if (y->i && u->i)
    y->i[yi] = red == 1 ? nns__add(cx, y->i[yi], u->i[ui])
                        : nns__mul(cx, y->i[yi], u->i[ui]);
  else if (y->f && u->f && red >= 3)
    y->f[yi] = red == 3 ? fmin(y->f[yi], u->f[ui]) : fmax(y->f[yi], u->f[ui]);
  else if (y->f && u->f)
    y->f[yi] = red == 1 ? y->f[yi] + u->f[ui] : y->f[yi] * u->f[ui];
  else
    return false;
  return true;
}

/* The output starts as a copy of the data; returns the reduction, or -1
 * when the fold cannot run. */
static int scatter_begin(nns__ictx *cx, const nns__const **x,
                         const nns__const **ix, const nns__const **u,
                         nns__const **y) {
  *x = nns__fold_in(cx, 0);
  *ix = nns__fold_in(cx, 1);
  *u = nns__fold_in(cx, 2);
  if (!*x || !*ix || !(*ix)->i || !*u)
    return -1;
  *y = nns__out_const(cx, 0);
  if (!*y || (*y)->numel != (*x)->numel)
    return -1;
  for (int64_t k = 0; k < (*y)->numel; k++)
    if (!nns__elem_copy(*y, k, *x, k))
      return -1;
  return reduction_of(cx);
}

static nns_status scatter_elements_fold(nns__ictx *cx) {
  const nns__const *x, *ix, *u;
  nns__const *y;
  int red = scatter_begin(cx, &x, &ix, &u, &y);
  const nns__type *tx = nns__in_type(cx, 0), *ti = nns__in_type(cx, 1);
  int32_t axis;
  if (red < 0 || ix->numel != u->numel || ti->rank != tx->rank ||
      !nns__axis(nns__attr_int(cx, "axis"), tx->rank, &axis))
    return NNS__NOFOLD;
  int64_t xs[NNS__RANK_LIMIT];
  nns__strides(tx, xs);
  for (int64_t o = 0; o < ix->numel; o++) {
    int64_t at;
    if (!element_at(tx, xs, ti, ix, axis, o, &at) ||
        !scatter_put(cx, y, at, u, o, red))
      return NNS__NOFOLD;
  }
  return NNS_OK;
}

static nns_status scatter_nd_fold(nns__ictx *cx) {
  const nns__const *x, *ix, *u;
  nns__const *y;
  int red = scatter_begin(cx, &x, &ix, &u, &y);
  const nns__type *tx = nns__in_type(cx, 0), *ti = nns__in_type(cx, 1);
  if (red < 0 || ti->rank < 1)
    return NNS__NOFOLD;
  int64_t k = ti->dims[ti->rank - 1].v, xs[NNS__RANK_LIMIT];
  if (k < 1 || k > tx->rank)
    return NNS__NOFOLD;
  nns__strides(tx, xs);
  int64_t slice = k < tx->rank ? xs[k - 1] : 1, n = ix->numel / k;
  if (n * slice != u->numel)
    return NNS__NOFOLD;
  for (int64_t i = 0; i < n; i++) {
    int64_t at = 0, v;
    for (int64_t j = 0; j < k; j++) {
      if (!index_in(ix->i[i * k + j], tx->dims[j].v, &v))
        return NNS__NOFOLD;
      at += v * xs[j];
    }
    for (int64_t e = 0; e < slice; e++)
      if (!scatter_put(cx, y, at + e, u, i * slice + e, red))
        return NNS__NOFOLD;
  }
  return NNS_OK;
}

static const nns__attr_spec scatter16_attrs[] = {
    NNS__A_INT("axis", 0), NNS__A_STR("reduction", "none"), NNS__A_END};
static const nns__attr_spec tensor_scatter_attrs[] = {
    NNS__A_INT("axis", -2), NNS__A_STR("mode", "linear"), NNS__A_END};
static const nns__attr_spec scatter_nd16_attrs[] = {
    NNS__A_STR("reduction", "none"), NNS__A_END};

/* ==== Compress ==== */

/* Number of selected slices when the condition is constant, else -1.
 * Entries past `limit` (the dim, when known) are discarded. */
static int64_t compress_count(nns__ictx *cx, int64_t limit) {
  const int64_t *c;
  int64_t n, count = 0;
  if (!nns__in_known_ints(cx, 1, &c, &n))
    return -1;
  for (int64_t k = 0; k < n && (limit < 0 || k < limit); k++)
    count += c[k] != 0;
  return count;
}

static nns_status compress_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  if (!nns__has_in(cx, 1))
    return missing_input(cx, "condition");
  if (!nns__attr_has(cx, "axis")) {
    nns__dim *d = nns__out_shape(cx, 0, dt, 1);
    int64_t count = compress_count(cx, nns__in_numel(cx, 0));
    if (d && count >= 0)
      d[0] = nns__dim_known(count);
    return NNS_OK;
  }
  if (!x || x->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  int32_t axis;
  nns_status st =
      nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank, &axis, "axis");
  if (st != NNS_OK)
    return st;
  nns__dim *d = nns__out_shape(cx, 0, dt, x->rank);
  if (!d)
    return NNS_OK;
  nns__dims_copy(d, x->dims, x->rank);
  int64_t count = compress_count(cx, x->dims[axis].sym ? -1 : x->dims[axis].v);
  d[axis] = count >= 0 ? nns__dim_known(count) : nns__fresh(cx);
  return NNS_OK;
}

static nns_status compress_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  const int64_t *c;
  int64_t n;
  if (!x || !nns__in_known_ints(cx, 1, &c, &n))
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  if (!y)
    return NNS__NOFOLD;
  int64_t outer = 1, dim = x->numel, inner = 1, o = 0;
  if (nns__attr_has(cx, "axis")) {
    int32_t axis;
    if (!nns__axis(nns__attr_int(cx, "axis"), tx->rank, &axis))
      return NNS__NOFOLD;
    dim = tx->dims[axis].v;
    for (int32_t k = 0; k < axis; k++)
      outer *= tx->dims[k].v;
    for (int32_t k = axis + 1; k < tx->rank; k++)
      inner *= tx->dims[k].v;
  }
  for (int64_t b = 0; b < outer; b++)
    for (int64_t j = 0; j < dim && j < n; j++)
      for (int64_t e = 0; c[j] && e < inner; e++, o++)
        if (o >= y->numel ||
            !nns__elem_copy(y, o, x, (b * dim + j) * inner + e))
          return NNS__NOFOLD;
  return o == y->numel ? NNS_OK : NNS__NOFOLD;
}

static const nns__attr_spec compress_attrs[] = {NNS__A_OPT("axis", INT),
                                                NNS__A_END};

/* ==== OneHot ==== */

static nns_status onehot_shape(nns__ictx *cx) {
  const nns__type *ix = nns__in_type(cx, 0);
  if (!nns__has_in(cx, 1) || !nns__has_in(cx, 2))
    return missing_input(cx, nns__has_in(cx, 1) ? "values" : "depth");
  int32_t dt = nns__in_dtype(cx, 2);
  if (!ix || ix->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  if (ix->rank + 1 > NNS__RANK_LIMIT)
    return nns__fail(cx, NNS_E_LIMIT, "output rank %d is beyond %d",
                     ix->rank + 1, NNS__RANK_LIMIT);
  int32_t axis;
  nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), ix->rank + 1,
                                    &axis, "axis");
  if (st != NNS_OK)
    return st;
  nns__dim *d = nns__out_shape(cx, 0, dt, ix->rank + 1);
  if (!d)
    return NNS_OK;
  for (int32_t k = 0, j = 0; k <= ix->rank; k++)
    if (k != axis)
      d[k] = ix->dims[j++];
  /* depth: a one-element tensor of any numeric type, cast to int64. */
  const nns__const *c = nns__in_const(cx, 1);
  if (c && c->numel == 1) {
    if (c->i && !c->i[0].sym)
      d[axis] = c->i[0];
    else if (c->f && c->f[0] >= 0 && c->f[0] < 9.2e18)
      d[axis] = nns__dim_known((int64_t)c->f[0]);
    else if (c->i)
      d[axis] = c->i[0]; /* a symbolic depth: the same symbol */
    if (!d[axis].sym && d[axis].v < 1)
      return nns__fail(cx, NNS_E_SHAPE, "depth %lld is not positive",
                       (long long)d[axis].v);
  }
  return NNS_OK;
}

static const nns__attr_spec onehot_attrs[] = {NNS__A_INT("axis", -1),
                                              NNS__A_END};

/* ==== Trilu ==== */

static nns_status same_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

static nns_status trilu_shape(nns__ictx *cx) {
  int32_t r = nns__in_rank(cx, 0);
  if (r >= 0 && r < 2)
    return nns__fail(cx, NNS_E_SHAPE, "input rank %d is below 2", r);
  return same_shape(cx);
}

static nns_status trilu_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  int64_t k = 0;
  if (nns__has_in(cx, 1)) {
    const int64_t *kv;
    int64_t n;
    if (!nns__in_known_ints(cx, 1, &kv, &n) || n != 1)
      return NNS__NOFOLD;
    k = kv[0];
  }
  nns__const *y = x ? nns__out_const(cx, 0) : NULL;
  const nns__type *tx = nns__in_type(cx, 0);
  if (!y || y->s || tx->rank < 2)
    return NNS__NOFOLD;
  bool upper = nns__attr_int(cx, "upper") != 0;
  int64_t rows = tx->dims[tx->rank - 2].v, cols = tx->dims[tx->rank - 1].v;
  for (int64_t o = 0; o < y->numel; o++) {
    int64_t j = o % cols, i = (o / cols) % rows;
    /* Upper keeps j - i >= k; lower keeps j - i <= k. */
    bool keep = upper ? j - i >= k : j - i <= k;
    if (keep)
      nns__elem_copy(y, o, x, o);
    else if (y->i)
      y->i[o] = nns__dim_known(0);
    else
      y->f[o] = 0.0;
  }
  return NNS_OK;
}

static const nns__attr_spec trilu_attrs[] = {NNS__A_INT("upper", 1),
                                             NNS__A_END};

/* ==== ReverseSequence ==== */

static nns_status reverse_sequence_shape(nns__ictx *cx) {
  int64_t b = nns__attr_int(cx, "batch_axis"),
          t = nns__attr_int(cx, "time_axis");
  if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t)
    return nns__fail(cx, NNS_E_ATTR,
                     "batch_axis %lld and time_axis %lld "
                     "must be 0 and 1 in some order",
                     (long long)b, (long long)t);
  const nns__type *x = nns__in_type(cx, 0), *l = nns__in_type(cx, 1);
  if (x && x->rank >= 0 && x->rank < 2)
    return nns__fail(cx, NNS_E_SHAPE, "input rank %d is below 2", x->rank);
  if (x && x->rank >= 2 && l && l->rank == 1 && !l->dims[0].sym &&
      !x->dims[b].sym && l->dims[0].v != x->dims[b].v)
    return nns__fail(cx, NNS_E_SHAPE,
                     "sequence_lens has %lld entries for "
                     "a batch of %lld",
                     (long long)l->dims[0].v, (long long)x->dims[b].v);
  return same_shape(cx);
}

static const nns__attr_spec reverse_sequence_attrs[] = {
    NNS__A_INT("batch_axis", 1), NNS__A_INT("time_axis", 0), NNS__A_END};

/* ==== NonZero ==== */

/* Count of non-zero elements of a constant input, else -1. */
static int64_t nonzero_count(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  if (!x || x->s)
    return -1;
  int64_t n = 0;
  for (int64_t k = 0; k < x->numel; k++) {
    if (x->i && x->i[k].sym)
      return -1; /* a symbol may be zero or not */
    n += x->i ? x->i[k].v != 0 : x->f[k] != 0.0;
  }
  return n;
}

static nns_status nonzero_shape(nns__ictx *cx) {
  nns__dim *d = nns__out_shape(cx, 0, NNS_DT_INT64, 2);
  int32_t r = nns__in_rank(cx, 0);
  int64_t n = nonzero_count(cx);
  if (d && r >= 0)
    d[0] = nns__dim_known(r);
  if (d && n >= 0)
    d[1] = nns__dim_known(n);
  return NNS_OK;
}

static nns_status nonzero_fold(nns__ictx *cx) {
  const nns__const *x = nns__fold_in(cx, 0);
  int64_t n = nonzero_count(cx);
  nns__const *y = n >= 0 ? nns__out_const(cx, 0) : NULL;
  const nns__type *tx = nns__in_type(cx, 0);
  if (!x || !y || !y->i || y->numel != n * tx->rank)
    return NNS__NOFOLD;
  int64_t c[NNS__RANK_LIMIT], j = 0;
  for (int64_t o = 0; o < x->numel; o++) {
    if (x->i ? x->i[o].v == 0 : x->f[o] == 0.0)
      continue;
    nns__unravel(tx, o, c);
    for (int32_t k = 0; k < tx->rank; k++)
      y->i[k * n + j] = nns__dim_known(c[k]);
    j++;
  }
  return NNS_OK;
}

/* ==== Cost rules ==== */

/* Slice: each output element is read once from the data and written. */
static nns_status slice_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_rw(cx, c, 0, nns__out_count(cx, c, 0));
}

/*
 * Gather, GatherElements, GatherND, Compress: the index (or condition)
 * tensor is read whole, then one data element per output element:
 * DMAs numel(input 1) + 2 numel(Y). An embedding lookup of [B, S] ids in a
 * [V, D] table reads B*S ids and B*S*D table entries, never the whole V*D
 * table.
 */
static nns_status pick_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y = nns__out_count(cx, c, 0), idx = nns__in_count(cx, c, 1);
  if (y < 0 || idx < 0)
    return NNS__UNCOUNTED;
  return nns__cost_rw(cx, c, 0, nns__cadd(c, y, idx));
}

/*
 * Scatter, ScatterElements, ScatterND: Y starts as a copy of the data
 * (numel(X) read; numel(Y) written), then each update reads its index (the
 * indices tensor, once) and its value and writes it into Y. A reduction
 * (add, mul, max, min; opset 16) also reads the element it combines with
 * and does one FLOP:
 *   FLOPs  reduction ? numel(updates) : 0
 *   DMAs   numel(X) + numel(indices) + (reduction ? 3 : 2) numel(updates)
 *          + numel(Y)
 */
static nns_status scatter_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), idx = nns__in_count(cx, c, 1),
          u = nns__in_count(cx, c, 2);
  if (x < 0 || idx < 0 || u < 0)
    return NNS__UNCOUNTED;
  const char *r = nns__attr_str(cx, "reduction"); /* "" before opset 16 */
  bool reduce = r[0] && strcmp(r, "none") != 0;
  int64_t reads = nns__cadd(c, x, idx);
  reads = nns__cadd(c, reads, nns__cmul(c, reduce ? 3 : 2, u));
  return nns__cost_rw(cx, c, reduce ? u : 0, reads);
}

/*
 * TensorScatter (opset 24): the KV-cache update. present_cache is
 * past_cache with `update` written at each batch row's write index along
 * `axis` (linear or circular); it is counted as Scatter is, without a
 * reduction: DMAs numel(past) + numel(write_indices) + 2 numel(update) +
 * numel(present).
 */
static nns_status tensor_scatter_shape(nns__ictx *cx) {
  const nns__type *p = nns__in_type(cx, 0), *u = nns__in_type(cx, 1);
  if (p && u && p->rank >= 0 && u->rank >= 0 && p->rank != u->rank)
    return nns__fail(cx, NNS_E_SHAPE, "update has rank %d, past_cache %d",
                     u->rank, p->rank);
  if (p && p->rank >= 0) {
    int32_t axis;
    nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), p->rank,
                                      &axis, "axis");
    if (st != NNS_OK)
      return st;
    if (axis == 0)
      return nns__fail(cx, NNS_E_ATTR, "axis is the batch axis");
  }
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

static nns_status tensor_scatter_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), u = nns__in_count(cx, c, 1),
          idx = nns__has_in(cx, 2) ? nns__in_count(cx, c, 2) : 0;
  if (x < 0 || idx < 0 || u < 0)
    return NNS__UNCOUNTED;
  int64_t reads = nns__cadd(c, nns__cadd(c, x, idx), nns__cmul(c, 2, u));
  return nns__cost_rw(cx, c, 0, reads);
}

/* NonZero: one comparison with zero per element of X. */
static nns_status nonzero_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_x(cx, c, 1, 0);
}

/* ==== Table ==== */

const nns__op nns__ops_shape_index[] = {
    {"", "Slice", 1, 9, "a", slice1_attrs, slice_shape, slice_fold,
     .cost = slice_cost, .rf = slice_rf, .rf_parts = true,
     .picks = true},
    {"", "Slice", 10, NNS__OPSET_MAX, "acccc", NULL, slice_shape, slice_fold,
     .cost = slice_cost, .rf = slice_rf, .rf_parts = true,
     .picks = true},
    {"", "Gather", 1, NNS__OPSET_MAX, "wc", axis0_attrs, gather_shape, gather_fold,
     .cost = pick_cost, .rf = gather_rf, .rf_parts = true,
     .picks = true},
    {"", "GatherElements", 11, NNS__OPSET_MAX, "ac", axis0_attrs,
     gather_elements_shape,
     gather_elements_fold, .cost = pick_cost, .picks = true},
    {"", "GatherND", 11, 11, "ac", NULL, gather_nd_shape, NULL,
     .cost = pick_cost, .picks = true},
    {"", "GatherND", 12, NNS__OPSET_MAX, "ac", gather_nd12_attrs,
     gather_nd_shape, NULL,
     .cost = pick_cost, .picks = true},
    {"", "Scatter", 9, NNS__OPSET_MAX, "aca", axis0_attrs,
     scatter_elements_shape,
     scatter_elements_fold, .cost = scatter_cost},
    {"", "ScatterElements", 11, 15, "aca", axis0_attrs, scatter_elements_shape,
     scatter_elements_fold, .cost = scatter_cost},
    {"", "ScatterElements", 16, NNS__OPSET_MAX, "aca", scatter16_attrs,
     scatter_elements_shape, scatter_elements_fold, .cost = scatter_cost},
    {"", "ScatterND", 11, 15, "aca", NULL, scatter_nd_shape, scatter_nd_fold,
     .cost = scatter_cost},
    {"", "ScatterND", 16, NNS__OPSET_MAX, "aca", scatter_nd16_attrs,
     scatter_nd_shape,
     scatter_nd_fold, .cost = scatter_cost},
    {"", "TensorScatter", 24, NNS__OPSET_MAX, "aac", tensor_scatter_attrs,
     tensor_scatter_shape, NULL, .cost = tensor_scatter_cost},
    {"", "Compress", 9, NNS__OPSET_MAX, "ac", compress_attrs, compress_shape,
     compress_fold, .cost = pick_cost, .picks = true},
    /* Writes Y, reading the indices; depth and values are arguments. */
    {"", "OneHot", 9, NNS__OPSET_MAX, "acc", onehot_attrs, onehot_shape, NULL,
     .cost = nns__cost_move_x},
    {"", "Trilu", 14, NNS__OPSET_MAX, "ac", trilu_attrs, trilu_shape,
     trilu_fold,
     .cost = nns__cost_move_x, .attn = NNS__ATTN_TRIANGLE},
    {"", "ReverseSequence", 10, NNS__OPSET_MAX, "ac", reverse_sequence_attrs,
     reverse_sequence_shape, NULL, .cost = nns__cost_move},
    {"", "NonZero", 9, NNS__OPSET_MAX, "a", NULL, nonzero_shape, nonzero_fold,
     .cost = nonzero_cost, .no_grad = "1"},
    NNS__OP_END,
};
