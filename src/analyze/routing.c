/*
 * routing.c - the experts of a mixture-of-experts layer, found from what
 * ran: a graph whose nodes carry module paths (a torch.export archive, a
 * recording) and that declares no experts (nns_model_set_experts) is read
 * for routers (docs/metrics.md, "Experts").
 *
 * A router is a TopK of constant k over an axis of E > k entries; its
 * rows are the tokens one call routes. The experts are the module near
 * the router (its own module, its parent or grandparent, and what they
 * hold) that holds E experts: a list of E members named 0 .. E-1 that is
 * never called itself (a ModuleList), or a module whose own parameters
 * all have E as their leading dim, one at least 3-D (transformers'
 * grouped experts, gate_up_proj (E, 2I, H); the router's (E, H) weight is
 * 2-D and never taken for them). Holding E of something is not enough: a
 * classifier with E heads that returns its top-k classes has both. They
 * are experts only when the router's indices select among them, read
 * forward from the indices through the nodes the router's module ran:
 *  - members of a list are called per routed group: each member that ran
 *    takes in a value the indices reach that no other member takes in;
 *  - stacked experts meet the routing: a node reads their weights (or a
 *    view or constant slice of them) with a value the indices reach, or a
 *    node of the experts module itself reads one.
 * The last router over a module wins (DeepSeek picks groups first).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* Modules near the router are looked for this many levels up: the router
 * is the MoE block or its child (`mlp.gate`), the experts a sibling. */
enum { LEVELS = 2 };

/* True when `name` is `path` (of length n) or below it. */
static bool under_n(const char *name, const char *path, size_t n) {
  return n == 0 ||
         (name && strncmp(name, path, n) == 0 && (!name[n] || name[n] == '.'));
}

static const char *scope_of(const nns__node *n) {
  return n->scope ? n->scope : "";
}

/* The work of one search: the main graph, per value flags (by
 * nns__value.index) reset between uses. */
typedef struct search {
  const nns_model *m;
  const nns__graph *g;
  bool *reach;    /* carried forward from the router's indices */
  bool *weights;  /* the experts' weights and what views make of them */
  int32_t *owner; /* member that made / first took in a value; -1 none,
                     -2 taken in by two members */
  bool *param;    /* a trainable or frozen parameter */
  bool nomem;
} search;

/* A parameter (trainable or frozen, not a buffer or constant) of the main
 * graph: an initializer. */
static bool is_param(const search *s, const nns__value *v) {
  return v->init && s->param[v->index];
}

/* Appends a candidate module path (a copy of path[0..n)) to *list unless
 * there; its first parameter's index orders it. */
typedef struct cand {
  char *path;
  size_t first;
} cand;

static bool add_cand(cand **list, size_t *count, size_t *cap,
                     const char *path, size_t n, size_t first) {
  for (size_t i = 0; i < *count; i++)
    if (strlen((*list)[i].path) == n && !strncmp((*list)[i].path, path, n))
      return true;
  if (*count == *cap) {
    size_t c = *cap ? *cap * 2 : 8;
    cand *l = realloc(*list, c * sizeof *l);
    if (!l)
      return false;
    *list = l;
    *cap = c;
  }
  char *s = malloc(n + 1);
  if (!s)
    return false;
  memcpy(s, path, n);
  s[n] = 0;
  (*list)[(*count)++] = (cand){s, first};
  return true;
}

static int by_first(const void *x, const void *y) {
  const cand *a = x, *b = y;
  if (a->first != b->first)
    return a->first < b->first ? -1 : 1;
  size_t la = strlen(a->path), lb = strlen(b->path);
  return la < lb ? -1 : la > lb;
}

/* Whether the module `p` (length n) holds E stacked experts: every own
 * parameter's leading dim is E, one at least 3-D. */
static bool stacked(const search *s, const char *p, size_t n, int64_t e) {
  bool any = false, deep = false;
  for (int32_t i = 0; i < s->g->n_inits; i++) {
    const nns__value *v = s->g->inits[i];
    if (!is_param(s, v) || !under_n(v->name, p, n))
      continue;
    const char *rest = v->name + n + (n ? 1 : 0);
    if (!*rest || strchr(rest, '.'))
      continue; /* a child's, or the module's own name */
    const nns__tensor *t = v->init;
    if (t->rank < 1 || t->dims[0] != e)
      return false;
    any = true;
    deep |= t->rank >= 3;
  }
  return any && deep;
}

/* Whether the module `p` (length n) is a list of E members 0 .. E-1
 * (their parameters' names say so) that was never called itself. */
