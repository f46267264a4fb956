/*
 * aten_math.c - the aten table's math family: element-wise math,
 * activations, reductions, losses and the ops that make tensors from
 * nothing (random, creation), forward and backward. Each entry lowers to
 * ONNX op types, attributes, constant inputs and Casts, one kernel per
 * call, for a .pt2 and a live recording alike. Rules spelled as several
 * nodes add them through step() and mark them one kernel, as every
 * call's nodes are.
 */
#include "aten_int.h"

#include "../base/base.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ==== Helpers ==== */

/* The status of a failed helper: its error, or "cannot lower". */
static nns_status failed(const nns__aten_call *c) {
  return c->err->code ? c->err->code : NNS_E_NOTFOUND;
}

/* Adds node op(ins) writing `out` (a fresh value when NULL); returns the
 * output's name, NULL on failure (an input NULL: a helper failed). */
static const char *step(nns__aten_call *c, const char *op,
                        const char *const *ins, size_t n, const char *out) {
  for (size_t k = 0; k < n; k++)
    if (!ins[k])
      return NULL;
  const char *o = out ? out : c->fresh(c->fe);
  if (!o) {
    nns__err(c->err, NNS_E_NOMEM, -1, NULL, "out of memory");
    return NULL;
  }
  return nns__aten_node(c, op, "", ins, n, &o, 1) == NNS_OK ? o : NULL;
}

#define INS(...) ((const char *const[]){__VA_ARGS__})
#define N_INS(...) (sizeof INS(__VA_ARGS__) / sizeof(const char *))
/* step() with its inputs listed. */
#define STEP(out, op, ...) step(c, op, INS(__VA_ARGS__), N_INS(__VA_ARGS__), out)
/* Returns the failure when v is NULL. */
#define NEED(v)                                                                \
  do {                                                                         \
    if (!(v))                                                                  \
      return failed(c);                                                        \
  } while (0)
/* A number as a 0-d constant of meta m's dtype. */
#define SC(v, m) nns__aten_scalar(c, (v), (m)->dtype)

static bool is_float(int32_t dt) {
  return dt == NNS_DT_FLOAT || dt == NNS_DT_DOUBLE || dt == NNS_DT_FLOAT16 ||
         dt == NNS_DT_BFLOAT16 ||
         (dt >= NNS_DT_FLOAT8E4M3FN && dt <= NNS_DT_FLOAT8E5M2FNUZ);
}

/* The element count of meta m, or -1 when a size is symbolic (or the
 * count past int64). */
static int64_t numel(const nns__aten_meta *m) {
  int64_t n = 1;
  for (int k = 0; k < m->rank; k++) {
    if (m->dims[k] < 0 || (m->dims[k] && n > INT64_MAX / m->dims[k]))
      return -1;
    n *= m->dims[k];
  }
  return n;
}

/* The call's output, or NULL. */
static const char *out0(const nns__aten_call *c) {
  return c->n_outs > 0 ? c->outs[0] : NULL;
}

/* The first tensor argument, or NULL. */
static const char *first_tensor(const nns__aten_call *c) {
  const char *x = NULL;
  return nns__aten_tensors(c, &x, 1) == 1 ? x : NULL;
}

/* A node with attribute name = v (an int). */
static nns_status attr_int(nns__aten_call *c, const char *name, int64_t v) {
  return nns_builder_attr_int(c->b, name, v, c->err);
}

/* The reduction's axes and keepdims on the node just added. */
static nns_status axes_attrs(nns__aten_call *c, const int64_t *axes, int n,
                             bool keep) {
  A_TRY(nns_builder_attr_ints(c->b, "axes", axes, (size_t)n, c->err));
  return attr_int(c, "keepdims", keep);
}

/* Output k of the call, which no node here writes (nll_loss_forward's
 * total_weight, native_dropout's mask), as a constant of its sizes: what
 * the recorder makes of a tensor no op of its graph produced when a later
 * op reads it (a backward). Nothing when the output is absent or its
 * sizes are symbolic. */
static nns_status unwritten(nns__aten_call *c, int k) {
  const char *o = k < c->n_outs ? c->outs[k] : NULL;
  const nns__aten_meta *m = A_META(c, o);
  if (!m || m->rank < 0 || numel(m) < 0)
    return NNS_OK;
  A_TRY(nns_builder_add_initializer(c->b, o, m->dtype ? m->dtype : NNS_DT_FLOAT,
                                    m->rank, m->dims, NULL, 0, c->err));
  return nns__aten_param_kind(c->b, o, NNS_PARAM_CONSTANT, c->err);
}

/* ==== Element-wise math and activations ==== */

/* erfinv: no ONNX op; the library's entry in the recorder's domain. */
static nns_status aten_domain(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = first_tensor(c), *y = out0(c);
  if (!x || !y)
    return NNS_E_NOTFOUND;
  return nns__aten_node(c, "erfinv", "pytorch.aten", &x, 1, &y, 1);
}

/* clamp_min(self, min), clamp_max(self, max): Clip with one bound (a
 * number of the input's dtype, or a one-element tensor); a bound tensor
 * of more elements is an element-wise Max / Min. */
static nns_status clamp_side(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  bool hi = !strncmp(c->op, "clamp_max", 9);
  const char *x = A_T(c, "self"), *y = out0(c);
  const nns__aten_arg *a = nns__aten_arg_of(c, hi ? "max" : "min");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !y || !mx || !a)
    return NNS_E_NOTFOUND;
  const char *bound;
  if (a->kind == NNS__AA_TENSOR) {
    const nns__aten_meta *mb = A_META(c, a->tensor);
    int64_t n = mb ? numel(mb) : -1;
    if (n < 0)
      return NNS_E_NOTFOUND;
    if (n != 1)
      return STEP(y, hi ? "Min" : "Max", x, a->tensor) ? NNS_OK : failed(c);
    bound = a->tensor;
  } else {
    NEED(bound = nns__aten_operand(c, a, mx->dtype));
  }
  return (hi ? STEP(y, "Clip", x, "", bound) : STEP(y, "Clip", x, bound))
             ? NNS_OK
             : failed(c);
}

/* leaky_relu(self, negative_slope=0.01), elu(self, alpha=1): the op with
 * its alpha. */
static nns_status alpha_act(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self"), *y = out0(c);
  bool leaky = !strcmp(op->onnx, "LeakyRelu");
  if (!x || !y)
    return NNS_E_NOTFOUND;
  NEED(STEP(y, op->onnx, x));
  return nns_builder_attr_float(
      c->b, "alpha",
      nns__aten_float(c, leaky ? "negative_slope" : "alpha", leaky ? 0.01 : 1),
      c->err);
}

/* mish: x * tanh(softplus(x)), as torch.onnx writes it below opset 18. */
static nns_status mish(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *y = out0(c), *sp, *th;
  if (!x || !y)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(sp = STEP(NULL, "Softplus", x));
  NEED(th = STEP(NULL, "Tanh", sp));
  NEED(STEP(y, "Mul", x, th));
  return nns__aten_kernel(c, first);
}

