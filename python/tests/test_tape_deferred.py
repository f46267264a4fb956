"""The numbering left to the library (every recording's; docs/tape.md,
"Numbers the library gives"): the recorder asks no plan per call, counts
only what it makes, and the library shifts its numbers by what each
numbered call took at the build. Checked against the path that asked
nothing of the library's numbering at all, the ops_map.py rules: every
report byte for byte the rules' reports, frozen in data/rules_reference/
when the rules went (session 107; rules_reference.py), on the models of
test_tape_numbered.py (their ops, weights' t() folded, parameters read
after the constants their node reads them with, constants from outside)
and others; and that the library is asked nothing per call
(nns_aten_numbering, which a numbering planned per call asked until
session 103). A test compares its reports before asserting what went on
the tape: the rules' reports were frozen by these tests run where
nothing did."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

from nnscan import _api, tape  # noqa: E402

import rules_reference  # noqa: E402
import test_tape_numbered as tn  # noqa: E402


def _asked(monkeypatch):
    """The calls of nns_aten_numbering (the question a numbering planned
    per call asked) from now on."""
    asked = []
    monkeypatch.setattr(_api.lib(), "nns_aten_numbering",
                        lambda *a: asked.append(a) or 0)
    return asked


def _reports(monkeypatch, model):
    """Every report of test_tape_numbered's summaries of the model."""
    return tn._reports(monkeypatch, model=model)[1]


MODELS = [tn.Mixed, tn.OneSchema, tn.Linears, tn.Indexed, tn.Scattered,
          tn.Breadth, tn.Ordered, tn.Borrowed]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_report_is_the_rules(monkeypatch, request, model):
    rules_reference.check(request, _reports(monkeypatch, model))


class Expanded(nn.Module):
    """ViT's input (a patch convolution, its tokens, the class token
    expanded before them): expand(token, sizes) is Expand(token, shape),
    the shape a constant the library makes before the node reads the
    token, where the rule reads the token first, then makes the shape; and
    a tensor from outside (a plain attribute) read first by a numbered
    call."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 4, stride=4)
        self.token = nn.Parameter(torch.zeros(1, 1, 8))
        self.scale = torch.full((8,), 2.0)  # no parameter, no buffer
        self.proj = nn.Linear(8, 8)

    def forward(self, x):                       # 1 x 3 x 8 x 8
        n = x.shape[0]
        h = self.conv(x).reshape(n, 8, 4).permute(0, 2, 1)
        h = torch.cat([self.token.expand(n, -1, -1), h], 1)
        return self.proj(h * self.scale)


def test_first_reads_are_where_the_rule_reads_them(monkeypatch, request):
    rules_reference.check(request, _reports(monkeypatch, Expanded))


class OutsideViewed(nn.Module):
    """Constants from outside (plain attributes) read first by calls whose
    lowering makes a constant of its own before its node reads the
    tensor: view's Reshape and expand's Expand make their shapes first,
    where the rules read the tensor first (ops_map.reshape: b.inp, then
    b.const). The rules numbered both where the node reads them ("const2",
    "c3"); the library, which made the shape first, deals the two numbers
    again in the order its node reads them (front.c, fe_reading)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.c = torch.full((8,), 0.5)  # no parameter, no buffer
        self.d = torch.full((1, 8), 2.0)

    def forward(self, x):
        return self.lin(x) + self.c.view(1, 8) * self.d.expand(8, 8) + \
            self.c.view(8, 1).sum(0)


def test_an_outside_constant_read_after_made_ones(monkeypatch, request):
    rules_reference.check(request, _reports(monkeypatch, OutsideViewed))


