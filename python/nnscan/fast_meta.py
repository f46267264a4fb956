"""Cheaper meta kernels for the recorder (FAST_META).

On PyTorch 2.x many ops' meta kernels are Python decompositions: on a
LLaMA-3-8B forward on meta an element-wise mul or add costs about 90 us
and a softmax 570 us, most of the forward's time, where all a recording
needs is the output's shape, dtype and layout. The kernels here answer
the plain calls (meta inputs laid out densely, float results) with an
empty output exactly as PyTorch's kernel would make it, and decline (None:
PyTorch's own kernel runs, and raises what it raises) everything else.
python/tests/test_fast_meta.py compares each with PyTorch's.

A call with keyword arguments (gelu's `approximate`, a factory's
`device` and `dtype`) is answered from FAST_META_KW, whose kernels take
(args, kwargs); FAST_META's are asked only for calls without them.

PyTorch 1.13's meta kernels for the element-wise ops and the matrix
products are C++ and cheaper than any Python answer, so only BatchNorm,
LayerNorm and the hard activations (whose meta kernels are decompositions
there too) are answered on 1.13. bench/recording_profile.py --ops prints
each op's kernel time per forward, to find the next one.
"""
import torch

_META = torch.device("meta")  # (a string device is parsed per call)

_STATS_DTYPE = {torch.float16: torch.float32, torch.bfloat16: torch.float32,
                torch.float32: torch.float32, torch.float64: torch.float64}


def batch_norm_meta(args):
    """native_batch_norm on meta tensors, as PyTorch's meta decomposition
    gives it (the output laid out like the input, in its dtype; the saved
    mean and inverse deviation of shape (C,) in the computation dtype)
    without the dozen element-wise meta ops that decomposition runs in
    Python: 80 % of a BatchNorm model's meta forward on PyTorch 2.x, a
    fifth on 1.13. Eval mode with running statistics, and training mode
    with or without them (BiT's weight standardization: batch_norm of the
    weight, training=True, none), whose outputs are alike. None for
    anything else: eval without statistics, a tensor not on meta or oddly
    laid out, a shape or dtype the kernel might refuse."""
    if len(args) != 8 or not isinstance(args[5], bool):
        return None
    x, w, bias, mean, var = args[:5]
    if not isinstance(x, torch.Tensor) or not x.is_meta or x.dim() < 2 \
            or (mean is None or var is None) and not args[5] \
            or (mean is None) != (var is None):
        return None
    stats = _STATS_DTYPE.get(x.dtype)
    c = x.shape[1]
    for t in (w, bias, mean, var):
        if t is not None and not (isinstance(t, torch.Tensor) and t.is_meta
                                  and t.dim() == 1 and t.shape[0] == c
                                  and t.dtype in _STATS_DTYPE):
            return None
    if stats is None or not _dense(x) \
            or args[5] and x.numel() <= c:  # one value per channel: the
        return None  # decomposition divides by n - 1 = 0 (it raises)
    return (empty_like(x),
            torch.empty((c,), dtype=stats, device=_META),
            torch.empty((c,), dtype=stats, device=_META))


def _like_by_order():
    """Whether torch.empty_like of a meta tensor lays its result out as
    _physical_order says, whatever the input's strides: on PyTorch 2.x its
    meta kernel is the Python reference (empty_permuted in that order,
    about 100 us a call); 1.13's C++ kernel keeps the strides of a dense
    input (those of its dims of length 1 too), and is cheap."""
    x = torch.empty_strided((2, 1, 3), (3, 7, 1), device=_META)
    y = torch.empty_strided((2, 3, 4), (1, 8, 2), device=_META)
    return torch.empty_like(x).stride() == (3, 3, 1) and \
        torch.empty_like(y).stride() == (1, 8, 2)


_LIKE_BY_ORDER = _like_by_order()


def _physical_order(x):
    """The order, outermost first, in which PyTorch 2.x's empty_like lays
    out the dims of x (its reference: the identity for a contiguous x, the
    channels-last order for a channels-last one, else the dims sorted by
    stride, ties and stride-0 dims left where the sort finds them)."""
    shape, st = x.shape, x.stride()
    nd = len(shape)
    if nd <= 1:
        return list(range(nd))
    c = x.is_contiguous()
    cl = nd == 4 and x.is_contiguous(memory_format=torch.channels_last)
    if c and not cl:
        return list(range(nd))
    if cl and not c:
        return [0] + list(range(2, nd)) + [1]

    def order(i, j):
        """> 0: dim j goes outside dim i; < 0: it stays inside; 0: either."""
        a, b = st[i], st[j]
        if a == 0 or b == 0:
            return 0
        if a == b:  # the longer dim outside
            return 0 if shape[i] == 0 or shape[j] != 0 and \
                shape[j] >= shape[i] else 1
        return -1 if b > a else 1

    perm = list(range(nd - 1, -1, -1))  # innermost first while sorting
    for k in range(1, nd):
        j = k
        for i in range(k - 1, -1, -1):
            c = order(perm[i], perm[j])
            if c > 0:
                perm[i], perm[j] = perm[j], perm[i]
                j = i
            elif c < 0:
                break
    return perm[::-1]


