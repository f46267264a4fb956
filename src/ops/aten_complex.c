/*
 * aten_complex.c - complex values (rotary embeddings as complex products,
 * torch.fft) in real form, as the live recorder holds them: a complex
 * value's graph value is its real form, view_as_real's (..., 2) tensor of
 * the real dtype (the front end's `real_form` service names it and marks
 * its meta); a complex-typed value (a complex parameter, buffer or
 * constant) stays so and is read as pairs through the pytorch.aten
 * view_as_real entry (free).
 * A complex product is 4 Mul, a Sub and an Add per element. The nodes of
 * one call are one kernel.
 */
#include "aten_int.h"

#include <string.h>

static bool complex_dt(int32_t dt) {
  return dt == NNS_DT_COMPLEX64 || dt == NNS_DT_COMPLEX128;
}

static int32_t real_dt(int32_t dt) {
  return dt == NNS_DT_COMPLEX128 ? NNS_DT_DOUBLE : NNS_DT_FLOAT;
}

/* Whether value x is the real form of a complex value. */
static bool real_formed(nns__aten_call *c, const char *x) {
  const nns__aten_meta *m = A_META(c, x);
  return m && m->real_form && !complex_dt(m->dtype) && m->rank > 0 &&
         m->dims[m->rank - 1] == 2;
}

/* Whether value x is complex (in real form or complex-typed). */
static bool is_complex(nns__aten_call *c, const char *x) {
  const nns__aten_meta *m = A_META(c, x);
  return m && (complex_dt(m->dtype) || real_formed(c, x));
}

/* A one-input node with an int attribute (or none when attr is NULL). */
static nns_status node1(nns__aten_call *c, const char *op,
                        const char *const *ins, size_t n_in, const char *out,
                        const char *attr, int64_t v) {
  A_TRY(nns__aten_node(c, op, "", ins, n_in, &out, 1));
  return attr ? nns_builder_attr_int(c->b, attr, v, c->err) : NNS_OK;
}

/* x's real form: x itself, or view_as_real of a complex-typed x. */
static const char *real_of(nns__aten_call *c, const char *x) {
  if (real_formed(c, x))
    return x;
  const char *r = c->fresh(c->fe);
  if (!r || nns__aten_node(c, "view_as_real", "pytorch.aten", &x, 1, &r, 1))
    return NULL;
  return r;
}

/* The name out's real form is written to (out named by it). */
static const char *complex_out(nns__aten_call *c) {
  if (c->n_outs < 1 || !c->outs[0] || !c->real_form)
    return NULL;
  const char *r = c->fresh(c->fe);
  if (!r || c->real_form(c->fe, c->outs[0], r) != NNS_OK)
    return NULL;
  return r;
}

static nns_status unsqueeze_last(nns__aten_call *c, const char *x,
                                 const char *out) {
  int64_t m1 = -1;
  const char *ins[] = {x, nns__aten_const_ints(c, &m1, 1, false)};
  if (!ins[1])
    return c->err->code;
  return node1(c, "Unsqueeze", ins, 2, out, NULL, 0);
}

static nns_status view_as_complex(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  if (!x || c->n_outs < 1 || !c->outs[0] || !c->real_form)
    return NNS_E_NOTFOUND;
  return c->real_form(c->fe, c->outs[0], x);
}

