/*
 * aten.c - the aten table: what each PyTorch operator lowers to, in the
 * nodes (ONNX opset 17 forms) whose entries in this folder count them.
 * Declarative where an aten op is one ONNX op with its input renamed
 * (relu -> Relu, add -> Add); a rule function where it is not (conv2d's
 * attributes from its weight's shape, linear as Gemm, attention as its
 * MatMuls and Softmax). The rules read arguments by their schema names
 * and add nodes through the builder; helpers for the arguments and small
 * constants are in aten_util.c.
 */
#include "aten_int.h"

#include "../ir/ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== Matrix products ==== */

/* linear(input, weight, bias) as PyTorch runs it (at::linear): a Gemm
 * with transB on a matrix input (addmm of the transposed weight); on more
 * dims the input flattened to a matrix, the same Gemm, and the result
 * viewed back to the input's leading sizes (_flatten_nd_linear with a
 * bias, matmul's folding without one: Reshape, Gemm, Reshape, as the live
 * recording sees them). A vector input: a MatMul against the transposed
 * weight (com.microsoft's FusedMatMul, the same MACs) and the bias Add. */
static nns_status linear(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "input"), *w = A_T(c, "weight");
  const char *bias = A_T(c, "bias");
  const nns__aten_meta *mx = A_META(c, x), *mw = A_META(c, w);
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!x || !w || !c->outs[0])
    return NNS_E_NOTFOUND;
  const char *ins[] = {x, w, bias};
  if (mx && mx->rank == 2) {
    A_TRY(nns__aten_node(c, "Gemm", "", ins, bias ? 3 : 2, c->outs, 1));
    return nns_builder_attr_int(c->b, "transB", 1, c->err);
  }
  if (mx && mw && mo && mx->rank >= 3 && mx->rank == mo->rank &&
      mw->rank == 2 && mw->dims[1] >= 0) {
    int64_t flat[2] = {-1, mw->dims[1]};
    const char *rows = c->fresh(c->fe), *prod = c->fresh(c->fe);
    A_TRY(nns__aten_reshape_to(c, x, flat, 2, rows));
    ins[0] = rows;
    A_TRY(nns__aten_node(c, "Gemm", "", ins, bias ? 3 : 2, &prod, 1));
    A_TRY(nns_builder_attr_int(c->b, "transB", 1, c->err));
    /* the sizes back: a constant, with -1 for one symbolic size */
    int64_t back[NNS__ATEN_R_MAX];
    int unknown = 0;
    for (int k = 0; k < mo->rank && k < NNS__ATEN_R_MAX; k++) {
      back[k] = mo->dims[k] >= 0 ? mo->dims[k] : -1;
      unknown += mo->dims[k] < 0;
    }
    if (unknown <= 1 && mo->rank <= NNS__ATEN_R_MAX)
      return nns__aten_reshape_to(c, prod, back, mo->rank, c->outs[0]);
    c->err->code = NNS_OK;
    const char *shape = nns__aten_shape_value(c, mo);
    if (!shape)
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    const char *rs[] = {prod, shape};
    return nns__aten_node(c, "Reshape", "", rs, 2, c->outs, 1);
  }
  size_t first = *c->node_count;
  const char *mm = bias ? c->fresh(c->fe) : c->outs[0];
  A_TRY(nns__aten_node(c, "FusedMatMul", "com.microsoft", ins, 2, &mm, 1));
  A_TRY(nns_builder_attr_int(c->b, "transB", 1, c->err));
  if (!bias)
    return NNS_OK;
  const char *add[] = {mm, bias};
  A_TRY(nns__aten_node(c, "Add", "", add, 2, c->outs, 1));
  return nns__aten_kernel(c, first);
}

/* A matrix product's operand *x in its output's dtype. PyTorch's kernels
 * take mixed floating operands (float32 activations into a bfloat16
 * Linear) and give the promoted dtype; ONNX's MatMul and Gemm take one,
 * so the operand is Cast to it first, in the product's kernel: it moves
 * no bytes of its own (the recorder's rule does the same). */
static nns_status mm_operand(nns__aten_call *c, const char **x) {
  const nns__aten_meta *mx = A_META(c, *x);
  const nns__aten_meta *mo = c->n_outs > 0 ? A_META(c, c->outs[0]) : NULL;
  if (!mx || !mo || mx->dtype == mo->dtype ||
      !nns__dtype_is_float(mx->dtype) || !nns__dtype_is_float(mo->dtype))
    return NNS_OK;
  const char *cast = c->fresh(c->fe);
  if (!cast)
    return nns__err(c->err, NNS_E_NOMEM, -1, NULL, "out of memory");
  A_TRY(nns__aten_node(c, "Cast", "", x, 1, &cast, 1));
  A_TRY(nns_builder_attr_int(c->b, "to", mo->dtype, c->err));
  *x = cast;
  return NNS_OK;
}

/* The weight a matrix product's right operand `b` is the transpose of,
 * not made (a weight's t() or permute(1, 0): Gemm then reads the weight
 * with transB, as the live recording lowers F.linear's t(W)), or NULL. */
static const char *folded_weight(nns__aten_call *c, const char *b) {
  return b && c->folded ? c->folded(c->fe, b) : NULL;
}

/* addmm(self, mat1, mat2, beta, alpha): Gemm(mat1, mat2, self), transB
 * over a weight's transpose. */
static nns_status addmm(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *ins[] = {A_T(c, "mat1"), A_T(c, "mat2"), A_T(c, "self")};
  if (!ins[0] || !ins[1] || !ins[2])
    return NNS_E_NOTFOUND;
  const char *w = folded_weight(c, ins[1]);
  if (w)
    ins[1] = w;
  size_t first = *c->node_count;
  for (int k = 0; k < 3; k++)
    A_TRY(mm_operand(c, &ins[k]));
  A_TRY(nns__aten_node(c, "Gemm", "", ins, 3, c->outs, 1));
  if (w)
    A_TRY(nns_builder_attr_int(c->b, "transB", 1, c->err));
  double beta = nns__aten_float(c, "beta", 1), alpha = nns__aten_float(c, "alpha", 1);
  if (beta != 1)
    A_TRY(nns_builder_attr_float(c->b, "beta", beta, c->err));
  if (alpha != 1)
    A_TRY(nns_builder_attr_float(c->b, "alpha", alpha, c->err));
  return nns__aten_kernel(c, first);
}

/* A Reshape of src to dims[0..n) (-1: a symbolic size, at most one) into
 * out; false (nothing added) when more than one size is symbolic. */
static bool reshape_known(nns__aten_call *c, const char *src,
                          const int64_t *dims, int n, const char *out,
                          nns_status *st) {
  int unknown = 0;
  for (int k = 0; k < n; k++)
    unknown += dims[k] < 0;
  if (unknown > 1)
    return false;
  *st = nns__aten_reshape_to(c, src, dims, n, out);
  return true;
}

/* matmul with an operand of 3 or more dims, as PyTorch's _matmul_impl
 * runs it (what the live recording sees): a matrix-shaped second operand
 * folds the first into rows (Reshape, MatMul, Reshape); otherwise both
 * are expanded to the broadcast batch and flattened to it (Expand,
 * Reshape each), one batched MatMul (bmm), and the result viewed to the
 * output's sizes. *done false when the sizes needed are not known (the
 * plain MatMul then). Strides are taken as contiguous. */
