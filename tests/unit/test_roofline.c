/*
 * test_roofline.c - bytes, intensity, bound and roofline time against
 * values computed by hand from the datasheet figures in the comments
 * (docs/metrics.md, "Bytes and the roofline"); the hardware table and the
 * user's hardware file.
 *
 * Graphs are made with the builder: a GEMV (memory-bound) and a square
 * GEMM (compute-bound) in float16, an element-wise chain with a view, a
 * decode step reading a KV cache, and layers whose sums are checked.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "nnscan.h"

/* h100-sxm, NVIDIA H100 datasheet: 3.35 TB/s; FP16 1,979 TF with
 * sparsity = 989.5 dense; FP32 67 TF; FP8 3,958 sparse = 1,979 dense;
 * TF32 989 sparse = 494.5 dense. */
#define H100_BW 3.35e12
#define H100_FP16 989.5e12
#define H100_FP32 67e12
#define H100_FP8 1979e12
#define H100_TF32 494.5e12

#define CHECK_NEAR(a, b)                                                       \
  CHECK(fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)) + 1e-30)

/* ==== Building ==== */

static nns_error err;

static void node(nns_builder *b, const char *op, const char *path,
                 const char *const *in, size_t n_in, const char *out) {
  const char *outs[] = {out};
  CHECK_EQ(nns_builder_add_node(b, op, "", out, path, in, n_in, outs, 1, &err),
           NNS_OK);
}

static void input(nns_builder *b, const char *name, int dt, int rank,
                  const int64_t *dims) {
  CHECK_EQ(nns_builder_add_input(b, name, dt, rank, dims, NULL, &err), NNS_OK);
}

static void weight(nns_builder *b, const char *name, int dt, int rank,
                   const int64_t *dims) {
  CHECK_EQ(nns_builder_add_initializer(b, name, dt, rank, dims, NULL, 0, &err),
           NNS_OK);
}

static nns_model *finish(nns_builder *b, const char *const *outs, size_t n) {
  for (size_t i = 0; i < n; i++)
    CHECK_EQ(nns_builder_add_output(b, outs[i], 0, -1, NULL, NULL, &err),
             NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  return m;
}

static nns_builder *start(void) {
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  return b;
}

static nns_hardware device(const char *name) {
  nns_hardware h = {.size = sizeof h};
  CHECK_EQ(nns_hardware_find(name, &h, &err), NNS_OK);
  return h;
}

/* The analysis the checks read: each new one replaces the last. */
static nns_analysis *an;

static nns_status try_analyze(nns_model *m, const nns_analyze_options *o) {
  nns_analysis_free(an);
  an = NULL;
  return nns_model_analyze(m, o, &an, &err);
}

static void analyze(nns_model *m, const nns_hardware *hw, const char *dt) {
  nns_analyze_options o = {.size = sizeof o, .hardware = hw,
                           .compute_dtype = dt};
  CHECK_EQ(try_analyze(m, &o), NNS_OK);
}

/* Frees the analysis, then its model (which must outlive it). */
static void done(nns_model *m) {
  nns_analysis_free(an);
  an = NULL;
  nns_model_free(m);
}

static nns_counts total(const nns_model *m) {
  (void)m;
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_total_counts(an, &c), NNS_OK);
  return c;
}

/* y = x[M,K] @ w[K,N] in float16, at layer "fc". */
static nns_model *matmul_model(int64_t m_rows, int64_t k, int64_t n) {
  nns_builder *b = start();
  int64_t xd[] = {m_rows, k}, wd[] = {k, n};
  input(b, "x", NNS_DT_FLOAT16, 2, xd);
  weight(b, "w", NNS_DT_FLOAT16, 2, wd);
  const char *in[] = {"x", "w"};
  node(b, "MatMul", "fc", in, 2, "y");
  const char *outs[] = {"y"};
  return finish(b, outs, 1);
}

/* ==== Matrix products ==== */

/* A decode-step GEMV: 1x4096 @ 4096x4096 float16. FLOPs 1*4096*(2*4096-1)
 * = 33,550,336; bytes x 8,192 + w 33,554,432 + y 8,192 = 33,570,816;
 * memory time 33,570,816 / 3.35e12 = 1.00211e-5 s beats the compute time
 * 33,550,336 / 989.5e12 = 3.39e-8 s: memory-bound. */
static void test_gemv_memory_bound(void) {
  nns_model *m = matmul_model(1, 4096, 4096);
  nns_hardware h = device("h100-sxm");
  analyze(m, &h, NULL);
  nns_counts c = total(m);
  CHECK_EQ(c.flops, 33550336);
  CHECK_EQ(c.bytes, 33570816);
  CHECK_NEAR(c.intensity, 33550336.0 / 33570816.0);
  CHECK_EQ(c.bound, NNS_BOUND_MEMORY);
  CHECK_NEAR(c.time_s, 33570816.0 / H100_BW);
  CHECK_NEAR(c.memory_time_s, c.time_s);
  CHECK_EQ(c.compute_time_s, 0.0);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(an, &t), NNS_OK);
  CHECK_STR(t.hardware.name, "h100-sxm");
  CHECK_EQ(t.compute_dtype, NNS_COMPUTE_FP16); /* the weights' float16 */
  CHECK_EQ(t.float_dtype, NNS_COMPUTE_FP16);
  CHECK_NEAR(t.hardware.bandwidth, H100_BW);
  done(m);
}

