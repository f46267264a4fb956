/*
 * test_ops_ml5.c - ai.onnx.ml opsets 4 and 5 (issue 44): TreeEnsemble's
 * shape and cost, LabelEncoder with tensor attributes
 * (unit/models/ml5_ops.onnx, written by unit/models/make_ml5.py). The
 * expected values are worked out by hand beside each check.
 */
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

int main(void) {
  test_ml5();
  return check_finish();
}
