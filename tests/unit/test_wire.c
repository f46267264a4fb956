/*
 * test_wire.c - the protobuf wire decoder and the loader's limits: every
 * malformed input gives its own status and the exact byte offset of the
 * offending field, built byte by byte with pbenc.h.
 */
#include "check.h"
#include "pbenc.h"

#include "onnx/load_int.h"
#include "onnx/wire.h"

/* ==== Helpers ==== */

/* Reads every field of buf as a ModelProto (no nesting). */
static nns_status read_all(const uint8_t *buf, size_t n, nns_error *e) {
  nns__wire w;
  nns__field f;
  nns_status st;
  nns__wire_init(&w, buf, n, 0, &nns__pb_model, 64, e);
  while ((st = nns__wire_next(&w, &f)) == NNS_OK && f.num)
    ;
  return st;
}

static nns_status load(const pb *b, nns_error *e) {
  nns_model *m = NULL;
  nns_status st = nns_model_load_memory(b->d, b->n, NULL, &m, e);
  nns_model_free(m);
  return st;
}

#define EXPECT_WIRE(bytes, want, off)                                          \
  do {                                                                         \
    static const uint8_t in_[] = bytes;                                        \
    nns_error e_;                                                              \
    memset(&e_, 0, sizeof e_);                                                 \
    CHECK_EQ(read_all(in_, sizeof in_, &e_), want);                            \
    CHECK_EQ(e_.code, want);                                                   \
    CHECK_EQ(e_.offset, off);                                                  \
  } while (0)
#define B(...) {__VA_ARGS__}

/* ==== Varints ==== */

static void test_good_fields(void) {
  static const uint8_t in[] = {0x08, 0x96, 0x01,             /* 1: 150 */
                               0x12, 0x02, 'h', 'i',         /* 2: "hi" */
                               0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                               0xff, 0xff, 0xff, 0x01,       /* 1: max */
                               0xf9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, /* 31 */
                               0xfd, 0x01, 1, 2, 3, 4};      /* 31: i32 */
  nns__wire w;
  nns__field f;
  nns__wire_init(&w, in, sizeof in, 100, &nns__pb_model, 64, NULL);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 1);
  CHECK_EQ(f.u, 150);
  CHECK_EQ(f.offset, 100);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 2);
  CHECK_EQ(f.len, 2);
  CHECK(memcmp(f.data, "hi", 2) == 0);
  CHECK_EQ(f.offset, 103);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK(f.u == UINT64_MAX);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK); /* unknown fixed64: skipped */
  CHECK_EQ(f.num, 31);
  CHECK(f.u == 0x0807060504030201ull);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.u, 0x04030201);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 0);
}

/* Tags of two bytes (fields 16-2047) and values of one or two bytes are
 * read inline (wire.h); anything longer goes to the general path. Both
 * must read the same fields and fail the same way. */
static void test_two_byte_tags(void) {
  static const uint8_t in[] = {0xca, 0x01, 0x02, 'a', 'b', /* 25: "ab" */
                               0xf8, 0x7f, 0x05,           /* 2047: 5 */
                               0x80, 0x80, 0x01, 0x07,     /* 2048: 7 */
                               0xca, 0x01, 0x80, 0x01};    /* 25: 128 bytes */
  uint8_t buf[sizeof in + 128];
  memcpy(buf, in, sizeof in);
  memset(buf + sizeof in, 'x', 128);
  nns__wire w;
  nns__field f;
  nns__wire_init(&w, buf, sizeof buf, 10, &nns__pb_model, 64, NULL);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 25);
  CHECK_EQ(f.len, 2);
  CHECK_EQ(f.offset, 10);
  CHECK_EQ(f.pos, 3);
  CHECK(memcmp(f.data, "ab", 2) == 0);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 2047);
  CHECK_EQ(f.u, 5);
  CHECK_EQ(f.offset, 15);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 2048);
  CHECK_EQ(f.u, 7);
  CHECK_EQ(f.offset, 18);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 25);
  CHECK_EQ(f.len, 128);
  CHECK_EQ(f.offset, 22);
  CHECK_EQ(nns__wire_next(&w, &f), NNS_OK);
  CHECK_EQ(f.num, 0);
  CHECK_EQ(f.offset, 22); /* the end leaves the last field's offset */

  /* ModelProto.training_info (20) is length-delimited: not a varint. */
  EXPECT_WIRE(B(0x08, 0x01, 0xa0, 0x01, 0x05), NNS_E_WIRETYPE, 2);
  /* A two-byte tag with no value after it, or a value cut short. */
  EXPECT_WIRE(B(0x08, 0x01, 0xa8, 0x01), NNS_E_TRUNCATED, 2);
  EXPECT_WIRE(B(0xa8, 0x01, 0x80), NNS_E_TRUNCATED, 0);
  /* A length one past the data behind a two-byte tag. */
  EXPECT_WIRE(B(0xca, 0x01, 0x02, 'a'), NNS_E_TRUNCATED, 0);
}

