"""The model's own call replayed whole (module_replay.py; layer_groups.
_root): from a process's fourth summary of a model whose call returns
tensors, the summary adds the model's template (noted by the second
summary, verified by the third) instead of running its forward. Every
report is the one with every layer run (NNSCAN_MODULE_REPLAY=0); a
model whose call returns another object than tensors (alone, in a
tuple, or in a dict: a transformers model's output object), whose
layers' replays leave too little to save, that holds a hook, or that
changed since, runs."""
import types

import pytest
import torch
from torch import nn

from conftest import calls_counted, replay_reports
from nnscan import layer_groups, module_replay

# each summary records (not built from a kept recording: summary_memo.py)
pytestmark = pytest.mark.usefixtures("no_summary_memo")

T, D, H = 8, 16, 32  # tokens, width, hidden


class Conv(nn.Module):
    """A block no other is alike to (its widths): nothing replays it but
    the model's own replay."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.norm = nn.BatchNorm2d(c_out)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


WIDTHS = (3, 8, 16, 24, 16, 8)


class Net(nn.Module):
    """Five blocks of other widths, a pool and a head: 3x8x8 inputs."""

    def __init__(self, returns="tensor"):
        super().__init__()
        self.blocks = nn.Sequential(*(Conv(a, b) for a, b in
                                      zip(WIDTHS, WIDTHS[1:])))
        self.head = nn.Linear(8, 4)
        self.returns = returns

    def forward(self, x):
        y = self.head(self.blocks(x).mean((2, 3)))
        if self.returns == "dict":
            return {"logits": y, "features": y.relu()}
        if self.returns == "nested":
            return {"logits": y, "parts": {"pos": y.relu()}, "all": [y * 2]}
        if self.returns == "object":
            return types.SimpleNamespace(logits=y)
        if self.returns == "dict of other":
            return {"logits": y, "classes": 4}
        if self.returns == "tuple":
            return y, None
        return y


X = torch.zeros(2, 3, 8, 8)
# the convolutions' MACs (output elements times c_in * 9), the batch
# norms' (two per element, docs/metrics.md) and the head's
MACS = 2 * 8 * 8 * 9 * sum(a * b for a, b in zip(WIDTHS, WIDTHS[1:])) + \
    2 * (2 * 8 * 8 * sum(WIDTHS[1:])) + 2 * 8 * 4


def _paths():
    """calls_counted of the replays that returned an output, by path."""
    paths = []
    real = module_replay.Layers._replay

    def replay(self, path, *a):
        out = real(self, path, *a)
        if out is not None:
            paths.append(path)
        return out
    return paths, replay


def _summaries(model, x, n, monkeypatch):
    """The layers each of `n` summaries replayed (a fresh process's:
    nothing kept), each summary's reports checked against every layer
    run."""
    module_replay.forget()
    paths, replay = _paths()
    monkeypatch.setattr(module_replay.Layers, "_replay", replay)
    got = []
    for _ in range(n):
        del paths[:]
        on, s = replay_reports(model, x, True)
        assert on == replay_reports(model, x, False)[0]
        assert s.totals["macs"] == MACS
        got.append(list(paths))
    return got


@pytest.mark.parametrize("returns", ["tensor", "tuple", "dict", "nested"])
def test_a_model_replays_whole_from_its_fourth_summary(monkeypatch,
                                                       returns):
    got = _summaries(Net(returns).eval(), X, 6, monkeypatch)
    assert got == [[], [], [], [""], [""], [""]]


def test_a_replay_returns_what_the_model_returns(monkeypatch):
    # the dict made again: its keys in order, each a tensor of the
    # shape the forward's had
    model = Net("dict").eval()
    _summaries(model, X, 3, monkeypatch)
    got = {}
    real = module_replay.Layers._replay

    def replay(self, path, *a):
        out = real(self, path, *a)
        if path == "":
            got["out"] = out
        return out
    monkeypatch.setattr(module_replay.Layers, "_replay", replay)
    replay_reports(model, X, True)
    out = got["out"]
    assert type(out) is dict and list(out) == ["logits", "features"]
    assert [tuple(t.shape) for t in out.values()] == [(2, 4), (2, 4)]
    assert out["logits"] is not out["features"]


@pytest.mark.parametrize("returns", ["object", "dict of other"])
def test_a_model_returning_another_object_runs(monkeypatch, returns):
    with calls_counted(module_replay.Layers, "_seen") as noted:
        got = _summaries(Net(returns).eval(), X, 5, monkeypatch)
    assert got == [[]] * 5
    assert noted[0] == 0  # not even noted


def test_a_model_changed_since_runs_its_new_self(monkeypatch):
    model = Net().eval()
    _summaries(model, X, 4, monkeypatch)
    # a layer frozen, then a layer replaced: each a model of another
    # signature, whose reports are its own
    model.head.weight.requires_grad_(False)
    paths, replay = _paths()
    monkeypatch.setattr(module_replay.Layers, "_replay", replay)
    on, s = replay_reports(model, X, True)
    assert on == replay_reports(model, X, False)[0]
    assert "" not in paths
    assert s.totals["params"] == \
        sum(p.numel() for p in model.parameters() if p.requires_grad)
    model.blocks[1] = Conv(WIDTHS[1], WIDTHS[2]).eval()
    model.blocks[1].act = nn.GELU()
    del paths[:]
    on, s = replay_reports(model, X, True)
    assert on == replay_reports(model, X, False)[0]
    assert "" not in paths


def test_a_model_with_a_hook_runs(monkeypatch):
    # weight_norm's pre-hook computes the head's weight at each call (a
    # PyTorch hook: part of what the forward computes, kept while nnscan
    # records; a user's are not)
    model = Net().eval()
    nn.utils.weight_norm(model.head)
    got = _summaries(model, X, 5, monkeypatch)
    assert "" not in sum(got, [])


class Long(nn.Module):
    """A layer of many nodes (a product, a norm and 60 elementwise
    steps) and of modules enough to be replayed (layer_groups._LEAST)."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(D, D)
        self.norm = nn.LayerNorm(D)
        self.acts = nn.Sequential(*(nn.Tanh() for _ in range(4)))

    def forward(self, x):
        x = self.norm(self.up(x))
        for _ in range(12):
            x = self.acts(x) * 0.5
        return x


