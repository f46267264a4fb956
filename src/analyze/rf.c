/*
 * rf.c - receptive fields on any graph: every value of the main graph gets
 * one, propagated in node order; then each layer takes that of its output
 * and the model that of the last value with spatial axes on the path to
 * its outputs (docs/metrics.md, "Receptive field").
 *
 * A graph input of rank >= 3 starts with one spatial axis per dim after
 * the first two (rank - 2, at most NNS_RF_MAX_AXES), field 1, stride 1,
 * padding 0; a channels-last input (N, H, W, C: TensorFlow exports) has
 * them on the dims between the first and the last (channels_last()). A field also records which dim of its value holds each
 * spatial axis, so that data movement can carry the axes to new dims.
 *
 * A node whose op has a receptive-field rule (its table entry's `.rf`:
 * sliding ops, views, Transpose, reductions, MatMul, normalisations) maps
 * the field of its first activation input; the rule also sees every
 * input's field (attention reads B's). A node without one, or whose rule
 * says NNS__RF_MERGE (a Concat that is not a rotation), broadcasts: each
 * activation input's spatial dims line up with the output's from the
 * right (element-wise ops, Add, Mul, Concat, Split, Expand), and the
 * output's field is, per axis and position, the union of the inputs' (the
 * smallest start and the largest end of the pixels any of them reads). An
 * input whose spatial dims do not line up with the output's loses them.
 *
 * A view may split an axis into windows or merge it with another
 * (nns__rf's len and win); only rules flagged rf_parts follow that, and
 * for other rules such a field is lost (whole). Fields that differ
 * between positions (windowed attention) keep their periods in a pool
 * (src/ops/rf_period.c); rules not flagged rf_parts get their envelope.
 *
 * `whole` is kept for values whose spatial axes are gone (reduced away,
 * merged into channels). When a whole value meets one with a finite
 * field, the result keeps the finite field and is flagged global_context;
 * so does the output of a rule that mixes positions (Softmax over space).
 * The flag then travels along with the field. A value whose positions
 * have each seen every position (attention over all of them) is whole
 * but keeps its axes (`full`): merged with a finite field it stays whole,
 * and it is the model's field when it is the last spatial value.
 *
 * Values with known contents (shape arithmetic) carry no field.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "../ops/rf_axes.h"
#include "../ops/rf_period.h"
#include "../ops/window.h"

/* The field of one value and, for a whole one, that of the last value on
 * its path that still had spatial axes (what the model reports). */
typedef struct rf_val {
  nns__rf r;
  nns_rf last;
} rf_val;

/* The fields of all values. Most values of a transformer (and every value
 * of a graph without spatial inputs) never get one, and most others share
 * one with their neighbours (an elementwise op keeps its input's), so a
 * value holds an index into a list of the distinct fields set; index 0 is
 * the empty field. The list has room for every value but is not zeroed,
 * so its pages are touched only as new fields come: a 280-byte entry per
 * value was 7,000 page faults (a third) of a 100,000-node summary. */
typedef struct rf_table {
  uint32_t *at;  /* per value: index into vals, 0 = empty */
  rf_val *vals;  /* vals[0] is all zero; n used, room for `room` */
  size_t n, room;
  /* Indices into vals by content: (hash, how many entries of that hash
   * came before) -> index, in base's pair map, malloc'ed by this table
   * alone (the walk may run on a second thread). */
  nns__map2 by_content;
  nns__rf_pool *pool; /* the fields that differ between positions */
} rf_table;

static const rf_val *rf_get(const rf_table *t, size_t value) {
  return &t->vals[t->at[value]];
}

/* Member by member, not as bytes: copies leave padding undefined. Keep in
 * step with nns_rf and nns__rf (src/ops/op.h). */
static bool rf_pub_same(const nns_rf *a, const nns_rf *b) {
  return a->size == b->size && a->axes == b->axes && a->whole == b->whole &&
         a->global_context == b->global_context &&
         !memcmp(a->field, b->field, sizeof a->field) &&
         !memcmp(a->stride, b->stride, sizeof a->stride) &&
         !memcmp(a->padding, b->padding, sizeof a->padding) &&
         !memcmp(a->period, b->period, sizeof a->period);
}

