/*
 * fuzz_infer.c - libFuzzer target for everything after loading: shape
 * inference, the analysis (costs, parameters, module tree, memory,
 * receptive field) and every report format. A model that loads must come
 * through each stage with a status, never a crash, hang or leak.
 */
#include <stddef.h>
#include <stdint.h>

#include "nnscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Discards report output, but touches every byte so a bad pointer shows. */
static int sink(void *user, const char *p, size_t n) {
  unsigned *sum = user;
  for (size_t i = 0; i < n; i++)
    *sum += (unsigned char)p[i];
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_model *m = NULL;
  nns_error err;
  nns_load_options opts = {.size = sizeof opts,
                           .external_dir = "/nonexistent-nnscan-fuzz"};
  if (nns_model_load_memory(data, size, &opts, &m, &err) != NNS_OK)
    return 0;
  if (nns_model_infer(m, NULL, &err) == NNS_OK &&
      nns_model_analyze(m, NULL, &err) == NNS_OK) {
    unsigned sum = 0;
    for (int f = NNS_FORMAT_TEXT; f <= NNS_FORMAT_SHAPES_TEXT; f++) {
      nns_report_options ro = {.size = sizeof ro,
                               .format = (nns_report_format)f,
                               .columns = NNS_COL_ALL,
                               .max_depth = NNS_DEPTH_ALL};
      (void)nns_report(m, &ro, sink, &sum, &err);
    }
  }
  nns_model_free(m);
  return 0;
}
