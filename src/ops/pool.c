/*
 * pool.c - operator family "pool": windowed pools (MaxPool, AveragePool,
 * LpPool) whose spatial sizes come from window.h, global pools (spatial
 * axes reduced to 1), region-of-interest pools (MaxRoiPool, RoiAlign: one
 * output per RoI) and MaxUnpool (the inverse window).
 *
 * Costs follow docs/metrics.md's pool rows: with k the window size (the
 * spatial size of X for a global pool) and r the spatial rank, per output
 * element a max pool does k - 1 comparisons, an average pool k - 1 adds and
 * r divisions (torchscan's count), an Lp pool k powers, k - 1 adds and one
 * root; MACs equal FLOPs for max and average pools (as torchscan counts
 * them), k for an Lp pool; DMAs read k inputs and write one output per
 * output element. The receptive field of a windowed pool is the window's;
 * global and RoI pools see the whole input.
 */
#include <string.h>

#include "window.h"

/* ==== Windowed pools ==== */

/* Rank of a pool's input: X's, else 2 + the kernel_shape length. */
static int32_t pool_rank(const nns__ictx *cx) {
  int32_t r = nns__in_rank(cx, 0);
  if (r >= 0)
    return r;
  const int64_t *ks;
  int32_t nk = nns__attr_ints(cx, "kernel_shape", &ks);
  return nk >= 0 ? nk + 2 : -1;
}

/* Y (and MaxPool's Indices, int64) = [N, C, window outputs...]. */
static nns_status pool_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0), rank = pool_rank(cx);
  if (rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    nns__out_shape(cx, 1, NNS_DT_INT64, -1);
    return NNS_OK;
  }
  nns__window w;
  nns_status st = nns__window_rank(cx, rank);
  if (st == NNS_OK)
    st = nns__window_read(cx, rank - 2, NULL, &w);
  if (st != NNS_OK)
    return st;
  nns__dim *y = nns__out_shape(cx, 0, dt, rank);
  if (y && tx && tx->rank >= 0) {
    y[0] = tx->dims[0];
    y[1] = tx->dims[1];
    if ((st = nns__window_out_dims(cx, &w, tx->dims + 2, y + 2)) != NNS_OK)
      return st;
  }
  if (nns__has_out(cx, 1)) {
    nns__dim *ind = nns__out_shape(cx, 1, NNS_DT_INT64, rank);
    for (int32_t k = 0; ind && y && k < rank; k++)
      ind[k] = y[k];
  }
  return NNS_OK;
}

/* ==== Pool costs ==== */

typedef enum pool_kind { POOL_MAX, POOL_AVG, POOL_LP } pool_kind;

/* The counts of one pool: y outputs of a k-element window over r spatial
 * axes; `extra_out` output elements written besides Y (MaxPool's
 * Indices). */
static nns_status pool_count(nns__cost *c, pool_kind kind, int64_t y,
                             int64_t k, int64_t r, int64_t extra_out) {
  int64_t km1 = k > 0 ? k - 1 : 0;
  switch (kind) {
  case POOL_MAX:
    c->flops = c->macs = nns__cmul(c, y, km1);
    break;
  case POOL_AVG:
    c->flops = c->macs = nns__cmul(c, y, nns__cadd(c, km1, r));
    break;
  case POOL_LP:
    c->flops = nns__cmul(c, y, nns__cmul(c, 2, k));
    c->macs = nns__cmul(c, y, k);
    break;
  }
  c->dmas = nns__cadd(c, nns__cmul(c, y, k), nns__cadd(c, y, extra_out));
  return NNS_OK;
}

/* The window of a windowed pool, read as pool_shape reads it. */
static nns_status pool_window(nns__ictx *cx, nns__window *w) {
  int32_t rank = pool_rank(cx);
  if (rank < 2)
    return NNS__UNCOUNTED;
  return nns__window_read(cx, rank - 2, NULL, w);
}