/* Each schema's short_ok mask (schema.c) says, for every one-byte tag,
 * what its field table says: varint and length-delimited fields the table
 * allows, and no field 0. */
static void test_short_ok_masks(void) {
  const nns__pbmsg *msgs[] = {
      &nns__pb_model, &nns__pb_graph, &nns__pb_node, &nns__pb_attr,
      &nns__pb_tensor, &nns__pb_sparse, &nns__pb_value_info, &nns__pb_type,
      &nns__pb_type_tensor, &nns__pb_type_seq, &nns__pb_type_opt,
      &nns__pb_type_map, &nns__pb_shape, &nns__pb_dim, &nns__pb_opset,
      &nns__pb_entry, &nns__pb_function};
  for (size_t k = 0; k < sizeof msgs / sizeof *msgs; k++) {
    const nns__pbmsg *m = msgs[k];
    for (unsigned num = 0; num < 16; num++) {
      for (unsigned wt = 0; wt <= 2; wt += 2) {
        bool table = num != 0 &&
                     (num >= m->n_fields ||
                      nns__wire_allowed[m->fields[num].kind] >> wt & 1);
        bool mask = m->short_ok >> (2 * num + wt / 2) & 1;
        CHECK_EQ(mask, table);
      }
    }
  }
}

static void test_truncated_varint(void) {
  EXPECT_WIRE(B(0x08, 0x96), NNS_E_TRUNCATED, 0);
  EXPECT_WIRE(B(0x08, 0x01, 0x08, 0x96, 0x96), NNS_E_TRUNCATED, 2);
  EXPECT_WIRE(B(0x80), NNS_E_TRUNCATED, 0);          /* the tag itself */
  EXPECT_WIRE(B(0x08, 0x01, 0xd2), NNS_E_TRUNCATED, 2);
  EXPECT_WIRE(B(0x12), NNS_E_TRUNCATED, 0);          /* no length */
  EXPECT_WIRE(B(0x12, 0x01, 0x00, 0x11, 1, 2, 3), NNS_E_TRUNCATED, 3);
  EXPECT_WIRE(B(0x15, 1, 2), NNS_E_TRUNCATED, 0);    /* fixed32 cut */
}

static void test_long_varint(void) {
  /* 11 bytes: the tenth still has its continuation bit. */
  EXPECT_WIRE(B(0x08, 0x01, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0xff, 0xff, 0xff, 0x01),
              NNS_E_VARINT, 3);
  /* 10 bytes whose last one overflows 64 bits. */
  EXPECT_WIRE(B(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0x02),
              NNS_E_VARINT, 1);
  /* A malformed tag varint. */
  EXPECT_WIRE(B(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0x01),
              NNS_E_VARINT, 0);
  /* A malformed length. */
  EXPECT_WIRE(B(0x08, 0x00, 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0xff, 0xff, 0xff, 0x01),
              NNS_E_VARINT, 3);
}

/* ==== Lengths, wire types, field numbers ==== */

