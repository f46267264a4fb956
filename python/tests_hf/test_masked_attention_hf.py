"""macs_unmasked against the masks attention really received (issue 20.1).

Reference: a real CPU forward of the same model (random weights) with
scaled_dot_product_attention (and transformers' eager attention function)
wrapped: in each call's mask (broadcast to batch, heads, queries, keys),
the pairs it allows are counted: True in a boolean mask, neither -inf nor
the dtype's lowest value in an additive one, the lower triangle with
is_causal. Each such pair
costs E (Q.K^T) + Ev (P.V) multiply-accumulates, so the MACs the masks
leave out are (B.H.L.S - allowed).(E + Ev) summed over calls; nnscan's
macs - macs_unmasked (recorded on meta, the masks' values tracked) must
equal that exactly, and its macs must equal the dense count (the same
products plus the rest, checked against FlopCounterMode elsewhere).
"""
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from nnscan import torch_api  # noqa: E402

B, T, V = 2, 12, 256


class Calls:
    """Wraps F.scaled_dot_product_attention (and transformers' eager
    attention) and keeps, per call, the MACs its mask leaves out."""

    def __init__(self):
        self.left_out = 0
        self.calls = 0
        self.bwd_flops_left = 0

    def note(self, q, k, v, mask, causal, scale):
        L, S, E, Ev = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
        keep = torch.ones(*q.shape[:-2], L, S, dtype=torch.bool)
        if causal:
            keep &= torch.ones(L, S, dtype=torch.bool).tril()
        if mask is not None:
            if mask.dtype == torch.bool:
                keep &= mask
            else:
                keep &= (mask != float("-inf")) & \
                    (mask != torch.finfo(mask.dtype).min)
        allowed = int(keep.sum())
        dense = keep.numel()
        self.left_out += (dense - allowed) * (E + Ev)
        self.calls += 1
        # the backward's four products (dO.V^T, dS.K, P^T.dO, dS^T.Q) under
        # the MatMul rule M.N.(2K - 1), K each output element's allowed
        # pairs (nothing for one with none): the FLOPs the mask leaves out
        per_row, per_col = keep.sum(-1), keep.sum(-2)
        kept_rows = int((2 * per_row - 1).clamp(min=0).sum())
        kept_cols = int((2 * per_col - 1).clamp(min=0).sum())
        blocks = dense // (L * S)
        self.bwd_flops_left += (dense - allowed) * (2 * Ev - 1) + \
            E * (blocks * L * (2 * S - 1) - kept_rows) + \
            (E + Ev) * (blocks * S * (2 * L - 1) - kept_cols)

    def __enter__(self):
        self.sdpa = F.scaled_dot_product_attention
        calls = self

        def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False,
                 scale=None, **kw):
            calls.note(q, k, v, attn_mask, is_causal, scale)
            return calls.sdpa(q, k, v, attn_mask=attn_mask,
                              dropout_p=dropout_p, is_causal=is_causal,
                              scale=scale, **kw)
        F.scaled_dot_product_attention = sdpa
        torch.nn.functional.scaled_dot_product_attention = sdpa
        return self

    def __exit__(self, *exc):
        F.scaled_dot_product_attention = self.sdpa


def _eager_hooked(module_name, calls):
    mod = __import__(module_name, fromlist=["eager_attention_forward"])
    orig = mod.eager_attention_forward

    def eager(module, query, key, value, attention_mask, scaling=None,
              dropout=0.0, **kw):
        m = attention_mask
        if m is not None:
            m = m[:, :, :, : key.shape[-2]]
        calls.note(query, key, value, m, False, scaling)
        return orig(module, query, key, value, attention_mask,
                    scaling=scaling, dropout=dropout, **kw)
    return mod, orig, eager


def eager_calls(model, module, kwargs):
    """Calls of the model's real forward on `kwargs` (SDPA's and
    transformers' eager attention's, in `module`)."""
    calls = Calls()
    mod, orig, eager = _eager_hooked(module, calls)
    mod.eager_attention_forward = eager
    try:
        with calls, torch.no_grad():
            model(**kwargs)
    finally:
        mod.eager_attention_forward = orig
    return calls


def _check(model, args, kwargs, calls):
    s = torch_api.analyze_module(model, args, kwargs)
    t = s.totals
    assert calls.calls > 0
    assert t["macs"] - t["macs_unmasked"] == calls.left_out
    return t