static nns_status window_pool_cost(nns__ictx *cx, nns__cost *c,
                                   pool_kind kind) {
  nns__window w;
  if (pool_window(cx, &w) != NNS_OK)
    return NNS__UNCOUNTED;
  const nns__type *t = nns__in_type(cx, 0);
  const nns__dim *spatial =
      t && t->rank == w.n + 2 && t->dims ? t->dims + 2 : NULL;
  int64_t k = nns__window_kernel_count(&w, spatial, c),
          y = nns__out_count(cx, c, 0);
  int64_t ind = nns__has_out(cx, 1) ? nns__out_count(cx, c, 1) : 0;
  if (k < 0 || y < 0 || ind < 0)
    return NNS__UNCOUNTED;
  return pool_count(c, kind, y, k, w.n, ind);
}

static nns_status maxpool_cost(nns__ictx *cx, nns__cost *c) {
  return window_pool_cost(cx, c, POOL_MAX);
}
static nns_status avgpool_cost(nns__ictx *cx, nns__cost *c) {
  return window_pool_cost(cx, c, POOL_AVG);
}
static nns_status lppool_cost(nns__ictx *cx, nns__cost *c) {
  return window_pool_cost(cx, c, POOL_LP);
}

static nns_status pool_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  nns__window w;
  if (pool_window(cx, &w) != NNS_OK) {
    memset(out, 0, sizeof *out);
    return NNS__UNCOUNTED;
  }
  return nns__window_rf(cx, &w, false, in, out);
}

/* ==== Global pools ==== */

static nns_status global_pool_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  if (!tx || tx->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  nns_status st = nns__window_rank(cx, tx->rank);
  if (st != NNS_OK)
    return st;
  nns__dim *y = nns__out_shape(cx, 0, dt, tx->rank);
  for (int32_t k = 0; y && k < tx->rank; k++)
    y[k] = k < 2 ? tx->dims[k] : nns__dim_known(1);
  return NNS_OK;
}

/* k = the spatial size of X. */
static nns_status global_pool_cost(nns__ictx *cx, nns__cost *c,
                                   pool_kind kind) {
  const nns__type *tx = nns__in_type(cx, 0);
  int64_t y = nns__out_count(cx, c, 0);
  if (!tx || tx->rank < 2 || y < 0)
    return NNS__UNCOUNTED;
  int64_t k = 1;
  for (int32_t a = 2; a < tx->rank; a++)
    k = nns__cmul(c, k, nns__dim_count(c, tx->dims[a], cx->m));
  return pool_count(c, kind, y, k, tx->rank - 2, 0);
}

static nns_status global_maxpool_cost(nns__ictx *cx, nns__cost *c) {
  return global_pool_cost(cx, c, POOL_MAX);
}
static nns_status global_avgpool_cost(nns__ictx *cx, nns__cost *c) {
  return global_pool_cost(cx, c, POOL_AVG);
}
static nns_status global_lppool_cost(nns__ictx *cx, nns__cost *c) {
  return global_pool_cost(cx, c, POOL_LP);
}

/* ==== Region-of-interest pools ==== */

/* Checks X is [N, C, H, W] when its rank is known; sets *c to C. */
static nns_status roi_input(nns__ictx *cx, nns__dim *c) {
  const nns__type *tx = nns__in_type(cx, 0);
  *c = nns__fresh(cx);
  if (!tx || tx->rank < 0)
    return NNS_OK;
  if (tx->rank != 4)
    return nns__fail(cx, NNS_E_SHAPE,
                     "input has rank %d; expected [N, C, H, W]", tx->rank);
  *c = tx->dims[1];
  return NNS_OK;
}

