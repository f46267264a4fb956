/*
 * eltwise.c - element-wise operators: binary arithmetic with numpy (and, in
 * opsets before 7, legacy axis) broadcasting, comparisons and logic, the
 * variadic Max/Min/Sum/Mean, unary math, Where, Cast/CastLike, Clip and Det.
 *
 * Most of these take part in the shape arithmetic of PyTorch exports
 * (`Shape(x)[0] * 2`, `Where(Equal(shape, -1), ...)`, `Cast`), so their fold
 * rules are small kernels over nns__const values. Integer folds run on
 * symbolic dims, so `Shape(x)[0] * 2` stays "2*batch" instead of becoming
 * unknown; where an integer result cannot be expressed (Max of a symbol and
 * a number) the element becomes a fresh symbol, never a guess.
 *
 * Cost (docs/metrics.md): one FLOP per output element for arithmetic,
 * comparisons and logic, and for the primitive functions (exp, log, sqrt,
 * sin, ...); functions that are compositions of them count the composition,
 * as METRICS.md counts Sigmoid and Tanh. Cast moves data (0 FLOPs).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "elem.h"

/* ==== Element helpers (elem.h) ==== */

/* Fails the node unless inputs 0..n-1 are all present. */
nns_status nns__need_inputs(nns__ictx *cx, int n) {
  for (int i = 0; i < n; i++)
    if (!nns__has_in(cx, i))
      return nns__fail(cx, NNS_E_MODEL, "input %d is missing (%d required)",
                       i, n);
  return NNS_OK;
}

/* The rule of every unary element-wise op: output 0 is input 0's type. */
nns_status nns__same_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st == NNS_OK)
    nns__out_like(cx, 0, 0, 0);
  return st;
}

/* The known contents of input i, provided its type is static and agrees
 * with the element count: fold kernels index by the type's dims. */
const nns__const *nns__const_in(nns__ictx *cx, int i) {
  const nns__const *c = nns__in_const(cx, i);
  if (!c || nns__in_numel(cx, i) != c->numel)
    return NULL;
  return c;
}

/* Element k of a constant as a double; false when it is a symbol or the
 * constant holds no numbers. */
bool nns__elem_f(const nns__const *c, int64_t k, double *out) {
  if (c->f) {
    *out = c->f[k];
    return true;
  }
  if (c->i && !c->i[k].sym) {
    *out = (double)c->i[k].v;
    return true;
  }
  return false;
}

/* Rounds half to even, the rounding of ONNX Round and of float casts. Does
 * not depend on the floating-point environment. */
double nns__round_even(double x) {
  if (!isfinite(x) || fabs(x) >= 4503599627370496.0) /* 2^52: integral */
    return x;
  double r = floor(x + 0.5);
  if (r - x == 0.5 && fmod(r, 2.0) != 0.0)
    r -= 1.0;
  return r;
}

/* Rounds x to a binary float with `mant` fraction bits, smallest normal
 * exponent `emin` and largest finite value `max` (IEEE overflow to inf). */
static double round_float(double x, int mant, int emin, double max) {
  if (!isfinite(x) || x == 0.0)
    return x;
  int e;
  frexp(x, &e); /* x = f * 2^e, 0.5 <= |f| < 1 */
  e -= 1;       /* x = g * 2^e, 1 <= |g| < 2 */
  if (e < emin)
    e = emin; /* subnormal: fixed quantum */
  double q = ldexp(1.0, e - mant);
  double r = nns__round_even(x / q) * q;
  if (fabs(r) > max)
    return copysign(INFINITY, x);
  return r;
}

/* A double as an element of float dtype `dt`; false for dtypes this does
 * not round to (the float8 types, whose saturation rules are opset 19's). */
bool nns__to_float_dtype(double x, int32_t dt, double *out) {
  switch (dt) {
  case NNS_DT_DOUBLE: *out = x; return true;
  case NNS_DT_FLOAT: *out = round_float(x, 23, -126, FLT_MAX); return true;
  case NNS_DT_FLOAT16: *out = round_float(x, 10, -14, 65504.0); return true;
  case NNS_DT_BFLOAT16:
    *out = round_float(x, 7, -126, 3.3895313892515355e38);
    return true;
  default: return false;
  }
}

bool nns__dtype_unsigned(int32_t dt) {
  return dt == NNS_DT_UINT8 || dt == NNS_DT_UINT16 || dt == NNS_DT_UINT32 ||
         dt == NNS_DT_UINT64 || dt == NNS_DT_UINT4 || dt == NNS_DT_BOOL;
}

/* An integer as integer dtype `dt`, wrapping to its width as a C cast to
 * that type does (bool: any non-zero is 1). */
int64_t nns__wrap_int(int64_t v, int32_t dt) {
  if (dt == NNS_DT_BOOL)
    return v != 0;
  int bits = nns__dtype_bits(dt);
  if (bits <= 0 || bits >= 64)
    return v;
  uint64_t mask = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & mask;
  if (!nns__dtype_unsigned(dt) && (u >> (bits - 1)))
    return (int64_t)(u | ~mask); /* sign-extend */
  return (int64_t)u;
}

/* A double truncated toward zero into integer dtype `dt`; false when NaN,
 * infinite or outside the dtype's range (the C conversion would be UB). */
bool nns__float_to_int(double x, int32_t dt, int64_t *out) {
  if (dt == NNS_DT_BOOL) {
    *out = x != 0.0;
    return true;
  }
  if (!isfinite(x))
    return false;
  double t = trunc(x);
  int bits = nns__dtype_bits(dt);
  if (bits <= 0 || bits > 64)
    return false;
  if (nns__dtype_unsigned(dt)) {
    if (t < 0 || t >= ldexp(1.0, bits))
      return false;
    *out = (int64_t)(uint64_t)t; /* uint64 above INT64_MAX wraps, as decoded */
    return true;
  }
  if (t < -ldexp(1.0, bits - 1) || t >= ldexp(1.0, bits - 1))
    return false;
  *out = (int64_t)t;
  return true;
}

/* Flat index into a broadcast input: maps output element `o` (of rank r,
 * dims od) to the element of an input whose dims `id` are aligned to the
 * output's rank (missing leading or legacy-axis dims are 1). */
int64_t nns__bcast_index(int64_t o, int32_t r, const nns__dim *od,
                         const nns__dim *id) {
  int64_t idx = 0, stride = 1;
  for (int32_t k = r - 1; k >= 0; k--) {
    int64_t ok = o % od[k].v;
    o /= od[k].v;
    if (id[k].v != 1)
      idx += ok * stride;
    stride *= id[k].v;
  }
  return idx;
}

/* Input i's dims aligned to rank r, its own dims starting at `off` and 1
 * elsewhere; NULL when they do not fit the output dims od (or out of
 * memory), so that indexing can never leave the input. */
