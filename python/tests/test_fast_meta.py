"""The recorder's cheaper meta kernels (fast_meta.FAST_META) give exactly
what PyTorch's own meta kernel gives: the same outputs' shapes, dtypes and
strides, compared with the op run on meta tensors outside any recording;
and they decline (None) whatever they do not cover."""
import random

import pytest
import torch

from nnscan import fast_meta, meta_layout, recorder

BN = torch.ops.aten.native_batch_norm.default


def _meta(*shape, dtype=torch.float32, channels_last=False):
    t = torch.empty(shape, dtype=dtype, device="meta")
    return t.to(memory_format=torch.channels_last) if channels_last else t


def _long_strides(t):
    """t's strides of its dims longer than 1 (those of dims of length 1
    carry no layout, and kernels may differ in them)."""
    return [s for s, d in zip(t.stride(), t.shape) if d > 1]


CASES = {
    "2d": lambda: (_meta(2, 8, 5, 5), 8, torch.float32),
    "channels_last": lambda: (_meta(2, 8, 5, 5, channels_last=True), 8,
                              torch.float32),
    "batch1_1x1": lambda: (_meta(1, 8, 1, 1), 8, torch.float32),
    "1d_features": lambda: (_meta(3, 8), 8, torch.float32),
    "3d": lambda: (_meta(2, 8, 3, 4, 5), 8, torch.float32),
    "half_input_float_stats": lambda: (_meta(2, 8, 5, 5, dtype=torch.float16),
                                       8, torch.float32),
    "bfloat16": lambda: (_meta(2, 8, 5, 5, dtype=torch.bfloat16), 8,
                         torch.bfloat16),
    "float64": lambda: (_meta(2, 8, 5, 5, dtype=torch.float64), 8,
                        torch.float64),
}


@pytest.mark.parametrize("mode", ["eval", "training", "training_no_stats"])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_norm_matches_pytorch_meta(case, affine, mode):
    x, c, sdt = CASES[case]()
    if mode != "eval" and x.numel() == c:
        pytest.skip("one value per channel: PyTorch's training kernel "
                    "raises (the declines test)")
    w = _meta(c, dtype=sdt) if affine else None
    b = _meta(c, dtype=sdt) if affine else None
    stats = (None, None) if mode == "training_no_stats" else \
        (_meta(c, dtype=sdt), _meta(c, dtype=sdt))
    args = (x, w, b) + stats + (mode != "eval", 0.1, 1e-5)
    ours = fast_meta.batch_norm_meta(args)
    theirs = BN(*args)
    assert ours is not None
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.is_meta
        assert (o.shape, o.dtype) == (t.shape, t.dtype)
        # strides of size-1 dims carry no layout
        assert _long_strides(o) == _long_strides(t)


def test_batch_norm_declines_what_it_does_not_cover():
    x = _meta(2, 8, 5, 5)
    s = _meta(8)
    fast = fast_meta.batch_norm_meta
    assert fast((x, s, s, s, None, True, 0.1, 1e-5)) is None   # one stat
    assert fast((_meta(1, 8, 1, 1), s, s, s, s, True, 0.1, 1e-5)) is None
    assert fast((x, s, s, s, s, 1, 0.1, 1e-5)) is None         # not a bool
    assert fast((x, s, s, _meta(7), s, False, 0.1, 1e-5)) is None  # C
    assert fast((x, s, s, None, None, False, 0.1, 1e-5)) is None
    assert fast((x[:, :, ::2], s, s, s, s, False, 0.1, 1e-5)) is None
    assert fast((torch.empty(2, 8, 5, 5), s, s, s, s, False, 0.1,
                 1e-5)) is None                                  # not meta
    assert fast((x.long(), s, s, s, s, False, 0.1, 1e-5)) is None


def _alike(m, x, table=None, kw_table=None):
    """Asserts that `m` records the same graph on `x` with the cheap kernels
    (the tables as they are, plus `table` and `kw_table`) as with PyTorch's
    own."""
    tables = (fast_meta.FAST_META, fast_meta.FAST_META_KW)
    saved = [dict(t) for t in tables]
    try:
        for t, extra in zip(tables, (table, kw_table)):
            t.update(extra or {})
        fast = recorder.record_model(m, (x,)).graph
        for t in tables:
            t.clear()
        slow = recorder.record_model(m, (x,)).graph
    finally:
        for t, s in zip(tables, saved):
            t.clear()
            t.update(s)
    assert fast.nodes == slow.nodes
    assert fast.values == slow.values
    assert fast.inits == slow.inits


def test_recording_counts_batch_norm_as_before():
    """A BatchNorm model records the same graph with the cheap kernel as
    with PyTorch's: compared by turning the table off."""
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8),
                            torch.nn.ReLU(), torch.nn.BatchNorm2d(8))
    _alike(m, torch.zeros(1, 3, 16, 16))


ELEMENTWISE = ["hardswish", "hardsigmoid"]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("op", ELEMENTWISE)
@pytest.mark.parametrize("case", ["2d", "channels_last", "batch1_1x1",
                                  "1d_features", "bfloat16",
                                  "half_input_float_stats"])
def test_elementwise_matches_pytorch_meta(op, inplace, case):
    x = CASES[case]()[0]
    func = getattr(torch.ops.aten, op + ("_" if inplace else "")).default
    ours = fast_meta.FAST_META[func]((x,))
    theirs = func(x.clone() if inplace else x)
    assert ours is not None
    if inplace:
        assert ours is x
    assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
    assert _long_strides(ours) == _long_strides(theirs)


def test_elementwise_declines_what_it_does_not_cover():
    fast = fast_meta.FAST_META[torch.ops.aten.hardswish.default]
    assert fast((_meta(2, 8, 5, 5)[:, :, ::2],)) is None
    assert fast((torch.empty(2, 8),)) is None
    assert fast((_meta(2, 8).long(),)) is None
    assert fast((_meta(2, 8), _meta(2, 8))) is None


def test_recording_counts_hardswish_as_before():
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.Hardswish(),
                            torch.nn.Hardsigmoid(),
                            torch.nn.Hardswish(inplace=True),
                            torch.nn.Hardsigmoid(inplace=True))
    x = torch.zeros(1, 3, 16, 16)
    _alike(m, x)


# ---- the PyTorch 2.x kernels: element-wise, softmax, tril, mean, cat ----

A = torch.ops.aten
K = fast_meta.KERNELS_2X  # in the table on 2.x; checked on every version


def _same_as_pytorch(func, args):
    ours = K[func](args)
    theirs = func(*args)
    assert ours is not None, (func, args)
    assert ours.is_meta
    assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
    assert _long_strides(ours) == _long_strides(theirs)


BINARY_CASES = {
    "same": lambda: (_meta(2, 3, 4), _meta(2, 3, 4)),
    "broadcast_last": lambda: (_meta(1, 6, 8), _meta(8)),
    "broadcast_both": lambda: (_meta(4, 1, 8), _meta(1, 5, 1)),
    "rank_grows": lambda: (_meta(8), _meta(3, 1, 8)),
    "zero_dim_meta": lambda: (_meta(), _meta(2, 3)),
    "half_and_float": lambda: (_meta(2, 3, dtype=torch.float16), _meta(2, 3)),
    "bf16_with_0dim_float": lambda: (_meta(2, 3, dtype=torch.bfloat16),
                                     _meta(dtype=torch.float32)),
    "int_and_float": lambda: (_meta(2, 3, dtype=torch.int64), _meta(3)),
    "wrapped_number": lambda: (_meta(2, 3, dtype=torch.float16),
                               torch.tensor(0.5, dtype=torch.float64)),
    "python_float": lambda: (_meta(2, 3, dtype=torch.float16), 0.5),
    "python_int": lambda: (_meta(2, 3), 3),
    "python_float_0dim": lambda: (_meta(), 2.5),
    "int_and_python_float": lambda: (_meta(2, 3, dtype=torch.int64), 0.5),
    "wrapped_number_first": lambda: (torch.tensor(2.0, dtype=torch.float64),
                                     _meta(4, 2)),
}


@pytest.mark.parametrize("op", ["mul", "add", "sub", "div"])
@pytest.mark.parametrize("case", sorted(BINARY_CASES))
def test_binary_matches_pytorch_meta(op, case):
    _same_as_pytorch(getattr(A, op).Tensor, BINARY_CASES[case]())


def test_binary_declines_what_it_does_not_cover():
    fast = fast_meta.binary_meta
    x = _meta(2, 8, 5, 5)
    # strided first operands the first-decides rule answers, as PyTorch
    _same_as_pytorch(A.mul.Tensor, (x[:, :, ::2], x[:, :, ::2]))
    _same_as_pytorch(A.add.Tensor, (_meta(2, 8, 5, 5, channels_last=True), x))
    # a first operand that leaves a pair of dims to the second (stride 0,
    # or a length-1 dim of its neighbour's stride), and a second with a
    # length-1 dim inside its others
    assert fast((_meta(2, 1).expand(2, 3), _meta(3, 2).t())) is None
    assert fast((_meta(2, 1, 3), _meta(3, 1, 2).transpose(0, 2))) is None
    assert fast((_meta(2), torch.empty_strided((5, 1, 2), (2, 1, 3),
                                               device="meta"))) is None
    assert fast((_meta(2, 3, dtype=torch.int64),) * 2) is None  # int result
    assert fast((_meta(2, 3), _meta(4, 3))) is None             # no broadcast
    assert fast((_meta(), torch.tensor(1.5))) is None  # 0-dim beside a number
    assert fast((torch.empty(2, 3), _meta(2, 3))) is None       # CPU tensor
    assert fast((x,)) is None
    assert fast((_meta(2, 3, dtype=torch.bool), _meta(2, 3))) is None


INTEGER_CASES = {
    # a LLaMA layer's cache positions: `cache_position + 0`
    "positions_plus_python_int": lambda: (_meta(16, dtype=torch.int64), 0),
    "ints": lambda: (_meta(2, 3, dtype=torch.int64),) * 2,
    "int32_and_int64": lambda: (_meta(2, 1, dtype=torch.int32),
                                _meta(3, dtype=torch.int64)),
    "uint8_and_python_int": lambda: (_meta(4, dtype=torch.uint8), 3),
    "int_and_wrapped_int": lambda: (_meta(2, 3, dtype=torch.int32),
                                    torch.tensor(5)),
    "permuted_ints": lambda: (_meta(3, 4, dtype=torch.int64).t(), 2),
    "int_and_float": lambda: (_meta(2, 3, dtype=torch.int64), _meta(3)),
}


