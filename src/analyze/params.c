/*
 * params.c - which initializers are trainable parameters, which are
 * buffers (running statistics) and which are constants, by the role of the
 * inputs they feed (the op entry's `roles`), and which layer counts each.
 *
 * The output of a node that holds its data in an attribute (Constant: the
 * op entry's holds_data) is stored weight data just as an initializer is:
 * paddle2onnx, tf2onnx and some optimizers write every weight that way, so
 * it is classified the same way. Initializers and Constants of subgraphs
 * count at the layer of the main-graph node that holds the subgraph; both
 * branches of an If hold real weights and both count.
 *
 * A "parameter value" is an initializer (or Constant output) or an
 * Identity-like copy of one
 * (PyTorch stores two parameters that hold equal values as one initializer
 * and `Identity` copies of it). Each copy is classified by its own
 * consumers and counted as its own parameter; copy nodes themselves are not
 * consumers. A parameter value whose consumers sit in two layers is tied:
 * counted once, at the layer of its first consumer in node order, and the
 * other layers get NNS_COUNT_SHARED. Weights are never read: only dtypes
 * and dims.
 *
 * What the caller says wins (nns_model_set_param_kind, then the metadata
 * key "nnscan.param_kinds"). Otherwise the roles give a guess, and a guess
 * of "trainable" stands only when a gradient can flow to the value from a
 * graph output: backwards through float values and the inputs each op
 * calls differentiable (roles a, w, b and no `no_grad` mark); quantized
 * integer weights, which no gradient reaches, keep their role's word. A causal
 * mask that is sliced, compared and used as a Where condition reaches no
 * output that way, so it is a buffer, as PyTorch registers it.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "../base/vec.h"

/* ==== Copies ==== */

static bool same_type(const nns__type *a, const nns__type *b) {
  if (a->dtype != b->dtype || a->rank != b->rank || a->rank < 0)
    return false;
  for (int32_t k = 0; k < a->rank; k++)
    if (!nns__dim_eq(a->dims[k], b->dims[k]))
      return false;
  return true;
}

bool nns__node_is_copy(const nns__node *n) {
  if (!n->op || !n->op->view || n->n_out < 1 || !n->out[0])
    return false;
  const nns__value *in = NULL;
  for (int32_t i = 0; i < n->n_in; i++) {
    if (!n->in[i])
      continue;
    if (in)
      return false;
    in = n->in[i];
  }
  return in && same_type(&in->type, &n->out[0]->type);
}

/* ==== Parameter values ==== */

typedef struct pval {
  nns__value *v;
  const nns__value *storage; /* the initializer (or Constant output)
                                holding the data */
  const nns__tensor *tensor; /* its tensor, or NULL (a Constant's value_*
                                list: dtype and dims from its type) */
  const nns__node *first;    /* first consumer (main graph), or NULL */
  const nns__node *last;     /* the last consumer recorded */
  uint32_t layer;            /* its layer (nns__params_finish) */
  int strength;              /* strongest role seen: see role_strength */
  bool copy;                 /* an Identity copy */
  bool shared;               /* consumers in more than one layer */
  bool chained;              /* consumed by copy nodes */
  bool weight_slot;          /* fed a 'w' input (else only 'b', if any) */
  int unpack;                /* weights per element: > 1 in a packed slot
                                (nns__op.packed_mask), else 0 or 1 */
} pval;

/* A consumer of a parameter value after its first, in another main-graph
 * node: whether the two sit in one layer is known once the layers are
 * (nns__params_finish). */
typedef struct consumer {
  uint32_t pval;
  const nns__node *top;
} consumer;

typedef struct pstate {
  const nns_model *m;
  nns__analysis *a;
  pval *v;
  size_t n, cap;
  int32_t *of_value; /* value index -> pval index, or -1 */
  NNS__VEC(consumer) others;
} pstate;

