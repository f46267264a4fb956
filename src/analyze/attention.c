/*
 * Attention as LLM people count it: the two products of
 * softmax(Q.K^T * scale + mask).V over the (query, key) pairs the mask
 * allows (macs_unmasked, flops_unmasked), and the model's token count
 * (docs/metrics.md, "Masked attention, tokens").
 *
 * The pattern is found from the operator table's `attn` marks, never from
 * op names: a softmax whose input goes back, through scales, reshapes,
 * casts, additive masks (Add) and selections (Where against a very
 * negative fill), to a matrix product (Q.K^T), and whose output goes on,
 * through reshapes, broadcasts and dropout, into a matrix product as its
 * left operand (P.V). That is how a fused SDPA call, PyTorch's math path,
 * transformers' eager attention and the usual ONNX exports spell it.
 *
 * A mask counts when its contents are known: folded (a mask built from
 * shapes, or from a graph input given with --value), an initializer's
 * bytes, or the contents a binding observed while recording (the packed
 * value_data record; one element given for a value of more is a fill),
 * a fill of any size (ConstantOfShape's one value: NNS__ATTN_FILL), or a
 * triangle (Trilu) of a fill, read from its diagonal as positions
 * compared. An additive mask leaves out the pairs where it is
 * -inf or at most MASK_FLOOR (dtype-min masks, -1e9, -1e4: exp of any of
 * them underflows to 0 in every float type); a Where leaves out the pairs
 * where it picks such a fill. A mask whose contents are not known leaves
 * the products counted dense, and flags them NNS_COUNT_MASK_UNKNOWN: the
 * reports mark their unmasked counts (and every sum holding them) partial. Dims a binding leaves symbolic are read as
 * the counts take them (dims_of), so fixing one symbol of several gives
 * the masked count at the dims the dense one was counted at.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "../ops/op.h"

#define MASK_FLOOR (-1e4)
enum { MAX_RANK = 8, MAX_MASKS = 8, MAX_STEPS = 24, MAX_DEPTH = 8 };

/* A mask's contents, read with `dims` right-aligned on the scores' dims. */
typedef struct mask {
  const nns__const *c; /* folded contents, or NULL */
  const uint8_t *raw;  /* raw little-endian contents, or NULL */
  int32_t dtype;
  int bytes;   /* per raw element */
  bool select; /* allows where (value != 0) == want; else where
                  value > MASK_FLOOR */
  bool want;
  int32_t rank;
  int64_t dims[MAX_RANK];
  int64_t stride[MAX_RANK]; /* per scores axis; 0 where broadcast */
  uint8_t cmp;  /* NNS__ATTN_LESS...: allows where this entry's value
                   compares so to the next one's (its operand); 0: a mask of
                   its own contents */
  bool operand; /* the right side of the comparison before it */
  bool span;    /* (count_pairs) a comparison that leaves each row one run
                   of keys, found by bisection: one side sorted along the
                   keys, the other constant along them */
  bool key_rhs; /* (span) the right side is the one that varies by key */
  bool always;  /* (count_pairs) one value along every axis that allows:
                   no mask at all (transformers starts its and-ed masks
                   from a True) */
  bool ramp;    /* no contents: element i is ramp_from + i (a triangle's
                   positions, find_masks) */
  int64_t ramp_from;
  bool filled;  /* no contents: every element is fill (NNS__ATTN_FILL) */
  double fill;
} mask;

/* The dims of v as the counts take them: with a model m, a symbol not
 * fixed by the binding counts as the counters count it (nns__dim_count:
 * 1, or a monomial's coefficient), so a mask is read at the very dims its
 * products were counted at; without m (NULL), static dims only. False
 * when its rank or a dim is not known. */
static bool dims_of(const nns_model *m, const nns__value *v, int32_t *rank,
                    int64_t *dims) {
  if (!v || v->type.rank < 0 || v->type.rank > MAX_RANK)
    return false;
  for (int32_t k = 0; k < v->type.rank; k++) {
    nns__dim d = v->type.dims[k];
    if (d.sym && m) {
      nns__cost c;
      memset(&c, 0, sizeof c);
      dims[k] = nns__dim_count(&c, d, m);
      continue;
    }
    if (d.sym || d.v < 0)
      return false;
    dims[k] = d.v;
  }
  *rank = v->type.rank;
  return true;
}

static int64_t numel_of(const nns_model *m, const nns__value *v) {
  int64_t d[MAX_RANK], n = 1;
  int32_t r;
  if (!dims_of(m, v, &r, d))
    return -1;
  for (int32_t k = 0; k < r; k++)
    if (!nns__mul_i64(n, d[k], &n))
      return -1;
  return n;
}

/* Raw bytes of a tensor holding exactly numel elements of a byte-sized
 * dtype, or NULL. */
static const uint8_t *raw_of(const nns__tensor *t, int64_t numel) {
  int bits = t ? nns__dtype_bits(t->dtype) : 0;
  if (!t || t->storage != NNS__ST_RAW || bits < 8 || bits % 8 ||
      t->numel != numel || !t->raw ||
      t->raw_len != (size_t)numel * (size_t)(bits / 8))
    return NULL;
  return t->raw;
}

/* Fills m's contents from v's, if known. Contents of one element given
 * for a value of more (nns_model_set_value_data: a filled tensor) are
 * that element everywhere: m's dims become ones, a broadcast. */
static bool contents(const nns_model *md, const nns__value *v, mask *m) {
  int64_t n = numel_of(md, v);
  if (n < 0)
    return false;
  if (v->cval && v->cval->numel == n && (v->cval->f || v->cval->i)) {
    for (int64_t k = 0; !v->cval->f && k < n; k++)
      if (v->cval->i[k].sym)
        return false;
    m->c = v->cval;
    m->raw = NULL;
    return true;
  }
  const nns__tensor *t = raw_of(v->init, n) ? v->init : v->known;
  const uint8_t *raw = raw_of(t, n);
  if (!raw && t == v->known && n > 1 && (raw = raw_of(t, 1)))
    for (int32_t k = 0; k < m->rank; k++)
      m->dims[k] = 1; /* a fill */
  if (!raw)
    return false;
  m->c = NULL;
  m->raw = raw;
  m->dtype = t->dtype;
  m->bytes = nns__dtype_bits(t->dtype) / 8;
  return true;
}

