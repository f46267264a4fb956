/*
 * parallel.c - one rank of a parallel training job (nns_model_set_parallel):
 * the rank's parameter, gradient and optimizer shards, its saved bytes,
 * its step peak, its FLOPs and the bytes its collectives move per step
 * (docs/metrics.md, "Per rank").
 *
 * The graph is the rank's own: its inputs are the rank's local batch and
 * the tensor-parallel modules' weights are already their local shards (the
 * binding recorded them so), so FLOPs, MACs and what autograd saves are
 * the graph's. What this file adds is what the graph cannot show:
 *
 *   - FSDP (fsdp > 1) shards every parameter of a unit (the root and one
 *     module per decoder block) along dim 0 as FSDP2 does, torch.chunk's
 *     way: rank 0 keeps ceil(d0 / fsdp) rows; the unit's all-gather output
 *     is fsdp times that (the padded buffer). A block is gathered in the
 *     forward and again in the backward; the root once. Each unit's
 *     gradients are reduce-scattered once (the full padded input).
 *   - DP (dp > 1) all-reduces the local gradient shards once per step
 *     (over dp x ep for parameters that are not experts').
 *   - TP: a column-split module all-reduces its input gradient in the
 *     backward (its input's bytes), a row-split one its output in the
 *     forward (its output's bytes), once per call.
 *   - EP: an MoE module's experts (its direct children, or dim 0 of its
 *     own stacked parameters) are spread over ep ranks; its tokens go out
 *     and come back by all-to-all in the forward and again in the
 *     backward: four send buffers of output bytes x top-k.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* The plan as given: one malloc'ed block (m->parallel); strings are
 * interned in the model. */
typedef struct nns__parallel {
  int64_t dp, fsdp, tp, ep;
  size_t n_mesh, n_units, n_tp, n_ep;
  const char **mesh_name;
  int64_t *mesh_size;
  const char **unit;
  const char **tp_path;
  int *tp_style;
  const char **ep_path;
  int64_t *ep_topk;
  int64_t budget;
  size_t n_logical;          /* parameters' logical sizes (tp > 1) */
  const char **logical_name;
  int64_t *logical_elements;
} nns__parallel;

#define NNS__COMM_NAME_CASE_(name, num, str) \
  case num:                                  \
    return str;
const char *nns_comm_kind_name(int kind) {
  switch (kind) { NNS_COMM_KIND_MAP(NNS__COMM_NAME_CASE_) }
  return NULL;
}
const char *nns_tp_style_name(int style) {
  switch (style) { NNS_TP_STYLE_MAP(NNS__COMM_NAME_CASE_) }
  return NULL;
}
#undef NNS__COMM_NAME_CASE_

static int64_t add_sat(int64_t a, int64_t b) {
  int64_t r;
  return nns__add_i64(a, b, &r) ? r : (b < 0 ? INT64_MIN : INT64_MAX);
}

static int64_t mul_sat(int64_t a, int64_t b) {
  int64_t r;
  return nns__mul_i64(a, b, &r) ? r : INT64_MAX;
}

static int64_t axis(int64_t v) { return v > 1 ? v : 1; }

/* ==== Taking the plan ==== */

static const char *intern_or(nns_model *m, const char *s, bool *ok) {
  const char *r = nns__intern_cstr(&m->strings, s);
  if (!r)
    *ok = false;
  return r;
}

static size_t block_size(size_t nm, size_t nu, size_t nt, size_t ne,
                         size_t nl) {
  size_t n = (sizeof(nns__parallel) + 7) & ~(size_t)7;
  n += nm * (sizeof(char *) + sizeof(int64_t));
  n += nu * sizeof(char *) + nt * (sizeof(char *) + sizeof(int));
  n += ne * (sizeof(char *) + sizeof(int64_t));
  n += nl * (sizeof(char *) + sizeof(int64_t));
  return n + 80;
}

static nns_status check_paths(nns_error *err, const char *what, size_t n,
                              const char *const *paths) {
  if (n && !paths)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_parallel: %s is NULL for %zu entries", what, n);
  for (size_t i = 0; i < n; i++)
    if (!paths[i])
      return nns__err(err, NNS_E_ARG, -1, NULL, "nns_parallel: %s %zu is NULL",
                      what, i);
  return NNS_OK;
}

