/*
 * window.c - the sliding-window arithmetic declared in window.h: reading
 * and checking the window attributes, and the per-axis output size and
 * resolved pads of forward (conv, pool) and transposed (ConvTranspose)
 * windows, numerically and over symbolic dims; then what the cost and
 * receptive-field rules of those ops take from the same window: the kernel
 * size and the field, stride and padding a window adds.
 */
#include <string.h>

#include "window.h"
#include "rf_axes.h"
#include "rf_period.h"

/* ==== Attributes ==== */

/* A list attribute of exactly `want` entries, or absent (returns 0 and
 * leaves *vals NULL). An attribute the op's spec at this opset lacks was
 * already warned about by the driver and is ignored, even though the node
 * carries it: nns__attr_ints reads nothing the spec lacks (asking
 * nns__spec_has first searched the spec twice per attribute). */
static nns_status read_list(nns__ictx *cx, const char *name, int32_t want,
                            const int64_t **vals) {
  *vals = NULL;
  int32_t n = cx->op ? nns__attr_ints(cx, name, vals) : -1;
  if (n < 0) {
    *vals = NULL;
    return NNS_OK;
  }
  if (n != want)
    return nns__fail(cx, NNS_E_ATTR,
                     "attribute '%s' has %d values, expected %d (%s)", name,
                     n, want, want == 0 ? "no spatial axes" : "one per axis"
                                                              " or pair");
  return NNS_OK;
}

nns_status nns__window_rank(nns__ictx *cx, int32_t rank) {
  if (rank >= 2)
    return NNS_OK;
  return nns__fail(cx, NNS_E_SHAPE,
                   "input has rank %d; expected [N, C, spatial...]", rank);
}