bool nns__attention_fill(const nns__node *n, double *value) {
  if (!n || !n->op || n->op->attn != NNS__ATTN_FILL)
    return false;
  *value = 0.0; /* ConstantOfShape's default: a float zero */
  for (int32_t i = 0; i < n->n_attrs; i++)
    if (!strcmp(n->attrs[i].name, "value"))
      return n->attrs[i].t && nns__tensor_scalar(n->attrs[i].t, value);
  return true;
}

/* Element i of m's contents. */
static double elem(const mask *m, int64_t i) {
  if (m->ramp)
    return (double)(m->ramp_from + i);
  if (m->filled)
    return m->fill;
  if (m->c)
    return m->c->f ? m->c->f[i] : (double)m->c->i[i].v;
  return nns__raw_elem(m->dtype, m->raw + i * m->bytes);
}

static bool allows(const mask *m, int64_t i) {
  double x = elem(m, i);
  return m->select ? (x != 0) == m->want : !(x <= MASK_FLOOR);
}

/* The single value of a one-element known value (a fill), or NAN. */
static double scalar_of(const nns_model *md, const nns__value *v) {
  mask m;
  memset(&m, 0, sizeof m);
  if (!v || numel_of(md, v) != 1 || !contents(md, v, &m))
    return NAN;
  return elem(&m, 0);
}

static bool masks_out(double fill) { return fill <= MASK_FLOOR; }

/* ==== Masks made of compared positions ==== */

static bool is_compare(uint8_t at) {
  return at >= NNS__ATTN_LESS && at <= NNS__ATTN_GREATER_EQUAL;
}

/* !(a < b) is a >= b: positions hold no NaN. */
static uint8_t negated(uint8_t cmp) {
  switch (cmp) {
  case NNS__ATTN_LESS:
    return NNS__ATTN_GREATER_EQUAL;
  case NNS__ATTN_LESS_EQUAL:
    return NNS__ATTN_GREATER;
  case NNS__ATTN_GREATER:
    return NNS__ATTN_LESS_EQUAL;
  default:
    return NNS__ATTN_LESS;
  }
}

/* a < b is b > a. */
static uint8_t swapped(uint8_t cmp) {
  switch (cmp) {
  case NNS__ATTN_LESS:
    return NNS__ATTN_GREATER;
  case NNS__ATTN_LESS_EQUAL:
    return NNS__ATTN_GREATER_EQUAL;
  case NNS__ATTN_GREATER:
    return NNS__ATTN_LESS;
  default:
    return NNS__ATTN_LESS_EQUAL;
  }
}

static bool compares(uint8_t cmp, double a, double b) {
  switch (cmp) {
  case NNS__ATTN_LESS:
    return a < b;
  case NNS__ATTN_LESS_EQUAL:
    return a <= b;
  case NNS__ATTN_GREATER:
    return a > b;
  default:
    return a >= b;
  }
}

/* Whether dims a and b are the same but for leading ones (the same
 * broadcast on the scores, right-aligned). */
static bool same_but_leading_ones(const int64_t *a, int32_t ra,
                                  const int64_t *b, int32_t rb) {
  while (ra > 0 && a[0] == 1) {
    a++;
    ra--;
  }
  while (rb > 0 && b[0] == 1) {
    b++;
    rb--;
  }
  return ra == rb && !memcmp(a, b, (size_t)ra * sizeof *a);
}

static int find_masks(const nns_model *md, const nns__value *v, bool select,
                      bool want, mask *out, int room, int depth);

/* A triangle (Trilu: its input's elements on one side of a diagonal of
 * its last two axes, zeros elsewhere) of a filled tensor, read at its own
 * dims d[0..r): where the fill's value and where zero allow the same, the
 * fill alone (out[0]: all or none); else two ramps compared, the keys
 * against the queries plus the diagonal k: key <= query + k (the lower
 * side; >= for the upper) where the fill's value is the one that allows,
 * the other side where zero is. A triangle of other contents is not
 * read (0). */
static int triangle(const nns_model *md, const nns__node *p, mask *out,
                    int room, int depth, const int64_t *d, int32_t r) {
  if (room < 2 || r < 2 || !p->in[0] ||
      find_masks(md, p->in[0], out->select, out->want, out, 1, depth + 1) != 1)
    return 0;
  for (int32_t k = 0; k < out->rank; k++)
    if (out->dims[k] != 1)
      return 0; /* not a fill */
  double diag = p->n_in > 1 && p->in[1] ? scalar_of(md, p->in[1]) : 0;
  int64_t upper = 1;
  for (int32_t i = 0; i < p->n_attrs; i++)
    if (!strcmp(p->attrs[i].name, "upper"))
      upper = p->attrs[i].i;
  if (isnan(diag) || diag != floor(diag) || fabs(diag) > 1e15)
    return 0;
  /* zero allows as a selection's false, and always as an additive mask */
  bool fill_allows = allows(&out[0], 0),
       zero_allows = out[0].select ? !out[0].want : true;
  if (fill_allows == zero_allows)
    return 1;
  uint8_t kept = upper ? NNS__ATTN_GREATER_EQUAL : NNS__ATTN_LESS_EQUAL;
  memset(out, 0, 2 * sizeof *out);
  out[0].ramp = out[1].ramp = true;
  out[0].select = out[1].select = true;
  out[0].rank = out[1].rank = 2;
  out[0].dims[0] = 1;
  out[0].dims[1] = d[r - 1];
  out[1].dims[0] = d[r - 2];
  out[1].dims[1] = 1;
  out[1].ramp_from = (int64_t)diag;
  out[0].cmp = fill_allows ? kept : negated(kept);
  out[1].operand = true;
  return 2;
}

/* Goes back from a mask operand v to known contents, through ops that
 * keep values (a reshape keeps the dims it is read with, a broadcast takes
 * its input's) and, for an additive mask, a Where that picks between an
 * allowing value and a very negative one. A boolean mask whose contents
 * are not known (one too large for a binding to track: a causal mask over
 * 2^24 elements) is read from how it was made, where that needs no more
 * than the positions it compares: an And of masks (or an Or of masks
 * negated) is its masks, each an entry, and a comparison of two known
 * tensors (query positions against key positions, as transformers builds
 * its causal and sliding-window masks) two entries, compared
 * element by element when counted. Fills out[0..room) and gives the
 * number of entries, 0 when the mask is not known. depth < 0: a value
 * (a comparison's side), read through ops that keep values only. */
