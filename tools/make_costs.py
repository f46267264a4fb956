#!/usr/bin/python3
"""Count MACs / FLOPs / DMAs of the fixture models in PyTorch, two ways.

How to run (from anywhere; paths are relative to this file):

    /usr/bin/python3 tools/make_costs.py                  # every model
    /usr/bin/python3 tools/make_costs.py alexnet resnet50  # a subset
    /usr/bin/python3 tools/make_costs.py --list

Needs the same torch 1.13 / torchvision 0.14 as tools/make_fixtures.py, whose
build() it imports, so every model is constructed exactly as for the ONNX
fixtures (weights=None, torch.manual_seed(0), eval mode, fixed 1x3x224x224
input, 299x299 for inception_v3). It never exports, never touches the .onnx
files and never runs nnscan: the figures are an independent reference for
nnscan's cost counts. For each model it writes

    tests/fixtures/models/<model>.costs.json

Every rule below is the one METRICS.md (nnscan's metric definitions, the
"FLOPs, MACs, DMAs" table; [row X] names the table row) gives for the ONNX
op the PyTorch layer or aten op is exported as. Notation as in METRICS.md:
numel(T) elements of T, Y the first output, X the first input, k the product
of the kernel dims, g groups, K the reduced dimension of a matrix product.

Counter 1 -- module hooks (torchscan style)
-------------------------------------------
A forward hook on every *leaf* module (one without children) computes, from
the module's input/output tensors and attributes:

  Conv1d/2d/3d            [row Conv]  MACs  numel(Y)*(Cin/g)*k
                                      FLOPs numel(Y)*(2*(Cin/g)*k - 1) + (bias ? numel(Y) : 0)
                                      DMAs  numel(Y)*(Cin/g)*k + numel(W) + numel(B) + numel(Y)
                          (Cin/g = weight.shape[1], k = prod(weight.shape[2:]))
  ConvTranspose*          [row ConvTranspose] MACs numel(X)*(Cout/g)*k,
                          FLOPs numel(X)*(Cout/g)*k*2 + (bias ? numel(Y) : 0),
                          DMAs numel(X)*(Cout/g)*k + numel(W) + numel(B) + numel(Y)
  Linear                  [row Gemm] with M*N = numel(Y), K = in_features
                          (leading dims of X all fold into M):
                          MACs M*N*K; FLOPs M*N*(2K-1) + (bias ? M*N : 0);
                          DMAs numel(X) + numel(W) + numel(b) + numel(Y)
  BatchNorm1d/2d/3d (eval)[row BatchNormalization] MACs 2*numel(X),
                          FLOPs 2*C + 4*numel(X), DMAs numel(X) + 4*C + 2 + numel(Y)
  LayerNorm (and          [row LayerNormalization / GroupNorm / InstanceNorm]
  torchvision LayerNorm2d), MACs 2*numel(X), FLOPs 8*numel(X),
  GroupNorm, InstanceNorm DMAs 2*numel(X) + numel(scale) + numel(bias)
  MaxPool*                [row MaxPool] MACs = FLOPs = numel(Y)*(k-1); DMAs numel(Y)*k + numel(Y)
  AvgPool*                [row AveragePool] MACs = FLOPs = numel(Y)*(k - 1 + r),
                          r = spatial rank = X.ndim - 2; DMAs numel(Y)*k + numel(Y)
  AdaptiveAvgPool*        output 1x..x1: [row GlobalAveragePool], k = spatial size
                          of X, MACs = FLOPs = numel(Y)*(k - 1 + r).
                          Otherwise [row AveragePool] with the kernel torch.onnx
                          exports it as (s_i = in_i // out_i, k_i = in_i - (out_i-1)*s_i,
                          exact when in_i % out_i == 0, which holds for every model
                          here: alexnet 6->6 and vgg 7->7 give k = 1, so
                          MACs = numel(Y)*(1 - 1 + 2) = 2*numel(Y)).
  AdaptiveMaxPool*        likewise with [row MaxPool] / [row GlobalMaxPool].
  ReLU 1, LeakyReLU 4, ReLU6/Hardtanh (Clip) 2, Sigmoid 4, Tanh 6, Hardsigmoid 3,
  Hardswish 5, GELU 8, Mish 6, Softplus 3 FLOPs per element of Y
                          [rows Relu/LeakyRelu/Clip, Sigmoid/Tanh, HardSigmoid/
                          HardSwish/Gelu/Mish/Softplus]; MACs 0;
                          DMAs numel(X) + numel(Y) (Tanh 2*numel(X) + numel(Y)).
  SiLU                    METRICS.md has no SiLU row; torch.onnx exports it as
                          Sigmoid + Mul, so [row Sigmoid] 4 + [row Mul] 1 = 5 FLOPs
                          per element, MACs 0, DMAs (X+S) + (X+S+Y) = 5*numel(X).
  Softmax / LogSoftmax    [row Softmax] FLOPs 5*numel(X), MACs 0, DMAs numel(X)+numel(Y)
  Dropout (eval), Identity, Flatten, torchvision StochasticDepth (eval: identity)
                          [row Reshape/Flatten/Identity/Dropout] 0 / 0 / 0.
  torchvision Permute     [row Transpose] FLOPs 0, MACs 0, DMAs numel(X) + numel(Y).

Anything a leaf's forward does is counted by its rule; anything done outside
a leaf module's forward is invisible to this counter: functional calls in a
container's forward (F.relu, F.max_pool2d, torch.matmul, +, *), parameters
used directly (nn.MultiheadAttention never calls out_proj.forward; torchvision
0.14 Swin calls F.linear with qkv.weight / proj.weight), and leaf modules of
a type without a rule (listed under "hooks_unhandled_types"). These are
exactly torchscan's blind spots, and the per-model "notes" list them with
the MACs the dispatch counter found there.

Counter 2 -- aten ops (torch.utils._python_dispatch.TorchDispatchMode)
---------------------------------------------------------------------
One eval forward under torch.no_grad() with a TorchDispatchMode that sees
every aten op the model runs (after CompositeImplicit decomposition: linear
arrives as addmm or mm + add, matmul as mm / bmm, adaptive_avg_pool2d to 1x1
as mean.dim, batch_norm as native_batch_norm, ...). Each op is attributed to
the innermost module whose forward is running (a module stack kept by
forward pre-hooks and forward hooks on every module); module totals then
sum over their named descendants, like the hook counter's.

  convolution             [row Conv] as above (transposed=True: [row ConvTranspose]);
                          W is the op's weight argument, groups its last argument.
  addmm(C, A, B)          [row Gemm] A: MxK, B: KxN. MACs M*N*K; FLOPs
                          M*N*(2K-1) + M*N (C) + (alpha != 1 ? M*N) + (beta != 1 ? M*N)
  mm(A, B)                [row MatMul] MACs M*N*K, FLOPs M*N*(2K-1)
  bmm(A, B)               [row MatMul, batched] MACs b*M*N*K, FLOPs b*M*N*(2K-1)
  baddbmm / addbmm / addmv / mv / dot / linear (if ever dispatched undecomposed)
                          the same product rules, + numel(Y) FLOPs for the added term.
  _native_multi_head_attention (the fused fast path nn.MultiheadAttention takes
                          in eval under no_grad; vit_b_16 uses it; its internal
                          bmm's are not dispatched to the mode), counted as the
                          ops F.multi_head_attention_forward (and the ONNX export)
                          run, with B batch, L query length, S key length, E embed
                          dim, h heads, d = E/h:
                            in-projection [row Gemm]  MACs B*L*3E*E,
                              FLOPs B*L*3E*(2E-1) + B*L*3E (bias)
                            q scaling by 1/sqrt(d) [row Div] FLOPs B*L*E
                            q.k^T [row MatMul] MACs B*h*L*S*d, FLOPs B*h*L*S*(2d-1)
                            softmax [row Softmax] FLOPs 5*B*h*L*S
                            attn.v [row MatMul] MACs B*h*L*S*d, FLOPs B*h*L*d*(2S-1)
                            out-projection [row Gemm] MACs B*L*E*E,
                              FLOPs B*L*E*(2E-1) + B*L*E (bias)
  native_batch_norm       (training=False) [row BatchNormalization]: MACs 2*numel(X),
                          FLOPs 2*C + 4*numel(X)
  native_layer_norm, native_group_norm  [row LayerNormalization]: MACs 2*numel(X),
                          FLOPs 8*numel(X)
  max_pool2d_with_indices / max_pool2d / max_pool{1,3}d[_with_indices]
                          [row MaxPool] numel(Y)*(k-1), k = prod(kernel_size arg)
  avg_pool{1,2,3}d        [row AveragePool] numel(Y)*(k - 1 + r)
  _adaptive_avg_pool2d / adaptive_max_pool2d  as AdaptiveAvgPool/MaxPool above
  mean.dim                over exactly the spatial dims (2..ndim-1) with keepdim=True
                          (what F.adaptive_avg_pool2d(x, 1) becomes, and what
                          torch.onnx exports as GlobalAveragePool): [row
                          GlobalAveragePool] numel(Y)*(k - 1 + r), k = spatial size.
                          Any other mean: [row ReduceMean] MACs 0, FLOPs numel(X).
  Element-wise (FLOPs only, MACs 0; in-place "_" variants alike):
    relu 1, hardtanh (ReLU6 / Clip) 2, leaky_relu 4, sigmoid 4, tanh 6, erf 6,
    exp 1, log 1, hardsigmoid 3, hardswish 5, gelu 8, mish 6, softplus 3,
    silu 5 (= Sigmoid + Mul, see above)                     [activation rows]
    add, sub, rsub, mul, div, pow, maximum, minimum, where,
    masked_fill (a Where)                                    [row Add..Where] numel(Y)
    eq, ne, lt, le, gt, ge, logical_*                        not in METRICS.md: counted
                          like the Add..Where row, numel(Y) (swin's attention mask only)
    _softmax / _log_softmax                                  [row Softmax] 5*numel(X)
    sum.dim_IntList / sum                                    [row ReduceSum] numel(X)
  Layout, copy and creation ops (view, reshape, permute, transpose, t, expand,
  clone, cat, slice, select, index, roll, constant_pad_nd, new_zeros, fill_,
  ...)                    [rows Reshape.. / Transpose..] FLOPs 0, MACs 0.
  Any other aten op is counted as 0 and listed in "dispatch_unclassified_ops".

The dispatch counter cannot see work that happens inside one fused kernel
(handled by the formulas above: conv bias, Gemm C, the whole MHA fast path)
and ops that do not dispatch at all (Dropout/StochasticDepth in eval return
their input; Flatten of a contiguous tensor is a view).

BatchNorm folding. "macs_bn_total"/"flops_bn_total" are the BatchNorm MACs/
FLOPs (identical in both counters). "bn_foldable_*" restrict them to the
BatchNorms whose input is the output of a convolution that has no other
consumer: exactly the pairs torch.onnx's eval peephole pass folds into the
Conv in the "fold" exports (TrainingMode.EVAL, do_constant_folding=True). So
for a fold export  MACs(fold) = MACs(nofold) - macs_bn_foldable, and the
fold graph keeps bn_calls - bn_foldable_calls BatchNormalization nodes
(densenet121 keeps its pre-activation norms, which follow a Concat).

Output, per model: model, versions, input_shape, the totals, macs_by_aten_op,
flops_by_aten_op, aten_op_calls, macs_hooks_by_type, the BatchNorm figures,
torchscan_readme_gmacs (the MACs column of torchscan's README benchmark, for
comparison only; null where it has no row), "leaf_mismatches" (leaf modules
whose hook and dispatch MACs differ: must be empty), and "modules": one row
per named_modules() entry (root "" included; same order as <model>.ref.json)
with name, type, depth, calls, macs_dispatch, macs_hooks, flops_dispatch,
flops_hooks, dmas_hooks -- each aggregated over the module's descendants.
"notes" explains, per model, what each counter cannot see and the MACs
involved.
"""

