/*
 * test_ops_opset25.c - ops that first exist above opset 17 and the forms
 * that changed from 18 to 25 (issue 44): shape and cost of each node of
 * unit/models/opset25_*.onnx (written by unit/models/make_opset25.py).
 * Every expected shape and count is worked out by hand in the comment
 * beside it from docs/metrics.md; none is copied from nnscan's output.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ir/ir.h"
#include "nnscan.h"
#include "ops/op.h"
#include "testmodel.h"

/* x [2,4,3,5] = 120 elements; img [1,1,7,7]; int32 a [2,3], b [3]. */
static void test_new_ops(void) {
  nns_model *m = tm_load("opset25", "ops", TM_INFER);
  if (!m)
    return;
  /* Gelu 8, Mish 6, Swish 6 (mul, Sigmoid's 4, mul) per element;
   * DMAs 120 + 120. */
  EXPECT_SHAPE(m, "gelu", NNS_DT_FLOAT, "2,4,3,5");
  EXPECT_COST(m, "gelu", 960, 0, 240);
  EXPECT_COST(m, "mish", 720, 0, 240);
  EXPECT_COST(m, "swish", 720, 0, 240);
  /* Bitwise [2,3] op [3] -> [2,3]: 1 per element = 6; DMAs 6 + 3 + 6. */
  EXPECT_SHAPE(m, "band", NNS_DT_INT32, "2,3");
  EXPECT_COST(m, "band", 6, 0, 15);
  EXPECT_COST(m, "bor", 6, 0, 15);
  EXPECT_COST(m, "bxor", 6, 0, 15);
  /* BitwiseNot: 6; DMAs 6 + 6. */
  EXPECT_SHAPE(m, "bnot", NNS_DT_INT32, "2,3");
  EXPECT_COST(m, "bnot", 6, 0, 12);
  /* GroupNormalization-21 is InstanceNormalization's count: 8 numel(X)
   * = 960, MACs 2 numel(X) = 240, DMAs 2*120 + scale 4 + bias 4. */
  EXPECT_SHAPE(m, "gn", NNS_DT_FLOAT, "2,4,3,5");
  EXPECT_COST(m, "gn", 960, 240, 248);
  /* RMSNormalization over the last axis: 4 numel(X) = 480, MACs 120 (the
   * sum of squares), DMAs 2*120 + scale 5. */
  EXPECT_SHAPE(m, "rms", NNS_DT_FLOAT, "2,4,3,5");
  EXPECT_COST(m, "rms", 480, 120, 245);
  nns_model_free(m);
}

static void test_changed_forms(void) {
  nns_model *m = tm_load("opset25", "ops", TM_INFER);
  if (!m)
    return;
  /* AveragePool-19, kernel 3 dilated by 2 spans 5: 7 - 5 + 1 = 3. */
  EXPECT_SHAPE(m, "avg", NNS_DT_FLOAT, "1,1,3,3");
  /* LpPool-18, kernel 2 dilated by 3 spans 4, stride 2: (7-4)/2+1 = 2. */
  EXPECT_SHAPE(m, "lp", NNS_DT_FLOAT, "1,1,2,2");
  /* ReduceMean-18 with axes [1] as an input, keepdims 0: [2,3,5]; numel(X)
   * = 120, DMAs 120 + 30. */
  EXPECT_SHAPE(m, "rmean", NNS_DT_FLOAT, "2,3,5");
  EXPECT_COST(m, "rmean", 120, 0, 150);
  /* ReduceMax-18 without axes reduces every axis (keepdims 1). */
  EXPECT_SHAPE(m, "rmax", NNS_DT_FLOAT, "1,1,1,1");
  /* Cast-19 takes saturate. */
  EXPECT_SHAPE(m, "cast", NNS_DT_FLOAT16, "2,4,3,5");
  nns_model_free(m);
}

/* GroupNormalization-18: scale and bias per group ([2]); DMAs 240 + 4. */
static void test_group_norm_18(void) {
  nns_model *m = tm_load("opset25", "gn18", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "gn", NNS_DT_FLOAT, "2,4,3,5");
  EXPECT_COST(m, "gn", 960, 240, 244);
  nns_model_free(m);
}

