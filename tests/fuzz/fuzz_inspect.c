/*
 * fuzz_inspect.c - libFuzzer target for the inspection API, the way the
 * Python Inspector feeds it: the input is decoded into a module tree
 * (nns_inspection_add_module) and a few batches (nns_inspection_add_batch)
 * with strides that need not be multiples of 8, any indexes, events,
 * flags, names and dims; then every accessor and report runs. Every call
 * must end with a status - never a crash, leak, overflow or misaligned
 * read.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nnscan.h"
#include "fuzz_reader.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double f64(reader *r) {
  unsigned k = byte(r);
  switch (k & 7) {
  case 0: return __builtin_nan("");
  case 1: return __builtin_inf();
  case 2: return -1;
  case 3: return 1e300;
  default: return (double)((k >> 3) * 256 + byte(r)) / 16.0;
  }
}

static size_t index_of(reader *r, size_t n) {
  unsigned k = byte(r);
  if (k == 255)
    return (size_t)-1;
  if (k == 254)
    return SIZE_MAX - byte(r);
  return n ? k % (n + 1) : k; /* n itself: one past the end */
}

static const char *text(reader *r, char buf[17]) {
  static const char *pool[] = {"", "a", "a.b", "0", "layer.0.conv",
                               "\x1b[31mred", "\xff\xfe", "x\"<y>&"};
  unsigned k = byte(r);
  if (k < 200)
    return pool[k % 8];
  if (k < 210)
    return NULL;
  size_t len = k % 17;
  for (size_t i = 0; i < len; i++)
    buf[i] = (char)byte(r);
  buf[len] = 0;
  return buf;
}

static nns_inspect_event event(reader *r) {
  nns_inspect_event e = {f64(r), i64(r), i64(r)};
  return e;
}

enum { MAXC = 24, MAXT = 32, MAXD = 48, PAD = 15 };

static void add_batch(nns_inspection *in, reader *r) {
  size_t nc = byte(r) % (MAXC + 1), nt = byte(r) % (MAXT + 1);
  size_t nd = byte(r) % (MAXD + 1);
  /* Strides of sizeof + 0..15: most not multiples of 8. */
  size_t cs = sizeof(nns_inspect_call) + byte(r) % (PAD + 1);
  size_t ts = sizeof(nns_inspect_tensor) + byte(r) % (PAD + 1);
  /* One byte in: the arrays start misaligned too when the input says. */
  size_t off = byte(r) & 1;
  char *calls = calloc(1, cs * MAXC + off + 1);
  char *tens = calloc(1, ts * MAXT + off + 1);
  char names[MAXT][17];
  int64_t dims[MAXD];
  for (size_t i = 0; i < nd; i++)
    dims[i] = i64(r);
  for (size_t i = 0; i < nc && calls; i++) {
    nns_inspect_call c = {0};
    c.module = index_of(r, nns_inspection_module_count(in));
    c.parent = i && byte(r) % 3 ? (i - 1 - byte(r) % i) : (size_t)-1;
    if (byte(r) == 7)
      c.parent = index_of(r, i);
    c.flags = byte(r) % 8;
    c.fwd_seq = i64(r);
    c.bwd_seq = i64(r);
    c.fwd_start = event(r);
    c.fwd_end = event(r);
    c.bwd_start = event(r);
    c.bwd_end = event(r);
    c.tensor_first = index_of(r, nt);
    c.tensor_count = byte(r) % 6;
    memcpy(calls + off + i * cs, &c, sizeof c);
  }
  for (size_t i = 0; i < nt && tens; i++) {
    nns_inspect_tensor t = {0};
    t.role = (nns_tensor_role)(byte(r) % 5);
    t.dtype = (int)(byte(r) % 20);
    t.rank = (int)(byte(r) % 6);
    t.flags = byte(r) % 16;
    t.dims = index_of(r, nd);
    t.name = text(r, names[i]);
    t.bytes = i64(r);
    t.min = f64(r);
    t.max = f64(r);
    t.mean = f64(r);
    t.std = f64(r);
    t.zero_fraction = f64(r);
    memcpy(tens + off + i * ts, &t, sizeof t);
  }
  nns_inspect_batch b = {.size = sizeof b,
                         .rank = (int)(byte(r) % 4),
                         .pass = i64(r),
                         .wall_start = byte(r) == 3 ? f64(r) : 1.7e9,
                         .calls = calls ? (void *)(calls + off) : NULL,
                         .call_count = nc,
                         .call_size = cs,
                         .tensors = tens ? (void *)(tens + off) : NULL,
                         .tensor_count = nt,
                         .tensor_size = ts,
                         .dims = dims,
                         .dim_count = nd};
  if (calls && tens)
    (void)nns_inspection_add_batch(in, &b, NULL);
  free(calls);
  free(tens);
}

/* Declared parameters (nns_inspection_add_params): any module index,
 * tensor (few distinct, so ties are common), dtype, bits and count, at an
 * odd stride. */