class Losses(nn.Module):
    """Calls whose rules read an argument other than their first where
    a node reads it: binary_cross_entropy_with_logits's pos_weight, a
    constant from outside its rule reads after making the 1 of
    Sub(pos_weight, 1) (the table entry's reads_at_nodes), against sub's
    other, which its rule reads first; and a group norm, whose saved mean
    and deviation its lowering leaves unwritten and the backward reads."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1)
        self.norm = nn.GroupNorm(2, 8)
        self.pw = torch.full((8,), 2.0)  # no parameter, no buffer
        self.c = torch.full((8,), 0.5)

    def forward(self, x):                       # 1 x 3 x 8 x 8
        o = self.norm(self.conv(x)).mean((2, 3))
        loss = nn.functional.binary_cross_entropy_with_logits(
            o, torch.sigmoid(o), pos_weight=self.pw)
        return loss + torch.sub(o, self.c, alpha=2).sum()


def test_arguments_read_at_their_nodes(monkeypatch, request):
    rules_reference.check(request, _reports(monkeypatch, Losses),
                          part="forward")
    deferred, reports = _backward_reports(monkeypatch, Losses)
    rules_reference.check(request, reports, part="backward")
    assert deferred == [True]


class ReadTwice(nn.Module):
    """A constant from outside read twice by one numbered call (two
    arguments, or twice in a list): one constant, as the rule names it
    once (the recorder named each read anew, the library numbered two)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.c = torch.full((8,), 0.5)  # no parameter, no buffer

    def forward(self, x):                       # 1 x 3 x 8 x 8
        h = self.lin(x)
        h = nn.functional.layer_norm(h, (8,), self.c, self.c)
        return torch.where(h > 0, self.c, self.c) + \
            torch.cat([self.c, self.c]).sum()


def test_a_constant_read_twice_by_one_call(monkeypatch, request):
    rules_reference.check(request, _reports(monkeypatch, ReadTwice))


class OutsideSliced(nn.Module):
    """Constants from outside read first by calls whose one node reads
    several constants the lowering made before it (a slice's starts,
    ends, axes and steps; flip's), and by a call the table declines
    (roll with no dims): the first summaries failed with a Slice of
    shuffled constants, or a first read left unnamed."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.w = torch.full((8, 8), 0.125)  # no parameter, no buffer
        self.c = torch.full((8,), 0.5)

    def forward(self, x):                       # 1 x 3 x 8 x 8
        h = self.lin(x) + self.w[:, 1] + self.c[2:6].repeat(2)
        h = h + torch.flip(self.w, [1]).sum(0)
        return h + torch.roll(self.c, 1)


def test_outside_constants_sliced_and_rolled(monkeypatch, request):
    rules_reference.check(request, _reports(monkeypatch, OutsideSliced))


def test_nothing_is_asked_per_call(monkeypatch):
    asked = _asked(monkeypatch)
    _reports(monkeypatch, tn.Mixed)
    assert asked == []


def test_templates_are_kept_by_form(monkeypatch, request):
    """record_deferred finds a call's template by its form's key
    (tape._maker) once the op has been called twice: the keys and tensor
    lists of test_tape_numbered's KeywordsAndLists (keyword arguments,
    tensor lists of two lengths) keep templates under maker keys, later
    calls read them and not _key, and every report stays the rules'."""
    monkeypatch.setattr(tape, "_TEMPLATES", {})
    monkeypatch.setattr(tape, "_TEMPLATE_MAKERS", {})
    first = _reports(monkeypatch, tn.KeywordsAndLists)
    rules_reference.check(request, first)
    by_form = [k for k in tape._TEMPLATES if not isinstance(k[0], str)]
    assert by_form  # (a maker's key starts with its op's own object)
    keyed = []
    orig = tape._key
    monkeypatch.setattr(tape, "_key",
                        lambda *a: keyed.append(a[0]) or orig(*a))
    again = _reports(monkeypatch, tn.KeywordsAndLists)
    assert "cat" not in keyed and "_to_copy" not in keyed
    assert again == first


class Widening(nn.Module):
    """Convolutions, batch norms and concatenations of four widths, each
    layer unlike the last (DenseNet's growth): one form per op, its sizes
    new at every call."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(3 + 4 * k, 4, 3, padding=1)
                                   for k in range(4))
        self.norms = nn.ModuleList(nn.BatchNorm2d(4) for _ in range(4))

    def forward(self, x):
        for conv, norm in zip(self.convs, self.norms):
            x = torch.cat([x, torch.relu(norm(conv(x)))], 1)
        return x


def test_a_template_serves_every_size(monkeypatch, request):
    """A record's template holds no sizes (_template_of), so
    record_deferred keys it by the tensors' dtypes alone: after an op's
    first two calls, its calls of other sizes find their template by form
    and make no key of their own (_key), where a key with sizes would miss
    at every new width. The reports stay the rules'."""
    monkeypatch.setattr(tape, "_TEMPLATES", {})
    monkeypatch.setattr(tape, "_TEMPLATE_MAKERS", {})
    keyed = []
    orig = tape._key
    monkeypatch.setattr(tape, "_key",
                        lambda *a: keyed.append(a[0]) or orig(*a))
    monkeypatch.setenv("NNSCAN_REPLAY", "0")
    monkeypatch.setenv("NNSCAN_MODULE_REPLAY", "0")
    rules_reference.check(request, _reports(monkeypatch, Widening))
    for op in ("convolution", "cat"):
        assert 0 < keyed.count(op) <= 2, (op, keyed)