/*
 * Attention-23. gqa: Q [2,4,32] as 4 heads of 8, K and V [2,6,16] as 2
 * heads of 8, past [2,2,3,8]: T = 3 + 6 = 9 keys, is_causal. Y [2,4,32],
 * present [2,2,9,8].
 *   MACs   B hq S T (head + v_head) = 2*4*4*9*16 = 4608;
 *   scores 2*4*4*9 = 288; Q.Kt FLOPs 2*2304 - 288 = 4320, P.V FLOPs
 *          2*2304 - B S hq v_head (256) = 4352, scale + causal + softmax
 *          7 per score = 2016: 10688;
 *   DMAs   Q 256 + K 2*9*16 = 288 + scores 288, Y 256 + scores 288 + V 288,
 *          softmax 2*288, past 96 + 96, present 144*2 + 144*2: 3008.
 * macs_unmasked (is_causal over the cache) is checked in
 * test_ops_msft_llm.c, test_attention_causal.
 */
static void test_attention_gqa(void) {
  nns_model *m = tm_load("opset25", "attn", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "2,4,32");
  EXPECT_SHAPE(m, "present_k", NNS_DT_FLOAT, "2,2,9,8");
  EXPECT_SHAPE(m, "present_v", NNS_DT_FLOAT, "2,2,9,8");
  EXPECT_COST(m, "gqa", 10688, 4608, 3008);
  /*
   * mha: 4-D Q [1,2,3,4], K [1,2,5,4], V [1,2,5,6], mask [3,5], scores
   * output. Y [1,2,3,6], qk [1,2,3,5].
   *   MACs 1*2*3*5*(4+6) = 300; scores 30; Q.Kt FLOPs 240 - 30 = 210,
   *   P.V 360 - 36 = 324, 7 per score (mask, scale, softmax) 210: 744;
   *   DMAs Q 24 + K 40 + 30, Y 36 + 30 + V 60, 60, mask 15, qk 30: 325.
   */
  EXPECT_SHAPE(m, "y4", NNS_DT_FLOAT, "1,2,3,6");
  EXPECT_SHAPE(m, "qk", NNS_DT_FLOAT, "1,2,3,5");
  EXPECT_COST(m, "mha", 744, 300, 325);
  nns_model_free(m);
}

/* The dtypes onnx added after int4: TensorProto's names in lower case and
 * their sizes in bits. */
static void test_new_dtypes(void) {
  CHECK_STR(nns_dtype_name(NNS_DT_FLOAT4E2M1), "float4e2m1");
  CHECK_STR(nns_dtype_name(NNS_DT_FLOAT8E8M0), "float8e8m0");
  CHECK_STR(nns_dtype_name(NNS_DT_UINT2), "uint2");
  CHECK_STR(nns_dtype_name(NNS_DT_INT2), "int2");
  CHECK_EQ(NNS_DT_INT2, 26);
  CHECK_EQ(nns_dtype_bits(NNS_DT_FLOAT4E2M1), 4);
  CHECK_EQ(nns_dtype_bits(NNS_DT_INT4), 4);
  CHECK_EQ(nns_dtype_bits(NNS_DT_FLOAT8E8M0), 8);
  CHECK_EQ(nns_dtype_bits(NNS_DT_UINT2), 2);
  CHECK_EQ(nns_dtype_bits(NNS_DT_INT2), 2);
}

/*
 * Sub-byte weights: float4e2m1 [5,3] = 15 elements in ceil(60 / 8) = 8
 * bytes, int2 [3,3] = 9 in ceil(18 / 8) = 3, float8e4m3fn [4] in 4: 28
 * parameters, 15 bytes. DequantizeLinear-25 takes its float16 scale's
 * dtype (from float8 too); Cast to=24 (float8e8m0) is accepted.
 */
