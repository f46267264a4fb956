/*
 * roofline.c - bytes moved, by one rule for every op, and the roofline
 * time of each node on a named device (docs/metrics.md, "Bytes and the
 * roofline").
 *
 * Bytes: a node reads each of its distinct input values once and writes
 * each output once, at the value's storage dtype, weights included: what
 * a kernel that streams its operands once pays. A node moves nothing when
 * its op is a view in the op table (Reshape, Flatten, Squeeze, Unsqueeze,
 * Identity, Shape, Constant, ...), when its cost rule took the view rule
 * (Dropout in inference), or when every output was folded to a constant
 * (shape arithmetic, computed once when the model is loaded). An op that
 * picks elements of its first input (the op table's `picks`: Gather,
 * Slice, ...) reads as many as its output holds, not the whole table.
 * Nothing here branches on an op's name.
 *
 * Kernels: nodes a binding marked as one kernel (nns_builder_mark_kernel:
 * the nodes a PyTorch recording spells one aten op with) run as one unit.
 * Only values crossing its boundary move: an input is read once, by the
 * first of its nodes that reads it, unless one of them produced it; an
 * output is written by its producer unless only the kernel's own nodes
 * read it and it is not a graph output (a value nobody reads is written).
 * A view inside the kernel stands for the value it views. An ONNX file's
 * nodes are kernels of their own: every value read and written.
 *
 * Time: max(flops / peak, bytes / bandwidth) per node, the peak being the
 * requested compute dtype's for the op table's matrix ops and the model's
 * float dtype's for the rest when the requested one is tf32, fp8 or int8.
 * A kernel is one roofline unit: max(sum of its nodes' flops / peak, its
 * bytes / bandwidth), the larger term giving each of its nodes its own
 * share (its flops / peak, or its bytes / bandwidth), so that the nodes'
 * times add up to the kernel's. Layers and the model sum their nodes'
 * times.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ==== Bytes ==== */

bool nns__is_view(const nns__node *n, const nns__cost *c) {
  return (n->op && n->op->view) || c->view;
}

/* True when n does no run-time data movement (see the file comment). */
bool nns__moves_nothing(const nns__node *n, const nns__cost *c) {
  if (nns__is_view(n, c))
    return true;
  bool folded = n->n_out > 0;
  for (int32_t k = 0; k < n->n_out && folded; k++)
    if (n->out[k] && !n->out[k]->cval)
      folded = false;
  return folded;
}

/* v's bytes, or -1 (nothing to add); flags a tensor of unknown size
 * (PARTIAL) or a symbol taken as 1. Sequences and maps have no storage
 * dtype of their own: the ops that make or read their tensors count
 * those. */
static int64_t value_bytes(const nns__analysis *a, const nns__value *v,
                           nns__cost *c) {
  if (v->type.kind != NNS_KIND_TENSOR && v->type.kind != 0)
    return -1;
  bool sym = false;
  int64_t b = nns__vbytes(a, v, &sym);
  if (sym)
    c->symbolic = true;
  if (b < 0)
    c->partial = true;
  return b;
}

/* Adds v's bytes to c->bytes (value_bytes). */
static void add_value(const nns__analysis *a, const nns__value *v,
                      nns__cost *c) {
  int64_t b = value_bytes(a, v, c);
  if (b >= 0)
    c->bytes = nns__cadd(c, c->bytes, b);
}

void nns__node_bytes(const nns__analysis *a, const nns__node *n,
                     nns__cost *c) {
  c->bytes = 0;
  if (nns__moves_nothing(n, c) || n->kernel_count)
    return; /* a kernel's nodes: nns__kernel_bytes */
  for (int32_t i = 0; i < n->n_in; i++) {
    const nns__value *v = n->in[i];
    bool seen = !v;
    for (int32_t j = 0; j < i && !seen; j++)
      seen = n->in[j] == v; /* Mul(x, x) reads x once */
    /* Gather, Slice: only the picked elements of the table are read,
     * as many as the output holds (at the output's dtype, the table's). */
    if (!seen && i == 0 && n->op && n->op->picks && n->n_out > 0 &&
        n->out[0])
      v = n->out[0];
    if (!seen)
      add_value(a, v, c);
  }
  for (int32_t k = 0; k < n->n_out; k++)
    if (n->out[k])
      add_value(a, n->out[k], c);
}

/* ==== Kernels ==== */

