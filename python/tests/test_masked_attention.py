"""macs_unmasked of attention written by hand and of nn.MultiheadAttention
(issue 20.1), on PyTorch 1.13 and 2.x: the masks are built in forward from
arange comparisons or given by the caller, and recorded on meta with their
values tracked. Reference: the pairs each mask allows, counted in the test
from the mask's definition, each costing E (Q.K^T) + Ev (P.V)
multiply-accumulates; macs must stay the dense count."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

from nnscan import torch_api  # noqa: E402

B, T, D, H = 2, 10, 16, 4


class Eager(nn.Module):
    """softmax(q k^T / sqrt(e) masked_fill(~keep, -inf)) v, keep from arange
    (causal within a window), the scores through matmul as in eager code."""

    def __init__(self, window):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.window = window

    def forward(self, x, am=None):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, D // H).permute(2, 0, 3, 1, 4)
        s = torch.matmul(q, k.transpose(-1, -2)) / (D // H) ** 0.5
        i = torch.arange(t, device=x.device)
        keep = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < self.window)
        s = s.masked_fill(~keep, float("-inf"))
        if am is not None:  # BERT's additive key padding from a 0/1 mask
            s = s + (1.0 - am[:, None, None, :].to(s.dtype)) * -10000.0
        return torch.matmul(torch.softmax(s, dim=-1), v)


def _totals(model, *args):
    return torch_api.analyze_module(model, args).totals


def _left_out(allowed):
    """MACs the masks leave out: allowed broadcast to [B, H, T, T]."""
    allowed = allowed.expand(B, H, T, T)
    e = D // H
    return (allowed.numel() - int(allowed.sum())) * 2 * e


def test_eager_window_from_arange():
    t = _totals(Eager(window=4), torch.randn(B, T, D))
    i = torch.arange(T)
    keep = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < 4)
    assert t["macs"] - t["macs_unmasked"] == _left_out(keep)


def test_eager_window_and_padding_given():
    am = torch.ones(B, T, dtype=torch.long)
    am[1, 7:] = 0  # right padding, row 1
    t = _totals(Eager(window=3), torch.randn(B, T, D), am)
    i = torch.arange(T)
    keep = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < 3)
    keep = keep[None, None] & (am == 1)[:, None, None, :]
    assert t["macs"] - t["macs_unmasked"] == _left_out(keep)


def test_multihead_attention_masks():
    """nn.MultiheadAttention: attn_mask True = not allowed (its docs), and
    key_padding_mask; the slow path (autograd on) as the recorder runs it."""
    mha = nn.MultiheadAttention(D, H, batch_first=True)
    x = torch.randn(B, T, D)
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    kpm = torch.zeros(B, T, dtype=torch.bool)
    kpm[0, :2] = True

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def forward(self, x, am, kpm):
            return self.mha(x, x, x, attn_mask=am, key_padding_mask=kpm,
                            need_weights=False)[0]

    t = _totals(M(), x, causal, kpm)
    keep = ~causal[None, None] & ~kpm[:, None, None, :]
    assert t["macs"] - t["macs_unmasked"] == _left_out(keep)


def test_torch_tensor_left_as_it_was():
    """The recording wraps torch.tensor / torch.as_tensor for a meta
    `torch.tensor(0.0, device=...)` to keep its value (shadow.py), and puts
    PyTorch's own functions back, also when the forward raises."""
    tensor, as_tensor = torch.tensor, torch.as_tensor

    class Fails(nn.Module):
        def forward(self, x):
            torch.tensor(0.0, device=x.device)
            raise ValueError("the forward's own error")

    _totals(Eager(window=2), torch.randn(B, T, D))
    with pytest.raises(ValueError):
        _totals(Fails(), torch.randn(B, T, D))
    assert torch.tensor is tensor and torch.as_tensor is as_tensor


