/*
 * infer.c - shape inference: walks each graph in topological order and
 * applies each node's shape rule, then its fold rule (which turns small
 * constant subgraphs - the shape arithmetic of PyTorch exports - into known
 * values). Subgraphs of If/Loop/Scan are inferred through the hook the
 * control-flow rules call; calls of model-local functions infer the body.
 *
 * The model's declared shapes (value_info, graph outputs) are never used as
 * inputs to a rule. They are read only to warn where they contradict an
 * inferred shape and, when asked (NNS_INFER_FALLBACK_DECLARED), for the
 * outputs of unknown ops and for the dims a rule cannot know from shapes
 * (fill_unknowable).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"

/* ==== Topological order ==== */

/* Adds to *deps every value of graph g that subgraph s (recursively) reads:
 * an If/Loop body's free variables are inputs of its owner node. */
static void subgraph_free_vars(const nns__graph *s, const nns__graph *g,
                               void (*add)(void *, nns__value *), void *ctx) {
  for (int32_t i = 0; i < s->n_nodes; i++) {
    const nns__node *n = &s->nodes[i];
    for (int32_t k = 0; k < n->n_in; k++)
      if (n->in[k] && n->in[k]->graph == g)
        add(ctx, n->in[k]);
    for (int32_t a = 0; a < n->n_attrs; a++) {
      const nns__attr *at = &n->attrs[a];
      if (at->g)
        subgraph_free_vars(at->g, g, add, ctx);
      for (int32_t k = 0; at->graphs && k < at->n; k++)
        subgraph_free_vars(at->graphs[k], g, add, ctx);
    }
  }
}

typedef struct sort_state {
  const nns__graph *g;
  uint32_t *indeg;      /* per node: producers not yet emitted */
  uint32_t *edge_start; /* CSR: consumers of node p */
  uint32_t *edges;
  uint32_t *fill;
  /* The producer of each edge, consumer by consumer: node i's indeg[i]
   * edges one after another. Finding a producer chases the consumer's
   * input values to their producing nodes, cache misses all over a large
   * graph (most of its sort's time), so it is done once, here, and the
   * consumer lists are filled from this array. */
  uint32_t *producer;
  size_t n_producer, cap_producer;
  /* Where the arrays above come from: a large graph's from an arena of
   * the sort's own (see nns__graph_sort), NULL for calloc, listed in
   * `owned` (the producers apart: they grow) and freed by sort_free. */
  nns__arena *arena;
  uint32_t *owned[4];
  int n_owned;
  bool nomem;
  uint32_t current;     /* consumer node index being scanned */
} sort_state;

/* A zeroed array of `count` uint32s for the sort, NULL when out of
 * memory. */
static uint32_t *sort_array(sort_state *st, size_t count) {
  if (st->arena)
    return nns__arena_array(st->arena, count, sizeof(uint32_t));
  uint32_t *p = calloc(count, sizeof *p);
  if (p)
    st->owned[st->n_owned++] = p;
  return p;
}

/* Room for one more producer. */
static bool sort_producer_room(sort_state *st) {
  if (st->n_producer < st->cap_producer)
    return true;
  size_t need = st->n_producer + 1;
  uint32_t *grown =
      st->arena ? nns__arena_grow(st->arena, st->producer, &st->cap_producer,
                                  st->n_producer, need, sizeof *grown, 64)
                : nns__grow(st->producer, &st->cap_producer, need,
                            sizeof *grown, 64);
  if (!grown)
    return false;
  st->producer = grown;
  return true;
}

static void sort_free(sort_state *st) {
  if (st->arena) {
    nns__arena_free(st->arena);
    return;
  }
  for (int i = 0; i < st->n_owned; i++)
    free(st->owned[i]);
  free(st->producer);
}

static void sort_edge(void *ctx, nns__value *v) {
  sort_state *st = ctx;
  const nns__node *p = v->producer;
  if (!p || p->graph != st->g)
    return;
  if (!sort_producer_room(st)) {
    st->nomem = true;
    return;
  }
  st->producer[st->n_producer++] = (uint32_t)p->index;
  st->edge_start[p->index + 1]++;
  st->indeg[st->current]++;
}

static void node_deps(sort_state *st, const nns__node *n) {
  for (int32_t k = 0; k < n->n_in; k++)
    if (n->in[k])
      sort_edge(st, n->in[k]);
  for (int32_t a = 0; a < n->n_attrs; a++) {
    const nns__attr *at = &n->attrs[a];
    if (at->g)
      subgraph_free_vars(at->g, st->g, sort_edge, st);
    for (int32_t k = 0; at->graphs && k < at->n; k++)
      subgraph_free_vars(at->graphs[k], st->g, sort_edge, st);
  }
}

