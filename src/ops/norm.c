/*
 * norm.c - operator family "norm": BatchNormalization (every version, with
 * its optional running/saved statistics outputs), InstanceNormalization,
 * LayerNormalization (with its Mean and InvStdDev outputs), and the
 * shape-preserving LpNormalization, LRN and MeanVarianceNormalization.
 *
 * GroupNormalization (opset 18) is beyond the opsets this table covers.
 */
#include "op.h"

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

/* ==== InstanceNormalization ==== */

static nns_status instance_norm_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  const nns__type *tx = nns__in_type(cx, 0);
  if (tx && tx->rank >= 0 && tx->rank < 2)
    return nns__fail(cx, NNS_E_SHAPE, "input has rank %d; expected [N, C, "
                     "...]", tx->rank);
  nns__dim c = channels(cx);
  nns_status st = check_per_channel(cx, 1, "scale", c);
  return st != NNS_OK ? st : check_per_channel(cx, 2, "B", c);
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
static const nns__attr_spec ln_attrs[] = {
    NNS__A_INT("axis", -1), NNS__A_FLOAT("epsilon", 1e-5),
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
     NULL},
    {"", "BatchNormalization", 6, 6, "awbuu", bn6_attrs, batch_norm_shape,
     NULL},
    {"", "BatchNormalization", 7, 8, "awbuu", bn7_attrs, batch_norm_shape,
     NULL},
    {"", "BatchNormalization", 9, 13, "awbuu", bn9_attrs, batch_norm_shape,
     NULL},
    {"", "BatchNormalization", 14, 14, "awbuu", bn14_attrs, batch_norm_shape,
     NULL},
    {"", "BatchNormalization", 15, 17, "awbuu", bn14_attrs, batch_norm_shape,
     NULL},
    {"", "InstanceNormalization", 1, 5, "awb", in1_attrs, instance_norm_shape,
     NULL},
    {"", "InstanceNormalization", 6, 17, "awb", in6_attrs,
     instance_norm_shape, NULL},
    {"", "LayerNormalization", 17, 17, "awb", ln_attrs, layer_norm_shape,
     NULL},
    {"", "LpNormalization", 1, 17, "a", lpn_attrs, lp_norm_shape, NULL},
    {"", "LRN", 1, 17, "a", lrn_attrs, lrn_shape, NULL},
    {"", "MeanVarianceNormalization", 9, 17, "a", mvn_attrs, mvn_shape, NULL},
    NNS__OP_END,
};