static bool rf_same(const rf_val *a, const rf_val *b) {
  const nns__rf *x = &a->r, *y = &b->r;
  return rf_pub_same(&x->f, &y->f) && rf_pub_same(&a->last, &b->last) &&
         x->full == y->full && !memcmp(x->per, y->per, sizeof x->per) &&
         !memcmp(x->dim, y->dim, sizeof x->dim) &&
         !memcmp(x->len, y->len, sizeof x->len) &&
         !memcmp(x->sub, y->sub, sizeof x->sub) &&
         !memcmp(x->win, y->win, sizeof x->win) &&
         !memcmp(x->wsub, y->wsub, sizeof x->wsub) &&
         !memcmp(x->wdim, y->wdim, sizeof x->wdim);
}

/* Of some members: equal fields hash alike, which is all a probe needs. */
static uint64_t rf_hash(const rf_val *v) {
  uint64_t h = (uint64_t)v->r.f.axes << 32 | (uint32_t)v->r.f.whole;
  for (int k = 0; k < NNS_RF_MAX_AXES; k++)
    h = nns__hash_mix(h ^ (uint64_t)v->r.f.field[k]) ^
        (uint64_t)v->r.f.stride[k] ^ (uint64_t)v->r.dim[k] << 56;
  return nns__hash_mix(h ^ (uint64_t)v->last.field[0]);
}

/* Sets the field of a value; an empty field takes no entry, an equal one
 * set before is shared (`hint`, an entry that may be equal, is tried
 * first; 0 for none). There is room for every value set once (the
 * loader and the builder reject a name defined twice); past that room a
 * value keeps no field rather than a write past the list. */
static void rf_set(rf_table *t, size_t value, const rf_val *v,
                   uint32_t hint) {
  if (!(v->r.f.axes > 0 || v->r.f.whole || v->last.axes > 0 ||
        v->last.whole)) {
    t->at[value] = 0;
    return;
  }
  /* Equal fields share one entry, so an equal hint is the one entry the
   * index would find. */
  if (hint && rf_same(&t->vals[hint], v)) {
    t->at[value] = hint;
    return;
  }
  /* Unequal fields of one hash are rare: each takes one more probe. Out of
   * memory for the index, a new entry is still kept, only not found
   * again (an equal field later takes an entry of its own). */
  uint64_t h = rf_hash(v) | 1; /* the pair map's key 0 marks a free slot */
  uint32_t nth = 0, found;
  for (; nns__map2_get(&t->by_content, h, nth, &found); nth++)
    if (rf_same(&t->vals[found], v)) {
      t->at[value] = found;
      return;
    }
  if (t->n >= t->room) {
    t->at[value] = 0;
    return;
  }
  (void)nns__map2_add(&t->by_content, h, nth, (uint32_t)t->n);
  t->vals[t->n] = *v;
  t->at[value] = (uint32_t)t->n++;
}

static int64_t rf_size(const nns_rf *r) {
  if (r->whole)
    return INT64_MAX; /* whole with its axes: sees everything */
  int64_t best = 0;
  for (int k = 0; k < r->axes && k < NNS_RF_MAX_AXES; k++)
    if (r->field[k] > best)
      best = r->field[k];
  return best;
}

static bool known(const nns__rf *r) { return r->f.whole || r->f.axes > 0; }

/* The largest of two "last spatial" fields. */
static void keep_larger(nns_rf *dst, const nns_rf *src) {
  if (src->axes > 0 && (dst->axes <= 0 || rf_size(src) > rf_size(dst)))
    *dst = *src;
}

static bool carries_field(const nns__analysis *a, const nns__value *v) {
  return v && !a->is_param_value[v->index] && !v->cval;
}

/* Dim d of `tin` lined up with dim d + shift of `tout`: in range and, when
 * `same` (another rank, or an axis split or merged), of equal size. */