/* glu(self, dim=-1): the halves a, b along dim; a * sigmoid(b). */
static nns_status glu(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *y = out0(c);
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !y || !mx || mx->rank < 1)
    return NNS_E_NOTFOUND;
  int64_t axis = nns__aten_int(c, "dim", -1);
  if (axis < -mx->rank || axis >= mx->rank || mx->dims[(axis + mx->rank) %
                                                       mx->rank] < 0)
    return NNS_E_NOTFOUND;
  axis = (axis + mx->rank) % mx->rank;
  int64_t half[2] = {mx->dims[axis] / 2, mx->dims[axis] / 2};
  const char *ins[] = {x, nns__aten_const_ints(c, half, 2, false)};
  const char *parts[] = {c->fresh(c->fe), c->fresh(c->fe)}, *s;
  NEED(ins[1] && parts[0] && parts[1]);
  size_t first = *c->node_count;
  A_TRY(nns__aten_node(c, "Split", "", ins, 2, parts, 2));
  A_TRY(attr_int(c, "axis", axis));
  NEED(s = STEP(NULL, "Sigmoid", parts[1]));
  NEED(STEP(y, "Mul", parts[0], s));
  return nns__aten_kernel(c, first);
}

/* expm1: Exp then Sub 1; log1p: Add 1 then Log; log2: Log then Div by
 * ln 2 (of the output's dtype), as torch.onnx spells them. */
static nns_status shifted(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self"), *y = out0(c), *t;
  const nns__aten_meta *mx = A_META(c, x), *my = A_META(c, y);
  if (!x || !y || !mx || !my)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  if (!strcmp(op->onnx, "Exp, Sub")) {
    NEED(t = STEP(NULL, "Exp", x));
    NEED(STEP(y, "Sub", t, SC(1.0, mx)));
  } else if (!strcmp(op->onnx, "Add, Log")) {
    NEED(t = STEP(NULL, "Add", x, SC(1.0, mx)));
    NEED(STEP(y, "Log", t));
  } else {
    NEED(t = STEP(NULL, "Log", x));
    NEED(STEP(y, "Div", t, SC(log(2.0), my)));
  }
  return nns__aten_kernel(c, first);
}

/* prelu / _prelu_kernel(self, weight): PRelu; one slope per channel
 * (dim 1) reshaped to (C, 1, ..., 1) first. */
static nns_status prelu(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *w = A_T(c, "weight"), *y = out0(c);
  const nns__aten_meta *mx = A_META(c, x), *mw = A_META(c, w);
  if (!x || !w || !y || !mx || !mw || mx->rank > 16)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  int64_t n = numel(mw);
  if (mx->rank > 2 && mw->rank == 1 && n != 1 && n != 0) {
    if (n < 0)
      return NNS_E_NOTFOUND;
    int64_t shape[16] = {n};
    for (int k = 1; k < mx->rank - 1; k++)
      shape[k] = 1;
    NEED(w = STEP(NULL, "Reshape", w,
                  nns__aten_const_ints(c, shape, mx->rank - 1, false)));
  }
  NEED(STEP(y, "PRelu", x, w));
  return nns__aten_kernel(c, first);
}

/* nan_to_num(self, nan, posinf, neginf): of floating point, a Where over
 * IsNaN, then over IsInf of each sign (torch.onnx's form); of integers an
 * Identity. */
static nns_status nan_to_num(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *y = out0(c);
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !y || !mx)
    return NNS_E_NOTFOUND;
  if (!is_float(mx->dtype))
    return STEP(y, "Identity", x) ? NNS_OK : failed(c);
  double big = mx->dtype == NNS_DT_DOUBLE     ? DBL_MAX
               : mx->dtype == NNS_DT_FLOAT16  ? 65504.0
               : mx->dtype == NNS_DT_BFLOAT16 ? 3.3895313892515355e38
                                              : FLT_MAX;
  static const char *const names[] = {"nan", "posinf", "neginf"};
  const double fallback[] = {0.0, big, -big};
  static const char *const off[] = {NULL, "detect_negative",
                                    "detect_positive"};
  size_t first = *c->node_count;
  const char *cur = x;
  for (int k = 0; k < 3; k++) {
    const char *mask;
    NEED(mask = STEP(NULL, k ? "IsInf" : "IsNaN", x));
    if (off[k])
      A_TRY(attr_int(c, off[k], 0));
    NEED(cur = STEP(k == 2 ? y : NULL, "Where", mask,
                    SC(nns__aten_float(c, names[k], fallback[k]), mx), cur));
  }
  return nns__aten_kernel(c, first);
}

/* floor_divide(self, other): Div, then Floor for floating point (an
 * integer Div floors already for the non-negative values models divide). */
static nns_status floor_divide(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  return nns__aten_floor_div(c);
}

/* remainder(self, other): Mod, fmod for floating point; a number is a
 * scalar of the tensor operand's dtype. */
static nns_status remainder_(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *x = nns__aten_arg_of(c, "self");
  const nns__aten_arg *o = nns__aten_arg_of(c, "other");
  const nns__aten_meta *my = A_META(c, out0(c));
  if (!x || !o || !my)
    return NNS_E_NOTFOUND;
  const char *t = x->kind == NNS__AA_TENSOR   ? x->tensor
                  : o->kind == NNS__AA_TENSOR ? o->tensor
                                              : NULL;
  const nns__aten_meta *mt = A_META(c, t);
  if (!mt)
    return NNS_E_NOTFOUND;
  NEED(STEP(c->outs[0], "Mod", nns__aten_operand(c, x, mt->dtype),
            nns__aten_operand(c, o, mt->dtype)));
  return attr_int(c, "fmod", is_float(my->dtype));
}

/* xlogy(self, other): x log y, 0 where x is 0 (kl_div's pointwise term):
 * a Log, a Mul, the compare and the select. */
static nns_status xlogy(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *x = nns__aten_arg_of(c, "self");
  const nns__aten_arg *o = nns__aten_arg_of(c, "other");
  const char *y = out0(c), *ly, *xx, *p, *m;
  const nns__aten_meta *my = A_META(c, y);
  if (!x || !o || !my)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(ly = STEP(NULL, "Log", nns__aten_operand(c, o, my->dtype)));
  NEED(xx = nns__aten_operand(c, x, my->dtype));
  NEED(p = STEP(NULL, "Mul", xx, ly));
  NEED(m = STEP(NULL, "Equal", xx, SC(0.0, my)));
  NEED(STEP(y, "Where", m, SC(0.0, my), p));
  return nns__aten_kernel(c, first);
}

/* log_sigmoid_forward(self) -> (output, buffer): a Sigmoid (into the
 * buffer where PyTorch fills one of the output's sizes) then a Log. */
