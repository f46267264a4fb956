"""Repeated layers replayed (nnscan/module_replay.py): the third and later
calls of layers alike add the template the first two added, renamed,
instead of running. Every report is the same as with every call run
(NNSCAN_MODULE_REPLAY=0), the counts are those by hand, and whatever
could make a layer's call add something else keeps it running: an
attribute that differs, an argument written in place, a tensor from
outside the layer, a weight shared between layers, a hook."""
import functools
import time

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import nnscan
from conftest import calls_counted, in_threads, layers_replayed, \
    replay_reports
from nnscan import layer_groups, module_replay

# each summary records (not built from a kept recording: summary_memo.py)
pytestmark = pytest.mark.usefixtures("no_summary_memo")

T, D, H = 8, 16, 32  # tokens, width, hidden

class Block(nn.Module):
    """x + drop(W2 f(W1 LN(x))) / 2: 2*T*D*H MACs and the rest
    elementwise; six modules (layer_groups._LEAST)."""

    def __init__(self, act=True):
        super().__init__()
        self.norm = nn.LayerNorm(D)
        self.up = nn.Linear(D, H)
        self.relu = nn.ReLU()
        self.down = nn.Linear(H, D)
        self.drop = nn.Dropout(0.1)
        self.act = act

    def forward(self, x):
        h = self.up(self.norm(x))
        if self.act:
            h = self.relu(h)
        h = torch.tanh(h * 0.5) - h.sigmoid()
        return x + self.drop(self.down(h)) / 2