static nns_status view_as_real(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  if (!x || c->n_outs < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  if (real_formed(c, x))
    return c->alias(c->fe, c->outs[0], x);
  return nns__aten_node(c, "view_as_real", "pytorch.aten", &x, 1, c->outs, 1);
}

/* polar(abs, angle) = abs cos(angle) + i abs sin(angle). */
static nns_status polar(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *mag = A_T(c, "abs"), *ang = A_T(c, "angle");
  if (!mag || !ang)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *halves[2];
  static const char *const fn[] = {"Cos", "Sin"};
  for (int k = 0; k < 2; k++) {
    const char *t = c->fresh(c->fe), *m = c->fresh(c->fe);
    halves[k] = c->fresh(c->fe);
    if (!t || !m || !halves[k])
      return NNS_E_NOMEM;
    A_TRY(node1(c, fn[k], &ang, 1, t, NULL, 0));
    const char *ins[] = {mag, t};
    A_TRY(node1(c, "Mul", ins, 2, m, NULL, 0));
    A_TRY(unsqueeze_last(c, m, halves[k]));
  }
  const char *r = complex_out(c);
  if (!r)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(node1(c, "Concat", halves, 2, r, "axis", -1));
  return nns__aten_kernel(c, first);
}

/* (real, imaginary) halves of real form x, each (..., 1). */
static nns_status parts(nns__aten_call *c, const char *x, const char **h) {
  int64_t ones[] = {1, 1};
  const char *ins[] = {x, nns__aten_const_ints(c, ones, 2, false)};
  h[0] = c->fresh(c->fe);
  h[1] = c->fresh(c->fe);
  if (!ins[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "Split", "", ins, 2, h, 2));
  return nns_builder_attr_int(c->b, "axis", -1, c->err);
}

static nns_status complex_mul(nns__aten_call *c, const nns__aten_arg *ax,
                              const nns__aten_arg *ay) {
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!mo || !complex_dt(mo->dtype))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *x = ax->tensor;
  const char *y = ay->kind == NNS__AA_TENSOR ? ay->tensor : NULL;
  /* a complex constant from outside comes in as its real form (the
   * rule's _bring_real_formed: x's, then y's) */
  if (c->bring_real) {
    A_TRY(c->bring_real(c->fe, x));
    if (y)
      A_TRY(c->bring_real(c->fe, y));
  }
  bool cx = is_complex(c, x), cy = y && is_complex(c, y);
  if (cx != cy) {
    const char *k = cx ? y : x, *z = cx ? x : y, *other;
    const nns__aten_arg *ka = cx ? ay : ax;
    if (k) {
      other = c->fresh(c->fe);
      A_TRY(unsqueeze_last(c, k, other));
    } else if (!(other = nns__aten_operand(c, ka, real_dt(mo->dtype)))) {
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    }
    const char *zr = real_of(c, z), *r = zr ? complex_out(c) : NULL;
    if (!r)
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    const char *ins[] = {zr, other};
    A_TRY(node1(c, "Mul", ins, 2, r, NULL, 0));
    return nns__aten_kernel(c, first);
  }
  /* each operand's real form, then its halves, x's first (the rule's
   * order: a complex-typed y's view_as_real comes after x's Split) */
  const char *xh[2], *yh[2], *p[4], *re = c->fresh(c->fe),
                                     *im = c->fresh(c->fe);
  const char *xr = real_of(c, x);
  if (!xr)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(parts(c, xr, xh));
  const char *yr = real_of(c, y);
  if (!yr)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(parts(c, yr, yh));
  static const int pick[4][2] = {{0, 0}, {1, 1}, {0, 1}, {1, 0}};
  for (int k = 0; k < 4; k++) {
    const char *ins[] = {xh[pick[k][0]], yh[pick[k][1]]};
    p[k] = c->fresh(c->fe);
    A_TRY(node1(c, "Mul", ins, 2, p[k], NULL, 0));
  }
  A_TRY(node1(c, "Sub", (const char *const[]){p[0], p[1]}, 2, re, NULL, 0));
  A_TRY(node1(c, "Add", (const char *const[]){p[2], p[3]}, 2, im, NULL, 0));
  const char *r = complex_out(c);
  if (!r)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(node1(c, "Concat", (const char *const[]){re, im}, 2, r, "axis", -1));
  return nns__aten_kernel(c, first);
}

/* The dims of int-list argument "dim" over rank r, each in [0, r). */
static int fft_dims(nns__aten_call *c, int r, int64_t *d) {
  const nns__aten_arg *a = nns__aten_arg_of(c, "dim");
  if (!a || a->kind != NNS__AA_INTS || a->n < 1 || a->n > 16 || r < 1)
    return -1;
  for (int k = 0; k < a->n; k++) {
    if (a->syms && a->syms[k])
      return -1;
    d[k] = (a->ints[k] % r + r) % r;
  }
  return a->n;
}

/* DFTs along dims[0..n) (one axis each), the first one-sided when asked,
 * from src; the last writes `out`, scaled by one Mul more when `scale`. */
static nns_status dft_chain(nns__aten_call *c, const char *src,
                            const int64_t *dims, int n, bool inverse,
                            bool onesided, bool scale, const char *out,
                            int32_t dt) {
  const char *cur = src;
  for (int k = 0; k < n; k++) {
    const char *nxt = k == n - 1 && !scale ? out : c->fresh(c->fe);
    A_TRY(node1(c, "DFT", &cur, 1, nxt, "axis", dims[k]));
    A_TRY(nns_builder_attr_int(c->b, "inverse", inverse, c->err));
    if (onesided && k == 0)
      A_TRY(nns_builder_attr_int(c->b, "onesided", 1, c->err));
    cur = nxt;
  }
  if (!scale)
    return NNS_OK;
  const char *ins[] = {cur, nns__aten_scalar(c, 1.0, dt)};
  if (!ins[1])
    return c->err->code;
  return node1(c, "Mul", ins, 2, out, NULL, 0);
}

