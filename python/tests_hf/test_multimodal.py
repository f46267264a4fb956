"""Multimodal models from tiny configs (issue 40): their real inputs made
by each model's own image processor (no weights, no download), recorded
on the meta device although their forwards read data (placeholder counts,
grid sizes: `.item()`, `torch.tensor` of 0-d tensors), in float32 and
bfloat16. Reference: PyTorch itself on a CPU copy of the same model with
eager attention (every attention product a matmul FlopCounterMode counts;
it has no formula for the CPU's fused attention): parameters ==
sum(p.numel()), matrix-product MACs == FlopCounterMode's, nothing left
uncounted."""
import warnings

import pytest
import torch

import hf_zoo
import nnscan

transformers = pytest.importorskip("transformers")
DTYPES = [torch.float32, torch.bfloat16]
TEXT = dict(vocab_size=256, hidden_size=64, intermediate_size=128,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=512)
IMAGE_TOKEN = 250


def _image(size):
    torch.manual_seed(0)
    return (torch.rand(3, size, size) * 255).to(torch.uint8)


def qwen2_vl(version=""):
    from transformers import AutoConfig
    kind = "qwen2_5_vl" if version else "qwen2_vl"
    cls = getattr(transformers, "Qwen2_5_VLForConditionalGeneration"
                  if version else "Qwen2VLForConditionalGeneration")
    vision = dict(depth=2, hidden_size=64, num_heads=2, patch_size=14,
                  spatial_merge_size=2, temporal_patch_size=2, in_chans=3)
    if version:
        vision.update(intermediate_size=64, out_hidden_size=64,
                      fullatt_block_indexes=[1], window_size=56)
    else:
        vision.update(embed_dim=32, mlp_ratio=2)
    text = dict(TEXT, rope_scaling={"type": "mrope",
                                    "mrope_section": [2, 2, 4]})
    cfg = AutoConfig.for_model(kind, text_config=text, vision_config=vision,
                               image_token_id=IMAGE_TOKEN, video_token_id=251,
                               vision_start_token_id=252,
                               vision_end_token_id=253)
    proc = transformers.Qwen2VLImageProcessor(min_pixels=56 * 56,
                                              max_pixels=112 * 112)
    px = proc(images=[_image(112)], return_tensors="pt")
    n = int(px["image_grid_thw"].prod()) // 4
    ids = torch.tensor([[1, 252] + [IMAGE_TOKEN] * n + [253, 5, 6, 7]])
    return cls, cfg, {"input_ids": ids,
                      "mm_token_type_ids": (ids == IMAGE_TOKEN).int(),
                      **px}


def qwen2_5_vl():
    return qwen2_vl("2.5")


def paligemma():
    from transformers import GemmaConfig, PaliGemmaConfig, SiglipVisionConfig
    vision = SiglipVisionConfig(hidden_size=32, intermediate_size=64,
                                num_hidden_layers=2, num_attention_heads=2,
                                image_size=32, patch_size=8,
                                projection_dim=64)
    text = GemmaConfig(**dict(TEXT, head_dim=16))
    cfg = PaliGemmaConfig(vision_config=vision, text_config=text,
                          image_token_index=IMAGE_TOKEN, projection_dim=64)
    proc = transformers.SiglipImageProcessor(size={"height": 32,
                                                   "width": 32})
    px = proc(images=[_image(48)], return_tensors="pt")
    n = (32 // 8) ** 2
    ids = torch.tensor([[IMAGE_TOKEN] * n + [1, 5, 6, 7, 2]])
    return transformers.PaliGemmaForConditionalGeneration, cfg, \
        {"input_ids": ids, "pixel_values": px["pixel_values"]}


def _clip_tower():
    return transformers.CLIPVisionConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, image_size=32, patch_size=8,
        projection_dim=64)


def llava_next():
    """Any-resolution tiles: the processor picks the grid for a 48x48
    image; the image tokens are as many as the model's own image features
    (base tile, tiles, and the newline row ends), counted once on the CPU."""
    grid = [[32, 32], [32, 64], [64, 32], [64, 64]]
    cfg = transformers.LlavaNextConfig(
        vision_config=_clip_tower(),
        text_config=transformers.LlamaConfig(**TEXT),
        image_token_index=IMAGE_TOKEN, image_grid_pinpoints=grid,
        vision_feature_layer=-1)
    proc = transformers.LlavaNextImageProcessor(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32},
        image_grid_pinpoints=grid)
    px = proc(images=[_image(48)], return_tensors="pt")
    model = transformers.LlavaNextForConditionalGeneration._from_config(cfg)
    with torch.no_grad():
        f = model.model.get_image_features(px["pixel_values"],
                                           px["image_sizes"])
    n = sum(x.shape[0] for x in getattr(f, "pooler_output", f))
    ids = torch.tensor([[1] + [IMAGE_TOKEN] * n + [5, 6, 7]])
    return transformers.LlavaNextForConditionalGeneration, cfg, \
        {"input_ids": ids, **px}


