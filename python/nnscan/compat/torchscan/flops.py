"""torchscan 0.2's measure_flops: the operator FLOPs of any callable (a
forward, a training step, a generate()), as PyTorch's own counter
(torch.utils.flop_counter.FlopCounterMode, PyTorch 2.1+) counts them.

This metric is defined by that counter, so its numbers are PyTorch's, not
the library's: nnscan's own FLOPs of a model are `nnscan.summary`'s (its
rules count what FlopCounterMode leaves out, such as element-wise work and
the bias add; docs/compat.md). What this module adds is the peer's
contract: every operator the workload ran is either counted, listed as
explicitly free (views, copies, allocation), or reported as an
`uncounted_operator` diagnostic that makes the total partial.
"""
import torch

from .report import metric_result

try:  # PyTorch 2.1+
    from torch.utils.flop_counter import FlopCounterMode
    from ...dispatch_mode import DispatchMode as TorchDispatchMode
except ImportError:  # PyTorch 1.13: measure_flops raises NotImplementedError
    FlopCounterMode = TorchDispatchMode = None

__all__ = ["FlopReport", "measure_flops"]

FlopReport = dict  # {"schema_version", "context", "total", "by_module",
#                     "by_operator", "ignored_operators", "diagnostics"}

METHOD = "torch.utils.flop_counter.FlopCounterMode"

# Operators that do no arithmetic, with the reason the report gives.
_VIEW = "Metadata-only tensor view."
_MOVE = "Data movement is excluded from FLOPs."
_ALLOC = "Tensor allocation is excluded from FLOPs."
_CREATE = "Tensor creation is excluded from FLOPs."
FREE_OPERATORS = {
    **{f"aten.{n}": _VIEW for n in (
        "_unsafe_view", "alias", "as_strided", "detach", "expand", "narrow",
        "permute", "select", "slice", "squeeze", "t", "transpose", "unbind",
        "unsqueeze", "view")},
    **{f"aten.{n}": _MOVE for n in (
        "_to_copy", "cat", "clone", "contiguous", "copy_", "split", "to")},
    **{f"aten.{n}": _ALLOC for n in ("empty", "empty_strided")},
    **{f"aten.{n}": _CREATE for n in (
        "full", "lift_fresh", "lift_fresh_copy", "ones", "scalar_tensor",
        "zeros")},
}


def _packet_name(op):
    """aten.mm for torch.ops.aten.mm and torch.ops.aten.mm.default."""
    return str(getattr(op, "_overloadpacket", op))




def measure_flops(workload, *, modules=None, custom_mapping=None):
    """Run `workload()` once under PyTorch's FLOP counter; return its
    FlopReport. `modules`: the module(s) for per-module counts where the
    counter has no module tracker of its own (PyTorch < 2.4);
    `custom_mapping`: {operator packet (torch.ops.aten.sin): formula} as
    FlopCounterMode takes them. An exception of the workload propagates
    as it is."""
    mapping = dict(custom_mapping or {})
    for op in mapping:
        if getattr(op, "_overloadpacket", op) is not op:
            raise TypeError(
                "custom_mapping keys must be operator packets such as "
                f"torch.ops.aten.sin, not overloads such as {op}")
    if FlopCounterMode is None or TorchDispatchMode is None:
        raise NotImplementedError(
            "measure_flops needs torch.utils.flop_counter.FlopCounterMode "
            f"(PyTorch 2.1 or newer); this is PyTorch {torch.__version__}")

    class _Seen(TorchDispatchMode):
        """Counts every operator the workload dispatches. Entered inside
        the counter, so operators that the counter's formulas run are
        not the workload's and are not seen."""

        def __init__(self):
            super().__init__()
            self.calls = {}

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = _packet_name(func)
            self.calls[name] = self.calls.get(name, 0) + 1
            return func(*args, **(kwargs or {}))

    counter = FlopCounterMode(display=False, custom_mapping=mapping)
    if modules is not None and not hasattr(counter, "mod_tracker"):
        counter = FlopCounterMode(mods=modules, display=False,
                                  custom_mapping=mapping)
    seen = _Seen()
    with counter, seen:
        workload()
    counts = counter.get_flop_counts()
    by_operator = {}
    for op, n in counts.get("Global", {}).items():
        by_operator[_packet_name(op)] = int(n)
    by_operator = dict(sorted(by_operator.items()))
    by_module = dict(sorted((name, int(sum(ops.values())))
                            for name, ops in counts.items()
                            if name != "Global"))
    ignored, diagnostics = {}, []
    for name, calls in sorted(seen.calls.items()):
        if name in by_operator:
            continue
        if name in FREE_OPERATORS:
            ignored[name] = {"calls": calls, "reason": FREE_OPERATORS[name]}
        else:
            diagnostics.append({
                "code": "uncounted_operator", "severity": "warning",
                "metric": "flops", "operator": name,
                "message": f"{name} was observed {calls} time(s), but no "
                           "FLOP formula is registered."})
    known = sum(by_operator.values())
    if diagnostics:
        total = metric_result(status="partial", known_value=known,
                              unit="FLOPs", scope="workload", method=METHOD)
    else:
        total = metric_result(status="complete", value=known, unit="FLOPs",
                              scope="workload", method=METHOD)
    return {"schema_version": 1,
            "context": {"torch_version": torch.__version__, "method": METHOD},
            "total": total, "by_module": by_module,
            "by_operator": by_operator, "ignored_operators": ignored,
            "diagnostics": diagnostics}