@pytest.mark.parametrize("op", ["mul", "add", "sub"])
@pytest.mark.parametrize("case", sorted(INTEGER_CASES))
def test_integer_arithmetic_matches_pytorch_meta(op, case):
    """add, sub and mul answer integer results too (arith_meta); div's
    true division does not (binary_meta: a float result only)."""
    _same_as_pytorch(getattr(A, op).Tensor, INTEGER_CASES[case]())


def test_integer_arithmetic_declines_bool_and_complex():
    f = fast_meta.arith_meta
    assert f((_meta(2, 3, dtype=torch.bool),) * 2) is None
    assert f((_meta(2, 3, dtype=torch.bool), 1)) is None
    assert f((_meta(2, 3, dtype=torch.complex64), _meta(2, 3))) is None
    assert f((_meta(2, 3, dtype=torch.int64), 1.5j)) is None
    assert fast_meta.binary_meta((_meta(2, dtype=torch.int64), 0)) is None


@pytest.mark.parametrize("func,arg", [(A.mul.Scalar, 0.125),
                                      (A.div.Scalar, 3),
                                      (A.add.Scalar, 3),
                                      (A.pow.Tensor_Scalar, 2),
                                      (A.pow.Tensor_Scalar, -0.5)])
@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16",
                                  "1d_features"])
def test_scalar_ops_match_pytorch_meta(func, arg, case):
    _same_as_pytorch(func, (CASES[case]()[0], arg))


@pytest.mark.parametrize("func", [A.neg.default, A.rsqrt.default])
@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16"])
def test_unary_ops_match_pytorch_meta(func, case):
    _same_as_pytorch(func, (CASES[case]()[0],))


def test_scalar_and_unary_decline_integers():
    assert fast_meta.numbers_meta((_meta(2, 3, dtype=torch.int64), 2)) is None
    assert fast_meta.numbers_meta((_meta(2, 3), True)) is None
    assert fast_meta.elementwise_meta((_meta(2, 3, dtype=torch.int32),)) \
        is None


@pytest.mark.parametrize("case", [
    lambda: (_meta(2, 1, 4, 4, dtype=torch.bool), _meta(2, 3, 4, 4),
             _meta(1)),
    lambda: (_meta(4, 4, dtype=torch.bool), _meta(4, 4, dtype=torch.float16),
             _meta(4, 4)),
])
def test_where_matches_pytorch_meta(case):
    _same_as_pytorch(A.where.self, case())


@pytest.mark.parametrize("args", [
    lambda: (_meta(2, 4, 8, 8), -1),
    lambda: (_meta(2, 4, 8, 8, dtype=torch.bfloat16), 3, torch.float32),
    lambda: (_meta(3, 5), 0),
])
def test_softmax_matches_pytorch_meta(args):
    """_safe_softmax (PyTorch 2.5 on) against itself; on older PyTorch, the
    kernel against torch.softmax, whose output it has."""
    a = args()
    ours = fast_meta.softmax_meta(a)
    theirs = A._safe_softmax.default(*a) if hasattr(A, "_safe_softmax") \
        else torch.softmax(a[0], a[1], dtype=a[2] if len(a) == 3 else None)
    assert (ours.shape, ours.dtype, ours.stride()) == \
        (theirs.shape, theirs.dtype, theirs.stride())


@pytest.mark.parametrize("func", [A.tril.default, A.triu.default])
@pytest.mark.parametrize("args", [
    lambda: (_meta(16, 16, dtype=torch.bool),),
    lambda: (_meta(2, 3, 5, 7), 1),
    lambda: (_meta(5, 4), -2),
])
def test_tril_matches_pytorch_meta(func, args):
    _same_as_pytorch(func, args())


@pytest.mark.parametrize("args", [
    lambda: (_meta(2, 6, 8), [-1], True),
    lambda: (_meta(2, 6, 8), [0, 2]),
    lambda: (_meta(2, 6, 8, dtype=torch.bfloat16), [1], False),
    lambda: (_meta(4, 5), []),
])
@pytest.mark.parametrize("func", [A.mean.dim, A.sum.dim_IntList])
def test_mean_matches_pytorch_meta(func, args):
    _same_as_pytorch(func, args())


@pytest.mark.parametrize("args", [
    lambda: (_meta(2, 4, 8, 8), _meta(2, 4, 8, 8), -1, torch.float32),
    lambda: (_meta(3, 5), _meta(3, 5), 0, torch.float16),
])
def test_softmax_backward_matches_pytorch_meta(args):
    _same_as_pytorch(A._softmax_backward_data.default, args())


@pytest.mark.parametrize("args", [
    lambda: (_meta(2, 4, 8), [2, 10, 8], 1, 0, 4, 1),
    lambda: (_meta(2, 8, 4).transpose(1, 2), [2, 4, 16], -1, 1, 16, 2),
    lambda: (_meta(3, dtype=torch.bfloat16), [7], 0, 2, 5, 1),
])
def test_slice_backward_matches_pytorch_meta(args):
    _same_as_pytorch(A.slice_backward.default, args())


def test_mean_declines_what_it_does_not_cover():
    fast = fast_meta.mean_meta
    assert fast((_meta(2, 3), [1, -1])) is None            # a dim twice
    assert fast((_meta(2, 3), [2])) is None                # out of range
    assert fast((_meta(2, 3, dtype=torch.int64), [1])) is None


@pytest.mark.parametrize("args", [
    lambda: ([_meta(1, 8, 4, 16), _meta(1, 8, 4, 16)], -1),
    lambda: ([_meta(2, 3), _meta(5, 3), _meta(1, 3)],),
    lambda: ([_meta(2, 3, dtype=torch.bfloat16)] * 3, 1),
])
def test_cat_matches_pytorch_meta(args):
    _same_as_pytorch(A.cat.default, args())


def test_cat_declines_mixed_dtypes_and_sizes():
    """(A legacy empty operand is answered since: a KV cache's first step,
    test_cat_of_views_and_legacy_empties_matches_pytorch_meta.)"""
    fast = fast_meta.cat_meta
    assert fast(([_meta(2, 3), _meta(2, 3, dtype=torch.float16)],)) is None
    assert fast(([_meta(2, 3), _meta(2, 4)],)) is None     # off-axis sizes
    assert fast(([_meta(2, 3)], 2)) is None


def test_recording_a_decoder_is_unchanged_by_the_kernels():
    """A LLaMA-style decoder (RMSNorm, rotary, softmax attention, SwiGLU)
    records the same graph with the cheap kernels as with PyTorch's."""
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tiny_llama
    m = tiny_llama.LlamaForCausalLM(layers=2, hidden=64, inter=128, heads=4,
                                    vocab=100).eval()
    x = torch.zeros(1, 12, dtype=torch.long)
    _alike(m, x, K)  # the 2.x kernels on 1.13 too


FLOAT_UNARY = ("cos", "sin", "exp", "log", "sqrt", "reciprocal", "erf",
               "log1p", "abs")
UNARY_2X = [(A.neg.default, ()), (A.rsqrt.default, ()),
            (A.mul.Scalar, (2.0,)), (A.add.Scalar, (1,)),
            (A.div.Scalar, (3,)), (A.pow.Tensor_Scalar, (2,))]
if int(torch.__version__.split(".")[0]) >= 2:
    # PyTorch 1.13's own relu lays some oddly strided inputs out otherwise;
    # the kernels are in the table on 2.x only
    UNARY_2X += [(A.relu.default, ()), (A.sigmoid.default, ()),
                 (A.hardtanh.default, (0.0, 6.0)), (A.hardtanh.default, ())]
    UNARY_2X += [(getattr(A, op).default, ()) for op in FLOAT_UNARY]


@pytest.mark.parametrize("seed", range(4))
def test_unary_kernels_lay_out_any_input_as_pytorch(seed):
    """Inputs of random shapes and strides (transposed, sliced, expanded
    with stride 0, overlapping): the unary kernels answer where the dims
    longer than 1 have distinct non-zero strides, with PyTorch's shape,
    dtype and strides of those dims, and decline the rest."""
    rng = random.Random(seed)
    for _ in range(300):
        nd = rng.randint(1, 5)
        shape = [rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(nd)]
        strides = [rng.choice([0, 1, 2, 3, 5, 7, 30, 64]) for _ in range(nd)]
        x = torch.empty_strided(shape, strides, device="meta",
                                dtype=rng.choice([torch.float32,
                                                  torch.bfloat16]))
        long = [(n, s) for n, s in zip(shape, strides) if n > 1]
        ordered = all(s for _, s in long) and \
            len({s for _, s in long}) == len(long)
        for func, extra in UNARY_2X:
            ours = K[func]((x,) + extra)
            if not ordered:
                assert ours is None, (func, shape, strides)
                continue
            theirs = func(x, *extra)
            assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
            assert [s for s, n in zip(ours.stride(), shape) if n > 1] == \
                [s for s, n in zip(theirs.stride(), shape) if n > 1], \
                (func, shape, strides)


def _outputs_agree(ours, theirs):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.is_meta
        assert (o.shape, o.dtype, o.stride()) == (t.shape, t.dtype, t.stride())


def _pytorch_meta(func, args):
    """PyTorch's own meta kernel's answer; a skip where this version has
    none (the fast kernel is only in the table on 2.x)."""
    try:
        return func(*args)
    except (NotImplementedError, RuntimeError) as e:
        pytest.skip(f"no meta kernel for {func} here: {e}")


@pytest.mark.parametrize("args", [
    lambda: (_meta(2, 5, 8), [8], _meta(8), _meta(8), 1e-5),
    lambda: (_meta(2, 5, 8), [5, 8], None, None, 1e-6),
    lambda: (_meta(3, 8, dtype=torch.float64), [8], _meta(8, dtype=torch.float64),
             None, 1e-5),
    lambda: (_meta(1, 197, 768), [768], _meta(768), _meta(768), 1e-6),
])
def test_layer_norm_matches_pytorch_meta(args):
    a = args()
    _outputs_agree(fast_meta.layer_norm_meta(a),
                   _pytorch_meta(A.native_layer_norm.default, a))


