"""Which real values a recording hands to the library: attention masks.

On the meta path the recorder keeps real values for the small integer and
boolean tensors that decide masks (shadow.py). The library counts the two
attention products over the (query, key) pairs a mask allows
(macs_unmasked, src/analyze/attention.c) when it knows the mask's
contents. At the end of a recording, track() notes which recorded values
have a real value (Graph.tracked); once the graph is built and inferred,
hand_over() asks the library which of them its mask counts read
(nns_model_mask_inputs: the graph is the library's, so the question is
too) and gives it those, computing only them (shadow values are computed
when first read), within MAX_BYTES per recording
(nns_model_set_value_data). Fills (ones, zeros, full: pending, or
computed already for another layer's) are given first, as their one
element, which the library reads a
triangle of (ones(L, S).tril(), PyTorch's math SDPA causal mask on meta)
from: neither tensor is then made. Nothing else a recording tracks
leaves Python (docs/python.md, "Real values on the meta path").
"""
import torch
from torch.utils._mode_utils import no_dispatch as _no_dispatch

MAX_BYTES = 1 << 30


def track(b):
    """Value name -> meta tensor, for the recorded values of b's graph
    that have a real value (a shadow) under that very name."""
    shadows = b.shadows
    if shadows is None or not shadows.of:
        return {}
    names, tracked = b.names, {}
    for i, (t, _) in shadows.of.items():
        n = names.get(i)
        if n is not None and names.get(id(t)) == n:
            tracked[n] = t
    # a replayed call's (replay.py): the tensors of the call it copies,
    # under its own names, while they have their value
    for n, t in b.replayed_tracked:
        e = shadows.of.get(id(t))
        if e is not None and e[0] is t:
            tracked[n] = t
    return tracked


def hand_over(handle, rec):
    """Gives the library (handle: the recording's graph, built and
    inferred) the contents of the tracked values its mask counts read."""
    tracked = rec.graph.tracked
    if not tracked:
        return
    shadows = rec.builder.shadows
    names = list(tracked)
    # Fills (ones, zeros, full; computed or not) are given first, as their
    # one element: the library reads a triangle of one (the causal mask
    # PyTorch's math SDPA builds on meta, ones(L, S).tril()) from its
    # diagonal, and then asks for neither tensor.
    fills = {}  # (dtype, type, number) -> names
    for name, t in tracked.items():
        f = shadows.fill_of(t)
        if f is not None and t.numel() > 1:
            fills.setdefault((t.dtype, type(f), f), []).append(name)
    for (dtype, _, f), same in fills.items():
        dt = onnx_dtype(dtype)
        if dt:
            handle.set_value_data(same, dt, [], number_bytes(f, dtype))
    # Values of one computation (the same mask built in every layer:
    # shadow.py's memo) are handed over once, under all their names, and
    # the library counts the mask once.
    groups = {}  # computation (or value) -> (value, names)
    for k in handle.mask_inputs(names):
        name = names[k]
        v = shadows.value(tracked[name])
        if v is not None:
            key = shadows.key_of.get(id(v), id(v))
            groups.setdefault(key, (v, []))[1].append(name)
    spent = 0
    for v, same in groups.values():
        n = v.numel() * v.element_size()
        if spent + n > MAX_BYTES:
            break
        spent += n
        dt, dims, raw = _raw(v)
        if dt:  # else a dtype the library cannot decode: not handed over
            handle.set_value_data(same, dt, dims, raw)


def tensor_bytes(t):
    """A CPU tensor's elements as little-endian bytes of its own dtype,
    whatever that dtype (bfloat16, float16 and the rest included), as a
    view (graph.pack's join copies them once): the library decodes them by
    its own dtype table (src/ir/tensor.c), so no dtype list is kept here.
    The ops run below a recording's dispatch mode (the recorder calls this
    while its mode is on, on PyTorch 2.x), so none of them is recorded."""
    with _no_dispatch():
        flat = t.detach().contiguous().reshape(-1)
        if not flat.numel():
            return b""
        return memoryview(flat.view(torch.uint8).numpy())


def number_bytes(v, dtype):
    """The number v (or a list of them) as elements of dtype, little-endian
    (tensor_bytes), made by PyTorch itself below any recording's dispatch
    mode. Memoised: a model makes the same few constants (reshape targets,
    scales) in every layer, and making one costs about 20 us."""
    if type(v) is list and set(map(type, v)) <= _INT:
        key = (dtype, list, tuple(v))  # ints: equal is the same bytes
    else:
        key = (dtype, type(v), repr(v) if not isinstance(v, list) else
               tuple((type(x), repr(x)) for x in v))
    got = _NUMBERS.get(key)
    if got is None:
        with _no_dispatch():
            got = bytes(tensor_bytes(_TENSOR(v, dtype=dtype)))
        if len(_NUMBERS) < 4096:
            _NUMBERS[key] = got
    return got


_NUMBERS = {}  # (dtype, type, repr) -> bytes: number_bytes' memo
_INT = {int}


_TENSOR = torch.tensor  # PyTorch's own, not shadow.py's wrapper of a recording


def onnx_dtype(dtype):
    from .graph import onnx_dtype
    return onnx_dtype(dtype)


def _raw(v):
    """(ONNX dtype, dims, little-endian bytes) of a CPU tensor; the dtype 0
    (unknown to the library) for one the library does not name."""
    return onnx_dtype(v.dtype), list(v.shape), tensor_bytes(v)
