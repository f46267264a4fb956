/*
 * control.c - control flow: If, Loop and Scan. Their bodies are subgraphs,
 * inferred through the driver's hook (cx->infer_subgraph) after the body
 * inputs' types are set from the node's inputs.
 *
 * An If output may come from either branch, so its type is the merge of the
 * two (unless the condition is a known constant). Loop and Scan state
 * variables are iterated to a fixpoint: a state dim that the body changes
 * becomes a fresh symbol, so the body is finally inferred with types that
 * hold on every iteration, not only on the first. The type merge lives here
 * and is shared with sequence.c through typemerge.h.
 *
 * Costs: a body's cost comes from the analysis (cx->cost_subgraph), summed
 * over its nodes as last inferred, i.e. with the types that hold on every
 * iteration. Loop and Scan multiply it by the trip count when that is
 * known, and otherwise count one iteration and flag the count unbounded;
 * If counts the branch taken when the condition is known, else the larger.
 */
#include <string.h>

#include "dot.h"
#include "typemerge.h"

/* ==== Types: merge, copy, drop and insert a dim ==== */

/* The value two paths agree on; when one is unknown (0), the other's. */
static int32_t agree(int32_t a, int32_t b) {
  return a == b ? a : !a ? b : !b ? a : 0;
}

void nns__type_merge(nns__ictx *cx, const nns__type *a, const nns__type *b,
                     nns__type *out) {
  nns__type t = {.rank = -1};
  t.kind = (uint8_t)agree(a->kind, b->kind);
  t.elem_kind = (uint8_t)agree(a->elem_kind, b->elem_kind);
  t.dtype = agree(a->dtype, b->dtype);
  if (a->rank >= 0 && a->rank == b->rank) {
    t.dims = nns__alloc(cx, ((size_t)a->rank + 1) * sizeof *t.dims);
    if (t.dims) {
      t.rank = a->rank;
      for (int32_t k = 0; k < a->rank; k++)
        t.dims[k] = nns__dim_eq(a->dims[k], b->dims[k]) ? a->dims[k]
                                                         : nns__fresh(cx);
    }
  }
  *out = t;
}

static nns__type type_unknown(void) {
  nns__type t = {.rank = -1};
  return t;
}

/* A deep copy (own dims), so that editing it never touches a value. */
static nns__type type_copy(nns__ictx *cx, const nns__type *src) {
  if (!src)
    return type_unknown();
  nns__type t = *src;
  t.dims = NULL;
  if (src->rank > 0) {
    t.dims = nns__alloc(cx, (size_t)src->rank * sizeof *t.dims);
    if (!t.dims)
      t.rank = -1;
    else
      memcpy(t.dims, src->dims, (size_t)src->rank * sizeof *t.dims);
  }
  return t;
}

/* t without dim `axis` (in range); an unknown rank stays unknown. */
static nns__type type_drop(nns__ictx *cx, const nns__type *src, int32_t axis) {
  nns__type t = type_copy(cx, src);
  if (t.rank <= 0)
    return t;
  memmove(t.dims + axis, t.dims + axis + 1,
          (size_t)(t.rank - axis - 1) * sizeof *t.dims);
  t.rank--;
  return t;
}

/* Output i = tensor t with dim d inserted at `axis` (0..rank). */
static void out_insert(nns__ictx *cx, int i, const nns__type *t, int32_t axis,
                       nns__dim d) {
  if (t->rank < 0) {
    nns__out_shape(cx, i, t->dtype, -1);
    return;
  }
  nns__dim *o = nns__out_shape(cx, i, t->dtype, t->rank + 1);
  if (!o)
    return;
  for (int32_t k = 0, s = 0; k <= t->rank; k++)
    o[k] = k == axis ? d : t->dims[s++];
}

/* Output i = t exactly, an unknown kind included (nns__out_type would
 * call it a tensor). */
static void out_exact(nns__ictx *cx, int i, const nns__type *t) {
  nns__out_type(cx, i, t);
  nns__out_kind(cx, i, t->kind, t->elem_kind);
}

static nns__graph *graph_attr(const nns__ictx *cx, const char *name) {
  const nns__attr *a = nns__attr_get(cx, name);
  return a && a->type == NNS__AT_GRAPH ? a->g : NULL;
}

/* 1 or 0 when v holds a known one-element boolean/integer, else -1. */
static int value_flag(const nns__value *v) {
  const nns__const *c = v ? v->cval : NULL;
  if (!c || c->numel != 1 || !c->i || c->i[0].sym)
    return -1;
  return c->i[0].v != 0;
}

