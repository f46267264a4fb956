/*
 * test_load.c - the ONNX loader on hand-encoded models: every field of a
 * tiny model, initializer storage kinds and their decoding, external data,
 * subgraph scoping, name errors, hostile locations, and a real model cut at
 * every offset and mutated thousands of times (which must never crash).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "pbenc.h"

#include "ir/ir.h"
#include "testmodel.h"

/* ==== Helpers ==== */

static const char *const X[] = {"X"}, *const Y[] = {"Y"}, *const W[] = {"W"};

static nns_model *load_ok(const pb *b, const nns_load_options *opts) {
  nns_model *m = NULL;
  nns_error e;
  nns_status st = nns_model_load_memory(b->d, b->n, opts, &m, &e);
  if (st != NNS_OK)
    fprintf(stderr, "  load: %s: %s\n", nns_status_name(st), e.message);
  CHECK_EQ(st, NNS_OK);
  return m;
}

static nns_status load_err(const pb *b, const nns_load_options *opts,
                           nns_error *e) {
  nns_model *m = NULL;
  nns_status st = nns_model_load_memory(b->d, b->n, opts, &m, e);
  CHECK((st == NNS_OK) == (m != NULL));
  nns_model_free(m);
  return st;
}

/* Model bytes must outlive their model (loading is zero-copy): buffers
 * handed to keep() are freed when the test program ends. */
static pb kept[256];
static size_t n_kept;
static void keep(pb *b) {
  if (n_kept < sizeof kept / sizeof kept[0]) {
    kept[n_kept++] = *b;
    memset(b, 0, sizeof *b);
  }
}
static void free_kept(void) {
  for (size_t i = 0; i < n_kept; i++)
    pb_free(&kept[i]);
  n_kept = 0;
}

static const char *sym_name(nns_model *m, nns__dim d) {
  const nns__symbol *s = d.sym ? nns__sym_get(m, d.sym) : NULL;
  return s ? s->name : NULL;
}

/* A temporary folder for external data, removed by rm_tmp. */
static char tmp_dir[64];
static void mk_tmp(void) {
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/nns_test_load_XXXXXX");
  CHECK(mkdtemp(tmp_dir) != NULL);
}
static void write_file(const char *name, const void *data, size_t n) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f) {
    fwrite(data, 1, n, f);
    fclose(f);
  }
}
static void rm_tmp(const char *const *names, int n) {
  char path[256];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", tmp_dir, names[i]);
    unlink(path);
  }
  rmdir(tmp_dir);
}

/* ==== A tiny model, every field ==== */

static void test_relu_model(void) {
  pb graph = {0}, model = {0}, attrs = {0};
  int64_t dims[] = {-1, 3, -1};
  const char *params[] = {"N", NULL, NULL};
  pb_str(&graph, 2, "tiny");
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, 3, dims, params);
  pb_value_info(&graph, 12, "Y", NNS_DT_FLOAT, 3, dims, params);
  pb_str(&attrs, 7, "ai.onnx"); /* NodeProto.domain */
  size_t n_at = pb_node(&graph, "Relu", "relu1", X, 1, Y, 1, &attrs);
  pb_str(&graph, 10, "the graph's doc");

  pb_int(&model, 1, 8);
  pb_str(&model, 2, "pbenc");
  pb_str(&model, 3, "1.2");
  pb_str(&model, 4, "org.test");
  pb_int(&model, 5, 7);
  pb_str(&model, 6, "a model doc");
  size_t g_at = pb_msg(&model, 7, &graph);
  pb op = {0}, meta = {0};
  pb_str(&op, 1, "ai.onnx");
  pb_int(&op, 2, 13);
  pb_msg(&model, 8, &op);
  pb_str(&op, 1, "com.microsoft");
  pb_int(&op, 2, 1);
  pb_msg(&model, 8, &op);
  pb_str(&meta, 1, "author");
  pb_str(&meta, 2, "me");
  pb_msg(&model, 14, &meta);

  nns_model *m = load_ok(&model, NULL);
  if (!m)
    return;
  CHECK_EQ(m->ir_version, 8);
  CHECK_STR(m->producer_name, "pbenc");
  CHECK_STR(m->producer_version, "1.2");
  CHECK_STR(m->domain, "org.test");
  CHECK_EQ(m->model_version, 7);
  CHECK_STR(m->doc, "a model doc");
  CHECK_EQ(m->n_opsets, 2);
  CHECK_STR(m->opset_domains[0], "");
  CHECK_EQ(m->opset_versions[0], 13);
  CHECK_STR(m->opset_domains[1], "com.microsoft");
  CHECK_EQ(nns__model_opset(m, nns__intern_cstr(&m->strings, "")), 13);
  CHECK_EQ(m->n_meta, 1);
  CHECK_STR(m->meta_keys[0], "author");
  CHECK_STR(m->meta_values[0], "me");
  CHECK_STR(m->dir, ".");

  nns__graph *g = m->graph;
  CHECK_STR(g->name, "tiny");
  CHECK_EQ(g->depth, 0);
  CHECK(g->parent == NULL && g->owner == NULL);
  CHECK_EQ(g->offset, (int64_t)g_at);
  CHECK_EQ(g->n_nodes, 1);
  CHECK_EQ(g->n_inputs, 1);
  CHECK_EQ(g->n_outputs, 1);
  CHECK_EQ(g->n_inits, 0);
  CHECK_EQ(m->subgraph_nodes, 0);

  nns__node *n = &g->nodes[0];
  CHECK_STR(n->name, "relu1");
  CHECK_STR(n->op_type, "Relu");
  CHECK_STR(n->domain, "");
  CHECK(n->domain == nns__intern_cstr(&m->strings, ""));
  CHECK_EQ(n->opset, 13);
  CHECK_EQ(n->offset, (int64_t)(g_at + n_at));
  CHECK(n->graph == g);
  CHECK_EQ(n->n_in, 1);
  CHECK_EQ(n->n_out, 1);
  CHECK_EQ(n->n_attrs, 0);

  nns__value *x = g->inputs[0], *y = g->outputs[0];
  CHECK_STR(x->name, "X");
  CHECK(n->in[0] == x);
  CHECK(n->out[0] == y);
  CHECK(y->producer == n);
  CHECK(x->producer == NULL);
  CHECK_EQ(x->role, NNS_ROLE_INPUT);
  CHECK(x->is_graph_input && !x->is_graph_output);
  CHECK_EQ(y->role, NNS_ROLE_OUTPUT);
  CHECK(y->is_graph_output);
  CHECK(x->graph == g && y->graph == g);
  /* Inputs: the declared type is also the starting type. */
  CHECK(x->declared != NULL);
  CHECK_EQ(x->type.kind, NNS_KIND_TENSOR);
  CHECK_EQ(x->type.dtype, NNS_DT_FLOAT);
  CHECK_EQ(x->type.rank, 3);
  CHECK(x->type.dims != x->declared->dims);
  CHECK_STR(sym_name(m, x->type.dims[0]), "N");
  CHECK(nns__dim_is_known(x->type.dims[1]));
  CHECK_EQ(x->type.dims[1].v, 3);
  CHECK(x->type.dims[2].sym != 0);
  /* An input's dim with neither value nor name is named after the input
   * and axis, so a user can fix it (--input X_dim2=N). */
  CHECK_STR(sym_name(m, x->type.dims[2]), "X_dim2");
  /* The same name is the same symbol everywhere; anonymous ones differ. */
  CHECK_EQ(y->declared->dims[0].sym, x->type.dims[0].sym);
  CHECK(y->declared->dims[2].sym != x->type.dims[2].sym);
  /* Outputs: declared only. */
  CHECK(y->declared != NULL);
  CHECK_EQ(y->type.rank, -1);
  CHECK_EQ(y->declared->rank, 3);

  CHECK_EQ(m->n_values, 2);
  CHECK(m->values[0] == x && m->values[1] == y);
  CHECK_EQ(x->index, 0);
  CHECK_EQ(y->index, 1);
  CHECK(nns__map_get(&g->scope, x->name) == x);

  nns_model_info info = {.size = sizeof info};
  nns_model_get_info(m, &info);
  CHECK_EQ(info.node_count, 1);
  CHECK_STR(info.graph_name, "tiny");
  nns_model_free(m);
  pb_free(&model);
}