class Stack(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.blocks = nn.ModuleList(blocks)
        self.head = nn.Linear(D, 4)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


class Writes(Block):
    def forward(self, x):
        x.mul_(2)  # the caller's tensor, in place
        return super().forward(x)


OUTSIDE = torch.ones(D, device="meta")  # a global the meta forward reads


class ReadsOutside(Block):
    def forward(self, x):
        return super().forward(x) * OUTSIDE


# the shipped threshold, before the fixture below lowers it
MIN_GROUP_NODES = module_replay._MIN_GROUP_NODES


@pytest.fixture(autouse=True)
def _every_layer_pays(monkeypatch):
    """Groups are dropped for later summaries when their layers make too
    few nodes for replays to pay (_MIN_GROUP_NODES); here none is, but
    where a test says so. The model's own call is no candidate here: these
    tests count the layers below it (test_model_replay.py replays it)."""
    monkeypatch.setattr(module_replay, "_MIN_GROUP_NODES", 0)
    monkeypatch.setattr(layer_groups, "ROOT", False)


def _reports(model, x, on):
    reports, s = replay_reports(model, x, on)
    return reports + (s.totals["macs"],)


def _same(model, x, replayed):
    torch.manual_seed(0)
    module_replay.forget()  # the templates earlier tests kept
    with layers_replayed() as count:
        on = _reports(model, x, True)
    assert count[0] == replayed
    off = _reports(model, x, False)
    assert on[:4] == off[:4]
    return on[4]


def _again(model, x, replayed):
    """A later summary (the templates the last one kept): the layers it
    replays, and its reports the same as with every layer run."""
    with layers_replayed() as count:
        on = _reports(model, x, True)
    assert count[0] == replayed
    assert on[:4] == _reports(model, x, False)[:4]
    return on


def test_layers_alike_replay_from_the_third():
    model = Stack([Block() for _ in range(6)]).eval()
    macs = _same(model, torch.zeros(T, D), replayed=4)
    assert macs >= 6 * 2 * T * D * H + T * D * 4
    assert macs == nnscan.summary(Stack([Block()]).eval(), inputs=torch.zeros(
        T, D), file=False).totals["macs"] + 5 * 2 * T * D * H + \
        5 * _elementwise_macs()


def _elementwise_macs():
    """What one block counts beyond its two products, by difference."""
    one = nnscan.summary(Stack([Block()]).eval(), inputs=torch.zeros(T, D),
                         file=False).totals["macs"]
    two = nnscan.summary(Stack([Block(), Block()]).eval(),
                         inputs=torch.zeros(T, D), file=False).totals["macs"]
    return two - one - 2 * T * D * H


@pytest.mark.parametrize("layers", [6, 2])
def test_a_later_summary_replays_every_layer_alike(layers):
    # two calls verified the template in the first summary: it holds for
    # the process (the layers' attributes are all numbers), so the next
    # summary replays from the first call; the reports stay the same. Two
    # layers alike (transformers' tiny configs) are a group too: both
    # calls make the template, a later summary replays both
    model = Stack([Block() for _ in range(layers)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=layers - 2)
    _again(model, x, layers)


class Configured(Block):
    """A block holding an object (a config): compared by identity, so
    its template holds within one recording only."""

    def __init__(self, config):
        super().__init__()
        self.config = config


def test_a_layer_holding_an_object_is_replayed_within_its_recording():
    config = object()
    model = Stack([Configured(config) for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=3)
    with layers_replayed() as count:
        _reports(model, x, True)
    assert count[0] == 3


class Settings:
    """A plain data object, as transformers' PretrainedConfig: numbers,
    strings, lists and dicts (of int keys too: id2label)."""

    def __init__(self, act=True):
        self.act = act
        self.sizes = [D, H]
        self.id2label = {0: "a", 1: "b"}
        self.rope = {"theta": 1e4, "kind": "default"}


class ReadsSettings(Block):
    """A block whose forward reads a value of the object it holds."""

    def __init__(self, settings):
        super().__init__()
        self.settings = settings

    def forward(self, x):
        self.act = self.settings.act
        return super().forward(x)


def test_a_plain_object_compares_by_its_values():
    # each layer holds its own Settings, equal in value: alike, and the
    # template holds for the process, as for layers of numbers only
    model = Stack([ReadsSettings(Settings()) for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=3)
    _again(model, x, 5)


def test_a_value_of_a_plain_object_changed_since_is_seen():
    shared = Settings()
    model = Stack([ReadsSettings(shared) for _ in range(4)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=2)
    _again(model, x, 4)
    shared.act = False  # read by every forward: another template
    with layers_replayed() as count:
        on = _reports(model, x, True)
    assert count[0] == 2  # the new template verified by two calls first
    off = _reports(model, x, False)
    assert on[:4] == off[:4]
    assert "Relu" not in on[1]  # not the template of act=True
    assert "Relu" in _reports(Stack([ReadsSettings(Settings())
                                     for _ in range(4)]).eval(), x, False)[1]


class Scaled(Block):
    """A Block whose forward reads a class attribute."""
    times = 1

    def forward(self, x):
        for _ in range(self.times):
            x = super().forward(x)
        return x


def test_a_class_attribute_or_method_rebound_since_is_seen(monkeypatch):
    # a template holds for the process; a class attribute the forward
    # reads, or a method, rebound since (a forward patched to try another
    # attention) makes another (its layers replayed the old one: half the
    # products)
    model = Stack([Scaled() for _ in range(4)]).eval()
    x = torch.zeros(T, D)
    once = _same(model, x, replayed=2)
    _again(model, x, 4)
    monkeypatch.setattr(Scaled, "times", 2)
    with layers_replayed() as count:
        on = _reports(model, x, True)
    assert count[0] == 2  # the new template verified by two calls first
    assert on[:4] == _reports(model, x, False)[:4]
    assert on[4] - once == 4 * (2 * T * D * H + _elementwise_macs())
    _again(model, x, 4)
    monkeypatch.setattr(Block, "forward",
                        lambda self, x: self.down(self.up(x)))
    with layers_replayed() as count:
        on = _reports(model, x, True)
    assert count[0] == 2  # a base's method: another template too
    assert on[:4] == _reports(model, x, False)[:4]
    # two products a call, twice a layer; the head
    assert on[4] == 4 * 2 * 2 * T * D * H + T * D * 4
    assert "Tanh" not in on[1]


def test_values_the_object_cannot_compare_by_keep_its_identity():
    from nnscan import layer_groups
    plain = Settings()
    assert layer_groups._plain_object(plain) == \
        layer_groups._plain_object(Settings())
    assert layer_groups._plain_object(plain) != \
        layer_groups._plain_object(Settings(act=False))
    for odd in (object(), lambda: 0, nn.Linear(2, 2), torch.zeros(2),
                {(1, 2): 3}, [object()]):
        held = Settings()
        held.odd = odd
        assert layer_groups._plain_object(held) is None, odd
    deep = Settings()
    for _ in range(layer_groups._PLAIN_DEPTH + 2):
        deep = {"in": deep}
    assert layer_groups._plain_object(deep) is None
    wide = Settings()
    wide.sizes = list(range(layer_groups._PLAIN_ITEMS // 2))
    assert layer_groups._plain_object(wide) is not None
    wide.sizes = list(range(layer_groups._PLAIN_ITEMS + 1))
    assert layer_groups._plain_object(wide) is None


class Alternates(Block):
    """A block adding a ReLU every other call (a count of its class's,
    no attribute of its own)."""
    calls = 0

    def forward(self, x):
        Alternates.calls += 1
        x = super().forward(x)
        return x.relu() if Alternates.calls % 2 else x


def _noted(model, x, first):
    """The calls a first summary notes (`first`) and a later one: none
    (a pair that cannot be replayed is not noted again)."""
    for summary, noted_there in ((_same, first), (_again, 0)):
        with calls_counted(module_replay.Layers, "_seen") as noted:
            summary(model, x, 0)
        assert noted[0] == noted_there


def test_a_pair_whose_template_would_hold_for_its_recording_is_not_noted():
    # an object compared by identity: the template would hold for one
    # recording, which has no third call to replay; the pair is not noted
    x = torch.zeros(T, D)
    config = object()
    _noted(Stack([Configured(config) for _ in range(2)]).eval(), x, 0)
    # nor are two layers whose templates differ noted again: no third
    # call to agree with either
    _noted(Stack([Alternates(), Alternates()]).eval(), x, 2)
    # nor two layers called on arguments of two sizes: two keys, none of
    # which a second call verifies (the second is not even noted)
    _noted(Shrinking([Block(), Block()]).eval(), x, 1)


class Shrinking(Stack):
    """Each block given one token fewer than the last."""

    def forward(self, x):
        for b in self.blocks:
            x = b(x)[1:]
        return self.head(x)


class Deeper(Block):
    """A block whose drop rate grows with depth, as stochastic depth's."""

    def __init__(self, rate, dropout=nn.Dropout):
        super().__init__()
        self.drop = dropout(rate)


class ReadsRate(nn.Dropout):
    """A dropout of its own, whose forward reads the rate in eval too."""

    def forward(self, x):
        return x * (1 - self.p)


def test_a_drop_rate_is_no_difference_in_eval():
    model = Stack([Deeper(k / 10) for k in range(5)]).eval()
    _same(model, torch.zeros(T, D), replayed=3)


def test_a_rate_read_in_eval_keeps_layers_apart():
    model = Stack([Deeper(k / 10, ReadsRate) for k in range(5)]).eval()
    _same(model, torch.zeros(T, D), replayed=0)


def test_an_attribute_that_differs_keeps_its_layer_apart():
    # the last block has no activation: alike in parameters, not in forward
    model = Stack([Block() for _ in range(4)] + [Block(act=False)]).eval()
    _same(model, torch.zeros(T, D), replayed=2)
    # a later summary replays the four from their first call; the fifth,
    # alike to none, once a third summary verified the template the
    # second noted (the architecture's first recording notes none)
    _again(model, torch.zeros(T, D), 4)
    _again(model, torch.zeros(T, D), 4)
    _again(model, torch.zeros(T, D), 5)


def test_a_layer_alike_to_none_replays_from_the_fourth_summary():
    # gemma2's and gpt-oss's two layers, one of sliding attention and one
    # of full: each alone in its group. One call a summary: the
    # architecture's first recording notes nothing (a model kept by
    # summary_memo is built from its third summary, and never replays
    # such a layer: its first summary pays nothing for one), the second
    # notes the template, the third verifies it (the same, relative to
    # its numbers and path), the fourth replays
    x = torch.zeros(T, D)
    model = Stack([Block(), Block(act=False)]).eval()
    _same(model, x, replayed=0)
    _again(model, x, 0)
    _again(model, x, 0)
    _again(model, x, 2)
    # a model of another architecture holding layers alike to those (their
    # signature and the call's key) replays them from its first summary
    other = Shrinking([Block(act=False), Block()]).eval()
    with layers_replayed() as count:
        nnscan.summary(other, inputs=x, file=False)
    assert count[0] == 1  # the second is called on one token fewer


class Sized(Block):
    """A block given its input's sizes as a torch.Size (BEiT's
    `resolution`)."""

    def forward(self, x, size=None):
        return super().forward(x).reshape(size)


class SizedStack(Stack):
    def forward(self, x):
        for b in self.blocks:
            x = b(x, size=x.shape)
        return self.head(x)


def test_a_torch_size_argument_keys_by_its_items():
    x = torch.zeros(T, D)
    _same(SizedStack([Sized() for _ in range(4)]).eval(), x, replayed=2)


# Flips' calls: a global its forward reads, which no signature holds (a
# class attribute would be: layer_groups._class_key)
FLIPS = {"calls": 0}


class Flips(Block):
    """A block whose forward adds a ReLU at the third call of any Flips
    (a count of the module's globals, no attribute of its own)."""

    def forward(self, x):
        FLIPS["calls"] += 1
        x = super().forward(x)
        return x.relu() if FLIPS["calls"] == 3 else x


def test_a_lone_layer_whose_template_differs_is_not_replayed():
    # the second summary's call adds another template than the first's:
    # the layer runs in every later summary, and is not noted again
    x = torch.zeros(T, D)
    model = Stack([Flips(), Flips(act=False)]).eval()
    FLIPS["calls"] = 0
    module_replay.forget()
    counts = []
    for _ in range(4):
        was = FLIPS["calls"]
        with calls_counted(module_replay.Layers, "_seen") as noted, \
                layers_replayed() as replayed:
            on = _reports(model, x, True)
        counts.append((replayed[0], noted[0]))
        FLIPS["calls"] = was  # the same calls again, every layer run
        assert on[:4] == _reports(model, x, False)[:4]
    # calls 1 and 2 noted by none (the architecture's first recording),
    # then 3 and 4, 5 and 6: the first block's templates differ (a ReLU,
    # then none), so it is noted twice, then runs; the second's are the
    # same, and it replays from the fourth summary
    assert counts == [(0, 0), (0, 2), (0, 2), (1, 0)]


def test_a_lone_layer_holding_an_object_is_not_noted():
    # an attribute compared by identity: its template would hold for one
    # recording, which calls it once
    x = torch.zeros(T, D)
    model = Stack([Configured(object()), Configured(object())]).eval()
    module_replay.forget()
    for _ in range(3):
        with calls_counted(module_replay.Layers, "_seen") as noted, \
                layers_replayed() as replayed:
            nnscan.summary(model, inputs=x, file=False)
        assert (noted[0], replayed[0]) == (0, 0)


class Encoder(nn.Module):
    """Two blocks alike under one container of its own width (CLIP's
    text and vision encoders: alike at a glance, not whole)."""

    def __init__(self, act):
        super().__init__()
        self.blocks = nn.ModuleList([Block(act), Block(act)])
        self.act = act

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


class Towers(nn.Module):
    def __init__(self):
        super().__init__()
        self.text, self.image = Encoder(True), Encoder(False)

    def forward(self, x):
        return self.text(x) + self.image(x)


def test_a_lone_container_replays_over_layers_alike_below():
    # each encoder is alike to none; the blocks below are pairs, which a
    # later summary replays from their first call: they replay inside
    # the encoders while those note their templates (second summary: a
    # first pays nothing for them) and verify them (third), then each
    # encoder replays whole, its blocks' module calls and shapes
    # included; every report as every layer run
    model, x = Towers().eval(), torch.zeros(T, D)
    with calls_counted(module_replay.Layers, "_seen") as noted:
        _same(model, x, replayed=0)
    assert noted[0] == 4  # the blocks' alone
    for _ in range(2):
        with calls_counted(module_replay.Layers, "_seen") as noted:
            _again(model, x, 4)
        assert noted[0] == 2  # the encoders'
    for _ in range(2):
        with calls_counted(module_replay.Layers, "_seen") as noted:
            _again(model, x, 2)
        assert noted[0] == 0


def test_a_lone_container_dropped_leaves_its_layers_replaying():
    # the encoders dropped (as module_replay drops a layer whose
    # templates differ): the blocks below them replay all the same
    model, x = Towers().eval(), torch.zeros(T, D)
    _same(model, x, replayed=0)
    _again(model, x, 4)
    layer_groups.drop(next(iter(layer_groups._ARCHS)), ["text", "image"])
    for _ in range(2):
        with calls_counted(module_replay.Layers, "_seen") as noted:
            _again(model, x, 4)
        assert noted[0] == 0


class Activated(Block):
    """A block holding its own activation function object, as
    transformers' GELUTanh holds partial(F.gelu, approximate="tanh")."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(super().forward(x))


def test_a_partial_of_a_function_compares_by_what_it_calls():
    # each block its own partial object: alike where the function and its
    # arguments are, and a later summary replays every layer
    def gelu():
        return functools.partial(F.gelu, approximate="tanh")
    model = Stack([Activated(gelu()) for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=3)
    with layers_replayed() as count:
        _reports(model, x, True)
    assert count[0] == 5


@pytest.mark.parametrize("dims, first, later", [((0, 1), 3, 5),
                                               ([0, 1], 0, 0)])
def test_a_partials_tuple_argument_compares_by_its_items(dims, first,
                                                         later):
    # FNet's partial(torch.fft.fftn, dim=(1, 2)), one per layer: a tuple
    # of numbers compares by its items, and a later summary replays every
    # layer; a list (which a layer could change) keeps its identity, so
    # layers each holding their own are not alike
    model = Stack([Activated(functools.partial(torch.flip, dims=dims))
                   for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=first)
    _again(model, x, later)


def test_partials_of_other_arguments_keep_layers_apart():
    kinds = ["tanh", "none", "tanh", "none", "tanh"]
    model = Stack([Activated(functools.partial(F.gelu, approximate=k))
                   for k in kinds]).eval()
    _same(model, torch.zeros(T, D), replayed=1)  # the third "tanh"


def test_a_partial_of_a_closure_compares_by_identity():
    # a closure may hold anything: within one recording only
    def scale(x, k):
        return x * k
    model = Stack([Activated(functools.partial(scale, k=2.0))
                   for _ in range(5)]).eval()
    _same(model, torch.zeros(T, D), replayed=0)


class Pairs(Block):
    """A block returning a tuple, as transformers' older layers return
    (hidden states, attention weights or None)."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        y = super().forward(x)
        if self.kind == "none":
            return y, None
        if self.kind == "weights":
            return y, torch.softmax(y @ y.transpose(0, 1), -1)
        if self.kind == "twice":
            return y, y
        return y, 1  # another object


class Firsts(Stack):
    def forward(self, x):
        for b in self.blocks:
            x = b(x)[0]
        return self.head(x)


@pytest.mark.parametrize("kind, replayed", [
    ("none", 3), ("weights", 3), ("twice", 0), ("number", 0)])
def test_a_layer_returning_a_tuple(kind, replayed):
    # tensors, each once, and Nones: the template makes each again
    _same(Firsts([Pairs(kind) for _ in range(5)]).eval(), torch.zeros(T, D),
          replayed=replayed)


def test_a_layer_writing_its_argument_runs():
    model = Stack([Writes() for _ in range(4)]).eval()
    _same(model, torch.zeros(T, D), replayed=0)
    # and a later summary of the architecture does not note its calls
    noted = []
    seen = module_replay.Layers._seen
    module_replay.Layers._seen = lambda self, *a: noted.append(1)
    try:
        _reports(model, torch.zeros(T, D), True)
    finally:
        module_replay.Layers._seen = seen
    assert noted == []


def test_a_layer_reading_a_tensor_from_outside_runs():
    _same(Stack([ReadsOutside() for _ in range(4)]).eval(),
          torch.zeros(T, D), replayed=0)


def test_a_shared_weight_is_not_replayed_under_another_name():
    blocks = [Block() for _ in range(4)]
    for b in blocks[1:]:
        b.up.weight = blocks[0].up.weight  # tied: named at its first path
    _same(Stack(blocks).eval(), torch.zeros(T, D), replayed=0)


def test_a_hook_of_the_model_inside_a_layer_runs_every_time():
    # weight_norm's pre-hook computes up.weight from g and v at each call
    # (a PyTorch hook: part of what the forward computes, kept while
    # nnscan records; a user's are not)
    blocks = [Block() for _ in range(5)]
    for b in blocks:
        nn.utils.weight_norm(b.up)
    _same(Stack(blocks).eval(), torch.zeros(T, D), replayed=0)


def test_a_model_on_meta_is_left_as_it_was():
    model = Stack([Block() for _ in range(5)]).eval().to("meta")
    before = {n: dict(vars(m)) for n, m in model.named_modules()}
    _same(model, torch.zeros(T, D, device="meta"), replayed=3)
    after = {n: dict(vars(m)) for n, m in model.named_modules()}
    assert after == before
    assert not any("forward" in vars(m) for m in model.modules())


def test_backward_runs_every_call():
    model = Stack([Block() for _ in range(5)]).eval()
    with layers_replayed() as count:
        nnscan.summary(model, inputs=torch.zeros(T, D), file=False,
                       backward=True)
    assert count[0] == 0


@pytest.mark.skipif(not hasattr(torch.Tensor, "untyped_storage"),
                    reason="training=True needs PyTorch 2.x")
def test_training_runs_every_call():
    model = Stack([Block() for _ in range(5)]).eval()
    with layers_replayed() as count:
        nnscan.summary(model, inputs=torch.zeros(T, D), file=False,
                       training=True)
    assert count[0] == 0


class Holder(nn.Module):
    """A block whose sublayers sit in a ModuleList (T5's block.layer), called
    with an object no key holds (an encoder-decoder's cache)."""

    def __init__(self):
        super().__init__()
        self.layer = nn.ModuleList([Block(), Block()])

    def forward(self, x, state):
        for sub in self.layer:
            x = sub(x)
        return x


class Holders(Stack):
    def forward(self, x):
        state = object()
        for b in self.blocks:
            x = b(x, state)
        return self.head(x)


def test_a_group_no_call_of_which_is_keyed_gives_way_to_its_sublayers():
    # the blocks run (no key holds their argument) and their group is not
    # tried again: the next summary replays their sublayers, the lists
    # holding them (never called) no group of their own
    model = Holders([Holder() for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=0)
    _again(model, x, 2 * 5 - 2)


@pytest.mark.parametrize("n", [3, 8])
def test_resnet_style_stage(n):
    tv = pytest.importorskip("torchvision")
    Bottleneck = tv.models.resnet.Bottleneck
    stage = nn.Sequential(*[Bottleneck(64, 16) for _ in range(n)]).eval()
    _same(stage, torch.zeros(1, 64, 8, 8), replayed=n - 2)


class Thin(nn.Module):
    """A product and a list of four Identity modules, which add no node:
    seven modules with the layer itself (layer_groups._LEAST is six),
    one or two nodes; `pause` seconds slept in each call, a layer slow to
    run."""

    def __init__(self, pause=0.0):
        super().__init__()
        self.fc = nn.Linear(D, D)
        self.ids = nn.ModuleList(nn.Identity() for _ in range(4))
        self.pause = pause

    def forward(self, x):
        if self.pause:
            time.sleep(self.pause)
        for m in self.ids:
            x = m(x)
        return self.fc(x)


@pytest.mark.parametrize("pause", [0.0, 0.004])
def test_a_group_pays_by_its_nodes_not_its_time(monkeypatch, pause):
    """Three layers of at most two nodes make fewer than the shipped
    threshold's nodes: replayed in the first summary, dropped from the
    next, however long each call takes (4 ms a call: 12 ms a group, over
    the 1.5 ms a time threshold kept before). Blocks of ten nodes or more
    stay replayed."""
    monkeypatch.setattr(module_replay, "_MIN_GROUP_NODES", MIN_GROUP_NODES)
    assert 3 * 2 < MIN_GROUP_NODES <= 3 * 10
    x = torch.zeros(T, D)
    thin = nn.Sequential(*[Thin(pause) for _ in range(3)]).eval()
    _same(thin, x, replayed=1)
    _again(thin, x, 0)
    blocks = Stack([Block() for _ in range(3)]).eval()
    _same(blocks, x, replayed=1)
    _again(blocks, x, 3)


def test_a_quick_layer_is_not_tried_again(monkeypatch):
    monkeypatch.setattr(module_replay, "_MIN_GROUP_NODES", 10 ** 9)
    model = Stack([Block() for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=3)  # found quick only once it ran
    _again(model, x, 0)


class Nested(nn.Module):
    """A block and a linear layer, in a container, in a container: each
    of the three alike at a glance to the other holder's, and to none."""

    def __init__(self, act):
        super().__init__()
        self.inner = nn.Sequential(Block(act), nn.Linear(D, D))

    def forward(self, x):
        return self.inner(x)


def test_a_quick_lone_layer_is_not_noted_nor_its_sublayers_tried(
        monkeypatch):
    # each Nested is alike to none, and too quick (here: any layer is):
    # not noted for the process, and the layers below it (its Sequential,
    # its block), quicker still, are not tried in a later summary either
    monkeypatch.setattr(module_replay, "_MIN_GROUP_NODES", 10 ** 9)
    model = nn.Sequential(Nested(True), Nested(False)).eval()
    x = torch.zeros(T, D)
    module_replay.forget()
    noted = []
    for _ in range(3):
        with calls_counted(module_replay.Layers, "_seen") as n:
            nnscan.summary(model, inputs=x, file=False)
        noted.append(n[0])
    assert noted == [0, 2, 0]  # (from the architecture's second)
    assert not module_replay._NOTED


class Windowed(nn.Module):
    """Attention masked to a causal window, the mask made in the call from
    positions (given, or its own buffer's, or arange's): a value with a
    real value, which the masked MACs read. Six modules."""

    def __init__(self, source="given", window=3, step=1):
        super().__init__()
        self.norm = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, D)
        self.act = nn.GELU()
        self.mlp = nn.Linear(D, D)
        self.source, self.window = source, window
        if source == "own":
            self.register_buffer("own", torch.arange(T) * step)

    def keep(self, pos):
        return (pos[None, :] <= pos[:, None]) & \
            (pos[:, None] - pos[None, :] < self.window)

    def forward(self, x, pos=None):
        if self.source == "own":
            pos = self.own
        elif self.source == "arange":
            pos = torch.arange(x.shape[0], device=x.device)
        keep = self.keep(pos)
        q, k, v = self.qkv(self.norm(x)).chunk(3, -1)
        s = (q @ k.transpose(0, 1) / D ** 0.5).masked_fill(~keep, -1e9)
        h = x + self.out(torch.softmax(s, -1) @ v)
        h = h + self.mlp(self.act(h))
        if self.source.endswith("+mask"):
            return h, keep
        if self.source.endswith("+pos"):
            return h, pos  # handed on to the next layer, as T5's bias
        return (h, 1) if self.source.endswith("+number") else h


class PosStack(Stack):
    def forward(self, x, pos):
        for b in self.blocks:
            x = b(x, pos)
            if isinstance(x, tuple):  # (h, what the layer hands on)
                x, pos = x[0], x[1] if b.source.endswith("+pos") else pos
        return self.head(x)


def _pairs_left_out(keep):
    return (keep.numel() - int(keep.sum())) * 2 * D  # Q.K^T and P.V


@pytest.mark.parametrize("source", ["given", "arange"])
def test_a_mask_made_in_the_layer_is_replayed_with_its_value(source):
    # the mask is the same in every call (the positions are the call's
    # argument, keyed by their contents, or arange's), so a replay hands
    # the template's value to the masked MACs under its new name
    layers = 6
    model = PosStack([Windowed(source) for _ in range(layers)]).eval()
    pos = torch.arange(T)
    _same(model, (torch.zeros(T, D), pos), replayed=layers - 2)
    totals = nnscan.summary(model, inputs=(torch.zeros(T, D), pos),
                            file=False).totals
    assert totals["macs"] - totals["macs_unmasked"] == \
        layers * _pairs_left_out(Windowed().keep(pos))


def test_a_mask_from_the_layers_own_buffer_is_compared():
    # each layer's positions are its own buffer's, in two kinds (the
    # masks differ, the layers are alike): the template holds its layer's
    # contents, and a layer of the other kind does not replay it
    steps = (1, 1, 1, 2, 2, 2)
    model = Stack([Windowed("own", step=k) for k in steps]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=1)  # the third
    totals = nnscan.summary(model, inputs=x, file=False).totals
    left = sum(_pairs_left_out(Windowed().keep(torch.arange(T) * k))
               for k in steps)
    assert totals["macs"] - totals["macs_unmasked"] == left


def test_a_mask_made_in_the_layer_is_kept_for_the_process():
    # no argument with a real value: the template, its mask's contents
    # read, holds for the process, and a later summary replays every
    # layer, the masks given those contents anew
    model = Stack([Windowed("arange") for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=3)
    on = _again(model, x, 5)
    assert on[4] == nnscan.summary(model, inputs=x, file=False).totals["macs"]
    totals = nnscan.summary(model, inputs=x, file=False).totals
    assert totals["macs"] - totals["macs_unmasked"] == \
        5 * _pairs_left_out(Windowed().keep(torch.arange(T)))


@pytest.mark.parametrize("layers", [6, 2])
def test_positions_given_key_by_their_contents_for_the_process(layers):
    # a decoder's position ids: a small integer argument with a real value
    # keys its calls by its contents, so the template (its mask's contents
    # read) holds for the process: a later summary replays every layer,
    # a pair of layers included; positions of other contents are another
    # key (the layers run, or replay a template of their own), and the
    # masked MACs are those of each summary's own positions
    model = PosStack([Windowed("given") for _ in range(layers)]).eval()
    x = torch.zeros(T, D)
    pos, other = torch.arange(T), torch.arange(T) * 2
    _same(model, (x, pos), replayed=layers - 2)
    _again(model, (x, pos), layers)
    _again(model, (x, other), layers - 2)
    for p in (pos, other):
        totals = nnscan.summary(model, inputs=(x, p), file=False).totals
        assert totals["macs"] - totals["macs_unmasked"] == \
            layers * _pairs_left_out(Windowed().keep(p))


def test_threads_share_the_process_templates():
    # two threads summarising pairs of layers given other positions: each
    # key's template kept for the process by one thread is replayed by
    # the other, and every report is the one of a summary with every
    # layer run, made alone
    x = torch.zeros(T, D)
    cases = [(PosStack([Windowed("given") for _ in range(2)]).eval(),
              (x, torch.arange(T) * k)) for k in (1, 2)]
    want = [_reports(m, i, False)[:4] for m, i in cases]
    module_replay.forget()
    got = [[], []]

    def work(k):
        for _ in range(8):
            got[k].append(nnscan.summary(
                cases[k][0], inputs=cases[k][1], file=False,
                columns=("flops", "macs", "dmas", "act"),
                hardware="h100-sxm"))
    assert not in_threads(work)
    for k in (0, 1):
        assert [(s.to_text(), s.to_json(version=2), s.to_json(version=1),
                 s.to_csv()) for s in got[k]] == [want[k]] * 8
    with layers_replayed() as count:
        for m, i in cases:
            _reports(m, i, True)
    assert count[0] == 4  # both keys' templates kept


@pytest.mark.parametrize("bound, over, under", [
    ("_KEY_ELEMENTS", T - 1, T), ("_PROCESS_BYTES", T * T - 1, 1 << 20),
    ("_PROCESS_HELD", T * T - 1, 1 << 20)])
def test_large_values_hold_for_their_recording(bound, over, under,
                                               monkeypatch):
    # positions past _KEY_ELEMENTS key by their name, and a template
    # whose masks hold more than _PROCESS_BYTES (the bool mask alone is
    # T * T bytes), or more than the process's templates may hold in
    # all, is not kept: it holds for its recording only, so a pair of
    # layers replays nothing, now or in a later summary
    model = PosStack([Windowed("given") for _ in range(2)]).eval()
    x, pos = torch.zeros(T, D), torch.arange(T)
    monkeypatch.setattr(module_replay, bound, over)
    _same(model, (x, pos), replayed=0)
    _again(model, (x, pos), 0)
    monkeypatch.setattr(module_replay, bound, under)
    _same(model, (x, pos), replayed=0)
    _again(model, (x, pos), 2)


def test_own_contents_changed_in_place_are_read_again():
    # the template is kept for the process (no argument has a real
    # value); the contents are read once per version of the model's
    # buffer, so a buffer changed between summaries is read again
    model = Stack([Windowed("own") for _ in range(5)]).eval()
    x = torch.zeros(T, D)
    _same(model, x, replayed=3)
    for b in model.blocks[::2]:
        b.own.mul_(2)  # layers 0, 2, 4: another mask; 1, 3 as they were
    _again(model, x, 2)  # 1 and 3, from the kept template


def test_own_contents_of_inference_tensors():
    # made under inference_mode, the buffers count no versions: read anew
    with torch.inference_mode():
        model = Stack([Windowed("own") for _ in range(5)]).eval()
    _same(model, torch.zeros(T, D), replayed=3)


def test_positions_keyed_under_inference_mode():
    # a summary made under inference_mode: the positions (inference
    # tensors count no versions) are read for each call, the masks
    # counted, and a later summary replays both layers
    model = PosStack([Windowed("given") for _ in range(2)]).eval()
    x, pos = torch.zeros(T, D), torch.arange(T)
    with torch.inference_mode():
        _same(model, (x, pos), replayed=0)
        _again(model, (x, pos), 2)
        totals = nnscan.summary(model, inputs=(x, pos), file=False).totals
    assert totals["macs"] - totals["macs_unmasked"] == \
        2 * _pairs_left_out(Windowed().keep(pos))


def test_an_argument_handed_on_is_the_argument_itself():
    # a layer returning its argument (the positions, each layer's mask
    # made from them) returns that very tensor when replayed, its real
    # value with it: the next layers' keys and masks read it
    model = PosStack([Windowed("given+pos") for _ in range(6)]).eval()
    pos = torch.arange(T)
    _same(model, (torch.zeros(T, D), pos), replayed=4)
    totals = nnscan.summary(model, inputs=(torch.zeros(T, D), pos),
                            file=False).totals
    assert totals["macs"] - totals["macs_unmasked"] == \
        6 * _pairs_left_out(Windowed().keep(pos))


@pytest.mark.parametrize("returns", ["mask", "number"])
def test_a_layer_returning_a_value_with_a_real_value_runs(returns):
    # a replay makes its outputs on meta, with no value to read after it;
    # nor does it make other objects (transformers' Swin2SR returns so)
    model = PosStack([Windowed("given+" + returns) for _ in range(5)]).eval()
    _same(model, (torch.zeros(T, D), torch.arange(T)), replayed=0)


class Recurrent(nn.Module):
    """One block called `n` times on its own output (ALBERT's one layer
    group, a recurrent cell called per step), then a head; `direct`
    calls its forward as a function after that, as some models do."""

    def __init__(self, n, direct=False, act=True):
        super().__init__()
        self.block = Block(act)
        self.head = nn.Linear(D, 4)
        self.n, self.direct = n, direct

    def forward(self, x):
        for _ in range(self.n):
            x = self.block(x)
        if self.direct:
            x = self.block.forward(x)
        return self.head(x)


def _replayed_per_summary(model, x, summaries):
    """The layers each of `summaries` summaries in a fresh process
    replayed, each summary's reports the same as with every layer run."""
    torch.manual_seed(0)
    module_replay.forget()
    got = []
    for _ in range(summaries):
        with layers_replayed() as count:
            on = _reports(model, x, True)
        assert on[:4] == _reports(model, x, False)[:4]
        got.append(count[0])
    return got


def test_a_layer_called_again_replays_its_later_calls():
    # the first summary learns which modules its forward called again (no
    # class of two); the second notes the first call and the second for
    # the process, the third call verifies the second's template and the
    # fourth and fifth replay it; the third summary verifies the first
    # call's, the fourth replays every call
    x = torch.zeros(T, D)
    assert _replayed_per_summary(Recurrent(5).eval(), x, 4) == [0, 2, 4, 5]
    # called twice (a siamese tower): each call verified across summaries
    assert _replayed_per_summary(Recurrent(2).eval(), x, 5) == \
        [0, 0, 0, 2, 2]
    # as much as five blocks of their own, every call run
    macs = _reports(Recurrent(5).eval(), x, True)[4]
    assert macs == _reports(Stack([Block() for _ in range(5)]).eval(), x,
                            False)[4]
    assert macs >= 5 * 2 * T * D * H + T * D * 4


def test_a_forward_called_as_a_function_runs():
    # its caller's scope, not its own: a replay would name it otherwise
    x = torch.zeros(T, D)
    got = _replayed_per_summary(Recurrent(4, direct=True).eval(), x, 4)
    assert got == [0, 1, 3, 4]


def test_layers_alike_called_again_each_replay():
    # two blocks alike, each called three times: their first calls a
    # pair (its template kept for the process), their later calls one key
    class Twice(Stack):
        def forward(self, x):
            for _ in range(3):
                for b in self.blocks:
                    x = b(x)
            return self.head(x)
    x = torch.zeros(T, D)
    got = _replayed_per_summary(Twice([Block(), Block()]).eval(), x, 3)
    assert got == [2, 6, 6]


def test_a_module_called_again_holds_no_noted_template_once_kept():
    # its second call's template, noted for the process as a lone
    # layer's, is released once its third call kept it: the bytes the
    # process holds are the kept templates' alone
    x = torch.zeros(T, D)
    _replayed_per_summary(Recurrent(5).eval(), x, 2)
    assert len(module_replay._NOTED) == 1  # the first call's, to verify


def test_the_process_keeps_the_templates_it_used_latest(monkeypatch):
    # room for one template: stacks of blocks that act and of blocks
    # that do not (two signatures) take turns, and each one's template
    # makes room for the other's, the one used least lately (a process
    # summarizing many models keeps its latest ones' templates)
    monkeypatch.setattr(module_replay, "_KEPT_MAX", 1)
    x = torch.zeros(T, D)
    acts = Stack([Block(True) for _ in range(6)]).eval()
    plain = Stack([Block(False) for _ in range(6)]).eval()
    module_replay.forget()
    for model, replayed in ((acts, 4), (plain, 4), (plain, 6), (acts, 4),
                            (acts, 6)):
        with layers_replayed() as count:
            nnscan.summary(model, inputs=x, file=False)
        assert count[0] == replayed
    assert len(module_replay._KEPT) == 1


def test_the_process_keeps_the_architectures_it_used_latest(monkeypatch):
    monkeypatch.setattr(layer_groups, "_ARCHS_MAX", 1)
    x = torch.zeros(T, D)
    six = Stack([Block() for _ in range(6)]).eval()
    three = Stack([Block() for _ in range(3)]).eval()
    module_replay.forget()
    for model in (six, three, six):
        nnscan.summary(model, inputs=x, file=False)
        (arch,) = layer_groups._ARCHS
        assert len(arch[0]) == len(list(model.modules()))


@pytest.mark.parametrize("name, c0, c1, relative", [
    ("v12", 10, 20, ("n", "v", 2)),
    ("const14", 0, 14, ("n", "const", 14)),
    ("_3", 0, 5, ("n", "_", 3)),
    ("v10", 10, 20, None),       # made before the template's start
    ("v21", 10, 20, None),       # or after its end
    ("v012", 0, 20, None),       # a leading zero: no counter writes it
    ("a1b2", 0, 20, None),       # a stem with a digit
    ("layer.1", 0, 20, None),    # a module path's index
    ("\u00e93", 0, 20, None),    # a stem not ASCII
    ("v\u0661\u0662", 0, 20, None),  # digits not ASCII
    ("3", 0, 20, None),          # no stem
    ("v", 0, 20, None),          # no number
])
def test_a_value_is_named_relative_to_the_counter_that_named_it(
        name, c0, c1, relative):
    """replay.counted: a name the graph's counter made between c0 and c1
    (its stem and the counter's value) is relative to c0; any other name
    is none (a parameter's, an argument's)."""
    from nnscan import replay
    assert replay.counted(name, c0, c1) == relative
