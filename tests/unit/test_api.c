/*
 * test_api.c - nothing a caller can crash, and an ABI that can grow.
 *
 * Every function include/nnscan.h exports is called with bad arguments
 * (NULL handles, NULL outs, indexes out of range, struct sizes below the
 * first version, calls in the wrong order) and must answer with the status
 * the header promises, leaving the caller's out struct alone. The table
 * below names each export with its check; test_every_export_is_checked
 * reads the header and fails when an NNS_API declaration has no entry (the
 * `api_exports` test checks that the shared library exports nothing the
 * header does not declare). The ABI tests hand the library structs larger
 * and smaller than it knows and arrays strided by a newer caller's size.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

#define MODEL "unit/models/analyze_residual.onnx"
#define NONE ((size_t)-1)

static nns_error err;

/* A model loaded but neither inferred nor analysed, and an analysis of
 * it (whose model release() frees after it). */
static nns_model *loaded(void) { return tm_load_path(MODEL, TM_LOAD_ONLY); }
static nns_analysis *analysed(void) {
  return tm_analyze(tm_load_path(MODEL, TM_LOAD_ONLY), NULL);
}
static void release(nns_analysis *a) {
  nns_model *m = (nns_model *)nns_analysis_model(a);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* A struct filled with 0xAB, to see that a failed call wrote nothing. */
#define SENTINEL(x) memset(&(x), 0xAB, sizeof(x))
static bool untouched(const void *p, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (((const unsigned char *)p)[i] != 0xAB)
      return false;
  return true;
}

/* Checks that `call` on a sized struct `x` (with size set by the caller
 * first) fails with E_ARG when the size is one byte below the first
 * version, and then leaves the struct alone. */
#define EXPECT_SMALL_SIZE(x, call)                                             \
  do {                                                                         \
    SENTINEL(x);                                                               \
    (x).size = 1;                                                              \
    CHECK_EQ((call), NNS_E_ARG);                                               \
    CHECK(untouched(&(x), sizeof(size_t), sizeof(x)));                         \
  } while (0)

/* ==== Per export ==== */

static void c_version(void) {
  CHECK_STR(nns_version(), NNS_VERSION_STRING);
}
static void c_abi_version(void) {
  CHECK_EQ(nns_abi_version(), NNS_ABI_VERSION);
}
static void c_status_name(void) {
  CHECK_STR(nns_status_name((nns_status)999), "NNS_E_UNKNOWN");
  CHECK_STR(nns_status_name((nns_status)-7), "NNS_E_UNKNOWN");
}
static void c_status_message(void) {
  CHECK(nns_status_message((nns_status)999) != NULL);
}
static void c_dtype_name(void) {
  CHECK_STR(nns_dtype_name(-1), "unknown");
  CHECK_STR(nns_dtype_name(1 << 20), "unknown");
}
static void c_param_kind_name(void) {
  /* The words docs/json.md gives, numbered as the enum; NULL past them. */
  static const char *const want[] = {"trainable", "buffer", "constant",
                                     "frozen"};
  for (int i = 0; i < 4; i++)
    CHECK_STR(nns_param_kind_name(i), want[i]);
  CHECK(nns_param_kind_name(-1) == NULL);
  CHECK(nns_param_kind_name(4) == NULL);
  CHECK(nns_param_kind_name(1 << 20) == NULL);
}
static void c_optimizer_name(void) {
  static const char *const want[] = {"sgd", "momentum", "adam", "adamw"};
  for (int i = 0; i < 4; i++)
    CHECK_STR(nns_optimizer_name(i), want[i]);
  CHECK(nns_optimizer_name(-1) == NULL);
  CHECK(nns_optimizer_name(4) == NULL);
}
/* The report and inspection words, from their X-macro lists: every entry
 * named, nothing past the ends. */
static void c_report_format_name(void) {
  CHECK_STR(nns_report_format_name(NNS_FORMAT_TEXT), "text");
  CHECK_STR(nns_report_format_name(NNS_FORMAT_HTML), "html");
  CHECK_STR(nns_report_format_name(NNS_FORMAT_LAYERS_MD), "layers_md");
  CHECK_STR(nns_report_format_name(NNS_FORMAT_LAYERS_JSON), "layers_json");
  CHECK(nns_report_format_name(-1) == NULL);
  CHECK(nns_report_format_name(NNS_FORMAT_LAYERS_JSON + 1) == NULL);
}
/* thop's and thoplw's words, nothing past the ends. */
static void c_count_style_name(void) {
  CHECK_STR(nns_count_style_name(NNS_COUNT_STYLE_THOP), "thop");
  CHECK_STR(nns_count_style_name(NNS_COUNT_STYLE_THOPLW), "thoplw");
  CHECK(nns_count_style_name(-1) == NULL);
  CHECK(nns_count_style_name(2) == NULL);
}
static void c_numbers_name(void) {
  static const char *const want[] = {"raw", "clever", "ratio"};
  for (int i = 0; i < 3; i++)
    CHECK_STR(nns_numbers_name(i), want[i]);
  CHECK(nns_numbers_name(-1) == NULL);
  CHECK(nns_numbers_name(3) == NULL);
}
static void c_wrap_name(void) {
  static const char *const want[] = {"middle", "start", "end"};
  for (int i = 0; i < 3; i++)
    CHECK_STR(nns_wrap_name(i), want[i]);
  CHECK(nns_wrap_name(-1) == NULL);
  CHECK(nns_wrap_name(3) == NULL);
}
/* The column words against the NNS_COL_* constants they name, and "all"
 * as the header documents it (the first eight columns). */
static void c_column_name(void) {
  static const struct {
    const char *word;
    unsigned bit;
  } want[] = {{"params", NNS_COL_PARAMS}, {"buffers", NNS_COL_BUFFERS},
              {"flops", NNS_COL_FLOPS},   {"macs", NNS_COL_MACS},
              {"dmas", NNS_COL_DMAS},     {"rf", NNS_COL_RF},
              {"act", NNS_COL_ACT},       {"pct", NNS_COL_PCT},
              {"bytes", NNS_COL_BYTES},   {"roof", NNS_COL_ROOF},
              {"rf_field", NNS_COL_RF_FIELD},
              {"rf_stats", NNS_COL_RF_STATS}, {"saved", NNS_COL_SAVED}};
  int n = (int)(sizeof want / sizeof *want);
  for (int i = 0; i < n; i++) {
    CHECK_STR(nns_column_name(i), want[i].word);
    CHECK_EQ(1u << i, want[i].bit);
  }
  CHECK(nns_column_name(-1) == NULL);
  CHECK(nns_column_name(n) == NULL);
}
static void c_column_flags(void) {
  unsigned all = 0;
  for (int i = 0; nns_column_name(i); i++)
    if (nns_column_flags(i) & NNS_COLUMN_IN_ALL)
      all |= 1u << i;
  CHECK_EQ(all, 0xffu);
  CHECK_EQ((unsigned)NNS_COL_ALL, 0xffu);
  CHECK(nns_column_flags(0) & NNS_COLUMN_ASKED); /* params */
  CHECK(!(nns_column_flags(12) & NNS_COLUMN_ASKED)); /* saved: never asked */
  CHECK_EQ(nns_column_flags(-1), 0u);
  int past = 0; /* past the last word */
  while (nns_column_name(past))
    past++;
  CHECK_EQ(nns_column_flags(past), 0u);
}
/* The count flags' words as the v1 JSON writes them, and the metrics each
 * leaves partial as docs/json.md states the rule. */
static void c_count_flag_name(void) {
  CHECK_STR(nns_count_flag_name(0), "partial");
  CHECK_EQ((unsigned)NNS_COUNT_PARTIAL, 1u << 0);
  CHECK_STR(nns_count_flag_name(1), "symbolic");
  CHECK_EQ((unsigned)NNS_COUNT_SYMBOLIC, 1u << 1);
  CHECK_STR(nns_count_flag_name(2), "shared");
  CHECK_STR(nns_count_flag_name(3), "unbounded");
  CHECK_STR(nns_count_flag_name(4), "saturated");
  CHECK_EQ((unsigned)NNS_COUNT_OVERFLOW, 1u << 4);
  CHECK(nns_count_flag_name(-1) == NULL);
  CHECK(nns_count_flag_name(5) == NULL);
}
/* The metrics, past the last: those of this list keep their numbers and
 * keys (documents and diff read them by key, Python by number); a metric
 * added later comes after them. */
static int metric_count(void) {
  int n = 0;
  while (nns_metric_name(n))
    n++;
  return n;
}
static void c_metric_name(void) {
  static const char *const want[] = {"params", "buffers", "frozen",
                                     "param_bytes", "flops", "macs", "dmas",
                                     "activation_bytes"};
  CHECK(metric_count() >= 8);
  for (int i = 0; i < 8; i++)
    CHECK_STR(nns_metric_name(i), want[i]);
  CHECK(nns_metric_name(-1) == NULL);
  CHECK(nns_metric_name(INT_MAX) == NULL);
}
/* Every metric says what it counts (the schemas and docs/json.md are
 * written from it): a phrase, none twice. */
static void c_metric_description(void) {
  int n = metric_count();
  for (int i = 0; i < n; i++) {
    const char *d = nns_metric_description(i);
    CHECK(d && strlen(d) > 4);
    for (int j = 0; j < i; j++)
      CHECK(strcmp(d, nns_metric_description(j)) != 0);
  }
  CHECK(nns_metric_description(-1) == NULL);
  CHECK(nns_metric_description(n) == NULL);
}
/* docs/json.md: of version 1's counts only frozen was grown after its
 * first ones (written after "flags", only when not zero). */
static void c_metric_flags(void) {
  for (int i = 0; i < 8; i++)
    CHECK_EQ(nns_metric_flags(i), i == 2 ? NNS_METRIC_V1_GROWN : 0u);
  CHECK_EQ(nns_metric_flags(-1), 0u);
  CHECK_EQ(nns_metric_flags(metric_count()), 0u);
}
static void c_metrics_partial(void) {
  unsigned cost = 1u << 4 | 1u << 5 | 1u << 6; /* flops, macs, dmas */
  unsigned first = 0xffu, all = (1u << metric_count()) - 1;
  CHECK_EQ(nns_metrics_partial(0), 0u);
  CHECK_EQ(nns_metrics_partial(NNS_COUNT_SHARED), 0u);
  CHECK_EQ(nns_metrics_partial(NNS_COUNT_PARTIAL) & first, cost);
  CHECK_EQ(nns_metrics_partial(NNS_COUNT_SYMBOLIC) & first, cost | 1u << 7);
  CHECK_EQ(nns_metrics_partial(NNS_COUNT_UNBOUNDED) & first, cost | 1u << 7);
  CHECK_EQ(nns_metrics_partial(NNS_COUNT_OVERFLOW), all);
  CHECK_EQ(nns_metrics_partial(~0u), all);
}
static void c_tensor_role_name(void) {
  CHECK_STR(nns_tensor_role_name(NNS_TENSOR_INPUT), "input");
  CHECK_STR(nns_tensor_role_name(NNS_TENSOR_GRAD_OUTPUT), "grad_output");
  CHECK(nns_tensor_role_name(-1) == NULL);
  CHECK(nns_tensor_role_name(NNS_TENSOR_GRAD_OUTPUT + 1) == NULL);
}
static void c_nonfinite_role_name(void) {
  CHECK(nns_nonfinite_role_name(NNS_NONFINITE_NONE) == NULL);
  CHECK_STR(nns_nonfinite_role_name(NNS_NONFINITE_PRODUCER), "producer");
  CHECK_STR(nns_nonfinite_role_name(NNS_NONFINITE_PROPAGATOR), "propagator");
  CHECK(nns_nonfinite_role_name(-1) == NULL);
  CHECK(nns_nonfinite_role_name(NNS_NONFINITE_PROPAGATOR + 1) == NULL);
}
static void c_packed_record_name(void) {
  CHECK_STR(nns_packed_record_name(NNS_PACKED_IR_VERSION), "ir_version");
  CHECK_STR(nns_packed_record_name(NNS_PACKED_MODULE_TENSOR), "module_tensor");
  CHECK_STR(nns_packed_record_name(NNS_PACKED_ATEN), "aten");
  CHECK_STR(nns_packed_record_name(NNS_PACKED_NAMES), "names");
  CHECK(nns_packed_record_name(0) == NULL);
  CHECK(nns_packed_record_name(-1) == NULL);
  CHECK_STR(nns_packed_record_name(NNS_PACKED_OBSERVED_SHAPE),
            "observed_shape");
  CHECK_STR(nns_packed_record_name(NNS_PACKED_DEFERRED_NAMES),
            "deferred_names");
  CHECK_STR(nns_packed_record_name(NNS_PACKED_REPLAY), "replay");
  CHECK_STR(nns_packed_record_name(NNS_PACKED_DROPPED), "dropped");
  CHECK(nns_packed_record_name(NNS_PACKED_DROPPED + 1) == NULL);
}
static void c_train_phase_name(void) {
  static const char *const want[] = {"forward", "backward", "optimizer"};
  for (int i = 0; i < 3; i++)
    CHECK_STR(nns_train_phase_name(i), want[i]);
  CHECK(nns_train_phase_name(-1) == NULL);
  CHECK(nns_train_phase_name(3) == NULL);
}
static void c_dtype_bits(void) {
  CHECK_EQ(nns_dtype_bits(-1), 0);
  CHECK_EQ(nns_dtype_bits(NNS_DT_STRING), 0);
}

static void c_load_file(void) {
  nns_model *m = (nns_model *)&err; /* must be set to NULL on failure */
  CHECK_EQ(nns_model_load_file(NULL, NULL, &m, &err), NNS_E_ARG);
  CHECK(m == NULL);
  CHECK_EQ(nns_model_load_file(MODEL, NULL, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_load_file("no/such/file.onnx", NULL, &m, &err),
           NNS_E_IO);
  nns_load_options o = {.size = 3};
  CHECK_EQ(nns_model_load_file(MODEL, &o, &m, &err), NNS_E_ARG);
  o = (nns_load_options){.size = sizeof o, .max_depth = -1};
  CHECK_EQ(nns_model_load_file(MODEL, &o, &m, &err), NNS_E_ARG);
  CHECK(m == NULL);
}
static void c_load_memory(void) {
  nns_model *m = NULL;
  CHECK_EQ(nns_model_load_memory(NULL, 10, NULL, &m, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_load_memory("x", 1, NULL, NULL, &err), NNS_E_ARG);
  nns_load_options o = {.size = 0};
  CHECK_EQ(nns_model_load_memory("x", 1, &o, &m, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_load_memory(NULL, 0, NULL, &m, &err), NNS_E_MODEL);
  CHECK(m == NULL);
}
static void c_model_free(void) { nns_model_free(NULL); }

/* Every builder call refuses a NULL builder. */
static void c_builder_new(void) {
  CHECK_EQ(nns_builder_new(NULL, &err), NNS_E_ARG);
}
static void c_builder_free(void) { nns_builder_free(NULL); }
static void c_builder_set_ir_version(void) {
  CHECK_EQ(nns_builder_set_ir_version(NULL, 8, &err), NNS_E_ARG);
}
static void c_builder_set_producer(void) {
  CHECK_EQ(nns_builder_set_producer(NULL, "a", "b", &err), NNS_E_ARG);
}
static void c_builder_set_graph_name(void) {
  CHECK_EQ(nns_builder_set_graph_name(NULL, "g", &err), NNS_E_ARG);
}
static void c_builder_add_opset(void) {
  CHECK_EQ(nns_builder_add_opset(NULL, "", 17, &err), NNS_E_ARG);
}
static void c_builder_add_metadata(void) {
  CHECK_EQ(nns_builder_add_metadata(NULL, "k", "v", &err), NNS_E_ARG);
}
static void c_builder_add_input(void) {
  CHECK_EQ(nns_builder_add_input(NULL, "x", 1, -1, NULL, NULL, &err),
           NNS_E_ARG);
}
static void c_builder_add_output(void) {
  CHECK_EQ(nns_builder_add_output(NULL, "x", 1, -1, NULL, NULL, &err),
           NNS_E_ARG);
}
static void c_builder_add_value_info(void) {
  CHECK_EQ(nns_builder_add_value_info(NULL, "x", 1, -1, NULL, NULL, &err),
           NNS_E_ARG);
}
static void c_builder_add_initializer(void) {
  CHECK_EQ(nns_builder_add_initializer(NULL, "w", 1, 0, NULL, NULL, 0, &err),
           NNS_E_ARG);
}
static void c_builder_add_node(void) {
  CHECK_EQ(nns_builder_add_node(NULL, "Relu", "", "", NULL, NULL, 0, NULL, 0,
                                &err), NNS_E_ARG);
}
static void c_builder_attr_int(void) {
  CHECK_EQ(nns_builder_attr_int(NULL, "a", 1, &err), NNS_E_ARG);
}
static void c_builder_attr_float(void) {
  CHECK_EQ(nns_builder_attr_float(NULL, "a", 1, &err), NNS_E_ARG);
}
static void c_builder_attr_string(void) {
  CHECK_EQ(nns_builder_attr_string(NULL, "a", "s", 1, &err), NNS_E_ARG);
}
static void c_builder_attr_ints(void) {
  CHECK_EQ(nns_builder_attr_ints(NULL, "a", NULL, 0, &err), NNS_E_ARG);
}
static void c_builder_attr_floats(void) {
  CHECK_EQ(nns_builder_attr_floats(NULL, "a", NULL, 0, &err), NNS_E_ARG);
}
static void c_builder_attr_strings(void) {
  CHECK_EQ(nns_builder_attr_strings(NULL, "a", NULL, 0, &err), NNS_E_ARG);
}
static void c_builder_attr_tensor(void) {
  CHECK_EQ(nns_builder_attr_tensor(NULL, "a", NNS_ATTR_TENSOR, 1, 0, NULL,
                                   NULL, 0, &err), NNS_E_ARG);
}
static void c_builder_attr_type(void) {
  CHECK_EQ(nns_builder_attr_type(NULL, "a", NNS_ATTR_TYPE_PROTO, 1, 0, NULL,
                                 NULL, &err), NNS_E_ARG);
}
static void c_builder_begin_graph(void) {
  CHECK_EQ(nns_builder_begin_graph(NULL, "g", NNS_ATTR_GRAPH, &err),
           NNS_E_ARG);
}
static void c_builder_end_graph(void) {
  CHECK_EQ(nns_builder_end_graph(NULL, &err), NNS_E_ARG);
}
static void c_builder_mark_kernel(void) {
  CHECK_EQ(nns_builder_mark_kernel(NULL, 0, 2, &err), NNS_E_ARG);
}
static void c_builder_add_packed(void) {
  static const char head[8] = {'N', 'N', 'S', 'P', 1, 0, 0, 0};
  CHECK_EQ(nns_builder_add_packed(NULL, head, sizeof head, &err), NNS_E_ARG);
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_packed(b, NULL, 8, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_add_packed(b, head, 4, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_add_packed(b, head, sizeof head, NULL), NNS_OK);
  nns_builder_free(b);
}
static void c_builder_packed_name(void) {
  const char *out = NULL;
  CHECK_EQ(nns_builder_packed_name(NULL, "v1", &out, &err), NNS_E_ARG);
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_packed_name(b, NULL, &out, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_packed_name(b, "v1", NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_packed_name(b, "\2v1", &out, NULL), NNS_OK);
  CHECK_STR(out, "\2v1"); /* no deferred numbering: itself */
  nns_builder_free(b);
}
/* (the entries of a deferred form: test_deferred.c) */
static void c_builder_packed_entries(void) {
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  size_t at = 0, n = 0;
  CHECK_EQ(nns_builder_packed_entries(NULL, 0, 0, &at, &n, &err), NNS_E_ARG);
  /* nothing packed with deferred numbering: no entries to ask of */
  CHECK_EQ(nns_builder_packed_entries(b, 0, 0, &at, &n, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_packed_entries(b, 0, 0, &at, NULL, NULL), NNS_E_ARG);
  nns_builder_free(b);
}
static void c_builder_finish(void) {
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(NULL, &m, &err), NNS_E_ARG);
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_finish(b, NULL, &err), NNS_E_ARG);
  nns_builder_free(b);
}

static void c_model_infer(void) {
  CHECK_EQ(nns_model_infer(NULL, NULL, &err), NNS_E_ARG);
  nns_model *m = loaded();
  nns_infer_options o = {.size = 1};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG);
  o = (nns_infer_options){.size = sizeof o, .input_count = 1};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG); /* inputs NULL */
  nns_input_shape in = {.size = 2, .name = "x"};
  o.inputs = &in;
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG); /* element size */
  in = (nns_input_shape){.size = sizeof in, .name = NULL, .rank = 1};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG); /* name NULL */
  in = (nns_input_shape){.size = sizeof in, .name = "x", .rank = 2};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG); /* dims NULL */
  o = (nns_infer_options){.size = sizeof o, .batch = -1};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG);
  int64_t one = 1;
  nns_input_value iv = {.size = 3, .name = "x", .data = &one, .count = 1};
  o = (nns_infer_options){.size = sizeof o, .values = &iv, .value_count = 1};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG); /* element size */
  o.values = NULL;
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_E_ARG); /* values NULL */
  nns_model_free(m);
}
static void c_model_state(void) {
  CHECK_EQ(nns_model_state(NULL), 0u);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_state(m), 0u);
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_state(m), (unsigned)NNS_STATE_INFERRED);
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_model_state(m),
           (unsigned)(NNS_STATE_INFERRED | NNS_STATE_ANALYZED));
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_state(m), (unsigned)NNS_STATE_INFERRED);
  nns_analysis_free(a);
  nns_model_free(m);
}
static void c_get_info(void) {
  nns_model_info x = {.size = sizeof x};
  CHECK_EQ(nns_model_get_info(NULL, &x), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_get_info(m, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_model_get_info(m, &x));
  nns_model_free(m);
}

/* An indexed pair of (count, accessor with two outs). */
static void c_opset_count(void) { CHECK_EQ(nns_model_opset_count(NULL), 0); }
static void c_opset(void) {
  const char *d;
  int64_t v;
  CHECK_EQ(nns_model_opset(NULL, 0, &d, &v), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_opset(m, nns_model_opset_count(m), &d, &v), NNS_E_ARG);
  CHECK_EQ(nns_model_opset(m, 0, NULL, &v), NNS_E_ARG);
  CHECK_EQ(nns_model_opset(m, 0, &d, NULL), NNS_E_ARG);
  CHECK_EQ(nns_model_opset(m, NONE, &d, &v), NNS_E_ARG);
  nns_model_free(m);
}
static void c_metadata_count(void) {
  CHECK_EQ(nns_model_metadata_count(NULL), 0);
}
static void c_metadata(void) {
  const char *k, *v;
  CHECK_EQ(nns_model_metadata(NULL, 0, &k, &v), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_metadata(m, nns_model_metadata_count(m), &k, &v),
           NNS_E_ARG);
  nns_model_free(m);
}
static void c_value_count(void) { CHECK_EQ(nns_model_value_count(NULL), 0); }
static void c_value(void) {
  nns_value_info x = {.size = sizeof x};
  CHECK_EQ(nns_model_value(NULL, 0, &x), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_value(m, nns_model_value_count(m), &x), NNS_E_ARG);
  CHECK_EQ(nns_model_value(m, 0, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_model_value(m, 0, &x));
  nns_model_free(m);
}
static void c_value_dim(void) {
  nns_dim d = {.size = sizeof d};
  CHECK_EQ(nns_model_value_dim(NULL, 0, 0, &d), NNS_E_ARG);
  nns_model *m = tm_load_path(MODEL, TM_INFER);
  size_t x = tm_find(m, "x");
  CHECK_EQ(nns_model_value_dim(m, x, -1, &d), NNS_E_ARG);
  CHECK_EQ(nns_model_value_dim(m, x, 4, &d), NNS_E_ARG); /* rank 4 */
  CHECK_EQ(nns_model_value_dim(m, NONE, 0, &d), NNS_E_ARG);
  CHECK_EQ(nns_model_value_dim(m, x, 0, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(d, nns_model_value_dim(m, x, 0, &d));
  nns_model_free(m);
}
static void c_find_value(void) {
  size_t i = 7;
  CHECK_EQ(nns_model_find_value(NULL, "x", &i), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_find_value(m, NULL, &i), NNS_E_ARG);
  CHECK_EQ(nns_model_find_value(m, "x", NULL), NNS_E_ARG);
  CHECK_EQ(nns_model_find_value(m, "no such value", &i), NNS_E_NOTFOUND);
  CHECK_EQ(i, 7);
  nns_model_free(m);
}
static void c_shape_mismatches(void) {
  size_t n = 7;
  const char *names[1] = {NULL};
  CHECK_EQ(nns_model_shape_mismatches(NULL, names, 1, &n, NULL), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_shape_mismatches(m, NULL, 1, &n, NULL), NNS_E_ARG);
  CHECK_EQ(nns_model_shape_mismatches(m, names, 1, NULL, NULL), NNS_E_ARG);
  CHECK_EQ(n, 7);
  /* a loaded file observed nothing: nothing differs */
  CHECK_EQ(nns_model_shape_mismatches(m, names, 1, &n, NULL), NNS_OK);
  CHECK_EQ(n, 0);
  CHECK(names[0] == NULL);
  nns_model_free(m);
}
static void c_input_count(void) { CHECK_EQ(nns_model_input_count(NULL), 0); }
static void c_input(void) {
  size_t v;
  CHECK_EQ(nns_model_input(NULL, 0, &v), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_input(m, nns_model_input_count(m), &v), NNS_E_ARG);
  CHECK_EQ(nns_model_input(m, 0, NULL), NNS_E_ARG);
  nns_model_free(m);
}
static void c_output_count(void) { CHECK_EQ(nns_model_output_count(NULL), 0); }
static void c_output(void) {
  size_t v;
  CHECK_EQ(nns_model_output(NULL, 0, &v), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_output(m, nns_model_output_count(m), &v), NNS_E_ARG);
  CHECK_EQ(nns_model_output(m, 0, NULL), NNS_E_ARG);
  nns_model_free(m);
}
static void c_node_count(void) { CHECK_EQ(nns_model_node_count(NULL), 0); }
static void c_node(void) {
  nns_node_info x = {.size = sizeof x};
  CHECK_EQ(nns_model_node(NULL, 0, &x), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_node(m, nns_model_node_count(m), &x), NNS_E_ARG);
  CHECK_EQ(nns_model_node(m, 0, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_model_node(m, 0, &x));
  /* Before analysis: structure yes, module path not yet. */
  x.size = sizeof x;
  CHECK_EQ(nns_model_node(m, 0, &x), NNS_OK);
  CHECK_STR(x.module_path, "");
  CHECK_EQ(x.layer, NONE);
  CHECK_EQ(x.flags & NNS_NODE_RULE, 0u);
  nns_model_free(m);
}
static void c_node_input(void) {
  size_t v;
  CHECK_EQ(nns_model_node_input(NULL, 0, 0, &v), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_node_input(m, NONE, 0, &v), NNS_E_ARG);
  CHECK_EQ(nns_model_node_input(m, 0, 99, &v), NNS_E_ARG);
  CHECK_EQ(nns_model_node_input(m, 0, 0, NULL), NNS_E_ARG);
  nns_model_free(m);
}
static void c_node_output(void) {
  size_t v;
  CHECK_EQ(nns_model_node_output(NULL, 0, 0, &v), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_node_output(m, 0, 99, &v), NNS_E_ARG);
  CHECK_EQ(nns_model_node_output(m, 0, 0, NULL), NNS_E_ARG);
  nns_model_free(m);
}
static void c_unknown_op_count(void) {
  CHECK_EQ(nns_model_unknown_op_count(NULL), 0);
}
static void c_unknown_op(void) {
  const char *d, *o;
  size_t n;
  CHECK_EQ(nns_model_unknown_op(NULL, 0, &d, &o, &n), NNS_E_ARG);
  nns_model *m = tm_load_path(MODEL, TM_INFER);
  CHECK_EQ(nns_model_unknown_op(m, 0, &d, &o, &n), NNS_E_ARG); /* none */
  nns_model_free(m);
}
static void c_warning_count(void) {
  CHECK_EQ(nns_model_warning_count(NULL), 0);
}
static void c_warning(void) {
  const char *w = "kept";
  CHECK_EQ(nns_model_warning(NULL, 0, &w), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_warning(m, nns_model_warning_count(m), &w), NNS_E_ARG);
  CHECK_STR(w, "kept");
  nns_model_free(m);
}
static void c_set_module(void) {
  CHECK_EQ(nns_model_set_module(NULL, "a", "B", 1, &err), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_set_module(m, "a", NULL, 1, &err), NNS_E_ARG);
  nns_model_free(m);
}
static void c_set_module_macs(void) {
  CHECK_EQ(nns_model_set_module_macs(NULL, "a", 1, &err), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_set_module_macs(m, NULL, 1, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_macs(m, "a", -1, &err), NNS_E_ARG);
  nns_model_free(m);
}
static void c_set_module_shapes(void) {
  int64_t d[2] = {1, 8}, neg[1] = {-1};
  CHECK_EQ(nns_model_set_module_shapes(NULL, "a", d, 2, d, 2, &err),
           NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_set_module_shapes(m, NULL, d, 2, d, 2, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_shapes(m, "a", d, 2, d, 2, &err),
           NNS_E_NOTFOUND); /* never declared */
  CHECK_EQ(nns_model_set_module(m, "a", "A", 1, &err), NNS_OK);
  CHECK_EQ(nns_model_set_module_shapes(m, "a", NULL, 2, d, 2, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_shapes(m, "a", d, -2, d, 2, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_shapes(m, "a", d, 2, d, 65, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_shapes(m, "a", neg, 1, d, 2, &err),
           NNS_E_ARG);
  nns_model_free(m);
}
static void c_module_count(void) {
  CHECK_EQ(nns_model_module_count(NULL), 0);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_module_count(m), 0);
  nns_model_free(m);
}
static void c_module(void) {
  nns_module_info d = {.size = sizeof d};
  CHECK_EQ(nns_model_module(NULL, 0, &d), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_module(m, 0, &d), NNS_E_ARG); /* none declared */
  CHECK_EQ(nns_model_set_module(m, "a", "A", 1, &err), NNS_OK);
  CHECK_EQ(nns_model_module(m, 0, NULL), NNS_E_ARG);
  CHECK_EQ(nns_model_module(m, 1, &d), NNS_E_ARG);
  d.size = 1;
  CHECK_EQ(nns_model_module(m, 0, &d), NNS_E_ARG);
  nns_model_free(m);
}
static void c_set_experts(void) {
  CHECK_EQ(nns_model_set_experts(NULL, "a", 1, 2, 0, &err), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_set_experts(m, NULL, 1, 2, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_experts(m, "a", 2, 1, 0, &err), NNS_E_ARG);
  nns_model_free(m);
}
static void c_set_param_kind(void) {
  CHECK_EQ(nns_model_set_param_kind(NULL, "a", NNS_PARAM_BUFFER, &err),
           NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_set_param_kind(m, NULL, NNS_PARAM_BUFFER, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_model_set_param_kind(m, "x", (nns_param_kind)-1, &err),
           NNS_E_ARG);
  nns_model_free(m);
}
static void c_set_train_step(void) {
  nns_train_step t = {.size = sizeof t};
  CHECK_EQ(nns_model_set_train_step(NULL, &t, &err), NNS_E_ARG);
  nns_model *m = loaded();
  nns_train_step small = {.size = 1};
  CHECK_EQ(nns_model_set_train_step(m, &small, &err), NNS_E_ARG);
  t.event_count = 1; /* events without arrays or moments */
  CHECK_EQ(nns_model_set_train_step(m, &t, &err), NNS_E_ARG);
  int phase = 7;
  const char *word = "x";
  uint32_t at = 3;
  int64_t bytes = 1, minus = -2;
  nns_train_step bad = {.size = sizeof bad, .moment_count = 1,
                        .moment_phase = &phase, .moment_label = &word,
                        .moment_path = &word};
  CHECK_EQ(nns_model_set_train_step(m, &bad, &err), NNS_E_ARG); /* phase */
  phase = NNS_TRAIN_FORWARD;
  bad.event_count = 1;
  bad.event_moment = &at;
  bad.event_bytes = &bytes;
  CHECK_EQ(nns_model_set_train_step(m, &bad, &err), NNS_E_ARG); /* moment */
  at = 0;
  bad.budget_bytes = -1;
  CHECK_EQ(nns_model_set_train_step(m, &bad, &err), NNS_E_ARG);
  bad.budget_bytes = 0;
  bad.saved_count = 1;
  bad.saved_path = bad.saved_region = &word;
  bad.saved_bytes = &bytes;
  bad.saved_made = &minus; /* -2: no such event */
  bad.saved_freed = &minus;
  CHECK_EQ(nns_model_set_train_step(m, &bad, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_train_step(m, NULL, &err), NNS_OK); /* clears */
  nns_model_free(m);
}
static void c_train_info(void) {
  CHECK_EQ(nns_analysis_train_info(NULL, NULL, NULL, NULL, NULL), NNS_E_ARG);
  nns_analysis *a = analysed();
  const char *on = "x";
  CHECK_EQ(nns_analysis_train_info(a, NULL, &on, NULL, NULL), NNS_OK);
  CHECK(on == NULL); /* no step recorded */
  release(a);
}
static void c_checkpoint_count(void) {
  CHECK_EQ(nns_analysis_checkpoint_count(NULL), 0);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_checkpoint_count(a), 0);
  release(a);
}
static void c_checkpoint(void) {
  size_t l;
  CHECK_EQ(nns_analysis_checkpoint(NULL, 0, &l), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_checkpoint(a, 0, NULL), NNS_E_ARG);
  CHECK_EQ(nns_analysis_checkpoint(a, 0, &l), NNS_E_ARG);
  release(a);
}
static void c_set_parallel(void) {
  nns_parallel p = {.size = sizeof p, .fsdp = 2};
  CHECK_EQ(nns_model_set_parallel(NULL, &p, &err), NNS_E_ARG);
  nns_model *m = loaded();
  p.size = 4;
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  p = (nns_parallel){.size = sizeof p, .tp = 2, .tp_count = 1};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_parallel(m, NULL, &err), NNS_OK);
  nns_model_free(m);
}
static void c_tp_style_name(void) {
  CHECK(nns_tp_style_name(0) == NULL);
  CHECK(nns_tp_style_name(-1) == NULL);
}
static void c_comm_kind_name(void) {
  CHECK(nns_comm_kind_name(NNS_COMM_KIND_COUNT) == NULL);
  CHECK(nns_comm_kind_name(-1) == NULL);
}
static void c_per_rank(void) {
  nns_per_rank r = {.size = sizeof r};
  CHECK_EQ(nns_analysis_per_rank(NULL, &r), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_per_rank(a, NULL), NNS_E_ARG);
  r.size = 8;
  CHECK_EQ(nns_analysis_per_rank(a, &r), NNS_E_ARG);
  release(a);
}
static void c_layer_per_rank(void) {
  nns_per_rank r = {.size = sizeof r};
  CHECK_EQ(nns_analysis_layer_per_rank(NULL, 0, &r), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_layer_per_rank(a, 0, NULL), NNS_E_ARG);
  CHECK_EQ(nns_analysis_layer_per_rank(a, (size_t)-1, &r), NNS_E_ARG);
  release(a);
}
static void c_mesh_count(void) {
  CHECK_EQ(nns_analysis_mesh_count(NULL), 0);
}
static void c_mesh(void) {
  CHECK_EQ(nns_analysis_mesh(NULL, 0, NULL, NULL), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_mesh(a, 0, NULL, NULL), NNS_E_ARG);
  release(a);
}
static void c_analyze(void) {
  nns_analysis *a = (nns_analysis *)&err; /* set to NULL on failure */
  CHECK_EQ(nns_model_analyze(NULL, NULL, &a, &err), NNS_E_ARG);
  CHECK(a == NULL);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_analyze(m, NULL, NULL, &err), NNS_E_ARG);
  nns_analyze_options o = {.size = 1};
  CHECK_EQ(nns_model_analyze(m, &o, &a, &err), NNS_E_ARG);
  CHECK(a == NULL);
  o = (nns_analyze_options){.size = sizeof o,
                            .optimizer = (nns_optimizer)99};
  CHECK_EQ(nns_model_analyze(m, &o, &a, &err), NNS_E_ARG);
  nns_model_free(m);
}
static void c_analysis_free(void) { nns_analysis_free(NULL); }
static void c_analysis_model(void) {
  CHECK(nns_analysis_model(NULL) == NULL);
  nns_analysis *a = analysed();
  CHECK(nns_analysis_model(a) != NULL);
  release(a);
}
static void c_analysis_node(void) {
  nns_node_info x = {.size = sizeof x};
  CHECK_EQ(nns_analysis_node(NULL, 0, &x), NNS_E_ARG);
  nns_analysis *a = analysed();
  const nns_model *m = nns_analysis_model(a);
  CHECK_EQ(nns_analysis_node(a, nns_model_node_count(m), &x), NNS_E_ARG);
  CHECK_EQ(nns_analysis_node(a, 0, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_analysis_node(a, 0, &x));
  x.size = sizeof x;
  CHECK_EQ(nns_analysis_node(a, 0, &x), NNS_OK);
  CHECK(x.layer != NONE);
  CHECK(x.flags & NNS_NODE_COUNTED);
  release(a);
}
static void c_analysis_memory_count(void) {
  CHECK_EQ(nns_analysis_memory_count(NULL), 0);
}
static void c_analysis_memory_point(void) {
  int64_t b = 7;
  size_t l = 7;
  CHECK_EQ(nns_analysis_memory_point(NULL, 0, &b, &l), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_memory_point(a, nns_analysis_memory_count(a), &b, &l),
           NNS_E_ARG);
  CHECK_EQ(nns_analysis_memory_point(a, 0, NULL, &l), NNS_E_ARG);
  CHECK_EQ(nns_analysis_memory_point(a, 0, &b, NULL), NNS_E_ARG);
  CHECK_EQ(b, 7);
  CHECK_EQ(l, 7);
  release(a);
}
static void c_analysis_memory_peak(void) {
  CHECK_EQ(nns_analysis_memory_peak(NULL), NONE);
}
static void c_analysis_value(void) {
  nns_value_info x = {.size = sizeof x};
  CHECK_EQ(nns_analysis_value(NULL, 0, &x), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_value(a, NONE, &x), NNS_E_ARG);
  CHECK_EQ(nns_analysis_value(a, 0, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_analysis_value(a, 0, &x));
  release(a);
}
static void c_analysis_value_dim(void) {
  nns_dim d = {.size = sizeof d};
  CHECK_EQ(nns_analysis_value_dim(NULL, 0, 0, &d), NNS_E_ARG);
  nns_analysis *a = analysed();
  size_t x = tm_find(nns_analysis_model(a), "x");
  CHECK_EQ(nns_analysis_value_dim(a, x, -1, &d), NNS_E_ARG);
  CHECK_EQ(nns_analysis_value_dim(a, x, 4, &d), NNS_E_ARG); /* rank 4 */
  CHECK_EQ(nns_analysis_value_dim(a, NONE, 0, &d), NNS_E_ARG);
  CHECK_EQ(nns_analysis_value_dim(a, x, 0, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(d, nns_analysis_value_dim(a, x, 0, &d));
  release(a);
}
static void c_analysis_unknown_op_count(void) {
  CHECK_EQ(nns_analysis_unknown_op_count(NULL), 0);
}
static void c_analysis_unknown_op(void) {
  const char *d, *o;
  size_t n;
  CHECK_EQ(nns_analysis_unknown_op(NULL, 0, &d, &o, &n), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_unknown_op(a, 0, &d, &o, &n), NNS_E_ARG); /* none */
  release(a);
}
static void c_analysis_warning_count(void) {
  CHECK_EQ(nns_analysis_warning_count(NULL), 0);
}
static void c_analysis_warning(void) {
  const char *w = "kept";
  CHECK_EQ(nns_analysis_warning(NULL, 0, &w), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_analysis_warning(a, nns_analysis_warning_count(a), &w),
           NNS_E_ARG);
  CHECK_EQ(nns_analysis_warning(a, 0, NULL), NNS_E_ARG);
  CHECK_STR(w, "kept");
  release(a);
}

/* Analysis accessors: E_ARG for a NULL analysis, index or out. */
#define ANALYSIS_STRUCT(fn, type, v1_call, bad_index)                          \
  static void c_##fn(void) {                                                   \
    type x = {.size = sizeof x};                                               \
    CHECK_EQ(nns_analysis_##fn(NULL v1_call, &x), NNS_E_ARG);                     \
    nns_analysis *m = analysed();                                              \
    CHECK_EQ(nns_analysis_##fn(m v1_call, NULL), NNS_E_ARG);                      \
    EXPECT_SMALL_SIZE(x, nns_analysis_##fn(m v1_call, &x));                       \
    x.size = sizeof x;                                                         \
    bad_index                                                                  \
    release(m);                                                                \
  }
#define NOIDX
#define IDX0 , 0
#define NO_BAD_INDEX
#define BAD_INDEX(fn) CHECK_EQ(nns_analysis_##fn(m, (size_t)-1, &x), NNS_E_ARG);
ANALYSIS_STRUCT(totals, nns_totals, NOIDX, NO_BAD_INDEX)
ANALYSIS_STRUCT(total_counts, nns_counts, NOIDX, NO_BAD_INDEX)
ANALYSIS_STRUCT(total_rf, nns_rf, NOIDX, NO_BAD_INDEX)
ANALYSIS_STRUCT(op_type, nns_op_type_info, IDX0, BAD_INDEX(op_type))
ANALYSIS_STRUCT(op_type_counts, nns_counts, IDX0, BAD_INDEX(op_type_counts))
ANALYSIS_STRUCT(node_counts, nns_counts, IDX0, BAD_INDEX(node_counts))
ANALYSIS_STRUCT(param, nns_param_info, IDX0, BAD_INDEX(param))
ANALYSIS_STRUCT(layer, nns_layer_info, IDX0, BAD_INDEX(layer))
ANALYSIS_STRUCT(layer_counts, nns_counts, IDX0, BAD_INDEX(layer_counts))
ANALYSIS_STRUCT(layer_rf, nns_rf, IDX0, BAD_INDEX(layer_rf))

static void c_layer_rf_span(void) {
  int64_t a = 7, b = 7;
  CHECK_EQ(nns_analysis_layer_rf_span(NULL, 0, 0, 0, &a, &b), NNS_E_ARG);
  nns_analysis *m = analysed();
  CHECK_EQ(nns_analysis_layer_rf_span(m, NONE, 0, 0, &a, &b), NNS_E_ARG);
  CHECK_EQ(nns_analysis_layer_rf_span(m, 0, 0, 0, NULL, &b), NNS_E_ARG);
  CHECK_EQ(nns_analysis_layer_rf_span(m, 0, 0, 0, &a, NULL), NNS_E_ARG);
  CHECK_EQ(nns_analysis_layer_rf_span(m, 0, -1, 0, &a, &b), NNS_E_ARG);
  CHECK_EQ(nns_analysis_layer_rf_span(m, 0, 2, 0, &a, &b), NNS_E_ARG);
  CHECK_EQ(a, 7);
  CHECK_EQ(b, 7);
  /* The residual graph's output: field 11, stride 2, padding 5 (by hand:
   * test_analyze), so position 3 reads pixels 1..11. */
  CHECK_EQ(nns_analysis_layer_rf_span(m, 0, 1, 3, &a, &b), NNS_OK);
  CHECK_EQ(a, 1);
  CHECK_EQ(b, 11);
  CHECK_EQ(nns_analysis_layer_rf_span(m, 0, 0, INT64_MAX, &a, &b), NNS_E_LIMIT);
  release(m);
}

static void c_layer_class(void) {
  const char *c = "kept";
  CHECK_EQ(nns_analysis_layer_class(NULL, 0, &c), NNS_E_ARG);
  nns_analysis *m = analysed();
  CHECK_EQ(nns_analysis_layer_class(m, NONE, &c), NNS_E_ARG);
  CHECK_EQ(nns_analysis_layer_class(m, 0, NULL), NNS_E_ARG);
  CHECK_STR(c, "kept");
  release(m);
}
static void c_branch_count(void) { CHECK_EQ(nns_analysis_branch_count(NULL), 0); }
static void c_branch(void) {
  const char *n;
  int t, k;
  CHECK_EQ(nns_analysis_branch(NULL, 0, &n, &t, &k), NNS_E_ARG);
  nns_analysis *m = analysed();
  CHECK_EQ(nns_analysis_branch(m, 0, &n, &t, &k), NNS_E_ARG); /* no If */
  CHECK_EQ(nns_analysis_branch(m, 0, &n, NULL, &k), NNS_E_ARG);
  release(m);
}

static void c_param_dtype_count(void) {
  CHECK_EQ(nns_analysis_param_dtype_count(NULL), 0);
}
static void c_param_dtype(void) {
  int dt;
  int64_t e, b;
  CHECK_EQ(nns_analysis_param_dtype(NULL, 0, &dt, &e, &b), NNS_E_ARG);
  nns_analysis *m = analysed();
  CHECK_EQ(nns_analysis_param_dtype(m, 99, &dt, &e, &b), NNS_E_ARG);
  CHECK_EQ(nns_analysis_param_dtype(m, 0, &dt, NULL, &b), NNS_E_ARG);
  release(m);
}
static void c_op_type_count(void) {
  CHECK_EQ(nns_analysis_op_type_count(NULL), 0);
}
static void c_param_count(void) { CHECK_EQ(nns_analysis_param_count(NULL), 0); }
static void c_layer_count(void) {
  CHECK_EQ(nns_analysis_layer_count(NULL), 0);
}
static void c_uncounted_op_count(void) {
  CHECK_EQ(nns_analysis_uncounted_op_count(NULL), 0);
}
static void c_uncounted_op(void) {
  const char *d, *o;
  size_t n;
  CHECK_EQ(nns_analysis_uncounted_op(NULL, 0, &d, &o, &n), NNS_E_ARG);
  nns_analysis *m = analysed();
  CHECK_EQ(nns_analysis_uncounted_op(m, 0, &d, &o, &n), NNS_E_ARG); /* none */
  release(m);
}

static void c_uncounted_op_why(void) {
  size_t a, b, c;
  CHECK_EQ(nns_analysis_uncounted_op_why(NULL, 0, &a, &b, &c), NNS_E_ARG);
  nns_analysis *m = analysed();
  CHECK_EQ(nns_analysis_uncounted_op_why(m, 0, &a, &b, &c), NNS_E_ARG);
  CHECK_EQ(nns_analysis_uncounted_op_why(m, 0, &a, NULL, &c), NNS_E_ARG);
  release(m);
}

static void c_uncounted_op_lost(void) {
  size_t node;
  int how;
  CHECK_EQ(nns_analysis_uncounted_op_lost(NULL, 0, &node, &how), NNS_E_ARG);
  nns_analysis *m = analysed();
  CHECK_EQ(nns_analysis_uncounted_op_lost(m, 0, &node, &how), NNS_E_ARG);
  CHECK_EQ(nns_analysis_uncounted_op_lost(m, 0, NULL, &how), NNS_E_ARG);
  CHECK_EQ(nns_analysis_uncounted_op_lost(m, 0, &node, NULL), NNS_E_ARG);
  release(m);
}

/* The op-context accessors outside a callback: a NULL context. */
static void c_op_ctx_input_count(void) {
  CHECK_EQ(nns_op_ctx_input_count(NULL), 0);
}
static void c_op_ctx_output_count(void) {
  CHECK_EQ(nns_op_ctx_output_count(NULL), 0);
}
static void c_op_ctx_input_dtype(void) {
  CHECK_EQ(nns_op_ctx_input_dtype(NULL, 0), 0);
}
static void c_op_ctx_input_rank(void) {
  CHECK_EQ(nns_op_ctx_input_rank(NULL, 0), -1);
}
static void c_op_ctx_output_rank(void) {
  CHECK_EQ(nns_op_ctx_output_rank(NULL, 0), -1);
}
static void c_op_ctx_input_dim(void) {
  nns_dim d = {.size = sizeof d};
  CHECK_EQ(nns_op_ctx_input_dim(NULL, 0, 0, &d), NNS_E_ARG);
}
static void c_op_ctx_output_dim(void) {
  nns_dim d = {.size = sizeof d};
  CHECK_EQ(nns_op_ctx_output_dim(NULL, 0, 0, &d), NNS_E_ARG);
}
static void c_op_ctx_attr_int(void) {
  CHECK_EQ(nns_op_ctx_attr_int(NULL, "a", 42), 42);
}
static void c_op_ctx_attr_float(void) {
  CHECK(nns_op_ctx_attr_float(NULL, "a", 2.5) == 2.5);
}
static void c_op_ctx_set_output(void) {
  CHECK_EQ(nns_op_ctx_set_output(NULL, 0, 1, 0, NULL), NNS_E_ARG);
}
static void c_register_op(void) {
  CHECK_EQ(nns_model_register_op(NULL, "", "X", NULL, NULL, NULL, &err),
           NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_register_op(m, "", NULL, NULL, NULL, NULL, &err),
           NNS_E_ARG);
  nns_model_free(m);
}

static int sink(void *user, const char *data, size_t size) {
  (void)user, (void)data, (void)size;
  return 0;
}
static void c_write_stdio(void) {
  FILE *f = fopen("/dev/null", "w");
  CHECK_EQ(nns_write_stdio(f, "x", 1), 0);
  if (f)
    fclose(f);
}
static void c_report(void) {
  CHECK_EQ(nns_report(NULL, NULL, sink, NULL, &err), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_report(a, NULL, NULL, NULL, &err), NNS_E_ARG);
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_SHAPES_JSON};
  CHECK_EQ(nns_report(a, &o, sink, NULL, &err), NNS_E_ARG); /* shapes' */
  o.size = 1;
  CHECK_EQ(nns_report(a, &o, sink, NULL, &err), NNS_E_ARG);
  o = (nns_report_options){.size = sizeof o, .format = (nns_report_format)99};
  CHECK_EQ(nns_report(a, &o, sink, NULL, &err), NNS_E_ARG);
  o = (nns_report_options){.size = sizeof o,
                           .format = NNS_FORMAT_LAYERS_JSON + 1};
  CHECK_EQ(nns_report(a, &o, sink, NULL, &err), NNS_E_ARG);
  release(a);
}
static void c_report_shapes(void) {
  CHECK_EQ(nns_report_shapes(NULL, NULL, sink, NULL, &err), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_report_shapes(m, NULL, NULL, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_report_shapes(m, NULL, sink, NULL, &err), NNS_E_STATE);
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT};
  CHECK_EQ(nns_report_shapes(m, &o, sink, NULL, &err), NNS_E_ARG); /* not
                                                               a shapes one */
  o = (nns_report_options){.size = 1};
  CHECK_EQ(nns_report_shapes(m, &o, sink, NULL, &err), NNS_E_ARG);
  nns_model_free(m);
}
static void c_table_new(void) {
  CHECK_EQ(nns_table_new(NULL, &err), NNS_E_ARG);
}
static void c_table_free(void) { nns_table_free(NULL); }
static void c_table_add(void) {
  nns_table *t = NULL;
  CHECK_EQ(nns_table_new(&t, &err), NNS_OK);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_table_add(NULL, "a", a, &err), NNS_E_ARG);
  CHECK_EQ(nns_table_add(t, NULL, a, &err), NNS_E_ARG);
  CHECK_EQ(nns_table_add(t, "a", NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_table_row_count(t), 0);
  release(a);
  nns_table_free(t);
}
static void c_table_add_row(void) {
  nns_counts c = {.size = sizeof c, .params = 5};
  nns_rf rf = {.size = 1};
  CHECK_EQ(nns_table_add_row(NULL, "a", &c, NULL, &err), NNS_E_ARG);
  nns_table *t = NULL;
  CHECK_EQ(nns_table_new(&t, &err), NNS_OK);
  CHECK_EQ(nns_table_add_row(t, NULL, &c, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_table_add_row(t, "a", NULL, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_table_add_row(t, "a", &c, &rf, &err), NNS_E_ARG);
  c.size = 2;
  CHECK_EQ(nns_table_add_row(t, "a", &c, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_table_row_count(t), 0);
  c.size = sizeof c;
  CHECK_EQ(nns_table_add_row(t, "a", &c, NULL, &err), NNS_OK);
  CHECK_EQ(nns_table_row_count(t), 1);
  nns_table_free(t);
}
static void c_table_row_count(void) {
  CHECK_EQ(nns_table_row_count(NULL), 0);
}
static void c_report_table(void) {
  CHECK_EQ(nns_report_table(NULL, NULL, sink, NULL, &err), NNS_E_ARG);
  nns_table *t = NULL;
  CHECK_EQ(nns_table_new(&t, &err), NNS_OK);
  CHECK_EQ(nns_report_table(t, NULL, NULL, NULL, &err), NNS_E_ARG);
  nns_report_options o = {.size = 2};
  CHECK_EQ(nns_report_table(t, &o, sink, NULL, &err), NNS_E_ARG);
  nns_table_free(t);
}
static void c_report_plot(void) {
  CHECK_EQ(nns_report_plot(NULL, sink, NULL, &err), NNS_E_ARG);
}
static void c_text_clean(void) {
  char buf[8] = "xxxxxxx";
  /* No destination or no room: nothing written, length 0. */
  CHECK_EQ(nns_text_clean(NULL, sizeof buf, "abc"), 0);
  CHECK_EQ(nns_text_clean(buf, 0, "abc"), 0);
  CHECK_EQ(buf[0], 'x');
  /* NULL source: the empty string. */
  CHECK_EQ(nns_text_clean(buf, sizeof buf, NULL), 0);
  CHECK_EQ(buf[0], 0);
  /* ESC becomes '?'; the rest is kept. */
  CHECK_EQ(nns_text_clean(buf, sizeof buf, "a\x1b[1m"), 5);
  CHECK(strcmp(buf, "a?[1m") == 0);
  /* Cut at a character boundary: a second "\xc3\xa9" would leave no room
   * for the NUL in 4 bytes. */
  CHECK_EQ(nns_text_clean(buf, 4, "\xc3\xa9\xc3\xa9"), 2);
  CHECK(strcmp(buf, "\xc3\xa9") == 0);
}
static void c_format_count(void) {
  const nns_count_style thop = NNS_COUNT_STYLE_THOP;
  char buf[8] = "xxxxxxx";
  /* No buffer, no room, an unknown style, width or digits out of range:
   * NNS_E_ARG, and "" wherever there is a buffer to write it. */
  CHECK_EQ(nns_format_count(1, thop, 0, 2, NULL, 8, &err), NNS_E_ARG);
  CHECK_EQ(nns_format_count(1, thop, 0, 2, buf, 0, &err), NNS_E_ARG);
  CHECK_EQ(buf[0], 'x');
  CHECK_EQ(nns_format_count(1, (nns_count_style)7, 0, 2, buf, sizeof buf,
                            &err),
           NNS_E_ARG);
  CHECK_EQ(buf[0], 0);
  CHECK_EQ(nns_format_count(1, thop, -1, 2, buf, sizeof buf, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_format_count(1, thop, NNS_COUNT_WIDTH_MAX + 1, 2, buf,
                            sizeof buf, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_format_count(1, thop, 0, -1, buf, sizeof buf, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_format_count(1, thop, 0, NNS_COUNT_DIGITS_MAX + 1, buf,
                            sizeof buf, &err),
           NNS_E_ARG);
  /* "1.00B" needs 6 bytes: 5 are too few (NNS_E_LIMIT, ""), 6 do. */
  CHECK_EQ(nns_format_count(1, thop, 0, 2, buf, 5, &err), NNS_E_LIMIT);
  CHECK_EQ(buf[0], 0);
  CHECK_EQ(nns_format_count(1, thop, 0, 2, buf, 6, NULL), NNS_OK);
  CHECK(strcmp(buf, "1.00B") == 0);
}
static void c_report_layers(void) {
  const nns_count_style thop = NNS_COUNT_STYLE_THOP;
  int64_t dims[2] = {1, 4};
  nns_layers_row rows[2] = {
      {.size = sizeof rows[0], .name = "fc", .input_rank = -1,
       .output_rank = -1},
      {.size = sizeof rows[0], .name = "relu", .input_rank = -1,
       .output_rank = -1}};
  nns_layers_row total = {.size = sizeof total, .input_shape = dims,
                          .input_rank = 2, .output_rank = -1};
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_LAYERS_CSV};
  /* No write, no total, rows missing for a count. */
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, NULL, NULL, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_report_layers(rows, 2, NULL, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_report_layers(NULL, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  /* Another format or style; options below the first version. */
  o.format = NNS_FORMAT_CSV;
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  o.format = NNS_FORMAT_LAYERS_JSON + 1;
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "format 12 is not a layers format") != NULL);
  o.format = NNS_FORMAT_LAYERS_MD;
  CHECK_EQ(nns_report_layers(rows, 2, &total, (nns_count_style)9, &o, sink,
                             NULL, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "count style 9") != NULL);
  o.size = 1;
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  o.size = sizeof o;
  /* A row too small, a rank below -1, a rank without its dims. */
  rows[1].size = 1;
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "row 1: size 1 is below") != NULL);
  rows[1].size = sizeof rows[1];
  rows[1].output_rank = -2;
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "row 1: rank -2 is below -1") != NULL);
  rows[1].output_rank = 2;
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "row 1: output rank 2 without its dims") != NULL);
  total.size = 0;
  rows[1].output_rank = -1;
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "the Total row: size 0") != NULL);
  /* Right: no rows at all is a table of its Total row; NULL opts: text. */
  total.size = sizeof total;
  CHECK_EQ(nns_report_layers(NULL, 0, &total, thop, NULL, sink, NULL, &err),
           NNS_OK);
  CHECK_EQ(nns_report_layers(rows, 2, &total, thop, &o, sink, NULL, &err),
           NNS_OK);
}
static void c_op_count(void) { CHECK(nns_op_count() > 100); }
static void c_opset_max(void) {
  /* No entry covers an opset beyond it, and some entry reaches it. */
  int reached = 0;
  for (size_t i = 0; i < nns_op_count(); i++) {
    nns_op_info x = {.size = sizeof x};
    CHECK_EQ(nns_op_get(i, &x), NNS_OK);
    if (strcmp(x.domain, "") != 0)
      continue;
    CHECK(x.until_version <= nns_opset_max());
    reached |= x.until_version == nns_opset_max();
  }
  CHECK(reached);
}
static void c_family_name(void) {
  /* The table's families, in families.h's order, then NULL. */
  static const char *const want[] = {
      "eltwise", "activation", "conv", "pool", "gemm", "norm",
      "reduce", "shape", "shape_index", "generate", "resize", "rnn",
      "control", "sequence", "quant", "misc", "ml", "msft"};
  size_t n = sizeof want / sizeof *want;
  for (size_t i = 0; i < n; i++)
    CHECK_STR(nns_family_name(i), want[i]);
  CHECK(nns_family_name(n) == NULL);
  CHECK(nns_family_name((size_t)-1) == NULL);
}
static void c_aten_op(void) {
  const char *to = "x";
  CHECK(nns_aten_op((size_t)-1, &to) == NULL && to == NULL);
  CHECK(nns_aten_op((size_t)-1, NULL) == NULL);
}
static void c_aten_arg_kind_name(void) {
  CHECK_STR(nns_aten_arg_kind_name(NNS_ATEN_ARG_NONE), "none");
  CHECK_STR(nns_aten_arg_kind_name(NNS_ATEN_ARG_DTYPE), "dtype");
  CHECK(nns_aten_arg_kind_name(-1) == NULL);
  CHECK(nns_aten_arg_kind_name(NNS_ATEN_ARG_DTYPE + 1) == NULL);
}
static void c_aten_form_name(void) {
  CHECK_STR(nns_aten_form_name(NNS_ATEN_UNARY), "unary");
  CHECK_STR(nns_aten_form_name(NNS_ATEN_RULE), "rule");
  CHECK(nns_aten_form_name(0) == NULL);
  CHECK(nns_aten_form_name(NNS_ATEN_RULE + 1) == NULL);
}
static void c_aten_op_form(void) {
  CHECK_EQ(nns_aten_op_form((size_t)-1), 0);
  size_t n = 0;
  while (nns_aten_op(n, NULL))
    n++;
  CHECK_EQ(nns_aten_op_form(n), 0);
  for (size_t i = 0; i < n; i++)
    CHECK(nns_aten_op_form(i) >= NNS_ATEN_UNARY &&
          nns_aten_op_form(i) <= NNS_ATEN_RULE);
}
/* The index of aten entry `op`, or the number of entries when none. */
static size_t aten_entry(const char *op) {
  size_t n = 0;
  while (nns_aten_op(n, NULL) && strcmp(nns_aten_op(n, NULL), op))
    n++;
  return n;
}
/* Which outputs an entry may leave unwritten: a pooling's indices, none of
 * an element-wise op's; nothing past the last entry. */
static void c_aten_op_unwritten(void) {
  CHECK_EQ(nns_aten_op_unwritten((size_t)-1), 0u);
  size_t n = aten_entry(""), pool = aten_entry("max_pool2d_with_indices"),
         relu = aten_entry("relu");
  CHECK_EQ(nns_aten_op_unwritten(n), 0u);
  CHECK_EQ(nns_aten_op_unwritten(pool), 2u); /* output 1, the indices */
  CHECK_EQ(nns_aten_op_unwritten(relu), 0u);
}
/* Which tensor arguments an entry may leave unread: a static string,
 * empty for an element-wise op and past the last entry. */
static void c_aten_op_unread(void) {
  CHECK_STR(nns_aten_op_unread((size_t)-1), "");
  size_t n = aten_entry(""),
         pool = aten_entry("max_pool2d_with_indices_backward"),
         relu = aten_entry("relu"), nll = aten_entry("nll_loss_backward");
  CHECK_STR(nns_aten_op_unread(n), "");
  CHECK_STR(nns_aten_op_unread(pool), "self"); /* its sizes only */
  /* its input's sizes only; the total weight divides under a mean only */
  CHECK_STR(nns_aten_op_unread(nll), "self total_weight?reduction=1");
  CHECK_STR(nns_aten_op_unread(relu), "");
}
/* The count an entry reads: masked_scatter's mask, broadcast to self; none
 * for an op that reads no contents, nor past the last entry. */
static void c_aten_op_counted(void) {
  CHECK_STR(nns_aten_op_counted((size_t)-1), "");
  size_t n = aten_entry(""), scatter = aten_entry("masked_scatter"),
         select = aten_entry("masked_select");
  CHECK_STR(nns_aten_op_counted(n), "");
  CHECK(scatter < n);
  CHECK_STR(nns_aten_op_counted(scatter), "mask>self");
  CHECK_STR(nns_aten_op_counted(select), ""); /* its output's sizes say */
}
/* How an entry takes a complex value in real form: view_as_complex makes
 * one, mul and view read one; add none, nor masked_scatter (a composite of
 * aten_complex.c's that takes no real form), nor past the last entry. */
static void c_aten_op_complex(void) {
  CHECK_STR(nns_aten_op_complex((size_t)-1), "");
  size_t n = aten_entry(""), vac = aten_entry("view_as_complex"),
         mul = aten_entry("mul"), view = aten_entry("view"),
         add = aten_entry("add"), scatter = aten_entry("masked_scatter");
  CHECK_STR(nns_aten_op_complex(n), "");
  CHECK(vac < n && mul < n && view < n && add < n && scatter < n);
  CHECK_STR(nns_aten_op_complex(vac), "makes");
  CHECK_STR(nns_aten_op_complex(mul), "reads");
  CHECK_STR(nns_aten_op_complex(view), "reads");
  CHECK_STR(nns_aten_op_complex(add), "");
  CHECK_STR(nns_aten_op_complex(scatter), "");
}
static void c_aten_numbering(void) {
  nns_error e;
  nns_aten_numbering_info x = {.size = sizeof x};
  static const unsigned char junk[40] = {'N', 'N', 'S', 'P', 1};
  CHECK_EQ(nns_aten_numbering(NULL, 0, &x, &e), NNS_E_ARG);
  CHECK_EQ(nns_aten_numbering(junk, sizeof junk, NULL, &e), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_aten_numbering(junk, sizeof junk, &x, &e));
  /* no names record of zeros first */
  CHECK_EQ(nns_aten_numbering(junk, sizeof junk, &x, NULL), NNS_E_ARG);
}
static void c_op_get(void) {
  nns_op_info x = {.size = sizeof x};
  CHECK_EQ(nns_op_get(nns_op_count(), &x), NNS_E_ARG);
  CHECK_EQ(nns_op_get(0, NULL), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_op_get(0, &x));
}
/* A module call's outputs: the module must be declared, the text JSON. */
static void c_model_set_module_call(void) {
  nns_error e;
  CHECK_EQ(nns_model_set_module_call(NULL, "a", 0, "null", &e), NNS_E_ARG);
  nns_model *m = tm_load_path("unit/models/analyze_residual.onnx", 0);
  CHECK_EQ(nns_model_set_module_call(m, NULL, 0, "null", &e), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_call(m, "a", 0, NULL, &e), NNS_E_ARG);
  CHECK_EQ(nns_model_set_module_call(m, "nowhere", 0, "null", &e),
           NNS_E_NOTFOUND);
  CHECK_EQ(nns_model_set_module(m, "a", "A", 2, &e), NNS_OK);
  CHECK_EQ(nns_model_set_module_call(m, "a", 0, "[1,", &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 3);
  CHECK_EQ(nns_model_set_module_call(m, "a", (size_t)1 << 20, "null", &e),
           NNS_E_LIMIT);
  CHECK_EQ(nns_model_set_module_call(m, "a", 1, "{\"dtype\": \"float32\", "
                                     "\"shape\": [2]}", &e), NNS_OK);
  const char *got = NULL;
  CHECK_EQ(nns_model_module_call(m, "a", 0, &got), NNS_E_NOTFOUND);
  CHECK_EQ(nns_model_module_call(m, "a", 1, &got), NNS_OK);
  CHECK_STR(got, "{\"dtype\": \"float32\", \"shape\": [2]}");
  CHECK_EQ(nns_model_module_call_count(m, "a"), 2); /* calls 0 and 1 */
  CHECK_EQ(nns_model_module_call_count(m, "nowhere"), 0);
  /* a text checked once for all the calls sharing it; a bad one is
   * refused every time, however often it comes */
  CHECK_EQ(nns_model_set_module_call(m, "a", 0, "[1,", &e), NNS_E_JSON);
  CHECK_EQ(nns_model_module_call(m, "a", 0, &got), NNS_E_NOTFOUND);
  char same[] = "{\"dtype\": \"float32\", \"shape\": [2]}";
  CHECK_EQ(nns_model_set_module_call(m, "a", 0, same, &e), NNS_OK);
  same[0] = '['; /* the caller's buffer changes: the model kept its own */
  CHECK_EQ(nns_model_module_call(m, "a", 0, &got), NNS_OK);
  CHECK_STR(got, "{\"dtype\": \"float32\", \"shape\": [2]}");
  CHECK_EQ(nns_model_set_module_call(m, "a", 2, same, &e), NNS_E_JSON);
  nns_model_free(m);
}
static void c_model_add_module_tensor(void) {
  int64_t d[2] = {2, 3}, neg[1] = {-1}, huge[2] = {INT64_MAX, 2};
  nns_error e;
  CHECK_EQ(nns_model_add_module_tensor(NULL, "a", "a.w", 32, 2, d,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_add_module_tensor(m, NULL, "a.w", 32, 2, d,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", NULL, 32, 2, d,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.w", 32, 2, d,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_NOTFOUND); /* never declared */
  CHECK_EQ(nns_model_set_module(m, "a", "A", 1, &e), NNS_OK);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.w", 32, 2, NULL,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.w", 32, -1, d,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.w", 32, 1, neg,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.w", 0, 2, d,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.w", 32, 2, d,
                                       (nns_param_kind)7, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.w", 32, 2, huge,
                                       NNS_PARAM_TRAINABLE, &e),
           NNS_E_LIMIT);
  /* 4-bit elements: 3 of them take 2 bytes */
  CHECK_EQ(nns_model_add_module_tensor(m, "a", "a.q", 4, 1,
                                       (int64_t[]){3}, NNS_PARAM_FROZEN, &e),
           NNS_OK);
  nns_module_held h = {.size = sizeof h};
  CHECK_EQ(nns_model_module_held(m, "a", 0, &h), NNS_OK);
  CHECK_EQ(h.frozen, 3);
  CHECK_EQ(h.param_bytes, 2);
  nns_model_free(m);
}
static void c_model_mask_inputs(void) {
  const char *names[] = {"x"};
  size_t w[1], n = 9;
  CHECK_EQ(nns_model_mask_inputs(NULL, names, 1, w, &n, &err), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_mask_inputs(m, names, 1, w, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_mask_inputs(m, NULL, 1, w, &n, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_mask_inputs(m, names, 1, w, &n, &err), NNS_E_STATE);
  CHECK_EQ(n, 0);
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_mask_inputs(m, names, 1, w, &n, &err), NNS_OK);
  CHECK_EQ(n, 0); /* no mask applied to anything */
  nns_model_free(m);
}
static void c_model_set_value_data(void) {
  const char *names[] = {"x"}, *none[] = {NULL};
  int64_t d[] = {1};
  float one = 1;
  CHECK_EQ(nns_model_set_value_data(NULL, names, 1, NNS_DT_FLOAT, 1, d, &one,
                                    4, &err), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_set_value_data(m, NULL, 1, NNS_DT_FLOAT, 1, d, &one, 4,
                                    &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_value_data(m, names, 1, NNS_DT_FLOAT, 1, d, NULL, 4,
                                    &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_value_data(m, none, 1, NNS_DT_FLOAT, 1, d, &one, 4,
                                    &err), NNS_E_NOTFOUND);
  CHECK_EQ(nns_model_set_value_data(m, names, 1, NNS_DT_FLOAT, 1, NULL, &one,
                                    4, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_value_data(m, names, 1, NNS_DT_FLOAT, -1, d, &one,
                                    4, &err), NNS_E_ARG);
  nns_model_free(m);
}
static void c_model_module_held(void) {
  nns_module_held h = {.size = sizeof h};
  CHECK_EQ(nns_model_module_held(NULL, "", 1, &h), NNS_E_ARG);
  nns_model *m = loaded();
  CHECK_EQ(nns_model_module_held(m, NULL, 1, &h), NNS_E_ARG);
  CHECK_EQ(nns_model_module_held(m, "", 1, NULL), NNS_E_ARG);
  CHECK_EQ(nns_model_module_held(m, "", 1, &h), NNS_E_NOTFOUND);
  CHECK_EQ(nns_model_set_module(m, "", "M", 1, &err), NNS_OK);
  EXPECT_SMALL_SIZE(h, nns_model_module_held(m, "", 1, &h));
  h.size = sizeof h;
  CHECK_EQ(nns_model_module_held(m, "", 1, &h), NNS_OK);
  CHECK_EQ(h.tensors, 0);
  nns_model_free(m);
}
static void c_model_module_call(void) {
  const char *got = NULL;
  CHECK_EQ(nns_model_module_call(NULL, "a", 0, &got), NNS_E_ARG);
}
static void c_model_module_call_count(void) {
  CHECK_EQ(nns_model_module_call_count(NULL, "a"), 0);
}
static void c_hardware_json(void) {
  CHECK_EQ(nns_hardware_json(NULL, NULL, NULL, NULL), NNS_E_ARG);
}
static void c_op_table_json(void) {
  CHECK_EQ(nns_op_table_json(NULL, NULL, NULL), NNS_E_ARG);
}

/* MFU (issue 48): NULL handles and short structs are NNS_E_ARG. */
static void c_step_flops_of(void) {
  nns_step_flops f = {.size = sizeof f};
  CHECK_EQ(nns_step_flops_of(NULL, NULL, NULL, 0, &f, &err), NNS_E_ARG);
}
static void c_mfu_compute(void) {
  nns_step_flops f = {.size = sizeof f};
  nns_mfu_options o = {.size = sizeof o, .step_dtype = "bf16",
                       .peak_flops = 1e12};
  nns_mfu m = {.size = 4};
  CHECK_EQ(nns_mfu_compute(NULL, 1, 0, -1, &o, &m, NULL), NNS_E_ARG);
  CHECK_EQ(nns_mfu_compute(&f, 1, 0, -1, &o, &m, NULL), NNS_E_ARG);
}
static void c_mfu_json_line(void) {
  CHECK_EQ(nns_mfu_json_line(0, 0, NULL, NULL, NULL, NULL, NULL),
           NNS_E_ARG);
}
static void c_mfu_text_row(void) {
  CHECK_EQ(nns_mfu_text_row(0, NULL, 1, NULL, NULL, NULL), NNS_E_ARG);
}
static void c_mfu_html(void) {
  CHECK_EQ(nns_mfu_html(NULL, NULL, NULL, NULL, 3, NULL, NULL, NULL, NULL),
           NNS_E_ARG);
}

/* The steps of a generation (issue 42 item 4): NULL handles, counts
 * below 1, a step out of range and another format are NNS_E_ARG. */
static int c_gen_write(void *user, const char *data, size_t size) {
  (void)user, (void)data, (void)size;
  return 0;
}
/* Any number is a storage dtype: one the library does not name runs at
 * fp32 (the float types by hand: docs/roofline.md). */
static void c_compute_dtype_of(void) {
  CHECK_EQ(nns_compute_dtype_of(-1), NNS_COMPUTE_FP32);
  CHECK_EQ(nns_compute_dtype_of(1 << 30), NNS_COMPUTE_FP32);
  CHECK_EQ(nns_compute_dtype_of(NNS_DT_FLOAT), NNS_COMPUTE_FP32);
  CHECK_EQ(nns_compute_dtype_of(NNS_DT_DOUBLE), NNS_COMPUTE_FP32);
  CHECK_EQ(nns_compute_dtype_of(NNS_DT_FLOAT16), NNS_COMPUTE_FP16);
  CHECK_EQ(nns_compute_dtype_of(NNS_DT_BFLOAT16), NNS_COMPUTE_BF16);
  CHECK_EQ(nns_compute_dtype_of(NNS_DT_FLOAT8E5M2), NNS_COMPUTE_FP8);
  CHECK_EQ(nns_compute_dtype_of(NNS_DT_INT8), NNS_COMPUTE_FP32);
}
static void c_report_uncounted(void) {
  CHECK_EQ(nns_report_uncounted(NULL, c_gen_write, NULL, &err), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_report_uncounted(a, NULL, NULL, &err), NNS_E_ARG);
  release(a);
}
static void c_generation_create(void) {
  nns_generation *g = (nns_generation *)&err;
  CHECK_EQ(nns_generation_create(1, 1, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_generation_create(0, 1, &g, &err), NNS_E_ARG);
  CHECK(g == NULL);
  CHECK_EQ(nns_generation_create(1, 0, &g, &err), NNS_E_ARG);
}
static void c_generation_free(void) { nns_generation_free(NULL); }
static void c_generation_set_step(void) {
  nns_generation *g = NULL;
  CHECK_EQ(nns_generation_create(2, 1, &g, &err), NNS_OK);
  CHECK_EQ(nns_generation_set_step(NULL, 0, NULL, 1, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_generation_set_step(g, 0, NULL, 1, 0, &err), NNS_E_ARG);
  nns_analysis *a = analysed();
  CHECK_EQ(nns_generation_set_step(g, 2, a, 1, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_generation_set_step(g, -1, a, 1, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_generation_set_step(g, 1, a, -1, 0, &err), NNS_E_ARG);
  release(a);
  nns_generation_free(g);
}
static void c_generation_report(void) {
  nns_generation *g = NULL;
  CHECK_EQ(nns_generation_create(2, 1, &g, &err), NNS_OK);
  CHECK_EQ(nns_generation_report(NULL, NNS_FORMAT_TEXT, NNS_NUMBERS_CLEVER,
                                 c_gen_write, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_generation_report(g, NNS_FORMAT_TEXT, NNS_NUMBERS_CLEVER,
                                 NULL, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_generation_report(g, NNS_FORMAT_CSV, NNS_NUMBERS_CLEVER,
                                 c_gen_write, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_generation_report(g, NNS_FORMAT_TEXT, NNS_NUMBERS_RATIO,
                                 c_gen_write, NULL, &err), NNS_E_ARG);
  /* no step given: the prefill is missing */
  CHECK_EQ(nns_generation_report(g, NNS_FORMAT_JSON, NNS_NUMBERS_RAW,
                                 c_gen_write, NULL, &err), NNS_E_STATE);
  CHECK(strstr(err.message, "step 0") != NULL);
  nns_generation_free(g);
}

/* The diff (issue 23): documents and a callback are needed; a document
 * that is not JSON names the side and the byte; a short options or result
 * struct is refused. */
static int c_null_write(void *user, const char *data, size_t size) {
  (void)user, (void)data, (void)size;
  return 0;
}
static void c_diff_report(void) {
  nns_error e;
  const char *doc = "{}";
  CHECK_EQ(nns_diff_report(NULL, 0, doc, 2, NULL, c_null_write, NULL, NULL,
                           &e), NNS_E_ARG);
  CHECK_EQ(nns_diff_report(doc, 2, doc, 2, NULL, NULL, NULL, NULL, &e),
           NNS_E_ARG);
  CHECK_EQ(nns_diff_report("{", 1, doc, 2, NULL, c_null_write, NULL, NULL,
                           &e), NNS_E_JSON);
  CHECK(strstr(e.message, "before") != NULL);
  CHECK_EQ(e.offset, 1);
  CHECK_EQ(nns_diff_report(doc, 2, doc, 2, NULL, c_null_write, NULL, NULL,
                           &e), NNS_E_ARG); /* not nnscan.summary */
  nns_diff_options o = {.size = 1};
  CHECK_EQ(nns_diff_report(doc, 2, doc, 2, &o, c_null_write, NULL, NULL, &e),
           NNS_E_ARG);
  nns_diff_result r = {.size = 1};
  CHECK_EQ(nns_diff_report(doc, 2, doc, 2, NULL, c_null_write, NULL, &r, &e),
           NNS_E_ARG);
}

/* nns_json_check: NULL text with a size is refused; NULL with none, or a
 * document that is not JSON, is NNS_E_JSON with its byte. */
static void c_json_check(void) {
  nns_error e;
  CHECK_EQ(nns_json_check(NULL, 5, &e), NNS_E_ARG);
  CHECK_EQ(nns_json_check(NULL, 0, &e), NNS_E_JSON);
  CHECK_EQ(nns_json_check("{\"a\": }", 7, NULL), NNS_E_JSON);
  CHECK_EQ(nns_json_check("{\"a\": }", 7, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 6);
  CHECK_EQ(nns_json_check("{}", 2, NULL), NNS_OK);
}

/* The inspection (issue 10): a handle built by the caller. */
static nns_inspection *inspection_with_root(void) {
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, &err), NNS_OK);
  nns_inspect_module root = {.size = sizeof root, .path = "", .type = "M",
                             .parent = (size_t)-1};
  CHECK_EQ(nns_inspection_add_module(in, &root, NULL, &err), NNS_OK);
  return in;
}
static void c_inspection_create(void) {
  CHECK_EQ(nns_inspection_create(NULL, &err), NNS_E_ARG);
}
static void c_inspection_free(void) { nns_inspection_free(NULL); }
static void c_inspection_add_module(void) {
  nns_inspect_module mod = {.size = sizeof mod, .path = "",
                            .parent = (size_t)-1};
  CHECK_EQ(nns_inspection_add_module(NULL, &mod, NULL, &err), NNS_E_ARG);
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, &err), NNS_OK);
  CHECK_EQ(nns_inspection_add_module(in, NULL, NULL, &err), NNS_E_ARG);
  mod.size = 1;
  CHECK_EQ(nns_inspection_add_module(in, &mod, NULL, &err), NNS_E_ARG);
  mod.size = sizeof mod;
  mod.parent = 0; /* the first module is the root */
  CHECK_EQ(nns_inspection_add_module(in, &mod, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_module_count(in), 0);
  nns_inspection_free(in);
}
static void c_inspection_add_params(void) {
  nns_inspect_param p = {sizeof p, 0, 1, NNS_DT_FLOAT, 32, 4, 1};
  CHECK_EQ(nns_inspection_add_params(NULL, &p, 1, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_root();
  CHECK_EQ(nns_inspection_add_params(in, NULL, 1, &err), NNS_E_ARG);
  p.module = 1; /* only the root is there */
  CHECK_EQ(nns_inspection_add_params(in, &p, 1, &err), NNS_E_ARG);
  p.module = 0, p.tensor = 0;
  CHECK_EQ(nns_inspection_add_params(in, &p, 1, &err), NNS_E_ARG);
  p.tensor = 1, p.size = 1;
  CHECK_EQ(nns_inspection_add_params(in, &p, 1, &err), NNS_E_ARG);
  nns_inspection_free(in);
}
static void c_inspection_set_meta(void) {
  CHECK_EQ(nns_inspection_set_meta(NULL, "k", "v", &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_root();
  CHECK_EQ(nns_inspection_set_meta(in, "", "v", &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_set_meta(in, "k", NULL, &err), NNS_E_ARG);
  nns_inspection_free(in);
}
static void c_inspection_add_batch(void) {
  nns_inspect_batch b = {.size = sizeof b};
  CHECK_EQ(nns_inspection_add_batch(NULL, &b, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_root();
  CHECK_EQ(nns_inspection_add_batch(in, NULL, &err), NNS_E_ARG);
  b.size = 1;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &err), NNS_E_ARG);
  nns_inspect_call call = {.module = 1, .parent = (size_t)-1}; /* no module 1 */
  b = (nns_inspect_batch){.size = sizeof b, .calls = &call, .call_count = 1,
                          .call_size = sizeof call};
  CHECK_EQ(nns_inspection_add_batch(in, &b, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_call_count(in), 0);
  nns_inspection_free(in);
}
static void c_inspection_module_count(void) {
  CHECK_EQ(nns_inspection_module_count(NULL), 0);
}
static void c_inspection_call_count(void) {
  CHECK_EQ(nns_inspection_call_count(NULL), 0);
}
static void c_inspection_module_stats(void) {
  nns_inspect_stats x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_module_stats(NULL, 0, &x, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_root();
  CHECK_EQ(nns_inspection_module_stats(in, 0, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_module_stats(in, 1, &x, &err), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_inspection_module_stats(in, 0, &x, &err));
  nns_inspection_free(in);
}
static void c_inspection_first_nonfinite(void) {
  nns_inspect_offender x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_first_nonfinite(NULL, 0, &x, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_root();
  CHECK_EQ(nns_inspection_first_nonfinite(in, 0, NULL, &err), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_inspection_first_nonfinite(in, 1, &x, &err));
  nns_inspection_free(in);
}
/* The root, one call of it with one output tensor of dims (2, 3) in one
 * pass of rank 1, and a meta fact: what the read accessors read. */
static nns_inspection *inspection_with_call(void) {
  nns_inspection *in = inspection_with_root();
  int64_t dims[2] = {2, 3};
  nns_inspect_tensor t = {.role = NNS_TENSOR_OUTPUT, .dtype = NNS_DT_FLOAT,
                          .rank = 2, .bytes = 24};
  nns_inspect_call c = {.module = 0, .parent = (size_t)-1,
                        .fwd_seq = -1, .bwd_seq = -1,
                        .fwd_start = {1, -1, -1}, .fwd_end = {3, -1, -1},
                        .bwd_start = {-1, -1, -1}, .bwd_end = {-1, -1, -1},
                        .tensor_count = 1};
  nns_inspect_batch b = {.size = sizeof b, .rank = 1, .pass = 7,
                         .calls = &c, .call_count = 1, .call_size = sizeof c,
                         .tensors = &t, .tensor_count = 1,
                         .tensor_size = sizeof t, .dims = dims,
                         .dim_count = 2};
  CHECK_EQ(nns_inspection_add_batch(in, &b, &err), NNS_OK);
  CHECK_EQ(nns_inspection_set_meta(in, "device", "cpu", &err), NNS_OK);
  return in;
}
static void c_inspection_module(void) {
  nns_inspect_module_info x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_module(NULL, 0, &x, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_call();
  CHECK_EQ(nns_inspection_module(in, 0, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_module(in, 1, &x, &err), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_inspection_module(in, 0, &x, &err));
  x.size = sizeof x;
  CHECK_EQ(nns_inspection_module(in, 0, &x, &err), NNS_OK);
  CHECK_STR(x.path, "");
  CHECK_EQ(x.parent, (size_t)-1);
  CHECK_EQ(x.first_child, (size_t)-1);
  CHECK_EQ(x.first_call, 0);
  nns_inspection_free(in);
}
static void c_inspection_call(void) {
  nns_inspect_call_info x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_call(NULL, 0, &x, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_call();
  CHECK_EQ(nns_inspection_call(in, 0, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_call(in, 1, &x, &err), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_inspection_call(in, 0, &x, &err));
  x.size = sizeof x;
  CHECK_EQ(nns_inspection_call(in, 0, &x, &err), NNS_OK);
  CHECK_EQ(x.module, 0);
  CHECK_EQ(x.next_same, (size_t)-1);
  CHECK(x.forward_known && !x.backward_known);
  CHECK(x.fwd_inclusive_ms == 2);
  CHECK_EQ(x.tensor_count, 1);
  nns_inspection_free(in);
}
static void c_inspection_call_tensor(void) {
  nns_inspect_tensor_info x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_call_tensor(NULL, 0, 0, &x, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_call();
  CHECK_EQ(nns_inspection_call_tensor(in, 0, 0, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_call_tensor(in, 1, 0, &x, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_call_tensor(in, 0, 1, &x, &err), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_inspection_call_tensor(in, 0, 0, &x, &err));
  x.size = sizeof x;
  CHECK_EQ(nns_inspection_call_tensor(in, 0, 0, &x, &err), NNS_OK);
  CHECK_EQ(x.role, NNS_TENSOR_OUTPUT);
  CHECK(x.rank == 2 && x.dims[0] == 2 && x.dims[1] == 3);
  CHECK_EQ(x.bytes, 24);
  nns_inspection_free(in);
}
static void c_inspection_batch_count(void) {
  CHECK_EQ(nns_inspection_batch_count(NULL), 0);
}
static void c_inspection_batch(void) {
  nns_inspect_batch_info x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_batch(NULL, 0, &x, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_call();
  CHECK_EQ(nns_inspection_batch_count(in), 1);
  CHECK_EQ(nns_inspection_batch(in, 0, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_batch(in, 1, &x, &err), NNS_E_ARG);
  EXPECT_SMALL_SIZE(x, nns_inspection_batch(in, 0, &x, &err));
  x.size = sizeof x;
  CHECK_EQ(nns_inspection_batch(in, 0, &x, &err), NNS_OK);
  CHECK(x.rank == 1 && x.pass == 7 && x.first_call == 0 &&
        x.call_count == 1);
  nns_inspection_free(in);
}
static void c_inspection_meta_count(void) {
  CHECK_EQ(nns_inspection_meta_count(NULL), 0);
}
static void c_inspection_meta(void) {
  const char *key = NULL, *value = NULL;
  CHECK_EQ(nns_inspection_meta(NULL, 0, &key, &value, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_call();
  CHECK_EQ(nns_inspection_meta_count(in), 1);
  CHECK_EQ(nns_inspection_meta(in, 1, &key, &value, &err), NNS_E_ARG);
  CHECK(key == NULL && value == NULL);
  CHECK_EQ(nns_inspection_meta(in, 0, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_inspection_meta(in, 0, &key, &value, &err), NNS_OK);
  CHECK_STR(key, "device");
  CHECK_STR(value, "cpu");
  nns_inspection_free(in);
}
static void c_inspection_set_rank(void) {
  nns_inspect_rank r = {.size = sizeof r};
  CHECK_EQ(nns_inspection_set_rank(NULL, &r, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_call();
  CHECK_EQ(nns_inspection_set_rank(in, NULL, &err), NNS_E_ARG);
  r.rank = -1;
  CHECK_EQ(nns_inspection_set_rank(in, &r, &err), NNS_E_ARG);
  r.rank = 1;
  r.size = 4;
  CHECK_EQ(nns_inspection_set_rank(in, &r, &err), NNS_E_ARG);
  nns_inspection_free(in);
}
static void c_inspection_rank_count(void) {
  CHECK_EQ(nns_inspection_rank_count(NULL), 0);
}
static void c_inspection_rank(void) {
  nns_inspect_rank_info x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_rank(NULL, 0, &x, &err), NNS_E_ARG);
  nns_inspection *in = inspection_with_call();
  CHECK_EQ(nns_inspection_rank_count(in), 1);
  CHECK_EQ(nns_inspection_rank(in, 1, &x, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_rank(in, 0, NULL, &err), NNS_E_ARG);
  x.size = 4;
  CHECK_EQ(nns_inspection_rank(in, 0, &x, &err), NNS_E_ARG);
  x.size = sizeof x;
  CHECK_EQ(nns_inspection_rank(in, 0, &x, &err), NNS_OK);
  CHECK(x.rank == 1 && x.passes == 1 && !x.comm_known);
  nns_inspection_free(in);
}
/* Both report entry points refuse the same things. */
static void inspection_report_refusals(
    nns_status (*fn)(const nns_inspection *, const nns_report_options *,
                     nns_write_fn, void *, nns_error *)) {
  CHECK_EQ(fn(NULL, NULL, sink, NULL, &err), NNS_E_ARG);
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, &err), NNS_OK);
  CHECK_EQ(fn(in, NULL, sink, NULL, &err), NNS_E_STATE); /* no module */
  nns_inspection_free(in);
  in = inspection_with_root();
  CHECK_EQ(fn(in, NULL, NULL, NULL, &err), NNS_E_ARG);
  nns_report_options o = {.size = 1};
  CHECK_EQ(fn(in, &o, sink, NULL, &err), NNS_E_ARG);
  o = (nns_report_options){.size = sizeof o, .format = NNS_FORMAT_SHAPES_JSON};
  CHECK_EQ(fn(in, &o, sink, NULL, &err), NNS_E_ARG);
  nns_inspection_free(in);
}
static void c_inspection_report(void) {
  inspection_report_refusals(nns_inspection_report);
}
static void c_inspection_report_seed(void) {
  inspection_report_refusals(nns_inspection_report_seed);
}

/* ---- Hardware (the roofline) ---- */

static void c_compute_dtype_name(void) {
  CHECK(nns_compute_dtype_name(-1) == NULL);
  CHECK(nns_compute_dtype_name(NNS_COMPUTE_DTYPE_COUNT) == NULL);
  CHECK_STR(nns_compute_dtype_name(NNS_COMPUTE_FP32), "fp32");
}
static void c_bound_name(void) {
  CHECK(nns_bound_name(-1) == NULL);
  CHECK(nns_bound_name(3) == NULL);
}
static void c_hardware_count(void) { CHECK(nns_hardware_count() > 0); }
static void c_hardware_get(void) {
  nns_hardware h = {.size = sizeof h};
  CHECK_EQ(nns_hardware_get(0, NULL), NNS_E_ARG);
  CHECK_EQ(nns_hardware_get((size_t)-1, &h), NNS_E_ARG);
  h.size = 1;
  CHECK_EQ(nns_hardware_get(0, &h), NNS_E_ARG);
}
static void c_hardware_find(void) {
  nns_hardware h = {.size = sizeof h};
  CHECK_EQ(nns_hardware_find(NULL, &h, &err), NNS_E_ARG);
  CHECK_EQ(nns_hardware_find("h100-sxm", NULL, NULL), NNS_E_ARG);
  CHECK_EQ(nns_hardware_find("", &h, NULL), NNS_E_NOTFOUND);
}
static void c_hardware_list_open(void) {
  nns_hardware_list *l = (nns_hardware_list *)&l;
  CHECK_EQ(nns_hardware_list_open(NULL, &l, NULL), NNS_E_ARG);
  CHECK(l == NULL);
  CHECK_EQ(nns_hardware_list_open("x", NULL, NULL), NNS_E_ARG);
}
static void c_hardware_list_count(void) {
  CHECK_EQ(nns_hardware_list_count(NULL), 0);
}
static void c_hardware_list_get(void) {
  nns_hardware h = {.size = sizeof h};
  CHECK_EQ(nns_hardware_list_get(NULL, 0, &h), NNS_E_ARG);
}
static void c_hardware_list_free(void) { nns_hardware_list_free(NULL); }

/* ==== The table of exports ==== */

typedef struct entry {
  const char *name;
  void (*check)(void);
} entry;

#define E(fn) {"nns_" #fn, c_##fn}
static const entry exports[] = {
    E(version), E(abi_version), E(status_name), E(status_message),
    E(dtype_name), E(dtype_bits), E(param_kind_name), E(optimizer_name),
    E(report_format_name), E(numbers_name), E(wrap_name),
    E(column_name), E(column_flags), E(count_flag_name), E(metric_name),
    E(metric_description), E(metric_flags), E(metrics_partial),
    E(tensor_role_name), E(nonfinite_role_name), E(packed_record_name),
    E(count_style_name),
    {"nns_model_load_file", c_load_file},
    {"nns_model_load_memory", c_load_memory},
    {"nns_model_free", c_model_free},
    E(builder_new), E(builder_free), E(builder_set_ir_version),
    E(builder_set_producer), E(builder_set_graph_name), E(builder_add_opset),
    E(builder_add_metadata), E(builder_add_input), E(builder_add_output),
    E(builder_add_value_info), E(builder_add_initializer),
    E(builder_add_node), E(builder_attr_int), E(builder_attr_float),
    E(builder_attr_string), E(builder_attr_ints), E(builder_attr_floats),
    E(builder_attr_strings), E(builder_attr_tensor), E(builder_attr_type),
    E(builder_begin_graph), E(builder_end_graph), E(builder_mark_kernel),
    E(builder_add_packed),
    E(builder_packed_name), E(builder_packed_entries),
    E(builder_finish),
    {"nns_model_infer", c_model_infer},
    {"nns_model_state", c_model_state},
    {"nns_model_get_info", c_get_info},
    {"nns_model_opset_count", c_opset_count},
    {"nns_model_opset", c_opset},
    {"nns_model_metadata_count", c_metadata_count},
    {"nns_model_metadata", c_metadata},
    {"nns_model_value_count", c_value_count},
    {"nns_model_value", c_value},
    {"nns_model_value_dim", c_value_dim},
    {"nns_model_find_value", c_find_value},
    {"nns_model_shape_mismatches", c_shape_mismatches},
    {"nns_model_input_count", c_input_count},
    {"nns_model_input", c_input},
    {"nns_model_output_count", c_output_count},
    {"nns_model_output", c_output},
    {"nns_model_node_count", c_node_count},
    {"nns_model_node", c_node},
    {"nns_model_node_input", c_node_input},
    {"nns_model_node_output", c_node_output},
    {"nns_model_unknown_op_count", c_unknown_op_count},
    {"nns_model_unknown_op", c_unknown_op},
    {"nns_model_warning_count", c_warning_count},
    {"nns_model_warning", c_warning},
    {"nns_model_set_module", c_set_module},
    {"nns_model_set_module_macs", c_set_module_macs},
    {"nns_model_set_module_shapes", c_set_module_shapes},
    {"nns_model_module_count", c_module_count},
    {"nns_model_module", c_module},
    {"nns_model_set_experts", c_set_experts},
    {"nns_model_set_param_kind", c_set_param_kind},
    E(model_set_module_call), E(model_module_call),
    E(model_module_call_count), E(model_add_module_tensor),
    E(model_module_held), E(model_mask_inputs), E(model_set_value_data),
    {"nns_model_analyze", c_analyze},
    {"nns_train_phase_name", c_train_phase_name},
    {"nns_model_set_train_step", c_set_train_step},
    {"nns_analysis_train_info", c_train_info},
    {"nns_analysis_checkpoint_count", c_checkpoint_count},
    {"nns_analysis_checkpoint", c_checkpoint},
    {"nns_model_set_parallel", c_set_parallel},
    {"nns_tp_style_name", c_tp_style_name},
    {"nns_comm_kind_name", c_comm_kind_name},
    {"nns_analysis_per_rank", c_per_rank},
    {"nns_analysis_layer_per_rank", c_layer_per_rank},
    {"nns_analysis_mesh_count", c_mesh_count},
    {"nns_analysis_mesh", c_mesh},
    E(analysis_free), E(analysis_model), E(analysis_node),
    E(analysis_memory_count), E(analysis_memory_point),
    E(analysis_memory_peak), E(analysis_value), E(analysis_value_dim),
    E(analysis_unknown_op_count), E(analysis_unknown_op),
    E(analysis_warning_count), E(analysis_warning),
    {"nns_analysis_totals", c_totals},
    {"nns_analysis_total_counts", c_total_counts},
    {"nns_analysis_total_rf", c_total_rf},
    {"nns_analysis_param_dtype_count", c_param_dtype_count},
    {"nns_analysis_param_dtype", c_param_dtype},
    {"nns_analysis_op_type_count", c_op_type_count},
    {"nns_analysis_op_type", c_op_type},
    {"nns_analysis_op_type_counts", c_op_type_counts},
    {"nns_analysis_node_counts", c_node_counts},
    {"nns_analysis_param_count", c_param_count},
    {"nns_analysis_param", c_param},
    {"nns_analysis_layer_count", c_layer_count},
    {"nns_analysis_layer", c_layer},
    {"nns_analysis_layer_counts", c_layer_counts},
    {"nns_analysis_layer_rf", c_layer_rf},
    {"nns_analysis_layer_rf_span", c_layer_rf_span},
    {"nns_analysis_uncounted_op_count", c_uncounted_op_count},
    {"nns_analysis_uncounted_op", c_uncounted_op},
    {"nns_analysis_uncounted_op_why", c_uncounted_op_why},
    {"nns_analysis_uncounted_op_lost", c_uncounted_op_lost},
    {"nns_analysis_layer_class", c_layer_class},
    {"nns_analysis_branch_count", c_branch_count},
    {"nns_analysis_branch", c_branch},
    E(op_ctx_input_count), E(op_ctx_output_count), E(op_ctx_input_dtype),
    E(op_ctx_input_rank), E(op_ctx_output_rank), E(op_ctx_input_dim),
    E(op_ctx_output_dim), E(op_ctx_attr_int), E(op_ctx_attr_float),
    E(op_ctx_set_output),
    {"nns_model_register_op", c_register_op},
    E(write_stdio), E(report), E(report_shapes), E(table_new), E(table_free), E(table_add),
    E(table_add_row),
    E(table_row_count), E(report_table), E(report_plot), E(op_count), E(opset_max),
    E(family_name), E(aten_op), E(aten_op_form), E(aten_op_unwritten), E(aten_op_unread), E(aten_op_counted), E(aten_op_complex), E(aten_numbering), E(aten_arg_kind_name), E(aten_form_name), E(op_get), E(op_table_json), E(hardware_json), E(diff_report),
    E(json_check), E(text_clean),
    E(format_count), E(report_layers),
    E(inspection_create), E(inspection_free), E(inspection_add_module),
    E(inspection_add_params),
    E(inspection_set_meta), E(inspection_add_batch),
    E(inspection_module_count), E(inspection_call_count),
    E(inspection_module_stats), E(inspection_first_nonfinite),
    E(inspection_module), E(inspection_call), E(inspection_call_tensor),
    E(inspection_batch_count), E(inspection_batch),
    E(inspection_meta_count), E(inspection_meta), E(inspection_set_rank),
    E(inspection_rank_count), E(inspection_rank),
    E(inspection_report), E(inspection_report_seed),
    E(compute_dtype_name), E(bound_name), E(hardware_count), E(hardware_get),
    E(hardware_find), E(hardware_list_open), E(hardware_list_count),
    E(hardware_list_get), E(hardware_list_free),
    E(step_flops_of), E(mfu_compute), E(mfu_json_line), E(mfu_text_row),
    E(mfu_html),
    E(generation_create), E(generation_free), E(generation_set_step),
    E(generation_report), E(report_uncounted), E(compute_dtype_of),
};
#undef E
enum { N_EXPORTS = sizeof exports / sizeof *exports };

static void test_bad_arguments(void) {
  for (size_t i = 0; i < N_EXPORTS; i++)
    exports[i].check();
  printf("%d exported functions called with bad arguments\n", N_EXPORTS);
}

/* The NNS_API names of the header, which must all have an entry. */
static void test_every_export_is_checked(void) {
  FILE *f = fopen("../include/nnscan.h", "r");
  if (!f) {
    check_fail(__FILE__, __LINE__, "cannot read ../include/nnscan.h");
    return;
  }
  static char text[1 << 18];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  int declared = 0;
  for (char *p = strstr(text, "\nNNS_API "); p;
       p = strstr(p + 1, "\nNNS_API ")) {
    char *paren = strchr(p, '(');
    char *name = paren;
    while (name > p &&
           (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') ||
            (name[-1] >= '0' && name[-1] <= '9')))
      name--;
    char buf[128];
    size_t len = (size_t)(paren - name);
    if (!paren || len == 0 || len >= sizeof buf)
      continue;
    memcpy(buf, name, len);
    buf[len] = 0;
    declared++;
    bool found = false;
    for (size_t i = 0; i < N_EXPORTS && !found; i++)
      found = !strcmp(exports[i].name, buf);
    if (!found)
      check_fail(__FILE__, __LINE__,
                 "%s is exported but test_api.c does not call it with bad "
                 "arguments", buf);
  }
  CHECK_EQ(declared, N_EXPORTS);
}

/* ==== The ABI can grow ==== */

/* A newer caller's struct is larger: the library fills what it knows and
 * leaves the rest. */
static void test_larger_structs(void) {
  nns_analysis *a = analysed();
  if (!a)
    return;
  struct {
    nns_counts c;
    unsigned char later[32];
  } big;
  SENTINEL(big);
  big.c.size = sizeof big;
  CHECK_EQ(nns_analysis_total_counts(a, &big.c), NNS_OK);
  CHECK_EQ(big.c.size, sizeof big); /* the caller's size is kept */
  CHECK(big.c.params == 376);
  CHECK(untouched(&big, sizeof big.c, sizeof big));
  /* Options a newer caller extended: the library reads its own fields. */
  struct {
    nns_analyze_options o;
    int64_t later;
  } ao = {{.size = sizeof ao, .optimizer = NNS_OPTIMIZER_ADAM}, 12345};
  nns_analysis *adam = NULL;
  CHECK_EQ(nns_model_analyze((nns_model *)nns_analysis_model(a), &ao.o, &adam,
                             &err),
           NNS_OK);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(adam, &t), NNS_OK);
  CHECK_EQ(t.optimizer, NNS_OPTIMIZER_ADAM);
  nns_analysis_free(adam);
  release(a);
}

/* An older caller's struct is smaller (down to the first version): only
 * that much is written. nns_rf's first version ended at `padding`;
 * `global_context` came after it (issue 7). */
static void test_first_version_size(void) {
  nns_analysis *m = analysed();
  if (!m)
    return;
  nns_rf rf;
  SENTINEL(rf);
  rf.size = sizeof rf;
  CHECK_EQ(nns_analysis_total_rf(m, &rf), NNS_OK);
  CHECK_EQ(rf.axes, 2);
  CHECK_EQ(rf.field[0], 11);
  CHECK_EQ(rf.global_context, 0);
  /* The first version's size: field, stride and padding, nothing after. */
  size_t v1 = offsetof(nns_rf, padding) + sizeof rf.padding;
  SENTINEL(rf);
  rf.size = v1;
  CHECK_EQ(nns_analysis_total_rf(m, &rf), NNS_OK);
  CHECK_EQ(rf.size, v1);
  CHECK_EQ(rf.field[1], 11);
  CHECK_EQ(rf.padding[0], 5);
  CHECK(untouched(&rf, v1, sizeof rf));
  CHECK_EQ(nns_analysis_layer_rf(m, 0, &rf), NNS_OK);
  CHECK(untouched(&rf, v1, sizeof rf));
  /* Below it: refused, nothing written. */
  SENTINEL(rf);
  rf.size = v1 - 1;
  CHECK_EQ(nns_analysis_total_rf(m, &rf), NNS_E_ARG);
  CHECK(untouched(&rf, sizeof rf.size, sizeof rf));
  release(m);
}

/* An array of input shapes from a newer caller: strided by its size. */
static void test_input_stride(void) {
  nns_model *m = loaded();
  if (!m)
    return;
  struct {
    nns_input_shape s;
    int64_t later[3];
  } in[1];
  int64_t dims[] = {2, 2, 16, 16};
  memset(in, 0, sizeof in);
  in[0].s = (nns_input_shape){.size = sizeof in[0], .name = "x",
                              .dims = dims, .rank = 4};
  nns_infer_options o = {.size = sizeof o, .inputs = &in[0].s,
                         .input_count = 1};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_OK);
  EXPECT_SHAPE(m, "x", NNS_DT_FLOAT, "2,2,16,16");
  nns_model_free(m);
}

int main(void) {
  RUN(test_bad_arguments);
  RUN(test_every_export_is_checked);
  RUN(test_larger_structs);
  RUN(test_first_version_size);
  RUN(test_input_stride);
  return check_finish();
}
