/*
 * analyze.c - nns_model_analyze: runs every node's cost rule (subgraphs
 * through the cost_subgraph hook the control-flow rules call), then the
 * passes of scope.c, params.c, memory.c and rf.c (over the metadata that
 * meta.c decodes first), and sums the per-node counts over the module
 * tree, per op type and for the whole model.
 *
 * A node whose op has no cost rule, or whose rule cannot count it
 * (NNS__UNCOUNTED), adds nothing and marks every count that contains it
 * PARTIAL: a lower bound, never a guess. Definitions: docs/metrics.md.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ==== Uncounted op types ==== */

/* Row of (domain, op_type) in rows[0..n): `index` maps an interned op type
 * to its latest row + 1, and each row's `next` to the previous row of the
 * same op type (another domain), so a lookup never scans all rows. */
static size_t find_row(const nns__map *index, const uint32_t *next,
                       const char *domain, const char *op_type,
                       const char *(*domain_of)(const void *, size_t),
                       const void *rows) {
  for (size_t r = (size_t)(uintptr_t)nns__map_get(index, op_type); r;
       r = next[r - 1])
    if (domain_of(rows, r - 1) == domain)
      return r - 1;
  return (size_t)-1;
}

static const char *uncounted_domain(const void *rows, size_t i) {
  return ((const nns__uncounted_row *)rows)[i].domain;
}

static const char *optype_domain(const void *rows, size_t i) {
  return ((const nns__optype_row *)rows)[i].domain;
}

/* Why a node was not counted (the counters of nns__uncounted_row). */
typedef enum uncounted_why { NO_RULE, NO_SIZE, FAILED } uncounted_why;

static void count_why(nns__uncounted_row *row, uncounted_why why) {
  row->nodes++;
  if (why == NO_RULE)
    row->no_rule++;
  else if (why == NO_SIZE)
    row->no_size++;
  else
    row->failed++;
}

/* n's first input of unknown rank, or NULL. */
static const nns__value *unranked_input(const nns__node *n) {
  for (int32_t k = 0; k < n->n_in; k++)
    if (n->in[k] && n->in[k]->type.rank < 0)
      return n->in[k];
  return NULL;
}

/* A value of unknown rank among v and the values it is computed from, up
 * to `depth` nodes back, or NULL. */
static const nns__value *unranked_ancestor(const nns__value *v, int depth) {
  if (!v || v->type.rank < 0)
    return v;
  if (depth == 0 || !v->producer)
    return NULL;
  const nns__node *p = v->producer;
  for (int32_t k = 0; k < p->n_in; k++) {
    const nns__value *r = unranked_ancestor(p->in[k], depth - 1);
    if (r)
      return r;
  }
  return NULL;
}

/* For an op that picks one of its subgraphs (If, its entry's `branches`):
 * a value of unknown rank its branch outputs are computed from (a few
 * nodes back), or NULL. An If whose condition is unknown merges its
 * branches' outputs, so one branch's unknown shape is the If's; branches
 * that differ in rank only because an earlier shape was unknown (a squeeze
 * of an LSTM fed an unknown shape) lead back to that shape. */
static const nns__value *unranked_branch_source(const nns__node *n) {
  if (!n->op || !n->op->branches)
    return NULL;
  for (int32_t k = 0; k < n->n_attrs; k++) {
    const nns__graph *g = n->attrs[k].g;
    for (int32_t i = 0; g && i < g->n_outputs; i++) {
      const nns__value *r = unranked_ancestor(g->outputs[i], 6);
      if (r)
        return r;
    }
  }
  return NULL;
}

/*
 * Where the sizes of n (not counted for want of a usable size) were lost:
 * following the values of unknown rank back from n's inputs (through an
 * If's branch outputs) to the node that made the first one. n itself when
 * its inputs all have a rank: symbolic dims taken as 1 made a size
 * negative there (or at the uncounted node before it that did). Bounded: a graph is acyclic, the bound only guards a
 * malformed one.
 */
/* An input of n made by a node with a cost rule that was not counted (its
 * sizes are n's trouble too), or NULL. */
