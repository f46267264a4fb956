/*
 * test_deploy.c - the API side of issue 8 (models as people deploy them):
 * nns_infer_options.values folding an If, the branch each If's costs
 * follow, --input by a dim's name, and node metadata_props read into the
 * module tree, malformed ones included. The end-to-end checks against
 * PyTorch's figures are tests/deploy/test_deploy.py; these run under the
 * sanitizers and valgrind.
 */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "pbenc.h"
#include "testmodel.h"

#define IF_MODEL "fixtures/deploy/if_lstm.onnx"

static nns_model *load(const char *path) {
  nns_model *m = NULL;
  nns_error err;
  nns_status st = nns_model_load_file(path, NULL, &m, &err);
  CHECK_EQ(st, NNS_OK);
  return st == NNS_OK ? m : NULL;
}

static int64_t macs_of(const char *path) {
  nns_model *m = load(path);
  if (!m)
    return -1;
  nns_analysis *a = tm_analyze(m, NULL);
  tm_totals t = tm_totals_of(a);
  nns_analysis_free(a);
  nns_model_free(m);
  return t.all.macs;
}

/* Infers `m` with one value for input `name`; returns the status. */
static nns_status with_value(nns_model *m, const char *name,
                             const int64_t *data, size_t count) {
  nns_input_value v = {.size = sizeof v, .name = name, .data = data, .count = count};
  nns_infer_options o = {.size = sizeof o, .values = &v, .value_count = 1};
  return nns_model_infer(m, &o, NULL);
}

static void test_value_folds_if(void) {
  int64_t then_macs = macs_of("fixtures/deploy/if_then.onnx");
  int64_t else_macs = macs_of("fixtures/deploy/if_else.onnx");
  CHECK(then_macs > 0 && else_macs > then_macs);
  nns_model *m = load(IF_MODEL);
  if (!m)
    return;
  const int64_t rates[2] = {16000, 8000};
  for (int k = 0; k < 2; k++) {
    CHECK_EQ(with_value(m, "sr", &rates[k], 1), NNS_OK);
    nns_analysis *a = tm_analyze(m, NULL);
    tm_totals t = tm_totals_of(a);
    CHECK_EQ(t.all.macs, k == 0 ? then_macs : else_macs);
    CHECK_EQ(nns_analysis_branch_count(a), 1);
    const char *node = "";
    int then_branch = -1, known = -1;
    nns_analysis_branch(a, 0, &node, &then_branch, &known);
    CHECK_STR(node, "branch");
    CHECK_EQ(then_branch, k == 0);
    CHECK_EQ(known, 1);
    nns_analysis_free(a);
  }
  /* No value: the larger branch, and the report says it was not known. */
  CHECK_EQ(nns_model_infer(m, NULL, NULL), NNS_OK);
  nns_analysis *a = tm_analyze(m, NULL);
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.macs, else_macs);
  const char *node = "";
  int then_branch = -1, known = -1;
  nns_analysis_branch(a, 0, &node, &then_branch, &known);
  CHECK_EQ(then_branch, 0);
  CHECK_EQ(known, 0);
  /* Out of range: an error that leaves the outs alone, no crash. */
  node = "kept";
  CHECK_EQ(nns_analysis_branch(a, 5, &node, &then_branch, &known), NNS_E_ARG);
  CHECK_STR(node, "kept");
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_value_errors(void) {
  nns_model *m = load(IF_MODEL);
  if (!m)
    return;
  const int64_t two[2] = {1, 2};
  nns_error err;
  nns_input_value v = {.size = sizeof v, .name = "nope", .data = two, .count = 1};
  nns_infer_options o = {.size = sizeof o, .values = &v, .value_count = 1};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_NOTFOUND);
  CHECK(strstr(err.message, "'nope'") != NULL);
  CHECK_EQ(with_value(m, "sr", two, 2), NNS_E_SHAPE); /* sr is a scalar */
  CHECK_EQ(with_value(m, "sr", NULL, 1), NNS_E_ARG);
  /* an empty value is a value (Reduce axes [0]), but does not fit a
   * scalar */
  CHECK_EQ(with_value(m, "sr", two, 0), NNS_E_SHAPE);
  CHECK_EQ(with_value(m, "sr", two, (size_t)1 << 20), NNS_E_LIMIT);
  nns_infer_options none = {.size = sizeof none, .value_count = 1};
  CHECK_EQ(nns_model_infer(m, &none, NULL), NNS_E_ARG);
  /* A failed run cannot be analysed; a good one after it can. */
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, NULL), NNS_E_STATE);
  CHECK(a == NULL);
  CHECK_EQ(with_value(m, "sr", two, 1), NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, NULL), NNS_OK);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_input_by_dim_name(void) {
  nns_model *m = load("fixtures/deploy/nameless_dims.onnx");
  if (!m)
    return;
  size_t in = tm_input(m, 0);
  CHECK_STR(tm_dim(m, in, 0).symbol, "audio_dim0");
  CHECK_STR(tm_dim(m, in, 2).symbol, "audio_dim2");
  const int64_t n = 16000, two[2] = {1, 2};
  nns_input_shape s = {.size = sizeof s, .name = "audio_dim2", .dims = &n, .rank = 1};
  nns_infer_options o = {.size = sizeof o, .inputs = &s, .input_count = 1};
  CHECK_EQ(nns_model_infer(m, &o, NULL), NNS_OK);
  CHECK_EQ(tm_dim(m, in, 2).value, 16000);
  CHECK_EQ(tm_dim(m, in, 0).value, -1);
  s.dims = two;
  s.rank = 2;
  CHECK_EQ(nns_model_infer(m, &o, NULL), NNS_E_ARG);
  s.name = "no_such_dim";
  s.rank = 1;
  CHECK_EQ(nns_model_infer(m, &o, NULL), NNS_E_NOTFOUND);
  nns_model_free(m);
}

