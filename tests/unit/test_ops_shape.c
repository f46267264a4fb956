/*
 * test_ops_shape.c - shape and fold rules of the shape family (shape.c,
 * shape_index.c) and generate.c: the symbolic shape arithmetic of
 * transformer exports, folded constant values, and the errors each op
 * must report.
 *
 * The models are written by unit/models/make_shape.py. Every expected
 * shape and value is worked out by hand in the comment beside it from the
 * ONNX operator documents; none is copied from nnscan's own output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testmodel.h"
#include "ir/ir.h"
#include "nnscan.h"

/* ==== Helpers ==== */

/* Checks the folded integer contents of `name`: known numbers in `want`
 * (n of them). */
static void expect_ints_at(int line, nns_model *m, const char *name,
                           const long long *want, int64_t n) {
  size_t i = tm_find(m, name);
  if (i == (size_t)-1) {
    check_fail(__FILE__, line, "no value '%s'", name);
    return;
  }
  const nns__const *c = m->values[i]->cval;
  if (!c || !c->i || c->numel != n) {
    check_fail(__FILE__, line, "%s: not folded to %lld integers", name,
               (long long)n);
    return;
  }
  for (int64_t k = 0; k < n; k++)
    if (c->i[k].sym || c->i[k].v != want[k])
      check_fail(__FILE__, line, "%s[%lld] is %lld%s, want %lld", name,
                 (long long)k, (long long)c->i[k].v,
                 c->i[k].sym ? " (symbolic)" : "", want[k]);
}
#define EXPECT_INTS(m, name, ...)                                              \
  do {                                                                         \
    static const long long want_[] = {__VA_ARGS__};                            \
    expect_ints_at(__LINE__, m, name, want_,                                   \
                   (int64_t)(sizeof want_ / sizeof want_[0]));                 \
  } while (0)

/* Printed name of folded element k of `name` ("7", "batch", "?"), or
 * "(none)" when the value did not fold. */
static const char *elem_str(nns_model *m, const char *name, int64_t k,
                            char *buf, size_t size) {
  size_t i = tm_find(m, name);
  const nns__const *c = i == (size_t)-1 ? NULL : m->values[i]->cval;
  if (!c || !c->i || k >= c->numel)
    return "(none)";
  return nns__dim_str(m, c->i[k], buf, size);
}

enum { F32 = NNS_DT_FLOAT, I64 = NNS_DT_INT64 };

/* ==== Symbolic shape arithmetic (x is [batch, seq, 4096]) ==== */

static void test_sym_reshape(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("shape", "sym", &m, &err), NNS_OK);
  if (!m)
    return;
  char buf[64];
  /* Shape(x) folds to its own dims; Gather picks the symbols. */
  CHECK_STR(elem_str(m, "s", 0, buf, sizeof buf), "batch");
  CHECK_STR(elem_str(m, "s", 1, buf, sizeof buf), "seq");
  CHECK_STR(elem_str(m, "s", 2, buf, sizeof buf), "4096");
  EXPECT_SHAPE(m, "b", I64, "");
  CHECK_STR(elem_str(m, "b", 0, buf, sizeof buf), "batch");
  CHECK_STR(elem_str(m, "c1", 1, buf, sizeof buf), "seq");
  /* Concat([batch], [seq], [32], [128]) as the target. */
  EXPECT_SHAPE(m, "r1", F32, "batch,seq,32,128");
  /* [batch, -1]: 4096*batch*seq / batch = 4096*seq. */
  EXPECT_SHAPE(m, "r2", F32, "batch,4096*seq");
  /* [-1, 32, 128]: 4096*batch*seq / 4096 = batch*seq. */
  EXPECT_SHAPE(m, "r3", F32, "batch*seq,32,128");
  /* Reshape(r3, Shape(x)) gives x's shape back, same symbols. */
  EXPECT_SHAPE(m, "r4", F32, "batch,seq,4096");
  /* [0, 0, -1, 64]: 0 copies batch and seq; 4096*b*s / (b*s*64) = 64. */
  EXPECT_SHAPE(m, "r5", F32, "batch,seq,64,64");
  EXPECT_SHAPE(m, "t", F32, "batch,32,seq,128");
  /* Slice(Shape(x), 1, INT64_MAX) = [seq, 4096]; Concat([-1], that) on
   * r2 [batch, 4096*seq]: -1 = 4096*batch*seq / (seq*4096) = batch. */
  CHECK_STR(elem_str(m, "tail", 0, buf, sizeof buf), "seq");
  EXPECT_SHAPE(m, "r6", F32, "batch,seq,4096");
  /* Size folds to the symbolic product. */
  EXPECT_SHAPE(m, "sz", I64, "");
  CHECK_STR(elem_str(m, "sz", 0, buf, sizeof buf), "4096*batch*seq");
  /* Flatten axis 2: [batch*seq, 4096]. */
  EXPECT_SHAPE(m, "fl", F32, "batch*seq,4096");
  /* Unsqueeze [0, -1] on rank 3: output rank 5, -1 is axis 4. */
  EXPECT_SHAPE(m, "un", F32, "1,batch,seq,4096,1");
  EXPECT_SHAPE(m, "sq", F32, "batch,seq,4096,1");
  /* Shape with start -2 reports the last two dims. */
  EXPECT_SHAPE(m, "sh2", I64, "2");
  CHECK_STR(elem_str(m, "sh2", 0, buf, sizeof buf), "seq");
  nns_model_free(m);
}

