"""nnscan.StepMeter: MFU, HFU and throughput per training step in a plain
loop (issue 48). References are PyTorch's own: FlopCounterMode over one
real training step (2.x), the step times this test measures itself around
the same steps, and hand arithmetic for the figures."""
import io
import json
import math
import os
import inspect
import statistics
import sys
import time

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402

import nnscan  # noqa: E402
import test_header  # noqa: E402
from conftest import ROOT  # noqa: E402
from nnscan import _api, _mfu_api, hardware, step  # noqa: E402

D = 64


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(D, 4 * D)
        self.b = nn.Linear(4 * D, D)

    def forward(self, x):
        return x + self.b(torch.relu(self.a(x)))


class Net(nn.Module):
    """Three blocks and a head; `ck` checkpoints blocks 1 and 2."""

    def __init__(self, ck=None):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(3))
        self.head = nn.Linear(D, 10)
        self.ck = ck  # None, "reentrant" or "non_reentrant"

    def forward(self, x):
        for i, b in enumerate(self.blocks):
            if self.ck and i > 0:
                x = checkpoint(b, x, use_reentrant=self.ck == "reentrant")
            else:
                x = b(x)
        return self.head(x)


def _fcm_step(model, x):
    """FlopCounterMode's total over one real forward + backward."""
    fc_mod = pytest.importorskip("torch.utils.flop_counter")
    with fc_mod.FlopCounterMode(display=False) as fc:
        model(x).sum().backward()
    model.zero_grad(set_to_none=True)
    return fc.get_total_flops()


def _by_hand(n):
    """Matrix FLOPs (2 x MACs) of one step of Net on n rows, by hand: each
    Linear (k -> m) costs 2nkm forward, 2nkm for the input gradient (none
    for the first layer, whose input needs none) and 2nkm for the weight
    gradient."""
    layers = [(D, 4 * D), (4 * D, D)] * 3 + [(D, 10)]
    fwd = sum(2 * n * k * m for k, m in layers)
    bwd = sum(2 * 2 * n * k * m for k, m in layers) - 2 * n * D * 4 * D
    return fwd, bwd


# ---- the ctypes declarations match the header ----

def test_structs_match_header(tmp_path, monkeypatch):
    monkeypatch.setattr(_api, "STRUCTS", dict(_mfu_api.STRUCTS))
    test_header.test_struct_layouts_match_header(tmp_path)


def test_functions_match_header(monkeypatch):
    monkeypatch.setattr(_api, "FUNCTIONS", dict(_mfu_api.FUNCTIONS))
    test_header.test_function_signatures_match_header()
    protos = test_header._prototypes()
    ours = {n for n in protos if n.startswith(("nns_mfu_", "nns_step_"))}
    assert ours == set(_mfu_api.FUNCTIONS)


# ---- FLOPs ----

def test_model_flops_by_hand():
    """Forward and backward against the hand count (any PyTorch)."""
    x = torch.randn(32, D)
    f = step.flops_dict(step.record_flops(Net(), (x,)))
    fwd, bwd = _by_hand(32)
    assert (f["forward_flops"], f["backward_flops"]) == (fwd, bwd)
    assert f["model_flops"] == f["hardware_flops"] == fwd + bwd
    assert f["recompute_flops"] == 0 and f["recomputed"] == []


def test_model_flops_equal_flop_counter_mode():
    """One real training step under FlopCounterMode: equal (within 1 %
    is the bar; the count is exact here)."""
    x = torch.randn(32, D)
    m = Net()
    f = step.flops_dict(step.record_flops(m, (x,)))
    ref = _fcm_step(m, x)
    assert abs(f["model_flops"] - ref) <= 0.01 * ref
    assert f["model_flops"] == ref