class Longs(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(Long() for _ in range(6))
        self.head = nn.Linear(D, 4)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def test_a_model_whose_layers_replay_all_but_a_few_nodes_runs(monkeypatch):
    # six layers alike replay from the first summary's template on; what
    # the model adds besides them (its head) and their six replays save
    # less than noting the model whole costs (module_replay._pays_whole,
    # as ViT's encoder layers): it is not noted, nor tried again
    _never_noted(Longs().eval(), torch.zeros(T, D), monkeypatch)


def _never_noted(model, x, monkeypatch):
    """Five summaries, each's reports those of every layer run: the
    model's own template is never made nor replayed, and the model is
    not tried again for its architecture."""
    module_replay.forget()
    real = module_replay.Layers._template
    whole = []

    def template(self, path, *a):
        whole.append(path == "")
        return real(self, path, *a)
    monkeypatch.setattr(module_replay.Layers, "_template", template)
    paths, replay = _paths()
    monkeypatch.setattr(module_replay.Layers, "_replay", replay)
    for _ in range(5):
        on, _ = replay_reports(model, x, True)
        assert on == replay_reports(model, x, False)[0]
    assert not any(whole) and "" not in paths
    arch = layer_groups.arch(list(model.named_modules()))
    assert "" in layer_groups._ARCHS[arch].small


def test_the_model_itself_is_off_where_layer_tests_turn_it_off(
        monkeypatch):
    monkeypatch.setattr(layer_groups, "ROOT", False)
    got = _summaries(Net().eval(), X, 5, monkeypatch)
    assert got == [[]] * 5


class Indexed(Net):
    """Net, its head reading the features at positions it computes from
    a buffer of its own (a real value: Swin's relative position index)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("index", torch.arange(4))

    def forward(self, x):
        y = self.blocks(x).mean((2, 3))
        at = self.index * 2  # made with a real value (tracked)
        return self.head(y)[:, at]


def test_a_model_holding_more_values_than_a_template_may_runs(monkeypatch):
    # what its template would keep for the process (the positions it
    # makes) is more than module_replay._PROCESS_BYTES allows: it is not
    # noted, its template not even made (Swin's model, 5 MB of them)
    monkeypatch.setattr(module_replay, "_PROCESS_BYTES", 8)
    _never_noted(Indexed().eval(), X, monkeypatch)


STEPS = {"relu": 1}  # how many times Shifting's forward applies its ReLU


class Shifting(Net):
    """Net whose forward reads a global (no attribute of its own tells):
    its graph differs from one summary to the next."""

    def forward(self, x):
        y = self.blocks(x).mean((2, 3))
        for _ in range(STEPS["relu"]):
            y = y.relu()
        return self.head(y)


def test_a_model_whose_templates_keep_differing_runs(monkeypatch):
    # noted by the second summary; the third's template differs, so it
    # is noted again (a layer below may have replayed since: module_
    # replay._verify_alone); the fourth's differs too: dropped, and never
    # replayed. Every report is that of the forward as it ran
    module_replay.forget()
    model = Shifting().eval()
    paths, replay = _paths()
    monkeypatch.setattr(module_replay.Layers, "_replay", replay)
    for k in range(6):
        monkeypatch.setitem(STEPS, "relu", 1 + k % 2)
        on, _ = replay_reports(model, X, True)
        assert on == replay_reports(model, X, False)[0]
    assert "" not in paths
    arch = layer_groups.arch(list(model.named_modules()))
    assert "" in layer_groups._ARCHS[arch].small


def test_an_output_keyed_type_is_described_as_any_dict():
    # a dict whose one key is "type" (structure.describe writes an
    # object other than a tensor so) holding a tensor is a dict of
    # tensors; one holding a cache's class name may be a cache
    t = {"dtype": "float32", "shape": [2]}
    assert layer_groups._tensors({"type": t})
    assert not layer_groups._tensors({"type": {"type": "SomeCache"}})
    assert layer_groups._tensors({"logits": t, "past": {"type": "SomeCache"}})
    assert not layer_groups._tensors({"logits": t, "n": {"type": "int"}})
