/*
 * test_builder_packed.c - nns_builder_add_packed: many builder calls as one
 * buffer of records (include/nnscan.h).
 *
 * The main checks pack the descriptions test_builder.c replays call by call
 * (ONNX exports of resnet18 and ViT-B/16 read by the onnx package) and
 * compare the summary JSON of the model built from the packed form with
 * that of the ONNX file loaded as usual. The others feed hostile buffers:
 * every truncation and many corruptions of a real one (each must give a
 * status, never a read outside the buffer: the copies are malloc'd to
 * their exact size so ASan sees any overread), and each malformed field
 * the header promises to refuse, with the record index, kind and byte
 * offset in the error. The fuzz seeds build, and every buffer the fuzzer
 * (tests/fuzz/fuzz_packed.c) ever found failing is replayed.
 */
#include <dirent.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builddesc.h"
#include "check.h"
#include "nnscan.h"
#include "report/report_int.h"
#include "testmodel.h"

/* The packed form of a test description (malloc'd); NULL on failure. */
static unsigned char *packed_desc(const char *name, size_t *size) {
  char desc[256];
  snprintf(desc, sizeof desc, "unit/builder/%s.desc", name);
  bdesc *bd = bdesc_read(desc);
  if (!bd) {
    check_fail(__FILE__, __LINE__, "cannot read %s", desc);
    return NULL;
  }
  unsigned char *buf = bdesc_pack(bd, size);
  bdesc_free(bd);
  if (!buf)
    check_fail(__FILE__, __LINE__, "cannot pack %s", desc);
  return buf;
}

/* A model from `size` bytes copied to a buffer of exactly that size (and
 * shifted by `misalign` bytes, so no read may assume alignment). */
static nns_status build_packed(const unsigned char *data, size_t size,
                               size_t misalign, nns_model **out,
                               nns_error *err) {
  *out = NULL;
  unsigned char *copy = malloc(size + misalign + 1);
  if (!copy)
    return NNS_E_NOMEM;
  memcpy(copy + misalign, data, size);
  nns_builder *b = NULL;
  nns_status st = nns_builder_new(&b, err);
  if (!st)
    st = nns_builder_add_packed(b, copy + misalign, size, err);
  if (!st)
    st = nns_builder_finish(b, out, err);
  nns_builder_free(b);
  free(copy);
  return st;
}

static void expect_same_summary(const char *name) {
  size_t size = 0;
  unsigned char *buf = packed_desc(name, &size);
  char onnx[256];
  snprintf(onnx, sizeof onnx, "fixtures/models/%s.onnx", name);
  nns_model *built = NULL;
  nns_error err;
  if (buf && build_packed(buf, size, 3, &built, &err) != NNS_OK)
    check_fail(__FILE__, __LINE__, "%s: %s", name, err.message);
  free(buf);
  tm_expect_same_summary(built, onnx, name);
}

static void test_resnet18(void) { expect_same_summary("resnet18_op17_fold"); }
static void test_vit(void) { expect_same_summary("vit_b_16_op17_fold"); }

/* Every prefix of a real buffer: refused with a status, or (at a record
 * boundary) accepted; never a crash or a read past the end. */
static void test_truncations(void) {
  size_t size = 0;
  unsigned char *buf = packed_desc("resnet18_op17_fold", &size);
  if (!buf)
    return;
  size_t accepted = 0;
  for (size_t n = 0; n < size; n++) {
    nns_model *m = NULL;
    nns_error err;
    nns_status st = build_packed(buf, n, n % 7, &m, &err);
    if (st == NNS_OK)
      accepted++;
    else
      CHECK(err.message[0] != 0);
    nns_model_free(m);
  }
  /* The whole buffer builds; its prefixes that end on a record boundary
   * and name nothing undefined may too, but nearly all are refused. */
  nns_model *m = NULL;
  nns_error err;
  CHECK_EQ(build_packed(buf, size, 0, &m, &err), NNS_OK);
  nns_model_free(m);
  CHECK(accepted < size / 20);
  free(buf);
}

/* Corrupted bytes anywhere: a status each time, never a crash. */
static void test_corruptions(void) {
  size_t size = 0;
  unsigned char *buf = packed_desc("resnet18_op17_fold", &size);
  if (!buf)
    return;
  unsigned char *bad = malloc(size);
  static const unsigned char vals[] = {0x00, 0xff, 0x7f, 0x80, 0x41};
  unsigned seed = 12345;
  for (size_t i = 0; bad && i < size; i += 1 + i / 64) {
    for (size_t v = 0; v < sizeof vals; v++) {
      memcpy(bad, buf, size);
      bad[i] = vals[v];
      seed = seed * 1103515245u + 12345u;
      bad[(i + seed % 97) % size] ^= (unsigned char)(seed >> 16);
      nns_model *m = NULL;
      nns_analysis *a = NULL;
      nns_error err;
      if (build_packed(bad, size, v, &m, &err) == NNS_OK) {
        (void)nns_model_infer(m, NULL, &err);
        (void)nns_model_analyze(m, NULL, &a, &err);
      }
      nns_analysis_free(a);
      nns_model_free(m);
    }
  }
  free(bad);
  free(buf);
}

/* ==== Hand-made buffers ==== */

typedef struct wbuf {
  unsigned char p[4096];
  size_t n;
} wbuf;