/* 4096x4096 @ 4096x4096 float16: FLOPs 4096*4096*8191 = 137,422,176,256;
 * bytes 3 * 33,554,432 = 100,663,296; compute 1.3888e-4 s at 989.5 TF
 * beats memory 3.005e-5 s: compute-bound. With --dtype fp8 the product
 * runs at 1,979 TF. */
static void test_gemm_compute_bound(void) {
  nns_model *m = matmul_model(4096, 4096, 4096);
  nns_hardware h = device("h100-sxm");
  analyze(m, &h, NULL);
  nns_counts c = total(m);
  CHECK_EQ(c.flops, 137422176256);
  CHECK_EQ(c.bytes, 100663296);
  CHECK_EQ(c.bound, NNS_BOUND_COMPUTE);
  CHECK_NEAR(c.time_s, 137422176256.0 / H100_FP16);
  CHECK_NEAR(c.compute_time_s, c.time_s);
  analyze(m, &h, "fp8");
  c = total(m);
  CHECK_NEAR(c.time_s, 137422176256.0 / H100_FP8);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(an, &t), NNS_OK);
  CHECK_EQ(t.compute_dtype, NNS_COMPUTE_FP8);
  CHECK_EQ(t.float_dtype, NNS_COMPUTE_FP16); /* other ops: the model's */
  /* The A100 has no fp8: a clear error, not a zero peak. */
  nns_hardware a100 = device("a100-sxm-80g");
  nns_analyze_options o = {.size = sizeof o, .hardware = &a100,
                           .compute_dtype = "fp8"};
  CHECK_EQ(try_analyze(m, &o), NNS_E_ARG);
  CHECK(strstr(err.message, "fp8") != NULL);
  o.compute_dtype = "fp4";
  CHECK_EQ(try_analyze(m, &o), NNS_E_ARG);
  done(m);
}

/* ==== Element-wise ops, views, chains ==== */

/* x[1024,1024] float32 -> Relu -> Mul(r, r) -> Add(m, x) -> Reshape.
 * Relu 4 MiB in + 4 MiB out = 8,388,608 bytes, FLOPs 1,048,576;
 * Mul(r, r) reads r once: 8,388,608 bytes; Add 12,582,912 bytes; the
 * Reshape is a view: 0 (its shape input is not read). Each is memory-bound
 * at fp32's 67 TF (1,048,576 / 67e12 = 1.6e-8 s against 2.5e-6 s): the
 * time is the bytes over the bandwidth. */
static void test_eltwise_chain(void) {
  nns_builder *b = start();
  int64_t xd[] = {1024, 1024}, sd[] = {1}, shape[] = {-1};
  input(b, "x", NNS_DT_FLOAT, 2, xd);
  CHECK_EQ(nns_builder_add_initializer(b, "s", NNS_DT_INT64, 1, sd, shape,
                                       sizeof shape, &err),
           NNS_OK);
  const char *r_in[] = {"x"}, *m_in[] = {"r", "r"}, *a_in[] = {"m", "x"},
             *v_in[] = {"a", "s"};
  node(b, "Relu", "act", r_in, 1, "r");
  node(b, "Mul", "sq", m_in, 2, "m");
  node(b, "Add", "res", a_in, 2, "a");
  node(b, "Reshape", "flat", v_in, 2, "y");
  const char *outs[] = {"y"};
  nns_model *m = finish(b, outs, 1);
  nns_hardware h = device("h100-sxm");
  analyze(m, &h, NULL);
  int64_t want[] = {8388608, 8388608, 12582912, 0};
  for (size_t i = 0; i < 4; i++) {
    nns_counts c = {.size = sizeof c};
    CHECK_EQ(nns_analysis_node_counts(an, i, &c), NNS_OK);
    CHECK_EQ(c.bytes, want[i]);
    CHECK_EQ(c.bound, i < 3 ? NNS_BOUND_MEMORY : NNS_BOUND_NONE);
    CHECK_NEAR(c.time_s, (double)want[i] / H100_BW);
  }
  nns_counts c = total(m);
  CHECK_EQ(c.bytes, 8388608 + 8388608 + 12582912);
  CHECK_EQ(c.flops, 3 * 1048576);
  CHECK_NEAR(c.time_s, 29360128.0 / H100_BW);
  CHECK_EQ(c.bound, NNS_BOUND_MEMORY);
  /* tf32 is a matrix mode: an fp32 model's element-wise ops stay fp32. */
  analyze(m, &h, "tf32");
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(an, &t), NNS_OK);
  CHECK_EQ(t.compute_dtype, NNS_COMPUTE_TF32);
  CHECK_EQ(t.float_dtype, NNS_COMPUTE_FP32);
  done(m);
}

/* Without a device: bytes and intensity, no time or bound. */
static void test_no_hardware(void) {
  nns_model *m = matmul_model(1, 64, 32);
  analyze(m, NULL, NULL);
  nns_counts c = total(m);
  /* 64*2 + 64*32*2 + 32*2 bytes; FLOPs 32*(2*64-1). */
  CHECK_EQ(c.bytes, 128 + 4096 + 64);
  CHECK_NEAR(c.intensity, 32.0 * 127 / (128 + 4096 + 64));
  CHECK_EQ(c.time_s, 0.0);
  CHECK_EQ(c.bound, NNS_BOUND_NONE);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(an, &t), NNS_OK);
  CHECK(t.hardware.name == NULL);
  done(m);
  /* Issue 47: a compute dtype is checked without a device too: a
   * misspelt one is refused, not dropped; a known one is taken. */
  m = matmul_model(1, 64, 32);
  nns_analyze_options o = {.size = sizeof o, .compute_dtype = "bf61"};
  CHECK_EQ(try_analyze(m, &o), NNS_E_ARG);
  CHECK(strstr(err.message, "unknown compute dtype 'bf61'") != NULL);
  o.compute_dtype = "bf16";
  CHECK_EQ(try_analyze(m, &o), NNS_OK);
  done(m);
}

