/*
 * dot.h - the cost formulas of the ops built from dot products and of the
 * normalisations, written once (docs/metrics.md) and shared by every family
 * that has such an op: Conv and its fused / quantized variants, MatMul and
 * Gemm-like products (FusedMatMul, the attention products, the ONNX-ML
 * linear models), LayerNormalization and the contrib layer norms.
 *
 * The helpers take counts, not shapes: each family reads its own inputs
 * (whose positions differ between Conv, QLinearConv and FusedConv) and hands
 * the element counts here, so that the formula itself has one place. All
 * arithmetic saturates through nns__cmul / nns__cadd; negative counts (an
 * unknown shape) must be caught by the caller, which then returns
 * NNS__UNCOUNTED.
 */
#ifndef NNS_OPS_DOT_H
#define NNS_OPS_DOT_H

#include "op.h"

/*
 * Dot products in general: y outputs, each the sum of its share of `macs`
 * products (macs / y of them), reading a and b elements.
 *   MACs  = macs
 *   FLOPs = 2 macs - y   (the first product of each sum needs no add)
 *   DMAs  = a + b + y
 * Attention's products use this form: with h heads of hidden / h dims,
 * their MACs are whole multiples of `hidden` even when hidden is symbolic.
 */
static inline void nns__dot_cost(nns__cost *c, int64_t y, int64_t macs,
                                 int64_t a, int64_t b) {
  c->macs = macs;
  c->flops = nns__cmul(c, 2, macs);
  if (c->flops < INT64_MAX)
    c->flops = c->flops > y ? c->flops - y : 0;
  c->dmas = nns__cadd(c, nns__cadd(c, a, b), y);
}

/*
 * A (batched) matrix product (METRICS MatMul row): y output elements, each
 * a dot product of length k; a and b the operands' element counts.
 *   MACs  = y * k
 *   FLOPs = y * (2k - 1)
 *   DMAs  = a + b + y
 */
static inline void nns__matmul_cost(nns__cost *c, int64_t y, int64_t k,
                                    int64_t a, int64_t b) {
  nns__dot_cost(c, y, nns__cmul(c, y, k), a, b);
}

/*
 * A convolution (METRICS Conv row): y output elements, each a dot product
 * of length cin_per_group * kernel; w and b the weight and bias element
 * counts (b = 0 without bias). X is read once per MAC.
 *   MACs  = y * cin_g * k
 *   FLOPs = y * (2 * cin_g * k - 1) + (b ? y : 0)
 *   DMAs  = y * cin_g * k + w + b + y
 */
static inline void nns__conv_cost(nns__cost *c, int64_t y, int64_t cin_g,
                                  int64_t kernel, int64_t w, int64_t b) {
  int64_t macs = nns__cmul(c, y, nns__cmul(c, cin_g, kernel));
  nns__dot_cost(c, y, macs, macs, w);
  if (b > 0) {
    c->flops = nns__cadd(c, c->flops, y);
    c->dmas = nns__cadd(c, c->dmas, b);
  }
}

/*
 * Layer normalisation over x elements (METRICS LayerNormalization row),
 * with scale and bias element counts:
 *   FLOPs = 8x, MACs = 2x, DMAs = 2x + scale + bias
 */
static inline void nns__layer_norm_cost(nns__cost *c, int64_t x,
                                        int64_t scale, int64_t bias) {
  c->flops = nns__cmul(c, 8, x);
  c->macs = nns__cmul(c, 2, x);
  c->dmas = nns__cadd(c, nns__cmul(c, 2, x),
                      nns__cadd(c, scale > 0 ? scale : 0, bias > 0 ? bias : 0));
}

/*
 * RMS normalisation over x elements (RMSNormalization-23, com.microsoft
 * SimplifiedLayerNormalization): the sum of squares is one MAC per element,
 * then a multiply by the reciprocal RMS and one by the scale:
 *   FLOPs = 4x, MACs = x, DMAs = 2x + scale
 */
static inline void nns__rms_norm_cost(nns__cost *c, int64_t x,
                                      int64_t scale) {
  c->flops = nns__cmul(c, 4, x);
  c->macs = x;
  c->dmas = nns__cadd(c, nns__cmul(c, 2, x), scale > 0 ? scale : 0);
}

/* c += d, counts and flags (saturating). */
static inline void nns__cost_acc(nns__cost *c, const nns__cost *d) {
  c->flops = nns__cadd(c, c->flops, d->flops);
  c->macs = nns__cadd(c, c->macs, d->macs);
  c->dmas = nns__cadd(c, c->dmas, d->dmas);
  c->symbolic |= d->symbolic;
  c->unbounded |= d->unbounded;
  c->partial |= d->partial;
  c->overflow |= d->overflow;
}

/*
 * Conv's own rules (conv.c), for the entries that extend Conv with inputs
 * after X, W, B (com.microsoft FusedConv: Z and an activation): the shape,
 * the cost of the convolution itself (inputs 0-2 only) and the receptive
 * field are Conv's, written once.
 */