static void w(wbuf *b, const void *data, size_t n) {
  if (b->n + n <= sizeof b->p) {
    memcpy(b->p + b->n, data, n);
    b->n += n;
  }
}
static void w_u8(wbuf *b, unsigned v) {
  unsigned char c = (unsigned char)v;
  w(b, &c, 1);
}
static void w_u32(wbuf *b, uint32_t v) { w(b, &v, 4); }
static void w_i32(wbuf *b, int32_t v) { w(b, &v, 4); }
static void w_i64(wbuf *b, int64_t v) { w(b, &v, 8); }
static void w_str(wbuf *b, const char *s) {
  w_u32(b, (uint32_t)strlen(s));
  w(b, s, strlen(s) + 1);
}
static void w_head(wbuf *b) {
  b->n = 0;
  w(b, "NNSP", 4);
  w_u32(b, NNS_PACKED_VERSION);
}
/* input "x": float [2, 3], no symbols */
static void w_input_x(wbuf *b) {
  w_u8(b, 6);
  w_str(b, "x");
  w_i32(b, NNS_DT_FLOAT);
  w_i32(b, 2);
  w_i64(b, 2);
  w_i64(b, 3);
  w_u8(b, 0);
}
/* node Relu x -> y in module "block" */
static void w_relu(wbuf *b) {
  w_u8(b, 10);
  w_str(b, "Relu");
  w_str(b, "");
  w_str(b, "relu0");
  w_str(b, "block");
  w_u32(b, 1);
  w_str(b, "x");
  w_u32(b, 1);
  w_str(b, "y");
}

/* One record after a valid start (x, Relu): its status and message. */
static nns_status one_bad(const wbuf *b, nns_error *err) {
  nns_builder *bu = NULL;
  nns_status st = nns_builder_new(&bu, err);
  if (!st)
    st = nns_builder_add_packed(bu, b->p, b->n, err);
  nns_builder_free(bu);
  return st;
}

static void test_malformed(void) {
  wbuf b;
  nns_error err;
  nns_builder *bu = NULL;
  /* Header: magic and version. */
  CHECK_EQ(nns_builder_new(&bu, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_packed(bu, "NNSQ\1\0\0\0", 8, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "NNSP") != NULL);
  CHECK_EQ(nns_builder_add_packed(bu, "NNSP", 4, &err), NNS_E_ARG);
  CHECK_EQ(nns_builder_add_packed(bu, NULL, 8, &err), NNS_E_ARG);
  w_head(&b);
  b.p[4] = 9;
  CHECK_EQ(nns_builder_add_packed(bu, b.p, b.n, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "version 9") != NULL);
  CHECK_EQ(nns_builder_add_packed(NULL, b.p, b.n, &err), NNS_E_ARG);
  /* An empty list of records is fine; a failed first record changes
   * nothing and the builder stays usable. */
  w_head(&b);
  CHECK_EQ(nns_builder_add_packed(bu, b.p, b.n, &err), NNS_OK);
  w_u8(&b, 99);
  CHECK_EQ(nns_builder_add_packed(bu, b.p, b.n, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "record 0 (tag 99") != NULL);
  CHECK(strstr(err.message, "unknown record tag") != NULL);
  CHECK_EQ(err.offset, 8);
  w_head(&b);
  w_input_x(&b);
  CHECK_EQ(nns_builder_add_packed(bu, b.p, b.n, &err), NNS_OK);
  nns_builder_free(bu);

  /* Each malformed field, after two good records. */
  struct {
    const char *what, *expect;
    int kind;
  } cases[] = {
      {"string without its NUL", "NUL", 0},
      {"string with a NUL inside", "NUL", 1},
      {"string longer than the buffer", "past the end", 2},
      {"rank 65", "rank", 3},
      {"name count past the end", "past the end", 4},
      {"attribute ints past the end", "past the end", 5},
      {"symbols flag 2", "symbols flag", 6},
      {"byte count past the end", "past the end", 7},
      {"a record cut short", "past the end", 8},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    w_head(&b);
    w_input_x(&b);
    w_relu(&b);
    size_t at = b.n;
    switch (cases[c].kind) {
    case 0: /* graph_name "ab" without its terminating NUL */
      w_u8(&b, 3);
      w_u32(&b, 2);
      w(&b, "abc", 3);
      break;
    case 1:
      w_u8(&b, 3);
      w_u32(&b, 3);
      w(&b, "a\0b\0", 4);
      break;
    case 2:
      w_u8(&b, 3);
      w_u32(&b, 1000);
      w(&b, "ab\0", 3);
      break;
    case 3:
      w_u8(&b, 8);
      w_str(&b, "v");
      w_i32(&b, NNS_DT_FLOAT);
      w_i32(&b, 65);
      break;
    case 4:
      w_u8(&b, 10);
      w_str(&b, "Neg");
      w_str(&b, "");
      w_str(&b, "n");
      w_str(&b, "");
      w_u32(&b, 0xffffffffu - 1);
      w_str(&b, "x");
      break;
    case 5:
      w_u8(&b, 14);
      w_str(&b, "perm");
      w_u32(&b, 0x7fffffffu);
      w_i64(&b, 1);
      break;
    case 6:
      w_u8(&b, 8);
      w_str(&b, "v");
      w_i32(&b, NNS_DT_FLOAT);
      w_i32(&b, 1);
      w_i64(&b, 4);
      w_u8(&b, 2);
      break;
    case 7:
      w_u8(&b, 13);
      w_str(&b, "mode");
      w_i64(&b, 1 << 20);
      w(&b, "xy", 2);
      break;
    case 8:
      w_u8(&b, 11);
      w_str(&b, "axis");
      w(&b, "\1\0\0", 3);
      break;
    }
    nns_status st = one_bad(&b, &err);
    if (st != NNS_E_ARG || !strstr(err.message, cases[c].expect) ||
        !strstr(err.message, "record 2") || err.offset != (int64_t)at)
      check_fail(__FILE__, __LINE__, "%s: status %d offset %lld '%s'",
                 cases[c].what, (int)st, (long long)err.offset, err.message);
  }
}

/* A record the builder refuses names itself, and the calls before it stay
 * made: the builder then refuses everything but free. */
static void test_refused_record(void) {
  wbuf b;
  nns_error err;
  w_head(&b);
  w_input_x(&b);
  w_relu(&b);
  w_input_x(&b); /* "x" again */
  nns_builder *bu = NULL;
  CHECK_EQ(nns_builder_new(&bu, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_packed(bu, b.p, b.n, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "packed record 2 (input)") != NULL);
  CHECK(strstr(err.message, "defined twice") != NULL);
  CHECK_EQ(nns_builder_add_opset(bu, "", 17, &err), NNS_E_STATE);
  CHECK(strstr(err.message, "add_packed failed") != NULL);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(bu, &m, &err), NNS_E_STATE);
  CHECK(m == NULL);
  nns_builder_free(bu);
}

/* Module classes and parameter kinds travel in the same buffer. */
static void test_module_and_param_kind(void) {
  wbuf b;
  nns_error err;
  w_head(&b);
  w_u8(&b, 4);
  w_str(&b, "");
  w_i64(&b, 17);
  w_input_x(&b);
  w_u8(&b, 9); /* initializer s: float [3], no data */
  w_str(&b, "s");
  w_i32(&b, NNS_DT_FLOAT);
  w_i32(&b, 1);
  w_i64(&b, 3);
  w_i64(&b, -1); /* bytes: NULL */
  w_relu(&b);
  w_u8(&b, 10); /* Mul y s -> z, module block */
  w_str(&b, "Mul");
  w_str(&b, "");
  w_str(&b, "mul0");
  w_str(&b, "block");
  w_u32(&b, 2);
  w_str(&b, "y");
  w_str(&b, "s");
  w_u32(&b, 1);
  w_str(&b, "z");
  w_u8(&b, 7);
  w_str(&b, "z");
  w_i32(&b, 0);
  w_i32(&b, -1);
  w_u8(&b, 0);
  w_u8(&b, 21);
  w_str(&b, "block");
  w_str(&b, "MyBlock");
  w_i64(&b, 2);
  size_t kind_at = b.n;
  w_u8(&b, 22);
  w_str(&b, "s");
  w_i32(&b, NNS_PARAM_BUFFER);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  CHECK_EQ(build_packed(b.p, b.n, 1, &m, &err), NNS_OK);
  if (m) {
    CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
    nns_counts t = {.size = sizeof t};
    CHECK_EQ(nns_analysis_total_counts(a, &t), NNS_OK);
    CHECK_EQ(t.params, 0);
    CHECK_EQ(t.buffers, 3);
    int found = 0;
    for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
      const char *cls = NULL;
      if (nns_analysis_layer_class(a, i, &cls) == NNS_OK && cls &&
          !strcmp(cls, "MyBlock"))
        found++;
    }
    CHECK_EQ(found, 1);
  }
  nns_analysis_free(a);
  nns_model_free(m);
  /* A kind for a name the graph lacks fails finish, naming it. */
  b.n = kind_at;
  w_u8(&b, 22);
  w_str(&b, "nowhere");
  w_i32(&b, NNS_PARAM_BUFFER);
  CHECK_EQ(build_packed(b.p, b.n, 0, &m, &err), NNS_E_NOTFOUND);
  CHECK(strstr(err.message, "nowhere") != NULL);
  /* An unknown kind and a negative call count are refused. */
  b.n = kind_at;
  w_u8(&b, 22);
  w_str(&b, "s");
  w_i32(&b, 7);
  CHECK_EQ(build_packed(b.p, b.n, 0, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "unknown kind 7") != NULL);
  b.n = kind_at;
  w_u8(&b, 21);
  w_str(&b, "block");
  w_str(&b, "MyBlock");
  w_i64(&b, -2);
  CHECK_EQ(build_packed(b.p, b.n, 0, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "negative") != NULL);
}

