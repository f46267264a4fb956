/*
 * conv.c - operator family "conv": Conv, ConvTranspose, ConvInteger and
 * QLinearConv. All four share one shape rule: [N, C, spatial...] input,
 * [M, C/group, kernel...] weight (transposed: [C, M/group, kernel...]),
 * spatial output sizes from the shared window arithmetic in window.h, and
 * the checks a reader of a broken export wants: rank of W equal to rank of
 * X, input channels equal to W's channels times group, bias length equal
 * to the output channels.
 *
 * Their costs (docs/metrics.md, rows Conv and ConvTranspose) count, per
 * output element (transposed: per input element), W.shape[1] channels times
 * k kernel taps of multiply-accumulates; the quantized forms count the same
 * MACs and, in FLOPs, the zero-point subtractions and requantization a
 * straightforward integer kernel does. Their receptive field is the
 * window's (window.h), from the same attributes as the shape.
 *
 * DeformConv (opset 19) is beyond the opsets this table covers.
 */
#include <string.h>

#include "dot.h"
#include "shape_util.h"
#include "window.h"

/* ==== Shared rule ==== */

/* Where a conv-like op keeps its operands, and what it outputs. */
typedef struct conv_io {
  int x, w, b;        /* input indexes; b < 0: no bias input */
  int n_read;         /* the inputs the conv itself reads; later ones belong
                         to an op extending it (FusedConv's Z) */
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
  nns_status st = nns__window_rank(cx, rank);
  if (st != NNS_OK)
    return st;
  int64_t group = nns__attr_int(cx, "group");
  if (group < 1)
    return nns__fail(cx, NNS_E_ATTR, "group is %lld, must be >= 1",
                     (long long)group);
  nns__window w;
  st = nns__window_read(cx, rank - 2, rw >= 0 ? tw->dims + 2 : NULL, &w);
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

/* ==== Cost ==== */

typedef enum conv_kind {
  CONV_FLOAT,   /* Conv, ConvTranspose */
  CONV_INTEGER, /* ConvInteger: optional zero points at inputs 2 and 3 */
  CONV_QLINEAR  /* QLinearConv: zero points at 2 and 5, y_scale, y_zp */
} conv_kind;

/*
 * Conv: dot.h's nns__conv_cost (MACs numel(Y) * W.shape[1] * k, that is
 * Cin/g * k; FLOPs 2*MACs - numel(Y), + numel(Y) for a bias; DMAs X read
 * once per MAC, every other input once, Y written once). ConvTranspose
 * (its own row): MACs numel(X) * W.shape[1] * k (Cout/g * k), FLOPs
 * 2*MACs (no add saved: its outputs gather overlapping sums) + numel(Y)
 * for a bias, DMAs alike.
 *
 * Integer forms: the same MACs (an integer MAC is still a MAC). FLOPs count
 * arithmetic whatever the type: the products and sums as above, plus one
 * subtraction per element of X and of W for each zero point present, plus
 * (QLinearConv) the bias add and two operations per output to requantize
 * (scale multiply, zero-point add; rounding and saturation not counted).
 */
static nns_status conv_cost_rule(nns__ictx *cx, const conv_io *io,
                                 conv_kind kind, nns__cost *c) {
  const nns__type *tw = nns__in_type(cx, io->w);
  int64_t y = nns__out_count(cx, c, 0), x = nns__in_count(cx, c, io->x);
  if (!tw || tw->rank < 2 || y < 0 || x < 0)
    return NNS__UNCOUNTED;
  int64_t cin_g = nns__dim_count(c, tw->dims[1], cx->m), k = 1;
  for (int32_t a = 2; a < tw->rank; a++)
    k = nns__cmul(c, k, nns__dim_count(c, tw->dims[a], cx->m));
  /* Every input but X and the bias is read once, as a weight. */
  int64_t w = 0, bias = 0;
  int n_in = nns__n_in(cx) < io->n_read ? nns__n_in(cx) : io->n_read;
  for (int i = 0; i < n_in; i++) {
    if (i == io->x || !nns__has_in(cx, i))
      continue;
    int64_t n = nns__in_count(cx, c, i);
    if (n < 0)
      return NNS__UNCOUNTED;
    if (i == io->b)
      bias = n;
    else
      w = nns__cadd(c, w, n);
  }
  if (!io->transposed) {
    nns__conv_cost(c, y, cin_g, k, w, bias);
  } else {
    c->macs = nns__cmul(c, x, nns__cmul(c, cin_g, k));
    c->flops = nns__cmul(c, 2, c->macs);
    if (bias > 0)
      c->flops = nns__cadd(c, c->flops, y);
    c->dmas = nns__cadd(c, nns__cadd(c, c->macs, w), nns__cadd(c, bias, y));
  }
  int64_t tw_count = nns__in_count(cx, c, io->w);
  if (kind == CONV_INTEGER) {
    if (nns__has_in(cx, 2))
      c->flops = nns__cadd(c, c->flops, x);
    if (nns__has_in(cx, 3))
      c->flops = nns__cadd(c, c->flops, tw_count);
  } else if (kind == CONV_QLINEAR) {
    c->flops = nns__cadd(c, c->flops, nns__cadd(c, x, tw_count));
    c->flops = nns__cadd(c, c->flops, nns__cmul(c, 2, y));
  }
  return NNS_OK;
}

/* ==== Receptive field ==== */

/* The window of a conv-like node, read as its shape rule reads it. */
static nns_status conv_window(nns__ictx *cx, const conv_io *io,
                              nns__window *w) {
  const nns__type *tx = nns__in_type(cx, io->x), *tw = nns__in_type(cx, io->w);
  int32_t rx = tx ? tx->rank : -1, rw = tw ? tw->rank : -1;
  int32_t rank = rx >= 0 ? rx : rw;
  if (rank < 2)
    return NNS__UNCOUNTED;
  return nns__window_read(cx, rank - 2, rw == rank ? tw->dims + 2 : NULL, w);
}

static nns_status conv_rf_rule(nns__ictx *cx, const conv_io *io,
                               const nns__rf *in, nns__rf *out) {
  nns__window w;
  nns_status st = conv_window(cx, io, &w);
  if (st != NNS_OK) {
    memset(out, 0, sizeof *out);
    return NNS__UNCOUNTED;
  }
  return nns__window_rf(cx, &w, io->transposed, in, out);
}

/* ==== Entries ==== */

static const conv_io conv_io_float = {.x = 0, .w = 1, .b = 2, .n_read = 3,
                                      .same_dtype = true};
static const conv_io conv_io_transposed = {.x = 0, .w = 1, .b = 2,
                                           .n_read = 3, .transposed = true,
                                           .same_dtype = true};
static const conv_io conv_io_integer = {.x = 0, .w = 1, .b = -1, .n_read = 4};
static const conv_io conv_io_qlinear = {.x = 0, .w = 3, .b = 8, .n_read = 9};
/* DeformConv (opset 19): X, W, offset, B, mask. */
static const conv_io conv_io_deform = {.x = 0, .w = 1, .b = 3, .n_read = 5,
                                       .same_dtype = true};

nns_status nns__conv_cost_rule(nns__ictx *cx, nns__cost *c) {
  return conv_cost_rule(cx, &conv_io_float, CONV_FLOAT, c);
}
static nns_status conv_transpose_cost(nns__ictx *cx, nns__cost *c) {
  return conv_cost_rule(cx, &conv_io_transposed, CONV_FLOAT, c);
}
static nns_status conv_integer_cost(nns__ictx *cx, nns__cost *c) {
  return conv_cost_rule(cx, &conv_io_integer, CONV_INTEGER, c);
}
static nns_status qlinear_conv_cost(nns__ictx *cx, nns__cost *c) {
  return conv_cost_rule(cx, &conv_io_qlinear, CONV_QLINEAR, c);
}

/*
 * DeformConv: Conv's count (offset and mask read once, like weights),
 * plus sampling X at the offset positions: each of the numel(Y) / C_out *
 * C_in * k samples is a linear interpolation, 4 FLOPs per spatial axis
 * (Resize's linear), and one multiply by the mask when there is one.
 */
static nns_status deform_conv_cost(nns__ictx *cx, nns__cost *c) {
  nns_status st = conv_cost_rule(cx, &conv_io_deform, CONV_FLOAT, c);
  if (st != NNS_OK)
    return st;
  const nns__type *tw = nns__in_type(cx, 1);
  const nns__type *ty = nns__has_out(cx, 0) ? &cx->node->out[0]->type : NULL;
  if (!ty || ty->rank < 3 || tw->rank != ty->rank)
    return NNS__UNCOUNTED;
  int64_t cout = nns__dim_count(c, ty->dims[1], cx->m);
  int64_t y = nns__out_count(cx, c, 0);
  int64_t g = nns__attr_int(cx, "group");
  int64_t per = nns__dim_count(c, tw->dims[1], cx->m) * (g > 0 ? g : 1);
  for (int32_t a = 2; a < tw->rank; a++)
    per = nns__cmul(c, per, nns__dim_count(c, tw->dims[a], cx->m));
  if (cout < 1)
    return NNS__UNCOUNTED;
  int64_t samples = nns__cmul(c, y / cout, per);
  int64_t f = 4 * (int64_t)(ty->rank - 2) + (nns__has_in(cx, 4) ? 1 : 0);
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, f, samples));
  return NNS_OK;
}
static nns_status deform_conv_rf(nns__ictx *cx, const nns__rf *in,
                                 nns__rf *out) {
  return conv_rf_rule(cx, &conv_io_deform, in, out);
}
static nns_status deform_conv_shape(nns__ictx *cx) {
  return conv_rule(cx, &conv_io_deform, nns__in_dtype(cx, 0));
}

