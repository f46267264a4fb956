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
 */
#include <string.h>

#include "op.h"

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

/* LabelEncoder-2: the output dtype is that of the values_* list set. */
static nns_status label_encoder2_shape(nns__ictx *cx) {
  int32_t dt = list_len(cx, "values_strings") >= 0  ? NNS_DT_STRING
               : list_len(cx, "values_int64s") >= 0 ? NNS_DT_INT64
               : list_len(cx, "values_floats") >= 0 ? NNS_DT_FLOAT
                                                    : 0;
  if (!dt)
    return nns__fail(cx, NNS_E_ATTR, "one of values_strings, values_int64s, "
                     "values_floats must be set");
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
  memcpy(d, t->dims, (size_t)(t->rank - 1) * sizeof *d);
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
    memcpy(d, t->dims, (size_t)t->rank * sizeof *d);
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
static const nns__attr_spec zipmap_attrs[] = {
    NNS__A_OPT("classlabels_int64s", INTS),
    NNS__A_OPT("classlabels_strings", STRINGS), NNS__A_END};

/* ==== Table ==== */

#define ML "ai.onnx.ml"

const nns__op nns__ops_ml[] = {
    {ML, "ArrayFeatureExtractor", 1, 3, "ac", NULL, array_feature_shape, NULL},
    {ML, "Binarizer", 1, 3, "a", binarizer_attrs, same_shape, NULL},
    {ML, "CastMap", 1, 3, "a", cast_map_attrs, cast_map_shape, NULL},
    {ML, "CategoryMapper", 1, 3, "a", category_mapper_attrs, swap_string_int,
     NULL},
    {ML, "DictVectorizer", 1, 3, "a", dict_vectorizer_attrs,
     dict_vectorizer_shape, NULL},
    {ML, "FeatureVectorizer", 1, 3, "a", feature_vectorizer_attrs,
     feature_vectorizer_shape, NULL},
    {ML, "Imputer", 1, 3, "a", imputer_attrs, same_shape, NULL},
    {ML, "LabelEncoder", 1, 1, "a", label_encoder1_attrs, swap_string_int,
     NULL},
    {ML, "LabelEncoder", 2, 3, "a", label_encoder2_attrs,
     label_encoder2_shape, NULL},
    {ML, "LinearClassifier", 1, 3, "a", linear_classifier_attrs,
     linear_classifier_shape, NULL},
    {ML, "LinearRegressor", 1, 3, "a", linear_regressor_attrs,
     linear_regressor_shape, NULL},
    {ML, "Normalizer", 1, 3, "a", normalizer_attrs, same_shape_float, NULL},
    {ML, "OneHotEncoder", 1, 3, "a", one_hot_encoder_attrs,
     one_hot_encoder_shape, NULL},
    {ML, "Scaler", 1, 3, "a", scaler_attrs, same_shape_float, NULL},
    {ML, "SVMClassifier", 1, 3, "a", svm_classifier_attrs,
     svm_classifier_shape, NULL},
    {ML, "SVMRegressor", 1, 3, "a", svm_regressor_attrs, svm_regressor_shape,
     NULL},
    {ML, "TreeEnsembleClassifier", 1, 2, "a", tree_classifier1_attrs,
     tree_classifier_shape, NULL},
    {ML, "TreeEnsembleClassifier", 3, 3, "a", tree_classifier3_attrs,
     tree_classifier_shape, NULL},
    {ML, "TreeEnsembleRegressor", 1, 2, "a", tree_regressor1_attrs,
     tree_regressor_shape, NULL},
    {ML, "TreeEnsembleRegressor", 3, 3, "a", tree_regressor3_attrs,
     tree_regressor_shape, NULL},
    {ML, "ZipMap", 1, 3, "a", zipmap_attrs, zipmap_shape, NULL},
    NNS__OP_END,
};
