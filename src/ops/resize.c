/*
 * resize.c - operator family "resize": Resize and Upsample (output dims
 * floor(in * scale) or given sizes), DepthToSpace / SpaceToDepth (channels
 * traded for block-sized spatial dims) and GridSample (the grid's spatial
 * dims).
 *
 * Costs (docs/metrics.md row Resize): interpolation only, counted per output
 * element and per resized axis: nearest 0, linear 4 (two taps weighed and
 * summed), cubic 16 FLOPs; MACs 0; DMAs numel(X) + numel(Y). DepthToSpace
 * and SpaceToDepth only move data. Receptive field: a resize changes the
 * jump by the size ratio and widens the field by its taps; DepthToSpace is
 * a stride-b transposed window of b taps and SpaceToDepth a stride-b
 * window of b taps; GridSample reads wherever its grid points.
 *
 * Col2Im (opset 18) and AffineGrid (opset 20) are beyond the opsets this
 * table covers.
 */
#include <math.h>
#include <string.h>

#include "dot.h"
#include "window.h"

/* ==== Scaled dims ==== */

/*
 * floor(in * scale). Implementations disagree on the precision of that
 * product (onnxruntime multiplies in float32, the ONNX reference in
 * float64); where the two floors differ the size is not knowable, and a
 * fresh symbol says so rather than guessing. A symbolic dim survives an
 * exact integer scale.
 */
static nns__dim scale_dim(nns__ictx *cx, nns__dim in, double scale) {
  float fs = (float)scale;
  if (in.sym) {
    if (fs == 1.0f)
      return in;
    if (fs >= 1.0f && fs <= 1048576.0f && floorf(fs) == fs)
      return nns__mul(cx, in, nns__dim_known((int64_t)fs));
    return nns__fresh(cx);
  }
  double d = (double)in.v * (double)fs;
  float f = (float)in.v * fs;
  if (!(d >= 0.0 && d < 9.0e15) || !(f >= 0.0f && f < 9.0e15f))
    return nns__fresh(cx);
  int64_t a = (int64_t)floor(d), b = (int64_t)floorf(f);
  return a == b ? nns__dim_known(a) : nns__fresh(cx);
}

/* Fails on a scale that is not a positive finite number. */
static nns_status check_scales(nns__ictx *cx, const double *s, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    if (!(s[k] > 0.0) || !isfinite(s[k]))
      return nns__fail(cx, NNS_E_SHAPE, "scales[%lld] is %g; scales must be "
                       "positive", (long long)k, s[k]);
  return NNS_OK;
}

/* Y = X with every dim scaled; rank from X or, if unknown, from scales. */
static nns_status scaled_output(nns__ictx *cx, const double *s, int64_t n) {
  const nns__type *tx = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  nns_status st = check_scales(cx, s, n);
  if (st != NNS_OK)
    return st;
  if (tx && tx->rank >= 0 && n != tx->rank)
    return nns__fail(cx, NNS_E_SHAPE, "%lld scales for an input of rank %d",
                     (long long)n, tx->rank);
  if (n > 64)
    return nns__fail(cx, NNS_E_LIMIT, "%lld scales", (long long)n);
  nns__dim *y = nns__out_shape(cx, 0, dt, (int32_t)n);
  for (int32_t k = 0; y && tx && tx->rank >= 0 && k < n; k++)
    y[k] = scale_dim(cx, tx->dims[k], s[k]);
  return NNS_OK;
}

/* Rank of the output when only the rank can be known: X's, else the
 * length of a 1-D sizes/scales input. */
static int32_t rank_from(const nns__ictx *cx, int vec) {
  int32_t r = nns__in_rank(cx, 0);
  if (r >= 0 || vec < 0)
    return r;
  const nns__type *t = nns__in_type(cx, vec);
  if (t && t->rank == 1 && !t->dims[0].sym && t->dims[0].v <= 64)
    return (int32_t)t->dims[0].v;
  return -1;
}

/* ==== Resize ==== */

/* A constant float input with at least one element, else NULL. */
static const nns__const *floats_in(nns__ictx *cx, int i) {
  const nns__const *c = nns__in_const(cx, i);
  return c && c->f && c->numel > 0 ? c : NULL;
}

