/*
 * msft.c - the com.microsoft contrib operators that ONNX Runtime's graph
 * optimizers and transformer exporters emit: fused conv / matmul, GELU
 * variants, layer norms with skip connections, and the attention ops.
 *
 * These are specified by ONNX Runtime's ContribOperators document rather
 * than by ONNX, and have a single version (1). Where that document leaves a
 * size to the runtime (packed attention layouts, shared KV buffers), the
 * dim stays a fresh symbol rather than a guess.
 *
 * The LLM ops ONNX Runtime GenAI's exporter emits sit here too:
 * GroupQueryAttention, MatMulNBits, (Skip)SimplifiedLayerNormalization,
 * RotaryEmbedding, MoE and QMoE (docs/metrics.md's com.microsoft rows).
 *
 * Costs (docs/metrics.md): a fused op costs what its unfused ops would, by
 * the same formulas (dot.h: conv, matmul, layer norm; an activation by its
 * own table entry's rule). The attention ops count the products, scaling,
 * masking and softmax of scaled dot-product attention; DMAs are those of
 * the unfused sequence, intermediates (Q, K, V, the score matrix) written
 * and read back.
 */
#include <string.h>

#include "dot.h"
#include "elem.h"
#include "window.h"

/* ==== FusedMatMul ==== */

/*
 * MatMul with transA / transB on the last two axes (and a scale). The
 * transBatch* attributes move batch axes in a runtime-specific way: with
 * them set the output's dims are left open.
 */
static nns_status fused_matmul_shape(nns__ictx *cx) {
  const nns__type *a = nns__in_type(cx, 0), *b = nns__in_type(cx, 1);
  int32_t dt = nns__in_dtype(cx, 0);
  if (!a || !b || a->rank < 0 || b->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  if (a->rank < 1 || b->rank < 1)
    return nns__fail(cx, NNS_E_SHAPE, "operands must have rank >= 1");
  if (nns__attr_int(cx, "transBatchA") || nns__attr_int(cx, "transBatchB")) {
    int32_t r = a->rank > b->rank ? a->rank : b->rank;
    nns__out_shape(cx, 0, dt, a->rank == 1 || b->rank == 1 ? -1 : r);
    return NNS_OK;
  }
  bool ta = nns__attr_int(cx, "transA") && a->rank >= 2;
  bool tb = nns__attr_int(cx, "transB") && b->rank >= 2;
  /* Rows/inner of A and inner/cols of B after transposition. */
  nns__dim m = a->rank >= 2 ? a->dims[a->rank - (ta ? 1 : 2)]
                            : nns__dim_known(1);
  nns__dim ka = a->dims[a->rank - (ta && a->rank >= 2 ? 2 : 1)];
  nns__dim kb = b->rank >= 2 ? b->dims[b->rank - (tb ? 1 : 2)] : b->dims[0];
  nns__dim n = b->rank >= 2 ? b->dims[b->rank - (tb ? 2 : 1)]
                            : nns__dim_known(1);
  if (!ka.sym && !kb.sym && ka.v != kb.v)
    return nns__fail(cx, NNS_E_SHAPE,
                     "inner dims differ: A has %lld, B has %lld",
                     (long long)ka.v, (long long)kb.v);
  int32_t rb_a = a->rank > 2 ? a->rank - 2 : 0, rb_b = b->rank > 2 ? b->rank - 2
                                                                   : 0;
  int32_t rbatch;
  nns__dim *batch;
  nns_status st = nns__broadcast_shapes(cx, rb_a, a->dims, rb_b, b->dims,
                                        &rbatch, &batch);
  if (st != NNS_OK)
    return st;
  /* numpy: a 1-D operand's added axis is removed again. */
  int32_t rank = rbatch + (a->rank >= 2) + (b->rank >= 2);
  nns__dim *y = nns__out_shape(cx, 0, dt, rank);
  if (!y)
    return NNS_OK;
  memcpy(y, batch, (size_t)rbatch * sizeof *y);
  int32_t k = rbatch;
  if (a->rank >= 2)
    y[k++] = m;
  if (b->rank >= 2)
    y[k++] = n;
  return NNS_OK;
}

/* ==== GELU family ==== */

static nns_status same_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

/* A + B (numpy broadcast), then the activation. */
static nns_status bias_shape(nns__ictx *cx) {
  if (!nns__has_in(cx, 1))
    return same_shape(cx);
  return nns__broadcast(cx, 0, 2, 0, nns__in_dtype(cx, 0));
}

/* ==== Layer norms ==== */

/* Y like X; the statistics keep the dims before `axis` and have 1 from
 * there on (ONNX LayerNormalization-17). */
static nns_status layer_norm_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0);
  nns__out_like(cx, 0, 0, 0);
  int32_t sdt = nns__attr_int(cx, "stash_type") == 1 ? NNS_DT_FLOAT
                                                      : nns__in_dtype(cx, 0);
  for (int i = 1; i <= 2; i++) {
    if (!x || x->rank < 0) {
      nns__out_shape(cx, i, sdt, -1);
      continue;
    }
    int32_t axis;
    nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), x->rank,
                                      &axis, "axis");
    if (st != NNS_OK)
      return st;
    nns__dim *d = nns__out_shape(cx, i, sdt, x->rank);
    for (int32_t k = 0; d && k < x->rank; k++)
      d[k] = k < axis ? x->dims[k] : nns__dim_known(1);
  }
  return NNS_OK;
}

/*
 * SkipLayerNormalization: input and skip [B, S, H] (or [B*S, H] in later
 * versions), gamma [H], beta, bias [H]. Outputs: output and
 * input+skip+bias like the input; mean and inv_std_var [B, S, 1].
 */
static nns_status skip_layer_norm_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0), *s = nns__in_type(cx, 1);
  if (x && s && x->rank >= 0 && s->rank >= 0) {
    if (x->rank != s->rank)
      return nns__fail(cx, NNS_E_SHAPE, "input has rank %d, skip rank %d",
                       x->rank, s->rank);
    for (int32_t k = 0; k < x->rank; k++)
      if (!x->dims[k].sym && !s->dims[k].sym && x->dims[k].v != s->dims[k].v)
        return nns__fail(cx, NNS_E_SHAPE, "input and skip differ in dim %d: "
                         "%lld vs %lld", k, (long long)x->dims[k].v,
                         (long long)s->dims[k].v);
  }
  nns__out_like(cx, 0, 0, 0);
  nns__out_like(cx, 3, 0, 0);
  for (int i = 1; i <= 2; i++) {
    if (!x || x->rank < 1) {
      nns__out_shape(cx, i, NNS_DT_FLOAT, -1);
      continue;
    }
    nns__dim *d = nns__out_shape(cx, i, NNS_DT_FLOAT, x->rank);
    for (int32_t k = 0; d && k < x->rank; k++)
      d[k] = k + 1 < x->rank ? x->dims[k] : nns__dim_known(1);
  }
  return NNS_OK;
}

/* ==== Attention ==== */