def empty_like(x, dtype=None):
    """torch.empty_like(x, dtype=dtype) of a meta tensor x: on PyTorch 2.x
    (_LIKE_BY_ORDER) made directly, in the order _physical_order gives,
    without the reference's Python (about 100 us a call)."""
    if not _LIKE_BY_ORDER:
        return torch.empty_like(x, dtype=dtype or x.dtype)
    if x.is_contiguous() and not (
            x.dim() == 4
            and x.is_contiguous(memory_format=torch.channels_last)):
        # the identity order (_physical_order's first answer)
        return torch.empty(x.shape, dtype=dtype or x.dtype, device=_META)
    return torch.empty_permuted(x.shape, _physical_order(x),
                                dtype=dtype or x.dtype, device=_META)


def clone_meta(args):
    """clone(x) without a memory format, of a contiguous meta x with
    elements: PyTorch's kernel keeps x's strides (those of its dims of
    length 1 too) where x is dense."""
    x = args[0] if len(args) == 1 else None
    if not isinstance(x, torch.Tensor) or not x.is_meta \
            or not x.is_contiguous() or x.numel() == 0:
        return None
    return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype,
                               device=_META)


def _dense(x):
    """Laid out so that an element-wise result is laid out like it, as
    torch.empty_like makes it."""
    return x.is_contiguous() or x.dim() == 4 and \
        x.is_contiguous(memory_format=torch.channels_last)


def _plain(x):
    """A contiguous meta tensor."""
    return isinstance(x, torch.Tensor) and x.is_meta and x.is_contiguous()


def _broadcast(s, t):
    """The broadcast of two shapes as a list, None where they do not
    broadcast: torch.broadcast_shapes' answer, which on PyTorch 2.x runs
    its Python reference (about 100 us a call, as much as the kernels
    here save)."""
    n = len(s) - len(t)
    if n < 0:
        s, t, n = t, s, -n
    out = list(s[:n])
    for x, y in zip(s[n:], t):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def _number(x):
    return isinstance(x, (int, float))


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
    return _like_input(args, _dense)


def unary_meta(args):
    """A one-input float element-wise op of PyTorch 2.x's table (neg,
    rsqrt; the Scalar forms through scalar_meta), on a meta input sliced
    or permuted as well as dense: the output is laid out as
    torch.empty_like lays it out (the input's strides where it is dense,
    else dense ones in the order of its strides), as PyTorch's element-wise
    kernels lay theirs out (the tests compare them over random strides;
    strides of dims of length 1 may differ, which no layout reads)."""
    return _like_input(args, _ordered)


def _ordered(x):
    """The dims longer than 1 have distinct, non-zero strides: one order
    of them, which PyTorch's kernels and empty_like both follow (a stride
    0 or a tie leaves the order to each one's own rule)."""
    seen = set()
    for n, s in zip(x.shape, x.stride()):
        if n != 1:
            if s == 0 or s in seen:
                return False
            seen.add(s)
    return True


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
    if len(args) != 2:
        return None
    a, b = args
    if not (isinstance(a, torch.Tensor) and a.is_meta):
        a, b = b, a
    if not _plain(a):
        out = _permuted_binary(a, b)
        return out if out is not None else _decided(args, _float_result)
    if isinstance(b, torch.Tensor) and b.is_meta:
        if not b.is_contiguous():
            return _decided(args, _float_result)
        shape = _broadcast(a.shape, b.shape)
        if shape is None:
            return None
    elif isinstance(b, torch.Tensor) and b.dim() == 0 \
            and b.device.type == "cpu" and a.dim() > 0:
        shape = a.shape
    elif _number(b) and not isinstance(b, bool):
        shape = a.shape
    else:
        return None
    dt = _float_result(a, b)
    return None if dt is None else torch.empty(shape, dtype=dt, device=_META)


def _float_result(a, b):
    """binary_meta's result dtype: a float, of operands that are not bool
    (PyTorch refuses a bool subtraction; integer results have rules of
    their own, as division's); None otherwise."""
    if a.dtype == torch.bool or getattr(b, "dtype", None) == torch.bool:
        return None
    dt = torch.result_type(a, b)
    return dt if dt.is_floating_point else None


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
    if not (isinstance(a, torch.Tensor) and a.is_meta) or a.dim() == 0:
        return None
    st = a.stride()
    if 0 in st or len(set(st)) != len(st):
        return None
    if isinstance(b, torch.Tensor) and not b.is_meta:
        if b.dim() != 0 or b.device.type != "cpu":
            return None  # (a 0-dim CPU tensor: a number as PyTorch wraps it)
    elif isinstance(b, torch.Tensor):
        if _broadcast(a.shape, b.shape) != list(a.shape):
            return None
    elif not (_number(b) and not isinstance(b, bool)):
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
    if not (isinstance(b, torch.Tensor) and b.is_meta) or b.dim() == 0:
        return None
    st = b.stride()
    if 0 in st or len(set(st)) != len(st):
        return None
    inner = max((s for s, n in zip(st, b.shape) if n > 1), default=0)
    if any(s < inner for s, n in zip(st, b.shape) if n == 1):
        return None  # a length-1 dim inside: PyTorch may order otherwise
    if isinstance(a, torch.Tensor):
        if not a.is_meta or _broadcast(a.shape, b.shape) != list(b.shape):
            return None
        lead = b.dim() - a.dim()  # a's missing leading dims: stride 0
        if sum(1 for n, s, m in zip(a.shape, a.stride(), b.shape[lead:])
               if n == m and (s != 0 or n > 1)) > 1:
            return None  # (a dim of its own expanded, stride 0, may decide)
        dt = result(a, b)
        if dt is not None and a.dim() and a.dtype != dt:
            return None  # converted first, into a dense copy that may decide
    elif _number(a) and not isinstance(a, bool):
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
    if len(args) == 3 and not (_number(args[2])
                               and not isinstance(args[2], bool)):
        return None
    if not (isinstance(a, torch.Tensor) and a.is_meta
            and a.is_floating_point()):
        return None
    if isinstance(b, torch.Tensor):
        if b.is_complex() or b.dtype == torch.bool \
                or not b.is_meta and not (b.dim() == 0
                                          and b.device.type == "cpu") \
                or _broadcast(a.shape, b.shape) != list(a.shape):
            return None
    elif not (_number(b) and not isinstance(b, bool)):
        return None
    return a


