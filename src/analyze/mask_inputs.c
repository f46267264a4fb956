/*
 * mask_inputs.c - which observed contents the masked-attention counts
 * read (nns_model_mask_inputs), and contents given to a built model
 * (nns_model_set_value_data).
 *
 * A binding that records a live model keeps real contents for the small
 * integer and boolean tensors that decide masks, computed only when asked
 * for (the Python package's shadow.py). attention.c counts the two
 * products over the (query, key) pairs a mask allows when it knows the
 * mask's contents, folded or observed (find_masks). This file picks,
 * from the graph, what to ask the binding for: a tracked value that an
 * additive mask (NNS__ATTN_BIAS) or a selection (NNS__ATTN_SELECT) applies
 * beside an activation, or the tracked values it was made from where they
 * say the same in fewer bytes and find_masks follows them back (through
 * NNS__ATTN_KEEP ops, and a Where of a boolean mask between two numbers);
 * for a mask too large to track, the tracked values it is made from
 * (compared positions, a padding mask: NNS__ATTN_KEEP and the comparison,
 * join and selection marks). Roles come from the operator table, as in
 * attention.c, never from op names.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

enum { MAX_DEPTH = 8, MAX_WALK = 64 };

typedef struct pick {
  const nns_model *m;
  uint32_t *pos;      /* per value index: 1 + its position in `tracked`, or
                         0 when not tracked */
  uint32_t *seen;     /* per value index: the walk that last saw it */
  uint32_t walk;
  uint8_t *asked;     /* per position in `tracked`: already in `out` */
  size_t *out, n_out;
  const nns__value **todo; /* made_from's work: a stack that grows */
  size_t cap_todo;
  const nns__value **found; /* made_from's finds, n_values at most */
  bool nomem;
} pick;

static uint8_t mark(const nns__node *n) {
  return n && n->op ? n->op->attn : NNS__ATTN_NONE;
}

static bool tracked(const pick *p, const nns__value *v) {
  return v && p->pos[v->index];
}

static bool is_init(const nns__value *v) { return v && v->init; }

/* Elements of v, from its initializer or its inferred static dims; -1
 * when not known. */
static int64_t numel(const nns__value *v) {
  if (v->init)
    return v->init->numel;
  if (v->type.rank < 0)
    return -1;
  int64_t n = 1;
  for (int32_t k = 0; k < v->type.rank; k++) {
    nns__dim d = v->type.dims[k];
    if (d.sym || d.v < 0 || !nns__mul_i64(n, d.v, &n))
      return -1;
  }
  return n;
}

static void ask(pick *p, const nns__value *v) {
  uint32_t at = p->pos[v->index] - 1;
  if (p->asked[at] || v->known)
    return;
  p->asked[at] = 1;
  p->out[p->n_out++] = at;
}

/* Whether v is a triangle (NNS__ATTN_TRIANGLE) with a constant diagonal
 * of a filled tensor: one whose one element the caller already gave (a
 * one-element contents of a value of more), or a fill the graph makes
 * (ConstantOfShape): find_masks reads it from the diagonal, with no
 * contents of its own. */
static bool triangle_of_a_fill(const nns__node *n) {
  const nns__value *in = n->n_in > 0 ? n->in[0] : NULL;
  double fill;
  return mark(n) == NNS__ATTN_TRIANGLE && in &&
         ((in->known && in->known->numel == 1 && numel(in) > 1) ||
          nns__attention_fill(in->producer, &fill)) &&
         (n->n_in < 2 || !n->in[1] || is_init(n->in[1]));
}

/* Whether find_masks reads v with no contents of its own: a triangle of a
 * fill already given, through Not and ops that keep values. */
static bool readable(const nns__value *v, int depth) {
  const nns__node *n = v ? v->producer : NULL;
  if (!n || depth > MAX_DEPTH)
    return false;
  uint8_t at = mark(n);
  if (at == NNS__ATTN_TRIANGLE)
    return triangle_of_a_fill(n);
  return (at == NNS__ATTN_NOT || at == NNS__ATTN_KEEP) && n->n_in > 0 &&
         readable(n->in[0], depth + 1);
}

