/*
 * test_custom_op.c - operators registered by the user
 * (nns_model_register_op, thop's custom_ops) on analyze_custom.onnx:
 *
 *   x [2,3] -> com.example.MyOp (k=3) -> y -> Relu -> z
 *           -> com.other.MyOp -> u -> com.example.Unknown -> w
 *
 * com.example.MyOp's shape callback doubles the last dim ([2,6]); its cost
 * callback counts k FLOPs per output element (3 * 12 = 36), one MAC per
 * output element (12) and inputs + outputs DMAs (6 + 12 = 18). The same op
 * name in com.other keeps the shape and counts 1 FLOP per element (12),
 * DMAs 12 + 12 = 24. Relu on [2,6]: 12 FLOPs, DMAs 24 (its own rule). The
 * unregistered com.example.Unknown is listed as unknown and uncounted, and
 * makes the totals PARTIAL: FLOPs 36 + 12 + 12 = 60, MACs 12, DMAs
 * 18 + 24 + 24 = 66.
 */
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

#define MODEL "unit/models/analyze_custom.onnx"

static int shape_calls, cost_calls;

static int64_t numel_out(const nns_op_ctx *cx) {
  int64_t n = 1;
  for (int k = 0; k < nns_op_ctx_output_rank(cx, 0); k++)
    n *= tm_ctx_out_dim(cx, 0, k).value;
  return n;
}

static nns_status double_last(void *user, nns_op_ctx *cx) {
  CHECK(user == &shape_calls);
  shape_calls++;
  CHECK_EQ(nns_op_ctx_input_count(cx), 1);
  CHECK_EQ(nns_op_ctx_output_count(cx), 1);
  CHECK_EQ(nns_op_ctx_input_dtype(cx, 0), NNS_DT_FLOAT);
  CHECK_EQ(nns_op_ctx_input_dtype(cx, 5), 0);
  CHECK_EQ(nns_op_ctx_input_rank(cx, 5), -1);
  CHECK_EQ(tm_ctx_in_dim(cx, 0, 9).value, -1);
  CHECK_EQ(nns_op_ctx_attr_int(cx, "k", 0), 3);
  CHECK(nns_op_ctx_attr_float(cx, "k", 0.0) == 3.0);
  CHECK_EQ(nns_op_ctx_attr_int(cx, "missing", 7), 7);
  int rank = nns_op_ctx_input_rank(cx, 0);
  CHECK_EQ(rank, 2);
  int64_t dims[2] = {tm_ctx_in_dim(cx, 0, 0).value,
                     2 * tm_ctx_in_dim(cx, 0, 1).value};
  CHECK_EQ(nns_op_ctx_set_output(cx, 3, NNS_DT_FLOAT, 2, dims), NNS_E_ARG);
  CHECK_EQ(nns_op_ctx_set_output(cx, 0, NNS_DT_FLOAT, 2, NULL), NNS_E_ARG);
  return nns_op_ctx_set_output(cx, 0, NNS_DT_FLOAT, rank, dims);
}

static nns_status k_per_element(void *user, const nns_op_ctx *cx,
                                int64_t *flops, int64_t *macs, int64_t *dmas) {
  (void)user;
  cost_calls++;
  int64_t y = numel_out(cx), x = 1;
  for (int k = 0; k < nns_op_ctx_input_rank(cx, 0); k++)
    x *= tm_ctx_in_dim(cx, 0, k).value;
  *flops = nns_op_ctx_attr_int(cx, "k", 1) * y;
  *macs = y;
  *dmas = x + y;
  return NNS_OK;
}

static nns_status same_shape(void *user, nns_op_ctx *cx) {
  (void)user;
  int64_t dims[8];
  int rank = nns_op_ctx_input_rank(cx, 0);
  for (int k = 0; k < rank && k < 8; k++)
    dims[k] = tm_ctx_in_dim(cx, 0, k).value;
  return nns_op_ctx_set_output(cx, 0, nns_op_ctx_input_dtype(cx, 0), rank,
                               dims);
}

static nns_status one_per_element(void *user, const nns_op_ctx *cx,
                                  int64_t *flops, int64_t *macs,
                                  int64_t *dmas) {
  (void)user;
  int64_t y = numel_out(cx);
  *flops = y;
  *macs = 0;
  *dmas = 2 * y;
  return NNS_OK;
}

static nns_status fails(void *user, nns_op_ctx *cx) {
  (void)user;
  (void)cx;
  return NNS_E_SHAPE;
}

