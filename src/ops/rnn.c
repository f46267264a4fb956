/*
 * rnn.c - operator family "rnn": RNN, GRU and LSTM. They share one shape
 * rule and differ only in how many gates their weights stack (1, 3, 4):
 *
 *   X [seq, batch, input]   (layout=1: [batch, seq, input])
 *   W [dirs, gates*hidden, input], R [dirs, gates*hidden, hidden]
 *   Y [seq, dirs, batch, hidden]   (layout=1: [batch, seq, dirs, hidden])
 *   Y_h, Y_c [dirs, batch, hidden] (layout=1: [batch, dirs, hidden])
 *
 * hidden comes from the hidden_size attribute, else from R or W.
 */
#include <string.h>

#include "op.h"

/* ==== Shared rule ==== */

/* Checks an input's rank (when known) and returns its dims or NULL. */
static nns_status ranked(nns__ictx *cx, int i, int32_t rank, const char *what,
                         const nns__dim **dims) {
  const nns__type *t = nns__in_type(cx, i);
  *dims = NULL;
  if (!t || t->rank < 0)
    return NNS_OK;
  if (t->rank != rank)
    return nns__fail(cx, NNS_E_SHAPE, "%s has rank %d, expected %d", what,
                     t->rank, rank);
  *dims = t->dims;
  return NNS_OK;
}

/* Unifies two sources of one size: both known and different fails. */
static nns_status agree(nns__ictx *cx, nns__dim *have, nns__dim d,
                        const char *what, const char *where) {
  if (d.sym)
    return NNS_OK;
  if (have->sym) {
    *have = d;
    return NNS_OK;
  }
  if (have->v != d.v)
    return nns__fail(cx, NNS_E_SHAPE, "%s is %lld but %s gives %lld", what,
                     (long long)have->v, where, (long long)d.v);
  return NNS_OK;
}

static nns_status rnn_rule(nns__ictx *cx, int64_t gates) {
  int32_t dt = nns__in_dtype(cx, 0);
  if (!dt)
    dt = nns__in_dtype(cx, 1);
  bool batch_first = cx->op->since >= 14 && nns__attr_int(cx, "layout") != 0;
  const char *dir = nns__attr_str(cx, "direction");
  int64_t dirs;
  if (strcmp(dir, "bidirectional") == 0)
    dirs = 2;
  else if (!dir[0] || strcmp(dir, "forward") == 0 ||
           strcmp(dir, "reverse") == 0 || strcmp(dir, "foward") == 0)
    dirs = 1; /* "foward": GRU-1's documented default, misspelt */
  else
    return nns__fail(cx, NNS_E_ATTR, "direction '%s' is not forward, reverse "
                     "or bidirectional", dir);
  const nns__dim *x, *w, *r;
  nns_status st;
  if ((st = ranked(cx, 0, 3, "X", &x)) != NNS_OK ||
      (st = ranked(cx, 1, 3, "W", &w)) != NNS_OK ||
      (st = ranked(cx, 2, 3, "R", &r)) != NNS_OK)
    return st;
  nns__dim seq = x ? x[batch_first ? 1 : 0] : nns__fresh(cx);
  nns__dim batch = x ? x[batch_first ? 0 : 1] : nns__fresh(cx);
  nns__dim nd = nns__dim_known(dirs), hidden = nns__fresh(cx);
  if (nns__attr_has(cx, "hidden_size")) {
    int64_t h = nns__attr_int(cx, "hidden_size");
    if (h < 1)
      return nns__fail(cx, NNS_E_ATTR, "hidden_size is %lld, must be >= 1",
                       (long long)h);
    hidden = nns__dim_known(h);
  }
  if (r && (st = agree(cx, &hidden, r[2], "hidden_size", "R's last dim")) !=
               NNS_OK)
    return st;
  for (int k = 0; k < 2; k++) {
    const nns__dim *m = k ? r : w;
    if (!m)
      continue;
    if ((st = agree(cx, &nd, m[0], "the number of directions",
                    k ? "R's first dim" : "W's first dim")) != NNS_OK)
      return st;
    /* The stacked gate dim must be gates * hidden. */
    nns__dim g = m[1];
    if (!g.sym && g.v % gates != 0)
      return nns__fail(cx, NNS_E_SHAPE, "%s dim 1 is %lld, not a multiple of "
                       "%lld gates", k ? "R" : "W", (long long)g.v,
                       (long long)gates);
    if (!g.sym && (st = agree(cx, &hidden, nns__dim_known(g.v / gates),
                              "hidden_size", k ? "R's dim 1 / gates"
                                               : "W's dim 1 / gates")) !=
                      NNS_OK)
      return st;
  }
  if (x && w && !x[2].sym && !w[2].sym && x[2].v != w[2].v)
    return nns__fail(cx, NNS_E_SHAPE, "X has input size %lld but W expects "
                     "%lld", (long long)x[2].v, (long long)w[2].v);
  /* Y, then Y_h and Y_c alike. */
  nns__dim *y = nns__out_shape(cx, 0, dt, 4);
  if (y) {
    nns__dim v[4] = {seq, nd, batch, hidden};
    nns__dim bf[4] = {batch, seq, nd, hidden};
    memcpy(y, batch_first ? bf : v, sizeof v);
  }
  for (int o = 1; o <= 2; o++) {
    nns__dim *h = nns__out_shape(cx, o, dt, 3);
    if (h) {
      h[0] = batch_first ? batch : nd;
      h[1] = batch_first ? nd : batch;
      h[2] = hidden;
    }
  }
  return NNS_OK;
}

