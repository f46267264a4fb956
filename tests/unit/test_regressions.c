/*
 * test_regressions.c - every input a fuzzer ever found failing, replayed
 * through the whole pipeline (load, infer, analyze, every report format) as
 * fuzz_infer runs it. Each must come through with a status; the sanitizer
 * and valgrind builds of the suite catch what a plain build would not. Add
 * a file to tests/fuzz/regressions/ for each new finding, named after the
 * bug.
 *
 *   peak-memory-overflow.onnx  per-node activation totals saturated while
 *                              the peak walk subtracted unsaturated sizes:
 *                              signed overflow (UBSan), negative live bytes.
 *   float-attr-to-int-overflow.onnx  a FLOAT attribute of -4e34 where an
 *                              INT is expected was converted to int64
 *                              (UBSan: out of range); now it saturates.
 *   fold-budget-slow-float16.onnx  a 64K-element ConstantOfShape feeding
 *                              4,000 Neg nodes, mutated by fuzz_infer to a
 *                              16-bit float: within the first 64 MiB
 *                              folding budget it still took 0.9 s (31 s
 *                              instrumented, a libFuzzer timeout); the
 *                              budget is now 16 MiB (0.09 s).
 *   scalar-dims-memcpy-null.onnx  a OneHotEncoder (ai.onnx.ml) on a
 *                              scalar: its rank-0 dims (NULL) went to
 *                              memcpy with length 0, which C does not
 *                              allow (UBSan); dims are now copied through
 *                              nns__dims_copy, which skips empty copies.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

#define DIR_PATH "fuzz/regressions"

static int sink(void *user, const char *p, size_t n) {
  (void)p;
  *(size_t *)user += n;
  return 0;
}

static void replay(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, DIR_PATH "/%s", name);
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f)
    return;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *data = malloc(size > 0 ? (size_t)size : 1);
  size_t got = fread(data, 1, (size_t)(size > 0 ? size : 0), f);
  fclose(f);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  nns_load_options lo = {.size = sizeof lo, .external_dir = "/nonexistent-nnscan-regression"};
  if (nns_model_load_memory(data, got, &lo, &m, &err) == NNS_OK &&
      nns_model_infer(m, NULL, &err) == NNS_OK &&
      nns_model_analyze(m, NULL, &a, &err) == NNS_OK) {
    tm_totals t = tm_totals_of(a);
    /* Sizes and counts are never negative, saturated or not. */
    CHECK(t.peak_activation_bytes >= 0);
    CHECK(t.all.activation_bytes >= 0 && t.all.flops >= 0);
    CHECK(t.train_total_bytes >= 0);
    size_t written = 0;
    for (int fmt = NNS_FORMAT_TEXT; fmt <= NNS_FORMAT_JSON; fmt++) {
      nns_report_options ro = {.size = sizeof ro, .format = (nns_report_format)fmt,
                               .columns = NNS_COL_ALL,
                               .max_depth = NNS_DEPTH_ALL};
      CHECK_EQ(nns_report(a, &ro, sink, &written, &err), NNS_OK);
    }
    CHECK(written > 0);
  }
  nns_analysis_free(a);
  nns_model_free(m);
  free(data);
}

static void test_regressions(void) {
  DIR *d = opendir(DIR_PATH);
  CHECK(d != NULL);
  if (!d)
    return;
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') {
      replay(e->d_name);
      n++;
    }
  closedir(d);
  CHECK(n >= 1);
  printf("replayed %d fuzz findings\n", n);
}

int main(void) {
  RUN(test_regressions);
  return check_finish();
}
