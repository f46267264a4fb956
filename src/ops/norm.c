/*
 * norm.c - operator family "norm": BatchNormalization (every version, with
 * its optional running/saved statistics outputs), InstanceNormalization,
 * LayerNormalization (with its Mean and InvStdDev outputs), and the
 * shape-preserving LpNormalization, LRN and MeanVarianceNormalization.
 *
 * Costs follow docs/metrics.md's BatchNormalization and LayerNormalization
 * rows; the other normalisations are counted in the same spirit, each
 * beside its rule. None has a receptive-field rule: like torchscan, a
 * normalisation keeps its input's field (its statistics are not a window).
 *
 * GroupNormalization (opset 18) is beyond the opsets this table covers.
 */
#include "dot.h"
#include "rf_axes.h"
#include "shape_util.h"

/* ==== Helpers ==== */

static nns_status same_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

/* Channel count C of X = [N, C, ...], or a fresh symbol. */
static nns__dim channels(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0);
  return tx && tx->rank >= 2 ? tx->dims[1] : nns__fresh(cx);
}

/* Checks that per-channel input i (scale, bias, mean, var) is [C]. */
static nns_status check_per_channel(nns__ictx *cx, int i, const char *what,
                                    nns__dim c) {
  const nns__type *t = nns__in_type(cx, i);
  if (!t || t->rank < 0)
    return NNS_OK;
  if (t->rank != 1)
    return nns__fail(cx, NNS_E_SHAPE, "%s has rank %d, expected 1 ([C])",
                     what, t->rank);
  if (!t->dims[0].sym && !c.sym && t->dims[0].v != c.v)
    return nns__fail(cx, NNS_E_SHAPE, "%s has %lld elements but the input "
                     "has %lld channels", what, (long long)t->dims[0].v,
                     (long long)c.v);
  return NNS_OK;
}

/* ==== BatchNormalization ==== */

/*
 * Y is like X. The optional outputs (running mean and var; before opset 14
 * also saved mean and var) are shaped like the mean input, i.e. [C] - or
 * with spatial=0 (opsets < 9) the per-element statistics' shape.
 */
static nns_status batch_norm_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  if (tx && tx->rank == 0) /* rank 1 ([N], no channel axis) is let through */
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "...]", tx->rank);
  bool spatial = cx->op->since >= 9 || nns__attr_int(cx, "spatial") != 0;
  nns__dim c = channels(cx);
  if (spatial) {
    static const char *const what[] = {NULL, "scale", "B", "mean", "var"};
    for (int i = 1; i <= 4; i++) {
      nns_status st = check_per_channel(cx, i, what[i], c);
      if (st != NNS_OK)
        return st;
    }
  }
  /* Statistics' type: input_mean's (T2 / U from opset 14), else X's. */
  int32_t sdt = nns__in_dtype(cx, 3);
  if (!sdt)
    sdt = nns__in_dtype(cx, 0);
  const nns__type *tm = nns__in_type(cx, 3);
  for (int o = 1; o < nns__n_out(cx); o++) {
    if (!spatial && tm && tm->rank >= 0) {
      nns__out_type(cx, o, tm);
      continue;
    }
    nns__dim *d = nns__out_shape(cx, o, sdt, spatial ? 1 : -1);
    if (d)
      d[0] = !c.sym ? c : (tm && tm->rank == 1 ? tm->dims[0] : c);
  }
  return NNS_OK;
}

/*
 * Inference (docs/metrics.md): FLOPs 2*C + 4*numel(X) (per channel a scale
 * and shift from the statistics, per element a subtract, multiply, add and
 * the affine), MACs 2*numel(X), DMAs numel(X) + 4*C + 2 + numel(Y). C is
 * the element count of scale: the channels, or with spatial=0 (opsets < 9)
 * the per-element statistics.
 *
 * Training mode (training_mode=1, or before opset 7 is_test=0 set on the
 * node, or left at its default on a node that writes the statistics
 * outputs) also computes the batch statistics and updates the running
 * ones: mean and variance take 4*numel(X) + 2*C FLOPs (sum; subtract,
 * square, sum; two divisions per channel) of which numel(X) MACs (the
 * squares accumulated), and the running-stat updates
 * (momentum*running + (1 - momentum)*batch) 3 FLOPs each for two stats,
 * 6*C; DMAs add two passes over X and the statistics outputs written.
 */
