#!/usr/bin/python3
"""Writes the seed corpus of tests/fuzz/fuzz_aten.c: the record bodies (no
"NNSP" header) of small models recorded with the numbering left to the
library (deferred_*: `names` records before the numbered calls; a CNN
block with its norms, linears whose products read their weights' t()
through t records the library folds), and a backward graph so
(deferred_backward); the indexing model's calls (index off the leading
dims, a mask's rows, alpha, a rounding mode) among them, and the
data-shaped ones (deferred_data: nonzero, unique, masked_scatter's
tracked_count; and deferred_dropped, its cast marked dropped, packed
record 34); and complex values in real form (deferred_complex:
view_as_complex, polar, complex products, one with a complex buffer,
view_as_real, abs). And one aten record of every argument kind over the
target's prelude values (x, y, i, w) and a vector norm of order 3 (a
lowering of four nodes and two constants), one silu record alone (what
the target also asks nns_aten_numbering of), the numbering questions of
a folded product, an alias and a view, and a numbered broadcast_tensors
(an export-family op lowered behind a shim).

cnn.bin, residual.bin and linears.bin (models recorded with one-node calls
on the tape and the rest as the recorder's own nodes, numbered by
Python) were written by this script before session 107, which removed
that recording (ops_map.py and NNSCAN_TAPE_NUMBERED=0); they are kept, as
inputs the fuzzer still reads, and this script no longer writes them.

    NNSCAN_LIBRARY=build/gcc/libnnscan.so /usr/bin/python3 tests/fuzz/seeds/fuzz_aten/make_seeds.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "python"))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from nnscan import _api, graph, recorder  # noqa: E402


class Indexing(nn.Module):
    """The calls the table lowers since session 93: integer indices off
    the leading dims, a boolean mask's rows read and written, alpha, a
    rounding mode."""

    def forward(self, x):                   # 3 x 4 x 5
        i = torch.tensor([0, 2])
        apart = x[i, :, torch.tensor([1, 3])]        # 2 x 4
        inner = x[:, i, torch.tensor([4, 0])]        # 3 x 2
        mask = x[..., 0] > 0
        y = x.clone().index_put((mask,), x[mask] * 2)
        return torch.add(apart, apart, alpha=2), inner, \
            torch.div(y, 3.0, rounding_mode="floor")


class DataShaped(nn.Module):
    """The calls whose sizes are data (session 105): nonzero and unique
    (their counts declared from the record's outputs) and masked_scatter
    (how many land: the record's tracked_count)."""

    def forward(self, x):                   # 2 x 6
        n = torch.arange(12).reshape(2, 6)
        at = torch.nonzero(n % 3 == 0)
        u, counts = torch.unique(n // 4, return_counts=True)
        y = x.masked_scatter(n > 7, x[:, :4] * 2)
        x.double()  # a cast nothing reads: deferred_dropped's
        return at, u, counts, y


class Complex(nn.Module):
    """Complex values in real form on the tape (session 106): the library
    names a complex output by its real form and reads it so (a record's
    complex tensor by the value it stands for)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("fr", torch.polar(torch.ones(3),
                                               torch.arange(3.0)))

    def forward(self, x):                   # 2 x 6
        xc = torch.view_as_complex(x.reshape(2, 3, 2))
        angle = torch.arange(3.0, device=x.device) * 0.5
        y = xc * torch.polar(torch.ones_like(angle), angle)[None] * self.fr
        return torch.view_as_real(y).flatten(1), y.abs()


def models():
    yield "linears", nn.Sequential(nn.Linear(6, 6), nn.ReLU(),
                                   nn.Linear(6, 4, bias=False)), \
        torch.zeros(2, 6)
    yield "numbered", nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.SiLU(),
        nn.MaxPool2d(2), nn.Flatten(1), nn.LayerNorm(16)), \
        torch.zeros(1, 3, 4, 4)
    yield "indexing", Indexing(), torch.arange(60.0).reshape(3, 4, 5) - 30
    yield "data", DataShaped(), torch.zeros(2, 6)
    yield "complex", Complex(), torch.zeros(2, 6)


def synthetic():
    """One record per argument kind, over the prelude's values."""
    g = graph.Graph()
    for n, dt, dims in (("x", 1, (2, 3)), ("y", 1, (2, 3)), ("i", 7, (2,)),
                        ("w", 1, (3, 3))):
        g.add_value(n, dt, dims)
    calls = [
        ("relu", ["x"], [("self", "tensor", 0)]),
        ("add", ["x", "y"], [("self", "tensor", 0), ("other", "tensor", 1),
                             ("alpha", "int", 1)]),
        ("div", ["x", "y"], [("self", "tensor", 0), ("other", "tensor", 1),
                             ("rounding_mode", "string", "floor")]),
        ("mul", ["x"], [("self", "tensor", 0), ("other", "float", 0.5)]),
        ("softmax", ["x"], [("self", "tensor", 0), ("dim", "int", -1),
                            ("half_to_float", "bool", False)]),
        ("view", ["x"], [("self", "tensor", 0), ("size", "ints", [3, 2])]),
        ("cat", ["x", "y"], [("tensors", "tensors", [0, 1]),
                             ("dim", "int", 0)]),
        ("_to_copy", ["x"], [("self", "tensor", 0), ("dtype", "dtype", 10),
                             ("layout", "none", None)]),
        ("no_such_op", ["i"], [("self", "tensor", 0)]),
        # an order with no ONNX reduction: Abs, Pow, ReduceSum, Pow
        ("linalg_vector_norm", ["x"], [("self", "tensor", 0),
                                       ("ord", "float", 3.0),
                                       ("dim", "ints", [1]),
                                       ("keepdim", "bool", False)]),
    ]
    dims = {"cat": (4, 3), "linalg_vector_norm": (2,)}
    outs = []
    for k, (op, ins, args) in enumerate(calls):
        out = f"o{k}"
        g.add_value(out, 1, dims.get(op, (2, 3)))
        g.add_node(op, ins, [out], scope="m")
        g.aten[g.nodes[-1].name] = (op, args)
        outs.append(out)
    body = graph.pack(g)
    # the prelude declares x, y, i and w: the seed holds the nodes only
    start = body.index(bytes([_api.PACKED_RECORD["aten"]]) + b"\x04\x00\x00\x00relu")
    return body[start:]


def main():
    _api.lib()
    # the numbering left to the library (packed record 32,
    # deferred_names): the recorder's marked names, its numbered calls'
    # outputs and first reads, kernels by its entries; in the linears,
    # products that read their weights' t() through unnumbered t records
    # the library folds (docs/tape.md, "A weight's transpose")
    for name, m, x in models():
        rec = recorder.record_model(m.eval(), (x,))
        assert rec.graph.deferred
        with open(os.path.join(HERE, "deferred_" + name + ".bin"),
                  "wb") as f:
            f.write(graph.pack(rec.graph)[8:])
        if name == "data":
            # the cast marked as a fused call marks one it throws away
            # (fused.Spans._dropped_calls): packed record 34 before
            # its names record
            g = rec.graph
            for k, call in list(g.aten.items()):
                if call[0] == "_to_copy" and len(call) > 2:
                    c = list(call[2])
                    c[3] = True
                    g.aten[k] = call[:2] + (tuple(c),) + call[3:]
            with open(os.path.join(HERE, "deferred_dropped.bin"),
                      "wb") as f:
                f.write(graph.pack(g)[8:])
    # a backward graph numbered by the library (docs/tape.md, "A backward
    # graph"): its forward tensors read first ("\5i" K, inputs packed
    # after the nodes), those its kernels leave unread ("\5u"), a
    # convolution's bias gradient not computed
    from nnscan import backward
    m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False),
                      nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(1), nn.LayerNorm(16))
    rec = recorder.record_model(m.train(), (torch.zeros(1, 3, 4, 4),),
                                keep_graph=True)
    bg, _ = backward.record_backward(rec)
    assert bg.deferred
    with open(os.path.join(HERE, "deferred_backward.bin"), "wb") as f:
        f.write(graph.pack(bg)[8:])
    with open(os.path.join(HERE, "every_kind.bin"), "wb") as f:
        f.write(synthetic())
    s = graph._Strings()
    x = s["x"] + graph._i32(1) + graph._shape((2, 3))
    with open(os.path.join(HERE, "silu.bin"), "wb") as f:
        f.write(b"".join(graph._aten_parts(
            "silu", "m", "m", [("self", "tensor", x)],
            [s["o"] + graph._i32(1) + graph._shape((2, 3))], s)))
    # the prelude's w a parameter, its t() folded into a numbered mm
    wt = s["w^T"] + graph._i32(1) + graph._shape((3, 3))
    with open(os.path.join(HERE, "folded.bin"), "wb") as f:
        f.write(b"".join(
            [graph._TAG[graph._PARAM_KIND], s["w"], graph._i32(0)] +
            graph._aten_parts("t", "w^T", "m", [
                ("self", "tensor", s["w"] + graph._i32(1) +
                 graph._shape((3, 3)))], [wt], s) +
            [graph._TAG[graph._NAMES], graph._u64(2), graph._u64(1),
             graph._u64(1)] +
            graph._aten_parts("mm", "m", "m", [
                ("self", "tensor", x), ("mat2", "tensor", wt)],
                [s["v3"] + graph._i32(1) + graph._shape((2, 3))], s)))
    # nns_aten_numbering's question of a folded product: the weight, its
    # kind and t() record, then the names record of zeros and the mm
    w = s["w"] + graph._i32(1) + graph._shape((3, 3))
    with open(os.path.join(HERE, "numbering_folded.bin"), "wb") as f:
        f.write(b"".join(
            [graph._TAG[graph._INITIALIZER], w, graph._u64(2 ** 64 - 1),
             graph._TAG[graph._PARAM_KIND], s["w"], graph._i32(0)] +
            graph._aten_parts("t", "", "", [("self", "tensor", w)], [wt], s) +
            [graph._TAG[graph._NAMES], graph._u64(0), graph._u64(0),
             graph._u64(0)] +
            graph._aten_parts("mm", "", "", [
                ("self", "tensor", x), ("mat2", "tensor", wt)],
                [s["o"] + graph._i32(1) + graph._shape((2, 3))], s)))
    # nns_aten_numbering's questions of an alias (copy: its source) and
    # of a view that makes its shape constant before reading its input
    # (read_after counts as the lowering reads a node's inputs)
    y = s["y"] + graph._i32(1) + graph._shape((2, 3))
    o = s["o"] + graph._i32(1) + graph._shape((2, 3))
    names0 = [graph._TAG[graph._NAMES], graph._u64(0), graph._u64(0),
              graph._u64(0)]
    with open(os.path.join(HERE, "numbering_alias.bin"), "wb") as f:
        f.write(b"".join(names0 + graph._aten_parts("copy", "", "", [
            ("self", "tensor", x), ("src", "tensor", y)], [o], s)))
    with open(os.path.join(HERE, "numbering_view.bin"), "wb") as f:
        f.write(b"".join(
            [graph._TAG[graph._INITIALIZER], w, graph._u64(2 ** 64 - 1),
             graph._TAG[graph._PARAM_KIND], s["w"], graph._i32(0)] +
            names0 + graph._aten_parts("view", "", "", [
                ("self", "tensor", w), ("size", "ints", [9])],
                [s["o"] + graph._i32(1) + graph._shape((9,))], s)))
    # an export-family op, lowered through another entry behind a shim,
    # after a names record
    b = s["b"] + graph._i32(1) + graph._shape((3,))
    with open(os.path.join(HERE, "broadcast.bin"), "wb") as f:
        f.write(b"".join([graph._TAG[graph._NAMES], graph._u64(4),
                          graph._u64(1), graph._u64(1)] + graph._aten_parts(
            "broadcast_tensors", "m", "m", [("tensors", "tensors", [x, b])],
            [s["x2"] + graph._i32(1) + graph._shape((2, 3)),
             s["o"] + graph._i32(1) + graph._shape((2, 3))], s)))


if __name__ == "__main__":
    main()