static int input_flag(nns__ictx *cx, int i) {
  return nns__in_const(cx, i) ? value_flag(nns__in(cx, i)) : -1;
}

/* ==== If ==== */

/*
 * An unknown condition: both branches are inferred. A branch whose
 * inference fails can run only with other inputs (Silero VAD v5's 8 kHz
 * branch given 512 samples of 16 kHz audio): it is warned about and left
 * uninferred, and the If is the other branch (*flag set to it, 1 then, 0
 * else); if both fail, the then_branch's error is the If's.
 */
static nns_status if_infer_both(nns__ictx *cx, nns__graph *gt,
                                nns__graph *ge, int *flag) {
  nns_error *caller = cx->err; /* may be NULL */
  nns_error then_err, else_err;
  memset(&then_err, 0, sizeof then_err);
  memset(&else_err, 0, sizeof else_err);
  cx->err = &then_err;
  nns_status st_t = cx->infer_subgraph(cx, gt, NULL, 0);
  cx->err = &else_err;
  nns_status st_e =
      st_t == NNS_E_NOMEM ? NNS_OK : cx->infer_subgraph(cx, ge, NULL, 0);
  cx->err = caller;
  if (st_t == NNS_E_NOMEM || st_e == NNS_E_NOMEM ||
      (st_t != NNS_OK && st_e != NNS_OK)) {
    const nns_error *e = st_t != NNS_OK ? &then_err : &else_err;
    if (caller)
      *caller = *e;
    return st_t != NNS_OK ? st_t : st_e;
  }
  if (st_t == NNS_OK && st_e == NNS_OK)
    return NNS_OK;
  bool then_fails = st_t != NNS_OK;
  const nns__node *n = cx->node;
  nns__warn(cx->m,
            "If '%s': condition unknown, and %s cannot run with these "
            "inputs (%s); its outputs and costs are %s's",
            n->name[0] ? n->name : "(unnamed)",
            then_fails ? "then_branch" : "else_branch",
            then_fails ? then_err.message : else_err.message,
            then_fails ? "else_branch" : "then_branch");
  *flag = then_fails ? 0 : 1;
  return cx->skip_subgraph(cx, then_fails ? gt : ge);
}

static nns_status if_shape(nns__ictx *cx) {
  nns__graph *gt = graph_attr(cx, "then_branch");
  nns__graph *ge = graph_attr(cx, "else_branch");
  if (!gt || !ge)
    return nns__fail(cx, NNS_E_ATTR,
                     "then_branch and else_branch must be graphs");
  int64_t n_cond = nns__in_numel(cx, 0);
  if (n_cond >= 0 && n_cond != 1)
    return nns__fail(cx, NNS_E_SHAPE,
                     "cond must hold one element, it holds %lld",
                     (long long)n_cond);
  int n = nns__n_out(cx);
  if (gt->n_outputs != n || ge->n_outputs != n)
    return nns__fail(cx, NNS_E_SHAPE,
                     "then_branch has %d outputs and else_branch %d; the "
                     "node has %d",
                     gt->n_outputs, ge->n_outputs, n);
  /* A known condition (--value sr=16000): the branch not taken is not
   * inferred. It may be valid only for other inputs (Silero VAD's 8 kHz
   * branch squeezes an axis a 16 kHz input makes 2 long); its values keep
   * unknown types and its nodes are not counted (if_cost follows the
   * branch taken). */
  int flag = input_flag(cx, 0);
  nns_status st;
  if (flag < 0) {
    st = if_infer_both(cx, gt, ge, &flag);
  } else {
    st = flag == 0 ? cx->skip_subgraph(cx, gt)
                   : cx->infer_subgraph(cx, gt, NULL, 0);
    if (st == NNS_OK)
      st = flag == 1 ? cx->skip_subgraph(cx, ge)
                     : cx->infer_subgraph(cx, ge, NULL, 0);
  }
  if (st != NNS_OK)
    return st;
  for (int i = 0; i < n; i++) {
    const nns__value *a = gt->outputs[i], *b = ge->outputs[i];
    if (!a || !b)
      continue;
    if (flag >= 0) {
      /* A known condition: the output is exactly the branch taken. */
      out_exact(cx, i, flag ? &a->type : &b->type);
      continue;
    }
    nns__type t;
    nns__type_merge(cx, &a->type, &b->type, &t);
    out_exact(cx, i, &t);
  }
  return NNS_OK;
}

