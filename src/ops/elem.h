/*
 * elem.h - element helpers shared by the element-wise rules and their fold
 * kernels (eltwise.c, which defines them, activation.c, reduce.c): reading
 * constant elements, broadcast indexing, and converting a value to an
 * element of a given dtype the way ONNX Cast does. One place decides how a
 * double becomes a float16 or how an int64 wraps into an int8, so that
 * Cast, Clip and every fold agree (shape_util.h includes this header).
 */
#ifndef NNS_OPS_ELEM_H
#define NNS_OPS_ELEM_H

#include "op.h"

/* Fails the node (NNS_E_MODEL) unless inputs 0..n-1 are all present. */
nns_status nns__need_inputs(nns__ictx *cx, int n);

/* Shape rule of unary element-wise ops: output 0 = input 0's type. */
nns_status nns__same_shape(nns__ictx *cx);

/* Input i's known contents, provided its type is static and its element
 * count agrees with the type (fold kernels index by the dims); else NULL. */
const nns__const *nns__const_in(nns__ictx *cx, int i);

/* Element k of a constant as a double; false for a symbol or a string. */
bool nns__elem_f(const nns__const *c, int64_t k, double *out);

/* Round half to even (ONNX Round), independent of the FP environment. */
double nns__round_even(double x);

/* x rounded to an element of float dtype dt (float32, float16, bfloat16:
 * nearest even, overflow to inf; double: unchanged). False for dtypes it
 * does not handle (the float8 types). */
bool nns__to_float_dtype(double x, int32_t dt, double *out);

/* Unsigned integer dtypes (bool counts as unsigned). */
bool nns__dtype_unsigned(int32_t dt);

/* v as an element of integer dtype dt, wrapping to its width as a C cast
 * does; bool: v != 0. */
int64_t nns__wrap_int(int64_t v, int32_t dt);

/* x truncated toward zero into integer dtype dt; false when NaN, infinite
 * or out of the dtype's range. bool: x != 0. */
bool nns__float_to_int(double x, int32_t dt, int64_t *out);

/* Input i's dims aligned to the output's rank r: its own dims start at
 * `off`, the others are 1 (numpy: off = r - rank; legacy axis broadcasting:
 * off = axis). NULL when a dim is neither 1 nor the output's (static) dim
 * od there, or out of memory. */
nns__dim *nns__aligned_dims(nns__ictx *cx, int i, int32_t r, int32_t off,
                            const nns__dim *od);

/* The flat index, in an input with aligned dims `id`, of element o of the
 * broadcast output (rank r, static dims od). */
int64_t nns__bcast_index(int64_t o, int32_t r, const nns__dim *od,
                         const nns__dim *id);

/* RotaryEmbedding's cost (eltwise.c), with position_ids at input pos_in:
 * ONNX's at 3, com.microsoft's at 1 (msft.c). */
nns_status nns__rotary_cost(nns__ictx *cx, nns__cost *c, int pos_in);

#endif