/* Attention's num_heads, checked. */
static nns_status heads_of(nns__ictx *cx, int64_t *heads) {
  *heads = nns__attr_int(cx, "num_heads");
  if (*heads < 1)
    return nns__fail(cx, NNS_E_ATTR, "num_heads is %lld, must be >= 1",
                     (long long)*heads);
  return NNS_OK;
}

/* hidden / heads when known and divisible, else fresh. */
static nns__dim per_head(nns__ictx *cx, nns__dim hidden, int64_t heads) {
  if (!hidden.sym && hidden.v % heads == 0)
    return nns__dim_known(hidden.v / heads);
  return nns__fresh(cx);
}

/*
 * Attention: input [B, S, D_in], weights [D_in, Dq + Dk + Dv] (Dq = Dk = Dv
 * unless qkv_hidden_sizes says), bias, mask_index, past [2, B, heads, P,
 * Dk/heads]. Output [B, S, Dv]; present [2, B, heads, P + S, Dk/heads].
 */
static nns_status attention_shape(nns__ictx *cx) {
  const nns__type *x = nns__in_type(cx, 0), *w = nns__in_type(cx, 1);
  const nns__type *past = nns__in_type(cx, 4);
  int64_t heads;
  nns_status st = heads_of(cx, &heads);
  if (st != NNS_OK)
    return st;
  int32_t dt = nns__in_dtype(cx, 0);
  if (x && x->rank >= 0 && x->rank != 3)
    return nns__fail(cx, NNS_E_SHAPE, "input must be [B, S, D], rank %d",
                     x->rank);
  nns__dim dk = nns__fresh(cx), dv = nns__fresh(cx);
  const int64_t *qkv;
  int32_t n_qkv = nns__attr_ints(cx, "qkv_hidden_sizes", &qkv);
  if (n_qkv >= 0) {
    if (n_qkv != 3)
      return nns__fail(cx, NNS_E_ATTR, "qkv_hidden_sizes has %d entries, "
                       "expected 3", n_qkv);
    dk = nns__dim_known(qkv[1]);
    dv = nns__dim_known(qkv[2]);
  } else if (w && w->rank == 2 && !w->dims[1].sym && w->dims[1].v % 3 == 0) {
    dk = dv = nns__dim_known(w->dims[1].v / 3);
  }
  if (x && w && x->rank == 3 && w->rank == 2 && !x->dims[2].sym &&
      !w->dims[0].sym && x->dims[2].v != w->dims[0].v)
    return nns__fail(cx, NNS_E_SHAPE,
                     "input hidden size %lld != weights' rows %lld",
                     (long long)x->dims[2].v, (long long)w->dims[0].v);
  nns__dim b = x && x->rank == 3 ? x->dims[0] : nns__fresh(cx);
  nns__dim s = x && x->rank == 3 ? x->dims[1] : nns__fresh(cx);
  nns__dim *y = nns__out_shape(cx, 0, dt, 3);
  if (y) {
    y[0] = b;
    y[1] = s;
    y[2] = dv;
  }
  nns__dim *p = nns__out_shape(cx, 1, dt, 5);
  if (p) {
    p[0] = nns__dim_known(2);
    p[1] = b;
    p[2] = nns__dim_known(heads);
    p[4] = per_head(cx, dk, heads);
    /* A shared past/present buffer keeps its allocated length. */
    if (past && past->rank == 5)
      p[3] = nns__attr_int(cx, "past_present_share_buffer")
                 ? past->dims[3]
                 : nns__add(cx, past->dims[3], s);
    else if (!nns__has_in(cx, 4))
      p[3] = s;
  }
  return NNS_OK;
}

/*
 * MultiHeadAttention: query [B, S, D] (or packed QKV [B, S, heads, 3, H]),
 * key [B, L, D] (or [B, heads, L, H], or packed KV [B, L, heads, 2, H]),
 * value [B, L, Dv] (or [B, heads, L, H]), ..., past_key/past_value
 * [B, heads, P, H]. Output [B, S, Dv]; present_key/value [B, heads, P+L,
 * H].
 */
static nns_status mha_shape(nns__ictx *cx) {
  const nns__type *q = nns__in_type(cx, 0), *k = nns__in_type(cx, 1);
  const nns__type *v = nns__in_type(cx, 2), *pk = nns__in_type(cx, 6);
  int64_t heads;
  nns_status st = heads_of(cx, &heads);
  if (st != NNS_OK)
    return st;
  int32_t dt = nns__in_dtype(cx, 0);
  nns__dim b = q && q->rank >= 3 ? q->dims[0] : nns__fresh(cx);
  nns__dim s = q && q->rank >= 3 ? q->dims[1] : nns__fresh(cx);
  nns__dim dv = nns__fresh(cx), len = nns__fresh(cx), hk = nns__fresh(cx),
           hv = nns__fresh(cx);
  nns__dim n_heads = nns__dim_known(heads);
  if (q && q->rank == 5) { /* packed QKV */
    dv = nns__mul(cx, q->dims[2], q->dims[4]);
    hk = hv = q->dims[4];
    len = s;
  } else if (v && v->rank == 3) {
    dv = v->dims[2];
    len = v->dims[1];
    hv = per_head(cx, v->dims[2], heads);
  } else if (v && v->rank == 4) {
    dv = nns__mul(cx, v->dims[1], v->dims[3]);
    len = v->dims[2];
    hv = v->dims[3];
  } else if (k && k->rank == 5) { /* packed KV */
    dv = nns__mul(cx, k->dims[2], k->dims[4]);
    len = k->dims[1];
    hv = k->dims[4];
  }
  if (k && k->rank == 3)
    hk = per_head(cx, k->dims[2], heads);
  else if (k && (k->rank == 4 || k->rank == 5))
    hk = k->dims[k->rank - 1];
  nns__dim *y = nns__out_shape(cx, 0, dt, 3);
  if (y) {
    y[0] = b;
    y[1] = s;
    y[2] = dv;
  }
  /* With a key already in [B, heads, L, H] form it may hold the past. */
  nns__dim total = pk && pk->rank == 4 && !(k && k->rank == 4)
                       ? nns__add(cx, pk->dims[2], len)
                       : !nns__has_in(cx, 6) ? len : nns__fresh(cx);
  for (int i = 1; i <= 2; i++) {
    nns__dim *p = nns__out_shape(cx, i, dt, 4);
    if (!p)
      continue;
    p[0] = b;
    p[1] = n_heads;
    p[2] = total;
    p[3] = i == 1 ? hk : hv;
  }
  return NNS_OK;
}

/* ==== Costs: fused conv and matmul ==== */

/* Elements of input i, 0 when absent; -1 when present with an unknown
 * shape. */
static int64_t opt_count(nns__ictx *cx, nns__cost *c, int i) {
  return nns__has_in(cx, i) ? nns__in_count(cx, c, i) : 0;
}

/*
 * The cost rule of another table entry (default domain) applied to this
 * node, e.g. an activation fused into a conv: the entry is the one place
 * its per-element count lives. NNS__UNCOUNTED when it has none.
 */