static const nns__value *uncounted_input(const nns__analysis *a,
                                         const nns__node *n) {
  for (int32_t k = 0; a->node_counted && k < n->n_in; k++) {
    const nns__node *p = n->in[k] ? n->in[k]->producer : NULL;
    if (p && p->op && p->op->cost && p->list_index != UINT32_MAX &&
        !a->node_counted[p->list_index])
      return n->in[k];
  }
  return NULL;
}

static const nns__node *size_lost_at(const nns__analysis *a,
                                     const nns__node *n, int *how) {
  const nns__node *at = n;
  *how = NNS_SIZE_LOST_NEGATIVE;
  for (int steps = 0; steps < 100000; steps++) {
    const nns__value *v = unranked_input(at);
    if (!v && at != n)
      v = unranked_branch_source(at);
    if (!v && *how == NNS_SIZE_LOST_NEGATIVE) {
      /* Every input has a shape: a size made negative, maybe earlier. */
      v = uncounted_input(a, at);
      if (v) {
        at = v->producer;
        continue;
      }
    }
    if (!v)
      break;
    if (!v->producer) {
      *how = NNS_SIZE_LOST_INPUT;
      return at;
    }
    at = v->producer;
    *how = NNS_SIZE_LOST_SHAPE;
  }
  if (at != n && at->op && at->op->branches)
    *how = NNS_SIZE_LOST_IF;
  for (int32_t k = 0; *how == NNS_SIZE_LOST_NEGATIVE && k < at->n_out; k++)
    if (at->out[k] && at->out[k]->type.rank < 0)
      *how = NNS_SIZE_LOST_SHAPE; /* its own output's shape is unknown */
  return at;
}

static void record_uncounted(nns__analysis *a, const nns__node *n,
                             uncounted_why why) {
  size_t r = find_row(&a->uncounted_index, a->uncounted_next, n->domain,
                      n->op_type, uncounted_domain, a->uncounted);
  if (r != (size_t)-1) {
    nns__uncounted_row *row = &a->uncounted[r];
    if (why == NO_SIZE && !row->lost_at)
      row->lost_at = size_lost_at(a, n, &row->lost_how);
    count_why(row, why);
    return;
  }
  if (a->n_uncounted == a->cap_uncounted) {
    /* Two lists of one length: each grows from the same capacity. */
    size_t need = a->n_uncounted + 1, cap = a->cap_uncounted;
    nns__uncounted_row *rows =
        nns__grow(a->uncounted, &cap, need, sizeof *rows, 8);
    if (!rows)
      return; /* the node stays PARTIAL; only the listing is lost */
    a->uncounted = rows;
    cap = a->cap_uncounted;
    uint32_t *next = nns__grow(a->uncounted_next, &cap, need, sizeof *next, 8);
    if (!next)
      return;
    a->uncounted_next = next;
    a->cap_uncounted = cap;
  }
  size_t i = a->n_uncounted;
  a->uncounted_next[i] =
      (uint32_t)(uintptr_t)nns__map_get(&a->uncounted_index, n->op_type);
  if (!nns__map_put(&a->uncounted_index, n->op_type, (void *)(uintptr_t)(i + 1)))
    return;
  a->uncounted[a->n_uncounted] = (nns__uncounted_row){
      .domain = n->domain, .op_type = n->op_type};
  if (why == NO_SIZE)
    a->uncounted[a->n_uncounted].lost_at =
        size_lost_at(a, n, &a->uncounted[a->n_uncounted].lost_how);
  count_why(&a->uncounted[a->n_uncounted++], why);
}

/* ==== Cost of one node ==== */

static nns_status cost_subgraph(nns__ictx *cx, const nns__graph *g,
                                nns__cost *c);
static unsigned cost_flags(const nns__cost *c, bool counted);

