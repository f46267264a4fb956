/*
 * test_knowledge.c - what the caller knows, the analysis uses: parameter
 * kinds (nns_model_set_param_kind, metadata "nnscan.param_kinds"), module
 * classes and call counts (nns_model_set_module), and the guess without
 * them: an initializer is trainable only when a gradient can reach it.
 *
 * The GPT-style block below is what nanoGPT's CausalSelfAttention exports
 * (torch.onnx, attention path only): the causal mask `attn.bias`, a
 * registered buffer [1,1,8,8] of ones below the diagonal, is sliced to the
 * sequence, compared with 0 and used as Where's condition. PyTorch
 * reports 64 parameters (c_attn's weight, 8x8) and one buffer of 64
 * elements; nnscan used to count the mask as trainable.
 */
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

static void dims_of(int64_t *d, int64_t a, int64_t b, int64_t c, int64_t e) {
  d[0] = a, d[1] = b, d[2] = c, d[3] = e;
}

/* x [1,4,8] -> q = x @ w; att = q @ q^T [1,4,4] masked with
 * Where(Equal(Slice(bias)[..., :4, :4], 0), -inf, att); Softmax; @ q. */
static nns_model *gpt_block(const char *meta_kinds) {
  nns_builder *b = NULL;
  nns_error err;
  if (nns_builder_new(&b, &err) != NNS_OK)
    return NULL;
  nns_builder_set_producer(b, "pytorch", "2.1", &err);
  nns_builder_add_opset(b, "", 17, &err);
  if (meta_kinds)
    nns_builder_add_metadata(b, "nnscan.param_kinds", meta_kinds, &err);
  int64_t d[4];
  dims_of(d, 1, 4, 8, 0);
  nns_builder_add_input(b, "x", NNS_DT_FLOAT, 3, d, NULL, &err);
  dims_of(d, 8, 8, 0, 0);
  nns_builder_add_initializer(b, "attn.c_attn.weight", NNS_DT_FLOAT, 2, d,
                              NULL, 0, &err);
  dims_of(d, 1, 1, 8, 8);
  nns_builder_add_initializer(b, "attn.bias", NNS_DT_FLOAT, 4, d, NULL, 0,
                              &err);
  int64_t one = 2, starts[] = {0, 0}, ends[] = {4, 4}, axes[] = {2, 3};
  float zero = 0.0f, ninf = -1e30f;
  nns_builder_add_initializer(b, "starts", NNS_DT_INT64, 1, &one, starts,
                              sizeof starts, &err);
  nns_builder_add_initializer(b, "ends", NNS_DT_INT64, 1, &one, ends,
                              sizeof ends, &err);
  nns_builder_add_initializer(b, "axes", NNS_DT_INT64, 1, &one, axes,
                              sizeof axes, &err);
  nns_builder_add_initializer(b, "zero", NNS_DT_FLOAT, 0, NULL, &zero,
                              sizeof zero, &err);
  nns_builder_add_initializer(b, "ninf", NNS_DT_FLOAT, 0, NULL, &ninf,
                              sizeof ninf, &err);
#define NODE(op, name, path, ins, outs)                                        \
  nns_builder_add_node(b, op, "", name, path, ins,                             \
                       sizeof ins / sizeof *ins, outs,                         \
                       sizeof outs / sizeof *outs, &err)
  const char *i1[] = {"x", "attn.c_attn.weight"}, *o1[] = {"q"};
  NODE("MatMul", "/attn/c_attn/MatMul", NULL, i1, o1);
  const char *i2[] = {"q"}, *o2[] = {"qt"};
  NODE("Transpose", "/attn/Transpose", NULL, i2, o2);
  int64_t perm[] = {0, 2, 1};
  nns_builder_attr_ints(b, "perm", perm, 3, &err);
  const char *i3[] = {"q", "qt"}, *o3[] = {"att"};
  NODE("MatMul", "/attn/MatMul", NULL, i3, o3);
  const char *i4[] = {"attn.bias", "starts", "ends", "axes"}, *o4[] = {"m"};
  NODE("Slice", "/attn/Slice", NULL, i4, o4);
  const char *i5[] = {"m", "zero"}, *o5[] = {"cond"};
  NODE("Equal", "/attn/Equal", NULL, i5, o5);
  const char *i6[] = {"cond", "ninf", "att"}, *o6[] = {"masked"};
  NODE("Where", "/attn/Where", NULL, i6, o6);
  const char *i7[] = {"masked"}, *o7[] = {"p"};
  NODE("Softmax", "/attn/Softmax", NULL, i7, o7);
  const char *i8[] = {"p", "q"}, *o8[] = {"y"};
  NODE("MatMul", "/attn/MatMul_1", NULL, i8, o8);
#undef NODE
  nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err);
  nns_model *m = NULL;
  if (nns_builder_finish(b, &m, &err) != NNS_OK)
    check_fail(__FILE__, __LINE__, "finish: %s", err.message);
  nns_builder_free(b);
  return m;
}

