/*
 * ml.c - the ONNX-ML domain (ai.onnx.ml, opsets 1-3): the classic
 * machine-learning operators that scikit-learn and other converters emit
 * (linear models, SVMs, tree ensembles, encoders, scalers).
 *
 * Inputs are [N, C] feature matrices, or [C] treated as one row ([1, C]).
 * Classifiers output labels Y [N] (strings or int64, after the class
 * label attribute that is set) and scores Z [N, classes]. Shapes follow
 * the ONNX-ML inference functions; where those leave a dim open (or the
 * spec is ambiguous, as for SVM scores and map conversions) it stays a
 * fresh symbol or an unknown rank.
 *
 * Costs (docs/metrics.md): the linear models are matrix products (dot.h);
 * SVMs count one kernel evaluation per support vector and sample; tree
 * ensembles count, per sample, the comparisons on the longest root-to-leaf
 * path of every tree (an upper bound of the nodes a sample visits); the
 * element-wise transforms a few FLOPs per element; encoders, lookups and
 * feature plumbing move data only. The model's coefficients live in
 * attributes and are read once, as a weight is.
 */
#include <stdlib.h>
#include <string.h>

#include "dot.h"

/* ==== Helpers ==== */

/* N of an [N, C] or [C] input: dim 0, or 1 for a single row; fresh when
 * the rank is unknown. Fails on other ranks. */
static nns_status batch_of(nns__ictx *cx, nns__dim *n) {
  const nns__type *t = nns__in_type(cx, 0);
  *n = nns__fresh(cx);
  if (!t || t->rank < 0)
    return NNS_OK;
  if (t->rank == 1)
    *n = nns__dim_known(1);
  else if (t->rank == 2)
    *n = t->dims[0];
  else
    return nns__fail(cx, NNS_E_SHAPE, "input must be [N, C] or [C], rank %d",
                     t->rank);
  return NNS_OK;
}

/* Number of entries of a list attribute, -1 when absent. */
static int32_t list_len(const nns__ictx *cx, const char *name) {
  const nns__attr *a = nns__attr_get(cx, name);
  return a && (a->type == NNS__AT_INTS || a->type == NNS__AT_FLOATS ||
               a->type == NNS__AT_STRINGS)
             ? a->n
             : -1;
}

/* Output i = [n] or [n, m] (m < 0: fresh, else known). */
static void out_rows(nns__ictx *cx, int i, int32_t dtype, nns__dim n,
                     int64_t m, bool matrix) {
  nns__dim *d = nns__out_shape(cx, i, dtype, matrix ? 2 : 1);
  if (!d)
    return;
  d[0] = n;
  if (matrix && m >= 0)
    d[1] = nns__dim_known(m);
}

/* Labels are strings when classlabels_strings is set and non-empty. */
static int32_t label_dtype(const nns__ictx *cx) {
  return list_len(cx, "classlabels_strings") > 0 ? NNS_DT_STRING
                                                 : NNS_DT_INT64;
}

/* ==== Element-wise and encoders ==== */

static nns_status same_shape(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, 0);
  return NNS_OK;
}

static nns_status same_shape_float(nns__ictx *cx) {
  nns__out_like(cx, 0, 0, NNS_DT_FLOAT);
  return NNS_OK;
}

/* string -> int64, int64 -> string. */
static nns_status swap_string_int(nns__ictx *cx) {
  int32_t dt = nns__in_dtype(cx, 0);
  nns__out_like(cx, 0, 0, 0);
  if (nns__has_out(cx, 0))
    cx->node->out[0]->type.dtype = dt == NNS_DT_STRING ? NNS_DT_INT64
                                   : dt == NNS_DT_INT64 ? NNS_DT_STRING
                                                        : 0;
  return NNS_OK;
}

/* LabelEncoder-2: the output dtype is that of the values_* list set;
 * from ai.onnx.ml 4 values_tensor (any dtype) may hold them instead. */
static nns_status label_encoder2_shape(nns__ictx *cx) {
  const nns__tensor *vt = nns__spec_has(cx, "values_tensor")
                              ? nns__attr_tensor(cx, "values_tensor")
                              : NULL;
  int32_t dt = vt                                   ? vt->dtype
               : list_len(cx, "values_strings") >= 0 ? NNS_DT_STRING
               : list_len(cx, "values_int64s") >= 0 ? NNS_DT_INT64
               : list_len(cx, "values_floats") >= 0 ? NNS_DT_FLOAT
                                                    : 0;
  if (!dt)
    return nns__fail(cx, NNS_E_ATTR, "one of values_strings, values_int64s, "
                     "values_floats%s must be set",
                     nns__spec_has(cx, "values_tensor") ? ", values_tensor"
                                                        : "");
  nns__out_like(cx, 0, 0, dt);
  return NNS_OK;
}

/* X [..., C], indices Y -> [..., numel(Y)]; a 1-D X is left open, as ONNX
 * does (runtimes differ). */
static nns_status array_feature_shape(nns__ictx *cx) {
  const nns__type *t = nns__in_type(cx, 0), *y = nns__in_type(cx, 1);
  if (!t || t->rank < 2) {
    nns__out_shape(cx, 0, nns__in_dtype(cx, 0), -1);
    return NNS_OK;
  }
  nns__dim *d = nns__out_shape(cx, 0, t->dtype, t->rank);
  if (!d)
    return NNS_OK;
  nns__dims_copy(d, t->dims, t->rank - 1);
  if (y && y->rank >= 0)
    d[t->rank - 1] = nns__dims_product(cx, y->dims, y->rank);
  return NNS_OK;
}

