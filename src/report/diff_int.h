/*
 * diff_int.h - the diff of two "nnscan.summary" documents as diff.c reads
 * and matches them, shared with its renderers (diff.c writes the
 * "nnscan.diff" JSON and the HTML page, diff_text.c the text).
 */
#ifndef NNS_REPORT_DIFF_INT_H
#define NNS_REPORT_DIFF_INT_H

#include "../base/json_reader.h"
#include "json_status.h"

typedef enum dstatus { D_COMPLETE, D_PARTIAL, D_UNAVAILABLE } dstatus;

typedef struct dmetric {
  dstatus status;
  int64_t value;          /* the value, or the known lower bound */
  bool at_one;            /* partial only because symbolic dims were taken
                             as 1: exact at that size, as summary counts */
} dmetric;

typedef struct drow {
  const char *path;       /* dotted module path, "" for the model */
  int64_t call;           /* call index (0 for an aggregated row) */
  const char *type;
  const nns__jval *output; /* its output value, as the document has it */
  dmetric m[NNS__M_COUNT];
} drow;

typedef struct dside {
  const nns__jval *doc;
  int version;            /* schema_version: 1 or 2 */
  const char *name, *path, *nnscan_version;
  const nns__jval *inputs, *param_dtypes;
  drow totals;
  drow *rows;             /* the layers, in the document's order */
  size_t count;
  const drow **sorted;    /* the rows by (path, call) */
} dside;

/* One budget: METRIC OP [+|-]N[%]. */
typedef struct dbudget {
  char text[96];          /* as given, trimmed */
  int metric;             /* NNS__M_BIT_* */
  char op[3];             /* ">", ">=", "<", "<=" */
  double limit;           /* N (a percentage with percent) */
  bool percent;
  int state;              /* 0 ok, 1 exceeded, 2 withheld */
} dbudget;

typedef struct ddiff {
  dside before, after;
  bool comparable;
  const char *why[4];     /* why deltas are withheld (NULL-terminated) */
  /* Row pairs: before index or -1, after index or -1, in report order:
   * the after side's order, removed rows where they stood. */
  size_t (*pairs)[2];
  size_t pair_count;
  size_t added, removed, changed, unchanged;
  dbudget *budgets;
  size_t budget_count;
  bool symbols_at_one;    /* some delta compares values at symbols = 1 */
  const nns__jval *symbols;   /* the after side's "symbols" (names) */
  const nns__jval *sym_fix;   /* its "symbolic_inputs" ({input, option}) */
  char sym_note[768];     /* the sentence text, JSON and HTML all print */
} ddiff;

extern const char *const nns__diff_metric_keys[NNS__M_COUNT];

/* The delta after - before where both are complete and the runs
 * comparable; false when withheld (or it would overflow). */
bool nns__diff_delta(const ddiff *d, const dmetric *b, const dmetric *a,
                     int64_t *delta);
/* Whether row pair p changed (a metric, its type or its output). */
bool nns__diff_changed(const ddiff *d, const size_t pair[2]);
/* "complete", "partial", "unavailable". */
const char *nns__diff_status_name(dstatus s);

nns_status nns__diff_text(const ddiff *d, nns__out *o);

#endif
