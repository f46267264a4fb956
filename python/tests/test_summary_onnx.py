"""nnscan.analyze() and Summary on ONNX files (no torch involved).

References are PyTorch's own figures for the fixture models
(tests/fixtures/models/<model>.ref.json and .costs.json, written by
tools/make_fixtures.py and tools/make_costs.py), never nnscan's output.
"""
import csv
import io
import json
import os

import pytest

import nnscan
from conftest import model_refs
from html_page import embedded


def test_resnet18_file_and_bytes(fixtures_dir):
    path = os.path.join(fixtures_dir, "resnet18_op17_nofold.onnx")
    ref, costs = model_refs("resnet18")
    s = nnscan.analyze(path, name="resnet18")
    with open(path, "rb") as f:
        b = nnscan.analyze(f.read(), name="resnet18")
    assert s.json["schema"] == "nnscan.summary" and s.json["schema_version"] == 1
    assert s.totals["params"] == ref["total_params_used"]
    assert s.totals["macs"] == costs["macs_dispatch_total"]
    assert b.totals == s.totals and b.layers == s.layers
    assert s.layer("layer1.0.conv1")["output"]["shape"] == [1, 64, 56, 56]


def test_renderings(fixtures_dir):
    s = nnscan.analyze(os.path.join(fixtures_dir, "resnet18_op17_nofold.onnx"),
                       name="resnet18", max_depth=1)
    text = str(s)
    assert text.splitlines()[1].split()[:4] == ["Layer", "Type", "Output", "Shape"]
    assert "layer1" in text and "layer1.0" not in text  # depth 1
    rows = list(csv.DictReader(io.StringIO(s.to_csv())))
    assert [r["path"] for r in rows] == [l["path"] for l in s.layers]
    assert int(rows[0]["params"]) == s.totals["params"]
    md = s.to_markdown()
    assert md.startswith("| Layer | Type | Output Shape | Param # |")
    assert json.loads(s.to_json()) == s.json
    assert "1.82 G" in s.to_text(columns=["macs"], numbers="clever")


def test_html_page_embeds_the_summary(fixtures_dir):
    ref, costs = model_refs("alexnet")
    s = nnscan.analyze(os.path.join(fixtures_dir, "alexnet_op17_nofold.onnx"),
                       name="alexnet", max_depth=1)
    page = s.to_html()
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>alexnet: nnscan summary</title>" in page
    kind, doc = embedded(page)
    assert kind == "nnscan.summary" and doc["schema"] == "nnscan.summary"
    # PyTorch's figures, and every layer (the page is not cut at max_depth)
    assert doc["totals"]["params"] == ref["total_params_used"]
    assert doc["totals"]["macs"] == costs["macs_dispatch_total"]
    assert [l["path"] for l in doc["layers"]] == [l["path"] for l in s.layers]
    assert "features.0" in [l["path"] for l in doc["layers"]]


def test_errors_name_what_and_where(tmp_path):
    with pytest.raises(nnscan.NnscanError, match="cannot|open"):
        nnscan.analyze(str(tmp_path / "missing.onnx"))
    with pytest.raises(nnscan.NnscanError) as e:
        nnscan.analyze(b"\x0a\xff\xff\xff")
    assert e.value.status.startswith("NNS_E_")
    with pytest.raises(ValueError, match="format"):
        nnscan.analyze(os.path.join(os.path.dirname(__file__), "..", "..",
                                    "tests", "fixtures", "models",
                                    "alexnet_op17_nofold.onnx"))._render("pdf")


def test_depths(fixtures_dir):
    s = nnscan.analyze(os.path.join(fixtures_dir, "resnet18_op17_nofold.onnx"))
    rows = lambda t: [l for l in t.splitlines() if l.startswith(("├", "└", "│"))]
    assert all("─" in l for l in rows(s.to_text(max_depth=0)))  # depth 1
    assert rows(s.to_text(max_depth=0)) == rows(s.to_text(max_depth=1))
    assert len(rows(s.to_text(max_depth=2))) > len(rows(s.to_text(max_depth=1)))
    assert len(rows(s.to_text())) == len(s.layers) - 1  # None: every depth


def test_footer_names_tied_weights_only(fixtures_dir):
    """resnet18 ties no weights (PyTorch's tied_params is empty); its export
    stores equal BatchNorm tensors once with Identity copies. The footer
    says nothing about that, and never repeats the model size."""
    ref, _ = model_refs("resnet18")
    assert ref["tied_params"] == []
    s = nnscan.analyze(os.path.join(fixtures_dir, "resnet18_op17_nofold.onnx"))
    assert s.totals["params_unique"] < s.totals["params_total"]  # copies
    text = str(s)
    assert "Unique storage" not in text and "Tied" not in text
    sizes = [l for l in text.splitlines() if "size" in l.lower()]
    assert len(sizes) == 1 and sizes[0].startswith("Model size")
