/*
 * test_cost_conv.c - cost (FLOPs, MACs, DMAs) and receptive-field rules of
 * the conv, pool, gemm, norm, resize and rnn families, called through the
 * operator table as the analysis calls them: load, infer, then for a node
 * build the rule context and call node->op->cost / node->op->rf.
 *
 * One-node models come from unit/models/make_cost_conv.py; every expected
 * number is worked out by hand in the comment beside it from
 * docs/metrics.md's formulas. The whole-model checks use the fixture
 * exports: MACs against the independent PyTorch counts of
 * fixtures/models/<model>.costs.json (macs_dispatch_total, macs_by_aten_op,
 * copied here as numbers), receptive fields against torchscan's published
 * values. None is copied from nnscan's own output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "ops/window.h"
#include "testmodel.h"

/* ==== Harness ==== */

/* Cost of the single node of a unit model; TM_NO_RULE without a rule. */
static nns_status cost_of(const char *name, nns__cost *c) {
  memset(c, 0, sizeof *c);
  nns_model *m = tm_load("cost_conv", name, TM_INFER);
  if (!m)
    return NNS_E_IO;
  nns_status st = tm_node_cost(m, m->graph->order[0], c);
  nns_model_free(m);
  return st;
}

/* Receptive field of the single node of a unit model from field `in`;
 * TM_NO_RULE without a rule. */
static nns_status rf_of(const char *name, const nns_rf *in, nns_rf *out) {
  memset(out, 0, sizeof *out);
  nns_model *m = tm_load("cost_conv", name, TM_INFER);
  if (!m)
    return NNS_E_IO;
  nns_status st = tm_node_rf(m, m->graph->order[0], in, out);
  nns_model_free(m);
  return st;
}

static nns_rf field2(int64_t f, int64_t s, int64_t p) {
  nns_rf r = {.size = sizeof r};
  memset(&r, 0, sizeof r);
  r.axes = 2;
  for (int k = 0; k < 2; k++) {
    r.field[k] = f;
    r.stride[k] = s;
    r.padding[k] = p;
  }
  return r;
}

#define CHECK_COST(c, fl, ma, dm)                                              \
  do {                                                                         \
    CHECK_EQ((c).flops, fl);                                                   \
    CHECK_EQ((c).macs, ma);                                                    \
    CHECK_EQ((c).dmas, dm);                                                    \
  } while (0)

#define CHECK_RF(r, f, s, p)                                                   \
  do {                                                                         \
    CHECK_EQ((r).whole, 0);                                                    \
    CHECK_EQ((r).axes, 2);                                                     \
    for (int k_ = 0; k_ < 2; k_++) {                                           \
      CHECK_EQ((r).field[k_], f);                                              \
      CHECK_EQ((r).stride[k_], s);                                             \
      CHECK_EQ((r).padding[k_], p);                                            \
    }                                                                          \
  } while (0)

/* ==== Table ==== */

extern const nns__op nns__ops_conv[], nns__ops_pool[], nns__ops_gemm[],
    nns__ops_norm[], nns__ops_resize[], nns__ops_rnn[];

/* Every entry of these families has a cost rule; the sliding ones an rf. */
static void test_table(void) {
  const nns__op *tables[] = {nns__ops_conv, nns__ops_pool, nns__ops_gemm,
                             nns__ops_norm, nns__ops_resize, nns__ops_rnn};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (const nns__op *op = tables[t]; op->name; op++) {
      if (!op->cost)
        check_fail(__FILE__, __LINE__, "%s has no cost rule", op->name);
      bool sliding = strcmp(op->name, "Conv") == 0 ||
                     strstr(op->name, "Pool") != NULL;
      if (sliding && !op->rf)
        check_fail(__FILE__, __LINE__, "%s has no rf rule", op->name);
    }
}

/* ==== Conv ==== */

