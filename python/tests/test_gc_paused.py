"""Python's cyclic collector waits while a model is recorded and analysed
(recorder.gc_paused), and is left as it was found: on, off, or after a
forward that raises."""
import gc

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nnscan  # noqa: E402


COLLECTOR_ON = []  # per forward (the recorder runs a meta copy: not self)


class Cycles(nn.Module):
    """Makes enough cyclic garbage to start collections, and notes whether
    the collector was on while it ran."""

    def __init__(self, fail=False):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.fail = fail

    def forward(self, x):
        COLLECTOR_ON.append(gc.isenabled())
        for _ in range(3 * gc.get_threshold()[0]):
            a = []
            a.append(a)
        if self.fail:
            raise RuntimeError("forward failed")
        return self.lin(x)


def test_collector_off_while_recording_and_left_as_found():
    assert gc.isenabled()
    m = Cycles()
    COLLECTOR_ON.clear()
    nnscan.summary(m, (2, 4), file=False)
    assert COLLECTOR_ON and not any(COLLECTOR_ON)
    assert gc.isenabled()
    gc.disable()
    try:
        nnscan.summary(m, (2, 4), file=False)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_forward_that_raises_restores_the_collector():
    assert gc.isenabled()
    with pytest.raises(Exception, match="forward failed"):
        nnscan.summary(Cycles(fail=True), (2, 4), file=False)
    assert gc.isenabled()
