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

/* The sums a layer keeps (nns__lcounts) and nns_counts both have, by the
 * same names: every metric (NNS_METRIC_MAP) and the others. One list for
 * every adder below. */
#define OTHER_SUMS(X) X(nodes) X(bytes) X(macs_unmasked) X(flops_unmasked)
#define ADD_SUM(f) d->f = sat_add(d->f, s->f, &d->flags);
#define COPY_SUM(f) d->f = s->f;
#define ADD_METRIC(name, bit, key, lower, member, mflags, text) ADD_SUM(member)
#define COPY_METRIC(name, bit, key, lower, member, mflags, text)               \
  COPY_SUM(member)
#define ADD_SUMS NNS_METRIC_MAP(ADD_METRIC) OTHER_SUMS(ADD_SUM)
#define COPY_SUMS NNS_METRIC_MAP(COPY_METRIC) OTHER_SUMS(COPY_SUM)

void nns__counts_add(nns_counts *d, const nns_counts *s) {
  ADD_SUMS
  d->time_s += s->time_s;
  d->compute_time_s += s->compute_time_s;
  d->memory_time_s += s->memory_time_s;
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

/* Node i's sums as a layer keeps them: one node, its cost, and its
 * parameters and attention cuts where it has any. */
static inline nns__lcounts node_sums(const nns__analysis *a, size_t i) {
  const nns__anode *n = &a->nodes[i];
  nns__lcounts s = {.flops = n->flops, .macs = n->macs, .dmas = n->dmas,
                    .bytes = n->bytes,
                    .activation_bytes = n->activation_bytes, .nodes = 1,
                    .macs_unmasked = n->macs, .flops_unmasked = n->flops,
                    .flags = n->flags};
  if (n->more) {
    const nns__anode_more *x = &a->node_more[n->more - 1];
#define MORE_SUM(f) s.f = x->f;
    NNS__NODE_MORE_SUMS(MORE_SUM)
#undef MORE_SUM
    s.macs_unmasked = n->macs - x->macs_cut;
    s.flops_unmasked = n->flops - x->flops_cut;
  }
  return s;
}

void nns__node_counts(const nns__analysis *a, size_t i, nns_counts *out) {
  const nns__lcounts sums = node_sums(a, i), *s = &sums;
  nns_counts *d = out;
  memset(d, 0, sizeof *d);
  COPY_SUMS
  d->flags = s->flags;
  d->intensity = s->bytes > 0 ? (double)s->flops / (double)s->bytes : 0;
  if (a->node_times) {
    const nns__anode_time *t = &a->node_times[i];
    d->time_s = t->time_s;
    d->compute_time_s = t->compute_time_s;
    d->memory_time_s = t->memory_time_s;
    d->bound = t->bound;
  }
}

void nns__counts_add_node(nns_counts *d, const nns__analysis *a, size_t i) {
  const nns__lcounts sums = node_sums(a, i), *s = &sums;
  ADD_SUMS
  d->flags |= s->flags & ~(unsigned)NNS_COUNT_SHARED;
  if (a->node_times) {
    d->time_s += a->node_times[i].time_s;
    d->compute_time_s += a->node_times[i].compute_time_s;
    d->memory_time_s += a->node_times[i].memory_time_s;
  }
}

/* ==== Layers ==== */

void nns__layer_add_node(nns__analysis *a, size_t l, size_t i) {
  nns__lcounts *d = &a->layers[l].counts;
  const nns__lcounts sums = node_sums(a, i), *s = &sums;
  ADD_SUMS
  d->flags |= s->flags;
  if (a->layer_times && a->node_times) {
    nns__anode_time *t = &a->layer_times[l];
    const nns__anode_time *u = &a->node_times[i];
    t->time_s += u->time_s;
    t->compute_time_s += u->compute_time_s;
    t->memory_time_s += u->memory_time_s;
  }
}

void nns__layer_add_layer(nns__analysis *a, size_t to, size_t from) {
  nns__lcounts *d = &a->layers[to].counts;
  const nns__lcounts *s = &a->layers[from].counts;
  ADD_SUMS
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
  nns_counts *d = out;
  memset(d, 0, sizeof *d);
  COPY_SUMS
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