static void test_empty_and_no_graph(void) {
  nns_error e;
  nns_model *m = (nns_model *)1;
  CHECK_EQ(nns_model_load_memory("", 0, NULL, &m, &e), NNS_E_MODEL);
  CHECK(m == NULL);
  CHECK(strstr(e.message, "no graph") != NULL);
  pb b = {0};
  pb_int(&b, 1, 8);
  CHECK_EQ(load_err(&b, NULL, &e), NNS_E_MODEL);
  CHECK(strstr(e.message, "no graph") != NULL);
  pb_free(&b);
  CHECK_EQ(nns_model_load_memory(NULL, 4, NULL, &m, &e), NNS_E_ARG);
  CHECK_EQ(nns_model_load_file("/nonexistent/model.onnx", NULL, &m, &e),
           NNS_E_IO);
  CHECK(m == NULL);
}

/* ==== Initializers ==== */

/* Model: Identity(W) -> Y with initializer `tensor` (named W). */
static nns_model *init_model(pb *tensor, const nns_load_options *opts) {
  pb graph = {0}, model = {0};
  pb_msg(&graph, 5, tensor);
  pb_node(&graph, "Identity", "id", W, 1, Y, 1, NULL);
  pb_value_info(&graph, 12, "Y", -1, 0, NULL, NULL);
  pb_model(&model, &graph, 13);
  nns_model *m = load_ok(&model, opts);
  keep(&model);
  return m;
}

static nns__tensor *the_init(nns_model *m) {
  if (!m || m->graph->n_inits != 1)
    return NULL;
  nns__value *v = m->graph->inits[0];
  CHECK(v->init != NULL);
  CHECK_EQ(v->role, NNS_ROLE_INITIALIZER);
  CHECK(m->graph->nodes[0].in[0] == v);
  return v->init;
}

static void tensor_head(pb *t, int dtype, int rank, const int64_t *dims) {
  for (int i = 0; i < rank; i++)
    pb_int(t, 1, (uint64_t)dims[i]);
  pb_int(t, 2, (uint64_t)dtype);
  pb_str(t, 8, "W");
}

static void test_init_raw(void) {
  pb t = {0};
  int64_t dims[] = {2, 2};
  float vals[] = {1, 2, 3, -4};
  tensor_head(&t, NNS_DT_FLOAT, 2, dims);
  size_t raw_at = pb_bytes(&t, 9, vals, sizeof vals);
  (void)raw_at;
  nns_model *m = init_model(&t, NULL);
  nns__tensor *w = the_init(m);
  if (!w)
    return;
  CHECK_EQ(w->storage, NNS__ST_RAW);
  CHECK_EQ(w->rank, 2);
  CHECK_EQ(w->dims[0], 2);
  CHECK_EQ(w->numel, 4);
  CHECK_EQ(w->raw_len, 16);
  /* Zero-copy: raw points into the caller's buffer. */
  CHECK(w->raw >= m->data && w->raw + w->raw_len <= m->data + m->size);
  nns__value *v = m->graph->inits[0];
  CHECK_EQ(v->type.rank, 2);
  CHECK_EQ(v->type.dims[1].v, 2);
  CHECK_EQ(v->type.dtype, NNS_DT_FLOAT);
  CHECK_EQ(m->n_values, 2);
  nns__const c;
  nns_error e;
  CHECK_EQ(nns__tensor_decode(m, w, 100, &c, &e), NNS_OK);
  CHECK_EQ(c.numel, 4);
  CHECK(c.f && c.f[0] == 1 && c.f[3] == -4);
  CHECK_EQ(nns__tensor_decode(m, w, 3, &c, &e), NNS_E_LIMIT);
  nns_model_free(m);
}

static void test_init_float_data(void) {
  int64_t dims[] = {3};
  for (int packed = 0; packed < 2; packed++) {
    pb t = {0};
    tensor_head(&t, NNS_DT_FLOAT, 1, dims);
    if (packed) {
      float vals[] = {0.5f, -1.5f, 8};
      pb_bytes(&t, 4, vals, sizeof vals);
    } else {
      pb_f32(&t, 4, 0.5f);
      pb_f32(&t, 4, -1.5f);
      pb_f32(&t, 4, 8);
    }
    nns_model *m = init_model(&t, NULL);
    nns__tensor *w = the_init(m);
    if (!w)
      continue;
    CHECK_EQ(w->storage, packed ? NNS__ST_PACKED : NNS__ST_DECODED);
    if (packed)
      CHECK_EQ(w->packing, NNS__PK_FIXED32);
    CHECK(!w->int32_units);
    nns__const c;
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, NULL), NNS_OK);
    CHECK(c.f && c.f[0] == 0.5 && c.f[1] == -1.5 && c.f[2] == 8);
    nns_model_free(m);
  }
}

static void test_init_int64_data(void) {
  int64_t dims[] = {3};
  int64_t vals[] = {-1, 5, (int64_t)1 << 40};
  /* 0: unpacked, 1: packed, 2: a packed chunk and an unpacked element. */
  for (int packed = 0; packed < 3; packed++) {
    pb t = {0};
    tensor_head(&t, NNS_DT_INT64, 1, dims);
    if (packed) {
      pb p = {0};
      for (int i = 0; i < (packed == 1 ? 3 : 2); i++)
        pb_varint(&p, (uint64_t)vals[i]);
      pb_msg(&t, 7, &p);
      if (packed == 2)
        pb_int(&t, 7, (uint64_t)vals[2]);
    } else {
      for (int i = 0; i < 3; i++)
        pb_int(&t, 7, (uint64_t)vals[i]);
    }
    nns_model *m = init_model(&t, NULL);
    nns__tensor *w = the_init(m);
    if (!w)
      continue;
    CHECK_EQ(w->storage, packed == 1 ? NNS__ST_PACKED : NNS__ST_DECODED);
    nns__const c;
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, NULL), NNS_OK);
    CHECK(c.i != NULL);
    for (int i = 0; c.i && i < 3; i++) {
      CHECK_EQ(c.i[i].v, vals[i]);
      CHECK_EQ(c.i[i].sym, 0);
    }
    nns_model_free(m);
  }
}

