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

/* ==== Helpers ==== */

/* Loads unit/models/eltwise_<name>.onnx and infers it; returns the
 * inference status (NNS_E_IO when it does not load). */
static nns_status run(const char *name, nns_model **out, nns_error *err) {
  char path[512];
  snprintf(path, sizeof path, "%s/unit/models/eltwise_%s.onnx", check_dir(),
           name);
  *out = NULL;
  if (nns_model_load_file(path, NULL, out, err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "load %s: %s", path, err->message);
    return NNS_E_IO;
  }
  return nns_model_infer(*out, NULL, err);
}

/*
 * Checks that value `name` has dtype and shape `spec`: comma-separated dims,
 * each a number, a symbol's name, or "?" for an unnamed unknown dim; ""
 * is a scalar and NULL an unknown rank.
 */
static void expect_at(int line, nns_model *m, const char *name, int dtype,
                      const char *spec) {
  size_t i = nns_model_find_value(m, name);
  if (i == (size_t)-1) {
    check_fail(__FILE__, line, "no value '%s'", name);
    return;
  }
  nns_value_info v;
  nns_model_value(m, i, &v);
  if (v.dtype != dtype)
    check_fail(__FILE__, line, "%s: dtype %d, want %d", name, v.dtype, dtype);
  if (!spec) {
    if (v.rank != -1)
      check_fail(__FILE__, line, "%s: rank %d, want unknown", name, v.rank);
    return;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  int k = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), k++) {
    if (k >= v.rank) {
      check_fail(__FILE__, line, "%s: rank %d, want more (%s)", name, v.rank,
                 spec);
      return;
    }
    nns_dim d = nns_model_value_dim(m, i, k);
    char *end;
    long long want = strtoll(tok, &end, 10);
    if (*end == 0 && end != tok) {
      if (d.value != want)
        check_fail(__FILE__, line, "%s: dim %d is %lld (%s), want %lld", name,
                   k, (long long)d.value, d.symbol ? d.symbol : "?", want);
    } else if (d.value != -1) {
      check_fail(__FILE__, line, "%s: dim %d is %lld, want %s", name, k,
                 (long long)d.value, tok);
    } else if (strcmp(tok, "?") == 0 ? d.symbol != NULL
                                     : !d.symbol || strcmp(d.symbol, tok)) {
      check_fail(__FILE__, line, "%s: dim %d is '%s', want '%s'", name, k,
                 d.symbol ? d.symbol : "?", tok);
    }
  }
  if (k != v.rank)
    check_fail(__FILE__, line, "%s: rank %d, want %d (%s)", name, v.rank, k,
               spec);
}
#define EXPECT(m, name, dtype, spec) expect_at(__LINE__, m, name, dtype, spec)

/* A model that must fail inference with `code`. */
static void expect_error(int line, const char *name, nns_status code) {
  nns_model *m;
  nns_error err;
  nns_status st = run(name, &m, &err);
  if (st != code)
    check_fail(__FILE__, line, "%s: status %s, want %s (%s)", name,
               nns_status_name(st), nns_status_name(code),
               st != NNS_OK ? err.message : "");
  nns_model_free(m);
}
#define EXPECT_ERROR(name, code) expect_error(__LINE__, name, code)

/* ==== Shape rules ==== */

static void test_shapes(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(run("shapes", &m, &err), NNS_OK);
  if (!m)
    return;
  /* x [batch,3,1] + y [4]: y aligns right -> [batch,3,4]. */
  EXPECT(m, "add", NNS_DT_FLOAT, "batch,3,4");
  EXPECT(m, "eq", NNS_DT_BOOL, "batch,3,4");
  /* cond [1,1,4], x [batch,3,1], y [4]: three-way -> [batch,3,4], x's
   * dtype. */
  EXPECT(m, "where", NNS_DT_FLOAT, "batch,3,4");
  /* x [batch,3,1], y [4], z [2,1,1,1] -> [2,batch,3,4]. */
  EXPECT(m, "max", NNS_DT_FLOAT, "2,batch,3,4");
  EXPECT(m, "cast", NNS_DT_INT64, "batch,3,1");
  /* Det drops the two matrix dims of [batch,5,5]. */
  EXPECT(m, "det", NNS_DT_FLOAT, "batch");
  EXPECT(m, "prelu", NNS_DT_FLOAT, "batch,1,8,8");
  EXPECT(m, "softmax", NNS_DT_FLOAT, "batch,1,8,8");
  /* Dropout-13: output like the input, mask bool. */
  EXPECT(m, "drop", NNS_DT_FLOAT, "batch,3,1");
  EXPECT(m, "mask", NNS_DT_BOOL, "batch,3,1");
  /* img [batch,1,8,8], axes input [1,3], keepdims 0 -> [batch,8]. */
  EXPECT(m, "rsum", NNS_DT_FLOAT, "batch,8");
  /* Axes from a graph input, keepdims 1: rank 4; only the dim that is
   * already 1 is certain. */
  EXPECT(m, "rsum_dyn", NNS_DT_FLOAT, "?,1,?,?");
  /* axes [-1,1] = {3,1}, keepdims 1 -> [batch,1,8,1]. */
  EXPECT(m, "rmean", NNS_DT_FLOAT, "batch,1,8,1");
  /* No axes, keepdims 0: a scalar. */
  EXPECT(m, "rmax_all", NNS_DT_FLOAT, "");
  /* ArgMax axis 2, keepdims 0 -> [batch,1,8], int64. */
  EXPECT(m, "argmax", NNS_DT_INT64, "batch,1,8");
  /* TopK k = 3 on the last axis. */
  EXPECT(m, "topv", NNS_DT_FLOAT, "batch,1,8,3");
  EXPECT(m, "topi", NNS_DT_INT64, "batch,1,8,3");
  /* k from a graph input: axis 1 unknown. */
  EXPECT(m, "topv_dyn", NNS_DT_FLOAT, "batch,?,8,8");
  EXPECT(m, "topi_dyn", NNS_DT_INT64, "batch,?,8,8");
  nns_model_free(m);
}

