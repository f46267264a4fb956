"""What thop and thoplw look at: each module of the model that ran, with
its calls' shapes and the library's count of its work, from one recorded
forward (nnscan.torch_api.analyze_module)."""
from typing import Any, List, NamedTuple, Optional

from .. import _args
from .._api import py_name
from ..torch_api import _uncompiled, analyze_module, make_inputs


class ModuleRun(NamedTuple):
    """One module of the model and what the recorded forward did with it."""
    path: str                 # "" the model, "layer1.0.conv1" a submodule
    module: Any               # the torch.nn.Module
    calls: int                # forward calls in the recorded pass
    inputs: List[list]        # shapes of the tensors of its first call
    outputs: List[list]       # output tensor shapes of every call, in order
    macs: int                 # the library's MACs of its subtree, all calls
    custom: Optional[int]     # the user's custom-op MACs, if its class has one


def run_modules(model, inputs, custom_ops=None, who="profile()"):
    """(model, {path: ModuleRun} in named_modules() order, Summary) for one
    forward of `model` on `inputs` (a tensor, a tuple of positional
    tensors, or a dict of keyword tensors). custom_ops: {class:
    fn(module, inputs, output) -> MACs}, called on each call of a module
    of that class. who: the caller's name, for argument errors."""
    model = _uncompiled(_args.module(who, "model", model))
    _args.custom_ops(who, custom_ops)
    args, kwargs = make_inputs(model, inputs=inputs)
    s = analyze_module(model, args, kwargs, custom_ops=custom_ops or None)
    rows = {py_name(r["path"]): r for r in s.layers}
    runs = {}
    for path, m in model.named_modules():
        meta = s.modules.get(path, {})
        runs[path] = ModuleRun(
            path, m, meta.get("calls", 0), meta.get("input_shapes") or [],
            meta.get("output_shapes") or [],
            int(rows.get(path, {}).get("macs", 0)),
            s.custom_macs.get(path))
    return model, runs, s


def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def out_elements(run):
    """Elements of the (first) output tensor of every call, summed: the
    modules the peers' shape rules cover return one tensor per call."""
    if not run.calls or not run.outputs:
        return 0
    per = max(1, len(run.outputs) // run.calls)
    return sum(numel(run.outputs[k * per]) for k in range(run.calls))


class Held(NamedTuple):
    """The state a module holds, as torchscan counts it (every registered
    parameter and buffer, used by the forward or not; native nnscan counts
    what the forward uses, docs/compat.md)."""
    trainable: int      # parameter elements that require a gradient
    frozen: int         # parameter elements that do not
    param_bytes: int
    buffers: int        # buffer elements (num_batches_tracked included)
    buffer_bytes: int


def held(params, buffers):
    """Held of these parameter and buffer tensors."""
    params, buffers = list(params), list(buffers)
    return Held(sum(p.numel() for p in params if p.requires_grad),
                sum(p.numel() for p in params if not p.requires_grad),
                sum(p.numel() * p.element_size() for p in params),
                sum(b.numel() for b in buffers),
                sum(b.numel() * b.element_size() for b in buffers))