/* Decodes a 1-D tensor of `dtype` given as raw bytes; returns its const. */
static nns__const decode_raw(nns_model **mp, int dtype, int64_t n,
                             const void *raw, size_t raw_len) {
  pb t = {0};
  tensor_head(&t, dtype, 1, &n);
  pb_bytes(&t, 9, raw, raw_len);
  nns__const c;
  memset(&c, 0, sizeof c);
  *mp = init_model(&t, NULL);
  nns__tensor *w = the_init(*mp);
  if (w)
    CHECK_EQ(nns__tensor_decode(*mp, w, 100, &c, NULL), NNS_OK);
  return c;
}

static void test_dtypes(void) {
  nns_model *m;
  nns__const c;
  static const uint8_t f16[] = {0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00,
                                0x7c};
  c = decode_raw(&m, NNS_DT_FLOAT16, 4, f16, sizeof f16);
  if (c.f) {
    CHECK(c.f[0] == 1.0 && c.f[1] == -2.0);
    CHECK(c.f[2] == ldexp(1, -24)); /* smallest subnormal */
    CHECK(isinf(c.f[3]));
  }
  nns_model_free(m);
  static const uint8_t bf16[] = {0x80, 0x3f, 0x40, 0xc0};
  c = decode_raw(&m, NNS_DT_BFLOAT16, 2, bf16, sizeof bf16);
  CHECK(c.f && c.f[0] == 1.0 && c.f[1] == -3.0);
  nns_model_free(m);
  static const uint8_t e4m3[] = {0x38, 0xc0, 0x7f, 0x7e, 0x01};
  c = decode_raw(&m, NNS_DT_FLOAT8E4M3FN, 5, e4m3, sizeof e4m3);
  if (c.f) {
    CHECK(c.f[0] == 1.0 && c.f[1] == -2.0 && isnan(c.f[2]));
    CHECK(c.f[3] == 448.0 && c.f[4] == ldexp(1, -9));
  }
  nns_model_free(m);
  static const uint8_t e4m3uz[] = {0x40, 0x80, 0x00};
  c = decode_raw(&m, NNS_DT_FLOAT8E4M3FNUZ, 3, e4m3uz, sizeof e4m3uz);
  CHECK(c.f && c.f[0] == 1.0 && isnan(c.f[1]) && c.f[2] == 0);
  nns_model_free(m);
  static const uint8_t e5m2[] = {0x3c, 0x7c, 0x7d, 0xc0};
  c = decode_raw(&m, NNS_DT_FLOAT8E5M2, 4, e5m2, sizeof e5m2);
  CHECK(c.f && c.f[0] == 1.0 && isinf(c.f[1]) && isnan(c.f[2]) &&
        c.f[3] == -2.0);
  nns_model_free(m);
  static const uint8_t e5m2uz[] = {0x40, 0x80, 0x7f};
  c = decode_raw(&m, NNS_DT_FLOAT8E5M2FNUZ, 3, e5m2uz, sizeof e5m2uz);
  CHECK(c.f && c.f[0] == 1.0 && isnan(c.f[1]) && c.f[2] == 57344.0);
  nns_model_free(m);
  static const uint8_t i4[] = {0x21, 0x0f};
  c = decode_raw(&m, NNS_DT_INT4, 3, i4, sizeof i4);
  CHECK(c.i && c.i[0].v == 1 && c.i[1].v == 2 && c.i[2].v == -1);
  nns_model_free(m);
  c = decode_raw(&m, NNS_DT_UINT4, 3, i4, sizeof i4);
  CHECK(c.i && c.i[0].v == 1 && c.i[1].v == 2 && c.i[2].v == 15);
  nns_model_free(m);
  static const uint8_t i8[] = {0xff, 0x80, 0x7f};
  c = decode_raw(&m, NNS_DT_INT8, 3, i8, sizeof i8);
  CHECK(c.i && c.i[0].v == -1 && c.i[1].v == -128 && c.i[2].v == 127);
  nns_model_free(m);
  c = decode_raw(&m, NNS_DT_UINT8, 3, i8, sizeof i8);
  CHECK(c.i && c.i[0].v == 255);
  nns_model_free(m);
  static const uint8_t b[] = {0, 1, 2};
  c = decode_raw(&m, NNS_DT_BOOL, 3, b, sizeof b);
  CHECK(c.i && c.i[0].v == 0 && c.i[1].v == 1 && c.i[2].v == 1);
  nns_model_free(m);
  static const uint8_t i16[] = {0xfe, 0xff, 0x02, 0x01};
  c = decode_raw(&m, NNS_DT_INT16, 2, i16, sizeof i16);
  CHECK(c.i && c.i[0].v == -2 && c.i[1].v == 0x102);
  nns_model_free(m);
  double d[] = {2.5, -1e300};
  c = decode_raw(&m, NNS_DT_DOUBLE, 2, d, sizeof d);
  CHECK(c.f && c.f[0] == 2.5 && c.f[1] == -1e300);
  nns_model_free(m);

  /* float16 carried in int32_data as its bits; int4 two per int32. */
  int64_t two = 2, three = 3;
  pb t = {0};
  tensor_head(&t, NNS_DT_FLOAT16, 1, &two);
  pb_bytes(&t, 5, "\x80\x78\x80\x80\x03", 5); /* 0x3c00, 0xc000 */
  m = init_model(&t, NULL);
  nns__tensor *w = the_init(m);
  if (w) {
    CHECK_EQ(w->packing, NNS__PK_VARINT);
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, NULL), NNS_OK);
    CHECK(c.f && c.f[0] == 1.0 && c.f[1] == -2.0);
  }
  nns_model_free(m);
  tensor_head(&t, NNS_DT_INT4, 1, &three);
  pb_int(&t, 5, 0x21);
  pb_int(&t, 5, 0x0f);
  m = init_model(&t, NULL);
  w = the_init(m);
  if (w) {
    CHECK_EQ(w->storage, NNS__ST_DECODED);
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, NULL), NNS_OK);
    CHECK(c.i && c.i[0].v == 1 && c.i[1].v == 2 && c.i[2].v == -1);
  }
  nns_model_free(m);
  /* Negative int32 in int32_data (sign-extended to 10 bytes). */
  tensor_head(&t, NNS_DT_INT32, 1, &two);
  pb p = {0};
  pb_varint(&p, (uint64_t)(int64_t)-7);
  pb_varint(&p, 7);
  pb_msg(&t, 5, &p);
  m = init_model(&t, NULL);
  w = the_init(m);
  if (w) {
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, NULL), NNS_OK);
    CHECK(c.i && c.i[0].v == -7 && c.i[1].v == 7);
  }
  nns_model_free(m);
  /* Strings. */
  tensor_head(&t, NNS_DT_STRING, 1, &two);
  pb_str(&t, 6, "hello");
  pb_str(&t, 6, "");
  m = init_model(&t, NULL);
  w = the_init(m);
  if (w) {
    CHECK_EQ(w->packing, NNS__PK_STRING);
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, NULL), NNS_OK);
    CHECK(c.s != NULL);
    if (c.s) {
      CHECK_STR(c.s[0], "hello");
      CHECK_STR(c.s[1], "");
    }
  }
  nns_model_free(m);
  /* double_data packed. */
  tensor_head(&t, NNS_DT_DOUBLE, 1, &two);
  pb_bytes(&t, 10, d, sizeof d);
  m = init_model(&t, NULL);
  w = the_init(m);
  if (w) {
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, NULL), NNS_OK);
    CHECK(c.f && c.f[0] == 2.5 && c.f[1] == -1e300);
  }
  nns_model_free(m);

  CHECK_STR(nns_dtype_name(NNS_DT_FLOAT), "float32");
  CHECK_STR(nns_dtype_name(NNS_DT_INT4), "int4");
  CHECK_STR(nns_dtype_name(NNS_DT_FLOAT8E5M2FNUZ), "float8e5m2fnuz");
  CHECK_STR(nns_dtype_name(0), "unknown");
  CHECK_STR(nns_dtype_name(23), "float4e2m1");
  CHECK_STR(nns_dtype_name(27), "unknown");
  CHECK_STR(nns_dtype_name(-1), "unknown");
  CHECK_EQ(nns_dtype_bits(NNS_DT_INT4), 4);
  CHECK_EQ(nns_dtype_bits(NNS_DT_BOOL), 8);
  CHECK_EQ(nns_dtype_bits(NNS_DT_STRING), 0);
  CHECK_EQ(nns_dtype_bits(NNS_DT_COMPLEX128), 128);
  CHECK(nns__dtype_is_float(NNS_DT_BFLOAT16) && !nns__dtype_is_int(16));
  CHECK(nns__dtype_is_int(NNS_DT_BOOL) && !nns__dtype_is_float(9));
}

