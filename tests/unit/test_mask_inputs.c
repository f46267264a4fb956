/* Which observed contents a binding hands over for masked attention
 * (nns_model_mask_inputs) and the handing over (nns_model_set_value_data),
 * on attention graphs built here: q, k, v of [1, 2, 4, 2] (2 heads, 4
 * tokens, E = Ev = 2), so the two products are 2 * (2 * 4 * 4 * 2) = 128
 * MACs dense, and a causal mask allows 10 of each head's 16 (query, key)
 * pairs: (16 - 10) * 2 heads * (2 + 2) = 48 MACs left out, by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

static nns_error err;

static const int64_t qkv[] = {1, 2, 4, 2};

static void node(nns_builder *b, const char *op, int n_in, const char **in,
                 const char *out) {
  CHECK_EQ(nns_builder_add_node(b, op, "", out, "attn", in, (size_t)n_in,
                                &out, 1, &err), NNS_OK);
}

/* The builder with q, k, v, the fill -inf ("ninf", a scalar initializer)
 * and scores s = q . k^T. */
static nns_builder *scores(void) {
  nns_builder *b;
  if (nns_builder_new(&b, &err))
    return NULL;
  nns_builder_add_opset(b, "", 17, &err);
  for (int i = 0; i < 3; i++)
    nns_builder_add_input(b, (const char *[]){"q", "k", "v"}[i],
                          NNS_DT_FLOAT, 4, qkv, NULL, &err);
  float ninf = -INFINITY;
  nns_builder_add_initializer(b, "ninf", NNS_DT_FLOAT, 0, NULL, &ninf,
                              sizeof ninf, &err);
  node(b, "Transpose", 1, (const char *[]){"k"}, "kt");
  int64_t perm[] = {0, 1, 3, 2};
  nns_builder_attr_ints(b, "perm", perm, 4, &err);
  node(b, "MatMul", 2, (const char *[]){"q", "kt"}, "s");
  return b;
}

/* Softmax of `masked` into the second product, y the output; the model,
 * inferred. */
static nns_model *finish(nns_builder *b, const char *masked) {
  nns_model *m = NULL;
  node(b, "Softmax", 1, (const char *[]){masked}, "p");
  node(b, "MatMul", 2, (const char *[]){"p", "v"}, "y");
  nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  if (m)
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  return m;
}

/* The names of tracked[] that the library asks for, space-joined. */
static const char *asked(const nns_model *m, const char **tracked, size_t n) {
  static char out[256];
  size_t w[16], got = 99;
  out[0] = 0;
  CHECK_EQ(nns_model_mask_inputs(m, tracked, n, w, &got, &err), NNS_OK);
  CHECK(got <= n);
  for (size_t i = 0; i < got && i < n; i++) {
    if (i)
      strcat(out, " ");
    strcat(out, tracked[w[i]]);
  }
  return out;
}

static int64_t masked_out(nns_model *m) {
  nns_analysis *a = NULL;
  nns_counts t = {.size = sizeof t};
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_analysis_total_counts(a, &t), NNS_OK);
  CHECK_EQ(t.macs, 128);
  nns_analysis_free(a);
  return t.macs - t.macs_unmasked;
}

static unsigned char causal[16];

/* A boolean mask the recording tracked, applied by a Where through a
 * reshape: the library asks for the mask it is a view of, once, and
 * counts the pairs it allows once given. */
static void test_where_mask_through_a_view(void) {
  nns_builder *b = scores();
  int64_t d[] = {4, 4};
  nns_builder_add_input(b, "cond", NNS_DT_BOOL, 2, d, NULL, &err);
  node(b, "Identity", 1, (const char *[]){"cond"}, "m");
  node(b, "Where", 3, (const char *[]){"m", "s", "ninf"}, "sm");
  nns_model *m = finish(b, "sm");
  if (!m)
    return;
  /* the view's source; an unknown name and a repeat are not asked for */
  CHECK_STR(asked(m, (const char *[]){"nowhere", "m", "cond", "m"}, 4),
            "cond");
  CHECK_STR(asked(m, (const char *[]){"m"}, 1), "m");
  CHECK_EQ(masked_out(m), 0); /* not given: counted dense */
  CHECK_EQ(nns_model_set_value_data(m, (const char *[]){"cond", "m"}, 2,
                                    NNS_DT_BOOL, 2, d, causal, 16, &err),
           NNS_OK);
  CHECK_EQ(masked_out(m), 48);
  /* contents the model has are not asked for again */
  CHECK_STR(asked(m, (const char *[]){"m", "cond"}, 2), "");
  nns_model_free(m);
}

