/*
 * test_deferred.c - the recorder's numbering finished by the library
 * (packed record 32, deferred_names; docs/tape.md, "Numbers the library
 * gives"). The recorder counts only what it makes; each numbered call
 * shifts its later numbers by what the call took. The names expected are
 * worked out by hand from the recorder's rule (python/nnscan/graph.py:
 * one counter for values, one for nodes, a value numbered when first
 * written, a constant when made).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir/builder_int.h"
#include "nnscan.h"
#include "packed_writer.h"

static void w_deferred(wbuf *b) { w_u8(b, NNS_PACKED_DEFERRED_NAMES); }

static void w_u64_null(wbuf *b) { /* no initializer data */
  uint64_t none = UINT64_MAX;
  w(b, &none, 8);
}

static void w_kernel(wbuf *b, uint32_t first, uint32_t count) {
  w_u8(b, NNS_PACKED_KERNEL);
  w_u32(b, first);
  w_u32(b, count);
}

/* A buffer at ONNX opset 17 whose numbering is the library's, its first
 * names record at the recorder's counters 0 (an opset record first: the
 * lowerings below read their shapes and axes from inputs). */
static void w_start_deferred_17(wbuf *b) {
  w_start(b);
  w_u8(b, NNS_PACKED_OPSET);
  w_str(b, "");
  w_i64(b, 17);
  w_deferred(b);
  w_names_inits(b, 0, 0, 0);
}

static const char *node_name(nns_model *m, size_t i) {
  nns_node_info x = {.size = sizeof x};
  return nns_model_node(m, i, &x) == NNS_OK ? x.name : "?";
}

/* The name of graph input k ("?" for none). */
static const char *input_name(nns_model *m, size_t k) {
  size_t v = 0;
  nns_value_info x = {.size = sizeof x};
  return nns_model_input(m, k, &v) == NNS_OK &&
                 nns_model_value(m, v, &x) == NNS_OK
             ? x.name
             : "?";
}

/* The recorder's Relu (its value 1, node 0), then silu numbered by the
 * library at the recorder's counters (1, 1): the table's Sigmoid and Mul,
 * nodes 1 and 2, values 2 and 3 (the call's output); then the recorder's
 * Relu with its own next numbers, value 2 and node 1, which are value 4
 * and node 3 once the call's two of each are counted. A kernel over the
 * recorder's entries 1 and 2 (the call and that Relu) is nodes 1 to 3. */
