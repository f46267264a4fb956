/*
 * fuzz_diff.c - nns_diff_report on hostile documents: the input is two
 * JSON texts separated by the first NUL (or the input against itself
 * when it has none), diffed in every format with a budget. Seeded from
 * fuzz/seeds/fuzz_diff (summaries of both versions). nns_json_check reads
 * the first document and the whole input by the same reader.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *a = (const char *)data, *b = a;
  size_t na = size, nb = size;
  const char *nul = memchr(a, 0, size);
  if (nul) {
    na = (size_t)(nul - a);
    b = nul + 1;
    nb = size - na - 1;
  }
  unsigned sum = 0;
  nns_error err;
  static const nns_report_format formats[] = {NNS_FORMAT_TEXT,
                                              NNS_FORMAT_JSON,
                                              NNS_FORMAT_HTML};
  for (int f = 0; f < 3; f++) {
    nns_diff_options o = {.size = sizeof o, .format = formats[f],
                          .budgets = "macs > +5%, params >= 0, flops < -1"};
    nns_diff_result r = {.size = sizeof r};
    (void)nns_diff_report(a, na, b, nb, &o, fuzz_sink, &sum, &r, &err);
  }
  /* nns_json_check: the same reader's rules for one document (what the
   * Python package checks a saved summary with); the whole input too,
   * NULs and all. */
  (void)nns_json_check(a, na, &err);
  (void)nns_json_check((const char *)data, size, NULL);
  return 0;
}
