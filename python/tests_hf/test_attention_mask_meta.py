"""A tokenizer's attention_mask on a transformers decoder built on meta,
and the pad-token check encoders make without one.

transformers checks the mask's values (`padding_mask.all()`, in its mask
builders) and builds the causal + padding mask from them: on meta tensors
that used to raise `.item() cannot be called on meta tensors`. The
recorder keeps integer/boolean inputs and what is computed from them as
real values (nnscan/shadow.py), so these record on meta, without falling
back to a real forward (which a model without weights cannot do).

References: matrix-product MACs from PyTorch's FlopCounterMode on the same
meta model (fed input_ids only: the dense products do not depend on the
mask), parameters from sum(p.numel()), and the attention mask the model
built compared with causal & padding computed by hand.
"""
import warnings

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

import hf_zoo  # noqa: E402
import nnscan  # noqa: E402
from nnscan import recorder  # noqa: E402

B, T = 2, 12


def _model(family):
    cfg_cls, model_cls = {
        "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
        "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM),
    }[family]
    cfg = cfg_cls(vocab_size=256, hidden_size=64, intermediate_size=128,
                  num_hidden_layers=2, num_attention_heads=8,
                  num_key_value_heads=4, head_dim=8,
                  max_position_embeddings=128)
    with torch.device("meta"):
        return model_cls(cfg)


def _mask(pad):
    am = torch.ones(B, T, dtype=torch.long)
    am[0, :pad] = 0  # left padding on the first row
    return am


def _flop_counter_macs(model):
    with FlopCounterMode(display=False) as fc:
        model(input_ids=torch.zeros(B, T, dtype=torch.long, device="meta"))
    return fc.get_total_flops() // 2


@pytest.mark.parametrize("family", ["llama", "mistral"])
@pytest.mark.parametrize("pad", [0, 3])
def test_attention_mask_records_on_meta(family, pad):
    model = _model(family)
    ids = torch.randint(0, 256, (B, T))
    am = _mask(pad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback, no shape mismatch
        s = nnscan.summary(model, inputs={"input_ids": ids,
                                          "attention_mask": am}, file=False)
    assert s.device == "meta"
    unique = {id(p): p.numel() for p in model.parameters()}
    assert s.totals["params"] == sum(unique.values())
    by_op = {o["op_type"]: o["macs"] for o in s.json["op_types"]}
    assert by_op.get("MatMul", 0) + by_op.get("Gemm", 0) == \
        _flop_counter_macs(model)


@pytest.mark.parametrize("pad", [0, 3])
def test_the_mask_the_model_built_is_known(pad):
    """The boolean mask handed to attention is tracked with its real
    values: causal, and the padded keys of the first row masked out."""
    model = _model("llama")
    am = _mask(pad)
    rec = recorder.record_model(model, (), {
        "input_ids": torch.randint(0, 256, (B, T)), "attention_mask": am},
        device="meta")
    allowed = torch.ones(T, T, dtype=torch.bool).tril()[None, None] \
        & am.bool()[:, None, None, :]
    found = []
    shadows = rec.builder.shadows
    for meta, _ in list(shadows.of.values()):
        v = shadows.value(meta)  # computed when read (shadow.py)
        if v is not None and v.dtype == torch.bool and v.dim() >= 2 and \
                list(v.shape[-2:]) == [T, T]:
            try:
                found.append(torch.equal(v.expand(B, 1, T, T), allowed))
            except RuntimeError:  # does not broadcast to the scores
                pass
    assert any(found)


@pytest.mark.parametrize("family", ["llama", "mistral"])
@pytest.mark.parametrize("pad", [0, 3])
def test_gqa_with_mask_on_the_models_own_cpu(family, pad):
    """The same decoder with real CPU weights, run on its own device
    (with no padding transformers hands PyTorch's fused CPU attention 4 k/v
    heads for 8 query heads, enable_gqa; with padding it repeats them):
    the same products as FlopCounterMode counts on the meta model."""
    meta = _model(family)
    torch.manual_seed(0)
    model = type(meta)(meta.config)
    inputs = {"input_ids": torch.randint(0, 256, (B, T)),
              "attention_mask": _mask(pad)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = nnscan.summary(model, inputs=inputs, device="model", file=False)
    assert s.device == "cpu"
    by_op = {o["op_type"]: o["macs"] for o in s.json["op_types"]}
    assert by_op.get("MatMul", 0) + by_op.get("Gemm", 0) == \
        _flop_counter_macs(meta)


@pytest.mark.parametrize("family", ["deberta-v2", "ibert", "rembert"])
@pytest.mark.parametrize("padded", [True, False])
def test_pad_token_check_records_on_meta(family, padded):
    """Encoders whose config has a pad token and no attention_mask given:
    transformers' warn_if_padding_and_no_attention_mask reads
    `pad_token_id in input_ids[:, [-1, 0]]`, a Python list as an index.
    Built on meta, the model records on meta (no fallback, which a model
    without weights cannot do). References: sum(p.numel()), and the matrix
    products FlopCounterMode counts on the same config built on the CPU
    with the same ids (eager attention, so that the CPU run spells every
    product)."""
    cls = transformers.CONFIG_MAPPING[family]
    sizes = hf_zoo._tiny(cls, {})
    sizes.pop("pad_token_id")  # the family's own
    cfg = cls(**sizes)
    assert cfg.pad_token_id is not None
    ids = torch.randint(3, 200, (B, T))
    if padded:
        ids[0, -1] = cfg.pad_token_id
    with torch.device("meta"):
        meta = transformers.AutoModel.from_config(
            cfg, attn_implementation="eager").eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback, no shape mismatch
        s = nnscan.summary(meta, inputs={"input_ids": ids}, file=False)
    assert s.device == "meta"
    assert s.uncounted_aten == {}
    assert s.totals["params"] + s.totals.get("frozen", 0) == \
        sum(p.numel() for p in meta.parameters())
    torch.manual_seed(0)
    cpu = transformers.AutoModel.from_config(
        cfg, attn_implementation="eager").eval()
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        cpu(input_ids=ids)
    assert hf_zoo.matmul_macs(s) == fc.get_total_flops() // 2
