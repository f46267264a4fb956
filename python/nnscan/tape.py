"""The recorder's tape: aten calls handed to the library as they were made.

A recorded call whose op the library's aten table lowers (src/ops/aten*.c,
read through _api.ATEN_OPS) goes into the graph as an aten record: its op,
its arguments by schema name with their kinds, its outputs, its module
path. graph.pack() writes it as packed record `aten`, and the library
lowers it through the same code as a torch.export archive's calls
(src/front/). The op's knowledge (what ONNX-style node it is) is the
table's, not ops_map.py's.

Every other call still goes through its ops_map.py rule, in order, so node
order, names and kernel grouping stay what they were. Today the tape takes
the calls that lower to exactly one node and make no value of their own:
the table's "unary" entries, and its "binary" ones on two tensors of one
dtype whose result is of that dtype or bool (no Cast, no scalar constant),
with alpha 1 and no rounding mode. What keeps the rest in Python, and why,
is docs/tape.md's "What Python still keeps".

The graph holds, for such a call, the node it lowers to (the table's op
type over the call's tensors) beside the record: the Python passes that
read g.nodes (fused.py's kernels, masks.py, moe.py, drop_nodes, rename,
checkpoint node counts) see what the library will build; pack() writes the
record in the node's place, its tensors by the node's (possibly renamed)
input names.
"""
import os

import torch

from . import _api


def enabled():
    """Whether recordings put calls on the tape (NNSCAN_TAPE=0: never, for
    comparing the two paths; bench/same_output_py.py)."""
    return os.environ.get("NNSCAN_TAPE", "1") != "0"


def form(func, base, rule):
    """(form, op type, schema argument names) when calls of `func` may go
    on the tape: the table lowers `base` to one node of the op type the
    ops_map rule makes (ops_map marks its plain unary/binary rules), so
    both paths give the same node. None otherwise."""
    mine = getattr(rule, "tape", None)
    entry = _api.ATEN_OPS.get(base)
    if mine is None or entry is None or entry != mine:
        return None
    schema = getattr(func, "_schema", None)
    if schema is None:
        return None
    return (mine[0], mine[1], tuple(a.name for a in schema.arguments))


def _named(names, args, kwargs):
    """The call's arguments by schema name, in schema order."""
    out = list(zip(names, args))
    if kwargs:
        out += [(n, kwargs[n]) for n in names[len(args):] if n in kwargs]
    return out


def record(b, entry, base, args, kwargs, out):
    """Adds the call as an aten record with its node (True), or nothing
    (False: the call is not one the table makes one node of, and its rule
    records it)."""
    kind, op, names = entry
    if not isinstance(out, torch.Tensor) or out.is_complex():
        return False
    named = _named(names, args, kwargs)
    n_tensors = 1 if kind == "unary" else 2
    tensors = []
    for name, v in named:
        if isinstance(v, torch.Tensor):
            tensors.append(v)
        elif name == "alpha" and v != 1:
            return False  # scales `other`: not one node
        elif name == "rounding_mode" and v is not None:
            return False  # another op
        elif isinstance(v, (list, tuple)):
            return False  # no list argument in one node's calls
    if len(tensors) != n_tensors or named[0][1] is not tensors[0]:
        return False
    x = tensors[0]
    if x.is_complex():
        return False  # complex values in real form: ops_map's
    if kind == "binary":
        y = tensors[1]
        if named[1][1] is not y or y.dtype != x.dtype or \
                out.dtype not in (x.dtype, torch.bool):
            return False  # a Cast or a scalar constant: not one node yet
    ins = [b.inp(t) for t in tensors]
    b.node(op, ins, [out])
    g = b.g
    record_args = []
    at = 0
    for name, v in named:
        if isinstance(v, torch.Tensor):
            record_args.append((name, "tensor", at))
            at += 1
        else:
            record_args.append((name,) + _scalar(v))
    g.aten[g.nodes[-1].name] = (base, record_args)
    return True


def _scalar(v):
    """(kind word, value) of a non-tensor argument."""
    if v is None:
        return ("none", None)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("float", v)
    if isinstance(v, str):
        return ("string", v)
    if isinstance(v, torch.dtype):
        from .graph import onnx_dtype
        return ("dtype", onnx_dtype(v))
    return ("none", None)  # a memory format, a device, a layout
