/*
 * fuzz_packed.c - libFuzzer target for nns_builder_add_packed, the way a
 * binding hands a recorded graph over in one call: any bytes must give a
 * status, never a crash, a read outside the buffer, a hang or a leak; a
 * graph that builds then goes through inference, the analysis and every
 * report format. Seeds: tests/fuzz/seeds/fuzz_packed, graphs the Python
 * recorder packed (make_seeds.py there writes them).
 */
#include <stddef.h>
#include <stdint.h>

#include "nnscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(void *user, const char *p, size_t n) {
  unsigned *sum = user;
  for (size_t i = 0; i < n; i++)
    *sum += (unsigned char)p[i];
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_builder *b = NULL;
  nns_model *m = NULL;
  nns_error err;
  if (nns_builder_new(&b, &err) != NNS_OK)
    return 0;
  /* After a failed call the builder either still works or refuses
   * everything: finish is tried either way. */
  (void)nns_builder_add_packed(b, data, size, &err);
  (void)nns_builder_finish(b, &m, &err);
  nns_builder_free(b);
  if (m && nns_model_infer(m, NULL, &err) == NNS_OK &&
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
