#!/usr/bin/python3
"""Receptive fields measured in PyTorch by back-propagation: the reference
nnscan's receptive-field rules are checked against (issue 7).

    /usr/bin/python3 tools/rf_reference.py            # every model
    /usr/bin/python3 tools/rf_reference.py resnet18   # a subset (merged)
    /usr/bin/python3 tools/rf_reference.py --list

Writes tests/fixtures/rf_reference.json. The test suite never runs this
script (it needs torch 1.13 + torchvision 0.14, Debian's python3-torch and
python3-torchvision); tests/unit/test_rf_reference.c reads the JSON.

Method. Each model is made geometry-only, so that the input gradient of an
output element is non-zero exactly on the pixels it can depend on:

  - activations (ReLU, ReLU6, SiLU, GELU, Hardswish, Hardsigmoid, Sigmoid,
    Tanh; modules and F.relu) become the identity: a ReLU would zero the
    gradient of the pixels at the edge of the field for some inputs;
  - squeeze-excitation gates (torchvision.ops.SqueezeExcitation) become the
    identity: their global pooling would make every pixel contribute, and
    nnscan reports that as a flag on top of the finite field;
  - max pooling becomes average pooling with the same kernel, stride,
    padding and ceil_mode (a max routes the gradient to one pixel only);
  - BatchNorm in eval mode (an affine map), dropout and stochastic depth
    off; LayerNorm kept (it mixes channels at one position only);
  - float64, random weights (torch.manual_seed(0); weights=None).

The last spatial feature map is the output of a named module (the one the
classifier's global pooling consumes; for alexnet and the VGGs `features`,
as torchscan reports them). For each spatial axis separately the input is
long on that axis and short on the other (LONG x SHORT pixels; LONG
doubles until the field no longer touches the border), so the field is
never clipped and the cost stays small. With y the feature map and i the
middle index along the long axis (the middle one along the short axis),
the input gradients of y[i] and y[i+1] are taken (each a fixed random mix
of all channels at that position: a position's field is that of its
widest channel), reduced
to their non-zero extent [a_i, b_i] and [a_{i+1}, b_{i+1}] along the axis:

  field   = b_i - a_i + 1
  stride  = a_{i+1} - a_i            (also checked equal to b_{i+1} - b_i)
  padding = i * stride - a_i         (where output element 0's field would
                                      start, negated: torchscan's
                                      effective padding)

Global context. The same element's gradient is taken once more on the
same input with the squeeze-excitation gates kept as they are (the other
activations still the identity): "global_context" is true when it reaches
pixels outside the finite field, i.e. the value also depends on the whole
input.

Swin (swin_t) is measured differently, at the export's own input size
(make_fixtures.MODELS, 224 x 224): torchvision's shifted_window_attention
pads H and W to multiples of the window and turns the shift off on an axis
whose padded size is at most the window, so a field measured on a long
input would be that of another graph. The model is made geometry-only as
above (GELU the identity, eval: dropout and StochasticDepth inactive,
float64, random weights) and, while measuring, the shifted-window mask is
made exact: torchvision fills masked pairs with -100, whose softmax weight
(~e^-100) is not zero in float64 and would leak gradient between the
regions of a shifted window; a copy of the function with -inf instead is
patched in (and the patch is checked: the softmax of every shifted block
then has weights exactly 0, and torchvision's own has none). At 224 the
last spatial feature map (`features`, 1 x 7 x 7 x 768, channels last) is
7 x 7 with window 7: stage 4 attends over all positions. The input
gradient of every one of its 49 positions (a random mix of all channels)
is taken; the entry is {"whole": true, ..., "covered": the fraction of
input pixels with a non-zero gradient, the least over the 49} when every
position's gradient reaches every row and every column of the input
(otherwise the row and column extents measured). The extents of the
middle element of each stage's last block are printed (not written).

Swin per-position extents (--swin-extents; writes only
tests/fixtures/rf_reference_swin.txt, the JSON is left alone):

    /usr/bin/python3 tools/rf_reference.py --swin-extents
    /usr/bin/python3 tools/rf_reference.py --swin-extents --size 256
        # writes tests/fixtures/rf/swin_t_256_extents.txt (any size other
        # than 224: tests/fixtures/rf/swin_t_<size>_extents.txt; or give
        # the path: --swin-extents PATH)

On the same geometry-only swin_t at 224 x 224 (or --size S: S x S) with
the exact mask, one
forward pass keeps the outputs of features.1 ... features.6 (stages and
PatchMerging, channels last (1, H, W, C)). For every index i along H, at
the middle column j = W // 2, the input gradient of a fixed random mix of
all channels at (i, j) is taken (torch.autograd.grad, graph retained) and
reduced to the rows where it is non-zero (exact `!= 0`, float64, any
channel or column): [a_i, b_i]; likewise along W at the middle row, the
columns. One line per (module, axis): `name axis n a_0 b_0 ... a_n-1
b_n-1` (axis 0 = H, 1 = W); lines starting with # are comments.
A C test checks that nnscan's (field, stride, padding) per Swin stage
contain every [a_i, b_i] (windowed attention: nnscan's is an upper bound).
At a size whose stage maps are not multiples of the window (256: 64, 32,
16, 8), torchvision pads each block's map on the bottom and right to a
multiple of 7 (70, 35, 21, 14) and crops after; the padded tokens carry no
input, so they only change which positions share a window; stage 4 (8 x 8
padded to 14 x 14) then has two windows per axis and keeps its shift (the
mask check counts its blocks among the shifted ones).

The small hand-built graphs of tests/unit/models (make_analyze.py) are
rebuilt here as modules and measured the same way as the torchvision
models.
"""
import argparse
import inspect
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_fixtures  # noqa: E402  (MODELS: constructor kwargs)

