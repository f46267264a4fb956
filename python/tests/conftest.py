"""pytest setup: the package from this checkout, the library from the build.

NNSCAN_LIBRARY names the libnnscan to test (CTest passes the one it built);
without it, the first build/*/libnnscan.so of this checkout is used.
"""
import contextlib
import glob
import json
import os
import sys
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")

if not os.environ.get("NNSCAN_LIBRARY"):
    found = sorted(glob.glob(os.path.join(ROOT, "build", "*", "libnnscan.so")))
    if found:
        os.environ["NNSCAN_LIBRARY"] = found[0]


@pytest.fixture(scope="session")
def fixtures_dir():
    return FIXTURES



def model_refs(name):
    """PyTorch's own figures for a fixture model: (<name>.ref.json from
    tools/make_fixtures.py, <name>.costs.json from tools/make_costs.py)."""
    out = []
    for ext in (".ref.json", ".costs.json"):
        with open(os.path.join(FIXTURES, name + ext)) as f:
            out.append(json.load(f))
    return tuple(out)


# summary(training=True) of a small MLP: Linear(8, 16), ReLU, Linear(16, 4)
# at batch 3. tests/test_training.py checks what each PyTorch does with it,
# tests_hf/test_train_step.py its figures, counted by hand.
MLP_B, MLP_D, MLP_H, MLP_O = 3, 8, 16, 4


def training_mlp():
    import torch
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(MLP_D, MLP_H),
                               torch.nn.ReLU(),
                               torch.nn.Linear(MLP_H, MLP_O))


def training_mlp_summary(**kw):
    import torch
    import nnscan
    return nnscan.summary(training_mlp(), inputs=torch.randn(MLP_B, MLP_D),
                          training=True, file=False, **kw)


# Kernels in recordings (tests/test_kernels.py; tests_hf/test_kernels_sdpa.py
# for PyTorch 2.x's scaled_dot_product_attention)
H100_BW = 3.35e12  # NVIDIA H100 SXM datasheet, bytes/s
# bytes per element of the ONNX dtypes these graphs hold
ONNX_ITEM = {1: 4, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 16: 2}


def kernel_analysis(graph, hardware=None, kernels=True):
    """The library's analysis of a recorded graph, with its kernels or
    (kernels=False) with every node a kernel of its own."""
    from nnscan.report import Summary
    saved = graph.kernels
    if not kernels:
        graph.kernels = []
    try:
        h = graph.build()
    finally:
        graph.kernels = saved
    h.infer()
    return Summary(h.analyze(hardware=hardware, compute_dtype="bf16"
                             if hardware else None))


def kernel_layer(s, path):
    return {la["path"]: la for la in s.layers}[path]


@contextlib.contextmanager
def calls_counted(cls, method, returned=lambda out: True):
    """[calls of cls.method so far whose output `returned` accepts] while
    inside (replays: module_replay.Layers._replay, replay.Replays.replay)."""
    count = [0]
    real = getattr(cls, method)

    def counted(self, *a):
        out = real(self, *a)
        count[0] += bool(returned(out))
        return out
    setattr(cls, method, counted)
    try:
        yield count
    finally:
        setattr(cls, method, real)


def layers_replayed():
    """calls_counted of the layers module_replay.py replayed (its replays
    that returned an output)."""
    from nnscan import module_replay
    return calls_counted(module_replay.Layers, "_replay",
                         lambda out: out is not None)


@pytest.fixture
def no_summary_memo(monkeypatch):
    """No summary is built from a kept recording (summary_memo.py), so
    that a test counting what each summary's recording replayed sees a
    recording in every summary."""
    from nnscan import summary_memo
    summary_memo.forget()
    monkeypatch.setattr(summary_memo, "enabled", lambda: False)


@pytest.fixture
def recordings(monkeypatch):
    """[recordings made so far] (recorder.record_model's calls), in a
    fresh process's state: no template, no kept recording."""
    from nnscan import module_replay, recorder, replay, summary_memo
    module_replay.forget()
    replay.forget()
    summary_memo.forget()
    count = [0]
    real = recorder.record_model

    def counted(*a, **kw):
        count[0] += 1
        return real(*a, **kw)
    monkeypatch.setattr(recorder, "record_model", counted)
    yield count
    summary_memo.forget()


def in_threads(work, n=2):
    """Runs work(k) for k in range(n), each in a thread of its own, the
    threads let go at once; the exceptions they raised, for the test to
    assert on."""
    errors = []
    start = threading.Barrier(n)

    def run(k):
        try:
            start.wait()
            work(k)
        except Exception as e:  # noqa: BLE001 - the caller's to assert on
            errors.append(e)
    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def replay_reports(model, inputs, on):
    """(text, JSON v2, JSON v1 and CSV reports, the summary) of a summary
    with layers replayed (on) or every layer run (NNSCAN_MODULE_REPLAY=0)."""
    import nnscan
    was = os.environ.get("NNSCAN_MODULE_REPLAY")
    os.environ["NNSCAN_MODULE_REPLAY"] = "1" if on else "0"
    try:
        s = nnscan.summary(model, inputs=inputs, file=False,
                           columns=("flops", "macs", "dmas", "act"),
                           hardware="h100-sxm")
        return (s.to_text(), s.to_json(version=2), s.to_json(version=1),
                s.to_csv()), s
    finally:
        if was is None:
            del os.environ["NNSCAN_MODULE_REPLAY"]
        else:
            os.environ["NNSCAN_MODULE_REPLAY"] = was


def zoo_config(monkeypatch, **fields):
    """hf_zoo.config (tests_hf) with `fields` set on every config it
    makes, for the test (a sliding window's size, a per-layer scale)."""
    import hf_zoo
    real = hf_zoo.config

    def config(name):
        cfg = real(name)
        for k, v in fields.items():
            setattr(cfg, k, v)
        return cfg
    monkeypatch.setattr(hf_zoo, "config", config)
