/*
 * test_generation.c - nns_generation (issue 42 item 4): the steps of a
 * generation from their analyses, the steps between recorded ones, the
 * sums per generated token and the text table, every expected figure
 * worked out here by hand for a one-layer decoder step built with the
 * builder:
 *
 *   k = x (1, T, 4) @ w (4, 4)                    MACs 16 T
 *   present.0.key = Concat(past (1, P, 4), k)     (1, P + T, 4)
 *   s = k @ Transpose(present)  (1, T, P + T)     MACs 4 T (P + T)
 *
 * a MatMul's FLOPs (2 K - 1) per output element (docs/metrics.md): 28 T
 * and 7 T (P + T). float32: the cache holds 16 bytes a token, w 64
 * bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

static nns_error err;

/* The step's analysis: T new tokens over a past of P (no past input when
 * P is 0: the prefill). */
static nns_analysis *step(int64_t T, int64_t P) {
  nns_builder *b = NULL;
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  nns_builder_add_opset(b, "", 17, &err);
  int64_t xd[] = {1, T, 4}, wd[] = {4, 4}, pd[] = {1, P, 4};
  nns_builder_add_input(b, "x", NNS_DT_FLOAT, 3, xd, NULL, &err);
  nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 2, wd, NULL, 0, &err);
  const char *mm[] = {"x", "w"}, *k[] = {"k"};
  nns_builder_add_node(b, "MatMul", "", "proj", "proj", mm, 2, k, 1, &err);
  const char *present = P ? "present.0.key" : "k";
  if (P) {
    nns_builder_add_input(b, "past_key_values.0.key", NNS_DT_FLOAT, 3, pd,
                          NULL, &err);
    const char *cat[] = {"past_key_values.0.key", "k"}, *out[] = {present};
    nns_builder_add_node(b, "Concat", "", "cat", "", cat, 2, out, 1, &err);
    nns_builder_attr_int(b, "axis", 1, &err);
    nns_builder_add_output(b, present, 0, -1, NULL, NULL, &err);
  } else {
    const char *in[] = {"k"}, *out[] = {"present.0.key"};
    nns_builder_add_node(b, "Identity", "", "id", "", in, 1, out, 1, &err);
    nns_builder_add_output(b, "present.0.key", 0, -1, NULL, NULL, &err);
  }
  int64_t perm[] = {0, 2, 1};
  const char *tin[] = {present}, *tout[] = {"kt"};
  nns_builder_add_node(b, "Transpose", "", "t", "", tin, 1, tout, 1, &err);
  nns_builder_attr_ints(b, "perm", perm, 3, &err);
  const char *sin[] = {"k", "kt"}, *sout[] = {"s"};
  nns_builder_add_node(b, "MatMul", "", "score", "score", sin, 2, sout, 1,
                       &err);
  nns_builder_add_output(b, "s", 0, -1, NULL, NULL, &err);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  return a;
}

static void release(nns_analysis *a) {
  nns_model *m = (nns_model *)nns_analysis_model(a);
  nns_analysis_free(a);
  nns_model_free(m);
}

static int collect(void *user, const char *data, size_t size) {
  char *buf = user;
  size_t have = strlen(buf);
  if (have + size >= 8192)
    return 1;
  memcpy(buf + have, data, size);
  buf[have + size] = 0;
  return 0;
}

/* The MACs and FLOPs by hand. */
static int64_t macs(int64_t T, int64_t P) { return 16 * T + 4 * T * (P + T); }
static int64_t flops(int64_t T, int64_t P) {
  return 28 * T + 7 * T * (P + T);
}

/* A prompt of 3, 5 new tokens: the prefill and decode steps 1 and 4
 * given, 2 and 3 between them. */
static nns_generation *five(void) {
  nns_generation *g = NULL;
  CHECK_EQ(nns_generation_create(5, 1, &g, &err), NNS_OK);
  int64_t given[][3] = {{0, 3, 0}, {1, 1, 3}, {4, 1, 6}};
  for (int i = 0; i < 3; i++) {
    nns_analysis *a = step(given[i][1], given[i][2]);
    CHECK_EQ(nns_generation_set_step(g, given[i][0], a, given[i][1],
                                     given[i][2], &err),
             NNS_OK);
    release(a); /* the generation keeps its own copy */
  }
  return g;
}