static int find_masks(const nns_model *md, const nns__value *v, bool select,
                      bool want, mask *out, int room, int depth) {
  if (room < 1 || depth > MAX_DEPTH)
    return 0;
  memset(out, 0, sizeof *out);
  out->select = select;
  out->want = want;
  if (!dims_of(md, v, &out->rank, out->dims))
    return 0;
  for (int steps = 0; steps < MAX_STEPS; steps++) {
    if (contents(md, v, out))
      return 1;
    const nns__node *p = v->producer;
    if (p && nns__attention_fill(p, &out->fill)) {
      out->filled = true;
      for (int32_t k = 0; k < out->rank; k++)
        out->dims[k] = 1; /* one value everywhere: a broadcast */
      return 1;
    }
    if (!p || !p->op || p->n_in < 1 || !p->in[0])
      return 0;
    uint8_t at = p->op->attn;
    if (at == NNS__ATTN_KEEP) {
      const nns__value *in = p->in[0];
      if (numel_of(md, in) != numel_of(md, v) &&
          !dims_of(md, in, &out->rank, out->dims))
        return 0;
      v = in;
      continue;
    }
    if (at == NNS__ATTN_SELECT && !out->select && p->n_in == 3) {
      /* additive mask = Where(cond, a, b), a and b one number each */
      double a = scalar_of(md, p->in[1]), b = scalar_of(md, p->in[2]);
      if (isnan(a) || isnan(b) || masks_out(a) == masks_out(b))
        return 0;
      out->select = true;
      out->want = !masks_out(a);
      if (numel_of(md, p->in[0]) != numel_of(md, v) &&
          !dims_of(md, p->in[0], &out->rank, out->dims))
        return 0;
      v = p->in[0];
      continue;
    }
    /* how a boolean mask was made: read at its own dims only (not
     * through a reshape that changed them, but for leading ones) */
    int64_t d[MAX_RANK];
    int32_t r;
    if (depth < 0 || (!out->select && at != NNS__ATTN_TRIANGLE) ||
        !dims_of(md, v, &r, d) ||
        !same_but_leading_ones(d, r, out->dims, out->rank))
      return 0;
    if (at == NNS__ATTN_TRIANGLE)
      return triangle(md, p, out, room, depth, d, r);
    if (at == NNS__ATTN_NOT) {
      out->want = !out->want;
      v = p->in[0];
      continue;
    }
    if (p->n_in != 2 || !p->in[1])
      return 0;
    bool w = out->want;
    if ((at == NNS__ATTN_AND && w) || (at == NNS__ATTN_OR && !w)) {
      /* allowed where both allow (or both do not): a mask each */
      int n1 = find_masks(md, p->in[0], true, w, out, room, depth + 1);
      int n2 = n1 ? find_masks(md, p->in[1], true, w, out + n1, room - n1,
                               depth + 1)
                  : 0;
      return n2 ? n1 + n2 : 0;
    }
    if (is_compare(at) && room >= 2 &&
        find_masks(md, p->in[0], true, true, &out[0], 1, -1) &&
        find_masks(md, p->in[1], true, true, &out[1], 1, -1)) {
      out[0].cmp = w ? at : negated(at);
      out[1].operand = true;
      return 2;
    }
    return 0;
  }
  return 0;
}

/* ==== The pattern ==== */

typedef struct match {
  const nns_model *m;       /* whose binding fixes the dims counted */
  const nns__node *unknown; /* a mask op whose mask's contents are not known */
  const nns__node *qk, *pv;
  int32_t rank; /* of the scores where the masks apply */
  int64_t dims[MAX_RANK];
  mask masks[MAX_MASKS];
  int n_masks;
} match;

/* The scores at a mask's op: the dims masks are read against. All masks of
 * one attention must be applied at the same dims. */
static bool at_scores(match *mt, const nns__value *out) {
  int64_t d[MAX_RANK];
  int32_t r;
  if (!dims_of(mt->m, out, &r, d))
    return false;
  if (mt->rank == 0) {
    mt->rank = r;
    memcpy(mt->dims, d, sizeof d);
    return true;
  }
  return r == mt->rank && !memcmp(d, mt->dims, (size_t)r * sizeof *d);
}

static bool add_masks(match *mt, const mask *m, int n) {
  if (n < 1 || mt->n_masks + n > MAX_MASKS)
    return false;
  for (int k = 0; k < n; k++)
    if (m[k].rank > mt->rank)
      return false;
  memcpy(&mt->masks[mt->n_masks], m, (size_t)n * sizeof *m);
  mt->n_masks += n;
  return true;
}

/* Whether v, an operand added to the scores whose contents are not known,
 * is a mask rather than a computed bias (T5's or ALiBi's positions): a
 * graph input, a window sliced from a stored tensor whose contents are not
 * known (nanoGPT's float `bias` buffer cut to the sequence), a Where
 * with a masking fill, or a triangle (Trilu: one side of a diagonal, a
 * causal mask), reached back through ops that keep values. A
 * stored tensor added whole, or rows gathered from a weight (T5's bias
 * table), is not taken for one. */
static bool looks_like_mask(const nns_model *md, const nns__value *v) {
  bool cut = false; /* a Slice-like pick on the way */
  for (int steps = 0; v && steps < MAX_STEPS; steps++) {
    if (v->is_graph_input || (v->init && cut))
      return true;
    const nns__node *p = v->producer;
    if (!p || !p->op || p->n_in < 1)
      return false;
    if (p->op->attn == NNS__ATTN_SELECT && p->n_in == 3) {
      double a = scalar_of(md, p->in[1]), b = scalar_of(md, p->in[2]);
      return (!isnan(a) && masks_out(a)) || (!isnan(b) && masks_out(b));
    }
    if (p->op->attn == NNS__ATTN_TRIANGLE)
      return true; /* one side of a diagonal: a causal mask */
    bool pick = p->op->picks && nns__input_role(p, 0) == 'a';
    if (p->op->attn != NNS__ATTN_KEEP && !pick)
      return false;
    cut |= pick;
    v = p->in[0];
  }
  return false;
}

