"""summary(..., training=True) on PyTorch 1.13 and 2.x: what each version
does with it, and arguments refused on both. The figures are checked on
PyTorch 2.x (tests_hf/test_train_step.py: counted by hand on a small MLP,
and against real steps of a transformer and a CNN)."""
import pytest
import torch

from conftest import training_mlp_summary as run


def test_training_needs_storage_objects():
    """PyTorch 2.x keeps one Python object per storage, which is how the
    step tells storages apart on meta; 1.13 does not, and says so."""
    if hasattr(torch.Tensor, "untyped_storage"):
        assert run().totals["training"]["estimate"] is False
    else:
        with pytest.raises(RuntimeError, match="needs PyTorch 2"):
            run()


def test_bad_arguments():
    with pytest.raises(ValueError, match="optimizer"):
        run(optimizer="lion")
    with pytest.raises(ValueError, match="budget"):
        run(budget="lots")
    # Issue 47: one range check, before anything reaches ctypes' int64.
    for bad in (2 ** 64, 2 ** 64 + 5, 2 ** 63, 0, -1, "99999999999T"):
        with pytest.raises(ValueError, match=r"bytes is not from 1 to 2\*\*63 - 1"):
            run(budget=bad)
    for bad in (float("inf"), float("nan")):
        with pytest.raises(ValueError, match="not a number of bytes"):
            run(budget=bad)
    with pytest.raises(TypeError, match="budget"):
        run(budget=True)
    with pytest.raises(ValueError, match="method='record'"):
        run(method="onnx")
    with pytest.raises(ValueError, match="backward=True"):
        run(backward=True)
