"""Hugging Face transformers families on PyTorch 2.x, checked against
PyTorch itself (issue 16).

For every family of hf_zoo.FAMILIES (decoders, GQA, mixture-of-experts,
encoders, encoder-decoders, vision, vision-language), a tiny config built
on the meta device:
  - trainable parameters == sum(p.numel()) over the parameters that
    require grad, frozen ones likewise (model.parameters(): a tied weight
    once);
  - matrix-product MACs (MatMul, Gemm, Conv, ConvTranspose, Einsum) within
    1 % of torch.utils.flop_counter.FlopCounterMode on the same meta model
    (its FLOPs / 2; it counts mm, addmm, bmm, baddbmm, convolution and the
    SDPA kernels);
  - nothing left uncounted: no aten op without an entry, totals complete;
  - the library's shape of every node output equals PyTorch's (no
    ShapeMismatch warning), and the recording ran on meta.
Mixture-of-experts models run transformers' default experts path
(aten._grouped_mm), which FlopCounterMode has no formula for: their
reference is the same model with experts_implementation="batched_mm" (the
same products as bmm), see hf_zoo.reference.

Runs only on PyTorch 2.x, where transformers is (the sid chroot of
tests/run_all.sh): `python3 -m pytest tests_hf`.
"""
import warnings

import pytest
import torch

import hf_zoo
import transformers
import nnscan
from nnscan.torch_api import ShapeMismatch


# Off the meta device, eager attention: grouped-query attention through
# PyTorch's fused CPU kernel is another item of issue 16 (the SDPA mapping).
CPU_ATTENTION = {"attn_implementation": "eager"}