/* Weights per stored element of a packed input of n: 8 / bits, bits the
 * attribute its entry names (4 when unset); 1 for a width that does not
 * divide a byte. */
static int packed_per_element(const nns__node *n) {
  int64_t bits = 4;
  for (int32_t k = 0; k < n->n_attrs; k++)
    if (!strcmp(n->attrs[k].name, n->op->packed_bits))
      bits = n->attrs[k].i;
  return bits >= 1 && bits <= 8 && 8 % bits == 0 ? (int)(8 / bits) : 1;
}

/* w/b > u > a > c: a weight that also feeds a constant slot is a weight. */
static int role_strength(char r) {
  switch (r) {
  case 'w':
  case 'b':
    return 3;
  case 'u':
    return 2;
  case 'a':
    return 1;
  default:
    return 0;
  }
}

static bool add_pval(pstate *s, nns__value *v, const nns__value *storage,
                     const nns__tensor *tensor, bool copy) {
  if (s->of_value[v->index] >= 0)
    return true;
  pval *p = nns__grow(s->v, &s->cap, s->n + 1, sizeof *p, 64);
  if (!p)
    return false;
  s->v = p;
  s->of_value[v->index] = (int32_t)s->n;
  s->v[s->n++] = (pval){.v = v, .storage = storage, .tensor = tensor,
                        .copy = copy, .strength = -1};
  s->a->is_param_value[v->index] = true;
  return true;
}

/* The tensor a data-holding node keeps in an attribute, or NULL. */
static const nns__tensor *data_attr(const nns__node *n) {
  for (int32_t k = 0; k < n->n_attrs; k++)
    if ((n->attrs[k].type == NNS__AT_TENSOR ||
         n->attrs[k].type == NNS__AT_SPARSE_TENSOR) && n->attrs[k].t)
      return n->attrs[k].t;
  return NULL;
}

/* Elements of a value whose type is fully known, else 0. */
static int64_t type_numel(const nns__type *t) {
  int64_t n = 1;
  if (t->rank < 0)
    return 0;
  for (int32_t k = 0; k < t->rank; k++)
    if (t->dims[k].sym || !nns__mul_i64(n, t->dims[k].v, &n))
      return 0;
  return n;
}

/* Marks the layers between `user` and the counting layer (excluded) as
 * using a parameter counted elsewhere. */
static void mark_shared(nns__analysis *a, uint32_t user, uint32_t counting) {
  for (size_t l = user; l != (size_t)-1; l = nns__layer_up(a, l)) {
    if (nns__layer_contains(a, (uint32_t)l, counting))
      break;
    a->layers[l].counts.flags |= NNS_COUNT_SHARED;
  }
}

/* Adds n's output when n holds its data (a Constant) or copies a parameter
 * value. */
static bool collect(pstate *s, const nns__node *n) {
  if (n->op && n->op->holds_data && n->n_out >= 1 && n->out[0] &&
      !add_pval(s, n->out[0], n->out[0], data_attr(n), false))
    return false;
  if (nns__node_is_copy(n)) {
    const nns__value *in = NULL;
    for (int32_t k = 0; k < n->n_in && !in; k++)
      in = n->in[k];
    int32_t src = s->of_value[in->index];
    if (src >= 0 && !add_pval(s, n->out[0], s->v[src].storage,
                              s->v[src].tensor, true))
      return false;
  }
  return true;
}

/* Records n as a consumer of the parameter values it reads: its role,
 * and the main-graph node it sits in. */