static void test_numbers_shift(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_deferred(&a);
  w_node(&a, "Relu", "\4blk/Relu_0", "x", NULL, "\2v1");
  w_names_inits(&a, 1, 1, 0);
  w_aten(&a, "silu", "blk", "\2v1", NULL, -1, "\3" "0.0");
  w_node(&a, "Relu", "\4blk/Relu_1", "\3" "0.0", NULL, "\2v2");
  w_kernel(&a, 1, 2);
  w_output(&a, "\2v2");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 4);
  /* the names the builder gives back (a binding's masks) */
  nns_builder *bu = NULL;
  const char *got = NULL;
  CHECK_EQ(nns_builder_new(&bu, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_packed(bu, a.p, a.n, &err), NNS_OK);
  CHECK_EQ(nns_builder_packed_name(bu, "\2v2", &got, &err), NNS_OK);
  CHECK_STR(got, "v4");
  CHECK_EQ(nns_builder_packed_name(bu, "\3" "0.0", &got, &err), NNS_OK);
  CHECK_STR(got, "v3");
  CHECK_EQ(nns_builder_packed_name(bu, "\4blk/Relu_1", &got, &err), NNS_OK);
  CHECK_STR(got, "blk/Relu_3");
  CHECK_EQ(nns_builder_packed_name(bu, "plain", &got, &err), NNS_OK);
  CHECK_STR(got, "plain");
  CHECK_EQ(nns_builder_packed_name(bu, "\2v", &got, &err), NNS_E_ARG);
  /* the entries' nodes: Relu 0; the call, Sigmoid and Mul (1, 2); the
   * second Relu 3; none past the last entry */
  static const size_t runs[][4] = {/* first, count -> node, nodes */
                                    {0, 1, 0, 1},
                                    {1, 1, 1, 2},
                                    {1, 2, 1, 3},
                                    {3, 0, 4, 0}};
  size_t at = 9, n = 9;
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    CHECK_EQ(nns_builder_packed_entries(bu, runs[i][0], runs[i][1], &at, &n,
                                        &err),
             NNS_OK);
    CHECK_EQ(at, runs[i][2]);
    CHECK_EQ(n, runs[i][3]);
  }
  CHECK_EQ(nns_builder_packed_entries(bu, 2, 2, &at, &n, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_packed_entries(bu, 4, 0, &at, &n, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_packed_entries(bu, 1, (size_t)-1, &at, &n, &err),
           NNS_E_ARG);
  CHECK_EQ(nns_builder_packed_entries(bu, 0, 1, NULL, &n, &err), NNS_E_ARG);
  nns_builder_free(bu);
  static const char *const names[] = {"blk/Relu_0", "blk/Sigmoid_1",
                                      "blk/Mul_2", "blk/Relu_3"};
  for (size_t i = 0; m && i < 4; i++)
    CHECK_STR(node_name(m, i), names[i]);
  if (m) {
    CHECK_STR(value_name(m, 0, 0, false), "v1");
    CHECK_STR(value_name(m, 1, 0, true), "v1");
    CHECK_STR(value_name(m, 1, 0, false), "v2");
    CHECK_STR(value_name(m, 2, 0, false), "v3");
    CHECK_STR(value_name(m, 3, 0, true), "v3");
    CHECK_STR(value_name(m, 3, 0, false), "v4");
    nns_node_info x = {.size = sizeof x};
    CHECK_EQ(nns_model_node(m, 1, &x), NNS_OK);
    CHECK_EQ(x.kernel, 1);
    CHECK_EQ(x.kernel_nodes, 3);
    CHECK_EQ(nns_model_node(m, 0, &x), NNS_OK);
    CHECK_EQ(x.kernel_nodes, 1);
  }
  nns_model_free(m);
}

/* A numbered call reading a parameter and a constant from outside first
 * ("\5" KIND NAME), the recorder having named nothing yet (counters 0,
 * 0): mul(x, W) makes W's initializer where its Mul reads it (trainable
 * by the recorder's kind record), node 0, output v1; mul(that, c), at the
 * same counters, numbers the outside constant where its Mul reads it,
 * const2, before its output, v3, node 1; the recorder's Add, its own
 * value 1 and node 0, is v4 and Add_2, and reads them by those names. */
static void test_first_reads(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_deferred(&a);
  w_u8(&a, NNS_PACKED_PARAM_KIND);
  w_str(&a, "W");
  w_i32(&a, NNS_PARAM_TRAINABLE);
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "mul", "blk", "x", "\5tW", -1, "\3" "0.0");
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "mul", "blk", "\3" "0.0", "\5" "c1", -1, "\3" "1.0");
  w_node(&a, "Add", "\4blk/Add_0", "\3" "1.0", "\5" "c1", "\2v1");
  w_output(&a, "\2v1");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 3);
  if (m) {
    CHECK_STR(node_name(m, 0), "blk/Mul_0");
    CHECK_STR(node_name(m, 1), "blk/Mul_1");
    CHECK_STR(node_name(m, 2), "blk/Add_2");
    CHECK_STR(value_name(m, 0, 1, true), "W");
    CHECK_STR(value_name(m, 0, 0, false), "v1");
    CHECK_STR(value_name(m, 1, 1, true), "const2");
    CHECK_STR(value_name(m, 1, 0, false), "v3");
    CHECK_STR(value_name(m, 2, 0, true), "v3");
    CHECK_STR(value_name(m, 2, 1, true), "const2");
    CHECK_STR(value_name(m, 2, 0, false), "v4");
    nns_analysis *an = NULL;
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
    CHECK_EQ(nns_model_analyze(m, NULL, &an, &err), NNS_OK);
    nns_counts t = {.size = sizeof t};
    CHECK_EQ(nns_analysis_total_counts(an, &t), NNS_OK);
    CHECK_EQ(t.params, 6); /* W: float [2, 3] */
    nns_analysis_free(an);
  }
  nns_model_free(m);
}

/* view(K, [3, 2]) of a constant from outside K, read first: the
 * library's Reshape makes its shape before the node reads K, where the
 * rule reads K first (the recorder's numbering: const1) and then makes
 * the shape (c2), so the shape is named again where the node reads it;
 * the output is v3, node 0, and the recorder's Relu after it, its own
 * value 1 and node 0, v4 and Relu_1. The two initializers lie as the
 * rule made them: K, then the shape. */
