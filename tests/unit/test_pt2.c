/*
 * test_pt2.c - the torch.export archive reader (src/pt2/): a real archive
 * (tests/fixtures/pt2, made by tools/make_pt2_fixtures.py) stored and
 * deflated, its parameter count against the architecture's by hand, and
 * hostile archives built here byte by byte: not a zip, cut short, no
 * model.json, a zip bomb, another schema version, an op with no entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "pt2/pt2.h"
#include "ops/aten.h"
#include "pt2/zip.h"

static unsigned char *read_all(const char *rel, size_t *size) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", check_dir(), rel);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

/* ==== A zip written by hand ==== */

typedef struct zipw {
  unsigned char buf[1 << 16];
  size_t len;
  unsigned char dir[4096];
  size_t dir_len;
  int count;
} zipw;

static void put16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static void put32(unsigned char *p, uint32_t v) {
  put16(p, v & 0xFFFF);
  put16(p + 2, v >> 16);
}

/* One entry: `method` and the sizes the directory declares (`usize`), the
 * data as given (CRCs are 0: the reader does not check them). */
static void zip_add(zipw *z, const char *name, const void *data, size_t n,
                    unsigned method, uint32_t usize) {
  size_t nl = strlen(name);
  unsigned char *h = z->buf + z->len;
  memset(h, 0, 30);
  put32(h, 0x04034b50);
  put16(h + 8, method);
  put32(h + 18, (uint32_t)n);
  put32(h + 22, usize);
  put16(h + 26, (unsigned)nl);
  memcpy(h + 30, name, nl);
  memcpy(h + 30 + nl, data, n);
  unsigned char *d = z->dir + z->dir_len;
  memset(d, 0, 46);
  put32(d, 0x02014b50);
  put16(d + 10, method);
  put32(d + 20, (uint32_t)n);
  put32(d + 24, usize);
  put16(d + 28, (unsigned)nl);
  put32(d + 42, (uint32_t)z->len);
  memcpy(d + 46, name, nl);
  z->dir_len += 46 + nl;
  z->len += 30 + nl + n;
  z->count++;
}

static void zip_end(zipw *z) {
  size_t cd = z->len;
  memcpy(z->buf + z->len, z->dir, z->dir_len);
  z->len += z->dir_len;
  unsigned char *e = z->buf + z->len;
  memset(e, 0, 22);
  put32(e, 0x06054b50);
  put16(e + 8, (unsigned)z->count);
  put16(e + 10, (unsigned)z->count);
  put32(e + 12, (uint32_t)z->dir_len);
  put32(e + 16, (uint32_t)cd);
  z->len += 22;
}

static nns_status load_json(const char *json, nns_model **m,
                            nns_error *err) {
  static zipw z;
  memset(&z, 0, sizeof z);
  zip_add(&z, "m/models/model.json", json, strlen(json), 0,
          (uint32_t)strlen(json));
  zip_end(&z);
  return nns_model_load_memory(z.buf, z.len, NULL, m, err);
}

/* ==== A real archive ==== */

/* SmallCNN (tools/pt2_models.py) by hand: conv1 3->8 3x3 with bias, bn1
 * over 8 (weight and bias trainable; running mean and variance buffers:
 * its num_batches_tracked is read by no node in eval mode, and the
 * totals count the state the forward reads), conv2 8->16 3x3 without
 * bias, fc 16->10. */
enum {
  CNN_PARAMS = (8 * 3 * 9 + 8) + (8 + 8) + 16 * 8 * 9 + (16 * 10 + 10),
  CNN_BUFFERS = 8 + 8
};