nns__dim *nns__aligned_dims(nns__ictx *cx, int i, int32_t r, int32_t off,
                            const nns__dim *od) {
  const nns__type *t = nns__in_type(cx, i);
  if (!t || t->rank < 0 || off < 0 || off > r - t->rank)
    return NULL;
  for (int32_t k = 0; k < t->rank; k++)
    if (t->dims[k].sym ||
        (t->dims[k].v != 1 && !nns__dim_eq(t->dims[k], od[off + k])))
      return NULL;
  nns__dim *d = nns__alloc(cx, ((size_t)r + 1) * sizeof *d);
  if (!d)
    return NULL;
  for (int32_t k = 0; k < r; k++)
    d[k] = nns__dim_known(1);
  for (int32_t k = 0; k < t->rank; k++)
    d[off + k] = t->dims[k];
  return d;
}

/* ==== Broadcasting shape rules ==== */

/* Legacy broadcasting with an explicit axis: B's dims are not aligned to
 * A's trailing dims but start at `axis`. The legacy-broadcast entries
 * (opsets 1-6) are those that declare `broadcast` and `axis`. */
static bool legacy_axis(const nns__ictx *cx) {
  return nns__spec_has(cx, "broadcast") &&
         nns__attr_int(cx, "broadcast") != 0 && nns__attr_has(cx, "axis");
}

/*
 * Opsets before 7 broadcast only when `broadcast` = 1, and then B onto A:
 * B's dims match a contiguous run of A's dims starting at `axis` (by default
 * the trailing ones). The output has A's shape. Sets *off to where B's dims
 * start in A's.
 */
static nns_status legacy_offset(nns__ictx *cx, int32_t ra, int32_t rb,
                                int32_t *off) {
  if (nns__attr_int(cx, "broadcast") == 0) {
    if (ra != rb)
      return nns__fail(cx, NNS_E_SHAPE,
                       "broadcast=0 but the inputs have ranks %d and %d", ra,
                       rb);
    *off = 0;
    return NNS_OK;
  }
  if (rb > ra)
    return nns__fail(cx, NNS_E_SHAPE,
                     "B (rank %d) cannot be broadcast onto A (rank %d)", rb,
                     ra);
  *off = ra - rb;
  if (nns__attr_has(cx, "axis")) {
    int64_t axis = nns__attr_int(cx, "axis");
    if (axis < 0)
      axis += ra;
    if (axis < 0 || axis > ra - rb)
      return nns__fail(cx, NNS_E_ATTR,
                       "axis %lld does not fit B (rank %d) into A (rank %d)",
                       (long long)nns__attr_int(cx, "axis"), rb, ra);
    *off = (int32_t)axis;
  }
  return NNS_OK;
}

static nns_status legacy_shape(nns__ictx *cx, int32_t dtype) {
  nns_status st = nns__need_inputs(cx, 2);
  if (st != NNS_OK)
    return st;
  const nns__type *a = nns__in_type(cx, 0), *b = nns__in_type(cx, 1);
  nns__out_like(cx, 0, 0, dtype);
  if (a->rank < 0 || b->rank < 0)
    return NNS_OK;
  int32_t off = 0;
  if ((st = legacy_offset(cx, a->rank, b->rank, &off)) != NNS_OK)
    return st;
  bool bcast = nns__attr_int(cx, "broadcast") != 0;
  for (int32_t k = 0; k < b->rank; k++) {
    nns__dim x = a->dims[off + k], y = b->dims[k];
    if (!x.sym && !y.sym && x.v != y.v && !(bcast && y.v == 1))
      return nns__fail(cx, NNS_E_SHAPE,
                       "B's dim %d is %lld but A's dim %d is %lld", k,
                       (long long)y.v, off + k, (long long)x.v);
  }
  return NNS_OK;
}

/* Binary ops whose output has the first input's dtype. */
static nns_status binary_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 2);
  if (st != NNS_OK)
    return st;
  if (nns__spec_has(cx, "broadcast"))
    return legacy_shape(cx, nns__in_dtype(cx, 0));
  return nns__broadcast(cx, 0, 2, 0, nns__in_dtype(cx, 0));
}

/* Comparisons and logic: bool output. */
static nns_status bool_binary_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 2);
  if (st != NNS_OK)
    return st;
  if (nns__spec_has(cx, "broadcast"))
    return legacy_shape(cx, NNS_DT_BOOL);
  return nns__broadcast(cx, 0, 2, 0, NNS_DT_BOOL);
}

static nns_status mod_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 2);
  if (st != NNS_OK)
    return st;
  if (nns__dtype_is_float(nns__in_dtype(cx, 0)) &&
      nns__attr_int(cx, "fmod") == 0)
    return nns__fail(cx, NNS_E_ATTR,
                     "Mod of floating-point inputs requires fmod=1");
  return nns__broadcast(cx, 0, 2, 0, nns__in_dtype(cx, 0));
}

static nns_status bitshift_shape(nns__ictx *cx) {
  const char *dir = nns__attr_str(cx, "direction");
  if (strcmp(dir, "LEFT") != 0 && strcmp(dir, "RIGHT") != 0)
    return nns__fail(cx, NNS_E_ATTR,
                     "direction is \"%s\", expected \"LEFT\" or \"RIGHT\"",
                     dir);
  return binary_shape(cx);
}

/* Max, Min, Sum, Mean: any number (>= 1) of inputs, broadcast together.
 * Before opset 8 the inputs had to have one shape; broadcasting equal
 * shapes gives that shape, and flags unequal ones that cannot broadcast. */
static nns_status variadic_shape(nns__ictx *cx) {
  int n = nns__n_in(cx);
  if (n < 1)
    return nns__fail(cx, NNS_E_MODEL, "needs at least one input");
  nns_status st = nns__need_inputs(cx, n);
  if (st != NNS_OK)
    return st;
  return nns__broadcast(cx, 0, n, 0, nns__in_dtype(cx, 0));
}

/* ==== Binary and variadic folds ==== */

typedef enum bin_op {
  B_ADD, B_SUB, B_MUL, B_DIV, B_POW, B_MOD, B_FMOD,
  B_EQ, B_LT, B_GT, B_LE, B_GE, B_AND, B_OR, B_XOR,
  B_MAX, B_MIN, B_MEAN /* B_MEAN sums; the fold divides at the end */
} bin_op;

/* x^y for a small non-negative integer exponent, symbols allowed. */
static bool int_pow(nns__ictx *cx, nns__dim x, int64_t y, nns__dim *r) {
  if (y < 0 || y > 64)
    return false;
  nns__dim p = nns__dim_known(1);
  for (int64_t k = 0; k < y; k++) {
    if (!x.sym && !p.sym) {
      int64_t v;
      if (!nns__mul_i64(p.v, x.v, &v))
        return false;
      p = nns__dim_known(v);
    } else {
      p = nns__mul(cx, p, x);
    }
  }
  *r = p;
  return true;
}

/*
 * One integer step of op: *r = x op z. Symbols flow where the result is an
 * expression of them; where it is not, the element becomes a fresh symbol
 * (Max(batch, 2)) or, for comparisons and logic whose consumers branch on
 * the value, the whole fold gives up (false). Also false on division by
 * zero and overflow, which are undefined for ONNX integers.
 */