def _hf(family, impl, **extra):
    cfg_cls, model_cls, module = {
        "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM,
                  "transformers.models.llama.modeling_llama"),
        "mistral": (transformers.MistralConfig,
                    transformers.MistralForCausalLM,
                    "transformers.models.mistral.modeling_mistral"),
    }[family]
    cfg = cfg_cls(vocab_size=V, hidden_size=64, intermediate_size=128,
                  num_hidden_layers=2, num_attention_heads=8,
                  num_key_value_heads=4, head_dim=8,
                  max_position_embeddings=128, attn_implementation=impl,
                  **extra)
    torch.manual_seed(0)
    return model_cls(cfg).eval(), module


CASES = {
    "causal": dict(pad=0),
    "left_padding": dict(pad=3),
    "right_padding": dict(pad=-4),
}


def _attention_mask(pad):
    am = torch.ones(B, T, dtype=torch.long)
    if pad > 0:
        am[0, :pad] = 0
    elif pad < 0:
        am[1, pad:] = 0
    return am


DTYPES = [torch.float32, torch.bfloat16, torch.float16]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("impl", ["sdpa", "eager"])
@pytest.mark.parametrize("family,extra", [
    ("llama", {}), ("mistral", {"sliding_window": 4})])
@pytest.mark.parametrize("case", sorted(CASES))
def test_transformers_masks(family, extra, impl, case, dtype):
    """In float32, bfloat16 and float16 (issue 40.1): the masks are built in
    the model's dtype, the references the same as in float32."""
    model, module = _hf(family, impl, **extra)
    model = model.to(dtype)
    ids = torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(1))
    kwargs = {"input_ids": ids,
              "attention_mask": _attention_mask(CASES[case]["pad"])}
    calls = eager_calls(model, module, kwargs)
    assert calls.left_out > 0  # every case masks something
    t = _check(model, (), kwargs, calls)
    assert t["tokens"] == B * T
    assert t["flops_per_token"] == pytest.approx(t["flops"] / (B * T))


def test_transformers_packed_sequences():
    """Two sequences packed in one row: position ids restart, and
    transformers builds a block-diagonal causal mask from them."""
    model, module = _hf("llama", "sdpa")
    ids = torch.randint(0, V, (1, T), generator=torch.Generator().manual_seed(2))
    pos = torch.cat([torch.arange(5), torch.arange(T - 5)])[None]
    kwargs = {"input_ids": ids, "position_ids": pos}
    calls = Calls()
    with calls, torch.no_grad():
        model(**kwargs)
    _check(model, (), kwargs, calls)


class Attention(nn.Module):
    """Hand-written attention: the mask built in forward (arange
    comparisons) or given, GQA through enable_gqa or repeat."""

    def __init__(self, kind, heads=4, kv_heads=2, dim=32, window=3, chunk=4):
        super().__init__()
        self.kind, self.h, self.hkv = kind, heads, kv_heads
        self.e = dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.e)
        self.window, self.chunk = window, chunk

    def forward(self, x, mask=None):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.h, self.e).transpose(1, 2)
        k, v = self.kv(x).view(b, t, 2, self.hkv, self.e).permute(2, 0, 3, 1, 4)
        i = torch.arange(t, device=x.device)
        if self.kind == "causal":
            return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                  enable_gqa=True)
        k = k.repeat_interleave(self.h // self.hkv, dim=1)
        v = v.repeat_interleave(self.h // self.hkv, dim=1)
        if self.kind == "window":
            m = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < self.window)
        elif self.kind == "chunked":
            m = (i[:, None] // self.chunk) == (i[None, :] // self.chunk)
        elif self.kind == "additive":
            m = torch.zeros(t, t, device=x.device).masked_fill(
                i[None, :] > i[:, None], float("-inf"))
        elif self.kind == "given":
            m = mask
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m)


@pytest.mark.parametrize("kind", ["causal", "window", "chunked", "additive",
                                  "given"])
def test_hand_written_sdpa(kind):
    torch.manual_seed(0)
    model = Attention(kind).eval()
    x = torch.randn(B, T, 32)
    args = (x,)
    if kind == "given":  # per-row key padding and a causal part, boolean
        keep = torch.ones(B, 1, T, T, dtype=torch.bool).tril()
        keep[1, :, :, 9:] = False
        args = (x, keep)
    calls = Calls()
    with calls, torch.no_grad():
        model(*args)
    assert calls.left_out > 0
    _check(model, args, {}, calls)


def test_tokens_and_training_flops_per_token():
    """tokens = batch x sequence of input_ids; the training FLOPs per token
    are the recorded forward's and backward's FLOPs (the backward's own
    Summary) over the tokens, not 3x the forward by assumption."""
    model, _ = _hf("llama", "sdpa")
    ids = torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(3))
    s = torch_api.analyze_training(model, (), {"input_ids": ids})
    t = s.totals
    assert t["tokens"] == ids.numel()
    bwd = s.backward.totals["flops"]
    assert bwd > t["flops"]  # gradients of activations and weights
    assert t["train_flops"] == t["flops"] + bwd
    assert t["train_flops_per_token"] == pytest.approx(
        (t["flops"] + bwd) / ids.numel())
    assert t["flops_unmasked_per_token"] < t["flops_per_token"]  # causal