def minmax_meta(args):
    """maximum / minimum(a, b) of two meta tensors of real dtypes (RWKV's
    state, T5's position buckets): laid out as binary_meta lays a float
    result out; a bool or integer result too."""
    if len(args) != 2 or not all(isinstance(t, torch.Tensor) and t.is_meta
                                 for t in args):
        return None
    a, b = args
    if _plain(a) and _plain(b):
        shape = _broadcast(a.shape, b.shape)
        dt = _real_result(a, b)
        if shape is None or dt is None:
            return None
        return torch.empty(shape, dtype=dt, device=_META)
    return _decided(args, _real_result)


def _permuted_binary(a, b):
    """binary_meta where `a` is a permuted dense meta tensor (a transposed
    view, as the rotary products of a LLaMA layer: q.transpose(1, 2) * cos)
    of the result's shape, `b` a contiguous meta tensor broadcasting to it
    or a number: PyTorch's element-wise kernels order the output's dims by
    the first operand whose strides differ, here `a`'s, all distinct and
    non-zero, so the output is laid out as `a` (dense, a's strides)."""
    if not (isinstance(a, torch.Tensor) and a.is_meta and _permuted_dense(a)) \
            or a.dim() == 4 and a.is_contiguous(memory_format=torch.channels_last) \
            or a.dim() == 5 and a.is_contiguous(
                memory_format=torch.channels_last_3d):
        return None  # (channels-last: the kernels' own memory-format rules)
    if isinstance(b, torch.Tensor) and b.is_meta:
        if not b.is_contiguous():
            return None
        if _broadcast(a.shape, b.shape) != list(a.shape):
            return None
    elif not (_number(b) and not isinstance(b, bool)):
        return None
    if a.dtype == torch.bool or getattr(b, "dtype", None) == torch.bool:
        return None
    dt = torch.result_type(a, b)
    if not dt.is_floating_point:
        return None
    return torch.empty_strided(a.shape, a.stride(), dtype=dt, device=_META)


def _permuted_dense(x):
    """x's elements fill its storage span exactly in some order of its
    dims (a permutation of a contiguous tensor), no dim longer than 1
    with stride 0."""
    dims = sorted((s, n) for s, n in zip(x.stride(), x.shape) if n != 1)
    expect = 1
    for s, n in dims:
        if s != expect:
            return False
        expect *= n
    return True


def softplus_meta(args):
    """softplus(x[, beta[, threshold]]): numbers_meta's, its defaults
    trimmed too (Mamba's dt)."""
    return numbers_meta(args) if len(args) > 1 else unary_meta(args)


def numbers_meta(args):
    """x (op) numbers, each argument after x a number (clamp_min,
    clamp_max, softplus's beta and threshold, rsub.Scalar's other and
    alpha) or, for clamp, None (one bound of two; not both, which PyTorch
    refuses): a float x keeps its dtype and layout (unary_meta's)."""
    rest = args[1:]
    if not rest or not all(v is None or _number(v) and not isinstance(v, bool)
                           for v in rest) \
            or all(v is None for v in rest):
        return None
    return unary_meta(args[:1])


def scalar_meta(args):
    """x (op) number (mul.Scalar, add.Scalar, div.Scalar, pow.Tensor_Scalar):
    a float x keeps its dtype and layout (unary_meta's)."""
    if len(args) != 2 or not _number(args[1]) or isinstance(args[1], bool):
        return None
    return unary_meta(args[:1])


def where_meta(args):
    """where(condition, a, b) over contiguous meta tensors, a float result
    broadcast over the three."""
    if len(args) != 3 or not all(_plain(t) for t in args) \
            or args[0].dtype != torch.bool:
        return None
    dt = torch.result_type(args[1], args[2])
    if not dt.is_floating_point:
        return None
    shape = _broadcast(args[0].shape, args[1].shape)
    if shape is not None:
        shape = _broadcast(shape, args[2].shape)
    if shape is None:
        return None
    return torch.empty(shape, dtype=dt, device=_META)


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
    if not _plain(a) or a.is_complex():
        return None
    if isinstance(b, torch.Tensor):
        if not (_plain(b) and not b.is_complex()):
            return None
        shape = _broadcast(a.shape, b.shape)
        if shape is None:
            return None
    elif _number(b):
        shape = a.shape
    else:
        return None
    return torch.empty(shape, dtype=torch.bool, device=_META)


