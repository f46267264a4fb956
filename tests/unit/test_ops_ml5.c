/*
 * test_ops_ml5.c - ai.onnx.ml opsets 4 and 5 (issue 44): TreeEnsemble's
 * shape and cost, LabelEncoder with tensor attributes
 * (unit/models/ml5_ops.onnx, written by unit/models/make_ml5.py). The
 * expected values are worked out by hand beside each check.
 */
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

static void test_ml5(void) {
  nns_model *m = tm_load("ml5", "ops", TM_INFER);
  if (!m)
    return;
  /* TreeEnsemble: Y [N, n_targets] = [3, 1] in X's dtype. Longest paths:
   * tree 0 two interior nodes, tree 1 one: 3 compares per row, plus one
   * add per tree (2), no post_transform: 5 per row, 15 FLOPs. DMAs X 6 +
   * the nodes read 3 per row 9 + Y 3 = 18. */
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "3,1");
  EXPECT_COST(m, "tree", 15, 0, 18);
  /* LabelEncoder-4: values_tensor is int16, so the labels are; a lookup
   * moves data: DMAs 4 + 4. */
  EXPECT_SHAPE(m, "labels", NNS_DT_INT16, "4");
  EXPECT_COST(m, "enc", 0, 0, 8);
  nns_model_free(m);
}

/* A [1] float8 zero point on a 1-D x broadcasts (the default axis 1 is
 * not x's); an empty axes value (ReduceSum-18, noop_with_empty_axes 0)
 * reduces every axis: [2, 3] -> [1, 1]. */
static void test_forms(void) {
  nns_model *m = tm_load("ml5", "forms", TM_LOAD_ONLY);
  if (!m)
    return;
  nns_input_value v = {sizeof v, "ax", NULL, 0};
  nns_infer_options io;
  memset(&io, 0, sizeof io);
  io.size = sizeof io;
  io.values = &v;
  io.value_count = 1;
  nns_error err;
  CHECK_EQ(nns_model_infer(m, &io, &err), NNS_OK);
  EXPECT_SHAPE(m, "q8", NNS_DT_FLOAT8E4M3FN, "6");
  EXPECT_SHAPE(m, "rsum", NNS_DT_FLOAT, "1,1");
  nns_model_free(m);
}

int main(void) {
  RUN(test_ml5);
  RUN(test_forms);
  return check_finish();
}
