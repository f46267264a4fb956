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

def test_silu_is_one_kernel(monkeypatch):
    """aten.silu is one kernel reading x and writing y: 2 * 4N bytes, not
    Sigmoid's x and s plus Mul's x, s and y (5 * 4N); the FLOPs do not
    change. The recorder's rule spells it (its nodes are the recorder's
    to split apart here); the library's lowering of the same call, as
    nnscan.summary records it (tape.NUMBERED), is the same kernel."""
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "0")
    m = nn.Sequential(nn.SiLU())
    x = torch.zeros(1, N, device="meta")
    rec = recorder.record_model(m, (x,))
    g = rec.graph
    assert [n.op for n in g.nodes] == ["Sigmoid", "Mul"]
    assert g.kernels == [(0, 2)]
    fused = _analysis(g, "h100-sxm")
    apart = _analysis(g, "h100-sxm", kernels=False)
    assert _layer(fused, "0")["bytes"] == 2 * N * 4
    assert _layer(apart, "0")["bytes"] == 5 * N * 4
    assert fused.totals["flops"] == apart.totals["flops"] > 0
    assert fused.totals["macs"] == apart.totals["macs"]
    assert fused.totals["bound"] == "memory"
    assert fused.totals["time_s"] == pytest.approx(2 * N * 4 / H100_BW,
                                                   rel=1e-8)
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "defer")
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


def test_max_values_and_indices_read_x_once(monkeypatch):
    """torch.max(x, dim) is one kernel writing both outputs (ReduceMax and
    ArgMax nodes): x [R, C] float32 read once, values [R] float32 and
    indices [R] int64 written. The rule's nodes, split apart here; the
    library's lowering (tape.NUMBERED), as summaries record it, is the
    same kernel."""
    R, C = 64, 256

    class Max(nn.Module):
        def forward(self, x):
            return torch.max(x, dim=1)

    x = torch.zeros(R, C, device="meta")
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "0")
    rec = recorder.record_model(Max(), (x,))
    assert rec.graph.kernels == [(0, 2)]
    assert _analysis(rec.graph).totals["bytes"] == 4 * R * C + 4 * R + 8 * R
    assert _analysis(rec.graph, kernels=False).totals["bytes"] == \
        2 * 4 * R * C + 4 * R + 8 * R
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "defer")
    numbered = recorder.record_model(Max(), (x,))
    assert rec.graph.aten == {} and numbered.graph.aten
    assert _analysis(numbered.graph).totals["bytes"] == \
        4 * R * C + 4 * R + 8 * R


def test_fused_function_over_numbered_kernels(monkeypatch):
    """A function fused.py marks as one kernel whose ops the library
    lowers (the numbered tape), one of them a kernel already (silu:
    Sigmoid + Mul): the function's kernel replaces the op's, and the three
    nodes read x once and write y once, 2 * 4N bytes (silu's kernel apart
    from the Mul after it would be 2 * 4N + 3 * 4N)."""
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
    for numbered in ("0", "defer"):
        monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
        g = recorder.record_model(Gated(), (x,)).graph
        assert len(g.nodes) == (2 if numbered == "defer" else 3)
        assert g.kernels == [(0, len(g.nodes))]
        assert _analysis(g).totals["bytes"] == 2 * N * 4


def test_backward_kernel():
    """The backward recorder marks its ops' nodes too: silu_backward's six
    nodes read the gradient g and x and write the input's gradient (3 * 4N
    bytes), plus the two 0-d float32 constants 1.0 the rule spells
    s * (1 + x * (1 - s)) with (4 bytes each)."""
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


@pytest.mark.parametrize("numbering", ["0", "defer"])
def test_the_librarys_nodes_hold_the_kernels(monkeypatch, numbering):
    """Handle.nodes(): the library's model as it holds it, whoever numbered
    it: Linear's Gemm alone, SiLU's two nodes one kernel (its first node
    and two), the dtypes inferred; an odd module name kept."""
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbering)
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