/* Whether meta m is the real form of a complex value (real_formed's
 * test on a meta of one's own). */
static bool real_meta(const nns__aten_meta *m) {
  return m && m->real_form && !complex_dt(m->dtype) && m->rank > 0 &&
         m->dims[m->rank - 1] == 2;
}

/* _fft_c2c(self, dim, normalization, forward) on x, a value in real form
 * of meta mx (its rank and dtype: x may be a resized copy of it). */
static nns_status fft_c2c_on(nns__aten_call *c, const char *x,
                             const nns__aten_meta *mx) {
  int64_t dims[16];
  int n;
  if (!x || !real_meta(mx) || (n = fft_dims(c, mx->rank - 1, dims)) < 1)
    return NNS_E_NOTFOUND;
  int64_t norm = nns__aten_int(c, "normalization", 0);
  bool forward = nns__aten_bool(c, "forward", true);
  size_t first = *c->node_count;
  const char *r = complex_out(c);
  if (!r)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(dft_chain(c, x, dims, n, !forward, false,
                  norm == 1 || (norm == 2 && forward), r, mx->dtype));
  return nns__aten_kernel(c, first);
}

static nns_status fft_c2c(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  return fft_c2c_on(c, x, A_META(c, x));
}

/* _fft_r2c(self, dim, normalization, onesided): the real signal as
 * (..., 1), a DFT per dim, the last dim first (and one-sided). */
static nns_status fft_r2c_on(nns__aten_call *c, const char *x,
                             const nns__aten_meta *mx) {
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  int64_t d[16], order[16];
  int n;
  if (!x || !mx || !mo || !complex_dt(mo->dtype) ||
      (n = fft_dims(c, mx->rank, d)) < 1)
    return NNS_E_NOTFOUND;
  order[0] = d[n - 1];
  for (int k = 0; k + 1 < n; k++)
    order[k + 1] = d[k];
  size_t first = *c->node_count;
  const char *u = c->fresh(c->fe);
  A_TRY(unsqueeze_last(c, x, u));
  const char *r = complex_out(c);
  if (!r)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(dft_chain(c, u, order, n, false, nns__aten_bool(c, "onesided", true),
                  nns__aten_int(c, "normalization", 0) != 0, r,
                  real_dt(mo->dtype)));
  return nns__aten_kernel(c, first);
}

static nns_status fft_r2c(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self");
  return fft_r2c_on(c, x, A_META(c, x));
}

/* resize_fft_input: for each transformed dim whose size argument is
 * smaller than x's, a Slice to it; then, when one is larger, one
 * constant Pad at the ends (PyTorch pads after slicing). A complex value
 * is padded by an op the live recording does not count either: not
 * lowered. *out the resized value (x itself when nothing changes). */
static nns_status fft_resize(nns__aten_call *c, const char *x,
                             const nns__aten_meta *mx, bool cx,
                             const int64_t *dims, const int64_t *sizes,
                             int n, const char **out) {
  int r = cx ? mx->rank - 1 : mx->rank;
  int64_t ends[16] = {0};
  bool pad = false;
  *out = x;
  for (int k = 0; k < n; k++) {
    int64_t d = (dims[k] % r + r) % r, have = mx->dims[d];
    if (sizes[k] == -1)
      continue;
    if (have < 0 || sizes[k] < 1)
      return NNS_E_NOTFOUND;
    if (have < sizes[k]) {
      pad = true;
      ends[d] = sizes[k] - have;
    } else if (have > sizes[k]) {
      int64_t zero = 0, one = 1;
      const char *ins[] = {*out, nns__aten_const_ints(c, &zero, 1, false),
                           nns__aten_const_ints(c, &sizes[k], 1, false),
                           nns__aten_const_ints(c, &d, 1, false),
                           nns__aten_const_ints(c, &one, 1, false)};
      const char *o = c->fresh(c->fe);
      if (!ins[1] || !ins[2] || !ins[3] || !ins[4] || !o)
        return c->err->code ? c->err->code : NNS_E_NOMEM;
      A_TRY(nns__aten_node(c, "Slice", "", ins, 5, &o, 1));
      *out = o;
    }
  }
  if (!pad)
    return NNS_OK;
  if (cx)
    return NNS_E_NOTFOUND;
  int64_t pads[32] = {0};
  for (int d = 0; d < r; d++)
    pads[r + d] = ends[d];
  const char *ins[] = {*out, nns__aten_const_ints(c, pads, 2 * r, false),
                       nns__aten_scalar(c, 0.0, mx->dtype)};
  const char *o = c->fresh(c->fe);
  if (!ins[1] || !ins[2] || !o)
    return c->err->code ? c->err->code : NNS_E_NOMEM;
  A_TRY(nns__aten_node(c, "Pad", "", ins, 3, &o, 1));
  A_TRY(nns__aten_attr_s(c, "mode", "constant"));
  *out = o;
  return NNS_OK;
}