def test_layer_norm_declines_what_it_does_not_cover():
    f = fast_meta.layer_norm_meta
    assert f((_meta(2, 8, dtype=torch.float16), [8], None, None, 1e-5)) is None
    assert f((_meta(2, 8).t(), [2], None, None, 1e-5)) is None
    assert f((_meta(2, 8), [4], None, None, 1e-5)) is None
    assert f((_meta(2, 8), [8], _meta(4), None, 1e-5)) is None
    assert f((torch.empty(2, 8), [8], None, None, 1e-5)) is None


def _laid_out(shape, strides):
    return torch.empty_strided(shape, strides, device="meta")


@pytest.mark.skipif(int(torch.__version__.split(".")[0]) < 2,
                    reason="1.13's reference lays some of these out otherwise")
@pytest.mark.parametrize("x", [
    # MaxViT's grid and block attention, Swin's patch merging, a transpose
    lambda: _laid_out((1, 4, 49, 256), (50176, 256, 1024, 1)),
    lambda: _laid_out((1, 1, 49, 512), (49, 49, 1, 49)),
    lambda: _laid_out((1, 56, 56, 96), (301056, 56, 1, 3136)),
    lambda: _laid_out((1, 16, 64), (1024, 1, 16)),
    lambda: _meta(2, 8, 6)[:, ::2],
])
def test_layer_norm_of_any_layout_matches_pytorch_meta(x):
    """PyTorch 2.x's reference makes the three outputs contiguous whatever
    the input's strides."""
    t = x()
    n = t.shape[-1]
    a = (t, [n], _meta(n), _meta(n), 1e-5)
    _outputs_agree(K[A.native_layer_norm.default](a),
                   _pytorch_meta(A.native_layer_norm.default, a))


@pytest.mark.parametrize("op", ["mul", "add", "sub", "div"])
@pytest.mark.parametrize("args", [
    # MaxViT's q * scale: a slice of a fused qkv, its size-1 dims' strides
    # tied
    lambda: (_laid_out((1, 1, 16, 49, 32), (75264, 75264, 32, 1536, 1)),
             0.044),
    lambda: (_meta(4, 6, 8)[:, ::2].transpose(0, 2), 2.0),
    lambda: (_meta(6, 8)[::2, 1:], torch.tensor(0.5, dtype=torch.float64)),
    lambda: (_meta(5, 7, dtype=torch.float16)[:, 2:5], 3),
])
def test_number_beside_any_layout_matches_pytorch_meta(op, args):
    """A number takes no part in an element-wise output's layout: the
    tensor's alone decides it, as for a unary op."""
    _same_as_pytorch(getattr(A, op).Tensor, args())


@pytest.mark.parametrize("args", [
    lambda: (_meta(16), _meta(4, 8), _meta(8, 16)),
    lambda: (_meta(4, 16), _meta(4, 8), _meta(16, 8).t()),
    lambda: (_meta(1, 16), _meta(4, 8).t().contiguous().t(), _meta(8, 16)),
    lambda: (_meta(1, dtype=torch.bfloat16), _meta(3, 5, dtype=torch.bfloat16),
             _meta(5, 2, dtype=torch.bfloat16)),
])
def test_addmm_and_mm_match_pytorch_meta(args):
    a = args()
    _outputs_agree(fast_meta.addmm_meta(a),
                   _pytorch_meta(A.addmm.default, a))
    _outputs_agree(fast_meta.mm_meta(a[1:]), _pytorch_meta(A.mm.default, a[1:]))


def test_addmm_and_mm_decline_what_they_do_not_cover():
    assert fast_meta.mm_meta((_meta(4, 8), _meta(7, 2))) is None
    assert fast_meta.mm_meta((_meta(4, 8), _meta(8, 2, dtype=torch.float64))) \
        is None
    assert fast_meta.mm_meta((_meta(2, 4, 8), _meta(8, 2))) is None
    assert fast_meta.mm_meta((_meta(4, 8, dtype=torch.int64),
                              _meta(8, 2, dtype=torch.int64))) is None
    assert fast_meta.addmm_meta((_meta(3), _meta(4, 8), _meta(8, 2))) is None
    assert fast_meta.addmm_meta((_meta(2, 4, 2), _meta(4, 8), _meta(8, 2))) \
        is None


@pytest.mark.parametrize("func", [A.gelu.default, A.tanh.default])
@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16"])
def test_gelu_and_tanh_match_pytorch_meta(func, case):
    _same_as_pytorch(func, (CASES[case]()[0],))


@pytest.mark.parametrize("args", [
    # a KV cache's first step: a legacy (0,) tensor and transposed keys
    lambda: ([_meta(0), _meta(1, 512, 12, 64).transpose(1, 2)], -2),
    lambda: ([_meta(1, 4, 6, 8).transpose(1, 2), _meta(1, 6, 2, 8)], 2),
    lambda: ([_meta(3, 8)[:, :4], _meta(3, 2)], 1),
    lambda: ([_meta(0), _meta(5, 3)],),
])
def test_cat_of_views_and_legacy_empties_matches_pytorch_meta(args):
    a = args()
    _outputs_agree(fast_meta.cat_meta(a), _pytorch_meta(A.cat.default, a))


def test_cat_declines_odd_layouts():
    f = fast_meta.cat_meta
    assert f(([_meta(2, 3), torch.empty(2, 3)], 0)) is None  # a CPU tensor
    assert f(([_meta(2, 3), _meta(2)], 0)) is None           # ranks differ
    # only legacy empties: an empty (0,), as PyTorch's
    a = ([_meta(0), _meta(0)],)
    _outputs_agree(f(a), _pytorch_meta(A.cat.default, a))


@pytest.mark.parametrize("args", [
    # every input channels-last: a channels-last output; else contiguous
    lambda: ([_meta(2, 8, 5, 5, channels_last=True)] * 2, 1),
    lambda: ([_meta(2, 8, 5, 5, channels_last=True), _meta(2, 8, 5, 5)], 0),
    lambda: ([_meta(2, 8, 5, 5), _meta(2, 8, 5, 5, channels_last=True)], 3),
    lambda: ([_meta(1, 4, 6, 8).transpose(1, 3)] * 2, 2),
    lambda: ([torch.empty(2, 4, 3, 3, 3, device="meta").to(
        memory_format=torch.channels_last_3d)] * 3, 1),
    # Phi-3's partial rotary: the rotated part and a pass-through of width 0
    lambda: ([_meta(1, 4, 16, 16),
              _meta(1, 4, 16, 32)[..., 16:16].transpose(1, 2).transpose(1, 2)],
             -1),
    lambda: ([_meta(1, 4, 0, 8), _meta(1, 4, 3, 8)], 2),
])
def test_cat_of_four_and_five_dims_matches_pytorch_meta(args):
    """PyTorch's rule: contiguous as soon as one input suggests it, else
    the channels-last format every input suggests."""
    a = args()
    _outputs_agree(fast_meta.cat_meta(a), _pytorch_meta(A.cat.default, a))


@pytest.mark.parametrize("args", [
    # GPT-J's rotary: stack((-x2, x1), -1) of a strided slice
    lambda: ((lambda x: [-x[..., 1::2], x[..., ::2]])(_meta(1, 16, 4, 8)),
             -1),
    lambda: ([_meta(2, 3), _meta(3, 2).t()],),
    lambda: ([_meta(2, 3), _meta(3, 2).t()], 1),
    lambda: ([_meta(4, 6)[:, ::2]] * 3, 2),
    lambda: ([_meta(2, 3)] * 2, -3),
])
def test_stack_of_any_layout_matches_pytorch_meta(args):
    a = args()
    _outputs_agree(K[A.stack.default](a), _pytorch_meta(A.stack.default, a))


@pytest.mark.parametrize("args", [
    lambda: (_meta(100, 16), _meta(1, 12, dtype=torch.int64)),
    lambda: (_meta(16, 100).t(), _meta(3, dtype=torch.int32)),
    lambda: (_meta(100, 16, dtype=torch.bfloat16),
             _meta(2, 5, dtype=torch.int64).t(), 0, False, False),
    lambda: (_meta(100, 16), _meta(dtype=torch.int64)),
])
def test_embedding_matches_pytorch_meta(args):
    a = args()
    _outputs_agree(K[A.embedding.default](a),
                   _pytorch_meta(A.embedding.default, a))


def test_embedding_declines_what_it_does_not_cover():
    f = K[A.embedding.default]
    assert f((_meta(100, 16), _meta(3))) is None  # float indices
    assert f((_meta(100, 16, 2), _meta(3, dtype=torch.int64))) is None
    assert f((torch.empty(100, 16), _meta(3, dtype=torch.int64))) is None


@pytest.mark.skipif(int(torch.__version__.split(".")[0]) < 2,
                    reason="1.13's stack makes it contiguous")
def test_stack_of_channels_last_at_the_end_matches_pytorch_meta():
    """2.x's reference: a cat of the inputs unsqueezed last, which suggest
    channels-last 3-D."""
    a = ([_meta(2, 8, 5, 5, channels_last=True)] * 2, 4)
    _outputs_agree(K[A.stack.default](a), _pytorch_meta(A.stack.default, a))


@pytest.mark.parametrize("args", [
    # a rotary table: cat((freqs, freqs), -1) of a transposed product
    lambda: ([torch.empty_strided((1, 16, 8), (128, 1, 16),
                                  device="meta")] * 2, -1),
    lambda: ([_meta(2, 8, 16).transpose(1, 2)] * 2, 0),
    lambda: ([_meta(4, 3).t()] * 2, 0),
    lambda: ([_meta(4, 3).t(), _meta(3, 2)], 1),
    lambda: ([_meta(6, 5)[:, ::2], _meta(6, 2)], 1),
    lambda: ([_meta(2, 3).expand(4, 2, 3), _meta(1, 2, 3)], 0),
    lambda: ([_meta(2, 3), _meta(0, 3)], 0),
])
def test_cat_of_any_layout_below_four_dims_matches_pytorch_meta(args):
    """PyTorch suggests a channels-last format for 4 and 5 dims only:
    with fewer, its cat is contiguous whatever its inputs' strides."""
    a = args()
    _outputs_agree(fast_meta.cat_meta(a), _pytorch_meta(A.cat.default, a))


