/*
 * fuzz_report.h - what every model-making fuzz target does with a model it
 * got: infer, analyze, and write every report format into a sink that
 * touches each byte (so a read of uninitialised or freed memory shows).
 */
#ifndef NNS_FUZZ_REPORT_H
#define NNS_FUZZ_REPORT_H

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
  if (nns_model_infer(m, &io, &err) != NNS_OK ||
      nns_model_analyze(m, &ao, &a, &err) != NNS_OK)
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
