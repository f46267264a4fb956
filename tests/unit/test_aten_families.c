/*
 * test_aten_families.c - the aten table's shape and nn families
 * (src/ops/aten_shape.c, src/ops/aten_nn.c; aten_complex.c's table
 * too): each table sorted and unique,
 * every entry reached by nns__aten_find (registered, and shadowed by no
 * other family), and the entries torch.export never writes on a CPU
 * (cudnn_batch_norm, torchvision's roi_align, _conj of a complex value)
 * lowered through a front end written here: their nodes, and counts by
 * hand. The other entries are checked on real archives against live
 * recordings in python/tests/test_pt2_ops.py.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "ops/aten_int.h"

/* ==== The tables ==== */

static void check_table(const nns__aten_op *t, size_t n) {
  CHECK(n > 0);
  for (size_t k = 0; k < n; k++) {
    if (k)
      CHECK(strcmp(t[k - 1].name, t[k].name) < 0);
    CHECK(t[k].onnx && t[k].onnx[0]);
    CHECK(t[k].form != NNS__AF_RULE || t[k].rule != NULL);
    /* found as itself: registered, no other family has the name */
    CHECK(nns__aten_find(t[k].name) == &t[k]);
    char inplace[128];
    snprintf(inplace, sizeof inplace, "%s_", t[k].name);
    CHECK(nns__aten_find(inplace) == &t[k]);
  }
}

static void test_tables(void) {
  check_table(nns__aten_shape.ops, nns__aten_shape.count);
  check_table(nns__aten_nn.ops, nns__aten_nn.count);
  check_table(nns__aten_complex.ops, nns__aten_complex.count);
}

/* ==== A front end of a few values ==== */

typedef struct value {
  const char *name;
  nns__aten_meta meta;
  int64_t dims[8];
} value;

typedef struct fe {
  value v[16];
  int n;
  int fresh;
  char names[64][16];
  size_t nodes;
  nns_builder *b;
  nns_error err;
} fe;

static value *find(fe *f, const char *name) {
  for (int k = 0; k < f->n; k++)
    if (!strcmp(f->v[k].name, name))
      return &f->v[k];
  return NULL;
}

static const nns__aten_meta *fe_meta(void *p, const char *name) {
  value *v = find(p, name);
  return v ? &v->meta : NULL;
}

static nns_status fe_alias(void *p, const char *out, const char *src) {
  fe *f = p;
  value *v = find(f, out);
  if (v)
    v->name = src; /* the output now goes by its input's name */
  return NNS_OK;
}

static const char *fe_fresh(void *p) {
  fe *f = p;
  snprintf(f->names[f->fresh % 64], sizeof f->names[0], "_t%d", f->fresh);
  return f->names[f->fresh++ % 64];
}

static const char *fe_symval(void *p, const char *sym) {
  (void)p;
  (void)sym;
  return NULL;
}

static void add_value(fe *f, const char *name, int dtype, int rank,
                      const int64_t *dims, bool input) {
  value *v = &f->v[f->n++];
  v->name = name;
  memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
  v->meta = (nns__aten_meta){.dtype = dtype, .rank = rank, .dims = v->dims};
  if (input)
    CHECK_EQ(nns_builder_add_input(f->b, name, dtype, rank, dims, NULL,
                                   &f->err),
             NNS_OK);
}

static void start(fe *f) {
  memset(f, 0, sizeof *f);
  CHECK_EQ(nns_builder_new(&f->b, &f->err), NNS_OK);
  CHECK_EQ(nns_builder_add_opset(f->b, "", 17, &f->err), NNS_OK);
}

/* Lowers op (args, outs) through its entry; NNS_OK expected. */
static void lower(fe *f, const char *op, const nns__aten_arg *args,
                  int n_args, const char *const *outs, int n_outs) {
  const nns__aten_op *e = nns__aten_find(op);
  CHECK(e != NULL);
  if (!e)
    return;
  nns__aten_call c = {.op = op, .name = op, .module_path = "",
                      .n_args = n_args, .args = args, .n_outs = n_outs,
                      .outs = outs, .b = f->b, .err = &f->err,
                      .meta = fe_meta, .alias = fe_alias, .fresh = fe_fresh,
                      .symval = fe_symval, .node_count = &f->nodes, .fe = f};
  CHECK_EQ(nns__aten_lower(&c, e), NNS_OK);
}

/* The model's counts after the output `out` is named (its sizes not
 * declared: inference must give the ones the test gave it); its node
 * types in order into types (joined by ','). */
