/*
 * aten_shape.c - the aten table's layout, indexing, scatter/gather,
 * sorting and search family: what each of these PyTorch operators lowers
 * to (ONNX op types, attributes, constant inputs; the nodes of one call
 * one kernel), for a .pt2 and a live recording alike. Sizes the rules
 * need must be known (not symbolic) unless a rule says otherwise: an
 * instance they cannot lower stays an uncounted node.
 */
#include "aten_int.h"

#include "../base/base.h"

#include <string.h>



#define BIG ((int64_t)1 << 62)




/* An int64 index constant of dims, known by shape alone (which
 * positions is data, how many is the shape). */
static const char *positions(nns__aten_call *c, const int64_t *dims, int n) {
  return nns__aten_filler(c, NNS_DT_INT64, n, dims);
}

/* Index tensor t as int64 of dims (a Cast, an Expand where needed). */
static const char *int64_of(nns__aten_call *c, const char *t,
                            const int64_t *dims, int n) {
  const nns__aten_meta *m = A_META(c, t);
  int64_t own[NNS__ATEN_R_MAX];
  if (!nns__aten_known(m, own))
    return NULL;
  if (m->dtype != NNS_DT_INT64) {
    const char *cast = c->fresh(c->fe);
    if (nns__aten_node(c, "Cast", "", &t, 1, &cast, 1) != NNS_OK ||
        nns_builder_attr_int(c->b, "to", NNS_DT_INT64, c->err) != NNS_OK)
      return NULL;
    t = cast;
  }
  if (m->rank != n || memcmp(own, dims, (size_t)n * sizeof *dims)) {
    const char *ins[] = {t, nns__aten_const_ints(c, dims, n, false)};
    const char *e = c->fresh(c->fe);
    if (!ins[1] || nns__aten_node(c, "Expand", "", ins, 2, &e, 1) != NNS_OK)
      return NULL;
    t = e;
  }
  return t;
}

/* The call's result: NOTFOUND when a helper gave NULL with no error. */
static nns_status fail_of(nns__aten_call *c) {
  return c->err->code ? c->err->code : NNS_E_NOTFOUND;
}

/* The call lowered through the entry of another aten op. */
static nns_status as_op(nns__aten_call *c, const char *name) {
  const nns__aten_op *e = nns__aten_find(name);
  return e ? nns__aten_lower(c, e) : NNS_E_NOTFOUND;
}

/* ==== Views and layout ==== */

/* unsafe_split / unsafe_split_with_sizes: split's rule. */
static nns_status unsafe_split(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  return as_op(c, "split");
}

/* flip(self, dims): as torch.onnx exports it, one Slice with step -1 on
 * every flipped dim; no dims: the input itself. */
static nns_status flip(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *d = nns__aten_arg_of(c, "dims");
  if (!x || !mx || mx->rank < 1 || !d || d->kind != NNS__AA_INTS ||
      d->n > NNS__ATEN_R_MAX || !c->outs[0])
    return NNS_E_NOTFOUND;
  if (d->n == 0)
    return c->alias(c->fe, c->outs[0], x);
  int64_t v[4][NNS__ATEN_R_MAX];
  for (int k = 0; k < d->n; k++) {
    v[0][k] = -1;
    v[1][k] = -BIG;
    v[2][k] = (d->ints[k] % mx->rank + mx->rank) % mx->rank;
    v[3][k] = -1;
  }
  const char *ins[5] = {x};
  for (int k = 0; k < 4; k++)
    if (!(ins[1 + k] = nns__aten_const_ints(c, v[k], d->n, false)))
      return c->err->code;
  return nns__aten_node(c, "Slice", "", ins, 5, c->outs, 1);
}

