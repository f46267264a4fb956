"""The one real forward a torchscan 0.2 report describes: every module
call in order, with its identity (path, call index) and what went in and
came out, described without values."""
import contextlib
import inspect
from collections.abc import Mapping
from typing import Any, List, NamedTuple, Optional

import torch


def describe(value):
    """Metadata of a Python value, never its contents: tensors by shape,
    dtype, device and requires_grad, containers recursively, mapping keys
    only when they are ints or identifiers (a key such as a file path is
    a value), scalars and other objects by type."""
    if isinstance(value, torch.Tensor):
        return {"kind": "tensor", "shape": list(value.shape),
                "dtype": str(value.dtype), "device": str(value.device),
                "requires_grad": bool(value.requires_grad)}
    if value is None:
        return {"kind": "none"}
    if isinstance(value, (tuple, list)):
        return {"kind": type(value).__name__ if type(value) in (tuple, list)
                else ("tuple" if isinstance(value, tuple) else "list"),
                "items": [describe(v) for v in value]}
    if isinstance(value, Mapping):
        items = []
        for k, v in value.items():
            entry = {}
            if isinstance(k, int) or (isinstance(k, str) and k.isidentifier()):
                entry["key"] = k
            entry["key_type"] = type(k).__name__
            entry["value"] = describe(v)
            items.append(entry)
        return {"kind": "mapping", "type": type(value).__name__,
                "items": items}
    if isinstance(value, (bool, int, float, complex, str, bytes)):
        return {"kind": "scalar", "type": type(value).__name__}
    return {"kind": "object", "type": type(value).__qualname__}


def describe_call(args, kwargs):
    return {"args": [describe(a) for a in args],
            "kwargs": {k: describe(v) for k, v in kwargs.items()}}


def has_tensor(value):
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, Mapping):
        return any(has_tensor(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(has_tensor(v) for v in value)
    return False


class ModuleCall(NamedTuple):
    """One call of one module in the recorded forward."""
    path: str               # "" the model, "features.0" a submodule
    call_index: int         # 0 for the module's first call
    module: Any             # the torch.nn.Module called
    input: dict             # describe_call() of its args and kwargs
    output: Optional[dict]  # describe() of what it returned (None: raised)
    tensors_in: bool        # a tensor among its args / kwargs
    tensors_out: bool       # a tensor among its outputs


class CallLog:
    """Forward pre/post hooks on every submodule of `model`, recording
    ModuleCall entries in call (preorder) order; `with` removes them,
    also when the forward raises."""

    def __init__(self, model):
        self.model = model
        self.calls: List[ModuleCall] = []
        self._open = {}   # id(module) -> indexes of its calls in progress
        self._count = {}  # id(module) -> calls so far
        self._handles = []

    def __enter__(self):
        with_kwargs = "with_kwargs" in inspect.signature(
            torch.nn.Module.register_forward_pre_hook).parameters
        for path, m in self.model.named_modules():
            if with_kwargs:
                self._handles.append(m.register_forward_pre_hook(
                    self._pre_hook(path), with_kwargs=True))
                self._handles.append(m.register_forward_hook(
                    self._post_hook(), with_kwargs=True))
            else:  # PyTorch < 2.0: keyword arguments are not shown to hooks
                pre, post = self._pre_hook(path), self._post_hook()
                self._handles.append(m.register_forward_pre_hook(
                    lambda mod, args, _p=pre: _p(mod, args, {})))
                self._handles.append(m.register_forward_hook(
                    lambda mod, args, out, _p=post: _p(mod, args, {}, out)))
        return self

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        self._handles = []

    def _pre_hook(self, path):
        def pre(mod, args, kwargs):
            k = self._count.get(id(mod), 0)
            self._count[id(mod)] = k + 1
            self._open.setdefault(id(mod), []).append(len(self.calls))
            self.calls.append(ModuleCall(
                path, k, mod, describe_call(args, kwargs), None,
                has_tensor(args) or has_tensor(kwargs), False))
        return pre

    def _post_hook(self):
        def post(mod, args, kwargs, output):
            i = self._open[id(mod)].pop()
            self.calls[i] = self.calls[i]._replace(
                output=describe(output), tensors_out=has_tensor(output))
        return post


@contextlib.contextmanager
def evaluation(model):
    """eval() and no_grad for the forward; every module's training flag
    put back afterwards, whatever happens."""
    flags = [(m, m.training) for m in model.modules()]
    try:
        model.eval()
        with torch.no_grad():
            yield flags[0][1] if flags else False
    finally:
        for m, t in flags:
            m.training = t
