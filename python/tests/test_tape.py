"""The recorder's tape (nnscan/tape.py, docs/tape.md): calls the library's
aten table lowers to one node go to the library as aten records. Checked:
the tape really holds them; every report is byte for byte what the
ops_map.py path (NNSCAN_TAPE=0) gives; parameters are sum(p.numel()) and
the element-wise FLOPs are the hand count; the calls that are not one
node (alpha 2, mixed dtypes, a number operand) keep their rule's nodes and
are counted, never left uncounted."""
import json

import pytest

torch = pytest.importorskip("torch")

import nnscan  # noqa: E402
from nnscan import graph  # noqa: E402


class Residual(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        y = torch.sigmoid(h * x + x)    # mul, add: one dtype, on the tape
        z = torch.add(y, h, alpha=2)    # alpha 2: the rule's
        w = z * 0.5                     # a number: the rule's
        return w - torch.tanh(h), (x > 0) | (h > 0)


def _record(monkeypatch, tape):
    """(summary, the aten records handed over) with the tape on or off."""
    monkeypatch.setenv("NNSCAN_TAPE", "1" if tape else "0")
    held = []
    orig = graph._pack_parts  # what Graph.build packs the graph with

    def pack(g):
        held.append(dict(g.aten))
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    torch.manual_seed(0)
    m = Residual().eval()
    s = nnscan.summary(m, inputs=(torch.zeros(2, 6),), file=False)
    monkeypatch.setattr(graph, "_pack_parts", orig)
    return m, s, held


def test_tape_holds_the_one_node_calls(monkeypatch):
    # the one-node calls alone: the numbered ones are test_tape_numbered's
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", "0")
    _, s, held = _record(monkeypatch, True)
    ops = sorted(call[0] for call in held[-1].values())
    # relu, mul, add, sigmoid, tanh, sub and the `or` of two bool tensors;
    # the gt of a tensor and a number, the alpha-2 add and the number mul
    # are the rules'
    assert [o for o in ops if o not in ("bitwise_or", "logical_or")] == [
        "add", "mul", "relu", "sigmoid", "sub", "tanh"]
    assert len(ops) == 7
    assert s.uncounted_aten == {}
    _, _, off = _record(monkeypatch, False)
    assert off[-1] == {}


def test_every_report_the_same_with_and_without_the_tape(monkeypatch):
    outs = []
    for tape in (False, True):
        _, s, _ = _record(monkeypatch, tape)
        outs.append([s.to_text(), s.to_csv(), s.to_markdown(),
                     s.to_json(version=1), s.to_json(version=2),
                     s.to_html()])
    for a, b in zip(*outs):
        assert a == b


def test_counts_on_the_tape_are_pytorchs(monkeypatch):
    m, s, _ = _record(monkeypatch, True)
    doc = json.loads(s.to_json(version=2))
    metrics = doc["totals"]["metrics"]
    assert metrics["params"]["value"] == sum(p.numel() for p in m.parameters())
    # Linear(6, 6) on [2, 6]: 2 * 6 * 6 MACs, by hand
    assert metrics["macs"]["value"] == 72


def test_build_buffer_is_packs_bytes():
    """Graph.build hands the library the kept buffer (graph._in_kept_buffer):
    the same bytes as pack() joins, also past one run of joined parts and
    when the buffer is reused for a smaller graph."""
    from nnscan import recorder
    rec = recorder.record_model(Residual().eval(), (torch.zeros(2, 6),),
                                keep_graph=True)
    parts = graph._pack_parts(rec.graph)
    assert b"".join(parts) == graph.pack(rec.graph)
    many = [bytes([k % 251]) * (k % 97) for k in range(6000)]  # 3 runs, 288 KB
    for ps in (parts + many, parts + many[:2500], parts):
        buf, size = graph._in_kept_buffer(ps)
        assert size == sum(map(len, ps))
        assert bytes(buf)[:size] == b"".join(ps)


def test_kept_attributes_pack_as_made():
    """graph._attr keeps records for the process by value: values Python
    holds equal (1, True and 1.0; a list of ints, of floats and of bools;
    0.0 and -0.0), asked in any order and again, each get the record
    _attr_record makes of it (an int and a float pack apart)."""
    values = [1, True, 1.0, 0.0, -0.0, [1, 2], (1, 2), [1.0, 2.0],
              [True, 2], [], "1", [2 ** 40, -3]]
    s = graph._Strings()
    for _ in range(2):
        for v in values + values[::-1]:
            assert graph._attr("k", v, s) == graph._attr_record("k", v, s)
    assert graph._attr("k", 1, s) != graph._attr("k", 1.0, s)
    assert graph._attr("k", [1, 2], s) != graph._attr("k", [1.0, 2.0], s)


class _Nodes:
    """The part of recorder.Builder a one-node rule uses: the nodes it
    makes, by op type."""

    def __init__(self):
        self.made = []

    def is_tensor(self, v):
        return isinstance(v, torch.Tensor)

    def inp(self, t):
        return "x"

    def node(self, op, ins, outs, attrs=None, domain=""):
        self.made.append((op, domain, dict(attrs or {})))


def test_the_tables_declarative_entries_are_written_once():
    """An op the library's aten table lowers to one node of its op type
    (`unary`, `binary`), names again (`alias`) or makes from nothing
    (`create`) has its ops_map rule made from that entry: the rule makes
    one node of the table's op type (called, on tensors of one dtype), the
    alias and creation are ops_map's ALIAS and CREATE, and ops_map.py does
    not spell the op's entry again. The ops with rules of their own (a
    complex abs or mul, div's rounding modes, ...) make the same node on
    such a call."""
    import inspect
    import re
    from nnscan import _api, ops_map
    _api.lib()
    source = inspect.getsource(ops_map)
    forms = {}
    x = torch.zeros(2, 3)
    for op, (form, to) in _api.ATEN_OPS.items():
        forms[form] = forms.get(form, 0) + 1
        rule = ops_map.OPS.get(op)
        if form in ("alias", "create"):
            assert rule == (ops_map.ALIAS if form == "alias"
                            else ops_map.CREATE), op
            assert not re.search(r'"%s":\s*(ALIAS|CREATE)\b' % op, source)
        elif form in ("unary", "binary"):
            b = _Nodes()
            args = (x,) if form == "unary" else (x, x)
            out = torch.zeros(2, 3, dtype=torch.bool) if to in (
                "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                "Not", "And", "Or", "Xor", "IsNaN", "IsInf") else x
            if to in ("Not", "And", "Or", "Xor"):
                args = tuple(torch.zeros(2, 3, dtype=torch.bool)
                             for _ in args)
            rule(b, args, {}, out)
            if op == "rsub":  # (its operands swapped: the same node)
                assert b.made == [("Sub", "", {})]
                continue
            assert b.made == [(to, "", {})], op
            assert not re.search(r'"%s":\s*(unary|binary)\("' % op, source)
    # the table has each form (a count from it, not from this file)
    assert set(forms) >= {"unary", "binary", "alias", "create"}


class Scaled(torch.nn.Module):
    def forward(self, x, y):
        return torch.add(x, y, alpha=2) + torch.sub(x, y, alpha=0.5) + \
            torch.rsub(x, 3.0, alpha=2)


@pytest.mark.parametrize("numbered", ["0", "defer"])
def test_alpha_is_counted(monkeypatch, numbered):
    """x + alpha * y is a multiply and an add an element (by hand: three
    such ops on [2, 6], and the two adds joining them, 12 elements each:
    3 * 24 + 2 * 12 = 96 FLOPs), however the calls are lowered."""
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
    x = torch.randn(2, 6)
    s = nnscan.summary(Scaled(), inputs=(x, x.clone()), file=False)
    assert s.totals["complete"] and s.uncounted_aten == {}
    assert s.totals["flops"] == 96


class Rounded(torch.nn.Module):
    def forward(self, x, y):
        return torch.div(x, y, rounding_mode="floor") + \
            torch.div(x, y, rounding_mode="trunc")


@pytest.mark.parametrize("numbered", ["0", "defer"])
def test_rounding_modes_are_counted(monkeypatch, numbered):
    """div's rounding modes (ops_map.py's div): floor a Div and a Floor an
    element, trunc a Div; and the Add joining them: on [2, 6] by hand
    12 * (2 + 1 + 1) = 48 FLOPs, however the calls are lowered."""
    monkeypatch.setenv("NNSCAN_TAPE_NUMBERED", numbered)
    x = torch.randn(2, 6)
    s = nnscan.summary(Rounded(), inputs=(x, x.clone() + 3), file=False)
    assert s.totals["complete"] and s.uncounted_aten == {}
    assert s.totals["flops"] == 48
