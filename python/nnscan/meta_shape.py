"""fast_meta's kernels of concatenations, rolls, index lookups, triangles,
and the factories called with keyword arguments (arange, zeros_like,
ones, new_ones, scalar_tensor) and clone with a memory format."""
import torch

from .meta_elementwise import clone_meta as _clone_meta
from .meta_layout import META, empty_like, ints, plain


def cat_meta(args):
    """cat(tensors[, dim]) of meta tensors of one dtype and rank that agree
    off the axis (one may be empty along it: Phi-3's rotary part beside a
    pass-through part of width 0), beside any legacy 1-D empty tensors,
    which cat skips (a KV cache's first step: a (0,) tensor and the new keys,
    transposed): an output laid out as PyTorch's rule lays it (_cat_format:
    contiguous but where every input suggests one channels-last format)."""
    if len(args) not in (1, 2) or not isinstance(args[0], (list, tuple)) \
            or not args[0]:
        return None
    ts, dim = args[0], args[1] if len(args) == 2 else 0
    if not all(isinstance(t, torch.Tensor) and t.is_meta for t in ts):
        return None
    kept = [t for t in ts if not (t.dim() == 1 and t.numel() == 0)] \
        if any(t.dim() != 1 for t in ts) else ts
    first = kept[0] if kept else None
    if first is None or not isinstance(dim, int) or first.dim() == 0:
        return None
    r = first.dim()
    if not -r <= dim < r:
        return None
    dim %= r
    total = 0
    for t in kept:
        if t.dtype != first.dtype or t.dim() != r \
                or any(t.shape[i] != first.shape[i]
                       for i in range(r) if i != dim):
            return None
        total += t.shape[dim]
    shape = list(first.shape)
    shape[dim] = total
    return torch.empty(shape, dtype=first.dtype, device=META,
                       memory_format=_cat_format(ts))


def _cat_format(ts):
    """The memory format of cat's output (PyTorch's
    cat_compute_output_memory_format, over every input, the skipped empty
    ones too): contiguous as soon as one input suggests it or two suggest
    different ones, else the channels-last format they all suggest. Only
    4 and 5 dims can suggest a channels-last one."""
    fmt = None
    for t in ts:
        f = _suggested(t)
        if f == torch.contiguous_format or fmt is not None and fmt != f:
            return torch.contiguous_format
        fmt = f
    return fmt


def _suggested(t):
    """t.suggest_memory_format(), as PyTorch's _prims_common gives it."""
    if t.dim() not in (4, 5) or t.is_contiguous():
        return torch.contiguous_format
    from torch._prims_common import suggest_memory_format
    return suggest_memory_format(t)


def stack_meta(args):
    """stack(tensors[, dim]) of meta tensors of one shape and dtype: as
    PyTorch's reference makes it, a cat along dim then a view (dim inside
    the rank; a contiguous result only), or a cat of the tensors
    unsqueezed at dim (dim last: a GPT-J rotary's stack of -x2 and a
    strided x1)."""
    if len(args) not in (1, 2) or not isinstance(args[0], (list, tuple)) \
            or not args[0]:
        return None
    ts, dim = args[0], args[1] if len(args) == 2 else 0
    first = ts[0]
    if not (isinstance(first, torch.Tensor) and first.is_meta) \
            or type(dim) is not int \
            or not -first.dim() - 1 <= dim <= first.dim():
        return None
    for t in ts:
        if not (isinstance(t, torch.Tensor) and t.is_meta) \
                or t.dtype != first.dtype or t.shape != first.shape:
            return None
    d = dim % (first.dim() + 1)
    if d == first.dim():
        return cat_meta(([t.unsqueeze(d) for t in ts], d))
    out = cat_meta((ts, d))
    if out is None or not out.is_contiguous():
        return None
    shape = list(first.shape)
    shape.insert(d, len(ts))
    return torch.empty(shape, dtype=first.dtype, device=META)


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
    if not plain(x) or x.dim() == 0 or x.numel() == 0 \
            or not ints(shifts) or not ints(dims) or not shifts \
            or (len(shifts) != len(dims) if dims else len(shifts) != 1) \
            or any(not -x.dim() <= d < x.dim() for d in dims):
        return None
    return torch.empty(x.shape, dtype=x.dtype, device=META)


def index_meta(args):
    """index.Tensor(x, [idx]) of a contiguous meta x with dims, indexed
    along dim 0 by one int64 or int32 meta tensor (a relative position
    bias table looked up by its index buffer): a contiguous tensor of
    idx's shape followed by x's other dims, in x's dtype. Bool masks,
    several indices and None in the list are declined."""
    if len(args) != 2 or not plain(args[0]) or args[0].dim() == 0 \
            or not isinstance(args[1], (list, tuple)) or len(args[1]) != 1:
        return None
    x, (idx,) = args[0], args[1]
    if not (isinstance(idx, torch.Tensor) and idx.is_meta
            and idx.dtype in (torch.int64, torch.int32)):
        return None
    return torch.empty(list(idx.shape) + list(x.shape[1:]), dtype=x.dtype,
                       device=META)