@pytest.fixture(params=["native", "generator", "generator_early_stop"])
def layout(request, monkeypatch):
    """torch.utils.checkpoint as this PyTorch has it ("native"), or as
    PyTorch 2.1 to 2.11 lay it out: no _checkpoint_impl, checkpoint() runs
    the function itself between two steps of
    _checkpoint_without_reentrant_generator, which takes early_stop
    positionally after debug in the later of those versions. The older
    layouts are built over this PyTorch's own generator and
    CheckpointFunction, so the real step (FlopCounterMode's reference)
    recomputes exactly as PyTorch does; nnscan must read them alike."""
    if request.param == "native":
        return
    ck = torch.utils.checkpoint
    real = getattr(ck, "_checkpoint_without_reentrant_generator", None)
    if not hasattr(ck, "_checkpoint_impl") or real is None or \
            "early_stop" not in inspect.signature(real).parameters:
        pytest.skip("the layouts are built over PyTorch 2.14's generator")
    positional = request.param == "generator_early_stop"
    mode = ck._DEFAULT_DETERMINISM_MODE
    if positional:
        def generator(fn, preserve_rng_state=True, context_fn=None,
                      determinism_check=mode, debug=False, early_stop=True,
                      *args, **kwargs):
            return real(fn, preserve_rng_state, context_fn,
                        determinism_check, debug, early_stop, *args,
                        **kwargs)
    else:
        def generator(fn, preserve_rng_state=True, context_fn=None,
                      determinism_check=mode, debug=False, *args, **kwargs):
            return real(fn, preserve_rng_state, context_fn,
                        determinism_check, debug, True, *args, **kwargs)

    def old_checkpoint(function, *args, use_reentrant=None,
                       context_fn=ck.noop_context_fn,
                       determinism_check=mode, debug=False,
                       preserve_rng_state=True, **kwargs):
        if use_reentrant:
            return ck.CheckpointFunction.apply(function, preserve_rng_state,
                                               *args)
        lead = (True,) if positional else ()
        gen = ck._checkpoint_without_reentrant_generator(
            function, preserve_rng_state, context_fn, determinism_check,
            debug, *lead, *args, **kwargs)
        next(gen)
        ret = function(*args, **kwargs)
        try:
            next(gen)
        except StopIteration:
            return ret
    monkeypatch.delattr(ck, "_checkpoint_impl")
    monkeypatch.setattr(ck, "_checkpoint_without_reentrant_generator",
                        generator)
    monkeypatch.setattr(ck, "checkpoint", old_checkpoint)
    monkeypatch.setattr(sys.modules[__name__], "checkpoint", old_checkpoint)


def test_checkpointing_reentrant_adds_exactly_the_recomputed_forward(layout):
    """With reentrant checkpointing the backward runs the checkpointed
    blocks' whole forward again: FlopCounterMode's step with it minus
    without is hardware_flops - model_flops, and model_flops does not
    change."""
    x = torch.randn(32, D)
    plain = Net()
    ck = Net("reentrant")
    ck.load_state_dict(plain.state_dict())
    f0 = step.flops_dict(step.record_flops(plain, (x,)))
    f1 = step.flops_dict(step.record_flops(ck, (x,)))
    assert f1["recomputed"] == ["blocks.1", "blocks.2"]
    assert f1["model_flops"] == f0["model_flops"]
    assert f1["recompute_exact"]
    # two blocks' forward, by hand
    assert f1["recompute_flops"] == 2 * (2 * 32 * D * 4 * D * 2)
    assert f1["hardware_flops"] - f1["model_flops"] == f1["recompute_flops"]
    extra = _fcm_step(ck, x) - _fcm_step(plain, x)
    assert f1["hardware_flops"] - f1["model_flops"] == extra


def test_checkpointing_non_reentrant_adds_exactly_what_it_reruns(layout):
    """PyTorch's non-reentrant checkpoint (2.x) stops recomputing once the
    last tensor the region saved is back: each block's second Linear saves
    its input before it runs, so its product is not run again (1.13
    reruns the whole block). hardware_flops - model_flops is exactly
    FlopCounterMode's step with checkpointing minus without. The library
    numbers the calls: the rerun nodes are its names of the recorder's
    entries (step._Checkpointed._rerun_named)."""
    x = torch.randn(32, D)
    plain, ck = Net(), Net("non_reentrant")
    ck.load_state_dict(plain.state_dict())
    f0 = step.flops_dict(step.record_flops(plain, (x,)))
    f1 = step.flops_dict(step.record_flops(ck, (x,)))
    assert f1["recomputed"] == ["blocks.1", "blocks.2"]
    assert f1["recompute_exact"]
    assert f1["model_flops"] == f0["model_flops"]
    early = hasattr(torch.utils.checkpoint, "set_checkpoint_early_stop")
    # by hand: the first Linear of two blocks (and the second without the
    # early stop)
    assert f1["recompute_flops"] == 2 * 2 * 32 * D * 4 * D * (1 if early
                                                               else 2)
    assert f1["hardware_flops"] - f1["model_flops"] == f1["recompute_flops"]
    extra = _fcm_step(ck, x) - _fcm_step(plain, x)
    assert f1["recompute_flops"] == extra