static nns_status log_sigmoid(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *y = out0(c), *buf = NULL;
  const nns__aten_meta *my = A_META(c, y);
  if (!x || !y || !my)
    return NNS_E_NOTFOUND;
  const nns__aten_meta *mb = c->n_outs > 1 ? A_META(c, c->outs[1]) : NULL;
  if (mb && mb->rank == my->rank) {
    buf = c->outs[1];
    for (int k = 0; k < my->rank; k++)
      if (mb->dims[k] != my->dims[k] ||
          (mb->dims[k] < 0 && (!mb->syms[k] || !my->syms[k] ||
                               strcmp(mb->syms[k], my->syms[k]))))
        buf = NULL;
  }
  if (!buf)
    A_TRY(unwritten(c, 1)); /* CUDA's empty buffer */
  size_t first = *c->node_count;
  NEED(buf = STEP(buf, "Sigmoid", x));
  NEED(STEP(y, "Log", buf));
  return nns__aten_kernel(c, first);
}

/* copy(self, src): the output holds src's values: src's value. */
static nns_status copy(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *src = A_T(c, "src");
  if (!out0(c))
    return NNS_OK;
  return src ? c->alias(c->fe, c->outs[0], src) : NNS_E_NOTFOUND;
}

/* native_dropout(input, p, train) -> (output, mask): Dropout of the
 * output alone; the mask a constant (see unwritten()). */
static nns_status dropout(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = first_tensor(c), *y = out0(c);
  if (!x || !y)
    return NNS_E_NOTFOUND;
  NEED(STEP(y, "Dropout", x));
  return unwritten(c, 1);
}

/* ==== Backward of activations and softmax ==== */

/* The (grad_output, second tensor) pair of a backward call. */
static bool grad_pair(nns__aten_call *c, const char *second, const char **g,
                      const char **t, const nns__aten_meta **mt) {
  *g = A_T(c, "grad_output");
  *t = A_T(c, second);
  *mt = A_META(c, *t);
  return *g && *t && *mt && out0(c);
}

/* sigmoid_backward(grad_output, output): g * y * (1 - y); tanh_backward:
 * g * (1 - y^2). */
static nns_status act_backward(nns__aten_call *c, const nns__aten_op *op) {
  const char *g, *y, *a, *t;
  const nns__aten_meta *my;
  if (!grad_pair(c, "output", &g, &y, &my))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  if (!strncmp(op->onnx, "Sub", 3)) { /* sigmoid's */
    NEED(a = STEP(NULL, "Sub", SC(1.0, my), y));
    NEED(t = STEP(NULL, "Mul", y, a));
  } else {
    NEED(a = STEP(NULL, "Mul", y, y));
    NEED(t = STEP(NULL, "Sub", SC(1.0, my), a));
  }
  NEED(STEP(c->outs[0], "Mul", g, t));
  return nns__aten_kernel(c, first);
}

/* silu_backward(grad_output, self): g * s * (1 + x * (1 - s)), s =
 * sigmoid(x). */
static nns_status silu_backward(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *g, *x, *t[5];
  const nns__aten_meta *mx;
  if (!grad_pair(c, "self", &g, &x, &mx))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(t[0] = STEP(NULL, "Sigmoid", x));
  NEED(t[1] = STEP(NULL, "Sub", SC(1.0, mx), t[0]));
  NEED(t[2] = STEP(NULL, "Mul", x, t[1]));
  NEED(t[3] = STEP(NULL, "Add", t[2], SC(1.0, mx)));
  NEED(t[4] = STEP(NULL, "Mul", t[0], t[3]));
  NEED(STEP(c->outs[0], "Mul", g, t[4]));
  return nns__aten_kernel(c, first);
}

/* gelu_backward(grad_output, self, approximate): g * (Phi(x) + x phi(x)),
 * Phi = (1 + erf(x / sqrt 2)) / 2, phi = exp(-x^2 / 2) / sqrt(2 pi) (the
 * tanh approximation costs alike). */
static nns_status gelu_backward(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *g, *x, *t[10];
  const nns__aten_meta *mx;
  if (!grad_pair(c, "self", &g, &x, &mx))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(t[0] = STEP(NULL, "Div", x, SC(sqrt(2.0), mx)));
  NEED(t[1] = STEP(NULL, "Erf", t[0]));
  NEED(t[2] = STEP(NULL, "Add", t[1], SC(1.0, mx)));
  NEED(t[3] = STEP(NULL, "Mul", t[2], SC(0.5, mx)));
  NEED(t[4] = STEP(NULL, "Mul", x, x));
  NEED(t[5] = STEP(NULL, "Mul", t[4], SC(-0.5, mx)));
  NEED(t[6] = STEP(NULL, "Exp", t[5]));
  NEED(t[7] = STEP(NULL, "Mul", t[6], SC(1 / sqrt(2 * 3.14159265358979323846), mx)));
  NEED(t[8] = STEP(NULL, "Mul", x, t[7]));
  NEED(t[9] = STEP(NULL, "Add", t[3], t[8]));
  NEED(STEP(c->outs[0], "Mul", g, t[9]));
  return nns__aten_kernel(c, first);
}

/* threshold_backward(grad_output, self, threshold): g where x >
 * threshold, else 0. */
static nns_status threshold_backward(nns__aten_call *c,
                                     const nns__aten_op *op) {
  (void)op;
  const char *g, *x, *cond;
  const nns__aten_meta *mx, *mg;
  const nns__aten_arg *th = nns__aten_arg_of(c, "threshold");
  if (!grad_pair(c, "self", &g, &x, &mx) || !th || !(mg = A_META(c, g)))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(cond = STEP(NULL, "Greater", x, nns__aten_operand(c, th, mx->dtype)));
  NEED(STEP(c->outs[0], "Where", cond, g, SC(0.0, mg)));
  return nns__aten_kernel(c, first);
}

/* _softmax_backward_data(grad_output, output, dim, input_dtype): y * (g -
 * sum(g * y, dim)); _log_softmax_backward_data: g - exp(y) sum(g, dim). */
static nns_status softmax_backward(nns__aten_call *c,
                                   const nns__aten_op *op) {
  const char *g, *y, *a, *s, *d;
  const nns__aten_meta *my;
  if (!grad_pair(c, "output", &g, &y, &my) || my->rank < 1)
    return NNS_E_NOTFOUND;
  int64_t dim = nns__aten_int(c, "dim", -1);
  if (dim < -my->rank || dim >= my->rank)
    return NNS_E_NOTFOUND;
  dim = (dim + my->rank) % my->rank;
  bool logsm = !strncmp(op->onnx, "Exp", 3);
  size_t first = *c->node_count;
  NEED(a = logsm ? STEP(NULL, "Exp", y) : STEP(NULL, "Mul", g, y));
  NEED(s = STEP(NULL, "ReduceSum", logsm ? g : a,
                nns__aten_const_ints(c, &dim, 1, false)));
  A_TRY(attr_int(c, "keepdims", 1));
  if (logsm) {
    NEED(d = STEP(NULL, "Mul", a, s));
    NEED(STEP(c->outs[0], "Sub", g, d));
  } else {
    NEED(d = STEP(NULL, "Sub", g, s));
    NEED(STEP(c->outs[0], "Mul", y, d));
  }
  return nns__aten_kernel(c, first);
}

/* ==== Reductions ==== */

/* The axes of the call's `dim` over x's rank and its keepdim. */
static int reduce_axes(nns__aten_call *c, const nns__aten_meta *mx,
                       int64_t *axes, bool *keep) {
  *keep = nns__aten_bool(c, "keepdim", false);
  return mx ? nns__aten_axes(c, mx->rank, axes) : -1;
}

