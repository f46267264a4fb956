"""Which real values a recording hands to the library: attention masks.

On the meta path the recorder keeps real values for the small integer and
boolean tensors that decide masks (shadow.py). The library counts the two
attention products over the (query, key) pairs a mask allows
(macs_unmasked, src/analyze/attention.c) when it knows the mask's
contents, so at the end of a recording the values the mask ops read are
handed over with the graph (Graph.known, the packed value_data record).

What is handed over (docs/python.md, "Real values on the meta path"):
a tracked tensor (one with a real value) that a recorded `Add` or `Where`
reads beside an activation (a tensor without a real value), i.e. a mask or
bias applied to scores. Rather than the value itself, the inputs it was
made from are handed over when they say the same with fewer bytes and the
library can follow them back (attention.c's find_masks): a broadcast,
reshape or cast of a tracked tensor, and a `Where` that turns a boolean
mask into an additive one from two numbers. A mask too large to track
(shadow.MAX_ELEMENTS) goes over as the tracked values it is made from
(_made_from: compared positions, a padding mask). Only the values handed over
are computed (shadow values are computed when first read), within
MAX_BYTES per recording; nothing else a recording tracks leaves Python.
"""
import torch
from torch.utils._mode_utils import no_dispatch as _no_dispatch

MAX_BYTES = 1 << 30

# ONNX ops (as ops_map emits them) whose output carries its input's values
# re-shaped, broadcast or cast: the library follows them back
_KEEP = frozenset(("Reshape", "Expand", "Unsqueeze", "Squeeze", "Flatten",
                   "Cast", "Identity"))


def _sources(g, producer, tracked, name, depth=0):
    """The tracked values `name` is made from that the library can follow
    back to (see the module docstring). producer: tracked value name -> the
    index of its node in g.nodes. (A function of the module, not a closure
    of hand_over: a closure that calls itself is a reference cycle, which
    kept the whole recorded graph for the cyclic collector to free.)"""
    k = producer.get(name)
    if k is None or depth > 8:
        return [name]
    op, _, ins = g.nodes[k][0], g.nodes[k][1], g.nodes[k][2]
    if op in _KEEP and ins and ins[0] in tracked:
        return _sources(g, producer, tracked, ins[0], depth + 1)
    if op == "Where" and len(ins) == 3 and all(
            i in tracked or i in g.inits for i in ins) \
            and all(_numel(g, i) == 1 for i in ins[1:]):
        return _sources(g, producer, tracked, ins[0], depth + 1) + [
            i for i in ins[1:] if i in tracked]
    return [name]


