/*
 * activation.c - activation functions: the element-wise ones (Relu and its
 * relatives, Sigmoid, Tanh, Softplus, ...), PRelu with its learned slope,
 * the normalising Softmax / LogSoftmax / Hardmax, and Dropout (identity at
 * inference, with an optional mask output).
 *
 * Every output has its input's shape; the rules mostly validate attributes
 * and the odd second input. Folds exist for small float constants (and
 * integer Relu), so that constant subgraphs built from these still resolve.
 * Costs are FLOPs per element (docs/metrics.md); inference Dropout is a
 * view.
 */
#include <math.h>
#include <string.h>

#include "elem.h"
#include "rf_axes.h"

/* ==== Element-wise activations ==== */

typedef enum act_op {
  A_RELU, A_LEAKY_RELU, A_ELU, A_SELU, A_CELU, A_THRESHOLDED_RELU,
  A_SIGMOID, A_HARD_SIGMOID, A_HARD_SWISH, A_TANH, A_SOFTPLUS, A_SOFTSIGN,
  A_SHRINK
} act_op;

/* The attributes a kernel reads, fetched once per node. */
typedef struct act_params {
  double alpha, beta, gamma; /* as the op defines them (0 when it has none) */
  double lambd, bias;        /* Shrink */
} act_params;

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* The formulas of the ONNX operator documents. */
static double act(act_op op, const act_params *p, double x) {
  switch (op) {
  case A_RELU: return x < 0 ? 0 : x;
  case A_LEAKY_RELU: return x < 0 ? p->alpha * x : x;
  case A_ELU: return x < 0 ? p->alpha * (exp(x) - 1) : x;
  case A_SELU: return x <= 0 ? p->gamma * (p->alpha * exp(x) - p->alpha)
                             : p->gamma * x;
  case A_CELU: {
    double neg = p->alpha != 0 ? p->alpha * (exp(x / p->alpha) - 1) : 0;
    return (x > 0 ? x : 0) + (neg < 0 ? neg : 0);
  }
  case A_THRESHOLDED_RELU: return x > p->alpha ? x : 0;
  case A_SIGMOID:
    return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));
  case A_HARD_SIGMOID: return clamp01(p->alpha * x + p->beta);
  case A_HARD_SWISH: return x * clamp01(x / 6 + 0.5);
  case A_TANH: return tanh(x);
  case A_SOFTPLUS: /* log(1 + e^x) without overflow */
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
  case A_SOFTSIGN: return x / (1 + fabs(x));
  case A_SHRINK:
    return x < -p->lambd ? x + p->bias : x > p->lambd ? x - p->bias : 0;
  }
  return NAN;
}

static nns_status act_fold(nns__ictx *cx, act_op op) {
  const nns__const *x = nns__const_in(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !y || x->numel != y->numel)
    return NNS__NOFOLD;
  act_params p = {nns__attr_float(cx, "alpha"), nns__attr_float(cx, "beta"),
                  nns__attr_float(cx, "gamma"), nns__attr_float(cx, "lambd"),
                  nns__attr_float(cx, "bias")};
  int32_t dt = cx->node->out[0]->type.dtype;
  for (int64_t k = 0; k < y->numel; k++) {
    if (y->i && x->i && op == A_RELU) {
      /* A symbol may stand for a negative number: its Relu is unknown. */
      nns__dim d = x->i[k];
      y->i[k] = d.sym ? nns__fresh(cx) : nns__dim_known(d.v < 0 ? 0 : d.v);
      continue;
    }
    double v;
    int64_t iv;
    if (!nns__elem_f(x, k, &v))
      return NNS__NOFOLD;
    v = act(op, &p, v);
    if (y->f) {
      if (!nns__to_float_dtype(v, dt, &y->f[k]))
        return NNS__NOFOLD;
    } else if (y->i && nns__float_to_int(v, dt, &iv)) {
      y->i[k] = nns__dim_known(iv); /* integer Shrink, LeakyRelu */
    } else {
      return NNS__NOFOLD;
    }
  }
  return NNS_OK;
}

#define FOLD_WITH(name, op)                                                    \
  static nns_status name##_fold(nns__ictx *cx) { return act_fold(cx, op); }
