/*
 * test_load_messages.c - what loading says when it fails: a file that is
 * no ONNX model says so and what it looks like (sniff.c), before the
 * decoder's byte detail; a model built in memory, which has no bytes,
 * never says "at byte -1" (error.c). Expectations are the file formats'
 * own magic numbers and the messages' documented form (docs/cli.md).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "onnx/load_int.h"

static const char *sniff(const char *s, size_t n) {
  return nns__sniff_format((const uint8_t *)s, n);
}

/* Text ones: their whole string. */
static const char *sniff_text(const char *s) { return sniff(s, strlen(s)); }

/* sub in s, s may be NULL. */
static bool has(const char *s, const char *sub) {
  return s && strstr(s, sub);
}

static void test_sniff_kinds(void) {
  CHECK_STR(sniff_text("hello\nworld\n"), "text");
  CHECK_STR(sniff_text("  {\"a\": 1}"), "JSON text");
  CHECK_STR(sniff_text("\xef\xbb\xbf[1, 2]"), "JSON text");
  CHECK(has(sniff_text("<!DOCTYPE html><html>"), "HTML page"));
  CHECK_STR(sniff_text("<?xml version='1.0'?><a/>"), "XML text");
  CHECK(has(sniff_text("ir_version: 8\ngraph {\n}"), "text format"));
  CHECK(has(sniff_text("version https://git-lfs.github.com/spec/v1\n"),
            "Git LFS"));
  /* A torch.save zip names its pickle archive/data.pkl. */
  static const char pt[] = "PK\x03\x04\x14\0\0\0\0\0resnet/data.pklxxxx";
  CHECK(has(sniff(pt, sizeof pt - 1), "PyTorch checkpoint"));
  CHECK_STR(sniff("PK\x03\x04\x14\0\0\0", 8), "a zip archive");
  CHECK(has(sniff("\x80\x02}q\0", 5), "pickle"));
  CHECK(has(sniff("\x89HDF\r\n\x1a\n\0\0", 10), "HDF5"));
  CHECK(has(sniff("\x93NUMPY\x01\0", 8), "NumPy"));
  CHECK(has(sniff("\x1f\x8b\x08\0", 4), "gzip"));
  CHECK(has(sniff("\x1c\0\0\0TFL3\0\0", 10), "TensorFlow Lite"));
}

/* What may be protobuf gets no guess: a real model's first bytes (field 1
 * ir_version, field 2 producer), binary noise, nothing at all. */
static void test_sniff_protobuf_is_no_guess(void) {
  static const char onnx[] = "\x08\x07\x12\x07pytorch\x1a\x04" "1.13";
  CHECK(sniff(onnx, sizeof onnx - 1) == NULL);
  CHECK(sniff("garbage\377\377\001", 10) == NULL);
  CHECK(sniff("", 0) == NULL);
  CHECK(nns__sniff_format(NULL, 5) == NULL);
}

static void test_load_says_not_onnx(void) {
  static const char text[] = "name,params\nresnet,11689512\n";
  nns_model *m = NULL;
  nns_error err;
  CHECK(nns_model_load_memory(text, sizeof text - 1, NULL, &m, &err) !=
        NNS_OK);
  CHECK(m == NULL);
  /* First what it is, then the decoder's detail with its byte offset. */
  CHECK(strncmp(err.message, "not an ONNX model: it looks like text (", 39) ==
        0);
  CHECK(strstr(err.message, "at byte "));
  static const char json[] = "{\"format\": \"onnx\"}";
  CHECK(nns_model_load_memory(json, sizeof json - 1, NULL, &m, &err) !=
        NNS_OK);
  CHECK(strstr(err.message, "it looks like JSON text"));
  /* A truncated real model is a broken ONNX model, not "not ONNX". */
  static const char cut[] = "\x08\x07\x12\x07pyt";
  CHECK(nns_model_load_memory(cut, sizeof cut - 1, NULL, &m, &err) != NNS_OK);
  CHECK(strstr(err.message, "not an ONNX model") == NULL);
}

static void test_no_negative_offset_in_messages(void) {
  char a[] = "node 'n' (Relu) at byte -1: input 0 'q' is not produced";
  nns__drop_unknown_offsets(a);
  CHECK_STR(a, "node 'n' (Relu): input 0 'q' is not produced");
  char b[] = "as output of node 'a' (Relu) at byte -1 and as initializer at "
             "byte -12";
  nns__drop_unknown_offsets(b);
  CHECK_STR(b, "as output of node 'a' (Relu) and as initializer");
  char c[] = "ModelProto.graph at byte 0: x at byte 12, at byte -x";
  nns__drop_unknown_offsets(c);
  CHECK_STR(c, "ModelProto.graph at byte 0: x at byte 12, at byte -x");
}

/* A built model whose node reads a name nothing defines: the loader's
 * message, without a byte offset the model does not have. */
static void test_builder_error_has_no_byte(void) {
  nns_builder *b = NULL;
  nns_error err;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(b, "", 17, &err), NNS_OK);
  int64_t d[2] = {1, 4};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, d, NULL, &err),
           NNS_OK);
  const char *in[] = {"nowhere"}, *out[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "Relu", "", "r", NULL, in, 1, out, 1, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK(nns_builder_finish(b, &m, &err) != NNS_OK);
  CHECK(strstr(err.message, "nowhere"));
  CHECK(strstr(err.message, "byte -") == NULL);
  CHECK(strstr(err.message, "at byte") == NULL);
  nns_builder_free(b);
  nns_model_free(m);
}

int main(void) {
  RUN(test_sniff_kinds);
  RUN(test_sniff_protobuf_is_no_guess);
  RUN(test_load_says_not_onnx);
  RUN(test_no_negative_offset_in_messages);
  RUN(test_builder_error_has_no_byte);
  return check_finish();
}
