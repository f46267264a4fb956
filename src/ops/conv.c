/*
 * conv.c - operator family "conv": Conv, ConvTranspose, ConvInteger and
 * QLinearConv. All four share one shape rule: [N, C, spatial...] input,
 * [M, C/group, kernel...] weight (transposed: [C, M/group, kernel...]),
 * spatial output sizes from the shared window arithmetic in window.h, and
 * the checks a reader of a broken export wants: rank of W equal to rank of
 * X, input channels equal to W's channels times group, bias length equal
 * to the output channels.
 *
 * DeformConv (opset 19) is beyond the opsets this table covers.
 */
#include "window.h"

/* ==== Shared rule ==== */

/* Where a conv-like op keeps its operands, and what it outputs. */
typedef struct conv_io {
  int x, w, b;        /* input indexes; b < 0: no bias input */
  bool transposed;    /* ConvTranspose */
  bool same_dtype;    /* X and W share the type T (float Conv) */
} conv_io;

/* Output channels, from the weight's shape or, failing that, the bias. */
static nns__dim out_channels(nns__ictx *cx, const conv_io *io,
                             const nns__type *tw, int64_t group) {
  if (tw && tw->rank >= 2) {
    if (!io->transposed)
      return tw->dims[0];
    return nns__mul(cx, tw->dims[1], nns__dim_known(group));
  }
  const nns__type *tb = io->b >= 0 ? nns__in_type(cx, io->b) : NULL;
  if (tb && tb->rank == 1)
    return tb->dims[0];
  return nns__fresh(cx);
}

/* Checks channels and bias against each other, where they are known. */
static nns_status check_channels(nns__ictx *cx, const conv_io *io,
                                 const nns__type *tx, const nns__type *tw,
                                 int64_t group, nns__dim m) {
  if (tx && tx->rank >= 2 && tw && tw->rank >= 2) {
    nns__dim c = tx->dims[1];
    if (!io->transposed) {
      nns__dim wc = tw->dims[1];
      int64_t want;
      if (!c.sym && !wc.sym &&
          (!nns__mul_i64(wc.v, group, &want) || want != c.v))
        return nns__fail(cx, NNS_E_SHAPE,
                         "input has %lld channels but the weight expects "
                         "W.shape[1] %lld x group %lld",
                         (long long)c.v, (long long)wc.v, (long long)group);
    } else {
      nns__dim wc = tw->dims[0];
      if (!c.sym && !wc.sym && c.v != wc.v)
        return nns__fail(cx, NNS_E_SHAPE,
                         "input has %lld channels but the weight's first "
                         "dim (input channels) is %lld",
                         (long long)c.v, (long long)wc.v);
    }
  }
  if (tw && tw->rank >= 1 && !tw->dims[0].sym && tw->dims[0].v % group != 0)
    return nns__fail(cx, NNS_E_SHAPE,
                     "weight dim 0 (%lld) is not divisible by group %lld",
                     (long long)tw->dims[0].v, (long long)group);
  const nns__type *tb = io->b >= 0 ? nns__in_type(cx, io->b) : NULL;
  if (tb && tb->rank >= 0) {
    if (tb->rank != 1)
      return nns__fail(cx, NNS_E_SHAPE, "bias has rank %d, expected 1",
                       tb->rank);
    if (!tb->dims[0].sym && !m.sym && tb->dims[0].v != m.v)
      return nns__fail(cx, NNS_E_SHAPE,
                       "bias has %lld elements but there are %lld output "
                       "channels", (long long)tb->dims[0].v, (long long)m.v);
  }
  return NNS_OK;
}

