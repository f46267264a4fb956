"""nnscan.Inspector against what PyTorch itself shows: shapes and gradient
shapes against plain forward hooks and Tensor.register_hook, time against
a module that sleeps a known time and the wall clock, NaN/Inf against
where the test injects it, the model's state against a snapshot, and the
JSON against its schema and the seed tool's documented keys."""
import json
import os
import time

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import nnscan  # noqa: E402
from html_page import embedded  # noqa: E402
from nnscan.inspector import Inspector, InspectorGadgets  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# The keys the seed tool's README documents for every "info" block.
SEED_KEYS = ["type", "input_shapes", "output_shapes", "grad_in_shape",
             "grad_out_shape", "num_parameters", "num_learnable_parameters",
             "param_memory_usage", "gradient_memory_usage",
             "input_memory_usage", "output_memory_usage",
             "effective_additional_memory_fwd",
             "effective_additional_memory_bwd", "forward_nan", "grad_in_nan",
             "grad_out_nan", "total_memory", "forward_latency",
             "backward_latency"]


def tensors(obj):
    """Tensors of nested tuples/lists/dicts, in order (the test's own)."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for v in obj for t in tensors(v)]
    if isinstance(obj, dict):
        return [t for v in obj.values() for t in tensors(v)]
    return []


def reference_run(model, make_input):
    """Shapes seen by plain forward hooks and Tensor.register_hook, per
    module path, for the first call of each module."""
    seen = {}
    handles = []
    names = {id(m): p for p, m in model.named_modules()}

    def pre(mod, args):
        rec = seen.setdefault(names[id(mod)], None)
        if rec is not None:
            return
        rec = seen[names[id(mod)]] = {"in": [], "out": [], "gin": [],
                                      "gout": []}
        for t in tensors(args):
            rec["in"].append(list(t.shape))
            if t.requires_grad:
                t.register_hook(lambda g, r=rec: r["gin"].append(
                    list(g.shape)))

    def post(mod, args, out):
        rec = seen[names[id(mod)]]
        if rec["out"]:
            return
        for t in tensors(out):
            rec["out"].append(list(t.shape))
            if t.requires_grad:
                t.register_hook(lambda g, r=rec: r["gout"].append(
                    list(g.shape)))
    for m in model.modules():
        handles.append(m.register_forward_pre_hook(pre))
        handles.append(m.register_forward_hook(post))
    out = model(make_input())
    tensors(out)[0].float().mean().backward()
    for h in handles:
        h.remove()
    return seen


def inspected_shapes(doc):
    first = {}
    paths = {m["index"]: m["path"] for m in doc["modules"]}
    for c in doc["calls"]:
        p = paths[c["module"]]
        if p in first:
            continue
        rec = first[p] = {"in": [], "out": [], "gin": [], "gout": []}
        key = {"input": "in", "output": "out", "grad_input": "gin",
               "grad_output": "gout"}
        for t in c["tensors"]:
            rec[key[t["role"]]].append(t["shape"])
    return first


def compare_shapes(model, make_input):
    torch.manual_seed(0)
    ref = reference_run(model, make_input)
    model.zero_grad()
    with Inspector(model) as insp:
        out = model(make_input())
        tensors(out)[0].float().mean().backward()
    assert insp.errors == []
    got = inspected_shapes(insp.json())
    assert set(got) == set(ref)
    for path in ref:
        for k in ("in", "out"):
            assert got[path][k] == ref[path][k], (path, k)
        # Gradients arrive in the order autograd computes them.
        for k in ("gin", "gout"):
            assert sorted(got[path][k]) == sorted(ref[path][k]), (path, k)


def test_packed_records_match_the_c_structs():
    """send() packs calls and tensors with struct formats: every field of
    a packed record reads back through the ctypes struct (the header's
    layout, test_header) with the value packed."""
    import ctypes
    from nnscan import _inspect_api as api, _inspect_records as rec
    call = (7, 3, 5, 11, 13, 1.5, 17, 19, 2.5, 23, 29, 3.5, 31, 37, 4.5, 41,
            43, 47, 53)
    c = api._Call.from_buffer(bytearray(rec._CALL.pack(*call)))
    got = (c.module, c.parent, c.flags, c.fwd_seq, c.bwd_seq,
           *[v for e in (c.fwd_start, c.fwd_end, c.bwd_start, c.bwd_end)
             for v in (e.time_ms, e.alloc_bytes, e.live_bytes)],
           c.tensor_first, c.tensor_count)
    assert got == call
    name = ctypes.create_string_buffer(b"1.key")
    tensor = (2, 10, 4, 9, 6, ctypes.addressof(name), 96, -1.0, 2.0, 0.5,
              0.25, 0.125)
    t = api._Tensor.from_buffer(bytearray(rec._TENSOR.pack(*tensor)))
    assert (t.role, t.dtype, t.rank, t.flags, t.dims, t.name, t.bytes, t.min,
            t.max, t.mean, t.std, t.zero_fraction) == \
        tensor[:5] + (b"1.key",) + tensor[6:]
    assert rec._CALL.size == ctypes.sizeof(api._Call)
    assert rec._TENSOR.size == ctypes.sizeof(api._Tensor)


def test_cuda_clock_reads_the_allocator_as_memory_stats_does(monkeypatch):
    """On a GPU each hook reads the allocator's nested statistics: the
    bytes allocated so far and live are what torch.cuda.memory_stats()
    reports as allocated_bytes.all.allocated and .current (its flattening
    of the same nested dict, stubbed here: no GPU needed)."""
    import types
    import torch.cuda.memory as cm
    from nnscan._inspect_clock import Clock
    nested = {"allocated_bytes": {p: {"current": 100 + i, "peak": 200 + i,
                                      "allocated": 300 + i, "freed": 400 + i}
                                  for i, p in enumerate(("all", "small_pool",
                                                         "large_pool"))},
              "num_ooms": 0}
    monkeypatch.setattr(cm, "memory_stats_as_nested_dict",
                        lambda device=None: nested)
    flat = cm.memory_stats()

    class Event:
        def __init__(self, enable_timing=False):
            pass

        def record(self):
            pass
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Event=Event,
        memory_stats_as_nested_dict=cm.memory_stats_as_nested_dict))
    clock = Clock(fake, cuda=True, memory=True)
    _, alloc, live = clock.now(0.0)
    assert (alloc, live) == (flat["allocated_bytes.all.allocated"],
                             flat["allocated_bytes.all.current"]) == (300, 100)
    nested.clear()  # an allocator not yet used: nothing known
    assert clock.now(0.0)[1:] == (-1, -1)


def test_checks_stay_out_of_a_users_dispatch_mode():
    """A user's own TorchDispatchMode (a FLOP counter) around an inspected
    forward sees the model's ops only: the NaN/Inf checks' reductions are
    nobody's, and a Python call each there."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Count(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    x = torch.randn(3, 4)
    seen = []
    for inspect in (False, True):
        with torch.no_grad():
            if inspect:
                insp = Inspector(model, memory=False)
                insp.start()
            try:
                with Count() as c:
                    model(x)
            finally:
                if inspect:
                    insp.finish()
        seen.append(c.ops)
    assert seen[1] == seen[0]
    assert insp.json()["calls"][0]["forward"] is not None  # it did check