static bool consume(pstate *s, const nns__node *n) {
  bool copy = nns__node_is_copy(n) && s->of_value[n->out[0]->index] >= 0;
  const nns__node *top = nns__top_node(n);
  for (int32_t k = 0; k < n->n_in; k++) {
    const nns__value *v = n->in[k];
    int32_t pi = v ? s->of_value[v->index] : -1;
    if (pi < 0)
      continue;
    pval *p = &s->v[pi];
    if (copy) {
      p->chained = true;
      continue;
    }
    char role = nns__input_role(n, k);
    int r = role_strength(role);
    p->weight_slot = p->weight_slot || role == 'w';
    if (!p->unpack && k < 32 && n->op && (n->op->packed_mask >> k) & 1)
      p->unpack = packed_per_element(n);
    if (r > p->strength)
      p->strength = r;
    if (!p->first) {
      p->first = p->last = top;
    } else if (top != p->last) {
      p->last = top;
      if (!nns__vec_push(&s->others, ((consumer){(uint32_t)pi, top})))
        return false;
    }
  }
  return true;
}

/* Adds the initializers and Constant outputs of g and of its subgraphs,
 * and the copies made of them, in node order, and records their
 * consumers: one walk, as every value a node reads is defined before it
 * (an initializer, or an earlier node's output; a subgraph's are its
 * owner's or its own). */
static bool walk(pstate *s, const nns__graph *g) {
  const nns__analysis *a = s->a;
  for (int32_t i = 0; i < g->n_inits; i++)
    if (g->inits[i] &&
        !add_pval(s, g->inits[i], g->inits[i], g->inits[i]->init, false))
      return false;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = nns__graph_node(a, g, i);
    if (!collect(s, n) || !consume(s, n))
      return false;
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *at = &n->attrs[k];
      if (at->g && !walk(s, at->g))
        return false;
      for (int32_t j = 0; at->graphs && j < at->n; j++)
        if (at->graphs[j] && !walk(s, at->graphs[j]))
          return false;
    }
  }
  return true;
}

/* Integer dtypes that hold quantized weights (int8/uint8/int4/uint4/int2/
 * uint2); a
 * quantized bias is int32. Other integers in a weight slot (an int64 table
 * gathered by shape arithmetic) are constants. */
static bool quantized_weight_type(int32_t dt, bool bias) {
  return dt == NNS_DT_INT8 || dt == NNS_DT_UINT8 || dt == NNS_DT_INT4 ||
         dt == NNS_DT_UINT4 || dt == NNS_DT_INT2 || dt == NNS_DT_UINT2 ||
         (bias && dt == NNS_DT_INT32);
}

static nns_param_kind classify(const pval *p, int32_t dtype, int64_t numel) {
  bool fp = nns__dtype_is_float(dtype);
  switch (p->strength) {
  case 3:
    return fp || quantized_weight_type(dtype, !p->weight_slot)
               ? NNS_PARAM_TRAINABLE : NNS_PARAM_CONSTANT;
  case 2:
    return fp ? NNS_PARAM_BUFFER : NNS_PARAM_CONSTANT;
  case 1:
    return fp && numel > 1 ? NNS_PARAM_TRAINABLE : NNS_PARAM_CONSTANT;
  default:
    return NNS_PARAM_CONSTANT;
  }
}

static int64_t tensor_bytes(int64_t numel, int32_t dtype, unsigned *flags) {
  int bits = nns__dtype_bits(dtype);
  int64_t b;
  if (bits <= 0)
    return 0;
  if (!nns__mul_i64(numel, bits, &b)) {
    *flags |= NNS_COUNT_OVERFLOW;
    return INT64_MAX;
  }
  return b / 8 + (b % 8 != 0);
}

static int64_t add_sat(int64_t a, int64_t b, unsigned *flags) {
  int64_t r;
  if (!nns__add_i64(a, b, &r)) {
    *flags |= NNS_COUNT_OVERFLOW;
    return INT64_MAX;
  }
  return r;
}

