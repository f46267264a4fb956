/*
 * test_results_memory.c - results do not pile up: nns_model_infer and
 * nns_model_analyze each free what the previous run held (issue 6, item 1).
 *
 * 1,000 infer + analyze cycles on ResNet-50 (the torchvision export among
 * the fixtures; its weights file is absent, which the analysis never
 * needs) must keep the process's peak RSS (VmHWM) within 1 MiB of what it
 * was after the first cycle. Before results had their own memory every
 * cycle kept about 1 MB more. The test prints the RSS after 1, 10, 100 and
 * 1,000 cycles.
 *
 * Under AddressSanitizer or valgrind RSS means nothing and a cycle is
 * slow, so there it runs 20 cycles and checks only that the results of
 * each run are the same (the sanitizers then catch any use of freed
 * results). NNS_RESULTS_CYCLES overrides the count and NNS_RESULTS_MODEL
 * the model (bench/gen_models.py's resnet50_inline.onnx, with its 100 MB of
 * weights, gives the figures of the report).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* A field of /proc/self/status in KiB ("VmHWM", "VmRSS"), or -1. */
static long status_kib(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f)
    return -1;
  char line[256];
  long v = -1;
  size_t n = strlen(field);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, field, n) && line[n] == ':')
      v = strtol(line + n + 1, NULL, 10);
  fclose(f);
  return v;
}

static bool under_valgrind(void) {
  const char *p = getenv("LD_PRELOAD");
  return p && (strstr(p, "valgrind") || strstr(p, "vgpreload"));
}

static void test_cycles(void) {
  bool measured = !UNDER_ASAN && !under_valgrind();
  long cycles = measured ? 1000 : 20;
  const char *env = getenv("NNS_RESULTS_CYCLES");
  if (env && atol(env) > 0)
    cycles = atol(env);
  const char *path = getenv("NNS_RESULTS_MODEL");
  nns_model *m = tm_load_path(path && *path
                                  ? path
                                  : "fixtures/models/resnet50_op17_fold.onnx",
                              TM_LOAD_ONLY);
  nns_analysis *a = NULL;
  if (!m)
    return;
  nns_error err;
  int64_t macs0 = -1;
  size_t layers0 = 0;
  long hwm1 = -1;
  for (long c = 1; c <= cycles; c++) {
    nns_analysis_free(a); /* each cycle's analysis replaces the last */
    a = NULL;
    if (nns_model_infer(m, NULL, &err) != NNS_OK ||
        nns_model_analyze(m, NULL, &a, &err) != NNS_OK) {
      check_fail(__FILE__, __LINE__, "cycle %ld: %s", c, err.message);
      break;
    }
    tm_totals t = tm_totals_of(a);
    if (c == 1) {
      macs0 = t.all.macs;
      layers0 = nns_analysis_layer_count(a);
      hwm1 = status_kib("VmHWM");
    } else if (t.all.macs != macs0 ||
               nns_analysis_layer_count(a) != layers0) {
      check_fail(__FILE__, __LINE__, "cycle %ld: results changed", c);
      break;
    }
    if (c == 1 || c == 10 || c == 100 || c == 1000 || c == cycles)
      printf("cycle %4ld: VmRSS %ld KiB, VmHWM %ld KiB\n", c,
             status_kib("VmRSS"), status_kib("VmHWM"));
  }
  /* ResNet-50: 4.09 G MACs at 224x224 (torchvision's own figure). */
  CHECK(macs0 > 4000000000LL && macs0 < 4200000000LL);
  if (measured && hwm1 > 0) {
    long grown = status_kib("VmHWM") - hwm1;
    if (grown > 1024)
      check_fail(__FILE__, __LINE__,
                 "peak RSS grew by %ld KiB over %ld cycles (limit 1024)",
                 grown, cycles);
  }
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_cycles);
  return check_finish();
}