static bool line_dim(const nns__type *tin, const nns__type *tout, int32_t d,
                     int32_t shift, bool same) {
  int32_t e = d + shift;
  return d >= 0 && d < tin->rank && e >= 0 && e < tout->rank &&
         (!same || nns__dim_eq(tin->dims[d], tout->dims[e]));
}

/* Whether spatial axis k of `in` survives, shifted by `shift` dims. */
static bool axis_lines_up(const nns__rf *in, int k, const nns__type *tin,
                          const nns__type *tout, int32_t shift) {
  bool same = shift != 0 || in->len[k] || in->win[k];
  return line_dim(tin, tout, in->dim[k], shift, same) &&
         (!in->win[k] || line_dim(tin, tout, in->wdim[k], shift, true));
}

/*
 * `in` (the field of a value of type `tin`) with its spatial dims lined
 * up from the right with an output of type `tout`: false when one does
 * not survive. With equal ranks every dim of a plain axis survives (Split,
 * Concat or Tile along a spatial dim resize it but keep it); with another
 * rank, or for an axis split into windows or merged with another, the
 * lined-up dims must also be equal (a broadcast).
 */
static bool line_up(const nns__rf *in, const nns__type *tin,
                    const nns__type *tout, nns__rf *res) {
  *res = *in;
  if (tout->rank < 0 || tin->rank < 0)
    return tin->rank == tout->rank;
  int32_t shift = tout->rank - tin->rank;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++) {
    if (!axis_lines_up(in, k, tin, tout, shift))
      return false;
    res->dim[k] = (int8_t)(in->dim[k] + shift);
    if (in->win[k])
      res->wdim[k] = (int8_t)(in->wdim[k] + shift);
  }
  return true;
}

/* Per axis and position, the pixels either field reads. */
static void unite(nns__rf_pool *pool, nns__rf *acc, const nns__rf *b) {
  for (int k = 0; k < acc->f.axes && k < NNS_RF_MAX_AXES; k++)
    nns__rf_unite_axis(pool, acc, b, k);
  acc->f.global_context |= b->f.global_context;
}

static bool same_dims(const nns__rf *a, const nns__rf *b) {
  if (a->f.axes != b->f.axes)
    return false;
  for (int k = 0; k < a->f.axes && k < NNS_RF_MAX_AXES; k++)
    if (a->dim[k] != b->dim[k] || a->len[k] != b->len[k] ||
        a->sub[k] != b->sub[k] || a->win[k] != b->win[k] ||
        (a->win[k] && (a->wdim[k] != b->wdim[k] || a->wsub[k] != b->wsub[k])))
      return false;
  return true;
}

/* A node without a rule, for its output of type `tout`. */
static void broadcast(const nns__analysis *a, const rf_table *rf,
                      const nns__node *n, const nns__type *tout,
                      rf_val *out) {
  memset(out, 0, sizeof *out);
  bool have = false, global = false, any_whole = false, any_full = false;
  nns__rf whole; /* the first input that is whole here */
  for (int32_t k = 0; k < n->n_in; k++) {
    const nns__value *v = n->in[k];
    if (!carries_field(a, v) || nns__input_role(n, k) != 'a')
      continue;
    const rf_val *in = rf_get(rf, v->index);
    if (!known(&in->r))
      continue;
    if (in->r.f.whole && !in->r.full) {
      if (!any_whole)
        whole = in->r;
      any_whole = true;
      keep_larger(&out->last, &in->last);
      continue;
    }
    global |= in->r.f.global_context;
    nns__rf lined;
    if (!line_up(&in->r, &v->type, tout, &lined)) {
      if (!any_whole) { /* its spatial layout is gone here */
        whole = in->r;
        nns__rf_set_whole(&whole);
      }
      any_whole = true;
      keep_larger(&out->last, &in->r.f);
      continue;
    }
    any_full |= in->r.full;
    if (!have) {
      out->r = lined;
      have = true;
    } else if (same_dims(&out->r, &lined)) {
      unite(rf->pool, &out->r, &lined);
    } else if (rf_size(&lined.f) > rf_size(&out->r.f)) {
      out->r = lined; /* axes that do not line up: keep the larger */
    }
  }
  if (have) {
    out->r.f.global_context = global || any_whole;
    if (any_full) /* a position that has seen everything, plus more */
      nns__rf_set_full(&out->r);
    out->last = out->r.f;
  } else if (any_whole) {
    out->r = whole;
  }
}

