/*
 * assemble.c - putting a graph together (assemble.h): making graphs and
 * the values they define, then resolution, names to values.
 *
 * Resolution first registers every graph's definitions (inputs,
 * initializers, node outputs) in its scope, in graph order, which is also
 * the order of the model's value list; a subgraph's values follow the node
 * that owns it. Only when all scopes are complete are node inputs and
 * graph outputs linked, looking in their own graph first and then in the
 * enclosing ones, so a subgraph may use an outer name defined after its
 * owner node.
 */
#include <stdio.h>
#include <string.h>

#include "assemble.h"

/* ==== Graphs, values, types ==== */

nns_status nns__asm_begin(nns__asm *A, nns_model *m, nns_error *err,
                          const char *doing) {
  memset(A, 0, sizeof *A);
  A->m = m;
  A->err = err;
  A->doing = doing;
  A->empty = nns__intern(&m->strings, "", 0);
  return A->empty ? NNS_OK : nns__asm_nomem(A);
}

nns_status nns__asm_nomem(const nns__asm *A) {
  return nns__err(A->err, NNS_E_NOMEM, -1, NULL,
                  "out of memory while %s the model", A->doing);
}

nns__graph *nns__asm_graph(nns__asm *A, nns__node *owner, int64_t offset) {
  nns__graph *g = nns__graph_new(A->m, owner ? owner->graph : NULL);
  if (!g)
    return NULL;
  g->owner = owner;
  g->offset = offset;
  return g;
}

void nns__asm_subgraph_done(nns__asm *A, const nns__graph *g) {
  if (!A->in_function)
    A->m->subgraph_nodes += (size_t)g->n_nodes;
}

/* A fresh value in zeroed room v. */
static void value_init(nns__value *v, nns__graph *g, const char *name) {
  v->name = name;
  v->graph = g;
  v->type.rank = -1;
}

nns__value *nns__asm_value(nns__asm *A, nns__graph *g, const char *name) {
  nns__value *v = nns__arena_alloc(&A->m->arena, sizeof *v);
  if (v)
    value_init(v, g, name);
  return v;
}

nns_status nns__asm_copy_type(nns__asm *A, const nns__type *src,
                              nns__type *dst) {
  *dst = *src;
  if (src->rank > 0 && src->dims) {
    dst->dims = nns__arena_array(&A->m->arena, (size_t)src->rank,
                                 sizeof *dst->dims);
    if (!dst->dims)
      return nns__asm_nomem(A);
    nns__dims_copy(dst->dims, src->dims, src->rank);
  }
  return NNS_OK;
}

nns_status nns__asm_tensor_type(nns__asm *A, const nns__tensor *t,
                                nns__type *type) {
  type->kind = t->storage == NNS__ST_SPARSE ? NNS_KIND_SPARSE
                                             : NNS_KIND_TENSOR;
  type->dtype = t->dtype;
  type->rank = t->rank;
  type->dims = NULL;
  if (t->rank) {
    type->dims = nns__arena_array(&A->m->arena, (size_t)t->rank,
                                  sizeof *type->dims);
    if (!type->dims)
      return nns__asm_nomem(A);
    for (int32_t i = 0; i < t->rank; i++)
      type->dims[i] = nns__dim_known(t->dims[i]);
  }
  return NNS_OK;
}

nns_status nns__asm_input(nns__asm *A, nns__graph *g, const char *name,
                          nns__type *declared, nns__value **out) {
  nns__value *v = *out = nns__asm_value(A, g, name);
  if (!v)
    return nns__asm_nomem(A);
  v->role = NNS_ROLE_INPUT;
  v->is_graph_input = true;
  v->declared = declared;
  return declared ? nns__asm_copy_type(A, declared, &v->type) : NNS_OK;
}

nns_status nns__asm_initializer(nns__asm *A, nns__graph *g, nns__tensor *t,
                                nns__value **out) {
  nns__value *v = *out = nns__asm_value(A, g, t->name);
  if (!v)
    return nns__asm_nomem(A);
  v->init = t;
  v->role = NNS_ROLE_INITIALIZER;
  return nns__asm_tensor_type(A, t, &v->type);
}