/* amax, amin, prod, logsumexp (self, dim, keepdim): the op with its axes
 * as an attribute. */
static nns_status reduce_attr(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self"), *y = out0(c);
  int64_t axes[16];
  bool keep;
  int n = reduce_axes(c, A_META(c, x), axes, &keep);
  if (!x || !y || n < 0)
    return NNS_E_NOTFOUND;
  NEED(STEP(y, op->onnx, x));
  return axes_attrs(c, axes, n, keep);
}

/* all / any / _is_all_true (self, dim, keepdim): an int32 ReduceMin /
 * ReduceMax, cast back to the output's dtype (ONNX has no boolean
 * reductions). */
static nns_status all_any(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self"), *y = out0(c), *xi, *red;
  const nns__aten_meta *my = A_META(c, y);
  int64_t axes[16];
  bool keep;
  int n = reduce_axes(c, A_META(c, x), axes, &keep);
  if (!x || !y || !my || n < 0)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(xi = STEP(NULL, "Cast", x));
  A_TRY(attr_int(c, "to", NNS_DT_INT32));
  NEED(red = STEP(NULL, strstr(op->onnx, "Min") ? "ReduceMin" : "ReduceMax",
                  xi));
  A_TRY(axes_attrs(c, axes, n, keep));
  NEED(STEP(y, "Cast", red));
  A_TRY(attr_int(c, "to", my->dtype));
  return nns__aten_kernel(c, first);
}

/* argmax / argmin (self, dim=None, keepdim): over dim, or over the
 * flattened tensor (a Reshape first). */
static nns_status arg_reduce(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self"), *y = out0(c);
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  if (!x || !y || !mx)
    return NNS_E_NOTFOUND;
  int r = mx->rank > 1 ? mx->rank : 1;
  int64_t axis = 0;
  size_t first = *c->node_count;
  if (!d || d->kind == NNS__AA_NONE) {
    int64_t n = numel(mx); /* -1: symbolic, the Reshape's "the rest" */
    NEED(x = STEP(NULL, "Reshape", x, nns__aten_const_ints(c, &n, 1, false)));
  } else if (d->kind == NNS__AA_INT && !d->sym) {
    axis = (d->i % r + r) % r;
  } else {
    return NNS_E_NOTFOUND;
  }
  NEED(STEP(y, op->onnx, x));
  A_TRY(attr_int(c, "axis", axis));
  A_TRY(attr_int(c, "keepdims", nns__aten_bool(c, "keepdim", false)));
  return nns__aten_kernel(c, first);
}

/* max / min: of two tensors (max.other) element-wise Max / Min; of all
 * elements a ReduceMax; along dim (-> values, indices) a ReduceMax and an
 * ArgMax. */
static nns_status max_min(nns__aten_call *c, const nns__aten_op *op) {
  bool is_max = !strcmp(op->onnx, "Max");
  const char *x = A_T(c, "self"), *y = out0(c);
  const nns__aten_meta *mx = A_META(c, x);
  if (A_T(c, "other"))
    return nns__aten_binary(c, op->onnx);
  if (!x || !y || !mx)
    return NNS_E_NOTFOUND;
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  int64_t axes[16];
  int n = mx->rank, r = mx->rank > 1 ? mx->rank : 1;
  bool keep = nns__aten_bool(c, "keepdim", false);
  if (!d || d->kind == NNS__AA_NONE) {
    if (n > 16)
      return NNS_E_NOTFOUND;
    for (int k = 0; k < n; k++)
      axes[k] = k;
  } else if (d->kind == NNS__AA_INT && !d->sym) {
    n = 1;
    axes[0] = (d->i % r + r) % r;
  } else {
    return NNS_E_NOTFOUND;
  }
  size_t first = *c->node_count;
  NEED(STEP(y, is_max ? "ReduceMax" : "ReduceMin", x));
  A_TRY(axes_attrs(c, axes, n, keep));
  if (c->n_outs > 1 && c->outs[1] && n > 0) {
    NEED(STEP(c->outs[1], is_max ? "ArgMax" : "ArgMin", x));
    A_TRY(attr_int(c, "axis", axes[0]));
    A_TRY(attr_int(c, "keepdims", keep));
  }
  return nns__aten_kernel(c, first);
}

/* aminmax(self, *, dim, keepdim) -> (min, max): ReduceMin and ReduceMax. */
static nns_status aminmax(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  int64_t axes[16];
  bool keep;
  int n = reduce_axes(c, mx, axes, &keep);
  if (!x || n < 0 || c->n_outs < 2 || !c->outs[0] || !c->outs[1])
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  for (int k = 0; k < 2; k++) {
    NEED(STEP(c->outs[k], k ? "ReduceMax" : "ReduceMin", x));
    A_TRY(axes_attrs(c, axes, n, keep));
  }
  return nns__aten_kernel(c, first);
}

/* A divisor max(0, v) as a 0-d constant of m's dtype; for v NAN (a count
 * of symbolic size) the constant holds no value: counting needs none. */
static const char *divisor(nns__aten_call *c, double v,
                           const nns__aten_meta *m) {
  if (isnan(v))
    return nns__aten_filler(c, m->dtype, 0, NULL);
  return SC(v > 0 ? v : 0, m);
}

/* The sizes var_mean's mean is reshaped to (its output's, mm), from the
 * mean over `axes` with dims kept, into shape: a symbolic size written as
 * 0 (the kept mean's own, at the same place) or once as -1. False when no
 * constant spells them (a value of the sizes then, made with nodes). */
static bool mean_sizes(const nns__aten_meta *mx, const nns__aten_meta *mm,
                       const int64_t *axes, int n, int64_t *shape) {
  if (mm->rank > 16)
    return false;
  bool minus = false, zero = false, copied = false;
  for (int k = 0; k < mm->rank; k++) {
    bool reduced = false;
    for (int a = 0; a < n; a++)
      reduced = reduced || axes[a] == k;
    if (mm->dims[k] >= 0) {
      shape[k] = mm->dims[k];
      zero = zero || !shape[k];
    } else if (k < mx->rank && !reduced && mx->dims[k] < 0 && mm->syms[k] &&
               mx->syms[k] && !strcmp(mm->syms[k], mx->syms[k])) {
      shape[k] = 0;
      copied = true;
    } else if (!minus) {
      shape[k] = -1;
      minus = true;
    } else {
      return false;
    }
  }
  return !(zero && copied);
}

/* var / std (self, dim, *, correction, keepdim) and var_mean / std_mean,
 * as the two-pass textbook computes them: the mean (ReduceMean, dims
 * kept), x minus it, squared, summed, divided by max(0, n - correction),
 * and for std its Sqrt; the mean reshaped to its output. The older
 * overloads pass `unbiased` (True: a correction of 1). */
