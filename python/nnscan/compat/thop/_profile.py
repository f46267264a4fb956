"""thop's profile(model, inputs) -> (macs, params), by thop's conventions.

thop counts a module only if its class is in its table (or in the
caller's custom_ops): walking down from the model, a module of such a
class gives its own count and its parameters and is not entered; any other
module is entered. Functional work in a forward and modules of other
classes count 0. The MACs of Conv, Linear and the recurrent layers are the
library's (thop's rules give the same numbers); the classes below whose
thop rule differs from the library's on purpose get thop's rule, applied
to the shapes the recording saw.
"""
import torch.nn as nn

from ... import _args
from .._modules import numel, out_elements, run_modules

_LIBRARY = (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d,
            nn.ConvTranspose2d, nn.ConvTranspose3d, nn.Linear, nn.RNNCell,
            nn.GRUCell, nn.LSTMCell, nn.RNN, nn.GRU, nn.LSTM)
# counted as zero: thop says they do no multiply-accumulate (the library
# counts a max pool's comparisons; LeakyReLU and ReLU have no MACs there
# either)
_ZERO = (nn.ReLU, nn.ReLU6, nn.LeakyReLU, nn.MaxPool1d, nn.MaxPool2d,
         nn.MaxPool3d, nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d,
         nn.AdaptiveMaxPool3d, nn.Dropout, nn.Sequential, nn.PixelShuffle,
         nn.ZeroPad2d)
_NORM = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm,
         nn.LayerNorm, nn.InstanceNorm1d, nn.InstanceNorm2d,
         nn.InstanceNorm3d)
_UPSAMPLE_COST = {"nearest": 1, "linear": 5, "bilinear": 11,
                  "bicubic": 259, "trilinear": 31}


def _norm(run):
    # thop: 2 per element to normalise (BatchNorm folded), twice that
    # with the affine scale and shift; the library: 2 per element
    m = run.module
    affine = getattr(m, "affine", False) or \
        getattr(m, "elementwise_affine", False)
    return 2 * out_elements(run) * (2 if affine else 1)