/* X [...] -> float [..., categories]. */
static nns_status one_hot_encoder_shape(nns__ictx *cx) {
  int32_t ni = list_len(cx, "cats_int64s"), ns = list_len(cx, "cats_strings");
  if ((ni >= 0) == (ns >= 0))
    return nns__fail(cx, NNS_E_ATTR,
                     "exactly one of cats_int64s, cats_strings must be set");
  const nns__type *t = nns__in_type(cx, 0);
  if (!t || t->rank < 0) {
    nns__out_shape(cx, 0, NNS_DT_FLOAT, -1);
    return NNS_OK;
  }
  nns__dim *d = nns__out_shape(cx, 0, NNS_DT_FLOAT, t->rank + 1);
  if (d) {
    nns__dims_copy(d, t->dims, t->rank);
    d[t->rank] = nns__dim_known(ni >= 0 ? ni : ns);
  }
  return NNS_OK;
}

/* Inputs [N, Ci] (or [Ci]) -> float [N, sum(inputdimensions)]. */
static nns_status feature_vectorizer_shape(nns__ictx *cx) {
  nns__dim n;
  nns_status st = batch_of(cx, &n);
  if (st != NNS_OK)
    return st;
  const int64_t *dims;
  int32_t k = nns__attr_ints(cx, "inputdimensions", &dims);
  int64_t sum = 0;
  for (int32_t i = 0; i < k && sum >= 0; i++)
    if (dims[i] < 0 || __builtin_add_overflow(sum, dims[i], &sum))
      sum = -1;
  out_rows(cx, 0, NNS_DT_FLOAT, n, k >= 0 ? sum : -1, true);
  return NNS_OK;
}

/* Map -> tensor conversions: ONNX gives only the dtype. */
static nns_status cast_map_shape(nns__ictx *cx) {
  const char *to = nns__attr_str(cx, "cast_to");
  int32_t dt = strcmp(to, "TO_FLOAT") == 0    ? NNS_DT_FLOAT
               : strcmp(to, "TO_INT64") == 0  ? NNS_DT_INT64
               : strcmp(to, "TO_STRING") == 0 ? NNS_DT_STRING
                                              : 0;
  if (!dt)
    return nns__fail(cx, NNS_E_ATTR, "cast_to '%s' is not TO_FLOAT, "
                     "TO_INT64 or TO_STRING", to);
  nns__out_shape(cx, 0, dt, -1);
  return NNS_OK;
}

static nns_status dict_vectorizer_shape(nns__ictx *cx) {
  /* The output dtype is the map's value type, which the IR does not keep. */
  nns__out_shape(cx, 0, 0, -1);
  return NNS_OK;
}

/* [N, C] floats -> a sequence of N maps label -> score. */
static nns_status zipmap_shape(nns__ictx *cx) {
  int32_t dt = list_len(cx, "classlabels_strings") >= 0 ? NNS_DT_STRING
                                                       : NNS_DT_INT64;
  nns__out_shape(cx, 0, dt, -1);
  nns__out_kind(cx, 0, NNS_KIND_SEQUENCE, NNS_KIND_MAP);
  return NNS_OK;
}

/* ==== Regressors ==== */

static nns_status linear_regressor_shape(nns__ictx *cx) {
  nns__dim n;
  nns_status st = batch_of(cx, &n);
  if (st == NNS_OK)
    out_rows(cx, 0, NNS_DT_FLOAT, n, nns__attr_int(cx, "targets"), true);
  return st;
}

static nns_status svm_regressor_shape(nns__ictx *cx) {
  nns__dim n;
  nns_status st = batch_of(cx, &n);
  if (st == NNS_OK)
    out_rows(cx, 0, NNS_DT_FLOAT, n, 1, true);
  return st;
}

static nns_status tree_regressor_shape(nns__ictx *cx) {
  nns__dim n;
  nns_status st = batch_of(cx, &n);
  if (st == NNS_OK)
    out_rows(cx, 0, NNS_DT_FLOAT, n,
             nns__attr_has(cx, "n_targets") ? nns__attr_int(cx, "n_targets")
                                            : -1,
             true);
  return st;
}

/* ==== Classifiers ==== */

/* Y [N] labels, Z [N, classes] float; classes < 0: unknown. */
static nns_status classifier_out(nns__ictx *cx, int64_t classes) {
  nns__dim n;
  nns_status st = batch_of(cx, &n);
  if (st != NNS_OK)
    return st;
  out_rows(cx, 0, label_dtype(cx), n, -1, false);
  out_rows(cx, 1, NNS_DT_FLOAT, n, classes, true);
  return NNS_OK;
}

/* Classes = intercepts, except one intercept with two labels (binary). */
static nns_status linear_classifier_shape(nns__ictx *cx) {
  int32_t n_int = list_len(cx, "intercepts");
  int32_t n_lab = label_dtype(cx) == NNS_DT_STRING
                      ? list_len(cx, "classlabels_strings")
                      : list_len(cx, "classlabels_ints");
  int64_t classes = n_int > 0 ? n_int : -1;
  if (n_int == 1 && n_lab == 2)
    classes = 2;
  return classifier_out(cx, classes);
}

/* SVM scores have one column per class, or one per class pair, depending on
 * the mode and probabilities: left open. */
static nns_status svm_classifier_shape(nns__ictx *cx) {
  return classifier_out(cx, -1);
}