static bool bn_training(nns__ictx *cx) {
  if (cx->op->since >= 14)
    return nns__attr_int(cx, "training_mode") != 0;
  if (cx->op->until > 6)
    return false;
  if (nns__attr_has(cx, "is_test"))
    return nns__attr_int(cx, "is_test") == 0;
  for (int o = 1; o < nns__n_out(cx); o++)
    if (nns__has_out(cx, o))
      return true;
  return false;
}

static nns_status batch_norm_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), y = nns__out_count(cx, c, 0);
  int64_t ch = nns__in_count(cx, c, 1);
  if (ch < 0) {
    const nns__type *tx = nns__in_type(cx, 0);
    ch = tx && tx->rank >= 2 ? nns__dim_count(c, tx->dims[1], cx->m) : -1;
  }
  if (x < 0 || y < 0 || ch < 0)
    return NNS__UNCOUNTED;
  c->flops = nns__cadd(c, nns__cmul(c, 2, ch), nns__cmul(c, 4, x));
  c->macs = nns__cmul(c, 2, x);
  c->dmas = nns__cadd(c, nns__cadd(c, x, nns__cmul(c, 4, ch)),
                      nns__cadd(c, 2, y));
  if (!bn_training(cx))
    return NNS_OK;
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, 4, x));
  c->flops = nns__cadd(c, c->flops, nns__cmul(c, 8, ch));
  c->macs = nns__cadd(c, c->macs, x);
  c->dmas = nns__cadd(c, c->dmas, nns__cmul(c, 2, x));
  for (int o = 1; o < nns__n_out(cx); o++) {
    int64_t n = nns__has_out(cx, o) ? nns__out_count(cx, c, o) : 0;
    if (n < 0)
      return NNS__UNCOUNTED;
    c->dmas = nns__cadd(c, c->dmas, n);
  }
  return NNS_OK;
}

/* ==== InstanceNormalization ==== */

/* Y like X = [N, C, ...]: the shape rule InstanceNormalization and
 * GroupNormalization begin with; NNS_OK where the rank is 2 or more or not
 * known. */
static nns_status like_nc_input(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  if (tx && tx->rank >= 0 && tx->rank < 2)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "...]", tx->rank);
  return NNS_OK;
}

static nns_status instance_norm_shape(nns__ictx *cx) {
  nns_status st0 = like_nc_input(cx);
  if (st0 != NNS_OK)
    return st0;
  nns__dim c = channels(cx);
  nns_status st = check_per_channel(cx, 1, "scale", c);
  return st != NNS_OK ? st : check_per_channel(cx, 2, "B", c);
}

/*
 * InstanceNormalization and LayerNormalization (docs/metrics.md, dot.h's
 * nns__layer_norm_cost): FLOPs 8*numel(X), MACs 2*numel(X), DMAs
 * 2*numel(X) + numel(scale) + numel(B),
 * plus LayerNormalization's Mean and InvStdDev outputs when the node writes
 * them.
 */
static nns_status affine_norm_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), n[2], o[2];
  for (int i = 0; i < 2; i++) {
    n[i] = nns__has_in(cx, i + 1) ? nns__in_count(cx, c, i + 1) : 0;
    o[i] = nns__has_out(cx, i + 1) ? nns__out_count(cx, c, i + 1) : 0;
    if (n[i] < 0 || o[i] < 0)
      return NNS__UNCOUNTED;
  }
  if (x < 0)
    return NNS__UNCOUNTED;
  nns__layer_norm_cost(c, x, n[0], n[1]);
  c->dmas = nns__cadd(c, c->dmas, nns__cadd(c, o[0], o[1]));
  return NNS_OK;
}

/* ==== GroupNormalization and RMSNormalization ==== */

