/*
 * ranks.c - what each rank of a torch.distributed job saw besides its
 * passes (nns_inspection_set_rank: the collectives it issued while it was
 * inspected, the static per-rank counts of its own shards), and the rank
 * rows the reports print beside the merged tree: its passes' times and
 * memory with what was set. docs/inspect.md, "Ranks".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"

enum { MAX_RANK = 1 << 16, MAX_MESH = 64 };
#define MAX_AMOUNT (INT64_C(1) << 62)

static bool amounts_ok(const int64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (v[i] < 0 || v[i] > MAX_AMOUNT)
      return false;
  return true;
}

nns_status nns_inspection_set_rank(nns_inspection *insp,
                                   const nns_inspect_rank *given,
                                   nns_error *err) {
  static const char fn[] = "nns_inspection_set_rank";
  nns_inspect_rank r;
  if (!insp || !given ||
      NNS__GET(&r, given, NNS__SIZE_TO(nns_inspect_rank, mesh_size)))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: inspection and rank (with its size set) are "
                    "needed",
                    fn);
  if (r.rank < 0 || r.rank >= MAX_RANK)
    return nns__err(err, NNS_E_ARG, -1, NULL, "%s: rank %d out of range", fn,
                    r.rank);
  if (!amounts_ok(r.comm_calls, NNS_COMM_KIND_COUNT) ||
      !amounts_ok(r.comm_bytes, NNS_COMM_KIND_COUNT))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: rank %d: a collective count below 0 or above 2^62", fn,
                    r.rank);
  nns_per_rank counts = {.size = sizeof counts};
  if (r.counts) {
    if (NNS__GET(&counts, r.counts, NNS__SIZE_TO(nns_per_rank, estimate)))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "%s: rank %d: counts.size is below the first "
                      "version's",
                      fn, r.rank);
    int64_t v[] = {
        counts.world_size,       counts.params,          counts.param_bytes,
        counts.grad_bytes,       counts.optimizer_bytes, counts.saved_bytes,
        counts.train_peak_bytes, counts.flops,           counts.macs,
        counts.comm_bytes,       counts.budget_bytes};
    if (!amounts_ok(v, sizeof v / sizeof *v) ||
        !amounts_ok(counts.comm, NNS_COMM_KIND_COUNT))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "%s: rank %d: a count below 0 or above 2^62", fn, r.rank);
    counts.grow = NULL;
  }
  if (r.mesh_count > MAX_MESH ||
      (r.mesh_count && (!r.mesh_name || !r.mesh_size)))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: rank %d: mesh of %zu dims without names or sizes", fn,
                    r.rank, r.mesh_count);
  for (size_t i = 0; i < r.mesh_count; i++)
    if (!r.mesh_name[i] || r.mesh_size[i] < 1 || r.mesh_size[i] > MAX_AMOUNT)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "%s: rank %d: mesh dim %zu needs a name and a size "
                      "from 1",
                      fn, r.rank, i);
  /* Everything that can fail comes before the rank's entry changes. */
  size_t need = (size_t)r.rank + 1;
  if (need > insp->rank_set_cap) {
    size_t cap = insp->rank_set_cap;
    nns__irank *set = nns__grow(insp->rank_set, &cap, need, sizeof *set, 4);
    if (!set)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    memset(set + insp->rank_set_cap, 0,
           (cap - insp->rank_set_cap) * sizeof *set);
    insp->rank_set = set;
    insp->rank_set_cap = cap;
  }
  const char **names = NULL;
  int64_t *sizes = NULL;
  if (r.mesh_count) {
    names = nns__arena_alloc(&insp->arena, r.mesh_count * sizeof *names);
    sizes = nns__arena_alloc(&insp->arena, r.mesh_count * sizeof *sizes);
    if (!names || !sizes)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    for (size_t i = 0; i < r.mesh_count; i++) {
      names[i] = nns__arena_strndup(&insp->arena, r.mesh_name[i],
                                    strlen(r.mesh_name[i]));
      if (!names[i])
        return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
      sizes[i] = r.mesh_size[i];
    }
  }
  nns__irank *d = &insp->rank_set[r.rank];
  d->set = true;
  memcpy(d->comm_calls, r.comm_calls, sizeof d->comm_calls);
  memcpy(d->comm_bytes, r.comm_bytes, sizeof d->comm_bytes);
  d->has_counts = r.counts != NULL;
  d->counts = counts;
  d->mesh_count = r.mesh_count;
  d->mesh_name = names;
  d->mesh_size = sizes;
  return NNS_OK;
}

