/*
 * test_tape.c - the packed aten record (tag 29, include/nnscan.h), the way
 * the Python recorder's tape hands a PyTorch call to the library: a call
 * the aten table lowers becomes the node(s) its entry says (the same node
 * a node record of the same op, name and module would make), one it
 * cannot lower stays one uncounted pytorch.aten node with the sizes the
 * record gave, and malformed records get NNS_E_ARG naming the record and
 * its byte offset. Every truncation of a valid buffer gives a status.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "packed_writer.h"

/* relu(x) and add(relu, x) on the tape build what node records of Relu
 * and Add with the same names and module build. */
static void test_tape_is_the_nodes(void) {
  wbuf a, n;
  nns_error err;
  w_start(&a);
  w_aten(&a, "relu", "blk/Relu_0", "x", NULL, -1, "r");
  w_aten(&a, "add_", "blk/Add_1", "r", "x", 1, "s");
  w_output(&a, "s");
  w_start(&n);
  w_node(&n, "Relu", "blk/Relu_0", "x", NULL, "r");
  w_node(&n, "Add", "blk/Add_1", "r", "x", "s");
  w_output(&n, "s");
  nns_model *ma = NULL, *mn = NULL;
  CHECK_EQ(build(&a, &ma, &err), NNS_OK);
  CHECK_EQ(build(&n, &mn, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(ma), 2);
  CHECK_EQ(nns_model_node_count(mn), 2);
  for (size_t i = 0; ma && mn && i < 2; i++) {
    nns_node_info x = {.size = sizeof x}, y = {.size = sizeof y};
    CHECK_EQ(nns_model_node(ma, i, &x), NNS_OK);
    CHECK_EQ(nns_model_node(mn, i, &y), NNS_OK);
    CHECK_STR(x.op_type, y.op_type);
    CHECK_STR(x.name, y.name);
    CHECK_STR(x.domain, "");
    CHECK_EQ(x.input_count, y.input_count);
  }
  nns_model_free(ma);
  nns_model_free(mn);
}

/* add with alpha 2 is x + 2 * x: a Mul, then the Add, one kernel; an op
 * the table has no entry for is one pytorch.aten node, its output's sizes
 * the record's. */
static void test_tape_unlowered(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_aten(&a, "add", "blk/add_0", "x", "x", 2, "s");
  w_aten(&a, "no_such_op", "blk/no_such_op_1", "s", NULL, -1, "t");
  w_output(&a, "t");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 3);
  nns_node_info x = {.size = sizeof x};
  CHECK_EQ(nns_model_node(m, 0, &x), NNS_OK);
  CHECK_STR(x.domain, "");
  CHECK_STR(x.op_type, "Mul");
  CHECK_EQ(nns_model_node(m, 1, &x), NNS_OK);
  CHECK_STR(x.op_type, "Add");
  CHECK_EQ(nns_model_node(m, 2, &x), NNS_OK);
  CHECK_STR(x.domain, "pytorch.aten");
  CHECK_STR(x.op_type, "no_such_op");
  CHECK_STR(x.name, "blk/no_such_op_1");
  nns_model_free(m);
}

/* ---- The recorder's numbering (packed record 30, `names`) ---- */

static void w_names(wbuf *b, uint64_t values, uint64_t nodes) {
  uint64_t inits = 0;
  w_u8(b, NNS_PACKED_NAMES);
  w(b, &values, 8);
  w(b, &nodes, 8);
  w(b, &inits, 8);
}
/* the head of a call asked of nns_aten_numbering: header, names 0 0 0;
 * its length, where the call's record goes */