/* Keeps n's own cost for nns_analysis_node_counts (any graph's node). */
static void record_node(nns__analysis *a, const nns__node *n,
                        const nns__cost *c, bool counted) {
  size_t i = n->list_index;
  if (!a->node_counts || n->list_index == UINT32_MAX)
    return;
  nns_counts *k = &a->node_counts[i];
  memset(k, 0, sizeof *k);
  k->flops = c->flops;
  k->macs = c->macs;
  k->dmas = c->dmas;
  k->bytes = c->bytes;
  k->macs_unmasked = c->macs;
  k->flops_unmasked = c->flops;
  k->nodes = 1;
  k->flags = cost_flags(c, counted);
  a->node_counted[i] = counted;
}

/*
 * Runs n's cost rule into *c. *counted is false when the op has no rule or
 * the rule could not count the node; the node is then listed as uncounted.
 * Only running out of memory is an error: a rule that fails on a node the
 * shape rules accepted is a gap in the count, not in the model.
 */
/* True when n holds a subgraph (If, Loop, Scan...): its bytes are its
 * bodies', as its rule repeats them. */
static bool holds_subgraph(const nns__node *n) {
  for (int32_t k = 0; k < n->n_attrs; k++)
    if (n->attrs[k].g || n->attrs[k].graphs)
      return true;
  return false;
}

/* A fused op's count its rule says is not exact: a warning naming the node,
 * its op and why, which the reports list (the text footer's notes, JSON's
 * model.warning), and for an approximate count a row for JSON's
 * cost.approximate diagnostic. A mask not known is said in the words the
 * decomposed attentions' warning uses (attention.c). False when out of
 * memory. */
static bool warn_inexact(nns_model *m, nns__analysis *a, const nns__node *n,
                         const nns__cost *c) {
  const char *name = n->name[0] ? n->name : "(unnamed)";
  const char *domain = n->domain ? n->domain : "";
  const char *sep = domain[0] ? " " : "";
  if (c->approx)
    nns__warn(m, "node '%s' (%s%s%s) is counted approximately: %s", name,
              domain, sep, n->op_type, c->approx);
  if (c->mask_unknown)
    nns__warn(m, "attention: node '%s' (%s%s%s) applies a mask whose "
              "contents are not known (not given, or computed from values "
              "not tracked): macs_unmasked and flops_unmasked count this "
              "attention dense", name, domain, sep, n->op_type);
  if (!c->approx || n->list_index == UINT32_MAX)
    return true;
  nns__approx_row *rows = nns__grow(a->approx, &a->cap_approx,
                                    a->n_approx + 1, sizeof *rows, 4);
  if (!rows)
    return false;
  a->approx = rows;
  a->approx[a->n_approx++] =
      (nns__approx_row){.node = n->list_index, .why = c->approx};
  return true;
}

static nns_status node_cost(nns_model *m, nns__analysis *a,
                            const nns__node *n, nns__cost *c, bool *counted) {
  memset(c, 0, sizeof *c);
  *counted = false;
  if (!n->op || !n->op->cost) {
    nns__node_bytes(a, n, c); /* an op without a cost rule moves data too */
    record_uncounted(a, n, NO_RULE);
    record_node(a, n, c, false);
    return NNS_OK;
  }
  /* Only what a failing rule leaves unwritten is read: the message, which
   * nns__err fills whole (zeroing all 656 bytes per node was a tenth of
   * this function). */
  nns_error local;
  local.code = NNS_OK;
  local.offset = 0;
  local.node[0] = '\0';
  local.message[0] = '\0';
  nns__ictx cx = {.m = m,
                  .node = (nns__node *)n,
                  .op = n->op,
                  .opset = n->opset,
                  .err = &local,
                  .cost_subgraph = cost_subgraph,
                  .analysis = a};
  nns_status st = n->op->cost(&cx, c);
  if (st == NNS_OK && c->flops >= 0 && c->macs >= 0 && c->dmas >= 0) {
    if (!holds_subgraph(n))
      nns__node_bytes(a, n, c);
    *counted = true;
    record_node(a, n, c, true);
    if ((c->approx || c->mask_unknown) && !warn_inexact(m, a, n, c))
      return NNS_E_NOMEM;
    return NNS_OK;
  }
  if (st == NNS_E_NOMEM)
    return st;
  /* The rule's message already names the node (nns__fail). */
  if (st != NNS__UNCOUNTED && st != NNS_OK && local.message[0])
    nns__warn(m, "not counted: %s", local.message);
  else if (st != NNS__UNCOUNTED && st != NNS_OK)
    nns__warn(m, "node '%s' (%s): not counted",
              n->name[0] ? n->name : "(unnamed)", n->op_type);
  bool sym = c->symbolic;
  memset(c, 0, sizeof *c);
  c->symbolic = sym;
  if (!holds_subgraph(n))
    nns__node_bytes(a, n, c);
  /* NNS__UNCOUNTED, or a negative count: the rule had no usable size (an
   * unknown rank or dim; symbolic dims taken as 1 can make one negative).
   * Any other status is the rule's error, warned above. */
  record_uncounted(a, n, st == NNS__UNCOUNTED || st == NNS_OK ? NO_SIZE
                                                              : FAILED);
  record_node(a, n, c, false);
  return NNS_OK;
}

