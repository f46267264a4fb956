"""Tiny Hugging Face transformers models, built from their configs on the
meta device (no download, no weight allocated), and PyTorch's own figures
for them.

`FAMILIES` maps a transformers `model_type` to how it is built and fed:
the model class (`causal`: AutoModelForCausalLM, `masked`:
AutoModelForMaskedLM, `seq2seq`: AutoModelForSeq2SeqLM, `speech`:
AutoModelForSpeechSeq2Seq, `base`: AutoModel),
the inputs (`text`: input_ids; `seq2seq`: + decoder_input_ids; `image`:
pixel_values; `text+image`: both; `audio`: Whisper's input_features +
decoder_input_ids; `waveform`: a raw waveform, input_values) and config overrides. `attn: "eager"` marks the
families whose SDPA mask code asks a mask's values (`padding_mask.all()`,
an `.item()`), even with no attention_mask given: nnscan records them on
meta (it keeps such masks real), but FlopCounterMode, the reference, cannot
run them there, so the zoo builds them with eager attention (matmul,
softmax, matmul); test_sdpa_mask_checks_record_on_meta checks the default.
Every family also gets `TINY`'s sizes for the config fields it has (a
couple of layers, hidden 64).

`reference(model, inputs)` is what PyTorch says: parameters as
sum(p.numel()) over the unique parameters (a tied weight once), and the
matrix-product MACs `torch.utils.flop_counter.FlopCounterMode` counts on the
meta model (its FLOPs are 2 x MACs for every op it knows: mm, addmm, bmm,
baddbmm, convolution, the SDPA kernels; it has no formula for _grouped_mm,
see reference()).
"""
import torch
import transformers

# mixture-of-experts families whose experts run transformers' default
# grouped path (aten._grouped_mm); LLaMA-4's experts are its own bmm
MOE = ("mixtral", "qwen2_moe", "qwen3_moe", "olmoe", "phimoe", "gpt_oss",
       "deepseek_v3", "deepseek_v2")

# Sizes every family gets, for each field its config has.
TINY = {
    "vocab_size": 256, "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 128,
    # GPT-2 / GPT-NeoX / Falcon / OPT / BLOOM spellings
    "n_embd": 64, "n_layer": 2, "n_head": 4, "n_inner": 128, "n_positions": 128,
    "ffn_dim": 128, "word_embed_proj_dim": 64,
    # encoder-decoders (BART, T5, Whisper)
    "d_model": 64, "encoder_layers": 2, "decoder_layers": 2,
    "encoder_attention_heads": 4, "decoder_attention_heads": 4,
    "encoder_ffn_dim": 128, "decoder_ffn_dim": 128, "num_layers": 2,
    "num_decoder_layers": 2, "num_heads": 4, "d_ff": 128, "d_kv": 16,
    # DistilBERT
    "dim": 64, "hidden_dim": 128, "n_layers": 2, "n_heads": 4,
    # mixture of experts
    "num_local_experts": 4, "num_experts": 4, "num_experts_per_tok": 2,
    "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64,
    # special tokens inside the tiny vocabulary
    # (no pad token: with one and no attention_mask, transformers looks at
    # the ids' values, which a meta tensor has not)
    "pad_token_id": None, "bos_token_id": 1, "eos_token_id": 2,
    "decoder_start_token_id": 0, "cls_token_id": 1, "sep_token_id": 2,
    # vision
    "image_size": 32, "patch_size": 8, "num_channels": 3,
}

SEQ = 16