/* What the kernel pass knows of each model value (by nns__value.index). */
enum {
  K_READ = 1,      /* a node reads it */
  K_ESCAPES = 2,   /* a node outside its producer's kernel reads it, or
                      it is a graph's output */
};

typedef struct kpass {
  const nns_model *m;
  const nns__analysis *a;
  const nns__graph *g;  /* the main graph, the only one with kernels */
  uint8_t *use;         /* K_* per value */
  uint32_t *stamp;      /* 1 + the first node of the kernel that last read
                           the value */
  int64_t *charged;     /* bytes that kernel was charged for reading it */
} kpass;

static bool listed(const kpass *s, const nns__value *v) {
  return v && v->index < s->m->n_values;
}

/* True when v is produced by a node of the kernel whose first node is
 * `first`. */
static bool made_in(const kpass *s, const nns__value *v, int32_t first) {
  const nns__node *p = v ? v->producer : NULL;
  return p && p->graph == s->g && p->kernel_count &&
         p->kernel_first == first;
}

/* True when node p's first output is its first input under another shape
 * (a Reshape, Squeeze, Identity, Dropout in inference): a view the kernel
 * reads through. Shape, whose output is no copy of its input, is not. */
static bool aliases(const kpass *s, const nns__node *p) {
  if (!s->a->nodes[p->index].view || p->n_in < 1 || p->n_out < 1 ||
      !p->in[0] || !p->out[0] || p->in[0]->type.dtype != p->out[0]->type.dtype)
    return false;
  bool sym = false;
  return nns__vbytes(s->a, p->in[0], &sym) ==
         nns__vbytes(s->a, p->out[0], &sym);
}

/* The value v stands for in the kernel: through the views its nodes
 * make, the value they view. */
static const nns__value *root(const kpass *s, const nns__value *v,
                              int32_t first) {
  while (made_in(s, v, first) && aliases(s, v->producer))
    v = v->producer->in[0];
  return v;
}

/* True when v, made in a kernel, is written: read outside it, a graph
 * output, or read by nobody. */
static bool written(const kpass *s, const nns__value *v) {
  uint8_t u = s->use[v->index];
  return (u & K_ESCAPES) || !(u & K_READ);
}

static void escapes(kpass *s, const nns__value *v) {
  if (listed(s, v))
    s->use[v->index] |= K_ESCAPES;
}

/* Who reads each value a kernel makes: every node of every graph, and
 * every graph's outputs (a subgraph's may name an outer value). */
static void find_readers(kpass *s) {
  const nns_model *m = s->m;
  for (int32_t i = 0; i < s->g->n_outputs; i++)
    escapes(s, s->g->outputs[i]);
  for (size_t i = 0; i < m->n_nodes; i++) {
    const nns__node *q = m->nodes[i];
    for (int32_t k = 0; k < q->n_in; k++) {
      const nns__value *v = q->in[k];
      const nns__node *p = v ? v->producer : NULL;
      if (!p || !p->kernel_count || p->graph != s->g || !listed(s, v))
        continue;
      s->use[v->index] |= K_READ;
      if (q->graph != s->g || !made_in(s, v, q->kernel_count
                                                 ? q->kernel_first : -1))
        s->use[v->index] |= K_ESCAPES;
    }
    for (int32_t k = 0; k < q->n_attrs; k++) {
      const nns__attr *at = &q->attrs[k];
      for (int32_t j = 0; at->g && j < at->g->n_outputs; j++)
        escapes(s, at->g->outputs[j]);
      for (int32_t t = 0; at->graphs && t < at->n; t++)
        for (int32_t j = 0; at->graphs[t] && j < at->graphs[t]->n_outputs;
             j++)
          escapes(s, at->graphs[t]->outputs[j]);
    }
  }
}

/* A view in the kernel whose value is written makes the value it views
 * written (by that value's producer): last node first, so that views of
 * views pass it on. */
static void views_write_through(kpass *s, int32_t first) {
  int32_t count = s->g->nodes[first].kernel_count;
  for (int32_t j = first + count; j-- > first;) {
    const nns__node *v = &s->g->nodes[j];
    if (aliases(s, v) && made_in(s, v->in[0], first) && listed(s, v->out[0]) &&
        written(s, v->out[0]))
      escapes(s, v->in[0]);
  }
}

/* A read of value r (a kernel's input) of `b` bytes by a node of the
 * kernel starting at `first`, into c: the first read of r in the kernel
 * pays, a later one only what it reads beyond (a whole table after a pick
 * of it). */