/* The cost_subgraph hook: the summed cost of every node of g (inferred
 * already), nested subgraphs through their owners' rules. */
static nns_status cost_subgraph(nns__ictx *cx, const nns__graph *g,
                                nns__cost *c) {
  nns__analysis *a = cx->analysis;
  if (!g)
    return NNS_OK;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = nns__graph_node(a, g, i);
    nns__cost sub;
    bool counted;
    nns_status st = node_cost(cx->m, a, n, &sub, &counted);
    if (st != NNS_OK)
      return st;
    c->flops = nns__cadd(c, c->flops, sub.flops);
    c->macs = nns__cadd(c, c->macs, sub.macs);
    c->dmas = nns__cadd(c, c->dmas, sub.dmas);
    c->bytes = nns__cadd(c, c->bytes, sub.bytes);
    c->symbolic = c->symbolic || sub.symbolic;
    c->unbounded = c->unbounded || sub.unbounded;
    c->partial = c->partial || sub.partial || !counted;
    c->overflow = c->overflow || sub.overflow;
  }
  return NNS_OK;
}

static unsigned cost_flags(const nns__cost *c, bool counted) {
  unsigned f = 0;
  if (!counted || c->partial)
    f |= NNS_COUNT_PARTIAL;
  if (c->symbolic)
    f |= NNS_COUNT_SYMBOLIC;
  if (c->unbounded)
    f |= NNS_COUNT_UNBOUNDED;
  if (c->overflow)
    f |= NNS_COUNT_OVERFLOW;
  if (c->mask_unknown)
    f |= NNS_COUNT_MASK_UNKNOWN;
  return f;
}

/* Remembers which branch an If's costs follow, for the report. */
static bool record_branch(nns__analysis *a, const nns__node *n,
                          const nns__cost *c) {
  nns__branch_row *rows = nns__grow(a->branches, &a->cap_branches,
                                    a->n_branches + 1, sizeof *rows, 4);
  if (!rows)
    return false;
  a->branches = rows;
  a->branches[a->n_branches++] = (nns__branch_row){
      .node = n, .branch = c->branch, .known = c->branch_known,
      .only = c->branch_only};
  return true;
}

static nns_status run_costs(nns_model *m, nns__analysis *a) {
  const nns__graph *g = m->graph;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = a->order[i];
    nns__cost c;
    bool counted;
    nns_status st = node_cost(m, a, n, &c, &counted);
    if (st != NNS_OK)
      return st;
    nns__anode *an = &a->nodes[n->index];
    an->counted = counted;
    an->still = nns__moves_nothing(n, &c);
    an->view = nns__is_view(n, &c);
    an->flops = c.flops;
    an->macs = c.macs;
    an->dmas = c.dmas;
    an->bytes = c.bytes;
    an->flags |= cost_flags(&c, counted);
    if (counted && c.branch && !record_branch(a, n, &c))
      return NNS_E_NOMEM;
    /* A fused attention op's own mask (ops/dot.h, nns__attn_cut). */
    if (counted && (c.macs_cut > 0 || c.flops_cut > 0)) {
      nns__anode_more *x = nns__node_more(a, n->index);
      if (!x)
        return NNS_E_NOMEM;
      x->macs_cut = c.macs_cut < c.macs ? c.macs_cut : c.macs;
      x->flops_cut = c.flops_cut < c.flops ? c.flops_cut : c.flops;
    }
  }
  return NNS_OK;
}

