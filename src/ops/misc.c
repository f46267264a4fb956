/*
 * misc.c - operators of the default domain that belong to no larger family:
 * detection (NonMaxSuppression), Unique, signal processing (DFT,
 * STFT, window functions, MelWeightMatrix), losses (SoftmaxCrossEntropy,
 * NegativeLogLikelihood), text (StringNormalizer, TfIdfVectorizer), and
 * the training ops of the ai.onnx.preview.training domain.
 *
 * Several of these have value-dependent output sizes (NonMaxSuppression,
 * Unique, StringNormalizer with stopwords): those dims are fresh symbols
 * unless the input is a known constant, in which case Unique and
 * StringNormalizer compute the result. Window functions fold, so a window
 * built from a constant size is a known tensor.
 *
 * Costs follow docs/metrics.md: what a straightforward implementation of
 * the ONNX definition does. Where that is data-dependent (how many boxes
 * NonMaxSuppression keeps) the worst case is counted; DFT and STFT are the
 * naive DFT, not an FFT. Each rule says its formula beside it.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "op.h"

/* ==== Helpers ==== */

/* A known (possibly symbolic) scalar integer input, e.g. a size. */
static bool in_scalar(nns__ictx *cx, int i, nns__dim *out) {
  const nns__dim *d;
  int64_t n;
  if (!nns__in_ints(cx, i, &d, &n) || n != 1)
    return false;
  *out = d[0];
  return true;
}

/* Fails unless known dims a and b agree. */
static nns_status same_dim(nns__ictx *cx, nns__dim a, nns__dim b,
                           const char *what) {
  if (!a.sym && !b.sym && a.v != b.v)
    return nns__fail(cx, NNS_E_SHAPE, "%s: %lld != %lld", what,
                     (long long)a.v, (long long)b.v);
  return NNS_OK;
}

/* ==== NonMaxSuppression ==== */

/* boxes [B, N, 4], scores [B, C, N] -> selected [K, 3] int64, K known only
 * when no box can be selected (max_output_boxes_per_class 0 or absent). */
static nns_status nms_shape(nns__ictx *cx) {
  const nns__type *b = nns__in_type(cx, 0), *s = nns__in_type(cx, 1);
  if (b && b->rank >= 0 && b->rank != 3)
    return nns__fail(cx, NNS_E_SHAPE, "boxes must have rank 3, not %d",
                     b->rank);
  if (s && s->rank >= 0 && s->rank != 3)
    return nns__fail(cx, NNS_E_SHAPE, "scores must have rank 3, not %d",
                     s->rank);
  nns_status st = NNS_OK;
  if (b && b->rank == 3)
    st = same_dim(cx, b->dims[2], nns__dim_known(4), "boxes' last dim");
  if (st == NNS_OK && b && s && b->rank == 3 && s->rank == 3 &&
      (st = same_dim(cx, b->dims[0], s->dims[0], "batch of boxes and scores")) ==
          NNS_OK)
    st = same_dim(cx, b->dims[1], s->dims[2], "boxes of boxes and scores");
  if (st != NNS_OK)
    return st;
  nns__dim *d = nns__out_shape(cx, 0, NNS_DT_INT64, 2);
  nns__dim m;
  if (d) {
    d[1] = nns__dim_known(3);
    if (!nns__has_in(cx, 2) || (in_scalar(cx, 2, &m) && !m.sym && m.v <= 0))
      d[0] = nns__dim_known(0);
  }
  return NNS_OK;
}

/* ==== Unique ==== */

/* Past this many element comparisons Unique is not computed. */
enum { UNIQUE_WORK_MAX = 1 << 24 };

typedef struct unique_result {
  int64_t n_slices;  /* slices along the axis (elements, if flattened) */
  int64_t n_unique;
  int64_t *first;    /* per unique slice: index of its first occurrence */
  int64_t *count;    /* per unique slice: occurrences */
  int64_t *inverse;  /* per slice: index of its unique slice */
  int64_t outer, inner;
  int32_t axis;      /* -1 when flattened */
} unique_result;

/* Compares slices a and b of x (outer x n_slices x inner). */
static int slice_cmp(const nns__const *x, const unique_result *r, int64_t a,
                     int64_t b) {
  for (int64_t o = 0; o < r->outer; o++)
    for (int64_t j = 0; j < r->inner; j++) {
      int64_t ia = (o * r->n_slices + a) * r->inner + j;
      int64_t ib = (o * r->n_slices + b) * r->inner + j;
      if (x->f) {
        if (x->f[ia] != x->f[ib])
          return x->f[ia] < x->f[ib] ? -1 : 1;
      } else if (x->i[ia].v != x->i[ib].v) {
        return x->i[ia].v < x->i[ib].v ? -1 : 1;
      }
    }
  return 0;
}

/* Finds the unique slices of a known constant input. False when the input
 * is not a known numeric constant (or NaN, or too much work). */