def test_checkpointing_without_early_stop_reruns_the_whole_region(layout):
    """early_stop=False (PyTorch's set_checkpoint_early_stop): the whole
    forward of the blocks runs again, as FlopCounterMode counts."""
    ck_mod = torch.utils.checkpoint
    if not hasattr(ck_mod, "set_checkpoint_early_stop"):
        pytest.skip("no early stop before PyTorch 2.x")
    x = torch.randn(32, D)
    plain, ck = Net(), Net("non_reentrant")
    ck.load_state_dict(plain.state_dict())
    with ck_mod.set_checkpoint_early_stop(False):
        f1 = step.flops_dict(step.record_flops(ck, (x,)))
        extra = _fcm_step(ck, x) - _fcm_step(plain, x)
    assert f1["recompute_exact"]
    assert f1["recompute_flops"] == 2 * (2 * 32 * D * 4 * D * 2) == extra


@pytest.mark.parametrize("ck_kind", ["reentrant", "non_reentrant"])
def test_record_flops_leaves_checkpoint_alone(layout, ck_kind):
    """torch.utils.checkpoint is what it was after a recording."""
    import torch.utils.checkpoint as ck
    before = dict(vars(ck))
    step.record_flops(Net(ck_kind), (torch.randn(4, D),))
    assert {k: v for k, v in vars(ck).items()} == before


# ---- time and figures ----

def _loop(meter, model, x, steps, own):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        # the step's own time, inside the meter's window: what the meter
        # adds around it (the FLOPs' lookup by shape) is not the step's,
        # and on a loaded machine it can reach a tenth of a 20 ms step
        with meter.step(x):
            t0 = time.perf_counter()
            model(x).sum().backward()
            opt.step()
            opt.zero_grad()
            own.append(time.perf_counter() - t0)


def test_step_time_and_mfu_against_own_measurement(tmp_path):
    """The meter's step times against the times this test takes around the
    same steps (medians within 10 %), warm-up steps left out, and MFU,
    HFU, throughput by hand from the test's own times and the hand FLOPs."""
    torch.manual_seed(0)
    model, x = Net(), torch.randn(2048, D)  # tens of ms a step
    meter = nnscan.StepMeter(model, peak_flops=1e12, warmup=2, file=False,
                             log=str(tmp_path / "steps.jsonl"))
    own = []
    _loop(meter, model, x, 12, own)
    meter.close()
    recs = meter.records
    assert [r["step"] for r in recs] == list(range(2, 12))
    mine = statistics.median(own[2:])
    theirs = statistics.median(r["step_s"] for r in recs)
    assert abs(theirs - mine) <= 0.10 * mine
    flops = sum(_by_hand(2048))
    # MFU by hand from the test's own times: medians (one step of a loaded
    # machine may stall inside or outside the meter's window alone)
    assert statistics.median(r["mfu"] for r in recs) == pytest.approx(
        flops / mine / 1e12, rel=0.12)  # 1 / (1 - 0.10), the times' bound
    for r in recs:
        assert r["model_flops"] == flops
        assert r["mfu"] == pytest.approx(flops / r["step_s"] / 1e12,
                                         rel=1e-6)
        assert r["samples_per_s"] == pytest.approx(2048 / r["step_s"],
                                                   rel=1e-6)
        assert r["peak"] == {"device": "given", "dtype": "fp32",
                             "density": "dense", "flops_per_s": 1e12}
    lines = (tmp_path / "steps.jsonl").read_text().splitlines()
    assert [json.loads(s) for s in lines] == recs