/* From the softmax's input back to Q.K^T, collecting the masks. */
static bool back_to_scores(const nns__value *v, match *mt) {
  for (int steps = 0; steps < MAX_STEPS; steps++) {
    const nns__node *p = v->producer;
    if (!p || !p->op || p->n_out < 1 || p->out[0] != v)
      return false;
    int64_t n = numel_of(mt->m, v);
    mask m[MAX_MASKS];
    int nm = 0, room = MAX_MASKS - mt->n_masks;
    switch (p->op->attn) {
    case NNS__ATTN_PRODUCT:
      mt->qk = p;
      return !mt->unknown;
    case NNS__ATTN_KEEP:
      if (!p->in[0] || numel_of(mt->m, p->in[0]) != n)
        return false;
      v = p->in[0];
      break;
    case NNS__ATTN_SCALE:
      if (p->n_in != 2 || !p->in[0] || !p->in[1])
        return false;
      if (numel_of(mt->m, p->in[1]) == 1 && numel_of(mt->m, p->in[0]) == n)
        v = p->in[0];
      else if (numel_of(mt->m, p->in[0]) == 1 && numel_of(mt->m, p->in[1]) == n)
        v = p->in[1];
      else
        return false;
      break;
    case NNS__ATTN_BIAS: {
      if (p->n_in != 2 || !p->in[0] || !p->in[1] || !at_scores(mt, v))
        return false;
      int side = -1;
      for (int s = 1; s >= 0 && side < 0; s--)
        if (numel_of(mt->m, p->in[1 - s]) == n &&
            (nm = find_masks(mt->m, p->in[s], false, false, m, room, 0)))
          side = s;
      if (side < 0) { /* walk on along the scores, to tell the mask */
        for (int s = 1; s >= 0 && side < 0; s--)
          if (numel_of(mt->m, p->in[1 - s]) == n &&
              looks_like_mask(mt->m, p->in[s]))
            side = s;
        if (side < 0)
          return false;
        mt->unknown = p;
        v = p->in[1 - side];
        break;
      }
      if (!add_masks(mt, m, nm))
        return false;
      v = p->in[1 - side];
      break;
    }
    case NNS__ATTN_SELECT: {
      if (p->n_in != 3 || !p->in[0] || !p->in[1] || !p->in[2] ||
          !at_scores(mt, v))
        return false;
      double a = scalar_of(mt->m, p->in[1]), b = scalar_of(mt->m, p->in[2]);
      int keep = !isnan(b) && masks_out(b) && numel_of(mt->m, p->in[1]) == n ? 1
                 : !isnan(a) && masks_out(a) && numel_of(mt->m, p->in[2]) == n
                     ? 2
                     : 0;
      if (!keep)
        return false;
      if (!(nm = find_masks(mt->m, p->in[0], true, keep == 1, m, room, 0)))
        mt->unknown = p; /* walk on along the scores, to tell the mask */
      else if (!add_masks(mt, m, nm))
        return false;
      v = p->in[keep];
      break;
    }
    default:
      return false;
    }
  }
  return false;
}

/* Consumers of main-graph values: the single consumer, or NULL. */
typedef struct users {
  const nns__node **one; /* by value index; NULL: none or several */
  uint8_t *count;        /* 0, 1, 2 (two or more) */
} users;

static const nns__node *only_user(const users *u, const nns__value *v) {
  return v && u->count[v->index] == 1 ? u->one[v->index] : NULL;
}

/* From the softmax's output on to P.V. */
static bool on_to_product(const users *u, const nns__value *v, match *mt) {
  int64_t n = numel_of(mt->m, v);
  for (int steps = 0; steps < MAX_STEPS; steps++) {
    const nns__node *c = only_user(u, v);
    if (!c || !c->op || c->n_in < 1 || c->in[0] != v || c->n_out < 1)
      return false;
    if (c->op->attn == NNS__ATTN_PRODUCT) {
      mt->pv = c;
      return true;
    }
    if (c->op->attn != NNS__ATTN_KEEP || numel_of(mt->m, c->out[0]) != n)
      return false;
    v = c->out[0];
  }
  return false;
}

/* The softmax normalises over the last axis (the keys). */
static bool over_keys(const nns__node *n) {
  int32_t r = n->in[0]->type.rank;
  int64_t axis = n->opset >= 13 ? -1 : 1;
  for (int32_t k = 0; k < n->n_attrs; k++)
    if (!strcmp(n->attrs[k].name, "axis"))
      axis = n->attrs[k].i;
  return r >= 2 && (axis == -1 || axis == r - 1);
}

/* ==== Counting ==== */

/* Narrows [lo, hi) to the keys comparison m (a span: count_pairs) allows
 * in the row where its sides start at oa and ob: a side sorted along the
 * keys is <= or < the other on a prefix of them, >= or > on a suffix. */
static void span_of(const mask *m, int64_t oa, int64_t ob, int64_t S, int r,
                    int64_t *lo, int64_t *hi) {
  const mask *x = m, *y = m + 1; /* x: the side that varies by key */
  uint8_t cmp = m->cmp;
  if (m->key_rhs) {
    x = m + 1;
    y = m;
    int64_t t = oa;
    oa = ob;
    ob = t;
    cmp = swapped(cmp);
  }
  double yv = elem(y, ob);
  int64_t st = x->stride[r - 1];
  if (!st) { /* neither varies by key: all or none */
    if (!compares(cmp, elem(x, oa), yv))
      *hi = 0;
    return;
  }
  /* the first key where x > y (for <=, >) or x >= y (for <, >=) */
  bool past = cmp == NNS__ATTN_LESS_EQUAL || cmp == NNS__ATTN_GREATER;
  int64_t a = 0, b = S;
  while (a < b) {
    int64_t mid = a + (b - a) / 2;
    double xv = elem(x, oa + mid * st);
    if (past ? xv > yv : xv >= yv)
      b = mid;
    else
      a = mid + 1;
  }
  if (cmp == NNS__ATTN_LESS || cmp == NNS__ATTN_LESS_EQUAL) {
    if (a < *hi)
      *hi = a;
  } else if (a > *lo) {
    *lo = a;
  }
}

/* Whether every run of m's contents along the keys (S long, contiguous)
 * is in ascending order. */
static bool sorted_by_key(const mask *m, int64_t S) {
  int64_t n = 1;
  for (int32_t k = 0; k < m->rank; k++)
    n *= m->dims[k];
  for (int64_t row = 0; row + S <= n; row += S)
    for (int64_t s = row + 1; s < row + S; s++)
      if (!(elem(m, s - 1) <= elem(m, s)))
        return false;
  return true;
}

/* Pairs the masks allow in the row starting at offs[] (one per mask); with
 * seen, also marks there the keys the row allows. One pass does both: a
 * second pass to mark keys, element by element through allows(), was most
 * of a causal LLaMA-3-8B analysis at 2,048 tokens. */
/* The one mask that, beside comparisons read by bisection, varies by key
 * but not by query (a padding mask): its allowed keys counted once per
 * row of its own (prefix sums), so a row's count is O(1). */
typedef struct prefix {
  int k;        /* its entry in the match, or -1: none */
  int64_t off;  /* the row of it cnt holds, or -1 */
  int64_t *cnt; /* cnt[s]: keys below s it allows (S + 1) */
} prefix;

