/*
 * gemm.c - operator family "gemm": Gemm, MatMul (numpy matmul semantics:
 * 1-D operands, broadcast batch dims), its quantized forms MatMulInteger
 * and QLinearMatMul, and Einsum (the equation is parsed: explicit and
 * implicit outputs, ellipsis broadcasting, repeated letters).
 *
 * Inner dims that differ while both are known fail the node: that is the
 * mistake a reader of a broken export most needs pointed out.
 *
 * Costs (docs/metrics.md rows Gemm and MatMul): numel(Y) dot products of
 * length K, so MACs numel(Y)*K and FLOPs numel(Y)*(2K - 1), plus Gemm's
 * terms for C, alpha and beta; DMAs every input and output once. A dense
 * layer sees its whole input (receptive field), except a MatMul applied per
 * position (A of rank >= 3 times a 2-D B: a Linear over channels-last
 * features or tokens), which keeps its input's field as torchscan's Linear
 * does.
 */
#include <string.h>

#include "dot.h"
#include "rf_axes.h"
#include "window.h"

/* ==== Helpers ==== */

static bool is_one(nns__dim d) { return !d.sym && d.v == 1; }

/* Message text of a dim. */
static const char *dstr(nns__ictx *cx, nns__dim d, char *buf, size_t n) {
  return nns__dim_str(cx->m, d, buf, n);
}

/* Fails when X and W are both known and of different element types (for
 * ops whose operands share the type T). */
static nns_status same_dtype(nns__ictx *cx, int a, int b) {
  int32_t da = nns__in_dtype(cx, a), db = nns__in_dtype(cx, b);
  if (da && db && da != db)
    return nns__fail(cx, NNS_E_TYPE, "operands are %s and %s",
                     nns_dtype_name(da), nns_dtype_name(db));
  return NNS_OK;
}

/* ==== Gemm ==== */

/*
 * Y[M, N] = alpha * A'[M, K] * B'[K, N] + beta * C, A' and B' optionally
 * transposed. C broadcasts to [M, N] one way only, so a known C dim other
 * than 1 also tells an unknown M or N.
 */
static nns_status gemm_shape(nns__ictx *cx) {
  const nns__type *ta = nns__in_type(cx, 0), *tb = nns__in_type(cx, 1);
  const nns__type *tc = nns__in_type(cx, 2);
  nns_status st = same_dtype(cx, 0, 1);
  if (st != NNS_OK)
    return st;
  if (ta && ta->rank >= 0 && ta->rank != 2)
    return nns__fail(cx, NNS_E_SHAPE, "A has rank %d, expected 2", ta->rank);
  if (tb && tb->rank >= 0 && tb->rank != 2)
    return nns__fail(cx, NNS_E_SHAPE, "B has rank %d, expected 2", tb->rank);
  bool ka = ta && ta->rank == 2, kb = tb && tb->rank == 2;
  int ia = nns__attr_int(cx, "transA") ? 1 : 0;
  int ib = nns__attr_int(cx, "transB") ? 1 : 0;
  nns__dim m = ka ? ta->dims[ia] : nns__fresh(cx);
  nns__dim n = kb ? tb->dims[1 - ib] : nns__fresh(cx);
  if (ka && kb) {
    nns__dim k1 = ta->dims[1 - ia], k2 = tb->dims[ib];
    if (!k1.sym && !k2.sym && k1.v != k2.v)
      return nns__fail(cx, NNS_E_SHAPE,
                       "inner dims differ: A' is [M, %lld] and B' is "
                       "[%lld, N] (transA %d, transB %d)", (long long)k1.v,
                       (long long)k2.v, ia, ib);
  }
  if (tc && tc->rank >= 0) {
    if (tc->rank > 2)
      return nns__fail(cx, NNS_E_SHAPE, "C has rank %d, expected at most 2",
                       tc->rank);
    nns__dim *target[2] = {&m, &n};
    for (int32_t k = 0; k < tc->rank; k++) {
      nns__dim c = tc->dims[k], *t = target[k + 2 - tc->rank];
      char b1[32], b2[32];
      if (c.sym || c.v == 1 || nns__dim_eq(c, *t))
        continue;
      if (!t->sym)
        return nns__fail(cx, NNS_E_SHAPE,
                         "C dim %d is %s; it must be 1 or %s to broadcast to "
                         "Y", k, dstr(cx, c, b1, sizeof b1),
                         dstr(cx, *t, b2, sizeof b2));
      *t = c;
    }
  }
  int32_t dt = nns__in_dtype(cx, 0);
  nns__dim *y = nns__out_shape(cx, 0, dt ? dt : nns__in_dtype(cx, 1), 2);
  if (y) {
    y[0] = m;
    y[1] = n;
  }
  return NNS_OK;
}