/* ==== External data ==== */

static void ext_tensor(pb *t, const char *location, const char *offset,
                       const char *length) {
  int64_t dims[] = {4};
  tensor_head(t, NNS_DT_FLOAT, 1, dims);
  const char *keys[] = {"location", "offset", "length"};
  const char *vals[] = {location, offset, length};
  for (int i = 0; i < 3; i++) {
    if (!vals[i])
      continue;
    pb kv = {0};
    pb_str(&kv, 1, keys[i]);
    pb_str(&kv, 2, vals[i]);
    pb_msg(t, 13, &kv);
  }
  pb_int(t, 14, 1);
}

static void test_external_missing(void) {
  mk_tmp();
  nns_load_options opts = {.size = sizeof opts, .external_dir = tmp_dir};
  pb t = {0};
  ext_tensor(&t, "weights.bin", "0", "16");
  nns_model *m = init_model(&t, &opts);
  nns__tensor *w = the_init(m);
  if (w) {
    CHECK_EQ(w->storage, NNS__ST_EXTERNAL);
    CHECK_STR(w->ext_location, "weights.bin");
    CHECK_EQ(w->ext_offset, 0);
    CHECK_EQ(w->ext_length, 16);
    CHECK_EQ(w->numel, 4);
    CHECK_EQ(m->graph->inits[0]->type.dims[0].v, 4);
    CHECK_STR(m->dir, tmp_dir);
    nns__const c;
    nns_error e;
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, &e), NNS_E_EXTERNAL);
    CHECK(strstr(e.message, "weights.bin") != NULL);
    CHECK(strstr(e.message, "'W'") != NULL);
  }
  nns_model_free(m);
  rm_tmp(NULL, 0);
}

static void test_external_present(void) {
  mk_tmp();
  float data[6] = {99, 99, 1.5f, 2.5f, -3, 4};
  write_file("w.bin", data, sizeof data);
  nns_load_options opts = {.size = sizeof opts, .external_dir = tmp_dir};
  nns__const c;
  nns_error e;

  pb t = {0};
  ext_tensor(&t, "w.bin", "8", "16");
  nns_model *m = init_model(&t, &opts);
  nns__tensor *w = the_init(m);
  if (w) {
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, &e), NNS_OK);
    CHECK(c.f && c.f[0] == 1.5f && c.f[1] == 2.5f && c.f[2] == -3 &&
          c.f[3] == 4);
  }
  nns_model_free(m);

  /* No length given: the dims say how much to read. */
  ext_tensor(&t, "w.bin", "8", NULL);
  m = init_model(&t, &opts);
  w = the_init(m);
  if (w) {
    CHECK_EQ(w->ext_length, -1);
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, &e), NNS_OK);
  }
  nns_model_free(m);

  /* Past the end of the file. */
  ext_tensor(&t, "w.bin", "16", "16");
  m = init_model(&t, &opts);
  w = the_init(m);
  if (w) {
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, &e), NNS_E_EXTERNAL);
    CHECK(strstr(e.message, "w.bin") != NULL);
  }
  nns_model_free(m);

  /* Loaded from a file: external data is next to the model. */
  pb graph = {0}, model = {0};
  ext_tensor(&t, "w.bin", "8", "16");
  pb_msg(&graph, 5, &t);
  pb_node(&graph, "Identity", "id", W, 1, Y, 1, NULL);
  pb_value_info(&graph, 12, "Y", -1, 0, NULL, NULL);
  pb_model(&model, &graph, 13);
  write_file("model.onnx", model.d, model.n);
  char path[128];
  snprintf(path, sizeof path, "%s/model.onnx", tmp_dir);
  m = NULL;
  CHECK_EQ(nns_model_load_file(path, NULL, &m, &e), NNS_OK);
  w = the_init(m);
  if (w) {
    CHECK_STR(m->dir, tmp_dir);
    CHECK(m->map.mapped);
    CHECK_EQ(nns__tensor_decode(m, w, 100, &c, &e), NNS_OK);
    CHECK(c.f && c.f[3] == 4);
  }
  nns_model_free(m);
  pb_free(&model);
  static const char *const files[] = {"w.bin", "model.onnx"};
  rm_tmp(files, 2);
}

/* NNS_LOAD_COPY: the library keeps its own copy, so the caller's buffer
 * may be wiped and freed at once; external data still comes from
 * external_dir (a memory load has no folder of its own). Under ASan and
 * valgrind any read of the freed buffer is an error. */
