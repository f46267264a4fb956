/*
 * aten_int.h - helpers of the aten rules (aten_util.c): arguments by
 * schema name, nodes and kernels through the builder, and the small
 * constants (axes, shapes, scalars) the lowered nodes read.
 */
#ifndef NNS_OPS_ATEN_INT_H
#define NNS_OPS_ATEN_INT_H

#include "aten.h"

#include <stddef.h>

/* Returns a failed status at once. */
#define A_TRY(expr)                                                            \
  do {                                                                         \
    nns_status st_ = (expr);                                                   \
    if (st_ != NNS_OK)                                                         \
      return st_;                                                              \
  } while (0)
/* Tensor argument `name`, or NULL. */
#define A_T(c, name) nns__aten_tensor(c, name)
/* The front end's meta of value v (NULL for NULL or none). */
#define A_META(c, v) ((v) ? (c)->meta((c)->fe, (v)) : NULL)

const nns__aten_arg *nns__aten_arg_of(const nns__aten_call *c,
                                      const char *name);
const char *nns__aten_tensor(const nns__aten_call *c, const char *name);
/* The first n tensor arguments in order; returns how many there were. */
int nns__aten_tensors(const nns__aten_call *c, const char **out, int n);
int64_t nns__aten_int(const nns__aten_call *c, const char *name,
                      int64_t fallback);
/* A Scalar argument's value (a float, an int without a symbol, a bool as
 * 0 or 1) into *v; false for any other argument or none. */
bool nns__aten_number(const nns__aten_arg *a, double *v);
double nns__aten_float(const nns__aten_call *c, const char *name,
                       double fallback);
bool nns__aten_bool(const nns__aten_call *c, const char *name,
                    bool fallback);
/* An int-list argument as r values: one value (or an int) repeated, a
 * missing or empty one as `fallback`. False for anything else (a
 * symbolic element, another length). */
bool nns__aten_ints(const nns__aten_call *c, const char *name, int r,
                    int64_t fallback, int64_t *out);

/* Adds a node for this call (its name and module path). */
nns_status nns__aten_node(nns__aten_call *c, const char *op_type,
                          const char *domain, const char *const *ins,
                          size_t n_in, const char *const *outs, size_t n_out);
/* Marks the nodes added since `first` as one kernel (when 2 or more). */
nns_status nns__aten_kernel(nns__aten_call *c, size_t first);
/* Declares `name`'s sizes (value_info, dims all known: else nothing),
 * under the graph name the numbering gave it once written. */
nns_status nns__aten_declare(nns__aten_call *c, const char *name,
                             int32_t dtype, int rank, const int64_t *dims);
/* Small constants, each a new initializer marked CONSTANT: int64 values
 * (a scalar when `scalar`), a number as a 0-d tensor of `dtype`, and a
 * tensor of `dtype` and dims with no data (ones or zeros where PyTorch
 * passed None). NULL with c->err set on failure. */
const char *nns__aten_const_ints(nns__aten_call *c, const int64_t *v, int n,
                                 bool scalar);
const char *nns__aten_scalar(nns__aten_call *c, double v, int32_t dtype);
const char *nns__aten_filler(nns__aten_call *c, int32_t dtype, int rank,
                             const int64_t *dims);
/* A 1-D int64 value holding the sizes of meta m: a constant when all are
 * known, else a Concat of constants and the symbols' scalars (reshaped to
 * one element). NULL with c->err set, or c->err->code 0 when a symbol has
 * no value. */
const char *nns__aten_shape_value(nns__aten_call *c, const nns__aten_meta *m);
/* The same, with one size that no value holds (an expression of symbols)
 * as -1: a Reshape's target, which infers it. */
const char *nns__aten_reshape_value(nns__aten_call *c,
                                    const nns__aten_meta *m);
/* Dim `dim` of m as a 1-element int64 vector: a constant, or its
 * symbol's scalar (NULL when neither). */
const char *nns__aten_size_vector(nns__aten_call *c, const nns__aten_meta *m,
                                  int dim);
/* A 1-element int64 value holding int argument a (a constant, or its
 * symbol's scalar); NULL as above. */
const char *nns__aten_int_value(nns__aten_call *c, const nns__aten_arg *a);
/* A tensor argument's name, or a number argument as a scalar of dtype;
 * NULL for anything else. */
const char *nns__aten_operand(nns__aten_call *c, const nns__aten_arg *a,
                              int32_t dtype);
/* The BINARY form: op_type on (self, other), one kernel with its Casts. */
nns_status nns__aten_binary(nns__aten_call *c, const char *op_type);
/* The rule of the pools max_poolNd(_with_indices) and avg_poolNd, N the
 * op's own (aten.c): an unbatched input is a batch of one. */
nns_status nns__aten_pool(nns__aten_call *c, const nns__aten_op *op);
/* a // b (floor_divide, div's "floor" rounding mode): Div, then Floor
 * for floating point (an integer Div floors already for the non-negative
 * values models divide), one kernel. */