nns_status nns_model_set_parallel(nns_model *m, const nns_parallel *plan,
                                  nns_error *err) {
  if (!m)
    return nns__err(err, NNS_E_ARG, -1, NULL, "model is NULL");
  if (!plan) {
    free(m->parallel);
    m->parallel = NULL;
    return NNS_OK;
  }
  nns_parallel g;
  if (NNS__GET(&g, plan, NNS__SIZE_TO(nns_parallel, budget_bytes)) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_parallel.size is %zu, below the first version's %zu",
                    plan->size, (size_t)NNS__SIZE_TO(nns_parallel, budget_bytes));
  int64_t sizes[4] = {g.dp, g.fsdp, g.tp, g.ep};
  static const char *const names[4] = {"dp", "fsdp", "tp", "ep"};
  int64_t world = 1;
  for (int k = 0; k < 4; k++) {
    if (sizes[k] < 0 || sizes[k] > (1 << 24))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_parallel: %s is %lld (0 or 1: unused; at most "
                      "16777216)",
                      names[k], (long long)sizes[k]);
    world = mul_sat(world, axis(sizes[k]));
  }
  if (world > (1 << 24))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_parallel: a world of %lld ranks (at most 16777216)",
                    (long long)world);
  if (g.budget_bytes < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_parallel: negative budget %lld",
                    (long long)g.budget_bytes);
  nns_status st;
  if ((st = check_paths(err, "mesh_name", g.mesh_count, g.mesh_name)) ||
      (st = check_paths(err, "unit_path", g.unit_count, g.unit_path)) ||
      (st = check_paths(err, "tp_path", g.tp_count, g.tp_path)) ||
      (st = check_paths(err, "ep_path", g.ep_count, g.ep_path)) ||
      (st = check_paths(err, "logical_name", g.logical_count,
                        g.logical_name)))
    return st;
  if (g.logical_count > ((size_t)1 << 24) ||
      (g.logical_count && !g.logical_elements))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_parallel: %zu logical sizes without their counts",
                    g.logical_count);
  for (size_t i = 0; i < g.logical_count; i++)
    if (g.logical_elements[i] < 0 ||
        g.logical_elements[i] > (INT64_C(1) << 62))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_parallel: parameter '%s' has logical size %lld",
                      g.logical_name[i], (long long)g.logical_elements[i]);
  if ((g.mesh_count && !g.mesh_size) || (g.tp_count && !g.tp_style) ||
      (g.ep_count && !g.ep_topk))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_parallel: an array is NULL for a nonzero count");
  int64_t mesh_world = 1;
  for (size_t i = 0; i < g.mesh_count; i++) {
    if (g.mesh_size[i] < 1 || g.mesh_size[i] > (1 << 24))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_parallel: mesh dim '%s' has size %lld",
                      g.mesh_name[i], (long long)g.mesh_size[i]);
    mesh_world = mul_sat(mesh_world, g.mesh_size[i]);
  }
  if (g.mesh_count && mesh_world != world)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_parallel: the mesh has %lld ranks, dp x fsdp x tp x "
                    "ep %lld",
                    (long long)mesh_world, (long long)world);
  for (size_t i = 0; i < g.tp_count; i++)
    if (!nns_tp_style_name(g.tp_style[i]))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_parallel: module '%s' has tp style %d",
                      g.tp_path[i], g.tp_style[i]);
  for (size_t i = 0; i < g.ep_count; i++)
    if (g.ep_topk[i] < 1)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_parallel: MoE module '%s' has top-k %lld",
                      g.ep_path[i], (long long)g.ep_topk[i]);
  size_t nm = g.mesh_count ? g.mesh_count : 4;
  char *block = calloc(1, block_size(nm, g.unit_count, g.tp_count,
                                     g.ep_count, g.logical_count));
  if (!block)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  nns__parallel *p = (nns__parallel *)block;
  char *at = block + ((sizeof *p + 7) & ~(size_t)7);
