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


def test_no_collection_inside_a_backward_summary():
    """backward=True records the forward and then the backward from its
    autograd graph: the collector waits over both, and the recordings go
    before it runs again. Before, it ran as the forward's recording ended,
    walking that recording, and again through the backward's (here 8
    collections on PyTorch 1.13; a GPT-2's: 9 and 5 ms). Counted by
    gc.callbacks, with the collector's own thresholds."""
    started = []

    def note(phase, info):
        if phase == "start":
            started.append(info["generation"])
    m = nn.Sequential(*[nn.Linear(16, 16) for _ in range(40)])
    # a first summary imports what it needs (imports collect too)
    nnscan.summary(m, (2, 16), backward=True, file=False)
    gc.collect()
    gc.callbacks.append(note)
    try:
        s = nnscan.summary(m, (2, 16), backward=True, file=False)
    finally:
        gc.callbacks.remove(note)
    # at most the one collection its allocations leave due, as the pause
    # ends, once the recordings are freed
    assert len(started) <= 1, started
    assert s.backward.totals["macs"] > 0
    assert gc.isenabled()


def test_forward_that_raises_restores_the_collector():
    assert gc.isenabled()
    with pytest.raises(Exception, match="forward failed"):
        nnscan.summary(Cycles(fail=True), (2, 4), file=False)
    assert gc.isenabled()


# ---- what a recording makes goes with its last reference ----

def _nnscan_cycles(run):
    """The nnscan objects (graphs, builders, ...) that `run` leaves in
    reference cycles: found by a collection that saves what it frees."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return sorted({type(o).__qualname__ for o in gc.garbage
                       if type(o).__module__.startswith("nnscan")})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()


def _tiny_llama():
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tiny_llama
    return tiny_llama.LlamaForCausalLM(layers=2, hidden=64, inter=128,
                                       heads=4, vocab=100).eval()


def test_a_summary_leaves_no_cycle():
    """A decoder whose causal mask the recorder tracks (masks.hand_over)
    and a CNN: the recording, its graph and its builder are freed by
    reference counting when the summary returns, not left to the cyclic
    collector (a 7-11 ms collection after each LLaMA-3-8B summary)."""
    m = _tiny_llama()
    x = torch.zeros(1, 12, dtype=torch.long)
    assert _nnscan_cycles(
        lambda: nnscan.summary(m, inputs=x, file=False)) == []
    cnn = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                        nn.Linear(8, 2))
    assert _nnscan_cycles(lambda: nnscan.summary(
        cnn, (3, 16, 16), file=False)) == []


@pytest.mark.skipif(int(torch.__version__.split(".")[0]) < 2,
                    reason="training=True runs its step on PyTorch 2.x")
def test_a_training_summary_leaves_no_cycle():
    """training=True: the builder's and the step's weak references to the
    tensors call back their owner without holding it."""
    m = _tiny_llama()
    x = torch.zeros(1, 12, dtype=torch.long)
    assert _nnscan_cycles(lambda: nnscan.summary(
        m, inputs=x, training=True, file=False)) == []