static void test_load_copy(void) {
  mk_tmp();
  float data[4] = {1.5f, 2.5f, -3, 4};
  write_file("c.bin", data, sizeof data);
  pb t = {0}, graph = {0}, model = {0};
  ext_tensor(&t, "c.bin", "0", "16");
  pb_msg(&graph, 5, &t);
  pb_node(&graph, "Identity", "id", W, 1, Y, 1, NULL);
  pb_value_info(&graph, 12, "Y", -1, 0, NULL, NULL);
  pb_model(&model, &graph, 13);
  unsigned char *buf = malloc(model.n);
  if (buf)
    memcpy(buf, model.d, model.n);
  nns_load_options opts = {.size = sizeof opts, .external_dir = tmp_dir,
                           .flags = NNS_LOAD_COPY};
  nns_model *m = NULL;
  nns_error e;
  CHECK_EQ(nns_model_load_memory(buf, model.n, &opts, &m, &e), NNS_OK);
  if (buf)
    memset(buf, 0, model.n);
  free(buf);
  if (m) {
    CHECK(m->data != buf);
    CHECK_EQ(nns_model_infer(m, NULL, &e), NNS_OK);
    EXPECT_SHAPE(m, "Y", NNS_DT_FLOAT, "4");
    nns__tensor *w = the_init(m);
    nns__const c;
    if (w) {
      CHECK_STR(w->name, "W");
      CHECK_EQ(nns__tensor_decode(m, w, 100, &c, &e), NNS_OK);
      CHECK(c.f && c.f[0] == 1.5f && c.f[3] == 4);
    }
  }
  nns_model_free(m);
  /* Without the flag the model reads the caller's buffer (no copy). */
  m = NULL;
  opts.flags = 0;
  CHECK_EQ(nns_model_load_memory(model.d, model.n, &opts, &m, &e), NNS_OK);
  if (m)
    CHECK(m->data == (const uint8_t *)model.d);
  nns_model_free(m);
  pb_free(&model);
  static const char *const files[] = {"c.bin"};
  rm_tmp(files, 1);
}

static void test_external_hostile(void) {
  static const char *const bad[] = {"../secret.bin", "/etc/passwd",
                                    "a/../../b",     "..",
                                    "x\\..\\y",      "C:\\w.bin",
                                    ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pb t = {0}, graph = {0}, model = {0};
    ext_tensor(&t, bad[i], "0", "16");
    pb_msg(&graph, 5, &t);
    pb_model(&model, &graph, 13);
    nns_error e;
    CHECK_EQ(load_err(&model, NULL, &e), NNS_E_EXTERNAL);
    CHECK(strstr(e.message, "'W'") != NULL);
    pb_free(&model);
  }
  /* Harmless ones: a subfolder, a name with dots. */
  static const char *const good[] = {"sub/w.bin", "w..bin", "./w.bin"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    pb t = {0};
    ext_tensor(&t, good[i], "0", "16");
    nns_model_free(init_model(&t, NULL));
  }
  /* Malformed numbers. */
  static const char *const nums[] = {"12x", "-1", "99999999999999999999",
                                     "9223372036854775808", ""};
  for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
    pb t = {0}, graph = {0}, model = {0};
    ext_tensor(&t, "w.bin", nums[i], NULL);
    pb_msg(&graph, 5, &t);
    pb_model(&model, &graph, 13);
    nns_error e;
    CHECK_EQ(load_err(&model, NULL, &e), NNS_E_EXTERNAL);
    pb_free(&model);
  }
  /* EXTERNAL without a location; a wrong length. */
  pb t = {0}, graph = {0}, model = {0};
  int64_t four = 4;
  tensor_head(&t, NNS_DT_FLOAT, 1, &four);
  pb_int(&t, 14, 1);
  pb_msg(&graph, 5, &t);
  pb_model(&model, &graph, 13);
  nns_error e;
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_EXTERNAL);
  pb_free(&model);
  ext_tensor(&t, "w.bin", "0", "15");
  pb_msg(&graph, 5, &t);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_MODEL);
  pb_free(&model);
}

/* ==== Scopes and names ==== */

/* Graph holding one node `op`(in...) -> out, with an output. */
static void sub_graph(pb *g, const char *op, const char *in0, const char *in1,
                      const char *out) {
  const char *ins[] = {in0, in1};
  pb_node(g, op, NULL, ins, in1 ? 2 : 1, &out, 1, NULL);
  pb_value_info(g, 12, out, NNS_DT_FLOAT, -1, NULL, NULL);
}

static void graph_attr(pb *attrs, const char *name, pb *g) {
  pb a = {0};
  pb_str(&a, 1, name);
  pb_msg(&a, 6, g);
  pb_int(&a, 20, NNS__AT_GRAPH);
  pb_msg(attrs, 5, &a);
}

static void test_if_subgraph(void) {
  pb graph = {0}, model = {0}, attrs = {0}, then_g = {0}, else_g = {0};
  pb_value_info(&graph, 11, "cond", NNS_DT_BOOL, 0, NULL, NULL);
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb t = {0};
  int64_t one = 1;
  float cval = 2;
  tensor_head(&t, NNS_DT_FLOAT, 1, &one);
  pb_bytes(&t, 9, &cval, 4);
  /* named C */
  pb tc = {0};
  pb_int(&tc, 1, 1);
  pb_int(&tc, 2, NNS_DT_FLOAT);
  pb_str(&tc, 8, "C");
  pb_bytes(&tc, 9, &cval, 4);
  pb_free(&t);
  pb_msg(&graph, 5, &tc);
  sub_graph(&then_g, "Add", "X", "C", "t1");
  /* The else branch uses "later", defined after the If in the main graph. */
  sub_graph(&else_g, "Mul", "X", "later", "e1");
  graph_attr(&attrs, "then_branch", &then_g);
  graph_attr(&attrs, "else_branch", &else_g);
  static const char *const cond[] = {"cond"}, *const r[] = {"r"},
                           *const later[] = {"later"};
  pb_node(&graph, "If", "if1", cond, 1, r, 1, &attrs);
  pb_node(&graph, "Relu", "relu", X, 1, later, 1, NULL);
  pb_value_info(&graph, 12, "r", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_model(&model, &graph, 13);
  nns_model *m = load_ok(&model, NULL);
  keep(&model);
  if (!m)
    return;
  nns__graph *g = m->graph;
  nns__node *nif = &g->nodes[0];
  CHECK_EQ(nif->n_attrs, 2);
  nns__graph *tg = nif->attrs[0].g, *eg = nif->attrs[1].g;
  CHECK(tg && eg);
  if (!tg || !eg)
    return;
  CHECK(tg->parent == g && tg->owner == nif && tg->depth == 1);
  CHECK(eg->parent == g && eg->owner == nif && eg->depth == 1);
  nns__value *x = nns__map_get(&g->scope, nns__intern_cstr(&m->strings, "X"));
  nns__value *c = nns__map_get(&g->scope, nns__intern_cstr(&m->strings, "C"));
  CHECK(tg->nodes[0].in[0] == x);
  CHECK(tg->nodes[0].in[1] == c);
  CHECK(eg->nodes[0].in[1] == g->nodes[1].out[0]);
  CHECK(tg->outputs[0] == tg->nodes[0].out[0]);
  CHECK(tg->outputs[0]->graph == tg);
  CHECK(tg->outputs[0]->is_graph_output);
  CHECK_EQ(m->subgraph_nodes, 2);
  CHECK(c->init != NULL && c->role == NNS_ROLE_INITIALIZER);
  /* Value order: inputs, initializers, If's output, then-branch values,
   * else-branch values, the Relu's output. */
  static const char *const order[] = {"cond", "X", "C", "r", "t1", "e1",
                                      "later"};
  CHECK_EQ(m->n_values, 7);
  for (size_t i = 0; i < m->n_values && i < 7; i++) {
    CHECK_STR(m->values[i]->name, order[i]);
    CHECK_EQ(m->values[i]->index, i);
  }
  nns_model_free(m);
}

static void test_dangling(void) {
  pb graph = {0}, model = {0};
  static const char *const nope[] = {"nope"};
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  size_t n_at = pb_node(&graph, "Relu", "bad_relu", nope, 1, Y, 1, NULL);
  size_t g_at = pb_model(&model, &graph, 13);
  nns_error e;
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_DANGLING);
  CHECK_STR(e.node, "bad_relu");
  CHECK_EQ(e.offset, (int64_t)(g_at + n_at));
  CHECK(strstr(e.message, "'nope'") != NULL);
  CHECK(strstr(e.message, "Relu") != NULL);
  pb_free(&model);

  /* In a subgraph, with no outer definition either. */
  pb attrs = {0}, body = {0};
  sub_graph(&body, "Neg", "ghost", NULL, "z");
  graph_attr(&attrs, "then_branch", &body);
  pb_value_info(&graph, 11, "X", NNS_DT_BOOL, 0, NULL, NULL);
  pb_node(&graph, "If", "if", X, 1, Y, 1, &attrs);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_DANGLING);
  CHECK(strstr(e.message, "'ghost'") != NULL);
  pb_free(&model);

  /* A graph output nothing produces. */
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_value_info(&graph, 12, "missing", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_DANGLING);
  CHECK(strstr(e.message, "'missing'") != NULL);
  pb_free(&model);

  /* Omitted optional inputs ("") are fine and stay NULL. */
  static const char *const opt[] = {"X", "", "X"};
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_node(&graph, "Clip", "clip", opt, 3, Y, 1, NULL);
  pb_model(&model, &graph, 13);
  nns_model *m = load_ok(&model, NULL);
  if (m) {
    CHECK(m->graph->nodes[0].in[1] == NULL);
    CHECK(m->graph->nodes[0].in[2] == m->graph->inputs[0]);
  }
  nns_model_free(m);
  pb_free(&model);
}