/* node op in0 [in1 [in2]] -> out */
static void w_node(wbuf *b, const char *op, int n_in, const char *const *in,
                   const char *out) {
  w_u8(b, 10);
  w_str(b, op);
  w_str(b, "");
  w_str(b, out);
  w_str(b, "attn");
  w_u32(b, (uint32_t)n_in);
  for (int i = 0; i < n_in; i++)
    w_str(b, in[i]);
  w_u32(b, 1);
  w_str(b, out);
}
/* input name: float or bool [1, 2, 4, 2] / [4, 4] */
static void w_input4(wbuf *b, const char *name, int dtype) {
  w_u8(b, 6);
  w_str(b, name);
  w_i32(b, dtype);
  if (dtype == NNS_DT_BOOL) {
    w_i32(b, 2);
    w_i64(b, 4);
    w_i64(b, 4);
  } else {
    w_i32(b, 4);
    w_i64(b, 1);
    w_i64(b, 2);
    w_i64(b, 4);
    w_i64(b, 2);
  }
  w_u8(b, 0);
}

/* value_data: a mask's contents as a recording saw them, given to a node's
 * output, make macs_unmasked count the attention products over the pairs
 * it allows: a causal [4, 4] mask on 2 heads, E = Ev = 2 (by hand: 10 of
 * 16 pairs per head, so (16 - 10) * 2 heads * (2 + 2) MACs left out). */