nns_status nns__asm_output(nns__asm *A, nns__graph *g, const char *name,
                           nns__type *declared, nns__value **out) {
  nns__value *v = *out = nns__asm_value(A, g, name);
  if (!v)
    return nns__asm_nomem(A);
  v->declared = declared;
  return NNS_OK;
}

void nns__asm_node_output_at(nns__asm *A, nns__node *n, int32_t k,
                             nns__value *v) {
  (void)A;
  value_init(v, n->graph, n->out_names[k]);
  v->producer = n;
  n->out[k] = v;
}

nns_status nns__asm_node_output(nns__asm *A, nns__node *n, int32_t k) {
  nns__value *v = nns__arena_alloc(&A->m->arena, sizeof *v);
  if (!v)
    return nns__asm_nomem(A);
  nns__asm_node_output_at(A, n, k, v);
  return NNS_OK;
}

/* ==== Definitions ==== */

/* What defines v, for duplicate messages. */
static const char *definer(const nns__value *v, char *buf, size_t size) {
  if (v->producer)
    snprintf(buf, size, "output of node '%s' (%s) at byte %lld",
             v->producer->name, v->producer->op_type,
             (long long)v->producer->offset);
  else if (v->init)
    snprintf(buf, size, "initializer at byte %lld", (long long)v->init->offset);
  else
    snprintf(buf, size, "graph input");
  return buf;
}

static nns_status duplicate(nns__asm *A, const nns__graph *g,
                            const nns__value *old, const nns__value *v) {
  char a[200], b[200];
  int64_t at = v->producer ? v->producer->offset
               : v->init   ? v->init->offset
                           : g->offset;
  return nns__err(A->err, NNS_E_MODEL, at,
                  v->producer ? v->producer->name : NULL,
                  "graph '%s': name '%s' is defined twice: as %s and as %s",
                  g->name, v->name, definer(old, a, sizeof a),
                  definer(v, b, sizeof b));
}

static nns_status define(nns__asm *A, nns__graph *g, nns__value *v,
                         bool listed) {
  void *old;
  if (!nns__map_add(&g->scope, v->name, v, &old))
    return nns__asm_nomem(A);
  if (old)
    return duplicate(A, g, old, v);
  if (listed) {
    if (!nns__model_add_value(A->m, v))
      return nns__asm_nomem(A);
  } else {
    v->index = UINT32_MAX; /* not in the model's value list */
  }
  return NNS_OK;
}

/*
 * An initializer that is also a graph input (IR version < 4 lists every
 * weight as an input) is one value: an initializer that is a graph input,
 * with the tensor's type and the input's declared type.
 */
static nns_status define_init(nns__asm *A, nns__graph *g, int32_t i,
                              bool listed) {
  nns__value *v = g->inits[i];
  nns__value *in = nns__map_get(&g->scope, v->name);
  if (in && in->is_graph_input && !in->init) {
    in->init = v->init;
    in->role = NNS_ROLE_INITIALIZER;
    in->type = v->type;
    g->inits[i] = in;
    return NNS_OK;
  }
  return define(A, g, v, listed);
}

/* How many values ahead of the one defined (or input linked) its scope
 * slot is fetched (nns__map_prefetch): the slots of a large graph are cold.
 * On a 100k-node graph (medians of 15 loads at one moment) definitions
 * took 9.2 ms and links 6.7 ms without; 7.0 and 6.4 with 8 ahead, 6.1 and
 * 6.2 with 16. */
enum { AHEAD = 16 };

