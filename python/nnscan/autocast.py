"""torch.autocast on the meta path: the compute dtypes autocast would run.

Autocast works in PyTorch's dispatcher on CPU and CUDA tensors only: a
forward recorded on meta tensors under `torch.autocast("cpu",
torch.bfloat16)` would run, and be reported, in float32. When autocast is
enabled for the device the model stands for (its own device, or for a
model built on meta the one autocast is enabled for, CUDA first), the
recorder's dispatch mode casts an op's floating-point inputs as autocast
would before running it, and records the casts (Cast nodes), so the
report's dtypes, bytes and costs are those of the autocast run.

The policy is PyTorch's autocast op lists (ATen's autocast_mode.cpp),
spelled as the recorder sees ops, after decomposition: `linear` arrives as
`t` + `addmm`, `conv2d` as `convolution`, `layer_norm` as
`native_layer_norm`, so each list names the aten ops those decompose to.
  - LOWER: matrix products, convolutions and attention kernels run in the
    autocast dtype (floating inputs cast down);
  - FP32: ops autocast runs in float32 (lower-precision inputs cast up);
    PyTorch's CUDA and CPU lists differ.
Everything else runs in the dtype its inputs have (type promotion).
The casts are made where autocast makes them: at the call the model makes
(`F.linear`, `x @ w`, `conv2d`: the torch-function level, so the weight is
cast before it is transposed, the input before it is reshaped), and, for a
product a Python-level composite makes inside (whose inner calls no
torch-function mode sees), at the dispatch level.

Autocast's state (enabled, dtype) is thread-local and reads as disabled
inside a dispatch mode, so a torch-function mode (which runs before the
dispatcher, at every torch call) samples it for the ops that call makes:
a region of the forward under `torch.autocast(..., enabled=False)` is not
cast.
"""
import torch

LOWER = frozenset((
    # as the model calls them (autocast casts there, before decomposing)
    "linear", "matmul", "__matmul__", "__rmatmul__", "conv1d", "conv2d",
    "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "scaled_dot_product_attention", "chain_matmul", "multi_dot",
    # as the dispatcher sees them (what a Python-level composite calls)
    "mm", "addmm", "bmm", "baddbmm", "addbmm", "convolution", "_convolution",
    "conv_tbc", "mv", "addmv", "addr", "linalg_vecdot", "prelu",
    "_prelu_kernel", "_native_multi_head_attention", "mkldnn_rnn_layer",
    "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_flash_attention_for_cpu",
    "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_cudnn_attention"))

FP32 = {
    "cuda": frozenset((
        "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10",
        "log2", "log1p", "reciprocal", "rsqrt", "sinh", "tan", "pow",
        "softplus", "native_layer_norm", "native_group_norm", "_cdist_forward",
        "dist", "renorm", "logsumexp", "_softmax", "_log_softmax", "cumsum",
        "cumprod", "sum", "prod", "linalg_vector_norm", "mse_loss", "l1_loss",
        "smooth_l1_loss", "huber_loss", "kl_div", "nll_loss_forward",
        "nll_loss2d_forward", "binary_cross_entropy_with_logits",
        "soft_margin_loss", "multilabel_margin_loss_forward",
        "multi_margin_loss", "upsample_nearest1d", "upsample_nearest2d",
        "upsample_nearest3d", "upsample_linear1d", "upsample_bilinear2d",
        "upsample_trilinear3d", "upsample_bicubic2d", "grid_sampler_2d",
        "grid_sampler_3d", "layer_norm", "group_norm", "softmax",
        "log_softmax", "norm", "cosine_similarity", "cross_entropy",
        "nll_loss")),
    "cpu": frozenset((
        "avg_pool3d", "max_pool3d_with_indices", "_adaptive_avg_pool3d",
        "adaptive_max_pool3d", "grid_sampler_2d", "grid_sampler_3d", "polar",
        "prod", "quantile", "nanquantile", "_cdist_forward", "trace",
        "max_unpool2d", "max_unpool3d", "reflection_pad1d",
        "reflection_pad2d", "replication_pad1d", "replication_pad2d",
        "replication_pad3d", "mse_loss", "nll_loss_forward",
        "nll_loss2d_forward", "smooth_l1_loss", "huber_loss", "l1_loss",
        "kl_div", "binary_cross_entropy_with_logits", "soft_margin_loss",
        "multilabel_margin_loss_forward", "multi_margin_loss",
        "_fft_r2c", "_fft_c2r", "_fft_c2c", "max_pool3d",
        "adaptive_avg_pool3d", "cross_entropy", "nll_loss", "cdist")),
}