FAMILIES = {
    # decoder-only language models
    "llama": {"cls": "causal"},
    "mistral": {"cls": "causal"},
    "qwen2": {"cls": "causal"},
    "qwen3": {"cls": "causal"},
    "gemma": {"cls": "causal"},
    "gemma2": {"cls": "causal"},
    "gemma3_text": {"cls": "causal"},
    "phi3": {"cls": "causal"},
    "phi": {"cls": "causal"},
    "gpt2": {"cls": "causal"},
    "gpt_neox": {"cls": "causal"},
    "gptj": {"cls": "causal", "cfg": {"rotary_dim": 8}},
    "gpt_neo": {"cls": "causal",
                "cfg": {"attention_types": [[["global", "local"], 1]],
                        "num_layers": 2}},
    "gpt_bigcode": {"cls": "causal"},
    "opt": {"cls": "causal", "attn": "eager"},
    "falcon": {"cls": "causal"},
    "bloom": {"cls": "causal"},
    "mpt": {"cls": "causal"},
    "stablelm": {"cls": "causal"},
    "starcoder2": {"cls": "causal"},
    "olmo": {"cls": "causal"},
    "olmo2": {"cls": "causal"},
    "cohere": {"cls": "causal"},
    "granite": {"cls": "causal"},
    "smollm3": {"cls": "causal"},
    "codegen": {"cls": "causal", "cfg": {"rotary_dim": 8}},
    # rotary embeddings as complex products (view_as_complex, polar)
    "llama4_text": {"cls": "causal"},
    # multi-head latent attention: as many key/value heads as query heads,
    # as DeepSeek-V2's own configs have (transformers 5.17 refuses fewer)
    "deepseek_v2": {"cls": "causal", "cfg": {"num_key_value_heads": 4}},
    # state-space and recurrent language models, Fourier mixing
    "mamba": {"cls": "causal"},
    "falcon_h1": {"cls": "causal"},
    "rwkv": {"cls": "causal"},
    "fnet": {"cls": "base"},
    # mixture of experts
    "mixtral": {"cls": "causal"},
    "qwen2_moe": {"cls": "causal"},
    "qwen3_moe": {"cls": "causal"},
    "olmoe": {"cls": "causal"},
    "phimoe": {"cls": "causal"},
    "gpt_oss": {"cls": "causal"},
    "deepseek_v3": {"cls": "causal",
                    "cfg": {"n_routed_experts": 4, "n_group": 1,
                            "topk_group": 1, "first_k_dense_replace": 1,
                            "kv_lora_rank": 16, "q_lora_rank": 32,
                            "qk_rope_head_dim": 8, "qk_nope_head_dim": 8,
                            "v_head_dim": 16, "head_dim": 8}},
    # encoders
    "bert": {"cls": "masked"},
    "roberta": {"cls": "masked", "cfg": {"pad_token_id": 1}},
    "distilbert": {"cls": "masked"},
    "albert": {"cls": "masked", "cfg": {"embedding_size": 32}},
    "electra": {"cls": "masked", "cfg": {"embedding_size": 32}},
    "deberta-v2": {"cls": "masked"},
    "xlm-roberta": {"cls": "masked", "cfg": {"pad_token_id": 1}},
    "modernbert": {"cls": "masked"},
    # encoder-decoders
    "t5": {"cls": "seq2seq", "inputs": "seq2seq"},
    "bart": {"cls": "seq2seq", "inputs": "seq2seq", "attn": "eager"},
    "mbart": {"cls": "seq2seq", "inputs": "seq2seq", "attn": "eager"},
    "pegasus": {"cls": "seq2seq", "inputs": "seq2seq", "attn": "eager"},
    "marian": {"cls": "seq2seq", "inputs": "seq2seq", "attn": "eager"},
    "whisper": {"cls": "speech", "inputs": "audio",
                "cfg": {"num_mel_bins": 16, "max_source_positions": 16,
                        "max_target_positions": 32}},
    # speech encoders on a raw waveform (a Conv1d feature extractor with
    # GroupNorm or LayerNorm, a weight-normed positional convolution)
    "wav2vec2": {"cls": "base", "inputs": "waveform"},
    "hubert": {"cls": "base", "inputs": "waveform"},
    # vision and vision-language
    "vit": {"cls": "base", "inputs": "image"},
    "deit": {"cls": "base", "inputs": "image"},
    "beit": {"cls": "base", "inputs": "image"},
    "dinov2": {"cls": "base", "inputs": "image"},
    "swin": {"cls": "base", "inputs": "image",
             "cfg": {"embed_dim": 16, "depths": [1, 1], "num_heads": [2, 2],
                     "window_size": 2, "patch_size": 4}},
    "convnext": {"cls": "base", "inputs": "image",
                 "cfg": {"hidden_sizes": [16, 32], "depths": [1, 1],
                         "num_stages": 2}},
    "bit": {"cls": "base", "inputs": "image",       # GroupNorm
            "cfg": {"hidden_sizes": [16, 32, 64, 128], "depths": [1, 1, 1, 1],
                    "embedding_size": 16, "num_groups": 4}},
    "poolformer": {"cls": "base", "inputs": "image",  # GroupNorm
                   "cfg": {"hidden_sizes": [16, 32, 64, 128],
                           "depths": [1, 1, 1, 1]}},
    "textnet": {"cls": "base", "inputs": "image"},
    # the pooler is a ceil-mode AvgPool2d of the hidden size (320 here)
    # over the 2x2 map left of a 64x64 image
    "efficientnet": {"cls": "base", "inputs": "image",
                     "cfg": {"image_size": 64, "width_coefficient": 0.25,
                             "depth_coefficient": 0.25, "hidden_dim": 320}},
    "clip": {"cls": "base", "inputs": "text+image", "sub": True},
    "siglip": {"cls": "base", "inputs": "text+image", "sub": True},
}