static int64_t row_allowed(const match *mt, const int64_t *offs, int64_t S,
                           uint8_t *seen, prefix *pf) {
  int r = mt->rank;
  int64_t a = 0;
  if (mt->n_masks == 1) {
    const mask *m = &mt->masks[0];
    int64_t st = m->stride[r - 1], off = offs[0];
    if (st == 0) {
      bool ok = allows(m, off);
      if (ok && seen)
        memset(seen, 1, (size_t)S);
      return ok ? S : 0;
    }
    if (m->raw && m->bytes == 1 && m->select && m->dtype != NNS_DT_INT8) {
      const uint8_t *p = m->raw + off;
      uint8_t want = m->want;
      if (!seen) {
        for (int64_t s = 0; s < S; s++)
          a += (p[s] != 0) == want;
        return a;
      }
      for (int64_t s = 0; s < S; s++) {
        uint8_t ok = (p[s] != 0) == want;
        a += ok;
        seen[s] |= ok;
      }
      return a;
    }
    if (m->raw && m->dtype == NNS_DT_FLOAT && !m->select) {
      const uint8_t *p = m->raw + off * 4;
      for (int64_t s = 0; s < S; s++) {
        float x;
        memcpy(&x, p + 4 * s, 4);
        uint8_t ok = !(x <= MASK_FLOOR);
        a += ok;
        if (seen)
          seen[s] |= ok;
      }
      return a;
    }
  }
  /* the keys [lo, hi) every comparison read by bisection leaves; the
   * other masks are read key by key within them */
  int64_t lo = 0, hi = S;
  bool rest = false;
  for (int k = 0; k < mt->n_masks; k++) {
    const mask *m = &mt->masks[k];
    if (m->cmp && m->span)
      span_of(m, offs[k], offs[k + 1], S, r, &lo, &hi);
    else if (!m->operand && !m->always)
      rest = true;
  }
  if (hi <= lo)
    return 0;
  if (!rest || pf->k >= 0) {
    /* seen: the run (count_pairs leaves out, per group, the keys the
     * prefix's mask does not allow) */
    if (seen)
      memset(seen + lo, 1, (size_t)(hi - lo));
    if (!rest)
      return hi - lo;
    const mask *m = &mt->masks[pf->k];
    if (pf->off != offs[pf->k]) {
      pf->off = offs[pf->k];
      pf->cnt[0] = 0;
      for (int64_t s = 0; s < S; s++)
        pf->cnt[s + 1] =
            pf->cnt[s] + allows(m, pf->off + s * m->stride[r - 1]);
    }
    return pf->cnt[hi] - pf->cnt[lo];
  }
  for (int64_t s = lo; s < hi; s++) {
    bool ok = true;
    for (int k = 0; k < mt->n_masks && ok; k++) {
      const mask *m = &mt->masks[k];
      if (m->operand || m->always || (m->cmp && m->span))
        continue;
      ok = m->cmp ? compares(m->cmp, elem(m, offs[k] + s * m->stride[r - 1]),
                             elem(m + 1, offs[k + 1] + s * m[1].stride[r - 1]))
                  : allows(m, offs[k] + s * m->stride[r - 1]);
    }
    a += ok;
    if (seen)
      seen[s] |= ok;
  }
  return a;
}

/* What the pairs a match's masks allow come to. */
typedef struct pairs {
  int64_t allowed; /* pairs allowed */
  int64_t rows;    /* query rows with at least one */
  int64_t cols;    /* key columns with at least one */
} pairs;

/* Counts the pairs over the scores; false on overflow or no memory. */
static bool count_pairs(match *mt, pairs *out) {
  int r = mt->rank;
  if (r < 2)
    return false;
  for (int k = 0; k < mt->n_masks; k++) {
    mask *m = &mt->masks[k];
    int64_t st = 1;
    for (int ax = r - 1; ax >= 0; ax--) {
      int mi = ax - (r - m->rank);
      int64_t d = mi >= 0 ? m->dims[mi] : 1;
      if (d != 1 && d != mt->dims[ax])
        return false; /* not a broadcast of the scores' dims */
      m->stride[ax] = d == 1 ? 0 : st;
      st *= d;
    }
  }
  /* A plain mask of one value that allows (strides all 0) is none. */
  for (int k = 0; k < mt->n_masks; k++) {
    mask *m = &mt->masks[k];
    bool flat = !m->cmp && !m->operand;
    for (int ax = 0; ax < r && flat; ax++)
      flat = !m->stride[ax];
    m->always = flat && allows(m, 0);
  }
  /* A comparison whose one side varies by key, in order, and the other
   * not, leaves each row a run of keys: found by bisection (a causal or
   * sliding-window mask at any length, O(log S) a row). */
  for (int k = 0; k + 1 < mt->n_masks; k++) {
    mask *m = &mt->masks[k];
    if (!m->cmp)
      continue;
    bool ka = m->stride[r - 1] != 0, kb = m[1].stride[r - 1] != 0;
    m->key_rhs = kb;
    m->span = !(ka && kb) &&
              (!(ka || kb) || sorted_by_key(kb ? &m[1] : m, mt->dims[r - 1]));
  }
  /* Axes before the keys' along which some mask varies are walked; the
   * others multiply. */
  int vary[MAX_RANK], nv = 0;
  int64_t mult = 1, S = mt->dims[r - 1];
  for (int ax = 0; ax < r - 1; ax++) {
    bool v = false;
    for (int k = 0; k < mt->n_masks; k++)
      v = v || mt->masks[k].stride[ax];
    if (v)
      vary[nv++] = ax;
    else if (!nns__mul_i64(mult, mt->dims[ax], &mult))
      return false;
  }
  /* Key columns: the rows of one group (the indices before the queries'
   * axis fixed) are walked one after the other when the masks vary along
   * the queries' axis, else each row is its own group and the queries'
   * axis is in mult. */
  bool lvary = nv > 0 && vary[nv - 1] == r - 2;
  int64_t cmult = lvary || !mt->dims[r - 2] ? mult : mult / mt->dims[r - 2],
          cols = 0;
  /* Per key whether the group allowed it: needed only where a mask varies
   * along the keys, whose contents then hold S values (else a row allows
   * all keys or none). */
  bool key_vary = false;
  for (int k = 0; k < mt->n_masks; k++)
    key_vary = key_vary || mt->masks[k].stride[r - 1];
  uint8_t *seen = key_vary ? calloc((size_t)S + 1, 1) : NULL;
  bool any = false;
  if (key_vary && !seen)
    return false;
  /* A padding mask beside bisected comparisons: from prefix sums. */
  prefix pf = {-1, -1, NULL};
  int plain = 0, spans = 0;
  for (int k = 0; k < mt->n_masks; k++) {
    const mask *m = &mt->masks[k];
    if (m->cmp && m->span)
      spans++;
    else if (!m->operand && !m->always && plain++ == 0)
      pf.k = k;
  }
  if (plain != 1 || !spans || !mt->masks[pf.k].stride[r - 1] ||
      mt->masks[pf.k].stride[r - 2] || mt->masks[pf.k].cmp)
    pf.k = -1;
  if (pf.k >= 0 && !(pf.cnt = malloc(((size_t)S + 1) * sizeof *pf.cnt))) {
    free(seen);
    return false;
  }
  int64_t idx[MAX_RANK] = {0}, offs[MAX_MASKS], sum = 0, nonempty = 0;
  for (;;) {
    for (int k = 0; k < mt->n_masks; k++) {
      offs[k] = 0;
      for (int j = 0; j < nv; j++)
        offs[k] += idx[j] * mt->masks[k].stride[vary[j]];
    }
    int64_t a = mt->n_masks ? row_allowed(mt, offs, S, seen, &pf) : S;
    sum += a;
    nonempty += a > 0;
    any = any || a > 0;
    if (!lvary || idx[nv - 1] == mt->dims[r - 2] - 1) {
      /* the prefix's mask is one row of it per group (it does not vary
       * by query): the keys it leaves out are no columns */
      for (int64_t k = 0; seen && k < S; k++)
        cols += seen[k] && (pf.k < 0 || pf.cnt[k + 1] > pf.cnt[k]);
      if (seen)
        memset(seen, 0, (size_t)S);
      else if (any && !nns__add_i64(cols, S, &cols))
        cols = INT64_MAX;
      any = false;
    }
    int j = nv - 1;
    for (; j >= 0; j--) {
      if (++idx[j] < mt->dims[vary[j]])
        break;
      idx[j] = 0;
    }
    if (j < 0)
      break;
  }
  free(seen);
  free(pf.cnt);
  /* cols only serve the backward: past INT64_MAX they are unknown (-1) */
  if (cols == INT64_MAX || !nns__mul_i64(cols, cmult, &out->cols))
    out->cols = -1;
  return nns__mul_i64(sum, mult, &out->allowed) &&
         nns__mul_i64(nonempty, mult, &out->rows);
}