static nns_status conv_rule(nns__ictx *cx, const conv_io *io, int32_t dtype) {
  const nns__type *tx = nns__in_type(cx, io->x), *tw = nns__in_type(cx, io->w);
  int32_t rx = tx ? tx->rank : -1, rw = tw ? tw->rank : -1;
  if (io->same_dtype && tx && tw && tx->dtype && tw->dtype &&
      tx->dtype != tw->dtype)
    return nns__fail(cx, NNS_E_TYPE, "input is %s but weight is %s",
                     nns_dtype_name(tx->dtype), nns_dtype_name(tw->dtype));
  if (rx >= 0 && rw >= 0 && rx != rw)
    return nns__fail(cx, NNS_E_SHAPE,
                     "input has rank %d but weight has rank %d (both must "
                     "be 2 + spatial axes)", rx, rw);
  int32_t rank = rx >= 0 ? rx : rw;
  if (rank < 0) {
    /* The kernel_shape attribute still tells the rank. */
    const int64_t *ks;
    int32_t nk = nns__attr_ints(cx, "kernel_shape", &ks);
    rank = nk >= 0 ? nk + 2 : -1;
  }
  if (rank < 0) {
    nns__out_shape(cx, 0, dtype, -1);
    return NNS_OK;
  }
  if (rank < 2)
    return nns__fail(cx, NNS_E_SHAPE,
                     "input has rank %d; expected [N, C, spatial...]", rank);
  int64_t group = nns__attr_int(cx, "group");
  if (group < 1)
    return nns__fail(cx, NNS_E_ATTR, "group is %lld, must be >= 1",
                     (long long)group);
  nns__window w;
  nns_status st =
      nns__window_read(cx, rank - 2, rw >= 0 ? tw->dims + 2 : NULL, &w);
  if (st != NNS_OK)
    return st;
  nns__dim m = out_channels(cx, io, rw >= 0 ? tw : NULL, group);
  st = check_channels(cx, io, rx >= 0 ? tx : NULL, rw >= 0 ? tw : NULL,
                      group, m);
  if (st != NNS_OK)
    return st;
  nns__dim *y = nns__out_shape(cx, 0, dtype, rank);
  if (!y)
    return NNS_OK;
  y[1] = m;
  if (rx < 0)
    return NNS_OK; /* batch and spatial sizes stay unknown */
  y[0] = tx->dims[0];
  return io->transposed
             ? nns__window_out_dims_transposed(cx, &w, tx->dims + 2, y + 2)
             : nns__window_out_dims(cx, &w, tx->dims + 2, y + 2);
}

/* ==== Entries ==== */

static nns_status conv_shape(nns__ictx *cx) {
  conv_io io = {.x = 0, .w = 1, .b = 2, .same_dtype = true};
  int32_t dt = nns__in_dtype(cx, 0);
  return conv_rule(cx, &io, dt ? dt : nns__in_dtype(cx, 1));
}

static nns_status conv_transpose_shape(nns__ictx *cx) {
  conv_io io = {.x = 0, .w = 1, .b = 2, .transposed = true,
                .same_dtype = true};
  int32_t dt = nns__in_dtype(cx, 0);
  return conv_rule(cx, &io, dt ? dt : nns__in_dtype(cx, 1));
}

/* ConvInteger: x, w, x_zero_point, w_zero_point; accumulates in int32. */
static nns_status conv_integer_shape(nns__ictx *cx) {
  conv_io io = {.x = 0, .w = 1, .b = -1};
  return conv_rule(cx, &io, NNS_DT_INT32);
}

/* QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point,
 * y_scale, y_zero_point, B; the output has y_zero_point's type. */
static nns_status qlinear_conv_shape(nns__ictx *cx) {
  conv_io io = {.x = 0, .w = 3, .b = 8};
  return conv_rule(cx, &io, nns__in_dtype(cx, 7));
}

static const nns__attr_spec conv_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_OPT("dilations", INTS),
    NNS__A_INT("group", 1),           NNS__A_OPT("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS),         NNS__A_OPT("strides", INTS),
    NNS__A_END};

static const nns__attr_spec conv_transpose_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"),   NNS__A_OPT("dilations", INTS),
    NNS__A_INT("group", 1),             NNS__A_OPT("kernel_shape", INTS),
    NNS__A_OPT("output_padding", INTS), NNS__A_OPT("output_shape", INTS),
    NNS__A_OPT("pads", INTS),           NNS__A_OPT("strides", INTS),
    NNS__A_END};

/*
 * Conv-1 and Conv-11 differ only in documentation (11 made kernel_shape
 * inferable from W and clarified auto_pad), as do ConvTranspose-1/11: one
 * entry each covers every opset.
 */
const nns__op nns__ops_conv[] = {
    {"", "Conv", 1, 17, "awb", conv_attrs, conv_shape, NULL},
    {"", "ConvTranspose", 1, 17, "awb", conv_transpose_attrs,
     conv_transpose_shape, NULL},
    {"", "ConvInteger", 10, 17, "awcc", conv_attrs, conv_integer_shape, NULL},
    {"", "QLinearConv", 10, 17, "accwccccb", conv_attrs, qlinear_conv_shape,
     NULL},
    NNS__OP_END,
};