/* stack(tensors, dim): each Unsqueezed at dim, then one Concat. */
static nns_status stack(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const nns__aten_arg *t = nns__aten_arg_of(c, "tensors");
  if (!t || t->kind != NNS__AA_TENSORS || t->n < 1 || t->n > 4096 ||
      !c->outs[0])
    return NNS_E_NOTFOUND;
  int64_t axis = nns__aten_int(c, "dim", 0);
  const char *parts[4096];
  size_t first = *c->node_count;
  for (int k = 0; k < t->n; k++) {
    if (!t->tensors[k])
      return NNS_E_NOTFOUND;
    const char *ins[] = {t->tensors[k], nns__aten_const_ints(c, &axis, 1,
                                                             false)};
    if (!ins[1])
      return c->err->code;
    parts[k] = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Unsqueeze", "", ins, 2, &parts[k], 1));
  }
  A_TRY(nns__aten_node(c, "Concat", "", parts, (size_t)t->n, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", axis, c->err));
  return nns__aten_kernel(c, first);
}

/* unbind(self, dim): a Split into ones along dim, each part Squeezed. */
static nns_status unbind(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 1 || c->n_outs < 1 || c->n_outs > 64)
    return NNS_E_NOTFOUND;
  int64_t axis = nns__aten_int(c, "dim", 0);
  if (axis < -mx->rank || axis >= mx->rank)
    return NNS_E_NOTFOUND;
  axis = (axis + mx->rank) % mx->rank;
  int64_t ones[64];
  const char *parts[64];
  for (int k = 0; k < c->n_outs; k++) {
    ones[k] = 1;
    parts[k] = c->fresh(c->fe);
  }
  size_t first = *c->node_count;
  const char *ins[] = {x, nns__aten_const_ints(c, ones, c->n_outs, false)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Split", "", ins, 2, parts, (size_t)c->n_outs));
  A_TRY(nns_builder_attr_int(c->b, "axis", axis, c->err));
  for (int k = 0; k < c->n_outs; k++) {
    const char *sq[] = {parts[k], nns__aten_const_ints(c, &axis, 1, false)};
    const char *o = c->outs[k] ? c->outs[k] : c->fresh(c->fe);
    if (!sq[1])
      return c->err->code;
    A_TRY(nns__aten_node(c, "Squeeze", "", sq, 2, &o, 1));
  }
  return nns__aten_kernel(c, first);
}

/* repeat(self, repeats): Tile (more repeats than dims: a Reshape adding
 * leading ones first). */
static nns_status repeat(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *r = nns__aten_arg_of(c, "repeats");
  if (!x || !mx || !r || r->kind != NNS__AA_INTS || r->n > NNS__ATEN_R_MAX ||
      r->n < mx->rank || !c->outs[0])
    return NNS_E_NOTFOUND;
  /* A symbolic count (whisper's positions repeated batch times): the
   * counts as a value made from the symbols, before the kernel's nodes. */
  int64_t counts[NNS__ATEN_R_MAX];
  bool symbolic = false;
  for (int k = 0; k < r->n; k++) {
    symbolic = symbolic || r->syms[k];
    counts[k] = r->syms[k] ? -1 : r->ints[k];
  }
  const char *reps = NULL;
  if (symbolic) {
    const nns__aten_meta m = {.dtype = NNS_DT_INT64, .rank = r->n,
                              .dims = counts, .syms = r->syms};
    c->err->code = NNS_OK;
    if (!(reps = nns__aten_shape_value(c, &m)))
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  }
  size_t first = *c->node_count;
  const char *src = x;
  if (r->n > mx->rank) {
    int64_t shape[NNS__ATEN_R_MAX], own[NNS__ATEN_R_MAX];
    if (!nns__aten_known(mx, own))
      return NNS_E_NOTFOUND;
    int lead = r->n - mx->rank;
    for (int k = 0; k < r->n; k++)
      shape[k] = k < lead ? 1 : own[k - lead];
    src = c->fresh(c->fe);
    A_TRY(nns__aten_reshape_to(c, x, shape, r->n, src));
  }
  const char *ins[] = {src, reps ? reps
                                 : nns__aten_const_ints(c, r->ints, r->n,
                                                        false)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Tile", "", ins, 2, c->outs, 1));
  return nns__aten_kernel(c, first);
}

/* roll(self, shifts, dims): per dim two Slices and a Concat (torch.onnx's
 * form); a roll of the flattened input (no dims) is not lowered. */
static nns_status roll(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  int64_t shifts[NNS__ATEN_R_MAX], ax[NNS__ATEN_R_MAX];
  const nns__aten_arg *d = nns__aten_arg_of(c, "dims");
  if (!x || !mx || mx->rank < 1 || mx->rank > NNS__ATEN_R_MAX || !d ||
      d->kind != NNS__AA_INTS || d->n < 1 || d->n > NNS__ATEN_R_MAX || !c->outs[0] ||
      !nns__aten_ints(c, "shifts", d->n, 0, shifts) ||
      !nns__aten_ints(c, "dims", d->n, 0, ax))
    return NNS_E_NOTFOUND;
  for (int i = 0; i < d->n; i++) /* every rolled dim must be known */
    if (mx->dims[(ax[i] % mx->rank + mx->rank) % mx->rank] < 0)
      return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *cur = x;
  for (int i = 0; i < d->n; i++) {
    int64_t a = (ax[i] % mx->rank + mx->rank) % mx->rank, n = mx->dims[a];
    int64_t sh = n ? (shifts[i] % n + n) % n : 0;
    if (sh == 0)
      continue;
    int64_t b[2][2] = {{n - sh, n}, {0, n - sh}};
    const char *half[2];
    for (int h = 0; h < 2; h++) {
      const char *ins[] = {cur, nns__aten_const_ints(c, &b[h][0], 1, false),
                           nns__aten_const_ints(c, &b[h][1], 1, false),
                           nns__aten_const_ints(c, &a, 1, false)};
      if (!ins[1] || !ins[2] || !ins[3])
        return c->err->code;
      half[h] = c->fresh(c->fe);
      A_TRY(nns__aten_node(c, "Slice", "", ins, 4, &half[h], 1));
    }
    const char *next = i == d->n - 1 ? c->outs[0] : c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Concat", "", half, 2, &next, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", a, c->err));
    cur = next;
  }
  if (cur != c->outs[0])
    A_TRY(c->alias(c->fe, c->outs[0], cur));
  return nns__aten_kernel(c, first);
}

/* pixel_shuffle(self, upscale_factor): DepthToSpace, CRD order. */
static nns_status pixel_shuffle(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_arg *f = nns__aten_arg_of(c, "upscale_factor");
  if (!x || !f || f->kind != NNS__AA_INT || f->sym)
    return NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, "DepthToSpace", "", &x, 1, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "blocksize", f->i, c->err));
  return nns__aten_attr_s(c, "mode", "CRD");
}

/* as_strided(self, size, stride, storage_offset) and unfold(self,
 * dimension, size, step): a Reshape when the view keeps the element
 * count, else the elements it reads, a Gather of the input flattened by
 * positions of the view's shape. */