static void test_conv(void) {
  nns__cost c;
  /* X [1,4,9,9], W [6,2,3,3], B [6], group 2, dilation 2, stride 2, pads
   * 2: extent 5, out floor((9+4-5)/2)+1 = 5, Y [1,6,5,5] = 150.
   * Cin/g*k = 2*9 = 18: MACs 150*18 = 2700; FLOPs 150*(36-1) + 150 = 5400;
   * DMAs 2700 + W 108 + B 6 + Y 150 = 2964. */
  CHECK_EQ(cost_of("group", &c), NNS_OK);
  CHECK_COST(c, 5400, 2700, 2964);
  CHECK(!c.symbolic && !c.overflow);
  /* Depthwise: X [2,8,10,10], W [8,1,3,3], group 8, pads 1, Y [2,8,10,10]
   * = 1600. MACs 1600*9 = 14400; FLOPs 1600*17 = 27200; DMAs 14400 + 72 +
   * 1600 = 16072. */
  CHECK_EQ(cost_of("depthwise", &c), NNS_OK);
  CHECK_COST(c, 27200, 14400, 16072);
  /* Symbolic batch N (counted as 1): Y [N,4,8,8] = 256; Cin/g*k = 27.
   * MACs 6912; FLOPs 256*53 = 13568; DMAs 6912 + 108 + 256 = 7276. */
  CHECK_EQ(cost_of("sym", &c), NNS_OK);
  CHECK_COST(c, 13568, 6912, 7276);
  CHECK(c.symbolic);
  /* Unknown input shape: the output is unknown, the node uncounted. */
  CHECK_EQ(cost_of("unknown", &c), NNS__UNCOUNTED);
  /* ConvTranspose X [1,4,5,5], W [4,3,3,3], B [3], stride 2, pads 1,
   * output_padding 1: Y 2*4 + 1 + 3 - 2 = 10, [1,3,10,10] = 300.
   * MACs numel(X)*(Cout/g)*k = 100*3*9 = 2700; FLOPs 2*2700 + 300 = 5700;
   * DMAs 2700 + 108 + 3 + 300 = 3111. */
  CHECK_EQ(cost_of("convt", &c), NNS_OK);
  CHECK_COST(c, 5700, 2700, 3111);
  /* ConvInteger X [1,2,4,4], W [3,2,3,3], x_zero_point: Y [1,3,2,2] = 12,
   * Cin/g*k = 18: MACs 216; FLOPs 2*216 - 12 + 32 (X minus its zero
   * point) = 452; DMAs 216 + W 54 + zero point 1 + Y 12 = 283. */
  CHECK_EQ(cost_of("conv_int", &c), NNS_OK);
  CHECK_COST(c, 452, 216, 283);
}

static void test_conv_rf(void) {
  nns_rf in = field2(1, 1, 0), out;
  /* k 3, dilation 2, stride 2, pad 2 from the identity: field 1 + 2*2 =
   * 5, stride 2, padding 2. */
  CHECK_EQ(rf_of("group", &in, &out), NNS_OK);
  CHECK_RF(out, 5, 2, 2);
  /* From field 7, jump 4, padding 3: 7 + 2*2*4 = 23, 8, 3 + 2*4 = 11. */
  in = field2(7, 4, 3);
  CHECK_EQ(rf_of("group", &in, &out), NNS_OK);
  CHECK_RF(out, 23, 8, 11);
  /* An input without a field (a graph input): starts from the identity. */
  memset(&in, 0, sizeof in);
  CHECK_EQ(rf_of("depthwise", &in, &out), NNS_OK);
  CHECK_RF(out, 3, 1, 1);
  /* A whole field stays whole. */
  in.whole = 1;
  CHECK_EQ(rf_of("depthwise", &in, &out), NNS_OK);
  CHECK_EQ(out.whole, 1);
  /* ConvTranspose k 3, stride 2, pad 1 from field 10, jump 4, padding 3:
   * field 10 + floor(2/2)*4 = 14, jump 4/2 = 2, padding 3 +
   * floor((2-1)/2)*4 = 3. */
  in = field2(10, 4, 3);
  CHECK_EQ(rf_of("convt", &in, &out), NNS_OK);
  CHECK_RF(out, 14, 2, 3);
}

/* ==== Gemm, MatMul, Einsum ==== */