static nns_param_info param(const nns_analysis *a, const char *name) {
  nns_param_info p = {.size = sizeof p, .name = ""};
  for (size_t i = 0; i < nns_analysis_param_count(a); i++) {
    nns_analysis_param(a, i, &p);
    if (strcmp(p.name, name) == 0)
      return p;
  }
  check_fail(__FILE__, __LINE__, "no parameter '%s'", name);
  return p;
}

static void test_causal_mask_is_a_buffer(void) {
  nns_model *m = gpt_block(NULL);
  nns_analysis *a = NULL;
  nns_error err;
  if (!m || nns_model_analyze(m, NULL, &a, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "analysis failed");
    nns_analysis_free(a);
    nns_model_free(m);
    return;
  }
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.params, 64);  /* c_attn.weight */
  CHECK_EQ(t.all.buffers, 64); /* the mask */
  CHECK_EQ(t.all.frozen, 0);
  CHECK_EQ(param(a, "attn.bias").kind, NNS_PARAM_BUFFER);
  CHECK(!param(a, "attn.bias").given);
  CHECK_EQ(param(a, "attn.c_attn.weight").kind, NNS_PARAM_TRAINABLE);
  CHECK_EQ(param(a, "starts").kind, NNS_PARAM_CONSTANT);
  /* The training estimate has gradients for the 64 parameters only. */
  CHECK_EQ(t.train_grad_bytes, 64 * 4);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_caller_kinds(void) {
  nns_model *m = gpt_block(NULL);
  nns_analysis *a = NULL;
  nns_error err;
  if (!m)
    return;
  CHECK_EQ(nns_model_set_param_kind(m, "attn.c_attn.weight",
                                    NNS_PARAM_FROZEN, &err), NNS_OK);
  CHECK_EQ(nns_model_set_param_kind(m, "attn.bias", NNS_PARAM_TRAINABLE,
                                    &err), NNS_OK);
  CHECK_EQ(nns_model_set_param_kind(m, "nope", NNS_PARAM_BUFFER, &err),
           NNS_E_NOTFOUND);
  CHECK_EQ(nns_model_set_param_kind(m, "x", (nns_param_kind)9, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.params, 64); /* now the mask */
  CHECK_EQ(t.all.frozen, 64); /* the weight: not trainable, still counted */
  CHECK_EQ(t.all.buffers, 0);
  CHECK_EQ(t.all.param_bytes, 128 * 4);
  nns_param_info w = param(a, "attn.c_attn.weight");
  CHECK_EQ(w.kind, NNS_PARAM_FROZEN);
  CHECK(w.given);
  CHECK_EQ(t.train_grad_bytes, 64 * 4);
  /* The JSON names the kind. */
  CHECK(tm_layer_at(a, 0).counts.frozen == 64);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_metadata_kinds(void) {
  nns_model *m = gpt_block("{\"attn.bias\": \"constant\", "
                           "\"attn.c_attn.weight\": \"buffer\"}");
  nns_analysis *a = NULL;
  nns_error err;
  if (!m)
    return;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.params, 0);
  CHECK_EQ(t.all.buffers, 64);
  CHECK_EQ(t.constants, 64 + 2 + 2 + 2 + 1 + 1);
  /* The caller beats the metadata. */
  CHECK_EQ(nns_model_set_param_kind(m, "attn.c_attn.weight",
                                    NNS_PARAM_TRAINABLE, &err), NNS_OK);
  nns_analysis *after = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &after, &err), NNS_OK);
  CHECK_EQ(tm_totals_of(after).all.params, 64);
  /* The analysis made before keeps what it saw. */
  CHECK_EQ(tm_totals_of(a).all.params, 0);
  nns_analysis_free(after);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_modules(void) {
  nns_model *m = gpt_block(NULL);
  nns_analysis *a = NULL;
  nns_error err;
  if (!m)
    return;
  CHECK_EQ(nns_model_set_module(m, "attn", "CausalSelfAttention", 1, &err),
           NNS_OK);
  CHECK_EQ(nns_model_set_module(m, "attn.c_attn", "Linear", 3, &err),
           NNS_OK);
  CHECK_EQ(nns_model_set_module(m, "attn.c_attn", "Linear", 2, &err),
           NNS_OK); /* the last word counts */
  CHECK_EQ(nns_model_set_module(m, "", "GPT", 1, &err), NNS_OK);
  CHECK_EQ(nns_model_set_module(m, "unused.path", "X", 1, &err), NNS_OK);
  CHECK_EQ(nns_model_set_module(NULL, "a", "B", 1, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module(m, NULL, "B", 1, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
    tm_layer l = tm_layer_at(a, i);
    if (!strcmp(l.path, "attn")) {
      CHECK_STR(l.type, "CausalSelfAttention");
      CHECK_EQ(l.call_count, 1);
    } else if (!strcmp(l.path, "attn.c_attn")) {
      CHECK_STR(l.type, "Linear");
      CHECK_EQ(l.call_count, 2);
    } else if (!strcmp(l.path, "")) {
      CHECK_STR(l.type, "GPT");
    }
  }
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_causal_mask_is_a_buffer);
  RUN(test_caller_kinds);
  RUN(test_metadata_kinds);
  RUN(test_modules);
  return check_finish();
}