static void test_outside_read_before_made(void) {
  wbuf a;
  nns_error err;
  w_start_deferred_17(&a);
  w_aten_head(&a, "view", "blk", 2);
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "\5" "cK");
  w_arg(&a, "size", NNS_ATEN_ARG_INTS);
  w_u32(&a, 2);
  w_i64(&a, 3);
  w_i64(&a, 2);
  w_u32(&a, 1);
  w_str(&a, "\3" "0.0");
  w_i32(&a, NNS_DT_FLOAT);
  w_i32(&a, 2);
  w_i64(&a, 3);
  w_i64(&a, 2);
  w_node(&a, "Relu", "\4blk/Relu_0", "\3" "0.0", NULL, "\2v1");
  w_output(&a, "\2v1");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 2);
  if (m) {
    CHECK_STR(node_name(m, 0), "blk/Reshape_0");
    CHECK_STR(value_name(m, 0, 0, true), "const1");
    CHECK_STR(value_name(m, 0, 1, true), "c2");
    CHECK_STR(value_name(m, 0, 0, false), "v3");
    CHECK_STR(node_name(m, 1), "blk/Relu_1");
    CHECK_STR(value_name(m, 1, 0, false), "v4");
    static const char *const laid[] = {"x", "const1", "c2"};
    for (size_t i = 0; i < 3; i++) {
      nns_value_info v = {.size = sizeof v};
      CHECK_EQ(nns_model_value(m, i, &v), NNS_OK);
      CHECK_STR(v.name, laid[i]);
    }
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  }
  nns_model_free(m);
}

/* binary_cross_entropy_with_logits(x, x, None, P, reduction none) of a
 * constant P from outside, not the call's first tensor argument. Its
 * lowering (aten_math.c) reads P where its node Sub(P, 1) reads
 * it, after making the 1: Sigmoid v1, Log v2, the 1 of 1 - y c3, Sub v4,
 * Mul v5, then the 1 of P - 1 c6 and P const7, Sub v8, Mul v9, the 1 of
 * + 1 c10, Add v11, Mul v12, the last Sub the call's output v13; the
 * initializers laid as made: c3, c6, const7, c10. Dealing P's number
 * ahead of c6, as for view's K above, gave const6 and c7. */
static void test_outside_read_at_its_node(void) {
  wbuf a;
  nns_error err;
  w_start_deferred_17(&a);
  w_aten_head(&a, "binary_cross_entropy_with_logits", "blk", 5);
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "x");
  w_arg(&a, "target", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "x");
  w_arg(&a, "weight", NNS_ATEN_ARG_NONE);
  w_arg(&a, "pos_weight", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "\5" "cP");
  w_arg(&a, "reduction", NNS_ATEN_ARG_INT);
  w_i64(&a, 0);
  w_u32(&a, UINT32_MAX); /* no symbol */
  w_u32(&a, 1);
  w_tensor(&a, "\3" "0.0");
  w_output(&a, "\3" "0.0");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 9);
  if (m) {
    CHECK_STR(value_name(m, 2, 0, true), "c3");
    CHECK_STR(value_name(m, 4, 0, true), "const7");
    CHECK_STR(value_name(m, 4, 1, true), "c6");
    CHECK_STR(value_name(m, 4, 0, false), "v8");
    CHECK_STR(value_name(m, 6, 1, true), "c10");
    CHECK_STR(value_name(m, 8, 0, false), "v13");
    static const char *const laid[] = {"x", "c3", "c6", "const7", "c10"};
    for (size_t i = 0; i < 5; i++) {
      nns_value_info v = {.size = sizeof v};
      CHECK_EQ(nns_model_value(m, i, &v), NNS_OK);
      CHECK_STR(v.name, laid[i]);
    }
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  }
  nns_model_free(m);
}

/* slice(K, 0, 0, 1, 1) of a constant K from outside: its Slice reads K,
 * then the four constants the lowering made first (starts, ends, axes,
 * steps); the rule reads K first (const1), then makes them (c2 to c5),
 * so all four are named again, each keeping its own contents: starts 0,
 * ends 1, axes 0, steps 1, the output [1, 3]. */
