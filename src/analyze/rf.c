/*
 * rf.c - receptive fields on any graph: every value of the main graph gets
 * one, propagated in node order; then each layer takes that of its output
 * and the model that of the last value with spatial axes on the path to
 * its outputs (docs/metrics.md, "Receptive field").
 *
 * A graph input of rank >= 3 starts with one spatial axis per dim after
 * the first two (rank - 2, at most NNS_RF_MAX_AXES), field 1, stride 1,
 * padding 0. A field also records which dim of its value holds each
 * spatial axis, so that data movement can carry the axes to new dims.
 *
 * A node whose op has a receptive-field rule (its table entry's `.rf`:
 * sliding ops, views, Transpose, reductions, MatMul, normalisations) maps
 * the field of its first activation input. A node without one broadcasts:
 * each activation input's spatial dims line up with the output's from the
 * right (element-wise ops, Add, Mul, Concat, Split, Expand), and the
 * output's field per axis is the union of the inputs' (the smallest start
 * and the largest end of the pixels that any of them reads). An input
 * whose spatial dims do not line up with the output's loses them.
 *
 * `whole` is kept for values whose spatial axes are gone (reduced away,
 * merged into other dims). When a whole value meets one with a finite
 * field, the result keeps the finite field and is flagged global_context;
 * so does the output of a rule that mixes positions (Softmax over space).
 * The flag then travels along with the field.
 *
 * Values with known contents (shape arithmetic) carry no field.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "../ops/rf_axes.h"
#include "../ops/window.h"

/* The field of one value and, for a whole one, that of the last value on
 * its path that still had spatial axes (what the model reports). */
typedef struct rf_val {
  nns__rf r;
  nns_rf last;
} rf_val;

/* The fields of all values. Most values of a transformer (and every value
 * of a graph without spatial inputs) never get one, so a value holds an
 * index into a list of the fields actually set; index 0 is the empty field.
 * The list has room for every value but is not zeroed, so its pages are
 * touched only as fields are set: a zeroed 200-byte entry per value was a
 * seventh of the page faults of a LLaMA-shaped summary. */
typedef struct rf_table {
  uint32_t *at;  /* per value: index into vals, 0 = empty */
  rf_val *vals;  /* vals[0] is all zero; n used */
  size_t n;
} rf_table;

static const rf_val *rf_get(const rf_table *t, size_t value) {
  return &t->vals[t->at[value]];
}

/* Sets the field of a value; an empty field takes no entry. There is room
 * for every value, each set at most once (again: in place). */
static void rf_set(rf_table *t, size_t value, const rf_val *v) {
  static const rf_val empty;
  if (t->at[value] != 0) {
    t->vals[t->at[value]] = *v;
  } else if (memcmp(v, &empty, sizeof empty) != 0) {
    t->vals[t->n] = *v;
    t->at[value] = (uint32_t)t->n++;
  }
}