/*
 * GroupNormalization: Y is like X = [N, C, ...]; num_groups divides C.
 * Scale and bias are [num_groups] at opset 18 and [C] from 21. Its cost is
 * InstanceNormalization's (affine_norm_cost; docs/metrics.md).
 */
static nns_status group_norm_shape(nns__ictx *cx) {
  nns_status st0 = like_nc_input(cx);
  if (st0 != NNS_OK)
    return st0;
  int64_t g = nns__attr_int(cx, "num_groups");
  if (g < 1)
    return nns__fail(cx, NNS_E_ATTR, "num_groups is %lld, must be >= 1",
                     (long long)g);
  nns__dim c = channels(cx);
  if (!c.sym && c.v % g != 0)
    return nns__fail(cx, NNS_E_SHAPE, "%lld channels do not split into %lld "
                     "groups", (long long)c.v, (long long)g);
  nns__dim per = cx->op->since < 21 ? nns__dim_known(g) : c;
  nns_status st = check_per_channel(cx, 1, "scale", per);
  return st != NNS_OK ? st : check_per_channel(cx, 2, "bias", per);
}

/*
 * RMSNormalization (opset 23): Y = X / sqrt(mean(X^2 over [axis, rank)) +
 * epsilon) * scale, Y like X; scale broadcasts to the normalised dims.
 */
static nns_status rms_norm_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  const nns__type *tx = nns__in_type(cx, 0), *ts = nns__in_type(cx, 1);
  if (!tx || tx->rank < 0)
    return NNS_OK;
  int32_t axis;
  nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), tx->rank,
                                    &axis, "axis");
  if (st != NNS_OK)
    return st;
  if (ts && ts->rank > tx->rank - axis)
    return nns__fail(cx, NNS_E_SHAPE, "scale has rank %d but only %d axes "
                     "are normalised", ts->rank, tx->rank - axis);
  return NNS_OK;
}

/* RMSNormalization (docs/metrics.md): nns__rms_norm_cost (dot.h). */
static nns_status rms_norm_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0), s = nns__in_count(cx, c, 1);
  if (x < 0 || s < 0)
    return NNS__UNCOUNTED;
  nns__rms_norm_cost(c, x, s);
  return NNS_OK;
}

/* ==== LayerNormalization ==== */

/*
 * Normalises over axes [axis, rank). Mean and InvStdDev keep the leading
 * dims and have 1 for each normalised axis; their type is stash_type.
 */
static nns_status layer_norm_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  int64_t stash = nns__attr_int(cx, "stash_type");
  int32_t sdt = stash == NNS_DT_FLOAT || stash == NNS_DT_BFLOAT16 ||
                        stash == NNS_DT_DOUBLE || stash == NNS_DT_FLOAT16
                    ? (int32_t)stash
                    : 0;
  if (!sdt)
    return nns__fail(cx, NNS_E_ATTR, "stash_type %lld is not a floating "
                     "type", (long long)stash);
  if (!tx || tx->rank < 0) {
    nns__out_shape(cx, 1, sdt, -1);
    nns__out_shape(cx, 2, sdt, -1);
    return NNS_OK;
  }
  int32_t axis;
  nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"), tx->rank,
                                    &axis, "axis");
  if (st != NNS_OK)
    return st;
  /* Scale and B broadcast to the normalised dims X.shape[axis:]. */
  for (int i = 1; i <= 2; i++) {
    const nns__type *t = nns__in_type(cx, i);
    if (!t || t->rank < 0)
      continue;
    if (t->rank > tx->rank - axis)
      return nns__fail(cx, NNS_E_SHAPE, "%s has rank %d but only %d axes are "
                       "normalised", i == 1 ? "Scale" : "B", t->rank,
                       tx->rank - axis);
    for (int32_t k = 0; k < t->rank; k++) {
      nns__dim s = t->dims[k], x = tx->dims[tx->rank - t->rank + k];
      if (!s.sym && !x.sym && s.v != x.v && s.v != 1)
        return nns__fail(cx, NNS_E_SHAPE, "%s dim %d is %lld but the "
                         "normalised input dim is %lld", i == 1 ? "Scale" : "B",
                         k, (long long)s.v, (long long)x.v);
    }
  }
  for (int o = 1; o <= 2; o++) {
    nns__dim *d = nns__out_shape(cx, o, sdt, tx->rank);
    for (int32_t k = 0; d && k < tx->rank; k++)
      d[k] = k < axis ? tx->dims[k] : nns__dim_known(1);
  }
  return NNS_OK;
}