static bool unique_compute(nns__ictx *cx, unique_result *r) {
  const nns__const *x = nns__in_const(cx, 0);
  const nns__type *t = nns__in_type(cx, 0);
  if (!x || !t || !nns__type_static(t) || (!x->f && !x->i))
    return false;
  for (int64_t e = 0; e < x->numel; e++)
    if ((x->f && isnan(x->f[e])) || (x->i && x->i[e].sym))
      return false;
  memset(r, 0, sizeof *r);
  r->axis = -1;
  r->outer = r->inner = 1;
  r->n_slices = x->numel;
  if (nns__attr_has(cx, "axis")) {
    if (!nns__axis(nns__attr_int(cx, "axis"), t->rank, &r->axis))
      return false;
    r->n_slices = t->dims[r->axis].v;
    for (int32_t k = 0; k < t->rank; k++)
      if (k < r->axis)
        r->outer *= t->dims[k].v; /* products bounded by numel */
      else if (k > r->axis)
        r->inner *= t->dims[k].v;
  }
  int64_t n = r->n_slices, work;
  if (!nns__mul_i64(n, n, &work) ||
      !nns__mul_i64(work, r->outer * r->inner, &work) ||
      work > UNIQUE_WORK_MAX)
    return false;
  r->first = nns__alloc(cx, ((size_t)n + 1) * sizeof *r->first);
  r->count = nns__alloc(cx, ((size_t)n + 1) * sizeof *r->count);
  r->inverse = nns__alloc(cx, ((size_t)n + 1) * sizeof *r->inverse);
  if (!r->first || !r->count || !r->inverse)
    return false;
  for (int64_t k = 0; k < n; k++) {
    int64_t u = 0;
    while (u < r->n_unique && slice_cmp(x, r, r->first[u], k) != 0)
      u++;
    if (u == r->n_unique) {
      r->first[u] = k;
      r->count[u] = 0;
      r->n_unique++;
    }
    r->count[u]++;
    r->inverse[k] = u;
  }
  if (nns__attr_int(cx, "sorted")) {
    /* Insertion sort of the unique slices, then renumber inverse. */
    int64_t *rank = nns__alloc(cx, ((size_t)n + 1) * sizeof *rank);
    if (!rank)
      return false;
    for (int64_t u = 1; u < r->n_unique; u++) {
      int64_t f = r->first[u], c = r->count[u], v = u;
      while (v > 0 && slice_cmp(x, r, r->first[v - 1], f) > 0) {
        r->first[v] = r->first[v - 1];
        r->count[v] = r->count[v - 1];
        v--;
      }
      r->first[v] = f;
      r->count[v] = c;
    }
    for (int64_t u = 0; u < r->n_unique; u++)
      rank[r->first[u]] = u;
    for (int64_t k = 0; k < n; k++)
      r->inverse[k] = rank[r->first[r->inverse[k]]];
  }
  return true;
}

/* ==== Unique: shape and fold ==== */

static nns_status unique_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0), axis = -1;
  bool has_axis = nns__attr_has(cx, "axis");
  if (t && t->rank >= 0 && has_axis) {
    nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), t->rank,
                                      &axis, "axis");
    if (st != NNS_OK)
      return st;
  }
  unique_result r;
  bool known = unique_compute(cx, &r);
  nns__dim u = known ? nns__dim_known(r.n_unique) : nns__fresh(cx);
  /* Y: flattened [U], or the input with its axis of length U. */
  nns__dim *d;
  if (!has_axis) {
    if ((d = nns__out_shape(cx, 0, dt, 1)))
      d[0] = u;
  } else if (!t || t->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
  } else if ((d = nns__out_shape(cx, 0, dt, t->rank))) {
    for (int32_t k = 0; k < t->rank; k++)
      d[k] = k == axis ? u : t->dims[k];
  }
  if ((d = nns__out_shape(cx, 1, NNS_DT_INT64, 1)))
    d[0] = u;
  if ((d = nns__out_shape(cx, 2, NNS_DT_INT64, 1))) {
    /* One entry per input element (flattened) or per slice on the axis. */
    if (t && t->rank >= 0)
      d[0] = has_axis ? t->dims[axis] : nns__dims_product(cx, t->dims, t->rank);
  }
  if ((d = nns__out_shape(cx, 3, NNS_DT_INT64, 1)))
    d[0] = u;
  return NNS_OK;
}

static nns_status unique_fold(nns__ictx *cx) {
  unique_result r;
  if (!unique_compute(cx, &r))
    return NNS__NOFOLD;
  const nns__const *x = nns__in_const(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!y || (x->f && !y->f) || (x->i && !y->i))
    return NNS__NOFOLD;
  /* Y[o, u, j] = X[o, first[u], j] */
  for (int64_t o = 0, e = 0; o < r.outer; o++)
    for (int64_t u = 0; u < r.n_unique; u++)
      for (int64_t j = 0; j < r.inner; j++, e++) {
        int64_t src = (o * r.n_slices + r.first[u]) * r.inner + j;
        if (y->f)
          y->f[e] = x->f[src];
        else
          y->i[e] = x->i[src];
      }
  const int64_t *src[3] = {r.first, r.inverse, r.count};
  for (int k = 0; k < 3; k++) {
    nns__const *c = nns__out_const(cx, 1 + k);
    for (int64_t e = 0; c && e < c->numel; e++)
      c->i[e] = nns__dim_known(src[k][e]);
  }
  return NNS_OK;
}

/* ==== DFT, STFT ==== */

/* Bins of a DFT of length n: n, or n/2 + 1 when one-sided. */
static nns__dim dft_bins(nns__ictx *cx, nns__dim n, bool onesided) {
  return onesided ? nns__add(cx, nns__div(cx, n, nns__dim_known(2)),
                             nns__dim_known(1))
                  : n;
}

/* input [batch, n1, ..., nk, 1|2] -> the same with the last dim 2 (complex)
 * and dim `axis` the DFT length (dft_length, else the input's), halved
 * plus one when one-sided. */
/* DFT's axis: an attribute up to opset 19; from 20 the optional input 2
 * (default -2). False when that input is not a known scalar. */
static bool dft_axis(nns__ictx *cx, int64_t *axis) {
  if (cx->op->since < 20) {
    *axis = nns__attr_int(cx, "axis");
    return true;
  }
  nns__dim a = nns__dim_known(-2);
  if (nns__has_in(cx, 2) && (!in_scalar(cx, 2, &a) || a.sym))
    return false;
  *axis = a.v;
  return true;
}

static nns_status dft_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0);
  if (!t || t->rank < 0) {
    nns__out_shape(cx, 0, nns__in_dtype(cx, 0), -1);
    return NNS_OK;
  }
  if (t->rank < 3)
    return nns__fail(cx, NNS_E_SHAPE,
                     "input must be [batch, signal dims..., 1 or 2], it has "
                     "rank %d", t->rank);
  nns__dim last = t->dims[t->rank - 1];
  if (!last.sym && last.v != 1 && last.v != 2)
    return nns__fail(cx, NNS_E_SHAPE,
                     "the last dim must be 1 (real) or 2 (complex), not %lld",
                     (long long)last.v);
  /* Negative axes count from the end of the whole shape (as DFT-20 says;
   * DFT-17 does not define them), and must not name the complex axis. */
  int64_t axis_arg;
  if (!dft_axis(cx, &axis_arg)) {
    nns__dim *d = nns__out_shape(cx, 0, t->dtype, t->rank);
    if (d)
      d[t->rank - 1] = nns__dim_known(2);
    return NNS_OK;
  }
  int32_t axis;
  nns_status st = nns__axis_or_fail(cx, axis_arg, t->rank, &axis, "axis");
  if (st != NNS_OK)
    return st;
  if (axis == 0 || axis == t->rank - 1)
    return nns__fail(cx, NNS_E_ATTR,
                     "axis %d is the %s axis, not a signal axis", axis,
                     axis ? "real/complex" : "batch");
  nns__dim n = t->dims[axis];
  if (nns__has_in(cx, 1) && !in_scalar(cx, 1, &n))
    n = nns__fresh(cx);
  nns__dim *d = nns__out_shape(cx, 0, t->dtype, t->rank);
  if (!d)
    return NNS_OK;
  nns__dims_copy(d, t->dims, t->rank);
  d[axis] = dft_bins(cx, n, nns__attr_int(cx, "onesided") != 0);
  d[t->rank - 1] = nns__dim_known(2);
  return NNS_OK;
}