static void test_outside_sliced(void) {
  wbuf a;
  nns_error err;
  w_start_deferred_17(&a);
  w_aten_head(&a, "slice", "blk", 5);
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "\5" "cK");
  static const char *const ints[] = {"dim", "start", "end", "step"};
  static const int64_t vals[] = {0, 0, 1, 1};
  for (int k = 0; k < 4; k++) {
    w_arg(&a, ints[k], NNS_ATEN_ARG_INT);
    w_i64(&a, vals[k]);
    w_u32(&a, UINT32_MAX); /* no symbol */
  }
  w_u32(&a, 1);
  w_str(&a, "\3" "0.0");
  w_i32(&a, NNS_DT_FLOAT);
  w_i32(&a, 2);
  w_i64(&a, 1);
  w_i64(&a, 3);
  w_output(&a, "\3" "0.0");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 1);
  if (m) {
    static const char *const read[] = {"const1", "c2", "c3", "c4", "c5"};
    for (size_t k = 0; k < 5; k++)
      CHECK_STR(value_name(m, 0, k, true), read[k]);
    CHECK_STR(value_name(m, 0, 0, false), "v6");
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
    nns_value_info v = {.size = sizeof v};
    CHECK_EQ(nns_model_value(m, 6, &v), NNS_OK);
    CHECK_STR(v.name, "v6");
    CHECK_EQ(v.rank, 2);
    nns_dim d0 = {.size = sizeof d0}, d1 = {.size = sizeof d1};
    CHECK_EQ(nns_model_value_dim(m, 6, 0, &d0), NNS_OK);
    CHECK_EQ(nns_model_value_dim(m, 6, 1, &d1), NNS_OK);
    CHECK_EQ(d0.value * 10 + d1.value, 13);
  }
  nns_model_free(m);
}

/* frobnicate(K), an op the table does not know, of a constant K from
 * outside: a pytorch.aten node reading K, which the recorder
 * (Builder.unmapped) names first, const1, then its output, v2. */
static void test_outside_read_unlowered(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_deferred(&a);
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "frobnicate", "blk", "\5" "cK", NULL, -1, "\3" "0.0");
  w_output(&a, "\3" "0.0");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 1);
  if (m) {
    CHECK_STR(node_name(m, 0), "blk/frobnicate_0");
    CHECK_STR(value_name(m, 0, 0, true), "const1");
    CHECK_STR(value_name(m, 0, 0, false), "v2");
  }
  nns_model_free(m);
}

/* The builder's renaming of initializers that fe_reading uses: two
 * names swapped at once, kinds with them; refused for a name that is no
 * initializer, one another value holds, or too many at once. */
static void test_inits_renamed(void) {
  nns_builder *b = NULL;
  nns_error err;
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  if (!b)
    return;
  int64_t two = 2;
  float data[2] = {1, 2};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 1, &two, NULL, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_initializer(b, "p", NNS_DT_FLOAT, 1, &two, data,
                                       sizeof data, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_initializer(b, "q", NNS_DT_FLOAT, 0, NULL, data,
                                       4, &err),
           NNS_OK);
  CHECK_EQ(nns__builder_param_kind(b, "q", NNS_PARAM_CONSTANT, &err), NNS_OK);
  nns_model *own = nns__builder_model(b);
  const char *p = nns__intern_cstr(&own->strings, "p");
  const char *q = nns__intern_cstr(&own->strings, "q");
  const char *x = nns__intern_cstr(&own->strings, "x");
  CHECK_EQ(nns__builder_rename_inits(b, (const char *[]){x},
                                     (const char *[]){"y"}, 1, &err),
           NNS_E_ARG); /* an input */
  CHECK_EQ(nns__builder_rename_inits(b, (const char *[]){p},
                                     (const char *[]){"x"}, 1, &err),
           NNS_E_ARG); /* a name taken */
  CHECK_EQ(nns__builder_rename_inits(b, (const char *[]){p},
                                     (const char *[]){"y"}, 17, &err),
           NNS_E_ARG);
  CHECK_EQ(nns__builder_rename_inits(b, (const char *[]){p, q},
                                     (const char *[]){"q", "p"}, 2, &err),
           NNS_OK);
  const char *ins[] = {"x", "q"}, *outs[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "Add", "", "add", "", ins, 2, outs, 1,
                                &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "y", NNS_DT_FLOAT, -1, NULL, NULL, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  if (!m)
    return;
  /* "q" now holds the two floats p held (the Add reads it), "p" the
   * scalar, still the constant */
  nns_value_info v = {.size = sizeof v};
  CHECK_EQ(nns_model_value(m, 1, &v), NNS_OK);
  CHECK_STR(v.name, "q");
  CHECK_EQ(v.rank, 1);
  CHECK_EQ(nns_model_value(m, 2, &v), NNS_OK);
  CHECK_STR(v.name, "p");
  CHECK_EQ(v.rank, 0);
  nns_analysis *an = NULL;
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &an, &err), NNS_OK);
  nns_counts t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_total_counts(an, &t), NNS_OK);
  CHECK_EQ(t.params, 2); /* q, read by the Add, no kind: a parameter */
  nns_totals tot = {.size = sizeof tot};
  CHECK_EQ(nns_analysis_totals(an, &tot), NNS_OK);
  CHECK_EQ(tot.constants, 1); /* p, the scalar, kept its kind */
  nns_analysis_free(an);
  nns_model_free(m);
}