/* An embedding lookup reads the rows it picks, not the table: table
 * [1000, 64] float32, ids [1, 5] int64, y [1, 5, 64]: 1,280 bytes of rows
 * + 40 of ids + 1,280 written = 2,600. */
static void test_gather_reads_rows(void) {
  nns_builder *b = start();
  int64_t td[] = {1000, 64}, id[] = {1, 5};
  weight(b, "table", NNS_DT_FLOAT, 2, td);
  input(b, "ids", NNS_DT_INT64, 2, id);
  const char *in[] = {"table", "ids"};
  node(b, "Gather", "embed", in, 2, "y");
  const char *outs[] = {"y"};
  nns_model *m = finish(b, outs, 1);
  analyze(m, NULL, NULL);
  CHECK_EQ(total(m).bytes, 2600);
  done(m);
}

/* ==== A decode step ==== */

/* One attention read of a KV cache, float16, batch 1, 32 heads of 128,
 * 1,024 cached positions, named as Hugging Face's ONNX decoders name the
 * cache: present.0.key = Concat(past_key_values.0.key[1,32,1024,128],
 * new[1,32,1,128]) on axis 2; s = MatMul(q[1,32,1,128], kT) with kT the
 * Transpose of present; then o = MatMul(s, v_present) where v_present
 * is a graph input [1,32,1025,128]. Every node is memory-bound, so the
 * step's time is the bytes over the bandwidth:
 *   Concat 8,388,608 + 8,192 + 8,396,800 = 16,793,600
 *   Transpose 2 * 8,396,800 = 16,793,600
 *   MatMul q.kT 8,192 + 8,396,800 + 65,600 = 8,470,592
 *   MatMul s.v 65,600 + 8,396,800 + 8,192 = 8,470,592
 * that is KV-cache bytes, read and written by each op that touches them. */
static void test_decode_step(void) {
  nns_builder *b = start();
  int64_t past[] = {1, 32, 1024, 128}, one[] = {1, 32, 1, 128},
          vd[] = {1, 32, 1025, 128};
  input(b, "past_key_values.0.key", NNS_DT_FLOAT16, 4, past);
  input(b, "knew", NNS_DT_FLOAT16, 4, one);
  input(b, "q", NNS_DT_FLOAT16, 4, one);
  input(b, "v", NNS_DT_FLOAT16, 4, vd);
  const char *c_in[] = {"past_key_values.0.key", "knew"}, *t_in[] = {"present.0.key"},
             *s_in[] = {"q", "kt"}, *o_in[] = {"s", "v"};
  const char *outs1[] = {"present.0.key"};
  CHECK_EQ(nns_builder_add_node(b, "Concat", "", "cat", "attn", c_in, 2, outs1,
                                1, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_attr_int(b, "axis", 2, &err), NNS_OK);
  const char *outs2[] = {"kt"};
  CHECK_EQ(nns_builder_add_node(b, "Transpose", "", "tr", "attn", t_in, 1,
                                outs2, 1, &err),
           NNS_OK);
  int64_t perm[] = {0, 1, 3, 2};
  CHECK_EQ(nns_builder_attr_ints(b, "perm", perm, 4, &err), NNS_OK);
  node(b, "MatMul", "attn", s_in, 2, "s");
  node(b, "MatMul", "attn", o_in, 2, "o");
  const char *outs[] = {"o", "present.0.key"};
  nns_model *m = finish(b, outs, 2);
  nns_hardware h = device("h200"); /* 4.8 TB/s, H200 datasheet */
  analyze(m, &h, NULL);
  nns_counts c = total(m);
  int64_t bytes = 16793600 + 16793600 + 8470592 + 8470592;
  CHECK_EQ(c.bytes, bytes);
  CHECK_EQ(c.bound, NNS_BOUND_MEMORY);
  CHECK_NEAR(c.time_s, (double)bytes / 4.8e12);
  CHECK_EQ(c.memory_time_s, c.time_s);
  /* The step's KV figures (docs/metrics.md, "Decoder steps") are in the
   * bytes: the Concat reads the past cache and writes the present one. */
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(an, &t), NNS_OK);
  CHECK_EQ(t.kv_cache_bytes_read, 8388608);
  CHECK_EQ(t.kv_cache_bytes, 8396800);
  nns_counts cat = {.size = sizeof cat};
  CHECK_EQ(nns_analysis_node_counts(an, 0, &cat), NNS_OK);
  CHECK_EQ(cat.bytes, t.kv_cache_bytes_read + 8192 + t.kv_cache_bytes);
  done(m);
}

/* ==== Layers add up ==== */

/* Two blocks, each a GEMV and a Relu; the model's figures are the sums of
 * its layers', and a layer's time is the sum of its nodes' (never the max
 * of summed flops and bytes). */