nns_status nns__window_read(nns__ictx *cx, int32_t n,
                            const nns__dim *weight_kernel, nns__window *w) {
  memset(w, 0, sizeof *w);
  if (n < 0 || n > NNS__WIN_MAX)
    return nns__fail(cx, NNS_E_LIMIT, "%d spatial axes (at most %d handled)",
                     n, NNS__WIN_MAX);
  w->n = n;
  const int64_t *ks, *st, *dl, *pd, *op, *os;
  nns_status s;
  if ((s = read_list(cx, "kernel_shape", n, &ks)) != NNS_OK ||
      (s = read_list(cx, "strides", n, &st)) != NNS_OK ||
      (s = read_list(cx, "dilations", n, &dl)) != NNS_OK ||
      (s = read_list(cx, "pads", 2 * n, &pd)) != NNS_OK ||
      (s = read_list(cx, "output_padding", n, &op)) != NNS_OK)
    return s;
  /* ConvTranspose's output_shape lists the spatial dims; some exporters
   * write the full shape [N, C, ...], whose spatial tail is taken. */
  os = NULL;
  int32_t n_os = cx->op ? nns__attr_ints(cx, "output_shape", &os) : -1;
  if (n_os == n + 2)
    os += 2;
  else if (n_os >= 0 && n_os != n)
    return nns__fail(cx, NNS_E_ATTR,
                     "attribute 'output_shape' has %d values, expected %d "
                     "(one per spatial axis)", n_os, n);
  else if (n_os < 0)
    os = NULL;
  for (int32_t k = 0; k < n; k++) {
    int64_t wk = weight_kernel && !weight_kernel[k].sym ? weight_kernel[k].v
                                                        : -1;
    if (ks && ks[k] < 1)
      return nns__fail(cx, NNS_E_ATTR, "kernel_shape[%d] is %lld, must be "
                       ">= 1", k, (long long)ks[k]);
    if (ks && wk >= 0 && ks[k] != wk)
      return nns__fail(cx, NNS_E_SHAPE,
                       "kernel_shape[%d] is %lld but the weight's kernel dim "
                       "is %lld", k, (long long)ks[k], (long long)wk);
    w->kernel[k] = ks ? ks[k] : wk;
    w->stride[k] = st ? st[k] : 1;
    w->dilation[k] = dl ? dl[k] : 1;
    w->pad_begin[k] = pd ? pd[k] : 0;
    w->pad_end[k] = pd ? pd[n + k] : 0;
    w->output_padding[k] = op ? op[k] : 0;
    w->output_shape[k] = os ? os[k] : -1;
    if (w->stride[k] < 1)
      return nns__fail(cx, NNS_E_ATTR, "strides[%d] is %lld, must be >= 1",
                       k, (long long)w->stride[k]);
    if (w->dilation[k] < 1)
      return nns__fail(cx, NNS_E_ATTR, "dilations[%d] is %lld, must be >= 1",
                       k, (long long)w->dilation[k]);
    if (w->pad_begin[k] < 0 || w->pad_end[k] < 0)
      return nns__fail(cx, NNS_E_ATTR,
                       "pads for axis %d are %lld and %lld, must be >= 0", k,
                       (long long)w->pad_begin[k], (long long)w->pad_end[k]);
    if (w->output_padding[k] < 0)
      return nns__fail(cx, NNS_E_ATTR, "output_padding[%d] is %lld, must be "
                       ">= 0", k, (long long)w->output_padding[k]);
    if (os && os[k] < 0)
      return nns__fail(cx, NNS_E_ATTR, "output_shape[%d] is %lld, must be "
                       ">= 0", k, (long long)os[k]);
    int64_t big = w->kernel[k];
    const int64_t more[] = {w->stride[k], w->dilation[k], w->pad_begin[k],
                            w->pad_end[k], w->output_padding[k],
                            w->output_shape[k]};
    for (size_t j = 0; j < sizeof more / sizeof more[0]; j++)
      big = more[j] > big ? more[j] : big;
    if (big > NNS__WIN_LIMIT)
      return nns__fail(cx, NNS_E_LIMIT,
                       "spatial axis %d: window size %lld is beyond any sane "
                       "limit (kernel, stride, dilation, pad or size > 2^40)",
                       k, (long long)big);
  }
  /* "" (no such attribute at this opset) is NOTSET. */
  const char *ap = cx->op ? nns__attr_str(cx, "auto_pad") : "";
  if (ap[0] == 0 || strcmp(ap, "NOTSET") == 0)
    w->auto_pad = NNS__PAD_NOTSET;
  else if (strcmp(ap, "VALID") == 0)
    w->auto_pad = NNS__PAD_VALID;
  else if (strcmp(ap, "SAME_UPPER") == 0)
    w->auto_pad = NNS__PAD_SAME_UPPER;
  else if (strcmp(ap, "SAME_LOWER") == 0)
    w->auto_pad = NNS__PAD_SAME_LOWER;
  else
    return nns__fail(cx, NNS_E_ATTR,
                     "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or "
                     "SAME_LOWER", ap);
  /* With auto_pad set the explicit pads do not apply. */
  if (w->auto_pad != NNS__PAD_NOTSET)
    for (int32_t k = 0; k < n; k++)
      w->pad_begin[k] = w->pad_end[k] = 0;
  w->ceil_mode =
      nns__spec_has(cx, "ceil_mode") && nns__attr_int(cx, "ceil_mode");
  return NNS_OK;
}

/* ==== One axis, numerically ==== */

int64_t nns__window_extent(const nns__window *w, int32_t axis) {
  int64_t k = w->kernel[axis], e;
  if (k < 1 || !nns__mul_i64(k - 1, w->dilation[axis], &e) ||
      !nns__add_i64(e, 1, &e))
    return -1;
  return e;
}

/* Splits a total pad between the two ends: SAME_UPPER puts the odd unit at
 * the end, SAME_LOWER at the beginning. */
static void split_pad(uint8_t auto_pad, int64_t total, nns__win_axis *r) {
  if (auto_pad == NNS__PAD_SAME_UPPER) {
    r->pad_begin = total / 2;
    r->pad_end = total - total / 2;
  } else {
    r->pad_begin = total - total / 2;
    r->pad_end = total / 2;
  }
}

