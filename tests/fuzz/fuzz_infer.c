/*
 * fuzz_infer.c - libFuzzer target for loading plus shape inference: every
 * model that loads must infer or fail with a status, never crash.
 */
#include <stddef.h>
#include <stdint.h>

#include "nnscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_model *m = NULL;
  nns_error err;
  nns_load_options opts = {.external_dir = "/nonexistent-nnscan-fuzz"};
  if (nns_model_load_memory(data, size, &opts, &m, &err) != NNS_OK)
    return 0;
  (void)nns_model_infer(m, NULL, &err);
  nns_model_free(m);
  return 0;
}