static void test_layers_sum(void) {
  nns_builder *b = start();
  int64_t xd[] = {1, 256}, wd[] = {256, 256};
  input(b, "x", NNS_DT_FLOAT, 2, xd);
  weight(b, "w1", NNS_DT_FLOAT, 2, wd);
  weight(b, "w2", NNS_DT_FLOAT, 2, wd);
  const char *a_in[] = {"x", "w1"}, *b_in[] = {"h1"}, *c_in[] = {"r1", "w2"},
             *d_in[] = {"h2"};
  node(b, "MatMul", "blk1.fc", a_in, 2, "h1");
  node(b, "Relu", "blk1.act", b_in, 1, "r1");
  node(b, "MatMul", "blk2.fc", c_in, 2, "h2");
  node(b, "Relu", "blk2.act", d_in, 1, "y");
  const char *outs[] = {"y"};
  nns_model *m = finish(b, outs, 1);
  nns_hardware h = device("l4"); /* 300 GB/s, FP32 30.3 TF */
  analyze(m, &h, NULL);
  nns_counts all = total(m);
  double time = 0;
  int64_t bytes = 0;
  size_t n = nns_analysis_layer_count(an);
  for (size_t i = 1; i < n; i++) {
    nns_layer_info l = {.size = sizeof l};
    nns_counts c = {.size = sizeof c};
    CHECK_EQ(nns_analysis_layer(an, i, &l), NNS_OK);
    CHECK_EQ(nns_analysis_layer_counts(an, i, &c), NNS_OK);
    if (l.depth != 1)
      continue;
    time += c.time_s;
    bytes += c.bytes;
  }
  CHECK_EQ(bytes, all.bytes);
  CHECK_NEAR(time, all.time_s);
  /* By hand: fc 1,024 + 262,144 + 1,024 bytes, Relu 2,048, per block. */
  CHECK_EQ(all.bytes, 2 * (1024 + 262144 + 1024 + 2048));
  CHECK_NEAR(all.time_s, 2.0 * (1024 + 262144 + 1024 + 2048) / 0.3e12);
  done(m);
}

/* ==== Kernels ==== */

/* A device of round figures, made through the hardware struct: 2 GB/s
 * and 1 TFLOP/s at every dtype. */
static nns_hardware slow_device(void) {
  nns_hardware h = {.size = sizeof h, .name = "kernel-test",
                    .bandwidth = 2e9};
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
    h.peak_flops[d] = 1e12;
  return h;
}

static nns_counts node_counts(size_t i) {
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_node_counts(an, i, &c), NNS_OK);
  return c;
}

/* The counts of the layer at `path`. */
static nns_counts layer_counts(const char *path) {
  nns_counts c = {.size = sizeof c};
  for (size_t i = 0; i < nns_analysis_layer_count(an); i++) {
    nns_layer_info l = {.size = sizeof l};
    CHECK_EQ(nns_analysis_layer(an, i, &l), NNS_OK);
    if (strcmp(l.path, path) == 0) {
      CHECK_EQ(nns_analysis_layer_counts(an, i, &c), NNS_OK);
      return c;
    }
  }
  check_fail(__FILE__, __LINE__, "no layer '%s'", path);
  return c;
}

enum { N = 1024 }; /* elements of the element-wise tests' vectors */

/* SiLU as a PyTorch recording spells aten.silu: s = Sigmoid(x),
 * y = Mul(x, s), x [N] float32; `kernel`: the two as one kernel. */
static nns_model *silu_model(bool kernel) {
  nns_builder *b = start();
  int64_t xd[] = {N};
  input(b, "x", NNS_DT_FLOAT, 1, xd);
  const char *s_in[] = {"x"}, *y_in[] = {"x", "s"};
  node(b, "Sigmoid", "act", s_in, 1, "s");
  node(b, "Mul", "act", y_in, 2, "y");
  if (kernel)
    CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_OK);
  const char *outs[] = {"y"};
  return finish(b, outs, 1);
}

/* Unfused, Sigmoid reads x and writes s (2 * 4N bytes), Mul reads x and s
 * and writes y (3 * 4N): 5 tensors, 20N bytes. As one kernel, x is read
 * once and y written: 2 * 4N = 8N bytes, 4N at each node, and the time is
 * 8N bytes / 2 GB/s (the FLOPs, a few per element at 1 TFLOP/s, take a
 * thousandth of that). The FLOPs are the same either way. */
static void test_kernel_sigmoid_mul(void) {
  nns_hardware h = slow_device();
  nns_model *m = silu_model(false);
  analyze(m, &h, NULL);
  nns_counts apart = total(m);
  CHECK_EQ(apart.bytes, 20 * N);
  CHECK_EQ(node_counts(0).bytes, 8 * N);
  CHECK_EQ(node_counts(1).bytes, 12 * N);
  CHECK_NEAR(apart.time_s, 20.0 * N / 2e9);
  nns_node_info ni = {.size = sizeof ni};
  CHECK_EQ(nns_model_node(m, 1, &ni), NNS_OK);
  CHECK_EQ(ni.kernel, (size_t)-1);
  CHECK_EQ(ni.kernel_nodes, 1);
  done(m);

  m = silu_model(true);
  for (size_t i = 0; i < 2; i++) {
    CHECK_EQ(nns_model_node(m, i, &ni), NNS_OK);
    CHECK_EQ(ni.kernel, 0);
    CHECK_EQ(ni.kernel_nodes, 2);
  }
  analyze(m, &h, NULL);
  nns_counts c = total(m);
  CHECK_EQ(c.bytes, 8 * N);
  CHECK_EQ(c.flops, apart.flops);
  CHECK_EQ(c.macs, apart.macs);
  CHECK_NEAR(c.time_s, 8.0 * N / 2e9);
  CHECK_NEAR(c.memory_time_s, c.time_s);
  CHECK_EQ(c.compute_time_s, 0.0);
  CHECK_EQ(c.bound, NNS_BOUND_MEMORY);
  CHECK_NEAR(c.intensity, (double)apart.flops / (8.0 * N));
  for (size_t i = 0; i < 2; i++) {
    nns_counts k = node_counts(i);
    CHECK_EQ(k.bytes, 4 * N);
    CHECK_EQ(k.bound, NNS_BOUND_MEMORY);
    CHECK_NEAR(k.time_s, 4.0 * N / 2e9);
  }
  nns_counts l = layer_counts("act");
  CHECK_EQ(l.bytes, 8 * N);
  CHECK_NEAR(l.time_s, 8.0 * N / 2e9);
  /* Without a device: the same bytes, no time. */
  analyze(m, NULL, NULL);
  CHECK_EQ(total(m).bytes, 8 * N);
  CHECK_EQ(total(m).bound, NNS_BOUND_NONE);
  CHECK_EQ(node_counts(1).bound, NNS_BOUND_NONE);
  done(m);
}