nns_status nns__graph_sort(nns_model *m, nns__graph *g, nns_error *err) {
  uint32_t n = (uint32_t)g->n_nodes;
  g->order = nns__arena_array(&m->infer_arena, (size_t)n + 1, sizeof *g->order);
  sort_state st = {.g = g};
  nns_status status = NNS_OK;
  /* Room for every input's edge; subgraphs' free variables grow it. */
  size_t inputs = 0;
  for (uint32_t i = 0; i < n; i++)
    inputs += (size_t)g->nodes[i].n_in;
  /* The arrays take about 3 words a node and 2 an input (the producers
   * and as many edges): 2.4 MB for 100k nodes. calloc'ed, that much was
   * faulted in 4 KB at a time; from an arena reserved for it, it is huge
   * pages, and mapped pages come zeroed. A small graph's (below the
   * 512 KB from which nns__arena_reserve takes huge pages) are calloc'ed:
   * a fresh arena chunk would be new pages, where calloc reuses freed
   * ones. */
  nns__arena tmp;
  nns__arena_init(&tmp);
  size_t hint = inputs < SIZE_MAX / 16 - n
                    ? ((size_t)n * 3 + 2 * inputs + 8) * sizeof(uint32_t)
                    : SIZE_MAX;
  if (hint >= 512 * 1024 && nns__arena_reserve(&tmp, hint))
    st.arena = &tmp;
  st.indeg = sort_array(&st, (size_t)n + 1);
  st.edge_start = sort_array(&st, (size_t)n + 2);
  st.fill = sort_array(&st, (size_t)n + 1);
  st.producer = st.arena ? nns__arena_array(&tmp, inputs + 1,
                                            sizeof *st.producer)
                         : nns__grow(NULL, &st.cap_producer, inputs + 1,
                                     sizeof *st.producer, 64);
  if (st.arena && st.producer)
    st.cap_producer = inputs + 1;
  if (!g->order || !st.indeg || !st.edge_start || !st.fill || !st.producer) {
    status = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    goto done;
  }
  for (uint32_t i = 0; i < n && !st.nomem; i++) {
    st.current = i;
    node_deps(&st, &g->nodes[i]);
  }
  for (uint32_t i = 0; i < n; i++)
    st.edge_start[i + 1] += st.edge_start[i];
  st.edges = sort_array(&st, (size_t)st.edge_start[n] + 1);
  if (st.nomem || !st.edges) {
    status = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    goto done;
  }
  memcpy(st.fill, st.edge_start, (size_t)n * sizeof *st.fill);
  /* Each consumer's list grows in node order, as the edges were found. */
  const uint32_t *prod = st.producer;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < st.indeg[i]; k++)
      st.edges[st.fill[*prod++]++] = i;
  /* Kahn's algorithm. Ready nodes are taken in file order, so a graph
   * already in order keeps it. The queue holds node indices (a node's
   * index is its position in g->nodes), in `fill`, done with: reading
   * each popped node's index from the node itself was a cache miss per
   * node, a fifth of the sort. */
  uint32_t *queue = st.fill, head = 0, tail = 0;
  for (uint32_t i = 0; i < n; i++)
    if (st.indeg[i] == 0)
      queue[tail++] = i;
  while (head < tail) {
    uint32_t p = queue[head++];
    for (uint32_t e = st.edge_start[p]; e < st.edge_start[p + 1]; e++)
      if (--st.indeg[st.edges[e]] == 0)
        queue[tail++] = st.edges[e];
  }
  for (uint32_t i = 0; i < tail; i++)
    g->order[i] = &g->nodes[queue[i]];
  if (tail < n) {
    const nns__node *c = NULL;
    for (uint32_t i = 0; i < n && !c; i++)
      if (st.indeg[i])
        c = &g->nodes[i];
    status = nns__err(err, NNS_E_CYCLE, c->offset,
                      c->name[0] ? c->name : c->op_type,
                      "graph '%s' has a cycle: node '%s' (%s) depends on its "
                      "own output through %u node(s) that never become ready",
                      g->name, c->name[0] ? c->name : "(unnamed)", c->op_type,
                      n - tail);
  }
done:
  sort_free(&st);
  return status;
}

/* ==== Per-node inference ==== */

typedef struct op_cache_entry {
  const char *domain;
  const nns__op *op;
  bool newer;
  struct op_cache_entry *next; /* same op_type, other domain */
} op_cache_entry;

static const nns__op *resolve_op(nns_model *m, nns__node *n, bool *newer) {
  op_cache_entry *e = nns__map_get(&m->op_cache, n->op_type);
  for (; e; e = e->next)
    if (e->domain == n->domain) {
      *newer = e->newer;
      return e->op;
    }
  int64_t version = nns__model_opset(m, n->domain);
  e = nns__arena_alloc(&m->arena, sizeof *e);
  if (!e)
    return NULL;
  e->domain = n->domain;
  e->op = nns__custom_find(m, n->domain, n->op_type);
  if (!e->op)
    e->op = nns__op_find(n->domain, n->op_type, version, &e->newer);
  e->next = nns__map_get(&m->op_cache, n->op_type);
  nns__map_put(&m->op_cache, n->op_type, e);
  if (e->newer)
    nns__warn(m, "opset %lld of domain '%s' is newer than nnscan's rules for "
              "%s (up to %d); using those",
              (long long)version, n->domain[0] ? n->domain : "ai.onnx",
              n->op_type, e->op->until);
  *newer = e->newer;
  return e->op;
}

/* Warns once per key (interned), e.g. one unknown attribute of an op type. */
static bool warn_once(nns_model *m, const char *key) {
  const char *k = nns__intern_cstr(&m->strings, key);
  if (!k || nns__map_get(&m->warned, k))
    return false;
  nns__map_put(&m->warned, k, (void *)1);
  return true;
}

