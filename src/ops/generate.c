/*
 * generate.c - operators that make a tensor from attributes or from a
 * shape: Constant, ConstantOfShape, Range, EyeLike and the random
 * generators. Constant and ConstantOfShape feed the shape arithmetic of
 * exports, so both fold: a Constant's tensor is decoded (up to
 * NNS__FOLD_MAX elements; a larger one keeps its shape and no value), and
 * ConstantOfShape's dims may be symbols read by Shape upstream.
 *
 * Cost (docs/metrics.md): Constant is a view. The others write Y (DMAs
 * numel(Y)); their inputs are shapes or scalar arguments, not read as
 * data, except the probabilities of Bernoulli and Multinomial. A random
 * sample counts one FLOP, as torchscan counts Dropout's sampling; Range
 * does one addition per element.
 */
#include <math.h>
#include <string.h>

#include "shape_util.h"

/* ==== Constant ==== */

/* The attributes that can hold a Constant's value; exactly one is set. */
static const char *const constant_kinds[] = {
    "value",     "sparse_value", "value_float",  "value_floats",
    "value_int", "value_ints",   "value_string", "value_strings"};
enum { N_CONSTANT_KINDS = 8 };

/* The attribute holding the Constant's value, or NULL unless exactly one
 * of the kinds is set (*set says how many are). One walk over the node's
 * own attributes (usually one): a model holds thousands of Constants. */
static const nns__attr *constant_attr(nns__ictx *cx, int *set) {
  const nns__attr *found = NULL;
  unsigned seen = 0;
  *set = 0;
  for (int32_t i = 0; i < cx->node->n_attrs; i++)
    for (int k = 0; k < N_CONSTANT_KINDS; k++) {
      if (strcmp(cx->node->attrs[i].name, constant_kinds[k]) != 0)
        continue;
      /* The kinds' names differ, so no other kind is this attribute. */
      if (!(seen & (1u << k))) {
        const nns__attr *a = nns__attr_get(cx, constant_kinds[k]);
        seen |= 1u << k;
        if (a) {
          ++*set;
          found = a;
        }
      }
      break;
    }
  return *set == 1 ? found : NULL;
}

static nns_status constant_shape(nns__ictx *cx) {
  int set;
  const nns__attr *a = constant_attr(cx, &set);
  if (set != 1)
    return nns__fail(cx, NNS_E_ATTR,
                     "%s of value, sparse_value and value_* must be set, "
                     "%d are",
                     set ? "only one" : "one", set);
  nns__dim *d;
  switch (a->type) {
  case NNS__AT_TENSOR:
  case NNS__AT_SPARSE_TENSOR:
    /* A sparse tensor's dims are its dense shape. */
    if (!a->t) {
      nns__out_shape(cx, 0, 0, -1);
      return NNS_OK;
    }
    if (a->t->rank > NNS__RANK_LIMIT)
      return nns__fail(cx, NNS_E_LIMIT, "rank %d is beyond %d", a->t->rank,
                       NNS__RANK_LIMIT);
    for (int32_t k = 0; k < a->t->rank; k++)
      if (a->t->dims[k] < 0)
        return nns__fail(cx, NNS_E_SHAPE, "tensor dim %d is %lld", k,
                         (long long)a->t->dims[k]);
    d = nns__out_shape(cx, 0, a->t->dtype, a->t->rank);
    for (int32_t k = 0; d && k < a->t->rank; k++)
      d[k] = nns__dim_known(a->t->dims[k]);
    return NNS_OK;
  case NNS__AT_FLOAT:
  case NNS__AT_INT:
  case NNS__AT_STRING:
    nns__out_shape(cx, 0,
                   a->type == NNS__AT_FLOAT ? NNS_DT_FLOAT
                   : a->type == NNS__AT_INT ? NNS_DT_INT64
                                            : NNS_DT_STRING,
                   0);
    return NNS_OK;
  case NNS__AT_FLOATS:
  case NNS__AT_INTS:
  case NNS__AT_STRINGS:
    d = nns__out_shape(cx, 0,
                       a->type == NNS__AT_FLOATS ? NNS_DT_FLOAT
                       : a->type == NNS__AT_INTS ? NNS_DT_INT64
                                                 : NNS_DT_STRING,
                       1);
    if (d)
      d[0] = nns__dim_known(a->n);
    return NNS_OK;
  default:
    return nns__fail(cx, NNS_E_ATTR, "attribute '%s' has type %d", a->name,
                     a->type);
  }
}