def softmax_meta(args):
    """_safe_softmax(x, dim[, dtype]): x's shape and layout, in dtype."""
    if len(args) not in (2, 3) or not isinstance(args[1], int):
        return None
    x = args[0]
    dt = args[2] if len(args) == 3 and args[2] is not None else None
    if not isinstance(x, torch.Tensor) or not x.is_meta \
            or not x.is_floating_point() or not _dense(x) \
            or not -max(x.dim(), 1) <= args[1] < max(x.dim(), 1) \
            or dt is not None and not (isinstance(dt, torch.dtype)
                                       and dt.is_floating_point):
        return None
    return empty_like(x, dt)


def plain_softmax_meta(args):
    """_softmax(x, dim, half_to_float=False) of a contiguous float x: a
    contiguous tensor like it (the kernel lays a strided input's result
    out contiguously, not as _safe_softmax does: declined)."""
    if len(args) != 3 or args[2] is not False or not _plain(args[0]):
        return None
    return softmax_meta(args[:2])


def vector_norm_meta(args):
    """linalg_vector_norm(x, ord[, dim[, keepdim]]) of a real float meta x
    (any strides: F.normalize's sliced heads), without a dtype: a
    contiguous tensor of the reduced shape in x's dtype (PyTorch's
    reference reduces into a new contiguous tensor; its meta kernel is that
    Python, about 0.43 ms a call on swin_v2_t)."""
    if not 2 <= len(args) <= 4:
        return None
    x, order = args[0], args[1]
    dims = args[2] if len(args) > 2 else None
    keep = args[3] if len(args) > 3 else False
    if not (isinstance(x, torch.Tensor) and x.is_meta
            and x.is_floating_point()) or x.numel() == 0 \
            or not _number(order) or isinstance(order, bool) \
            or not isinstance(keep, bool) \
            or dims is not None and not _ints(dims):
        return None
    r = x.dim()
    if dims is None or not dims:
        axes = set(range(r))
    elif r == 0 or any(not -r <= d < r for d in dims):
        return None
    else:
        axes = {d % r for d in dims}
        if len(axes) != len(dims):
            return None  # a dim named twice: PyTorch's error
    shape = [1 if i in axes else n for i, n in enumerate(x.shape)
             if keep or i not in axes]
    return torch.empty(shape, dtype=x.dtype, device=_META)


def index_meta(args):
    """index.Tensor(x, [idx]) of a contiguous meta x with dims, indexed
    along dim 0 by one int64 or int32 meta tensor (a relative position
    bias table looked up by its index buffer): a contiguous tensor of
    idx's shape followed by x's other dims, in x's dtype. Bool masks,
    several indices and None in the list are declined."""
    if len(args) != 2 or not _plain(args[0]) or args[0].dim() == 0 \
            or not isinstance(args[1], (list, tuple)) or len(args[1]) != 1:
        return None
    x, (idx,) = args[0], args[1]
    if not (isinstance(idx, torch.Tensor) and idx.is_meta
            and idx.dtype in (torch.int64, torch.int32)):
        return None
    return torch.empty(list(idx.shape) + list(x.shape[1:]), dtype=x.dtype,
                       device=_META)


def group_norm_meta(args):
    """native_group_norm(x, weight, bias, N, C, HxW, group, eps) of a float
    meta x of N x C x ..., weight and bias None or meta of (C,), group
    dividing C: the output a contiguous tensor like x, mean and rstd
    (N, group), all in x's dtype, as PyTorch's meta kernel gives them
    (its Python decomposition, 0.8 ms a call: most of BiT's and
    PoolFormer's recording)."""
    if len(args) != 8:
        return None
    x, w, b, n, c, hw, group, eps = args
    if not (isinstance(x, torch.Tensor) and x.is_meta
            and x.is_floating_point()) or x.dim() < 2 \
            or not all(type(v) is int for v in (n, c, hw, group)) \
            or not _number(eps) or group <= 0 or c % group \
            or list(x.shape[:2]) != [n, c] or x.numel() != n * c * hw:
        return None
    for t in (w, b):
        if t is not None and not (isinstance(t, torch.Tensor) and t.is_meta
                                  and list(t.shape) == [c]):
            return None
    return (torch.empty(x.shape, dtype=x.dtype, device=_META),
            torch.empty((n, group), dtype=x.dtype, device=_META),
            torch.empty((n, group), dtype=x.dtype, device=_META))


def cumsum_meta(args):
    """cumsum(x, dim) of a contiguous meta x (position ids from an
    attention mask): contiguous, x's dtype if it is a float, else int64
    (PyTorch's promotion of integers and bools)."""
    if len(args) != 2 or not _plain(args[0]) or type(args[1]) is not int \
            or args[0].is_complex() \
            or not -max(args[0].dim(), 1) <= args[1] < max(args[0].dim(), 1):
        return None
    x = args[0]
    dt = x.dtype if x.is_floating_point() else torch.int64
    return torch.empty(x.shape, dtype=dt, device=_META)


