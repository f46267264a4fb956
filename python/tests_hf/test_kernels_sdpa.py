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

import rules_reference
from nnscan import recorder
from conftest import H100_BW
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


def _numbered_calls(g, first, count):
    """Calls among nodes first..first+count-1 that the library lowers and
    names (tape.record_deferred's placeholders)."""
    return sum(1 for n in g.nodes[first:first + count]
               if len(g.aten.get(n.name, ())) > 2)


@pytest.mark.parametrize("device", ["meta", "model"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sdpa_reads_qkv_writes_out(device, causal, dtype, request):
    """F.scaled_dot_product_attention is one kernel where a model runs
    (flash, memory-efficient, cuDNN; flash on a CPU): it reads q, k and v
    and writes the output. Recorded on meta (PyTorch's math path: casts,
    scores, softmax, products, each an aten op) or on the CPU (one fused
    aten op, spelled as MatMul, Softmax, MatMul), its nodes are one
    kernel: bytes(q) + bytes(k) + bytes(v) + bytes(out), plus the small
    constants its nodes read (the scale; on meta with is_causal, the
    [L, S] boolean mask the math path builds). No [heads, L, S] score
    tensor is read or written. The FLOPs are those of the nodes.
    On the tape (docs/tape.md) the library lowers the math path's calls,
    each one a kernel of its own there, and the one kernel marked over
    them replaces theirs; on the CPU the fused kernel's call, whose nodes
    it marks one kernel itself. The bytes and FLOPs are the recorder's
    rules' (frozen: rules_reference), whose constants were initializers
    of the recorded graph."""
    B, H, L, S, E = 2, 4, 32, 48, 16
    if causal:
        S = L
    q = torch.zeros(B, H, L, E, dtype=dtype)
    k = torch.zeros(B, H, S, E, dtype=dtype)
    v = torch.ones(B, H, S, E, dtype=dtype)
    item = q.element_size()
    rec = recorder.record_model(Attention(causal), (q, k, v), device=device)
    g = rec.graph
    fused = _analysis(g, "h100-sxm")
    t = fused.totals
    rules_reference.check(request, [str(t["bytes"]), str(t["flops"])],
                          hf=True)
    if device == "model":
        # the fused kernel's one call on the tape (since session 104): the
        # library lowers it and marks its nodes one kernel
        assert len(g.nodes) == 1 and _numbered_calls(g, 0, 1) == 1
        assert not g.kernels
    else:
        assert len(g.kernels) == 1
        first, count = g.kernels[0]
        assert (first, count) == (0, len(g.nodes))
        assert _numbered_calls(g, first, count) > 0
    qkvo = (2 * B * H * L * E + 2 * B * H * S * E) * item
    # the constants (the library makes those of the calls it lowers)
    args = t["bytes"] - qkvo
    assert 0 <= args <= L * S * item * causal + 1024
    apart = _analysis(g, "h100-sxm", kernels=False)  # the same nodes
    if device == "meta":  # (the fused call is one kernel all the same)
        assert apart.totals["bytes"] > qkvo + B * H * L * S * item
    assert t["flops"] == apart.totals["flops"]
    # one roofline unit: max(FLOPs / peak, bytes / bandwidth)
    assert t["time_s"] == pytest.approx(
        t["compute_time_s"] + t["memory_time_s"], rel=1e-9)
    assert t["time_s"] == pytest.approx(max(
        t["compute_time_s"], t["bytes"] / H100_BW), rel=1e-9)


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
    fa, pa = _analysis(fused_rec.graph), _analysis(plain.graph)
    assert fa.totals["flops"] == pa.totals["flops"]
    # the library's nodes (a cast on its tape that the call drops stays
    # the recorder's entry, its node taken back: packed record 34)
    dropped = _nodes(pa) - _nodes(fa)
    assert dropped == (1 if dtype == torch.bfloat16 else 0)
    # the cast is on the library's tape, marked
    marked = [c[0] for c in fused_rec.graph.aten.values()
              if len(c) > 2 and c[2][3]]
    assert marked == (["_to_copy"] if dropped else [])


def _nodes(summary):
    return sum(t["nodes"] for t in summary.json["op_types"])


def test_sdpa_mask_and_gqa(request):
    """With a boolean mask given (a graph input) the mask is read too; with
    grouped-query attention (2 key/value heads for 8 query heads) k and v
    are read at their own size, not repeated per query head. The
    constants are the library's (not in the recorder's graph); the bytes
    the recorder's rules' (frozen: rules_reference)."""
    B, H, Hkv, L, E = 1, 8, 2, 16, 8
    q = torch.zeros(B, H, L, E, device="meta")
    k = torch.zeros(B, Hkv, L, E, device="meta")
    v = torch.zeros(B, Hkv, L, E, device="meta")
    mask = torch.ones(L, L, dtype=torch.bool).tril()
    rec = recorder.record_model(Attention(gqa=True), (q, k, v, mask))
    g = rec.graph
    got = _analysis(g).totals["bytes"]
    rules_reference.check(request, [str(got)], hf=True)
    assert g.kernels == [(0, len(g.nodes))]
    want = 4 * (2 * B * H * L * E + 2 * B * Hkv * L * E) + L * L
    assert 0 <= got - want <= 1024  # the constants (the scale)


@pytest.mark.parametrize("heads,mask_heads", [(1, None), (2, None),
                                              (2, 8), (2, 1)])
def test_fused_gqa_on_the_tape_is_the_rules(heads, mask_heads, monkeypatch,
                                            request):
    """The fused kernel a CPU runs (_scaled_dot_product_flash_attention_
    for_cpu), with fewer key/value heads than query heads (enable_gqa; one
    for all, multi-query) and a float mask of every query head, of one, or
    none with is_causal: on the tape the library lowers it in the grouped
    form of the recorder's rule as it was (query heads [Hkv, G], keys and
    values [Hkv, 1], the mask's heads as the queries' or [Mh, 1]): every
    report byte for byte the rules' (frozen: rules_reference), the call
    on the tape, and the products' MACs by hand (2 x B H L S E: k and v
    read at their own size, never repeated)."""
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
    s = nnscan.summary(model, inputs=args, file=False, device="model",
                       hardware="h100-sxm")
    reports = [s.to_text(), s.to_json(version=2)]
    rules_reference.check(request, reports, hf=True)
    assert "_scaled_dot_product_flash_attention_for_cpu" in calls
    doc = json.loads(reports[1])
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