/* Decodes tensor t into constant y (already sized by nns__out_const). */
static nns_status decode_into(nns__ictx *cx, const nns__tensor *t,
                              nns__const *y) {
  nns__const tmp;
  memset(&tmp, 0, sizeof tmp);
  if (nns__tensor_decode(cx->m, t, NNS__FOLD_MAX, &tmp, NULL) != NNS_OK ||
      tmp.numel != y->numel || (y->i && !tmp.i) || (y->f && !tmp.f) ||
      (y->s && !tmp.s))
    return NNS__NOFOLD;
  *y = tmp;
  return NNS_OK;
}

static nns_status constant_fold(nns__ictx *cx) {
  int set;
  const nns__attr *a = constant_attr(cx, &set);
  if (!a || a->type == NNS__AT_SPARSE_TENSOR)
    return NNS__NOFOLD;
  nns__const *y = nns__out_const(cx, 0);
  if (!y)
    return NNS__NOFOLD; /* too large: the shape stands, the value is not kept */
  switch (a->type) {
  case NNS__AT_TENSOR:
    return a->t ? decode_into(cx, a->t, y) : NNS__NOFOLD;
  case NNS__AT_FLOAT:
    y->f[0] = a->f;
    return NNS_OK;
  case NNS__AT_INT:
    y->i[0] = nns__dim_known(a->i);
    return NNS_OK;
  case NNS__AT_STRING:
    y->s[0] = a->s ? a->s : "";
    return NNS_OK;
  case NNS__AT_FLOATS:
    if (y->numel != a->n)
      return NNS__NOFOLD;
    memcpy(y->f, a->floats, (size_t)a->n * sizeof *y->f);
    return NNS_OK;
  case NNS__AT_INTS:
    if (y->numel != a->n)
      return NNS__NOFOLD;
    for (int32_t k = 0; k < a->n; k++)
      y->i[k] = nns__dim_known(a->ints[k]);
    return NNS_OK;
  case NNS__AT_STRINGS:
    if (y->numel != a->n)
      return NNS__NOFOLD;
    for (int32_t k = 0; k < a->n; k++)
      y->s[k] = a->strings[k] ? a->strings[k] : "";
    return NNS_OK;
  default:
    return NNS__NOFOLD;
  }
}

static const nns__attr_spec constant1_attrs[] = {NNS__A_REQ("value", TENSOR),
                                                 NNS__A_END};
static const nns__attr_spec constant11_attrs[] = {
    NNS__A_OPT("value", TENSOR), NNS__A_OPT("sparse_value", SPARSE_TENSOR),
    NNS__A_END};
static const nns__attr_spec constant12_attrs[] = {
    NNS__A_OPT("value", TENSOR),
    NNS__A_OPT("sparse_value", SPARSE_TENSOR),
    NNS__A_OPT("value_float", FLOAT),
    NNS__A_OPT("value_floats", FLOATS),
    NNS__A_OPT("value_int", INT),
    NNS__A_OPT("value_ints", INTS),
    NNS__A_OPT("value_string", STRING),
    NNS__A_OPT("value_strings", STRINGS),
    NNS__A_END};

/* ==== ConstantOfShape ==== */

static nns_status constant_of_shape_shape(nns__ictx *cx) {
  const nns__tensor *t = nns__attr_tensor(cx, "value");
  if (t && t->numel != 1)
    return nns__fail(cx, NNS_E_ATTR, "value holds %lld elements, not one",
                     (long long)t->numel);
  int32_t dt = t ? t->dtype : NNS_DT_FLOAT;
  const nns__dim *s;
  int64_t n;
  nns__arg_state st = nns__ints_arg(cx, NULL, 0, &s, &n);
  if (st == NNS__ARG_ABSENT)
    return nns__fail(cx, NNS_E_MODEL, "required input 'input' is missing");
  if (n > NNS__RANK_LIMIT)
    return nns__fail(cx, NNS_E_LIMIT, "output rank %lld is beyond %d",
                     (long long)n, NNS__RANK_LIMIT);
  nns__dim *d = nns__out_shape(cx, 0, dt, n >= 0 ? (int32_t)n : -1);
  if (st != NNS__ARG_KNOWN || !d)
    return NNS_OK;
  for (int64_t k = 0; k < n; k++) {
    if (!s[k].sym && s[k].v < 0)
      return nns__fail(cx, NNS_E_SHAPE, "shape has %lld at index %lld",
                       (long long)s[k].v, (long long)k);
    d[k] = s[k]; /* symbols read by Shape stay symbols */
  }
  return NNS_OK;
}

