"""transformers' decoder layers replayed with their KV cache
(module_replay.py, layer_cache.py): the layers of five-layer models of
the zoo, each report against every layer run (NNSCAN_MODULE_REPLAY=0)."""
import pytest
import torch

transformers = pytest.importorskip("transformers")

import hf_zoo  # noqa: E402
from conftest import calls_counted, layers_replayed, replay_reports, \
    zoo_config  # noqa: E402
from nnscan import layer_cache, layer_groups, module_replay, \
    replay  # noqa: E402

# each summary records (not built from a kept recording: summary_memo.py)
pytestmark = pytest.mark.usefixtures("no_summary_memo")

LAYERS = 5
_FIELDS = ("num_hidden_layers", "n_layer", "encoder_layers",
           "decoder_layers", "num_layers", "num_decoder_layers", "n_layers")


@pytest.fixture(autouse=True)
def _every_layer_pays(monkeypatch):
    """No group dropped for making too few nodes for replays to pay (a
    tiny model's layers may), the zoo's models LAYERS deep, and no template
    of an earlier test's (the attention's, which decide whether a
    summary's second layer makes its masks again: replay._KEPT is
    bounded, so a long run may hold none)."""
    monkeypatch.setattr(module_replay, "_MIN_GROUP_NODES", 0)
    for k in _FIELDS:
        if k in hf_zoo.TINY:
            monkeypatch.setitem(hf_zoo.TINY, k, LAYERS)
    module_replay.forget()
    replay.forget()
    # these tests count the layers' replays: the model's own call, which
    # replays whole from a fourth summary where it returns no cache
    # (test_model_replay_hf.py), is no candidate here
    monkeypatch.setattr(layer_groups, "ROOT", False)


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


@pytest.mark.parametrize("family", [
    "llama", "qwen3", "olmo2", "phi3", "bloom", "codegen",
    "mpt", "gptj", "falcon", "mixtral", "qwen3_moe", "mamba", "falcon_h1"])
def test_decoder_layers_replay_with_their_cache(family):
    # the attention's layer_idx only indexes the cache (a state-space
    # mixer's, Mamba's and FalconH1's, its slot's states): from the third
    # layer on the layers are replayed (the first two give the template),
    # and the cache's slots made again (the model's output holds them:
    # past_key_values). BLOOM's and CodeGen's layers return (hidden
    # states, attention weights): both made again by each replay. The
    # values with real contents a layer makes (the attention's math path
    # makes its causal mask, MPT slices its ALiBi bias, GPT-J gathers its
    # rotary table by the position ids, the mixtures route) are fixed by
    # the key and the nodes: a replay hands the template's to the masks.
    # The position ids and the masks the layers are given key by their
    # contents (a tiny model's are small), so the template holds for the
    # process: a second summary replays every layer
    model, inputs = hf_zoo.build(family)
    replayed, s = _replayed_as_run(model, inputs)
    assert replayed[0] >= 1 and replayed[1] == LAYERS
    # against PyTorch's own count of the products, as test_hf_zoo
    ref = hf_zoo.reference(model, inputs)[1]
    assert abs(hf_zoo.matmul_macs(s) - ref) <= 0.01 * ref
    assert s.uncounted_aten == {}


def _replayed_per_summary(model, inputs, summaries):
    """(the layers each of `summaries` summaries replayed, the last
    summary); every report of each the same as with every layer run."""
    off, _ = replay_reports(model, inputs, False)
    got = []
    for _ in range(summaries):
        with layers_replayed() as count:
            on, s = replay_reports(model, inputs, True)
        assert on == off
        got.append(count[0])
    return got, s


@pytest.mark.parametrize("family", ["gemma2", "gpt_oss", "gpt_neo"])
def test_layers_alike_to_none_replay_from_the_fourth_summary(family,
                                                            monkeypatch):
    # two layers, one of sliding attention and one of full (GPT-Neo's
    # local and global, its slot in `layer_id`): each alone in its group.
    # The first summary notes nothing for them (the architecture's first
    # recording), the second notes each template for the process, the
    # third verifies it, the fourth replays both; every report as every
    # layer run
    for k in _FIELDS:
        if k in hf_zoo.TINY:
            monkeypatch.setitem(hf_zoo.TINY, k, 2)
    model, inputs = hf_zoo.build(family)
    assert _replayed_per_summary(model, inputs, 4)[0] == [0, 0, 0, 2]


