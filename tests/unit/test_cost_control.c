/*
 * test_cost_control.c - cost rules of control flow (Loop, If, Scan) and of
 * the quant and com.microsoft families, through nns_model_analyze, plus
 * the control-flow rules called directly with a body-cost hook of the
 * test's own (and without one).
 *
 * The models are written by unit/models/make_cost_ctl.py. Every expected
 * count is worked out by hand in the comment beside it from the formulas
 * of docs/metrics.md; none is copied from nnscan's output. The bodies use
 * com.microsoft Gelu (8 FLOPs per element, DMAs numel(X) + numel(Y)) and
 * BiasGelu (9 FLOPs per element: the add and the Gelu).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "ops/op.h"
#include "testmodel.h"

/* ==== Helpers ==== */

/* The counts of op type `op` (main graph), or false when not listed. */
static bool op_counts(const nns_analysis *a, const char *op,
                      nns_counts *out) {
  for (size_t i = 0; i < nns_analysis_op_type_count(a); i++) {
    nns_op_type_info ot = {.size = sizeof ot, .op_type = ""};
    nns_analysis_op_type(a, i, &ot);
    nns_analysis_op_type_counts(a, i, out);
    if (strcmp(ot.op_type, op) == 0)
      return ot.counted != 0;
  }
  return false;
}

/* Checks op type `op` of model `name` and the model's totals. */
static void expect_at(int line, const char *name, const char *op,
                      int64_t flops, int64_t macs, int64_t dmas,
                      unsigned flags) {
  nns_model *m = tm_load("cost_ctl", name, TM_INFER);
  nns_analysis *a = tm_analyze(m, NULL);
  if (!m)
    return;
  nns_counts c = {.size = sizeof c};
  if (!op_counts(a, op, &c)) {
    check_fail(__FILE__, line, "%s: %s not counted", name, op);
  } else {
    if (c.flops != flops || c.macs != macs || c.dmas != dmas)
      check_fail(__FILE__, line,
                 "%s: flops %lld macs %lld dmas %lld, want %lld %lld %lld",
                 op, (long long)c.flops, (long long)c.macs,
                 (long long)c.dmas, (long long)flops, (long long)macs,
                 (long long)dmas);
    /* Not SYMBOLIC: the analysis also sets it for a node whose output has
     * a symbolic dim (its activation bytes), as the If's merged [2, ?]. */
    unsigned seen = c.flags & (NNS_COUNT_PARTIAL | NNS_COUNT_UNBOUNDED |
                               NNS_COUNT_OVERFLOW);
    if (seen != flags)
      check_fail(__FILE__, line, "%s: flags %#x, want %#x", op, seen, flags);
  }
  tm_totals t = tm_totals_of(a);
  if (t.all.flops != flops || t.all.macs != macs || t.all.dmas != dmas)
    check_fail(__FILE__, line, "%s totals: %lld %lld %lld", name,
               (long long)t.all.flops, (long long)t.all.macs,
               (long long)t.all.dmas);
  if (flags & NNS_COUNT_UNBOUNDED)
    CHECK(t.all.flags & NNS_COUNT_UNBOUNDED);
  nns_analysis_free(a);
  nns_model_free(m);
}
#define EXPECT(name, op, f, mac, d, fl)                                        \
  expect_at(__LINE__, name, op, f, mac, d, fl)

/* ==== Through the analysis ==== */

/*
 * Loop, M = 3, no cond: the body's Gelu on [2,3] is 8*6 = 48 FLOPs and
 * 6 + 6 = 12 DMAs; its Identities are views. Three iterations: 144 FLOPs,
 * 36 DMAs, plus the scan output xs [3,2,3] stacked: 2*18 = 36 DMAs.
 */
static void test_loop_known(void) {
  EXPECT("loop", "Loop", 144, 0, 36 + 36, 0);
}

/* Loop whose cond is a graph input: the count of iterations is unknown, so
 * one iteration (48 FLOPs, 12 DMAs), flagged unbounded. */
static void test_loop_unknown(void) {
  EXPECT("loop_cond", "Loop", 48, 0, 12, NNS_COUNT_UNBOUNDED);
}

/*
 * If on an unknown cond. then: Gelu(x [2,3]) = 48 FLOPs, 0 MACs,
 * 12 DMAs. else: FusedMatMul(x [2,3], w [3,4]) = MACs 2*4*3 = 24, FLOPs
 * 8*(2*3 - 1) = 40, DMAs 6 + 12 + 8 = 26. MACs decide: the else branch,
 * although its FLOPs are fewer.
 */
static void test_if_larger(void) { EXPECT("if", "If", 40, 24, 26, 0); }