static nns_status tree_classifier_shape(nns__ictx *cx) {
  int32_t n = label_dtype(cx) == NNS_DT_STRING
                  ? list_len(cx, "classlabels_strings")
                  : list_len(cx, "classlabels_int64s");
  if (n <= 0)
    return nns__fail(cx, NNS_E_ATTR, "classlabels_int64s or "
                     "classlabels_strings must be set");
  return classifier_out(cx, n);
}

/* ==== Attribute specs ==== */

static const nns__attr_spec binarizer_attrs[] = {
    NNS__A_FLOAT("threshold", 0.0), NNS__A_END};
static const nns__attr_spec cast_map_attrs[] = {
    NNS__A_STR("cast_to", "TO_FLOAT"), NNS__A_STR("map_form", "DENSE"),
    NNS__A_INT("max_map", 1), NNS__A_END};
static const nns__attr_spec category_mapper_attrs[] = {
    NNS__A_OPT("cats_int64s", INTS), NNS__A_OPT("cats_strings", STRINGS),
    NNS__A_INT("default_int64", -1), NNS__A_STR("default_string", "_Unused"),
    NNS__A_END};
static const nns__attr_spec dict_vectorizer_attrs[] = {
    NNS__A_OPT("int64_vocabulary", INTS),
    NNS__A_OPT("string_vocabulary", STRINGS), NNS__A_END};
static const nns__attr_spec feature_vectorizer_attrs[] = {
    NNS__A_OPT("inputdimensions", INTS), NNS__A_END};
static const nns__attr_spec imputer_attrs[] = {
    NNS__A_OPT("imputed_value_floats", FLOATS),
    NNS__A_OPT("imputed_value_int64s", INTS),
    NNS__A_FLOAT("replaced_value_float", 0.0),
    NNS__A_INT("replaced_value_int64", 0), NNS__A_END};
static const nns__attr_spec label_encoder1_attrs[] = {
    NNS__A_OPT("classes_strings", STRINGS), NNS__A_INT("default_int64", -1),
    NNS__A_STR("default_string", "_Unused"), NNS__A_END};
static const nns__attr_spec label_encoder2_attrs[] = {
    NNS__A_FLOAT("default_float", -0.0), NNS__A_INT("default_int64", -1),
    NNS__A_STR("default_string", "_Unused"), NNS__A_OPT("keys_floats", FLOATS),
    NNS__A_OPT("keys_int64s", INTS), NNS__A_OPT("keys_strings", STRINGS),
    NNS__A_OPT("values_floats", FLOATS), NNS__A_OPT("values_int64s", INTS),
    NNS__A_OPT("values_strings", STRINGS), NNS__A_END};
static const nns__attr_spec label_encoder4_attrs[] = {
    NNS__A_FLOAT("default_float", -0.0), NNS__A_INT("default_int64", -1),
    NNS__A_STR("default_string", "_Unused"),
    NNS__A_OPT("default_tensor", TENSOR), NNS__A_OPT("keys_floats", FLOATS),
    NNS__A_OPT("keys_int64s", INTS), NNS__A_OPT("keys_strings", STRINGS),
    NNS__A_OPT("keys_tensor", TENSOR), NNS__A_OPT("values_floats", FLOATS),
    NNS__A_OPT("values_int64s", INTS), NNS__A_OPT("values_strings", STRINGS),
    NNS__A_OPT("values_tensor", TENSOR), NNS__A_END};
static const nns__attr_spec linear_classifier_attrs[] = {
    NNS__A_OPT("classlabels_ints", INTS),
    NNS__A_OPT("classlabels_strings", STRINGS),
    NNS__A_REQ("coefficients", FLOATS), NNS__A_OPT("intercepts", FLOATS),
    NNS__A_INT("multi_class", 0), NNS__A_STR("post_transform", "NONE"),
    NNS__A_END};
static const nns__attr_spec linear_regressor_attrs[] = {
    NNS__A_OPT("coefficients", FLOATS), NNS__A_OPT("intercepts", FLOATS),
    NNS__A_STR("post_transform", "NONE"), NNS__A_INT("targets", 1),
    NNS__A_END};
static const nns__attr_spec normalizer_attrs[] = {NNS__A_STR("norm", "MAX"),
                                                  NNS__A_END};
static const nns__attr_spec one_hot_encoder_attrs[] = {
    NNS__A_OPT("cats_int64s", INTS), NNS__A_OPT("cats_strings", STRINGS),
    NNS__A_INT("zeros", 1), NNS__A_END};
static const nns__attr_spec scaler_attrs[] = {
    NNS__A_OPT("offset", FLOATS), NNS__A_OPT("scale", FLOATS), NNS__A_END};
static const nns__attr_spec svm_classifier_attrs[] = {
    NNS__A_OPT("classlabels_ints", INTS),
    NNS__A_OPT("classlabels_strings", STRINGS),
    NNS__A_OPT("coefficients", FLOATS),
    NNS__A_OPT("kernel_params", FLOATS),
    NNS__A_STR("kernel_type", "LINEAR"),
    NNS__A_STR("post_transform", "NONE"),
    NNS__A_OPT("prob_a", FLOATS),
    NNS__A_OPT("prob_b", FLOATS),
    NNS__A_OPT("rho", FLOATS),
    NNS__A_OPT("support_vectors", FLOATS),
    NNS__A_OPT("vectors_per_class", INTS),
    NNS__A_END};