_LOW = (torch.float16, torch.bfloat16)


def state(device_type):
    """(enabled, dtype) of autocast for "cpu" or "cuda", on 1.13 and 2.x."""
    try:
        return (torch.is_autocast_enabled(device_type),
                torch.get_autocast_dtype(device_type))
    except TypeError:  # 1.13: one function per device type
        if device_type == "cpu":
            return torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype()
        return torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype()


def device_for(model, walk=None):
    """The device type whose autocast applies to `model` (None: none is
    enabled): its first parameter's device (or buffer's), as
    model.parameters() yields them, or for a model on meta the one
    autocast is enabled for. walk: list(model.named_modules()), where
    made."""
    if walk is None:
        walk = list(model.named_modules())
    p = _first(walk, "_parameters")
    if p is None:
        p = _first(walk, "_buffers")
    kinds = [p.device.type] if p is not None and not p.is_meta \
        else ["cuda", "cpu"]
    for k in kinds:
        if k in ("cpu", "cuda") and state(k)[0]:
            return k
    return None


def _first(walk, table):
    """The first tensor of the walk's modules' `table` (_parameters or
    _buffers), or None (model.parameters() would make a generator a
    module: 8 us a state)."""
    for _, m in walk:
        for t in vars(m)[table].values():
            if t is not None:
                return t
    return None


class Autocast:
    """Casts an op's inputs as autocast for `device_type` would; `emit(func,
    args, kwargs, out)` records each cast (the recorder's record)."""

    def __init__(self, device_type, emit):
        self.device_type = device_type
        self.fp32 = FP32.get(device_type, frozenset())
        self.emit = emit
        self.on, self.dtype = state(device_type)
        self.cache = {}  # id(weight) -> (weight, its cast): cast once, as
        #                  autocast caches leaf tensors that require grad

    def cast_inputs(self, name, args, kwargs, dispatched=True):
        if not self.on:
            return args, kwargs
        if name in LOWER:
            dtype = self.dtype
            want = lambda t: t.dtype != dtype and t.dtype != torch.float64  # noqa: E731
        elif name in self.fp32:
            dtype = torch.float32
            want = lambda t: t.dtype in _LOW  # noqa: E731
        else:
            return args, kwargs
        conv = lambda x: self._cast(x, dtype, dispatched) \
            if isinstance(x, torch.Tensor) \
            and x.is_floating_point() and x.is_meta and want(x) else x  # noqa: E731
        args = tuple([conv(y) for y in a] if isinstance(a, (list, tuple))
                     else conv(a) for a in args)
        kwargs = {k: conv(v) for k, v in kwargs.items()}
        return args, kwargs

    def probe(self):
        """The torch-function mode that keeps `on`/`dtype` current."""
        return _StateProbe(self)

    def _cast(self, t, dtype, dispatched=True):
        cached = t.is_leaf and t.requires_grad
        if cached:
            hit = self.cache.get((id(t), dtype))
            if hit is not None and hit[0] is t:
                return hit[1]
        if dispatched:  # below the dispatch mode: record the cast here
            func = torch.ops.aten._to_copy.default
            out = func(t, dtype=dtype)
            self.emit(func, (t,), {"dtype": dtype}, out)
        else:  # a torch call: the dispatch mode records it
            out = t.to(dtype)
        if cached:
            self.cache[(id(t), dtype)] = (t, out)
        return out


class _StateProbe(torch.overrides.TorchFunctionMode):
    def __init__(self, ac):
        super().__init__()
        self.ac = ac

    def __torch_function__(self, func, types, args=(), kwargs=None):
        ac = self.ac
        ac.on, ac.dtype = state(ac.device_type)
        if ac.on:
            args, kwargs = ac.cast_inputs(getattr(func, "__name__", ""), args,
                                          kwargs or {}, dispatched=False)
        return func(*args, **(kwargs or {}))
