/*
 * test_ops_conv.c - shape rules of the conv, pool, gemm, norm, resize and
 * rnn families, and the window arithmetic they share (src/ops/window.h).
 *
 * The models are one-node files written by unit/models/make_conv.py. Every
 * expected shape is worked out by hand in the comment beside it, from the
 * ONNX operator documents; none is copied from nnscan's own output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "ops/window.h"

/* ==== Helpers ==== */

static nns_model *load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/unit/models/conv_%s.onnx", check_dir(),
           name);
  nns_model *m = NULL;
  nns_error err;
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "load %s: %s", path, err.message);
    return NULL;
  }
  return m;
}

/* Loads and infers a model; returns the inference status. */
static nns_status run(const char *name, nns_model **out) {
  *out = load(name);
  if (!*out)
    return NNS_E_IO;
  nns_error err;
  return nns_model_infer(*out, NULL, &err);
}

/*
 * Checks value `name` has dtype and shape `spec`: comma-separated dims,
 * each a number, a symbol's name, or "?" for any unknown dim; "" is a
 * scalar and NULL an unknown rank.
 */
static void expect_at(int line, nns_model *m, const char *name, int dtype,
                      const char *spec) {
  size_t i = nns_model_find_value(m, name);
  if (i == (size_t)-1) {
    check_fail(__FILE__, line, "no value '%s'", name);
    return;
  }
  nns_value_info v;
  nns_model_value(m, i, &v);
  if (v.dtype != dtype)
    check_fail(__FILE__, line, "%s: dtype %d, want %d", name, v.dtype, dtype);
  if (!spec) {
    if (v.rank != -1)
      check_fail(__FILE__, line, "%s: rank %d, want unknown", name, v.rank);
    return;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  int k = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), k++) {
    if (k >= v.rank) {
      check_fail(__FILE__, line, "%s: rank %d, want more (%s)", name, v.rank,
                 spec);
      return;
    }
    nns_dim d = nns_model_value_dim(m, i, k);
    char *end;
    long long want = strtoll(tok, &end, 10);
    if (*end == 0 && end != tok) {
      if (d.value != want)
        check_fail(__FILE__, line, "%s: dim %d is %lld (%s), want %lld", name,
                   k, (long long)d.value, d.symbol ? d.symbol : "?", want);
    } else if (d.value != -1) {
      check_fail(__FILE__, line, "%s: dim %d is %lld, want symbol %s", name, k,
                 (long long)d.value, tok);
    } else if (strcmp(tok, "?") != 0 &&
               (!d.symbol || strcmp(d.symbol, tok) != 0)) {
      check_fail(__FILE__, line, "%s: dim %d is symbol %s, want %s", name, k,
                 d.symbol ? d.symbol : "(unnamed)", tok);
    }
  }
  if (k != v.rank)
    check_fail(__FILE__, line, "%s: rank %d, want %d (%s)", name, v.rank, k,
               spec);
}
#define EXPECT(m, name, dtype, spec) expect_at(__LINE__, m, name, dtype, spec)

/* Runs a model that must fail inference with `code`. */
static void expect_fail_at(int line, const char *name, nns_status code) {
  nns_model *m;
  nns_status st = run(name, &m);
  if (st != code)
    check_fail(__FILE__, line, "%s: status %s, want %s", name,
               nns_status_name(st), nns_status_name(code));
  nns_model_free(m);
}
#define EXPECT_FAIL(name, code) expect_fail_at(__LINE__, name, code)

enum { F32 = NNS_DT_FLOAT, I64 = NNS_DT_INT64 };

/* ==== Window arithmetic ==== */

static nns__window win1(int64_t k, int64_t s, int64_t d, int64_t pb,
                        int64_t pe, uint8_t auto_pad, bool ceil_mode) {
  nns__window w;
  memset(&w, 0, sizeof w);
  w.n = 1;
  w.kernel[0] = k;
  w.stride[0] = s;
  w.dilation[0] = d;
  w.pad_begin[0] = pb;
  w.pad_end[0] = pe;
  w.output_shape[0] = -1;
  w.auto_pad = auto_pad;
  w.ceil_mode = ceil_mode;
  return w;
}

