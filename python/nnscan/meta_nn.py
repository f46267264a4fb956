"""fast_meta's kernels of normalizations, softmax, reductions, matrix
products and convolution."""
import torch

from .meta_layout import (
    META, broadcast, dense, empty_like, ints, new_strides, number, plain)


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
    if stats is None or not dense(x) \
            or args[5] and x.numel() <= c:  # one value per channel: the
        return None  # decomposition divides by n - 1 = 0 (it raises)
    return (empty_like(x),
            torch.empty((c,), dtype=stats, device=META),
            torch.empty((c,), dtype=stats, device=META))


def layer_norm_meta(args):
    """native_layer_norm(x, normalized_shape, weight, bias, eps) of a
    contiguous float32/float64 meta x, weight and bias None or meta of
    normalized_shape in x's dtype: the output contiguous like x, mean and
    rstd of x's leading dims followed by ones, in x's dtype. PyTorch 2.x's
    meta kernel is its Python reference (about 1.7 ms a call on vit_b_16,
    bench/recording_profile.py)."""
    return _layer_norm(args, plain)


def layer_norm_strided_meta(args):
    """layer_norm_meta of an x of any layout, on PyTorch 2.x: its reference
    makes all three outputs contiguous whatever x's strides (a permuted
    Swin or MaxViT activation; 1.13's lays some out otherwise)."""
    return _layer_norm(args, lambda t: isinstance(t, torch.Tensor)
                       and t.is_meta)


def _layer_norm(args, takes):
    """layer_norm_meta for an x that `takes` accepts."""
    if len(args) != 5:
        return None
    x, shape, w, b, eps = args
    if not takes(x) or x.dtype not in (torch.float32, torch.float64) \
            or not isinstance(shape, (list, tuple)) or not number(eps):
        return None
    n = len(shape)
    if n == 0 or n > x.dim() or list(x.shape[x.dim() - n:]) != list(shape):
        return None
    for t in (w, b):
        if t is not None and not (plain(t) and t.dtype == x.dtype
                                  and list(t.shape) == list(shape)):
            return None
    stats = list(x.shape[:x.dim() - n]) + [1] * n
    return (torch.empty(x.shape, dtype=x.dtype, device=META),
            torch.empty(stats, dtype=x.dtype, device=META),
            torch.empty(stats, dtype=x.dtype, device=META))


def group_norm_meta(args):
    """native_group_norm(x, weight, bias, N, C, HxW, group, eps) of a float
    contiguous meta x of N x C x ..., weight and bias None or meta of
    (C,), group dividing C: the output a contiguous tensor like x, mean
    and rstd (N, group), all in x's dtype, as PyTorch's meta kernel gives
    them (its Python decomposition, 0.8 ms a call: most of BiT's and
    PoolFormer's recording). A channels-last x is declined: PyTorch 2.11
    lays its output out channels-last, 2.14 contiguously."""
    if len(args) != 8:
        return None
    x, w, b, n, c, hw, group, eps = args
    if not (plain(x) and x.is_floating_point()) or x.dim() < 2 \
            or not all(type(v) is int for v in (n, c, hw, group)) \
            or not number(eps) or group <= 0 or c % group \
            or list(x.shape[:2]) != [n, c] or x.numel() != n * c * hw \
            or x.numel() == 0:
        return None
    for t in (w, b):
        if t is not None and not (isinstance(t, torch.Tensor) and t.is_meta
                                  and list(t.shape) == [c]):
            return None
    return (torch.empty(x.shape, dtype=x.dtype, device=META),
            torch.empty((n, group), dtype=x.dtype, device=META),
            torch.empty((n, group), dtype=x.dtype, device=META))


def softmax_meta(args):
    """_safe_softmax(x, dim[, dtype]): x's shape and layout, in dtype."""
    if len(args) not in (2, 3) or not isinstance(args[1], int):
        return None
    x = args[0]
    dt = args[2] if len(args) == 3 and args[2] is not None else None
    if not isinstance(x, torch.Tensor) or not x.is_meta \
            or not x.is_floating_point() or not dense(x) \
            or not -max(x.dim(), 1) <= args[1] < max(x.dim(), 1) \
            or dt is not None and not (isinstance(dt, torch.dtype)
                                       and dt.is_floating_point):
        return None
    return empty_like(x, dt)