static void test_custom_op(void) {
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_file(MODEL, NULL, &m, &err), NNS_OK);
  if (!m)
    return;
  CHECK_EQ(nns_model_register_op(m, "com.example", NULL, double_last, NULL,
                                 NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_register_op(m, "com.example", "MyOp", double_last,
                                 k_per_element, &shape_calls, &err), NNS_OK);
  CHECK_EQ(nns_model_register_op(m, "com.other", "MyOp", same_shape,
                                 one_per_element, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(shape_calls, 1);
  EXPECT_SHAPE(m, "y", TM_ANY_DTYPE, "2,6");
  /* The shape flows on through Relu. */
  EXPECT_SHAPE(m, "z", TM_ANY_DTYPE, "2,6");
  EXPECT_SHAPE(m, "u", TM_ANY_DTYPE, "2,6");
  /* The custom op's attribute is its own: no "not part of" warning. */
  for (size_t i = 0; i < nns_model_warning_count(m); i++)
    CHECK(!strstr(tm_warning(m, i), "attribute 'k'"));
  /* Only the unregistered op is unknown. */
  CHECK_EQ(nns_model_unknown_op_count(m), 1);
  const char *d, *op;
  size_t n;
  nns_model_unknown_op(m, 0, &d, &op, &n);
  CHECK_STR(d, "com.example");
  CHECK_STR(op, "Unknown");

  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(cost_calls, 1);
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.flops, 36 + 12 + 12);
  CHECK_EQ(t.all.macs, 12);
  CHECK_EQ(t.all.dmas, 18 + 24 + 24);
  CHECK(t.all.flags & NNS_COUNT_PARTIAL);
  CHECK_EQ(nns_analysis_uncounted_op_count(a), 1);
  nns_analysis_uncounted_op(a, 0, &d, &op, &n);
  CHECK_STR(d, "com.example");
  CHECK_STR(op, "Unknown");
  CHECK_EQ(n, 1);
  /* Per op type: MyOp twice (two domains), both counted. */
  size_t myop = 0;
  for (size_t i = 0; i < nns_analysis_op_type_count(a); i++) {
    nns_op_type_info ot = {.size = sizeof ot};
    nns_counts c = {.size = sizeof c};
    nns_analysis_op_type(a, i, &ot);
    d = ot.domain;
    op = ot.op_type;
    int counted = ot.counted;
    nns_analysis_op_type_counts(a, i, &c);
    if (strcmp(op, "MyOp") == 0) {
      myop++;
      CHECK(counted);
      CHECK_EQ(c.flops, strcmp(d, "com.example") == 0 ? 36 : 12);
    }
    if (strcmp(op, "Unknown") == 0)
      CHECK(!counted && (c.flags & NNS_COUNT_PARTIAL));
  }
  CHECK_EQ(myop, 2);
  tm_layer root = tm_layer_at(a, 0);
  CHECK_STR(root.op_types, "MyOp,Relu,Unknown");

  /* A shape callback that fails fails inference, naming the node. */
  CHECK_EQ(nns_model_register_op(m, "com.other", "MyOp", fails, NULL, NULL,
                                 &err), NNS_OK);
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_E_SHAPE);
  CHECK(strstr(err.message, "/other/MyOp") != NULL);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* Without registrations, both MyOps are unknown: shapes stop, nothing
 * after them is counted, and the totals say so. */
static void test_unregistered(void) {
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_file(MODEL, NULL, &m, &err), NNS_OK);
  if (!m)
    return;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_model_unknown_op_count(m), 3);
  tm_totals t = tm_totals_of(a);
  CHECK(t.all.flags & NNS_COUNT_PARTIAL);
  CHECK_EQ(t.all.flops, 0);
  size_t listed = 0;
  for (size_t i = 0; i < nns_analysis_uncounted_op_count(a); i++) {
    const char *d, *op;
    size_t n;
    nns_analysis_uncounted_op(a, i, &d, &op, &n);
    listed += n;
  }
  CHECK_EQ(listed, 4); /* two MyOps, Unknown, and Relu on an unknown shape */
  nns_analysis_free(a);
  nns_model_free(m);
}

/* A cost rule that fails leaves its node uncounted for that reason, and the
 * text footer shows the warning that says why (the text report prints no
 * warnings otherwise). */
static nns_status cost_fails(void *user, const nns_op_ctx *cx, int64_t *flops,
                             int64_t *macs, int64_t *dmas) {
  (void)user, (void)cx, (void)flops, (void)macs, (void)dmas;
  return NNS_E_SHAPE;
}

typedef struct text_buf {
  char data[16384]; /* the report, cut at its size */
  size_t len;       /* bytes in data */
} text_buf;

static int to_buf(void *user, const char *data, size_t size) {
  text_buf *b = user;
  size_t room = sizeof b->data - 1 - b->len;
  size_t n = size < room ? size : room;
  memcpy(b->data + b->len, data, n);
  b->len += n;
  b->data[b->len] = 0;
  return 0;
}

static void test_failed_cost_rule_in_footer(void) {
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_file(MODEL, NULL, &m, &err), NNS_OK);
  if (!m)
    return;
  CHECK_EQ(nns_model_register_op(m, "com.example", "MyOp", double_last,
                                 cost_fails, &shape_calls, &err), NNS_OK);
  CHECK_EQ(nns_model_register_op(m, "com.other", "MyOp", same_shape,
                                 one_per_element, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  size_t failed_nodes = 0;
  for (size_t i = 0; i < nns_analysis_uncounted_op_count(a); i++) {
    size_t no_rule = 0, no_size = 0, failed = 0;
    CHECK_EQ(nns_analysis_uncounted_op_why(a, i, &no_rule, &no_size, &failed),
             NNS_OK);
    failed_nodes += failed;
  }
  CHECK_EQ(failed_nodes, 1);
  static text_buf b;
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT};
  CHECK_EQ(nns_report(a, &o, to_buf, &b, &err), NNS_OK);
  CHECK(strstr(b.data, "the cost rule failed; the warnings below say why")
        != NULL);
  CHECK(strstr(b.data, "\nwarning: not counted: node '/my/MyOp' "
                      "(com.example.MyOp): the registered cost rule failed")
        != NULL);
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_custom_op);
  RUN(test_unregistered);
  RUN(test_failed_cost_rule_in_footer);
  return check_finish();
}