/* ==== Shape-preserving normalisations ==== */

static nns_status lp_norm_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0);
  int64_t p = nns__attr_int(cx, "p");
  if (p != 1 && p != 2)
    return nns__fail(cx, NNS_E_ATTR, "p is %lld; only 1 and 2 are defined",
                     (long long)p);
  if (tx && tx->rank >= 0) {
    int32_t axis;
    nns_status st = nns__axis_or_fail(cx, nns__attr_int(cx, "axis"),
                                      tx->rank, &axis, "axis");
    if (st != NNS_OK)
      return st;
  }
  return same_shape(cx);
}

static nns_status lrn_shape(nns__ictx *cx) {
  if (nns__attr_int(cx, "size") < 1)
    return nns__fail(cx, NNS_E_ATTR, "size is %lld, must be >= 1",
                     (long long)nns__attr_int(cx, "size"));
  return same_shape(cx);
}

static nns_status mvn_shape(nns__ictx *cx) {
  const nns__type *tx = nns__in_type(cx, 0);
  const int64_t *axes;
  int32_t n = nns__attr_ints(cx, "axes", &axes);
  for (int32_t k = 0; tx && tx->rank >= 0 && k < n; k++) {
    int32_t a;
    nns_status st = nns__axis_or_fail(cx, axes[k], tx->rank, &a, "axes entry");
    if (st != NNS_OK)
      return st;
  }
  return same_shape(cx);
}

/* ==== Costs of the shape-preserving normalisations ==== */

/*
 * LpNormalization: per element |x| or x^2 (1), a sum (1) and a division
 * (1), 3*numel(X), plus one square root per normalised slice for p = 2;
 * MACs numel(X) for p = 2 (the sum of squares is a dot product), 0 for
 * p = 1; DMAs numel(X) + numel(Y).
 */
static nns_status lp_norm_cost(nns__ictx *cx, nns__cost *c) {
  const nns__type *tx = nns__in_type(cx, 0);
  int64_t x = nns__in_count(cx, c, 0);
  int32_t axis;
  if (x < 0 || !nns__axis(nns__attr_int(cx, "axis"), tx->rank, &axis) ||
      nns__cost_move(cx, c) != NNS_OK)
    return NNS__UNCOUNTED;
  bool l2 = nns__attr_int(cx, "p") == 2;
  c->flops = nns__cmul(c, 3, x);
  c->macs = l2 ? x : 0;
  if (l2) {
    int64_t len = nns__dim_count(c, tx->dims[axis], cx->m);
    c->flops = nns__cadd(c, c->flops, len > 0 ? x / len : 0);
  }
  return NNS_OK;
}

/*
 * LRN: per element a window of `size` channels is squared and summed
 * (size MACs: 2*size - 1 FLOPs), then scaled by alpha/size, offset by bias,
 * raised to beta and divided into x (4): FLOPs numel(Y)*(2*size + 3), MACs
 * numel(Y)*size; DMAs as a pool's, numel(Y)*size reads + numel(Y) writes.
 * The window is counted whole at the channel edges, as pools count theirs.
 */
static nns_status lrn_cost(nns__ictx *cx, nns__cost *c) {
  int64_t y = nns__out_count(cx, c, 0), size = nns__attr_int(cx, "size");
  if (y < 0 || size < 1)
    return NNS__UNCOUNTED;
  c->flops = nns__cmul(c, y, nns__cadd(c, nns__cmul(c, 2, size), 3));
  c->macs = nns__cmul(c, y, size);
  c->dmas = nns__cadd(c, c->macs, y);
  return NNS_OK;
}