def stack_meta(args):
    """stack(tensors[, dim]) of contiguous meta tensors of one shape and
    dtype: contiguous, the new dim of their count at `dim`."""
    if len(args) not in (1, 2) or not isinstance(args[0], (list, tuple)) \
            or not args[0]:
        return None
    ts, dim = args[0], args[1] if len(args) == 2 else 0
    first = ts[0]
    if not _plain(first) or type(dim) is not int \
            or not -first.dim() - 1 <= dim <= first.dim():
        return None
    for t in ts:
        if not _plain(t) or t.dtype != first.dtype or t.shape != first.shape:
            return None
    shape = list(first.shape)
    shape.insert(dim % (first.dim() + 1), len(ts))
    return torch.empty(shape, dtype=first.dtype, device=_META)


def bitwise_meta(args):
    """bitwise_and / or / xor of two contiguous meta tensors of bool or
    integer dtypes (masks combined): the broadcast shape, contiguous, the
    promoted dtype."""
    if len(args) != 2 or not all(_plain(t) for t in args) \
            or any(t.is_floating_point() or t.is_complex() for t in args):
        return None
    shape = _broadcast(args[0].shape, args[1].shape)
    if shape is None:
        return None
    return torch.empty(shape, dtype=torch.result_type(*args), device=_META)


def weight_norm_meta(args):
    """_weight_norm_interface(v, g, dim) of contiguous float32/float64 meta
    v and g (wav2vec2's positional convolution): the weight like v and
    the norms like g, contiguous, in v's dtype."""
    if len(args) != 3 or not _plain(args[0]) or not _plain(args[1]) \
            or args[0].dtype not in (torch.float32, torch.float64) \
            or args[1].dtype != args[0].dtype or type(args[2]) is not int:
        return None
    v, g, dim = args
    r = v.dim()
    if g.dim() != r or not 0 <= dim < r or any(  # (-1: the whole norm)
            g.shape[i] != (v.shape[i] if i == dim else 1)
            for i in range(r)):
        return None
    return (torch.empty(v.shape, dtype=v.dtype, device=_META),
            torch.empty(g.shape, dtype=v.dtype, device=_META))


# ---- kernels of calls with keyword arguments (FAST_META_KW) ----

def _on_meta(kwargs):
    """A factory's keyword arguments place its result on meta, strided, not
    pinned, and name no other option: its dtype (None: the default)."""
    dev = kwargs.get("device")
    if dev is None or torch.device(dev).type != "meta" \
            or kwargs.get("layout") not in (None, torch.strided) \
            or kwargs.get("pin_memory") \
            or not set(kwargs) <= {"dtype", "layout", "device", "pin_memory"}:
        return False, None
    return True, kwargs.get("dtype")


def gelu_kw_meta(args, kwargs):
    """gelu(x, approximate="tanh" or "none") (Gemma's and SigLIP's
    GELU: a keyword argument, so the plain table's kernel is not asked):
    unary_meta's."""
    if set(kwargs) != {"approximate"} \
            or kwargs["approximate"] not in ("none", "tanh"):
        return None
    return unary_meta(args)