/* ==== MatMul ==== */

/* numpy matmul of inputs a and b into output 0 with the given dtype. */
static nns_status matmul_rule(nns__ictx *cx, int a, int b, int32_t dtype) {
  const nns__type *ta = nns__in_type(cx, a), *tb = nns__in_type(cx, b);
  if (!ta || !tb || ta->rank < 0 || tb->rank < 0) {
    nns__out_shape(cx, 0, dtype, -1);
    return NNS_OK;
  }
  int32_t ra = ta->rank, rb = tb->rank;
  if (ra == 0 || rb == 0)
    return nns__fail(cx, NNS_E_SHAPE, "operand ranks are %d and %d; MatMul "
                     "needs rank >= 1", ra, rb);
  /* A 1-D A is a row [1, K], a 1-D B a column [K, 1]; those 1s are dropped
   * from the result. */
  nns__dim ka = ta->dims[ra - 1], kb = tb->dims[rb >= 2 ? rb - 2 : 0];
  if (!ka.sym && !kb.sym && ka.v != kb.v)
    return nns__fail(cx, NNS_E_SHAPE,
                     "inner dims differ: A is [..., %lld] and B is [..., "
                     "%lld, N] (ranks %d and %d)", (long long)ka.v,
                     (long long)kb.v, ra, rb);
  int32_t na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0, rbatch;
  nns__dim *batch;
  nns_status st = nns__broadcast_shapes(cx, na, ta->dims, nb, tb->dims,
                                        &rbatch, &batch);
  if (st != NNS_OK)
    return st;
  int32_t rank = rbatch + (ra >= 2) + (rb >= 2);
  nns__dim *y = nns__out_dims(cx, 0, dtype, rank); /* all set below */
  if (!y)
    return NNS_OK;
  memcpy(y, batch, (size_t)rbatch * sizeof *y);
  int32_t k = rbatch;
  if (ra >= 2)
    y[k++] = ta->dims[ra - 2];
  if (rb >= 2)
    y[k++] = tb->dims[rb - 1];
  return NNS_OK;
}

static nns_status matmul_shape(nns__ictx *cx) {
  nns_status st = same_dtype(cx, 0, 1);
  if (st != NNS_OK)
    return st;
  int32_t dt = nns__in_dtype(cx, 0);
  return matmul_rule(cx, 0, 1, dt ? dt : nns__in_dtype(cx, 1));
}

/* MatMulInteger: A, B, a_zero_point, b_zero_point; int32 result. */
static nns_status matmul_integer_shape(nns__ictx *cx) {
  return matmul_rule(cx, 0, 1, NNS_DT_INT32);
}

/* QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point,
 * y_scale, y_zero_point; the result has y_zero_point's type. */
static nns_status qlinear_matmul_shape(nns__ictx *cx) {
  return matmul_rule(cx, 0, 3, nns__in_dtype(cx, 7));
}

/* ==== Gemm and MatMul costs ==== */

/* The reduced dim K: `a`'s dim ka, or `b`'s dim kb when ka is symbolic. */
static int64_t inner_dim(nns__ictx *cx, nns__cost *c, const nns__type *ta,
                         int32_t ka, const nns__type *tb, int32_t kb) {
  nns__dim k = ta->dims[ka];
  if (k.sym && tb && kb >= 0 && kb < tb->rank && !tb->dims[kb].sym)
    k = tb->dims[kb];
  return nns__dim_count(c, k, cx->m);
}

/* numel(Y) dot products of length K (dot.h's nns__matmul_cost): MACs y*K,
 * FLOPs y*(2K - 1); DMAs operands a and b, every other input (C, scales,
 * zero points) and Y once. */
static nns_status dot_cost(nns__ictx *cx, nns__cost *c, int a, int b,
                           int64_t y, int64_t k) {
  int64_t na = nns__in_count(cx, c, a), nb = nns__in_count(cx, c, b);
  if (na < 0 || nb < 0)
    return NNS__UNCOUNTED;
  nns__matmul_cost(c, y, k, na, nb);
  for (int i = 0; i < nns__n_in(cx); i++) {
    if (i == a || i == b || !nns__has_in(cx, i))
      continue;
    int64_t n = nns__in_count(cx, c, i);
    if (n < 0)
      return NNS__UNCOUNTED;
    c->dmas = nns__cadd(c, c->dmas, n);
  }
  return NNS_OK;
}