#define NNS__TAKE(field, n)                                                    \
  do {                                                                         \
    p->field = (void *)at;                                                     \
    at += ((n) * sizeof *p->field + 7) & ~(size_t)7;                           \
  } while (0)
  NNS__TAKE(mesh_size, nm);
  NNS__TAKE(mesh_name, nm);
  NNS__TAKE(unit, g.unit_count);
  NNS__TAKE(tp_path, g.tp_count);
  NNS__TAKE(tp_style, g.tp_count);
  NNS__TAKE(ep_path, g.ep_count);
  NNS__TAKE(ep_topk, g.ep_count);
  NNS__TAKE(logical_name, g.logical_count);
  NNS__TAKE(logical_elements, g.logical_count);
#undef NNS__TAKE
  p->dp = axis(g.dp);
  p->fsdp = axis(g.fsdp);
  p->tp = axis(g.tp);
  p->ep = axis(g.ep);
  p->budget = g.budget_bytes;
  bool ok = true;
#define NNS__IN(s) intern_or(m, (s), &ok)
  if (g.mesh_count) {
    for (size_t i = 0; i < g.mesh_count; i++) {
      p->mesh_name[p->n_mesh] = NNS__IN(g.mesh_name[i]);
      p->mesh_size[p->n_mesh++] = g.mesh_size[i];
    }
  } else {
    for (int k = 0; k < 4; k++)
      if (sizes[k] > 1) {
        p->mesh_name[p->n_mesh] = NNS__IN(names[k]);
        p->mesh_size[p->n_mesh++] = sizes[k];
      }
  }
  for (size_t i = 0; i < g.unit_count; i++)
    p->unit[p->n_units++] = NNS__IN(g.unit_path[i]);
  for (size_t i = 0; i < g.tp_count; i++) {
    p->tp_path[p->n_tp] = NNS__IN(g.tp_path[i]);
    p->tp_style[p->n_tp++] = g.tp_style[i];
  }
  for (size_t i = 0; i < g.ep_count; i++) {
    p->ep_path[p->n_ep] = NNS__IN(g.ep_path[i]);
    p->ep_topk[p->n_ep++] = g.ep_topk[i];
  }
  for (size_t i = 0; i < g.logical_count; i++) {
    p->logical_name[p->n_logical] = NNS__IN(g.logical_name[i]);
    p->logical_elements[p->n_logical++] = g.logical_elements[i];
  }
#undef NNS__IN
  if (!ok) {
    free(block);
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  free(m->parallel);
  m->parallel = p;
  return NNS_OK;
}

/* ==== Counting ==== */

/* Whether dotted `name` is `path` or lies under it ("" holds all). */
static bool under(const char *name, const char *path) {
  size_t n = strlen(path);
  if (!n)
    return true;
  return !strncmp(name, path, n) && (name[n] == '.' || name[n] == 0);
}

/* The layer whose path is `path`, or -1. */
static size_t layer_at(const nns__analysis *a, const char *path) {
  for (size_t l = 0; l < a->n_layers; l++)
    if (!strcmp(a->layers[l].info.path, path))
      return l;
  return (size_t)-1;
}

