/*
 * test_ops_control.c - shape rules of the control-flow, sequence, misc,
 * quant, ai.onnx.ml and com.microsoft families.
 *
 * The models are small files written by unit/models/make_control.py. Every
 * expected shape is worked out by hand in the comment beside it, from the
 * ONNX (and ONNX Runtime contrib) operator documents; none is copied from
 * nnscan's own output.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

/* ==== Helpers ==== */

static bool has_const(nns_model *m, const char *name) {
  size_t i = tm_find(m, name);
  nns_value_info v = {.size = sizeof v};
  if (i == (size_t)-1)
    return false;
  nns_model_value(m, i, &v);
  return v.has_constant != 0;
}

/* ==== Control flow ==== */

static void test_loop(void) {
  nns_model *m = tm_load("control", "loop", TM_INFER);
  if (!m)
    return;
  /* x [2,3] + scalar 1 keeps [2,3] on every iteration. */
  EXPECT_TENSOR(m, "xf", NNS_DT_FLOAT, "2,3");
  /* y = Concat(y, y): [1] -> [2] -> [4]...: the length changes, so it is
   * unknown, but the rank stays 1. */
  EXPECT_TENSOR(m, "yf", NNS_DT_FLOAT, "?");
  /* M = 4 and cond absent, the body's cond = Identity(cond): exactly 4
   * iterations, so the scan output is [4] + [2,3]. */
  EXPECT_TENSOR(m, "xs", NNS_DT_FLOAT, "4,2,3");
  nns_model_free(m);

  /* The body's cond is x < 5: the loop may stop before M = 10. */
  m = tm_load("control", "loop_cond", TM_INFER);
  if (!m)
    return;
  EXPECT_TENSOR(m, "xf", NNS_DT_FLOAT, "");
  EXPECT_TENSOR(m, "xs", NNS_DT_FLOAT, "?");
  nns_model_free(m);
}

static void test_if(void) {
  nns_model *m = tm_load("control", "if", TM_INFER);
  if (!m)
    return;
  /* then [2,3], else [2,4]: dim 0 agrees, dim 1 does not. */
  EXPECT_TENSOR(m, "a", NNS_DT_FLOAT, "2,?");
  /* then [4], else [4,1]: ranks differ. */
  EXPECT_TENSOR(m, "b", NNS_DT_FLOAT, NULL);
  nns_model_free(m);

  /* cond is a true initializer: exactly the then branch, contents too. */
  m = tm_load("control", "if_const", TM_INFER);
  if (!m)
    return;
  EXPECT_TENSOR(m, "a", NNS_DT_FLOAT, "2,3");
  EXPECT_TENSOR(m, "b", NNS_DT_FLOAT, "4");
  CHECK(has_const(m, "a"));
  nns_model_free(m);
}

static void test_scan(void) {
  nns_model *m = tm_load("control", "scan9", TM_INFER);
  if (!m)
    return;
  /* x [3,5,2] scanned on axis 1: 5 slices of [3,2]; the state s [3,2] is
   * s + slice, still [3,2]. Scan output [3,2] per step, stacked on axis -1
   * of rank 3 (= axis 2): [3,2,5]. */
  EXPECT_TENSOR(m, "sf", NNS_DT_FLOAT, "3,2");
  EXPECT_TENSOR(m, "ys", NNS_DT_FLOAT, "3,2,5");
  nns_model_free(m);

  m = tm_load("control", "scan8", TM_INFER);
  if (!m)
    return;
  /* Scan-8: batch 2; state [2,4] (body [4]); x [2,7,4] gives 7 slices [4]
   * per batch; outputs [2,4] and [2,7,4]. */
  EXPECT_TENSOR(m, "sf", NNS_DT_FLOAT, "2,4");
  EXPECT_TENSOR(m, "ys", NNS_DT_FLOAT, "2,7,4");
  nns_model_free(m);
}

/* ==== Sequences ==== */

