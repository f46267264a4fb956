/*
 * test_inspect.c - nns_inspection: aggregation of recorded module calls
 * over the call tree and the module tree (inclusive and self time and
 * memory, interleaved backward children, NaN/Inf producer and propagator,
 * first offenders, the spread over ranks), the reports, and every bad
 * argument the API can be given. Expected values are worked out by hand
 * from the event times in the comments.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inspect/inspect_int.h"
#include "nnscan.h"

#define CHECK_NEAR(a, b)                                                       \
  do {                                                                         \
    double a_ = (a), b_ = (b);                                                 \
    if (!(fabs(a_ - b_) < 1e-9))                                               \
      check_fail(__FILE__, __LINE__, "%s == %s: %g != %g", #a, #b, a_, b_);  \
  } while (0)

/* root
 *   a        (Block)
 *     a.x    (Linear, called twice inside a)
 *   b        (ReLU)               */
static nns_inspection *tree(void) {
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, NULL), NNS_OK);
  nns_inspect_dtype_bytes f32 = {NNS_DT_FLOAT, 40, 40};
  nns_inspect_module m = {.size = sizeof m, .path = "", .type = "Net",
                          .parent = (size_t)-1, .params = 10,
                          .learnable_params = 10, .param_bytes = 40,
                          .grad_bytes = 40, .flops = -1, .macs = -1,
                          .param_dtypes = &f32, .param_dtype_count = 1};
  size_t idx = 99;
  CHECK_EQ(nns_inspection_add_module(in, &m, &idx, NULL), NNS_OK);
  CHECK_EQ(idx, 0);
  m.path = "a", m.type = "Block", m.parent = 0;
  CHECK_EQ(nns_inspection_add_module(in, &m, &idx, NULL), NNS_OK);
  m.path = "a.x", m.type = "Linear", m.parent = 1, m.flops = 20, m.macs = 10;
  CHECK_EQ(nns_inspection_add_module(in, &m, &idx, NULL), NNS_OK);
  m.path = "b", m.type = "ReLU", m.parent = 0, m.params = 0;
  m.learnable_params = 0, m.param_bytes = 0, m.grad_bytes = 0;
  m.param_dtype_count = 0;
  CHECK_EQ(nns_inspection_add_module(in, &m, &idx, NULL), NNS_OK);
  CHECK_EQ(idx, 3);
  return in;
}

static nns_inspect_event ev(double t, int64_t alloc) {
  nns_inspect_event e = {t, alloc, -1};
  return e;
}

/* One pass. Forward (ms): root [0,100], a [10,60], a.x [20,30] and
 * [40,45], b [70,90]. Backward: root [100,155], b [100,110], a [110,150],
 * a.x's second call [115,118], its first [120,125]. Allocation counter
 * (bytes): +1000 in root before a, +300 in a.x #1, +200 in a.x #2, +100 in
 * a itself, +50 in b. `nan_at` 2 puts NaN in a.x #2's output (so a, b,
 * root propagate it); `bwd_nan` puts NaN in b's gradient w.r.t. its input.
 */
static nns_status add_pass(nns_inspection *in, int rank, int64_t pass,
                           double scale, bool nan_fwd, bool nan_bwd) {
  static int64_t dims[] = {2, 3};
  nns_inspect_tensor t[12];
  memset(t, 0, sizeof t);
  /* a.x #2: input finite, output (NaN when nan_fwd). */
  t[0] = (nns_inspect_tensor){.role = NNS_TENSOR_INPUT, .dtype = 1, .rank = 2,
                              .flags = NNS_TENSOR_CHECKED, .bytes = 24,
                              .name = "0"};
  t[1] = t[0];
  t[1].role = NNS_TENSOR_OUTPUT;
  t[1].flags |= nan_fwd ? NNS_TENSOR_NAN : 0;
  /* a: input finite, output NaN when nan_fwd. */
  t[2] = t[0];
  t[3] = t[1];
  /* b: input and output NaN when nan_fwd; gradients. */
  t[4] = t[1];
  t[4].role = NNS_TENSOR_INPUT;
  t[5] = t[1];
  t[6] = t[0];
  t[6].role = NNS_TENSOR_GRAD_OUTPUT;
  t[7] = t[0];
  t[7].role = NNS_TENSOR_GRAD_INPUT;
  t[7].flags |= nan_bwd ? NNS_TENSOR_INF : 0;
  /* root: output. */
  t[8] = t[1];
  nns_inspect_call c[5];
  memset(c, 0, sizeof c);
  double s = scale;
  /* root */
  c[0] = (nns_inspect_call){.module = 0, .parent = (size_t)-1,
                            .fwd_seq = 4, .bwd_seq = 4,
                            .fwd_start = ev(0, 0), .fwd_end = ev(100 * s, 1650),
                            .bwd_start = ev(100 * s, 5000),
                            .bwd_end = ev(155 * s, 6000),
                            .tensor_first = 8, .tensor_count = 1};
  /* a */
  c[1] = (nns_inspect_call){.module = 1, .parent = 0, .fwd_seq = 2,
                            .bwd_seq = 3, .fwd_start = ev(10 * s, 1000),
                            .fwd_end = ev(60 * s, 1600),
                            .bwd_start = ev(110 * s, 5100),
                            .bwd_end = ev(150 * s, 5900),
                            .tensor_first = 2, .tensor_count = 2};
  /* a.x #1 */
  c[2] = (nns_inspect_call){.module = 2, .parent = 1, .fwd_seq = 0,
                            .bwd_seq = 2, .fwd_start = ev(20 * s, 1000),
                            .fwd_end = ev(30 * s, 1300),
                            .bwd_start = ev(120 * s, 5500),
                            .bwd_end = ev(125 * s, 5600)};
  /* a.x #2 */
  c[3] = (nns_inspect_call){.module = 2, .parent = 1, .fwd_seq = 1,
                            .bwd_seq = 1, .fwd_start = ev(40 * s, 1300),
                            .fwd_end = ev(45 * s, 1500),
                            .bwd_start = ev(115 * s, 5200),
                            .bwd_end = ev(118 * s, 5300),
                            .tensor_first = 0, .tensor_count = 2};
  /* b */
  c[4] = (nns_inspect_call){.module = 3, .parent = 0, .fwd_seq = 3,
                            .bwd_seq = 0, .fwd_start = ev(70 * s, 1600),
                            .fwd_end = ev(90 * s, 1650),
                            .bwd_start = ev(100 * s, 5000),
                            .bwd_end = ev(110 * s, 5100),
                            .tensor_first = 4, .tensor_count = 4};
  nns_inspect_batch b = {.size = sizeof b, .rank = rank, .pass = pass,
                         .wall_start = 1000.0 + rank, .calls = c,
                         .call_count = 5, .call_size = sizeof c[0],
                         .tensors = t, .tensor_count = 9,
                         .tensor_size = sizeof t[0], .dims = dims,
                         .dim_count = 2};
  return nns_inspection_add_batch(in, &b, NULL);
}