/* Sets the two products' unmasked counts from the pairs allowed; false
 * where the products are not plainly these (left dense). */
static bool apply(nns__analysis *a, const match *mt, const pairs *pr_) {
  int64_t allowed = pr_->allowed, rows = pr_->rows;
  int64_t qd[MAX_RANK], pd[MAX_RANK], od[MAX_RANK], total = 1;
  int32_t qr, pr, orank;
  for (int k = 0; k < mt->rank; k++)
    total *= mt->dims[k];
  if (!dims_of(mt->m, mt->qk->in[0], &qr, qd) ||
      !dims_of(mt->m, mt->pv->in[0], &pr, pd) ||
      !dims_of(mt->m, mt->pv->out[0], &orank, od) || qr < 1 || pr < 1 ||
      orank < 1)
    return false;
  int64_t E = qd[qr - 1], Ev = od[orank - 1], S = mt->dims[mt->rank - 1];
  const nns__anode *q = &a->nodes[mt->qk->index];
  const nns__anode *p = &a->nodes[mt->pv->index];
  int64_t mq, mp, fq, fp;
  /* Only where the dense counts are these very products (no broadcast
   * beyond the scores; a symbol the binding leaves free is taken as the
   * counts take it, dims_of). */
  if (pd[pr - 1] != S || numel_of(mt->m, mt->qk->out[0]) != total ||
      numel_of(mt->m, mt->pv->in[0]) != total || !nns__mul_i64(total, E, &mq) ||
      mq != q->macs || !nns__mul_i64(total, Ev, &mp) || mp != p->macs ||
      E < 1 || Ev < 1)
    return false;
  if (!nns__mul_i64(allowed, E, &mq) ||
      !nns__mul_i64(allowed, 2 * E - 1, &fq) ||
      !nns__mul_i64(allowed, Ev, &mp) ||
      !nns__mul_i64(2 * allowed - rows, Ev, &fp))
    return false;
  /* the products' FLOPs are their MACs' rule (docs/metrics.md, MatMul):
   * what else the node counts stays */
  nns__anode_more *x = nns__node_more(a, mt->qk->index);
  if (!x)
    return false;
  x->flops_cut = total * (2 * E - 1) - fq;
  x->macs_cut = q->macs - mq;
  if (!(x = nns__node_more(a, mt->pv->index)))
    return false;
  x->flops_cut = (2 * total - total / S) * Ev - fp;
  x->macs_cut = p->macs - mp;
  return true;
}

/* The same contents read the same way against the same scores. */
static bool same_masks(const match *x, const match *y) {
  if (!y->rank || x->rank != y->rank || x->n_masks != y->n_masks ||
      memcmp(x->dims, y->dims, (size_t)x->rank * sizeof *x->dims))
    return false;
  for (int k = 0; k < x->n_masks; k++) {
    const mask *p = &x->masks[k], *q = &y->masks[k];
    if (p->c != q->c || p->raw != q->raw || p->dtype != q->dtype ||
        p->select != q->select || p->want != q->want || p->rank != q->rank ||
        p->cmp != q->cmp || p->operand != q->operand ||
        p->ramp != q->ramp || p->ramp_from != q->ramp_from ||
        p->filled != q->filled || (p->filled && p->fill != q->fill) ||
        memcmp(p->dims, q->dims, (size_t)p->rank * sizeof *p->dims))
      return false;
  }
  return true;
}

/* Keeps an attention for the backward (nns__attention_backward), where
 * its two products share a module: the pairs counted, or (pr NULL) none,
 * its mask not known. */
static void keep_row(nns__analysis *a, match *mt, const pairs *pr) {
  const char *scope = mt->qk->scope;
  if (!a->attn || !scope || !mt->pv->scope || strcmp(scope, mt->pv->scope) ||
      (!mt->rank && !at_scores(mt, mt->qk->out[0])))
    return;
  nns__attn_row *row = &a->attn[a->n_attn++];
  memset(row, 0, sizeof *row);
  row->scope = scope;
  row->rank = mt->rank;
  memcpy(row->dims, mt->dims, sizeof row->dims);
  row->unknown = !pr;
  if (pr) {
    row->allowed = pr->allowed;
    row->rows = pr->rows;
    row->cols = pr->cols;
  }
}