static bool bin_int(nns__ictx *cx, bin_op op, nns__dim x, nns__dim z,
                    nns__dim *r) {
  bool known = !x.sym && !z.sym;
  switch (op) {
  case B_ADD:
  case B_MEAN: *r = nns__add(cx, x, z); return true;
  case B_SUB: *r = nns__sub(cx, x, z); return true;
  case B_MUL: *r = nns__mul(cx, x, z); return true;
  case B_DIV:
    if (!z.sym && z.v == 0)
      return false;
    if (known && x.v == INT64_MIN && z.v == -1)
      return false;
    /* ONNX integer Div truncates toward zero; the symbolic floor division
     * agrees for the non-negative values shape arithmetic deals in. */
    *r = known ? nns__dim_known(x.v / z.v) : nns__div(cx, x, z);
    return true;
  case B_MOD:
    if (!z.sym && z.v == 0)
      return false;
    *r = nns__dim_mod(cx->m, x, z); /* Python-style: sign of the divisor */
    return true;
  case B_FMOD:
    if (!z.sym && z.v == 0)
      return false;
    if (!known)
      *r = nns__fresh(cx); /* C-style remainder differs for negatives */
    else
      *r = nns__dim_known(z.v == -1 ? 0 : x.v % z.v);
    return true;
  case B_POW:
    if (z.sym)
      return false;
    return int_pow(cx, x, z.v, r);
  case B_MAX:
  case B_MIN:
    if (nns__dim_eq(x, z))
      *r = x;
    else if (known)
      *r = nns__dim_known((op == B_MAX) == (x.v > z.v) ? x.v : z.v);
    else
      *r = nns__fresh(cx);
    return true;
  case B_EQ:
  case B_LT:
  case B_GT:
  case B_LE:
  case B_GE: {
    int c; /* -1, 0, 1 */
    if (nns__dim_eq(x, z))
      c = 0;
    else if (known)
      c = x.v < z.v ? -1 : 1;
    else
      return false;
    bool v = op == B_EQ   ? c == 0
             : op == B_LT ? c < 0
             : op == B_GT ? c > 0
             : op == B_LE ? c <= 0
                          : c >= 0;
    *r = nns__dim_known(v);
    return true;
  }
  case B_AND:
  case B_OR:
  case B_XOR:
    if (!known)
      return false;
    *r = nns__dim_known(op == B_AND   ? (x.v && z.v)
                        : op == B_OR ? (x.v || z.v)
                                     : (!x.v != !z.v));
    return true;
  }
  return false;
}

/* x / z with IEEE results for a zero divisor, written out so that no
 * sanitizer build trips on it. */
static double fdiv(double x, double z) {
  if (z != 0.0)
    return x / z;
  if (x == 0.0 || isnan(x))
    return NAN;
  return signbit(x) != signbit(z) ? -INFINITY : INFINITY;
}

/* One floating-point step of op; comparisons and logic give 0 or 1. */
static double bin_float(bin_op op, double x, double z) {
  switch (op) {
  case B_ADD:
  case B_MEAN: return x + z;
  case B_SUB: return x - z;
  case B_MUL: return x * z;
  case B_DIV: return fdiv(x, z);
  case B_POW: return pow(x, z);
  case B_FMOD: return z == 0.0 ? NAN : fmod(x, z);
  case B_MOD: {
    if (z == 0.0)
      return NAN;
    double m = fmod(x, z);
    return m != 0.0 && (m < 0) != (z < 0) ? m + z : m;
  }
  case B_EQ: return x == z;
  case B_LT: return x < z;
  case B_GT: return x > z;
  case B_LE: return x <= z;
  case B_GE: return x >= z;
  case B_AND: return x != 0.0 && z != 0.0;
  case B_OR: return x != 0.0 || z != 0.0;
  case B_XOR: return (x != 0.0) != (z != 0.0);
  case B_MAX: return isnan(x) || isnan(z) ? NAN : x > z ? x : z;
  case B_MIN: return isnan(x) || isnan(z) ? NAN : x < z ? x : z;
  }
  return NAN;
}

/*
 * Folds output 0 = in[0] op in[1] op ... op in[n-1] with broadcasting (the
 * legacy axis alignment before opset 7). Integer inputs fold on nns__dim;
 * anything else in doubles, converted to the output's dtype at the end.
 */
static nns_status nary_fold(nns__ictx *cx, bin_op op) {
  int n = nns__n_in(cx);
  nns__const *y = nns__out_const(cx, 0);
  if (n < 1 || !y)
    return NNS__NOFOLD;
  const nns__type *ty = &cx->node->out[0]->type;
  int32_t r = ty->rank, dt = ty->dtype;
  const nns__const **c = nns__alloc(cx, (size_t)n * sizeof *c);
  nns__dim **dims = nns__alloc(cx, (size_t)n * sizeof *dims);
  if (!c || !dims)
    return NNS_E_NOMEM;
  bool ints = op != B_MEAN; /* Mean is defined for floats only */
  for (int i = 0; i < n; i++) {
    int32_t off = r - nns__in_rank(cx, i);
    if (i == 1 && legacy_axis(cx)) {
      int64_t axis = nns__attr_int(cx, "axis");
      off = (int32_t)(axis < 0 ? axis + r : axis); /* checked by the shape */
    }
    c[i] = nns__const_in(cx, i);
    dims[i] = nns__aligned_dims(cx, i, r, off, ty->dims);
    if (!c[i] || !dims[i])
      return NNS__NOFOLD;
    ints = ints && c[i]->i;
  }
  int64_t *at = nns__alloc(cx, (size_t)n * sizeof *at);
  if (!at)
    return NNS_E_NOMEM;
  for (int64_t o = 0; o < y->numel; o++) {
    for (int i = 0; i < n; i++)
      at[i] = nns__bcast_index(o, r, ty->dims, dims[i]);
    if (ints) {
      nns__dim acc = c[0]->i[at[0]];
      for (int i = 1; i < n; i++)
        if (!bin_int(cx, op, acc, c[i]->i[at[i]], &acc))
          return NNS__NOFOLD;
      if (y->i)
        y->i[o] = acc.sym ? acc : nns__dim_known(nns__wrap_int(acc.v, dt));
      else if (!acc.sym && y->f)
        y->f[o] = (double)acc.v;
      else
        return NNS__NOFOLD;
      continue;
    }
    double acc, z;
    if (!nns__elem_f(c[0], at[0], &acc))
      return NNS__NOFOLD;
    for (int i = 1; i < n; i++) {
      if (!nns__elem_f(c[i], at[i], &z))
        return NNS__NOFOLD;
      acc = bin_float(op, acc, z);
    }
    if (op == B_MEAN)
      acc /= n;
    if (y->f) {
      if (!nns__to_float_dtype(acc, dt, &y->f[o]))
        return NNS__NOFOLD;
    } else {
      int64_t v;
      if (!y->i || !nns__float_to_int(acc, dt, &v))
        return NNS__NOFOLD;
      y->i[o] = nns__dim_known(v);
    }
  }
  return NNS_OK;
}

