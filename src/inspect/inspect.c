/*
 * inspect.c - the nns_inspection handle: a module tree registered by a
 * binding, batches of module calls (one batch per pass) checked and copied
 * in, and their aggregation over the call tree and the module tree.
 *
 * Times and memory arrive as raw events (the clock and the allocation
 * counters at the start and end of each forward and backward); everything
 * derived - inclusive and self latency, memory per call, NaN/Inf roles,
 * totals per module, the first offenders - is computed here, eagerly, as
 * each batch is added: the readers (accessors, reports) only read, so
 * threads may read one inspection at once (include/nnscan.h). What
 * changes with every batch for every module (passes, the spread over
 * ranks) is worked out when read, from per-rank totals kept here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"

/* Far above any real model, low enough that no size arithmetic wraps. */
enum { MAX_MODULES = 1 << 22, MAX_CALLS = 1 << 26, MAX_RANK = 1 << 16,
       MAX_TENSOR_RANK = 64, MAX_DTYPES = 64 };

/* A byte or element count above 2^62 (4 EiB) is not a real one: refused,
 * so that the sums below only ever saturate on many real ones. */
#define MAX_AMOUNT (INT64_C(1) << 62)

/* ==== Handle ==== */

nns_status nns_inspection_create(nns_inspection **out, nns_error *err) {
  if (!out)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_create: out is NULL");
  *out = calloc(1, sizeof **out);
  if (!*out)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  nns__arena_init(&(*out)->arena);
  return NNS_OK;
}

void nns_inspection_free(nns_inspection *insp) {
  if (!insp)
    return;
  nns__arena_free(&insp->arena);
  free(insp->modules);
  free(insp->calls);
  free(insp->batches);
  free(insp->meta);
  free(insp->cells);
  free(insp->rank_passes);
  free(insp->rank_set);
  nns__map2_free(&insp->held);
  free(insp);
}

static const char *dup(nns_inspection *in, const char *s) {
  return nns__arena_strndup(&in->arena, s, strlen(s));
}

static bool amount_ok(int64_t v) { return v >= 0 && v <= MAX_AMOUNT; }

/* ==== Modules ==== */

nns_status nns_inspection_add_module(nns_inspection *insp,
                                     const nns_inspect_module *given,
                                     size_t *index, nns_error *err) {
  if (!insp || !given)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_add_module: inspection and module are "
                    "needed");
  nns_inspect_module full;
  if (NNS__GET(&full, given, NNS__V1_INSPECT_MODULE))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_add_module: module.size %zu is below the "
                    "first version's (%zu)",
                    given->size, (size_t)NNS__V1_INSPECT_MODULE);
  const nns_inspect_module *m = &full;
  const char *path = m->path ? m->path : "";
  size_t n = insp->module_count;
  if (n == 0 && m->parent != (size_t)-1)
    return nns__err(err, NNS_E_ARG, -1, path,
                    "the first module is the model itself: its parent must "
                    "be (size_t)-1");
  if (n > 0 && m->parent >= n)
    return nns__err(err, NNS_E_ARG, -1, path,
                    "module '%s': parent %zu is not an earlier module (%zu "
                    "registered)",
                    path, m->parent, n);
  if (m->params < 0 || m->learnable_params < 0 || m->param_bytes < 0 ||
      m->grad_bytes < 0 || m->learnable_params > m->params)
    return nns__err(err, NNS_E_ARG, -1, path,
                    "module '%s': negative parameter counts, or more "
                    "learnable parameters than parameters",
                    path);
  if (!amount_ok(m->params) || !amount_ok(m->param_bytes) ||
      !amount_ok(m->grad_bytes) || m->flops > MAX_AMOUNT ||
      m->macs > MAX_AMOUNT)
    return nns__err(err, NNS_E_ARG, -1, path,
                    "module '%s': a parameter, byte, FLOP or MAC count above "
                    "2^62",
                    path);
  if (!(m->roofline_ms >= 0) || m->roofline_ms > 1e15)
    return nns__err(err, NNS_E_ARG, -1, path,
                    "module '%s': roofline_ms is negative, NaN or beyond "
                    "any run", path);
  if ((m->param_dtype_count && !m->param_dtypes) ||
      m->param_dtype_count > MAX_DTYPES)
    return nns__err(err, NNS_E_ARG, -1, path,
                    "module '%s': %zu parameter dtypes without an array (or "
                    "more than %d)",
                    path, m->param_dtype_count, MAX_DTYPES);
  for (size_t k = 0; k < m->param_dtype_count; k++)
    if (!amount_ok(m->param_dtypes[k].bytes) ||
        !amount_ok(m->param_dtypes[k].learnable_bytes))
      return nns__err(err, NNS_E_ARG, -1, path,
                      "module '%s': parameter dtype %zu: bytes negative or "
                      "above 2^62",
                      path, k);
  if (n >= MAX_MODULES)
    return nns__err(err, NNS_E_LIMIT, -1, path, "more than %d modules",
                    MAX_MODULES);
  nns__imodule *mods =
      nns__grow(insp->modules, &insp->module_cap, n + 1, sizeof *mods, 16);
  if (!mods)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  insp->modules = mods;
  nns__imodule *d = &insp->modules[n];
  memset(d, 0, sizeof *d);
  d->path = dup(insp, path);
  d->path_len = strlen(path);
  d->type = dup(insp, m->type ? m->type : "");
  const char *dot = strrchr(d->path ? d->path : "", '.');
  d->name = dot ? dot + 1 : d->path;
  d->dtypes = nns__arena_array(&insp->arena, m->param_dtype_count + 1,
                               sizeof *d->dtypes);
  if (!d->path || !d->type || !d->dtypes)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (m->param_dtype_count)
    memcpy(d->dtypes, m->param_dtypes,
           m->param_dtype_count * sizeof *d->dtypes);
  d->dtype_count = m->param_dtype_count;
  d->dtype_cap = m->param_dtype_count + 1;
  d->parent = n ? m->parent : (size_t)-1;
  d->depth = n ? insp->modules[m->parent].depth + 1 : 0;
  d->first_child = d->next_sibling = d->last_child = d->first_call =
      d->last_call = d->rank_cells = (size_t)-1;
  d->params = m->params;
  d->learnable_params = m->learnable_params;
  d->param_bytes = m->param_bytes;
  d->grad_bytes = m->grad_bytes;
  d->flops = m->flops < 0 ? -1 : m->flops;
  d->macs = m->macs < 0 ? -1 : m->macs;
  d->roofline_ms = m->roofline_ms;
  d->saved_bytes =
      given->size >= NNS__SIZE_TO(nns_inspect_module, saved_bytes) &&
              m->saved_bytes >= 0 && m->saved_bytes <= MAX_AMOUNT
          ? m->saved_bytes
          : -1;
  d->stats.size = sizeof d->stats;
  d->stats.nonfinite_rank = -1;
  d->first_nf = INFINITY;
  if (n) {
    /* Children keep the order they were added in. */
    nns__imodule *p = &insp->modules[m->parent];
    if (p->first_child == (size_t)-1)
      p->first_child = n;
    else
      insp->modules[p->last_child].next_sibling = n;
    p->last_child = n;
  }
  insp->module_count = n + 1;
  if (index)
    *index = n;
  return NNS_OK;
}