static nns_status entry_cost(nns__ictx *cx, const char *name, nns__cost *c) {
  bool newer;
  const nns__op *op = nns__op_find("", name, NNS__OPSET_MAX, &newer);
  if (!op || !op->cost)
    return NNS__UNCOUNTED;
  nns__ictx sub = *cx;
  sub.op = op;
  sub.opset = NNS__OPSET_MAX;
  return op->cost(&sub, c);
}

/*
 * FusedConv (X, W, B, Z) is Conv plus Z added and an activation: its shape
 * and receptive field are Conv's own rules (dot.h). Its cost is Conv's
 * (nns__conv_cost_rule, inputs 0-2) + Z added to every output (numel(Y)
 * FLOPs, numel(Z) read) + the activation, whose FLOPs per element
 * are its own entry's (Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid, Clip).
 * Fusion saves the activation's own reads and writes: no DMAs for it.
 */
static nns_status fused_conv_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y = nns__out_count(cx, c, 0), nz = opt_count(cx, c, 3);
  if (y < 0 || nz < 0)
    return NNS__UNCOUNTED;
  nns_status st = nns__conv_cost_rule(cx, c);
  if (st != NNS_OK)
    return st;
  if (nns__has_in(cx, 3)) {
    c->flops = nns__cadd(c, c->flops, y);
    c->dmas = nns__cadd(c, c->dmas, nz);
  }
  const char *act = nns__attr_str(cx, "activation");
  if (act[0]) {
    nns__cost a = {0};
    if (entry_cost(cx, act, &a) != NNS_OK)
      return NNS__UNCOUNTED;
    c->flops = nns__cadd(c, c->flops, a.flops);
    c->symbolic |= a.symbolic;
    c->overflow |= a.overflow;
  }
  return NNS_OK;
}

/*
 * FusedMatMul = MatMul (nns__matmul_cost, as gemm.c) with the transposes
 * free and alpha != 1 one multiply per output (as Gemm's alpha). With
 * transBatchA/B the output's dims are not known: not counted.
 */
static nns_status fused_matmul_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *a = nns__in_type(cx, 0), *b = nns__in_type(cx, 1);
  int64_t y = nns__out_count(cx, c, 0), na = nns__in_count(cx, c, 0),
          nb = nns__in_count(cx, c, 1);
  if (!a || !b || a->rank < 1 || b->rank < 1 || y < 0 || na < 0 || nb < 0 ||
      nns__attr_int(cx, "transBatchA") || nns__attr_int(cx, "transBatchB"))
    return NNS__UNCOUNTED;
  bool ta = nns__attr_int(cx, "transA") && a->rank >= 2;
  bool tb = nns__attr_int(cx, "transB") && b->rank >= 2;
  nns__dim k = a->dims[a->rank - (ta ? 2 : 1)];
  nns__dim kb = b->rank >= 2 ? b->dims[b->rank - (tb ? 1 : 2)] : b->dims[0];
  if (k.sym && !kb.sym)
    k = kb;
  nns__matmul_cost(c, y, nns__dim_count(c, k, cx->m), na, nb);
  if (nns__attr_float(cx, "alpha") != 1.0)
    c->flops = nns__cadd(c, c->flops, y);
  return NNS_OK;
}

/* ==== Costs: GELU family ==== */

/* docs/metrics.md's Gelu: 8 FLOPs per element. */
enum { GELU_FLOPS = 8 };

/* Gelu, and FastGelu (its tanh approximation, counted as the Gelu it
 * computes) plus the bias add when given. */
static nns_status gelu_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, GELU_FLOPS + (nns__has_in(cx, 1) ? 1 : 0));
}

/* QuickGelu x * sigmoid(alpha x): a multiply, a Sigmoid (4), a multiply. */
static nns_status quick_gelu_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, 6);
}

/* ==== Costs: layer norms ==== */

/* com.microsoft LayerNormalization has the inputs and outputs of ONNX's:
 * its entry's rule counts it. */
static nns_status layer_norm_cost(nns__ictx *cx, nns__cost *c) {
  return entry_cost(cx, "LayerNormalization", c);
}

/*
 * SkipLayerNormalization = input + skip (+ bias): numel FLOPs per add,
 * skip and bias read; then a layer norm of the sum (nns__layer_norm_cost,
 * with gamma and beta), and the optional mean, inv_std_var and sum outputs
 * written.
 */
static nns_status skip_layer_norm_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), skip = nns__in_count(cx, c, 1);
  int64_t gamma = opt_count(cx, c, 2), beta = opt_count(cx, c, 3),
          bias = opt_count(cx, c, 4);
  if (x < 0 || skip < 0 || gamma < 0 || beta < 0 || bias < 0)
    return NNS__UNCOUNTED;
  nns__layer_norm_cost(c, x, gamma, beta);
  int64_t adds = nns__cmul(c, x, nns__has_in(cx, 4) ? 2 : 1);
  c->flops = nns__cadd(c, c->flops, adds);
  c->dmas = nns__cadd(c, c->dmas, nns__cadd(c, skip, bias));
  for (int i = 1; i <= 3; i++) {
    int64_t o = nns__has_out(cx, i) ? nns__out_count(cx, c, i) : 0;
    if (o < 0)
      return NNS__UNCOUNTED;
    c->dmas = nns__cadd(c, c->dmas, o);
  }
  return NNS_OK;
}

/* ==== Costs: attention ==== */

/* Adds numel(input i) to DMAs (and FLOPs per score when `per_score`),
 * for the optional inputs: masks, biases, past. false when unknown. */
static bool add_input(nns__ictx *cx, nns__cost *c, int i) {
  int64_t n = opt_count(cx, c, i);
  if (n < 0)
    return false;
  c->dmas = nns__cadd(c, c->dmas, n);
  return true;
}

static bool add_output(nns__ictx *cx, nns__cost *c, int i) {
  int64_t n = nns__has_out(cx, i) ? nns__out_count(cx, c, i) : 0;
  if (n < 0)
    return false;
  c->dmas = nns__cadd(c, c->dmas, n);
  return true;
}

/*
 * Attention: the Q, K, V projection, a Gemm of [B*S, D] by weights
 * [D, Dq + Dk + Dv] plus the bias (numel FLOPs, bias read), then
 * sdpa_cost over L = past + S keys (the allocated length when the past
 * buffer is shared: an upper bound). A mask (mask_index) or
 * unidirectional adds 1 FLOP per score, a relative position bias 1 more.
 * past is read and present written (the concatenation). do_rotary's
 * rotation of Q and K is not counted: partial, and said (`approx`).
 *
 * For input [2, 4, 8], weights [8, 24], 2 heads: MACs 2*4*8*24 +
 * 2*4*4*8 + 2*4*4*8 = 1536 + 256 + 256.
 */