bool nns__window_axis(const nns__window *w, int32_t axis, int64_t in,
                      nns__win_axis *r) {
  int64_t ek = nns__window_extent(w, axis), s = w->stride[axis];
  /* Bounds that keep every sum below from overflowing. */
  if (ek < 0 || in < 0 || in > INT64_MAX / 4 || ek > INT64_MAX / 4 ||
      s > INT64_MAX / 4)
    return false;
  if (w->auto_pad == NNS__PAD_SAME_UPPER ||
      w->auto_pad == NNS__PAD_SAME_LOWER) {
    /* out = ceil(in / stride), whatever the kernel; pad what that needs. */
    r->out = (in + s - 1) / s;
    int64_t need;
    if (r->out > 0 && nns__mul_i64(r->out - 1, s, &need)) {
      need = need + ek - in;
      split_pad(w->auto_pad, need > 0 ? need : 0, r);
    } else {
      r->pad_begin = r->pad_end = 0;
    }
    return true;
  }
  int64_t pb = w->pad_begin[axis], pe = w->pad_end[axis];
  if (pb > INT64_MAX / 4 || pe > INT64_MAX / 4)
    return false;
  int64_t span = in + pb + pe - ek; /* room the window moves through */
  /* ceil_mode rounds the steps up, so one window wider than the padded
   * input still fits while span + s - 1 >= 0 (PyTorch's and ONNX's rule:
   * EfficientNet's and ALIGN's pooler take a kernel of their hidden size
   * over a smaller map); a window reads only what lies inside. */
  if (span < 0 && (!w->ceil_mode || span + s - 1 < 0))
    return false;
  int64_t steps = w->ceil_mode ? (span + s - 1) / s : span / s;
  /* ceil_mode: a last window starting in the trailing padding is dropped
   * (PyTorch's rule, and the ONNX documents' since 1.16). */
  if (w->ceil_mode && steps > 0 && steps * s >= in + pb)
    steps--;
  r->out = steps + 1;
  r->pad_begin = pb;
  r->pad_end = pe;
  return true;
}

bool nns__window_axis_transposed(const nns__window *w, int32_t axis,
                                 int64_t in, nns__win_axis *r) {
  int64_t ek = nns__window_extent(w, axis), s = w->stride[axis];
  int64_t op = w->output_padding[axis];
  if (ek < 0 || in < 1 || op > INT64_MAX / 4)
    return false;
  /* The full size before cropping: s*(in-1) + output_padding + extent. */
  int64_t full;
  if (!nns__mul_i64(s, in - 1, &full) || !nns__add_i64(full, op, &full) ||
      !nns__add_i64(full, ek, &full))
    return false;
  int64_t os = w->output_shape[axis];
  if (os < 0 && (w->auto_pad == NNS__PAD_SAME_UPPER ||
                 w->auto_pad == NNS__PAD_SAME_LOWER)) {
    if (!nns__mul_i64(in, s, &os))
      return false;
  }
  if (os >= 0) {
    /* The pads are whatever crops `full` down to the requested size. */
    r->out = os;
    split_pad(w->auto_pad == NNS__PAD_SAME_UPPER ? NNS__PAD_SAME_UPPER
                                                 : NNS__PAD_SAME_LOWER,
              full - os, r);
    return true;
  }
  r->pad_begin = w->pad_begin[axis];
  r->pad_end = w->pad_end[axis];
  if (r->pad_begin > INT64_MAX / 4 || r->pad_end > INT64_MAX / 4)
    return false;
  r->out = full - r->pad_begin - r->pad_end;
  return r->out >= 0;
}

/* ==== Over symbolic dims ==== */

static nns__dim known(int64_t v) { return nns__dim_known(v); }

