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
 *
 * Costs count every time step of every direction (docs/metrics.md row
 * LSTM / GRU / RNN); see rnn_cost. No receptive-field rule: a recurrence
 * has no spatial axes.
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

/* ==== Cost ==== */

/* FLOPs per element of the activation functions ONNX allows in a
 * recurrence, as the element-wise ops' rows count them (docs/metrics.md);
 * those without a row: Affine and Elu 2-3, ScaledTanh a Tanh and two
 * multiplies, Softsign an abs, add and divide. */
static int64_t act_flops(const char *name) {
  static const struct {
    const char *name;
    int64_t flops;
  } table[] = {{"Relu", 1},        {"Tanh", 6},       {"Sigmoid", 4},
               {"Affine", 2},      {"LeakyRelu", 4},  {"ThresholdedRelu", 1},
               {"ScaledTanh", 8},  {"HardSigmoid", 3}, {"Elu", 3},
               {"Softsign", 3},    {"Softplus", 3}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(name, table[i].name) == 0)
      return table[i].flops;
  return 1;
}

/* The FLOPs of activation j of direction d: the `activations` attribute
 * lists per_dir functions per direction, else the defaults. */
static int64_t act_at(nns__ictx *cx, int64_t d, int j, int per_dir,
                      const char *const *defaults) {
  const nns__attr *a = nns__attr_get(cx, "activations");
  int64_t i = d * per_dir + j;
  if (a && a->type == NNS__AT_STRINGS && i < a->n && a->strings[i])
    return act_flops(a->strings[i]);
  return act_flops(defaults[j]);
}

/* The first known of two dims (else the first, symbolic), counted. */
static int64_t pick(nns__ictx *cx, nns__cost *c, const nns__dim *a,
                    const nns__dim *b) {
  const nns__dim *d = a && !a->sym ? a : b && !b->sym ? b : a ? a : b;
  return d ? nns__dim_count(c, *d, cx->m) : -1;
}

/*
 * Per time step and direction, with B batch, I input and H hidden size and
 * G gates (RNN 1, GRU 3, LSTM 4):
 *   the gate products X_t*W^T and H_{t-1}*R^T, as MatMul counts them: MACs
 *   B*G*H*(I + H), FLOPs B*G*H*(2I - 1) + B*G*H*(2H - 1);
 *   summing the two products, B*G*H, and the biases Wb and Rb when B is
 *   given, 2*B*G*H; clipping when `clip` is set, 2*B*G*H (as Clip);
 *   per hidden unit and batch element, the gate math: the activations at
 *   their element-wise FLOPs (defaults: RNN tanh; GRU sigmoid z and r,
 *   tanh candidate; LSTM sigmoid i, f, o, tanh candidate and cell output),
 *   GRU r*(...) 1 and H = (1 - z)*h' + z*H 4, LSTM C = f*C + i*c' 3,
 *   H = o*h(C) 1 and the peepholes 6 when P is given;
 *   DMAs: the direction's weights (W, R, B, P) read, x_t (B*I) and
 *   h_{t-1} (B*H) read, h_t written (B*H), LSTM's cell read and written
 *   (2*B*H).
 * Once: sequence_lens read, Y_h and Y_c written. The sequence length is
 * X's (a symbolic one counts as 1 and is flagged); sequence_lens, which
 * may stop some batch entries early, is data and not used.
 */
