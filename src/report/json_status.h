/*
 * json_status.h - what makes a count of the "nnscan.summary" v2 document
 * complete, partial or unavailable: the diagnostics of an analysis, each
 * with a stable code, a severity and where it happened (node, op, module),
 * and for every layer the diagnostics of its subtree. Built once per
 * report from the public accessors (json_status.c); json.c writes it.
 */
#ifndef NNS_REPORT_JSON_STATUS_H
#define NNS_REPORT_JSON_STATUS_H

#include "report_int.h"

/* The counted metrics of a layer and of the totals: nnscan.h's
 * NNS_METRIC_MAP, whose bits these are. */
enum {
#define NNS__METRIC_BIT_(name, bit, key, lower, member, mflags, text)          \
  NNS__M_BIT_##name = bit,
  NNS_METRIC_MAP(NNS__METRIC_BIT_)
#undef NNS__METRIC_BIT_
#define NNS__METRIC_ONE_(name, bit, key, lower, member, mflags, text) +1
  NNS__M_COUNT = 0 NNS_METRIC_MAP(NNS__METRIC_ONE_)
#undef NNS__METRIC_ONE_
};
#define NNS__M(name) (1u << NNS__M_BIT_##name)
/* The metrics a node not counted leaves partial (flops, macs, dmas), and
 * those a size taken as 1 does (and activation_bytes): NNS_METRIC_MAP's. */
enum {
#define NNS__M_COST_(name, bit, key, lower, member, mflags, text)              \
  | ((lower) & NNS_COUNT_PARTIAL ? 1u << bit : 0u)
  NNS__M_COST = 0u NNS_METRIC_MAP(NNS__M_COST_),
#undef NNS__M_COST_
#define NNS__M_SIZED_(name, bit, key, lower, member, mflags, text)             \
  | ((lower) & NNS_COUNT_SYMBOLIC ? 1u << bit : 0u)
  NNS__M_SIZED = 0u NNS_METRIC_MAP(NNS__M_SIZED_)
#undef NNS__M_SIZED_
};
#define NNS__M_ALL ((1u << NNS__M_COUNT) - 1)
/* Beyond them: the attention products over the pairs a mask allows
 * (macs_unmasked, flops_unmasked), plain numbers beside "metrics" with a
 * status of their own ("unmasked_status"). A diagnostic's metrics name
 * them too. */
#define NNS__M_MACS_UNMASKED (1u << NNS__M_COUNT)
#define NNS__M_FLOPS_UNMASKED (1u << (NNS__M_COUNT + 1))
#define NNS__M_UNMASKED (NNS__M_MACS_UNMASKED | NNS__M_FLOPS_UNMASKED)

/* The diagnostics: X(NAME, "code", "severity", metrics it makes partial,
 * "what it means"). Codes are stable: a code is never renamed or reused
 * (docs/json.md lists them). */
#define NNS__DIAG_MAP(X)                                                       \
  X(COST_NO_RULE, "cost.no_rule", "warning", NNS__M_COST,                      \
    "the op has no cost rule: its FLOPs, MACs and memory accesses are not "    \
    "counted")                                                                 \
  X(COST_NO_SIZE, "cost.no_size", "warning", NNS__M_SIZED,                     \
    "the op's cost rule found no usable size (an unknown rank or dim, or "     \
    "one that symbolic dims taken as 1 made negative); --input with the "      \
    "real sizes fixes it")                                                     \
  X(COST_FAILED, "cost.failed", "error", NNS__M_COST,                          \
    "the op's cost rule reported an error (the warnings say which)")           \
  X(SHAPE_NO_RULE, "shape.no_rule", "warning", NNS__M(ACTIVATION_BYTES),       \
    "the op has no shape rule: the shapes of its outputs, and the bytes "      \
    "they hold, are not known")                                                \
  X(LOOP_UNBOUNDED, "loop.trip_count_unknown", "warning", NNS__M_SIZED,        \
    "a loop whose trip count is not known was counted once")                   \
  X(SYMBOL_AS_1, "size.symbol_taken_as_1", "warning", NNS__M_SIZED,            \
    "a symbolic dim of this input was taken as 1: the counts hold at that "    \
    "size and are lower bounds of the real ones")                              \
  X(COUNT_SATURATED, "count.saturated", "error", NNS__M_ALL,                   \
    "a count passed 2^63-1 and was held there")                                \
  X(MASK_UNKNOWN, "attention.mask_unknown", "warning", NNS__M_UNMASKED,        \
    "the attention applies a mask whose contents are not known (not given, "  \
    "or computed from values not tracked): its products count dense in "      \
    "macs_unmasked and flops_unmasked")                                       \
  X(COST_APPROXIMATE, "cost.approximate", "warning", NNS__M_COST,              \
    "the op's cost rule counts it only approximately (the message says "      \
    "what it leaves out or bounds)")                                           \
  X(BRANCH_UNKNOWN, "branch.condition_unknown", "info", 0u,                    \
    "the If's condition is not known: the larger branch was counted")          \
  X(MODEL_WARNING, "model.warning", "info", 0u, NULL)

