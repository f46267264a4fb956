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
#include "testmodel.h"
#include "ops/window.h"

/* ==== Helpers ==== */

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
  CHECK_EQ(tm_run("conv", "same_upper", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,4,4,3");
  nns_model_free(m);
  /* pads 1, k 3, s 1: H + 2 - 3 + 1 = H: the symbols pass through. */
  CHECK_EQ(tm_run("conv", "sym", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,8,H,W");
  nns_model_free(m);
  /* Stride 2: floor((H - 1) / 2) + 1 is an expression, not H. */
  CHECK_EQ(tm_run("conv", "sym_s2", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,8,?,?");
  nns_model_free(m);
  /* group 2: C 4 = W.shape[1] 2 x 2; 5 - 3 + 1 = 3. */
  CHECK_EQ(tm_run("conv", "group", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,6,3,3");
  nns_model_free(m);
  /* 1-D, kernel 4 from W, stride 3, pads 2+1: (10 + 3 - 4) / 3 + 1 = 4. */
  CHECK_EQ(tm_run("conv", "conv1d", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "2,5,4");
  nns_model_free(m);
}

static void test_conv_errors(void) {
  EXPECT_FAIL("conv", "bad_channels", NNS_E_SHAPE); /* C 5 != 2 x group 2 */
  EXPECT_FAIL("conv", "bad_rank", NNS_E_SHAPE);     /* X rank 4, W rank 3 */
  EXPECT_FAIL("conv", "bad_bias", NNS_E_SHAPE);     /* B [5], M = 6 */
  EXPECT_FAIL("conv", "bad_kernel", NNS_E_SHAPE);   /* H 2 < kernel 3 */
  EXPECT_FAIL("conv", "bad_stride", NNS_E_ATTR);    /* strides [1, 0] */
  EXPECT_FAIL("conv", "huge_dilation", NNS_E_LIMIT); /* 2^62 > NNS__WIN_LIMIT */
}

static void test_conv_transpose(void) {
  nns_model *m;
  /* Channels W.shape[1] 3 x group 2 = 6. pads [1, 0, 0, 2]:
   * H: 3*(3-1) + 1 + 3 - 1 - 0 = 9; W: 2*(3-1) + 1 + 3 - 0 - 2 = 6. */
  CHECK_EQ(tm_run("conv", "convt", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,6,9,6");
  nns_model_free(m);
  /* output_shape [10, 8] is the spatial size. */
  CHECK_EQ(tm_run("conv", "convt_os", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,2,10,8");
  nns_model_free(m);
  /* SAME_LOWER, stride 2: in * 2; a symbolic H gives 2*H. */
  CHECK_EQ(tm_run("conv", "convt_same", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,2,2*H,10");
  nns_model_free(m);
}

/* ==== Pools ==== */

static void test_pools(void) {
  nns_model *m;
  /* k 2, s 2, ceil: ceil((5-2)/2) + 1 = 3; Indices int64 alike. */
  CHECK_EQ(tm_run("conv", "maxpool_ceil", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,1,3,3");
  EXPECT_SHAPE(m, "i", I64, "1,1,3,3");
  nns_model_free(m);
  /* pads 1, ceil. H 5: ceil((5+2-2)/2) + 1 = 4, but the 4th window would
   * start at (4-1)*2 = 6 >= 5 + 1, all padding: dropped -> 3. W 6:
   * ceil(6/2) + 1 = 4, starts at 6 < 6 + 1: kept -> 4. (PyTorch agrees.) */
  CHECK_EQ(tm_run("conv", "maxpool_drop", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,1,3,4");
  nns_model_free(m);
  /* k 3, s 2, ceil, no pads: ceil((H-3)/2) + 1 = floor(H/2); no window
   * can start in padding, so the size is the symbol H/2. */
  CHECK_EQ(tm_run("conv", "maxpool_sym_ceil", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,3,H/2,W/2");
  nns_model_free(m);
  /* SAME_LOWER, s 2: ceil(11/2) = 6; H symbolic. */
  CHECK_EQ(tm_run("conv", "avgpool_same", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,3,?,6");
  nns_model_free(m);
  CHECK_EQ(tm_run("conv", "global", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,7,1,1");
  nns_model_free(m);
  /* (in-1)*s - pads + k: H (2-1)*2 - 0 + 2 = 4; W (3-1)*2 - 1 + 2 = 5. */
  CHECK_EQ(tm_run("conv", "unpool", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,3,4,5");
  nns_model_free(m);
  /* [num_rois, C, output_height, output_width]. */
  CHECK_EQ(tm_run("conv", "roialign", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "R,8,5,4");
  nns_model_free(m);
}

/* ==== Gemm, MatMul, Einsum ==== */

static void test_gemm(void) {
  nns_model *m;
  /* A [4,3]^T = [3,4], B [5,4]^T = [4,5]; C [5] broadcasts: [3,5]. */
  CHECK_EQ(tm_run("conv", "gemm", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "3,5");
  nns_model_free(m);
  EXPECT_FAIL("conv", "gemm_bad", NNS_E_SHAPE); /* K 3 vs 5 */
  /* Batch [2,1] x [5] -> [2,5]; then [3,4] x [4,6]. */
  CHECK_EQ(tm_run("conv", "matmul_batch", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "2,5,3,6");
  nns_model_free(m);
  /* 1-D A is [1,4], its 1 dropped: [B,6]. 1-D B: [B,3]. */
  CHECK_EQ(tm_run("conv", "matmul_vec", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "B,6");
  nns_model_free(m);
  CHECK_EQ(tm_run("conv", "matmul_mv", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "B,3");
  nns_model_free(m);
  EXPECT_FAIL("conv", "matmul_bad", NNS_E_SHAPE); /* K 3 vs 4 */
}

static void test_einsum(void) {
  nns_model *m;
  /* "..." is [2,1] and [5] -> [2,5]; i 3, k 6. */
  CHECK_EQ(tm_run("conv", "einsum_ell", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "2,5,3,6");
  nns_model_free(m);
  /* Implicit "bA,Ac": letters used once, ASCII order: b, c -> [S, 7]. */
  CHECK_EQ(tm_run("conv", "einsum_implicit", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "S,7");
  nns_model_free(m);
  /* "iij->ji" on [4,4,2]: the diagonal i = 4, j = 2 -> [2,4]. */
  CHECK_EQ(tm_run("conv", "einsum_diag", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "2,4");
  nns_model_free(m);
  EXPECT_FAIL("conv", "einsum_bad", NNS_E_SHAPE); /* j is 3 and 4 */
}

/* ==== Normalisation ==== */

static void test_norm(void) {
  nns_model *m;
  /* axis 1 of [N,3,4]: Mean and InvStdDev [N,1,1], float (stash_type). */
  CHECK_EQ(tm_run("conv", "layernorm", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,3,4");
  EXPECT_SHAPE(m, "mean", F32, "N,1,1");
  EXPECT_SHAPE(m, "inv", F32, "N,1,1");
  nns_model_free(m);
  /* Opset 9: four statistics outputs, each [C] = [3]. */
  CHECK_EQ(tm_run("conv", "batchnorm", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,3,4,4");
  EXPECT_SHAPE(m, "rm", F32, "3");
  EXPECT_SHAPE(m, "sv", F32, "3");
  nns_model_free(m);
}

/* ==== Resize family ==== */

static void test_resize(void) {
  nns_model *m;
  /* scales [1,1,2,1.5]: floor(4*2) = 8, floor(5*1.5) = 7; N * 1 = N. */
  CHECK_EQ(tm_run("conv", "resize_scales", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,3,8,7");
  nns_model_free(m);
  CHECK_EQ(tm_run("conv", "resize_sizes", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,3,9,2");
  nns_model_free(m);
  /* scales attribute [1,1,2,3]: [1,2,6,9]. */
  CHECK_EQ(tm_run("conv", "upsample7", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "1,2,6,9");
  nns_model_free(m);
  /* blocksize 2: C 12/4 = 3, H 2*2, W 3*2. */
  CHECK_EQ(tm_run("conv", "d2s", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,3,4,6");
  nns_model_free(m);
  EXPECT_FAIL("conv", "s2d_bad", NNS_E_SHAPE); /* W 5 not divisible by 2 */
  /* [N, C, grid H_out, grid W_out]. */
  CHECK_EQ(tm_run("conv", "gridsample", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "N,3,5,6");
  nns_model_free(m);
}

/* ==== Recurrent ==== */

static void test_rnn(void) {
  nns_model *m;
  /* layout 1, bidirectional, hidden 7 (W dim 1 = 4 gates x 7):
   * Y [batch 2, seq S, dirs 2, 7]; Y_h, Y_c [batch 2, dirs 2, 7]. */
  CHECK_EQ(tm_run("conv", "lstm", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "y", F32, "2,S,2,7");
  EXPECT_SHAPE(m, "yh", F32, "2,2,7");
  EXPECT_SHAPE(m, "yc", F32, "2,2,7");
  nns_model_free(m);
  /* No hidden_size: W dim 1 15 / 3 gates = 5. Y omitted. */
  CHECK_EQ(tm_run("conv", "gru", &m, NULL), NNS_OK);
  EXPECT_SHAPE(m, "yh", F32, "1,B,5");
  nns_model_free(m);
  EXPECT_FAIL("conv", "rnn_bad", NNS_E_SHAPE); /* hidden_size 5, R says 6 */
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