static void read_once(kpass *s, const nns__value *r, int64_t b,
                      int32_t first, nns__cost *c) {
  if (b < 0)
    return;
  if (!listed(s, r)) {
    c->bytes = nns__cadd(c, c->bytes, b);
    return;
  }
  uint32_t mark = (uint32_t)first + 1;
  int64_t paid = s->stamp[r->index] == mark ? s->charged[r->index] : 0;
  s->stamp[r->index] = mark;
  if (b > paid) {
    c->bytes = nns__cadd(c, c->bytes, b - paid);
    s->charged[r->index] = b;
  }
}

/* Node n's share of its kernel's bytes (the file comment's rule). */
static void kernel_node_bytes(kpass *s, const nns__node *n, nns__cost *c) {
  int32_t first = n->kernel_first;
  if (s->a->nodes[n->index].still)
    return;
  for (int32_t i = 0; i < n->n_in; i++) {
    const nns__value *v = n->in[i];
    bool seen = !v;
    for (int32_t j = 0; j < i && !seen; j++)
      seen = n->in[j] == v;
    if (seen)
      continue;
    const nns__value *r = root(s, v, first);
    if (made_in(s, r, first))
      continue; /* made by a node of the kernel */
    const nns__value *size = v;
    if (i == 0 && n->op && n->op->picks && n->n_out > 0 && n->out[0])
      size = n->out[0];
    read_once(s, r, value_bytes(s->a, size, c), first, c);
  }
  for (int32_t k = 0; k < n->n_out; k++) {
    const nns__value *w = n->out[k];
    if (w && (!listed(s, w) || written(s, w)))
      add_value(s->a, w, c);
  }
}

nns_status nns__kernel_bytes(nns_model *m, nns__analysis *a) {
  const nns__graph *g = a->main;
  bool any = false;
  for (int32_t i = 0; i < g->n_nodes && !any; i++)
    any = g->nodes[i].kernel_count > 0;
  if (!any)
    return NNS_OK;
  size_t nv = m->n_values + 1;
  kpass s = {.m = m, .a = a, .g = g,
             .use = calloc(nv, sizeof *s.use),
             .stamp = calloc(nv, sizeof *s.stamp),
             .charged = calloc(nv, sizeof *s.charged)};
  nns_status st = NNS_E_NOMEM;
  if (!s.use || !s.stamp || !s.charged)
    goto out;
  find_readers(&s);
  for (int32_t i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].kernel_count && g->nodes[i].kernel_first == i)
      views_write_through(&s, i);
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    if (!n->kernel_count)
      continue;
    nns__cost c;
    memset(&c, 0, sizeof c);
    kernel_node_bytes(&s, n, &c);
    nns__anode *k = &a->nodes[n->index];
    k->bytes = c.bytes;
    k->flags |= (c.partial ? NNS_COUNT_PARTIAL : 0u) |
                (c.symbolic ? NNS_COUNT_SYMBOLIC : 0u) |
                (c.overflow ? NNS_COUNT_OVERFLOW : 0u);
  }
  st = NNS_OK;
out:
  free(s.use);
  free(s.stamp);
  free(s.charged);
  return st;
}

/* ==== The device and the dtypes ==== */

/* The float dtype holding the most parameter bytes, else that of the
 * first floating-point graph input, else float32 (ONNX dtype numbers). */
static int32_t model_float_dtype(const nns_model *m, const nns__analysis *a) {
  int32_t best = 0;
  int64_t best_bytes = -1;
  for (size_t i = 0; i < a->n_dtypes; i++)
    if (nns__dtype_is_float(a->dtypes[i].dtype) &&
        a->dtypes[i].bytes > best_bytes) {
      best = a->dtypes[i].dtype;
      best_bytes = a->dtypes[i].bytes;
    }
  for (int32_t i = 0; !best && i < m->graph->n_inputs; i++) {
    const nns__value *v = m->graph->inputs[i];
    if (v && nns__dtype_is_float(v->type.dtype))
      best = v->type.dtype;
  }
  return best ? best : NNS_DT_FLOAT;
}

/* The compute dtype a storage dtype runs at: float16 and bfloat16 at
 * their own peaks, float8 at fp8's, everything else (float32, float64)
 * at fp32's (the table has no fp64 column). */
