"""The recorder's tape (nnscan/tape.py, docs/tape.md): every recorded aten
call goes to the library as an aten record, which its aten table lowers.
Checked: the tape really holds every call, a one-node call beside the node
the library builds of it; every report is the one the recorder's own rules
gave before the library lowered the calls (rules_reference.py: frozen when
the rules went); parameters are sum(p.numel()) and the element-wise FLOPs
are the hand count; the calls that are not one node (alpha 2, mixed
dtypes, a number operand) are numbered by the library and counted, never
left uncounted."""
import json

import pytest

torch = pytest.importorskip("torch")

import nnscan  # noqa: E402
import rules_reference  # noqa: E402
from nnscan import graph  # noqa: E402


class Residual(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        y = torch.sigmoid(h * x + x)    # mul, add: one dtype, on the tape
        z = torch.add(y, h, alpha=2)    # alpha 2: numbered
        w = z * 0.5                     # a number: numbered
        return w - torch.tanh(h), (x > 0) | (h > 0)


def _record(monkeypatch):
    """(model, summary, [(the aten records handed over, the graph's nodes
    as (name, op))] per graph packed)."""
    held = []
    orig = graph._pack_parts  # what Graph.build packs the graph with

    def pack(g):
        held.append((dict(g.aten), [(n.name, n.op) for n in g.nodes]))
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    torch.manual_seed(0)
    m = Residual().eval()
    s = nnscan.summary(m, inputs=(torch.zeros(2, 6),), file=False)
    monkeypatch.setattr(graph, "_pack_parts", orig)
    return m, s, held


def test_tape_holds_every_call(monkeypatch):
    _, s, held = _record(monkeypatch)
    calls, nodes = held[-1]
    # every node of the graph is a call on the tape: none lowered in Python
    assert sorted(name for name, _ in nodes) == sorted(calls)
    ops = {name: calls[name][0] for name, _ in nodes}
    # the one-node calls, named by the recorder beside the node of the
    # table's op type: relu, mul, add, sigmoid, tanh, sub and the `or` of
    # two bool tensors
    one = sorted(ops[name] for name, op in nodes
                 if not op.startswith("aten::"))
    assert [o for o in one if o not in ("bitwise_or", "logical_or")] == [
        "add", "mul", "relu", "sigmoid", "sub", "tanh"]
    assert len(one) == 7
    # the library numbers the rest: the gt of a tensor and a number (two),
    # the alpha-2 add, the number mul and the Linear's product
    numbered = sorted(ops[name] for name, op in nodes
                      if op.startswith("aten::"))
    assert [o for o in numbered if o not in ("addmm", "linear")] == [
        "add", "gt", "gt", "mul"]
    assert len(numbered) == 5
    assert s.uncounted_aten == {}


def test_every_report_is_the_rules(monkeypatch, request):
    """Every report, byte for byte, is what the recorder's rules made of the
    same calls in Python before the library lowered them all."""
    _, s, _ = _record(monkeypatch)
    rules_reference.check(request, [
        s.to_text(), s.to_csv(), s.to_markdown(), s.to_json(version=1),
        s.to_json(version=2), s.to_html()])


def test_counts_on_the_tape_are_pytorchs(monkeypatch):
    m, s, _ = _record(monkeypatch)
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


# op types the table's entries make of booleans, or make booleans of
_BOOLEAN_IN = ("Not", "And", "Or", "Xor")


class _Call(torch.nn.Module):
    def __init__(self, op, arity):
        super().__init__()
        self.op, self.arity = op, arity

    def forward(self, *args):
        return self.op(*args[:self.arity])


def test_the_tables_one_node_entries_are_the_librarys_nodes():
    """An op the library's aten table lowers to one node of its op type
    (`unary`, `binary`), called on tensors of one dtype, is that node in
    the library's model; where the recorder names the node beside the
    record (tape.py's one-node calls: nearly all of them) its graph holds
    the same op type, so the Python passes reading g.nodes (fused.py's
    kernels, drop_nodes) see what the library builds."""
    from nnscan import _api, recorder
    _api.lib()
    forms = {}
    one_node = 0
    for op, (form, to) in _api.ATEN_OPS.items():
        forms[form] = forms.get(form, 0) + 1
        if form not in ("unary", "binary"):
            continue
        x = torch.zeros(2, 3, device="meta", dtype=torch.bool
                        if to in _BOOLEAN_IN else torch.float32)
        arity = 1 if form == "unary" else 2
        rec = recorder.record_model(
            _Call(getattr(torch.ops.aten, op), arity), (x,) * arity)
        h = rec.graph.build()
        h.infer(fallback_declared=True)
        assert [n[0] for n in h.nodes()] == [to], op
        assert rec.builder.uncounted == {}, op
        # the recorder's node of the call: the table's op type where it
        # names the node, else the call numbered by the library
        named = [n.op for n in rec.graph.nodes]
        assert named in ([to], ["aten::" + op]), op
        one_node += named == [to]
    # the table has each form (a count from it, not from this file)
    assert set(forms) >= {"unary", "binary", "alias", "create"}
    # named by the recorder: all but (at most) the two whose node is no
    # plain one of the call's tensors in order (rsub's operands swapped,
    # bitwise_not Not of booleans only), which the library may number
    assert one_node >= forms["unary"] + forms["binary"] - 2


class Made(torch.nn.Module):
    """Aliases of x (detach, clone, contiguous, alias, positive) and tensors
    made from nothing (zeros, ones_like, new_zeros, full)."""
    ALIASES = ("detach", "clone", "contiguous", "alias", "positive")
    MADE = ("zeros", "ones_like", "new_zeros", "full")

    def forward(self, x):
        a = x.detach().clone().contiguous() + torch.ops.aten.alias(x) + \
            torch.positive(x)
        c = torch.zeros(2, 6, device=x.device) + torch.ones_like(x) + \
            x.new_zeros(2, 6) + torch.full((2, 6), 3.0, device=x.device)
        return a * c


def test_alias_and_create_entries_make_no_node():
    """The table's `alias` entries name their input again and its `create`
    entries make a constant: no node of theirs in the library's model,
    which holds the five Adds and the Mul alone (6 * 12 FLOPs on [2, 6]),
    and one constant of [2, 6] per tensor made (4 * 12 elements)."""
    from nnscan import _api, recorder
    _api.lib()
    assert {_api.ATEN_OPS[op][0] for op in Made.ALIASES} == {"alias"}
    assert {_api.ATEN_OPS[op][0] for op in Made.MADE} == {"create"}
    x = torch.zeros(2, 6, device="meta")
    rec = recorder.record_model(Made(), (x,))
    g = rec.graph
    assert {src.split(".")[1] for src in g.node_source} == {"add", "mul"}
    assert sorted(g.param_kinds.values()) == ["constant"] * 4
    h = g.build()
    h.infer(fallback_declared=True)
    assert [n[0] for n in h.nodes()] == ["Add"] * 5 + ["Mul"]
    s = nnscan.summary(Made(), inputs=(torch.zeros(2, 6),), file=False)
    assert s.uncounted_aten == {}
    assert s.totals["flops"] == 6 * 12 and s.totals["constants"] == 4 * 12


class Scaled(torch.nn.Module):
    def forward(self, x, y):
        return torch.add(x, y, alpha=2) + torch.sub(x, y, alpha=0.5) + \
            torch.rsub(x, 3.0, alpha=2)


def test_alpha_is_counted():
    """x + alpha * y is a multiply and an add an element (by hand: three
    such ops on [2, 6], and the two adds joining them, 12 elements each:
    3 * 24 + 2 * 12 = 96 FLOPs)."""
    x = torch.randn(2, 6)
    s = nnscan.summary(Scaled(), inputs=(x, x.clone()), file=False)
    assert s.totals["complete"] and s.uncounted_aten == {}
    assert s.totals["flops"] == 96


class Rounded(torch.nn.Module):
    def forward(self, x, y):
        return torch.div(x, y, rounding_mode="floor") + \
            torch.div(x, y, rounding_mode="trunc")


def test_rounding_modes_are_counted():
    """div's rounding modes (the table's div): floor a Div and a Floor an
    element, trunc a Div; and the Add joining them: on [2, 6] by hand
    12 * (2 + 1 + 1) = 48 FLOPs."""
    x = torch.randn(2, 6)
    s = nnscan.summary(Rounded(), inputs=(x, x.clone() + 3), file=False)
    assert s.totals["complete"] and s.uncounted_aten == {}
    assert s.totals["flops"] == 48