/*
 * The entry broadcast() would give an output of type `tout` unchanged, or
 * 0: when one activation input has a field, a finite one, lined up with
 * the output at the same rank, the union of one field is that field
 * (Relu, Mul by a weight, most nodes of a convolutional network). Its
 * entry is then shared without building and comparing a copy.
 */
static uint32_t passed_through(const nns__analysis *a, const rf_table *rf,
                               const nns__node *n, const nns__type *tout) {
  const nns__value *src = NULL;
  for (int32_t k = 0; k < n->n_in; k++) {
    const nns__value *v = n->in[k];
    if (!carries_field(a, v) || nns__input_role(n, k) != 'a' ||
        !known(&rf_get(rf, v->index)->r))
      continue;
    if (src)
      return 0; /* a merge of two fields */
    src = v;
  }
  if (!src)
    return 0;
  const rf_val *in = rf_get(rf, src->index);
  const nns__type *tin = &src->type;
  /* A finite field's "last" is the field itself (kept as broadcast()
   * would set it); a whole one takes broadcast()'s own path. */
  if (in->r.f.whole || tin->rank < 0 || tin->rank != tout->rank ||
      !rf_pub_same(&in->last, &in->r.f))
    return 0;
  for (int k = 0; k < in->r.f.axes && k < NNS_RF_MAX_AXES; k++)
    if (!axis_lines_up(&in->r, k, tin, tout, 0))
      return 0;
  return rf->at[src->index];
}

/* The fields of a node's inputs, for rules that combine two. */
enum { RF_IN_MAX = 8 };

/*
 * A node with a rule: the field of its first activation input mapped (of
 * its first weight slot fed by an activation when it has no activation
 * slot: Gather's data). A field whose axes a reshape split or merged
 * reaches only rules that follow them (rf_parts); others lose it. A value
 * that is whole but keeps its axes (full) goes through the rule like a
 * finite one and stays whole, unless the rule reduces its axes away.
 */
static void apply_rule(nns_model *m, const nns__analysis *a,
                       const rf_table *rf, const nns__node *n, bool *merge,
                       rf_val *out) {
  memset(out, 0, sizeof *out);
  const rf_val *src = NULL, *src_w = NULL;
  const nns__rf *fields[RF_IN_MAX] = {NULL};
  bool others_global = false, has_a = false;
  for (int32_t k = 0; k < n->n_in; k++) {
    const nns__value *v = n->in[k];
    char role = nns__input_role(n, k);
    has_a |= role == 'a';
    if (!carries_field(a, v) || !known(&rf_get(rf, v->index)->r))
      continue;
    const rf_val *f = rf_get(rf, v->index);
    if (k < RF_IN_MAX)
      fields[k] = &f->r;
    if (role == 'w' && !src_w)
      src_w = f;
    if (role != 'a')
      continue;
    if (!src)
      src = f;
    else
      others_global |= f->r.f.whole || f->r.f.global_context;
  }
  if (!src && !has_a)
    src = src_w;
  if (!src)
    return;
  nns_error local;
  nns__ictx cx = {.m = m, .node = (nns__node *)n, .op = n->op,
                  .opset = n->opset, .err = &local, .rf_in = fields,
                  .n_rf_in = n->n_in < RF_IN_MAX ? n->n_in : RF_IN_MAX,
                  .rf_pool = rf->pool};
  if (src->r.f.whole && !src->r.full) {
    nns__rf ignored; /* whole stays whole: the rule only says if it merges */
    *merge = n->op->rf(&cx, &src->r, &ignored) == NNS__RF_MERGE;
    *out = *src;
    return;
  }
  nns__rf in = src->r;
  bool was_full = in.full;
  in.f.whole = 0;
  in.full = false;
  if (!n->op->rf_parts) {
    if (!nns__rf_plain(&in)) {
      out->r = in;
      nns__rf_set_whole(&out->r);
      out->last = src->r.f;
      return;
    }
    nns__rf_envelope(rf->pool, &in); /* sliding ops: the same field everywhere */
  }
  nns_status st = n->op->rf(&cx, &in, &out->r);
  if (st == NNS__RF_MERGE) {
    *merge = true;
    memset(out, 0, sizeof *out);
    return;
  }
  if (st != NNS_OK || out->r.f.axes < 0 ||
      out->r.f.axes > NNS_RF_MAX_AXES) {
    memset(out, 0, sizeof *out);
    return;
  }
  if (out->r.f.whole && !out->r.full) {
    nns__rf_set_whole(&out->r);
    out->last = src->r.f;
  } else {
    out->r.f.global_context |= src->r.f.global_context || others_global;
    if (was_full || out->r.full)
      nns__rf_set_full(&out->r);
    out->last = out->r.f;
  }
}