static nns_compute_dtype compute_of(int32_t dtype) {
  switch (dtype) {
  case NNS_DT_FLOAT16:
    return NNS_COMPUTE_FP16;
  case NNS_DT_BFLOAT16:
    return NNS_COMPUTE_BF16;
  case NNS_DT_FLOAT8E4M3FN:
  case NNS_DT_FLOAT8E4M3FNUZ:
  case NNS_DT_FLOAT8E5M2:
  case NNS_DT_FLOAT8E5M2FNUZ:
    return NNS_COMPUTE_FP8;
  default:
    return NNS_COMPUTE_FP32;
  }
}

nns_compute_dtype nns_compute_dtype_of(int dtype) {
  return compute_of((int32_t)dtype);
}

/* A copy of s in the analysis arena ("" for NULL), or NULL. */
static const char *arena_str(nns__analysis *a, const char *s) {
  size_t n = s ? strlen(s) : 0;
  char *c = nns__arena_alloc(&a->arena, n + 1);
  if (c) {
    if (n)
      memcpy(c, s, n);
    c[n] = 0;
  }
  return c;
}

nns_status nns__roofline_setup(nns_model *m, nns__analysis *a,
                               const nns_hardware *given, const char *dtype,
                               nns_error *err) {
  /* The name is checked with or without a device: a misspelt dtype is
   * never silently dropped (issue 47). */
  int named = 0;
  if (dtype) {
    while (named < NNS_COMPUTE_DTYPE_COUNT &&
           strcmp(nns_compute_dtype_name(named), dtype))
      named++;
    if (named == NNS_COMPUTE_DTYPE_COUNT)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "unknown compute dtype '%.40s' (fp32, tf32, bf16, "
                      "fp16, fp8, int8)", dtype);
  }
  if (!given)
    return NNS_OK;
  nns_hardware hw;
  memset(&hw, 0, sizeof hw);
  if (NNS__GET(&hw, given, NNS__V1_HARDWARE) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_hardware.size is %zu, below the first version's %zu",
                    given->size, (size_t)NNS__V1_HARDWARE);
  const char *name = hw.name && hw.name[0] ? hw.name : "(unnamed)";
  if (hw.bandwidth == 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "hardware '%.80s' has no memory bandwidth (give one: "
                    "--bandwidth)", name);
  if (!nns__hw_figure_ok(hw.bandwidth))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "hardware '%.80s': bandwidth %g bytes/s is not a number "
                    "from " NNS__HW_FIGURE_RANGE, name, hw.bandwidth);
  /* Every peak given, used here or not: 0 is "none", else a figure. */
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
    if (hw.peak_flops[d] != 0 && !nns__hw_figure_ok(hw.peak_flops[d]))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "hardware '%.80s': %s peak %g FLOP/s is not a number "
                      "from " NNS__HW_FIGURE_RANGE, name,
                      nns_compute_dtype_name(d), hw.peak_flops[d]);
  int32_t storage = model_float_dtype(m, a);
  nns_compute_dtype model = compute_of(storage);
  nns_compute_dtype want = model;
  if (dtype)
    want = (nns_compute_dtype)named;
  /* tf32, fp8 and int8 are matrix modes: the other ops keep the model's
   * float dtype, and an fp8 model's element-wise ops run at fp16. */
  nns_compute_dtype other = want;
  if (want == NNS_COMPUTE_TF32 || want == NNS_COMPUTE_FP8 ||
      want == NNS_COMPUTE_INT8)
    other = model == NNS_COMPUTE_FP8 ? NNS_COMPUTE_FP16 : model;
  nns_compute_dtype need[2] = {want, other};
  for (int k = 0; k < 2; k++) {
    double p = hw.peak_flops[need[k]];
    if (p == 0)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "hardware '%.80s' lists no %s peak%s", name,
                      nns_compute_dtype_name(need[k]),
                      k ? " (the model's float dtype, which the ops other "
                          "than matrix products run at)"
                        : " (give one: --peak-flops, or another --dtype)");
  }
  a->roof_matrix_peak = hw.peak_flops[want];
  a->roof_other_peak = hw.peak_flops[other];
  a->roof_bandwidth = hw.bandwidth;
  a->roofline = true;
  hw.size = sizeof hw;
  hw.name = arena_str(a, hw.name);
  hw.description = arena_str(a, hw.description);
  hw.source = arena_str(a, hw.source);
  if (!hw.name || !hw.description || !hw.source)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  a->totals.hardware = hw;
  a->totals.compute_dtype = want;
  a->totals.float_dtype = other;
  return NNS_OK;
}

