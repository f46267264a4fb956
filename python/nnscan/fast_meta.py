"""Cheaper meta kernels for the recorder (FAST_META).

On PyTorch 2.x many ops' meta kernels are Python decompositions: on a
LLaMA-3-8B forward on meta an element-wise mul or add costs about 90 us
and a softmax 570 us, most of the forward's time, where all a recording
needs is the output's shape, dtype and layout. The kernels here answer
the plain calls (meta inputs laid out as each kernel's layout rules know,
float results; add, sub and mul integer ones too) with an empty output
exactly as PyTorch's kernel would make it, and decline (None:
PyTorch's own kernel runs, and raises what it raises) everything else.
python/tests/test_fast_meta.py compares each with PyTorch's.

A call with keyword arguments (gelu's `approximate`, a factory's
`device` and `dtype`) is answered from FAST_META_KW, whose kernels take
(args, kwargs); FAST_META's are asked only for calls without them.

PyTorch 1.13's meta kernels for most element-wise ops and the matrix
products are C++ and cheaper than any Python answer, so on 1.13 only the
ops whose meta kernels are Python there too are answered: BatchNorm,
LayerNorm, the hard activations, and KERNELS_113's (ReLU about 220 us a
call, `where` 140, ReLU6's hardtanh 45, convolution 40).
bench/recording_profile.py --ops prints each op's kernel time per
forward, to find the next one.
"""
import torch

# the kernels live by family in meta_elementwise, meta_nn and meta_shape
# (meta_layout: how PyTorch lays results out); the tables are here
from .meta_elementwise import (
    elementwise_meta, unary_meta, elementwise_inplace_meta, binary_meta,
    arith_meta, inplace_binary_meta, minmax_meta, softplus_meta, numbers_meta,
    where_meta, compare_meta, bitwise_meta, clone_meta,
    hardtanh_meta, hardtanh_dense_meta, hardtanh_inplace_meta,
    masked_fill_meta, gelu_kw_meta)
from .meta_nn import (
    batch_norm_meta, layer_norm_meta, layer_norm_strided_meta,
    group_norm_meta, softmax_meta,
    plain_softmax_meta, softmax_backward_meta, mean_meta, vector_norm_meta,
    cumsum_meta, mm_meta, bmm_meta, addmm_meta, convolution_meta,
    convolution_113_meta, weight_norm_meta)


_aten = torch.ops.aten

# aten op -> a cheaper meta kernel answering some calls (None: not this one)
FAST_META = {_aten.native_batch_norm.default: batch_norm_meta,
             _aten.hardswish.default: elementwise_meta,
             _aten.hardsigmoid.default: elementwise_meta,
             _aten.hardswish_.default: elementwise_inplace_meta,
             _aten.hardsigmoid_.default: elementwise_inplace_meta,
             # a Python decomposition on 1.13 too (about 280 us a call)
             _aten.native_layer_norm.default: layer_norm_meta}

# PyTorch 1.13's meta kernels that are Python there too, answered on 1.13
# for the inputs it lays out as 2.x does (KERNELS_2X's hardtanh and
# convolution would answer more: 1.13's reference lays an oddly strided
# input out otherwise, and its convolution reads the strides of dims of
# length 1); checked against PyTorch's kernels on every version
KERNELS_113 = {_aten.relu.default: elementwise_meta,
               _aten.hardtanh.default: hardtanh_dense_meta,
               _aten.where.self: where_meta,
               _aten.convolution.default: convolution_113_meta}