/* Values that leave the kernel are written, x [N] float32 as above:
 *  - s = Sigmoid(x) also read by Add(s, y) outside the kernel {Sigmoid,
 *    Mul}: Sigmoid reads x and writes s (8N), Mul writes y (4N), Add
 *    reads s and y and writes z (12N): 24N;
 *  - a kernel {Sigmoid, Mul, Relu(s) -> u} where nobody reads u and y is
 *    a graph output: x read, y and u written: 12N;
 *  - s a graph output too, kernel {Sigmoid, Mul}: x read, s and y
 *    written: 12N. */
/* x [N] -> Sigmoid s -> Mul(x, s) y -> Add(s, y) z, no kernel marked. */
static nns_builder *sigmoid_mul_add(void) {
  int64_t xd[] = {N};
  const char *s_in[] = {"x"}, *y_in[] = {"x", "s"}, *z_in[] = {"s", "y"};
  nns_builder *b = start();
  input(b, "x", NNS_DT_FLOAT, 1, xd);
  node(b, "Sigmoid", "act", s_in, 1, "s");
  node(b, "Mul", "act", y_in, 2, "y");
  node(b, "Add", "res", z_in, 2, "z");
  return b;
}

static void test_kernel_values_leaving(void) {
  nns_hardware h = slow_device();
  int64_t xd[] = {N};
  const char *s_in[] = {"x"}, *y_in[] = {"x", "s"}, *u_in[] = {"s"};

  nns_builder *b = sigmoid_mul_add();
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_OK);
  const char *outs_z[] = {"z"};
  nns_model *m = finish(b, outs_z, 1);
  analyze(m, &h, NULL);
  CHECK_EQ(node_counts(0).bytes, 8 * N);
  CHECK_EQ(node_counts(1).bytes, 4 * N);
  CHECK_EQ(node_counts(2).bytes, 12 * N);
  CHECK_EQ(total(m).bytes, 24 * N);
  CHECK_EQ(layer_counts("act").bytes, 12 * N);
  CHECK_NEAR(layer_counts("act").time_s, 12.0 * N / 2e9);
  CHECK_NEAR(total(m).time_s, 24.0 * N / 2e9);
  done(m);

  b = start();
  input(b, "x", NNS_DT_FLOAT, 1, xd);
  node(b, "Sigmoid", "act", s_in, 1, "s");
  node(b, "Mul", "act", y_in, 2, "y");
  node(b, "Relu", "act", u_in, 1, "u");
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 3, &err), NNS_OK);
  const char *outs_y[] = {"y"};
  m = finish(b, outs_y, 1);
  analyze(m, &h, NULL);
  CHECK_EQ(node_counts(0).bytes, 4 * N);
  CHECK_EQ(node_counts(1).bytes, 4 * N);
  CHECK_EQ(node_counts(2).bytes, 4 * N);
  CHECK_EQ(total(m).bytes, 12 * N);
  done(m);

  b = start();
  input(b, "x", NNS_DT_FLOAT, 1, xd);
  node(b, "Sigmoid", "act", s_in, 1, "s");
  node(b, "Mul", "act", y_in, 2, "y");
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_OK);
  const char *outs_sy[] = {"s", "y"};
  m = finish(b, outs_sy, 2);
  analyze(m, &h, NULL);
  CHECK_EQ(total(m).bytes, 12 * N);
  CHECK_EQ(node_counts(0).bytes, 8 * N);
  done(m);
}

/* A compute-bound kernel: t = MatMul(x, w), y = Add(t, b), x and w
 * [4096, 4096] and b [4096] float16, on the H100 SXM. FLOPs by hand:
 * MatMul 4096 * 4096 * (2 * 4096 - 1) = 137,422,176,256, Add one per
 * element, 16,777,216. Bytes: the MatMul reads x and w (67,108,864), t
 * stays in the kernel, the Add reads b (8,192) and writes y (33,554,432):
 * 100,671,488 in all, 3.005e-5 s at 3.35 TB/s, against 1.389e-4 s of
 * FLOPs at 989.5 TF: compute-bound. Each node then takes its FLOPs' time
 * (the Add alone would have been memory-bound: 1.0e-5 s of bytes against
 * 1.7e-8 s of FLOPs) and the times add up to the kernel's FLOPs over the
 * peak. */
