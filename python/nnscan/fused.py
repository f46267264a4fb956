"""Torch functions that run as one kernel where a model runs, but that
PyTorch spells as many aten ops on meta tensors, where the recorder records
them (docs/metrics.md, "Bytes and the roofline").

F.scaled_dot_product_attention is one fused kernel on a GPU (flash,
memory-efficient, cuDNN) and on a CPU in PyTorch 2.x: one aten op, whose
nodes the recorder marks as one kernel like any op's. On meta tensors
PyTorch has no fused kernel and takes its math path instead: a dozen aten
ops (casts, the scaled scores, the softmax, both products), each recorded
as a kernel of its own, every [heads, L, S] intermediate read and written.
So while a recording runs, a call of a function in NAMES on the recording's
thread marks the nodes its aten ops made as one kernel. The nodes, and so
the FLOPs, stay as recorded, save the casts whose output the function
throws away (the math path returns the attention weights too, cast back
to the inputs' dtype: [heads, L, S] that the function drops and the fused
kernel never makes), which are dropped (casts have no FLOPs).

The call is seen by wrapping the function in torch.nn.functional while a
recording runs (installed by the first recording, put back by the last;
other threads go straight to the function). A TorchFunctionMode would see
every torch call of the forward, a fifth more recording time on
LLaMA-3-8B; a call of the function under another name (`from
torch.nn.functional import scaled_dot_product_attention` at import) is not
seen, and its aten ops stay kernels of their own.
"""
import threading

import torch
from torch.utils._mode_utils import no_dispatch

from . import replay

NAMES = ("scaled_dot_product_attention",)
# what a call may make and throw away, dropped from the recording: casts
# (no FLOPs), as the math path's attention weights cast back to the
# inputs' dtype
DROPPED = ("Cast",)
# the same, as a call on the library's tape (tape.record_deferred)
_DROPPED_CALLS = ("aten::_to_copy",)

_lock = threading.Lock()
_users = 0          # recordings running, on any thread
_installed = {}     # name -> (the function found, its wrapper)
_local = threading.local()  # .span: this thread's recording's Spans.call


def _wrap(orig):
    def fused(*args, **kwargs):
        span = getattr(_local, "span", None)
        if span is None:
            return orig(*args, **kwargs)
        return span(orig, args, kwargs)
    fused.__wrapped__ = orig
    fused.__name__ = getattr(orig, "__name__", "fused")
    fused.__doc__ = getattr(orig, "__doc__", None)
    return fused


def _install():
    global _users
    F = torch.nn.functional
    with _lock:
        if _users == 0:
            for name in NAMES:
                orig = getattr(F, name, None)
                if orig is not None:
                    w = _wrap(orig)
                    _installed[name] = (orig, w)
                    setattr(F, name, w)
        _users += 1


def _uninstall():
    global _users
    F = torch.nn.functional
    with _lock:
        _users -= 1
        if _users == 0:
            for name, (orig, w) in _installed.items():
                if getattr(F, name, None) is w:  # else someone replaced it
                    setattr(F, name, orig)
            _installed.clear()



def _flush(mode):
    """Records the recording's queued calls from outside its dispatch: with
    the mode active, the recorder's own scratch tensors (Builder.fresh's
    torch.empty on meta) and a shadow's real values would be recorded as
    calls of the model (a made constant each, taking a name)."""
    with no_dispatch():
        mode.flush()

class Spans:
    """While entered, on this thread: each call of a function in NAMES
    marks the nodes recorded during it (two or more) as one kernel, in
    place of the kernels its aten ops made. `mode` is the recorder's
    dispatch mode, whose queued calls are recorded (flushed) before and
    after, so that the graph's node count is the call's boundary."""

    def __init__(self, builder, mode):
        self.b = builder
        self.mode = mode
        self.prev = None
        # repeated calls replayed (replay.py)
        self.replays = replay.Replays(builder) if replay.enabled() else None

    def __enter__(self):
        _install()
        self.prev = getattr(_local, "span", None)
        _local.span = self.call
        return self

    def __exit__(self, exc_type, *exc):
        _local.span = self.prev
        _uninstall()
        if exc_type is None and self.replays is not None:
            self.replays.finish()

    def call(self, orig, args, kwargs):
        mode, g = self.mode, self.b.g
        if mode.pending:
            _flush(mode)
        rp = self.replays
        key = rp.key(orig, args, kwargs) \
            if rp is not None and rp.usable() else None
        if key is not None:
            kept = rp.ready(key)
            if kept is not None:
                return rp.replay(kept, key[1])
            at = rp.before()
        first = len(g.nodes)
        _local.span = None  # what it calls in turn is its own
        try:
            out = orig(*args, **kwargs)
            if mode.pending:
                _flush(mode)
        finally:
            _local.span = self.call
        if len(g.nodes) - first > 1:
            kernels = g.kernels
            while kernels and kernels[-1][0] >= first:
                kernels.pop()
            dropped = self._discarded(first, out)
            shapes = self.b.shape_of
            for k in dropped:  # no value of the graph's: nothing to test
                for o in g.nodes[k].outputs:
                    shapes.pop(o, None)
            g.drop_nodes(self._dropped_calls(dropped))
            count = len(g.nodes) - first
            if count > 1:
                kernels.append((first, count))
        if key is not None:
            rp.seen(key, at, out)
        return out

    def _dropped_calls(self, dropped):
        """The nodes among `dropped` that are nodes of the recorder's (its
        one-node Casts: removed); a call on the library's tape stays in
        place, marked dropped (packed record 34: the library lowers it
        for the numbers it takes, then takes its nodes back), so that
        the numbers after it are the same whether it is dropped or
        not."""
        g = self.b.g
        aten, nodes, own = g.aten, g.nodes, []
        for k in dropped:
            node = nodes[k]
            call = aten.get(node.name)
            if call is None:
                own.append(k)
                continue
            first, made, scope, _, inits, template = call[2]
            aten[node.name] = (call[0], call[1], (first, made, scope, True,
                                                  inits, template), call[3])
            g.declared.difference_update(node.outputs)
        return own

    def _discarded(self, first, out):
        """Indexes of the casts from node `first` on whose output neither a
        later node nor the call's result holds: what the function made and
        threw away (the math path's attention weights). Only casts, which
        have no FLOPs: any other work the call did (a wrapper of the
        user's own computing something on the side) stays."""
        names = self.b.names
        outs = out if isinstance(out, (tuple, list)) else (out,)
        read = {names.get(id(t)) for t in outs if isinstance(t, torch.Tensor)}
        g = self.b.g
        nodes, aten = g.nodes, g.aten
        for k in range(first, len(nodes)):
            read.update(nodes[k].inputs)
        # (a cast on the library's tape: a numbered _to_copy, whose node
        # here is its record's; tape.record_deferred puts none there that
        # keeps its dtype)
        return [k for k in range(first, len(nodes)) if (
            nodes[k].op in DROPPED or nodes[k].op in _DROPPED_CALLS and
            len(aten.get(nodes[k].name, ())) > 2)
            and not read.intersection(nodes[k].outputs)]