static nns_status variance(nns__aten_call *c, const nns__aten_op *op) {
  bool root = op->onnx[0] == 'S';
  bool with_mean = strstr(op->onnx, "Reshape") != NULL;
  const char *x = A_T(c, "self"), *y = out0(c), *m, *dev, *sq, *total;
  const nns__aten_meta *mx = A_META(c, x);
  int64_t axes[16];
  bool keep;
  int n = reduce_axes(c, mx, axes, &keep);
  if (!x || !y || n < 0 || (with_mean && (c->n_outs < 2 || !c->outs[1])))
    return NNS_E_NOTFOUND;
  double count = 1; /* the divisor: a float, as PyTorch's; NAN: symbolic */
  for (int k = 0; k < n; k++)
    count *= mx->dims[axes[k]] < 0 ? NAN : (double)mx->dims[axes[k]];
  const nns__aten_arg *corr = nns__aten_arg_of(c, "correction");
  double cv = 1;
  if (corr && corr->kind != NNS__AA_NONE)
    cv = nns__aten_float(c, "correction", 1);
  else if (!corr)
    cv = nns__aten_bool(c, "unbiased", true);
  /* the mean's sizes: a value made before the kernel's nodes where they
   * need nodes; else a constant, made last (where the recorder makes it) */
  const char *mshape = NULL;
  const nns__aten_meta *mm = with_mean ? A_META(c, c->outs[1]) : NULL;
  int64_t msizes[16];
  bool spelled = false;
  if (with_mean) {
    if (!mm)
      return NNS_E_NOTFOUND;
    spelled = mean_sizes(mx, mm, axes, n, msizes);
    c->err->code = NNS_OK;
    if (!spelled)
      NEED(mshape = nns__aten_shape_value(c, mm));
  }
  size_t first = *c->node_count;
  NEED(m = STEP(NULL, "ReduceMean", x));
  A_TRY(axes_attrs(c, axes, n, true));
  NEED(dev = STEP(NULL, "Sub", x, m));
  NEED(sq = STEP(NULL, "Mul", dev, dev));
  NEED(total = STEP(NULL, "ReduceSum", sq,
                    nns__aten_const_ints(c, axes, n, false)));
  A_TRY(attr_int(c, "keepdims", keep));
  double div = count - cv;
  NEED(total = STEP(root ? NULL : y, "Div", total, divisor(c, div, mx)));
  if (root)
    NEED(STEP(y, "Sqrt", total));
  if (with_mean) {
    if (spelled)
      NEED(mshape = nns__aten_const_ints(c, msizes, mm->rank, false));
    NEED(STEP(c->outs[1], "Reshape", m, mshape));
  }
  return nns__aten_kernel(c, first);
}

/* norm(self, p, dim, keepdim) / linalg_vector_norm(self, ord, dim,
 * keepdim) as torch.onnx exports them: ReduceL2 / ReduceL1 for the
 * orders 2 and 1, ReduceMax / ReduceMin of Abs for +-inf, any other order
 * p as (sum |x|^p)^(1/p) (Abs, Pow, ReduceSum, Pow); order 0 (a count of
 * the nonzero elements) stays uncounted. */
static nns_status vector_norm(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *y = out0(c), *t;
  const nns__aten_meta *mx = A_META(c, x);
  double p = nns__aten_float(c, "ord", nns__aten_float(c, "p", 2));
  int64_t axes[16];
  bool keep;
  int n = reduce_axes(c, mx, axes, &keep);
  if (!x || !y || n < 0 || p == 0 || isnan(p))
    return NNS_E_NOTFOUND;
  if (p == 1 || p == 2) {
    NEED(STEP(y, p == 2 ? "ReduceL2" : "ReduceL1", x));
    return axes_attrs(c, axes, n, keep);
  }
  size_t first = *c->node_count;
  NEED(t = STEP(NULL, "Abs", x));
  if (isinf(p)) {
    NEED(STEP(y, p > 0 ? "ReduceMax" : "ReduceMin", t));
    A_TRY(axes_attrs(c, axes, n, keep));
    return nns__aten_kernel(c, first);
  }
  NEED(t = STEP(NULL, "Pow", t, SC(p, mx)));
  NEED(t = STEP(NULL, "ReduceSum", t, nns__aten_const_ints(c, axes, n, false)));
  A_TRY(attr_int(c, "keepdims", keep));
  NEED(STEP(y, "Pow", t, SC(1.0 / p, mx)));
  return nns__aten_kernel(c, first);
}

/* histc(self, bins=100, min=0, max=0) as a naive histogram: each
 * element's bin ((x - min) * bins / (max - min), floored, as an index)
 * and one ScatterElements add of a one per element into the bins. */
static nns_status histc(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *y = out0(c), *t;
  const nns__aten_meta *mx = A_META(c, x), *my = A_META(c, y);
  if (!x || !y || !mx || !my)
    return NNS_E_NOTFOUND;
  int64_t n = numel(mx), bins = nns__aten_int(c, "bins", 100);
  double lo = nns__aten_float(c, "min", 0), hi = nns__aten_float(c, "max", 0);
  if (mx->rank < 0)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const int64_t flat = n >= 0 ? n : -1; /* symbolic sizes: Reshape infers */
  NEED(t = STEP(NULL, "Reshape", x, nns__aten_const_ints(c, &flat, 1, false)));
  NEED(t = STEP(NULL, "Sub", t, SC(lo, mx)));
  NEED(t = STEP(NULL, "Mul", t,
                SC(hi > lo ? (double)bins / (hi - lo) : 1.0, mx)));
  NEED(t = STEP(NULL, "Floor", t));
  NEED(t = STEP(NULL, "Cast", t));
  A_TRY(attr_int(c, "to", NNS_DT_INT64));
  /* the bins first, then the ones: the recorder's rule's constant order */
  const char *counts, *ones;
  NEED(counts = nns__aten_filler(c, my->dtype, 1, &bins));
  if (n >= 0) {
    ones = nns__aten_filler(c, my->dtype, 1, &n);
  } else { /* a one per element, as many as the (symbolic) elements */
    NEED(ones = STEP(NULL, "ConstantOfShape", STEP(NULL, "Shape", t)));
    int64_t one = 1;
    A_TRY(nns_builder_attr_tensor(c->b, "value", NNS_ATTR_TENSOR,
                                  my->dtype ? my->dtype : NNS_DT_FLOAT, 1,
                                  &one, NULL, 0, c->err));
  }
  NEED(STEP(y, "ScatterElements", counts, t, ones));
  A_TRY(attr_int(c, "axis", 0));
  A_TRY(nns_builder_attr_string(c->b, "reduction", "add", 3, c->err));
  return nns__aten_kernel(c, first);
}

/* ==== Matrix products ==== */

/* baddbmm(self, batch1, batch2, beta, alpha), addmv(self, mat, vec, ...):
 * MatMul then Add of self (beta and alpha unscaled: the BLAS call PyTorch
 * makes takes them as its own alpha and beta, no pass of their own). */
static nns_status matmul_add(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *t[3], *p;
  if (nns__aten_tensors(c, t, 3) < 3 || !out0(c))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(p = STEP(NULL, "MatMul", t[1], t[2]));
  NEED(STEP(c->outs[0], "Add", p, t[0]));
  return nns__aten_kernel(c, first);
}

/* ==== Losses ==== */