def test_shapes_resnet18():
    torchvision = pytest.importorskip("torchvision")
    model = torchvision.models.resnet18(num_classes=10)
    compare_shapes(model, lambda: torch.randn(2, 3, 32, 32))


def test_shapes_transformer():
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=2,
                                       dim_feedforward=32, dropout=0.0,
                                       batch_first=True)
    model = nn.Sequential(nn.Linear(8, 16), nn.TransformerEncoder(layer, 2),
                          nn.Linear(16, 4))
    compare_shapes(model, lambda: torch.randn(3, 5, 8, requires_grad=True))


# ==== Time ====

class Sleeper(nn.Module):
    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        time.sleep(self.seconds)
        return self.lin(x)


class SlowBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        time.sleep(0.04)
        return g


class SleepsInBackward(nn.Module):
    def forward(self, x):
        return SlowBackward.apply(x)


def timed_model():
    return nn.Sequential(
        nn.Linear(4, 4),
        nn.Sequential(nn.ReLU(), Sleeper(0.05), nn.Linear(4, 4)),
        SleepsInBackward(),
        nn.Linear(4, 2))


def check_nesting(doc, tol=1e-6):
    """For every call, inclusive >= the sum of its children's, forward and
    backward; for every module too."""
    kids = {}
    for c in doc["calls"]:
        if c["parent"] is not None:
            kids.setdefault(c["parent"], []).append(c)
    for c in doc["calls"]:
        ch = kids.get(c["index"], [])
        assert c["forward"]["inclusive_ms"] + tol >= sum(
            k["forward"]["inclusive_ms"] for k in ch)
        if c["backward"] is not None:
            assert c["backward"]["inclusive_ms"] + tol >= sum(
                k["backward"]["inclusive_ms"] for k in ch
                if k["backward"] is not None)
    mods = doc["modules"]
    for m in mods:
        ch = [k for k in mods if k["parent"] == m["index"]]
        for ph in ("forward", "backward"):
            assert m[ph]["inclusive_ms"] + tol >= sum(
                k[ph]["inclusive_ms"] for k in ch), (m["path"], ph)
            assert m[ph]["self_ms"] <= m[ph]["inclusive_ms"] + tol