static void test_kernel_compute_bound(void) {
  nns_builder *b = start();
  int64_t xd[] = {4096, 4096}, bd[] = {4096};
  input(b, "x", NNS_DT_FLOAT16, 2, xd);
  weight(b, "w", NNS_DT_FLOAT16, 2, xd);
  weight(b, "b", NNS_DT_FLOAT16, 1, bd);
  const char *t_in[] = {"x", "w"}, *y_in[] = {"t", "b"};
  node(b, "MatMul", "fc", t_in, 2, "t");
  node(b, "Add", "fc", y_in, 2, "y");
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_OK);
  const char *outs[] = {"y"};
  nns_model *m = finish(b, outs, 1);
  nns_hardware h = device("h100-sxm");
  analyze(m, &h, NULL);
  nns_counts mm = node_counts(0), add = node_counts(1), c = total(m);
  CHECK_EQ(mm.flops, 137422176256);
  CHECK_EQ(add.flops, 16777216);
  CHECK_EQ(mm.bytes, 67108864);
  CHECK_EQ(add.bytes, 8192 + 33554432);
  CHECK_EQ(c.bytes, 100671488);
  CHECK_EQ(mm.bound, NNS_BOUND_COMPUTE);
  CHECK_EQ(add.bound, NNS_BOUND_COMPUTE);
  CHECK_NEAR(mm.time_s, 137422176256.0 / H100_FP16);
  CHECK_NEAR(add.time_s, 16777216.0 / H100_FP16);
  CHECK_EQ(add.memory_time_s, 0.0);
  CHECK_NEAR(c.time_s, (137422176256.0 + 16777216.0) / H100_FP16);
  CHECK_NEAR(c.compute_time_s, c.time_s);
  CHECK_EQ(c.memory_time_s, 0.0);
  CHECK_EQ(c.bound, NNS_BOUND_COMPUTE);
  nns_counts l = layer_counts("fc");
  CHECK_EQ(l.bytes, c.bytes);
  CHECK_NEAR(l.time_s, c.time_s);
  /* The op-type rows sum the nodes too. */
  for (size_t i = 0; i < nns_analysis_op_type_count(an); i++) {
    nns_op_type_info ti = {.size = sizeof ti};
    nns_counts k = {.size = sizeof k};
    CHECK_EQ(nns_analysis_op_type(an, i, &ti), NNS_OK);
    CHECK_EQ(nns_analysis_op_type_counts(an, i, &k), NNS_OK);
    CHECK_EQ(k.bytes, strcmp(ti.op_type, "Add") ? mm.bytes : add.bytes);
  }
  done(m);
}

/* Views in a kernel stand for what they view, x [64, 32] float32 (8,192
 * bytes): {r = Reshape(x, [2048]), u = Relu(r), y = Reshape(u, [64, 32])}
 * with y the graph output: the Relu reads x through r and writes u, which
 * leaves the kernel as y: 2 * 8,192 bytes (no Reshape moves anything, nor
 * is its shape input read). */
static void test_kernel_views(void) {
  nns_builder *b = start();
  int64_t xd[] = {64, 32}, one[] = {1}, two[] = {2};
  int64_t flat[] = {2048}, back[] = {64, 32};
  input(b, "x", NNS_DT_FLOAT, 2, xd);
  CHECK_EQ(nns_builder_add_initializer(b, "flat", NNS_DT_INT64, 1, one, flat,
                                       sizeof flat, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_initializer(b, "back", NNS_DT_INT64, 1, two, back,
                                       sizeof back, &err),
           NNS_OK);
  const char *r_in[] = {"x", "flat"}, *u_in[] = {"r"}, *y_in[] = {"u", "back"};
  node(b, "Reshape", "blk", r_in, 2, "r");
  node(b, "Relu", "blk", u_in, 1, "u");
  node(b, "Reshape", "blk", y_in, 2, "y");
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 3, &err), NNS_OK);
  const char *outs[] = {"y"};
  nns_model *m = finish(b, outs, 1);
  analyze(m, NULL, NULL);
  CHECK_EQ(node_counts(0).bytes, 0);
  CHECK_EQ(node_counts(1).bytes, 2 * 8192);
  CHECK_EQ(node_counts(2).bytes, 0);
  CHECK_EQ(total(m).bytes, 2 * 8192);
  done(m);
}

/* A pick, then the whole table, in one kernel: g = Gather(table, ids)
 * (table [10, 4] float32, 160 bytes; ids [2] int64, 16), y = Concat(g,
 * table) [12, 4] (192 bytes). The Gather reads its 2 rows (32 bytes) and
 * the ids, the Concat the rest of the table (128) and writes y: the table
 * counts once, whole: 160 + 16 + 192 = 368. */
static void test_kernel_pick_then_whole(void) {
  nns_builder *b = start();
  int64_t td[] = {10, 4}, id[] = {2};
  weight(b, "table", NNS_DT_FLOAT, 2, td);
  input(b, "ids", NNS_DT_INT64, 1, id);
  const char *g_in[] = {"table", "ids"}, *y_in[] = {"g", "table"};
  node(b, "Gather", "emb", g_in, 2, "g");
  node(b, "Concat", "emb", y_in, 2, "y");
  CHECK_EQ(nns_builder_attr_int(b, "axis", 0, &err), NNS_OK);
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_OK);
  const char *outs[] = {"y"};
  nns_model *m = finish(b, outs, 1);
  analyze(m, NULL, NULL);
  CHECK_EQ(node_counts(0).bytes, 32 + 16);
  CHECK_EQ(node_counts(1).bytes, 128 + 192);
  CHECK_EQ(total(m).bytes, 368);
  done(m);
}