static void test_sym_slice(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("shape", "sym", &m, &err), NNS_OK);
  if (!m)
    return;
  /* axis 1, [1:INT64_MAX]: seq - 1. */
  EXPECT_SHAPE(m, "sl1", F32, "batch,seq-1,4096");
  /* [-1:INT64_MAX]: the last element. */
  EXPECT_SHAPE(m, "sl2", F32, "batch,1,4096");
  /* [-1:INT64_MIN:-1]: start seq-1, end clamps to -1: seq elements. */
  EXPECT_SHAPE(m, "sl3", F32, "batch,seq,4096");
  /* [0:3] of a symbolic dim: min(3, seq) is not known. */
  EXPECT_SHAPE(m, "sl4", F32, "batch,_,4096");
  /* axes 1, 2: [0:-1] gives seq-1; [64:4096] of 4096 gives 4032. */
  EXPECT_SHAPE(m, "sl5", F32, "batch,seq-1,4032");
  /* [0:INT64_MAX:2]: ceil(seq/2) = (seq+1)/2, an expression symbol. */
  size_t i = tm_find(m, "sl6");
  CHECK(i != (size_t)-1 && tm_dim(m, i, 1).symbol != NULL);
  nns_model_free(m);
}

static void test_sym_misc(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("shape", "sym", &m, &err), NNS_OK);
  if (!m)
    return;
  /* Range(0, seq, 1) has seq elements. */
  EXPECT_SHAPE(m, "rg", I64, "seq");
  /* ConstantOfShape(Concat(seq, seq)): float zeros of [seq, seq]. */
  EXPECT_SHAPE(m, "cs", F32, "seq,seq");
  /* Split of seq in 2 equal parts: seq/2 each. */
  EXPECT_SHAPE(m, "sp_0", F32, "batch,seq/2,4096");
  EXPECT_SHAPE(m, "sp_1", F32, "batch,seq/2,4096");
  /* Expand [1, seq] to Concat(batch, seq): [batch, seq]. */
  EXPECT_SHAPE(m, "ex", I64, "batch,seq");
  /* Gather axis 1 with [3, 2] indices: [batch] + [3, 2] + [4096]. */
  EXPECT_SHAPE(m, "ga", F32, "batch,3,2,4096");
  /* Concat on the last axis: 4096 + 4096. */
  EXPECT_SHAPE(m, "cc", F32, "batch,seq,8192");
  /* Pad [0,1,0, 0,2,3]: seq + 1 + 2, 4096 + 0 + 3. */
  EXPECT_SHAPE(m, "pd", F32, "batch,seq+3,4099");
  /* Tile [2, 1, 3]: 2*batch, seq, 3*4096. */
  EXPECT_SHAPE(m, "ti", F32, "2*batch,seq,12288");
  nns_model_free(m);
}

/* ==== Folds ==== */