/* Whether an roi input is absent or the whole range [0..0, 1..1]. */
static bool roi_is_full(nns__ictx *cx) {
  if (!nns__has_in(cx, 1))
    return true;
  const nns__const *c = nns__in_const(cx, 1);
  if (!c || !c->f)
    return c && c->numel == 0;
  for (int64_t k = 0; k < c->numel; k++)
    if (c->f[k] != (k < c->numel / 2 ? 0.0 : 1.0))
      return false;
  return true;
}

/*
 * Opset 10: (X, scales). Opsets 11-17: (X, roi, scales, sizes) where one of
 * scales and sizes is given (an empty scales tensor means "use sizes").
 * In tf_crop_and_resize mode the roi shrinks the output too, so scales
 * only give sizes when the roi is the full range.
 */
/*
 * Resize-18: `axes` names the axes that sizes or scales are for (the others
 * keep their size), and keep_aspect_ratio_policy not_larger / not_smaller
 * turns the sizes into one scale, the smallest / largest of size / input
 * over those axes, each axis then round(scale * input).
 */
static nns_status resize18_shape(nns__ictx *cx, const nns__type *tx,
                                 const int64_t *axes, int32_t na) {
  int32_t dt = nns__in_dtype(cx, 0), r = tx->rank;
  int32_t ax[64];
  if (na > 64 || r > 64)
    return nns__fail(cx, NNS_E_LIMIT, "%d axes", na > r ? na : r);
  for (int32_t k = 0; k < na; k++) {
    nns_status st = nns__axis_or_fail(cx, axes[k], r, &ax[k], "axes");
    if (st != NNS_OK)
      return st;
  }
  const nns__dim *sz;
  int64_t n;
  if (nns__has_in(cx, 3) && nns__in_ints(cx, 3, &sz, &n) && n > 0) {
    if (n != na)
      return nns__fail(cx, NNS_E_SHAPE, "sizes has %lld values for %d axes",
                       (long long)n, na);
    const char *pol = nns__attr_str(cx, "keep_aspect_ratio_policy");
    bool keep = strcmp(pol, "stretch") != 0;
    if (keep && strcmp(pol, "not_larger") && strcmp(pol, "not_smaller"))
      return nns__fail(cx, NNS_E_ATTR, "keep_aspect_ratio_policy '%s'", pol);
    nns__dim *y = nns__out_dims(cx, 0, dt, r);
    if (!y)
      return NNS_OK;
    nns__dims_copy(y, tx->dims, r);
    double scale = 0.0;
    bool known = true;
    for (int32_t k = 0; keep && k < na; k++) {
      nns__dim in = tx->dims[ax[k]];
      if (sz[k].sym || in.sym || in.v <= 0) {
        known = false;
        break;
      }
      double s = (double)sz[k].v / (double)in.v;
      bool smaller = !strcmp(pol, "not_larger");
      if (k == 0 || (smaller ? s < scale : s > scale))
        scale = s;
    }
    for (int32_t k = 0; k < na; k++)
      y[ax[k]] = !keep    ? sz[k]
                 : known ? nns__dim_known(
                               (int64_t)floor(scale * (double)tx->dims[ax[k]].v +
                                              0.5))
                         : nns__fresh(cx);
    return NNS_OK;
  }
  const nns__const *sc = floats_in(cx, 2);
  if (sc && sc->numel == na) {
    double *full = nns__alloc(cx, sizeof *full * (size_t)(r ? r : 1));
    if (!full)
      return nns__fail(cx, NNS_E_NOMEM, "out of memory");
    for (int32_t k = 0; k < r; k++)
      full[k] = 1.0;
    for (int32_t k = 0; k < na; k++)
      full[ax[k]] = sc->f[k];
    return scaled_output(cx, full, r);
  }
  nns__out_shape(cx, 0, dt, r);
  return NNS_OK;
}