static nns_status define_graph(nns__asm *A, nns__graph *g, bool listed) {
  nns_status st;
  for (int32_t i = 0; i < g->n_inputs; i++)
    if ((st = define(A, g, g->inputs[i], listed)) != NNS_OK)
      return st;
  for (int32_t i = 0; i < g->n_inits; i++) {
    if (i + AHEAD < g->n_inits && g->inits[i + AHEAD])
      nns__map_prefetch(&g->scope, g->inits[i + AHEAD]->name);
    if ((st = define_init(A, g, i, listed)) != NNS_OK)
      return st;
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns__node *n = &g->nodes[i];
    if (i + AHEAD < g->n_nodes) {
      const nns__node *a = &g->nodes[i + AHEAD];
      for (int32_t k = 0; k < a->n_out; k++)
        if (a->out_names[k][0])
          nns__map_prefetch(&g->scope, a->out_names[k]);
    }
    for (int32_t k = 0; k < n->n_out; k++)
      if (n->out[k] && (st = define(A, g, n->out[k], listed)) != NNS_OK)
        return st;
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *a = &n->attrs[k];
      if (a->type == NNS__AT_GRAPH && a->g &&
          (st = define_graph(A, a->g, listed)) != NNS_OK)
        return st;
      if (a->type == NNS__AT_GRAPHS && a->graphs)
        for (int32_t j = 0; j < a->n; j++)
          if (a->graphs[j] &&
              (st = define_graph(A, a->graphs[j], listed)) != NNS_OK)
            return st;
    }
  }
  return NNS_OK;
}

/* ==== Links ==== */

static int64_t opset_of(const nns__asm *A, const char *domain) {
  for (int32_t i = 0; i < A->n_opsets; i++)
    if (A->opset_domains[i] == domain)
      return A->opset_versions[i];
  return nns__model_opset(A->m, domain);
}

static nns_status link_node(nns__asm *A, nns__graph *g, nns__node *n) {
  n->opset = (int32_t)opset_of(A, n->domain);
  for (int32_t k = 0; k < n->n_in; k++) {
    const char *name = n->in_names[k];
    if (!name[0])
      continue; /* an omitted optional input */
    n->in[k] = nns__graph_lookup(g, name);
    if (!n->in[k])
      return nns__err(A->err, NNS_E_DANGLING, n->offset,
                      n->name[0] ? n->name : n->op_type,
                      "node '%s' (%s) at byte %lld: input %d '%s' is not "
                      "produced by any node, initializer or graph input",
                      n->name, n->op_type, (long long)n->offset, (int)k, name);
  }
  return NNS_OK;
}

static nns_status link_outputs(nns__asm *A, nns__graph *g) {
  /* value_info first, so that a graph output's own declaration wins. A
   * graph input keeps its own declaration; one that has none takes the
   * value_info's, which then is also its starting type. */
  for (int32_t i = 0; i < g->n_value_info; i++) {
    nns__value *v = nns__map_get(&g->scope, g->vi_names[i]);
    const nns__type *t = g->vi_types[i];
    if (!v || !t || (v->is_graph_input && v->declared))
      continue;
    v->declared = g->vi_types[i];
    if (v->is_graph_input && !v->init) {
      v->type = *t;
      if (t->rank > 0 && t->dims) {
        v->type.dims = nns__arena_array(&A->m->arena, (size_t)t->rank,
                                        sizeof *t->dims);
        if (!v->type.dims)
          return nns__asm_nomem(A);
        memcpy(v->type.dims, t->dims, (size_t)t->rank * sizeof *t->dims);
      }
    }
  }
  for (int32_t i = 0; i < g->n_outputs; i++) {
    nns__value *decl = g->outputs[i];
    nns__value *v = nns__graph_lookup(g, decl->name);
    if (!v)
      return nns__err(A->err, NNS_E_DANGLING, g->offset, NULL,
                      "graph '%s' at byte %lld: output '%s' is not produced "
                      "by any node, initializer or graph input",
                      g->name, (long long)g->offset, decl->name);
    g->outputs[i] = v;
    if (v->graph != g)
      continue; /* an outer value passed through: it is not ours to mark */
    v->is_graph_output = true;
    if (v->role == NNS_ROLE_INTERMEDIATE)
      v->role = NNS_ROLE_OUTPUT;
    if (decl->declared && !v->is_graph_input)
      v->declared = decl->declared;
  }
  return NNS_OK;
}

static nns_status link_graph(nns__asm *A, nns__graph *g);

/* Links nodes [from, to) of g, and their subgraphs. With `plain`, stops
 * before the first node holding a graph, whose links may allocate in the
 * model's arena (link_outputs), and sets *stop there (to when none). */