static size_t w_asking(wbuf *b) {
  w_header(b);
  w_names(b, 0, 0);
  return b->n;
}
/* view(x, [3, 2]) -> out, recorded in module "blk" */
static void w_view(wbuf *b, const char *out) {
  w_aten_head(b, "view", "blk", 2);
  w_arg(b, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(b, "x");
  w_arg(b, "size", NNS_ATEN_ARG_INTS);
  w_u32(b, 2);
  w_i64(b, 3);
  w_i64(b, 2);
  w_u32(b, 1);
  w_str(b, out);
  w_i32(b, NNS_DT_FLOAT);
  w_i32(b, 2);
  w_i64(b, 3);
  w_i64(b, 2);
}
/* silu after names(4, 2): the recorder's own rule makes Sigmoid then Mul,
 * node numbers 2 and 3, the Sigmoid's output the next value, v5, the
 * call's output the one after (its name the record's), one kernel; then
 * view after names(6, 4): its target a constant c7, made before the
 * Reshape writes the output (number 8). A record without names keeps
 * the record's name and "_nns_" names. */
static void test_tape_numbered(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_names(&a, 4, 2);
  w_aten(&a, "silu", "blk", "x", NULL, -1, "out");
  w_names(&a, 6, 4);
  w_view(&a, "v8");
  w_aten(&a, "silu", "plain", "x", NULL, -1, "out2");
  w_output(&a, "out");
  w_output(&a, "v8");
  w_output(&a, "out2");
  nns_model *m = NULL;
  CHECK_EQ(build(&a, &m, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(m), 5);
  static const char *const names[] = {"blk/Sigmoid_2", "blk/Mul_3",
                                      "blk/Reshape_4", "plain", "plain"};
  for (size_t i = 0; m && i < 5; i++) {
    nns_node_info x = {.size = sizeof x};
    CHECK_EQ(nns_model_node(m, i, &x), NNS_OK);
    if (i != 4)
      CHECK_STR(x.name, names[i]);
    if (i < 2) {
      CHECK_EQ(x.kernel, 0);
      CHECK_EQ(x.kernel_nodes, 2);
    }
  }
  if (m) {
    CHECK_STR(value_name(m, 0, 0, false), "v5");
    CHECK_STR(value_name(m, 1, 1, true), "v5");
    CHECK_STR(value_name(m, 1, 0, false), "out");
    CHECK_STR(value_name(m, 2, 1, true), "c7");
    CHECK_STR(value_name(m, 3, 0, false), "_nns_1");
  }
  nns_model_free(m);
}

/* nns_aten_numbering says what a record takes: silu 2 numbers, 2 nodes,
 * its output the second, x read first; view 2 numbers (the constant
 * first, c1), 1 node; addmm(bias, x, w) reads x, w, then bias (Gemm's
 * order); mm of mixed dtypes casts first;
 * add with alpha 2 a Mul by the constant 2 first (c1, v2), then the Add
 * (v3); malformed calls refused. */
static void test_numbering(void) {
  wbuf a;
  nns_error err;
  nns_aten_numbering_info x = {.size = sizeof x};
  size_t head = w_asking(&a);
  w_aten(&a, "silu", "", "x", NULL, -1, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_EQ(x.values, 2);
  CHECK_EQ(x.constants, 0);
  CHECK_EQ(x.nodes, 2);
  CHECK_EQ(x.n_outs, 1);
  CHECK_EQ(x.out_number[0], 2);
  CHECK_EQ(x.n_tensors, 1);
  CHECK_EQ(x.first_read[0], 0);
  CHECK_STR(x.op_types, "Sigmoid Mul");
  a.n = head;
  w_view(&a, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_EQ(x.values, 2);
  CHECK_EQ(x.constants, 1);
  CHECK_EQ(x.nodes, 1);
  CHECK_EQ(x.out_number[0], 2);
  CHECK_STR(x.op_types, "Reshape");
  CHECK_EQ(x.alias_of[0], -1);
  /* Reshape(x, shape): the shape constant, made first, is read after x,
   * where a rule reading its node's inputs in order makes it */
  CHECK_EQ(x.read_after[0], 0);
  a.n = head;
  w_u8(&a, NNS_PACKED_ATEN); /* addmm(bias [3], x [2, 3], w [3, 3]) */
  w_str(&a, "addmm");
  w_str(&a, "");
  w_str(&a, "");
  w_u32(&a, 3);
  static const char *const names[] = {"self", "mat1", "mat2"};
  static const char *const tensors[] = {"bias", "x", "w"};
  static const int64_t dims[][2] = {{3, 0}, {2, 3}, {3, 3}};
  for (int k = 0; k < 3; k++) {
    w_arg(&a, names[k], NNS_ATEN_ARG_TENSOR);
    w_str(&a, tensors[k]);
    w_i32(&a, NNS_DT_FLOAT);
    w_i32(&a, k ? 2 : 1);
    w_i64(&a, dims[k][0]);
    if (k)
      w_i64(&a, dims[k][1]);
  }
  w_u32(&a, 1);
  w_tensor(&a, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_STR(x.op_types, "Gemm");
  CHECK_EQ(x.n_tensors, 3);
  CHECK_EQ(x.first_read[0], 2); /* bias */
  CHECK_EQ(x.first_read[1], 0); /* x */
  CHECK_EQ(x.first_read[2], 1); /* w */
  /* mm of float32 by bfloat16 into float32: the bfloat16 operand Cast
   * first, as the recorder's rule does (its Cast numbered before the
   * output), in the product's kernel */
  a.n = head;
  w_u8(&a, NNS_PACKED_ATEN);
  w_str(&a, "mm");
  w_str(&a, "");
  w_str(&a, "");
  w_u32(&a, 2);
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "x");
  w_arg(&a, "mat2", NNS_ATEN_ARG_TENSOR);
  w_str(&a, "w");
  w_i32(&a, NNS_DT_BFLOAT16);
  w_i32(&a, 2);
  w_i64(&a, 3);
  w_i64(&a, 3);
  w_u32(&a, 1);
  w_tensor(&a, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_STR(x.op_types, "Cast MatMul");
  CHECK_EQ(x.values, 2);
  CHECK_EQ(x.read_after[0], 1); /* x: after the Cast's output */
  CHECK_EQ(x.read_after[1], 0); /* w: by the Cast, before any number */
  a.n = head;
  w_aten(&a, "add", "", "x", "x", 2, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_STR(x.op_types, "Mul Add");
  CHECK_EQ(x.values, 3);
  CHECK_EQ(x.constants, 1);
  /* no names record first; another record after; a small struct */
  wbuf bad;
  w_start(&bad);
  w_aten(&bad, "silu", "", "x", NULL, -1, "o");
  CHECK_EQ(nns_aten_numbering(bad.p, bad.n, &x, &err), NNS_E_ARG);
  a.n = head;
  w_aten(&a, "silu", "", "x", NULL, -1, "o");
  w_output(&a, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "more than the names") != NULL);
  nns_aten_numbering_info small = {.size = sizeof small - 1};
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &small, &err), NNS_E_ARG);
}

/* A call whose output is an argument under another name takes no number
 * and says which argument (alias_of): _to_copy to the same dtype, and
 * copy(self, src), which is its source. */
static void test_numbering_of_aliases(void) {
  wbuf a;
  nns_error err;
  nns_aten_numbering_info x = {.size = sizeof x};
  size_t head = w_asking(&a);
  w_aten(&a, "_to_copy", "", "x", NULL, -1, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_EQ(x.values, 0);
  CHECK_EQ(x.nodes, 0);
  CHECK_EQ(x.out_number[0], -1);
  CHECK_EQ(x.alias_of[0], 0);
  CHECK_EQ(x.read_after[0], 0); /* named, before any number */
  a.n = head;
  w_aten_head(&a, "copy", "", 2);
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "x");
  w_arg(&a, "src", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "y");
  w_u32(&a, 1);
  w_tensor(&a, "o");
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_EQ(x.nodes, 0);
  CHECK_EQ(x.out_number[0], -1);
  CHECK_EQ(x.alias_of[0], 1);
  /* a Cast is a node: no alias */
  a.n = head;
  w_u8(&a, NNS_PACKED_ATEN);
  w_str(&a, "_to_copy");
  w_str(&a, "");
  w_str(&a, "");
  w_u32(&a, 1);
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "x");
  w_u32(&a, 1);
  w_tensor_of(&a, "o", NNS_DT_FLOAT16);
  CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
  CHECK_STR(x.op_types, "Cast");
  CHECK_EQ(x.out_number[0], 1);
  CHECK_EQ(x.alias_of[0], -1);
}

/* broadcast_tensors([x [2, 3], b [3]]) -> (x, o [2, 3]): the export
 * family lowers the second operand through expand's entry behind a shim,
 * whose constant (the target sizes) comes from the front through it, on
 * the tape as in a .pt2, named the recorder's way too. */
static void w_broadcast(wbuf *b) {
  w_u8(b, NNS_PACKED_ATEN);
  w_str(b, "broadcast_tensors");
  w_str(b, "blk");
  w_str(b, "blk");
  w_u32(b, 1);
  w_arg(b, "tensors", NNS_ATEN_ARG_TENSORS);
  w_u32(b, 2);
  w_tensor(b, "x");
  w_str(b, "bias");
  w_i32(b, NNS_DT_FLOAT);
  w_i32(b, 1);
  w_i64(b, 3);
  w_u32(b, 2);
  w_tensor(b, "x2");
  w_tensor(b, "o");
}
static void test_tape_through_a_shim(void) {
  for (int numbered = 0; numbered < 2; numbered++) {
    wbuf a;
    nns_error err;
    w_start(&a);
    w_u8(&a, NNS_PACKED_INPUT);
    w_str(&a, "bias");
    w_i32(&a, NNS_DT_FLOAT);
    w_i32(&a, 1);
    w_i64(&a, 3);
    w_u8(&a, 0);
    if (numbered)
      w_names(&a, 3, 1);
    w_broadcast(&a);
    w_output(&a, "o");
    nns_model *m = NULL;
    CHECK_EQ(build(&a, &m, &err), NNS_OK);
    CHECK_EQ(nns_model_node_count(m), 1);
    nns_node_info x = {.size = sizeof x};
    CHECK_EQ(nns_model_node(m, 0, &x), NNS_OK);
    CHECK_STR(x.op_type, "Expand");
    if (numbered && m) {
      CHECK_STR(x.name, "blk/Expand_1");
      CHECK_STR(value_name(m, 0, 1, true), "c4");
    }
    nns_model_free(m);
  }
}

/* A names record must be followed by an aten record. */
static void test_names_then_aten(void) {
  wbuf a;
  nns_error err;
  nns_model *m = NULL;
  w_start(&a);
  w_names(&a, 0, 0);
  w_output(&a, "x");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "not followed by an aten record") != NULL);
  w_start(&a);
  w_names(&a, 0, 0);
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  w_start(&a);
  w_names(&a, UINT64_MAX, 0);
  w_aten(&a, "relu", "", "x", NULL, -1, "o");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(m == NULL);
}