def test_deepseek_v3_dense_and_moe_layers_replay_whole(monkeypatch):
    # DeepSeek-V3's tiny config: a dense layer, then a MoE layer, each
    # alike to none; their attentions are a pair, which replays from the
    # second summary inside the layers. The layers note their templates
    # in the second summary and verify them in the third (a first pays
    # nothing for them); the fourth replays both whole, the routing and
    # the experts included. Every report as every layer run
    for k in _FIELDS:
        if k in hf_zoo.TINY:
            monkeypatch.setitem(hf_zoo.TINY, k, 2)
    model, inputs = hf_zoo.build("deepseek_v3")
    off, _ = replay_reports(model, inputs, False)
    got = []
    for _ in range(4):
        with calls_counted(module_replay.Layers, "_seen") as noted, \
                layers_replayed() as count:
            on, _ = replay_reports(model, inputs, True)
        assert on == off
        got.append((count[0], noted[0]))
    assert got == [(0, 2), (2, 2), (2, 2), (2, 0)]


def test_albert_replays_its_one_layer_called_again():
    # ALBERT's one layer group is called for each of its LAYERS layers:
    # learnt in the first summary; in the second its first call and its
    # second are noted, its third verifies the second's template and the
    # rest replay; the third summary verifies the first call's; the
    # fourth replays every call. Every report as every call run, and the
    # products as PyTorch counts them
    model, inputs = hf_zoo.build("albert")
    got, s = _replayed_per_summary(model, inputs, 4)
    assert got == [0, LAYERS - 3, LAYERS - 1, LAYERS]
    ref = hf_zoo.reference(model, inputs)[1]
    assert abs(hf_zoo.matmul_macs(s) - ref) <= 0.01 * ref


def test_t5_blocks_hand_their_position_bias_on():
    # T5's attention asks the cache for its slot's length by layer_idx (a
    # read the key holds), and its blocks return the position bias they
    # were given: a replay hands on that very tensor. In the encoder and
    # in the decoder (its EncoderDecoderCache keyed: both caches' slots
    # and the layer's is_updated flag) the first block makes the bias
    # (another subtree), the next two give the template; the bias and the
    # decoder's mask key by their contents, so a second summary replays
    # every block but the first of each stack
    model, inputs = hf_zoo.build("t5")
    assert layer_cache.index_only(type(model.encoder.block[1].layer[0]
                                       .SelfAttention))
    replayed, s = _replayed_as_run(model, inputs)
    assert replayed == (2 * (LAYERS - 3), 2 * (LAYERS - 1))
    ref = hf_zoo.reference(model, inputs)[1]
    assert abs(hf_zoo.matmul_macs(s) - ref) <= 0.01 * ref


@pytest.mark.parametrize("family", ["bart", "marian", "whisper"])
def test_encoder_decoder_layers_replay_with_both_caches(family):
    # the decoder layers' cross-attention fills its slot of the cross
    # cache and sets the layer's is_updated flag: a replay makes both
    # again, as the self-attention's slot (the output's past_key_values
    # holds them all); the encoder's layers replay as before. From the
    # second summary on, a template no argument with a real value keys
    # holds for the process (the layers' config compared by its values),
    # and so does one keyed by a small real value's contents (BART's and
    # Marian's decoder layers are given their causal mask; Whisper's
    # attention is causal by its flag): every layer replays
    model, inputs = hf_zoo.build(family)
    replayed, s = _replayed_as_run(model, inputs)
    assert replayed == (2 * (LAYERS - 2), 2 * LAYERS)
    ref = hf_zoo.reference(model, inputs)[1]
    assert abs(hf_zoo.matmul_macs(s) - ref) <= 0.01 * ref