def test_shared_mask_values_copy_on_write():
    """Masks built the same way are computed once and shared on the meta
    path (shadow.py's memo); a write in place into one, directly or through
    a view, must not reach the others. The values steer the output's shape
    (read with .item()), compared with the real forward's."""
    from nnscan import recorder

    class M(nn.Module):
        def forward(self, x):
            a = torch.ones(6, 6, dtype=torch.bool, device=x.device).tril()
            b = torch.ones(6, 6, dtype=torch.bool, device=x.device).tril()
            c = torch.ones(6, 6, dtype=torch.bool, device=x.device).tril()
            b[:, :2].fill_(False)  # through a view
            c.zero_()
            d = torch.ones(6, 6, dtype=torch.bool, device=x.device).tril()
            n = [int(t.sum().item()) for t in (a, b, c, d)]
            return x.new_zeros(n[0], n[1] + 1, n[2] + 1, n[3])

    x = torch.randn(2)
    want = list(M()(x).shape)
    assert want == [21, 11, 1, 21]  # 21 - 6 - 5 for b
    rec = recorder.record_model(M(), (x,), {}, device="meta")
    assert list(rec.outputs.shape) == want


class Plain(nn.Module):
    """Eager's attention without any mask."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, D // H).permute(2, 0, 3, 1, 4)
        s = torch.matmul(q, k.transpose(-1, -2)) / (D // H) ** 0.5
        return torch.matmul(torch.softmax(s, dim=-1), v)


class MaskedBesidePlain(nn.Module):
    def __init__(self):
        super().__init__()
        self.masked = Eager(window=4)
        self.plain = Plain()

    def forward(self, x):
        return self.masked(x) + self.plain(x)


def test_unmasked_layer_beside_masked_one_says_equal():
    """Issue 40, item 4: the layer whose attention has no mask reports
    macs_unmasked == macs (a number, not absent), in both JSON versions;
    the masked one its pairs left out. By hand: qkv B*T*D*3D, each of the
    two products B*H*T*T*e."""
    import nnscan
    s = nnscan.summary(MaskedBesidePlain(), inputs=torch.randn(B, T, D),
                       file=False)
    e = D // H
    dense = B * T * D * 3 * D + 2 * B * H * T * T * e
    i = torch.arange(T)
    keep = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < 4)
    plain, masked = s.layer("plain"), s.layer("masked")
    assert plain["macs"] == masked["macs"] == dense
    assert plain["macs_unmasked"] == dense
    assert plain["flops_unmasked"] == plain["flops"]
    assert masked["macs_unmasked"] == dense - _left_out(keep)
    assert s.totals["macs_unmasked"] == 2 * dense - _left_out(keep)
    rows = {r["path"]: r for r in s.v2["layers"]}
    assert rows["plain"]["macs_unmasked"] == dense
    assert rows["masked"]["macs_unmasked"] == dense - _left_out(keep)


class CutInPlace(nn.Module):
    """Two eager attentions sharing a key mask from the caller's lengths,
    cut in place between them by a mask made on the CPU (`keep &= i < 6`:
    a meta kernel refuses the two devices, so the recorder computes it
    from the values): the first sees the mask before the cut, the second
    after it."""

    def forward(self, x, lengths):
        b, t, _ = x.shape
        i = torch.arange(t)
        keep = i[None, :] < lengths[:, None]          # [B, T] on meta

        def attend(x):
            s = torch.matmul(x, x.transpose(-1, -2))   # [B, T, T]
            s = s.masked_fill(~keep[:, None, :], float("-inf"))
            return torch.matmul(torch.softmax(s, dim=-1), x)
        x = attend(x)
        keep &= i < 6                                  # in place
        return attend(x)


def test_a_mask_cut_in_place_is_read_before_and_after_the_cut():
    lengths = torch.tensor([T, 8])
    t = _totals(CutInPlace(), torch.randn(B, T, D), lengths)
    i = torch.arange(T)
    before = i[None, :] < lengths[:, None]              # [B, T] keys
    after = before & (i < 6)
    # each allowed (query, key) pair costs D in each product
    allowed = (int(before.sum()) + int(after.sum())) * T
    assert t["macs"] == 2 * 2 * B * T * T * D
    assert t["macs_unmasked"] == 2 * allowed * D