static nns_status check_attrs(nns__ictx *cx) {
  const nns__node *n = cx->node;
  const nns__attr_spec *spec = cx->op->attrs;
  for (const nns__attr_spec *s = spec; s && s->name; s++) {
    if (s->required && !nns__attr_has(cx, s->name))
      return nns__fail(cx, NNS_E_ATTR, "required attribute '%s' is missing",
                       s->name);
  }
  for (int32_t i = 0; i < n->n_attrs; i++) {
    const nns__attr *a = &n->attrs[i];
    const nns__attr_spec *s = spec;
    /* The first byte first: most entries differ there. */
    while (s && s->name &&
           (s->name[0] != a->name[0] || strcmp(s->name, a->name) != 0))
      s++;
    char key[256];
    if (!s || !s->name) {
      snprintf(key, sizeof key, "attr:%s:%s", n->op_type, a->name);
      if (warn_once(cx->m, key))
        nns__node_warn(cx, "attribute '%s' is not part of %s (opset %lld); "
                       "ignored (warned once per op type)",
                       a->name, n->op_type, (long long)cx->opset);
    } else if (s->type != a->type && !a->ref_attr_name &&
               !(s->type == NNS__AT_INT && a->type == NNS__AT_FLOAT) &&
               !(s->type == NNS__AT_FLOAT && a->type == NNS__AT_INT)) {
      return nns__fail(cx, NNS_E_ATTR,
                       "attribute '%s' has type %d, expected type %d",
                       a->name, a->type, s->type);
    }
  }
  return NNS_OK;
}

static void record_unknown(nns_model *m, const nns__node *n) {
  for (size_t i = 0; i < m->n_unknown; i++)
    if (m->unknown[i].op_type == n->op_type &&
        m->unknown[i].domain == n->domain) {
      m->unknown[i].count++;
      return;
    }
  nns__unknown_op *u = nns__grow(m->unknown, &m->cap_unknown,
                                 m->n_unknown + 1, sizeof *u, 8);
  if (!u)
    return;
  m->unknown = u;
  m->unknown[m->n_unknown++] =
      (nns__unknown_op){.domain = n->domain, .op_type = n->op_type, .count = 1};
}

static void set_type(nns_model *m, nns__value *v, const nns__type *t) {
  v->type = *t;
  if (t->rank > 0) {
    v->type.dims = nns__arena_array(&m->infer_arena, (size_t)t->rank,
                                    sizeof *v->type.dims);
    if (!v->type.dims) {
      v->type.rank = -1;
      return;
    }
    memcpy(v->type.dims, t->dims, (size_t)t->rank * sizeof *t->dims);
  }
}

/* Warns where the model's declaration disagrees with what was inferred. */
static void check_declared(nns_model *m, const nns__value *v) {
  const nns__type *d = v->declared, *t = &v->type;
  if (!d || d->kind != NNS_KIND_TENSOR || t->kind != NNS_KIND_TENSOR)
    return;
  char ds[256], ts[256];
  if (d->dtype && t->dtype && d->dtype != t->dtype) {
    nns__warn(m, "value '%s': declared dtype %s, inferred %s", v->name,
              nns_dtype_name(d->dtype), nns_dtype_name(t->dtype));
    return;
  }
  if (d->rank < 0 || t->rank < 0)
    return;
  bool clash = d->rank != t->rank;
  for (int32_t k = 0; !clash && k < d->rank; k++)
    clash = !d->dims[k].sym && !t->dims[k].sym && d->dims[k].v != t->dims[k].v;
  if (!clash)
    return;
  size_t dl = 0, tl = 0;
  char buf[64];
  dl += (size_t)snprintf(ds, sizeof ds, "[");
  for (int32_t k = 0; k < d->rank && dl < sizeof ds - 64; k++)
    dl += (size_t)snprintf(ds + dl, sizeof ds - dl, "%s%s", k ? "," : "",
                           nns__dim_str(m, d->dims[k], buf, sizeof buf));
  snprintf(ds + dl, sizeof ds - dl, "]");
  tl += (size_t)snprintf(ts, sizeof ts, "[");
  for (int32_t k = 0; k < t->rank && tl < sizeof ts - 64; k++)
    tl += (size_t)snprintf(ts + tl, sizeof ts - tl, "%s%s", k ? "," : "",
                           nns__dim_str(m, t->dims[k], buf, sizeof buf));
  snprintf(ts + tl, sizeof ts - tl, "]");
  nns__warn(m, "value '%s': declared shape %s contradicts inferred shape %s",
            v->name, ds, ts);
}

static nns_status infer_subgraph(nns__ictx *cx, nns__graph *g,
                                 const nns__type *in_types, int n_in_types) {
  for (int i = 0; i < g->n_inputs && i < n_in_types; i++)
    if (in_types[i].kind || in_types[i].dtype || in_types[i].rank >= 0)
      set_type(cx->m, g->inputs[i], &in_types[i]);
  return nns__graph_infer(cx->m, g, cx->call, cx->err);
}