static nns_status resize_shape(nns__ictx *cx) {
  int32_t dt = nns__in_dtype(cx, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  bool v10 = cx->op->since < 11; /* (X, scales) only */
  if (cx->op->since >= 18 && tx && tx->rank >= 0) {
    const int64_t *axes;
    int32_t na = nns__attr_ints(cx, "axes", &axes);
    bool keep = strcmp(nns__attr_str(cx, "keep_aspect_ratio_policy"),
                       "stretch") != 0;
    if (na >= 0 || keep) {
      static const int64_t all[64] = {0,  1,  2,  3,  4,  5,  6,  7,
                                      8,  9,  10, 11, 12, 13, 14, 15};
      if (na < 0 && tx->rank > 16)
        return nns__fail(cx, NNS_E_LIMIT, "rank %d", tx->rank);
      return resize18_shape(cx, tx, na >= 0 ? axes : all,
                            na >= 0 ? na : tx->rank);
    }
  }
  int si = v10 ? 1 : 2, zi = v10 ? -1 : 3;
  if (zi >= 0 && nns__has_in(cx, zi)) {
    const nns__dim *sz;
    int64_t n;
    if (nns__in_ints(cx, zi, &sz, &n) && n > 0) {
      if (tx && tx->rank >= 0 && n != tx->rank)
        return nns__fail(cx, NNS_E_SHAPE, "sizes has %lld values for an "
                         "input of rank %d", (long long)n, tx->rank);
      if (n > 64)
        return nns__fail(cx, NNS_E_LIMIT, "sizes has %lld values",
                         (long long)n);
      nns__dim *y = nns__out_shape(cx, 0, dt, (int32_t)n);
      for (int64_t k = 0; k < n; k++) {
        if (!sz[k].sym && sz[k].v < 0)
          return nns__fail(cx, NNS_E_SHAPE, "sizes[%lld] is %lld",
                           (long long)k, (long long)sz[k].v);
        if (y)
          y[k] = sz[k];
      }
      return NNS_OK;
    }
  }
  const nns__const *sc = floats_in(cx, si);
  const char *ctm = nns__attr_str(cx, "coordinate_transformation_mode");
  bool crop = !v10 && strcmp(ctm, "tf_crop_and_resize") == 0;
  if (sc && (!crop || roi_is_full(cx)))
    return scaled_output(cx, sc->f, sc->numel);
  /* Sizes decided at run time: only the rank is known. */
  int32_t r = rank_from(cx, zi >= 0 && nns__has_in(cx, zi) ? zi : si);
  nns__out_shape(cx, 0, dt, r);
  return NNS_OK;
}

/* ==== Upsample ==== */

/* Opset 1 (experimental): 4-D NCHW with height_scale and width_scale. */
static nns_status upsample1_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0);
  if (tx && tx->rank >= 0 && tx->rank != 4)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "H, W]", tx->rank);
  double s[4] = {1.0, 1.0, nns__attr_float(cx, "height_scale"),
                 nns__attr_float(cx, "width_scale")};
  return scaled_output(cx, s, 4);
}

/* Opset 7: the scales attribute. */
static nns_status upsample7_shape(nns__ictx *cx) {
  const double *s;
  int32_t n = nns__attr_floats(cx, "scales", &s);
  if (n < 0) {
    nns__out_shape(cx, 0, nns__in_dtype(cx, 0), nns__in_rank(cx, 0));
    return NNS_OK;
  }
  return scaled_output(cx, s, n);
}

/* Opsets 9-17: the scales input. */
static nns_status upsample9_shape(nns__ictx *cx) {
  const nns__const *sc = floats_in(cx, 1);
  if (sc)
    return scaled_output(cx, sc->f, sc->numel);
  nns__out_shape(cx, 0, nns__in_dtype(cx, 0), rank_from(cx, 1));
  return NNS_OK;
}

/* ==== DepthToSpace / SpaceToDepth ==== */

/* Checks X is [N, C, H, W] (when its rank is known) and blocksize >= 1. */
static nns_status block_input(nns__ictx *cx, int64_t *b) {
  const nns__type *tx = nns__in_type(cx, 0);
  *b = nns__attr_int(cx, "blocksize");
  if (*b < 1 || *b > (1 << 20))
    return nns__fail(cx, NNS_E_ATTR, "blocksize is %lld", (long long)*b);
  if (tx && tx->rank >= 0 && tx->rank != 4)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "H, W]", tx->rank);
  return NNS_OK;
}