OUT = os.path.normpath(os.path.join(HERE, "..", "tests", "fixtures",
                                    "rf_reference.json"))
SHORT = 128   # pixels on the axis not measured
LONG0 = 256   # first try on the measured axis; doubled while clipped
LONG_MAX = 16384

# The module whose output is the last spatial feature map.
LAST_SPATIAL = {
    "alexnet": "features", "vgg11": "features", "vgg13": "features",
    "vgg16": "features", "vgg19": "features",
    "resnet18": "layer4", "resnet50": "layer4",
    "googlenet": "inception5b", "inception_v3": "Mixed_7c",
    "densenet121": "features", "mobilenet_v2": "features",
    "efficientnet_b0": "features", "vit_b_16": "conv_proj",
    "convnext_tiny": "features", "mobilenet_v3_large": "features",
    "regnet_y_400mf": "trunk_output", "shufflenet_v2_x1_0": "conv5",
}
# Measured at the export's input size (see the docstring): the module
# whose output is the last spatial feature map, and that of each stage's
# last block (printed only).
WHOLE = {"swin_t": "features"}
STAGES = {"swin_t": ["features.1", "features.3", "features.5",
                     "features.7"]}
WHOLE_NOTE = ("measured at the export's input size, since swin pads to "
              "windows and turns shifts off when the window covers the "
              "map; every probed element's gradient covers the whole input")
NOT_CHECKED = {}

SWIN_OUT = os.path.normpath(os.path.join(HERE, "..", "tests", "fixtures",
                                         "rf_reference_swin.txt"))
SWIN_MODULES = ["features.1", "features.2", "features.3", "features.4",
                "features.5", "features.6"]
SWIN_RF_DIR = os.path.normpath(os.path.join(HERE, "..", "tests", "fixtures",
                                            "rf"))
SWIN_HEADER = ("# generated by tools/rf_reference.py --swin-extents{opt}: "
               "swin_t (torchvision 0.14), geometry-only, {size}x{size} "
               "input, exact "
               "shifted-window mask; per output position i along one axis, "
               "the extent [a, b] of the non-zero input gradient along that "
               "axis (the other axis at the middle index)")

METHOD = ("geometry-only model (activations and SE gates identity, max-pool "
          "-> avg-pool, float64, random weights); extent of the non-zero "
          "input gradient of two neighbouring interior positions (a random "
          "mix of all channels) of the last spatial feature map, one axis "
          "at a time on an input long on that axis; global_context: the "
          "gradient with the SE gates kept reaches outside that extent; "
          "swin_t at the export's input size (shifted-window mask made "
          "exact, -inf for -100), every position of the last feature map: "
          "whole when each gradient reaches every input row and column, "
          "covered the least fraction of input pixels it reaches")

ACTIVATIONS = (nn.ReLU, nn.ReLU6, nn.SiLU, nn.GELU, nn.Hardswish,
               nn.Hardsigmoid, nn.Sigmoid, nn.Tanh)


