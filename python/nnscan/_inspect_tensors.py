"""What the Inspector records of one tensor: role, dtype, shape, name,
bytes, and its NaN/Inf flags and statistics (min, max, mean, std, zeros)."""
import math
import weakref
from typing import NamedTuple, Optional, Tuple

from ._inspect_api import _T_CHECKED, _T_INF, _T_NAN, _T_STATS
from .graph import onnx_dtype


class TensorRecord(NamedTuple):
    """One tensor of one module call, as the library takes it."""
    role: int                 # _INPUT, _OUTPUT, _GRAD_INPUT, _GRAD_OUTPUT
    dtype: int                # ONNX element type
    shape: Tuple[int, ...]
    name: str                 # "0", "1.key": where it sat in the call
    nbytes: int
    flags: int                # _T_CHECKED, _T_NAN, _T_INF, _T_STATS
    stats: Optional[Tuple[float, float, float, float, float]]
    #                           min, max, mean, std, fraction of zeros


def _flatten(obj, prefix, out, depth=0):
    """(name, tensor) for every tensor in nested tuples, lists and dicts:
    "0", "1.0", "1.key"; at most 8 levels and 1024 tensors."""
    import torch
    if isinstance(obj, torch.Tensor):
        out.append((prefix, obj))
        return
    if depth >= 8 or len(out) >= 1024:
        return
    if isinstance(obj, (tuple, list)):
        for i, v in enumerate(obj):
            _flatten(v, f"{prefix}.{i}" if prefix else str(i), out, depth + 1)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)


class NonfiniteCheck:
    """NaN/Inf flags and optional statistics of tensors, each tensor
    looked at once per version (a tensor seen as an output and again as
    the next module's input costs one reduction)."""

    def __init__(self, torch, check_nonfinite, stats):
        self.torch = torch
        self.check_nonfinite = check_nonfinite
        self.stats = stats
        self.seen = {}  # id -> (weakref, version, flags, stats)

    def clear(self):
        self.seen = {}

    def __call__(self, t):
        """(flags with _T_CHECKED, stats or None) of t."""
        torch = self.torch
        if not self.check_nonfinite and not self.stats:
            return 0, None
        if not (t.is_floating_point() or t.is_complex()) or t.numel() == 0:
            return _T_CHECKED, None
        key = id(t)
        hit = self.seen.get(key)
        if hit is not None and hit[0]() is t and hit[1] == t._version \
                and (hit[3] is not None or not self.stats):
            return hit[2], hit[3]
        # The check's own ops skip the Python dispatch modes (the
        # Inspector's memory counter, a user's FlopCounterMode): they are
        # nobody's, and each would cost a Python call there. Only for a
        # plain tensor: a subclass's ops must reach its __torch_dispatch__.
        guard = torch._C._DisableTorchDispatch() \
            if type(t) in (torch.Tensor, torch.nn.Parameter) else None
        try:
            flags, st = self._check(t)
        finally:
            del guard
        try:
            self.seen[key] = (weakref.ref(t), t._version, flags, st)
        except TypeError:
            pass
        return flags, st

    def _check(self, t):
        torch = self.torch
        x = t.detach()
        if x.is_complex():
            x = torch.view_as_real(x)
        flags = _T_CHECKED
        # A finite sum means every element is finite (NaN and Inf
        # propagate; +Inf + -Inf is NaN): one reduction, no temporary. Only
        # a non-finite sum (or an overflow) needs the exact look.
        if not math.isfinite(float(x.sum())):
            if bool(torch.isnan(x).any()):
                flags |= _T_NAN
            if bool(torch.isinf(x).any()):
                flags |= _T_INF
        st = None
        if self.stats:
            f = x.float()
            fin = f[torch.isfinite(f)] if flags & (_T_NAN | _T_INF) else f
            if fin.numel():
                st = (float(fin.min()), float(fin.max()), float(fin.mean()),
                      float(fin.std()) if fin.numel() > 1 else 0.0,
                      float((f == 0).float().mean()))
                flags |= _T_STATS
        return flags, st

    def record(self, role, name, t, check=True):
        """The TensorRecord of t in the role it had. A DTensor is recorded
        by its local shard (checked there: no collective)."""
        local = getattr(t, "_local_tensor", None)
        if isinstance(local, self.torch.Tensor):
            t = local
        flags, st = self(t) if check else (0, None)
        return TensorRecord(role, onnx_dtype(t.dtype), tuple(t.shape), name,
                            t.numel() * t.element_size(), flags, st)
