/*
 * fuzz_pt2.c - libFuzzer target for the torch.export archive reader
 * (src/pt2/): any byte string read as a .pt2 must load or fail with a
 * status, never crash, leak or read out of bounds. The zip directory, the
 * inflate of a deflated models/model.json, the JSON and the aten lowering
 * are all reached: seeds are real archives (tests/fuzz/seeds/fuzz_pt2).
 * A model that loads is inferred too.
 */
#include <stddef.h>
#include <stdint.h>

#include "nnscan.h"
#include "pt2/pt2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_model *m = NULL;
  nns_error err;
  if (nns__pt2_load(data, size, &m, &err) != NNS_OK)
    return 0;
  (void)nns_model_infer(m, NULL, &err);
  nns_model_free(m);
  return 0;
}