static void test_value_data(void) {
  wbuf b;
  nns_error err;
  w_head(&b);
  w_u8(&b, 4);
  w_str(&b, "");
  w_i64(&b, 17);
  w_input4(&b, "q", NNS_DT_FLOAT);
  w_input4(&b, "k", NNS_DT_FLOAT);
  w_input4(&b, "v", NNS_DT_FLOAT);
  w_input4(&b, "cond", NNS_DT_BOOL);
  w_u8(&b, 9); /* initializer ninf: float scalar -inf */
  w_str(&b, "ninf");
  w_i32(&b, NNS_DT_FLOAT);
  w_i32(&b, 0);
  float ninf = -INFINITY;
  w_i64(&b, 4);
  w(&b, &ninf, 4);
  w_node(&b, "Identity", 1, (const char *[]){"cond"}, "m");
  w_node(&b, "Transpose", 1, (const char *[]){"k"}, "kt");
  w_u8(&b, 14); /* attr perm */
  w_str(&b, "perm");
  w_u32(&b, 4);
  w_i64(&b, 0);
  w_i64(&b, 1);
  w_i64(&b, 3);
  w_i64(&b, 2);
  w_node(&b, "MatMul", 2, (const char *[]){"q", "kt"}, "s");
  w_node(&b, "Where", 3, (const char *[]){"m", "s", "ninf"}, "sm");
  w_node(&b, "Softmax", 1, (const char *[]){"sm"}, "p");
  w_node(&b, "MatMul", 2, (const char *[]){"p", "v"}, "y");
  w_u8(&b, 7);
  w_str(&b, "y");
  w_i32(&b, 0);
  w_i32(&b, -1);
  w_u8(&b, 0);
  size_t data_at = b.n;
  unsigned char causal[16];
  for (int i = 0; i < 16; i++)
    causal[i] = i % 4 <= i / 4;
  w_u8(&b, 24);
  w_str(&b, "m");
  w_i32(&b, NNS_DT_BOOL);
  w_i32(&b, 2);
  w_i64(&b, 4);
  w_i64(&b, 4);
  w_i64(&b, 16);
  w(&b, causal, 16);
  size_t end = b.n;
  nns_model *m = NULL;
  for (int given = 0; given < 2; given++) {
    b.n = given ? end : data_at;
    CHECK_EQ(build_packed(b.p, b.n, 1, &m, &err), NNS_OK);
    if (!m)
      continue;
    nns_analysis *a = NULL;
    CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
    nns_counts t = {.size = sizeof t};
    CHECK_EQ(nns_analysis_total_counts(a, &t), NNS_OK);
    CHECK_EQ(t.macs, 2 * (2 * 4 * 4 * 2));
    CHECK_EQ(t.macs - t.macs_unmasked, given ? (16 - 10) * 2 * (2 + 2) : 0);
    nns_analysis_free(a);
    nns_model_free(m);
  }
  /* "The same as the last": a second name sharing the contents. */
  b.n = end;
  w_u8(&b, 24);
  w_str(&b, "cond");
  w_i32(&b, NNS_DT_BOOL);
  w_i32(&b, 2);
  w_i64(&b, 4);
  w_i64(&b, 4);
  w_i64(&b, -1);
  CHECK_EQ(build_packed(b.p, b.n, 0, &m, &err), NNS_OK);
  nns_model_free(m);
  /* ... but not as the first, nor with another element count */
  b.n = data_at;
  w_u8(&b, 24);
  w_str(&b, "m");
  w_i32(&b, NNS_DT_BOOL);
  w_i32(&b, 0);
  w_i64(&b, -1);
  CHECK_EQ(build_packed(b.p, b.n, 0, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "'m'") != NULL);
  /* A name the graph lacks fails finish, naming it; short data is refused. */
  b.n = data_at;
  w_u8(&b, 24);
  w_str(&b, "nowhere");
  w_i32(&b, NNS_DT_BOOL);
  w_i32(&b, 0);
  w_i64(&b, 1);
  w(&b, causal, 1);
  CHECK_EQ(build_packed(b.p, b.n, 0, &m, &err), NNS_E_NOTFOUND);
  CHECK(strstr(err.message, "nowhere") != NULL);
  b.n = data_at;
  w_u8(&b, 24);
  w_str(&b, "m");
  w_i32(&b, NNS_DT_BOOL);
  w_i32(&b, 1);
  w_i64(&b, 16);
  w_i64(&b, 3);
  w(&b, causal, 3);
  CHECK_EQ(build_packed(b.p, b.n, 0, &m, &err), NNS_E_ARG);
}

/* The fuzz seeds (recorded graphs: they build) and every buffer a fuzzer
 * found failing (regress-*.nnsp: a status each, nothing else). */
static void test_fuzz_files(void) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/fuzz/seeds/fuzz_packed", check_dir());
  DIR *d = opendir(dir);
  if (!d) {
    check_fail(__FILE__, __LINE__, "cannot open %s", dir);
    return;
  }
  int seeds = 0, regressions = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 5, ".nnsp") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    unsigned char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
      fclose(f);
    nns_model *m = NULL;
    nns_analysis *a = NULL;
    nns_error err;
    nns_status st = build_packed(buf, n, 1, &m, &err);
    if (st == NNS_OK) {
      (void)nns_model_infer(m, NULL, &err);
      (void)nns_model_analyze(m, NULL, &a, &err);
    }
    nns_analysis_free(a);
    nns_model_free(m);
    if (!strncmp(e->d_name, "regress-", 8)) {
      regressions++;
    } else {
      seeds++;
      if (st != NNS_OK)
        check_fail(__FILE__, __LINE__, "%s: %s", e->d_name, err.message);
    }
  }
  closedir(d);
  CHECK(seeds >= 3);
  CHECK(regressions >= 1);
}

/* Empty lists: no values is NULL for the calls (the first fuzz finding
 * was a memcpy to NULL for an empty ints attribute). */
