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
    """A complex buffer keeps its 8 complex elements (64 bytes), and its
    multiply is counted as the constant's: 6 FLOPs for each of the 8
    complex products."""
    s = nnscan.summary(Rotary2D(True), inputs=(torch.randn(1, 4, 4),),
                       file=False)
    assert s.totals["params_total"] == 8
    assert s.totals["param_bytes"] == 64
    _complete(s)
    assert s.totals["flops"] == 6 * 8


class MetaRotary(torch.nn.Module):
    """Rotary embeddings as LLaMA-1's reference code applies them (Meta's
    llama model.py): a complex `freqs_cis` table for twice the sequence,
    sliced to the sequence and reshaped to broadcast over the heads, times
    the queries and keys viewed as complex."""

    def __init__(self, buffer, dim=8, t=16):
        super().__init__()
        f = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        ang = torch.outer(torch.arange(t).float(), f)
        fc = torch.polar(torch.ones_like(ang), ang)
        if buffer:
            self.register_buffer("freqs_cis", fc, persistent=False)
        else:
            self.freqs_cis = fc

    def forward(self, xq, xk):
        b, t, h, d = xq.shape
        fc = self.freqs_cis[:t].view(1, t, 1, d // 2)
        out = []
        for x in (xq, xk):
            xc = torch.view_as_complex(x.float().reshape(b, t, h, -1, 2))
            out.append(torch.view_as_real(xc * fc).flatten(3).type_as(x))
        return out


@pytest.mark.parametrize("buffer", [True, False], ids=["buffer", "attr"])
def test_complex_mul_llama1_freqs_cis(buffer):
    """By hand: queries and keys [2, 8, 4, 8] are 2 * 8 * 4 * 4 complex
    elements each, and each complex product costs 6 FLOPs; nothing else
    in the forward computes (views, a slice, casts to the same dtype)."""
    xq, xk = torch.randn(2, 8, 4, 8), torch.randn(2, 8, 4, 8)
    s = nnscan.summary(MetaRotary(buffer), inputs=(xq, xk), file=False)
    _complete(s)
    assert s.totals["flops"] == 2 * 6 * (2 * 8 * 4 * 4)
    assert s.totals["params_total"] == (16 * 4 if buffer else 0)