@pytest.mark.parametrize("op", ["mul", "add", "sub", "div"])
@pytest.mark.parametrize("args", [
    # LLaMA's rotary products: transposed queries times cos, plus rotated
    lambda: (_meta(1, 6, 4, 8).transpose(1, 2), _meta(1, 1, 6, 8)),
    lambda: (_meta(1, 6, 4, 8).transpose(1, 2), _meta(1, 4, 6, 8)),
    lambda: (_meta(6, 4, 8).permute(2, 0, 1), _meta(6, 1)),
    lambda: (_meta(5, 3).t(), 0.5),
    lambda: (_meta(5, 3, dtype=torch.float16).t(), _meta(3, 5)),
])
def test_binary_of_permuted_dense_matches_pytorch_meta(op, args):
    a = args()
    func = getattr(A, op).Tensor
    ours = K[func](a)
    theirs = func(*a)
    assert ours is not None
    assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
    assert _long_strides(ours) == _long_strides(theirs)


def test_binary_of_permuted_declines_what_it_does_not_cover():
    f = fast_meta.binary_meta
    # not dense, or b not contiguous: the first-decides rule, as PyTorch
    _same_as_pytorch(A.sub.Tensor, (_meta(4, 8)[:, :4], _meta(4, 4)))
    _same_as_pytorch(A.div.Tensor, (_meta(3, 4).t(), _meta(3, 4).t()))
    assert f((_meta(4, 3).t(), _meta(2, 3, 4))) is None  # broadcasts a
    assert f((_meta(3, 4, dtype=torch.int64).t(), 2)) is None


class _Block(torch.nn.Module):
    """A transformer-style block: LayerNorm, Linear (addmm), GELU, tanh,
    a transposed product and a concatenation onto a legacy empty tensor."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)
        self.fc = torch.nn.Linear(16, 16)
        self.w = torch.nn.Parameter(torch.zeros(16, 16))

    def forward(self, x):
        h = torch.nn.functional.gelu(self.fc(self.norm(x)))
        h = torch.tanh(h) @ self.w
        q = h.view(1, 4, 2, 8).transpose(1, 2)
        k = torch.cat([torch.zeros(0, device=x.device), q], dim=-2)
        return q * k + q


def test_recording_counts_a_transformer_block_as_before():
    """The same graph with the cheap kernels as with PyTorch's."""
    _alike(_Block().eval(), torch.zeros(1, 4, 16))


def test_broadcast_agrees_with_pytorch():
    """fast_meta's own shape broadcast against torch.broadcast_shapes on
    random shapes (sizes 0, 1 and more, ranks 0 to 4)."""
    rng = random.Random(46)
    for _ in range(2000):
        s, t = ([rng.choice([0, 1, 1, 2, 3]) for _ in range(rng.randint(0, 4))]
                for _ in range(2))
        try:
            want = list(torch.broadcast_shapes(s, t))
        except RuntimeError:
            want = None
        assert meta_layout.broadcast(s, t) == want, (s, t)


def test_empty_like_s_layout_is_told_without_calling_it():
    """Whether PyTorch's empty_like of a meta tensor lays out by stride
    order (2.x's reference) is told from its registrations, at import,
    without running the reference (which imports sympy): the same answer
    as running it."""
    assert meta_layout._LIKE_BY_ORDER == meta_layout._like_by_order()


@pytest.mark.parametrize("seed", range(3))
def test_empty_like_and_clone_are_pytorch_s_exactly(seed):
    """meta_layout.empty_like (and clone, silu, the unary kernels through it)
    make the very tensor PyTorch's kernels make, strides of dims of length
    1 included, over random shapes and strides (size-1 dims with odd
    strides, channels-last, transposed, sliced, expanded, empty); clone
    declines what it does not make directly."""
    rng = random.Random(seed)
    cases = [_meta(2, 8, 5, 5, channels_last=True), _meta(1, 8, 1, 1),
             _meta(3, 1, 1, 1, channels_last=True), _meta(0, 3),
             torch.empty_strided((2, 1, 3), (3, 7, 1), device="meta")]
    for _ in range(200):
        nd = rng.randint(0, 5)
        shape = [rng.choice([0, 1, 1, 2, 3, 4]) for _ in range(nd)]
        strides = [rng.choice([0, 1, 2, 3, 5, 7, 30, 64]) for _ in range(nd)]
        if rng.random() < 0.5:  # contiguous but for the size-1 dims
            strides, acc = [], 1
            for n in reversed(shape):
                strides.insert(0, acc if n != 1 else rng.choice([1, 9]))
                acc *= max(n, 1)
        cases.append(torch.empty_strided(shape, strides, device="meta"))
    for x in cases:
        theirs = torch.empty_like(x)
        for dt in (None, torch.bfloat16):
            ours = meta_layout.empty_like(x, dt)
            assert (ours.shape, ours.dtype, ours.stride()) == \
                (theirs.shape, dt or theirs.dtype, theirs.stride()), \
                (x.shape, x.stride())
        c = fast_meta.clone_meta((x,))
        if c is not None:
            t = A.clone.default(x)
            assert (c.shape, c.dtype, c.stride()) == \
                (t.shape, t.dtype, t.stride()), (x.shape, x.stride())
        if x.numel():
            s = fast_meta.unary_meta((x,))
            if s is not None:
                t = _pytorch_meta(A.silu.default, (x,))
                assert (s.shape, s.dtype) == (t.shape, t.dtype)
                assert [a for a, n in zip(s.stride(), x.shape) if n > 1] == \
                    [a for a, n in zip(t.stride(), x.shape) if n > 1]
    assert fast_meta.clone_meta((torch.empty(2, 3),)) is None  # not meta
    assert fast_meta.clone_meta((_meta(2, 3), _meta(2, 3))) is None


@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16",
                                  "1d_features"])
def test_silu_and_clone_match_pytorch_meta(case):
    x = CASES[case]()[0]
    _same_as_pytorch(A.silu.default, (x,))
    if fast_meta.clone_meta((x,)) is not None:
        _outputs_agree(fast_meta.clone_meta((x,)), A.clone.default(x))


@pytest.mark.parametrize("args", [
    lambda: (_meta(3, 4, 8), _meta(3, 8, 5)),
    lambda: (_meta(3, 8, 4).transpose(1, 2), _meta(3, 5, 8).transpose(1, 2)),
    lambda: (_meta(1, 4, 8, dtype=torch.bfloat16),
             _meta(1, 8, 2, dtype=torch.bfloat16)),
    lambda: (_meta(32, 2048, 128)[:, :7], _meta(32, 128, 2048)),
])
def test_bmm_matches_pytorch_meta(args):
    a = args()
    _outputs_agree(fast_meta.bmm_meta(a), _pytorch_meta(A.bmm.default, a))


def test_bmm_declines_what_it_does_not_cover():
    fast = fast_meta.bmm_meta
    assert fast((_meta(3, 4, 8), _meta(2, 8, 5))) is None       # batch
    assert fast((_meta(3, 4, 8), _meta(3, 7, 5))) is None       # inner
    assert fast((_meta(4, 8), _meta(8, 5))) is None             # 2-D
    assert fast((_meta(3, 4, 8, dtype=torch.int64),
                 _meta(3, 8, 5, dtype=torch.int64))) is None
    assert fast((_meta(3, 4, 8), _meta(3, 8, 5, dtype=torch.float64))) \
        is None
    assert fast((torch.empty(3, 4, 8), _meta(3, 8, 5))) is None


def _answers_as_pytorch(func, args):
    """The 2.x kernel answers `args` with exactly PyTorch's meta output."""
    ours = K[func](args)
    assert ours is not None, (func, args)
    _outputs_agree(ours, _pytorch_meta(func, args))
    return ours


# ---- the CNN activations and convolution (mobilenet_v2's ReLU6 cost
# 0.7 ms a call in PyTorch 2.x's Python reference) ----

@pytest.mark.parametrize("func,extra", [
    (A.relu.default, ()), (A.sigmoid.default, ()),
    (A.hardtanh.default, (0.0, 6.0)), (A.hardtanh.default, (-2,)),
    (A.hardtanh.default, ())])
@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16",
                                  "1d_features", "3d"])
def test_activations_match_pytorch_meta(func, extra, case):
    _same_as_pytorch(func, (CASES[case]()[0],) + extra)


@pytest.mark.parametrize("func,extra", [
    (A.relu_.default, ()), (A.silu_.default, ()), (A.sigmoid_.default, ()),
    (A.hardtanh_.default, (0.0, 6.0)), (A.hardtanh_.default, ())])
@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16",
                                  "batch1_1x1"])
def test_inplace_activations_are_their_input(func, extra, case):
    x = CASES[case]()[0]
    theirs = func(x.clone(), *extra)
    ours = K[func]((x,) + extra)
    assert ours is x
    assert (ours.shape, ours.dtype, ours.stride()) == \
        (theirs.shape, theirs.dtype, theirs.stride())


def test_activations_decline_what_they_do_not_cover():
    x = _meta(2, 8, 5, 5)
    assert K[A.relu.default]((_meta(2, 3, dtype=torch.int64),)) is None
    assert K[A.relu_.default]((x[:, :, ::2],)) is None       # not dense
    assert K[A.relu_.default]((_meta(2, 3, dtype=torch.int32),)) is None
    assert K[A.hardtanh.default]((x, 6.0, 0.0)) is None     # min > max
    assert K[A.hardtanh_.default]((x, 6.0, 0.0)) is None
    assert K[A.hardtanh.default]((x, True, 6.0)) is None
    assert K[A.hardtanh.default]((x, _meta(), 6.0)) is None
    assert K[A.hardtanh.default]((x, 0.0, 6.0, 1.0)) is None
    assert K[A.sigmoid.default]((torch.empty(2, 3),)) is None  # not meta


# ---- PyTorch 1.13's table (KERNELS_113): kernels of the inputs both
# versions lay out alike, checked against PyTorch's meta kernels on every
# version ----

K113 = fast_meta.KERNELS_113