static nns_status rnn_shape(nns__ictx *cx) { return rnn_rule(cx, 1); }
static nns_status gru_shape(nns__ictx *cx) { return rnn_rule(cx, 3); }
static nns_status lstm_shape(nns__ictx *cx) { return rnn_rule(cx, 4); }

/* ==== Entries ==== */

/* The attributes every version shares, then each version's extras. */
#define RNN_COMMON_ATTRS                                                       \
  NNS__A_OPT("activation_alpha", FLOATS),                                      \
      NNS__A_OPT("activation_beta", FLOATS),                                   \
      NNS__A_OPT("activations", STRINGS), NNS__A_OPT("clip", FLOAT),           \
      NNS__A_OPT("hidden_size", INT)

static const nns__attr_spec rnn1_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("output_sequence", 0), NNS__A_END};
static const nns__attr_spec rnn7_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"), NNS__A_END};
static const nns__attr_spec rnn14_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("layout", 0), NNS__A_END};
static const nns__attr_spec gru1_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "foward"),
    NNS__A_INT("output_sequence", 0), NNS__A_END};
static const nns__attr_spec gru3_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("linear_before_reset", 0), NNS__A_INT("output_sequence", 0),
    NNS__A_END};
static const nns__attr_spec gru7_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("linear_before_reset", 0), NNS__A_END};
static const nns__attr_spec gru14_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("layout", 0), NNS__A_INT("linear_before_reset", 0),
    NNS__A_END};
static const nns__attr_spec lstm1_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("input_forget", 0), NNS__A_INT("output_sequence", 0),
    NNS__A_END};
static const nns__attr_spec lstm7_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("input_forget", 0), NNS__A_END};
static const nns__attr_spec lstm14_attrs[] = {
    RNN_COMMON_ATTRS, NNS__A_STR("direction", "forward"),
    NNS__A_INT("input_forget", 0), NNS__A_INT("layout", 0), NNS__A_END};

/*
 * Inputs: X, W, R, B, sequence_lens, initial_h (, initial_c, P for LSTM).
 * Opset 7 dropped output_sequence, 14 added layout; GRU-3 added
 * linear_before_reset.
 */
const nns__op nns__ops_rnn[] = {
    {"", "RNN", 1, 6, "awwbca", rnn1_attrs, rnn_shape, NULL},
    {"", "RNN", 7, 13, "awwbca", rnn7_attrs, rnn_shape, NULL},
    {"", "RNN", 14, 17, "awwbca", rnn14_attrs, rnn_shape, NULL},
    {"", "GRU", 1, 2, "awwbca", gru1_attrs, gru_shape, NULL},
    {"", "GRU", 3, 6, "awwbca", gru3_attrs, gru_shape, NULL},
    {"", "GRU", 7, 13, "awwbca", gru7_attrs, gru_shape, NULL},
    {"", "GRU", 14, 17, "awwbca", gru14_attrs, gru_shape, NULL},
    {"", "LSTM", 1, 6, "awwbcaaw", lstm1_attrs, lstm_shape, NULL},
    {"", "LSTM", 7, 13, "awwbcaaw", lstm7_attrs, lstm_shape, NULL},
    {"", "LSTM", 14, 17, "awwbcaaw", lstm14_attrs, lstm_shape, NULL},
    NNS__OP_END,
};