@pytest.mark.parametrize("family", ["t5", "bart"])
def test_an_encoder_decoder_decode_step_as_every_layer_run(family):
    # a decode step given a filled cache: every cross slot holds the
    # encoder's keys and its flag is set. The slots' tensors have no
    # name in the recording until a layer reads them (a summary's
    # arguments are its tensors; the cache is copied, not named), so no
    # key holds a decoder layer's call and they run: every report as
    # with layer replay off, the caller's cache untouched
    model, inputs = hf_zoo.build(family)
    with torch.no_grad():
        cache = model(**inputs, use_cache=True).past_key_values
    assert type(cache).__name__ == "EncoderDecoderCache"

    def state(c):
        return dict(c.is_updated), [
            (x.keys, x.values, y.keys, y.values)
            for x, y in zip(c.self_attention_cache.layers,
                            c.cross_attention_cache.layers)]
    was = state(cache)
    step = dict(inputs, decoder_input_ids=inputs["decoder_input_ids"][:, -1:],
                past_key_values=cache)
    on = replay_reports(model, step, True)[0]
    assert on == replay_reports(model, step, False)[0]
    now = state(cache)
    assert now[0] == was[0] and all(
        x is y for a, b in zip(now[1], was[1]) for x, y in zip(a, b))


def test_an_encoder_with_a_padding_mask_replays_by_the_mask_itself():
    # the mask (a real value: the library counts what it masks) keys the
    # layers' calls by its contents: a second summary replays every
    # layer, and a mask of other contents is another key, whose layers
    # count what it masks (each report as with every layer run)
    model, inputs = hf_zoo.build("bert")
    seq = inputs["input_ids"].shape[1]
    masked = []
    for pad in (5, 3):
        inputs["attention_mask"] = torch.tensor([[1] * (seq - pad) +
                                                 [0] * pad])
        replayed, s = _replayed_as_run(model, inputs)
        assert replayed == (LAYERS - 2, LAYERS)
        masked.append(s.totals["macs"] - s.totals["macs_unmasked"])
    assert masked[0] > masked[1] > 0  # each mask's contents read


def test_gpt2_layers_index_the_cache_and_replay():
    # GPT-2's attention reads layer_idx beyond the cache's update, to
    # index the cache (its cross-attention's slot and is_updated flag):
    # the layers replay all the same
    model, inputs = hf_zoo.build("gpt2")
    assert layer_cache.index_only(type(model.transformer.h[0].attn))
    replayed, s = _replayed_as_run(model, inputs)
    assert replayed[0] >= 1 and replayed[1] == LAYERS
    ref = hf_zoo.reference(model, inputs)[1]
    assert abs(hf_zoo.matmul_macs(s) - ref) <= 0.01 * ref


def test_layers_scaled_by_their_index_run(monkeypatch):
    # GPT-2 scaling its attention by 1 / (layer_idx + 1): an attribute
    # made from the index, different in each layer, so each layer runs
    zoo_config(monkeypatch, scale_attn_by_inverse_layer_idx=True)
    model, inputs = hf_zoo.build("gpt2")
    assert model.transformer.h[0].attn.scaling != \
        model.transformer.h[1].attn.scaling
    replayed, _ = _replayed_as_run(model, inputs)
    assert replayed == (0, 0)


@pytest.mark.parametrize("family, layers", [("mistral", 5), ("gemma2", 7)])
def test_sliding_window_slots_replay(family, layers, monkeypatch):
    # a sliding window's slot moves its window size, a CPU scalar, to
    # meta as it starts (a value with a real value; the copy is the
    # recorder's alias, not a call on the tape: tape.record_deferred):
    # made again by each replay. The sliding window's mask is a real
    # value: it keys the calls within one summary. Gemma-2's layers
    # alternate sliding and full attention (two groups, each its own
    # first call) and each holds its own partial(F.gelu,
    # approximate="tanh")
    for k in _FIELDS:
        if k in hf_zoo.TINY:
            monkeypatch.setitem(hf_zoo.TINY, k, layers)
    model, inputs = hf_zoo.build(family)
    slot = type(transformers.DynamicCache(config=model.config).layers[0])
    assert slot.__name__ == "DynamicSlidingWindowLayer"
    replayed, s = _replayed_as_run(model, inputs)
    assert min(replayed) >= 1
    ref = hf_zoo.reference(model, inputs)[1]
    assert abs(hf_zoo.matmul_macs(s) - ref) <= 0.01 * ref
    assert s.uncounted_aten == {}