static nns_status mod_fold(nns__ictx *cx) {
  return nary_fold(cx, nns__attr_int(cx, "fmod") ? B_FMOD : B_MOD);
}

#define FOLD_WITH(name, op)                                                    \
  static nns_status name##_fold(nns__ictx *cx) { return nary_fold(cx, op); }
FOLD_WITH(add, B_ADD)
FOLD_WITH(sub, B_SUB)
FOLD_WITH(mul, B_MUL)
FOLD_WITH(div, B_DIV)
FOLD_WITH(pow, B_POW)
FOLD_WITH(equal, B_EQ)
FOLD_WITH(less, B_LT)
FOLD_WITH(greater, B_GT)
FOLD_WITH(less_equal, B_LE)
FOLD_WITH(greater_equal, B_GE)
FOLD_WITH(and, B_AND)
FOLD_WITH(or, B_OR)
FOLD_WITH(xor, B_XOR)
FOLD_WITH(max, B_MAX)
FOLD_WITH(min, B_MIN)
FOLD_WITH(sum, B_ADD)
FOLD_WITH(mean, B_MEAN)
#undef FOLD_WITH

/* ==== Unary ==== */


/* IsNaN, IsInf: same shape, bool. */
static nns_status bool_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st == NNS_OK)
    nns__out_like(cx, 0, 0, NNS_DT_BOOL);
  return st;
}

typedef enum un_op {
  U_NEG, U_ABS, U_SIGN, U_NOT, U_RECIPROCAL, U_FLOOR, U_CEIL, U_ROUND,
  U_SQRT, U_EXP, U_LOG, U_SIN, U_COS, U_TAN, U_ASIN, U_ACOS, U_ATAN,
  U_SINH, U_COSH, U_ASINH, U_ACOSH, U_ATANH, U_ERF, U_ISNAN, U_ISINF
} un_op;

/* Integer unary step; a symbol whose result is not an expression of it
 * becomes a fresh symbol (|batch| is unknown without knowing its sign). */
static bool un_int(nns__ictx *cx, un_op op, nns__dim x, nns__dim *r) {
  switch (op) {
  case U_NEG:
    if (!x.sym && x.v == INT64_MIN)
      return false;
    *r = nns__dim_neg(cx->m, x);
    return true;
  case U_ABS:
    if (!x.sym && x.v == INT64_MIN)
      return false;
    *r = x.sym ? nns__fresh(cx) : nns__dim_known(x.v < 0 ? -x.v : x.v);
    return true;
  case U_SIGN:
    *r = x.sym ? nns__fresh(cx) : nns__dim_known((x.v > 0) - (x.v < 0));
    return true;
  case U_NOT:
    if (x.sym)
      return false;
    *r = nns__dim_known(!x.v);
    return true;
  default:
    return false; /* float-only ops */
  }
}

static double un_float(nns__ictx *cx, un_op op, double x) {
  switch (op) {
  case U_NEG: return -x;
  case U_ABS: return fabs(x);
  case U_SIGN: return isnan(x) ? x : (x > 0) - (x < 0);
  case U_NOT: return x == 0.0;
  case U_RECIPROCAL: return fdiv(1.0, x);
  case U_FLOOR: return floor(x);
  case U_CEIL: return ceil(x);
  case U_ROUND: return nns__round_even(x);
  case U_SQRT: return x < 0 ? NAN : sqrt(x);
  case U_EXP: return exp(x);
  case U_LOG: return x < 0 ? NAN : x == 0 ? -INFINITY : log(x);
  case U_SIN: return sin(x);
  case U_COS: return cos(x);
  case U_TAN: return tan(x);
  case U_ASIN: return fabs(x) > 1 ? NAN : asin(x);
  case U_ACOS: return fabs(x) > 1 ? NAN : acos(x);
  case U_ATAN: return atan(x);
  case U_SINH: return sinh(x);
  case U_COSH: return cosh(x);
  case U_ASINH: return asinh(x);
  case U_ACOSH: return x < 1 ? NAN : acosh(x);
  case U_ATANH: return fabs(x) > 1 ? NAN : fabs(x) == 1 ? copysign(INFINITY, x)
                                                        : atanh(x);
  case U_ERF: return erf(x);
  case U_ISNAN: return isnan(x);
  case U_ISINF:
    return isinf(x) && (x > 0 ? nns__attr_int(cx, "detect_positive")
                              : nns__attr_int(cx, "detect_negative"));
  }
  return NAN;
}

static nns_status unary_fold(nns__ictx *cx, un_op op) {
  const nns__const *x = nns__const_in(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !y || x->numel != y->numel)
    return NNS__NOFOLD;
  int32_t dt = cx->node->out[0]->type.dtype;
  for (int64_t k = 0; k < y->numel; k++) {
    if (x->i) {
      nns__dim r;
      if (!y->i || !un_int(cx, op, x->i[k], &r))
        return NNS__NOFOLD;
      y->i[k] = r.sym ? r : nns__dim_known(nns__wrap_int(r.v, dt));
    } else if (x->f) {
      double r = un_float(cx, op, x->f[k]);
      if (y->f) {
        if (!nns__to_float_dtype(r, dt, &y->f[k]))
          return NNS__NOFOLD;
      } else if (y->i && (op == U_ISNAN || op == U_ISINF)) {
        y->i[k] = nns__dim_known(r != 0.0);
      } else {
        return NNS__NOFOLD;
      }
    } else {
      return NNS__NOFOLD;
    }
  }
  return NNS_OK;
}

#define FOLD_WITH(name, op)                                                    \
  static nns_status name##_fold(nns__ictx *cx) { return unary_fold(cx, op); }
FOLD_WITH(neg, U_NEG)
FOLD_WITH(abs, U_ABS)
FOLD_WITH(sign, U_SIGN)
FOLD_WITH(not, U_NOT)
FOLD_WITH(reciprocal, U_RECIPROCAL)
FOLD_WITH(floor, U_FLOOR)
FOLD_WITH(ceil, U_CEIL)
FOLD_WITH(round, U_ROUND)
FOLD_WITH(sqrt, U_SQRT)
FOLD_WITH(exp, U_EXP)
FOLD_WITH(log, U_LOG)
FOLD_WITH(sin, U_SIN)
FOLD_WITH(cos, U_COS)
FOLD_WITH(tan, U_TAN)
FOLD_WITH(asin, U_ASIN)
FOLD_WITH(acos, U_ACOS)
FOLD_WITH(atan, U_ATAN)
FOLD_WITH(sinh, U_SINH)
FOLD_WITH(cosh, U_COSH)
FOLD_WITH(asinh, U_ASINH)
FOLD_WITH(acosh, U_ACOSH)
FOLD_WITH(atanh, U_ATANH)
FOLD_WITH(erf, U_ERF)
FOLD_WITH(isnan, U_ISNAN)
FOLD_WITH(isinf, U_ISINF)
#undef FOLD_WITH

/* ==== Where ==== */

/* Output: the three-way broadcast of condition, X and Y, dtype of X. */
static nns_status where_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 3);
  if (st != NNS_OK)
    return st;
  int32_t dt = nns__in_dtype(cx, 1);
  return nns__broadcast(cx, 0, 3, 0, dt ? dt : nns__in_dtype(cx, 2));
}