/* torch.fft's composites an archive keeps (fft_fft, fft_rfft2, fft_ifftn,
 * ...), lowered as the kernel each runs live: _fft_c2c on a value in real
 * form, _fft_r2c for rfft* and for a 1-D forward fft of a real signal,
 * after resize_fft_input's Slice and Pad when a size (n, s) is given; a
 * 2-D or n-D fft (or inverse) of a real signal on a complex copy of it
 * (fft_of_real). A 1-D inverse of a real signal, a real signal resized
 * before its copy and a complex value padded: not lowered here. */
static nns_status fft_of_real(nns__aten_call *c, nns__aten_call *kc,
                              const char *x, const nns__aten_meta *mx);

static nns_status fft_composite(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self"), *k = op->name + 4;
  const nns__aten_meta *mx = A_META(c, x);
  if (!x || !mx || mx->rank < 1)
    return NNS_E_NOTFOUND;
  bool inverse = k[0] == 'i', real_in = k[0] == 'r';
  int nd = k[3 + (inverse || real_in)] == '2'   ? 2
           : k[3 + (inverse || real_in)] == 'n' ? 0
                                                : 1;
  const nns__aten_arg *size = nns__aten_arg_of(c, nd == 1 ? "n" : "s");
  int64_t sizes[16];
  int ns = 0; /* how many sizes the call gives */
  if (size && size->kind == NNS__AA_INT && !size->sym) {
    sizes[ns++] = size->i;
  } else if (size && size->kind == NNS__AA_INTS && size->n >= 1 &&
             size->n <= 16) {
    for (int j = 0; j < size->n; j++) {
      if (size->syms && size->syms[j])
        return NNS_E_NOTFOUND;
      sizes[ns++] = size->ints[j];
    }
  } else if (size && size->kind != NNS__AA_NONE) {
    return NNS_E_NOTFOUND;
  }
  bool cx = real_formed(c, x);
  if (complex_dt(mx->dtype) || (real_in && cx))
    return NNS_E_NOTFOUND;
  /* a 2-D or n-D fft (or inverse) of a real signal: made complex; a 1-D
   * inverse of one runs _fft_r2c and a conj live: not lowered here */
  if (!real_in && !cx && nd == 1 && inverse)
    return NNS_E_NOTFOUND;
  bool promote = !real_in && !cx && nd != 1;
  int r = cx ? mx->rank - 1 : mx->rank;
  int64_t dims[16];
  int n = 0;
  const nns__aten_arg *d = nns__aten_arg_of(c, "dim");
  if (d && d->kind == NNS__AA_INT && !d->sym) {
    dims[n++] = d->i;
  } else if (d && d->kind == NNS__AA_INTS && d->n >= 1 && d->n <= 16) {
    for (int j = 0; j < d->n; j++) {
      if (d->syms && d->syms[j])
        return NNS_E_NOTFOUND;
      dims[n++] = d->ints[j];
    }
  } else if (d && d->kind != NNS__AA_NONE) {
    return NNS_E_NOTFOUND;
  } else if (nd == 1) {
    dims[n++] = -1;
  } else if (nd == 2) {
    dims[n++] = -2;
    dims[n++] = -1;
  } else if (ns) { /* s without dim: the last len(s) dims */
    if (ns > r)
      return NNS_E_NOTFOUND;
    for (; n < ns; n++)
      dims[n] = r - ns + n;
  } else {
    for (; n < r && n < 16; n++)
      dims[n] = n;
  }
  if (ns && ns != n)
    return NNS_E_NOTFOUND;
  const nns__aten_arg *na = nns__aten_arg_of(c, "norm");
  const char *norm = na && na->kind == NNS__AA_STRING ? na->s : "backward";
  int64_t mode;
  if (!strcmp(norm, "backward"))
    mode = inverse ? 2 : 0;
  else if (!strcmp(norm, "forward"))
    mode = inverse ? 0 : 2;
  else if (!strcmp(norm, "ortho"))
    mode = 1;
  else
    return NNS_E_NOTFOUND;
  const char *xr = x;
  if (ns) {
    if (promote)
      return NNS_E_NOTFOUND; /* resized, then made complex: not here */
    for (int j = 0; j < n; j++)
      if (dims[j] < -r || dims[j] >= r)
        return NNS_E_NOTFOUND;
    A_TRY(fft_resize(c, x, mx, cx, dims, sizes, n, &xr));
  }
  nns__aten_arg args[4] = {
      {.name = "self", .kind = NNS__AA_TENSOR, .tensor = xr},
      {.name = "dim", .kind = NNS__AA_INTS, .n = n, .ints = dims},
      {.name = "normalization", .kind = NNS__AA_INT, .i = mode},
      {.name = cx ? "forward" : "onesided", .kind = NNS__AA_BOOL,
       .b = cx ? !inverse : real_in}};
  nns__aten_call kc = *c;
  kc.args = args;
  kc.n_args = 4;
  if (promote) {
    args[3] = (nns__aten_arg){.name = "forward", .kind = NNS__AA_BOOL,
                              .b = !inverse};
    return fft_of_real(c, &kc, xr, mx);
  }
  return cx ? fft_c2c_on(&kc, xr, mx) : fft_r2c_on(&kc, xr, mx);
}