def test_a_name_packed_before_with_other_sizes_has_its_own():
    """The pack keeps each value's packed tensor (name, dtype, sizes) for
    the process, as a model's next summary names its values so again: a
    numbered call's first output is "\\30.0" in every summary, so one of
    another model, of other sizes under that name, must not be packed with
    the sizes the first had. Checked against PyTorch's own sizes."""
    import nnscan
    x = torch.zeros(2, 4)
    for width in (8, 16, 8, 12):
        m = nn.Sequential(nn.Linear(4, width), nn.ReLU()).eval()
        s = nnscan.summary(m, inputs=(x,), file=False)
        rows = {r["path"]: r for r in s.layers}
        assert rows["0"]["output"]["shape"] == list(m(x).shape), width
        assert s.totals["macs"] == 2 * 4 * width


class Layer(nn.Module):
    """A layer whose numbered calls read first its parameters (the
    norm's; the projections' weights, their t() folded), a buffer and a
    constant from outside (a plain attribute, which cat reads first), and
    make values of their own: each layer's first reads are its own, which
    a replay names anew (module_replay.py under deferred numbering)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.up = nn.Linear(8, 16)
        self.act = nn.GELU()
        self.down = nn.Linear(16, 8)
        self.drop = nn.Dropout(0.1)
        self.register_buffer("shift", torch.full((8,), 0.25))
        self.pad = torch.full((1, 8), 0.5)  # no parameter, no buffer

    def forward(self, x):                       # T x 8
        h = self.down(self.act(self.up(self.norm(x))))
        h = torch.cat([self.drop(h), self.pad], 0)[:-1]
        return torch.cat([x + h, self.shift[None]], 0)[1:]


class Layers(nn.Module):
    def __init__(self, n=5):
        super().__init__()
        self.layers = nn.ModuleList(Layer() for _ in range(n))
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def _replayed_reports(monkeypatch, replays):
    """(layers replayed, every report of conftest.replay_reports) of a
    fresh process's summary of Layers."""
    from conftest import layers_replayed, replay_reports
    from nnscan import module_replay, summary_memo
    monkeypatch.setattr(module_replay, "_MIN_GROUP_NODES", 0)
    monkeypatch.setattr(summary_memo, "enabled", lambda: False)
    module_replay.forget()
    torch.manual_seed(0)
    model = Layers().eval()
    with layers_replayed() as count:
        reports, _ = replay_reports(model, torch.randn(6, 8), replays)
    return count[0], reports


def test_layers_replay_with_the_numbering_deferred(monkeypatch, request):
    """Layers alike replay (their first two calls verify the template),
    and every report is the one with every layer run, the rules'; the
    template is kept for the process, so a later summary replays every
    layer."""
    every = _replayed_reports(monkeypatch, False)[1]
    rules_reference.check(request, every)
    replayed, reports = _replayed_reports(monkeypatch, True)
    assert replayed == 3 and reports == every
    from conftest import layers_replayed, replay_reports
    with layers_replayed() as count:
        again, _ = replay_reports(Layers().eval(), torch.randn(6, 8), True)
    assert count[0] == 5 and again == every


def _backward_reports(monkeypatch, model):
    """The reports of summary(backward=True), and whether its forward's
    numbering was deferred."""
    import nnscan
    from nnscan import recorder
    deferred = []
    real = recorder._run

    def run(*a, **kw):
        rec = real(*a, **kw)
        deferred.append(rec.graph.deferred)
        return rec
    monkeypatch.setattr(recorder, "_run", run)
    torch.manual_seed(0)
    s = nnscan.summary(model().eval(), inputs=(torch.randn(1, 3, 8, 8),),
                       backward=True, file=False)
    monkeypatch.setattr(recorder, "_run", real)
    return deferred, [s.to_text(), s.to_json(version=2),
                      s.backward.to_text(), s.backward.to_json(version=2)]