/* The record where it may not be, and names that stand for no number. */
static void test_refused(void) {
  wbuf a;
  nns_error err;
  nns_model *m = NULL;
  w_start(&a); /* after a node */
  w_node(&a, "Relu", "r", "x", NULL, "y");
  w_deferred(&a);
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "deferred_names") != NULL);
  w_start(&a); /* twice */
  w_deferred(&a);
  w_deferred(&a);
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  w_start(&a); /* a value name without its number */
  w_deferred(&a);
  w_node(&a, "Relu", "\4r_0", "x", NULL, "\2v");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "does not end in a number") != NULL);
  w_start(&a); /* a kernel past the entries */
  w_deferred(&a);
  w_node(&a, "Relu", "\4r_0", "x", NULL, "\2v1");
  w_kernel(&a, 0, 2);
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "kernel") != NULL);
  w_start(&a); /* a parameter read first under a name already taken */
  w_deferred(&a);
  w_u8(&a, NNS_PACKED_INITIALIZER);
  w_str(&a, "W");
  w_i32(&a, NNS_DT_FLOAT);
  w_i32(&a, 1);
  w_i64(&a, 3);
  w_u64_null(&a);
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "mul", "blk", "x", "\5tW", -1, "\3" "0.0");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "W") != NULL);
  CHECK(strstr(err.message, "out of memory") == NULL);
  /* a tensor read first marked with no kind after its mark, read by a
   * call the table lowers, and by one nothing lowers */
  static const char *const kindless[] = {"\5", "\5" "u"};
  static const char *const ops[] = {"mul", "frobnicate"};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      w_start(&a);
      w_deferred(&a);
      w_names_inits(&a, 0, 0, 0);
      w_aten(&a, ops[j], "blk", "x", kindless[i], -1, "\3" "0.0");
      CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
      CHECK(strstr(err.message, "no kind") != NULL);
      CHECK(m == NULL);
    }
  w_start(&a); /* a names record that is not followed by its call */
  w_deferred(&a);
  w_names_inits(&a, 1, 0, 0);
  w_node(&a, "Relu", "\4r_0", "x", NULL, "\2v1");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(m == NULL);
}

/* Every truncation of a deferred buffer gives a status (and a model only
 * with NNS_OK). */
static void test_truncations(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_deferred(&a);
  w_node(&a, "Relu", "\4blk/Relu_0", "x", NULL, "\2v1");
  w_names_inits(&a, 1, 1, 0);
  w_aten(&a, "silu", "blk", "\2v1", NULL, -1, "\3" "0.0");
  w_names_inits(&a, 1, 1, 0);
  w_aten(&a, "mul", "blk", "\3" "0.0", "\5" "c1", -1, "\3" "1.0");
  w_kernel(&a, 1, 2);
  w_output(&a, "\3" "1.0");
  size_t full = a.n;
  for (size_t n = 8; n <= full; n++) {
    nns_model *m = NULL;
    a.n = n;
    nns_status st = build(&a, &m, &err);
    CHECK(st == NNS_OK ? m != NULL : m == NULL);
    nns_model_free(m);
  }
}

/* A backward graph's forward tensors, read first by a numbered call
 * ("\5i" K), are graph inputs "fwdN", numbered where the call's node
 * reads them as constants from outside are, with no initializer: mul(x,
 * F) at counters (0, 0) names F fwd1, its output v2; the recorder's
 * input record for F, after the nodes, names it by its mark. A tensor
 * marked "\5u" and a mark (one the call's entry says its lowering leaves
 * unread: _adaptive_avg_pool2d_backward's self) is named nowhere, its
 * input record dropped; a call whose nodes read one is refused, naming
 * it; a call nothing lowers names it as the mark after the "u" says, its
 * uncounted node reading every tensor argument. */
