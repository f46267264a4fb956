/*
 * aten_nn.c - the aten table's neural-network family: convolution, norm,
 * pooling, upsampling, padding, attention variants and their backward
 * kernels. Each lowers to ONNX nodes (op types, attributes, constant
 * inputs; the nodes of one call one kernel), for a .pt2 and a live
 * recording alike. Variants of an op another entry lowers (_convolution,
 * the fused attention kernels) go through that entry, with their
 * arguments renamed where their schema names them otherwise.
 */
#include "aten_int.h"

#include "../base/base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The largest kernel, padding, stride or dilation a rule takes (2^20). */
#define ARG_MAX ((int64_t)1 << 20)
/* The largest spatial size a rule computes with (2^31). */
#define SIDE_MAX ((int64_t)1 << 31)






/* Whether v[0..n) are kernel sizes, paddings, strides or dilations a
 * rule computes with: 0 to ARG_MAX. */
static bool args_ok(const int64_t *v, int n) {
  for (int k = 0; k < n; k++)
    if (v[k] < 0 || v[k] > ARG_MAX)
      return false;
  return true;
}

/* The call lowered through the entry of aten op `name`, its arguments
 * named `from[k]` renamed `to[k]` (n pairs). */
static nns_status as_op(nns__aten_call *c, const char *name,
                        const char *const *from, const char *const *to,
                        int n) {
  const nns__aten_op *e = nns__aten_find(name);
  if (!e || c->n_args > 64)
    return NNS_E_NOTFOUND;
  nns__aten_arg args[64];
  for (int32_t k = 0; k < c->n_args; k++) {
    args[k] = c->args[k];
    for (int j = 0; j < n; j++)
      if (args[k].name && !strcmp(args[k].name, from[j]))
        args[k].name = to[j];
  }
  nns__aten_call inner = *c;
  inner.args = args;
  return nns__aten_lower(&inner, e);
}

/* ==== Convolution and normalisation ==== */

/* _convolution: convolution's rule. */
static nns_status convolution_(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  return as_op(c, "convolution", NULL, NULL, 0);
}

/* native_batch_norm, _native_batch_norm_legit, cudnn_batch_norm (whose
 * eps is named epsilon): batch_norm's rule, the first output. */
static nns_status native_batch_norm(nns__aten_call *c,
                                    const nns__aten_op *op) {
  (void)op;
  static const char *const from[] = {"epsilon"}, *const to[] = {"eps"};
  return as_op(c, "batch_norm", from, to, 1);
}

/* native_group_norm(input, weight, bias, N, C, HxW, group, eps) as
 * torch.onnx exports GroupNorm below opset 18: x as (N, G, -1),
 * InstanceNormalization (scale, bias constants), back to x's shape, then
 * the per-channel weight and bias (Reshape, Mul; Reshape, Add). */
static nns_status native_group_norm(nns__aten_call *c,
                                    const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "input");
  const nns__aten_meta *mx = A_META(c, x);
  int64_t g = nns__aten_int(c, "group", -1), dx[NNS__ATEN_R_MAX];
  if (!x || !mx || mx->rank < 2 || mx->rank > NNS__ATEN_R_MAX || g < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  /* the batch may be symbolic (a Reshape copies it: 0, and the sizes back
   * are a value made before the kernel's nodes); the rest must be known */
  int64_t rest = nns__aten_prod(mx->dims + 1, mx->rank - 1), ch = mx->dims[1];
  if (rest < 0 || g > ch)
    return NNS_E_NOTFOUND;
  bool all = nns__aten_known(mx, dx);
  const char *back_shape = NULL;
  if (!all) {
    c->err->code = NNS_OK;
    if (!(back_shape = nns__aten_shape_value(c, mx)))
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  }
  int64_t n = all ? dx[0] : 0; /* the N argument, as the input has it */
  int64_t grouped[3] = {n, g, all ? nns__aten_prod(dx, mx->rank) / (n * g > 0 ? n * g : 1)
                                  : rest / g};
  const char *w = A_T(c, "weight"), *bias = A_T(c, "bias");
  size_t first = *c->node_count;
  const char *gx = c->fresh(c->fe), *normed = c->fresh(c->fe);
  if (all) {
    A_TRY(nns__aten_reshape_to(c, x, grouped, 3, gx));
  } else {
    const char *rs[] = {x, nns__aten_const_ints(c, grouped, 3, false)};
    if (!rs[1])
      return c->err->code;
    A_TRY(nns__aten_node(c, "Reshape", "", rs, 2, &gx, 1));
  }
  const char *ins[] = {gx, nns__aten_filler(c, mx->dtype, 1, &g),
                       nns__aten_filler(c, mx->dtype, 1, &g)};
  if (!ins[1] || !ins[2])
    return c->err->code;
  A_TRY(nns__aten_node(c, "InstanceNormalization", "", ins, 3, &normed, 1));
  A_TRY(nns_builder_attr_float(c->b, "epsilon",
                               nns__aten_float(c, "eps", 1e-5), c->err));
  const char *steps[2][2] = {{"Mul", w}, {"Add", bias}};
  int last = bias ? 1 : w ? 0 : -1;
  const char *cur = last < 0 ? c->outs[0] : c->fresh(c->fe);
  if (all) {
    A_TRY(nns__aten_reshape_to(c, normed, dx, mx->rank, cur));
  } else {
    const char *rs[] = {normed, back_shape};
    A_TRY(nns__aten_node(c, "Reshape", "", rs, 2, &cur, 1));
  }
  int64_t per[NNS__ATEN_R_MAX];
  per[0] = ch;
  for (int k = 1; k < mx->rank - 1; k++)
    per[k] = 1;
  for (int s = 0; s < 2; s++) {
    if (!steps[s][1])
      continue;
    const char *u = c->fresh(c->fe);
    A_TRY(nns__aten_reshape_to(c, steps[s][1], per, mx->rank - 1, u));
    const char *next = s == last ? c->outs[0] : c->fresh(c->fe);
    const char *in2[] = {cur, u};
    A_TRY(nns__aten_node(c, steps[s][0], "", in2, 2, &next, 1));
    cur = next;
  }
  return nns__aten_kernel(c, first);
}

/* _weight_norm_interface(v, g, dim) -> (w, norm): the norm of v over
 * every dim but dim (kept), w = v * (g / norm). */
static nns_status weight_norm(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *v = A_T(c, "v"), *g = A_T(c, "g");
  const nns__aten_meta *mv = A_META(c, v);
  if (!v || !g || !mv || mv->rank < 0 || mv->rank > NNS__ATEN_R_MAX || c->n_outs < 1 ||
      !c->outs[0])
    return NNS_E_NOTFOUND;
  int r = mv->rank;
  int64_t dim = nns__aten_int(c, "dim", 0), axes[NNS__ATEN_R_MAX];
  int n = 0;
  for (int k = 0; k < r; k++)
    if (dim == -1 || k != (dim % r + r) % r)
      axes[n++] = k;
  size_t first = *c->node_count;
  const char *norm = c->n_outs > 1 && c->outs[1] ? c->outs[1]
                                                   : c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "ReduceL2", "", &v, 1, &norm, 1));
  A_TRY(nns_builder_attr_ints(c->b, "axes", axes, (size_t)n, c->err));
  A_TRY(nns_builder_attr_int(c->b, "keepdims", 1, c->err));
  const char *scale = c->fresh(c->fe);
  const char *div[] = {g, norm}, *mul[] = {v, scale};
  A_TRY(nns__aten_node(c, "Div", "", div, 2, &scale, 1));
  A_TRY(nns__aten_node(c, "Mul", "", mul, 2, c->outs, 1));
  return nns__aten_kernel(c, first);
}

/* _weight_norm(v, g, dim), the composite: on dim 0 or the last (and no
 * half dtype) PyTorch runs _weight_norm_interface's kernel; otherwise
 * v * (g / norm_except_dim): not lowered here. */
static nns_status weight_norm_composite(nns__aten_call *c,
                                        const nns__aten_op *op) {
  const nns__aten_meta *mv = A_META(c, A_T(c, "v"));
  int64_t dim = nns__aten_int(c, "dim", 0);
  if (!mv || mv->rank < 1 || mv->dtype == NNS_DT_FLOAT16 ||
      mv->dtype == NNS_DT_BFLOAT16 ||
      !(dim == 0 || dim == mv->rank - 1 || dim == -1))
    return NNS_E_NOTFOUND;
  return weight_norm(c, op);
}

/* ==== Pooling and resizing ==== */

/* _adaptive_avg_pool2d/3d, adaptive_max_pool1d/2d/3d (self, output_size),
 * as torch.onnx exports them: Global*Pool for a 1x..x1 output; a nearest
 * Resize when every output size is a multiple of the input's (windows of
 * one element) and one is larger; else *Pool with kernel in - (out - 1) *
 * (in // out), stride in // out. Growing by other factors: not lowered. */