/* Adds one parameter's bytes to a module's row of its dtype. */
static bool add_dtype_bytes(nns_inspection *in, nns__imodule *d, int dtype,
                            int64_t bytes, bool learnable) {
  size_t k = 0;
  while (k < d->dtype_count && d->dtypes[k].dtype != dtype)
    k++;
  if (k == d->dtype_count) {
    nns_inspect_dtype_bytes *rows = nns__arena_grow(
        &in->arena, d->dtypes, &d->dtype_cap, k, k + 1, sizeof *rows, 4);
    if (!rows)
      return false;
    d->dtypes = rows;
    d->dtypes[k] = (nns_inspect_dtype_bytes){.dtype = dtype};
    d->dtype_count++;
  }
  d->dtypes[k].bytes = nns__add_sat_i64(d->dtypes[k].bytes, bytes);
  if (learnable)
    d->dtypes[k].learnable_bytes =
        nns__add_sat_i64(d->dtypes[k].learnable_bytes, bytes);
  return true;
}

/* Entry i, copied out: a stride need not keep the entries aligned. */
static nns_inspect_param param_at(const nns_inspect_param *p, size_t stride,
                                  size_t i) {
  nns_inspect_param q;
  memcpy(&q, (const char *)p + i * stride, sizeof q);
  return q;
}

nns_status nns_inspection_add_params(nns_inspection *insp,
                                     const nns_inspect_param *params,
                                     size_t count, nns_error *err) {
  if (!insp || (count && !params))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_add_params: inspection and params are "
                    "needed");
  if (!count)
    return NNS_OK;
  size_t stride = param_at(params, 0, 0).size;
  if (stride < sizeof(nns_inspect_param))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_add_params: params[0].size %zu is below "
                    "the first version's (%zu)",
                    stride, sizeof(nns_inspect_param));
  /* Everything checked first: a rejected call declares nothing. */
  for (size_t i = 0; i < count; i++) {
    nns_inspect_param q = param_at(params, stride, i), *p = &q;
    const char *path = p->module < insp->module_count
                           ? insp->modules[p->module].path
                           : NULL;
    if (!path)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "parameter %zu: module %zu is not added (%zu are)", i,
                      p->module, insp->module_count);
    if (!p->tensor || p->dtype < 0 || p->element_bits < 1 ||
        p->element_bits > 1024 || !amount_ok(p->elements) ||
        p->elements > MAX_AMOUNT / p->element_bits)
      return nns__err(err, NNS_E_ARG, -1, path,
                      "module '%s': parameter %zu: tensor 0, a negative "
                      "dtype, element bits outside 1..1024 or more than "
                      "2^62 bits",
                      path, i);
  }
  for (size_t i = 0; i < count; i++) {
    nns_inspect_param q = param_at(params, stride, i), *p = &q;
    int64_t bits = p->elements * p->element_bits;
    int64_t bytes = bits / 8 + (bits % 8 != 0);
    for (size_t j = p->module; j != (size_t)-1; j = insp->modules[j].parent) {
      int fresh = nns__map2_add(&insp->held, p->tensor, (uint32_t)j, 1);
      if (fresh < 0)
        return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
      if (!fresh)
        break; /* counted here, so in every ancestor too */
      nns__imodule *d = &insp->modules[j];
      d->params = nns__add_sat_i64(d->params, p->elements);
      d->param_bytes = nns__add_sat_i64(d->param_bytes, bytes);
      if (p->learnable) {
        d->learnable_params = nns__add_sat_i64(d->learnable_params,
                                               p->elements);
        d->grad_bytes = nns__add_sat_i64(d->grad_bytes, bytes);
      }
      if (!add_dtype_bytes(insp, d, p->dtype, bytes, p->learnable))
        return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    }
  }
  return NNS_OK;
}

nns_status nns_inspection_set_meta(nns_inspection *insp, const char *key,
                                   const char *value, nns_error *err) {
  if (!insp || !key || !*key || !value)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_set_meta: inspection, a non-empty key "
                    "and a value are needed");
  for (size_t i = 0; i < insp->meta_count; i++)
    if (!strcmp(insp->meta[i].key, key)) {
      const char *v = dup(insp, value);
      if (!v)
        return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
      insp->meta[i].value = v;
      return NNS_OK;
    }
  nns__imeta *meta = nns__grow(insp->meta, &insp->meta_cap,
                               insp->meta_count + 1, sizeof *meta, 16);
  if (!meta)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  insp->meta = meta;
  nns__imeta *e = &insp->meta[insp->meta_count];
  e->key = dup(insp, key);
  e->value = dup(insp, value);
  if (!e->key || !e->value)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  insp->meta_count++;
  return NNS_OK;
}

/* ==== Batches ==== */

/* The i-th call and tensor of a batch, copied out: call_size and
 * tensor_size are the caller's strides, and nothing makes them multiples
 * of the structs' alignment. */