/* signal [batch, length, 1|2] -> [batch, frames, bins, 2] with
 * frames = (length - frame_length) / frame_step + 1. */
static nns_status stft_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0), *w = nns__in_type(cx, 2);
  if (t && t->rank >= 0 && t->rank != 3)
    return nns__fail(cx, NNS_E_SHAPE,
                     "signal must be [batch, length, 1 or 2], it has rank %d",
                     t->rank);
  if (w && w->rank >= 0 && w->rank != 1)
    return nns__fail(cx, NNS_E_SHAPE, "window must be 1-D, it has rank %d",
                     w->rank);
  nns__dim flen = nns__fresh(cx), step = nns__fresh(cx);
  bool have_len = nns__has_in(cx, 3) ? in_scalar(cx, 3, &flen)
                                     : w && w->rank == 1;
  if (!nns__has_in(cx, 3) && have_len)
    flen = w->dims[0];
  nns_status st = NNS_OK;
  if (nns__has_in(cx, 3) && w && w->rank == 1 &&
      (st = same_dim(cx, flen, w->dims[0],
                     "frame_length and window length")) != NNS_OK)
    return st;
  bool have_step = in_scalar(cx, 1, &step);
  if (have_step && !step.sym && step.v <= 0)
    return nns__fail(cx, NNS_E_SHAPE, "frame_step %lld must be positive",
                     (long long)step.v);
  nns__dim *d = nns__out_shape(cx, 0, nns__in_dtype(cx, 0), 4);
  if (!d)
    return NNS_OK;
  d[3] = nns__dim_known(2);
  if (t && t->rank == 3) {
    d[0] = t->dims[0];
    nns__dim len = t->dims[1];
    if (have_len && have_step) {
      if (!len.sym && !flen.sym && len.v < flen.v)
        return nns__fail(cx, NNS_E_SHAPE,
                         "signal length %lld is shorter than the frame %lld",
                         (long long)len.v, (long long)flen.v);
      d[1] = nns__add(cx, nns__div(cx, nns__sub(cx, len, flen), step),
                      nns__dim_known(1));
    }
  }
  if (have_len)
    d[2] = dft_bins(cx, flen, nns__attr_int(cx, "onesided") != 0);
  return NNS_OK;
}

/* ==== Window functions ==== */

/* size (scalar) -> [size] of output_datatype. */
static nns_status window_shape(nns__ictx *cx) {
  nns__dim size;
  int64_t n = nns__in_numel(cx, 0);
  if (n >= 0 && n != 1)
    return nns__fail(cx, NNS_E_SHAPE, "size must be a scalar");
  nns__dim *d = nns__out_shape(cx, 0, (int32_t)nns__attr_int(cx,
                                 "output_datatype"), 1);
  if (d && in_scalar(cx, 0, &size)) {
    if (!size.sym && size.v < 0)
      return nns__fail(cx, NNS_E_SHAPE, "size %lld is negative",
                       (long long)size.v);
    d[0] = size;
  }
  return NNS_OK;
}

/* The generalised cosine window sum_k a_k cos(2 pi k n / N) with alternating
 * signs, N = size (periodic) or size - 1 (symmetric). */
static nns_status window_fold(nns__ictx *cx, const double *a, int terms) {
  nns__const *y = nns__out_const(cx, 0);
  if (!y || !y->f)
    return NNS__NOFOLD;
  const double two_pi = 6.283185307179586476925;
  double N = (double)y->numel - (nns__attr_int(cx, "periodic") ? 0.0 : 1.0);
  if (N <= 0 && y->numel > 0) /* a symmetric window of size 1: 0/0 */
    return NNS__NOFOLD;
  for (int64_t n = 0; n < y->numel; n++) {
    double v = 0.0, sign = 1.0;
    for (int k = 0; k < terms; k++, sign = -sign)
      v += sign * a[k] * cos(two_pi * k * (double)n / N);
    y->f[n] = v;
  }
  return NNS_OK;
}

static nns_status hann_fold(nns__ictx *cx) {
  static const double a[] = {0.5, 0.5};
  return window_fold(cx, a, 2);
}
static nns_status hamming_fold(nns__ictx *cx) {
  static const double a[] = {25.0 / 46.0, 1.0 - 25.0 / 46.0};
  return window_fold(cx, a, 2);
}
static nns_status blackman_fold(nns__ictx *cx) {
  static const double a[] = {0.42, 0.5, 0.08};
  return window_fold(cx, a, 3);
}

/* [dft_length / 2 + 1, num_mel_bins] */
static nns_status mel_shape(nns__ictx *cx) {
  nns__dim bins, len;
  nns__dim *d = nns__out_shape(cx, 0, (int32_t)nns__attr_int(cx,
                                 "output_datatype"), 2);
  if (!d)
    return NNS_OK;
  if (in_scalar(cx, 1, &len))
    d[0] = dft_bins(cx, len, true);
  if (in_scalar(cx, 0, &bins))
    d[1] = bins;
  return NNS_OK;
}

/* ==== Losses ==== */

/*
 * scores [N, C, d1..dk], labels [N, d1..dk] (optional weights [C]):
 * loss [N, d1..dk] with reduction "none", else a scalar. Output 1
 * (SoftmaxCrossEntropyLoss' log_prob) has the scores' shape.
 */
