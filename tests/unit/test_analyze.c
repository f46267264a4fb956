/*
 * test_analyze.c - the analysis on small hand-built graphs
 * (tests/unit/models/analyze_*.onnx, written by make_analyze.py), every
 * expected number worked out by hand in the comments: receptive fields of
 * residual, multi-branch, squeeze-excitation, channel-shuffle,
 * channels-last and strided-slice graphs and of resnet18, peak activation memory and the
 * training estimate, parameter classification (copies, tied
 * weights, constants, quantized weights), the module tree from node names,
 * and the API's behaviour before analysis and on bad arguments.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

/* Loads and analyzes the model at `path` with optimizer `opt`. */
static nns_analysis *analyzed(const char *path, nns_optimizer opt) {
  nns_analyze_options o = {.size = sizeof o, .optimizer = opt};
  return tm_load_analysis(path, &o);
}

static tm_layer layer(const nns_analysis *m, const char *path) {
  tm_layer l;
  for (size_t i = 0; i < nns_analysis_layer_count(m); i++) {
    l = tm_layer_at(m, i);
    if (strcmp(l.path, path) == 0)
      return l;
  }
  check_fail(__FILE__, __LINE__, "no layer '%s'", path);
  l = tm_layer_at(m, (size_t)-1);
  return l;
}

static const char *value_name(const nns_analysis *m, size_t i) {
  nns_value_info v = {.size = sizeof v};
  nns_model_value(nns_analysis_model(m), i, &v);
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
  nns_analysis *m = analyzed("unit/models/analyze_residual.onnx", 0);
  if (!m)
    return;
  tm_layer l = layer(m, "block.conv1");
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
  tm_totals t = tm_totals_of(m);
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
  tm_release(m);
}

/*
 * analyze_inception: x [1,3,8,8] into a 1x1 conv (field 1), a 3x3 pad 1
 * (3), a 5x5 pad 2 (5) and a 3x3 maxpool pad 1 (3); Concat takes the
 * largest, 5; the 3x3 conv after it: 5 + 2*1 = 7.
 */