/*
 * Scan over xs [5,2] (axis 0): 5 iterations of BiasGelu on [2] (FLOPs
 * 9*2 = 18; DMAs 2 + 2 + 2 = 6) and an Identity: 90 FLOPs, 30 DMAs, plus
 * ys [5,2] stacked: 2*10 = 20 DMAs.
 */
static void test_scan(void) { EXPECT("scan", "Scan", 90, 0, 30 + 20, 0); }

/*
 * com.microsoft Attention, x [2,4,8] (B=2, S=4, D=8), weights [8,24],
 * bias [24], 2 heads of 4: Dq = Dk = Dv = 8, L = S = 4, scores
 * B*H*S*L = 64.
 *   MACs: projection 2*4*8*24 = 1536; Q.Kt 2*4*4*8 = 256; P.V 256: 2048.
 *   FLOPs: projection 192*(2*8 - 1) = 2880 + bias 192; Q.Kt 2*256 - 64 =
 *          448; scale 64; softmax 5*64 = 320; P.V 2*256 - 64 = 448:
 *          4352.
 *   DMAs: projection 64 + 192 + 24 + 192 = 472; Q.Kt 64 + 64 + 64 = 192;
 *         softmax 2*64 = 128; P.V 64 + 64 + 64 = 192: 984.
 */
static void test_attention(void) {
  EXPECT("attention", "Attention", 4352, 2048, 984, 0);
}

/* QuantizeLinear of [2,3,4]: 5 FLOPs per element (divide, round, add the
 * zero point, saturate as a Clip's 2): 120; DMAs 24 + 1 + 1 + 24 = 50. */
static void test_quantize(void) {
  EXPECT("quant", "QuantizeLinear", 120, 0, 50, 0);
}

/*
 * TreeEnsembleRegressor on x [5,3], one target, two trees whose longest
 * paths have 2 and 1 compares. Per sample: 3 compares + 2 leaf weights
 * added: 5 FLOPs, 25 in all. DMAs: x 15, the 3 thresholds compared per
 * sample 15, y [5,1] 5: 35.
 */
static void test_tree(void) {
  EXPECT("tree", "TreeEnsembleRegressor", 25, 0, 35, 0);
}

/* ==== The rules called directly ==== */

/* A body-cost hook of the test's own: every body costs 10 FLOPs, 2 MACs,
 * 3 DMAs and has an uncounted node. */
static nns_status fake_body(nns__ictx *cx, const nns__graph *g,
                            nns__cost *c) {
  (void)cx;
  (void)g;
  c->flops = 10;
  c->macs = 2;
  c->dmas = 3;
  c->partial = true;
  return NNS_OK;
}

/*
 * The Loop model's rule with the fake body: 3 iterations, 30 FLOPs, 6
 * MACs, 9 DMAs + the stacked xs 36 = 45, partial carried over. Without a
 * hook (outside an analysis) the node is not counted.
 */
static void test_loop_direct(void) {
  nns_model *m = tm_load("cost_ctl", "loop", TM_INFER);
  nns_analysis *a = tm_analyze(m, NULL);
  if (!m)
    return;
  nns__ictx cx = tm_node_ctx(m, &m->graph->nodes[0], NULL);
  nns__cost c = {0};
  CHECK(cx.op && cx.op->cost);
  if (!cx.op || !cx.op->cost)
    goto done;
  CHECK_EQ(cx.op->cost(&cx, &c), NNS__UNCOUNTED);
  cx.cost_subgraph = fake_body;
  memset(&c, 0, sizeof c);
  CHECK_EQ(cx.op->cost(&cx, &c), NNS_OK);
  CHECK_EQ(c.flops, 30);
  CHECK_EQ(c.macs, 6);
  CHECK_EQ(c.dmas, 45);
  CHECK(c.partial);
  CHECK(!c.unbounded);
done:
  nns_analysis_free(a);
  nns_model_free(m);
}

/* The If and Scan rules without a hook: not counted. */
static void test_no_hook(void) {
  const char *names[] = {"if", "scan"};
  for (int i = 0; i < 2; i++) {
    nns_model *m = tm_load("cost_ctl", names[i], TM_INFER);
    nns_analysis *a = tm_analyze(m, NULL);
    if (!m)
      continue;
    nns__ictx cx = tm_node_ctx(m, &m->graph->nodes[0], NULL);
    nns__cost c = {0};
    if (cx.op && cx.op->cost)
      CHECK_EQ(cx.op->cost(&cx, &c), NNS__UNCOUNTED);
    else
      CHECK(!"no cost rule");
    nns_analysis_free(a);
    nns_model_free(m);
  }
}

int main(void) {
  RUN(test_loop_known);
  RUN(test_loop_unknown);
  RUN(test_if_larger);
  RUN(test_scan);
  RUN(test_attention);
  RUN(test_quantize);
  RUN(test_tree);
  RUN(test_loop_direct);
  RUN(test_no_hook);
  return check_finish();
}