/* Checks rois is [num_rois, width] when known; returns num_rois. */
static nns_status roi_boxes(nns__ictx *cx, int64_t width, nns__dim *num) {
  const nns__type *tr = nns__in_type(cx, 1);
  *num = nns__fresh(cx);
  if (!tr || tr->rank < 0)
    return NNS_OK;
  if (tr->rank != 2)
    return nns__fail(cx, NNS_E_SHAPE, "rois has rank %d; expected "
                     "[num_rois, %lld]", tr->rank, (long long)width);
  if (!tr->dims[1].sym && tr->dims[1].v != width)
    return nns__fail(cx, NNS_E_SHAPE, "rois has %lld columns; expected %lld",
                     (long long)tr->dims[1].v, (long long)width);
  *num = tr->dims[0];
  return NNS_OK;
}

/* MaxRoiPool: rois [num_rois, 5] (batch index, x1, y1, x2, y2). */
static nns_status max_roi_pool_shape(nns__ictx *cx) {
  nns__dim c, num;
  nns_status st;
  if ((st = roi_input(cx, &c)) != NNS_OK ||
      (st = roi_boxes(cx, 5, &num)) != NNS_OK)
    return st;
  const int64_t *ps;
  if (nns__attr_ints(cx, "pooled_shape", &ps) != 2)
    return nns__fail(cx, NNS_E_ATTR, "pooled_shape must have 2 values "
                     "(height, width)");
  if (ps[0] < 1 || ps[1] < 1)
    return nns__fail(cx, NNS_E_ATTR, "pooled_shape is [%lld, %lld], must be "
                     ">= 1", (long long)ps[0], (long long)ps[1]);
  nns__dim *y = nns__out_shape(cx, 0, nns__in_dtype(cx, 0), 4);
  if (y) {
    y[0] = num;
    y[1] = c;
    y[2] = nns__dim_known(ps[0]);
    y[3] = nns__dim_known(ps[1]);
  }
  return NNS_OK;
}

/* RoiAlign: rois [num_rois, 4], batch_indices [num_rois]. */
static nns_status roi_align_shape(nns__ictx *cx) {
  nns__dim c, num;
  nns_status st;
  if ((st = roi_input(cx, &c)) != NNS_OK ||
      (st = roi_boxes(cx, 4, &num)) != NNS_OK)
    return st;
  const nns__type *tb = nns__in_type(cx, 2);
  if (tb && tb->rank >= 0) {
    if (tb->rank != 1)
      return nns__fail(cx, NNS_E_SHAPE,
                       "batch_indices has rank %d; expected 1", tb->rank);
    nns__dim nb = tb->dims[0];
    if (!nb.sym && !num.sym && nb.v != num.v)
      return nns__fail(cx, NNS_E_SHAPE, "rois has %lld rows but "
                       "batch_indices has %lld", (long long)num.v,
                       (long long)nb.v);
    if (num.sym && !nb.sym)
      num = nb;
  }
  int64_t oh = nns__attr_int(cx, "output_height");
  int64_t ow = nns__attr_int(cx, "output_width");
  if (oh < 1 || ow < 1)
    return nns__fail(cx, NNS_E_ATTR, "output_height %lld and output_width "
                     "%lld must be >= 1", (long long)oh, (long long)ow);
  nns__dim *y = nns__out_shape(cx, 0, nns__in_dtype(cx, 0), 4);
  if (y) {
    y[0] = num;
    y[1] = c;
    y[2] = nns__dim_known(oh);
    y[3] = nns__dim_known(ow);
  }
  return NNS_OK;
}

/*
 * RoI pool costs depend on the boxes, which are data. MaxRoiPool's bins
 * (and RoiAlign's samples with sampling_ratio 0, ceil(roi / output) per
 * axis) have a size known only at run time: it is counted as 1, like a
 * symbol, and flagged. RoiAlign takes S = sampling_ratio^2 bilinear
 * samples per output, each counted as Resize's linear interpolation over
 * two axes (8 FLOPs, 4 elements read), then pooled over S as an average
 * pool (S - 1 + 2, docs/metrics.md's rank term) or a max pool (S - 1).
 */