static const nns__attr_spec svm_regressor_attrs[] = {
    NNS__A_OPT("coefficients", FLOATS), NNS__A_OPT("kernel_params", FLOATS),
    NNS__A_STR("kernel_type", "LINEAR"), NNS__A_INT("n_supports", 0),
    NNS__A_INT("one_class", 0), NNS__A_STR("post_transform", "NONE"),
    NNS__A_OPT("rho", FLOATS), NNS__A_OPT("support_vectors", FLOATS),
    NNS__A_END};

/* The tree node attributes both tree ensembles share, and the opset-3
 * *_as_tensor variants (double precision). */
#define TREE_NODE_ATTRS                                                        \
  NNS__A_OPT("base_values", FLOATS), NNS__A_OPT("nodes_falsenodeids", INTS),   \
      NNS__A_OPT("nodes_featureids", INTS),                                    \
      NNS__A_OPT("nodes_hitrates", FLOATS),                                    \
      NNS__A_OPT("nodes_missing_value_tracks_true", INTS),                     \
      NNS__A_OPT("nodes_modes", STRINGS), NNS__A_OPT("nodes_nodeids", INTS),   \
      NNS__A_OPT("nodes_treeids", INTS),                                       \
      NNS__A_OPT("nodes_truenodeids", INTS),                                   \
      NNS__A_OPT("nodes_values", FLOATS),                                      \
      NNS__A_STR("post_transform", "NONE")
#define TREE_TENSOR_ATTRS                                                      \
  NNS__A_OPT("base_values_as_tensor", TENSOR),                                 \
      NNS__A_OPT("nodes_hitrates_as_tensor", TENSOR),                          \
      NNS__A_OPT("nodes_values_as_tensor", TENSOR)
#define TREE_CLASS_ATTRS                                                       \
  NNS__A_OPT("class_ids", INTS), NNS__A_OPT("class_nodeids", INTS),            \
      NNS__A_OPT("class_treeids", INTS), NNS__A_OPT("class_weights", FLOATS),  \
      NNS__A_OPT("classlabels_int64s", INTS),                                  \
      NNS__A_OPT("classlabels_strings", STRINGS)
#define TREE_TARGET_ATTRS                                                      \
  NNS__A_STR("aggregate_function", "SUM"), NNS__A_OPT("n_targets", INT),       \
      NNS__A_OPT("target_ids", INTS), NNS__A_OPT("target_nodeids", INTS),      \
      NNS__A_OPT("target_treeids", INTS), NNS__A_OPT("target_weights", FLOATS)

static const nns__attr_spec tree_classifier1_attrs[] = {
    TREE_NODE_ATTRS, TREE_CLASS_ATTRS, NNS__A_END};
static const nns__attr_spec tree_classifier3_attrs[] = {
    TREE_NODE_ATTRS, TREE_CLASS_ATTRS, TREE_TENSOR_ATTRS,
    NNS__A_OPT("class_weights_as_tensor", TENSOR), NNS__A_END};
static const nns__attr_spec tree_regressor1_attrs[] = {
    TREE_NODE_ATTRS, TREE_TARGET_ATTRS, NNS__A_END};
static const nns__attr_spec tree_regressor3_attrs[] = {
    TREE_NODE_ATTRS, TREE_TARGET_ATTRS, TREE_TENSOR_ATTRS,
    NNS__A_OPT("target_weights_as_tensor", TENSOR), NNS__A_END};
static const nns__attr_spec tree_ensemble_attrs[] = {
    NNS__A_INT("aggregate_function", 1), NNS__A_OPT("leaf_targetids", INTS),
    NNS__A_OPT("leaf_weights", TENSOR), NNS__A_OPT("membership_values", TENSOR),
    NNS__A_OPT("n_targets", INT), NNS__A_OPT("nodes_falseleafs", INTS),
    NNS__A_OPT("nodes_falsenodeids", INTS),
    NNS__A_OPT("nodes_featureids", INTS), NNS__A_OPT("nodes_hitrates", TENSOR),
    NNS__A_OPT("nodes_missing_value_tracks_true", INTS),
    NNS__A_OPT("nodes_modes", TENSOR), NNS__A_OPT("nodes_splits", TENSOR),
    NNS__A_OPT("nodes_trueleafs", INTS), NNS__A_OPT("nodes_truenodeids", INTS),
    NNS__A_INT("post_transform", 0), NNS__A_OPT("tree_roots", INTS),
    NNS__A_END};
static const nns__attr_spec zipmap_attrs[] = {
    NNS__A_OPT("classlabels_int64s", INTS),
    NNS__A_OPT("classlabels_strings", STRINGS), NNS__A_END};

/* ==== Costs: helpers ==== */

/* Rows and features of an [N, F] or [F] input; false when unknown. */
static bool rows_features(nns__ictx *cx, nns__cost *c, int64_t *n,
                          int64_t *f) {
  const nns__type *t = nns__in_type(cx, 0);
  if (!t || t->rank < 1 || t->rank > 2)
    return false;
  *n = t->rank == 1 ? 1 : nns__dim_count(c, t->dims[0], cx->m);
  *f = nns__dim_count(c, t->dims[t->rank - 1], cx->m);
  return true;
}

/* FLOPs per score of a post_transform, as the matching activation in
 * docs/metrics.md: LOGISTIC a Sigmoid (4), SOFTMAX(_ZERO) a Softmax (5),
 * PROBIT an Erf-like inverse (6). */
static int64_t post_flops(const nns__ictx *cx) {
  const char *p = nns__attr_str(cx, "post_transform");
  return strcmp(p, "LOGISTIC") == 0           ? 4
         : strncmp(p, "SOFTMAX", 7) == 0      ? 5
         : strcmp(p, "PROBIT") == 0           ? 6
                                              : 0;
}

