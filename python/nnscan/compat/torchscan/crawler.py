"""torchscan 0.2's crawl_module and summary.

One real forward of the caller's module on the caller's inputs (in eval
mode, without gradients, flags put back) gives the report its layer calls:
identity, input/output metadata, and the parameters each call holds.
PyTorch's FLOP counter watches that same forward for `operator_flops`
(PyTorch 2.1+). The module metrics (FLOPs, MACs, DMAs, receptive field)
come from the library's analysis of the recorded graph
(nnscan.torch_api.analyze_module, on meta tensors): each call gets the
work of its module's operators that no child module call covers, so a
leaf's metric is its whole work and the metrics of all layers add up to
the library's model totals (functional work in a container's forward
included, which torchscan's module formulas miss). The exception,
torchscan's convention: the module_flops of an nn.MultiheadAttention call
and of an nn.Transformer model (reported as its one call) are torchscan's
closed-form formulas (_formulas.py).
"""
import platform
from collections.abc import Mapping

import torch

from ... import _args
from ...torch_api import analyze_module
from .._modules import held
from . import _calls, _formulas, _text
from .flops import measure_flops
from .report import IncompleteAnalysisError, metric_result

__all__ = ["crawl_module", "summary"]

METHOD = "nnscan"  # how module metrics are counted: the library's op rules
FORMULA = "torchscan_module_formula"  # torchscan's own closed form
_COUNTS = (("module_flops", "flops", "FLOPs"), ("macs", "macs", "MACs"),
           ("dmas", "dmas", "DMAs"))
_RF = (("receptive_field", "field"), ("effective_stride", "stride"),
       ("effective_padding", "padding"))


def _nnscan_version():
    import nnscan
    return getattr(nnscan, "__version__", "unknown")


# ---- inputs ----

def _model_defaults(module):
    t = next(module.parameters(), None)
    if t is None:
        t = next(module.buffers(), None)
    if t is None:
        return torch.device("cpu"), torch.float32
    return t.device, t.dtype


def _inputs(module, input_shape, dtype, args, kwargs, device):
    """(args, kwargs, metadata) from either generated shapes or the
    caller's real arguments, never both."""
    real = args is not None or kwargs is not None
    if real == (input_shape is not None):
        raise ValueError("Exactly one of input_shape or args/kwargs must be "
                         "provided.")
    if real:
        if dtype is not None or device is not None:
            raise ValueError("dtype and device apply only to generated "
                             "input_shape tensors.")
        if args is not None and not isinstance(args, tuple):
            raise TypeError(f"args must be a tuple, got {type(args).__name__}.")
        if kwargs is not None and not isinstance(kwargs, Mapping):
            raise TypeError("kwargs must be a mapping, got "
                            f"{type(kwargs).__name__}.")
        a, k = args or (), dict(kwargs or {})
        if any(not isinstance(n, str) for n in k):
            raise TypeError("kwargs keys must be strings.")
        return a, k, {"source": "provided", **_calls.describe_call(a, k)}
    shapes = input_shape if isinstance(input_shape, list) else [input_shape]
    if not shapes or any(not isinstance(s, tuple) for s in shapes):
        raise TypeError("input_shape must be a tuple or a non-empty list of "
                        "tuples.")
    if any(isinstance(d, bool) or not isinstance(d, int)
           for s in shapes for d in s):
        raise TypeError("Every input_shape dimension must be an integer.")
    dev, default = _model_defaults(module)
    dev = dev if device is None else torch.device(device)
    if dtype is None:
        dtypes = [default] * len(shapes)
    elif isinstance(dtype, torch.dtype):
        dtypes = [dtype] * len(shapes)
    else:
        dtypes = list(dtype)
        if len(dtypes) != len(shapes):
            raise ValueError(f"dtype length ({len(dtypes)}) must match the "
                             f"number of input shapes ({len(shapes)}).")
        if any(not isinstance(d, torch.dtype) for d in dtypes):
            raise TypeError("Every dtype value must be a torch.dtype.")
    a = tuple(torch.zeros((1,) + s, dtype=d, device=dev)
              for s, d in zip(shapes, dtypes))
    return a, {}, {"source": "generated", **_calls.describe_call(a, {})}


# ---- the library's counts ----

