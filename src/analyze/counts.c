/*
 * counts.c - adding one nns_counts into another, saturating: the driver
 * (analyze.c) sums nodes into layers and op types with it, and the passes
 * (params.c, memory.c, rf.c) share it. A file of its own so that the
 * passes depend on it and not on the driver that runs them.
 */
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