static void w_input_23(wbuf *b, const char *name) { /* float [2, 3] */
  w_u8(b, NNS_PACKED_INPUT);
  w_str(b, name);
  w_i32(b, NNS_DT_FLOAT);
  w_i32(b, 2);
  w_i64(b, 2);
  w_i64(b, 3);
  w_u8(b, 0);
}

/* A backward graph's forward tensors are listed as the library numbered
 * them, where first read, whatever order their input records come in (the
 * recorder marks them in a call's argument order; the call's nodes may
 * read them in another: nll_loss_backward's Div reads the total weight
 * before its Equal reads the target). The rules list them as they name
 * them, where read. */
static void test_forward_inputs_in_read_order(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_deferred(&a);
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "mul", "blk", "x", "\5" "i2", -1, "\3" "0.0");
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "mul", "blk", "\3" "0.0", "\5" "i1", -1, "\3" "1.0");
  w_input_23(&a, "\5" "i1");
  w_input_23(&a, "\5" "i2");
  w_output(&a, "\3" "1.0");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_input_count(m), 3);
  CHECK_STR(input_name(m, 0), "x");
  CHECK_STR(input_name(m, 1), "fwd1");
  CHECK_STR(input_name(m, 2), "fwd3");
  nns_model_free(m);
}

static void test_forward_inputs_and_unread(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_deferred(&a);
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "mul", "blk", "x", "\5" "i1", -1, "\3" "0.0");
  w_names_inits(&a, 0, 0, 0);
  w_aten_head(&a, "_adaptive_avg_pool2d_backward", "blk", 2);
  w_arg(&a, "grad_output", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "\3" "0.0");
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "\5" "ui2");
  w_u32(&a, 1);
  w_tensor(&a, "\3" "1.0");
  w_input_23(&a, "\5" "i1");
  w_input_23(&a, "\5" "ui2");
  w_output(&a, "\3" "1.0");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  if (m) {
    CHECK_STR(value_name(m, 0, 1, true), "fwd1");
    CHECK_STR(value_name(m, 0, 0, false), "v2");
    CHECK_EQ(nns_model_input_count(m), 2);
    CHECK_STR(input_name(m, 1), "fwd1");
    for (size_t i = 0; i < nns_model_node_count(m); i++)
      for (size_t k = 0; k < 4; k++) /* (no node reads fwd3, nor i2) */
        CHECK(strcmp(value_name(m, i, k, true), "fwd3") != 0 &&
              strcmp(value_name(m, i, k, true), "i2") != 0);
    nns_analysis *an = NULL;
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
    CHECK_EQ(nns_model_analyze(m, NULL, &an, &err), NNS_OK);
    nns_counts t = {.size = sizeof t};
    CHECK_EQ(nns_analysis_total_counts(an, &t), NNS_OK);
    CHECK_EQ(t.params, 0);
    nns_analysis_free(an);
  }
  nns_model_free(m);
  w_start(&a);
  w_deferred(&a);
  w_names_inits(&a, 0, 0, 0);
  w_aten(&a, "mul", "blk", "x", "\5" "uc1", -1, "\3" "0.0");
  w_output(&a, "\3" "0.0");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "leaves unread") != NULL);
  CHECK(m == NULL);
  /* ... but a call the table declines names it, as the rule names every
   * tensor its uncounted node reads: the pooling's backward of no indices */
  w_header(&a);
  w_deferred(&a);
  w_names_inits(&a, 0, 0, 0);
  w_aten_head(&a, "max_pool2d_with_indices_backward", "blk", 3);
  w_arg(&a, "grad_output", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "\5" "c1");
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "\5" "uc2");
  w_arg(&a, "indices", NNS_ATEN_ARG_TENSORS);
  w_u32(&a, 0);
  w_u32(&a, 1);
  w_tensor(&a, "\3" "0.0");
  w_output(&a, "\3" "0.0");
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 1);
  if (m) {
    CHECK_STR(node_name(m, 0), "blk/max_pool2d_with_indices_backward_0");
    CHECK_STR(value_name(m, 0, 0, true), "const1");
    CHECK_STR(value_name(m, 0, 1, true), "const2");
  }
  nns_model_free(m);
  /* the entries' lists (nns_aten_op_unread), as their lowerings read */
  int found = 0;
  for (size_t i = 0; nns_aten_op(i, NULL); i++) {
    const char *op = nns_aten_op(i, NULL), *unread = nns_aten_op_unread(i);
    CHECK(unread != NULL);
    const char *want = !strcmp(op, "native_batch_norm_backward")
                           ? "input/1 weight/0 running_mean running_var "
                             "save_mean save_invstd"
                       : !strcmp(op, "nll_loss_backward")
                           ? "self total_weight?reduction=1"
                       : !strcmp(op, "relu")              ? ""
                                                          : NULL;
    if (want) {
      found++;
      CHECK_STR(unread, want);
    }
  }
  CHECK_EQ(found, 3);
  CHECK_STR(nns_aten_op_unread((size_t)-1), "");
}