static nns_status loss_shape(nns__ictx *cx) {
  const nns__type *s = nns__in_type(cx, 0), *l = nns__in_type(cx, 1);
  const char *red = nns__attr_str(cx, "reduction");
  bool none = strcmp(red, "none") == 0;
  if (!none && strcmp(red, "mean") != 0 && strcmp(red, "sum") != 0)
    return nns__fail(cx, NNS_E_ATTR,
                     "reduction '%s' is not one of none, mean, sum", red);
  int32_t dt = nns__in_dtype(cx, 0);
  if (s && s->rank >= 0 && s->rank < 2)
    return nns__fail(cx, NNS_E_SHAPE, "input must be [N, C, ...], rank %d",
                     s->rank);
  if (s && l && s->rank >= 0 && l->rank >= 0) {
    if (l->rank != s->rank - 1)
      return nns__fail(cx, NNS_E_SHAPE,
                       "labels have rank %d, input rank %d (needs rank - 1)",
                       l->rank, s->rank);
    for (int32_t k = 0; k < l->rank; k++) {
      nns_status st = same_dim(cx, l->dims[k], s->dims[k ? k + 1 : 0],
                               "labels and input dims");
      if (st != NNS_OK)
        return st;
    }
  }
  if (!none) {
    nns__out_shape(cx, 0, dt, 0);
  } else if (s && s->rank >= 2) {
    nns__dim *d = nns__out_shape(cx, 0, dt, s->rank - 1);
    for (int32_t k = 0; d && k < s->rank - 1; k++)
      d[k] = s->dims[k ? k + 1 : 0];
  } else if (l && l->rank >= 0) {
    nns__out_like(cx, 0, 1, dt);
  } else {
    nns__out_shape(cx, 0, dt, -1);
  }
  if (nns__has_out(cx, 1))
    nns__out_like(cx, 1, 0, 0);
  return NNS_OK;
}

/* ==== Text ==== */

/* Whether string x is one of the stopwords (ASCII case-folded when not
 * case-sensitive). */
static bool is_stopword(const char *x, const char *const *stop, int32_t n,
                        bool sensitive) {
  for (int32_t k = 0; k < n; k++) {
    const char *a = x, *b = stop[k];
    while (*a && *b &&
           (sensitive ? *a == *b
                      : tolower((unsigned char)*a) == tolower((unsigned char)*b)))
      a++, b++;
    if (!*a && !*b)
      return true;
  }
  return false;
}

static int32_t stopwords(const nns__ictx *cx, const char *const **out) {
  const nns__attr *a = nns__attr_get(cx, "stopwords");
  *out = a && a->type == NNS__AT_STRINGS ? a->strings : NULL;
  return *out ? a->n : 0;
}

/* Elements of a constant input left after removing stopwords, or -1. */
static int64_t strnorm_kept(nns__ictx *cx) {
  const nns__const *x = nns__in_const(cx, 0);
  const char *const *stop;
  int32_t n_stop = stopwords(cx, &stop);
  if (!x || !x->s)
    return -1;
  int64_t kept = 0;
  for (int64_t e = 0; e < x->numel; e++)
    kept += !is_stopword(x->s[e], stop, n_stop,
                         nns__attr_int(cx, "is_case_sensitive") != 0);
  return kept;
}

/* X [C] or [1, C] -> same rank; C shrinks by the stopwords removed (an
 * empty result is [1] or [1, 1], holding ""). */
static nns_status strnorm_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0);
  const char *const *stop;
  if (!t || t->rank < 0) {
    nns__out_shape(cx, 0, NNS_DT_STRING, -1);
    return NNS_OK;
  }
  if (t->rank != 1 && !(t->rank == 2 && !t->dims[0].sym && t->dims[0].v == 1))
    return nns__fail(cx, NNS_E_SHAPE, "input must be [C] or [1, C]");
  const char *act = nns__attr_str(cx, "case_change_action");
  if (strcmp(act, "NONE") && strcmp(act, "LOWER") && strcmp(act, "UPPER"))
    return nns__fail(cx, NNS_E_ATTR,
                     "case_change_action '%s' is not NONE, LOWER or UPPER",
                     act);
  nns__dim *d = nns__out_shape(cx, 0, NNS_DT_STRING, t->rank);
  if (!d)
    return NNS_OK;
  nns__dims_copy(d, t->dims, t->rank);
  if (stopwords(cx, &stop) > 0) {
    int64_t kept = strnorm_kept(cx);
    d[t->rank - 1] = kept < 0 ? nns__fresh(cx)
                              : nns__dim_known(kept ? kept : 1);
  }
  return NNS_OK;
}

static nns_status strnorm_fold(nns__ictx *cx) {
  const nns__const *x = nns__in_const(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !x->s || !y || !y->s)
    return NNS__NOFOLD;
  const char *const *stop;
  int32_t n_stop = stopwords(cx, &stop);
  const char *act = nns__attr_str(cx, "case_change_action");
  bool sensitive = nns__attr_int(cx, "is_case_sensitive") != 0;
  int64_t o = 0;
  y->s[0] = "";
  for (int64_t e = 0; e < x->numel && o < y->numel; e++) {
    if (is_stopword(x->s[e], stop, n_stop, sensitive))
      continue;
    size_t len = strlen(x->s[e]);
    char *s = nns__alloc(cx, len + 1);
    if (!s)
      return NNS_E_NOMEM;
    for (size_t k = 0; k < len; k++) {
      unsigned char ch = (unsigned char)x->s[e][k];
      s[k] = (char)(act[0] == 'L' ? tolower(ch) : act[0] == 'U' ? toupper(ch)
                                                                : ch);
    }
    y->s[o++] = s;
  }
  return NNS_OK;
}

/* X [C] or [N, C] -> float [max(ngram_indexes) + 1] or [N, that]. */
static nns_status tfidf_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0);
  const int64_t *idx;
  int32_t n = nns__attr_ints(cx, "ngram_indexes", &idx);
  nns__dim width = nns__fresh(cx);
  if (n > 0) {
    int64_t mx = -1;
    for (int32_t k = 0; k < n; k++)
      mx = idx[k] > mx ? idx[k] : mx;
    if (mx < 0 || mx == INT64_MAX)
      return nns__fail(cx, NNS_E_ATTR, "ngram_indexes are out of range");
    width = nns__dim_known(mx + 1);
  }
  if (!t || t->rank < 0) {
    nns__out_shape(cx, 0, NNS_DT_FLOAT, -1);
    return NNS_OK;
  }
  if (t->rank != 1 && t->rank != 2)
    return nns__fail(cx, NNS_E_SHAPE, "input must be [C] or [N, C], rank %d",
                     t->rank);
  nns__dim *d = nns__out_shape(cx, 0, NNS_DT_FLOAT, t->rank);
  if (d) {
    d[0] = t->dims[0];
    d[t->rank - 1] = width;
  }
  return NNS_OK;
}