/* + M*N for C, for alpha != 1 and for beta != 1 (with C). */
static nns_status gemm_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *ta = nns__in_type(cx, 0), *tb = nns__in_type(cx, 1);
  int64_t y = nns__out_count(cx, c, 0);
  if (!ta || ta->rank != 2 || y < 0)
    return NNS__UNCOUNTED;
  int ia = nns__attr_int(cx, "transA") ? 1 : 0;
  int ib = nns__attr_int(cx, "transB") ? 1 : 0;
  int64_t k = inner_dim(cx, c, ta, 1 - ia, tb && tb->rank == 2 ? tb : NULL,
                        ib);
  if (dot_cost(cx, c, 0, 1, y, k) != NNS_OK)
    return NNS__UNCOUNTED;
  bool has_c = nns__has_in(cx, 2);
  int64_t terms = (has_c ? 1 : 0) + (nns__attr_float(cx, "alpha") != 1.0) +
                  (has_c && nns__attr_float(cx, "beta") != 1.0);
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, terms, y));
  return NNS_OK;
}

/*
 * numpy matmul of inputs a and b: numel(Y) = batch*M*N whatever the ranks
 * (a 1-D operand's dropped 1 and broadcast batch dims included), so MACs
 * numel(Y)*K. The quantized forms add, in FLOPs, a subtraction per element
 * of each operand whose zero point is given (za, zb: input indexes, or -1)
 * and, for QLinearMatMul, two operations per output to requantize.
 */
static nns_status matmul_cost_rule(nns__ictx *cx, nns__cost *c, int a, int b,
                                   int za, int zb, bool requant) {
  const nns__type *ta = nns__in_type(cx, a), *tb = nns__in_type(cx, b);
  int64_t y = nns__out_count(cx, c, 0);
  if (!ta || ta->rank < 1 || !tb || tb->rank < 1 || y < 0)
    return NNS__UNCOUNTED;
  int64_t k = inner_dim(cx, c, ta, ta->rank - 1, tb,
                        tb->rank >= 2 ? tb->rank - 2 : 0);
  if (dot_cost(cx, c, a, b, y, k) != NNS_OK)
    return NNS__UNCOUNTED;
  if (za >= 0 && nns__has_in(cx, za))
    c->flops = nns__cadd(c, c->flops, nns__in_count(cx, c, a));
  if (zb >= 0 && nns__has_in(cx, zb))
    c->flops = nns__cadd(c, c->flops, nns__in_count(cx, c, b));
  if (requant)
    c->flops = nns__cadd(c, c->flops, nns__cmul(c, 2, y));
  return NNS_OK;
}

static nns_status matmul_cost(nns__ictx *cx, nns__cost *c) {
  return matmul_cost_rule(cx, c, 0, 1, -1, -1, false);
}
/* MatMulInteger: A, B, a_zero_point, b_zero_point. */
static nns_status matmul_integer_cost(nns__ictx *cx, nns__cost *c) {
  return matmul_cost_rule(cx, c, 0, 1, 2, 3, false);
}
/* QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point, ... */
static nns_status qlinear_matmul_cost(nns__ictx *cx, nns__cost *c) {
  return matmul_cost_rule(cx, c, 0, 3, 2, 5, true);
}

/* Receptive field of a MatMul of operands a and b (see the file header):
 * by a weight, a per-position dense layer ([.., K] by a 2-D [K, N]) keeps
 * the field of a's other dims, unless K itself is a spatial dim (a dense
 * layer over space). A product of two activations (attention) sums b over
 * its dim -2: nns__rf_attend says what that does to each axis there. Any
 * other product sees the whole input. */
static nns_status matmul_rf_rule(nns__ictx *cx, int a, int b,
                                 const nns__rf *in, nns__rf *out) {
  int32_t ra = nns__in_rank(cx, a), rb = nns__in_rank(cx, b);
  const nns__rf *fb = b < cx->n_rf_in && cx->rf_in ? cx->rf_in[b] : NULL;
  bool k_spatial = nns__rf_axis_at(in, ra - 1) >= 0;
  if (fb && ra >= 2 && rb >= 2 && !k_spatial) {
    nns__rf_attend(cx->rf_pool, in, fb, rb - 2, out);
    return NNS_OK;
  }
  if (!fb && ra >= 2 && rb == 2 && !k_spatial) {
    *out = *in;
    return NNS_OK;
  }
  return nns__rf_whole(cx, in, out);
}

static nns_status matmul_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  return matmul_rf_rule(cx, 0, 1, in, out);
}
static nns_status qlinear_matmul_rf(nns__ictx *cx, const nns__rf *in,
                                    nns__rf *out) {
  return matmul_rf_rule(cx, 0, 3, in, out);
}

/* ==== Einsum ==== */

enum { N_LETTERS = 52, EIN_MAX_TERM = 128 };