static nns_status attention_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *x = nns__in_type(cx, 0), *w = nns__in_type(cx, 1);
  const nns__type *past = nns__in_type(cx, 4);
  int64_t heads = nns__attr_int(cx, "num_heads");
  int64_t nx = nns__in_count(cx, c, 0), nw = nns__in_count(cx, c, 1);
  int64_t nbias = opt_count(cx, c, 2);
  if (!x || x->rank != 3 || !w || w->rank != 2 || heads < 1 || nx < 0 ||
      nw < 0 || nbias < 0)
    return NNS__UNCOUNTED;
  int64_t b = nns__dim_count(c, x->dims[0], cx->m);
  int64_t s = nns__dim_count(c, x->dims[1], cx->m);
  int64_t d = nns__dim_count(c, x->dims[2], cx->m);
  int64_t dqkv = nns__dim_count(c, w->dims[1], cx->m), dk = dqkv / 3,
          dv = dqkv / 3;
  const int64_t *qkv;
  if (nns__attr_ints(cx, "qkv_hidden_sizes", &qkv) == 3) {
    dk = qkv[1];
    dv = qkv[2];
  }
  int64_t l = s;
  bool shared = false;
  if (past && past->rank == 5) {
    int64_t p = nns__dim_count(c, past->dims[3], cx->m);
    shared = nns__attr_int(cx, "past_present_share_buffer") != 0;
    l = shared ? p : nns__cadd(c, p, s);
  } else if (nns__has_in(cx, 4)) {
    return NNS__UNCOUNTED;
  }
  int64_t bs = nns__cmul(c, b, s);
  nns__matmul_cost(c, nns__cmul(c, bs, dqkv), d, nx, nw);
  if (nns__attr_int(cx, "do_rotary")) {
    c->partial = true;
    c->approx = "do_rotary's rotation of Q and K is not counted (FLOPs and "
                "DMAs are lower bounds)";
  } else if (shared) {
    c->approx = "past_present_share_buffer: the keys are the shared "
                "buffer's allocated length, an upper bound of those attended";
  }
  if (nns__has_in(cx, 2)) {
    c->flops = nns__cadd(c, c->flops, nns__cmul(c, bs, dqkv));
    c->dmas = nns__cadd(c, c->dmas, nbias);
  }
  int64_t per_score =
      (nns__has_in(cx, 3) || nns__attr_int(cx, "unidirectional") ? 1 : 0) +
      (nns__has_in(cx, 5) ? 1 : 0);
  nns__sdpa_cost(c, b, s, l, heads, dk, dv, dk, dv, per_score);
  for (int i = 3; i <= 5; i++)
    if (!add_input(cx, c, i))
      return NNS__UNCOUNTED;
  if (!add_output(cx, c, 1))
    return NNS__UNCOUNTED;
  /* macs_unmasked: unidirectional, query i sees keys up to past + i, and
   * a mask_index with known contents: [B] key lengths, [B, T] or
   * [B, S, T] keys kept (nonzero). Other formats ([2B] end and start,
   * [B, 1, M, M]) or unknown contents leave the pairs dense, flagged. */
  const nns__type *mt = nns__in_type(cx, 3);
  bool masked = nns__has_in(cx, 3);
  nns__attn_pairs_in pin = {.b = b, .h = heads, .s = s, .t = l,
                            .offset = l - s,
                            .causal = nns__attr_int(cx, "unidirectional") != 0,
                            .mask = -1, .lens = -1, .batch_first = true};
  if (masked && mt && mt->rank == 1)
    pin.lens = 3;
  else if (masked && mt && (mt->rank == 2 || mt->rank == 3))
    pin.mask = 3;
  int64_t allowed, rows, rows_dense = nns__cmul(c, nns__cmul(c, b, heads), s);
  if (l >= s && dk % heads == 0 && dv % heads == 0 &&
      (!masked || pin.mask >= 0 || pin.lens >= 0) &&
      nns__attn_pairs(cx, &pin, &allowed, &rows))
    nns__attn_cut(c, nns__cmul(c, rows_dense, l), allowed, rows_dense, rows,
                  dk / heads, dv / heads);
  else if (masked)
    c->mask_unknown = true;
  return NNS_OK;
}

/*
 * MultiHeadAttention: Q, K, V come projected, so sdpa_cost alone, over
 * the keys of key (or packed KV / QKV) plus past_key, with the bias (when
 * given) added to Q, K and V first (one FLOP per element) and a key
 * padding mask or relative position bias 1 FLOP per score each. Masks,
 * biases and past are read, present_key/value written. unidirectional and
 * a known attention_bias give macs_unmasked (nns__attn_pairs).
 */
static nns_status mha_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *q = nns__in_type(cx, 0), *k = nns__in_type(cx, 1);
  const nns__type *v = nns__in_type(cx, 2), *pk = nns__in_type(cx, 6);
  const nns__type *y = nns__has_out(cx, 0) ? &cx->node->out[0]->type : NULL;
  int64_t heads = nns__attr_int(cx, "num_heads");
  if (!q || (q->rank != 3 && q->rank != 5) || !y || y->rank != 3 ||
      heads < 1)
    return NNS__UNCOUNTED;
  int64_t b = nns__dim_count(c, y->dims[0], cx->m);
  int64_t s = nns__dim_count(c, y->dims[1], cx->m);
  int64_t dv = nns__dim_count(c, y->dims[2], cx->m);
  int64_t dk = q->rank == 3 ? nns__dim_count(c, q->dims[2], cx->m)
                            : nns__cmul(c, nns__dim_count(c, q->dims[2], cx->m),
                                        nns__dim_count(c, q->dims[4], cx->m));
  int64_t l; /* keys of this call */
  if (q->rank == 5)
    l = s;
  else if (k && (k->rank == 3 || k->rank == 5))
    l = nns__dim_count(c, k->dims[1], cx->m);
  else if (k && k->rank == 4)
    l = nns__dim_count(c, k->dims[2], cx->m);
  else if (v && v->rank == 4)
    l = nns__dim_count(c, v->dims[2], cx->m);
  else
    return NNS__UNCOUNTED;
  int64_t total = l;
  if (pk && pk->rank == 4 && !(k && k->rank == 4))
    total = nns__cadd(c, l, nns__dim_count(c, pk->dims[2], cx->m));
  int64_t per_score = (nns__has_in(cx, 4) ? 1 : 0) + (nns__has_in(cx, 5) ? 1
                                                                         : 0);
  *c = (nns__cost){.symbolic = c->symbolic, .overflow = c->overflow};
  nns__sdpa_cost(c, b, s, total, heads, dk, dv, dk, dv, per_score);
  if (nns__has_in(cx, 3)) {
    int64_t bq = nns__cmul(c, nns__cmul(c, b, s), dk);
    int64_t bkv = nns__cmul(c, nns__cmul(c, b, l), nns__cadd(c, dk, dv));
    c->flops = nns__cadd(c, c->flops, nns__cadd(c, bq, bkv));
  }
  for (int i = 3; i <= 7; i++)
    if (!add_input(cx, c, i))
      return NNS__UNCOUNTED;
  for (int i = 1; i <= 2; i++)
    if (!add_output(cx, c, i))
      return NNS__UNCOUNTED;
  /* macs_unmasked: unidirectional (query i sees keys up to total - S + i),
   * an attention_bias with known contents, and a key_padding_mask with
   * known contents: [B] key lengths, [B, T] or [B, S, T] keys kept
   * (nonzero). Its other format ([3B + 2]), one beside an attention_bias
   * given as a mask too, or unknown contents leave the pairs dense,
   * flagged. */
  const nns__type *kt = nns__in_type(cx, 4);
  bool padded = nns__has_in(cx, 4), biased = nns__has_in(cx, 5);
  nns__attn_pairs_in pin = {
      .b = b, .h = heads, .s = s, .t = total, .offset = total - s,
      .causal = nns__attr_int(cx, "unidirectional") != 0, .mask = 5,
      .lens = -1};
  bool readable = true;
  if (padded && kt && kt->rank == 1) {
    pin.lens = 4;
  } else if (padded && kt && (kt->rank == 2 || kt->rank == 3) && !biased) {
    pin.mask = 4;
    pin.batch_first = true;
  } else if (padded) {
    readable = false;
  }
  int64_t allowed, rows, rows_dense = nns__cmul(c, nns__cmul(c, b, heads), s);
  if (readable && total >= s && dk % heads == 0 && dv % heads == 0 &&
      nns__attn_pairs(cx, &pin, &allowed, &rows))
    nns__attn_cut(c, nns__cmul(c, rows_dense, total), allowed, rows_dense,
                  rows, dk / heads, dv / heads);
  else if (padded)
    c->mask_unknown = true;
  return NNS_OK;
}