/* [N, C, H, W] -> [N, C / b^2, H * b, W * b] (DCR and CRD alike). */
static nns_status depth_to_space_shape(nns__ictx *cx) {
  int64_t b;
  nns_status st = block_input(cx, &b);
  if (st != NNS_OK)
    return st;
  const char *mode = nns__attr_str(cx, "mode");
  if (mode[0] && strcmp(mode, "DCR") != 0 && strcmp(mode, "CRD") != 0)
    return nns__fail(cx, NNS_E_ATTR, "mode '%s' is not DCR or CRD", mode);
  const nns__type *tx = nns__in_type(cx, 0);
  nns__dim *y = nns__out_shape(cx, 0, nns__in_dtype(cx, 0), 4);
  if (!y || !tx || tx->rank != 4)
    return NNS_OK;
  nns__dim c = tx->dims[1], bb = nns__dim_known(b * b);
  if (!c.sym && c.v % (b * b) != 0)
    return nns__fail(cx, NNS_E_SHAPE, "%lld channels are not divisible by "
                     "blocksize^2 = %lld", (long long)c.v, (long long)(b * b));
  y[0] = tx->dims[0];
  y[1] = nns__div(cx, c, bb);
  y[2] = nns__mul(cx, tx->dims[2], nns__dim_known(b));
  y[3] = nns__mul(cx, tx->dims[3], nns__dim_known(b));
  return NNS_OK;
}

/* [N, C, H, W] -> [N, C * b^2, H / b, W / b]. */
static nns_status space_to_depth_shape(nns__ictx *cx) {
  int64_t b;
  nns_status st = block_input(cx, &b);
  if (st != NNS_OK)
    return st;
  const nns__type *tx = nns__in_type(cx, 0);
  nns__dim *y = nns__out_shape(cx, 0, nns__in_dtype(cx, 0), 4);
  if (!y || !tx || tx->rank != 4)
    return NNS_OK;
  for (int k = 2; k < 4; k++)
    if (!tx->dims[k].sym && tx->dims[k].v % b != 0)
      return nns__fail(cx, NNS_E_SHAPE, "spatial dim %d (%lld) is not "
                       "divisible by blocksize %lld", k,
                       (long long)tx->dims[k].v, (long long)b);
  y[0] = tx->dims[0];
  y[1] = nns__mul(cx, tx->dims[1], nns__dim_known(b * b));
  y[2] = nns__div(cx, tx->dims[2], nns__dim_known(b));
  y[3] = nns__div(cx, tx->dims[3], nns__dim_known(b));
  return NNS_OK;
}

/* ==== GridSample ==== */

/* X [N, C, H, W], grid [N, H_out, W_out, 2] -> [N, C, H_out, W_out]. */
/*
 * GridSample-16 samples [N, C, H, W] at grid [N, H_out, W_out, 2]; from
 * opset 20 any number r of spatial axes: [N, C, D1..Dr] at
 * [N, D1_out..Dr_out, r].
 */
static nns_status grid_sample_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0), *tg = nns__in_type(cx, 1);
  int32_t dt = nns__in_dtype(cx, 0);
  bool kx = tx && tx->rank >= 0, kg = tg && tg->rank >= 0;
  bool nd = cx->op->since >= 20;
  int32_t rank = kx ? tx->rank : kg ? tg->rank : 4;
  if (!nd && kx && tx->rank != 4)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "H, W]", tx->rank);
  if (kx && tx->rank < 3)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "spatial...]", tx->rank);
  if (kg && tg->rank != rank)
    return nns__fail(cx, NNS_E_SHAPE, "grid has rank %d; expected %d",
                     tg->rank, rank);
  if (!kx && !kg && nd) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  if (kg && !tg->dims[rank - 1].sym && tg->dims[rank - 1].v != rank - 2)
    return nns__fail(cx, NNS_E_SHAPE, "grid's last dim is %lld; expected %d",
                     (long long)tg->dims[rank - 1].v, rank - 2);
  if (kx && kg && !tx->dims[0].sym && !tg->dims[0].sym &&
      tx->dims[0].v != tg->dims[0].v)
    return nns__fail(cx, NNS_E_SHAPE, "input batch %lld differs from grid "
                     "batch %lld", (long long)tx->dims[0].v,
                     (long long)tg->dims[0].v);
  nns__dim *y = nns__out_shape(cx, 0, dt, rank);
  if (!y)
    return NNS_OK;
  if (kx) {
    y[0] = tx->dims[0];
    y[1] = tx->dims[1];
  }
  if (kg) {
    if (!kx || (y[0].sym && !tg->dims[0].sym))
      y[0] = tg->dims[0];
    for (int32_t k = 2; k < rank; k++)
      y[k] = tg->dims[k - 1];
  }
  return NNS_OK;
}

