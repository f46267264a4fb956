/*
 * quant.c - linear quantization: QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear. (The quantized compute ops, QLinearConv,
 * QLinearMatMul, ConvInteger and MatMulInteger, live with their float
 * counterparts in conv.c and gemm.c.)
 *
 * The outputs keep the input's shape; what this file checks is that the
 * scale and zero point fit it: one element (per-tensor), or - opset 13 on -
 * a 1-D tensor as long as the input's `axis` (per-axis). DequantizeLinear
 * folds, since quantized models often store small constants (biases,
 * shape-related tensors) as integers behind a DequantizeLinear.
 *
 * Costs (docs/metrics.md), per element of the input, as the ONNX formulas
 * read: QuantizeLinear y = saturate(round(x / scale) + zero_point) is 5
 * FLOPs (divide, round, add, and the saturation as a Clip's 2);
 * DequantizeLinear y = (x - zero_point) * scale is 2 (1 without a zero
 * point). DMAs: every input (scale and zero point included) plus the
 * output, as element-wise ops.
 */
#include <math.h>

#include "op.h"

/* ==== Scale / zero point checks ==== */

/*
 * Checks that input i (a scale or zero point) is one element or, when
 * per-axis is allowed, a 1-D tensor as long as x's dim `axis`. Sets *axis
 * to the normalised axis (-1 for per-tensor).
 */
static nns_status check_param(nns__ictx *cx, int i, bool per_axis_ok,
                              int32_t *axis) {
  const nns__type *p = nns__in_type(cx, i), *x = nns__in_type(cx, 0);
  if (!p || p->rank < 0)
    return NNS_OK;
  const char *what = i == 1 ? "scale" : "zero point";
  int64_t n = nns__in_numel(cx, i);
  /* One element broadcasts along any axis, even one x does not have
   * (onnx's float8 QuantizeLinear cases: a [1] zero point, 1-D x, the
   * default axis 1). */
  if (p->rank == 0 || (p->rank == 1 && n == 1))
    return NNS_OK;
  if (!per_axis_ok || p->rank > 1)
    return nns__fail(cx, NNS_E_SHAPE,
                     "the %s must be a scalar%s, it has rank %d", what,
                     per_axis_ok ? " or 1-D" : "", p->rank);
  if (!x || x->rank < 0)
    return NNS_OK;
  int32_t a;
  nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank,
                                    &a, "axis");
  if (st != NNS_OK)
    return st;
  nns__dim want = x->dims[a], got = p->dims[0];
  if (!want.sym && !got.sym && want.v != got.v && got.v != 1)
    return nns__fail(cx, NNS_E_SHAPE,
                     "per-axis %s has %lld elements, axis %d of the input "
                     "has %lld",
                     what, (long long)got.v, a, (long long)want.v);
  *axis = a;
  return NNS_OK;
}

static nns_status check_params(nns__ictx *cx, int32_t *axis) {
  bool per_axis = cx->opset >= 13;
  *axis = -1;
  /* Blocked quantization (opset 21's block_size): the scale has x's rank
   * with one element per block along `axis`; not a per-axis vector. */
  if (nns__spec_has(cx, "block_size") && nns__attr_int(cx, "block_size") > 0)
    return NNS_OK;
  int32_t za = -1;
  nns_status st = check_param(cx, 1, per_axis, axis);
  if (st == NNS_OK && nns__has_in(cx, 2))
    st = check_param(cx, 2, per_axis, &za);
  return st;
}

/* ==== QuantizeLinear / DequantizeLinear ==== */

/* Both outputs: x's shape, in opset 21's output_dtype when it names one,
 * else in `dt` (0 when the input it is read from has an unknown dtype). */
static nns_status quant_out(nns__ictx *cx, int32_t dt) {
  int32_t axis;
  nns_status st = check_params(cx, &axis);
  if (st != NNS_OK)
    return st;
  int64_t want = nns__spec_has(cx, "output_dtype")
                     ? nns__attr_int(cx, "output_dtype")
                     : 0;
  if (want > 0 && want <= NNS_DT_INT2)
    dt = (int32_t)want;
  nns__out_like(cx, 0, 0, 0);
  if (nns__has_out(cx, 0))
    cx->node->out[0]->type.dtype = dt;
  return NNS_OK;
}

/* The zero point's dtype; without one, uint8. */
static nns_status quantize_shape(nns__ictx *cx) {
  return quant_out(cx, nns__has_in(cx, 2) ? nns__in_dtype(cx, 2)
                                          : NNS_DT_UINT8);
}

/* float32 up to opset 18; from 19 the scale's dtype (float16, bfloat16). */
static nns_status dequantize_shape(nns__ictx *cx) {
  return quant_out(cx, cx->op->since >= 19 ? nns__in_dtype(cx, 1)
                                           : NNS_DT_FLOAT);
}