import argparse
import collections
import json
import math
import os
import sys
import time
import warnings
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torchvision  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

import make_fixtures  # noqa: E402  (build(), MODELS, OUT_DIR)

OUT_DIR = make_fixtures.OUT_DIR
MODELS = make_fixtures.MODELS

# torchscan README "Benchmark" table, MACs (G) column (torchvision models,
# 1x3x224x224, 299 for inception_v3). Only for the report; never asserted.
TORCHSCAN_README_GMACS = {
    "alexnet": 0.71, "vgg11": 7.61, "vgg13": 11.31, "vgg16": 15.47,
    "vgg19": 19.63, "resnet18": 1.82, "resnet50": 4.11, "googlenet": 1.51,
    "inception_v3": 5.73, "densenet121": 2.87, "mobilenet_v2": 0.31,
}


def numel(t):
    return int(t.numel())


def prod(xs):
    out = 1
    for x in xs:
        out *= int(x)
    return out


def first_tensor(obj):
    leaves, _ = tree_flatten(obj)
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            return leaf
    return None


def as_tuple(v, n):
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v) if len(v) == n else tuple(int(v[0]) for _ in range(n))
    return (int(v),) * n


def adaptive_kernel(in_sizes, out_sizes):
    """Kernel torch.onnx uses for a non-global adaptive pool (in % out == 0).

    Returns (k, exact): k = prod(in_i - (out_i - 1) * (in_i // out_i)).
    """
    k, exact = 1, True
    for i, o in zip(in_sizes, out_sizes):
        i, o = int(i), int(o)
        s = i // o
        k *= i - (o - 1) * s
        exact = exact and (i % o == 0)
    return k, exact