static void test_sub_byte_weights(void) {
  nns_model *m = tm_load("opset25", "subbyte", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "w2h", NNS_DT_FLOAT16, "3,3");
  EXPECT_SHAPE(m, "w8h", NNS_DT_FLOAT16, "4");
  EXPECT_SHAPE(m, "y8", NNS_DT_FLOAT8E8M0, "1,3");
  nns_analysis *a = tm_analyze(m, NULL);
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.params, 28);
  CHECK_EQ(t.param_bytes_unique, 15);
  tm_release(a); /* frees the model too */
}

/*
 * rope: RotaryEmbedding on [1,2,3,8], 4 of each head's 8 dims rotated:
 * R = 48 / 8 * 4 = 24 elements, FLOPs 3 R = 72; DMAs X 48 + cos/sin 24 +
 * position_ids 3 + Y 48 = 123.
 * tscat: TensorScatter of [2,2,3,8] (96) into [2,2,16,8] (512): DMAs
 * cache 512 + write_indices 2 + 2*96 + present 512 = 1218.
 */
static void test_rotary_and_cache(void) {
  nns_model *m = tm_load("opset25", "llm", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "rx", NNS_DT_FLOAT, "1,2,3,8");
  EXPECT_COST(m, "rope", 72, 0, 123);
  EXPECT_SHAPE(m, "present", NNS_DT_FLOAT, "2,2,16,8");
  EXPECT_COST(m, "tscat", 0, 0, 1218);
  nns_model_free(m);
}

/* The string ops and ImageDecoder: shapes where the data does not decide
 * them, symbols where it does, and no cost. */
static void test_text_ops(void) {
  nns_model *m = tm_load("opset25", "text", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "match", NNS_DT_BOOL, "2,3");
  EXPECT_SHAPE(m, "cat", NNS_DT_STRING, "2,3");
  EXPECT_SHAPE(m, "parts", NNS_DT_STRING, "2,3,?");
  EXPECT_SHAPE(m, "nparts", NNS_DT_INT64, "2,3");
  EXPECT_SHAPE(m, "image", NNS_DT_UINT8, "?,?,1");
  EXPECT_COST(m, "regex", 0, 0, 0);
  EXPECT_COST(m, "split", 0, 0, 0);
  EXPECT_COST(m, "decode", 0, 0, 0);
  nns_model_free(m);
}

/* Split-18's num_outputs: ceil(5 / 2) = 3 then the 2 left; 4 in 2 + 2;
 * sizes from the input as at 13. */
static void test_split_18(void) {
  nns_model *m = tm_load("opset25", "split", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "p0", NNS_DT_FLOAT, "2,4,3,3");
  EXPECT_SHAPE(m, "p1", NNS_DT_FLOAT, "2,4,3,2");
  EXPECT_SHAPE(m, "q0", NNS_DT_FLOAT, "2,2,3,5");
  EXPECT_SHAPE(m, "q1", NNS_DT_FLOAT, "2,2,3,5");
  EXPECT_SHAPE(m, "r0", NNS_DT_FLOAT, "2,4,3,1");
  EXPECT_SHAPE(m, "r1", NNS_DT_FLOAT, "2,4,3,4");
  nns_model_free(m);
}

/*
 * ccp: CenterCropPad [2,4,3,5] -> [2,6,3,2] (72): DMAs 120 + 72.
 * agrid: AffineGrid theta [2,2,3], size [2,3,4,5] -> grid [2,4,5,2] = 80
 * coordinates, each a dot product of 3: MACs 240, FLOPs 80 (2*3 - 1) =
 * 400, DMAs theta 12 + grid 80.
 */
static void test_crop_and_grid(void) {
  nns_model *m = tm_load("opset25", "grid", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "cropped", NNS_DT_FLOAT, "2,6,3,2");
  EXPECT_COST(m, "ccp", 0, 0, 192);
  EXPECT_SHAPE(m, "grid", NNS_DT_FLOAT, "2,4,5,2");
  EXPECT_COST(m, "agrid", 400, 240, 92);
  nns_model_free(m);
}

/* Pad-19: pads for axes [1, 3] only, constant and wrap: [2,7,3,6] (252);
 * DMAs 120 + 252. */