/* Whether rank r added a pass or was set. */
static bool rank_seen(const nns_inspection *in, size_t r) {
  return (r < (size_t)in->rank_count && in->rank_passes[r] > 0) ||
         (r < in->rank_set_cap && in->rank_set[r].set);
}

static size_t rank_end(const nns_inspection *in) {
  size_t a = (size_t)in->rank_count, b = in->rank_set_cap;
  return a > b ? a : b;
}

size_t nns_inspection_rank_count(const nns_inspection *insp) {
  size_t n = 0;
  if (!insp)
    return 0;
  for (size_t r = 0; r < rank_end(insp); r++)
    n += rank_seen(insp, r);
  return n;
}

static void add_known(int64_t *sum, int64_t v) {
  if (v < 0 || *sum < 0) {
    *sum = -1;
    return;
  }
  *sum = v > INT64_MAX - *sum ? INT64_MAX : *sum + v;
}

nns_status nns_inspection_rank(const nns_inspection *insp, size_t i,
                               nns_inspect_rank_info *out, nns_error *err) {
  static const char fn[] = "nns_inspection_rank";
  size_t count = nns_inspection_rank_count(insp);
  nns_status st = nns__inspect_bad_read(
      err, fn, insp, out, out ? out->size : 0,
      NNS__SIZE_TO(nns_inspect_rank_info, mesh_size), i, count);
  if (st != NNS_OK)
    return st;
  size_t r = 0;
  for (size_t seen = 0;; r++)
    if (rank_seen(insp, r) && seen++ == i)
      break;
  nns_inspect_rank_info x = {.size = sizeof x, .rank = (int)r};
  /* Its passes: the outermost calls' times and memory, as the JSON's
   * passes[] add them up per pass. */
  bool any_fwd = false, any_bwd = false;
  for (size_t b = 0; b < insp->batch_count; b++) {
    const nns__ibatch *bt = &insp->batches[b];
    if ((size_t)bt->rank != r)
      continue;
    x.passes++;
    for (size_t c = bt->first_call; c < bt->first_call + bt->call_count; c++) {
      const nns__icall *call = &insp->calls[c];
      if (call->parent != (size_t)-1)
        continue;
      if (!isnan(call->fwd_incl)) {
        x.fwd_ms += call->fwd_incl;
        add_known(&x.fwd_alloc_bytes, call->fwd_alloc);
        any_fwd = true;
      }
      if (!isnan(call->bwd_incl)) {
        x.bwd_ms += call->bwd_incl;
        add_known(&x.bwd_alloc_bytes, call->bwd_alloc);
        any_bwd = true;
      }
    }
  }
  if (!any_fwd)
    x.fwd_alloc_bytes = -1;
  if (!any_bwd)
    x.bwd_alloc_bytes = -1;
  if (r < insp->rank_set_cap && insp->rank_set[r].set) {
    const nns__irank *d = &insp->rank_set[r];
    x.comm_known = 1;
    memcpy(x.comm_calls, d->comm_calls, sizeof x.comm_calls);
    memcpy(x.comm_bytes, d->comm_bytes, sizeof x.comm_bytes);
    x.has_counts = d->has_counts;
    x.counts = d->counts;
    x.mesh_count = d->mesh_count;
    x.mesh_name = d->mesh_name;
    x.mesh_size = d->mesh_size;
  }
  return nns__put_sized(out, &x, sizeof x,
                        NNS__SIZE_TO(nns_inspect_rank_info, mesh_size));
}
