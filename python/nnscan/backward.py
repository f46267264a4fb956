"""The backward pass, recorded like the forward: summary(..., backward=True).

The forward runs once under the recorder with autograd on (on meta tensors
where possible, as recorder.py describes). Then, still under a dispatch
mode, torch.autograd.grad computes the gradients of the outputs (seeded
with ones) with respect to every parameter that requires a gradient, so
the model's `.grad` fields are never touched. Inputs get no gradient (a
training step does not need one), so the first layer's input gradient is
not computed, as in training.

Attribution rule: a backward op belongs to the module whose forward created
the autograd node that runs it. The recorder notes each op's grad_fn (once
autograd has attached it, before an in-place op can replace it) with the
module the op ran in. autograd runs one node at a time on this thread, and
a hook registered on each node fires right after the node finishes, so
every op dispatched since the previous hook belongs to that node's module.
(Gradient sums for a tensor used twice run just before its consumer node,
and are charged to that node.)

The backward ops are lowered as the forward's are (the library's aten
table, whose *_backward entries spell each gradient kernel as forward ops
of equal work; a call it declines is listed as uncounted) into a second
graph that the library analyses like any other, numbered by the
library where the forward is (docs/tape.md, "A backward graph"); the
result is `Summary.backward`, with per-module FLOPs and MACs beside the
forward's.
"""
import torch

from . import recorder
from .graph import Graph
from .recorder import Builder, _Mode, flatten


class _BackwardBuilder(Builder):
    """Forward tensors the backward reads are inputs of the backward graph
    ("fwdN": under the library's numbering, one a numbered call reads
    first is named "\5i" K, and numbered, by the library)."""

    FIRST_READ = "i"

    def inp(self, t):
        if id(t) not in self.names and id(t) not in self.params \
                and id(t) not in self.pending_t:
            name = self.g.new_name("fwd")
            self._declare(t, name)
            self.g.inputs.append(name)
            return name
        return super().inp(t)


def record_backward(rec):
    """The backward graph of a recording made with autograd on."""
    fwd = rec.builder
    node_scope = fwd.node_scope  # autograd node -> module path
    outs = [t for t in flatten(rec.outputs)
            if isinstance(t, torch.Tensor) and t.requires_grad]
    if not outs:
        raise recorder.RecordError("no output requires a gradient: nothing "
                                   "to differentiate (all parameters frozen?)")
    wrt = [t for t in fwd.params_by_id.values() if t.requires_grad]
    g = Graph(rec.graph.name + "_backward")
    g.module_types = dict(rec.graph.module_types)
    g.module_calls = dict(rec.graph.module_calls)
    b = _BackwardBuilder(g, dict(fwd.params))
    g.defer_numbering()  # (before anything is named)
    state = {"start": 0}

    def on_node(scope):
        def hook(*_):
            for k in range(state["start"], len(g.nodes)):
                node = g.nodes[k]
                g.nodes[k] = node._replace(scope=scope)
            state["start"] = len(g.nodes)
        return hook

    handles = []
    for fn, scope in node_scope.values():
        try:
            handles.append(fn.register_hook(on_node(scope)))
        except (RuntimeError, AttributeError):
            pass
    seeds = [torch.ones_like(t) for t in outs]
    for s_, t in zip(seeds, outs):
        b._declare(s_, g.new_name("grad_out"))
        g.inputs.append(b.name(s_))
    try:
        with _Mode(b):
            grads = torch.autograd.grad(outs, wrt, grad_outputs=seeds,
                                        allow_unused=True)
    finally:
        for h in handles:
            h.remove()
    for t in grads:
        if t is not None and id(t) in b.names and b.name(t) not in g.outputs \
                and b.name(t) not in g.inits and b.name(t) not in g.inputs:
            g.outputs.append(b.name(t))
    return g, b