static nns_status skip_graph(nns_model *m, nns__graph *g, nns_error *err) {
  g->skipped = true;
  if (!g->order) {
    nns_status st = nns__graph_sort(m, g, err);
    if (st != NNS_OK)
      return st;
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns__node *n = g->order[i];
    bool newer = false;
    n->op = resolve_op(m, n, &newer);
    n->opset = (int32_t)nns__model_opset(m, n->domain);
    for (int32_t k = 0; k < n->n_out; k++)
      if (n->out[k]) {
        memset(&n->out[k]->type, 0, sizeof n->out[k]->type);
        n->out[k]->type.rank = -1;
        n->out[k]->cval = NULL;
        n->out[k]->cval_done = true; /* nothing to compute */
      }
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *at = &n->attrs[k];
      nns_status st = at->g ? skip_graph(m, at->g, err) : NNS_OK;
      for (int32_t j = 0; st == NNS_OK && at->graphs && j < at->n; j++)
        if (at->graphs[j])
          st = skip_graph(m, at->graphs[j], err);
      if (st != NNS_OK)
        return st;
    }
  }
  return NNS_OK;
}

static nns_status skip_subgraph(nns__ictx *cx, nns__graph *g) {
  return skip_graph(cx->m, g, cx->err);
}

static const nns__function *find_function(const nns_model *m,
                                          const nns__node *n) {
  for (int32_t i = 0; i < m->n_functions; i++)
    if (m->functions[i].name == n->op_type &&
        m->functions[i].domain == n->domain)
      return &m->functions[i];
  return NULL;
}

/* Infers a call of a model-local function by inferring its body with the
 * call's input types, then copying the body's output types out. */
static nns_status infer_call(nns_model *m, nns__node *n,
                             const nns__function *f, nns_error *err) {
  nns__graph *body = f->body;
  if (m->call_depth >= 32)
    return nns__err(err, NNS_E_DEPTH, n->offset, n->name,
                    "function '%s' calls nest deeper than 32 (recursion?)",
                    f->name);
  for (int32_t i = 0; i < body->n_inputs; i++) {
    nns__value *fv = body->inputs[i];
    fv->cval = NULL;
    fv->cval_done = false;
    if (i < n->n_in && n->in[i]) {
      set_type(m, fv, &n->in[i]->type);
      fv->cval = n->in[i]->cval;
      fv->cval_done = n->in[i]->cval_done;
    } else {
      memset(&fv->type, 0, sizeof fv->type);
      fv->type.rank = -1;
    }
  }
  m->call_depth++;
  nns_status st = nns__graph_infer(m, body, n, err);
  m->call_depth--;
  if (st != NNS_OK)
    return st;
  for (int32_t i = 0; i < n->n_out && i < body->n_outputs; i++)
    if (n->out[i] && body->outputs[i]) {
      set_type(m, n->out[i], &body->outputs[i]->type);
      n->out[i]->cval = body->outputs[i]->cval;
      n->out[i]->cval_done = true;
    }
  return NNS_OK;
}

/* True when every present input has known contents, or is an initializer
 * small enough to be decoded on demand. */
static bool inputs_constant(const nns__node *n) {
  for (int32_t i = 0; i < n->n_in; i++) {
    const nns__value *v = n->in[i];
    if (v && !v->cval && !(v->init && v->init->numel <= NNS__FOLD_MAX))
      return false;
  }
  return true;
}

/* True when dim d is a symbol made since `mark`. */
static bool sym_since(nns__dim d, uint32_t mark) { return d.sym >= mark; }

/*
 * Shape rules start every output dim as a fresh unknown and then set what
 * they know (nns__out_shape), so a node whose dims all come out known
 * leaves symbols nothing refers to: 400,000 of them (19 MB, grown by
 * doubling) in a 100,000-node graph. When nothing made since `mark` is
 * referenced by the node's outputs (types and folded contents) and no
 * symbol was memoised meanwhile, the symbols are dropped. The symbols kept
 * are numbered as before, relative to one another, so names and orders
 * stay the same. Not for a node with a subgraph, whose values may hold
 * them, nor for a user's op.
 */
static void drop_unused_syms(nns_model *m, const nns__node *n, uint32_t mark,
                             size_t memo) {
  if (m->n_syms == mark || m->sym_by_name.count != memo || n->op->ext)
    return;
  if (nns__node_holds_graph(n))
    return;
  for (int32_t i = 0; i < n->n_out; i++) {
    const nns__value *v = n->out[i];
    if (!v)
      continue;
    for (int32_t d = 0; d < v->type.rank && v->type.dims; d++)
      if (sym_since(v->type.dims[d], mark))
        return;
    if (v->cval && v->cval->i)
      for (int64_t j = 0; j < v->cval->numel; j++)
        if (sym_since(v->cval->i[j], mark))
          return;
  }
  m->n_syms = mark;
}

/*
 * With NNS_INFER_FALLBACK_DECLARED, a dim that node n's rule left as a
 * fresh anonymous unknown (an atom made by this node: NonZero's count,
 * Unique's, a data-dependent length) takes the value the model declares
 * for it. Only such dims: a known dim, a named symbol or an expression over
 * symbols stays the rule's. A binding declares what its own run produced,
 * an exporter what it saw; either knows the count the shapes cannot tell.
 */