/* ==== Sums: layers, op types, totals ==== */

static nns_status sum_layers(nns__analysis *a) {
  /* SHARED marks (params.c) are per layer and must not climb past the
   * layer that counts the parameter: keep them aside while summing. */
  unsigned *shared = calloc(a->n_layers + 1, sizeof *shared);
  if (!shared)
    return NNS_E_NOMEM;
  for (size_t l = 0; l < a->n_layers; l++) {
    shared[l] = a->layers[l].counts.flags & NNS_COUNT_SHARED;
    a->layers[l].counts.flags = 0;
  }
  if (a->node_times) {
    a->layer_times = nns__arena_array(&a->arena, a->n_layers + 1,
                                      sizeof *a->layer_times);
    if (!a->layer_times) {
      free(shared);
      return NNS_E_NOMEM;
    }
  }
  for (size_t i = 0; i < a->n_nodes; i++)
    nns__layer_add_node(a, a->nodes[i].layer, i);
  /* Preorder: every child comes after its parent, so one backward sweep
   * folds each subtree into its parent. */
  for (size_t l = a->n_layers; l-- > 1;)
    nns__layer_add_layer(a, nns__layer_up(a, l), l);
  for (size_t l = 0; l < a->n_layers; l++) {
    a->layers[l].counts.flags &= ~(unsigned)NNS_COUNT_SHARED;
    a->layers[l].counts.flags |= shared[l];
  }
  free(shared);
  return NNS_OK;
}

static nns_status sum_op_types(nns__analysis *a) {
  nns__map index = {0};
  uint32_t *next = NULL;
  nns_status st = NNS_OK;
  for (size_t i = 0; i < a->n_nodes; i++) {
    const nns__node *n = a->order[i];
    size_t r = find_row(&index, next, n->domain, n->op_type, optype_domain,
                        a->optypes);
    if (r == (size_t)-1) {
      if (a->n_optypes == a->cap_optypes) {
        /* Two lists of one length: each grows from the same capacity. */
        size_t need = a->n_optypes + 1, cap = a->cap_optypes;
        nns__optype_row *rows =
            nns__grow(a->optypes, &cap, need, sizeof *rows, 16);
        if (rows)
          a->optypes = rows;
        cap = a->cap_optypes;
        uint32_t *nx = rows ? nns__grow(next, &cap, need, sizeof *nx, 16) : NULL;
        if (!nx) {
          st = NNS_E_NOMEM;
          break;
        }
        next = nx;
        a->cap_optypes = cap;
      }
      r = a->n_optypes++;
      next[r] = (uint32_t)(uintptr_t)nns__map_get(&index, n->op_type);
      if (!nns__map_put(&index, n->op_type, (void *)(uintptr_t)(r + 1))) {
        st = NNS_E_NOMEM;
        break;
      }
      nns__optype_row *row = &a->optypes[r];
      memset(row, 0, sizeof *row);
      row->domain = n->domain;
      row->op_type = n->op_type;
      row->counted = n->op && n->op->cost;
      row->family = nns__op_family(n->domain, n->op_type);
    }
    /* The op type's first row (of any domain): layers list op type names
     * once even when two domains share one. */
    size_t first = r;
    while (next[first])
      first = next[first] - 1;
    a->nodes[n->index].optype = (uint32_t)first;
    nns__counts_add_node(&a->optypes[r].counts, a, n->index);
  }
  nns__map_free(&index);
  free(next);
  return st;
}

/* Moves a malloc'ed row array into the arena, so the results need no free
 * of their own (nns_analysis_free frees the arena). */
static void *to_arena(nns__analysis *a, void *rows, size_t n, size_t size,
                      bool *ok) {
  if (!n) {
    free(rows);
    return NULL;
  }
  void *dst = nns__arena_array(&a->arena, n, size);
  if (dst)
    memcpy(dst, rows, n * size);
  else
    *ok = false;
  free(rows);
  return dst;
}