static nns_inspect_stats stats(nns_inspection *in, size_t m) {
  nns_inspect_stats s = {.size = sizeof s};
  CHECK_EQ(nns_inspection_module_stats(in, m, &s, NULL), NNS_OK);
  return s;
}

static void test_inclusive_and_self(void) {
  nns_inspection *in = tree();
  CHECK_EQ(add_pass(in, 0, 0, 1.0, false, false), NNS_OK);
  nns_inspect_stats r = stats(in, 0), a = stats(in, 1), x = stats(in, 2),
                    b = stats(in, 3);
  CHECK_EQ(r.calls, 1);
  CHECK_EQ(x.calls, 2); /* reused: two calls */
  CHECK_NEAR(r.fwd_inclusive_ms, 100);
  CHECK_NEAR(r.fwd_self_ms, 100 - 50 - 20);
  CHECK_NEAR(a.fwd_inclusive_ms, 50);
  CHECK_NEAR(a.fwd_self_ms, 50 - 10 - 5);
  CHECK_NEAR(x.fwd_inclusive_ms, 15);
  CHECK_NEAR(x.fwd_self_ms, 15);
  CHECK_NEAR(b.fwd_inclusive_ms, 20);
  /* Backward: the children of root cover [100,150] of its [100,155]. */
  CHECK_NEAR(r.bwd_inclusive_ms, 55);
  CHECK_NEAR(r.bwd_self_ms, 5);
  CHECK_NEAR(a.bwd_inclusive_ms, 40);
  CHECK_NEAR(a.bwd_self_ms, 40 - 5 - 3);
  CHECK_NEAR(x.bwd_inclusive_ms, 8);
  CHECK_EQ(r.backward_calls, 1);
  /* Memory: root 1650 in all, a 600 of which a.x 500; b 50. */
  CHECK_EQ(r.fwd_alloc_bytes, 1650);
  CHECK_EQ(r.fwd_self_alloc_bytes, 1650 - 600 - 50);
  CHECK_EQ(a.fwd_alloc_bytes, 600);
  CHECK_EQ(a.fwd_self_alloc_bytes, 100);
  CHECK_EQ(x.fwd_alloc_bytes, 500);
  CHECK_EQ(b.fwd_alloc_bytes, 50);
  CHECK_EQ(a.bwd_alloc_bytes, 800);
  CHECK_EQ(a.bwd_self_alloc_bytes, 800 - 100 - 100);
  CHECK_EQ(r.nonfinite, 0);
  nns_inspect_offender f = {.size = sizeof f};
  CHECK_EQ(nns_inspection_first_nonfinite(in, 0, &f, NULL), NNS_OK);
  CHECK_EQ(f.found, 0);
  CHECK_EQ(nns_inspection_call_count(in), 5);
  CHECK_EQ(nns_inspection_module_count(in), 4);
  CHECK_EQ(nns_inspection_module_count(NULL), 0);
  nns_inspection_free(in);
}

/* A backward child that starts before its parent's own first gradient
 * (hooks on one tensor fire in the order they were registered) widens
 * the parent's span: a parent always covers its children. */
static void test_backward_widened(void) {
  nns_inspection *in = tree();
  nns_inspect_call c[2] = {
      {.module = 0, .parent = (size_t)-1, .fwd_start = ev(0, -1),
       .fwd_end = ev(10, -1), .bwd_start = ev(21, -1),
       .bwd_end = ev(30, -1)},
      {.module = 3, .parent = 0, .fwd_start = ev(2, -1), .fwd_end = ev(8, -1),
       .bwd_start = ev(20, -1), .bwd_end = ev(25, -1)}};
  nns_inspect_batch b = {.size = sizeof b, .calls = c, .call_count = 2,
                         .call_size = sizeof c[0]};
  CHECK_EQ(nns_inspection_add_batch(in, &b, NULL), NNS_OK);
  nns_inspect_stats r = stats(in, 0);
  CHECK_NEAR(r.bwd_inclusive_ms, 10);
  CHECK_NEAR(r.bwd_self_ms, 5);
  CHECK_EQ(r.fwd_alloc_bytes, 0); /* unknown counters add nothing */
  nns_inspection_free(in);
}

/* A residual block's two branches read one input, whose gradient is
 * complete only after both ran: a's tensor hook ends at 40 although b ran
 * from 20 to 30 after a. a is cut at b's start, so the children meet and
 * their sum fits in the parent's span. */
static void test_backward_siblings_cut(void) {
  nns_inspection *in = tree();
  nns_inspect_call c[3] = {
      {.module = 0, .parent = (size_t)-1, .fwd_start = ev(0, -1),
       .fwd_end = ev(9, -1), .bwd_start = ev(10, 100), .bwd_end = ev(40, 900)},
      {.module = 1, .parent = 0, .fwd_start = ev(1, -1), .fwd_end = ev(4, -1),
       .bwd_start = ev(10, 100), .bwd_end = ev(40, 900)},
      {.module = 3, .parent = 0, .fwd_start = ev(5, -1), .fwd_end = ev(8, -1),
       .bwd_start = ev(20, 300), .bwd_end = ev(30, 700)}};
  nns_inspect_batch b = {.size = sizeof b, .calls = c, .call_count = 3,
                         .call_size = sizeof c[0]};
  CHECK_EQ(nns_inspection_add_batch(in, &b, NULL), NNS_OK);
  nns_inspect_stats r = stats(in, 0), a = stats(in, 1), s = stats(in, 3);
  CHECK_NEAR(a.bwd_inclusive_ms, 10);
  CHECK_EQ(a.bwd_alloc_bytes, 200);
  CHECK_NEAR(s.bwd_inclusive_ms, 10);
  CHECK_NEAR(r.bwd_inclusive_ms, 30);
  CHECK_NEAR(r.bwd_self_ms, 10);
  CHECK(r.bwd_inclusive_ms >= a.bwd_inclusive_ms + s.bwd_inclusive_ms);
  nns_inspection_free(in);
}

static void test_nonfinite(void) {
  nns_inspection *in = tree();
  CHECK_EQ(add_pass(in, 0, 0, 1.0, true, true), NNS_OK);
  nns_inspect_stats r = stats(in, 0), a = stats(in, 1), x = stats(in, 2),
                    b = stats(in, 3);
  CHECK_EQ(x.fwd_role, NNS_NONFINITE_PRODUCER);
  CHECK_EQ(a.fwd_role, NNS_NONFINITE_PROPAGATOR); /* made inside it */
  CHECK_EQ(b.fwd_role, NNS_NONFINITE_PROPAGATOR); /* came in */
  CHECK_EQ(r.fwd_role, NNS_NONFINITE_PROPAGATOR);
  CHECK(x.nonfinite & NNS_NONFINITE_OUTPUT);
  CHECK(b.nonfinite & NNS_NONFINITE_INPUT);
  CHECK_EQ(b.bwd_role, NNS_NONFINITE_PRODUCER);
  CHECK(b.nonfinite & NNS_NONFINITE_GRAD_INPUT);
  CHECK_EQ(x.nonfinite_rank, 0);
  nns_inspect_offender f = {.size = sizeof f};
  CHECK_EQ(nns_inspection_first_nonfinite(in, 0, &f, NULL), NNS_OK);
  CHECK_EQ(f.found, 1);
  CHECK_EQ(f.module, 2);
  CHECK_EQ(f.call, 3); /* the second call of a.x */
  CHECK_EQ(f.role, NNS_NONFINITE_PRODUCER);
  CHECK_EQ(nns_inspection_first_nonfinite(in, 1, &f, NULL), NNS_OK);
  CHECK_EQ(f.found, 1);
  CHECK_EQ(f.module, 3);
  nns_inspection_free(in);
}