/* ==== Costs ==== */

/* Interpolation taps per axis of a mode: 1 nearest, 2 linear, 4 cubic (the
 * FLOPs per output element and axis are 0, 4 and 16). */
static int64_t mode_taps(const char *mode) {
  if (strstr(mode, "linear")) /* linear, bilinear, trilinear */
    return 2;
  if (strstr(mode, "cubic")) /* cubic, bicubic */
    return 4;
  return 1;
}

static int64_t taps_flops(int64_t taps) {
  return taps == 4 ? 16 : taps == 2 ? 4 : 0;
}

/*
 * The taps an antialiased (PyTorch's _upsample_*_aa, ONNX antialias=1)
 * resize of one axis from n to m reads, summed over the m outputs: the
 * filter of `taps` points widens by the scale when downscaling, and each
 * output reads the input points its support covers (PyTorch's
 * _compute_indices_min_size_weights_aa, exactly). -1 if not known.
 */
static int64_t aa_taps(int64_t n, int64_t m, int64_t taps, bool corners) {
  if (n <= 0 || m <= 0)
    return -1;
  double scale = corners ? (m > 1 ? (double)(n - 1) / (double)(m - 1) : 0.0)
                         : (double)n / (double)m;
  double support = scale >= 1.0 ? taps * 0.5 * scale : taps * 0.5;
  int64_t total = 0;
  for (int64_t i = 0; i < m; i++) {
    double center = scale * ((double)i + 0.5);
    int64_t lo = (int64_t)(center - support + 0.5);
    int64_t hi = (int64_t)(center + support + 0.5);
    if (lo < 0)
      lo = 0;
    if (hi > n)
      hi = n;
    total += hi > lo ? hi - lo : 0;
  }
  return total;
}

/*
 * Antialiased: PyTorch's separable passes, the last axis first, each
 * resized axis over the elements of the pass's output (the axes done
 * before at their output size, those after at their input size), per tap
 * FLOPs as the mode's (linear 2: weigh and add; cubic 4).
 */
static nns_status resize_aa_cost(nns__ictx *cx, nns__cost *c, int64_t taps) {
  const nns__type *tx = nns__in_type(cx, 0);
  const nns__dim *yd = cx->node->out[0]->type.dims;
  bool corners = strcmp(nns__attr_str(cx, "coordinate_transformation_mode"),
                        "align_corners") == 0;
  int64_t f = 0;
  for (int32_t k = tx->rank; k-- > 0;) {
    if (nns__dim_eq(tx->dims[k], yd[k]))
      continue;
    if (tx->dims[k].sym || yd[k].sym)
      return NNS__UNCOUNTED;
    int64_t t = aa_taps(tx->dims[k].v, yd[k].v, taps, corners);
    if (t < 0)
      return NNS__UNCOUNTED;
    /* the other axes' elements of this pass */
    int64_t rest = 1;
    for (int32_t j = 0; j < tx->rank; j++) {
      if (j == k)
        continue;
      const nns__dim *d = j > k ? &yd[j] : &tx->dims[j];
      if (d->sym)
        return NNS__UNCOUNTED;
      rest = nns__cmul(c, rest, d->v);
    }
    f = nns__cadd(c, f, nns__cmul(c, nns__cmul(c, rest, t),
                                  taps_flops(taps) / taps));
  }
  c->flops = f;
  return NNS_OK;
}

/* Resize and Upsample: the resized axes are those whose output dim is not
 * the input's. */
