"""Ops met in multimodal models (issue 40, item 3): antialiased bilinear
resize, index_put, and the complex multiply of 2-D rotary embeddings whose
frequencies are a complex buffer or constant. Each is counted (nothing
uncounted), with figures from independent references."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nnscan  # noqa: E402


def _complete(s):
    assert s.json["uncounted_ops"] == [], s.json["uncounted_ops"]
    assert s.uncounted_aten == {}


def _aa_taps(n, m):
    """The input points each output of an antialiased bilinear resize of
    one axis reads, summed: the nonzero weights of PyTorch's own kernel,
    read off by resizing one-hot rows on the CPU."""
    eye = torch.eye(n).reshape(1, n, 1, n)          # channel c: one-hot at c
    y = F.interpolate(eye, size=(1, m), mode="bilinear", antialias=True,
                      align_corners=False)
    return int((y != 0).sum())


class AA(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def forward(self, x):
        return F.interpolate(x, size=self.size, mode="bilinear",
                             antialias=True, align_corners=False)


@pytest.mark.parametrize("hw,out", [((10, 12), (5, 6)), ((9, 20), (4, 7)),
                                    ((6, 8), (12, 8))])
def test_antialiased_bilinear(hw, out):
    """PyTorch's separable passes: the last axis first (over the input's
    rows), then the height (over the output's columns); per tap a weigh
    and an add (2 FLOPs, as bilinear's 4 for its 2 taps)."""
    N, C = 1, 2
    (H, W), (h, w) = hw, out
    s = nnscan.summary(AA(out), (C, H, W), file=False)
    _complete(s)
    want = 0
    if w != W:
        want += 2 * N * C * H * _aa_taps(W, w)
    if h != H:
        want += 2 * N * C * w * _aa_taps(H, h)
    assert s.totals["flops"] == want


class Masked(torch.nn.Module):
    def forward(self, x, m):
        y = x.clone()
        y[m] = 0.0
        return y


class Accumulate(torch.nn.Module):
    def forward(self, x, i, v):
        return x.index_put((i,), v, accumulate=True)


def test_index_put():
    s = nnscan.summary(Masked(), inputs=(torch.randn(3, 4),
                                         torch.rand(3, 4) > 0.5), file=False)
    _complete(s)
    s = nnscan.summary(Accumulate(), inputs=(torch.randn(5, 4),
                                             torch.tensor([0, 2]),
                                             torch.randn(2, 4)), file=False)
    _complete(s)
    assert s.totals["flops"] == 2 * 4   # accumulate: one add per value


class Rotary2D(torch.nn.Module):
    """Frequencies as a complex buffer (or a plain attribute), the query
    viewed as complex and multiplied: how 2-D rotary embeddings of vision
    towers apply them."""

    def __init__(self, buffer):
        super().__init__()
        fr = torch.polar(torch.ones(4, 2), torch.randn(4, 2))
        if buffer:
            self.register_buffer("fr", fr, persistent=False)
        else:
            self.fr = fr

    def forward(self, x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * self.fr).flatten(-2)


def test_complex_mul_with_complex_constant():
    """A complex multiply is 6 FLOPs per complex element (4 multiplies,
    2 adds); x [1, 4, 4] is 8 complex elements."""
    s = nnscan.summary(Rotary2D(False), inputs=(torch.randn(1, 4, 4),),
                       file=False)
    _complete(s)
    assert s.totals["flops"] == 6 * 8
    assert s.totals["params_total"] == 0


def test_complex_buffer_keeps_its_elements():
    """A complex buffer keeps its 8 complex elements (64 bytes); its
    multiply is not yet counted, and the report says so (not a silent
    number)."""
    s = nnscan.summary(Rotary2D(True), inputs=(torch.randn(1, 4, 4),),
                       file=False)
    assert s.totals["params_total"] == 8
    assert s.totals["param_bytes"] == 64
    assert s.uncounted_aten == {"mul": 1}
