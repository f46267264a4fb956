/*
 * test_parallel.c - one rank of a parallel plan (nns_model_set_parallel,
 * src/analyze/parallel.c): local shards, optimizer state, collectives per
 * kind, the mesh and the budget, every figure worked out here by hand
 * from FSDP2's sharding (torch.chunk along dim 0) and the conventions of
 * docs/metrics.md, "Per rank".
 *
 * The model: x[2,4] -> MatMul(layers.0.fc.weight[4,4]) in layers.0.fc ->
 * MatMul(layers.1.fc.weight[4,4]) in layers.1.fc -> MatMul(head.weight
 * [4,6]) + head.bias[6] in head -> y[2,6]. float32, all trainable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

static nns_error err;

static nns_model *model(void) {
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  int64_t xd[] = {2, 4}, wd[] = {4, 4}, hd[] = {4, 6}, bd[] = {6};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, xd, NULL, &err),
           NNS_OK);
  const char *names[] = {"layers.0.fc.weight", "layers.1.fc.weight",
                         "head.weight", "head.bias"};
  const int64_t *dims[] = {wd, wd, hd, bd};
  int ranks[] = {2, 2, 2, 1};
  for (int i = 0; i < 4; i++)
    CHECK_EQ(nns_builder_add_initializer(b, names[i], NNS_DT_FLOAT, ranks[i],
                                         dims[i], NULL, 0, &err),
             NNS_OK);
  const char *in1[] = {"x", names[0]}, *o1[] = {"h0"};
  const char *in2[] = {"h0", names[1]}, *o2[] = {"h1"};
  const char *in3[] = {"h1", names[2]}, *o3[] = {"h2"};
  const char *in4[] = {"h2", names[3]}, *o4[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "m0", "layers.0.fc", in1, 2,
                                o1, 1, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "m1", "layers.1.fc", in2, 2,
                                o2, 1, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "m2", "head", in3, 2, o3, 1,
                                &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "Add", "", "a2", "head", in4, 2, o4, 1,
                                &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  for (int i = 0; i < 4; i++)
    CHECK_EQ(nns_model_set_param_kind(m, names[i], NNS_PARAM_TRAINABLE, &err),
             NNS_OK);
  return m;
}

static nns_analysis *analyze(nns_model *m, nns_optimizer opt) {
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  nns_analyze_options o = {.size = sizeof o, .optimizer = opt};
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, &o, &a, &err), NNS_OK);
  return a;
}

static size_t layer(const nns_analysis *a, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
    nns_layer_info l = {.size = sizeof l};
    nns_analysis_layer(a, i, &l);
    if (!strcmp(l.path, path))
      return i;
  }
  return (size_t)-1;
}

static void test_no_plan(void) {
  nns_model *m = model();
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_ADAMW);
  nns_per_rank r = {.size = sizeof r};
  CHECK_EQ(nns_analysis_per_rank(a, &r), NNS_OK);
  CHECK_EQ(r.world_size, 0);
  CHECK_EQ(nns_analysis_mesh_count(a), 0);
  char *json = tm_summary_json(a);
  CHECK(json && !strstr(json, "per_rank"));
  free(json);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* fsdp 4 x dp 2, units found from the layer list (layers.0, layers.1).
 * Rank 0's shards (ceil(d0 / 4) rows): each block weight 1 row of 4 (16
 * B, gathered 64 B), head.weight 1 row of 6 (24 B, gathered 96 B),
 * head.bias 2 of 6 (8 B, gathered 32 B: padded). */
