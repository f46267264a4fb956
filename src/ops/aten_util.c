/*
 * aten_util.c - what the aten rules (aten.c) share: reading a call's
 * arguments by schema name, adding its nodes and kernels through the
 * builder, and making the small constants the lowered nodes read (shapes,
 * axes, scalars), each marked CONSTANT so it is never counted as a
 * parameter.
 */
#include "aten_int.h"

#include "../base/base.h"
#include "../ir/builder_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ==== Arguments ==== */

const nns__aten_arg *nns__aten_arg_of(const nns__aten_call *c,
                                      const char *name) {
  for (int32_t k = 0; k < c->n_args; k++) /* (first bytes: few match) */
    if (c->args[k].name && c->args[k].name[0] == name[0] &&
        !strcmp(c->args[k].name, name))
      return &c->args[k];
  return NULL;
}

const char *nns__aten_tensor(const nns__aten_call *c, const char *name) {
  const nns__aten_arg *a = nns__aten_arg_of(c, name);
  return a && a->kind == NNS__AA_TENSOR ? a->tensor : NULL;
}

int nns__aten_tensors(const nns__aten_call *c, const char **out, int n) {
  int got = 0;
  for (int32_t k = 0; k < c->n_args && got < n; k++)
    if (c->args[k].kind == NNS__AA_TENSOR)
      out[got++] = c->args[k].tensor;
  return got;
}

int64_t nns__aten_int(const nns__aten_call *c, const char *name,
                      int64_t fallback) {
  const nns__aten_arg *a = nns__aten_arg_of(c, name);
  return a && a->kind == NNS__AA_INT && !a->sym ? a->i
         : a && a->kind == NNS__AA_BOOL         ? a->b
                                                : fallback;
}

bool nns__aten_number(const nns__aten_arg *a, double *v) {
  if (a && a->kind == NNS__AA_FLOAT)
    *v = a->f;
  else if (a && a->kind == NNS__AA_INT && !a->sym)
    *v = (double)a->i;
  else if (a && a->kind == NNS__AA_BOOL) /* a Scalar may be a bool */
    *v = a->b;
  else
    return false;
  return true;
}

double nns__aten_float(const nns__aten_call *c, const char *name,
                       double fallback) {
  double v;
  return nns__aten_number(nns__aten_arg_of(c, name), &v) ? v : fallback;
}

bool nns__aten_bool(const nns__aten_call *c, const char *name,
                    bool fallback) {
  const nns__aten_arg *a = nns__aten_arg_of(c, name);
  return a && a->kind == NNS__AA_BOOL ? a->b
         : a && a->kind == NNS__AA_INT && !a->sym ? a->i != 0
                                                  : fallback;
}

bool nns__aten_ints(const nns__aten_call *c, const char *name, int r,
                    int64_t fallback, int64_t *out) {
  const nns__aten_arg *a = nns__aten_arg_of(c, name);
  if (!a || a->kind == NNS__AA_NONE || (a->kind == NNS__AA_INTS && !a->n) ||
      a->kind == NNS__AA_STRING) {
    for (int k = 0; k < r; k++)
      out[k] = fallback;
    return true;
  }
  if (a->kind == NNS__AA_INT && !a->sym) {
    for (int k = 0; k < r; k++)
      out[k] = a->i;
    return true;
  }
  if (a->kind != NNS__AA_INTS || (a->n != 1 && a->n != r))
    return false;
  for (int k = 0; k < r; k++) {
    int j = a->n == 1 ? 0 : k;
    if (a->syms[j])
      return false;
    out[k] = a->ints[j];
  }
  return true;
}

/* ==== Nodes ==== */

/* The names of a node's values under the recorder's numbering: inputs
 * as they are named, outputs numbered when first written. */
static bool numbered_names(nns__aten_call *c, const char *const *names,
                           size_t n, bool written, const char **out) {
  for (size_t k = 0; k < n; k++)
    if (!(out[k] = names[k] && *names[k]
                       ? c->numbered(c->fe, names[k], written)
                       : names[k]))
      return false;
  return true;
}