static bool member_list(const search *s,
                        const char *p, size_t n, int64_t e) {
  if (e < 2)
    return false;
  char key[512];
  if (n >= sizeof key)
    return false;
  memcpy(key, p, n);
  key[n] = 0;
  const char *interned = nns__intern_find(&s->m->strings, key);
  const nns__module_decl *d =
      interned ? nns__module_find(s->m, interned) : NULL;
  if (d && d->call_count > 0 && d->class_name &&
      !strstr(d->class_name, "ModuleList"))
    return false; /* called: a Sequential, not a list of experts */
  bool *seen = calloc((size_t)e, sizeof *seen);
  if (!seen)
    return false;
  bool ok = true;
  int64_t count = 0;
  for (int32_t i = 0; ok && i < s->g->n_inits; i++) {
    const nns__value *v = s->g->inits[i];
    if (!is_param(s, v) || !under_n(v->name, p, n))
      continue;
    const char *rest = v->name + n + (n ? 1 : 0);
    char *end;
    long long k = strtoll(rest, &end, 10);
    if (end == rest || *end != '.' || rest[0] == '-' || rest[0] == '+' ||
        (rest[0] == '0' && end - rest > 1) || k >= e) {
      ok = false; /* a parameter of its own, or a child not 0 .. E-1 */
      break;
    }
    if (!seen[k]) {
      seen[k] = true;
      count++;
    }
  }
  free(seen);
  return ok && count == e;
}

/* The modules below `path` holding E experts, outermost (in parameter
 * order) first: *out malloc'ed, its paths too. */
static bool experts_in(const search *s,
                       const char *path, int64_t e, cand **out,
                       size_t *count) {
  size_t cap = 0, n = strlen(path);
  cand *all = NULL;
  size_t n_all = 0;
  *out = NULL;
  *count = 0;
  /* Every module path that holds a parameter below `path` (each prefix of
   * a parameter's name), in parameter order. */
  for (int32_t i = 0; i < s->g->n_inits; i++) {
    const nns__value *v = s->g->inits[i];
    if (!is_param(s, v) || !under_n(v->name, path, n))
      continue;
    if (!add_cand(&all, &n_all, &cap, v->name, n, (size_t)i))
      goto nomem;
    const char *from = v->name + n + (n ? 1 : 0);
    for (const char *dot = strchr(from, '.'); dot; dot = strchr(dot + 1, '.'))
      if (!add_cand(&all, &n_all, &cap, v->name, (size_t)(dot - v->name),
                    (size_t)i))
        goto nomem;
  }
  size_t keep_cap = 0;
  for (size_t i = 0; i < n_all; i++) {
    size_t len = strlen(all[i].path);
    if ((member_list(s, all[i].path, len, e) ||
         stacked(s, all[i].path, len, e)) &&
        !add_cand(out, count, &keep_cap, all[i].path, len, all[i].first))
      goto nomem;
  }
  for (size_t i = 0; i < n_all; i++)
    free(all[i].path);
  free(all);
  if (*count > 1)
    qsort(*out, *count, sizeof **out, by_first);
  return true;
nomem:
  for (size_t i = 0; i < n_all; i++)
    free(all[i].path);
  free(all);
  return false;
}

/* Values the data flow carries forward from `start` over nodes
 * [from, end) of the main graph (in execution order: one pass). */
static void reach_from(search *s, const nns__value *start, int32_t from,
                       int32_t end) {
  memset(s->reach, 0, s->m->n_values * sizeof *s->reach);
  s->reach[start->index] = true;
  for (int32_t j = from; j < end; j++) {
    const nns__node *n = &s->g->nodes[j];
    bool hit = false;
    for (int32_t k = 0; k < n->n_in && !hit; k++)
      hit = n->in[k] && s->reach[n->in[k]->index];
    for (int32_t k = 0; hit && k < n->n_out; k++)
      if (n->out[k])
        s->reach[n->out[k]->index] = true;
  }
}

/* The member segment of `scope` below prefix p (length n): [*seg, +len). */
static bool member_of(const char *scope, const char *p, size_t n,
                      const char **seg, size_t *len) {
  if (n) {
    if (strncmp(scope, p, n) != 0 || scope[n] != '.')
      return false;
    scope += n + 1;
  }
  const char *dot = strchr(scope, '.');
  *seg = scope;
  *len = dot ? (size_t)(dot - scope) : strlen(scope);
  return *len > 0;
}

/* Whether the members of list `p` ran per routed group over nodes
 * [first, end). */