static bool add_dtype_row(nns__analysis *a, nns__dtype_row **rows, size_t *cap,
                          int dtype, int64_t elems, int64_t bytes) {
  unsigned f = 0;
  for (size_t i = 0; i < a->n_dtypes; i++)
    if ((*rows)[i].dtype == dtype) {
      (*rows)[i].elements = add_sat((*rows)[i].elements, elems, &f);
      (*rows)[i].bytes = add_sat((*rows)[i].bytes, bytes, &f);
      return true;
    }
  nns__dtype_row *r = nns__grow(*rows, cap, a->n_dtypes + 1, sizeof *r, 4);
  if (!r)
    return false;
  *rows = r;
  (*rows)[a->n_dtypes++] =
      (nns__dtype_row){.dtype = dtype, .elements = elems, .bytes = bytes};
  return true;
}

/* ==== Exporter literals ==== */

/* The value index standing for graph g in `literal_graph`: its first
 * initializer's, or -1 when g holds none. */
static int64_t graph_key(const nns__graph *g) {
  for (int32_t i = 0; g && i < g->n_inits; i++)
    if (g->inits[i])
      return g->inits[i]->index;
  return -1;
}

/* Marks every graph that keeps a weight in an initializer (one that its
 * roles and dtype make a parameter). In such a graph
 * the exporter holds its weights in initializers, and a Constant node is a
 * literal it wrote: torch.onnx puts every module parameter (folded or not)
 * in an initializer and writes an RNN's zero initial state, GroupNorm's
 * ones and zeros, a detector's mean/std and anchors as Constant nodes. */
static void mark_literal_graphs(const pstate *s, bool *literal_graph) {
  for (size_t i = 0; i < s->n; i++) {
    const pval *p = &s->v[i];
    if (p->copy || !p->first || !p->storage->init)
      continue;
    int64_t key = graph_key(p->v->graph);
    if (key >= 0 && classify(p, p->tensor->dtype, p->tensor->numel) ==
                        NNS_PARAM_TRAINABLE)
      literal_graph[key] = true;
  }
}

/* A Constant node's output (or a copy of one) in a graph that keeps its
 * weights in initializers. */
static bool is_literal(const pval *p, const bool *literal_graph) {
  if (p->storage->init)
    return false;
  int64_t key = graph_key(p->storage->graph);
  return key >= 0 && literal_graph[key];
}

/* ==== Gradient reachability ==== */

/* No gradient flows through an integer or bool value; unknown may be
 * floating point. */
static bool may_carry_grad(const nns__value *v) {
  return v->type.dtype == 0 || nns__dtype_is_float(v->type.dtype);
}

static bool input_differentiable(const nns__node *n, int k) {
  char role = nns__input_role(n, k);
  if (role != 'a' && role != 'w' && role != 'b')
    return false;
  const char *ng = n->op ? n->op->no_grad : NULL;
  if (!ng || !ng[0])
    return true;
  size_t len = strlen(ng);
  return ng[(size_t)k < len ? (size_t)k : len - 1] != '1';
}

/* Marks grad[v] for every value of g a gradient reaches, given which of
 * g's outputs are reached (`outputs_reached`). Nodes are walked in reverse
 * running order, so a value's consumers come before its producer; a node
 * holding subgraphs passes the gradient into them (their outputs reached
 * when any of its own are) before its own inputs. */
static void grad_graph(const nns__analysis *a, const nns__graph *g,
                       bool outputs_reached, bool *grad) {
  for (int32_t i = 0; i < g->n_outputs; i++)
    if (outputs_reached && g->outputs[i] && may_carry_grad(g->outputs[i]))
      grad[g->outputs[i]->index] = true;
  for (int32_t i = g->n_nodes; i-- > 0;) {
    const nns__node *n = nns__graph_node(a, g, i);
    bool reached = false;
    for (int32_t k = 0; k < n->n_out && !reached; k++)
      reached = n->out[k] && n->out[k]->index != UINT32_MAX &&
                grad[n->out[k]->index] && may_carry_grad(n->out[k]);
    if (!reached)
      continue;
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *at = &n->attrs[k];
      if (at->g)
        grad_graph(a, at->g, true, grad);
      for (int32_t j = 0; at->graphs && j < at->n; j++)
        if (at->graphs[j])
          grad_graph(a, at->graphs[j], true, grad);
    }
    for (int32_t k = 0; k < n->n_in; k++) {
      const nns__value *v = n->in[k];
      if (v && v->index != UINT32_MAX && may_carry_grad(v) &&
          input_differentiable(n, k))
        grad[v->index] = true;
    }
  }
}