typedef enum nns__diag_code {
#define NNS__DIAG_ENUM_(name, code, sev, metrics, text) NNS__D_##name,
  NNS__DIAG_MAP(NNS__DIAG_ENUM_)
#undef NNS__DIAG_ENUM_
  NNS__D_COUNT
} nns__diag_code;

typedef struct nns__jdiag {
  nns__diag_code code;
  size_t node;          /* node index, or (size_t)-1 */
  const char *where;    /* node name, input name or NULL */
  const char *op;       /* op type, or NULL */
  const char *domain;   /* the op's domain, or NULL */
  const char *module;   /* dotted module path, or NULL */
  size_t layer;         /* layer index, or (size_t)-1 (model-wide) */
  const char *message;  /* NULL: the code's own text */
} nns__jdiag;

typedef struct nns__jstatus {
  nns__jdiag *diags;    /* every diagnostic, in id order */
  size_t count, cap;
  size_t layers;
  size_t **ids;         /* per layer: the diagnostics of its subtree */
  size_t *id_count, *id_cap;
  size_t *uncounted;    /* per layer: nodes of its subtree not counted */
  size_t *nodes;        /* per layer: nodes of its subtree */
  size_t global_first;  /* ids >= global_first are model-wide (symbols,
                           saturation): a layer flagged for them gets them */
} nns__jstatus;

nns_status nns__jstatus_build(nns__jstatus *s, const nns_analysis *a);
void nns__jstatus_free(nns__jstatus *s);

const char *nns__diag_code_name(nns__diag_code c);
const char *nns__diag_severity(nns__diag_code c);
unsigned nns__diag_metrics(nns__diag_code c);
const char *nns__diag_text(nns__diag_code c);

/* The metrics (NNS__M bits) of a layer ((size_t)-1: the totals) that are
 * not complete: its counts' flags and its subtree's diagnostics. */
unsigned nns__jstatus_partial(const nns__jstatus *s, size_t layer,
                              const nns_counts *k);
/* "metrics": {"params": {"status": ..., "value" | "known_value",
 * "diagnostics": [...]}, ...} of a layer (index `layer`) or the totals
 * ((size_t)-1) whose counts are k. */
void nns__json_metrics(nns__jw *w, const nns__jstatus *s, size_t layer,
                       const nns_counts *k);
/* "unmasked_status": "complete" or "partial" of a layer or the totals (a
 * mask not known, or what makes macs or flops partial), and when partial
 * "unmasked_diagnostics": [ids]. v1 (s NULL): the status only when a
 * mask is not known. */
void nns__json_unmasked_status(nns__jw *w, const nns__jstatus *s,
                               size_t layer, const nns_counts *k);
/* "diagnostics": [ids] of a layer (its subtree's) or of the totals. */
void nns__json_diag_ids(nns__jw *w, const nns__jstatus *s, size_t layer,
                        unsigned flags);
/* The document's "diagnostics": every one with its id, code, severity,
 * message, where, and the metrics it makes partial. */
void nns__json_diagnostics(nns__jw *w, const nns__jstatus *s);

#endif