def test_sleep_shows_at_itself_and_ancestors_only():
    model = timed_model()
    x = torch.randn(3, 4)
    walls = []
    with Inspector(model) as insp:
        for _ in range(2):
            t0 = time.perf_counter()
            out = model(x)
            t1 = time.perf_counter()
            out.sum().backward()
            t2 = time.perf_counter()
            walls.append(((t1 - t0) * 1e3, (t2 - t1) * 1e3))
    assert insp.errors == []
    doc = insp.json()
    by = {m["path"]: m for m in doc["modules"]}
    fwd = {p: m["forward"]["inclusive_ms"] / 2 for p, m in by.items()}
    bwd = {p: m["backward"]["inclusive_ms"] / 2 for p, m in by.items()}
    # A sleep is a floor; the ceiling is the pass's own wall time. Modules
    # that do not sleep stay under half a sleep even on a loaded machine.
    wall_fwd = sum(w[0] for w in walls) / 2
    wall_bwd = sum(w[1] for w in walls) / 2
    for p in ("1.1", "1", ""):
        assert 50 <= fwd[p] <= wall_fwd, (p, fwd[p], wall_fwd)
    for p in ("0", "1.0", "1.2", "2", "3", "1.1.lin"):
        assert fwd[p] < 20, (p, fwd[p])
    assert by["1.1"]["forward"]["self_ms"] / 2 >= 49
    for p in ("2", ""):
        assert 40 <= bwd[p] <= wall_bwd, (p, bwd[p], wall_bwd)
    for p in ("0", "1", "3"):
        assert bwd[p] < 20, (p, bwd[p])
    check_nesting(doc)
    # The root's time per pass fits in the wall time of that pass.
    for pas, (wf, wb) in zip(doc["passes"], walls):
        assert pas["forward_ms"] <= wf
        assert pas["backward_ms"] <= wb
    calls = [c for c in doc["calls"] if c["parent"] is None]
    assert len(calls) == 2


def test_nesting_on_resnet_and_memory_counted():
    torchvision = pytest.importorskip("torchvision")
    model = torchvision.models.resnet18(num_classes=10)
    with Inspector(model) as insp:
        model(torch.randn(2, 3, 32, 32)).mean().backward()
    doc = insp.json()
    check_nesting(doc)
    root = doc["modules"][0]
    # Every output of conv1 is new memory: at least its bytes.
    conv1 = [m for m in doc["modules"] if m["path"] == "conv1"][0]
    assert conv1["forward"]["alloc_bytes"] >= 2 * 64 * 16 * 16 * 4
    assert root["forward"]["alloc_bytes"] >= conv1["forward"]["alloc_bytes"]
    assert root["backward"]["alloc_bytes"] > 0


# ==== NaN / Inf ====