static void add_params(nns_inspection *in, reader *r) {
  enum { MAXP = 16 };
  size_t np = byte(r) % (MAXP + 1);
  size_t ps = sizeof(nns_inspect_param) + byte(r) % (PAD + 1);
  size_t off = byte(r) & 1;
  char *buf = calloc(1, ps * MAXP + off + 1);
  if (!buf)
    return;
  for (size_t i = 0; i < np; i++) {
    nns_inspect_param p = {.size = ps,
                           .module = index_of(r, nns_inspection_module_count(in)),
                           .tensor = byte(r) % 5,
                           .dtype = (int)(byte(r) % 24) - 1,
                           .element_bits = (int)(byte(r) * 5) - 3,
                           .elements = i64(r),
                           .learnable = byte(r) & 1};
    memcpy(buf + off + i * ps, &p, sizeof p);
  }
  (void)nns_inspection_add_params(in, np ? (void *)(buf + off) : NULL, np,
                                  NULL);
  free(buf);
}

/* Rank records (nns_inspection_set_rank): any rank, counts, static
 * counts or none, a mesh with names from the pool (NULL among them). */
static void set_ranks(nns_inspection *in, reader *r) {
  size_t n = byte(r) % 4;
  for (size_t i = 0; i < n; i++) {
    char b0[17], b1[17];
    const char *names[2] = {text(r, b0), text(r, b1)};
    int64_t sizes[2] = {i64(r), i64(r)};
    nns_per_rank pr = {.size = sizeof pr, .world_size = i64(r),
                       .params = i64(r), .param_bytes = i64(r),
                       .train_peak_bytes = i64(r), .comm_bytes = i64(r),
                       .comm = {i64(r), i64(r), i64(r), i64(r)},
                       .estimate = byte(r) & 1};
    nns_inspect_rank k = {.size = sizeof k,
                          .rank = (int)(byte(r) * 300) - 8,
                          .counts = byte(r) & 1 ? &pr : NULL,
                          .mesh_count = byte(r) % 3,
                          .mesh_name = byte(r) ? names : NULL,
                          .mesh_size = sizes};
    for (int j = 0; j < NNS_COMM_KIND_COUNT; j++) {
      k.comm_calls[j] = i64(r);
      k.comm_bytes[j] = i64(r);
    }
    (void)nns_inspection_set_rank(in, &k, NULL);
  }
  for (size_t i = 0; i < nns_inspection_rank_count(in) + 1; i++) {
    nns_inspect_rank_info x = {.size = sizeof x};
    (void)nns_inspection_rank(in, i, &x, NULL);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size};
  nns_inspection *in = NULL;
  if (nns_inspection_create(&in, NULL) != NNS_OK)
    return 0;
  size_t nm = 1 + byte(&r) % 24;
  for (size_t i = 0; i < nm; i++) {
    char pb[17], tb[17];
    nns_inspect_dtype_bytes dt[3];
    size_t ndt = byte(&r) % 4;
    for (size_t k = 0; k < ndt; k++)
      dt[k] = (nns_inspect_dtype_bytes){(int)(byte(&r) % 20), i64(&r),
                                        i64(&r)};
    nns_inspect_module m = {.size = sizeof m,
                            .path = text(&r, pb),
                            .type = text(&r, tb),
                            .parent = i ? index_of(&r, i) : (size_t)-1,
                            .params = i64(&r),
                            .learnable_params = i64(&r),
                            .param_bytes = i64(&r),
                            .grad_bytes = i64(&r),
                            .flops = i64(&r),
                            .macs = i64(&r),
                            .param_dtypes = ndt < 3 ? dt : NULL,
                            .param_dtype_count = ndt};
    if (byte(&r) == 0)
      m.parent = index_of(&r, i);
    (void)nns_inspection_add_module(in, &m, NULL, NULL);
  }
  add_params(in, &r);
  size_t nb = byte(&r) % 4;
  for (size_t i = 0; i < nb; i++)
    add_batch(in, &r);
  set_ranks(in, &r);
  unsigned sum = 0;
  for (size_t m = 0; m < nns_inspection_module_count(in); m++) {
    nns_inspect_stats s = {.size = sizeof s};
    (void)nns_inspection_module_stats(in, m, &s, NULL);
  }
  nns_inspect_offender o = {.size = sizeof o};
  (void)nns_inspection_first_nonfinite(in, 0, &o, NULL);
  (void)nns_inspection_first_nonfinite(in, 1, &o, NULL);
  static const nns_report_format formats[] = {
      NNS_FORMAT_TEXT, NNS_FORMAT_CSV, NNS_FORMAT_MD, NNS_FORMAT_JSON,
      NNS_FORMAT_HTML};
  for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
    nns_report_options ro = {.size = sizeof ro, .format = formats[f],
                             .max_depth = NNS_DEPTH_ALL,
                             .numbers = (nns_numbers)(f % 3)};
    (void)nns_inspection_report(in, &ro, fuzz_sink, &sum, NULL);
  }
  (void)nns_inspection_report_seed(in, NULL, fuzz_sink, &sum, NULL);
  nns_inspection_free(in);
  return 0;
}