/* Picks elements, so symbols in X or Y flow through unchanged. */
static nns_status where_fold(nns__ictx *cx) {
  nns__const *y = nns__out_const(cx, 0);
  if (!y)
    return NNS__NOFOLD;
  const nns__type *ty = &cx->node->out[0]->type;
  int32_t r = ty->rank;
  const nns__const *c[3];
  nns__dim *dims[3];
  for (int i = 0; i < 3; i++)
    if (!(c[i] = nns__const_in(cx, i)) ||
        !(dims[i] = nns__aligned_dims(cx, i, r, r - nns__in_rank(cx, i),
                                           ty->dims)))
      return NNS__NOFOLD;
  if (!c[0]->i)
    return NNS__NOFOLD;
  for (int64_t o = 0; o < y->numel; o++) {
    nns__dim cond = c[0]->i[nns__bcast_index(o, r, ty->dims, dims[0])];
    if (cond.sym)
      return NNS__NOFOLD;
    int pick = cond.v ? 1 : 2;
    int64_t k = nns__bcast_index(o, r, ty->dims, dims[pick]);
    if (y->i && c[pick]->i)
      y->i[o] = c[pick]->i[k];
    else if (y->f && c[pick]->f)
      y->f[o] = c[pick]->f[k];
    else if (y->s && c[pick]->s)
      y->s[o] = c[pick]->s[k];
    else
      return NNS__NOFOLD;
  }
  return NNS_OK;
}

/* ==== Cast, CastLike ==== */

/* Opsets 1-5 name the target type as a string ("FLOAT", "INT64"). */
static int32_t dtype_from_name(const char *s) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT",  "UINT8",  "INT8",      "UINT16",     "INT16",
      "INT32",     "INT64",  "STRING", "BOOL",      "FLOAT16",    "DOUBLE",
      "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  for (int32_t k = 1; k < (int32_t)(sizeof names / sizeof names[0]); k++) {
    const char *a = s, *b = names[k];
    while (*a && *b && (*a >= 'a' && *a <= 'z' ? *a - 'a' + 'A' : *a) == *b)
      a++, b++;
    if (!*a && !*b)
      return k;
  }
  return 0;
}

static int32_t cast_target(const nns__ictx *cx) {
  if (cx->opset < 6)
    return dtype_from_name(nns__attr_str(cx, "to"));
  int64_t to = nns__attr_int(cx, "to");
  return to >= 1 && to <= NNS_DT_INT2 ? (int32_t)to : 0;
}

static nns_status cast_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st != NNS_OK)
    return st;
  int32_t to = cast_target(cx);
  if (!to) {
    if (cx->opset < 6)
      return nns__fail(cx, NNS_E_ATTR, "to=\"%s\" is not a data type name",
                       nns__attr_str(cx, "to"));
    return nns__fail(cx, NNS_E_ATTR, "to=%lld is not a data type",
                     (long long)nns__attr_int(cx, "to"));
  }
  nns__out_like(cx, 0, 0, to);
  return NNS_OK;
}

static nns_status castlike_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 2);
  if (st == NNS_OK)
    nns__out_like(cx, 0, 0, nns__in_dtype(cx, 1));
  return st;
}

/*
 * Converts input 0 to the output's dtype: floats to integers truncate
 * toward zero (NaN, infinities and out-of-range values do not fold);
 * integers wrap to a narrower width; a symbolic integer stays the same
 * symbol in any integer type (not bool: its truth is unknown).
 */
static nns_status cast_fold(nns__ictx *cx) {
  const nns__const *x = nns__const_in(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !y || x->numel != y->numel)
    return NNS__NOFOLD;
  int32_t from = nns__in_dtype(cx, 0), to = cx->node->out[0]->type.dtype;
  for (int64_t k = 0; k < y->numel; k++) {
    if (x->i) {
      nns__dim d = x->i[k];
      if (d.sym && (to == NNS_DT_BOOL || !y->i))
        return NNS__NOFOLD;
      if (y->i) {
        y->i[k] = d.sym ? d : nns__dim_known(nns__wrap_int(d.v, to));
      } else if (y->f) {
        double v = from == NNS_DT_UINT64 ? (double)(uint64_t)d.v : (double)d.v;
        if (!nns__to_float_dtype(v, to, &y->f[k]))
          return NNS__NOFOLD;
      } else {
        return NNS__NOFOLD;
      }
    } else if (x->f) {
      int64_t v;
      if (y->f) {
        if (!nns__to_float_dtype(x->f[k], to, &y->f[k]))
          return NNS__NOFOLD;
      } else if (y->i && nns__float_to_int(x->f[k], to, &v)) {
        y->i[k] = nns__dim_known(v);
      } else {
        return NNS__NOFOLD;
      }
    } else if (x->s && y->s) {
      y->s[k] = x->s[k];
    } else {
      return NNS__NOFOLD; /* string <-> number parsing is not folded */
    }
  }
  return NNS_OK;
}

/* ==== Clip ==== */

static nns_status clip_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st != NNS_OK)
    return st;
  for (int i = 1; i <= 2; i++) {
    int64_t n = nns__in_numel(cx, i);
    if (nns__has_in(cx, i) && n > 1)
      return nns__fail(cx, NNS_E_SHAPE,
                       "%s must be a scalar, has %lld elements",
                       i == 1 ? "min" : "max", (long long)n);
  }
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

/* y = min(max(x, lo), hi): with lo > hi every element is hi, as the spec
 * says. Bounds are attributes before opset 11 (float inputs only), then
 * optional scalar inputs. A symbolic integer stays itself only when no
 * bound applies; clamped, it is a fresh symbol. */
static nns_status clip_fold(nns__ictx *cx) {
  const nns__const *x = nns__const_in(cx, 0);
  nns__const *y = nns__out_const(cx, 0);
  if (!x || !y || x->numel != y->numel)
    return NNS__NOFOLD;
  const nns__const *b[3] = {NULL, NULL, NULL}; /* bound inputs, opset 11+ */
  double fb[3] = {0.0, -INFINITY, INFINITY};
  bool has[3] = {false, false, false};
  for (int i = 1; i <= 2; i++) {
    const char *name = i == 1 ? "min" : "max";
    if (cx->opset < 11) {
      has[i] = cx->opset >= 6 || nns__attr_has(cx, name);
      fb[i] = nns__attr_float(cx, name);
    } else if (nns__has_in(cx, i)) {
      if (!(b[i] = nns__const_in(cx, i)) || b[i]->numel != 1)
        return NNS__NOFOLD;
      has[i] = true;
    }
  }
  int32_t dt = cx->node->out[0]->type.dtype;
  if (x->f && y->f) {
    for (int i = 1; i <= 2; i++)
      if (b[i] && !nns__elem_f(b[i], 0, &fb[i]))
        return NNS__NOFOLD;
    for (int64_t k = 0; k < y->numel; k++) {
      double v = x->f[k];
      if (has[1] && v < fb[1])
        v = fb[1];
      if (has[2] && v > fb[2])
        v = fb[2];
      if (!nns__to_float_dtype(v, dt, &y->f[k]))
        return NNS__NOFOLD;
    }
    return NNS_OK;
  }
  if (!x->i || !y->i)
    return NNS__NOFOLD;
  for (int i = 1; i <= 2; i++)
    if (has[i] && (!b[i] || !b[i]->i || b[i]->i[0].sym))
      return NNS__NOFOLD;
  for (int64_t k = 0; k < y->numel; k++) {
    nns__dim v = x->i[k];
    if (v.sym) {
      y->i[k] = has[1] || has[2] ? nns__fresh(cx) : v;
      continue;
    }
    if (has[1] && v.v < b[1]->i[0].v)
      v = b[1]->i[0];
    if (has[2] && v.v > b[2]->i[0].v)
      v = b[2]->i[0];
    y->i[k] = v;
  }
  return NNS_OK;
}