static void test_window_axis(void) {
  nns__win_axis r;
  /* in 10, k 3, s 2, SAME: out ceil(10/2) = 5; total pad (5-1)*2 + 3 - 10
   * = 1, at the end for SAME_UPPER, at the beginning for SAME_LOWER. */
  nns__window w = win1(3, 2, 1, 0, 0, NNS__PAD_SAME_UPPER, false);
  CHECK(nns__window_axis(&w, 0, 10, &r));
  CHECK_EQ(r.out, 5);
  CHECK_EQ(r.pad_begin, 0);
  CHECK_EQ(r.pad_end, 1);
  w.auto_pad = NNS__PAD_SAME_LOWER;
  CHECK(nns__window_axis(&w, 0, 10, &r));
  CHECK_EQ(r.pad_begin, 1);
  CHECK_EQ(r.pad_end, 0);
  /* Dilation 3, k 3: extent (3-1)*3 + 1 = 7; in 20, pads 2+1, s 4:
   * floor((20 + 3 - 7) / 4) + 1 = 5. */
  w = win1(3, 4, 3, 2, 1, NNS__PAD_NOTSET, false);
  CHECK_EQ(nns__window_extent(&w, 0), 7);
  CHECK(nns__window_axis(&w, 0, 20, &r));
  CHECK_EQ(r.out, 5);
  /* ceil_mode: in 6, k 3, s 2: ceil((6-3)/2) + 1 = 3 (floor gives 2). */
  w = win1(3, 2, 1, 0, 0, NNS__PAD_NOTSET, true);
  CHECK(nns__window_axis(&w, 0, 6, &r));
  CHECK_EQ(r.out, 3);
  /* VALID ignores the pads: in 5, k 5 -> 1; in 4 does not fit. */
  w = win1(5, 1, 1, 0, 0, NNS__PAD_VALID, false);
  CHECK(nns__window_axis(&w, 0, 5, &r));
  CHECK_EQ(r.out, 1);
  CHECK(!nns__window_axis(&w, 0, 4, &r));
  /* Transposed: in 3, s 3, k 3, output_padding 1: 3*2 + 1 + 3 = 10; with
   * output_shape 8 the 2 extra are cropped, 1 and 1 (SAME_UPPER: 2/2 at
   * the start). With output_shape 9, NOTSET: total 1 -> begin 1, end 0. */
  w = win1(3, 3, 1, 0, 0, NNS__PAD_NOTSET, false);
  w.output_padding[0] = 1;
  CHECK(nns__window_axis_transposed(&w, 0, 3, &r));
  CHECK_EQ(r.out, 10);
  w.output_shape[0] = 9;
  CHECK(nns__window_axis_transposed(&w, 0, 3, &r));
  CHECK_EQ(r.out, 9);
  CHECK_EQ(r.pad_begin, 1);
  CHECK_EQ(r.pad_end, 0);
  /* Overflow: a huge dilation is refused, not wrapped. */
  w = win1(3, 1, INT64_MAX / 2 + 1, 0, 0, NNS__PAD_NOTSET, false);
  CHECK_EQ(nns__window_extent(&w, 0), -1);
  CHECK(!nns__window_axis(&w, 0, 10, &r));
}

/* ==== Conv ==== */