def arange_kw_meta(args, kwargs):
    """arange(end), arange(start, end[, step]) of Python ints on meta: a
    contiguous tensor of max(0, ceil((end - start) / step)) elements, int64
    or the dtype asked for (a real one)."""
    meta, dt = _on_meta(kwargs)
    if not meta or not 1 <= len(args) <= 3 \
            or not all(type(v) is int for v in args) \
            or dt is not None and (not isinstance(dt, torch.dtype)
                                   or dt.is_complex or dt == torch.bool):
        return None
    start, end, step = (0, args[0], 1) if len(args) == 1 else \
        (args[0], args[1], args[2] if len(args) == 3 else 1)
    if step == 0 or (end - start) * step < 0:
        return None  # PyTorch refuses it
    n = -(-(end - start) // step)
    if dt is not None and not dt.is_floating_point \
            and torch.iinfo(dt).max < max(abs(start), abs(end)):
        return None
    return torch.empty((n,), dtype=dt or torch.int64, device=_META)


def like_kw_meta(args, kwargs):
    """zeros_like / ones_like(x, dtype=..., device=meta, ...) of a meta x
    (Mamba's and RWKV's states): empty_like's layout, in the dtype asked
    for."""
    if len(args) != 1 or not (isinstance(args[0], torch.Tensor)
                              and args[0].is_meta):
        return None
    rest = dict(kwargs)
    fmt = rest.pop("memory_format", None)
    if fmt not in (None, torch.preserve_format):
        return None
    rest.setdefault("device", _META)
    meta, dt = _on_meta(rest)
    if not meta or dt is not None and not isinstance(dt, torch.dtype):
        return None
    return empty_like(args[0], dt)


def tril_meta(args):
    """tril/triu(x[, diagonal]) of a contiguous matrix or batch of them."""
    if len(args) not in (1, 2) or not _plain(args[0]) or args[0].dim() < 2 \
            or len(args) == 2 and not isinstance(args[1], int):
        return None
    return torch.empty(args[0].shape, dtype=args[0].dtype, device=_META)


def softmax_backward_meta(args):
    """_softmax_backward_data(grad, output, dim, input_dtype): grad's shape
    in the input's dtype, for contiguous grad and output."""
    if len(args) != 4 or not _plain(args[0]) or not _plain(args[1]) \
            or args[0].shape != args[1].shape \
            or not isinstance(args[3], torch.dtype) \
            or not args[3].is_floating_point:
        return None
    return torch.empty(args[0].shape, dtype=args[3], device=_META)


def slice_backward_meta(args):
    """slice_backward(grad, input_sizes, ...): zeros of the input's sizes
    in grad's dtype, contiguous whatever grad's layout."""
    if len(args) != 6 or not isinstance(args[0], torch.Tensor) \
            or not args[0].is_meta or args[0].dim() != len(args[1]) \
            or not all(isinstance(n, int) and n >= 0 for n in args[1]):
        return None
    return torch.empty(list(args[1]), dtype=args[0].dtype, device=_META)


def mean_meta(args):
    """mean.dim(x, dims[, keepdim]) (and sum.dim_IntList) of a contiguous
    float x: its dtype, the reduced shape."""
    if len(args) not in (2, 3):
        return None
    x, dims = args[0], args[1]
    keep = args[2] if len(args) == 3 else False
    if not _plain(x) or not x.is_floating_point() or x.dim() == 0 \
            or not isinstance(keep, bool) \
            or not isinstance(dims, (list, tuple)) \
            or not all(isinstance(d, int) and -x.dim() <= d < x.dim()
                       for d in dims):
        return None
    axes = {d % x.dim() for d in dims} if dims else set(range(x.dim()))
    if len(axes) != (len(dims) or x.dim()):
        return None  # a dim named twice: PyTorch's error
    shape = [1 if i in axes else n for i, n in enumerate(x.shape)
             if keep or i not in axes]
    return torch.empty(shape, dtype=x.dtype, device=_META)


def cat_meta(args):
    """cat(tensors[, dim]) of non-empty meta tensors of one dtype and rank
    that agree off the axis, each contiguous or laid out so that PyTorch
    suggests the contiguous format for it (_rows_last), beside any legacy
    1-D empty tensors, which cat skips (a KV cache's first step: a (0,)
    tensor and the new keys, transposed): a contiguous output."""
    if len(args) not in (1, 2) or not isinstance(args[0], (list, tuple)) \
            or not args[0]:
        return None
    ts, dim = args[0], args[1] if len(args) == 2 else 0
    if not all(isinstance(t, torch.Tensor) for t in ts):
        return None
    ts = [t for t in ts if not (t.dim() == 1 and t.numel() == 0)] \
        if any(t.dim() != 1 for t in ts) else ts
    first = ts[0] if ts else None
    if first is None or not isinstance(dim, int) or not _rows_last(first) \
            or first.dim() == 0:
        return None
    r = first.dim()
    if not -r <= dim < r:
        return None
    dim %= r
    total = 0
    for t in ts:
        if not _rows_last(t) or t.dtype != first.dtype or t.dim() != r \
                or t.numel() == 0 or any(t.shape[i] != first.shape[i]
                                         for i in range(r) if i != dim):
            return None
        total += t.shape[dim]
    shape = list(first.shape)
    shape[dim] = total
    return torch.empty(shape, dtype=first.dtype, device=_META)


def _rows_last(t):
    """A meta tensor PyTorch's cat lays out as contiguous: contiguous, or
    (a transposed or sliced view) its last dim innermost (stride 1, longer
    than 1) and, with 4 or 5 dims, dim 1's stride above 1, which no
    channels-last layout has."""
    if not (isinstance(t, torch.Tensor) and t.is_meta):
        return False
    if t.is_contiguous():
        return True
    st = t.stride()
    return t.dim() >= 2 and st[-1] == 1 and t.shape[-1] > 1 and \
        (t.dim() not in (4, 5) or st[1] > 1)


def layer_norm_meta(args):
    """native_layer_norm(x, normalized_shape, weight, bias, eps) of a
    contiguous float32/float64 meta x, weight and bias None or meta of
    normalized_shape in x's dtype: the output contiguous like x, mean and
    rstd of x's leading dims followed by ones, in x's dtype. PyTorch 2.x's
    meta kernel is its Python reference (about 1.7 ms a call on vit_b_16,
    bench/recording_profile.py)."""
    if len(args) != 5:
        return None
    x, shape, w, b, eps = args
    if not _plain(x) or x.dtype not in (torch.float32, torch.float64) \
            or not isinstance(shape, (list, tuple)) or not _number(eps):
        return None
    n = len(shape)
    if n == 0 or n > x.dim() or list(x.shape[x.dim() - n:]) != list(shape):
        return None
    for t in (w, b):
        if t is not None and not (_plain(t) and t.dtype == x.dtype
                                  and list(t.shape) == list(shape)):
            return None
    stats = list(x.shape[:x.dim() - n]) + [1] * n
    return (torch.empty(x.shape, dtype=x.dtype, device=_META),
            torch.empty(stats, dtype=x.dtype, device=_META),
            torch.empty(stats, dtype=x.dtype, device=_META))


def _matrices(a, b):
    """Two 2-D float meta matrices of one dtype that multiply: the
    product's dims, else None."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
            and a.is_meta and b.is_meta and a.dim() == 2 and b.dim() == 2
            and a.dtype == b.dtype and a.is_floating_point()
            and a.shape[1] == b.shape[0]):
        return None
    return [a.shape[0], b.shape[1]]


def mm_meta(args):
    """mm(a, b) of float meta matrices: a new contiguous [n, m] in their
    dtype, as PyTorch's meta kernel makes it (any input strides)."""
    dims = _matrices(*args) if len(args) == 2 else None
    return None if dims is None else \
        torch.empty(dims, dtype=args[0].dtype, device=_META)


def bmm_meta(args):
    """bmm(a, b) of 3-D float meta tensors of one dtype and batch that
    multiply: a new contiguous [batch, n, m], as mm_meta."""
    if len(args) != 2:
        return None
    a, b = args
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
            and a.is_meta and b.is_meta and a.dim() == 3 and b.dim() == 3
            and a.dtype == b.dtype and a.is_floating_point()
            and a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]):
        return None
    return torch.empty([a.shape[0], a.shape[1], b.shape[2]], dtype=a.dtype,
                       device=_META)