nns_status nns__aten_node(nns__aten_call *c, const char *op_type,
                          const char *domain, const char *const *ins,
                          size_t n_in, const char *const *outs,
                          size_t n_out) {
  const char *name = c->name;
  const char *in_names[256], *out_names[64];
  if (c->numbered) {
    /* inputs first: a node reading what it writes reads the old value */
    if (n_in > 256 || n_out > 64)
      return nns__err(c->err, NNS_E_LIMIT, -1, c->name,
                      "%s: a node of more than 256 inputs or 64 outputs",
                      c->name);
    if (c->err)
      c->err->code = NNS_OK;
    if ((c->reading && !c->reading(c->fe, ins, n_in)) ||
        !numbered_names(c, ins, n_in, false, in_names) ||
        !numbered_names(c, outs, n_out, true, out_names) ||
        !(name = c->node_name(c->fe, op_type, domain)))
      /* (a tensor read first whose initializer cannot be made says why) */
      return c->err && c->err->code ? c->err->code
                          : nns__err(c->err, NNS_E_NOMEM, -1, NULL,
                                     "out of memory");
    ins = in_names;
    outs = out_names;
  }
  nns_status st =
      c->numbered && c->names_interned
          ? nns__builder_add_node_interned(c->b, op_type, domain, name,
                                           c->module_path, ins, n_in, outs,
                                           n_out, c->err)
          : nns_builder_add_node(c->b, op_type, domain, name, c->module_path,
                                 ins, n_in, outs, n_out, c->err);
  if (st == NNS_OK)
    ++*c->node_count;
  return st;
}

/* A data-shaped value's sizes as the recording saw them (value_info): a
 * dim its node's rule cannot know from shapes (NonZero's count, Unique's)
 * takes them (NNS_INFER_FALLBACK_DECLARED), as the recorder declares what
 * its own rules make so. Nothing where a size is unknown (an archive's
 * symbol: the rule's own unknown stands). Call it once `name` is written. */
nns_status nns__aten_declare(nns__aten_call *c, const char *name,
                             int32_t dtype, int rank, const int64_t *dims) {
  for (int d = 0; d < rank; d++)
    if (dims[d] < 0)
      return NNS_OK;
  const char *graph_name = c->numbered ? c->numbered(c->fe, name, false)
                                       : name;
  if (!graph_name)
    return nns__err(c->err, NNS_E_NOMEM, -1, NULL, "out of memory");
  return nns_builder_add_value_info(c->b, graph_name, dtype, rank, dims,
                                    NULL, c->err);
}

nns_status nns__aten_kernel(nns__aten_call *c, size_t first) {
  size_t n = *c->node_count - first;
  return n < 2 ? NNS_OK : nns_builder_mark_kernel(c->b, first, n, c->err);
}

/* ==== Constants ==== */

nns_status nns__aten_param_kind(nns_builder *b, const char *name, int kind,
                                nns_error *err) {
  return nns__builder_param_kind(b, name, kind, err);
}

/* A new initializer of dtype and dims holding data (NULL: none), marked
 * CONSTANT. */
static const char *constant(nns__aten_call *c, int32_t dtype, int rank,
                            const int64_t *dims, const void *data,
                            size_t size) {
  const char *name = c->fresh_const ? c->fresh_const(c->fe) : c->fresh(c->fe);
  if (!name) {
    nns__err(c->err, NNS_E_NOMEM, -1, NULL, "out of memory");
    return NULL;
  }
  if (nns_builder_add_initializer(c->b, name, dtype, rank, dims, data, size,
                                  c->err) != NNS_OK ||
      nns__aten_param_kind(c->b, name, NNS_PARAM_CONSTANT, c->err) != NNS_OK)
    return NULL;
  return name;
}

const char *nns__aten_const_ints(nns__aten_call *c, const int64_t *v, int n,
                                 bool scalar) {
  int64_t dims[1] = {n};
  return constant(c, NNS_DT_INT64, scalar ? 0 : 1, dims, v,
                  (size_t)n * sizeof *v);
}

