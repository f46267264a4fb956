"""The recorder's rules: what Python makes of an aten call the library
does not lower from the tape (docs/tape.md).

The recorder sees every aten op a forward runs (after PyTorch's own
decompositions: F.linear arrives as `t` + `addmm`, x @ w as `mm` or `bmm`).
An op's lowering lives in the library's aten table (src/ops/aten*.c, which
the .pt2 reader and the tape use): a call the table makes one node of goes
to it as an aten record. `OPS` maps an op's base name (`relu` for
`aten.relu_.default` too) to the rule that emits the ONNX node(s) for the
other calls, with the attributes and constant inputs the op table's entry
reads; the table's declarative entries (one node of one or two arguments,
an alias, a creation) are not written again here: their rules are made
from it (`_from_table`). The op table, not this file, holds the cost rules:
Python never counts a FLOP. What keeps the rest here is that Python still
names the recording's values (docs/tape.md, "What Python still keeps").

Kinds of rule:
  - an ONNX node (or a few, for ops ONNX spells as several: SiLU is
    Sigmoid + Mul, scaled_dot_product_attention is MatMul + Softmax +
    MatMul), which the library costs; the nodes of one op are one kernel
    (the recorder marks them, SEVERAL_KERNELS apart), so the values
    between them move no bytes;
  - ALIAS: the op returns its input under another name (detach, clone,
    contiguous, a same-dtype copy): no node, no cost;
  - CREATE: the op makes a tensor from nothing (zeros, arange, empty): its
    output is a constant, not an activation;
  - an op with no entry becomes a node in the domain `pytorch.aten` whose
    output shapes are PyTorch's: it is listed as uncounted in the report,
    never dropped.

A rule is `rule(b, args, kwargs, out)`; `b` is the recorder's builder
(recorder.Builder): b.inp(t) names an input tensor, b.const(values) makes a
small int64 constant, b.scalar(v, like) a scalar of a tensor's dtype,
b.node(op, inputs, outputs, attrs) adds a node, b.gemm_rhs(t) gives a
(name, transposed) pair for a weight PyTorch transposed with `t`.
"""
import math

ALIAS = "alias"
CREATE = "create"