static void test_sequence(void) {
  nns_model *m = tm_load("control", "seq", TM_INFER);
  if (!m)
    return;
  /* s1 = [X [2,3], Y [2,5]]: concat on axis 1 is [2, 3+5]. */
  EXPECT_TENSOR(m, "cat", NNS_DT_FLOAT, "2,8");
  /* s1[-1] is Y. */
  EXPECT_TENSOR(m, "last", NNS_DT_FLOAT, "2,5");
  /* SequenceLength(s1) = 2, folded. */
  EXPECT_TENSOR(m, "len", NNS_DT_INT64, "");
  CHECK(has_const(m, "len"));
  /* Z [6,4] split by 4 on axis 0: pieces [4,4] and [2,4]; s2[1] is the
   * short one, and concatenating them gives back [6,4]. */
  EXPECT_TENSOR(m, "piece", NNS_DT_FLOAT, "2,4");
  EXPECT_TENSOR(m, "back", NNS_DT_FLOAT, "6,4");
  /* Inserting Y into an empty sequence: its only element is Y. */
  EXPECT_TENSOR(m, "only", NNS_DT_FLOAT, "2,5");
  EXPECT_KIND(m, "s4", NNS_DT_FLOAT, NNS_KIND_SEQUENCE, "2,5");
  /* Optional(X) holds X: has element (folded true), and gives X back. */
  EXPECT_KIND(m, "opt", NNS_DT_FLOAT, NNS_KIND_OPTIONAL, "2,3");
  EXPECT_TENSOR(m, "has", NNS_DT_BOOL, "");
  CHECK(has_const(m, "has"));
  EXPECT_TENSOR(m, "got", NNS_DT_FLOAT, "2,3");
  nns_model_free(m);
}

/* ==== Misc ==== */

static void test_misc(void) {
  nns_model *m = tm_load("control", "misc", TM_INFER);
  if (!m)
    return;
  /* HannWindow(8): [8], computed. */
  EXPECT_TENSOR(m, "win", NNS_DT_FLOAT, "8");
  CHECK(has_const(m, "win"));
  /* Unique([2,1,2,1,3]) = {1,2,3}: Y, indices, counts [3]; inverse [5]. */
  EXPECT_TENSOR(m, "uy", NNS_DT_INT64, "3");
  EXPECT_TENSOR(m, "ui", NNS_DT_INT64, "3");
  EXPECT_TENSOR(m, "uinv", NNS_DT_INT64, "5");
  EXPECT_TENSOR(m, "uc", NNS_DT_INT64, "3");
  CHECK(has_const(m, "uy"));
  /* ["Monday","tuesday","monday"] minus stopword "monday" (case-
   * insensitive by default): ["TUESDAY"]. */
  EXPECT_TENSOR(m, "norm", NNS_DT_STRING, "1");
  CHECK(has_const(m, "norm"));
  /* NonMaxSuppression without max_output_boxes_per_class selects none. */
  EXPECT_TENSOR(m, "sel", NNS_DT_INT64, "0,3");
  /* DFT of [3,128,1] on axis 1, one-sided: 128/2+1 = 65 bins, complex. */
  EXPECT_TENSOR(m, "spec", NNS_DT_FLOAT, "3,65,2");
  /* STFT, frame 16, step 8 over 128: (128-16)/8+1 = 15 frames, 16/2+1 = 9
   * bins. */
  EXPECT_TENSOR(m, "stft", NNS_DT_FLOAT, "3,15,9,2");
  /* SoftmaxCrossEntropyLoss none: scores [5,3,7] -> [5,7]; log_prob like
   * the scores. */
  EXPECT_TENSOR(m, "loss", NNS_DT_FLOAT, "5,7");
  EXPECT_TENSOR(m, "logp", NNS_DT_FLOAT, "5,3,7");
  nns_model_free(m);
}

/* ==== Quantization ==== */