/* Three ranks, the second twice as slow and the third three times: per
 * pass the forward of `a` takes 50, 100 and 150 ms. Rank 2 sees the NaN;
 * ranks 1 and 2 both do, rank 1's wall clock is earlier. */
static void test_ranks(void) {
  nns_inspection *in = tree();
  CHECK_EQ(add_pass(in, 0, 0, 1.0, false, false), NNS_OK);
  CHECK_EQ(add_pass(in, 2, 0, 3.0, true, false), NNS_OK);
  CHECK_EQ(add_pass(in, 1, 0, 2.0, true, false), NNS_OK);
  nns_inspect_stats a = stats(in, 1), x = stats(in, 2);
  CHECK_EQ(a.ranks, 3);
  CHECK_NEAR(a.rank_fwd_ms[0], 50);
  CHECK_NEAR(a.rank_fwd_ms[1], 100);
  CHECK_NEAR(a.rank_fwd_ms[2], 150);
  CHECK_NEAR(a.rank_bwd_ms[1], 80);
  CHECK_EQ(a.calls, 3);
  CHECK_EQ(x.nonfinite_rank, 1);
  nns_inspect_offender f = {.size = sizeof f};
  CHECK_EQ(nns_inspection_first_nonfinite(in, 0, &f, NULL), NNS_OK);
  CHECK_EQ(f.rank, 1);
  nns_inspection_free(in);
}

typedef struct sink {
  char *buf;
  size_t len;
  int stop_after; /* calls; < 0 never */
} sink;

static int sink_write(void *user, const char *data, size_t size) {
  sink *s = user;
  if (s->stop_after == 0)
    return 1;
  if (s->stop_after > 0)
    s->stop_after--;
  char *p = realloc(s->buf, s->len + size + 1);
  if (!p)
    return 1;
  memcpy(p + s->len, data, size);
  s->len += size;
  p[s->len] = 0;
  s->buf = p;
  return 0;
}

/* The rank rows: ranks 0 and 2 add passes (scale 1 and 3: root forward
 * 100 and 300 ms, backward 55 and 165 ms, allocated 1650 and 1000 bytes),
 * rank 2 also says what it sent and its static counts; rank 1 only says
 * what it sent. The slowest rank of a module is the one of its max. */
static void test_rank_rows(void) {
  nns_inspection *in = tree();
  CHECK_EQ(add_pass(in, 0, 0, 1.0, false, false), NNS_OK);
  CHECK_EQ(add_pass(in, 2, 0, 3.0, false, false), NNS_OK);
  CHECK_EQ(add_pass(in, 2, 1, 3.0, false, false), NNS_OK);
  nns_inspect_stats a = stats(in, 1);
  CHECK_EQ(a.rank_fwd_slowest, 2);
  CHECK_EQ(a.rank_bwd_slowest, 2);
  CHECK_EQ(nns_inspection_rank_count(in), 2u);
  nns_per_rank counts = {.size = sizeof counts, .world_size = 4,
                         .params = 10, .param_bytes = 40, .comm_bytes = 96,
                         .comm = {64, 32, 0, 0}, .grow = "fsdp"};
  const char *names[] = {"fsdp", "tp"};
  int64_t sizes[] = {2, 2};
  nns_inspect_rank r = {.size = sizeof r, .rank = 2,
                        .comm_calls = {4, 2, 0, 0},
                        .comm_bytes = {128, 64, 0, 0}, .counts = &counts,
                        .mesh_count = 2, .mesh_name = names,
                        .mesh_size = sizes};
  CHECK_EQ(nns_inspection_set_rank(in, &r, NULL), NNS_OK);
  nns_inspect_rank one = {.size = sizeof one, .rank = 1,
                          .comm_calls = {0, 0, 3, 0},
                          .comm_bytes = {0, 0, 300, 0}};
  CHECK_EQ(nns_inspection_set_rank(in, &one, NULL), NNS_OK);
  CHECK_EQ(nns_inspection_rank_count(in), 3u);
  nns_inspect_rank_info x = {.size = sizeof x};
  CHECK_EQ(nns_inspection_rank(in, 0, &x, NULL), NNS_OK);
  CHECK_EQ(x.rank, 0);
  CHECK_EQ(x.passes, 1);
  CHECK_NEAR(x.fwd_ms, 100);
  CHECK_NEAR(x.bwd_ms, 55);
  CHECK_EQ(x.fwd_alloc_bytes, 1650);
  CHECK_EQ(x.bwd_alloc_bytes, 1000);
  CHECK_EQ(x.comm_known, 0);
  CHECK_EQ(x.has_counts, 0);
  CHECK_EQ(nns_inspection_rank(in, 1, &x, NULL), NNS_OK);
  CHECK_EQ(x.rank, 1);
  CHECK_EQ(x.passes, 0);
  CHECK_EQ(x.comm_known, 1);
  CHECK_EQ(x.comm_bytes[2], 300);
  CHECK_EQ(x.fwd_alloc_bytes, -1);
  CHECK_EQ(nns_inspection_rank(in, 2, &x, NULL), NNS_OK);
  CHECK_EQ(x.rank, 2);
  CHECK_EQ(x.passes, 2);
  CHECK_NEAR(x.fwd_ms, 600);
  CHECK_NEAR(x.bwd_ms, 330);
  CHECK_EQ(x.fwd_alloc_bytes, 3300);
  CHECK_EQ(x.comm_calls[0], 4);
  CHECK_EQ(x.comm_bytes[1], 64);
  CHECK_EQ(x.has_counts, 1);
  CHECK_EQ(x.counts.param_bytes, 40);
  CHECK_EQ(x.counts.comm[0], 64);
  CHECK(x.counts.grow == NULL);
  CHECK_EQ(x.mesh_count, 2u);
  CHECK(strcmp(x.mesh_name[1], "tp") == 0 && x.mesh_size[1] == 2);
  CHECK_EQ(nns_inspection_rank(in, 3, &x, NULL), NNS_E_ARG);
  /* Refused, nothing kept: a rank out of range, a negative count, a
   * mesh dim without a name, a size below the first version's. */
  nns_error err;
  r.rank = 1 << 16;
  CHECK_EQ(nns_inspection_set_rank(in, &r, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "rank 65536 out of range"));
  r.rank = 3;
  r.comm_bytes[0] = -1;
  CHECK_EQ(nns_inspection_set_rank(in, &r, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "collective count"));
  r.comm_bytes[0] = 1;
  names[1] = NULL;
  CHECK_EQ(nns_inspection_set_rank(in, &r, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "mesh dim 1"));
  r.size = 8;
  CHECK_EQ(nns_inspection_set_rank(in, &r, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_rank_count(in), 3u);
  /* The reports: the JSON's rows and slowest ranks, the text's lines. */
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_JSON,
                          .max_depth = -1};
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "\"per_rank\""));
  CHECK(s.buf &&
        strstr(s.buf, "\"slowest\": {\"forward\": 2, \"backward\": 2}"));
  CHECK(s.buf && strstr(s.buf, "\"mesh\": {\"fsdp\": 2, \"tp\": 2}"));
  free(s.buf);
  o.format = NNS_FORMAT_TEXT;
  o.width = 200;
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "Slowest"));
  CHECK(s.buf && strstr(s.buf, "rank 2: 2 passes; forward 300.000 ms"));
  CHECK(s.buf && strstr(s.buf, "rank 1 collectives seen"));
  free(s.buf);
  nns_inspection_free(in);
}

