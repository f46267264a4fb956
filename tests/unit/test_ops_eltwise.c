/*
 * test_ops_eltwise.c - shape rules and folds of the eltwise, activation and
 * reduce families: numpy and legacy (opset < 7) broadcasting, bool outputs,
 * reductions with keepdims and dynamic axes, TopK's k, and the constant
 * kernels that resolve shape arithmetic, symbols included.
 *
 * The models are written by unit/models/make_eltwise.py. Folded values are
 * made visible through ConstantOfShape (whose output dims are its input's
 * values) or Reshape. Every expected value is worked out by hand in the
 * comment beside it, from the ONNX operator documents; none is copied from
 * nnscan's own output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

/* ==== Shape rules ==== */

static void test_shapes(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("eltwise", "shapes", &m, &err), NNS_OK);
  if (!m)
    return;
  /* x [batch,3,1] + y [4]: y aligns right -> [batch,3,4]. */
  EXPECT_SHAPE(m, "add", NNS_DT_FLOAT, "batch,3,4");
  EXPECT_SHAPE(m, "eq", NNS_DT_BOOL, "batch,3,4");
  /* cond [1,1,4], x [batch,3,1], y [4]: three-way -> [batch,3,4], x's
   * dtype. */
  EXPECT_SHAPE(m, "where", NNS_DT_FLOAT, "batch,3,4");
  /* x [batch,3,1], y [4], z [2,1,1,1] -> [2,batch,3,4]. */
  EXPECT_SHAPE(m, "max", NNS_DT_FLOAT, "2,batch,3,4");
  EXPECT_SHAPE(m, "cast", NNS_DT_INT64, "batch,3,1");
  /* Det drops the two matrix dims of [batch,5,5]. */
  EXPECT_SHAPE(m, "det", NNS_DT_FLOAT, "batch");
  EXPECT_SHAPE(m, "prelu", NNS_DT_FLOAT, "batch,1,8,8");
  EXPECT_SHAPE(m, "softmax", NNS_DT_FLOAT, "batch,1,8,8");
  /* Dropout-13: output like the input, mask bool. */
  EXPECT_SHAPE(m, "drop", NNS_DT_FLOAT, "batch,3,1");
  EXPECT_SHAPE(m, "mask", NNS_DT_BOOL, "batch,3,1");
  /* img [batch,1,8,8], axes input [1,3], keepdims 0 -> [batch,8]. */
  EXPECT_SHAPE(m, "rsum", NNS_DT_FLOAT, "batch,8");
  /* Axes from a graph input, keepdims 1: rank 4; only the dim that is
   * already 1 is certain. */
  EXPECT_SHAPE(m, "rsum_dyn", NNS_DT_FLOAT, "_,1,_,_");
  /* axes [-1,1] = {3,1}, keepdims 1 -> [batch,1,8,1]. */
  EXPECT_SHAPE(m, "rmean", NNS_DT_FLOAT, "batch,1,8,1");
  /* No axes, keepdims 0: a scalar. */
  EXPECT_SHAPE(m, "rmax_all", NNS_DT_FLOAT, "");
  /* ArgMax axis 2, keepdims 0 -> [batch,1,8], int64. */
  EXPECT_SHAPE(m, "argmax", NNS_DT_INT64, "batch,1,8");
  /* TopK k = 3 on the last axis. */
  EXPECT_SHAPE(m, "topv", NNS_DT_FLOAT, "batch,1,8,3");
  EXPECT_SHAPE(m, "topi", NNS_DT_INT64, "batch,1,8,3");
  /* k from a graph input: axis 1 unknown. */
  EXPECT_SHAPE(m, "topv_dyn", NNS_DT_FLOAT, "batch,_,8,8");
  EXPECT_SHAPE(m, "topi_dyn", NNS_DT_INT64, "batch,_,8,8");
  nns_model_free(m);
}

/* Opset 6: B is broadcast onto A, from `axis` when given. */
static void test_legacy(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("eltwise", "legacy", &m, &err), NNS_OK);
  if (!m)
    return;
  /* a [2,3,4,5] + b [3,4] at axis 1 -> a's shape. */
  EXPECT_SHAPE(m, "add_axis", NNS_DT_FLOAT, "2,3,4,5");
  /* a [2,3,4,5] * c [5] (trailing) -> a's shape. */
  EXPECT_SHAPE(m, "mul_tail", NNS_DT_FLOAT, "2,3,4,5");
  /* ca [[1,0],[1,1],[2,0]] + cb [1,2,3] along axis 0
   * = [[2,1],[3,3],[5,3]]; ReduceMax over axis 1 = [2,3,5];
   * Reshape x [30] to it -> [2,3,5]. */
  EXPECT_SHAPE(m, "cmax", NNS_DT_INT64, "3");
  EXPECT_SHAPE(m, "r", NNS_DT_FLOAT, "2,3,5");
  nns_model_free(m);
}

