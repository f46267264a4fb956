"""fast_meta's element-wise kernels: unary, binary (the layout rules of
broadcasting and of an operand that decides the output's order), with
number arguments, in place, comparisons, masks' bitwise ops."""
import torch

from .meta_layout import (
    META, broadcast, dense, empty_like, number, ordered, permuted_dense,
    plain)


def _like_input(args, laid_out):
    """One float meta input laid out as `laid_out` accepts: an output like
    it (torch.empty_like's layout), else None."""
    x = args[0] if len(args) == 1 else None
    if not isinstance(x, torch.Tensor) or not x.is_meta \
            or not x.is_floating_point() or not laid_out(x):
        return None
    return empty_like(x)


def elementwise_meta(args):
    """A one-input float element-wise op (hardswish, hardsigmoid) of a
    dense input: the output is the input's shape, dtype and layout."""
    return _like_input(args, dense)


def unary_meta(args):
    """A one-input float element-wise op of PyTorch 2.x's table (neg,
    rsqrt; the Scalar forms through numbers_meta), on a meta input sliced
    or permuted as well as dense: the output is laid out as
    torch.empty_like lays it out (the input's strides where it is dense,
    else dense ones in the order of its strides), as PyTorch's element-wise
    kernels lay theirs out (the tests compare them over random strides;
    strides of dims of length 1 may differ, which no layout reads)."""
    return _like_input(args, ordered)


def elementwise_inplace_meta(args):
    """The in-place form: the input itself, as the meta kernel returns it."""
    return args[0] if elementwise_meta(args) is not None else None


def binary_meta(args):
    """a (op) b, out of place (mul, add, sub, div: Tensor forms; a float
    result, so div's true division agrees): contiguous meta
    tensors broadcast together, or one beside a number (a Python number, or
    a 0-dim CPU tensor as PyTorch wraps one, when the meta one has dims, so
    that the two promote alike); other layouts where one operand decides
    the output's (_decided). A float result of non-bool operands only:
    integer results have their own rules, and a bool subtraction raises."""
    return _binary(args, _float_result)


def arith_meta(args):
    """add, sub and mul (Tensor forms): binary_meta's, integer results
    too, of PyTorch's promotion (positions and cache indices: a LLaMA
    layer's `cache_position + 0`); not of bool operands, nor complex."""
    return _binary(args, _arith_result)


def _binary(args, result):
    """binary_meta with `result` (a, b) -> the output's dtype, or None to
    decline."""
    if len(args) != 2:
        return None
    a, b = args
    if not (isinstance(a, torch.Tensor) and a.is_meta):
        a, b = b, a
    if not plain(a):
        if isinstance(a, torch.Tensor) and a.is_meta and _number_beside(a, b) \
                and ordered(a):
            # a number takes no part in the layout: a's alone, as unary_meta
            # lays it out (a scaled slice of a fused qkv: MaxViT's q * scale)
            dt = result(a, b)
            return None if dt is None else empty_like(a, dt)
        out = _permuted_binary(a, b, result)
        return out if out is not None else _decided(args, result)
    if isinstance(b, torch.Tensor) and b.is_meta:
        if not b.is_contiguous():
            return _decided(args, result)
        shape = broadcast(a.shape, b.shape)
        if shape is None:
            return None
    elif _number_beside(a, b):
        shape = a.shape
    else:
        return None
    dt = result(a, b)
    return None if dt is None else torch.empty(shape, dtype=dt, device=META)


def _number_beside(a, b):
    """b is a number beside meta tensor a: a Python number, or a 0-dim CPU
    tensor as PyTorch wraps one when a has dims (so that the two promote
    alike)."""
    if isinstance(b, torch.Tensor):
        return b.dim() == 0 and b.device.type == "cpu" and a.dim() > 0
    return number(b) and not isinstance(b, bool)


def _float_result(a, b):
    """binary_meta's result dtype: a float, of operands that are not bool
    (PyTorch refuses a bool subtraction; integer results have rules of
    their own, as division's); None otherwise."""
    if a.dtype == torch.bool or getattr(b, "dtype", None) == torch.bool:
        return None
    dt = torch.result_type(a, b)
    return dt if dt.is_floating_point else None


def _arith_result(a, b):
    """arith_meta's result dtype: PyTorch's promotion of operands that are
    not bool, to a float or an integer; None otherwise (complex)."""
    if a.dtype == torch.bool or getattr(b, "dtype", None) == torch.bool:
        return None
    dt = torch.result_type(a, b)
    return None if dt.is_complex or dt == torch.bool else dt