static void test_conv(void) {
  nns_model *m;
  /* SAME_UPPER, strides [2, 3], dilations [2, 1]: ceil(7/2) = 4,
   * ceil(9/3) = 3; M = W.shape[0] = 4. */
  CHECK_EQ(run("same_upper", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,4,4,3");
  nns_model_free(m);
  /* pads 1, k 3, s 1: H + 2 - 3 + 1 = H: the symbols pass through. */
  CHECK_EQ(run("sym", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,8,H,W");
  nns_model_free(m);
  /* Stride 2: floor((H - 1) / 2) + 1 is an expression, not H. */
  CHECK_EQ(run("sym_s2", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,8,?,?");
  nns_model_free(m);
  /* group 2: C 4 = W.shape[1] 2 x 2; 5 - 3 + 1 = 3. */
  CHECK_EQ(run("group", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,6,3,3");
  nns_model_free(m);
  /* 1-D, kernel 4 from W, stride 3, pads 2+1: (10 + 3 - 4) / 3 + 1 = 4. */
  CHECK_EQ(run("conv1d", &m), NNS_OK);
  EXPECT(m, "y", F32, "2,5,4");
  nns_model_free(m);
}

static void test_conv_errors(void) {
  EXPECT_FAIL("bad_channels", NNS_E_SHAPE); /* C 5 != 2 x group 2 */
  EXPECT_FAIL("bad_rank", NNS_E_SHAPE);     /* X rank 4, W rank 3 */
  EXPECT_FAIL("bad_bias", NNS_E_SHAPE);     /* B [5], M = 6 */
  EXPECT_FAIL("bad_kernel", NNS_E_SHAPE);   /* H 2 < kernel 3 */
  EXPECT_FAIL("bad_stride", NNS_E_ATTR);    /* strides [1, 0] */
  EXPECT_FAIL("huge_dilation", NNS_E_LIMIT); /* 2^62 > NNS__WIN_LIMIT */
}

static void test_conv_transpose(void) {
  nns_model *m;
  /* Channels W.shape[1] 3 x group 2 = 6. pads [1, 0, 0, 2]:
   * H: 3*(3-1) + 1 + 3 - 1 - 0 = 9; W: 2*(3-1) + 1 + 3 - 0 - 2 = 6. */
  CHECK_EQ(run("convt", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,6,9,6");
  nns_model_free(m);
  /* output_shape [10, 8] is the spatial size. */
  CHECK_EQ(run("convt_os", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,2,10,8");
  nns_model_free(m);
  /* SAME_LOWER, stride 2: in * 2; a symbolic H gives 2*H. */
  CHECK_EQ(run("convt_same", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,2,2*H,10");
  nns_model_free(m);
}

/* ==== Pools ==== */

static void test_pools(void) {
  nns_model *m;
  /* k 2, s 2, ceil: ceil((5-2)/2) + 1 = 3; Indices int64 alike. */
  CHECK_EQ(run("maxpool_ceil", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,1,3,3");
  EXPECT(m, "i", I64, "1,1,3,3");
  nns_model_free(m);
  /* pads 1, ceil. H 5: ceil((5+2-2)/2) + 1 = 4, but the 4th window would
   * start at (4-1)*2 = 6 >= 5 + 1, all padding: dropped -> 3. W 6:
   * ceil(6/2) + 1 = 4, starts at 6 < 6 + 1: kept -> 4. (PyTorch agrees.) */
  CHECK_EQ(run("maxpool_drop", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,1,3,4");
  nns_model_free(m);
  /* k 3, s 2, ceil, no pads: ceil((H-3)/2) + 1 = floor(H/2); no window
   * can start in padding, so the size is the symbol H/2. */
  CHECK_EQ(run("maxpool_sym_ceil", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,3,H/2,W/2");
  nns_model_free(m);
  /* SAME_LOWER, s 2: ceil(11/2) = 6; H symbolic. */
  CHECK_EQ(run("avgpool_same", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,3,?,6");
  nns_model_free(m);
  CHECK_EQ(run("global", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,7,1,1");
  nns_model_free(m);
  /* (in-1)*s - pads + k: H (2-1)*2 - 0 + 2 = 4; W (3-1)*2 - 1 + 2 = 5. */
  CHECK_EQ(run("unpool", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,3,4,5");
  nns_model_free(m);
  /* [num_rois, C, output_height, output_width]. */
  CHECK_EQ(run("roialign", &m), NNS_OK);
  EXPECT(m, "y", F32, "R,8,5,4");
  nns_model_free(m);
}

/* ==== Gemm, MatMul, Einsum ==== */

static void test_gemm(void) {
  nns_model *m;
  /* A [4,3]^T = [3,4], B [5,4]^T = [4,5]; C [5] broadcasts: [3,5]. */
  CHECK_EQ(run("gemm", &m), NNS_OK);
  EXPECT(m, "y", F32, "3,5");
  nns_model_free(m);
  EXPECT_FAIL("gemm_bad", NNS_E_SHAPE); /* K 3 vs 5 */
  /* Batch [2,1] x [5] -> [2,5]; then [3,4] x [4,6]. */
  CHECK_EQ(run("matmul_batch", &m), NNS_OK);
  EXPECT(m, "y", F32, "2,5,3,6");
  nns_model_free(m);
  /* 1-D A is [1,4], its 1 dropped: [B,6]. 1-D B: [B,3]. */
  CHECK_EQ(run("matmul_vec", &m), NNS_OK);
  EXPECT(m, "y", F32, "B,6");
  nns_model_free(m);
  CHECK_EQ(run("matmul_mv", &m), NNS_OK);
  EXPECT(m, "y", F32, "B,3");
  nns_model_free(m);
  EXPECT_FAIL("matmul_bad", NNS_E_SHAPE); /* K 3 vs 4 */
}

static void test_einsum(void) {
  nns_model *m;
  /* "..." is [2,1] and [5] -> [2,5]; i 3, k 6. */
  CHECK_EQ(run("einsum_ell", &m), NNS_OK);
  EXPECT(m, "y", F32, "2,5,3,6");
  nns_model_free(m);
  /* Implicit "bA,Ac": letters used once, ASCII order: b, c -> [S, 7]. */
  CHECK_EQ(run("einsum_implicit", &m), NNS_OK);
  EXPECT(m, "y", F32, "S,7");
  nns_model_free(m);
  /* "iij->ji" on [4,4,2]: the diagonal i = 4, j = 2 -> [2,4]. */
  CHECK_EQ(run("einsum_diag", &m), NNS_OK);
  EXPECT(m, "y", F32, "2,4");
  nns_model_free(m);
  EXPECT_FAIL("einsum_bad", NNS_E_SHAPE); /* j is 3 and 4 */
}

/* ==== Normalisation ==== */

static void test_norm(void) {
  nns_model *m;
  /* axis 1 of [N,3,4]: Mean and InvStdDev [N,1,1], float (stash_type). */
  CHECK_EQ(run("layernorm", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,3,4");
  EXPECT(m, "mean", F32, "N,1,1");
  EXPECT(m, "inv", F32, "N,1,1");
  nns_model_free(m);
  /* Opset 9: four statistics outputs, each [C] = [3]. */
  CHECK_EQ(run("batchnorm", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,3,4,4");
  EXPECT(m, "rm", F32, "3");
  EXPECT(m, "sv", F32, "3");
  nns_model_free(m);
}

/* ==== Resize family ==== */

static void test_resize(void) {
  nns_model *m;
  /* scales [1,1,2,1.5]: floor(4*2) = 8, floor(5*1.5) = 7; N * 1 = N. */
  CHECK_EQ(run("resize_scales", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,3,8,7");
  nns_model_free(m);
  CHECK_EQ(run("resize_sizes", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,3,9,2");
  nns_model_free(m);
  /* scales attribute [1,1,2,3]: [1,2,6,9]. */
  CHECK_EQ(run("upsample7", &m), NNS_OK);
  EXPECT(m, "y", F32, "1,2,6,9");
  nns_model_free(m);
  /* blocksize 2: C 12/4 = 3, H 2*2, W 3*2. */
  CHECK_EQ(run("d2s", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,3,4,6");
  nns_model_free(m);
  EXPECT_FAIL("s2d_bad", NNS_E_SHAPE); /* W 5 not divisible by 2 */
  /* [N, C, grid H_out, grid W_out]. */
  CHECK_EQ(run("gridsample", &m), NNS_OK);
  EXPECT(m, "y", F32, "N,3,5,6");
  nns_model_free(m);
}

/* ==== Recurrent ==== */

static void test_rnn(void) {
  nns_model *m;
  /* layout 1, bidirectional, hidden 7 (W dim 1 = 4 gates x 7):
   * Y [batch 2, seq S, dirs 2, 7]; Y_h, Y_c [batch 2, dirs 2, 7]. */
  CHECK_EQ(run("lstm", &m), NNS_OK);
  EXPECT(m, "y", F32, "2,S,2,7");
  EXPECT(m, "yh", F32, "2,2,7");
  EXPECT(m, "yc", F32, "2,2,7");
  nns_model_free(m);
  /* No hidden_size: W dim 1 15 / 3 gates = 5. Y omitted. */
  CHECK_EQ(run("gru", &m), NNS_OK);
  EXPECT(m, "yh", F32, "1,B,5");
  nns_model_free(m);
  EXPECT_FAIL("rnn_bad", NNS_E_SHAPE); /* hidden_size 5, R says 6 */
}

int main(void) {
  RUN(test_window_axis);
  RUN(test_conv);
  RUN(test_conv_errors);
  RUN(test_conv_transpose);
  RUN(test_pools);
  RUN(test_gemm);
  RUN(test_einsum);
  RUN(test_norm);
  RUN(test_resize);
  RUN(test_rnn);
  return check_finish();
}