def test_a_backward_is_the_rules(monkeypatch, request):
    """summary(backward=True): the forward numbered by the library (its
    backward is a graph of its own), every report the rules'."""
    deferred = []
    for model in (tn.Mixed, Expanded):
        numbered, reports = _backward_reports(monkeypatch, model)
        rules_reference.check(request, reports, part=model.__name__)
        deferred += numbered
    assert deferred == [True, True]


class BackwardKernels(nn.Module):
    """The backward kernels whose lowerings leave tensor arguments unread
    (the table's `unread`, nns_aten_op_unread): BatchNorm in training (its
    running and saved statistics), max pooling and adaptive average
    pooling (their input, whose sizes alone they read), LayerNorm (its
    saved statistics, its bias), an NLL loss under a mean (its input; its
    total weight, read for a mean only); and a first
    convolution whose weight is frozen and which has no bias (outputs not
    computed: its weight unread)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, bias=False)
        self.conv.weight.requires_grad_(False)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, 1)
        self.avg = nn.AdaptiveAvgPool2d(2)
        self.ln = nn.LayerNorm(32)
        self.fc = nn.Linear(32, 5)
        self.register_buffer("target", torch.tensor([3]))

    def forward(self, x):                       # 1 x 3 x 8 x 8
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        x = self.avg(self.conv2(x)).flatten(1)
        logits = self.fc(self.ln(x))
        return nn.functional.nll_loss(logits.log_softmax(-1), self.target)


def test_a_backward_is_numbered_by_the_library(monkeypatch, request):
    """summary(backward=True) of a model in training: its backward graph
    is numbered by the library too, its kernels on the tape (their
    output_mask a list of bools, packed as ints), its forward tensors
    inputs "fwdN" named where the library's nodes first read them, those
    its lowerings leave unread named by no call: every report the
    rules'."""
    from nnscan import backward
    graphs = []
    real = backward.record_backward

    def record(rec):
        g, b = real(rec)
        graphs.append((g.deferred, {c[0] for c in g.aten.values()}))
        return g, b
    monkeypatch.setattr(backward, "record_backward", record)

    def train():
        return BackwardKernels().train()
    reports = _backward_reports(monkeypatch, train)[1]
    assert '"name": "fwd' in reports[3]
    rules_reference.check(request, reports)
    assert graphs[-1][0]
    assert {"native_batch_norm_backward", "max_pool2d_with_indices_backward",
            "_adaptive_avg_pool2d_backward", "native_layer_norm_backward",
            "convolution_backward", "nll_loss_backward"} <= graphs[-1][1]


class NllLoss(nn.Module):
    """An NLL loss of 4 samples over 5 classes, by `reduction`, with class
    weights or without, one label ignored: its backward reads the total
    weight under a mean only ("total_weight?reduction=1")."""

    def __init__(self, reduction, weighted):
        super().__init__()
        self.fc = nn.Linear(3 * 8 * 8, 5)
        self.register_buffer("target", torch.tensor([3, 0, -100, 4]))
        self.weight = torch.linspace(0.5, 1.5, 5) if weighted else None
        self.reduction = reduction

    def forward(self, x):                       # 1 x 3 x 8 x 8
        logits = self.fc(x.flatten().reshape(1, -1).expand(4, -1))
        loss = nn.functional.nll_loss(
            logits.log_softmax(-1), self.target, weight=self.weight,
            reduction=self.reduction)
        return loss.sum() if self.reduction == "none" else loss


@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weights"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_an_nll_loss_backward_by_reduction(monkeypatch, request, reduction,
                                           weighted):
    """nll_loss_backward on the library's tape under every reduction, with
    class weights and without: its total weight (the forward's output no
    node writes) read by the Div of a mean only, an input of the backward
    named there, and by no call under a sum or none; every report the
    rules'."""
    from nnscan import backward
    taped = []
    real = backward.record_backward

    def record(rec):
        g, b = real(rec)
        taped.append({c[0] for c in g.aten.values()})
        return g, b
    monkeypatch.setattr(backward, "record_backward", record)

    def model():
        return NllLoss(reduction, weighted).train()
    reports = _backward_reports(monkeypatch, model)[1]
    # the mean's gradient reads the total weight: an input of the backward
    assert ('"name": "fwd' in reports[3]) or reduction != "mean"
    rules_reference.check(request, reports)
    assert "nll_loss_backward" in taped[-1]