static nns_status as_strided(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  int64_t dx[NNS__ATEN_R_MAX], dy[NNS__ATEN_R_MAX];
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  if (!x || !nns__aten_known(mx, dx) || !nns__aten_known(mo, dy))
    return NNS_E_NOTFOUND;
  int64_t n = nns__aten_prod(dx, mx->rank);
  if (n == nns__aten_prod(dy, mo->rank))
    return nns__aten_reshape_to(c, x, dy, mo->rank, c->outs[0]);
  size_t first = *c->node_count;
  const char *flat = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, x, &n, 1, flat));
  const char *ins[] = {flat, positions(c, dy, mo->rank)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Gather", "", ins, 2, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", 0, c->err));
  return nns__aten_kernel(c, first);
}

/* ==== Gather and scatter ==== */

/* gather(self, dim, index): GatherElements; index_select(self, dim,
 * index): Gather. The axis as PyTorch gave it. */
static nns_status gather(nns__aten_call *c, const nns__aten_op *op) {
  const char *ins[] = {A_T(c, "self"), A_T(c, "index")};
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  if (!ins[0] || !ins[1] || !d || d->kind != NNS__AA_INT || d->sym)
    return NNS_E_NOTFOUND;
  A_TRY(nns__aten_node(c, op->onnx, "", ins, 2, c->outs, 1));
  return nns_builder_attr_int(c->b, "axis", d->i, c->err);
}

/* scatter(self, dim, index, src | value[, reduce]), scatter_add,
 * scatter_reduce(..., reduce, include_self): ScatterElements (a number as
 * src Expanded to the index's shape); scatter_reduce's mean has no ONNX
 * reduction. */
static nns_status scatter(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *ix = A_T(c, "index");
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !ix || !mx || !d || d->kind != NNS__AA_INT || d->sym ||
      !c->outs[0])
    return NNS_E_NOTFOUND;
  const char *red = NULL;
  const nns__aten_arg *ra = nns__aten_arg_of(c, "reduce");
  bool reduce_op = !strncmp(c->op, "scatter_reduce", 14);
  if (!strncmp(c->op, "scatter_add", 11)) {
    red = "add";
  } else if (ra && ra->kind == NNS__AA_STRING) {
    static const char *const names[][2] = {
        {"add", "add"}, {"multiply", "mul"}, {"sum", "add"},
        {"prod", "mul"}, {"amax", "max"},    {"amin", "min"}};
    for (int k = reduce_op ? 2 : 0; k < (reduce_op ? 6 : 2); k++)
      if (!strcmp(ra->s, names[k][0]))
        red = names[k][1];
    if (!red)
      return NNS_E_NOTFOUND;
  } else if (reduce_op) {
    return NNS_E_NOTFOUND;
  }
  const nns__aten_arg *src = nns__aten_arg_of(c, "src");
  if (!src)
    src = nns__aten_arg_of(c, "value");
  if (!src)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *upd = src->kind == NNS__AA_TENSOR ? src->tensor : NULL;
  if (!upd) {
    int64_t di[NNS__ATEN_R_MAX];
    const nns__aten_meta *mi = A_META(c, ix);
    const char *ins[] = {nns__aten_operand(c, src, mx->dtype), NULL};
    if (!ins[0] || !mi || mi->rank < 0)
      return fail_of(c);
    if (nns__aten_known(mi, di)) {
      if (!(ins[1] = nns__aten_const_ints(c, di, mi->rank, false)))
        return c->err->code;
    } else { /* symbolic sizes: the index's own Shape */
      ins[1] = c->fresh(c->fe);
      A_TRY(nns__aten_node(c, "Shape", "", &ix, 1, &ins[1], 1));
    }
    upd = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Expand", "", ins, 2, &upd, 1));
  }
  const char *ins[] = {x, ix, upd};
  A_TRY(nns__aten_node(c, "ScatterElements", "", ins, 3, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", d->i, c->err));
  if (red)
    A_TRY(nns__aten_attr_s(c, "reduction", red));
  return nns__aten_kernel(c, first);
}

/* The index tensor of index_copy / index_add as [numel, 1] int64: a Cast
 * when needed, then Unsqueeze(-1) of it seen as [numel] (index_copy) or
 * of its own shape (index_add). */
static const char *rows_index(nns__aten_call *c, const char *ix, bool flat) {
  const nns__aten_meta *mi = A_META(c, ix);
  int64_t di[NNS__ATEN_R_MAX], minus1 = -1;
  if (!nns__aten_known(mi, di))
    return NULL;
  int64_t n = nns__aten_prod(di, mi->rank);
  const char *t = flat ? int64_of(c, ix, &n, 1) : int64_of(c, ix, di,
                                                           mi->rank);
  if (!t)
    return NULL;
  const char *ins[] = {t, nns__aten_const_ints(c, &minus1, 1, false)};
  const char *u = c->fresh(c->fe);
  if (!ins[1] || nns__aten_node(c, "Unsqueeze", "", ins, 2, &u, 1) != NNS_OK)
    return NULL;
  return u;
}

/* index_add(self, dim, index, source, alpha): a ScatterND add of source's
 * rows on dim 0 (times alpha first when not 1); other dims not lowered. */
static nns_status index_add(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *ix = A_T(c, "index");
  const char *src = A_T(c, "source");
  const nns__aten_meta *mx = A_META(c, x), *ms = A_META(c, src);
  if (!x || !ix || !src || !mx || !ms || !c->outs[0] ||
      nns__aten_int(c, "dim", 1) % (mx->rank > 0 ? mx->rank : 1) != 0)
    return NNS_E_NOTFOUND;
  double alpha = nns__aten_float(c, "alpha", 1);
  size_t first = *c->node_count;
  const char *upd = src;
  if (alpha != 1) {
    const char *ins[] = {src, nns__aten_scalar(c, alpha, ms->dtype)};
    if (!ins[1])
      return c->err->code;
    upd = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Mul", "", ins, 2, &upd, 1));
  }
  const char *ins[] = {x, rows_index(c, ix, false), upd};
  if (!ins[1])
    return fail_of(c);
  A_TRY(nns__aten_node(c, "ScatterND", "", ins, 3, c->outs, 1));
  A_TRY(nns__aten_attr_s(c, "reduction", "add"));
  return nns__aten_kernel(c, first);
}

/* index_copy(self, dim, index, source): a ScatterND of source's slices,
 * dim moved to the front and back (Transposes) when it is not 0. */
static nns_status index_copy(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *ix = A_T(c, "index");
  const char *src = A_T(c, "source");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !ix || !src || !mx || mx->rank < 1 || mx->rank > NNS__ATEN_R_MAX ||
      !c->outs[0])
    return NNS_E_NOTFOUND;
  int r = mx->rank;
  int64_t dim = (nns__aten_int(c, "dim", 0) % r + r) % r;
  int64_t perm[NNS__ATEN_R_MAX], back[NNS__ATEN_R_MAX];
  perm[0] = dim;
  for (int k = 0, j = 1; k < r; k++)
    if (k != dim)
      perm[j++] = k;
  for (int k = 0; k < r; k++)
    back[perm[k]] = k;
  size_t first = *c->node_count;
  const char *data = x, *upd = src;
  if (dim) {
    const char *t[2] = {c->fresh(c->fe), NULL};
    A_TRY(nns__aten_node(c, "Transpose", "", &data, 1, &t[0], 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)r, c->err));
    t[1] = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Transpose", "", &upd, 1, &t[1], 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", perm, (size_t)r, c->err));
    data = t[0];
    upd = t[1];
  }
  const char *ins[] = {data, rows_index(c, ix, true), upd};
  if (!ins[1])
    return fail_of(c);
  const char *y = dim ? c->fresh(c->fe) : c->outs[0];
  A_TRY(nns__aten_node(c, "ScatterND", "", ins, 3, &y, 1));
  if (dim) {
    A_TRY(nns__aten_node(c, "Transpose", "", &y, 1, c->outs, 1));
    A_TRY(nns_builder_attr_ints(c->b, "perm", back, (size_t)r, c->err));
  }
  return nns__aten_kernel(c, first);
}