static void test_fsdp_dp(void) {
  nns_model *m = model();
  nns_parallel p = {.size = sizeof p, .dp = 2, .fsdp = 4,
                    .budget_bytes = 100};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_OK);
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_ADAMW);
  nns_per_rank r = {.size = sizeof r};
  CHECK_EQ(nns_analysis_per_rank(a, &r), NNS_OK);
  CHECK_EQ(r.world_size, 8);
  CHECK_EQ(r.params, 4 + 4 + 6 + 2);
  CHECK_EQ(r.param_bytes, 64);
  CHECK_EQ(r.grad_bytes, 64);
  /* AdamW: exp_avg + exp_avg_sq of the shard and a 4-byte step each */
  CHECK_EQ(r.optimizer_bytes, (32 + 4) + (32 + 4) + (48 + 4) + (16 + 4));
  /* blocks gathered twice, the root once; every unit reduce-scattered
   * once; the local gradient shards all-reduced over dp */
  CHECK_EQ(r.comm[NNS_COMM_ALL_GATHER], 64 * 2 + 64 * 2 + (96 + 32));
  CHECK_EQ(r.comm[NNS_COMM_REDUCE_SCATTER], 64 + 64 + 128);
  CHECK_EQ(r.comm[NNS_COMM_ALL_REDUCE], 64);
  CHECK_EQ(r.comm[NNS_COMM_ALL_TO_ALL], 0);
  CHECK_EQ(r.comm_bytes, 384 + 256 + 64);
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_total_counts(a, &c), NNS_OK);
  CHECK_EQ(r.macs, 2 * 4 * 4 * 2 + 2 * 4 * 6);
  CHECK_EQ(r.flops, c.flops);
  /* no step: the estimate's activations; the static shards, the input,
   * the gradients, the root gathered whole beside its shard (FSDP2's
   * copy-out), two blocks and the largest reduce-scatter input (the
   * root's, 96 + 32) */
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  CHECK_EQ(r.estimate, 1);
  CHECK_EQ(r.saved_bytes, t.train_activation_bytes);
  CHECK_EQ(r.train_peak_bytes, 64 + 144 + 32 + 64 + t.train_activation_bytes +
                                   128 + 2 * 64 + 128);
  CHECK_EQ(r.budget_bytes, 100);
  CHECK_EQ(r.fits, 0);
  CHECK_STR(r.grow, "fsdp");
  /* the mesh: the axes over 1 in the order dp, fsdp, tp, ep */
  CHECK_EQ(nns_analysis_mesh_count(a), 2);
  const char *name = NULL;
  int64_t size = 0;
  CHECK_EQ(nns_analysis_mesh(a, 1, &name, &size), NNS_OK);
  CHECK_STR(name, "fsdp");
  CHECK_EQ(size, 4);
  CHECK_EQ(nns_analysis_mesh(a, 2, &name, &size), NNS_E_ARG);
  /* per layer: a block's own collectives and shards */
  nns_per_rank l = {.size = sizeof l};
  CHECK_EQ(nns_analysis_layer_per_rank(a, layer(a, "layers.0"), &l), NNS_OK);
  CHECK_EQ(l.params, 4);
  CHECK_EQ(l.comm[NNS_COMM_ALL_GATHER], 128);
  CHECK_EQ(l.comm[NNS_COMM_REDUCE_SCATTER], 64);
  CHECK_EQ(l.comm[NNS_COMM_ALL_REDUCE], 16);
  CHECK_EQ(l.comm_bytes, 128 + 64 + 16);
  char *json = tm_summary_json(a);
  CHECK(json && strstr(json, "\"per_rank\": {\"world_size\": 8, \"mesh\": "
                             "{\"dp\": 2, \"fsdp\": 4}"));
  CHECK(json && strstr(json, "\"all_gather\": 384, \"reduce_scatter\": 256, "
                             "\"all_reduce\": 64, \"all_to_all\": 0}"));
  free(json);
  nns__membuf text = {0};
  nns_report_options ro = {.size = sizeof ro, .format = NNS_FORMAT_TEXT};
  CHECK_EQ(nns_report(a, &ro, nns__membuf_write, &text, &err), NNS_OK);
  CHECK(text.data && strstr(text.data, "Per rank (8 ranks: dp=2 x fsdp=4, "
                                       "estimate)"));
  CHECK(text.data && strstr(text.data, "does not fit in 100 B per rank: "
                                       "grow fsdp"));
  free(text.data);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* tp 2 on a graph already the rank's: a column-split module all-reduces
 * its input's gradient (x: 32 B), a row-split one its output (h1: 32 B);
 * explicit units and a named mesh. */
