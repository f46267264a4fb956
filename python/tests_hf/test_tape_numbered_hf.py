"""The tape (docs/tape.md, "Calls the library names") on Hugging Face
models, PyTorch 2.x: the library lowers and names the recorded calls, and
every report is byte for byte the one the recorder's rules gave while it
had them (python/tests/rules_reference.py: frozen per PyTorch and
transformers version): text with every column, JSON v1 and v2 (value and
node names included), the roofline. Families of several kinds: decoder
(SDPA, rotary, KV cache), encoder, encoder-decoder, experts, audio
convolutions."""
import pytest

import hf_zoo
import nnscan
import rules_reference
from nnscan import graph

FAMILIES = ("llama", "bert", "t5", "mixtral", "whisper", "gemma3_text")


def _reports(monkeypatch, family):
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
def test_numbered_reports_are_the_rules(monkeypatch, family, request):
    reports, numbered = _reports(monkeypatch, family)
    rules_reference.check(request, reports, hf=True)
    assert numbered > 0


def test_grouped_experts_forward_and_backward_on_the_tape(monkeypatch,
                                                          request):
    """Qwen3-MoE's grouped experts (aten._grouped_mm: the experts' product
    forward, and in the backward the input's and the weights' gradients)
    go on the tape: the backward graph's inputs are the rules' in their
    order (offs, the router's row counts, is read by no node: no input),
    every report byte for byte the rules' (frozen: rules_reference; the
    MACs against FlopCounterMode: test_hf_zoo.py's
    test_backward_matches_pytorch)."""
    import json
    held = []
    orig = graph._pack_parts

    def pack(g):
        held.extend(c[0] for c in g.aten.values() if len(c) > 2)
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    model, inputs = hf_zoo.build("qwen3_moe")
    assert hf_zoo.experts_implementation(model) == "grouped_mm"
    s = nnscan.summary(model, inputs=inputs, backward=True, file=False)
    reports = [s.to_text(), s.to_json(version=2), s.backward.to_text(),
               s.backward.to_json(version=2)]
    monkeypatch.setattr(graph, "_pack_parts", orig)
    rules_reference.check(request, reports, hf=True)
    assert held.count("_grouped_mm") >= 4  # forward and backward
    inputs_of = json.loads(reports[3])["inputs"]
    assert not any(i["dtype"] == "int32" for i in inputs_of)  # no offs