static nns_inspect_call call_get(const nns_inspect_batch *b, size_t i) {
  nns_inspect_call c;
  memcpy(&c, (const char *)b->calls + i * b->call_size, sizeof c);
  return c;
}

static nns_inspect_tensor tensor_get(const nns_inspect_batch *b, size_t i) {
  nns_inspect_tensor t;
  memcpy(&t, (const char *)b->tensors + i * b->tensor_size, sizeof t);
  return t;
}

static bool time_known(double t) { return t >= 0 && isfinite(t); }

static nns__ispan span_of(nns_inspect_event s, nns_inspect_event e) {
  nns__ispan sp = {s, e, time_known(s.time_ms) && time_known(e.time_ms) &&
                             e.time_ms >= s.time_ms};
  return sp;
}

/* Every index and range of a batch, before anything is copied. */
static nns_status check_batch(const nns_inspection *in,
                              const nns_inspect_batch *b, nns_error *err) {
  if (b->call_size < sizeof(nns_inspect_call) ||
      (b->tensor_count && b->tensor_size < sizeof(nns_inspect_tensor)))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "batch.call_size %zu or tensor_size %zu is smaller than "
                    "this library's structs (%zu, %zu)",
                    b->call_size, b->tensor_size, sizeof(nns_inspect_call),
                    sizeof(nns_inspect_tensor));
  if ((b->call_count && !b->calls) || (b->tensor_count && !b->tensors) ||
      (b->dim_count && !b->dims))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "batch: a count without its array");
  if (b->rank < 0 || b->rank >= MAX_RANK)
    return nns__err(err, NNS_E_ARG, -1, NULL, "batch: rank %d out of range",
                    b->rank);
  if (!isfinite(b->wall_start))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "batch: wall_start is %s; it must be a finite time "
                    "(seconds since the epoch)",
                    isnan(b->wall_start) ? "NaN" : "infinite");
  if (b->call_count > MAX_CALLS - in->call_count ||
      (b->tensor_count && b->tensor_count > SIZE_MAX / 2 / b->tensor_size) ||
      b->call_count > SIZE_MAX / 2 / b->call_size ||
      b->dim_count > SIZE_MAX / 2 / sizeof(int64_t))
    return nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "batch: more than %d calls in all", MAX_CALLS);
  for (size_t i = 0; i < b->call_count; i++) {
    nns_inspect_call c = call_get(b, i);
    if (c.module >= in->module_count)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "call %zu: module %zu is not registered (%zu modules)",
                      i, c.module, in->module_count);
    if (c.parent != (size_t)-1 && c.parent >= i)
      return nns__err(err, NNS_E_ARG, -1, in->modules[c.module].path,
                      "call %zu: parent call %zu does not come before it", i,
                      c.parent);
    if (c.tensor_first > b->tensor_count ||
        c.tensor_count > b->tensor_count - c.tensor_first)
      return nns__err(err, NNS_E_ARG, -1, in->modules[c.module].path,
                      "call %zu: tensors %zu+%zu run past the batch's %zu", i,
                      c.tensor_first, c.tensor_count, b->tensor_count);
  }
  for (size_t i = 0; i < b->tensor_count; i++) {
    nns_inspect_tensor t = tensor_get(b, i);
    if ((unsigned)t.role > NNS_TENSOR_GRAD_OUTPUT || t.rank < 0 ||
        t.rank > MAX_TENSOR_RANK || !amount_ok(t.bytes))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "tensor %zu: bad role %d, rank %d or bytes %lld "
                      "(0 to 2^62)",
                      i, (int)t.role, t.rank, (long long)t.bytes);
    if (t.dims > b->dim_count || (size_t)t.rank > b->dim_count - t.dims)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "tensor %zu: dims %zu+%d run past the batch's %zu", i,
                      t.dims, t.rank, b->dim_count);
  }
  return NNS_OK;
}

/* The batch's tensors (with their dims and names) copied once; calls
 * point into this copy, so a range named by many calls costs nothing
 * more. NULL when out of memory. */
static nns__itensor *copy_tensors(nns_inspection *in,
                                  const nns_inspect_batch *b) {
  nns__itensor *ts =
      nns__arena_array(&in->arena, b->tensor_count + 1, sizeof *ts);
  int64_t *dims = nns__arena_array(&in->arena, b->dim_count + 1,
                                   sizeof *dims);
  if (!ts || !dims)
    return NULL;
  if (b->dim_count)
    memcpy(dims, b->dims, b->dim_count * sizeof *dims);
  for (size_t i = 0; i < b->tensor_count; i++) {
    nns_inspect_tensor t = tensor_get(b, i);
    nns__itensor *o = &ts[i];
    o->role = t.role;
    o->dtype = t.dtype;
    o->rank = t.rank;
    o->flags = t.flags;
    o->bytes = t.bytes;
    o->min = t.min;
    o->max = t.max;
    o->mean = t.mean;
    o->std = t.std;
    o->zero_fraction = t.zero_fraction;
    o->dims = dims + t.dims;
    o->name = t.name ? dup(in, t.name) : NULL;
    if (t.name && !o->name)
      return NULL;
  }
  return ts;
}

static nns_status aggregate_calls(nns_inspection *in, size_t base, size_t n);
static void fold_batch(nns_inspection *in, size_t batch);