static void test_reports(void) {
  nns_inspection *in = tree();
  CHECK_EQ(add_pass(in, 0, 0, 1.0, true, false), NNS_OK);
  CHECK_EQ(nns_inspection_set_meta(in, "device", "cpu", NULL), NNS_OK);
  CHECK_EQ(nns_inspection_set_meta(in, "device", "cuda", NULL), NNS_OK);
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT,
                          .max_depth = -1};
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "└─x"));
  CHECK(s.buf && strstr(s.buf, "100.000"));
  CHECK(s.buf && strstr(s.buf, "fwd producer"));
  CHECK(s.buf && strstr(s.buf, "First NaN/Inf in the forward: a.x"));
  free(s.buf);
  o.format = NNS_FORMAT_CSV;
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "a.x,2,x,Linear,2,\"(2, 3)\",15.000,15.000,8.000,8.000,"));
  /* Static counts, then FLOP/s by hand: 20 FLOPs over a.x's 15 ms per
   * pass is 1333.33; then index and parent. */
  CHECK(s.buf && strstr(s.buf, ",20,10,1333.33,fwd producer,2,1\n"));
  free(s.buf);
  o.format = NNS_FORMAT_MD;
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "| a.x | Linear | 2 |"));
  free(s.buf);
  o.format = NNS_FORMAT_JSON;
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "\"schema\": \"nnscan.inspect\""));
  CHECK(s.buf && strstr(s.buf, "\"meta\": {\"device\": \"cuda\"}"));
  CHECK(s.buf && strstr(s.buf, "\"forward\": {\"module\": 2, \"path\": "
                               "\"a.x\", \"call\": 3"));
  /* The HTML page embeds that very document (no '<' in it to escape) in
   * the block the viewer reads, marked as an inspection. */
  char *json = s.buf;
  o.format = NNS_FORMAT_HTML;
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  const char *block = "<script type=\"application/json\" id=\"nnscan-data\" "
                      "data-kind=\"nnscan.inspect\" data-encoding=\"json\">\n";
  const char *at = s.buf ? strstr(s.buf, block) : NULL;
  CHECK(s.buf && !strncmp(s.buf, "<!DOCTYPE html>", 15));
  CHECK(s.buf && strstr(s.buf, "<title>Net: nnscan inspection</title>"));
  CHECK(at && !strncmp(at + strlen(block), json, strlen(json)));
  CHECK(at && !strncmp(at + strlen(block) + strlen(json), "\n</script>", 10));
  free(json);
  free(s.buf);
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report_seed(in, NULL, sink_write, &s, NULL),
           NNS_OK);
  const char *head = "{\"Net\": {\"info\": {\"type\": \"Net\"";
  CHECK(s.buf && !strncmp(s.buf, head, strlen(head)));
  CHECK(s.buf && strstr(s.buf, "\"children\": {\"x\": {\"info\": {\"type\": "
                               "\"Linear\", \"input_shapes\": [[2, 3]]"));
  CHECK(s.buf && strstr(s.buf, "\"forward_latency\": 100.000000"));
  free(s.buf);
  /* A callback that stops: NNS_E_IO, whatever the format. */
  for (int f = 0; f <= NNS_FORMAT_HTML; f++) {
    o.format = (nns_report_format)f;
    s = (sink){NULL, 0, 0};
    nns_error e;
    CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, &e), NNS_E_IO);
    CHECK_EQ(e.code, NNS_E_IO);
    free(s.buf);
  }
  nns_inspection_free(in);
}

/* Every number of the table reads in its unit: the predicted saved bytes
 * in KiB as Fwd mem beside them (405,504 B = 396 KiB, once "396 k"), the
 * roofline time on a human scale (1.972e-05 ms = 19.7 ns, once printed
 * "1.972e-05"); CSV keeps the raw figures. */
static void test_table_units(void) {
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, NULL), NNS_OK);
  nns_inspect_module m = {.size = sizeof m, .path = "", .type = "Net",
                          .parent = (size_t)-1, .flops = 100, .macs = 50,
                          .roofline_ms = 1.972e-05, .saved_bytes = 405504};
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT,
                          .width = 200, .numbers = NNS_NUMBERS_CLEVER};
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "Saved (pred.)"));
  CHECK(s.buf && strstr(s.buf, "  396 KiB  "));
  CHECK(s.buf && strstr(s.buf, "  19.7 ns  "));
  CHECK(s.buf && !strstr(s.buf, "e-05"));
  free(s.buf);
  o.format = NNS_FORMAT_CSV;
  o.numbers = NNS_NUMBERS_RAW;
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, ",405504,"));
  CHECK(s.buf && strstr(s.buf, ",1.972e-05,"));
  free(s.buf);
  nns_inspection_free(in);
}

