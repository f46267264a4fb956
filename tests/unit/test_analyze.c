/*
 * test_analyze.c - the analysis on small hand-built graphs
 * (tests/unit/models/analyze_*.onnx, written by make_analyze.py), every
 * expected number worked out by hand in the comments: receptive fields of
 * residual and multi-branch graphs and of resnet18, peak activation memory
 * and the training estimate, parameter classification (copies, tied
 * weights, constants, quantized weights), the module tree from node names,
 * and the API's behaviour before analysis and on bad arguments.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

/* Loads and analyzes the model at `path` with optimizer `opt`. */
static nns_model *analyzed(const char *path, nns_optimizer opt) {
  nns_analyze_options o = {.optimizer = opt};
  return tm_load_path(path, TM_ANALYZE, &o);
}

static nns_layer_info layer(const nns_model *m, const char *path) {
  nns_layer_info l;
  for (size_t i = 0; i < nns_model_layer_count(m); i++) {
    nns_model_layer(m, i, &l);
    if (strcmp(l.path, path) == 0)
      return l;
  }
  check_fail(__FILE__, __LINE__, "no layer '%s'", path);
  nns_model_layer(m, (size_t)-1, &l);
  return l;
}

static const char *value_name(const nns_model *m, size_t i) {
  nns_value_info v;
  nns_model_value(m, i, &v);
  return v.name ? v.name : "(none)";
}

/* ==== Receptive field ==== */

/*
 * analyze_residual: x [1,2,16,16]; conv1 3x3 s2 p1; conv2 3x3 p1; skip 1x1
 * s2 from x; Add; head 3x3 p1. With r' = r + (k-1)*j, j' = j*s and the
 * effective padding p' = p + pad*j:
 *   conv1: r 1 + 2*1 = 3, j 2, p 0 + 1*1 = 1
 *   conv2: r 3 + 2*2 = 7, j 2, p 1 + 1*2 = 3
 *   skip:  r 1 + 0 = 1, j 2, p 0
 *   Add:   the larger field: 7 (j 2, p 3)
 *   head:  r 7 + 2*2 = 11, j 2, p 3 + 1*2 = 5
 */
static void test_rf_residual(void) {
  nns_model *m = analyzed("unit/models/analyze_residual.onnx", 0);
  if (!m)
    return;
  nns_layer_info l = layer(m, "block.conv1");
  CHECK_EQ(l.rf.axes, 2);
  CHECK_EQ(l.rf.field[0], 3);
  CHECK_EQ(l.rf.stride[0], 2);
  CHECK_EQ(l.rf.padding[1], 1);
  l = layer(m, "block.conv2");
  CHECK_EQ(l.rf.field[1], 7);
  l = layer(m, "block.skip");
  CHECK_EQ(l.rf.field[0], 1);
  CHECK_EQ(l.rf.stride[0], 2);
  l = layer(m, "block");
  CHECK_EQ(l.rf.field[0], 7);
  CHECK_EQ(l.rf.padding[0], 3);
  CHECK_STR(value_name(m, l.output_value), "a");
  CHECK_STR(value_name(m, l.input_value), "x");
  l = layer(m, "head");
  CHECK_EQ(l.rf.field[0], 11);
  CHECK_EQ(l.rf.stride[0], 2);
  CHECK_EQ(l.rf.padding[0], 5);
  CHECK(!l.rf.whole);
  nns_totals t;
  nns_model_totals(m, &t);
  CHECK_EQ(t.rf.field[0], 11);
  CHECK_EQ(t.rf.field[1], 11);
  /* Params: conv1 4*2*9 + 4 = 76, conv2 4*4*9 + 4 = 148, skip 4*2 = 8,
   * head 4*4*9 = 144; 376 in all. */
  CHECK_EQ(layer(m, "block.conv1").counts.params, 76);
  CHECK_EQ(layer(m, "block").counts.params, 76 + 148 + 8);
  CHECK_EQ(t.all.params, 376);
  CHECK_EQ(t.all.param_bytes, 376 * 4);
  /*
   * Peak, node order conv1, conv2, skip, Add, head; x 512 floats = 2048 B,
   * every other value [1,4,8,8] = 1024 B:
   *   conv1: x + c1 = 3072          conv2: x + c1 + c2 = 4096 (peak); c1 freed
   *   skip: x + c2 + s = 4096; x freed    Add: c2 + s + a = 3072
   *   head: a + y = 2048
   */
  CHECK_EQ(t.input_bytes, 2048);
  CHECK_EQ(t.peak_activation_bytes, 4096);
  CHECK_STR(t.peak_node, "/block/conv2/Conv");
  CHECK_EQ(t.all.activation_bytes, 5 * 1024);
  nns_model_free(m);
}