static void test_gemm(void) {
  nns__cost c;
  /* A [4,6], B [5,6] transB, C [5], alpha .5, beta 2: M 4, N 5, K 6.
   * MACs 120; FLOPs 20*11 + 20 (C) + 20 (alpha) + 20 (beta) = 280; DMAs
   * 24 + 30 + 5 + 20 = 79. */
  CHECK_EQ(cost_of("gemm", &c), NNS_OK);
  CHECK_COST(c, 280, 120, 79);
  /* A [2,3], B [3,4], no C: MACs 24; FLOPs 8*5 = 40; DMAs 6+12+8 = 26. */
  CHECK_EQ(cost_of("gemm_noc", &c), NNS_OK);
  CHECK_COST(c, 40, 24, 26);
  /* [2,1,3,4] x [5,4,6] -> [2,5,3,6] = 180, K 4: MACs 720; FLOPs 180*7 =
   * 1260; DMAs 24 + 120 + 180 = 324. */
  CHECK_EQ(cost_of("matmul_batch", &c), NNS_OK);
  CHECK_COST(c, 1260, 720, 324);
  /* [4] x [3,4,5] -> [3,5] = 15: MACs 60; FLOPs 105; DMAs 4+60+15. */
  CHECK_EQ(cost_of("matmul_vec", &c), NNS_OK);
  CHECK_COST(c, 105, 60, 79);
  /* [7] . [7] -> scalar: MACs 7; FLOPs 13; DMAs 15. */
  CHECK_EQ(cost_of("matmul_dot", &c), NNS_OK);
  CHECK_COST(c, 13, 7, 15);
  /* MatMulInteger [2,3] x [3,4] with a_zero_point: MACs 24; FLOPs 8*5 +
   * 6 (A minus its zero point) = 46; DMAs 6 + 12 + 1 + 8 = 27. */
  CHECK_EQ(cost_of("matmul_int", &c), NNS_OK);
  CHECK_COST(c, 46, 24, 27);
  /* Dense layers see the whole input; a per-position MatMul keeps it. */
  nns_rf in = field2(5, 2, 1), out;
  CHECK_EQ(rf_of("gemm", &in, &out), NNS_OK);
  CHECK_EQ(out.whole, 1);
  CHECK_EQ(rf_of("matmul_batch", &in, &out), NNS_OK);
  CHECK_EQ(out.whole, 1); /* B is an activation-shaped 3-D operand */
}

static void test_einsum(void) {
  nns__cost c;
  /* bij,bjk->bik over b 2, i 3, j 4, k 5: P = 120 points, j summed: MACs
   * 120; FLOPs 2*120 - numel(Y) 30 = 210 (MatMul's count); DMAs 24 + 40 +
   * 30 = 94. */
  CHECK_EQ(cost_of("einsum_bmm", &c), NNS_OK);
  CHECK_COST(c, 210, 120, 94);
  /* ii->i over [3,3]: nothing summed, one operand: a move. DMAs 9 + 3. */
  CHECK_EQ(cost_of("einsum_diag", &c), NNS_OK);
  CHECK_COST(c, 0, 0, 12);
  /* ij-> over [3,4]: a sum, 12 FLOPs as ReduceSum counts; DMAs 12 + 1. */
  CHECK_EQ(cost_of("einsum_sum", &c), NNS_OK);
  CHECK_COST(c, 12, 0, 13);
  /* i,j->ij, 3 x 4: 12 products, nothing summed; DMAs 3 + 4 + 12. */
  CHECK_EQ(cost_of("einsum_outer", &c), NNS_OK);
  CHECK_COST(c, 12, 0, 19);
}

/* ==== Normalisation ==== */

static void test_norm(void) {
  nns__cost c;
  /* BN inference, X [2,3,4,4] = 96, C 3: FLOPs 2*3 + 4*96 = 390; MACs
   * 192; DMAs 96 + 12 + 2 + 96 = 206. */
  CHECK_EQ(cost_of("bn", &c), NNS_OK);
  CHECK_COST(c, 390, 192, 206);
  /* Training mode adds batch statistics 4*96 + 2*3 and running updates
   * 6*3: FLOPs 390 + 384 + 24 = 798; MACs 192 + 96 = 288; DMAs 206 + two
   * passes over X 192 + running mean and var written 3 + 3 = 404. */
  CHECK_EQ(cost_of("bn_train", &c), NNS_OK);
  CHECK_COST(c, 798, 288, 404);
  /* LayerNorm X [2,5,8] = 80, scale and B [8]: FLOPs 640; MACs 160;
   * DMAs 160 + 16 = 176. */
  CHECK_EQ(cost_of("layernorm", &c), NNS_OK);
  CHECK_COST(c, 640, 160, 176);
  /* InstanceNorm X [1,3,4,4] = 48: FLOPs 384; MACs 96; DMAs 96 + 6. */
  CHECK_EQ(cost_of("instnorm", &c), NNS_OK);
  CHECK_COST(c, 384, 96, 102);
  /* No field rule: the field passes through. */
  nns_rf in = field2(3, 1, 1), out;
  CHECK_EQ(rf_of("bn", &in, &out), (nns_status)-3);
  /* Normalising over spatial dims mixes every position into each output:
   * the field is kept, flagged global context. LayerNorm [2,5,8] with
   * axis -1 normalises dim 2, a spatial one of this 2-axis field. */
  CHECK_EQ(rf_of("layernorm", &in, &out), NNS_OK);
  CHECK(!out.whole && out.global_context);
  CHECK_EQ(out.field[1], 3);
  CHECK_EQ(out.padding[0], 1);
  CHECK_EQ(rf_of("instnorm", &in, &out), NNS_OK);
  CHECK(!out.whole && out.global_context);
  CHECK_EQ(out.field[0], 3);
}