static nns_status adaptive(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  int64_t dx[NNS__ATEN_R_MAX], dy[NNS__ATEN_R_MAX];
  if (!x || !mx || !mo || mx->rank < 3 || mx->rank > NNS__ATEN_R_MAX ||
      mo->rank != mx->rank)
    return NNS_E_NOTFOUND;
  for (int k = 0; k < mx->rank; k++) { /* the batch may be symbolic */
    dx[k] = mx->dims[k];
    dy[k] = mo->dims[k];
    if (k >= 2 && (dx[k] < 0 || dy[k] < 0))
      return NNS_E_NOTFOUND;
  }
  bool max = !strcmp(op->onnx, "GlobalMaxPool/MaxPool/Resize");
  int r = mx->rank - 2;
  bool global = true, multiple = true, larger = false;
  for (int a = 0; a < r; a++) {
    int64_t i = dx[2 + a], o = dy[2 + a];
    global = global && o == 1;
    multiple = multiple && i > 0 && o >= i && o % i == 0;
    larger = larger || o > i;
  }
  if (global)
    return nns__aten_node(c, max ? "GlobalMaxPool" : "GlobalAveragePool", "",
                          &x, 1, c->outs, 1);
  if (multiple && larger) {
    c->err->code = NNS_OK;
    const char *ins[] = {x, "", "", nns__aten_shape_value(c, mo)};
    if (!ins[3])
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    A_TRY(nns__aten_node(c, "Resize", "", ins, 4, c->outs, 1));
    A_TRY(nns__aten_attr_s(c, "mode", "nearest"));
    A_TRY(nns__aten_attr_s(c, "nearest_mode", "floor"));
    return nns__aten_attr_s(c, "coordinate_transformation_mode",
                                   "asymmetric");
  }
  if (larger)
    return NNS_E_NOTFOUND;
  int64_t k[NNS__ATEN_R_MAX], s[NNS__ATEN_R_MAX], p[2 * NNS__ATEN_R_MAX] = {0};
  for (int a = 0; a < r; a++) {
    if (dy[2 + a] <= 0)
      return NNS_E_NOTFOUND;
    s[a] = dx[2 + a] / dy[2 + a];
    k[a] = dx[2 + a] - (dy[2 + a] - 1) * s[a];
  }
  A_TRY(nns__aten_node(c, max ? "MaxPool" : "AveragePool", "", &x, 1, c->outs,
                       1));
  A_TRY(nns_builder_attr_ints(c->b, "kernel_shape", k, (size_t)r, c->err));
  A_TRY(nns_builder_attr_ints(c->b, "strides", s, (size_t)r, c->err));
  return nns_builder_attr_ints(c->b, "pads", p, (size_t)(2 * r), c->err);
}

nns_status nns__aten_adaptive(nns__aten_call *c, const nns__aten_op *op) {
  return adaptive(c, op);
}

/* upsample_* and the antialiased _upsample_*_aa (input, output_size,
 * [align_corners], scales): Resize to the output's sizes; linear and
 * cubic modes with align_corners or pytorch_half_pixel, nearest with
 * asymmetric coordinates and floor rounding. */
static nns_status resize(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = NULL;
  nns__aten_tensors(c, &x, 1);
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!x || !mo || mo->rank < 0 || mo->rank > NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  const char *mode = strstr(op->onnx, "cubic")    ? "cubic"
                     : strstr(op->onnx, "linear") ? "linear"
                                                  : "nearest";
  /* the output's sizes: a constant, or a value from the symbols' sizes */
  c->err->code = NNS_OK;
  const char *ins[] = {x, "", "", nns__aten_shape_value(c, mo)};
  if (!ins[3])
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, "Resize", "", ins, 4, c->outs, 1));
  A_TRY(nns__aten_attr_s(c, "mode", mode));
  if (strstr(op->onnx, "antialias"))
    A_TRY(nns_builder_attr_int(c->b, "antialias", 1, c->err));
  if (strcmp(mode, "nearest"))
    return nns__aten_attr_s(c, "coordinate_transformation_mode",
        nns__aten_bool(c, "align_corners", false) ? "align_corners"
                                                  : "pytorch_half_pixel");
  A_TRY(nns__aten_attr_s(c, "coordinate_transformation_mode",
                                "asymmetric"));
  return nns__aten_attr_s(c, "nearest_mode", "floor");
}

/* ==== Padding ==== */

/* PyTorch's pad list (last dim first, (begin, end) each) as ONNX's pads
 * over rank r: every dim's begin, then every dim's end. */
static bool onnx_pads(nns__aten_call *c, const char *name, int r,
                      int64_t *pads) {
  const nns__aten_arg *a = nns__aten_arg_of(c, name);
  if (!a || a->kind != NNS__AA_INTS || a->n / 2 > r || r > NNS__ATEN_R_MAX)
    return false;
  for (int k = 0; k < 2 * r; k++)
    pads[k] = 0;
  for (int i = 0; i < a->n / 2; i++) {
    if (a->syms[2 * i] || a->syms[2 * i + 1])
      return false;
    pads[r - 1 - i] = a->ints[2 * i];
    pads[2 * r - 1 - i] = a->ints[2 * i + 1];
  }
  return true;
}

/* constant_pad_nd(self, pad, value): Pad, mode constant, the value a
 * scalar of the input's dtype; reflection_pad / replication_pad (self,
 * padding): Pad, mode reflect / edge. */
static nns_status pad(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  bool constant = !strcmp(op->onnx, "Pad(constant)");
  int64_t pads[2 * NNS__ATEN_R_MAX];
  if (!x || !mx || mx->rank < 0 ||
      !onnx_pads(c, constant ? "pad" : "padding", mx->rank, pads))
    return NNS_E_NOTFOUND;
  const char *ins[] = {x, nns__aten_const_ints(c, pads, 2 * mx->rank, false),
                       NULL};
  if (!ins[1])
    return c->err->code;
  if (constant &&
      !(ins[2] = nns__aten_scalar(c, nns__aten_float(c, "value", 0),
                                  mx->dtype)))
    return c->err->code;
  A_TRY(nns__aten_node(c, "Pad", "", ins, constant ? 3 : 2, c->outs, 1));
  return nns__aten_attr_s(c, "mode",
                                 constant                   ? "constant"
                                 : strstr(op->onnx, "edge") ? "edge"
                                                            : "reflect");
}

/* ==== Sampling ==== */

/* grid_sampler_2d(input, grid, interpolation_mode, padding_mode,
 * align_corners): GridSample. */
static nns_status grid_sampler(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  static const char *const modes[] = {"bilinear", "nearest", "bicubic"};
  static const char *const pads[] = {"zeros", "border", "reflection"};
  const char *ins[] = {A_T(c, "input"), A_T(c, "grid")};
  int64_t m = nns__aten_int(c, "interpolation_mode", -1);
  int64_t p = nns__aten_int(c, "padding_mode", -1);
  if (!ins[0] || !ins[1] || m < 0 || m > 2 || p < 0 || p > 2)
    return NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, "GridSample", "", ins, 2, c->outs, 1));
  A_TRY(nns__aten_attr_s(c, "mode", modes[m]));
  A_TRY(nns__aten_attr_s(c, "padding_mode", pads[p]));
  return nns_builder_attr_int(c->b, "align_corners",
                              nns__aten_bool(c, "align_corners", false),
                              c->err);
}

/* ==== Unfold and fold ==== */

/* im2col(self [N, C, H, W] or [C, H, W], kernel_size, dilation, padding,
 * stride) -> [N, C*kh*kw, L], F.unfold's kernel: pure data movement, a
 * Pad (when padded), the plane flattened, one Gather of the kh*kw*L
 * sampled positions (known by shape alone) and a Reshape to the
 * output. */