static int64_t rf_size(const nns_rf *r) {
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

/*
 * `in` (the finite field of a value of type `tin`) with its spatial dims
 * lined up from the right with an output of type `tout`: false when one
 * does not survive. With equal ranks every dim survives (Split, Concat or
 * Tile along a spatial dim resize it but keep it); with another rank the
 * lined-up dims must also be equal (a broadcast).
 */
static bool line_up(const nns__rf *in, const nns__type *tin,
                    const nns__type *tout, nns__rf *res) {
  *res = *in;
  if (tout->rank < 0 || tin->rank < 0)
    return tin->rank == tout->rank;
  int32_t shift = tout->rank - tin->rank;
  for (int k = 0; k < in->f.axes && k < NNS_RF_MAX_AXES; k++) {
    int32_t d = in->dim[k], e = d + shift;
    if (d < 0 || d >= tin->rank || e < 0 || e >= tout->rank ||
        (shift != 0 && !nns__dim_eq(tin->dims[d], tout->dims[e])))
      return false;
    res->dim[k] = (int8_t)e;
  }
  return true;
}

/* Per axis, the pixels either field reads: leading padding p (where the
 * field of element 0 starts, negated) and end r - 1 - p. */
static void unite(nns__rf *acc, const nns__rf *b) {
  for (int k = 0; k < acc->f.axes && k < NNS_RF_MAX_AXES; k++) {
    nns_rf *x = &acc->f;
    const nns_rf *y = &b->f;
    int64_t pad = x->padding[k] > y->padding[k] ? x->padding[k]
                                                : y->padding[k];
    int64_t ex = x->field[k] - 1 - x->padding[k];
    int64_t ey = y->field[k] - 1 - y->padding[k];
    int64_t end = ex > ey ? ex : ey, field;
    if (nns__add_i64(pad, end, &field) && nns__add_i64(field, 1, &field))
      x->field[k] = field;
    x->padding[k] = pad;
    if (y->stride[k] > x->stride[k])
      x->stride[k] = y->stride[k];
  }
  acc->f.global_context |= b->f.global_context;
}

static bool same_dims(const nns__rf *a, const nns__rf *b) {
  if (a->f.axes != b->f.axes)
    return false;
  for (int k = 0; k < a->f.axes && k < NNS_RF_MAX_AXES; k++)
    if (a->dim[k] != b->dim[k])
      return false;
  return true;
}

/* A node without a rule, for its output of type `tout`. */
static rf_val broadcast(const nns__analysis *a, const rf_table *rf,
                        const nns__node *n, const nns__type *tout) {
  rf_val out;
  memset(&out, 0, sizeof out);
  bool have = false, global = false, any_whole = false;
  nns__rf whole; /* the first input that is whole here */
  for (int32_t k = 0; k < n->n_in; k++) {
    const nns__value *v = n->in[k];
    if (!carries_field(a, v) || nns__input_role(n, k) != 'a')
      continue;
    const rf_val *in = rf_get(rf, v->index);
    if (!known(&in->r))
      continue;
    if (in->r.f.whole) {
      if (!any_whole)
        whole = in->r;
      any_whole = true;
      keep_larger(&out.last, &in->last);
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
      keep_larger(&out.last, &in->r.f);
      continue;
    }
    if (!have) {
      out.r = lined;
      have = true;
    } else if (same_dims(&out.r, &lined)) {
      unite(&out.r, &lined);
    } else if (rf_size(&lined.f) > rf_size(&out.r.f)) {
      out.r = lined; /* axes that do not line up: keep the larger */
    }
  }
  if (have) {
    out.r.f.global_context = global || any_whole;
    out.last = out.r.f;
  } else if (any_whole) {
    out.r = whole;
  }
  return out;
}

/* A node with a rule: the field of its first activation input mapped. */
static rf_val apply_rule(nns_model *m, const nns__analysis *a,
                         const rf_table *rf, const nns__node *n) {
  rf_val out;
  memset(&out, 0, sizeof out);
  const rf_val *src = NULL;
  bool others_global = false;
  for (int32_t k = 0; k < n->n_in; k++) {
    const nns__value *v = n->in[k];
    if (nns__input_role(n, k) != 'a' || !carries_field(a, v) ||
        !known(&rf_get(rf, v->index)->r))
      continue;
    if (!src)
      src = rf_get(rf, v->index);
    else
      others_global |= rf_get(rf, v->index)->r.f.whole ||
                       rf_get(rf, v->index)->r.f.global_context;
  }
  if (!src)
    return out;
  if (src->r.f.whole)
    return *src;
  nns_error local;
  nns__ictx cx = {.m = m, .node = (nns__node *)n, .op = n->op,
                  .opset = n->opset, .err = &local};
  if (n->op->rf(&cx, &src->r, &out.r) != NNS_OK || out.r.f.axes < 0 ||
      out.r.f.axes > NNS_RF_MAX_AXES) {
    memset(&out, 0, sizeof out);
    return out;
  }
  if (out.r.f.whole) {
    nns__rf_set_whole(&out.r);
    out.last = src->r.f;
  } else {
    out.r.f.global_context |= src->r.f.global_context || others_global;
    out.last = out.r.f;
  }
  return out;
}

nns_status nns__rf_analyze(nns_model *m, nns__analysis *a, nns_error *err) {
  const nns__graph *g = m->graph;
  /* Indices are 32-bit; no model comes near (each value is an object). */
  bool fits = m->n_values < UINT32_MAX &&
              m->n_values < SIZE_MAX / sizeof(rf_val) - 1;
  rf_table rf = {.at = fits ? calloc(m->n_values + 1, sizeof *rf.at) : NULL,
                 .vals = fits ? malloc((m->n_values + 1) * sizeof *rf.vals)
                              : NULL,
                 .n = 1};
  if (!rf.at || !rf.vals)
    goto nomem;
  memset(&rf.vals[0], 0, sizeof rf.vals[0]);
  for (int32_t i = 0; i < g->n_inputs; i++) {
    const nns__value *v = g->inputs[i];
    if (!v || v->init || v->type.rank < 3 ||
        v->type.rank - 2 > NNS_RF_MAX_AXES)
      continue;
    rf_val start;
    memset(&start, 0, sizeof start);
    nns__rf_start(NULL, v->type.rank - 2, &start.r);
    start.last = start.r.f;
    rf_set(&rf, v->index, &start);
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = a->order[i];
    rf_val by_rule;
    memset(&by_rule, 0, sizeof by_rule);
    if (n->op && n->op->rf)
      by_rule = apply_rule(m, a, &rf, n);
    for (int32_t k = 0; k < n->n_out; k++) {
      const nns__value *v = n->out[k];
      if (!carries_field(a, v))
        continue;
      rf_val out = n->op && n->op->rf ? by_rule
                                      : broadcast(a, &rf, n, &v->type);
      rf_set(&rf, v->index, &out);
    }
  }
  /* Layers: the field of their output. */
  nns_rf best_layer;
  memset(&best_layer, 0, sizeof best_layer);
  for (size_t l = 0; l < a->n_layers; l++) {
    nns__alayer *la = &a->layers[l];
    size_t out = la->info.output_value;
    if (out == (size_t)-1 || out >= m->n_values)
      continue;
    la->rf = rf_get(&rf, out)->r.f;
    if (!la->rf.whole)
      keep_larger(&best_layer, &la->rf);
  }
  /* The model: the last spatial field on the path to its outputs (the
   * largest over several outputs); a graph whose outputs carry none falls
   * back on the largest finite field of its layers. */
  nns_rf model;
  memset(&model, 0, sizeof model);
  for (int32_t i = 0; i < g->n_outputs; i++) {
    const nns__value *v = g->outputs[i];
    if (v && v->index < m->n_values)
      keep_larger(&model, &rf_get(&rf, v->index)->last);
  }
  a->rf = model.axes > 0 ? model : best_layer;
  free(rf.at);
  free(rf.vals);
  return NNS_OK;
nomem:
  free(rf.at);
  free(rf.vals);
  return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
}