static void test_length_past_end(void) {
  /* ModelProto.graph (2 bytes) holds GraphProto.node with length 50, but
   * the data goes on after the graph: the length disagrees with its
   * message. */
  pb model = {0};
  static const uint8_t graph[] = {0x0a, 0x32};
  pb_bytes(&model, 7, graph, sizeof graph);
  char doc[60];
  memset(doc, 'x', sizeof doc);
  pb_bytes(&model, 6, doc, sizeof doc);
  nns_error e;
  CHECK_EQ(load(&model, &e), NNS_E_LENGTH);
  CHECK_EQ(e.offset, 2);
  CHECK(strstr(e.message, "GraphProto.node at byte 2") != NULL);
  CHECK(strstr(e.message, "length 50") != NULL);
  CHECK(strstr(e.message, "ends at 4") != NULL);
  pb_free(&model);

  /* A length past the end of all the data: the file is cut. */
  EXPECT_WIRE(B(0x3a, 0x10, 0x00), NNS_E_TRUNCATED, 0);
  EXPECT_WIRE(B(0x08, 0x01, 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f),
              NNS_E_TRUNCATED, 2);
}

static void test_wrong_wire_type(void) {
  EXPECT_WIRE(B(0x0a, 0x00), NNS_E_WIRETYPE, 0);  /* ir_version as bytes */
  EXPECT_WIRE(B(0x08, 0x01, 0x38, 0x01), NNS_E_WIRETYPE, 2); /* graph int */
  /* Nested: NodeProto.op_type as a varint. */
  static const uint8_t in[] = {0x3a, 0x04, 0x0a, 0x02, 0x20, 0x01};
  pb b = {0};
  pb_raw(&b, in, sizeof in);
  nns_error e;
  CHECK_EQ(load(&b, &e), NNS_E_WIRETYPE);
  CHECK_EQ(e.offset, 4);
  CHECK(strstr(e.message, "NodeProto.op_type at byte 4") != NULL);
  pb_free(&b);
}

static void test_invalid_wire_types(void) {
  EXPECT_WIRE(B(0x0e), NNS_E_WIRETYPE, 0);
  EXPECT_WIRE(B(0x0f), NNS_E_WIRETYPE, 0);
  EXPECT_WIRE(B(0x08, 0x01, 0x0f), NNS_E_WIRETYPE, 2);
  EXPECT_WIRE(B(0xa6, 0x06, 0x00), NNS_E_WIRETYPE, 0); /* unknown field */
}

static void test_groups(void) {
  EXPECT_WIRE(B(0x0b), NNS_E_WIRETYPE, 0);
  EXPECT_WIRE(B(0x0c), NNS_E_WIRETYPE, 0);
  EXPECT_WIRE(B(0x08, 0x01, 0xa3, 0x06, 0xa4, 0x06), NNS_E_WIRETYPE, 2);
}

static void test_field_zero(void) {
  EXPECT_WIRE(B(0x00), NNS_E_WIRETYPE, 0);
  EXPECT_WIRE(B(0x02, 0x00), NNS_E_WIRETYPE, 0);
  EXPECT_WIRE(B(0x08, 0x01, 0x00, 0x00), NNS_E_WIRETYPE, 2);
  /* Field numbers stop at 2^29 - 1. */
  EXPECT_WIRE(B(0x80, 0x80, 0x80, 0x80, 0x10, 0x00), NNS_E_WIRETYPE, 0);
}

/* ==== Depth ==== */

/* ModelProto -> GraphProto -> NodeProto -> AttributeProto(g) -> GraphProto
 * ... `levels` subgraphs deep; the nested field always comes first. */
static void build_chain(pb *model, int levels) {
  pb cur = {0};
  for (int i = 0; i < levels; i++) {
    pb attr = {0}, node = {0}, graph = {0};
    pb_msg(&attr, 6, &cur);
    pb_str(&attr, 1, "then_branch");
    pb_msg(&node, 5, &attr);
    pb_str(&node, 4, "If");
    pb_msg(&graph, 1, &node);
    cur = graph;
  }
  pb_msg(model, 7, &cur);
}

/* Offset of the k-th tag along the chain (every tag is one byte). */
static int64_t chain_tag(const pb *b, int k) {
  size_t pos = 0;
  for (int i = 0; i < k; i++) {
    pos++;
    while (b->d[pos] & 0x80)
      pos++;
    pos++;
  }
  return (int64_t)pos;
}