/* ==== LLM ops: shapes ==== */

/*
 * SkipSimplifiedLayerNormalization: input and skip [B, S, H] (or [T, H]),
 * gamma [H], bias [H]. Outputs: output like the input, mean and
 * inv_std_var [.., 1], input_skip_bias_sum like the input: the outputs
 * of SkipLayerNormalization.
 */
static nns_status skip_simplified_shape(nns__ictx *cx) {
  return skip_layer_norm_shape(cx);
}

/* The head size of GroupQueryAttention: key's width over kv_num_heads,
 * else packed QKV's over num_heads + 2 kv_num_heads. */
static nns__dim gqa_head(nns__ictx *cx, int64_t heads, int64_t kv_heads) {
  const nns__type *q = nns__in_type(cx, 0), *k = nns__in_type(cx, 1);
  if (k && k->rank == 3)
    return per_head(cx, k->dims[2], kv_heads);
  if (q && q->rank == 3 && !nns__has_in(cx, 1))
    return per_head(cx, q->dims[2], heads + 2 * kv_heads);
  if (q && q->rank == 3)
    return per_head(cx, q->dims[2], heads);
  return nns__fresh(cx);
}

/* num_heads and kv_num_heads, checked: kv heads divide the query heads. */
static nns_status gqa_heads(nns__ictx *cx, int64_t *heads, int64_t *kv) {
  nns_status st = heads_of(cx, heads);
  if (st != NNS_OK)
    return st;
  *kv = nns__attr_int(cx, "kv_num_heads");
  if (*kv < 1 || *heads % *kv)
    return nns__fail(cx, NNS_E_ATTR, "kv_num_heads %lld must be >= 1 and "
                     "divide num_heads %lld", (long long)*kv,
                     (long long)*heads);
  return NNS_OK;
}

/* total_sequence_length when it is a known constant, else -1. */
static int64_t gqa_total(nns__ictx *cx) {
  const int64_t *v;
  int64_t n;
  if (!nns__has_in(cx, 6) || !nns__in_known_ints(cx, 6, &v, &n) || n != 1)
    return -1;
  return v[0];
}

/*
 * The keys a GroupQueryAttention call's present holds: the past buffer
 * and the new keys (past + L), or, when total_sequence_length is known,
 * max(past, total): a buffer shared between past and present keeps its
 * allocated length, and past + L = total otherwise.
 */
static nns__dim gqa_present(nns__ictx *cx, nns__dim l) {
  const nns__type *pk = nns__in_type(cx, 3);
  int64_t total = gqa_total(cx);
  if (!pk || pk->rank != 4)
    return total >= 0 ? nns__dim_known(total) : l;
  nns__dim p = pk->dims[2];
  if (total >= 0 && !p.sym)
    return nns__dim_known(p.v > total ? p.v : total);
  return nns__add(cx, p, l);
}

/*
 * GroupQueryAttention: query [B, S, heads * H] (or packed QKV [B, S,
 * (heads + 2 kv_heads) H] without key and value), key and value [B, L,
 * kv_heads * H], past_key/past_value [B, kv_heads, P, H]. Output [B, S,
 * heads * H]; present_key/present_value [B, kv_heads, T, H] (gqa_present);
 * output_qk [B, heads, S, T].
 */
static nns_status gqa_shape(nns__ictx *cx) {
  const nns__type *q = nns__in_type(cx, 0), *k = nns__in_type(cx, 1);
  int64_t heads, kv;
  nns_status st = gqa_heads(cx, &heads, &kv);
  if (st != NNS_OK)
    return st;
  if (q && q->rank >= 0 && q->rank != 3)
    return nns__fail(cx, NNS_E_SHAPE, "query must be [B, S, D], rank %d",
                     q->rank);
  int32_t dt = nns__in_dtype(cx, 0);
  nns__dim h = gqa_head(cx, heads, kv);
  nns__dim b = q && q->rank == 3 ? q->dims[0] : nns__fresh(cx);
  nns__dim s = q && q->rank == 3 ? q->dims[1] : nns__fresh(cx);
  nns__dim l = k && k->rank == 3 ? k->dims[1] : nns__has_in(cx, 1)
                                                    ? nns__fresh(cx)
                                                    : s;
  nns__dim t = gqa_present(cx, l);
  nns__dim *y = nns__out_dims(cx, 0, dt, 3);
  if (y)
    y[0] = b, y[1] = s, y[2] = nns__mul(cx, nns__dim_known(heads), h);
  for (int o = 1; o <= 2; o++) {
    nns__dim *p = nns__out_dims(cx, o, nns__has_in(cx, o + 2)
                                           ? nns__in_dtype(cx, o + 2)
                                           : dt,
                                4);
    if (p)
      p[0] = b, p[1] = nns__dim_known(kv), p[2] = t, p[3] = h;
  }
  nns__dim *qk = nns__out_dims(cx, 3, dt, 4);
  if (qk)
    qk[0] = b, qk[1] = nns__dim_known(heads), qk[2] = s, qk[3] = t;
  return NNS_OK;
}

/*
 * MatMulNBits: A [..., K] times the weight [K, N] that B holds packed
 * ([N, k_blocks, blob] of uint8, `bits` per weight): Y [..., N] in A's
 * dtype.
 */
