"""The seeds' own README examples, run through nnscan (docs/compat.md).

torchscan: `summary(densenet121(), (3, 224, 224), max_depth=2)`; thoplw:
`profile(resnet18(), tensor=torch.randn(1, 3, 224, 224))` then
`layers_info.summary()` in each kind and format. The figures the seeds'
READMEs print are kept below as data (row -> numbers); every one either
equals nnscan's or differs exactly as docs/compat.md says, which the test
recomputes from PyTorch itself (buffers, num_batches_tracked, out_features)
and from nnscan's per-layer rows.
"""
import csv
import io
import re

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

import nnscan  # noqa: E402

# torchscan README, densenet121, max_depth=2: row -> (type, output shape
# without batch, Param #). Root and `features` print 0 (own parameters).
TORCHSCAN_DENSENET = {
    "densenet": ("DenseNet", (1000,), 0),
    "features": ("Sequential", (1024, 7, 7), 0),
    "conv0": ("Conv2d", (64, 112, 112), 9408),
    "norm0": ("BatchNorm2d", (64, 112, 112), 257),
    "relu0": ("ReLU", (64, 112, 112), 0),
    "pool0": ("MaxPool2d", (64, 56, 56), 0),
    "denseblock1": ("_DenseBlock", (256, 56, 56), 338316),
    "transition1": ("_Transition", (128, 28, 28), 33793),
    "denseblock2": ("_DenseBlock", (512, 28, 28), 930072),
    "transition2": ("_Transition", (256, 14, 14), 133121),
    "denseblock3": ("_DenseBlock", (1024, 14, 14), 2873904),
    "transition3": ("_Transition", (512, 7, 7), 528385),
    "denseblock4": ("_DenseBlock", (1024, 7, 7), 2186272),
    "norm5": ("BatchNorm2d", (1024, 7, 7), 4097),
    "classifier": ("Linear", (1000,), 1025000),
}
TORCHSCAN_DENSENET_FOOTER = {"trainable": 7978856, "non_trainable": 0,
                             "total": 7978856, "size_mb": 30.76,
                             "gflops": 5.74, "gmacs": 2.87, "gdmas": 2.90}

# thoplw README, resnet18: row -> (class, input, output, MACs, Params)
THOPLW_RESNET18 = {
    "conv1": ("Conv2d", "3 x 224 x 224", "64 x 112 x 112", 118013952, 9408),
    "bn1": ("BatchNorm2d", "64 x 112 x 112", "64 x 112 x 112", 3211264, 256),
    "relu": ("ReLU", "64 x 112 x 112", "64 x 112 x 112", 0, 0),
    "maxpool": ("MaxPool2d", "64 x 112 x 112", "64 x 56 x 56", 0, 0),
    "layer4.1.conv2": ("Conv2d", "512 x 7 x 7", "512 x 7 x 7", 115605504, 2359296),
    "layer4.1.bn2": ("BatchNorm2d", "512 x 7 x 7", "512 x 7 x 7", 100352, 2048),
    "avgpool": ("AdaptiveAvgPool2d", "512 x 7 x 7", "512 x 1 x 1", 1024, 0),
    "fc": ("Linear", "512", "1000", 513000, 513000),
}
THOPLW_RESNET18_TOTAL = ("ResNet", "3 x 224 x 224", "1000", 1824010216, 11699112)


def _row_text(text, name):
    for line in text.splitlines():
        cells = line.split()
        if len(cells) > 1 and cells[0] in "├└│" and name in cells:
            return line
        if line.lstrip("│ ├└─").startswith(name + " "):
            return line
    raise AssertionError(f"no row {name}")


def test_torchscan_densenet121_readme(capsys):
    torch.manual_seed(0)
    model = torchvision.models.densenet121().eval()
    s = nnscan.summary(model, (3, 224, 224), max_depth=2)
    printed = capsys.readouterr().out
    assert printed == s.to_text() + ("" if s.to_text().endswith("\n") else "\n")
    head = printed.splitlines()[1]
    assert re.match(r"Layer\s+Type\s+Output Shape\s+Param #$", head)
    mods = dict(model.named_modules())
    paths = {p.rpartition(".")[2] or "densenet": p for p in mods
             if p.count(".") < 2}
    for name, (typ, shape, their_params) in TORCHSCAN_DENSENET.items():
        path = paths[name] if name != "densenet" else ""
        row = s.layer(path)
        assert row["type"] == typ, name
        assert tuple(row["output"]["shape"]) == (1,) + shape, name
        # torchscan's root row is "densenet"; nnscan's the class as
        # written (docs/cli.md, "Model names"; docs/compat.md)
        line = _row_text(printed, "DenseNet" if name == "densenet" else name)
        assert typ in line and "(1, " + ", ".join(map(str, shape)) in line
        m = mods[path]
        if name in ("densenet", "features"):
            # torchscan prints a non-cut container's own parameters (none);
            # nnscan prints its subtree's
            assert their_params == sum(p.numel() for p in m.parameters(recurse=False))
            assert row["params"] == sum(p.numel() for p in m.parameters())
            continue
        # torchscan's Param # = parameters + buffers (num_batches_tracked
        # included); nnscan's = trainable parameters (buffers in the footer)
        bufs = sum(b.numel() for b in m.buffers())
        assert their_params == row["params"] + bufs, name
        assert f"{row['params']:,}" in line
    t = s.totals
    f = TORCHSCAN_DENSENET_FOOTER
    assert t["params"] == f["trainable"]
    assert f"Trainable params: {f['trainable']:,}" in printed
    # buffers are non-trainable state in nnscan (torchscan leaves them out)
    assert t["buffers"] == sum(b.numel() for n, b in model.named_buffers()
                               if not n.endswith("num_batches_tracked"))
    assert round(t["flops"] / 1e9, 2) == f["gflops"]
    assert round(t["macs"] / 1e9, 2) == f["gmacs"]
    assert round(t["param_bytes"] / 2**20, 1) == round(f["size_mb"], 1)
    # DMAs differ: see docs/compat.md (nnscan 2.93 G)
    assert round(t["dmas"] / 1e9, 2) != f["gdmas"]