/* ==== Pools ==== */

static void test_pools(void) {
  nns__cost c;
  nns_rf in = field2(1, 1, 0), out;
  /* MaxPool 2x2 stride 2 ceil_mode on 5x5: 3x3 out, Y 2*9 = 18, k 4:
   * FLOPs = MACs = 18*3 = 54; DMAs 18*4 + 18 = 90. Field 2, 2, 0. */
  CHECK_EQ(cost_of("maxpool_ceil", &c), NNS_OK);
  CHECK_COST(c, 54, 54, 90);
  CHECK_EQ(rf_of("maxpool_ceil", &in, &out), NNS_OK);
  CHECK_RF(out, 2, 2, 0);
  /* AveragePool 3x3 stride 2 pads 1 on 7x7: out floor(6/2)+1 = 4, Y 2*16
   * = 32: FLOPs = MACs = 32*(9 - 1 + 2) = 320; DMAs 32*9 + 32 = 320. */
  CHECK_EQ(cost_of("avgpool", &c), NNS_OK);
  CHECK_COST(c, 320, 320, 320);
  CHECK_EQ(rf_of("avgpool", &in, &out), NNS_OK);
  CHECK_RF(out, 3, 2, 1);
  /* MaxPool 3x3 stride 2 SAME_LOWER on 6x6: out 3, total pad (3-1)*2 + 3
   * - 6 = 1, put first: padding 1. Y 9: FLOPs 9*8 = 72; DMAs 81 + 9. */
  CHECK_EQ(cost_of("maxpool_same", &c), NNS_OK);
  CHECK_COST(c, 72, 72, 90);
  CHECK_EQ(rf_of("maxpool_same", &in, &out), NNS_OK);
  CHECK_RF(out, 3, 2, 1);
  /* GlobalAveragePool on [1,3,4,5]: Y 3, k 20: 3*(19 + 2) = 63; DMAs
   * 3*20 + 3 = 63. GlobalMaxPool: 3*19 = 57. Both see the whole input. */
  CHECK_EQ(cost_of("gap", &c), NNS_OK);
  CHECK_COST(c, 63, 63, 63);
  CHECK_EQ(cost_of("gmp", &c), NNS_OK);
  CHECK_COST(c, 57, 57, 63);
  CHECK_EQ(rf_of("gap", &in, &out), NNS_OK);
  CHECK_EQ(out.whole, 1);
}

/* ==== Resize, LSTM ==== */

static void test_resize(void) {
  nns__cost c;
  /* Linear x2 on H and W: [1,2,4,4] -> [1,2,8,8] = 128, two resized
   * axes: FLOPs 4*128*2 = 1024; MACs 0; DMAs 32 + 128 = 160. Nearest: 0
   * FLOPs. */
  CHECK_EQ(cost_of("resize_linear", &c), NNS_OK);
  CHECK_COST(c, 1024, 0, 160);
  CHECK_EQ(cost_of("resize_nearest", &c), NNS_OK);
  CHECK_COST(c, 0, 0, 160);
  /* From field 6, jump 4, padding 1: linear reads 2 taps, field 6 + 4 =
   * 10; jump 4*4/8 = 2; padding kept. Nearest: field 6. */
  nns_rf in = field2(6, 4, 1), out;
  CHECK_EQ(rf_of("resize_linear", &in, &out), NNS_OK);
  CHECK_RF(out, 10, 2, 1);
  CHECK_EQ(rf_of("resize_nearest", &in, &out), NNS_OK);
  CHECK_RF(out, 6, 2, 1);
  /* DepthToSpace 2: a transposed 2-tap stride-2 window: field 6 + floor(1
   * / 2)*4 = 6, jump 2, padding 1 + floor(1 / 2)*4 = 1. SpaceToDepth 2: a
   * 2-tap stride-2 window: field 6 + 4 = 10, jump 8, padding 1. Both only
   * move data: DMAs 72 + 72 and 32 + 32. */
  CHECK_EQ(rf_of("d2s", &in, &out), NNS_OK);
  CHECK_RF(out, 6, 2, 1);
  CHECK_EQ(rf_of("s2d", &in, &out), NNS_OK);
  CHECK_RF(out, 10, 8, 1);
  CHECK_EQ(cost_of("d2s", &c), NNS_OK);
  CHECK_COST(c, 0, 0, 144);
  CHECK_EQ(cost_of("s2d", &c), NNS_OK);
  CHECK_COST(c, 0, 0, 64);
}