def idefics3(padded=False):
    """One image, not split: (32/8)^2 patches merged 2x2 by the pixel
    shuffle, 4 image tokens. padded: a batch of two prompts, the first with
    one image and the second with two, so the processor pads the first
    with an all-zero image, which the model drops by its pixels' values."""
    vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=2, image_size=32, patch_size=8)
    cfg = transformers.Idefics3Config(
        vision_config=vision, text_config=dict(TEXT, model_type="llama"),
        image_token_id=IMAGE_TOKEN, scale_factor=2)
    proc = transformers.Idefics3ImageProcessor(
        do_image_splitting=False, size={"longest_edge": 32},
        max_image_size={"longest_edge": 32})
    images = [[_image(48)], [_image(48), _image(40)]] if padded \
        else [[_image(48)]]
    px = proc(images=images, return_tensors="pt")
    n = (32 // 8) ** 2 // 2 ** 2
    if padded:
        ids = torch.tensor([[1] + [IMAGE_TOKEN] * n + [5] * (n + 3),
                            [1] + [IMAGE_TOKEN] * 2 * n + [5, 6, 7]])
    else:
        ids = torch.tensor([[1] + [IMAGE_TOKEN] * n + [5, 6, 7]])
    return transformers.Idefics3ForConditionalGeneration, cfg, \
        {"input_ids": ids, "pixel_values": px["pixel_values"],
         "pixel_attention_mask": px["pixel_attention_mask"]}


MODELS = {"qwen2_vl": qwen2_vl, "qwen2_5_vl": qwen2_5_vl,
          "paligemma": paligemma, "llava_next": llava_next,
          "idefics3": idefics3,
          "idefics3_padded": lambda: idefics3(padded=True)}


def _cast(inputs, dtype):
    return {k: v.to(dtype) if v.is_floating_point() else v
            for k, v in inputs.items()}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_multimodal_on_meta_against_pytorch(name, dtype):
    from torch.utils.flop_counter import FlopCounterMode
    cls, cfg, inputs = MODELS[name]()
    torch.manual_seed(0)
    model = cls._from_config(cfg, attn_implementation="eager",
                             dtype=dtype).eval()
    inputs = _cast(inputs, dtype)
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        model(**inputs)
    ref = sum(fc.get_flop_counts()["Global"].values()) // 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = nnscan.summary(model, inputs=inputs, file=False)
    said = [str(w.message) for w in caught]
    # on meta, Idefics3 too: it drops all-zero padding images by the
    # pixels' values, read from a second try that keeps the float inputs'
    # values (recorder.py's _record_reading_floats)
    assert s.device == "meta", said
    assert s.totals["params"] + s.totals.get("frozen", 0) == \
        sum(p.numel() for p in model.parameters())
    assert hf_zoo.matmul_macs(s) == ref
    assert s.uncounted_aten == {}


def test_whisper_tokens_are_the_encoder_positions():
    """Whisper's log-mel input_features [1, 80, 3000] (30 s through its own
    feature extractor): the tokens are the 1,500 positions its encoder
    attends over (the frames after the stride-2 convolution), not the 80
    mel bins; FLOPs per token divide by them. Params and matmul MACs
    against PyTorch as above."""
    from torch.utils.flop_counter import FlopCounterMode
    cfg = transformers.WhisperConfig(
        num_mel_bins=80, max_source_positions=1500, d_model=64,
        encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=128,
        decoder_layers=2, decoder_attention_heads=4, decoder_ffn_dim=128,
        vocab_size=256, max_target_positions=32, num_labels=3)
    fe = transformers.WhisperFeatureExtractor(feature_size=80)
    feats = fe([0.01 * torch.randn(16000 * 30).numpy()], sampling_rate=16000,
               return_tensors="pt")["input_features"]
    assert tuple(feats.shape) == (1, 80, 3000)
    model = transformers.WhisperForAudioClassification._from_config(
        cfg, attn_implementation="eager").eval()
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        model(input_features=feats)
    ref = sum(fc.get_flop_counts()["Global"].values()) // 2
    s = nnscan.summary(model, inputs={"input_features": feats}, file=False)
    assert s.device == "meta"
    t = s.totals
    assert t["tokens"] == 3000 // 2
    assert t["flops_per_token"] == t["flops"] / 1500
    # the sinusoidal positions are a frozen parameter
    assert t["params"] == sum(p.numel() for p in model.parameters()
                              if p.requires_grad)
    assert t["frozen"] == 1500 * 64
    assert hf_zoo.matmul_macs(s) == ref
    assert s.uncounted_aten == {}