/* ==== What the caller says ==== */

/* The kind the caller or the metadata gives value v, or -1. */
static int given_kind(const nns_model *m, const nns__analysis *a,
                      const nns__value *v) {
  uintptr_t k = (uintptr_t)nns__map_get(&m->param_kinds, v->name);
  if (k)
    return (int)(k - 1);
  return nns__meta_param_kind(&a->meta, v->name);
}

/* ==== Entry ==== */

struct nns__params_walk {
  pstate s;
  bool *grad;          /* per value: a gradient reaches it */
  bool *literal_graph; /* per graph_key: the graph keeps weights in
                          initializers */
  bool done;           /* false: out of memory */
};

nns__params_walk *nns__params_walk_nodes(const nns_model *m,
                                         nns__analysis *a) {
  nns__params_walk *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  pstate *s = &w->s;
  *s = (pstate){.m = m, .a = a};
  if (!(s->of_value = malloc((m->n_values + 1) * sizeof *s->of_value)))
    return w;
  for (size_t i = 0; i < m->n_values; i++)
    s->of_value[i] = -1;
  if (!walk(s, m->graph) ||
      !(w->grad = calloc(m->n_values + 1, sizeof *w->grad)))
    return w;
  grad_graph(a, m->graph, true, w->grad);
  if (!(w->literal_graph = calloc(m->n_values + 1, sizeof *w->literal_graph)))
    return w;
  mark_literal_graphs(s, w->literal_graph);
  w->done = true;
  return w;
}

void nns__params_walk_free(nns__params_walk *w) {
  if (!w)
    return;
  free(w->grad);
  free(w->literal_graph);
  free(w->s.of_value);
  free(w->s.v);
  nns__vec_free(&w->s.others);
  free(w);
}

/* The layer of main-graph node `top` (0, the root, for none). */
static uint32_t layer_of(const nns_model *m, const nns__analysis *a,
                         const nns__node *top) {
  return top && top->graph == m->graph ? a->nodes[top->index].layer : 0;
}

/* Each parameter value's layer (its first consumer's), and the layers of
 * its other consumers marked as sharing it. */
static void place(const nns_model *m, nns__analysis *a, pstate *s) {
  for (size_t i = 0; i < s->n; i++)
    s->v[i].layer = layer_of(m, a, s->v[i].first);
  for (size_t i = 0; i < s->others.n; i++) {
    pval *p = &s->v[s->others.v[i].pval];
    uint32_t layer = layer_of(m, a, s->others.v[i].top);
    if (layer != p->layer) {
      p->shared = true;
      mark_shared(a, layer, p->layer);
    }
  }
}

