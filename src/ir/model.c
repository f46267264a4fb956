/*
 * model.c - the model object: creation and destruction, the value list,
 * warnings, opset lookup and scoped name lookup.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

nns_model *nns__model_new(void) {
  nns_model *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  nns__arena_init(&m->arena);
  nns__arena_init(&m->scratch);
  nns__arena_init(&m->data_arena);
  m->data_arena.bulk = true;
  nns__arena_init(&m->infer_arena);
  nns__intern_init(&m->strings, &m->arena);
  m->modules.arena = &m->arena;
  m->call_json.arena = &m->arena;
  m->param_kinds.arena = &m->arena;
  m->experts.arena = &m->arena;
  /* Symbol id 0 means "known"; reserve it. */
  m->syms = calloc(16, sizeof *m->syms);
  if (!m->syms) {
    free(m);
    return NULL;
  }
  m->cap_syms = 16;
  m->n_syms = 1;
  return m;
}

void nns__model_destroy(nns_model *m) {
  if (!m)
    return;
  for (size_t i = 0; i < m->n_warnings; i++)
    free(m->warnings[i]);
  free(m->warnings);
  free(m->unknown);
  free(m->train_step);
  free(m->parallel);
  free(m->syms);
  nns__map_free(&m->sym_by_name);
  nns__map_free(&m->op_cache);
  nns__map_free(&m->custom_ops);
  nns__map_free(&m->warned);
  nns__fmap_close(&m->map);
  nns__intern_free(&m->strings);
  nns__arena_free(&m->infer_arena);
  nns__arena_free(&m->arena);
  nns__arena_free(&m->scratch);
  nns__arena_free(&m->data_arena);
  free(m);
}

void nns_model_free(nns_model *model) { nns__model_destroy(model); }

void nns__warn(nns_model *m, const char *fmt, ...) {
  char **w = nns__grow(m->warnings, &m->cap_warnings, m->n_warnings + 1,
                       sizeof *w, 16);
  if (!w)
    return;
  m->warnings = w;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *copy = strdup(buf);
  if (copy)
    m->warnings[m->n_warnings++] = copy;
}

/* The value list lives in the arena: malloc'ed and doubled, its 8 bytes a
 * value (about 1 MB for 100k nodes) were faulted 4 KB at a time, where a
 * reserved arena run takes huge pages. An outgrown list stays in the
 * arena; the reserve made once the graph is loaded keeps that rare. */
bool nns__model_reserve_values(nns_model *m, size_t n) {
  if (n <= m->cap_values)
    return true;
  if (n < SIZE_MAX / sizeof *m->values)
    nns__arena_reserve(&m->arena, n * sizeof *m->values); /* a hint */
  nns__value **vals = nns__arena_grow(&m->arena, m->values, &m->cap_values,
                                      m->n_values, n, sizeof *vals, 256);
  if (!vals)
    return false;
  m->values = vals;
  return true;
}

bool nns__model_add_value(nns_model *m, nns__value *v) {
  if (m->n_values == m->cap_values) {
    nns__value **vals =
        nns__arena_grow(&m->arena, m->values, &m->cap_values, m->n_values,
                        m->n_values + 1, sizeof *vals, 256);
    if (!vals)
      return false;
    m->values = vals;
  }
  v->index = (uint32_t)m->n_values;
  m->values[m->n_values++] = v;
  return true;
}

int64_t nns__model_opset(const nns_model *m, const char *domain) {
  for (int32_t i = 0; i < m->n_opsets; i++)
    if (m->opset_domains[i] == domain)
      return m->opset_versions[i];
  return -1;
}

nns__graph *nns__graph_new(nns_model *m, nns__graph *parent) {
  nns__graph *g = nns__arena_alloc(&m->arena, sizeof *g);
  if (!g)
    return NULL;
  g->parent = parent;
  g->depth = parent ? parent->depth + 1 : 0;
  g->scope.arena = &m->arena;
  g->name = "";
  return g;
}

nns__value *nns__graph_lookup(const nns__graph *g, const char *name) {
  for (; g; g = g->parent) {
    nns__value *v = nns__map_get(&g->scope, name);
    if (v)
      return v;
  }
  return NULL;
}

/* ==== The node list ==== */

/*
 * The three lists live in the model's arena, sized once from the node
 * counts assembly kept (the main graph's and its subgraphs'): malloc'ed
 * and doubled, their 20 bytes a node (2 MB for 100k nodes) were faulted
 * in 4 KB at a time, where the arena's large chunks take huge pages. The
 * count is only a size: a list that outgrows it grows in the arena, but
 * not on a thread (nns__model_listing), which gives up instead.
 */
