/*
 * resolve.c - the second phase of loading: names to values.
 *
 * First every graph's definitions (inputs, initializers, node outputs) are
 * registered in its scope, in graph order, which is also the order of the
 * model's value list; a subgraph's values follow the node that owns it.
 * Only when all scopes are complete are node inputs and graph outputs
 * linked, looking in their own graph first and then in the enclosing ones,
 * so a subgraph may use an outer name defined after its owner node.
 */
#include <stdio.h>
#include <string.h>

#include "load_int.h"

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

static nns_status duplicate(nns__loader *L, const nns__graph *g,
                            const nns__value *old, const nns__value *v) {
  char a[200], b[200];
  int64_t at = v->producer ? v->producer->offset
               : v->init   ? v->init->offset
                           : g->offset;
  return nns__err(L->err, NNS_E_MODEL, at,
                  v->producer ? v->producer->name : NULL,
                  "graph '%s': name '%s' is defined twice: as %s and as %s",
                  g->name, v->name, definer(old, a, sizeof a),
                  definer(v, b, sizeof b));
}

static nns_status define(nns__loader *L, nns__graph *g, nns__value *v,
                         bool listed) {
  nns__value *old = nns__map_get(&g->scope, v->name);
  if (old)
    return duplicate(L, g, old, v);
  if (!nns__map_put(&g->scope, v->name, v))
    return nns__load_nomem(L);
  if (listed) {
    if (!nns__model_add_value(L->m, v))
      return nns__load_nomem(L);
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
static nns_status define_init(nns__loader *L, nns__graph *g, int32_t i,
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
  return define(L, g, v, listed);
}

static nns_status define_graph(nns__loader *L, nns__graph *g, bool listed) {
  nns_status st;
  for (int32_t i = 0; i < g->n_inputs; i++)
    if ((st = define(L, g, g->inputs[i], listed)) != NNS_OK)
      return st;
  for (int32_t i = 0; i < g->n_inits; i++)
    if ((st = define_init(L, g, i, listed)) != NNS_OK)
      return st;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns__node *n = &g->nodes[i];
    for (int32_t k = 0; k < n->n_out; k++)
      if (n->out[k] && (st = define(L, g, n->out[k], listed)) != NNS_OK)
        return st;
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *a = &n->attrs[k];
      if (a->type == NNS__AT_GRAPH && a->g &&
          (st = define_graph(L, a->g, listed)) != NNS_OK)
        return st;
      if (a->type == NNS__AT_GRAPHS && a->graphs)
        for (int32_t j = 0; j < a->n; j++)
          if (a->graphs[j] &&
              (st = define_graph(L, a->graphs[j], listed)) != NNS_OK)
            return st;
    }
  }
  return NNS_OK;
}

/* ==== Links ==== */

static int64_t opset_of(const nns__loader *L, const char *domain) {
  for (int32_t i = 0; i < L->fn_n_opsets; i++)
    if (L->fn_opset_domains[i] == domain)
      return L->fn_opset_versions[i];
  return nns__model_opset(L->m, domain);
}

static nns_status link_node(nns__loader *L, nns__graph *g, nns__node *n) {
  n->opset = (int32_t)opset_of(L, n->domain);
  for (int32_t k = 0; k < n->n_in; k++) {
    const char *name = n->in_names[k];
    if (!name[0])
      continue; /* an omitted optional input */
    n->in[k] = nns__graph_lookup(g, name);
    if (!n->in[k])
      return nns__err(L->err, NNS_E_DANGLING, n->offset,
                      n->name[0] ? n->name : n->op_type,
                      "node '%s' (%s) at byte %lld: input %d '%s' is not "
                      "produced by any node, initializer or graph input",
                      n->name, n->op_type, (long long)n->offset, (int)k, name);
  }
  return NNS_OK;
}

static nns_status link_outputs(nns__loader *L, nns__graph *g) {
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
        v->type.dims = nns__arena_array(&L->m->arena, (size_t)t->rank,
                                        sizeof *t->dims);
        if (!v->type.dims)
          return nns__load_nomem(L);
        memcpy(v->type.dims, t->dims, (size_t)t->rank * sizeof *t->dims);
      }
    }
  }
  for (int32_t i = 0; i < g->n_outputs; i++) {
    nns__value *decl = g->outputs[i];
    nns__value *v = nns__graph_lookup(g, decl->name);
    if (!v)
      return nns__err(L->err, NNS_E_DANGLING, g->offset, NULL,
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

static nns_status link_graph(nns__loader *L, nns__graph *g) {
  nns_status st;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    nns__node *n = &g->nodes[i];
    if ((st = link_node(L, g, n)) != NNS_OK)
      return st;
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *a = &n->attrs[k];
      if (a->type == NNS__AT_GRAPH && a->g &&
          (st = link_graph(L, a->g)) != NNS_OK)
        return st;
      if (a->type == NNS__AT_GRAPHS && a->graphs)
        for (int32_t j = 0; j < a->n; j++)
          if (a->graphs[j] && (st = link_graph(L, a->graphs[j])) != NNS_OK)
            return st;
    }
  }
  return link_outputs(L, g);
}

nns_status nns__resolve_graph(nns__loader *L, nns__graph *g, bool listed) {
  nns_status st = define_graph(L, g, listed);
  return st != NNS_OK ? st : link_graph(L, g);
}
