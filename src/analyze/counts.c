/*
 * counts.c - adding one nns_counts into another, saturating: the driver
 * (analyze.c) sums nodes into layers and op types with it, and the passes
 * (params.c, memory.c, rf.c) share it; and the nodes' compact rows
 * (nns__anode and what only some nodes have) with the public row they
 * stand for. A file of its own so that the passes depend on it and not on
 * the driver that runs them.
 */
#include <string.h>

#include "analyze.h"

static int64_t sat_add(int64_t a, int64_t b, unsigned *flags) {
  int64_t r;
  if (!nns__add_i64(a, b, &r)) {
    *flags |= NNS_COUNT_OVERFLOW;
    return INT64_MAX;
  }
  return r;
}

void nns__counts_add(nns_counts *d, const nns_counts *s) {
  d->params = sat_add(d->params, s->params, &d->flags);
  d->buffers = sat_add(d->buffers, s->buffers, &d->flags);
  d->param_bytes = sat_add(d->param_bytes, s->param_bytes, &d->flags);
  d->flops = sat_add(d->flops, s->flops, &d->flags);
  d->macs = sat_add(d->macs, s->macs, &d->flags);
  d->dmas = sat_add(d->dmas, s->dmas, &d->flags);
  d->activation_bytes =
      sat_add(d->activation_bytes, s->activation_bytes, &d->flags);
  d->nodes = sat_add(d->nodes, s->nodes, &d->flags);
  d->frozen = sat_add(d->frozen, s->frozen, &d->flags);
  d->bytes = sat_add(d->bytes, s->bytes, &d->flags);
  d->time_s += s->time_s;
  d->compute_time_s += s->compute_time_s;
  d->memory_time_s += s->memory_time_s;
  d->macs_unmasked = sat_add(d->macs_unmasked, s->macs_unmasked, &d->flags);
  d->flops_unmasked =
      sat_add(d->flops_unmasked, s->flops_unmasked, &d->flags);
  d->flags |= s->flags;
}

/* ==== Nodes ==== */

nns__anode_more *nns__node_more(nns__analysis *a, size_t i) {
  nns__anode *n = &a->nodes[i];
  if (n->more)
    return &a->node_more[n->more - 1];
  nns__anode_more *rows =
      a->n_node_more < UINT32_MAX - 1
          ? nns__grow(a->node_more, &a->cap_node_more, a->n_node_more + 1,
                      sizeof *rows, 64)
          : NULL;
  if (!rows) {
    a->nomem = true;
    return NULL;
  }
  a->node_more = rows;
  memset(&rows[a->n_node_more], 0, sizeof *rows);
  n->more = (uint32_t)++a->n_node_more;
  return &rows[n->more - 1];
}

void nns__node_counts(const nns__analysis *a, size_t i, nns_counts *out) {
  const nns__anode *n = &a->nodes[i];
  memset(out, 0, sizeof *out);
  out->flops = n->flops;
  out->macs = n->macs;
  out->dmas = n->dmas;
  out->bytes = n->bytes;
  out->activation_bytes = n->activation_bytes;
  out->nodes = 1;
  out->flags = n->flags;
  out->macs_unmasked = n->macs;
  out->flops_unmasked = n->flops;
  if (n->more) {
    const nns__anode_more *x = &a->node_more[n->more - 1];
    out->params = x->params;
    out->buffers = x->buffers;
    out->param_bytes = x->param_bytes;
    out->frozen = x->frozen;
    out->macs_unmasked = n->macs - x->macs_cut;
    out->flops_unmasked = n->flops - x->flops_cut;
  }
  out->intensity = n->bytes > 0 ? (double)n->flops / (double)n->bytes : 0;
  if (a->node_times) {
    const nns__anode_time *t = &a->node_times[i];
    out->time_s = t->time_s;
    out->compute_time_s = t->compute_time_s;
    out->memory_time_s = t->memory_time_s;
    out->bound = t->bound;
  }
}

void nns__counts_add_node(nns_counts *d, const nns__analysis *a, size_t i) {
  const nns__anode *n = &a->nodes[i];
  int64_t macs_unmasked = n->macs, flops_unmasked = n->flops;
  if (n->more) {
    const nns__anode_more *x = &a->node_more[n->more - 1];
    d->params = sat_add(d->params, x->params, &d->flags);
    d->buffers = sat_add(d->buffers, x->buffers, &d->flags);
    d->param_bytes = sat_add(d->param_bytes, x->param_bytes, &d->flags);
    d->frozen = sat_add(d->frozen, x->frozen, &d->flags);
    macs_unmasked = n->macs - x->macs_cut;
    flops_unmasked = n->flops - x->flops_cut;
  }
  d->flops = sat_add(d->flops, n->flops, &d->flags);
  d->macs = sat_add(d->macs, n->macs, &d->flags);
  d->dmas = sat_add(d->dmas, n->dmas, &d->flags);
  d->activation_bytes =
      sat_add(d->activation_bytes, n->activation_bytes, &d->flags);
  d->nodes = sat_add(d->nodes, 1, &d->flags);
  d->bytes = sat_add(d->bytes, n->bytes, &d->flags);
  d->macs_unmasked = sat_add(d->macs_unmasked, macs_unmasked, &d->flags);
  d->flops_unmasked = sat_add(d->flops_unmasked, flops_unmasked, &d->flags);
  d->flags |= n->flags & ~(unsigned)NNS_COUNT_SHARED;
  if (a->node_times) {
    d->time_s += a->node_times[i].time_s;
    d->compute_time_s += a->node_times[i].compute_time_s;
    d->memory_time_s += a->node_times[i].memory_time_s;
  }
}