static nns_status roi_io(nns__ictx *cx, nns__cost *c, int64_t *y,
                         int64_t *boxes) {
  *y = nns__out_count(cx, c, 0);
  *boxes = 0;
  for (int i = 1; i < nns__n_in(cx); i++) {
    if (!nns__has_in(cx, i))
      continue;
    int64_t n = nns__in_count(cx, c, i);
    if (n < 0)
      return NNS__UNCOUNTED;
    *boxes = nns__cadd(c, *boxes, n);
  }
  return *y < 0 ? NNS__UNCOUNTED : NNS_OK;
}

static nns_status max_roi_pool_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y, boxes;
  if (roi_io(cx, c, &y, &boxes) != NNS_OK)
    return NNS__UNCOUNTED;
  c->symbolic = true; /* bin size: data-dependent, counted as 1 */
  return pool_count(c, POOL_MAX, y, 1, 2, boxes);
}

static nns_status roi_align_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y, boxes;
  if (roi_io(cx, c, &y, &boxes) != NNS_OK)
    return NNS__UNCOUNTED;
  int64_t sr = nns__attr_int(cx, "sampling_ratio"), s = 1;
  if (sr > 0)
    s = nns__cmul(c, sr, sr);
  else
    c->symbolic = true; /* adaptive sample count, counted as 1 */
  bool avg = strcmp(nns__attr_str(cx, "mode"), "max") != 0;
  int64_t samples = nns__cmul(c, y, s);
  nns_status st = pool_count(c, avg ? POOL_AVG : POOL_MAX, y, s, 2, 0);
  /* pool_count read S per output; bilinear sampling reads 4 per sample. */
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, 8, samples));
  c->dmas = nns__cadd(c, nns__cadd(c, nns__cmul(c, 4, samples), y), boxes);
  return st;
}

/* ==== MaxUnpool ==== */

/*
 * Y's shape is the output_shape input when known; otherwise each spatial
 * axis is (in - 1) * stride - pads + kernel, which is the transposed window
 * with dilation 1 and no output padding.
 */
static nns_status max_unpool_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0), rank = pool_rank(cx);
  if (nns__has_in(cx, 2)) {
    const int64_t *os;
    int64_t n;
    if (nns__in_known_ints(cx, 2, &os, &n)) {
      if (rank >= 0 && n != rank)
        return nns__fail(cx, NNS_E_SHAPE, "output_shape has %lld values but "
                         "the input has rank %d", (long long)n, rank);
      if (n > 64)
        return nns__fail(cx, NNS_E_LIMIT, "output_shape has %lld values",
                         (long long)n);
      nns__dim *y = nns__out_shape(cx, 0, dt, (int32_t)n);
      for (int64_t k = 0; k < n; k++) {
        if (os[k] < 0)
          return nns__fail(cx, NNS_E_SHAPE, "output_shape[%lld] is %lld",
                           (long long)k, (long long)os[k]);
        if (y)
          y[k] = nns__dim_known(os[k]);
      }
      return NNS_OK;
    }
    /* Sizes chosen at run time: only the rank is known. */
    nns__out_shape(cx, 0, dt, rank);
    return NNS_OK;
  }
  if (rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  nns__window w;
  nns_status st = nns__window_rank(cx, rank);
  if (st == NNS_OK)
    st = nns__window_read(cx, rank - 2, NULL, &w);
  if (st != NNS_OK)
    return st;
  nns__dim *y = nns__out_shape(cx, 0, dt, rank);
  if (!y || !tx || tx->rank < 0)
    return NNS_OK;
  y[0] = tx->dims[0];
  y[1] = tx->dims[1];
  return nns__window_out_dims_transposed(cx, &w, tx->dims + 2, y + 2);
}

/* A scatter: reads X and the indices, writes Y (zeros elsewhere). Each
 * output pixel holds at most one input pixel: the transposed window gives
 * its field. */
static nns_status max_unpool_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_move(cx, c);
}

