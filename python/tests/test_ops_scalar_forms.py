"""Overloads whose operand is a number (xlogy's Self_Scalar and
Scalar_Other): the Log or the compare of a number is 0-d, as the
library infers it (and as the C aten table lowers it for .pt2 files), so
the recording declares no shape PyTorch and the library disagree on."""
import warnings

import pytest

torch = pytest.importorskip("torch")

import nnscan  # noqa: E402
from nnscan.torch_api import ShapeMismatch  # noqa: E402


class _Xlogy(torch.nn.Module):
    def __init__(self, scalar_first):
        super().__init__()
        self.scalar_first = scalar_first

    def forward(self, x):
        return torch.xlogy(3.0, x) if self.scalar_first else torch.xlogy(x, 2.0)


@pytest.mark.parametrize("scalar_first", [False, True],
                         ids=["Scalar_Other", "Self_Scalar"])
def test_xlogy_with_a_number_has_no_shape_mismatch(scalar_first):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ShapeMismatch)
        s = nnscan.summary(_Xlogy(scalar_first), inputs=(torch.rand(2, 3, 4),))
    assert s.totals["macs"] == 0
    assert s.totals["params"] == 0

