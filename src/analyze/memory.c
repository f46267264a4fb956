/*
 * memory.c - activation memory: the bytes each node writes, the peak of
 * live activations over the model's node order, and the training estimate.
 *
 * Peak, as a simple inference runtime plans its arena (ggml-alloc does the
 * same): graph inputs are live from the start; a node's outputs are
 * allocated when it runs, and every value is freed after its last consumer
 * (a value nobody reads, right after its producer); graph outputs stay to
 * the end. Initializers and their Identity copies are parameters, not
 * activations. The live total is measured after a node's outputs are
 * allocated and before its inputs are freed: that is when both exist.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* a x b as nns__cmul gives it, without its overflow flag. */
static inline int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0)
    return 0;
  return nns__mul_i64(a, b, &r) ? r : INT64_MAX;
}

int64_t nns__value_bytes(const nns_model *m, const nns__value *v,
                         bool *symbolic) {
  const nns__type *t = &v->type;
  if (t->rank < 0 || (t->kind != NNS_KIND_TENSOR &&
                      t->kind != NNS_KIND_OPTIONAL && t->kind != 0))
    return -1;
  int bits = nns__dtype_bits(t->dtype);
  if (bits <= 0)
    return -1;
  /* nns__cmul's saturation (a negative factor gives 0, an overflow
   * INT64_MAX) inline: this runs for every input and output of every
   * node, and two calls per dim were most of its time. */
  nns__cost c;
  c.symbolic = false;
  int64_t n = 1;
  for (int32_t k = 0; k < t->rank; k++) {
    nns__dim d = t->dims[k];
    n = sat_mul(n, d.sym ? nns__dim_count(&c, d, m) : d.v);
  }
  int64_t b = sat_mul(n, bits);
  if (c.symbolic)
    *symbolic = true;
  if (b == INT64_MAX)
    return INT64_MAX;
  return b / 8 + (b % 8 != 0);
}

bool nns__vbytes_start(nns__analysis *a) {
  size_t n = a->model->n_values + 1;
  a->vbytes = calloc(n, sizeof *a->vbytes);
  a->vbytes_symbolic = calloc(n, sizeof *a->vbytes_symbolic);
  if (!a->vbytes || !a->vbytes_symbolic) {
    free(a->vbytes);
    free(a->vbytes_symbolic);
    a->vbytes = NULL;
    a->vbytes_symbolic = NULL;
    return false;
  }
  return true;
}

static int64_t add_sat(int64_t a, int64_t b, unsigned *flags) {
  int64_t r;
  if (!nns__add_i64(a, b, &r)) {
    if (flags)
      *flags |= NNS_COUNT_OVERFLOW;
    return INT64_MAX;
  }
  return r;
}

/* Last position (in main-graph order) at which a node reads each value of
 * the main graph; reads inside its subgraphs count at the node's position. */
static void mark_graph_reads(const nns__graph *main, const nns__graph *g,
                             int64_t pos, int64_t *last);

static void mark_node_reads(const nns__graph *main, const nns__node *n,
                            int64_t pos, int64_t *last) {
  for (int32_t k = 0; k < n->n_in; k++)
    if (n->in[k] && n->in[k]->graph == main && last[n->in[k]->index] < pos)
      last[n->in[k]->index] = pos;
  for (int32_t k = 0; k < n->n_attrs; k++) {
    const nns__attr *at = &n->attrs[k];
    if (at->g)
      mark_graph_reads(main, at->g, pos, last);
    for (int32_t j = 0; at->graphs && j < at->n; j++)
      if (at->graphs[j])
        mark_graph_reads(main, at->graphs[j], pos, last);
  }
}

static void mark_graph_reads(const nns__graph *main, const nns__graph *g,
                             int64_t pos, int64_t *last) {
  for (int32_t i = 0; i < g->n_nodes; i++)
    mark_node_reads(main, &g->nodes[i], pos, last);
}

/* Live totals are sums of up to 2^32 values below 2^63: 128 bits hold
 * them exactly. */
__extension__ typedef __int128 wide;