/* A parsed term: its letters as indexes 0..51, and where "..." sits. */
typedef struct ein_term {
  int32_t n;                  /* letters */
  uint8_t letter[EIN_MAX_TERM];
  int32_t ell;                /* letters before "...", or -1 without one */
} ein_term;

static int letter_index(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A'; /* ASCII order: uppercase sorts first */
  if (c >= 'a' && c <= 'z')
    return 26 + (c - 'a');
  return -1;
}

static char letter_char(int i) {
  return (char)(i < 26 ? 'A' + i : 'a' + (i - 26));
}

/* Parses [s, end) as one term; fails the node on anything else. */
static nns_status parse_term(nns__ictx *cx, const char *s, const char *end,
                             ein_term *t) {
  t->n = 0;
  t->ell = -1;
  for (const char *p = s; p < end;) {
    if (*p == ' ') {
      p++;
      continue;
    }
    if (*p == '.') {
      if (end - p < 3 || p[1] != '.' || p[2] != '.' || t->ell >= 0)
        return nns__fail(cx, NNS_E_ATTR, "equation: a term has a stray '.' "
                         "or more than one '...'");
      t->ell = t->n;
      p += 3;
      continue;
    }
    int li = letter_index(*p);
    if (li < 0)
      return nns__fail(cx, NNS_E_ATTR, "equation: unexpected character '%c'",
                       *p);
    if (t->n >= EIN_MAX_TERM)
      return nns__fail(cx, NNS_E_LIMIT, "equation: a term has more than %d "
                       "letters", EIN_MAX_TERM);
    t->letter[t->n++] = (uint8_t)li;
    p++;
  }
  return NNS_OK;
}

/* Size of a letter seen twice: equal, or one of them 1 (numpy broadcasts
 * a size-1 axis), or known beats symbolic. */
static nns_status merge_letter(nns__ictx *cx, int li, nns__dim *have,
                               nns__dim d) {
  if (nns__dim_eq(*have, d) || is_one(d))
    return NNS_OK;
  if (is_one(*have) || (have->sym && !d.sym)) {
    *have = d;
    return NNS_OK;
  }
  if (!have->sym && !d.sym)
    return nns__fail(cx, NNS_E_SHAPE, "equation: letter '%c' is %lld in one "
                     "place and %lld in another", letter_char(li),
                     (long long)have->v, (long long)d.v);
  if (have->sym && d.sym)
    *have = nns__fresh(cx); /* two symbols that must agree: unknown which */
  return NNS_OK;
}

static nns_status einsum_shape(nns__ictx *cx) {
  const char *eq = nns__attr_str(cx, "equation");
  int32_t dt = nns__in_dtype(cx, 0);
  const char *arrow = strstr(eq, "->");
  const char *lhs_end = arrow ? arrow : eq + strlen(eq);
  if (arrow && strstr(arrow + 2, "->"))
    return nns__fail(cx, NNS_E_ATTR, "equation '%s' has two '->'", eq);
  nns__dim dims[N_LETTERS];
  bool seen[N_LETTERS] = {false};
  int32_t count[N_LETTERS] = {0};
  /* The broadcast of every input's "..." dims; unknown if any input with
   * "..." has an unknown rank. */
  int32_t ell_rank = 0;
  nns__dim *ell_dims = NULL;
  bool ell_known = true, any_ell = false;
  int n_in = nns__n_in(cx), term = 0;
  for (const char *s = eq; s <= lhs_end; term++) {
    const char *e = s;
    while (e < lhs_end && *e != ',')
      e++;
    if (term >= n_in)
      return nns__fail(cx, NNS_E_ATTR, "equation '%s' has more terms than "
                       "the %d inputs", eq, n_in);
    ein_term t;
    nns_status st = parse_term(cx, s, e, &t);
    if (st != NNS_OK)
      return st;
    const nns__type *ti = nns__in_type(cx, term);
    int32_t rank = ti ? ti->rank : -1;
    int32_t n_ell = rank >= 0 ? rank - t.n : -1;
    if (rank >= 0 && (t.ell >= 0 ? n_ell < 0 : n_ell != 0))
      return nns__fail(cx, NNS_E_SHAPE, "equation term %d has %d letters%s "
                       "but input %d has rank %d", term, t.n,
                       t.ell >= 0 ? " and '...'" : "", term, rank);
    for (int32_t k = 0; k < t.n; k++) {
      int li = t.letter[k];
      count[li]++;
      if (rank < 0)
        continue;
      int32_t pos = t.ell >= 0 && k >= t.ell ? k + n_ell : k;
      nns__dim d = ti->dims[pos];
      if (!seen[li]) {
        dims[li] = d;
        seen[li] = true;
      } else if ((st = merge_letter(cx, li, &dims[li], d)) != NNS_OK) {
        return st;
      }
    }
    if (t.ell >= 0) {
      any_ell = true;
      if (rank < 0)
        ell_known = false;
      else if (ell_known &&
               (st = nns__broadcast_shapes(cx, ell_rank, ell_dims, n_ell,
                                           ti->dims + t.ell, &ell_rank,
                                           &ell_dims)) != NNS_OK)
        return st;
    }
    s = e + 1;
  }
  if (term != n_in)
    return nns__fail(cx, NNS_E_ATTR, "equation '%s' has %d terms but the "
                     "node has %d inputs", eq, term, n_in);
  /* The output term: explicit, or the "..." dims then every letter used
   * exactly once, in ASCII order. */
  ein_term out;
  if (arrow) {
    nns_status st = parse_term(cx, arrow + 2, arrow + strlen(arrow), &out);
    if (st != NNS_OK)
      return st;
    bool used[N_LETTERS] = {false};
    for (int32_t k = 0; k < out.n; k++) {
      int li = out.letter[k];
      if (!count[li] || used[li])
        return nns__fail(cx, NNS_E_ATTR, "equation '%s': output letter '%c' "
                         "is %s", eq, letter_char(li),
                         used[li] ? "repeated" : "not in any input");
      used[li] = true;
    }
  } else {
    out.n = 0;
    out.ell = any_ell ? 0 : -1;
    for (int li = 0; li < N_LETTERS; li++)
      if (count[li] == 1)
        out.letter[out.n++] = (uint8_t)li;
  }
  if (out.ell >= 0 && !ell_known) {
    nns__out_shape(cx, 0, dt, -1);
    return NNS_OK;
  }
  int32_t n_ell = out.ell >= 0 ? ell_rank : 0;
  nns__dim *y = nns__out_shape(cx, 0, dt, out.n + n_ell);
  for (int32_t k = 0, o = 0; y && k <= out.n; k++) {
    if (k == out.ell)
      for (int32_t j = 0; j < n_ell; j++)
        y[o++] = ell_dims[j];
    if (k < out.n && seen[out.letter[k]])
      y[o] = dims[out.letter[k]];
    o += k < out.n;
  }
  return NNS_OK;
}