void nns__attention_unmasked(nns_model *m, nns__analysis *a) {
  const nns__graph *g = a->main;
  size_t n_soft = 0;
  for (int32_t i = 0; i < g->n_nodes; i++)
    n_soft += g->nodes[i].op && g->nodes[i].op->attn == NNS__ATTN_SOFTMAX;
  /* No softmax, no attention: the readers of every value (a pass over
   * every node's inputs, cold in cache) are not needed. */
  if (!n_soft)
    return;
  users u = {calloc(m->n_values + 1, sizeof *u.one),
             calloc(m->n_values + 1, sizeof *u.count)};
  if (u.one && u.count)
    for (int32_t i = 0; i < g->n_nodes; i++) {
      const nns__node *n = &g->nodes[i];
      for (int32_t k = 0; k < n->n_in; k++) {
        const nns__value *v = n->in[k];
        if (!v || v->index >= m->n_values)
          continue;
        if (u.count[v->index] < 2 && u.one[v->index] != n)
          u.count[v->index]++;
        u.one[v->index] = n;
      }
    }
  a->attn =
      n_soft ? nns__arena_array(&a->arena, n_soft, sizeof *a->attn) : NULL;
  a->attn_unknown =
      nns__arena_array(&a->arena, n_soft, sizeof *a->attn_unknown);
  match last;
  memset(&last, 0, sizeof last);
  bool last_ok = false;
  pairs last_pairs = {0, 0, 0};
  for (int32_t i = 0; u.one && u.count && i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    if (!n->op || n->op->attn != NNS__ATTN_SOFTMAX || n->n_in < 1 ||
        n->n_out < 1 || !n->in[0] || !n->out[0] || !over_keys(n))
      continue;
    match mt;
    memset(&mt, 0, sizeof mt);
    mt.m = m;
    if (!back_to_scores(n->in[0], &mt)) {
      /* an attention whose mask is not known: counted dense, and said */
      if (mt.unknown && mt.qk && a->attn_unknown &&
          on_to_product(&u, n->out[0], &mt)) {
        a->attn_unknown[a->n_attn_unknown++] = mt.unknown;
        /* its two products' unmasked counts are dense: not exact */
        a->nodes[mt.qk->index].flags |= NNS_COUNT_MASK_UNKNOWN;
        a->nodes[mt.pv->index].flags |= NNS_COUNT_MASK_UNKNOWN;
        keep_row(a, &mt, NULL);
      }
      continue;
    }
    if (!on_to_product(&u, n->out[0], &mt))
      continue;
    a->attention++;
    if (!mt.rank && !at_scores(&mt, n->in[0]))
      continue;
    if (!a->attn_queries && mt.rank >= 2)
      a->attn_queries = mt.dims[mt.rank - 2];
    /* Layers that share one mask (a model builds it once, or a binding
     * handed the same contents over for each layer) count it once. */
    if (!same_masks(&mt, &last)) {
      last = mt;
      last_ok = count_pairs(&mt, &last_pairs);
    }
    if (!last_ok || !apply(a, &mt, &last_pairs))
      continue;
    keep_row(a, &mt, &last_pairs);
  }
  free(u.one);
  free(u.count);
}

/* ==== The recorded backward ==== */

/* The forward attention in n's module whose scores are dims (transposed:
 * [.., S, L]), the dims before L and S taken together (a batched product
 * folds batch and heads into one), or NULL when none or several that
 * count differently. */
static const nns__attn_row *forward_row(const nns__analysis *fwd,
                                        const nns__node *n, int32_t rank,
                                        const int64_t *dims, bool transposed) {
  const nns__attn_row *found = NULL;
  int64_t batch = 1;
  for (int32_t k = 0; k < rank - 2; k++)
    if (!nns__mul_i64(batch, dims[k], &batch))
      return NULL;
  for (size_t k = 0; n->scope && k < fwd->n_attn; k++) {
    const nns__attn_row *row = &fwd->attn[k];
    int64_t rb = 1;
    bool ok = true;
    for (int32_t j = 0; j < row->rank - 2 && ok; j++)
      ok = nns__mul_i64(rb, row->dims[j], &rb);
    if (!ok || rb != batch || !row->scope || strcmp(row->scope, n->scope))
      continue;
    int64_t L = row->dims[row->rank - 2], S = row->dims[row->rank - 1];
    if (dims[rank - 2] != (transposed ? S : L) ||
        dims[rank - 1] != (transposed ? L : S))
      continue;
    if (row->unknown)
      return row; /* a mask not known there: flagged whatever the rest */
    if (found && (found->allowed != row->allowed || found->rows != row->rows ||
                  found->cols != row->cols))
      return NULL;
    found = row;
  }
  return found;
}

/* Whether v is a Transpose's output swapping its last two axes. */
static bool swaps_last_two(const nns__value *v) {
  const nns__node *p = v->producer;
  if (!p || !p->op || strcmp(p->op->name, "Transpose") || p->op->domain[0])
    return false;
  for (int32_t k = 0; k < p->n_attrs; k++) {
    const nns__attr *at = &p->attrs[k];
    if (strcmp(at->name, "perm") || at->n < 2 || !at->ints)
      continue;
    for (int32_t j = 0; j < at->n - 2; j++)
      if (at->ints[j] != j)
        return false;
    return at->ints[at->n - 2] == at->n - 1 && at->ints[at->n - 1] == at->n - 2;
  }
  return false;
}

/* A product of the backward whose operand or output is an attention's
 * scores (or their transpose): the part of it over masked pairs is left
 * out of its unmasked counts. With P [.., L, S] the forward's softmax
 * output, dO, V, K, Q the usual, its four products are
 *   dP = dO.V^T    output [.., L, S] (or its transpose): per pair Ev
 *                  MACs, 2Ev-1 FLOPs;
 *   dQ = dS.K      operand [.., L, S], sums over keys: E MACs a pair, and
 *                  E (2 allowed - rows) FLOPs;
 *   dV = P^T.dO,
 *   dK = dS^T.Q    operand [.., S, L], sums over queries: as dQ with
 *                  columns for rows.
 * A product where the output and an operand, or both operands, could be
 * the scores (a head width equal to L or S) is left dense: its dims give
 * two readings. When L == S an operand's dims do not tell its
 * orientation: it is
 * [.., S, L] when a Transpose swapping its last two axes made it (as
 * autograd's batched-product backward spells P^T and dS^T), else
 * [.., L, S]. */
