/*
 * fuzz_aten.c - libFuzzer target for the packed aten record (tag 29, the
 * recorder's tape): the input is the body of an nns_builder_add_packed
 * buffer (records without the "NNSP" header) handed over after a fixed
 * prelude that declares values the records can name (inputs "x" and "y",
 * float [2, 3], "i", int64 [2], and the initializer "w", float [3, 3]).
 * Any bytes must give a status, never a crash, a read outside the buffer,
 * a hang or a leak; a graph that builds then goes through inference, the
 * analysis and every report format. The same bytes after a `names`
 * record of zeros go to nns_aten_numbering (the recorder's question of
 * how the library numbers one call), and so do the bytes alone (records
 * a call reads, before its own names record). Seeds: tests/fuzz/seeds/fuzz_aten
 * (make_seeds.py there: recorded models' tapes, numbered calls among
 * them, and one record of every argument kind).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nnscan.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static nns_status prelude(nns_builder *b, nns_error *err) {
  static const int64_t xy[] = {2, 3}, ii[] = {2}, ww[] = {3, 3};
  nns_status st = nns_builder_add_opset(b, "", 17, err);
  if (!st)
    st = nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, xy, NULL, err);
  if (!st)
    st = nns_builder_add_input(b, "y", NNS_DT_FLOAT, 2, xy, NULL, err);
  if (!st)
    st = nns_builder_add_input(b, "i", NNS_DT_INT64, 1, ii, NULL, err);
  if (!st)
    st = nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 2, ww, NULL, 0,
                                     err);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_builder *b = NULL;
  nns_model *m = NULL;
  nns_error err;
  if (size > (1u << 20) || nns_builder_new(&b, &err) != NNS_OK)
    return 0;
  uint8_t *buf = malloc(size + 8);
  if (buf && prelude(b, &err) == NNS_OK) {
    uint32_t ver = NNS_PACKED_VERSION;
    memcpy(buf, "NNSP", 4);
    memcpy(buf + 4, &ver, 4);
    if (size)
      memcpy(buf + 8, data, size);
    /* After a failed call the builder either still works or refuses
     * everything: finish is tried either way. */
    (void)nns_builder_add_packed(b, buf, size + 8, &err);
    (void)nns_builder_finish(b, &m, &err);
  }
  free(buf);
  nns_builder_free(b);
  if (m)
    fuzz_report_all(m);
  nns_model_free(m);
  uint8_t *q = malloc(size + 8 + 25);
  if (q) {
    uint32_t ver = NNS_PACKED_VERSION;
    memcpy(q, "NNSP", 4);
    memcpy(q + 4, &ver, 4);
    memset(q + 8, 0, 25);
    q[8] = NNS_PACKED_NAMES;
    if (size)
      memcpy(q + 33, data, size);
    nns_aten_numbering_info info = {.size = sizeof info};
    (void)nns_aten_numbering(q, size + 33, &info, &err);
    /* the bytes alone after the header: what the call reads (a weight,
     * its kind, its t()), then the names record, as the recorder asks */
    memmove(q + 8, q + 33, size);
    (void)nns_aten_numbering(q, size + 8, &info, &err);
    free(q);
  }
  return 0;
}
