"""Hostile use of summary and its recorder (issue 18): threads, forwards
that fail or need data, the user's own hooks, zero-size and complex
tensors, names no C string can hold, outputs nested deeper than Python's
recursion limit. Expected figures come from PyTorch itself (parameter
counts, tensor dtypes, buffer values) or from a single-threaded run, never
from constants copied from nnscan's output.
"""
import threading
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nnscan  # noqa: E402
from nnscan import recorder  # noqa: E402
from conftest import in_threads  # noqa: E402


def _table(s):
    return [(r["path"], r.get("macs"), r.get("params")) for r in s.layers]


# ==== 1. recordings in several threads ====

def _models():
    torch.manual_seed(0)
    deep = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.ReLU())
                           for _ in range(6)])
    conv = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 8, 3),
                         nn.Flatten(), nn.Linear(8 * 12 * 12, 10))
    lstm = nn.Sequential(nn.Embedding(50, 16), nn.Linear(16, 32),
                         nn.Sequential(nn.Linear(32, 32), nn.Tanh()),
                         nn.Linear(32, 4))
    return [(deep, dict(inputs=torch.zeros(2, 16))),
            (conv, dict(input_shape=(3, 16, 16))),
            (lstm, dict(inputs=torch.zeros(1, 7, dtype=torch.long)))]


def test_threads_each_get_their_own_table():
    models = _models()
    want = [_table(nnscan.summary(m, file=False, **kw)) for m, kw in models]
    # every module of every model has a row: a table is not missing rows
    for (m, _), t in zip(models, want):
        assert [p for p, _, _ in t] == [n for n, _ in m.named_modules()]
    got = [[] for _ in models]

    def work(k):
        m, kw = models[k]
        for _ in range(15):
            got[k].append(_table(nnscan.summary(m, file=False, **kw)))
    assert not in_threads(work, len(models))
    for k, runs in enumerate(got):
        assert len(runs) == 15
        for t in runs:
            assert t == want[k]
    assert not torch.nn.modules.module._global_forward_hooks
    assert not torch.nn.modules.module._global_forward_pre_hooks


# ==== 3. the fallback to the model's own device ====