static void test_empty_lists(void) {
  wbuf b;
  w_head(&b);
  w_input_x(&b);
  w_relu(&b);
  w_u8(&b, 14); /* attr_ints "a", none */
  w_str(&b, "a");
  w_u32(&b, 0);
  w_u8(&b, 15); /* attr_floats "f", none */
  w_str(&b, "f");
  w_u32(&b, 0);
  w_u8(&b, 16); /* attr_strings "s", none */
  w_str(&b, "s");
  w_u32(&b, 0);
  nns_error err;
  nns_builder *bu = NULL;
  CHECK_EQ(nns_builder_new(&bu, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_packed(bu, b.p, b.n, &err), NNS_OK);
  nns_builder_free(bu);
}

/* input name: float [1, 2, 4, 4] (scores-shaped) */
static void w_input_scores(wbuf *b, const char *name) {
  w_u8(b, 6);
  w_str(b, name);
  w_i32(b, NNS_DT_FLOAT);
  w_i32(b, 4);
  w_i64(b, 1);
  w_i64(b, 2);
  w_i64(b, 4);
  w_i64(b, 4);
  w_u8(b, 0);
}
/* node Transpose in -> out swapping the last two of four axes */
static void w_swap(wbuf *b, const char *in, const char *out) {
  w_node(b, "Transpose", 1, (const char *[]){in}, out);
  w_u8(b, 14);
  w_str(b, "perm");
  w_u32(b, 4);
  w_i64(b, 0);
  w_i64(b, 1);
  w_i64(b, 3);
  w_i64(b, 2);
}
static void w_output(wbuf *b, const char *name) {
  w_u8(b, 7);
  w_str(b, name);
  w_i32(b, 0);
  w_i32(b, -1);
  w_u8(b, 0);
}

/* nns_analyze_options.forward: a backward graph's four attention products
 * (dV = P^T.dO, dP = dO.V^T, dQ = dS.K, dK = dS^T.Q, in the forward's
 * module) count only the pairs the forward's mask allows. The mask is
 * causal with key 3 masked for every query, so per head 9 of 16 pairs,
 * every query row has a key (4) but key 3 has no query (3 columns): the
 * sums over queries (dV, dK) and over keys (dQ) differ. By hand, with
 * E = Ev = 2 and 2 heads (18 of 32 pairs): MACs 2 (E + Ev) (32 - 18) =
 * 112 fewer; FLOPs, the MatMul rule M N (2K - 1) per product against its
 * allowed pairs: dP 32*3 - 18*3 = 42, dV and dK 112 - 2 (2*18 - 6) = 52
 * each, dQ 112 - 2 (2*18 - 8) = 56: 202 fewer. */
static void test_backward_unmasked(void) {
  wbuf b;
  nns_error err;
  unsigned char keep[16];
  for (int i = 0; i < 16; i++)
    keep[i] = i % 4 <= i / 4 && i % 4 != 3;
  /* the forward, as test_value_data's, with this mask */
  w_head(&b);
  w_u8(&b, 4);
  w_str(&b, "");
  w_i64(&b, 17);
  w_input4(&b, "q", NNS_DT_FLOAT);
  w_input4(&b, "k", NNS_DT_FLOAT);
  w_input4(&b, "v", NNS_DT_FLOAT);
  w_input4(&b, "cond", NNS_DT_BOOL);
  w_u8(&b, 9);
  w_str(&b, "ninf");
  w_i32(&b, NNS_DT_FLOAT);
  w_i32(&b, 0);
  float ninf = -INFINITY;
  w_i64(&b, 4);
  w(&b, &ninf, 4);
  w_node(&b, "Identity", 1, (const char *[]){"cond"}, "m");
  w_swap(&b, "k", "kt");
  w_node(&b, "MatMul", 2, (const char *[]){"q", "kt"}, "s");
  w_node(&b, "Where", 3, (const char *[]){"m", "s", "ninf"}, "sm");
  w_node(&b, "Softmax", 1, (const char *[]){"sm"}, "p");
  w_node(&b, "MatMul", 2, (const char *[]){"p", "v"}, "y");
  w_output(&b, "y");
  w_u8(&b, 24);
  w_str(&b, "m");
  w_i32(&b, NNS_DT_BOOL);
  w_i32(&b, 2);
  w_i64(&b, 4);
  w_i64(&b, 4);
  w_i64(&b, 16);
  w(&b, keep, 16);
  nns_model *fm = NULL, *bm = NULL;
  CHECK_EQ(build_packed(b.p, b.n, 0, &fm, &err), NNS_OK);
  /* the backward */
  w_head(&b);
  w_u8(&b, 4);
  w_str(&b, "");
  w_i64(&b, 17);
  w_input4(&b, "q", NNS_DT_FLOAT);
  w_input4(&b, "k", NNS_DT_FLOAT);
  w_input4(&b, "v", NNS_DT_FLOAT);
  w_input4(&b, "dO", NNS_DT_FLOAT);
  w_input_scores(&b, "P");
  w_input_scores(&b, "dS");
  w_swap(&b, "P", "Pt");
  w_node(&b, "MatMul", 2, (const char *[]){"Pt", "dO"}, "dV");
  w_swap(&b, "v", "vt");
  w_node(&b, "MatMul", 2, (const char *[]){"dO", "vt"}, "dP");
  w_node(&b, "MatMul", 2, (const char *[]){"dS", "k"}, "dQ");
  w_swap(&b, "dS", "dSt");
  w_node(&b, "MatMul", 2, (const char *[]){"dSt", "q"}, "dK");
  w_output(&b, "dV");
  w_output(&b, "dP");
  w_output(&b, "dQ");
  w_output(&b, "dK");
  CHECK_EQ(build_packed(b.p, b.n, 0, &bm, &err), NNS_OK);
  if (!fm || !bm) {
    nns_model_free(fm);
    nns_model_free(bm);
    return;
  }
  nns_analysis *fa = NULL, *ba = NULL, *dense = NULL;
  CHECK_EQ(nns_model_analyze(fm, NULL, &fa, &err), NNS_OK);
  nns_counts t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_total_counts(fa, &t), NNS_OK);
  CHECK_EQ(t.macs - t.macs_unmasked, (32 - 18) * (2 + 2));
  nns_analyze_options o = {.size = sizeof o, .forward = fa};
  CHECK_EQ(nns_model_analyze(bm, &o, &ba, &err), NNS_OK);
  CHECK_EQ(nns_analysis_total_counts(ba, &t), NNS_OK);
  CHECK_EQ(t.macs, 4 * 32 * 2);
  CHECK_EQ(t.macs - t.macs_unmasked, 2 * (2 + 2) * (32 - 18));
  CHECK_EQ(t.flops - t.flops_unmasked, 42 + 52 + 56 + 52);
  /* without the forward, or with an older options struct, dense */
  o.size = offsetof(nns_analyze_options, forward);
  CHECK_EQ(nns_model_analyze(bm, &o, &dense, &err), NNS_OK);
  CHECK_EQ(nns_analysis_total_counts(dense, &t), NNS_OK);
  CHECK_EQ(t.macs_unmasked, t.macs);
  CHECK_EQ(t.flops_unmasked, t.flops);
  nns_analysis_free(dense);
  nns_analysis_free(ba);
  nns_analysis_free(fa);
  nns_model_free(bm);
  nns_model_free(fm);
  /* Heads as wide as the sequence (E = Ev = L = S = 4): P^T.dO's operands
   * both have the scores' dims, two readings: dense. */
  w_head(&b);
  w_u8(&b, 4);
  w_str(&b, "");
  w_i64(&b, 17);
  w_input_scores(&b, "q");
  w_input_scores(&b, "k");
  w_input_scores(&b, "v");
  w_input4(&b, "cond", NNS_DT_BOOL);
  w_u8(&b, 9);
  w_str(&b, "ninf");
  w_i32(&b, NNS_DT_FLOAT);
  w_i32(&b, 0);
  w_i64(&b, 4);
  w(&b, &ninf, 4);
  w_node(&b, "Identity", 1, (const char *[]){"cond"}, "m");
  w_swap(&b, "k", "kt");
  w_node(&b, "MatMul", 2, (const char *[]){"q", "kt"}, "s");
  w_node(&b, "Where", 3, (const char *[]){"m", "s", "ninf"}, "sm");
  w_node(&b, "Softmax", 1, (const char *[]){"sm"}, "p");
  w_node(&b, "MatMul", 2, (const char *[]){"p", "v"}, "y");
  w_output(&b, "y");
  w_u8(&b, 24);
  w_str(&b, "m");
  w_i32(&b, NNS_DT_BOOL);
  w_i32(&b, 2);
  w_i64(&b, 4);
  w_i64(&b, 4);
  w_i64(&b, 16);
  w(&b, keep, 16);
  CHECK_EQ(build_packed(b.p, b.n, 0, &fm, &err), NNS_OK);
  w_head(&b);
  w_u8(&b, 4);
  w_str(&b, "");
  w_i64(&b, 17);
  w_input_scores(&b, "P");
  w_input_scores(&b, "dO");
  w_swap(&b, "P", "Pt");
  w_node(&b, "MatMul", 2, (const char *[]){"Pt", "dO"}, "dV");
  w_output(&b, "dV");
  CHECK_EQ(build_packed(b.p, b.n, 0, &bm, &err), NNS_OK);
  fa = ba = NULL;
  if (fm && bm) {
    CHECK_EQ(nns_model_analyze(fm, NULL, &fa, &err), NNS_OK);
    CHECK_EQ(nns_analysis_total_counts(fa, &t), NNS_OK);
    CHECK_EQ(t.macs - t.macs_unmasked, (32 - 18) * (4 + 4));
    o.size = sizeof o;
    o.forward = fa;
    CHECK_EQ(nns_model_analyze(bm, &o, &ba, &err), NNS_OK);
    CHECK_EQ(nns_analysis_total_counts(ba, &t), NNS_OK);
    CHECK_EQ(t.macs, 32 * 4);
    CHECK_EQ(t.macs_unmasked, t.macs);
  }
  nns_analysis_free(ba);
  nns_analysis_free(fa);
  nns_model_free(bm);
  nns_model_free(fm);
}