static nns_status im2col(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  int64_t dx[NNS__ATEN_R_MAX], dy[NNS__ATEN_R_MAX], k[2], p[2];
  if (!x || !nns__aten_known(mx, dx) || !nns__aten_known(mo, dy) ||
      (mx->rank != 3 && mx->rank != 4) || mo->rank < 1 ||
      !nns__aten_ints(c, "kernel_size", 2, 1, k) ||
      !nns__aten_ints(c, "padding", 2, 0, p) || !args_ok(k, 2) ||
      !args_ok(p, 2) || dx[mx->rank - 1] > SIDE_MAX ||
      dx[mx->rank - 2] > SIDE_MAX)
    return NNS_E_NOTFOUND;
  int r = mx->rank;
  size_t first = *c->node_count;
  const char *src = x;
  int64_t h = dx[r - 2], w = dx[r - 1];
  if (p[0] || p[1]) {
    int64_t pads[8] = {0};
    pads[r - 2] = pads[2 * r - 2] = p[0];
    pads[r - 1] = pads[2 * r - 1] = p[1];
    const char *ins[] = {x, nns__aten_const_ints(c, pads, 2 * r, false),
                         nns__aten_scalar(c, 0, mx->dtype)};
    if (!ins[1] || !ins[2])
      return c->err->code;
    src = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Pad", "", ins, 3, &src, 1));
    A_TRY(nns__aten_attr_s(c, "mode", "constant"));
    h += 2 * p[0];
    w += 2 * p[1];
  }
  int64_t flat[4], picked[5];
  memcpy(flat, dx, (size_t)(r - 2) * sizeof *dx);
  flat[r - 2] = h * w;
  const char *f = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, src, flat, r - 1, f));
  int64_t pos[2] = {k[0] * k[1], dy[mo->rank - 1]};
  memcpy(picked, dx, (size_t)(r - 2) * sizeof *dx);
  picked[r - 2] = pos[0];
  picked[r - 1] = pos[1];
  const char *ins[] = {f, nns__aten_filler(c, NNS_DT_INT64, 2, pos)};
  if (!ins[1])
    return c->err->code;
  const char *g = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "Gather", "", ins, 2, &g, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", r - 2, c->err));
  A_TRY(nns__aten_reshape_to(c, g, dy, mo->rank, c->outs[0]));
  return nns__aten_kernel(c, first);
}

/* col2im(self [N, C*kh*kw, L] or [C*kh*kw, L], output_size, kernel_size,
 * dilation, padding, stride) -> [N, C, H, W], F.fold's kernel: each
 * column element added into its place of the padded image (a Reshape, a
 * ScatterElements add into zeros at positions known by shape alone),
 * then the padding cropped by a Slice (or a Reshape when unpadded). */
static nns_status col2im(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  int64_t dx[NNS__ATEN_R_MAX], dy[NNS__ATEN_R_MAX], k[2], p[2];
  if (!x || !nns__aten_known(mx, dx) || !nns__aten_known(mo, dy) ||
      (mx->rank != 2 && mx->rank != 3) || mo->rank != mx->rank + 1 ||
      !nns__aten_ints(c, "kernel_size", 2, 1, k) ||
      !nns__aten_ints(c, "padding", 2, 0, p) || !args_ok(k, 2) ||
      !args_ok(p, 2) || dx[mx->rank - 1] > NNS__ATEN_DIM_MAX / (k[0] * k[1] + 1) ||
      dy[mo->rank - 1] > SIDE_MAX || dy[mo->rank - 2] > SIDE_MAX)
    return NNS_E_NOTFOUND;
  int nl = mo->rank - 2; /* [N, C] or [C] */
  int64_t h = dy[mo->rank - 2], w = dy[mo->rank - 1];
  int64_t plane = (h + 2 * p[0]) * (w + 2 * p[1]);
  int64_t cols[3], added[3], image[4];
  memcpy(cols, dy, (size_t)nl * sizeof *dy);
  memcpy(added, dy, (size_t)nl * sizeof *dy);
  memcpy(image, dy, (size_t)nl * sizeof *dy);
  cols[nl] = k[0] * k[1] * dx[mx->rank - 1];
  added[nl] = plane;
  image[nl] = h + 2 * p[0];
  image[nl + 1] = w + 2 * p[1];
  size_t first = *c->node_count;
  const char *cl = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, x, cols, nl + 1, cl));
  const char *ins[] = {nns__aten_filler(c, mx->dtype, nl + 1, added),
                       nns__aten_filler(c, NNS_DT_INT64, nl + 1, cols), cl};
  if (!ins[0] || !ins[1])
    return c->err->code;
  const char *sum = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "ScatterElements", "", ins, 3, &sum, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", nl, c->err));
  A_TRY(nns__aten_attr_s(c, "reduction", "add"));
  if (!p[0] && !p[1]) {
    A_TRY(nns__aten_reshape_to(c, sum, dy, mo->rank, c->outs[0]));
    return nns__aten_kernel(c, first);
  }
  const char *im = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, sum, image, nl + 2, im));
  int64_t starts[2] = {p[0], p[1]}, ends[2] = {p[0] + h, p[1] + w};
  int64_t axes[2] = {nl, nl + 1};
  const char *sl[] = {im, nns__aten_const_ints(c, starts, 2, false),
                      nns__aten_const_ints(c, ends, 2, false),
                      nns__aten_const_ints(c, axes, 2, false)};
  if (!sl[1] || !sl[2] || !sl[3])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Slice", "", sl, 4, c->outs, 1));
  return nns__aten_kernel(c, first);
}

/* ==== Grouped matrix products ==== */

/* t[start:start + n] along axis (t itself when whole), dims its sizes. */
static const char *rows_of(nns__aten_call *c, const char *t,
                           const int64_t *dims, int64_t start, int64_t n,
                           int64_t axis) {
  if (start == 0 && n == dims[axis])
    return t;
  int64_t end = start + n;
  const char *ins[] = {t, nns__aten_const_ints(c, &start, 1, false),
                       nns__aten_const_ints(c, &end, 1, false),
                       nns__aten_const_ints(c, &axis, 1, false)};
  const char *s = c->fresh(c->fe);
  if (!ins[1] || !ins[2] || !ins[3] ||
      nns__aten_node(c, "Slice", "", ins, 4, &s, 1) != NNS_OK)
    return NULL;
  return s;
}

/* op over two int64 vectors into a fresh one (NULL on failure). */
static const char *size_op(nns__aten_call *c, const char *op, const char *a,
                           const char *b) {
  const char *out = c->fresh(c->fe), *ins[] = {a, b};
  if (!a || !b || !out || nns__aten_node(c, op, "", ins, 2, &out, 1) != NNS_OK)
    return NULL;
  return out;
}

/* t[start:end] along axis, start and end 1-element int64 values. */
static const char *slice_by(nns__aten_call *c, const char *t,
                            const char *start, const char *end, int64_t axis) {
  const char *ins[] = {t, start, end,
                       nns__aten_const_ints(c, &axis, 1, false)};
  const char *s = c->fresh(c->fe);
  if (!start || !end || !ins[3] || !s ||
      nns__aten_node(c, "Slice", "", ins, 4, &s, 1) != NNS_OK)
    return NULL;
  return s;
}

/* _grouped_mm's experts form, (S, K) x (E, K, N), with S a symbol (a
 * dynamic archive's tokens): the same balanced split, its sizes computed
 * from S by shape arithmetic (q = S / E, rem = S % E: rem groups of q + 1
 * rows, E - rem of q), both groups always made (one may be empty), so
 * that an archive read at any S counts rows x K x N. */