/* y = (x - zero_point) * scale, per tensor or per `axis`. */
static nns_status dequantize_fold(nns__ictx *cx) {
  const nns__const *x = nns__in_const(cx, 0), *s = nns__in_const(cx, 1);
  const nns__const *z = nns__has_in(cx, 2) ? nns__in_const(cx, 2) : NULL;
  if (!x || !s || !x->i || !s->f || (nns__has_in(cx, 2) && (!z || !z->i)))
    return NNS__NOFOLD;
  int32_t axis = -1;
  if (s->numel > 1 && check_params(cx, &axis) != NNS_OK)
    return NNS__NOFOLD;
  const nns__type *tx = nns__in_type(cx, 0);
  if (s->numel > 1 && axis < 0)
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  if (!y || !y->f)
    return NNS__NOFOLD;
  int64_t inner = 1;
  for (int32_t k = axis + 1; axis >= 0 && k < tx->rank; k++)
    inner *= tx->dims[k].v; /* bounded: the product is <= numel */
  for (int64_t e = 0; e < y->numel; e++) {
    int64_t c = axis >= 0 ? (e / inner) % tx->dims[axis].v : 0;
    int64_t sc = s->numel > 1 ? c : 0, zc = z && z->numel > 1 ? c : 0;
    if (x->i[e].sym || (z && (zc >= z->numel || z->i[zc].sym)) ||
        sc >= s->numel)
      return NNS__NOFOLD;
    double zero = z ? (double)z->i[zc].v : 0.0;
    y->f[e] = ((double)x->i[e].v - zero) * s->f[sc];
  }
  return NNS_OK;
}

/* ==== DynamicQuantizeLinear ==== */

static nns_status dynamic_quantize_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, NNS_DT_UINT8);
  nns__out_shape(cx, 1, NNS_DT_FLOAT, 0);
  nns__out_shape(cx, 2, NNS_DT_UINT8, 0);
  return NNS_OK;
}

/* ==== Costs ==== */

static nns_status quantize_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, 5);
}

static nns_status dequantize_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, nns__has_in(cx, 2) ? 2 : 1);
}

/*
 * DynamicQuantizeLinear: one pass for the range (a min and a max per
 * element, 2n), the scalar scale and zero point (min(0, lo), max(0, hi),
 * (hi - lo) / 255, round(-lo / scale) and its saturation: 9 FLOPs), and a
 * QuantizeLinear pass (5n, the zero point already saturated still added).
 * DMAs: the input is read twice (range, then quantize), the outputs
 * written once.
 */
static nns_status dynamic_quantize_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n = nns__in_count(cx, c, 0);
  if (n < 0)
    return NNS__UNCOUNTED;
  c->flops = nns__cadd(c, nns__cmul(c, 7, n), 9);
  c->macs = 0;
  c->dmas = nns__cadd(c, nns__cmul(c, 3, n), 2);
  return NNS_OK;
}

/* ==== Table ==== */

static const nns__attr_spec axis_attrs[] = {NNS__A_INT("axis", 1),
                                            NNS__A_END};
static const nns__attr_spec q19_attrs[] = {
    NNS__A_INT("axis", 1), NNS__A_INT("saturate", 1), NNS__A_END};
static const nns__attr_spec q21_attrs[] = {
    NNS__A_INT("axis", 1), NNS__A_INT("block_size", 0),
    NNS__A_INT("output_dtype", 0), NNS__A_INT("saturate", 1), NNS__A_END};
static const nns__attr_spec q23_attrs[] = {
    NNS__A_INT("axis", 1), NNS__A_INT("block_size", 0),
    NNS__A_INT("output_dtype", 0), NNS__A_INT("precision", 0),
    NNS__A_INT("saturate", 1), NNS__A_END};
static const nns__attr_spec dq21_attrs[] = {
    NNS__A_INT("axis", 1), NNS__A_INT("block_size", 0), NNS__A_END};
static const nns__attr_spec dq23_attrs[] = {
    NNS__A_INT("axis", 1), NNS__A_INT("block_size", 0),
    NNS__A_INT("output_dtype", 0), NNS__A_END};

const nns__op nns__ops_quant[] = {
    {"", "QuantizeLinear", 10, 12, "acc", NULL, quantize_shape, NULL,
     .cost = quantize_cost},
    {"", "QuantizeLinear", 13, 18, "acc", axis_attrs,
     quantize_shape, NULL,
     .cost = quantize_cost},
    /* 19: float8 and saturate; 21: blocks, output_dtype; 23: precision. */
    {"", "QuantizeLinear", 19, 20, "acc", q19_attrs, quantize_shape, NULL,
     .cost = quantize_cost},
    {"", "QuantizeLinear", 21, 22, "acc", q21_attrs, quantize_shape, NULL,
     .cost = quantize_cost},
    {"", "QuantizeLinear", 23, NNS__OPSET_MAX, "acc", q23_attrs,
     quantize_shape, NULL, .cost = quantize_cost},
    /* A DequantizeLinear of an initializer is a quantized weight. */
    {"", "DequantizeLinear", 10, 12, "wcc", NULL, dequantize_shape,
     dequantize_fold, .cost = dequantize_cost},
    {"", "DequantizeLinear", 13, 18, "wcc", axis_attrs,
     dequantize_shape,
     dequantize_fold, .cost = dequantize_cost},
    /* 19: the output takes the scale's dtype; 21: blocks; 23:
     * output_dtype. Blocked scales are not folded. */
    {"", "DequantizeLinear", 19, 20, "wcc", axis_attrs, dequantize_shape,
     dequantize_fold, .cost = dequantize_cost},
    {"", "DequantizeLinear", 21, 22, "wcc", dq21_attrs, dequantize_shape,
     NULL, .cost = dequantize_cost},
    {"", "DequantizeLinear", 23, NNS__OPSET_MAX, "wcc", dq23_attrs,
     dequantize_shape, NULL, .cost = dequantize_cost},
    {"", "DynamicQuantizeLinear", 11, NNS__OPSET_MAX, "a", NULL,
     dynamic_quantize_shape,
     NULL, .cost = dynamic_quantize_cost},
    NNS__OP_END,
};