nns_status nns__memory_analyze(nns_model *m, nns__analysis *a,
                               nns_optimizer opt, nns_error *err) {
  const nns__graph *g = m->graph;
  nns_totals *t = &a->totals;
  size_t nv = m->n_values, nn = (size_t)g->n_nodes;
  int64_t *bytes = malloc((nv + 1) * sizeof *bytes);  /* -1: not tracked */
  int64_t *last = malloc((nv + 1) * sizeof *last);
  uint32_t *bucket = calloc(nn + 2, sizeof *bucket);  /* frees per position */
  uint32_t *frees = malloc((nv + 1) * sizeof *frees);
  uint32_t *fill = malloc((nn + 2) * sizeof *fill);
  /* What each position adds to the live total, unsaturated: the frees
   * subtract exactly these per-value amounts, so the walk must add them
   * too (a saturated per-node total would let `live` go negative). */
  wide *added = malloc((nn + 1) * sizeof *added);
  /* The live total after each position: kept, so in the analysis arena. */
  a->live_bytes = nns__arena_array(&a->arena, nn + 1,
                                 sizeof *a->live_bytes);
  nns_status st = NNS_OK;
  if (!bytes || !last || !bucket || !frees || !fill || !added ||
      !a->live_bytes) {
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    goto done; /* one place frees the walk's arrays */
  }
  unsigned tf = 0;
  wide live_inputs = 0;
  for (size_t i = 0; i < nv; i++) {
    bytes[i] = -1;
    last[i] = -1;
  }
  /* Bytes of every activation of the main graph. */
  for (int32_t i = 0; i < g->n_inputs; i++) {
    const nns__value *v = g->inputs[i];
    if (!v || v->init || a->is_param_value[v->index])
      continue;
    bool sym = false;
    int64_t b = nns__vbytes(a, v, &sym);
    bytes[v->index] = b < 0 ? 0 : b;
    t->input_bytes = add_sat(t->input_bytes, bytes[v->index], &tf);
    live_inputs += bytes[v->index];
  }
  for (size_t p = 0; p < nn; p++) {
    const nns__node *n = a->order[p];
    nns__anode *c = &a->nodes[n->index];
    added[p] = 0;
    for (int32_t k = 0; k < n->n_out; k++) {
      const nns__value *v = n->out[k];
      if (!v || a->is_param_value[v->index])
        continue;
      bool sym = false;
      int64_t b = nns__vbytes(a, v, &sym);
      if (b < 0) {
        c->flags |= NNS_COUNT_PARTIAL; /* size unknown: a lower bound */
        b = 0;
      }
      if (sym)
        c->flags |= NNS_COUNT_SYMBOLIC;
      bytes[v->index] = b;
      last[v->index] = (int64_t)p; /* nobody reads it: freed right away */
      c->activation_bytes = add_sat(c->activation_bytes, b, &c->flags);
      added[p] += b;
    }
    mark_node_reads(g, n, (int64_t)p, last);
  }
  /* Frees bucketed by position (a counting sort); graph outputs are never
   * freed. */
  for (int32_t i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] && g->outputs[i]->graph == g)
      bytes[g->outputs[i]->index] = -1;
  for (size_t i = 0; i < nv; i++)
    if (bytes[i] >= 0)
      bucket[(last[i] < 0 ? 0 : last[i]) + 1]++;
  for (size_t p = 0; p <= nn; p++)
    bucket[p + 1] += bucket[p];
  memcpy(fill, bucket, (nn + 1) * sizeof *fill);
  for (size_t i = 0; i < nv; i++)
    if (bytes[i] >= 0)
      frees[fill[last[i] < 0 ? 0 : last[i]]++] = (uint32_t)i;

  /* The same walk records the curve the peak is the maximum of. */
  wide live = live_inputs, peak = live;
  t->peak_node = "";
  a->peak_position = nn ? 0 : (size_t)-1;
  for (size_t p = 0; p < nn; p++) {
    const nns__node *n = a->order[p];
    live += added[p];
    a->live_bytes[p] = live > INT64_MAX ? INT64_MAX : (int64_t)live;
    if (live > peak) {
      peak = live;
      a->peak_position = p;
      t->peak_node = n->name[0] ? n->name : n->op_type;
    }
    for (uint32_t f = bucket[p]; f < bucket[p + 1]; f++)
      live -= bytes[frees[f]];
  }
  if (peak > INT64_MAX) {
    peak = INT64_MAX;
    tf |= NNS_COUNT_OVERFLOW;
  }
  t->peak_activation_bytes = (int64_t)peak;

  /* Training estimate (params.c ran first: a->params is complete). */
  int64_t trainable = 0, param_bytes = 0, acts = 0;
  for (size_t i = 0; i < a->n_params; i++) {
    const nns_param_info *pi = &a->params[i];
    if (pi->kind == NNS_PARAM_CONSTANT)
      continue;
    param_bytes = add_sat(param_bytes, pi->bytes, &tf);
    if (pi->kind == NNS_PARAM_TRAINABLE)
      trainable = add_sat(trainable, pi->bytes, &tf);
  }
  for (size_t i = 0; i < a->n_nodes; i++)
    acts = add_sat(acts, a->nodes[i].activation_bytes, &tf);
  t->optimizer = opt;
  t->train_param_bytes = param_bytes;
  t->train_grad_bytes = trainable;
  t->train_optimizer_bytes =
      opt == NNS_OPTIMIZER_ADAM || opt == NNS_OPTIMIZER_ADAMW
          ? add_sat(trainable, trainable, &tf)
      : opt == NNS_OPTIMIZER_MOMENTUM ? trainable : 0;
  t->train_activation_bytes = acts;
  int64_t total = add_sat(param_bytes, trainable, &tf);
  total = add_sat(total, t->train_optimizer_bytes, &tf);
  t->train_total_bytes = add_sat(total, acts, &tf);
  a->memory_flags = tf;
done:
  free(added);
  free(bytes);
  free(last);
  free(bucket);
  free(frees);
  free(fill);
  return st;
}