static void test_bad_arguments(void) {
  nns_error e;
  CHECK_EQ(nns_inspection_create(NULL, &e), NNS_E_ARG);
  nns_inspection_free(NULL);
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, NULL), NNS_OK);
  /* Reports of nothing. */
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, NULL, sink_write, &s, &e), NNS_E_STATE);
  CHECK_EQ(nns_inspection_report(in, NULL, NULL, &s, &e), NNS_E_ARG);
  CHECK_EQ(nns_inspection_report(NULL, NULL, sink_write, &s, &e), NNS_E_ARG);
  nns_inspect_module m = {.size = sizeof m, .path = "", .type = "Net",
                          .parent = 0};
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_E_ARG);
  CHECK(strstr(e.message, "first module"));
  m.parent = (size_t)-1;
  m.size = 8;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_E_ARG);
  m.size = sizeof m;
  CHECK_EQ(nns_inspection_add_module(NULL, &m, NULL, &e), NNS_E_ARG);
  CHECK_EQ(nns_inspection_add_module(in, NULL, NULL, &e), NNS_E_ARG);
  m.params = 1, m.learnable_params = 2;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_E_ARG);
  m.learnable_params = 0, m.param_dtype_count = 2;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_E_ARG);
  m.param_dtype_count = 0;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_OK);
  m.path = "a", m.parent = 5;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_E_ARG);
  CHECK(strstr(e.message, "'a'") && strstr(e.message, "parent 5"));
  m.parent = 0;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_OK);
  CHECK_EQ(nns_inspection_set_meta(in, "", "x", &e), NNS_E_ARG);
  CHECK_EQ(nns_inspection_set_meta(in, "k", NULL, &e), NNS_E_ARG);

  int64_t dims[2] = {1, 2};
  nns_inspect_tensor t = {.role = NNS_TENSOR_OUTPUT, .rank = 2, .dims = 0};
  nns_inspect_call c[2] = {{.module = 0, .parent = (size_t)-1,
                            .tensor_first = 0, .tensor_count = 1},
                           {.module = 1, .parent = 0}};
  nns_inspect_batch b = {.size = sizeof b, .calls = c, .call_count = 2,
                         .call_size = sizeof c[0], .tensors = &t,
                         .tensor_count = 1, .tensor_size = sizeof t,
                         .dims = dims, .dim_count = 2};
  CHECK_EQ(nns_inspection_add_batch(NULL, &b, &e), NNS_E_ARG);
  CHECK_EQ(nns_inspection_add_batch(in, NULL, &e), NNS_E_ARG);
  c[1].module = 7; /* not registered */
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  CHECK(strstr(e.message, "call 1: module 7"));
  c[1].module = 1, c[1].parent = 1; /* its own parent */
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  c[1].parent = 0, c[1].tensor_first = 1, c[1].tensor_count = (size_t)-1;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG); /* wraps */
  c[1].tensor_first = 0, c[1].tensor_count = 0;
  t.dims = 1; /* dims 1..2 of 2 */
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  CHECK(strstr(e.message, "tensor 0: dims"));
  t.dims = 0, t.rank = -1;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  t.rank = 2, t.role = (nns_tensor_role)9;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  t.role = NNS_TENSOR_OUTPUT, t.bytes = -4;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  t.bytes = 8;
  b.call_size = 4;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  b.call_size = sizeof c[0], b.rank = -1;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  b.rank = 0, b.calls = NULL;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  b.calls = c, b.size = 4;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  b.size = sizeof b;
  /* Nothing of the rejected batches was kept. */
  CHECK_EQ(nns_inspection_call_count(in), 0);
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_OK);
  CHECK_EQ(nns_inspection_call_count(in), 2);
  nns_inspect_stats st = {.size = sizeof st};
  CHECK_EQ(nns_inspection_module_stats(in, 2, &st, &e), NNS_E_ARG);
  st.size = 4;
  CHECK_EQ(nns_inspection_module_stats(in, 0, &st, &e), NNS_E_ARG);
  st.size = sizeof st;
  CHECK_EQ(nns_inspection_module_stats(in, 0, &st, &e), NNS_OK);
  CHECK_EQ(st.calls, 1);
  CHECK(isnan(st.fwd_inclusive_ms) == 0); /* unknown times add nothing */
  nns_inspect_offender f = {.size = 0};
  CHECK_EQ(nns_inspection_first_nonfinite(in, 0, &f, &e), NNS_E_ARG);
  nns_report_options o = {.size = sizeof o,
                          .format = (nns_report_format)7};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, &e), NNS_E_ARG);
  o.format = NNS_FORMAT_TEXT, o.max_depth = -5;
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, &e), NNS_E_ARG);
  free(s.buf);
  nns_inspection_free(in);
}

/* ==== Issue 17, 18: the producer between children, hardening ==== */

static nns_inspection *chain(const char *const *paths, size_t n) {
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, NULL), NNS_OK);
  for (size_t i = 0; i < n; i++) {
    const char *dot = strrchr(paths[i], '.');
    size_t parent = (size_t)-1;
    if (i) {
      parent = 0;
      for (size_t k = 1; k < i; k++)
        if (dot && strlen(paths[k]) == (size_t)(dot - paths[i]) &&
            !strncmp(paths[k], paths[i], (size_t)(dot - paths[i])))
          parent = k;
    }
    nns_inspect_module m = {.size = sizeof m, .path = paths[i],
                            .type = i ? "Mod" : "Net", .parent = parent,
                            .flops = -1, .macs = -1};
    CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
  }
  return in;
}

/* Block.forward: h = torch.log(self.fc(x)); return self.norm(h). fc sees
 * finite in and out; norm gets the NaN as input; block's input is finite
 * and its output NaN: block's own code made it (producer), norm passed it
 * on; the root, handed it by block, passes it on. */
static void test_nonfinite_between_children(void) {
  static const char *paths[] = {"", "block", "block.fc", "block.norm"};
  nns_inspection *in = chain(paths, 4);
  nns_inspect_tensor t[8];
  memset(t, 0, sizeof t);
  for (int k = 0; k < 8; k++)
    t[k] = (nns_inspect_tensor){.role = k % 2 ? NNS_TENSOR_OUTPUT
                                              : NNS_TENSOR_INPUT,
                                .flags = NNS_TENSOR_CHECKED, .bytes = 4};
  t[1].flags |= NNS_TENSOR_NAN; /* root out */
  t[3].flags |= NNS_TENSOR_NAN; /* block out */
  t[6].flags |= NNS_TENSOR_NAN; /* norm in */
  t[7].flags |= NNS_TENSOR_NAN; /* norm out */
  nns_inspect_call c[4] = {
      {.module = 0, .parent = (size_t)-1, .fwd_seq = 3, .tensor_first = 0,
       .tensor_count = 2},
      {.module = 1, .parent = 0, .fwd_seq = 2, .tensor_first = 2,
       .tensor_count = 2},
      {.module = 2, .parent = 1, .fwd_seq = 0, .tensor_first = 4,
       .tensor_count = 2},
      {.module = 3, .parent = 1, .fwd_seq = 1, .tensor_first = 6,
       .tensor_count = 2}};
  for (int k = 0; k < 4; k++)
    c[k].fwd_start = ev(k, -1), c[k].fwd_end = ev(10 - k, -1),
    c[k].bwd_seq = -1, c[k].bwd_start = ev(NAN, -1),
    c[k].bwd_end = ev(NAN, -1);
  nns_inspect_batch b = {.size = sizeof b, .wall_start = 1, .calls = c,
                         .call_count = 4, .call_size = sizeof c[0],
                         .tensors = t, .tensor_count = 8,
                         .tensor_size = sizeof t[0]};
  CHECK_EQ(nns_inspection_add_batch(in, &b, NULL), NNS_OK);
  CHECK_EQ(stats(in, 1).fwd_role, NNS_NONFINITE_PRODUCER);
  CHECK_EQ(stats(in, 2).fwd_role, NNS_NONFINITE_NONE);
  CHECK_EQ(stats(in, 3).fwd_role, NNS_NONFINITE_PROPAGATOR);
  CHECK_EQ(stats(in, 0).fwd_role, NNS_NONFINITE_PROPAGATOR);
  nns_inspect_offender f = {.size = sizeof f};
  CHECK_EQ(nns_inspection_first_nonfinite(in, 0, &f, NULL), NNS_OK);
  CHECK_EQ(f.found, 1);
  CHECK_EQ(f.module, 1);
  CHECK_EQ(f.role, NNS_NONFINITE_PRODUCER);
  nns_report_options o = {.size = sizeof o, .max_depth = -1};
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "First NaN/Inf in the forward: block (Mod, "
                               "rank 0, pass 0, produced it)"));
  free(s.buf);
  /* The same with the NaN already in block's input: passed on by all. */
  nns_inspection_free(in);
  in = chain(paths, 4);
  t[2].flags |= NNS_TENSOR_NAN;
  t[0].flags |= NNS_TENSOR_NAN;
  CHECK_EQ(nns_inspection_add_batch(in, &b, NULL), NNS_OK);
  CHECK_EQ(stats(in, 1).fwd_role, NNS_NONFINITE_PROPAGATOR);
  CHECK_EQ(nns_inspection_first_nonfinite(in, 0, &f, NULL), NNS_OK);
  CHECK_EQ(f.role, NNS_NONFINITE_PROPAGATOR);
  nns_inspection_free(in);
}

