"""The Inspector's reports as a newcomer reads them (issue 17, items 1-4):
the module whose own code makes a NaN is its producer in text, JSON and
HTML; watch_depth=1 measures the watched modules' backward and lists no
unwatched module; static counts from static_inputs= show in the text
table; the text table fits 100 columns and prints bytes with units.
Expected values come from PyTorch (where the NaN first appears, the
gradients' bytes) or are worked out by hand."""
import json
import re

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import nnscan  # noqa: E402
from html_page import embedded  # noqa: E402


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        h = torch.log(self.fc(x))   # negative outputs: NaN, made here
        return self.norm(h)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.block(x))


def test_nan_made_between_children_is_the_parents():
    torch.manual_seed(0)
    model = Net()
    x = torch.randn(4, 8)
    # Independently: fc's output is finite and negative somewhere, so the
    # log (block's own code) is where the NaN first appears.
    with torch.no_grad():
        y = model.block.fc(x)
    assert torch.isfinite(y).all() and (y < 0).any()
    with nnscan.Inspector(model) as insp:
        model(x)
    doc = insp.json()
    first = doc["first_nonfinite"]["forward"]
    assert first["path"] == "block" and first["role"] == "producer"
    mods = {m["path"]: m for m in doc["modules"]}
    assert mods["block"]["nonfinite"]["forward_role"] == "producer"
    assert mods["block.norm"]["nonfinite"]["forward_role"] == "propagator"
    assert mods["block.fc"]["nonfinite"]["forward_role"] is None
    assert mods["head"]["nonfinite"]["forward_role"] == "propagator"
    text = insp.report("text")
    assert "First NaN/Inf in the forward: block (Block, rank 0, pass 0, " \
           "produced it)" in text
    row = next(line for line in text.splitlines() if "─block" in line)
    assert "fwd producer" in row
    _, page_doc = embedded(insp.to_html())
    assert page_doc["first_nonfinite"]["forward"]["path"] == "block"


def test_nan_in_inputs_is_propagated():
    model = Net()
    x = torch.full((4, 8), float("nan"))
    with nnscan.Inspector(model) as insp:
        model(x)
    doc = insp.json()
    roles = {m["path"]: m["nonfinite"]["forward_role"] for m in doc["modules"]}
    assert "producer" not in roles.values()
    assert doc["first_nonfinite"]["forward"]["role"] == "propagator"


def convnet():
    return nn.Sequential(
        nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
                      nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                      nn.Conv2d(32, 32, 3, padding=1)),
        nn.Flatten(), nn.Linear(32 * 16 * 16, 10))


def test_watch_depth_1_backward_and_rows():
    torch.manual_seed(0)
    model = convnet()
    x = torch.randn(2, 3, 16, 16)
    with nnscan.Inspector(model, watch_depth=1) as insp:
        model(x).sum().backward()
    doc = insp.json()
    # Only the watched modules are rows.
    assert [m["path"] for m in doc["modules"]] == ["", "0", "1", "2"]
    text = insp.report("text")
    assert "Conv2d" not in text
    mods = {m["path"]: m for m in doc["modules"]}
    trunk = mods["0"]
    assert trunk["backward_calls"] == 1
    # Its backward was timed and lies within the model's (a share of it,
    # "most", would be a timing claim a loaded machine breaks), and it
    # allocated at least its weights' gradients (PyTorch's own sizes; .grad
    # was None before this backward).
    assert 0 < trunk["backward"]["inclusive_ms"] <= \
        mods[""]["backward"]["inclusive_ms"]
    grad_bytes = sum(p.grad.numel() * p.grad.element_size()
                     for p in model[0].parameters())
    assert trunk["backward"]["alloc_bytes"] >= grad_bytes
    row = next(line for line in text.splitlines() if line.startswith("├─0"))
    assert " 0.000 " not in row


def test_static_counts_in_text_and_html():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    x = torch.randn(3, 8)
    with nnscan.Inspector(model, static_inputs=x) as insp:
        model(x)
    text = insp.report("text", numbers="raw")
    head = text.splitlines()[1]
    assert "FLOPs" in head and "FLOP/s" in head
    # Linear(8, 16) on 3 rows: 3 * 8 * 16 = 384 MACs (by hand).
    doc = insp.json()
    lin = next(m for m in doc["modules"] if m["path"] == "0")
    assert lin["macs"] == 384
    row = next(line for line in text.splitlines() if line.startswith("├─0"))
    assert str(lin["flops"]) in row.replace(",", "")
    _, page_doc = embedded(insp.to_html())
    assert page_doc["modules"][1]["flops"] == lin["flops"]


def test_text_table_readable_by_default():
    torch.manual_seed(0)
    model = convnet()
    x = torch.randn(2, 3, 16, 16)
    with nnscan.Inspector(model, static_inputs=x) as insp:
        model(x).sum().backward()
    text = insp.report()
    assert max(len(line) for line in text.splitlines()) <= 100
    # Bytes with units: the first conv's forward allocates its output,
    # 2 * 32 * 16 * 16 * 4 bytes = 64 KiB (by hand), shown with a unit.
    row = next(line for line in text.splitlines() if "─0" in line and
               "Conv2d" in line)
    assert re.search(r"\d+(\.\d+)? (B|KiB|MiB)", row)
    assert "64.0 KiB" in row


def test_summary_html_with_a_graph_name_that_is_not_utf8(tmp_path):
    """Issue 18: a graph name holding byte 0xff (and ESC) made
    Summary.to_html() raise UnicodeDecodeError: the <title> copied it raw."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    node = helper.make_node("Relu", ["x"], ["y"], name="r")
    g = helper.make_graph(
        [node], "gg", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])])
    data = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    # The graph name's bytes, same length: 0xff and ESC.
    assert data.count(b"\x12\x02gg") == 1
    # The page is titled after the file: an ESC in its name too.
    path = tmp_path / "bad\x1b]0;name.onnx"
    path.write_bytes(data.replace(b"\x12\x02gg", b"\x12\x02\xff\x1b"))
    page = nnscan.analyze(str(path)).to_html()  # decodes: no raw 0xff
    title = re.search(r"<title>(.*)</title>", page).group(1)
    assert "\x1b" not in title and "name" in title


def test_csv_keeps_raw_numbers_by_default():
    model = nn.Sequential(nn.Linear(64, 64))
    with nnscan.Inspector(model) as insp:
        model(torch.randn(8, 64))
    import csv
    rows = list(csv.reader(insp.report("csv").splitlines()))
    head, root = rows[0], rows[1]
    # Forward memory per pass in plain bytes: at least the 8 x 64 float32
    # output (2048 bytes, by hand), written as digits only.
    mem = root[head.index("forward_alloc_bytes")]
    assert mem.isdigit() and int(mem) >= 8 * 64 * 4
    assert "KiB" in insp.report("text") or "B " in insp.report("text")
