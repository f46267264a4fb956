"""thoplw's public API on nnscan: `from nnscan.compat import thoplw`;
`thoplw.profile(model, tensor)` -> (macs, params, layers_info) and
`thoplw.clever_format`, by thoplw's conventions.

thoplw gives a row to every module of a class in its table that ran (or
of a class in custom_ops); other modules, and functional work in a
forward, are not counted. Its Conv and Linear MACs count the bias as
one MAC per output channel, its BatchNorm four per element, its average
pools one per output element and spatial axis, its max pools and ReLUs
none; a row's params are the module's parameters (no buffers).
Every MAC count starts from the library's where thoplw's rule is the
library's rule (Conv, Linear without their bias), and uses thoplw's rule
on the recorded shapes where it differs on purpose (docs/compat.md).
"""
import torch.nn as nn

from .. import _api, _args
from ..torch_api import LayersInfo
from ._modules import out_elements, run_modules

__all__ = ["clever_format", "profile"]

_WITH_BIAS = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d,
              nn.ConvTranspose2d, nn.ConvTranspose3d)
_ZERO = (nn.ReLU, nn.ReLU6, nn.LeakyReLU, nn.MaxPool1d, nn.MaxPool2d,
         nn.MaxPool3d, nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d,
         nn.AdaptiveMaxPool3d, nn.Dropout, nn.Flatten, nn.PixelShuffle,
         nn.ZeroPad2d)
_POOLS = (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d, nn.AdaptiveAvgPool1d,
          nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d)
_UPSAMPLE = {"nearest": 0, "linear": 4, "bilinear": 6, "bicubic": 20}


def _bias(run):
    b = getattr(run.module, "bias", None)
    return run.calls * b.numel() if b is not None else 0


def _pool(run):
    rank = len(run.outputs[0]) - 2 if run.outputs else 0
    return out_elements(run) * max(rank, 0)


def _rule(module):
    """thoplw's MACs rule for a module of this class, or None (no row)."""
    t = type(module)
    if t in _WITH_BIAS:
        return lambda run: run.macs + _bias(run)
    if t in _ZERO:
        return lambda run: 0
    if t in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d):
        return lambda run: 4 * out_elements(run)
    if t in (nn.LayerNorm, nn.InstanceNorm1d, nn.InstanceNorm2d,
             nn.InstanceNorm3d):
        return lambda run: 2 * out_elements(run)
    if t is nn.PReLU:
        return lambda run: run.calls * run.module.weight.numel()
    if t is nn.Softmax:
        return out_elements
    if t in _POOLS:
        return _pool
    if t in (nn.Upsample, nn.UpsamplingBilinear2d, nn.UpsamplingNearest2d):
        return lambda run: _UPSAMPLE.get(run.module.mode, 0) * \
            out_elements(run)
    return None


def _first(shapes):
    """The dims of the first tensor (thoplw's shape cells), or None."""
    return list(shapes[0]) if shapes else None


def _held(module):
    """The parameters of the module's subtree (thoplw's code counts
    `layer.parameters()`; its README's table, from another version,
    also shows BatchNorm's running statistics)."""
    return sum(p.numel() for p in module.parameters())


def clever_format(x, fmt_str="%6.2f"):
    """thoplw's clever_format, by the library (nns_format_count's thoplw
    style): the value divided by 1000 while it is at least 1000 (up to P),
    then `fmt_str` and the unit after a space ("  1.82 G", " 11.70 M",
    "512.00  "); a list gives a list. `fmt_str` is "%<width>.<digits>f" or
    "%.<digits>f"; any other format is a ValueError."""
    if isinstance(x, list):
        return [clever_format(v, fmt_str) for v in x]
    width, digits = _api.count_format(fmt_str, "clever_format")
    return _api.format_count(x, "thoplw", width, digits)


def profile(model, tensor=None, custom_ops=None, verbose=True, *,
            inputs=None):
    """(macs, params, layers_info) of one forward of `model` on `tensor`
    (or `inputs`: a tuple of positional tensors or a dict of keyword
    ones), as thoplw counts them; layers_info.summary(kind, fmt) prints
    its table. custom_ops: {module class: fn(module, inputs, output) ->
    MACs of that call}. The model is not changed (thoplw leaves its hooks
    and a `thoplw_log` attribute on every module)."""
    custom_ops = _args.custom_ops("thoplw.profile()", custom_ops)
    model, runs, _ = run_modules(
        model, inputs if inputs is not None else tensor, custom_ops,
        "thoplw.profile()")
    rows, unknown = [], set()
    for path, run in runs.items():
        t = type(run.module)
        rule = None if t in custom_ops else _rule(run.module)
        if t not in custom_ops and rule is None and path and \
                t is not nn.Sequential:
            unknown.add(str(t))
        if not run.calls or (rule is None and t not in custom_ops):
            continue
        macs = run.custom if t in custom_ops else rule(run)
        if macs is None:
            continue
        rows.append((path, t.__name__, _first(run.inputs),
                     _first(run.outputs), int(macs), int(_held(run.module))))
    total_macs = sum(r[4] for r in rows)
    total_params = sum(r[5] for r in rows)
    root = runs[""]
    # thoplw's rows and counts, laid out by the library in thoplw's style
    info = LayersInfo.counted(
        rows, (type(model).__name__, _first(root.inputs),
               _first(root.outputs), total_macs, total_params))
    if verbose and unknown:
        print("The following layers will be unexpectedly ignored:")
        for name in sorted(unknown):
            print("  - " + name)
    return total_macs, total_params, info