static nns_status resize_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *tx = nns__in_type(cx, 0);
  int64_t x = nns__in_count(cx, c, 0), y = nns__out_count(cx, c, 0);
  if (x < 0 || y < 0 || cx->node->out[0]->type.rank != tx->rank)
    return NNS__UNCOUNTED;
  const nns__dim *yd = cx->node->out[0]->type.dims;
  int64_t axes = 0;
  for (int32_t k = 0; k < tx->rank; k++)
    axes += !nns__dim_eq(tx->dims[k], yd[k]);
  int64_t taps = mode_taps(nns__attr_str(cx, "mode"));
  int64_t per = taps_flops(taps);
  c->macs = 0;
  c->dmas = nns__cadd(c, x, y);
  if (taps > 1 && nns__attr_has(cx, "antialias") &&
      nns__attr_int(cx, "antialias") != 0)
    return resize_aa_cost(cx, c, taps);
  c->flops = nns__cmul(c, nns__cmul(c, per, axes), y);
  return NNS_OK;
}

/* Bilinear (bicubic) sampling of the grid's points: two axes. */
static nns_status grid_sample_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y = nns__out_count(cx, c, 0);
  if (y < 0 || nns__cost_move(cx, c) != NNS_OK)
    return NNS__UNCOUNTED;
  int64_t per = taps_flops(mode_taps(nns__attr_str(cx, "mode")));
  int32_t r = cx->node->out[0]->type.rank - 2; /* spatial axes */
  c->flops = nns__cmul(c, nns__cmul(c, per, r > 0 ? r : 0), y);
  return NNS_OK;
}

static nns_status block_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_move(cx, c);
}

/* ==== Receptive field ==== */

/*
 * Per spatial axis with input size X and output size Y (both known, or the
 * same symbol): the jump scales by X/Y, rounded up to a whole pixel (exact
 * for integer down-scales and for up-scales that divide the jump), and the
 * field widens by (taps - 1) input steps. The sub-pixel offset of the
 * sampling grid (half_pixel, align_corners) is not tracked: the padding
 * stays the input's.
 */
static nns_status resize_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  const nns__type *tx = nns__in_type(cx, 0);
  const nns__type *ty = nns__has_out(cx, 0) ? &cx->node->out[0]->type : NULL;
  if (!tx || tx->rank < 2 || !ty || ty->rank != tx->rank) {
    memset(out, 0, sizeof *out);
    return NNS__UNCOUNTED;
  }
  nns__rf_start(in, tx->rank - 2, out);
  int64_t taps = mode_taps(nns__attr_str(cx, "mode"));
  for (int32_t k = 0; !out->f.whole && k < out->f.axes; k++) {
    nns__dim a = tx->dims[2 + k], b = ty->dims[2 + k];
    if (nns__dim_eq(a, b))
      continue;
    if (a.sym || b.sym || a.v < 1 || b.v < 1) {
      memset(out, 0, sizeof *out);
      return NNS__UNCOUNTED;
    }
    int64_t j = out->f.stride[k], num, widen;
    if (!nns__mul_i64(j, a.v, &num) || !nns__mul_i64(taps - 1, j, &widen) ||
        !nns__add_i64(out->f.field[k], widen, &out->f.field[k])) {
      memset(out, 0, sizeof *out);
      return NNS__UNCOUNTED;
    }
    out->f.stride[k] = num / b.v + (num % b.v != 0);
  }
  return NNS_OK;
}

/* DepthToSpace (transposed) and SpaceToDepth: a window of b taps, stride
 * b, on H and W. */
static nns_status block_rf(nns__ictx *cx, bool transposed, const nns__rf *in,
                           nns__rf *out) {
  nns__window w;
  memset(&w, 0, sizeof w);
  w.n = 2;
  int64_t b = nns__attr_int(cx, "blocksize");
  if (b < 1 || b > (1 << 20)) {
    memset(out, 0, sizeof *out);
    return NNS__UNCOUNTED;
  }
  for (int k = 0; k < 2; k++) {
    w.kernel[k] = w.stride[k] = b;
    w.dilation[k] = 1;
    w.output_shape[k] = -1;
  }
  return nns__window_rf(cx, &w, transposed, in, out);
}