static nns_counts finish(fe *f, const char *out, char *types, size_t cap) {
  nns_counts c = {.size = sizeof c};
  value *v = find(f, out);
  if (!v)
    v = &f->v[f->n - 1];
  CHECK_EQ(nns_builder_add_output(f->b, v->name, 0, -1, NULL, NULL, &f->err),
           NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(f->b, &m, &f->err), NNS_OK);
  nns_builder_free(f->b);
  if (!m) {
    fprintf(stderr, "%s\n", f->err.message);
    return c;
  }
  CHECK_EQ(nns_model_infer(m, NULL, &f->err), NNS_OK);
  CHECK_EQ(nns_model_unknown_op_count(m), 0);
  size_t at;
  nns_value_info vi = {.size = sizeof vi};
  CHECK_EQ(nns_model_find_value(m, v->name, &at), NNS_OK);
  CHECK_EQ(nns_model_value(m, at, &vi), NNS_OK);
  CHECK_EQ(vi.rank, v->meta.rank);
  for (int k = 0; k < vi.rank && k < v->meta.rank; k++) {
    nns_dim d = {.size = sizeof d};
    CHECK_EQ(nns_model_value_dim(m, at, k, &d), NNS_OK);
    CHECK_EQ(d.value, v->dims[k]);
  }
  types[0] = '\0';
  for (size_t k = 0; k < nns_model_node_count(m); k++) {
    nns_node_info ni = {.size = sizeof ni};
    CHECK_EQ(nns_model_node(m, k, &ni), NNS_OK);
    if (strlen(types) + strlen(ni.op_type) + 2 < cap) {
      if (types[0])
        strcat(types, ",");
      strcat(types, ni.op_type);
    }
  }
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &f->err), NNS_OK);
  if (a)
    CHECK_EQ(nns_analysis_total_counts(a, &c), NNS_OK);
  nns_analysis_free(a);
  nns_model_free(m);
  return c;
}

#define T(n, v) {.name = n, .kind = NNS__AA_TENSOR, .tensor = v}
#define I(n, v) {.name = n, .kind = NNS__AA_INT, .i = v}
#define D(n, v) {.name = n, .kind = NNS__AA_FLOAT, .f = v}
#define B(n, v) {.name = n, .kind = NNS__AA_BOOL, .b = v}

/* cudnn_batch_norm(input, weight, bias, running_mean, running_var,
 * training, exponential_average_factor, epsilon) on [2, 3, 4, 4]: one
 * BatchNormalization, 2 MACs an element (METRICS.md's row). */
static void test_cudnn_batch_norm(void) {
  fe f;
  start(&f);
  const int64_t x[] = {2, 3, 4, 4}, c[] = {3};
  add_value(&f, "x", NNS_DT_FLOAT, 4, x, true);
  static const char *const p[] = {"w", "b", "m", "v"};
  for (int k = 0; k < 4; k++)
    add_value(&f, p[k], NNS_DT_FLOAT, 1, c, true);
  add_value(&f, "y", NNS_DT_FLOAT, 4, x, false);
  const nns__aten_arg args[] = {T("input", "x"),  T("weight", "w"),
                                T("bias", "b"),   T("running_mean", "m"),
                                T("running_var", "v"), B("training", false),
                                D("exponential_average_factor", 0.1),
                                D("epsilon", 1e-3)};
  const char *outs[] = {"y", NULL, NULL, NULL};
  lower(&f, "cudnn_batch_norm", args, 8, outs, 4);
  char types[256];
  nns_counts k = finish(&f, "y", types, sizeof types);
  CHECK_STR(types, "BatchNormalization");
  CHECK_EQ(k.macs, 2 * 2 * 3 * 4 * 4);
}

/* torchvision's roi_align on x [1, 2, 8, 8], rois [3, 5], pooled 2x2:
 * the boxes sliced out, the batch indices gathered and cast, RoiAlign. */
static void test_roi_align(void) {
  fe f;
  start(&f);
  const int64_t x[] = {1, 2, 8, 8}, r[] = {3, 5}, y[] = {3, 2, 2, 2};
  add_value(&f, "x", NNS_DT_FLOAT, 4, x, true);
  add_value(&f, "rois", NNS_DT_FLOAT, 2, r, true);
  add_value(&f, "y", NNS_DT_FLOAT, 4, y, false);
  const nns__aten_arg args[] = {T("input", "x"), T("rois", "rois"),
                                D("spatial_scale", 0.5),
                                I("pooled_height", 2), I("pooled_width", 2),
                                I("sampling_ratio", -1), B("aligned", true)};
  const char *outs[] = {"y"};
  lower(&f, "roi_align", args, 7, outs, 1);
  char types[256];
  nns_counts k = finish(&f, "y", types, sizeof types);
  CHECK_STR(types, "Slice,Gather,Cast,RoiAlign");
  CHECK(k.flops > 0);
}

/* _conj: its output is its input (the table's alias form): no node. */
static void test_conj(void) {
  fe f;
  start(&f);
  const int64_t x[] = {3, 4};
  add_value(&f, "x", NNS_DT_COMPLEX64, 2, x, true);
  add_value(&f, "y", NNS_DT_COMPLEX64, 2, x, false);
  const nns__aten_arg args[] = {T("self", "x")};
  const char *outs[] = {"y"};
  lower(&f, "_conj", args, 1, outs, 1);
  char types[256];
  nns_counts k = finish(&f, "y", types, sizeof types);
  CHECK_STR(types, "");
  CHECK_EQ(k.flops, 0);
}

