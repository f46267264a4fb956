"""Masks too large for the recorder to track (over 2^24 elements: shadow.py
MAX_ELEMENTS), read from the positions they compare (issue 40).

transformers builds its causal, sliding-window and padding masks from
index comparisons (masking_utils: kv_idx <= q_idx, kv_idx > q_idx - w, the
padding mask picked per key, and-ed, broadcast to [B, H, L, S]); the
recorder tracks those positions, and the library reads the mask from them
(attention.c's find_masks) where the mask itself is not tracked. Tiny
LLaMA and Mistral configs on meta, at T=64 (mask tracked) and T=4100
(4100^2 > 2^24: not tracked), eager and SDPA, with and without left
padding, in float32 and bfloat16. Reference, by hand: row i of batch row b
keeps the keys max(p_b, i - w + 1) .. i (p_b padded keys, w the window or
none), and each pair left out costs E + Ev = 2 * 16 MACs per head and
layer: macs - macs_unmasked == 2 * E * H * layers * (B*T*T - kept).
"""
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import nnscan  # noqa: E402
from nnscan import torch_api  # noqa: E402

LAYERS, H, E = 2, 4, 16
CONFIG = dict(vocab_size=128, hidden_size=H * E, intermediate_size=128,
              num_hidden_layers=LAYERS, num_attention_heads=H,
              num_key_value_heads=2, max_position_embeddings=8192)
CASES = [  # (model, attention, left padding of batch row 1, window)
    ("llama", "eager", 0, None),
    ("llama", "sdpa", 5, None),
    ("llama", "eager", 5, None),
    ("mistral", "eager", 0, 32),
    ("mistral", "sdpa", 3, 32),
]


def _kept(b, t, pad, w):
    kept = 0
    for r in range(b):
        p = pad if r == 1 else 0
        for i in range(t):
            lo = max(p, i - w + 1) if w else p
            kept += max(0, i - lo + 1)
    return kept


@pytest.mark.parametrize("t", [64, 4100])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("kind,impl,pad,w", CASES)
def test_large_mask_counted_from_positions(kind, impl, pad, w, dtype, t):
    if kind == "llama":
        cfg = transformers.LlamaConfig(**CONFIG)
    else:
        cfg = transformers.MistralConfig(sliding_window=w, **CONFIG)
    cfg._attn_implementation = impl
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg).to(dtype)
    b = 2 if pad else 1
    inputs = {"input_ids": torch.zeros(b, t, dtype=torch.long)}
    if pad:
        keep = torch.ones(b, t, dtype=torch.long)
        keep[1, :pad] = 0
        inputs["attention_mask"] = keep
    s = nnscan.summary(model, inputs=inputs, file=False)
    left_out = s.totals["macs"] - s.totals["macs_unmasked"]
    assert left_out == 2 * E * H * LAYERS * (b * t * t - _kept(b, t, pad, w))
    assert s.v2["totals"]["unmasked_status"] == "complete"


@pytest.mark.parametrize("kind,impl,pad,w", [CASES[1], CASES[4]])
def test_large_mask_training_same_as_tracked(kind, impl, pad, w, monkeypatch):
    """A training summary at T=4100: the forward's and the backward's
    unmasked counts (the backward's need the rows and the key columns the
    mask leaves, per batch row) read from the positions equal those read
    from the mask's values, tracked when the recorder's limit is raised
    past the mask (the values path, checked against the masks PyTorch's
    own forward receives in test_masked_attention_hf.py)."""
    from nnscan import shadow
    t = 4100
    if kind == "llama":
        cfg = transformers.LlamaConfig(**dict(CONFIG, num_hidden_layers=1))
    else:
        cfg = transformers.MistralConfig(sliding_window=w, **dict(
            CONFIG, num_hidden_layers=1))
    cfg._attn_implementation = impl
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg)
    keep = torch.ones(2, t, dtype=torch.long)
    keep[1, :pad] = 0
    inputs = {"input_ids": torch.zeros(2, t, dtype=torch.long),
              "attention_mask": keep}

    def counts():
        s = torch_api.analyze_training(model, (), inputs)
        bt = s.backward.totals
        return (s.totals["macs_unmasked"], s.totals["flops_unmasked"],
                bt["macs_unmasked"], bt["flops_unmasked"], bt["macs"],
                s.backward.v2["totals"]["unmasked_status"])
    got = counts()
    monkeypatch.setattr(shadow, "MAX_ELEMENTS", 1 << 26)
    want = counts()
    assert got == want
    assert got[2] < got[4] and got[5] == "complete"