def _arg(args, kw, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kw.get(name, default)


def _ints(v, n):
    if isinstance(v, int):
        return [v] * n
    v = [int(x) for x in v]
    return v * n if len(v) == 1 else v


def _prod(dims):
    n = 1
    for d in dims:
        n *= int(d)
    return n


def _outs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _ndim(t):
    return len(t.shape)


# ---- element-wise ----

def unary(op, **attrs):
    def rule(b, args, kw, out):
        b.node(op, [b.inp(args[0])], [out], attrs)
    if not attrs:  # what the library's table says too: the tape may take it
        rule.tape = ("unary", op)
    return rule


def aten_entry(name):
    """An aten op ONNX has no operator for, but the library's table has an
    entry for, in the recorder's domain for aten ops (erfinv)."""
    def rule(b, args, kw, out):
        b.node(name, [b.inp(args[0])], [out], domain="pytorch.aten")
    return rule


def _abs_typed(b, args, kw, out):
    """abs; of a complex tensor it is real (the modulus, as PyTorch gives
    it): the library's Abs keeps the dtype, so a Cast to the output's real
    dtype follows."""
    x = args[0]
    if not (b.is_tensor(x) and x.is_complex()) or out.is_complex():
        b.node("Abs", [b.inp(x)], [out])
        return
    mod = b.fresh(x.dtype, list(out.shape))
    b.node("Abs", [b.inp(x)], [mod])
    b.node("Cast", [b.name(mod)], [out], {"to": b.onnx_dtype(out.dtype)})


def binary(op, swap=False):
    """A binary op. PyTorch promotes mixed operands (bfloat16 * float32 is
    float32; an int tensor plus 0.5 is float), ONNX takes one type: a
    tensor operand of another dtype than the common one is Cast to it
    first (in the op's kernel, so it moves no bytes of its own), and a
    number becomes a scalar of the common dtype."""
    def rule(b, args, kw, out):
        x, y = args[0], args[1]
        tx, ty = b.is_tensor(x), b.is_tensor(y)
        # two numbers (torch.div(512, 256, rounding_mode=...) reaches the
        # mode so): both become scalars of the result's dtype
        like = x if tx else y if ty else out
        if tx and ty and x.dtype == y.dtype:  # the usual case: nothing to do
            common = x.dtype
        else:
            import torch
            try:
                common = torch.result_type(x, y)
            except (TypeError, RuntimeError):  # no rule for the pair
                common = like.dtype
            if common != like.dtype and not (tx and ty):
                like = torch.empty((), dtype=common, device="meta")
        if out.dtype != common and out.dtype.is_floating_point:
            # a true division of integers gives floats: the kernel computes
            # in the output's dtype, the operands cast to it (as the
            # library's table lowers it; an integer Div would floor)
            common = out.dtype
            if not (tx and ty):
                import torch
                like = torch.empty((), dtype=common, device="meta")
        ins = [_as_dtype(b, v, common) if t else b.scalar(v, like)
               for v, t in ((x, tx), (y, ty))]
        if swap:
            ins = ins[::-1]
        alpha = _arg(args, kw, 2, "alpha", 1) if op in ("Add", "Sub") \
            else 1
        if alpha != 1:  # add, sub, rsub: x + alpha * other, one kernel
            other = x if swap else y
            scaled = b.fresh(common, list(other.shape) if b.is_tensor(other)
                             else [])
            b.node("Mul", [ins[1], b.scalar(alpha, like)], [scaled])
            ins[1] = b.name(scaled)
        b.node(op, ins, [out])
    if not swap:  # what the library's table says too: the tape may take it
        rule.tape = ("binary", op)
    return rule


def _as_dtype(b, t, dtype):
    """The name of tensor t as `dtype`: t's own, or a Cast of it."""
    if t.dtype == dtype or t.is_complex():
        return b.inp(t)
    c = b.fresh(dtype, list(t.shape))
    b.node("Cast", [b.inp(t)], [c], {"to": b.onnx_dtype(dtype)})
    return b.name(c)


def nan_to_num(b, args, kw, out):
    """nan_to_num(x, nan=0, posinf=max, neginf=min): of floating point, a
    Where over IsNaN, then over IsInf of each sign, as torch.onnx exports
    it; of integers a copy."""
    import torch
    x = args[0]
    if not x.dtype.is_floating_point:
        b.node("Identity", [b.inp(x)], [out])
        return
    fin = torch.finfo(x.dtype)
    steps = [("IsNaN", {}, _arg(args, kw, 1, "nan"), 0.0),
             ("IsInf", {"detect_negative": 0}, _arg(args, kw, 2, "posinf"),
              fin.max),
             ("IsInf", {"detect_positive": 0}, _arg(args, kw, 3, "neginf"),
              fin.min)]
    cur = b.inp(x)
    for k, (test, attrs, value, default) in enumerate(steps):
        mask = b.fresh(torch.bool, list(x.shape))
        b.node(test, [b.inp(x)], [mask], attrs)
        y = out if k == len(steps) - 1 else b.fresh_like(x)
        b.node("Where", [b.name(mask),
                         b.scalar(default if value is None else value, x),
                         cur], [y])
        cur = b.name(y)


def compare_ne(b, args, kw, out):
    eq = b.fresh_like(out)
    binary("Equal")(b, args, kw, eq)
    b.node("Not", [b.name(eq)], [out])


def bitwise_not(b, args, kw, out):
    # ~mask; ONNX's BitwiseNot (integers) is opset 18
    if str(out.dtype) == "torch.bool":
        b.node("Not", [b.inp(args[0])], [out])
    else:
        b.unmapped("bitwise_not", args, out)


def silu(b, args, kw, out):
    x = b.inp(args[0])
    s = b.fresh_like(out)
    b.node("Sigmoid", [x], [s])
    b.node("Mul", [x, b.name(s)], [out])


def glu(b, args, kw, out):
    """glu(x, dim): the halves a and b of x along dim, a * sigmoid(b)."""
    x = args[0]
    axis = int(_arg(args, kw, 1, "dim", -1)) % _ndim(x)
    half = int(x.shape[axis]) // 2
    a, g, s = b.fresh_like(out), b.fresh_like(out), b.fresh_like(out)
    b.node("Split", [b.inp(x), b.const([half, half])], [a, g], {"axis": axis})
    b.node("Sigmoid", [b.name(g)], [s])
    b.node("Mul", [b.name(a), b.name(s)], [out])


def weight_norm(b, args, kw, out):
    """_weight_norm_interface(v, g, dim) -> (w, norm): the norm of v over
    every dim but `dim` (kept), w = v * (g / norm): nn.utils.weight_norm's
    weight, recomputed each forward."""
    v, g = args[0], args[1]
    w, norm = _outs(out)[:2]
    r = _ndim(v)
    dim = int(_arg(args, kw, 2, "dim", 0))
    axes = [d for d in range(r) if r and d != dim % r] if dim != -1 \
        else list(range(r))
    b.node("ReduceL2", [b.inp(v)], [norm], {"axes": axes, "keepdims": 1})
    scale = b.fresh_like(norm)
    b.node("Div", [b.inp(g), b.name(norm)], [scale])
    b.node("Mul", [b.inp(v), b.name(scale)], [w])


def mish(b, args, kw, out):
    # what torch.onnx exports below opset 18: x * tanh(softplus(x))
    x = b.inp(args[0])
    sp, th = b.fresh_like(out), b.fresh_like(out)
    b.node("Softplus", [x], [sp])
    b.node("Tanh", [b.name(sp)], [th])
    b.node("Mul", [x, b.name(th)], [out])


def shifted(first, then, k):
    """expm1 = Exp then Sub 1; log1p = Add 1 then Log."""
    def rule(b, args, kw, out):
        x = args[0]
        t = b.fresh_like(out)
        if first in ("Add", "Sub"):
            b.node(first, [b.inp(x), b.scalar(k, x)], [t])
            b.node(then, [b.name(t)], [out])
        else:
            b.node(first, [b.inp(x)], [t])
            b.node(then, [b.name(t), b.scalar(k, x)], [out])
    return rule


def log2(b, args, kw, out):
    # as torch.onnx exports it: Log, then a Div by ln 2
    t = b.fresh_like(out)
    b.node("Log", [b.inp(args[0])], [t])
    b.node("Div", [b.name(t), b.scalar(math.log(2.0), out)], [out])


def roi_align(b, args, kw, out):
    """torchvision's roi_align(x, rois (K, 5: batch index, box), scale,
    pooled_h, pooled_w, sampling_ratio, aligned): ONNX RoiAlign, the rois
    cut into boxes and batch indices."""
    import torch
    x, rois = args[0], args[1]
    scale, ph, pw, ratio, aligned = args[2:7]
    k = int(rois.shape[0])
    boxes = b.fresh(rois.dtype, [k, 4])
    b.node("Slice", [b.inp(rois), b.const([1]), b.const([5]), b.const([1])],
           [boxes])
    idx = b.fresh(rois.dtype, [k])
    b.node("Gather", [b.inp(rois), b.const(0, scalar=True)], [idx], {"axis": 1})
    bidx = b.fresh(torch.int64, [k])
    b.node("Cast", [b.name(idx)], [bidx], {"to": b.onnx_dtype(bidx.dtype)})
    b.node("RoiAlign", [b.inp(x), b.name(boxes), b.name(bidx)], [out],
           {"output_height": int(ph), "output_width": int(pw),
            "sampling_ratio": max(0, int(ratio)),
            "spatial_scale": float(scale), "mode": "avg",
            "coordinate_transformation_mode":
                "half_pixel" if aligned else "output_half_pixel"})


def prelu(b, args, kw, out):
    x, w = args[0], args[1]
    slope = b.inp(w)
    if _ndim(x) > 2 and _ndim(w) == 1 and int(w.numel()) > 1:
        # one slope per channel (dim 1): (C, 1, ..., 1) broadcasts
        shape = [int(w.numel())] + [1] * (_ndim(x) - 2)
        u = b.fresh(w.dtype, shape)
        b.node("Reshape", [slope, b.const(shape)], [u])
        slope = b.name(u)
    b.node("PRelu", [b.inp(x), slope], [out])


def rsqrt(b, args, kw, out):
    s = b.fresh_like(out)
    b.node("Sqrt", [b.inp(args[0])], [s])
    b.node("Reciprocal", [b.name(s)], [out])


def clip(lo_i, hi_i, lo_name="min", hi_name="max"):
    def rule(b, args, kw, out):
        x = args[0]
        lo = _arg(args, kw, lo_i, lo_name) if lo_i is not None else None
        hi = _arg(args, kw, hi_i, hi_name) if hi_i is not None else None
        if any(b.is_tensor(v) and v.numel() != 1 for v in (lo, hi)):
            # clamp(x, min=tensor, max=tensor): element-wise Max and Min
            # (Clip's bounds are scalars)
            cur = x
            for v, op in ((lo, "Max"), (hi, "Min")):
                if v is None:
                    continue
                last = op == "Min" or hi is None
                nxt = out if last else b.fresh_like(out)
                b.node(op, [b.inp(cur) if cur is x else b.name(cur),
                            b.inp(v) if b.is_tensor(v) else b.scalar(v, x)],
                       [nxt])
                cur = nxt
            return
        ins = [b.inp(x),
               "" if lo is None else (b.inp(lo) if b.is_tensor(lo) else b.scalar(lo, x)),
               "" if hi is None else (b.inp(hi) if b.is_tensor(hi) else b.scalar(hi, x))]
        while ins and ins[-1] == "":
            ins.pop()
        b.node("Clip", ins, [out])
    return rule


def leaky_relu(b, args, kw, out):
    b.node("LeakyRelu", [b.inp(args[0])], [out],
           {"alpha": float(_arg(args, kw, 1, "negative_slope", 0.01))})


def elu(b, args, kw, out):
    b.node("Elu", [b.inp(args[0])], [out],
           {"alpha": float(_arg(args, kw, 1, "alpha", 1.0))})


def gelu(b, args, kw, out):
    # ai.onnx Gelu is opset 20; the table's com.microsoft Gelu costs the same
    b.node("Gelu", [b.inp(args[0])], [out], domain="com.microsoft")


def where(b, args, kw, out):
    c, x, y = args[0], args[1], args[2]
    like = x if b.is_tensor(x) else y
    b.node("Where", [b.inp(c),
                     b.inp(x) if b.is_tensor(x) else b.scalar(x, like),
                     b.inp(y) if b.is_tensor(y) else b.scalar(y, like)], [out])


def masked_fill(b, args, kw, out):
    x, mask, v = args[0], args[1], args[2]
    b.node("Where", [b.inp(mask), b.inp(v) if b.is_tensor(v) else b.scalar(v, x),
                     b.inp(x)], [out])


def pow_(b, args, kw, out):
    x, e = args[0], args[1]
    if not b.is_tensor(x):  # pow.Scalar: a number to a tensor's power
        b.node("Pow", [b.scalar(x, e), b.inp(e)], [out])
    else:
        b.node("Pow", [b.inp(x), b.inp(e) if b.is_tensor(e) else b.scalar(e, x)],
               [out])


def softmax(op):
    def rule(b, args, kw, out):
        b.node(op, [b.inp(args[0])], [out], {"axis": int(args[1])})
    return rule


# ---- complex numbers (rotary embeddings as complex products) ----
#
# A complex tensor is the graph value of its real form, view_as_real's
# (..., 2) float tensor: view_as_complex and view_as_real name the same
# value, polar and complex products are spelled in real arithmetic (a
# complex product is 4 Mul, a Sub and an Add per element, as a naive
# implementation does). Ops on complex values with no rule here are
# uncounted (their outputs declared in real form too).

def is_complex(t):
    return hasattr(t, "is_complex") and t.is_complex()


def real_formed(b, t):
    """Whether complex t's graph value is its real form. A complex graph
    input or parameter is a complex-typed value instead, which the ordinary
    rules take as it is (a MatMul of complex values, ...)."""
    if not is_complex(t):
        return False
    n = b.names.get(id(t))
    return n is not None and \
        b.shape_of.get(n) == (*map(int, t.shape), 2)


def _real(t):
    import torch
    return torch.view_as_real(t)


def view_as_complex(b, args, kw, out):
    b.alias(out, args[0])


def view_as_real(b, args, kw, out):
    if real_formed(b, args[0]):
        b.alias(out, args[0])
    else:  # a complex-typed value (a buffer): read as pairs, free
        b.node("view_as_real", [b.inp(args[0])], [out], domain="pytorch.aten")


def _real_form(b, t):
    """The name of complex t's real form: t's own, or for a complex-typed
    value (a complex buffer, LLaMA-1's `freqs_cis`, and what is sliced or
    reshaped from it) the library's view_as_real of it (free)."""
    if real_formed(b, t):
        return b.inp(t)
    r = b.fresh(_real(t).dtype, list(t.shape) + [2])
    b.node("view_as_real", [b.inp(t)], [r], domain="pytorch.aten")
    return b.name(r)


def _parts(b, t, name):
    """(real, imaginary) names of complex t's real form `name`, each
    (..., 1)."""
    r = _real(t)
    half = [b.fresh(r.dtype, list(r.shape[:-1]) + [1]) for _ in range(2)]
    b.node("Split", [name, b.const([1, 1])], half, {"axis": -1})
    return [b.name(h) for h in half]


def _as_complex_out(b, out, make):
    """Builds out's real form with make(name-of-real-form-tensor), then
    names out by it."""
    r = b.fresh(_real(out).dtype, list(out.shape) + [2])
    make(r)
    b.alias(out, r)


def polar(b, args, kw, out):
    # polar(abs, angle) = abs cos(angle) + i abs sin(angle)
    mag, ang = args[0], args[1]
    halves = []
    for op in ("Cos", "Sin"):
        t = b.fresh_like(ang)
        b.node(op, [b.inp(ang)], [t])
        m = b.fresh(mag.dtype, list(out.shape))
        b.node("Mul", [b.inp(mag), b.name(t)], [m])
        u = b.fresh(mag.dtype, list(out.shape) + [1])
        b.node("Unsqueeze", [b.name(m), b.const([-1])], [u])
        halves.append(b.name(u))
    _as_complex_out(b, out, lambda r: b.node("Concat", halves, [r], {"axis": -1}))


def _bring_real_formed(b, t):
    """A complex constant the graph has not met yet (a plain attribute: 2-D
    rotary embeddings keep their frequencies so) enters as its real form,
    (..., 2) of the real dtype, so the complex rules take it. A complex
    parameter or buffer stays complex-typed (its element count is the
    contract's); a multiply reads it through view_as_real (_real_form)."""
    if not b.is_tensor(t) or not is_complex(t) or id(t) in b.names \
            or id(t) in b.params:
        return
    r = _real(t)
    dims = [int(d) for d in r.shape]
    name = b.g.new_name("const")
    b.hold(t)
    b.names[id(t)] = name
    b.g.add_init(name, b.onnx_dtype(r.dtype), dims, kind="constant")
    b.shape_of[name] = tuple(dims)


def complex_mul(b, args, kw, out):
    x, y = args[0], args[1]
    if any(real_formed(b, a) for a in (x, y)):
        for a in (x, y):
            _bring_real_formed(b, a)
    if is_complex(x) != is_complex(y) or not is_complex(x):
        c, k = (x, y) if is_complex(x) else (y, x)
        if b.is_tensor(k):  # a real tensor scales both halves
            u = b.fresh(k.dtype, list(k.shape) + [1])
            b.node("Unsqueeze", [b.inp(k), b.const([-1])], [u])
            other = b.name(u)
        else:
            other = b.scalar(k, _real(c))
        cr = _real_form(b, c)
        _as_complex_out(b, out, lambda r: b.node("Mul", [cr, other], [r]))
        return
    (xr, xi), (yr, yi) = _parts(b, x, _real_form(b, x)), \
        _parts(b, y, _real_form(b, y))
    half = list(out.shape) + [1]
    dt = _real(out).dtype
    prods = {}
    for key, p, q in (("rr", xr, yr), ("ii", xi, yi), ("ri", xr, yi),
                      ("ir", xi, yr)):
        prods[key] = b.fresh(dt, half)
        b.node("Mul", [p, q], [prods[key]])
    re, im = b.fresh(dt, half), b.fresh(dt, half)
    b.node("Sub", [b.name(prods["rr"]), b.name(prods["ii"])], [re])
    b.node("Add", [b.name(prods["ri"]), b.name(prods["ir"])], [im])
    _as_complex_out(b, out, lambda r: b.node(
        "Concat", [b.name(re), b.name(im)], [r], {"axis": -1}))


def _dft_chain(b, src, shape, dtype, dims, inverse, out, first_onesided=False):
    """DFTs along dims (ONNX's DFT-17: one axis each, on a (..., 1 or 2)
    signal), the first one-sided when asked; writes out's real form."""
    cur, cur_shape = src, list(shape)
    for i, d in enumerate(dims):
        one = first_onesided and i == 0
        nxt_shape = list(cur_shape)
        nxt_shape[-1] = 2
        if one:
            nxt_shape[d] = cur_shape[d] // 2 + 1
        last = i == len(dims) - 1
        nxt = out if last else b.fresh(dtype, nxt_shape)
        attrs = {"axis": d, "inverse": int(inverse)}
        if one:
            attrs["onesided"] = 1
        b.node("DFT", [cur], [nxt], attrs)
        cur, cur_shape = (None if last else b.name(nxt)), nxt_shape


def fft_c2c(b, args, kw, out):
    """torch.fft on complex values (_fft_c2c(x, dim, normalization,
    forward)): a DFT per transformed dim on the real form; an orthonormal
    or 1/n-forward scaling is one Mul more."""
    x, dims = args[0], [int(d) % _ndim(args[0]) for d in args[1]]
    norm, forward = int(args[2]), bool(args[3])
    if not real_formed(b, x):
        b.unmapped("_fft_c2c", args, out)
        return
    rx = _real(x)

    def make(r):
        scaled = norm == 1 or (norm == 2 and forward)
        t = b.fresh(r.dtype, list(r.shape)) if scaled else r
        _dft_chain(b, b.inp(x), rx.shape, r.dtype, dims, not forward, t)
        if scaled:
            b.node("Mul", [b.name(t), b.scalar(1.0, r)], [r])
    _as_complex_out(b, out, make)


def fft_r2c(b, args, kw, out):
    """rfft / rfftn (_fft_r2c(x, dim, normalization, onesided)): the real
    signal as (..., 1), a DFT per dim, the last dim first and one-sided."""
    x, dims = args[0], [int(d) % _ndim(args[0]) for d in args[1]]
    norm, onesided = int(args[2]), bool(args[3])
    u = b.fresh(x.dtype, list(x.shape) + [1])
    b.node("Unsqueeze", [b.inp(x), b.const([-1])], [u])
    order = dims[-1:] + dims[:-1]

    def make(r):
        t = b.fresh(r.dtype, list(r.shape)) if norm else r
        _dft_chain(b, b.name(u), u.shape, r.dtype, order, False, t,
                   first_onesided=onesided)
        if norm:
            b.node("Mul", [b.name(t), b.scalar(1.0, r)], [r])
    _as_complex_out(b, out, make)


def to_complex_copy(b, args, kw, out):
    """_to_copy with a complex side: real to complex is the real part with
    a zero imaginary part (its real form); complex to complex a Cast of the
    real form; complex to real has no rule."""
    x = args[0]
    if not is_complex(out):
        if real_formed(b, x):
            b.unmapped("_to_copy", args, out)
        else:
            to_copy(b, args, kw, out)
        return
    if is_complex(x):
        if not real_formed(b, x):
            to_copy(b, args, kw, out)  # complex-typed: a Cast (or the same)
            return
        _as_complex_out(b, out, lambda r: b.node(
            "Cast", [b.inp(x)], [r], {"to": b.onnx_dtype(r.dtype)}))
        return
    dt = _real(out).dtype
    re = b.fresh(dt, list(x.shape) + [1])
    src = b.inp(x)
    if x.dtype != dt:
        c = b.fresh(dt, list(x.shape))
        b.node("Cast", [src], [c], {"to": b.onnx_dtype(dt)})
        src = b.name(c)
    b.node("Unsqueeze", [src, b.const([-1])], [re])
    _as_complex_out(b, out, lambda r: b.node(
        "Concat", [b.name(re), b.filler(list(x.shape) + [1], re)], [r],
        {"axis": -1}))


def abs_(b, args, kw, out):
    """abs; of a complex value in real form its magnitude: sqrt(re^2 +
    im^2) (Mul, ReduceSum of the pair, Sqrt)."""
    x = args[0]
    if not real_formed(b, x):
        _abs_typed(b, args, kw, out)
        return
    r = _real(x)
    sq = b.fresh_like(r)
    b.node("Mul", [b.inp(x), b.inp(x)], [sq])
    ssum = b.fresh(out.dtype, list(out.shape))
    b.node("ReduceSum", [b.name(sq), b.const([-1])], [ssum], {"keepdims": 0})
    b.node("Sqrt", [b.name(ssum)], [out])


def real_form(rule):
    """A layout rule that also takes complex values: on a complex output it
    runs on the output's real form (its dims counted from the complex
    input's, the trailing 2 untouched)."""
    def wrapped(b, args, kw, out):
        if is_complex(out) and real_formed(b, args[0]):
            _as_complex_out(b, out, lambda r: rule(b, args, kw, r))
        else:
            rule(b, args, kw, out)
    return wrapped


def mul(b, args, kw, out):
    if any(real_formed(b, a) for a in args[:2]):
        complex_mul(b, args, kw, out)
    else:
        binary("Mul")(b, args, kw, out)


# ---- selection, sorting, routing (mixture-of-experts) ----

def topk(b, args, kw, out):
    # topk(x, k, dim=-1, largest=True, sorted=True) -> (values, indices)
    x, k = args[0], int(args[1])
    b.node("TopK", [b.inp(x), b.const([k])], _outs(out),
           {"axis": int(_arg(args, kw, 2, "dim", -1)) % max(1, _ndim(x)),
            "largest": int(bool(_arg(args, kw, 3, "largest", True))),
            "sorted": int(bool(_arg(args, kw, 4, "sorted", True)))})


def sort(b, args, kw, out):
    """sort(x, dim=-1, descending=False) and sort.stable(x, *, stable, dim,
    descending) as torch.onnx exports them: a TopK of the whole dim;
    argsort is its indices output."""
    x = args[0]
    dim = _arg(args, kw, 1, "dim", -1)
    desc = _arg(args, kw, 2, "descending", False)
    r = max(1, _ndim(x))
    dim = int(dim) % r
    outs = _outs(out)
    if len(outs) == 1:  # argsort: the values are not kept
        outs = [b.fresh_like(x)] + outs
    b.node("TopK", [b.inp(x), b.const([int(x.shape[dim]) if _ndim(x) else 1])],
           outs, {"axis": dim, "largest": int(bool(desc)), "sorted": 1})


def max_min(reduce_op, arg_op, binary_op):
    """max(x) (all elements), max(x, dim, keepdim) -> (values, indices),
    max(x, y) (element-wise): ReduceMax, ReduceMax + ArgMax, Max."""
    def rule(b, args, kw, out):
        x = args[0]
        y = _arg(args, kw, 1, "dim", None)
        if b.is_tensor(y):
            binary(binary_op)(b, args, kw, out)
            return
        keep = bool(_arg(args, kw, 2, "keepdim", False))
        outs = _outs(out)
        axes = list(range(_ndim(x))) if y is None else [int(y) % max(1, _ndim(x))]
        b.node(reduce_op, [b.inp(x)], [outs[0]],
               {"axes": axes, "keepdims": int(keep)})
        if len(outs) > 1:
            b.node(arg_op, [b.inp(x)], [outs[1]],
                   {"axis": axes[0], "keepdims": int(keep)})
    return rule


def aminmax(b, args, kw, out):
    # aminmax(x, *, dim=None, keepdim=False) -> (min, max)
    x = args[0]
    dim = kw.get("dim", _arg(args, kw, 1, "dim", None))
    keep = bool(kw.get("keepdim", False))
    axes = list(range(_ndim(x))) if dim is None else [int(dim) % max(1, _ndim(x))]
    lo, hi = _outs(out)[:2]
    for op, o in (("ReduceMin", lo), ("ReduceMax", hi)):
        b.node(op, [b.inp(x)], [o], {"axes": axes, "keepdims": int(keep)})


def index_add(b, args, kw, out):
    """x.index_add(dim, index, source, alpha): rows of source added into x
    at index, a ScatterND add on dim 0 (times alpha first when not 1)."""
    import torch
    x, dim, ix, src = args[0], int(args[1]), args[2], args[3]
    alpha = _arg(args, kw, 4, "alpha", 1)
    if dim % max(1, _ndim(x)) != 0:
        b.unmapped("index_add", args, out)
        return
    upd = b.inp(src)
    if alpha != 1:
        m = b.fresh_like(src)
        b.node("Mul", [upd, b.scalar(alpha, src)], [m])
        upd = b.name(m)
    u = b.fresh(torch.int64, [int(ix.numel()), 1])
    b.node("Unsqueeze", [_int64(b, ix, list(ix.shape)), b.const([-1])], [u])
    b.node("ScatterND", [b.inp(x), b.name(u), upd], [out], {"reduction": "add"})


def all_any(op):
    """all / any (of a mask): as an int32 ReduceMin / ReduceMax, cast back
    to bool (ONNX has no boolean reductions)."""
    def rule(b, args, kw, out):
        import torch
        x = args[0]
        dim = _arg(args, kw, 1, "dim", None)
        keep = bool(_arg(args, kw, 2, "keepdim", False))
        r = max(1, _ndim(x))
        if dim is None:
            axes = list(range(_ndim(x)))
        else:
            axes = sorted(int(d) % r for d in
                          (dim if isinstance(dim, (list, tuple)) else [dim]))
        xi = b.fresh(torch.int32, list(x.shape))
        b.node("Cast", [b.inp(x)], [xi], {"to": b.onnx_dtype(xi.dtype)})
        red = b.fresh(torch.int32, list(out.shape))
        b.node(op, [b.name(xi)], [red], {"axes": axes, "keepdims": int(keep)})
        b.node("Cast", [b.name(red)], [out], {"to": b.onnx_dtype(out.dtype)})
    return rule


def arg_reduce(op):
    # argmax(x, dim=None, keepdim=False); no dim: over the flattened tensor
    def rule(b, args, kw, out):
        x = args[0]
        dim = _arg(args, kw, 1, "dim", None)
        keep = bool(_arg(args, kw, 2, "keepdim", False))
        src = b.inp(x)
        if dim is None:
            flat = b.fresh(x.dtype, [int(x.numel())])
            b.node("Reshape", [src, b.const([int(x.numel())])], [flat])
            src, dim = b.name(flat), 0
        b.node(op, [src], [out], {"axis": int(dim) % max(1, _ndim(x)),
                                  "keepdims": int(keep)})
    return rule


def histc(b, args, kw, out):
    """histc(x, bins, min, max) as a naive histogram: each element's bin
    ((x - min) * bins / (max - min), floored, as an index) and one
    ScatterElements add of a one per element into the bins."""
    import torch
    x = args[0]
    bins = int(_arg(args, kw, 1, "bins", 100))
    lo = float(_arg(args, kw, 2, "min", 0))
    hi = float(_arg(args, kw, 3, "max", 0))
    n = int(x.numel())
    flat = b.fresh(x.dtype, [n])
    b.node("Reshape", [b.inp(x), b.const([n])], [flat])
    shifted, scaled, fl = b.fresh_like(flat), b.fresh_like(flat), b.fresh_like(flat)
    b.node("Sub", [b.name(flat), b.scalar(lo, x)], [shifted])
    b.node("Mul", [b.name(shifted),
                   b.scalar(bins / (hi - lo) if hi > lo else 1.0, x)], [scaled])
    b.node("Floor", [b.name(scaled)], [fl])
    ix = b.fresh(torch.int64, [n])
    b.node("Cast", [b.name(fl)], [ix], {"to": b.onnx_dtype(ix.dtype)})
    b.node("ScatterElements", [b.filler([bins], out), b.name(ix),
                               b.filler([n], out)], [out],
           {"axis": 0, "reduction": "add"})


def div(b, args, kw, out):
    """div; with rounding_mode="floor" it is floor_divide. "trunc" stays a
    Div: of integers that is what ONNX's integer Div does; of floating
    point the rounding's own element-wise pass is not counted (ONNX has no
    Trunc to spell it with)."""
    if kw.get("rounding_mode") == "floor":
        floor_divide(b, args, kw, out)
        return
    binary("Div")(b, args, kw, out)


def floor_divide(b, args, kw, out):
    # a // b: Div, then Floor for floating point (integer Div floors already
    # for the non-negative ids and counts models divide)
    if not out.dtype.is_floating_point:
        binary("Div")(b, args, kw, out)
        return
    q = b.fresh_like(out)
    binary("Div")(b, args, kw, q)
    b.node("Floor", [b.name(q)], [out])


def remainder(b, args, kw, out):
    x, y = args[0], args[1]
    like = x if b.is_tensor(x) else y
    b.node("Mod", [b.inp(x) if b.is_tensor(x) else b.scalar(x, like),
                   b.inp(y) if b.is_tensor(y) else b.scalar(y, like)], [out],
           {"fmod": int(out.dtype.is_floating_point)})


def repeat(b, args, kw, out):
    """x.repeat(*sizes): Tile (sizes longer than x's rank add leading dims,
    a Reshape first)."""
    x, reps = args[0], [int(r) for r in args[1]]
    src = b.inp(x)
    if len(reps) > _ndim(x):
        shape = [1] * (len(reps) - _ndim(x)) + [int(d) for d in x.shape]
        u = b.fresh(x.dtype, shape)
        b.node("Reshape", [src, b.const(shape)], [u])
        src = b.name(u)
    b.node("Tile", [src, b.const(reps)], [out])


def _row_groups(rows, groups):
    """A balanced split of `rows` into `groups`: [(groups, rows each), ...]
    (r groups of q + 1 rows, then the others of q)."""
    q, r = divmod(rows, groups)
    return [(g, n) for g, n in ((r, q + 1), (groups - r, q)) if g and n]


def _rows(b, t, start, n, axis):
    """The name of t[start:start + n] along axis (t itself when whole)."""
    if start == 0 and n == int(t.shape[axis]):
        return b.inp(t)
    shape = [int(d) for d in t.shape]
    shape[axis] = n
    s = b.fresh(t.dtype, shape)
    b.node("Slice", [b.inp(t), b.const([start]), b.const([start + n]),
                     b.const([axis])], [s])
    return b.name(s)


def grouped_mm(b, args, kw, out):
    """aten._grouped_mm(a, b, offs): one matrix product per group, the groups
    cut along a's rows (2-D a, 3-D b: mixture-of-experts, offs the running
    count of each expert's rows) or along the shared dim (2-D a and b: the
    weights' gradient), or a plain batched product (3-D a and b).

    How many rows each expert gets is the router's data; the MACs do not
    depend on it (every row meets one expert: rows x K x N), so the groups
    are spelled as a balanced split, batched MatMuls over the experts whose
    rows are grouped in a Reshape: each expert's weight read once, each row
    multiplied once."""
    a, w = args[0], args[1]
    bias = _arg(args, kw, 3, "bias", None)
    y = _outs(out)[0]
    if bias is not None or _ndim(a) not in (2, 3) or _ndim(w) not in (2, 3):
        b.unmapped("_grouped_mm", args, out)
        return
    if _ndim(a) == 3 and _ndim(w) == 3:
        b.node("MatMul", [b.inp(a), b.inp(w)], [y])
        return
    if _ndim(a) == 3:  # 3-D a, 2-D b: no model uses it
        b.unmapped("_grouped_mm", args, out)
        return
    dt = y.dtype
    parts, start = [], 0
    if _ndim(w) == 3:  # (S, K) x (E, K, N) -> (S, N)
        S, K = int(a.shape[0]), int(a.shape[1])
        E, N = int(w.shape[0]), int(w.shape[2])
        e0 = 0
        for g, n in _row_groups(S, E):
            rows = _rows(b, a, start, g * n, 0)
            xs = b.fresh(a.dtype, [g, n, K])
            b.node("Reshape", [rows, b.const([g, n, K])], [xs])
            ws = _rows(b, w, e0, g, 0)
            p = b.fresh(dt, [g, n, N])
            b.node("MatMul", [b.name(xs), ws], [p])
            flat = b.fresh(dt, [g * n, N])
            b.node("Reshape", [b.name(p), b.const([g * n, N])], [flat])
            parts.append(flat)
            start, e0 = start + g * n, e0 + g
        axis = 0
    else:  # (M, S) x (S, N) -> (E, M, N), the groups cut along S
        E = int(y.shape[0])
        M, S, N = int(a.shape[0]), int(a.shape[1]), int(w.shape[1])
        for g, n in _row_groups(S, E):
            cols = _rows(b, a, start, g * n, 1)
            xs = b.fresh(a.dtype, [M, g, n])
            b.node("Reshape", [cols, b.const([M, g, n])], [xs])
            xt = b.fresh(a.dtype, [g, M, n])
            b.node("Transpose", [b.name(xs)], [xt], {"perm": [1, 0, 2]})
            rows = _rows(b, w, start, g * n, 0)
            ws = b.fresh(w.dtype, [g, n, N])
            b.node("Reshape", [rows, b.const([g, n, N])], [ws])
            p = b.fresh(dt, [g, M, N])
            b.node("MatMul", [b.name(xt), b.name(ws)], [p])
            parts.append(p)
            start += g * n
        if S < E:  # groups with nothing to sum: zeros
            z = b.fresh(dt, [E - S, M, N])
            b.node("Expand", [b.scalar(0, y), b.const([E - S, M, N])], [z])
            parts.append(z)
        axis = 0
    if not parts:  # nothing to multiply (S = 0)
        b.node("Expand", [b.scalar(0, y), b.const(list(y.shape))], [y])
    elif len(parts) == 1:
        b.alias(y, parts[0])
    else:
        b.node("Concat", [b.name(p) for p in parts], [y], {"axis": axis})


# ---- matrix products ----

def addmm(b, args, kw, out):
    c, x, w = args[0], args[1], args[2]
    wn, trans = b.gemm_rhs(w)
    attrs = {"transB": 1} if trans else {}
    beta = float(_arg(args, kw, 3, "beta", 1))
    alpha = float(_arg(args, kw, 4, "alpha", 1))
    if beta != 1:
        attrs["beta"] = beta
    if alpha != 1:
        attrs["alpha"] = alpha
    b.node("Gemm", [_mm_in(b, x, out), _mm_in(b, w, out, wn, trans),
                    _mm_in(b, c, out)], [out], attrs)


def _mm_in(b, t, out, name=None, trans=False):
    """A matrix product's operand in its output's dtype. PyTorch's meta
    kernels take mixed floating operands (float32 activations into a
    bfloat16 Linear: ctrl, fnet, mra) and give the promoted dtype; ONNX's
    Gemm and MatMul take one type, so the operand is Cast to it first (in
    the op's kernel: it moves no bytes of its own), as binary() does. name:
    t's name when given (gemm_rhs's, of W itself when trans)."""
    name = b.inp(t) if name is None else name
    if t.dtype == out.dtype or not (t.is_floating_point()
                                    and out.dtype.is_floating_point):
        return name
    c = b.fresh(out.dtype, list(t.shape)[::-1] if trans else list(t.shape))
    b.node("Cast", [name], [c], {"to": b.onnx_dtype(out.dtype)})
    return b.name(c)


def mm(b, args, kw, out):
    wn, trans = b.gemm_rhs(args[1])
    ins = [_mm_in(b, args[0], out), _mm_in(b, args[1], out, wn, trans)]
    if trans:
        b.node("Gemm", ins, [out], {"transB": 1})
    else:
        b.node("MatMul", ins, [out])


def matmul(b, args, kw, out):
    b.node("MatMul", [_mm_in(b, args[0], out), _mm_in(b, args[1], out)],
           [out])


def baddbmm(b, args, kw, out):
    c, x, y = args[0], args[1], args[2]
    p = b.fresh_like(out)
    b.node("MatMul", [_mm_in(b, x, out), _mm_in(b, y, out)], [p])
    b.node("Add", [b.name(p), _mm_in(b, c, out)], [out])


def addmv(b, args, kw, out):
    baddbmm(b, args, kw, out)


# ---- convolution, normalisation, pooling ----

def convolution(b, args, kw, out):
    x, w, bias = args[0], args[1], args[2]
    stride, padding, dilation = args[3], args[4], args[5]
    transposed, out_pad, groups = args[6], args[7], args[8]
    r = _ndim(w) - 2
    pads = _ints(padding, r)
    attrs = {"kernel_shape": [int(k) for k in w.shape[2:]],
             "strides": _ints(stride, r), "pads": pads + pads,
             "dilations": _ints(dilation, r), "group": int(groups)}
    ins = [b.inp(x), b.inp(w)] + ([b.inp(bias)] if bias is not None else [])
    if transposed:
        attrs["output_padding"] = _ints(out_pad, r)
        b.node("ConvTranspose", ins, [out], attrs)
    else:
        b.node("Conv", ins, [out], attrs)


def _bn(b, x, w, bias, mean, var, eps, out):
    c = int(x.shape[1])
    ins = [b.inp(x),
           b.inp(w) if w is not None else b.filler(c, x),
           b.inp(bias) if bias is not None else b.filler(c, x),
           b.inp(mean) if mean is not None else b.filler(c, x),
           b.inp(var) if var is not None else b.filler(c, x)]
    b.node("BatchNormalization", ins, [_outs(out)[0]], {"epsilon": float(eps)})


def native_batch_norm(b, args, kw, out):
    # (input, weight, bias, running_mean, running_var, training, momentum, eps)
    _bn(b, args[0], args[1], args[2], args[3], args[4], args[7], out)


def batch_norm_no_training(b, args, kw, out):
    # 2.x: (input, weight, bias, running_mean, running_var, momentum, eps)
    _bn(b, args[0], args[1], args[2], args[3], args[4], args[6], out)


def layer_norm(b, args, kw, out):
    x, shape, w, bias = args[0], list(args[1]), args[2], args[3]
    eps = float(_arg(args, kw, 4, "eps", 1e-5))
    n = 1
    for d in shape:
        n *= int(d)
    ins = [b.inp(x), b.inp(w) if w is not None else b.filler(shape, x)]
    if bias is not None:
        ins.append(b.inp(bias))
    b.node("LayerNormalization", ins, [_outs(out)[0]],
           {"axis": -len(shape), "epsilon": eps})


def group_norm(b, args, kw, out):
    """native_group_norm(x, weight, bias, N, C, HxW, group, eps) as
    torch.onnx exports GroupNorm below opset 18: x seen as (N, G, -1),
    InstanceNormalization over it (scale ones, bias zeros: constants), back
    to x's shape, then the per-channel weight and bias (Mul, Add)."""
    x, w, bias = args[0], args[1], args[2]
    n, c, groups = int(args[3]), int(args[4]), int(args[6])
    eps = float(args[7])
    y = _outs(out)[0]
    shape = [int(d) for d in x.shape]
    grouped = b.fresh(x.dtype, [n, groups, int(x.numel()) // max(1, n * groups)])
    b.node("Reshape", [b.inp(x), b.const(list(grouped.shape))], [grouped])
    normed = b.fresh_like(grouped)
    b.node("InstanceNormalization", [b.name(grouped), b.filler(groups, x),
                                     b.filler(groups, x)], [normed],
           {"epsilon": eps})
    steps = [(op, t) for op, t in (("Mul", w), ("Add", bias)) if t is not None]
    back = y if not steps else b.fresh(x.dtype, shape)
    b.node("Reshape", [b.name(normed), b.const(shape)], [back])
    cur = back
    for i, (op, t) in enumerate(steps):
        per_channel = [c] + [1] * (len(shape) - 2)
        u = b.fresh(t.dtype, per_channel)
        b.node("Reshape", [b.inp(t), b.const(per_channel)], [u])
        nxt = y if i == len(steps) - 1 else b.fresh(x.dtype, shape)
        b.node(op, [b.name(cur), b.name(u)], [nxt])
        cur = nxt


def pool(op, has_dilation, r):
    """An r-D pool; of an unbatched input (r + 1 dims, which PyTorch
    pools as a batch of one) as ONNX's pools take it: Unsqueeze, the
    pool, Squeeze (one kernel, as PyTorch runs it)."""
    def rule(b, args, kw, out):
        x = args[0]
        if _ndim(x) not in (r + 1, r + 2):
            raise NotImplementedError("a %d-D pool of a %d-D tensor"
                                      % (r, _ndim(x)))
        k = _ints(args[1], r)
        stride = _arg(args, kw, 2, "stride", [])
        s = _ints(stride, r) if stride else k
        p = _ints(_arg(args, kw, 3, "padding", 0), r)
        attrs = {"kernel_shape": k, "strides": s, "pads": p + p}
        if has_dilation:
            attrs["dilations"] = _ints(_arg(args, kw, 4, "dilation", 1), r)
            attrs["ceil_mode"] = int(bool(_arg(args, kw, 5, "ceil_mode", False)))
        else:
            attrs["ceil_mode"] = int(bool(_arg(args, kw, 4, "ceil_mode", False)))
            attrs["count_include_pad"] = int(bool(
                _arg(args, kw, 5, "count_include_pad", True)))
        y = _outs(out)[0]
        if _ndim(x) == r + 2:
            b.node(op, [b.inp(x)], [y], attrs)
            return
        u = b.fresh(x.dtype, [1] + list(x.shape))
        b.node("Unsqueeze", [b.inp(x), b.const([0])], [u])
        w = b.fresh(y.dtype, [1] + list(y.shape))
        b.node(op, [b.name(u)], [w], attrs)
        b.node("Squeeze", [b.name(w), b.const([0])], [y])
    return rule


def adaptive_pool(kind, aten):
    """Adaptive pools as torch.onnx exports them: Global*Pool for a 1x..x1
    output, else *Pool with the kernel in - (out - 1) * (in // out), exact
    when every input size is a multiple of the output's; an output that is
    a multiple of the input (windows of one element) is a nearest Resize."""
    def rule(b, args, kw, out):
        x, y = args[0], _outs(out)[0]
        ins, outs = list(x.shape[2:]), list(y.shape[2:])
        if all(int(o) == 1 for o in outs):
            b.node("Global%sPool" % kind, [b.inp(x)], [y])
            return
        if all(int(o) >= int(i) and int(o) % int(i) == 0
               for i, o in zip(ins, outs)) \
                and any(int(o) > int(i) for i, o in zip(ins, outs)):
            # every window is one input element: a nearest upsampling
            b.node("Resize", [b.inp(x), "", "", b.const(list(y.shape))], [y],
                   {"mode": "nearest", "nearest_mode": "floor",
                    "coordinate_transformation_mode": "asymmetric"})
            return
        if any(int(o) > int(i) for i, o in zip(ins, outs)):
            # windows of one or two elements, growing along one axis: no
            # pooling spells that
            b.unmapped(aten, [x], out)
            return
        s = [int(i) // int(o) for i, o in zip(ins, outs)]
        k = [int(i) - (int(o) - 1) * si for i, o, si in zip(ins, outs, s)]
        b.node("%sPool" % kind, [b.inp(x)], [y],
               {"kernel_shape": k, "strides": s, "pads": [0] * (2 * len(k))})
    return rule



def mean(b, args, kw, out):
    x = args[0]
    dims = _arg(args, kw, 1, "dim", None)
    keep = bool(_arg(args, kw, 2, "keepdim", False))
    r = _ndim(x)
    axes = sorted(int(d) % r for d in dims) if dims else list(range(r))
    # a spatial mean of an image batch (what F.adaptive_avg_pool2d(x, 1)
    # becomes); a mean over the last axis of a sequence stays a ReduceMean
    if keep and r >= 4 and axes == list(range(2, r)):
        b.node("GlobalAveragePool", [b.inp(x)], [out])
    else:
        b.node("ReduceMean", [b.inp(x)], [out],
               {"axes": axes, "keepdims": int(keep)})


def variance(root=False, with_mean=False):
    """var / std (x, dim, *, correction, keepdim), and var_mean / std_mean
    (which also return the mean), as the two-pass textbook computes them:
    the mean (ReduceMean, dims kept), x minus it (Sub), squared (Mul),
    summed (ReduceSum), divided by max(0, n - correction) (Div), and for
    std its Sqrt. The older overloads pass `unbiased` (a bool) in place of
    correction: True is a correction of 1."""
    def rule(b, args, kw, out):
        x = args[0]
        r = _ndim(x)
        dims = _arg(args, kw, 1, "dim", None)
        unbiased = None
        if isinstance(dims, bool):  # var.default(self, unbiased): no dim
            unbiased, dims = dims, None
        if isinstance(dims, int):
            dims = [dims]
        axes = sorted(int(d) % r for d in dims) if dims else list(range(r))
        if "correction" in kw:
            corr = kw["correction"]
        elif unbiased is not None:
            corr = int(unbiased)
        elif len(args) > 2 and isinstance(args[2], bool):
            corr = int(args[2])
        else:
            corr = _arg(args, kw, 2, "unbiased", None)
        corr = 1 if corr is None else float(corr)
        keep = bool(kw.get("keepdim", args[3] if len(args) > 3 else False))
        outs = _outs(out)
        res = outs[0]
        n = _prod(int(x.shape[a]) for a in axes)
        kept = [1 if k in axes else int(d) for k, d in enumerate(x.shape)]
        m = b.fresh(x.dtype, kept)
        b.node("ReduceMean", [b.inp(x)], [m], {"axes": axes, "keepdims": 1})
        dev = b.fresh_like(x)
        b.node("Sub", [b.inp(x), b.name(m)], [dev])
        sq = b.fresh_like(x)
        b.node("Mul", [b.name(dev), b.name(dev)], [sq])
        total = b.fresh(x.dtype, list(res.shape))
        b.node("ReduceSum", [b.name(sq), b.const(axes)], [total],
               {"keepdims": int(keep)})
        var = b.fresh(x.dtype, list(res.shape)) if root else res
        div = max(0.0, n - corr)
        b.node("Div", [b.name(total), b.scalar(div, x)], [var])
        if root:
            b.node("Sqrt", [b.name(var)], [res])
        if with_mean:
            b.node("Reshape", [b.name(m), b.const(list(outs[1].shape))],
                   [outs[1]])
    return rule


def reduce_sum(b, args, kw, out):
    x = args[0]
    dims = _arg(args, kw, 1, "dim", None)
    keep = bool(_arg(args, kw, 2, "keepdim", False))
    r = _ndim(x)
    if not isinstance(dims, (list, tuple)) or not dims:
        dims = list(range(r))  # sum.default (or a dtype in slot 1)
    axes = sorted(int(d) % r for d in dims)
    b.node("ReduceSum", [b.inp(x), b.const(axes)], [out],
           {"keepdims": int(keep)})


def reduce_attr(op):
    def rule(b, args, kw, out):
        x = args[0]
        dims = _arg(args, kw, 1, "dim", None)
        keep = bool(_arg(args, kw, 2, "keepdim", False))
        r = _ndim(x)
        if isinstance(dims, int):
            dims = [dims]
        axes = sorted(int(d) % r for d in dims) if dims else list(range(r))
        b.node(op, [b.inp(x)], [_outs(out)[0]],
               {"axes": axes, "keepdims": int(keep)})
    return rule


def vector_norm(name):
    """norm(x, p, dim, keepdim) / linalg_vector_norm(x, ord, dim, keepdim)
    as torch.onnx exports them: ReduceL2 / ReduceL1 for the orders 2 and
    1, ReduceMax / ReduceMin of Abs for +-inf, and any other order p as
    (sum |x|^p)^(1/p) (Abs, Pow, ReduceSum, Pow). Order 0 (a count of the
    nonzero elements) has no entry."""
    def rule(b, args, kw, out):
        x = args[0]
        p = _arg(args, kw, 1, "p", 2)
        p = 2 if p is None else float(p)
        dims = _arg(args, kw, 2, "dim", None)
        keep = bool(_arg(args, kw, 3, "keepdim", False))
        if p == 0 or p != p:
            b.unmapped(name, args, out)
            return
        r = _ndim(x)
        if isinstance(dims, int):
            dims = [dims]
        axes = sorted(int(d) % r for d in dims) if dims else list(range(r))
        reduced = {"axes": axes, "keepdims": int(keep)}
        if p in (1.0, 2.0):
            b.node("ReduceL2" if p == 2.0 else "ReduceL1", [b.inp(x)], [out],
                   reduced)
            return
        a = b.fresh_like(x)
        b.node("Abs", [b.inp(x)], [a])
        if math.isinf(p):
            b.node("ReduceMax" if p > 0 else "ReduceMin", [b.name(a)], [out],
                   reduced)
            return
        powered = b.fresh_like(x)
        b.node("Pow", [b.name(a), b.scalar(p, x)], [powered])
        total = b.fresh(x.dtype, list(out.shape))
        b.node("ReduceSum", [b.name(powered), b.const(axes)], [total],
               {"keepdims": int(keep)})
        b.node("Pow", [b.name(total), b.scalar(1.0 / p, x)], [out])
    return rule


# ---- layout ----

def reshape_to(b, src, dims, out):
    """A Reshape of the value `src` to exactly `dims`. A zero there is a
    zero-size dim (allowzero), not ONNX's "copy the input's dim"."""
    dims = [int(d) for d in dims]
    b.node("Reshape", [src, b.const(dims)], [out],
           {"allowzero": 1} if 0 in dims else None)


def reshape(b, args, kw, out):
    reshape_to(b, b.inp(args[0]), list(out.shape), out)


def as_strided(b, args, kw, out):
    """as_strided(x, size, stride[, offset]): a Reshape when the view has
    x's element count; otherwise (Longformer's overlapping chunks, a
    diagonal) the elements it reads, a Gather of x flattened by indices of
    the view's shape (a constant known by shape alone), as Expand stands
    for expand's view."""
    x = args[0]
    n, m = _prod(x.shape), _prod(out.shape)
    if n == m:
        reshape(b, args, kw, out)
        return
    flat = b.fresh(x.dtype, [n])
    reshape_to(b, b.inp(x), [n], flat)
    b.node("Gather", [b.name(flat), _positions(b, out.shape)], [out],
           {"axis": 0})


def expand(b, args, kw, out):
    b.node("Expand", [b.inp(args[0]), b.const(list(out.shape))], [out])


def permute(b, args, kw, out):
    b.node("Transpose", [b.inp(args[0])], [out],
           {"perm": [int(d) % _ndim(args[0]) for d in args[1]]})


def transpose(b, args, kw, out):
    x = args[0]
    r = _ndim(x)
    if r < 2:
        b.alias(out, x)
        return
    d0, d1 = (int(args[1]) % r, int(args[2]) % r) if len(args) > 2 \
        else (r - 2, r - 1)
    perm = list(range(r))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    b.node("Transpose", [b.inp(x)], [out], {"perm": perm})


def cat(b, args, kw, out):
    # PyTorch skips legacy empty 1-D tensors beside others; all of them
    # empty still concatenate
    ts = [t for t in args[0] if t.numel() > 0 or _ndim(t) > 1] \
        or list(args[0])
    axis = int(_arg(args, kw, 1, "dim", 0))
    b.node("Concat", [b.inp(t) for t in ts], [out], {"axis": axis})


def stack(b, args, kw, out):
    axis = int(_arg(args, kw, 1, "dim", 0))
    ins = []
    for t in args[0]:
        u = b.fresh(t.dtype, list(t.shape[:axis % (_ndim(t) + 1)]) + [1]
                    + list(t.shape[axis % (_ndim(t) + 1):]))
        b.node("Unsqueeze", [b.inp(t), b.const([axis])], [u])
        ins.append(b.name(u))
    b.node("Concat", ins, [out], {"axis": axis})


def split(b, args, kw, out):
    x, outs = args[0], [o for o in _outs(out)]
    axis = int(_arg(args, kw, 2, "dim", 0)) % _ndim(x)
    sizes = [int(o.shape[axis]) for o in outs]
    b.node("Split", [b.inp(x), b.const(sizes)], outs, {"axis": axis})


def unbind(b, args, kw, out):
    x, outs = args[0], _outs(out)
    axis = int(_arg(args, kw, 1, "dim", 0)) % _ndim(x)
    parts = [b.fresh(o.dtype, list(o.shape[:axis]) + [1] + list(o.shape[axis:]))
             for o in outs]
    b.node("Split", [b.inp(x), b.const([1] * len(outs))], parts, {"axis": axis})
    for p, o in zip(parts, outs):
        b.node("Squeeze", [b.name(p), b.const([axis])], [o])


def slice_(b, args, kw, out):
    x = args[0]
    dim = int(_arg(args, kw, 1, "dim", 0)) % _ndim(x)
    start = _arg(args, kw, 2, "start", None)
    end = _arg(args, kw, 3, "end", None)
    step = int(_arg(args, kw, 4, "step", 1))
    big = 2 ** 62
    start = 0 if start is None else max(-big, min(big, int(start)))
    end = big if end is None else max(-big, min(big, int(end)))
    b.node("Slice", [b.inp(x), b.const([start]), b.const([end]),
                     b.const([dim]), b.const([step])], [out])


def flip(b, args, kw, out):
    # as torch.onnx exports it: a Slice with step -1 on every flipped dim
    x = args[0]
    dims = [int(d) % _ndim(x) for d in args[1]]
    if not dims:
        b.alias(out, x)
        return
    k = len(dims)
    b.node("Slice", [b.inp(x), b.const([-1] * k), b.const([-2 ** 62] * k),
                     b.const(dims), b.const([-1] * k)], [out])


def select(b, args, kw, out):
    x = args[0]
    dim = int(args[1]) % _ndim(x)
    b.node("Gather", [b.inp(x), b.const(int(args[2]), scalar=True)], [out],
           {"axis": dim})


def _int64(b, t, shape):
    """An index tensor as int64 of `shape` (PyTorch broadcasts index
    tensors together and takes int32 ones too; ONNX wants one int64 shape)."""
    import torch
    name = b.inp(t)
    if t.dtype != torch.int64:
        c = b.fresh(torch.int64, list(t.shape))
        b.node("Cast", [name], [c], {"to": b.onnx_dtype(c.dtype)})
        name = b.name(c)
    if list(t.shape) != list(shape):
        e = b.fresh(torch.int64, list(shape))
        b.node("Expand", [name, b.const(list(shape))], [e])
        name = b.name(e)
    return name


def _advanced_index(b, x, idx):
    """x[idx] for integer index tensors: (data name, stacked indices name,
    broadcast shape, indexed dims, data transposed so they lead), or None
    when an index is boolean (a mask: its size is data-dependent)."""
    import torch
    used = [(d, t) for d, t in enumerate(idx) if t is not None]
    if not used or any(t.dtype == torch.bool or t.dtype.is_floating_point
                       for _, t in used):
        return None
    dims = [d for d, _ in used]
    bshape = list(torch.broadcast_shapes(*[tuple(t.shape) for _, t in used]))
    r = _ndim(x)
    perm = dims + [d for d in range(r) if d not in dims]
    data = b.inp(x)
    if perm != list(range(r)):
        xt = b.fresh(x.dtype, [int(x.shape[d]) for d in perm])
        b.node("Transpose", [data], [xt], {"perm": perm})
        data = b.name(xt)
    parts = []
    for _, t in used:
        u = b.fresh(torch.int64, bshape + [1])
        b.node("Unsqueeze", [_int64(b, t, bshape), b.const([-1])], [u])
        parts.append(b.name(u))
    if len(parts) == 1:
        stacked = parts[0]
    else:
        s = b.fresh(torch.int64, bshape + [len(parts)])
        b.node("Concat", parts, [s], {"axis": -1})
        stacked = b.name(s)
    return data, stacked, bshape, dims


def index(b, args, kw, out):
    """x[i0, i1, ...] (aten.index.Tensor): one index tensor is a Gather on
    its dim; several are a GatherND over the indexed dims (moved to the
    front as PyTorch does when they are not adjacent, and back in place
    when they are)."""
    x, idx = args[0], list(args[1])
    used = [(d, t) for d, t in enumerate(idx) if t is not None]
    if len(used) == 1 and not used[0][1].dtype.is_floating_point \
            and str(used[0][1].dtype) != "torch.bool":
        d, t = used[0]
        b.node("Gather", [b.inp(x), b.inp(t)], [out], {"axis": d})
        return
    if _leading_mask(x, idx):
        _masked_rows(b, x, idx[0], out)
        return
    picked = _advanced_index(b, x, idx)
    if picked is None:
        b.unmapped("index", args, out)
        return
    data, stacked, bshape, dims = picked
    rest = [int(x.shape[d]) for d in range(_ndim(x)) if d not in dims]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if not adjacent or dims[0] == 0:
        b.node("GatherND", [data, stacked], [out])
        return
    g = b.fresh(x.dtype, bshape + rest)
    b.node("GatherND", [data, stacked], [g])
    nb, d0 = len(bshape), dims[0]
    perm = list(range(nb, nb + d0)) + list(range(nb)) \
        + list(range(nb + d0, nb + len(rest)))
    b.node("Transpose", [b.name(g)], [out], {"perm": perm})


def _leading_mask(x, idx):
    """Whether x[idx] is x[mask]: one boolean index over x's leading dims."""
    return len(idx) == 1 and idx[0] is not None \
        and str(idx[0].dtype) == "torch.bool" and _ndim(idx[0]) <= _ndim(x)


def _flat_rows(b, x, lead):
    """x with its first `lead` dims flattened into one: (name, shape)."""
    shape = [_prod(x.shape[:lead])] + [int(d) for d in x.shape[lead:]]
    flat = b.fresh(x.dtype, shape)
    reshape_to(b, b.inp(x), shape, flat)
    return b.name(flat), shape


def _positions(b, dims):
    """An int64 index constant of shape `dims` known by shape alone: the
    positions a view, an unfold or a mask picks are data, how many is in
    the recorded shapes, and a Gather or ScatterND moves as much either
    way (no index tensor is shipped)."""
    import torch
    return b.filler([int(d) for d in dims], torch.empty(0, dtype=torch.int64))


def _masked_rows(b, x, mask, out):
    """x[mask] (a mask over the leading dims): a Gather of the selected
    rows of x flattened over those dims, as many as PyTorch selected (the
    output's first dim)."""
    flat, _ = _flat_rows(b, x, _ndim(mask))
    b.node("Gather", [flat, _positions(b, [out.shape[0]])], [out], {"axis": 0})


def _fills(v, rest):
    """Whether values v broadcast over every masked position's rest dims
    (x[mask] = v with v one value, or one row)."""
    import torch
    if int(v.numel()) == 1:
        return True
    if _ndim(v) > len(rest):
        return False
    try:
        return list(torch.broadcast_shapes(tuple(v.shape), tuple(rest))) \
            == [int(d) for d in rest]
    except RuntimeError:
        return False


def index_put(b, args, kw, out):
    """x[i0, ...] = v (accumulate: +=): a ScatterND over the indexed dims
    (leading and adjacent, as models write it); x[mask] = v is a
    Where (v one value or one row for every masked position)."""
    import torch
    x, idx, v = args[0], list(args[1]), args[2]
    acc = bool(_arg(args, kw, 3, "accumulate", False))
    used = [(d, t) for d, t in enumerate(idx) if t is not None]
    if len(used) == 1 and used[0][1].dtype == torch.bool and not acc \
            and used[0][0] == 0 and _fills(v, x.shape[_ndim(used[0][1]):]):
        m = used[0][1]
        cond = b.inp(m)
        if _ndim(m) < _ndim(x):  # a mask over the leading dims
            c = b.fresh(torch.bool, list(m.shape) + [1] * (_ndim(x) - _ndim(m)))
            b.node("Reshape", [cond, b.const(list(c.shape))], [c])
            cond = b.name(c)
        b.node("Where", [cond, b.inp(v), b.inp(x)], [out])
        return
    if _leading_mask(x, idx) and _ndim(v) >= 1 and \
            list(v.shape[1:]) == [int(d) for d in x.shape[_ndim(idx[0]):]]:
        # x[mask] = v, v a row for each masked position: a ScatterND of
        # v's rows into x flattened over the mask's dims
        flat, shape = _flat_rows(b, x, _ndim(idx[0]))
        y = b.fresh(x.dtype, shape)
        b.node("ScatterND", [flat, _positions(b, [v.shape[0], 1]), b.inp(v)],
               [y], {"reduction": "add"} if acc else {})
        reshape_to(b, b.name(y), list(x.shape), out)
        return
    dims = [d for d, _ in used]
    if not used or dims != list(range(len(dims))):
        b.unmapped("index_put", args, out)
        return
    picked = _advanced_index(b, x, idx)
    if picked is None:
        b.unmapped("index_put", args, out)
        return
    data, stacked, bshape, _ = picked
    ushape = bshape + [int(s) for s in x.shape[len(dims):]]
    upd = b.inp(v)
    if list(v.shape) != ushape:
        e = b.fresh(v.dtype, ushape)
        b.node("Expand", [upd, b.const(ushape)], [e])
        upd = b.name(e)
    b.node("ScatterND", [data, stacked, upd], [out],
           {"reduction": "add"} if acc else {})


def index_copy(b, args, kw, out):
    """index_copy(x, dim, index, source): x with its slices `index` along
    dim replaced by source's (a static KV cache's update): a ScatterND of
    source's slices, dim moved to the front and back."""
    import torch
    x, dim, ix, src = args[0], int(args[1]) % max(1, _ndim(args[0])), \
        args[2], args[3]
    r = _ndim(x)
    perm = [dim] + [d for d in range(r) if d != dim]
    # each tensor named where a node first reads it, as the library's
    # lowering reads it: source at its Transpose, or at the ScatterND
    data = b.inp(x)
    if dim:
        xt = b.fresh(x.dtype, [int(x.shape[d]) for d in perm])
        b.node("Transpose", [data], [xt], {"perm": perm})
        upd = b.inp(src)
        st = b.fresh(src.dtype, [int(src.shape[d]) for d in perm])
        b.node("Transpose", [upd], [st], {"perm": perm})
        data, upd = b.name(xt), b.name(st)
    u = b.fresh(torch.int64, [int(ix.numel()), 1])
    b.node("Unsqueeze", [_int64(b, ix, [int(ix.numel())]), b.const([-1])], [u])
    if not dim:
        b.node("ScatterND", [data, b.name(u), b.inp(src)], [out])
        return
    y = b.fresh(x.dtype, [int(x.shape[d]) for d in perm])
    b.node("ScatterND", [data, b.name(u), upd], [y])
    back = [perm.index(d) for d in range(r)]
    b.node("Transpose", [b.name(y)], [out], {"perm": back})


def masked_scatter(b, args, kw, out):
    """x.masked_scatter(mask, source): x's elements where mask (broadcast
    to x) holds, filled in order from source's first elements
    (vision-language models merging image features into the text
    embeddings). A ScatterND of that many source elements into x
    flattened; how many is the mask's value (tracked on meta, real on the
    model's device), else the op is uncounted."""
    x, mask, src = args[0], args[1], args[2]
    m = b.value_of(mask)
    if m is None:
        b.unmapped("masked_scatter", args, out)
        return
    count = int(m.expand(x.shape).sum())
    n = _prod(x.shape)
    flat = b.fresh(x.dtype, [n])
    reshape_to(b, b.inp(x), [n], flat)
    first = b.fresh(src.dtype, [count])
    reshape_src = b.fresh(src.dtype, [_prod(src.shape)])
    reshape_to(b, b.inp(src), [_prod(src.shape)], reshape_src)
    b.node("Slice", [b.name(reshape_src), b.const([0]), b.const([count]),
                     b.const([0])], [first])
    y = b.fresh(x.dtype, [n])
    b.node("ScatterND", [b.name(flat), _positions(b, [count, 1]),
                         b.name(first)], [y])
    reshape_to(b, b.name(y), list(x.shape), out)


def gather(b, args, kw, out):
    # torch.gather(x, dim, index): ONNX GatherElements
    b.node("GatherElements", [b.inp(args[0]), b.inp(args[2])], [out],
           {"axis": int(args[1])})


def unique(has_dim):
    """torch.unique (_unique2, _unique) and unique_consecutive (has_dim:
    its dim argument) over the flattened input: ONNX's Unique, whose count
    is data, so each output takes the shape PyTorch produced. Along a dim:
    no entry."""
    def rule(b, args, kw, out):
        import torch
        x = args[0]
        if has_dim and _arg(args, kw, 3, "dim", None) is not None:
            b.unmapped("unique_consecutive", args, out)
            return
        outs = _outs(out)
        n = int(outs[0].shape[0])

        def own(k, shape):
            t = outs[k] if len(outs) > k else None
            return t if t is not None and list(t.shape) == shape \
                else b.fresh(torch.int64, shape)
        ys = [outs[0], b.fresh(torch.int64, [n]), own(1, [x.numel()]),
              own(2, [n])]
        b.node("Unique", [b.inp(x)], ys, {"sorted": 0})
        for t in ys:
            b.data_shaped(t)
    return rule


def nonzero(b, args, kw, out):
    """nonzero(x) -> (count, rank) int64: ONNX's NonZero, (rank, count),
    then a Transpose. The count is data: NonZero's rule leaves it unknown
    and takes the one PyTorch found (declared; on meta, from the tracked
    value of x, shadow.py)."""
    import torch
    x = args[0]
    t = b.fresh(torch.int64, [_ndim(x), int(out.shape[0])])
    b.node("NonZero", [b.inp(x)], [t])
    b.data_shaped(t)
    b.node("Transpose", [b.name(t)], [out], {"perm": [1, 0]})
    b.data_shaped(out)


def repeat_interleave(b, args, kw, out):
    """repeat_interleave(repeats) (the Tensor overload: what
    x.repeat_interleave(tensor, dim) runs before its index_select) gives
    each output position the index of the repeat it falls in; with x first
    (x, repeats, dim), x's rows repeated. Either is a Gather of as many
    positions as PyTorch made (sum(repeats): data, in the recorded shape),
    one read and one write per output element."""
    if len(args) == 1 or not isinstance(args[1], (int, type(args[0]))):
        b.node("Gather", [b.inp(args[0]), _positions(b, [out.shape[0]])],
               [out], {"axis": 0})
        return
    x, dim = args[0], _arg(args, kw, 2, "dim")
    src = b.inp(x)
    if dim is None:  # over the flattened input
        flat = b.fresh(x.dtype, [int(x.numel())])
        b.node("Reshape", [src, b.const([-1])], [flat])
        src, dim = b.name(flat), 0
    dim = int(dim) % max(_ndim(out), 1)
    b.node("Gather", [src, _positions(b, [out.shape[dim]])], [out],
           {"axis": dim})


def index_select(b, args, kw, out):
    b.node("Gather", [b.inp(args[0]), b.inp(args[2])], [out],
           {"axis": int(args[1])})


def scatter(reduction=None):
    """scatter / scatter_add / scatter_reduce(x, dim, index, src[, reduce]):
    ScatterElements (a number as src is expanded to the index's shape)."""
    def rule(b, args, kw, out):
        x, dim, ix, src = args[0], int(args[1]), args[2], args[3]
        red = reduction
        if red is None and _arg(args, kw, 4, "reduce") is not None:
            # scatter(..., reduce="add" | "multiply")
            red = {"add": "add", "multiply": "mul"}.get(
                str(_arg(args, kw, 4, "reduce")), "unknown")
            if red == "unknown":
                b.unmapped("scatter", args, out)
                return
        if red == "reduce":
            red = {"sum": "add", "prod": "mul", "amax": "max",
                   "amin": "min"}.get(str(_arg(args, kw, 4, "reduce")))
            if red is None:  # mean has no ONNX reduction
                b.unmapped("scatter_reduce", args, out)
                return
        upd = None
        if not b.is_tensor(src):
            e = b.fresh(x.dtype, list(ix.shape))
            b.node("Expand", [b.scalar(src, x), b.const(list(ix.shape))], [e])
            upd = b.name(e)
        # the tensors named in the order the node reads them, as the
        # library's lowering reads them (src after index)
        ins = [b.inp(x), b.inp(ix), upd or b.inp(src)]
        b.node("ScatterElements", ins, [out],
               dict({"axis": dim}, **({"reduction": red} if red else {})))
    return rule


def embedding(b, args, kw, out):
    b.node("Gather", [b.inp(args[0]), b.inp(args[1])], [out], {"axis": 0})


def _onnx_pads(x, pad):
    """PyTorch's pad list (last dim first, each as (begin, end)) as ONNX's
    pads: every dim's begin, then every dim's end."""
    r = _ndim(x)
    begin, end = [0] * r, [0] * r
    for i in range(len(pad) // 2):
        begin[r - 1 - i], end[r - 1 - i] = int(pad[2 * i]), int(pad[2 * i + 1])
    return begin + end


def constant_pad_nd(b, args, kw, out):
    x = args[0]
    value = float(_arg(args, kw, 2, "value", 0))
    b.node("Pad", [b.inp(x), b.const(_onnx_pads(x, args[1])),
                   b.scalar(value, x)], [out], {"mode": "constant"})


def mode_pad(mode):
    """reflection_pad{1,2,3}d / replication_pad{1,2,3}d (x, padding): Pad
    with mode "reflect" / "edge" over the last len(padding) / 2 dims
    (PyTorch lists them last dim first, each as (begin, end))."""
    def rule(b, args, kw, out):
        x = args[0]
        b.node("Pad", [b.inp(x), b.const(_onnx_pads(x, args[1]))], [out],
               {"mode": mode})
    return rule


def bucketize(name):
    """bucketize(x, boundaries, out_int32, right), and searchsorted over a
    1-D sorted sequence (the same search, arguments the other way round):
    the library's pytorch.aten bucketize entry (ONNX has no operator for
    it), a binary search per element."""
    def rule(b, args, kw, out):
        import torch
        x, seq = (args[1], args[0]) if name == "searchsorted" \
            else (args[0], args[1])
        if not isinstance(x, torch.Tensor) or \
                not isinstance(seq, torch.Tensor) or seq.dim() != 1:
            b.unmapped(name, args, out)
            return
        right = bool(kw.get("right", False)) or kw.get("side") == "right"
        b.node("bucketize", [b.inp(x), b.inp(seq)], [out],
               {"out_int32": int(bool(kw.get("out_int32", False))),
                "right": int(right)}, domain="pytorch.aten")
    return rule


def log_sigmoid(b, args, kw, out):
    """log_sigmoid_forward(x) -> (y, buffer): y = log(sigmoid(x)), a
    Sigmoid then a Log (the buffer, where PyTorch fills one, holds the
    sigmoid's intermediate)."""
    outs = _outs(out)
    y = outs[0]
    buf = outs[1] if len(outs) > 1 and isinstance(outs[1], type(y)) \
        and list(outs[1].shape) == list(y.shape) else b.fresh_like(y)
    b.node("Sigmoid", [b.inp(args[0])], [buf])
    b.node("Log", [b.name(buf)], [y])


def im2col(b, args, kw, out):
    """im2col(x [N, C, H, W] or [C, H, W], kernel, dilation, padding,
    stride) -> [N, C*kh*kw, L], F.unfold's kernel: pure data movement, so
    a Pad, the padded plane flattened, one Gather of the kh*kw*L sampled
    positions (_positions) and a Reshape to the output."""
    x = args[0]
    kh, kw_ = (int(v) for v in _ints(args[1], 2))
    ph, pw = (int(v) for v in _ints(args[3], 2))
    r = _ndim(x)
    if r not in (3, 4):
        b.unmapped("im2col", args, out)
        return
    lead = list(x.shape[:-2])
    src = b.inp(x)
    if ph or pw:
        padded = b.fresh(x.dtype, lead + [int(x.shape[-2]) + 2 * ph,
                                          int(x.shape[-1]) + 2 * pw])
        zeros = [0] * (r - 2)
        b.node("Pad", [src, b.const(zeros + [ph, pw] + zeros + [ph, pw]),
                       b.scalar(0.0, x)], [padded], {"mode": "constant"})
        src = b.name(padded)
        plane = int(padded.shape[-2]) * int(padded.shape[-1])
    else:
        plane = int(x.shape[-2]) * int(x.shape[-1])
    flat = b.fresh(x.dtype, lead + [plane])
    reshape_to(b, src, lead + [plane], flat)
    positions = int(out.shape[-1])
    picked = b.fresh(x.dtype, lead + [kh * kw_, positions])
    b.node("Gather", [b.name(flat), _positions(b, [kh * kw_, positions])],
           [picked], {"axis": r - 2})
    reshape_to(b, b.name(picked), list(out.shape), out)


def col2im(b, args, kw, out):
    """col2im(cols [N, C*kh*kw, L] or [C*kh*kw, L], output_size, kernel,
    dilation, padding, stride) -> [N, C, H, W], F.fold's kernel: im2col's
    inverse, each column element added into its place of the padded image
    (a ScatterElements with reduction add into zeros, at positions known
    by shape alone: _positions), then the padding cropped (a Slice), as
    im2col pads first."""
    x = args[0]
    kh, kw_ = (int(v) for v in _ints(args[2], 2))
    ph, pw = (int(v) for v in _ints(args[4], 2))
    if _ndim(x) not in (2, 3) or _ndim(out) != _ndim(x) + 1:
        b.unmapped("col2im", args, out)
        return
    lead = list(out.shape[:-2])  # [N, C] or [C]
    h, w = int(out.shape[-2]), int(out.shape[-1])
    plane = (h + 2 * ph) * (w + 2 * pw)
    cols = b.fresh(x.dtype, lead + [kh * kw_ * int(x.shape[-1])])
    reshape_to(b, b.inp(x), list(cols.shape), cols)
    added = b.fresh(x.dtype, lead + [plane])
    axis = len(lead)
    b.node("ScatterElements", [b.filler(lead + [plane], x),
                               _positions(b, list(cols.shape)), b.name(cols)],
           [added], {"axis": axis, "reduction": "add"})
    if not (ph or pw):
        reshape_to(b, b.name(added), list(out.shape), out)
        return
    image = b.fresh(x.dtype, lead + [h + 2 * ph, w + 2 * pw])
    reshape_to(b, b.name(added), list(image.shape), image)
    b.node("Slice", [b.name(image), b.const([ph, pw]),
                     b.const([ph + h, pw + w]), b.const([axis, axis + 1])],
           [out])


# grid_sampler_2d's interpolation and padding_mode numbers (PyTorch's
# GridSamplerInterpolation / GridSamplerPadding) as GridSample-16 names
_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDING = ("zeros", "border", "reflection")


def grid_sampler_2d(b, args, kw, out):
    """grid_sampler_2d(x [N, C, H, W], grid [N, Ho, Wo, 2], interpolation,
    padding_mode, align_corners): ONNX GridSample (F.grid_sample's kernel)."""
    x, grid = args[0], args[1]
    mode, pad = int(args[2]), int(args[3])
    if not (0 <= mode < len(_GRID_MODES) and 0 <= pad < len(_GRID_PADDING)):
        b.unmapped("grid_sampler_2d", args, out)
        return
    b.node("GridSample", [b.inp(x), b.inp(grid)], [out],
           {"mode": _GRID_MODES[mode], "padding_mode": _GRID_PADDING[pad],
            "align_corners": int(bool(args[4]))})


def resize(mode, antialias=False):
    """upsample_* (and the antialiased _upsample_*_aa: ONNX's antialias)."""
    def rule(b, args, kw, out):
        x = args[0]
        attrs = {"mode": mode}
        if antialias:
            attrs["antialias"] = 1
        if mode == "linear" or mode == "cubic":
            ac = _arg(args, kw, 2, "align_corners", False)
            attrs["coordinate_transformation_mode"] = \
                "align_corners" if ac else "pytorch_half_pixel"
        else:
            attrs["coordinate_transformation_mode"] = "asymmetric"
            attrs["nearest_mode"] = "floor"
        b.node("Resize", [b.inp(x), "", "", b.const(list(out.shape))], [out],
               attrs)
    return rule


def roll(b, args, kw, out):
    """torch.roll as torch.onnx exports it: per dim, two Slices + Concat."""
    x = args[0]
    shifts = _ints(args[1], 1)
    dims = _ints(_arg(args, kw, 2, "dims", []), 1) if _arg(args, kw, 2, "dims", []) \
        else None
    if dims is None:  # flattened roll: no dims
        b.unmapped("roll", args, out)
        return
    cur, r = x, _ndim(x)
    for i, (sh, d) in enumerate(zip(shifts, dims)):
        d %= r
        n = int(x.shape[d])
        sh %= n
        last = i == len(dims) - 1
        if sh == 0:
            continue
        tail_dims = list(cur.shape)
        tail_dims[d] = sh
        head_dims = list(cur.shape)
        head_dims[d] = n - sh
        tail, head = b.fresh(x.dtype, tail_dims), b.fresh(x.dtype, head_dims)
        src = b.inp(cur) if b.is_tensor(cur) and cur is x else b.name(cur)
        b.node("Slice", [src, b.const([n - sh]), b.const([n]), b.const([d])],
               [tail])
        b.node("Slice", [src, b.const([0]), b.const([n - sh]), b.const([d])],
               [head])
        nxt = out if last else b.fresh_like(x)
        b.node("Concat", [b.name(tail), b.name(head)], [nxt], {"axis": d})
        cur = nxt
    if cur is x:
        b.alias(out, x)
    elif cur is not out:
        b.alias(out, cur)


def pixel_shuffle(b, args, kw, out):
    b.node("DepthToSpace", [b.inp(args[0])], [out],
           {"blocksize": int(args[1]), "mode": "CRD"})


def to_copy(b, args, kw, out):
    x = args[0]
    if out.dtype == x.dtype:
        b.alias(out, x)
    else:
        b.node("Cast", [b.inp(x)], [out], {"to": b.onnx_dtype(out.dtype)})


def trilu(upper):
    def rule(b, args, kw, out):
        k = int(_arg(args, kw, 1, "diagonal", 0))
        b.node("Trilu", [b.inp(args[0]), b.const(k, scalar=True)], [out],
               {"upper": int(upper)})
    return rule


def cumsum(b, args, kw, out):
    b.node("CumSum", [b.inp(args[0]), b.const(int(args[1]), scalar=True)],
           [out])


def dropout(b, args, kw, out):
    b.node("Dropout", [b.inp(args[0])], [_outs(out)[0]])


def copy_(b, args, kw, out):
    # dst.copy_(src): dst now holds src's values
    b.alias(out, args[1])


# ---- attention ----

def _attention(b, q, k, v, mask, scale, out, causal=False):
    """softmax(q k^T * scale + mask) v as MatMul, Mul, Add, Softmax, MatMul.

    Grouped-query attention (fewer key/value heads than query heads, as the
    fused kernels take it): the query heads are grouped by the key/value
    head they share, [.., Hkv, G, L, E], against keys and values
    [.., Hkv, 1, S, E], so the MatMuls broadcast over the group as the
    kernel does, with no copy of k and v."""
    import torch
    L, S, E = int(q.shape[-2]), int(k.shape[-2]), int(q.shape[-1])
    qn, kn, vn = b.inp(q), b.inp(k), b.inp(v)
    mn = b.inp(mask) if mask is not None else None
    lead = list(q.shape[:-2])
    klead = list(k.shape[:-2])
    hq = int(q.shape[-3]) if _ndim(q) >= 3 else 1
    hkv = int(k.shape[-3]) if _ndim(k) >= 3 else 1
    if _ndim(q) >= 3 and _ndim(k) >= 3 and hkv != hq and hkv and hq % hkv == 0:
        g = hq // hkv

        def grouped(name, t, dims):
            r = b.fresh(t.dtype, dims)
            b.node("Reshape", [name, b.const(dims)], [r])
            return b.name(r)

        lead = list(q.shape[:-3]) + [hkv, g]
        qn = grouped(qn, q, lead + [L, E])
        klead = list(k.shape[:-3]) + [hkv, 1]
        kn = grouped(kn, k, klead + [S, E])
        vn = grouped(vn, v, list(v.shape[:-3]) + [hkv, 1] + list(v.shape[-2:]))
        if mask is not None and _ndim(mask) >= 3:
            mh = int(mask.shape[-3])
            heads = [hkv, g] if mh == hq else [mh, 1]
            mn = grouped(mn, mask, list(mask.shape[:-3]) + heads
                         + list(mask.shape[-2:]))
    kt = b.fresh(k.dtype, klead + [E, S])
    perm = list(range(len(kt.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    b.node("Transpose", [kn], [kt], {"perm": perm})
    scores = b.fresh(q.dtype, lead + [L, S])
    b.node("MatMul", [qn, b.name(kt)], [scores])
    scaled = b.fresh(q.dtype, lead + [L, S])
    s = 1.0 / math.sqrt(E) if scale is None else float(scale)
    b.node("Mul", [b.name(scores), b.scalar(s, q)], [scaled])
    if mask is not None or causal:
        masked = b.fresh(q.dtype, lead + [L, S])
        m = mn if mask is not None else b.filler([L, S], q)
        if mask is not None and mask.dtype == torch.bool:
            b.node("Where", [m, b.name(scaled), b.scalar(-math.inf, q)], [masked])
        else:
            b.node("Add", [b.name(scaled), m], [masked])
        scaled = masked
    probs = b.fresh(q.dtype, lead + [L, S])
    b.node("Softmax", [b.name(scaled)], [probs], {"axis": -1})
    if lead == list(q.shape[:-2]):
        b.node("MatMul", [b.name(probs), vn], [out])
        return
    grouped_out = b.fresh(out.dtype, lead + [L, int(out.shape[-1])])
    b.node("MatMul", [b.name(probs), vn], [grouped_out])
    b.node("Reshape", [b.name(grouped_out), b.const(list(out.shape))], [out])


def sdpa(b, args, kw, out):
    # (query, key, value, attn_mask=None, dropout_p=0, is_causal=False, *,
    #  scale, enable_gqa)
    mask = _arg(args, kw, 3, "attn_mask", None)
    causal = bool(_arg(args, kw, 5, "is_causal", False))
    _attention(b, args[0], args[1], args[2], mask, kw.get("scale"),
               _outs(out)[0], causal)


def sdpa_fused(mask_index, causal_index):
    """The fused 2.x kernels (flash, flash for CPU, efficient, cudnn): same
    algebra; first output is the attention output. The mask (attn_bias) is
    positional where `mask_index` says, else the attn_mask keyword."""
    def rule(b, args, kw, out):
        if mask_index is None:
            mask = kw.get("attn_mask")
        else:
            mask = _arg(args, kw, mask_index, "attn_bias", None)
        if not b.is_tensor(mask):
            mask = None
        causal = bool(_arg(args, kw, causal_index, "is_causal", False))
        _attention(b, args[0], args[1], args[2], mask, kw.get("scale"),
                   _outs(out)[0], causal)
    return rule


def _mha(b, x, E, h, w_in, b_in, w_out, b_out, mask, y):
    """Self-attention as F.multi_head_attention_forward (and the ONNX
    export) spell it: in-projection, per-head attention, out-projection."""
    B, L, d = int(x.shape[0]), int(x.shape[1]), E // h
    qkv = b.fresh(x.dtype, [B, L, 3 * E])
    b.node("MatMul", [b.inp(x), b.transposed(w_in)], [qkv])
    qkvb = b.fresh(x.dtype, [B, L, 3 * E])
    b.node("Add", [b.name(qkv), b.inp(b_in)], [qkvb])
    parts = [b.fresh(x.dtype, [B, L, E]) for _ in range(3)]
    b.node("Split", [b.name(qkvb), b.const([E, E, E])], parts, {"axis": 2})
    heads = []
    for p in parts:
        r = b.fresh(x.dtype, [B, L, h, d])
        reshape_to(b, b.name(p), list(r.shape), r)
        t = b.fresh(x.dtype, [B, h, L, d])
        b.node("Transpose", [b.name(r)], [t], {"perm": [0, 2, 1, 3]})
        heads.append(t)
    att = b.fresh(x.dtype, [B, h, L, d])
    _attention(b, heads[0], heads[1], heads[2], mask, None, att)
    merged_t = b.fresh(x.dtype, [B, L, h, d])
    b.node("Transpose", [b.name(att)], [merged_t], {"perm": [0, 2, 1, 3]})
    merged = b.fresh(x.dtype, [B, L, E])
    reshape_to(b, b.name(merged_t), [B, L, E], merged)
    proj = b.fresh(x.dtype, [B, L, E])
    b.node("MatMul", [b.name(merged), b.transposed(w_out)], [proj])
    b.node("Add", [b.name(proj), b.inp(b_out)], [y])


def native_mha(b, args, kw, out):
    """aten._native_multi_head_attention: nn.MultiheadAttention's fast path
    (eval, no_grad, CPU/CUDA), which runs only for self-attention."""
    mask = args[9] if len(args) > 9 and b.is_tensor(args[9]) else None
    _mha(b, args[0], int(args[3]), int(args[4]), args[5], args[6], args[7],
         args[8], mask, _outs(out)[0])


def _linear(b, x, w, bias, y):
    t = b.fresh(x.dtype, list(y.shape))
    b.node("MatMul", [b.name(x), b.transposed(w)], [t])
    b.node("Add", [b.name(t), b.inp(bias)], [y])


def transformer_encoder_layer(b, args, kw, out):
    """aten._transformer_encoder_layer_fwd, nn.TransformerEncoderLayer's
    fast path: attention block and feed-forward block, each with its
    residual add and LayerNorm (before or after, norm_first)."""
    (src, E, h, w_in, b_in, w_out, b_out, use_gelu, norm_first, eps,
     ln1_w, ln1_b, ln2_w, ln2_b, w1, b1, w2, b2) = args[:18]
    mask = args[18] if len(args) > 18 and b.is_tensor(args[18]) else None
    E, h = int(E), int(h)
    y = _outs(out)[0]
    shape, dt = list(src.shape), src.dtype

    def ln(x, w, bias):
        o = b.fresh(dt, shape)
        b.node("LayerNormalization", [b.name(x), b.inp(w), b.inp(bias)], [o],
               {"axis": -1, "epsilon": float(eps)})
        return o

    def alias_in(t):  # a fresh tensor standing for an existing value
        f = b.fresh(dt, shape)
        b.names[id(f)] = b.inp(t)
        b.hold(f)
        return f

    x = alias_in(src)
    a_in = ln(x, ln1_w, ln1_b) if norm_first else x
    att = b.fresh(dt, shape)
    _mha(b, a_in, E, h, w_in, b_in, w_out, b_out, mask, att)
    r1 = b.fresh(dt, shape)
    b.node("Add", [b.name(x), b.name(att)], [r1])
    x = r1 if norm_first else ln(r1, ln1_w, ln1_b)
    f_in = ln(x, ln2_w, ln2_b) if norm_first else x
    hid = b.fresh(dt, shape[:-1] + [int(w1.shape[0])])
    _linear(b, f_in, w1, b1, hid)
    act = b.fresh(dt, list(hid.shape))
    if use_gelu:
        b.node("Gelu", [b.name(hid)], [act], domain="com.microsoft")
    else:
        b.node("Relu", [b.name(hid)], [act])
    ff = b.fresh(dt, shape)
    _linear(b, act, w2, b2, ff)
    if norm_first:
        b.node("Add", [b.name(x), b.name(ff)], [y])
    else:
        r2 = b.fresh(dt, shape)
        b.node("Add", [b.name(x), b.name(ff)], [r2])
        b.node("LayerNormalization", [b.name(r2), b.inp(ln2_w), b.inp(ln2_b)],
               [y], {"axis": -1, "epsilon": float(eps)})


# ---- backward ops (summary(..., backward=True)) ----
#
# The gradient kernels autograd runs, spelled as the forward ops of equal
# work the table can cost.

def _conv_geometry(x, w, stride, padding, dilation):
    r = _ndim(w) - 2
    return (_ints(stride, r), _ints(padding, r), _ints(dilation, r),
            [int(k) for k in w.shape[2:]], r)


def convolution_backward(b, args, kw, out):
    """grad_input: the transposed convolution of grad_output by the weight
    (as many MACs as the forward); grad_weight: the correlation of the
    input with grad_output, as a grouped Conv whose batch is Cin/g and whose
    kernel is grad_output (as many MACs as the forward); grad_bias: a sum."""
    g_out, x, w = args[0], args[1], args[2]
    stride, padding, dilation = args[4], args[5], args[6]
    transposed, groups = args[7], int(args[9])
    gi, gw, gb = (list(out) + [None, None, None])[:3]
    s, p, d, k, r = _conv_geometry(x, w, stride, padding, dilation)
    if transposed:  # the backward of a ConvTranspose: leave to the table
        b.unmapped("convolution_backward", args, out)
        return
    if isinstance(gi, _tensor_type()):
        opad = []
        for i in range(r):
            full = (int(g_out.shape[2 + i]) - 1) * s[i] - 2 * p[i] \
                + d[i] * (k[i] - 1) + 1
            opad.append(int(x.shape[2 + i]) - full)
        b.node("ConvTranspose", [b.inp(g_out), b.inp(w)], [gi],
               {"kernel_shape": k, "strides": s, "pads": p + p,
                "dilations": d, "group": groups, "output_padding": opad})
    if isinstance(gw, _tensor_type()):
        n, cin, cout = int(x.shape[0]), int(x.shape[1]), int(w.shape[0])
        spatial_x = [int(v) for v in x.shape[2:]]
        spatial_y = [int(v) for v in g_out.shape[2:]]
        # x: (N, Cin, *S) -> (Cin/g, g*N, *S)
        x5 = b.fresh(x.dtype, [n, groups, cin // groups] + spatial_x)
        reshape_to(b, b.inp(x), list(x5.shape), x5)
        xt = b.fresh(x.dtype, [cin // groups, groups, n] + spatial_x)
        b.node("Transpose", [b.name(x5)], [xt],
               {"perm": [2, 1, 0] + list(range(3, 3 + r))})
        xin = b.fresh(x.dtype, [cin // groups, groups * n] + spatial_x)
        reshape_to(b, b.name(xt), list(xin.shape), xin)
        # grad_output: (N, Cout, *So) -> (Cout, N, *So)
        gt = b.fresh(g_out.dtype, [cout, n] + spatial_y)
        b.node("Transpose", [b.inp(g_out)], [gt],
               {"perm": [1, 0] + list(range(2, 2 + r))})
        # forward stride becomes dilation and vice versa; the end padding
        # is trimmed so the result is exactly the kernel's size
        end = [d[i] * (k[i] - 1) + 1 + s[i] * (spatial_y[i] - 1)
               - spatial_x[i] - p[i] for i in range(r)]
        if any(e < 0 for e in end):
            # input rows the forward never read (stride remainder): cut
            keep = [spatial_x[i] + min(0, end[i]) for i in range(r)]
            cut = b.fresh(x.dtype, [cin // groups, groups * n] + keep)
            b.node("Slice", [b.name(xin), b.const([0] * r), b.const(keep),
                             b.const(list(range(2, 2 + r)))], [cut])
            xin, end = cut, [max(0, e) for e in end]
        corr = b.fresh(x.dtype, [cin // groups, cout] + k)
        b.node("Conv", [b.name(xin), b.name(gt)], [corr],
               {"kernel_shape": spatial_y, "strides": d, "dilations": s,
                "pads": p + end, "group": groups})
        b.node("Transpose", [b.name(corr)], [gw],
               {"perm": [1, 0] + list(range(2, 2 + r))})
    if isinstance(gb, _tensor_type()):
        b.node("ReduceSum", [b.inp(g_out), b.const([0] + list(range(2, 2 + r)))],
               [gb], {"keepdims": 0})


def _tensor_type():
    import torch
    return torch.Tensor


def threshold_backward(b, args, kw, out):
    # grad * (x > threshold)
    g, x = args[0], args[1]
    cond = b.fresh(_bool(), list(x.shape))
    b.node("Greater", [b.inp(x), b.scalar(args[2], x)], [cond])
    b.node("Where", [b.name(cond), b.inp(g), b.scalar(0, g)], [out])


def _bool():
    import torch
    return torch.bool


def batch_norm_backward(b, args, kw, out):
    """Eval mode: grad_input is a per-channel affine map of grad_output (one
    BatchNormalization's work); grad_weight = sum(grad * x_hat) and
    grad_bias = sum(grad) over all but the channel axis. A gradient its
    output_mask leaves out is not computed, though PyTorch's meta kernel
    returns a tensor for it (the CPU kernel returns none)."""
    g, x, w = args[0], args[1], args[2]
    mask = _arg(args, kw, 9, "output_mask", (True, True, True))
    gi, gw, gb = [o if m else None for o, m in
                  zip((list(out) + [None, None, None])[:3], mask)]
    c = int(x.shape[1])
    axes = [0] + list(range(2, _ndim(x)))
    if isinstance(gi, _tensor_type()):
        b.node("BatchNormalization",
               [b.inp(g), b.inp(w) if w is not None else b.filler(c, x),
                b.filler(c, x), b.filler(c, x), b.filler(c, x)], [gi])
    if isinstance(gw, _tensor_type()):
        prod = b.fresh_like(g)
        b.node("Mul", [b.inp(g), b.inp(x)], [prod])
        b.node("ReduceSum", [b.name(prod), b.const(axes)], [gw], {"keepdims": 0})
    if isinstance(gb, _tensor_type()):
        b.node("ReduceSum", [b.inp(g), b.const(axes)], [gb], {"keepdims": 0})


def layer_norm_backward(b, args, kw, out):
    """grad_input as one LayerNormalization's work; grad_weight and
    grad_bias as sums over the leading axes."""
    g, x, shape, w = args[0], args[1], list(args[2]), args[5]
    gi, gw, gb = (list(out) + [None, None, None])[:3]
    lead = list(range(_ndim(x) - len(shape)))
    if isinstance(gi, _tensor_type()):
        b.node("LayerNormalization",
               [b.inp(g), b.inp(w) if w is not None else b.filler(shape, x)],
               [gi], {"axis": -len(shape)})
    if isinstance(gw, _tensor_type()):
        prod = b.fresh_like(g)
        b.node("Mul", [b.inp(g), b.inp(x)], [prod])
        b.node("ReduceSum", [b.name(prod), b.const(lead)], [gw], {"keepdims": 0})
    if isinstance(gb, _tensor_type()):
        b.node("ReduceSum", [b.inp(g), b.const(lead)], [gb], {"keepdims": 0})


def softmax_backward(b, args, kw, out):
    # y * (g - sum(g * y, dim))
    g, y, dim = args[0], args[1], int(args[2])
    gy = b.fresh_like(g)
    b.node("Mul", [b.inp(g), b.inp(y)], [gy])
    shape = list(g.shape)
    shape[dim] = 1
    ssum = b.fresh(g.dtype, shape)
    b.node("ReduceSum", [b.name(gy), b.const([dim % _ndim(g)])], [ssum],
           {"keepdims": 1})
    diff = b.fresh_like(g)
    b.node("Sub", [b.inp(g), b.name(ssum)], [diff])
    b.node("Mul", [b.inp(y), b.name(diff)], [out])


def silu_backward(b, args, kw, out):
    # g * s * (1 + x * (1 - s)), s = sigmoid(x)
    g, x = args[0], args[1]
    t = [b.fresh_like(x) for _ in range(5)]
    b.node("Sigmoid", [b.inp(x)], [t[0]])
    b.node("Sub", [b.scalar(1.0, x), b.name(t[0])], [t[1]])
    b.node("Mul", [b.inp(x), b.name(t[1])], [t[2]])
    b.node("Add", [b.name(t[2]), b.scalar(1.0, x)], [t[3]])
    b.node("Mul", [b.name(t[0]), b.name(t[3])], [t[4]])
    b.node("Mul", [b.inp(g), b.name(t[4])], [out])


def gelu_backward(b, args, kw, out):
    """g * (Phi(x) + x phi(x)): Phi = (1 + erf(x / sqrt 2)) / 2, phi =
    exp(-x^2 / 2) / sqrt(2 pi) (the tanh approximation costs alike)."""
    g, x = args[0], args[1]
    t = [b.fresh_like(x) for _ in range(10)]
    b.node("Div", [b.inp(x), b.scalar(math.sqrt(2.0), x)], [t[0]])
    b.node("Erf", [b.name(t[0])], [t[1]])
    b.node("Add", [b.name(t[1]), b.scalar(1.0, x)], [t[2]])
    b.node("Mul", [b.name(t[2]), b.scalar(0.5, x)], [t[3]])         # Phi
    b.node("Mul", [b.inp(x), b.inp(x)], [t[4]])
    b.node("Mul", [b.name(t[4]), b.scalar(-0.5, x)], [t[5]])
    b.node("Exp", [b.name(t[5])], [t[6]])
    b.node("Mul", [b.name(t[6]), b.scalar(1 / math.sqrt(2 * math.pi), x)],
           [t[7]])                                                  # phi
    b.node("Mul", [b.inp(x), b.name(t[7])], [t[8]])
    b.node("Add", [b.name(t[3]), b.name(t[8])], [t[9]])
    b.node("Mul", [b.inp(g), b.name(t[9])], [out])


def slice_backward(b, args, kw, out):
    # the gradient of x[start:end] (step 1) is it padded back with zeros
    g, sizes, dim = args[0], [int(v) for v in args[1]], int(args[2])
    step = int(args[5])
    if step != 1:
        b.unmapped("slice_backward", args, out)
        return
    r = len(sizes)
    dim %= r
    begin, end = [0] * r, [0] * r
    n = sizes[dim]
    start = int(args[3])
    start = max(0, min(n, start + n if start < 0 else start))
    begin[dim] = start
    end[dim] = n - start - int(g.shape[dim])
    b.node("Pad", [b.inp(g), b.const(begin + end), b.scalar(0, g)], [out],
           {"mode": "constant"})


def embedding_dense_backward(b, args, kw, out):
    # each id's gradient row added into its table row: a ScatterND add
    import torch
    g, ids = args[0], args[1]
    n, d = int(ids.numel()), int(g.shape[-1])
    rows = b.fresh(g.dtype, [n, d])
    b.node("Reshape", [b.inp(g), b.const([n, d])], [rows])
    ix = b.fresh(torch.int64, [n, 1])
    b.node("Reshape", [_int64(b, ids, list(ids.shape)), b.const([n, 1])], [ix])
    b.node("ScatterND", [b.filler(list(out.shape), g), b.name(ix), b.name(rows)],
           [out], {"reduction": "add"})


def sigmoid_backward(b, args, kw, out):
    # g * y * (1 - y)
    g, y = args[0], args[1]
    one_minus = b.fresh_like(y)
    b.node("Sub", [b.scalar(1.0, y), b.inp(y)], [one_minus])
    t = b.fresh_like(y)
    b.node("Mul", [b.inp(y), b.name(one_minus)], [t])
    b.node("Mul", [b.inp(g), b.name(t)], [out])


def tanh_backward(b, args, kw, out):
    # g * (1 - y^2)
    g, y = args[0], args[1]
    sq = b.fresh_like(y)
    b.node("Mul", [b.inp(y), b.inp(y)], [sq])
    t = b.fresh_like(y)
    b.node("Sub", [b.scalar(1.0, y), b.name(sq)], [t])
    b.node("Mul", [b.inp(g), b.name(t)], [out])


def adaptive_avg_pool_backward(b, args, kw, out):
    # each input element receives its window's gradient / k
    g, x = args[0], args[1]
    e = b.fresh_like(x)
    if all(int(i) in (1, int(o)) for i, o in zip(g.shape, x.shape)):
        b.node("Expand", [b.inp(g), b.const(list(x.shape))], [e])
    else:
        # windows of several outputs each (pooled to 2 x 2): no broadcast
        # spells that; each input element takes its window's gradient,
        # nearest-resized to the input's sizes
        b.node("Resize", [b.inp(g), "", "", b.const(list(x.shape))], [e],
               {"mode": "nearest"})
    window = max(1, int(x.numel()) // max(1, int(g.numel())))
    b.node("Div", [b.name(e), b.scalar(float(window), x)], [out])


def max_pool_backward(b, args, kw, out):
    # the gradient goes back to each window's maximum: a scatter
    g, x, idx = args[0], args[1], args[-1]
    # (N, C, *S) -> (N, C, prod(S)); a product, not numel // (N*C), which a
    # zero-size batch would divide by zero
    flat_g = b.fresh(g.dtype, list(g.shape[:2]) + [_prod(g.shape[2:])])
    reshape_to(b, b.inp(g), list(flat_g.shape), flat_g)
    flat_i = b.fresh(idx.dtype, list(flat_g.shape))
    reshape_to(b, b.inp(idx), list(flat_i.shape), flat_i)
    flat_x = [int(x.shape[0]), int(x.shape[1]), _prod(x.shape[2:])]
    scat = b.fresh(g.dtype, flat_x)
    b.node("ScatterElements", [b.filler(flat_x, g), b.name(flat_i),
                               b.name(flat_g)], [scat],
           {"axis": 2, "reduction": "add"})
    reshape_to(b, b.name(scat), list(x.shape), out)


# ---- the table ----

# ---- losses (docs/metrics.md, "Losses") ----
# Each is spelled as the element-wise math its kernel does, one node per
# step (an element-wise op 1 FLOP per element), then its reduction
# (`reduction`: 0 none, 1 mean, 2 sum) as a ReduceMean or ReduceSum over
# every element. A backward's mean reduction divides by the element count
# once per element. NLL is ONNX's NegativeLogLikelihoodLoss.

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _step(b, op, ins, like, out=None, attrs=None):
    """One node of a loss's chain: inputs are recorded tensors, chain
    tensors or names; writes `out` or a fresh tensor shaped like `like`."""
    y = b.fresh_like(like) if out is None else out
    b.node(op, [i if isinstance(i, str) else b.inp(i) for i in ins], [y],
           attrs)
    return y


def _loss_reduce(b, per_elem, x, out, reduction):
    """`per_elem(dst)` writes the element-wise loss to dst (out itself
    when not reduced); then the reduction over every axis."""
    if int(reduction) == 0:
        per_elem(out)
        return
    t = b.fresh_like(x)
    per_elem(t)
    op = "ReduceMean" if int(reduction) == 1 else "ReduceSum"
    b.node(op, [b.inp(t), b.const(list(range(_ndim(x))))], [out],
           {"keepdims": 0})


def _grad_scale(b, t, g, x, reduction, out):
    """g times the local gradient t, over the count for a mean."""
    if int(reduction) == 1:
        m = _step(b, "Mul", [t, g], x)
        _step(b, "Div", [m, b.scalar(float(max(1, x.numel())), x)], x, out)
    else:
        _step(b, "Mul", [t, g], x, out)


def mse_loss(b, args, kw, out):
    x, y = args[0], args[1]
    red = _arg(args, kw, 2, "reduction", 1)

    def per(dst):
        d = _step(b, "Sub", [x, y], x)
        _step(b, "Mul", [d, d], x, dst)
    _loss_reduce(b, per, x, _outs(out)[0], red)


def mse_loss_backward(b, args, kw, out):
    # g * 2 (x - y) [/ n]
    g, x, y = args[0], args[1], args[2]
    red = _arg(args, kw, 3, "reduction", 1)
    d = _step(b, "Sub", [x, y], x)
    t = _step(b, "Mul", [d, b.scalar(2.0, x)], x)
    _grad_scale(b, t, g, x, red, _outs(out)[0])


def _smooth(huber):
    """smooth_l1_loss (x, y, reduction, beta) and huber_loss (x, y,
    reduction, delta): z = |x - y|; z < beta ? 0.5 z^2 / beta : z - 0.5
    beta (Huber: 0.5 z^2 and delta (z - 0.5 delta))."""
    def rule(b, args, kw, out):
        x, y = args[0], args[1]
        red = _arg(args, kw, 2, "reduction", 1)
        beta = float(_arg(args, kw, 3, "delta" if huber else "beta", 1.0))

        def per(dst):
            d = _step(b, "Sub", [x, y], x)
            if beta == 0 and not huber:   # PyTorch's l1 then
                _step(b, "Abs", [d], x, dst)
                return
            z = _step(b, "Abs", [d], x)
            m = b.fresh(_bool(), list(x.shape))
            _step(b, "Less", [z, b.scalar(beta, x)], x, m)
            sq = _step(b, "Mul", [z, z], x)
            q = _step(b, "Mul", [sq, b.scalar(0.5 if huber else 0.5 / beta,
                                              x)], x)
            lin = _step(b, "Sub", [z, b.scalar(0.5 * beta, x)], x)
            if huber:
                lin = _step(b, "Mul", [lin, b.scalar(beta, x)], x)
            _step(b, "Where", [m, q, lin], x, dst)
        _loss_reduce(b, per, x, _outs(out)[0], red)
    return rule


def smooth_l1_loss_backward(b, args, kw, out):
    # d = x - y; |d| < beta ? d / beta : sign(d); times g [/ n]
    g, x, y = args[0], args[1], args[2]
    red = _arg(args, kw, 3, "reduction", 1)
    beta = float(_arg(args, kw, 4, "beta", 1.0))
    d = _step(b, "Sub", [x, y], x)
    if beta == 0:
        t = _step(b, "Sign", [d], x)
    else:
        z = _step(b, "Abs", [d], x)
        m = b.fresh(_bool(), list(x.shape))
        _step(b, "Less", [z, b.scalar(beta, x)], x, m)
        q = _step(b, "Div", [d, b.scalar(beta, x)], x)
        sg = _step(b, "Sign", [d], x)
        t = _step(b, "Where", [m, q, sg], x)
    _grad_scale(b, t, g, x, red, _outs(out)[0])


def huber_loss_backward(b, args, kw, out):
    # clamp(x - y, -delta, delta) times g [/ n]
    g, x, y = args[0], args[1], args[2]
    red = _arg(args, kw, 3, "reduction", 1)
    delta = float(_arg(args, kw, 4, "delta", 1.0))
    d = _step(b, "Sub", [x, y], x)
    t = _step(b, "Clip", [d, b.scalar(-delta, x), b.scalar(delta, x)], x)
    _grad_scale(b, t, g, x, red, _outs(out)[0])


def binary_cross_entropy(b, args, kw, out):
    """-(y log x + (1 - y) log(1 - x)), each log clamped at -100 as
    PyTorch's kernel does, times the weight when given."""
    x, y = args[0], args[1]
    w = _arg(args, kw, 2, "weight", None)
    red = _arg(args, kw, 3, "reduction", 1)

    def per(dst):
        lx = _step(b, "Log", [x], x)
        lx = _step(b, "Max", [lx, b.scalar(-100.0, x)], x)
        om = _step(b, "Sub", [b.scalar(1.0, x), x], x)
        l1 = _step(b, "Log", [om], x)
        l1 = _step(b, "Max", [l1, b.scalar(-100.0, x)], x)
        a = _step(b, "Mul", [y, lx], x)
        oy = _step(b, "Sub", [b.scalar(1.0, x), y], x)
        c = _step(b, "Mul", [oy, l1], x)
        s_ = _step(b, "Add", [a, c], x)
        if b.is_tensor(w):
            n = _step(b, "Neg", [s_], x)
            _step(b, "Mul", [n, w], x, dst)
        else:
            _step(b, "Neg", [s_], x, dst)
    _loss_reduce(b, per, x, _outs(out)[0], red)


def binary_cross_entropy_backward(b, args, kw, out):
    # g (x - y) / max((1 - x) x, 1e-12) [times w] [/ n]
    g, x, y = args[0], args[1], args[2]
    w = _arg(args, kw, 3, "weight", None)
    red = _arg(args, kw, 4, "reduction", 1)
    d = _step(b, "Sub", [x, y], x)
    om = _step(b, "Sub", [b.scalar(1.0, x), x], x)
    p = _step(b, "Mul", [om, x], x)
    p = _step(b, "Max", [p, b.scalar(1e-12, x)], x)
    t = _step(b, "Div", [d, p], x)
    if b.is_tensor(w):
        t = _step(b, "Mul", [t, w], x)
    _grad_scale(b, t, g, x, red, _outs(out)[0])


def bce_with_logits(b, args, kw, out):
    """(1 - y) x - log_sigmoid(x) (PyTorch 2's form; log_sigmoid a Sigmoid
    and a Log); with pos_weight p: (1 - y) x - ((p - 1) y + 1)
    log_sigmoid(x); times the weight when given."""
    x, y = args[0], args[1]
    w = _arg(args, kw, 2, "weight", None)
    pw = _arg(args, kw, 3, "pos_weight", None)
    red = _arg(args, kw, 4, "reduction", 1)

    def per(dst):
        sg = _step(b, "Sigmoid", [x], x)
        ls = _step(b, "Log", [sg], x)
        oy = _step(b, "Sub", [b.scalar(1.0, x), y], x)
        a = _step(b, "Mul", [oy, x], x)
        if b.is_tensor(pw):
            p1 = _step(b, "Sub", [pw, b.scalar(1.0, x)], pw)
            lw = _step(b, "Mul", [p1, y], x)
            lw = _step(b, "Add", [lw, b.scalar(1.0, x)], x)
            ls = _step(b, "Mul", [lw, ls], x)
        if b.is_tensor(w):
            l_ = _step(b, "Sub", [a, ls], x)
            _step(b, "Mul", [l_, w], x, dst)
        else:
            _step(b, "Sub", [a, ls], x, dst)
    _loss_reduce(b, per, x, _outs(out)[0], red)


def bce_with_logits_backward(b, args, kw, out):
    """(sigmoid(x) - y) g [times w] [/ n]; with pos_weight p:
    ((p y + 1 - y) sigmoid(x) - p y) g."""
    g, x, y = args[0], args[1], args[2]
    w = _arg(args, kw, 3, "weight", None)
    pw = _arg(args, kw, 4, "pos_weight", None)
    red = _arg(args, kw, 5, "reduction", 1)
    sg = _step(b, "Sigmoid", [x], x)
    if b.is_tensor(pw):
        py = _step(b, "Mul", [pw, y], x)
        oy = _step(b, "Sub", [b.scalar(1.0, x), y], x)
        c = _step(b, "Add", [py, oy], x)
        cs = _step(b, "Mul", [c, sg], x)
        t = _step(b, "Sub", [cs, py], x)
    else:
        t = _step(b, "Sub", [sg, y], x)
    if b.is_tensor(w):
        t = _step(b, "Mul", [t, w], x)
    _grad_scale(b, t, g, x, red, _outs(out)[0])


def nll_loss(b, args, kw, out):
    """nll_loss_forward / nll_loss2d_forward (x [N, C, ...], target,
    weight, reduction, ignore_index) -> (loss, total_weight): ONNX's
    NegativeLogLikelihoodLoss (per label a gather, a negate, the
    ignore_index compare and the weight's multiply; the reduction's adds),
    which counts total_weight's sum too."""
    x, t = args[0], args[1]
    w = _arg(args, kw, 2, "weight", None)
    red = int(_arg(args, kw, 3, "reduction", 1))
    ign = int(_arg(args, kw, 4, "ignore_index", -100))
    if _ndim(x) < 2:
        b.unmapped("nll_loss_forward", args, out)
        return
    ins = [b.inp(x), b.inp(t)] + ([b.inp(w)] if b.is_tensor(w) else [])
    b.node("NegativeLogLikelihoodLoss", ins, [_outs(out)[0]],
           {"reduction": _REDUCTIONS[red], "ignore_index": ign})


def nll_loss_backward(b, args, kw, out):
    """nll_loss_backward / nll_loss2d_backward (g, x, target, weight,
    reduction, ignore_index, total_weight): zeros of x's shape and, at each
    label's class, -g (times its weight, over total_weight for a mean), 0
    where the label is ignore_index: per label a negate, the compare and a
    select, the weight's gather and multiply, the mean's divide; a
    scatter."""
    g, x, t = args[0], args[1], args[2]
    w = _arg(args, kw, 3, "weight", None)
    red = int(_arg(args, kw, 4, "reduction", 1))
    ign = int(_arg(args, kw, 5, "ignore_index", -100))
    tw = _arg(args, kw, 6, "total_weight", None)
    if _ndim(x) < 2:
        b.unmapped("nll_loss_backward", args, out)
        return
    lab = [int(d) for d in t.shape]
    if red == 0:
        gl = g
    else:
        gl = b.fresh(g.dtype, lab)
        b.node("Expand", [b.inp(g), b.const(lab)], [gl])
    u = _step(b, "Neg", [gl], gl)
    if b.is_tensor(w):
        wl = b.fresh(x.dtype, lab)
        b.node("Gather", [b.inp(w), b.inp(t)], [wl], {"axis": 0})
        u = _step(b, "Mul", [u, wl], u)
    if red == 1 and b.is_tensor(tw):
        u = _step(b, "Div", [u, tw], u)
    m = b.fresh(_bool(), lab)
    b.node("Equal", [b.inp(t), b.const(ign, scalar=True)], [m])
    u = _step(b, "Where", [m, b.scalar(0.0, x), u], u)
    # the class axis is 1: labels [N, ...] -> [N, 1, ...]
    idx = b.fresh(t.dtype, lab[:1] + [1] + lab[1:])
    b.node("Unsqueeze", [b.inp(t), b.const([1])], [idx])
    upd = b.fresh(x.dtype, lab[:1] + [1] + lab[1:])
    b.node("Unsqueeze", [b.inp(u), b.const([1])], [upd])
    b.node("ScatterElements", [b.filler(list(x.shape), x), b.inp(idx),
                               b.inp(upd)], [_outs(out)[0]], {"axis": 1})


def xlogy(b, args, kw, out):
    """x log y, 0 where x is 0 (kl_div's pointwise term): a Log, a Mul, the
    compare and the select, per output element."""
    x, y = args[0], args[1]
    o = _outs(out)[0]
    # a number operand is a 0-d scalar: its Log and its compare are 0-d
    if b.is_tensor(y):
        ly = _step(b, "Log", [y], y)
    else:
        ly = b.fresh(o.dtype, [])
        b.node("Log", [b.scalar(float(y), o)], [ly])
    xx = x if b.is_tensor(x) else b.scalar(float(x), o)
    p = _step(b, "Mul", [xx, ly], o)
    m = b.fresh(_bool(), [int(d) for d in x.shape] if b.is_tensor(x) else [])
    _step(b, "Equal", [xx, b.scalar(0.0, o)], o, m)
    _step(b, "Where", [m, b.scalar(0.0, o), p], o, o)


def log_softmax_backward(b, args, kw, out):
    # g - exp(y) sum(g, dim): cross-entropy's backward through log_softmax
    g, y = args[0], args[1]
    dim = int(args[2]) % _ndim(y)
    e = _step(b, "Exp", [y], y)
    keep = [int(d) for d in y.shape]
    keep[dim] = 1
    s_ = b.fresh(g.dtype, keep)
    b.node("ReduceSum", [b.inp(g), b.const([dim])], [s_], {"keepdims": 1})
    p = _step(b, "Mul", [e, s_], y)
    _step(b, "Sub", [g, p], y, _outs(out)[0])

# Where these rules make one node of the library's op type (real tensors
# of one dtype, no rounding mode: the only calls tape.py hands over), they
# are the table's unary/binary entries: such calls may go on the tape.
abs_.tape = ("unary", "Abs")
mul.tape = ("binary", "Mul")
div.tape = ("binary", "Div")
pow_.tape = ("binary", "Pow")


OPS = {
    # matrix products
    "addmm": addmm, "mm": mm, "bmm": matmul, "matmul": matmul,
    "mv": matmul, "dot": matmul, "baddbmm": baddbmm, "addmv": addmv,
    # convolution, normalisation, pooling
    "convolution": convolution, "_convolution": convolution,
    "native_batch_norm": native_batch_norm,
    "cudnn_batch_norm": native_batch_norm,
    "_native_batch_norm_legit": native_batch_norm,
    "_native_batch_norm_legit_no_training": batch_norm_no_training,
    "native_layer_norm": layer_norm, "native_group_norm": group_norm,
    "max_pool1d": pool("MaxPool", True, 1),
    "max_pool2d": pool("MaxPool", True, 2),
    "max_pool3d": pool("MaxPool", True, 3),
    "max_pool1d_with_indices": pool("MaxPool", True, 1),
    "max_pool2d_with_indices": pool("MaxPool", True, 2),
    "max_pool3d_with_indices": pool("MaxPool", True, 3),
    "avg_pool1d": pool("AveragePool", False, 1),
    "avg_pool2d": pool("AveragePool", False, 2),
    "avg_pool3d": pool("AveragePool", False, 3),
    "_adaptive_avg_pool2d": adaptive_pool("Average", "_adaptive_avg_pool2d"),
    "_adaptive_avg_pool3d": adaptive_pool("Average", "_adaptive_avg_pool3d"),
    "adaptive_avg_pool1d": adaptive_pool("Average", "adaptive_avg_pool1d"),
    "adaptive_max_pool1d": adaptive_pool("Max", "adaptive_max_pool1d"),
    "adaptive_max_pool2d": adaptive_pool("Max", "adaptive_max_pool2d"),
    "adaptive_max_pool3d": adaptive_pool("Max", "adaptive_max_pool3d"),
    "mean": mean, "sum": reduce_sum,
    "var": variance(), "std": variance(root=True),
    "var_mean": variance(with_mean=True),
    "std_mean": variance(root=True, with_mean=True),
    "amax": reduce_attr("ReduceMax"), "amin": reduce_attr("ReduceMin"),
    "prod": reduce_attr("ReduceProd"),
    "norm": vector_norm("norm"),
    "linalg_vector_norm": vector_norm("linalg_vector_norm"),
    # activations and element-wise math (the one-node ones: below, from the
    # library's table)
    "hardsigmoid": unary("HardSigmoid", alpha=1.0 / 6, beta=0.5),
    "gelu": gelu, "silu": silu, "mish": mish, "glu": glu,
    "_weight_norm_interface": weight_norm,
    "leaky_relu": leaky_relu, "elu": elu,
    "hardtanh": clip(1, 2, "min_val", "max_val"), "clamp": clip(1, 2),
    "clamp_min": clip(1, None), "clamp_max": clip(None, 1, hi_name="max"),
    "rsqrt": rsqrt, "abs": abs_, "erfinv": aten_entry("erfinv"),
    "bitwise_not": bitwise_not,
    "nan_to_num": nan_to_num,
    "expm1": shifted("Exp", "Sub", 1.0), "log1p": shifted("Add", "Log", 1.0),
    "prelu": prelu, "_prelu_kernel": prelu, "log2": log2,
    "roi_align": roi_align,  # torchvision's
    "logsumexp": reduce_attr("ReduceLogSumExp"),
    "rsub": binary("Sub", swap=True),
    "mul": mul, "div": div, "pow": pow_,
    "ne": compare_ne, "where": where, "masked_fill": masked_fill,
    "floor_divide": floor_divide, "remainder": remainder,
    "_softmax": softmax("Softmax"), "softmax": softmax("Softmax"),
    # softmax whose fully masked rows give 0 (2.x's SDPA math path)
    "_safe_softmax": softmax("Softmax"),
    "_log_softmax": softmax("LogSoftmax"), "log_softmax": softmax("LogSoftmax"),
    "native_dropout": dropout,
    # layout: views and copies
    "view": real_form(reshape), "_unsafe_view": real_form(reshape),
    "_reshape_alias": real_form(reshape), "reshape": real_form(reshape),
    "flatten": real_form(reshape), "unsqueeze": real_form(reshape),
    "squeeze": real_form(reshape), "as_strided": as_strided,
    # Tensor.unfold(dim, size, step): a strided view, windows of x read as
    # as_strided reads them (Idefics3's patch mask)
    "unfold": as_strided,
    "view_as": real_form(reshape), "expand": real_form(expand),
    "permute": permute, "transpose": transpose,
    "t": transpose, "cat": cat, "concat": cat, "stack": stack,
    "split": split, "split_with_sizes": split, "unbind": unbind,
    "unsafe_split": split, "unsafe_split_with_sizes": split,
    "slice": real_form(slice_), "select": real_form(select), "index": index,
    "flip": flip,
    "index_put": index_put, "gather": gather, "index_select": index_select,
    "nonzero": nonzero, "repeat_interleave": repeat_interleave,
    "unique_consecutive": unique(True), "_unique2": unique(False),
    "_unique": unique(False),
    "masked_scatter": masked_scatter, "index_copy": index_copy,
    "_is_all_true": all_any("ReduceMin"),
    "scatter": scatter(), "scatter_add": scatter("add"),
    "scatter_reduce": scatter("reduce"), "repeat": repeat,
    # selection, sorting, mixture-of-experts routing and experts
    "topk": topk, "sort": sort, "argsort": sort,
    "argmax": arg_reduce("ArgMax"), "argmin": arg_reduce("ArgMin"),
    "all": all_any("ReduceMin"), "any": all_any("ReduceMax"),
    "max": max_min("ReduceMax", "ArgMax", "Max"),
    "min": max_min("ReduceMin", "ArgMin", "Min"),
    "histc": histc, "_grouped_mm": grouped_mm, "aminmax": aminmax,
    "index_add": index_add,
    "embedding": embedding, "constant_pad_nd": constant_pad_nd,
    "reflection_pad1d": mode_pad("reflect"),
    "reflection_pad2d": mode_pad("reflect"),
    "reflection_pad3d": mode_pad("reflect"),
    "replication_pad1d": mode_pad("edge"),
    "replication_pad2d": mode_pad("edge"),
    "replication_pad3d": mode_pad("edge"),
    "log_sigmoid_forward": log_sigmoid,
    "bucketize": bucketize("bucketize"),
    "searchsorted": bucketize("searchsorted"),
    "upsample_nearest1d": resize("nearest"),
    "upsample_nearest2d": resize("nearest"),
    "upsample_nearest3d": resize("nearest"),
    "upsample_linear1d": resize("linear"),
    "upsample_bilinear2d": resize("linear"),
    "upsample_trilinear3d": resize("linear"),
    "upsample_bicubic2d": resize("cubic"),
    "_upsample_bilinear2d_aa": resize("linear", antialias=True),
    "_upsample_bicubic2d_aa": resize("cubic", antialias=True),
    "pixel_shuffle": pixel_shuffle, "roll": roll, "tril": trilu(False), "triu": trilu(True),
    "im2col": im2col, "col2im": col2im, "grid_sampler_2d": grid_sampler_2d,
    "cumsum": cumsum, "_to_copy": to_complex_copy, "to": to_copy, "copy": copy_,
    # complex values (in real form)
    "view_as_complex": view_as_complex, "view_as_real": view_as_real,
    "polar": polar, "_fft_c2c": fft_c2c, "_fft_r2c": fft_r2c,
    # attention (2.x spells it as one op; 1.13 decomposes it)
    "scaled_dot_product_attention": sdpa,
    "_scaled_dot_product_attention_math": sdpa,
    "_scaled_dot_product_flash_attention": sdpa_fused(None, 4),
    "_scaled_dot_product_flash_attention_for_cpu": sdpa_fused(None, 4),
    "_scaled_dot_product_efficient_attention": sdpa_fused(3, 6),
    "_scaled_dot_product_cudnn_attention": sdpa_fused(3, 6),
    "_native_multi_head_attention": native_mha,
    "_transformer_encoder_layer_fwd": transformer_encoder_layer,
    # backward kernels (summary(..., backward=True))
    "convolution_backward": convolution_backward,
    "threshold_backward": threshold_backward,
    "native_batch_norm_backward": batch_norm_backward,
    "native_layer_norm_backward": layer_norm_backward,
    "_softmax_backward_data": softmax_backward,
    "sigmoid_backward": sigmoid_backward, "tanh_backward": tanh_backward,
    "silu_backward": silu_backward, "gelu_backward": gelu_backward,
    "slice_backward": slice_backward,
    "embedding_dense_backward": embedding_dense_backward,
    "_adaptive_avg_pool2d_backward": adaptive_avg_pool_backward,
    "max_pool2d_with_indices_backward": max_pool_backward,
    "_log_softmax_backward_data": log_softmax_backward,
    # losses, forward and backward (l1_loss and kl_div are composites:
    # PyTorch runs them as the ops above)
    "xlogy": xlogy,
    "nll_loss_forward": nll_loss, "nll_loss2d_forward": nll_loss,
    "nll_loss_backward": nll_loss_backward,
    "nll_loss2d_backward": nll_loss_backward,
    "mse_loss": mse_loss, "mse_loss_backward": mse_loss_backward,
    "smooth_l1_loss": _smooth(False), "huber_loss": _smooth(True),
    "smooth_l1_loss_backward": smooth_l1_loss_backward,
    "huber_loss_backward": huber_loss_backward,
    "binary_cross_entropy": binary_cross_entropy,
    "binary_cross_entropy_backward": binary_cross_entropy_backward,
    "binary_cross_entropy_with_logits": bce_with_logits,
    "binary_cross_entropy_with_logits_backward": bce_with_logits_backward,
}


def _from_table(ops):
    """Adds to `ops` the rules of the library's table's declarative entries
    (src/ops/aten.c): an op it lowers to one ONNX node of its first
    argument (`unary`) or of two (`binary`), names its input again
    (`alias`: detach, clone, contiguous) or makes a tensor from nothing
    (`create`: zeros, arange): which ops these are, and their op types,
    are written there alone. An op with a rule of its own above keeps it
    (abs and mul of complex values, div's rounding modes, pow's and rsub's
    operands, bitwise_not of booleans). The rules made so are the ones the
    tape stands for (tape.form: a call the table makes one node of goes
    to the library), and serve NNSCAN_TAPE=0 and the calls the tape does
    not take (two dtypes, a number: a Cast or a scalar first)."""
    from . import _api
    _api.lib()  # (the words are read at its load)
    forms = {"unary": unary, "binary": binary,
             "alias": lambda to: ALIAS, "create": lambda to: CREATE}
    for op, (form, to) in _api.ATEN_OPS.items():
        make = forms.get(form)
        if make is not None and op not in ops:
            ops[op] = make(to)


_from_table(OPS)

# The ops above whose eager kernel runs several kernels, one after the
# other (nn.MultiheadAttention's and nn.TransformerEncoderLayer's fast
# paths: projections, attention, norms): their nodes stay kernels of their
# own. Every other op is one kernel, however many nodes its rule spells it
# with (the recorder marks them: docs/metrics.md, "Bytes and the
# roofline").
SEVERAL_KERNELS = frozenset({"_native_multi_head_attention",
                             "_transformer_encoder_layer_fwd"})

# The rules above that take complex values (in real form); any other op
# on a complex tensor is uncounted.
COMPLEX_RULES = {"view_as_complex", "view_as_real", "polar", "mul", "view",
                 "_unsafe_view", "_reshape_alias", "reshape", "unsqueeze",
                 "squeeze", "flatten", "view_as", "expand", "slice",
                 "select", "_fft_c2c", "_fft_r2c", "_to_copy", "abs"}


def base_name(func):
    """'aten.relu_.default' -> 'relu'; in-place variants share a rule."""
    name = func.overloadpacket.__name__
    if name.endswith("_") and not name.endswith("__"):
        name = name[:-1]
    return name


def is_inplace(func):
    name = func.overloadpacket.__name__
    return name.endswith("_") and not name.endswith("__")