def _tables_2x():
    """(KERNELS_2X, KWARGS_2X), the kernels answered on PyTorch 2.x
    only (see the module doc). Made at import on 2.x; on 1.13 when a
    test first reads them (the tests check them against PyTorch's
    kernels on every version): their 85 op overloads and meta_shape
    are 2 to 3 ms of a 1.13 process's first summary that it never uses."""
    from .meta_shape import (
        cat_meta, stack_meta, roll_meta, index_meta, embedding_meta, tril_meta,
        slice_backward_meta, arange_kw_meta, like_kw_meta, factory_kw_meta,
        new_factory_kw_meta, scalar_tensor_kw_meta, clone_kw_meta)
    kernels = {
        _aten.native_layer_norm.default: layer_norm_strided_meta,
        _aten.mul.Tensor: arith_meta,
        _aten.add.Tensor: arith_meta,
        _aten.sub.Tensor: arith_meta,
        _aten.mul.Scalar: numbers_meta,
        _aten.add.Scalar: numbers_meta,
        _aten.pow.Tensor_Scalar: numbers_meta,
        _aten.neg.default: unary_meta,
        _aten.rsqrt.default: unary_meta,
        _aten.where.self: where_meta,
        _aten.tril.default: tril_meta,
        _aten.triu.default: tril_meta,
        _aten.mean.dim: mean_meta,
        _aten.sum.dim_IntList: mean_meta,
        _aten.div.Tensor: binary_meta,
        _aten.div.Scalar: numbers_meta,
        _aten._softmax_backward_data.default: softmax_backward_meta,
        _aten.slice_backward.default: slice_backward_meta,
        _aten.cat.default: cat_meta,
        _aten.addmm.default: addmm_meta,
        _aten.mm.default: mm_meta,
        _aten.bmm.default: bmm_meta,
        _aten.gelu.default: unary_meta,
        _aten.tanh.default: unary_meta,
        _aten.silu.default: unary_meta,
        _aten.clone.default: clone_meta,
        _aten.relu.default: unary_meta,
        _aten.sigmoid.default: unary_meta,
        _aten.relu_.default: elementwise_inplace_meta,
        _aten.silu_.default: elementwise_inplace_meta,
        _aten.sigmoid_.default: elementwise_inplace_meta,
        _aten.hardtanh.default: hardtanh_meta,
        _aten.hardtanh_.default: hardtanh_inplace_meta,
        _aten.convolution.default: convolution_meta,
        _aten.roll.default: roll_meta,
        _aten.masked_fill.Scalar: masked_fill_meta,
        _aten.cos.default: unary_meta,
        _aten.sin.default: unary_meta,
        _aten.exp.default: unary_meta,
        _aten.log.default: unary_meta,
        _aten.sqrt.default: unary_meta,
        _aten.reciprocal.default: unary_meta,
        _aten.erf.default: unary_meta,
        _aten.log1p.default: unary_meta,
        _aten.abs.default: unary_meta,
        _aten.lt.Tensor: compare_meta,
        _aten.lt.Scalar: compare_meta,
        _aten.le.Tensor: compare_meta,
        _aten.le.Scalar: compare_meta,
        _aten.gt.Tensor: compare_meta,
        _aten.gt.Scalar: compare_meta,
        _aten.ge.Tensor: compare_meta,
        _aten.ge.Scalar: compare_meta,
        _aten.eq.Tensor: compare_meta,
        _aten.eq.Scalar: compare_meta,
        _aten.ne.Tensor: compare_meta,
        _aten.ne.Scalar: compare_meta,
    }
    kernels.update({
        _aten.clamp.default: numbers_meta,
        _aten.clamp_min.default: numbers_meta,
        _aten.clamp_max.default: numbers_meta,
        _aten.softplus.default: softplus_meta,
        _aten.rsub.Scalar: numbers_meta,
        _aten.maximum.default: minmax_meta,
        _aten.minimum.default: minmax_meta,
        _aten._softmax.default: plain_softmax_meta,
        _aten.linalg_vector_norm.default: vector_norm_meta,
        _aten.index.Tensor: index_meta,
        _aten.embedding.default: embedding_meta,
        _aten.native_group_norm.default: group_norm_meta,
        _aten.cumsum.default: cumsum_meta,
        _aten.stack.default: stack_meta,
        _aten.bitwise_and.Tensor: bitwise_meta,
        _aten.bitwise_or.Tensor: bitwise_meta,
        _aten.bitwise_xor.Tensor: bitwise_meta,
        _aten._weight_norm_interface.default: weight_norm_meta,
        _aten.add_.Tensor: inplace_binary_meta,
        _aten.sub_.Tensor: inplace_binary_meta,
        _aten.mul_.Tensor: inplace_binary_meta,
        _aten.div_.Tensor: inplace_binary_meta,
    })

    # aten op -> a kernel of (args, kwargs) for calls with keyword arguments,
    # which the tables above are never asked (PyTorch 2.x only)
    with_kwargs = {
        _aten.gelu.default: gelu_kw_meta,
        _aten.arange.default: arange_kw_meta,
        _aten.arange.start: arange_kw_meta,
        _aten.arange.start_step: arange_kw_meta,
        _aten.zeros_like.default: like_kw_meta,
        _aten.ones_like.default: like_kw_meta,
        _aten.ones.default: factory_kw_meta,
        _aten.zeros.default: factory_kw_meta,
        _aten.empty.memory_format: factory_kw_meta,
        _aten.new_ones.default: new_factory_kw_meta,
        _aten.new_zeros.default: new_factory_kw_meta,
        _aten.new_empty.default: new_factory_kw_meta,
        _aten.scalar_tensor.default: scalar_tensor_kw_meta,
        _aten.clone.default: clone_kw_meta,
    }
    if hasattr(_aten, "_safe_softmax"):
        kernels[_aten._safe_softmax.default] = softmax_meta
    return kernels, with_kwargs


FAST_META_KW = {}
if int(torch.__version__.split(".")[0]) >= 2:
    KERNELS_2X, KWARGS_2X = _tables_2x()
    FAST_META.update(KERNELS_2X)
    FAST_META_KW.update(KWARGS_2X)
else:
    FAST_META.update(KERNELS_113)


def __getattr__(name):
    """KERNELS_2X and KWARGS_2X on PyTorch 1.13, made when first read, and
    meta_shape's kernels (the tables' names for them, as the others')."""
    if name in ("KERNELS_2X", "KWARGS_2X"):
        tables = dict(zip(("KERNELS_2X", "KWARGS_2X"), _tables_2x()))
        globals().update(tables)
        return tables[name]
    if name.endswith("_meta"):  # (not __path__, which `import` asks)
        from . import meta_shape
        if hasattr(meta_shape, name):
            return getattr(meta_shape, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def answer(func, args, kwargs):
    """The cheaper kernel's output for a call of `func`, or None where none
    answers it (PyTorch's own kernel then runs): FAST_META for a call
    without keyword arguments, FAST_META_KW for one with them. The
    recorder's dispatch looks the two up once per op and recording
    instead (recorder._Mode)."""
    if kwargs:
        fast = FAST_META_KW.get(func)
        return fast(args, kwargs) if fast is not None else None
    fast = FAST_META.get(func)
    return fast(args) if fast is not None else None