/* The output of one forward axis whose input is the symbol `in`. */
static nns__dim sym_out(nns__ictx *cx, const nns__window *w, int32_t k,
                        nns__dim in) {
  int64_t s = w->stride[k], ek = nns__window_extent(w, k);
  if (w->auto_pad == NNS__PAD_SAME_UPPER || w->auto_pad == NNS__PAD_SAME_LOWER)
    return nns__div(cx, nns__add(cx, in, known(s - 1)), known(s));
  int64_t pb = w->pad_begin[k], pe = w->pad_end[k];
  if (ek < 0 || pb > INT64_MAX / 8 || pe > INT64_MAX / 8 || s > INT64_MAX / 8)
    return nns__fresh(cx);
  int64_t c = pb + pe - ek; /* span = in + c */
  if (w->ceil_mode) {
    /* The dropped-last-window rule can only fire when a window may start
     * in the trailing padding: (out-1)*s < in + c + s reaches in + pb only
     * when pe - ek + s > 0. Then the size depends on the value of `in`. */
    if (pe - ek + s > 0)
      return nns__fresh(cx);
    c += s - 1;
  }
  /* floor((in + c) / s) + 1 = floor((in + c + s) / s); with s == 1 this is
   * in + c + 1, which keeps `in` itself for a size-preserving window. */
  return nns__div(cx, nns__add(cx, in, known(c + s)), known(s));
}

nns_status nns__window_out_dims(nns__ictx *cx, const nns__window *w,
                                const nns__dim *in, nns__dim *out) {
  for (int32_t k = 0; k < w->n; k++) {
    if (w->kernel[k] < 0) {
      out[k] = nns__fresh(cx);
      continue;
    }
    if (in[k].sym) {
      out[k] = sym_out(cx, w, k, in[k]);
      continue;
    }
    nns__win_axis r;
    if (!nns__window_axis(w, k, in[k].v, &r)) {
      int64_t ek = nns__window_extent(w, k);
      if (ek < 0)
        return nns__fail(cx, NNS_E_ATTR,
                         "kernel %lld with dilation %lld overflows on "
                         "spatial axis %d", (long long)w->kernel[k],
                         (long long)w->dilation[k], k);
      if (in[k].v > NNS__WIN_LIMIT)
        return nns__fail(cx, NNS_E_LIMIT, "spatial axis %d: input size %lld "
                         "is beyond any sane limit", k, (long long)in[k].v);
      return nns__fail(cx, NNS_E_SHAPE,
                       "spatial axis %d: input size %lld plus pads %lld+%lld "
                       "is smaller than the kernel extent %lld (kernel %lld, "
                       "dilation %lld)", k, (long long)in[k].v,
                       (long long)w->pad_begin[k], (long long)w->pad_end[k],
                       (long long)ek, (long long)w->kernel[k],
                       (long long)w->dilation[k]);
    }
    out[k] = known(r.out);
  }
  return NNS_OK;
}

nns_status nns__window_out_dims_transposed(nns__ictx *cx, const nns__window *w,
                                           const nns__dim *in, nns__dim *out) {
  for (int32_t k = 0; k < w->n; k++) {
    if (w->output_shape[k] >= 0) {
      out[k] = known(w->output_shape[k]);
      continue;
    }
    int64_t ek = nns__window_extent(w, k), s = w->stride[k];
    if (ek < 0) {
      out[k] = nns__fresh(cx);
      continue;
    }
    if (in[k].sym) {
      if (w->auto_pad == NNS__PAD_SAME_UPPER ||
          w->auto_pad == NNS__PAD_SAME_LOWER) {
        out[k] = nns__mul(cx, in[k], known(s));
        continue;
      }
      /* s*in + (output_padding + extent - pads - s) */
      if (ek > INT64_MAX / 8 || s > INT64_MAX / 8 ||
          w->output_padding[k] > INT64_MAX / 8 ||
          w->pad_begin[k] > INT64_MAX / 8 || w->pad_end[k] > INT64_MAX / 8) {
        out[k] = nns__fresh(cx);
        continue;
      }
      int64_t c = w->output_padding[k] + ek - w->pad_begin[k] -
                  w->pad_end[k] - s;
      out[k] = nns__add(cx, nns__mul(cx, in[k], known(s)), known(c));
      continue;
    }
    nns__win_axis r;
    if (!nns__window_axis_transposed(w, k, in[k].v, &r))
      return nns__fail(cx, NNS_E_SHAPE,
                       "spatial axis %d: input size %lld with stride %lld, "
                       "kernel extent %lld and pads %lld+%lld gives no "
                       "output", k, (long long)in[k].v, (long long)s,
                       (long long)ek, (long long)w->pad_begin[k],
                       (long long)w->pad_end[k]);
    out[k] = known(r.out);
  }
  return NNS_OK;
}