static nns_status matmul_nbits_shape(nns__ictx *cx) {
  const nns__type *a = nns__in_type(cx, 0);
  int64_t k = nns__attr_int(cx, "K"), n = nns__attr_int(cx, "N");
  int64_t bits = nns__attr_int(cx, "bits");
  if (k < 1 || n < 1 || bits < 1 || bits > 8)
    return nns__fail(cx, NNS_E_ATTR, "K %lld, N %lld, bits %lld: K and N "
                     "must be >= 1, bits 1 to 8", (long long)k, (long long)n,
                     (long long)bits);
  int32_t dt = nns__in_dtype(cx, 0);
  if (!a || a->rank < 0) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  if (a->rank < 1)
    return nns__fail(cx, NNS_E_SHAPE, "A must have rank >= 1");
  nns__dim ka = a->dims[a->rank - 1];
  if (!ka.sym && ka.v != k)
    return nns__fail(cx, NNS_E_SHAPE, "A's last dim is %lld, K is %lld",
                     (long long)ka.v, (long long)k);
  nns__dim *y = nns__out_dims(cx, 0, dt, a->rank);
  if (!y)
    return NNS_OK;
  memcpy(y, a->dims, (size_t)(a->rank - 1) * sizeof *y);
  y[a->rank - 1] = nns__dim_known(n);
  return NNS_OK;
}

/* ==== LLM ops: costs ==== */

/* SimplifiedLayerNormalization (X, scale) is RMSNormalization-23's rule;
 * its inv_std_var output is written too. */
static nns_status simplified_ln_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), s = nns__in_count(cx, c, 1);
  if (x < 0 || s < 0)
    return NNS__UNCOUNTED;
  nns__rms_norm_cost(c, x, s);
  return add_output(cx, c, 1) ? NNS_OK : NNS__UNCOUNTED;
}

/*
 * SkipSimplifiedLayerNormalization = input + skip (+ bias): numel FLOPs
 * per add, skip and bias read; then an RMS norm of the sum
 * (nns__rms_norm_cost, with gamma), and the optional mean, inv_std_var
 * and sum outputs written.
 */
static nns_status skip_simplified_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), skip = nns__in_count(cx, c, 1);
  int64_t gamma = opt_count(cx, c, 2), bias = opt_count(cx, c, 3);
  if (x < 0 || skip < 0 || gamma < 0 || bias < 0)
    return NNS__UNCOUNTED;
  nns__rms_norm_cost(c, x, gamma);
  int64_t adds = nns__cmul(c, x, nns__has_in(cx, 3) ? 2 : 1);
  c->flops = nns__cadd(c, c->flops, adds);
  c->dmas = nns__cadd(c, c->dmas, nns__cadd(c, skip, bias));
  for (int i = 1; i <= 3; i++)
    if (!add_output(cx, c, i))
      return NNS__UNCOUNTED;
  return NNS_OK;
}

/* com.microsoft RotaryEmbedding (input, position_ids, cos_cache,
 * sin_cache): ONNX RotaryEmbedding-23's rule (eltwise.c), position_ids
 * at input 1. */
static nns_status rotary_cost(nns__ictx *cx, nns__cost *c) {
  return nns__rotary_cost(cx, c, 1);
}

/*
 * GroupQueryAttention (docs/metrics.md): nns__sdpa_cost of S queries over
 * T keys (total_sequence_length when known, else past + L), each query
 * head against its key/value head, with the scale, the causal mask (the
 * `causal` attribute, 1 by default), the softcap (8 per score) and an
 * attention_bias (1 per score) per score; do_rotary rotates Q and K first
 * (3 FLOPs per element). Past, caches and bias read, present written.
 * macs_unmasked: query i sees keys up to T - S + i (bottom-right causal)
 * and, with local_window_size W > 0, no further back than W keys; an
 * attention_bias with known contents leaves out what it masks.
 */
static nns_status gqa_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *q = nns__in_type(cx, 0), *k = nns__in_type(cx, 1);
  const nns__type *pk = nns__in_type(cx, 3);
  int64_t heads = nns__attr_int(cx, "num_heads"),
          kv = nns__attr_int(cx, "kv_num_heads");
  if (!q || q->rank != 3 || heads < 1 || kv < 1 || heads % kv ||
      (nns__has_in(cx, 1) && (!k || k->rank != 3)) ||
      (nns__has_in(cx, 3) && (!pk || pk->rank != 4)))
    return NNS__UNCOUNTED;
  const nns_model *m = cx->m;
  int64_t b = nns__dim_count(c, q->dims[0], m),
          s = nns__dim_count(c, q->dims[1], m);
  int64_t width = nns__dim_count(c, (k ? k : q)->dims[2], m);
  int64_t h = k ? width / kv : width / (heads + 2 * kv);
  int64_t l = k ? nns__dim_count(c, k->dims[1], m) : s;
  int64_t t = gqa_total(cx);
  if (t < 0)
    t = pk ? nns__cadd(c, nns__dim_count(c, pk->dims[2], m), l) : l;
  if (h < 1 || t < 1)
    return NNS__UNCOUNTED;
  bool causal = nns__attr_int(cx, "causal") != 0;
  int64_t per_score = (causal ? 1 : 0) + (nns__has_in(cx, 10) ? 1 : 0) +
                      (nns__attr_float(cx, "softcap") != 0.0 ? 8 : 0);
  *c = (nns__cost){.symbolic = c->symbolic, .overflow = c->overflow};
  nns__sdpa_cost(c, b, s, t, heads, nns__cmul(c, heads, h),
                 nns__cmul(c, heads, h), nns__cmul(c, kv, h),
                 nns__cmul(c, kv, h), per_score);
  if (nns__attr_int(cx, "do_rotary")) {
    int64_t rot = nns__cmul(c, nns__cmul(c, b, h),
                            nns__cadd(c, nns__cmul(c, s, heads),
                                      nns__cmul(c, l, kv)));
    c->flops = nns__cadd(c, c->flops, nns__cmul(c, 3, rot));
  }
  for (int i = 3; i <= 10; i++)
    if (i != 5 && i != 6 && !add_input(cx, c, i))
      return NNS__UNCOUNTED;
  for (int o = 1; o <= 3; o++)
    if (!add_output(cx, c, o))
      return NNS__UNCOUNTED;
  nns__attn_pairs_in pin = {.b = b, .h = heads, .s = s, .t = t,
                            .offset = t - s, .causal = causal,
                            .window = nns__attr_int(cx, "local_window_size"),
                            .mask = 10, .lens = -1};
  int64_t allowed, rows;
  int64_t rows_dense = nns__cmul(c, nns__cmul(c, b, heads), s);
  if (t >= s && nns__attn_pairs(cx, &pin, &allowed, &rows))
    nns__attn_cut(c, nns__cmul(c, rows_dense, t), allowed, rows_dense, rows,
                  h, h);
  else if (nns__has_in(cx, 10))
    c->mask_unknown = true;
  return NNS_OK;
}

/*
 * MatMulNBits (docs/metrics.md): the product on the unpacked weight, Y
 * [.., N] of K-long dot products (nns__matmul_cost), after dequantizing
 * the K x N weights once ((q - zero point) * scale: 2 FLOPs each; the
 * default zero point is 2^(bits-1), so always subtracted), plus the bias.
 * DMAs read B as stored (packed elements), scales, zero points and bias.
 */