def _random_input(rng, dtypes):
    """A meta tensor of random rank, sizes and dtype, contiguous,
    transposed, channels-last, sliced or expanded."""
    shape = [rng.choice([1, 2, 3, 5]) for _ in range(rng.randint(0, 5))]
    x = torch.empty(shape, device="meta", dtype=rng.choice(dtypes))
    how = rng.random()
    if how < 0.2 and x.dim() >= 2:
        x = x.transpose(0, 1)
    elif how < 0.35 and x.dim() == 4:
        x = x.contiguous(memory_format=torch.channels_last)
    elif how < 0.45 and x.dim() >= 1:
        x = x[..., ::2]
    elif how < 0.55 and x.dim() >= 1 and shape[0] == 1:
        x = x.expand(*([3] + shape[1:]))
    return x


def _agrees_or_declines(func, args):
    """1 where the 1.13 kernel answers `args` with PyTorch's meta output
    (shape, dtype, strides of dims longer than 1), 0 where it declines;
    it must decline what PyTorch refuses (shapes that do not broadcast, a
    kernel larger than the padded input)."""
    ours = K113[func](args)
    try:
        theirs = func(*args)
    except RuntimeError:
        assert ours is None, args
        return 0
    if ours is None:
        return 0
    assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype), args
    assert _long_strides(ours) == _long_strides(theirs), args
    return 1


@pytest.mark.parametrize("seed", range(3))
def test_113_activations_and_where_lay_out_any_input_as_pytorch(seed):
    """relu, hardtanh (any bounds, numbers or not) and where over random
    inputs: answered as PyTorch's meta kernel answers them, or declined,
    on 1.13 (where these kernels run) and 2.x alike."""
    rng = random.Random(seed)
    dtypes = (torch.float32, torch.float16, torch.bfloat16, torch.float64,
              torch.int64, torch.bool)
    answered = 0
    for _ in range(400):
        x = _random_input(rng, dtypes)
        answered += _agrees_or_declines(A.relu.default, (x,))
        bounds = rng.choice([(0.0, 6.0), (), (-1.0,), (6.0, 0.0), (0, 6),
                             (True, 2.0)])
        if bounds != (6.0, 0.0):  # (PyTorch 2.x answers it; 1.13 raises)
            answered += _agrees_or_declines(A.hardtanh.default,
                                            (x,) + bounds)
        cond = _random_input(rng, (torch.bool, torch.float32))
        answered += _agrees_or_declines(
            A.where.self, (cond, x, _random_input(rng, dtypes)))
    assert answered > 300  # dense float inputs are answered


def test_113_hardtanh_declines_bounds_pytorch_refuses():
    x = _meta(2, 8, 5, 5)
    assert K113[A.hardtanh.default]((x, 6.0, 0.0)) is None
    assert K113[A.hardtanh.default]((x, True, 6.0)) is None
    assert K113[A.hardtanh.default]((x[:, :, ::2], 0.0, 6.0)) is None


@pytest.mark.parametrize("seed", range(2))
def test_113_convolution_lays_out_as_pytorch(seed):
    """Random convolutions (1-3 spatial dims, groups, strides, padding,
    dilation, dtypes), some of the 2-d ones' input or weight converted to
    channels-last: answered with PyTorch's meta output or declined. A
    depthwise weight converted to channels-last is contiguous all the
    same, and PyTorch 1.13 lays that convolution's output out
    channels-last: declined."""
    rng = random.Random(seed)
    answered = 0
    for _ in range(600):
        d = rng.randint(1, 3)
        c = rng.choice([1, 2, 3, 4, 8])
        groups = rng.choice([g for g in (1, 2, 4) if c % g == 0])
        dt = rng.choice([torch.float32, torch.bfloat16, torch.float16])
        x = _meta(rng.choice([1, 2]), c,
                  *[rng.choice([1, 2, 3, 5, 8]) for _ in range(d)], dtype=dt)
        w = _meta(groups * rng.randint(1, 3), c // groups,
                  *[rng.randint(1, 3) for _ in range(d)], dtype=dt)
        if d == 2 and rng.random() < 0.3:
            w = w.to(memory_format=torch.channels_last)
        if d == 2 and rng.random() < 0.3:
            x = x.to(memory_format=torch.channels_last)
        bias = _meta(w.shape[0], dtype=dt) if rng.random() < 0.5 else None
        args = _conv_args(x, w, bias, [rng.randint(1, 2) for _ in range(d)],
                          [rng.randint(0, 1) for _ in range(d)],
                          [rng.randint(1, 2) for _ in range(d)], groups)
        answered += _agrees_or_declines(A.convolution.default, args)
    assert answered > 200
    depthwise = _meta(16, 1, 3, 3).to(memory_format=torch.channels_last)
    assert depthwise.is_contiguous() and depthwise.stride() == (9, 1, 3, 1)
    assert K113[A.convolution.default](_conv_args(
        _meta(1, 16, 8, 8), depthwise, None, [1, 1], [1, 1], [1, 1],
        16)) is None


CONV_CASES = {
    "2d": lambda: (_meta(2, 4, 9, 9), _meta(8, 4, 3, 3), _meta(8),
                   [1, 1], [1, 1], [1, 1], 1),
    "2d_strided_no_bias": lambda: (_meta(1, 3, 224, 224), _meta(32, 3, 3, 3),
                                   None, [2, 2], [1, 1], [1, 1], 1),
    "depthwise": lambda: (_meta(1, 16, 14, 14), _meta(16, 1, 5, 5), None,
                          [2, 2], [2, 2], [1, 1], 16),
    "grouped_dilated": lambda: (_meta(2, 8, 20, 17), _meta(12, 2, 3, 2),
                                _meta(12), [1, 3], [0, 2], [2, 3], 4),
    "1d": lambda: (_meta(2, 6, 50), _meta(4, 6, 7), _meta(4), [3], [2],
                   [1], 1),
    "3d": lambda: (_meta(1, 2, 5, 6, 7), _meta(4, 2, 3, 3, 1), None,
                   [1, 2, 1], [1, 0, 0], [1, 1, 1], 1),
    "kernel_fills_input": lambda: (_meta(1, 2, 3, 3), _meta(2, 2, 3, 3),
                                   None, [1, 1], [0, 0], [1, 1], 1),
    "bfloat16": lambda: (_meta(1, 4, 8, 8, dtype=torch.bfloat16),
                         _meta(4, 4, 1, 1, dtype=torch.bfloat16),
                         _meta(4, dtype=torch.bfloat16), [1, 1], [0, 0],
                         [1, 1], 1),
}


def _conv_args(x, w, b, stride, padding, dilation, groups):
    return (x, w, b, stride, padding, dilation, False,
            [0] * len(stride), groups)


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_convolution_matches_pytorch_meta(case):
    _answers_as_pytorch(A.convolution.default,
                        _conv_args(*CONV_CASES[case]()))


def test_convolution_declines_what_it_does_not_cover():
    fast = K[A.convolution.default]
    x, w = _meta(1, 4, 8, 8), _meta(8, 4, 3, 3)
    ok = _conv_args(x, w, None, [1, 1], [0, 0], [1, 1], 1)
    assert fast(ok) is not None
    bad = {
        "transposed": ok[:6] + (True,) + ok[7:],
        "channels_last": (_meta(1, 4, 8, 8, channels_last=True),) + ok[1:],
        "kernel_too_big": _conv_args(_meta(1, 4, 2, 2), w, None, [1, 1],
                                     [0, 0], [1, 1], 1),
        "channels": _conv_args(_meta(1, 5, 8, 8), w, None, [1, 1], [0, 0],
                               [1, 1], 1),
        "groups": _conv_args(x, _meta(6, 1, 3, 3), None, [1, 1], [0, 0],
                             [1, 1], 4),
        "empty": _conv_args(_meta(0, 4, 8, 8), w, None, [1, 1], [0, 0],
                            [1, 1], 1),
        "dtypes": (x, _meta(8, 4, 3, 3, dtype=torch.float64)) + ok[2:],
        "int": (x.long(), w.long()) + ok[2:],
        "bias_shape": (x, w, _meta(7)) + ok[3:],
        "stride_zero": _conv_args(x, w, None, [0, 1], [0, 0], [1, 1], 1),
        "negative_padding": _conv_args(x, w, None, [1, 1], [-1, 0], [1, 1],
                                       1),
        "short_lists": _conv_args(x, w, None, [1], [0, 0], [1, 1], 1),
        "cpu": (torch.empty(1, 4, 8, 8),) + ok[1:],
    }
    for name, args in bad.items():
        assert fast(args) is None, name


def test_recording_counts_cnn_activations_as_before():
    """ReLU, ReLU6 (hardtanh), SiLU and sigmoid, in place and not, after
    convolutions of each kind: the same graph with the cheap kernels as
    with PyTorch's (the 2.x kernels on 1.13 too)."""
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2, padding=1), torch.nn.ReLU6(True),
        torch.nn.Conv2d(8, 8, 3, padding=1, groups=8), torch.nn.ReLU(True),
        torch.nn.Conv2d(8, 16, 1, bias=False), torch.nn.SiLU(True),
        torch.nn.Conv2d(16, 16, 3, dilation=2), torch.nn.Sigmoid(),
        torch.nn.ReLU(), torch.nn.Hardtanh(-2.0, 2.0))
    _alike(m, torch.zeros(1, 3, 32, 32), K)


# ---- Swin's shifted windows: roll and the attention mask's masked_fill ----

@pytest.mark.parametrize("args", [
    lambda: (_meta(1, 14, 14, 96), [-3, -3], [1, 2]),
    lambda: (_meta(2, 7, 5), [2], [0]),
    lambda: (_meta(4, 6), [5]),                       # flattened, then back
    lambda: (_meta(3, 4, 5, dtype=torch.bfloat16), [1, -2], [-1, 0]),
    lambda: (_meta(3, 4, dtype=torch.int64), [1], [1]),
])
def test_roll_matches_pytorch_meta(args):
    _answers_as_pytorch(A.roll.default, args())


def test_roll_declines_what_it_does_not_cover():
    fast = K[A.roll.default]
    x = _meta(2, 3, 4)
    assert fast((x, [1, 2], [0])) is None            # counts differ
    assert fast((x, [1, 2])) is None                 # no dims, two shifts
    assert fast((x, [], [])) is None
    assert fast((x, [1], [3])) is None               # no such dim
    assert fast((x.transpose(0, 1), [1], [0])) is None
    assert fast((_meta(0, 3), [1], [0])) is None
    assert fast((_meta(), [1])) is None
    assert fast((torch.empty(2, 3), [1], [0])) is None