static nns_status rnn_cost_rule(nns__ictx *cx, nns__cost *c, int64_t gates) {
  const nns__type *tx = nns__in_type(cx, 0), *tw = nns__in_type(cx, 1);
  const nns__type *tr = nns__in_type(cx, 2);
  if (!tx || tx->rank != 3)
    return NNS__UNCOUNTED;
  bool w3 = tw && tw->rank == 3, r3 = tr && tr->rank == 3;
  bool batch_first = cx->op->since >= 14 && nns__attr_int(cx, "layout") != 0;
  int64_t t = nns__dim_count(c, tx->dims[batch_first ? 1 : 0], cx->m);
  int64_t b = nns__dim_count(c, tx->dims[batch_first ? 0 : 1], cx->m);
  int64_t in = pick(cx, c, &tx->dims[2], w3 ? &tw->dims[2] : NULL);
  int64_t h = -1;
  if (nns__attr_has(cx, "hidden_size"))
    h = nns__attr_int(cx, "hidden_size");
  else if (r3)
    h = nns__dim_count(c, tr->dims[2], cx->m);
  else if (w3)
    h = nns__dim_count(c, tw->dims[1], cx->m) / gates;
  int64_t dirs = strcmp(nns__attr_str(cx, "direction"), "bidirectional")
                     ? 1 : 2;
  if (h < 1 || in < 0)
    return NNS__UNCOUNTED;
  bool lstm = gates == 4, gru = gates == 3;
  bool bias = nns__has_in(cx, 3), peep = lstm && nns__has_in(cx, 7);
  int64_t gh = nns__cmul(c, gates, h), bgh = nns__cmul(c, b, gh);
  int64_t bh = nns__cmul(c, b, h);
  /* The gate products and sums, the same for every step. */
  int64_t macs = nns__cmul(c, bgh, nns__cadd(c, in, h));
  int64_t lin = nns__cmul(c, 2, macs); /* 2*MACs - 2*BGH + BGH */
  lin = lin < INT64_MAX && lin >= bgh ? lin - bgh : lin;
  int64_t sums = (bias ? 2 : 0) + (nns__attr_has(cx, "clip") ? 2 : 0);
  lin = nns__cadd(c, lin, nns__cmul(c, sums, bgh));
  /* Weights read per step and direction. */
  int64_t wread = nns__cmul(c, gh, nns__cadd(c, in, h));
  if (bias)
    wread = nns__cadd(c, wread, nns__cmul(c, 2, gh));
  if (peep)
    wread = nns__cadd(c, wread, nns__cmul(c, 3, h));
  int64_t state = nns__cmul(c, bh, lstm ? 4 : 2); /* h (+ c) in and out */
  int64_t step_dmas = nns__cadd(c, wread, nns__cadd(c, nns__cmul(c, b, in),
                                                    state));
  static const char *const rnn_acts[] = {"Tanh"};
  static const char *const gru_acts[] = {"Sigmoid", "Tanh"};
  static const char *const lstm_acts[] = {"Sigmoid", "Tanh", "Tanh"};
  c->flops = c->macs = c->dmas = 0;
  for (int64_t d = 0; d < dirs; d++) {
    int64_t unit; /* gate math per hidden unit and batch element */
    if (lstm)
      unit = 3 * act_at(cx, d, 0, 3, lstm_acts) +
             act_at(cx, d, 1, 3, lstm_acts) + act_at(cx, d, 2, 3, lstm_acts) +
             4 + (peep ? 6 : 0);
    else if (gru)
      unit = 2 * act_at(cx, d, 0, 2, gru_acts) +
             act_at(cx, d, 1, 2, gru_acts) + 5;
    else
      unit = act_at(cx, d, 0, 1, rnn_acts);
    int64_t step = nns__cadd(c, lin, nns__cmul(c, unit, bh));
    c->flops = nns__cadd(c, c->flops, nns__cmul(c, t, step));
    c->macs = nns__cadd(c, c->macs, nns__cmul(c, t, macs));
    c->dmas = nns__cadd(c, c->dmas, nns__cmul(c, t, step_dmas));
  }
  /* sequence_lens read; Y_h and Y_c written. */
  int64_t once[3] = {nns__has_in(cx, 4) ? nns__in_count(cx, c, 4) : 0,
                     nns__has_out(cx, 1) ? nns__out_count(cx, c, 1) : 0,
                     nns__has_out(cx, 2) ? nns__out_count(cx, c, 2) : 0};
  for (int i = 0; i < 3; i++) {
    if (once[i] < 0)
      return NNS__UNCOUNTED;
    c->dmas = nns__cadd(c, c->dmas, once[i]);
  }
  return NNS_OK;
}

static nns_status rnn_cost(nns__ictx *cx, nns__cost *c) {
  return rnn_cost_rule(cx, c, 1);
}
static nns_status gru_cost(nns__ictx *cx, nns__cost *c) {
  return rnn_cost_rule(cx, c, 3);
}
static nns_status lstm_cost(nns__ictx *cx, nns__cost *c) {
  return rnn_cost_rule(cx, c, 4);
}

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
    {"", "RNN", 1, 6, "awwbca", rnn1_attrs, rnn_shape, NULL,
     .cost = rnn_cost},
    {"", "RNN", 7, 13, "awwbca", rnn7_attrs, rnn_shape, NULL,
     .cost = rnn_cost},
    {"", "RNN", 14, NNS__OPSET_MAX, "awwbca", rnn14_attrs, rnn_shape, NULL,
     .cost = rnn_cost},
    {"", "GRU", 1, 2, "awwbca", gru1_attrs, gru_shape, NULL,
     .cost = gru_cost},
    {"", "GRU", 3, 6, "awwbca", gru3_attrs, gru_shape, NULL,
     .cost = gru_cost},
    {"", "GRU", 7, 13, "awwbca", gru7_attrs, gru_shape, NULL,
     .cost = gru_cost},
    {"", "GRU", 14, NNS__OPSET_MAX, "awwbca", gru14_attrs, gru_shape, NULL,
     .cost = gru_cost},
    {"", "LSTM", 1, 6, "awwbcaaw", lstm1_attrs, lstm_shape, NULL,
     .cost = lstm_cost},
    {"", "LSTM", 7, 13, "awwbcaaw", lstm7_attrs, lstm_shape, NULL,
     .cost = lstm_cost},
    {"", "LSTM", 14, NNS__OPSET_MAX, "awwbcaaw", lstm14_attrs, lstm_shape, NULL,
     .cost = lstm_cost},
    NNS__OP_END,
};