static nns_status max_unpool_rf(nns__ictx *cx, const nns__rf *in,
                                nns__rf *out) {
  nns__window w;
  if (pool_window(cx, &w) != NNS_OK) {
    memset(out, 0, sizeof *out);
    return NNS__UNCOUNTED;
  }
  return nns__window_rf(cx, &w, true, in, out);
}

/* ==== Entries ==== */

static const nns__attr_spec maxpool1_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_REQ("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS), NNS__A_OPT("strides", INTS), NNS__A_END};
static const nns__attr_spec maxpool8_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_REQ("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS),         NNS__A_INT("storage_order", 0),
    NNS__A_OPT("strides", INTS),      NNS__A_END};
static const nns__attr_spec maxpool10_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"),   NNS__A_INT("ceil_mode", 0),
    NNS__A_OPT("dilations", INTS),      NNS__A_REQ("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS),           NNS__A_INT("storage_order", 0),
    NNS__A_OPT("strides", INTS),        NNS__A_END};
static const nns__attr_spec avgpool1_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_REQ("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS), NNS__A_OPT("strides", INTS), NNS__A_END};
static const nns__attr_spec avgpool7_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_INT("count_include_pad", 0),
    NNS__A_REQ("kernel_shape", INTS), NNS__A_OPT("pads", INTS),
    NNS__A_OPT("strides", INTS),      NNS__A_END};
static const nns__attr_spec avgpool10_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_INT("ceil_mode", 0),
    NNS__A_INT("count_include_pad", 0), NNS__A_REQ("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS),         NNS__A_OPT("strides", INTS),
    NNS__A_END};
/* LpPool-1 had a float p and an optional kernel_shape. */
static const nns__attr_spec lppool1_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_OPT("kernel_shape", INTS),
    NNS__A_FLOAT("p", 2.0),           NNS__A_OPT("pads", INTS),
    NNS__A_OPT("strides", INTS),      NNS__A_END};
static const nns__attr_spec lppool2_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_REQ("kernel_shape", INTS),
    NNS__A_INT("p", 2),               NNS__A_OPT("pads", INTS),
    NNS__A_OPT("strides", INTS),      NNS__A_END};
/* AveragePool-19 and LpPool-18 take dilations (LpPool-18 ceil_mode too):
 * the shared window helper (window.c) reads them for shape and cost. */
static const nns__attr_spec avgpool19_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"),   NNS__A_INT("ceil_mode", 0),
    NNS__A_INT("count_include_pad", 0), NNS__A_OPT("dilations", INTS),
    NNS__A_REQ("kernel_shape", INTS),   NNS__A_OPT("pads", INTS),
    NNS__A_OPT("strides", INTS),        NNS__A_END};
static const nns__attr_spec lppool18_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_INT("ceil_mode", 0),
    NNS__A_OPT("dilations", INTS),    NNS__A_REQ("kernel_shape", INTS),
    NNS__A_INT("p", 2),               NNS__A_OPT("pads", INTS),
    NNS__A_OPT("strides", INTS),      NNS__A_END};
static const nns__attr_spec global_lp1_attrs[] = {NNS__A_FLOAT("p", 2.0),
                                                  NNS__A_END};
static const nns__attr_spec global_lp2_attrs[] = {NNS__A_INT("p", 2),
                                                  NNS__A_END};
static const nns__attr_spec max_roi_attrs[] = {
    NNS__A_REQ("pooled_shape", INTS), NNS__A_FLOAT("spatial_scale", 1.0),
    NNS__A_END};
static const nns__attr_spec roi_align10_attrs[] = {
    NNS__A_STR("mode", "avg"),        NNS__A_INT("output_height", 1),
    NNS__A_INT("output_width", 1),    NNS__A_INT("sampling_ratio", 0),
    NNS__A_FLOAT("spatial_scale", 1.0), NNS__A_END};
static const nns__attr_spec roi_align16_attrs[] = {
    NNS__A_STR("coordinate_transformation_mode", "half_pixel"),
    NNS__A_STR("mode", "avg"),        NNS__A_INT("output_height", 1),
    NNS__A_INT("output_width", 1),    NNS__A_INT("sampling_ratio", 0),
    NNS__A_FLOAT("spatial_scale", 1.0), NNS__A_END};
