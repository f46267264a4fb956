/*
 * train.c - one recorded training step (nns_model_set_train_step): saved
 * bytes per layer, gradient and optimizer bytes, the step's peak and the
 * layers to checkpoint (docs/metrics.md, "Training step").
 *
 * The binding saw the step happen (on meta tensors) and hands over facts:
 * moments, the bytes each storage added or freed at a moment, and the
 * storages autograd saved. What is live all step long - parameters,
 * buffers, optimizer state, the graph's inputs - is the library's to count
 * from the graph and the optimizer; the peak is that base plus the largest
 * running sum of the events.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* The step as given, in one malloc'ed block (m->train_step); strings are
 * interned in the model. */
typedef struct nns__train_step {
  size_t n_moments, n_events, n_saved;
  int *phase;
  const char **label, **path;
  uint32_t *ev_moment;
  int64_t *ev_bytes;
  const char **saved_path, **saved_region;
  int64_t *saved_bytes, *saved_made, *saved_freed;
  int master_weights;
  int64_t budget;
  const char *recorded_on, *target, *loss, *forward_set;
} nns__train_step;

NNS__NAME_FN(nns_train_phase_name, NNS_TRAIN_PHASE_MAP)

/* The block's arrays, 8-aligned, after the header. */
static size_t layout(nns__train_step *s, char *base, size_t nm, size_t ne,
                     size_t ns) {
  size_t off = (sizeof *s + 7) & ~(size_t)7;
#define NNS__TAKE(field, n)                                                    \
  do {                                                                         \
    if (base)                                                                  \
      s->field = (void *)(base + off);                                         \
    off += ((n) * sizeof *s->field + 7) & ~(size_t)7;                          \
  } while (0)
  NNS__TAKE(phase, nm);
  NNS__TAKE(label, nm);
  NNS__TAKE(path, nm);
  NNS__TAKE(ev_moment, ne);
  NNS__TAKE(ev_bytes, ne);
  NNS__TAKE(saved_path, ns);
  NNS__TAKE(saved_region, ns);
  NNS__TAKE(saved_bytes, ns);
  NNS__TAKE(saved_made, ns);
  NNS__TAKE(saved_freed, ns);
#undef NNS__TAKE
  return off;
}

static const char *intern_or(nns_model *m, const char *s, bool *ok) {
  const char *r = nns__intern_cstr(&m->strings, s ? s : "");
  if (!r)
    *ok = false;
  return r;
}