/* ==== Times ==== */

static double peak_of(const nns__analysis *a, const nns__node *n) {
  return n->op && n->op->matrix ? a->roof_matrix_peak : a->roof_other_peak;
}

/* n's time on the device: from its own flops and bytes, the larger of
 * compute and memory. */
static void node_time(const nns__analysis *a, const nns__node *n,
                      int64_t flops, int64_t bytes, double *time_s,
                      double *compute_time_s, double *memory_time_s) {
  double tc = (double)flops / peak_of(a, n);
  double tm = (double)bytes / a->roof_bandwidth;
  if (tm > tc) {
    *memory_time_s = tm;
    *time_s = tm;
  } else {
    *compute_time_s = tc;
    *time_s = tc;
  }
}

/* The bound of a row's times. */
static int bound_of(const nns__analysis *a, double compute_time_s,
                    double memory_time_s) {
  if (!a->roofline)
    return NNS_BOUND_NONE;
  if (memory_time_s > compute_time_s)
    return NNS_BOUND_MEMORY;
  return compute_time_s > 0 ? NNS_BOUND_COMPUTE : NNS_BOUND_NONE;
}

void nns__counts_finish(const nns__analysis *a, nns_counts *k) {
  k->intensity = k->bytes > 0 ? (double)k->flops / (double)k->bytes : 0;
  k->bound = bound_of(a, k->compute_time_s, k->memory_time_s);
}

/* The times of the kernel whose first node is nodes[first]: one roofline
 * unit, whose larger term gives each node its share and its bound. */
static void kernel_times(const nns__analysis *a, const nns__graph *g,
                         int32_t first) {
  int32_t end = first + g->nodes[first].kernel_count;
  double tc = 0, tm = 0;
  for (int32_t j = first; j < end; j++) {
    const nns__anode *k = &a->nodes[j];
    tc += (double)k->flops / peak_of(a, &g->nodes[j]);
    tm += (double)k->bytes / a->roof_bandwidth;
  }
  bool memory = tm > tc;
  int bound = memory   ? NNS_BOUND_MEMORY
              : tc > 0 ? NNS_BOUND_COMPUTE
                       : NNS_BOUND_NONE;
  for (int32_t j = first; j < end; j++) {
    const nns__anode *k = &a->nodes[j];
    nns__anode_time *t = &a->node_times[j];
    if (memory) {
      t->memory_time_s = (double)k->bytes / a->roof_bandwidth;
      t->time_s = t->memory_time_s;
    } else {
      t->compute_time_s = (double)k->flops / peak_of(a, &g->nodes[j]);
      t->time_s = t->compute_time_s;
    }
    t->bound = bound;
  }
}

/* A main-graph node's intensity is worked out from its row when it is
 * read (nns__node_counts); its times are kept only with a device. */
void nns__roofline_nodes(nns_model *m, nns__analysis *a) {
  if (a->roofline) {
    a->node_times = nns__arena_array(&a->arena, a->n_nodes + 1,
                                     sizeof *a->node_times);
    if (!a->node_times) {
      a->nomem = true;
      return;
    }
  }
  for (size_t i = 0; a->roofline && i < a->n_nodes; i++) {
    const nns__node *n = &m->graph->nodes[i];
    if (n->kernel_count) {
      if (n->kernel_first == (int32_t)i)
        kernel_times(a, m->graph, (int32_t)i);
      continue;
    }
    nns__anode_time *t = &a->node_times[n->index];
    node_time(a, n, a->nodes[n->index].flops, a->nodes[n->index].bytes,
              &t->time_s, &t->compute_time_s, &t->memory_time_s);
    t->bound = bound_of(a, t->compute_time_s, t->memory_time_s);
  }
  for (size_t i = 0; a->node_counts && i < m->n_nodes; i++) {
    if (m->nodes[i]->graph == a->main)
      continue;
    nns_counts *k = &a->node_counts[i];
    if (a->roofline)
      node_time(a, m->nodes[i], k->flops, k->bytes, &k->time_s,
                &k->compute_time_s, &k->memory_time_s);
    nns__counts_finish(a, k);
  }
}

void nns__roofline_finish(nns__analysis *a) {
  for (size_t r = 0; r < a->n_optypes; r++)
    nns__counts_finish(a, &a->optypes[r].counts);
  nns__counts_finish(a, &a->all);
}