/* masked_scatter(self, mask, source): self's elements where mask
 * (broadcast to self) holds, filled in order from source's first ones
 * (a vision-language model merging image features into the text
 * embeddings). How many land is the mask's contents: the recorder's
 * tape gives it, counted from the tracked mask, as `tracked_count` after
 * the schema's arguments (include/nnscan.h, record 29); an archive holds
 * no contents, and the call stays uncounted (reported). A ScatterND of
 * that many source elements into self flattened: Reshape both, Slice the
 * source's first, ScatterND at as many positions, Reshape back. The mask
 * itself is never read (nns_aten_op_unread); the entry says which count
 * it reads (nns_aten_op_counted). */
static nns_status masked_scatter(nns__aten_call *c, const nns__aten_op *op) {
  (void)op;
  const char *x = A_T(c, "self"), *src = A_T(c, "source");
  const nns__aten_arg *k = nns__aten_arg_of(c, "tracked_count");
  const nns__aten_meta *mx = A_META(c, x), *ms = A_META(c, src);
  int64_t dx[NNS__ATEN_R_MAX], ds[NNS__ATEN_R_MAX];
  if (!x || !src || !k || k->kind != NNS__AA_INT || k->sym || c->n_outs < 1 ||
      !c->outs[0] || !nns__aten_known(mx, dx) || !nns__aten_known(ms, ds))
    return NNS_E_NOTFOUND;
  int64_t n = nns__aten_prod(dx, mx->rank), ns = nns__aten_prod(ds, ms->rank);
  int64_t count = k->i, zero = 0;
  if (n < 0 || ns < 0 || count < 0 || count > n || count > ns)
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  const char *flat = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, x, &n, 1, flat));
  const char *taken = c->fresh(c->fe), *src_flat = c->fresh(c->fe);
  A_TRY(nns__aten_reshape_to(c, src, &ns, 1, src_flat));
  const char *slice[4] = {src_flat, nns__aten_const_ints(c, &zero, 1, false),
                          NULL, NULL};
  if (!slice[1] || !(slice[2] = nns__aten_const_ints(c, &count, 1, false)) ||
      !(slice[3] = nns__aten_const_ints(c, &zero, 1, false)))
    return c->err->code;
  A_TRY(nns__aten_node(c, "Slice", "", slice, 4, &taken, 1));
  const char *y = c->fresh(c->fe);
  int64_t at[2] = {count, 1};
  const char *scatter[3] = {flat, nns__aten_filler(c, NNS_DT_INT64, 2, at),
                            taken};
  if (!scatter[1])
    return c->err->code;
  A_TRY(nns__aten_node(c, "ScatterND", "", scatter, 3, &y, 1));
  A_TRY(nns__aten_reshape_to(c, y, dx, mx->rank, c->outs[0]));
  return nns__aten_kernel(c, first);
}

/* abs of a complex value in real form: its modulus, sqrt(re^2 + im^2)
 * (Mul, ReduceSum of the pair, Sqrt). */
static nns_status complex_abs(nns__aten_call *c, const char *x) {
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!mo || complex_dt(mo->dtype))
    return NNS_E_NOTFOUND;
  size_t first = *c->node_count;
  int64_t m1 = -1;
  const char *sq = c->fresh(c->fe), *sum = c->fresh(c->fe);
  const char *mul[] = {x, x};
  A_TRY(node1(c, "Mul", mul, 2, sq, NULL, 0));
  const char *ins[] = {sq, nns__aten_const_ints(c, &m1, 1, false)};
  if (!ins[1])
    return c->err->code;
  A_TRY(node1(c, "ReduceSum", ins, 2, sum, "keepdims", 0));
  A_TRY(node1(c, "Sqrt", &sum, 1, c->outs[0], NULL, 0));
  return nns__aten_kernel(c, first);
}