/* A loss's inputs: (self, target) after grad_output for a backward. */
typedef struct loss {
  const char *g, *x, *y, *w, *pw; /* grad_output, self, target, weight,
                                     pos_weight (NULL: none) */
  const nns__aten_meta *mx;       /* self's */
  int64_t reduction;              /* 0 none, 1 mean, 2 sum */
} loss;

static bool loss_args(nns__aten_call *c, bool backward, loss *l) {
  l->g = backward ? A_T(c, "grad_output") : NULL;
  l->x = A_T(c, "self");
  l->y = A_T(c, "target");
  l->w = A_T(c, "weight");
  l->pw = A_T(c, "pos_weight");
  l->mx = A_META(c, l->x);
  l->reduction = nns__aten_int(c, "reduction", 1);
  return l->x && l->y && l->mx && out0(c) && (!backward || l->g) &&
         l->reduction >= 0 && l->reduction <= 2 && l->mx->rank <= 16;
}

/* Where the element-wise loss goes: the output when not reduced. */
static const char *loss_dst(nns__aten_call *c, const loss *l) {
  return l->reduction ? c->fresh(c->fe) : c->outs[0];
}

/* The reduction of the element-wise loss t over every axis, then the
 * call's one kernel. */
static nns_status loss_end(nns__aten_call *c, const loss *l, const char *t,
                           size_t first) {
  if (l->reduction) {
    int64_t axes[16];
    for (int k = 0; k < l->mx->rank; k++)
      axes[k] = k;
    NEED(STEP(c->outs[0], l->reduction == 1 ? "ReduceMean" : "ReduceSum", t,
              nns__aten_const_ints(c, axes, l->mx->rank, false)));
    A_TRY(attr_int(c, "keepdims", 0));
  }
  return nns__aten_kernel(c, first);
}

/* A backward's end: g times the local gradient t, over the element count
 * for a mean; then the call's one kernel. */
static nns_status grad_end(nns__aten_call *c, const loss *l, const char *t,
                           size_t first) {
  const char *m;
  if (l->reduction == 1) {
    int64_t n = numel(l->mx);
    NEED(m = STEP(NULL, "Mul", t, l->g));
    NEED(STEP(c->outs[0], "Div", m,
              divisor(c, n < 0 ? NAN : n > 1 ? (double)n : 1, l->mx)));
  } else {
    NEED(STEP(c->outs[0], "Mul", t, l->g));
  }
  return nns__aten_kernel(c, first);
}

/* mse_loss(self, target, reduction): (x - y)^2, reduced. */
static nns_status mse_loss(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  loss l;
  const char *d, *dst;
  if (!loss_args(c, false, &l))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(d = STEP(NULL, "Sub", l.x, l.y));
  NEED(dst = STEP(loss_dst(c, &l), "Mul", d, d));
  return loss_end(c, &l, dst, first);
}

/* mse_loss_backward(grad_output, self, target, reduction): g 2 (x - y)
 * [/ n]. */
static nns_status mse_loss_backward(nns__aten_call *c,
                                    const nns__aten_op *op) {
  (void)op;
  loss l;
  const char *d, *t;
  if (!loss_args(c, true, &l))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(d = STEP(NULL, "Sub", l.x, l.y));
  NEED(t = STEP(NULL, "Mul", d, SC(2.0, l.mx)));
  return grad_end(c, &l, t, first);
}

/* smooth_l1_loss (self, target, reduction, beta) and huber_loss (...,
 * delta): z = |x - y|; z < beta ? 0.5 z^2 / beta : z - 0.5 beta (Huber:
 * 0.5 z^2 and delta (z - 0.5 delta)). */
static nns_status smooth_loss(nns__aten_call *c, const nns__aten_op *op) {
  bool huber = !strncmp(c->op, "huber", 5);
  (void)op;
  loss l;
  const char *d, *z, *m, *sq, *q, *lin, *dst;
  if (!loss_args(c, false, &l))
    return NNS_E_NOTFOUND;
  double beta = nns__aten_float(c, huber ? "delta" : "beta", 1);
  size_t first = *c->node_count;
  NEED(d = STEP(NULL, "Sub", l.x, l.y));
  NEED(dst = loss_dst(c, &l));
  if (beta == 0 && !huber) { /* PyTorch's l1 then */
    NEED(STEP(dst, "Abs", d));
    return loss_end(c, &l, dst, first);
  }
  NEED(z = STEP(NULL, "Abs", d));
  NEED(m = STEP(NULL, "Less", z, SC(beta, l.mx)));
  NEED(sq = STEP(NULL, "Mul", z, z));
  NEED(q = STEP(NULL, "Mul", sq, SC(huber ? 0.5 : 0.5 / beta, l.mx)));
  NEED(lin = STEP(NULL, "Sub", z, SC(0.5 * beta, l.mx)));
  if (huber)
    NEED(lin = STEP(NULL, "Mul", lin, SC(beta, l.mx)));
  NEED(STEP(dst, "Where", m, q, lin));
  return loss_end(c, &l, dst, first);
}

/* smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
 * |d| < beta ? d / beta : sign(d), d = x - y; huber_loss_backward(...,
 * delta): clamp(d, -delta, delta); times g [/ n]. */
static nns_status smooth_backward(nns__aten_call *c,
                                  const nns__aten_op *op) {
  (void)op;
  bool huber = !strncmp(c->op, "huber", 5);
  loss l;
  const char *d, *t, *z, *m, *q, *sg;
  if (!loss_args(c, true, &l))
    return NNS_E_NOTFOUND;
  double beta = nns__aten_float(c, huber ? "delta" : "beta", 1);
  size_t first = *c->node_count;
  NEED(d = STEP(NULL, "Sub", l.x, l.y));
  if (huber) {
    NEED(t = STEP(NULL, "Clip", d, SC(-beta, l.mx), SC(beta, l.mx)));
  } else if (beta == 0) {
    NEED(t = STEP(NULL, "Sign", d));
  } else {
    NEED(z = STEP(NULL, "Abs", d));
    NEED(m = STEP(NULL, "Less", z, SC(beta, l.mx)));
    NEED(q = STEP(NULL, "Div", d, SC(beta, l.mx)));
    NEED(sg = STEP(NULL, "Sign", d));
    NEED(t = STEP(NULL, "Where", m, q, sg));
  }
  return grad_end(c, &l, t, first);
}

/* binary_cross_entropy(self, target, weight, reduction): -(y log x + (1 -
 * y) log(1 - x)), each log clamped at -100 as PyTorch's kernel does,
 * times the weight when given. */
