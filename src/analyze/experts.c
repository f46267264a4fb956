/*
 * experts.c - what one token of a mixture-of-experts model uses, and what a
 * decoder step does to its key/value cache (docs/metrics.md, "Experts" and
 * "Decoder steps").
 *
 * The caller names the module holding a layer's experts and says k of E
 * (nns_model_set_experts): the recorded graph cannot, as which token goes
 * to which expert is data. The experts are the parameters named under
 * that module path. A layer's params_active is its parameters with the
 * experts it holds at k/E; its weight_bytes_read the same bytes with the
 * experts at min(E, k * tokens) of E, the most experts one call of
 * `tokens` tokens can reach. Each parameter is reduced once: an
 * initializer two MoE nodes share (or a declared experts module and an MoE
 * node both hold) takes the first one's k of E, and MoE nodes inside
 * subgraphs (If, Loop, Scan bodies) count like those of the main graph, at
 * the layer that counts their parameters (params.c). The key/value
 * cache is read from the graph's input and output names, the convention of
 * Hugging Face's ONNX decoders, which the Python recorder follows too.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* floor(x * num / den) for 0 <= num <= den, without overflow. */
static int64_t scaled(int64_t x, int64_t num, int64_t den) {
  if (den <= 0 || num >= den)
    return x;
  return (x / den) * num + (x % den) * num / den;
}

/* True when parameter `name` is `path` or below it ("path.<...>"). */
static bool under(const char *name, const char *path) {
  size_t n = strlen(path);
  return name && strncmp(name, path, n) == 0 && (!name[n] || name[n] == '.');
}

/* True when a shorter path of `paths` holds `path` too (the outer wins). */
static bool inside_other(const char *const *paths, size_t n,
                         const char *path) {
  for (size_t i = 0; i < n; i++)
    if (paths[i] && paths[i] != path && strcmp(paths[i], path) != 0 &&
        under(path, paths[i]))
      return true;
  return false;
}

/* One experts module: the parameters under its path, summed, count at k/E
 * (bytes at min(E, k * tokens)/E) at the layer of that path, or, where no
 * layer has it (experts whose module is never called, its weights read by
 * the MoE block itself), at the innermost layer holding them all; layers
 * inside keep their own counts. */
static void apply_experts(nns__analysis *a, const char *path,
                          const nns__experts_decl *d, bool *done) {
  int64_t elements = 0, bytes = 0;
  size_t anchor = (size_t)-1;
  for (size_t i = 0; i < a->n_params; i++) {
    const nns_param_info *p = &a->params[i];
    if (p->kind == NNS_PARAM_CONSTANT || !under(p->name, path) || done[i])
      continue;
    done[i] = true;
    if (p->kind != NNS_PARAM_BUFFER)
      elements = nns__sum_sat(elements, p->elements);
    bytes = nns__sum_sat(bytes, p->bytes);
    if (anchor == (size_t)-1)
      anchor = p->layer;
    while (!nns__layer_contains(a, (uint32_t)anchor, (uint32_t)p->layer))
      anchor = nns__layer_up(a, anchor);
  }
  if (anchor == (size_t)-1)
    return;
  for (size_t l = anchor; l < a->layers[anchor].end; l++)
    if (a->layers[l].info.path == path) {
      anchor = l;
      break;
    }
  int64_t idle = elements - scaled(elements, d->active, d->total);
  /* min(E, k * tokens): k * tokens may pass int64 (then it passes E). */
  int64_t reach = d->total, routed;
  if (d->tokens > 0 &&
      !__builtin_mul_overflow(d->active, d->tokens, &routed) &&
      routed < d->total)
    reach = routed;
  int64_t unread = bytes - scaled(bytes, reach, d->total);
  for (size_t l = anchor; l != (size_t)-1; l = nns__layer_up(a, l)) {
    a->layer_experts[l].params_active -= idle;
    a->layer_experts[l].weight_bytes_read -= unread;
  }
}

/* A com.microsoft MoE or QMoE node of an ONNX graph: its k (attribute k,
 * 1 by default) of E (router_probs' last dim) and the tokens (the input's
 * rows, 0 when not known); false for other nodes. */
