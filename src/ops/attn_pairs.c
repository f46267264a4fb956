/*
 * attn_pairs.c - the (query, key) pairs a fused attention op's own mask
 * allows (dot.h, nns__attn_pairs): is_causal, a local window, a mask input
 * and per-batch key lengths, for Attention-23/24 (gemm.c) and the
 * com.microsoft attention ops (msft.c, msft_llm.c). Their macs_unmasked
 * and flops_unmasked follow from it (nns__attn_cut), as the analysis
 * finds them for attention spelt out in plain ops (src/analyze/attention.c).
 *
 * Without a mask input a row's keys are one interval, counted in O(1): the
 * walk is over the s query rows (times the batch rows when lengths differ
 * per batch). A mask is walked over its own distinct rows only (its
 * broadcast batch and head dims multiply), key by key.
 */
#include <string.h>

#include "dot.h"

/* Masked-out fill: exp of anything at or below it underflows to 0 in every
 * float type (as src/analyze/attention.c reads additive masks). */
#define MASK_FLOOR (-1e4)
enum { MASK_RANK_MAX = 4 };

/* The keys [lo, hi] that the causal rule, window and length leave to row
 * i; hi < lo when none. */
static void row_span(const nns__attn_pairs_in *in, int64_t i, int64_t len,
                     int64_t *lo, int64_t *hi) {
  *lo = 0;
  *hi = in->t - 1;
  if (in->causal && in->offset + i < *hi)
    *hi = in->offset + i;
  if (in->window > 0 && in->offset + i - in->window > *lo)
    *lo = in->offset + i - in->window;
  if (len >= 0 && len - 1 < *hi)
    *hi = len - 1;
}

/* The mask input's contents and dims right-aligned on [b, h, s, t]; false
 * when unknown or not a broadcast of the scores. */
typedef struct mask_view {
  const nns__const *c;
  int64_t dims[MASK_RANK_MAX]; /* b, h, s, t' as the mask has them */
  int64_t stride[MASK_RANK_MAX];
  bool select;                 /* bool contents: nonzero allows */
} mask_view;

static bool mask_of(nns__ictx *cx, const nns__attn_pairs_in *in,
                    mask_view *mv) {
  const nns__type *t = nns__in_type(cx, in->mask);
  const nns__const *c = nns__in_const(cx, in->mask);
  if (!t || t->rank < 1 || t->rank > MASK_RANK_MAX || !c ||
      (!c->f && !c->i) || !nns__type_static(t))
    return false;
  const int64_t want[MASK_RANK_MAX] = {in->b, in->h, in->s, in->t};
  /* the mask's dims on [b, h, s, t]: right-aligned, or batch first
   * ([b, t] and [b, s, t], the com.microsoft key padding masks) */
  int64_t eff[MASK_RANK_MAX] = {1, 1, 1, 1};
  static const int bf[2][3] = {{0, 3, -1}, {0, 2, 3}};
  for (int mk = 0; mk < t->rank; mk++) {
    int k = in->batch_first && t->rank <= 3
                ? (t->rank == 1 ? 3 : bf[t->rank - 2][mk])
                : mk + MASK_RANK_MAX - t->rank;
    eff[k] = t->dims[mk].v;
  }
  int64_t numel = 1;
  for (int k = MASK_RANK_MAX - 1; k >= 0; k--) {
    int64_t d = eff[k];
    /* the keys' dim may be shorter (onnx pads it as masked) */
    if (d != 1 && (k == MASK_RANK_MAX - 1 ? d > want[k] : d != want[k]))
      return false;
    mv->dims[k] = d;
    mv->stride[k] = d == 1 && k != MASK_RANK_MAX - 1 ? 0 : numel;
    numel *= d;
  }
  if (numel != c->numel)
    return false;
  for (int64_t k = 0; c->i && k < numel; k++)
    if (c->i[k].sym)
      return false;
  mv->c = c;
  mv->select = t->dtype == NNS_DT_BOOL || !c->f;
  return true;
}

static bool mask_allows(const mask_view *mv, int64_t at) {
  if (mv->select)
    return mv->c->i ? mv->c->i[at].v != 0 : mv->c->f[at] != 0;
  double x = mv->c->f[at];
  return !(x <= MASK_FLOOR);
}

bool nns__attn_pairs(nns__ictx *cx, const nns__attn_pairs_in *in,
                     int64_t *allowed, int64_t *rows) {
  nns__cost tmp;
  memset(&tmp, 0, sizeof tmp);
  const nns__dim *lens = NULL;
  int64_t n_lens = 0;
  if (in->lens >= 0 && nns__has_in(cx, in->lens)) {
    if (!nns__in_ints(cx, in->lens, &lens, &n_lens) || n_lens != in->b)
      return false;
    for (int64_t k = 0; k < n_lens; k++)
      if (lens[k].sym)
        return false;
  }
  mask_view mv;
  memset(&mv, 0, sizeof mv);
  bool masked = in->mask >= 0 && nns__has_in(cx, in->mask);
  if (masked && !mask_of(cx, in, &mv))
    return false;
  /* the rows walked: batch rows when lengths or the mask vary by batch,
   * heads when the mask does; the rest multiply */
  int64_t nb = lens || (masked && mv.dims[0] != 1) ? in->b : 1;
  int64_t nh = masked && mv.dims[1] != 1 ? in->h : 1;
  int64_t mult = nns__cmul(&tmp, in->b / nb, in->h / nh);
  int64_t sum = 0, nonempty = 0;
  for (int64_t bi = 0; bi < nb; bi++)
    for (int64_t hi = 0; hi < nh; hi++)
      for (int64_t i = 0; i < in->s; i++) {
        int64_t lo, up;
        row_span(in, i, lens ? lens[bi].v : -1, &lo, &up);
        int64_t n = up >= lo ? up - lo + 1 : 0;
        if (masked && n > 0) {
          int64_t base = bi * mv.stride[0] + hi * mv.stride[1] +
                         (mv.dims[2] != 1 ? i * mv.stride[2] : 0);
          int64_t kt = mv.dims[3];
          int64_t end = kt == 1 || up < kt - 1 ? up : kt - 1;
          n = 0;
          for (int64_t j = lo; j <= end; j++)
            n += mask_allows(&mv, base + (kt != 1 ? j : 0));
        }
        sum = nns__cadd(&tmp, sum, n);
        nonempty += n > 0;
      }
  *allowed = nns__cmul(&tmp, sum, mult);
  *rows = nns__cmul(&tmp, nonempty, mult);
  return !tmp.overflow;
}