static void test_fold(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("shape", "fold", &m, &err), NNS_OK);
  if (!m)
    return;
  /* a = [1..6] (Constant value_ints); m = a as [2, 3]:
   *   1 2 3
   *   4 5 6 */
  EXPECT_INTS(m, "a", 1, 2, 3, 4, 5, 6);
  EXPECT_INTS(m, "m", 1, 2, 3, 4, 5, 6);
  EXPECT_INTS(m, "mt", 1, 4, 2, 5, 3, 6);
  /* Pad constant 9, pads [1,0, 0,1]: a row of 9s on top, a column on the
   * right -> [3, 4]. */
  EXPECT_SHAPE(m, "pc", I64, "3,4");
  EXPECT_INTS(m, "pc", 9, 9, 9, 9, 1, 2, 3, 9, 4, 5, 6, 9);
  /* Reflect, 2 left and 1 right on axis 1: 1 2 3 -> 3 2 | 1 2 3 | 2. */
  EXPECT_SHAPE(m, "pr", I64, "2,6");
  EXPECT_INTS(m, "pr", 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5);
  /* Edge, 1 on top and 1 on the left: row 0 repeats, column 0 repeats. */
  EXPECT_SHAPE(m, "pe", I64, "3,4");
  EXPECT_INTS(m, "pe", 1, 1, 2, 3, 1, 1, 2, 3, 4, 4, 5, 6);
  /* a[-1:-10:-2]: start 5; end -10+6 = -4 clamps to -1; ceil(6/2) = 3:
   * indices 5, 3, 1. */
  EXPECT_INTS(m, "sa", 6, 4, 2);
  /* m[0:INT64_MAX, 2:-4:-1]: axis 1 end -4+3 = -1 (clamped -1), start 2:
   * columns 2, 1, 0. */
  EXPECT_SHAPE(m, "sm", I64, "2,3");
  EXPECT_INTS(m, "sm", 3, 2, 1, 6, 5, 4);
  EXPECT_INTS(m, "ga", 6, 1);
  /* columns 2 and 0 of m. */
  EXPECT_INTS(m, "gm", 3, 1, 6, 4);
  EXPECT_INTS(m, "sp_0", 1, 2);
  EXPECT_INTS(m, "sp_1", 3, 4, 5, 6);
  /* tl = lower triangle of m with k 0: [1 0 0; 4 5 0]; cm = m over tl. */
  EXPECT_INTS(m, "tl", 1, 0, 0, 4, 5, 0);
  EXPECT_SHAPE(m, "cm", I64, "4,3");
  EXPECT_INTS(m, "cm", 1, 2, 3, 4, 5, 6, 1, 0, 0, 4, 5, 0);
  /* Range(10, 0, -3): ceil(-10 / -3) = 4 elements: 10 7 4 1. */
  EXPECT_INTS(m, "rg", 10, 7, 4, 1);
  EXPECT_INTS(m, "ti", 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6);
  /* NonZero([[1, 0], [0, 3]]): (0,0) and (1,1) -> rows [0 1], [0 1]. */
  EXPECT_SHAPE(m, "nz", I64, "2,2");
  EXPECT_INTS(m, "nz", 0, 1, 0, 1);
  EXPECT_INTS(m, "ex", 1, 2, 3, 1, 2, 3);
  /* Compress(a, [1, 0, 1]) without axis: elements 0 and 2. */
  EXPECT_SHAPE(m, "co", I64, "2");
  EXPECT_INTS(m, "co", 1, 3);
  /* GatherElements axis 1, indices [[2, 0], [1, 1]]: m[0][2], m[0][0],
   * m[1][1], m[1][1]. */
  EXPECT_INTS(m, "ge", 3, 1, 5, 5);
  /* ConstantOfShape([2, 2]) with value int64 7. */
  EXPECT_SHAPE(m, "cos", I64, "2,2");
  EXPECT_INTS(m, "cos", 7, 7, 7, 7);
  /* Flatten axis 0: [1, 6]. */
  EXPECT_SHAPE(m, "fl", I64, "1,6");
  /* ScatterND rows [1] and [4] of a = 20, 50; with add: 2+20, 5+50. */
  EXPECT_INTS(m, "snd", 1, 20, 3, 4, 50, 6);
  EXPECT_INTS(m, "sna", 1, 22, 3, 4, 55, 6);
  /* ScatterElements axis 1, indices [[1, 0]], updates [[10, 20]]:
   * m[0][1] = 10, m[0][0] = 20. */
  EXPECT_INTS(m, "sel", 20, 10, 3, 4, 5, 6);
  /* min of m[0][1] = 2 with 0, of m[0][0] = 1 with 20: 1 0 3 / 4 5 6. */
  EXPECT_INTS(m, "semin", 1, 0, 3, 4, 5, 6);
  /* ScatterND max into a = 1..6 at [1] (2 vs 0) and [4] (5 vs 50). */
  EXPECT_INTS(m, "snmax", 1, 2, 3, 4, 50, 6);
  nns_model_free(m);
}

/* ==== Errors ==== */

static void test_errors(void) {
  /* [2, 3] has 6 elements, [4, 2] 8. */
  EXPECT_FAIL("shape", "err_reshape", NNS_E_SHAPE);
  EXPECT_FAIL("shape", "err_reshape2", NNS_E_SHAPE);  /* two -1 */
  EXPECT_FAIL("shape", "err_concat", NNS_E_SHAPE);    /* dim 1: 3 vs 4 */
  EXPECT_FAIL("shape", "err_split", NNS_E_SHAPE);     /* 5 into 2 equal parts */
  EXPECT_FAIL("shape", "err_squeeze", NNS_E_SHAPE);   /* dim 1 is 3 */
  EXPECT_FAIL("shape", "err_transpose", NNS_E_ATTR);  /* perm [0, 0] */
  EXPECT_FAIL("shape", "err_slice", NNS_E_SHAPE);     /* step 0 */
  EXPECT_FAIL("shape", "err_gather", NNS_E_SHAPE);    /* index 3 of a dim of 2 */
  EXPECT_FAIL("shape", "err_axis", NNS_E_ATTR);       /* axis 2 of rank 2 */
}

int main(void) {
  RUN(test_sym_reshape);
  RUN(test_sym_slice);
  RUN(test_sym_misc);
  RUN(test_fold);
  RUN(test_errors);
  return check_finish();
}