def _backward_left_out(s):
    """Backward MACs the mask leaves out, by nnscan: dense - unmasked."""
    t = s.backward.totals
    return t["macs"] - t["macs_unmasked"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_backward_unmasked(case):
    """The recorded backward's attention is four products (dO.V^T, P^T.dO,
    dS.K, dS^T.Q), each over the same pairs as the forward: per masked pair
    2 (E + Ev) MACs are left out (2x the forward's, counted by hand from the
    masks the real forward received), and the unmasked training FLOPs are
    the forward's and the backward's unmasked FLOPs."""
    model, module = _hf("llama", "sdpa")
    ids = torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(4))
    kwargs = {"input_ids": ids,
              "attention_mask": _attention_mask(CASES[case]["pad"])}
    calls = Calls()
    with calls, torch.no_grad():
        model(**kwargs)
    assert calls.left_out > 0
    s = torch_api.analyze_training(model, (), kwargs)
    t = s.totals
    assert t["macs"] - t["macs_unmasked"] == calls.left_out
    assert _backward_left_out(s) == 2 * calls.left_out
    assert s.backward.totals["flops"] - s.backward.totals["flops_unmasked"] \
        == calls.bwd_flops_left
    assert t["train_flops_unmasked"] == \
        t["flops_unmasked"] + s.backward.totals["flops_unmasked"]
    assert t["train_flops_unmasked"] < t["train_flops"]
    assert t["train_flops_unmasked_per_token"] == pytest.approx(
        t["train_flops_unmasked"] / (B * T))


@pytest.mark.parametrize("kind", ["causal", "window", "given"])
def test_backward_unmasked_hand_written(kind):
    torch.manual_seed(0)
    model = Attention(kind)
    x = torch.randn(B, T, 32)
    args = (x,)
    if kind == "given":
        keep = torch.ones(B, 1, T, T, dtype=torch.bool).tril()
        keep[1, :, :, 9:] = False
        args = (x, keep)
    calls = Calls()
    with calls, torch.no_grad():
        model(*args)
    s = torch_api.analyze_training(model, args, {})
    assert _backward_left_out(s) == 2 * calls.left_out > 0
    assert s.backward.totals["flops"] - s.backward.totals["flops_unmasked"] \
        == calls.bwd_flops_left


def test_backward_attention_products_dense():
    """The dense side: the backward's MatMuls in each attention module
    (its own MACs, without its projections') against FlopCounterMode on a
    real CPU forward and backward of eager attention, where they are the
    only batched products with a gradient: (bmm FLOPs with backward -
    without) / 2."""
    from torch.utils.flop_counter import FlopCounterMode
    model, _ = _hf("llama", "eager")
    ids = torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(5))
    bmm = []
    for train in (False, True):
        with FlopCounterMode(display=False) as fc:
            out = model(input_ids=ids).logits
            if train:
                out.backward(torch.ones_like(out))
        bmm.append(fc.get_flop_counts()["Global"][torch.ops.aten.bmm])
    model.zero_grad(set_to_none=True)
    s = torch_api.analyze_training(model, (), {"input_ids": ids})
    rows = s.backward.layers
    own = 0
    for r in rows:
        if r["path"].endswith("self_attn"):
            own += r["macs"] - sum(c["macs"] for c in rows
                                   if c["parent"] == r["index"])
    assert own == (bmm[1] - bmm[0]) // 2 > 0


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("impl", ["sdpa", "eager"])
def test_bert_padding_in_dtype(impl, dtype):
    """BERT with a padding attention_mask, cast to the dtype (issue 40.1:
    0 masked-out MACs in bf16 before). Reference by hand: row 1 pads its
    last 4 keys, so 12 queries x 4 keys x 4 heads pairs per layer are left
    out, each 16 (Q.K^T) + 16 (P.V) MACs, in 2 layers."""
    cfg = transformers.BertConfig(vocab_size=V, hidden_size=64,
                                  intermediate_size=128, num_hidden_layers=2,
                                  num_attention_heads=4,
                                  attn_implementation=impl)
    torch.manual_seed(0)
    model = transformers.BertModel(cfg).eval().to(dtype)
    ids = torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(1))
    am = torch.ones(B, T, dtype=torch.long)
    am[1, 8:] = 0
    t = torch_api.analyze_module(model, (), {"input_ids": ids,
                                             "attention_mask": am}).totals
    assert t["macs"] - t["macs_unmasked"] == 2 * (T * 4 * 4) * (16 + 16)