/* A kernel marked over kernels marked before replaces them: x ->
 * Sigmoid s -> Mul(x, s) y -> Add(s, y) z, the first two one kernel,
 * then all three. As one kernel of three nodes only x is read and z
 * written: 8N bytes (against 12N + 12N with {Sigmoid, Mul} alone:
 * test_kernel_values_leaving). Cutting the kernel is refused. */
static void test_kernel_over_kernels(void) {
  nns_hardware h = slow_device();
  nns_builder *b = sigmoid_mul_add();
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_OK);
  CHECK_EQ(nns_builder_mark_kernel(b, 1, 2, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "cut the kernel of nodes 0..1") != NULL);
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 3, &err), NNS_OK);
  const char *outs[] = {"z"};
  nns_model *m = finish(b, outs, 1);
  nns_node_info ni = {.size = sizeof ni};
  for (size_t k = 0; k < 3; k++) {
    CHECK_EQ(nns_model_node(m, k, &ni), NNS_OK);
    CHECK_EQ(ni.kernel, 0);
    CHECK_EQ(ni.kernel_nodes, 3);
  }
  analyze(m, &h, NULL);
  CHECK_EQ(total(m).bytes, 8 * N);
  done(m);
}

/* nns_builder_mark_kernel refuses what is not a kernel, and a refused
 * call changes nothing. */
static void test_kernel_errors(void) {
  nns_builder *b = start();
  int64_t xd[] = {4};
  input(b, "x", NNS_DT_FLOAT, 1, xd);
  const char *a_in[] = {"x"}, *b_in[] = {"a"}, *c_in[] = {"b"};
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_E_ARG); /* no nodes */
  node(b, "Relu", "", a_in, 1, "a");
  node(b, "Relu", "", b_in, 1, "b");
  node(b, "Relu", "", c_in, 1, "c");
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 1, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "at least 2") != NULL);
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 0, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_mark_kernel(b, 2, 2, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "has 3") != NULL);
  CHECK_EQ(nns_builder_mark_kernel(b, 3, 2, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_mark_kernel(b, SIZE_MAX, 2, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_mark_kernel(b, 1, SIZE_MAX, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_mark_kernel(b, 1, 2, &err), NNS_OK);
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "cut the kernel of nodes 1..2") != NULL);
  /* the same range again: the kernel it already is */
  CHECK_EQ(nns_builder_mark_kernel(b, 1, 2, &err), NNS_OK);
  /* The last node runs in a kernel: it cannot hold a subgraph. */
  CHECK_EQ(nns_builder_begin_graph(b, "body", NNS_ATTR_GRAPH, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "kernel") != NULL);
  const char *outs[] = {"c"};
  nns_model *m = finish(b, outs, 1);
  nns_node_info ni = {.size = sizeof ni};
  CHECK_EQ(nns_model_node(m, 0, &ni), NNS_OK);
  CHECK_EQ(ni.kernel, (size_t)-1);
  CHECK_EQ(nns_model_node(m, 2, &ni), NNS_OK);
  CHECK_EQ(ni.kernel, 1);
  CHECK_EQ(ni.kernel_nodes, 2);
  /* A caller of the first version's size gets neither field. */
  nns_node_info v1;
  memset(&v1, 0x5a, sizeof v1);
  v1.size = offsetof(nns_node_info, kernel);
  CHECK_EQ(nns_model_node(m, 2, &v1), NNS_OK);
  CHECK_EQ(v1.kernel, (size_t)0x5a5a5a5a5a5a5a5aULL);
  nns_model_free(m);

  /* A node holding a subgraph runs alone, and kernels are marked while no
   * subgraph is open. */
  b = start();
  input(b, "x", NNS_DT_FLOAT, 1, xd);
  input(b, "cond", NNS_DT_BOOL, 0, NULL);
  node(b, "Relu", "", a_in, 1, "a");
  const char *if_in[] = {"cond"};
  node(b, "If", "", if_in, 1, "b");
  CHECK_EQ(nns_builder_begin_graph(b, "then_branch", NNS_ATTR_GRAPH, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_E_STATE);
  CHECK_EQ(nns_builder_end_graph(b, &err), NNS_OK);
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "subgraph") != NULL);
  nns_builder_free(b);
  /* After finish, like every builder call: NNS_E_STATE. */
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  CHECK_EQ(nns_builder_mark_kernel(b, 0, 2, &err), NNS_E_STATE);
  nns_builder_free(b);
  nns_model_free(m);
}

/* ==== The table and the user's file ==== */