#define TS(nm, v, k)                                                           \
  {.name = nm, .kind = NNS__AA_TENSORS, .tensors = v, .n = k}

/* x[i, :, j] on x [3, 4, 5], i and j [2]: the indexed dims apart, moved
 * to lead (Transpose), the indices stacked, one GatherND: [2, 4]. */
static void test_index_apart(void) {
  fe f;
  start(&f);
  const int64_t x[] = {3, 4, 5}, i[] = {2}, y[] = {2, 4};
  add_value(&f, "x", NNS_DT_FLOAT, 3, x, true);
  add_value(&f, "i", NNS_DT_INT64, 1, i, true);
  add_value(&f, "j", NNS_DT_INT64, 1, i, true);
  add_value(&f, "y", NNS_DT_FLOAT, 2, y, false);
  const char *ix[] = {"i", NULL, "j"};
  const nns__aten_arg args[] = {T("self", "x"), TS("indices", ix, 3)};
  const char *outs[] = {"y"};
  lower(&f, "index", args, 2, outs, 1);
  char types[256];
  finish(&f, "y", types, sizeof types);
  CHECK_STR(types, "Transpose,Unsqueeze,Unsqueeze,Concat,GatherND");
}

/* x[:, i, j] on x [3, 4, 5], i [1, 2] and j [2, 1] (broadcast [2, 2]):
 * the indexed dims adjacent, not leading: moved to lead, gathered
 * ([2, 2, 3]), moved back in place: [3, 2, 2]. */
static void test_index_adjacent_inner(void) {
  fe f;
  start(&f);
  const int64_t x[] = {3, 4, 5}, i[] = {1, 2}, j[] = {2, 1}, y[] = {3, 2, 2};
  add_value(&f, "x", NNS_DT_FLOAT, 3, x, true);
  add_value(&f, "i", NNS_DT_INT64, 2, i, true);
  add_value(&f, "j", NNS_DT_INT64, 2, j, true);
  add_value(&f, "y", NNS_DT_FLOAT, 3, y, false);
  const char *ix[] = {NULL, "i", "j"};
  const nns__aten_arg args[] = {T("self", "x"), TS("indices", ix, 3)};
  const char *outs[] = {"y"};
  lower(&f, "index", args, 2, outs, 1);
  char types[256];
  finish(&f, "y", types, sizeof types);
  CHECK_STR(types, "Transpose,Expand,Unsqueeze,Expand,Unsqueeze,Concat,"
                   "GatherND,Transpose");
}

/* x[mask] on x [3, 4, 5], mask [3, 4] that picked 7 rows: x as [12, 5]
 * and a Gather of 7 rows: [7, 5]. */
static void test_index_mask_rows(void) {
  fe f;
  start(&f);
  const int64_t x[] = {3, 4, 5}, m[] = {3, 4}, y[] = {7, 5};
  add_value(&f, "x", NNS_DT_FLOAT, 3, x, true);
  add_value(&f, "m", NNS_DT_BOOL, 2, m, true);
  add_value(&f, "y", NNS_DT_FLOAT, 2, y, false);
  const char *ix[] = {"m"};
  const nns__aten_arg args[] = {T("self", "x"), TS("indices", ix, 1)};
  const char *outs[] = {"y"};
  lower(&f, "index", args, 2, outs, 1);
  char types[256];
  finish(&f, "y", types, sizeof types);
  CHECK_STR(types, "Reshape,Gather");
}

/* x[mask] += v on x [3, 4, 5], mask [3, 4], v [7, 5] (a row for each of
 * the 7 positions): x as [12, 5], a ScatterND adding v's rows, [3, 4, 5]
 * again; 7 * 5 additions. */
static void test_index_put_mask_rows(void) {
  fe f;
  start(&f);
  const int64_t x[] = {3, 4, 5}, m[] = {3, 4}, v[] = {7, 5};
  add_value(&f, "x", NNS_DT_FLOAT, 3, x, true);
  add_value(&f, "m", NNS_DT_BOOL, 2, m, true);
  add_value(&f, "v", NNS_DT_FLOAT, 2, v, true);
  add_value(&f, "y", NNS_DT_FLOAT, 3, x, false);
  const char *ix[] = {"m"};
  const nns__aten_arg args[] = {T("self", "x"), TS("indices", ix, 1),
                                T("values", "v"), B("accumulate", true)};
  const char *outs[] = {"y"};
  lower(&f, "index_put", args, 4, outs, 1);
  char types[256];
  nns_counts k = finish(&f, "y", types, sizeof types);
  CHECK_STR(types, "Reshape,ScatterND,Reshape");
  CHECK_EQ(k.flops, 7 * 5);
}

int main(void) {
  RUN(test_tables);
  RUN(test_index_apart);
  RUN(test_index_adjacent_inner);
  RUN(test_index_mask_rows);
  RUN(test_index_put_mask_rows);
  RUN(test_cudnn_batch_norm);
  RUN(test_roi_align);
  RUN(test_conj);
  return check_finish();
}