def hand_over(b):
    """Puts the contents of the masks b's graph reads into b.g.known."""
    shadows = b.shadows
    if shadows is None or not shadows.of:
        return
    g = b.g
    tracked = {}  # value name -> meta tensor with a shadow
    for i, (t, _) in shadows.of.items():
        n = b.names.get(i)
        if n is not None and b.names.get(id(t)) == n:
            tracked[n] = t
    if not tracked:
        return
    producer = {}  # tracked value name -> its node
    kept = {}      # untracked output of a _KEEP op -> its input
    uses = []      # the Add and Where nodes
    for k, node in enumerate(g.nodes):
        op = node[0]
        if op == "Add" or op == "Where":
            uses.append(node)
        for o in node[3]:
            if o in tracked:
                producer[o] = k
            elif op in _KEEP and node[2]:
                kept[o] = node[2][0]

    def tracked_behind(name):
        """The tracked value an untracked one carries through _KEEP ops
        (a mask cast to the scores' dtype: PyTorch's math SDPA upcasts a
        16-bit one to float32), or name itself."""
        for _ in range(8):
            if name in tracked or name not in kept:
                break
            name = kept[name]
        return name

    made = None  # every value -> its node, for _made_from (built once)
    want = []
    for op, _, ins, _, _, _, _ in uses:
        if op == "Add" and len(ins) == 2:
            sides = [ins[0], ins[1]]
        elif op == "Where" and len(ins) == 3:
            sides = [ins[1], ins[2]]
        else:
            continue
        if not any(tracked_behind(s) not in tracked and s not in g.inits
                   for s in sides):
            continue  # no activation: mask arithmetic, not a mask applied
        picks = [ins[0]] if op == "Where" else []
        picks += [t for t in map(tracked_behind, sides) if t in tracked]
        for p in picks:
            if p in tracked:
                want.extend(_sources(g, producer, tracked, p))
        # a mask too large to track: the tracked values it is made from
        # (positions compared, a padding mask), which the library reads
        # it from (attention.c's find_masks)
        for s in ([ins[0]] if op == "Where" else sides):
            if tracked_behind(s) not in tracked and s not in g.inits:
                if made is None:
                    made = {o: node for node in g.nodes for o in node[3]}
                for t in _made_from(s, made, tracked, g.inits):
                    want.extend(_sources(g, producer, tracked, t))
    # The one-number branches of every Where (0 and the dtype's lowest, the
    # fill of an additive mask): cheap, and what lets the library tell a
    # mask applied to the scores from a bias even when the mask itself is
    # too large to track (a causal mask over 2^24 elements): it is then a
    # mask whose contents are not known, and said, not counted as exact.
    for op, _, ins, _, _, _, _ in uses:
        if op == "Where" and len(ins) == 3:
            want.extend(i for i in ins[1:]
                        if i in tracked and _numel(g, i) == 1)
    # Values of one computation (the same mask built in every layer:
    # shadow.py's memo) are handed over once: the names after the first
    # carry no bytes (the record's "same as the last" form), and the
    # library counts the mask once.
    groups = {}  # computation (or value) -> (value, names)
    for name in dict.fromkeys(want):
        if name in g.known:
            continue
        v = shadows.value(tracked[name])
        if v is not None:
            k = shadows.key_of.get(id(v), id(v))
            groups.setdefault(k, (v, []))[1].append(name)
    spent = 0
    for v, names in groups.values():
        n = v.numel() * v.element_size()
        if spent + n > MAX_BYTES:
            break
        spent += n
        dt, dims, raw = _raw(v)
        if not dt:
            continue  # a dtype the library cannot decode: not handed over
        for i, name in enumerate(names):
            g.known[name] = (dt, dims, raw if i == 0 else None)


# ONNX ops a boolean mask is made with, that the library reads a mask
# from where its values are not tracked (attention.c's find_masks)
_MAKES_MASK = _KEEP | frozenset((
    "And", "Or", "Not", "Less", "LessOrEqual", "Greater", "GreaterOrEqual",
    "Where"))
# The op types whose nodes hand_over reads in the recorded graph, and of
# those the ones it reads every input of (tape.py keeps a call that would
# hide them from it with its rule).
READS = _MAKES_MASK | frozenset(("Add",))
READS_WHOLE = frozenset(("Add", "Where"))


def _made_from(name, made, tracked, inits, limit=64):
    """The tracked values an untracked mask `name` is made from through
    _MAKES_MASK ops (at most `limit` nodes walked; constants such as a
    reshape's target are the graph's own), or none when it is made from
    anything else (scores, an untracked input): then not read."""
    found, todo, seen = [], [name], set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in tracked:
            found.append(v)
            continue
        if v in inits:
            continue
        node = made.get(v)
        if node is None or node[0] not in _MAKES_MASK or len(seen) > limit:
            return []
        todo.extend(i for i in node[2] if i)
    return found


def _numel(g, name):
    dims = g.values.get(name, (0, ()))[1]
    n = 1
    for d in dims:
        n *= int(d)
    return n


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


def _raw(v):
    """(ONNX dtype, dims, little-endian bytes) of a CPU tensor; the dtype 0
    (unknown to the library) for one the library does not name."""
    from .graph import onnx_dtype
    return onnx_dtype(v.dtype), list(v.shape), tensor_bytes(v)