static void fill_unknowable(nns_model *m, const nns__node *n, uint32_t mark) {
  if (!(m->infer_flags & NNS_INFER_FALLBACK_DECLARED) || m->n_syms == mark)
    return;
  for (int32_t i = 0; i < n->n_out; i++) {
    nns__value *v = n->out[i];
    const nns__type *d = v ? v->declared : NULL;
    if (!d || d->kind != NNS_KIND_TENSOR || v->type.kind != NNS_KIND_TENSOR ||
        d->rank != v->type.rank || !v->type.dims)
      continue;
    for (int32_t k = 0; k < d->rank; k++) {
      nns__dim *x = &v->type.dims[k];
      const nns__symbol *s = sym_since(*x, mark) ? nns__sym_get(m, x->sym)
                                                 : NULL;
      if (s && !s->name && !s->n_factors && !d->dims[k].sym &&
          d->dims[k].v >= 0)
        *x = (nns__dim){.v = d->dims[k].v, .sym = 0};
    }
  }
}

static nns_status infer_node(nns_model *m, nns__node *n, const nns__node *call,
                             nns_error *err) {
  for (int32_t i = 0; i < n->n_out; i++)
    if (n->out[i]) {
      memset(&n->out[i]->type, 0, sizeof n->out[i]->type);
      n->out[i]->type.rank = -1;
      n->out[i]->cval = NULL;
      n->out[i]->cval_done = false;
    }
  bool newer = false;
  const nns__op *op = resolve_op(m, n, &newer);
  n->op = op;
  n->opset = (int32_t)nns__model_opset(m, n->domain);
  if (!op || !op->shape) {
    const nns__function *f = find_function(m, n);
    if (f)
      return infer_call(m, n, f, err);
    record_unknown(m, n);
    for (int32_t i = 0; i < n->n_out; i++) {
      nns__value *v = n->out[i];
      if (v && v->declared && (m->infer_flags & NNS_INFER_FALLBACK_DECLARED))
        set_type(m, v, v->declared);
    }
    return NNS_OK;
  }
  nns__ictx cx = {.m = m,
                  .node = n,
                  .op = op,
                  .opset = n->opset,
                  .err = err,
                  .call = call,
                  .infer_subgraph = infer_subgraph,
                  .skip_subgraph = skip_subgraph};
  /* A registered custom op (op->ext) declares no attributes: it takes
   * whatever the node has, without a warning per attribute. */
  uint32_t sym_mark = m->n_syms;
  size_t memo_mark = m->sym_by_name.count;
  nns_status st = op->ext ? NNS_OK : check_attrs(&cx);
  if (st == NNS_OK)
    st = op->shape(&cx);
  if (st != NNS_OK)
    return st;
  fill_unknowable(m, n, sym_mark);
  if (op->fold && (op->fold_on_types || inputs_constant(n))) {
    st = op->fold(&cx);
    if (st == NNS_E_NOMEM)
      return nns__err(err, st, n->offset, n->name, "out of memory");
    if (st != NNS_OK)
      for (int32_t i = 0; i < n->n_out; i++)
        if (n->out[i])
          n->out[i]->cval = NULL;
  }
  for (int32_t i = 0; i < n->n_out; i++)
    if (n->out[i])
      check_declared(m, n->out[i]);
  drop_unused_syms(m, n, sym_mark, memo_mark);
  return NNS_OK;
}

nns_status nns__graph_infer(nns_model *m, nns__graph *g, const nns__node *call,
                            nns_error *err) {
  g->skipped = false;
  if (!g->order) {
    nns_status st = nns__graph_sort(m, g, err);
    if (st != NNS_OK)
      return st;
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns_status st = infer_node(m, g->order[i], call, err);
    if (st != NNS_OK)
      return st;
  }
  return NNS_OK;
}

/* ==== Entry point ==== */

/* Gives every value its starting type: initializers their tensor's, graph
 * inputs their declaration, everything else unknown. */
static nns_status reset_values(nns_model *m, nns_error *err) {
  for (size_t i = 0; i < m->n_values; i++) {
    nns__value *v = m->values[i];
    v->cval = NULL;
    v->cval_done = false;
    memset(&v->type, 0, sizeof v->type);
    v->type.rank = -1;
    if (v->init) {
      const nns__tensor *t = v->init;
      v->type.dtype = t->dtype;
      v->type.kind = NNS_KIND_TENSOR;
      v->type.rank = t->rank;
      v->type.dims = nns__arena_array(&m->infer_arena, (size_t)t->rank + 1,
                                      sizeof *v->type.dims);
      if (!v->type.dims)
        return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
      for (int32_t k = 0; k < t->rank; k++)
        v->type.dims[k] = nns__dim_known(t->dims[k]);
    } else if (v->is_graph_input && v->declared) {
      set_type(m, v, v->declared);
    }
  }
  return NNS_OK;
}

/* The main graph's input called `name` (initializers excluded), or NULL. */
static nns__value *find_input(nns_model *m, const char *name) {
  nns__graph *g = m->graph;
  for (int32_t i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] && !g->inputs[i]->init &&
        strcmp(g->inputs[i]->name, name) == 0)
      return g->inputs[i];
  return NULL;
}