/* Strides that are not multiples of 8, and arrays that start at an odd
 * address: every field still arrives (ASan/UBSan builds catch a
 * misaligned read). */
static void test_odd_strides(void) {
  nns_inspection *in = tree();
  enum { CS = sizeof(nns_inspect_call) + 3,
         TS = sizeof(nns_inspect_tensor) + 5 };
  char *cb = calloc(1, 1 + 2 * CS), *tb = calloc(1, 1 + 2 * TS);
  nns_inspect_call c = {.module = 2, .parent = (size_t)-1, .fwd_seq = 0,
                        .bwd_seq = -1, .fwd_start = ev(1, 100),
                        .fwd_end = ev(4, 700), .bwd_start = ev(NAN, -1),
                        .bwd_end = ev(NAN, -1), .tensor_first = 1,
                        .tensor_count = 1};
  memcpy(cb + 1 + CS, &c, sizeof c);
  c.module = 1;
  c.tensor_count = 0;
  c.fwd_end = ev(2, 100);
  memcpy(cb + 1, &c, sizeof c);
  nns_inspect_tensor t = {.role = NNS_TENSOR_OUTPUT, .rank = 2, .dims = 0,
                          .flags = NNS_TENSOR_CHECKED, .bytes = 24};
  memcpy(tb + 1 + TS, &t, sizeof t);
  memcpy(tb + 1, &t, sizeof t);
  int64_t dims[2] = {2, 3};
  nns_inspect_batch b = {.size = sizeof b, .wall_start = 1,
                         .calls = (const void *)(cb + 1), .call_count = 2,
                         .call_size = CS, .tensors = (const void *)(tb + 1),
                         .tensor_count = 2, .tensor_size = TS, .dims = dims,
                         .dim_count = 2};
  CHECK_EQ(nns_inspection_add_batch(in, &b, NULL), NNS_OK);
  nns_inspect_stats x = stats(in, 2), a = stats(in, 1);
  CHECK_NEAR(x.fwd_inclusive_ms, 3);
  CHECK_EQ(x.fwd_alloc_bytes, 600);
  CHECK_NEAR(a.fwd_inclusive_ms, 1);
  free(cb);
  free(tb);
  nns_inspection_free(in);
}

/* Non-finite wall_start, counts above 2^62: refused with a message. A
 * batch with no call on a fresh inspection is fine (fuzz_inspect found it
 * reading through a NULL array). */
static void test_refused_values(void) {
  nns_inspection *in = tree();
  nns_inspect_batch b = {.size = sizeof b, .call_size = sizeof(nns_inspect_call),
                         .tensor_size = sizeof(nns_inspect_tensor)};
  nns_error e;
  b.wall_start = NAN;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  CHECK(strstr(e.message, "wall_start is NaN"));
  b.wall_start = INFINITY;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  CHECK(strstr(e.message, "wall_start is infinite"));
  nns_inspection *empty = NULL;
  CHECK_EQ(nns_inspection_create(&empty, NULL), NNS_OK);
  b.wall_start = 0;
  CHECK_EQ(nns_inspection_add_batch(empty, &b, NULL), NNS_OK);
  nns_inspection_free(empty);
  nns_inspect_module m = {.size = sizeof m, .path = "big", .parent = 0,
                          .params = INT64_MAX, .learnable_params = 0,
                          .flops = -1, .macs = -1};
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_E_ARG);
  CHECK(strstr(e.message, "above 2^62"));
  m.params = 0;
  nns_inspect_dtype_bytes dt = {1, -5, 0};
  m.param_dtypes = &dt, m.param_dtype_count = 1;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, &e), NNS_E_ARG);
  nns_inspect_tensor t = {.role = NNS_TENSOR_INPUT, .bytes = INT64_MAX};
  nns_inspect_call c = {.module = 1, .parent = (size_t)-1,
                        .tensor_count = 1};
  b.calls = &c, b.call_count = 1, b.tensors = &t, b.tensor_count = 1;
  CHECK_EQ(nns_inspection_add_batch(in, &b, &e), NNS_E_ARG);
  CHECK_EQ(nns_inspection_call_count(in), 0);
  nns_inspection_free(in);
}

/* Byte sums saturate: three inputs of 2^62 bytes each in one call, and
 * forward allocations of 2^62 in many calls, add up to INT64_MAX (no
 * signed overflow under UBSan), not a negative number. */
static void test_saturating_sums(void) {
  nns_inspection *in = tree();
  const int64_t big = INT64_C(1) << 62;
  nns_inspect_tensor t[3];
  for (int k = 0; k < 3; k++)
    t[k] = (nns_inspect_tensor){.role = NNS_TENSOR_INPUT, .dtype = 1,
                                .bytes = big};
  nns_inspect_call c[4];
  for (int k = 0; k < 4; k++)
    c[k] = (nns_inspect_call){.module = 3, .parent = (size_t)-1,
                              .fwd_seq = k, .bwd_seq = -1,
                              .fwd_start = ev(k, 0), .fwd_end = ev(k + 1, big),
                              .bwd_start = ev(NAN, -1),
                              .bwd_end = ev(NAN, -1), .tensor_count = 3};
  nns_inspect_batch b = {.size = sizeof b, .wall_start = 1, .calls = c,
                         .call_count = 4, .call_size = sizeof c[0],
                         .tensors = t, .tensor_count = 3,
                         .tensor_size = sizeof t[0]};
  CHECK_EQ(nns_inspection_add_batch(in, &b, NULL), NNS_OK);
  CHECK_EQ(stats(in, 3).fwd_alloc_bytes, INT64_MAX);
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_JSON};
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "\"input\": {\"float32\": 9223372036854775807}"));
  free(s.buf);
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report_seed(in, NULL, sink_write, &s, NULL),
           NNS_OK);
  CHECK(s.buf && !strstr(s.buf, "\"total_memory\": -"));
  free(s.buf);
  nns_inspection_free(in);
}