/*
 * The opset-20 string ops and ImageDecoder. Text and image decoding are
 * not tensor arithmetic: they cost nothing in FLOPs, MACs or DMAs (no
 * element of a string has a size). Shapes: RegexFullMatch gives a bool per
 * string; StringConcat broadcasts; StringSplit adds one dim of as many
 * substrings as the longest split (a symbol: it depends on the data) and
 * their count per string; ImageDecoder gives [H, W, C] uint8 with C 1 for
 * Grayscale and 3 for RGB or BGR, H and W symbols.
 */
static nns_status regex_match_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, NNS_DT_BOOL);
  return NNS_OK;
}

static nns_status string_concat_shape(nns__ictx *cx) {
  return nns__broadcast(cx, 0, 2, 0, NNS_DT_STRING);
}

static nns_status string_split_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  if (nns__attr_has(cx, "maxsplit") && nns__attr_int(cx, "maxsplit") < 0)
    return nns__fail(cx, NNS_E_ATTR, "maxsplit is %lld, must be >= 0",
                     (long long)nns__attr_int(cx, "maxsplit"));
  nns__out_like(cx, 1, 0, NNS_DT_INT64);
  if (!x || x->rank < 0) {
    nns__out_shape(cx, 0, NNS_DT_STRING, -1);
    return NNS_OK;
  }
  nns__dim *y = nns__out_shape(cx, 0, NNS_DT_STRING, x->rank + 1);
  for (int32_t k = 0; y && k < x->rank; k++)
    y[k] = x->dims[k]; /* the last dim keeps its fresh symbol */
  return NNS_OK;
}

static nns_status image_decoder_shape(nns__ictx *cx) {
  const char *fmt = nns__attr_str(cx, "pixel_format");
  int64_t ch = !strcmp(fmt, "Grayscale")                    ? 1
               : !strcmp(fmt, "RGB") || !strcmp(fmt, "BGR") ? 3
                                                            : 0;
  if (!ch)
    return nns__fail(cx, NNS_E_ATTR, "pixel_format \"%s\" is not RGB, BGR "
                     "or Grayscale", fmt);
  const nns__type *x = nns__in_type(cx, 0);
  if (x && x->rank >= 0 && x->rank != 1)
    return nns__fail(cx, NNS_E_SHAPE, "encoded_stream has rank %d; expected "
                     "1", x->rank);
  nns__dim *y = nns__out_shape(cx, 0, NNS_DT_UINT8, 3);
  if (y)
    y[2] = nns__dim_known(ch);
  return NNS_OK;
}

/* Text and image decoding: no tensor arithmetic (see above). */
static nns_status text_cost(nns__ictx *cx, nns__cost *c) {
  (void)cx;
  *c = (nns__cost){0};
  return NNS_OK;
}

/* ==== Training (ai.onnx.preview.training) ==== */

/*
 * Adagrad, Adam and Momentum take R, T, then n tensors of each of their
 * groups (X, G, and the optimizer state); they output n new tensors for
 * some groups, each shaped like its input. `groups` is the number of input
 * groups, `outs` the input group each output group mirrors.
 */
static nns_status optimizer_rule(nns__ictx *cx, int groups, const int *outs,
                                 int n_outs) {
  int n_in = nns__n_in(cx) - 2;
  if (n_in < groups || n_in % groups)
    return nns__fail(cx, NNS_E_SHAPE,
                     "%d tensor inputs after R and T is not a multiple of %d",
                     n_in, groups);
  int n = n_in / groups;
  if (nns__n_out(cx) != n * n_outs)
    return nns__fail(cx, NNS_E_SHAPE, "%d outputs, expected %d",
                     nns__n_out(cx), n * n_outs);
  for (int j = 0; j < n * n_outs; j++)
    nns__out_like(cx, j, 2 + outs[j / n] * n + j % n, 0);
  return NNS_OK;
}

static nns_status adagrad_shape(nns__ictx *cx) {
  static const int outs[] = {0, 2}; /* X_new, H_new */
  return optimizer_rule(cx, 3, outs, 2);
}
static nns_status adam_shape(nns__ictx *cx) {
  static const int outs[] = {0, 2, 3}; /* X_new, V_new, H_new */
  return optimizer_rule(cx, 4, outs, 3);
}
static nns_status momentum_shape(nns__ictx *cx) {
  static const int outs[] = {0, 2}; /* X_new, V_new */
  return optimizer_rule(cx, 3, outs, 2);
}

/* Output i is the gradient of y with respect to xs[i]: xs[i]'s type. */
static nns_status gradient_shape(nns__ictx *cx) {
  const nns__attr *a = nns__attr_get(cx, "xs");
  if (!a || a->type != NNS__AT_STRINGS || a->n != nns__n_out(cx))
    return nns__fail(cx, NNS_E_ATTR, "xs must name one tensor per output (%d)",
                     nns__n_out(cx));
  for (int32_t i = 0; i < a->n; i++) {
    const char *name =
        nns__intern(&cx->m->strings, a->strings[i], strlen(a->strings[i]));
    const nns__value *v = name ? nns__graph_lookup(cx->node->graph, name)
                               : NULL;
    if (!v)
      return nns__fail(cx, NNS_E_ATTR, "xs names '%s', which is not a value",
                       a->strings[i]);
    nns__out_type(cx, i, &v->type);
  }
  return NNS_OK;
}

/* ==== Costs ==== */

/* n * (n - 1) / 2 without overflowing before the halving. */
static int64_t pairs(nns__cost *c, int64_t n) {
  if (n < 2)
    return 0;
  return n % 2 == 0 ? nns__cmul(c, n / 2, n - 1)
                    : nns__cmul(c, n, (n - 1) / 2);
}

/* ceil(log2(n)) for n >= 1. */
static int64_t ceil_log2(int64_t n) {
  int64_t k = 0;
  while (k < 63 && ((int64_t)1 << k) < n)
    k++;
  return k;
}