static nns_status matmul_nd(nns__aten_call *c, const char *a, const char *b,
                            const char *w, bool *done) {
  const nns__aten_meta *ma = A_META(c, a), *mb = A_META(c, b);
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  *done = false;
  if (!ma || !mb || !mo || ma->rank < 2 || mb->rank < 2 ||
      (ma->rank < 3 && mb->rank < 3) || ma->rank > NNS__ATEN_R_MAX ||
      mb->rank > NNS__ATEN_R_MAX || mo->rank > NNS__ATEN_R_MAX)
    return NNS_OK;
  int64_t out[NNS__ATEN_R_MAX];
  for (int k = 0; k < mo->rank; k++)
    out[k] = mo->dims[k] < 0 ? -1 : mo->dims[k];
  nns_status st = NNS_OK;
  int64_t n = ma->dims[ma->rank - 2], m1 = ma->dims[ma->rank - 1];
  int64_t m2 = mb->dims[mb->rank - 2], p = mb->dims[mb->rank - 1];
  if (m1 < 0 || m2 < 0 || p < 0)
    return NNS_OK;
  if (mb->rank == 2) { /* should_fold: rows times a matrix */
    const char *rows = c->fresh(c->fe), *prod = c->fresh(c->fe);
    int64_t flat[2] = {-1, m1};
    int unknown = 0;
    for (int k = 0; k < mo->rank; k++)
      unknown += out[k] < 0;
    if (unknown > 1)
      return NNS_OK;
    *done = true;
    A_TRY(nns__aten_reshape_to(c, a, flat, 2, rows));
    /* b a weight's transpose (w): mm(rows, t(W)) live, a Gemm */
    const char *ins[] = {rows, w ? w : b};
    A_TRY(nns__aten_node(c, w ? "Gemm" : "MatMul", "", ins, 2, &prod, 1));
    if (w)
      A_TRY(nns_builder_attr_int(c->b, "transB", 1, c->err));
    return nns__aten_reshape_to(c, prod, out, mo->rank, c->outs[0]);
  }
  /* the broadcast batch: the output's leading sizes */
  int nb = mo->rank - 2;
  if (nb < 1)
    return NNS_OK;
  int64_t ea[NNS__ATEN_R_MAX], eb[NNS__ATEN_R_MAX], batch = 1;
  const char *sa[NNS__ATEN_R_MAX], *sb[NNS__ATEN_R_MAX];
  for (int k = 0; k < nb; k++) {
    ea[k] = eb[k] = mo->dims[k];
    sa[k] = sb[k] = mo->syms ? mo->syms[k] : NULL;
    if (mo->dims[k] < 0 && !sa[k])
      return NNS_OK;
    batch = mo->dims[k] < 0 || batch < 0 ? -1 : batch * mo->dims[k];
  }
  ea[nb] = n;
  sa[nb] = ma->syms ? ma->syms[ma->rank - 2] : NULL;
  ea[nb + 1] = m1;
  sa[nb + 1] = NULL;
  eb[nb] = m2;
  eb[nb + 1] = p;
  sb[nb] = sb[nb + 1] = NULL;
  if (n < 0 && !sa[nb])
    return NNS_OK;
  int64_t fa[3] = {batch, n, m1}, fb[3] = {batch, m2, p};
  int unknown_a = (batch < 0) + (n < 0), unknown_o = 0;
  for (int k = 0; k < mo->rank; k++)
    unknown_o += out[k] < 0;
  if (unknown_a > 1 || unknown_o > 1)
    return NNS_OK;
  nns__aten_meta xa = {ma->dtype, nb + 2, ea, sa, false, false};
  nns__aten_meta xb = {mb->dtype, nb + 2, eb, sb, false, false};
  c->err->code = NNS_OK;
  const char *shape_a = nns__aten_shape_value(c, &xa);
  const char *shape_b = shape_a ? nns__aten_shape_value(c, &xb) : NULL;
  if (!shape_b)
    return c->err->code;
  *done = true;
  if (ma->rank < mb->rank) {
    /* should_fold looks at b.mT() when b has more dims: PyTorch makes
     * that transpose (unused), and the live recording sees it */
    int64_t perm[NNS__ATEN_R_MAX];
    for (int k = 0; k < mb->rank; k++)
      perm[k] = k;
    perm[mb->rank - 2] = mb->rank - 1;
    perm[mb->rank - 1] = mb->rank - 2;
    const char *bt = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Transpose", "", &b, 1, &bt, 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)mb->rank,
                                c->err));
  }
  const char *xa_e = c->fresh(c->fe), *xa_f = c->fresh(c->fe);
  const char *xb_e = c->fresh(c->fe), *xb_f = c->fresh(c->fe);
  const char *prod = c->fresh(c->fe);
  const char *ea_in[] = {a, shape_a}, *eb_in[] = {b, shape_b};
  A_TRY(nns__aten_node(c, "Expand", "", ea_in, 2, &xa_e, 1));
  if (!reshape_known(c, xa_e, fa, 3, xa_f, &st))
    return NNS_E_NOTFOUND;
  A_TRY(st);
  A_TRY(nns__aten_node(c, "Expand", "", eb_in, 2, &xb_e, 1));
  if (!reshape_known(c, xb_e, fb, 3, xb_f, &st))
    return NNS_E_NOTFOUND;
  A_TRY(st);
  const char *ins[] = {xa_f, xb_f};
  A_TRY(nns__aten_node(c, "MatMul", "", ins, 2, &prod, 1));
  return nns__aten_reshape_to(c, prod, out, mo->rank, c->outs[0]);
}

/* mm, bmm: MatMul of the two tensor arguments; matmul too, but with an
 * operand of 3 or more dims as PyTorch decomposes it (matmul_nd). */
nns_status nns__aten_matmul(nns__aten_call *c, const nns__aten_op *op) {
  const char *ins[2];
  if (nns__aten_tensors(c, ins, 2) < 2)
    return NNS_E_NOTFOUND;
  /* a weight's transpose on the right: read with transB where PyTorch
   * runs an mm of it (a matrix, or rows folded from more dims), else
   * made first */
  const char *w = folded_weight(c, ins[1]);
  const nns__aten_meta *ma = A_META(c, ins[0]);
  bool matmul = !strcmp(op->name, "matmul");
  if (w && (!ma || ma->rank < 2 || (!matmul && ma->rank != 2))) {
    A_TRY(c->unfold(c->fe, ins[1]));
    w = NULL;
  }
  if (matmul && c->n_outs >= 1 && c->outs[0]) {
    bool done;
    nns_status st = matmul_nd(c, ins[0], ins[1], w, &done);
    if (done || st != NNS_OK)
      return st;
  }
  if (w && ma->rank != 2) {
    A_TRY(c->unfold(c->fe, ins[1]));
    w = NULL;
  }
  if (w)
    ins[1] = w;
  size_t first = *c->node_count;
  for (int k = 0; k < 2; k++)
    A_TRY(mm_operand(c, &ins[k]));
  A_TRY(nns__aten_node(c, w ? "Gemm" : op->onnx, "", ins, 2, c->outs, 1));
  if (w)
    A_TRY(nns_builder_attr_int(c->b, "transB", 1, c->err));
  return nns__aten_kernel(c, first);
}

/* ==== Convolution, normalisation, pooling ==== */

/* conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups)
 * and convolution(..., transposed, output_padding, groups). */
static nns_status conv(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "input"), *w = A_T(c, "weight");
  const char *bias = A_T(c, "bias");
  const nns__aten_meta *mw = A_META(c, w);
  if (!x || !w || !mw || mw->rank < 3 || mw->rank > 5)
    return NNS_E_NOTFOUND; /* 1-3 spatial axes, as the arrays below hold */
  int r = mw->rank - 2;
  int64_t k[3], s[3], p[6], d[3], op_pad[3];
  for (int a = 0; a < r; a++) {
    if (mw->dims[2 + a] < 0)
      return NNS_E_NOTFOUND;
    k[a] = mw->dims[2 + a];
  }
  const nns__aten_arg *pad = nns__aten_arg_of(c, "padding");
  bool same = pad && pad->kind == NNS__AA_STRING && !strcmp(pad->s, "same");
  if (pad && pad->kind == NNS__AA_STRING && !same && strcmp(pad->s, "valid"))
    return NNS_E_NOTFOUND;
  if (!nns__aten_ints(c, "stride", r, 1, s) ||
      !nns__aten_ints(c, "dilation", r, 1, d) ||
      !nns__aten_ints(c, "output_padding", r, 0, op_pad) ||
      (!same && !nns__aten_ints(c, "padding", r, 0, p)))
    return NNS_E_NOTFOUND;
  /* "same" (_convolution_mode): dilation x (kernel - 1) split evenly; an
   * odd total pads the input first in PyTorch: not lowered here */
  for (int a = 0; same && a < r; a++) {
    int64_t total = d[a] * (k[a] - 1);
    if (total % 2 || s[a] != 1)
      return NNS_E_NOTFOUND;
    p[a] = total / 2;
  }
  memcpy(p + r, p, (size_t)r * sizeof *p);
  bool transposed = nns__aten_bool(c, "transposed", false);
  const char *ins[] = {x, w, bias};
  A_TRY(nns__aten_node(c, transposed ? "ConvTranspose" : "Conv", "", ins,
                       bias ? 3 : 2, c->outs, 1));
  A_TRY(nns_builder_attr_ints(c->b, "kernel_shape", k, (size_t)r, c->err));
  A_TRY(nns_builder_attr_ints(c->b, "strides", s, (size_t)r, c->err));
  A_TRY(nns_builder_attr_ints(c->b, "pads", p, (size_t)(2 * r), c->err));
  A_TRY(nns_builder_attr_ints(c->b, "dilations", d, (size_t)r, c->err));
  A_TRY(nns_builder_attr_int(c->b, "group", nns__aten_int(c, "groups", 1),
                             c->err));
  if (transposed)
    A_TRY(nns_builder_attr_ints(c->b, "output_padding", op_pad, (size_t)r,
                                c->err));
  return NNS_OK;
}

/* batch_norm and _native_batch_norm_legit_no_training (input, weight,
 * bias, running_mean, running_var, ..., eps): BatchNormalization, with
 * constants where PyTorch passed None. */
static nns_status batch_norm(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "input");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 2 || mx->dims[1] < 0)
    return NNS_E_NOTFOUND;
  static const char *const names[] = {"weight", "bias", "running_mean",
                                      "running_var"};
  const char *ins[5] = {x};
  for (int k = 0; k < 4; k++) {
    ins[1 + k] = A_T(c, names[k]);
    if (!ins[1 + k] &&
        !(ins[1 + k] = nns__aten_filler(c, mx->dtype, 1, &mx->dims[1])))
      return c->err->code;
  }
  A_TRY(nns__aten_node(c, "BatchNormalization", "", ins, 5, c->outs, 1));
  return nns_builder_attr_float(c->b, "epsilon",
                                nns__aten_float(c, "eps", 1e-5), c->err);
}

/* layer_norm / native_layer_norm(input, normalized_shape, weight, bias,
 * eps): LayerNormalization over the last len(normalized_shape) axes. */
