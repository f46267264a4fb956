/*
 * experts.c - what one token of a mixture-of-experts model uses, and what a
 * decoder step does to its key/value cache (docs/metrics.md, "Experts" and
 * "Decoder steps").
 *
 * The caller names the module holding a layer's experts and says k of E
 * (nns_model_set_experts): the recorded graph cannot, as which token goes
 * to which expert is data. A layer's params_active is its parameters with
 * every experts module inside it (itself included) at k/E; its
 * weight_bytes_read the same bytes with the experts at min(E, k * tokens)
 * of E, the most experts one call of `tokens` tokens can reach. The key/value
 * cache is read from the graph's input and output names, the convention of
 * Hugging Face's ONNX decoders, which the Python recorder follows too.
 */
#include <string.h>

#include "analyze.h"

static int64_t sum_sat(int64_t a, int64_t b) {
  int64_t r;
  return nns__add_i64(a, b, &r) ? r : INT64_MAX;
}

/* floor(x * num / den) for 0 <= num <= den, without overflow. */
static int64_t scaled(int64_t x, int64_t num, int64_t den) {
  if (den <= 0 || num >= den)
    return x;
  return (x / den) * num + (x % den) * num / den;
}

/* True when a layer strictly above l is annotated too (the outer one wins). */
static bool inside_experts(const nns_model *m, const nns__analysis *a,
                           uint32_t l) {
  for (size_t p = a->layers[l].info.parent; p != (size_t)-1;
       p = a->layers[p].info.parent)
    if (nns__map_get(&m->experts, a->layers[p].info.path))
      return true;
  return false;
}

static void experts_counts(const nns_model *m, nns__analysis *a) {
  for (size_t l = 0; l < a->n_layers; l++) {
    nns_counts *c = &a->layers[l].counts;
    c->params_active = sum_sat(c->params, c->frozen);
    c->weight_bytes_read = c->param_bytes;
  }
  if (!m->experts.count)
    return;
  for (uint32_t x = 0; x < a->n_layers; x++) {
    const nns__experts_decl *d =
        nns__map_get(&m->experts, a->layers[x].info.path);
    if (!d || inside_experts(m, a, x))
      continue;
    const nns_counts *e = &a->layers[x].counts;
    int64_t all = sum_sat(e->params, e->frozen);
    int64_t idle = all - scaled(all, d->active, d->total);
    int64_t reach = d->total;
    if (d->tokens > 0 && d->tokens < d->total &&
        d->active * d->tokens < d->total)
      reach = d->active * d->tokens;
    int64_t unread = e->param_bytes - scaled(e->param_bytes, reach, d->total);
    /* x and every layer holding it; counts of layers inside x stay theirs */
    for (size_t l = x; l != (size_t)-1; l = a->layers[l].info.parent) {
      a->layers[l].counts.params_active -= idle;
      a->layers[l].counts.weight_bytes_read -= unread;
    }
  }
}

static bool prefixed(const char *name, const char *prefix) {
  return name && strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Bytes of the graph values whose names start with one of the prefixes. */
static int64_t named_bytes(const nns_model *m, nns__value *const *vals,
                           int32_t n, const char *const *prefixes) {
  int64_t sum = 0;
  for (int32_t i = 0; i < n; i++) {
    const nns__value *v = vals[i];
    bool kv = false;
    for (const char *const *p = prefixes; *p && !kv; p++)
      kv = prefixed(v->name, *p);
    bool symbolic = false;
    int64_t b = kv ? nns__value_bytes(m, v, &symbolic) : 0;
    if (b > 0)
      sum = sum_sat(sum, b);
  }
  return sum;
}

static void kv_cache(const nns_model *m, nns__analysis *a) {
  static const char *const past[] = {"past_key_values.", "past.", NULL};
  static const char *const present[] = {"present.", NULL};
  const nns__graph *g = a->main;
  int64_t before = named_bytes(m, g->inputs, g->n_inputs, past);
  int64_t after = named_bytes(m, g->outputs, g->n_outputs, present);
  a->totals.kv_cache_bytes_read = before;
  a->totals.kv_cache_bytes = after;
  a->totals.kv_cache_bytes_written = after > before ? after - before : 0;
}

void nns__experts_analyze(const nns_model *m, nns__analysis *a) {
  experts_counts(m, a);
  kv_cache(m, a);
}