static void test_quant(void) {
  nns_model *m = tm_load("control", "quant", TM_INFER);
  if (!m)
    return;
  /* An int8 zero point makes int8 output; dequantized back to float. */
  EXPECT_TENSOR(m, "q", NNS_DT_INT8, "N,3");
  EXPECT_TENSOR(m, "dq", NNS_DT_FLOAT, "N,3");
  /* Per-axis (axis 0) dequantization of a constant [3,2] folds. */
  EXPECT_TENSOR(m, "wf", NNS_DT_FLOAT, "3,2");
  CHECK(has_const(m, "wf"));
  nns_model_free(m);

  /* A per-axis scale of 2 for an axis of 3 is an error. */
  nns_error err;
  nns_status st = tm_run("control", "quant_bad", &m, &err);
  CHECK_EQ(st, NNS_E_SHAPE);
  CHECK(strstr(err.message, "2 elements") != NULL);
  nns_model_free(m);
}

/* ==== ai.onnx.ml ==== */

static void test_ml(void) {
  nns_model *m = tm_load("control", "ml", TM_INFER);
  if (!m)
    return;
  /* LinearClassifier, 3 intercepts: labels [N] int64, scores [N,3]. */
  EXPECT_TENSOR(m, "lab", NNS_DT_INT64, "N");
  EXPECT_TENSOR(m, "prob", NNS_DT_FLOAT, "N,3");
  /* One intercept with two string labels: binary, scores [N,2]. */
  EXPECT_TENSOR(m, "lab2", NNS_DT_STRING, "N");
  EXPECT_TENSOR(m, "prob2", NNS_DT_FLOAT, "N,2");
  /* TreeEnsembleRegressor n_targets 2: [N,2]. */
  EXPECT_TENSOR(m, "reg", NNS_DT_FLOAT, "N,2");
  /* OneHotEncoder of [N,2] with 4 categories: [N,2,4]. */
  EXPECT_TENSOR(m, "oh", NNS_DT_FLOAT, "N,2,4");
  /* ZipMap: a sequence of maps keyed by int64. */
  EXPECT_KIND(m, "zm", NNS_DT_INT64, NNS_KIND_SEQUENCE, NULL);
  /* FeatureVectorizer of two [N,4]: [N, 4+4]. */
  EXPECT_TENSOR(m, "fv", NNS_DT_FLOAT, "N,8");
  nns_model_free(m);
}

/* ==== com.microsoft ==== */

static void test_msft(void) {
  nns_model *m = tm_load("control", "msft", TM_INFER);
  if (!m)
    return;
  /* Attention, x [B,8,16], weights [16,48] (q,k,v 16 each), 4 heads of
   * 16/4 = 4: output [B,8,16]; present [2,B,4,P+8,4]. */
  EXPECT_TENSOR(m, "att", NNS_DT_FLOAT, "B,8,16");
  EXPECT_TENSOR(m, "present", NNS_DT_FLOAT, "2,B,4,P+8,4");
  /* MultiHeadAttention: query [2,8,16], value [2,10,24]: [2,8,24]. */
  EXPECT_TENSOR(m, "mha", NNS_DT_FLOAT, "2,8,24");
  /* FusedMatMul transB: [3,5,7] x [9,7]^T = [3,5,9]. */
  EXPECT_TENSOR(m, "mm", NNS_DT_FLOAT, "3,5,9");
  /* SkipLayerNormalization: output and sum like x; statistics [B,8,1]. */
  EXPECT_TENSOR(m, "sln", NNS_DT_FLOAT, "B,8,16");
  EXPECT_TENSOR(m, "mean", NNS_DT_FLOAT, "B,8,1");
  EXPECT_TENSOR(m, "isd", NNS_DT_FLOAT, "B,8,1");
  EXPECT_TENSOR(m, "sum", NNS_DT_FLOAT, "B,8,16");
  /* FusedConv 3x3, stride 2, pad 1 on 32: (32 + 2 - 3) / 2 + 1 = 16. */
  EXPECT_TENSOR(m, "conv", NNS_DT_FLOAT, "1,8,16,16");
  /* BiasGelu: [B,8,16] + [16]. */
  EXPECT_TENSOR(m, "bg", NNS_DT_FLOAT, "B,8,16");
  nns_model_free(m);
}

int main(void) {
  RUN(test_loop);
  RUN(test_if);
  RUN(test_scan);
  RUN(test_sequence);
  RUN(test_misc);
  RUN(test_quant);
  RUN(test_ml);
  RUN(test_msft);
  return check_finish();
}