/*
 * NonMaxSuppression, as the naive greedy loop: per batch and class, every
 * box's score is compared with score_threshold (N), and in the worst case
 * (no box suppressed early) every pair of boxes gets an IoU and a compare
 * with iou_threshold: 13 FLOPs per pair (4 min/max of the corners, 2
 * widths, 2 clamps at 0, 1 intersection product, 2 for the union from the
 * precomputed areas, 1 divide, 1 compare). Box areas (3 FLOPs per box) and,
 * with center_point_box, the corner conversion (6 per box) are per batch.
 * DMAs: inputs read once plus the selected indices written.
 */
static nns_status nms_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *b = nns__in_type(cx, 0), *s = nns__in_type(cx, 1);
  if (!b || !s || b->rank != 3 || s->rank != 3)
    return NNS__UNCOUNTED;
  nns_status st = nns__cost_move(cx, c);
  if (st != NNS_OK)
    return st;
  int64_t batch = nns__dim_count(c, b->dims[0], cx->m);
  int64_t n = nns__dim_count(c, b->dims[1], cx->m);
  int64_t classes = nns__dim_count(c, s->dims[1], cx->m);
  int64_t per_class = nns__cadd(c, n, nns__cmul(c, 13, pairs(c, n)));
  int64_t per_box = nns__attr_int(cx, "center_point_box") ? 9 : 3;
  c->flops = nns__cadd(c, nns__cmul(c, nns__cmul(c, batch, classes),
                                    per_class),
                       nns__cmul(c, nns__cmul(c, batch, n), per_box));
  return NNS_OK;
}

/*
 * Unique, as a comparison sort of the n slices (elements when flattened):
 * n * ceil(log2 n) slice comparisons, each comparing up to a slice's
 * elements. DMAs: the input and every output (the unique count, unknown
 * unless the input is a constant, counts as 1 and is flagged symbolic).
 */
static nns_status unique_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *t = nns__in_type(cx, 0);
  int64_t numel = nns__in_count(cx, c, 0);
  if (!t || numel < 0)
    return NNS__UNCOUNTED;
  nns_status st = nns__cost_move(cx, c);
  if (st != NNS_OK)
    return st;
  int64_t n = numel;
  int32_t axis;
  if (nns__attr_has(cx, "axis")) {
    if (!nns__axis(nns__attr_int(cx, "axis"), t->rank, &axis))
      return NNS__UNCOUNTED;
    n = nns__dim_count(c, t->dims[axis], cx->m);
  }
  int64_t slice = n > 0 ? numel / n : 0;
  c->flops = nns__cmul(c, nns__cmul(c, n, ceil_log2(n)), slice);
  return NNS_OK;
}

/*
 * The naive DFT of length n: each output bin is a sum of n products of an
 * input sample and a (precomputed, not counted) twiddle factor. A complex
 * product-accumulate is 4 real MACs, a real input's 2: MACs = 2 * comps * n
 * per bin (comps = 1 real, 2 complex input). FLOPs count the multiplies and
 * adds apart, the two sums (real, imaginary) each starting without an add:
 * 4 * comps * n - 2 per bin. Bins = numel(Y) / 2.
 */
static void dft_bins_cost(nns__cost *c, int64_t bins, int64_t n,
                          int64_t comps) {
  int64_t macs = nns__cmul(c, 2 * comps, n);
  c->macs = nns__cmul(c, bins, macs);
  c->flops = nns__cmul(c, bins, macs > 0 ? nns__cmul(c, 2, macs) - 2 : 0);
}

/* DFT: bins as above; the inverse also scales every output value by 1/n
 * (numel(Y) FLOPs). DMAs: inputs and output. */
static nns_status dft_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *t = nns__in_type(cx, 0);
  int64_t y = nns__out_count(cx, c, 0);
  int32_t axis;
  int64_t axis_arg;
  if (!t || t->rank < 3 || y < 0 || !dft_axis(cx, &axis_arg) ||
      !nns__axis(axis_arg, t->rank, &axis))
    return NNS__UNCOUNTED;
  nns__dim len = t->dims[axis];
  if (nns__has_in(cx, 1) && !in_scalar(cx, 1, &len))
    return NNS__UNCOUNTED;
  nns_status st = nns__cost_move(cx, c);
  if (st != NNS_OK)
    return st;
  int64_t comps = nns__dim_count(c, t->dims[t->rank - 1], cx->m);
  dft_bins_cost(c, y / 2, nns__dim_count(c, len, cx->m), comps);
  if (nns__attr_int(cx, "inverse"))
    c->flops = nns__cadd(c, c->flops, y);
  return NNS_OK;
}

/* STFT: a DFT of frame_length n per frame (bins as above), after the
 * window multiplies each frame's n samples (comps values each). DMAs:
 * inputs and output. */
static nns_status stft_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *t = nns__in_type(cx, 0), *w = nns__in_type(cx, 2);
  const nns__type *y = nns__has_out(cx, 0) ? &cx->node->out[0]->type : NULL;
  int64_t ny = nns__out_count(cx, c, 0);
  nns__dim len;
  if (!t || t->rank != 3 || !y || y->rank != 4 || ny < 0)
    return NNS__UNCOUNTED;
  if (nns__has_in(cx, 3)) {
    if (!in_scalar(cx, 3, &len))
      return NNS__UNCOUNTED;
  } else if (w && w->rank == 1) {
    len = w->dims[0];
  } else {
    return NNS__UNCOUNTED;
  }
  nns_status st = nns__cost_move(cx, c);
  if (st != NNS_OK)
    return st;
  int64_t n = nns__dim_count(c, len, cx->m);
  int64_t comps = nns__dim_count(c, t->dims[2], cx->m);
  dft_bins_cost(c, ny / 2, n, comps);
  if (nns__has_in(cx, 2)) {
    int64_t frames = nns__cmul(c, nns__dim_count(c, y->dims[0], cx->m),
                               nns__dim_count(c, y->dims[1], cx->m));
    c->flops = nns__cadd(c, c->flops,
                         nns__cmul(c, frames, nns__cmul(c, n, comps)));
  }
  return NNS_OK;
}