def test_log_lines_match_the_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(ROOT, "docs", "steps.schema.json")) as fh:
        schema = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    model, x = Net("reentrant"), torch.randn(16, D)
    meter = nnscan.StepMeter(model, "h100-sxm", dtype="fp32", warmup=1,
                             file=False, log=str(tmp_path / "s.jsonl"))
    _loop(meter, model, x, 3, [])
    meter.close()
    docs = [json.loads(s) for s in
            (tmp_path / "s.jsonl").read_text().splitlines()]
    docs.append(meter.summary())
    docs[-1].pop("steps")
    assert len(docs) == 3
    for d in docs:
        assert not list(v.iter_errors(d)), d
        assert d["hardware_flops"] > d["model_flops"]


def test_device_table_peak_dtype_and_density():
    """The named device's peak at the step's dtype, as the roofline's
    table lists it; the dtype and density go with the figure."""
    h100 = next(d for d in hardware.devices() if d["name"] == "h100-sxm")
    model, x = Net(), torch.randn(8, D)
    meter = nnscan.StepMeter(model, "h100-sxm", dtype="bf16", warmup=0,
                             file=False)
    _loop(meter, model, x, 1, [])
    p = meter.summary()["peak"]
    assert p == {"device": "h100-sxm", "dtype": "bf16", "density": "dense",
                 "flops_per_s": h100["peak_flops"]["bf16"]}


def test_hardware_file_device(tmp_path):
    hw = tmp_path / "my.hw"
    hw.write_text("[mybox]\nbandwidth = 1e11\nfp32 = 3e12\n"
                  "description = a box\nsource = me\n")
    model, x = Net(), torch.randn(8, D)
    meter = nnscan.StepMeter(model, "mybox", hardware_file=str(hw),
                             warmup=0, file=False)
    _loop(meter, model, x, 1, [])
    p = meter.summary()["peak"]
    assert (p["device"], p["dtype"], p["flops_per_s"]) == \
        ("mybox", "fp32", 3e12)


def test_peak_that_cannot_apply_is_refused():
    f = step.record_flops(Net(), (torch.randn(8, D),))
    h = hardware.struct("h100-sxm")
    with pytest.raises(nnscan.NnscanError, match="fp8 peak cannot apply"):
        _mfu_api.compute(f, 0.01, 8, -1, h, "bf16", "fp8")
    with pytest.raises(nnscan.NnscanError, match="bf16 peak cannot apply"):
        _mfu_api.compute(f, 0.01, 8, -1, h, "fp32", "bf16")
    # fp32 products on TF32 units: allowed
    m = _mfu_api.compute(f, 0.01, 8, -1, h, "fp32", "tf32")
    assert m.peak_flops == h.peak_flops[1]
    with pytest.raises(nnscan.NnscanError, match="no peak"):
        _mfu_api.compute(f, 0.01, 8, -1, None, "bf16")
    with pytest.raises(nnscan.NnscanError, match="positive"):
        _mfu_api.compute(f, 0.0, 8, -1, h, "bf16")


def test_mfu_above_100_percent_is_an_error():
    """A peak far below what the step did: an error naming the figure,
    never a figure printed."""
    model, x = Net(), torch.randn(8, D)
    meter = nnscan.StepMeter(model, peak_flops=1e3, warmup=0, file=False)
    with pytest.raises(nnscan.NnscanError, match=r"above 100%"):
        _loop(meter, model, x, 1, [])
    assert meter.records == []


def test_running_table_and_page():
    out = io.StringIO()
    model, x = Net(), torch.randn(8, D)
    meter = nnscan.StepMeter(model, peak_flops=1e12, warmup=1, file=out)
    _loop(meter, model, x, 4, [])
    meter.close()
    rows = out.getvalue().splitlines()
    assert rows[0].split()[:3] == ["step", "time", "samples/s"]
    assert [r.split()[0] for r in rows[2:]] == ["1", "2", "3"]
    assert all("given fp32 dense" in r for r in rows[2:])
    page = meter.to_html()
    assert page.count("<svg") == 2 and page.count("<polyline") == 3
    assert page.rstrip().endswith("</html>")