/*
 * MeanVarianceNormalization is LayerNormalization without the scale and
 * bias: FLOPs 6*numel(X), MACs numel(X) (the squares accumulated), DMAs
 * numel(X) + numel(Y).
 */
static nns_status mvn_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0);
  if (x < 0 || nns__cost_move(cx, c) != NNS_OK)
    return NNS__UNCOUNTED;
  c->flops = nns__cmul(c, 6, x);
  c->macs = x;
  return NNS_OK;
}

/* ==== Entries ==== */

/* Opsets 1-5: consumed_inputs is required by the spec but meaningless for
 * inference; a model that omits it is accepted. */
static const nns__attr_spec bn1_attrs[] = {
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_FLOAT("epsilon", 1e-5),
    NNS__A_INT("is_test", 0),            NNS__A_FLOAT("momentum", 0.9),
    NNS__A_INT("spatial", 1),            NNS__A_END};
static const nns__attr_spec bn6_attrs[] = {
    NNS__A_FLOAT("epsilon", 1e-5), NNS__A_INT("is_test", 0),
    NNS__A_FLOAT("momentum", 0.9), NNS__A_INT("spatial", 1), NNS__A_END};
static const nns__attr_spec bn7_attrs[] = {
    NNS__A_FLOAT("epsilon", 1e-5), NNS__A_FLOAT("momentum", 0.9),
    NNS__A_INT("spatial", 1), NNS__A_END};
static const nns__attr_spec bn9_attrs[] = {
    NNS__A_FLOAT("epsilon", 1e-5), NNS__A_FLOAT("momentum", 0.9), NNS__A_END};
static const nns__attr_spec bn14_attrs[] = {
    NNS__A_FLOAT("epsilon", 1e-5), NNS__A_FLOAT("momentum", 0.9),
    NNS__A_INT("training_mode", 0), NNS__A_END};
static const nns__attr_spec in1_attrs[] = {
    NNS__A_OPT("consumed_inputs", INTS), NNS__A_FLOAT("epsilon", 1e-5),
    NNS__A_END};
static const nns__attr_spec in6_attrs[] = {NNS__A_FLOAT("epsilon", 1e-5),
                                           NNS__A_END};
/* ==== Receptive field ==== */

/* Normalising over dims that include a spatial one mixes every position
 * into each output: the field is kept, with global context. */
static nns_status instance_norm_rf(nns__ictx *cx, const nns__rf *in,
                                   nns__rf *out) {
  return nns__rf_mix_from(cx, 2, in, out);
}
static nns_status layer_norm_rf(nns__ictx *cx, const nns__rf *in,
                                nns__rf *out) {
  return nns__rf_mix_from(cx, nns__attr_int(cx, "axis"), in, out);
}
static nns_status lp_norm_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  return nns__rf_mix_axis(cx, nns__attr_int(cx, "axis"), in, out);
}
static nns_status mvn_rf(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  *out = *in;
  int32_t r = nns__in_rank(cx, 0), a;
  if (r < 0 || r > NNS__RANK_LIMIT)
    return NNS_OK;
  static const int64_t dflt[] = {0, 2, 3};
  const int64_t *axes;
  int32_t n = nns__attr_ints(cx, "axes", &axes);
  if (n < 0) {
    axes = dflt;
    n = 3;
  }
  bool mixed[NNS__RANK_LIMIT] = {false};
  for (int32_t k = 0; k < n; k++)
    if (nns__axis(axes[k], r, &a))
      mixed[a] = true;
  nns__rf_mix(in, mixed, r, out);
  return NNS_OK;
}

static const nns__attr_spec ln_attrs[] = {
    NNS__A_INT("axis", -1), NNS__A_FLOAT("epsilon", 1e-5),
    NNS__A_INT("stash_type", 1), NNS__A_END};
static const nns__attr_spec gn18_attrs[] = {
    NNS__A_FLOAT("epsilon", 1e-5), NNS__A_REQ("num_groups", INT), NNS__A_END};