FOLD_WITH(relu, A_RELU)
FOLD_WITH(leaky_relu, A_LEAKY_RELU)
FOLD_WITH(elu, A_ELU)
FOLD_WITH(selu, A_SELU)
FOLD_WITH(celu, A_CELU)
FOLD_WITH(thresholded_relu, A_THRESHOLDED_RELU)
FOLD_WITH(sigmoid, A_SIGMOID)
FOLD_WITH(hard_sigmoid, A_HARD_SIGMOID)
FOLD_WITH(hard_swish, A_HARD_SWISH)
FOLD_WITH(tanh, A_TANH)
FOLD_WITH(softplus, A_SOFTPLUS)
FOLD_WITH(softsign, A_SOFTSIGN)
FOLD_WITH(shrink, A_SHRINK)
#undef FOLD_WITH

static nns_status celu_shape(nns__ictx *cx) {
  if (nns__attr_float(cx, "alpha") == 0)
    return nns__fail(cx, NNS_E_ATTR, "alpha must not be 0");
  return nns__same_shape(cx);
}

static nns_status shrink_shape(nns__ictx *cx) {
  if (nns__attr_float(cx, "lambd") < 0)
    return nns__fail(cx, NNS_E_ATTR, "lambd is %g, must not be negative",
                     nns__attr_float(cx, "lambd"));
  return nns__same_shape(cx);
}

/* ==== PRelu ==== */

/*
 * Y has X's shape. From opset 7 the slope must broadcast to X in one
 * direction (numpy rules, the result never larger than X): PyTorch gives
 * [C] for a 1-D input or [C, 1, 1] for images. Opsets 1-6 had looser,
 * per-channel rules that this does not check.
 */
static nns_status prelu_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 2);
  if (st != NNS_OK)
    return st;
  nns__out_like(cx, 0, 0, 0);
  const nns__type *x = nns__in_type(cx, 0), *s = nns__in_type(cx, 1);
  if (cx->opset < 7 || x->rank < 0 || s->rank < 0)
    return NNS_OK;
  if (s->rank > x->rank)
    return nns__fail(cx, NNS_E_SHAPE,
                     "slope has rank %d, more than the input's %d", s->rank,
                     x->rank);
  for (int32_t k = 0; k < s->rank; k++) {
    nns__dim a = x->dims[x->rank - s->rank + k], b = s->dims[k];
    if (!a.sym && !b.sym && b.v != 1 && a.v != b.v)
      return nns__fail(cx, NNS_E_SHAPE,
                       "slope dim %d is %lld, input dim %d is %lld: does not "
                       "broadcast",
                       k, (long long)b.v, x->rank - s->rank + k,
                       (long long)a.v);
  }
  return NNS_OK;
}

/* ==== Softmax, LogSoftmax, Hardmax ==== */

/* Before opset 13 the input is coerced to 2-D [prod(:axis), prod(axis:)]
 * and normalised along the second; from 13 along `axis` alone. Opsets
 * before 11 also accept axis = rank (a single column). */
static nns_status axis_of(nns__ictx *cx, int32_t rank, int32_t *axis) {
  int64_t a = nns__attr_int(cx, "axis");
  if (cx->opset < 11 && a == rank) {
    *axis = rank;
    return NNS_OK;
  }
  return nns__axis_or_fail(cx, a, rank, axis, "axis");
}

static nns_status softmax_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st != NNS_OK)
    return st;
  int32_t rank = nns__in_rank(cx, 0), axis;
  if (rank >= 0 && (st = axis_of(cx, rank, &axis)) != NNS_OK)
    return st;
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

typedef enum norm_op { N_SOFTMAX, N_LOG_SOFTMAX, N_HARDMAX } norm_op;