class MakesNaN(nn.Module):
    def forward(self, x):
        y = x * 1.0
        y[0, 0] = float("nan")
        return y


class NaNGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        g = g.clone()
        g[0, 0] = float("nan")
        return g


class MakesNaNGrad(nn.Module):
    def forward(self, x):
        return NaNGrad.apply(x)


def nan_model(middle):
    return nn.Sequential(nn.Linear(4, 4),
                         nn.Sequential(nn.Linear(4, 4), middle,
                                       nn.Linear(4, 4)),
                         nn.Linear(4, 2))


def roles(doc, phase):
    return {m["path"]: m["nonfinite"][phase + "_role"]
            for m in doc["modules"]}


def test_nan_forward_producer_and_propagators():
    model = nan_model(MakesNaN())
    with Inspector(model) as insp:
        model(torch.randn(3, 4)).sum().backward()
    doc = insp.json()
    first = doc["first_nonfinite"]["forward"]
    assert first["path"] == "1.1" and first["role"] == "producer"
    r = roles(doc, "forward")
    assert r["1.1"] == "producer"
    for p in ("", "1", "1.2", "2"):
        assert r[p] == "propagator", p
    for p in ("0", "1.0"):
        assert r[p] is None, p
    seed = json.loads(insp.report("seed"))
    info = seed["Sequential"]["children"]["1"]["children"]["1"]["info"]
    assert info["forward_nan"] is True
    assert seed["Sequential"]["children"]["0"]["info"]["forward_nan"] is False


def test_nan_backward_producer_and_propagators():
    model = nan_model(MakesNaNGrad())
    with Inspector(model) as insp:
        model(torch.randn(3, 4)).sum().backward()
    doc = insp.json()
    assert doc["first_nonfinite"]["forward"] is None
    first = doc["first_nonfinite"]["backward"]
    assert first["path"] == "1.1" and first["role"] == "producer"
    r = roles(doc, "backward")
    assert r["1.1"] == "producer"
    for p in ("", "1", "1.0", "0"):  # ancestors, and modules run after it
        assert r[p] == "propagator", p
    for p in ("1.2", "2"):
        assert r[p] is None, p
    by = {m["path"]: m for m in doc["modules"]}
    assert by["1.1"]["nonfinite"]["grad_input"]
    assert not by["1.1"]["nonfinite"]["grad_output"]


def test_stats():
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    with Inspector(model, stats=True) as insp:
        x = torch.randn(64, 4)
        model(x)
    ref = torch.relu(model[0](x))
    doc = insp.json()
    relu = [c for c in doc["calls"] if c["module"] == 2][0]
    st = [t for t in relu["tensors"] if t["role"] == "output"][0]["stats"]
    assert st["min"] == pytest.approx(float(ref.min()))
    assert st["max"] == pytest.approx(float(ref.max()))
    assert st["mean"] == pytest.approx(float(ref.mean()), rel=1e-5)
    assert st["std"] == pytest.approx(float(ref.std()), rel=1e-5)
    assert st["zero_fraction"] == pytest.approx(float((ref == 0).float()
                                                      .mean()))


# ==== Real code ====

def snapshot(model):
    """Everything about a model that hooks could leave behind."""
    state = []
    for name, m in model.named_modules():
        state.append((name, sorted(m.__dict__.keys()), m.training,
                      len(m._forward_hooks), len(m._forward_pre_hooks),
                      len(m._backward_hooks)))
    for name, p in model.named_parameters():
        state.append((name, p._backward_hooks is None, p.requires_grad,
                      None if p.grad is None else p.grad.clone().tolist()))
    return state


class AddInPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        y = self.a(x)
        y += self.b(x)
        return y


def inplace_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True), AddInPlace(),
                         nn.ReLU(inplace=True), nn.Linear(4, 2))