static void test_duplicates(void) {
  pb graph = {0}, model = {0};
  nns_error e;
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_node(&graph, "Relu", "first", X, 1, Y, 1, NULL);
  pb_node(&graph, "Neg", "second", X, 1, Y, 1, NULL);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_MODEL);
  CHECK(strstr(e.message, "'first'") && strstr(e.message, "'second'"));
  CHECK(strstr(e.message, "'Y'") != NULL);
  CHECK_STR(e.node, "second");
  pb_free(&model);

  /* A node output shadowing a graph input. */
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_node(&graph, "Relu", "r", X, 1, X, 1, NULL);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_MODEL);
  pb_free(&model);

  /* Two initializers of one name. */
  for (int i = 0; i < 2; i++) {
    pb t = {0};
    pb_int(&t, 2, NNS_DT_FLOAT);
    pb_str(&t, 8, "W");
    pb_bytes(&t, 9, "abcd", 4);
    pb_msg(&graph, 5, &t);
  }
  pb_model(&model, &graph, 13);
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_MODEL);
  pb_free(&model);

  /* Two graph inputs of one name. */
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_model(&model, &graph, 13);
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_MODEL);
  pb_free(&model);
}

static void test_init_as_input(void) {
  /* IR version 3 style: the weight is listed as a graph input too. */
  pb graph = {0}, model = {0}, t = {0};
  int64_t dims[] = {2};
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, 1, dims, NULL);
  pb_value_info(&graph, 11, "W", NNS_DT_FLOAT, 1, dims, NULL);
  tensor_head(&t, NNS_DT_FLOAT, 1, dims);
  pb_bytes(&t, 9, "abcdefgh", 8);
  pb_msg(&graph, 5, &t);
  static const char *const xw[] = {"X", "W"};
  pb_node(&graph, "Add", "add", xw, 2, Y, 1, NULL);
  pb_value_info(&graph, 12, "Y", NNS_DT_FLOAT, 1, dims, NULL);
  pb_model(&model, &graph, 13);
  nns_model *m = load_ok(&model, NULL);
  keep(&model);
  if (!m)
    return;
  nns__graph *g = m->graph;
  nns__value *w = g->inputs[1];
  CHECK(g->inits[0] == w);
  CHECK(w->init != NULL);
  CHECK(w->is_graph_input);
  CHECK_EQ(w->role, NNS_ROLE_INITIALIZER);
  CHECK(w->declared != NULL && w->declared->rank == 1);
  CHECK_EQ(w->type.dims[0].v, 2);
  CHECK(g->nodes[0].in[1] == w);
  CHECK_EQ(m->n_values, 3); /* X, W, Y: W once */
  CHECK_EQ(nns_model_input_count(m), 1);
  nns_model_free(m);
}

/* ==== Functions, attributes, types ==== */