def pool_cost(kind, x_shape, y_numel, k_override=None, kernel=None):
    """(MACs, FLOPs, DMAs) for the pooling rows of METRICS.md.

    kind: 'max', 'avg', 'gavg', 'gmax'; kernel: kernel dims (max/avg).
    """
    r = len(x_shape) - 2
    if kind in ("gavg", "gmax"):
        k = prod(x_shape[2:])
    elif k_override is not None:
        k = k_override
    else:
        k = prod(kernel)
    if kind in ("max", "gmax"):
        m = y_numel * (k - 1)                       # MaxPool / GlobalMaxPool
    else:
        m = y_numel * (k - 1 + r)                   # AveragePool / GlobalAveragePool
    return m, m, y_numel * k + y_numel


# ------------------------------------------------------ counter 1: hooks

ACT_FLOPS = [  # (module types, FLOPs per element) -- activation rows
    ((nn.ReLU,), 1),
    ((nn.ReLU6, nn.Hardtanh), 2),                   # Clip
    ((nn.LeakyReLU,), 4),
    ((nn.Sigmoid,), 4),
    ((nn.Tanh,), 6),
    ((nn.Hardsigmoid,), 3),
    ((nn.Hardswish,), 5),
    ((nn.GELU,), 8),
    ((nn.Mish,), 6),
    ((nn.Softplus,), 3),
]
ZERO_TYPES = (nn.Dropout, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout,
              nn.Identity, nn.Flatten, nn.Unflatten)


def _stochastic_depth_type():
    try:
        from torchvision.ops import StochasticDepth
        return StochasticDepth
    except ImportError:  # pragma: no cover
        return ()


def _permute_type():
    try:
        from torchvision.ops.misc import Permute
        return Permute
    except ImportError:  # pragma: no cover
        return ()


STOCHASTIC_DEPTH = _stochastic_depth_type()
PERMUTE = _permute_type()