/* The tracked values the tracked value v says the same as, in fewer
 * bytes, that find_masks follows back: through a broadcast, reshape or
 * cast of a tracked value, and a Where of a tracked condition between two
 * one-element values (a boolean mask made additive); none for a triangle
 * of a fill already given (readable). */
static void sources(pick *p, const nns__value *v, int depth) {
  const nns__node *n = v->producer;
  if (!n || depth > MAX_DEPTH) {
    ask(p, v);
    return;
  }
  if (readable(v, 0))
    return;
  uint8_t at = mark(n);
  if (at == NNS__ATTN_KEEP && n->n_in > 0 && tracked(p, n->in[0])) {
    sources(p, n->in[0], depth + 1);
    return;
  }
  if (at == NNS__ATTN_SELECT && n->n_in == 3) {
    bool all = true;
    for (int k = 0; all && k < 3; k++)
      all = n->in[k] && (tracked(p, n->in[k]) || is_init(n->in[k])) &&
            (k == 0 || numel(n->in[k]) == 1);
    if (all) {
      sources(p, n->in[0], depth + 1);
      for (int k = 1; k < 3; k++)
        if (tracked(p, n->in[k]))
          ask(p, n->in[k]);
      return;
    }
  }
  ask(p, v);
}

/* The tracked value an untracked one carries through NNS__ATTN_KEEP ops
 * (a mask cast to the scores' dtype: PyTorch's math SDPA upcasts a 16-bit
 * one to float32), or v itself; NULL for an omitted input. */
static const nns__value *behind(const pick *p, const nns__value *v) {
  for (int k = 0; k < MAX_DEPTH && v && !tracked(p, v); k++) {
    const nns__node *n = v->producer;
    if (!n || mark(n) != NNS__ATTN_KEEP || n->n_in < 1)
      break;
    v = n->in[0];
  }
  return v;
}

/* An operand that is neither tracked nor a constant: the scores. */
static bool activation(const pick *p, const nns__value *v) {
  return !tracked(p, behind(p, v)) && !is_init(v);
}

static bool makes_mask(uint8_t at) {
  return at == NNS__ATTN_KEEP || at == NNS__ATTN_SELECT ||
         (at >= NNS__ATTN_AND && at <= NNS__ATTN_GREATER_EQUAL);
}

static bool push(pick *p, size_t n, const nns__value *v) {
  if (n == p->cap_todo) {
    size_t cap = p->cap_todo ? 2 * p->cap_todo : 256;
    const nns__value **t = realloc(p->todo, cap * sizeof *t);
    if (!t)
      return !(p->nomem = true);
    p->todo = t;
    p->cap_todo = cap;
  }
  p->todo[n] = v;
  return true;
}

/* Asks for the tracked values an untracked mask v is made from through
 * makes_mask ops (initializers are the graph's own), when it is made from
 * nothing else within MAX_WALK values; else asks for nothing. */
static void made_from(pick *p, const nns__value *v) {
  size_t n_todo = 0, n_found = 0, n_seen = 0;
  uint32_t walk = ++p->walk;
  if (!push(p, n_todo++, v))
    return;
  while (n_todo) {
    v = p->todo[--n_todo];
    if (p->seen[v->index] == walk)
      continue;
    p->seen[v->index] = walk;
    n_seen++;
    if (tracked(p, v)) {
      p->found[n_found++] = v;
      continue;
    }
    if (is_init(v))
      continue;
    const nns__node *n = v->producer;
    if (!n || !makes_mask(mark(n)) || n_seen > MAX_WALK)
      return;
    for (int32_t k = 0; k < n->n_in; k++)
      if (n->in[k] && p->seen[n->in[k]->index] != walk &&
          !push(p, n_todo++, n->in[k]))
        return;
  }
  for (size_t k = 0; k < n_found; k++)
    sources(p, p->found[k], 0);
}

/* One Add or Where that applies a mask beside an activation. */
static void applied(pick *p, const nns__node *n, bool select) {
  nns__value *const *sides = n->in + (select ? 1 : 0);
  if (!activation(p, sides[0]) && !activation(p, sides[1]))
    return; /* mask arithmetic, not a mask applied */
  if (select && tracked(p, n->in[0]))
    sources(p, n->in[0], 0);
  for (int k = 0; k < 2; k++) {
    const nns__value *b = behind(p, sides[k]);
    if (tracked(p, b))
      sources(p, b, 0);
  }
  /* a mask too large to track: what it is made from */
  for (int k = 0; k < (select ? 1 : 2); k++) {
    const nns__value *s = select ? n->in[0] : sides[k];
    if (s && activation(p, s))
      made_from(p, s);
  }
}