/* The kernel record (25): x [2, 3] float32 -> Relu -> y -> Neg -> z, the
 * two nodes one kernel. By hand: x read and z written, 24 bytes each; y
 * never leaves the kernel. Without the record, as two kernels: 96 bytes.
 * A record cut short, or one the call refuses, names itself. */
static void w_kernel_graph(wbuf *b, bool kernel) {
  w_head(b);
  w_input_x(b);
  w_relu(b);
  w_node(b, "Neg", 1, (const char *[]){"y"}, "z");
  if (kernel) {
    w_u8(b, 25);
    w_u32(b, 0);
    w_u32(b, 2);
  }
  w_output(b, "z");
}

static int64_t packed_bytes(const wbuf *b, size_t *kernel) {
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  CHECK_EQ(build_packed(b->p, b->n, 3, &m, &err), NNS_OK);
  nns_counts c = {.size = sizeof c};
  nns_node_info ni = {.size = sizeof ni};
  if (m) {
    CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
    CHECK_EQ(nns_analysis_total_counts(a, &c), NNS_OK);
    CHECK_EQ(nns_model_node(m, 1, &ni), NNS_OK);
  }
  *kernel = ni.kernel;
  nns_analysis_free(a);
  nns_model_free(m);
  return c.bytes;
}

static void test_kernel_record(void) {
  wbuf b;
  nns_error err;
  size_t kernel = 7;
  w_kernel_graph(&b, true);
  CHECK_EQ(packed_bytes(&b, &kernel), 48);
  CHECK_EQ(kernel, 0);
  w_kernel_graph(&b, false);
  CHECK_EQ(packed_bytes(&b, &kernel), 96);
  CHECK_EQ(kernel, (size_t)-1);

  w_head(&b);
  w_input_x(&b);
  w_relu(&b);
  size_t at = b.n;
  w_u8(&b, 25);
  w_u32(&b, 0);
  w(&b, "\2\0", 2);
  CHECK_EQ(one_bad(&b, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "record 2 (tag 25, kernel)") != NULL);
  CHECK(strstr(err.message, "past the end") != NULL);
  CHECK_EQ(err.offset, (int64_t)at);
  b.n = at;
  w_u8(&b, 25);
  w_u32(&b, 0);
  w_u32(&b, 2); /* one node so far */
  CHECK_EQ(one_bad(&b, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "packed record 2 (kernel)") != NULL);
  CHECK(strstr(err.message, "has 1") != NULL);
}

