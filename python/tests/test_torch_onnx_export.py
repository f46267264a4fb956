"""Models exported by PyTorch's own torch.onnx count as nnscan.summary counts
the same live model (issue 44 item 4).

The exporter here is the one PyTorch 2.x ships without onnxscript (Debian's
python3-torch: the TorchScript-based torch.onnx.export, dynamo=False, up to
opset 20; the torch.export-based one needs onnxscript, which Debian does
not package). Each model is exported at the newest opset that exporter
writes and at 17, then analysed from the file, and compared with
nnscan.summary of the model itself (recorded on meta) and with PyTorch's
own sum(p.numel()).
"""
import io
import os
import tempfile

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

import nnscan  # noqa: E402

if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("torch.onnx on PyTorch 2.x (the sid chroot's 2.14)",
                allow_module_level=True)

nn = torch.nn


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        x = torch.relu(self.conv2(x))
        return self.fc(x.mean((2, 3)))


class Attn(nn.Module):
    """One pre-norm decoder block: causal SDPA, GELU MLP."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
                   for t in (q, k, v))
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


class Norms(nn.Module):
    """Vector norms of orders with no ONNX reduction of their own (3, inf,
    -inf, 0.5): Abs then Pow, ReduceSum, Pow, or ReduceMax / ReduceMin."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        h = self.fc(x)
        return (torch.linalg.vector_norm(h, 3, dim=1) +
                torch.linalg.vector_norm(h, float("inf"), dim=1) +
                torch.linalg.vector_norm(h, -float("inf"), dim=1) +
                torch.linalg.vector_norm(h, 0.5, dim=1))


CASES = {
    "norms": (Norms, (4, 16)),
    "mlp": (Mlp, (4, 32)),
    "cnn": (Cnn, (2, 3, 16, 16)),
    "attn": (Attn, (2, 8, 32)),
}


def exported(model, shape, opset):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        # no constant folding: in eval mode it folds BatchNorm into Conv
        torch.onnx.export(model, (torch.randn(*shape),), path, dynamo=False,
                          opset_version=opset, do_constant_folding=False)
        return nnscan.analyze(path)


def op_flops(s, op):
    return sum(r["flops"] for r in s.json["op_types"] if r["op_type"] == op)


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("name", sorted(CASES))
def test_export_counts_as_summary(name, opset):
    cls, shape = CASES[name]
    torch.manual_seed(0)
    model = cls().eval()
    onnx_s = exported(model, shape, opset)
    live = nnscan.summary(model, inputs=torch.randn(*shape), file=False)
    numel = sum(p.numel() for p in model.parameters())
    assert onnx_s.totals["params"] == numel == live.totals["params"]
    assert onnx_s.totals["macs"] == live.totals["macs"]
    flops = onnx_s.totals["flops"]
    if name == "norms":
        # the exported graph divides 1 by the order for the outer Pow (a
        # Div of one element per order 3 and 0.5), where nnscan writes
        # 1/p as the constant PyTorch's own formula has
        assert op_flops(onnx_s, "Div") == 2
        flops -= 2
    if name == "attn":
        if opset < 20:
            # below opset 20 the exporter spells GELU out (Erf, Div, Add,
            # two Mul: 10 FLOPs an element where Gelu is 8): another graph
            return
        # the exported graph works out SDPA's scale from Q's shape, 1 /
        # sqrt(head): a Sqrt and a Div of one element (PyTorch does it in
        # Python); nothing else divides or takes a root
        flops -= op_flops(onnx_s, "Sqrt") + op_flops(onnx_s, "Div")
        assert 0 < op_flops(onnx_s, "Sqrt") + op_flops(onnx_s, "Div") <= 8
    assert flops == live.totals["flops"]