# ------------------------------------------------------------ hand-built

class Residual(nn.Module):
    """tests/unit/models/analyze_residual.onnx."""
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
        self.skip = nn.Conv2d(2, 4, 1, stride=2, bias=False)
        self.head = nn.Conv2d(4, 4, 3, padding=1, bias=False)

    def forward(self, x):
        return self.head(self.conv2(self.conv1(x)) + self.skip(x))


class Inception(nn.Module):
    """tests/unit/models/analyze_inception.onnx."""
    def __init__(self):
        super().__init__()
        self.b1 = nn.Conv2d(3, 2, 1, bias=False)
        self.b3 = nn.Conv2d(3, 2, 3, padding=1, bias=False)
        self.b5 = nn.Conv2d(3, 2, 5, padding=2, bias=False)
        self.pool = nn.MaxPool2d(3, stride=1, padding=1)
        self.out = nn.Conv2d(9, 2, 3, padding=1, bias=False)

    def forward(self, x):
        return self.out(torch.cat([self.b1(x), self.b3(x), self.b5(x),
                                   self.pool(x)], 1))


class SE(nn.Module):
    """tests/unit/models/analyze_se.onnx: conv 3x3 s2 p1, a squeeze-
    excitation gate (GlobalAveragePool, 1x1 convs, Sigmoid, Mul), conv 3x3
    p1."""
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False)
        self.se = torchvision.ops.SqueezeExcitation(4, 2)
        self.head = nn.Conv2d(4, 4, 3, padding=1, bias=False)

    def forward(self, x):
        return self.head(self.se(self.stem(x)))


class Shuffle(nn.Module):
    """tests/unit/models/analyze_shuffle.onnx: conv 3x3 s2 p1, channel
    shuffle (Reshape, Transpose, Reshape), depthwise 3x3 p1."""
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False)
        self.dw = nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=False)

    def forward(self, x):
        n, c, hh, ww = x.shape
        y = self.stem(x)
        hh, ww = y.shape[2:]
        y = y.reshape(n, 2, 2, hh, ww).transpose(1, 2).reshape(n, 4, hh, ww)
        return self.dw(y)


class ChannelsLast(nn.Module):
    """tests/unit/models/analyze_channels_last.onnx, a ConvNeXt block: conv
    4x4 s4, depthwise 7x7 p3, permute to NHWC, LayerNorm, Linear, permute
    back, add the block's input."""
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(2, 4, 4, stride=4, bias=False)
        self.dw = nn.Conv2d(4, 4, 7, padding=3, groups=4, bias=False)
        self.norm = nn.LayerNorm(4)
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        s = self.stem(x)
        y = self.dw(s).permute(0, 2, 3, 1)
        y = self.fc(self.norm(y)).permute(0, 3, 1, 2)
        return y + s


class StridedSlice(nn.Module):
    """tests/unit/models/analyze_slice.onnx: conv 3x3 p1, x[..., 1::2,
    1::2], conv 3x3 p1."""
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(2, 4, 3, padding=1, bias=False)
        self.head = nn.Conv2d(4, 4, 3, padding=1, bias=False)

    def forward(self, x):
        return self.head(self.stem(x)[:, :, 1::2, 1::2])


HAND_BUILT = {"analyze_residual": Residual, "analyze_inception": Inception,
              "analyze_se": SE, "analyze_shuffle": Shuffle,
              "analyze_channels_last": ChannelsLast,
              "analyze_slice": StridedSlice}


# ------------------------------------------------------------ geometry only

def _identity(x, *args, **kwargs):
    return x


def _avg_for_max(x, kernel_size, stride=None, padding=0, dilation=1,
                 ceil_mode=False, return_indices=False):
    assert dilation in (1, (1, 1)) and not return_indices
    return F.avg_pool2d(x, kernel_size, stride if stride else kernel_size,
                        padding, ceil_mode, count_include_pad=True)


class GeometryOnly:
    """Functional activations and max pooling patched while active."""
    PATCH = {"relu": _identity, "relu6": _identity, "max_pool2d": _avg_for_max}

    def __enter__(self):
        self.saved = {k: getattr(F, k) for k in self.PATCH}
        for k, f in self.PATCH.items():
            setattr(F, k, f)
        return self

    def __exit__(self, *exc):
        for k, f in self.saved.items():
            setattr(F, k, f)