static void test_rf_inception(void) {
  nns_analysis *m = analyzed("unit/models/analyze_inception.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(layer(m, "b1").rf.field[0], 1);
  CHECK_EQ(layer(m, "b3").rf.field[0], 3);
  CHECK_EQ(layer(m, "b5").rf.field[0], 5);
  CHECK_EQ(layer(m, "pool").rf.field[0], 3);
  CHECK_EQ(layer(m, "cat").rf.field[0], 5);
  CHECK_EQ(layer(m, "out").rf.field[0], 7);
  CHECK_EQ(layer(m, "out").rf.stride[0], 1);
  tm_totals t = tm_totals_of(m);
  CHECK_EQ(t.rf.field[0], 7);
  tm_release(m);
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
  nns_analysis *m =
      analyzed("fixtures/models/resnet18_op17_nofold.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(layer(m, "maxpool").rf.field[0], 11);
  CHECK_EQ(layer(m, "layer1").rf.field[0], 43);
  CHECK_EQ(layer(m, "layer2.0").rf.field[0], 67);
  CHECK_EQ(layer(m, "layer2").rf.field[0], 99);
  CHECK_EQ(layer(m, "layer3").rf.field[0], 211);
  tm_layer l = layer(m, "layer4");
  CHECK_EQ(l.rf.field[0], 435);
  CHECK_EQ(l.rf.field[1], 435);
  CHECK_EQ(l.rf.stride[0], 32);
  CHECK(layer(m, "avgpool").rf.whole);
  CHECK(layer(m, "fc").rf.whole);
  tm_totals t = tm_totals_of(m);
  CHECK_EQ(t.rf.field[0], 435);
  tm_release(m);
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
    nns_analysis *m = analyzed(path, 0);
    if (!m)
      continue;
    tm_totals t = tm_totals_of(m);
    if (t.rf.field[0] != cases[i].rf || t.rf.field[1] != cases[i].rf)
      check_fail(__FILE__, __LINE__, "%s: rf %lld, torchscan %lld",
                 cases[i].model, (long long)t.rf.field[0],
                 (long long)cases[i].rf);
    tm_release(m);
  }
}

/*
 * analyze_se: x [1,2,16,16]; stem 3x3 s2 p1: r 3, j 2, p 1. The gate's
 * GlobalAveragePool reduces H and W away: whole, and so are its 1x1 convs
 * and Sigmoid. Mul(gate, s) keeps s's field, flagged global context; the
 * head 3x3 p1: r 3 + 2*2 = 7, j 2, p 1 + 1*2 = 3, still flagged.
 */
static void test_rf_se(void) {
  nns_analysis *m = analyzed("unit/models/analyze_se.onnx", 0);
  if (!m)
    return;
  tm_layer l = layer(m, "stem");
  CHECK_EQ(l.rf.field[0], 3);
  CHECK(!l.rf.global_context);
  CHECK(layer(m, "se.avgpool").rf.whole);
  CHECK(layer(m, "se.scale_activation").rf.whole);
  l = layer(m, "se");
  CHECK(!l.rf.whole);
  CHECK(l.rf.global_context);
  CHECK_EQ(l.rf.field[0], 3);
  CHECK_EQ(l.rf.stride[1], 2);
  CHECK_EQ(l.rf.padding[1], 1);
  l = layer(m, "head");
  CHECK(!l.rf.whole);
  CHECK(l.rf.global_context);
  CHECK_EQ(l.rf.field[1], 7);
  CHECK_EQ(l.rf.padding[0], 3);
  tm_totals t = tm_totals_of(m);
  CHECK_EQ(t.rf.axes, 2);
  CHECK_EQ(t.rf.field[0], 7);
  CHECK(t.rf.global_context);
  tm_release(m);
}

/*
 * analyze_shuffle: stem 3x3 s2 p1 to [1,4,8,8] (r 3, j 2, p 1); Reshape
 * [1,2,2,8,8] keeps H at dim 3 and W at 4 (same sizes, same product of the
 * dims before them: 4); Transpose (0,2,1,3,4) leaves them there; Reshape
 * back puts them at 2 and 3. The depthwise 3x3 p1: 7, p 3.
 */
static void test_rf_shuffle(void) {
  nns_analysis *m = analyzed("unit/models/analyze_shuffle.onnx", 0);
  if (!m)
    return;
  tm_layer l = layer(m, "shuffle");
  CHECK(!l.rf.whole);
  CHECK_EQ(l.rf.field[0], 3);
  CHECK_EQ(l.rf.stride[0], 2);
  l = layer(m, "dw");
  CHECK_EQ(l.rf.field[0], 7);
  CHECK_EQ(l.rf.field[1], 7);
  CHECK_EQ(l.rf.padding[1], 3);
  CHECK(!l.rf.global_context);
  tm_release(m);
}

/*
 * analyze_channels_last (a ConvNeXt block): stem 4x4 s4: r 4, j 4, p 0;
 * depthwise 7x7 p3: 4 + 6*4 = 28, p 3*4 = 12. Transpose to NHWC moves H,
 * W to dims 1, 2; LayerNormalization (axis -1) and MatMul by a [4,4]
 * weight work on C only and keep the field; Transpose back; the Add with
 * the stem's output unites pixels [-12, 15] and [0, 3]: 28, p 12.
 */
static void test_rf_channels_last(void) {
  nns_analysis *m = analyzed("unit/models/analyze_channels_last.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(layer(m, "block.dwconv").rf.field[0], 28);
  tm_layer l = layer(m, "block.norm");
  CHECK(!l.rf.whole);
  CHECK_EQ(l.rf.field[0], 28);
  l = layer(m, "block.fc");
  CHECK(!l.rf.whole);
  CHECK(!l.rf.global_context);
  CHECK_EQ(l.rf.field[1], 28);
  l = layer(m, "block");
  CHECK_EQ(l.rf.field[0], 28);
  CHECK_EQ(l.rf.stride[0], 4);
  CHECK_EQ(l.rf.padding[0], 12);
  tm_totals t = tm_totals_of(m);
  CHECK_EQ(t.rf.field[1], 28);
  tm_release(m);
}

/*
 * A TensorFlow export (tf2onnx): input NHWC [1, 76, 32, 1], every Conv and
 * MaxPool between Transposes to NCHW and back, bias Add and Relu in NHWC;
 * in the _reshape variant the first Transpose is the Reshape tf2onnx's
 * optimizer writes for it ([1,76,32,1] -> [1,1,76,32]). By hand, on H and
 * on W: conv 3x3 VALID r 3, j 1, p 0; maxpool 2x2 s2 r 3 + 1*1 = 4, j 2;
 * conv 3x3 SAME r 4 + 2*2 = 8, j 2, p 1*2 = 2. The Flatten + MatMul head
 * sees the whole input; the model's field is conv2d_1's.
 */
static void test_rf_tensorflow_nhwc(void) {
  const char *files[] = {"unit/models/analyze_tf_nhwc.onnx",
                         "unit/models/analyze_tf_nhwc_reshape.onnx"};
  for (int f = 0; f < 2; f++) {
    nns_analysis *m = analyzed(files[f], 0);
    if (!m)
      continue;
    const struct {
      const char *path;
      int64_t field, stride, pad;
    } want[] = {{"model.conv2d", 3, 1, 0},
                {"model.max_pooling2d", 4, 2, 0},
                {"model.conv2d_1", 8, 2, 2}};
    for (size_t i = 0; i < 3; i++) {
      tm_layer l = layer(m, want[i].path);
      CHECK(!l.rf.whole);
      CHECK_EQ(l.rf.axes, 2);
      for (int k = 0; k < 2; k++) {
        CHECK_EQ(l.rf.field[k], want[i].field);
        CHECK_EQ(l.rf.stride[k], want[i].stride);
        CHECK_EQ(l.rf.padding[k], want[i].pad);
      }
    }
    CHECK(layer(m, "model.dense").rf.whole);
    tm_totals t = tm_totals_of(m);
    CHECK_EQ(t.rf.axes, 2);
    CHECK_EQ(t.rf.field[0], 8);
    CHECK_EQ(t.rf.field[1], 8);
    CHECK_EQ(nns_analysis_warning_count(m), 0);
    tm_release(m);
  }
}

/*
 * analyze_tf_nhwc_tail: like openWakeWord's embedding model, the last conv's
 * 1x1 output goes back to channels-last through a Reshape that only moves
 * dims of 1 ([n, 8, 1, 1] -> [n, 1, 1, 8]). By hand: conv 3x3 VALID, r 3,
 * j 1, p 0 on H and W; the row keeps it, and the footer agrees.
 */
static void test_rf_tensorflow_reshape_tail(void) {
  nns_analysis *m = analyzed("unit/models/analyze_tf_nhwc_tail.onnx", 0);
  if (!m)
    return;
  tm_layer l = layer(m, "model.conv2d");
  CHECK(!l.rf.whole);
  CHECK_EQ(l.rf.axes, 2);
  for (int k = 0; k < 2; k++) {
    CHECK_EQ(l.rf.field[k], 3);
    CHECK_EQ(l.rf.stride[k], 1);
    CHECK_EQ(l.rf.padding[k], 0);
  }
  tm_totals t = tm_totals_of(m);
  CHECK_EQ(t.rf.axes, 2);
  CHECK_EQ(t.rf.field[0], 3);
  CHECK_EQ(t.rf.field[1], 3);
  tm_release(m);
}

/*
 * analyze_rf_lost: a Reshape folds 8x8 into 4x16 before the only conv, so
 * no layer has a finite field and the model's is the input's own (1); the
 * analysis warns, naming the Reshape.
 */
static void test_rf_lost_is_explained(void) {
  nns_analysis *m = analyzed("unit/models/analyze_rf_lost.onnx", 0);
  if (!m)
    return;
  CHECK(layer(m, "conv").rf.whole);
  tm_totals t = tm_totals_of(m);
  CHECK(!t.rf.whole);
  CHECK_EQ(t.rf.field[0], 1);
  int warned = 0;
  for (size_t i = 0; i < nns_analysis_warning_count(m); i++)
    warned += strstr(tm_analysis_warning(m, i), "'/fold/Reshape' (Reshape) lost the "
                                       "input's spatial axes") != NULL;
  CHECK_EQ(warned, 1);
  tm_release(m);
}

/* A chain of n MaxPools (kernel 3, stride 1, padding 1) on a 16x16
 * input, built through the builder: pool k (1-based) reads 2k + 1 pixels
 * a side, with effective padding k and stride 1. 5,000 pools is past the
 * size at which the analysis walks the fields on a second thread
 * (analyze.c), 1,000 short of it: both ways give the same fields. */
static nns_model *pool_chain(int n) {
  nns_builder *b = NULL;
  nns_model *m = NULL;
  nns_error err = {0};
  const int64_t dims[] = {1, 1, 16, 16};
  const int64_t kernel[] = {3, 3}, ones[] = {1, 1}, pads[] = {1, 1, 1, 1};
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_input(b, "x", 1, 4, dims, NULL, &err), NNS_OK);
  char in[32] = "x", out[32], name[32];
  for (int k = 1; k <= n; k++) {
    snprintf(out, sizeof out, "y%d", k);
    snprintf(name, sizeof name, "p%d", k);
    const char *ins[] = {in}, *outs[] = {out};
    CHECK_EQ(nns_builder_add_node(b, "MaxPool", NULL, name, name, ins, 1,
                                  outs, 1, &err), NNS_OK);
    CHECK_EQ(nns_builder_attr_ints(b, "kernel_shape", kernel, 2, &err),
             NNS_OK);
    CHECK_EQ(nns_builder_attr_ints(b, "strides", ones, 2, &err), NNS_OK);
    CHECK_EQ(nns_builder_attr_ints(b, "pads", pads, 4, &err), NNS_OK);
    memcpy(in, out, sizeof in);
  }
  CHECK_EQ(nns_builder_add_output(b, in, 1, 4, dims, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  return m;
}

static void test_rf_long_chains(void) {
  const int sizes[] = {1000, 5000};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int n = sizes[s];
    nns_model *built = pool_chain(n);
    nns_analysis *m = tm_analyze(built, NULL);
    if (!m) {
      nns_model_free(built);
      continue;
    }
    tm_totals t = tm_totals_of(m);
    CHECK_EQ(t.rf.axes, 2);
    CHECK(!t.rf.whole);
    for (int d = 0; d < 2; d++) {
      CHECK_EQ(t.rf.field[d], 2 * n + 1);
      CHECK_EQ(t.rf.stride[d], 1);
      CHECK_EQ(t.rf.padding[d], n);
    }
    tm_layer mid = layer(m, "p700");
    CHECK_EQ(mid.rf.field[0], 1401);
    CHECK_EQ(mid.rf.padding[1], 700);
    tm_release(m);
  }
}

/* A chain of n Muls x * s (s: one float initializer of 16 elements, [16]
 * against x [1, 16]), each its own layer: one tied tensor, counted once at
 * the first Mul; every other layer uses it and is marked SHARED. A
 * gradient flows from the output to s through every Mul, so it is
 * trainable. 5,000 Muls are past the size at which the parameters' walk
 * runs beside the scope pass on a second thread (analyze.c), 1,000 short
 * of it. */
static void test_tied_long_chains(void) {
  const int sizes[] = {1000, 5000};
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
    int n = sizes[z];
    nns_builder *b = NULL;
    nns_model *built = NULL;
    nns_error err = {0};
    const int64_t xd[] = {1, 16}, sd[] = {16};
    float scale[16] = {0};
    CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
    CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
    CHECK_EQ(nns_builder_add_input(b, "x", 1, 2, xd, NULL, &err), NNS_OK);
    CHECK_EQ(nns_builder_add_initializer(b, "s", 1, 1, sd, scale,
                                         sizeof scale, &err),
             NNS_OK);
    char in[32] = "x", out[32], name[32];
    for (int k = 0; k < n; k++) {
      snprintf(out, sizeof out, "y%d", k);
      snprintf(name, sizeof name, "m%d", k);
      const char *ins[] = {in, "s"}, *outs[] = {out};
      CHECK_EQ(nns_builder_add_node(b, "Mul", NULL, name, name, ins, 2, outs,
                                    1, &err),
               NNS_OK);
      memcpy(in, out, sizeof in);
    }
    CHECK_EQ(nns_builder_add_output(b, in, 1, 2, xd, NULL, &err), NNS_OK);
    CHECK_EQ(nns_builder_finish(b, &built, &err), NNS_OK);
    nns_builder_free(b);
    nns_analysis *m = built ? tm_analyze(built, NULL) : NULL;
    if (!m) {
      nns_model_free(built);
      continue;
    }
    tm_totals t = tm_totals_of(m);
    CHECK_EQ(t.all.params, 16);
    CHECK_EQ(t.params_unique, 16);
    CHECK_EQ(t.param_bytes_unique, 64);
    CHECK_EQ(nns_analysis_param_count(m), 1);
    nns_param_info p = {.size = sizeof p};
    CHECK_EQ(nns_analysis_param(m, 0, &p), NNS_OK);
    CHECK_STR(p.name, "s");
    CHECK_EQ(p.kind, NNS_PARAM_TRAINABLE);
    CHECK(p.shared);
    tm_layer first = layer(m, "m0");
    CHECK_EQ(first.counts.params, 16);
    CHECK(!(first.counts.flags & NNS_COUNT_SHARED));
    const int probes[] = {1, n / 2, n - 1};
    for (size_t q = 0; q < sizeof probes / sizeof *probes; q++) {
      char probe[32];
      snprintf(probe, sizeof probe, "m%d", probes[q]);
      tm_layer l = layer(m, probe);
      CHECK_EQ(l.counts.params, 0);
      CHECK(l.counts.flags & NNS_COUNT_SHARED);
    }
    tm_release(m);
  }
}

/* analyze_no_size: the Relu after a Reshape to an unknown shape has a cost
 * rule but no size to count: one uncounted node, for want of a size. */
static void test_uncounted_why(void) {
  nns_analysis *m = analyzed("unit/models/analyze_no_size.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(nns_analysis_uncounted_op_count(m), 1);
  const char *d = NULL, *op = NULL;
  size_t n = 0, no_rule = 9, no_size = 9, failed = 9;
  CHECK_EQ(nns_analysis_uncounted_op(m, 0, &d, &op, &n), NNS_OK);
  CHECK_STR(op, "Relu");
  CHECK_EQ(n, 1);
  CHECK_EQ(nns_analysis_uncounted_op_why(m, 0, &no_rule, &no_size, &failed),
           NNS_OK);
  CHECK_EQ(no_rule, 0);
  CHECK_EQ(no_size, 1);
  CHECK_EQ(failed, 0);
  tm_release(m);
  /* An op without a cost rule: analyze_custom's unregistered op. */
  m = analyzed("unit/models/analyze_custom.onnx", 0);
  if (!m)
    return;
  size_t rows = nns_analysis_uncounted_op_count(m), rule_less = 0;
  for (size_t i = 0; i < rows; i++) {
    CHECK_EQ(nns_analysis_uncounted_op(m, i, &d, &op, &n), NNS_OK);
    CHECK_EQ(nns_analysis_uncounted_op_why(m, i, &no_rule, &no_size, &failed),
             NNS_OK);
    CHECK_EQ(no_rule + no_size + failed, n);
    rule_less += no_rule;
  }
  CHECK(rule_less > 0);
  tm_release(m);
}

/*
 * analyze_slice: stem 3x3 p1 (r 3, j 1, p 1); Slice starts 1 step 2 on H
 * and W: output pixel i is input pixel 1 + 2i, so p 1 - 1*1 = 0, j 2, r 3;
 * head 3x3 p1: r 3 + 2*2 = 7, p 0 + 1*2 = 2.
 */
static void test_rf_slice(void) {
  nns_analysis *m = analyzed("unit/models/analyze_slice.onnx", 0);
  if (!m)
    return;
  tm_layer l = layer(m, "pick");
  CHECK_EQ(l.rf.field[0], 3);
  CHECK_EQ(l.rf.stride[0], 2);
  CHECK_EQ(l.rf.padding[1], 0);
  l = layer(m, "head");
  CHECK_EQ(l.rf.field[1], 7);
  CHECK_EQ(l.rf.stride[1], 2);
  CHECK_EQ(l.rf.padding[0], 2);
  tm_release(m);
}

/* The index of the layer at `path`, or (size_t)-1. */
static size_t layer_index(const nns_analysis *m, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(m); i++)
    if (strcmp(tm_layer_at(m, i).path, path) == 0)
      return i;
  check_fail(__FILE__, __LINE__, "no layer '%s'", path);
  return (size_t)-1;
}

/* Position `pos` of layer `path` reads pixels [first, last] along both
 * axes. */
static void check_span(const nns_analysis *m, const char *path, int64_t pos,
                       int64_t first, int64_t last) {
  size_t l = layer_index(m, path);
  for (int axis = 0; axis < 2; axis++) {
    int64_t a = 0, b = 0;
    CHECK_EQ(nns_analysis_layer_rf_span(m, l, axis, pos, &a, &b), NNS_OK);
    if (a != first || b != last)
      check_fail(__FILE__, __LINE__,
                 "%s position %lld axis %d: [%lld, %lld], expected "
                 "[%lld, %lld]",
                 path, (long long)pos, axis, (long long)a, (long long)b,
                 (long long)first, (long long)last);
  }
}

/*
 * analyze_window (make_analyze.py): stem 3x3 p1, so token t reads pixels
 * t-1 .. t+1. b1 attends within windows of 4 tokens: position i of window
 * m = floor(i/4) reads tokens 4m .. 4m+3, pixels 4m-1 .. 4m+4 (6, the same
 * for the 4 positions of a window: period 4, padding 1). b2 rolls by -2,
 * attends within windows of 4 and rolls back: position i lies in the
 * shifted window of tokens 4m'+2 .. 4m'+5, m' = floor((i-2)/4), which b1
 * saw as windows m' and m'+1: tokens 4m' .. 4m'+7, pixels 4m'-1 .. 4m'+8
 * (10). Positions 0 and 1: m' = -1, [-5, 4]; 2 .. 5: [-1, 8]; 6: [3, 12].
 * head is a 1x1 conv: the same spans. The model: b2's (widest 10,
 * position 0's padding 5).
 */
static void test_rf_window(void) {
  nns_analysis *m = analyzed("unit/models/analyze_window.onnx", 0);
  if (!m)
    return;
  check_span(m, "stem", 5, 4, 6);
  for (int64_t i = 0; i < 8; i++)
    check_span(m, "b1", i, 4 * (i / 4) - 1, 4 * (i / 4) + 4);
  static const int64_t b2_first[] = {-5, -5, -1, -1, -1, -1, 3, 3, 3};
  for (int64_t i = 0; i < 9; i++) {
    check_span(m, "b2", i, b2_first[i], b2_first[i] + 9);
    check_span(m, "head", i, b2_first[i], b2_first[i] + 9);
  }
  tm_layer l = layer(m, "b1");
  CHECK_EQ(l.rf.field[0], 6);
  CHECK_EQ(l.rf.padding[1], 1);
  CHECK_EQ(l.rf.period[0], 4);
  l = layer(m, "b2");
  CHECK_EQ(l.rf.field[1], 10);
  CHECK_EQ(l.rf.stride[1], 1);
  CHECK_EQ(l.rf.padding[0], 5);
  CHECK_EQ(l.rf.period[1], 4);
  CHECK(!l.rf.whole);
  tm_totals t = tm_totals_of(m);
  CHECK_EQ(t.rf.field[0], 10);
  CHECK_EQ(t.rf.padding[1], 5);
  CHECK(!t.rf.whole && !t.rf.global_context);
  tm_release(m);

  /* A window as large as the 16x16 map: every position attends to every
   * position, so b1 and everything after it is whole, and so is the
   * model's field (its last spatial map sees the whole input). */
  m = analyzed("unit/models/analyze_window_global.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(layer(m, "stem").rf.field[0], 3);
  l = layer(m, "b1");
  CHECK(l.rf.whole);
  CHECK_EQ(l.rf.axes, 2);
  int64_t a, b;
  CHECK_EQ(nns_analysis_layer_rf_span(m, layer_index(m, "b1"), 0, 0, &a, &b),
           NNS_E_NOTFOUND);
  t = tm_totals_of(m);
  CHECK(t.rf.whole);
  CHECK_EQ(t.rf.axes, 2);
  tm_release(m);
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
    nns_analysis *m = analyzed("unit/models/analyze_memory.onnx", cases[i].opt);
    if (!m)
      return;
    tm_totals t = tm_totals_of(m);
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
    tm_release(m);
  }
}

/* ==== Parameters ==== */

static nns_param_info param(const nns_analysis *m, const char *name) {
  nns_param_info p = {.size = sizeof p};
  for (size_t i = 0; i < nns_analysis_param_count(m); i++) {
    nns_analysis_param(m, i, &p);
    if (strcmp(p.name, name) == 0)
      return p;
  }
  check_fail(__FILE__, __LINE__, "no parameter '%s'", name);
  nns_analysis_param(m, (size_t)-1, &p);
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
  nns_analysis *m = analyzed("unit/models/analyze_params.onnx", 0);
  if (!m)
    return;
  tm_totals t = tm_totals_of(m);
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
  tm_layer embed = layer(m, "embed"), head = layer(m, "head");
  tm_layer counting = tm_layer_at(m, p.layer);
  CHECK_STR(counting.path, "embed");
  CHECK_EQ(embed.counts.params, 40);
  CHECK(!(embed.counts.flags & NNS_COUNT_SHARED));
  CHECK_EQ(head.counts.params, 0);
  CHECK(head.counts.flags & NNS_COUNT_SHARED);
  tm_layer bn = layer(m, "bn");
  CHECK_EQ(bn.counts.params, 8);
  CHECK_EQ(bn.counts.buffers, 8);
  CHECK_EQ(layer(m, "dq").counts.params, 16);

  /* By dtype: float 56 elements / 224 B, int8 16 / 16 B. */
  CHECK_EQ(nns_analysis_param_dtype_count(m), 2);
  for (size_t i = 0; i < nns_analysis_param_dtype_count(m); i++) {
    int dt;
    int64_t el, by;
    nns_analysis_param_dtype(m, i, &dt, &el, &by);
    CHECK(dt == NNS_DT_FLOAT || dt == NNS_DT_INT8);
    CHECK_EQ(el, dt == NNS_DT_FLOAT ? 56 : 16);
    CHECK_EQ(by, dt == NNS_DT_FLOAT ? 224 : 16);
  }
  tm_release(m);
}

/* ==== Module tree ==== */

static void test_scopes(void) {
  nns_analysis *m = analyzed("unit/models/analyze_scopes.onnx", 0);
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
  CHECK_EQ(nns_analysis_layer_count(m), n);
  for (size_t i = 0; i < n && i < nns_analysis_layer_count(m); i++) {
    tm_layer l = tm_layer_at(m, i);
    CHECK_STR(l.path, want[i].path);
    CHECK_STR(l.name, want[i].name);
    CHECK_STR(l.type, want[i].type);
    CHECK_EQ(l.depth, want[i].depth);
    CHECK_EQ(l.counts.nodes, want[i].nodes);
  }
  /* The root holds the unscoped Relu_12 and the unnamed node itself. */
  tm_layer root, l1;
  root = tm_layer_at(m, 0);
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
  tm_release(m);

  /* Another producer: conv2d_1 is Keras' second conv2d, its own layer. */
  m = analyzed("unit/models/analyze_scopes_tf.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(nns_analysis_layer_count(m), 5);
  CHECK_EQ(layer(m, "model.conv2d").counts.nodes, 1);
  CHECK_EQ(layer(m, "model.conv2d_1").counts.nodes, 1);
  /* A Keras TFOpLambda layer: one layer named with its dots. */
  tm_layer k = layer(m, "model.tf.math.maximum_3");
  CHECK_STR(k.name, "tf.math.maximum_3");
  CHECK_EQ(k.depth, 2);
  CHECK_EQ(k.counts.nodes, 1);
  CHECK_STR(layer(m, "model").type, "Relu");
  tm_release(m);
}

/* Hostile names: 200 nested scopes stop at depth 64 (one layer per level,
 * the Relu in the deepest), an 8 KB scope exceeds the 4096-byte path limit
 * and hangs from the root; one warning says so. */
static void test_deep_names(void) {
  nns_analysis *m = analyzed("unit/models/analyze_deepname.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(nns_analysis_layer_count(m), 65);
  tm_layer l = tm_layer_at(m, 64);
  CHECK_EQ(l.depth, 64);
  CHECK_EQ(l.counts.nodes, 1);
  l = tm_layer_at(m, 0);
  CHECK_EQ(l.counts.nodes, 2);
  int warned = 0;
  for (size_t i = 0; i < nns_analysis_warning_count(m); i++)
    warned += strstr(tm_analysis_warning(m, i), "module tree") != NULL;
  CHECK_EQ(warned, 1);
  tm_release(m);
}

/* ==== Counts and completeness ==== */

/* Per op type on analyze_residual: Conv 4 nodes, Add 1; the sums agree
 * with the model's total. */
static void test_op_types(void) {
  nns_analysis *m = analyzed("unit/models/analyze_residual.onnx", 0);
  if (!m)
    return;
  CHECK_EQ(nns_analysis_op_type_count(m), 2);
  tm_totals t = tm_totals_of(m);
  int64_t macs = 0, params = 0, nodes = 0;
  for (size_t i = 0; i < nns_analysis_op_type_count(m); i++) {
    nns_op_type_info ot = {.size = sizeof ot};
    nns_counts c = {.size = sizeof c};
    CHECK_EQ(nns_analysis_op_type(m, i, &ot), NNS_OK);
    nns_analysis_op_type_counts(m, i, &c);
    CHECK_STR(ot.domain, "");
    CHECK(ot.counted);
    /* Conv lives in conv.c's table, Add in eltwise.c's. */
    CHECK_STR(ot.family, strcmp(ot.op_type, "Conv") == 0 ? "conv"
                                                         : "eltwise");
    CHECK_EQ(c.nodes, strcmp(ot.op_type, "Conv") == 0 ? 4 : 1);
    macs += c.macs;
    params += c.params;
    nodes += c.nodes;
  }
  CHECK_EQ(macs, t.all.macs);
  CHECK_EQ(params, t.all.params);
  CHECK_EQ(nodes, 5);
  CHECK_EQ(nns_analysis_uncounted_op_count(m), 0);
  CHECK(!(t.all.flags & NNS_COUNT_PARTIAL));
  tm_release(m);
}

/* A module called twice on two shapes (ResNet's Bottleneck.relu, LLaMA-4's
 * qk_norm on queries then keys): its output is the last value leaving it,
 * unless the binding recorded its first call's output shape
 * (nns_model_set_module_shapes), then the first value of that shape that
 * leaves it, as PyTorch's forward hook saw it. A recorded shape that no
 * leaving value has (a first output nothing reads) changes nothing.
 *   x [1,4,8] -> /act/Relu -> y -> /use/Sigmoid -> s (an output)
 *   z [1,2,8] -> /act/Relu_1 -> w (an output) */
static void test_output_of_first_call(void) {
  nns_error err;
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  nns_builder_add_opset(b, "", 13, &err);
  int64_t xd[] = {1, 4, 8}, zd[] = {1, 2, 8};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 3, xd, NULL, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_input(b, "z", NNS_DT_FLOAT, 3, zd, NULL, &err),
           NNS_OK);
  static const char *const nodes[][4] = {{"Relu", "/act/Relu", "x", "y"},
                                         {"Sigmoid", "/use/Sigmoid", "y", "s"},
                                         {"Relu", "/act/Relu_1", "z", "w"}};
  for (size_t k = 0; k < 3; k++) {
    const char *in[] = {nodes[k][2]}, *out[] = {nodes[k][3]};
    CHECK_EQ(nns_builder_add_node(b, nodes[k][0], "", nodes[k][1], NULL, in,
                                  1, out, 1, &err),
             NNS_OK);
  }
  CHECK_EQ(nns_builder_add_output(b, "s", 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "w", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  if (!m)
    return;
  CHECK_EQ(nns_model_set_module(m, "act", "ReLU", 2, &err), NNS_OK);
  static const struct {
    int rank;
    int64_t dims[3];
    const char *want;
  } cases[] = {{-1, {0}, "w"},               /* none recorded: the last */
               {3, {1, 4, 8}, "y"},          /* the first call's */
               {3, {1, 2, 8}, "w"},          /* the same as the last */
               {3, {1, 9, 9}, "w"}};         /* no value of that shape */
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    if (cases[k].rank >= 0)
      CHECK_EQ(nns_model_set_module_shapes(m, "act", xd, 3, cases[k].dims,
                                           cases[k].rank, &err),
               NNS_OK);
    nns_analysis *a = NULL;
    CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
    if (!a)
      continue;
    CHECK_STR(value_name(a, layer(a, "act").output_value), cases[k].want);
    CHECK_STR(value_name(a, layer(a, "use").output_value), "s");
    nns_analysis_free(a);
  }
  nns_model_free(m);
}

static void test_api_edges(void) {
  tm_totals t = tm_totals_of(NULL);
  CHECK_EQ(t.all.params, 0);
  CHECK_STR(t.peak_node, "");
  CHECK_EQ(nns_analysis_layer_count(NULL), 0);
  CHECK_EQ(nns_analysis_param_count(NULL), 0);
  nns_error err;
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(NULL, NULL, &a, &err), NNS_E_ARG);

  nns_model *m = NULL;
  CHECK_EQ(nns_model_load_file("unit/models/analyze_memory.onnx", NULL, &m,
                               &err), NNS_OK);
  /* Analysis infers a model never inferred. */
  nns_analyze_options bad = {.size = sizeof bad, .optimizer = (nns_optimizer)7};
  CHECK_EQ(nns_model_analyze(m, &bad, &a, &err), NNS_E_ARG);
  CHECK(a == NULL);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK(nns_analysis_layer_count(a) > 1);
  CHECK(nns_analysis_model(a) == m);
  /* An index out of range is an error and leaves the row alone. */
  nns_param_info p = {.size = sizeof p, .name = "untouched"};
  CHECK_EQ(nns_analysis_param(a, 1000, &p), NNS_E_ARG);
  CHECK_STR(p.name, "untouched");
  /* A new inference leaves the analysis whole; a new analysis is another
   * object with the same answer. */
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  t = tm_totals_of(a);
  CHECK_EQ(t.peak_activation_bytes, 2400);
  nns_analysis *again = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &again, &err), NNS_OK);
  CHECK(again != a);
  t = tm_totals_of(again);
  CHECK_EQ(t.all.params, 1005);
  CHECK_EQ(t.peak_activation_bytes, 2400);
  nns_analysis_free(again);
  /* A failed inference: analysis refuses (NNS_E_STATE); the analysis made
   * before still reads. */
  const char *name = "nope";
  int64_t dims[1] = {3};
  nns_input_shape in = {.size = sizeof in, .name = name, .dims = dims,
                        .rank = 1};
  nns_infer_options io = {.size = sizeof io, .inputs = &in, .input_count = 1};
  CHECK(nns_model_infer(m, &io, &err) != NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &again, &err), NNS_E_STATE);
  CHECK(again == NULL);
  CHECK_EQ(tm_totals_of(a).all.params, 1005);
  nns_analysis_free(a);
  nns_analysis_free(NULL);
  nns_model_free(m);
}

int main(void) {
  RUN(test_rf_residual);
  RUN(test_rf_inception);
  RUN(test_rf_resnet18);
  RUN(test_rf_torchscan);
  RUN(test_rf_se);
  RUN(test_rf_shuffle);
  RUN(test_rf_channels_last);
  RUN(test_rf_tensorflow_nhwc);
  RUN(test_rf_tensorflow_reshape_tail);
  RUN(test_rf_lost_is_explained);
  RUN(test_rf_long_chains);
  RUN(test_tied_long_chains);
  RUN(test_uncounted_why);
  RUN(test_rf_slice);
  RUN(test_rf_window);
  RUN(test_memory);
  RUN(test_params);
  RUN(test_scopes);
  RUN(test_deep_names);
  RUN(test_op_types);
  RUN(test_output_of_first_call);
  RUN(test_api_edges);
  return check_finish();
}