@pytest.fixture(scope="module")
def resnet18_profile():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    return model, nnscan.profile(model, tensor=torch.randn(1, 3, 224, 224),
                                 verbose=False)


def test_thoplw_resnet18_numbers(resnet18_profile):
    model, (macs, params, info) = resnet18_profile
    rows = {r[0]: r for r in info.rows}
    mods = dict(model.named_modules())
    for name, (cls, shp_in, shp_out, their_macs, their_params) in \
            THOPLW_RESNET18.items():
        _, c, i, o, ours, p = rows[name]
        assert (c, i, o, p) == (cls, shp_in, shp_out, their_params), name
        m = mods[name]
        if cls == "BatchNorm2d":
            assert their_macs == 2 * ours      # thoplw: 4 per element, nnscan 2
        elif cls == "MaxPool2d":
            assert their_macs == 0 and ours == 64 * 56 * 56 * 8  # k-1 compares
        elif cls == "AdaptiveAvgPool2d":
            assert their_macs == 2 * 512 and ours == 512 * (49 - 1 + 2)
        elif cls == "Linear":
            assert their_macs == ours + m.out_features  # thoplw adds the bias
        else:
            assert their_macs == ours, name
    cls, i, o, their_total, their_params = THOPLW_RESNET18_TOTAL
    assert params == their_params
    bn = sum(r[4] for r in info.rows if r[1] == "BatchNorm2d")
    assert their_total - macs == bn - rows["maxpool"][4] - rows["avgpool"][4] \
        + 1024 + 1000
    total = info.summary().splitlines()[-1]
    assert total.split("|")[1:6] == [" Total                 ", " ResNet            ",
                                     " 3 x 224 x 224  ", " 1000           ",
                                     f" {macs} "]


@pytest.mark.parametrize("kind", ["text", "csv", "md"])
@pytest.mark.parametrize("fmt", ["raw", "clever", "ratio"])
def test_thoplw_summary_kinds_and_formats(resnet18_profile, kind, fmt):
    model, (macs, params, info) = resnet18_profile
    out = info.summary(kind=kind, fmt=fmt)
    if kind == "csv":
        table = list(csv.reader(io.StringIO(out)))
    else:
        lines = [l for l in out.splitlines() if not l.startswith(("+", "|-"))]
        table = [[c.strip() for c in l.strip("|").split("|")] for l in lines]
        widths = {len(l) for l in out.splitlines()}
        assert len(widths) == 1  # every line padded to the same columns
    assert table[0] == ["Name", "Class", "Input shape", "Output shape", "MACs",
                        "Params"]
    assert [r[0] for r in table[1:-1]] == [r[0] for r in info.rows]
    assert table[-1][:2] == ["Total", "ResNet"]
    conv1 = table[1]
    if fmt == "raw":
        assert conv1[4:] == ["118013952", "9408"]
        assert table[-1][4:] == [str(macs), str(params)]
    elif fmt == "clever":
        assert conv1[4:] == ["118.01M", "9.41K"]
        assert table[-1][4:] == list(nnscan.clever_format([macs, params]))
    else:
        assert conv1[4].strip() == ("%5.2f %%" % (100 * 118013952 / macs)).strip()
        assert table[-1][4:] == list(nnscan.clever_format([macs, params]))


def test_clever_format_as_thop():
    assert nnscan.clever_format(1824010216) == "1.82G"
    assert nnscan.clever_format([11699112, 512], "%.3f") == ("11.699M", "512.000B")
    assert nnscan.clever_format(2e12) == "2.00T"
    assert nnscan.clever_format(1000) == "1000.00B"  # thop: strictly greater
    assert nnscan.clever_format([1001, 5e15], "%.1f") == ("1.0K", "5000.0T")
    assert nnscan.clever_format(1824010216, "%f") == "1.824010G"
    assert nnscan.clever_format(1824010216, "%.0f") == "2G"
    assert nnscan.clever_format(float("nan")) == "nanB"
    assert nnscan.clever_format(1824010216, "%8.2f") == "    1.82G"


@pytest.mark.parametrize("fmt", ["%06.2f", "%.2e", "%d", "%.21f", "x%.2f",
                                 "%.2f ", "%-.2f", "%65.2f", "%s"])
def test_clever_format_refuses_what_it_cannot_print(fmt):
    with pytest.raises(ValueError, match="%.<digits>f"):
        nnscan.clever_format(1000, fmt)