def _real_result(a, b):
    """minmax_meta's result dtype: two real (not complex) tensors promoted
    together, bool and integers too; None otherwise."""
    if not isinstance(b, torch.Tensor) or a.is_complex() or b.is_complex():
        return None
    return torch.result_type(a, b)


def _decided(args, result):
    """a (op) b laid out by the operand that decides it (_first_decides,
    else _second_decides); None where neither does."""
    out = _first_decides(args, result)
    return out if out is not None else _second_decides(args, result)


def _tells_all_apart(t):
    """A meta tensor with dims whose strides are distinct and non-zero in
    every dim (its dims of length 1 too): it orders every pair of dims."""
    if not (isinstance(t, torch.Tensor) and t.is_meta) or t.dim() == 0:
        return False
    st = t.stride()
    return 0 not in st and len(set(st)) == len(st)


def _first_decides(args, result):
    """a (op) b where the first operand `a`, a meta tensor of the result's
    shape, has distinct non-zero strides in every dim (its dims of length
    1 too): PyTorch's element-wise kernels order the output's dims by the
    first operand whose strides tell two dims apart, and `a` tells every
    pair apart, so the output is laid out as torch.empty_like(a) whatever
    `b`'s strides are: a broadcast `b` (F.normalize's x / norm.expand_as(x),
    stride 0) or a sliced one. A length-1 dim of stride 0, or two dims of
    one stride, would leave a pair to `b`, and the order PyTorch's
    insertion sort then finds is not always the one of `a` (the random
    strides test): declined. `b` a meta tensor broadcasting to `a`'s
    shape, or a number; `result` (a, b) gives the dtype or None."""
    a, b = args
    if not _tells_all_apart(a):
        return None
    if isinstance(b, torch.Tensor) and not b.is_meta:
        if b.dim() != 0 or b.device.type != "cpu":
            return None  # (a 0-dim CPU tensor: a number as PyTorch wraps it)
    elif isinstance(b, torch.Tensor):
        if broadcast(a.shape, b.shape) != list(a.shape):
            return None
    elif not (number(b) and not isinstance(b, bool)):
        return None
    dt = result(a, b)
    return None if dt is None else empty_like(a, dt)


def _second_decides(args, result):
    """a (op) b where the second operand `b`, a meta tensor of the result's
    shape with distinct non-zero strides in every dim, decides the layout
    because `a` tells no pair of dims apart: `a` broadcast to the result's
    shape has at most one non-zero stride (ConvNeXt's layer scale, a (C, 1,
    1) parameter times a permuted block output; a 0-dim tensor or a
    number). PyTorch's kernels then order the output's dims by `b`, as
    torch.empty_like(b) lays it out. `b`'s dims of length 1 must be
    outside its other dims (a batch of one): with one inside, PyTorch's
    order was found to differ (the random strides test). `result` (a, b)
    gives the dtype or None."""
    a, b = args
    if not _tells_all_apart(b):
        return None
    st = b.stride()
    inner = max((s for s, n in zip(st, b.shape) if n > 1), default=0)
    if any(s < inner for s, n in zip(st, b.shape) if n == 1):
        return None  # a length-1 dim inside: PyTorch may order otherwise
    if isinstance(a, torch.Tensor):
        if not a.is_meta or broadcast(a.shape, b.shape) != list(b.shape):
            return None
        lead = b.dim() - a.dim()  # a's missing leading dims: stride 0
        if sum(1 for n, s, m in zip(a.shape, a.stride(), b.shape[lead:])
               if n == m and (s != 0 or n > 1)) > 1:
            return None  # (a dim of its own expanded, stride 0, may decide)
        dt = result(a, b)
        if dt is not None and a.dim() and a.dtype != dt:
            return None  # converted first, into a dense copy that may decide
    elif number(a) and not isinstance(a, bool):
        dt = result(b, a)
    else:
        return None
    return None if dt is None else empty_like(b, dt)