/* index_put(self, indices, values, accumulate): x[mask] = v for a mask
 * over the leading dims, v one value or one row: a Where (the mask
 * reshaped to x's rank); integer indices over the leading dims: a
 * ScatterND of v (Expanded to the indexed shape) at the stacked indices
 * (x[mask] = rows is not lowered here: how many rows is the mask's
 * data; mask_rows_put below). */
/* The index tensors idx[0..used) as ScatterND's indices: each (made
 * int64 and expanded to dims bs[0..nb) first, when bs is given)
 * Unsqueezed to (..., 1), Concatenated on the last axis when several. */
static nns_status stack_indices(nns__aten_call *c, const char *const *idx,
                                int used, const int64_t *bs, int nb,
                                const char **out) {
  const char *parts[NNS__ATEN_R_MAX];
  int64_t minus1 = -1;
  if (used < 1 || used > NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  for (int k = 0; k < used; k++) {
    const char *ins[] = {bs ? int64_of(c, idx[k], bs, nb) : idx[k],
                         nns__aten_const_ints(c, &minus1, 1, false)};
    if (!ins[0] || !ins[1])
      return fail_of(c);
    parts[k] = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Unsqueeze", "", ins, 2, &parts[k], 1));
  }
  *out = parts[0];
  if (used > 1) {
    *out = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Concat", "", parts, (size_t)used, out, 1));
    A_TRY(nns_builder_attr_int(c->b, "axis", -1, c->err));
  }
  return NNS_OK;
}

/* ScatterND of upd into x at the stacked indices: the call's output
 * (reduction add with accumulate). */
static nns_status scatter_nd(nns__aten_call *c, const char *x,
                             const char *stacked, const char *upd) {
  const char *ins[] = {x, stacked, upd};
  A_TRY(nns__aten_node(c, "ScatterND", "", ins, 3, c->outs, 1));
  if (nns__aten_bool(c, "accumulate", false))
    A_TRY(nns__aten_attr_s(c, "reduction", "add"));
  return NNS_OK;
}

/* Whether dim ka of a and dim kb of b are one size: equal numbers, or
 * one symbol (or expression) by name. */
static bool same_size(const nns__aten_meta *a, int ka, const nns__aten_meta *b,
                      int kb) {
  if (a->dims[ka] >= 0 || b->dims[kb] >= 0)
    return a->dims[ka] == b->dims[kb];
  return a->syms && b->syms && a->syms[ka] && b->syms[kb] &&
         !strcmp(a->syms[ka], b->syms[kb]);
}

/* index_put with sizes not all known, in the one form that needs none:
 * int64 index tensors of one shape over the leading dims, and values of
 * that shape then x's other dims (no Expand): the static lowering's
 * Unsqueeze (Concat) and ScatterND. NOTFOUND for any other. */
static nns_status index_put_symbolic(nns__aten_call *c, const char *x,
                                     const char *v,
                                     const nns__aten_arg *ix) {
  const nns__aten_meta *mx = A_META(c, x), *mv = A_META(c, v);
  int used = ix->n;
  const nns__aten_meta *m0 = ix->tensors[0] ? A_META(c, ix->tensors[0]) : 0;
  if (!m0 || m0->rank < 1 || mv->rank != m0->rank + mx->rank - used ||
      used > NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  for (int k = 0; k < used; k++) {
    const nns__aten_meta *mk =
        ix->tensors[k] ? A_META(c, ix->tensors[k]) : NULL;
    if (!mk || mk->dtype != NNS_DT_INT64 || mk->rank != m0->rank)
      return NNS_E_NOTFOUND;
    for (int j = 0; j < mk->rank; j++)
      if (!same_size(mk, j, m0, j))
        return NNS_E_NOTFOUND;
  }
  for (int j = 0; j < m0->rank; j++)
    if (!same_size(mv, j, m0, j))
      return NNS_E_NOTFOUND;
  for (int k = used; k < mx->rank; k++)
    if (!same_size(mv, m0->rank + k - used, mx, k))
      return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *stacked;
  A_TRY(stack_indices(c, ix->tensors, used, NULL, 0, &stacked));
  A_TRY(scatter_nd(c, x, stacked, v));
  return nns__aten_kernel(c, first);
}

/* x[mask] = v (accumulate: +=), a boolean mask over x's `lead` leading
 * dims and v a row for each masked position: a ScatterND of v's rows
 * into x flattened over those dims (which rows is data: the positions a
 * constant known by its shape alone), reshaped back. */
static nns_status mask_rows_put(nns__aten_call *c, const char *x,
                                const int64_t *dx, int rx, int lead,
                                const char *v, const int64_t *dv, int rv,
                                bool acc) {
  if (lead < 1 || lead > rx || rv < 1 || rv != 1 + rx - lead ||
      memcmp(dv + 1, dx + lead, (size_t)(rv - 1) * sizeof *dv))
    return NNS_E_NOTFOUND;
  int64_t flat[NNS__ATEN_R_MAX], pos[2] = {dv[0], 1};
  flat[0] = nns__aten_prod(dx, lead);
  for (int k = lead; k < rx; k++)
    flat[1 + k - lead] = dx[k];
  size_t first = *c->node_count;
  const char *rows = c->fresh(c->fe), *put = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, x, flat, rv, rows));
  const char *ins[] = {rows, nns__aten_filler(c, NNS_DT_INT64, 2, pos), v};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "ScatterND", "", ins, 3, &put, 1));
  if (acc)
    A_TRY(nns__aten_attr_s(c, "reduction", "add"));
  A_TRY(nns__aten_reshape_to(c, put, dx, rx, c->outs[0]));
  return nns__aten_kernel(c, first);
}