static void test_function(void) {
  pb fn = {0}, graph = {0}, model = {0}, op = {0};
  pb_str(&fn, 1, "MyFn");
  pb_str(&fn, 10, "custom");
  pb_str(&fn, 4, "a");
  pb_str(&fn, 5, "b");
  pb_str(&fn, 6, "alpha");
  static const char *const a[] = {"a"}, *const mid[] = {"mid"},
                           *const b[] = {"b"};
  pb_node_at(&fn, 7, "Relu", NULL, a, 1, mid, 1, NULL);
  pb_node_at(&fn, 7, "Neg", NULL, mid, 1, b, 1, NULL);
  pb_str(&op, 1, "");
  pb_int(&op, 2, 15);
  pb_msg(&fn, 9, &op);
  pb attrs = {0};
  pb_str(&attrs, 7, "custom");
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_node(&graph, "MyFn", "call", X, 1, Y, 1, &attrs);
  pb_value_info(&graph, 12, "Y", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_model(&model, &graph, 13);
  pb_msg(&model, 25, &fn);
  nns_model *m = load_ok(&model, NULL);
  keep(&model);
  if (!m)
    return;
  CHECK_EQ(m->n_functions, 1);
  nns__function *f = &m->functions[0];
  CHECK_STR(f->name, "MyFn");
  CHECK_STR(f->domain, "custom");
  CHECK_EQ(f->n_attr_names, 1);
  CHECK_STR(f->attr_names[0], "alpha");
  CHECK_EQ(f->n_opsets, 1);
  nns__graph *body = f->body;
  CHECK(body->parent == NULL);
  CHECK_EQ(body->n_inputs, 1);
  CHECK_EQ(body->n_nodes, 2);
  CHECK(body->nodes[0].in[0] == body->inputs[0]);
  CHECK(body->nodes[1].in[0] == body->nodes[0].out[0]);
  CHECK(body->outputs[0] == body->nodes[1].out[0]);
  CHECK_EQ(body->nodes[0].opset, 15); /* the function's own import */
  CHECK_EQ(body->inputs[0]->index, UINT32_MAX);
  CHECK_EQ(body->inputs[0]->type.rank, -1);
  CHECK_EQ(m->n_values, 2); /* X, Y only */
  CHECK_STR(m->graph->nodes[0].domain, "custom");
  CHECK_EQ(m->graph->nodes[0].opset, -1);
  nns_model_free(m);

  /* A function output its body does not define. */
  pb_str(&fn, 1, "Broken");
  pb_str(&fn, 4, "a");
  pb_str(&fn, 5, "nowhere");
  pb_node_at(&fn, 7, "Relu", NULL, a, 1, mid, 1, NULL);
  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  pb_model(&model, &graph, 13);
  pb_msg(&model, 25, &fn);
  nns_error e;
  CHECK_EQ(load_err(&model, NULL, &e), NNS_E_DANGLING);
  pb_free(&model);
}

static void test_attributes(void) {
  pb graph = {0}, model = {0}, attrs = {0}, a = {0}, p = {0};
  /* ints, packed */
  pb_str(&a, 1, "pads");
  for (int i = 0; i < 4; i++)
    pb_varint(&p, (uint64_t)(int64_t)(i - 1));
  pb_msg(&a, 8, &p);
  pb_int(&a, 20, NNS__AT_INTS);
  pb_msg(&attrs, 5, &a);
  /* ints, unpacked, no type (old models) */
  pb_str(&a, 1, "strides");
  pb_int(&a, 8, 2);
  pb_int(&a, 8, 3);
  pb_msg(&attrs, 5, &a);
  /* floats, packed then unpacked */
  float fl[] = {0.5f, 1.5f};
  pb_str(&a, 1, "scales");
  pb_bytes(&a, 7, fl, sizeof fl);
  pb_f32(&a, 7, 4);
  pb_int(&a, 20, NNS__AT_FLOATS);
  pb_msg(&attrs, 5, &a);
  /* scalar int without type, float, string */
  pb_str(&a, 1, "group");
  pb_int(&a, 3, 4);
  pb_msg(&attrs, 5, &a);
  pb_str(&a, 1, "alpha");
  pb_f32(&a, 2, 0.25f);
  pb_int(&a, 20, NNS__AT_FLOAT);
  pb_msg(&attrs, 5, &a);
  pb_str(&a, 1, "mode");
  pb_str(&a, 4, "nearest");
  pb_int(&a, 20, NNS__AT_STRING);
  pb_msg(&attrs, 5, &a);
  /* strings */
  pb_str(&a, 1, "names");
  pb_str(&a, 9, "a");
  pb_str(&a, 9, "bc");
  pb_int(&a, 20, NNS__AT_STRINGS);
  pb_msg(&attrs, 5, &a);
  /* a tensor */
  pb t = {0};
  int64_t two = 2;
  pb_int(&t, 1, 2);
  pb_int(&t, 2, NNS_DT_INT64);
  pb_bytes(&t, 9, "\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0", 16);
  (void)two;
  pb_str(&a, 1, "value");
  pb_msg(&a, 5, &t);
  pb_int(&a, 20, NNS__AT_TENSOR);
  pb_msg(&attrs, 5, &a);
  /* a type proto */
  pb tp = {0};
  pb_tensor_type(&tp, NNS_DT_INT32, 0, NULL, NULL);
  pb_str(&a, 1, "type");
  pb_msg(&a, 14, &tp);
  pb_int(&a, 20, NNS__AT_TYPE_PROTO);
  pb_msg(&attrs, 5, &a);
  /* a ref_attr_name */
  pb_str(&a, 1, "ratio");
  pb_str(&a, 21, "outer_ratio");
  pb_int(&a, 20, NNS__AT_FLOAT);
  pb_msg(&attrs, 5, &a);

  pb_value_info(&graph, 11, "X", NNS_DT_FLOAT, -1, NULL, NULL);
  size_t n_at = pb_node(&graph, "Custom", "c", X, 1, Y, 1, &attrs);
  size_t g_at = pb_model(&model, &graph, 13);
  nns_model *m = load_ok(&model, NULL);
  keep(&model);
  if (!m)
    return;
  nns__node *n = &m->graph->nodes[0];
  CHECK_EQ(n->n_attrs, 10);
  if (n->n_attrs != 10) {
    nns_model_free(m);
    return;
  }
  nns__attr *at = n->attrs;
  CHECK_STR(at[0].name, "pads");
  CHECK_EQ(at[0].type, NNS__AT_INTS);
  CHECK_EQ(at[0].n, 4);
  CHECK(at[0].ints[0] == -1 && at[0].ints[3] == 2);
  CHECK(at[0].offset > (int64_t)(g_at + n_at));
  CHECK_EQ(at[1].type, NNS__AT_INTS);
  CHECK(at[1].n == 2 && at[1].ints[0] == 2 && at[1].ints[1] == 3);
  CHECK_EQ(at[2].type, NNS__AT_FLOATS);
  CHECK_EQ(at[2].n, 3);
  CHECK(at[2].floats[0] == 0.5 && at[2].floats[1] == 1.5 &&
        at[2].floats[2] == 4);
  CHECK_EQ(at[3].type, NNS__AT_INT);
  CHECK_EQ(at[3].i, 4);
  CHECK_EQ(at[4].type, NNS__AT_FLOAT);
  CHECK(at[4].f == 0.25);
  CHECK_EQ(at[5].type, NNS__AT_STRING);
  CHECK_STR(at[5].s, "nearest");
  CHECK_EQ(at[5].s_len, 7);
  CHECK_EQ(at[6].n, 2);
  CHECK_STR(at[6].strings[1], "bc");
  CHECK_EQ(at[7].type, NNS__AT_TENSOR);
  CHECK(at[7].t && at[7].t->numel == 2 && at[7].t->storage == NNS__ST_RAW);
  nns__const c;
  if (at[7].t && nns__tensor_decode(m, at[7].t, 10, &c, NULL) == NNS_OK)
    CHECK(c.i[0].v == 1 && c.i[1].v == 2);
  CHECK_EQ(at[8].type, NNS__AT_TYPE_PROTO);
  CHECK(at[8].tp && at[8].tp->dtype == NNS_DT_INT32 && at[8].tp->rank == 0);
  CHECK_STR(at[9].ref_attr_name, "outer_ratio");
  nns_model_free(m);
}

static void test_types(void) {
  pb graph = {0}, model = {0}, vi = {0}, type = {0}, seq = {0}, inner = {0};
  int64_t dims[] = {2};
  /* sequence(tensor(float, [2])) */
  pb_tensor_type(&inner, NNS_DT_FLOAT, 1, dims, NULL);
  pb_msg(&seq, 1, &inner);
  pb_msg(&type, 4, &seq);
  pb_str(&vi, 1, "S");
  pb_msg(&vi, 2, &type);
  pb_msg(&graph, 11, &vi);
  /* optional(tensor(int64, rank unknown)) */
  pb_tensor_type(&inner, NNS_DT_INT64, -1, NULL, NULL);
  pb_msg(&seq, 1, &inner);
  pb_msg(&type, 9, &seq);
  pb_str(&vi, 1, "O");
  pb_msg(&vi, 2, &type);
  pb_msg(&graph, 11, &vi);
  /* map(int64 -> tensor(float)) */
  pb mp = {0};
  pb_int(&mp, 1, NNS_DT_INT64);
  pb_tensor_type(&inner, NNS_DT_FLOAT, -1, NULL, NULL);
  pb_msg(&mp, 2, &inner);
  pb_msg(&type, 5, &mp);
  pb_str(&vi, 1, "M");
  pb_msg(&vi, 2, &type);
  pb_msg(&graph, 11, &vi);
  /* An input with no type of its own (value_info gives it one below). */
  pb_str(&vi, 1, "U");
  pb_msg(&graph, 11, &vi);
  /* value_info declares an intermediate. */
  static const char *const u[] = {"U"}, *const mid[] = {"mid"};
  pb_node(&graph, "Relu", "r", u, 1, mid, 1, NULL);
  pb_node(&graph, "Relu", "r2", mid, 1, Y, 1, NULL);
  const char *params[] = {"batch"};
  int64_t d1[] = {-1};
  pb_value_info(&graph, 13, "mid", NNS_DT_FLOAT, 1, d1, params);
  pb_value_info(&graph, 13, "not_in_graph", NNS_DT_FLOAT, 1, d1, params);
  /* value_info for an input without a type of its own; and for one with
   * a type, which it must not override. */
  pb_value_info(&graph, 13, "U", NNS_DT_FLOAT, 1, dims, NULL);
  pb_value_info(&graph, 13, "S", NNS_DT_INT8, 1, dims, NULL);
  pb_value_info(&graph, 12, "Y", NNS_DT_FLOAT, 1, d1, params);
  pb_model(&model, &graph, 13);
  nns_model *m = load_ok(&model, NULL);
  keep(&model);
  if (!m)
    return;
  nns__graph *g = m->graph;
  nns__value *s = g->inputs[0], *o = g->inputs[1], *mv = g->inputs[2],
             *uv = g->inputs[3];
  CHECK_EQ(s->type.kind, NNS_KIND_SEQUENCE);
  CHECK_EQ(s->type.elem_kind, NNS_KIND_TENSOR);
  CHECK_EQ(s->type.dtype, NNS_DT_FLOAT);
  CHECK_EQ(s->type.rank, 1);
  CHECK_EQ(s->type.dims[0].v, 2);
  CHECK_EQ(o->type.kind, NNS_KIND_OPTIONAL);
  CHECK_EQ(o->type.dtype, NNS_DT_INT64);
  CHECK_EQ(o->type.rank, -1);
  CHECK_EQ(mv->type.kind, NNS_KIND_MAP);
  CHECK_EQ(mv->type.dtype, NNS_DT_INT64);
  CHECK_EQ(mv->type.elem_kind, NNS_KIND_TENSOR);
  CHECK(uv->declared != NULL);
  CHECK_EQ(uv->type.kind, NNS_KIND_TENSOR);
  CHECK_EQ(uv->type.rank, 1);
  CHECK(uv->type.dims != uv->declared->dims);
  CHECK_EQ(s->declared->kind, NNS_KIND_SEQUENCE);
  nns__value *midv = g->nodes[0].out[0];
  CHECK(midv->declared != NULL);
  CHECK_EQ(midv->declared->rank, 1);
  CHECK_STR(sym_name(m, midv->declared->dims[0]), "batch");
  CHECK_EQ(midv->type.rank, -1);
  CHECK_EQ(g->n_value_info, 4);
  nns_model_free(m);
}

/* ==== Robustness on a real model ==== */

static uint8_t *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *d = malloc(size > 0 ? (size_t)size : 1);
  if (d && fread(d, 1, (size_t)size, f) != (size_t)size) {
    free(d);
    d = NULL;
  }
  fclose(f);
  *n = (size_t)size;
  return d;
}