static void check_cnn(const char *rel) {
  size_t size = 0;
  unsigned char *data = read_all(rel, &size);
  CHECK(data != NULL);
  if (!data)
    return;
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_memory(data, size, NULL, &m, &err), NNS_OK);
  free(data); /* the model keeps nothing of the archive */
  if (!m) {
    fprintf(stderr, "%s\n", err.message);
    return;
  }
  int64_t dims[] = {4, 3, 32, 32};
  nns_input_shape in = {.size = sizeof in, .name = "x", .dims = dims,
                        .rank = 4};
  nns_infer_options io = {.size = sizeof io, .inputs = &in, .input_count = 1};
  CHECK_EQ(nns_model_infer(m, &io, &err), NNS_OK);
  CHECK_EQ(nns_model_unknown_op_count(m), 0);
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_total_counts(a, &c), NNS_OK);
  CHECK_EQ(c.params, CNN_PARAMS);
  CHECK_EQ(c.buffers, CNN_BUFFERS);
  /* conv1: 4x8x32x32 outputs of 27 MACs; conv2: 4x16x16x16 of 72; fc:
   * 4x10 of 16; and METRICS.md's rows for the rest: bn1 2 per element of
   * its 4x8x32x32 input, the 2x2 max pool k - 1 = 3 per 4x16x8x8
   * output, the global average pool k - 1 + 2 = 65 per 4x16 output. */
  CHECK_EQ(c.macs, 4 * 8 * 32 * 32 * 27 + 4 * 16 * 16 * 16 * 72 +
                       4 * 10 * 16 + 2 * 4 * 8 * 32 * 32 +
                       3 * 4 * 16 * 8 * 8 + 65 * 4 * 16);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_stored_archive(void) {
  check_cnn("fixtures/pt2/small_cnn.pt2");
}

static void test_deflated_archive(void) {
  check_cnn("fixtures/pt2/small_cnn_deflated.pt2");
}

static void test_file_told_by_content(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/fixtures/pt2/small_cnn.pt2", check_dir());
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_file(path, NULL, &m, &err), NNS_OK);
  nns_model_free(m);
}

/* ==== Hostile archives ==== */

static void test_cut_archive(void) {
  size_t size = 0;
  unsigned char *data = read_all("fixtures/pt2/small_cnn_deflated.pt2",
                                 &size);
  CHECK(data != NULL);
  if (!data)
    return;
  /* Every prefix fails cleanly (the end record is gone or points past
   * the end), never reads outside. */
  for (size_t n = 4; n < size; n += 97) {
    unsigned char *cut = malloc(n);
    memcpy(cut, data, n);
    nns_model *m = NULL;
    nns_error err;
    CHECK(nns_model_load_memory(cut, n, NULL, &m, &err) != NNS_OK);
    CHECK(m == NULL);
    free(cut);
  }
  free(data);
}

static void test_no_model_json(void) {
  static zipw z;
  memset(&z, 0, sizeof z);
  zip_add(&z, "m/archive_format", "pt2", 3, 0, 3);
  zip_end(&z);
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_memory(z.buf, z.len, NULL, &m, &err),
           NNS_E_NOTFOUND);
  CHECK(strstr(err.message, "models/model.json") != NULL);
}

static void test_zip_bomb(void) {
  /* A deflated model.json whose directory claims 3 GiB: refused before
   * anything is inflated. */
  static zipw z;
  memset(&z, 0, sizeof z);
  const unsigned char junk[] = {0x03, 0x00};
  zip_add(&z, "m/models/model.json", junk, sizeof junk, 8, 3u << 30);
  zip_end(&z);
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_memory(z.buf, z.len, NULL, &m, &err), NNS_E_LIMIT);
  CHECK(strstr(err.message, "over the limit") != NULL);
}

static void test_deflate_lies(void) {
  /* Declares 100 bytes; the stream (an empty final stored block) holds
   * none. */
  static zipw z;
  memset(&z, 0, sizeof z);
  const unsigned char empty[] = {0x03, 0x00};
  zip_add(&z, "m/models/model.json", empty, sizeof empty, 8, 100);
  zip_end(&z);
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_memory(z.buf, z.len, NULL, &m, &err), NNS_E_MODEL);
  CHECK(strstr(err.message, "does not inflate") != NULL);
}

static void test_other_method(void) {
  static zipw z;
  memset(&z, 0, sizeof z);
  zip_add(&z, "m/models/model.json", "{}", 2, 12, 2); /* bzip2 */
  zip_end(&z);
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(nns_model_load_memory(z.buf, z.len, NULL, &m, &err), NNS_E_MODEL);
  CHECK(strstr(err.message, "method 12") != NULL);
}

static void test_bad_json(void) {
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(load_json("{\"schema_version\": ", &m, &err), NNS_E_JSON);
  CHECK(strstr(err.message, "models/model.json") != NULL);
}

static void test_other_schema(void) {
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(load_json("{\"schema_version\": {\"major\": 9, \"minor\": 1}}",
                     &m, &err),
           NNS_E_MODEL);
  CHECK(strstr(err.message, "schema version 9.1") != NULL);
  CHECK_EQ(load_json("{\"graph_module\": {}}", &m, &err), NNS_E_MODEL);
}

