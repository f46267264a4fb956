/*
 * inspect_read.c - the inspection as the renderers read it: its public
 * accessors (nnscan.h, "Reading an inspection") as values, so that the
 * table, the JSON and the roofline parts read an inspection exactly as any
 * other client of the library would, and a report cannot show a figure
 * the API does not give.
 */
#include "report_int.h"

nns_inspect_module_info nns__imodule_of(const nns_inspection *in, size_t m) {
  nns_inspect_module_info x = {.size = sizeof x, .path = "", .name = "",
                               .type = "", .parent = (size_t)-1,
                               .first_child = (size_t)-1,
                               .next_sibling = (size_t)-1,
                               .first_call = (size_t)-1};
  nns_inspection_module(in, m, &x, NULL);
  return x;
}

nns_inspect_call_info nns__icall_of(const nns_inspection *in, size_t i) {
  nns_inspect_call_info x = {.size = sizeof x, .module = (size_t)-1,
                             .parent = (size_t)-1, .batch = (size_t)-1,
                             .next_same = (size_t)-1};
  nns_inspection_call(in, i, &x, NULL);
  return x;
}

nns_inspect_tensor_info nns__itensor_of(const nns_inspection *in, size_t i,
                                        size_t k) {
  nns_inspect_tensor_info x = {.size = sizeof x};
  nns_inspection_call_tensor(in, i, k, &x, NULL);
  return x;
}

nns_inspect_batch_info nns__ibatch_of(const nns_inspection *in, size_t b) {
  nns_inspect_batch_info x = {.size = sizeof x};
  nns_inspection_batch(in, b, &x, NULL);
  return x;
}

bool nns__istats_of(const nns_inspection *in, size_t m,
                    nns_inspect_stats *s) {
  *s = (nns_inspect_stats){.size = sizeof *s};
  return nns_inspection_module_stats(in, m, s, NULL) == NNS_OK;
}

double nns__inspect_per_pass(const nns_inspection *in, double total) {
  size_t passes = nns_inspection_batch_count(in);
  return passes ? total / (double)passes : 0;
}

int nns__inspect_ranks(const nns_inspection *in) {
  int ranks = 0;
  for (size_t b = 0; b < nns_inspection_batch_count(in); b++) {
    int rank = nns__ibatch_of(in, b).rank;
    if (rank + 1 > ranks)
      ranks = rank + 1;
  }
  return ranks;
}