static bool members_routed(search *s, const char *p, int32_t first,
                           int32_t end) {
  enum { MEMBERS = 1024 }; /* more members than this: not read as experts */
  size_t n = strlen(p);
  const char *segs[MEMBERS];
  size_t lens[MEMBERS];
  int32_t n_members = 0;
  for (uint32_t v = 0; v < s->m->n_values; v++)
    s->owner[v] = -1;
  int32_t *made = malloc(s->m->n_values * sizeof *made);
  if (!made) {
    s->nomem = true;
    return false;
  }
  for (uint32_t v = 0; v < s->m->n_values; v++)
    made[v] = -1;
  bool ok = true;
  for (int32_t j = first; ok && j < end; j++) {
    const nns__node *node = &s->g->nodes[j];
    const char *seg;
    size_t len;
    if (!member_of(scope_of(node), p, n, &seg, &len))
      continue;
    int32_t id = 0;
    while (id < n_members && (lens[id] != len || strncmp(segs[id], seg, len)))
      id++;
    if (id == n_members) {
      if (n_members == (int32_t)(sizeof segs / sizeof *segs)) {
        ok = false;
        break;
      }
      segs[n_members] = seg;
      lens[n_members++] = len;
    }
    for (int32_t k = 0; k < node->n_in; k++) {
      const nns__value *v = node->in[k];
      if (!v || made[v->index] == id)
        continue;
      int32_t *o = &s->owner[v->index];
      *o = *o == -1 || *o == id ? id : -2;
    }
    for (int32_t k = 0; k < node->n_out; k++)
      if (node->out[k])
        made[node->out[k]->index] = id;
  }
  free(made);
  if (!ok || n_members == 0)
    return false;
  bool *fed = calloc((size_t)n_members, sizeof *fed);
  if (!fed) {
    s->nomem = true;
    return false;
  }
  for (uint32_t v = 0; v < s->m->n_values; v++)
    if (s->owner[v] >= 0 && s->reach[v])
      fed[s->owner[v]] = true;
  for (int32_t i = 0; i < n_members && ok; i++)
    ok = fed[i];
  free(fed);
  return ok;
}

/* Whether stacked experts at `p` meet the routing over nodes [first, end). */
static bool stacked_routed(search *s, const char *p, int32_t first,
                           int32_t end) {
  size_t n = strlen(p);
  memset(s->weights, 0, s->m->n_values * sizeof *s->weights);
  for (int32_t i = 0; i < s->g->n_inits; i++)
    if (under_n(s->g->inits[i]->name, p, n))
      s->weights[s->g->inits[i]->index] = true;
  for (int32_t j = first; j < end; j++) {
    const nns__node *node = &s->g->nodes[j];
    bool reached = false, weighted = false, all_fixed = true;
    for (int32_t k = 0; k < node->n_in; k++) {
      const nns__value *v = node->in[k];
      if (!v)
        continue;
      bool w = s->weights[v->index];
      weighted |= w;
      reached |= !w && s->reach[v->index];
      all_fixed &= w || v->init != NULL;
    }
    /* (the model itself holding them says nothing: all runs inside it) */
    if (n && under_n(scope_of(node), p, n) && reached)
      return true;
    if (!weighted)
      continue;
    if (reached)
      return true;
    if (all_fixed)
      for (int32_t k = 0; k < node->n_out; k++)
        if (node->out[k])
          s->weights[node->out[k]->index] = true;
  }
  return false;
}

/* Appends (or replaces: the last router wins) a layer's experts. */
static bool found(nns__routed_experts *r, const char *path,
                  const nns__experts_decl *d) {
  for (size_t i = 0; i < r->count; i++)
    if (!strcmp(r->paths[i], path)) {
      r->decls[i] = *d;
      return true;
    }
  if (r->count % 8 == 0) {
    const char **p = realloc(r->paths, (r->count + 8) * sizeof *p);
    if (!p)
      return false;
    r->paths = p;
    nns__experts_decl *q = realloc(r->decls, (r->count + 8) * sizeof *q);
    if (!q)
      return false;
    r->decls = q;
  }
  char *s = strdup(path);
  if (!s)
    return false;
  r->paths[r->count] = s;
  r->decls[r->count++] = *d;
  return true;
}

