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
    errors = []
    start = threading.Barrier(len(models))

    def work(k):
        m, kw = models[k]
        try:
            start.wait()
            for _ in range(15):
                got[k].append(_table(nnscan.summary(m, file=False, **kw)))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,))
               for k in range(len(models))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k, runs in enumerate(got):
        assert len(runs) == 15
        for t in runs:
            assert t == want[k]
    assert not torch.nn.modules.module._global_forward_hooks
    assert not torch.nn.modules.module._global_forward_pre_hooks