static nns_status layer_norm(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "input");
  const nns__aten_arg *shape = nns__aten_arg_of(c, "normalized_shape");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || !shape || shape->kind != NNS__AA_INTS || shape->n < 1)
    return NNS_E_NOTFOUND;
  for (int k = 0; k < shape->n; k++)
    if (shape->syms[k])
      return NNS_E_NOTFOUND;
  const char *ins[3] = {x, A_T(c, "weight"), A_T(c, "bias")};
  if (!ins[1] && !(ins[1] = nns__aten_filler(c, mx->dtype, shape->n,
                                             shape->ints)))
    return c->err->code;
  A_TRY(nns__aten_node(c, "LayerNormalization", "", ins, ins[2] ? 3 : 2,
                       c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", -shape->n, c->err));
  return nns_builder_attr_float(c->b, "epsilon",
                                nns__aten_float(c, "eps", 1e-5), c->err);
}

/* max_poolNd(self, kernel_size, stride, padding, dilation, ceil_mode) and
 * avg_poolNd(self, kernel_size, stride, padding, ceil_mode,
 * count_include_pad). An unbatched input (N + 1 dims), which PyTorch pools
 * as a batch of one, is Unsqueeze, the pool, Squeeze, one kernel (ONNX's
 * pools take a batch dim). */
nns_status nns__aten_pool(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  const char *nd = strstr(op->name, "pool"); /* "...poolNd..." */
  int r = nd && nd[4] >= '1' && nd[4] <= '3' ? nd[4] - '0' : 0;
  if (!x || !mx || !r || (mx->rank != r + 1 && mx->rank != r + 2))
    return NNS_E_NOTFOUND;
  bool max = !strcmp(op->onnx, "MaxPool");
  int64_t k[3], s[3], p[6], d[3];
  const nns__aten_arg *st = nns__aten_arg_of(c, "stride");
  if (r > 3 || !nns__aten_ints(c, "kernel_size", r, 1, k) ||
      !nns__aten_ints(c, "padding", r, 0, p) ||
      !nns__aten_ints(c, "dilation", r, 1, d))
    return NNS_E_NOTFOUND;
  if (st && st->kind == NNS__AA_INTS && st->n > 0) {
    if (!nns__aten_ints(c, "stride", r, 1, s))
      return NNS_E_NOTFOUND;
  } else {
    memcpy(s, k, sizeof s);
  }
  memcpy(p + r, p, (size_t)r * sizeof *p);
  bool one = mx->rank == r + 1;
  size_t first = *c->node_count;
  const int64_t lead = 0;
  const char *in = x, *pooled = c->outs[0];
  if (one) {
    const char *ux[2] = {x, nns__aten_const_ints(c, &lead, 1, false)};
    in = c->fresh(c->fe);
    if (!ux[1] || !in)
      return c->err->code ? c->err->code : NNS_E_NOMEM;
    A_TRY(nns__aten_node(c, "Unsqueeze", "", ux, 2, &in, 1));
    if (!(pooled = c->fresh(c->fe)))
      return NNS_E_NOMEM;
  }
  A_TRY(nns__aten_node(c, op->onnx, "", &in, 1, &pooled, 1));
  A_TRY(nns_builder_attr_ints(c->b, "kernel_shape", k, (size_t)r, c->err));
  A_TRY(nns_builder_attr_ints(c->b, "strides", s, (size_t)r, c->err));
  A_TRY(nns_builder_attr_ints(c->b, "pads", p, (size_t)(2 * r), c->err));
  if (max)
    A_TRY(nns_builder_attr_ints(c->b, "dilations", d, (size_t)r, c->err));
  else
    A_TRY(nns_builder_attr_int(
        c->b, "count_include_pad",
        nns__aten_bool(c, "count_include_pad", true), c->err));
  A_TRY(nns_builder_attr_int(c->b, "ceil_mode",
                             nns__aten_bool(c, "ceil_mode", false), c->err));
  if (!one)
    return NNS_OK;
  const char *sq[2] = {pooled, nns__aten_const_ints(c, &lead, 1, false)};
  if (!sq[1])
    return c->err->code ? c->err->code : NNS_E_NOMEM;
  A_TRY(nns__aten_node(c, "Squeeze", "", sq, 2, c->outs, 1));
  return nns__aten_kernel(c, first);
}

/* adaptive_avg_poolNd(self, output_size), the composite an archive
 * keeps: a global pool for a 1x..x1 output, else as PyTorch runs it. */
static nns_status adaptive_pool(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 3 || mx->rank > 5)
    return NNS_E_NOTFOUND;
  int r = mx->rank - 2;
  int64_t o[3];
  if (!nns__aten_ints(c, "output_size", r, 1, o))
    return NNS_E_NOTFOUND;
  bool global = true;
  for (int a = 0; a < r; a++)
    global = global && o[a] == 1;
  if (global && r == 1) {
    /* PyTorch runs the 1-D pool as the 2-D one over x.unsqueeze(-2),
     * then squeeze(-2) (its mean over H and W: a 2-D GlobalAveragePool),
     * as the live recording has it */
    int64_t d4[4] = {mx->dims[0], mx->dims[1], 1, mx->dims[2]};
    int64_t d3[3] = {mx->dims[0], mx->dims[1], 1};
    int unknown = 0;
    for (int a = 0; a < 3; a++)
      unknown += mx->dims[a] < 0;
    if (unknown > 1)
      return NNS_E_NOTFOUND;
    for (int a = 0; a < 4; a++)
      d4[a] = d4[a] < 0 ? -1 : d4[a];
    d3[0] = d3[0] < 0 ? -1 : d3[0];
    const char *u = c->fresh(c->fe), *mean = c->fresh(c->fe);
    A_TRY(nns__aten_reshape_to(c, x, d4, 4, u));
    A_TRY(nns__aten_node(c, "GlobalAveragePool", "", &u, 1, &mean, 1));
    return nns__aten_reshape_to(c, mean, d3, 3, c->outs[0]);
  }
  if (global && mx->rank == 4 && mx->channels_last &&
      !strcmp(op->name, "adaptive_avg_pool2d")) {
    /* PyTorch's mean over H and W, then (a channels-last input) an
     * as_strided_ giving the result its strides: a Reshape to the same
     * sizes, as the live recording has it */
    const nns__aten_meta *mo = A_META(c, c->outs[0]);
    int64_t d[4];
    int unknown = 0;
    for (int a = 0; mo && a < 4 && mo->rank == 4; a++)
      unknown += (d[a] = mo->dims[a]) < 0;
    if (!mo || mo->rank != 4 || unknown > 1)
      return NNS_E_NOTFOUND;
    for (int a = 0; a < 4; a++)
      d[a] = d[a] < 0 ? -1 : d[a];
    const char *mean = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "GlobalAveragePool", "", &x, 1, &mean, 1));
    return nns__aten_reshape_to(c, mean, d, 4, c->outs[0]);
  }
  if (global)
    return nns__aten_node(c, "GlobalAveragePool", "", &x, 1, c->outs, 1);
  /* any other size: what PyTorch runs it as, _adaptive_avg_poolNd (a
   * tiling AveragePool, or a Resize where the output is a multiple of the
   * input: TextNet's (1, 1) -> (2, 2)) */
  return nns__aten_adaptive(c, op);
}

/* ==== Reductions and softmax ==== */

/* The sorted axes of a `dim` argument over rank r (all when absent):
 * their count, or -1 when they cannot be read. */
int nns__aten_axes(nns__aten_call *c, int r, int64_t *axes) {
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  if (r < 0 || r > 16)
    return -1;
  if (!d || d->kind == NNS__AA_NONE || (d->kind == NNS__AA_INTS && !d->n)) {
    for (int k = 0; k < r; k++)
      axes[k] = k;
    return r;
  }
  int n = d->kind == NNS__AA_INT ? 1 : d->kind == NNS__AA_INTS ? d->n : -1;
  if (n < 0 || n > r || (n == 1 && d->kind == NNS__AA_INT && d->sym))
    return -1;
  for (int k = 0; k < n; k++) {
    int64_t v = d->kind == NNS__AA_INT ? d->i : d->ints[k];
    if (r == 0 || v < -r || v >= r)
      return -1;
    axes[k] = (v + r) % r;
  }
  for (int i = 1; i < n; i++) /* insertion sort: a handful of axes */
    for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
      int64_t t = axes[j];
      axes[j] = axes[j - 1];
      axes[j - 1] = t;
    }
  return n;
}

/* mean(self, dim, keepdim): ReduceMean (GlobalAveragePool for the spatial
 * mean of an image batch, ONNX's op for it); sum: ReduceSum, its
 * axes an input since opset 13. */
static nns_status reduce(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  int64_t axes[16];
  int n = x && mx ? nns__aten_axes(c, mx->rank, axes) : -1;
  if (n < 0)
    return NNS_E_NOTFOUND;
  bool keep = nns__aten_bool(c, "keepdim", false);
  if (!strcmp(op->onnx, "ReduceSum")) {
    const char *ins[] = {x, nns__aten_const_ints(c, axes, n, false)};
    if (!ins[1])
      return c->err->code;
    A_TRY(nns__aten_node(c, "ReduceSum", "", ins, 2, c->outs, 1));
    return nns_builder_attr_int(c->b, "keepdims", keep, c->err);
  }
  bool spatial = keep && mx->rank >= 4 && n == mx->rank - 2;
  for (int k = 0; spatial && k < n; k++)
    spatial = axes[k] == k + 2;
  if (spatial)
    return nns__aten_node(c, "GlobalAveragePool", "", &x, 1, c->outs, 1);
  A_TRY(nns__aten_node(c, op->onnx, "", &x, 1, c->outs, 1));
  A_TRY(nns_builder_attr_ints(c->b, "axes", axes, (size_t)n, c->err));
  return nns_builder_attr_int(c->b, "keepdims", keep, c->err);
}

/* softmax / _softmax / log_softmax (self, dim, ...). */
nns_status nns__aten_softmax(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  if (!x || !d || d->kind != NNS__AA_INT || d->sym)
    return NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, op->onnx, "", &x, 1, c->outs, 1));
  return nns_builder_attr_int(c->b, "axis", d->i, c->err);
}

/* rsub(self, other, alpha): other - alpha * self, a Sub of its operands
 * swapped (nns__aten_binary_to swaps them after their casts). A rule, not
 * a BINARY entry: its node is no Sub of its tensors in their order, the
 * one node a binding may name itself for a BINARY call (docs/tape.md). */
static nns_status rsub(nns__aten_call *c, const nns__aten_op *op) {
  return nns__aten_binary(c, op->onnx);
}

/* ==== Activations spelled as several nodes ==== */

/* silu: Sigmoid then Mul; rsqrt: Sqrt then Reciprocal (one kernel). */
static nns_status two_step(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  if (!x || !c->outs[0])
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *mid = c->fresh(c->fe);
  bool silu = !strcmp(op->onnx, "Sigmoid+Mul");
  A_TRY(nns__aten_node(c, silu ? "Sigmoid" : "Sqrt", "", &x, 1, &mid, 1));
  if (silu) {
    const char *ins[] = {x, mid};
    A_TRY(nns__aten_node(c, "Mul", "", ins, 2, c->outs, 1));
  } else {
    A_TRY(nns__aten_node(c, "Reciprocal", "", &mid, 1, c->outs, 1));
  }
  return nns__aten_kernel(c, first);
}