static nns_status link_range(nns__asm *A, nns__graph *g, int32_t from,
                             int32_t to, bool plain, int32_t *stop) {
  nns_status st;
  for (int32_t i = from; i < to; i++) {
    nns__node *n = &g->nodes[i];
    if (i + AHEAD < to) {
      const nns__node *a = &g->nodes[i + AHEAD];
      for (int32_t k = 0; k < a->n_in; k++)
        nns__map_prefetch(&g->scope, a->in_names[k]);
    }
    if (plain && nns__node_holds_graph(n)) {
      *stop = i;
      return NNS_OK;
    }
    if ((st = link_node(A, g, n)) != NNS_OK)
      return st;
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *a = &n->attrs[k];
      if (a->type == NNS__AT_GRAPH && a->g &&
          (st = link_graph(A, a->g)) != NNS_OK)
        return st;
      if (a->type == NNS__AT_GRAPHS && a->graphs)
        for (int32_t j = 0; j < a->n; j++)
          if (a->graphs[j] && (st = link_graph(A, a->graphs[j])) != NNS_OK)
            return st;
    }
  }
  if (stop)
    *stop = to;
  return NNS_OK;
}

static nns_status link_graph(nns__asm *A, nns__graph *g) {
  nns_status st = link_range(A, g, 0, g->n_nodes, false, NULL);
  return st != NNS_OK ? st : link_outputs(A, g);
}

/* The main graph's second half of nodes, linked on a thread of its own
 * (a 100k-node graph's links took 6 ms): lookups only read the scopes,
 * complete by then, and each node's links are its own. It stops at the
 * first node holding a graph, which the calling thread links, and keeps
 * its error apart: the calling thread reports its own half's first. */
typedef struct link_half {
  nns__asm A;      /* the caller's, with the error below */
  nns_error err;
  nns__graph *g;
  int32_t from, stop;
  nns_status st;
} link_half;

static void link_half_run(void *p) {
  link_half *h = p;
  h->st = link_range(&h->A, h->g, h->from, h->g->n_nodes, true, &h->stop);
}

static nns_status link_main(nns__asm *A, nns__graph *g) {
  int32_t n = g->n_nodes;
  if (n < 2 * NNS__JOB_MIN_ITEMS)
    return link_graph(A, g);
  link_half h = {.A = *A, .g = g, .from = n / 2, .stop = n};
  h.A.err = &h.err;
  nns__job job;
  nns__job_start(&job, link_half_run, &h, true);
  nns_status st = link_range(A, g, 0, h.from, false, NULL);
  nns__job_finish(&job);
  if (st != NNS_OK)
    return st;
  if (h.st != NNS_OK) {
    if (A->err)
      *A->err = h.err;
    return h.st;
  }
  st = link_range(A, g, h.stop, n, false, NULL);
  return st != NNS_OK ? st : link_outputs(A, g);
}

nns_status nns__asm_resolve(nns__asm *A, nns__graph *g, bool listed) {
  nns_status st = define_graph(A, g, listed);
  return st != NNS_OK ? st : link_graph(A, g);
}

nns_status nns__asm_finish(nns__asm *A, nns__graph *g) {
  /* The values to come: the inputs and initializers, and about an output
   * a node, subgraphs' nodes included. Only a size: more still fit. */
  size_t values = (size_t)g->n_inputs + (size_t)g->n_inits +
                  (size_t)g->n_nodes + A->m->subgraph_nodes;
  if (!nns__model_reserve_values(A->m, values))
    return nns__asm_nomem(A);
  (void)nns__map_reserve(&g->scope, values); /* a hint, as the list's */
  /* The node list is made on a second thread meanwhile. */
  nns__model_listing list;
  nns__model_listing_start(&list, A->m,
                           (size_t)g->n_nodes + A->m->subgraph_nodes >=
                               NNS__JOB_MIN_ITEMS);
  nns_status st = define_graph(A, g, true);
  if (st == NNS_OK)
    st = link_main(A, g);
  /* Joined on every path; the first error is resolution's. */
  nns_status listed =
      nns__model_listing_finish(&list, st == NNS_OK ? A->err : NULL);
  return st != NNS_OK ? st : listed;
}
