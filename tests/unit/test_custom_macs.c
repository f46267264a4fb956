/*
 * test_custom_macs.c - MACs the caller counted itself
 * (nns_model_set_module_macs): the module's layer shows them, every
 * ancestor and the model total change by the difference, the layers
 * inside keep their own counts, and an outer module's count wins.
 *
 * The model: x [1,8] -> blk.fc1 (MatMul by [8,4]: 1*8*4 = 32 MACs) ->
 * blk.fc2 (by [4,2]: 8 MACs) -> head (by [2,2]: 4 MACs); 44 in all.
 */
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

static nns_model *three_matmuls(void) {
  nns_builder *b = NULL;
  nns_model *m = NULL;
  nns_error err;
  if (nns_builder_new(&b, &err) != NNS_OK)
    return NULL;
  nns_builder_add_opset(b, "", 17, &err);
  int64_t x[2] = {1, 8}, w1[2] = {8, 4}, w2[2] = {4, 2}, w3[2] = {2, 2};
  nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, x, NULL, &err);
  nns_builder_add_initializer(b, "w1", NNS_DT_FLOAT, 2, w1, NULL, 0, &err);
  nns_builder_add_initializer(b, "w2", NNS_DT_FLOAT, 2, w2, NULL, 0, &err);
  nns_builder_add_initializer(b, "w3", NNS_DT_FLOAT, 2, w3, NULL, 0, &err);
  const char *i1[2] = {"x", "w1"}, *o1[1] = {"h1"};
  const char *i2[2] = {"h1", "w2"}, *o2[1] = {"h2"};
  const char *i3[2] = {"h2", "w3"}, *o3[1] = {"y"};
  nns_builder_add_node(b, "MatMul", "", "mm1", "blk.fc1", i1, 2, o1, 1, &err);
  nns_builder_add_node(b, "MatMul", "", "mm2", "blk.fc2", i2, 2, o2, 1, &err);
  nns_builder_add_node(b, "MatMul", "", "mm3", "head", i3, 2, o3, 1, &err);
  nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err);
  if (nns_builder_finish(b, &m, &err) != NNS_OK ||
      nns_model_infer(m, NULL, &err) != NNS_OK) {
    nns_model_free(m);
    m = NULL;
  }
  nns_builder_free(b);
  return m;
}

static int64_t layer_macs(const nns_analysis *a, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
    tm_layer l = tm_layer_at(a, i);
    if (!strcmp(l.path, path))
      return l.counts.macs;
  }
  return -1;
}

static void test_counted_macs(void) {
  nns_model *m = three_matmuls();
  nns_analysis *a = NULL;
  nns_error err;
  if (!m) {
    check_fail(__FILE__, __LINE__, "model failed");
    return;
  }
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(tm_totals_of(a).all.macs, 32 + 8 + 4);
  CHECK_EQ(layer_macs(a, "blk"), 40);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_given_macs_replace_the_subtree(void) {
  nns_model *m = three_matmuls();
  nns_analysis *a = NULL, *b = NULL;
  nns_error err;
  if (!m)
    return;
  CHECK_EQ(nns_model_set_module_macs(m, "blk", 100, &err), NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(layer_macs(a, "blk"), 100);
  CHECK_EQ(layer_macs(a, "blk.fc1"), 32); /* inside: its own count */
  CHECK_EQ(layer_macs(a, ""), 100 + 4);
  CHECK_EQ(tm_totals_of(a).all.macs, 100 + 4);
  /* An inner module's count too: the outer one still wins. */
  CHECK_EQ(nns_model_set_module_macs(m, "blk.fc2", 1000, &err), NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &b, &err), NNS_OK);
  CHECK_EQ(layer_macs(b, "blk.fc2"), 1000);
  CHECK_EQ(layer_macs(b, "blk"), 100);
  CHECK_EQ(tm_totals_of(b).all.macs, 100 + 4);
  /* The analysis made before keeps what it saw. */
  CHECK_EQ(layer_macs(a, "blk.fc2"), 8);
  nns_analysis_free(a);
  nns_analysis_free(b);
  nns_model_free(m);
}

static void test_given_macs_and_classes_together(void) {
  nns_model *m = three_matmuls();
  nns_analysis *a = NULL;
  nns_error err;
  if (!m)
    return;
  /* MACs first, then the class: neither forgets the other. */
  CHECK_EQ(nns_model_set_module_macs(m, "head", 0, &err), NNS_OK);
  CHECK_EQ(nns_model_set_module(m, "head", "Linear", 1, &err), NNS_OK);
  CHECK_EQ(nns_model_set_module_macs(m, "no.such.layer", 5, &err), NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(layer_macs(a, "head"), 0);
  CHECK_EQ(tm_totals_of(a).all.macs, 32 + 8);
  for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
    tm_layer l = tm_layer_at(a, i);
    if (!strcmp(l.path, "head"))
      CHECK_STR(l.type, "Linear");
  }
  CHECK_EQ(nns_model_set_module_macs(m, "head", -1, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_macs(NULL, "head", 1, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_macs(m, NULL, 1, &err), NNS_E_ARG);
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_counted_macs);
  RUN(test_given_macs_replace_the_subtree);
  RUN(test_given_macs_and_classes_together);
  return check_finish();
}