def test_warmup_and_arguments():
    with pytest.raises(ValueError, match="device="):
        nnscan.StepMeter(Net())
    with pytest.raises(ValueError, match="warmup"):
        nnscan.StepMeter(Net(), peak_flops=1e12, warmup=-1)
    m = nnscan.StepMeter(Net(), peak_flops=1e12, warmup=5, file=False)
    _loop(m, m.model, torch.randn(4, D), 5, [])
    assert m.summary() is None and m.records == []


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU")
def test_cuda_step_time_with_events():
    """On a GPU the meter's CUDA events against the test's own events
    recorded around each step (medians within 10 %), bf16 against the
    H100's dense bf16 peak. The step is wide enough (about 1.6 TFLOP) for
    the GPU's time to outweigh the host's launches. Host clocks are no
    reference here: with the suite under xdist, other processes' kernels
    share the GPU, and a synchronised host window holds their time slices
    (14 processes at once on an H200: 2.4 ms of 17 ms) while events on
    this process's stream do not."""
    torch.manual_seed(0)
    wide = 2048
    model = nn.Sequential(nn.Linear(wide, 4 * wide), nn.GELU(),
                          nn.Linear(4 * wide, wide))
    model = model.cuda().to(torch.bfloat16)
    x = torch.randn(8192, wide, device="cuda", dtype=torch.bfloat16)
    meter = nnscan.StepMeter(model, "h100-sxm", warmup=3, file=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    marks = []
    for _ in range(20):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        with meter.step(x):
            model(x).float().sum().backward()
            opt.step()
            opt.zero_grad()
        b.record()
        marks.append((a, b))
    torch.cuda.synchronize()
    meter.close()
    theirs = statistics.median(r["step_s"] for r in meter.records)
    mine = statistics.median(a.elapsed_time(b) / 1e3 for a, b in marks[3:])
    assert abs(theirs - mine) <= 0.10 * mine
    s = meter.summary()
    assert s["peak"]["dtype"] == "bf16" and 0 < s["mfu"] < 1
    assert not math.isnan(s["mfu"])


@pytest.mark.parametrize("mode", ["ddp", "fsdp", "tp"])
def test_two_ranks_each_their_own_counts(tmp_path, mode):
    """Two processes over gloo: each rank's log carries its rank and the
    FLOPs of its own share, by hand: Linear 32 -> 64 and 64 -> 8, forward
    2nkm each, backward the weight gradients of both and the input
    gradient of the second. DDP and FSDP2 (weights gathered whole): rank r
    on its 8·(r + 1) rows; tensor parallel: 8 rows, the hidden 64 split in
    two (each rank's matmuls at their local 32)."""
    import subprocess
    import sys
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_available():
        pytest.skip("no torch.distributed")
    if mode != "ddp" and torch.__version__ < "2":
        pytest.skip("FSDP2 and DTensor tensor parallel need PyTorch 2.x")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    procs = [subprocess.Popen(
        [sys.executable, os.path.join(here, "step_meter_ddp_worker.py"),
         str(r), "2", str(tmp_path / "store"), str(tmp_path), mode],
        env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for r in range(2)]
    try:
        outs = [p.communicate(timeout=240)[0].decode() for p in procs]
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        pytest.fail("ranks did not finish in 240 s")
    for p, o in zip(procs, outs):
        assert p.returncode == 0, o
    for r in range(2):
        n = 8 if mode == "tp" else 8 * (r + 1)
        h = 32 if mode == "tp" else 64
        fwd = 2 * n * 32 * h + 2 * n * h * 8
        bwd = 2 * fwd - 2 * n * 32 * h
        lines = [json.loads(s) for s in
                 (tmp_path / f"steps.{r}.jsonl").read_text().splitlines()]
        assert [x["step"] for x in lines] == [1, 2]
        for x in lines:
            assert x["rank"] == r and x["samples"] == n
            assert x["model_flops"] == fwd + bwd


@pytest.mark.parametrize("dtype,word", [
    (torch.float32, "fp32"), (torch.float64, "fp32"),
    (torch.bfloat16, "bf16"), (torch.float16, "fp16")])
def test_step_dtype_is_the_librarys_rule(dtype, word):
    """A model's step dtype is its first floating parameter's, run at the
    compute dtype the library gives its element type (nns_compute_dtype_of:
    no dtype table in Python); the words by hand."""
    from nnscan import step
    model = nn.Linear(4, 4).to(dtype)
    assert step._step_dtype(model) == word