/* gelu: com.microsoft's Gelu (ai.onnx's is opset 20; the same count). */
static nns_status gelu(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  return x ? nns__aten_node(c, "Gelu", "com.microsoft", &x, 1, c->outs, 1)
           : NNS_E_NOTFOUND;
}

/* hardsigmoid: HardSigmoid(alpha 1/6, beta 1/2), PyTorch's constants. */
static nns_status hardsigmoid(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  if (!x)
    return NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, "HardSigmoid", "", &x, 1, c->outs, 1));
  A_TRY(nns_builder_attr_float(c->b, "alpha", 1.0 / 6, c->err));
  return nns_builder_attr_float(c->b, "beta", 0.5, c->err);
}

/* hardtanh(self, min_val, max_val), clamp(self, min, max), relu6: Clip
 * with scalar bounds of the input's dtype. */
/* clamp(self, min, max) with a bound that is a tensor of more than one
 * element: element-wise Max and Min (Clip's bounds are scalars), one
 * kernel, as PyTorch's clamp is; a one-element tensor bound stays a Clip
 * input. NNS_E_NOTFOUND when no bound is such a tensor. */
static nns_status clip_tensors(nns__aten_call *c, const char *x,
                               const nns__aten_meta *mx) {
  const nns__aten_arg *lo = nns__aten_arg_of(c, "min"),
                      *hi = nns__aten_arg_of(c, "max");
  const nns__aten_arg *side[2] = {lo, hi};
  bool wide = false;
  for (int k = 0; k < 2; k++) {
    const nns__aten_meta *m = side[k] && side[k]->kind == NNS__AA_TENSOR
                                  ? A_META(c, side[k]->tensor)
                                  : NULL;
    int64_t d[NNS__ATEN_R_MAX];
    if (side[k] && side[k]->kind == NNS__AA_TENSOR &&
        (!nns__aten_known(m, d) || nns__aten_prod(d, m->rank) != 1))
      wide = true;
  }
  if (!wide) {
    const char *ins[3] = {x, "", ""};
    for (int k = 0; k < 2; k++) {
      const nns__aten_arg *a = side[k];
      if (!a || a->kind == NNS__AA_NONE)
        continue;
      ins[1 + k] = a->kind == NNS__AA_TENSOR
                       ? a->tensor
                       : nns__aten_operand(c, a, mx->dtype);
      if (!ins[1 + k])
        return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    }
    size_t n = ins[2][0] ? 3 : ins[1][0] ? 2 : 1;
    return nns__aten_node(c, "Clip", "", ins, n, c->outs, 1);
  }
  size_t first = *c->node_count;
  const char *cur = x;
  bool has_hi = hi && hi->kind != NNS__AA_NONE;
  for (int k = 0; k < 2; k++) {
    const nns__aten_arg *a = side[k];
    if (!a || a->kind == NNS__AA_NONE)
      continue;
    const char *bound = a->kind == NNS__AA_TENSOR
                            ? a->tensor
                            : nns__aten_operand(c, a, mx->dtype);
    if (!bound)
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    const char *out = k == 1 || !has_hi ? c->outs[0] : c->fresh(c->fe);
    const char *ins[] = {cur, bound};
    A_TRY(nns__aten_node(c, k ? "Min" : "Max", "", ins, 2, &out, 1));
    cur = out;
  }
  return nns__aten_kernel(c, first);
}

static nns_status clip(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx)
    return NNS_E_NOTFOUND;
  const nns__aten_arg *lo = nns__aten_arg_of(c, "min"),
                      *hi = nns__aten_arg_of(c, "max");
  if ((lo && lo->kind == NNS__AA_TENSOR) || (hi && hi->kind == NNS__AA_TENSOR))
    return clip_tensors(c, x, mx);
  const char *ins[3] = {x, "", ""};
  static const char *const lo_names[] = {"min_val", "min"};
  static const char *const hi_names[] = {"max_val", "max"};
  bool relu6 = !strcmp(c->op, "relu6") || !strcmp(c->op, "relu6_");
  for (int side = 0; side < 2; side++) {
    double v = relu6 ? 6.0 * side : side ? 1 : -1;
    bool given = relu6 || !strcmp(c->op, "hardtanh") ||
                 !strcmp(c->op, "hardtanh_");
    for (int k = 0; k < 2 && !relu6; k++) {
      const nns__aten_arg *a =
          nns__aten_arg_of(c, side ? hi_names[k] : lo_names[k]);
      if (nns__aten_number(a, &v)) { /* clamp(x, False) too */
        given = true;
      } else if (a && a->kind == NNS__AA_INT) { /* a symbol: its value */
        v = (double)a->i;
        given = true;
      } else if (a && a->kind == NNS__AA_TENSOR) {
        return NNS_E_NOTFOUND;
      }
    }
    if (given && !(ins[1 + side] = nns__aten_scalar(c, v, mx->dtype)))
      return c->err->code;
  }
  size_t n = ins[2][0] ? 3 : ins[1][0] ? 2 : 1;
  return nns__aten_node(c, "Clip", "", ins, n, c->outs, 1);
}

/* where(condition, self, other); masked_fill(self, mask, value):
 * Where(mask, value, self). Numbers become scalars of the tensors'
 * dtype. */
static nns_status where(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  bool fill = strncmp(c->op, "masked_fill", 11) == 0;
  const nns__aten_arg *cond = nns__aten_arg_of(c, fill ? "mask" : "condition");
  const nns__aten_arg *a = nns__aten_arg_of(c, fill ? "value" : "self");
  const nns__aten_arg *b = nns__aten_arg_of(c, fill ? "self" : "other");
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!cond || cond->kind != NNS__AA_TENSOR || !a || !b || !mo)
    return NNS_E_NOTFOUND;
  const char *ins[3] = {cond->tensor, nns__aten_operand(c, a, mo->dtype),
                        nns__aten_operand(c, b, mo->dtype)};
  if (!ins[1] || !ins[2])
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  return nns__aten_node(c, "Where", "", ins, 3, c->outs, 1);
}

/* ==== Layout ==== */

/* The Transpose of x by perm[0..r) into the call's output; none for a
 * weight's 2-D transpose, which waits for what reads it (fold_t, aten.h). */
static nns_status transpose_to(nns__aten_call *c, const char *x,
                               const int64_t *perm, int r) {
  if (r == 2 && perm[0] == 1 && c->fold_t && c->n_outs == 1 && c->outs[0] &&
      c->fold_t(c->fe, c->outs[0], x) == NNS_OK)
    return NNS_OK;
  A_TRY(nns__aten_node(c, "Transpose", "", &x, 1, c->outs, 1));
  return nns_builder_attr_ints(c->b, "perm", perm, (size_t)r, c->err);
}

/* transpose(self, dim0, dim1), t(self), permute(self, dims). */
static nns_status transpose(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 0 || mx->rank > 16)
    return NNS_E_NOTFOUND;
  int r = mx->rank;
  int64_t perm[16];
  for (int k = 0; k < r; k++)
    perm[k] = k;
  if (!strcmp(c->op, "numpy_T")) { /* x.T: every dim reversed (a permute
                                     live) */
    for (int k = 0; k < r; k++)
      perm[k] = r - 1 - k;
    if (r < 2)
      return c->alias(c->fe, c->outs[0], x);
  } else if (!strcmp(c->op, "permute")) {
    const nns__aten_arg *d = nns__aten_arg_of(c, "dims");
    if (!d || d->kind != NNS__AA_INTS || d->n != r)
      return NNS_E_NOTFOUND;
    for (int k = 0; k < r; k++)
      perm[k] = (d->ints[k] % r + r) % r;
  } else if (r < 2) {
    return c->alias(c->fe, c->outs[0], x);
  } else {
    /* transpose and swapdims name them dim0/dim1, swapaxes axis0/axis1 */
    bool axes = nns__aten_arg_of(c, "axis0") != NULL;
    int64_t d0 = nns__aten_int(c, axes ? "axis0" : "dim0", r - 2);
    int64_t d1 = nns__aten_int(c, axes ? "axis1" : "dim1", r - 1);
    if (d0 < -r || d0 >= r || d1 < -r || d1 >= r)
      return NNS_E_NOTFOUND;
    d0 = (d0 + r) % r;
    d1 = (d1 + r) % r;
    perm[d0] = d1;
    perm[d1] = d0;
  }
  return transpose_to(c, x, perm, r);
}

/* An int or int-list argument's values over rank r, each in [0, r): their
 * count, or -1. */
static int dims_of(nns__aten_call *c, const char *name, int r,
                   int64_t *out) {
  const nns__aten_arg *a = nns__aten_arg_of(c, name);
  int n = !a ? -1
          : a->kind == NNS__AA_INT && !a->sym ? 1
          : a->kind == NNS__AA_INTS && a->n <= 16 ? a->n
                                                 : -1;
  for (int k = 0; k < n; k++) {
    if (a->kind == NNS__AA_INTS && a->syms && a->syms[k])
      return -1;
    int64_t v = a->kind == NNS__AA_INT ? a->i : a->ints[k];
    if (v < -r || v >= r)
      return -1;
    out[k] = (v + r) % r;
  }
  return n;
}

/* movedim(self, source, destination), kept whole by an archive: the
 * Transpose PyTorch's permute makes of it (source dims at their
 * destinations, the others in order in the places left). */
static nns_status movedim(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 1 || mx->rank > 16)
    return NNS_E_NOTFOUND;
  int r = mx->rank;
  int64_t src[16], dst[16], perm[16];
  int n = dims_of(c, "source", r, src);
  if (n < 0 || dims_of(c, "destination", r, dst) != n)
    return NNS_E_NOTFOUND;
  bool taken[16] = {false}, moved[16] = {false};
  for (int k = 0; k < r; k++)
    perm[k] = -1;
  for (int k = 0; k < n; k++) {
    if (taken[dst[k]] || moved[src[k]])
      return NNS_E_NOTFOUND;
    perm[dst[k]] = src[k];
    taken[dst[k]] = moved[src[k]] = true;
  }
  for (int k = 0, from = 0; k < r; k++) {
    if (perm[k] >= 0)
      continue;
    while (from < r && moved[from])
      from++;
    perm[k] = from++;
  }
  return transpose_to(c, x, perm, r);
}