/*
 * Einsum's cost is its naive loop nest: one iteration per point of the
 * space of every distinct letter (and broadcast "..." dim), P points in
 * all. With n operands each point multiplies n - 1 times. When something is
 * summed (a letter absent from the output), every product is accumulated:
 * MACs P*(n - 1) and FLOPs P*(n - 1) + (P - numel(Y)) adds, so a matrix
 * product costs exactly what MatMul does; a single operand summed (a trace,
 * a row sum) is a reduction, P FLOPs as ReduceSum counts numel(X). Nothing
 * summed (outer or element-wise products, transposes): MACs 0, FLOPs
 * P*(n - 1). DMAs every input and the output once.
 */
enum { EIN_MAX_ELL = 64 };

/* Keeps the most telling of two sizes of one letter: a known size other
 * than 1, else a known 1, else a symbol. */
static void best_dim(nns__dim *have, bool *seen, nns__dim d) {
  if (!*seen || (have->sym && !d.sym) || (is_one(*have) && !d.sym))
    *have = d;
  *seen = true;
}

static nns_status einsum_cost(nns__ictx *cx, nns__cost *c) {
  const char *eq = nns__attr_str(cx, "equation");
  const char *arrow = strstr(eq, "->");
  const char *lhs_end = arrow ? arrow : eq + strlen(eq);
  nns__dim dims[N_LETTERS], ell[EIN_MAX_ELL]; /* ell right-aligned */
  bool seen[N_LETTERS] = {false}, ell_seen[EIN_MAX_ELL] = {false};
  int32_t count[N_LETTERS] = {0}, ell_rank = 0;
  int n_in = nns__n_in(cx), term = 0;
  for (const char *s = eq; s <= lhs_end; term++) {
    const char *e = s;
    while (e < lhs_end && *e != ',')
      e++;
    ein_term t;
    const nns__type *ti = nns__in_type(cx, term);
    if (term >= n_in || parse_term(cx, s, e, &t) != NNS_OK || !ti ||
        ti->rank < 0)
      return NNS__UNCOUNTED;
    int32_t n_ell = ti->rank - t.n;
    if (t.ell >= 0 ? (n_ell < 0 || n_ell > EIN_MAX_ELL) : n_ell != 0)
      return NNS__UNCOUNTED;
    for (int32_t k = 0; k < t.n; k++) {
      int li = t.letter[k];
      count[li]++;
      best_dim(&dims[li], &seen[li],
               ti->dims[t.ell >= 0 && k >= t.ell ? k + n_ell : k]);
    }
    for (int32_t k = 0; t.ell >= 0 && k < n_ell; k++)
      best_dim(&ell[k], &ell_seen[k], ti->dims[t.ell + n_ell - 1 - k]);
    if (t.ell >= 0 && n_ell > ell_rank)
      ell_rank = n_ell;
    s = e + 1;
  }
  if (term != n_in)
    return NNS__UNCOUNTED;
  /* Summed: an input letter the output lacks, or "..." dims the explicit
   * output drops. */
  bool summed = false;
  if (arrow) {
    ein_term out;
    if (parse_term(cx, arrow + 2, arrow + strlen(arrow), &out) != NNS_OK)
      return NNS__UNCOUNTED;
    bool in_out[N_LETTERS] = {false};
    for (int32_t k = 0; k < out.n; k++)
      in_out[out.letter[k]] = true;
    for (int li = 0; li < N_LETTERS; li++)
      summed = summed || (count[li] && !in_out[li]);
    summed = summed || (out.ell < 0 && ell_rank > 0);
  } else {
    for (int li = 0; li < N_LETTERS; li++)
      summed = summed || count[li] > 1;
  }
  int64_t p = 1, y = nns__out_count(cx, c, 0);
  for (int li = 0; li < N_LETTERS; li++)
    if (seen[li])
      p = nns__cmul(c, p, nns__dim_count(c, dims[li], cx->m));
  for (int32_t k = 0; k < ell_rank; k++)
    p = nns__cmul(c, p, nns__dim_count(c, ell[k], cx->m));
  if (y < 0 || nns__cost_move(cx, c) != NNS_OK)
    return NNS__UNCOUNTED;
  int64_t products = nns__cmul(c, p, n_in - 1);
  c->macs = summed ? products : 0;
  c->flops = products;
  if (summed)
    c->flops = nns__cadd(c, c->flops, n_in > 1 ? (p > y ? p - y : 0) : p);
  return NNS_OK;
}