static bool list_push(nns__model_listing *l, nns__node *n, uint32_t parent,
                      const char *attr) {
  nns_model *m = l->m;
  if (m->n_nodes == l->cap) {
    if (l->threaded)
      return false; /* the arena is the calling thread's */
    /* Three lists of one length: each grows from the same capacity. */
    nns__arena *a = &m->arena;
    size_t need = m->n_nodes + 1, cap = l->cap;
    nns__node **nodes = nns__arena_grow(a, m->nodes, &cap, m->n_nodes, need,
                                        sizeof *nodes, 64);
    if (nodes)
      m->nodes = nodes;
    cap = l->cap;
    uint32_t *par = nns__arena_grow(a, m->node_parent, &cap, m->n_nodes,
                                    need, sizeof *par, 64);
    if (par)
      m->node_parent = par;
    cap = l->cap;
    const char **pa = nns__arena_grow(a, m->node_parent_attr, &cap,
                                      m->n_nodes, need, sizeof *pa, 64);
    if (pa)
      m->node_parent_attr = pa;
    if (!nodes || !par || !pa || cap > UINT32_MAX)
      return false;
    l->cap = cap;
  }
  n->list_index = (uint32_t)m->n_nodes;
  m->nodes[m->n_nodes] = n;
  m->node_parent[m->n_nodes] = parent;
  m->node_parent_attr[m->n_nodes] = attr;
  m->n_nodes++;
  return true;
}

static bool list_graph(nns__model_listing *l, nns__graph *g, uint32_t parent,
                       const char *attr) {
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns__node *n = &g->nodes[i];
    if (!list_push(l, n, parent, attr))
      return false;
    uint32_t me = n->list_index;
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *a = &n->attrs[k];
      if (a->type == NNS__AT_GRAPH && a->g &&
          !list_graph(l, a->g, me, a->name))
        return false;
      if (a->type == NNS__AT_GRAPHS && a->graphs)
        for (int32_t j = 0; j < a->n; j++)
          if (a->graphs[j] && !list_graph(l, a->graphs[j], me, a->name))
            return false;
    }
  }
  return true;
}

/* Empties the list and takes its room. */
static void list_begin(nns__model_listing *l) {
  nns_model *m = l->m;
  for (int32_t f = 0; f < m->n_functions; f++) {
    nns__graph *body = m->functions[f].body;
    for (int32_t i = 0; body && i < body->n_nodes; i++)
      body->nodes[i].list_index = UINT32_MAX;
  }
  l->cap = 0;
  m->n_nodes = 0;
  m->nodes = NULL;
  m->node_parent = NULL;
  m->node_parent_attr = NULL;
  if (m->graph) {
    size_t count = (size_t)m->graph->n_nodes + m->subgraph_nodes;
    size_t each = sizeof *m->nodes + sizeof *m->node_parent +
                  sizeof *m->node_parent_attr;
    if (count && count < UINT32_MAX) {
      /* One run of the arena for all three (a hint; failure is no
       * error: the arrays below say). */
      nns__arena_reserve(&m->arena, count * each + 64);
      m->nodes = nns__arena_array(&m->arena, count, sizeof *m->nodes);
      m->node_parent =
          nns__arena_array(&m->arena, count, sizeof *m->node_parent);
      m->node_parent_attr =
          nns__arena_array(&m->arena, count, sizeof *m->node_parent_attr);
      if (m->nodes && m->node_parent && m->node_parent_attr)
        l->cap = count;
    }
  }
}

static void list_fill(void *p) {
  nns__model_listing *l = p;
  l->ok = !l->m->graph || list_graph(l, l->m->graph, UINT32_MAX, "");
}

void nns__model_listing_start(nns__model_listing *l, nns_model *m,
                              bool thread) {
  *l = (nns__model_listing){.m = m};
  list_begin(l);
  l->threaded = thread;
  nns__job_start(&l->job, list_fill, l, thread);
}

nns_status nns__model_listing_finish(nns__model_listing *l, nns_error *err) {
  nns__job_finish(&l->job);
  if (!l->ok && l->threaded) {
    /* Its room fell short: listed again here, where it may grow. */
    nns__model_listing_start(l, l->m, false);
    nns__job_finish(&l->job);
  }
  if (!l->ok)
    return nns__err(err, NNS_E_NOMEM, -1, NULL,
                    "out of memory while listing the nodes");
  return NNS_OK;
}

nns_status nns__model_index_nodes(nns_model *m, nns_error *err) {
  nns__model_listing l;
  nns__model_listing_start(&l, m, false);
  return nns__model_listing_finish(&l, err);
}