/* a tensor of an aten record: name, float [r0, r1] */
static void w_tensor2(wbuf *b, const char *name, int64_t r0, int64_t r1) {
  w_str(b, name);
  w_i32(b, NNS_DT_FLOAT);
  w_i32(b, 2);
  w_i64(b, r0);
  w_i64(b, r1);
}

/* An aten record's tensors have PyTorch's sizes, all known: a negative
 * one is refused (the table reads a symbol wherever a size is negative,
 * and a packed tensor has none: fuzz_aten's expand of an output [2, -1]
 * read a null symbol list). */
static void test_negative_size_refused(void) {
  wbuf a;
  nns_error err;
  nns_model *m = NULL;
  w_start(&a);
  w_aten_head(&a, "expand", "", 2);
  w_arg(&a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&a, "x");
  w_arg(&a, "size", NNS_ATEN_ARG_INTS);
  w_u32(&a, 2);
  w_i64(&a, 2);
  w_i64(&a, -1);
  w_u32(&a, 1);
  w_tensor2(&a, "o", 2, -1);
  w_output(&a, "o");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "negative size") != NULL);
  CHECK(m == NULL);
}

/* A numbered call's constants are laid out among the initializers where
 * the recorder made them: after the first `inits` of its names record.
 * Calls made later usually come after more initializers (one merge);
 * the order holds when a later one comes after fewer (a sort). p0 and
 * p1 plain, then view calls after 1 and 2 initializers (c2 and c4, in
 * order), and after 2 and 1 (c2 after p1, c4 after p0). */