nns_status nns_model_set_train_step(nns_model *m, const nns_train_step *step,
                                    nns_error *err) {
  if (!m)
    return nns__err(err, NNS_E_ARG, -1, NULL, "model is NULL");
  if (!step) {
    free(m->train_step);
    m->train_step = NULL;
    return NNS_OK;
  }
  nns_train_step g;
  if (NNS__GET(&g, step, NNS__SIZE_TO(nns_train_step, loss)) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_train_step.size is %zu, below the first version's "
                    "%zu",
                    step->size, (size_t)NNS__SIZE_TO(nns_train_step, loss));
  if ((g.moment_count &&
       (!g.moment_phase || !g.moment_label || !g.moment_path)) ||
      (g.event_count && (!g.event_moment || !g.event_bytes)) ||
      (g.saved_count && (!g.saved_path || !g.saved_region || !g.saved_bytes ||
                         !g.saved_made || !g.saved_freed)))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_train_step: an array is NULL for a nonzero count");
  if (g.event_count && !g.moment_count)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_train_step: events without moments");
  if (g.budget_bytes < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_train_step: negative budget %lld",
                    (long long)g.budget_bytes);
  for (size_t i = 0; i < g.moment_count; i++)
    if (g.moment_phase[i] < NNS_TRAIN_FORWARD ||
        g.moment_phase[i] > NNS_TRAIN_OPTIMIZER)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_train_step: moment %zu has phase %d", i,
                      g.moment_phase[i]);
  for (size_t i = 0; i < g.event_count; i++)
    if (g.event_moment[i] >= g.moment_count)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_train_step: event %zu is at moment %u of %zu", i,
                      (unsigned)g.event_moment[i], g.moment_count);
  for (size_t i = 0; i < g.saved_count; i++) {
    int64_t ne = (int64_t)g.event_count;
    if (g.saved_bytes[i] < 0 || g.saved_made[i] < -1 ||
        g.saved_made[i] >= ne || g.saved_freed[i] < -1 ||
        g.saved_freed[i] >= ne)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_train_step: saved storage %zu has bytes %lld, "
                      "events %lld..%lld of %zu",
                      i, (long long)g.saved_bytes[i],
                      (long long)g.saved_made[i], (long long)g.saved_freed[i],
                      g.event_count);
  }
  nns__train_step probe;
  size_t n = layout(&probe, NULL, g.moment_count, g.event_count,
                    g.saved_count);
  char *block = calloc(1, n);
  if (!block)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  nns__train_step *s = (nns__train_step *)block;
  layout(s, block, g.moment_count, g.event_count, g.saved_count);
  s->n_moments = g.moment_count;
  s->n_events = g.event_count;
  s->n_saved = g.saved_count;
  bool ok = true;
  for (size_t i = 0; i < s->n_moments; i++) {
    s->phase[i] = g.moment_phase[i];
    s->label[i] = intern_or(m, g.moment_label[i], &ok);
    s->path[i] = intern_or(m, g.moment_path[i], &ok);
  }
  if (s->n_events) {
    memcpy(s->ev_moment, g.event_moment, s->n_events * sizeof *s->ev_moment);
    memcpy(s->ev_bytes, g.event_bytes, s->n_events * sizeof *s->ev_bytes);
  }
  for (size_t i = 0; i < s->n_saved; i++) {
    s->saved_path[i] = intern_or(m, g.saved_path[i], &ok);
    s->saved_region[i] = intern_or(m, g.saved_region[i], &ok);
    s->saved_bytes[i] = g.saved_bytes[i];
    s->saved_made[i] = g.saved_made[i];
    s->saved_freed[i] = g.saved_freed[i];
  }
  s->master_weights = g.master_weights != 0;
  s->budget = g.budget_bytes;
  s->recorded_on = intern_or(m, g.recorded_on, &ok);
  s->target = g.target ? intern_or(m, g.target, &ok) : NULL;
  s->loss = intern_or(m, g.loss, &ok);
  s->forward_set = g.forward_set && *g.forward_set
                       ? intern_or(m, g.forward_set, &ok)
                       : NULL;
  if (!ok) {
    free(block);
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  free(m->train_step);
  m->train_step = s;
  return NNS_OK;
}

static int64_t add_sat(int64_t a, int64_t b) {
  int64_t r;
  return nns__add_i64(a, b, &r) ? r : (b < 0 ? INT64_MIN : INT64_MAX);
}

/* The layer of a module path: the path's own, else its nearest ancestor's
 * (a module that ran no op of its own has no layer). */
static uint32_t layer_of(nns_model *m, const nns__map *by_path,
                         const char *path) {
  char buf[1024];
  for (;;) {
    void *v = nns__map_get(by_path, path);
    if (v)
      return (uint32_t)((uintptr_t)v - 1);
    const char *dot = strrchr(path, '.');
    size_t k = dot ? (size_t)(dot - path) : 0;
    if (!k || k >= sizeof buf)
      return 0;
    memcpy(buf, path, k);
    buf[k] = 0;
    path = nns__intern_cstr(&m->strings, buf);
    if (!path)
      return 0;
  }
}

/* Optimizer state over the trainable parameters: Adam/AdamW two tensors
 * and a 4-byte step count per parameter, momentum one tensor, SGD none;
 * with master weights a 16-bit parameter's state and its fp32 copy are
 * fp32. */
