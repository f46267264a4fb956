"""Recording live torchvision models, checked against PyTorch itself.

For every fixture model of tools/make_fixtures.py (built the same way,
randomly initialised):
  - parameters == sum(p.numel()) of the parameters its forward uses
    (<model>.ref.json, measured by PyTorch with a backward pass);
  - MACs within 0.5 % of tools/make_costs.py's independent aten dispatch
    count (<model>.costs.json);
  - per-module output shapes equal the forward hooks' (<model>.ref.json),
    the layers' outputs their first call's;
  - nothing left uncounted.
And, where the ONNX path is exact, the same totals as the ONNX export of the
same model analysed by the library.
"""
import os
import sys
import warnings

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

import nnscan  # noqa: E402
from conftest import ROOT, model_refs  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
import make_fixtures  # noqa: E402

MODELS = list(make_fixtures.MODELS)


class no_init:
    """Skips torch.nn.init while models are built: the weights' values do
    not matter here, and filling 140M random numbers takes seconds."""

    def __enter__(self):
        self.saved = {}
        for n in dir(torch.nn.init):
            f = getattr(torch.nn.init, n)
            if n.endswith("_") and not n.startswith("_") and callable(f):
                self.saved[n] = f
                setattr(torch.nn.init, n, lambda t, *a, **k: t)

    def __exit__(self, *exc):
        for n, f in self.saved.items():
            setattr(torch.nn.init, n, f)


def build(name):
    kwargs, hw = make_fixtures.MODELS[name]
    with warnings.catch_warnings(), no_init():
        warnings.simplefilter("ignore")
        model = getattr(torchvision.models, name)(weights=None, **kwargs)
    return model.eval(), (3, hw, hw)


@pytest.fixture(scope="module")
def summaries():
    out = {}
    for name in make_fixtures.MODELS:
        model, shape = build(name)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a silent fallback would show here
            s = nnscan.summary(model, shape, file=False)
        out[name] = (model, s)
    return out


@pytest.mark.parametrize("name", MODELS)
def test_params_macs_shapes(summaries, fixtures_dir, name):
    model, s = summaries[name]
    ref, costs = model_refs(name)
    assert s.device == "meta"
    assert s.totals["params"] == ref["total_params_used"]
    want = costs["macs_dispatch_total"]
    assert abs(s.totals["macs"] - want) <= 0.005 * want, (s.totals["macs"], want)
    assert s.json["uncounted_ops"] == [] and s.uncounted_aten == {}
    # output shape of every module's first call, as forward hooks saw it
    layers = {row["path"]: row for row in s.layers}
    for mod in ref["modules"]:
        got = s.modules[mod["name"]]
        assert got["type"] == mod["type"]
        assert got["calls"] == mod["calls"], mod["name"]
        if mod["calls"] == 0:
            continue
        assert got["output_shapes"] == mod["output_shapes"], mod["name"]
        # parameters the module's subtree uses, as PyTorch counted them
        row = layers.get(mod["name"])
        assert (row["params"] if row else 0) == mod["params"], mod["name"]
        # the layer's output (the tables' Output Shape, JSON's `output`)
        # is the first call's too: Bottleneck.relu runs on 64, then 256
        # channels
        if row and mod["output_shapes"]:
            assert row["output"]["shape"] == mod["output_shapes"][0], \
                mod["name"]


# Models whose ONNX export spells every op as the recording does: all five
# counts equal. The others' exports use other ops for the same work (GELU
# as Div+Erf+Add+Mul+Mul: 10 FLOPs per element against Gelu's 8; extra
# Gather/Unsqueeze/Concat/Transpose copies that move memory), so FLOPs and
# DMAs differ there; parameters and MACs never do.
SAME_OPS = {"alexnet", "vgg11", "vgg13", "vgg16", "vgg19", "resnet18",
            "resnet50", "googlenet", "mobilenet_v2", "efficientnet_b0"}


@pytest.mark.parametrize("name", MODELS)
def test_equal_to_onnx_path(summaries, fixtures_dir, name):
    """The library's counts of torch.onnx's export of the same model
    (tests/fixtures/models/<model>_op17_nofold.onnx: opset 17, BatchNorm
    kept) equal the recording's."""
    _, s = summaries[name]
    o = nnscan.analyze(os.path.join(fixtures_dir, name + "_op17_nofold.onnx"))
    keys = ("params", "buffers", "flops", "macs", "dmas") if name in SAME_OPS \
        else ("params", "macs")
    for key in keys:
        assert s.totals[key] == o.totals[key], key


def test_layers_are_modules(summaries):
    _, s = summaries["resnet18"]
    row = s.layer("layer1.0")
    assert row["type"] == "BasicBlock"
    assert s.layer("layer1.0.conv1")["type"] == "Conv2d"
    assert s.modules["layer1.0.relu"]["calls"] == 2  # one row, two calls
    assert s.layer("layer1.0.conv1")["macs"] == 64 * 56 * 56 * 64 * 9


def test_method_onnx_matches_record(summaries):
    model, s = summaries["resnet18"]
    o = nnscan.summary(model, (3, 224, 224), method="onnx", file=False)
    for key in ("params", "buffers", "flops", "macs", "dmas"):
        assert o.totals[key] == s.totals[key], key