/* --input SYMBOL=N: the symbolic dim called `name` (a dim_param, or the
 * name given to an unnamed dim) becomes N in every graph input. Returns
 * false when no graph input has such a dim. */
static nns_status fix_symbol(nns_model *m, const nns_input_shape *in,
                             bool *found, nns_error *err) {
  *found = false;
  const char *name = nns__intern_cstr(&m->strings, in->name);
  if (!name)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  uint32_t id = (uint32_t)(uintptr_t)nns__map_get(&m->sym_by_name, name);
  nns__graph *g = m->graph;
  for (int32_t i = 0; id && i < g->n_inputs; i++) {
    nns__value *v = g->inputs[i];
    if (!v || v->init)
      continue;
    for (int32_t d = 0; d < v->type.rank; d++) {
      if (v->type.dims[d].sym != id)
        continue;
      if (in->rank != 1)
        return nns__err(err, NNS_E_ARG, -1, NULL,
                        "--input %s: '%s' is a dim of input '%s'; give it "
                        "one number, not %zu", in->name, in->name, v->name,
                        in->rank);
      if (in->dims[0] < 0)
        return nns__err(err, NNS_E_ARG, -1, NULL,
                        "--input %s: the dim is negative", in->name);
      v->type.dims[d] = nns__dim_known(in->dims[0]);
      *found = true;
    }
  }
  return NNS_OK;
}

/* The graph input that has the symbolic dim called `name` (at *axis),
 * before any option fixed it; NULL if none has. */
static nns__value *input_of_symbol(nns_model *m, const char *name,
                                   int32_t *axis) {
  const char *key = nns__intern_cstr(&m->strings, name);
  uint32_t id =
      key ? (uint32_t)(uintptr_t)nns__map_get(&m->sym_by_name, key) : 0;
  nns__graph *g = m->graph;
  for (int32_t i = 0; id && i < g->n_inputs; i++) {
    nns__value *v = g->inputs[i];
    for (int32_t d = 0; v && !v->init && d < v->type.rank; d++)
      if (v->type.dims[d].sym == id) {
        *axis = d;
        return v;
      }
  }
  return NULL;
}

/* Options that contradict each other fail before any is applied, naming
 * both: a name given twice, a dim's symbol beside the whole shape of the
 * input that has it, the first dim's symbol beside `batch`. Applied one
 * after the other, the later one would find nothing left to fix (or undo
 * the earlier one without a word). */
static nns_status check_inputs(nns_model *m, const nns_infer_options *o,
                               nns_error *err) {
  if (o->input_count && !o->inputs)
    return NNS_OK; /* apply_inputs says what is wrong */
  size_t stride = o->input_count ? o->inputs[0].size : 0;
  for (size_t k = 0; k < o->input_count; k++) {
    nns_input_shape a, b;
    if (NNS__GET(&a, (const char *)o->inputs + k * stride,
                 NNS__V1_INPUT_SHAPE) != NNS_OK || !a.name)
      return NNS_OK;
    for (size_t j = 0; j < k; j++)
      if (NNS__GET(&b, (const char *)o->inputs + j * stride,
                   NNS__V1_INPUT_SHAPE) == NNS_OK &&
          b.name && !strcmp(a.name, b.name))
        return nns__err(err, NNS_E_ARG, -1, NULL,
                        "--input %s is given twice (options %zu and %zu)",
                        a.name, j + 1, k + 1);
    if (find_input(m, a.name))
      continue;
    int32_t axis = 0;
    nns__value *v = input_of_symbol(m, a.name, &axis);
    if (!v)
      continue;
    if (axis == 0 && o->batch > 0)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "--input %s: '%s' is the first dim of input '%s', "
                      "which --batch %lld already sets: give one of them",
                      a.name, a.name, v->name, (long long)o->batch);
    for (size_t j = 0; j < o->input_count; j++)
      if (NNS__GET(&b, (const char *)o->inputs + j * stride,
                   NNS__V1_INPUT_SHAPE) == NNS_OK &&
          b.name && !strcmp(b.name, v->name))
        return nns__err(err, NNS_E_ARG, -1, NULL,
                        "--input %s: '%s' is dim %d of input '%s', whose "
                        "whole shape --input %s=... also gives: give one "
                        "of them", a.name, a.name, (int)axis, v->name,
                        v->name);
  }
  return NNS_OK;
}