def hook_cost(mod, inputs, output):
    """(MACs, FLOPs, DMAs) of one leaf module call, or None if no rule."""
    x = first_tensor(inputs)
    y = first_tensor(output)
    if y is None:
        return 0, 0, 0
    ny = numel(y)
    nx = numel(x) if x is not None else 0

    if isinstance(mod, nn.modules.conv._ConvTransposeNd):
        w = mod.weight
        ck = w.shape[1] * prod(w.shape[2:])          # (Cout/g) * k
        nb = numel(mod.bias) if mod.bias is not None else 0
        macs = nx * ck
        flops = nx * ck * 2 + (ny if mod.bias is not None else 0)
        return macs, flops, macs + numel(w) + nb + ny
    if isinstance(mod, nn.modules.conv._ConvNd):
        w = mod.weight
        ck = w.shape[1] * prod(w.shape[2:])          # (Cin/g) * k
        nb = numel(mod.bias) if mod.bias is not None else 0
        macs = ny * ck
        flops = ny * (2 * ck - 1) + (ny if mod.bias is not None else 0)
        return macs, flops, macs + numel(mod.weight) + nb + ny
    if isinstance(mod, nn.Linear):
        k = mod.in_features
        nb = numel(mod.bias) if mod.bias is not None else 0
        macs = ny * k
        flops = ny * (2 * k - 1) + (ny if mod.bias is not None else 0)
        return macs, flops, nx + numel(mod.weight) + nb + ny
    if isinstance(mod, nn.modules.batchnorm._BatchNorm):
        if mod.training:
            return None  # eval models only; training extras not modelled
        c = mod.num_features
        return 2 * nx, 2 * c + 4 * nx, nx + 4 * c + 2 + ny
    if isinstance(mod, (nn.LayerNorm, nn.GroupNorm, nn.modules.instancenorm._InstanceNorm)):
        ns = (numel(mod.weight) if getattr(mod, "weight", None) is not None else 0) + \
             (numel(mod.bias) if getattr(mod, "bias", None) is not None else 0)
        return 2 * nx, 8 * nx, 2 * nx + ns
    if isinstance(mod, nn.modules.pooling._MaxPoolNd):
        r = x.ndim - 2
        return pool_cost("max", x.shape, ny, kernel=as_tuple(mod.kernel_size, r))
    if isinstance(mod, nn.modules.pooling._AvgPoolNd):
        r = x.ndim - 2
        return pool_cost("avg", x.shape, ny, kernel=as_tuple(mod.kernel_size, r))
    if isinstance(mod, (nn.modules.pooling._AdaptiveAvgPoolNd,
                        nn.modules.pooling._AdaptiveMaxPoolNd)):
        is_max = isinstance(mod, nn.modules.pooling._AdaptiveMaxPoolNd)
        if all(int(s) == 1 for s in y.shape[2:]):
            return pool_cost("gmax" if is_max else "gavg", x.shape, ny)
        k, _exact = adaptive_kernel(x.shape[2:], y.shape[2:])
        return pool_cost("max" if is_max else "avg", x.shape, ny, k_override=k)
    for types, f in ACT_FLOPS:
        if isinstance(mod, types):
            dmas = 2 * nx + ny if isinstance(mod, nn.Tanh) else nx + ny
            return 0, f * ny, dmas
    if isinstance(mod, nn.SiLU):
        return 0, 5 * ny, 5 * nx                    # Sigmoid (4) + Mul (1)
    if isinstance(mod, (nn.Softmax, nn.LogSoftmax)):
        return 0, 5 * nx, nx + ny
    if isinstance(mod, ZERO_TYPES):
        return 0, 0, 0
    if STOCHASTIC_DEPTH and isinstance(mod, STOCHASTIC_DEPTH) and not mod.training:
        return 0, 0, 0
    if PERMUTE and isinstance(mod, PERMUTE):
        return 0, 0, nx + ny                        # Transpose
    return None


def count_hooks(model, x):
    """Counter 1. Returns per-module-name leaf costs, calls, unhandled types."""
    named = list(model.named_modules())
    name_of = {id(m): n for n, m in named}
    cost = collections.defaultdict(lambda: [0, 0, 0])
    calls = collections.Counter()
    unhandled = collections.Counter()
    by_type = collections.Counter()

    def hook(mod, inputs, output):
        c = hook_cost(mod, inputs, output)
        n = name_of[id(mod)]
        if c is None:
            unhandled[type(mod).__name__] += 1
            return
        for i in range(3):
            cost[n][i] += int(c[i])
        by_type[type(mod).__name__] += int(c[0])

    def count_call(mod, _inputs, _output):
        calls[name_of[id(mod)]] += 1

    handles = []
    for n, m in named:
        handles.append(m.register_forward_hook(count_call))
        if not list(m.children()):
            handles.append(m.register_forward_hook(hook))
    try:
        with torch.no_grad():
            model(x)
    finally:
        for h in handles:
            h.remove()
    return cost, calls, unhandled, by_type


# --------------------------------------------------- counter 2: dispatch