@pytest.mark.parametrize("args", [
    lambda: (_meta(4, 3, 49, 49), _meta(4, 1, 49, 49, dtype=torch.bool),
             -100.0),
    lambda: (_meta(2, 5), _meta(5, dtype=torch.bool), 0),
    lambda: (_meta(2, 8, 5, 5, channels_last=True),
             _meta(2, 8, 5, 5, dtype=torch.bool), float("-inf")),
    lambda: (_meta(3, 4, dtype=torch.float16), _meta(3, 4, dtype=torch.bool),
             -65504.0),
])
def test_masked_fill_matches_pytorch_meta(args):
    _answers_as_pytorch(A.masked_fill.Scalar, args())


def test_masked_fill_declines_what_it_does_not_cover():
    fast = K[A.masked_fill.Scalar]
    x = _meta(2, 5)
    m = _meta(2, 5, dtype=torch.bool)
    assert fast((x, _meta(3, 2, 5, dtype=torch.bool), 0.0)) is None  # grows
    assert fast((x, _meta(2, 5), 0.0)) is None       # not a bool mask
    assert fast((x.long(), m, 0)) is None            # integer x
    assert fast((x, m, True)) is None
    assert fast((x, m, 1j)) is None
    assert fast((x, m, _meta())) is None             # a tensor value
    assert fast((torch.empty(2, 5), m, 0.0)) is None


def test_recording_swin_blocks_is_unchanged_by_the_kernels():
    """torchvision's shifted-window block (roll, its attention mask built
    with masked_fill): the same graph with the cheap kernels as without."""
    from torchvision.models.swin_transformer import SwinTransformerBlock
    m = SwinTransformerBlock(32, 2, [4, 4], [2, 2]).eval()
    _alike(m, torch.zeros(1, 8, 8, 32), K)


# ---- float element-wise functions and comparisons (rotary, masks, T5's
# position buckets) ----

@pytest.mark.skipif(int(torch.__version__.split(".")[0]) < 2,
                    reason="in the table on 2.x only; 1.13's own abs lays a "
                           "channels-last input out contiguously")
@pytest.mark.parametrize("op", FLOAT_UNARY)
@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16",
                                  "float64"])
def test_float_unary_matches_pytorch_meta(op, case):
    _same_as_pytorch(getattr(A, op).default, (CASES[case]()[0],))


def test_float_unary_declines_integers():
    for op in FLOAT_UNARY:
        assert K[getattr(A, op).default]((_meta(2, 3, dtype=torch.int64),)) \
            is None, op


COMPARE_CASES = {
    "ints": lambda: (_meta(2, 16, dtype=torch.int64),
                     _meta(2, 16, dtype=torch.int64)),
    "broadcast": lambda: (_meta(16, 1, dtype=torch.int64),
                          _meta(1, 16, dtype=torch.int64)),
    "int_and_float": lambda: (_meta(4, 3, dtype=torch.int32), _meta(3)),
    "python_int": lambda: (_meta(2, 5, dtype=torch.int64), 8),
    "python_float": lambda: (_meta(2, 5), 0.5),
    "bools": lambda: (_meta(3, 3, dtype=torch.bool),
                      _meta(3, 3, dtype=torch.bool)),
    "zero_dim_meta": lambda: (_meta(dtype=torch.int64),
                              _meta(4, dtype=torch.int64)),
    "half": lambda: (_meta(2, 3, dtype=torch.float16), 1),
}


@pytest.mark.parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
@pytest.mark.parametrize("case", sorted(COMPARE_CASES))
def test_comparisons_match_pytorch_meta(op, case):
    args = COMPARE_CASES[case]()
    form = "Scalar" if not isinstance(args[1], torch.Tensor) else "Tensor"
    _answers_as_pytorch(getattr(getattr(A, op), form), args)


def test_comparisons_decline_what_they_do_not_cover():
    fast = K[A.lt.Tensor]
    x = _meta(4, 6)
    assert fast((x.t(), x.t())) is None                   # not contiguous
    assert fast((x, _meta(5, 6))) is None                 # no broadcast
    assert fast((_meta(2, dtype=torch.complex64),) * 2) is None
    assert fast((x, "a")) is None
    assert fast((torch.empty(4, 6), torch.empty(4, 6))) is None  # CPU
    assert fast((x,)) is None


class _Buckets(torch.nn.Module):
    """T5's relative position buckets and a rotary table: integer
    comparisons, abs and log over positions, cos and sin of angles."""

    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Embedding(8, 2)

    def forward(self, x):
        n = x.shape[1]
        pos = torch.arange(n, device=x.device)
        rel = pos[None, :] - pos[:, None]
        big = rel.abs() >= 4
        far = 4 + (torch.log(rel.abs().float().clamp(min=1) / 4) * 2).long()
        buckets = torch.where(big, far.clamp(max=7), rel.abs())
        buckets = buckets + (rel > 0).long() * 0
        angles = x.mean(-1, keepdim=True) * pos[None, :, None]
        rot = torch.cos(angles) + torch.sin(angles).exp().sqrt()
        return self.bias(buckets).sum() + rot.sum() + (x != 0).sum()


def test_recording_position_buckets_is_unchanged_by_the_kernels():
    _alike(_Buckets().eval(), torch.zeros(1, 10, 4), K)


# ---- swin_v2's cosine attention, BiT, PoolFormer, RWKV, Mamba, T5 ----

# 1.13's own kernels refuse an int32 index and keep GroupNorm's bfloat16
# statistics in float32; these kernels are in the 2.x table only
_ON_2X_ONLY = pytest.mark.skipif(int(torch.__version__.split(".")[0]) < 2,
                                 reason="1.13 differs; 2.x table only")

@pytest.mark.parametrize("func,extra", [
    (A.clamp.default, (0.0, 6.0)), (A.clamp.default, (None, 4.6)),
    (A.clamp.default, (-1,)), (A.clamp_min.default, (1e-12,)),
    (A.clamp_max.default, (2,)), (A.softplus.default, (1, 20)),
    (A.rsub.Scalar, (1,)), (A.rsub.Scalar, (1.0, 2))])
@pytest.mark.parametrize("case", ["2d", "channels_last", "bfloat16",
                                  "float64"])
def test_number_argument_ops_match_pytorch_meta(func, extra, case):
    x = CASES[case]()[0]
    _answers_as_pytorch(func, (x,) + extra)
    _answers_as_pytorch(func, (x.transpose(1, 3),) + extra)  # strided


def test_number_argument_ops_decline_what_they_do_not_cover():
    x = _meta(2, 3)
    assert K[A.clamp.default]((x, None, None)) is None   # PyTorch refuses
    assert K[A.clamp.default]((x, _meta(2, 3), None)) is None  # a tensor
    assert K[A.clamp_min.default]((x, True)) is None
    assert K[A.clamp_min.default]((x.long(), 1)) is None  # an integer x
    assert K[A.softplus.default]((x.long(),)) is None
    assert K[A.rsub.Scalar]((_meta(2, dtype=torch.complex64), 1)) is None
    assert K[A.clamp_min.default]((torch.empty(2, 3), 0.0)) is None


def _strided(rng, shape):
    return torch.empty_strided(
        shape, [rng.choice([0, 1, 2, 3, 5, 7, 30, 64]) for _ in shape],
        device="meta", dtype=rng.choice([torch.float32, torch.float32,
                                         torch.bfloat16, torch.int64]))


@pytest.mark.parametrize("seed", range(3))
def test_binary_with_any_second_operand_lays_out_as_pytorch(seed):
    """An operand of the result's shape with distinct non-zero strides
    (its dims of length 1 too) beside one of any strides broadcasting to
    it (expanded, sliced, contiguous), in either order: the kernels answer
    with PyTorch's shape, dtype and strides of the dims longer than 1
    (div, mul, add, sub, maximum, minimum) where one operand decides the
    layout, and decline the rest."""
    rng = random.Random(seed)
    funcs = (A.div.Tensor, A.mul.Tensor, A.add.Tensor, A.sub.Tensor,
             A.maximum.default, A.minimum.default)
    answered = 0
    for _ in range(400):
        nd = rng.randint(1, 5)
        shape = [rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(nd)]
        a = _strided(rng, shape)
        k = rng.randint(0, nd)
        b = _strided(rng, [rng.choice([1, n]) for n in shape[nd - k:]])
        for func in funcs:
            # the full-shape operand first, then second (ConvNeXt's layer
            # scale: a small parameter times the block's strided output)
            for pair in ((a, b), (b, a)):
                ours = K[func](pair)
                if ours is None:
                    continue
                answered += 1
                theirs = func(*pair)
                assert (ours.shape, ours.dtype) == \
                    (theirs.shape, theirs.dtype)
                assert [s for s, n in zip(ours.stride(), shape) if n > 1] \
                    == [s for s, n in zip(theirs.stride(), shape) if n > 1], \
                    (func, [(t.shape, t.stride()) for t in pair])
    assert answered > 400  # the test sees the kernels answer


def test_normalize_divides_as_pytorch():
    """F.normalize of one head of a permuted qkv (swin_v2's cosine
    attention): the norm, its clamp and the division of a sliced x by the
    expanded norm, each as PyTorch lays it out."""
    q = _meta(2, 7, 3, 4, 16).permute(2, 0, 3, 1, 4)[0]
    norm = _answers_as_pytorch(A.linalg_vector_norm.default,
                               (q, 2, [-1], True))
    den = _answers_as_pytorch(A.clamp_min.default, (norm, 1e-12))
    _answers_as_pytorch(A.div.Tensor, (q, den.expand_as(q)))


@pytest.mark.parametrize("args", [
    lambda: (_meta(3, 4, 5), 2), lambda: (_meta(3, 4, 5), 2, [1]),
    lambda: (_meta(3, 4, 5), 2.0, [-1], True),
    lambda: (_meta(3, 4, 5), 1, [0, 2], False),
    lambda: (_meta(3, 4, 5, dtype=torch.bfloat16), 2, [-1], True),
    lambda: (_meta(3, 4, 5).transpose(0, 2), float("inf"), [1], True),
    lambda: (_meta(6), 2, [], False), lambda: (_meta(), 2),
])
def test_vector_norm_matches_pytorch_meta(args):
    _answers_as_pytorch(A.linalg_vector_norm.default, args())