class NeedsData(nn.Module):
    """A forward that needs real values (.item()), updates a buffer, a
    BatchNorm's running statistics and a Python attribute, and writes into
    its input in place."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(4)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.calls = 0

    def forward(self, x):
        self.steps += 1
        self.calls += 1
        x.mul_(2)  # in place, into the caller's tensor unless copied
        h = nn.functional.batch_norm(x, self.bn.running_mean,
                                     self.bn.running_var, training=True)
        if h.sum().item() > -1e9:  # needs data
            h = h + 1
        return self.fc(h)


def test_fallback_restores_buffers_and_never_writes_inputs():
    torch.manual_seed(0)
    m = NeedsData()
    x = torch.randn(5, 4)
    x0 = x.clone()
    state = {k: v.clone() for k, v in m.state_dict().items()}
    with pytest.warns(UserWarning, match="meta"):
        s = nnscan.summary(m, inputs=x, file=False)
    assert s.device == "cpu"
    assert torch.equal(x, x0)
    for k, v in m.state_dict().items():
        assert torch.equal(v, state[k]), k
    assert m.calls == 0 and int(m.steps) == 0
    # the recording is the forward's: Linear 5x4 by 4x3
    assert s.layer("fc")["macs"] == 5 * 4 * 3


RUNS = []  # forward calls of Raises, on any copy of it


class Raises(nn.Module):
    def __init__(self, exc):
        super().__init__()
        self.fc = nn.Linear(10, 5)
        self.exc = exc

    def forward(self, x):
        RUNS.append(1)
        if self.exc == "recursion":
            def down(n):
                return down(n + 1)
            down(0)
        if self.exc is not None:
            raise self.exc
        return self.fc(x)


@pytest.mark.parametrize("exc, shape, kind", [
    (ValueError("bad value"), (10,), ValueError),
    ("recursion", (10,), RecursionError),
    (None, (7,), RuntimeError),  # Linear(10, 5) on 7 features: shape error
])
def test_forward_errors_raise_once_without_blaming_meta(exc, shape, kind):
    RUNS.clear()
    m = Raises(exc)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(kind):
            nnscan.summary(m, shape, file=False)
    assert len(RUNS) == 1
    assert not [w for w in seen if "meta" in str(w.message)]


def test_meta_caused_errors_are_told_apart():
    x = torch.empty(3, device="meta")
    for fn in (lambda: x.sum().item(), lambda: x.tolist(),
               lambda: x.numpy(), lambda: x + torch.ones(3)):
        with pytest.raises(Exception) as e:
            fn()
        assert recorder.meta_caused(e.value), e.value
    for e in (ValueError("meta"), RecursionError("meta"),
              RuntimeError("mat1 and mat2 shapes cannot be multiplied")):
        assert not recorder.meta_caused(e)
    try:
        try:
            x.sum().item()
        except Exception as inner:
            raise KeyError("wrapped") from inner
    except KeyError as outer:
        assert recorder.meta_caused(outer)


def test_a_type_error_in_a_meta_kernel_is_meta_caused():
    # PyTorch 1.13's cdist meta kernel compares None with an int: a
    # TypeError raised in torch/_meta_registrations.py, which the model's
    # own device does not raise; the same TypeError in the user's code is
    # the forward's own
    kernel, user = {}, {}
    exec(compile("def f():\n    return None >= 1\n",
                 "/usr/lib/python3/dist-packages/torch/_meta_registrations.py",
                 "exec"), kernel)
    exec(compile("def f():\n    return None >= 1\n", "/home/u/model.py",
                 "exec"), user)
    for ns, caused in ((kernel, True), (user, False)):
        with pytest.raises(TypeError) as e:
            ns["f"]()
        assert recorder.meta_caused(e.value) is caused


class Extension(nn.Module):
    """Like a compiled extension's kernel that takes real tensors only: a
    RuntimeError raised inside C code (here, releasing an unlocked lock)
    when it meets a meta tensor; or raise=True, the forward's own
    RuntimeError."""

    def __init__(self, own_error=False):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.own_error = own_error

    def forward(self, x):
        RUNS.append(1)
        if self.own_error:
            raise RuntimeError("the forward's own error")
        if x.is_meta:
            threading.Lock().release()
        return self.fc(x)


def test_c_code_refusing_meta_falls_back_own_runtime_error_does_not():
    RUNS.clear()
    with pytest.warns(UserWarning, match="meta"):
        s = nnscan.summary(Extension(), (4,), file=False)
    assert s.device == "cpu" and s.totals["macs"] == 4 * 2
    assert len(RUNS) == 2
    RUNS.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match="own error"):
            nnscan.summary(Extension(own_error=True), (4,), file=False)
    assert len(RUNS) == 1


class NoMetaKernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        y = self.fc(x)
        # no meta kernel: data-dependent size (of an activation: a float
        # input's values are kept on a second try, recorder.py)
        kept = torch.nonzero(y >= 0)
        return y * kept.shape[0]


def test_op_without_meta_kernel_falls_back():
    with pytest.warns(UserWarning, match="meta"):
        s = nnscan.summary(NoMetaKernel(), (4,), file=False)
    assert s.device == "cpu" and s.layer("fc")["macs"] == 4 * 2


# ==== 5. the user's own hooks ====

class MakesPositions(nn.Module):
    """Conv, norm, linear and positions made in the forward (arange): what
    transformers' models call; and a buffer it counts its calls in."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.norm = nn.LayerNorm(8)
        self.fc = nn.Linear(8, 4)
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        self.calls.add_(1)
        h = self.norm(self.conv(x).flatten(2).transpose(1, 2))
        pos = torch.arange(h.shape[1], device=h.device)
        return self.fc(h + pos[:, None].to(h.dtype))