static const nns__attr_spec max_unpool_attrs[] = {
    NNS__A_REQ("kernel_shape", INTS), NNS__A_OPT("pads", INTS),
    NNS__A_OPT("strides", INTS), NNS__A_END};

/*
 * MaxPool-11 and -12 only widened the types (-11 also documented pads);
 * they keep their own entries so the ranges mirror the ONNX history.
 * AveragePool-11 and LpPool-11 changed documentation only.
 */
const nns__op nns__ops_pool[] = {
    {"", "MaxPool", 1, 7, "a", maxpool1_attrs, pool_shape, NULL,
     .cost = maxpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "MaxPool", 8, 9, "a", maxpool8_attrs, pool_shape, NULL,
     .cost = maxpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "MaxPool", 10, 10, "a", maxpool10_attrs, pool_shape, NULL,
     .cost = maxpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "MaxPool", 11, 11, "a", maxpool10_attrs, pool_shape, NULL,
     .cost = maxpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "MaxPool", 12, NNS__OPSET_MAX, "a", maxpool10_attrs, pool_shape, NULL,
     .cost = maxpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "AveragePool", 1, 6, "a", avgpool1_attrs, pool_shape, NULL,
     .cost = avgpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "AveragePool", 7, 9, "a", avgpool7_attrs, pool_shape, NULL,
     .cost = avgpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "AveragePool", 10, 18, "a", avgpool10_attrs, pool_shape,
     NULL,
     .cost = avgpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "AveragePool", 19, NNS__OPSET_MAX, "a", avgpool19_attrs, pool_shape,
     NULL,
     .cost = avgpool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "LpPool", 1, 1, "a", lppool1_attrs, pool_shape, NULL,
     .cost = lppool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "LpPool", 2, 17, "a", lppool2_attrs, pool_shape, NULL,
     .cost = lppool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "LpPool", 18, NNS__OPSET_MAX, "a", lppool18_attrs, pool_shape, NULL,
     .cost = lppool_cost, .rf = pool_rf,
     .rf_parts = true},
    {"", "GlobalAveragePool", 1, NNS__OPSET_MAX, "a", NULL, global_pool_shape,
     NULL,
     .cost = global_avgpool_cost, .rf = nns__rf_whole},
    {"", "GlobalMaxPool", 1, NNS__OPSET_MAX, "a", NULL, global_pool_shape, NULL,
     .cost = global_maxpool_cost, .rf = nns__rf_whole},
    {"", "GlobalLpPool", 1, 1, "a", global_lp1_attrs, global_pool_shape, NULL,
     .cost = global_lppool_cost, .rf = nns__rf_whole},
    {"", "GlobalLpPool", 2, NNS__OPSET_MAX, "a", global_lp2_attrs,
     global_pool_shape,
     NULL, .cost = global_lppool_cost, .rf = nns__rf_whole},
    {"", "MaxRoiPool", 1, NNS__OPSET_MAX, "ac", max_roi_attrs,
     max_roi_pool_shape, NULL,
     .cost = max_roi_pool_cost, .rf = nns__rf_whole},
    {"", "RoiAlign", 10, 15, "acc", roi_align10_attrs, roi_align_shape, NULL,
     .cost = roi_align_cost, .rf = nns__rf_whole},
    {"", "RoiAlign", 16, NNS__OPSET_MAX, "acc", roi_align16_attrs,
     roi_align_shape, NULL,
     .cost = roi_align_cost, .rf = nns__rf_whole},
    {"", "MaxUnpool", 9, NNS__OPSET_MAX, "acc", max_unpool_attrs,
     max_unpool_shape, NULL,
     .cost = max_unpool_cost, .rf = max_unpool_rf,
     .rf_parts = true},
    NNS__OP_END,
};