def test_vector_norm_declines_what_it_does_not_cover():
    fast = K[A.linalg_vector_norm.default]
    x = _meta(3, 4)
    assert fast((x.long(), 2)) is None                   # integers
    assert fast((_meta(3, dtype=torch.complex64), 2)) is None
    assert fast((x, 2, [2])) is None                     # no such dim
    assert fast((x, 2, [1, -1])) is None                 # named twice
    assert fast((_meta(0, 3), 2)) is None
    assert fast((x, "fro")) is None


@pytest.mark.parametrize("args", [
    lambda: (_meta(225, 4), [_meta(2401, dtype=torch.int64)]),
    lambda: (_meta(225, 4), [_meta(49, 49, dtype=torch.int64)]),
    pytest.param(lambda: (_meta(10, 3, 2), [_meta(7, dtype=torch.int32)]),
                 marks=_ON_2X_ONLY),
    lambda: (_meta(10, dtype=torch.bfloat16), [_meta(4, 2, dtype=torch.int64)]),
    pytest.param(lambda: (_meta(10, 3), [_meta(7, 5, dtype=torch.int64).t()]),
                 marks=_ON_2X_ONLY),  # (1.13 follows the index's layout)
    lambda: (_meta(10), [_meta(5, 1, dtype=torch.int64).expand(5, 4)]),
])
def test_index_matches_pytorch_meta(args):
    _answers_as_pytorch(A.index.Tensor, args())


def test_index_declines_what_it_does_not_cover():
    fast = K[A.index.Tensor]
    x = _meta(10, 4)
    i = _meta(3, dtype=torch.int64)
    assert fast((x, [_meta(10, dtype=torch.bool)])) is None
    assert fast((x, [None, i])) is None
    assert fast((x, [i, i])) is None
    assert fast((x.t(), [i])) is None                    # strided x
    assert fast((x, [torch.zeros(3, dtype=torch.int64)])) is None  # CPU


@pytest.mark.parametrize("args", [
    lambda: (_meta(2, 4, 7, 16), -1, False),
    lambda: (_meta(3, 5, dtype=torch.bfloat16), 0, False),
])
def test_plain_softmax_matches_pytorch_meta(args):
    _answers_as_pytorch(A._softmax.default, args())


def test_plain_softmax_declines_what_it_does_not_cover():
    fast = K[A._softmax.default]
    x = _meta(2, 4, 7, 16)
    assert fast((x.transpose(1, 2), -1, False)) is None  # laid out anew
    assert fast((x, -1, True)) is None                   # half to float
    assert fast((x, 4, False)) is None


@pytest.mark.parametrize("args", [
    lambda: (_meta(2, 8, 5, 5), _meta(8), _meta(8), 2, 8, 25, 4, 1e-5),
    lambda: (_meta(2, 8, 7), None, None, 2, 8, 7, 2, 1e-6),
    pytest.param(lambda: (_meta(1, 6, 3, 3, dtype=torch.bfloat16),
                          _meta(6, dtype=torch.bfloat16), None, 1, 6, 9, 1,
                          1e-5), marks=_ON_2X_ONLY),
])
def test_group_norm_matches_pytorch_meta(args):
    _answers_as_pytorch(A.native_group_norm.default, args())


def test_group_norm_declines_what_it_does_not_cover():
    fast = K[A.native_group_norm.default]
    x = _meta(2, 8, 5, 5)
    s = _meta(8)
    assert fast((x, s, s, 2, 8, 25, 3, 1e-5)) is None    # 3 does not divide 8
    assert fast((x, s, s, 2, 8, 24, 4, 1e-5)) is None    # sizes disagree
    assert fast((x, _meta(4), s, 2, 8, 25, 4, 1e-5)) is None
    assert fast((x.long(), s, s, 2, 8, 25, 4, 1e-5)) is None
    assert fast((torch.empty(2, 8, 5, 5), s, s, 2, 8, 25, 4, 1e-5)) is None
    assert fast((_meta(0, 8, 5, 5), s, s, 0, 8, 25, 4, 1e-5)) is None
    # channels-last: PyTorch 2.11's meta lays the output out channels-last,
    # 2.14's contiguously (the fallback answers as the PyTorch at hand)
    assert fast((_meta(2, 8, 5, 5, channels_last=True), s, s, 2, 8, 25, 4,
                 1e-5)) is None


class _CosineAttention(torch.nn.Module):
    """swin_v2's cosine attention and BiT's standardized weights, RWKV's
    maximum, PoolFormer's GroupNorm, a bias table looked up by index."""

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.scale = torch.nn.Parameter(torch.zeros(2, 1, 1))
        self.table = torch.nn.Parameter(torch.zeros(9, 2))
        self.register_buffer("index", torch.arange(16) % 9)
        self.norm = torch.nn.GroupNorm(2, 2)
        self.conv = torch.nn.Conv2d(2, 2, 1)

    def forward(self, x):
        qkv = self.qkv(x).reshape(1, 4, 3, 2, 8).permute(2, 0, 3, 1, 4)
        q, k = qkv[0], qkv[1]
        attn = torch.nn.functional.normalize(q, dim=-1) @ \
            torch.nn.functional.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * torch.clamp(self.scale, max=4.6).exp()
        attn = attn + self.table[self.index].t().reshape(1, 2, 4, 4)
        attn = torch.softmax(attn, -1)
        w = torch.nn.functional.batch_norm(
            self.conv.weight.reshape(1, 2, -1), None, None, training=True,
            momentum=0.0, eps=1e-6).reshape_as(self.conv.weight)
        y = torch.nn.functional.conv2d(self.norm(attn), w)
        y = torch.maximum(y, 1 - torch.nn.functional.softplus(y))
        return y.clamp_min(0.0) + torch.minimum(y, y.mean(-1, keepdim=True))


def test_recording_cosine_attention_is_unchanged_by_the_kernels():
    _alike(_CosineAttention().eval(), torch.zeros(1, 4, 16), K)


@pytest.mark.parametrize("args", [
    lambda: (_meta(1, 16), 1), lambda: (_meta(1, 16, dtype=torch.int32), 1),
    lambda: (_meta(2, 16, dtype=torch.bool), -1),
    lambda: (_meta(3, 4, dtype=torch.bfloat16), 0),
])
def test_cumsum_matches_pytorch_meta(args):
    _answers_as_pytorch(A.cumsum.default, args())


@pytest.mark.parametrize("args", [
    lambda: ([_meta(1, 128)] * 3, -1), lambda: ([_meta(2, 3)] * 4,),
    lambda: ([_meta(2, 3)] * 4, 1), lambda: ([_meta(5)], 0),
])
def test_stack_matches_pytorch_meta(args):
    _answers_as_pytorch(A.stack.default, args())


@pytest.mark.parametrize("func", [A.bitwise_and.Tensor, A.bitwise_or.Tensor,
                                  A.bitwise_xor.Tensor])
@pytest.mark.parametrize("args", [
    lambda: (_meta(dtype=torch.bool), _meta(1, 1, 16, 16, dtype=torch.bool)),
    lambda: (_meta(1, 1, 16, 16, dtype=torch.bool),
             _meta(1, 1, 1, 16, dtype=torch.bool)),
    lambda: (_meta(4, dtype=torch.int32), _meta(1, 4, dtype=torch.int64)),
])
def test_bitwise_matches_pytorch_meta(func, args):
    _answers_as_pytorch(func, args())


@pytest.mark.parametrize("args", [
    lambda: (_meta(64, 4, 128), _meta(1, 1, 128), 2),
    lambda: (_meta(64, 4, 128), _meta(64, 1, 1), 0),
    lambda: (_meta(8, 3, dtype=torch.float64),
             _meta(1, 3, dtype=torch.float64), 1),
])
def test_weight_norm_matches_pytorch_meta(args):
    _answers_as_pytorch(A._weight_norm_interface.default, args())


def test_list_and_mask_kernels_decline_what_they_do_not_cover():
    assert K[A.cumsum.default]((_meta(3, 4).t(), 0)) is None
    assert K[A.cumsum.default]((_meta(3, 4), 2)) is None
    assert K[A.stack.default](([_meta(2, 3), _meta(3, 2)],)) is None
    assert K[A.stack.default](([_meta(2, 3), _meta(2, 3).t().t()[:, :3]],
                               3)) is None                 # no such dim
    # a channels-last cat inside the rank: the reference's view of it
    assert K[A.stack.default](([_meta(2, 8, 5, 5, channels_last=True)] * 2,
                               1)) is None
    assert K[A.stack.default](([],)) is None
    assert K[A.bitwise_and.Tensor]((_meta(2), _meta(2))) is None  # floats
    assert K[A.bitwise_and.Tensor]((_meta(2, dtype=torch.bool),
                                    _meta(3, dtype=torch.bool))) is None
    wn = K[A._weight_norm_interface.default]
    assert wn((_meta(4, 3), _meta(4, 3), 0)) is None       # g not reduced
    assert wn((_meta(4, 3, dtype=torch.bfloat16),
               _meta(4, 1, dtype=torch.bfloat16), 0)) is None
    assert wn((_meta(4, 3), _meta(4, 1), 2)) is None
    assert wn((_meta(4, 3), _meta(1, 3), -1)) is None      # the whole norm


KW = fast_meta.KWARGS_2X


def _kw_answers_as_pytorch(func, args, kwargs):
    ours = KW[func](args, kwargs)
    assert ours is not None, (func, args, kwargs)
    _outputs_agree(ours, func(*args, **kwargs))


_ON_META = {"device": torch.device("meta"), "pin_memory": False}


