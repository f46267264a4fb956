"""Matrix products of mixed floating operands, as PyTorch's meta kernels
run them: float32 activations into a bfloat16 model (transformers' ctrl,
fnet and mra do so when built in bfloat16). The meta kernels of addmm and mm
take the pair and give the promoted dtype (float32; the meta bmm refuses
it); nnscan records them with the operand Cast in the op's kernel.
(PyTorch 1.13's meta addmm refuses the pair: skipped there.)

References, independent of nnscan: FlopCounterMode's matrix-product count
on a float32 CPU copy of the same model (the count does not depend on the
dtype) and the same count by hand; the bytes counted by hand (each
product reads its operands in their own dtypes and writes its float32
output: the Cast moves nothing of its own).
"""
import copy

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import nnscan  # noqa: E402

MATMUL_OPS = ("MatMul", "Gemm")


class Mixed(nn.Module):
    """addmm (Linear with bias), mm with t(W) (Linear without) and mm
    (x @ W), each fed float32 activations. (The meta bmm refuses mixed
    operands, as every CPU kernel does.)"""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 16)
        self.b = nn.Linear(16, 12, bias=False)
        self.w = nn.Parameter(torch.randn(12, 6))

    def forward(self, x):
        h = self.b(self.a(x))
        return h @ self.w


def _meta_runs_mixed():
    """Whether this PyTorch's meta kernels take the mixed products (2.x;
    1.13's meta addmm refuses them, as every CPU kernel does)."""
    model = Mixed().to(device="meta", dtype=torch.bfloat16)
    try:
        return model(torch.zeros(2, 3, 8, device="meta")).dtype \
            == torch.float32
    except RuntimeError:
        return False


@pytest.mark.skipif(not _meta_runs_mixed(),
                    reason="this PyTorch's meta kernels refuse mixed dtypes")
def test_mixed_dtype_linear_bf16_on_meta():
    torch.manual_seed(0)
    cpu = Mixed()
    x = torch.zeros(2, 3, 8)
    ref = 2 * 3 * 8 * 16 + 6 * 16 * 12 + 6 * 12 * 6  # by hand
    from torch.utils.flop_counter import FlopCounterMode  # 2.x, as the skip
    with FlopCounterMode(display=False) as fc:
        cpu(x)
    assert fc.get_total_flops() // 2 == ref

    model = copy.deepcopy(cpu).to(device="meta", dtype=torch.bfloat16)
    x_meta = x.to("meta")  # float32 activations
    assert model(x_meta).dtype == torch.float32  # what PyTorch runs
    s = nnscan.summary(model, inputs=(x_meta,), file=False)
    ops = {o["op_type"]: o for o in s.json["op_types"]}
    assert sum(o["macs"] for t, o in ops.items() if t in MATMUL_OPS) == ref
    assert s.totals["macs"] == ref
    assert s.totals["params"] == sum(p.numel() for p in cpu.parameters())
    # x float32 read, W and bias bfloat16 read, float32 written, per product
    f4, b2 = 4, 2
    by_hand = ((6 * 8 * f4 + 16 * 8 * b2 + 16 * b2 + 6 * 16 * f4)
               + (6 * 16 * f4 + 12 * 16 * b2 + 6 * 12 * f4)
               + (6 * 12 * f4 + 12 * 6 * b2 + 6 * 6 * f4))
    assert s.totals["bytes"] == by_hand  # the Casts add nothing