/* An additive mask made from a tracked boolean one by a Where between two
 * numbers (0 and -inf) is asked for as the boolean mask and the numbers
 * that are tracked, fewer bytes that say the same. */
static void test_additive_mask_from_a_boolean_one(void) {
  nns_builder *b = scores();
  int64_t d[] = {4, 4};
  float zero = 0;
  nns_builder_add_input(b, "cond", NNS_DT_BOOL, 2, d, NULL, &err);
  nns_builder_add_input(b, "fill", NNS_DT_FLOAT, 0, NULL, NULL, &err);
  nns_builder_add_initializer(b, "zero", NNS_DT_FLOAT, 0, NULL, &zero,
                              sizeof zero, &err);
  node(b, "Where", 3, (const char *[]){"cond", "zero", "fill"}, "bias");
  node(b, "Add", 2, (const char *[]){"s", "bias"}, "sm");
  nns_model *m = finish(b, "sm");
  if (!m)
    return;
  CHECK_STR(asked(m, (const char *[]){"bias", "fill", "cond"}, 3),
            "cond fill");
  float ninf = -INFINITY;
  CHECK_EQ(nns_model_set_value_data(m, (const char *[]){"cond"}, 1,
                                    NNS_DT_BOOL, 2, d, causal, 16, &err),
           NNS_OK);
  CHECK_EQ(nns_model_set_value_data(m, (const char *[]){"fill"}, 1,
                                    NNS_DT_FLOAT, 0, NULL, &ninf,
                                    sizeof ninf, &err),
           NNS_OK);
  CHECK_EQ(masked_out(m), 48);
  nns_model_free(m);
}

/* A mask too large to track, made by comparing positions: the library
 * asks for the positions, and reads the causal mask from them. */
static void test_untracked_mask_from_positions(void) {
  nns_builder *b = scores();
  int64_t d[] = {4}, one[] = {1};
  int64_t ax0 = 0, ax1 = 1;
  nns_builder_add_input(b, "pos", NNS_DT_INT64, 1, d, NULL, &err);
  nns_builder_add_initializer(b, "ax0", NNS_DT_INT64, 1, one, &ax0,
                              sizeof ax0, &err);
  nns_builder_add_initializer(b, "ax1", NNS_DT_INT64, 1, one, &ax1,
                              sizeof ax1, &err);
  node(b, "Unsqueeze", 2, (const char *[]){"pos", "ax0"}, "kpos");
  node(b, "Unsqueeze", 2, (const char *[]){"pos", "ax1"}, "qpos");
  node(b, "LessOrEqual", 2, (const char *[]){"kpos", "qpos"}, "allowed");
  node(b, "Where", 3, (const char *[]){"allowed", "s", "ninf"}, "sm");
  nns_model *m = finish(b, "sm");
  if (!m)
    return;
  CHECK_STR(asked(m, (const char *[]){"pos"}, 1), "pos");
  /* made from a value not tracked (pos): nothing */
  CHECK_STR(asked(m, (const char *[]){"kpos"}, 1), "");
  int64_t pos[] = {0, 1, 2, 3};
  CHECK_EQ(nns_model_set_value_data(m, (const char *[]){"pos"}, 1,
                                    NNS_DT_INT64, 1, d, pos, sizeof pos,
                                    &err),
           NNS_OK);
  CHECK_EQ(masked_out(m), 48);
  nns_model_free(m);
}