static nns_status apply_inputs(nns_model *m, const nns_infer_options *o,
                               nns_error *err) {
  if (o->input_count && !o->inputs)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_infer_options.inputs is NULL");
  size_t stride = o->input_count ? o->inputs[0].size : 0;
  for (size_t k = 0; k < o->input_count; k++) {
    nns_input_shape given;
    const void *at = (const char *)o->inputs + k * stride;
    if (NNS__GET(&given, at, NNS__V1_INPUT_SHAPE) != NNS_OK)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_input_shape %zu: size %zu is below the first "
                      "version's %zu", k, stride,
                      (size_t)NNS__V1_INPUT_SHAPE);
    const nns_input_shape *in = &given;
    if (!in->name || (in->rank && !in->dims))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "input shape %zu has no name or no dims", k);
    nns__value *v = find_input(m, in->name);
    if (!v) {
      bool found;
      nns_status st = fix_symbol(m, in, &found, err);
      if (st != NNS_OK)
        return st;
      if (found)
        continue;
      return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                      "--input: the model has no graph input and no input "
                      "dim called '%s'", in->name);
    }
    if (in->rank > 64)
      return nns__err(err, NNS_E_LIMIT, -1, NULL,
                      "--input %s: rank %zu is too large", in->name, in->rank);
    if (v->type.rank >= 0 && (size_t)v->type.rank != in->rank)
      nns__warn(m, "input '%s': declared rank %d, given rank %zu; using the "
                "given shape", v->name, v->type.rank, in->rank);
    nns__type t = {.dtype = v->type.dtype, .kind = NNS_KIND_TENSOR,
                   .rank = (int32_t)in->rank};
    t.dims = nns__arena_array(&m->infer_arena, in->rank + 1, sizeof *t.dims);
    if (!t.dims)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    for (size_t d = 0; d < in->rank; d++) {
      if (in->dims[d] < 0)
        return nns__err(err, NNS_E_ARG, -1, NULL,
                        "--input %s: dim %zu is negative", in->name, d);
      t.dims[d] = nns__dim_known(in->dims[d]);
    }
    v->type = t;
  }
  return NNS_OK;
}

/* Forgets what a previous run left in g and its subgraphs: running
 * orders, and with `values` (function bodies, whose values are not in the
 * model's list) the types and constants of its values. */
static void forget_graph(nns__graph *g, bool values) {
  if (!g)
    return;
  g->order = NULL;
  for (int32_t i = 0; values && i < g->n_inputs + g->n_inits; i++) {
    nns__value *v = i < g->n_inputs ? g->inputs[i] : g->inits[i - g->n_inputs];
    if (v) {
      v->cval = NULL;
      v->cval_done = false;
      memset(&v->type, 0, sizeof v->type);
      v->type.rank = -1;
    }
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns__node *n = &g->nodes[i];
    for (int32_t k = 0; values && k < n->n_out; k++)
      if (n->out[k]) {
        n->out[k]->cval = NULL;
        n->out[k]->cval_done = false;
        memset(&n->out[k]->type, 0, sizeof n->out[k]->type);
        n->out[k]->type.rank = -1;
      }
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *a = &n->attrs[k];
      forget_graph(a->g, values);
      for (int32_t j = 0; a->graphs && j < a->n; j++)
        forget_graph(a->graphs[j], values);
    }
  }
}

/*
 * Frees everything the previous inference held: its arena, the symbols it
 * made (the model's own, from its declared dims, stay with their names),
 * and every pointer into them. Analyses are objects of their own and keep
 * what they read of it (src/analyze).
 */
static void forget_results(nns_model *m, bool first) {
  m->analyzed = false;
  nns__arena_free(&m->infer_arena);
  /* Before the first run no graph has a running order (only
   * nns__graph_sort sets one): the walk over every node's attributes, a
   * cache miss per node of a large graph, would find nothing. */
  if (!first)
    forget_graph(m->graph, false);
  for (int32_t f = 0; f < m->n_functions; f++)
    forget_graph(m->functions[f].body, true);
  if (m->n_syms > m->n_syms_load) {
    m->n_syms = m->n_syms_load;
    nns__map_free(&m->sym_by_name);
    for (uint32_t id = 1; id < m->n_syms; id++)
      if (m->syms[id].name && m->syms[id].n_factors == 0 &&
          m->syms[id].coef == 1)
        nns__map_put(&m->sym_by_name, m->syms[id].name,
                     (void *)(uintptr_t)id);
  }
}

/* The most elements a --value may give: it is for scalars and the small
 * tensors shape arithmetic reads, not for data. */
enum { MAX_VALUE_COUNT = 1 << 16 };

/* Gives graph input v the contents data[0..count), keeping its shape when
 * count fits it (a single unknown dim takes the rest). */
static nns_status set_value(nns_model *m, nns__value *v, const int64_t *data,
                            size_t count, nns_error *err) {
  nns__type t = v->type;
  int64_t known = 1;
  int32_t unknown = -1, n_unknown = 0;
  for (int32_t d = 0; d < t.rank; d++) {
    if (t.dims[d].sym) {
      unknown = d;
      n_unknown++;
    } else if (!nns__mul_i64(known, t.dims[d].v, &known)) {
      known = -1;
      break;
    }
  }
  nns__dim *dims = nns__arena_array(&m->infer_arena, (size_t)(t.rank > 0 ? t.rank
                                                                    : 1) + 1,
                                    sizeof *dims);
  if (!dims)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (t.rank < 0) { /* no declared shape: a scalar or a vector */
    t.rank = count == 1 ? 0 : 1;
    dims[0] = nns__dim_known((int64_t)count);
  } else {
    if (t.rank > 0)
      memcpy(dims, t.dims, (size_t)t.rank * sizeof *dims);
    bool fits = n_unknown == 0 ? known == (int64_t)count
                : n_unknown == 1 && known > 0 && (int64_t)count % known == 0;
    if (!fits)
      return nns__err(err, NNS_E_SHAPE, -1, NULL,
                      "--value %s: %zu value(s) do not fit the input's shape "
                      "(rank %d, %s)", v->name, count, t.rank,
                      n_unknown > 1 ? "more than one unknown dim"
                                    : "a different element count");
    if (n_unknown == 1)
      dims[unknown] = nns__dim_known((int64_t)count / known);
  }
  t.dims = dims;
  if (!t.dtype)
    t.dtype = NNS_DT_INT64;
  t.kind = NNS_KIND_TENSOR;
  if (t.dtype == NNS_DT_STRING)
    return nns__err(err, NNS_E_TYPE, -1, NULL,
                    "--value %s: the input holds strings", v->name);
  nns__const *c = nns__arena_alloc(&m->infer_arena, sizeof *c);
  if (!c)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  c->numel = (int64_t)count;
  if (nns__dtype_is_float(t.dtype)) {
    c->f = nns__arena_array(&m->infer_arena, count + 1, sizeof *c->f);
    for (size_t i = 0; c->f && i < count; i++)
      c->f[i] = (double)data[i];
  } else {
    c->i = nns__arena_array(&m->infer_arena, count + 1, sizeof *c->i);
    for (size_t i = 0; c->i && i < count; i++)
      c->i[i] = nns__dim_known(t.dtype == NNS_DT_BOOL ? data[i] != 0
                                                      : data[i]);
  }
  if (!c->f && !c->i)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  v->type = t;
  v->cval = c;
  v->cval_done = true;
  return NNS_OK;
}