/* einsum(equation, tensors), kept whole by an archive: one Einsum (its
 * MACs are the product of every index's size, as the matrix products
 * PyTorch runs it as; their FLOPs and bytes differ by the layout around
 * them). */
static nns_status einsum(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *eq = nns__aten_arg_of(c, "equation"),
                      *t = nns__aten_arg_of(c, "tensors");
  if (!eq || eq->kind != NNS__AA_STRING || !t ||
      t->kind != NNS__AA_TENSORS || t->n < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  for (int k = 0; k < t->n; k++)
    if (!t->tensors[k])
      return NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, "Einsum", "", t->tensors, (size_t)t->n, c->outs,
                       1));
  return nns__aten_attr_s(c, "equation", eq->s);
}

/* view, reshape, flatten, unsqueeze, squeeze, ...: a Reshape to the
 * output's sizes. A symbolic size is written as 0 (the input's own) where
 * the input has the same symbol at that position, else as -1 (once). */
static nns_status reshape(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = c->n_args > 0 && c->args[0].kind == NNS__AA_TENSOR
                      ? c->args[0].tensor
                      : NULL;
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  if (!x || !mx || !mo || mo->rank < 0 || mo->rank > 16)
    return NNS_E_NOTFOUND;
  int64_t shape[16];
  bool minus = false, zero = false, copied = false, spelled = true;
  for (int k = 0; k < mo->rank && spelled; k++) {
    if (mo->dims[k] >= 0) {
      shape[k] = mo->dims[k];
      zero = zero || shape[k] == 0;
    } else if (k < mx->rank && mx->dims[k] < 0 && mo->syms &&
               mo->syms[k] && mx->syms && mx->syms[k] &&
               !strcmp(mo->syms[k], mx->syms[k])) {
      shape[k] = 0;
      copied = true;
    } else if (!minus) {
      shape[k] = -1;
      minus = true;
    } else {
      spelled = false;
    }
  }
  if (spelled && zero && copied)
    return NNS_E_NOTFOUND; /* 0 cannot mean both */
  /* Sizes no constant spells (two symbols not at the input's places: a
   * flattened (s0*s1, N) viewed as (s0, s1, N)): the output's sizes as a
   * value made from the symbols (Shape, Gather, Concat). */
  c->err->code = NNS_OK;
  const char *ins[] = {x, spelled
                              ? nns__aten_const_ints(c, shape, mo->rank, false)
                              : nns__aten_reshape_value(c, mo)};
  if (!ins[1])
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, "Reshape", "", ins, 2, c->outs, 1));
  return zero ? nns_builder_attr_int(c->b, "allowzero", 1, c->err) : NNS_OK;
}

/* expand(self, size): Expand to the output's sizes; a symbolic size the
 * input has at the aligned position is written as 1 (broadcasting keeps
 * it). */
static nns_status expand(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  if (!x || !mx || !mo || mo->rank < mx->rank || mo->rank > 16)
    return NNS_E_NOTFOUND;
  int64_t shape[16];
  int lead = mo->rank - mx->rank;
  for (int k = 0; k < mo->rank; k++) {
    int kx = k - lead;
    if (mo->dims[k] >= 0)
      shape[k] = mo->dims[k];
    else if (kx >= 0 && mx->dims[kx] < 0 && mo->syms[k] && mx->syms[kx] &&
             !strcmp(mo->syms[k], mx->syms[kx]))
      shape[k] = 1;
    else
      shape[k] = -1;
  }
  bool known = true;
  for (int k = 0; k < mo->rank; k++)
    known = known && shape[k] >= 0;
  c->err->code = NNS_OK;
  const char *ins[] = {x, known ? nns__aten_const_ints(c, shape, mo->rank,
                                                       false)
                                : nns__aten_reshape_value(c, mo)};
  if (!ins[1] && !c->err->code)
    return NNS_E_NOTFOUND;
  if (!ins[1])
    return c->err->code;
  return nns__aten_node(c, "Expand", "", ins, 2, c->outs, 1);
}

/* cat(tensors, dim): Concat. */
static nns_status cat(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *t = nns__aten_arg_of(c, "tensors");
  if (!t || t->kind != NNS__AA_TENSORS || t->n < 1 || t->n > 1024)
    return NNS_E_NOTFOUND;
  /* PyTorch skips legacy empty 1-D tensors beside the others (a KV
   * cache's first step: cat([float32[0], x], -2)); all of them empty
   * still concatenate. */
  const char *kept[1024];
  size_t n = 0;
  for (int k = 0; k < t->n; k++) {
    if (!t->tensors[k])
      return NNS_E_NOTFOUND;
    const nns__aten_meta *m = A_META(c, t->tensors[k]);
    if (!(m && m->rank == 1 && m->dims[0] == 0))
      kept[n++] = t->tensors[k];
  }
  if (!n) {
    for (int k = 0; k < t->n; k++)
      kept[n++] = t->tensors[k];
  }
  A_TRY(nns__aten_node(c, "Concat", "", kept, n, c->outs, 1));
  return nns_builder_attr_int(c->b, "axis", nns__aten_int(c, "dim", 0),
                              c->err);
}

/* slice(self, dim, start, end, step): Slice with constant bounds. */
static nns_status slice(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 1)
    return NNS_E_NOTFOUND;
  const int64_t big = (int64_t)1 << 62;
  int64_t v[4] = {0, big, nns__aten_int(c, "dim", 0),
                  nns__aten_int(c, "step", 1)};
  static const char *const names[] = {"start", "end"};
  const char *ins[5] = {x};
  for (int k = 0; k < 2; k++) {
    const nns__aten_arg *a = nns__aten_arg_of(c, names[k]);
    if (a && a->kind == NNS__AA_INT && a->sym) {
      /* A bound that is a size (x[:seq]): the symbol's scalar. */
      c->err->code = NNS_OK;
      if (!(ins[1 + k] = nns__aten_int_value(c, a)))
        return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    } else if (a && a->kind == NNS__AA_INT) {
      v[k] = a->i > big ? big : a->i < -big ? -big : a->i;
    }
  }
  v[2] = (v[2] % mx->rank + mx->rank) % mx->rank;
  for (int k = 0; k < 4; k++)
    if (!ins[1 + k] && !(ins[1 + k] = nns__aten_const_ints(c, &v[k], 1, false)))
      return c->err->code;
  return nns__aten_node(c, "Slice", "", ins, 5, c->outs, 1);
}

/* select(self, dim, index): Gather of a scalar index. */
static nns_status select_(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *i = nns__aten_arg_of(c, "index");
  if (!x || !mx || mx->rank < 1 || !i || i->kind != NNS__AA_INT || i->sym)
    return NNS_E_NOTFOUND;
  const char *ins[] = {x, nns__aten_const_ints(c, &i->i, 1, true)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Gather", "", ins, 2, c->outs, 1));
  int64_t d = nns__aten_int(c, "dim", 0);
  return nns_builder_attr_int(c->b, "axis",
                              (d % mx->rank + mx->rank) % mx->rank, c->err);
}

/* triu / tril (self, diagonal): Trilu with its diagonal a constant. */
static nns_status trilu(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  int64_t k = nns__aten_int(c, "diagonal", 0);
  if (!x)
    return NNS_E_NOTFOUND;
  const char *ins[] = {x, nns__aten_const_ints(c, &k, 1, true)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Trilu", "", ins, 2, c->outs, 1));
  return nns_builder_attr_int(c->b, "upper", !strcmp(op->onnx, "Trilu(upper)"),
                              c->err);
}

/* embedding(weight, indices): Gather along rows. */
static nns_status embedding(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *ins[] = {A_T(c, "weight"), A_T(c, "indices")};
  if (!ins[0] || !ins[1])
    return NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, "Gather", "", ins, 2, c->outs, 1));
  return nns_builder_attr_int(c->b, "axis", 0, c->err);
}

/* to / _to_copy / type_as ...: a Cast to the output's dtype, or nothing
 * when it keeps the dtype (a device move, a copy). */
static nns_status to_copy(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = c->n_args > 0 && c->args[0].kind == NNS__AA_TENSOR
                      ? c->args[0].tensor
                      : NULL;
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  if (!x || !mx || !mo)
    return NNS_E_NOTFOUND;
  if (mx->dtype == mo->dtype)
    return c->alias(c->fe, c->outs[0], x);
  A_TRY(nns__aten_node(c, "Cast", "", &x, 1, c->outs, 1));
  return nns_builder_attr_int(c->b, "to", mo->dtype, c->err);
}

/* split / split_with_sizes / chunk (self, ..., dim): one Split whose
 * sizes are the outputs' own along the axis. */
static nns_status split(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 1 || c->n_outs < 1 || c->n_outs > 1024)
    return NNS_E_NOTFOUND;
  int64_t axis = nns__aten_int(c, "dim", 0);
  if (axis < -mx->rank || axis >= mx->rank)
    return NNS_E_NOTFOUND;
  axis = (axis + mx->rank) % mx->rank;
  int64_t sizes[1024];
  for (int k = 0; k < c->n_outs; k++) {
    const nns__aten_meta *mo = A_META(c, c->outs[k]);
    if (!c->outs[k] || !mo || mo->rank != mx->rank || mo->dims[axis] < 0)
      return NNS_E_NOTFOUND;
    sizes[k] = mo->dims[axis];
  }
  const char *ins[] = {x, nns__aten_const_ints(c, sizes, c->n_outs, false)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Split", "", ins, 2, c->outs, (size_t)c->n_outs));
  return nns_builder_attr_int(c->b, "axis", axis, c->err);
}