@pytest.mark.parametrize("mode", ["inference_mode", "no_grad"])
def test_a_summary_inside_inference_mode_counts_as_outside(mode):
    # inside torch.inference_mode PyTorch 2.x would hand the recording
    # conv2d, layer_norm and linear whole (no rule counts them: the
    # totals would be lower bounds), and on 1.13 its arange raised: the
    # meta copy and its recording run outside it (the copy's buffer is
    # written in place there; the model's is not), and the caller's mode
    # is as it was.
    # The MACs by hand: the convolution 8 * 3 * 3 * 3 per output
    # element (8 * 14 * 14 of them), the linear 8 * 4 per position
    model = MakesPositions().eval()
    x = torch.zeros(1, 3, 16, 16)
    want = nnscan.summary(model, inputs=x, file=False)
    with getattr(torch, mode)():
        got = nnscan.summary(model, inputs=x, file=False)
        assert torch.is_inference_mode_enabled() == (mode == "inference_mode")
    assert got.totals == want.totals and got.totals["complete"]
    assert model.calls.item() == 0
    assert got.totals["macs"] >= 8 * 14 * 14 * 27 + 14 * 14 * 8 * 4
    assert got.to_text() == want.to_text()


def test_user_hooks_do_not_fire_during_summary():
    fired = []
    for data_dependent in (False, True):
        m = NeedsData() if data_dependent else nn.Sequential(
            nn.Linear(4, 4), nn.ReLU())
        sub = m.fc if data_dependent else m[0]
        m.register_forward_pre_hook(lambda mod, a: fired.append("pre"))
        m.register_forward_hook(lambda mod, a, o: fired.append(o))
        sub.register_forward_hook(lambda mod, a, o: fired.append(o))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nnscan.summary(m, inputs=torch.zeros(2, 4), file=False)
        assert fired == []
        # the hooks are still the model's
        m(torch.zeros(2, 4))
        assert len(fired) == 3
        assert all(not (isinstance(f, torch.Tensor) and f.is_meta)
                   for f in fired)
        fired.clear()


def test_torch_own_hooks_still_run():
    # A lazy module infers its parameters in a forward pre-hook of
    # PyTorch's own, which must run on the copy.
    m = nn.Sequential(nn.LazyLinear(6), nn.ReLU())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lazy modules warn of themselves
        s = nnscan.summary(m, inputs=torch.zeros(2, 5), file=False)
    assert s.totals["macs"] == 2 * 5 * 6
    assert isinstance(m[0], nn.LazyLinear)  # the user's model is untouched


# ==== 18. outputs nested deeper than the recursion limit ====

class Deep(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.depth = depth

    def forward(self, nested):
        x = nested
        while isinstance(x, list):
            x = x[0]
        out = self.fc(x)
        for _ in range(self.depth):
            out = [out]
        return out


def test_outputs_and_inputs_nested_2000_deep():
    nested = torch.zeros(3, 4)
    for _ in range(2000):
        nested = [nested]
    s = nnscan.summary(Deep(2000), inputs=(nested,), file=False)
    assert s.totals["macs"] == 3 * 4 * 2
    assert s.modules["fc"]["output_shapes"] == [[3, 2]]
    cyc = [torch.zeros(1)]
    cyc.append(cyc)
    assert len(recorder.flatten(cyc)) == 1
    assert recorder.flatten({"a": [torch.ones(1), (torch.zeros(2),)]})[1] \
        .shape == (2,)


# ==== 12. zero-size dims ====

def test_zero_size_dims():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ShapeMismatch would be a warning
        s = nnscan.summary(nn.Linear(10, 5), input_shape=(0, 10), file=False)
    want = nn.Linear(10, 5)(torch.zeros(1, 0, 10)).shape
    assert s.modules[""]["output_shapes"] == [list(want)]
    assert s.totals["macs"] == 0
    assert s.totals["params"] == 10 * 5 + 5

    class Flat(nn.Module):
        def forward(self, x):
            return x.reshape(x.shape[0], 6, 2).flatten(1) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = nnscan.summary(Flat(), inputs=torch.zeros(0, 4, 3), file=False)
    assert s.modules[""]["output_shapes"] == [[0, 12]]
    # an empty batch through the backward pass too (max_pool's gradient)
    conv = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(4 * 3 * 3, 2))
    s = nnscan.summary(conv, inputs=torch.zeros(0, 3, 8, 8), backward=True,
                       file=False)
    assert s.totals["macs"] == 0 and s.backward.totals["macs"] == 0
    assert s.totals["params"] == sum(p.numel() for p in conv.parameters())