/* ==== Entries ==== */

static const nns__attr_spec gemm1_attrs[] = {
    NNS__A_FLOAT("alpha", 1.0), NNS__A_FLOAT("beta", 1.0),
    NNS__A_INT("broadcast", 0), NNS__A_INT("transA", 0),
    NNS__A_INT("transB", 0),    NNS__A_END};
static const nns__attr_spec gemm7_attrs[] = {
    NNS__A_FLOAT("alpha", 1.0), NNS__A_FLOAT("beta", 1.0),
    NNS__A_INT("transA", 0), NNS__A_INT("transB", 0), NNS__A_END};
/* ==== Attention (opset 23) ==== */

/*
 * The sizes of one Attention node: Q [B, q_heads, S, head] or [B, S,
 * q_heads * head] (q_num_heads says the split), K [B, kv_heads, L, head] or
 * [B, L, kv_heads * head], V likewise with v_head, past_key/past_value
 * [B, kv_heads, P, ...]; T = P + L keys in all. Query heads share
 * key/value heads in groups of q_heads / kv_heads (GQA).
 */
typedef struct attn_dims {
  nns__dim b, hq, s, hk;   /* batch, query heads, queries, Q/K head size */
  nns__dim hkv, l, hv, t;  /* key/value heads, new keys, V head size, all keys */
  int32_t q_rank;          /* 3 or 4: Y takes Q's layout */
} attn_dims;

/* Heads from an attribute for a 3-D input, whose last dim they split. */
static nns_status attn_split(nns__ictx *cx, const nns__type *t,
                             const char *heads_attr, nns__dim *heads,
                             nns__dim *head) {
  int64_t h = nns__attr_int(cx, heads_attr);
  if (h < 1)
    return nns__fail(cx, NNS_E_ATTR, "3-D inputs need %s >= 1 (it is %lld)",
                     heads_attr, (long long)h);
  nns__dim w = t->dims[2];
  if (!w.sym && w.v % h != 0)
    return nns__fail(cx, NNS_E_SHAPE, "hidden size %lld does not split into "
                     "%s %lld", (long long)w.v, heads_attr, (long long)h);
  *heads = nns__dim_known(h);
  *head = nns__div(cx, w, *heads);
  return NNS_OK;
}

/* Fills *d from the inputs; NNS__UNCOUNTED (no error) when Q, K or V has
 * an unknown rank. */