int64_t nns__optimizer_param_bytes(nns_optimizer opt, bool master, int dtype,
                                   int64_t elements, int64_t bytes) {
  int per = opt == NNS_OPTIMIZER_ADAM || opt == NNS_OPTIMIZER_ADAMW ? 2
            : opt == NNS_OPTIMIZER_MOMENTUM                        ? 1
                                                                   : 0;
  bool half = dtype == NNS_DT_FLOAT16 || dtype == NNS_DT_BFLOAT16;
  int64_t state = master && half ? add_sat(elements, elements) * 2 : bytes;
  int64_t total = 0;
  for (int k = 0; k < per; k++)
    total = add_sat(total, state);
  if (per == 2)
    total = add_sat(total, 4);
  if (master && half)
    total = add_sat(total, elements * 4);
  return total;
}

static int64_t optimizer_bytes(const nns__analysis *a, nns_optimizer opt,
                               bool master) {
  int64_t total = 0;
  for (size_t i = 0; i < a->n_params; i++) {
    const nns_param_info *p = &a->params[i];
    if (p->kind == NNS_PARAM_TRAINABLE)
      total = add_sat(total, nns__optimizer_param_bytes(
                                 opt, master, p->dtype, p->elements, p->bytes));
  }
  return total;
}

/* Whether saved storage k is live just after event e. */
static bool live_at(const nns__train_step *s, size_t k, int64_t e) {
  return (s->saved_made[k] < 0 || s->saved_made[k] <= e) &&
         (s->saved_freed[k] < 0 || s->saved_freed[k] > e);
}

/* The step's peak with the saved storages made in the step whose region
 * is a layer marked in `gone` (never the root) never made; `drop` has
 * n_events + 1 slots. Each storage comes off the live total from its
 * making to its freeing (a difference array: one pass over each). */
static int64_t peak_without(const nns__train_step *s, const uint32_t *region,
                            const bool *gone, int64_t base, int64_t *drop) {
  memset(drop, 0, (s->n_events + 1) * sizeof *drop);
  for (size_t k = 0; k < s->n_saved; k++) {
    int64_t made = s->saved_made[k], freed = s->saved_freed[k];
    if (region[k] == 0 || !gone[region[k]] || made < 0 ||
        made >= (int64_t)s->n_events)
      continue;
    if (freed < 0 || freed > (int64_t)s->n_events)
      freed = (int64_t)s->n_events;
    drop[made] = add_sat(drop[made], s->saved_bytes[k]);
    drop[freed] -= s->saved_bytes[k];
  }
  int64_t live = base, peak = base, off = 0;
  for (size_t e = 0; e < s->n_events; e++) {
    live = add_sat(live, s->ev_bytes[e]);
    off += drop[e];
    if (live - off > peak)
      peak = live - off;
  }
  return peak;
}

typedef struct cand {
  uint32_t layer;
  int64_t saves, flops; /* saves: at the peak; else over the step */
  bool at_peak;
} cand;

/* Layers that free bytes live at the peak first, then the others (by
 * what they free over the step); within each, most bytes freed per
 * recomputed FLOP first (a layer without FLOPs,
 * dropout, first), then most bytes, then preorder. */
static int by_yield(const void *pa, const void *pb) {
  const cand *x = pa, *y = pb;
  if (x->at_peak != y->at_peak)
    return x->at_peak ? -1 : 1;
  __extension__ typedef __int128 wide;
  wide l = (wide)x->saves * (y->flops > 0 ? y->flops : 1);
  wide r = (wide)y->saves * (x->flops > 0 ? x->flops : 1);
  bool zx = x->flops <= 0, zy = y->flops <= 0;
  if (zx != zy)
    return zx ? -1 : 1;
  if (l != r)
    return l > r ? -1 : 1;
  if (x->saves != y->saves)
    return x->saves > y->saves ? -1 : 1;
  return x->layer < y->layer ? -1 : 1;
}

