"""One naming rule for the root of every report (issue 17, item 16;
docs/cli.md "Model names"): a live module is named by its class as
written, a model file by its base name without `.onnx` (the CLI and
`nnscan.analyze(path)` alike), in-memory ONNX bytes by their graph name;
`name=` overrides. Expected names come from the class and the file name,
not from nnscan."""
import html
import json
import os
import re
import subprocess

import pytest
import torch

import nnscan

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODEL = os.path.join(ROOT, "tests", "cli", "tiny_cnn.onnx")


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(self.conv(x).mean((2, 3)))


def title(page):
    return html.unescape(re.search(r"<title>(.*?)</title>", page).group(1))


def test_module_is_named_by_its_class_everywhere():
    m = TinyNet()
    s = nnscan.summary(m, (3, 8, 8), file=False)
    assert s.json["model"]["name"] == "TinyNet"
    assert s.to_text().splitlines()[3].split()[0] == "TinyNet"
    assert title(s.to_html()).startswith("TinyNet")
    with nnscan.Inspector(m) as insp:
        m(torch.randn(1, 3, 8, 8)).sum().backward()
    assert title(insp.to_html()).startswith("TinyNet")
    assert s.name == insp.name == "TinyNet"


def test_file_is_named_by_its_file_name_in_python_and_the_cli():
    s = nnscan.analyze(MODEL)
    assert s.json["model"]["name"] == "tiny_cnn"
    cli = os.environ.get("NNSCAN_CLI") or os.path.join(
        os.path.dirname(os.environ["NNSCAN_LIBRARY"]), "nnscan")
    if not os.path.exists(cli):
        pytest.skip("no nnscan command beside the library")
    out = subprocess.run([cli, "summary", MODEL, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    assert json.loads(out)["model"]["name"] == "tiny_cnn"
    assert nnscan.analyze(MODEL, name="mine").json["model"]["name"] == "mine"


def test_bytes_are_named_by_their_graph():
    with open(MODEL, "rb") as f:
        data = f.read()
    s = nnscan.analyze(data)
    import onnx  # the graph name as ONNX itself reads it
    assert s.json["model"]["name"] == (onnx.load_from_string(data).graph.name
                                       or "model")