static nns_status matmul_nbits_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y = nns__out_count(cx, c, 0), na = nns__in_count(cx, c, 0),
          nb = nns__in_count(cx, c, 1), ns = opt_count(cx, c, 2),
          nz = opt_count(cx, c, 3), nbias = opt_count(cx, c, 5);
  int64_t k = nns__attr_int(cx, "K"), n = nns__attr_int(cx, "N");
  if (y < 0 || na < 0 || nb < 0 || ns < 0 || nz < 0 || nbias < 0 || k < 1 ||
      n < 1)
    return NNS__UNCOUNTED;
  nns__matmul_cost(c, y, k, na, nb);
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, 2, nns__cmul(c, k, n)));
  if (nns__has_in(cx, 5))
    c->flops = nns__cadd(c, c->flops, y);
  c->dmas = nns__cadd(c, c->dmas, nns__cadd(c, ns, nns__cadd(c, nz, nbias)));
  return NNS_OK;
}

/* FLOPs per element of an MoE expert's activation (its table entry's
 * count: Relu 1, Gelu 8, SiLU a Sigmoid and a multiply 5; swiglu the
 * SiLU and the multiply by the linear half 6), -1 for an unknown one. */
static int64_t moe_act_flops(const char *act) {
  static const struct { const char *name; int64_t flops; } acts[] = {
      {"relu", 1}, {"gelu", 8}, {"silu", 5}, {"swiglu", 6},
      {"identity", 0}};
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
    if (!strcmp(act, acts[i].name))
      return acts[i].flops;
  return -1;
}

/* Elements of one expert's matrix in weights input i (E of them), times
 * `unpack` weights per stored element; 0 when absent, -1 unknown. */
static int64_t expert_matrix(nns__ictx *cx, nns__cost *c, int i, int64_t e,
                             int64_t unpack) {
  int64_t n = opt_count(cx, c, i);
  if (n <= 0)
    return n;
  return e > 0 && n % e == 0 ? nns__cmul(c, n / e, unpack) : -1;
}

/*
 * MoE and QMoE (docs/metrics.md): each of the `rows` tokens (input [rows,
 * hidden] or [B, S, hidden]) goes through k of the E experts: fc1 (and
 * fc3 beside it), the activation on the intermediate elements, fc2; the
 * router's softmax over E (5 per expert) picks them, and the k outputs
 * are summed with their weights (2 FLOPs per element each). MACs per
 * token k * the elements of one expert's fc1, fc2 and fc3 (unpacked: QMoE
 * stores 8 / expert_weight_bits weights per byte). DMAs every input read once
 * and Y written.
 * `w` the inputs of fc1, fc2, fc3 weights; `unpack` weights per element.
 */
static nns_status moe_cost_at(nns__ictx *cx, nns__cost *c, const int w[3],
                              int64_t unpack) {
  const nns__type *x = nns__in_type(cx, 0), *r = nns__in_type(cx, 1);
  int64_t nx = nns__in_count(cx, c, 0), y = nns__out_count(cx, c, 0);
  int64_t topk = nns__attr_int(cx, "k");
  int64_t act = moe_act_flops(nns__attr_str(cx, "activation_type"));
  if (!x || x->rank < 2 || !r || r->rank < 1 || nx < 0 || y < 0 ||
      topk < 1 || act < 0)
    return NNS__UNCOUNTED;
  int64_t hidden = nns__dim_count(c, x->dims[x->rank - 1], cx->m);
  int64_t e = nns__dim_count(c, r->dims[r->rank - 1], cx->m);
  if (hidden < 1 || e < 1)
    return NNS__UNCOUNTED;
  int64_t rows = nx / hidden, per[3];
  for (int i = 0; i < 3; i++)
    if ((per[i] = expert_matrix(cx, c, w[i], e, unpack)) < 0)
      return NNS__UNCOUNTED;
  /* the activation's elements per token: fc2's inputs (inter) */
  int64_t inter = per[1] / hidden;
  int64_t tok = nns__cmul(c, rows, topk);
  nns__cost part = {0};
  c->macs = c->flops = 0;
  for (int i = 0; i < 3; i++) {
    int64_t outs = i == 1 ? hidden : per[i] / hidden;
    memset(&part, 0, sizeof part);
    nns__matmul_cost(&part, nns__cmul(c, tok, outs), outs ? per[i] / outs : 0,
                     0, 0);
    c->macs = nns__cadd(c, c->macs, part.macs);
    c->flops = nns__cadd(c, c->flops, part.flops);
    c->overflow |= part.overflow;
  }
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, nns__cmul(c, tok, inter),
                                              act));
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, nns__cmul(c, rows, e), 5));
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, nns__cmul(c, tok, hidden),
                                              2));
  c->dmas = y;
  for (int i = 0; i < nns__n_in(cx); i++)
    if (!add_input(cx, c, i))
      return NNS__UNCOUNTED;
  if (nns__attr_int(cx, "use_sparse_mixer"))
    c->approx = "use_sparse_mixer's routing is counted as a softmax over the "
                "experts";
  return NNS_OK;
}

static nns_status moe_cost(nns__ictx *cx, nns__cost *c) {
  static const int w[3] = {2, 4, 6};
  return moe_cost_at(cx, c, w, 1);
}

/* QMoE: input, router_probs, then per fc weights, scales, bias. */
static nns_status qmoe_cost(nns__ictx *cx, nns__cost *c) {
  static const int w[3] = {2, 5, 8};
  int64_t bits = nns__attr_int(cx, "expert_weight_bits");
  if (bits != 4 && bits != 8 && bits != 2)
    return NNS__UNCOUNTED;
  return moe_cost_at(cx, c, w, 8 / bits);
}

/* ==== Table ==== */

static const nns__attr_spec fused_conv_attrs[] = {
    NNS__A_OPT("activation", STRING), NNS__A_OPT("activation_params", FLOATS),
    NNS__A_STR("auto_pad", "NOTSET"), NNS__A_OPT("dilations", INTS),
    NNS__A_INT("group", 1),           NNS__A_OPT("kernel_shape", INTS),
    NNS__A_OPT("pads", INTS),         NNS__A_OPT("strides", INTS),
    NNS__A_END};
static const nns__attr_spec fused_matmul_attrs[] = {
    NNS__A_FLOAT("alpha", 1.0),   NNS__A_INT("transA", 0),
    NNS__A_INT("transB", 0),      NNS__A_INT("transBatchA", 0),
    NNS__A_INT("transBatchB", 0), NNS__A_END};
static const nns__attr_spec quick_gelu_attrs[] = {NNS__A_FLOAT("alpha", 1.702),
                                                  NNS__A_END};
static const nns__attr_spec layer_norm_attrs[] = {
    NNS__A_INT("axis", -1), NNS__A_FLOAT("epsilon", 1e-5),
    NNS__A_INT("stash_type", 1), NNS__A_END};