nns_status nns__train_analyze(nns_model *m, nns__analysis *a,
                              nns_optimizer opt, nns_error *err) {
  const nns__train_step *s = m->train_step;
  if (!s)
    return NNS_OK;
  nns_totals *t = &a->totals;
  nns__map by_path = {0};
  int64_t *own = calloc(a->n_layers + 1, sizeof *own);
  int64_t *saves = calloc(a->n_layers + 1, sizeof *saves);
  int64_t *reg = calloc(a->n_layers + 1, sizeof *reg);
  cand *cs = malloc((a->n_layers + 1) * sizeof *cs);
  uint32_t *region = malloc((s->n_saved + 1) * sizeof *region);
  nns_status st = NNS_OK;
  if (!own || !saves || !reg || !cs || !region)
    goto nomem;
  for (size_t l = 0; l < a->n_layers; l++)
    if (!nns__map_put(&by_path, a->layers[l].info.path,
                      (void *)(uintptr_t)(l + 1)))
      goto nomem;

  /* The peak: the base, then the events in order. */
  int64_t opt_bytes = optimizer_bytes(a, opt, s->master_weights);
  int64_t base = add_sat(add_sat(t->param_bytes_unique, opt_bytes),
                         t->input_bytes);
  int64_t live = base, peak = base, peak_ev = -1;
  for (size_t e = 0; e < s->n_events; e++) {
    live = add_sat(live, s->ev_bytes[e]);
    if (live > peak) {
      peak = live;
      peak_ev = (int64_t)e;
    }
  }
  size_t pm = peak_ev >= 0 ? s->ev_moment[peak_ev] : 0;
  t->train_step = 1;
  t->optimizer = opt;
  t->train_optimizer_bytes = opt_bytes;
  t->train_peak_bytes = peak;
  t->train_total_bytes = peak;
  t->train_peak_phase = s->n_moments ? s->phase[pm] : NNS_TRAIN_FORWARD;
  t->train_peak_label = s->n_moments ? s->label[pm] : "";
  t->train_peak_path = s->n_moments ? s->path[pm] : "";

  /* Saved bytes at the first saver; checkpoint savings at the innermost
   * layer holding the storage's maker and savers (wrapping any layer that
   * holds that one drops it). */
  for (size_t k = 0; k < s->n_saved; k++) {
    uint32_t l = layer_of(m, &by_path, s->saved_path[k]);
    own[l] = add_sat(own[l], s->saved_bytes[k]);
    region[k] = layer_of(m, &by_path, s->saved_region[k]);
    if (live_at(s, k, peak_ev) && s->saved_made[k] >= 0)
      saves[region[k]] = add_sat(saves[region[k]], s->saved_bytes[k]);
    if (s->saved_made[k] >= 0)
      reg[region[k]] = add_sat(reg[region[k]], s->saved_bytes[k]);
  }
  /* Over subtrees: children come after their parent in preorder. */
  for (size_t l = a->n_layers; l-- > 1;) {
    size_t p = nns__layer_up(a, l);
    own[p] = add_sat(own[p], own[l]);
    saves[p] = add_sat(saves[p], saves[l]);
    reg[p] = add_sat(reg[p], reg[l]);
  }
  a->layer_train = nns__arena_array(&a->arena, a->n_layers + 1,
                                    sizeof *a->layer_train);
  if (!a->layer_train)
    goto nomem;
  for (size_t l = 0; l < a->n_layers; l++)
    a->layer_train[l] = (nns__ltrain){
        .saved_bytes = own[l],
        .checkpoint_saves_bytes = saves[l],
        .checkpoint_recompute_flops = a->layers[l].counts.flops};
  t->train_saved_bytes = own[0];
  a->train_master = s->master_weights;
  a->train_recorded_on = s->recorded_on;
  a->train_target = s->target;
  a->train_loss = s->loss;
  a->train_forward_set = s->forward_set;
  t->train_activation_bytes = own[0];

  /* The plan: the best-yielding layers that were called, none inside
   * another chosen one, until the peak fits the budget. What the plan
   * frees is freed at every moment, so the peak after it is the largest
   * live total over the step with the chosen layers' saved storages gone
   * (the peak may move); the floor is that with every checkpointable
   * storage gone (made in the step, its region a layer, not the root).
   * When the floor is over the budget no plan can reach it: none. */
  t->checkpoint_budget_bytes = s->budget;
  t->checkpoint_peak_bytes = peak;
  t->checkpoint_fits = s->budget > 0 && peak <= s->budget;
  t->checkpoint_floor_bytes = peak;
  a->n_plan = 0;
  if (s->budget > 0 && peak > s->budget) {
    bool *chosen = calloc(a->n_layers + 1, sizeof *chosen);
    bool *was = calloc(a->n_layers + 1, sizeof *was);
    int64_t *drop = malloc((s->n_events + 1) * sizeof *drop);
    if (!chosen || !was || !drop) {
      free(chosen);
      free(was);
      free(drop);
      goto nomem;
    }
    for (size_t l = 1; l < a->n_layers; l++)
      chosen[l] = true;
    t->checkpoint_floor_bytes = peak_without(s, region, chosen, base, drop);
    size_t nc = 0;
    if (t->checkpoint_floor_bytes <= s->budget)
      for (size_t l = 1; l < a->n_layers; l++)
        if (reg[l] > 0 && a->layers[l].info.call_count > 0)
          cs[nc++] = (cand){(uint32_t)l, saves[l] > 0 ? saves[l] : reg[l],
                            a->layers[l].counts.flops, saves[l] > 0};
    qsort(cs, nc, sizeof *cs, by_yield);
    a->plan = nns__arena_array(&a->arena, nc + 1, sizeof *a->plan);
    if (!a->plan) {
      free(chosen);
      free(was);
      free(drop);
      goto nomem;
    }
    memset(chosen, 0, (a->n_layers + 1) * sizeof *chosen);
    int64_t now = peak;
    for (size_t i = 0; i < nc && now > s->budget; i++) {
      /* inside a chosen layer: already gone; holding chosen ones: it
       * replaces them if it lowers the peak further */
      bool inside = false;
      for (size_t j = 0; j < a->n_plan && !inside; j++)
        inside = nns__layer_contains(a, a->plan[j], cs[i].layer);
      if (inside)
        continue;
      /* a storage goes with every layer that holds its region; a layer
       * that does not lower the peak (what it frees is not live at the
       * moments that set it) is not taken */
      memcpy(was, chosen, (a->n_layers + 1) * sizeof *chosen);
      for (size_t l = 1; l < a->n_layers; l++)
        if (nns__layer_contains(a, cs[i].layer, l))
          chosen[l] = true;
      chosen[cs[i].layer] = true;
      int64_t next = peak_without(s, region, chosen, base, drop);
      if (next >= now) {
        memcpy(chosen, was, (a->n_layers + 1) * sizeof *chosen);
        continue;
      }
      size_t kept = 0;
      for (size_t j = 0; j < a->n_plan; j++)
        if (!nns__layer_contains(a, cs[i].layer, a->plan[j]))
          a->plan[kept++] = a->plan[j];
      a->n_plan = kept;
      a->plan[a->n_plan++] = cs[i].layer;
      now = next;
    }
    free(chosen);
    free(was);
    free(drop);
    t->checkpoint_peak_bytes = now;
    t->checkpoint_fits = now <= s->budget;
  }
  goto done;
nomem:
  st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
done:
  nns__map_free(&by_path);
  free(own);
  free(saves);
  free(reg);
  free(cs);
  free(region);
  return st;
}

nns_status nns_analysis_train_info(const nns_analysis *a, int *master_weights,
                                   const char **recorded_on,
                                   const char **target, const char **loss) {
  if (!a)
    return NNS_E_ARG;
  if (master_weights)
    *master_weights = a->train_master;
  if (recorded_on)
    *recorded_on = a->train_recorded_on;
  if (target)
    *target = a->train_target;
  if (loss)
    *loss = a->train_loss;
  return NNS_OK;
}

const char *nns__train_forward_set(const nns_analysis *a) {
  return a ? a->train_forward_set : NULL;
}

size_t nns_analysis_checkpoint_count(const nns_analysis *a) {
  return a ? a->n_plan : 0;
}

nns_status nns_analysis_checkpoint(const nns_analysis *a, size_t i,
                                   size_t *layer) {
  if (!a || !layer)
    return NNS_E_ARG;
  if (i >= a->n_plan)
    return NNS_E_ARG;
  *layer = a->plan[i];
  return NNS_OK;
}