static void test_table(void) {
  static const char *const names[] = {
      "h100-sxm", "h100-pcie", "h200", "b200", "a100-sxm-80g",
      "a100-pcie-40g", "l4", "l40s", "rtx-4090", "mi300x", "cpu"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    nns_hardware h = device(names[i]);
    CHECK_STR(h.name, names[i]);
    CHECK(h.source && h.source[0]);
    bool gpu = strcmp(names[i], "cpu") != 0;
    CHECK(gpu ? h.bandwidth > 0 && h.peak_flops[NNS_COMPUTE_FP32] > 0
              : h.bandwidth == 0);
  }
  CHECK(nns_hardware_count() >= sizeof names / sizeof names[0]);
  nns_hardware h = {.size = sizeof h};
  CHECK_EQ(nns_hardware_find("h300", &h, &err), NNS_E_NOTFOUND);
  CHECK_EQ(nns_hardware_get(nns_hardware_count(), &h), NNS_E_ARG);
  /* The cpu entry has no figures: analysing with it says so. */
  nns_model *m = matmul_model(1, 8, 8);
  nns_hardware cpu = device("cpu");
  nns_analyze_options o = {.size = sizeof o, .hardware = &cpu};
  CHECK_EQ(try_analyze(m, &o), NNS_E_ARG);
  cpu.bandwidth = 50e9;
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
    cpu.peak_flops[d] = 1e12;
  CHECK_EQ(try_analyze(m, &o), NNS_OK);
  nns_counts c = total(m);
  /* 8*2 + 64*2 + 8*2 bytes over 50 GB/s. */
  CHECK_NEAR(c.time_s, 160.0 / 50e9);
  done(m);
  CHECK_STR(nns_compute_dtype_name(NNS_COMPUTE_BF16), "bf16");
  CHECK(nns_compute_dtype_name(NNS_COMPUTE_DTYPE_COUNT) == NULL);
  CHECK_STR(nns_bound_name(NNS_BOUND_MEMORY), "memory");
}

static const char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/nns_hw_%d.txt", (int)getpid());
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static void test_file(void) {
  const char *p = write_tmp("# my devices\n[my-npu]\ndescription = My NPU\n"
                            "bandwidth = 1.2e12\nfp32 = 30e12\n"
                            "bf16 = 120e12\n\n[other]\nbandwidth=1e11\n"
                            "int8 = 4e14\n");
  nns_hardware_list *l = NULL;
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_OK);
  CHECK_EQ(nns_hardware_list_count(l), 2);
  nns_hardware h = {.size = sizeof h};
  CHECK_EQ(nns_hardware_list_get(l, 0, &h), NNS_OK);
  CHECK_STR(h.name, "my-npu");
  CHECK_STR(h.description, "My NPU");
  CHECK_NEAR(h.bandwidth, 1.2e12);
  CHECK_NEAR(h.peak_flops[NNS_COMPUTE_BF16], 120e12);
  CHECK_EQ(h.peak_flops[NNS_COMPUTE_FP8], 0.0);
  /* A float16 GEMV on it: memory-bound at 1.2 TB/s. */
  nns_model *m = matmul_model(1, 64, 64);
  nns_analyze_options o = {.size = sizeof o, .hardware = &h,
                           .compute_dtype = "bf16"};
  CHECK_EQ(try_analyze(m, &o), NNS_OK);
  nns_hardware_list_free(l); /* the analysis keeps its own copy */
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(an, &t), NNS_OK);
  CHECK_STR(t.hardware.name, "my-npu");
  CHECK_NEAR(total(m).time_s, (128.0 + 8192 + 128) / 1.2e12);
  done(m);

  p = write_tmp("[a]\nbandwidth = 1e12\nfp32 = fast\n");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_E_MODEL);
  CHECK(strstr(err.message, ":3:") != NULL);
  CHECK(l == NULL);
  p = write_tmp("bandwidth = 1e12\n");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_E_MODEL);
  p = write_tmp("[a]\nfp32 = 1e12\n");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_E_MODEL);
  CHECK(strstr(err.message, "bandwidth") != NULL);
  p = write_tmp("[a]\nbandwidth = 1e12\nfp32 = 1\n[a]\n");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_E_MODEL);
  p = write_tmp("[a]\nwarp = 1\n");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_E_MODEL);
  /* Issue 47: a hardware file is UTF-8; a Latin-1 byte is refused with
   * its offset (0-based), and so is a sequence the file's end cuts. */
  p = write_tmp("[a]\ndescription = Caf\xe9\nbandwidth = 1e12\nfp32 = 1e12\n");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_E_MODEL);
  CHECK_EQ(err.offset, 21);
  CHECK(strstr(err.message, "byte 21 (0xe9) is not UTF-8") != NULL);
  CHECK(l == NULL);
  p = write_tmp("[a]\nbandwidth = 1e12\nfp32 = 1e12\n# \xe2\x82");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_E_MODEL);
  CHECK_EQ(err.offset, 35);
  p = write_tmp("[a]\ndescription = Caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80\n"
                "bandwidth = 1e12\nfp32 = 1e12\n");
  CHECK_EQ(nns_hardware_list_open(p, &l, &err), NNS_OK);
  nns_hardware_list_get(l, 0, &h);
  CHECK_STR(h.description, "Caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80");
  nns_hardware_list_free(l);
  remove(p);
  CHECK_EQ(nns_hardware_list_open("/nonexistent/hw", &l, &err), NNS_E_IO);
  nns_hardware_list_free(NULL);
}

int main(void) {
  RUN(test_gemv_memory_bound);
  RUN(test_gemm_compute_bound);
  RUN(test_eltwise_chain);
  RUN(test_no_hardware);
  RUN(test_gather_reads_rows);
  RUN(test_decode_step);
  RUN(test_layers_sum);
  RUN(test_kernel_sigmoid_mul);
  RUN(test_kernel_values_leaving);
  RUN(test_kernel_compute_bound);
  RUN(test_kernel_views);
  RUN(test_kernel_pick_then_whole);
  RUN(test_kernel_errors);
  RUN(test_kernel_over_kernels);
  RUN(test_table);
  RUN(test_file);
  return check_finish();
}