static nns_status constant_of_shape_fold(nns__ictx *cx) {
  nns__const *y = nns__out_const(cx, 0);
  if (!y || y->s)
    return NNS__NOFOLD;
  const nns__tensor *t = nns__attr_tensor(cx, "value");
  nns__dim iv = nns__dim_known(0);
  double fv = 0.0;
  if (t) {
    nns__const v;
    memset(&v, 0, sizeof v);
    if (nns__tensor_decode(cx->m, t, 1, &v, NULL) != NNS_OK || v.numel != 1)
      return NNS__NOFOLD;
    if (y->i && v.i)
      iv = v.i[0];
    else if (y->f && v.f)
      fv = v.f[0];
    else
      return NNS__NOFOLD;
  }
  for (int64_t k = 0; k < y->numel; k++) {
    if (y->i)
      y->i[k] = iv;
    else
      y->f[k] = fv;
  }
  return NNS_OK;
}

static const nns__attr_spec constant_of_shape_attrs[] = {
    NNS__A_OPT("value", TENSOR), NNS__A_END};

/* ==== Range ==== */

/* The scalar input i as a dim (integer inputs) or a double (float inputs);
 * false when not a known one-element constant. */
static bool range_arg(nns__ictx *cx, int i, nns__dim *iv, double *fv,
                      bool *is_float) {
  const nns__const *c = nns__in_const(cx, i);
  if (!c || c->numel != 1)
    return false;
  *is_float = c->f != NULL;
  if (c->f)
    *fv = c->f[0];
  else if (c->i)
    *iv = c->i[0];
  else
    return false;
  return true;
}

/*
 * The output length, max(ceil((limit - start) / delta), 0): a number, a
 * symbol when limit is symbolic and delta is 1 (Range(0, seq, 1) is "seq";
 * Range(s, seq, 1) is "seq-s", assuming seq >= s as an export's arange
 * always is), or a fresh symbol. Fails on delta 0.
 */
static nns_status range_len(nns__ictx *cx, nns__dim *len) {
  nns__dim s = {0, 0}, l = {0, 0}, d = {0, 0};
  double fs = 0, fl = 0, fd = 0;
  bool fls = false, fll = false, fld = false;
  *len = nns__fresh(cx);
  if (!range_arg(cx, 0, &s, &fs, &fls) || !range_arg(cx, 1, &l, &fl, &fll) ||
      !range_arg(cx, 2, &d, &fd, &fld) || fls != fll || fls != fld)
    return NNS_OK;
  if (fls) {
    if (fd == 0.0)
      return nns__fail(cx, NNS_E_SHAPE, "delta is 0");
    double n = ceil((fl - fs) / fd);
    if (isfinite(n) && n < 9.2e18)
      *len = nns__dim_known(n > 0 ? (int64_t)n : 0);
    return NNS_OK;
  }
  if (!d.sym && d.v == 0)
    return nns__fail(cx, NNS_E_SHAPE, "delta is 0");
  if (!s.sym && !l.sym && !d.sym) {
    int64_t diff;
    if (__builtin_sub_overflow(l.v, s.v, &diff))
      return NNS_OK;
    int64_t n = 0;
    if (d.v > 0 && diff > 0)
      n = (diff - 1) / d.v + 1;
    else if (d.v < 0 && diff < 0)
      n = (diff + 1) / d.v + 1;
    *len = nns__dim_known(n);
  } else if (!d.sym && d.v == 1) {
    *len = s.sym ? nns__sub(cx, l, s) : nns__dim_plus(cx, l, -s.v);
  }
  return NNS_OK;
}

static nns_status range_shape(nns__ictx *cx) {
  int32_t dt = nns__in_dtype(cx, 0);
  if (!nns__has_in(cx, 0) || !nns__has_in(cx, 1) || !nns__has_in(cx, 2))
    return nns__fail(cx, NNS_E_MODEL, "start, limit and delta are required");
  for (int i = 0; i < 3; i++) {
    int32_t r = nns__in_rank(cx, i);
    int64_t n = nns__in_numel(cx, i);
    if (r > 1 || (r == 1 && n >= 0 && n != 1))
      return nns__fail(cx, NNS_E_SHAPE, "input %d is not a scalar", i);
  }
  nns__dim len;
  nns_status st = range_len(cx, &len);
  if (st != NNS_OK)
    return st;
  nns__dim *d = nns__out_shape(cx, 0, dt, 1);
  if (d)
    d[0] = len;
  return NNS_OK;
}

