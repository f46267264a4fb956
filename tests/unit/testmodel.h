/*
 * testmodel.h - what the model-driven tests share: loading a test model
 * (and inferring or analysing it), checking a value's dtype, kind and shape
 * against a short spec string, checking that a model fails inference with
 * an exact code, and calling one node's cost and receptive-field rules
 * through the operator table the way the analysis calls them.
 *
 *   nns_model *m = tm_load("conv", "group", TM_INFER); // unit/models/conv_group.onnx
 *   EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "batch,6,?,5");
 *   EXPECT_FAIL("conv", "bad_group", NNS_E_SHAPE);
 *
 * Every check reports through check_fail() with the caller's file and line.
 */
#ifndef NNS_TESTMODEL_H
#define NNS_TESTMODEL_H

#include "check.h"
#include "nnscan.h"
#include "ops/op.h"

/* ==== Loading ==== */

/* Steps after loading, for tm_load() and tm_load_path(). */
enum {
  TM_LOAD_ONLY = 0, /* just load the file */
  TM_INFER = 1,     /* then nns_model_infer */
};

/*
 * Loads the model at `path` (relative to the working directory, as given)
 * and runs `steps` (TM_INFER). Any failing step is a test failure and
 * returns NULL, the model freed.
 */
nns_model *tm_load_path(const char *path, unsigned steps);
/* nns_model_analyze (opts may be NULL); a failure is a test failure and
 * gives NULL. The caller frees the analysis (before the model). */
nns_analysis *tm_analyze(nns_model *m, const nns_analyze_options *opts);
/* Loads the model at `path` and analyses it: the analysis, whose model
 * tm_release() frees after it; NULL (a test failure) when a step fails. */
nns_analysis *tm_load_analysis(const char *path,
                               const nns_analyze_options *opts);
void tm_release(nns_analysis *a);

/* tm_load_path() of <check_dir()>/unit/models/<family>_<name>.onnx. */
nns_model *tm_load(const char *family, const char *name, unsigned steps);

/*
 * Loads unit/models/<family>_<name>.onnx into *out and infers it; returns
 * the inference status, for tests that expect an error. A model that does
 * not load is a test failure: *out is NULL and the status NNS_E_IO. `err`
 * may be NULL.
 */
nns_status tm_run(const char *family, const char *name, nns_model **out,
                  nns_error *err);

/* ==== Checking values ==== */

#define TM_ANY_DTYPE (-1) /* tm_expect: do not check the dtype */
#define TM_ANY_KIND (-1)  /* tm_expect: do not check the kind */

/*
 * Checks value `name` of m: its dtype (unless TM_ANY_DTYPE), its kind
 * (unless TM_ANY_KIND) and its shape `spec`, comma-separated dims where
 * each is
 *
 *   a number   that known dim;
 *   a name     an unknown dim carrying that symbol ("batch", "2*batch");
 *   "?"        any unknown dim, with or without a symbol;
 *   "_"        an unknown dim without a symbol.
 *
 * "" is a scalar and NULL an unknown rank.
 */
void tm_expect(const char *file, int line, nns_model *m, const char *name,
               int dtype, int kind, const char *spec);

#define EXPECT_SHAPE(m, name, dtype, spec)                                     \
  tm_expect(__FILE__, __LINE__, m, name, dtype, TM_ANY_KIND, spec)
#define EXPECT_TENSOR(m, name, dtype, spec)                                    \
  tm_expect(__FILE__, __LINE__, m, name, dtype, NNS_KIND_TENSOR, spec)
#define EXPECT_KIND(m, name, dtype, kind, spec)                                \
  tm_expect(__FILE__, __LINE__, m, name, dtype, kind, spec)

/* Checks that unit/models/<family>_<name>.onnx loads and that its
 * inference fails with `code`. */
void tm_expect_fail(const char *file, int line, const char *family,
                    const char *name, nns_status code);

#define EXPECT_FAIL(family, name, code)                                        \
  tm_expect_fail(__FILE__, __LINE__, family, name, code)

/* ==== Calling a node's rules ==== */

/* What tm_node_cost() and tm_node_rf() return for a node without the rule
 * (not an nns_status any rule returns). */
