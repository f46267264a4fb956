"""The recorder's cheaper meta kernels (recorder._FAST_META) give exactly
what PyTorch's own meta kernel gives: the same outputs' shapes, dtypes and
strides, compared with the op run on meta tensors outside any recording;
and they decline (None) whatever they do not cover."""
import pytest
import torch

from nnscan import recorder

BN = torch.ops.aten.native_batch_norm.default


def _meta(*shape, dtype=torch.float32, channels_last=False):
    t = torch.empty(shape, dtype=dtype, device="meta")
    return t.to(memory_format=torch.channels_last) if channels_last else t


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


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_norm_eval_matches_pytorch_meta(case, affine):
    x, c, sdt = CASES[case]()
    w = _meta(c, dtype=sdt) if affine else None
    b = _meta(c, dtype=sdt) if affine else None
    args = (x, w, b, _meta(c, dtype=sdt), _meta(c, dtype=sdt), False, 0.1,
            1e-5)
    ours = recorder._batch_norm_eval_meta(args)
    theirs = BN(*args)
    assert ours is not None
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.is_meta
        assert (o.shape, o.dtype) == (t.shape, t.dtype)
        # strides of size-1 dims carry no layout
        assert [s for s, d in zip(o.stride(), o.shape) if d > 1] == \
            [s for s, d in zip(t.stride(), t.shape) if d > 1]


def test_batch_norm_declines_what_it_does_not_cover():
    x = _meta(2, 8, 5, 5)
    s = _meta(8)
    fast = recorder._batch_norm_eval_meta
    assert fast((x, s, s, s, s, True, 0.1, 1e-5)) is None      # training
    assert fast((x, s, s, _meta(7), s, False, 0.1, 1e-5)) is None  # C
    assert fast((x, s, s, None, None, False, 0.1, 1e-5)) is None
    assert fast((x[:, :, ::2], s, s, s, s, False, 0.1, 1e-5)) is None
    assert fast((torch.empty(2, 8, 5, 5), s, s, s, s, False, 0.1,
                 1e-5)) is None                                  # not meta
    assert fast((x.long(), s, s, s, s, False, 0.1, 1e-5)) is None


def test_recording_counts_batch_norm_as_before():
    """A BatchNorm model records the same graph with the cheap kernel as
    with PyTorch's: compared by turning the table off."""
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8),
                            torch.nn.ReLU(), torch.nn.BatchNorm2d(8))
    x = torch.zeros(1, 3, 16, 16)
    fast = recorder.record_model(m, (x,)).graph
    saved = dict(recorder._FAST_META)
    recorder._FAST_META.clear()
    try:
        slow = recorder.record_model(m, (x,)).graph
    finally:
        recorder._FAST_META.update(saved)
    assert fast.nodes == slow.nodes
    assert fast.values == slow.values
    assert fast.inits == slow.inits


ELEMENTWISE = ["hardswish", "hardsigmoid"]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("op", ELEMENTWISE)
@pytest.mark.parametrize("case", ["2d", "channels_last", "batch1_1x1",
                                  "1d_features", "bfloat16",
                                  "half_input_float_stats"])
def test_elementwise_matches_pytorch_meta(op, inplace, case):
    x = CASES[case]()[0]
    func = getattr(torch.ops.aten, op + ("_" if inplace else "")).default
    ours = recorder._FAST_META[func]((x,))
    theirs = func(x.clone() if inplace else x)
    assert ours is not None
    if inplace:
        assert ours is x
    assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
    assert [s for s, d in zip(ours.stride(), ours.shape) if d > 1] == \
        [s for s, d in zip(theirs.stride(), theirs.shape) if d > 1]


def test_elementwise_declines_what_it_does_not_cover():
    fast = recorder._FAST_META[torch.ops.aten.hardswish.default]
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
    fast = recorder.record_model(m, (x,)).graph
    saved = dict(recorder._FAST_META)
    recorder._FAST_META.clear()
    try:
        slow = recorder.record_model(m, (x,)).graph
    finally:
        recorder._FAST_META.update(saved)
    assert fast.nodes == slow.nodes
    assert fast.values == slow.values