ZERO_OPS = {
    # views / layout / copies / creation: Reshape.. and Transpose.. rows
    "view", "_reshape_alias", "_unsafe_view", "reshape", "permute", "transpose",
    "t", "expand", "clone", "contiguous", "cat", "stack", "slice", "select",
    "index", "gather", "roll", "constant_pad_nd", "new_zeros", "new_ones",
    "new_empty", "zeros", "ones", "empty", "full", "fill", "zero", "lift_fresh",
    "as_strided", "unsqueeze", "squeeze", "flatten", "split", "split_with_sizes",
    "chunk", "unbind", "detach", "alias", "copy", "_to_copy", "arange",
    "scalar_tensor", "narrow", "repeat", "unfold", "_unsafe_index", "pad",
    "dropout", "native_dropout", "empty_like", "zeros_like", "ones_like",
}
ELEM_FLOPS = {  # FLOPs per element of Y
    "relu": 1, "hardtanh": 2, "clamp": 2, "leaky_relu": 4, "sigmoid": 4,
    "tanh": 6, "erf": 6, "exp": 1, "log": 1, "hardsigmoid": 3,
    "hardswish": 5, "gelu": 8, "mish": 6, "softplus": 3, "silu": 5,
    "add": 1, "sub": 1, "rsub": 1, "mul": 1, "div": 1, "pow": 1,
    "maximum": 1, "minimum": 1, "where": 1, "masked_fill": 1,
    # comparisons: not in METRICS.md, counted like the Add..Where row
    "eq": 1, "ne": 1, "lt": 1, "le": 1, "gt": 1, "ge": 1,
    "logical_and": 1, "logical_or": 1, "logical_not": 1,
}


def op_base(func):
    """'aten.relu_.default' -> 'relu' (in-place variants alike)."""
    name = func.overloadpacket.__name__
    return name[:-1] if name.endswith("_") and not name.startswith("_") else name


def _mm_dims(a, b):
    """(batch, M, N, K) of a (batched) product a @ b."""
    batch = prod(a.shape[:-2])
    return batch, int(a.shape[-2]), int(b.shape[-1]), int(a.shape[-1])


def dispatch_cost(func, args, kwargs, out):
    """(MACs, FLOPs, kind) of one aten op; kind in 'cost', 'zero', 'unknown'."""
    base = op_base(func)
    y = first_tensor(out)
    ny = numel(y) if y is not None else 0

    if base == "convolution":
        x, w, b = args[0], args[1], args[2]
        transposed = bool(args[6])
        ck = int(w.shape[1]) * prod(w.shape[2:])
        if transposed:                              # ConvTranspose row
            macs = numel(x) * ck
            return macs, 2 * macs + (ny if b is not None else 0), "cost"
        macs = ny * ck                              # Conv row
        return macs, ny * (2 * ck - 1) + (ny if b is not None else 0), "cost"
    if base == "addmm":                             # Gemm row
        c, a, bm = args[0], args[1], args[2]
        beta = kwargs.get("beta", args[3] if len(args) > 3 else 1)
        alpha = kwargs.get("alpha", args[4] if len(args) > 4 else 1)
        _, m, n, k = _mm_dims(a, bm)
        flops = m * n * (2 * k - 1) + m * n
        flops += (m * n if alpha != 1 else 0) + (m * n if beta != 1 else 0)
        return m * n * k, flops, "cost"
    if base in ("mm", "bmm", "matmul"):             # MatMul row
        bt, m, n, k = _mm_dims(args[0], args[1])
        return bt * m * n * k, bt * m * n * (2 * k - 1), "cost"
    if base in ("baddbmm", "addbmm"):
        bt, m, n, k = _mm_dims(args[1], args[2])
        return bt * m * n * k, bt * m * n * (2 * k - 1) + ny, "cost"
    if base in ("mv", "addmv", "dot"):
        a = args[1] if base == "addmv" else args[0]
        k = int(a.shape[-1])
        m = numel(a) // k
        return m * k, m * (2 * k - 1) + (m if base == "addmv" else 0), "cost"
    if base == "linear":
        x, w = args[0], args[1]
        b = args[2] if len(args) > 2 else None
        k = int(w.shape[-1])
        return ny * k, ny * (2 * k - 1) + (ny if b is not None else 0), "cost"
    if base == "_native_multi_head_attention":
        q, kk = args[0], args[1]
        e, h = int(args[3]), int(args[4])
        d = e // h
        bsz, l, s = int(q.shape[0]), int(q.shape[1]), int(kk.shape[1])
        qkv_b, proj_b = args[6], args[8]
        macs = bsz * l * 3 * e * e + 2 * bsz * h * l * s * d + bsz * l * e * e
        flops = bsz * l * 3 * e * (2 * e - 1) + (bsz * l * 3 * e if qkv_b is not None else 0)
        flops += bsz * l * e                        # q / sqrt(d)
        flops += bsz * h * l * s * (2 * d - 1)      # q k^T
        flops += 5 * bsz * h * l * s                # softmax
        flops += bsz * h * l * d * (2 * s - 1)      # attn v
        flops += bsz * l * e * (2 * e - 1) + (bsz * l * e if proj_b is not None else 0)
        return macs, flops, "cost"
    if base in ("native_batch_norm", "_native_batch_norm_legit_no_training",
                "_native_batch_norm_legit"):
        x = args[0]
        c = int(x.shape[1])
        return 2 * numel(x), 2 * c + 4 * numel(x), "cost"
    if base in ("native_layer_norm", "native_group_norm"):
        x = args[0]
        return 2 * numel(x), 8 * numel(x), "cost"
    if base in ("max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
                "max_pool2d_with_indices", "max_pool3d_with_indices"):
        x = args[0]
        m, f, _ = pool_cost("max", x.shape, ny, kernel=as_tuple(args[1], x.ndim - 2))
        return m, f, "cost"
    if base in ("avg_pool1d", "avg_pool2d", "avg_pool3d"):
        x = args[0]
        m, f, _ = pool_cost("avg", x.shape, ny, kernel=as_tuple(args[1], x.ndim - 2))
        return m, f, "cost"
    if base in ("_adaptive_avg_pool2d", "_adaptive_avg_pool3d", "adaptive_avg_pool1d",
                "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool1d"):
        x = args[0]
        is_max = "max" in base
        if all(int(s) == 1 for s in y.shape[2:]):
            m, f, _ = pool_cost("gmax" if is_max else "gavg", x.shape, ny)
        else:
            k, _exact = adaptive_kernel(x.shape[2:], y.shape[2:])
            m, f, _ = pool_cost("max" if is_max else "avg", x.shape, ny, k_override=k)
        return m, f, "cost"
    if base == "mean":
        x = args[0]
        dims = args[1] if len(args) > 1 else kwargs.get("dim")
        keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if dims is not None and x.ndim >= 3 and keepdim:
            norm = sorted(int(dd) % x.ndim for dd in dims)
            if norm == list(range(2, x.ndim)):      # GlobalAveragePool
                m, f, _ = pool_cost("gavg", x.shape, ny)
                return m, f, "cost"
        return 0, numel(x), "cost"                  # ReduceMean
    if base == "sum":
        return 0, numel(args[0]), "cost"            # ReduceSum
    if base in ("_softmax", "_log_softmax", "softmax", "log_softmax"):
        return 0, 5 * numel(args[0]), "cost"
    if base in ELEM_FLOPS:
        return 0, ELEM_FLOPS[base] * ny, "cost"
    if base in ZERO_OPS:
        return 0, 0, "zero"
    return 0, 0, "unknown"