/* ==== Costs ==== */

int64_t nns__window_kernel_count(const nns__window *w, const nns__dim *in,
                                 nns__cost *c) {
  int64_t k = 1;
  for (int32_t a = 0; a < w->n; a++) {
    int64_t taps = w->kernel[a];
    if (taps < 0)
      return -1;
    /* A window wider than the padded input (ceil_mode) reads only the
     * taps that fall inside it; every other window reads them all. */
    int64_t room = in && !in[a].sym && w->auto_pad == NNS__PAD_NOTSET
                       ? in[a].v + w->pad_begin[a] + w->pad_end[a]
                       : -1;
    if (room > 0 && room < nns__window_extent(w, a) && w->dilation[a] > 0) {
      int64_t inside = (room - 1) / w->dilation[a] + 1;
      taps = inside < taps ? inside : taps;
    }
    k = nns__cmul(c, k, taps);
  }
  return k;
}

/* ==== Receptive field ==== */

/* Signed saturating arithmetic: fields of absurd models stay finite. */
static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (nns__mul_i64(a, b, &r))
    return r;
  return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (nns__add_i64(a, b, &r))
    return r;
  return a < 0 ? INT64_MIN : INT64_MAX;
}

/* floor(a / b) for b > 0, a of either sign. */
static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int64_t nns__window_lead_pad(const nns__window *w, int32_t axis, nns__dim in,
                             bool transposed) {
  nns__win_axis r;
  if (!in.sym && (transposed ? nns__window_axis_transposed(w, axis, in.v, &r)
                             : nns__window_axis(w, axis, in.v, &r)))
    return r.pad_begin;
  bool same = w->auto_pad == NNS__PAD_SAME_UPPER ||
              w->auto_pad == NNS__PAD_SAME_LOWER;
  int64_t ek = nns__window_extent(w, axis), s = w->stride[axis], total;
  if (ek < 0 || !same || (transposed && w->output_shape[axis] >= 0))
    return w->pad_begin[axis];
  /* Every term is at most 2^40 (NNS__WIN_LIMIT): no overflow. With the
   * size a multiple of s, forward SAME pads ek - s in total; transposed
   * SAME (output in * s) always pads output_padding + ek - s. */
  total = (transposed ? w->output_padding[axis] : 0) + ek - s;
  split_pad(w->auto_pad, total > 0 ? total : 0, &r);
  return r.pad_begin;
}

void nns__rf_start(const nns__rf *in, int32_t n, nns__rf *out) {
  memset(out, 0, sizeof *out);
  if (in && in->f.whole) {
    out->f.whole = 1;
    return;
  }
  int32_t axes = n < NNS_RF_MAX_AXES ? n : NNS_RF_MAX_AXES;
  bool keep = in && in->f.axes == axes;
  out->f.axes = axes > 0 ? axes : 0;
  for (int32_t k = 0; k < axes; k++) {
    out->f.field[k] = keep ? in->f.field[k] : 1;
    out->f.stride[k] = keep ? in->f.stride[k] : 1;
    out->f.padding[k] = keep ? in->f.padding[k] : 0;
    out->f.period[k] = keep ? in->f.period[k] : 0;
    out->per[k] = keep ? in->per[k] : 0;
    out->dim[k] = (int8_t)(2 + k);
  }
}