static void test_lstm(void) {
  nns__cost c;
  /*
   * Bidirectional LSTM, T 5, batch 2, input 3, hidden 4, gates 4, bias:
   * per step and direction BGH = 2*4*4 = 32,
   *   MACs 32*(3 + 4) = 224            -> 5*2*224 = 2240;
   *   FLOPs gate products 32*5 + 32*7 = 384, their sum 32, biases 64,
   *   gate math per unit 3*4 (sigmoid) + 6 + 6 (tanh) + 3 + 1 = 28, times
   *   B*H 8 = 224: 704                 -> 10*704 = 7040;
   *   DMAs W 48 + R 64 + B 32 + x_t 6 + h, c in and out 4*8 = 182
   *                                    -> 1820, + Y_h 16 + Y_c 16 = 1852.
   */
  CHECK_EQ(cost_of("lstm", &c), NNS_OK);
  CHECK_COST(c, 7040, 2240, 1852);
  CHECK(!c.symbolic);
  /*
   * GRU over a symbolic length T (counted as 1, flagged), batch 1, input
   * 2, hidden 3, no bias: BGH 9. MACs 9*(2 + 3) = 45. FLOPs products
   * 9*3 + 9*5 = 72, their sum 9, gate math per unit 2*4 (sigmoid) + 6
   * (tanh) + 1 (r*) + 4 (update) = 19 times 3 = 57: 138. DMAs W 18 + R 27
   * + x_t 2 + h in and out 6 = 53.
   */
  CHECK_EQ(cost_of("gru_sym", &c), NNS_OK);
  CHECK_COST(c, 138, 45, 53);
  CHECK(c.symbolic);
}

/* ==== Fixture models ==== */

typedef struct model_sums {
  int64_t macs, conv, gemm, pool, bn; /* MACs by op family */
  int64_t uncounted;                  /* nodes of these families uncounted */
  int64_t rf;                         /* largest finite field, axis 0 */
} model_sums;

static bool is_pool(const char *t) { return strstr(t, "Pool") != NULL; }

/* Sums the MACs of every node and propagates the receptive field in node
 * order: a node's input field is the largest over its inputs' (as
 * docs/metrics.md merges branches); a node without an rf rule passes it
 * through. */
static bool sum_model(const char *model, model_sums *s) {
  char path[512];
  snprintf(path, sizeof path, "%s/fixtures/models/%s_op17_nofold.onnx",
           check_dir(), model);
  memset(s, 0, sizeof *s);
  nns_model *m = tm_load_path(path, TM_INFER);
  if (!m)
    return false;
  nns_rf *rf = calloc(m->n_values ? m->n_values : 1, sizeof *rf);
  bool *has = calloc(m->n_values ? m->n_values : 1, sizeof *has);
  nns__graph *g = m->graph;
  for (int32_t i = 0; i < g->n_inputs; i++) {
    nns__value *v = g->inputs[i];
    if (v->init || v->type.rank < 3)
      continue;
    nns__rf start;
    nns__rf_start(NULL, v->type.rank - 2, &start);
    rf[v->index] = start.f;
    has[v->index] = true;
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns__node *n = g->order[i];
    nns__cost c;
    nns_status st = tm_node_cost(m, n, &c);
    if (st == NNS_OK) {
      s->macs += c.macs;
      const char *t = n->op_type;
      if (strcmp(t, "Conv") == 0)
        s->conv += c.macs;
      else if (strcmp(t, "Gemm") == 0 || strcmp(t, "MatMul") == 0)
        s->gemm += c.macs;
      else if (is_pool(t))
        s->pool += c.macs;
      else if (strcmp(t, "BatchNormalization") == 0)
        s->bn += c.macs;
    } else if (st == NNS__UNCOUNTED) {
      s->uncounted++;
    }
    nns_rf in, out;
    memset(&in, 0, sizeof in);
    bool any = false;
    for (int32_t k = 0; k < n->n_in; k++) {
      nns__value *v = n->in[k];
      if (!v || !has[v->index])
        continue;
      const nns_rf *r = &rf[v->index];
      if (!any || r->whole || (!in.whole && r->field[0] > in.field[0]))
        in = *r;
      any = true;
    }
    if (!any)
      continue;
    out = in;
    nns_status st_rf = tm_node_rf(m, n, &in, &out);
    if (st_rf != NNS_OK && st_rf != TM_NO_RULE)
      continue;
    if (!out.whole && out.axes > 0 && out.field[0] > s->rf)
      s->rf = out.field[0];
    for (int32_t k = 0; k < n->n_out; k++)
      if (n->out[k]) {
        rf[n->out[k]->index] = out;
        has[n->out[k]->index] = true;
      }
  }
  free(rf);
  free(has);
  nns_model_free(m);
  return true;
}

