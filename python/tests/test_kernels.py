"""Kernels in recordings: the nodes one aten op (or one fused torch
function) is spelled with run as one kernel, whose bytes are those crossing
its boundary (docs/metrics.md, "Bytes and the roofline").

Expected bytes are counted here by hand from the tensors' sizes: what a
kernel that reads its inputs once and writes its outputs once moves, the
values between its nodes never reaching memory. An ONNX export of the same
module has no kernels: every node reads and writes its own tensors.
"""
import threading

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nnscan  # noqa: E402
from nnscan import recorder, torch_api  # noqa: E402
from nnscan.report import Summary  # noqa: E402

H100_BW = 3.35e12  # NVIDIA H100 SXM datasheet, bytes/s
N = 4096           # elements of the element-wise tests' tensors

HAS_SDPA = hasattr(F, "scaled_dot_product_attention")
needs_sdpa = pytest.mark.skipif(
    not HAS_SDPA, reason="F.scaled_dot_product_attention is PyTorch 2.x's "
    "(1.13 has only the private F._scaled_dot_product_attention, one aten "
    "op without a rule: one uncounted node, nothing to mark)")

# bytes per element of the ONNX dtypes these graphs hold
_ITEM = {1: 4, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 16: 2}


def _analysis(graph, hardware=None, kernels=True):
    """The library's analysis of a recorded graph, with its kernels or
    (kernels=False) with every node a kernel of its own."""
    saved = graph.kernels
    if not kernels:
        graph.kernels = []
    try:
        h = graph.build()
    finally:
        graph.kernels = saved
    h.infer()
    return Summary(h.analyze(hardware=hardware, compute_dtype="bf16"
                             if hardware else None))


def _layer(s, path):
    return {la["path"]: la for la in s.layers}[path]


# ---- one aten op, several nodes ----

def test_silu_is_one_kernel():
    """aten.silu is one kernel reading x and writing y: 2 * 4N bytes, not
    Sigmoid's x and s plus Mul's x, s and y (5 * 4N); the FLOPs do not
    change."""
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
    ArgMax nodes): x [R, C] float32 read once, values [R] float32 and
    indices [R] int64 written."""
    R, C = 64, 256

    class Max(nn.Module):
        def forward(self, x):
            return torch.max(x, dim=1)

    rec = recorder.record_model(Max(), (torch.zeros(R, C, device="meta"),))
    assert rec.graph.kernels == [(0, 2)]
    assert _analysis(rec.graph).totals["bytes"] == 4 * R * C + 4 * R + 8 * R
    assert _analysis(rec.graph, kernels=False).totals["bytes"] == \
        2 * 4 * R * C + 4 * R + 8 * R


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
    assert len(rec.graph.nodes) > 1 and rec.graph.kernels == []


def test_renamed_outputs_keep_kernels():
    """A `call` returning a dict renames the graph's outputs (generate.py):
    the kernels' node indexes stay valid."""
    m = nn.Sequential(nn.SiLU())
    rec = recorder.record_model(
        m, (torch.zeros(1, N, device="meta"),),
        call=lambda mod, x: {"hidden": mod(x)})
    assert rec.graph.outputs == ["hidden"]
    assert _analysis(rec.graph).totals["bytes"] == 2 * N * 4


# ---- scaled_dot_product_attention: one fused kernel ----

class Attention(nn.Module):
    def __init__(self, causal=False, gqa=False):
        super().__init__()
        self.causal = causal
        self.gqa = gqa

    def forward(self, q, k, v, mask=None):
        kw = {"enable_gqa": True} if self.gqa else {}
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                              is_causal=self.causal, **kw)


VIEWS = ("Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity")


def _arguments(g, first, count):
    """Bytes of the constants a kernel's nodes read (the scale, an Expand's
    shape; on meta, the causal mask PyTorch's math path builds): the
    initializers its nodes other than views (which read nothing) read,
    from the recorded graph."""
    names = {i for n in g.nodes[first:first + count] if n.op not in VIEWS
             for i in n.inputs if i in g.inits}
    total = 0
    for name in names:
        dt, dims, _ = g.inits[name]
        numel = 1
        for d in dims:
            numel *= d
        total += numel * _ITEM[dt]
    return total