/* A triangle of a filled tensor (PyTorch's math SDPA on meta:
 * ones(L, S).tril()): once the fill is given as its one element, the
 * library asks for neither tensor and reads the mask from the diagonal.
 * `form` 0: Where(tril(ones), s, -inf); 1: s + triu(full(-inf), 1);
 * 2: Where(triu(ones, 1), -inf, s). Each is causal: 48 MACs out. */
static void triangle_case(int form) {
  nns_builder *b = scores();
  int64_t d[] = {4, 4}, one[] = {1};
  int64_t diag = form ? 1 : 0;
  nns_builder_add_initializer(b, "fill", form == 1 ? NNS_DT_FLOAT
                                                   : NNS_DT_BOOL,
                              2, d, NULL, 0, &err);
  nns_builder_add_initializer(b, "diag", NNS_DT_INT64, 0, one, &diag,
                              sizeof diag, &err);
  node(b, "Trilu", 2, (const char *[]){"fill", "diag"}, "tri");
  CHECK_EQ(nns_builder_attr_int(b, "upper", form ? 1 : 0, &err), NNS_OK);
  if (form == 0)
    node(b, "Where", 3, (const char *[]){"tri", "s", "ninf"}, "sm");
  else if (form == 1)
    node(b, "Add", 2, (const char *[]){"s", "tri"}, "sm");
  else
    node(b, "Where", 3, (const char *[]){"tri", "ninf", "s"}, "sm");
  nns_model *m = finish(b, "sm");
  if (!m)
    return;
  const char *both[] = {"fill", "tri"};
  CHECK_STR(asked(m, both, 2), "tri"); /* the fill not given: the mask */
  CHECK_EQ(masked_out(m), 0);
  unsigned char yes = 1;
  float ninf = -INFINITY;
  CHECK_EQ(nns_model_set_value_data(m, both, 1, form == 1 ? NNS_DT_FLOAT
                                                         : NNS_DT_BOOL,
                                    0, NULL,
                                    form == 1 ? (const void *)&ninf : &yes,
                                    form == 1 ? sizeof ninf : 1, &err),
           NNS_OK);
  CHECK_STR(asked(m, both, 2), "");
  CHECK_EQ(masked_out(m), 48);
  nns_model_free(m);
}

static void test_triangle_of_a_fill(void) {
  for (int form = 0; form < 3; form++)
    triangle_case(form);
}

/* The same triangle of a fill the graph makes itself (ConstantOfShape,
 * as an ONNX export spells torch.full(L, S, min).triu(1)): nothing to
 * ask for, and the mask read from the diagonal, 48 MACs out; with the
 * fill's value 0 (no `value`: ConstantOfShape's default) or on the
 * allowing side, nothing is left out. */
static void triangle_of_a_made_fill(const float *value, int64_t want) {
  nns_builder *b = scores();
  int64_t two[] = {2}, shape[] = {4, 4}, diag = 1, one[] = {1};
  nns_builder_add_initializer(b, "shape", NNS_DT_INT64, 1, two, shape,
                              sizeof shape, &err);
  nns_builder_add_initializer(b, "diag", NNS_DT_INT64, 0, one, &diag,
                              sizeof diag, &err);
  node(b, "ConstantOfShape", 1, (const char *[]){"shape"}, "full");
  if (value)
    CHECK_EQ(nns_builder_attr_tensor(b, "value", NNS_ATTR_TENSOR,
                                     NNS_DT_FLOAT, 1, one, value,
                                     sizeof *value, &err),
             NNS_OK);
  node(b, "Trilu", 2, (const char *[]){"full", "diag"}, "tri");
  CHECK_EQ(nns_builder_attr_int(b, "upper", 1, &err), NNS_OK);
  node(b, "Add", 2, (const char *[]){"s", "tri"}, "sm");
  nns_model *m = finish(b, "sm");
  if (!m)
    return;
  CHECK_STR(asked(m, (const char *[]){"full", "tri"}, 2), "");
  CHECK_EQ(masked_out(m), want);
  nns_model_free(m);
}

static void test_triangle_of_a_made_fill(void) {
  float ninf = -INFINITY, lowest = -3.4e38f, zero = 0;
  triangle_of_a_made_fill(&ninf, 48);
  triangle_of_a_made_fill(&lowest, 48);
  triangle_of_a_made_fill(&zero, 0);
  triangle_of_a_made_fill(NULL, 0);
}