/* A layer whose field differs between positions keeps its periods in the
 * analysis arena (nns_analysis_layer_rf_span); false when out of memory. */
static bool keep_periods(nns__analysis *a, const nns__rf_pool *pool,
                         const nns__rf *r, nns__alayer *la) {
  la->per = NULL;
  if (r->f.whole)
    return true;
  for (int k = 0; k < r->f.axes && k < NNS_RF_MAX_AXES; k++) {
    if (!r->per[k] || nns__rf_period(pool, r, k) <= 1)
      continue; /* per[k] 0: no entry, period 1 */
    if (!la->per) {
      la->per = nns__arena_array(&a->arena, NNS_RF_MAX_AXES,
                                 sizeof *la->per);
      if (!la->per)
        return false;
    }
    la->per[k] = pool->items[r->per[k]];
  }
  return true;
}

/* The first node of the main graph that reads v, or NULL. */
static const nns__node *first_reader(const nns__analysis *a,
                                     const nns__graph *g,
                                     const nns__value *v) {
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = a->order[i];
    for (int32_t k = 0; k < n->n_in; k++)
      if (n->in[k] == v)
        return n;
  }
  return NULL;
}

static bool dims_equal(const nns__type *t, const nns__type *u,
                       const int32_t *from) {
  for (int32_t d = 0; d < t->rank; d++)
    if (!nns__dim_eq(u->dims[d], t->dims[from[d]]))
      return false;
  return true;
}

/*
 * Whether graph input v is channels-last (N, H, W, C): a TensorFlow export
 * (tf2onnx) reads such an input through a Transpose to (N, C, H, W), or,
 * when C is 1, through the Reshape its optimizer writes for that
 * Transpose. Decided from shapes alone: following v through readers that
 * keep its dims (a Cast, a normalising Sub or Mul), the first reader that
 * changes them gives dims equal to v's with the last moved to position 1,
 * and not also equal to v's own (C = H = W cannot tell).
 */
static bool channels_last(const nns__analysis *a, const nns__graph *g,
                          const nns__value *v) {
  const nns__type *t = &v->type;
  int32_t r = t->rank, id[NNS_RF_MAX_AXES + 2], cl[NNS_RF_MAX_AXES + 2];
  if (r < 3 || r > NNS_RF_MAX_AXES + 2)
    return false;
  for (int32_t d = 0; d < r; d++) {
    id[d] = d;
    cl[d] = d == 0 ? 0 : d == 1 ? r - 1 : d - 1;
  }
  for (int hop = 0; hop < 8 && v; hop++) {
    const nns__node *n = first_reader(a, g, v);
    if (!n || n->n_out < 1 || !n->out[0])
      return false;
    const nns__type *u = &n->out[0]->type;
    if (u->rank != r)
      return false;
    if (dims_equal(t, u, id)) {
      v = n->out[0];
      continue;
    }
    return dims_equal(t, u, cl);
  }
  return false;
}