nns_status nns__params_finish(nns_model *m, nns__analysis *a,
                              nns__params_walk *w, nns_error *err) {
  if (!w || !w->done) {
    nns__params_walk_free(w);
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  nns_status st = NNS_OK;
  nns__dtype_row *rows = NULL;
  size_t rows_cap = 0;
  pstate s = w->s;
  const bool *grad = w->grad, *literal_graph = w->literal_graph;
  place(m, a, &s);
  bool *stored = calloc(m->n_values + 1, sizeof *stored);
  if (!stored)
    goto nomem;

  nns_totals *t = &a->totals;
  unsigned tf = 0;
  a->params = malloc((s.n + 1) * sizeof *a->params);
  if (!a->params)
    goto nomem;
  for (size_t i = 0; i < s.n; i++) {
    const pval *p = &s.v[i];
    /* A link of a copy chain is not a parameter of its own: the copies
     * made from it are. */
    if (!p->first && p->chained)
      continue;
    const nns__tensor *ts = p->tensor;
    int32_t dtype = ts ? ts->dtype : p->v->type.dtype;
    int64_t numel = ts ? ts->numel : type_numel(&p->v->type);
    int64_t stored_numel = numel;
    if (p->unpack > 1 && numel >= 0 &&
        !nns__mul_i64(numel, p->unpack, &numel))
      numel = stored_numel;
    nns_param_kind kind = p->first && !is_literal(p, literal_graph)
                              ? classify(p, dtype, numel)
                              : NNS_PARAM_CONSTANT;
    /* A float value that feeds only activation slots is a parameter when
     * a gradient reaches it (a causal mask used as a Where condition is
     * not). A value in a weight or bias slot is a weight whatever its
     * output reaches: in an eval graph a detector's RPN objectness head
     * feeds only TopK and NMS, yet PyTorch counts it. Quantized integer
     * weights keep their role's word: no gradient flows through an
     * integer, yet they are the model's weights. */
    if (kind == NNS_PARAM_TRAINABLE && p->strength == 1 &&
        nns__dtype_is_float(dtype) && !grad[p->v->index])
      kind = NNS_PARAM_BUFFER;
    int given = given_kind(m, a, p->v);
    if (given < 0 && p->copy)
      given = given_kind(m, a, p->storage);
    if (given >= 0 && p->first) /* used by nothing: nowhere to count */
      kind = (nns_param_kind)given;
    /* A Constant node's output that is not a weight is shape arithmetic
     * (PyTorch exports hold thousands): like a folded value it is neither
     * listed nor added to the constants total. */
    if (kind == NNS_PARAM_CONSTANT && !p->storage->init && given < 0)
      continue;
    nns_param_info *pi = &a->params[a->n_params++];
    memset(pi, 0, sizeof *pi);
    pi->name = p->v->name;
    pi->storage = p->storage->name;
    pi->kind = kind;
    pi->given = given >= 0;
    pi->dtype = dtype;
    pi->elements = numel;
    pi->bytes = tensor_bytes(stored_numel, dtype, &tf);
    pi->layer = p->layer;
    pi->shared = p->shared;
    pi->is_copy = p->copy;
    if (pi->kind == NNS_PARAM_CONSTANT) {
      if (!p->copy)
        t->constants = add_sat(t->constants, numel, &tf);
      continue;
    }
    nns__anode_more *c = nns__node_more(a, p->first->index);
    if (!c)
      goto nomem;
    unsigned *flags = &a->nodes[p->first->index].flags;
    if (pi->kind == NNS_PARAM_TRAINABLE)
      c->params = add_sat(c->params, numel, flags);
    else if (pi->kind == NNS_PARAM_FROZEN)
      c->frozen = add_sat(c->frozen, numel, flags);
    else
      c->buffers = add_sat(c->buffers, numel, flags);
    c->param_bytes = add_sat(c->param_bytes, pi->bytes, flags);
    if (!add_dtype_row(a, &rows, &rows_cap, dtype, numel, pi->bytes))
      goto nomem;
    if (!stored[p->storage->index]) {
      stored[p->storage->index] = true;
      t->params_unique = add_sat(t->params_unique, numel, &tf);
      t->param_bytes_unique = add_sat(t->param_bytes_unique, pi->bytes, &tf);
    }
  }
  if (a->n_dtypes) {
    a->dtypes = nns__arena_array(&a->arena, a->n_dtypes,
                                 sizeof *a->dtypes);
    if (!a->dtypes)
      goto nomem;
    memcpy(a->dtypes, rows, a->n_dtypes * sizeof *rows);
  }
  goto done;
nomem:
  st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
done:
  free(rows);
  free(stored);
  nns__params_walk_free(w);
  return st;
}
