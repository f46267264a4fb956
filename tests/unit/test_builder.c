/*
 * test_builder.c - the graph builder (nns_builder_*).
 *
 * The main check replays a description of an ONNX export, written by
 * tools/make_builder_desc.py with the onnx package as the reader, through
 * the builder, and compares the summary JSON of the built model with that
 * of the ONNX file loaded as usual: resnet18 and ViT-B/16 (a transformer:
 * attention, LayerNorm, GELU, shape arithmetic). Only the warnings differ,
 * and only by the one about the fixture's missing weights file, which a
 * built model has no reason to give. The other tests build small graphs by
 * hand: a subgraph, symbolic dims, every attribute type, and each misuse
 * the header promises to refuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "report/report_int.h"
#include "builddesc.h"
#include "testmodel.h"

/* ==== Output capture ==== */

/* The built model's summary equals the loaded file's, warnings aside. */
static void expect_same_summary(const char *name) {
  char desc[256], onnx[256];
  snprintf(desc, sizeof desc, "unit/builder/%s.desc", name);
  snprintf(onnx, sizeof onnx, "fixtures/models/%s.onnx", name);
  nns_model *built = NULL;
  bdesc *bd = bdesc_read(desc);
  nns_error err;
  if (!bd)
    check_fail(__FILE__, __LINE__, "cannot read %s", desc);
  else if (bdesc_replay(bd, &built, &err) != NNS_OK)
    check_fail(__FILE__, __LINE__, "%s: %s", desc, err.message);
  bdesc_free(bd);
  if (built) {
    /* The file's weights are external and absent: it alone warns so. */
    nns_model *loaded = tm_load_path(onnx, TM_INFER);
    nns_analysis *a = tm_analyze(loaded, NULL);
    CHECK(a && nns_analysis_warning_count(a) == 1 &&
          strstr(tm_analysis_warning(a, 0), "external data file") != NULL);
    nns_analysis_free(a);
    nns_model_free(loaded);
    a = tm_analyze(built, NULL);
    CHECK(a != NULL);
    CHECK_EQ(nns_analysis_warning_count(a), 0);
    nns_analysis_free(a);
  }
  tm_expect_same_summary(built, onnx, desc);
}

static void test_resnet18(void) { expect_same_summary("resnet18_op17_fold"); }
static void test_vit(void) { expect_same_summary("vit_b_16_op17_fold"); }

/* ==== Small graphs by hand ==== */

/*
 * x [batch, 4] -> If(cond) { then: Relu(x), else: Neg(x) } -> y, with a
 * named symbolic dim, every attribute type on a node nnscan does not know
 * (it is kept, not interpreted) and explicit module paths.
 */
