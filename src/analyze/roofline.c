/*
 * roofline.c - bytes moved, by one rule for every op, and the roofline
 * time of each node on a named device (docs/metrics.md, "Bytes and the
 * roofline").
 *
 * Bytes: a node reads each of its distinct input values once and writes
 * each output once, at the value's storage dtype, weights included: the
 * unfused lower bound a kernel that streams its operands once would pay.
 * A node moves nothing when its op is a view in the op table (Reshape,
 * Flatten, Squeeze, Unsqueeze, Identity, Shape, Constant, ...), when its
 * cost rule took the view rule (Dropout in inference), or when every
 * output was folded to a constant (shape arithmetic, computed once when
 * the model is loaded). An op that picks elements of its first input
 * (the op table's `picks`: Gather, Slice, ...) reads as many as its
 * output holds, not the whole table. Nothing here branches on an op's
 * name.
 *
 * Time: max(flops / peak, bytes / bandwidth) per node, the peak being the
 * requested compute dtype's for the op table's matrix ops and the model's
 * float dtype's for the rest when the requested one is tf32, fp8 or int8.
 * Layers and the model sum their nodes' times.
 */
#include <string.h>

#include "analyze.h"

/* ==== Bytes ==== */

/* True when n does no run-time data movement (see the file comment). */
static bool moves_nothing(const nns__node *n, const nns__cost *c) {
  if ((n->op && n->op->view) || c->view)
    return true;
  bool folded = n->n_out > 0;
  for (int32_t k = 0; k < n->n_out && folded; k++)
    if (n->out[k] && !n->out[k]->cval)
      folded = false;
  return folded;
}

/* Adds v's bytes to c->bytes; flags a tensor of unknown size (PARTIAL) or
 * a symbol taken as 1. Sequences and maps have no storage dtype of their
 * own: the ops that make or read their tensors count those. */
static void add_value(const nns_model *m, const nns__value *v, nns__cost *c) {
  if (v->type.kind != NNS_KIND_TENSOR && v->type.kind != 0)
    return;
  bool sym = false;
  int64_t b = nns__value_bytes(m, v, &sym);
  if (sym)
    c->symbolic = true;
  if (b < 0) {
    c->partial = true;
    return;
  }
  c->bytes = nns__cadd(c, c->bytes, b);
}

void nns__node_bytes(const nns_model *m, const nns__node *n, nns__cost *c) {
  c->bytes = 0;
  if (moves_nothing(n, c))
    return;
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
      add_value(m, v, c);
  }
  for (int32_t k = 0; k < n->n_out; k++)
    if (n->out[k])
      add_value(m, n->out[k], c);
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
  if (!given)
    return NNS_OK;
  nns_hardware hw;
  memset(&hw, 0, sizeof hw);
  if (NNS__GET(&hw, given, NNS__V1_HARDWARE) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_hardware.size is %zu, below the first version's %zu",
                    given->size, (size_t)NNS__V1_HARDWARE);
  const char *name = hw.name && hw.name[0] ? hw.name : "(unnamed)";
  if (!(hw.bandwidth > 0))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "hardware '%.80s' has no memory bandwidth (give one: "
                    "--bandwidth)", name);
  int32_t storage = model_float_dtype(m, a);
  nns_compute_dtype model = compute_of(storage);
  nns_compute_dtype want = model;
  if (dtype) {
    int d = 0;
    while (d < NNS_COMPUTE_DTYPE_COUNT && strcmp(nns_compute_dtype_name(d), dtype))
      d++;
    if (d == NNS_COMPUTE_DTYPE_COUNT)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "unknown compute dtype '%.40s' (fp32, tf32, bf16, "
                      "fp16, fp8, int8)", dtype);
    want = (nns_compute_dtype)d;
  }
  /* tf32, fp8 and int8 are matrix modes: the other ops keep the model's
   * float dtype, and an fp8 model's element-wise ops run at fp16. */
  nns_compute_dtype other = want;
  if (want == NNS_COMPUTE_TF32 || want == NNS_COMPUTE_FP8 ||
      want == NNS_COMPUTE_INT8)
    other = model == NNS_COMPUTE_FP8 ? NNS_COMPUTE_FP16 : model;
  nns_compute_dtype need[2] = {want, other};
  for (int k = 0; k < 2; k++) {
    double p = hw.peak_flops[need[k]];
    if (!(p > 0) || p != p)
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

/* n's time on the device, into its own counts. */
static void node_time(const nns__analysis *a, const nns__node *n,
                      nns_counts *k) {
  if (!a->roofline)
    return;
  double peak = n->op && n->op->matrix ? a->roof_matrix_peak
                                       : a->roof_other_peak;
  double tc = (double)k->flops / peak;
  double tm = (double)k->bytes / a->roof_bandwidth;
  if (tm > tc) {
    k->memory_time_s = tm;
    k->time_s = tm;
  } else {
    k->compute_time_s = tc;
    k->time_s = tc;
  }
}

/* Intensity and bound from a row's sums. */
static void finish(const nns__analysis *a, nns_counts *k) {
  k->intensity = k->bytes > 0 ? (double)k->flops / (double)k->bytes : 0;
  if (!a->roofline)
    k->bound = NNS_BOUND_NONE;
  else if (k->memory_time_s > k->compute_time_s)
    k->bound = NNS_BOUND_MEMORY;
  else
    k->bound = k->compute_time_s > 0 ? NNS_BOUND_COMPUTE : NNS_BOUND_NONE;
}

void nns__roofline_nodes(nns_model *m, nns__analysis *a) {
  for (size_t i = 0; i < a->n_nodes; i++) {
    const nns__node *n = &m->graph->nodes[i];
    node_time(a, n, &a->nodes[n->index].counts);
    finish(a, &a->nodes[n->index].counts);
  }
  for (size_t i = 0; a->node_counts && i < m->n_nodes; i++) {
    if (m->nodes[i]->graph == a->main)
      continue;
    node_time(a, m->nodes[i], &a->node_counts[i]);
    finish(a, &a->node_counts[i]);
  }
}

void nns__roofline_finish(nns__analysis *a) {
  for (size_t l = 0; l < a->n_layers; l++)
    finish(a, &a->layers[l].counts);
  for (size_t r = 0; r < a->n_optypes; r++)
    finish(a, &a->optypes[r].counts);
  finish(a, &a->all);
}
