/*
 * test_ops_msft_llm.c - ONNX Runtime's com.microsoft LLM ops and the
 * masks fused attention ops carry (issue 44): shape, cost and
 * macs_unmasked of each node of unit/models/msft_llm_*.onnx (written by
 * unit/models/make_msft_llm.py). Every expected value is worked out by
 * hand in the comment beside it from docs/metrics.md; none is copied from
 * nnscan's output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/ir.h"
#include "nnscan.h"
#include "ops/op.h"
#include "testmodel.h"

/* x, skip [2,3,8] = 48; xr [1,4,16] = 64; a [2,3,64]; tok [3,8], router
 * [3,4] (4 experts). */
static void test_ops(void) {
  nns_model *m = tm_load("msft_llm", "ops", TM_INFER);
  if (!m)
    return;
  /* SimplifiedLayerNormalization is RMSNormalization: 4*48 = 192 FLOPs,
   * 48 MACs, DMAs 2*48 + scale 8 = 104. */
  EXPECT_SHAPE(m, "sln", NNS_DT_FLOAT, "2,3,8");
  EXPECT_COST(m, "sln", 192, 48, 104);
  /* SkipSimplifiedLayerNormalization: two adds (skip, bias) 96 + RMS 192
   * = 288; MACs 48; DMAs 104 + skip 48 + bias 8 + the sum output 48 =
   * 208. */
  EXPECT_SHAPE(m, "ssln", NNS_DT_FLOAT, "2,3,8");
  EXPECT_SHAPE(m, "ssum", NNS_DT_FLOAT, "2,3,8");
  EXPECT_COST(m, "ssln", 288, 48, 208);
  /* RotaryEmbedding, whole heads rotated: 3 * 64 = 192 FLOPs; DMAs X 64
   * + one cos/sin entry per element 64 + position_ids 4 + Y 64 = 196. */
  EXPECT_SHAPE(m, "rot", NNS_DT_FLOAT, "1,4,16");
  EXPECT_COST(m, "rot", 192, 0, 196);
  /* MatMulNBits K 64, N 16: Y [2,3,16] = 96; MACs 96*64 = 6144; FLOPs
   * 96*127 = 12192 + dequantizing 64*16 weights (2 each) 2048 + bias 96 =
   * 14336; DMAs A 384 + packed B 16*2*16 = 512 + Y 96 + scales 32 +
   * bias 16 = 1040. */
  EXPECT_SHAPE(m, "mnb", NNS_DT_FLOAT, "2,3,16");
  EXPECT_COST(m, "mnb", 14336, 6144, 1040);
  /*
   * MoE, k 2 of 4 experts, hidden 8, inter 16, relu: 6 token-expert
   * pairs. fc1 96 outputs of 8: MACs 768, FLOPs 1536 - 96 = 1440; fc2 48
   * outputs of 16: MACs 768, FLOPs 1536 - 48 = 1488; relu 6*16 = 96;
   * router softmax 3*4*5 = 60; weighted sum 6*8*2 = 96: FLOPs 3180, MACs
   * 1536. DMAs Y 24 + input 24 + router 12 + fc1 512 + fc2 512 = 1084.
   */
  EXPECT_SHAPE(m, "moe", NNS_DT_FLOAT, "3,8");
  EXPECT_COST(m, "moe", 3180, 1536, 1084);
  /* QMoE, 4-bit: the same unpacked matrices (two weights a byte); DMAs Y
   * 24 + 24 + 12 + fc1 256 + scales 64 + fc2 256 + scales 32 = 668. */
  EXPECT_SHAPE(m, "qmoe", NNS_DT_FLOAT, "3,8");
  EXPECT_COST(m, "qmoe", 3180, 1536, 668);
  nns_model_free(m);
}