/* ==== Node order ==== */

static bool graph_reads_before(const nns__graph *main, const nns__graph *g,
                               uint32_t i);

/* True when every value n reads (its subgraphs' free variables included)
 * comes from an input, an initializer or a main-graph node before node
 * i. */
static bool reads_before(const nns__graph *main, const nns__node *n,
                         uint32_t i) {
  for (int32_t j = 0; j < n->n_in; j++) {
    const nns__value *v = n->in[j];
    if (v && v->producer && v->producer->graph == main &&
        v->producer->index >= i)
      return false;
  }
  for (int32_t j = 0; j < n->n_attrs; j++) {
    const nns__attr *at = &n->attrs[j];
    if (at->g && !graph_reads_before(main, at->g, i))
      return false;
    for (int32_t q = 0; at->graphs && q < at->n; q++)
      if (at->graphs[q] && !graph_reads_before(main, at->graphs[q], i))
        return false;
  }
  return true;
}

static bool graph_reads_before(const nns__graph *main, const nns__graph *g,
                               uint32_t i) {
  for (int32_t k = 0; k < g->n_nodes; k++)
    if (!reads_before(main, &g->nodes[k], i))
      return false;
  return true;
}

/* The model's own node order when it is topological, else the sorted one:
 * peak memory is defined over the order the model gives. */
static void choose_order(nns_model *m, nns__analysis *a) {
  const nns__graph *g = m->graph;
  /* A sorted order equal to the model's proves it topological without
   * reading every node's inputs. */
  bool same = g->order != NULL;
  for (int32_t i = 0; i < g->n_nodes && same; i++)
    same = g->order[i] == &g->nodes[i];
  bool file_order = true;
  for (int32_t i = 0; i < g->n_nodes && file_order && !same; i++)
    file_order = reads_before(g, &g->nodes[i], (uint32_t)i);
  for (int32_t i = 0; i < g->n_nodes; i++)
    a->order[i] = file_order ? &g->nodes[i] : g->order[i];
}

/* ==== Per node of the node list ==== */

/* A subgraph node's row is its own cost (record_node) plus the bytes of
 * its outputs (a main-graph node's is its a->nodes counts). */
static void node_totals(nns_model *m, nns__analysis *a) {
  for (size_t i = 0; a->node_counts && i < m->n_nodes; i++) {
    const nns__node *n = m->nodes[i];
    if (n->graph == a->main)
      continue;
    nns_counts *k = &a->node_counts[i];
    k->nodes = 1;
    for (int32_t o = 0; o < n->n_out; o++) {
      bool sym = false;
      int64_t b = n->out[o] ? nns__vbytes(a, n->out[o], &sym) : -1;
      if (b > 0 && !nns__add_i64(k->activation_bytes, b,
                                 &k->activation_bytes)) {
        k->activation_bytes = INT64_MAX;
        k->flags |= NNS_COUNT_OVERFLOW;
      }
      if (sym)
        k->flags |= NNS_COUNT_SYMBOLIC;
    }
  }
}

/* ==== Entry point ==== */

/* Work beside the passes, on a second thread for a large graph (the
 * header files say what each part reads and writes):
 *  - the parameters' walk over the nodes, while scope_build makes the
 *    layers;
 *  - the receptive-field walk over the nodes, the layers' input and
 *    output values (nns__scope_io) and the copy of the value types the
 *    analysis keeps (keep.c), while the cost, memory and sum passes run.
 * Graphs below this many nodes (LLaMA-7B's 3,895) walk inline: their walks
 * take well under a millisecond, and a thread's start would be a share of
 * a summary of a few milliseconds for little gain. */
enum { THREAD_MIN_NODES = NNS__JOB_MIN_ITEMS };

typedef struct params_job {
  nns__job job;
  const nns_model *m;
  nns__analysis *a;
  nns__params_walk *walk;
} params_job;

static void params_job_run(void *p) {
  params_job *j = p;
  j->walk = nns__params_walk_nodes(j->m, j->a);
}

typedef struct io_job {
  nns__job job;
  const nns_model *m;
  nns__analysis *a;
  bool ok;
} io_job;