class CostMode(TorchDispatchMode):
    """Counts every aten op; attributes it to the innermost running module."""

    def __init__(self):
        super().__init__()
        self.stack = [""]
        self.macs = collections.Counter()           # module name -> MACs
        self.flops = collections.Counter()
        self.macs_by_op = collections.Counter()
        self.flops_by_op = collections.Counter()
        self.calls_by_op = collections.Counter()
        self.unknown = collections.Counter()
        self.by_op_module = collections.Counter()   # (op, module name) -> MACs
        # BatchNorm folding: conv outputs and how many ops consume them.
        self.conv_out = {}                          # id -> (weakref, [uses])
        self.bn = []                                # (macs, flops, uses or None)

    def _conv_use(self, t):
        ent = self.conv_out.get(id(t))
        if ent is not None and ent[0]() is t:
            return ent[1]
        return None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        leaves, _ = tree_flatten((args, kwargs))
        seen = set()
        for leaf in leaves:
            if isinstance(leaf, torch.Tensor) and id(leaf) not in seen:
                seen.add(id(leaf))
                uses = self._conv_use(leaf)
                if uses is not None:
                    uses[0] += 1
        macs, flops, kind = dispatch_cost(func, args, kwargs, out)
        key = str(func)
        mod = self.stack[-1]
        self.calls_by_op[key] += 1
        if kind == "unknown":
            self.unknown[key] += 1
        self.macs[mod] += macs
        self.flops[mod] += flops
        if macs:
            self.macs_by_op[key] += macs
            self.by_op_module[(key, mod)] += macs
        if flops:
            self.flops_by_op[key] += flops
        base = op_base(func)
        if base == "convolution":
            y = first_tensor(out)
            self.conv_out[id(y)] = (weakref.ref(y), [0])
        elif base in ("native_batch_norm", "_native_batch_norm_legit_no_training"):
            self.bn.append((macs, flops, self._conv_use(args[0])))
        return out


def count_dispatch(model, x):
    named = list(model.named_modules())
    name_of = {id(m): n for n, m in named}
    mode = CostMode()

    def pre(mod, _inputs):
        mode.stack.append(name_of.get(id(mod), mode.stack[-1]))

    def post(mod, _inputs, _output):
        mode.stack.pop()

    handles = []
    for _, m in named:
        handles.append(m.register_forward_pre_hook(pre))
        handles.append(m.register_forward_hook(post))
    try:
        with torch.no_grad(), mode:
            model(x)
    finally:
        for h in handles:
            h.remove()
    assert mode.stack == [""], mode.stack
    return mode


# ------------------------------------------------------------ per model

def ancestors(name):
    """'a.b.c' -> ['a.b.c', 'a.b', 'a', '']; '' -> ['']."""
    if name == "":
        return [""]
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)] + [""]


def aggregate(per_name):
    total = collections.Counter()
    for n, v in per_name.items():
        for a in ancestors(n):
            total[a] += v
    return total