static nns_status attn_read(nns__ictx *cx, attn_dims *d) {
  const nns__type *q = nns__in_type(cx, 0), *k = nns__in_type(cx, 1),
                  *v = nns__in_type(cx, 2), *pk = nns__in_type(cx, 4);
  if (!q || !k || !v || q->rank < 0 || k->rank < 0 || v->rank < 0)
    return NNS__UNCOUNTED;
  if ((q->rank != 3 && q->rank != 4) || k->rank != q->rank ||
      v->rank != q->rank)
    return nns__fail(cx, NNS_E_SHAPE, "Q, K and V have ranks %d, %d, %d; "
                     "expected all 3 or all 4", q->rank, k->rank, v->rank);
  nns_status st = NNS_OK;
  d->q_rank = q->rank;
  d->b = q->dims[0];
  if (q->rank == 4) {
    d->hq = q->dims[1], d->s = q->dims[2], d->hk = q->dims[3];
    d->hkv = k->dims[1], d->l = k->dims[2], d->hv = v->dims[3];
  } else {
    nns__dim kh, vh;
    d->s = q->dims[1], d->l = k->dims[1];
    if ((st = attn_split(cx, q, "q_num_heads", &d->hq, &d->hk)) != NNS_OK ||
        (st = attn_split(cx, k, "kv_num_heads", &d->hkv, &kh)) != NNS_OK ||
        (st = attn_split(cx, v, "kv_num_heads", &d->hkv, &vh)) != NNS_OK)
      return st;
    d->hv = vh;
  }
  if (!d->hq.sym && !d->hkv.sym && (d->hkv.v < 1 || d->hq.v % d->hkv.v))
    return nns__fail(cx, NNS_E_SHAPE, "%lld query heads do not share %lld "
                     "key/value heads evenly", (long long)d->hq.v,
                     (long long)d->hkv.v);
  d->t = d->l;
  if (pk && pk->rank == 4)
    d->t = nns__add(cx, pk->dims[2], d->l);
  else if (nns__has_in(cx, 4) && (!pk || pk->rank >= 0))
    return nns__fail(cx, NNS_E_SHAPE, "past_key has rank %d; expected 4",
                     pk ? pk->rank : -1);
  return NNS_OK;
}

/*
 * Y is Q's layout with V's head size; present_key/present_value hold all
 * T keys [B, kv_heads, T, head]; qk_matmul_output the scores [B, q_heads,
 * S, T].
 */
static nns_status attention_shape(nns__ictx *cx) {
  int32_t dt = nns__in_dtype(cx, 0);
  attn_dims d;
  nns_status st = attn_read(cx, &d);
  if (st == NNS__UNCOUNTED) {
    for (int o = 0; o < nns__n_out(cx); o++)
      nns__out_shape(cx, o, o == 0 || o == 3 ? dt : nns__in_dtype(cx, o), -1);
    return NNS_OK;
  }
  if (st != NNS_OK)
    return st;
  nns__dim *y = nns__out_dims(cx, 0, dt, d.q_rank);
  if (y && d.q_rank == 4)
    y[0] = d.b, y[1] = d.hq, y[2] = d.s, y[3] = d.hv;
  else if (y)
    y[0] = d.b, y[1] = d.s, y[2] = nns__mul(cx, d.hq, d.hv);
  const nns__dim kv[2] = {d.hk, d.hv};
  for (int o = 1; o <= 2; o++) {
    nns__dim *p = nns__out_dims(cx, o, nns__in_dtype(cx, o), 4);
    if (p)
      p[0] = d.b, p[1] = d.hkv, p[2] = d.t, p[3] = kv[o - 1];
  }
  nns__dim *qk = nns__out_dims(cx, 3, dt, 4);
  if (qk)
    qk[0] = d.b, qk[1] = d.hq, qk[2] = d.s, qk[3] = d.t;
  return NNS_OK;
}

/*
 * Attention (docs/metrics.md): dense scaled dot-product attention of S
 * queries over all T keys (nns__sdpa_cost), each query head against its
 * key/value head: MACs B q_heads S T (head + v_head). A mask, is_causal
 * and softcap add per-score FLOPs (1, 1, 8: divide, Tanh's 6, multiply);
 * the mask and past are read, the present and qk outputs written.
 */