def _library_work(module, args, kwargs):
    """path -> the counts of its module's own operators (its layer's counts
    less its child layers'), and the library's model totals; or the error
    that stopped the recording."""
    try:
        s = analyze_module(module, args, kwargs)
    except Exception as e:  # noqa: BLE001 - a diagnostic in the report
        return None, f"{type(e).__name__}: {e}"
    from ..._api import py_name
    rows = s.layers
    own, whole = {}, {}
    for row in rows:
        counts = {
            "flops": row["flops"], "macs": row["macs"], "dmas": row["dmas"],
            "nodes": row["nodes"], "partial": row["flags"]["partial"],
            "rf": row.get("rf")}
        own[py_name(row["path"])] = counts
        whole[py_name(row["path"])] = dict(counts)
    for row in rows:
        if row["parent"] is None:
            continue
        parent = own[py_name(rows[row["parent"]]["path"])]
        for k in ("flops", "macs", "dmas", "nodes"):
            parent[k] -= row[k]
    uncounted = sorted({o["op_type"] for o in s.json.get("uncounted_ops", [])}
                       | set(s.uncounted_aten))
    return {"own": own, "whole": whole, "uncounted": uncounted}, None


# ---- the report ----

def _held(calls, module):
    """For each call, the parameters and buffers it holds: its module's
    own, and those of its submodules that were never called (an
    nn.MultiheadAttention's out_proj), each tensor counted at its first
    call only (`shared` marks a call that met an already counted one)."""
    called = {id(c.module) for c in calls}
    seen = set()
    out = []
    for c in calls:
        params, bufs = [], []
        stack = [c.module]
        while stack:
            m = stack.pop()
            params.extend(m.parameters(recurse=False))
            bufs.extend(m.buffers(recurse=False))
            stack.extend(ch for ch in m.children() if id(ch) not in called)
        entry = {"parameters": {"trainable": 0, "frozen": 0, "bytes": 0,
                                "shared": False},
                 "buffers": {"elements": 0, "bytes": 0, "shared": False}}
        for kind, tensors in (("parameters", params), ("buffers", bufs)):
            d = entry[kind]
            for t in tensors:
                if id(t) in seen:
                    d["shared"] = True
                    continue
                seen.add(id(t))
                if kind == "buffers":
                    d["elements"] += t.numel()
                elif t.requires_grad:
                    d["trainable"] += t.numel()
                else:
                    d["frozen"] += t.numel()
                d["bytes"] += t.numel() * t.element_size()
        out.append(entry)
    return out


def _diag(diags, code, metric, message, path=None, operator=None):
    d = {"code": code, "severity": "warning", "metric": metric,
         "message": message}
    if path is not None:
        d["path"] = path
    if operator is not None:
        d["operator"] = operator
    diags.append(d)


def _call_metrics(c, leaf, work, same_shapes, ncalls, diags, counted=_COUNTS,
                  subtree=False):
    """The metrics of one call (the `counted` ones of module_flops, macs,
    dmas, and the receptive field), or only `calls` for a container whose
    forward does no work of its own. `subtree`: the call stands for its
    whole subtree (no child call is reported)."""
    def unavailable(unit):
        return metric_result(status="unavailable", unit=unit,
                             scope="module_call", method=METHOD)

    metrics = {"calls": metric_result(status="complete", value=1,
                                      unit="calls", scope="module_call",
                                      method="pytorch_hook")}
    mine = None if work is None else \
        work["whole" if subtree else "own"].get(c.path)
    if not leaf and (mine is None or not (mine["flops"] or mine["macs"]
                                          or mine["dmas"])):
        return metrics
    why = None
    if work is None:
        why = None  # said once for the whole report
    elif leaf and not (c.tensors_in and c.tensors_out):
        why = ("missing_metric_tensor", "The module call did not expose "
               "both an input and output tensor.")
    elif mine is None:
        why = ("missing_metric_tensor", "The recorded graph has no "
               "operator of this module call.")
    elif not same_shapes:
        why = ("call_split_unknown", f"The module ran {ncalls} times on "
               "different shapes; the library counts its calls together.")
    if work is None or why is not None:
        for name, _, unit in counted:
            metrics[name] = unavailable(unit)
            if why is not None:
                _diag(diags, why[0], name, why[1], path=c.path)
        for name, _ in _RF:
            metrics[name] = unavailable("elements")
        return metrics
    # a module of the user's own (not torch.nn's) whose call holds no
    # operator: a pass-through, or work the dispatcher never saw (numpy,
    # Python arithmetic); only a lower bound is known
    opaque = leaf and mine["nodes"] == 0 and \
        not type(c.module).__module__.startswith("torch.")
    for name, key, unit in counted:
        v = mine[key] // ncalls
        if mine["partial"] or opaque:
            metrics[name] = metric_result(status="partial", known_value=v,
                                          unit=unit, scope="module_call",
                                          method=METHOD)
            if opaque:
                _diag(diags, "no_recorded_operator", name,
                      f"{type(c.module).__name__} ran no PyTorch operator "
                      "the recorder could see; work outside PyTorch's "
                      "dispatcher is not counted.", path=c.path)
            else:
                for op in work["uncounted"] or ["?"]:
                    _diag(diags, "uncounted_operator", name,
                          f"{op} has no cost rule in nnscan; this call's "
                          "count is a lower bound.", path=c.path,
                          operator=op)
        else:
            metrics[name] = metric_result(status="complete", value=v,
                                          unit=unit, scope="module_call",
                                          method=METHOD)
    rf = mine["rf"]
    for name, key in _RF:
        if rf and rf.get("axes") and not rf.get("whole"):
            metrics[name] = metric_result(status="complete",
                                          value=rf[key][0], unit="elements",
                                          scope="module_call", method=METHOD)
        else:
            metrics[name] = unavailable("elements")
    return metrics


