"""The analysis is a native handle of its own (issue 19): close(), `with`,
a clear NnscanError after close (never a crash), weakref.finalize as the
backstop, and two analyses of one model side by side.

The model is tests/unit/models/analyze_residual.onnx, counted by hand (as
tests/unit/test_analysis_handle.c does): x [N,2,16,16], convs 3x3 s2 p1
2->4, 3x3 p1 4->4, 1x1 s2 2->4 and a 3x3 p1 4->4 head, every output
[N,4,8,8]; MACs per sample 4*64*(18 + 36 + 2 + 36) = 23552, 376 parameters.
"""
import gc
import json
import os

import pytest

import nnscan
from nnscan import report

from conftest import ROOT

MODEL = os.path.join(ROOT, "tests", "unit", "models", "analyze_residual.onnx")
MACS_PER_SAMPLE = 4 * 64 * (2 * 9 + 4 * 9 + 2 + 4 * 9)


def totals(analysis):
    return json.loads(analysis.report("json"))["totals"]


def head_shape(analysis):
    doc = json.loads(analysis.report("json"))
    return next(l["output"]["shape"] for l in doc["layers"]
                if l["path"] == "head")


def closes_once(handle, fmt, message):
    """Open, then closed (twice is fine), then a report is NNS_E_STATE
    naming what is closed."""
    assert not handle.closed
    handle.close()
    assert handle.closed
    handle.close()
    with pytest.raises(nnscan.NnscanError) as e:
        handle.report(fmt)
    assert e.value.status == "NNS_E_STATE"
    assert message in str(e.value)


def test_two_batches_side_by_side():
    model = report.Handle.load(MODEL)
    model.infer(batch=1)
    one = model.analyze()
    one_text = one.report("text")
    model.infer(batch=64)
    many = model.analyze()
    assert one is not many
    # Each reads the inference it ran on, read after both exist.
    assert totals(one)["macs"] == MACS_PER_SAMPLE
    assert totals(many)["macs"] == 64 * MACS_PER_SAMPLE
    assert totals(one)["params"] == totals(many)["params"] == 376
    assert head_shape(one) == [1, 4, 8, 8]
    assert head_shape(many) == [64, 4, 8, 8]
    assert one.report("text") == one_text
    # The model's own shapes are the last inference's.
    shapes = json.loads(model.report("shapes_json"))
    assert shapes["inputs"]["x"]["shape"][0] == 64
    many.close()
    assert totals(one)["macs"] == MACS_PER_SAMPLE
    one.close()
    model.close()


def test_close_and_use_after_close():
    model = report.Handle.load(MODEL)
    a = model.analyze()
    closes_once(a, "text", "analysis is closed")
    # The model is still open, and analyses again.
    assert totals(model.analyze())["params"] == 376
    model.close()
    with pytest.raises(nnscan.NnscanError, match="model is closed"):
        model.analyze()


def test_with_closes():
    with report.Handle.load(MODEL) as model:
        with model.analyze() as a:
            assert totals(a)["macs"] == MACS_PER_SAMPLE
        assert a.closed
        b = model.analyze()
    assert model.closed
    # Closing the model closed its analysis first (the library needs the
    # analysis freed before its model): using it is an error, not a crash.
    assert b.closed
    with pytest.raises(nnscan.NnscanError):
        b.report("json")
    with pytest.raises(nnscan.NnscanError):
        with b:
            pass


def test_model_lives_while_its_analysis_does():
    a = report.Handle.load(MODEL).analyze()
    gc.collect()  # the Handle is only referenced by the analysis
    assert not a.model.closed
    assert totals(a)["macs"] == MACS_PER_SAMPLE


def test_finalize_is_the_backstop():
    model = report.Handle.load(MODEL)
    a = model.analyze()
    fin = a._fin
    del a
    gc.collect()
    assert not fin.alive  # freed by the finalizer, without close()
    model_fin = model._fin
    del model
    gc.collect()
    assert not model_fin.alive


def test_summary_close_and_with():
    s = nnscan.analyze(MODEL, name="residual")
    assert s.totals["macs"] == MACS_PER_SAMPLE
    s.close()
    assert s.closed and s.analysis.model.closed
    assert s.totals["params"] == 376  # read before close: still there
    with pytest.raises(nnscan.NnscanError):
        s.to_text()
    with nnscan.analyze(MODEL, batch=2) as s2:
        assert s2.totals["macs"] == 2 * MACS_PER_SAMPLE
    assert s2.closed


def test_model_reports_shapes_only():
    model = report.Handle.load(MODEL)
    model.infer()
    with pytest.raises(ValueError, match="Analysis"):
        model.report("text")
    with pytest.raises(nnscan.NnscanError):
        model.analyze().report("shapes_json")


def test_inspection_close_and_backstop():
    """The Inspector's native inspection is a handle too: close() frees it,
    a report after that is NNS_E_STATE, and dropping the Inspector frees
    it without close()."""
    import torch
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    with nnscan.Inspector(model) as insp:
        model(torch.ones(1, 3))
    assert "Linear" in insp.report("text")
    closes_once(insp, "json", "inspection is closed")

    with nnscan.Inspector(model) as other:
        model(torch.ones(1, 3))
    fin = other._handle._fin
    del other
    gc.collect()
    assert not fin.alive  # freed by the finalizer