/* With a known condition, the outputs' contents are the branch's. */
static nns_status if_fold(nns__ictx *cx) {
  int flag = input_flag(cx, 0);
  nns__graph *g = graph_attr(cx, flag ? "then_branch" : "else_branch");
  if (flag < 0 || !g)
    return NNS__NOFOLD;
  bool any = false;
  for (int i = 0; i < nns__n_out(cx) && i < g->n_outputs; i++) {
    if (!nns__has_out(cx, i) || !g->outputs[i] || !g->outputs[i]->cval)
      continue;
    cx->node->out[i]->cval = g->outputs[i]->cval;
    cx->node->out[i]->cval_done = true;
    any = true;
  }
  return any ? NNS_OK : NNS__NOFOLD;
}

/* ==== Loop-carried state: the fixpoint ==== */

/*
 * Bounds on re-inference. Each round generalises at least one dim, so real
 * bodies settle in two or three; but a body nested in a body is inferred
 * again for every round of its parent, so deeper bodies get fewer rounds
 * (and no second pass for the Loop cond check) to keep hostile nesting
 * from multiplying the work.
 */
static int max_rounds(const nns__graph *g) {
  return g->depth <= 1 ? 4 : g->depth <= 3 ? 2 : 1;
}

/*
 * Infers body g with input types in[0..n_in), where in[first + k] is state
 * k, fed back from g->outputs[out_first + k]. After each round a state dim
 * that the body changed becomes a fresh symbol (once; it then stays that
 * symbol), and a state whose rank changed loses its rank. When a round
 * changes nothing, in[] holds types true of the initial values and of
 * every iteration's (by induction), and *settled is set. Otherwise (out of
 * rounds) the caller must not trust the body's outputs beyond their dtype.
 */
static nns_status body_fixpoint(nns__ictx *cx, nns__graph *g, nns__type *in,
                                int n_in, int first, int out_first,
                                int n_state, bool *settled) {
  uint8_t **gen = nns__alloc(cx, ((size_t)n_state + 1) * sizeof *gen);
  *settled = false;
  if (!gen)
    return nns__fail(cx, NNS_E_NOMEM, "out of memory");
  for (int k = 0; k < n_state; k++)
    if (in[first + k].rank > 0 &&
        !(gen[k] = nns__alloc(cx, (size_t)in[first + k].rank)))
      return nns__fail(cx, NNS_E_NOMEM, "out of memory");
  for (int round = 0; round < max_rounds(g); round++) {
    nns_status st = cx->infer_subgraph(cx, g, in, n_in);
    if (st != NNS_OK)
      return st;
    bool changed = false;
    for (int k = 0; k < n_state; k++) {
      nns__type *cur = &in[first + k];
      const nns__value *ov = g->outputs[out_first + k];
      if (cur->rank < 0 || !ov)
        continue;
      const nns__type *o = &ov->type;
      if (o->rank != cur->rank) {
        cur->rank = -1;
        cur->dims = NULL;
        changed = true;
        continue;
      }
      for (int32_t d = 0; d < cur->rank; d++)
        if (!gen[k][d] && !nns__dim_eq(cur->dims[d], o->dims[d])) {
          cur->dims[d] = nns__fresh(cx);
          gen[k][d] = 1;
          changed = true;
        }
    }
    if (!changed) {
      *settled = true;
      return NNS_OK;
    }
  }
  return NNS_OK;
}

/* Unsettled: states keep only their dtype and kind. */
static void forget_dims(nns__type *in, int first, int n_state) {
  for (int k = 0; k < n_state; k++) {
    in[first + k].rank = -1;
    in[first + k].dims = NULL;
  }
}

/* Final type of state k: the fixpoint type, with dtype from the body when
 * the initial value did not say. The kind is the body's (as in ONNX's own
 * inference): a Loop-16 state may start as an optional and come out of the
 * body as what it holds. */
static nns__type state_type(const nns__type *cur, const nns__value *body_out) {
  nns__type t = *cur;
  if (body_out) {
    const nns__type *b = &body_out->type;
    if (b->kind) {
      t.kind = b->kind;
      t.elem_kind = b->elem_kind;
    }
    t.dtype = agree(t.dtype, b->dtype);
  }
  return t;
}

/* ==== Loop ==== */