/* What the per-node pass leaves for the layers' pass: every value's
 * field, the pool of fields that differ between positions, and the first
 * node that turned a finite field whole (for the warning). */
struct nns__rf_walk {
  rf_table rf;
  nns__rf_pool pool;
  const nns__node *lost;
  bool nomem;
};

void nns__rf_walk_free(nns__rf_walk *w) {
  if (!w)
    return;
  free(w->rf.at);
  free(w->rf.vals);
  nns__map2_free(&w->rf.by_content);
  nns__rf_pool_free(&w->pool);
  free(w);
}

nns__rf_walk *nns__rf_walk_nodes(nns_model *m, const nns__analysis *a) {
  const nns__graph *g = m->graph;
  nns__rf_walk *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  /* Indices are 32-bit; no model comes near (each value is an object). */
  bool fits = m->n_values < UINT32_MAX &&
              m->n_values < SIZE_MAX / sizeof(rf_val) - 1;
  rf_table *rf = &w->rf;
  *rf = (rf_table){.at = fits ? calloc(m->n_values + 1, sizeof *rf->at) : NULL,
                   .vals = fits ? malloc((m->n_values + 1) * sizeof *rf->vals)
                                : NULL,
                   .n = 1,
                   .room = m->n_values + 1,
                   .pool = &w->pool};
  if (!rf->at || !rf->vals) {
    w->nomem = true;
    return w;
  }
  memset(&rf->vals[0], 0, sizeof rf->vals[0]);
  for (int32_t i = 0; i < g->n_inputs; i++) {
    const nns__value *v = g->inputs[i];
    if (!v || v->init || v->type.rank < 3 ||
        v->type.rank - 2 > NNS_RF_MAX_AXES)
      continue;
    rf_val start;
    memset(&start, 0, sizeof start);
    nns__rf_start(NULL, v->type.rank - 2, &start.r);
    if (channels_last(a, g, v))
      for (int k = 0; k < start.r.f.axes; k++)
        start.r.dim[k] = (int8_t)(1 + k);
    start.last = start.r.f;
    rf_set(rf, v->index, &start, 0);
  }
  /* No input has spatial axes (a language model's token ids): rules and
   * broadcasts only map their inputs' fields, so no value gets one. */
  if (rf->n == 1)
    return w;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = a->order[i];
    rf_val by_rule, merged;
    bool merge = !n->op || !n->op->rf;
    if (!merge)
      apply_rule(m, a, rf, n, &merge, &by_rule);
    /* Most outputs keep an input's field (element-wise ops): the entry of
     * the first input that has one is tried before the list's index. */
    uint32_t hint = 0;
    for (int32_t k = 0; k < n->n_in && !hint; k++)
      if (carries_field(a, n->in[k]))
        hint = rf->at[n->in[k]->index];
    for (int32_t k = 0; k < n->n_out; k++) {
      const nns__value *v = n->out[k];
      if (!carries_field(a, v))
        continue;
      const rf_val *out = &by_rule;
      uint32_t same = merge ? passed_through(a, rf, n, &v->type) : 0;
      if (same) {
        rf->at[v->index] = same;
        continue;
      }
      if (merge) {
        broadcast(a, rf, n, &v->type, &merged);
        out = &merged;
      }
      if (!w->lost && out->r.f.whole && !out->r.full && out->last.axes > 0 &&
          !out->last.whole)
        w->lost = n;
      rf_set(rf, v->index, out, hint);
    }
  }
  return w;
}

/* Whether some value's positions read more than one position of the input
 * along a spatial axis: a field or a stride above 1 (a sliding op, a
 * resize, a patch embedding) or attention over every position (`full`).
 * Without one, the input's "spatial" axes were never slid over (a
 * TransformerEncoder's (batch, seq, features): the features dim is taken
 * as an axis, and matrix products over it only add global context), and
 * the model has no receptive field to report. */