nns_status nns_inspection_add_batch(nns_inspection *insp,
                                    const nns_inspect_batch *given,
                                    nns_error *err) {
  if (!insp || !given)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_add_batch: inspection and batch are "
                    "needed");
  nns_inspect_batch full;
  if (NNS__GET(&full, given, NNS__V1_INSPECT_BATCH))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "batch.size %zu is below the first version's (%zu)",
                    given->size, (size_t)NNS__V1_INSPECT_BATCH);
  const nns_inspect_batch *b = &full;
  nns_status st = check_batch(insp, b, err);
  if (st)
    return st;
  /* Everything that can fail comes first: a rejected batch leaves the
   * inspection as it was (what it put in the arena is unreachable and
   * freed with it). */
  size_t nrank = (size_t)b->rank + 1, rcap = (size_t)insp->rank_count;
  /* check_batch bounds the counts (MAX_CALLS): these sums do not wrap. */
  nns__icall *calls =
      nns__grow(insp->calls, &insp->call_cap,
                insp->call_count + b->call_count, sizeof *calls, 16);
  if (calls)
    insp->calls = calls;
  nns__ibatch *batches =
      calls ? nns__grow(insp->batches, &insp->batch_cap,
                        insp->batch_count + 1, sizeof *batches, 16)
            : NULL;
  if (batches)
    insp->batches = batches;
  nns__irankcell *cells =
      batches ? nns__grow(insp->cells, &insp->cell_cap,
                          insp->cell_count + b->call_count, sizeof *cells, 16)
              : NULL;
  if (!cells)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  insp->cells = cells;
  if (nrank > rcap) {
    size_t cap = rcap; /* the list holds exactly rank_count entries */
    double *rp = nns__grow(insp->rank_passes, &cap, nrank, sizeof *rp, 1);
    if (!rp)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    memset(rp + rcap, 0, (nrank - rcap) * sizeof *rp);
    insp->rank_passes = rp;
    insp->rank_count = (int)nrank;
  }
  nns__itensor *ts = copy_tensors(insp, b);
  if (!ts)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  size_t base = insp->call_count;
  for (size_t i = 0; i < b->call_count; i++) {
    nns_inspect_call c = call_get(b, i);
    nns__icall *d = &insp->calls[base + i];
    memset(d, 0, sizeof *d);
    d->module = c.module;
    d->parent = c.parent == (size_t)-1 ? (size_t)-1 : base + c.parent;
    d->batch = insp->batch_count;
    d->next_same = (size_t)-1;
    d->flags = c.flags;
    d->fwd_seq = c.fwd_seq;
    d->bwd_seq = c.bwd_seq;
    d->fwd = span_of(c.fwd_start, c.fwd_end);
    d->bwd_raw = span_of(c.bwd_start, c.bwd_end);
    /* In place (ReLU(inplace=True) on torch 1.13) the hooks on input and
     * output end up on one autograd node and fire together, input first:
     * the span is the two events, in time order. */
    if (!d->bwd_raw.known && time_known(c.bwd_start.time_ms) &&
        time_known(c.bwd_end.time_ms))
      d->bwd_raw = span_of(c.bwd_end, c.bwd_start);
    /* A backward seen only at one end still marks its start or end. */
    if (!d->bwd_raw.known && time_known(c.bwd_start.time_ms) !=
                                 time_known(c.bwd_end.time_ms)) {
      nns_inspect_event e = time_known(c.bwd_start.time_ms) ? c.bwd_start
                                                           : c.bwd_end;
      d->bwd_raw = span_of(e, e);
    }
    d->tensor_count = c.tensor_count;
    d->tensors = ts + c.tensor_first;
  }
  if (aggregate_calls(insp, base, b->call_count))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  /* Only now does the batch count. */
  for (size_t i = 0; i < b->call_count; i++) {
    nns__imodule *m = &insp->modules[insp->calls[base + i].module];
    if (m->first_call == (size_t)-1)
      m->first_call = base + i;
    else
      insp->calls[m->last_call].next_same = base + i;
    m->last_call = base + i;
  }
  nns__ibatch *nb = &insp->batches[insp->batch_count++];
  nb->rank = b->rank;
  nb->pass = b->pass;
  nb->wall_start = b->wall_start;
  nb->first_call = base;
  nb->call_count = b->call_count;
  insp->call_count = base + b->call_count;
  insp->rank_passes[b->rank] += 1;
  fold_batch(insp, insp->batch_count - 1);
  return NNS_OK;
}

/* ==== Aggregation over the call tree ==== */

static double span_ms(const nns__ispan *s) {
  return s->known ? s->end.time_ms - s->start.time_ms : NAN;
}

static int64_t span_alloc(const nns__ispan *s) {
  if (!s->known || s->start.alloc_bytes < 0 ||
      s->end.alloc_bytes < s->start.alloc_bytes)
    return -1;
  return s->end.alloc_bytes - s->start.alloc_bytes;
}

/* Widens `into` to cover `s`, keeping each end's memory counters. */
static void span_cover(nns__ispan *into, const nns__ispan *s) {
  if (!s->known)
    return;
  if (!into->known) {
    *into = *s;
    return;
  }
  if (s->start.time_ms < into->start.time_ms)
    into->start = s->start;
  if (s->end.time_ms > into->end.time_ms)
    into->end = s->end;
}

typedef struct iv {
  double a, b;
} iv;

static int iv_cmp(const void *x, const void *y) {
  const iv *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a;
}

/* Length of the union of n intervals (sorted in place). */
static double union_len(iv *v, size_t n) {
  if (!n)
    return 0;
  qsort(v, n, sizeof *v, iv_cmp);
  double total = 0, a = v[0].a, b = v[0].b;
  for (size_t i = 1; i < n; i++) {
    if (v[i].a > b) {
      total += b - a;
      a = v[i].a;
    }
    if (v[i].b > b)
      b = v[i].b;
  }
  return total + (b - a);
}

static unsigned own_nonfinite(const nns__icall *c) {
  static const unsigned bit[4] = {NNS_NONFINITE_INPUT, NNS_NONFINITE_OUTPUT,
                                  NNS_NONFINITE_GRAD_INPUT,
                                  NNS_NONFINITE_GRAD_OUTPUT};
  unsigned f = 0;
  for (size_t k = 0; k < c->tensor_count; k++)
    if (c->tensors[k].flags & (NNS_TENSOR_NAN | NNS_TENSOR_INF))
      f |= bit[c->tensors[k].role];
  return f;
}

/* A child's backward as seen by its tensor hooks ends when the gradient
 * w.r.t. its input is complete - which, for an input other modules also
 * read (a residual block's x feeds both branches), is only after they have
 * run too. The engine runs one node at a time and a hook on an output
 * fires as that output's node starts, so starts are exact: a child's end
 * is cut at the next sibling's start and at its parent's end. */
typedef struct kid {
  double start;
  size_t call;
} kid;