/* The one-element "true" a body's cond input is assumed to hold. */
static nns__const *const_true(nns__ictx *cx) {
  nns__const *c = nns__alloc(cx, sizeof *c);
  if (!c || !(c->i = nns__alloc(cx, sizeof *c->i)))
    return NULL;
  c->numel = 1;
  c->i[0] = nns__dim_known(1);
  return c;
}

/*
 * Inputs: M (trip count), cond, then N loop-carried values. Body inputs:
 * iteration number (int64 []), cond (bool []), the N values. Body outputs:
 * cond, the N values, then K scan outputs, which the node stacks along a new
 * leading axis of length "number of iterations".
 *
 * The number of iterations is M only when cond can never stop the loop:
 * the initial cond is true (or absent) and the body's cond output is true
 * whenever its cond input is. That is checked by inferring the body with
 * its cond input set to a known true: if the cond output then folds to true,
 * the invariant holds. Otherwise the body is re-inferred without it.
 */
static nns_status loop_shape(nns__ictx *cx) {
  nns__graph *g = graph_attr(cx, "body");
  if (!g)
    return nns__fail(cx, NNS_E_ATTR, "attribute 'body' must be a graph");
  int n_in = nns__n_in(cx), n_out = nns__n_out(cx);
  if (n_in < 2)
    return nns__fail(cx, NNS_E_SHAPE,
                     "Loop takes inputs M and cond (either may be empty), "
                     "it has %d input(s)", n_in);
  int n_state = n_in - 2, n_scan = n_out - n_state;
  if (n_scan < 0)
    return nns__fail(cx, NNS_E_SHAPE,
                     "%d loop-carried inputs but only %d outputs", n_state,
                     n_out);
  if (g->n_inputs != 2 + n_state || g->n_outputs != 1 + n_state + n_scan)
    return nns__fail(cx, NNS_E_SHAPE,
                     "body has %d inputs and %d outputs; with %d loop-carried "
                     "values and %d scan outputs it needs %d and %d",
                     g->n_inputs, g->n_outputs, n_state, n_scan, 2 + n_state,
                     1 + n_state + n_scan);
  int64_t n_m = nns__in_numel(cx, 0);
  if (n_m >= 0 && n_m != 1)
    return nns__fail(cx, NNS_E_SHAPE, "M must hold one element, it holds %lld",
                     (long long)n_m);

  nns__type *in = nns__alloc(cx, ((size_t)n_state + 2) * sizeof *in);
  if (!in)
    return nns__fail(cx, NNS_E_NOMEM, "out of memory");
  in[0] = (nns__type){.dtype = NNS_DT_INT64, .kind = NNS_KIND_TENSOR};
  in[1] = (nns__type){.dtype = NNS_DT_BOOL, .kind = NNS_KIND_TENSOR};
  for (int k = 0; k < n_state; k++)
    in[2 + k] = type_copy(cx, nns__in_type(cx, 2 + k));

  int cond0 = nns__has_in(cx, 1) ? input_flag(cx, 1) : 1;
  /* The cond check costs a second pass when it fails: not in deep bodies. */
  bool assume = cond0 == 1 && g->depth <= 3;
  nns__value *cond_in = g->inputs[1];
  if (cond_in) {
    /* The cost rule reads this back (loop_never_stops): it must not keep
     * an assumption from an earlier inference pass. */
    cond_in->cval = assume ? const_true(cx) : NULL;
    cond_in->cval_done = assume;
  }
  bool settled;
  nns__type *init = nns__alloc(cx, ((size_t)n_state + 2) * sizeof *init);
  if (!init)
    return nns__fail(cx, NNS_E_NOMEM, "out of memory");
  for (int k = 0; k < n_state; k++) /* deep: the fixpoint edits in[] */
    init[2 + k] = type_copy(cx, &in[2 + k]);
  nns_status st =
      body_fixpoint(cx, g, in, 2 + n_state, 2, 1, n_state, &settled);
  if (st != NNS_OK)
    return st;
  bool never_stops = assume && settled && value_flag(g->outputs[0]) == 1;
  if (assume && !never_stops && cond_in) {
    /* The assumption did not hold: values folded from it are not known.
     * Start again from the initial types (those of the failed pass may
     * rest on folded values). */
    cond_in->cval = NULL;
    cond_in->cval_done = false;
    for (int k = 0; k < n_state; k++)
      in[2 + k] = type_copy(cx, &init[2 + k]);
    st = body_fixpoint(cx, g, in, 2 + n_state, 2, 1, n_state, &settled);
    if (st != NNS_OK)
      return st;
  }
  if (!settled)
    forget_dims(in, 2, n_state);

  nns__dim trips = nns__fresh(cx);
  const nns__dim *m;
  int64_t count;
  if (cond0 == 0)
    trips = nns__dim_known(0);
  else if (never_stops && nns__has_in(cx, 0) && nns__in_ints(cx, 0, &m, &count) &&
           count == 1)
    trips = m[0].sym || m[0].v >= 0 ? m[0] : nns__dim_known(0);

  for (int k = 0; k < n_state; k++) {
    if (cond0 == 0) { /* no iteration: the initial values come out */
      nns__out_like(cx, k, 2 + k, 0);
      continue;
    }
    nns__type t = state_type(&in[2 + k], g->outputs[1 + k]);
    out_exact(cx, k, &t);
  }
  for (int j = 0; j < n_scan; j++) {
    const nns__value *o = g->outputs[1 + n_state + j];
    nns__type t = o ? o->type : type_unknown();
    if (!settled)
      t.rank = -1;
    out_insert(cx, n_state + j, &t, 0, trips);
  }
  return NNS_OK;
}