static void test_subgraph_and_attrs(void) {
  nns_builder *b = NULL;
  nns_error err;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "ai.onnx", 16, &err), NNS_OK); /* same */
  CHECK_EQ(nns_builder_add_opset(b, "com.example", 1, &err), NNS_OK);
  int64_t xd[] = {-1, 4};
  const char *xs[] = {"batch", NULL};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, xd, xs, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_input(b, "c", NNS_DT_BOOL, 0, NULL, NULL, &err),
           NNS_OK);
  const char *if_in[] = {"c"}, *if_out[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "If", NULL, "branch", "block", if_in, 1,
                                if_out, 1, &err), NNS_OK);
  const char *br_in[] = {"x"}, *br_out[] = {"t"};
  CHECK_EQ(nns_builder_begin_graph(b, "then_branch", NNS_ATTR_GRAPH, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "Relu", "", "r", "block.act", br_in, 1,
                                br_out, 1, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "t", 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_end_graph(b, &err), NNS_OK);
  br_out[0] = "e";
  CHECK_EQ(nns_builder_begin_graph(b, "else_branch", NNS_ATTR_GRAPH, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "Neg", "", "n", NULL, br_in, 1, br_out, 1,
                                &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "e", 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_end_graph(b, &err), NNS_OK);
  /* Every attribute type, on an op of a custom domain. */
  const char *u_in[] = {"y", ""}, *u_out[] = {"z"};
  CHECK_EQ(nns_builder_add_node(b, "Thing", "com.example", "thing", NULL,
                                u_in, 2, u_out, 1, &err), NNS_OK);
  int64_t iv[] = {1, 2, 3};
  double fv[] = {0.5, 0.25};
  const char *sv[] = {"a", "bc"};
  int64_t td[] = {2};
  int64_t tdata[] = {7, 8};
  CHECK_EQ(nns_builder_attr_int(b, "i", -5, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_float(b, "f", 0.1, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_string(b, "s", "x\0y", 3, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_ints(b, "is", iv, 3, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_floats(b, "fs", fv, 2, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_strings(b, "ss", sv, 2, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_tensor(b, "t", NNS_ATTR_TENSOR, NNS_DT_INT64, 1,
                                   td, tdata, sizeof tdata, &err), NNS_OK);
  for (int k = 0; k < 2; k++)
    CHECK_EQ(nns_builder_attr_tensor(b, "ts", NNS_ATTR_TENSORS, NNS_DT_FLOAT,
                                     1, td, NULL, 0, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_tensor(b, "sp", NNS_ATTR_SPARSE_TENSOR,
                                   NNS_DT_FLOAT, 1, td, NULL, 0, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_attr_type(b, "tp", NNS_ATTR_TYPE_PROTO, NNS_DT_FLOAT,
                                 1, td, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_type(b, "tps", NNS_ATTR_TYPE_PROTOS, NNS_DT_INT8,
                                 -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_begin_graph(b, "gs", NNS_ATTR_GRAPHS, &err), NNS_OK);
  CHECK_EQ(nns_builder_end_graph(b, &err), NNS_OK);
  CHECK_EQ(nns_builder_begin_graph(b, "gs", NNS_ATTR_GRAPHS, &err), NNS_OK);
  CHECK_EQ(nns_builder_end_graph(b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "z", 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_metadata(b, "k", "v", &err), NNS_OK);
  CHECK_EQ(nns_builder_set_producer(b, "me", "1", &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  /* Spent: every call but free refuses. */
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_E_STATE);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_E_STATE);
  nns_builder_free(b);
  if (!m)
    return;
  nns_model_info info = {.size = sizeof info};
  CHECK_EQ(nns_model_get_info(m, &info), NNS_OK);
  CHECK_EQ(info.node_count, 2);
  CHECK_EQ(info.subgraph_node_count, 2);
  CHECK_STR(info.producer_name, "me");
  CHECK_EQ(info.ir_version, 10);
  CHECK_EQ(nns_model_opset_count(m), 2);
  const char *d, *k, *v;
  int64_t ver;
  CHECK_EQ(nns_model_opset(m, 0, &d, &ver), NNS_OK);
  CHECK_STR(d, "");
  CHECK_EQ(ver, 16);
  CHECK_EQ(nns_model_metadata(m, 0, &k, &v), NNS_OK);
  CHECK_STR(v, "v");
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  /* If merges its branches: Relu and Neg keep [batch, 4]. */
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "batch,4");
  CHECK_EQ(nns_model_unknown_op_count(m), 1); /* com.example.Thing */
  /* Nodes: If, its two branch nodes, Thing. */
  CHECK_EQ(nns_model_node_count(m), 4);
  nns_node_info n = {.size = sizeof n};
  CHECK_EQ(nns_model_node(m, 1, &n), NNS_OK);
  CHECK_STR(n.op_type, "Relu");
  CHECK_EQ(n.parent, 0);
  CHECK_STR(n.parent_attr, "then_branch");
  CHECK_EQ(n.graph_depth, 1);
  CHECK_EQ(nns_model_node(m, 3, &n), NNS_OK);
  CHECK_STR(n.domain, "com.example");
  CHECK_EQ(n.input_count, 2);
  size_t in1 = 0;
  CHECK_EQ(nns_model_node_input(m, 3, 1, &in1), NNS_OK);
  CHECK_EQ(in1, (size_t)-1); /* the omitted optional input */
  nns_model_free(m);
}

/* Explicit module paths are taken as given: no name parsing, no folding of
 * `relu_1` into `relu` even for a PyTorch producer. */
static void test_module_paths(void) {
  nns_builder *b = NULL;
  nns_error err;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_set_producer(b, "pytorch", "2.1", &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  int64_t d[] = {1, 8};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, d, NULL, &err),
           NNS_OK);
  const char *in[] = {"x"}, *o1[] = {"a"}, *o2[] = {"b"}, *o3[] = {"c"};
  /* The name says one thing, the path another: the path wins. */
  CHECK_EQ(nns_builder_add_node(b, "Relu", "", "/nowhere/Relu",
                                "encoder.relu", in, 1, o1, 1, &err), NNS_OK);
  in[0] = "a";
  CHECK_EQ(nns_builder_add_node(b, "Relu", "", "r2", "encoder.relu_1", in, 1,
                                o2, 1, &err), NNS_OK);
  in[0] = "b";
  CHECK_EQ(nns_builder_add_node(b, "Neg", "", "/head/Neg", NULL, in, 1, o3,
                                1, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "c", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  if (!m)
    return;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  /* root, encoder, encoder.relu, encoder.relu_1, head */
  CHECK_EQ(nns_analysis_layer_count(a), 5);
  const char *want[] = {"", "encoder", "encoder.relu", "encoder.relu_1",
                        "head"};
  for (size_t i = 0; i < 5; i++)
    CHECK_STR(tm_layer_at(a, i).path, want[i]);
  nns_node_info n = {.size = sizeof n};
  CHECK_EQ(nns_analysis_node(a, 0, &n), NNS_OK);
  CHECK_STR(n.module_path, "encoder.relu");
  CHECK_EQ(n.layer, 2);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* Subgraph nodes have their own counts: If(c) { x @ w } else { x @ w }
 * with x [2,3] and w [3,4]: each MatMul is 2*3*4 = 24 MACs and writes
 * 2*4 float32 = 32 bytes; both sit in the If's layer. */
static void test_subgraph_node_counts(void) {
  nns_builder *b = NULL;
  nns_error err;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  int64_t xd[] = {2, 3}, wd[] = {3, 4};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, xd, NULL, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_input(b, "c", NNS_DT_BOOL, 0, NULL, NULL, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 2, wd, NULL, 0,
                                       &err), NNS_OK);
  const char *in[] = {"c"}, *out[] = {"y"}, *mm[] = {"x", "w"};
  CHECK_EQ(nns_builder_add_node(b, "If", "", "if", "gate", in, 1, out, 1,
                                &err), NNS_OK);
  const char *branch[] = {"then_branch", "else_branch"};
  const char *bout[] = {"t", "e"};
  for (int k = 0; k < 2; k++) {
    CHECK_EQ(nns_builder_begin_graph(b, branch[k], NNS_ATTR_GRAPH, &err),
             NNS_OK);
    CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "mm", NULL, mm, 2,
                                  &bout[k], 1, &err), NNS_OK);
    CHECK_EQ(nns_builder_add_output(b, bout[k], 0, -1, NULL, NULL, &err),
             NNS_OK);
    CHECK_EQ(nns_builder_end_graph(b, &err), NNS_OK);
  }
  CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  if (!m)
    return;
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_node_counts(NULL, 1, &c), NNS_E_ARG);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 3);
  for (size_t i = 1; i < 3; i++) {
    nns_node_info n = {.size = sizeof n};
    CHECK_EQ(nns_analysis_node(a, i, &n), NNS_OK);
    CHECK_STR(n.op_type, "MatMul");
    CHECK_EQ(n.parent, 0);
    CHECK_STR(n.module_path, "gate");
    CHECK(n.flags & NNS_NODE_COUNTED);
    CHECK_EQ(nns_analysis_node_counts(a, i, &c), NNS_OK);
    CHECK_EQ(c.macs, 24);
    CHECK_EQ(c.activation_bytes, 32);
    CHECK_EQ(c.nodes, 1);
  }
  nns_node_info n = {.size = sizeof n};
  CHECK_EQ(nns_analysis_node(a, 0, &n), NNS_OK);
  CHECK(n.flags & NNS_NODE_SUBGRAPHS);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_misuse(void) {
  nns_builder *b = NULL;
  nns_error err;
  CHECK_EQ(nns_builder_new(NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_add_opset(NULL, "", 17, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  int64_t d2[] = {2, 3};
  /* An attribute before any node. */
  CHECK_EQ(nns_builder_attr_int(b, "axis", 1, &err), NNS_E_STATE);
  CHECK(strstr(err.message, "before any node") != NULL);
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, d2, NULL, &err),
           NNS_OK);
  /* Duplicate names, bad types and dims, data of the wrong size. */
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, d2, NULL, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "defined twice") != NULL);
  CHECK_EQ(nns_builder_add_input(b, "", NNS_DT_FLOAT, 2, d2, NULL, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_builder_add_input(b, "q", 99, 2, d2, NULL, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_add_input(b, "q", NNS_DT_FLOAT, 2, NULL, NULL, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_builder_add_input(b, "q", NNS_DT_FLOAT, 65, d2, NULL, &err),
           NNS_E_ARG);
  float w[5] = {0};
  CHECK_EQ(nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 2, d2, w,
                                       sizeof w, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "need 24") != NULL);
  int64_t neg[] = {-1, 3};
  CHECK_EQ(nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 2, neg, NULL, 0,
                                       &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 2, d2, NULL, 0,
                                       &err), NNS_OK);
  const char *in[] = {"x", "w"}, *out[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "", "", "n", NULL, in, 2, out, 1, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_builder_add_node(b, "Add", "", "n", NULL, in, 2, NULL, 1,
                                &err), NNS_E_ARG);
  const char *dup_out[] = {"w"};
  CHECK_EQ(nns_builder_add_node(b, "Neg", "", "n", NULL, in, 1, dup_out, 1,
                                &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_add_node(b, "Add", "", "n", NULL, in, 2, out, 1,
                                &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_int(b, "axis", 1, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_int(b, "axis", 2, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "set twice") != NULL);
  CHECK_EQ(nns_builder_attr_tensor(b, "t", NNS_ATTR_INT, NNS_DT_FLOAT, 0,
                                   NULL, NULL, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_begin_graph(b, "g", NNS_ATTR_INTS, &err), NNS_E_ARG);
  /* Unbalanced subgraphs. */
  CHECK_EQ(nns_builder_end_graph(b, &err), NNS_E_STATE);
  CHECK_EQ(nns_builder_begin_graph(b, "body", NNS_ATTR_GRAPH, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_E_STATE);
  CHECK(m == NULL);
  CHECK_EQ(nns_builder_end_graph(b, &err), NNS_OK);
  /* A dangling input fails finish, and the builder stays usable. */
  const char *din[] = {"y", "nowhere"}, *dout[] = {"z"};
  CHECK_EQ(nns_builder_add_node(b, "Add", "", "m", NULL, din, 2, dout, 1,
                                &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "z", 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_E_DANGLING);
  CHECK(strstr(err.message, "nowhere") != NULL);
  CHECK_EQ(nns_builder_add_input(b, "nowhere", NNS_DT_FLOAT, 2, d2, NULL,
                                 &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  if (m) {
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
    EXPECT_SHAPE(m, "z", NNS_DT_FLOAT, "2,3");
    CHECK_EQ(nns_model_value_count(m), 5); /* x, nowhere, w, y, z */
  }
  nns_model_free(m);
  /* Freeing an unfinished builder frees its model too (leak-checked). */
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, d2, NULL, &err),
           NNS_OK);
  nns_builder_free(b);
}

/*
 * NonZero's count is data: its rule leaves the second dim unknown. With
 * NNS_INFER_FALLBACK_DECLARED the declared count (what a binding's run
 * produced) stands in, and flows on (Transpose); without it the dim stays
 * unknown. A dim the rule knows is never replaced: a declared value that
 * contradicts it is only warned about.
 */
static void test_declared_fills_data_dependent_dims(void) {
  nns_builder *b = NULL;
  nns_error err;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  int64_t xd[] = {2, 4};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_BOOL, 2, xd, NULL, &err),
           NNS_OK);
  const char *nz_in[] = {"x"}, *nz_out[] = {"nz"};
  const char *tr_in[] = {"nz"}, *tr_out[] = {"idx"};
  CHECK_EQ(nns_builder_add_node(b, "NonZero", NULL, "nonzero", NULL, nz_in,
                                1, nz_out, 1, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "Transpose", NULL, "t", NULL, tr_in, 1,
                                tr_out, 1, &err), NNS_OK);
  /* declared: the count 5, and a wrong rank dim (3 for 2) */
  int64_t nzd[] = {3, 5};
  CHECK_EQ(nns_builder_add_value_info(b, "nz", NNS_DT_INT64, 2, nzd, NULL,
                                      &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "idx", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  EXPECT_SHAPE(m, "nz", NNS_DT_INT64, "2,?");
  EXPECT_SHAPE(m, "idx", NNS_DT_INT64, "?,2");
  nns_infer_options o = {.size = sizeof o,
                         .flags = NNS_INFER_FALLBACK_DECLARED};
  CHECK_EQ(nns_model_infer(m, &o, &err), NNS_OK);
  EXPECT_SHAPE(m, "nz", NNS_DT_INT64, "2,5");
  EXPECT_SHAPE(m, "idx", NNS_DT_INT64, "5,2");
  CHECK_EQ(nns_model_warning_count(m), 1); /* the declared 3 for rank 2 */
  nns_model_free(m);
}

/*
 * A ceil_mode pool whose kernel is wider than its input (EfficientNet's and
 * ALIGN's pooler: kernel = hidden size over a small map): one output per
 * axis, as PyTorch and ONNX give it ((3 - 8 + 7) / 8 + 1 = 1), and the
 * window reads only the 3 x 3 taps inside: 4 channels x (9 - 1 + 2) FLOPs.
 * Without ceil_mode the same window does not fit: NNS_E_SHAPE.
 */
static void pool_wider_than_input(bool ceil_mode, nns_status want) {
  nns_builder *b = NULL;
  nns_error err;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  int64_t xd[] = {1, 4, 3, 3};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 4, xd, NULL, &err),
           NNS_OK);
  const char *in[] = {"x"}, *out[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "AveragePool", NULL, "pool", NULL, in, 1,
                                out, 1, &err), NNS_OK);
  int64_t k[] = {8, 8};
  CHECK_EQ(nns_builder_attr_ints(b, "kernel_shape", k, 2, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_ints(b, "strides", k, 2, &err), NNS_OK);
  CHECK_EQ(nns_builder_attr_int(b, "ceil_mode", ceil_mode, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  CHECK_EQ(nns_model_infer(m, NULL, &err), want);
  if (want == NNS_OK) {
    EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "1,4,1,1");
    nns_analysis *a = tm_analyze(m, NULL);
    CHECK_EQ(tm_totals_of(a).all.flops, 4 * (9 - 1 + 2));
    nns_analysis_free(a);
  }
  nns_model_free(m);
}

static void test_ceil_mode_pool_wider_than_input(void) {
  pool_wider_than_input(true, NNS_OK);
  pool_wider_than_input(false, NNS_E_SHAPE);
}

int main(void) {
  RUN(test_resnet18);
  RUN(test_vit);
  RUN(test_subgraph_and_attrs);
  RUN(test_module_paths);
  RUN(test_subgraph_node_counts);
  RUN(test_misuse);
  RUN(test_declared_fills_data_dependent_dims);
  RUN(test_ceil_mode_pool_wider_than_input);
  return check_finish();
}