/* Totals of a one-node model, analysed. */
static nns_counts totals_of(const char *name) {
  nns_counts none;
  memset(&none, 0, sizeof none);
  nns_model *m = tm_load("msft_llm", name, TM_INFER);
  if (!m)
    return none;
  nns_analysis *a = tm_analyze(m, NULL);
  tm_totals t = tm_totals_of(a);
  nns_analysis_free(a);
  nns_model_free(m);
  return t.all;
}

/*
 * GroupQueryAttention prefill: B 1, S = T = 4, 4 query heads of 8 over 2
 * key/value heads. Scores 1*4*4*4 = 64.
 *   Q.Kt  MACs 4*4*32 = 512, FLOPs 1024 - 64 = 960;
 *   P.V   MACs 512, FLOPs 1024 - 4*32 = 896;
 *   scale + causal + softmax 7 per score = 448: FLOPs 2304, MACs 1024;
 *   DMAs  Q 128 + K 4*16 + scores 64, scores 64 + V 64 + Y 128, softmax
 *         128, present 2 * [1,2,4,8] = 128: 768.
 * Causal: each head's rows see 1, 2, 3, 4 keys = 10 of 16; 40 pairs of
 * 64: MACs 40*(8+8) = 640, FLOPs Q.Kt 40*15 = 600 + P.V (2*40 - 16)*8 =
 * 512 + 448 = 1560.
 */
static void test_gqa_prefill(void) {
  nns_model *m = tm_load("msft_llm", "gqa", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "1,4,32");
  EXPECT_SHAPE(m, "present_k", NNS_DT_FLOAT, "1,2,4,8");
  EXPECT_COST(m, "gqa", 2304, 1024, 768);
  nns_model_free(m);
  nns_counts t = totals_of("gqa");
  CHECK_EQ(t.macs, 1024);
  CHECK_EQ(t.macs_unmasked, 640);
  CHECK_EQ(t.flops_unmasked, 1560);
}

/*
 * GroupQueryAttention decode with a local window: B 2, S 1, past 5,
 * total_sequence_length 6: T = 6, present [2,2,6,8]. Scores 2*4*6 = 48.
 *   Q.Kt  MACs 2*6*32 = 384, FLOPs 768 - 48 = 720;
 *   P.V   MACs 384, FLOPs 768 - 2*32 = 704; 7 per score 336: FLOPs 1760;
 *   DMAs  Q 64 + K 12*16 + 48, 48 + V 192 + Y 64, softmax 96, past 2*160,
 *         present 2*192: 1408.
 * local_window_size 2: the query at position 5 sees keys 3..5, 3 of 6; 24
 * pairs of 48 over 8 rows: MACs 24*16 = 384, FLOPs 24*15 + (48 - 8)*8 +
 * 336 = 1016.
 */
static void test_gqa_window(void) {
  nns_model *m = tm_load("msft_llm", "gqa_window", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "2,1,32");
  EXPECT_SHAPE(m, "present_v", NNS_DT_FLOAT, "2,2,6,8");
  EXPECT_COST(m, "gqa", 1760, 768, 1408);
  nns_model_free(m);
  nns_counts t = totals_of("gqa_window");
  CHECK_EQ(t.macs_unmasked, 384);
  CHECK_EQ(t.flops_unmasked, 1016);
}

/*
 * MultiHeadAttention, unidirectional: B 1, S = L = 3, 2 heads of 4.
 * Scores 1*3*2*3 = 18. Q.Kt MACs 3*3*8 = 72, FLOPs 144 - 18 = 126; P.V
 * MACs 72, FLOPs 144 - 24 = 120; scale + softmax 6*18 = 108: FLOPs 354;
 * DMAs Q 24 + K 24 + 18, 18 + V 24 + Y 24, softmax 36: 168. Causal rows
 * see 1, 2, 3 keys: 12 of 18 pairs; MACs 12*8 = 96; FLOPs 12*7 + (24 -
 * 6)*4 + 108 = 264.
 */