/* ==== Layers ==== */

void nns__layer_add_node(nns__analysis *a, size_t l, size_t i) {
  nns__lcounts *d = &a->layers[l].counts;
  const nns__anode *n = &a->nodes[i];
  int64_t macs_unmasked = n->macs, flops_unmasked = n->flops;
  if (n->more) {
    const nns__anode_more *x = &a->node_more[n->more - 1];
    d->params = sat_add(d->params, x->params, &d->flags);
    d->buffers = sat_add(d->buffers, x->buffers, &d->flags);
    d->param_bytes = sat_add(d->param_bytes, x->param_bytes, &d->flags);
    d->frozen = sat_add(d->frozen, x->frozen, &d->flags);
    macs_unmasked = n->macs - x->macs_cut;
    flops_unmasked = n->flops - x->flops_cut;
  }
  d->flops = sat_add(d->flops, n->flops, &d->flags);
  d->macs = sat_add(d->macs, n->macs, &d->flags);
  d->dmas = sat_add(d->dmas, n->dmas, &d->flags);
  d->activation_bytes =
      sat_add(d->activation_bytes, n->activation_bytes, &d->flags);
  d->nodes = sat_add(d->nodes, 1, &d->flags);
  d->bytes = sat_add(d->bytes, n->bytes, &d->flags);
  d->macs_unmasked = sat_add(d->macs_unmasked, macs_unmasked, &d->flags);
  d->flops_unmasked = sat_add(d->flops_unmasked, flops_unmasked, &d->flags);
  d->flags |= n->flags;
  if (a->layer_times && a->node_times) {
    nns__anode_time *t = &a->layer_times[l];
    const nns__anode_time *s = &a->node_times[i];
    t->time_s += s->time_s;
    t->compute_time_s += s->compute_time_s;
    t->memory_time_s += s->memory_time_s;
  }
}

void nns__layer_add_layer(nns__analysis *a, size_t to, size_t from) {
  nns__lcounts *d = &a->layers[to].counts;
  const nns__lcounts *s = &a->layers[from].counts;
  d->params = sat_add(d->params, s->params, &d->flags);
  d->buffers = sat_add(d->buffers, s->buffers, &d->flags);
  d->param_bytes = sat_add(d->param_bytes, s->param_bytes, &d->flags);
  d->frozen = sat_add(d->frozen, s->frozen, &d->flags);
  d->flops = sat_add(d->flops, s->flops, &d->flags);
  d->macs = sat_add(d->macs, s->macs, &d->flags);
  d->dmas = sat_add(d->dmas, s->dmas, &d->flags);
  d->activation_bytes =
      sat_add(d->activation_bytes, s->activation_bytes, &d->flags);
  d->nodes = sat_add(d->nodes, s->nodes, &d->flags);
  d->bytes = sat_add(d->bytes, s->bytes, &d->flags);
  d->macs_unmasked = sat_add(d->macs_unmasked, s->macs_unmasked, &d->flags);
  d->flops_unmasked =
      sat_add(d->flops_unmasked, s->flops_unmasked, &d->flags);
  d->flags |= s->flags;
  if (a->layer_times) {
    nns__anode_time *t = &a->layer_times[to];
    const nns__anode_time *u = &a->layer_times[from];
    t->time_s += u->time_s;
    t->compute_time_s += u->compute_time_s;
    t->memory_time_s += u->memory_time_s;
  }
}

void nns__layer_counts(const nns__analysis *a, size_t l, nns_counts *out) {
  const nns__lcounts *s = &a->layers[l].counts;
  memset(out, 0, sizeof *out);
  out->params = s->params;
  out->buffers = s->buffers;
  out->param_bytes = s->param_bytes;
  out->frozen = s->frozen;
  out->flops = s->flops;
  out->macs = s->macs;
  out->dmas = s->dmas;
  out->bytes = s->bytes;
  out->activation_bytes = s->activation_bytes;
  out->nodes = s->nodes;
  out->macs_unmasked = s->macs_unmasked;
  out->flops_unmasked = s->flops_unmasked;
  out->params_active = nns__sum_sat(s->params, s->frozen);
  out->weight_bytes_read = s->param_bytes;
  if (a->layer_experts) {
    out->params_active = a->layer_experts[l].params_active;
    out->weight_bytes_read = a->layer_experts[l].weight_bytes_read;
  }
  out->flags = s->flags;
  if (a->layer_times) {
    out->time_s = a->layer_times[l].time_s;
    out->compute_time_s = a->layer_times[l].compute_time_s;
    out->memory_time_s = a->layer_times[l].memory_time_s;
  }
  if (a->layer_train) {
    out->saved_bytes = a->layer_train[l].saved_bytes;
    out->checkpoint_saves_bytes = a->layer_train[l].checkpoint_saves_bytes;
    out->checkpoint_recompute_flops =
        a->layer_train[l].checkpoint_recompute_flops;
  }
  nns__counts_finish(a, out);
}