static void test_tape_places_constants(void) {
  static const uint64_t after[2][2] = {{1, 2}, {2, 1}};
  static const char *const order[2][5] = {{"x", "p0", "c2", "p1", "c4"},
                                          {"x", "p0", "c4", "p1", "c2"}};
  for (int t = 0; t < 2; t++) {
    wbuf a;
    nns_error err;
    w_start(&a);
    for (int k = 0; k < 2; k++) {
      w_u8(&a, NNS_PACKED_INITIALIZER);
      w_str(&a, k ? "p1" : "p0");
      w_i32(&a, NNS_DT_FLOAT);
      w_i32(&a, 1);
      w_i64(&a, 4);
      w(&a, &(uint64_t){UINT64_MAX}, 8); /* dims alone */
    }
    w_names_inits(&a, 1, 0, after[t][0]);
    w_view(&a, "v3");
    w_names_inits(&a, 3, 1, after[t][1]);
    w_view(&a, "v5");
    w_output(&a, "v3");
    w_output(&a, "v5");
    nns_model *m = NULL;
    CHECK_EQ(build(&a, &m, &err), NNS_OK);
    for (size_t i = 0; m && i < 5; i++) {
      nns_value_info info = {.size = sizeof info};
      CHECK_EQ(nns_model_value(m, i, &info), NNS_OK);
      CHECK_STR(info.name, order[t][i]);
    }
    nns_model_free(m);
  }
}