/* A program of one call: y = <target>(x), x of [2, s0], the node's
 * metadata object `meta`. */
static const char *program_meta(const char *target, const char *meta,
                                char *buf, size_t size) {
  snprintf(buf, size,
           "{\"schema_version\": {\"major\": 8, \"minor\": 20},"
           " \"graph_module\": {\"graph\": {"
           "  \"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}],"
           "  \"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}],"
           "  \"nodes\": [{\"target\": \"%s\", \"name\": \"n0\","
           "    \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\":"
           "      {\"name\": \"x\"}}, \"kind\": 1}],"
           "    \"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}],"
           "    \"metadata\": %s}],"
           "  \"tensor_values\": {"
           "   \"x\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}, {\"as_expr\":"
           "     {\"expr_str\": \"Symbol('s0', positive=True)\"}}]},"
           "   \"y\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}, {\"as_expr\":"
           "     {\"expr_str\": \"Symbol('s0', positive=True)\"}}]}}},"
           "  \"signature\": {"
           "   \"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\":"
           "     {\"name\": \"x\"}}}}],"
           "   \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\":"
           "     {\"name\": \"y\"}}}}]}}}",
           target, meta);
  return buf;
}

/* A program of one call with no metadata. */
static const char *program(const char *target, char *buf, size_t size) {
  return program_meta(target, "{}", buf, size);
}

/* The node metadata the reader never keeps (stack_trace, torch_fn) is
 * still checked as JSON: escapes read, a control character refused at
 * its byte as anywhere else; nn_module_stack beside it is read. */
static void test_unread_metadata(void) {
  char buf[4096];
  nns_model *m = NULL;
  nns_error err;
  const char *meta =
      "{\"stack_trace\": \"File \\\"m.py\\\", line 3, in forward\\n"
      "    return x.relu()\", \"nn_module_stack\": "
      "\"L__self___act,act,torch.nn.modules.activation.ReLU\","
      " \"torch_fn\": \"relu_1;method_descriptor.relu\"}";
  CHECK_EQ(load_json(program_meta("torch.ops.aten.relu.default", meta, buf,
                                  sizeof buf),
                     &m, &err),
           NNS_OK);
  if (!m)
    return;
  CHECK_EQ(nns_model_node_count(m), 1);
  bool act = false;
  for (size_t i = 0; i < nns_model_module_count(m); i++) {
    nns_module_info info = {.size = sizeof info};
    CHECK_EQ(nns_model_module(m, i, &info), NNS_OK);
    act = act || (!strcmp(info.path, "act") && info.class_name &&
                  !strcmp(info.class_name, "ReLU"));
  }
  CHECK(act);
  nns_model_free(m);
  const char *bad = "{\"stack_trace\": \"line 3\001\"}";
  program_meta("torch.ops.aten.relu.default", bad, buf, sizeof buf);
  long at = (long)(strchr(buf, '\001') - buf);
  CHECK_EQ(load_json(buf, &m, &err), NNS_E_JSON);
  char want[160];
  snprintf(want, sizeof want,
           "models/model.json: control character in a string at byte %ld",
           at);
  CHECK_STR(err.message, want);
}

static void test_unknown_op_is_uncounted(void) {
  char buf[4096];
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(load_json(program("torch.ops.aten.frobnicate.default", buf,
                             sizeof buf),
                     &m, &err),
           NNS_OK);
  if (!m)
    return;
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_unknown_op_count(m), 1);
  const char *domain = NULL, *op = NULL;
  size_t count = 0;
  CHECK_EQ(nns_model_unknown_op(m, 0, &domain, &op, &count), NNS_OK);
  CHECK_STR(domain, "pytorch.aten");
  CHECK_STR(op, "frobnicate");
  CHECK_EQ(count, 1);
  nns_model_free(m);
}

