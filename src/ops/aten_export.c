/*
 * aten_export.c - the aten table's export family: ops torch.export keeps
 * in an archive while the live recorder, below PyTorch's composite ops,
 * only ever sees what they decompose into (log_sigmoid runs
 * log_sigmoid_forward, cross_entropy_loss runs log_softmax and
 * nll_loss_nd, dropout in training runs empty_like, bernoulli_, div_ and
 * mul on the CPU, broadcast_tensors runs an expand per operand that
 * needs one). Each entry lowers to the nodes the recorder makes of that
 * decomposition, through the other families' entries where one fits (the
 * op lives in one place), so a .pt2 and a live recording of the same
 * module count alike.
 */
#include "aten_int.h"

#include <string.h>

/* ==== Calling another entry ==== */

/* A front end seen through a few values of its own: a rule called on the
 * values made here (a reshaped input, a log_softmax's output) asks their
 * sizes, which the front end never saw. */
typedef struct shim {
  nns__aten_call *c;            /* the call being lowered */
  const char *names[4];         /* values made here */
  nns__aten_meta metas[4];      /* their sizes */
  int64_t dims[4][16];          /* the sizes metas[k] point to */
  const char *syms[4][16];      /* their symbols */
  int n;
} shim;

static const nns__aten_meta *shim_meta(void *fe, const char *name) {
  shim *s = fe;
  for (int k = 0; k < s->n; k++)
    if (name && !strcmp(name, s->names[k]))
      return &s->metas[k];
  return s->c->meta(s->c->fe, name);
}

static nns_status shim_alias(void *fe, const char *out, const char *src) {
  shim *s = fe;
  return s->c->alias(s->c->fe, out, src);
}

static const char *shim_fresh(void *fe) {
  shim *s = fe;
  return s->c->fresh(s->c->fe);
}

static const char *shim_symval(void *fe, const char *sym) {
  shim *s = fe;
  return s->c->symval ? s->c->symval(s->c->fe, sym) : NULL;
}

static const char *shim_fresh_const(void *fe) {
  shim *s = fe;
  return s->c->fresh_const ? s->c->fresh_const(s->c->fe)
                           : s->c->fresh(s->c->fe);
}

static nns_status shim_real_form(void *fe, const char *out, const char *src) {
  shim *s = fe;
  return s->c->real_form(s->c->fe, out, src);
}

static const char *shim_node_name(void *fe, const char *op_type,
                                  const char *domain) {
  shim *s = fe;
  return s->c->node_name(s->c->fe, op_type, domain);
}

static const char *shim_numbered(void *fe, const char *name, bool written) {
  shim *s = fe;
  return s->c->numbered(s->c->fe, name, written);
}

static bool shim_reading(void *fe, const char *const *ins, size_t n) {
  shim *s = fe;
  return s->c->reading(s->c->fe, ins, n);
}

/* Value `name` made here, of dtype and sizes dims (rank r; syms NULL or
 * the symbols of the sizes < 0). False when the shim is full. */
static bool shim_add(shim *s, const char *name, int32_t dtype, int r,
                     const int64_t *dims, const char *const *syms) {
  if (s->n >= 4 || r > 16 || r < 0)
    return false;
  int k = s->n++;
  s->names[k] = name;
  for (int d = 0; d < r; d++) {
    s->dims[k][d] = dims[d];
    s->syms[k][d] = syms && dims[d] < 0 ? syms[d] : NULL;
  }
  s->metas[k] = (nns__aten_meta){dtype, r, s->dims[k], s->syms[k]};
  return true;
}

/* Entry `op` lowering a call of the same node name and module as c, on
 * args[0..n) with outputs outs[0..n_outs). */