static void test_steps_and_sums_by_hand(void) {
  nns_generation *g = five();
  static char json[8192];
  json[0] = 0;
  CHECK_EQ(nns_generation_report(g, NNS_FORMAT_JSON, NNS_NUMBERS_RAW,
                                 collect, json, &err),
           NNS_OK);
  /* steps 2 and 3 (past 4 and 5) are linear between 1 and 4: exact */
  char want[128];
  for (int64_t s = 2; s <= 3; s++) {
    snprintf(want, sizeof want, "\"step\": %lld, \"tokens\": 1, \"past\": "
             "%lld, \"recorded\": false, \"flops\": %lld, \"macs\": %lld",
             (long long)s, (long long)(s + 2), (long long)flops(1, s + 2),
             (long long)macs(1, s + 2));
    CHECK(strstr(json, want) != NULL);
  }
  /* per token: (84 + 32 + 36 + 40 + 44) / 5 MACs; the cache read 16 x
   * (3 + 4 + 5 + 6) bytes, written 16 x (3 + 1 + 1 + 1 + 1), 16 x 7 after
   * the last step; every step reads w's 64 bytes */
  int64_t sum = macs(3, 0) + macs(1, 3) + macs(1, 4) + macs(1, 5) + macs(1, 6);
  CHECK_EQ(sum, 236);
  const char *per = strstr(json, "\"per_token\"");
  CHECK(per != NULL);
  if (!per)
    per = json;
  CHECK(strstr(per, "\"macs\": 47.2,") != NULL);
  CHECK_EQ(flops(3, 0) + flops(1, 3) + flops(1, 4) + flops(1, 5) +
               flops(1, 6),
           413);
  CHECK(strstr(per, "\"flops\": 82.6,") != NULL);
  CHECK(strstr(per, "\"kv_cache_bytes_read\": 57.6,") != NULL); /* 288/5 */
  CHECK(strstr(per, "\"kv_cache_bytes_written\": 22.4,") != NULL); /* 112/5 */
  /* a whole per-token figure keeps its point: a number, not a count */
  CHECK(strstr(per, "\"weight_bytes_read\": 64.0,") != NULL);
  CHECK(strstr(per, "\"kv_cache_bytes\": 112}") != NULL);
  CHECK(strstr(json, "\"generated_tokens\": 5") != NULL);
  CHECK(strstr(json, "\"schema\": \"nnscan.generation\"") != NULL);
  nns_generation_free(g);
}

static void test_text_table(void) {
  nns_generation *g = five();
  static char text[8192];
  text[0] = 0;
  CHECK_EQ(nns_generation_report(g, NNS_FORMAT_TEXT, NNS_NUMBERS_CLEVER,
                                 collect, text, &err),
           NNS_OK);
  CHECK(strncmp(text, "Step", 4) == 0);
  CHECK(strstr(text, "\nprefill ") != NULL);
  CHECK(strstr(text, "\n2* ") != NULL && strstr(text, "\n3* ") != NULL);
  CHECK(strstr(text, "\n1 ") != NULL && strstr(text, "\n4 ") != NULL);
  CHECK(strstr(text, "* between recorded steps") != NULL);
  CHECK(strstr(text, "over the 5 tokens generated (1 rows x 5 new tokens)")
        != NULL);
  /* bytes in IEC units: w's 64 bytes "64 B"; per token MACs 47.2 -> 47 */
  CHECK(strstr(text, "64 B") != NULL);
  const char *last = strstr(text, "\nper token");
  CHECK(last != NULL);
  if (last)
    CHECK(strstr(last, "  47  ") != NULL);
  /* every line of the table as wide as the header's */
  size_t head = strcspn(text, "\n");
  const char *rule = text + head + 1;
  CHECK_EQ(strcspn(rule, "\n"), head);
  nns_generation_free(g);
}

static void test_missing_steps_refused(void) {
  nns_generation *g = NULL;
  static char out[8192];
  out[0] = 0;
  CHECK_EQ(nns_generation_create(3, 2, &g, &err), NNS_OK);
  nns_analysis *a = step(3, 0);
  CHECK_EQ(nns_generation_set_step(g, 0, a, 6, 0, &err), NNS_OK);
  release(a);
  /* decode steps 1 and 2 missing: nothing to draw them from */
  CHECK_EQ(nns_generation_report(g, NNS_FORMAT_TEXT, NNS_NUMBERS_CLEVER,
                                 collect, out, &err),
           NNS_E_STATE);
  CHECK(strstr(err.message, "step 1") != NULL);
  nns_generation_free(g);
}

int main(void) {
  RUN(test_steps_and_sums_by_hand);
  RUN(test_text_table);
  RUN(test_missing_steps_refused);
  return check_finish();
}