/* ne: Equal then Not (ONNX has no NotEqual), one kernel. */
static nns_status not_equal(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  if (c->n_outs < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  const char *final = c->outs[0], *eq = c->fresh(c->fe);
  nns__aten_call inner = *c;
  inner.outs = &eq;
  size_t first = *c->node_count;
  A_TRY(nns__aten_binary(&inner, "Equal"));
  A_TRY(nns__aten_node(c, "Not", "", &eq, 1, &final, 1));
  return nns__aten_kernel(c, first);
}

/* cumsum(self, dim): CumSum with its axis a constant. */
static nns_status cumsum(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  if (!x || !d || d->kind != NNS__AA_INT || d->sym)
    return NNS_E_NOTFOUND;
  const char *ins[] = {x, nns__aten_const_ints(c, &d->i, 1, true)};
  if (!ins[1])
    return c->err->code;
  return nns__aten_node(c, "CumSum", "", ins, 2, c->outs, 1);
}

/* x[i0, i1, ...] for integer index tensors (aten index): each
 * index as int64, expanded to their common shape where it has another, a
 * trailing axis added, stacked, and one GatherND over the indexed dims.
 * Dims indexed other than leading are moved to lead first (a Transpose of
 * x), as PyTorch does where they are apart; adjacent ones are moved back
 * in place after (a Transpose of the gathered). `dims`: the k indexed
 * dims, ascending; `at`: their index tensors. */
static nns_status gather_nd(nns__aten_call *c, const char *x,
                            const nns__aten_meta *mx, const int *dims,
                            const char *const *at, int k) {
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  int nb = mo ? mo->rank - (mx->rank - k) : -1;
  if (!mo || k > 16 || nb < 0 || nb > 15 || mx->rank > NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  bool leading = dims[k - 1] == k - 1;
  bool adjacent = dims[k - 1] - dims[0] == k - 1;
  /* where the broadcast dims sit in the output: in place of adjacent
   * indexed dims, else first */
  int b0 = adjacent ? dims[0] : 0;
  size_t first = *c->node_count; /* one kernel, as the recorder's rule */
  int64_t bshape[16];
  const char *bsyms[16];
  bool known = true;
  for (int d = 0; d < nb; d++) {
    bshape[d] = mo->dims[b0 + d];
    bsyms[d] = mo->syms ? mo->syms[b0 + d] : NULL;
    if (bshape[d] < 0 && !bsyms[d])
      return NNS_E_NOTFOUND;
    known = known && bshape[d] >= 0;
  }
  if (!leading && !known)
    return NNS_E_NOTFOUND; /* the rule's sizes are numbers */
  if (!leading) {
    /* the indexed dims first, the others after in order */
    int64_t perm[NNS__ATEN_R_MAX];
    int n = 0;
    for (int j = 0; j < k; j++)
      perm[n++] = dims[j];
    for (int d = 0, j = 0; d < mx->rank; d++)
      if (j < k && dims[j] == d)
        j++;
      else
        perm[n++] = d;
    const char *xt = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Transpose", "", &x, 1, &xt, 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, n, c->err));
    x = xt;
  }
  bshape[nb] = 1;
  /* the broadcast sizes: a constant, or (a symbolic batch or sequence)
   * a value made from the symbols' sizes, before the nodes below */
  const char *bvalue = NULL;
  if (!known) {
    nns__aten_meta bm = {NNS_DT_INT64, nb, bshape, bsyms, false, false};
    c->err->code = NNS_OK;
    if (!(bvalue = nns__aten_shape_value(c, &bm)))
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  }
  const char *parts[16];
  int64_t minus1 = -1;
  for (int j = 0; j < k; j++) {
    const char *t = at[j];
    const nns__aten_meta *mt = A_META(c, t);
    if (!mt || mt->dtype == NNS_DT_BOOL || !(mt->dtype == NNS_DT_INT64 ||
                                             mt->dtype == NNS_DT_INT32))
      return NNS_E_NOTFOUND;
    if (mt->dtype != NNS_DT_INT64) {
      const char *cast = c->fresh(c->fe);
      A_TRY(nns__aten_node(c, "Cast", "", &t, 1, &cast, 1));
      A_TRY(nns_builder_attr_int(c->b, "to", NNS_DT_INT64, c->err));
      t = cast;
    }
    /* expanded only where its sizes are not the broadcast ones already
     * (no Expand node that changes nothing) */
    bool same = mt->rank == nb;
    for (int d = 0; same && d < nb; d++)
      same = mt->dims[d] == bshape[d] &&
             (bshape[d] >= 0 || (mt->syms && mt->syms[d] && bsyms[d] &&
                                 !strcmp(mt->syms[d], bsyms[d])));
    const char *ex = t;
    if (!same) {
      ex = c->fresh(c->fe);
      const char *eins[] = {t, bvalue ? bvalue
                                      : nns__aten_const_ints(c, bshape, nb,
                                                             false)};
      if (!eins[1])
        return c->err->code;
      A_TRY(nns__aten_node(c, "Expand", "", eins, 2, &ex, 1));
    }
    const char *un = c->fresh(c->fe);
    const char *uins[] = {ex, nns__aten_const_ints(c, &minus1, 1, false)};
    if (!uins[1])
      return c->err->code;
    A_TRY(nns__aten_node(c, "Unsqueeze", "", uins, 2, &un, 1));
    parts[j] = un;
  }
  const char *stacked = parts[0];
  if (k > 1) {
    stacked = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Concat", "", parts, (size_t)k, &stacked, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", -1, c->err));
  }
  const char *gins[] = {x, stacked};
  if (!adjacent || b0 == 0) {
    A_TRY(nns__aten_node(c, "GatherND", "", gins, 2, c->outs, 1));
    return nns__aten_kernel(c, first);
  }
  /* gathered: the broadcast dims, then x's others; moved back after the
   * b0 dims before them */
  const char *got = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "GatherND", "", gins, 2, &got, 1));
  int64_t back[NNS__ATEN_R_MAX];
  int n = 0;
  for (int d = 0; d < b0; d++)
    back[n++] = nb + d;
  for (int d = 0; d < nb; d++)
    back[n++] = d;
  for (int d = nb + b0; d < mo->rank; d++)
    back[n++] = d;
  A_TRY(nns__aten_node(c, "Transpose", "", &got, 1, c->outs, 1));
  A_TRY(nns_builder_attr_ints(c->b, "perm", back, n, c->err));
  return nns__aten_kernel(c, first);
}

/* x[mask], a boolean mask over x's leading dims: x flattened over those
 * dims, and a Gather of as many rows as PyTorch selected (the output's
 * first size: which rows is data, how many is in the recorded sizes;
 * the positions a constant known by its shape alone). */
static nns_status masked_rows(nns__aten_call *c, const char *x,
                              const nns__aten_meta *mx,
                              const nns__aten_meta *mm) {
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  int lead = mm->rank, n = 1 + mx->rank - lead;
  if (!mo || lead < 1 || lead > mx->rank || mx->rank > NNS__ATEN_R_MAX ||
      mo->rank != n || mo->dims[0] < 0)
    return NNS_E_NOTFOUND;
  int64_t flat[NNS__ATEN_R_MAX];
  /* (sizes known, their product bounded: nns__aten_prod) */
  if ((flat[0] = nns__aten_prod(mx->dims, lead)) < 0 ||
      nns__aten_prod(mx->dims, mx->rank) < 0)
    return NNS_E_NOTFOUND;
  for (int d = lead; d < mx->rank; d++)
    flat[1 + d - lead] = mx->dims[d];
  size_t first = *c->node_count;
  const char *rows = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, x, flat, n, rows));
  const char *ins[] = {rows, nns__aten_filler(c, NNS_DT_INT64, 1, mo->dims)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Gather", "", ins, 2, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", 0, c->err));
  return nns__aten_kernel(c, first);
}

/* index(self, indices): one integer index tensor (after leading Nones) is
 * a Gather along its axis; several a GatherND (gather_nd); one boolean
 * mask over the leading dims the rows it picks (masked_rows); other masks
 * stay uncounted here. */
static nns_status index_(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *ix = nns__aten_arg_of(c, "indices");
  if (!x || !mx || !ix || ix->kind != NNS__AA_TENSORS || ix->n < 1 ||
      ix->n > mx->rank || ix->n > 16 || !c->outs[0])
    return NNS_E_NOTFOUND;
  int at = -1, used = 0, dims[16];
  const char *tensors[16];
  for (int k = 0; k < ix->n && k < 16; k++)
    if (ix->tensors[k]) {
      at = at < 0 ? k : at;
      dims[used] = k;
      tensors[used++] = ix->tensors[k];
    }
  if (used > 1)
    return gather_nd(c, x, mx, dims, tensors, used);
  const nns__aten_meta *mi = at >= 0 ? A_META(c, ix->tensors[at]) : NULL;
  if (at < 0 || !mi)
    return NNS_E_NOTFOUND;
  if (mi->dtype == NNS_DT_BOOL && ix->n == 1)
    return masked_rows(c, x, mx, mi);
  if (mi->dtype == NNS_DT_BOOL || mi->dtype == NNS_DT_UINT8)
    return NNS_E_NOTFOUND; /* a mask: not a Gather */
  const char *ins[] = {x, ix->tensors[at]};
  A_TRY(nns__aten_node(c, "Gather", "", ins, 2, c->outs, 1));
  return nns_builder_attr_int(c->b, "axis", at, c->err);
}

/* diff(self, n=1, dim=-1, prepend, append): as PyTorch decomposes it,
 * the three concatenated along dim, then the later elements minus the
 * earlier (Slice, Slice, Sub; Xor for bool). */