def geometry_only(model, keep_gates=False):
    """Activations to the identity, and the squeeze-excitation gates too
    unless keep_gates (then they are kept whole, their ReLU and sigmoid
    included, so that the gated values keep their magnitude)."""
    gate = torchvision.ops.SqueezeExcitation
    inside_gate = {id(m) for g in model.modules() if isinstance(g, gate)
                   for m in g.modules()}
    for mod in list(model.modules()):
        if id(mod) in inside_gate:
            continue
        for name, child in list(mod.named_children()):
            if isinstance(child, ACTIVATIONS) or (
                    isinstance(child, gate) and not keep_gates):
                setattr(mod, name, nn.Identity())
    return model.double().eval()


def build(name, keep_gates=False):
    torch.manual_seed(0)
    if name in HAND_BUILT:
        return geometry_only(HAND_BUILT[name](), keep_gates), None
    kwargs, _ = make_fixtures.MODELS[name]
    model = getattr(torchvision.models, name)(weights=None, **kwargs)
    module = WHOLE[name] if name in WHOLE else LAST_SPATIAL[name]
    return geometry_only(model, keep_gates), module


class ExactSwinMask:
    """While active, torchvision's shifted_window_attention masks the pairs
    of a shifted window that come from different regions with -inf instead
    of -100, so that their softmax weight is exactly 0 (e^-100 is not zero
    in float64 and would leak gradient). A copy of the function, compiled
    from its source with that one change, replaces it in
    torchvision.models.swin_transformer (ShiftedWindowAttention.forward
    looks it up there) and is restored on exit."""
    MOD = torchvision.models.swin_transformer
    OLD, NEW = "float(-100.0)", 'float("-inf")'

    def __enter__(self):
        self.saved = self.MOD.shifted_window_attention
        src = inspect.getsource(self.saved)
        if src.count(self.OLD) != 1:
            raise RuntimeError("shifted_window_attention: mask value "
                               f"{self.OLD} not found once in its source")
        ns = dict(vars(self.MOD))
        exec(compile(src.replace(self.OLD, self.NEW),
                     inspect.getsourcefile(self.saved), "exec"), ns)
        self.MOD.shifted_window_attention = ns["shifted_window_attention"]
        return self

    def __exit__(self, *exc):
        self.MOD.shifted_window_attention = self.saved


class SoftmaxLog:
    """Records the smallest softmax weight and the count of weights exactly
    0 of every F.softmax call while active."""
    def __enter__(self):
        self.saved, self.calls = F.softmax, []

        def softmax(*args, **kwargs):
            out = self.saved(*args, **kwargs)
            self.calls.append((float(out.min()), int((out == 0).sum())))
            return out
        F.softmax = softmax
        return self

    def __exit__(self, *exc):
        F.softmax = self.saved