/* Window functions: each cosine term after the constant one costs 5 FLOPs
 * per element (the angle's multiply and divide, the cosine, the
 * coefficient, the add): Hann and Hamming 5, Blackman 10. */
static nns_status cosine2_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, 5);
}
static nns_status cosine3_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, 10);
}

/* MelWeightMatrix: each element is a triangle filter evaluated at a bin:
 * 2 compares with the filter's edges and a ramp (subtract, divide), 4
 * FLOPs; the mel-scale edges themselves are per filter, not counted. */
static nns_status mel_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, 4);
}

/*
 * SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss over l labels:
 * (SCE only) a log-softmax of the scores, 5 * numel(scores) as Softmax;
 * per label the gather, a negate, a compare with ignore_index when set and
 * a multiply by the gathered weight when weights are given; the reduction
 * adds the l values (sum), and mean also divides once and, with weights,
 * sums the l weights. DMAs: inputs and outputs, plus (SCE) the
 * log-probabilities written when output 1 does not already count them.
 */
static nns_status loss_cost(nns__ictx *cx, nns__cost *c, bool softmax) {
  int64_t x = nns__in_count(cx, c, 0), l = nns__in_count(cx, c, 1);
  if (x < 0 || l < 0)
    return NNS__UNCOUNTED;
  nns_status st = nns__cost_move(cx, c);
  if (st != NNS_OK)
    return st;
  bool weights = nns__has_in(cx, 2);
  int64_t per_label = 1 + (weights ? 1 : 0) +
                      (nns__attr_has(cx, "ignore_index") ? 1 : 0);
  const char *red = nns__attr_str(cx, "reduction");
  int64_t f = nns__cmul(c, per_label, l);
  if (strcmp(red, "sum") == 0)
    f = nns__cadd(c, f, l);
  else if (strcmp(red, "mean") == 0)
    f = nns__cadd(c, f, nns__cadd(c, nns__cmul(c, weights ? 2 : 1, l), 1));
  if (softmax) {
    f = nns__cadd(c, f, nns__cmul(c, 5, x));
    if (!nns__has_out(cx, 1))
      c->dmas = nns__cadd(c, c->dmas, x);
  }
  c->flops = f;
  return NNS_OK;
}

static nns_status sce_cost(nns__ictx *cx, nns__cost *c) {
  return loss_cost(cx, c, true);
}
static nns_status nll_cost(nns__ictx *cx, nns__cost *c) {
  return loss_cost(cx, c, false);
}

/* TfIdfVectorizer: n-gram counting is lookups (no FLOPs); the IDF and
 * TFIDF modes multiply each output by its weight. DMAs: input, output. */
static nns_status tfidf_cost(nns__ictx *cx, nns__cost *c) {
  nns_status st = nns__cost_move(cx, c);
  if (st != NNS_OK)
    return st;
  if (strcmp(nns__attr_str(cx, "mode"), "TF") != 0)
    c->flops = nns__out_count(cx, c, 0);
  return NNS_OK;
}

/*
 * Optimizers: k FLOPs per element of the optimized tensors X (the first
 * group after R and T), from the update formula of the ONNX definition;
 * the scalar learning-rate schedule is not counted. DMAs: inputs, outputs.
 *   Adagrad  9: G' = norm * X + G (2); H' = H + G'^2 (2); sqrt, + eps,
 *              divide, * r, subtract (5).
 *   Adam    15: G' (2); V' = alpha V + (1 - alpha) G' (3);
 *              H' = beta H + (1 - beta) G'^2 (4); sqrt, + eps, divide,
 *              * r, subtract (5); the post-update decay (1).
 *   Momentum 7 (standard): G' (2); V' = alpha V + beta G' (3);
 *              X - r V' (2). Nesterov 9: X - r (G' + alpha V') (4).
 */
static nns_status optimizer_cost(nns__ictx *cx, nns__cost *c, int groups,
                                 int64_t k) {
  int n = (nns__n_in(cx) - 2) / groups;
  int64_t elems = 0;
  for (int i = 0; i < n; i++) {
    int64_t e = nns__in_count(cx, c, 2 + i);
    if (e < 0)
      return NNS__UNCOUNTED;
    elems = nns__cadd(c, elems, e);
  }
  nns_status st = nns__cost_move(cx, c);
  if (st == NNS_OK)
    c->flops = nns__cmul(c, k, elems);
  return st;
}

static nns_status adagrad_cost(nns__ictx *cx, nns__cost *c) {
  return optimizer_cost(cx, c, 3, 9);
}
static nns_status adam_cost(nns__ictx *cx, nns__cost *c) {
  return optimizer_cost(cx, c, 4, 15);
}
static nns_status momentum_cost(nns__ictx *cx, nns__cost *c) {
  bool nesterov = strcmp(nns__attr_str(cx, "mode"), "nesterov") == 0;
  return optimizer_cost(cx, c, 3, nesterov ? 9 : 7);
}

/* Gradient's cost is that of the backward graph it stands for, which is
 * not in the model: the node is listed as not counted. */
static nns_status gradient_cost(nns__ictx *cx, nns__cost *c) {
  (void)cx;
  (void)c;
  return NNS__UNCOUNTED;
}

/* ==== Table ==== */

static const nns__attr_spec nms_attrs[] = {NNS__A_INT("center_point_box", 0),
                                           NNS__A_END};
static const nns__attr_spec unique_attrs[] = {
    NNS__A_OPT("axis", INT), NNS__A_INT("sorted", 1), NNS__A_END};
static const nns__attr_spec dft_attrs[] = {
    NNS__A_INT("axis", 1), NNS__A_INT("inverse", 0), NNS__A_INT("onesided", 0),
    NNS__A_END};
static const nns__attr_spec dft20_attrs[] = {
    NNS__A_INT("inverse", 0), NNS__A_INT("onesided", 0), NNS__A_END};
static const nns__attr_spec stft_attrs[] = {NNS__A_INT("onesided", 1),
                                            NNS__A_END};
static const nns__attr_spec window_attrs[] = {
    NNS__A_INT("output_datatype", NNS_DT_FLOAT), NNS__A_INT("periodic", 1),
    NNS__A_END};
static const nns__attr_spec mel_attrs[] = {
    NNS__A_INT("output_datatype", NNS_DT_FLOAT), NNS__A_END};