def test_the_unread_arguments_are_the_schemas(monkeypatch):
    """Every argument the table says a lowering leaves unread is one of
    the op's tensor arguments in PyTorch's own schema (so a renamed
    argument cannot make the list silently match nothing)."""
    from nnscan import _api
    _api.lib()
    assert _api.ATEN_UNREAD
    for op, (unread, maybe) in _api.ATEN_UNREAD.items():
        if op == "_grouped_mm" and not hasattr(torch, "_grouped_mm"):
            continue  # an op of PyTorch 2.8 on: not on 1.13
        schema = getattr(torch.ops.aten, op).default._schema
        tensors = {a.name for a in schema.arguments
                   if "Tensor" in str(a.type)}
        assert set(unread) | set(maybe) <= tensors, op
        ints = {a.name for a in schema.arguments if str(a.type) == "int"}
        assert all(when is None or when[0] in ints
                   for when in maybe.values()), op
        outputs = len(schema.returns)
        assert all(k is None or 0 <= k < outputs
                   for k in unread.values()), op


def _swapped_sizes(monkeypatch, op):
    """From now on, each one-node call of `op` recorded as if PyTorch had
    given its output its last two sizes swapped: the library's inference,
    held against PyTorch's sizes, disagrees as under a wrong table
    entry."""
    real = tape._one_node

    def one_node(b, kind, op_type, names, base, args, kwargs, out):
        made = real(b, kind, op_type, names, base, args, kwargs, out)
        if made and base == op:
            name = b.names[id(out)]
            *lead, h, w = b.shape_of[name]
            b.shape_of[name] = (*lead, w, h)
        return made
    monkeypatch.setattr(tape, "_one_node", one_node)


def test_a_shape_disagreement_names_the_op_and_module(monkeypatch):
    """The shape self-test (torch_api.check_shapes) with the numbering
    left to the library: the library's names of the recorder's values
    asked again, so its warning names the aten op and the module."""
    import nnscan
    from nnscan import torch_api
    _swapped_sizes(monkeypatch, "relu")
    # a numbered call (the convolution) before it shifts its numbers
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU())
    with pytest.warns(torch_api.ShapeMismatch,
                      match=r"aten.relu.* module '1' .*\(1, 4, 8, 6\).*"
                            r"\(1, 4, 6, 8\)"):
        nnscan.summary(m, (3, 8, 10), file=False)


INDEXING = ["index_two_leading", "index_adjacent_inner", "index_apart",
            "mask_rows", "mask_rows_written"]


def _indexing_reports(fn):
    import nnscan
    import test_ops_selection as ops
    s = nnscan.summary(ops.Fn(fn), inputs=(ops.X,), file=False,
                       columns=("flops", "macs", "dmas", "act"))
    assert s.uncounted_aten == {} and s.totals["complete"]
    return [s.to_text(), s.to_json(version=2), s.to_csv()]


@pytest.mark.parametrize("name", INDEXING)
def test_indexing_is_lowered_as_the_rules_lower_it(request, name):
    """x[i, :, j], x[:, i, j] (the indexed dims moved to lead, and back
    where adjacent), x[mask] and x[mask] = rows: the library's table
    lowers them (no plan asked, nothing left uncounted), every report the
    rules'."""
    import test_ops_selection as ops
    rules_reference.check(request, _indexing_reports(ops.CASES[name]))


@pytest.mark.parametrize("fn", ["index_put_rows", "index_put_accumulate",
                                "index_put_two", "index_put_mask_scalar",
                                "index_put_mask_row"])
def test_index_put_is_lowered_as_the_rules_lower_it(request, fn):
    import test_ops_selection as ops
    rules_reference.check(request, _indexing_reports(getattr(ops, fn)))


class SelfAttention(nn.Module):
    def __init__(self, need_weights):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)
        self.need_weights = need_weights

    def forward(self, x):
        return self.mha(x, x, x, need_weights=self.need_weights)


def _fast_path_reports(need_weights):
    """nn.MultiheadAttention's fast path (eval, no_grad, its own CPU: one
    aten op)."""
    import nnscan
    torch.manual_seed(0)
    m = SelfAttention(need_weights).eval()
    with torch.no_grad():
        s = nnscan.summary(m, inputs=(torch.randn(1, 5, 16),),
                           device="model", file=False,
                           columns=("flops", "macs", "dmas", "act"))
    return s.totals["macs"], [s.to_text(), s.to_json(version=2)]