def _formula_flops(c, sees_kwargs, diags):
    """module_flops of a call torchscan prices by its own formula
    (_formulas.applies): the formula's value, or unavailable with
    torchscan's `module_metric_error` where the formula has none. Where
    the hooks could not see keyword arguments (PyTorch < 2.0), a mask
    passed by keyword is not seen either: the value is a lower bound."""
    try:
        v = _formulas.module_flops(c.module, c.input, c.output)
    except _formulas.FormulaError as e:
        _diag(diags, "module_metric_error", "module_flops",
              f"{type(e).__name__}: {e}", path=c.path)
        return metric_result(status="unavailable", unit="FLOPs",
                             scope="module_call", method=FORMULA)
    if not sees_kwargs:
        _diag(diags, "keyword_arguments_unseen", "module_flops",
              "PyTorch < 2.0 hides keyword arguments from module hooks; "
              "masks passed by keyword are not counted.", path=c.path)
        return metric_result(status="partial", known_value=v, unit="FLOPs",
                             scope="module_call", method=FORMULA)
    return metric_result(status="complete", value=v, unit="FLOPs",
                         scope="module_call", method=FORMULA)


def _aggregate(layers, name, unit):
    results = [layer["metrics"][name] for layer in layers
               if name in layer["metrics"]]
    known = [r["known_value"] for r in results if r["known_value"] is not None]
    if not known:
        return metric_result(status="unavailable", unit=unit, scope="forward",
                             method=METHOD)
    if all(r["status"] == "complete" for r in results):
        return metric_result(status="complete", value=sum(known), unit=unit,
                             scope="forward", method=METHOD)
    return metric_result(status="partial", known_value=sum(known), unit=unit,
                         scope="forward", method=METHOD)


def _unavailable_flops(why):
    return {"schema_version": 1,
            "context": {"torch_version": torch.__version__,
                        "method": "torch.utils.flop_counter.FlopCounterMode"},
            "total": metric_result(
                status="unavailable", unit="FLOPs", scope="workload",
                method="torch.utils.flop_counter.FlopCounterMode"),
            "by_module": {}, "by_operator": {}, "ignored_operators": {},
            "diagnostics": [{"code": "operator_counter_unavailable",
                             "severity": "warning", "metric": "flops",
                             "message": why}]}


