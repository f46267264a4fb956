"""The report contract (issue 23): `nnscan.summary` v2 with statuses and
diagnostics, validated against docs/summary.v2.schema.json, read beside
v1; and nnscan.compare / `nnscan diff` over two analyses.

Expected figures are worked out here by hand (a convolution's MACs are
C_out * C_in * k * k * H_out * W_out) or come from PyTorch itself
(sum(p.numel())); none is copied from nnscan's output.
"""
import json
import re
import os

import pytest

import nnscan
from conftest import ROOT

REPORT = os.path.join(ROOT, "tests", "report")
DOCS = os.path.join(ROOT, "docs")


def _validator(name):
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(DOCS, name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(validator, doc):
    return [f"{e.message} at /{'/'.join(map(str, e.path))}"
            for e in validator.iter_errors(doc)][:3]


def test_v2_statuses_of_an_uncounted_op():
    """tiny_tied: x[1,4] @ W[4,4] twice (enc, dec: 4*4 = 16 MACs each,
    by hand), then com.example.MyOp, which nnscan has no rule for."""
    s = nnscan.analyze(os.path.join(REPORT, "tiny_tied.onnx"))
    doc = s.v2
    assert not _errors(_validator("summary.v2.schema.json"), doc)
    assert s.metrics("enc")["macs"] == {"status": "complete", "value": 16}
    act = s.metrics("act")["macs"]
    assert act["status"] == "unavailable" and "value" not in act
    root = s.metrics("")["macs"]
    assert root["status"] == "partial" and root["known_value"] == 32
    # The diagnostic behind it: a stable code, where, and what it touches.
    d = doc["diagnostics"][root["diagnostics"][0]]
    assert (d["code"], d["op"], d["domain"], d["module"], d["where"]) == \
        ("cost.no_rule", "MyOp", "com.example", "act", "/act/MyOp")
    assert d["metrics"] == ["flops", "macs", "dmas"]
    # Params do not depend on the op's cost: complete, PyTorch-free by hand
    # (one 4x4 weight, tied).
    assert s.metrics("")["params"] == {"status": "complete", "value": 16}
    assert doc["totals"]["complete"] is False
    # v1 stays as it was: same numbers, no statuses.
    assert s.json["schema_version"] == 1 and s.totals["macs"] == 32


def test_v1_and_v2_read_alike():
    """A saved v1 document reads back with statuses from its flags; a saved
    v2 with its own; both agree on what v1 can say."""
    s = nnscan.analyze(os.path.join(REPORT, "tiny_resnet.onnx"))
    v1 = nnscan.load_summary(json.dumps(s.json))
    v2 = nnscan.load_summary(s.v2)
    assert (v1.schema_version, v2.schema_version) == (1, 2)
    for row in s.layers:
        m1, m2 = v1.metrics(row["path"]), v2.metrics(row["path"])
        for k in m1:
            assert m1[k]["status"] == m2[k]["status"] == "complete"
            assert m1[k]["value"] == m2[k]["value"]
    # stem.conv: 3 -> 8 channels, 3x3, 8x8 output: 8*3*9*64 MACs.
    assert v2.metrics("stem.conv")["macs"]["value"] == 8 * 3 * 9 * 64
    with pytest.raises(ValueError):
        nnscan.load_summary({"schema": "nnscan.inspect", "schema_version": 1})
    with pytest.raises(ValueError):
        v1.to_text()  # nothing to render without the analysis


def test_v1_statuses_follow_the_library_rule():
    """A saved v1 document's statuses (docs/json.md): a node not counted
    leaves flops, macs, dmas partial; a symbolic dim at 1 those and
    activation_bytes; saturated totals every metric, in every row (the
    rule Python once retyped without the saturated case)."""
    s = nnscan.analyze(os.path.join(REPORT, "tiny_resnet.onnx"))
    doc = json.loads(json.dumps(s.json))
    row = next(r for r in doc["layers"] if r["path"] == "stem.conv")
    cost = {"flops", "macs", "dmas"}
    eight = ["params", "buffers", "frozen", "param_bytes", "flops", "macs",
             "dmas", "activation_bytes"]  # a metric added later comes after
    for flag, want in (("partial", cost),
                       ("symbolic", cost | {"activation_bytes"}),
                       ("unbounded", cost | {"activation_bytes"}),
                       ("shared", set())):
        row["flags"] = dict(row["flags"], **{flag: True})
        m = nnscan.load_summary(json.dumps(doc)).metrics("stem.conv")
        assert {k for k in eight if m[k]["status"] == "partial"} == want, \
            flag
        row["flags"] = dict(row["flags"], **{flag: False})
    doc["totals"]["saturated"] = True
    m = nnscan.load_summary(json.dumps(doc)).metrics("stem.conv")
    assert all(v["status"] == "partial" for v in m.values())
    assert list(m)[:8] == eight


def test_v2_symbolic_input_is_partial():
    """nameless_dims: an input with symbolic dims taken as 1: the sized
    counts are lower bounds, and the diagnostic names the input."""
    s = nnscan.analyze(os.path.join(ROOT, "tests", "fixtures", "deploy",
                                    "nameless_dims.onnx"))
    m = s.metrics("")
    assert m["macs"]["status"] == "partial"
    assert m["params"]["status"] == "complete"
    d = s.v2["diagnostics"][m["macs"]["diagnostics"][0]]
    assert d["code"] == "size.symbol_taken_as_1" and d["where"] == "audio"
    assert not _errors(_validator("summary.v2.schema.json"), s.v2)


def _net(torch, width, extra=False):
    layers = [torch.nn.Conv2d(3, width, 3, padding=1), torch.nn.ReLU()]
    if extra:
        layers.append(torch.nn.Conv2d(width, width, 1))
    return torch.nn.Sequential(*layers)


def test_compare_torch_models():
    """Conv 3->8 against 3->16 plus a 1x1 conv, on a 1x3x8x8 input: MACs
    by hand, params from PyTorch."""
    torch = pytest.importorskip("torch")
    a_model, b_model = _net(torch, 8), _net(torch, 16, extra=True)
    a = nnscan.summary(a_model, (3, 8, 8), file=open(os.devnull, "w"))
    b = nnscan.summary(b_model, (3, 8, 8), file=open(os.devnull, "w"))
    c = nnscan.compare(a, b, budgets="macs > +5%")
    assert not _errors(_validator("diff.schema.json"), c.json)
    assert c.comparable
    macs_a = 8 * 3 * 9 * 64
    macs_b = 16 * 3 * 9 * 64 + 16 * 16 * 64
    t = c.totals("macs")
    assert (t["before"]["value"], t["after"]["value"]) == (macs_a, macs_b)
    assert t["delta"] == macs_b - macs_a
    assert t["delta_pct"] == pytest.approx(100.0 * (macs_b - macs_a) / macs_a)
    p = c.totals("params")
    assert p["delta"] == sum(x.numel() for x in b_model.parameters()) - \
        sum(x.numel() for x in a_model.parameters())
    assert [r["path"] for r in c.added] == ["2"]
    conv = [r for r in c.changed if r["path"] == "0"][0]
    assert conv["metrics"]["macs"]["delta"] == 16 * 27 * 64 - 8 * 27 * 64
    assert c.exceeded == 1 and not c.ok
    assert c.budgets[0]["status"] == "exceeded"
    assert "macs > +5%: EXCEEDED" in c.to_text()
    assert 'data-kind="nnscan.diff"' in c.to_html()
    # Within budget, and the same model: nothing changed.
    same = nnscan.compare(a, a.json, budgets=["macs > +5%", "params > +0"])
    assert same.ok and not same.changed and not same.added
    # A saved v1 document against the live analysis: read alike.
    assert not nnscan.compare(a.json, a).changed


def test_compare_withholds_deltas():
    """Other inputs: the runs differ, every delta is withheld and a budget
    cannot be checked. An incomplete count: no delta either."""
    torch = pytest.importorskip("torch")
    m = _net(torch, 8)
    a = nnscan.summary(m, (3, 8, 8), file=open(os.devnull, "w"))
    b = nnscan.summary(m, (3, 16, 16), file=open(os.devnull, "w"))
    c = nnscan.compare(a, b, budgets="macs > +5%")
    assert not c.comparable
    assert c.json["withheld_because"] == ["the inputs differ (names, dtypes or shapes)"]
    assert c.totals("macs")["delta"] is None
    assert c.withheld == 1 and c.exceeded == 0
    tied = os.path.join(REPORT, "tiny_tied.onnx")
    c = nnscan.compare(tied, tied)
    assert c.comparable and c.totals("macs")["delta"] is None
    assert c.totals("params")["delta"] == 0
    with pytest.raises(nnscan.NnscanError, match="budget"):
        nnscan.compare(tied, tied, budgets="latency > +1")


def test_v2_calls_and_nested_outputs():
    """Each call of a module, with the structure of what it returned: a
    Linear called twice, an LSTM returning (out, (h, c)), and a model
    returning a dict with a None. Shapes and dtypes worked out here from
    the layer sizes; no values."""
    torch = pytest.importorskip("torch")

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(4, 4)
            self.r = torch.nn.LSTM(4, 3, batch_first=True)

        def forward(self, x):
            y = self.a(self.a(x))
            o, (h, c) = self.r(y)
            return {"out": o, "state": (h, c), "none": None}

    s = nnscan.summary(M(), (2, 4), file=False)
    doc = s.v2
    assert not _errors(_validator("summary.v2.schema.json"), doc)
    rows = {r["path"]: r for r in doc["layers"]}
    t = lambda *shape: {"dtype": "float32", "shape": list(shape)}  # noqa: E731
    assert rows["a"]["call_count"] == 2
    assert rows["a"]["calls"] == [{"call": 0, "outputs": t(1, 2, 4)},
                                  {"call": 1, "outputs": t(1, 2, 4)}]
    assert rows["r"]["calls"] == [{"call": 0, "outputs": [
        t(1, 2, 3), [t(1, 1, 3), t(1, 1, 3)]]}]
    assert rows[""]["calls"] == [{"call": 0, "outputs": {
        "out": t(1, 2, 3), "state": [t(1, 1, 3), t(1, 1, 3)], "none": None}}]
    # An ONNX file knows no calls.
    f = nnscan.analyze(os.path.join(REPORT, "tiny_resnet.onnx"))
    assert all(r["calls"] == [] and r["call_count"] is None
               for r in f.v2["layers"])


def test_layers_document_follows_its_schema():
    """nnscan.layers (NNS_FORMAT_LAYERS_JSON), from an analysis (what
    nnscan.profile reads) and from rows a caller counted (compat.thoplw),
    against docs/layers.schema.json. Figures by hand: Linear(8, 4) on one
    8-vector is 8*4 = 32 MACs with 8*4 + 4 = 36 parameters, Linear(4, 2)
    4*2 = 8 MACs with 4*2 + 2 = 10 parameters."""
    torch = pytest.importorskip("torch")
    from nnscan.compat import thoplw
    from nnscan.report import render_layers

    validator = _validator("layers.schema.json")
    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU(),
                                torch.nn.Linear(4, 2))
    x = torch.zeros(1, 8)
    macs, params, info = nnscan.profile(model, tensor=x, verbose=False)
    doc = json.loads(info.analysis.report("layers_json",
                                          model_name="Sequential"))
    assert not _errors(validator, doc)
    rows = {r["name"]: (r["macs"], r["params"]) for r in doc["rows"]}
    assert rows["0"] == (32, 36) and rows["2"] == (8, 10)
    assert (doc["total"]["macs"], doc["total"]["params"]) == (40, 46)
    assert (macs, params) == (40, 46)

    _, _, counted = thoplw.profile(model, tensor=x, verbose=False)
    assert counted.analysis is None
    doc = json.loads(render_layers(
        [("fc", "Linear", (1, 8), (1, 4), 32, 36)],
        ("Net", (1, 8), (1, 4), 32, 36), "thoplw", kind="json"))
    assert not _errors(validator, doc)
    assert doc["rows"][0]["input"] == "8" and doc["total"]["params"] == 36
    # A document that breaks the contract is caught: the check can fail.
    doc["total"]["macs"] = -1
    assert _errors(validator, doc)