/* A weight W [4, 3] of kind `kind` (-1: none given) and t(W) as "W^T"
 * [3, 4], unnumbered, as the recorder packs them before a product that
 * reads the transpose. */
static void w_weight_t(wbuf *a, int kind) {
  w_u8(a, NNS_PACKED_INITIALIZER);
  w_str(a, "W");
  w_i32(a, NNS_DT_FLOAT);
  w_i32(a, 2);
  w_i64(a, 4);
  w_i64(a, 3);
  w(a, &(uint64_t){UINT64_MAX}, 8); /* dims alone */
  if (kind >= 0) {
    w_u8(a, NNS_PACKED_PARAM_KIND);
    w_str(a, "W");
    w_i32(a, kind);
  }
  w_aten_head(a, "t", "W^T", 1);
  w_arg(a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor2(a, "W", 4, 3);
  w_u32(a, 1);
  w_tensor2(a, "W^T", 3, 4);
}

/* mm(x [2, 3], W^T) -> "v6" [2, 4]: F.linear without a bias */
static void w_mm_of_t(wbuf *a) {
  w_aten_head(a, "mm", "blk", 2);
  w_arg(a, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(a, "x");
  w_arg(a, "mat2", NNS_ATEN_ARG_TENSOR);
  w_tensor2(a, "W^T", 3, 4);
  w_u32(a, 1);
  w_tensor2(a, "v6", 2, 4);
}

/* x [2, 3], the weight and its t() (w_weight_t), then mm(x, W^T) after
 * names(5, 1), the graph's output. */
static void w_linear(wbuf *a, int kind) {
  w_start(a);
  w_weight_t(a, kind);
  w_names(a, 5, 1);
  w_mm_of_t(a);
  w_output(a, "v6");
}

/* A weight's t() read by a product on the tape folds as the recorder's
 * rule folds it: one Gemm reading W (transB), named and numbered as the
 * names record says, no Transpose; the weight's 12 elements read once:
 * 6 + 12 + 8 = 26 DMAs. W a buffer folds too; W a constant, or of no
 * kind, is no weight: its Transpose is made (under the t() call's name)
 * and moves the 12 elements twice more. */
static void test_tape_folds_a_weights_t(void) {
  static const int kinds[] = {NNS_PARAM_TRAINABLE, NNS_PARAM_BUFFER,
                              NNS_PARAM_CONSTANT, -1};
  for (int i = 0; i < 4; i++) {
    wbuf a;
    nns_error err;
    nns_model *m = NULL;
    w_linear(&a, kinds[i]);
    CHECK_EQ(build(&a, &m, &err), NNS_OK);
    if (!m)
      continue;
    bool folds = i < 2;
    CHECK_EQ(nns_model_node_count(m), folds ? 1u : 2u);
    nns_node_info x = {.size = sizeof x};
    size_t product = folds ? 0 : 1;
    CHECK_EQ(nns_model_node(m, product, &x), NNS_OK);
    CHECK_STR(x.op_type, folds ? "Gemm" : "MatMul");
    CHECK_STR(x.name, folds ? "blk/Gemm_1" : "blk/MatMul_1");
    CHECK_STR(value_name(m, product, 1, true), folds ? "W" : "W^T");
    CHECK_STR(value_name(m, product, 0, false), "v6");
    if (!folds) {
      CHECK_EQ(nns_model_node(m, 0, &x), NNS_OK);
      CHECK_STR(x.op_type, "Transpose");
      CHECK_STR(x.name, "W^T");
    }
    CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
    nns_analysis *an = NULL;
    CHECK_EQ(nns_model_analyze(m, NULL, &an, &err), NNS_OK);
    nns_counts c = {.size = sizeof c};
    CHECK_EQ(nns_analysis_total_counts(an, &c), NNS_OK);
    CHECK_EQ(c.macs, 24);
    CHECK_EQ(c.dmas, folds ? 26 : 26 + 24);
    nns_analysis_free(an);
    nns_model_free(m);
  }
}

/* nns_aten_numbering of a product reading a weight's t(): the weight,
 * its kind and the t() record come first, and the call is what the tape
 * makes of it, one Gemm (transB) reading x, then W (the transpose is read
 * as its weight); a weight of no kind is no weight: a MatMul reading the
 * Transpose. Any other record before the names record is refused. */
static void test_numbering_of_a_fold(void) {
  static const int kinds[] = {NNS_PARAM_TRAINABLE, -1};
  for (int i = 0; i < 2; i++) {
    int kind = kinds[i];
    wbuf a;
    nns_error err;
    nns_aten_numbering_info x = {.size = sizeof x};
    w_header(&a);
    w_weight_t(&a, kind);
    w_names(&a, 0, 0);
    w_mm_of_t(&a);
    CHECK_EQ(nns_aten_numbering(a.p, a.n, &x, &err), NNS_OK);
    CHECK_STR(x.op_types, kind >= 0 ? "Gemm" : "MatMul");
    CHECK_EQ(x.values, 1);
    CHECK_EQ(x.nodes, 1);
    CHECK_EQ(x.out_number[0], 1);
    CHECK_EQ(x.n_tensors, 2);
    CHECK_EQ(x.first_read[0], 0);
    CHECK_EQ(x.first_read[1], 1);
  }
  wbuf bad;
  nns_error err;
  nns_aten_numbering_info x = {.size = sizeof x};
  w_start(&bad); /* an input record first */
  w_names(&bad, 0, 0);
  w_mm_of_t(&bad);
  CHECK_EQ(nns_aten_numbering(bad.p, bad.n, &x, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "only initializer, param_kind and aten") != NULL);
  w_header(&bad); /* the context, then no names record */
  w_weight_t(&bad, NNS_PARAM_TRAINABLE);
  CHECK_EQ(nns_aten_numbering(bad.p, bad.n, &x, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "names record of zeros") != NULL);
}

/* Each malformed field: NNS_E_ARG, the record's index, kind and offset. */
static void test_tape_malformed(void) {
  wbuf b;
  nns_error err;
  nns_model *m;
  static const struct {
    int kind;        /* argument kind written */
    unsigned byte;   /* its payload: one byte */
    const char *why;
  } bad[] = {
      {9, 0, "unknown kind"},
      {NNS_ATEN_ARG_BOOL, 2, "not 0 or 1"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    w_start(&b);
    size_t at = b.n;
    w_u8(&b, NNS_PACKED_ATEN);
    w_str(&b, "relu");
    w_str(&b, "n");
    w_str(&b, "");
    w_u32(&b, 1);
    w_arg(&b, "self", bad[k].kind);
    w_u8(&b, bad[k].byte);
    CHECK_EQ(build(&b, &m, &err), NNS_E_ARG);
    CHECK(strstr(err.message, "record 1 (tag 29, aten)") != NULL);
    CHECK(strstr(err.message, bad[k].why) != NULL);
    CHECK_EQ(err.offset, (int64_t)at);
  }
  /* No op name; more than 64 arguments; an aten record in a subgraph. */
  w_start(&b);
  w_u8(&b, NNS_PACKED_ATEN);
  w_str(&b, "");
  w_str(&b, "n");
  w_str(&b, "");
  w_u32(&b, 0);
  w_u32(&b, 0);
  CHECK_EQ(build(&b, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "no op name") != NULL);
  w_start(&b);
  w_u8(&b, NNS_PACKED_ATEN);
  w_str(&b, "relu");
  w_str(&b, "n");
  w_str(&b, "");
  w_u32(&b, 65);
  CHECK_EQ(build(&b, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "more than 64 arguments") != NULL);
  w_start(&b);
  w_u8(&b, NNS_PACKED_NODE); /* an If holding a graph */
  w_str(&b, "If");
  w_str(&b, "");
  w_str(&b, "if");
  w_str(&b, "");
  w_u32(&b, 1);
  w_str(&b, "x");
  w_u32(&b, 1);
  w_str(&b, "o");
  w_u8(&b, NNS_PACKED_BEGIN_GRAPH);
  w_str(&b, "then_branch");
  w_i32(&b, NNS_ATTR_GRAPH);
  w_aten(&b, "relu", "inner", "x", NULL, -1, "r");
  CHECK_EQ(build(&b, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "inside a subgraph") != NULL);
}

/* Every prefix of a buffer holding every argument kind gives a status
 * (copies of exact size: ASan sees any read past one). */
static void test_tape_truncations(void) {
  wbuf b;
  nns_error err;
  w_start(&b);
  w_u8(&b, NNS_PACKED_ATEN);
  w_str(&b, "view");
  w_str(&b, "blk/view_0");
  w_str(&b, "blk");
  w_u32(&b, 8);
  w_arg(&b, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(&b, "x");
  w_arg(&b, "size", NNS_ATEN_ARG_INTS);
  w_u32(&b, 2);
  w_i64(&b, 3);
  w_i64(&b, 2);
  w_arg(&b, "list", NNS_ATEN_ARG_TENSORS);
  w_u32(&b, 2);
  w_tensor(&b, "x");
  w_u32(&b, UINT32_MAX); /* None */
  w_i32(&b, 0);
  w_i32(&b, -1);
  w_arg(&b, "f", NNS_ATEN_ARG_FLOAT);
  w_f64(&b, 0.5);
  w_arg(&b, "b", NNS_ATEN_ARG_BOOL);
  w_u8(&b, 1);
  w_arg(&b, "s", NNS_ATEN_ARG_STRING);
  w_str(&b, "tanh");
  w_arg(&b, "d", NNS_ATEN_ARG_DTYPE);
  w_i32(&b, NNS_DT_FLOAT);
  w_arg(&b, "n", NNS_ATEN_ARG_NONE);
  w_u32(&b, 1);
  w_str(&b, "v");
  w_i32(&b, NNS_DT_FLOAT);
  w_i32(&b, 2);
  w_i64(&b, 3);
  w_i64(&b, 2);
  w_output(&b, "v");
  nns_model *m = NULL;
  CHECK_EQ(build(&b, &m, &err), NNS_OK);
  nns_node_info x = {.size = sizeof x};
  CHECK_EQ(nns_model_node(m, nns_model_node_count(m) - 1, &x), NNS_OK);
  CHECK_STR(x.op_type, "Reshape"); /* the table's view */
  nns_model_free(m);
  size_t full = b.n;
  for (size_t n = 8; n < full; n++) {
    b.n = n;
    nns_status st = build(&b, &m, &err);
    CHECK(st != NNS_OK || m != NULL);
    nns_model_free(m);
  }
}

int main(void) {
  RUN(test_tape_is_the_nodes);
  RUN(test_tape_unlowered);
  RUN(test_tape_numbered);
  RUN(test_tape_places_constants);
  RUN(test_tape_folds_a_weights_t);
  RUN(test_numbering);
  RUN(test_numbering_of_a_fold);
  RUN(test_numbering_of_aliases);
  RUN(test_names_then_aten);
  RUN(test_negative_size_refused);
  RUN(test_tape_through_a_shim);
  RUN(test_tape_malformed);
  RUN(test_tape_truncations);
  return check_finish();
}