static nns_status apply_values(nns_model *m, const nns_infer_options *o,
                               nns_error *err) {
  if (o->value_count && !o->values)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "value_count is %zu but values is NULL", o->value_count);
  size_t stride = o->value_count ? o->values[0].size : 0;
  for (size_t k = 0; k < o->value_count; k++) {
    nns_input_value given;
    const void *at = (const char *)o->values + k * stride;
    if (NNS__GET(&given, at, NNS__V1_INPUT_VALUE) != NNS_OK)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_input_value %zu: size %zu is below the first "
                      "version's %zu", k, stride,
                      (size_t)NNS__V1_INPUT_VALUE);
    const nns_input_value *iv = &given;
    /* An empty tensor (Reduce's axes of shape [0]) is a value too. */
    if (!iv->name || (!iv->data && iv->count))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "input value %zu has no name or no data", k);
    if (iv->count > MAX_VALUE_COUNT)
      return nns__err(err, NNS_E_LIMIT, -1, NULL,
                      "--value %s: %zu values; at most %d", iv->name,
                      iv->count, MAX_VALUE_COUNT);
    nns__value *v = find_input(m, iv->name);
    if (!v)
      return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                      "--value: the model has no graph input '%s'",
                      iv->name);
    nns_status st = set_value(m, v, iv->data, iv->count, err);
    if (st != NNS_OK)
      return st;
  }
  return NNS_OK;
}

nns_status nns_model_infer(nns_model *m, const nns_infer_options *opts,
                           nns_error *err) {
  if (!m)
    return nns__err(err, NNS_E_ARG, -1, NULL, "model is NULL");
  nns_infer_options given = {0};
  if (opts && NNS__GET(&given, opts, NNS__V1_INFER_OPTIONS) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_infer_options.size is %zu, below the first "
                    "version's %zu", opts->size,
                    (size_t)NNS__V1_INFER_OPTIONS);
  const nns_infer_options *o = &given;
  if (o->batch < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL, "batch %lld is negative",
                    (long long)o->batch);
  /* Each run starts afresh: drop the previous run's diagnostics. */
  bool first = m->infer_runs++ == 0;
  if (first) {
    m->load_warnings = m->n_warnings;
    m->n_syms_load = m->n_syms;
  }
  forget_results(m, first);
  /* The run's arena takes about 24 bytes a value (dims, constants) and 8
   * a node (running orders): 3.7 MB for graph100k, measured. Grown by
   * doubling, its first 1.75 MB of chunks were faulted 4 KB at a time;
   * reserved, a large graph's comes as huge pages (a hint: a small one's
   * is left to the usual chunks, and failure is no error). */
  if (m->n_values < SIZE_MAX / 64 && m->n_nodes < SIZE_MAX / 64)
    nns__arena_reserve(&m->infer_arena, m->n_values * 24 + m->n_nodes * 8);
  for (size_t i = m->load_warnings; i < m->n_warnings; i++)
    free(m->warnings[i]);
  m->n_warnings = m->load_warnings;
  m->n_unknown = 0;
  nns__map_free(&m->warned);
  m->infer_flags = o->flags | m->load_infer_flags;
  m->fold_bytes = 0;
  m->inferred = false;
  nns_status st = reset_values(m, err);
  if (st == NNS_OK)
    st = check_inputs(m, o, err);
  if (st != NNS_OK)
    return st;
  if (o->batch > 0) {
    for (int32_t i = 0; i < m->graph->n_inputs; i++) {
      nns__value *v = m->graph->inputs[i];
      if (v && !v->init && v->type.rank >= 1)
        v->type.dims[0] = nns__dim_known(o->batch);
    }
  }
  st = apply_inputs(m, o, err);
  if (st == NNS_OK)
    st = apply_values(m, o, err);
  if (st != NNS_OK)
    return st;
  st = nns__graph_infer(m, m->graph, NULL, err);
  if (st == NNS_OK)
    m->inferred = true;
  return st;
}