@pytest.mark.parametrize("func,args,kwargs", [
    (A.gelu.default, lambda: (_meta(3, 4),), {"approximate": "tanh"}),
    (A.gelu.default, lambda: (_meta(3, 4).t(),), {"approximate": "none"}),
    (A.arange.default, lambda: (16,), _ON_META),
    (A.arange.default, lambda: (0,), _ON_META),
    (A.arange.default, lambda: (16,), dict(_ON_META, dtype=torch.float32)),
    (A.arange.start, lambda: (2, 17), _ON_META),
    (A.arange.start_step, lambda: (2, 17, 3), _ON_META),
    (A.arange.start_step, lambda: (10, -3, -4), _ON_META),
    (A.arange.start_step, lambda: (0, 16, 4), dict(_ON_META,
                                                   dtype=torch.int32)),
    (A.zeros_like.default, lambda: (_meta(1, 4, 128).transpose(1, 2),),
     dict(_ON_META, dtype=torch.float32)),
    (A.ones_like.default, lambda: (_meta(2, 3),), {"dtype": torch.int64}),
    (A.zeros_like.default, lambda: (_meta(2, 8, 3, 3, channels_last=True),),
     {"memory_format": torch.preserve_format}),
    (A.ones.default, lambda: ([16, 16],),
     dict(_ON_META, dtype=torch.bool, layout=torch.strided)),
    (A.zeros.default, lambda: ([3, 0, 2],), _ON_META),
    (A.zeros.default, lambda: ((),), dict(_ON_META, dtype=torch.int64)),
    (A.empty.memory_format, lambda: (torch.Size([2, 5]),),
     dict(_ON_META, dtype=torch.float16)),
    (A.new_ones.default, lambda: (_meta(2, dtype=torch.float16), [3, 4]),
     {"pin_memory": False}),
    (A.new_zeros.default, lambda: (_meta(2).t(), [1, 4, 1]),
     {"dtype": torch.int32, "device": "meta"}),
    (A.new_empty.default, lambda: (_meta(2, 3).t(), [0]), {"dtype": None}),
    (A.scalar_tensor.default, lambda: (3,), _ON_META),
    (A.scalar_tensor.default, lambda: (-1e4,),
     dict(_ON_META, dtype=torch.float16)),
    (A.scalar_tensor.default, lambda: (True,),
     dict(_ON_META, dtype=torch.bool)),
    (A.clone.default, lambda: (_meta(1, 16, 4, 16).transpose(1, 2),),
     {"memory_format": torch.contiguous_format}),
    (A.clone.default, lambda: (_meta(1, 2, 1, 16, 16).expand(1, 2, 2, 16, 16),),
     {"memory_format": torch.contiguous_format}),
    (A.clone.default, lambda: (_meta(2, 8, 3, 3, channels_last=True),),
     {"memory_format": torch.contiguous_format}),
    (A.clone.default, lambda: (_meta(2, 3),),
     {"memory_format": torch.preserve_format}),
])
def test_keyword_kernels_match_pytorch_meta(func, args, kwargs):
    _kw_answers_as_pytorch(func, args(), kwargs)


def test_keyword_kernels_decline_what_they_do_not_cover():
    assert KW[A.gelu.default]((_meta(3),), {"approximate": "erf"}) is None
    assert KW[A.gelu.default]((_meta(3, dtype=torch.int64),),
                              {"approximate": "tanh"}) is None
    arange = KW[A.arange.default]
    assert arange((16,), {"pin_memory": False}) is None       # on the CPU
    assert arange((16,), dict(_ON_META, device="cpu")) is None
    assert arange((16.5,), _ON_META) is None                  # a float end
    assert arange((True,), _ON_META) is None
    assert arange((16,), dict(_ON_META, dtype=torch.bool)) is None
    assert arange((300,), dict(_ON_META, dtype=torch.int8)) is None
    assert KW[A.arange.start_step]((0, 5, 0), _ON_META) is None
    assert KW[A.arange.start_step]((5, 0, 1), _ON_META) is None
    like = KW[A.zeros_like.default]
    assert like((_meta(2, 3),), {"memory_format":
                                 torch.contiguous_format}) is None
    assert like((_meta(2, 3),), {"device": "cpu"}) is None
    assert like((torch.zeros(2, 3),), {}) is None
    ones = KW[A.ones.default]
    assert ones(([2, 3],), {"dtype": torch.bool}) is None       # on the CPU
    assert ones(([-1, 3],), _ON_META) is None                   # PyTorch's
    assert ones(([2, 3],), dict(_ON_META, dtype=torch.complex64)) is None
    assert ones(([2.0, 3],), _ON_META) is None
    assert KW[A.empty.memory_format](
        ([2, 3],), dict(_ON_META, memory_format=torch.contiguous_format)) \
        is None
    new = KW[A.new_ones.default]
    assert new((torch.zeros(2), [3]), {"pin_memory": False}) is None
    assert new((_meta(2), [3]), {"device": "cpu"}) is None
    assert KW[A.scalar_tensor.default]((torch.tensor(2.0),), _ON_META) \
        is None
    assert KW[A.scalar_tensor.default]((2.0,), {"pin_memory": False}) is None
    clone = KW[A.clone.default]
    assert clone((_meta(2, 8, 3, 3),),
                 {"memory_format": torch.channels_last}) is None
    assert clone((_meta(2, 3).t(),),
                 {"memory_format": torch.preserve_format}) is None
    assert clone((torch.zeros(2, 3),),
                 {"memory_format": torch.contiguous_format}) is None


@pytest.mark.parametrize("seed", range(3))
def test_contiguous_clone_of_any_layout_is_pytorch_s(seed):
    """clone(x, memory_format=contiguous_format) (x.contiguous() of a
    strided x) over random shapes and strides: PyTorch's tensor exactly."""
    rng = random.Random(seed)
    clone = KW[A.clone.default]
    fmt = {"memory_format": torch.contiguous_format}
    for _ in range(200):
        shape = [rng.choice([0, 1, 1, 2, 3, 4])
                 for _ in range(rng.randint(0, 5))]
        x = _strided(rng, shape)
        ours, theirs = clone((x,), fmt), A.clone.default(x, **fmt)
        assert (ours.shape, ours.dtype, ours.stride()) == \
            (theirs.shape, theirs.dtype, theirs.stride()), \
            (shape, x.stride())


class _Keywords(torch.nn.Module):
    """Calls with keyword arguments: a tanh GELU, positions from arange,
    a state from zeros_like, a mask's cumsum and bitwise and, Mamba's
    softplus, a stack of heads, a causal mask from ones, a contiguous copy
    of a transposed tensor, a new_zeros state."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x, mask):
        h = torch.nn.functional.gelu(self.fc(x), approximate="tanh")
        pos = torch.arange(x.shape[1], device=x.device)
        ids = mask.long().cumsum(-1) * (mask & (pos < 5)[None]).long()
        state = torch.zeros_like(h, dtype=torch.float32)
        y = torch.stack([h, state, torch.nn.functional.softplus(h)], -1)
        n = x.shape[1]
        causal = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
        scores = (h @ h.transpose(1, 2).contiguous()).masked_fill(
            ~causal, -1e4)
        pad = h.new_zeros(h.shape[0], 1, h.shape[2])
        return y.sum() + ids.sum() + scores.sum() + torch.cat([h, pad], 1).sum()


def test_recording_keyword_calls_is_unchanged_by_the_kernels():
    m = _Keywords().eval()
    x, mask = torch.zeros(1, 6, 8), torch.ones(1, 6, dtype=torch.bool)
    tables = (fast_meta.FAST_META, fast_meta.FAST_META_KW)
    saved = [dict(t) for t in tables]
    try:
        tables[0].update(K)
        tables[1].update(KW)
        fast = recorder.record_model(m, (x, mask))
        for t in tables:
            t.clear()
        slow = recorder.record_model(m, (x, mask))
    finally:
        for t, s in zip(tables, saved):
            t.clear()
            t.update(s)

    def seen(rec):  # the graph, and the real values the masks may take
        g, value = rec.graph, rec.builder.shadows.value
        known = {n: value(t) for n, t in g.tracked.items()}
        return (g.nodes, g.values, g.inits, {
            n: None if v is None else (v.dtype, v.tolist())
            for n, v in known.items()})
    assert seen(fast) == seen(slow)


def test_layer_scale_times_a_permuted_output_matches_pytorch_meta():
    """ConvNeXt's layer scale: a (C, 1, 1) parameter times the block's
    output permuted back to N, C, H, W."""
    y = _meta(2, 7, 7, 8).permute(0, 3, 1, 2)
    _same_as_pytorch(A.mul.Tensor, (_meta(8, 1, 1), y))
    _same_as_pytorch(A.add.Tensor, (_meta(), y))
    assert K[A.mul.Tensor]((_meta(8, 7, 1), y)) is None  # two dims of its own


@pytest.mark.parametrize("func", [A.add_.Tensor, A.sub_.Tensor,
                                  A.mul_.Tensor, A.div_.Tensor])
@pytest.mark.parametrize("args", [
    lambda: (_meta(1, 8, 5, 5), _meta(8, 1, 1)),
    lambda: (_meta(1, 8, 5, 5).permute(0, 2, 3, 1), _meta(8)),
    lambda: (_meta(2, 3), 2.5), lambda: (_meta(2, 3), torch.tensor(2)),
    lambda: (_meta(2, 3, dtype=torch.bfloat16), _meta(2, 3)),
    lambda: (_meta(2, 3), _meta(3, dtype=torch.int64)),
])
def test_inplace_binary_matches_pytorch_meta(func, args):
    a = args()
    ours = K[func](a)
    assert ours is a[0]
    theirs = func(*a)
    assert (ours.shape, ours.dtype, ours.stride()) == \
        (theirs.shape, theirs.dtype, theirs.stride())


def test_inplace_binary_declines_what_it_does_not_cover():
    f = K[A.add_.Tensor]
    assert f((_meta(1, 8, 1, 1), _meta(1, 8, 5, 5))) is None   # would grow
    assert f((_meta(2, dtype=torch.int64), _meta(2))) is None  # int a
    assert f((_meta(2), _meta(2, dtype=torch.bool))) is None
    assert f((_meta(2), _meta(2), True)) is None               # alpha a bool
    assert f((torch.empty(2), _meta(2))) is None
    assert f((_meta(2), torch.empty(2))) is None               # a CPU b
    x = _meta(4, 3)
    assert f((x[1:], x[:-1])) is None                  # partly a's memory
    assert f((_meta(1, 3).expand(4, 3), _meta(3))) is None  # stride 0
    assert f((x, x)) is x                                      # x += x