/* abs of a complex-typed value (a complex graph input or buffer): its
 * modulus is real, as PyTorch gives it, where ONNX's Abs keeps the dtype:
 * Abs, then a Cast to the output's real dtype, one kernel. */
static nns_status typed_abs(nns__aten_call *c, const char *x, int32_t dt) {
  size_t first = *c->node_count;
  const char *mod = c->fresh(c->fe);
  A_TRY(node1(c, "Abs", &x, 1, mod, NULL, 0));
  A_TRY(node1(c, "Cast", &mod, 1, c->outs[0], "to", dt));
  return nns__aten_kernel(c, first);
}

/* The two halves of real x made complex of real dtype dt: x (Cast when
 * its dtype differs) as (..., 1), and a zero filler of that shape, for a
 * Concat into the real form (complex_copy's). */
static nns_status complex_halves(nns__aten_call *c, const char *x,
                                 const nns__aten_meta *mx, int32_t dt,
                                 const char *halves[2]) {
  int64_t d[NNS__ATEN_R_MAX + 1];
  if (mx->rank < 0 || mx->rank >= NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  bool known = nns__aten_known(mx, d);
  d[mx->rank] = 1;
  const char *src = x;
  if (mx->dtype != dt) {
    src = c->fresh(c->fe);
    A_TRY(node1(c, "Cast", &x, 1, src, "to", dt));
  }
  const char *re = c->fresh(c->fe);
  A_TRY(unsqueeze_last(c, src, re));
  halves[0] = re;
  if (known) {
    halves[1] = nns__aten_filler(c, dt, mx->rank + 1, d);
    return halves[1] ? NNS_OK : c->err->code ? c->err->code : NNS_E_NOTFOUND;
  }
  /* symbolic sizes: zeros over the real half's own Shape */
  const char *shape = c->fresh(c->fe), *zeros = c->fresh(c->fe);
  A_TRY(node1(c, "Shape", &re, 1, shape, NULL, 0));
  A_TRY(node1(c, "ConstantOfShape", &shape, 1, zeros, NULL, 0));
  int64_t one = 1;
  A_TRY(nns_builder_attr_tensor(c->b, "value", NNS_ATTR_TENSOR, dt, 1, &one,
                                NULL, 0, c->err));
  halves[1] = zeros;
  return NNS_OK;
}

/* A 2-D or n-D fft (or an inverse) of a real signal x: PyTorch makes it
 * complex first (promote_tensor_fft: _to_copy, one kernel), then runs
 * _fft_c2c on it, as a live recording sees. */
static nns_status fft_of_real(nns__aten_call *c, nns__aten_call *kc,
                              const char *x, const nns__aten_meta *mx) {
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!mo || !complex_dt(mo->dtype) || mx->rank >= NNS__ATEN_R_MAX)
    return NNS_E_NOTFOUND;
  int32_t dt = real_dt(mo->dtype);
  size_t first = *c->node_count;
  const char *halves[2];
  A_TRY(complex_halves(c, x, mx, dt, halves));
  const char *xr = c->fresh(c->fe);
  A_TRY(node1(c, "Concat", halves, 2, xr, "axis", -1));
  A_TRY(nns__aten_kernel(c, first));
  int64_t dims[NNS__ATEN_R_MAX + 1];
  const char *syms[NNS__ATEN_R_MAX + 1];
  for (int k = 0; k < mx->rank; k++) {
    dims[k] = mx->dims[k];
    syms[k] = mx->syms ? mx->syms[k] : NULL;
  }
  dims[mx->rank] = 2;
  syms[mx->rank] = NULL;
  nns__aten_meta mr = {.dtype = dt, .rank = mx->rank + 1, .dims = dims,
                       .syms = syms, .real_form = true};
  nns__aten_arg args[8];
  if (kc->n_args > 8)
    return NNS_E_NOTFOUND;
  memcpy(args, kc->args, (size_t)kc->n_args * sizeof *args);
  args[0].tensor = xr; /* "self" */
  kc->args = args;
  return fft_c2c_on(kc, xr, &mr);
}

/* _to_copy (and to, type_as: torch.export keeps them, live they run as
 * _to_copy) with a complex side: complex to complex a Cast of the real
 * form; real to complex the real part beside a zero imaginary part (Cast
 * when the dtype changes, Unsqueeze, Concat with a filler); complex in real
 * form to real: not lowered. *done false when no side is complex in real
 * form or made so. */