/* k, E and the rows of a router, or false when node n is none. */
static bool router(const nns__node *n, nns__experts_decl *d) {
  if (strcmp(n->op_type, "TopK") != 0 || (n->domain && n->domain[0]) ||
      n->n_in < 2 || n->n_out < 2 || !n->in[0] || !n->in[1] || !n->out[1])
    return false;
  const nns__const *k = n->in[1]->cval;
  const nns__type *x = &n->in[0]->type;
  if (!k || k->numel < 1 || !k->i || k->i[0].sym || x->rank < 1)
    return false;
  int64_t axis = -1;
  for (int32_t i = 0; i < n->n_attrs; i++)
    if (!strcmp(n->attrs[i].name, "axis") && n->attrs[i].type == NNS__AT_INT)
      axis = n->attrs[i].i;
  axis = (axis % x->rank + x->rank) % x->rank;
  int64_t rows = 1;
  for (int r = 0; r < x->rank; r++)
    if (x->dims[r].sym || x->dims[r].v < 1 ||
        (r != axis && __builtin_mul_overflow(rows, x->dims[r].v, &rows)))
      return false;
  d->active = k->i[0].v;
  d->total = x->dims[axis].v;
  d->tokens = rows;
  return d->active > 0 && d->active < d->total && d->total <= NNS_EXPERTS_MAX;
}

/* The layer at `path` around the router at node index `at`: the nodes
 * next to it its module ran (a module's call is contiguous). */
static void block_of(const nns__graph *g, int32_t at, const char *path,
                     int32_t *first, int32_t *end) {
  size_t n = strlen(path);
  *first = at;
  *end = at + 1;
  while (*first > 0 && under_n(scope_of(&g->nodes[*first - 1]), path, n))
    (*first)--;
  while (*end < g->n_nodes && under_n(scope_of(&g->nodes[*end]), path, n))
    (*end)++;
}

/* The experts one router routes among, added to *r. */
static bool route(search *s, int32_t at,
                  const nns__experts_decl *d, nns__routed_experts *r) {
  char path[1024];
  const char *scope = scope_of(&s->g->nodes[at]);
  if (strlen(scope) >= sizeof path)
    return true;
  strcpy(path, scope);
  for (int level = 0; level <= LEVELS; level++) {
    cand *hits;
    size_t n_hits;
    if (!experts_in(s, path, d->total, &hits, &n_hits))
      return false;
    const char *pick = NULL;
    if (n_hits) {
      int32_t first, end;
      block_of(s->g, at, path, &first, &end);
      reach_from(s, s->g->nodes[at].out[1], at + 1, end);
      for (size_t i = 0; i < n_hits && !pick && !s->nomem; i++) {
        const char *h = hits[i].path;
        bool list = member_list(s, h, strlen(h), d->total);
        if (list ? members_routed(s, h, first, end)
                 : stacked_routed(s, h, first, end))
          pick = h;
      }
    }
    bool ok = !s->nomem && (!pick || found(r, pick, d));
    for (size_t i = 0; i < n_hits; i++)
      free(hits[i].path);
    free(hits);
    if (!ok)
      return false;
    if (pick || !path[0])
      return true;
    char *dot = strrchr(path, '.');
    if (dot)
      *dot = 0;
    else
      path[0] = 0;
  }
  return true;
}

bool nns__experts_routed(const nns_model *m, const nns__analysis *a,
                         nns__routed_experts *r) {
  *r = (nns__routed_experts){0};
  const nns__graph *g = a->main;
  bool scoped = false, routers = false;
  nns__experts_decl d;
  for (int32_t j = 0; j < g->n_nodes; j++) {
    scoped |= g->nodes[j].scope != NULL;
    routers |= router(&g->nodes[j], &d);
  }
  if (!scoped || !routers)
    return true;
  search s = {.m = m, .g = g};
  s.reach = calloc(m->n_values + 1, sizeof *s.reach);
  s.weights = calloc(m->n_values + 1, sizeof *s.weights);
  s.owner = calloc(m->n_values + 1, sizeof *s.owner);
  s.param = calloc(m->n_values + 1, sizeof *s.param);
  bool ok = s.reach && s.weights && s.owner && s.param;
  for (size_t i = 0; ok && i < a->n_params; i++) {
    const nns_param_info *p = &a->params[i];
    const nns__value *v = p->name ? nns__map_get(&g->scope, p->name) : NULL;
    if (v && (p->kind == NNS_PARAM_TRAINABLE || p->kind == NNS_PARAM_FROZEN))
      s.param[v->index] = true;
  }
  for (int32_t j = 0; ok && j < g->n_nodes; j++)
    if (router(&g->nodes[j], &d))
      ok = route(&s, j, &d, r);
  free(s.reach);
  free(s.weights);
  free(s.owner);
  free(s.param);
  return ok;
}

void nns__routed_experts_free(nns__routed_experts *r) {
  for (size_t i = 0; i < r->count; i++)
    free((char *)r->paths[i]);
  free(r->paths);
  free(r->decls);
  *r = (nns__routed_experts){0};
}
