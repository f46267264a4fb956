/*
 * rf.c - receptive fields on any graph: every value of the main graph gets
 * one, propagated in node order.
 *
 * A graph input of rank >= 3 starts with one axis per spatial dim (rank - 2,
 * at most NNS_RF_MAX_AXES), field 1, stride 1, padding 0. A node with a
 * receptive-field rule (conv, pool: its op entry's `.rf`) maps the field of
 * its first activation input to its outputs. Any other node passes on the
 * largest field among its activation inputs (element-wise ops keep it;
 * merges such as Add and Concat take the largest), and `whole` (the value
 * sees the entire input) wins over any field. When a node changes the rank
 * and the trailing spatial dims do not survive (Flatten, a Reshape to
 * tokens), the spatial layout is gone and the output sees the whole input.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

static int64_t rf_size(const nns_rf *r) {
  int64_t best = 0;
  for (int k = 0; k < r->axes && k < NNS_RF_MAX_AXES; k++)
    if (r->field[k] > best)
      best = r->field[k];
  return best;
}

static bool rf_known(const nns_rf *r) { return r->whole || r->axes > 0; }

static void set_whole(nns_rf *r) {
  int axes = r->axes;
  memset(r, 0, sizeof *r);
  r->axes = axes;
  r->whole = 1;
}

/* Whether the spatial axes of `in` survive in `out` (same trailing dims). */
static bool spatial_kept(const nns__type *in, const nns__type *out, int axes) {
  if (in->rank == out->rank)
    return true;
  if (in->rank < axes || out->rank < axes || out->rank < 0)
    return false;
  for (int k = 1; k <= axes; k++)
    if (!nns__dim_eq(in->dims[in->rank - k], out->dims[out->rank - k]))
      return false;
  return true;
}

static bool is_activation_input(const nns__analysis *a, const nns__value *v) {
  return v && !a->is_param_value[v->index];
}

nns_status nns__rf_analyze(nns_model *m, nns__analysis *a, nns_error *err) {
  const nns__graph *g = m->graph;
  nns_rf *rf = calloc(m->n_values + 1, sizeof *rf);
  if (!rf)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  for (int32_t i = 0; i < g->n_inputs; i++) {
    const nns__value *v = g->inputs[i];
    if (!v || v->init || v->type.rank < 3 ||
        v->type.rank - 2 > NNS_RF_MAX_AXES)
      continue;
    nns_rf *r = &rf[v->index];
    r->axes = v->type.rank - 2;
    for (int k = 0; k < r->axes; k++) {
      r->field[k] = 1;
      r->stride[k] = 1;
    }
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = a->order[i];
    nns_rf out;
    memset(&out, 0, sizeof out);
    const nns__value *src = NULL; /* input whose field is passed on */
    if (n->op && n->op->rf) {
      for (int32_t k = 0; k < n->n_in && !src; k++)
        if (nns__input_role(n, k) == 'a' && is_activation_input(a, n->in[k]))
          src = n->in[k];
      const nns_rf *in = src ? &rf[src->index] : NULL;
      if (in && in->whole) {
        out = *in;
      } else if (in && in->axes > 0) {
        nns_error local;
        nns__ictx cx = {.m = m, .node = (nns__node *)n, .op = n->op,
                        .opset = n->opset, .err = &local};
        if (n->op->rf(&cx, in, &out) != NNS_OK || out.axes < 0 ||
            out.axes > NNS_RF_MAX_AXES)
          memset(&out, 0, sizeof out);
        if (out.whole)
          set_whole(&out);
      }
    } else {
      for (int32_t k = 0; k < n->n_in; k++) {
        const nns__value *v = n->in[k];
        if (!is_activation_input(a, v) || !rf_known(&rf[v->index]))
          continue;
        const nns_rf *r = &rf[v->index];
        if (!src || (r->whole && !out.whole) ||
            (!out.whole && rf_size(r) > rf_size(&out))) {
          out = *r;
          src = v;
        }
      }
    }
    if (!src || !rf_known(&out))
      continue;
    for (int32_t k = 0; k < n->n_out; k++) {
      const nns__value *v = n->out[k];
      if (!v || a->is_param_value[v->index])
        continue;
      rf[v->index] = out;
      if (!out.whole && !(n->op && n->op->rf) &&
          !spatial_kept(&src->type, &v->type, out.axes))
        set_whole(&rf[v->index]);
    }
  }
  /* Layers: the field of their output; the model: the largest finite one. */
  nns_rf *best = NULL;
  for (size_t l = 0; l < a->n_layers; l++) {
    nns__alayer *la = &a->layers[l];
    size_t out = la->info.output_value;
    if (out == (size_t)-1 || out >= m->n_values)
      continue;
    la->rf = rf[out];
    if (!la->rf.whole && la->rf.axes > 0 &&
        (!best || rf_size(&la->rf) > rf_size(best)))
      best = &la->rf;
  }
  if (best)
    a->rf = *best;
  free(rf);
  return NNS_OK;
}
