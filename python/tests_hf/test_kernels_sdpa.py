"""PyTorch 2.x's F.scaled_dot_product_attention in recordings: one kernel
(tests/test_kernels.py has the rule and the other ops), bytes counted by
hand: a fused attention reads q, k, v (and a mask) once and writes its
output once; the [heads, L, S] scores never reach memory.
"""
import threading

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from nnscan import recorder
from conftest import H100_BW, ONNX_ITEM
from conftest import kernel_analysis as _analysis


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
        total += numel * ONNX_ITEM[dt]
    return total


def _numbered_calls(g, first, count):
    """Calls among nodes first..first+count-1 that the library lowers and
    names (tape.record_deferred's placeholders)."""
    return sum(1 for n in g.nodes[first:first + count]
               if len(g.aten.get(n.name, ())) > 2)


@pytest.mark.parametrize("numbered", ["0", "defer"])
@pytest.mark.parametrize("device", ["meta", "model"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sdpa_reads_qkv_writes_out(device, causal, dtype, numbered,
                                   monkeypatch):
    """F.scaled_dot_product_attention is one kernel where a model runs
    (flash, memory-efficient, cuDNN; flash on a CPU): it reads q, k and v
    and writes the output. Recorded on meta (PyTorch's math path: casts,
    scores, softmax, products, each an aten op) or on the CPU (one fused
    aten op, spelled as MatMul, Softmax, MatMul), its nodes are one
    kernel: bytes(q) + bytes(k) + bytes(v) + bytes(out), plus the small
    constants its nodes read (the scale; on meta with is_causal, the
    [L, S] boolean mask the math path builds). No [heads, L, S] score
    tensor is read or written. The FLOPs are those of the nodes.
    On the numbered tape (docs/tape.md) the library lowers the math
    path's calls, each one a kernel of its own there, and the one kernel
    marked over them replaces theirs: the same bytes; and on the CPU the
    fused kernel's call, whose nodes it marks one kernel itself."""
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
    B, H, L, S, E = 2, 4, 32, 48, 16
    if causal:
        S = L
    q = torch.zeros(B, H, L, E, dtype=dtype)
    k = torch.zeros(B, H, S, E, dtype=dtype)
    v = torch.ones(B, H, S, E, dtype=dtype)
    item = q.element_size()
    rec = recorder.record_model(Attention(causal), (q, k, v), device=device)
    g = rec.graph
    if device == "model" and numbered == "defer":
        # the fused kernel's one call on the tape (since session 104): the
        # library lowers it and marks its nodes one kernel
        assert len(g.nodes) == 1 and _numbered_calls(g, 0, 1) == 1
        assert not g.kernels
    else:
        assert len(g.kernels) == 1
        first, count = g.kernels[0]
        assert (first, count) == (0, len(g.nodes))
        assert (_numbered_calls(g, first, count) > 0) == \
            (numbered == "defer" and device == "meta")
    qkvo = (2 * B * H * L * E + 2 * B * H * S * E) * item
    # the constants as the rules make them, initializers of the recorded
    # graph (the library makes those of the calls it lowers)
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "0")
    rules = recorder.record_model(Attention(causal), (q, k, v),
                                  device=device).graph
    args = _arguments(rules, 0, len(rules.nodes))
    assert args <= L * S * item * causal + 1024
    fused = _analysis(g, "h100-sxm")
    assert fused.totals["bytes"] == qkvo + args
    apart = _analysis(rules, "h100-sxm", kernels=False)  # the same nodes
    assert apart.totals["bytes"] > qkvo + B * H * L * S * item
    assert fused.totals["flops"] == apart.totals["flops"]
    # one roofline unit: max(FLOPs / peak, bytes / bandwidth)
    t = fused.totals
    assert t["time_s"] == pytest.approx(
        t["compute_time_s"] + t["memory_time_s"], rel=1e-9)
    assert t["time_s"] == pytest.approx(max(
        t["compute_time_s"], t["bytes"] / H100_BW), rel=1e-9)


@pytest.mark.parametrize("numbered", ["0", "defer"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sdpa_flops_as_recorded(dtype, numbered, monkeypatch):
    """Marking the call changes the bytes, never the FLOPs: those of the
    math path recorded op by op (fused.NAMES empty: no call is seen), the
    attention weights the function throws away (a cast, no FLOPs)
    included."""
    from nnscan import fused
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
    q = torch.zeros(1, 4, 32, 16, dtype=dtype, device="meta")
    fused_rec = recorder.record_model(Attention(True), (q, q, q))
    monkeypatch.setattr(fused, "NAMES", ())
    plain = recorder.record_model(Attention(True), (q, q, q))
    assert plain.graph.kernels == []
    fa, pa = _analysis(fused_rec.graph), _analysis(plain.graph)
    assert fa.totals["flops"] == pa.totals["flops"]
    # the library's nodes (a cast on its tape that the call drops stays
    # the recorder's entry, its node taken back: packed record 34)
    dropped = _nodes(pa) - _nodes(fa)
    assert dropped == (1 if dtype == torch.bfloat16 else 0)
    # under the library's numbering the cast is on its tape, marked
    marked = [c[0] for c in fused_rec.graph.aten.values()
              if len(c) > 2 and c[2][3]]
    assert marked == (["_to_copy"] if dropped and numbered == "defer"
                      else [])


def _nodes(summary):
    return sum(t["nodes"] for t in summary.json["op_types"])


def test_sdpa_mask_and_gqa(monkeypatch):
    """With a boolean mask given (a graph input) the mask is read too; with
    grouped-query attention (2 key/value heads for 8 query heads) k and v
    are read at their own size, not repeated per query head. The same
    bytes on the numbered tape, where the constants are the library's
    (not in the recorder's graph, which _arguments reads)."""
    B, H, Hkv, L, E = 1, 8, 2, 16, 8
    q = torch.zeros(B, H, L, E, device="meta")
    k = torch.zeros(B, Hkv, L, E, device="meta")
    v = torch.zeros(B, Hkv, L, E, device="meta")
    mask = torch.ones(L, L, dtype=torch.bool).tril()
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "0")
    rec = recorder.record_model(Attention(gqa=True), (q, k, v, mask))
    g = rec.graph
    assert g.kernels == [(0, len(g.nodes))]
    want = 4 * (2 * B * H * L * E + 2 * B * Hkv * L * E) + L * L
    args = _arguments(g, 0, len(g.nodes))
    assert args <= 1024
    assert _analysis(g).totals["bytes"] == want + args
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "defer")
    rec = recorder.record_model(Attention(gqa=True), (q, k, v, mask))
    assert _analysis(rec.graph).totals["bytes"] == want + args


@pytest.mark.parametrize("heads,mask_heads", [(1, None), (2, None),
                                              (2, 8), (2, 1)])
def test_fused_gqa_on_the_tape_is_the_rules(heads, mask_heads, monkeypatch):
    """The fused kernel a CPU runs (_scaled_dot_product_flash_attention_
    for_cpu), with fewer key/value heads than query heads (enable_gqa; one
    for all, multi-query) and a float mask of every query head, of one, or
    none with is_causal: on the tape the library lowers it in the grouped
    form of the rule (query heads [Hkv, G], keys and values [Hkv, 1],
    the mask's heads as the queries' or [Mh, 1]): every report byte for
    byte the rules', the call on the tape, and the products' MACs by hand
    (2 x B H L S E: k and v read at their own size, never repeated)."""
    import json
    import nnscan
    from nnscan import graph
    B, H, L, E = 1, 8, 16, 8
    q = torch.randn(B, H, L, E)
    k = torch.randn(B, heads, L, E)
    v = torch.randn(B, heads, L, E)
    args = (q, k, v)
    if mask_heads is not None:
        args += (torch.randn(B, mask_heads, L, L),)
    model = Attention(causal=mask_heads is None, gqa=True)
    calls = []
    orig = graph._pack_parts

    def pack(g):
        calls.extend(c[0] for c in g.aten.values() if len(c) > 2)
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    reports = {}
    for numbered in ("defer", "0"):
        monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
        s = nnscan.summary(model, inputs=args, file=False, device="model",
                           hardware="h100-sxm")
        reports[numbered] = (s.to_text(), s.to_json(version=2))
    assert "_scaled_dot_product_flash_attention_for_cpu" in calls
    assert reports["defer"] == reports["0"]
    doc = json.loads(reports["defer"][1])
    ops = {t["op_type"]: t for t in doc["op_types"]}
    assert ops["MatMul"]["macs"] == 2 * B * H * L * L * E
    assert "uncounted_aten" not in doc or not doc["uncounted_aten"]


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