static const nns__attr_spec gn21_attrs[] = {
    NNS__A_FLOAT("epsilon", 1e-5), NNS__A_REQ("num_groups", INT),
    NNS__A_INT("stash_type", 1), NNS__A_END};
static const nns__attr_spec lpn_attrs[] = {NNS__A_INT("axis", -1),
                                           NNS__A_INT("p", 2), NNS__A_END};
static const nns__attr_spec lrn_attrs[] = {
    NNS__A_FLOAT("alpha", 1e-4), NNS__A_FLOAT("beta", 0.75),
    NNS__A_FLOAT("bias", 1.0),   NNS__A_REQ("size", INT), NNS__A_END};
/* axes defaults to [0, 2, 3]; only range-checked, so absent is fine. */
static const nns__attr_spec mvn_attrs[] = {NNS__A_OPT("axes", INTS),
                                           NNS__A_END};

/*
 * BatchNormalization: 6 dropped consumed_inputs, 7 dropped is_test, 9
 * dropped spatial, 14 added training_mode and cut the outputs to the
 * running statistics, 15 let scale/bias and mean/var types differ.
 */
const nns__op nns__ops_norm[] = {
    {"", "BatchNormalization", 1, 5, "awbuu", bn1_attrs, batch_norm_shape,
     NULL, .cost = batch_norm_cost},
    {"", "BatchNormalization", 6, 6, "awbuu", bn6_attrs, batch_norm_shape,
     NULL, .cost = batch_norm_cost},
    {"", "BatchNormalization", 7, 8, "awbuu", bn7_attrs, batch_norm_shape,
     NULL, .cost = batch_norm_cost},
    {"", "BatchNormalization", 9, 13, "awbuu", bn9_attrs, batch_norm_shape,
     NULL, .cost = batch_norm_cost},
    {"", "BatchNormalization", 14, 14, "awbuu", bn14_attrs, batch_norm_shape,
     NULL, .cost = batch_norm_cost},
    {"", "BatchNormalization", 15, NNS__OPSET_MAX, "awbuu", bn14_attrs,
     batch_norm_shape,
     NULL, .cost = batch_norm_cost},
    {"", "InstanceNormalization", 1, 5, "awb", in1_attrs, instance_norm_shape,
     NULL, .cost = affine_norm_cost, .rf = instance_norm_rf},
    {"", "InstanceNormalization", 6, NNS__OPSET_MAX, "awb", in6_attrs,
     instance_norm_shape, NULL, .cost = affine_norm_cost,
     .rf = instance_norm_rf},
    {"", "LayerNormalization", 17, NNS__OPSET_MAX, "awb", ln_attrs, layer_norm_shape,
     NULL, .cost = affine_norm_cost, .rf = layer_norm_rf, .rf_parts = true},
    /* GroupNormalization-21 made scale and bias per channel. */
    {"", "GroupNormalization", 18, 20, "awb", gn18_attrs, group_norm_shape,
     NULL, .cost = affine_norm_cost, .rf = instance_norm_rf},
    {"", "GroupNormalization", 21, NNS__OPSET_MAX, "awb", gn21_attrs,
     group_norm_shape, NULL, .cost = affine_norm_cost,
     .rf = instance_norm_rf},
    {"", "RMSNormalization", 23, NNS__OPSET_MAX, "aw", ln_attrs,
     rms_norm_shape, NULL, .cost = rms_norm_cost, .rf = layer_norm_rf,
     .rf_parts = true},
    {"", "LpNormalization", 1, NNS__OPSET_MAX, "a", lpn_attrs, lp_norm_shape, NULL,
     .cost = lp_norm_cost, .rf = lp_norm_rf},
    {"", "LRN", 1, NNS__OPSET_MAX, "a", lrn_attrs, lrn_shape, NULL, .cost = lrn_cost},
    {"", "MeanVarianceNormalization", 9, NNS__OPSET_MAX, "a", mvn_attrs, mvn_shape, NULL,
     .cost = mvn_cost, .rf = mvn_rf},
    NNS__OP_END,
};
