"""The numbered tape (docs/tape.md, "Calls the library names") on
Hugging Face models, PyTorch 2.x: with the default numbering the library
lowers and names the calls of tape.NUMBERED, and every report is byte for
byte the one the ops_map.py rules give (NNSCAN_TAPE_NUMBERED=0): text with
every column, JSON v1 and v2 (value and node names included), the
roofline. Families of several kinds: decoder (SDPA, rotary, KV cache),
encoder, encoder-decoder, experts, audio convolutions."""
import pytest

import hf_zoo
import nnscan
from nnscan import graph

FAMILIES = ("llama", "bert", "t5", "mixtral", "whisper", "gemma3_text")


def _reports(monkeypatch, family, numbered):
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
    held = []
    orig = graph._pack_parts

    def pack(g):
        held.append(sum(len(c) > 2 for c in g.aten.values()))
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    model, inputs = hf_zoo.build(family)
    s = nnscan.summary(model, inputs=inputs, file=False,
                       columns=("flops", "macs", "dmas", "buffers", "act"))
    r = nnscan.summary(model, inputs=inputs, file=False, hardware="h100-sxm")
    monkeypatch.setattr(graph, "_pack_parts", orig)
    return [s.to_text(), s.to_json(version=1), s.to_json(version=2),
            r.to_text()], held[0]


@pytest.mark.parametrize("family", FAMILIES)
def test_numbered_reports_are_the_rules(monkeypatch, family):
    on, numbered = _reports(monkeypatch, family, "defer")
    off, none = _reports(monkeypatch, family, "0")
    assert numbered > 0 and none == 0
    for a, b in zip(on, off):
        assert a == b


def test_grouped_experts_forward_and_backward_on_the_tape(monkeypatch):
    """Qwen3-MoE's grouped experts (aten._grouped_mm: the experts' product
    forward, and in the backward the input's and the weights' gradients)
    go on the tape: the backward graph's inputs are the rules' in their
    order (offs, the router's row counts, is read by no node: no input),
    every report byte for byte the rules' (the MACs against FlopCounterMode:
    test_hf_zoo.py's test_backward_matches_pytorch)."""
    import json
    held = {}
    orig = graph._pack_parts

    def pack(g):
        held.setdefault(mode[0], []).extend(
            c[0] for c in g.aten.values() if len(c) > 2)
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    mode = [None]
    got = {}
    for numbered in ("defer", "0"):
        monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
        mode[0] = numbered
        model, inputs = hf_zoo.build("qwen3_moe")
        assert hf_zoo.experts_implementation(model) == "grouped_mm"
        s = nnscan.summary(model, inputs=inputs, backward=True, file=False)
        got[numbered] = (s, [s.to_text(), s.to_json(version=2),
                             s.backward.to_text(),
                             s.backward.to_json(version=2)])
    monkeypatch.setattr(graph, "_pack_parts", orig)
    assert held["defer"].count("_grouped_mm") >= 4  # forward and backward
    assert "_grouped_mm" not in held.get("0", [])
    for a, b in zip(got["defer"][1], got["0"][1]):
        assert a == b
    inputs_of = json.loads(got["defer"][1][3])["inputs"]
    assert not any(i["dtype"] == "int32" for i in inputs_of)  # no offs