static nns_status attention_cost(nns__ictx *cx, nns__cost *c) {
  attn_dims d;
  if (attn_read(cx, &d) != NNS_OK)
    return NNS__UNCOUNTED;
  const nns_model *m = cx->m;
  int64_t b = nns__dim_count(c, d.b, m), hq = nns__dim_count(c, d.hq, m),
          s = nns__dim_count(c, d.s, m), hk = nns__dim_count(c, d.hk, m),
          hkv = nns__dim_count(c, d.hkv, m), hv = nns__dim_count(c, d.hv, m),
          t = nns__dim_count(c, d.t, m);
  int64_t per_score = (nns__has_in(cx, 3) ? 1 : 0) +
                      (nns__attr_int(cx, "is_causal") ? 1 : 0) +
                      (nns__attr_float(cx, "softcap") != 0.0 ? 8 : 0);
  *c = (nns__cost){.symbolic = c->symbolic, .overflow = c->overflow};
  nns__sdpa_cost(c, b, s, t, hq, nns__cmul(c, hq, hk), nns__cmul(c, hq, hv),
                 nns__cmul(c, hkv, hk), nns__cmul(c, hkv, hv), per_score);
  /* What is_causal (query i sees keys up to past + i, onnx's reference),
   * a known attn_mask and Attention-24's nonpad_kv_seqlen leave out. */
  nns__attn_pairs_in pin = {
      .b = b, .h = hq, .s = s, .t = t,
      .offset = nns__cadd(c, t, -nns__dim_count(c, d.l, m)),
      .causal = nns__attr_int(cx, "is_causal") != 0, .mask = 3,
      .lens = nns__n_in(cx) > 6 ? 6 : -1};
  int64_t allowed, rows;
  if (nns__attn_pairs(cx, &pin, &allowed, &rows))
    nns__attn_cut(c, nns__cmul(c, nns__cmul(c, b, hq), nns__cmul(c, s, t)),
                  allowed, nns__cmul(c, nns__cmul(c, b, hq), s), rows, hk, hv);
  else if (nns__has_in(cx, 3) || (pin.lens >= 0 && nns__has_in(cx, 6)))
    c->mask_unknown = true; /* a mask whose contents are not known */
  for (int i = 3; i <= 5; i++) {
    int64_t n = nns__has_in(cx, i) ? nns__in_count(cx, c, i) : 0;
    if (n < 0)
      return NNS__UNCOUNTED;
    c->dmas = nns__cadd(c, c->dmas, n);
  }
  for (int o = 1; o <= 3; o++) {
    int64_t n = nns__has_out(cx, o) ? nns__out_count(cx, c, o) : 0;
    if (n < 0)
      return NNS__UNCOUNTED;
    c->dmas = nns__cadd(c, c->dmas, n);
  }
  return NNS_OK;
}

static const nns__attr_spec attention23_attrs[] = {
    NNS__A_INT("is_causal", 0),
    NNS__A_OPT("kv_num_heads", INT),
    NNS__A_OPT("q_num_heads", INT),
    NNS__A_INT("qk_matmul_output_mode", 0),
    NNS__A_OPT("scale", FLOAT),
    NNS__A_FLOAT("softcap", 0.0),
    NNS__A_OPT("softmax_precision", INT),
    NNS__A_END};

static const nns__attr_spec einsum_attrs[] = {
    NNS__A_REQ("equation", STRING), NNS__A_END};

/*
 * Gemm: 1-6 had the `broadcast` flag, 7 made C broadcast unidirectionally,
 * 11 made C optional; 9 and 13 only widened types. MatMul 9 and 13 only
 * widened types.
 */
const nns__op nns__ops_gemm[] = {
    {"", "Gemm", 1, 6, "awb", gemm1_attrs, gemm_shape, NULL,
     .cost = gemm_cost, .rf = nns__rf_whole, .matrix = true},
    {"", "Gemm", 7, 10, "awb", gemm7_attrs, gemm_shape, NULL,
     .cost = gemm_cost, .rf = nns__rf_whole, .matrix = true},
    {"", "Gemm", 11, NNS__OPSET_MAX, "awb", gemm7_attrs, gemm_shape, NULL,
     .cost = gemm_cost, .rf = nns__rf_whole, .matrix = true},
    {"", "MatMul", 1, NNS__OPSET_MAX, "aw", NULL, matmul_shape, NULL,
     .cost = matmul_cost, .rf = matmul_rf,
     .rf_parts = true, .matrix = true, .attn = NNS__ATTN_PRODUCT},
    {"", "MatMulInteger", 10, NNS__OPSET_MAX, "awcc", NULL,
     matmul_integer_shape, NULL,
     .cost = matmul_integer_cost, .rf = matmul_rf, .matrix = true},
    {"", "QLinearMatMul", 10, NNS__OPSET_MAX, "accwcccc", NULL,
     qlinear_matmul_shape,
     NULL, .cost = qlinear_matmul_cost, .rf = qlinear_matmul_rf,
     .matrix = true},
    /* Attention-24 added the optional nonpad_kv_seqlen input (7th). */
    {"", "Attention", 23, NNS__OPSET_MAX, "aaacaaac", attention23_attrs,
     attention_shape, NULL, .cost = attention_cost, .matrix = true},
    /* Einsum has no field rule: what its letters mean is the model's. */
    {"", "Einsum", 12, NNS__OPSET_MAX, "a", einsum_attrs, einsum_shape, NULL,
     .cost = einsum_cost, .matrix = true},
    NNS__OP_END,
};