static nns_status norm_fold(nns__ictx *cx, norm_op op) {
  const nns__const *x = nns__const_in(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !y || !x->f || !y->f || x->numel != y->numel)
    return NNS__NOFOLD;
  const nns__type *t = nns__in_type(cx, 0);
  int32_t axis;
  int64_t a = nns__attr_int(cx, "axis");
  if (cx->opset < 11 && a == t->rank)
    axis = t->rank;
  else if (!nns__axis(a, t->rank, &axis))
    return NNS__NOFOLD;
  /* The element count fits NNS__FOLD_MAX, so these products cannot
   * overflow. */
  int64_t outer = 1, n = 1, inner = 1;
  for (int32_t k = 0; k < t->rank; k++) {
    if (k < axis)
      outer *= t->dims[k].v;
    else if (k == axis || cx->opset < 13)
      n *= t->dims[k].v;
    else
      inner *= t->dims[k].v;
  }
  int32_t dt = cx->node->out[0]->type.dtype;
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t i = 0; i < inner; i++) {
      const double *xs = x->f + o * n * inner + i;
      double *ys = y->f + o * n * inner + i;
      double max = -INFINITY, sum = 0;
      int64_t arg = 0;
      for (int64_t k = 0; k < n; k++)
        if (xs[k * inner] > max || k == 0) {
          max = xs[k * inner];
          arg = k;
        }
      for (int64_t k = 0; k < n; k++)
        sum += exp(xs[k * inner] - max);
      for (int64_t k = 0; k < n; k++) {
        double d = xs[k * inner] - max, v;
        if (op == N_SOFTMAX)
          v = exp(d) / sum;
        else if (op == N_LOG_SOFTMAX)
          v = d - log(sum);
        else
          v = k == arg; /* the first maximum, as the spec says */
        if (!nns__to_float_dtype(v, dt, &ys[k * inner]))
          return NNS__NOFOLD;
      }
    }
  }
  return NNS_OK;
}

static nns_status softmax_fold(nns__ictx *cx) {
  return norm_fold(cx, N_SOFTMAX);
}
static nns_status log_softmax_fold(nns__ictx *cx) {
  return norm_fold(cx, N_LOG_SOFTMAX);
}
static nns_status hardmax_fold(nns__ictx *cx) {
  return norm_fold(cx, N_HARDMAX);
}

/* ==== Dropout ==== */

/*
 * output: the input's type; mask (optional): same shape, the input's dtype
 * before opset 10, bool from 10. From opset 12 the ratio and training mode
 * are (scalar) inputs.
 */
static nns_status dropout_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st != NNS_OK)
    return st;
  double ratio = nns__attr_float(cx, "ratio");
  const nns__const *r = cx->opset >= 12 ? nns__const_in(cx, 1) : NULL;
  if (r && r->numel == 1)
    nns__elem_f(r, 0, &ratio);
  if (!(ratio >= 0 && ratio <= 1))
    return nns__fail(cx, NNS_E_ATTR, "ratio is %g, must be in [0, 1]",
                     ratio);
  for (int i = 1; i <= 2 && cx->opset >= 12; i++) {
    int64_t n = nns__in_numel(cx, i);
    if (nns__has_in(cx, i) && n > 1)
      return nns__fail(cx, NNS_E_SHAPE, "%s must be a scalar, has %lld "
                       "elements", i == 1 ? "ratio" : "training_mode",
                       (long long)n);
  }
  nns__out_like(cx, 0, 0, 0);
  if (nns__has_out(cx, 1))
    nns__out_like(cx, 1, 0, cx->opset >= 10 ? NNS_DT_BOOL : 0);
  return NNS_OK;
}

/*
 * Whether the node drops elements: 1 in training mode with a ratio that is
 * not 0 (or not known), 0 when it is the identity (inference, or ratio 0),
 * -1 when the training mode is not known. Opsets 7-11 have no training
 * switch, 1-6 have is_test, 12+ the training_mode input (absent: false).
 */
static int dropout_drops(nns__ictx *cx) {
  bool training;
  if (cx->opset < 7) {
    training = nns__attr_int(cx, "is_test") == 0;
  } else if (cx->opset < 12 || !nns__has_in(cx, 2)) {
    training = false;
  } else {
    const nns__const *m = nns__const_in(cx, 2);
    if (!m || m->numel != 1 || !m->i || m->i[0].sym)
      return -1;
    training = m->i[0].v != 0;
  }
  if (!training)
    return 0;
  double ratio = nns__attr_float(cx, "ratio");
  if (cx->opset >= 12) {
    const nns__const *r = nns__const_in(cx, 1);
    ratio = 0.5; /* the input's default */
    if (nns__has_in(cx, 1) &&
        (!r || r->numel != 1 || !nns__elem_f(r, 0, &ratio)))
      return 1;
  }
  return ratio != 0;
}