/* ==== Scan ==== */

/* Reads an optional per-input axis list of `count` entries (default 0). */
static nns_status scan_axes(nns__ictx *cx, const char *name, int count,
                            const int64_t **axes) {
  int32_t n = nns__attr_ints(cx, name, axes);
  if (n >= 0 && n != count)
    return nns__fail(cx, NNS_E_ATTR, "%s has %d entries, expected %d", name,
                     n, count);
  return NNS_OK;
}

/* Unifies the scan length (or batch size) `seen` with dim d. */
static nns_status unify(nns__ictx *cx, nns__dim *seen, bool *have, nns__dim d,
                        const char *what, int input) {
  if (!*have) {
    *seen = d;
    *have = true;
  } else if (!seen->sym && !d.sym && seen->v != d.v) {
    return nns__fail(cx, NNS_E_SHAPE, "%s of input %d is %lld, earlier %lld",
                     what, input, (long long)d.v, (long long)seen->v);
  } else if (seen->sym && !d.sym) {
    *seen = d;
  }
  return NNS_OK;
}

/*
 * Scan-8: inputs sequence_lens, N states [B, ...], M scan inputs [B, S, ...];
 * the body sees states and slices without the batch (and sequence) axes.
 * Scan-9+: inputs N states, M scan inputs whose scanned axis is
 * scan_input_axes[j] (default 0); scan outputs get the S axis inserted at
 * scan_output_axes[k] (default 0; negative counts from the output's end).
 */