static nns_status depth_to_space_rf(nns__ictx *cx, const nns__rf *in,
                                    nns__rf *out) {
  return block_rf(cx, true, in, out);
}
static nns_status space_to_depth_rf(nns__ictx *cx, const nns__rf *in,
                                    nns__rf *out) {
  return block_rf(cx, false, in, out);
}

/* ==== Entries ==== */

static const nns__attr_spec resize10_attrs[] = {
    NNS__A_STR("mode", "nearest"), NNS__A_END};
static const nns__attr_spec resize11_attrs[] = {
    NNS__A_INT("antialias", 0),
    NNS__A_STR("coordinate_transformation_mode", "half_pixel"),
    NNS__A_FLOAT("cubic_coeff_a", -0.75),
    NNS__A_INT("exclude_outside", 0),
    NNS__A_FLOAT("extrapolation_value", 0.0),
    NNS__A_STR("mode", "nearest"),
    NNS__A_STR("nearest_mode", "round_prefer_floor"),
    NNS__A_END};
static const nns__attr_spec resize18_attrs[] = {
    NNS__A_INT("antialias", 0),
    NNS__A_OPT("axes", INTS),
    NNS__A_STR("coordinate_transformation_mode", "half_pixel"),
    NNS__A_FLOAT("cubic_coeff_a", -0.75),
    NNS__A_INT("exclude_outside", 0),
    NNS__A_FLOAT("extrapolation_value", 0.0),
    NNS__A_STR("keep_aspect_ratio_policy", "stretch"),
    NNS__A_STR("mode", "nearest"),
    NNS__A_STR("nearest_mode", "round_prefer_floor"),
    NNS__A_END};
static const nns__attr_spec upsample1_attrs[] = {
    NNS__A_REQ("height_scale", FLOAT), NNS__A_STR("mode", "nearest"),
    NNS__A_REQ("width_scale", FLOAT), NNS__A_END};
static const nns__attr_spec upsample7_attrs[] = {
    NNS__A_STR("mode", "nearest"), NNS__A_REQ("scales", FLOATS), NNS__A_END};
static const nns__attr_spec upsample9_attrs[] = {
    NNS__A_STR("mode", "nearest"), NNS__A_END};
static const nns__attr_spec d2s1_attrs[] = {NNS__A_REQ("blocksize", INT),
                                            NNS__A_END};
static const nns__attr_spec d2s11_attrs[] = {
    NNS__A_REQ("blocksize", INT), NNS__A_STR("mode", "DCR"), NNS__A_END};
static const nns__attr_spec grid_sample_attrs[] = {
    NNS__A_INT("align_corners", 0), NNS__A_STR("mode", "bilinear"),
    NNS__A_STR("padding_mode", "zeros"), NNS__A_END};
/* 20 renamed the modes linear, nearest, cubic. */
static const nns__attr_spec grid_sample20_attrs[] = {
    NNS__A_INT("align_corners", 0), NNS__A_STR("mode", "linear"),
    NNS__A_STR("padding_mode", "zeros"), NNS__A_END};

/* ==== AffineGrid ==== */

/*
 * AffineGrid (opset 20): theta [N, 2, 3] (or [N, 3, 4]) and size
 * [N, C, H, W] (or [N, C, D, H, W]) give the sampling grid [N, H, W, 2]
 * (or [N, D, H, W, 3]). Unknown size values leave symbols.
 */
static nns_status affine_grid_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0), *sz = nns__in_type(cx, 1);
  int32_t dt = nns__in_dtype(cx, 0);
  int64_t r = -1; /* spatial rank */
  if (t && t->rank == 3 && !t->dims[1].sym)
    r = t->dims[1].v;
  else if (sz && sz->rank == 1 && !sz->dims[0].sym)
    r = sz->dims[0].v - 2;
  if (r < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  if (r != 2 && r != 3)
    return nns__fail(cx, NNS_E_SHAPE, "a %lld-D grid; AffineGrid makes 2-D "
                     "or 3-D ones", (long long)r);
  const nns__dim *v = NULL;
  int64_t n = 0;
  bool known = nns__in_ints(cx, 1, &v, &n);
  if (known && n != r + 2)
    return nns__fail(cx, NNS_E_SHAPE, "size has %lld values for a %lld-D "
                     "grid", (long long)n, (long long)r);
  nns__dim *d = nns__out_shape(cx, 0, dt, (int32_t)r + 2);
  if (!d)
    return NNS_OK;
  d[0] = known ? v[0] : t && t->rank == 3 ? t->dims[0] : d[0];
  for (int64_t k = 0; k < r; k++)
    if (known)
      d[1 + k] = v[2 + k];
  d[r + 1] = nns__dim_known(r);
  return NNS_OK;
}

