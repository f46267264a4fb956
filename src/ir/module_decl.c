/*
 * module_decl.c - what a caller declares about the model it built: its
 * modules (nns_model_set_module, one output record per call), the experts
 * of a mixture-of-experts layer (nns_model_set_experts); the modules are read
 * back in declaration order with the shapes it recorded at their
 * boundaries: what the layers tables (NNS_FORMAT_LAYERS_*) show for modules
 * that own no node (Dropout, Identity in eval); and the tensors each
 * registers, used or not, summed as PyTorch's parameters() and buffers()
 * count them (nns_model_module_held).
 */
#include <string.h>

#include "../base/json_reader.h"
#include "ir.h"

/* ==== Modules and experts ==== */

nns__module_decl *nns__module_find(const nns_model *m, const char *path) {
  const char *key = nns__intern_find(&m->strings, path);
  return key ? nns__map_get(&m->modules, key) : NULL;
}

nns__module_decl *nns__module_decl_of(nns_model *m, const char *path) {
  const char *p = nns__intern_cstr(&m->strings, path);
  if (!p)
    return NULL;
  nns__module_decl *d = nns__map_get(&m->modules, p);
  if (d)
    return d;
  d = nns__arena_alloc(&m->arena, sizeof *d);
  if (!d)
    return NULL;
  memset(d, 0, sizeof *d);
  d->path = p;
  d->in_rank = d->out_rank = -1;
  d->first_tensor = d->last_tensor = -1;
  size_t n = m->modules.count;
  if (n == m->module_order_cap) { /* kept in order for the layers table */
    size_t cap = n ? 2 * n : 16;
    nns__module_decl **o = nns__arena_alloc(&m->arena, cap * sizeof *o);
    if (!o)
      return NULL;
    if (n)
      memcpy(o, m->module_order, n * sizeof *o);
    m->module_order = o;
    m->module_order_cap = cap;
  }
  if (!nns__map_put(&m->modules, p, d))
    return NULL;
  m->module_order[n] = d;
  return d;
}

nns_status nns_model_set_module(nns_model *m, const char *path,
                                const char *class_name, size_t call_count,
                                nns_error *err) {
  if (!m || !path || !class_name)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_module needs a model, a path and a class "
                    "name");
  const char *c = nns__intern_cstr(&m->strings, class_name);
  nns__module_decl *d = c ? nns__module_decl_of(m, path) : NULL;
  if (!d)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  d->class_name = c;
  d->call_count = call_count;
  return NNS_OK;
}

nns_status nns_model_set_module_call(nns_model *m, const char *path,
                                     size_t call, const char *outputs,
                                     nns_error *err) {
  if (!m || !path || !outputs)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_module_call needs a model, a path and "
                    "the outputs' JSON");
  if (call >= ((size_t)1 << 20))
    return nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "call %zu of module '%s': past 2^20 calls", call, path);
  nns__module_decl *d = nns__module_find(m, path);
  if (!d)
    return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                    "module '%s' was not declared (nns_model_set_module)",
                    path);
  /* Checked here, so that the report can embed it as it is; once per
   * distinct text (a layer called N times, N layers alike: one text),
   * kept interned. */
  const char *text = nns__intern_cstr(&m->strings, outputs);
  if (!text)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (!nns__map_get(&m->call_json, text)) {
    nns__jval *v = NULL;
    nns_status st =
        nns__json_parse(&m->scratch, outputs, strlen(outputs), &v, err);
    nns__arena_reset(&m->scratch);
    if (st != NNS_OK)
      return st;
    if (!nns__map_put(&m->call_json, text, (void *)1))
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  if (call >= d->call_outputs_cap) {
    const char **o = nns__arena_grow(&m->arena, d->call_outputs,
                                     &d->call_outputs_cap,
                                     d->call_outputs_cap, call + 1,
                                     sizeof *o, 4);
    if (!o)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    d->call_outputs = o;
  }
  d->call_outputs[call] = text;
  if (call >= d->call_outputs_count)
    d->call_outputs_count = call + 1;
  return NNS_OK;
}

size_t nns_model_module_call_count(const nns_model *m, const char *path) {
  if (!m || !path)
    return 0;
  const nns__module_decl *d = nns__module_find(m, path);
  return d ? d->call_outputs_count : 0;
}

nns_status nns_model_module_call(const nns_model *m, const char *path,
                                 size_t call, const char **outputs) {
  if (!m || !path || !outputs)
    return NNS_E_ARG;
  *outputs = NULL;
  const nns__module_decl *d = nns__module_find(m, path); /* per layer */
  if (!d || call >= d->call_outputs_cap || !d->call_outputs[call])
    return NNS_E_NOTFOUND;
  *outputs = d->call_outputs[call];
  return NNS_OK;
}