/* Module records 21, 26, 27, 28: a module "" (Net) holding "block"
 * (Block) and "head" (Head). By hand:
 *   block.w  float32 [4, 3]  trainable  12 elements, 48 bytes
 *   block.n  int64   []      buffer      1 element,   8 bytes
 *   head.w   = block.w (tied)            counted in head, once in ""
 *   head.f   bfloat16 [5]    frozen      5 elements, 10 bytes
 *   cls      float32 [2]     trainable   the root's own, 8 bytes
 * so "head" alone holds 12 trainable + 5 frozen (58 bytes), the whole
 * model 14 trainable, 5 frozen, 66 parameter bytes and 1 buffer element
 * of 8 bytes, in 4 tensors. */
static void w_module(wbuf *b, const char *path, const char *cls) {
  w_u8(b, 21);
  w_str(b, path);
  w_str(b, cls);
  w_i64(b, 1);
}
static void w_tensor(wbuf *b, const char *path, const char *tensor,
                     int bits, int rank, const int64_t *dims, int kind) {
  w_u8(b, 28);
  w_str(b, path);
  w_str(b, tensor);
  w_i32(b, bits);
  w_i32(b, rank);
  for (int k = 0; k < rank; k++)
    w_i64(b, dims[k]);
  w_i32(b, kind);
}