static nns_status grouped_mm_symbolic(nns__aten_call *c, const char *a,
                                      const nns__aten_meta *ma, const char *w,
                                      const int64_t *dw) {
  int64_t K = ma->dims[1], E = dw[0], N = dw[2], zero = 0, one = 1,
          minus1 = -1;
  if (K < 0 || E < 1 || dw[1] != K)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *S = nns__aten_size_vector(c, ma, 0);
  const char *e = nns__aten_const_ints(c, &E, 1, false);
  const char *k = nns__aten_const_ints(c, &K, 1, false);
  const char *nn = nns__aten_const_ints(c, &N, 1, false);
  const char *z = nns__aten_const_ints(c, &zero, 1, false);
  const char *o = nns__aten_const_ints(c, &one, 1, false);
  const char *m1 = nns__aten_const_ints(c, &minus1, 1, false);
  const char *q = size_op(c, "Div", S, e), *rem = size_op(c, "Mod", S, e);
  const char *q1 = size_op(c, "Add", q, o);
  const char *cut = size_op(c, "Mul", rem, q1);
  const char *groups[2][2] = {{rem, q1}, {size_op(c, "Sub", e, rem), q}};
  const char *row_at[3] = {z, cut, S}, *expert_at[3] = {z, rem, e};
  if (!k || !nn || !m1 || !cut || !groups[1][0])
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  const char *parts[2];
  for (int gi = 0; gi < 2; gi++) {
    const char *rows = slice_by(c, a, row_at[gi], row_at[gi + 1], 0);
    const char *ws = slice_by(c, w, expert_at[gi], expert_at[gi + 1], 0);
    const char *xs_d[] = {groups[gi][0], groups[gi][1], k};
    const char *shape = c->fresh(c->fe), *xs = c->fresh(c->fe);
    if (!rows || !ws || !shape || !xs)
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    A_TRY(nns__aten_node(c, "Concat", "", xs_d, 3, &shape, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", 0, c->err));
    const char *ins[] = {rows, shape};
    A_TRY(nns__aten_node(c, "Reshape", "", ins, 2, &xs, 1));
    /* a group of no rows is (g, 0, K), not its input's dim */
    A_TRY(nns_builder_attr_int(c->b, "allowzero", 1, c->err));
    const char *p = c->fresh(c->fe), *mm[] = {xs, ws};
    A_TRY(nns__aten_node(c, "MatMul", "", mm, 2, &p, 1));
    const char *flat_d[] = {m1, nn}, *flat = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Concat", "", flat_d, 2, &flat, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", 0, c->err));
    parts[gi] = c->fresh(c->fe);
    const char *rs[] = {p, flat};
    A_TRY(nns__aten_node(c, "Reshape", "", rs, 2, &parts[gi], 1));
  }
  A_TRY(nns__aten_node(c, "Concat", "", parts, 2, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", 0, c->err));
  return nns__aten_kernel(c, first);
}

/* _grouped_mm(self, mat2, offs, bias, out_dtype): one matrix product per
 * group. 3-D x 3-D: a batched MatMul. 2-D (S, K) x 3-D (E, K, N): the
 * experts' rows as a balanced split (which rows meet which expert is the
 * router's data; the MACs are not: rows x K x N), batched MatMuls over
 * the experts whose rows are grouped by Reshape, Concat of the parts.
 * 2-D (M, S) x 2-D (S, N) -> (E, M, N) (the weights' gradient): the groups
 * cut along S the same way. */
static nns_status grouped_mm(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *a = A_T(c, "self"), *w = A_T(c, "mat2");
  const nns__aten_meta *ma = A_META(c, a), *mw = A_META(c, w),
                       *mo = A_META(c, c->outs[0]);
  int64_t da[NNS__ATEN_R_MAX], dw[NNS__ATEN_R_MAX], dy[NNS__ATEN_R_MAX];
  if (a && w && ma && ma->rank == 2 && ma->dims[0] < 0 &&
      nns__aten_known(mw, dw) && mw->rank == 3 && !A_T(c, "bias"))
    return grouped_mm_symbolic(c, a, ma, w, dw);
  if (!a || !w || !nns__aten_known(ma, da) || !nns__aten_known(mw, dw) || !nns__aten_known(mo, dy) ||
      A_T(c, "bias") || ma->rank < 2 || ma->rank > 3 || mw->rank < 2 ||
      mw->rank > 3 || (ma->rank == 3 && mw->rank == 2))
    return NNS_E_NOTFOUND;
  if (ma->rank == 3) {
    const char *ins[] = {a, w};
    return nns__aten_node(c, "MatMul", "", ins, 2, c->outs, 1);
  }
  size_t first = *c->node_count;
  const char *parts[4];
  int np = 0;
  int64_t start = 0;
  bool experts = mw->rank == 3;
  int64_t S = experts ? da[0] : da[1], E = experts ? dw[0] : dy[0];
  if (E < 1)
    return NNS_E_NOTFOUND;
  int64_t q = S / E, rem = S % E;
  int64_t groups[2][2] = {{rem, q + 1}, {E - rem, q}};
  int64_t e0 = 0;
  for (int gi = 0; gi < 2; gi++) {
    int64_t g = groups[gi][0], n = groups[gi][1];
    if (!g || !n)
      continue;
    if (experts) { /* (S, K) x (E, K, N) -> (S, N) */
      int64_t K = da[1], N = dw[2];
      const char *rows = rows_of(c, a, da, start, g * n, 0);
      if (!rows)
        return c->err->code;
      int64_t xs_d[3] = {g, n, K}, flat_d[2] = {g * n, N};
      const char *xs = c->fresh(c->fe);
      A_TRY(nns__aten_reshape_to(c, rows, xs_d, 3, xs));
      const char *ws = rows_of(c, w, dw, e0, g, 0);
      if (!ws)
        return c->err->code;
      const char *p = c->fresh(c->fe), *ins[] = {xs, ws};
      A_TRY(nns__aten_node(c, "MatMul", "", ins, 2, &p, 1));
      parts[np] = c->fresh(c->fe);
      A_TRY(nns__aten_reshape_to(c, p, flat_d, 2, parts[np]));
      np++;
      e0 += g;
    } else { /* (M, S) x (S, N) -> (E, M, N), cut along S */
      int64_t M = da[0], N = dw[1];
      const char *cols = rows_of(c, a, da, start, g * n, 1);
      if (!cols)
        return c->err->code;
      int64_t xs_d[3] = {M, g, n}, ws_d[3] = {g, n, N}, perm[3] = {1, 0, 2};
      const char *xs = c->fresh(c->fe), *xt = c->fresh(c->fe);
      A_TRY(nns__aten_reshape_to(c, cols, xs_d, 3, xs));
      A_TRY(nns__aten_node(c, "Transpose", "", &xs, 1, &xt, 1));
      A_TRY(nns_builder_attr_ints(c->b, "perm", perm, 3, c->err));
      const char *rows = rows_of(c, w, dw, start, g * n, 0);
      if (!rows)
        return c->err->code;
      const char *ws = c->fresh(c->fe);
      A_TRY(nns__aten_reshape_to(c, rows, ws_d, 3, ws));
      parts[np] = c->fresh(c->fe);
      const char *ins[] = {xt, ws};
      A_TRY(nns__aten_node(c, "MatMul", "", ins, 2, &parts[np], 1));
      np++;
    }
    start += g * n;
  }
  if (!experts && S < E) { /* groups with nothing to sum: zeros */
    int64_t zd[3] = {E - S, da[0], dw[1]};
    const char *ins[] = {nns__aten_scalar(c, 0, mo->dtype),
                         nns__aten_const_ints(c, zd, 3, false)};
    if (!ins[0] || !ins[1])
      return c->err->code;
    parts[np] = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Expand", "", ins, 2, &parts[np], 1));
    np++;
  }
  if (np == 0) {
    const char *ins[] = {nns__aten_scalar(c, 0, mo->dtype),
                         nns__aten_const_ints(c, dy, mo->rank, false)};
    if (!ins[0] || !ins[1])
      return c->err->code;
    A_TRY(nns__aten_node(c, "Expand", "", ins, 2, c->outs, 1));
  } else if (np == 1) {
    A_TRY(c->alias(c->fe, c->outs[0], parts[0]));
  } else {
    A_TRY(nns__aten_node(c, "Concat", "", parts, (size_t)np, c->outs, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", 0, c->err));
  }
  return nns__aten_kernel(c, first);
}

/* transformers::grouped_mm_fallback(input, weight, offs): transformers'
 * own op for a grouped product torch.export cannot trace through
 * _grouped_mm (float32 experts under torch.export: its
 * integrations/moe.py). The same product as _grouped_mm(self=input,
 * mat2=weight, offs): (S, K) x (E, K, N) -> (S, N), lowered as it. */
static nns_status grouped_mm_fallback(nns__aten_call *c,
                                      const nns__aten_op *op) {
  enum { N_MAX = 8 };
  nns__aten_arg args[N_MAX];
  if (c->n_args > N_MAX)
    return NNS_E_NOTFOUND;
  for (int32_t k = 0; k < c->n_args; k++) {
    args[k] = c->args[k];
    if (!strcmp(args[k].name, "input"))
      args[k].name = "self";
    else if (!strcmp(args[k].name, "weight"))
      args[k].name = "mat2";
  }
  nns__aten_call renamed = *c;
  renamed.args = args;
  return grouped_mm(&renamed, op);
}

/* roi_align(input, rois [K, 5: batch index, box], spatial_scale,
 * pooled_height, pooled_width, sampling_ratio, aligned), torchvision's:
 * RoiAlign, the rois cut into boxes (Slice) and batch indices (Gather,
 * Cast to int64). */
static nns_status roi_align(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "input"), *rois = A_T(c, "rois");
  int64_t ph = nns__aten_int(c, "pooled_height", -1);
  int64_t pw = nns__aten_int(c, "pooled_width", -1);
  int64_t ratio = nns__aten_int(c, "sampling_ratio", -1);
  if (!x || !rois || ph < 1 || pw < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  int64_t v[4] = {1, 5, 1, 0};
  const char *sl[] = {rois, nns__aten_const_ints(c, &v[0], 1, false),
                      nns__aten_const_ints(c, &v[1], 1, false),
                      nns__aten_const_ints(c, &v[2], 1, false)};
  if (!sl[1] || !sl[2] || !sl[3])
    return c->err->code;
  const char *boxes = c->fresh(c->fe), *idx = c->fresh(c->fe);
  const char *bidx = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "Slice", "", sl, 4, &boxes, 1));
  /* the index's constant after the boxes, as the recorder names them */
  const char *ga[] = {rois, nns__aten_const_ints(c, &v[3], 1, true)};
  if (!ga[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Gather", "", ga, 2, &idx, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", 1, c->err));
  A_TRY(nns__aten_node(c, "Cast", "", &idx, 1, &bidx, 1));
  A_TRY(nns_builder_attr_int(c->b, "to", NNS_DT_INT64, c->err));
  const char *ins[] = {x, boxes, bidx};
  A_TRY(nns__aten_node(c, "RoiAlign", "", ins, 3, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "output_height", ph, c->err));
  A_TRY(nns_builder_attr_int(c->b, "output_width", pw, c->err));
  A_TRY(nns_builder_attr_int(c->b, "sampling_ratio", ratio > 0 ? ratio : 0,
                             c->err));
  A_TRY(nns_builder_attr_float(c->b, "spatial_scale",
                               nns__aten_float(c, "spatial_scale", 1),
                               c->err));
  A_TRY(nns__aten_attr_s(c, "mode", "avg"));
  A_TRY(nns__aten_attr_s(c, "coordinate_transformation_mode",
               nns__aten_bool(c, "aligned", false) ? "half_pixel"
                                                   : "output_half_pixel"));
  return nns__aten_kernel(c, first);
}

/* ==== Attention ==== */

/* _scaled_dot_product_attention_math and the fused kernels (flash, flash
 * for CPU, efficient, cudnn): the scaled_dot_product_attention entry,
 * on their first output; the efficient and cudnn kernels' attn_bias is
 * its attn_mask. */
static nns_status sdpa_variant(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  static const char *const from[] = {"attn_bias"}, *const to[] = {"attn_mask"};
  nns__aten_call first = *c;
  first.n_outs = c->n_outs > 0 ? 1 : 0;
  return as_op(&first, "scaled_dot_product_attention", from, to, 1);
}

/* ==== Fused transformer kernels ==== */

/* Their nodes, each a kernel of its own (PyTorch's fast paths run the
 * projections, attention and norms one after the other, one aten call
 * but several kernels), shapes from the input's [B, L, E]. */
typedef struct fused {
  nns__aten_call *c;
  int32_t dt;
  int64_t B, L, E, h;
} fused;

static nns_status f_node(fused *f, const char *op, const char *const *ins,
                         size_t n_in, const char *out) {
  return nns__aten_node(f->c, op, "", ins, n_in, &out, 1);
}

/* A 2-D weight, transposed by a node (the recorder's b.transposed). */
static const char *f_transposed(fused *f, const char *w) {
  const char *t = f->c->fresh(f->c->fe);
  int64_t perm[2] = {1, 0};
  if (f_node(f, "Transpose", &w, 1, t) != NNS_OK ||
      nns_builder_attr_ints(f->c->b, "perm", perm, 2, f->c->err) != NNS_OK)
    return NULL;
  return t;
}

/* y = x w^T + bias: Transpose of w, MatMul, Add. */
static nns_status f_linear(fused *f, const char *x, const char *w,
                           const char *bias, const char *y) {
  const char *wt = f_transposed(f, w);
  if (!wt)
    return f->c->err->code;
  const char *t = f->c->fresh(f->c->fe), *mm[] = {x, wt}, *add[] = {t, bias};
  A_TRY(f_node(f, "MatMul", mm, 2, t));
  return f_node(f, "Add", add, 2, y);
}

static nns_status f_layer_norm(fused *f, const char *x, const char *w,
                               const char *bias, double eps, const char *y) {
  const char *ins[] = {x, w, bias};
  A_TRY(f_node(f, "LayerNormalization", ins, 3, y));
  A_TRY(nns_builder_attr_int(f->c->b, "axis", -1, f->c->err));
  return nns_builder_attr_float(f->c->b, "epsilon", eps, f->c->err);
}

/* Self-attention as F.multi_head_attention_forward spells it: in-
 * projection, split, heads [B, h, L, d], softmax(q k^T / sqrt(d) + mask) v,
 * heads merged, out-projection. */
static nns_status f_mha(fused *f, const char *x, const char *w_in,
                        const char *b_in, const char *w_out,
                        const char *b_out, const char *mask, const char *y) {
  nns__aten_call *c = f->c;
  int64_t B = f->B, L = f->L, E = f->E, h = f->h, d = E / h;
  const char *qkv = c->fresh(c->fe);
  A_TRY(f_linear(f, x, w_in, b_in, qkv));
  const char *parts[3] = {c->fresh(c->fe), c->fresh(c->fe), c->fresh(c->fe)};
  int64_t three[3] = {E, E, E};
  const char *sp[] = {qkv, nns__aten_const_ints(c, three, 3, false)};
  if (!sp[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Split", "", sp, 2, parts, 3));
  A_TRY(nns_builder_attr_int(c->b, "axis", 2, c->err));
  int64_t split_d[4] = {B, L, h, d}, perm[4] = {0, 2, 1, 3};
  const char *heads[3];
  for (int k = 0; k < 3; k++) {
    const char *r = c->fresh(c->fe);
    A_TRY(nns__aten_reshape_to(c, parts[k], split_d, 4, r));
    heads[k] = c->fresh(c->fe);
    A_TRY(f_node(f, "Transpose", &r, 1, heads[k]));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, 4, c->err));
  }
  int64_t kperm[4] = {0, 1, 3, 2};
  const char *kt = c->fresh(c->fe), *scores = c->fresh(c->fe);
  A_TRY(f_node(f, "Transpose", &heads[1], 1, kt));
  A_TRY(nns_builder_attr_ints(c->b, "perm", kperm, 4, c->err));
  const char *mm1[] = {heads[0], kt};
  A_TRY(f_node(f, "MatMul", mm1, 2, scores));
  const char *scaled = c->fresh(c->fe);
  const char *mul[] = {scores,
                       nns__aten_scalar(c, 1.0 / sqrt((double)d), f->dt)};
  if (!mul[1])
    return c->err->code;
  A_TRY(f_node(f, "Mul", mul, 2, scaled));
  if (mask) {
    const nns__aten_meta *mm = A_META(c, mask);
    const char *masked = c->fresh(c->fe);
    if (mm && mm->dtype == NNS_DT_BOOL) {
      const char *ins[] = {mask, scaled,
                           nns__aten_scalar(c, -INFINITY, f->dt)};
      if (!ins[2])
        return c->err->code;
      A_TRY(f_node(f, "Where", ins, 3, masked));
    } else {
      const char *ins[] = {scaled, mask};
      A_TRY(f_node(f, "Add", ins, 2, masked));
    }
    scaled = masked;
  }
  const char *probs = c->fresh(c->fe), *att = c->fresh(c->fe);
  A_TRY(f_node(f, "Softmax", &scaled, 1, probs));
  A_TRY(nns_builder_attr_int(c->b, "axis", -1, c->err));
  const char *mm2[] = {probs, heads[2]};
  A_TRY(f_node(f, "MatMul", mm2, 2, att));
  const char *merged_t = c->fresh(c->fe), *merged = c->fresh(c->fe);
  A_TRY(f_node(f, "Transpose", &att, 1, merged_t));
  A_TRY(nns_builder_attr_ints(c->b, "perm", perm, 4, c->err));
  int64_t ble[3] = {B, L, E};
  A_TRY(nns__aten_reshape_to(c, merged_t, ble, 3, merged));
  return f_linear(f, merged, w_out, b_out, y);
}

/* The input's [B, L, E] and the head count; false when not known. */
static bool f_init(fused *f, nns__aten_call *c, const char *x) {
  const nns__aten_meta *mx = A_META(c, x);
  int64_t dx[NNS__ATEN_R_MAX];
  f->c = c;
  f->E = nns__aten_int(c, "embed_dim", -1);
  f->h = nns__aten_int(c, "num_head", nns__aten_int(c, "num_heads", -1));
  if (!x || !nns__aten_known(mx, dx) || mx->rank != 3 || f->E < 1 || f->h < 1 ||
      f->E % f->h || dx[2] != f->E || !c->outs[0])
    return false;
  f->dt = mx->dtype;
  f->B = dx[0];
  f->L = dx[1];
  return true;
}

/* _native_multi_head_attention(query, key, value, embed_dim, num_head,
 * qkv_weight, qkv_bias, proj_weight, proj_bias, mask, ...):
 * nn.MultiheadAttention's fast path, self-attention only. */
static nns_status native_mha(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  fused f;
  const char *x = A_T(c, "query");
  const char *w[4] = {A_T(c, "qkv_weight"), A_T(c, "qkv_bias"),
                      A_T(c, "proj_weight"), A_T(c, "proj_bias")};
  if (!f_init(&f, c, x) || !w[0] || !w[1] || !w[2] || !w[3])
    return NNS_E_NOTFOUND;
  return f_mha(&f, x, w[0], w[1], w[2], w[3], A_T(c, "mask"), c->outs[0]);
}

/* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight,
 * qkv_bias, proj_weight, proj_bias, use_gelu, norm_first, eps,
 * norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1,
 * ffn_bias_1, ffn_weight_2, ffn_bias_2, mask, mask_type):
 * nn.TransformerEncoderLayer's fast path, the attention block and the
 * feed-forward block, each with its residual Add and LayerNormalization
 * (before or after: norm_first). */
static nns_status encoder_layer(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  static const char *const names[] = {
      "qkv_weight",    "qkv_bias",     "proj_weight",   "proj_bias",
      "norm_weight_1", "norm_bias_1",  "norm_weight_2", "norm_bias_2",
      "ffn_weight_1",  "ffn_bias_1",   "ffn_weight_2",  "ffn_bias_2"};
  fused f;
  const char *x = A_T(c, "src"), *w[12];
  if (!f_init(&f, c, x))
    return NNS_E_NOTFOUND;
  for (int k = 0; k < 12; k++)
    if (!(w[k] = A_T(c, names[k])))
      return NNS_E_NOTFOUND;
  bool first = nns__aten_bool(c, "norm_first", false);
  bool gelu = nns__aten_bool(c, "use_gelu", false);
  double eps = nns__aten_float(c, "eps", 1e-5);
  const char *a_in = x;
  if (first) {
    a_in = c->fresh(c->fe);
    A_TRY(f_layer_norm(&f, x, w[4], w[5], eps, a_in));
  }
  const char *att = c->fresh(c->fe), *r1 = c->fresh(c->fe);
  A_TRY(f_mha(&f, a_in, w[0], w[1], w[2], w[3], A_T(c, "mask"), att));
  const char *res1[] = {x, att};
  A_TRY(f_node(&f, "Add", res1, 2, r1));
  const char *cur = r1;
  if (!first) {
    cur = c->fresh(c->fe);
    A_TRY(f_layer_norm(&f, r1, w[4], w[5], eps, cur));
  }
  const char *f_in = cur;
  if (first) {
    f_in = c->fresh(c->fe);
    A_TRY(f_layer_norm(&f, cur, w[6], w[7], eps, f_in));
  }
  const char *hid = c->fresh(c->fe), *act = c->fresh(c->fe);
  const char *ff = c->fresh(c->fe);
  A_TRY(f_linear(&f, f_in, w[8], w[9], hid));
  A_TRY(nns__aten_node(c, gelu ? "Gelu" : "Relu",
                       gelu ? "com.microsoft" : "", &hid, 1, &act, 1));
  A_TRY(f_linear(&f, act, w[10], w[11], ff));
  const char *res2[] = {cur, ff};
  if (first)
    return f_node(&f, "Add", res2, 2, c->outs[0]);
  const char *r2 = c->fresh(c->fe);
  A_TRY(f_node(&f, "Add", res2, 2, r2));
  return f_layer_norm(&f, r2, w[6], w[7], eps, c->outs[0]);
}

/* ==== Composites torch.export keeps ==== */

/* The archive keeps some CompositeImplicit ops whole that a live run
 * meets as their decomposition: each lowers as the op it decomposes to
 * (the entry the recorder uses), so both count alike. */

/* pad(self, pad, mode, value): constant_pad_nd, reflection_padNd or
 * replication_padNd by mode and the number of padded dims; circular is
 * not lowered. */
static nns_status pad_any(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *m = nns__aten_arg_of(c, "mode");
  const nns__aten_arg *p = nns__aten_arg_of(c, "pad");
  const char *mode = m && m->kind == NNS__AA_STRING ? m->s : "constant";
  if (!strcmp(mode, "constant"))
    return as_op(c, "constant_pad_nd", NULL, NULL, 0);
  if (!p || p->kind != NNS__AA_INTS || p->n < 2 || p->n > 6 || p->n % 2)
    return NNS_E_NOTFOUND;
  static const char *const from[] = {"pad"}, *const to[] = {"padding"};
  char name[32];
  if (!strcmp(mode, "reflect"))
    snprintf(name, sizeof name, "reflection_pad%dd", p->n / 2);
  else if (!strcmp(mode, "replicate"))
    snprintf(name, sizeof name, "replication_pad%dd", p->n / 2);
  else
    return NNS_E_NOTFOUND;
  return as_op(c, name, from, to, 1);
}

/* group_norm(input, num_groups, weight, bias, eps, cudnn_enabled):
 * native_group_norm's rule, N, C and HxW from the input's sizes. */
static nns_status group_norm(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "input");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 2 || mx->rank > NNS__ATEN_R_MAX || c->n_args > 60)
    return NNS_E_NOTFOUND;
  int64_t dx[NNS__ATEN_R_MAX];
  for (int k = 0; k < mx->rank; k++)
    if ((dx[k] = mx->dims[k]) < 0 && k > 0)
      return NNS_E_NOTFOUND; /* a symbolic batch only */
  nns__aten_arg args[64];
  int n = 0;
  for (int32_t k = 0; k < c->n_args; k++) {
    args[n] = c->args[k];
    if (args[n].name && !strcmp(args[n].name, "num_groups"))
      args[n].name = "group";
    n++;
  }
  static const char *const names[] = {"N", "C", "HxW"};
  int64_t v[3] = {dx[0], dx[1], nns__aten_prod(dx + 2, mx->rank - 2)};
  for (int k = 0; k < 3; k++)
    args[n++] = (nns__aten_arg){.name = names[k], .kind = NNS__AA_INT,
                                .i = v[k]};
  nns__aten_call inner = *c;
  inner.args = args;
  inner.n_args = n;
  return native_group_norm(&inner, op);
}

