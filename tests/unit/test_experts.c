/* Mixture-of-experts counts (nns_model_set_experts, the packed "experts"
 * record) and the key/value-cache totals of a decoder step, on graphs built
 * here whose numbers are worked out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

static nns_error err;

/* x (1, T, 8) -> shared (8x8 MatMul) -> MatMul with the experts' (4, 8, 8)
 * weight "moe.experts.w" in layer "moe.experts", plus a router weight
 * "moe.gate.w" (8x4) in "moe.gate". Parameters: shared 64, experts 256,
 * router 32. */
static nns_model *moe_model(int64_t tokens) {
  nns_builder *b;
  nns_model *m = NULL;
  int64_t x[] = {1, tokens, 8}, sq[] = {8, 8}, ex[] = {4, 8, 8}, gt[] = {8, 4};
  const char *in1[] = {"x", "shared.w"}, *out1[] = {"h"};
  const char *in2[] = {"h", "moe.experts.w"}, *out2[] = {"y"};
  const char *in3[] = {"h", "moe.gate.w"}, *out3[] = {"logits"};
  if (nns_builder_new(&b, &err))
    return NULL;
  nns_builder_add_opset(b, "", 17, &err);
  nns_builder_add_input(b, "x", NNS_DT_FLOAT, 3, x, NULL, &err);
  nns_builder_add_initializer(b, "shared.w", NNS_DT_FLOAT, 2, sq, NULL, 0,
                              &err);
  nns_builder_add_initializer(b, "moe.experts.w", NNS_DT_FLOAT, 3, ex, NULL,
                              0, &err);
  nns_builder_add_initializer(b, "moe.gate.w", NNS_DT_FLOAT, 2, gt, NULL, 0,
                              &err);
  nns_builder_add_node(b, "MatMul", "", "mm0", "shared", in1, 2, out1, 1,
                       &err);
  nns_builder_add_node(b, "MatMul", "", "mm1", "moe.experts", in2, 2, out2,
                       1, &err);
  nns_builder_add_node(b, "MatMul", "", "mm2", "moe.gate", in3, 2, out3, 1,
                       &err);
  nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err);
  nns_builder_add_output(b, "logits", 0, -1, NULL, NULL, &err);
  if (nns_builder_finish(b, &m, &err))
    m = NULL;
  nns_builder_free(b);
  return m;
}

static size_t layer_of(const nns_analysis *a, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
    nns_layer_info li = {.size = sizeof li};
    if (nns_analysis_layer(a, i, &li) == NNS_OK && !strcmp(li.path, path))
      return i;
  }
  return (size_t)-1;
}

/* The model's totals; *keep gets the analysis (else it is freed). */
static nns_counts analysed(nns_model *m, nns_analysis **keep) {
  nns_counts c = {.size = sizeof c};
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_analysis_total_counts(a, &c), NNS_OK);
  if (keep)
    *keep = a;
  else
    nns_analysis_free(a);
  return c;
}

static nns_counts totals(nns_model *m) { return analysed(m, NULL); }

static void test_without_experts_active_is_all(void) {
  nns_model *m = moe_model(1);
  CHECK(m != NULL);
  nns_counts c = totals(m);
  CHECK_EQ(c.params, 64 + 256 + 32);
  CHECK_EQ(c.params_active, c.params);
  CHECK_EQ(c.weight_bytes_read, c.param_bytes);
  nns_model_free(m);
}