/* float32 to float16 and bfloat16, rounded to nearest even as PyTorch
 * makes a scalar of those dtypes: the masks read such a constant (a -inf
 * fill, a scale), so its value must be what the model's tensor holds. */
static uint16_t half_of(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t mag = x & 0x7fffffff;
  if (mag > 0x7f800000)
    return sign | 0x7e00; /* NaN */
  if (mag >= 0x477ff000)
    return sign | 0x7c00; /* from 65520 on: infinity */
  if (mag < 0x38800000) { /* below 2^-14: a subnormal half, or zero */
    float a;
    memcpy(&a, &mag, 4);
    return sign | (uint16_t)lrintf(a * 16777216.0f); /* exact: a power of 2 */
  }
  uint32_t v = mag - (112u << 23); /* exponent bias 127 to 15 */
  return sign | (uint16_t)((v + 0xfff + ((v >> 13) & 1)) >> 13);
}

static uint16_t bfloat16_of(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return (uint16_t)((x >> 16) | 0x40); /* NaN stays NaN */
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

const char *nns__aten_scalar(nns__aten_call *c, double v, int32_t dtype) {
  unsigned char buf[8];
  size_t size = 0;
  bool whole = isfinite(v) && v == floor(v);
  switch (dtype) {
  case NNS_DT_FLOAT: {
    float f = (float)v;
    memcpy(buf, &f, size = 4);
    break;
  }
  case NNS_DT_DOUBLE:
    memcpy(buf, &v, size = 8);
    break;
  case NNS_DT_FLOAT16:
  case NNS_DT_BFLOAT16: {
    uint16_t h = dtype == NNS_DT_FLOAT16 ? half_of((float)v)
                                         : bfloat16_of((float)v);
    memcpy(buf, &h, size = 2);
    break;
  }
  case NNS_DT_INT64:
    if (whole && fabs(v) < 9.2e18) {
      int64_t i = (int64_t)v;
      memcpy(buf, &i, size = 8);
    }
    break;
  case NNS_DT_INT32:
    if (whole && fabs(v) < 2.1e9) {
      int32_t i = (int32_t)v;
      memcpy(buf, &i, size = 4);
    }
    break;
  case NNS_DT_BOOL:
    if (whole) {
      buf[0] = v != 0;
      size = 1;
    }
    break;
  default: /* the rest: the value is not needed to count */
    break;
  }
  if (dtype == 0)
    dtype = NNS_DT_FLOAT;
  return constant(c, dtype, 0, NULL, size ? buf : NULL, size);
}

const char *nns__aten_filler(nns__aten_call *c, int32_t dtype, int rank,
                             const int64_t *dims) {
  return constant(c, dtype ? dtype : NNS_DT_FLOAT, rank, dims, NULL, 0);
}

const char *nns__aten_operand(nns__aten_call *c, const nns__aten_arg *a,
                              int32_t dtype) {
  switch (a->kind) {
  case NNS__AA_TENSOR:
    return a->tensor;
  case NNS__AA_FLOAT:
    return nns__aten_scalar(c, a->f, dtype);
  case NNS__AA_INT:
    return a->sym ? NULL : nns__aten_scalar(c, (double)a->i, dtype);
  case NNS__AA_BOOL:
    return nns__aten_scalar(c, a->b, dtype);
  default:
    return NULL;
  }
}

/* The symbol's scalar as a 1-element vector. */
static const char *sym_vector(nns__aten_call *c, const char *sym) {
  const char *v = c->symval ? c->symval(c->fe, sym) : NULL;
  if (!v)
    return NULL;
  int64_t one = 1;
  const char *ins[] = {v, nns__aten_const_ints(c, &one, 1, false)};
  const char *out = c->fresh(c->fe);
  if (!ins[1] || nns__aten_node(c, "Reshape", "", ins, 2, &out, 1) != NNS_OK)
    return NULL;
  return out;
}

const char *nns__aten_size_vector(nns__aten_call *c, const nns__aten_meta *m,
                                  int dim) {
  if (!m || dim < 0 || dim >= m->rank)
    return NULL;
  if (m->dims[dim] >= 0)
    return nns__aten_const_ints(c, &m->dims[dim], 1, false);
  return m->syms && m->syms[dim] ? sym_vector(c, m->syms[dim]) : NULL;
}

const char *nns__aten_int_value(nns__aten_call *c, const nns__aten_arg *a) {
  if (a->kind != NNS__AA_INT)
    return NULL;
  if (!a->sym)
    return nns__aten_const_ints(c, &a->i, 1, false);
  return sym_vector(c, a->sym);
}

/* The sizes of m as a 1-D int64 value (see nns__aten_shape_value); with
 * minus_ok one size that no value holds (an expression such as 4*s72) is
 * -1, for a Reshape to infer. */
static const char *sizes_value(nns__aten_call *c, const nns__aten_meta *m,
                               bool minus_ok) {
  bool known = true;
  for (int k = 0; k < m->rank; k++)
    known = known && m->dims[k] >= 0;
  if (known)
    return nns__aten_const_ints(c, m->dims, m->rank, false);
  if (m->rank > 16)
    return NULL;
  const char *parts[16];
  const int64_t minus1 = -1;
  for (int k = 0; k < m->rank; k++) {
    /* A size the archive computes (an expression of symbols) is the
     * Reshape's -1 where it may be: its arithmetic is no node of the
     * program's (the live recording sees numbers). */
    bool computed = m->dims[k] < 0 && m->syms && m->syms[k] &&
                    strchr(m->syms[k], '(');
    parts[k] = m->dims[k] >= 0 ? nns__aten_const_ints(c, &m->dims[k], 1, false)
               : computed && minus_ok ? NULL
               : m->syms && m->syms[k] ? sym_vector(c, m->syms[k])
                                       : NULL;
    if (!parts[k] && minus_ok && !c->err->code) {
      parts[k] = nns__aten_const_ints(c, &minus1, 1, false);
      minus_ok = false;
    }
    if (!parts[k])
      return NULL;
  }
  const char *out = c->fresh(c->fe);
  if (nns__aten_node(c, "Concat", "", parts, (size_t)m->rank, &out, 1) !=
          NNS_OK ||
      nns_builder_attr_int(c->b, "axis", 0, c->err) != NNS_OK)
    return NULL;
  return out;
}

const char *nns__aten_shape_value(nns__aten_call *c,
                                  const nns__aten_meta *m) {
  return sizes_value(c, m, false);
}

const char *nns__aten_reshape_value(nns__aten_call *c,
                                    const nns__aten_meta *m) {
  return sizes_value(c, m, true);
}

/* ==== Forms ==== */

/* A tensor operand of another dtype than `want` is Cast first; returns the
 * name to use (NULL on failure). */
static const char *as_dtype(nns__aten_call *c, const char *t, int32_t want) {
  const nns__aten_meta *m = A_META(c, t);
  if (!m || !want || m->dtype == want || !m->dtype)
    return t;
  const char *out = c->fresh(c->fe);
  if (nns__aten_node(c, "Cast", "", &t, 1, &out, 1) != NNS_OK ||
      nns_builder_attr_int(c->b, "to", want, c->err) != NNS_OK)
    return NULL;
  return out;
}

/* A binary entry's call: its op, one kernel. div's rounding mode, as
 * PyTorch runs it: "floor" is floor_divide (nns__aten_floor_div),
 * "trunc" stays a Div (ONNX's integer Div truncates; of floating point
 * the rounding's own pass is not counted: ONNX has no Trunc). */
nns_status nns__aten_binary(nns__aten_call *c, const char *op_type) {
  if (c->n_outs < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  const nns__aten_arg *rm = nns__aten_arg_of(c, "rounding_mode");
  const char *mode = rm && rm->kind == NNS__AA_STRING ? rm->s : NULL;
  if (mode && (strcmp(op_type, "Div") ||
               (strcmp(mode, "floor") && strcmp(mode, "trunc"))))
    return NNS_E_NOTFOUND;
  if (mode && !strcmp(mode, "floor"))
    return nns__aten_floor_div(c);
  size_t first = *c->node_count;
  A_TRY(nns__aten_binary_to(c, op_type, c->outs[0]));
  return nns__aten_kernel(c, first);
}

nns_status nns__aten_floor_div(nns__aten_call *c) {
  const nns__aten_meta *mo = c->n_outs > 0 ? A_META(c, c->outs[0]) : NULL;
  if (!mo)
    return NNS_E_NOTFOUND;
  bool floor = nns__dtype_is_float(mo->dtype);
  size_t first = *c->node_count;
  const char *q = floor ? c->fresh(c->fe) : c->outs[0];
  A_TRY(nns__aten_binary_to(c, "Div", q));
  if (floor)
    A_TRY(nns__aten_node(c, "Floor", "", &q, 1, c->outs, 1));
  return nns__aten_kernel(c, first);
}

nns_status nns__aten_binary_to(nns__aten_call *c, const char *op_type,
                               const char *out) {
  const nns__aten_arg *x = c->n_args > 0 ? &c->args[0] : NULL;
  const nns__aten_arg *y = c->n_args > 1 ? &c->args[1] : NULL;
  if (!x || !y || c->n_outs < 1 || !c->outs[0] || !out)
    return NNS_E_NOTFOUND;
  /* alpha scales `other` (add, sub, rsub): a Mul first where it is not 1
   * (the caller makes them one kernel); a rounding mode is
   * nns__aten_binary's. */
  const nns__aten_arg *al = nns__aten_arg_of(c, "alpha");
  if (al && !(al->kind == NNS__AA_FLOAT ||
              (al->kind == NNS__AA_INT && !al->sym)))
    return NNS_E_NOTFOUND;
  double alpha = !al ? 1 : al->kind == NNS__AA_INT ? (double)al->i : al->f;
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  /* The operands' common type: the output's, unless it is a comparison's
   * bool; then the tensor operand's. */
  int32_t common = mo ? mo->dtype : 0;
  if (common == NNS_DT_BOOL || !common) {
    const char *t = x->kind == NNS__AA_TENSOR   ? x->tensor
                    : y->kind == NNS__AA_TENSOR ? y->tensor
                                                : NULL;
    const nns__aten_meta *mt = A_META(c, t);
    common = mt ? mt->dtype : common;
  }
  bool pow = !strcmp(op_type, "Pow");
  if (pow) {
    /* ONNX's Pow takes its base and exponent in two types, and PyTorch
     * reads both as they are: no Cast, and a number in the tensor
     * operand's dtype (as the recorder's rule makes it) */
    const char *t = x->kind == NNS__AA_TENSOR ? x->tensor : y->tensor;
    const nns__aten_meta *mt = A_META(c, t);
    if (mt && mt->dtype)
      common = mt->dtype;
  }
  /* each operand in turn, its Cast made before the next one's number (the
   * recorder's rule names them in that order) */
  const char *ins[2];
  for (int k = 0; k < 2; k++) {
    const nns__aten_arg *a = k ? y : x;
    if (!(ins[k] = nns__aten_operand(c, a, common)))
      return c->err && c->err->code ? c->err->code : NNS_E_NOTFOUND;
    if (!pow && a->kind == NNS__AA_TENSOR &&
        !(ins[k] = as_dtype(c, ins[k], common)))
      return c->err->code;
  }
  if (!strcmp(c->op, "rsub") || !strcmp(c->op, "rsub_")) {
    const char *t = ins[0];
    ins[0] = ins[1];
    ins[1] = t;
  }
  if (alpha == 1)
    return nns__aten_node(c, op_type, "", ins, 2, &out, 1);
  /* x + alpha * other: the operand alpha scales is the node's second */
  const char *mins[] = {ins[1], nns__aten_scalar(c, alpha, common)};
  if (!mins[1])
    return c->err->code;
  const char *scaled = c->fresh(c->fe);
  A_TRY(nns__aten_node(c, "Mul", "", mins, 2, &scaled, 1));
  ins[1] = scaled;
  return nns__aten_node(c, op_type, "", ins, 2, &out, 1);
}

nns_status nns__aten_create(nns__aten_call *c) {
  if (c->n_outs < 1 || !c->outs[0])
    return NNS_OK;
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!mo || mo->rank < 0)
    return NNS_E_NOTFOUND;
  bool known = true;
  for (int k = 0; k < mo->rank; k++)
    known = known && mo->dims[k] >= 0;
  if (!known) {
    /* Symbolic sizes, which no initializer holds: a ConstantOfShape over
     * the sizes (its values are not needed to count): those of `self` when
     * the output has its sizes (full_like, zeros_like, ...: a size such
     * as s0*s1 no symbol's value holds), else made from the symbols. */
    c->err->code = NNS_OK;
    const char *self = A_T(c, "self");
    const nns__aten_meta *ms = A_META(c, self);
    bool like = ms && ms->rank == mo->rank && ms->syms && mo->syms;
    for (int k = 0; like && k < mo->rank; k++)
      like = ms->dims[k] == mo->dims[k] &&
             (mo->dims[k] >= 0 || (ms->syms[k] && mo->syms[k] &&
                                   !strcmp(ms->syms[k], mo->syms[k])));
    const char *shape = NULL;
    if (like) {
      shape = c->fresh(c->fe);
      A_TRY(nns__aten_node(c, "Shape", "", &self, 1, &shape, 1));
    } else {
      shape = nns__aten_shape_value(c, mo);
    }
    if (!shape)
      return c->err && c->err->code ? c->err->code : NNS_E_NOTFOUND;
    A_TRY(nns__aten_node(c, "ConstantOfShape", "", &shape, 1, c->outs, 1));
    int64_t one = 1;
    return nns_builder_attr_tensor(c->b, "value", NNS_ATTR_TENSOR,
                                   mo->dtype ? mo->dtype : NNS_DT_FLOAT, 1,
                                   &one, NULL, 0, c->err);
  }
  A_TRY(nns_builder_add_initializer(c->b, c->outs[0],
                                    mo->dtype ? mo->dtype : NNS_DT_FLOAT,
                                    mo->rank, mo->dims, NULL, 0, c->err));
  return nns__aten_param_kind(c->b, c->outs[0], NNS_PARAM_CONSTANT, c->err);
}

int64_t nns__aten_prod(const int64_t *d, int n) {
  int64_t p = 1;
  for (int k = 0; k < n; k++)
    if (d[k] < 0 || !nns__mul_i64(p, d[k], &p) || p > NNS__ATEN_DIM_MAX)
      return -1;
  return p;
}

bool nns__aten_known(const nns__aten_meta *m, int64_t *dims) {
  if (!m || m->rank < 0 || m->rank > NNS__ATEN_R_MAX)
    return false;
  for (int k = 0; k < m->rank; k++) {
    if (m->dims[k] < 0)
      return false;
    dims[k] = m->dims[k];
  }
  return nns__aten_prod(dims, m->rank) >= 0;
}

nns_status nns__aten_reshape_to(nns__aten_call *c, const char *src,
                                const int64_t *dims, int n, const char *out) {
  const char *ins[] = {src, nns__aten_const_ints(c, dims, n, false)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Reshape", "", ins, 2, &out, 1));
  for (int k = 0; k < n; k++)
    if (dims[k] == 0)
      return nns_builder_attr_int(c->b, "allowzero", 1, c->err);
  return NNS_OK;
}

nns_status nns__aten_attr_s(nns__aten_call *c, const char *name,
                            const char *v) {
  return nns_builder_attr_string(c->b, name, v, strlen(v), c->err);
}