def test_compare_reads_counts_and_keys_as_the_cli_does(tmp_path):
    """Issue 47: nnscan.compare goes through the library's one reader. A
    whole float reads as its integer (MACs doubled: the budget fails); a
    fraction, a string or 2**64 refuses the side, naming row and key; a
    missing count withholds the budget; a duplicate key is refused with its
    byte, whether the side is a path, text or a loaded Summary."""
    path = os.path.join(REPORT, "tiny_resnet.onnx")
    base = nnscan.analyze(path).json
    assert base["schema_version"] == 1

    def edited(fn):
        d = json.loads(json.dumps(base))
        fn(d)
        return d

    doubled = edited(lambda d: d["totals"].__setitem__(
        "macs", float(2 * d["totals"]["macs"])))
    c = nnscan.compare(base, doubled, budgets="macs > +5%")
    assert c.exceeded == 1 and c.totals("macs")["delta"] == base["totals"]["macs"]
    for bad, what in ((3641344000.5, "3641344000.5"),
                      ("12", 'the string "12"'),
                      (2 ** 64, "1.8446744073709552e+19")):
        d = edited(lambda d: d["totals"].__setitem__("macs", bad))
        with pytest.raises(nnscan.NnscanError,
                           match=f'after: totals "macs" is {re.escape(what)}, '
                                 'not a count'):
            nnscan.compare(base, d, budgets="macs > +5%")
    missing = edited(lambda d: d["totals"].pop("macs"))
    c = nnscan.compare(base, missing, budgets="macs > +5%")
    assert c.withheld == 1 and c.exceeded == 0 and not c.ok
    # A key twice: the C reader refuses it at its byte, for a path and for
    # text; load_summary refuses it too (not "last one wins").
    text = json.dumps(base)
    dup = '{"schema": "x", ' + text[1:]
    f = tmp_path / "dup.json"
    f.write_text(dup)
    for side in (str(f), dup):
        with pytest.raises(nnscan.NnscanError,
                           match='before: duplicate key "schema" at byte 16'):
            nnscan.compare(side, base)
    with pytest.raises(ValueError, match='duplicate key "schema"'):
        nnscan.load_summary(str(f))
    # A Summary loaded from text goes to the library as that text.
    ok = tmp_path / "ok.json"
    ok.write_text(text)
    assert nnscan.compare(nnscan.load_summary(str(ok)), base).ok


def test_compare_refuses_empty_budgets():
    """Issue 47: a blank budget does not switch the gate off."""
    tied = os.path.join(REPORT, "tiny_tied.onnx")
    for budgets in ("", "  ", [""], ["macs > +5%", " "], []):
        with pytest.raises(ValueError, match="an empty budget"):
            nnscan.compare(tied, tied, budgets=budgets)
    with pytest.raises(nnscan.NnscanError, match="budget 2 is empty"):
        nnscan.compare(tied, tied, budgets="params > +5%,")
    assert nnscan.compare(tied, tied, budgets=None).ok