static const nns__attr_spec loss_attrs[] = {
    NNS__A_OPT("ignore_index", INT), NNS__A_STR("reduction", "mean"),
    NNS__A_END};
static const nns__attr_spec regex_attrs[] = {NNS__A_OPT("pattern", STRING),
                                              NNS__A_END};
static const nns__attr_spec split_str_attrs[] = {
    NNS__A_OPT("delimiter", STRING), NNS__A_OPT("maxsplit", INT), NNS__A_END};
static const nns__attr_spec image_decoder_attrs[] = {
    NNS__A_STR("pixel_format", "RGB"), NNS__A_END};
static const nns__attr_spec strnorm_attrs[] = {
    NNS__A_STR("case_change_action", "NONE"),
    NNS__A_INT("is_case_sensitive", 0), NNS__A_OPT("locale", STRING),
    NNS__A_OPT("stopwords", STRINGS), NNS__A_END};
static const nns__attr_spec tfidf_attrs[] = {
    NNS__A_REQ("max_gram_length", INT), NNS__A_REQ("max_skip_count", INT),
    NNS__A_REQ("min_gram_length", INT), NNS__A_REQ("mode", STRING),
    NNS__A_REQ("ngram_counts", INTS),   NNS__A_REQ("ngram_indexes", INTS),
    NNS__A_OPT("pool_int64s", INTS),    NNS__A_OPT("pool_strings", STRINGS),
    NNS__A_OPT("weights", FLOATS),      NNS__A_END};
static const nns__attr_spec adagrad_attrs[] = {
    NNS__A_FLOAT("decay_factor", 0.0), NNS__A_FLOAT("epsilon", 1e-6),
    NNS__A_FLOAT("norm_coefficient", 0.0), NNS__A_END};
static const nns__attr_spec adam_attrs[] = {
    NNS__A_FLOAT("alpha", 0.9), NNS__A_FLOAT("beta", 0.999),
    NNS__A_FLOAT("epsilon", 1e-6), NNS__A_FLOAT("norm_coefficient", 0.0),
    NNS__A_FLOAT("norm_coefficient_post", 0.0), NNS__A_END};
static const nns__attr_spec momentum_attrs[] = {
    NNS__A_REQ("alpha", FLOAT), NNS__A_REQ("beta", FLOAT),
    NNS__A_REQ("mode", STRING), NNS__A_REQ("norm_coefficient", FLOAT),
    NNS__A_END};
static const nns__attr_spec gradient_attrs[] = {
    NNS__A_REQ("xs", STRINGS), NNS__A_REQ("y", STRING),
    NNS__A_OPT("zs", STRINGS), NNS__A_END};

#define TRAINING "ai.onnx.preview.training"

/* NonMaxSuppression-11 and the losses' opset-13 versions changed only
 * semantics details or type lists: one entry each. */
const nns__op nns__ops_misc[] = {
    {"", "NonMaxSuppression", 10, NNS__OPSET_MAX, "aaccc", nms_attrs,
     nms_shape, NULL,
     .cost = nms_cost},
    {"", "Unique", 11, NNS__OPSET_MAX, "a", unique_attrs, unique_shape,
     unique_fold,
     .cost = unique_cost},
    {"", "DFT", 17, 19, "ac", dft_attrs, dft_shape, NULL,
     .cost = dft_cost},
    /* 20 made the axis an input (default -2). */
    {"", "DFT", 20, NNS__OPSET_MAX, "acc", dft20_attrs, dft_shape, NULL,
     .cost = dft_cost},
    {"", "STFT", 17, NNS__OPSET_MAX, "acac", stft_attrs, stft_shape, NULL,
     .cost = stft_cost},
    {"", "HannWindow", 17, NNS__OPSET_MAX, "c", window_attrs, window_shape,
     hann_fold,
     .cost = cosine2_cost},
    {"", "HammingWindow", 17, NNS__OPSET_MAX, "c", window_attrs, window_shape,
     hamming_fold, .cost = cosine2_cost},
    {"", "BlackmanWindow", 17, NNS__OPSET_MAX, "c", window_attrs, window_shape,
     blackman_fold, .cost = cosine3_cost},
    {"", "MelWeightMatrix", 17, NNS__OPSET_MAX, "c", mel_attrs, mel_shape, NULL,
     .cost = mel_cost},
    {"", "SoftmaxCrossEntropyLoss", 12, NNS__OPSET_MAX, "aac", loss_attrs,
     loss_shape,
     NULL, .cost = sce_cost},
    {"", "NegativeLogLikelihoodLoss", 12, NNS__OPSET_MAX, "aac", loss_attrs,
     loss_shape,
     NULL, .cost = nll_cost},
    {"", "StringNormalizer", 10, NNS__OPSET_MAX, "a", strnorm_attrs,
     strnorm_shape,
     strnorm_fold, .cost = nns__cost_move},
    {"", "RegexFullMatch", 20, NNS__OPSET_MAX, "a", regex_attrs,
     regex_match_shape, NULL, .cost = text_cost, .no_grad = "1"},
    {"", "StringConcat", 20, NNS__OPSET_MAX, "aa", NULL, string_concat_shape,
     NULL, .cost = text_cost, .no_grad = "1"},
    {"", "StringSplit", 20, NNS__OPSET_MAX, "a", split_str_attrs,
     string_split_shape, NULL, .cost = text_cost, .no_grad = "1"},
    {"", "ImageDecoder", 20, NNS__OPSET_MAX, "a", image_decoder_attrs,
     image_decoder_shape, NULL, .cost = text_cost, .no_grad = "1"},
    {"", "TfIdfVectorizer", 9, NNS__OPSET_MAX, "a", tfidf_attrs, tfidf_shape,
     NULL,
     .cost = tfidf_cost},
    {TRAINING, "Adagrad", 1, 1, "cca", adagrad_attrs, adagrad_shape, NULL,
     .cost = adagrad_cost},
    {TRAINING, "Adam", 1, 1, "cca", adam_attrs, adam_shape, NULL,
     .cost = adam_cost},
    {TRAINING, "Momentum", 1, 1, "cca", momentum_attrs, momentum_shape, NULL,
     .cost = momentum_cost},
    {TRAINING, "Gradient", 1, 1, "a", gradient_attrs, gradient_shape, NULL,
     .cost = gradient_cost},
    NNS__OP_END,
};