def costs(name):
    t0 = time.time()
    model, x = make_fixtures.build(name)
    t_build = time.time() - t0
    named = list(model.named_modules())
    types = {n: type(m).__name__ for n, m in named}
    leaves = [n for n, m in named if not list(m.children())]  # ordered
    leaf_set = set(leaves)

    t1 = time.time()
    hk_cost, calls, unhandled, hk_by_type = count_hooks(model, x)
    t2 = time.time()
    mode = count_dispatch(model, x)
    t3 = time.time()

    hk_macs = aggregate({n: c[0] for n, c in hk_cost.items()})
    hk_flops = aggregate({n: c[1] for n, c in hk_cost.items()})
    hk_dmas = aggregate({n: c[2] for n, c in hk_cost.items()})
    dp_macs = aggregate(mode.macs)
    dp_flops = aggregate(mode.flops)

    modules = []
    for n, m in named:
        modules.append({
            "name": n, "type": types[n],
            "depth": 0 if n == "" else len(n.split(".")),
            "calls": calls[n],
            "macs_dispatch": dp_macs[n], "macs_hooks": hk_macs[n],
            "flops_dispatch": dp_flops[n], "flops_hooks": hk_flops[n],
            "dmas_hooks": hk_dmas[n],
        })

    # Leaf modules the hooks counted must agree exactly with the dispatch.
    mismatches = [
        {"name": n, "type": types[n], "macs_dispatch": dp_macs[n], "macs_hooks": hk_macs[n]}
        for n in leaves
        if calls[n] and types[n] not in unhandled and dp_macs[n] != hk_macs[n]
    ]

    bn_macs = sum(b[0] for b in mode.bn)
    bn_flops = sum(b[1] for b in mode.bn)
    fold = [b for b in mode.bn if b[2] is not None and b[2][0] == 1]
    hk_bn = sum(hk_cost[n][0] for n, m in named
                if isinstance(m, nn.modules.batchnorm._BatchNorm))
    assert hk_bn == bn_macs, (name, hk_bn, bn_macs)

    # What each counter cannot see: dispatch MACs done outside any leaf the
    # hooks handle (functional ops in a container's forward, or leaves of a
    # type without a hook rule).
    blind = collections.Counter()
    for (op, mod), v in mode.by_op_module.items():
        if mod not in leaf_set or types.get(mod) in unhandled:
            blind[(op, types.get(mod, "?"))] += v
    notes = []
    for (op, mtype), v in sorted(blind.items(), key=lambda kv: (-kv[1], kv[0])):
        mods = sorted({mod for (o, mod) in mode.by_op_module
                       if o == op and types.get(mod) == mtype
                       and (mod not in leaf_set or mtype in unhandled)})
        ex = mods[0] if mods[0] else "(root)"
        notes.append(
            "hooks cannot see %d MACs of %s run functionally inside %d %s module(s) "
            "(e.g. %s)" % (v, op, len(mods), mtype, ex))
    mods_by_name = dict(named)
    uncalled = [n for n in leaves if calls[n] == 0]
    with_params = [n for n in uncalled if any(True for _ in mods_by_name[n].parameters())]
    without = [n for n in uncalled if n not in with_params]
    if with_params:
        notes.append(
            "leaf modules with parameters whose forward never runs (the parent uses "
            "their weights directly, so hooks never fire; the dispatch counter "
            "charges that work to the parent): %d, e.g. %s (%s)"
            % (len(with_params), with_params[0], types[with_params[0]]))
    if without:
        notes.append(
            "parameter-free leaf modules never called in this forward (cost 0 in "
            "both counters): %d, e.g. %s (%s)"
            % (len(without), without[0], types[without[0]]))
    if unhandled:
        notes.append("hooks have no rule for leaf type(s): %s (counted 0)"
                     % ", ".join("%s x%d" % kv for kv in sorted(unhandled.items())))
    if mode.unknown:
        notes.append("dispatch counted 0 for unclassified aten ops: %s"
                     % ", ".join("%s x%d" % kv for kv in sorted(mode.unknown.items())))
    if "aten._native_multi_head_attention.default" in mode.calls_by_op:
        notes.append(
            "nn.MultiheadAttention takes the fused fast path "
            "(aten._native_multi_head_attention) in eval under no_grad; its internal "
            "bmm's are not dispatched, so the dispatch counter applies the "
            "in-proj + q.k^T + attn.v + out-proj formula of the docstring")
    ops = set(mode.calls_by_op)
    if "aten.gelu.default" in ops:
        notes.append(
            "GELU counted 8 FLOPs/element (METRICS.md Gelu row); torch.onnx at "
            "opset < 20 exports it as Div+Erf+Add+Mul+Mul = 1+6+1+1+1 = 10 "
            "FLOPs/element, so an ONNX count of those files is 2*numel higher per GELU")
    if any(op_base_str(o) == "silu" for o in ops):
        notes.append("SiLU counted 5 FLOPs/element = the Sigmoid (4) + Mul (1) it is "
                     "exported as (no SiLU row in METRICS.md)")
    if "aten.mean.dim" in ops:
        notes.append("adaptive_avg_pool2d to 1x1 dispatches as mean.dim(spatial, "
                     "keepdim=True); counted as GlobalAveragePool")
    if "aten._adaptive_avg_pool2d.default" in ops:
        notes.append("AdaptiveAvgPool2d with output == input size exports as "
                     "AveragePool k=1: MACs = FLOPs = 2*numel(Y) (k-1+spatial rank)")
    if mode.bn and len(fold) != len(mode.bn):
        notes.append("%d of %d BatchNorms do not follow a single-use Conv and stay "
                     "unfolded in the fold exports" % (len(mode.bn) - len(fold), len(mode.bn)))
    notes.append("Dropout / StochasticDepth (eval) dispatch no aten op and cost 0 in "
                 "both counters; element-wise adds/muls done functionally are only in "
                 "flops_dispatch (0 MACs in both)")

    dp_total = sum(mode.macs.values())
    hk_total = sum(c[0] for c in hk_cost.values())
    out = {
        "model": name,
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
        "input_shape": list(x.shape),
        "macs_dispatch_total": dp_total,
        "macs_hooks_total": hk_total,
        "flops_dispatch_total": sum(mode.flops.values()),
        "flops_hooks_total": sum(c[1] for c in hk_cost.values()),
        "dmas_hooks_total": sum(c[2] for c in hk_cost.values()),
        "macs_hooks_minus_dispatch_pct": round(100.0 * (hk_total - dp_total) / dp_total, 4),
        "torchscan_readme_gmacs": TORCHSCAN_README_GMACS.get(name),
        "macs_bn_total": bn_macs,
        "flops_bn_total": bn_flops,
        "bn_calls": len(mode.bn),
        "bn_foldable_calls": len(fold),
        "macs_bn_foldable": sum(b[0] for b in fold),
        "flops_bn_foldable": sum(b[1] for b in fold),
        "macs_by_aten_op": dict(sorted(mode.macs_by_op.items())),
        "flops_by_aten_op": dict(sorted(mode.flops_by_op.items())),
        "aten_op_calls": dict(sorted(mode.calls_by_op.items())),
        "macs_hooks_by_type": dict(sorted((k, v) for k, v in hk_by_type.items() if v)),
        "hooks_unhandled_types": dict(sorted(unhandled.items())),
        "dispatch_unclassified_ops": dict(sorted(mode.unknown.items())),
        "leaf_mismatches": mismatches,
        "notes": notes,
        "modules": modules,
    }
    assert dp_macs[""] == dp_total and hk_macs[""] == hk_total
    timing = (t_build, t2 - t1, t3 - t2)
    return out, timing