static nns_status complex_copy(nns__aten_call *c, const char *x, bool *done) {
  const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
  if (!mx || !mo || complex_dt(mx->dtype) ||
      (!complex_dt(mo->dtype) && !real_formed(c, x)))
    return NNS_OK; /* the ordinary rule: a Cast or the same value */
  *done = true;
  if (!complex_dt(mo->dtype))
    return NNS_E_NOTFOUND;
  int32_t dt = real_dt(mo->dtype);
  size_t first = *c->node_count;
  if (real_formed(c, x) && mx->dtype == dt) /* to() of its own dtype */
    return c->real_form(c->fe, c->outs[0], x);
  if (real_formed(c, x)) {
    const char *r = complex_out(c);
    if (!r)
      return c->err->code ? c->err->code : NNS_E_NOTFOUND;
    return node1(c, "Cast", &x, 1, r, "to", dt);
  }
  const char *halves[2];
  A_TRY(complex_halves(c, x, mx, dt, halves));
  const char *r = complex_out(c);
  if (!r)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  A_TRY(node1(c, "Concat", halves, 2, r, "axis", -1));
  return nns__aten_kernel(c, first);
}

/* The entries that take a complex value in real form, as a live
 * recording sees them (the recorder reads them as _api.ATEN_COMPLEX):
 * MAKES those whose complex output is always in real form, READS the
 * others whose lowering reads one (view_as_real, and the other families'
 * mul, abs and _to_copy: nns__aten_lower_complex), LAYOUT the layout rules
 * nns__aten_lower_complex runs on a real form (they read one too). to,
 * type_as, real, imag, the fft_* composites and masked_scatter are
 * composites a live recording never sees: not listed. The one list. */
enum { ROLE_NONE, ROLE_MAKES, ROLE_READS, ROLE_LAYOUT };
static const struct {
  const char *name;
  int role;
} complex_roles[] = {
    {"view_as_complex", ROLE_MAKES}, {"polar", ROLE_MAKES},
    {"_fft_c2c", ROLE_MAKES},        {"_fft_r2c", ROLE_MAKES},
    {"view_as_real", ROLE_READS},    {"mul", ROLE_READS},
    {"abs", ROLE_READS},             {"_to_copy", ROLE_READS},
    {"view", ROLE_LAYOUT},           {"_unsafe_view", ROLE_LAYOUT},
    {"_reshape_alias", ROLE_LAYOUT}, {"reshape", ROLE_LAYOUT},
    {"flatten", ROLE_LAYOUT},        {"unsqueeze", ROLE_LAYOUT},
    {"squeeze", ROLE_LAYOUT},        {"view_as", ROLE_LAYOUT},
    {"slice", ROLE_LAYOUT},          {"select", ROLE_LAYOUT},
    {"expand", ROLE_LAYOUT}};

static int complex_role(const char *name) {
  for (size_t k = 0; k < sizeof complex_roles / sizeof complex_roles[0]; k++)
    if (!strcmp(name, complex_roles[k].name))
      return complex_roles[k].role;
  return ROLE_NONE;
}

const char *nns__aten_complex_role(const nns__aten_op *e) {
  int r = e ? complex_role(e->name) : ROLE_NONE;
  return r == ROLE_MAKES ? "makes" : r != ROLE_NONE ? "reads" : "";
}

/* Calls of the other families' entries on a complex value in real form:
 * mul (a BINARY entry) is a complex product, abs (a UNARY one) the
 * modulus, _to_copy a Cast of the real form (or a real value made
 * complex); a layout rule (complex_roles' LAYOUT) runs on the output's
 * real form, dims counted from the complex input's. */
