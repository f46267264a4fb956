/*
 * keep.c - what an analysis keeps of the inference it ran on: each
 * value's type, the op types without a rule and the warnings, so that it
 * reads the same after the model is inferred again (nnscan.h,
 * "Ownership").
 *
 * The types are copied while the passes run, on a second thread for a
 * large graph (a 100k-value graph's copy took 7-12 ms, cache misses on
 * the values it reads, the whole of it on the critical path). The copy
 * reads only each value's type (dtype, rank, kind, dims), which no pass
 * writes, and fills an arena of its own. What a pass may change while it
 * runs is read once the copy is done, on the calling thread: whether a
 * value has a known constant (a cost rule folds one when it reads it,
 * nns__in_const) and the symbols' names.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* Values of one shape share one run of dims: a recent run made from the
 * same model dims (a direct-mapped cache by their hash; a collision only
 * costs a copy) is pointed at, not copied. A 100k-node graph has a
 * handful of shapes, and its 480k dims were 7.7 MB of fresh pages;
 * comparing the model's dims before converting any spares the writes of
 * the shared ones. */
enum { RUNS = 256 };

static void copy_types(void *p) {
  nns__keep *k = p;
  const nns_model *m = k->m;
  size_t nd = 0;
  for (size_t i = 0; i < m->n_values; i++)
    nd += m->values[i]->type.rank > 0 ? (size_t)m->values[i]->type.rank : 0;
  nns__arena_reserve(&k->arena, (m->n_values + 1) * sizeof *k->vtypes);
  k->vtypes = nns__arena_array(&k->arena, m->n_values + 1, sizeof *k->vtypes);
  k->dims = nns__arena_array(&k->arena, nd + 1, sizeof *k->dims);
  k->dim_syms = malloc((nd + 1) * sizeof *k->dim_syms);
  if (!k->vtypes || !k->dims || !k->dim_syms)
    return;
  struct run {
    uint32_t first, rank;   /* rank 0: the slot is empty */
    const nns__dim *source; /* the model dims it was made from */
  } runs[RUNS];
  memset(runs, 0, sizeof runs);
  uint32_t d = 0;
  for (size_t i = 0; i < m->n_values; i++) {
    const nns__value *v = m->values[i];
    k->vtypes[i] = (nns__vtype){.dtype = v->type.dtype,
                                .rank = v->type.rank,
                                .kind = v->type.kind,
                                .first = d};
    if (v->type.rank <= 0)
      continue;
    uint32_t rank = (uint32_t)v->type.rank;
    const nns__dim *dims = v->type.dims;
    uint64_t h = 14695981039346656037u;
    for (uint32_t j = 0; j < rank; j++) {
      h = (h ^ (uint64_t)dims[j].v) * 1099511628211u;
      h = (h ^ dims[j].sym) * 1099511628211u;
    }
    struct run *slot = &runs[(h ^ (h >> 32)) & (RUNS - 1)];
    bool same = slot->rank == rank;
    for (uint32_t j = 0; same && j < rank; j++)
      same = slot->source[j].sym == dims[j].sym &&
             (dims[j].sym || slot->source[j].v == dims[j].v);
    if (same) {
      k->vtypes[i].first = slot->first;
      continue;
    }
    /* As nns__value_dim gives it: a symbol's value is -1; its name is
     * looked up in nns__keep_finish. */
    for (uint32_t j = 0; j < rank; j++) {
      k->dims[d + j] = (nns__vdim){.value = dims[j].sym ? -1 : dims[j].v};
      k->dim_syms[d + j] = dims[j].sym;
    }
    *slot = (struct run){.first = d, .rank = rank, .source = dims};
    d += rank;
  }
  k->n_dims = d;
  k->done = true;
}

void nns__keep_start(nns__keep *k, const nns_model *m, bool thread) {
  *k = (nns__keep){.m = m};
  nns__arena_init(&k->arena);
  nns__job_start(&k->job, copy_types, k, thread);
}

nns_status nns__keep_finish(nns__keep *k, nns_model *m, nns__analysis *a,
                            bool wanted) {
  if (!wanted) {
    nns__job_cancel(&k->job);
    free(k->dim_syms);
    nns__arena_free(&k->arena);
    return NNS_OK;
  }
  nns__job_finish(&k->job);
  a->types_arena = k->arena;
  nns__arena_init(&k->arena);
  bool ok = k->done;
  if (ok) {
    a->vtypes = k->vtypes;
    a->dims = k->dims;
    for (uint32_t j = 0; j < k->n_dims; j++)
      if (k->dim_syms[j]) {
        const nns__symbol *s = nns__sym_get(m, k->dim_syms[j]);
        a->dims[j].symbol = s ? s->name : NULL;
      }
    for (size_t i = 0; i < m->n_values; i++)
      a->vtypes[i].has_constant = m->values[i]->cval != NULL;
  }
  free(k->dim_syms);
  k->dim_syms = NULL;
  a->unknown = nns__arena_array(&a->arena, m->n_unknown + 1,
                                sizeof *a->unknown);
  if (!ok || !a->unknown)
    return NNS_E_NOMEM;
  a->n_unknown = m->n_unknown;
  if (m->n_unknown)
    memcpy(a->unknown, m->unknown, m->n_unknown * sizeof *a->unknown);
  return NNS_OK;
}

nns_status nns__keep_warnings(nns_model *m, nns__analysis *a, size_t from) {
  a->n_warnings = m->n_warnings;
  a->warnings = nns__arena_array(&a->arena, m->n_warnings + 1,
                                 sizeof *a->warnings);
  bool ok = a->warnings != NULL;
  for (size_t i = 0; i < m->n_warnings; i++) {
    size_t len = strlen(m->warnings[i]) + 1;
    char *w = ok ? nns__arena_alloc(&a->arena, len) : NULL;
    if (w)
      memcpy(w, m->warnings[i], len);
    else
      ok = false;
    if (ok)
      a->warnings[i] = w;
    if (i >= from)
      free(m->warnings[i]);
  }
  m->n_warnings = from;
  return ok ? NNS_OK : NNS_E_NOMEM;
}
