"""Which aten ops the exported program runs that the live model does not
(and the reverse), for a model of tools/pt2_sweep.py: the live forward's
aten calls and those of the exported program run eagerly
(ExportedProgram.module()), both logged by a TorchDispatchMode (so both
after PyTorch's own decompositions of composite ops), each a multiset of
op names. Where they differ, torch.export traced another program than
eager mode runs, and the .pt2 counts differ from the live ones by those
ops (not by a lowering of ours):

    /work/sidrun . 'PYTHONPATH=python python3 tools/pt2_opdiff.py NAME...'
"""
import collections
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import pt2_sweep


class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = collections.Counter()
        self.sdpa_masks = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        self.ops[name.rstrip("_") if not name.endswith("__") else name] += 1
        if "scaled_dot_product" in name:
            mask = kwargs.get("attn_mask")
            if mask is None and len(args) > 3 and \
                    isinstance(args[3], torch.Tensor):
                mask = args[3]
            self.sdpa_masks.append(None if mask is None
                                   else tuple(mask.shape))
        return func(*args, **kwargs)


def graph_ops(ep):
    ops = collections.Counter()
    masks = []
    for n in ep.graph.nodes:
        if n.op != "call_function" or not hasattr(n.target, "overloadpacket"):
            continue
        name = n.target.overloadpacket.__name__
        ops[name.rstrip("_") if not name.endswith("__") else name] += 1
        if "scaled_dot_product" in name:
            m = n.kwargs.get("attn_mask")
            if m is None and len(n.args) > 3 and \
                    isinstance(n.args[3], torch.fx.Node):
                m = n.args[3]
            masks.append(None if m is None else
                         tuple(m.meta["val"].shape))
    return ops, masks


def diff(name):
    case = pt2_sweep.Case(name)
    inputs = case.inputs
    log = Log()
    with torch.no_grad(), log:
        case.call(case.model, inputs)
    ep = case.export(inputs, False)
    _, masks = graph_ops(ep)
    run = Log()
    with torch.no_grad(), run:
        case.call(ep.module(), inputs)
    ops = run.ops
    only_ep = ops - log.ops
    only_live = log.ops - ops
    print(f"== {name}")
    print("  attention masks, live:", log.sdpa_masks or "-",
          " exported:", masks or "-")
    print("  ops only the exported program runs:", dict(only_ep) or "-")
    print("  ops only the live forward runs:", dict(only_live) or "-")


if __name__ == "__main__":
    for n in sys.argv[1:]:
        diff(n)