nns_status nns__aten_lower_complex(nns__aten_call *c, const nns__aten_op *e,
                                   bool *done) {
  *done = false;
  if (e->form == NNS__AF_UNARY) {
    if (strcmp(e->name, "abs"))
      return NNS_OK; /* before any lookup: every unary call comes here */
    const char *x = c->n_args > 0 && c->args[0].kind == NNS__AA_TENSOR
                        ? c->args[0].tensor
                        : NULL;
    if (c->n_outs < 1 || !c->outs[0] || !x)
      return NNS_OK;
    if (real_formed(c, x)) {
      *done = true;
      return complex_abs(c, x);
    }
    const nns__aten_meta *mx = A_META(c, x), *mo = A_META(c, c->outs[0]);
    if (!mx || !mo || !complex_dt(mx->dtype) || complex_dt(mo->dtype))
      return NNS_OK;
    *done = true;
    return typed_abs(c, x, mo->dtype);
  }
  if (e->form == NNS__AF_BINARY) {
    if (strcmp(e->name, "mul"))
      return NNS_OK; /* before any lookup: every binary call comes here */
    const nns__aten_arg *ax = nns__aten_arg_of(c, "self"),
                        *ay = nns__aten_arg_of(c, "other");
    if (c->n_outs < 1 || !c->outs[0] || !ax ||
        !ay || ax->kind != NNS__AA_TENSOR ||
        !(real_formed(c, ax->tensor) ||
          (ay->kind == NNS__AA_TENSOR && real_formed(c, ay->tensor))))
      return NNS_OK;
    *done = true;
    return complex_mul(c, ax, ay);
  }
  const char *x = c->n_args > 0 && c->args[0].kind == NNS__AA_TENSOR
                      ? c->args[0].tensor
                      : NULL;
  if (!x || e->form != NNS__AF_RULE || c->n_args > 64 || c->n_outs != 1 ||
      !c->outs[0] || !c->real_form)
    return NNS_OK;
  if (!strcmp(e->name, "_to_copy") || !strcmp(e->name, "to") ||
      !strcmp(e->name, "type_as"))
    return complex_copy(c, x, done);
  if (!real_formed(c, x))
    return NNS_OK;
  const nns__aten_meta *mo = A_META(c, c->outs[0]);
  if (!mo || !complex_dt(mo->dtype))
    return NNS_OK;
  if (complex_role(e->name) != ROLE_LAYOUT)
    return NNS_OK;
  int32_t rank = A_META(c, x)->rank - 1;
  nns__aten_arg args[64];
  memcpy(args, c->args, (size_t)c->n_args * sizeof *args);
  for (int32_t k = 0; k < c->n_args; k++)
    if (!strcmp(args[k].name, "dim") && args[k].kind == NNS__AA_INT &&
        !args[k].sym && args[k].i < 0)
      args[k].i += rank;
  const char *r = complex_out(c);
  if (!r)
    return c->err->code ? c->err->code : NNS_E_NOTFOUND;
  nns__aten_call rc = *c;
  rc.args = args;
  rc.outs = &r;
  *done = true;
  nns_status st = e->rule(&rc, e);
  if (st != NNS_OK)
    c->real_form(c->fe, c->outs[0], NULL);
  return st;
}

/* real(self) / imag(self) of a complex value in real form: PyTorch's
 * composite, view_as_real(x).select(-1, 0 or 1), as a live recording sees
 * it (select's entry: a Gather); real of a real tensor is the tensor. */
static nns_status real_part(nns__aten_call *c, const nns__aten_op *op) {
  const char *x = A_T(c, "self");
  const nns__aten_op *select = nns__aten_find("select");
  bool imag = op->name[0] == 'i';
  if (!x || !select || c->n_outs < 1 || !c->outs[0])
    return NNS_E_NOTFOUND;
  if (!is_complex(c, x))
    return imag ? NNS_E_NOTFOUND : c->alias(c->fe, c->outs[0], x);
  if (!real_formed(c, x))
    return NNS_E_NOTFOUND; /* complex-typed: no meta for its pairs here */
  nns__aten_arg args[3] = {
      {.name = "self", .kind = NNS__AA_TENSOR, .tensor = x},
      {.name = "dim", .kind = NNS__AA_INT, .i = -1},
      {.name = "index", .kind = NNS__AA_INT, .i = imag ? 1 : 0}};
  nns__aten_call sc = *c;
  sc.args = args;
  sc.n_args = 3;
  return select->rule(&sc, select);
}

static const nns__aten_op ops[] = {
    RULE("_fft_c2c", "DFT", fft_c2c),
    RULE("_fft_r2c", "DFT", fft_r2c),
    RULE("fft_fft", "DFT", fft_composite),
    RULE("fft_fft2", "DFT", fft_composite),
    RULE("fft_fftn", "DFT", fft_composite),
    RULE("fft_ifft", "DFT", fft_composite),
    RULE("fft_ifft2", "DFT", fft_composite),
    RULE("fft_ifftn", "DFT", fft_composite),
    RULE("fft_rfft", "DFT", fft_composite),
    RULE("fft_rfft2", "DFT", fft_composite),
    RULE("fft_rfftn", "DFT", fft_composite),
    RULE("imag", "Gather (select of the real form)", real_part),
    /* how many land is the tape's tracked_count: the mask, never read */
    RULE_COUNTED("masked_scatter",
                 "Reshape, Slice, ScatterND, Reshape (by the tracked count)",
                 masked_scatter, "mask", "mask>self"),
    RULE("polar", "Cos Sin Mul Unsqueeze Concat", polar),
    RULE("real", "Gather (select of the real form)", real_part),
    RULE("view_as_complex", "(its input, in real form)", view_as_complex),
    RULE("view_as_real", "(its input) or pytorch.aten view_as_real",
         view_as_real),
};

const nns__aten_family nns__aten_complex = {ops, sizeof ops / sizeof ops[0]};
