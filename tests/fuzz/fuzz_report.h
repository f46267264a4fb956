/*
 * fuzz_report.h - what every model-making fuzz target does with a model it
 * got: infer, analyze, and write every report format into a sink that
 * touches each byte (so a read of uninitialised or freed memory shows).
 */
#ifndef NNS_FUZZ_REPORT_H
#define NNS_FUZZ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nnscan.h"

static inline int fuzz_sink(void *user, const char *p, size_t n) {
  unsigned *sum = user;
  for (size_t i = 0; i < n; i++)
    *sum += (unsigned char)p[i];
  return 0;
}

typedef struct fuzz_doc {
  char *data;
  size_t len;
} fuzz_doc;

static inline int fuzz_keep(void *user, const char *p, size_t n) {
  fuzz_doc *d = user;
  char *more = realloc(d->data, d->len + n + 1);
  if (!more)
    return 1;
  memcpy(more + d->len, p, n);
  d->data = more;
  d->len += n;
  return 0;
}

/* The summary as JSON v1 and v2 (statuses, diagnostics), then the diff of
 * the two in every format: the JSON reader reads what the writer wrote. */
static inline void fuzz_report_v2_and_diff(const nns_analysis *a) {
  fuzz_doc d[2] = {{NULL, 0}, {NULL, 0}};
  nns_error err;
  for (int v = 0; v < 2; v++) {
    nns_report_options ro = {.size = sizeof ro, .format = NNS_FORMAT_JSON,
                             .max_depth = NNS_DEPTH_ALL, .json_version = v + 1};
    (void)nns_report(a, &ro, fuzz_keep, &d[v], &err);
  }
  unsigned sum = 0;
  if (d[0].data && d[1].data) {
    for (int f = 0; f < 3; f++) {
      static const nns_report_format formats[] = {
          NNS_FORMAT_TEXT, NNS_FORMAT_JSON, NNS_FORMAT_HTML};
      nns_diff_options o = {.size = sizeof o, .format = formats[f],
                            .budgets = "macs > +5%, params >= 0"};
      (void)nns_diff_report(d[0].data, d[0].len, d[1].data, d[1].len, &o,
                            fuzz_sink, &sum, NULL, &err);
    }
  }
  free(d[0].data);
  free(d[1].data);
}

/* After an inference: every main-graph value (the first 4,096) offered
 * as tracked; nns_model_mask_inputs walks whatever graph this is, and each
 * value it asks for is given, when its inferred dims are known and small,
 * as elements whose bytes are all 1 (true, 1, or a tiny float), every
 * other one as a fill (its one element), which the analysis's
 * masked-attention counts then read. */
static inline void fuzz_masks(nns_model *m) {
  nns_error err;
  size_t n = nns_model_value_count(m), got = 0;
  if (n > 4096)
    n = 4096;
  const char **names = calloc(n ? n : 1, sizeof *names);
  size_t *wanted = calloc(n ? n : 1, sizeof *wanted);
  if (!names || !wanted)
    goto done;
  for (size_t i = 0; i < n; i++) {
    nns_value_info vi = {.size = sizeof vi};
    names[i] = nns_model_value(m, i, &vi) == NNS_OK && !vi.graph_depth
                   ? vi.name : "";
  }
  if (nns_model_mask_inputs(m, names, n, wanted, &got, &err) != NNS_OK)
    goto done;
  for (size_t k = 0; k < got && wanted[k] < n; k++) {
    nns_value_info vi = {.size = sizeof vi};
    int64_t dims[8], numel = 1;
    if (nns_model_value(m, wanted[k], &vi) != NNS_OK || vi.rank < 0 ||
        vi.rank > 8 || nns_dtype_bits(vi.dtype) % 8)
      continue;
    for (int a = 0; a < vi.rank && numel >= 0; a++) {
      nns_dim d = {.size = sizeof d};
      dims[a] = nns_model_value_dim(m, wanted[k], a, &d) == NNS_OK
                    ? d.value : -1;
      numel = dims[a] < 0 || dims[a] > 1024 ? -1 : numel * dims[a];
    }
    size_t bytes = numel >= 0 && numel <= 1024
                       ? (size_t)numel * (size_t)(nns_dtype_bits(vi.dtype) / 8)
                       : 0;
    unsigned char *data = bytes ? malloc(bytes) : NULL;
    if (data) {
      memset(data, 1, bytes);
      bool fill = k % 2 && numel > 1;
      (void)nns_model_set_value_data(m, &names[wanted[k]], 1, vi.dtype,
                                     fill ? 0 : vi.rank, dims, data,
                                     fill ? bytes / (size_t)numel : bytes,
                                     &err);
    }
    free(data);
  }
done:
  free(names);
  free(wanted);
}

/* Infers and analyses m (failures are fine: a status is the answer) and,
 * when both succeed, writes every report format: the analysis's, then the
 * shapes of the inference. */
static inline void fuzz_report_all(nns_model *m) {
  nns_error err;
  nns_analysis *a = NULL;
  /* With a device, so that the roofline's columns and keys are written
   * too (bytes are counted either way). */
  nns_hardware hw = {.size = sizeof hw};
  nns_analyze_options ao = {.size = sizeof ao, .optimizer = NNS_OPTIMIZER_SGD};
  if (nns_hardware_find("h100-sxm", &hw, &err) == NNS_OK)
    ao.hardware = &hw;
  /* Half the models (by node count, so an input always takes the same
   * path) infer with the declared shapes as fallback: unknown ops' outputs
   * and the dims no rule can know take what the model declares. */
  nns_infer_options io = {.size = sizeof io,
                          .flags = nns_model_node_count(m) % 2
                                       ? NNS_INFER_FALLBACK_DECLARED
                                       : 0};
  if (nns_model_infer(m, &io, &err) != NNS_OK)
    return;
  fuzz_masks(m);
  if (nns_model_analyze(m, &ao, &a, &err) != NNS_OK)
    return;
  unsigned sum = 0;
  for (int f = NNS_FORMAT_TEXT; f <= NNS_FORMAT_LAYERS_JSON; f++) {
    nns_report_options ro = {.size = sizeof ro, .format = (nns_report_format)f,
                             .columns = NNS_COL_ALL | NNS_COL_BYTES |
                                        NNS_COL_ROOF,
                             .max_depth = NNS_DEPTH_ALL};
    if (f == NNS_FORMAT_SHAPES_JSON || f == NNS_FORMAT_SHAPES_TEXT)
      (void)nns_report_shapes(m, &ro, fuzz_sink, &sum, &err);
    else
      (void)nns_report(a, &ro, fuzz_sink, &sum, &err);
  }
  fuzz_report_v2_and_diff(a);
  nns_analysis_free(a);
}

#endif
