/*
 * test_analysis_handle.c - an analysis is an object of its own (issue 19):
 * two analyses of one model at batch 1 and batch 64 live side by side and
 * each reads (and reports) the inference it counted, whatever the model
 * was inferred with since; freeing one leaves the other whole.
 *
 * analyze_residual (by hand, as in test_analyze.c): x [N,2,16,16]; conv1
 * 3x3 s2 p1 2->4, conv2 3x3 p1 4->4, skip 1x1 s2 2->4, Add, head 3x3 p1
 * 4->4; every output [N,4,8,8] (64 positions per channel). MACs per
 * sample, one per weight per output position:
 *   conv1 4*8*8 * 2*9 = 4608   conv2 4*8*8 * 4*9 = 9216
 *   skip  4*8*8 * 2   =  512   head  4*8*8 * 4*9 = 9216   (Add: none)
 * 23552 in all. Peak activation 4096 B per sample, inputs 2048 B.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "report/report_int.h"
#include "testmodel.h"

#define MODEL "unit/models/analyze_residual.onnx"

/* Infers m at batch n and analyses it. */
static nns_analysis *at_batch(nns_model *m, int64_t n) {
  nns_error err;
  nns_infer_options o = {.size = sizeof o, .batch = n};
  if (nns_model_infer(m, &o, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "infer at batch %lld: %s", (long long)n,
               err.message);
    return NULL;
  }
  return tm_analyze(m, NULL);
}

/* The analysis's text report (malloc'ed; NULL on failure). */
static char *text_of(const nns_analysis *a) {
  nns__membuf b = {0};
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT,
                          .columns = NNS_COL_ALL, .width = 160};
  nns_error err;
  if (nns_report(a, &o, nns__membuf_write, &b, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "report: %s", err.message);
    free(b.data);
    return NULL;
  }
  return b.data;
}

/* The first dim of the output of the layer at `path`, as `a` read it. */
static int64_t output_batch(const nns_analysis *a, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
    nns_layer_info l = {.size = sizeof l};
    if (nns_analysis_layer(a, i, &l) != NNS_OK || strcmp(l.path, path))
      continue;
    nns_dim d = {.size = sizeof d};
    if (nns_analysis_value_dim(a, l.output_value, 0, &d) != NNS_OK)
      return -2;
    return d.value;
  }
  return -3;
}

static void check_batch(const nns_analysis *a, int64_t n) {
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.macs, 23552 * n);
  CHECK_EQ(t.peak_activation_bytes, 4096 * n);
  CHECK_EQ(t.input_bytes, 2048 * n);
  CHECK_EQ(t.all.params, 376); /* weights do not grow with the batch */
  CHECK_EQ(output_batch(a, "head"), n);
  CHECK_EQ(output_batch(a, "block.conv1"), n);
}

static void test_two_batches_side_by_side(void) {
  nns_model *m = tm_load_path(MODEL, TM_LOAD_ONLY);
  if (!m)
    return;
  nns_analysis *one = at_batch(m, 1);
  char *one_before = one ? text_of(one) : NULL;
  nns_analysis *many = at_batch(m, 64);
  if (!one || !many || !one_before)
    goto done;
  /* The model now holds batch 64's inference; each analysis its own. */
  size_t x = tm_find(m, "x");
  CHECK_EQ(tm_dim(m, x, 0).value, 64);
  check_batch(one, 1);
  check_batch(many, 64);
  /* The batch-1 report is the same before and after the second
   * inference, and says batch 1 where the other says 64. */
  char *one_after = text_of(one), *many_text = text_of(many);
  if (one_after && many_text) {
    CHECK_STR(one_after, one_before);
    CHECK(strstr(one_after, "(1, 4, 8, 8)") != NULL);
    CHECK(strstr(many_text, "(64, 4, 8, 8)") != NULL);
    CHECK(strstr(one_after, "(64, 4, 8, 8)") == NULL);
  }
  free(one_after);
  free(many_text);
  /* Freeing one leaves the other whole. */
  nns_analysis_free(many);
  many = NULL;
  check_batch(one, 1);
done:
  free(one_before);
  nns_analysis_free(many);
  nns_analysis_free(one);
  nns_model_free(m);
}

/* Model set-up calls made after an analysis shape the next one only. */
static void test_set_module_after(void) {
  nns_model *m = tm_load_path(MODEL, TM_INFER);
  nns_analysis *before = tm_analyze(m, NULL);
  nns_error err;
  CHECK_EQ(nns_model_set_module(m, "block", "Residual", 1, &err), NNS_OK);
  nns_analysis *after = tm_analyze(m, NULL);
  if (before && after) {
    CHECK(tm_layer_class(before, 1) == NULL);
    CHECK_STR(tm_layer_at(before, 1).path, "block");
    CHECK_STR(tm_layer_class(after, 1), "Residual");
  }
  nns_analysis_free(before);
  nns_analysis_free(after);
  nns_model_free(m);
}

int main(void) {
  RUN(test_two_batches_side_by_side);
  RUN(test_set_module_after);
  return check_finish();
}