static nns_status lower_as(nns__aten_call *c, shim *s, const char *op,
                           const nns__aten_arg *args, int n,
                           const char *const *outs, int n_outs) {
  const nns__aten_op *e = nns__aten_find(op);
  if (!e)
    return NNS_E_NOTFOUND;
  s->c = c;
  nns__aten_call sub = *c;
  sub.op = op;
  sub.args = args;
  sub.n_args = n;
  sub.outs = outs;
  sub.n_outs = n_outs;
  sub.meta = shim_meta;
  sub.alias = shim_alias;
  /* every service the front end offers, through the shim (each reaches
   * the front end's own state, which the shim stands in front of) */
  sub.fresh = shim_fresh;
  sub.fresh_const = shim_fresh_const;
  sub.real_form = c->real_form ? shim_real_form : NULL;
  sub.node_name = c->node_name ? shim_node_name : NULL;
  sub.numbered = c->numbered ? shim_numbered : NULL;
  sub.reading = c->reading ? shim_reading : NULL;
  sub.symval = shim_symval;
  sub.fe = s;
  return nns__aten_lower(&sub, e);
}

static nns__aten_arg tensor_arg(const char *name, const char *value) {
  return (nns__aten_arg){.name = name, .kind = NNS__AA_TENSOR,
                         .tensor = value};
}

static nns__aten_arg int_arg(const char *name, int64_t v) {
  return (nns__aten_arg){.name = name, .kind = NNS__AA_INT, .i = v};
}

/* The call's arguments with tensor `name` made `value` (the others as
 * they are), in out[0..64); their count. */
static int with_tensor(const nns__aten_call *c, const char *name,
                       const char *value, nns__aten_arg *out) {
  int n = c->n_args < 64 ? c->n_args : 64;
  for (int k = 0; k < n; k++) {
    out[k] = c->args[k];
    if (out[k].name && !strcmp(out[k].name, name))
      out[k] = tensor_arg(name, value);
  }
  return n;
}

/* A Reshape of x to dims (rank r, every size known) into `out` (a fresh
 * value when NULL): its name, NULL on failure. */
static const char *reshape(nns__aten_call *c, const char *x, int r,
                           const int64_t *dims, const char *out) {
  const char *o = out ? out : c->fresh(c->fe);
  const char *ins[] = {x, o ? nns__aten_const_ints(c, dims, r, false) : NULL};
  if (!ins[1])
    return NULL;
  return nns__aten_node(c, "Reshape", "", ins, 2, &o, 1) == NNS_OK ? o : NULL;
}

/* The status of a failed helper: its error, or "cannot lower". */
static nns_status failed(const nns__aten_call *c) {
  return c->err->code ? c->err->code : NNS_E_NOTFOUND;
}

/* ==== Losses ==== */

/* The loss of log-probabilities x (meta mx) against the call's target
 * into the call's output, as nll_loss_nd runs it: nll_loss_forward for 2
 * or 4 dims (N, C[, H, W]); otherwise x viewed as [N, C, 1, -1] and the
 * target as [N, 1, -1] into nll_loss2d_forward, whose unreduced output is
 * viewed back to the target's sizes. One dim (no batch) is not lowered
 * (the recorder keeps it uncounted too). */