/* ==== Det ==== */

/* [*, M, M] -> [*]. */
static nns_status det_shape(nns__ictx *cx) {
  nns_status st = nns__need_inputs(cx, 1);
  if (st != NNS_OK)
    return st;
  const nns__type *t = nns__in_type(cx, 0);
  if (t->rank < 0) {
    nns__out_shape(cx, 0, t->dtype, -1);
    return NNS_OK;
  }
  if (t->rank < 2)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d, needs at least 2",
                     t->rank);
  nns__dim m = t->dims[t->rank - 2], n = t->dims[t->rank - 1];
  if (!m.sym && !n.sym && m.v != n.v)
    return nns__fail(cx, NNS_E_SHAPE,
                     "matrices are %lldx%lld, not square", (long long)m.v,
                     (long long)n.v);
  nns__dim *d = nns__out_shape(cx, 0, t->dtype, t->rank - 2);
  if (d)
    nns__dims_copy(d, t->dims, t->rank - 2);
  return NNS_OK;
}

/* ==== Cost rules ==== */

/* k FLOPs per output element, every input read once (broadcast inputs are
 * read once, not once per output element: METRICS.md's sum of numel(inputs)). */
#define ELTWISE_COST(k)                                                        \
  static nns_status eltwise##k##_cost(nns__ictx *cx, nns__cost *c) {           \
    return nns__cost_eltwise(cx, c, k);                                        \
  }
ELTWISE_COST(1) /* arithmetic, comparison, logic, primitive functions */
ELTWISE_COST(5) /* Sinh, Cosh, Asinh, Acosh, Atanh, from exp/log/sqrt */
ELTWISE_COST(6) /* Erf (METRICS.md) */
ELTWISE_COST(41) /* PyTorch's erfinv (docs/metrics.md) */
#undef ELTWISE_COST

static int present_inputs(const nns__ictx *cx) {
  int n = 0;
  for (int i = 0; i < nns__n_in(cx); i++)
    n += nns__has_in(cx, i);
  return n;
}

/* Max, Min, Sum of n inputs: n - 1 binary operations per output element
 * (METRICS.md's 1 for Max and Min of two inputs). */
static nns_status variadic_cost(nns__ictx *cx, nns__cost *c) {
  int n = present_inputs(cx);
  return nns__cost_eltwise(cx, c, n > 0 ? n - 1 : 0);
}

/* Mean: the n - 1 additions of Sum and one division. */
static nns_status mean_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, present_inputs(cx));
}

/* Clip: max and min per element (METRICS.md); the bounds are arguments,
 * not data, so DMAs are numel(X) + numel(Y) as the table says. */
static nns_status clip_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_x(cx, c, 0, 2);
}

/*
 * Det: Gaussian elimination without pivoting on each M x M matrix, then
 * the product of the diagonal. Step j (j = M-1 ... 1 rows below the pivot)
 * does j divisions and j^2 multiply-subtract pairs:
 *   sum(j + 2 j^2) + (M - 1) = M(M-1)/2 + M(M-1)(2M-1)/3 + M - 1
 * (M = 2: 1 + 2 + 1 = 4; M = 3: 3 + 10 + 2 = 15). Each exact division is
 * taken on the factor it divides, so no intermediate is larger than the
 * result.
 */
static nns_status det_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *t = nns__in_type(cx, 0);
  int64_t batch = nns__out_count(cx, c, 0), x = nns__in_count(cx, c, 0);
  if (!t || t->rank < 2 || batch < 0 || x < 0)
    return NNS__UNCOUNTED;
  int64_t m = nns__dim_count(c, t->dims[t->rank - 1], cx->m);
  if (m < 1)
    return nns__cost_rw(cx, c, 0, x);
  if (m > INT64_MAX / 4) { /* 2M - 1 below would not fit */
    c->overflow = true;
    return nns__cost_rw(cx, c, INT64_MAX, x);
  }
  int64_t a = m - 1, b = m, d = 2 * m - 1;
  int64_t half = a % 2 == 0 ? nns__cmul(c, a / 2, b) : nns__cmul(c, a, b / 2);
  int64_t third = a % 3 == 0   ? nns__cmul(c, nns__cmul(c, a / 3, b), d)
                  : b % 3 == 0 ? nns__cmul(c, nns__cmul(c, a, b / 3), d)
                               : nns__cmul(c, nns__cmul(c, a, b), d / 3);
  int64_t per = nns__cadd(c, nns__cadd(c, half, third), a);
  return nns__cost_rw(cx, c, nns__cmul(c, batch, per), x);
}

/* ==== RotaryEmbedding ==== */

/*
 * RotaryEmbedding (opset 23): X [B, heads, S, head] or [B, S, heads *
 * head] (num_heads says the split); the first rotary_embedding_dim dims of
 * each head (all when 0) are rotated in pairs by the cached cos and sin,
 * the rest copied. Y is like X.
 */
static nns_status rotary_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  if (x && x->rank >= 0 && x->rank != 3 && x->rank != 4)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected 3 or 4",
                     x->rank);
  if (x && x->rank == 3 && nns__attr_int(cx, "rotary_embedding_dim") > 0 &&
      nns__attr_int(cx, "num_heads") < 1)
    return nns__fail(cx, NNS_E_ATTR, "a 3-D input with rotary_embedding_dim "
                     "needs num_heads");
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

/*
 * Each rotated pair is x1 cos - x2 sin and x2 cos + x1 sin: 3 FLOPs per
 * rotated element (R of them), reading one cos or sin entry each:
 *   FLOPs 3 R, DMAs numel(X) + R + numel(position_ids) + numel(Y).
 */