/* NodeProto.metadata_props entry (field 9), appended to a node. */
static void meta(pb *attrs, const char *key, const char *value) {
  pb e = {0};
  pb_str(&e, 1, key);
  pb_str(&e, 2, value);
  pb_msg(attrs, 9, &e);
}

/* x [1, 4] through Relu nodes named node_Relu_<i>, each with the given
 * name_scopes (NULL: none) and class_hierarchy (NULL: none). */
static nns_analysis *relu_chain(const char *const *scopes,
                             const char *const *classes, int n, pb *model) {
  pb g = {0};
  const int64_t dims[2] = {1, 4};
  char in[16], out[16], name[32];
  for (int i = 0; i < n; i++) {
    snprintf(in, sizeof in, i ? "r%d" : "x", i - 1);
    snprintf(out, sizeof out, "r%d", i);
    snprintf(name, sizeof name, "node_Relu_%d", i);
    pb attrs = {0};
    if (scopes[i])
      meta(&attrs, "pkg.torch.onnx.name_scopes", scopes[i]);
    if (classes[i])
      meta(&attrs, "pkg.torch.onnx.class_hierarchy", classes[i]);
    const char *ins[1] = {in}, *outs[1] = {out};
    pb_node(&g, "Relu", name, ins, 1, outs, 1, &attrs);
  }
  pb_value_info(&g, 11, "x", 1, 2, dims, NULL);
  snprintf(out, sizeof out, "r%d", n - 1);
  pb_value_info(&g, 12, out, 1, 2, dims, NULL);
  pb_model(model, &g, 17);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  /* The model points into model->d: the caller frees it after the model. */
  CHECK_EQ(nns_model_load_memory(model->d, model->n, NULL, &m, &err), NNS_OK);
  if (m && nns_model_analyze(m, NULL, &a, &err) != NNS_OK) {
    CHECK(0);
    nns_analysis_free(a);
    nns_model_free(m);
    return NULL;
  }
  return a;
}

static size_t find_layer(const nns_analysis *m, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(m); i++) {
    tm_layer l = tm_layer_at(m, i);
    if (!strcmp(l.path, path))
      return i;
  }
  return (size_t)-1;
}

static void test_node_metadata(void) {
  static const char *const scopes[] = {
      "['', 'blk', 'blk.act', 'relu']",     /* absolute paths */
      "['', 'blk', 'act2', 'relu']",        /* relative: blk.act2 */
      "['', 'it\\'s', \"q\", 'relu']",      /* escapes, both quotes */
      "['', 'broken', 'relu'",              /* unterminated: name used */
      "not a list",                         /* not a list: name used */
      NULL,                                 /* no metadata: name used */
  };
  static const char *const classes[] = {
      "['pkg.Net', 'pkg.Block', 'torch.nn.modules.activation.ReLU', "
      "'aten.relu.default']",
      NULL, NULL, NULL, NULL, NULL};
  pb bytes = {0};
  nns_analysis *m = relu_chain(scopes, classes, 6, &bytes);
  if (!m) {
    pb_free(&bytes);
    return;
  }
  size_t act = find_layer(m, "blk.act"), blk = find_layer(m, "blk");
  CHECK(act != (size_t)-1 && blk != (size_t)-1);
  tm_layer l = tm_layer_at(m, act);
  CHECK_STR(l.type, "ReLU");
  CHECK_STR(tm_layer_class(m, act), "torch.nn.modules.activation.ReLU");
  l = tm_layer_at(m, blk);
  CHECK_STR(l.type, "Block");
  CHECK_STR(tm_layer_class(m, 0), "pkg.Net");
  CHECK(find_layer(m, "blk.act2") != (size_t)-1);
  CHECK(find_layer(m, "it's.q") != (size_t)-1);
  CHECK(tm_layer_class(m, find_layer(m, "blk.act2")) == NULL);
  /* Malformed or missing metadata: the node's own (flat) name is a row. */
  CHECK(find_layer(m, "node_Relu_3") != (size_t)-1);
  CHECK(find_layer(m, "node_Relu_4") != (size_t)-1);
  CHECK(find_layer(m, "node_Relu_5") != (size_t)-1);
  CHECK(tm_layer_class(m, 999) == NULL);
  bool warned = false;
  for (size_t i = 0; i < nns_analysis_warning_count(m); i++)
    warned = warned || strstr(tm_analysis_warning(m, i), "not a list") != NULL;
  CHECK(warned);
  tm_release(m);
  pb_free(&bytes);
}

int main(void) {
  RUN(test_value_folds_if);
  RUN(test_value_errors);
  RUN(test_input_by_dim_name);
  RUN(test_node_metadata);
  return check_finish();
}