/* Kernels up to this many taps follow a field that differs between
 * positions tap by tap; longer ones take its envelope. */
enum { PERIODIC_TAPS_MAX = 64 };

/* Axis k of a field that differs between positions (windowed attention
 * before a conv or pool): output position i reads input positions
 * i*st - lead + t*d for each tap t, so its pixels are the union of those
 * positions' (exact, position by position). */
static void window_periodic(nns__rf_pool *pool, nns__rf *f, int32_t k,
                            int64_t kernel, int64_t d, int64_t st,
                            int64_t lead) {
  nns__rf acc = *f;
  for (int64_t t = 0; t < kernel; t++) {
    nns__rf tap = *f;
    nns__rf_resample(pool, &tap, k, sat_add(sat_mul(t, d), -lead), st);
    if (t == 0)
      acc = tap;
    else
      nns__rf_unite_axis(pool, &acc, &tap, k);
  }
  f->f.field[k] = acc.f.field[k];
  f->f.stride[k] = acc.f.stride[k];
  f->f.padding[k] = acc.f.padding[k];
  f->f.period[k] = acc.f.period[k];
  f->per[k] = acc.per[k];
}

nns_status nns__window_rf(nns__ictx *cx, const nns__window *w, bool transposed,
                          const nns__rf *in, nns__rf *out) {
  nns__rf env;
  if (in && !in->f.whole && !nns__rf_plain(in)) {
    /* Split or merged axes are not where sliding ops read them. */
    *out = *in;
    nns__rf_set_whole(out);
    return NNS_OK;
  }
  if (in && transposed) { /* one output reads a fraction of an input step */
    env = *in;
    nns__rf_envelope(cx->rf_pool, &env);
    in = &env;
  }
  nns__rf_start(in, w->n, out);
  if (out->f.whole)
    return NNS_OK;
  const nns__type *tx = nns__in_type(cx, 0);
  bool have_x = tx && tx->rank == w->n + 2;
  nns_rf *f = &out->f;
  for (int32_t k = 0; k < f->axes; k++) {
    if (w->kernel[k] < 1) {
      memset(out, 0, sizeof *out);
      return NNS__UNCOUNTED;
    }
    /* Unknown sizes resolve like symbols (see nns__window_lead_pad). */
    nns__dim xin = have_x ? tx->dims[2 + k] : (nns__dim){0, UINT32_MAX};
    int64_t span = sat_mul(w->kernel[k] - 1, w->dilation[k]);
    int64_t lead = nns__window_lead_pad(w, k, xin, transposed);
    int64_t st = w->stride[k], j = f->stride[k];
    if (!transposed && nns__rf_period(cx->rf_pool, out, k) > 1) {
      if (w->kernel[k] <= PERIODIC_TAPS_MAX && st >= 1) {
        window_periodic(cx->rf_pool, out, k, w->kernel[k], w->dilation[k],
                        st, lead);
        continue;
      }
      nns__rf_envelope(cx->rf_pool, out);
    }
    if (!transposed) {
      f->field[k] = sat_add(f->field[k], sat_mul(span, j));
      f->padding[k] = sat_add(f->padding[k], sat_mul(lead, j));
      f->stride[k] = sat_mul(j, st);
    } else {
      /* An output pixel reads the inputs within floor(span / st) input
       * steps; its jump is a fraction of the input's, rounded up to a
       * whole pixel (exact while st divides the jump). */
      f->field[k] = sat_add(f->field[k], sat_mul(span / st, j));
      f->padding[k] =
          sat_add(f->padding[k], sat_mul(floor_div(span - lead, st), j));
      f->stride[k] = j / st + (j % st != 0);
    }
  }
  return NNS_OK;
}

nns_status nns__rf_whole(nns__ictx *cx, const nns__rf *in, nns__rf *out) {
  (void)cx;
  (void)in;
  memset(out, 0, sizeof *out);
  out->f.whole = 1;
  return NNS_OK;
}