static nns_status bce(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  loss l;
  const char *lx, *om, *l1, *a, *oy, *b, *s, *dst;
  if (!loss_args(c, false, &l))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(lx = STEP(NULL, "Log", l.x));
  NEED(lx = STEP(NULL, "Max", lx, SC(-100.0, l.mx)));
  NEED(om = STEP(NULL, "Sub", SC(1.0, l.mx), l.x));
  NEED(l1 = STEP(NULL, "Log", om));
  NEED(l1 = STEP(NULL, "Max", l1, SC(-100.0, l.mx)));
  NEED(a = STEP(NULL, "Mul", l.y, lx));
  NEED(oy = STEP(NULL, "Sub", SC(1.0, l.mx), l.y));
  NEED(b = STEP(NULL, "Mul", oy, l1));
  NEED(s = STEP(NULL, "Add", a, b));
  NEED(dst = loss_dst(c, &l));
  if (l.w) {
    NEED(s = STEP(NULL, "Neg", s));
    NEED(STEP(dst, "Mul", s, l.w));
  } else {
    NEED(STEP(dst, "Neg", s));
  }
  return loss_end(c, &l, dst, first);
}

/* binary_cross_entropy_backward(grad_output, self, target, weight,
 * reduction): g (x - y) / max((1 - x) x, 1e-12) [times w] [/ n]. */
static nns_status bce_backward(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  loss l;
  const char *d, *om, *p, *t;
  if (!loss_args(c, true, &l))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(d = STEP(NULL, "Sub", l.x, l.y));
  NEED(om = STEP(NULL, "Sub", SC(1.0, l.mx), l.x));
  NEED(p = STEP(NULL, "Mul", om, l.x));
  NEED(p = STEP(NULL, "Max", p, SC(1e-12, l.mx)));
  NEED(t = STEP(NULL, "Div", d, p));
  if (l.w)
    NEED(t = STEP(NULL, "Mul", t, l.w));
  return grad_end(c, &l, t, first);
}

/* binary_cross_entropy_with_logits(self, target, weight, pos_weight,
 * reduction): (1 - y) x - log_sigmoid(x) (a Sigmoid and a Log); with
 * pos_weight p: (1 - y) x - ((p - 1) y + 1) log_sigmoid(x); times the
 * weight when given. */
static nns_status bce_logits(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  loss l;
  const char *sg, *ls, *oy, *a, *p1, *lw, *dst;
  if (!loss_args(c, false, &l))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(sg = STEP(NULL, "Sigmoid", l.x));
  NEED(ls = STEP(NULL, "Log", sg));
  NEED(oy = STEP(NULL, "Sub", SC(1.0, l.mx), l.y));
  NEED(a = STEP(NULL, "Mul", oy, l.x));
  if (l.pw) {
    NEED(p1 = STEP(NULL, "Sub", l.pw, SC(1.0, l.mx)));
    NEED(lw = STEP(NULL, "Mul", p1, l.y));
    NEED(lw = STEP(NULL, "Add", lw, SC(1.0, l.mx)));
    NEED(ls = STEP(NULL, "Mul", lw, ls));
  }
  NEED(dst = loss_dst(c, &l));
  if (l.w) {
    NEED(a = STEP(NULL, "Sub", a, ls));
    NEED(STEP(dst, "Mul", a, l.w));
  } else {
    NEED(STEP(dst, "Sub", a, ls));
  }
  return loss_end(c, &l, dst, first);
}

/* binary_cross_entropy_with_logits_backward(grad_output, self, target,
 * weight, pos_weight, reduction): (sigmoid(x) - y) g [times w] [/ n];
 * with pos_weight p: ((p y + 1 - y) sigmoid(x) - p y) g. */
static nns_status bce_logits_backward(nns__aten_call *c,
                                      const nns__aten_op *op) {
  (void)op;
  loss l;
  const char *sg, *py, *oy, *s, *t;
  if (!loss_args(c, true, &l))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  NEED(sg = STEP(NULL, "Sigmoid", l.x));
  if (l.pw) {
    NEED(py = STEP(NULL, "Mul", l.pw, l.y));
    NEED(oy = STEP(NULL, "Sub", SC(1.0, l.mx), l.y));
    NEED(s = STEP(NULL, "Add", py, oy));
    NEED(s = STEP(NULL, "Mul", s, sg));
    NEED(t = STEP(NULL, "Sub", s, py));
  } else {
    NEED(t = STEP(NULL, "Sub", sg, l.y));
  }
  if (l.w)
    NEED(t = STEP(NULL, "Mul", t, l.w));
  return grad_end(c, &l, t, first);
}

/* nll_loss_forward / nll_loss2d_forward (self [N, C, ...], target,
 * weight, reduction, ignore_index) -> (loss, total_weight): ONNX's
 * NegativeLogLikelihoodLoss, which counts total_weight's sum too;
 * total_weight itself a constant (see unwritten()). */
static nns_status nll_loss(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  static const char *const reductions[] = {"none", "mean", "sum"};
  loss l;
  if (!loss_args(c, false, &l) || l.mx->rank < 2)
    return NNS_E_NOTFOUND;
  NEED(l.w ? STEP(c->outs[0], "NegativeLogLikelihoodLoss", l.x, l.y, l.w)
           : STEP(c->outs[0], "NegativeLogLikelihoodLoss", l.x, l.y));
  const char *red = reductions[l.reduction];
  A_TRY(nns_builder_attr_string(c->b, "reduction", red, strlen(red), c->err));
  A_TRY(attr_int(c, "ignore_index", nns__aten_int(c, "ignore_index", -100)));
  return unwritten(c, 1);
}

/* nll_loss_backward / nll_loss2d_backward (grad_output, self, target,
 * weight, reduction, ignore_index, total_weight): zeros of x's sizes and,
 * at each label's class (axis 1), -g (times its weight, over total_weight
 * for a mean), 0 where the label is ignore_index: a scatter. */
static nns_status nll_loss_backward(nns__aten_call *c,
                                    const nns__aten_op *op) {
  (void)op;
  loss l;
  const char *u, *m, *idx, *upd;
  const char *tw = A_T(c, "total_weight");
  const nns__aten_meta *mt;
  if (!loss_args(c, true, &l) || l.mx->rank < 2 ||
      !(mt = A_META(c, l.y)) || numel(mt) < 0 || numel(l.mx) < 0)
    return NNS_E_NOTFOUND;
  int64_t one = 1, ign = nns__aten_int(c, "ignore_index", -100);
  size_t first = *c->node_count;
  u = l.g;
  if (l.reduction)
    NEED(u = STEP(NULL, "Expand", u,
                  nns__aten_const_ints(c, mt->dims, mt->rank, false)));
  NEED(u = STEP(NULL, "Neg", u));
  if (l.w) {
    const char *wl;
    NEED(wl = STEP(NULL, "Gather", l.w, l.y));
    A_TRY(attr_int(c, "axis", 0));
    NEED(u = STEP(NULL, "Mul", u, wl));
  }
  if (l.reduction == 1 && tw)
    NEED(u = STEP(NULL, "Div", u, tw));
  NEED(m = STEP(NULL, "Equal", l.y, nns__aten_const_ints(c, &ign, 1, true)));
  NEED(u = STEP(NULL, "Where", m, SC(0.0, l.mx), u));
  NEED(idx = STEP(NULL, "Unsqueeze", l.y,
                  nns__aten_const_ints(c, &one, 1, false)));
  NEED(upd = STEP(NULL, "Unsqueeze", u,
                  nns__aten_const_ints(c, &one, 1, false)));
  NEED(STEP(c->outs[0], "ScatterElements",
            nns__aten_filler(c, l.mx->dtype, l.mx->rank, l.mx->dims), idx,
            upd));
  A_TRY(attr_int(c, "axis", 1));
  return nns__aten_kernel(c, first);
}