/* Opset 6: B is broadcast onto A, from `axis` when given. */
static void test_legacy(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(run("legacy", &m, &err), NNS_OK);
  if (!m)
    return;
  /* a [2,3,4,5] + b [3,4] at axis 1 -> a's shape. */
  EXPECT(m, "add_axis", NNS_DT_FLOAT, "2,3,4,5");
  /* a [2,3,4,5] * c [5] (trailing) -> a's shape. */
  EXPECT(m, "mul_tail", NNS_DT_FLOAT, "2,3,4,5");
  /* ca [[1,0],[1,1],[2,0]] + cb [1,2,3] along axis 0
   * = [[2,1],[3,3],[5,3]]; ReduceMax over axis 1 = [2,3,5];
   * Reshape x [30] to it -> [2,3,5]. */
  EXPECT(m, "cmax", NNS_DT_INT64, "3");
  EXPECT(m, "r", NNS_DT_FLOAT, "2,3,5");
  nns_model_free(m);
}

/* ==== Folds ==== */

static void test_fold(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(run("fold", &m, &err), NNS_OK);
  if (!m)
    return;
  /* trunc(sqrt(16.0)) = 4; 7 / 2 = 3; -(-7 / 2) = -(-3) = 3 (integer Div
   * truncates toward zero). */
  EXPECT(m, "o1", NNS_DT_FLOAT, "4,3,3");
  /* Mod(-7, 5) = 3 (takes the divisor's sign); |fmod(-7, 5)| = |-2| = 2;
   * 2^3 = 8; Max(3, 5, 4) = 5. */
  EXPECT(m, "o2", NNS_DT_FLOAT, "3,2,8,5");
  /* Round([2.5, 3.5]) = [2, 4] (half to even); Clip(30, 0, 7) = 7;
   * ReduceProd([[1,2,3],[1,1,2]], axis 1) = [6, 2]. */
  EXPECT(m, "o3", NNS_DT_FLOAT, "2,4,7,6,2");
  /* Where([T,F], [1,2], [9,9]) = [1,9]; Less(2, 3) = 1; Relu(-4) + 5 = 5;
   * ReduceSum([3,4]) = 7. */
  EXPECT(m, "o4", NNS_DT_FLOAT, "1,9,1,5,7");
  nns_model_free(m);
}

/* Shape(x) = [batch, seq, 8] through integer folds. */
static void test_symbols(void) {
  nns_model *m;
  nns_error err;
  CHECK_EQ(run("sym", &m, &err), NNS_OK);
  if (!m)
    return;
  /* [batch,seq,8] * [2,1,1] = [2*batch, seq, 8]. */
  EXPECT(m, "o_mul", NNS_DT_FLOAT, "2*batch,seq,8");
  /* Where([T,F,T], s, [7,7,7]) = [batch, 7, 8]. */
  EXPECT(m, "o_where", NNS_DT_FLOAT, "batch,7,8");
  /* int64 -> int32 -> int64 keeps the symbols. */
  EXPECT(m, "o_cast", NNS_DT_FLOAT, "batch,seq,8");
  /* Max(batch, 1) is unknown (batch may be 0); Max(8, 1) = 8. */
  EXPECT(m, "o_max", NNS_DT_FLOAT, "?,?,8");
  /* batch * seq * 8. */
  EXPECT(m, "o_prod", NNS_DT_FLOAT, "8*batch*seq");
  /* s - s = 0 for a symbol too. */
  EXPECT(m, "o_sub", NNS_DT_FLOAT, "0,0,0");
  /* Equal(s, s) is all true, so Where picks s. */
  EXPECT(m, "o_eqw", NNS_DT_FLOAT, "batch,seq,8");
  /* Equal(batch, 0) is unknown: nothing folds, the values are unknown. */
  EXPECT(m, "o_new", NNS_DT_FLOAT, "?,?,?");
  nns_model_free(m);
}

/* ==== Errors ==== */

static void test_errors(void) {
  /* [2,3] + [4]: 3 vs 4. */
  EXPECT_ERROR("err_bcast", NNS_E_SHAPE);
  /* Opset 6, broadcast=1: B [3,4] onto A [2,3] trailing: 3 vs 2. */
  EXPECT_ERROR("err_legacy", NNS_E_SHAPE);
  /* Det of [2,3,4]: 3x4 is not square. */
  EXPECT_ERROR("err_det", NNS_E_SHAPE);
  /* TopK k = 5 on an axis of 4. */
  EXPECT_ERROR("err_topk", NNS_E_SHAPE);
  /* Softmax axis 2 on rank 2. */
  EXPECT_ERROR("err_softmax", NNS_E_ATTR);
  /* Cast to=99. */
  EXPECT_ERROR("err_cast", NNS_E_ATTR);
  /* ReduceMean axes [2] on rank 2. */
  EXPECT_ERROR("err_reduce", NNS_E_ATTR);
}

int main(void) {
  RUN(test_shapes);
  RUN(test_legacy);
  RUN(test_fold);
  RUN(test_symbols);
  RUN(test_errors);
  return check_finish();
}