static nns_status diff(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  if (!x || !mx || !mo || mx->rank < 1 || nns__aten_int(c, "n", 1) != 1)
    return NNS_E_NOTFOUND;
  int64_t dim = nns__aten_int(c, "dim", -1);
  if (dim < -mx->rank || dim >= mx->rank)
    return NNS_E_NOTFOUND;
  dim = (dim + mx->rank) % mx->rank;
  const char *pre = A_T(c, "prepend"), *app = A_T(c, "append");
  const char *all = x;
  if (pre || app) {
    const char *ins[3];
    size_t n = 0;
    if (pre)
      ins[n++] = pre;
    ins[n++] = x;
    if (app)
      ins[n++] = app;
    all = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Concat", "", ins, n, &all, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", dim, c->err));
  }
  const int64_t big = (int64_t)1 << 62;
  int64_t bounds[2][2] = {{1, big}, {0, -1}}, one = 1;
  const char *half[2];
  for (int h = 0; h < 2; h++) {
    const char *ins[5] = {all, nns__aten_const_ints(c, &bounds[h][0], 1, false),
                          nns__aten_const_ints(c, &bounds[h][1], 1, false),
                          nns__aten_const_ints(c, &dim, 1, false),
                          nns__aten_const_ints(c, &one, 1, false)};
    if (!ins[1] || !ins[2] || !ins[3] || !ins[4])
      return c->err->code;
    half[h] = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Slice", "", ins, 5, &half[h], 1));
  }
  return nns__aten_node(c, mo->dtype == NNS_DT_BOOL ? "Xor" : "Sub", "", half,
                        2, c->outs, 1);
}

/* ==== Attention ==== */

/* A grouped view of x for grouped-query attention: Reshape(x, dims). */
static const char *grouped(nns__aten_call *c, const char *x,
                           const int64_t *dims, int n) {
  const char *out = c->fresh(c->fe);
  return out && nns__aten_reshape_to(c, x, dims, n, out) == NNS_OK ? out
                                                                   : NULL;
}

/* Whether every size of m is known. */
static bool sized(const nns__aten_meta *m) {
  int64_t dims[NNS__ATEN_R_MAX];
  return nns__aten_known(m, dims);
}

/* The sizes of x (rank r) with its head axis (r - 3) split in two:
 * [..., a, b, x's last two]; the rank, r + 1. */
static int split_heads(const nns__aten_meta *m, int64_t a, int64_t b,
                       int64_t *dims) {
  int r = m->rank;
  for (int d = 0; d < r - 3; d++)
    dims[d] = m->dims[d];
  dims[r - 3] = a;
  dims[r - 2] = b;
  dims[r - 1] = m->dims[r - 2];
  dims[r] = m->dims[r - 1];
  return r + 1;
}

/* scaled_dot_product_attention(query, key, value, attn_mask, dropout_p,
 * is_causal, scale, enable_gqa): softmax(q k^T * scale + mask) v as
 * Transpose, MatMul, Mul, Add, Softmax, MatMul, one kernel (PyTorch's fused
 * attention call). Fewer key/value heads than query heads (grouped-query
 * attention, enable_gqa's, and one head for all, Falcon's multi-query): the
 * query heads grouped by the key/value head they share, [..., Hkv, G, L,
 * E], against keys and values [..., Hkv, 1, S, E] (a mask of query heads
 * [..., Hkv, G, L, S], of fewer [..., Mh, 1, L, S]), so the MatMuls
 * broadcast over the group as the fused kernels do, with no copy of k and
 * v, the output Reshape'd back (nns__aten_reshape_to: allowzero where a
 * size is 0, as every Reshape the table makes). A boolean mask is first
 * made additive at its own sizes, as PyTorch does before the fused kernel
 * it runs (convert_boolean_attn_mask: where(mask, 0, -inf), a kernel of its
 * own); the live recording sees that Where and the kernel's Add. */
static nns_status sdpa(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *q = A_T(c, "query"), *k = A_T(c, "key"), *v = A_T(c, "value");
  const char *mask = A_T(c, "attn_mask");
  if (c->n_outs < 1)
    return NNS_E_NOTFOUND;
  const nns__aten_meta *mq = A_META(c, q), *mk = A_META(c, k),
                       *mv = A_META(c, v), *mo = A_META(c, c->outs[0]);
  if (!q || !k || !v || !mq || !mk || mq->rank < 2 || mk->rank != mq->rank ||
      mq->rank > NNS__ATEN_R_MAX - 1)
    return NNS_E_NOTFOUND;
  int r = mq->rank;
  int64_t hq = r >= 3 ? mq->dims[r - 3] : 1, hkv = r >= 3 ? mk->dims[r - 3] : 1;
  /* grouped where the heads are known and differ; heads that do not
   * divide are no attention PyTorch runs */
  bool group = r >= 3 && hq >= 0 && hkv >= 0 && hq != hkv;
  if (group && (hkv == 0 || hq % hkv != 0))
    return NNS_E_NOTFOUND;
  const nns__aten_meta *mm = A_META(c, mask);
  int64_t od[NNS__ATEN_R_MAX];
  if (group && !(sized(mq) && sized(mk) && sized(mv) && mv->rank == r &&
                 nns__aten_known(mo, od) && (!mask || sized(mm)))) {
    /* sizes a Reshape cannot be given (an archive's symbols): one
     * key/value head for all broadcasts as the math path's MatMuls run
     * it, other groups are not lowered */
    if (hkv != 1)
      return NNS_E_NOTFOUND;
    group = false;
  }
  int64_t e = mq->dims[r - 1];
  const nns__aten_arg *sa = nns__aten_arg_of(c, "scale");
  double scale = sa && sa->kind == NNS__AA_FLOAT ? sa->f
                 : e > 0                          ? 1.0 / sqrt((double)e)
                                                  : NAN;
  if (isnan(scale))
    return NNS_E_NOTFOUND;
  bool causal = nns__aten_bool(c, "is_causal", false);
  if (mask && mm && mm->dtype == NNS_DT_BOOL) {
    const char *add = c->fresh(c->fe);
    const char *ins[] = {mask, nns__aten_scalar(c, 0.0, mq->dtype),
                         nns__aten_scalar(c, -INFINITY, mq->dtype)};
    if (!add || !ins[1] || !ins[2])
      return c->err->code ? c->err->code : NNS_E_NOMEM;
    A_TRY(nns__aten_node(c, "Where", "", ins, 3, &add, 1));
    mask = add;
  }
  size_t first = *c->node_count;
  int rg = r; /* the rank the products run at */
  if (group) {
    int64_t dims[NNS__ATEN_R_MAX];
    rg = split_heads(mq, hkv, hq / hkv, dims);
    q = grouped(c, q, dims, rg);
    split_heads(mk, hkv, 1, dims);
    k = q ? grouped(c, k, dims, rg) : NULL;
    split_heads(mv, hkv, 1, dims);
    v = k ? grouped(c, v, dims, rg) : NULL;
    if (!v)
      return c->err->code ? c->err->code : NNS_E_NOMEM;
    if (mask && mm && mm->rank >= 3 && mm->rank < NNS__ATEN_R_MAX) {
      int64_t mh = mm->dims[mm->rank - 3];
      split_heads(mm, mh == hq ? hkv : mh, mh == hq ? hq / hkv : 1, dims);
      if (!(mask = grouped(c, mask, dims, mm->rank + 1)))
        return c->err->code ? c->err->code : NNS_E_NOMEM;
    }
  }
  int64_t perm[NNS__ATEN_R_MAX];
  for (int a = 0; a < rg; a++)
    perm[a] = a;
  perm[rg - 1] = rg - 2;
  perm[rg - 2] = rg - 1;
  const char *kt = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "Transpose", "", &k, 1, &kt, 1));
  A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)rg, c->err));
  const char *scores = c->fresh(c->fe);
  const char *mm1[] = {q, kt};
  A_TRY(nns__aten_node(c, "MatMul", "", mm1, 2, &scores, 1));
  const char *scaled = c->fresh(c->fe);
  const char *mul[] = {scores, nns__aten_scalar(c, scale, mq->dtype)};
  if (!mul[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Mul", "", mul, 2, &scaled, 1));
  if (mask || causal) {
    const char *masked = c->fresh(c->fe);
    int64_t ls[2] = {mq->dims[r - 2], mk->dims[r - 2]};
    if (ls[0] < 0 || ls[1] < 0)
      ls[0] = ls[1] = 1; /* broadcast: the same count per score */
    const char *ins[] = {scaled,
                         mask ? mask : nns__aten_filler(c, mq->dtype, 2, ls)};
    if (!ins[1])
      return c->err->code;
    A_TRY(nns__aten_node(c, "Add", "", ins, 2, &masked, 1));
    scaled = masked;
  }
  const char *probs = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "Softmax", "", &scaled, 1, &probs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", -1, c->err));
  const char *mm2[] = {probs, v};
  if (!group) {
    A_TRY(nns__aten_node(c, "MatMul", "", mm2, 2, c->outs, 1));
    return nns__aten_kernel(c, first);
  }
  const char *out = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "MatMul", "", mm2, 2, &out, 1));
  A_TRY(nns__aten_reshape_to(c, out, od, mo->rank, c->outs[0]));
  return nns__aten_kernel(c, first);
}

/* square(self): pow(self, 2), as PyTorch runs it (a Pow by a scalar 2
 * of self's dtype). */
static nns_status square(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  if (!x)
    return NNS_E_NOTFOUND;
  nns__aten_arg args[2] = {
      {.name = "self", .kind = NNS__AA_TENSOR, .tensor = x},
      {.name = "exponent", .kind = NNS__AA_INT, .i = 2}};
  nns__aten_call pc = *c;
  pc.args = args;
  pc.n_args = 2;
  return nns__aten_binary(&pc, "Pow");
}

/* ==== The table ==== */

/* Sorted by name (nns__aten_find bisects each family's table; a unit test
 * checks the order). */