static const nns__attr_spec skip_layer_norm_attrs[] = {
    NNS__A_FLOAT("epsilon", 1e-12), NNS__A_END};
static const nns__attr_spec attention_attrs[] = {
    NNS__A_INT("do_rotary", 0),
    NNS__A_OPT("mask_filter_value", FLOAT),
    NNS__A_REQ("num_heads", INT),
    NNS__A_INT("past_present_share_buffer", 0),
    NNS__A_OPT("qkv_hidden_sizes", INTS),
    NNS__A_OPT("scale", FLOAT),
    NNS__A_INT("unidirectional", 0),
    NNS__A_END};
static const nns__attr_spec mha_attrs[] = {
    NNS__A_OPT("mask_filter_value", FLOAT), NNS__A_REQ("num_heads", INT),
    NNS__A_OPT("scale", FLOAT), NNS__A_INT("unidirectional", 0), NNS__A_END};

static const nns__attr_spec simplified_ln_attrs[] = {
    NNS__A_INT("axis", -1), NNS__A_FLOAT("epsilon", 1e-5),
    NNS__A_INT("stash_type", 1), NNS__A_END};
static const nns__attr_spec rotary_attrs[] = {
    NNS__A_INT("interleaved", 0), NNS__A_INT("is_packed_batching", 0),
    NNS__A_INT("num_heads", 0), NNS__A_INT("rotary_embedding_dim", 0),
    NNS__A_FLOAT("scale", 1.0), NNS__A_END};
static const nns__attr_spec gqa_attrs[] = {
    NNS__A_INT("causal", 1),
    NNS__A_INT("do_rotary", 0),
    NNS__A_OPT("k_quant_type", STRING),
    NNS__A_OPT("kv_cache_bit_width", INT),
    NNS__A_REQ("kv_num_heads", INT),
    NNS__A_INT("local_window_size", -1),
    NNS__A_REQ("num_heads", INT),
    NNS__A_FLOAT("qk_norm_epsilon", 1e-6),
    NNS__A_INT("qk_output", 0),
    NNS__A_INT("rotary_interleaved", 0),
    NNS__A_OPT("scale", FLOAT),
    NNS__A_INT("sliding_window_cache", 0),
    NNS__A_INT("smooth_softmax", 0),
    NNS__A_FLOAT("softcap", 0.0),
    NNS__A_OPT("v_quant_type", STRING),
    NNS__A_END};
static const nns__attr_spec matmul_nbits_attrs[] = {
    NNS__A_REQ("K", INT),           NNS__A_REQ("N", INT),
    NNS__A_INT("accuracy_level", 0), NNS__A_INT("bits", 4),
    NNS__A_REQ("block_size", INT),  NNS__A_INT("weight_prepacked", 0),
    NNS__A_END};
#define MOE_ATTRS                                                              \
  NNS__A_OPT("activation_alpha", FLOAT), NNS__A_OPT("activation_beta", FLOAT), \
      NNS__A_STR("activation_type", "relu"), NNS__A_INT("k", 1),               \
      NNS__A_INT("normalize_routing_weights", 0),                              \
      NNS__A_INT("swiglu_fusion", 0), NNS__A_OPT("swiglu_limit", FLOAT),       \
      NNS__A_INT("use_sparse_mixer", 0)
static const nns__attr_spec moe_attrs[] = {MOE_ATTRS, NNS__A_END};
static const nns__attr_spec qmoe_attrs[] = {
    MOE_ATTRS, NNS__A_INT("block_size", 0),
    NNS__A_INT("expert_weight_bits", 4), NNS__A_END};

#define MS "com.microsoft"

const nns__op nns__ops_msft[] = {
    {MS, "FusedConv", 1, 1, "awba", fused_conv_attrs,
     nns__conv_shape_rule, NULL, .cost = fused_conv_cost,
     .rf = nns__conv_rf_rule,
     .rf_parts = true, .matrix = true},
    {MS, "FusedMatMul", 1, 1, "aw", fused_matmul_attrs, fused_matmul_shape,
     NULL, .cost = fused_matmul_cost, .matrix = true},
    {MS, "Gelu", 1, 1, "a", NULL, same_shape, NULL, .cost = gelu_cost},
    {MS, "FastGelu", 1, 1, "ab", NULL, bias_shape, NULL, .cost = gelu_cost},
    {MS, "BiasGelu", 1, 1, "ab", NULL, bias_shape, NULL, .cost = gelu_cost},
    {MS, "QuickGelu", 1, 1, "a", quick_gelu_attrs, same_shape, NULL,
     .cost = quick_gelu_cost},
    {MS, "LayerNormalization", 1, 1, "awb", layer_norm_attrs,
     layer_norm_shape, NULL, .cost = layer_norm_cost},
    {MS, "SkipLayerNormalization", 1, 1, "aawbb", skip_layer_norm_attrs,
     skip_layer_norm_shape, NULL, .cost = skip_layer_norm_cost},
    {MS, "Attention", 1, 1, "awbcaaac", attention_attrs, attention_shape,
     NULL, .cost = attention_cost, .matrix = true},
    {MS, "MultiHeadAttention", 1, 1, "aaabcaaa", mha_attrs, mha_shape, NULL,
     .cost = mha_cost, .matrix = true},
    /* ONNX Runtime registers SimplifiedLayerNormalization in the ONNX
     * domain, where GenAI's exporter writes it; the contrib domain too. */
    {"", "SimplifiedLayerNormalization", 1, NNS__OPSET_MAX, "aw",
     simplified_ln_attrs, layer_norm_shape, NULL,
     .cost = simplified_ln_cost},
    {MS, "SimplifiedLayerNormalization", 1, 1, "aw", simplified_ln_attrs,
     layer_norm_shape, NULL, .cost = simplified_ln_cost},
    {MS, "SkipSimplifiedLayerNormalization", 1, 1, "aawb",
     skip_layer_norm_attrs, skip_simplified_shape, NULL,
     .cost = skip_simplified_cost},
    {MS, "RotaryEmbedding", 1, 1, "accc", rotary_attrs, same_shape, NULL,
     .cost = rotary_cost},
    {MS, "GroupQueryAttention", 1, 1, "aaaaacccccawccww", gqa_attrs,
     gqa_shape, NULL, .cost = gqa_cost, .matrix = true},
    {MS, "MatMulNBits", 1, 1, "awwwcb", matmul_nbits_attrs,
     matmul_nbits_shape, NULL, .cost = matmul_nbits_cost, .matrix = true,
     .packed_mask = 1u << 1, .packed_bits = "bits"},
    {MS, "MoE", 1, 1, "aawbwbwb", moe_attrs, same_shape, NULL,
     .cost = moe_cost, .matrix = true},
    {MS, "QMoE", 1, 1, "aawwbwwbwwbccc", qmoe_attrs, same_shape, NULL,
     .cost = qmoe_cost, .matrix = true,
     .packed_mask = 1u << 2 | 1u << 5 | 1u << 8,
     .packed_bits = "expert_weight_bits"},
    NNS__OP_END,
};