nns_status nns__conv_rf_rule(nns__ictx *cx, const nns__rf *in,
                             nns__rf *out) {
  return conv_rf_rule(cx, &conv_io_float, in, out);
}
static nns_status conv_transpose_rf(nns__ictx *cx, const nns__rf *in,
                                    nns__rf *out) {
  return conv_rf_rule(cx, &conv_io_transposed, in, out);
}
static nns_status conv_integer_rf(nns__ictx *cx, const nns__rf *in,
                                  nns__rf *out) {
  return conv_rf_rule(cx, &conv_io_integer, in, out);
}
static nns_status qlinear_conv_rf(nns__ictx *cx, const nns__rf *in,
                                  nns__rf *out) {
  return conv_rf_rule(cx, &conv_io_qlinear, in, out);
}

nns_status nns__conv_shape_rule(nns__ictx *cx) {
  int32_t dt = nns__in_dtype(cx, 0);
  return conv_rule(cx, &conv_io_float, dt ? dt : nns__in_dtype(cx, 1));
}

static nns_status conv_transpose_shape(nns__ictx *cx) {
  int32_t dt = nns__in_dtype(cx, 0);
  return conv_rule(cx, &conv_io_transposed, dt ? dt : nns__in_dtype(cx, 1));
}

/* ConvInteger: x, w, x_zero_point, w_zero_point; accumulates in int32. */
static nns_status conv_integer_shape(nns__ictx *cx) {
  return conv_rule(cx, &conv_io_integer, NNS_DT_INT32);
}

/* QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point,
 * y_scale, y_zero_point, B; the output has y_zero_point's type. */
static nns_status qlinear_conv_shape(nns__ictx *cx) {
  return conv_rule(cx, &conv_io_qlinear, nns__in_dtype(cx, 7));
}

static const nns__attr_spec conv_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_OPT("dilations", INTS),
    NNS__A_INT("group", 1),           NNS__A_OPT("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS),         NNS__A_OPT("strides", INTS),
    NNS__A_END};

static const nns__attr_spec deform_conv_attrs[] = {
    NNS__A_OPT("dilations", INTS), NNS__A_INT("group", 1),
    NNS__A_OPT("kernel_shape", INTS), NNS__A_INT("offset_group", 1),
    NNS__A_OPT("pads", INTS), NNS__A_OPT("strides", INTS), NNS__A_END};

static const nns__attr_spec conv_transpose_attrs[] = {
    NNS__A_STR("auto_pad", "NOTSET"),   NNS__A_OPT("dilations", INTS),
    NNS__A_INT("group", 1),             NNS__A_OPT("kernel_shape", INTS),
    NNS__A_OPT("output_padding", INTS), NNS__A_OPT("output_shape", INTS),
    NNS__A_OPT("pads", INTS),           NNS__A_OPT("strides", INTS),
    NNS__A_END};

/* ==== Col2Im (opset 18) ==== */