static void test_k_of_e(void) {
  nns_model *m = moe_model(1);
  CHECK(m != NULL);
  CHECK_EQ(nns_model_set_experts(m, "moe.experts", 1, 4, 1, &err), NNS_OK);
  nns_analysis *a = NULL;
  nns_counts c = analysed(m, &a);
  /* 256 expert parameters at 1 of 4; one token reaches 1 expert */
  CHECK_EQ(c.params_active, 64 + 64 + 32);
  CHECK_EQ(c.weight_bytes_read, (64 + 64 + 32) * 4);
  nns_counts l = {.size = sizeof l};
  CHECK_EQ(nns_analysis_layer_counts(a, layer_of(a, "moe"), &l), NNS_OK);
  CHECK_EQ(l.params_active, 64 + 32);
  CHECK_EQ(nns_analysis_layer_counts(a, layer_of(a, "moe.experts"), &l),
           NNS_OK);
  CHECK_EQ(l.params, 256);
  CHECK_EQ(l.params_active, 64);
  CHECK_EQ(nns_analysis_layer_counts(a, layer_of(a, "shared"), &l), NNS_OK);
  CHECK_EQ(l.params_active, 64);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_tokens_reach_experts(void) {
  /* 2 of 4 per token: 1 token reads 2 experts, 2 tokens all 4 */
  nns_model *m = moe_model(1);
  CHECK_EQ(nns_model_set_experts(m, "moe.experts", 2, 4, 1, &err), NNS_OK);
  nns_counts c = totals(m);
  CHECK_EQ(c.params_active, 64 + 128 + 32);
  CHECK_EQ(c.weight_bytes_read, (64 + 128 + 32) * 4);
  CHECK_EQ(nns_model_set_experts(m, "moe.experts", 2, 4, 2, &err), NNS_OK);
  c = totals(m);
  CHECK_EQ(c.params_active, 64 + 128 + 32);
  CHECK_EQ(c.weight_bytes_read, c.param_bytes);
  /* unknown tokens: every expert may be read */
  CHECK_EQ(nns_model_set_experts(m, "moe.experts", 2, 4, 0, &err), NNS_OK);
  c = totals(m);
  CHECK_EQ(c.weight_bytes_read, c.param_bytes);
  nns_model_free(m);
}

static void test_bad_experts(void) {
  nns_model *m = moe_model(1);
  CHECK_EQ(nns_model_set_experts(NULL, "a", 1, 2, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_experts(m, NULL, 1, 2, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_experts(m, "a", 0, 2, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_experts(m, "a", 3, 2, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_experts(m, "a", 1, 2, -1, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "experts of 'a'") != NULL);
  /* Issue 47: each number named with its range. */
  CHECK_EQ(nns_model_set_experts(m, "e", 1, NNS_EXPERTS_MAX + 1, 0, &err),
           NNS_E_ARG);
  CHECK_STR(err.message,
            "experts of 'e': total 16777217 is not from 1 to 16777216");
  CHECK_EQ(nns_model_set_experts(m, "e", 1, 0, 0, &err), NNS_E_ARG);
  CHECK_STR(err.message, "experts of 'e': total 0 is not from 1 to 16777216");
  CHECK_EQ(nns_model_set_experts(m, "e", 5, 4, 0, &err), NNS_E_ARG);
  CHECK_STR(err.message,
            "experts of 'e': active 5 is not from 1 to the total, 4");
  CHECK_EQ(nns_model_set_experts(m, "e", 1, 4, -1, &err), NNS_E_ARG);
  CHECK_STR(err.message, "experts of 'e': tokens -1 is not from 0 (not "
                         "known) to 9223372036854775807");
  /* a path no layer or parameter has changes nothing */
  CHECK_EQ(nns_model_set_experts(m, "nowhere", 1, 4, 1, &err), NNS_OK);
  nns_counts c = totals(m);
  CHECK_EQ(c.params_active, c.params);
  nns_model_free(m);
}

/* k * tokens past int64 (a signed overflow, undefined behaviour, before):
 * more than E, so every expert may be read. */
static void test_reach_overflow(void) {
  nns_model *m = moe_model(1);
  CHECK_EQ(nns_model_set_experts(m, "moe.experts", NNS_EXPERTS_MAX,
                                 NNS_EXPERTS_MAX, INT64_MAX, &err), NNS_OK);
  nns_counts c = totals(m);
  CHECK_EQ(c.weight_bytes_read, c.param_bytes);
  CHECK_EQ(nns_model_set_experts(m, "moe.experts", 3, NNS_EXPERTS_MAX,
                                 INT64_MAX / 2, &err), NNS_OK);
  c = totals(m);
  CHECK_EQ(c.weight_bytes_read, c.param_bytes);
  nns_model_free(m);
}

/* The packed record 23: str path, i64 k, i64 E, i64 tokens. */
static void put(unsigned char **p, const void *v, size_t n) {
  memcpy(*p, v, n);
  *p += n;
}

static void test_packed_record(void) {
  nns_builder *b;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  unsigned char buf[128], *p = buf;
  uint32_t version = NNS_PACKED_VERSION, n = 11;
  int64_t k = 1, e = 4, tokens = 1;
  put(&p, "NNSP", 4);
  put(&p, &version, 4);
  put(&p, "\x17", 1);
  put(&p, &n, 4);
  put(&p, "moe.experts", 12);
  put(&p, &k, 8);
  put(&p, &e, 8);
  put(&p, &tokens, 8);
  CHECK_EQ(nns_builder_add_packed(b, buf, (size_t)(p - buf), &err), NNS_OK);
  nns_builder_free(b);
  /* k above E is refused, naming the record */
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  k = 5;
  memcpy(buf + 4 + 4 + 1 + 4 + 12, &k, 8);
  CHECK_EQ(nns_builder_add_packed(b, buf, (size_t)(p - buf), &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "experts") != NULL);
  nns_builder_free(b);
}

/* A decoder step: past (1, 2, P, 4) per K and V, present = Concat(past,
 * new (1, 2, 1, 4)) along axis 2, P a symbol fixed at infer time. */
static void test_kv_cache_totals(void) {
  nns_builder *b;
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  nns_builder_add_opset(b, "", 17, &err);
  int64_t past[] = {1, 2, -1, 4}, fresh[] = {1, 2, 1, 4};
  const char *syms[] = {NULL, NULL, "past_sequence_length", NULL};
  const char *parts[] = {"key", "value"};
  for (int i = 0; i < 2; i++) {
    char pn[64], nn[64], on[64];
    snprintf(pn, sizeof pn, "past_key_values.0.%s", parts[i]);
    snprintf(nn, sizeof nn, "new_%s", parts[i]);
    snprintf(on, sizeof on, "present.0.%s", parts[i]);
    nns_builder_add_input(b, pn, NNS_DT_FLOAT, 4, past, syms, &err);
    nns_builder_add_input(b, nn, NNS_DT_FLOAT, 4, fresh, NULL, &err);
    const char *ins[] = {pn, nn}, *outs[] = {on};
    nns_builder_add_node(b, "Concat", "", on, "", ins, 2, outs, 1, &err);
    nns_builder_attr_int(b, "axis", 2, &err);
    nns_builder_add_output(b, on, 0, -1, NULL, NULL, &err);
  }
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  nns_input_shape fix = {.size = sizeof fix, .name = "past_sequence_length",
                         .rank = 1};
  int64_t v = 100;
  fix.dims = &v;
  nns_infer_options io = {.size = sizeof io, .inputs = &fix,
                          .input_count = 1};
  CHECK_EQ(nns_model_infer(m, &io, &err), NNS_OK);
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  /* 2 (K, V) x 2 heads x 4 dims x 4 bytes = 64 bytes a token */
  CHECK_EQ(t.kv_cache_bytes_read, 64 * 100);
  CHECK_EQ(t.kv_cache_bytes_written, 64);
  CHECK_EQ(t.kv_cache_bytes, 64 * 101);
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_without_experts_active_is_all);
  RUN(test_k_of_e);
  RUN(test_tokens_reach_experts);
  RUN(test_bad_experts);
  RUN(test_reach_overflow);
  RUN(test_packed_record);
  RUN(test_kv_cache_totals);
  return check_finish();
}