static nns_status nll_nd(nns__aten_call *c, shim *s, const char *x,
                         const nns__aten_meta *mx) {
  nns__aten_arg args[64];
  const char *y = A_T(c, "target");
  const nns__aten_meta *my = A_META(c, y);
  if (!y || !my || !mx || mx->rank < 2 || mx->rank > 16 || c->n_outs < 1 ||
      !c->outs[0])
    return NNS_E_NOTFOUND;
  if (mx->rank == 2 || mx->rank == 4) {
    int n = with_tensor(c, "self", x, args);
    return lower_as(c, s, "nll_loss_forward", args, n, c->outs, 1);
  }
  /* the view's sizes: every one known */
  int64_t rest = 1;
  for (int k = 0; k < mx->rank; k++)
    if (mx->dims[k] < 0)
      return NNS_E_NOTFOUND;
  for (int k = 2; k < mx->rank; k++)
    rest *= mx->dims[k];
  if (my->rank != mx->rank - 1)
    return NNS_E_NOTFOUND;
  const int64_t xd[4] = {mx->dims[0], mx->dims[1], 1, rest};
  const int64_t yd[3] = {mx->dims[0], 1, rest};
  const char *x4, *y3, *o;
  c->err->code = NNS_OK;
  if (!(x4 = reshape(c, x, 4, xd, NULL)) || !(y3 = reshape(c, y, 3, yd, NULL)))
    return failed(c);
  int64_t red = nns__aten_int(c, "reduction", 1);
  o = red ? c->outs[0] : c->fresh(c->fe);
  if (!o || !shim_add(s, x4, mx->dtype, 4, xd, NULL) ||
      !shim_add(s, y3, my->dtype, 3, yd, NULL))
    return failed(c);
  int n = with_tensor(c, "self", x4, args);
  for (int k = 0; k < n; k++)
    if (args[k].name && !strcmp(args[k].name, "target"))
      args[k] = tensor_arg("target", y3);
  A_TRY(lower_as(c, s, "nll_loss2d_forward", args, n, &o, 1));
  if (red)
    return NNS_OK;
  return reshape(c, o, my->rank, my->dims, c->outs[0]) ? NNS_OK : failed(c);
}

/* nll_loss_nd(self, target, weight, reduction, ignore_index). */
static nns_status nll_loss_nd(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  shim s = {0};
  const char *x = A_T(c, "self");
  return nll_nd(c, &s, x, A_META(c, x));
}

/* cross_entropy_loss(self, target, weight, reduction, ignore_index,
 * label_smoothing): log_softmax over the class axis (1), then
 * nll_loss_nd. Class probabilities for a target, and label smoothing,
 * take other paths in PyTorch: not lowered. */
static nns_status cross_entropy(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  shim s = {0};
  const char *x = A_T(c, "self"), *y = A_T(c, "target");
  const nns__aten_meta *mx = A_META(c, x), *my = A_META(c, y);
  if (!x || !mx || !my || mx->rank < 2 || mx->rank > 16 ||
      (my->dtype != NNS_DT_INT64 && my->dtype != NNS_DT_INT32) ||
      nns__aten_float(c, "label_smoothing", 0.0) != 0.0)
    return NNS_E_NOTFOUND;
  const char *lp = c->fresh(c->fe);
  if (!lp)
    return failed(c);
  nns__aten_arg ls[] = {tensor_arg("self", x), int_arg("dim", 1)};
  A_TRY(lower_as(c, &s, "log_softmax", ls, 2, &lp, 1));
  if (!shim_add(&s, lp, mx->dtype, mx->rank, mx->dims, mx->syms))
    return NNS_E_NOTFOUND;
  return nll_nd(c, &s, lp, &s.metas[s.n - 1]);
}

/* log_sigmoid(self): log_sigmoid_forward's output alone. */
static nns_status log_sigmoid(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  shim s = {0};
  return c->n_outs < 1 ? NNS_E_NOTFOUND
                       : lower_as(c, &s, "log_sigmoid_forward", c->args,
                                  c->n_args, c->outs, 1);
}

/* ==== Dropout and broadcasting ==== */

/* dropout(input, p, train): the input itself in eval mode (or p 0); in
 * training, what PyTorch's CPU kernel runs: a noise tensor (empty_like,
 * then bernoulli_ into another: two constants of the input's sizes),
 * divided by 1 - p, times the input; at p 1, the input times a 0-d zero. */