static int kid_cmp(const void *x, const void *y) {
  const kid *p = x, *q = y;
  if (p->start != q->start)
    return p->start < q->start ? -1 : 1;
  return p->call < q->call ? -1 : p->call > q->call;
}

static void clip_children(nns__icall *calls, const nns__icall *parent,
                          const size_t *kids, size_t nk, kid *tmp) {
  size_t m = 0;
  for (size_t k = 0; k < nk; k++)
    if (calls[kids[k]].bwd.known)
      tmp[m++] = (kid){calls[kids[k]].bwd.start.time_ms, kids[k]};
  qsort(tmp, m, sizeof *tmp, kid_cmp);
  for (size_t k = 0; k < m; k++) {
    nns__ispan *s = &calls[tmp[k].call].bwd;
    const nns_inspect_event *cap = parent->bwd.known ? &parent->bwd.end
                                                      : NULL;
    for (size_t j = k + 1; j < m; j++)
      if (tmp[j].start > s->start.time_ms) {
        if (!cap || calls[tmp[j].call].bwd.start.time_ms < cap->time_ms)
          cap = &calls[tmp[j].call].bwd.start;
        break;
      }
    if (cap && cap->time_ms < s->end.time_ms)
      s->end = cap->time_ms >= s->start.time_ms ? *cap : s->start;
  }
}

/* Call-level figures of the n calls from `base` (one batch: parents are
 * in it). Children have larger indexes than their parent, so one pass
 * from the end sees every child before its parent. */
static nns_status aggregate_calls(nns_inspection *in, size_t base, size_t n) {
  if (!n)
    return NNS_OK; /* an empty batch: in->calls may be NULL still */
  nns__icall *calls = in->calls + base;
  size_t *nchild = calloc(n + 1, sizeof *nchild);
  size_t *first = calloc(n + 2, sizeof *first);
  size_t *kids = malloc((n + 1) * sizeof *kids);
  iv *tmp = malloc((n + 1) * sizeof *tmp);
  unsigned *sub = calloc(n + 1, sizeof *sub); /* NaN flags of child calls */
  kid *order = malloc((n + 1) * sizeof *order);
  if (!nchild || !first || !kids || !tmp || !sub || !order) {
    free(nchild), free(first), free(kids), free(tmp), free(sub), free(order);
    return NNS_E_NOMEM;
  }
  for (size_t i = 0; i < n; i++)
    if (calls[i].parent != (size_t)-1)
      nchild[calls[i].parent - base]++;
  for (size_t i = 0; i < n; i++)
    first[i + 1] = first[i] + nchild[i];
  memset(nchild, 0, (n + 1) * sizeof *nchild);
  for (size_t i = 0; i < n; i++) {
    if (calls[i].parent == (size_t)-1)
      continue;
    size_t p = calls[i].parent - base;
    kids[first[p] + nchild[p]++] = i;
  }
  /* Backward spans: widened to cover the children (bottom-up), then the
   * children cut to meet without overlapping (top-down). */
  for (size_t i = n; i-- > 0;) {
    nns__icall *c = &calls[i];
    c->bwd = c->bwd_raw;
    for (size_t k = first[i]; k < first[i + 1]; k++)
      span_cover(&c->bwd, &calls[kids[k]].bwd);
  }
  for (size_t i = 0; i < n; i++)
    clip_children(calls, &calls[i], kids + first[i], first[i + 1] - first[i],
                  order);
  free(order);
  for (size_t i = n; i-- > 0;) {
    nns__icall *c = &calls[i];
    c->nonfinite = own_nonfinite(c);
    c->fwd_incl = span_ms(&c->fwd);
    c->fwd_alloc = span_alloc(&c->fwd);
    double kid_fwd = 0;
    int64_t kid_fwd_alloc = 0, kid_bwd_alloc = 0;
    size_t nk = 0;
    bool kid_born = false;
    for (size_t k = first[i]; k < first[i + 1]; k++) {
      const nns__icall *ch = &calls[kids[k]];
      if (ch->fwd.known)
        kid_fwd += ch->fwd_incl;
      if (ch->fwd_alloc > 0)
        kid_fwd_alloc = nns__add_sat_i64(kid_fwd_alloc, ch->fwd_alloc);
      if (ch->bwd_alloc > 0)
        kid_bwd_alloc = nns__add_sat_i64(kid_bwd_alloc, ch->bwd_alloc);
      sub[i] |= ch->nonfinite | sub[kids[k]];
      kid_born = kid_born || ch->born_inside;
    }
    c->fwd_self = c->fwd.known ? fmax(0, c->fwd_incl - kid_fwd) : NAN;
    c->fwd_self_alloc =
        c->fwd_alloc < 0 ? -1
        : c->fwd_alloc > kid_fwd_alloc ? c->fwd_alloc - kid_fwd_alloc : 0;
    c->bwd_incl = span_ms(&c->bwd);
    c->bwd_alloc = span_alloc(&c->bwd);
    if (c->bwd.known) {
      for (size_t k = first[i]; k < first[i + 1]; k++) {
        const nns__icall *ch = &calls[kids[k]];
        if (ch->bwd.known)
          tmp[nk++] = (iv){ch->bwd.start.time_ms, ch->bwd.end.time_ms};
      }
      /* Cut children meet without overlapping; the union also covers
       * spans that still touch. */
      c->bwd_self = fmax(0, c->bwd_incl - union_len(tmp, nk));
    } else {
      c->bwd_self = NAN;
    }
    c->bwd_self_alloc =
        c->bwd_alloc < 0 ? -1
        : c->bwd_alloc > kid_bwd_alloc ? c->bwd_alloc - kid_bwd_alloc : 0;
    unsigned f = c->nonfinite;
    /* Who made the forward's first NaN/Inf: with finite inputs, the
     * children in the order they ran tell. The first child that saw one
     * either made it inside (it is that child's, or below) or was handed
     * it - then this call's own code, between its children, made it
     * (`h = torch.log(self.fc(x)); return self.norm(h)`). With no child
     * involved, a non-finite output is this call's own. A NaN/Inf in the
     * inputs came from outside: passed on, never produced here. */
    bool made_here = false;
    if (!(f & NNS_NONFINITE_INPUT)) {
      bool decided = false;
      for (size_t k = first[i]; k < first[i + 1] && !decided; k++) {
        const nns__icall *ch = &calls[kids[k]];
        if (ch->born_inside)
          decided = true;
        else if (ch->nonfinite & NNS_NONFINITE_INPUT)
          decided = made_here = true;
      }
      if (!decided && (f & NNS_NONFINITE_OUTPUT))
        made_here = true;
    }
    c->born_inside = made_here || kid_born;
    c->fwd_role = made_here                   ? NNS_NONFINITE_PRODUCER
                  : f & NNS_NONFINITE_OUTPUT ? NNS_NONFINITE_PROPAGATOR
                                             : NNS_NONFINITE_NONE;
    /* A module whose inputs need no gradient (the model's first layers)
     * shows no gradient w.r.t. them: one made or passed on inside it is
     * still its backward's. */
    bool sees_gi = false;
    for (size_t k = 0; k < c->tensor_count; k++)
      sees_gi = sees_gi || c->tensors[k].role == NNS_TENSOR_GRAD_INPUT;
    if (!sees_gi && (sub[i] & NNS_NONFINITE_GRAD_INPUT))
      f |= NNS_NONFINITE_GRAD_OUTPUT; /* counted as passed on */
    c->bwd_role =
        !(f & (NNS_NONFINITE_GRAD_INPUT | NNS_NONFINITE_GRAD_OUTPUT))
            ? NNS_NONFINITE_NONE
        : (f & NNS_NONFINITE_GRAD_INPUT) && !(f & NNS_NONFINITE_GRAD_OUTPUT) &&
                !(sub[i] & NNS_NONFINITE_GRAD_INPUT)
            ? NNS_NONFINITE_PRODUCER
            : NNS_NONFINITE_PROPAGATOR;
  }
  free(nchild), free(first), free(kids), free(tmp), free(sub);
  return NNS_OK;
}