/* Adds the writes of every present output whose shape is known; an output
 * of unknown rank (a map, a sequence) cannot be counted. */
static nns_status add_outputs(nns__ictx *cx, nns__cost *c) {
  for (int i = 0; i < nns__n_out(cx); i++) {
    if (!nns__has_out(cx, i))
      continue;
    int64_t y = nns__out_count(cx, c, i);
    if (y < 0)
      return NNS__UNCOUNTED;
    c->dmas = nns__cadd(c, c->dmas, y);
  }
  return NNS_OK;
}

static int64_t len_or_0(const nns__ictx *cx, const char *name) {
  int32_t n = list_len(cx, name);
  return n > 0 ? n : 0;
}

/* ==== Costs: element-wise and data movement ==== */

/* Binarizer and Imputer: one compare per element. */
static nns_status compare_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, 1);
}

/* Scaler: (x - offset) * scale. */
static nns_status scaler_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c, 2);
}

/* Normalizer per element: MAX a compare and a divide (2); L1 an abs, an
 * add and a divide (3); L2 a multiply, an add and a divide (3; the one
 * square root per row is not counted). */
static nns_status normalizer_cost(nns__ictx *cx, nns__cost *c) {
  return nns__cost_eltwise(cx, c,
                           strcmp(nns__attr_str(cx, "norm"), "MAX") ? 3 : 2);
}

/* ZipMap: every score is read and written into a map entry. */
static nns_status zipmap_cost(nns__ictx *cx, nns__cost *c) {
  int64_t x = nns__in_count(cx, c, 0);
  if (x < 0)
    return NNS__UNCOUNTED;
  c->flops = c->macs = 0;
  c->dmas = nns__cmul(c, 2, x);
  return NNS_OK;
}

/* ==== Costs: linear models ==== */

/* LinearClassifier: scores = X [N, F] x coefficients [F, C] + intercepts,
 * a Gemm; then the post_transform per score and the label choice, an
 * argmax (C - 1 compares per row; 1 for a binary model with C = 1). */
static nns_status linear_classifier_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n, f, k = len_or_0(cx, "coefficients"), x = nns__in_count(cx, c, 0);
  if (!rows_features(cx, c, &n, &f) || f < 1 || x < 0 || k % f)
    return NNS__UNCOUNTED;
  int64_t classes = k / f, scores = nns__cmul(c, n, classes);
  int64_t b = len_or_0(cx, "intercepts");
  nns__matmul_cost(c, scores, f, x, k);
  int64_t extra = nns__cmul(c, scores, (b ? 1 : 0) + post_flops(cx));
  extra = nns__cadd(c, extra, nns__cmul(c, n, classes > 1 ? classes - 1 : 1));
  c->flops = nns__cadd(c, c->flops, extra);
  /* Reads X, coefficients, intercepts; writes labels and scores. */
  c->dmas = nns__cadd(c, nns__cadd(c, x, k), b);
  return add_outputs(cx, c);
}

/* LinearRegressor: X [N, F] x coefficients [F, T] + intercepts, and the
 * post_transform per target. */
static nns_status linear_regressor_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n, f, k = len_or_0(cx, "coefficients"), x = nns__in_count(cx, c, 0);
  int64_t t = nns__attr_int(cx, "targets");
  if (!rows_features(cx, c, &n, &f) || x < 0 || t < 1)
    return NNS__UNCOUNTED;
  int64_t y = nns__cmul(c, n, t), b = len_or_0(cx, "intercepts");
  nns__matmul_cost(c, y, f, x, k);
  c->dmas = nns__cadd(c, c->dmas, b);
  c->flops = nns__cadd(c, c->flops,
                       nns__cmul(c, y, (b ? 1 : 0) + post_flops(cx)));
  return NNS_OK;
}

/* ==== Costs: SVMs ==== */

/*
 * FLOPs a kernel evaluation adds to the F-long dot product (F MACs, 2F - 1
 * FLOPs) it is built on: LINEAR none; POLY gamma * d + c and the power
 * (3); RBF the F differences and gamma * d, exp (F + 2); SIGMOID
 * gamma * d + c and tanh (2 + 6).
 */
static int64_t kernel_extra(const nns__ictx *cx, int64_t f) {
  const char *k = nns__attr_str(cx, "kernel_type");
  return strcmp(k, "POLY") == 0      ? 3
         : strcmp(k, "RBF") == 0     ? f + 2
         : strcmp(k, "SIGMOID") == 0 ? 8
                                     : 0;
}

/*
 * The kernel part of an SVM: per sample, sv kernel evaluations of an
 * F-long dot product, then `combine` multiply-adds of the kernel values
 * with the coefficients. MACs = n (sv F + combine); FLOPs = 2 MACs plus
 * the kernels' extras (kernel_extra). DMAs: X, the support vectors and
 * coefficients (read once, as weights), the outputs.
 */
static nns_status svm_cost(nns__ictx *cx, nns__cost *c, int64_t n, int64_t f,
                           int64_t sv, int64_t combine, int64_t extra_flops) {
  int64_t per = nns__cadd(c, nns__cmul(c, sv, f), combine);
  c->macs = nns__cmul(c, n, per);
  int64_t kx = nns__cmul(c, sv, kernel_extra(cx, f));
  c->flops = nns__cadd(c, nns__cmul(c, 2, c->macs),
                       nns__cmul(c, n, nns__cadd(c, kx, extra_flops)));
  c->dmas = nns__cadd(c, nns__in_count(cx, c, 0),
                      nns__cadd(c, len_or_0(cx, "support_vectors"),
                                len_or_0(cx, "coefficients")));
  return add_outputs(cx, c);
}

