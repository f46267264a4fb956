/*
 * window.h - sliding-window arithmetic shared by every op that moves a
 * kernel over spatial axes: Conv, ConvTranspose, ConvInteger, QLinearConv,
 * MaxPool, AveragePool, LpPool, MaxUnpool, and the shape, cost and
 * receptive-field rules of each. One place computes, per spatial axis, the output size from the
 * input size, kernel, stride, dilation, pads, auto_pad and ceil_mode, and
 * the leading/trailing pads actually applied, so that shape, cost and
 * receptive field can never disagree.
 *
 *   nns__window w;
 *   st = nns__window_read(cx, n_spatial, kernel_from_weight_or_NULL, &w);
 *   st = nns__window_out_dims(cx, &w, x_spatial_dims, y_spatial_dims);
 *
 * Numbers follow the ONNX operator documents (Conv-11, MaxPool-12,
 * ConvTranspose-11), with the ceil_mode rule of ONNX >= 1.16 / PyTorch: a
 * window that would start in the trailing padding is dropped.
 *
 * The cost rules take the kernel size k from nns__window_kernel_count and
 * the receptive-field rules go through nns__window_rf, which resolves the
 * leading pad (auto_pad included) with the same per-axis code as the shape
 * rule.
 */
#ifndef NNS_WINDOW_H
#define NNS_WINDOW_H

#include "op.h"

/* Most spatial axes a window op may have; more fails the node. */
#define NNS__WIN_MAX 16
/* Largest kernel, stride, dilation, pad or size a window takes (2^40):
 * beyond any real model, and small enough that no sum or product of two
 * of them overflows. Larger values fail the node with NNS_E_LIMIT. */
#define NNS__WIN_LIMIT ((int64_t)1 << 40)

typedef enum nns__auto_pad {
  NNS__PAD_NOTSET = 0, /* explicit `pads` (default zeros) */
  NNS__PAD_VALID,      /* no padding */
  NNS__PAD_SAME_UPPER, /* out = ceil(in / stride); extra pad at the end */
  NNS__PAD_SAME_LOWER  /* same; extra pad at the beginning */
} nns__auto_pad;

typedef struct nns__window {
  int32_t n;                             /* spatial axes */
  int64_t kernel[NNS__WIN_MAX];          /* -1 where unknown */
  int64_t stride[NNS__WIN_MAX];          /* >= 1 */
  int64_t dilation[NNS__WIN_MAX];        /* >= 1 */
  int64_t pad_begin[NNS__WIN_MAX];       /* explicit pads (NOTSET only) */
  int64_t pad_end[NNS__WIN_MAX];
  int64_t output_padding[NNS__WIN_MAX];  /* ConvTranspose only, else 0 */
  int64_t output_shape[NNS__WIN_MAX];    /* ConvTranspose attr, -1 unset */
  uint8_t auto_pad;                      /* nns__auto_pad */
  bool ceil_mode;                        /* pools, opset >= 10 */
} nns__window;

/* One axis resolved for a known input size. */
typedef struct nns__win_axis {
  int64_t out;       /* output size */
  int64_t pad_begin; /* pads actually applied (auto_pad resolved) */
  int64_t pad_end;
} nns__win_axis;

/*
 * Reads kernel_shape, strides, dilations, pads, auto_pad, ceil_mode,
 * output_padding and output_shape (each only if the op's spec has it) for
 * n spatial axes, checking list lengths and ranges. `weight_kernel` (n
 * dims, may be NULL or hold symbols) is the kernel taken from a weight's
 * shape: it fills kernel_shape when the attribute is absent and must agree
 * with it when both are known.
 */
nns_status nns__window_read(nns__ictx *cx, int32_t n,
                            const nns__dim *weight_kernel, nns__window *w);

/* The input rank every windowed op needs, [N, C, spatial...]: NNS_OK for
 * a rank of 2 or more (an unknown one, -1, is the caller's to handle
 * first), else the shape failure that says so. */