def _tiny(config_cls, overrides):
    """Constructor kwargs: TINY's sizes for the fields the config has."""
    aliases = getattr(config_cls, "attribute_map", {})
    known = set(config_cls().to_dict()) | set(aliases)
    kw = {k: v for k, v in TINY.items()
          if k in known and aliases.get(k) not in overrides}
    kw.update(overrides)
    return kw


def config(name):
    fam = FAMILIES[name]
    cls = transformers.CONFIG_MAPPING[name]
    if fam.get("sub"):  # a text and a vision tower, each with its own config
        text_cls, vision_cls = cls.sub_configs["text_config"], \
            cls.sub_configs["vision_config"]
        kw = dict(fam.get("cfg", {}))
        kw["text_config"] = _tiny(text_cls, {"max_position_embeddings": SEQ})
        kw["vision_config"] = _tiny(vision_cls, {})
        kw.setdefault("projection_dim", 32)
        return cls(**kw)
    return cls(**_tiny(cls, fam.get("cfg", {})))


AUTO = {"causal": "AutoModelForCausalLM", "masked": "AutoModelForMaskedLM",
        "seq2seq": "AutoModelForSeq2SeqLM",
        "speech": "AutoModelForSpeechSeq2Seq", "base": "AutoModel"}


def build(name, device="meta", dtype=None, **kw):
    """(model in eval mode, built on `device` (meta: no weight allocated),
    keyword inputs on CPU). kw goes to from_config (experts_implementation,
    ...)."""
    cfg = config(name)
    auto = getattr(transformers, AUTO[FAMILIES[name]["cls"]])
    if "attn" in FAMILIES[name]:
        kw["attn_implementation"] = FAMILIES[name]["attn"]
    if dtype is not None:
        kw["dtype"] = dtype
    with torch.device(device):
        model = auto.from_config(cfg, **kw)
    model.eval()
    return model, inputs(name, cfg)


def inputs(name, cfg):
    kind = FAMILIES[name].get("inputs", "text")
    ids = torch.zeros(1, SEQ, dtype=torch.long)
    if kind == "text":
        return {"input_ids": ids}
    if kind == "seq2seq":
        return {"input_ids": ids, "decoder_input_ids": ids[:, :8]}
    if kind == "waveform":  # a fifth of a second at 16 kHz
        return {"input_values": torch.zeros(1, 3200)}
    if kind == "audio":
        frames = 2 * cfg.max_source_positions
        return {"input_features": torch.zeros(1, cfg.num_mel_bins, frames),
                "decoder_input_ids": ids[:, :8]}
    vision = getattr(cfg, "vision_config", cfg)
    size = getattr(vision, "image_size", TINY["image_size"])
    size = size[0] if isinstance(size, (list, tuple)) else size
    pixels = torch.zeros(1, getattr(vision, "num_channels", 3), size, size)
    if kind == "image":
        return {"pixel_values": pixels}
    if kind == "text+image":
        return {"input_ids": ids, "pixel_values": pixels}
    raise ValueError(kind)


def to_meta(inputs):
    return {k: v.to("meta") for k, v in inputs.items()}


def experts_implementation(model):
    """'grouped_mm' (transformers' default), 'batched_mm', 'eager', or None
    for a model without mixture-of-experts layers."""
    impl = getattr(model.config, "_experts_implementation", None)
    has_experts = any(hasattr(m, "gate_up_proj") or hasattr(m, "up_proj")
                      and isinstance(getattr(m, "up_proj"), torch.nn.Parameter)
                      for m in model.modules())
    return impl if has_experts else None


def reference(model, inputs):
    """PyTorch's own figures: (params, matmul-class MACs).

    FlopCounterMode has no formula for aten._grouped_mm (the experts of
    transformers' default MoE path), so a mixture-of-experts model is
    counted with its experts run as `batched_mm`, the same products spelled
    as bmm (each token's rows times its experts' gathered weights), which
    FlopCounterMode counts."""
    from torch.utils.flop_counter import FlopCounterMode
    params = sum(p.numel() for p in model.parameters())
    impl = experts_implementation(model)
    if impl == "grouped_mm":
        model.set_experts_implementation("batched_mm")
    try:
        with torch.no_grad(), FlopCounterMode(display=False) as fc:
            model(**to_meta(inputs))
    finally:
        if impl == "grouped_mm":
            model.set_experts_implementation(impl)
    flops = sum(fc.get_flop_counts()["Global"].values())
    return params, flops // 2


# nnscan's op types that are matrix products (what FlopCounterMode counts)
MATMUL_OPS = ("MatMul", "Gemm", "Conv", "ConvTranspose", "Einsum")


def matmul_macs(summary):
    return sum(o["macs"] for o in summary.json["op_types"]
               if o["op_type"] in MATMUL_OPS)