static void test_module_records(void) {
  wbuf b;
  nns_error err;
  w_head(&b);
  w_input_x(&b);
  w_relu(&b);
  w_output(&b, "y");
  w_module(&b, "", "Net");
  w_module(&b, "block", "Block");
  w_module(&b, "head", "Head");
  w_u8(&b, 26); /* call 0 of block */
  w_str(&b, "block");
  w_i64(&b, 0);
  w_str(&b, "{\"dtype\": \"float32\", \"shape\": [2, 3]}");
  w_u8(&b, 27); /* block: [2, 3] -> [2, 3]; head: none -> [7] */
  w_str(&b, "block");
  w_i32(&b, 2);
  w_i64(&b, 2);
  w_i64(&b, 3);
  w_i32(&b, 2);
  w_i64(&b, 2);
  w_i64(&b, 3);
  w_u8(&b, 27);
  w_str(&b, "head");
  w_i32(&b, -1);
  w_i32(&b, 1);
  w_i64(&b, 7);
  w_tensor(&b, "block", "block.w", 32, 2, (int64_t[]){4, 3},
           NNS_PARAM_TRAINABLE);
  w_tensor(&b, "block", "block.n", 64, 0, NULL, NNS_PARAM_BUFFER);
  w_tensor(&b, "head", "block.w", 32, 2, (int64_t[]){4, 3},
           NNS_PARAM_TRAINABLE);
  w_tensor(&b, "head", "head.f", 16, 1, (int64_t[]){5},
           NNS_PARAM_FROZEN);
  w_tensor(&b, "", "cls", 32, 1, (int64_t[]){2},
           NNS_PARAM_TRAINABLE);
  nns_model *m = NULL;
  CHECK_EQ(build_packed(b.p, b.n, 2, &m, &err), NNS_OK);
  if (!m)
    return;
  const char *got = NULL;
  CHECK_EQ(nns_model_module_call(m, "block", 0, &got), NNS_OK);
  CHECK_STR(got, "{\"dtype\": \"float32\", \"shape\": [2, 3]}");
  nns_module_info mi = {.size = sizeof mi};
  CHECK_EQ(nns_model_module(m, 2, &mi), NNS_OK);
  CHECK_STR(mi.path, "head");
  CHECK_EQ(mi.input_rank, -1);
  CHECK_EQ(mi.output_rank, 1);
  CHECK_EQ(mi.output_shape[0], 7);
  nns_module_held h = {.size = sizeof h};
  CHECK_EQ(nns_model_module_held(m, "head", 0, &h), NNS_OK);
  CHECK_EQ(h.trainable, 12);
  CHECK_EQ(h.frozen, 5);
  CHECK_EQ(h.param_bytes, 48 + 10);
  CHECK_EQ(h.buffers, 0);
  CHECK_EQ(h.tensors, 2);
  CHECK_EQ(nns_model_module_held(m, "", 0, &h), NNS_OK);
  CHECK_EQ(h.trainable, 2);
  CHECK_EQ(h.tensors, 1);
  CHECK_EQ(nns_model_module_held(m, "", 1, &h), NNS_OK);
  CHECK_EQ(h.trainable, 14);
  CHECK_EQ(h.frozen, 5);
  CHECK_EQ(h.param_bytes, 48 + 10 + 8);
  CHECK_EQ(h.buffers, 1);
  CHECK_EQ(h.buffer_bytes, 8);
  CHECK_EQ(h.tensors, 4);
  CHECK_EQ(nns_model_module_held(m, "block", 1, &h), NNS_OK);
  CHECK_EQ(h.trainable, 12);
  CHECK_EQ(h.buffers, 1);
  CHECK_EQ(nns_model_module_held(m, "bloc", 1, &h), NNS_E_NOTFOUND);
  nns_model_free(m);

  /* Refused: a module never declared, a constant, elements of no size;
   * each record names itself. */
  static const struct {
    int bits, kind;
    const char *path, *why;
  } bad[] = {
      {32, NNS_PARAM_TRAINABLE, "nowhere", "not declared"},
      {32, NNS_PARAM_CONSTANT, "", "is not trainable"},
      {0, NNS_PARAM_BUFFER, "", "bits per element"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    w_head(&b);
    w_input_x(&b);
    w_module(&b, "", "Net");
    w_tensor(&b, bad[k].path, "t", bad[k].bits, 1, (int64_t[]){2},
             bad[k].kind);
    CHECK(one_bad(&b, &err) != NNS_OK);
    CHECK(strstr(err.message, "packed record 2 (module_tensor)") != NULL);
    CHECK(strstr(err.message, bad[k].why) != NULL);
  }
  w_head(&b);
  w_input_x(&b);
  w_module(&b, "", "Net");
  w_u8(&b, 27);
  w_str(&b, "");
  w_i32(&b, 1); /* a rank, then the buffer ends */
  CHECK_EQ(one_bad(&b, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "(tag 27, module_shapes)") != NULL);
}

/* Record 31, observed_shape, after x [2, 3] and y = Relu(x): held against
 * inference by nns_model_shape_mismatches. y as seen ([2, 3]) agrees; y
 * given again as [3, 2] (the later record stands beside the first: both
 * are checked), "nowhere" (no such value) and x as [2, 3, 1] differ, in
 * the order given. Before inference nothing agrees. */
static void w_observed(wbuf *b, const char *name, int rank,
                       const int64_t *dims) {
  w_u8(b, 31);
  w_str(b, name);
  w_i32(b, rank);
  for (int k = 0; k < rank; k++)
    w_i64(b, dims[k]);
}

static void test_observed_shape(void) {
  wbuf b;
  nns_error err;
  const int64_t same[] = {2, 3}, swapped[] = {3, 2}, more[] = {2, 3, 1};
  w_head(&b);
  w_input_x(&b);
  w_relu(&b);
  w_observed(&b, "y", 2, same);
  w_observed(&b, "y", 2, swapped);
  w_observed(&b, "nowhere", 2, same);
  w_observed(&b, "x", 3, more);
  nns_model *m = NULL;
  CHECK_EQ(build_packed(b.p, b.n, 1, &m, &err), NNS_OK);
  const char *names[8];
  size_t n = 99;
  CHECK_EQ(nns_model_shape_mismatches(m, NULL, 0, &n, &err), NNS_OK);
  CHECK_EQ(n, 4); /* not inferred yet */
  CHECK_EQ(nns_model_infer(m, NULL, &err), NNS_OK);
  CHECK_EQ(nns_model_shape_mismatches(m, names, 8, &n, &err), NNS_OK);
  CHECK_EQ(n, 3);
  CHECK_STR(names[0], "y");
  CHECK_STR(names[1], "nowhere");
  CHECK_STR(names[2], "x");
  CHECK_EQ(nns_model_shape_mismatches(m, names, 1, &n, &err), NNS_OK);
  CHECK_EQ(n, 3); /* the count whatever the room */
  CHECK_EQ(nns_model_shape_mismatches(m, NULL, 1, &n, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_shape_mismatches(NULL, NULL, 0, &n, &err), NNS_E_ARG);
  CHECK_EQ(nns_model_shape_mismatches(m, NULL, 0, NULL, &err), NNS_E_ARG);
  nns_model_free(m);

  /* refused: a negative size, a rank of -1, a record cut short */
  const int64_t negative[] = {2, -1};
  size_t at;
  w_head(&b);
  w_input_x(&b);
  w_relu(&b);
  at = b.n;
  w_observed(&b, "y", 2, negative);
  CHECK_EQ(one_bad(&b, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "negative") != NULL);
  b.n = at;
  w_observed(&b, "y", -1, NULL);
  CHECK_EQ(one_bad(&b, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "observed shape of 'y'") != NULL);
  b.n = at;
  w_observed(&b, "y", 2, same);
  b.n -= 4;
  CHECK_EQ(one_bad(&b, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "observed_shape") != NULL);
  CHECK_EQ(err.offset, (int64_t)at);
}

int main(void) {
  RUN(test_resnet18);
  RUN(test_vit);
  RUN(test_truncations);
  RUN(test_corruptions);
  RUN(test_malformed);
  RUN(test_refused_record);
  RUN(test_module_and_param_kind);
  RUN(test_value_data);
  RUN(test_backward_unmasked);
  RUN(test_empty_lists);
  RUN(test_kernel_record);
  RUN(test_module_records);
  RUN(test_observed_shape);
  RUN(test_fuzz_files);
  return check_finish();
}