def addmm_meta(args):
    """addmm(bias, a, b) with the default beta and alpha (no kwargs: the
    recorder asks only then): mm_meta's output, the bias a meta tensor of
    the same dtype broadcasting to it. PyTorch 2.x's meta kernel is Python
    (about 0.75 ms a call on vit_b_16)."""
    if len(args) != 3:
        return None
    bias, a, b = args
    dims = _matrices(a, b)
    if dims is None or not isinstance(bias, torch.Tensor) \
            or not bias.is_meta or bias.dtype != a.dtype or bias.dim() > 2:
        return None
    if _broadcast(bias.shape, dims) != dims:
        return None
    return torch.empty(dims, dtype=a.dtype, device=_META)


def hardtanh_meta(args):
    """hardtanh(x[, min_val[, max_val]]) (ReLU6 is hardtanh(x, 0, 6)) of a
    float meta input: clamp's output, laid out as unary_meta lays it out.
    PyTorch 2.x's meta kernel is its Python reference (clamp under the
    type-promotion wrappers: about 0.7 ms a call, half of mobilenet_v2's
    recording). Declines min_val > max_val, which PyTorch refuses."""
    bounds = _bounds(args)
    return None if bounds is None else unary_meta(args[:1])


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
    if not (_number(lo) and _number(hi)) or isinstance(lo, bool) \
            or isinstance(hi, bool) or lo > hi:
        return None
    return lo, hi


