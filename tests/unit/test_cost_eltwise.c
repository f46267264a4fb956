/*
 * test_cost_eltwise.c - cost and receptive-field rules of the element-wise,
 * activation, reduce, shape, indexing and generator families: FLOPs, MACs
 * and DMAs of one node at a time, called through the operator table as the
 * analysis calls them, a symbolic batch counted at 1 and flagged, unknown
 * ranks left uncounted, counts that saturate, and a check that every entry
 * of these families has a cost rule.
 *
 * The models are written by unit/models/make_cost_elt.py. Every expected
 * count is worked out by hand in the comment beside it from the definitions
 * of METRICS.md and docs/metrics.md; none is copied from nnscan's output.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ir/ir.h"
#include "nnscan.h"
#include "ops/op.h"
#include "testmodel.h"

/* ==== Helpers ==== */

/* Cost of node `name` of m; *st gets the rule's status (NNS_E_NOTFOUND
 * without such a node, TM_NO_RULE without a cost rule). */
static nns__cost cost_of(nns_model *m, const char *name, nns_status *st) {
  nns__cost c;
  *st = tm_node_cost(m, tm_find_node(m, name), &c);
  return c;
}

/* Runs node `name`'s receptive-field rule (or the default, a copy, when it
 * has none) on a 2-axis field of 3x3, stride 1, and returns `whole` (a
 * field that is not whole keeps its size). */
static int rf_whole(nns_model *m, const char *name) {
  nns__node *n = tm_find_node(m, name);
  if (!n || !n->op) {
    check_fail(__FILE__, __LINE__, "no node %s", name);
    return -1;
  }
  nns_rf in = {.size = sizeof in, .axes = 2, .field = {3, 3}, .stride = {1, 1}}, out = in;
  if (n->op->rf)
    CHECK_EQ(tm_node_rf(m, n, &in, &out), NNS_OK);
  if (!out.whole)
    CHECK_EQ(out.field[0], 3); /* the field itself is kept */
  return out.whole;
}

/* ==== Costs ==== */

/* x is [2,3,4,5]: 120 elements. */
static void test_eltwise_costs(void) {
  nns_model *m = tm_load("cost_elt", "ops", TM_INFER);
  if (!m)
    return;
  /* Add([2,3,4,5], [5]): 1 per element of Y; DMAs 120 + 5 + 120. */
  EXPECT_COST(m, "add_bcast", 120, 0, 245);
  /* Relu 1, Sigmoid 4 per element; DMAs 120 + 120. */
  EXPECT_COST(m, "relu", 120, 0, 240);
  EXPECT_COST(m, "sigmoid", 480, 0, 240);
  /* Tanh 6 per element; DMAs 2*120 + 120 (METRICS.md reads X twice). */
  EXPECT_COST(m, "tanh", 720, 0, 360);
  /* Elu 6 (torchscan), Erf 6 (METRICS.md). */
  EXPECT_COST(m, "elu", 720, 0, 240);
  EXPECT_COST(m, "erf", 720, 0, 240);
  /* Clip 2 per element; the scalar bounds are not counted: 120 + 120. */
  EXPECT_COST(m, "clip", 240, 0, 240);
  /* Sum of 3: 2 adds per element = 240; DMAs 3*120 + 120. */
  EXPECT_COST(m, "sum3", 240, 0, 480);
  /* Mean of 2: 1 add + 1 div per element = 240; DMAs 2*120 + 120. */
  EXPECT_COST(m, "mean2", 240, 0, 360);
  /* Det of 3 matrices 3x3: 3 divisions + 2*(2^2 + 1^2) = 10 multiply-
   * subtracts + 2 diagonal products = 15 each, 45; DMAs 27 + 3. */
  EXPECT_COST(m, "det", 45, 0, 30);
  nns_model_free(m);
}

static void test_activation_costs(void) {
  nns_model *m = tm_load("cost_elt", "ops", TM_INFER);
  if (!m)
    return;
  /* Softmax: 5 numel(X) = 600; DMAs 120 + 120. */
  EXPECT_COST(m, "softmax", 600, 0, 240);
  /* Dropout at inference is a view. */
  EXPECT_COST(m, "dropout_eval", 0, 0, 0);
  /* Training mode (training_mode = true, ratio 0.5): one sample per element
   * = 120; DMAs X 120 + Y 120 + mask 120 (ratio, mode are arguments). */
  EXPECT_COST(m, "dropout_train", 120, 0, 360);
  nns_model_free(m);
}