/* Copies the input when the node is known not to drop anything. */
static nns_status dropout_fold(nns__ictx *cx) {
  if (dropout_drops(cx) != 0)
    return NNS__NOFOLD;
  const nns__const *x = nns__const_in(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !y || x->numel != y->numel)
    return NNS__NOFOLD;
  for (int64_t k = 0; k < y->numel; k++) {
    if (y->i && x->i)
      y->i[k] = x->i[k];
    else if (y->f && x->f)
      y->f[k] = x->f[k];
    else
      return NNS__NOFOLD;
  }
  return NNS_OK;
}

/* ==== Cost rules ==== */

/* FLOPs per element of Y (METRICS.md where it lists the op; else the
 * composition of max/min, +, *, / and exp/log counted as 1 each, in
 * torchscan's way of counting ELU and LeakyReLU). */
#define ACT_COST(name, k)                                                      \
  static nns_status name##_cost(nns__ictx *cx, nns__cost *c) {                 \
    return nns__cost_eltwise(cx, c, k);                                        \
  }
ACT_COST(relu, 1)          /* max(x, 0) */
ACT_COST(thresholded, 1)   /* x > alpha ? x : 0 */
ACT_COST(hard_sigmoid, 3)  /* METRICS.md */
ACT_COST(softplus, 3)      /* log(exp(x) + 1) */
ACT_COST(softsign, 3)      /* x / (1 + |x|) */
ACT_COST(shrink, 3)        /* two comparisons, one add */
ACT_COST(sigmoid, 4)       /* neg, exp, add, div */
ACT_COST(leaky_relu, 4)    /* max, min, mul, add; PRelu too (its slope is
                              read once: DMAs include numel(slope)) */
ACT_COST(hard_swish, 5)    /* METRICS.md */
ACT_COST(elu, 6)           /* torchscan: max, exp, sub, mul, min, add */
ACT_COST(mish, 6)          /* METRICS.md */
ACT_COST(swish, 6)         /* x * sigmoid(alpha x): mul, Sigmoid's 4, mul */
ACT_COST(gelu, 8)          /* METRICS.md, either approximation */
ACT_COST(selu, 7)          /* Elu's 6 and the gamma scale */
ACT_COST(celu, 7)          /* Elu's 6 and the division x / alpha */
#undef ACT_COST

/* Tanh: 6 FLOPs per element, and X read twice (exp(x) and exp(-x)), as
 * METRICS.md and torchscan count it: DMAs 2 numel(X) + numel(Y). */
static nns_status tanh_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), y = nns__out_count(cx, c, 0);
  if (x < 0 || y < 0)
    return NNS__UNCOUNTED;
  return nns__cost_rw(cx, c, nns__cmul(c, 6, y), nns__cmul(c, 2, x));
}

/* Softmax, LogSoftmax: max, subtract, exp, sum, divide (or log and
 * subtract): 5 numel(X) (METRICS.md). */
static nns_status softmax_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_x(cx, c, 5, 0);
}

/* Hardmax: one comparison per element to find each row's maximum (as
 * ArgMax), then the one-hot output is written. */
static nns_status hardmax_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_x(cx, c, 1, 0);
}

/* Inference Dropout is a view (METRICS.md). In training mode torchscan
 * counts one random sample per element: FLOPs numel(X), DMAs X + Y + mask.
 * An unknown mode is taken as inference: nothing says it was exported in
 * training mode. */
static nns_status dropout_cost(nns__ictx *cx, nns__cost *c) {
  if (dropout_drops(cx) == 1)
    return nns__cost_x(cx, c, 1, 0);
  return nns__cost_view(cx, c);
}

/* ==== Attribute specs ==== */