def test_inplace_ops_gradients_unchanged():
    x = torch.randn(5, 4)
    plain = inplace_model()
    plain(x).pow(2).sum().backward()
    model = inplace_model()
    before = snapshot(model)
    with Inspector(model) as insp:
        model(x).pow(2).sum().backward()
    for (n, p), (_, q) in zip(plain.named_parameters(),
                              model.named_parameters()):
        assert torch.equal(p.grad, q.grad), n
    after = snapshot(model)
    # Only the gradients changed (the backward ran); nothing else.
    strip = [s for s in after if len(s) != 4]
    assert strip == [s for s in before if len(s) != 4]
    assert [s[:3] for s in after if len(s) == 4] == \
        [s[:3] for s in before if len(s) == 4]
    doc = insp.json()
    relu = [m for m in doc["modules"] if m["path"] == "1"][0]
    assert relu["backward_calls"] == 1


class SlowInPlace(torch.autograd.Function):
    """Doubles x in place; its backward sleeps 40 ms."""
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)

    @staticmethod
    def backward(ctx, g):
        time.sleep(0.04)
        return g * 2


class InPlaceSlow(nn.Module):
    def forward(self, x):
        return SlowInPlace.apply(x)


def test_inplace_module_backward_timed_at_itself():
    model = nn.Sequential(nn.Linear(4, 4), InPlaceSlow(), nn.Linear(4, 2))
    with Inspector(model) as insp:
        loss = model(torch.randn(3, 4)).sum()
        t0 = time.perf_counter()
        loss.backward()
        wall = (time.perf_counter() - t0) * 1e3
    assert insp.errors == []
    by = {m["path"]: m for m in insp.json()["modules"]}
    # The sleep is a floor, the backward's wall time the ceiling.
    assert 40 <= by["1"]["backward"]["inclusive_ms"] <= wall
    for p in ("0", "2"):
        assert by[p]["backward"]["inclusive_ms"] < 20, p
    check_nesting(insp.json())
    call = [c for c in insp.json()["calls"] if c["module"] == 2][0]
    roles = sorted(t["role"] for t in call["tensors"])
    assert roles == ["grad_input", "grad_output", "input", "output"]


def test_reused_module_has_two_calls():
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(self.lin(x))
    model = Twice()
    with Inspector(model) as insp:
        model(torch.randn(2, 4)).sum().backward()
    doc = insp.json()
    lin = [m for m in doc["modules"] if m["path"] == "lin"][0]
    assert lin["calls"] == 2 and lin["backward_calls"] == 2
    assert "| lin | Linear | 2 |" in insp.report("md")
    seed = json.loads(insp.report("seed"))
    assert seed["Twice"]["children"]["lin"]["info"]["calls"] == 2


def test_no_grad_and_dict_output():
    class DictOut(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, extra=None):
            y = self.lin(x)
            return {"a": y, "b": (y * 2, y.sum())}
    model = DictOut()
    before = snapshot(model)
    with Inspector(model) as insp:
        with torch.no_grad():
            model(torch.randn(2, 4))
        out = model(torch.randn(2, 4), torch.randn(3))
        out["b"][1].backward()
        model(torch.randn(2, 4), extra=torch.randn(5, requires_grad=True))
    model.zero_grad(set_to_none=True)
    assert snapshot(model) == before
    doc = insp.json()
    root = [c for c in doc["calls"] if c["module"] == 0]
    assert root[0]["no_grad"] and root[0]["backward"] is None
    assert not root[1]["no_grad"] and root[1]["backward"] is not None
    outs = [t["name"] for t in root[1]["tensors"] if t["role"] == "output"]
    assert outs == ["a", "b.0", "b.1"]
    ins = [(t["name"], t["shape"]) for t in root[1]["tensors"]
           if t["role"] == "input"]
    assert ins == [("0", [2, 4]), ("1", [3])]
    # Keyword arguments: hooks see them on torch >= 2.0; on 1.13 the
    # wrapped forward hands them over.
    kw = [(t["name"], t["shape"]) for t in root[2]["tensors"]
          if t["role"] == "input"]
    assert kw == [("0", [2, 4]), ("extra", [5])]
    assert len(doc["passes"]) == 3