static nns_status index_put(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *v = A_T(c, "values");
  const nns__aten_arg *ix = nns__aten_arg_of(c, "indices");
  const nns__aten_meta *mx = A_META(c, x), *mv = A_META(c, v);
  int64_t dx[NNS__ATEN_R_MAX], dv[NNS__ATEN_R_MAX];
  if (!x || !v || !mx || !mv || mx->rank < 0 || mv->rank < 0 || !ix ||
      ix->kind != NNS__AA_TENSORS || ix->n < 1 || ix->n > mx->rank ||
      !c->outs[0])
    return NNS_E_NOTFOUND;
  if (!nns__aten_known(mx, dx) || !nns__aten_known(mv, dv))
    return index_put_symbolic(c, x, v, ix);
  bool acc = nns__aten_bool(c, "accumulate", false);
  int used = 0;
  for (int k = 0; k < ix->n; k++)
    if (ix->tensors[k]) {
      if (k != used)
        return NNS_E_NOTFOUND; /* not leading and adjacent */
      used++;
    }
  if (!used)
    return NNS_E_NOTFOUND;
  const nns__aten_meta *m0 = A_META(c, ix->tensors[0]);
  int64_t d0[NNS__ATEN_R_MAX];
  if (!nns__aten_known(m0, d0))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  if (m0->dtype == NNS_DT_BOOL || m0->dtype == NNS_DT_UINT8) {
    /* v must broadcast over each masked position's rest dims */
    int rest = mx->rank - m0->rank;
    bool fills = nns__aten_prod(dv, mv->rank) == 1;
    if (!fills && mv->rank <= rest) {
      fills = true;
      for (int k = 0; k < mv->rank; k++) {
        int64_t want = dx[mx->rank - mv->rank + k];
        fills = fills && (dv[k] == want || dv[k] == 1);
      }
    }
    if (ix->n == 1 && m0->dtype == NNS_DT_BOOL && !(fills && !acc))
      return mask_rows_put(c, x, dx, mx->rank, m0->rank, v, dv, mv->rank,
                           acc);
    if (used != 1 || acc || m0->dtype != NNS_DT_BOOL || !fills)
      return NNS_E_NOTFOUND;
    const char *cond = ix->tensors[0];
    if (m0->rank < mx->rank) {
      int64_t shape[NNS__ATEN_R_MAX];
      for (int k = 0; k < mx->rank; k++)
        shape[k] = k < m0->rank ? d0[k] : 1;
      cond = c->fresh(c->fe);
      A_TRY(nns__aten_reshape_to(c, ix->tensors[0], shape, mx->rank, cond));
    }
    const char *ins[] = {cond, v, x};
    A_TRY(nns__aten_node(c, "Where", "", ins, 3, c->outs, 1));
    return nns__aten_kernel(c, first);
  }
  /* integer indices: their broadcast shape */
  int64_t bs[NNS__ATEN_R_MAX];
  int nb = 0;
  for (int k = 0; k < used; k++) {
    const nns__aten_meta *mk = A_META(c, ix->tensors[k]);
    int64_t dk[NNS__ATEN_R_MAX];
    if (!nns__aten_known(mk, dk) || mk->dtype == NNS_DT_BOOL ||
        !(mk->dtype == NNS_DT_INT64 || mk->dtype == NNS_DT_INT32))
      return NNS_E_NOTFOUND;
    if (mk->rank > nb) {
      for (int j = nb - 1; j >= 0; j--)
        bs[j + mk->rank - nb] = bs[j];
      for (int j = 0; j < mk->rank - nb; j++)
        bs[j] = 1;
      nb = mk->rank;
    }
    for (int j = 0; j < mk->rank; j++) {
      int64_t *t = &bs[nb - mk->rank + j];
      if (*t == 1)
        *t = dk[j];
      else if (dk[j] != 1 && dk[j] != *t)
        return NNS_E_NOTFOUND;
    }
  }
  if (nb + mx->rank - used > NNS__ATEN_R_MAX || nb + 1 > NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  const char *stacked;
  A_TRY(stack_indices(c, ix->tensors, used, bs, nb, &stacked));
  int64_t us[NNS__ATEN_R_MAX];
  int nu = 0;
  for (int k = 0; k < nb; k++)
    us[nu++] = bs[k];
  for (int k = used; k < mx->rank; k++)
    us[nu++] = dx[k];
  const char *upd = v;
  if (mv->rank != nu || memcmp(dv, us, (size_t)nu * sizeof *us)) {
    const char *ins[] = {v, nns__aten_const_ints(c, us, nu, false)};
    if (!ins[1])
      return c->err->code;
    upd = c->fresh(c->fe);
    A_TRY(nns__aten_node(c, "Expand", "", ins, 2, &upd, 1));
  }
  A_TRY(scatter_nd(c, x, stacked, upd));
  return nns__aten_kernel(c, first);
}

/* ==== Sorting and search ==== */

/* topk(self, k, dim, largest, sorted): TopK (the router's top-k a
 * mixture of experts is found by, python/nnscan/moe.py and the library's
 * experts analysis). */
static nns_status topk(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *k = nns__aten_arg_of(c, "k");
  if (!x || !mx || !k || k->kind != NNS__AA_INT || k->sym || c->n_outs < 1)
    return NNS_E_NOTFOUND;
  int r = mx->rank > 1 ? mx->rank : 1;
  const char *ins[] = {x, nns__aten_const_ints(c, &k->i, 1, false)};
  const char *outs[2] = {c->outs[0], c->n_outs > 1 ? c->outs[1] : NULL};
  for (int j = 0; j < 2; j++)
    if (!outs[j])
      outs[j] = c->fresh(c->fe);
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "TopK", "", ins, 2, outs, 2));
  A_TRY(nns_builder_attr_int(c->b, "axis",
                             (nns__aten_int(c, "dim", -1) % r + r) % r,
                             c->err));
  A_TRY(nns_builder_attr_int(c->b, "largest",
                             nns__aten_bool(c, "largest", true), c->err));
  return nns_builder_attr_int(c->b, "sorted",
                              nns__aten_bool(c, "sorted", true), c->err);
}