static bool moe_node(const nns__node *n, nns__experts_decl *d) {
  /* Every node of the model comes here: most are turned away by their op
   * entry (MoE and QMoE count matrix products) before any compare. */
  if (!n->op || !n->op->matrix || !n->domain ||
      strcmp(n->domain, "com.microsoft") != 0 ||
      (strcmp(n->op_type, "MoE") != 0 && strcmp(n->op_type, "QMoE") != 0) ||
      n->n_in < 3 || !n->in[0] || !n->in[1])
    return false;
  const nns__type *x = &n->in[0]->type, *r = &n->in[1]->type;
  if (r->rank < 1 || r->dims[r->rank - 1].sym || r->dims[r->rank - 1].v < 1)
    return false;
  d->total = r->dims[r->rank - 1].v;
  d->active = 1;
  for (int32_t i = 0; i < n->n_attrs; i++)
    if (!strcmp(n->attrs[i].name, "k") && n->attrs[i].type == NNS__AT_INT)
      d->active = n->attrs[i].i;
  if (d->active < 1 || d->active > d->total)
    return false;
  d->tokens = x->rank >= 2 ? 1 : 0;
  for (int k = 0; k + 1 < x->rank && d->tokens > 0; k++)
    if (x->dims[k].sym || __builtin_mul_overflow(d->tokens, x->dims[k].v,
                                                 &d->tokens))
      d->tokens = 0;
  return true;
}

/* Every parameter a MoE node takes from input 2 on (the experts' weights,
 * scales and biases, E stacked) counts at k/E at its layer and above
 * (bytes at min(E, k * tokens)/E): docs/metrics.md, "Experts". Nodes of
 * every graph, subgraphs included (m->nodes); a parameter already reduced
 * (`done`) is left as it is. */
static void apply_moe_nodes(const nns_model *m, nns__analysis *a,
                            bool *done) {
  for (size_t j = 0; j < m->n_nodes; j++) {
    const nns__node *n = m->nodes[j];
    nns__experts_decl d;
    if (!moe_node(n, &d))
      continue;
    int64_t reach = d.total, routed;
    if (d.tokens > 0 && !__builtin_mul_overflow(d.active, d.tokens, &routed) &&
        routed < d.total)
      reach = routed;
    for (int32_t i = 2; i < n->n_in; i++) {
      if (!n->in[i] || !n->in[i]->init)
        continue;
      for (size_t q = 0; q < a->n_params; q++) {
        const nns_param_info *p = &a->params[q];
        if (p->kind == NNS_PARAM_CONSTANT || !p->name ||
            strcmp(p->name, n->in_names[i]) != 0)
          continue;
        if (done[q])
          break;
        done[q] = true;
        int64_t idle = p->kind == NNS_PARAM_BUFFER
                           ? 0
                           : p->elements -
                                 scaled(p->elements, d.active, d.total);
        int64_t unread = p->bytes - scaled(p->bytes, reach, d.total);
        for (size_t l = p->layer; l != (size_t)-1; l = nns__layer_up(a, l)) {
          a->layer_experts[l].params_active -= idle;
          a->layer_experts[l].weight_bytes_read -= unread;
        }
        break;
      }
    }
  }
}

static bool has_moe_nodes(const nns_model *m) {
  nns__experts_decl d;
  for (size_t j = 0; j < m->n_nodes; j++)
    if (moe_node(m->nodes[j], &d))
      return true;
  return false;
}

/* Without experts (declared, found from the routing, or MoE nodes)
 * nothing is kept: nns__layer_counts works the two counts out from the
 * sums. */
static void experts_counts(const nns_model *m, nns__analysis *a) {
  bool nodes = has_moe_nodes(m);
  nns__routed_experts routed = {0};
  if (m->experts.count == 0 && !nodes && !nns__experts_routed(m, a, &routed))
    a->nomem = true;
  if (m->experts.count == 0 && !nodes && routed.count == 0) {
    nns__routed_experts_free(&routed);
    return;
  }
  a->layer_experts = nns__arena_array(&a->arena, a->n_layers + 1,
                                      sizeof *a->layer_experts);
  bool *done = calloc(a->n_params + 1, sizeof *done);
  if (!a->layer_experts || !done) {
    free(done);
    nns__routed_experts_free(&routed);
    a->nomem = true;
    return;
  }
  for (size_t l = 0; l < a->n_layers; l++) {
    const nns__lcounts *c = &a->layers[l].counts;
    a->layer_experts[l].params_active = nns__sum_sat(c->params, c->frozen);
    a->layer_experts[l].weight_bytes_read = c->param_bytes;
  }
  const char *const *declared = (const char *const *)m->experts.keys;
  for (size_t i = 0; i < m->experts.cap; i++) {
    const char *path = m->experts.keys[i];
    if (path && !inside_other(declared, m->experts.cap, path))
      apply_experts(a, path, m->experts.vals[i], done);
  }
  for (size_t i = 0; i < routed.count; i++) {
    const char *path = routed.paths[i];
    /* the interned copy: a layer's path is found by its pointer */
    const char *interned = nns__intern_find(&m->strings, path);
    if (!inside_other(routed.paths, routed.count, path))
      apply_experts(a, interned ? interned : path, &routed.decls[i], done);
  }
  nns__routed_experts_free(&routed);
  if (nodes)
    apply_moe_nodes(m, a, done);
  free(done);
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
      sum = nns__sum_sat(sum, b);
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
