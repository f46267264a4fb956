/*
 * fuzz_packed.c - libFuzzer target for nns_builder_add_packed, the way a
 * binding hands a recorded graph over in one call: any bytes must give a
 * status, never a crash, a read outside the buffer, a hang or a leak;
 * its entries' nodes are asked (nns_builder_packed_entries); a graph that
 * builds then goes through inference, the analysis and every report
 * format. Seeds: tests/fuzz/seeds/fuzz_packed, graphs the Python
 * recorder packed (make_seeds.py there writes them).
 */
#include <stddef.h>
#include <stdint.h>

#include "nnscan.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_builder *b = NULL;
  nns_model *m = NULL;
  nns_error err;
  if (nns_builder_new(&b, &err) != NNS_OK)
    return 0;
  /* After a failed call the builder either still works or refuses
   * everything: finish is tried either way. */
  (void)nns_builder_add_packed(b, data, size, &err);
  /* what a binding asks after the recording (the rerun nodes of a
   * checkpointed region): every entry alone, then all of them */
  size_t first, count, n_entries = 0;
  while (nns_builder_packed_entries(b, n_entries, 1, &first, &count,
                                    &err) == NNS_OK)
    n_entries++;
  (void)nns_builder_packed_entries(b, 0, n_entries, &first, &count, &err);
  (void)nns_builder_finish(b, &m, &err);
  nns_builder_free(b);
  if (m) {
    fuzz_report_all(m);
    const char *names[4];
    size_t n;
    (void)nns_model_shape_mismatches(m, names, 4, &n, &err);
  }
  nns_model_free(m);
  return 0;
}