/*
 * SVMClassifier. With support vectors (sv = support_vectors / F, C =
 * classes of vectors_per_class): the one-vs-one decision sums, for each of
 * the C (C - 1) / 2 class pairs, the kernel values of both classes'
 * vectors, so each vector is combined C - 1 times; each pair then adds its
 * rho and votes (2 FLOPs). Without (a linear SVM): one F-long dot product
 * per coefficient row plus its rho.
 */
static nns_status svm_classifier_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n, f;
  if (!rows_features(cx, c, &n, &f) || f < 1 || nns__in_count(cx, c, 0) < 0)
    return NNS__UNCOUNTED;
  int64_t sv = len_or_0(cx, "support_vectors") / f;
  int64_t classes = len_or_0(cx, "vectors_per_class");
  if (sv > 0) {
    int64_t pair = classes > 1 ? classes * (classes - 1) / 2 : 0;
    return svm_cost(cx, c, n, f, sv,
                    nns__cmul(c, sv, classes > 1 ? classes - 1 : 1),
                    nns__cmul(c, 2, pair));
  }
  int64_t rows = len_or_0(cx, "coefficients") / f;
  return svm_cost(cx, c, n, f, 0, nns__cmul(c, rows, f), rows);
}

/* SVMRegressor: n_supports kernel values combined with their coefficients
 * (a linear SVM: one F-long dot product), plus rho and, for one_class,
 * the sign test. */
static nns_status svm_regressor_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n, f;
  if (!rows_features(cx, c, &n, &f) || nns__in_count(cx, c, 0) < 0)
    return NNS__UNCOUNTED;
  int64_t sv = nns__attr_int(cx, "n_supports");
  int64_t extra = 1 + (nns__attr_int(cx, "one_class") ? 1 : 0);
  if (sv > 0)
    return svm_cost(cx, c, n, f, sv, sv, extra);
  return svm_cost(cx, c, n, f, 0, f, extra);
}

/* ==== Costs: tree ensembles ==== */

typedef struct tree_node {
  int64_t tree, id; /* nodes_treeids, nodes_nodeids */
  int64_t index;    /* position in the attribute lists */
} tree_node;