# ==== 13. complex tensors ====

class ComplexNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4, dtype=torch.complex64))

    def forward(self, x):
        return (x @ self.w).abs() * 2


def _inferred(rec):
    import json
    h = rec.graph.build()
    h.infer(fallback_declared=True)
    doc = json.loads(h.report("shapes_json"))
    return doc, {**doc["values"], **doc["outputs"]}


def test_complex_abs_is_real_as_in_pytorch():
    m = ComplexNet()
    x = torch.randn(2, 4, dtype=torch.complex64)
    want = str(m(x).dtype).replace("torch.", "")  # PyTorch: float32
    rec = recorder.record_model(m, (x,))
    doc, values = _inferred(rec)
    assert not doc["warnings"]
    assert doc["outputs"] and \
        all(v["dtype"] == want for v in doc["outputs"].values())
    # every value has the dtype PyTorch gave its tensor (by the library's
    # names of the recorder's values: the numbering may be the library's)
    g = rec.graph
    for name, (dt, _) in zip(g.library_names(g.values), g.values.values()):
        if name in values:
            assert values[name]["dtype"] == _dtype_name(dt), name


def _dtype_name(onnx):
    from nnscan import _api
    return {v: k for k, v in _api.dtypes().items()}[onnx]


def test_input_shape_uses_a_complex_models_dtype():
    m = ComplexNet()
    # (the module itself: `nnscan` imports it only when first used)
    from nnscan import torch_api
    args, _ = torch_api.make_inputs(m, (4,))
    assert args[0].dtype == m.w.dtype
    s = nnscan.summary(m, (4,), file=False)
    assert s.totals["params"] == m.w.numel()
    assert s.modules[""]["output_shapes"] == [[1, 4]]


# ==== 17. names C strings cannot hold ====

ODD_NAMES = ["a\0x", "a\0y", "a\\x00x", "a\ud800", "a\udfff\0", "plain"]


def _odd_model():
    m = nn.Sequential()
    for k, name in enumerate(ODD_NAMES):
        m.add_module(name, nn.Linear(4, 4, bias=k % 2 == 0))
    return m


def test_odd_module_names_in_summary():
    m = _odd_model()
    s = nnscan.summary(m, (4,), file=False)
    paths = [row["path"] for row in s.layers]
    assert len(set(paths)) == len(paths) == len(ODD_NAMES) + 1
    for name, sub in m.named_children():
        row = s.layer(name)
        assert row["params"] == sum(p.numel() for p in sub.parameters())
        assert row["macs"] == 4 * 4
        assert nnscan._api.py_name(row["path"]) == name
    # readable: the escapes are plain text, the text table renders
    assert "a\\x00x" in s.to_text() and "a\\ud800" in s.to_text()
    info = nnscan.crawl_module(m, (4,))
    by_name = {d["name"]: d for d in info["layers"]}
    for name in ODD_NAMES:
        assert by_name[name]["macs"] == 4 * 4


def test_odd_names_in_the_inspector():
    m = _odd_model()
    with nnscan.Inspector(m, name="root\0\ud800") as insp:
        m(torch.zeros(2, 4))
    doc = insp.json()
    paths = [mod["path"] for mod in doc["modules"]]
    assert len(set(paths)) == len(paths) == len(ODD_NAMES) + 1
    assert sorted(nnscan._api.py_name(p) for p in paths) == \
        sorted(n for n, _ in m.named_modules())
    assert "a\\x00x" in insp.report("text")


def test_c_name_is_injective_and_reversible():
    from nnscan._api import c_name, py_name
    names = ODD_NAMES + ["a", "a\\", "a\\\\", "\\x00", "\\ud800", "é\0",
                         "\\u00e9", "\udc80\udc80"]
    enc = [c_name(n) for n in names]
    assert len(set(enc)) == len(names)
    for n, e in zip(names, enc):
        assert b"\0" not in e
        assert py_name(e.decode("utf-8")) == n
