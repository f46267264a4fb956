"""transformers' decoder layers replayed with their KV cache
(module_replay.py, layer_cache.py): the layers of five-layer models of
the zoo, each report against every layer run (NNSCAN_MODULE_REPLAY=0)."""
import pytest
import torch

transformers = pytest.importorskip("transformers")

import hf_zoo  # noqa: E402
from conftest import layers_replayed, replay_reports  # noqa: E402
from nnscan import layer_cache, module_replay, replay  # noqa: E402

LAYERS = 5
_FIELDS = ("num_hidden_layers", "n_layer", "encoder_layers",
           "decoder_layers", "num_layers", "num_decoder_layers", "n_layers")


@pytest.fixture(autouse=True)
def _every_layer_pays(monkeypatch):
    """No group dropped for recording quicker than replays pay (a tiny
    model's layers do), the zoo's models LAYERS deep, and no template
    of an earlier test's (the attention's, which decide whether a
    summary's second layer makes its masks again: replay._KEPT is
    bounded, so a long run may hold none)."""
    monkeypatch.setattr(module_replay, "_MIN_GROUP_S", 0.0)
    for k in _FIELDS:
        if k in hf_zoo.TINY:
            monkeypatch.setitem(hf_zoo.TINY, k, LAYERS)
    module_replay.forget()
    replay.forget()


def _replayed_as_run(model, inputs):
    """(layers replayed in a first summary and a second, the summary);
    every report of each the same as with every layer run."""
    with layers_replayed() as count:
        first, s = replay_reports(model, inputs, True)
        n = count[0]
        second, _ = replay_reports(model, inputs, True)
    off, _ = replay_reports(model, inputs, False)
    assert first == off
    assert second == off
    return (n, count[0] - n), s


@pytest.mark.parametrize("family", ["llama", "qwen3", "olmo2", "phi3"])
def test_decoder_layers_replay_with_their_cache(family):
    # the attention's layer_idx only indexes the cache: from the third
    # layer on the layers are replayed (the first one or two make what
    # their neighbours read: masks, the attention's own templates), and
    # the cache's slots made again (the model's output holds them:
    # past_key_values)
    model, inputs = hf_zoo.build(family)
    replayed, s = _replayed_as_run(model, inputs)
    assert replayed[0] >= 1 and replayed[1] == LAYERS - 3
    # against PyTorch's own count of the products, as test_hf_zoo
    ref = hf_zoo.reference(model, inputs)[1]
    assert abs(hf_zoo.matmul_macs(s) - ref) <= 0.01 * ref
    assert s.uncounted_aten == {}


def test_an_encoder_with_a_padding_mask_replays_by_the_mask_itself():
    # the mask (a real value: the library counts what it masks) keys the
    # layers' calls by the tensor itself, within one summary
    model, inputs = hf_zoo.build("bert")
    seq = inputs["input_ids"].shape[1]
    inputs["attention_mask"] = torch.tensor([[1] * (seq - 5) + [0] * 5])
    replayed, s = _replayed_as_run(model, inputs)
    assert min(replayed) > 0
    assert s.totals["macs"] != s.totals["macs_unmasked"]  # its contents read


def test_a_layer_reading_its_index_otherwise_runs():
    # GPT-2's attention reads layer_idx beyond the cache's update (its
    # cross-attention's is_updated): every layer runs, and reports as run
    model, inputs = hf_zoo.build("gpt2")
    assert not layer_cache.index_only(type(model.transformer.h[0].attn))
    replayed, _ = _replayed_as_run(model, inputs)
    assert replayed == (0, 0)


def test_a_filled_slot_keeps_the_call_running():
    # decoding: the slot holds keys already, which a replay cannot extend
    cfg = hf_zoo.config("llama")
    cache = transformers.DynamicCache(config=cfg)
    k = torch.empty(1, 2, 4, 16, device="meta")
    assert layer_cache.part(cache, 0)[0] == "cache"
    cache.update(k, k, 0)
    with pytest.raises(LookupError):
        layer_cache.part(cache, 0)
    assert layer_cache.part(cache, 1)[0] == "cache"
    with pytest.raises(LookupError):
        layer_cache.part(cache, len(cache.layers))


def test_a_call_writing_another_slot_runs(monkeypatch):
    # what a replay makes again is the layer's own slot: a cache whose
    # update also writes a neighbour's keeps every call running
    real = transformers.DynamicCache.update

    def update(self, k, v, layer_idx, *a, **kw):
        out = real(self, k, v, layer_idx, *a, **kw)
        other = self.layers[(layer_idx + 1) % len(self.layers)]
        other.seen_by = layer_idx  # a plain value, in another slot
        return out
    monkeypatch.setattr(transformers.DynamicCache, "update", update)
    model, inputs = hf_zoo.build("llama")
    replayed, _ = _replayed_as_run(model, inputs)
    assert replayed == (0, 0)


def test_an_offloading_cache_is_not_keyed():
    cache = transformers.DynamicCache(config=hf_zoo.config("llama"))
    cache.offloading = True
    with pytest.raises(LookupError):
        layer_cache.part(cache, 0)