nns_status nns__conv_shape_rule(nns__ictx *cx);
nns_status nns__conv_cost_rule(nns__ictx *cx, nns__cost *c);
nns_status nns__conv_rf_rule(nns__ictx *cx, const nns__rf *in,
                             nns__rf *out);

/*
 * Scaled dot-product attention of b x s queries over l keys, h query heads,
 * query/key width dk and value width dv (all query heads together), with
 * K and V of kw and vw per key as stored (dk and dv, or fewer when query
 * heads share key/value heads: grouped-query attention):
 *   Q Kt     b h s l dot products of dk / h: MACs b s l dk, FLOPs
 *            2 MACs - b h s l; reads Q (b s dk) and K (b l kw), writes the
 *            scores (b h s l);
 *   scale    1 FLOP per score, and `per_score` more (a mask, a bias added);
 *            fused into the product: no DMAs of their own;
 *   softmax  5 FLOPs per score (Softmax's), scores read and written;
 *   P V      b s dv dot products of l: MACs b s l dv, FLOPs 2 MACs - b s dv;
 *            reads the probabilities and V (b l vw), writes the output.
 * Adds the counts to *c (msft.c's attention ops, gemm.c's Attention).
 */
static inline void nns__sdpa_cost(nns__cost *c, int64_t b, int64_t s,
                                  int64_t l, int64_t h, int64_t dk,
                                  int64_t dv, int64_t kw, int64_t vw,
                                  int64_t per_score) {
  int64_t bs = nns__cmul(c, b, s), bl = nns__cmul(c, b, l);
  int64_t scores = nns__cmul(c, nns__cmul(c, bs, h), l);
  nns__cost qk = {0}, av = {0};
  nns__dot_cost(&qk, scores, nns__cmul(c, nns__cmul(c, bs, l), dk),
                nns__cmul(c, bs, dk), nns__cmul(c, bl, kw));
  nns__dot_cost(&av, nns__cmul(c, bs, dv),
                nns__cmul(c, nns__cmul(c, bs, l), dv), scores,
                nns__cmul(c, bl, vw));
  nns__cost_acc(c, &qk);
  nns__cost_acc(c, &av);
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, scores, 6 + per_score));
  c->dmas = nns__cadd(c, c->dmas, nns__cmul(c, 2, scores));
}

/*
 * The (query, key) pairs a fused attention op's own mask allows, over
 * scores [b, h, s, t] (docs/metrics.md, macs_unmasked): query i sees key
 * j when
 *   causal     j <= offset + i (offset: the keys before the first query,
 *              past for Attention-23, t - s for GroupQueryAttention);
 *   window > 0 and j >= offset + i - window (a left window of `window`
 *              keys besides itself, GroupQueryAttention's
 *              local_window_size);
 *   mask >= 0  input `mask` (dims right-aligned on the scores; a last dim
 *              shorter than t leaves the rest out, as onnx pads it) allows
 *              it: a bool true, or an additive value above -1e4;
 *   lens >= 0  j < input `lens`[batch] (Attention-24's nonpad_kv_seqlen).
 * Sets *allowed and *rows (query rows with at least one key). false when
 * a mask or lens input's contents are not known (the products stay
 * dense) or a count overflows.
 */
typedef struct nns__attn_pairs_in {
  int64_t b, h, s, t;
  int64_t offset;
  bool causal;
  int64_t window;
  int mask, lens; /* input indexes, -1 for none */
  bool batch_first; /* a mask of rank 2 or 3 is [b, t] or [b, s, t] */
} nns__attn_pairs_in;
bool nns__attn_pairs(nns__ictx *cx, const nns__attn_pairs_in *in,
                     int64_t *allowed, int64_t *rows);

/*
 * What the pairs a mask leaves out take from nns__sdpa_cost's two
 * products, into c->macs_cut and c->flops_cut: of `total` = b h s t
 * scores `allowed` remain, over `rows` of the b h s query rows; each pair
 * is hk MACs of Q.Kt (2 hk - 1 FLOPs) and hv of P.V (2 hv, less one add
 * per row and value column).
 */
static inline void nns__attn_cut(nns__cost *c, int64_t total,
                                 int64_t allowed, int64_t rows_dense,
                                 int64_t rows, int64_t hk, int64_t hv) {
  int64_t gone = total - allowed, gone_rows = rows_dense - rows;
  if (gone <= 0 || gone_rows < 0)
    return;
  c->macs_cut = nns__cmul(c, gone, nns__cadd(c, hk, hv));
  c->flops_cut = nns__cadd(
      c, nns__cmul(c, gone, 2 * hk - 1),
      nns__cmul(c, hv, nns__cadd(c, nns__cmul(c, 2, gone), -gone_rows)));
}

#endif