static nns_status scan_rule(nns__ictx *cx, bool batched) {
  nns__graph *g = graph_attr(cx, "body");
  if (!g)
    return nns__fail(cx, NNS_E_ATTR, "attribute 'body' must be a graph");
  int first = batched ? 1 : 0;
  int n_in = nns__n_in(cx) - first, n_out = nns__n_out(cx);
  int64_t n_scan_in = nns__attr_int(cx, "num_scan_inputs");
  if (n_scan_in < 1 || n_scan_in > n_in)
    return nns__fail(cx, NNS_E_ATTR,
                     "num_scan_inputs %lld is out of range for %d inputs",
                     (long long)n_scan_in, n_in);
  int m = (int)n_scan_in, n_state = n_in - m, n_scan = n_out - n_state;
  if (n_scan < 0 || g->n_inputs != n_in || g->n_outputs != n_out)
    return nns__fail(cx, NNS_E_SHAPE,
                     "body has %d inputs and %d outputs, the node %d state + "
                     "%d scan inputs and %d outputs",
                     g->n_inputs, g->n_outputs, n_state, m, n_out);
  const int64_t *in_axes = NULL, *out_axes = NULL, *dirs = NULL;
  nns_status st = NNS_OK;
  if (batched) {
    st = scan_axes(cx, "directions", m, &dirs);
  } else {
    if ((st = scan_axes(cx, "scan_input_axes", m, &in_axes)) == NNS_OK &&
        (st = scan_axes(cx, "scan_input_directions", m, &dirs)) == NNS_OK &&
        (st = scan_axes(cx, "scan_output_directions", n_scan, &dirs)) ==
            NNS_OK)
      st = scan_axes(cx, "scan_output_axes", n_scan, &out_axes);
  }
  if (st != NNS_OK)
    return st;

  nns__type *in = nns__alloc(cx, ((size_t)n_in + 1) * sizeof *in);
  if (!in)
    return nns__fail(cx, NNS_E_NOMEM, "out of memory");
  nns__dim batch = {0, 0}, len = {0, 0};
  bool have_batch = false, have_len = false;
  for (int i = 0; i < n_in; i++) {
    const nns__type *t = nns__in_type(cx, first + i);
    bool scanned = i >= n_state;
    if (!t || t->rank < 0) {
      in[i] = type_copy(cx, t);
      if (scanned || batched)
        in[i].rank = -1; /* dropping axes from an unknown rank */
      continue;
    }
    int32_t axis = 0;
    if (batched) {
      if (t->rank < (scanned ? 2 : 1))
        return nns__fail(cx, NNS_E_SHAPE,
                         "input %d has rank %d; Scan-8 needs a batch axis%s",
                         first + i, t->rank, scanned ? " and a scan axis" : "");
      if ((st = unify(cx, &batch, &have_batch, t->dims[0], "batch size",
                      first + i)) != NNS_OK)
        return st;
      in[i] = type_drop(cx, t, 0);
      axis = 1;
    } else if (scanned) {
      int64_t a = in_axes ? in_axes[i - n_state] : 0;
      if ((st = nns__axis_or_fail(cx, a, t->rank, &axis, "scan_input_axes")) !=
          NNS_OK)
        return st;
    } else {
      in[i] = type_copy(cx, t);
    }
    if (scanned) {
      if ((st = unify(cx, &len, &have_len, t->dims[axis], "scan length",
                      first + i)) != NNS_OK)
        return st;
      nns__type whole = batched ? in[i] : *t;
      in[i] = type_drop(cx, &whole, batched ? 0 : axis);
    }
  }
  if (!have_len || len.sym)
    len = have_len ? len : nns__fresh(cx);
  if (!have_batch)
    batch = nns__fresh(cx);

  bool settled;
  if ((st = body_fixpoint(cx, g, in, n_in, 0, 0, n_state, &settled)) !=
      NNS_OK)
    return st;
  if (!settled)
    forget_dims(in, 0, n_state);

  for (int k = 0; k < n_state; k++) {
    nns__type t = state_type(&in[k], g->outputs[k]);
    if (batched)
      out_insert(cx, k, &t, 0, batch);
    else
      out_exact(cx, k, &t);
  }
  for (int k = 0; k < n_scan; k++) {
    const nns__value *o = g->outputs[n_state + k];
    nns__type t = o ? o->type : type_unknown();
    if (!settled)
      t.rank = -1;
    if (batched) {
      nns__type with_len = t;
      if (t.rank >= 0) {
        out_insert(cx, n_state + k, &t, 0, len);
        with_len = cx->node->out[n_state + k] ? cx->node->out[n_state + k]->type
                                              : t;
      }
      out_insert(cx, n_state + k, &with_len, 0, batch);
      continue;
    }
    int32_t axis = 0;
    if (t.rank >= 0 && out_axes &&
        (st = nns__axis_or_fail(cx, out_axes[k], t.rank + 1, &axis,
                                "scan_output_axes")) != NNS_OK)
      return st;
    out_insert(cx, n_state + k, &t, axis, len);
  }
  return NNS_OK;
}

static nns_status scan8_shape(nns__ictx *cx) { return scan_rule(cx, true); }
static nns_status scan9_shape(nns__ictx *cx) { return scan_rule(cx, false); }

/* ==== Costs ==== */

/* The summed cost of body g, from the analysis. NNS__UNCOUNTED outside an
 * analysis (no hook) or without a body. */
static nns_status body_cost(nns__ictx *cx, const nns__graph *g,
                            nns__cost *sub) {
  *sub = (nns__cost){0};
  if (!cx->cost_subgraph || !g)
    return NNS__UNCOUNTED;
  return cx->cost_subgraph(cx, g, sub);
}

/* *c = body * trips: counts multiplied, flags carried over. */
static void repeat_cost(nns__cost *c, const nns__cost *body, int64_t trips) {
  c->flops = nns__cmul(c, body->flops, trips);
  c->macs = nns__cmul(c, body->macs, trips);
  c->dmas = nns__cmul(c, body->dmas, trips);
  c->bytes = nns__cmul(c, body->bytes, trips);
  c->symbolic |= body->symbolic;
  c->unbounded |= body->unbounded;
  c->partial |= body->partial;
  c->overflow |= body->overflow;
}