def crawl_module(module, input_shape=None, dtype=None, *, args=None,
                 kwargs=None, device=None, strict=False):
    """The AnalysisReport of one inference forward of `module` on either
    generated inputs (input_shape: a tuple, batch excluded, or a list of
    them; dtype, device) or the caller's real `args` / `kwargs`, passed to
    the forward unchanged. strict=True raises IncompleteAnalysisError when
    a total is not complete or a diagnostic was made."""
    _args.module("torchscan.crawl_module()", "module", module)
    call_args, call_kwargs, inputs = _inputs(module, input_shape, dtype, args,
                                             kwargs, device)
    log = _calls.CallLog(module)
    flop_report = None
    with _calls.evaluation(module) as training_before, log:
        def forward():
            module(*call_args, **call_kwargs)
        try:
            flop_report = measure_flops(forward)
        except NotImplementedError as e:  # PyTorch < 2.1: no counter
            why = str(e)
            forward()
            flop_report = _unavailable_flops(why)
    calls = log.calls
    if not log.sees_kwargs and calls and calls[0].path == "":
        # the model's own call: its keyword arguments are the caller's
        calls[0] = calls[0]._replace(
            input=_calls.describe_call(call_args, call_kwargs))
    if isinstance(module, torch.nn.Transformer):
        # torchscan reports a Transformer model as one call, its formula
        calls = [c for c in calls if c.path == ""]
    diags = []
    work, failed = _library_work(module, call_args, call_kwargs)
    if failed:
        _diag(diags, "analysis_failed", "module_flops",
              f"nnscan could not record this forward ({failed}); module "
              "metrics are unavailable.")
    ncalls, shapes = {}, {}
    for c in calls:
        ncalls[c.path] = ncalls.get(c.path, 0) + 1
        shapes.setdefault(c.path, set()).add(repr((c.input, c.output)))
    called = set(ncalls)
    holdings = _held(calls, module)
    layers = []
    for c, h in zip(calls, holdings):
        leaf = not any(p.startswith(c.path + ".") if c.path else p != ""
                       for p in called)
        formula = _formulas.applies(c.module, c.path == "")
        metrics = _call_metrics(
            c, leaf, work, len(shapes[c.path]) == 1, ncalls[c.path], diags,
            counted=_COUNTS[1:] if formula else _COUNTS,
            subtree=formula and c.path == "")
        if formula:
            metrics["module_flops"] = _formula_flops(
                c, log.sees_kwargs or (c.path == "" and c.call_index == 0),
                diags)
            # attention reaches every position: no receptive field
            for name, _ in _RF:
                metrics[name] = metric_result(
                    status="unavailable", unit="elements",
                    scope="module_call", method=FORMULA)
        layers.append({
            "path": c.path, "call_index": c.call_index,
            "name": c.path.rpartition(".")[2] or type(c.module).__name__.lower(),
            "depth": c.path.count(".") + 1 if c.path else 0,
            "type": type(c.module).__name__,
            "input": c.input, "output": c.output or {"kind": "none"},
            "parameters": h["parameters"], "buffers": h["buffers"],
            "metrics": metrics})
    params = list(module.parameters())
    bufs = list(module.buffers())

    def model_total(value, unit):
        return metric_result(status="complete", value=value, unit=unit,
                             scope="model", method="pytorch")
    h = held(params, bufs)
    totals = {
        "parameters": model_total(h.trainable + h.frozen, "elements"),
        "trainable_parameters": model_total(h.trainable, "elements"),
        "frozen_parameters": model_total(h.frozen, "elements"),
        "parameter_bytes": model_total(h.param_bytes, "bytes"),
        "buffer_elements": model_total(h.buffers, "elements"),
        "buffer_bytes": model_total(h.buffer_bytes, "bytes"),
    }
    for name, _, unit in _COUNTS:
        totals[name] = _aggregate(layers, name, unit)
    if flop_report["total"]["status"] != "unavailable":
        totals["operator_flops"] = flop_report["total"]
        diags.extend(flop_report["diagnostics"])
    tensors = params + bufs
    report = {
        "schema_version": 1,
        "context": {
            "torchscan_version": "0.2.0",
            "nnscan_version": _nnscan_version(),
            "torch_version": torch.__version__,
            "python_version": platform.python_version(),
            "model_type": f"{type(module).__module__}."
                          f"{type(module).__qualname__}",
            "execution_mode": "evaluation_no_grad",
            "training_before": training_before,
            "devices": sorted({str(t.device) for t in tensors}),
            "dtypes": sorted({str(t.dtype) for t in tensors}),
        },
        "inputs": inputs,
        "layers": layers,
        "operator_flops": flop_report,
        "totals": totals,
        "diagnostics": diags,
    }
    if strict and (diags or any(r["status"] != "complete"
                                for r in totals.values())):
        raise IncompleteAnalysisError(report)
    return report


def summary(module, input_shape=None, wrap_mode="mid", max_depth=None,
            receptive_field=False, effective_rf_stats=False, *, dtype=None,
            args=None, kwargs=None, device=None, strict=False):
    """Print the report as torchscan 0.2's table (rows down to max_depth)
    and return the whole report."""
    who = "torchscan.summary()"
    _args.module(who, "module", module)
    _args.count(who, "max_depth", max_depth, none=True)
    report = crawl_module(module, input_shape, dtype, args=args,
                          kwargs=kwargs, device=device, strict=strict)
    shown = _text.depth_view(report, max_depth) \
        if isinstance(max_depth, int) else report
    print(_text.format_report(shown, wrap_mode, receptive_field,
                              effective_rf_stats))
    return report