/* Many calls naming one range of tensors: the range is kept once. */
static void test_tensor_range_shared(void) {
  nns_inspection *in = tree();
  enum { N = 1000 };
  nns_inspect_tensor t[4];
  memset(t, 0, sizeof t);
  nns_inspect_call *c = calloc(N, sizeof *c);
  for (int k = 0; k < N; k++)
    c[k] = (nns_inspect_call){.module = 2, .parent = (size_t)-1,
                              .tensor_first = 0, .tensor_count = 4};
  nns_inspect_batch b = {.size = sizeof b, .wall_start = 1, .calls = c,
                         .call_count = N, .call_size = sizeof *c,
                         .tensors = t, .tensor_count = 4,
                         .tensor_size = sizeof t[0]};
  size_t before = in->arena.total;
  CHECK_EQ(nns_inspection_add_batch(in, &b, NULL), NNS_OK);
  CHECK(in->calls[0].tensors == in->calls[N - 1].tensors);
  /* Not N copies of 4 tensors (~400 KB): a few KB at most. */
  CHECK(in->arena.total - before < 64 * 1024);
  free(c);
  nns_inspection_free(in);
}

/* Hostile names: ESC sequences and bytes that are not UTF-8 never reach
 * the text, CSV or Markdown tables, the HTML title or the JSON raw. */
static void test_hostile_names(void) {
  static const char *paths[] = {"", "\x1b[31mred", "\x1b[31mred.\xff\xfe"};
  nns_inspection *in = chain(paths, 3);
  nns_report_options o = {.size = sizeof o, .max_depth = -1,
                          .model_name = "evil\x1b]0;x\x07\xff"};
  for (int f = 0; f <= NNS_FORMAT_HTML; f++) {
    o.format = (nns_report_format)f;
    sink s = {NULL, 0, -1};
    CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
    CHECK(s.buf && !strchr(s.buf, '\x1b') && !strchr(s.buf, '\x07'));
    CHECK(s.buf && !strchr(s.buf, '\xff') && !strchr(s.buf, '\xfe'));
    if (f == NNS_FORMAT_HTML)
      CHECK(s.buf && strstr(s.buf, "<title>evil?]0;x?\xef\xbf\xbd: nnscan "
                                   "inspection</title>"));
    free(s.buf);
  }
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report_seed(in, &o, sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && !strchr(s.buf, '\x1b') && !strchr(s.buf, '\xff'));
  free(s.buf);
  nns_inspection_free(in);
}

/* Deepest nesting of JSON objects/arrays in s (outside strings). */
static int json_depth(const char *s) {
  int d = 0, most = 0;
  bool str = false;
  for (; *s; s++) {
    if (str) {
      if (*s == '\\')
        s++;
      else if (*s == '"')
        str = false;
      continue;
    }
    if (*s == '"')
      str = true;
    else if (*s == '{' || *s == '[')
      most = ++d > most ? d : most;
    else if (*s == '}' || *s == ']')
      d--;
  }
  return d == 0 ? most : -1;
}

/* A chain 3000 modules deep: the seed layout nests at most 64 modules
 * (about 130 JSON levels, which any parser loads) and lists the rest
 * flat; CSV and Markdown cut long paths, so they grow linearly. */
static void test_deep_chain(void) {
  enum { DEPTH = 3000 };
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, NULL), NNS_OK);
  char *path = calloc(2 * DEPTH + 2, 1);
  size_t len = 0;
  for (size_t i = 0; i <= DEPTH; i++) {
    nns_inspect_module m = {.size = sizeof m, .path = path, .type = "Seq",
                            .parent = i ? i - 1 : (size_t)-1, .flops = -1,
                            .macs = -1};
    CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
    len += (size_t)sprintf(path + len, "%s0", i ? "." : "");
  }
  free(path);
  sink s = {NULL, 0, -1};
  CHECK_EQ(nns_inspection_report_seed(in, NULL, sink_write, &s, NULL),
           NNS_OK);
  int d = s.buf ? json_depth(s.buf) : -1;
  CHECK(d > 64 && d <= 2 * 64 + 8);
  /* Every module is there once: 3001 "info" objects. */
  size_t infos = 0;
  for (const char *p = s.buf; p && (p = strstr(p, "\"info\"")); p++)
    infos++;
  CHECK_EQ(infos, DEPTH + 1);
  free(s.buf);
  /* A binding's paths need not nest ("x" under "0.0..."): flattened
   * keys still come from inside the strings. */
  nns_inspection *odd = NULL;
  CHECK_EQ(nns_inspection_create(&odd, NULL), NNS_OK);
  for (size_t i = 0; i <= 100; i++) {
    nns_inspect_module m = {.size = sizeof m, .path = i % 2 ? "x" : "",
                            .type = "Seq", .parent = i ? i - 1 : (size_t)-1,
                            .flops = -1, .macs = -1};
    CHECK_EQ(nns_inspection_add_module(odd, &m, NULL, NULL), NNS_OK);
  }
  s = (sink){NULL, 0, -1};
  CHECK_EQ(nns_inspection_report_seed(odd, NULL, sink_write, &s, NULL),
           NNS_OK);
  CHECK(s.buf && strstr(s.buf, "\"x#65\": {\"info\""));
  free(s.buf);
  nns_inspection_free(odd);
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_CSV,
                          .max_depth = -1};
  for (int f = NNS_FORMAT_CSV; f <= NNS_FORMAT_MD; f++) {
    o.format = (nns_report_format)f;
    s = (sink){NULL, 0, -1};
    CHECK_EQ(nns_inspection_report(in, &o, sink_write, &s, NULL), NNS_OK);
    /* Each row under 1 KB; uncut the paths alone would be 9 MB. */
    CHECK(s.len < (size_t)(DEPTH + 2) * 1024);
    if (f == NNS_FORMAT_CSV)
      CHECK(s.buf && strstr(s.buf, ",3000,2999\n"));
    free(s.buf);
  }
  nns_inspection_free(in);
}

/* Many siblings: added in order (the child list is appended in O(1)). */
static void test_many_siblings(void) {
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, NULL), NNS_OK);
  enum { N = 5000 };
  char name[16];
  for (size_t i = 0; i <= N; i++) {
    snprintf(name, sizeof name, "%zu", i - 1);
    nns_inspect_module m = {.size = sizeof m, .path = i ? name : "",
                            .type = "M", .parent = i ? 0 : (size_t)-1,
                            .flops = -1, .macs = -1};
    CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
  }
  size_t k = 1;
  for (size_t c = in->modules[0].first_child; c != (size_t)-1;
       c = in->modules[c].next_sibling)
    CHECK_EQ(c, k++);
  CHECK_EQ(k, N + 1);
  nns_inspection_free(in);
}

/* Two threads report one inspection at once (the const functions only
 * read): each gets the report a single thread gets. Built with
 * -fsanitize=thread this also shows no race. */
typedef struct reader_job {
  const nns_inspection *in;
  nns_report_format format;
  char *out;
} reader_job;

static void *read_all(void *arg) {
  reader_job *j = arg;
  for (int round = 0; round < 20; round++) {
    sink s = {NULL, 0, -1};
    nns_report_options o = {.size = sizeof o, .format = j->format,
                            .max_depth = -1};
    nns_inspect_stats st = {.size = sizeof st};
    nns_inspect_offender f = {.size = sizeof f};
    if (nns_inspection_module_stats(j->in, 1, &st, NULL) ||
        nns_inspection_first_nonfinite(j->in, 0, &f, NULL) ||
        nns_inspection_report(j->in, &o, sink_write, &s, NULL)) {
      free(s.buf);
      return NULL;
    }
    if (round == 0)
      j->out = s.buf;
    else if (!j->out || strcmp(j->out, s.buf)) {
      free(s.buf);
      free(j->out);
      j->out = NULL;
      return NULL;
    } else {
      free(s.buf);
    }
  }
  return NULL;
}