def inplace_binary_meta(args):
    """a (op)= b in place (add_, sub_, mul_, div_: Tensor forms; a
    stochastic depth's `result += input`): the first operand itself, as
    PyTorch's kernel returns it, where `b` (a meta tensor, a number or a
    0-dim CPU tensor) broadcasts to a's shape and the result is a's float
    dtype; with `alpha` a number. PyTorch refuses an `a` the broadcast
    would grow, and an integer `a` given a float: declined."""
    if not 2 <= len(args) <= 3:
        return None
    a, b = args[0], args[1]
    if len(args) == 3 and not (number(args[2])
                               and not isinstance(args[2], bool)):
        return None
    if not (isinstance(a, torch.Tensor) and a.is_meta
            and a.is_floating_point()):
        return None
    if isinstance(b, torch.Tensor):
        if b.is_complex() or b.dtype == torch.bool \
                or not b.is_meta and not (b.dim() == 0
                                          and b.device.type == "cpu") \
                or broadcast(a.shape, b.shape) != list(a.shape) \
                or b.is_meta and b is not a and _root(b) is _root(a):
            return None  # a view of a's memory: the CPU kernel may refuse
    elif not (number(b) and not isinstance(b, bool)):
        return None
    if any(s == 0 and n > 1 for n, s in zip(a.shape, a.stride())):
        return None  # written through a stride 0: the CPU kernel refuses
    return a


def _root(t):
    """The tensor whose memory a view `t` shows (t itself if no view)."""
    return t._base if t._base is not None else t


def minmax_meta(args):
    """maximum / minimum(a, b) of two meta tensors of real dtypes (RWKV's
    state, T5's position buckets): laid out as binary_meta lays a float
    result out; a bool or integer result too."""
    if len(args) != 2 or not all(isinstance(t, torch.Tensor) and t.is_meta
                                 for t in args):
        return None
    a, b = args
    if plain(a) and plain(b):
        shape = broadcast(a.shape, b.shape)
        dt = _real_result(a, b)
        if shape is None or dt is None:
            return None
        return torch.empty(shape, dtype=dt, device=META)
    return _decided(args, _real_result)


def _permuted_binary(a, b, result):
    """binary_meta where `a` is a permuted dense meta tensor (a transposed
    view, as the rotary products of a LLaMA layer: q.transpose(1, 2) * cos)
    of the result's shape, `b` a contiguous meta tensor broadcasting to it
    or a number: PyTorch's element-wise kernels order the output's dims by
    the first operand whose strides differ, here `a`'s, all distinct and
    non-zero, so the output is laid out as `a` (dense, a's strides)."""
    if not (isinstance(a, torch.Tensor) and a.is_meta and permuted_dense(a)) \
            or a.dim() == 4 and a.is_contiguous(
                memory_format=torch.channels_last) \
            or a.dim() == 5 and a.is_contiguous(
                memory_format=torch.channels_last_3d):
        return None  # (channels-last: the kernels' own memory-format rules)
    if isinstance(b, torch.Tensor) and b.is_meta:
        if not b.is_contiguous():
            return None
        if broadcast(a.shape, b.shape) != list(a.shape):
            return None
    elif not (number(b) and not isinstance(b, bool)):
        return None
    dt = result(a, b)
    if dt is None:
        return None
    return torch.empty_strided(a.shape, a.stride(), dtype=dt, device=META)


def softplus_meta(args):
    """softplus(x[, beta[, threshold]]): numbers_meta's, its defaults
    trimmed too (Mamba's dt)."""
    return numbers_meta(args) if len(args) > 1 else unary_meta(args)


def numbers_meta(args):
    """x (op) numbers, each argument after x a number (mul.Scalar,
    add.Scalar, div.Scalar, pow.Tensor_Scalar, clamp_min, clamp_max,
    softplus's beta and threshold, rsub.Scalar's other and alpha) or, for
    clamp, None (one bound of two; not both, which PyTorch
    refuses): a float x keeps its dtype and layout (unary_meta's)."""
    rest = args[1:]
    if not all(v is None or number(v) and not isinstance(v, bool)
               for v in rest) or all(v is None for v in rest):
        return None  # (no number at all: x alone, or clamp's two Nones)
    return unary_meta(args[:1])


def where_meta(args):
    """where(condition, a, b) over contiguous meta tensors, a float result
    broadcast over the three."""
    if len(args) != 3 or not all(plain(t) for t in args) \
            or args[0].dtype != torch.bool:
        return None
    dt = torch.result_type(args[1], args[2])
    if not dt.is_floating_point:
        return None
    shape = broadcast(args[0].shape, args[1].shape)
    if shape is not None:
        shape = broadcast(shape, args[2].shape)
    if shape is None:
        return None
    return torch.empty(shape, dtype=dt, device=META)