def _softmax(run):
    total = 0
    per = max(1, len(run.outputs) // max(run.calls, 1))
    for k in range(run.calls):
        shape = run.outputs[k * per]
        n = shape[run.module.dim] if shape and run.module.dim is not None \
            else numel(shape)
        total += numel(shape) // max(n, 1) * (3 * n - 1)
    return total


def _adaptive_avg(run):
    # thop: (input/output window size + 1 division) per output element,
    # the window taken from the first call's shapes
    if not run.inputs or not run.outputs:
        return 0
    x, y = run.inputs[0], run.outputs[0]
    window = 1.0
    for a, b in zip(x[2:], y[2:]):
        window *= a / b if b else 0
    return int((window + 1) * out_elements(run))


def _upsample(run):
    return _UPSAMPLE_COST.get(getattr(run.module, "mode", ""), 0) * \
        out_elements(run)


def _rule(module):
    """thop's rule for a module of this class, or None: not counted."""
    t = type(module)
    if t in _LIBRARY:
        return lambda run: run.macs
    if t in _ZERO:
        return lambda run: 0
    if t in _NORM:
        return _norm
    if t is nn.PReLU:
        return out_elements
    if t is nn.Softmax:
        return _softmax
    if t in (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d):
        return out_elements
    if t in (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d,
             nn.AdaptiveAvgPool3d):
        return _adaptive_avg
    if t in (nn.Upsample, nn.UpsamplingBilinear2d, nn.UpsamplingNearest2d):
        return _upsample
    return None


def _thop_hook(fn):
    """thop's custom op fn(module, inputs, output) adds to
    module.total_ops; the recorder wants the MACs returned. The counter
    lives on the module only during the call (on the recording's meta
    copy, or on the model itself when it runs on its own device)."""
    import torch

    def macs(module, inputs, output):
        had = "total_ops" in module.__dict__ or hasattr(module, "total_ops")
        old = getattr(module, "total_ops", None)
        object.__setattr__(module, "total_ops",
                           torch.zeros(1, dtype=torch.float64))
        try:
            fn(module, inputs, output)
            return int(float(module.total_ops.sum()))
        finally:
            if had:
                object.__setattr__(module, "total_ops", old)
            else:
                object.__delattr__(module, "total_ops")
    return macs


def _run(model, inputs, custom_ops, who):
    """One recorded forward with thop's custom_ops as hooks: (the model
    recorded, its module runs)."""
    _args.module(who, "model", model)
    custom_ops = _args.custom_ops(who, custom_ops)
    model, runs, _ = run_modules(
        model, tuple(inputs) if isinstance(inputs, list) else inputs,
        {cls: _thop_hook(fn) for cls, fn in custom_ops.items()}, who)
    return model, runs


def profile(model, inputs, custom_ops=None, verbose=True,
            ret_layer_info=False, report_missing=False):
    """(macs, params) of one forward of `model` on `inputs` (a tuple of
    positional inputs), as thop counts them; with ret_layer_info, a third
    item: {child name: (macs, params, its children's dict)}. custom_ops:
    {module class: fn(module, inputs, output)} adding the MACs of one call
    to `module.total_ops`, as thop's hooks do. The model is not changed
    (thop leaves `total_ops` / `total_params` buffers on it meanwhile)."""
    custom_ops = _args.custom_ops("thop.profile()", custom_ops)
    verbose = verbose or report_missing
    model, runs = _run(model, inputs, custom_ops, "thop.profile()")
    seen_types = set()

    def own(path):
        run = runs[path]
        t = type(run.module)
        if t in custom_ops:
            if verbose and t not in seen_types:
                print(f"[INFO] Customize rule {custom_ops[t].__qualname__}() "
                      f"{t}.")
            seen_types.add(t)
            return (run.custom or 0), _params(run) if run.calls else 0
        rule = _rule(run.module)
        if rule is None:
            if report_missing and t not in seen_types and run.calls:
                print(f"[WARN] Cannot find rule for {t}. Treat it as zero "
                      "Macs and zero Params.")
            seen_types.add(t)
            return None
        if verbose and t not in seen_types:
            print(f"[INFO] Register nnscan's rule for {t}.")
        seen_types.add(t)
        if not run.calls:
            return 0, 0
        return int(rule(run)), _params(run)

    def walk(path, module):
        counted = own(path)
        macs = counted[0] if counted else 0
        # thop adds only children's parameters; a model that is itself a
        # counted module (profile(nn.Conv2d(...))) keeps its own here
        params = counted[1] if counted and path == "" and \
            not any(True for _ in module.children()) else 0
        tree = {}
        for name, child in module.named_children():
            cpath = f"{path}.{name}" if path else name
            c = own(cpath)
            if c is not None and not isinstance(child, (nn.Sequential,
                                                        nn.ModuleList)):
                cm, cp, sub = c[0], c[1], {}
            else:
                cm, cp, sub = walk(cpath, child)
            tree[name] = (cm, cp, sub)
            macs += cm
            params += cp
        return macs, params, tree

    macs, params, tree = walk("", model)
    if ret_layer_info:
        return float(macs), float(params), tree
    return float(macs), float(params)


def _params(run):
    return sum(p.numel() for p in run.module.parameters())


def profile_origin(model, inputs, custom_ops=None, verbose=True,
                   report_missing=False):
    """thop's first profile: (macs, params) summed over the leaf modules
    only; a leaf's MACs by thop's rule for its class (or custom_ops; 0
    without one), its parameters counted whether it has a rule or ran."""
    custom_ops = _args.custom_ops("thop.profile_origin()", custom_ops)
    verbose = verbose or report_missing
    model, runs = _run(model, inputs, custom_ops, "thop.profile_origin()")
    macs = params = 0
    seen, seen_types = set(), set()
    for run in runs.values():
        m = run.module
        if id(m) in seen or any(True for _ in m.children()):
            continue
        seen.add(id(m))
        t = type(m)
        params += sum(p.numel() for p in m.parameters())
        rule = _rule(m)
        if t in custom_ops:
            macs += run.custom or 0
        elif rule is not None:
            macs += int(rule(run)) if run.calls else 0
        elif report_missing and t not in seen_types:
            print(f"[WARN] Cannot find rule for {t}. Treat it as zero Macs "
                  "and zero Params.")
        seen_types.add(t)
    return float(macs), float(params)