static nns_status range_fold(nns__ictx *cx) {
  nns__const *y = nns__out_const(cx, 0);
  nns__dim s = {0, 0}, l = {0, 0}, d = {0, 0};
  double fs = 0, fl = 0, fd = 0;
  bool fls = false, fll = false, fld = false;
  if (!y || !range_arg(cx, 0, &s, &fs, &fls) ||
      !range_arg(cx, 1, &l, &fl, &fll) || !range_arg(cx, 2, &d, &fd, &fld))
    return NNS__NOFOLD;
  for (int64_t k = 0; k < y->numel; k++) {
    if (y->f && fls && fld) {
      y->f[k] = fs + (double)k * fd;
    } else if (y->i && !fls && !fld && !s.sym && !d.sym) {
      /* |k * delta| <= |limit - start|: no overflow. */
      y->i[k] = nns__dim_known(s.v + k * d.v);
    } else {
      return NNS__NOFOLD;
    }
  }
  return NNS_OK;
}

/* ==== EyeLike ==== */

static nns_status eye_like_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  if (x && x->rank >= 0 && x->rank != 2)
    return nns__fail(cx, NNS_E_SHAPE, "input rank %d is not 2", x->rank);
  int32_t dt = nns__attr_has(cx, "dtype") ? (int32_t)nns__attr_int(cx, "dtype")
                                          : nns__in_dtype(cx, 0);
  nns__out_like(cx, 0, 0, dt);
  return NNS_OK;
}

static nns_status eye_like_fold(nns__ictx *cx) {
  nns__const *y = nns__out_const(cx, 0);
  const nns__type *ty = nns__out_type_of(cx, 0);
  if (!y || y->s || ty->rank != 2)
    return NNS__NOFOLD;
  int64_t k = nns__attr_int(cx, "k"), cols = ty->dims[1].v;
  for (int64_t o = 0; o < y->numel; o++) {
    bool one = o % cols - o / cols == k;
    if (y->i)
      y->i[o] = nns__dim_known(one);
    else
      y->f[o] = one;
  }
  return NNS_OK;
}

static const nns__attr_spec eye_like_attrs[] = {NNS__A_OPT("dtype", INT),
                                                NNS__A_INT("k", 0), NNS__A_END};

/* ==== Random ==== */

/* RandomNormal, RandomUniform: shape and dtype from attributes. */
static nns_status random_shape(nns__ictx *cx) {
  const int64_t *s;
  int32_t n = nns__attr_ints(cx, "shape", &s);
  if (n > NNS__RANK_LIMIT)
    return nns__fail(cx, NNS_E_LIMIT, "rank %d is beyond %d", n,
                     NNS__RANK_LIMIT);
  nns__dim *d = nns__out_shape(cx, 0, (int32_t)nns__attr_int(cx, "dtype"), n);
  for (int32_t k = 0; k < n; k++) {
    if (s[k] < 0)
      return nns__fail(cx, NNS_E_ATTR, "shape has %lld at index %d",
                       (long long)s[k], k);
    if (d)
      d[k] = nns__dim_known(s[k]);
  }
  return NNS_OK;
}

/* The *Like generators and Bernoulli: the input's shape; the dtype
 * attribute when set, else the input's dtype. */
static nns_status random_like_shape(nns__ictx *cx) {
  int32_t dt =
      nns__attr_has(cx, "dtype") ? (int32_t)nns__attr_int(cx, "dtype") : 0;
  nns__out_like(cx, 0, 0, dt);
  return NNS_OK;
}

/* Multinomial: [batch, class_size] in, [batch, sample_size] out. */
static nns_status multinomial_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  if (x && x->rank >= 0 && x->rank != 2)
    return nns__fail(cx, NNS_E_SHAPE, "input rank %d is not 2", x->rank);
  int64_t n = nns__attr_int(cx, "sample_size");
  if (n < 1)
    return nns__fail(cx, NNS_E_ATTR, "sample_size %lld is below 1",
                     (long long)n);
  nns__dim *d = nns__out_shape(cx, 0, (int32_t)nns__attr_int(cx, "dtype"), 2);
  if (d && x && x->rank == 2)
    d[0] = x->dims[0];
  if (d)
    d[1] = nns__dim_known(n);
  return NNS_OK;
}

static const nns__attr_spec random_normal_attrs[] = {
    NNS__A_INT("dtype", NNS_DT_FLOAT), NNS__A_FLOAT("mean", 0.0),
    NNS__A_FLOAT("scale", 1.0),        NNS__A_OPT("seed", FLOAT),
    NNS__A_REQ("shape", INTS),         NNS__A_END};
static const nns__attr_spec random_uniform_attrs[] = {
    NNS__A_INT("dtype", NNS_DT_FLOAT), NNS__A_FLOAT("high", 1.0),
    NNS__A_FLOAT("low", 0.0),          NNS__A_OPT("seed", FLOAT),
    NNS__A_REQ("shape", INTS),         NNS__A_END};