@pytest.mark.parametrize("need_weights", [True, False])
def test_an_output_the_library_leaves_unwritten_is_the_rules(request,
                                                            need_weights):
    # the fast path's attention weights, the model's second output: the
    # table's entry does not lower them (nns_aten_op_unwritten), so the
    # model's read of them names them a constant, as the rule made one.
    # Its MACs by hand: the packed in-projection 5 x 16 x 48, the scores
    # and their product with the values 2 heads x 5 x 5 x 8 each, the
    # out-projection 5 x 16 x 16
    macs, reports = _fast_path_reports(need_weights)
    assert macs == 5 * 16 * 48 + 2 * (2 * 5 * 5 * 8) + 5 * 16 * 16
    rules_reference.check(request, reports)



class PooledLayer(Layer):
    """Layer and a max pooling, whose indices its lowering leaves
    unwritten (nns_aten_op_unwritten), in a replayed layer's records
    among the recorder's own nodes and values ("\4" and "\2" names:
    Layer's x + h, a node of its own)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(1)

    def forward(self, x):
        return self.pool(super().forward(x)[None])[0]


def _stack_reports(monkeypatch, read_again):
    monkeypatch.setenv("NNSCAN_PACK_REPLAY", read_again)
    import nnscan
    torch.manual_seed(0)
    model = Layers().eval()
    model.layers = nn.ModuleList(PooledLayer() for _ in range(5))
    x = torch.randn(6, 8)
    got = []
    for _ in range(2):
        s = nnscan.summary(model, inputs=(x,), file=False)
        got += [s.to_text(), s.to_csv(), s.to_json(version=1),
                s.to_json(version=2)]
    return got


def test_replayed_layers_are_read_again(monkeypatch, request):
    """pack() writes a layer replayed from the template of one it packed
    before as a replay record (packed record 33; docs/tape.md, "Replayed
    layers, read again"), which the library reads as that layer's bytes
    under the replay's names: every report is the one with each layer
    packed (NNSCAN_PACK_REPLAY=0) and the rules', in a first summary and
    once the whole model replays from a template kept for the process
    with the layers inside it."""
    from nnscan import graph
    written, whole = [], []
    orig = graph._pack_parts

    def pack(g):
        parts = orig(g)
        written.append(sum(p[:1] == graph._TAG[graph._REPLAY] and
                           len(p) > 128 for p in parts))
        whole.append(any(r.path == "" for r in g.replays))
        return parts
    monkeypatch.setattr(graph, "_pack_parts", pack)
    # the third: the model replays whole
    got = [(_stack_reports(monkeypatch, "1"), _stack_reports(monkeypatch, "0"))
           for _ in range(3)]
    rules_reference.check(request, got[0][0])
    assert all(read == packed == got[0][0] for read, packed in got)
    # the first summary records layers 0 and 1, whose recordings make the
    # template, and replays 2 to 4; later every layer replays: layers 1 to
    # 4 read again either way
    assert written == [4, 4, 0, 0] * 3
    assert whole[-1] and not whole[0]  # the model replayed whole, at last


POOLS = [(nn.MaxPool1d(2), (6, 8)), (nn.MaxPool2d(2), (3, 8, 8)),
         (nn.AvgPool1d(2), (6, 8)), (nn.AvgPool2d(2, 1), (3, 8, 8)),
         (nn.MaxPool3d(2), (2, 4, 4, 4)), (nn.AvgPool3d(2), (2, 4, 4, 4))]


@pytest.mark.parametrize("pool,shape", POOLS,
                         ids=lambda p: getattr(p, "__name__", None) or
                         type(p).__name__ if not isinstance(p, tuple)
                         else "x".join(map(str, p)))
def test_an_unbatched_pool_is_a_batch_of_one(pool, shape):
    """PyTorch pools an unbatched input (no batch dim) as a batch of one:
    the summary counts it so, and its output has PyTorch's sizes (a pool
    of a 3-D tensor was a 1-D pool of it)."""
    import nnscan

    def summary(*dims):
        m = nn.Sequential(nn.ReLU(), pool).eval()
        x = torch.randn(*dims)
        s = nnscan.summary(m, inputs=(x,), file=False)
        rows = {r["path"]: r for r in s.layers}
        assert rows["1"]["output"]["shape"] == list(m(x).shape)
        return {k: s.totals[k] for k in ("flops", "macs", "dmas")}
    assert summary(*shape) == summary(1, *shape)