def plain_softmax_meta(args):
    """_softmax(x, dim, half_to_float=False) of a contiguous float x: a
    contiguous tensor like it (the kernel lays a strided input's result
    out contiguously, not as _safe_softmax does: declined)."""
    if len(args) != 3 or args[2] is not False or not plain(args[0]):
        return None
    return softmax_meta(args[:2])


def softmax_backward_meta(args):
    """_softmax_backward_data(grad, output, dim, input_dtype): grad's shape
    in the input's dtype, for contiguous grad and output."""
    if len(args) != 4 or not plain(args[0]) or not plain(args[1]) \
            or args[0].shape != args[1].shape \
            or not isinstance(args[3], torch.dtype) \
            or not args[3].is_floating_point:
        return None
    return torch.empty(args[0].shape, dtype=args[3], device=META)


def mean_meta(args):
    """mean.dim(x, dims[, keepdim]) (and sum.dim_IntList) of a contiguous
    float x: its dtype, the reduced shape."""
    if len(args) not in (2, 3):
        return None
    x, dims = args[0], args[1]
    keep = args[2] if len(args) == 3 else False
    if not plain(x) or not x.is_floating_point() or x.dim() == 0 \
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
    return torch.empty(shape, dtype=x.dtype, device=META)


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
            or not number(order) or isinstance(order, bool) \
            or not isinstance(keep, bool) \
            or dims is not None and not ints(dims):
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
    return torch.empty(shape, dtype=x.dtype, device=META)


def cumsum_meta(args):
    """cumsum(x, dim) of a contiguous meta x (position ids from an
    attention mask): contiguous, x's dtype if it is a float, else int64
    (PyTorch's promotion of integers and bools)."""
    if len(args) != 2 or not plain(args[0]) or type(args[1]) is not int \
            or args[0].is_complex() \
            or not -max(args[0].dim(), 1) <= args[1] < max(args[0].dim(), 1):
        return None
    x = args[0]
    dt = x.dtype if x.is_floating_point() else torch.int64
    return torch.empty(x.shape, dtype=dt, device=META)


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
        torch.empty(dims, dtype=args[0].dtype, device=META)


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
                       device=META)


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
    if broadcast(bias.shape, dims) != dims:
        return None
    return torch.empty(dims, dtype=a.dtype, device=META)


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
    if not (plain(x) and plain(w)) or x.dtype != w.dtype \
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
    return torch.empty(out, dtype=x.dtype, device=META)


def convolution_113_meta(args):
    """convolution_meta for PyTorch 1.13, whose meta kernel (Python, 40 us
    a call) lays the output out channels-last where the input's or the
    weight's strides look channels-last, which a contiguous tensor's can
    (a depthwise weight converted to channels-last: its dim of length 1):
    answers an input and a weight with a new tensor's strides only."""
    if len(args) != 9 or not all(isinstance(t, torch.Tensor) and
                                 new_strides(t) for t in args[:2]):
        return None
    return convolution_meta(args)


def weight_norm_meta(args):
    """_weight_norm_interface(v, g, dim) of contiguous float32/float64 meta
    v and g (wav2vec2's positional convolution): the weight like v and
    the norms like g, contiguous, in v's dtype."""
    if len(args) != 3 or not plain(args[0]) or not plain(args[1]) \
            or args[0].dtype not in (torch.float32, torch.float64) \
            or args[1].dtype != args[0].dtype or type(args[2]) is not int:
        return None
    v, g, dim = args
    r = v.dim()
    if g.dim() != r or not 0 <= dim < r or any(  # (-1: the whole norm)
            g.shape[i] != (v.shape[i] if i == dim else 1)
            for i in range(r)):
        return None
    return (torch.empty(v.shape, dtype=v.dtype, device=META),
            torch.empty(g.shape, dtype=v.dtype, device=META))