static void test_pad_axes(void) {
  nns_model *m = tm_load("opset25", "pad", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "padded", NNS_DT_FLOAT, "2,7,3,6");
  EXPECT_SHAPE(m, "wrapped", NNS_DT_FLOAT, "2,7,3,6");
  EXPECT_COST(m, "pad_axes", 0, 0, 372);
  nns_model_free(m);
}

/* Optional*-18 take a plain tensor: it holds an element, and Get is it. */
static void test_optional_18(void) {
  nns_model *m = tm_load("opset25", "optional", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "has", NNS_DT_BOOL, "");
  EXPECT_TENSOR(m, "got", NNS_DT_FLOAT, "2,4,3,5");
  nns_model_free(m);
}

/* GridSample-20 in 3-D: y [1,2,3,3,3] = 54; linear is 4 FLOPs per axis
 * and output element: 4 * 3 * 54 = 648; DMAs 240 + 81 + 54 = 375. */
static void test_grid_sample_20(void) {
  nns_model *m = tm_load("opset25", "gridsample", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "1,2,3,3,3");
  EXPECT_COST(m, "gs3d", 648, 0, 375);
  nns_model_free(m);
}

/* Resize-18/19 with axes [2, 3] of [1,3,10,20]: sizes [6, 8] stretched;
 * not_larger: min(0.6, 0.4) = 0.4 -> [4, 8]; not_smaller: 0.6 -> [6, 12];
 * scales [2, 0.5] -> [20, 10]. */
static void test_resize_18(void) {
  nns_model *m = tm_load("opset25", "resize", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "stretch", NNS_DT_FLOAT, "1,3,6,8");
  EXPECT_SHAPE(m, "nl", NNS_DT_FLOAT, "1,3,4,8");
  EXPECT_SHAPE(m, "ns", NNS_DT_FLOAT, "1,3,6,12");
  EXPECT_SHAPE(m, "scaled", NNS_DT_FLOAT, "1,3,20,10");
  nns_model_free(m);
}

/* DFT-20: the axis is input 2, -2 by default: [2,8,1] onesided -> 5 bins. */
static void test_dft_20(void) {
  nns_model *m = tm_load("opset25", "dft", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "spec", NNS_DT_FLOAT, "2,5,2");
  EXPECT_SHAPE(m, "spec2", NNS_DT_FLOAT, "2,8,2");
  nns_model_free(m);
}

/* Col2Im: [1,8,9] with 2x2 blocks -> [1,2,4,4] (32); one add per column
 * element = 72 FLOPs; DMAs 72 + 32. */
static void test_col2im(void) {
  nns_model *m = tm_load("opset25", "col2im", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "im", NNS_DT_FLOAT, "1,2,4,4");
  EXPECT_COST(m, "c2i", 72, 0, 104);
  nns_model_free(m);
}

/*
 * DeformConv: Y [1,3,3,3] = 27; as Conv: MACs 27 * 2 * 9 = 486, FLOPs
 * 2 * 486 - 27 = 945, DMAs 486 + W 54 + offset 162 + 27 = 729; sampling
 * 27 / 3 * 18 = 162 values at 8 FLOPs (2 axes): 1296 more FLOPs.
 */
static void test_deform_conv(void) {
  nns_model *m = tm_load("opset25", "deform", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "1,3,3,3");
  EXPECT_COST(m, "dconv", 2241, 486, 729);
  nns_model_free(m);
}

int main(void) {
  RUN(test_deform_conv);
  RUN(test_col2im);
  RUN(test_dft_20);
  RUN(test_resize_18);
  RUN(test_grid_sample_20);
  RUN(test_optional_18);
  RUN(test_pad_axes);
  RUN(test_crop_and_grid);
  RUN(test_split_18);
  RUN(test_text_ops);
  RUN(test_rotary_and_cache);
  RUN(test_new_dtypes);
  RUN(test_sub_byte_weights);
  RUN(test_attention_gqa);
  RUN(test_new_ops);
  RUN(test_changed_forms);
  RUN(test_group_norm_18);
  return check_finish();
}