static int tree_node_cmp(const void *pa, const void *pb) {
  const tree_node *a = pa, *b = pb;
  if (a->tree != b->tree)
    return a->tree < b->tree ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Sorted position of node (tree, id), or -1. */
static int64_t tree_find(const tree_node *s, int64_t n, int64_t tree,
                         int64_t id) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    tree_node key = {tree, id, 0};
    int r = tree_node_cmp(&s[mid], &key);
    if (r == 0)
      return mid;
    if (r < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/*
 * Sum over the trees of the number of branch nodes on their longest
 * root-to-leaf path, and the number of trees; -1 when the node attributes
 * are inconsistent or hold a cycle. An iterative depth-first search (no
 * recursion: a hostile tree may be deep), one visit per node.
 */
static int64_t tree_depths(nns__ictx *cx, nns__cost *c, int64_t *n_trees) {
  const int64_t *tree, *id, *yes, *no;
  const nns__attr *modes = nns__attr_get(cx, "nodes_modes");
  int32_t n = nns__attr_ints(cx, "nodes_treeids", &tree);
  *n_trees = 0;
  if (n < 0) /* no nodes: an ensemble of no trees */
    return 0;
  if (nns__attr_ints(cx, "nodes_nodeids", &id) != n ||
      nns__attr_ints(cx, "nodes_truenodeids", &yes) != n ||
      nns__attr_ints(cx, "nodes_falsenodeids", &no) != n || !modes ||
      modes->type != NNS__AT_STRINGS || modes->n != n)
    return -1;
  if (n == 0)
    return 0;
  tree_node *s = malloc((size_t)n * sizeof *s);
  int64_t *depth = calloc((size_t)n, sizeof *depth);
  int64_t *stack = malloc(((size_t)n * 2 + 1) * sizeof *stack);
  uint8_t *state = calloc((size_t)n, 1); /* 0 new, 1 open, 2 done */
  uint8_t *child = calloc((size_t)n, 1); /* referenced as a child */
  int64_t total = -1;
  if (!s || !depth || !stack || !state || !child)
    goto done;
  for (int32_t i = 0; i < n; i++)
    s[i] = (tree_node){tree[i], id[i], i};
  qsort(s, (size_t)n, sizeof *s, tree_node_cmp);
  /* Children per sorted position: -1 for a leaf or a missing node. */
#define KID(p, k)                                                              \
  (strcmp(modes->strings[s[p].index], "LEAF") == 0                             \
       ? -1                                                                    \
       : tree_find(s, n, s[p].tree, (k) ? no[s[p].index] : yes[s[p].index]))
  for (int64_t p = 0; p < n; p++)
    for (int k = 0; k < 2; k++) {
      int64_t q = KID(p, k);
      if (q >= 0)
        child[q] = 1;
    }
  total = 0;
  int64_t tree_max = 0;
  for (int64_t r = 0; r < n; r++) {
    if (r == 0 || s[r].tree != s[r - 1].tree) {
      total = nns__cadd(c, total, tree_max);
      tree_max = 0;
      ++*n_trees;
    }
    if (child[r] || state[r])
      continue;
    int64_t top = 0;
    stack[top++] = r;
    while (top > 0) {
      int64_t p = stack[top - 1];
      if (state[p] == 2) {
        top--;
      } else if (state[p] == 0) {
        state[p] = 1;
        for (int k = 0; k < 2; k++) {
          int64_t q = KID(p, k);
          if (q >= 0 && state[q] == 1) {
            total = -1; /* a cycle */
            goto done;
          }
          if (q >= 0 && state[q] == 0 && top < 2 * (int64_t)n + 1)
            stack[top++] = q;
        }
      } else {
        int64_t d = 0;
        bool leaf = strcmp(modes->strings[s[p].index], "LEAF") == 0;
        for (int k = 0; k < 2 && !leaf; k++) {
          int64_t q = KID(p, k);
          if (q >= 0 && depth[q] > d)
            d = depth[q];
        }
        depth[p] = leaf ? 0 : d + 1;
        state[p] = 2;
        top--;
      }
    }
    if (depth[r] > tree_max)
      tree_max = depth[r];
  }
#undef KID
  total = nns__cadd(c, total, tree_max);
  /* A node no root reaches lies on a cycle of a rootless tree. */
  for (int64_t p = 0; p < n && total >= 0; p++)
    if (state[p] != 2)
      total = -1;
done:
  free(s);
  free(depth);
  free(stack);
  free(state);
  free(child);
  return total;
}

/*
 * TreeEnsembleClassifier / Regressor, per sample: one compare per branch
 * node on the longest path of every tree (an upper bound of the nodes a
 * sample visits: a sample stops at its leaf); per tree, the leaf's weight
 * added to each of the T output columns; the base values (T adds) and the
 * post_transform per column. MACs 0. DMAs: X, the threshold of every node
 * compared, the outputs.
 */
static nns_status tree_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n, f, trees, x = nns__in_count(cx, c, 0);
  int64_t depths = tree_depths(cx, c, &trees);
  const nns__type *z = nns__has_out(cx, 1) ? &cx->node->out[1]->type
                       : nns__has_out(cx, 0) ? &cx->node->out[0]->type
                                             : NULL;
  if (!rows_features(cx, c, &n, &f) || x < 0 || depths < 0 || !z ||
      z->rank != 2)
    return NNS__UNCOUNTED;
  int64_t t = nns__dim_count(c, z->dims[1], cx->m);
  int64_t per = nns__cadd(c, depths, nns__cmul(c, trees, t));
  per = nns__cadd(c, per, nns__cmul(c, t, (len_or_0(cx, "base_values") ? 1
                                                                       : 0) +
                                                 post_flops(cx)));
  c->macs = 0;
  c->flops = nns__cmul(c, n, per);
  c->dmas = nns__cadd(c, x, nns__cmul(c, n, depths));
  return add_outputs(cx, c);
}

/* ==== TreeEnsemble (ai.onnx.ml 5) ==== */

/* Y [N, n_targets] in X's dtype. */
static nns_status tree_ensemble_shape(nns__ictx *cx) {
  nns__dim n;
  nns_status st = batch_of(cx, &n);
  if (st == NNS_OK)
    out_rows(cx, 0, nns__in_dtype(cx, 0), n,
             nns__attr_has(cx, "n_targets") ? nns__attr_int(cx, "n_targets")
                                            : -1,
             true);
  return st;
}

/*
 * The longest root-to-leaf path of every tree, summed: interior node i
 * leads to nodes_truenodeids[i] unless nodes_trueleafs[i] says that is a
 * leaf (likewise false). Walked breadth-first from tree_roots, each node
 * once (a node reached twice, as a malformed file may make it, is not
 * walked again). -1 when the lists do not fit together.
 */
static int64_t tree5_depths(nns__ictx *cx, int64_t *n_trees) {
  const int64_t *roots, *yes, *no, *yes_leaf, *no_leaf;
  int32_t nr = nns__attr_ints(cx, "tree_roots", &roots);
  int32_t n = nns__attr_ints(cx, "nodes_truenodeids", &yes);
  *n_trees = nr > 0 ? nr : 0;
  if (nr <= 0)
    return 0;
  if (n < 1 || nns__attr_ints(cx, "nodes_falsenodeids", &no) != n ||
      nns__attr_ints(cx, "nodes_trueleafs", &yes_leaf) != n ||
      nns__attr_ints(cx, "nodes_falseleafs", &no_leaf) != n)
    return -1;
  int64_t *level = calloc((size_t)n, sizeof *level);
  int32_t *queue = malloc((size_t)n * sizeof *queue);
  int64_t total = 0;
  for (int32_t t = 0; level && queue && t < nr && total >= 0; t++) {
    if (roots[t] < 0 || roots[t] >= n) {
      total = -1;
      break;
    }
    int32_t head = 0, tail = 0;
    int64_t deepest = 0;
    if (!level[roots[t]]) {
      level[roots[t]] = 1;
      queue[tail++] = (int32_t)roots[t];
    }
    while (head < tail) {
      int32_t i = queue[head++];
      deepest = level[i] > deepest ? level[i] : deepest;
      const int64_t kid[2] = {yes_leaf[i] ? -1 : yes[i],
                              no_leaf[i] ? -1 : no[i]};
      for (int k = 0; k < 2; k++)
        if (kid[k] >= 0 && kid[k] < n && !level[kid[k]] && tail < n) {
          level[kid[k]] = level[i] + 1;
          queue[tail++] = (int32_t)kid[k];
        }
    }
    total += deepest;
  }
  if (!level || !queue)
    total = -1;
  free(level);
  free(queue);
  return total;
}

/* Per row: one compare per node of each tree's longest path, one add per
 * tree (its leaf's weight into a target), the post_transform per target;
 * DMAs X, the nodes read, Y. */
static nns_status tree_ensemble_cost(nns__ictx *cx, nns__cost *c) {
  int64_t n, f, trees, x = nns__in_count(cx, c, 0);
  int64_t depths = tree5_depths(cx, &trees);
  int64_t t = nns__attr_has(cx, "n_targets") ? nns__attr_int(cx, "n_targets")
                                              : -1;
  /* post_transform as a number: none, softmax, logistic, softmax_zero,
   * probit (post_flops' counts) */
  static const int64_t post[5] = {0, 5, 4, 5, 6};
  int64_t pt = nns__attr_int(cx, "post_transform");
  if (!rows_features(cx, c, &n, &f) || x < 0 || depths < 0 || t < 0 ||
      pt < 0 || pt > 4)
    return NNS__UNCOUNTED;
  int64_t per = nns__cadd(c, nns__cadd(c, depths, trees),
                          nns__cmul(c, t, post[pt]));
  c->macs = 0;
  c->flops = nns__cmul(c, n, per);
  c->dmas = nns__cadd(c, x, nns__cmul(c, n, depths));
  return add_outputs(cx, c);
}

/* ==== Table ==== */

#define ML "ai.onnx.ml"
/* The newest ai.onnx.ml opset (onnx 1.20): 4 changed LabelEncoder only, 5
 * added TreeEnsemble and deprecated the two it replaces, which stay. */
#define ML_MAX 5

const nns__op nns__ops_ml[] = {
    {ML, "ArrayFeatureExtractor", 1, ML_MAX, "ac", NULL, array_feature_shape,
     NULL,
     .cost = nns__cost_move},
    {ML, "Binarizer", 1, ML_MAX, "a", binarizer_attrs, same_shape, NULL,
     .cost = compare_cost},
    {ML, "CastMap", 1, ML_MAX, "a", cast_map_attrs, cast_map_shape, NULL,
     .cost = nns__cost_move},
    {ML, "CategoryMapper", 1, ML_MAX, "a", category_mapper_attrs,
     swap_string_int, NULL, .cost = nns__cost_move},
    {ML, "DictVectorizer", 1, ML_MAX, "a", dict_vectorizer_attrs,
     dict_vectorizer_shape, NULL, .cost = nns__cost_move},
    {ML, "FeatureVectorizer", 1, ML_MAX, "a", feature_vectorizer_attrs,
     feature_vectorizer_shape, NULL, .cost = nns__cost_move},
    {ML, "Imputer", 1, ML_MAX, "a", imputer_attrs, same_shape, NULL,
     .cost = compare_cost},
    {ML, "LabelEncoder", 1, 1, "a", label_encoder1_attrs, swap_string_int,
     NULL, .cost = nns__cost_move},
    {ML, "LabelEncoder", 2, 3, "a", label_encoder2_attrs,
     label_encoder2_shape, NULL, .cost = nns__cost_move},
    /* ai.onnx.ml 4: keys/values/default as tensors of any dtype. */
    {ML, "LabelEncoder", 4, ML_MAX, "a", label_encoder4_attrs,
     label_encoder2_shape, NULL, .cost = nns__cost_move},
    {ML, "LinearClassifier", 1, ML_MAX, "a", linear_classifier_attrs,
     linear_classifier_shape, NULL, .cost = linear_classifier_cost},
    {ML, "LinearRegressor", 1, ML_MAX, "a", linear_regressor_attrs,
     linear_regressor_shape, NULL, .cost = linear_regressor_cost},
    {ML, "Normalizer", 1, ML_MAX, "a", normalizer_attrs, same_shape_float, NULL,
     .cost = normalizer_cost},
    {ML, "OneHotEncoder", 1, ML_MAX, "a", one_hot_encoder_attrs,
     one_hot_encoder_shape, NULL, .cost = nns__cost_move},
    {ML, "Scaler", 1, ML_MAX, "a", scaler_attrs, same_shape_float, NULL,
     .cost = scaler_cost},
    {ML, "SVMClassifier", 1, ML_MAX, "a", svm_classifier_attrs,
     svm_classifier_shape, NULL, .cost = svm_classifier_cost},
    {ML, "SVMRegressor", 1, ML_MAX, "a", svm_regressor_attrs,
     svm_regressor_shape, NULL, .cost = svm_regressor_cost},
    {ML, "TreeEnsembleClassifier", 1, 2, "a", tree_classifier1_attrs,
     tree_classifier_shape, NULL, .cost = tree_cost},
    {ML, "TreeEnsembleClassifier", 3, ML_MAX, "a", tree_classifier3_attrs,
     tree_classifier_shape, NULL, .cost = tree_cost},
    {ML, "TreeEnsembleRegressor", 1, 2, "a", tree_regressor1_attrs,
     tree_regressor_shape, NULL, .cost = tree_cost},
    {ML, "TreeEnsembleRegressor", 3, ML_MAX, "a", tree_regressor3_attrs,
     tree_regressor_shape, NULL, .cost = tree_cost},
    {ML, "TreeEnsemble", 5, ML_MAX, "a", tree_ensemble_attrs,
     tree_ensemble_shape, NULL, .cost = tree_ensemble_cost},
    {ML, "ZipMap", 1, ML_MAX, "a", zipmap_attrs, zipmap_shape, NULL,
     .cost = zipmap_cost},
    NNS__OP_END,
};