nns_status nns__rotary_cost(nns__ictx *cx, nns__cost *c, int pos_in) {
  const nns__type *x = nns__in_type(cx, 0);
  int64_t n = nns__in_count(cx, c, 0);
  int64_t pos = nns__has_in(cx, pos_in) ? nns__in_count(cx, c, pos_in) : 0;
  if (!x || n < 0 || pos < 0)
    return NNS__UNCOUNTED;
  int64_t rot = nns__attr_int(cx, "rotary_embedding_dim"), r = n;
  if (rot > 0) {
    int64_t head = x->rank == 4
                       ? nns__dim_count(c, x->dims[3], cx->m)
                       : nns__dim_count(c, x->dims[2], cx->m) /
                             nns__attr_int(cx, "num_heads");
    if (head < 1)
      return NNS__UNCOUNTED;
    r = nns__cmul(c, n / head, rot < head ? rot : head);
  }
  return nns__cost_rw(cx, c, nns__cmul(c, 3, r),
                      nns__cadd(c, nns__cadd(c, n, r), pos));
}

/* ONNX's: position_ids is input 3. */
static nns_status rotary_cost(nns__ictx *cx, nns__cost *c) {
  return nns__rotary_cost(cx, c, 3);
}

/* ==== Attribute specs ==== */

static const nns__attr_spec rotary_attrs[] = {
    NNS__A_INT("interleaved", 0), NNS__A_INT("num_heads", 0),
    NNS__A_INT("rotary_embedding_dim", 0), NNS__A_END};