static bool any_window(const rf_table *rf) {
  for (size_t i = 1; i < rf->n; i++) {
    const nns__rf *r = &rf->vals[i].r;
    if (r->full)
      return true;
    for (int k = 0; k < r->f.axes && k < NNS_RF_MAX_AXES; k++)
      if (r->f.field[k] > 1 || r->f.stride[k] > 1)
        return true;
  }
  return false;
}

nns_status nns__rf_analyze(nns_model *m, nns__analysis *a, nns__rf_walk *w,
                           nns_error *err) {
  const nns__graph *g = m->graph;
  uint32_t *layer_of = NULL; /* list entry -> index into a->layer_rfs */
  if (!w || w->nomem)
    goto nomem;
  const rf_table *rf = &w->rf;
  /* No value got a field: every layer keeps the empty one (a->layers[].rf
   * 0, a->rf zero). */
  if (rf->n == 1) {
    a->layer_rfs = nns__arena_array(&a->arena, 1, sizeof *a->layer_rfs);
    if (!a->layer_rfs)
      goto nomem;
    nns__rf_walk_free(w);
    return NNS_OK;
  }
  /* Layers: the field of their output. Layers whose outputs share an
   * entry of the list share one kept field (layer_of, by entry; 0: none
   * kept yet); entry 0, the empty field, is the all-zero layer_rfs[0]. */
  nns_rf best_layer;
  memset(&best_layer, 0, sizeof best_layer);
  layer_of = calloc(rf->n + 1, sizeof *layer_of);
  a->layer_rfs = nns__arena_array(&a->arena, rf->n + 1, sizeof *a->layer_rfs);
  if (!layer_of || !a->layer_rfs)
    goto nomem;
  uint32_t n_kept = 1;
  for (size_t l = 0; l < a->n_layers; l++) {
    nns__alayer *la = &a->layers[l];
    size_t out = la->info.output_value;
    if (out == NNS__NONE32 || out >= m->n_values)
      continue;
    uint32_t entry = rf->at[out];
    const nns__rf *r = &rf->vals[entry].r;
    if (entry && !layer_of[entry]) {
      layer_of[entry] = n_kept;
      a->layer_rfs[n_kept++] = r->f;
    }
    la->rf = layer_of[entry];
    const nns_rf *f = &a->layer_rfs[la->rf];
    if (!f->whole)
      keep_larger(&best_layer, f);
    if (!keep_periods(a, &w->pool, r, la))
      goto nomem;
  }
  /* The model: the last spatial field on the path to its outputs (the
   * largest over several outputs); a graph whose outputs carry none falls
   * back on the largest finite field of its layers. */
  nns_rf model;
  memset(&model, 0, sizeof model);
  for (int32_t i = 0; i < g->n_outputs; i++) {
    const nns__value *v = g->outputs[i];
    if (v && v->index < m->n_values)
      keep_larger(&model, &rf_get(rf, v->index)->last);
  }
  a->rf = model.axes > 0 ? model : best_layer;
  /* No layer kept a finite field, yet an input had one: the model's field
   * is then the input's own, and every row says whole. Say where (the
   * text footer quotes this warning after its "receptive field: "). */
  const nns__node *lost = w->lost;
  bool warn_lost = lost && best_layer.axes <= 0 && model.axes > 0 &&
                   !model.whole;
  if (warn_lost)
    nns__warn(m, "receptive field: node '%s' (%s) lost the input's spatial "
                 "axes before any sliding op read them",
              lost->name[0] ? lost->name : "(unnamed)", lost->op_type);
  else if (!any_window(rf)) {
    /* Nothing slid over the axes: no field to report, on any layer. */
    memset(&a->rf, 0, sizeof a->rf);
    for (size_t l = 0; l < a->n_layers; l++) {
      a->layers[l].rf = 0;
      a->layers[l].per = NULL;
    }
  }
  free(layer_of);
  nns__rf_walk_free(w);
  return NNS_OK;
nomem:
  free(layer_of);
  nns__rf_walk_free(w);
  return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
}