/* grid_sampler(input, grid, ...) on a 4-D input: grid_sampler_2d's rule. */
static nns_status grid_sampler_any(nns__aten_call *c,
                                   const nns__aten_op *op) {
  (void)op;
  const nns__aten_meta *mx = A_META(c, A_T(c, "input"));
  if (!mx || mx->rank != 4)
    return NNS_E_NOTFOUND;
  return as_op(c, "grid_sampler_2d", NULL, NULL, 0);
}

/* ==== Backward kernels ==== */

/* _adaptive_avg_pool2d_backward(grad_output, self): each input element
 * receives its window's gradient over the window size (Expand, or Resize
 * where the output was pooled to more than one element; Div). */
static nns_status adaptive_avg_backward(nns__aten_call *c,
                                        const nns__aten_op *op) {
  (void)op;
  const char *g = A_T(c, "grad_output"), *x = A_T(c, "self");
  const nns__aten_meta *mg = A_META(c, g), *mx = A_META(c, x);
  int64_t dg[NNS__ATEN_R_MAX], dx[NNS__ATEN_R_MAX];
  if (!g || !x || !nns__aten_known(mg, dg) || !nns__aten_known(mx, dx) || !c->outs[0])
    return NNS_E_NOTFOUND;
  int64_t ng = nns__aten_prod(dg, mg->rank), nx = nns__aten_prod(dx, mx->rank);
  int64_t window = nx / (ng > 1 ? ng : 1);
  bool broadcast = mg->rank == mx->rank;
  for (int k = 0; broadcast && k < mx->rank; k++)
    broadcast = dg[k] == 1 || dg[k] == dx[k];
  size_t first = *c->node_count;
  const char *e = c->fresh(c->fe);
  if (broadcast) {
    const char *ins[] = {g, nns__aten_const_ints(c, dx, mx->rank, false)};
    if (!ins[1])
      return c->err->code;
    A_TRY(nns__aten_node(c, "Expand", "", ins, 2, &e, 1));
  } else {
    /* windows of several outputs each (pooled to 2 x 2): no broadcast
     * spells that; each input element takes its window's gradient,
     * nearest-resized to the input's sizes */
    const char *ins[] = {g, "", "",
                         nns__aten_const_ints(c, dx, mx->rank, false)};
    if (!ins[3])
      return c->err->code;
    A_TRY(nns__aten_node(c, "Resize", "", ins, 4, &e, 1));
    A_TRY(nns__aten_attr_s(c, "mode", "nearest"));
  }
  const char *div[] = {e, nns__aten_scalar(c, (double)(window > 1 ? window
                                                                  : 1),
                                           mx->dtype)};
  if (!div[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Div", "", div, 2, c->outs, 1));
  return nns__aten_kernel(c, first);
}

/* max_pool2d_with_indices_backward(grad_output, self, ..., indices): the
 * gradient scattered back to each window's maximum, over (N, C, nns__aten_prod(S)):
 * Reshapes, a ScatterElements add into zeros, a Reshape back. */
static nns_status max_pool_backward(nns__aten_call *c,
                                    const nns__aten_op *op) {
  (void)op;
  const char *g = A_T(c, "grad_output"), *x = A_T(c, "self");
  const char *ix = A_T(c, "indices");
  const nns__aten_meta *mg = A_META(c, g), *mx = A_META(c, x);
  const nns__aten_meta *mi = A_META(c, ix);
  int64_t dg[NNS__ATEN_R_MAX], dx[NNS__ATEN_R_MAX];
  if (!g || !x || !ix || !mi || !nns__aten_known(mg, dg) || !nns__aten_known(mx, dx) ||
      mg->rank < 2 || mx->rank < 2 || !c->outs[0])
    return NNS_E_NOTFOUND;
  int64_t fg[3] = {dg[0], dg[1], nns__aten_prod(dg + 2, mg->rank - 2)};
  int64_t fx[3] = {dx[0], dx[1], nns__aten_prod(dx + 2, mx->rank - 2)};
  size_t first = *c->node_count;
  const char *flat_g = c->fresh(c->fe), *flat_i = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, g, fg, 3, flat_g));
  A_TRY(nns__aten_reshape_to(c, ix, fg, 3, flat_i));
  const char *scat = c->fresh(c->fe);
  const char *ins[] = {nns__aten_filler(c, mg->dtype, 3, fx), flat_i, flat_g};
  if (!ins[0])
    return c->err->code;
  A_TRY(nns__aten_node(c, "ScatterElements", "", ins, 3, &scat, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", 2, c->err));
  A_TRY(nns__aten_attr_s(c, "reduction", "add"));
  A_TRY(nns__aten_reshape_to(c, scat, dx, mx->rank, c->outs[0]));
  return nns__aten_kernel(c, first);
}

/* The output k of a backward call when PyTorch computes it (NULL when
 * output_mask leaves it out or nothing uses it). */
static const char *grad_out(nns__aten_call *c, int k) {
  const nns__aten_arg *m = nns__aten_arg_of(c, "output_mask");
  if (k >= c->n_outs || !c->outs[k])
    return NULL;
  if (m && m->kind == NNS__AA_INTS && m->n > k && !m->ints[k])
    return NULL;
  return c->outs[k];
}

/* ReduceSum of t over axes (keepdims 0) into out. */
static nns_status reduce_sum(nns__aten_call *c, const char *t,
                             const int64_t *axes, int n, const char *out) {
  const char *ins[] = {t, nns__aten_const_ints(c, axes, n, false)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "ReduceSum", "", ins, 2, &out, 1));
  return nns_builder_attr_int(c->b, "keepdims", 0, c->err);
}

/* grad_weight and grad_bias of the norms: sums of grad * x and of grad
 * over axes. */
static nns_status norm_param_grads(nns__aten_call *c, const char *g,
                                   const char *x, const int64_t *axes, int n) {
  const char *gw = grad_out(c, 1), *gb = grad_out(c, 2);
  if (gw) {
    const char *p = c->fresh(c->fe), *ins[] = {g, x};
    A_TRY(nns__aten_node(c, "Mul", "", ins, 2, &p, 1));
    A_TRY(reduce_sum(c, p, axes, n, gw));
  }
  return gb ? reduce_sum(c, g, axes, n, gb) : NNS_OK;
}

/* native_batch_norm_backward(grad_out, input, weight, ...): grad_input as
 * one BatchNormalization's work (eval mode), grad_weight = sum(g * x),
 * grad_bias = sum(g) over all but the channel axis. */
static nns_status bn_backward(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *g = A_T(c, "grad_out"), *x = A_T(c, "input");
  const nns__aten_meta *mx = A_META(c, x);
  if (!g || !x || !mx || mx->rank < 2 || mx->rank > NNS__ATEN_R_MAX ||
      mx->dims[1] < 0)
    return NNS_E_NOTFOUND;
  int64_t axes[NNS__ATEN_R_MAX];
  int n = 0;
  for (int k = 0; k < mx->rank; k++)
    if (k != 1)
      axes[n++] = k;
  size_t first = *c->node_count;
  const char *gi = grad_out(c, 0);
  if (gi) {
    const char *ins[5] = {g, A_T(c, "weight")};
    for (int k = ins[1] ? 2 : 1; k < 5; k++)
      if (!(ins[k] = nns__aten_filler(c, mx->dtype, 1, &mx->dims[1])))
        return c->err->code;
    A_TRY(nns__aten_node(c, "BatchNormalization", "", ins, 5, &gi, 1));
  }
  A_TRY(norm_param_grads(c, g, x, axes, n));
  return nns__aten_kernel(c, first);
}

/* native_layer_norm_backward(grad_out, input, normalized_shape, mean,
 * rstd, weight, bias, output_mask): grad_input as one LayerNormalization's
 * work, grad_weight and grad_bias as sums over the leading axes. */
static nns_status ln_backward(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *g = A_T(c, "grad_out"), *x = A_T(c, "input");
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *s = nns__aten_arg_of(c, "normalized_shape");
  if (!g || !x || !mx || !s || s->kind != NNS__AA_INTS || s->n < 1 ||
      s->n > mx->rank || mx->rank > NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  for (int k = 0; k < s->n; k++)
    if (s->syms[k])
      return NNS_E_NOTFOUND;
  int64_t lead[NNS__ATEN_R_MAX];
  int n = mx->rank - s->n;
  for (int k = 0; k < n; k++)
    lead[k] = k;
  size_t first = *c->node_count;
  const char *gi = grad_out(c, 0);
  if (gi) {
    const char *ins[] = {g, A_T(c, "weight")};
    if (!ins[1] &&
        !(ins[1] = nns__aten_filler(c, mx->dtype, s->n, s->ints)))
      return c->err->code;
    A_TRY(nns__aten_node(c, "LayerNormalization", "", ins, 2, &gi, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", -s->n, c->err));
  }
  A_TRY(norm_param_grads(c, g, x, lead, n));
  return nns__aten_kernel(c, first);
}

/* convolution_backward(grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask):
 * grad_input the transposed convolution of grad_output by the weight;
 * grad_weight the correlation of the input with grad_output (a grouped
 * Conv whose batch is Cin/g, its kernel grad_output); grad_bias a sum.
 * The backward of a transposed convolution is not lowered. */
static nns_status conv_backward(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *go = A_T(c, "grad_output"), *x = A_T(c, "input");
  const char *w = A_T(c, "weight");
  const nns__aten_meta *mg = A_META(c, go), *mx = A_META(c, x),
                       *mw = A_META(c, w);
  int64_t dg[NNS__ATEN_R_MAX], dx[NNS__ATEN_R_MAX], dw[NNS__ATEN_R_MAX];
  if (!go || !x || !w || !nns__aten_known(mg, dg) || !nns__aten_known(mx, dx) ||
      !nns__aten_known(mw, dw) || mw->rank < 3 || mw->rank > 5 ||
      mx->rank != mw->rank || mg->rank != mw->rank ||
      nns__aten_bool(c, "transposed", false))
    return NNS_E_NOTFOUND;
  int r = mw->rank - 2;
  int64_t s[3], p[3], d[3], k[3], groups = nns__aten_int(c, "groups", 1);
  if (!nns__aten_ints(c, "stride", r, 1, s) ||
      !nns__aten_ints(c, "padding", r, 0, p) ||
      !nns__aten_ints(c, "dilation", r, 1, d) || groups < 1 ||
      groups > dx[1] || !args_ok(s, r) || !args_ok(p, r) || !args_ok(d, r))
    return NNS_E_NOTFOUND;
  for (int i = 0; i < r; i++)
    if (dx[2 + i] > SIDE_MAX || dg[2 + i] > SIDE_MAX || dw[2 + i] > SIDE_MAX)
      return NNS_E_NOTFOUND;
  memcpy(k, dw + 2, (size_t)r * sizeof *k);
  size_t first = *c->node_count;
  const char *gi = grad_out(c, 0), *gw = grad_out(c, 1),
             *gb = grad_out(c, 2);
  int64_t pp[6];
  memcpy(pp, p, (size_t)r * sizeof *p);
  memcpy(pp + r, p, (size_t)r * sizeof *p);
  if (gi) {
    int64_t opad[3];
    for (int i = 0; i < r; i++)
      opad[i] = dx[2 + i] -
                ((dg[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + 1);
    const char *ins[] = {go, w};
    A_TRY(nns__aten_node(c, "ConvTranspose", "", ins, 2, &gi, 1));
    A_TRY(nns_builder_attr_ints(c->b, "kernel_shape", k, (size_t)r, c->err));
    A_TRY(nns_builder_attr_ints(c->b, "strides", s, (size_t)r, c->err));
    A_TRY(nns_builder_attr_ints(c->b, "pads", pp, (size_t)(2 * r), c->err));
    A_TRY(nns_builder_attr_ints(c->b, "dilations", d, (size_t)r, c->err));
    A_TRY(nns_builder_attr_int(c->b, "group", groups, c->err));
    A_TRY(nns_builder_attr_ints(c->b, "output_padding", opad, (size_t)r,
                                c->err));
  }
  if (gw) {
    int64_t n = dx[0], cin = dx[1], cout = dw[0], cg = cin / groups;
    int64_t sh[8], perm[8];
    /* x: (N, Cin, *S) -> (N, g, Cin/g, *S) -> (Cin/g, g, N, *S) ->
     * (Cin/g, g*N, *S) */
    sh[0] = n, sh[1] = groups, sh[2] = cg;
    memcpy(sh + 3, dx + 2, (size_t)r * sizeof *sh);
    const char *x5 = c->fresh(c->fe), *xt = c->fresh(c->fe);
    A_TRY(nns__aten_reshape_to(c, x, sh, 3 + r, x5));
    perm[0] = 2, perm[1] = 1, perm[2] = 0;
    for (int i = 0; i < r; i++)
      perm[3 + i] = 3 + i;
    A_TRY(nns__aten_node(c, "Transpose", "", &x5, 1, &xt, 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)(3 + r), c->err));
    sh[0] = cg, sh[1] = groups * n;
    memcpy(sh + 2, dx + 2, (size_t)r * sizeof *sh);
    const char *xin = c->fresh(c->fe);
    A_TRY(nns__aten_reshape_to(c, xt, sh, 2 + r, xin));
    /* grad_output: (N, Cout, *So) -> (Cout, N, *So) */
    perm[0] = 1, perm[1] = 0;
    for (int i = 0; i < r; i++)
      perm[2 + i] = 2 + i;
    const char *gt = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Transpose", "", &go, 1, &gt, 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)(2 + r), c->err));
    int64_t end[3], keep[3], zero[3] = {0}, ax[3];
    bool cut = false;
    for (int i = 0; i < r; i++) {
      end[i] = d[i] * (k[i] - 1) + 1 + s[i] * (dg[2 + i] - 1) - dx[2 + i] -
               p[i];
      keep[i] = dx[2 + i] + (end[i] < 0 ? end[i] : 0);
      cut = cut || end[i] < 0;
      ax[i] = 2 + i;
    }
    if (cut) {
      const char *ins[] = {xin, nns__aten_const_ints(c, zero, r, false),
                           nns__aten_const_ints(c, keep, r, false),
                           nns__aten_const_ints(c, ax, r, false)};
      if (!ins[1] || !ins[2] || !ins[3])
        return c->err->code;
      const char *sl = c->fresh(c->fe);
      A_TRY(nns__aten_node(c, "Slice", "", ins, 4, &sl, 1));
      xin = sl;
      for (int i = 0; i < r; i++)
        end[i] = end[i] < 0 ? 0 : end[i];
    }
    int64_t cpads[6];
    memcpy(cpads, p, (size_t)r * sizeof *p);
    memcpy(cpads + r, end, (size_t)r * sizeof *end);
    const char *corr = c->fresh(c->fe), *ins[] = {xin, gt};
    A_TRY(nns__aten_node(c, "Conv", "", ins, 2, &corr, 1));
    A_TRY(nns_builder_attr_ints(c->b, "kernel_shape", dg + 2, (size_t)r,
                                c->err));
    A_TRY(nns_builder_attr_ints(c->b, "strides", d, (size_t)r, c->err));
    A_TRY(nns_builder_attr_ints(c->b, "dilations", s, (size_t)r, c->err));
    A_TRY(nns_builder_attr_ints(c->b, "pads", cpads, (size_t)(2 * r),
                                c->err));
    A_TRY(nns_builder_attr_int(c->b, "group", groups, c->err));
    A_TRY(nns__aten_node(c, "Transpose", "", &corr, 1, &gw, 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)(2 + r), c->err));
    (void)cout;
  }
  if (gb) {
    int64_t axes[4] = {0, 2, 3, 4};
    A_TRY(reduce_sum(c, go, axes, 1 + r, gb));
  }
  return nns__aten_kernel(c, first);
}

/* ==== The table ==== */

/* Sorted by name (bisected; a unit test checks the order). */
static const nns__aten_op table[] = {
    RULE("_adaptive_avg_pool2d", "GlobalAveragePool/AveragePool/Resize",
         adaptive),
    RULE_UNREAD("_adaptive_avg_pool2d_backward", "Expand/Resize, Div",
                adaptive_avg_backward, "self"),
    RULE("_adaptive_avg_pool3d", "GlobalAveragePool/AveragePool/Resize",
         adaptive),
    RULE("_convolution", "Conv/ConvTranspose", convolution_),
    /* offs, which rows meet which expert, is the router's data: the
     * balanced split never reads it */
    RULE_UNREAD("_grouped_mm", "MatMul / Slice, Reshape, MatMul, Concat",
                grouped_mm, "offs"),
    RULE("_native_batch_norm_legit", "BatchNormalization", native_batch_norm),
    /* its attention weights (need_weights) are not lowered */
    RULE_UNWRITTEN_1(
        "_native_multi_head_attention",
        "MatMul, Add, Split, ..., Softmax, MatMul, ... (kernels of their own)",
        native_mha),
    RULE("_scaled_dot_product_attention_math", "MatMul, Mul, Softmax, MatMul",
         sdpa_variant),
    RULE("_scaled_dot_product_cudnn_attention",
         "MatMul, Mul, Softmax, MatMul", sdpa_variant),
    RULE("_scaled_dot_product_efficient_attention",
         "MatMul, Mul, Softmax, MatMul", sdpa_variant),
    RULE("_scaled_dot_product_flash_attention",
         "MatMul, Mul, Softmax, MatMul", sdpa_variant),
    RULE("_scaled_dot_product_flash_attention_for_cpu",
         "MatMul, Mul, Softmax, MatMul", sdpa_variant),
    RULE("_transformer_encoder_layer_fwd",
         "attention, Add, LayerNormalization, MatMul, Relu/Gelu, ... "
         "(kernels of their own)",
         encoder_layer),
    RULE("_upsample_bicubic2d_aa", "Resize(cubic, antialias)", resize),
    RULE("_upsample_bilinear2d_aa", "Resize(linear, antialias)", resize),
    RULE("_weight_norm", "ReduceL2, Div, Mul", weight_norm_composite),
    RULE("_weight_norm_interface", "ReduceL2, Div, Mul", weight_norm),
    RULE_UNWRITTEN_1("adaptive_max_pool1d", "GlobalMaxPool/MaxPool/Resize",
                     adaptive),
    RULE_UNWRITTEN_1("adaptive_max_pool2d", "GlobalMaxPool/MaxPool/Resize",
                     adaptive),
    RULE_UNWRITTEN_1("adaptive_max_pool3d", "GlobalMaxPool/MaxPool/Resize",
                     adaptive),
    RULE("col2im", "Reshape, ScatterElements(add), Slice", col2im),
    RULE("constant_pad_nd", "Pad(constant)", pad),
    RULE_UNREAD("convolution_backward", "ConvTranspose; Conv; ReduceSum",
                conv_backward, "input/1 weight/0"),
    RULE("cudnn_batch_norm", "BatchNormalization", native_batch_norm),
    RULE("grid_sampler", "GridSample (4-D input)", grid_sampler_any),
    RULE("grid_sampler_2d", "GridSample", grid_sampler),
    RULE("group_norm", "InstanceNormalization, Mul, Add", group_norm),
    RULE("im2col", "Pad, Reshape, Gather, Reshape", im2col),
    RULE_UNWRITTEN_1("max_pool1d_with_indices", "MaxPool", nns__aten_pool),
    RULE_UNREAD("max_pool2d_with_indices_backward", "ScatterElements(add)",
                max_pool_backward, "self"),
    RULE_UNWRITTEN_1("max_pool3d_with_indices", "MaxPool", nns__aten_pool),
    RULE("native_batch_norm", "BatchNormalization", native_batch_norm),
    RULE_UNREAD("native_batch_norm_backward", "BatchNormalization; ReduceSum",
                bn_backward,
                "input/1 weight/0 running_mean running_var save_mean "
                "save_invstd"),
    RULE_UNWRITTEN_1_2("native_group_norm", "InstanceNormalization, Mul, Add",
                       native_group_norm),
    RULE_UNREAD("native_layer_norm_backward", "LayerNormalization; ReduceSum",
                ln_backward, "input/1 weight/0 mean rstd bias"),
    RULE("pad", "Pad", pad_any),
    RULE("reflection_pad1d", "Pad(reflect)", pad),
    RULE("reflection_pad2d", "Pad(reflect)", pad),
    RULE("reflection_pad3d", "Pad(reflect)", pad),
    RULE("replication_pad1d", "Pad(edge)", pad),
    RULE("replication_pad2d", "Pad(edge)", pad),
    RULE("replication_pad3d", "Pad(edge)", pad),
    RULE("roi_align", "Slice, Gather, Cast, RoiAlign (torchvision's)",
         roi_align),
    RULE("transformers::grouped_mm_fallback",
         "MatMul / Slice, Reshape, MatMul, Concat (as _grouped_mm)",
         grouped_mm_fallback),
    RULE("upsample_bicubic2d", "Resize(cubic)", resize),
    RULE("upsample_bilinear2d", "Resize(linear)", resize),
    RULE("upsample_linear1d", "Resize(linear)", resize),
    RULE("upsample_nearest1d", "Resize(nearest)", resize),
    RULE("upsample_nearest2d", "Resize(nearest)", resize),
    RULE("upsample_nearest3d", "Resize(nearest)", resize),
    RULE("upsample_trilinear3d", "Resize(linear)", resize),
};

const nns__aten_family nns__aten_nn = {table,
                                      sizeof table / sizeof table[0]};