/* ==== Folds ==== */

static void test_fold(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("eltwise", "fold", &m, &err), NNS_OK);
  if (!m)
    return;
  /* trunc(sqrt(16.0)) = 4; 7 / 2 = 3; -(-7 / 2) = -(-3) = 3 (integer Div
   * truncates toward zero). */
  EXPECT_SHAPE(m, "o1", NNS_DT_FLOAT, "4,3,3");
  /* Mod(-7, 5) = 3 (takes the divisor's sign); |fmod(-7, 5)| = |-2| = 2;
   * 2^3 = 8; Max(3, 5, 4) = 5. */
  EXPECT_SHAPE(m, "o2", NNS_DT_FLOAT, "3,2,8,5");
  /* Round([2.5, 3.5]) = [2, 4] (half to even); Clip(30, 0, 7) = 7;
   * ReduceProd([[1,2,3],[1,1,2]], axis 1) = [6, 2]. */
  EXPECT_SHAPE(m, "o3", NNS_DT_FLOAT, "2,4,7,6,2");
  /* Where([T,F], [1,2], [9,9]) = [1,9]; Less(2, 3) = 1; Relu(-4) + 5 = 5;
   * ReduceSum([3,4]) = 7. */
  EXPECT_SHAPE(m, "o4", NNS_DT_FLOAT, "1,9,1,5,7");
  nns_model_free(m);
}

/* Shape(x) = [batch, seq, 8] through integer folds. */
static void test_symbols(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(tm_run("eltwise", "sym", &m, &err), NNS_OK);
  if (!m)
    return;
  /* [batch,seq,8] * [2,1,1] = [2*batch, seq, 8]. */
  EXPECT_SHAPE(m, "o_mul", NNS_DT_FLOAT, "2*batch,seq,8");
  /* Where([T,F,T], s, [7,7,7]) = [batch, 7, 8]. */
  EXPECT_SHAPE(m, "o_where", NNS_DT_FLOAT, "batch,7,8");
  /* int64 -> int32 -> int64 keeps the symbols. */
  EXPECT_SHAPE(m, "o_cast", NNS_DT_FLOAT, "batch,seq,8");
  /* Max(batch, 1) is unknown (batch may be 0); Max(8, 1) = 8. */
  EXPECT_SHAPE(m, "o_max", NNS_DT_FLOAT, "_,_,8");
  /* batch * seq * 8. */
  EXPECT_SHAPE(m, "o_prod", NNS_DT_FLOAT, "8*batch*seq");
  /* s - s = 0 for a symbol too. */
  EXPECT_SHAPE(m, "o_sub", NNS_DT_FLOAT, "0,0,0");
  /* Equal(s, s) is all true, so Where picks s. */
  EXPECT_SHAPE(m, "o_eqw", NNS_DT_FLOAT, "batch,seq,8");
  /* Equal(batch, 0) is unknown: nothing folds, the values are unknown. */
  EXPECT_SHAPE(m, "o_new", NNS_DT_FLOAT, "_,_,_");
  nns_model_free(m);
}

/* ==== Errors ==== */

static void test_errors(void) {
  /* [2,3] + [4]: 3 vs 4. */
  EXPECT_FAIL("eltwise", "err_bcast", NNS_E_SHAPE);
  /* Opset 6, broadcast=1: B [3,4] onto A [2,3] trailing: 3 vs 2. */
  EXPECT_FAIL("eltwise", "err_legacy", NNS_E_SHAPE);
  /* Det of [2,3,4]: 3x4 is not square. */
  EXPECT_FAIL("eltwise", "err_det", NNS_E_SHAPE);
  /* TopK k = 5 on an axis of 4. */
  EXPECT_FAIL("eltwise", "err_topk", NNS_E_SHAPE);
  /* Softmax axis 2 on rank 2. */
  EXPECT_FAIL("eltwise", "err_softmax", NNS_E_ATTR);
  /* Cast to=99. */
  EXPECT_FAIL("eltwise", "err_cast", NNS_E_ATTR);
  /* ReduceMean axes [2] on rank 2. */
  EXPECT_FAIL("eltwise", "err_reduce", NNS_E_ATTR);
}

int main(void) {
  RUN(test_shapes);
  RUN(test_legacy);
  RUN(test_fold);
  RUN(test_symbols);
  RUN(test_errors);
  return check_finish();
}
