"""The mask cases of test_masked_attention.py in float32, bfloat16 and
float16 (issue 40.1), on meta and on the CPU: a mask's fill (-inf or the
dtype's finfo.min) is a scalar of the scores' dtype, and its value must
reach the library in every float dtype, not in float32 alone. Reference:
the pairs each mask allows, counted from the mask's definition, each costing
E (Q.K^T) + Ev (P.V) multiply-accumulates, the same as in float32."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from nnscan import torch_api  # noqa: E402

B, T, D, H = 2, 10, 16, 4
E = D // H
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
DEVICES = ["meta"]


def _fill(kind, dtype):
    return float("-inf") if kind == "inf" else torch.finfo(dtype).min


class Manual(nn.Module):
    """Attention by hand: matmul, masked_fill(~keep, fill), softmax, matmul;
    keep is causal within a window, from arange, and the caller's 0/1 key
    padding (BERT's form, additive) when given."""

    def __init__(self, window, fill):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.window, self.fill = window, fill

    def forward(self, x, am=None):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, E).permute(2, 0, 3, 1, 4)
        s = torch.matmul(q, k.transpose(-1, -2)) / E ** 0.5
        i = torch.arange(t, device=x.device)
        keep = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < self.window)
        fill = _fill(self.fill, s.dtype)
        s = s.masked_fill(~keep, fill)
        if am is not None:
            s = s.masked_fill(am[:, None, None, :] == 0, fill)
        return torch.matmul(torch.softmax(s.float(), dim=-1).to(v.dtype), v)


class GivenMask(nn.Module):
    """An additive mask built in the model's dtype from the caller's 0/1
    padding mask as transformers builds LLaMA's (causal and left padding:
    0 where allowed, the dtype's min elsewhere), added to the scores."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)

    def forward(self, x, am):
        b, t, _ = x.shape
        i = torch.arange(t, device=x.device)
        keep = (i[None, :] <= i[:, None])[None, None] & (am[:, None, None, :] == 1)
        mask = torch.zeros(b, 1, t, t, dtype=x.dtype, device=x.device)
        mask = mask.masked_fill(~keep, torch.finfo(x.dtype).min)
        q, k, v = self.qkv(x).view(b, t, 3, H, E).permute(2, 0, 3, 1, 4)
        s = torch.matmul(q, k.transpose(-1, -2)) / E ** 0.5 + mask
        return torch.matmul(torch.softmax(s.float(), dim=-1).to(v.dtype), v)


def _left_out(allowed):
    allowed = allowed.expand(B, H, T, T)
    return (allowed.numel() - int(allowed.sum())) * 2 * E


def _window(w):
    i = torch.arange(T)
    return (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < w)


def _totals(model, dtype, device, *args):
    model = model.to(dtype)
    return torch_api.analyze_module(model, args, device=device).totals


def _cpu_runs(dtype, device):
    """Whether this PyTorch runs the forward of dtype on the CPU (1.13 has
    no float16 matmul there); meta needs no kernel."""
    if device == "meta":
        return True
    try:
        torch.matmul(torch.ones(2, 2, dtype=dtype), torch.ones(2, 2, dtype=dtype))
        return True
    except RuntimeError:
        return False


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fill", ["inf", "min"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_window_from_arange(dtype, fill, device):
    if not _cpu_runs(dtype, device):
        pytest.skip("no %s matmul on this PyTorch's CPU" % dtype)
    x = torch.randn(B, T, D, dtype=dtype)
    t = _totals(Manual(4, fill), dtype, device, x)
    assert t["macs"] - t["macs_unmasked"] == _left_out(_window(4))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_window_and_padding_given(dtype, device):
    if not _cpu_runs(dtype, device):
        pytest.skip("no %s matmul on this PyTorch's CPU" % dtype)
    am = torch.ones(B, T, dtype=torch.long)
    am[1, 7:] = 0  # right padding, row 1
    x = torch.randn(B, T, D, dtype=dtype)
    t = _totals(Manual(3, "inf"), dtype, device, x, am)
    keep = _window(3)[None, None] & (am == 1)[:, None, None, :]
    assert t["macs"] - t["macs_unmasked"] == _left_out(keep)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_left_padding_additive_mask_in_dtype(dtype, device):
    """The additive mask is a tensor of the model's dtype, so its values
    (0 and finfo.min, 16-bit in bf16/fp16) reach the library as bytes of
    that dtype."""
    if not _cpu_runs(dtype, device):
        pytest.skip("no %s matmul on this PyTorch's CPU" % dtype)
    am = torch.ones(B, T, dtype=torch.long)
    am[0, :3] = 0  # left padding, row 0
    keep = _window(T)[None, None] & (am == 1)[:, None, None, :]
    x = torch.randn(B, T, D, dtype=dtype)
    t = _totals(GivenMask(), dtype, device, x, am)
    assert t["macs"] - t["macs_unmasked"] == _left_out(keep)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_multihead_attention_masks(dtype, device):
    if not _cpu_runs(dtype, device):
        pytest.skip("no %s matmul on this PyTorch's CPU" % dtype)
    mha = nn.MultiheadAttention(D, H, batch_first=True)
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

    x = torch.randn(B, T, D, dtype=dtype)
    t = _totals(M(), dtype, device, x, causal, kpm)
    keep = ~causal[None, None] & ~kpm[:, None, None, :]
    assert t["macs"] - t["macs_unmasked"] == _left_out(keep)


@pytest.mark.skipif(not hasattr(F, "scaled_dot_product_attention"),
                    reason="F.scaled_dot_product_attention is PyTorch 2.x")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_sdpa_bool_mask_input(dtype, device):
    """Issue 40.1's reproducer: a boolean mask given to SDPA as an input."""
    if not _cpu_runs(dtype, device):
        pytest.skip("no %s matmul on this PyTorch's CPU" % dtype)

    class M(nn.Module):
        def forward(self, q, k, v, m):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=m)

    q = torch.randn(B, H, T, E, dtype=dtype)
    keep = _window(4)[None, None].expand(B, 1, T, T)
    t = _totals(M(), dtype, device, q, q, q, keep)
    assert t["macs"] - t["macs_unmasked"] == _left_out(keep)