/* sort(self, stable, dim, descending) -> (values, indices) and argsort
 * (its indices alone): a TopK of the whole dim, as torch.onnx exports
 * it. */
static nns_status sort(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 0 || c->n_outs < 1)
    return NNS_E_NOTFOUND;
  int r = mx->rank > 1 ? mx->rank : 1;
  int64_t dim = (nns__aten_int(c, "dim", -1) % r + r) % r;
  int64_t n = mx->rank ? mx->dims[dim] : 1;
  const char *k = n >= 0 ? nns__aten_const_ints(c, &n, 1, false)
                         : nns__aten_size_vector(c, mx, (int)dim);
  if (!k)
    return fail_of(c);
  const char *outs[2];
  if (!strncmp(c->op, "argsort", 7)) {
    outs[0] = c->fresh(c->fe);
    outs[1] = c->outs[0];
  } else {
    outs[0] = c->outs[0];
    outs[1] = c->n_outs > 1 ? c->outs[1] : NULL;
  }
  for (int j = 0; j < 2; j++)
    if (!outs[j])
      outs[j] = c->fresh(c->fe);
  const char *ins[] = {x, k};
  A_TRY(nns__aten_node(c, "TopK", "", ins, 2, outs, 2));
  A_TRY(nns_builder_attr_int(c->b, "axis", dim, c->err));
  A_TRY(nns_builder_attr_int(c->b, "largest",
                             nns__aten_bool(c, "descending", false), c->err));
  return nns_builder_attr_int(c->b, "sorted", 1, c->err);
}

/* bucketize(self, boundaries, out_int32, right) and searchsorted
 * (sorted_sequence, self, out_int32, right, side, sorter) over a 1-D
 * sequence: the library's pytorch.aten bucketize entry (a binary search
 * per element; ONNX has no such operator). */
static nns_status bucketize(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  bool search = !strncmp(c->op, "searchsorted", 12);
  const char *x = A_T(c, "self");
  const char *seq = A_T(c, search ? "sorted_sequence" : "boundaries");
  const nns__aten_meta *ms = A_META(c, seq);
  if (!x || !seq || !ms || ms->rank != 1 || A_T(c, "sorter"))
    return NNS_E_NOTFOUND;
  const nns__aten_arg *side = nns__aten_arg_of(c, "side");
  bool right = nns__aten_bool(c, "right", false) ||
               (side && side->kind == NNS__AA_STRING &&
                !strcmp(side->s, "right"));
  const char *ins[] = {x, seq};
  A_TRY(nns__aten_node(c, "bucketize", "pytorch.aten", ins, 2, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "out_int32",
                             nns__aten_bool(c, "out_int32", false), c->err));
  return nns_builder_attr_int(c->b, "right", right, c->err);
}