def op_base_str(key):
    """'aten.silu_.default' -> 'silu'."""
    name = key.split(".")[1]
    return name[:-1] if name.endswith("_") and not name.startswith("_") else name


def write_costs(path, res):
    """JSON with one line per module, like <model>.ref.json."""
    head = {k: v for k, v in res.items() if k != "modules"}
    lines = ["{"]
    for k, v in head.items():
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    lines.append('  "modules": [')
    mods = [json.dumps(m, separators=(", ", ": ")) for m in res["modules"]]
    lines.append(",\n".join("    " + m for m in mods))
    lines.append("  ]")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    json.loads(text)  # sanity
    with open(path, "w") as f:
        f.write(text)


def check_alexnet(res):
    """Hand check from the brief: conv1 = 64*55*55 * 3*11*11 MACs."""
    want = 64 * 55 * 55 * 3 * 11 * 11
    assert want == 70276800
    row = {m["name"]: m for m in res["modules"]}["features.0"]
    assert row["macs_hooks"] == want and row["macs_dispatch"] == want, row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", help="subset of models (default: all)")
    ap.add_argument("--list", action="store_true", help="list model names")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(MODELS))
        return 0
    bad = [m for m in args.models if m not in MODELS]
    if bad:
        ap.error("unknown model(s): %s (see --list)" % ", ".join(bad))
    names = args.models or list(MODELS)

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    warnings.simplefilter("ignore")
    t_all = time.time()
    print("%-16s %15s %15s %7s %15s %15s %12s %7s  %s"
          % ("model", "macs_dispatch", "macs_hooks", "diff%", "flops_hooks",
             "flops_dispatch", "bn_macs", "ts_G", "build/hooks/dispatch s"))
    bad_models = []
    for name in names:
        res, (tb, th, td) = costs(name)
        if name == "alexnet":
            check_alexnet(res)
        write_costs(os.path.join(OUT_DIR, name + ".costs.json"), res)
        ts = res["torchscan_readme_gmacs"]
        print("%-16s %15d %15d %7.2f %15d %15d %12d %7s  %.1f/%.1f/%.1f"
              % (name, res["macs_dispatch_total"], res["macs_hooks_total"],
                 res["macs_hooks_minus_dispatch_pct"], res["flops_hooks_total"],
                 res["flops_dispatch_total"], res["macs_bn_total"],
                 "-" if ts is None else "%.2f" % ts, tb, th, td), flush=True)
        if res["leaf_mismatches"] or res["dispatch_unclassified_ops"] \
                or res["hooks_unhandled_types"]:
            bad_models.append(name)
            print("  !! mismatches=%s unclassified=%s unhandled=%s"
                  % (res["leaf_mismatches"][:3], res["dispatch_unclassified_ops"],
                     res["hooks_unhandled_types"]), flush=True)
    print("done in %.0fs" % (time.time() - t_all))
    return 1 if bad_models else 0


if __name__ == "__main__":
    sys.exit(main())