static void test_reduce_costs(void) {
  nns_model *m = tm_load("cost_elt", "ops", TM_INFER);
  if (!m)
    return;
  /* ReduceMean over H, W -> [2,3,1,1]: numel(X) = 120; DMAs 120 + 6. */
  EXPECT_COST(m, "reduce_mean", 120, 0, 126);
  /* Over C -> [2,1,4,5]: 120; DMAs 120 + 40. */
  EXPECT_COST(m, "reduce_mean_c", 120, 0, 160);
  /* ReduceL2 over W, keepdims 0 -> [2,3,4] = 24: square and add 2*120,
   * sqrt 24 = 264; DMAs 120 + 24. */
  EXPECT_COST(m, "reduce_l2", 264, 0, 144);
  /* ArgMax over C: 120 comparisons; DMAs 120 + 40. */
  EXPECT_COST(m, "argmax_c", 120, 0, 160);
  /* TopK k=2 of n=5 along W, 2*3*4 = 24 slices: 5 + 4 = 9 comparisons
   * each = 216; DMAs X 120 + values 48 + indices 48. */
  EXPECT_COST(m, "topk", 216, 0, 216);
  nns_model_free(m);
}

static void test_move_costs(void) {
  nns_model *m = tm_load("cost_elt", "ops", TM_INFER);
  if (!m)
    return;
  /* Transpose: 0 FLOPs; DMAs 120 + 120. */
  EXPECT_COST(m, "transpose", 0, 0, 240);
  /* Concat [2,3,4,5] + [2,1,4,5] -> [2,4,4,5] = 160: 120 + 40 + 160. */
  EXPECT_COST(m, "concat", 0, 0, 320);
  /* Embedding: ids [2,7] in a [10,8] table -> [2,7,8] = 112. Reads the
   * 14 ids and one 8-entry row per id, 112 entries (a row looked up twice
   * is read twice; the table's size does not enter), writes 112:
   * 14 + 112 + 112. */
  EXPECT_COST(m, "embedding", 0, 0, 238);
  /* Slice C 1:3 -> [2,2,4,5] = 80 read, 80 written. */
  EXPECT_COST(m, "slice", 0, 0, 160);
  /* Reshape, Flatten: views. */
  EXPECT_COST(m, "reshape", 0, 0, 0);
  EXPECT_COST(m, "flatten", 0, 0, 0);
  /* Split C into 1 + 2: reads 120, writes 40 + 80 (split is an argument). */
  EXPECT_COST(m, "split", 0, 0, 240);
  /* Expand [5] to [3,5]: reads 5, writes 15 (the shape is an argument). */
  EXPECT_COST(m, "expand", 0, 0, 20);
  /* ScatterElements: data [4,5] copied (20 read, 20 written), indices
   * [2,5] read (10), updates [2,5] read and written (2*10): 70. */
  EXPECT_COST(m, "scatter", 0, 0, 70);
  /* Range(0, 10, 1): one add per element, 10 written. */
  EXPECT_COST(m, "range", 10, 0, 10);
  /* ConstantOfShape([2,3]): 6 written. */
  EXPECT_COST(m, "constant_of_shape", 0, 0, 6);
  nns_model_free(m);
}

/* A symbolic batch is counted at 1 and flagged; an unknown rank is not
 * counted; a count past INT64_MAX saturates and is flagged. */
static void test_symbolic_and_hostile(void) {
  nns_model *m = tm_load("cost_elt", "sym", TM_INFER);
  if (!m)
    return;
  nns_status st;
  /* Add([batch,3,4], [4]) at batch = 1: Y 12; DMAs 12 + 4 + 12. */
  nns__cost c = cost_of(m, "add_sym", &st);
  CHECK_EQ(st, NNS_OK);
  CHECK_EQ(c.flops, 12);
  CHECK_EQ(c.macs, 0);
  CHECK_EQ(c.dmas, 28);
  CHECK(c.symbolic);
  CHECK(!c.overflow);
  cost_of(m, "relu_unknown", &st);
  CHECK_EQ(st, NNS__UNCOUNTED);
  /* Dynamic axes without keepdims: the output rank is unknown. */
  cost_of(m, "reduce_dyn", &st);
  CHECK_EQ(st, NNS__UNCOUNTED);
  /* [2^40, 2^40] = 2^80 elements. */
  c = cost_of(m, "relu_huge", &st);
  CHECK_EQ(st, NNS_OK);
  CHECK_EQ(c.flops, INT64_MAX);
  CHECK_EQ(c.dmas, INT64_MAX);
  CHECK(c.overflow);
  nns_model_free(m);
}

/* The same counts through the public analysis: totals per op type. */
static void expect_op_type(int line, const nns_analysis *a, const char *type,
                           int64_t flops, int64_t dmas, unsigned flags) {
  for (size_t i = 0; i < nns_analysis_op_type_count(a); i++) {
    nns_op_type_info ot = {.size = sizeof ot, .op_type = ""};
    nns_counts c = {.size = sizeof c};
    nns_analysis_op_type(a, i, &ot);
    nns_analysis_op_type_counts(a, i, &c);
    int counted = ot.counted;
    if (strcmp(ot.op_type, type) != 0)
      continue;
    if (!counted || c.flops != flops || c.macs != 0 || c.dmas != dmas ||
        (c.flags & flags) != flags)
      check_fail(__FILE__, line,
                 "%s: counted %d flops %lld macs %lld dmas %lld flags %u", type,
                 counted, (long long)c.flops, (long long)c.macs,
                 (long long)c.dmas, c.flags);
    return;
  }
  check_fail(__FILE__, line, "no op type %s", type);
}