def compare_meta(args):
    """a (lt, le, gt, ge, eq, ne) b: a bool tensor of the broadcast shape,
    for contiguous real (not complex) meta tensors, or one beside a number
    (masks, position buckets: PyTorch 2.x's meta kernels for these are
    Python, 60-80 us a call)."""
    if len(args) != 2:
        return None
    a, b = args
    if not (isinstance(a, torch.Tensor) and a.is_meta):
        a, b = b, a
    if not plain(a) or a.is_complex():
        return None
    if isinstance(b, torch.Tensor):
        if not (plain(b) and not b.is_complex()):
            return None
        shape = broadcast(a.shape, b.shape)
        if shape is None:
            return None
    elif number(b):
        shape = a.shape
    else:
        return None
    return torch.empty(shape, dtype=torch.bool, device=META)


def bitwise_meta(args):
    """bitwise_and / or / xor of two contiguous meta tensors of bool or
    integer dtypes (masks combined): the broadcast shape, contiguous, the
    promoted dtype."""
    if len(args) != 2 or not all(plain(t) for t in args) \
            or any(t.is_floating_point() or t.is_complex() for t in args):
        return None
    shape = broadcast(args[0].shape, args[1].shape)
    if shape is None:
        return None
    return torch.empty(shape, dtype=torch.result_type(*args), device=META)


def clone_meta(args):
    """clone(x) without a memory format, of a contiguous meta x with
    elements: PyTorch's kernel keeps x's strides (those of its dims of
    length 1 too) where x is dense."""
    x = args[0] if len(args) == 1 else None
    if not isinstance(x, torch.Tensor) or not x.is_meta \
            or not x.is_contiguous() or x.numel() == 0:
        return None
    return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype,
                               device=META)


def hardtanh_meta(args):
    """hardtanh(x[, min_val[, max_val]]) (ReLU6 is hardtanh(x, 0, 6)) of a
    float meta input: clamp's output, laid out as unary_meta lays it out.
    PyTorch 2.x's meta kernel is its Python reference (clamp under the
    type-promotion wrappers: about 0.7 ms a call, half of mobilenet_v2's
    recording). Declines min_val > max_val, which PyTorch refuses."""
    bounds = _bounds(args)
    return None if bounds is None else unary_meta(args[:1])


def hardtanh_dense_meta(args):
    """hardtanh_meta of a dense input only (elementwise_meta's): PyTorch
    1.13's reference lays some oddly strided inputs out otherwise."""
    bounds = _bounds(args)
    return None if bounds is None else elementwise_meta(args[:1])


def hardtanh_inplace_meta(args):
    """hardtanh_(x[, min_val[, max_val]]): x itself, as the meta kernel
    returns it, for a dense float x (elementwise_inplace_meta's inputs)."""
    bounds = _bounds(args)
    return None if bounds is None else elementwise_inplace_meta(args[:1])


def _bounds(args):
    """hardtanh's (min_val, max_val) when they are numbers, min <= max."""
    if not 1 <= len(args) <= 3:
        return None
    lo, hi = (tuple(args[1:]) + (-1, 1)[len(args) - 1:])[:2]
    if not (number(lo) and number(hi)) or isinstance(lo, bool) \
            or isinstance(hi, bool) or lo > hi:
        return None
    return lo, hi


def masked_fill_meta(args):
    """masked_fill(x, mask, number) of a float meta x and a bool meta mask
    that broadcasts to x: a new contiguous tensor of x's shape and dtype
    (the kernel's rule: "always a new contiguous tensor"). PyTorch 2.x's
    meta kernel is its Python reference (about 0.13 ms a call)."""
    if len(args) != 3:
        return None
    x, mask, value = args
    if not (isinstance(x, torch.Tensor) and x.is_meta
            and x.is_floating_point() and isinstance(mask, torch.Tensor)
            and mask.is_meta and mask.dtype == torch.bool) \
            or not number(value) or isinstance(value, bool) \
            or broadcast(x.shape, mask.shape) != list(x.shape):
        return None
    return torch.empty(x.shape, dtype=x.dtype, device=META)


def gelu_kw_meta(args, kwargs):
    """gelu(x, approximate="tanh" or "none") (Gemma's and SigLIP's
    GELU: a keyword argument, so the plain table's kernel is not asked):
    unary_meta's."""
    if set(kwargs) != {"approximate"} \
            or kwargs["approximate"] not in ("none", "tanh"):
        return None
    return unary_meta(args)