/* test_numbers_shift's silu dropped (packed record 34: a call a fused
 * kernel throws away): lowered for its numbers, Sigmoid and Mul taking
 * nodes 1 and 2 and values 2 and 3, then taken back; the recorder's
 * second Relu, reading x, is still value 4 and node 3, the model's node
 * 1. The call stays an entry of the recorder's, of no node: a kernel of
 * it and that Relu is the Relu alone. A dropped record followed by
 * anything but a names record, last, or outside deferred numbering is
 * refused. */
static void test_dropped_call_keeps_its_numbers(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_deferred(&a);
  w_node(&a, "Relu", "\4blk/Relu_0", "x", NULL, "\2v1");
  w_u8(&a, NNS_PACKED_DROPPED);
  w_names_inits(&a, 1, 1, 0);
  w_aten(&a, "silu", "blk", "\2v1", NULL, -1, "\3" "0.0");
  w_node(&a, "Relu", "\4blk/Relu_1", "\2v1", NULL, "\2v2");
  w_kernel(&a, 1, 2);
  w_output(&a, "\2v2");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 2);
  if (m) {
    CHECK_STR(node_name(m, 0), "blk/Relu_0");
    CHECK_STR(node_name(m, 1), "blk/Relu_3");
    CHECK_STR(value_name(m, 1, 0, true), "v1");
    CHECK_STR(value_name(m, 1, 0, false), "v4");
    nns_node_info x = {.size = sizeof x};
    CHECK_EQ(nns_model_node(m, 1, &x), NNS_OK);
    CHECK_EQ(x.kernel_nodes, 1);
  }
  nns_model_free(m);
  nns_builder *bu = NULL;
  size_t at = 9, n = 9;
  CHECK_EQ(nns_builder_new(&bu, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_packed(bu, a.p, a.n, &err), NNS_OK);
  CHECK_EQ(nns_builder_packed_entries(bu, 1, 1, &at, &n, &err), NNS_OK);
  CHECK_EQ(at, 1);
  CHECK_EQ(n, 0);
  CHECK_EQ(nns_builder_packed_entries(bu, 2, 1, &at, &n, &err), NNS_OK);
  CHECK_EQ(at, 1);
  CHECK_EQ(n, 1);
  nns_builder_free(bu);
  static const char *const why[] = {
      "a dropped record is not followed by a names record",
      "a dropped record is not followed by a names record",
      "a dropped record outside deferred numbering"};
  for (int k = 0; k < 3; k++) {
    w_start(&a);
    if (k < 2)
      w_deferred(&a);
    w_node(&a, "Relu", "\4blk/Relu_0", "x", NULL, "\2v1");
    w_u8(&a, NNS_PACKED_DROPPED);
    if (k == 0)
      w_node(&a, "Relu", "\4blk/Relu_1", "\2v1", NULL, "\2v2");
    CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
    CHECK(strstr(err.message, why[k]) != NULL);
    CHECK(m == NULL);
  }
}

int main(void) {
  RUN(test_numbers_shift);
  RUN(test_first_reads);
  RUN(test_outside_read_before_made);
  RUN(test_outside_read_at_its_node);
  RUN(test_outside_sliced);
  RUN(test_outside_read_unlowered);
  RUN(test_forward_inputs_and_unread);
  RUN(test_forward_inputs_in_read_order);
  RUN(test_inits_renamed);
  RUN(test_refused);
  RUN(test_truncations);
  RUN(test_dropped_call_keeps_its_numbers);
  return check_finish();
}
