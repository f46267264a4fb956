/*
 * fuzz_infer.c - libFuzzer target for everything after loading: shape
 * inference, the analysis (costs, parameters, module tree, memory,
 * receptive field) and every report format. A model that loads must come
 * through each stage with a status, never a crash, hang or leak.
 */
#include <stddef.h>
#include <stdint.h>

#include "nnscan.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Discards report output, but touches every byte so a bad pointer shows. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_model *m = NULL;
  nns_error err;
  nns_load_options opts = {.size = sizeof opts,
                           .external_dir = "/nonexistent-nnscan-fuzz"};
  if (nns_model_load_memory(data, size, &opts, &m, &err) != NNS_OK)
    return 0;
  fuzz_report_all(m);
  nns_model_free(m);
  return 0;
}