/* Within 0.5 %. */
static void check_close(int line, const char *model, int64_t got,
                        int64_t want) {
  double d = (double)got - (double)want;
  if (d < 0)
    d = -d;
  if (d > 0.005 * (double)want)
    check_fail(__FILE__, line, "%s: MACs %lld, PyTorch %lld (%.3f %%)", model,
               (long long)got, (long long)want, 100.0 * d / (double)want);
}

static void test_alexnet_resnet18(void) {
  model_sums s;
  /* alexnet.costs.json macs_by_aten_op: convolution 655,566,528; addmm
   * 58,621,952; max_pool2d 706,560 + adaptive_avg_pool2d 18,432 = 724,992;
   * total 714,913,472. Exactly: every op is ours. */
  if (sum_model("alexnet", &s)) {
    CHECK_EQ(s.conv, 655566528);
    CHECK_EQ(s.gemm, 58621952);
    CHECK_EQ(s.pool, 724992);
    CHECK_EQ(s.macs, 714913472);
    CHECK_EQ(s.uncounted, 0);
    CHECK_EQ(s.rf, 195); /* torchscan */
  }
  /* resnet18.costs.json: convolution 1,813,561,344; native_batch_norm
   * 4,967,424; addmm 512,000; max_pool 1,605,632 + mean.dim 25,600
   * (GlobalAveragePool); total 1,820,672,000. */
  if (sum_model("resnet18", &s)) {
    CHECK_EQ(s.conv, 1813561344);
    CHECK_EQ(s.bn, 4967424);
    CHECK_EQ(s.gemm, 512000);
    CHECK_EQ(s.pool, 1605632 + 25600);
    CHECK_EQ(s.macs, 1820672000);
  }
}

static void test_fixture_macs(void) {
  /* macs_dispatch_total of each <model>.costs.json. */
  static const struct {
    const char *model;
    int64_t macs;
    int64_t rf; /* torchscan's published field, 0: not checked */
  } want[] = {
      {"alexnet", 714913472, 195},        {"vgg11", 7613731328, 150},
      {"vgg13", 11313107456, 156},        {"vgg16", 15474905600, 212},
      {"vgg19", 19636703744, 268},        {"resnet18", 1820672000, 0},
      {"resnet50", 4113120256, 0},        {"googlenet", 1516015648, 0},
      {"inception_v3", 5756977312, 0},    {"densenet121", 2868031488, 0},
      {"mobilenet_v2", 314194496, 0},     {"efficientnet_b0", 401669632, 0},
      {"convnext_tiny", 4461517056, 0},   {"vit_b_16", 17571393024, 0},
      {"swin_t", 4498056192, 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    model_sums s;
    if (!sum_model(want[i].model, &s))
      continue;
    check_close(__LINE__, want[i].model, s.macs, want[i].macs);
    if (want[i].rf && s.rf != want[i].rf)
      check_fail(__FILE__, __LINE__, "%s: receptive field %lld, torchscan "
                 "%lld", want[i].model, (long long)s.rf,
                 (long long)want[i].rf);
    if (getenv("NNS_TEST_VERBOSE"))
      printf("%-16s macs %lld (PyTorch %lld, %+.4f %%) rf %lld, %lld "
             "uncounted\n", want[i].model, (long long)s.macs,
             (long long)want[i].macs,
             100.0 * ((double)s.macs - (double)want[i].macs) /
                 (double)want[i].macs,
             (long long)s.rf, (long long)s.uncounted);
  }
}

int main(void) {
  RUN(test_table);
  RUN(test_conv);
  RUN(test_conv_rf);
  RUN(test_gemm);
  RUN(test_einsum);
  RUN(test_norm);
  RUN(test_pools);
  RUN(test_resize);
  RUN(test_lstm);
  RUN(test_alexnet_resnet18);
  RUN(test_fixture_macs);
  return check_finish();
}