static void test_depth(void) {
  pb model = {0};
  build_chain(&model, 30); /* 91 nested messages */
  nns_error e;
  CHECK_EQ(load(&model, &e), NNS_E_DEPTH);
  CHECK_EQ(e.offset, chain_tag(&model, 64));

  nns_load_options opts = {.size = sizeof opts, .max_depth = 10};
  nns_model *m = NULL;
  CHECK_EQ(nns_model_load_memory(model.d, model.n, &opts, &m, &e),
           NNS_E_DEPTH);
  CHECK(m == NULL);
  CHECK_EQ(e.offset, chain_tag(&model, 10));
  pb_free(&model);

  /* 20 levels (61 messages) are fine with the default limit. */
  build_chain(&model, 20);
  CHECK_EQ(load(&model, &e), NNS_OK);
  pb_free(&model);
}

/* ==== Limits ==== */

/* A model whose graph has one initializer built from `tensor`; returns the
 * tensor's payload offset. */
static int64_t model_with_init(pb *model, pb *tensor) {
  pb graph = {0};
  size_t t_at = pb_msg(&graph, 5, tensor);
  size_t g_at = pb_model(model, &graph, 13);
  return (int64_t)(g_at + t_at);
}

static void test_absurd_dims(void) {
  pb t = {0}, model = {0};
  pb_int(&t, 1, (uint64_t)1 << 62);
  pb_int(&t, 1, (uint64_t)1 << 62);
  pb_int(&t, 2, NNS_DT_FLOAT);
  pb_str(&t, 8, "huge");
  pb_bytes(&t, 9, "", 0);
  int64_t at = model_with_init(&model, &t);
  nns_error e;
  CHECK_EQ(load(&model, &e), NNS_E_LIMIT);
  CHECK_EQ(e.offset, at);
  CHECK(strstr(e.message, "'huge'") != NULL);
  pb_free(&model);

  /* 2^40 * 2^40 overflows int64 on the way. */
  pb_int(&t, 1, (uint64_t)1 << 40);
  pb_int(&t, 1, (uint64_t)1 << 40);
  pb_int(&t, 1, (uint64_t)1 << 40);
  pb_str(&t, 8, "huge3");
  model_with_init(&model, &t);
  CHECK_EQ(load(&model, &e), NNS_E_LIMIT);
  pb_free(&model);

  /* A negative dim. */
  pb_int(&t, 1, (uint64_t)-3);
  pb_int(&t, 2, NNS_DT_FLOAT);
  pb_str(&t, 8, "neg");
  at = model_with_init(&model, &t);
  CHECK_EQ(load(&model, &e), NNS_E_MODEL);
  CHECK_EQ(e.offset, at);
  CHECK(strstr(e.message, "negative") != NULL);
  pb_free(&model);

  /* 65 dims: the 65th dims field is the offender. */
  size_t dim65 = 0;
  for (int i = 0; i < 65; i++) {
    dim65 = t.n;
    pb_int(&t, 1, 1);
  }
  pb_int(&t, 2, NNS_DT_FLOAT);
  at = model_with_init(&model, &t);
  CHECK_EQ(load(&model, &e), NNS_E_LIMIT);
  CHECK_EQ(e.offset, at + (int64_t)dim65);
  pb_free(&model);
}