static void test_mha_unidirectional(void) {
  nns_model *m = tm_load("msft_llm", "mha", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "1,3,8");
  EXPECT_COST(m, "mha", 354, 144, 168);
  nns_model_free(m);
  nns_counts t = totals_of("mha");
  CHECK_EQ(t.macs_unmasked, 96);
  CHECK_EQ(t.flops_unmasked, 264);
}

/*
 * GroupQueryAttention, causal 0, with a known attention_bias that masks
 * query 0's second key: B 1, S = T = 2, 2 heads of 4 over 1 KV head.
 * Scores 8. Q.Kt MACs 2*2*8 = 32, FLOPs 64 - 8 = 56; P.V MACs 32, FLOPs
 * 64 - 16 = 48; scale + bias + softmax 7*8 = 56: FLOPs 160. DMAs Q 16 +
 * K 8 + 8, 8 + V 8 + Y 16, softmax 16, bias 4, present 2*8: 100.
 * Unmasked: 3 of 4 pairs per head, 6 of 8 over 4 rows: MACs 6*8 = 48,
 * FLOPs 6*7 + (12 - 4)*4 + 56 = 130.
 */
static void test_gqa_bias(void) {
  nns_model *m = tm_load("msft_llm", "gqa_bias", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "present_k", NNS_DT_FLOAT, "1,1,2,4");
  EXPECT_COST(m, "gqa", 160, 64, 100);
  nns_model_free(m);
  nns_counts t = totals_of("gqa_bias");
  CHECK_EQ(t.macs_unmasked, 48);
  CHECK_EQ(t.flops_unmasked, 130);
}

/*
 * com.microsoft Attention, unidirectional: input [1,3,8], weights [8,24],
 * 2 heads of 4. Projection: 3*24 = 72 outputs of 8: MACs 576, FLOPs 1152
 * - 72 = 1080, DMAs 24 + 192 + 72 = 288. Then scores 18: Q.Kt MACs 72,
 * FLOPs 126; P.V MACs 72, FLOPs 120; scale + unidirectional + softmax
 * 7*18 = 126: FLOPs 1452, MACs 720; DMAs 288 + 66 + 66 + 36 = 456.
 * Unmasked: 12 of 18 pairs: MACs 720 - 6*8 = 672, FLOPs 1452 - (6*7 +
 * 4*12) = 1362.
 */
static void test_ms_attention(void) {
  nns_model *m = tm_load("msft_llm", "ms_attn", TM_INFER);
  if (!m)
    return;
  EXPECT_SHAPE(m, "y", NNS_DT_FLOAT, "1,3,8");
  EXPECT_COST(m, "attn", 1452, 720, 456);
  nns_model_free(m);
  nns_counts t = totals_of("ms_attn");
  CHECK_EQ(t.macs_unmasked, 672);
  CHECK_EQ(t.flops_unmasked, 1362);
}

/*
 * Attention-23 with a known boolean mask [3,5] over 2 heads: rows allow
 * 2, 3 and 0 keys, 5 of 15 per head, 10 of 30 pairs over 4 of 6 rows.
 * Dense: MACs 2*3*5*(4+4) = 240; FLOPs Q.Kt 240 - 30 = 210, P.V 240 - 24
 * = 216, mask + scale + softmax 7*30 = 210: 636. Unmasked: MACs 10*8 =
 * 80; FLOPs 10*7 + (2*10 - 4)*4 + 210 = 344.
 */
static void test_attention_mask(void) {
  nns_counts t = totals_of("attn_mask");
  CHECK_EQ(t.macs, 240);
  CHECK_EQ(t.flops, 636);
  CHECK_EQ(t.macs_unmasked, 80);
  CHECK_EQ(t.flops_unmasked, 344);
}

/*
 * Attention-23 is_causal with a KV cache (unit/models/opset25_attn.onnx,
 * node gqa: S 4 queries over T = 3 + 6 = 9 keys, 4 heads of 8; node mha
 * has a mask whose contents are not known, so stays dense at 300 MACs).
 * Query i sees keys up to 3 + i: 4, 5, 6, 7 = 22 of 36 per head; 2*4*22
 * = 176 pairs of 288: MACs 176*16 = 2816, plus mha's 300.
 */