static void io_job_run(void *p) {
  io_job *j = p;
  j->ok = nns__scope_io(j->m, j->a);
}

typedef struct rf_job {
  nns__job job;
  nns_model *m;
  const nns__analysis *a;
  nns__rf_walk *walk;
} rf_job;

static void rf_job_run(void *p) {
  rf_job *j = p;
  j->walk = nns__rf_walk_nodes(j->m, j->a);
}

static nns_status analyze(nns_model *m, nns__analysis *a,
                          const nns_analyze_options *o, nns__keep *keep,
                          nns_error *err) {
  const nns__graph *g = m->graph;
  a->n_nodes = (size_t)g->n_nodes;
  nns__arena *ar = &a->arena;
  /* Per node about a row, a place in the order and a layer (a graph
   * without module paths has a layer per node): a hint, so that a large
   * graph's analysis fills one huge-page chunk. */
  nns__arena_reserve(ar, (a->n_nodes + 1) * (sizeof *a->nodes +
                                             sizeof *a->order +
                                             sizeof(nns__alayer)) +
                             m->n_values);
  a->nodes = nns__arena_array(ar, a->n_nodes + 1, sizeof *a->nodes);
  a->is_param_value =
      nns__arena_array(ar, m->n_values + 1, sizeof *a->is_param_value);
  a->order = nns__arena_array(ar, a->n_nodes + 1, sizeof *a->order);
  a->main = g;
  /* Subgraph nodes' own rows; main-graph nodes have theirs in a->nodes. */
  if (m->subgraph_nodes) {
    a->node_counts =
        nns__arena_array(ar, m->n_nodes + 1, sizeof *a->node_counts);
    a->node_counted =
        nns__arena_array(ar, m->n_nodes + 1, sizeof *a->node_counted);
  }
  if (!a->nodes || !a->is_param_value || !a->order || !nns__vbytes_start(a) ||
      (m->subgraph_nodes && (!a->node_counts || !a->node_counted)))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  choose_order(m, a);
  /* Before the walks start: what the metadata says is read, not written,
   * once they run. */
  if (!nns__meta_read(m, ar, &a->meta))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  params_job params = {.m = m, .a = a};
  nns__job_start(&params.job, params_job_run, &params,
                 a->n_nodes >= THREAD_MIN_NODES);
  nns_status st = nns__scope_build(m, a, err);
  if (st == NNS_OK) {
    nns__job_finish(&params.job);
    st = nns__params_finish(m, a, params.walk, err);
  } else {
    nns__job_cancel(&params.job);
    nns__params_walk_free(params.walk);
  }
  if (st != NNS_OK)
    return st;
  rf_job rf = {.m = m, .a = a};
  nns__job_start(&rf.job, rf_job_run, &rf,
                 a->n_nodes >= THREAD_MIN_NODES);
  io_job io = {.m = m, .a = a};
  nns__job_start(&io.job, io_job_run, &io, a->n_nodes >= THREAD_MIN_NODES);
  nns__keep_start(keep, m, a->n_nodes >= THREAD_MIN_NODES);
  st = nns__roofline_setup(m, a, o->hardware, o->compute_dtype, err);
  if (st == NNS_OK &&
      (run_costs(m, a) != NNS_OK || nns__kernel_bytes(m, a) != NNS_OK))
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (st == NNS_OK)
    nns__roofline_nodes(m, a);
  if (st == NNS_OK)
    nns__attention_unmasked(m, a);
  if (st == NNS_OK && o->forward)
    nns__attention_backward(a, o->forward);
  if (st == NNS_OK)
    st = nns__memory_analyze(m, a, o->optimizer, err);
  if (st == NNS_OK && (sum_layers(a) != NNS_OK || sum_op_types(a) != NNS_OK))
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (st == NNS_OK)
    nns__custom_macs_apply(m, a);
  if (st == NNS_OK)
    st = nns__scope_finish(m, a, err);
  /* Joined on every path: the threads read `a`. */
  if (st == NNS_OK) {
    nns__job_finish(&io.job);
    if (!io.ok)
      st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  } else {
    nns__job_cancel(&io.job);
  }
  /* Joined on every path: the thread reads `a`. */
  if (st == NNS_OK) {
    nns__job_finish(&rf.job);
    st = nns__rf_analyze(m, a, rf.walk, err);
    nns__attention_warn(m, a);
  } else {
    nns__job_cancel(&rf.job);
    nns__rf_walk_free(rf.walk);
  }
  if (st == NNS_OK)
    st = nns__train_analyze(m, a, o->optimizer, err);
  if (st == NNS_OK && a->nomem)
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (st != NNS_OK)
    return st;
  nns__experts_analyze(m, a);
  if (a->nomem)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  nns__layer_counts(a, 0, &a->all);
  a->all.flags |= a->memory_flags;
  a->totals.tokens = nns__tokens(m, a);
  node_totals(m, a);
  nns__roofline_finish(a);
  return nns__parallel_analyze(m, a, o->optimizer, err);
}

