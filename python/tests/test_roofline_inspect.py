"""The Inspector against the roofline: each module's static roofline time
(by hand from the L4 datasheet: 300 GB/s, FP32 30.3 TF) beside its
measured time, the fraction of the roof, and the ranking."""
import pytest

import nnscan

torch = pytest.importorskip("torch")

L4_BW = 300e9


def test_inspector_roofline():
    m = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 10))
    x = torch.randn(8, 256)
    with nnscan.Inspector(m, static_inputs=(x,), hardware="l4") as insp:
        for _ in range(2):
            m(x)
    doc = insp.json()
    mods = {d["path"]: d for d in doc["modules"]}
    # Linear(256, 256) on 8 rows, float32: x 8,192 + W 262,144 + b 1,024
    # + y 8,192 bytes; 1.05 MFLOP take 35 ns at 30.3 TF, the bytes 932 ns.
    want = (8192 + 262144 + 1024 + 8192) / L4_BW * 1e3
    assert mods["0"]["roofline_ms"] == pytest.approx(want, rel=1e-6)
    # ReLU: 8 KiB in, 8 KiB out.
    assert mods["1"]["roofline_ms"] == pytest.approx(16384 / L4_BW * 1e3,
                                                     rel=1e-6)
    passes = len(doc["passes"])
    for d in doc["modules"]:
        measured = d["forward"]["inclusive_ms"] / passes
        assert d["roof_fraction"] == pytest.approx(
            d["roofline_ms"] / measured, rel=1e-5)
    assert doc["meta"]["hardware"] == "l4"
    ranked = [doc["modules"][i]["roof_fraction"]
              for i in doc["roofline"]["furthest"]]
    assert ranked == sorted(ranked)
    text = insp.report(width=200)
    assert "Furthest from their roof" in text
    # the roofline time in a human unit, never a bare exponent
    header = next(l for l in text.splitlines() if l.startswith("Layer"))
    assert " Roof  " in header and "e-0" not in text


def test_inspector_without_hardware_unchanged():
    m = torch.nn.Linear(4, 4)
    with nnscan.Inspector(m, static_inputs=(torch.zeros(1, 4),)) as insp:
        m(torch.zeros(1, 4))
    doc = insp.json()
    assert "roofline" not in doc
    assert "roofline_ms" not in doc["modules"][0]
    assert "Roof" not in insp.report(width=200)


def test_inspect_schema_with_roofline():
    import json
    import os
    jsonschema = pytest.importorskip("jsonschema")
    m = torch.nn.Linear(16, 8)
    x = torch.zeros(2, 16)
    with nnscan.Inspector(m, static_inputs=(x,), hardware="h100-sxm") as insp:
        m(x)
    schema = os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                          "inspect.schema.json")
    jsonschema.validate(insp.json(), json.load(open(schema)))