/* ==== Data-dependent sizes ==== */

/* nonzero(self) -> (count, rank) int64: NonZero, (rank, count), then a
 * Transpose. The count is data: NonZero's rule leaves it unknown, and
 * both values take the one the recording found (declared; an archive's
 * is a symbol, left unknown). */
static nns_status nonzero(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  if (!x || !c->outs[0])
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *t = c->fresh(c->fe);
  int64_t perm[2] = {1, 0};
  A_TRY(nns__aten_node(c, "NonZero", "", &x, 1, &t, 1));
  A_TRY(nns__aten_node(c, "Transpose", "", &t, 1, c->outs, 1));
  A_TRY(nns_builder_attr_ints(c->b, "perm", perm, 2, c->err));
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (mo && mo->rank == 2) {
    int64_t dims[2] = {mo->dims[1], mo->dims[0]};
    A_TRY(nns__aten_declare(c, t, NNS_DT_INT64, 2, dims));
    A_TRY(nns__aten_declare(c, c->outs[0], NNS_DT_INT64, 2, mo->dims));
  }
  return nns__aten_kernel(c, first);
}

/* _unique2 / _unique (self, sorted, return_inverse, return_counts) and
 * unique_consecutive (self, return_inverse, return_counts, dim) over the
 * flattened input: ONNX's Unique (its count is data), outputs (values,
 * indices, inverse, counts), the call's own where they are of Unique's
 * shape. Along a dim, or an inverse asked for in x's shape (more than
 * 1-D): not lowered. */
static nns_status unique(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mx = A_META(c, x);
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  int64_t dx[NNS__ATEN_R_MAX];
  if (!x || !nns__aten_known(mx, dx) || c->n_outs < 1 || !c->outs[0] ||
      (d && d->kind != NNS__AA_NONE))
    return NNS_E_NOTFOUND;
  const nns__aten_meta *m0 = A_META(c, c->outs[0]);
  if (!m0 || m0->rank != 1)
    return NNS_E_NOTFOUND;
  int64_t n = nns__aten_prod(dx, mx->rank);
  const char *ys[4] = {c->outs[0], c->fresh(c->fe), NULL, NULL};
  for (int k = 1; k < 3; k++) {
    const char *o = k < c->n_outs ? c->outs[k] : NULL;
    const nns__aten_meta *mk = A_META(c, o);
    bool own = mk && mk->rank == 1 &&
               (k == 1 ? mk->dims[0] == n
                       : (mk->dims[0] == m0->dims[0] &&
                          (mk->dims[0] >= 0 ||
                           (mk->syms[0] && m0->syms[0] &&
                            !strcmp(mk->syms[0], m0->syms[0])))));
    /* an output of another shape is one PyTorch left empty (not asked
     * for), or the inverse in x's shape, which Unique does not give */
    bool asked = nns__aten_bool(c, k == 1 ? "return_inverse"
                                          : "return_counts",
                                false);
    if (o && !own && asked)
      return NNS_E_NOTFOUND;
    ys[k + 1] = own ? o : c->fresh(c->fe);
  }
  A_TRY(nns__aten_node(c, "Unique", "", &x, 1, ys, 4));
  A_TRY(nns_builder_attr_int(c->b, "sorted", 0, c->err));
  /* the count is data: each output takes the size the recording found */
  int64_t sizes[4] = {m0->dims[0], m0->dims[0], n, m0->dims[0]};
  for (int k = 0; k < 4; k++)
    A_TRY(nns__aten_declare(c, ys[k], k ? NNS_DT_INT64 : m0->dtype, 1,
                            &sizes[k]));
  return NNS_OK;
}

/* repeat_interleave: with self first (self, repeats, dim, output_size),
 * self's rows repeated along dim (the flattened input when dim is None);
 * the Tensor overload (repeats alone) each output position's repeat.
 * Either a Gather of as many positions as PyTorch made (the output's
 * size along the axis), known by shape alone. */
static nns_status repeat_interleave(nns__aten_call *c,
                                    const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!mo || mo->rank < 1 || mo->rank > NNS__ATEN_R_MAX || !c->outs[0])
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *src = x;
  int64_t dim = 0;
  if (!x) { /* repeat_interleave(repeats) */
    src = A_T(c, "repeats");
  } else {
    const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
    if (!d || d->kind == NNS__AA_NONE) {
      int64_t minus1 = -1;
      const char *ins[] = {x, nns__aten_const_ints(c, &minus1, 1, false)};
      if (!ins[1])
        return c->err->code;
      src = c->fresh(c->fe);
      A_TRY(nns__aten_node(c, "Reshape", "", ins, 2, &src, 1));
    } else if (d->kind == NNS__AA_INT && !d->sym) {
      dim = (d->i % mo->rank + mo->rank) % mo->rank;
    } else {
      return NNS_E_NOTFOUND;
    }
  }
  if (!src || mo->dims[dim] < 0)
    return NNS_E_NOTFOUND;
  const char *ins[] = {src, positions(c, &mo->dims[dim], 1)};
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Gather", "", ins, 2, c->outs, 1));
  A_TRY(nns_builder_attr_int(c->b, "axis", dim, c->err));
  return nns__aten_kernel(c, first);
}