nns_status nns_model_set_experts(nns_model *m, const char *path,
                                 int64_t active, int64_t total, int64_t tokens,
                                 nns_error *err) {
  if (!m || !path)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_experts needs a model and a path");
  /* One check per number, each naming its value and range; E is bounded
   * so that the experts' shares (x * k / E) are exact in 64 bits. */
  if (total < 1 || total > NNS_EXPERTS_MAX)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "experts of '%.200s': total %lld is not from 1 to %lld",
                    path, (long long)total, (long long)NNS_EXPERTS_MAX);
  if (active < 1 || active > total)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "experts of '%.200s': active %lld is not from 1 to the "
                    "total, %lld", path, (long long)active, (long long)total);
  if (tokens < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "experts of '%.200s': tokens %lld is not from 0 (not "
                    "known) to %lld", path, (long long)tokens,
                    (long long)INT64_MAX);
  const char *p = nns__intern_cstr(&m->strings, path);
  nns__experts_decl *d = p ? nns__map_get(&m->experts, p) : NULL;
  if (p && !d && (d = nns__arena_alloc(&m->arena, sizeof *d)) &&
      !nns__map_put(&m->experts, p, d))
    d = NULL;
  if (!d)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  d->active = active;
  d->total = total;
  d->tokens = tokens;
  return NNS_OK;
}

/* ==== Shapes and tensors ==== */

enum { MAX_DECL_RANK = 64 };

static bool shape_ok(const int64_t *dims, int rank) {
  if (rank < -1 || rank > MAX_DECL_RANK || (rank > 0 && !dims))
    return false;
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0)
      return false;
  return true;
}

static bool copy_shape(nns__arena *a, const int64_t *dims, int rank,
                       int64_t **out_dims, int *out_rank) {
  int64_t *d = NULL;
  if (rank > 0) {
    d = nns__arena_alloc(a, (size_t)rank * sizeof *d);
    if (!d)
      return false;
    memcpy(d, dims, (size_t)rank * sizeof *d);
  }
  *out_dims = d;
  *out_rank = rank;
  return true;
}

nns_status nns_model_set_module_shapes(nns_model *m, const char *path,
                                       const int64_t *input_shape,
                                       int input_rank,
                                       const int64_t *output_shape,
                                       int output_rank, nns_error *err) {
  if (!m || !path)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_module_shapes needs a model and a path");
  if (!shape_ok(input_shape, input_rank) ||
      !shape_ok(output_shape, output_rank))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "module '%s': a shape needs a rank from -1 to %d, its "
                    "dims (not NULL) and no negative dim",
                    path, MAX_DECL_RANK);
  nns__module_decl *d = nns__module_find(m, path);
  if (!d || !d->class_name)
    return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                    "module '%s' was not declared (nns_model_set_module)",
                    path);
  if (!copy_shape(&m->arena, input_shape, input_rank, &d->in_shape,
                  &d->in_rank) ||
      !copy_shape(&m->arena, output_shape, output_rank, &d->out_shape,
                  &d->out_rank))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  return NNS_OK;
}

size_t nns_model_module_count(const nns_model *m) {
  return m ? m->modules.count : 0;
}

nns_status nns_model_module(const nns_model *m, size_t i,
                            nns_module_info *out) {
  if (!m || !out || i >= m->modules.count)
    return NNS_E_ARG;
  const nns__module_decl *d = m->module_order[i];
  nns_module_info info = {
      .size = sizeof info,
      .path = d->path,
      .class_name = d->class_name,
      .call_count = d->call_count,
      .macs_given = d->macs_given,
      .macs = d->macs_given ? d->macs : 0,
      .input_rank = d->in_rank,
      .output_rank = d->out_rank,
      .input_shape = d->in_shape,
      .output_shape = d->out_shape,
  };
  return NNS__PUT(out, &info, sizeof info);
}

/* ==== Registered tensors ==== */

enum { MAX_MODULE_TENSORS = INT32_MAX };