static void test_attention_causal(void) {
  nns_model *m = tm_load("opset25", "attn", TM_INFER);
  if (!m)
    return;
  nns_analysis *a = tm_analyze(m, NULL);
  tm_totals t = tm_totals_of(a);
  CHECK_EQ(t.all.macs, 4608 + 300);
  CHECK_EQ(t.all.macs_unmasked, 2816 + 300);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* The GenAI-style decoder at sequence_length S and past_sequence_length P
 * (tools/make_genai_decoder.py), analysed. */
static tm_totals decoder_at(int64_t s, int64_t p) {
  tm_totals none;
  memset(&none, 0, sizeof none);
  nns_model *m = tm_load_path("fixtures/genai/decoder.onnx", TM_LOAD_ONLY);
  if (!m)
    return none;
  const int64_t sd[1] = {s}, pd[1] = {p};
  nns_input_shape in[2] = {{sizeof in[0], "sequence_length", sd, 1},
                           {sizeof in[0], "past_sequence_length", pd, 1}};
  nns_infer_options io;
  memset(&io, 0, sizeof io);
  io.size = sizeof io;
  io.inputs = in;
  io.input_count = 2;
  nns_error err;
  CHECK_EQ(nns_model_infer(m, &io, &err), NNS_OK);
  nns_analysis *a = tm_analyze(m, NULL);
  tm_totals t = tm_totals_of(a);
  nns_analysis_free(a);
  nns_model_free(m);
  return t;
}

/*
 * One GenAI-style decoder layer: hidden 32, 4 query heads of 8 over 2 KV
 * heads, feed-forward 64, 4-bit MatMulNBits in blocks of 32. Per node, S
 * queries, T = P + S keys:
 *   input norm    4*32S FLOPs, 32S MACs
 *   q, o proj     MatMulNBits 32 -> 32: 32S*63 + 2*32*32 FLOPs, 1024S MACs
 *   k, v proj     32 -> 16: 16S*63 + 1024 FLOPs, 512S MACs
 *   rotary q, k   3 per element: 96S, 48S FLOPs
 *   GQA           Q.Kt 64ST - 4ST, P.V 64ST - 32S, 7 per score 28ST:
 *                 152ST - 32S FLOPs, 64ST MACs
 *   skip norm     4*32S + 32S FLOPs, 32S MACs
 *   up            32 -> 64: 64S*63 + 4096 FLOPs, 2048S MACs
 *   down          64 -> 32: 32S*127 + 4096 FLOPs, 2048S MACs
 *   residual add  32S FLOPs
 * MACs 7232S + 64ST. Causal GQA keeps SP + S(S+1)/2 pairs per head, 16
 * MACs each.
 * Prefill chunk S 4, P 4 (T 8): MACs 28928 + 2048 = 30976; FLOPs 512 +
 * 2*10112 + 2*5056 + 384 + 192 + 4736 + 640 + 20224 + 20352 + 128 =
 * 77504; unmasked: 26 of 32 pairs per head, 4*26*16 = 1664 MACs (30592),
 * FLOPs less 24*15 + (2*24)*8 = 744 (76760).
 * Decode S 1, P 7 (T 8): MACs 7232 + 512 = 7744, nothing masked; FLOPs
 * 128 + 2*4064 + 2*2032 + 96 + 48 + 1184 + 160 + 8128 + 8160 + 32 = 30128.
 * Weights: packed 4-bit q 512, k 256, v 256, o 512, up 1024, down 1024
 * bytes, two weights a byte: 1024 + 512 + 512 + 1024 + 2048 + 2048 = 7168
 * weights (K x N of each projection), scales 224
 * and norms 64 float32: 7456 parameters in 3584 + 4*288 = 4736 bytes.
 */
static void test_genai_decoder(void) {
  tm_totals t = decoder_at(4, 4);
  CHECK_EQ(t.all.macs, 30976);
  CHECK_EQ(t.all.flops, 77504);
  CHECK_EQ(t.all.macs_unmasked, 30592);
  CHECK_EQ(t.all.flops_unmasked, 76760);
  CHECK_EQ(t.param_bytes_unique, 4736);
  CHECK_EQ(t.all.params, 7456);
  t = decoder_at(1, 7);
  CHECK_EQ(t.all.macs, 7744);
  CHECK_EQ(t.all.macs_unmasked, 7744);
  CHECK_EQ(t.all.flops, 30128);
}

/*
 * MultiHeadAttention with a key_padding_mask [2,3]: B 2, S = L = 3, 2
 * heads of 4. Scores 2*3*2*3 = 36. Q.Kt MACs 36*4 = 144, FLOPs 288 - 36
 * = 252; P.V MACs 144, FLOPs 288 - 12*4 = 240; scale + mask + softmax
 * 7*36 = 252: FLOPs 744, MACs 288. Known mask: batch 0 keeps 3 keys,
 * batch 1 keeps 2, on every row and head: 2*(9 + 6) = 30 of 36 pairs,
 * all 12 rows nonempty: MACs 30*8 = 240; FLOPs 30*7 + (60 - 12)*4 + 252
 * = 654. The same mask as a graph input: dense, flagged.
 */
static void test_mha_key_padding(void) {
  nns_counts t = totals_of("mha_kpm");
  CHECK_EQ(t.macs, 288);
  CHECK_EQ(t.flops, 744);
  CHECK_EQ(t.macs_unmasked, 240);
  CHECK_EQ(t.flops_unmasked, 654);
  CHECK(!(t.flags & NNS_COUNT_MASK_UNKNOWN));
  t = totals_of("mha_kpm_in");
  CHECK_EQ(t.macs, 288);
  CHECK_EQ(t.flops, 744);
  CHECK_EQ(t.macs_unmasked, 288);
  CHECK_EQ(t.flops_unmasked, 744);
  CHECK(t.flags & NNS_COUNT_MASK_UNKNOWN);
}

/*
 * com.microsoft Attention with mask_index [2] = key lengths 3 and 1:
 * input [2,3,8], weights [8,24], 2 heads of 4. Projection 6*24 = 144
 * outputs of 8: MACs 1152, FLOPs 2304 - 144 = 2160. Scores 36: Q.Kt MACs
 * 144, FLOPs 252; P.V MACs 144, FLOPs 240; mask + scale + softmax 7*36 =
 * 252: MACs 1440, FLOPs 2904. Known lengths: 2*(3*3 + 3*1) = 24 of 36
 * pairs, every row nonempty: 12 pairs gone, MACs 1440 - 12*8 = 1344,
 * FLOPs 2904 - (12*7 + 2*12*4) = 2724. As a graph input: dense, flagged.
 */
static void test_ms_attention_mask_index(void) {
  nns_counts t = totals_of("ms_attn_len");
  CHECK_EQ(t.macs, 1440);
  CHECK_EQ(t.flops, 2904);
  CHECK_EQ(t.macs_unmasked, 1344);
  CHECK_EQ(t.flops_unmasked, 2724);
  CHECK(!(t.flags & NNS_COUNT_MASK_UNKNOWN));
  t = totals_of("ms_attn_len_in");
  CHECK_EQ(t.macs_unmasked, 1440);
  CHECK_EQ(t.flops_unmasked, 2904);
  CHECK(t.flags & NNS_COUNT_MASK_UNKNOWN);
}

/*
 * params_active of com.microsoft MoE and QMoE (docs/metrics.md,
 * "Experts"): a MatMul's wd [8,8] = 64 outside the experts; MoE fc1
 * [4,16,8] 512 + b1 [4,16] 64 + fc2 [4,8,16] 512, QMoE 4-bit qfc1
 * [4,16,4] bytes holding 512 weights (two a byte) + qs1 64 + qfc2 [4,8,8]
 * 512 + qs2 32: 2208 expert elements, 2272 in all. k 2 of 4:
 * params_active 64 + 2208/2 = 1168. Bytes: wd 256, MoE
 * 4*(512 + 64 + 512) = 4352, QMoE 256 + 256 + 256 + 128 = 896: 5504.
 * Prefill of 3 tokens reaches min(4, 2*3) = 4 experts: every byte read;
 * a decode step of 1 token reaches 2: 256 + 4352/2 + 896/2 = 2880.
 */
static void test_moe_active(void) {
  nns_counts t = totals_of("moe_prefill");
  CHECK_EQ(t.params + t.frozen, 2272);
  CHECK_EQ(t.params_active, 1168);
  CHECK_EQ(t.param_bytes, 5504);
  CHECK_EQ(t.weight_bytes_read, 5504);
  t = totals_of("moe_decode");
  CHECK_EQ(t.params_active, 1168);
  CHECK_EQ(t.weight_bytes_read, 2880);
}

/*
 * Two MoE nodes (k 2 of 4, one token) sharing fc1 [4,16,8] and fc2
 * [4,8,16]: 1024 parameters, 4096 bytes, each counted once. Half the
 * experts are active: params_active 1024 - 512 = 512; one token reaches
 * min(4, 2*1) = 2 experts: weight_bytes_read 4096 / 2 = 2048. Reducing
 * the shared initializers once per node would give 0 and 0.
 */
static void test_moe_shared(void) {
  nns_counts t = totals_of("moe_shared");
  CHECK_EQ(t.params + t.frozen, 1024);
  CHECK_EQ(t.param_bytes, 4096);
  CHECK_EQ(t.params_active, 512);
  CHECK_EQ(t.weight_bytes_read, 2048);
}

/*
 * MoE and QMoE in subgraphs, k 2 of 4 over one token. If's then branch:
 * MoE on the outer fc1 (512) and its own tfc2 (512); else: QMoE 4-bit,
 * eq1 [4,16,4] bytes holding 512 weights + es1 64 + eq2 [4,8,8] 512 +
 * es2 32 = 1120 (bytes 256 + 256 + 256 + 128 = 896); the Loop body's
 * MoE: lfc1 512 + lfc2 512. Params 1024 + 1120 + 1024 = 3168, all
 * experts: params_active 3168 / 2 = 1584. Bytes 4096 + 896 + 4096 =
 * 9088, of which one token reaches 2 of 4 experts: 4544. Weights are
 * counted once, however often a Loop runs its body.
 */
static void test_moe_subgraphs(void) {
  nns_counts t = totals_of("moe_sub");
  CHECK_EQ(t.params + t.frozen, 3168);
  CHECK_EQ(t.param_bytes, 9088);
  CHECK_EQ(t.params_active, 1584);
  CHECK_EQ(t.weight_bytes_read, 4544);
}

/* A report written into a growing buffer. */
typedef struct report_buf {
  char *data;
  size_t len, cap;
} report_buf;

static int to_report(void *user, const char *data, size_t size) {
  report_buf *b = user;
  if (b->len + size + 1 > b->cap) {
    size_t cap = (b->len + size + 1) * 2;
    char *p = realloc(b->data, cap);
    if (!p)
      return 1;
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, size);
  b->len += size;
  b->data[b->len] = '\0';
  return 0;
}

/* The report of model msft_llm_<name> in `format` (JSON: version 2);
 * malloc'd, NULL when it fails. */
static char *report_of(const char *name, int format) {
  nns_model *m = tm_load("msft_llm", name, TM_INFER);
  if (!m)
    return NULL;
  nns_analysis *a = tm_analyze(m, NULL);
  report_buf b = {0};
  nns_report_options o = {.size = sizeof o, .format = format,
                          .json_version = 2};
  nns_error err;
  CHECK_EQ(nns_report(a, &o, to_report, &b, &err), NNS_OK);
  nns_analysis_free(a);
  nns_model_free(m);
  return b.data;
}

/*
 * A fused op whose count is not exact gets a warning naming the node, its
 * op and why: in the text report's footer notes and among the JSON's
 * diagnostics. com.microsoft Attention with mask_index a graph input,
 * GroupQueryAttention with its attention_bias a graph input and
 * Attention-23 with its attn_mask a graph input: mask contents not known (macs_unmasked dense, flagged); com.microsoft
 * Attention with do_rotary: the rotation is not counted (FLOPs partial).
 */
static void test_inexact_warned(void) {
  static const struct {
    const char *model, *line, *json;
  } cases[] = {
      {"ms_attn_len_in",
       "Note: attention: node 'attn' (com.microsoft Attention) applies a "
       "mask whose contents are not known",
       "\"message\": \"attention: node 'attn' (com.microsoft Attention) "
       "applies a mask whose contents are not known"},
      {"gqa_bias_in",
       "Note: attention: node 'gqa' (com.microsoft GroupQueryAttention) "
       "applies a mask whose contents are not known",
       "\"message\": \"attention: node 'gqa' (com.microsoft "
       "GroupQueryAttention) applies a mask"},
      {"attn_mask_in",
       "Note: attention: node 'attn' (Attention) applies a mask whose "
       "contents are not known",
       "\"message\": \"attention: node 'attn' (Attention) applies a mask"},
      {"ms_attn_rotary",
       "Note: node 'rot_attn' (com.microsoft Attention) is counted "
       "approximately: do_rotary's rotation of Q and K is not counted",
       "\"message\": \"node 'rot_attn' (com.microsoft Attention) is "
       "counted approximately: do_rotary's rotation"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *text = report_of(cases[i].model, NNS_FORMAT_TEXT);
    char *json = report_of(cases[i].model, NNS_FORMAT_JSON);
    CHECK(text && strstr(text, cases[i].line));
    CHECK(json && strstr(json, cases[i].json));
    CHECK(json && strstr(json, "\"code\": \"model.warning\""));
    /* do_rotary: its own diagnostic, named, making FLOPs partial. */
    if (!strcmp(cases[i].model, "ms_attn_rotary"))
      CHECK(json && strstr(json, "\"code\": \"cost.approximate\", "
                                 "\"severity\": \"warning\", \"message\": "
                                 "\"do_rotary's rotation of Q and K is not "
                                 "counted"));
    free(text);
    free(json);
  }
  nns_counts t = totals_of("gqa_bias_in");
  CHECK(t.flags & NNS_COUNT_MASK_UNKNOWN);
  CHECK_EQ(t.macs_unmasked, t.macs);
  t = totals_of("attn_mask_in");
  CHECK(t.flags & NNS_COUNT_MASK_UNKNOWN);
  CHECK_EQ(t.macs_unmasked, t.macs);
  t = totals_of("ms_attn_rotary");
  CHECK(t.flags & NNS_COUNT_PARTIAL);
  CHECK(!(t.flags & NNS_COUNT_MASK_UNKNOWN));
  /* Exact counts are not warned about. */
  char *text = report_of("gqa_bias", NNS_FORMAT_TEXT);
  CHECK(text && !strstr(text, "Note: "));
  free(text);
}

int main(void) {
  RUN(test_ops);
  RUN(test_moe_active);
  RUN(test_moe_shared);
  RUN(test_moe_subgraphs);
  RUN(test_inexact_warned);
  RUN(test_gqa_prefill);
  RUN(test_gqa_window);
  RUN(test_gqa_bias);
  RUN(test_attention_mask);
  RUN(test_mha_unidirectional);
  RUN(test_ms_attention);
  RUN(test_mha_key_padding);
  RUN(test_ms_attention_mask_index);
  RUN(test_attention_causal);
  RUN(test_genai_decoder);
  return check_finish();
}