#define TESTDATA "/usr/share/libonnx-testdata/data/node/"

static const char *const robust_models[] = {
    TESTDATA "test_conv_with_strides_padding/model.onnx",
    TESTDATA "test_if/model.onnx",
    TESTDATA "test_loop11/model.onnx",
    TESTDATA "test_sequence_map_identity_1_sequence/model.onnx",
};

static void test_truncated_everywhere(void) {
  for (size_t k = 0; k < sizeof robust_models / sizeof robust_models[0];
       k++) {
    size_t n;
    uint8_t *d = read_all(robust_models[k], &n);
    if (!d) {
      printf("  skipped: %s not found\n", robust_models[k]);
      continue;
    }
    int ok = 0;
    for (size_t cut = 0; cut <= n; cut++) {
      /* A fresh allocation of exactly `cut` bytes, so ASan sees any read
       * past the end. */
      uint8_t *part = malloc(cut ? cut : 1);
      memcpy(part, d, cut);
      nns_model *m = NULL;
      nns_error e;
      nns_status st = nns_model_load_memory(part, cut, NULL, &m, &e);
      CHECK((st == NNS_OK) == (m != NULL));
      if (st != NNS_OK) {
        CHECK_EQ(e.code, st);
        CHECK(e.offset >= -1 && e.offset <= (int64_t)cut);
        CHECK(e.message[0] != 0);
      }
      ok += st == NNS_OK;
      nns_model_free(m);
      free(part);
    }
    /* The whole model loads. Some cuts land between top-level fields and
     * load too; most do not. */
    CHECK(ok >= 1);
    free(d);
  }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void test_mutations(void) {
  static const uint8_t specials[] = {0x00, 0x01, 0x7f, 0x80, 0xff,
                                     0x0a, 0x12, 0x3a, 0x2a, 0x0f};
  for (size_t k = 0; k < sizeof robust_models / sizeof robust_models[0];
       k++) {
    size_t n;
    uint8_t *d = read_all(robust_models[k], &n);
    if (!d)
      continue;
    uint8_t *mut = malloc(n);
    for (int iter = 0; iter < 2000; iter++) {
      memcpy(mut, d, n);
      int flips = 1 + (int)(rng() % 4);
      for (int j = 0; j < flips; j++) {
        size_t at = (size_t)(rng() % n);
        switch (rng() % 3) {
        case 0:
          mut[at] ^= (uint8_t)(1u << (rng() % 8));
          break;
        case 1:
          mut[at] = (uint8_t)rng();
          break;
        default:
          mut[at] = specials[rng() % sizeof specials];
          break;
        }
      }
      nns_model *m = NULL;
      nns_error e;
      nns_status st = nns_model_load_memory(mut, n, NULL, &m, &e);
      CHECK((st == NNS_OK) == (m != NULL));
      if (st != NNS_OK)
        CHECK(e.offset >= -1 && e.offset <= (int64_t)n);
      nns_model_free(m);
    }
    free(mut);
    free(d);
  }
}

/* Inputs that tests/fuzz finds crashing go here as regression tests; the
 * runs so far (about 15 million inputs) found none. */

int main(void) {
  RUN(test_relu_model);
  RUN(test_empty_and_no_graph);
  RUN(test_init_raw);
  RUN(test_init_float_data);
  RUN(test_init_int64_data);
  RUN(test_dtypes);
  RUN(test_external_missing);
  RUN(test_external_present);
  RUN(test_load_copy);
  RUN(test_external_hostile);
  RUN(test_if_subgraph);
  RUN(test_dangling);
  RUN(test_duplicates);
  RUN(test_init_as_input);
  RUN(test_function);
  RUN(test_attributes);
  RUN(test_types);
  RUN(test_truncated_everywhere);
  RUN(test_mutations);
  free_kept();
  return check_finish();
}