#define TM_NO_RULE ((nns_status)-3)

/* The node of the main graph named `name`, or NULL (also when m is). */
nns__node *tm_find_node(nns_model *m, const char *name);

/* The rule context of node n, as the inference driver and the analysis
 * build it; `err` may be NULL. */
nns__ictx tm_node_ctx(nns_model *m, nns__node *n, nns_error *err);

/* Runs n's cost rule into *c (zeroed first); TM_NO_RULE when it has none,
 * NNS_E_NOTFOUND when n is NULL (tm_find_node found nothing). */
nns_status tm_node_cost(nns_model *m, nns__node *n, nns__cost *c);

/* Runs n's receptive-field rule from `in`; TM_NO_RULE, *out untouched, when
 * it has none, NNS_E_NOTFOUND when n is NULL. */
nns_status tm_node_rf(nns_model *m, nns__node *n, const nns_rf *in,
                      nns_rf *out);

/*
 * Checks the static cost of node `name`: its rule succeeds with exactly
 * these FLOPs, MACs and DMAs and raises no flag (symbolic, overflow,
 * partial, unbounded).
 */
void tm_expect_cost(const char *file, int line, nns_model *m,
                    const char *name, int64_t flops, int64_t macs,
                    int64_t dmas);

#define EXPECT_COST(m, name, flops, macs, dmas)                                \
  tm_expect_cost(__FILE__, __LINE__, m, name, flops, macs, dmas)

/* ==== Reading results ==== */

/* A layer row with its counts and receptive field (nns_analysis_layer,
 * nns_analysis_layer_counts, nns_analysis_layer_rf), as the tests read it; a bad
 * index gives a zeroed row with "" names and (size_t)-1 indexes. */
typedef struct tm_layer {
  const char *name, *path;
  int depth;
  size_t parent, child_count;
  const char *type, *op_types;
  size_t input_value, output_value, call_count;
  nns_counts counts;
  nns_rf rf;
} tm_layer;
tm_layer tm_layer_at(const nns_analysis *a, size_t i);

/* nns_analysis_totals with the total counts and field, zero for a NULL
 * analysis. */
typedef struct tm_totals {
  nns_counts all;
  nns_rf rf;
  int64_t params_unique, param_bytes_unique, constants;
  int64_t peak_activation_bytes;
  const char *peak_node;
  int64_t input_bytes;
  nns_optimizer optimizer;
  int64_t train_param_bytes, train_grad_bytes, train_optimizer_bytes;
  int64_t train_activation_bytes, train_total_bytes;
} tm_totals;
tm_totals tm_totals_of(const nns_analysis *a);

/* nns_model_find_value's index, or (size_t)-1. */
size_t tm_find(const nns_model *m, const char *name);
/* nns_model_value_dim; {-1, NULL} when it fails. */
nns_dim tm_dim(const nns_model *m, size_t i, int axis);
/* nns_model_input's value index, or (size_t)-1. */
size_t tm_input(const nns_model *m, size_t k);
/* nns_analysis_layer_class; NULL when it fails or the layer has none. */
const char *tm_layer_class(const nns_analysis *a, size_t i);
/* nns_model_warning; "" when it fails. */
const char *tm_warning(const nns_model *m, size_t i);
/* nns_analysis_warning; "" when it fails. */
const char *tm_analysis_warning(const nns_analysis *a, size_t i);
/* nns_op_ctx_input_dim / output_dim; {-1, NULL} when it fails. */
nns_dim tm_ctx_in_dim(const nns_op_ctx *cx, size_t i, int axis);
nns_dim tm_ctx_out_dim(const nns_op_ctx *cx, size_t i, int axis);

/* The summary JSON of an analysis, every depth (malloc'd; NULL and
 * a check failure when the report fails). */
char *tm_summary_json(const nns_analysis *a);
/* Cuts the "warnings" list out of a summary JSON (compared apart). */
void tm_cut_warnings(char *json);
/* Analyses `built` and checks that its summary JSON (warnings apart) and
 * node count equal those of the ONNX file at `onnx` (a whole summary, not
 * an empty one); names the first differing byte. Frees `built`. */
void tm_expect_same_summary(nns_model *built, const char *onnx,
                            const char *what);

#endif
