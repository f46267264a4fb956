"""A transformers model replayed whole (module_replay.py, layer_groups.
_root): a model whose call returns an output object of tensors (an
encoder's BaseModelOutput, a classifier's logits, CLIP's towers' inside
its own) and of the KV cache it made (a decoder's, an encoder-decoder's
past_key_values) replays whole from a process's fourth summary, its
output object made again, the cache's slots holding tensors named as
the recorded call's; every report is the one with every layer run
(NNSCAN_MODULE_REPLAY=0), the products are those PyTorch counts, and a
generation's decode steps read the cache a replayed prefill made as
they read the one it recorded."""
import pytest
import torch

transformers = pytest.importorskip("transformers")

import hf_zoo  # noqa: E402
from conftest import replay_reports  # noqa: E402
import nnscan  # noqa: E402
from nnscan import module_replay, replay  # noqa: E402

# each summary records (not built from a kept recording: summary_memo.py)
pytestmark = pytest.mark.usefixtures("no_summary_memo")


@pytest.fixture(autouse=True)
def _fresh_process():
    """No template of an earlier test's: each test is a process's first
    summaries of its model."""
    module_replay.forget()
    replay.forget()


def _root_replays(model, inputs, summaries, monkeypatch):
    """(per summary, whether the model's own call replayed, and its
    output where it did; the last summary); every report of each the
    same as with every layer run."""
    off, _ = replay_reports(model, inputs, False)
    real = module_replay.Layers._replay
    got = []

    def spy(self, path, *a):
        out = real(self, path, *a)
        if path == "" and out is not None:
            got[-1] = out
        return out
    monkeypatch.setattr(module_replay.Layers, "_replay", spy)
    for _ in range(summaries):
        got.append(None)
        on, s = replay_reports(model, inputs, True)
        assert on == off
    return got, s


def _form(x):
    """An output as structure, independent of nnscan: its class, a
    tensor's shape and dtype, a dict's, list's or object's items so,
    any other value itself."""
    if isinstance(x, torch.Tensor):
        return ("tensor", tuple(x.shape), x.dtype)
    if isinstance(x, dict):
        return (type(x), [(k, _form(v)) for k, v in x.items()])
    if isinstance(x, list):
        return [_form(v) for v in x]
    if hasattr(x, "__dict__"):
        return (type(x), [(k, _form(v)) for k, v in vars(x).items()])
    return x


@pytest.mark.parametrize("family,first", [
    ("bert", 4), ("albert", 4), ("beit", 4), ("wav2vec2", 4), ("clip", 4),
    ("llama", 4), ("gpt2", 4), ("bart", 4),
    # its cache's slots are sliding windows, each holding its size as a
    # tensor with a real value: handed to the masks by name
    ("mistral", 4),
    # the two layers alike to none below it (sliding and full) run in
    # the second and third summaries (noted, then verified) and would
    # replay from the fourth: the values they make reach the masks
    # another way, compared by name
    ("gemma2", 4),
    # its stacks' first blocks, alike to none, run in the second and
    # third summaries too, so the model's templates of both are the same
    # (when they replayed in the third, a value they hand on made its
    # template differ, and the model replayed from the fifth)
    ("t5", 4)])
def test_a_model_replays_whole(family, first, monkeypatch):
    model, inputs = hf_zoo.build(family)
    with torch.no_grad():
        eager = model(**hf_zoo.to_meta(inputs))
    got, s = _root_replays(model, inputs, first + 1, monkeypatch)
    assert [out is not None for out in got] == \
        [False] * (first - 1) + [True] * 2
    # the output object made again: its class, its keys in order, each
    # tensor of the shape and dtype the model's own forward gives, a
    # cache of the same slots holding the same sizes; a new cache each
    out = got[-1]
    assert _form(out) == _form(eager)
    cache = getattr(out, "past_key_values", None)
    if cache is not None:
        assert cache is not getattr(got[-2], "past_key_values")
    ref = hf_zoo.reference(model, inputs)
    assert s.totals["params"] == ref[0]
    assert abs(hf_zoo.matmul_macs(s) - ref[1]) <= 0.01 * ref[1]


def _generation(model, inputs, on, monkeypatch):
    """profile_generate's report (three new tokens, each step's JSON)
    with layers replayed (on) or every layer run."""
    monkeypatch.setenv("NNSCAN_MODULE_REPLAY", "1" if on else "0")
    p = nnscan.profile_generate(model, inputs=inputs, max_new_tokens=3)
    monkeypatch.delenv("NNSCAN_MODULE_REPLAY")
    return p.to_text(numbers="raw"), p.json, \
        {k: s.to_json(version=2) for k, s in p.decode.items()}


def test_decode_steps_read_a_replayed_prefill_s_cache(monkeypatch):
    # a generation's prefill (its own key: it keeps one token's logits)
    # is noted by the second generation, verified by the third and
    # replays whole from the fourth, its decode steps (a cache argument:
    # they run, their layers replaying) reading the cache it made again:
    # every report as with every layer run
    model, inputs = hf_zoo.build("llama")
    off = _generation(model, inputs, False, monkeypatch)
    real = module_replay.Layers._replay
    prefills = []

    def spy(self, path, *a):
        out = real(self, path, *a)
        if path == "" and out is not None:
            prefills[-1] += 1
        return out
    monkeypatch.setattr(module_replay.Layers, "_replay", spy)
    for _ in range(5):
        prefills.append(0)
        assert _generation(model, inputs, True, monkeypatch) == off
    assert prefills == [0, 0, 0, 1, 1]