/* ==== Aggregation over modules and ranks ==== */

/* When a call's NaN/Inf was seen, in ms since the epoch (ranks compare). */
static double abs_ms(const nns_inspection *in, const nns__icall *c,
                     bool backward) {
  double t = backward ? c->bwd_raw.end.time_ms : c->fwd.end.time_ms;
  if (!time_known(t))
    t = backward ? c->bwd.start.time_ms : c->fwd.start.time_ms;
  return in->batches[c->batch].wall_start * 1e3 + (time_known(t) ? t : 0);
}

static int dbl_cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* min, median, max of v[0..n) (sorted in place); zeros when n is 0. */
static void spread(double *v, size_t n, double out[3]) {
  if (!n) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  qsort(v, n, sizeof *v, dbl_cmp);
  out[0] = v[0];
  out[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  out[2] = v[n - 1];
}

/* Earlier in execution order: within a rank by pass then sequence number,
 * across ranks by wall-clock time. */
static bool earlier(const nns_inspection *in, const nns__icall *a,
                    const nns__icall *b, bool backward) {
  int ra = in->batches[a->batch].rank, rb = in->batches[b->batch].rank;
  if (ra != rb)
    return abs_ms(in, a, backward) < abs_ms(in, b, backward);
  if (a->batch != b->batch)
    return a->batch < b->batch;
  return backward ? a->bwd_seq < b->bwd_seq : a->fwd_seq < b->fwd_seq;
}

/* The first offender: the earliest producer, else the earliest
 * propagator; call i replaces the one kept when it comes first so. */
static void offer_offender(nns_inspection *in, size_t i, bool backward) {
  const nns__icall *c = &in->calls[i];
  nns_nonfinite_role role = backward ? c->bwd_role : c->fwd_role;
  nns_inspect_offender *o = &in->first[backward];
  if (!role)
    return;
  if (o->found) {
    const nns__icall *best = &in->calls[o->call];
    if (role > o->role ||
        (role == o->role && !earlier(in, c, best, backward)))
      return;
  }
  o->size = sizeof *o;
  o->found = 1;
  o->module = c->module;
  o->call = i;
  o->rank = in->batches[c->batch].rank;
  o->pass = in->batches[c->batch].pass;
  o->role = role;
}

static void add_ms(double *sum, double v) {
  if (!isnan(v))
    *sum += v;
}

static void add_bytes(int64_t *sum, int64_t v) {
  if (v > 0)
    *sum = nns__add_sat_i64(*sum, v);
}

/* The module's cell for a rank, made when missing (room was made before
 * the batch was taken); found cells move to the front, so the calls of a
 * batch - one rank - find theirs at once. */
static nns__irankcell *rank_cell(nns_inspection *in, nns__imodule *m,
                                 int rank) {
  size_t prev = (size_t)-1, i = m->rank_cells;
  while (i != (size_t)-1 && in->cells[i].rank != rank) {
    prev = i;
    i = in->cells[i].next;
  }
  if (i == (size_t)-1) {
    i = in->cell_count++;
    in->cells[i] = (nns__irankcell){.rank = rank, .next = m->rank_cells};
    m->rank_cells = i;
  } else if (prev != (size_t)-1) {
    in->cells[prev].next = in->cells[i].next;
    in->cells[i].next = m->rank_cells;
    m->rank_cells = i;
  }
  return &in->cells[i];
}

/* Folds a batch's calls (already derived) into the module totals, the
 * per-rank cells and the first offenders. */
static void fold_batch(nns_inspection *in, size_t batch) {
  const nns__ibatch *b = &in->batches[batch];
  for (size_t i = b->first_call; i < b->first_call + b->call_count; i++) {
    const nns__icall *c = &in->calls[i];
    nns__imodule *m = &in->modules[c->module];
    nns_inspect_stats *s = &m->stats;
    s->calls++;
    if (c->bwd.known)
      s->backward_calls++;
    add_ms(&s->fwd_inclusive_ms, c->fwd_incl);
    add_ms(&s->fwd_self_ms, c->fwd_self);
    add_ms(&s->bwd_inclusive_ms, c->bwd_incl);
    add_ms(&s->bwd_self_ms, c->bwd_self);
    add_bytes(&s->fwd_alloc_bytes, c->fwd_alloc);
    add_bytes(&s->fwd_self_alloc_bytes, c->fwd_self_alloc);
    add_bytes(&s->bwd_alloc_bytes, c->bwd_alloc);
    add_bytes(&s->bwd_self_alloc_bytes, c->bwd_self_alloc);
    s->nonfinite |= c->nonfinite;
    /* Producer is the stronger finding: it says where the NaN was born. */
    if (c->fwd_role && (!s->fwd_role || c->fwd_role < s->fwd_role))
      s->fwd_role = c->fwd_role;
    if (c->bwd_role && (!s->bwd_role || c->bwd_role < s->bwd_role))
      s->bwd_role = c->bwd_role;
    if (c->fwd_role || c->bwd_role) {
      double t = abs_ms(in, c, c->fwd_role == NNS_NONFINITE_NONE);
      if (t < m->first_nf) {
        m->first_nf = t;
        s->nonfinite_rank = b->rank;
      }
    }
    nns__irankcell *cell = rank_cell(in, m, b->rank);
    add_ms(&cell->fwd_ms, c->fwd_incl);
    add_ms(&cell->bwd_ms, c->bwd_incl);
    cell->calls++;
    offer_offender(in, i, false);
    offer_offender(in, i, true);
  }
}

/* A module's stats in full: the stored totals with passes, ranks and the
 * spread over ranks worked out (they change with every batch, so they are
 * computed when read). NNS_E_NOMEM only. */
static nns_status stats_in_full(const nns_inspection *in, size_t module,
                                nns_inspect_stats *out) {
  const nns__imodule *m = &in->modules[module];
  *out = m->stats;
  out->passes = (int64_t)in->batch_count;
  size_t k = 0;
  for (size_t i = m->rank_cells; i != (size_t)-1; i = in->cells[i].next)
    k += in->cells[i].calls > 0;
  double small[2][16], *v1 = small[0], *v2 = small[1], slow_f = 0, slow_b = 0;
  if (k > 16) {
    v1 = malloc(2 * k * sizeof *v1);
    if (!v1)
      return NNS_E_NOMEM;
    v2 = v1 + k;
  }
  k = 0;
  for (size_t i = m->rank_cells; i != (size_t)-1; i = in->cells[i].next) {
    const nns__irankcell *c = &in->cells[i];
    if (!c->calls)
      continue;
    v1[k] = c->fwd_ms / in->rank_passes[c->rank];
    v2[k++] = c->bwd_ms / in->rank_passes[c->rank];
  }
  out->ranks = (int)k;
  /* The slowest ranks: the cells in the order of v1 and v2. */
  out->rank_fwd_slowest = out->rank_bwd_slowest = -1;
  k = 0;
  for (size_t i = m->rank_cells; i != (size_t)-1; i = in->cells[i].next) {
    const nns__irankcell *c = &in->cells[i];
    if (!c->calls)
      continue;
    int r = c->rank;
    if (out->rank_fwd_slowest < 0 || v1[k] > slow_f) {
      slow_f = v1[k];
      out->rank_fwd_slowest = r;
    }
    if (out->rank_bwd_slowest < 0 || v2[k] > slow_b) {
      slow_b = v2[k];
      out->rank_bwd_slowest = r;
    }
    k++;
  }
  spread(v1, k, out->rank_fwd_ms);
  spread(v2, k, out->rank_bwd_ms);
  if (v1 != small[0])
    free(v1);
  return NNS_OK;
}

/* ==== Accessors ==== */

size_t nns_inspection_module_count(const nns_inspection *insp) {
  return insp ? insp->module_count : 0;
}

size_t nns_inspection_call_count(const nns_inspection *insp) {
  return insp ? insp->call_count : 0;
}

nns_status nns_inspection_module_stats(const nns_inspection *insp,
                                       size_t module, nns_inspect_stats *out,
                                       nns_error *err) {
  if (!insp || !out || out->size < NNS__V1_INSPECT_STATS)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_module_stats: inspection and out (with "
                    "out->size set) are needed");
  if (module >= insp->module_count)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_module_stats: module %zu of %zu", module,
                    insp->module_count);
  nns_inspect_stats full;
  if (stats_in_full(insp, module, &full))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  return NNS__PUT(out, &full, NNS__V1_INSPECT_STATS);
}