def test_a_sliding_slot_is_keyed_by_its_window():
    cfg = hf_zoo.config("mistral")
    cache = transformers.DynamicCache(config=cfg)
    size = cache.layers[0]._sliding_window_tensor
    key, held = layer_cache.part(cache, 0, {})
    assert ("sliding_window", cfg.sliding_window) in key and key[-1] is False
    assert held == ()
    assert layer_cache.part(cache, 0, {id(size): "const4"})[0][-1] is True
    other = transformers.DynamicCache(config=cfg)
    other.layers[0].sliding_window += 1
    assert layer_cache.part(other, 0, {})[0] != key
    k = torch.empty(1, 2, 4, 16, device="meta")
    cache.update(k, k.clone(), 0)  # a decode step's: keyed by its tokens
    slot = cache.layers[0]
    assert slot._sliding_window_tensor.is_meta  # moved as it started
    with pytest.raises(LookupError):  # keys and values with no name yet
        layer_cache.part(cache, 0, {})
    filled, held = layer_cache.part(
        cache, 0, {id(slot.keys): "v1", id(slot.values): "v2"})
    assert ("cumulative_length", 4) in filled and filled[-1] == "filled"
    assert held == (slot.keys, slot.values)


def test_a_filled_slot_holds_its_tensors_as_arguments():
    # decoding: the slot holds keys and values, which the call extends:
    # keyed as the call's arguments, once they have names
    cfg = hf_zoo.config("llama")
    cache = transformers.DynamicCache(config=cfg)
    k = torch.empty(1, 2, 4, 16, device="meta")
    empty, held = layer_cache.part(cache, 0, {})
    assert empty[0] == "cache" and held == ()
    cache.update(k, k.clone(), 0)
    slot = cache.layers[0]
    with pytest.raises(LookupError):  # tensors with no name yet
        layer_cache.part(cache, 0, {})
    names = {id(slot.keys): "v1", id(slot.values): "v2"}
    filled, held = layer_cache.part(cache, 0, names)
    assert filled != empty and held == (slot.keys, slot.values)
    assert layer_cache.part(cache, 1, {})[0] == empty
    with pytest.raises(LookupError):
        layer_cache.part(cache, len(cache.layers), {})


def _decode(family):
    """profile_generate's reports of four new tokens (three decode steps)
    and the layers replayed, with replays on and off."""
    import json
    import nnscan
    model, inputs = hf_zoo.build(family)
    got = []
    for on in (True, False):
        with layers_replayed() as count:
            with pytest.MonkeyPatch.context() as mp:
                if not on:
                    mp.setenv("NNSCAN_MODULE_REPLAY", "0")
                p = nnscan.profile_generate(model, inputs=inputs,
                                            max_new_tokens=4)
        got.append((json.dumps(p.json, sort_keys=True), p.to_text(),
                    [s.to_json(version=2) for _, s in sorted(
                        p.decode.items())], count[0]))
    return got


@pytest.mark.parametrize("family", ["llama", "gpt2"])
def test_decode_steps_replay_their_layers(family):
    # every decode step's layers after the first two are replayed with
    # their filled slots, each report as with every layer run
    on, off = _decode(family)
    assert on[:3] == off[:3]
    assert on[3] >= 3 * (LAYERS - 2) and off[3] == 0


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


def test_a_call_setting_the_cache_itself_runs(monkeypatch):
    # an update that notes something on the cache object (not a slot):
    # no replay makes that again, so every call runs
    real = transformers.DynamicCache.update

    def update(self, k, v, layer_idx, *a, **kw):
        vars(self).setdefault("seen", []).append(layer_idx)
        return real(self, k, v, layer_idx, *a, **kw)
    monkeypatch.setattr(transformers.DynamicCache, "update", update)
    model, inputs = hf_zoo.build("llama")
    replayed, _ = _replayed_as_run(model, inputs)
    assert replayed == (0, 0)


def test_an_offloading_cache_is_not_keyed():
    cache = transformers.DynamicCache(config=hf_zoo.config("llama"))
    cache.offloading = True
    with pytest.raises(LookupError):
        layer_cache.part(cache, 0, {})
