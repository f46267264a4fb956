"""Repeated attention calls replayed (nnscan/replay.py): a stack of layers
calling F.scaled_dot_product_attention with the same shapes records the
math path for the first two calls and replays it for the rest. Every
report is the same as with every call run (NNSCAN_REPLAY=0), and the
counts are those by hand: the projections, and the attention's two
products over the pairs its mask allows. A template that reads nothing
but the call's arguments is kept for the process: a later summary
replays every call of its key. PyTorch 2.x (SDPA), so in the suite that
runs there.
"""
import os

import pytest
import torch
from torch import nn
import torch.nn.functional as F

import nnscan
import rules_reference
from conftest import calls_counted, in_threads
from nnscan import layer_groups, replay

# each summary records (not built from a kept recording: summary_memo.py)
pytestmark = pytest.mark.usefixtures("no_summary_memo")

B, H, L, E = 2, 4, 16, 8
D = H * E


@pytest.fixture(autouse=True)
def _attention_calls(monkeypatch):
    """These tests count the attention's calls replayed: the model's own
    call is no candidate here (it returns a tensor, and would replay
    whole from a fourth summary: tests/test_model_replay.py)."""
    monkeypatch.setattr(layer_groups, "ROOT", False)


class Layer(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.kind = kind

    def forward(self, x, mask):
        q, k, v = self.qkv(x).view(B, L, 3, H, E).permute(2, 0, 3, 1, 4)
        if self.kind == "causal":
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        elif self.kind == "self":  # one tensor as query, key and value
            a = F.scaled_dot_product_attention(q, q, q)
        elif self.kind == "none":
            a = F.scaled_dot_product_attention(q, k, v)
        else:
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return x + a.transpose(1, 2).reshape(B, L, D)


class Stack(nn.Module):
    def __init__(self, kinds, cut_after=None):
        super().__init__()
        self.layers = nn.ModuleList(Layer(k) for k in kinds)
        self.cut_after = cut_after

    def forward(self, x, lengths):
        pos = torch.arange(L)
        # a padding mask from real values (tracked on meta: shadow.py)
        keep = pos[None, :] < lengths[:, None]                  # [B, S]
        mask = keep[:, None, None, :] & (pos[None, :, None] >= 0)
        for k, layer in enumerate(self.layers):
            x = layer(x, mask)
            if k == self.cut_after:
                mask &= pos < 3  # in place: the later layers' mask
        return x


def _counting():
    """Replays.replay counted while inside: a list whose one item is the
    number of calls replayed so far."""
    return calls_counted(replay.Replays, "replay")


def _reports(model, inputs, replayed):
    """The summary's JSON v2, text and CSV with replay on and off, and how
    many calls were replayed."""
    out = {}
    was = os.environ.get("NNSCAN_REPLAY")
    replay.forget()  # no template from an earlier test's summaries
    try:
        with _counting() as count:
            for env in ("0", "1"):
                os.environ["NNSCAN_REPLAY"] = env
                s = nnscan.summary(model, inputs=inputs, file=False)
                out[env] = (s.to_json(version=2), s.to_text(), s.to_csv())
    finally:
        if was is None:
            os.environ.pop("NNSCAN_REPLAY", None)
        else:
            os.environ["NNSCAN_REPLAY"] = was
    assert out["0"] == out["1"]
    assert count[0] == replayed
    return s


@pytest.mark.parametrize("kind", ["causal", "mask", "none", "self"])
def test_replayed_layers_report_as_run(kind):
    n = 6
    torch.manual_seed(0)
    model = Stack([kind] * n)
    x = torch.randn(B, L, D)
    lengths = torch.tensor([L, 5])
    # the first two calls run (the second checks the first), the rest
    # replay
    s = _reports(model, (x, lengths), replayed=n - 2)
    proj = n * B * L * D * 3 * D
    attn = n * 2 * B * H * L * L * E  # scores and output, every pair
    assert s.totals["macs"] == proj + attn
    pairs = {"causal": B * L * (L + 1) // 2, "mask": L * (L + 5),
             "none": B * L * L, "self": B * L * L}[kind]
    assert s.totals["macs_unmasked"] == proj + n * 2 * H * pairs * E


def test_a_mask_written_in_place_is_another_mask():
    """The mask the layers share, cut in place after the third: the later
    layers count its new pairs, by hand (keys 0 to 2 of every row), not
    the replayed layers' old ones."""
    n = 6
    model = Stack(["mask"] * n, cut_after=2)
    s = _reports(model, (torch.randn(B, L, D), torch.tensor([L, 5])),
                 replayed=2)  # the 3rd (first two ran), and the 6th
    proj = n * B * L * D * 3 * D
    before, after = L * (L + 5), B * L * 3
    assert s.totals["macs_unmasked"] == \
        proj + 2 * H * E * (3 * before + 3 * after)


def test_calls_that_differ_are_run():
    """Layers alternating two kinds, and a call whose query is its key
    beside calls whose are not: no template is shared between them."""
    kinds = ["causal", "none"] * 3 + ["self", "none", "self", "self"]
    model = Stack(kinds)
    x = torch.randn(B, L, D)
    # causal: calls 1, 3, 5 (the 5th replayed); none: 2, 4, 6, 8 (6th, 8th
    # replayed); self: 7, 9, 10 (10th replayed)
    _reports(model, (x, torch.tensor([L, L])), replayed=4)


def test_a_decoder_with_a_padding_mask(monkeypatch):
    """A LLaMA-style decoder of six layers (transformers' SDPA attention,
    its causal mask with padding from real values): the same reports.
    Its layers run (module_replay.py would replay the later ones whole,
    their attention calls with them: test_layer_replay_hf.py)."""
    monkeypatch.setenv("NNSCAN_MODULE_REPLAY", "0")
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(hidden_size=64, intermediate_size=128,
                      num_hidden_layers=6, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=100)
    cfg._attn_implementation = "sdpa"
    model = LlamaForCausalLM(cfg).eval()
    ids = torch.randint(0, 100, (2, 24))
    am = torch.ones(2, 24, dtype=torch.long)
    am[1, :7] = 0
    s = _reports(model, {"input_ids": ids, "attention_mask": am},
                 replayed=4)
    assert s.totals["macs_unmasked"] < s.totals["macs"]


def _summaries(model, inputs, times):
    """`times` summaries in turn, a fresh process's first included
    (replay.forget()): _summary's of each."""
    replay.forget()
    return [_summary(model, inputs) for _ in range(times)]


@pytest.mark.parametrize("kind", ["causal", "none", "self"])
def test_a_later_summary_replays_every_call(kind):
    """Two layers: the first summary runs both calls (and keeps their
    template for the process), the next ones replay both; every report is
    the first's, the causal mask's pairs by hand (is_causal's mask is made
    inside the call: its values come from what computed them)."""
    n = 2
    torch.manual_seed(0)
    model = Stack([kind] * n)
    x = torch.randn(B, L, D)
    runs = _summaries(model, (x, torch.tensor([L, L])), 3)
    assert [r[1] for r in runs] == [0, n, n]
    assert runs[1][0] == runs[2][0] == runs[0][0]
    pairs = {"causal": B * L * (L + 1) // 2, "none": B * L * L,
             "self": B * L * L}[kind]
    proj = n * B * L * D * 3 * D
    assert runs[2][2].totals["macs_unmasked"] == proj + n * 2 * H * pairs * E


def test_a_mask_argument_keeps_its_template_to_its_recording():
    """A tracked mask argument keys the call by its value's name, which
    is the recording's own: no later summary replays it (two layers: none
    replayed at all), and the counts stay the mask's, by hand."""
    model = Stack(["mask"] * 2)
    runs = _summaries(model, (torch.randn(B, L, D), torch.tensor([L, 5])),
                      3)
    assert [r[1] for r in runs] == [0, 0, 0]
    proj = 2 * B * L * D * 3 * D
    assert runs[2][2].totals["macs_unmasked"] == \
        proj + 2 * 2 * H * L * (L + 5) * E


def _summary(model, inputs):
    """One summary, the templates kept so far kept: its JSON v2, text and
    CSV, how many calls it replayed, and the summary."""
    with _counting() as count:
        s = nnscan.summary(model, inputs=inputs, file=False)
    return (s.to_json(version=2), s.to_text(), s.to_csv()), count[0], s


def test_two_threads_share_the_kept_templates():
    """Two threads summarizing at once, replaying the templates the
    process keeps (each recording gives the kept mask's pending ops to
    its own shadows): every report is the one summary made alone."""
    model = Stack(["causal"] * 2)
    inputs = (torch.randn(B, L, D), torch.tensor([L, L]))
    replay.forget()
    alone = _summary(model, inputs)[0]
    got = []

    def work(_):
        for _ in range(4):
            s = nnscan.summary(model, inputs=inputs, file=False)
            got.append((s.to_json(version=2), s.to_text(), s.to_csv()))
    errors = in_threads(work)
    assert errors == [] and len(got) == 8
    assert all(r == alone for r in got)


def test_calls_that_keep_differing_are_given_up(monkeypatch):
    """A key whose calls never add the same (here every template made
    differs from the one before) is compared _TRIES times across
    summaries, then given up on: later summaries run its calls and make
    no template of them; the reports stay those of every call run."""
    model = Stack(["none"] * 2)
    inputs = (torch.randn(B, L, D), torch.tensor([L, L]))
    real = replay.Replays._template
    made = [0]

    def differing(self, *a):
        made[0] += 1
        got = real(self, *a)
        return None if got is None else \
            ((made[0],) + got[0][1:], got[1])  # a new count each time
    monkeypatch.setattr(replay.Replays, "_template", differing)
    runs = _summaries(model, inputs, 2 + replay._TRIES)
    assert [r[1] for r in runs] == [0] * len(runs)
    assert all(r[0] == runs[0][0] for r in runs)
    before = made[0]
    _summary(model, inputs)
    assert made[0] == before  # given up: no template made any more


@pytest.mark.parametrize("kind", ["causal", "mask"])
def test_the_numbered_tape_replays_too(kind, request):
    """On the tape (issue 45) a call's records hold the counters it was
    made at: a template holds them relative to its start, so the tape
    replays as the recorder's rules did. Every report is the one of every
    call run, and the rules' (frozen: rules_reference)."""
    n = 6
    torch.manual_seed(0)
    model = Stack([kind] * n)
    inputs = (torch.randn(B, L, D), torch.tensor([L, 5]))
    tape = _reports(model, inputs, replayed=n - 2)
    rules_reference.check(request, [tape.to_json(version=2)], hf=True)
    assert tape.totals["macs"] == n * B * L * D * 3 * D + \
        n * 2 * B * H * L * L * E
    later = _summary(model, inputs)
    assert later[1] == (n if kind == "causal" else n - 2)
    assert later[0] == (tape.to_json(version=2), tape.to_text(),
                        tape.to_csv())


def test_the_process_keeps_the_templates_it_used_latest(monkeypatch):
    """Room for one key's template: stacks of causal and of unmasked
    attention take turns, and each one's template makes room for the
    other's, the key used least lately (a process summarizing many
    shapes keeps its latest ones'); every report as every call run."""
    monkeypatch.setattr(replay, "_KEPT_MAX", 1)
    inputs = (torch.randn(B, L, D), torch.tensor([L, L]))
    causal, plain = Stack(["causal"] * 2), Stack(["none"] * 2)
    alone = {id(m): _summaries(m, inputs, 1)[0][0] for m in (causal, plain)}
    replay.forget()
    got = []
    for model in (causal, plain, plain, causal, causal):
        report, replayed, _ = _summary(model, inputs)
        assert report == alone[id(model)]
        got.append(replayed)
    assert got == [0, 0, 2, 0, 2]
    assert len(replay._KEPT) == 1