static nns_status dropout(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  /* dropout's tensor is `input`, the in-place dropout_'s `self` */
  const char *x = A_T(c, "input") ? A_T(c, "input") : A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  double p = nns__aten_float(c, "p", 0.5);
  if (!x || c->n_outs < 1 || !c->outs[0])
    return x ? NNS_OK : NNS_E_NOTFOUND;
  if (!nns__aten_bool(c, "train", false) || p == 0.0)
    return c->alias(c->fe, c->outs[0], x);
  if (!mx || mx->rank < 0)
    return NNS_E_NOTFOUND;
  int64_t numel = 1;
  for (int k = 0; k < mx->rank; k++) {
    if (mx->dims[k] < 0)
      return NNS_E_NOTFOUND;
    numel *= mx->dims[k];
  }
  if (numel == 0)
    return c->alias(c->fe, c->outs[0], x);
  c->err->code = NNS_OK;
  if (p == 1.0) {
    const char *ins[] = {x, nns__aten_filler(c, mx->dtype, 0, NULL)};
    return ins[1] ? nns__aten_node(c, "Mul", "", ins, 2, c->outs, 1)
                  : failed(c);
  }
  const char *noise, *scaled = c->fresh(c->fe);
  if (!nns__aten_filler(c, mx->dtype, mx->rank, mx->dims) ||
      !(noise = nns__aten_filler(c, mx->dtype, mx->rank, mx->dims)) ||
      !scaled)
    return failed(c);
  const char *div[] = {noise, nns__aten_scalar(c, 1.0 - p, mx->dtype)};
  if (!div[1])
    return failed(c);
  A_TRY(nns__aten_node(c, "Div", "", div, 2, &scaled, 1));
  const char *mul[] = {x, scaled};
  return nns__aten_node(c, "Mul", "", mul, 2, c->outs, 1);
}

/* Whether metas a and b have the same sizes (a symbolic one by name). */
static bool same_sizes(const nns__aten_meta *a, const nns__aten_meta *b) {
  if (a->rank != b->rank)
    return false;
  for (int k = 0; k < a->rank; k++) {
    if (a->dims[k] != b->dims[k])
      return false;
    if (a->dims[k] < 0 &&
        (!a->syms[k] || !b->syms[k] || strcmp(a->syms[k], b->syms[k])))
      return false;
  }
  return true;
}

/* broadcast_tensors(tensors): each operand the size of the broadcast
 * already is itself (PyTorch hands it back), each other one an expand to
 * it. */
static nns_status broadcast_tensors(nns__aten_call *c,
                                    const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *t = nns__aten_arg_of(c, "tensors");
  if (!t || t->kind != NNS__AA_TENSORS || t->n != c->n_outs)
    return NNS_E_NOTFOUND;
  for (int k = 0; k < t->n; k++) {
    const char *o = c->outs[k], *x = t->tensors[k];
    const nns__aten_meta *mo = A_META(c, o), *mx = A_META(c, x);
    if (!o)
      continue;
    if (!x || !mo || !mx)
      return NNS_E_NOTFOUND;
    if (same_sizes(mx, mo)) {
      A_TRY(c->alias(c->fe, o, x));
      continue;
    }
    shim s = {0};
    nns__aten_arg args[] = {tensor_arg("self", x)};
    A_TRY(lower_as(c, &s, "expand", args, 1, &o, 1));
  }
  return NNS_OK;
}

/* ==== torch.vmap's trace ==== */

/* torch._functorch.predispatch._add_batch_dim(x, in_dim, level, depth):
 * x on the batch with its in_dim as level `level`'s axis: moved to the
 * front, then as many one-sized axes as the region has deeper levels
 * (depth, the deepest; the archive reader's src/pt2/vmap.c gives it and
 * says which regions may be lowered so), then the example's dims. A
 * Transpose when in_dim is not 0, a Reshape when there are deeper levels;
 * else x itself. */
