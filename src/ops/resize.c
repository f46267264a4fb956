/*
 * resize.c - operator family "resize": Resize and Upsample (output dims
 * floor(in * scale) or given sizes), DepthToSpace / SpaceToDepth (channels
 * traded for block-sized spatial dims) and GridSample (the grid's spatial
 * dims).
 *
 * Col2Im (opset 18) and AffineGrid (opset 20) are beyond the opsets this
 * table covers.
 */
#include <math.h>
#include <string.h>

#include "op.h"

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
static nns_status resize_shape(nns__ictx *cx) {
  int32_t dt = nns__in_dtype(cx, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  bool v10 = cx->op->since < 11; /* (X, scales) only */
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
static nns_status grid_sample_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0), *tg = nns__in_type(cx, 1);
  int32_t dt = nns__in_dtype(cx, 0);
  bool kx = tx && tx->rank >= 0, kg = tg && tg->rank >= 0;
  if (kx && tx->rank != 4)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "H, W]", tx->rank);
  if (kg && tg->rank != 4)
    return nns__fail(cx, NNS_E_SHAPE, "grid has rank %d; expected [N, H_out, "
                     "W_out, 2]", tg->rank);
  if (kg && !tg->dims[3].sym && tg->dims[3].v != 2)
    return nns__fail(cx, NNS_E_SHAPE, "grid's last dim is %lld; expected 2",
                     (long long)tg->dims[3].v);
  if (kx && kg && !tx->dims[0].sym && !tg->dims[0].sym &&
      tx->dims[0].v != tg->dims[0].v)
    return nns__fail(cx, NNS_E_SHAPE, "input batch %lld differs from grid "
                     "batch %lld", (long long)tx->dims[0].v,
                     (long long)tg->dims[0].v);
  nns__dim *y = nns__out_shape(cx, 0, dt, 4);
  if (!y)
    return NNS_OK;
  if (kx) {
    y[0] = tx->dims[0];
    y[1] = tx->dims[1];
  }
  if (kg) {
    if (!kx || (y[0].sym && !tg->dims[0].sym))
      y[0] = tg->dims[0];
    y[2] = tg->dims[1];
    y[3] = tg->dims[2];
  }
  return NNS_OK;
}

/* ==== Entries ==== */

static const nns__attr_spec resize10_attrs[] = {
    NNS__A_STR("mode", "nearest"), NNS__A_END};
static const nns__attr_spec resize11_attrs[] = {
    NNS__A_STR("coordinate_transformation_mode", "half_pixel"),
    NNS__A_FLOAT("cubic_coeff_a", -0.75),
    NNS__A_INT("exclude_outside", 0),
    NNS__A_FLOAT("extrapolation_value", 0.0),
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

/*
 * Resize-13 made roi and scales optional. Upsample is deprecated from
 * opset 10 but still decodes as the opset-9 definition. DepthToSpace-13
 * and SpaceToDepth-13 only widened types.
 */
const nns__op nns__ops_resize[] = {
    {"", "Resize", 10, 10, "ac", resize10_attrs, resize_shape, NULL},
    {"", "Resize", 11, 12, "accc", resize11_attrs, resize_shape, NULL},
    {"", "Resize", 13, 17, "accc", resize11_attrs, resize_shape, NULL},
    {"", "Upsample", 1, 6, "a", upsample1_attrs, upsample1_shape, NULL},
    {"", "Upsample", 7, 8, "a", upsample7_attrs, upsample7_shape, NULL},
    {"", "Upsample", 9, 17, "ac", upsample9_attrs, upsample9_shape, NULL},
    {"", "DepthToSpace", 1, 10, "a", d2s1_attrs, depth_to_space_shape, NULL},
    {"", "DepthToSpace", 11, 17, "a", d2s11_attrs, depth_to_space_shape,
     NULL},
    {"", "SpaceToDepth", 1, 17, "a", d2s1_attrs, space_to_depth_shape, NULL},
    {"", "GridSample", 16, 17, "aa", grid_sample_attrs, grid_sample_shape,
     NULL},
    NNS__OP_END,
};