nns_status nns_model_add_module_tensor(nns_model *m, const char *path,
                                       const char *tensor, int element_bits,
                                       int rank, const int64_t *dims,
                                       nns_param_kind kind, nns_error *err) {
  if (!m || !path || !tensor)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_add_module_tensor needs a model, a path and "
                    "a tensor name");
  if (kind != NNS_PARAM_TRAINABLE && kind != NNS_PARAM_FROZEN &&
      kind != NNS_PARAM_BUFFER)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "tensor '%s' of module '%s': kind %d is not trainable, "
                    "frozen or buffer", tensor, path, (int)kind);
  if (element_bits < 1 || element_bits > 1024)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "tensor '%s' of module '%s': %d bits per element is not "
                    "from 1 to 1024", tensor, path, element_bits);
  if (rank < 0 || !shape_ok(dims, rank))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "tensor '%s' of module '%s': a shape needs a rank from 0 "
                    "to %d, its dims (not NULL) and no negative dim",
                    tensor, path, MAX_DECL_RANK);
  int64_t numel = 1, bits_total;
  for (int i = 0; i < rank; i++)
    if (!nns__mul_i64(numel, dims[i], &numel))
      return nns__err(err, NNS_E_LIMIT, -1, NULL,
                      "tensor '%s' of module '%s': past 2^63 elements",
                      tensor, path);
  if (!nns__mul_i64(numel, element_bits, &bits_total))
    return nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "tensor '%s' of module '%s': past 2^63 bits", tensor,
                    path);
  nns__module_decl *d = nns__module_find(m, path);
  if (!d || !d->class_name)
    return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                    "module '%s' was not declared (nns_model_set_module)",
                    path);
  if (m->n_module_tensors >= MAX_MODULE_TENSORS)
    return nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "tensor '%s' of module '%s': past 2^31 tensors", tensor,
                    path);
  const char *t = nns__intern_cstr(&m->strings, tensor);
  nns__module_tensor *all =
      t ? nns__arena_grow(&m->arena, m->module_tensors,
                          &m->cap_module_tensors, m->n_module_tensors,
                          m->n_module_tensors + 1, sizeof *all, 64)
        : NULL;
  if (!all)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  m->module_tensors = all;
  int32_t i = (int32_t)m->n_module_tensors++;
  all[i] = (nns__module_tensor){.tensor = t, .numel = numel,
                                .bytes = bits_total / 8 + (bits_total % 8 != 0),
                                .kind = (uint8_t)kind, .next = -1,
                                .module = d};
  if (d->last_tensor >= 0)
    all[d->last_tensor].next = i;
  else
    d->first_tensor = i;
  d->last_tensor = i;
  return NNS_OK;
}

/* Adds tensor t to *h unless `seen` already holds it. */
static bool held_add(nns_module_held *h, nns__set64 *seen,
                     const nns__module_tensor *t) {
  int fresh = nns__set64_add(seen, (uint64_t)(uintptr_t)t->tensor);
  if (fresh <= 0)
    return fresh == 0;
  h->tensors++;
  /* Sums of sizes already checked one by one: saturate, as counts do. */
  int64_t *n = t->kind == NNS_PARAM_BUFFER  ? &h->buffers
               : t->kind == NNS_PARAM_FROZEN ? &h->frozen
                                             : &h->trainable;
  int64_t *b = t->kind == NNS_PARAM_BUFFER ? &h->buffer_bytes
                                           : &h->param_bytes;
  if (!nns__add_i64(*n, t->numel, n))
    *n = INT64_MAX;
  if (!nns__add_i64(*b, t->bytes, b))
    *b = INT64_MAX;
  return true;
}

/* Whether module path `p` is `root` or below it ("" holds every path). */
static bool under(const char *p, const char *root, size_t root_len) {
  return !root_len || p == root ||
         (strncmp(p, root, root_len) == 0 && p[root_len] == '.');
}

nns_status nns_model_module_held(const nns_model *m, const char *path,
                                 int recurse, nns_module_held *out) {
  if (!m || !path || !out)
    return NNS_E_ARG;
  const nns__module_decl *d = nns__module_find(m, path);
  if (!d || !d->class_name)
    return NNS_E_NOTFOUND;
  nns_module_held h = {.size = sizeof h};
  nns__set64 seen = {0};
  bool ok = true;
  const nns__module_tensor *all = m->module_tensors;
  if (!recurse) {
    for (int32_t i = d->first_tensor; ok && i >= 0; i = all[i].next)
      ok = held_add(&h, &seen, &all[i]);
  } else {
    size_t len = strlen(d->path);
    for (size_t i = 0; ok && i < m->n_module_tensors; i++)
      if (under(all[i].module->path, d->path, len))
        ok = held_add(&h, &seen, &all[i]);
  }
  nns__set64_free(&seen);
  return ok ? NNS__PUT(out, &h, NNS__SIZE_TO(nns_module_held, tensors))
            : NNS_E_NOMEM;
}