def convolution_meta(args):
    """convolution(x, w, bias, stride, padding, dilation, transposed,
    output_padding, groups), not transposed, of contiguous float meta x and
    w of one dtype (and a bias of that dtype and w's output channels):
    PyTorch 2.x's meta kernel (_meta_registrations.meta_conv, Python: about
    25-35 us a call, every convolution of a CNN) makes a new contiguous
    tensor of x's dtype, each spatial size
    (size + 2 padding - dilation (kernel - 1) - 1) // stride + 1. Declines
    what PyTorch checks or treats apart: a kernel larger than the padded
    input, channels that do not divide into the groups, an empty dim,
    non-positive strides or dilations, negative padding."""
    if len(args) != 9 or args[6] is not False:
        return None
    x, w, bias, stride, padding, dilation, _, _, groups = args
    if not (_plain(x) and _plain(w)) or x.dtype != w.dtype \
            or not x.is_floating_point() or x.dim() != w.dim() \
            or not 3 <= x.dim() <= 5 or type(groups) is not int \
            or groups < 1:
        return None
    n = x.dim() - 2
    if not all(isinstance(v, (list, tuple)) and len(v) == n
               and all(type(i) is int for i in v)
               for v in (stride, padding, dilation)):
        return None
    cout = w.shape[0]
    if 0 in x.shape or 0 in w.shape or x.shape[1] != w.shape[1] * groups \
            or cout % groups:
        return None
    if bias is not None and not (
            isinstance(bias, torch.Tensor) and bias.is_meta
            and bias.dtype == x.dtype and tuple(bias.shape) == (cout,)):
        return None
    out = [x.shape[0], cout]
    for size, k, s, p, d in zip(x.shape[2:], w.shape[2:], stride, padding,
                                dilation):
        if s < 1 or d < 1 or p < 0 or size + 2 * p < d * (k - 1) + 1:
            return None
        out.append((size + 2 * p - d * (k - 1) - 1) // s + 1)
    return torch.empty(out, dtype=x.dtype, device=_META)


def roll_meta(args):
    """roll(x, shifts[, dims]) of a contiguous meta x with elements: a new
    contiguous tensor of x's shape and dtype. PyTorch 2.x's meta kernel is
    its Python reference (slices and a cat per rolled dim: about 0.45 ms a
    call, Swin's shifted windows). Declines the shifts and dims PyTorch
    refuses (none, unequal counts, a dim out of range)."""
    if not 2 <= len(args) <= 3:
        return None
    x, shifts = args[0], args[1]
    dims = args[2] if len(args) == 3 else []
    if not _plain(x) or x.dim() == 0 or x.numel() == 0 \
            or not _ints(shifts) or not _ints(dims) or not shifts \
            or (len(shifts) != len(dims) if dims else len(shifts) != 1) \
            or any(not -x.dim() <= d < x.dim() for d in dims):
        return None
    return torch.empty(x.shape, dtype=x.dtype, device=_META)


def _ints(v):
    return isinstance(v, (list, tuple)) and all(type(i) is int for i in v)


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
            or not _number(value) or isinstance(value, bool) \
            or _broadcast(x.shape, mask.shape) != list(x.shape):
        return None
    return torch.empty(x.shape, dtype=x.dtype, device=_META)


_aten = torch.ops.aten

# aten op -> a cheaper meta kernel answering some calls (None: not this one)
FAST_META = {_aten.native_batch_norm.default: batch_norm_meta,
             _aten.hardswish.default: elementwise_meta,
             _aten.hardsigmoid.default: elementwise_meta,
             _aten.hardswish_.default: elementwise_inplace_meta,
             _aten.hardsigmoid_.default: elementwise_inplace_meta,
             # a Python decomposition on 1.13 too (about 280 us a call)
             _aten.native_layer_norm.default: layer_norm_meta}

# Answered on PyTorch 2.x only (see the module doc); the tests check them
# against PyTorch's kernels on every version.
KERNELS_2X = {
    _aten.mul.Tensor: binary_meta,
    _aten.add.Tensor: binary_meta,
    _aten.sub.Tensor: binary_meta,
    _aten.mul.Scalar: scalar_meta,
    _aten.add.Scalar: scalar_meta,
    _aten.pow.Tensor_Scalar: scalar_meta,
    _aten.neg.default: unary_meta,
    _aten.rsqrt.default: unary_meta,
    _aten.where.self: where_meta,
    _aten.tril.default: tril_meta,
    _aten.triu.default: tril_meta,
    _aten.mean.dim: mean_meta,
    _aten.sum.dim_IntList: mean_meta,
    _aten.div.Tensor: binary_meta,
    _aten.div.Scalar: scalar_meta,
    _aten._softmax_backward_data.default: softmax_backward_meta,
    _aten.slice_backward.default: slice_backward_meta,
    _aten.cat.default: cat_meta,
    _aten.addmm.default: addmm_meta,
    _aten.mm.default: mm_meta,
    _aten.bmm.default: bmm_meta,
    _aten.gelu.default: unary_meta,
    _aten.tanh.default: unary_meta,
    _aten.silu.default: unary_meta,
    _aten.clone.default: clone_meta,
    _aten.relu.default: unary_meta,
    _aten.sigmoid.default: unary_meta,
    _aten.relu_.default: elementwise_inplace_meta,
    _aten.silu_.default: elementwise_inplace_meta,
    _aten.sigmoid_.default: elementwise_inplace_meta,
    _aten.hardtanh.default: hardtanh_meta,
    _aten.hardtanh_.default: hardtanh_inplace_meta,
    _aten.convolution.default: convolution_meta,
    _aten.roll.default: roll_meta,
    _aten.masked_fill.Scalar: masked_fill_meta,
    _aten.cos.default: unary_meta,
    _aten.sin.default: unary_meta,
    _aten.exp.default: unary_meta,
    _aten.log.default: unary_meta,
    _aten.sqrt.default: unary_meta,
    _aten.reciprocal.default: unary_meta,
    _aten.erf.default: unary_meta,
    _aten.log1p.default: unary_meta,
    _aten.abs.default: unary_meta,
    _aten.lt.Tensor: compare_meta,
    _aten.lt.Scalar: compare_meta,
    _aten.le.Tensor: compare_meta,
    _aten.le.Scalar: compare_meta,
    _aten.gt.Tensor: compare_meta,
    _aten.gt.Scalar: compare_meta,
    _aten.ge.Tensor: compare_meta,
    _aten.ge.Scalar: compare_meta,
    _aten.eq.Tensor: compare_meta,
    _aten.eq.Scalar: compare_meta,
    _aten.ne.Tensor: compare_meta,
    _aten.ne.Scalar: compare_meta,
}
KERNELS_2X.update({
    _aten.clamp.default: numbers_meta,
    _aten.clamp_min.default: numbers_meta,
    _aten.clamp_max.default: numbers_meta,
    _aten.softplus.default: softplus_meta,
    _aten.rsub.Scalar: numbers_meta,
    _aten.maximum.default: minmax_meta,
    _aten.minimum.default: minmax_meta,
    _aten._softmax.default: plain_softmax_meta,
    _aten.linalg_vector_norm.default: vector_norm_meta,
    _aten.index.Tensor: index_meta,
    _aten.native_group_norm.default: group_norm_meta,
    _aten.cumsum.default: cumsum_meta,
    _aten.stack.default: stack_meta,
    _aten.bitwise_and.Tensor: bitwise_meta,
    _aten.bitwise_or.Tensor: bitwise_meta,
    _aten.bitwise_xor.Tensor: bitwise_meta,
    _aten._weight_norm_interface.default: weight_norm_meta,
    _aten.add_.Tensor: inplace_binary_meta,
    _aten.sub_.Tensor: inplace_binary_meta,
    _aten.mul_.Tensor: inplace_binary_meta,
    _aten.div_.Tensor: inplace_binary_meta,
})

# aten op -> a kernel of (args, kwargs) for calls with keyword arguments,
# which the tables above are never asked (PyTorch 2.x only)
KWARGS_2X = {
    _aten.gelu.default: gelu_kw_meta,
    _aten.arange.default: arange_kw_meta,
    _aten.arange.start: arange_kw_meta,
    _aten.arange.start_step: arange_kw_meta,
    _aten.zeros_like.default: like_kw_meta,
    _aten.ones_like.default: like_kw_meta,
}
FAST_META_KW = {}
if hasattr(_aten, "_safe_softmax"):
    KERNELS_2X[_aten._safe_softmax.default] = softmax_meta

if int(torch.__version__.split(".")[0]) >= 2:
    FAST_META.update(KERNELS_2X)
    FAST_META_KW.update(KWARGS_2X)