static void test_public_api(void) {
  nns_model *m = tm_load("cost_elt", "sym", TM_INFER);
  nns_analysis *a = NULL;
  nns_error err = {0};
  if (!m)
    return;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  /* Add([batch,3,4], [4]) at batch = 1: 12 FLOPs; 12 + 4 + 12 DMAs. */
  expect_op_type(__LINE__, a, "Add", 12, 28, NNS_COUNT_SYMBOLIC);
  nns_analysis_free(a);
  a = NULL;
  nns_model_free(m);
  if (!(m = tm_load("cost_elt", "ops", TM_INFER)))
    return;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  /* The two ReduceMean nodes: 120 + 120 FLOPs; (120 + 6) + (120 + 40). */
  expect_op_type(__LINE__, a, "ReduceMean", 240, 286, 0);
  expect_op_type(__LINE__, a, "Gather", 0, 238, 0);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* ==== Receptive field ==== */

static void test_rf(void) {
  nns_model *m = tm_load("cost_elt", "ops", TM_INFER);
  if (!m)
    return;
  /* ReduceMean over axes 2 and 3 (the spatial ones): a global pool. */
  CHECK_EQ(rf_whole(m, "reduce_mean"), 1);
  /* Reducing channels keeps the spatial structure; reducing W (a spatial
   * axis) ends it. */
  CHECK_EQ(rf_whole(m, "reduce_mean_c"), 0);
  CHECK_EQ(rf_whole(m, "reduce_l2"), 1);
  CHECK_EQ(rf_whole(m, "argmax_c"), 0);
  /* Flatten sees the whole input (METRICS.md). */
  CHECK_EQ(rf_whole(m, "flatten"), 1);
  /* Element-wise and data movement keep the field. */
  CHECK_EQ(rf_whole(m, "relu"), 0);
  CHECK_EQ(rf_whole(m, "transpose"), 0);
  /* Softmax along the last dim (a spatial one here) keeps the field and
   * adds global context. */
  nns_rf in = {.size = sizeof in, .axes = 2, .field = {3, 3},
               .stride = {1, 1}},
         out;
  CHECK_EQ(tm_node_rf(m, tm_find_node(m, "softmax"), &in, &out), NNS_OK);
  CHECK(!out.whole && out.global_context);
  CHECK_EQ(out.field[0], 3);
  nns_model_free(m);
}

/* ==== Completeness ==== */

/* Every op of eltwise.c, activation.c, reduce.c, shape.c, shape_index.c
 * and generate.c. */
static const char *const family_ops[] = {
    /* eltwise.c */
    "Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "Equal", "Less",
    "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not",
    "Max", "Min", "Sum", "Mean", "Neg", "Abs", "Reciprocal", "Floor", "Ceil",
    "Sqrt", "Exp", "Log", "Round", "Sin", "Cos", "Tan", "Asin", "Acos",
    "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Sign",
    "IsNaN", "IsInf", "Where", "Cast", "CastLike", "Clip", "Det",
    /* activation.c */
    "Relu", "LeakyRelu", "Elu", "Selu", "Sigmoid", "HardSigmoid", "Tanh",
    "Celu", "ThresholdedRelu", "HardSwish", "Softplus", "Softsign", "Shrink",
    "PRelu", "Softmax", "LogSoftmax", "Hardmax", "Dropout",
    /* reduce.c */
    "ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin",
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
    "ReduceSumSquare", "ArgMax", "ArgMin", "TopK", "CumSum",
    /* shape.c */
    "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat",
    "Split", "Shape", "Size", "Identity", "Expand", "Tile", "Pad",
    /* shape_index.c */
    "Slice", "Gather", "GatherElements", "GatherND", "Scatter",
    "ScatterElements", "ScatterND", "Compress", "OneHot", "Trilu",
    "ReverseSequence", "NonZero",
    /* generate.c */
    "Constant", "ConstantOfShape", "Range", "EyeLike", "RandomNormal",
    "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli",
    "Multinomial"};

static void test_every_entry_has_cost(void) {
  size_t n_ops = sizeof family_ops / sizeof family_ops[0];
  for (size_t k = 0; k < n_ops; k++) {
    int entries = 0;
    for (size_t i = 0; i < nns__op_table_size(); i++) {
      const nns__op *op = nns__op_table_at(i);
      if (op->domain[0] || strcmp(op->name, family_ops[k]) != 0)
        continue;
      entries++;
      if (op->shape && !op->cost)
        check_fail(__FILE__, __LINE__, "%s (opset %d-%d) has no cost rule",
                   op->name, op->since, op->until);
    }
    if (!entries) /* the list above is stale */
      check_fail(__FILE__, __LINE__, "no table entry for %s", family_ops[k]);
  }
}

int main(void) {
  RUN(test_eltwise_costs);
  RUN(test_activation_costs);
  RUN(test_reduce_costs);
  RUN(test_move_costs);
  RUN(test_symbolic_and_hostile);
  RUN(test_public_api);
  RUN(test_rf);
  RUN(test_every_entry_has_cost);
  return check_finish();
}