/* Arithmetic between masks applies none: nothing is asked for. */
static void test_mask_arithmetic_is_not_a_mask_applied(void) {
  nns_builder *b = scores();
  int64_t d[] = {4, 4};
  nns_builder_add_input(b, "a", NNS_DT_FLOAT, 2, d, NULL, &err);
  nns_builder_add_input(b, "c", NNS_DT_FLOAT, 2, d, NULL, &err);
  node(b, "Add", 2, (const char *[]){"a", "c"}, "ac");
  node(b, "Mul", 2, (const char *[]){"s", "ac"}, "sm");
  nns_model *m = finish(b, "sm");
  if (!m)
    return;
  CHECK_STR(asked(m, (const char *[]){"a", "c", "ac"}, 3), "");
  nns_model_free(m);
}

static void test_bad_calls(void) {
  size_t w[2], got = 7;
  const char *names[] = {"cond"};
  int64_t d[] = {4, 4};
  CHECK_EQ(nns_model_mask_inputs(NULL, names, 1, w, &got, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_set_value_data(NULL, names, 1, NNS_DT_BOOL, 2, d,
                                    causal, 16, &err),
           NNS_E_ARG);
  nns_builder *b = scores();
  nns_builder_add_input(b, "cond", NNS_DT_BOOL, 2, d, NULL, &err);
  node(b, "Where", 3, (const char *[]){"cond", "s", "ninf"}, "sm");
  nns_model *m = NULL;
  node(b, "Softmax", 1, (const char *[]){"sm"}, "p");
  node(b, "MatMul", 2, (const char *[]){"p", "v"}, "y");
  nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  if (!m)
    return;
  /* before any inference: no types to read */
  CHECK_EQ(nns_model_mask_inputs(m, names, 1, w, &got, &err), NNS_E_STATE);
  CHECK(strstr(err.message, "nns_model_infer") != NULL);
  CHECK_EQ(got, 0);
  CHECK_EQ(nns_model_mask_inputs(m, names, 1, NULL, &got, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_mask_inputs(m, NULL, 0, NULL, &got, &err), NNS_E_STATE);
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_mask_inputs(m, NULL, 0, NULL, &got, &err), NNS_OK);
  CHECK_EQ(got, 0);
  /* a name the graph lacks changes nothing, and is named */
  CHECK_EQ(nns_model_set_value_data(m, (const char *[]){"cond", "nowhere"},
                                    2, NNS_DT_BOOL, 2, d, causal, 16, &err),
           NNS_E_NOTFOUND);
  CHECK(strstr(err.message, "nowhere") != NULL);
  CHECK_EQ(masked_out(m), 0);
  /* bytes that are not the elements', an unknown dtype: refused */
  CHECK_EQ(nns_model_set_value_data(m, names, 1, NNS_DT_BOOL, 2, d, causal,
                                    15, &err),
           NNS_E_ARG);
  CHECK(strstr(err.message, "'cond'") != NULL);
  CHECK_EQ(nns_model_set_value_data(m, names, 1, 9999, 2, d, causal, 16,
                                    &err),
           NNS_E_ARG);
  CHECK_EQ(nns_model_set_value_data(m, names, 0, NNS_DT_BOOL, 2, d, causal,
                                    16, &err),
           NNS_E_ARG);
  CHECK_EQ(masked_out(m), 0);
  CHECK_STR(asked(m, names, 1), "cond");
  nns_model_free(m);
}

int main(void) {
  for (int i = 0; i < 16; i++)
    causal[i] = i % 4 <= i / 4;
  RUN(test_where_mask_through_a_view);
  RUN(test_additive_mask_from_a_boolean_one);
  RUN(test_untracked_mask_from_positions);
  RUN(test_triangle_of_a_fill);
  RUN(test_triangle_of_a_made_fill);
  RUN(test_mask_arithmetic_is_not_a_mask_applied);
  RUN(test_bad_calls);
  return check_finish();
}