nns_status nns__aten_floor_div(nns__aten_call *c);
/* The same node (and Casts) writing value `out`, the operands' common
 * dtype still the call's output's (for a rule that goes on from it); marks
 * no kernel. */
nns_status nns__aten_binary_to(nns__aten_call *c, const char *op_type,
                               const char *out);
/* The CREATE form: the output as a constant of its own sizes. */
nns_status nns__aten_create(nns__aten_call *c);

/* The forms of a table entry (aten.c, aten_math.c). */
#define UN(name, onnx) {name, NNS__AF_UNARY, onnx, NULL, 0}
#define BIN(name, onnx) {name, NNS__AF_BINARY, onnx, NULL, 0}
#define ALIAS(name) {name, NNS__AF_ALIAS, "(its input)", NULL, 0}
#define CREATE(name) {name, NNS__AF_CREATE, "(a constant)", NULL, 0}
#define RULE(name, onnx, fn) {name, NNS__AF_RULE, onnx, fn, 0}
/* A rule that may leave output 1 unwritten (nns__aten_op.unwritten). */
#define RULE_UNWRITTEN_1(name, onnx, fn) {name, NNS__AF_RULE, onnx, fn, 2}
/* A rule that leaves outputs 1 and 2 unwritten (a norm's saved mean and
 * inverse deviation, which its backward reads). */
#define RULE_UNWRITTEN_1_2(name, onnx, fn) {name, NNS__AF_RULE, onnx, fn, 6}
/* A rule whose recorder's rule reads its later tensor arguments at its
 * nodes (nns__aten_op.reads_at_nodes). */
#define RULE_READS_AT_NODES(name, onnx, fn)                                    \
  {name, NNS__AF_RULE, onnx, fn, 0, true}

/* A rule that may leave the tensor arguments `unread` unread
 * (nns__aten_op.unread). */
#define RULE_UNREAD(name, onnx, fn, unread)                                    \
  {name, NNS__AF_RULE, onnx, fn, 0, false, unread}
/* The same, reading the count `counted` says (nns__aten_op.counted). */
#define RULE_COUNTED(name, onnx, fn, unread, counted)                          \
  {name, NNS__AF_RULE, onnx, fn, 0, false, unread, counted}

/* The families other than aten.c's own. */
extern const nns__aten_family nns__aten_math;  /* aten_math.c */
/* layout, indexing, scatter/gather, sorting and search */
extern const nns__aten_family nns__aten_shape; /* aten_shape.c */
/* convolution, norms, pooling, resizing, padding, attention variants,
 * fused transformer kernels, backward kernels */
extern const nns__aten_family nns__aten_nn;    /* aten_nn.c */
extern const nns__aten_family nns__aten_export; /* aten_export.c */
/* complex values: view_as_complex/real, polar, torch.fft */
extern const nns__aten_family nns__aten_complex; /* aten_complex.c */
/* A call of entry e on a complex value in real form (aten_complex.c): mul
 * a complex product, abs the modulus, _to_copy a Cast of the real form
 * (or a real value made complex), a layout rule (view, slice, expand, ...)
 * on the output's real form; *done false when it is no such call (e
 * lowers it as ever). */
nns_status nns__aten_lower_complex(nns__aten_call *c, const nns__aten_op *e,
                                   bool *done);

/* Rules and helpers aten.c shares with the other families. */
/* The sorted axes of a `dim` argument over rank r (all when absent or
 * empty): their count, or -1 when they cannot be read. */
int nns__aten_axes(nns__aten_call *c, int r, int64_t *axes);
/* softmax / log_softmax (self, dim): op->onnx with its axis. */
nns_status nns__aten_softmax(nns__aten_call *c, const nns__aten_op *op);
/* _adaptive_avg_pool2d and its kin (aten_nn.c): lowered from the
 * output's sizes (a global pool, a tiling AveragePool or MaxPool, or a
 * Resize for an output that is a multiple of the input). */
nns_status nns__aten_adaptive(nns__aten_call *c, const nns__aten_op *op);
/* MatMul of the first two tensor arguments. */
nns_status nns__aten_matmul(nns__aten_call *c, const nns__aten_op *op);
/* The largest rank, and element count (2^48), the rules compute with:
 * sizes from a hostile archive never overflow their arithmetic. */
enum { NNS__ATEN_R_MAX = 16 };
#define NNS__ATEN_DIM_MAX ((int64_t)1 << 48)
/* The element count of sizes d[0..n), -1 past NNS__ATEN_DIM_MAX. */
int64_t nns__aten_prod(const int64_t *d, int n);
/* Copies the sizes of meta m into dims when all are known, the rank is
 * at most NNS__ATEN_R_MAX and their product at most NNS__ATEN_DIM_MAX. */
bool nns__aten_known(const nns__aten_meta *m, int64_t *dims);
/* A Reshape of src to exactly dims into out (a zero is a zero-size dim). */
nns_status nns__aten_reshape_to(nns__aten_call *c, const char *src,
                                const int64_t *dims, int n, const char *out);
/* String attribute `name` of the node just added. */
nns_status nns__aten_attr_s(nns__aten_call *c, const char *name,
                            const char *v);
#endif