/*
 * Stacking the scan outputs [first, n_out) of a Loop or Scan is a Concat of
 * the per-iteration pieces (docs/metrics.md): each stacked output is read
 * once as pieces and written once, 2 * numel DMAs. An output whose rank is
 * unknown (a body that never settled) cannot be counted: the total is then
 * a lower bound and flagged partial rather than dropped altogether.
 */
static void stack_cost(nns__ictx *cx, nns__cost *c, int first) {
  for (int i = first; i < nns__n_out(cx); i++) {
    if (!nns__has_out(cx, i))
      continue;
    int64_t n = nns__out_count(cx, c, i);
    if (n < 0)
      c->partial = true;
    else
      c->dmas = nns__cadd(c, c->dmas, nns__cmul(c, 2, n));
  }
}

/* If: the branch taken when the condition is known; otherwise the larger
 * branch by MACs, then FLOPs, then DMAs. Which is larger may depend on a
 * symbol or on an uncounted node of either branch, so those flags come from
 * both. */
static nns_status if_cost(nns__ictx *cx, nns__cost *c) {
  nns__graph *gt = graph_attr(cx, "then_branch");
  nns__graph *ge = graph_attr(cx, "else_branch");
  nns__cost a, b;
  int flag = input_flag(cx, 0);
  /* An unknown condition with one branch that cannot run (if_infer_both):
   * the other is the If's. */
  bool only = flag < 0 && gt->skipped != ge->skipped;
  if (only)
    flag = gt->skipped ? 0 : 1;
  nns_status st = body_cost(cx, flag == 0 ? ge : gt, &a);
  if (st != NNS_OK)
    return st;
  if (flag >= 0) {
    *c = a;
    c->branch = flag ? NNS__BRANCH_THEN : NNS__BRANCH_ELSE;
    c->branch_known = !only;
    c->branch_only = only;
    return NNS_OK;
  }
  if ((st = body_cost(cx, ge, &b)) != NNS_OK)
    return st;
  bool then_larger = a.macs != b.macs     ? a.macs > b.macs
                     : a.flops != b.flops ? a.flops > b.flops
                                          : a.dmas >= b.dmas;
  *c = then_larger ? a : b;
  c->symbolic = a.symbolic || b.symbolic;
  c->partial = a.partial || b.partial;
  /* The report says which branch the costs follow (the report's notes). */
  c->branch = then_larger ? NNS__BRANCH_THEN : NNS__BRANCH_ELSE;
  c->branch_known = false;
  return NNS_OK;
}

/*
 * The Loop's shape rule leaves the body's cond input holding a known true
 * exactly when it proved that cond never stops the loop (loop_shape). Then
 * the loop runs M times.
 */
static bool loop_never_stops(nns__ictx *cx, const nns__graph *g) {
  int cond0 = nns__has_in(cx, 1) ? input_flag(cx, 1) : 1;
  return cond0 == 1 && g->n_inputs > 1 && g->n_outputs > 0 &&
         value_flag(g->inputs[1]) == 1 && value_flag(g->outputs[0]) == 1;
}

/* The number of iterations (a symbolic M counts as 1, flagged), or -1. */
static int64_t loop_trips(nns__ictx *cx, nns__cost *c, const nns__graph *g) {
  if (nns__has_in(cx, 1) && input_flag(cx, 1) == 0)
    return 0; /* cond starts false: the body never runs */
  const nns__dim *m;
  int64_t n;
  if (!nns__has_in(cx, 0) || !loop_never_stops(cx, g) ||
      !nns__in_ints(cx, 0, &m, &n) || n != 1)
    return -1;
  if (m[0].sym)
    return nns__dim_count(c, m[0], cx->m);
  return m[0].v < 0 ? 0 : m[0].v;
}

/*
 * Loop: body x iterations when the iteration count is known (M a known
 * constant and cond unable to stop the loop early), else one iteration and
 * the unbounded flag (M, when known, would only be an upper bound). Plus
 * the stacking of the scan outputs; the loop-carried values are handed
 * from one iteration to the next without a copy.
 */