@needs_sdpa
@pytest.mark.parametrize("device", ["meta", "model"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sdpa_reads_qkv_writes_out(device, causal, dtype):
    """F.scaled_dot_product_attention is one kernel where a model runs
    (flash, memory-efficient, cuDNN; flash on a CPU): it reads q, k and v
    and writes the output. Recorded on meta (PyTorch's math path: casts,
    scores, softmax, products, each an aten op) or on the CPU (one fused
    aten op, spelled as MatMul, Softmax, MatMul), its nodes are one
    kernel: bytes(q) + bytes(k) + bytes(v) + bytes(out), plus the small
    constants its nodes read (the scale; on meta with is_causal, the
    [L, S] boolean mask the math path builds). No [heads, L, S] score
    tensor is read or written. The FLOPs are those of the nodes."""
    B, H, L, S, E = 2, 4, 32, 48, 16
    if causal:
        S = L
    q = torch.zeros(B, H, L, E, dtype=dtype)
    k = torch.zeros(B, H, S, E, dtype=dtype)
    v = torch.ones(B, H, S, E, dtype=dtype)
    item = q.element_size()
    rec = recorder.record_model(Attention(causal), (q, k, v), device=device)
    g = rec.graph
    assert len(g.kernels) == 1
    first, count = g.kernels[0]
    assert (first, count) == (0, len(g.nodes))
    qkvo = (2 * B * H * L * E + 2 * B * H * S * E) * item
    args = _arguments(g, first, count)
    assert args <= L * S * item * causal + 1024
    fused = _analysis(g, "h100-sxm")
    assert fused.totals["bytes"] == qkvo + args
    apart = _analysis(g, "h100-sxm", kernels=False)
    assert apart.totals["bytes"] > qkvo + B * H * L * S * item
    assert fused.totals["flops"] == apart.totals["flops"]
    # one roofline unit: max(FLOPs / peak, bytes / bandwidth)
    t = fused.totals
    assert t["time_s"] == pytest.approx(
        t["compute_time_s"] + t["memory_time_s"], rel=1e-9)
    assert t["time_s"] == pytest.approx(max(
        t["compute_time_s"], t["bytes"] / H100_BW), rel=1e-9)


@needs_sdpa
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sdpa_flops_as_recorded(dtype, monkeypatch):
    """Marking the call changes the bytes, never the FLOPs: those of the
    math path recorded op by op (fused.NAMES empty: no call is seen), the
    attention weights the function throws away (a cast, no FLOPs)
    included."""
    from nnscan import fused
    q = torch.zeros(1, 4, 32, 16, dtype=dtype, device="meta")
    fused_rec = recorder.record_model(Attention(True), (q, q, q))
    monkeypatch.setattr(fused, "NAMES", ())
    plain = recorder.record_model(Attention(True), (q, q, q))
    assert plain.graph.kernels == []
    assert _analysis(fused_rec.graph).totals["flops"] == \
        _analysis(plain.graph).totals["flops"]
    dropped = len(plain.graph.nodes) - len(fused_rec.graph.nodes)
    assert dropped == (1 if dtype == torch.bfloat16 else 0)


@needs_sdpa
def test_sdpa_mask_and_gqa():
    """With a boolean mask given (a graph input) the mask is read too; with
    grouped-query attention (2 key/value heads for 8 query heads) k and v
    are read at their own size, not repeated per query head."""
    B, H, Hkv, L, E = 1, 8, 2, 16, 8
    q = torch.zeros(B, H, L, E, device="meta")
    k = torch.zeros(B, Hkv, L, E, device="meta")
    v = torch.zeros(B, Hkv, L, E, device="meta")
    mask = torch.ones(L, L, dtype=torch.bool).tril()
    rec = recorder.record_model(Attention(gqa=True), (q, k, v, mask))
    g = rec.graph
    assert g.kernels == [(0, len(g.nodes))]
    want = 4 * (2 * B * H * L * E + 2 * B * Hkv * L * E) + L * L
    args = _arguments(g, 0, len(g.nodes))
    assert args <= 1024
    assert _analysis(g).totals["bytes"] == want + args


@needs_sdpa
def test_sdpa_function_put_back():
    """The recorder sees each call of the function by wrapping it in
    torch.nn.functional while it records: afterwards (also after a forward
    that raised) the function is the one it found, a wrapper of the user's
    own included; another thread's calls go straight through."""
    original = F.scaled_dot_product_attention
    q = torch.zeros(1, 2, 4, 8, device="meta")
    recorder.record_model(Attention(), (q, q, q))
    assert F.scaled_dot_product_attention is original

    class Fails(nn.Module):
        def forward(self, q):
            F.scaled_dot_product_attention(q, q, q)
            raise ValueError("on purpose")

    with pytest.raises(ValueError):
        recorder.record_model(Fails(), (q,))
    assert F.scaled_dot_product_attention is original

    calls = []

    def mine(*a, **kw):
        calls.append(1)
        return original(*a, **kw)
    F.scaled_dot_product_attention = mine
    try:
        rec = recorder.record_model(Attention(), (q, q, q))
        assert calls and rec.graph.kernels == [(0, len(rec.graph.nodes))]
        assert F.scaled_dot_product_attention is mine
    finally:
        F.scaled_dot_product_attention = original

    # another thread, while a recording runs here: its call is its own
    seen = {}

    class Waits(nn.Module):
        def forward(self, q):
            t = threading.Thread(target=lambda: seen.setdefault(
                "out", F.scaled_dot_product_attention(
                    torch.zeros(1, 1, 2, 2), torch.zeros(1, 1, 2, 2),
                    torch.ones(1, 1, 2, 2))))
            t.start()
            t.join()
            return q * 2

    rec = recorder.record_model(Waits(), (q,))
    assert torch.equal(seen["out"], torch.ones(1, 1, 2, 2))
    assert rec.graph.kernels == []
    assert F.scaled_dot_product_attention is original


def test_onnx_graphs_have_no_kernels(tmp_path):
    """A model loaded from ONNX: every node a kernel of its own."""
    pytest.importorskip("onnx")
    m = nn.Sequential(nn.SiLU())
    path = torch_api.export_onnx(m, (torch.zeros(1, N),), {})
    s = nnscan.analyze(path)
    assert s.totals["bytes"] == 5 * N * 4