nns_status nns_model_analyze(nns_model *m, const nns_analyze_options *opts,
                             nns_analysis **out, nns_error *err) {
  if (out)
    *out = NULL;
  if (!m || !m->graph || !out)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_model_analyze needs a model and a place for the "
                    "analysis");
  nns_analyze_options given = {.optimizer = NNS_OPTIMIZER_SGD};
  if (opts && NNS__GET(&given, opts, NNS__V1_ANALYZE_OPTIONS) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_analyze_options.size is %zu, below the first "
                    "version's %zu", opts->size,
                    (size_t)NNS__V1_ANALYZE_OPTIONS);
  const nns_analyze_options *o = &given;
  if (o->optimizer < NNS_OPTIMIZER_SGD || o->optimizer > NNS_OPTIMIZER_ADAMW)
    return nns__err(err, NNS_E_ARG, -1, NULL, "unknown optimizer %d",
                    (int)o->optimizer);
  if (!m->inferred) {
    if (m->infer_runs > 0)
      return nns__err(err, NNS_E_STATE, -1, NULL,
                      "the last shape inference failed; the model cannot be "
                      "analysed until nns_model_infer succeeds");
    nns_status st = nns_model_infer(m, NULL, err);
    if (st != NNS_OK)
      return st;
  }
  nns__analysis *a = calloc(1, sizeof *a);
  if (!a)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  nns__arena_init(&a->arena);
  nns__arena_init(&a->types_arena);
  a->model = m;
  size_t warnings_before = m->n_warnings;
  nns__keep keep = {0}; /* started by analyze(), finished here */
  nns_status st = analyze(m, a, o, &keep, err);
  bool ok = true;
  a->params = to_arena(a, a->params, a->n_params, sizeof *a->params, &ok);
  a->optypes = to_arena(a, a->optypes, a->n_optypes, sizeof *a->optypes, &ok);
  a->uncounted =
      to_arena(a, a->uncounted, a->n_uncounted, sizeof *a->uncounted, &ok);
  a->branches =
      to_arena(a, a->branches, a->n_branches, sizeof *a->branches, &ok);
  a->approx = to_arena(a, a->approx, a->n_approx, sizeof *a->approx, &ok);
  a->node_more =
      to_arena(a, a->node_more, a->n_node_more, sizeof *a->node_more, &ok);
  free(a->uncounted_next);
  a->uncounted_next = NULL;
  free(a->vbytes);
  free(a->vbytes_symbolic);
  a->vbytes = NULL;
  a->vbytes_symbolic = NULL;
  nns__map_free(&a->uncounted_index);
  bool kept = nns__keep_finish(&keep, m, a, st == NNS_OK && ok) == NNS_OK;
  if (st == NNS_OK && (!ok || !kept))
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (nns__keep_warnings(m, a, warnings_before) != NNS_OK && st == NNS_OK)
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (st != NNS_OK) {
    nns_analysis_free(a);
    return st;
  }
  m->analyzed = true;
  *out = a;
  return NNS_OK;
}

void nns_analysis_free(nns_analysis *a) {
  if (!a)
    return;
  nns__arena_free(&a->arena);
  nns__arena_free(&a->types_arena);
  free(a);
}