def test_forward_that_raises_leaves_model_unchanged():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    model = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.ReLU(), Boom()))
    before = snapshot(model)
    with pytest.raises(ValueError):
        with Inspector(model):
            model(torch.randn(2, 4))
    assert snapshot(model) == before
    # Caught inside: the pass is marked, the next pass is recorded.
    insp = Inspector(model).start()
    try:
        with pytest.raises(ValueError):
            model(torch.randn(2, 4))
        model[0](torch.randn(2, 4))
    finally:
        insp.finish()
    assert snapshot(model) == before
    doc = insp.json()
    raised = [c for c in doc["calls"] if c["raised"]]
    assert {doc["modules"][c["module"]]["path"] for c in raised} == \
        {"", "1", "1.1"}
    assert len(doc["passes"]) == 2


# ==== Files and schemas ====

def test_seed_layout_and_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    torchvision = pytest.importorskip("torchvision")
    model = torchvision.models.resnet18(num_classes=10)
    save = tmp_path / "insight"
    with InspectorGadgets(model, save_file=str(save)) as insp:
        out = model(torch.randn(2, 3, 64, 64))
        insp.backward_mode()
        out.mean().backward()
    seed_path = tmp_path / "insight_ResNet.json"
    own_path = tmp_path / "insight_ResNet.inspect.json"
    assert sorted(insp.saved_files) == sorted([str(seed_path),
                                               str(own_path)])
    seed = json.loads(seed_path.read_text())
    assert list(seed) == ["ResNet"]
    mods = dict(model.named_modules())

    def walk(node, path):
        info = node["info"]
        for k in SEED_KEYS:
            assert k in info, (path, k)
        m = mods[path]
        params = list(m.parameters())
        assert info["type"] == type(m).__name__
        assert info["num_parameters"] == sum(p.numel() for p in params)
        nbytes = sum(p.numel() * p.element_size() for p in params)
        assert info["param_memory_usage"] == pytest.approx(nbytes / 1e6)
        assert info["gradient_memory_usage"] == pytest.approx(nbytes / 1e6)
        assert set(node["children"]) == {n for n, _ in m.named_children()}
        for name, child in node["children"].items():
            walk(child, f"{path}.{name}" if path else name)
    walk(seed["ResNet"], "")
    conv1 = seed["ResNet"]["children"]["conv1"]["info"]
    assert conv1["input_shapes"] == [[2, 3, 64, 64]]
    assert conv1["output_shapes"] == [[2, 64, 32, 32]]
    assert conv1["output_memory_usage"] == [
        pytest.approx(2 * 64 * 32 * 32 * 4 / 1e6)]
    assert conv1["grad_out_shape"] == [[2, 64, 32, 32]]
    assert conv1["grad_in_shape"] == []  # the image needs no gradient
    with open(os.path.join(ROOT, "docs", "inspect.schema.json")) as f:
        schema = json.load(f)
    doc = json.loads(own_path.read_text())
    jsonschema.validate(doc, schema)
    assert doc["schema"] == "nnscan.inspect" and doc["schema_version"] == 1


def test_text_and_csv_reports_and_static_counts():
    model = nan_model(nn.Identity())
    # Static counts of one call, by hand: Linear(4, 2) on a batch of 2 is
    # 2 x 4 x 2 = 16 MACs.
    with Inspector(model, static_counts={"2": (32, 16)}) as insp:
        model(torch.randn(2, 4)).sum().backward()
    by = {m["path"]: m for m in insp.json()["modules"]}
    assert (by["2"]["flops"], by["2"]["macs"]) == (32, 16)
    assert by["0"]["macs"] is None
    text = insp.report(width=200)  # every column (100: some give way)
    assert "├─1" in text and "│ ├─0" in text and "Fwd self" in text
    csv = insp.report("csv").splitlines()
    assert csv[0].startswith("path,depth,name,type,calls,output_shape")
    assert len(csv) == 1 + len(list(model.modules()))