/* ==== The table ==== */

/* Sorted by name (nns__aten_find bisects; a unit test checks the order). */
static const nns__aten_op table[] = {
    RULE("_is_all_true", "Cast, ReduceMin, Cast", all_any),
    RULE("_log_softmax", "LogSoftmax", nns__aten_softmax),
    RULE("_log_softmax_backward_data", "Exp, ReduceSum, Mul, Sub",
         softmax_backward),
    RULE("_prelu_kernel", "PRelu", prelu),
    RULE("_safe_softmax", "Softmax", nns__aten_softmax),
    RULE("_softmax_backward_data", "Mul, ReduceSum, Sub, Mul",
         softmax_backward),
    UN("acos", "Acos"),
    UN("acosh", "Acosh"),
    RULE("addmv", "MatMul, Add", matmul_add),
    RULE("all", "Cast, ReduceMin, Cast", all_any),
    RULE("amax", "ReduceMax", reduce_attr),
    RULE("amin", "ReduceMin", reduce_attr),
    RULE("aminmax", "ReduceMin, ReduceMax", aminmax),
    RULE("any", "Cast, ReduceMax, Cast", all_any),
    RULE("argmax", "ArgMax", arg_reduce),
    RULE("argmin", "ArgMin", arg_reduce),
    UN("asin", "Asin"),
    UN("asinh", "Asinh"),
    UN("atan", "Atan"),
    UN("atanh", "Atanh"),
    RULE("baddbmm", "MatMul, Add", matmul_add),
    CREATE("bernoulli"),
    RULE("binary_cross_entropy", "Log, Max, Sub, Mul, Add, Neg", bce),
    RULE("binary_cross_entropy_backward", "Sub, Mul, Max, Div", bce_backward),
    RULE_READS_AT_NODES("binary_cross_entropy_with_logits",
                        "Sigmoid, Log, Sub, Mul", bce_logits),
    RULE("binary_cross_entropy_with_logits_backward", "Sigmoid, Sub, Mul",
         bce_logits_backward),
    BIN("bitwise_xor", "Xor"),
    RULE("clamp_max", "Clip / Min", clamp_side),
    RULE("clamp_min", "Clip / Max", clamp_side),
    RULE("copy", "(its source)", copy),
    UN("cosh", "Cosh"),
    RULE("dot", "MatMul", nns__aten_matmul),
    RULE("elu", "Elu", alpha_act),
    CREATE("empty_strided"),
    RULE("erfinv", "erfinv (pytorch.aten)", aten_domain),
    RULE("expm1", "Exp, Sub", shifted),
    CREATE("eye"),
    CREATE("fill"),
    RULE("floor_divide", "Div, Floor", floor_divide),
    RULE("gelu_backward", "Div, Erf, Add, Mul, Exp", gelu_backward),
    RULE("glu", "Split, Sigmoid, Mul", glu),
    RULE("histc", "Reshape, Sub, Mul, Floor, Cast, ScatterElements", histc),
    RULE("huber_loss", "Sub, Abs, Less, Mul, Where", smooth_loss),
    RULE("huber_loss_backward", "Sub, Clip, Mul", smooth_backward),
    UN("isinf", "IsInf"),
    UN("isnan", "IsNaN"),
    RULE("leaky_relu", "LeakyRelu", alpha_act),
    ALIAS("lift"),
    ALIAS("lift_fresh"),
    RULE("linalg_vector_norm", "ReduceL2 / ReduceL1 / Abs, Pow, ReduceSum, Pow",
         vector_norm),
    CREATE("linspace"),
    RULE("log1p", "Add, Log", shifted),
    RULE("log2", "Log, Div", shifted),
    RULE_UNWRITTEN_1("log_sigmoid_forward", "Sigmoid, Log", log_sigmoid),
    BIN("logical_xor", "Xor"),
    RULE("logsumexp", "ReduceLogSumExp", reduce_attr),
    RULE("max", "Max", max_min),
    RULE("min", "Min", max_min),
    RULE("mish", "Softplus, Tanh, Mul", mish),
    RULE("mse_loss", "Sub, Mul", mse_loss),
    RULE("mse_loss_backward", "Sub, Mul", mse_loss_backward),
    RULE("mv", "MatMul", nns__aten_matmul),
    RULE("nan_to_num", "IsNaN, IsInf, Where", nan_to_num),
    RULE_UNWRITTEN_1("native_dropout", "Dropout", dropout),
    CREATE("new_empty"),
    CREATE("new_empty_strided"),
    CREATE("new_full"),
    RULE_UNREAD("nll_loss2d_backward", "Neg, Equal, Where, ScatterElements",
                nll_loss_backward, "self total_weight?reduction=1"),
    RULE_UNWRITTEN_1("nll_loss2d_forward", "NegativeLogLikelihoodLoss",
                     nll_loss),
    RULE_UNREAD("nll_loss_backward", "Neg, Equal, Where, ScatterElements",
                nll_loss_backward, "self total_weight?reduction=1"),
    RULE_UNWRITTEN_1("nll_loss_forward", "NegativeLogLikelihoodLoss",
                     nll_loss),
    RULE("norm", "ReduceL2 / ReduceL1 / Abs, Pow, ReduceSum, Pow", vector_norm),
    CREATE("normal"),
    ALIAS("positive"),
    RULE("prelu", "PRelu", prelu),
    RULE("prod", "ReduceProd", reduce_attr),
    CREATE("rand"),
    CREATE("rand_like"),
    CREATE("randn"),
    CREATE("randn_like"),
    RULE("remainder", "Mod", remainder_),
    UN("round", "Round"),
    UN("sgn", "Sign"),
    RULE("sigmoid_backward", "Sub, Mul, Mul", act_backward),
    UN("sign", "Sign"),
    RULE("silu_backward", "Sigmoid, Sub, Mul, Add", silu_backward),
    UN("sinh", "Sinh"),
    RULE("smooth_l1_loss", "Sub, Abs, Less, Mul, Where", smooth_loss),
    RULE("smooth_l1_loss_backward", "Sub, Abs, Less, Div, Sign, Where",
         smooth_backward),
    UN("softplus", "Softplus"),
    RULE("std", "Sqrt of the variance", variance),
    RULE("std_mean", "Sqrt of the variance, Reshape", variance),
    UN("tan", "Tan"),
    RULE("tanh_backward", "Mul, Sub, Mul", act_backward),
    CREATE("tensor"),
    RULE("threshold_backward", "Greater, Where", threshold_backward),
    CREATE("uniform"),
    RULE("var", "ReduceMean, Sub, Mul, ReduceSum, Div", variance),
    RULE("var_mean", "ReduceMean, Sub, Mul, ReduceSum, Div, Reshape",
         variance),
    RULE("xlogy", "Log, Mul, Equal, Where", xlogy),
    CREATE("zero"),
};

const nns__aten_family nns__aten_math = {table,
                                         sizeof table / sizeof table[0]};