static const nns__aten_op table[] = {
    BIN("__and__", "And"),
    BIN("__or__", "Or"),
    RULE("_native_batch_norm_legit_no_training", "BatchNormalization",
         batch_norm),
    RULE("_reshape_alias", "Reshape", reshape),
    RULE("_softmax", "Softmax", nns__aten_softmax),
    RULE("_to_copy", "Cast", to_copy),
    RULE("_unsafe_view", "Reshape", reshape),
    UN("abs", "Abs"),
    RULE("adaptive_avg_pool1d", "GlobalAveragePool/AveragePool",
         adaptive_pool),
    RULE("adaptive_avg_pool2d", "GlobalAveragePool/AveragePool",
         adaptive_pool),
    RULE("adaptive_avg_pool3d", "GlobalAveragePool/AveragePool",
         adaptive_pool),
    BIN("add", "Add"),
    RULE("addmm", "Gemm", addmm),
    ALIAS("alias"),
    CREATE("arange"),
    RULE("avg_pool1d", "AveragePool", nns__aten_pool),
    RULE("avg_pool2d", "AveragePool", nns__aten_pool),
    RULE("avg_pool3d", "AveragePool", nns__aten_pool),
    RULE("batch_norm", "BatchNormalization", batch_norm),
    BIN("bitwise_and", "And"),
    UN("bitwise_not", "Not"),
    BIN("bitwise_or", "Or"),
    RULE("bmm", "MatMul", nns__aten_matmul),
    RULE("cat", "Concat", cat),
    UN("ceil", "Ceil"),
    RULE("chunk", "Split", split),
    RULE("clamp", "Clip", clip),
    ALIAS("clone"),
    RULE("concat", "Concat", cat),
    ALIAS("contiguous"),
    RULE("conv1d", "Conv", conv),
    RULE("conv2d", "Conv", conv),
    RULE("conv3d", "Conv", conv),
    RULE("conv_transpose1d", "ConvTranspose", conv),
    RULE("conv_transpose2d", "ConvTranspose", conv),
    RULE("convolution", "Conv/ConvTranspose", conv),
    UN("cos", "Cos"),
    RULE("cumsum", "CumSum", cumsum),
    ALIAS("detach"),
    RULE("diff", "Concat, Slice, Slice, Sub", diff),
    BIN("div", "Div"),
    RULE("einsum", "Einsum", einsum),
    RULE("embedding", "Gather", embedding),
    CREATE("empty"),
    CREATE("empty_like"),
    BIN("eq", "Equal"),
    UN("erf", "Erf"),
    UN("exp", "Exp"),
    RULE("expand", "Expand", expand),
    RULE("expand_as", "Expand", expand),
    ALIAS("feature_dropout"),
    RULE("flatten", "Reshape", reshape),
    UN("floor", "Floor"),
    CREATE("full"),
    CREATE("full_like"),
    BIN("ge", "GreaterOrEqual"),
    RULE("gelu", "Gelu (com.microsoft)", gelu),
    BIN("gt", "Greater"),
    RULE("hardsigmoid", "HardSigmoid", hardsigmoid),
    UN("hardswish", "HardSwish"),
    RULE("hardtanh", "Clip", clip),
    RULE("index", "Gather / GatherND", index_),
    RULE("layer_norm", "LayerNormalization", layer_norm),
    BIN("le", "LessOrEqual"),
    ALIAS("lift_fresh_copy"),
    RULE("linear", "Gemm / Reshape+Gemm+Reshape", linear),
    UN("log", "Log"),
    RULE("log_softmax", "LogSoftmax", nns__aten_softmax),
    BIN("logical_and", "And"),
    UN("logical_not", "Not"),
    BIN("logical_or", "Or"),
    BIN("lt", "Less"),
    RULE("masked_fill", "Where", where),
    RULE("matmul", "MatMul", nns__aten_matmul),
    RULE("max_pool1d", "MaxPool", nns__aten_pool),
    RULE("max_pool2d", "MaxPool", nns__aten_pool),
    RULE_UNWRITTEN_1("max_pool2d_with_indices", "MaxPool", nns__aten_pool),
    RULE("max_pool3d", "MaxPool", nns__aten_pool),
    BIN("maximum", "Max"),
    RULE("mean", "ReduceMean", reduce),
    BIN("minimum", "Min"),
    RULE("mm", "MatMul", nns__aten_matmul),
    RULE("movedim", "Transpose", movedim),
    BIN("mul", "Mul"),
    RULE("native_layer_norm", "LayerNormalization", layer_norm),
    RULE("ne", "Equal+Not", not_equal),
    UN("neg", "Neg"),
    CREATE("new_ones"),
    CREATE("new_zeros"),
    RULE("numpy_T", "Transpose", transpose),
    CREATE("ones"),
    CREATE("ones_like"),
    RULE("permute", "Transpose", transpose),
    BIN("pow", "Pow"),
    UN("reciprocal", "Reciprocal"),
    UN("relu", "Relu"),
    RULE("relu6", "Clip", clip),
    RULE("reshape", "Reshape", reshape),
    RULE("reshape_as", "Reshape", reshape),
    RULE("rsqrt", "Sqrt+Reciprocal", two_step),
    RULE("rsub", "Sub", rsub),
    CREATE("scalar_tensor"),
    RULE("scaled_dot_product_attention", "MatMul, Mul, Softmax, MatMul",
         sdpa),
    RULE("select", "Gather", select_),
    UN("sigmoid", "Sigmoid"),
    RULE("silu", "Sigmoid+Mul", two_step),
    UN("sin", "Sin"),
    RULE("slice", "Slice", slice),
    RULE("softmax", "Softmax", nns__aten_softmax),
    RULE("split", "Split", split),
    RULE("split_with_sizes", "Split", split),
    UN("sqrt", "Sqrt"),
    RULE("square", "Pow", square),
    RULE("squeeze", "Reshape", reshape),
    BIN("sub", "Sub"),
    RULE("sum", "ReduceSum", reduce),
    RULE("swapaxes", "Transpose", transpose),
    RULE("swapdims", "Transpose", transpose),
    RULE("t", "Transpose", transpose),
    UN("tanh", "Tanh"),
    RULE("to", "Cast", to_copy),
    RULE("transpose", "Transpose", transpose),
    RULE("tril", "Trilu(lower)", trilu),
    RULE("triu", "Trilu(upper)", trilu),
    RULE("type_as", "Cast", to_copy),
    RULE("unflatten", "Reshape", reshape),
    RULE("unsqueeze", "Reshape", reshape),
    RULE("view", "Reshape", reshape),
    RULE("view_as", "Reshape", reshape),
    RULE("where", "Where", where),
    CREATE("zeros"),
    CREATE("zeros_like"),
};

static const nns__aten_family core = {table, sizeof table / sizeof table[0]};

/* The families, each a sorted table of its own: this file's (matrix
 * products, convolution, norms, pools, layout, attention) and
 * aten_math.c's (element-wise math, activations, reductions, losses,
 * random and creation ops, forward and backward), aten_shape.c's
 * (layout, indexing, scatter/gather, sorting and search) and aten_nn.c's
 * (convolution and norm variants, pooling, resizing, padding, attention
 * variants, fused transformer kernels, backward kernels) and
 * aten_export.c's (composite ops torch.export keeps, lowered as their
 * decomposition). A new family is one line here. */
static const nns__aten_family *const families[] = {
    &core,
    &nns__aten_math,
    &nns__aten_shape,
    &nns__aten_nn,
    &nns__aten_export,
    &nns__aten_complex,
};

enum { N_FAMILIES = sizeof families / sizeof families[0] };

const nns__aten_family *nns__aten_family_at(size_t i) {
  return i < N_FAMILIES ? families[i] : NULL;
}

const nns__aten_op *nns__aten_entry(size_t k) {
  for (size_t f = 0; f < N_FAMILIES; f++) {
    if (k < families[f]->count)
      return &families[f]->ops[k];
    k -= families[f]->count;
  }
  return NULL;
}

const char *nns_aten_op(size_t i, const char **lowers_to) {
  const nns__aten_op *e = nns__aten_entry(i);
  if (lowers_to)
    *lowers_to = e ? e->onnx : NULL;
  return e ? e->name : NULL;
}

/* Bisects one family's sorted table. */
static const nns__aten_op *find_in(const nns__aten_family *fam,
                                   const char *base) {
  size_t lo = 0, hi = fam->count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int cmp = strcmp(fam->ops[mid].name, base);
    if (cmp == 0)
      return &fam->ops[mid];
    if (cmp < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

const nns__aten_op *nns__aten_find(const char *op) {
  char base[96];
  size_t n = strlen(op);
  if (n == 0 || n >= sizeof base)
    return NULL;
  memcpy(base, op, n + 1);
  /* In-place variants (relu_, add_) share their op's entry; the dunder
   * names (__and__) have none. */
  if (n > 1 && base[n - 1] == '_' && base[n - 2] != '_')
    base[n - 1] = '\0';
  for (size_t f = 0; f < N_FAMILIES; f++) {
    const nns__aten_op *e = find_in(families[f], base);
    if (e)
      return e;
  }
  return NULL;
}

nns_status nns__aten_lower(nns__aten_call *c, const nns__aten_op *e) {
  const char *x = NULL;
  for (int32_t k = 0; k < c->n_args && !x; k++)
    if (c->args[k].kind == NNS__AA_TENSOR)
      x = c->args[k].tensor;
  if (e->form == NNS__AF_RULE || e->form == NNS__AF_BINARY ||
      e->form == NNS__AF_UNARY) {
    bool done;
    nns_status st = nns__aten_lower_complex(c, e, &done);
    if (done || st != NNS_OK)
      return st;
  }
  switch (e->form) {
  case NNS__AF_UNARY:
    if (!x || c->n_outs < 1 || !c->outs[0])
      return NNS_E_NOTFOUND;
    return nns__aten_node(c, e->onnx, "", &x, 1, c->outs, 1);
  case NNS__AF_BINARY:
    return nns__aten_binary(c, e->onnx);
  case NNS__AF_ALIAS:
    if (c->n_outs < 1 || !c->outs[0])
      return NNS_OK;
    return x ? c->alias(c->fe, c->outs[0], x) : NNS_E_NOTFOUND;
  case NNS__AF_CREATE:
    return nns__aten_create(c);
  default:
    return e->rule(c, e);
  }
}