nns_status nns__window_rank(nns__ictx *cx, int32_t rank);

/* Dilated kernel extent (k - 1) * d + 1 of one axis; -1 when the kernel is
 * unknown or the extent overflows. */
int64_t nns__window_extent(const nns__window *w, int32_t axis);

/*
 * Output size and applied pads of one axis for input size `in` (forward
 * window: conv, pools). False when the kernel is unknown, the padded input
 * is smaller than the dilated kernel, or on overflow.
 */
bool nns__window_axis(const nns__window *w, int32_t axis, int64_t in,
                      nns__win_axis *r);
/* Same for a transposed window (ConvTranspose): output_shape, auto_pad and
 * output_padding per the ConvTranspose document. */
bool nns__window_axis_transposed(const nns__window *w, int32_t axis,
                                 int64_t in, nns__win_axis *r);

/*
 * Fills out[0..n) from in[0..n) (spatial dims, possibly symbolic): known
 * inputs give known outputs; symbolic inputs give the symbolic formula
 * where it is exact, else a fresh symbol. Fails the node, naming the axis
 * and numbers, when a known input is too small for the kernel.
 */
nns_status nns__window_out_dims(nns__ictx *cx, const nns__window *w,
                                const nns__dim *in, nns__dim *out);
nns_status nns__window_out_dims_transposed(nns__ictx *cx, const nns__window *w,
                                           const nns__dim *in, nns__dim *out);

/* ==== Costs ==== */

/* k of docs/metrics.md: the product of the kernel dims (dilation does not
 * add taps); -1 when a kernel dim is unknown. With the input's spatial dims
 * `in` (may be NULL or symbolic), an axis whose dilated kernel is wider
 * than the padded input (a ceil_mode pool) counts only the taps inside it.
 * Saturates through c. */
int64_t nns__window_kernel_count(const nns__window *w, const nns__dim *in,
                                 nns__cost *c);

/* ==== Receptive field ==== */

/*
 * The leading pad applied on one axis whose input size is `in` (known or
 * symbolic), forward or transposed, auto_pad resolved by the same code as
 * the shape rule. For a symbolic size, SAME padding is taken with the size
 * a multiple of the stride (exact then, and independent of the size); a
 * ConvTranspose output_shape over a symbolic size keeps the explicit pads.
 */
int64_t nns__window_lead_pad(const nns__window *w, int32_t axis, nns__dim in,
                             bool transposed);

/*
 * The field after a window op, from the field `in` of its input 0
 * (docs/metrics.md): per spatial axis (at most NNS_RF_MAX_AXES), with
 * kernel k, stride st, dilation d and leading pad p,
 *   forward:    field' = field + (k-1)*d*j, j' = j*st, pad' = pad + p*j;
 *   transposed: field' = field + floor((k-1)*d / st)*j, j' = ceil(j / st),
 *               pad' = pad + floor(((k-1)*d - p) / st)*j.
 * An input whose field has another axis count starts from the identity
 * (field 1, stride 1, padding 0); a field that is whole stays whole. The
 * output's spatial axes are dims 2.. (ONNX's layout).
 * Returns NNS__UNCOUNTED (out->f.axes 0) when the kernel is unknown.
 */
nns_status nns__window_rf(nns__ictx *cx, const nns__window *w, bool transposed,
                          const nns__rf *in, nns__rf *out);

/* The field of input 0 with n spatial axes at dims 2.., or the identity
 * field when it has another axis count (the first sliding op after a graph
 * input). */
void nns__rf_start(const nns__rf *in, int32_t n, nns__rf *out);

/* Rule of the ops whose every output sees the whole input: global pools,
 * dense layers (Gemm), data-dependent sampling (GridSample, RoiAlign). */
nns_status nns__rf_whole(nns__ictx *cx, const nns__rf *in, nns__rf *out);

#endif