static void pick_all(pick *p) {
  const nns__graph *g = p->m->graph;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    uint8_t at = mark(n);
    if (at == NNS__ATTN_BIAS && n->n_in == 2)
      applied(p, n, false);
    else if (at == NNS__ATTN_SELECT && n->n_in == 3)
      applied(p, n, true);
  }
  /* The one-number branches of every Where (0 and the dtype's lowest, the
   * fill of an additive mask): what tells a mask applied to the scores
   * from a bias even when the mask is too large to track (attention.c). */
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    if (mark(n) != NNS__ATTN_SELECT || n->n_in != 3)
      continue;
    for (int k = 1; k < 3; k++)
      if (tracked(p, n->in[k]) && numel(n->in[k]) == 1)
        ask(p, n->in[k]);
  }
}

static const nns__value *main_value(const nns_model *m, const char *name) {
  const char *key = name ? nns__intern_find(&m->strings, name) : NULL;
  return key ? nns__map_get(&m->graph->scope, key) : NULL;
}

nns_status nns_model_mask_inputs(const nns_model *m,
                                 const char *const *names, size_t n,
                                 size_t *wanted, size_t *n_wanted,
                                 nns_error *err) {
  if (!m || !n_wanted || (n && (!names || !wanted)))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_mask_inputs needs a model, the tracked names "
                    "and room for the answer");
  *n_wanted = 0;
  if (!m->inferred || !m->graph)
    return nns__err(err, NNS_E_STATE, -1, NULL,
                    "nns_model_mask_inputs reads inferred types: call "
                    "nns_model_infer first");
  if (n > UINT32_MAX - 1)
    return nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "nns_model_mask_inputs: %zu tracked names", n);
  pick p = {.m = m};
  size_t nv = m->n_values ? m->n_values : 1;
  p.pos = calloc(nv, sizeof *p.pos);
  p.seen = calloc(nv, sizeof *p.seen);
  p.found = malloc(nv * sizeof *p.found);
  p.asked = calloc(n ? n : 1, 1);
  p.out = wanted;
  nns_status st = NNS_OK;
  if (!p.pos || !p.seen || !p.found || !p.asked) {
    st = nns__err(err, NNS_E_NOMEM, -1, NULL,
                  "out of memory while picking mask inputs");
  } else {
    bool any = false;
    for (size_t i = 0; i < n; i++) {
      const nns__value *v = main_value(m, names[i]);
      if (v && !p.pos[v->index]) {
        p.pos[v->index] = (uint32_t)i + 1;
        any = true;
      }
    }
    if (any)
      pick_all(&p);
    if (p.nomem)
      st = nns__err(err, NNS_E_NOMEM, -1, NULL,
                    "out of memory while picking mask inputs");
    else
      *n_wanted = p.n_out;
  }
  free(p.pos);
  free(p.seen);
  free(p.todo);
  free(p.found);
  free(p.asked);
  return st;
}

nns_status nns_model_set_value_data(nns_model *m, const char *const *names,
                                    size_t n_names, int dtype, int rank,
                                    const int64_t *dims, const void *data,
                                    size_t size, nns_error *err) {
  if (!m || !m->graph || !n_names || !names || !data)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_set_value_data needs a built model, at least "
                    "one name and the data");
  for (size_t i = 0; i < n_names; i++)
    if (!main_value(m, names[i]))
      return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                      "contents of '%.200s': the main graph has no value of "
                      "that name", names[i] ? names[i] : "(NULL)");
  nns__tensor *t;
  nns_status st = nns__model_tensor(m, "contents of", names[0], dtype, rank,
                                    dims, data, size, false, &t, err);
  if (st)
    return st;
  for (size_t i = 0; i < n_names; i++)
    ((nns__value *)main_value(m, names[i]))->known = t;
  return NNS_OK;
}