static void backward_product(nns__analysis *a, const nns__analysis *fwd,
                             const nns__node *n) {
  int64_t d[3][MAX_RANK];
  int32_t r[3];
  const nns__value *v[3] = {n->in[0], n->in[1], n->out[0]};
  for (int k = 0; k < 3; k++)
    if (!dims_of(NULL, v[k], &r[k], d[k]) || r[k] < 2)
      return;
  const nns__anode *c = &a->nodes[n->index];
  /* the output's axes: M rows, N columns; the sum runs over K */
  int64_t M = d[2][r[2] - 2], N = d[2][r[2] - 1], K = d[0][r[0] - 1];
  int64_t batch = 1, total, dense_m, dense_f, masked_m, masked_f;
  for (int32_t k = 0; k < r[2] - 2; k++)
    if (!nns__mul_i64(batch, d[2][k], &batch))
      return;
  if (K < 1 || K > INT64_MAX / 2 || !nns__mul_i64(batch, M, &total) ||
      !nns__mul_i64(total, N, &total) || !nns__mul_i64(total, K, &dense_m) ||
      dense_m != c->macs || !nns__mul_i64(total, 2 * K - 1, &dense_f))
    return;
  /* Which of the output and the two operands are the scores; a product
   * where more than one could be (a head width equal to L or S) has two
   * readings and stays dense. */
  const nns__attn_row *rows[3];
  bool tr[3];
  int found = 0, side = -1;
  for (int k = 0; k < 3; k++) {
    tr[k] = false;
    rows[k] = forward_row(fwd, n, r[k], d[k], false);
    if (!rows[k]) {
      rows[k] = forward_row(fwd, n, r[k], d[k], true);
      tr[k] = rows[k] != NULL;
    }
    if (rows[k]) {
      found++;
      side = k;
    }
  }
  /* over the scores of an attention whose mask is not known: dense, and
   * said (as its forward products are) */
  for (int k = 0; k < 3; k++)
    if (rows[k] && rows[k]->unknown) {
      a->nodes[n->index].flags |= NNS_COUNT_MASK_UNKNOWN;
      return;
    }
  if (found != 1)
    return;
  const nns__attn_row *row = rows[side];
  int64_t twice;
  if (side == 2) {
    /* the scores are the output: per allowed pair a K-long dot */
    if (!nns__mul_i64(row->allowed, K, &masked_m) ||
        !nns__mul_i64(row->allowed, 2 * K - 1, &masked_f))
      return;
  } else {
    /* the scores are the summed operand: in[0] [.., M, K] or in[1]
     * [.., K, N]; per allowed pair one MAC per output element on the
     * other side, and an output row or column with no allowed pair
     * costs nothing */
    bool t = tr[side];
    int32_t rr = row->rank;
    if (row->dims[rr - 2] == row->dims[rr - 1])
      t = swaps_last_two(v[side]);
    /* the output's other axis (N for in[0], M for in[1]) */
    int64_t other = side == 0 ? N : M;
    /* in[0] [.., L, S] (not transposed) keeps the queries in the output:
     * its empty outputs are the rows with no key; in[1] the other way */
    int64_t empty_from = (side == 0) != t ? row->rows : row->cols;
    if (empty_from < 0 || !nns__mul_i64(row->allowed, other, &masked_m) ||
        !nns__mul_i64(row->allowed, 2, &twice) ||
        !nns__mul_i64(twice - empty_from, other, &masked_f))
      return;
  }
  nns__anode_more *x = nns__node_more(a, n->index);
  if (x) {
    x->macs_cut = dense_m - masked_m;
    x->flops_cut = dense_f - masked_f;
  }
}

void nns__attention_warn(nns_model *m, const nns__analysis *a) {
  for (size_t i = 0; i < a->n_attn_unknown; i++) {
    const nns__node *n = a->attn_unknown[i];
    nns__warn(m,
              "attention: node '%s' (%s) applies a mask whose contents are "
              "not known (not given, or computed from values not tracked): "
              "macs_unmasked and flops_unmasked count this attention dense",
              n->name[0] ? n->name : "(unnamed)", n->op_type);
  }
}

void nns__attention_backward(nns__analysis *a, const nns__analysis *fwd) {
  const nns__graph *g = a->main;
  for (int32_t i = 0; fwd->n_attn && i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    if (n->op && n->op->attn == NNS__ATTN_PRODUCT && n->n_in == 2 &&
        n->n_out >= 1 && n->in[0] && n->in[1] && n->out[0])
      backward_product(a, fwd, n);
  }
}

/* ==== Tokens ==== */

/* An integer graph input that an embedding lookup reads as its indices (an
 * input of a node whose input 0 is a float weight): its element count (the
 * largest such, so that position ids [1, T] beside input_ids [B, T] do not
 * count). Else, in a model with attention and a rank-3 float input
 * [B, T, D], batch x sequence: T, or where the first attention's query
 * length is not T (audio frames [B, bins, frames] through a strided
 * convolution) that length. Else (or when that overflows) 0. */
int64_t nns__tokens(const nns_model *m, const nns__analysis *a) {
  const nns__graph *g = a->main;
  int64_t best = 0;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    if (!n->op || n->n_in < 2 || !n->in[0] || !n->op->roles ||
        n->op->roles[0] != 'w' || !nns__dtype_is_float(n->in[0]->type.dtype))
      continue;
    for (int32_t k = 1; k < n->n_in; k++) {
      const nns__value *v = n->in[k];
      int64_t c = numel_of(NULL, v);
      if (v && v->is_graph_input && !v->init && c > best &&
          nns__dtype_is_int(v->type.dtype) && v->type.dtype != NNS_DT_BOOL)
        best = c;
    }
  }
  if (best)
    return best;
  for (int32_t i = 0; a->attention && i < g->n_inputs; i++) {
    const nns__value *v = g->inputs[i];
    int64_t d[MAX_RANK];
    int32_t r;
    int64_t tokens;
    if (!v || v->init || !nns__dtype_is_float(v->type.dtype) ||
        !dims_of(NULL, v, &r, d) || r != 3)
      continue;
    /* [B, T, D] embeddings: T; else the positions the first attention
     * runs over (Whisper's log-mel [B, bins, frames]: frames / 2 after
     * its strided convolution, never the bins) */
    int64_t seq = d[1];
    if (a->attn_queries > 0 && a->attn_queries != d[1])
      seq = a->attn_queries;
    return nns__mul_i64(d[0], seq, &tokens) ? tokens : 0;
  }
  (void)m;
  return 0;
}