static void test_absurd_counts(void) {
  nns_error e;
  pb t = {0}, model = {0};
  /* A million int64s in 3 bytes of packed int64_data. */
  pb_int(&t, 1, 1000000);
  pb_int(&t, 2, NNS_DT_INT64);
  pb_bytes(&t, 7, "\x01\x02\x03", 3);
  int64_t at = model_with_init(&model, &t);
  CHECK_EQ(load(&model, &e), NNS_E_MODEL);
  CHECK_EQ(e.offset, at);
  pb_free(&model);

  /* A million floats in 4 bytes of raw_data. */
  pb_int(&t, 1, 1000000);
  pb_int(&t, 2, NNS_DT_FLOAT);
  pb_str(&t, 8, "w");
  pb_bytes(&t, 9, "abcd", 4);
  model_with_init(&model, &t);
  CHECK_EQ(load(&model, &e), NNS_E_MODEL);
  CHECK(strstr(e.message, "tensor 'w'") != NULL);
  CHECK(strstr(e.message, "raw_data has 4 bytes") != NULL);
  pb_free(&model);

  /* Three unpacked floats for two elements. */
  pb_int(&t, 1, 2);
  pb_int(&t, 2, NNS_DT_FLOAT);
  pb_f32(&t, 4, 1);
  pb_f32(&t, 4, 2);
  pb_f32(&t, 4, 3);
  model_with_init(&model, &t);
  CHECK_EQ(load(&model, &e), NNS_E_MODEL);
  pb_free(&model);

  /* A shape with 65 dims. */
  pb graph = {0};
  int64_t dims[65];
  for (int i = 0; i < 65; i++)
    dims[i] = 1;
  pb_value_info(&graph, 11, "x", NNS_DT_FLOAT, 65, dims, NULL);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load(&model, &e), NNS_E_LIMIT);
  CHECK(strstr(e.message, "TensorShapeProto.dim") != NULL);
  pb_free(&model);

  /* Packed floats whose length is not a multiple of 4. */
  pb attr = {0};
  pb_str(&attr, 1, "scales");
  pb_bytes(&attr, 7, "abcde", 5);
  pb_int(&attr, 20, NNS__AT_FLOATS);
  pb a5 = {0};
  pb_msg(&a5, 5, &attr);
  static const char *const in[] = {"x"}, *const out[] = {"y"};
  pb_value_info(&graph, 11, "x", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_node(&graph, "Resize", "r", in, 1, out, 1, &a5);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load(&model, &e), NNS_E_LENGTH);
  CHECK(strstr(e.message, "AttributeProto.floats") != NULL);
  pb_free(&model);
}

static void test_packed_varint_errors(void) {
  /* ints attribute whose packed payload has an 11-byte varint. */
  pb attr = {0}, a5 = {0}, graph = {0}, model = {0};
  pb_str(&attr, 1, "axes");
  static const uint8_t bad[] = {0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0x01};
  size_t p_at = pb_bytes(&attr, 8, bad, sizeof bad);
  pb_int(&attr, 20, NNS__AT_INTS);
  size_t a_at = pb_msg(&a5, 5, &attr);
  static const char *const in[] = {"x"}, *const out[] = {"y"};
  pb_value_info(&graph, 11, "x", NNS_DT_FLOAT, -1, NULL, NULL);
  size_t n_at = pb_node(&graph, "Squeeze", "s", in, 1, out, 1, &a5);
  size_t g_at = pb_model(&model, &graph, 13);
  nns_error e;
  CHECK_EQ(load(&model, &e), NNS_E_VARINT);
  /* node payload: input "x" (3 bytes) + output "y" (3) + name "s" (3) +
   * op_type "Squeeze" (9), then the attribute field. */
  (void)a_at;
  int64_t attr_payload = (int64_t)(g_at + n_at + 3 + 3 + 3 + 9 + 2);
  CHECK_EQ(e.offset, attr_payload + (int64_t)p_at + 1);
  pb_free(&model);

  /* The last packed varint cut by the end of its field. */
  attr = (pb){0};
  pb_str(&attr, 1, "axes");
  pb_bytes(&attr, 8, "\x01\x81", 2);
  pb_int(&attr, 20, NNS__AT_INTS);
  pb_msg(&a5, 5, &attr);
  pb_value_info(&graph, 11, "x", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_node(&graph, "Squeeze", "s", in, 1, out, 1, &a5);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load(&model, &e), NNS_E_TRUNCATED);
  pb_free(&model);
}

int main(void) {
  RUN(test_good_fields);
  RUN(test_two_byte_tags);
  RUN(test_short_ok_masks);
  RUN(test_truncated_varint);
  RUN(test_long_varint);
  RUN(test_length_past_end);
  RUN(test_wrong_wire_type);
  RUN(test_invalid_wire_types);
  RUN(test_groups);
  RUN(test_field_zero);
  RUN(test_depth);
  RUN(test_absurd_dims);
  RUN(test_absurd_counts);
  RUN(test_packed_varint_errors);
  return check_finish();
}