def summarize(model, inputs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = nnscan.summary(model, inputs=inputs, file=False)
    mismatches = [str(w.message) for w in caught
                  if issubclass(w.category, ShapeMismatch)]
    return s, mismatches


def check_against_pytorch(model, inputs):
    s, mismatches = summarize(model, inputs)
    _, ref_macs = hf_zoo.reference(model, inputs)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    frozen = sum(p.numel() for p in model.parameters() if not p.requires_grad)
    assert s.totals["params"] == trainable
    assert s.totals.get("frozen", 0) == frozen
    macs = hf_zoo.matmul_macs(s)
    assert ref_macs > 0
    assert abs(macs - ref_macs) <= 0.01 * ref_macs, (macs, ref_macs)
    assert s.uncounted_aten == {}
    assert s.totals["complete"] and not s.totals["flags"]["partial"]
    assert mismatches == []
    return s


def check_against_a_cpu_forward(model, inputs, device="meta"):
    """check_against_pytorch for a CPU model whose forward asks data that
    FlopCounterMode cannot have on meta: its reference is FlopCounterMode
    over a CPU forward (with eager attention, every product a matmul it
    counts); nnscan records on `device`."""
    from torch.utils.flop_counter import FlopCounterMode
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        model(**inputs)
    ref_macs = sum(fc.get_flop_counts()["Global"].values()) // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fallback says why
        s, mismatches = summarize(model, inputs)
    assert s.device == device
    params = list(model.parameters())
    assert s.totals["params"] == sum(p.numel() for p in params
                                     if p.requires_grad)
    assert s.totals.get("frozen", 0) == sum(p.numel() for p in params
                                            if not p.requires_grad)
    assert hf_zoo.matmul_macs(s) == ref_macs
    assert s.uncounted_aten == {} and mismatches == []
    assert s.totals["complete"]


@pytest.mark.parametrize("name", sorted(hf_zoo.FAMILIES))
def test_family_matches_pytorch(name):
    model, inputs = hf_zoo.build(name)
    s = check_against_pytorch(model, inputs)
    assert s.device == "meta"
    if name in hf_zoo.MOE:  # the experts ran as grouped products
        assert "aten._grouped_mm.default" in s._recording_sources


@pytest.mark.parametrize("name", ["mixtral", "qwen3_moe"])
def test_moe_bfloat16(name):
    """16-bit experts: PyTorch's own meta kernel for _grouped_mm (float32
    ones take the recorder's shape shim)."""
    model, inputs = hf_zoo.build(name, dtype=torch.bfloat16)
    assert next(model.parameters()).dtype == torch.bfloat16
    check_against_pytorch(model, inputs)


@pytest.mark.parametrize("impl", ["batched_mm", "eager"])
def test_moe_other_experts_paths_count_the_same(impl):
    """The same Mixtral run with its experts as batched bmm (meta) or as
    transformers' eager loop over experts (real tensors: the loop reads
    the router's choices) costs the same matrix products."""
    grouped, inputs = hf_zoo.build("mixtral")
    expect = hf_zoo.matmul_macs(summarize(grouped, inputs)[0])
    if impl == "batched_mm":
        model, inputs = hf_zoo.build("mixtral", experts_implementation=impl)
    else:
        model, inputs = hf_zoo.build("mixtral", device="cpu",
                                     experts_implementation=impl,
                                     **CPU_ATTENTION)
    s, mismatches = summarize(model, inputs)
    assert hf_zoo.matmul_macs(s) == expect
    assert mismatches == []
    # The eager loop asks torch.nonzero which experts were chosen: its row
    # count is the data's, which NonZero's rule takes from the shape
    # PyTorch produced (NNS_INFER_FALLBACK_DECLARED), so nothing is left
    # uncounted on either path.
    assert s.uncounted_aten == {}


def test_moe_on_cpu_with_real_routing():
    """device="model": _grouped_mm on CPU with the router's real offsets
    (float32), the fallback path a data-dependent forward takes."""
    meta, inputs = hf_zoo.build("qwen3_moe")
    expect = hf_zoo.matmul_macs(summarize(meta, inputs)[0])
    torch.manual_seed(0)
    model, inputs = hf_zoo.build("qwen3_moe", device="cpu", **CPU_ATTENTION)
    inputs = {"input_ids": torch.randint(3, 200, inputs["input_ids"].shape)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = nnscan.summary(model, inputs=inputs, device="model", file=False)
    assert s.device == "cpu"
    assert hf_zoo.matmul_macs(s) == expect
    assert s.uncounted_aten == {}
    assert not [w for w in caught if issubclass(w.category, ShapeMismatch)]


@pytest.mark.parametrize("name", ["llama", "bert", "gpt2", "qwen3_moe"])
def test_backward_matches_pytorch(name):
    """backward=True: the backward pass's matrix-product MACs equal
    FlopCounterMode's count of a real backward on the meta model (the
    logits' sum as the loss; MoE experts as batched_mm there), nothing
    uncounted (silu/gelu/slice/embedding gradients, _grouped_mm's weight
    gradient)."""
    model, inputs = hf_zoo.build(name)
    s = nnscan.summary(model, inputs=inputs, backward=True, file=False)
    ref, _ = hf_zoo.build(name)
    if hf_zoo.experts_implementation(ref) == "grouped_mm":
        ref.set_experts_implementation("batched_mm")
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as fc:
        out = ref(**hf_zoo.to_meta(inputs))
        forward = sum(fc.get_flop_counts()["Global"].values())
        out.logits.sum().backward()
    backward = (sum(fc.get_flop_counts()["Global"].values()) - forward) // 2
    macs = hf_zoo.matmul_macs(s.backward)
    assert abs(macs - backward) <= 0.01 * backward, (macs, backward)
    assert s.backward.uncounted_aten == {}


@pytest.mark.parametrize("name", sorted(n for n, f in hf_zoo.FAMILIES.items()
                                        if f.get("attn") == "eager"))
def test_sdpa_mask_checks_record_on_meta(name):
    """The families whose SDPA mask code asks padding_mask.all() record on
    meta with their default attention too (the recorder keeps such masks
    real); PyTorch's FlopCounterMode cannot run them on meta, so the
    reference is the eager-attention build: the same two products."""
    cfg = hf_zoo.config(name)
    auto = getattr(transformers, hf_zoo.AUTO[hf_zoo.FAMILIES[name]["cls"]])
    with torch.device("meta"):
        model = auto.from_config(cfg).eval()
    s, mismatches = summarize(model, hf_zoo.inputs(name, cfg))
    eager, inputs = hf_zoo.build(name)
    _, ref = hf_zoo.reference(eager, inputs)
    assert s.device == "meta"
    assert hf_zoo.matmul_macs(s) == ref
    assert s.uncounted_aten == {} and mismatches == []


# Families whose forward asks data of its activations or ids (an .item() on
# a position bucket, a chunk count computed with torch.div of two numbers),
# so that FlopCounterMode cannot count them on meta: nnscan records them
# on meta where the values it keeps real suffice (Longformer, BigBird,
# RoFormer) or runs them once on the CPU (Funnel); the reference is then
# FlopCounterMode over a CPU forward with eager attention, where every
# product is a matmul it counts.
@pytest.mark.parametrize("name,device", [("longformer", "meta"),
                                         ("big_bird", "meta"),
                                         ("roformer", "meta"),
                                         ("funnel", "cpu")])
def test_data_asking_families_match_a_cpu_reference(name, device):
    cls = transformers.CONFIG_MAPPING[name]
    cfg = cls(**hf_zoo._tiny(cls, {"pad_token_id": 1}))
    torch.manual_seed(0)
    model = transformers.AutoModelForMaskedLM.from_config(
        cfg, attn_implementation="eager").eval()
    inputs = {"input_ids": torch.full((1, hf_zoo.SEQ), 5, dtype=torch.long)}
    check_against_a_cpu_forward(model, inputs, device)


def test_sew_d_cpu_scalar_fill_records_on_meta():
    """SEW-D's attention fills masked scores with a CPU scalar tensor
    (torch.tensor(finfo.min)), which PyTorch 2.x's meta kernel for
    masked_fill refuses: a CPU model still records on meta, and counts
    what FlopCounterMode counts over a CPU forward."""
    cls = transformers.CONFIG_MAPPING["sew-d"]
    cfg = cls(**hf_zoo._tiny(cls, {"num_hidden_layers": 2}))
    torch.manual_seed(0)
    model = transformers.AutoModelForCTC.from_config(cfg).eval()
    check_against_a_cpu_forward(model, {"input_values": torch.zeros(1, 3200)})


@pytest.mark.parametrize("name,auto", [
    ("depth_anything", "AutoModelForDepthEstimation"),
    ("segformer", "AutoModelForSemanticSegmentation")])
def test_backbone_hidden_states_reach_the_head(name, auto):
    """transformers 5 hands a backbone the hidden states it asks for
    through forward hooks it installs on every layer: they are the
    model's own, and run while nnscan records (the user's hooks do not).
    Without them the head got no feature maps (DepthAnything raised
    "hidden_states should be a tuple or list of tensors")."""
    cfg = transformers.CONFIG_MAPPING[name]()
    with torch.device("meta"):
        model = getattr(transformers, auto).from_config(cfg).eval()
    size = cfg.image_size if isinstance(getattr(cfg, "image_size", None),
                                        int) else 224
    inputs = {"pixel_values": torch.zeros(1, 3, size, size)}
    check_against_pytorch(model, inputs)


@pytest.mark.parametrize("name", ["bart", "mt5"])
def test_sequence_classification_at_the_eos_tokens(name):
    """BART-style classification heads take the hidden states at the
    input's end-of-sentence tokens (a boolean mask of input_ids, whose
    values nnscan keeps) and check their counts with unique_consecutive:
    recorded on meta, against FlopCounterMode over a CPU forward."""
    cls = transformers.CONFIG_MAPPING[name]
    cfg = cls(**hf_zoo._tiny(cls, {"pad_token_id": 1}))
    torch.manual_seed(0)
    model = transformers.AutoModelForSequenceClassification.from_config(
        cfg, attn_implementation="eager").eval()
    ids = torch.full((1, hf_zoo.SEQ), 5, dtype=torch.long)
    ids[0, -1] = cfg.eos_token_id
    check_against_a_cpu_forward(model, {"input_ids": ids})
