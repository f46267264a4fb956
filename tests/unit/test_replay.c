/*
 * test_replay.c - packed record 33, replay: a layer's records read again
 * under other names (docs/tape.md, "Replayed layers, read again"). The
 * names expected are worked out by hand from the recorder's numbering
 * (python/nnscan/graph.py) and its layer replay (module_replay.py): the
 * second layer is what the recorder would have packed for it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "packed_writer.h"

static const char *node_name(nns_model *m, size_t i) {
  nns_node_info x = {.size = sizeof x};
  return nns_model_node(m, i, &x) == NNS_OK ? x.name : "?";
}

typedef struct moves {
  uint64_t v[3], n[3], q[3], c[3], inits[2];
} moves;

/* A replay record of bytes [at, at + len) from path `from` to `to`, one
 * argument renamed. */
static void w_replay(wbuf *b, uint64_t at, uint64_t len, const moves *m,
                     const char *from, const char *to, const char *arg_from,
                     const char *arg_to) {
  w_u8(b, NNS_PACKED_REPLAY);
  w(b, &at, 8);
  w(b, &len, 8);
  const uint64_t *kinds[] = {m->v, m->n, m->q, m->c};
  for (int k = 0; k < 4; k++)
    w(b, kinds[k], 24);
  w(b, m->inits, 16);
  w_str(b, from);
  w_str(b, to);
  w_u32(b, arg_from ? 1 : 0);
  if (arg_from) {
    w_str(b, arg_from);
    w_str(b, arg_to);
  }
}

/* The first layer, in module "blk": silu(x) numbered by the library at
 * the recorder's counters (0, 0), its Sigmoid and Mul nodes 0 and 1,
 * values 1 and 2 (the call's output); then the recorder's Relu of it, its
 * own value 1 and node 0, which the call's two of each make v3 and
 * Relu_2. Returns the bytes' offset; *len their length. */
static size_t w_layer(wbuf *a, size_t *len) {
  size_t at = a->n;
  w_names_inits(a, 0, 0, 0);
  w_aten(a, "silu", "blk", "x", NULL, -1, "\3" "0.0");
  w_node(a, "Relu", "\4blk/Relu_0", "\3" "0.0", NULL, "\2v1");
  *len = a->n - at;
  return at;
}

/* The layer again as "blk2", reading v1 (the recorder's "\2v1") where the
 * first read x: the recorder's counters then stand at value 1, node 1,
 * numbered call 1. Its silu reads v3 (value 1 after the first call's two),
 * makes Sigmoid_3 (node 1 after the first call's two) and Mul_4, v4 and
 * v5; its Relu, the recorder's node 1 and value 2, is Relu_5 and v6. */
static void test_a_layer_read_again(void) {
  wbuf a;
  nns_error err;
  w_start(&a);
  w_u8(&a, NNS_PACKED_DEFERRED_NAMES);
  size_t len, at = w_layer(&a, &len);
  moves m = {{0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 0, 0}, {0, 0}};
  w_replay(&a, at, len, &m, "blk", "blk2", "x", "\2v1");
  w_output(&a, "\2v2");
  nns_model *mo = NULL;
  CHECK_EQ(build(&a, &mo, &err), NNS_OK);
  CHECK_EQ(nns_model_node_count(mo), 6);
  static const char *const names[] = {"blk/Sigmoid_0", "blk/Mul_1",
                                      "blk/Relu_2",    "blk2/Sigmoid_3",
                                      "blk2/Mul_4",    "blk2/Relu_5"};
  for (size_t i = 0; mo && i < 6; i++)
    CHECK_STR(node_name(mo, i), names[i]);
  if (mo) {
    CHECK_STR(value_name(mo, 2, 0, false), "v3");
    CHECK_STR(value_name(mo, 3, 0, true), "v3");
    CHECK_STR(value_name(mo, 3, 0, false), "v4");
    CHECK_STR(value_name(mo, 4, 0, false), "v5");
    CHECK_STR(value_name(mo, 5, 0, true), "v5");
    CHECK_STR(value_name(mo, 5, 0, false), "v6");
    nns_node_info x = {.size = sizeof x};
    CHECK_EQ(nns_model_node(mo, 4, &x), NNS_OK);
    CHECK_STR(x.op_type, "Mul");
    CHECK_EQ(nns_model_infer(mo, NULL, &err), NNS_OK);
  }
  nns_model_free(mo);
  /* the entries a kernel record counts: the replay's are its records' */
  nns_builder *bu = NULL;
  CHECK_EQ(nns_builder_new(&bu, &err), NNS_OK);
  CHECK_EQ(nns_builder_add_packed(bu, a.p, a.n, &err), NNS_OK);
  size_t first = 9, n = 9;
  CHECK_EQ(nns_builder_packed_entries(bu, 2, 2, &first, &n, &err), NNS_OK);
  CHECK_EQ(first, 3);
  CHECK_EQ(n, 3);
  const char *got = NULL;
  CHECK_EQ(nns_builder_packed_name(bu, "\3" "1.0", &got, &err), NNS_OK);
  CHECK_STR(got, "v5");
  nns_builder_free(bu);
}