static void test_threads_read(void) {
  nns_inspection *in = tree();
  for (int r = 0; r < 3; r++)
    CHECK_EQ(add_pass(in, r, 0, 1.0 + r, r == 1, false), NNS_OK);
  reader_job one = {in, NNS_FORMAT_JSON, NULL};
  read_all(&one);
  CHECK(one.out != NULL);
  reader_job j[2] = {{in, NNS_FORMAT_JSON, NULL}, {in, NNS_FORMAT_JSON, NULL}};
  pthread_t th[2];
  for (int k = 0; k < 2; k++)
    CHECK_EQ(pthread_create(&th[k], NULL, read_all, &j[k]), 0);
  for (int k = 0; k < 2; k++) {
    pthread_join(th[k], NULL);
    CHECK(j[k].out && one.out && !strcmp(j[k].out, one.out));
    free(j[k].out);
  }
  free(one.out);
  nns_inspection_free(in);
}

/* Declared parameters: each distinct tensor once per module and ancestor
 * (the tie between a.x and b once at the root), dtype rows in the order
 * first seen, an odd stride; a rejected array declares nothing. */
static void test_params_declared(void) {
  nns_inspection *in = NULL;
  CHECK_EQ(nns_inspection_create(&in, NULL), NNS_OK);
  nns_inspect_module m = {.size = sizeof m, .path = "", .type = "Net",
                          .parent = (size_t)-1, .flops = -1, .macs = -1};
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
  m.path = "a", m.parent = 0;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
  m.path = "a.x", m.parent = 1;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
  m.path = "b", m.parent = 0;
  CHECK_EQ(nns_inspection_add_module(in, &m, NULL, NULL), NNS_OK);
  enum { STRIDE = sizeof(nns_inspect_param) + 5 };
  char buf[4 * STRIDE + 1];
  memset(buf, 0, sizeof buf);
  nns_inspect_param p[4] = {
      {sizeof p[0], 2, 7, NNS_DT_FLOAT, 32, 10, 1},  /* a.x */
      {sizeof p[0], 3, 7, NNS_DT_FLOAT, 32, 10, 1},  /* b: the same tensor */
      {sizeof p[0], 0, 8, NNS_DT_FLOAT16, 16, 3, 0}, /* root, frozen */
      {sizeof p[0], 3, 9, NNS_DT_INT4, 4, 3, 0}};    /* b: 12 bits, 2 bytes */
  for (int i = 0; i < 4; i++) {
    p[i].size = STRIDE;
    memcpy(buf + 1 + i * STRIDE, &p[i], sizeof p[i]);
  }
  nns_error err = {0};
  CHECK_EQ(nns_inspection_add_params(in, (void *)(buf + 1), 4, &err), NNS_OK);
  const nns__imodule *r = in->modules, *a = &r[1], *ax = &r[2], *b = &r[3];
  CHECK_EQ(ax->params, 10);
  CHECK_EQ(ax->grad_bytes, 40);
  CHECK_EQ(a->params, 10);
  CHECK_EQ(a->param_bytes, 40);
  CHECK_EQ(b->params, 13);
  CHECK_EQ(b->param_bytes, 42);
  CHECK_EQ(b->learnable_params, 10);
  CHECK_EQ(r->params, 16);
  CHECK_EQ(r->learnable_params, 10);
  CHECK_EQ(r->param_bytes, 48);
  CHECK_EQ(r->grad_bytes, 40);
  CHECK_EQ(r->dtype_count, 3);
  CHECK_EQ(r->dtypes[0].dtype, NNS_DT_FLOAT);
  CHECK_EQ(r->dtypes[0].learnable_bytes, 40);
  CHECK_EQ(r->dtypes[1].dtype, NNS_DT_FLOAT16);
  CHECK_EQ(r->dtypes[1].bytes, 6);
  CHECK_EQ(r->dtypes[1].learnable_bytes, 0);
  CHECK_EQ(r->dtypes[2].bytes, 2);
  /* Declaring again adds nothing: the pairs are counted. */
  CHECK_EQ(nns_inspection_add_params(in, (void *)(buf + 1), 4, &err), NNS_OK);
  CHECK_EQ(r->params, 16);
  /* A bad entry after a good new one: the call is refused whole. */
  const nns_inspect_param good = {sizeof good, 1, 11, NNS_DT_FLOAT, 32, 5, 1};
  const nns_inspect_param refused[] = {
      {sizeof good, 4, 12, NNS_DT_FLOAT, 32, 5, 1},   /* no module 4 */
      {sizeof good, 1, 0, NNS_DT_FLOAT, 32, 5, 1},    /* tensor 0 */
      {sizeof good, 1, 12, NNS_DT_FLOAT, 0, 5, 1},    /* 0 bits */
      {sizeof good, 1, 12, NNS_DT_FLOAT, 1025, 5, 1}, /* over 1024 bits */
      {sizeof good, 1, 12, NNS_DT_FLOAT, 32, -1, 1},  /* negative count */
      {sizeof good, 1, 12, NNS_DT_FLOAT, 32, INT64_C(1) << 61, 1}, /* 2^66 */
      {sizeof good, 1, 12, -1, 32, 5, 1}};            /* negative dtype */
  nns_inspect_param bad[2] = {good};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    bad[1] = refused[i];
    CHECK_EQ(nns_inspection_add_params(in, bad, 2, &err), NNS_E_ARG);
    if (i == 0)
      CHECK(strstr(err.message, "module 4") != NULL);
  }
  CHECK_EQ(a->params, 10);
  bad[0].size = sizeof bad[0] - 1;
  CHECK_EQ(nns_inspection_add_params(in, bad, 1, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_add_params(in, NULL, 1, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_add_params(NULL, bad, 1, &err), NNS_E_ARG);
  CHECK_EQ(nns_inspection_add_params(in, NULL, 0, &err), NNS_OK);
  CHECK_EQ(r->params, 16);
  nns_inspection_free(in);
}

int main(void) {
  RUN(test_inclusive_and_self);
  RUN(test_backward_widened);
  RUN(test_backward_siblings_cut);
  RUN(test_nonfinite);
  RUN(test_ranks);
  RUN(test_reports);
  RUN(test_table_units);
  RUN(test_bad_arguments);
  RUN(test_nonfinite_between_children);
  RUN(test_odd_strides);
  RUN(test_refused_values);
  RUN(test_saturating_sums);
  RUN(test_tensor_range_shared);
  RUN(test_hostile_names);
  RUN(test_deep_chain);
  RUN(test_many_siblings);
  RUN(test_threads_read);
  RUN(test_params_declared);
  RUN(test_rank_rows);
  return check_finish();
}
