/*
 * mfu.c - model FLOPs utilisation: what one training step costs, from the
 * analyses of its recorded forward and backward, and what share of a
 * device's peak the step's measured time makes of it (docs/metrics.md,
 * "MFU and throughput").
 *
 * The FLOPs are those the peak applies to: the matrix products (the op
 * table's `matrix` entries, as the roofline's), a multiply-add counted as
 * two (2 x MACs, the convention of PaLM and Megatron and of PyTorch's
 * FlopCounterMode). model_flops counts the attention products over the
 * (query, key) pairs the masks allow (macs_unmasked); hardware_flops adds
 * the forward nodes that gradient checkpointing runs again in the
 * backward, named one by one or as whole modules (the caller knows which:
 * non-reentrant checkpointing stops early, step.py). The time is the caller's (a binding measures it); the
 * peak is a device's dense figure at the step's compute dtype, or one the
 * caller gives. Nothing here prints: a peak that cannot apply and an
 * MFU above 100 % are errors with a message.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ==== FLOPs of a step ==== */

/* The recomputed names, sorted, for lookups by binary search: a model
 * with thousands of nodes rerun names thousands of them. */
typedef struct {
  const char **v;
  size_t n;
} names;

static int cmp_name(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Whether the first `len` bytes of `s` are one of the names. */
static bool named(const names *set, const char *s, size_t len) {
  size_t lo = 0, hi = set->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char *v = set->v[mid];
    int c = strncmp(v, s, len);
    if (c == 0 && v[len] != '\0')
      c = 1; /* v is longer: after s */
    if (c == 0)
      return true;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

/* True when node k of `a` is named or inside a named module (its layer's
 * path, one of its enclosing modules, or "" the model). */
static bool recomputed_node(const nns__analysis *a, const names *set,
                            const nns__node *node, uint32_t l) {
  if (node->name && named(set, node->name, strlen(node->name)))
    return true;
  if (named(set, "", 0))
    return true;
  if (l == NNS__NONE32 || l >= a->n_layers || !a->layers[l].info.path)
    return false;
  const char *p = a->layers[l].info.path;
  size_t n = strlen(p);
  for (size_t i = 0; i <= n; i++)
    if ((p[i] == '.' || p[i] == '\0') && named(set, p, i))
      return true;
  return false;
}

/* Sums 2 x MACs of the matrix nodes (masked and dense) of `a`; with
 * `set`, only of the nodes named there or inside a module named there. */
static void matrix_flops(const nns__analysis *a, const names *set,
                         int64_t *masked, int64_t *dense, unsigned *flags) {
  for (size_t k = 0; k < a->n_nodes; k++) {
    const nns__node *node = a->order[k];
    if (!node->op || !node->op->matrix)
      continue;
    const nns__anode *n = &a->nodes[node->index];
    if (set && !recomputed_node(a, set, node, n->layer))
      continue;
    int64_t cut = n->more ? a->node_more[n->more - 1].macs_cut : 0;
    *dense = nns__sum_sat(*dense, nns__sum_sat(n->macs, n->macs));
    *masked = nns__sum_sat(*masked,
                           nns__sum_sat(n->macs - cut, n->macs - cut));
    *flags |= n->flags;
  }
}

nns_status nns_step_flops_of(const nns_analysis *forward,
                             const nns_analysis *backward,
                             const char *const *recomputed,
                             size_t n_recomputed, nns_step_flops *out,
                             nns_error *err) {
  if (!forward || !backward || !out || out->size < sizeof *out ||
      (n_recomputed && !recomputed))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_step_flops_of: NULL argument or short struct");
  nns_step_flops r = {.size = sizeof r};
  int64_t fm = 0, fd = 0, bm = 0, bd = 0;
  matrix_flops(forward, NULL, &fm, &fd, &r.flags);
  matrix_flops(backward, NULL, &bm, &bd, &r.flags);
  if (n_recomputed) {
    names set = {malloc(n_recomputed * sizeof *set.v), 0};
    if (!set.v)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    for (size_t j = 0; j < n_recomputed; j++)
      if (recomputed[j])
        set.v[set.n++] = recomputed[j];
    qsort(set.v, set.n, sizeof *set.v, cmp_name);
    matrix_flops(forward, &set, &r.recompute_flops, &r.recompute_flops_dense,
                 &r.flags);
    free(set.v);
  }
  r.forward_flops = fm;
  r.backward_flops = bm;
  r.model_flops = nns__sum_sat(fm, bm);
  r.model_flops_dense = nns__sum_sat(fd, bd);
  r.hardware_flops = nns__sum_sat(r.model_flops, r.recompute_flops);
  r.all_flops = nns__sum_sat(forward->all.flops_unmasked,
                             backward->all.flops_unmasked);
  r.tokens = forward->totals.tokens;
  *out = r;
  return NNS_OK;
}

/* ==== Utilisation ==== */

static int dtype_of(const char *name) {
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
    if (name && strcmp(nns_compute_dtype_name(d), name) == 0)
      return d;
  return -1;
}

/* True when a step whose matrix products run in `step` may be measured
 * against the peak of `peak`: the same dtype, or fp32 products on the
 * TF32 units (PyTorch's allow_tf32). An fp8 peak for a bf16 step, a bf16
 * peak for an fp32 step (and any other pair) would count work at a speed
 * it never ran at. */
static bool peak_applies(int step, int peak) {
  return step == peak || (step == NNS_COMPUTE_FP32 && peak == NNS_COMPUTE_TF32);
}

nns_status nns_mfu_compute(const nns_step_flops *flops, double step_s,
                           int64_t samples, int64_t tokens,
                           const nns_mfu_options *opts, nns_mfu *out,
                           nns_error *err) {
  if (!flops || !opts || !out || flops->size < sizeof *flops ||
      opts->size < sizeof *opts || out->size < sizeof *out)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_mfu_compute: NULL argument or short struct");
  if (!(step_s > 0) || !isfinite(step_s))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "step time %g s: a step takes a positive, finite time",
                    step_s);
  int step = dtype_of(opts->step_dtype);
  if (step < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "step dtype '%.40s': one of fp32, tf32, bf16, fp16, fp8, "
                    "int8", opts->step_dtype ? opts->step_dtype : "(null)");
  int peak = opts->peak_dtype ? dtype_of(opts->peak_dtype) : step;
  if (peak < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "peak dtype '%.40s': one of fp32, tf32, bf16, fp16, fp8, "
                    "int8", opts->peak_dtype);
  if (!peak_applies(step, peak))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "the %s peak cannot apply to a step whose matrix products "
                    "run in %s: MFU is measured against the peak of the "
                    "dtype the step computes in",
                    nns_compute_dtype_name(peak), nns_compute_dtype_name(step));
  nns_mfu r = {.size = sizeof r, .step_s = step_s, .peak_dtype = peak,
               .density = "dense"};
  if (opts->peak_flops > 0) {
    if (!isfinite(opts->peak_flops))
      return nns__err(err, NNS_E_ARG, -1, NULL, "peak FLOP/s is not finite");
    r.peak_flops = opts->peak_flops;
    r.device = opts->hardware && opts->hardware->name ? opts->hardware->name
                                                      : "given";
  } else if (opts->hardware) {
    const nns_hardware *h = opts->hardware;
    if (h->size < sizeof *h)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "nns_mfu_compute: short nns_hardware");
    r.peak_flops = h->peak_flops[peak];
    r.device = h->name ? h->name : "given";
    if (!(r.peak_flops > 0))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "hardware '%.80s' lists no %s peak (give one: a peak "
                      "FLOP/s, or a hardware file)",
                      r.device, nns_compute_dtype_name(peak));
  } else {
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "no peak: name a device or give a peak FLOP/s");
  }
  if (tokens < 0)
    tokens = flops->tokens;
  r.tokens = tokens;
  r.samples = samples;
  r.tokens_per_s = tokens > 0 ? (double)tokens / step_s : 0;
  r.samples_per_s = samples > 0 ? (double)samples / step_s : 0;
  r.model_flops_per_s = (double)flops->model_flops / step_s;
  r.hardware_flops_per_s = (double)flops->hardware_flops / step_s;
  r.mfu = r.model_flops_per_s / r.peak_flops;
  r.hfu = r.hardware_flops_per_s / r.peak_flops;
  if (r.hfu > 1.0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s of %.1f%% is above 100%%: %.4g FLOPs in %.4g s is "
                    "%.4g FLOP/s, past the %s %s peak of %.4g FLOP/s "
                    "(a peak per node instead of per device, a sparse "
                    "figure, or a time that did not wait for the device?)",
                    r.mfu > 1.0 ? "MFU" : "HFU",
                    100.0 * (r.mfu > 1.0 ? r.mfu : r.hfu),
                    (double)(r.mfu > 1.0 ? flops->model_flops
                                         : flops->hardware_flops),
                    step_s,
                    r.mfu > 1.0 ? r.model_flops_per_s : r.hardware_flops_per_s,
                    r.device, nns_compute_dtype_name(peak), r.peak_flops);
  *out = r;
  return NNS_OK;
}