static nns_status loop_cost(nns__ictx *cx, nns__cost *c) {
  nns__graph *g = graph_attr(cx, "body");
  nns__cost body;
  nns_status st = body_cost(cx, g, &body);
  if (st != NNS_OK)
    return st;
  if (nns__n_in(cx) < 2)
    return NNS__UNCOUNTED;
  *c = (nns__cost){0};
  int64_t trips = loop_trips(cx, c, g);
  if (trips < 0) {
    trips = 1;
    c->unbounded = true;
  }
  repeat_cost(c, &body, trips);
  stack_cost(cx, c, nns__n_in(cx) - 2);
  return NNS_OK;
}

/*
 * Scan: body x the number of iterations, the scan length (the scan inputs'
 * scanned dim; Scan-8: x the batch size too, every sequence running the
 * full length, an upper bound when sequence_lens shortens some), plus the
 * stacking of the scan outputs. Slicing the scan inputs is a view. A scan
 * length whose rank is unknown counts one iteration and is flagged
 * unbounded.
 */
static nns_status scan_cost(nns__ictx *cx, nns__cost *c, bool batched) {
  nns__graph *g = graph_attr(cx, "body");
  nns__cost body;
  nns_status st = body_cost(cx, g, &body);
  if (st != NNS_OK)
    return st;
  *c = (nns__cost){0};
  int first = batched ? 1 : 0;
  int n_in = nns__n_in(cx) - first;
  int64_t m = nns__attr_int(cx, "num_scan_inputs");
  if (m < 1 || m > n_in)
    return NNS__UNCOUNTED;
  int n_state = n_in - (int)m;
  const int64_t *axes = NULL;
  if (!batched && nns__attr_ints(cx, "scan_input_axes", &axes) != (int32_t)m)
    axes = NULL;
  int64_t len = -1, batch = batched ? -1 : 1;
  for (int i = 0; i < n_in; i++) {
    const nns__type *t = nns__in_type(cx, first + i);
    int32_t axis;
    if (!t || t->rank < 1)
      continue;
    if (batched && batch < 0)
      batch = nns__dim_count(c, t->dims[0], cx->m);
    if (i < n_state || len >= 0)
      continue;
    if (batched && t->rank >= 2)
      len = nns__dim_count(c, t->dims[1], cx->m);
    else if (!batched &&
             nns__axis(axes ? axes[i - n_state] : 0, t->rank, &axis))
      len = nns__dim_count(c, t->dims[axis], cx->m);
  }
  if (len < 0 || batch < 0) {
    len = batch = 1;
    c->unbounded = true;
  }
  repeat_cost(c, &body, nns__cmul(c, len, batch));
  stack_cost(cx, c, n_state);
  return NNS_OK;
}

static nns_status scan8_cost(nns__ictx *cx, nns__cost *c) {
  return scan_cost(cx, c, true);
}
static nns_status scan9_cost(nns__ictx *cx, nns__cost *c) {
  return scan_cost(cx, c, false);
}

/* ==== Table ==== */

static const nns__attr_spec if_attrs[] = {
    NNS__A_REQ("then_branch", GRAPH), NNS__A_REQ("else_branch", GRAPH),
    NNS__A_END};
static const nns__attr_spec loop_attrs[] = {NNS__A_REQ("body", GRAPH),
                                            NNS__A_END};
static const nns__attr_spec scan8_attrs[] = {
    NNS__A_REQ("body", GRAPH), NNS__A_REQ("num_scan_inputs", INT),
    NNS__A_OPT("directions", INTS), NNS__A_END};
static const nns__attr_spec scan9_attrs[] = {
    NNS__A_REQ("body", GRAPH),
    NNS__A_REQ("num_scan_inputs", INT),
    NNS__A_OPT("scan_input_axes", INTS),
    NNS__A_OPT("scan_input_directions", INTS),
    NNS__A_OPT("scan_output_axes", INTS),
    NNS__A_OPT("scan_output_directions", INTS),
    NNS__A_END};

/* If and Loop changed only their type constraints (sequences, optionals)
 * across opsets 1-16: one entry each. */
const nns__op nns__ops_control[] = {
    {"", "If", 1, NNS__OPSET_MAX, "c", if_attrs, if_shape, if_fold,
     .cost = if_cost, .branches = true},
    {"", "Loop", 1, NNS__OPSET_MAX, "cca", loop_attrs, loop_shape, NULL,
     .cost = loop_cost},
    {"", "Scan", 8, 8, "ca", scan8_attrs, scan8_shape, NULL,
     .cost = scan8_cost},
    {"", "Scan", 9, NNS__OPSET_MAX, "a", scan9_attrs, scan9_shape, NULL,
     .cost = scan9_cost},
    NNS__OP_END,
};
