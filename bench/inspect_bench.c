/*
 * inspect_bench.c - the inspection API with many modules (issue 18, item
 * 4): adding N siblings under one root, or a chain N deep, then one pass
 * calling every module once, then the JSON and seed reports.
 * bench/inspect_bench.sh builds and runs it.
 *
 *   inspect_bench N RUNS [flat|chain]
 *
 * Prints the median and minimum over RUNS (each a fresh inspection) of:
 * adding the modules, adding the batch, writing the "nnscan.inspect" JSON,
 * the seed layout and the text table of every module (to a sink that only
 * counts bytes), in ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "nnscan.h"

static int count(void *user, const char *data, size_t size) {
  (void)data;
  *(size_t *)user += size;
  return 0;
}

enum { PHASES = 5 };
static const char *phase[PHASES] = {"add_module", "add_batch", "json",
                                    "seed", "text"};

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: inspect_bench N RUNS [flat|chain]\n");
    return 2;
  }
  size_t n = (size_t)strtoull(argv[1], NULL, 10);
  int runs = atoi(argv[2]);
  int chain = argc > 3 && !strcmp(argv[3], "chain");
  if (n < 1 || runs < 1)
    return 2;
  double *t = calloc((size_t)runs * PHASES, sizeof *t);
  nns_inspect_call *calls = calloc(n + 1, sizeof *calls);
  char *path = malloc(chain ? 2 * n + 2 : 32);
  size_t bytes[2] = {0, 0};
  if (!t || !calls || !path)
    return 1;
  for (int r = 0; r < runs; r++) {
    nns_inspection *in = NULL;
    nns_error err;
    if (nns_inspection_create(&in, &err))
      return 1;
    double t0 = now_ms();
    size_t len = 0;
    path[0] = 0;
    for (size_t i = 0; i <= n; i++) {
      if (!chain && i)
        snprintf(path, 32, "%zu", i - 1);
      nns_inspect_module m = {.size = sizeof m, .path = path, .type = "Lin",
                              .parent = i == 0 ? (size_t)-1
                                        : chain ? i - 1 : 0,
                              .flops = -1, .macs = -1};
      if (nns_inspection_add_module(in, &m, NULL, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
      }
      if (chain)
        len += (size_t)sprintf(path + len, "%s0", i ? "." : "");
    }
    double t1 = now_ms();
    for (size_t i = 0; i <= n; i++)
      calls[i] = (nns_inspect_call){
          .module = i, .parent = i == 0 ? (size_t)-1 : chain ? i - 1 : 0,
          .fwd_seq = (int64_t)i, .bwd_seq = -1,
          .fwd_start = {(double)i, -1, -1},
          .fwd_end = {chain ? 3.0 * (double)n - (double)i : (double)i + 0.5,
                      -1, -1},
          .bwd_start = {-1, -1, -1}, .bwd_end = {-1, -1, -1}};
    nns_inspect_batch b = {.size = sizeof b, .wall_start = 1, .calls = calls,
                           .call_count = n + 1, .call_size = sizeof *calls,
                           .tensor_size = sizeof(nns_inspect_tensor)};
    if (nns_inspection_add_batch(in, &b, &err)) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    double t2 = now_ms();
    nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_JSON};
    bytes[0] = bytes[1] = 0;
    if (nns_inspection_report(in, &o, count, &bytes[0], &err))
      return 1;
    double t3 = now_ms();
    if (nns_inspection_report_seed(in, NULL, count, &bytes[1], &err))
      return 1;
    double t4 = now_ms();
    size_t text_bytes = 0; /* every module's row: the whole tree */
    nns_report_options to = {.size = sizeof to, .format = NNS_FORMAT_TEXT,
                             .max_depth = NNS_DEPTH_ALL};
    if (nns_inspection_report(in, &to, count, &text_bytes, &err))
      return 1;
    double t5 = now_ms();
    nns_inspection_free(in);
    double d[PHASES] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4};
    for (int k = 0; k < PHASES; k++)
      t[k * runs + r] = d[k];
  }
  printf("%s of %zu modules, %d runs (median / min ms); json %zu bytes, "
         "seed %zu bytes\n",
         chain ? "chain" : "flat", n + 1, runs, bytes[0], bytes[1]);
  for (int k = 0; k < PHASES; k++) {
    qsort(t + k * runs, (size_t)runs, sizeof *t, cmp);
    printf("  %-10s %10.2f %10.2f\n", phase[k], t[k * runs + runs / 2],
           t[k * runs]);
  }
  free(t);
  free(calls);
  free(path);
  return 0;
}