nns_status nns_inspection_first_nonfinite(const nns_inspection *insp,
                                          int backward,
                                          nns_inspect_offender *out,
                                          nns_error *err) {
  if (!insp || !out || out->size < NNS__V1_INSPECT_OFFENDER)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_first_nonfinite: inspection and out "
                    "(with out->size set) are needed");
  nns_inspect_offender o = insp->first[backward != 0];
  o.size = sizeof o;
  return NNS__PUT(out, &o, NNS__V1_INSPECT_OFFENDER);
}

/* ==== Reading it: what the reports print ==== */

/* First published sizes of the read structs (base.h's ABI rule). */
#define V1_MODULE_INFO NNS__SIZE_TO(nns_inspect_module_info, first_call)
#define V1_CALL_INFO NNS__SIZE_TO(nns_inspect_call_info, tensor_count)
#define V1_TENSOR_INFO NNS__SIZE_TO(nns_inspect_tensor_info, zero_fraction)
#define V1_BATCH_INFO NNS__SIZE_TO(nns_inspect_batch_info, call_count)

/* NNS_E_ARG for a missing argument or an index past `count`. */
nns_status nns__inspect_bad_read(nns_error *err, const char *fn,
                                 const void *insp, const void *out,
                                 size_t out_size, size_t v1, size_t i,
                                 size_t count) {
  if (!insp || !out || out_size < v1)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: inspection and out (with out->size set) are "
                    "needed",
                    fn);
  if (i >= count)
    return nns__err(err, NNS_E_ARG, -1, NULL, "%s: index %zu of %zu", fn, i,
                    count);
  return NNS_OK;
}