def test_html_page_embeds_the_inspection():
    jsonschema = pytest.importorskip("jsonschema")
    model = nan_model(nn.Identity())
    with Inspector(model) as insp:
        model(torch.randn(2, 4)).sum().backward()
    page = insp.to_html()
    assert page == insp.report("html") and page.startswith("<!DOCTYPE html>")
    assert f"<title>{insp.name}: nnscan inspection</title>" in page
    kind, doc = embedded(page)
    assert kind == "nnscan.inspect"
    with open(os.path.join(ROOT, "docs", "inspect.schema.json")) as f:
        jsonschema.validate(doc, json.load(f))
    # The modules PyTorch lists, in its order.
    assert [m["path"] for m in doc["modules"]] == \
        [p for p, _ in model.named_modules()]
    assert doc == insp.json()


def test_bad_arguments():
    assert nnscan.Inspector is Inspector
    assert nnscan.InspectorGadgets is InspectorGadgets
    with pytest.raises(TypeError):
        Inspector("not a module")
    insp = Inspector(nn.Linear(2, 2))
    with pytest.raises(RuntimeError):
        insp.report()
    insp.start()
    with pytest.raises(RuntimeError):
        insp.start()
    insp.finish()
    insp.finish()  # twice is harmless
    with pytest.raises(KeyError):
        insp.report("xml")


def test_tied_weights_and_watch_depth():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.b = nn.Sequential(nn.Linear(4, 4))
            self.b[0].weight = self.a.weight  # one parameter, two modules

        def forward(self, x):
            return self.b(self.a(x))
    model = Tied()
    before = snapshot(model)
    with Inspector(model, watch_depth=1) as insp:
        model(torch.randn(2, 4)).sum().backward()
    model.zero_grad(set_to_none=True)
    assert snapshot(model) == before
    doc = insp.json()
    by = {m["path"]: m for m in doc["modules"]}
    # b.0 is below the watched depth: not a row (issue 17).
    assert by["b"]["calls"] == 1 and "b.0" not in by
    # b's forward includes b.0's, which is not hooked: all of it is self.
    assert by["b"]["forward"]["self_ms"] == by["b"]["forward"]["inclusive_ms"]


def test_static_counts_from_the_recorder():
    pytest.importorskip("nnscan.torch_api")
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    x = torch.randn(3, 8)
    with Inspector(model, static_inputs=x) as insp:
        model(x).sum().backward()
    assert insp.errors == []
    by = {m["path"]: m for m in insp.json()["modules"]}
    # Linear MACs by hand: batch x in x out.
    assert by["0"]["macs"] == 3 * 8 * 16
    assert by["2"]["macs"] == 3 * 16 * 4
    assert by[""]["macs"] == 3 * 8 * 16 + 3 * 16 * 4


def test_seed_list_of_models(tmp_path):
    enc, dec = nn.Linear(4, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 2))
    with InspectorGadgets([enc, dec], save_file=str(tmp_path / "run.json")) \
            as insp:
        dec(enc(torch.randn(2, 4))).sum().backward()
        insp.backward_mode()
    assert sorted(os.path.basename(f) for f in insp.saved_files) == [
        "run_Linear.inspect.json", "run_Linear.json",
        "run_Sequential.inspect.json", "run_Sequential.json"]
    seed = json.loads((tmp_path / "run_Sequential.json").read_text())
    info = seed["Sequential"]["children"]["1"]["info"]
    assert info["input_shapes"] == [[2, 3]] and info["num_parameters"] == 8


# ---- issue 40, item 7: a NaN gradient through an input read for metadata ----