def embedding_meta(args):
    """embedding(weight, indices[, padding_idx, scale_grad_by_freq,
    sparse]) of a 2-D meta weight and int64 or int32 meta indices: a
    contiguous tensor of the indices' shape and one row, in the weight's
    dtype, whatever the two's strides (PyTorch 2.x's reference: an
    index_select, then a view)."""
    if not 2 <= len(args) <= 5:
        return None
    w, idx = args[0], args[1]
    if not (isinstance(w, torch.Tensor) and w.is_meta and w.dim() == 2
            and isinstance(idx, torch.Tensor) and idx.is_meta
            and idx.dtype in (torch.int64, torch.int32)):
        return None
    return torch.empty(list(idx.shape) + [w.shape[1]], dtype=w.dtype,
                       device=META)


def tril_meta(args):
    """tril/triu(x[, diagonal]) of a contiguous matrix or batch of them."""
    if len(args) not in (1, 2) or not plain(args[0]) or args[0].dim() < 2 \
            or len(args) == 2 and not isinstance(args[1], int):
        return None
    return torch.empty(args[0].shape, dtype=args[0].dtype, device=META)


def slice_backward_meta(args):
    """slice_backward(grad, input_sizes, ...): zeros of the input's sizes
    in grad's dtype, contiguous whatever grad's layout."""
    if len(args) != 6 or not isinstance(args[0], torch.Tensor) \
            or not args[0].is_meta or args[0].dim() != len(args[1]) \
            or not all(isinstance(n, int) and n >= 0 for n in args[1]):
        return None
    return torch.empty(list(args[1]), dtype=args[0].dtype, device=META)


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
    return torch.empty((n,), dtype=dt or torch.int64, device=META)


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
    rest.setdefault("device", META)
    meta, dt = _on_meta(rest)
    if not meta or dt is not None and not isinstance(dt, torch.dtype):
        return None
    return empty_like(args[0], dt)


def _sizes(size):
    """A factory's size argument, Python ints none negative (a torch.Size
    is a tuple), or None (a symbolic or negative size: PyTorch's kernel
    says what it says)."""
    return size if ints(size) and min(size, default=0) >= 0 else None


def _real(dt):
    """A dtype a factory's fast answer may take: a torch.dtype, not
    complex (meta complex factories are PyTorch's)."""
    return isinstance(dt, torch.dtype) and not dt.is_complex


def factory_kw_meta(args, kwargs):
    """ones / zeros / empty(size, dtype=..., device=meta, ...): a contiguous
    tensor of that size in the dtype asked for, or the default float dtype
    (transformers' causal masks: `torch.ones(q, k, dtype=torch.bool,
    device=meta)`, about 20 us a call as PyTorch's Python reference). A
    memory format asked of empty is declined, as is every size but a list
    of ints."""
    meta, dt = _on_meta(kwargs)
    size = _sizes(args[0]) if len(args) == 1 else None
    if not meta or size is None or dt is not None and not _real(dt):
        return None
    return torch.empty(size, dtype=dt or torch.get_default_dtype(),
                       device=META)


def new_factory_kw_meta(args, kwargs):
    """x.new_ones / new_zeros / new_empty(size, ...) of a meta x: a
    contiguous tensor of that size, x's dtype unless another is asked for,
    on meta (x's device, or the one asked for)."""
    if len(args) != 2 or not (isinstance(args[0], torch.Tensor)
                              and args[0].is_meta):
        return None
    rest = dict(kwargs)
    rest.setdefault("device", META)
    meta, dt = _on_meta(rest)
    size = _sizes(args[1])
    if not meta or size is None or dt is not None and not _real(dt):
        return None
    return torch.empty(size, dtype=dt or args[0].dtype, device=META)


def scalar_tensor_kw_meta(args, kwargs):
    """scalar_tensor(number, dtype=..., device=meta): a 0-dimensional
    tensor of the dtype asked for, or the default float dtype (what
    `torch.tensor(number)` of a float, and masked fills of a number in
    transformers' masks, become on meta)."""
    meta, dt = _on_meta(kwargs)
    if not meta or len(args) != 1 \
            or type(args[0]) not in (int, float, bool) \
            or dt is not None and not _real(dt):
        return None
    return torch.empty((), dtype=dt or torch.get_default_dtype(),
                       device=META)


def clone_kw_meta(args, kwargs):
    """clone(x, memory_format=...) of a meta x: with contiguous_format a
    contiguous tensor of x's size and dtype, whatever x's layout (the
    rotary and attention code of most decoders: `.contiguous()` of a
    transposed or expanded tensor); with preserve_format what clone(x)
    gives (clone_meta, which declines all but a contiguous x)."""
    if len(args) != 1 or set(kwargs) != {"memory_format"}:
        return None
    x, fmt = args[0], kwargs["memory_format"]
    if not isinstance(x, torch.Tensor) or not x.is_meta:
        return None
    if fmt is torch.contiguous_format:
        return torch.empty(x.shape, dtype=x.dtype, device=META)
    if fmt is torch.preserve_format:
        return _clone_meta(args)
    return None