/* Replays that may not be read: each refused with what is wrong. */
static void test_refused(void) {
  wbuf a;
  nns_error err;
  nns_model *m = NULL;
  moves mv = {{0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 0, 0}, {0, 0}};
  size_t len, at;
  w_start(&a); /* without deferred numbering */
  at = w_layer(&a, &len);
  w_replay(&a, at, len, &mv, "blk", "blk2", "x", "\2v1");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "deferred numbering") != NULL);
  struct {
    uint64_t at, len; /* (at 0: the layer's; len 0: its length) */
    const char *from, *why;
  } bad[] = {
      {1, 0, "blk", "earlier records"},       /* the header */
      {0, 1u << 20, "blk", "earlier records"}, /* past itself */
      {0, 0, "", "empty"},                    /* no path */
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    w_start(&a);
    w_u8(&a, NNS_PACKED_DEFERRED_NAMES);
    at = w_layer(&a, &len);
    w_replay(&a, bad[k].at ? bad[k].at : at, bad[k].len ? bad[k].len : len,
             &mv, bad[k].from, "blk2", "x", "\2v1");
    CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
    CHECK(strstr(err.message, bad[k].why) != NULL);
    CHECK(strstr(err.message, "replay") != NULL);
  }
  /* a replay's bytes holding a replay, and a record it does not read */
  w_start(&a);
  w_u8(&a, NNS_PACKED_DEFERRED_NAMES);
  at = w_layer(&a, &len);
  size_t again = a.n;
  mv = (moves){{0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 0, 0}, {0, 0}};
  w_replay(&a, at, len, &mv, "blk", "blk2", "x", "\2v1");
  size_t again_len = a.n - again;
  mv = (moves){{0, 2, 2}, {0, 2, 2}, {0, 2, 2}, {0, 0, 0}, {0, 0}};
  w_replay(&a, at, len + again_len, &mv, "blk", "blk3", "x", "\2v2");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "does not read again") != NULL);
  /* a layer cut short: its names record without its call */
  w_start(&a);
  w_u8(&a, NNS_PACKED_DEFERRED_NAMES);
  at = w_layer(&a, &len);
  mv = (moves){{0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 0, 0}, {0, 0}};
  w_replay(&a, at, 25, &mv, "blk", "blk2", "x", "\2v1");
  CHECK_EQ(build(&a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "not followed by an aten record") != NULL);
  /* every truncation of a replay record */
  w_start(&a);
  w_u8(&a, NNS_PACKED_DEFERRED_NAMES);
  at = w_layer(&a, &len);
  size_t cut = a.n;
  w_replay(&a, at, len, &mv, "blk", "blk2", "x", "\2v1");
  for (size_t n = cut + 1; n < a.n; n++) {
    wbuf t = a;
    t.n = n;
    CHECK_EQ(build(&t, &m, &err), NNS_E_ARG);
  }
  nns_model_free(m);
}

/* The bytes read again in one buffer are bounded (64 times its size):
 * a layer of one node with a 20 KB attribute, read again 200 times,
 * stops past the bound, with the layers before it applied. */
static void test_bounded(void) {
  wbuf *a = malloc(sizeof *a);
  if (!a)
    return;
  nns_error err;
  nns_model *m = NULL;
  w_start(a);
  w_u8(a, NNS_PACKED_DEFERRED_NAMES);
  size_t at = a->n;
  w_node(a, "Relu", "\4blk/Relu_0", "x", NULL, "\2v1");
  static char big[20000];
  memset(big, 'a', sizeof big - 1);
  w_u8(a, NNS_PACKED_ATTR_STRING);
  w_str(a, "note");
  uint64_t n = sizeof big - 1;
  w(a, &n, 8);
  w(a, big, sizeof big - 1);
  size_t len = a->n - at;
  for (uint64_t k = 1; k <= 200 && a->n + 200 < sizeof a->p; k++) {
    moves mv = {{0, 1, k}, {0, 1, k}, {0, 0, 0}, {0, 0, 0}, {0, 0}};
    w_replay(a, at, len, &mv, "blk", "blk", "x", "\2v1");
  }
  CHECK_EQ(build(a, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "64 times") != NULL);
  nns_model_free(m);
  free(a);
}

int main(void) {
  RUN(test_a_layer_read_again);
  RUN(test_refused);
  RUN(test_bounded);
  return check_finish();
}