static nns_status add_batch_dim(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *depth = nns__aten_arg_of(c, "depth");
  if (!depth || depth->kind != NNS__AA_INT || c->n_args < 3 ||
      c->args[0].kind != NNS__AA_TENSOR || c->args[1].kind != NNS__AA_INT ||
      c->args[2].kind != NNS__AA_INT || c->n_outs < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  const char *x = c->args[0].tensor;
  const nns__aten_meta *mx = A_META(c, x);
  int64_t dx[NNS__ATEN_R_MAX];
  int64_t level = c->args[2].i, deeper = depth->i - level;
  if (!mx || mx->rank < 1 || level < 1 || deeper < 0 ||
      mx->rank + deeper > NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  int r = mx->rank, unknown = 0;
  for (int k = 0; k < r; k++) /* one symbolic size: the Reshape's -1 */
    unknown += (dx[k] = mx->dims[k] < 0 ? -1 : mx->dims[k]) < 0;
  if (unknown > 1)
    return NNS_E_NOTFOUND;
  int64_t in_dim = (c->args[1].i % r + r) % r;
  int64_t perm[NNS__ATEN_R_MAX], target[NNS__ATEN_R_MAX];
  int n = 0;
  perm[0] = in_dim;
  for (int k = 0, j = 1; k < r; k++)
    if (k != in_dim)
      perm[j++] = k;
  target[n++] = dx[in_dim];
  for (int64_t k = 0; k < deeper; k++)
    target[n++] = 1;
  for (int k = 1; k < r; k++)
    target[n++] = dx[perm[k]];
  size_t first = *c->node_count;
  const char *cur = x;
  if (in_dim != 0) {
    const char *t = deeper ? c->fresh(c->fe) : c->outs[0];
    A_TRY(nns__aten_node(c, "Transpose", "", &cur, 1, &t, 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)r, c->err));
    cur = t;
  }
  if (deeper)
    A_TRY(nns__aten_reshape_to(c, cur, target, n, c->outs[0]));
  else if (in_dim == 0)
    return c->alias(c->fe, c->outs[0], x);
  return nns__aten_kernel(c, first);
}

/* torch._functorch.predispatch._remove_batch_dim(y, level, batch_size,
 * out_dim, final, full): leaving an inner level changes nothing on the
 * batch (its axis is the first of the example's dims now); leaving the
 * outermost one gives the archive's sizes: y itself when it has every
 * level's size (full), else an Expand to them (vmap's expand of what does
 * not depend on a level). */
static nns_status remove_batch_dim(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *final = nns__aten_arg_of(c, "final"),
                      *full = nns__aten_arg_of(c, "full");
  if (!final || !full || final->kind != NNS__AA_BOOL ||
      full->kind != NNS__AA_BOOL || c->n_args < 1 ||
      c->args[0].kind != NNS__AA_TENSOR || c->n_outs < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  const char *y = c->args[0].tensor;
  if (!final->b || full->b)
    return c->alias(c->fe, c->outs[0], y);
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  const char *ins[] = {y, mo ? nns__aten_shape_value(c, mo) : NULL};
  if (!ins[1])
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  return nns__aten_node(c, "Expand", "", ins, 2, c->outs, 1);
}

/* ==== The table ==== */

/* Sorted by name (nns__aten_find bisects; a unit test checks the order). */
static const nns__aten_op table[] = {
    RULE("broadcast_tensors", "Expand per operand that grows",
         broadcast_tensors),
    RULE("cross_entropy_loss", "LogSoftmax, NegativeLogLikelihoodLoss",
         cross_entropy),
    RULE("dropout", "(its input); in training Div, Mul", dropout),
    RULE("log_sigmoid", "Sigmoid, Log", log_sigmoid),
    RULE("nll_loss_nd", "NegativeLogLikelihoodLoss (Reshape around it)",
         nll_loss_nd),
    RULE("torch._functorch.predispatch._add_batch_dim",
         "(its input) / Transpose, Reshape (on the batch)", add_batch_dim),
    RULE("torch._functorch.predispatch._remove_batch_dim",
         "(its input) / Expand (on the batch)", remove_batch_dim),
};

const nns__aten_family nns__aten_export = {table,
                                           sizeof table / sizeof table[0]};