/* ==== Backward kernels ==== */

/* slice_backward(grad_output, input_sizes, dim, start, end, step): the
 * gradient padded back with zeros (step 1). */
static nns_status slice_backward(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *g = A_T(c, "grad_output");
  const nns__aten_meta *mg = A_META(c, g);
  const nns__aten_arg *s = nns__aten_arg_of(c, "input_sizes");
  int64_t dg[NNS__ATEN_R_MAX];
  if (!g || !nns__aten_known(mg, dg) || !s || s->kind != NNS__AA_INTS ||
      s->n != mg->rank || s->n < 1 || nns__aten_int(c, "step", 1) != 1)
    return NNS_E_NOTFOUND;
  int r = s->n;
  for (int k = 0; k < r; k++)
    if (s->syms[k])
      return NNS_E_NOTFOUND;
  int64_t dim = (nns__aten_int(c, "dim", 0) % r + r) % r;
  int64_t n = s->ints[dim], start = nns__aten_int(c, "start", 0);
  start = start < 0 ? start + n : start;
  start = start < 0 ? 0 : start > n ? n : start;
  int64_t pads[2 * NNS__ATEN_R_MAX] = {0};
  pads[dim] = start;
  pads[r + dim] = n - start - dg[dim];
  const char *ins[] = {g, nns__aten_const_ints(c, pads, 2 * r, false),
                       nns__aten_scalar(c, 0, mg->dtype)};
  if (!ins[1] || !ins[2])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Pad", "", ins, 3, c->outs, 1));
  return nns__aten_attr_s(c, "mode", "constant");
}

/* embedding_dense_backward(grad_output, indices, num_weights, ...): each
 * id's gradient row added into its table row, a ScatterND add into
 * zeros. */
static nns_status embedding_dense_backward(nns__aten_call *c,
                                           const nns__aten_op *op) {
  (void)op;
  const char *g = A_T(c, "grad_output"), *ids = A_T(c, "indices");
  const nns__aten_meta *mg = A_META(c, g), *mi = A_META(c, ids);
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  int64_t dg[NNS__ATEN_R_MAX], di[NNS__ATEN_R_MAX], dout[NNS__ATEN_R_MAX];
  if (!g || !ids || !nns__aten_known(mg, dg) || !nns__aten_known(mi, di) || !nns__aten_known(mo, dout) ||
      mg->rank < 1)
    return NNS_E_NOTFOUND;
  int64_t n = nns__aten_prod(di, mi->rank), nd[2] = {n, dg[mg->rank - 1]};
  int64_t n1[2] = {n, 1};
  size_t first = *c->node_count;
  const char *rows = c->fresh(c->fe), *ix = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, g, nd, 2, rows));
  const char *t = int64_of(c, ids, di, mi->rank);
  if (!t)
    return fail_of(c);
  A_TRY(nns__aten_reshape_to(c, t, n1, 2, ix));
  const char *ins[] = {nns__aten_filler(c, mg->dtype, mo->rank, dout), ix,
                       rows};
  if (!ins[0])
    return c->err->code;
  A_TRY(nns__aten_node(c, "ScatterND", "", ins, 3, c->outs, 1));
  A_TRY(nns__aten_attr_s(c, "reduction", "add"));
  return nns__aten_kernel(c, first);
}

/* ==== The table ==== */

/* Sorted by name (bisected; a unit test checks the order). */
static const nns__aten_op table[] = {
    ALIAS("_conj"),
    RULE("_unique", "Unique", unique),
    RULE("_unique2", "Unique", unique),
    RULE("argsort", "TopK", sort),
    RULE("as_strided", "Reshape / Reshape+Gather", as_strided),
    RULE("bucketize", "bucketize (pytorch.aten)", bucketize),
    RULE("embedding_dense_backward", "Reshape, Reshape, ScatterND(add)",
         embedding_dense_backward),
    RULE("flip", "Slice", flip),
    RULE("gather", "GatherElements", gather),
    RULE("index_add", "ScatterND(add)", index_add),
    RULE("index_copy", "ScatterND", index_copy),
    RULE("index_put", "ScatterND / Where", index_put),
    RULE("index_select", "Gather", gather),
    RULE("nonzero", "NonZero, Transpose", nonzero),
    RULE("pixel_shuffle", "DepthToSpace", pixel_shuffle),
    RULE("repeat", "Tile", repeat),
    RULE("repeat_interleave", "Gather", repeat_interleave),
    RULE("roll", "Slice, Slice, Concat", roll),
    RULE("scatter", "ScatterElements", scatter),
    RULE("scatter_add", "ScatterElements", scatter),
    RULE("scatter_reduce", "ScatterElements", scatter),
    RULE("searchsorted", "bucketize (pytorch.aten)", bucketize),
    RULE("slice_backward", "Pad", slice_backward),
    RULE("sort", "TopK", sort),
    RULE("stack", "Unsqueeze, Concat", stack),
    RULE("topk", "TopK", topk),
    RULE("unbind", "Split, Squeeze", unbind),
    RULE("unfold", "Reshape / Reshape+Gather", as_strided),
    RULE("unique_consecutive", "Unique", unique),
    RULE("unsafe_split", "Split", unsafe_split),
    RULE("unsafe_split_with_sizes", "Split", unsafe_split),
};

const nns__aten_family nns__aten_shape = {table,
                                         sizeof table / sizeof table[0]};