static const nns__attr_spec random_normal_like_attrs[] = {
    NNS__A_OPT("dtype", INT), NNS__A_FLOAT("mean", 0.0),
    NNS__A_FLOAT("scale", 1.0), NNS__A_OPT("seed", FLOAT), NNS__A_END};
static const nns__attr_spec random_uniform_like_attrs[] = {
    NNS__A_OPT("dtype", INT), NNS__A_FLOAT("high", 1.0),
    NNS__A_FLOAT("low", 0.0), NNS__A_OPT("seed", FLOAT), NNS__A_END};
static const nns__attr_spec bernoulli_attrs[] = {
    NNS__A_OPT("dtype", INT), NNS__A_OPT("seed", FLOAT), NNS__A_END};
static const nns__attr_spec multinomial_attrs[] = {
    NNS__A_INT("dtype", NNS_DT_INT32), NNS__A_INT("sample_size", 1),
    NNS__A_OPT("seed", FLOAT), NNS__A_END};

/* ==== Cost rules ==== */

/* ConstantOfShape, EyeLike: writes only (EyeLike reads X's shape, not its
 * elements). */
static nns_status write_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_rw(cx, c, 0, 0);
}

/* Range (y[i] = y[i-1] + delta) and the random generators (one sample per
 * element): one FLOP per element written, nothing read. */
static nns_status generate1_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y = nns__out_count(cx, c, 0);
  return y < 0 ? NNS__UNCOUNTED : nns__cost_rw(cx, c, y, 0);
}

/* Bernoulli: reads each probability and draws one sample per element. */
static nns_status bernoulli_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_x(cx, c, 0, 1);
}

/*
 * Multinomial, X [batch, C] unnormalised log-probabilities, Y [batch, S]:
 * exp and a running sum per class (2 numel(X)), then per sample one draw
 * and a linear scan of the C cumulative sums: numel(Y) (1 + C).
 */
static nns_status multinomial_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *t = nns__in_type(cx, 0);
  if (!t || t->rank != 2)
    return NNS__UNCOUNTED;
  int64_t classes = nns__dim_count(c, t->dims[1], cx->m);
  return nns__cost_x(cx, c, 2, nns__cadd(c, classes, 1));
}

/* ==== Table ==== */

const nns__op nns__ops_generate[] = {
    {"", "Constant", 1, 10, "", constant1_attrs, constant_shape, constant_fold,
     NNS__VIEW, .holds_data = true},
    {"", "Constant", 11, 11, "", constant11_attrs, constant_shape,
     constant_fold, NNS__VIEW, .holds_data = true},
    {"", "Constant", 12, NNS__OPSET_MAX, "", constant12_attrs, constant_shape,
     constant_fold, NNS__VIEW, .holds_data = true},
    {"", "ConstantOfShape", 9, NNS__OPSET_MAX, "c", constant_of_shape_attrs,
     constant_of_shape_shape, constant_of_shape_fold, .cost = write_cost,
     .attn = NNS__ATTN_FILL},
    {"", "Range", 11, NNS__OPSET_MAX, "ccc", NULL, range_shape, range_fold,
     .cost = generate1_cost},
    {"", "EyeLike", 9, NNS__OPSET_MAX, "a", eye_like_attrs, eye_like_shape,
     eye_like_fold,
     true, .cost = write_cost, .no_grad = "1"},
    {"", "RandomNormal", 1, NNS__OPSET_MAX, "", random_normal_attrs,
     random_shape, NULL,
     .cost = generate1_cost},
    {"", "RandomUniform", 1, NNS__OPSET_MAX, "", random_uniform_attrs,
     random_shape, NULL,
     .cost = generate1_cost},
    {"", "RandomNormalLike", 1, NNS__OPSET_MAX, "a", random_normal_like_attrs,
     random_like_shape, NULL, .cost = generate1_cost, .no_grad = "1"},
    {"", "RandomUniformLike", 1, NNS__OPSET_MAX, "a", random_uniform_like_attrs,
     random_like_shape, NULL, .cost = generate1_cost, .no_grad = "1"},
    {"", "Bernoulli", 15, NNS__OPSET_MAX, "a", bernoulli_attrs,
     random_like_shape, NULL,
     .cost = bernoulli_cost},
    {"", "Multinomial", 7, NNS__OPSET_MAX, "a", multinomial_attrs,
     multinomial_shape, NULL,
     .cost = multinomial_cost},
    NNS__OP_END,
};