/*
 * Col2Im: columns [N, C * prod(block_shape), L] back into the image
 * [N, C, image_shape...]. Every column element is added into its pixel:
 * FLOPs numel(input), DMAs numel(input) + numel(Y) (the shape inputs are
 * arguments). The field rule is nns__rf_whole: the columns' layout (which
 * pixel each came from) is not one the receptive-field rules track.
 */
static nns_status col2im_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  int32_t dt = nns__in_dtype(cx, 0);
  if (x && x->rank >= 0 && x->rank != 3)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C * "
                     "prod(block_shape), L]", x->rank);
  const nns__dim *img = NULL, *blk = NULL;
  int64_t ni = -1, nb = -1;
  bool ki = nns__in_ints(cx, 1, &img, &ni), kb = nns__in_ints(cx, 2, &blk, &nb);
  if (ki && kb && ni != nb)
    return nns__fail(cx, NNS_E_SHAPE, "image_shape has %lld values, "
                     "block_shape %lld", (long long)ni, (long long)nb);
  int64_t r = ki ? ni : kb ? nb : -1;
  if (r < 0 || r > NNS__RANK_LIMIT - 2) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  nns__dim *d = nns__out_shape(cx, 0, dt, (int32_t)r + 2);
  if (!d)
    return NNS_OK;
  if (x && x->rank == 3) {
    d[0] = x->dims[0];
    if (kb) {
      nns__dim prod = nns__dim_known(1);
      for (int64_t k = 0; k < nb; k++)
        prod = nns__mul(cx, prod, blk[k]);
      if (!prod.sym && prod.v < 1)
        return nns__fail(cx, NNS_E_SHAPE, "block_shape has a dim < 1");
      if (!prod.sym && !x->dims[1].sym && x->dims[1].v % prod.v)
        return nns__fail(cx, NNS_E_SHAPE, "%lld columns are not a multiple "
                         "of the block's %lld", (long long)x->dims[1].v,
                         (long long)prod.v);
      d[1] = nns__div(cx, x->dims[1], prod);
    }
  }
  for (int64_t k = 0; ki && k < ni; k++)
    d[2 + k] = img[k];
  return NNS_OK;
}

static nns_status col2im_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0);
  if (x < 0)
    return NNS__UNCOUNTED;
  return nns__cost_rw(cx, c, x, x);
}

static const nns__attr_spec col2im_attrs[] = {
    NNS__A_OPT("dilations", INTS), NNS__A_OPT("pads", INTS),
    NNS__A_OPT("strides", INTS), NNS__A_END};

/*
 * Conv-1 and Conv-11 differ only in documentation (11 made kernel_shape
 * inferable from W and clarified auto_pad), as do ConvTranspose-1/11: one
 * entry each covers every opset.
 */
const nns__op nns__ops_conv[] = {
    {"", "DeformConv", 19, NNS__OPSET_MAX, "awaba", deform_conv_attrs,
     deform_conv_shape, NULL, .cost = deform_conv_cost, .rf = deform_conv_rf,
     .matrix = true},
    {"", "Col2Im", 18, NNS__OPSET_MAX, "acc", col2im_attrs, col2im_shape, NULL,
     .cost = col2im_cost, .rf = nns__rf_whole},
    {"", "Conv", 1, NNS__OPSET_MAX, "awb", conv_attrs, nns__conv_shape_rule,
     NULL,
     .cost = nns__conv_cost_rule, .rf = nns__conv_rf_rule,
     .rf_parts = true, .matrix = true},
    {"", "ConvTranspose", 1, NNS__OPSET_MAX, "awb", conv_transpose_attrs,
     conv_transpose_shape, NULL, .cost = conv_transpose_cost,
     .rf = conv_transpose_rf,
     .rf_parts = true, .matrix = true},
    {"", "ConvInteger", 10, NNS__OPSET_MAX, "awcc", conv_attrs,
     conv_integer_shape, NULL,
     .cost = conv_integer_cost, .rf = conv_integer_rf,
     .rf_parts = true, .matrix = true},
    {"", "QLinearConv", 10, NNS__OPSET_MAX, "accwccccb", conv_attrs,
     qlinear_conv_shape,
     NULL, .cost = qlinear_conv_cost, .rf = qlinear_conv_rf,
     .rf_parts = true, .matrix = true},
    NNS__OP_END,
};