/* Hands a read struct to the caller: one store when the caller was built
 * against this header (the reports read every module, call and tensor
 * this way), else the sized copy. */
static nns_status put_read(void *out, const void *full, size_t size,
                           size_t v1) {
  size_t have;
  memcpy(&have, out, sizeof have);
  if (have == size) {
    memcpy(out, full, size);
    return NNS_OK;
  }
  return nns__put_sized(out, full, size, v1);
}

nns_status nns_inspection_module(const nns_inspection *insp, size_t module,
                                 nns_inspect_module_info *out,
                                 nns_error *err) {
  nns_status st = nns__inspect_bad_read(err, "nns_inspection_module", insp, out,
                           out ? out->size : 0, V1_MODULE_INFO, module,
                           insp ? insp->module_count : 0);
  if (st)
    return st;
  const nns__imodule *d = &insp->modules[module];
  nns_inspect_module_info m = {
      .size = sizeof m,
      .path = d->path,
      .path_len = d->path_len,
      .name = d->name,
      .type = d->type,
      .parent = d->parent,
      .depth = d->depth,
      .first_child = d->first_child,
      .next_sibling = d->next_sibling,
      .params = d->params,
      .learnable_params = d->learnable_params,
      .param_bytes = d->param_bytes,
      .grad_bytes = d->grad_bytes,
      .flops = d->flops,
      .macs = d->macs,
      .roofline_ms = d->roofline_ms,
      .saved_bytes = d->saved_bytes,
      .param_dtypes = d->dtypes,
      .param_dtype_count = d->dtype_count,
      .first_call = d->first_call};
  return put_read(out, &m, sizeof m, V1_MODULE_INFO);
}

nns_status nns_inspection_call(const nns_inspection *insp, size_t call,
                               nns_inspect_call_info *out, nns_error *err) {
  nns_status st = nns__inspect_bad_read(err, "nns_inspection_call", insp, out,
                           out ? out->size : 0, V1_CALL_INFO, call,
                           insp ? insp->call_count : 0);
  if (st)
    return st;
  const nns__icall *c = &insp->calls[call];
  nns_inspect_call_info i = {.size = sizeof i,
                             .module = c->module,
                             .parent = c->parent,
                             .batch = c->batch,
                             .next_same = c->next_same,
                             .flags = c->flags,
                             .fwd_seq = c->fwd_seq,
                             .bwd_seq = c->bwd_seq,
                             .forward_known = c->fwd.known,
                             .fwd_start = c->fwd.start,
                             .fwd_end = c->fwd.end,
                             .backward_known = c->bwd.known,
                             .bwd_start = c->bwd.start,
                             .bwd_end = c->bwd.end,
                             .fwd_inclusive_ms = c->fwd_incl,
                             .fwd_self_ms = c->fwd_self,
                             .bwd_inclusive_ms = c->bwd_incl,
                             .bwd_self_ms = c->bwd_self,
                             .fwd_alloc_bytes = c->fwd_alloc,
                             .fwd_self_alloc_bytes = c->fwd_self_alloc,
                             .bwd_alloc_bytes = c->bwd_alloc,
                             .bwd_self_alloc_bytes = c->bwd_self_alloc,
                             .nonfinite = c->nonfinite,
                             .fwd_role = c->fwd_role,
                             .bwd_role = c->bwd_role,
                             .tensor_count = c->tensor_count};
  return put_read(out, &i, sizeof i, V1_CALL_INFO);
}

nns_status nns_inspection_call_tensor(const nns_inspection *insp,
                                      size_t call, size_t k,
                                      nns_inspect_tensor_info *out,
                                      nns_error *err) {
  nns_status st = nns__inspect_bad_read(err, "nns_inspection_call_tensor", insp, out,
                           out ? out->size : 0, V1_TENSOR_INFO, call,
                           insp ? insp->call_count : 0);
  if (!st && k >= insp->calls[call].tensor_count)
    st = nns__err(err, NNS_E_ARG, -1, NULL,
                  "nns_inspection_call_tensor: tensor %zu of %zu", k,
                  insp->calls[call].tensor_count);
  if (st)
    return st;
  const nns__itensor *t = &insp->calls[call].tensors[k];
  nns_inspect_tensor_info i = {.size = sizeof i,
                               .role = t->role,
                               .dtype = t->dtype,
                               .rank = t->rank,
                               .flags = t->flags,
                               .dims = t->dims,
                               .name = t->name,
                               .bytes = t->bytes,
                               .min = t->min,
                               .max = t->max,
                               .mean = t->mean,
                               .std = t->std,
                               .zero_fraction = t->zero_fraction};
  return put_read(out, &i, sizeof i, V1_TENSOR_INFO);
}

size_t nns_inspection_batch_count(const nns_inspection *insp) {
  return insp ? insp->batch_count : 0;
}

nns_status nns_inspection_batch(const nns_inspection *insp, size_t batch,
                                nns_inspect_batch_info *out,
                                nns_error *err) {
  nns_status st = nns__inspect_bad_read(err, "nns_inspection_batch", insp, out,
                           out ? out->size : 0, V1_BATCH_INFO, batch,
                           insp ? insp->batch_count : 0);
  if (st)
    return st;
  const nns__ibatch *b = &insp->batches[batch];
  nns_inspect_batch_info i = {.size = sizeof i,
                              .rank = b->rank,
                              .pass = b->pass,
                              .wall_start = b->wall_start,
                              .first_call = b->first_call,
                              .call_count = b->call_count};
  return put_read(out, &i, sizeof i, V1_BATCH_INFO);
}

size_t nns_inspection_meta_count(const nns_inspection *insp) {
  return insp ? insp->meta_count : 0;
}

nns_status nns_inspection_meta(const nns_inspection *insp, size_t i,
                               const char **key, const char **value,
                               nns_error *err) {
  if (!insp || i >= insp->meta_count)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_inspection_meta: an inspection and an index below "
                    "its meta count (%zu) are needed",
                    insp ? insp->meta_count : 0);
  if (key)
    *key = insp->meta[i].key;
  if (value)
    *value = insp->meta[i].value;
  return NNS_OK;
}
