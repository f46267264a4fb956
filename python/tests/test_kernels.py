"""Kernels in recordings: the nodes one aten op (or one fused torch
function) is spelled with run as one kernel, whose bytes are those crossing
its boundary (docs/metrics.md, "Bytes and the roofline").

Expected bytes are counted here by hand from the tensors' sizes: what a
kernel that reads its inputs once and writes its outputs once moves, the
values between its nodes never reaching memory. An ONNX export of the same
module has no kernels: every node reads and writes its own tensors.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nnscan  # noqa: E402
from nnscan import recorder, torch_api  # noqa: E402
from conftest import H100_BW  # noqa: E402
from conftest import kernel_analysis as _analysis  # noqa: E402
from conftest import kernel_layer as _layer  # noqa: E402

N = 4096           # elements of the element-wise tests' tensors

# ---- one aten op, several nodes ----

class SiluApart(nn.Module):
    """SiLU's arithmetic as two aten calls, each a kernel of its own."""

    def forward(self, x):
        return torch.sigmoid(x) * x


def _library_nodes(g):
    """(op type, kernel) of each node of the library's model of g."""
    h = g.build()
    h.infer(fallback_declared=True)
    return [(n[0], n[4]) for n in h.nodes()]


def test_silu_is_one_kernel():
    """aten.silu is one kernel reading x and writing y: 2 * 4N bytes, not
    Sigmoid's x and s plus Mul's x, s and y (5 * 4N, what the same two
    nodes move as two calls, sigmoid then mul); the FLOPs do not change.
    The library lowers the call to the two nodes and marks them one
    kernel; nnscan.summary of it counts the same bytes."""
    m = nn.Sequential(nn.SiLU())
    x = torch.zeros(1, N, device="meta")
    g = recorder.record_model(m, (x,)).graph
    assert _library_nodes(g) == [("Sigmoid", (0, 2)), ("Mul", (0, 2))]
    two = recorder.record_model(nn.Sequential(SiluApart()), (x,)).graph
    assert _library_nodes(two) == [("Sigmoid", None), ("Mul", None)]
    fused = _analysis(g, "h100-sxm")
    apart = _analysis(two, "h100-sxm")
    assert _layer(fused, "0")["bytes"] == 2 * N * 4
    assert _layer(apart, "0")["bytes"] == 5 * N * 4
    assert fused.totals["flops"] == apart.totals["flops"] > 0
    assert fused.totals["macs"] == apart.totals["macs"]
    assert fused.totals["bound"] == "memory"
    assert fused.totals["time_s"] == pytest.approx(2 * N * 4 / H100_BW,
                                                   rel=1e-8)
    s = nnscan.summary(m, inputs=(x,), file=False, hardware="h100-sxm")
    assert s.totals["bytes"] == 2 * N * 4


def test_onnx_export_keeps_per_node_bytes():
    """The ONNX file of the same module has no kernels: Sigmoid reads x
    and writes s, Mul reads x and s and writes y."""
    pytest.importorskip("onnx")
    m = nn.Sequential(nn.SiLU())
    s = nnscan.summary(m, inputs=(torch.zeros(1, N),), method="onnx",
                       file=False)
    assert s.totals["bytes"] == 5 * N * 4
    rec = nnscan.summary(m, inputs=(torch.zeros(1, N),), file=False)
    assert rec.totals["flops"] == s.totals["flops"]


def test_max_values_and_indices_read_x_once():
    """torch.max(x, dim) is one kernel writing both outputs (ReduceMax and
    ArgMax nodes, the library's lowering of the call): x [R, C] float32
    read once, values [R] float32 and indices [R] int64 written. The same
    nodes as two calls (amax, argmax) read x twice."""
    R, C = 64, 256

    class Max(nn.Module):
        def forward(self, x):
            return torch.max(x, dim=1)

    class Apart(nn.Module):
        def forward(self, x):
            return torch.amax(x, dim=1), torch.argmax(x, dim=1)

    x = torch.zeros(R, C, device="meta")
    g = recorder.record_model(Max(), (x,)).graph
    assert g.aten  # (the call on the tape)
    assert _library_nodes(g) == [("ReduceMax", (0, 2)), ("ArgMax", (0, 2))]
    assert _analysis(g).totals["bytes"] == 4 * R * C + 4 * R + 8 * R
    two = recorder.record_model(Apart(), (x,)).graph
    assert _library_nodes(two) == [("ReduceMax", None), ("ArgMax", None)]
    assert _analysis(two).totals["bytes"] == 2 * 4 * R * C + 4 * R + 8 * R