static void test_symbol_named_as_archive(void) {
  char buf[4096];
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(load_json(program("torch.ops.aten.relu.default", buf, sizeof buf),
                     &m, &err),
           NNS_OK);
  if (!m)
    return;
  size_t v;
  CHECK_EQ(nns_model_input(m, 0, &v), NNS_OK);
  nns_dim d = {.size = sizeof d};
  CHECK_EQ(nns_model_value_dim(m, v, 1, &d), NNS_OK);
  CHECK(d.symbol && !strcmp(d.symbol, "s0"));
  /* --input s0=5: the Relu's 2x5 outputs. */
  nns_input_shape in = {.size = sizeof in, .name = "x",
                        .dims = (const int64_t[]){2, 5}, .rank = 2};
  nns_infer_options io = {.size = sizeof io, .inputs = &in, .input_count = 1};
  CHECK_EQ(nns_model_infer(m, &io, &err), NNS_OK);
  CHECK_EQ(nns_model_unknown_op_count(m), 0);
  nns_model_free(m);
}

/* The aten tables: each family sorted (nns__aten_find bisects each), the
 * names unique over all of them, every entry found by its name and its
 * in-place form, and named by the public listing (the families one after
 * the other). */
static void test_aten_table(void) {
  const char *to = NULL, *name;
  size_t n = 0, families = 0, in_families = 0;
  const nns__aten_family *fam;
  for (; (fam = nns__aten_family_at(families)); families++) {
    CHECK(fam->count > 0);
    for (size_t k = 1; k < fam->count; k++)
      CHECK(strcmp(fam->ops[k - 1].name, fam->ops[k].name) < 0);
    in_families += fam->count;
  }
  CHECK(families >= 2);
  for (; (name = nns_aten_op(n, &to)); n++) {
    CHECK(to != NULL && to[0]);
    /* found where it is listed: no other family has the name */
    CHECK(nns__aten_find(name) == nns__aten_entry(n));
    char inplace[128];
    snprintf(inplace, sizeof inplace, "%s_", name);
    size_t len = strlen(name);
    if (len < 2 || strcmp(name + len - 2, "__")) /* not __and__ */
      CHECK(nns__aten_find(inplace) == nns__aten_entry(n));
    const nns__aten_op *e = nns__aten_entry(n);
    CHECK(e->form != NNS__AF_RULE || e->rule != NULL);
  }
  CHECK(n == in_families);
  CHECK(n > 200);
  CHECK(nns_aten_op(n, &to) == NULL && to == NULL);
  CHECK(nns_aten_op((size_t)-1, NULL) == NULL);
  CHECK(nns__aten_find("no_such_op") == NULL);
  CHECK(nns__aten_find("") == NULL);
}

/* A conv2d whose weight has 7 dims (5 spatial: more than any rule takes)
 * stays an uncounted node; nothing is written past the rule's arrays. */
static void test_conv_of_odd_rank(void) {
  static const char json[] =
      "{\"schema_version\": {\"major\": 8, \"minor\": 20},"
      " \"graph_module\": {\"graph\": {"
      "  \"nodes\": [{\"target\": \"torch.ops.aten.conv2d.default\","
      "    \"name\": \"c\", \"inputs\": ["
      "     {\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
      "     {\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": \"w\"}}},"
      "     {\"name\": \"stride\", \"arg\": {\"as_ints\": [1, 1, 1, 1, 1]}}],"
      "    \"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}]}],"
      "  \"tensor_values\": {"
      "   \"x\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 1}, {\"as_int\": 1},"
      "     {\"as_int\": 2}, {\"as_int\": 2}, {\"as_int\": 2}, {\"as_int\": 2},"
      "     {\"as_int\": 2}]},"
      "   \"w\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 1}, {\"as_int\": 1},"
      "     {\"as_int\": 1}, {\"as_int\": 1}, {\"as_int\": 1}, {\"as_int\": 1},"
      "     {\"as_int\": 1}]},"
      "   \"y\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 1}]}}},"
      "  \"signature\": {\"input_specs\": ["
      "   {\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}},"
      "   {\"parameter\": {\"arg\": {\"name\": \"w\"},"
      "     \"parameter_name\": \"conv.weight\"}}],"
      "   \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\":"
      "     {\"name\": \"y\"}}}}]}}}";
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(load_json(json, &m, &err), NNS_OK);
  if (!m)
    return;
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_unknown_op_count(m), 1);
  nns_model_free(m);
}

/* A weight's transpose (docs/pt2.md): in a decomposed archive F.linear is
 * permute(W, [1, 0]) then mm. The product reads W with transB (a Gemm,
 * as the live recording folds t(W)); an Add of the same transposed
 * weight makes the Transpose first, under the permute's name; a
 * transposed weight returned as an output is no output. W 4x3, x 2x3:
 * the Gemm reads 6 + 12 and writes 8 elements; the Transpose reads and
 * writes 12 each; the Add reads 24 and writes 12. */