static void test_tp_and_names(void) {
  nns_model *m = model();
  const char *tp[] = {"layers.0.fc", "layers.1.fc"};
  int style[] = {NNS_TP_COLWISE, NNS_TP_ROWWISE};
  const char *mesh[] = {"tp"};
  int64_t msize[] = {2};
  nns_parallel p = {.size = sizeof p, .tp = 2, .tp_count = 2, .tp_path = tp,
                    .tp_style = style, .mesh_count = 1, .mesh_name = mesh,
                    .mesh_size = msize};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_OK);
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_SGD);
  nns_per_rank r = {.size = sizeof r};
  CHECK_EQ(nns_analysis_per_rank(a, &r), NNS_OK);
  CHECK_EQ(r.world_size, 2);
  CHECK_EQ(r.params, 16 + 16 + 24 + 6);
  CHECK_EQ(r.optimizer_bytes, 0);
  CHECK_EQ(r.comm[NNS_COMM_ALL_REDUCE], 32 + 32);
  CHECK_EQ(r.comm_bytes, 64);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  /* no FSDP, no DDP: the static parts, the gradients, the activations */
  CHECK_EQ(r.train_peak_bytes, 248 + 32 + 248 + t.train_activation_bytes);
  CHECK_EQ(r.fits, 0);
  CHECK(r.grow == NULL);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* tp 2 with the logical sizes of the split weights (the graph holds
 * their shards, 4x4 each, of 8x4 and 4x8): the totals count the unsplit
 * model, 32 + 32 + 24 + 6 elements, 376 bytes; the per-rank figures stay
 * the shards', 16 + 16 + 24 + 6. */
static void test_tp_logical_totals(void) {
  nns_model *m = model();
  const char *tp[] = {"layers.0.fc", "layers.1.fc"};
  int style[] = {NNS_TP_COLWISE, NNS_TP_ROWWISE};
  const char *lname[] = {"layers.0.fc.weight", "layers.1.fc.weight"};
  int64_t lsize[] = {32, 32};
  nns_parallel p = {.size = sizeof p, .tp = 2, .tp_count = 2, .tp_path = tp,
                    .tp_style = style, .logical_count = 2,
                    .logical_name = lname, .logical_elements = lsize};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_OK);
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_SGD);
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_total_counts(a, &c), NNS_OK);
  CHECK_EQ(c.params, 32 + 32 + 24 + 6);
  CHECK_EQ(c.param_bytes, 4 * (32 + 32 + 24 + 6));
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  CHECK_EQ(t.params_unique, 32 + 32 + 24 + 6);
  nns_per_rank r = {.size = sizeof r};
  CHECK_EQ(nns_analysis_per_rank(a, &r), NNS_OK);
  CHECK_EQ(r.params, 16 + 16 + 24 + 6);
  CHECK_EQ(r.param_bytes, 4 * (16 + 16 + 24 + 6));
  nns_analysis_free(a);
  /* a logical size without its count, or a negative one: refused */
  p.logical_elements = NULL;
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  lsize[1] = -1;
  p.logical_elements = lsize;
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "'layers.1.fc.weight' has logical size -1"));
  nns_model_free(m);
}

static void test_bad_plans(void) {
  nns_model *m = model();
  nns_parallel p = {.size = 8};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  p = (nns_parallel){.size = sizeof p, .fsdp = -2};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "fsdp is -2") != NULL);
  int style[] = {7};
  const char *tp[] = {"layers.0.fc"};
  p = (nns_parallel){.size = sizeof p, .tp = 2, .tp_count = 1, .tp_path = tp,
                     .tp_style = style};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  const char *mesh[] = {"x"};
  int64_t ms[] = {3};
  p = (nns_parallel){.size = sizeof p, .fsdp = 2, .mesh_count = 1,
                     .mesh_name = mesh, .mesh_size = ms};
  CHECK_EQ(nns_model_set_parallel(m, &p, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "the mesh has 3 ranks") != NULL);
  CHECK_EQ(nns_model_set_parallel(NULL, &p, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_parallel(m, NULL, &err), NNS_OK);
  CHECK(nns_comm_kind_name(4) == NULL);
  CHECK_STR(nns_tp_style_name(NNS_TP_ROWWISE), "rowwise");
  nns_model_free(m);
}

int main(void) {
  RUN(test_no_plan);
  RUN(test_fsdp_dp);
  RUN(test_tp_and_names);
  RUN(test_tp_logical_totals);
  RUN(test_bad_plans);
  return check_finish();
}