def test_fused_function_over_numbered_kernels(monkeypatch):
    """A function fused.py marks as one kernel whose ops the library
    lowers (the numbered tape), one of them a kernel already (silu:
    Sigmoid + Mul): the function's kernel replaces the op's, and the three
    nodes read x once and write y once, 2 * 4N bytes (silu's kernel apart
    from the Mul after it would be 2 * 4N + 3 * 4N). The graph holds the
    two calls: silu, numbered, and the Mul, named by the recorder."""
    from nnscan import fused
    import torch.nn.functional as F

    def gated(x):
        return F.silu(x) * x
    monkeypatch.setattr(F, "nnscan_test_gated", gated, raising=False)
    monkeypatch.setattr(fused, "NAMES", ("nnscan_test_gated",))

    class Gated(nn.Module):
        def forward(self, x):
            return F.nnscan_test_gated(x)
    x = torch.zeros(1, N, device="meta")
    g = recorder.record_model(Gated(), (x,)).graph
    assert [n.op for n in g.nodes] == ["aten::silu", "Mul"]
    assert g.kernels == [(0, 2)]
    assert _library_nodes(g) == [("Sigmoid", (0, 3)), ("Mul", (0, 3)),
                                 ("Mul", (0, 3))]
    assert _analysis(g).totals["bytes"] == 2 * N * 4


def test_backward_kernel():
    """The backward recorder marks its ops' nodes too: silu_backward's six
    nodes read the gradient g and x and write the input's gradient (3 * 4N
    bytes), plus the two 0-d float32 constants 1.0 the table's lowering
    spells s * (1 + x * (1 - s)) with (4 bytes each)."""
    m = nn.Sequential(nn.Linear(N, N), nn.SiLU())
    s = nnscan.summary(m, inputs=(torch.zeros(1, N),), backward=True,
                       file=False)
    assert s.backward.layer("1")["bytes"] == 3 * N * 4 + 2 * 4


def test_several_kernels_stay_apart():
    """nn.MultiheadAttention's fast path (eval, no_grad, on the model's
    own CPU) is one aten op that runs projections, attention and the
    output projection as kernels of their own: its nodes are not marked."""
    mha = nn.MultiheadAttention(16, 2, batch_first=True).eval()
    x = torch.zeros(1, 5, 16)
    rec = recorder.record_model(mha, (x, x, x), device="model")
    assert set(rec.graph.node_source) == \
        {"aten._native_multi_head_attention.default"}
    # (the library's nodes: the numbering may be left to it)
    nodes = rec.graph.build().nodes()
    assert len(nodes) > 1 and all(n[4] is None for n in nodes)


def test_the_librarys_nodes_hold_the_kernels():
    """Handle.nodes(): the library's model as it holds it: Linear's Gemm
    alone, SiLU's two nodes one kernel (its first node and two), the
    dtypes inferred; an odd module name kept."""
    m = nn.Sequential()
    m.add_module("a b\u00e9", nn.Linear(8, 4))
    m.add_module("act", nn.SiLU())
    rec = recorder.record_model(m, (torch.zeros(2, 8, device="meta"),))
    h = rec.graph.build()
    h.infer(fallback_declared=True)
    nodes = h.nodes()
    assert [(n[0], n[1], n[4]) for n in nodes] == \
        [("Gemm", "", None), ("Sigmoid", "", (1, 2)), ("Mul", "", (1, 2))]
    assert nodes[0][2].startswith("a b\u00e9/")
    assert all(len(n[3]) == 1 and n[3][0][1] == "float32" for n in nodes)
    assert nodes[2][3][0][0] == rec.graph.library_names(rec.graph.outputs)[0]


def test_renamed_outputs_keep_kernels():
    """A `call` returning a dict renames the graph's outputs (generate.py):
    the kernels' node indexes stay valid."""
    m = nn.Sequential(nn.SiLU())
    rec = recorder.record_model(
        m, (torch.zeros(1, N, device="meta"),),
        call=lambda mod, x: {"hidden": mod(x)})
    assert rec.graph.outputs == ["hidden"]
    assert _analysis(rec.graph).totals["bytes"] == 2 * N * 4


def test_onnx_graphs_have_no_kernels(tmp_path):
    """A model loaded from ONNX: every node a kernel of its own."""
    pytest.importorskip("onnx")
    m = nn.Sequential(nn.SiLU())
    path = torch_api.export_onnx(m, (torch.zeros(1, N),), {})
    s = nnscan.analyze(path)
    assert s.totals["bytes"] == 5 * N * 4