/*
 * analyze_inception: x [1,3,8,8] into a 1x1 conv (field 1), a 3x3 pad 1
 * (3), a 5x5 pad 2 (5) and a 3x3 maxpool pad 1 (3); Concat takes the
 * largest, 5; the 3x3 conv after it: 5 + 2*1 = 7.
 */
static void test_rf_inception(void) {
  nns_model *m = analyzed("unit/models/analyze_inception.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(layer(m, "b1").rf.field[0], 1);
  CHECK_EQ(layer(m, "b3").rf.field[0], 3);
  CHECK_EQ(layer(m, "b5").rf.field[0], 5);
  CHECK_EQ(layer(m, "pool").rf.field[0], 3);
  CHECK_EQ(layer(m, "cat").rf.field[0], 5);
  CHECK_EQ(layer(m, "out").rf.field[0], 7);
  CHECK_EQ(layer(m, "out").rf.stride[0], 1);
  nns_totals t;
  nns_model_totals(m, &t);
  CHECK_EQ(t.rf.field[0], 7);
  nns_model_free(m);
}

/*
 * resnet18 before global pooling (layer4's output), by hand:
 *   conv1 7x7 s2: r 7, j 2;  maxpool 3x3 s2: r 7 + 2*2 = 11, j 4
 *   layer1: four 3x3 convs at j 4: 11 + 4*8 = 43
 *   layer2.0: conv1 3x3 s2 at j 4: 51, j 8; conv2: 51 + 16 = 67 (the
 *     1x1 s2 downsample branch has 43: the Add keeps 67)
 *   layer2.1: two 3x3 at j 8: 67 + 32 = 99
 *   layer3.0: 99 + 2*8 = 115, j 16; + 32 = 147; layer3.1: 147 + 64 = 211
 *   layer4.0: 211 + 2*16 = 243, j 32; + 64 = 307; layer4.1: 307 + 128 = 435
 * Global pooling and fc see the whole input.
 */
static void test_rf_resnet18(void) {
  nns_model *m =
      analyzed("fixtures/models/resnet18_op17_nofold.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(layer(m, "maxpool").rf.field[0], 11);
  CHECK_EQ(layer(m, "layer1").rf.field[0], 43);
  CHECK_EQ(layer(m, "layer2.0").rf.field[0], 67);
  CHECK_EQ(layer(m, "layer2").rf.field[0], 99);
  CHECK_EQ(layer(m, "layer3").rf.field[0], 211);
  nns_layer_info l = layer(m, "layer4");
  CHECK_EQ(l.rf.field[0], 435);
  CHECK_EQ(l.rf.field[1], 435);
  CHECK_EQ(l.rf.stride[0], 32);
  CHECK(layer(m, "avgpool").rf.whole);
  CHECK(layer(m, "fc").rf.whole);
  nns_totals t;
  nns_model_totals(m, &t);
  CHECK_EQ(t.rf.field[0], 435);
  nns_model_free(m);
}

/* torchscan's published receptive fields of the VGG family and alexnet. */
static void test_rf_torchscan(void) {
  static const struct {
    const char *model;
    int64_t rf;
  } cases[] = {{"alexnet", 195}, {"vgg11", 150}, {"vgg13", 156},
               {"vgg16", 212},   {"vgg19", 268}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[256];
    snprintf(path, sizeof path, "fixtures/models/%s_op17_nofold.onnx",
             cases[i].model);
    nns_model *m = analyzed(path, 0);
    if (!m)
      continue;
    nns_totals t;
    nns_model_totals(m, &t);
    if (t.rf.field[0] != cases[i].rf || t.rf.field[1] != cases[i].rf)
      check_fail(__FILE__, __LINE__, "%s: rf %lld, torchscan %lld",
                 cases[i].model, (long long)t.rf.field[0],
                 (long long)cases[i].rf);
    nns_model_free(m);
  }
}

/* ==== Memory ==== */

/*
 * analyze_memory: x [1,100] float (400 B), in node order
 *   /a/Relu     A = relu(x) [1,100]   400: live 400 + 400 = 800; x freed -> 400
 *   /z/Neg      Z = -A      [1,100]   400 (nobody reads Z): 800; Z freed -> 400
 *   /cat/Concat B = [A, A]  [1,200]   800: 1200; A freed -> 800
 *   /sig/Sigmoid C          [1,200]   800: 1600
 *   /add/Add    D = C + B   [1,200]   800: 2400 (the peak); B, C freed -> 800
 *   /fc/MatMul  Y = D W     [1,5]      20: 820; D freed -> 20
 *   /fc/Add     Y2 = Y + bias [1,5]    20: 40; Y freed; Y2 is an output
 * Activations 400+400+800+800+800+20+20 = 3240 B. Parameters W [200,5] and
 * bias [5] (a float added after a MatMul): 1005 elements, 4020 B.
 * Training: params 4020 + gradients 4020 + optimizer + activations 3240:
 *   SGD 11280, momentum 11280 + 4020 = 15300, Adam 11280 + 8040 = 19320.
 */
static void test_memory(void) {
  static const struct {
    nns_optimizer opt;
    int64_t state, total;
  } cases[] = {{NNS_OPTIMIZER_SGD, 0, 11280},
               {NNS_OPTIMIZER_MOMENTUM, 4020, 15300},
               {NNS_OPTIMIZER_ADAM, 8040, 19320}};
  for (size_t i = 0; i < 3; i++) {
    nns_model *m = analyzed("unit/models/analyze_memory.onnx", cases[i].opt);
    if (!m)
      return;
    nns_totals t;
    nns_model_totals(m, &t);
    CHECK_EQ(t.input_bytes, 400);
    CHECK_EQ(t.peak_activation_bytes, 2400);
    CHECK_STR(t.peak_node, "/add/Add");
    CHECK_EQ(t.all.activation_bytes, 3240);
    CHECK_EQ(t.all.params, 1005);
    CHECK_EQ(t.optimizer, cases[i].opt);
    CHECK_EQ(t.train_param_bytes, 4020);
    CHECK_EQ(t.train_grad_bytes, 4020);
    CHECK_EQ(t.train_optimizer_bytes, cases[i].state);
    CHECK_EQ(t.train_activation_bytes, 3240);
    CHECK_EQ(t.train_total_bytes, cases[i].total);
    CHECK_EQ(layer(m, "cat").counts.activation_bytes, 800);
    CHECK_EQ(layer(m, "fc").counts.activation_bytes, 40);
    nns_model_free(m);
  }
}

/* ==== Parameters ==== */

static nns_param_info param(const nns_model *m, const char *name) {
  nns_param_info p;
  for (size_t i = 0; i < nns_model_param_count(m); i++) {
    nns_model_param(m, i, &p);
    if (strcmp(p.name, name) == 0)
      return p;
  }
  check_fail(__FILE__, __LINE__, "no parameter '%s'", name);
  nns_model_param(m, (size_t)-1, &p);
  return p;
}

/*
 * analyze_params:
 *   BatchNorm /bn: scale s [4] and bias w0 [4] are parameters (8); mean is
 *     `bn.running_mean`, an Identity copy of w0, and var v [4]: buffers (8).
 *   Reshape's shape [2] int64, Pow's exponent [1], Div's divisor [1], the
 *     DequantizeLinear scale [1] and zero point [1], and the unused
 *     initializer [3]: constants, 2 + 1 + 1 + 1 + 1 + 3 = 9.
 *   qw [16] int8 behind DequantizeLinear: a (quantized) weight, 16.
 *   emb [10,4]: Gather's table in /embed and, transposed, MatMul's operand
 *     in /head: tied, counted once (40) at /embed; /head is SHARED.
 * Params 4 + 4 + 16 + 40 = 64; buffers 8; unique storage s, w0, v, qw, emb
 * = 4 + 4 + 4 + 16 + 40 = 68 (the copy shares w0's). Bytes: floats
 * (4+4+4+4+40) * 4 = 224, int8 16: 240.
 */
static void test_params(void) {
  nns_model *m = analyzed("unit/models/analyze_params.onnx", 0);
  if (!m)
    return;
  nns_totals t;
  nns_model_totals(m, &t);
  CHECK_EQ(t.all.params, 64);
  CHECK_EQ(t.all.buffers, 8);
  CHECK_EQ(t.params_unique, 68);
  CHECK_EQ(t.constants, 9);
  CHECK_EQ(t.all.param_bytes, 240);
  CHECK_EQ(t.param_bytes_unique, 224 - 16 + 16);
  CHECK(!(t.all.flags & NNS_COUNT_SHARED));

  nns_param_info p = param(m, "bn.running_mean");
  CHECK_EQ(p.kind, NNS_PARAM_BUFFER);
  CHECK(p.is_copy);
  CHECK_STR(p.storage, "w0");
  p = param(m, "w0");
  CHECK_EQ(p.kind, NNS_PARAM_TRAINABLE);
  CHECK(!p.is_copy);
  CHECK_EQ(param(m, "shape").kind, NNS_PARAM_CONSTANT);
  CHECK_EQ(param(m, "expo").kind, NNS_PARAM_CONSTANT);
  CHECK_EQ(param(m, "half").kind, NNS_PARAM_CONSTANT);
  CHECK_EQ(param(m, "qs").kind, NNS_PARAM_CONSTANT);
  CHECK_EQ(param(m, "qz").kind, NNS_PARAM_CONSTANT);
  CHECK_EQ(param(m, "unused").kind, NNS_PARAM_CONSTANT);
  p = param(m, "qw");
  CHECK_EQ(p.kind, NNS_PARAM_TRAINABLE);
  CHECK_EQ(p.dtype, NNS_DT_INT8);
  CHECK_EQ(p.bytes, 16);
  p = param(m, "emb");
  CHECK_EQ(p.kind, NNS_PARAM_TRAINABLE);
  CHECK(p.shared);
  nns_layer_info embed = layer(m, "embed"), head = layer(m, "head");
  nns_layer_info counting;
  nns_model_layer(m, p.layer, &counting);
  CHECK_STR(counting.path, "embed");
  CHECK_EQ(embed.counts.params, 40);
  CHECK(!(embed.counts.flags & NNS_COUNT_SHARED));
  CHECK_EQ(head.counts.params, 0);
  CHECK(head.counts.flags & NNS_COUNT_SHARED);
  nns_layer_info bn = layer(m, "bn");
  CHECK_EQ(bn.counts.params, 8);
  CHECK_EQ(bn.counts.buffers, 8);
  CHECK_EQ(layer(m, "dq").counts.params, 16);

  /* By dtype: float 56 elements / 224 B, int8 16 / 16 B. */
  CHECK_EQ(nns_model_param_dtype_count(m), 2);
  for (size_t i = 0; i < nns_model_param_dtype_count(m); i++) {
    int dt;
    int64_t el, by;
    nns_model_param_dtype(m, i, &dt, &el, &by);
    CHECK(dt == NNS_DT_FLOAT || dt == NNS_DT_INT8);
    CHECK_EQ(el, dt == NNS_DT_FLOAT ? 56 : 16);
    CHECK_EQ(by, dt == NNS_DT_FLOAT ? 224 : 16);
  }
  nns_model_free(m);
}

/* ==== Module tree ==== */

static void test_scopes(void) {
  nns_model *m = analyzed("unit/models/analyze_scopes.onnx", 0);
  if (!m)
    return;
  /* Preorder, children in first-seen order, one layer per dotted atom. */
  static const struct {
    const char *path, *name, *type;
    int depth;
    int64_t nodes;
  } want[] = {
      {"", "", "Net", 0, 12},
      {"layer1", "layer1", "Relu", 1, 5},
      {"layer1.relu", "relu", "Relu", 2, 2}, /* relu and relu_1 */
      {"layer1.conv_1", "conv_1", "Relu", 2, 1},
      {"layer1.act", "act", "Relu", 2, 1},
      {"layer1.act_1", "act_1", "ReLU", 2, 1}, /* declared: its class */
      {"layer2", "layer2", "Sequential", 1, 3},
      {"layer2.0", "0", "BasicBlock", 2, 3},
      {"layer2.0.conv1", "conv1", "Relu", 3, 1},
      {"layer2.0.downsample", "downsample", "Relu", 3, 1},
      {"layer2.0.downsample.0", "0", "Relu", 4, 1},
      {"model", "model", "Relu", 1, 1},
      {"model.layers", "layers", "Relu", 2, 1},
      {"model.layers.0", "0", "Relu", 3, 1},
      {"model.layers.0.self_attn", "self_attn", "Relu", 4, 1},
      {"model.layers.0.self_attn.q_proj", "q_proj", "Relu", 5, 1},
      {"tf", "tf", "Relu", 1, 1},
      {"tf.block1", "block1", "Relu", 2, 1},
      {"tf.block1.conv", "conv", "Relu", 3, 1},
      /* Nodes without a path that do work are rows of their own: named
       * by their name, else (no weight read) OpType_N. */
      {"Relu_12", "Relu_12", "Relu", 1, 1},
      {"Relu_0", "Relu_0", "Relu", 1, 1},
  };
  size_t n = sizeof want / sizeof want[0];
  CHECK_EQ(nns_model_layer_count(m), n);
  for (size_t i = 0; i < n && i < nns_model_layer_count(m); i++) {
    nns_layer_info l;
    nns_model_layer(m, i, &l);
    CHECK_STR(l.path, want[i].path);
    CHECK_STR(l.name, want[i].name);
    CHECK_STR(l.type, want[i].type);
    CHECK_EQ(l.depth, want[i].depth);
    CHECK_EQ(l.counts.nodes, want[i].nodes);
  }
  nns_layer_info root, l1;
  nns_model_layer(m, 0, &root);
  CHECK_EQ(root.parent, (size_t)-1);
  CHECK_EQ(root.child_count, 6);
  CHECK_STR(value_name(m, root.input_value), "x");
  CHECK_STR(value_name(m, root.output_value), "r11");
  l1 = layer(m, "layer1");
  CHECK_EQ(l1.parent, 0);
  CHECK_EQ(l1.child_count, 4);
  CHECK_STR(value_name(m, l1.input_value), "x");
  CHECK_STR(value_name(m, l1.output_value), "r4");
  CHECK_STR(l1.op_types, "Relu");
  nns_model_free(m);

  /* Another producer: conv2d_1 is Keras' second conv2d, its own layer. */
  m = analyzed("unit/models/analyze_scopes_tf.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(nns_model_layer_count(m), 4);
  CHECK_EQ(layer(m, "model.conv2d").counts.nodes, 1);
  CHECK_EQ(layer(m, "model.conv2d_1").counts.nodes, 1);
  CHECK_STR(layer(m, "model").type, "Relu");
  nns_model_free(m);
}

/* Hostile names: 200 nested scopes stop at depth 64 (one layer per level,
 * the Relu in the deepest), an 8 KB scope exceeds the 4096-byte path limit
 * and hangs from the root; one warning says so. */
static void test_deep_names(void) {
  nns_model *m = analyzed("unit/models/analyze_deepname.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(nns_model_layer_count(m), 65);
  nns_layer_info l;
  nns_model_layer(m, 64, &l);
  CHECK_EQ(l.depth, 64);
  CHECK_EQ(l.counts.nodes, 1);
  nns_model_layer(m, 0, &l);
  CHECK_EQ(l.counts.nodes, 2);
  int warned = 0;
  for (size_t i = 0; i < nns_model_warning_count(m); i++)
    warned += strstr(nns_model_warning(m, i), "module tree") != NULL;
  CHECK_EQ(warned, 1);
  nns_model_free(m);
}

/* ==== Counts and completeness ==== */

/* Per op type on analyze_residual: Conv 4 nodes, Add 1; the sums agree
 * with the model's total. */
static void test_op_types(void) {
  nns_model *m = analyzed("unit/models/analyze_residual.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(nns_model_op_type_count(m), 2);
  nns_totals t;
  nns_model_totals(m, &t);
  int64_t macs = 0, params = 0, nodes = 0;
  for (size_t i = 0; i < nns_model_op_type_count(m); i++) {
    const char *d, *op;
    int counted;
    nns_counts c;
    nns_model_op_type(m, i, &d, &op, &counted, &c);
    CHECK_STR(d, "");
    CHECK(counted);
    CHECK_EQ(c.nodes, strcmp(op, "Conv") == 0 ? 4 : 1);
    macs += c.macs;
    params += c.params;
    nodes += c.nodes;
  }
  CHECK_EQ(macs, t.all.macs);
  CHECK_EQ(params, t.all.params);
  CHECK_EQ(nodes, 5);
  CHECK_EQ(nns_model_uncounted_op_count(m), 0);
  CHECK(!(t.all.flags & NNS_COUNT_PARTIAL));
  nns_model_free(m);
}

static void test_api_edges(void) {
  nns_totals t;
  nns_model_totals(NULL, &t);
  CHECK_EQ(t.all.params, 0);
  CHECK_STR(t.peak_node, "");
  CHECK_EQ(nns_model_layer_count(NULL), 0);
  CHECK_EQ(nns_model_param_count(NULL), 0);
  nns_error err;
  CHECK_EQ(nns_model_analyze(NULL, NULL, &err), NNS_E_ARG);

  nns_model *m = NULL;
  CHECK_EQ(nns_model_load_file("unit/models/analyze_memory.onnx", NULL, &m,
                               &err), NNS_OK);
  /* Before analysis: empty. Analysis infers a model never inferred. */
  CHECK_EQ(nns_model_layer_count(m), 0);
  nns_layer_info l;
  nns_model_layer(m, 5, &l);
  CHECK_STR(l.path, "");
  CHECK_EQ(l.parent, (size_t)-1);
  nns_analyze_options bad = {.optimizer = (nns_optimizer)7};
  CHECK_EQ(nns_model_analyze(m, &bad, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_analyze(m, NULL, &err), NNS_OK);
  CHECK(nns_model_layer_count(m) > 1);
  /* Out of range rows are zeroed. */
  nns_param_info p;
  nns_model_param(m, 1000, &p);
  CHECK_STR(p.name, "");
  /* A new inference discards the analysis; analysing again restores it. */
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_layer_count(m), 0);
  CHECK_EQ(nns_model_analyze(m, NULL, &err), NNS_OK);
  nns_model_totals(m, &t);
  CHECK_EQ(t.peak_activation_bytes, 2400);
  /* Twice in a row gives the same answer. */
  CHECK_EQ(nns_model_analyze(m, NULL, &err), NNS_OK);
  nns_model_totals(m, &t);
  CHECK_EQ(t.all.params, 1005);
  /* A failed inference: analysis refuses (NNS_E_STATE). */
  const char *name = "nope";
  int64_t dims[1] = {3};
  nns_input_shape in = {.name = name, .dims = dims, .rank = 1};
  nns_infer_options io = {.inputs = &in, .input_count = 1};
  CHECK(nns_model_infer(m, &io, &err) != NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &err), NNS_E_STATE);
  nns_model_free(m);
}

int main(void) {
  RUN(test_rf_residual);
  RUN(test_rf_inception);
  RUN(test_rf_resnet18);
  RUN(test_rf_torchscan);
  RUN(test_memory);
  RUN(test_params);
  RUN(test_scopes);
  RUN(test_deep_names);
  RUN(test_op_types);
  RUN(test_api_edges);
  return check_finish();
}