/* Opsets 1-5: the unused `consumed_inputs` of the old memory planner. */
static const nns__attr_spec consumed_attrs[] = {
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
/* Opsets 1-6: legacy broadcasting (1-5 also had consumed_inputs). */
static const nns__attr_spec legacy_bcast_consumed_attrs[] = {
    NNS__A_INT("broadcast", 0), NNS__A_OPT("axis", INT),
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
static const nns__attr_spec legacy_bcast_attrs[] = {
    NNS__A_INT("broadcast", 0), NNS__A_OPT("axis", INT), NNS__A_END};
static const nns__attr_spec mod_attrs[] = {NNS__A_INT("fmod", 0), NNS__A_END};
static const nns__attr_spec isinf_attrs[] = {
    NNS__A_INT("detect_negative", 1), NNS__A_INT("detect_positive", 1),
    NNS__A_END};
static const nns__attr_spec bitshift_attrs[] = {
    NNS__A_REQ("direction", STRING), NNS__A_END};
static const nns__attr_spec cast1_attrs[] = {NNS__A_REQ("to", STRING),
                                             NNS__A_END};
static const nns__attr_spec cast6_attrs[] = {NNS__A_REQ("to", INT), NNS__A_END};
static const nns__attr_spec cast19_attrs[] = {
    NNS__A_INT("saturate", 1), NNS__A_REQ("to", INT), NNS__A_END};
static const nns__attr_spec castlike19_attrs[] = {NNS__A_INT("saturate", 1),
                                                  NNS__A_END};
static const nns__attr_spec clip1_attrs[] = {
    NNS__A_OPT("min", FLOAT), NNS__A_OPT("max", FLOAT),
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_END};
static const nns__attr_spec clip6_attrs[] = {
    NNS__A_FLOAT("min", -3.4028234663852886e+38),
    NNS__A_FLOAT("max", 3.4028234663852886e+38), NNS__A_END};

/* ==== The table ==== */

/* Unary math that lost consumed_inputs in opset 6. */
#define UNARY_1_6(nm, fold, cf)                                                \
  {"", nm, 1, 5, "a", consumed_attrs, nns__same_shape, fold, .cost = cf},      \
  {"", nm, 6, NNS__OPSET_MAX, "a", NULL, nns__same_shape, fold, .cost = cf}
/* Binary ops with legacy broadcasting until opset 6; one FLOP per output
 * element (METRICS.md). */
#define BINARY_1_7(nm, roles, shape, fold)                                     \
  {"", nm, 1, 6, roles, legacy_bcast_attrs, shape, fold,                       \
   .cost = eltwise1_cost},                                                     \
  {"", nm, 7, NNS__OPSET_MAX, roles, NULL, shape, fold, .cost = eltwise1_cost}
/* And, Or: how masks are joined (NNS__ATTN_AND, _OR) */
#define LOGIC_1_7(nm, fold, at)                                                \
  {"", nm, 1, 6, "aa", legacy_bcast_attrs, bool_binary_shape, fold,            \
   .cost = eltwise1_cost, .attn = at},                                         \
  {"", nm, 7, NNS__OPSET_MAX, "aa", NULL, bool_binary_shape, fold,              \
   .cost = eltwise1_cost, .attn = at}
/* Comparisons: no gradient flows through them (their output is bool). */
#define COMPARE_1_7(nm, fold, at)                                              \
  {"", nm, 1, 6, "aa", legacy_bcast_attrs, bool_binary_shape, fold,            \
   .cost = eltwise1_cost, .no_grad = "1", .attn = at},                         \
  {"", nm, 7, NNS__OPSET_MAX, "aa", NULL, bool_binary_shape, fold,              \
   .cost = eltwise1_cost, .no_grad = "1", .attn = at}
#define ARITH(nm, fold, at)                                                    \
  {"", nm, 1, 5, "aa", legacy_bcast_consumed_attrs, binary_shape, fold,        \
   .cost = eltwise1_cost, .attn = at},                                         \
  {"", nm, 6, 6, "aa", legacy_bcast_attrs, binary_shape, fold,                 \
   .cost = eltwise1_cost, .attn = at},                                         \
  {"", nm, 7, NNS__OPSET_MAX, "aa", NULL, binary_shape, fold,                  \
   .cost = eltwise1_cost, .attn = at}
#define VARIADIC(nm, fold, cf)                                                 \
  {"", nm, 1, 5, "a", consumed_attrs, variadic_shape, fold, .cost = cf},       \
  {"", nm, 6, NNS__OPSET_MAX, "a", NULL, variadic_shape, fold, .cost = cf}

const nns__op nns__ops_eltwise[] = {
    ARITH("Add", add_fold, NNS__ATTN_BIAS),
    ARITH("Sub", sub_fold, 0),
    ARITH("Mul", mul_fold, NNS__ATTN_SCALE),
    ARITH("Div", div_fold, NNS__ATTN_SCALE),
    /* The exponent is usually a literal (x ** 2), not a parameter. */
    BINARY_1_7("Pow", "ac", binary_shape, pow_fold),
    {"", "Mod", 10, NNS__OPSET_MAX, "aa", mod_attrs, mod_shape, mod_fold,
     .cost = eltwise1_cost},
    {"", "BitShift", 11, NNS__OPSET_MAX, "aa", bitshift_attrs, bitshift_shape,
     NULL,
     .cost = eltwise1_cost},

    COMPARE_1_7("Equal", equal_fold, 0),
    COMPARE_1_7("Less", less_fold, NNS__ATTN_LESS),
    COMPARE_1_7("Greater", greater_fold, NNS__ATTN_GREATER),
    {"", "LessOrEqual", 12, NNS__OPSET_MAX, "aa", NULL, bool_binary_shape,
     less_equal_fold, .cost = eltwise1_cost, .no_grad = "1",
     .attn = NNS__ATTN_LESS_EQUAL},
    {"", "GreaterOrEqual", 12, NNS__OPSET_MAX, "aa", NULL, bool_binary_shape,
     greater_equal_fold, .cost = eltwise1_cost, .no_grad = "1",
     .attn = NNS__ATTN_GREATER_EQUAL},
    LOGIC_1_7("And", and_fold, NNS__ATTN_AND),
    LOGIC_1_7("Or", or_fold, NNS__ATTN_OR),
    BINARY_1_7("Xor", "aa", bool_binary_shape, xor_fold),
    {"", "Not", 1, NNS__OPSET_MAX, "a", NULL, nns__same_shape, not_fold,
     .cost = eltwise1_cost, .attn = NNS__ATTN_NOT},
    /* Bitwise ops (opset 18) on integers: one operation per element of Y,
     * like And/Or/Xor/Not; no gradient flows through integers. */
    {"", "BitwiseAnd", 18, NNS__OPSET_MAX, "aa", NULL, binary_shape, NULL,
     .cost = eltwise1_cost},
    {"", "BitwiseOr", 18, NNS__OPSET_MAX, "aa", NULL, binary_shape, NULL,
     .cost = eltwise1_cost},
    {"", "BitwiseXor", 18, NNS__OPSET_MAX, "aa", NULL, binary_shape, NULL,
     .cost = eltwise1_cost},
    {"", "BitwiseNot", 18, NNS__OPSET_MAX, "a", NULL, nns__same_shape, NULL,
     .cost = eltwise1_cost},

    VARIADIC("Max", max_fold, variadic_cost),
    VARIADIC("Min", min_fold, variadic_cost),
    VARIADIC("Sum", sum_fold, variadic_cost),
    VARIADIC("Mean", mean_fold, mean_cost),

    UNARY_1_6("Neg", neg_fold, eltwise1_cost),
    UNARY_1_6("Abs", abs_fold, eltwise1_cost),
    UNARY_1_6("Reciprocal", reciprocal_fold, eltwise1_cost),
    UNARY_1_6("Floor", floor_fold, eltwise1_cost),
    UNARY_1_6("Ceil", ceil_fold, eltwise1_cost),
    UNARY_1_6("Sqrt", sqrt_fold, eltwise1_cost),
    UNARY_1_6("Exp", exp_fold, eltwise1_cost),
    UNARY_1_6("Log", log_fold, eltwise1_cost),
    {"", "Round", 11, NNS__OPSET_MAX, "a", NULL, nns__same_shape, round_fold,
     .cost = eltwise1_cost},
    {"", "Sin", 7, NNS__OPSET_MAX, "a", NULL, nns__same_shape, sin_fold,
     .cost = eltwise1_cost},
    {"", "Cos", 7, NNS__OPSET_MAX, "a", NULL, nns__same_shape, cos_fold,
     .cost = eltwise1_cost},
    {"", "Tan", 7, NNS__OPSET_MAX, "a", NULL, nns__same_shape, tan_fold,
     .cost = eltwise1_cost},
    {"", "Asin", 7, NNS__OPSET_MAX, "a", NULL, nns__same_shape, asin_fold,
     .cost = eltwise1_cost},
    {"", "Acos", 7, NNS__OPSET_MAX, "a", NULL, nns__same_shape, acos_fold,
     .cost = eltwise1_cost},
    {"", "Atan", 7, NNS__OPSET_MAX, "a", NULL, nns__same_shape, atan_fold,
     .cost = eltwise1_cost},
    {"", "Sinh", 9, NNS__OPSET_MAX, "a", NULL, nns__same_shape, sinh_fold,
     .cost = eltwise5_cost},
    {"", "Cosh", 9, NNS__OPSET_MAX, "a", NULL, nns__same_shape, cosh_fold,
     .cost = eltwise5_cost},
    {"", "Asinh", 9, NNS__OPSET_MAX, "a", NULL, nns__same_shape, asinh_fold,
     .cost = eltwise5_cost},
    {"", "Acosh", 9, NNS__OPSET_MAX, "a", NULL, nns__same_shape, acosh_fold,
     .cost = eltwise5_cost},
    {"", "Atanh", 9, NNS__OPSET_MAX, "a", NULL, nns__same_shape, atanh_fold,
     .cost = eltwise5_cost},
    {"", "Erf", 9, NNS__OPSET_MAX, "a", NULL, nns__same_shape, erf_fold,
     .cost = eltwise6_cost},
    {"", "Sign", 9, NNS__OPSET_MAX, "a", NULL, nns__same_shape, sign_fold,
     .cost = eltwise1_cost},
    /* PyTorch's erfinv, which ONNX does not have (the recorder's domain
     * for aten ops, version 1): a rational first guess and two Newton
     * steps per element, as PyTorch's kernel computes it. */
    {"pytorch.aten", "erfinv", 1, 1, "a", NULL, nns__same_shape, NULL,
     .cost = eltwise41_cost},
    {"", "IsNaN", 9, NNS__OPSET_MAX, "a", NULL, bool_shape, isnan_fold,
     .cost = eltwise1_cost},
    {"", "IsInf", 10, NNS__OPSET_MAX, "a", isinf_attrs, bool_shape, isinf_fold,
     .cost = eltwise1_cost},

    /* A constant condition is a mask, not a parameter. */
    {"", "Where", 9, NNS__OPSET_MAX, "caa", NULL, where_shape, where_fold,
     .cost = eltwise1_cost, .attn = NNS__ATTN_SELECT},
    {"", "Cast", 1, 5, "a", cast1_attrs, cast_shape, cast_fold,
     .cost = nns__cost_move, .attn = NNS__ATTN_KEEP},
    {"", "Cast", 6, 18, "a", cast6_attrs, cast_shape, cast_fold,
     .cost = nns__cost_move, .attn = NNS__ATTN_KEEP},
    /* Cast-19 added `saturate` (float8 targets); shape and cost unchanged. */
    {"", "Cast", 19, NNS__OPSET_MAX, "a", cast19_attrs, cast_shape, cast_fold,
     .cost = nns__cost_move, .attn = NNS__ATTN_KEEP},
    /* Casts move data; CastLike reads only the type of input 1. */
    {"", "CastLike", 15, 18, "ac", NULL, castlike_shape, cast_fold,
     .cost = nns__cost_move_x},
    {"", "CastLike", 19, NNS__OPSET_MAX, "ac", castlike19_attrs,
     castlike_shape, cast_fold,
     .cost = nns__cost_move_x},
    /* The caches are tables of constants; position_ids picks rows. */
    {"", "RotaryEmbedding", 23, NNS__OPSET_MAX, "accc", rotary_attrs,
     rotary_shape, NULL, .cost = rotary_cost},
    {"", "Clip", 1, 5, "a", clip1_attrs, clip_shape, clip_fold,
     .cost = clip_cost},
    {"", "Clip", 6, 10, "a", clip6_attrs, clip_shape, clip_fold,
     .cost = clip_cost},
    {"", "Clip", 11, NNS__OPSET_MAX, "acc", NULL, clip_shape, clip_fold,
     .cost = clip_cost},
    {"", "Det", 11, NNS__OPSET_MAX, "a", NULL, det_shape, NULL,
     .cost = det_cost},
    NNS__OP_END,
};