static bool all_digits(const char *s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

/* The model's layer list: the layer with two or more children, every one
 * named by a number, holding the most parameters; -1 when none. */
static size_t layer_list(const nns__analysis *a) {
  size_t best = (size_t)-1;
  int64_t most = -1;
  for (size_t l = 0; l < a->n_layers; l++) {
    if (a->layers[l].info.child_count < 2)
      continue;
    bool numbered = true;
    for (size_t c = l + 1; c < a->layers[l].end && numbered; c++)
      if (nns__layer_up(a, c) == l)
        numbered = all_digits(a->layers[c].info.name);
    if (!numbered)
      continue;
    int64_t held = add_sat(a->layers[l].counts.params,
                           a->layers[l].counts.frozen);
    if (held > most) {
      most = held;
      best = l;
    }
  }
  return best;
}

/* The model's value named `name` (interned), or NULL: through `by_name`
 * (filled at the first call). */
static const nns__value *value_named(const nns_model *m, nns__map *by_name,
                                     const char *name, bool *nomem) {
  if (!by_name->count)
    for (size_t i = 0; i < m->n_values; i++)
      if (!nns__map_put(by_name, m->values[i]->name, m->values[i]))
        *nomem = true;
  return nns__map_get(by_name, name);
}

/* Bytes of the value of index v, 0 when unknown. */
static int64_t value_bytes_at(const nns_model *m, uint32_t v) {
  if (v == NNS__NONE32 || v >= m->n_values)
    return 0;
  bool sym = false;
  int64_t b = nns__value_bytes(m, m->values[v], &sym);
  return b > 0 ? b : 0;
}

/* One parameter on the rank: its local elements and bytes, and what its
 * unit's collectives move for it. */
typedef struct pshard {
  int64_t local, local_bytes; /* rank 0's shard */
  int64_t padded_bytes;       /* fsdp x the padded shard: the gathered size */
  size_t unit;                /* FSDP unit (n_units: the root) */
  bool expert;                /* spread over ep */
} pshard;

static pshard shard_of(const nns_model *m, const nns__analysis *a,
                       const nns__parallel *p, const char *const *units,
                       size_t n_units, const nns_param_info *pi,
                       nns__map *names, bool *nomem) {
  pshard s = {pi->elements, pi->bytes, pi->bytes, n_units, false};
  const nns__value *v = value_named(m, names, pi->name, nomem);
  int64_t d0 = 1;
  if (v && v->type.rank > 0 && v->type.dims && !v->type.dims[0].sym &&
      v->type.dims[0].v > 0)
    d0 = v->type.dims[0].v;
  if (d0 < 1 || pi->elements % d0)
    d0 = 1;
  int64_t rest = d0 ? pi->elements / d0 : 0;
  /* EP: experts' children beyond rank 0's share are not here */
  for (size_t e = 0; e < p->n_ep && p->ep > 1; e++) {
    if (!under(pi->name, p->ep_path[e]))
      continue;
    s.expert = true;
    const char *tail = pi->name + strlen(p->ep_path[e]);
    tail += *tail == '.';
    size_t l = layer_at(a, p->ep_path[e]);
    int64_t experts = 0;
    if (l != (size_t)-1)
      for (size_t c = l + 1; c < a->layers[l].end; c++)
        if (nns__layer_up(a, c) == l && all_digits(a->layers[c].info.name))
          experts++;
    const char *dot = strchr(tail, '.');
    if (experts > 0 && dot) {
      long k = strtol(tail, NULL, 10);
      int64_t keep = (experts + p->ep - 1) / p->ep;
      if (k >= keep)
        rest = 0;
    } else {
      d0 = (d0 + p->ep - 1) / p->ep; /* stacked experts: dim 0 */
    }
    break;
  }
  int64_t rows = p->fsdp > 1 ? (d0 + p->fsdp - 1) / p->fsdp : d0;
  s.local = mul_sat(rows, rest);
  int64_t per = pi->elements > 0 ? pi->bytes / pi->elements : 0;
  s.local_bytes = mul_sat(s.local, per);
  s.padded_bytes = mul_sat(s.local_bytes, p->fsdp);
  size_t best = 0;
  for (size_t u = 0; u < n_units; u++)
    if (under(pi->name, units[u]) && strlen(units[u]) >= best) {
      best = strlen(units[u]);
      s.unit = u;
    }
  return s;
}

/* The step's peak on the rank for an fsdp of `fsdp` (the plan's, or a
 * doubled one for `grow`). */
typedef struct rank_sums {
  int64_t params, param_bytes, grad_bytes, opt_bytes, buffer_bytes;
  int64_t graph_grad_bytes;   /* the graph's trainable bytes (unsharded) */
  int64_t root_full, block_full; /* FSDP's gathered bytes */
  int64_t rs_most;            /* the largest unit's reduce-scatter input */
  int64_t done_full;          /* the blocks done before the peak: their
                                 gradients' unsharded bytes */
  int64_t done_rs;            /* the last of them: its reduce-scatter input */
} rank_sums;

static int64_t rank_peak(const nns__analysis *a, const rank_sums *r,
                         int64_t fsdp, int64_t dp, bool *estimate) {
  const nns_totals *t = &a->totals;
  int64_t stat = add_sat(add_sat(r->param_bytes, r->buffer_bytes),
                         add_sat(r->opt_bytes, t->input_bytes));
  /* DDP's buckets: a flat copy of every gradient, kept from its
   * construction on (gradient_as_bucket_view off, its default) */
  if (dp > 1 && fsdp == 1)
    stat = add_sat(stat, r->grad_bytes);
  /* FSDP2's gathered parameters are copies out of the all-gather, beside
   * the shards: the root's stays gathered for the step (it is not
   * resharded after its forward), and a block's beside the next one's
   * prefetched */
  int64_t gathered = 0;
  if (fsdp > 1)
    gathered = add_sat(r->root_full, mul_sat(r->block_full, 2));
  if (t->train_step) {
    *estimate = false;
    int64_t base = add_sat(add_sat(t->param_bytes_unique,
                                   t->train_optimizer_bytes),
                           t->input_bytes);
    int64_t step = t->train_peak_bytes - base;
    /* the gradients the recording holds at its peak are the unsharded
     * ones made so far: in the backward, the blocks done before it hold
     * their shards instead, beside the last one's reduce-scatter input
     * (the root's and the peak's own block's are not reduced yet); in
     * the optimizer step every gradient is a shard */
    if (fsdp > 1 && t->train_peak_phase == NNS_TRAIN_BACKWARD && r->done_full)
      step -= r->done_full - r->done_full / fsdp - r->done_rs;
    else if (fsdp > 1 && t->train_peak_phase == NNS_TRAIN_OPTIMIZER)
      step -= r->graph_grad_bytes - r->grad_bytes;
    return add_sat(add_sat(stat, step > 0 ? step : 0), gathered);
  }
  *estimate = true;
  return add_sat(add_sat(add_sat(stat, r->grad_bytes),
                         t->train_activation_bytes),
                 add_sat(gathered, fsdp > 1 ? r->rs_most : 0));
}

static rank_sums sums_for(const nns_model *m, nns__analysis *a,
                          const nns__parallel *p, const char *const *units,
                          size_t n_units, nns_optimizer opt,
                          nns_per_rank *lay, int64_t *unit_ag,
                          int64_t *unit_rs, nns__map *names, bool *nomem) {
  rank_sums r = {0};
  int64_t *unit_full = unit_ag;
  for (size_t i = 0; i < a->n_params; i++) {
    const nns_param_info *pi = &a->params[i];
    if (pi->is_copy || pi->kind == NNS_PARAM_CONSTANT)
      continue;
    if (pi->kind == NNS_PARAM_BUFFER) {
      r.buffer_bytes = add_sat(r.buffer_bytes, pi->bytes);
      continue;
    }
    pshard s = shard_of(m, a, p, units, n_units, pi, names, nomem);
    bool train = pi->kind == NNS_PARAM_TRAINABLE;
    int64_t ob = train ? nns__optimizer_param_bytes(opt, a->train_master,
                                                    pi->dtype, s.local,
                                                    s.local_bytes)
                       : 0;
    if (train && s.local == 0 && ob >= 4)
      ob = 0; /* an expert this rank does not hold: no state at all */
    r.params = add_sat(r.params, s.local);
    r.param_bytes = add_sat(r.param_bytes, s.local_bytes);
    r.opt_bytes = add_sat(r.opt_bytes, ob);
    if (train) {
      r.grad_bytes = add_sat(r.grad_bytes, s.local_bytes);
      r.graph_grad_bytes = add_sat(r.graph_grad_bytes,
                                   mul_sat(s.local_bytes, p->fsdp));
    }
    if (unit_full) {
      unit_full[s.unit] = add_sat(unit_full[s.unit], s.padded_bytes);
      if (train)
        unit_rs[s.unit] = add_sat(unit_rs[s.unit], s.padded_bytes);
    }
    if (lay) {
      nns_per_rank *l = &lay[pi->layer < a->n_layers ? pi->layer : 0];
      l->params = add_sat(l->params, s.local);
      l->param_bytes = add_sat(l->param_bytes, s.local_bytes);
      l->optimizer_bytes = add_sat(l->optimizer_bytes, ob);
      if (train) {
        l->grad_bytes = add_sat(l->grad_bytes, s.local_bytes);
        /* DP: the local gradient shards are all-reduced over dp (and ep
         * for what is not an expert's) */
        int64_t group = s.expert ? p->dp : p->dp * p->ep;
        if (group > 1)
          l->comm[NNS_COMM_ALL_REDUCE] =
              add_sat(l->comm[NNS_COMM_ALL_REDUCE], s.local_bytes);
      }
    }
  }
  if (unit_full) {
    r.root_full = unit_full[n_units];
    for (size_t u = 0; u < n_units; u++)
      if (unit_full[u] > r.block_full)
        r.block_full = unit_full[u];
    for (size_t u = 0; u <= n_units; u++)
      if (unit_rs[u] > r.rs_most)
        r.rs_most = unit_rs[u];
  }
  return r;
}

/* The blocks whose backward is done at the recording's peak: those the
 * forward runs after the peak's module (later in preorder, not holding
 * it), the backward going the other way. */
static void blocks_done(const nns__analysis *a, const char *const *units,
                        size_t n_units, const int64_t *rs, rank_sums *r) {
  const nns_totals *t = &a->totals;
  if (!t->train_step || t->train_peak_phase != NNS_TRAIN_BACKWARD)
    return;
  const char *path = t->train_peak_path ? t->train_peak_path : "";
  size_t pl = layer_at(a, path);
  if (pl == (size_t)-1)
    return;
  size_t last = (size_t)-1;
  for (size_t u = 0; u < n_units; u++) {
    size_t ul = layer_at(a, units[u]);
    if (ul == (size_t)-1 || ul <= pl || ul < a->layers[pl].end)
      continue;
    r->done_full = add_sat(r->done_full, rs[u]);
    if (last == (size_t)-1 || ul < last) {
      last = ul;
      r->done_rs = rs[u];
    }
  }
}

static void logical_totals(nns__analysis *a, const nns__parallel *p);

nns_status nns__parallel_analyze(nns_model *m, nns__analysis *a,
                                 nns_optimizer opt, nns_error *err) {
  const nns__parallel *p = m->parallel;
  memset(&a->per_rank, 0, sizeof a->per_rank);
  a->per_rank.size = sizeof a->per_rank;
  if (!p)
    return NNS_OK;
  size_t nl = a->n_layers;
  nns_per_rank *lay = nns__arena_array(&a->arena, nl + 1, sizeof *lay);
  const char **units = NULL;
  size_t n_units = p->n_units;
  if (!lay)
    goto nomem;
  /* the units: as given, else the layer list's children */
  if (p->fsdp > 1 && !n_units) {
    size_t list = layer_list(a);
    size_t kids = list == (size_t)-1 ? 0 : a->layers[list].info.child_count;
    units = nns__arena_array(&a->arena, kids + 1, sizeof *units);
    if (!units)
      goto nomem;
    for (size_t c = list + 1; kids && c < a->layers[list].end; c++)
      if (nns__layer_up(a, c) == list)
        units[n_units++] = a->layers[c].info.path;
  } else {
    units = nns__arena_array(&a->arena, n_units + 1, sizeof *units);
    if (!units)
      goto nomem;
    for (size_t u = 0; u < n_units; u++)
      units[u] = p->unit[u];
  }
  int64_t *ag = nns__arena_array(&a->arena, n_units + 1, sizeof *ag);
  int64_t *rs = nns__arena_array(&a->arena, n_units + 1, sizeof *rs);
  if (!ag || !rs)
    goto nomem;
  nns__map names = {0};
  bool nomem = false;
  rank_sums r = sums_for(m, a, p, units, n_units, opt, lay, ag, rs, &names,
                         &nomem);
  blocks_done(a, units, n_units, rs, &r);

  /* FSDP: per unit, the all-gathers (a block twice, the root once) and
   * the reduce-scatter, at the unit's layer */
  if (p->fsdp > 1)
    for (size_t u = 0; u <= n_units; u++) {
      size_t l = u == n_units ? 0 : layer_at(a, units[u]);
      if (l == (size_t)-1)
        l = 0;
      int64_t times = u == n_units ? 1 : 2;
      lay[l].comm[NNS_COMM_ALL_GATHER] =
          add_sat(lay[l].comm[NNS_COMM_ALL_GATHER], mul_sat(ag[u], times));
      lay[l].comm[NNS_COMM_REDUCE_SCATTER] =
          add_sat(lay[l].comm[NNS_COMM_REDUCE_SCATTER], rs[u]);
    }
  /* TP: a column-split module's input gradient, a row-split one's
   * output, all-reduced once per call */
  for (size_t i = 0; i < p->n_tp && p->tp > 1; i++) {
    size_t l = layer_at(a, p->tp_path[i]);
    if (l == (size_t)-1)
      continue;
    const nns__linfo *li = &a->layers[l].info;
    int64_t calls = li->call_count > 0 ? (int64_t)li->call_count : 1;
    uint32_t v = p->tp_style[i] == NNS_TP_COLWISE ? li->input_value
                                                : li->output_value;
    lay[l].comm[NNS_COMM_ALL_REDUCE] =
        add_sat(lay[l].comm[NNS_COMM_ALL_REDUCE],
                mul_sat(value_bytes_at(m, v), calls));
  }
  /* EP: dispatch and combine, forward and backward */
  for (size_t i = 0; i < p->n_ep && p->ep > 1; i++) {
    size_t l = layer_at(a, p->ep_path[i]);
    if (l == (size_t)-1)
      continue;
    const nns__linfo *li = &a->layers[l].info;
    int64_t calls = li->call_count > 0 ? (int64_t)li->call_count : 1;
    /* the tokens' hidden states: what the experts give back (their
     * first input may be the router's weights) */
    int64_t send = mul_sat(value_bytes_at(m, li->output_value),
                           p->ep_topk[i]);
    lay[l].comm[NNS_COMM_ALL_TO_ALL] = add_sat(
        lay[l].comm[NNS_COMM_ALL_TO_ALL], mul_sat(mul_sat(send, 4), calls));
  }
  /* over subtrees: children come after their parent in preorder */
  for (size_t l = nl; l-- > 1;) {
    size_t up = nns__layer_up(a, l);
    nns_per_rank *c = &lay[l], *u = &lay[up];
    u->params = add_sat(u->params, c->params);
    u->param_bytes = add_sat(u->param_bytes, c->param_bytes);
    u->grad_bytes = add_sat(u->grad_bytes, c->grad_bytes);
    u->optimizer_bytes = add_sat(u->optimizer_bytes, c->optimizer_bytes);
    for (int k = 0; k < NNS_COMM_KIND_COUNT; k++)
      u->comm[k] = add_sat(u->comm[k], c->comm[k]);
  }
  int64_t world = p->dp * p->fsdp * p->tp * p->ep;
  for (size_t l = 0; l < nl; l++) {
    lay[l].size = sizeof lay[l];
    lay[l].world_size = world;
    for (int k = 0; k < NNS_COMM_KIND_COUNT; k++)
      lay[l].comm_bytes = add_sat(lay[l].comm_bytes, lay[l].comm[k]);
  }
  nns_per_rank *o = &a->per_rank;
  *o = nl ? lay[0] : (nns_per_rank){.size = sizeof *o};
  o->world_size = world;
  o->params = r.params;
  o->param_bytes = r.param_bytes;
  o->grad_bytes = r.grad_bytes;
  o->optimizer_bytes = r.opt_bytes;
  const nns_totals *t = &a->totals;
  o->saved_bytes = t->train_step ? t->train_saved_bytes
                                 : t->train_activation_bytes;
  bool est = false;
  o->train_peak_bytes = rank_peak(a, &r, p->fsdp, p->dp, &est);
  o->estimate = est;
  o->flops = a->all.flops;
  o->macs = a->all.macs;
  o->budget_bytes = p->budget;
  o->fits = p->budget > 0 && o->train_peak_bytes <= p->budget;
  o->grow = NULL;
  if (p->budget > 0 && !o->fits) {
    /* doubling fsdp: the same model at twice the shards; doubling tp:
     * the tensor-split modules' parameters, gradients and state halved */
    nns__parallel twice = *p;
    twice.fsdp = p->fsdp * 2;
    rank_sums r2 = sums_for(m, a, &twice, units, n_units, opt, NULL, NULL,
                            NULL, &names, &nomem);
    r2.root_full = r.root_full;
    r2.block_full = r.block_full;
    r2.rs_most = r.rs_most;
    r2.done_full = r.done_full;
    r2.done_rs = r.done_rs;
    int64_t by_fsdp = rank_peak(a, &r2, twice.fsdp, p->dp, &est);
    int64_t split = 0;
    for (size_t i = 0; i < p->n_tp; i++) {
      size_t l = layer_at(a, p->tp_path[i]);
      if (l != (size_t)-1)
        split = add_sat(split, add_sat(add_sat(lay[l].param_bytes,
                                               lay[l].grad_bytes),
                                       lay[l].optimizer_bytes));
    }
    int64_t by_tp = o->train_peak_bytes - split / 2;
    o->grow = p->n_tp && by_tp < by_fsdp ? "tp" : "fsdp";
  }
  nns__map_free(&names);
  if (nomem)
    goto nomem;
  a->layer_per_rank = lay;
  a->n_mesh = p->n_mesh;
  a->mesh_name = nns__arena_array(&a->arena, p->n_mesh + 1,
                                  sizeof *a->mesh_name);
  a->mesh_size = nns__arena_array(&a->arena, p->n_mesh + 1,
                                  sizeof *a->mesh_size);
  if (!a->mesh_name || !a->mesh_size)
    goto nomem;
  for (size_t i = 0; i < p->n_mesh; i++) {
    a->mesh_name[i] = p->mesh_name[i];
    a->mesh_size[i] = p->mesh_size[i];
  }
  logical_totals(a, p);
  return NNS_OK;
nomem:
  return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
}

/* With tp over 1 the graph holds the split modules' local shards: the
 * totals' parameter counts become the logical model's, from the plan's
 * logical sizes. Done after the per-rank figures, which read the
 * recorded (local) ones. Names are interned, so equal names are equal
 * pointers. */
static void logical_totals(nns__analysis *a, const nns__parallel *p) {
  for (size_t i = 0; i < a->n_params && p->tp > 1; i++) {
    const nns_param_info *pi = &a->params[i];
    if (pi->is_copy || pi->kind == NNS_PARAM_CONSTANT || pi->elements <= 0)
      continue;
    int64_t logical = -1;
    for (size_t k = 0; k < p->n_logical && logical < 0; k++)
      if (p->logical_name[k] == pi->name ||
          !strcmp(p->logical_name[k], pi->name))
        logical = p->logical_elements[k];
    if (logical <= pi->elements)
      continue;
    int64_t more = logical - pi->elements;
    int64_t bytes = mul_sat(more, pi->bytes / pi->elements);
    nns_counts *c = &a->all;
    if (pi->kind == NNS_PARAM_TRAINABLE)
      c->params = add_sat(c->params, more);
    else if (pi->kind == NNS_PARAM_FROZEN)
      c->frozen = add_sat(c->frozen, more);
    else
      c->buffers = add_sat(c->buffers, more);
    c->param_bytes = add_sat(c->param_bytes, bytes);
    c->params_active = add_sat(c->params_active, more);
    a->totals.params_unique = add_sat(a->totals.params_unique, more);
    a->totals.param_bytes_unique =
        add_sat(a->totals.param_bytes_unique, bytes);
    for (size_t d = 0; d < a->n_dtypes; d++)
      if (a->dtypes[d].dtype == pi->dtype) {
        a->dtypes[d].elements = add_sat(a->dtypes[d].elements, more);
        a->dtypes[d].bytes = add_sat(a->dtypes[d].bytes, bytes);
        break;
      }
  }
}

/* ==== Accessors ==== */

nns_status nns_analysis_per_rank(const nns_analysis *a, nns_per_rank *out) {
  if (!a || !out || out->size < NNS__SIZE_TO(nns_per_rank, estimate))
    return NNS_E_ARG;
  return NNS__PUT(out, &a->per_rank, NNS__SIZE_TO(nns_per_rank, estimate));
}

nns_status nns_analysis_layer_per_rank(const nns_analysis *a, size_t layer,
                                       nns_per_rank *out) {
  if (!a || !out || out->size < NNS__SIZE_TO(nns_per_rank, estimate) ||
      layer >= a->n_layers)
    return NNS_E_ARG;
  if (!a->layer_per_rank) {
    nns_per_rank none = {.size = sizeof none};
    return NNS__PUT(out, &none, NNS__SIZE_TO(nns_per_rank, estimate));
  }
  return NNS__PUT(out, &a->layer_per_rank[layer],
                  NNS__SIZE_TO(nns_per_rank, estimate));
}

size_t nns_analysis_mesh_count(const nns_analysis *a) {
  return a ? a->n_mesh : 0;
}

nns_status nns_analysis_mesh(const nns_analysis *a, size_t i,
                             const char **name, int64_t *size) {
  if (!a || i >= a->n_mesh)
    return NNS_E_ARG;
  if (name)
    *name = a->mesh_name[i];
  if (size)
    *size = a->mesh_size[i];
  return NNS_OK;
}