class _HFRotary(nn.Module):
    """As transformers' LlamaRotaryEmbedding: reads the hidden states for
    their dtype only; its outputs come from buffers and carry no
    gradient."""

    def __init__(self, head_dim, max_pos=64):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("inv_freq", inv, persistent=False)

    def forward(self, x, position_ids):
        freqs = position_ids[:, :, None].float() * self.inv_freq[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def _tiny_hf_llama(layers=2, hidden=16, heads=2, inter=32, vocab=24):
    import math
    import tiny_llama as tl
    F = torch.nn.functional

    class Attn(tl.Attention):
        def forward(self, x, mask, cos, sin):
            b, s, _ = x.shape
            sh = (b, s, self.heads, self.head_dim)
            q = self.q_proj(x).view(sh).transpose(1, 2)
            k = self.k_proj(x).view(sh).transpose(1, 2)
            v = self.v_proj(x).view(sh).transpose(1, 2)
            cos, sin = cos[:, None], sin[:, None]
            q = q * cos + tl.rotate_half(q) * sin
            k = k * cos + tl.rotate_half(k) * sin
            att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
            att = F.softmax(att + mask, dim=-1)
            return self.o_proj(torch.matmul(att, v).transpose(1, 2)
                               .reshape(b, s, -1))

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_layernorm = tl.RMSNorm(hidden)
            self.self_attn = Attn(hidden, heads)
            del self.self_attn.rotary
            self.post_attention_layernorm = tl.RMSNorm(hidden)
            self.mlp = tl.MLP(hidden, inter)

        def forward(self, x, mask, cos, sin):
            x = x + self.self_attn(self.input_layernorm(x), mask, cos, sin)
            return x + self.mlp(self.post_attention_layernorm(x))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(vocab, hidden)
            self.rotary_emb = _HFRotary(hidden // heads)
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.norm = tl.RMSNorm(hidden)
            self.lm_head = nn.Linear(hidden, vocab, bias=False)

        def forward(self, ids):
            s = ids.shape[1]
            x = self.embed_tokens(ids)
            pos = torch.arange(s)[None]
            cos, sin = self.rotary_emb(x, pos)
            mask = torch.full((s, s), float("-inf")).triu(1)
            for layer in self.layers:
                x = layer(x, mask, cos, sin)
            return self.lm_head(self.norm(x))

    return Model()


def test_backward_nan_not_blamed_on_a_metadata_reader():
    """(logits - logits.detach()).abs().sqrt() has a finite forward and a
    NaN gradient born in the loss, outside every module: d sqrt(|u|)/du at
    u = 0 is inf * 0. rotary_emb reads the embeddings for their dtype only
    and its outputs carry no gradient: it never produced (nor passed on)
    the NaN that reaches the embeddings, and the report does not name it.
    Reference: PyTorch's own gradients (the embeddings' is NaN, the
    rotary's outputs need none)."""
    torch.manual_seed(0)
    model = _tiny_hf_llama()
    ids = torch.randint(0, 24, (1, 6))
    with Inspector(model) as insp:
        logits = model(ids)
        (logits - logits.detach()).abs().sqrt().sum().backward()
    assert torch.isnan(model.embed_tokens.weight.grad).any()  # the premise
    doc = insp.json()
    # (forward: the causal mask's -inf, made by the model's own code)
    first = doc["first_nonfinite"]["backward"]
    assert first["path"] != "rotary_emb"
    assert first["role"] == "propagator"  # born in the loss, no module's
    # the first to see it: the gradient of the logits, the model's output
    # and lm_head's, one tensor (the model ties, being lm_head's ancestor)
    assert first["path"] in ("", "lm_head")
    r = roles(doc, "backward")
    assert r["rotary_emb"] is None
    assert "producer" not in r.values()
    by = {m["path"]: m for m in doc["modules"]}
    assert not by["rotary_emb"]["nonfinite"]["grad_input"]
    assert not by["rotary_emb"]["nonfinite"]["grad_output"]
    assert by["embed_tokens"]["nonfinite"]["grad_output"]
    line = [x for x in insp.report("text").splitlines()
            if x.startswith("First NaN/Inf in the backward")]
    assert line and "rotary_emb" not in line[0] and "passed it on" in line[0]


def test_backward_nan_not_blamed_on_hf_llama_rotary_emb():
    """The same on transformers' own LLaMA (where installed): no producer,
    the model passed on what the loss made."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=64)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg)
    ids = torch.randint(0, 64, (1, 8))
    with Inspector(model) as insp:
        logits = model(input_ids=ids).logits
        (logits - logits.detach()).abs().sqrt().sum().backward()
    assert torch.isnan(model.model.embed_tokens.weight.grad).any()
    doc = insp.json()
    r = roles(doc, "backward")
    assert r["model.rotary_emb"] is None
    assert "producer" not in r.values()
    first = doc["first_nonfinite"]["backward"]
    assert first["role"] == "propagator" and "rotary" not in first["path"]