static void test_weight_transpose_folds(void) {
#define TV(name, a, b)                                                    \
  "\"" name "\": {\"dtype\": 7, \"sizes\": [{\"as_int\": " #a "},"         \
  " {\"as_int\": " #b "}]}"
#define T(name) "{\"as_tensor\": {\"name\": \"" name "\"}}"
#define ARG(schema, name) "{\"name\": \"" schema "\", \"arg\": " T(name) "}"
#define PERMUTE(call, out)                                                 \
  "{\"target\": \"torch.ops.aten.permute.default\", \"name\": \"" call "\","  \
  " \"inputs\": [" ARG("self", "p_w") ", {\"name\": \"dims\","               \
  " \"arg\": {\"as_ints\": [1, 0]}}], \"outputs\": [" T(out) "]}"
  static const char json[] =
      "{\"schema_version\": {\"major\": 8, \"minor\": 20},"
      " \"graph_module\": {\"graph\": {\"nodes\": ["
      "  " PERMUTE("pw", "wt") ","
      "  {\"target\": \"torch.ops.aten.mm.default\", \"name\": \"mm\","
      "   \"inputs\": [" ARG("self", "x") ", " ARG("mat2", "wt") "],"
      "   \"outputs\": [" T("y") "]},"
      "  " PERMUTE("pw2", "wt2") ","
      "  {\"target\": \"torch.ops.aten.add.Tensor\", \"name\": \"add\","
      "   \"inputs\": [" ARG("self", "wt2") ", " ARG("other", "wt2") "],"
      "   \"outputs\": [" T("z") "]},"
      "  " PERMUTE("pw3", "wt3") "],"
      "  \"tensor_values\": {" TV("x", 2, 3) ", " TV("p_w", 4, 3) ", "
      TV("wt", 3, 4) ", " TV("y", 2, 4) ", " TV("wt2", 3, 4) ", "
      TV("z", 3, 4) ", " TV("wt3", 3, 4) "}},"
      "  \"signature\": {\"input_specs\": ["
      "   {\"parameter\": {\"arg\": {\"name\": \"p_w\"},"
      "     \"parameter_name\": \"fc.weight\"}},"
      "   {\"user_input\": {\"arg\": " T("x") "}}],"
      "   \"output_specs\": [{\"user_output\": {\"arg\": " T("y") "}},"
      "    {\"user_output\": {\"arg\": " T("z") "}},"
      "    {\"user_output\": {\"arg\": " T("wt3") "}}]}}}";
#undef TV
#undef T
#undef ARG
#undef PERMUTE
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(load_json(json, &m, &err), NNS_OK);
  if (!m) {
    fprintf(stderr, "%s\n", err.message);
    return;
  }
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  const char *want[] = {"Gemm", "Transpose", "Add"};
  const char *names[] = {"mm", "pw2", "add"};
  CHECK_EQ(nns_model_node_count(m), 3);
  for (size_t i = 0; i < 3 && i < nns_model_node_count(m); i++) {
    nns_node_info n = {.size = sizeof n};
    CHECK_EQ(nns_model_node(m, i, &n), NNS_OK);
    CHECK_STR(n.op_type, want[i]);
    CHECK_STR(n.name, names[i]);
  }
  CHECK_EQ(nns_model_output_count(m), 2);
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_total_counts(a, &c), NNS_OK);
  CHECK_EQ(c.params, 12);
  CHECK_EQ(c.macs, 2 * 4 * 3);
  CHECK_EQ(c.dmas, (6 + 12 + 8) + (12 + 12) + (24 + 12));
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_weight_transpose_folds);
  RUN(test_conv_of_odd_rank);
  RUN(test_aten_table);
  RUN(test_stored_archive);
  RUN(test_deflated_archive);
  RUN(test_file_told_by_content);
  RUN(test_cut_archive);
  RUN(test_no_model_json);
  RUN(test_zip_bomb);
  RUN(test_deflate_lies);
  RUN(test_other_method);
  RUN(test_bad_json);
  RUN(test_other_schema);
  RUN(test_unknown_op_is_uncounted);
  RUN(test_unread_metadata);
  RUN(test_symbol_named_as_archive);
  return check_finish();
}