/* Each grid coordinate is theta's row times [x, y, (z,) 1]: a dot product
 * of spatial rank + 1 (MatMul's count, docs/metrics.md). */
static nns_status affine_grid_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y = nns__out_count(cx, c, 0), th = nns__in_count(cx, c, 0);
  int32_t r = nns__in_rank(cx, 0) == 3 && nns__has_out(cx, 0)
                  ? cx->node->out[0]->type.rank - 2
                  : -1;
  if (y < 0 || th < 0 || r < 2)
    return NNS__UNCOUNTED;
  nns__matmul_cost(c, y, r + 1, th, 0);
  return NNS_OK;
}

static const nns__attr_spec affine_grid_attrs[] = {
    NNS__A_INT("align_corners", 0), NNS__A_END};

/*
 * Resize-13 made roi and scales optional. Upsample is deprecated from
 * opset 10 but still decodes as the opset-9 definition. DepthToSpace-13
 * and SpaceToDepth-13 only widened types.
 */
const nns__op nns__ops_resize[] = {
    {"", "Resize", 10, 10, "ac", resize10_attrs, resize_shape, NULL,
     .cost = resize_cost, .rf = resize_rf},
    {"", "Resize", 11, 12, "accc", resize11_attrs, resize_shape, NULL,
     .cost = resize_cost, .rf = resize_rf},
    {"", "Resize", 13, 17, "accc", resize11_attrs, resize_shape,
     NULL,
     .cost = resize_cost, .rf = resize_rf},
    /* 18: antialias, axes, keep_aspect_ratio_policy; 19 only added the
     * half_pixel_symmetric coordinate mode (no effect on shape or cost). */
    {"", "Resize", 18, NNS__OPSET_MAX, "accc", resize18_attrs, resize_shape,
     NULL,
     .cost = resize_cost, .rf = resize_rf},
    {"", "Upsample", 1, 6, "a", upsample1_attrs, upsample1_shape, NULL,
     .cost = resize_cost, .rf = resize_rf},
    {"", "Upsample", 7, 8, "a", upsample7_attrs, upsample7_shape, NULL,
     .cost = resize_cost, .rf = resize_rf},
    {"", "Upsample", 9, NNS__OPSET_MAX, "ac", upsample9_attrs, upsample9_shape,
     NULL,
     .cost = resize_cost, .rf = resize_rf},
    {"", "DepthToSpace", 1, 10, "a", d2s1_attrs, depth_to_space_shape, NULL,
     .cost = block_cost, .rf = depth_to_space_rf},
    {"", "DepthToSpace", 11, NNS__OPSET_MAX, "a", d2s11_attrs,
     depth_to_space_shape,
     NULL, .cost = block_cost, .rf = depth_to_space_rf},
    {"", "SpaceToDepth", 1, NNS__OPSET_MAX, "a", d2s1_attrs,
     space_to_depth_shape, NULL,
     .cost = block_cost, .rf = space_to_depth_rf},
    {"", "AffineGrid", 20, NNS__OPSET_MAX, "ac", affine_grid_attrs,
     affine_grid_shape, NULL, .cost = affine_grid_cost},
    {"", "GridSample", 16, 19, "aa", grid_sample_attrs,
     grid_sample_shape,
     NULL, .cost = grid_sample_cost, .rf = nns__rf_whole},
    {"", "GridSample", 20, NNS__OPSET_MAX, "aa", grid_sample20_attrs,
     grid_sample_shape,
     NULL, .cost = grid_sample_cost, .rf = nns__rf_whole},
    NNS__OP_END,
};