static const nns__attr_spec consumed_attrs[] = {
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
/* Float defaults are the float32 values the schemas hold. */
static const nns__attr_spec leaky1_attrs[] = {
    NNS__A_FLOAT("alpha", 0.009999999776482582),
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
static const nns__attr_spec leaky6_attrs[] = {
    NNS__A_FLOAT("alpha", 0.009999999776482582), NNS__A_END};
static const nns__attr_spec alpha1_consumed_attrs[] = {
    NNS__A_FLOAT("alpha", 1.0), NNS__A_OPT("consumed_inputs", INTS),
    NNS__A_END};
static const nns__attr_spec alpha1_attrs[] = {NNS__A_FLOAT("alpha", 1.0),
                                              NNS__A_END};
static const nns__attr_spec selu1_attrs[] = {
    NNS__A_FLOAT("alpha", 1.673200011253357),
    NNS__A_FLOAT("gamma", 1.0506999492645264),
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
static const nns__attr_spec selu6_attrs[] = {
    NNS__A_FLOAT("alpha", 1.6732631921768188),
    NNS__A_FLOAT("gamma", 1.0507010221481323), NNS__A_END};
static const nns__attr_spec hard_sigmoid1_attrs[] = {
    NNS__A_FLOAT("alpha", 0.20000000298023224), NNS__A_FLOAT("beta", 0.5),
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
static const nns__attr_spec hard_sigmoid6_attrs[] = {
    NNS__A_FLOAT("alpha", 0.20000000298023224), NNS__A_FLOAT("beta", 0.5),
    NNS__A_END};
static const nns__attr_spec gelu_attrs[] = {NNS__A_STR("approximate", "none"),
                                             NNS__A_END};
static const nns__attr_spec swish_attrs[] = {NNS__A_FLOAT("alpha", 1.0),
                                             NNS__A_END};
static const nns__attr_spec shrink_attrs[] = {
    NNS__A_FLOAT("bias", 0.0), NNS__A_FLOAT("lambd", 0.5), NNS__A_END};
static const nns__attr_spec axis1_attrs[] = {NNS__A_INT("axis", 1),
                                             NNS__A_END};
static const nns__attr_spec axis13_attrs[] = {NNS__A_INT("axis", -1),
                                              NNS__A_END};
static const nns__attr_spec dropout1_attrs[] = {
    NNS__A_INT("is_test", 0), NNS__A_FLOAT("ratio", 0.5),
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
static const nns__attr_spec dropout6_attrs[] = {
    NNS__A_INT("is_test", 0), NNS__A_FLOAT("ratio", 0.5), NNS__A_END};
static const nns__attr_spec dropout7_attrs[] = {NNS__A_FLOAT("ratio", 0.5),
                                                NNS__A_END};
static const nns__attr_spec dropout12_attrs[] = {NNS__A_OPT("seed", INT),
                                                 NNS__A_END};

/* ==== The table ==== */

/* Activations that lost consumed_inputs in opset 6. */
#define ACT_1_6(nm, attrs1, attrs6, shape, fold, cf)                           \
  {"", nm, 1, 5, "a", attrs1, shape, fold, .cost = cf},                        \
  {"", nm, 6, NNS__OPSET_MAX, "a", attrs6, shape, fold, .cost = cf}
/* Softmax over a spatial dim mixes every position along it into each
 * output (global context); before opset 13 it works on the dims from
 * `axis` on, from 13 on `axis` only. */
static nns_status softmax1_rf(nns__ictx *cx, const nns__rf *in,
                              nns__rf *out) {
  return nns__rf_mix_from(cx, nns__attr_int(cx, "axis"), in, out);
}
static nns_status softmax13_rf(nns__ictx *cx, const nns__rf *in,
                               nns__rf *out) {
  return nns__rf_mix_axis(cx, nns__attr_int(cx, "axis"), in, out);
}

#define SOFTMAX(nm, fold, cf, at)                                              \
  {"", nm, 1, 10, "a", axis1_attrs, softmax_shape, fold, .cost = cf,           \
   .rf = softmax1_rf, .rf_parts = true, .attn = at},                                             \
  {"", nm, 11, 12, "a", axis1_attrs, softmax_shape, fold, .cost = cf,          \
   .rf = softmax1_rf, .rf_parts = true, .attn = at},                                             \
  {"", nm, 13, NNS__OPSET_MAX, "a", axis13_attrs, softmax_shape, fold, .cost = cf,         \
   .rf = softmax13_rf, .rf_parts = true, .attn = at}

const nns__op nns__ops_activation[] = {
    ACT_1_6("Relu", consumed_attrs, NULL, nns__same_shape, relu_fold,
            relu_cost),
    ACT_1_6("LeakyRelu", leaky1_attrs, leaky6_attrs, nns__same_shape,
            leaky_relu_fold, leaky_relu_cost),
    ACT_1_6("Elu", alpha1_consumed_attrs, alpha1_attrs, nns__same_shape,
            elu_fold, elu_cost),
    ACT_1_6("Selu", selu1_attrs, selu6_attrs, nns__same_shape, selu_fold,
            selu_cost),
    ACT_1_6("Sigmoid", consumed_attrs, NULL, nns__same_shape, sigmoid_fold,
            sigmoid_cost),
    ACT_1_6("HardSigmoid", hard_sigmoid1_attrs, hard_sigmoid6_attrs,
            nns__same_shape, hard_sigmoid_fold, hard_sigmoid_cost),
    ACT_1_6("Tanh", consumed_attrs, NULL, nns__same_shape, tanh_fold,
            tanh_cost),
    {"", "Celu", 12, NNS__OPSET_MAX, "a", alpha1_attrs, celu_shape, celu_fold,
     .cost = celu_cost},
    {"", "ThresholdedRelu", 10, NNS__OPSET_MAX, "a", alpha1_attrs,
     nns__same_shape,
     thresholded_relu_fold, .cost = thresholded_cost},
    {"", "HardSwish", 14, NNS__OPSET_MAX, "a", NULL, nns__same_shape,
     hard_swish_fold,
     .cost = hard_swish_cost},
    {"", "Softplus", 1, NNS__OPSET_MAX, "a", NULL, nns__same_shape,
     softplus_fold,
     .cost = softplus_cost},
    {"", "Softsign", 1, NNS__OPSET_MAX, "a", NULL, nns__same_shape,
     softsign_fold,
     .cost = softsign_cost},
    {"", "Mish", 18, NNS__OPSET_MAX, "a", NULL, nns__same_shape, NULL,
     .cost = mish_cost},
    {"", "Gelu", 20, NNS__OPSET_MAX, "a", gelu_attrs, nns__same_shape, NULL,
     .cost = gelu_cost},
    {"", "Swish", 24, NNS__OPSET_MAX, "a", swish_attrs, nns__same_shape, NULL,
     .cost = swish_cost},
    {"", "Shrink", 9, NNS__OPSET_MAX, "a", shrink_attrs, shrink_shape,
     shrink_fold,
     .cost = shrink_cost},

    /* The slope is learned: a weight. */
    {"", "PRelu", 1, 5, "aw", consumed_attrs, prelu_shape, NULL,
     .cost = leaky_relu_cost},
    {"", "PRelu", 6, 6, "aw", NULL, prelu_shape, NULL, .cost = leaky_relu_cost},
    {"", "PRelu", 7, NNS__OPSET_MAX, "aw", NULL, prelu_shape, NULL,
     .cost = leaky_relu_cost},

    SOFTMAX("Softmax", softmax_fold, softmax_cost, NNS__ATTN_SOFTMAX),
    SOFTMAX("LogSoftmax", log_softmax_fold, softmax_cost, 0),
    SOFTMAX("Hardmax", hardmax_fold, hardmax_cost, 0),

    {"", "Dropout", 1, 5, "a", dropout1_attrs, dropout_shape, dropout_fold,
     .cost = dropout_cost, .attn = NNS__ATTN_KEEP},
    {"", "Dropout", 6, 6, "a", dropout6_attrs, dropout_shape, dropout_fold,
     .cost = dropout_cost, .attn = NNS__ATTN_KEEP},
    {"", "Dropout", 7, 9, "a", dropout7_attrs, dropout_shape, dropout_fold,
     .cost = dropout_cost, .attn = NNS__ATTN_KEEP},
    {"", "Dropout", 10, 11, "a", dropout7_attrs, dropout_shape, dropout_fold,
     .cost = dropout_cost, .attn = NNS__ATTN_KEEP},
    {"", "Dropout", 12, NNS__OPSET_MAX, "acc", dropout12_attrs, dropout_shape,
     dropout_fold, .cost = dropout_cost, .attn = NNS__ATTN_KEEP},
    NNS__OP_END,
};