def shifted_blocks(model, x):
    """How many attention blocks shift their windows on input x: shift on,
    and the window smaller than the (padded) map on that axis."""
    sizes = {}
    hooks = [m.register_forward_hook(
        lambda m, i, o: sizes.__setitem__(m, i[0].shape[1:3]))
        for m in model.modules()
        if isinstance(m, torchvision.models.swin_transformer.
                      ShiftedWindowAttention)]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for h in hooks:
            h.remove()
    n = 0
    for m, hw in sizes.items():
        for k in (0, 1):
            ws = m.window_size[k]
            padded = -(-hw[k] // ws) * ws
            if m.shift_size[k] > 0 and ws < padded:
                n += 1
                break
    return n


def check_exact_mask(model, x):
    """torchvision's mask leaves every softmax weight non-zero; with
    ExactSwinMask the softmax of each shifted block (and only those) has
    weights exactly 0."""
    n = shifted_blocks(model, x)
    with GeometryOnly(), torch.no_grad():
        with SoftmaxLog() as plain:
            model(x)
        with ExactSwinMask(), SoftmaxLog() as exact:
            model(x)
    zeros = [z for _, z in exact.calls if z]
    if any(z for _, z in plain.calls) or len(zeros) != n or n == 0:
        raise RuntimeError(f"mask patch: {n} shifted blocks, exact zeros "
                           f"{zeros}, torchvision's "
                           f"{[z for _, z in plain.calls]}")
    print(f"  mask: {n} shifted blocks; exact mask zeros {zeros}; "
          f"torchvision's smallest weight "
          f"{min(w for w, _ in plain.calls):.3g} (no zeros)", flush=True)


# ------------------------------------------------------------ measuring

class _Stop(Exception):
    pass


def feature_map(model, module, x):
    """The output of `module` (the whole model when None), stopping the
    forward pass there."""
    if module is None:
        return model(x)
    if module == "conv_proj":  # vit: the patch embedding is all that is
        return model.conv_proj(x)  # spatial (and vit checks the size)
    got = {}

    def hook(_m, _i, out):
        got["y"] = out
        raise _Stop()
    h = model.get_submodule(module).register_forward_hook(hook)
    try:
        model(x)
    except _Stop:
        pass
    finally:
        h.remove()
    return got["y"]


def probe(y, pos):
    """A random mix of every channel of y at spatial position pos: the
    field of a position is that of its widest channel (in a Concat of
    branches, or DenseNet's features, channel 0 may come from a narrow
    one)."""
    gen = torch.Generator().manual_seed(1)
    w = torch.randn(y.shape[1], generator=gen, dtype=y.dtype)
    return (y[0, :, pos[0], pos[1]] * w).sum()


def extent(g, axis):
    """[first, last] index with a non-zero gradient along `axis` (2 or 3)."""
    other = 3 if axis == 2 else 2
    prof = g.abs().sum(dim=(0, 1, other))
    nz = torch.nonzero(prof).flatten()
    return int(nz[0]), int(nz[-1])


def measure_axis(model, module, axis):
    long_ = LONG0
    while True:
        shape = [1, 3 if module else model_in_channels(model), SHORT, SHORT]
        shape[axis] = long_
        x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
        with GeometryOnly(), torch.enable_grad():
            y = feature_map(model, module, x)
        pos = [y.shape[2] // 2, y.shape[3] // 2]
        i = y.shape[axis] // 2
        ext = []
        for k in (i, i + 1):
            pos[axis - 2] = k
            g, = torch.autograd.grad(probe(y, pos), x, retain_graph=(k == i))
            ext.append(extent(g, axis))
        (a0, b0), (a1, b1) = ext
        if a0 > 0 and b1 < long_ - 1:
            break
        if long_ >= LONG_MAX:
            raise RuntimeError(f"field still clipped at {long_} pixels")
        long_ *= 2
    stride = a1 - a0
    if b1 - b0 != stride:
        raise RuntimeError(f"neighbours' fields differ: {ext}")
    return {"field": b0 - a0 + 1, "stride": stride,
            "padding": i * stride - a0, "input": shape, "extent": (a0, b0),
            "element": (axis, i)}


def global_context(name, measured):
    """Whether, with the squeeze-excitation gates kept, the same element's
    gradient reaches pixels outside the finite field along the axis: the
    value also depends on global context."""
    model, module = build(name, keep_gates=True)
    shape = measured["input"]
    axis, i = measured["element"]
    a0, b0 = measured["extent"]
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    with GeometryOnly(), torch.enable_grad():
        y = feature_map(model, module, x)
    pos = [y.shape[2] // 2, y.shape[3] // 2]
    pos[axis - 2] = i
    g, = torch.autograd.grad(probe(y, pos), x)
    first, last = extent(g, axis)
    return first < a0 or last > b0


def pixel_extents(g):
    """Rows [a, b], columns [a, b] and fraction of the pixels of a
    (1, C, H, W) input gradient that are non-zero (in any channel)."""
    nz = (g[0] != 0).any(0)
    rows = torch.nonzero(nz.any(1)).flatten()
    cols = torch.nonzero(nz.any(0)).flatten()
    return ((int(rows[0]), int(rows[-1])), (int(cols[0]), int(cols[-1])),
            float(nz.double().mean()))


def channels_first(y):
    return y.permute(0, 3, 1, 2) if y.shape[-1] > y.shape[1] else y


def measure_whole(name):
    """Swin at the export's input size: the gradient of every position of
    the last spatial feature map, with the shifted-window mask exact."""
    t = time.time()
    model, module = build(name)
    sd = [m for m in model.modules()
          if isinstance(m, torchvision.ops.StochasticDepth)]
    if any(m.training for m in sd) or any(m.training
                                          for m in model.modules()):
        raise RuntimeError("not in eval mode")
    _, size = make_fixtures.MODELS[name]
    shape = [1, 3, size, size]
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    check_exact_mask(model, x)
    full = ((0, size - 1), (0, size - 1))
    with GeometryOnly(), ExactSwinMask(), torch.enable_grad():
        y = channels_first(feature_map(model, module, x))
        again = channels_first(feature_map(model, module, x))
        if not torch.equal(y, again):
            raise RuntimeError("forward pass not deterministic")
        hh, ww = y.shape[2:]
        whole, covered, worst = True, 1.0, None
        for i in range(hh):
            for j in range(ww):
                g, = torch.autograd.grad(probe(y, (i, j)), x,
                                         retain_graph=True)
                rows, cols, frac = pixel_extents(g)
                if (rows, cols) != full:
                    whole = False
                    print(f"  {module}[{i},{j}]: rows {list(rows)} cols "
                          f"{list(cols)}", flush=True)
                if frac < covered or worst is None:
                    covered, worst = min(covered, frac), (i, j, rows, cols)
    print(f"  {module} {tuple(y.shape)}: {hh * ww} positions, whole "
          f"{whole}, covered min {covered!r} (at {worst[:2]})", flush=True)
    # Field growth: the middle element of each stage's last block, with the
    # exact mask and with torchvision's -100.
    for exact in (True, False):
        with GeometryOnly(), torch.enable_grad():
            with ExactSwinMask() if exact else _Nothing():
                for stage in STAGES.get(name, []):
                    s = channels_first(feature_map(model, stage, x))
                    mid = (s.shape[2] // 2, s.shape[3] // 2)
                    g, = torch.autograd.grad(probe(s, mid), x)
                    rows, cols, frac = pixel_extents(g)
                    print(f"  {'exact mask' if exact else 'mask -100 '} "
                          f"{stage} {tuple(s.shape[2:])} [{mid[0]},{mid[1]}]:"
                          f" rows {list(rows)} cols {list(cols)} "
                          f"({frac:.4f} of the pixels)", flush=True)
    if whole:
        rec = {"whole": True, "global_context": True}
    else:
        rec = {"whole": False, "global_context": False,
               "rows": list(worst[2]), "cols": list(worst[3])}
    rec.update({"feature_map": module, "inputs": [shape],
                "covered": covered})
    if whole:
        rec["note"] = WHOLE_NOTE
    print(f"{name:22s} whole {whole} covered {covered!r} "
          f"({time.time() - t:.1f}s)", flush=True)
    return rec


def feature_maps(model, modules, x):
    """The outputs of several modules in one forward pass, stopped after
    the last of them (in forward order)."""
    got = {}
    last = modules[-1]

    def make(name):
        def hook(_m, _i, out):
            got[name] = out
            if name == last:
                raise _Stop()
        return hook
    hs = [model.get_submodule(m).register_forward_hook(make(m))
          for m in modules]
    try:
        model(x)
    except _Stop:
        pass
    finally:
        for h in hs:
            h.remove()
    return [got[m] for m in modules]


def swin_extents_path(size, name="swin_t"):
    """Default output of --swin-extents: the committed 224 fixture, else
    tests/fixtures/rf/<name>_<size>_extents.txt."""
    if size == make_fixtures.MODELS[name][1]:
        return SWIN_OUT
    return os.path.join(SWIN_RF_DIR, f"{name}_{size}_extents.txt")


def measure_swin_extents(path, name="swin_t", size=None):
    """Per-position extents of the non-zero input gradient of each swin_t
    stage / PatchMerging output along H and W (see the docstring), on a
    size x size input (default: the export's, 224); writes `path` and
    prints a summary."""
    t = time.time()
    model, _ = build(name)
    if any(m.training for m in model.modules()):
        raise RuntimeError("not in eval mode")
    default = make_fixtures.MODELS[name][1]
    opt = "" if size in (None, default) else f" --size {size}"
    size = size or default
    torch.manual_seed(0)
    x = torch.randn(1, 3, size, size, dtype=torch.float64,
                    requires_grad=True)
    check_exact_mask(model, x)
    lines = [SWIN_HEADER.format(opt=opt, size=size)]
    summary = []
    n_grads = 0
    with GeometryOnly(), ExactSwinMask(), torch.enable_grad():
        ys = feature_maps(model, SWIN_MODULES, x)
        for module, y in zip(SWIN_MODULES, ys):
            if y.dim() != 4:
                raise RuntimeError(f"{module}: shape {tuple(y.shape)}")
            y = y.permute(0, 3, 1, 2)   # channels last -> (1, C, H, W)
            hh, ww = y.shape[2:]
            for axis, n in ((0, hh), (1, ww)):
                ext = []
                for k in range(n):
                    pos = (k, ww // 2) if axis == 0 else (hh // 2, k)
                    g, = torch.autograd.grad(probe(y, pos), x,
                                             retain_graph=True)
                    n_grads += 1
                    rows, cols, _ = pixel_extents(g)
                    ext.append(rows if axis == 0 else cols)
                lines.append(f"{module} {axis} {n} " + " ".join(
                    f"{a} {b}" for a, b in ext))
                sizes = [b - a + 1 for a, b in ext]
                mid = ext[n // 2]
                summary.append((module, axis, n, max(sizes), n // 2, mid))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"  {'module':10s} axis   n  max extent  middle i: [a, b] (size)")
    for module, axis, n, mx, i, (a, b) in summary:
        print(f"  {module:10s} {'HW'[axis]:>4s} {n:3d} {mx:11d}  "
              f"{i:3d}: [{a}, {b}] ({b - a + 1})")
    print(f"{name} extents: {n_grads} gradients "
          f"({time.time() - t:.1f}s); wrote {path}", flush=True)
    return 0


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def model_in_channels(model):
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            return m.in_channels
    raise RuntimeError("no Conv2d")


def measure(name):
    if name in WHOLE:
        return measure_whole(name)
    model, module = build(name)
    t = time.time()
    axes = [measure_axis(model, module, a) for a in (2, 3)]
    rec = {k: [ax[k] for ax in axes] for k in ("field", "stride", "padding")}
    rec["global_context"] = global_context(name, axes[0])
    rec["feature_map"] = module or "output"
    rec["inputs"] = [ax["input"] for ax in axes]
    print(f"{name:22s} field {rec['field']} stride {rec['stride']} "
          f"padding {rec['padding']} global {rec['global_context']} "
          f"({time.time() - t:.1f}s)", flush=True)
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out", default=OUT,
                    help="the JSON to merge into and write (default: the "
                         "committed fixture)")
    ap.add_argument("--swin-extents", nargs="?", const="", default=None,
                    metavar="PATH",
                    help="only measure swin_t's per-position extents and "
                         "write them (default: the committed "
                         "tests/fixtures/rf_reference_swin.txt at 224, "
                         "tests/fixtures/rf/swin_t_<size>_extents.txt at "
                         "another --size)")
    ap.add_argument("--size", type=int, default=None,
                    help="with --swin-extents: input height and width "
                         "(default 224, the export's)")
    args = ap.parse_args(argv)
    if args.size is not None and args.swin_extents is None:
        ap.error("--size is only for --swin-extents")
    if args.swin_extents is not None:
        torch.set_num_threads(int(os.environ.get("RF_THREADS", "2")))
        size = args.size or make_fixtures.MODELS["swin_t"][1]
        return measure_swin_extents(args.swin_extents
                                    or swin_extents_path(size), size=size)
    names = list(HAND_BUILT) + list(LAST_SPATIAL) + list(WHOLE)
    if args.list:
        print("\n".join(names))
        return 0
    bad = [m for m in args.models if m not in names]
    if bad:
        ap.error(f"unknown: {', '.join(bad)}")
    torch.set_num_threads(int(os.environ.get("RF_THREADS", "2")))
    out = {"models": {}}
    if os.path.exists(args.out) and args.models:
        out = json.load(open(args.out))
    out.update({
        "generated_by": "tools/rf_reference.py",
        "torch": torch.__version__, "torchvision": torchvision.__version__,
        "method": METHOD,
        "not_checked": NOT_CHECKED,
    })
    order = {n: i for i, n in enumerate(names)}
    for name in args.models or names:
        out["models"][name] = measure(name)
        out["models"] = dict(sorted(out["models"].items(),
                                    key=lambda kv: order.get(kv[0], 1 << 30)))
        write(out, args.out)  # a long run keeps what it measured
    print(f"wrote {args.out}")
    return 0


def write(out, path):
    """JSON with one line per model (tests/unit/test_rf_reference.c reads
    it line by line)."""
    head = {k: v for k, v in out.items() if k != "models"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f" {json.dumps(k)}: {json.dumps(v)},")
    lines.append(' "models": {')
    items = list(out["models"].items())
    for i, (k, v) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{comma}")
    lines.append(" }")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
