"""A weight's transpose in a torch.export archive (docs/pt2.md, "A
weight's transpose"). Run in the live recording, F.linear is t(W) then
addmm or mm, and the recording folds t(W) into the Gemm (transB): no node
moves the weight. An exported program keeps aten.linear, but one run
through run_decompositions() (the core ATen set that ExecuTorch and
other deployment flows save) holds permute(W, [1, 0]) then addmm or mm.
The .pt2 reader folds that permute as the recording folds t(W), so the
CLI's report of either archive equals nnscan.summary of the live module:
every total and op-type row, and no Transpose where only products read
the transposed weight. A transposed weight that something else reads
(an addition, a graph output) is a Transpose, as live. Needs PyTorch 2.x
(the sid chroot)."""
import json
import subprocess

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)

from torch import nn  # noqa: E402

import nnscan  # noqa: E402
from test_pt2 import cli  # noqa: E402
from test_pt2_ops import by_type, numbers  # noqa: E402


class Mlp(nn.Module):
    """Linear on 2-D input (addmm), then one without bias (mm)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 32)
        self.b = nn.Linear(32, 8, bias=False)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class Tokens(nn.Module):
    """Linear on 3-D input (rows folded, then viewed back) and a head
    tied to the embedding (one parameter, read transposed)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.up = nn.Linear(16, 16)
        self.head = nn.Linear(16, 50, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids):
        return self.head(torch.relu(self.up(self.emb(ids))))


class ReadElsewhere(nn.Module):
    """The transposed weight read by a product and by an addition: the
    addition's read makes the Transpose."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(12, 12))

    def forward(self, x):
        return x @ self.w.t() + self.w.t()


class ReturnsIt(nn.Module):
    """The transposed weight is a graph output."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 4)

    def forward(self, x):
        return self.lin(x), self.lin.weight.t()


CASES = {
    "mlp": (Mlp, (torch.randn(4, 16),)),
    "tokens": (Tokens, (torch.randint(0, 50, (2, 5)),)),
    "read_elsewhere": (ReadElsewhere, (torch.randn(12, 12),)),
    "returns_it": (ReturnsIt, (torch.randn(2, 6),)),
}


def cli_json(ep, path):
    torch.export.save(ep, path)
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def ops_of(ep):
    return {n.target.__name__.split(".")[0] for n in ep.graph.nodes
            if n.op == "call_function" and hasattr(n.target, "__name__")}


@pytest.mark.parametrize("decomposed", [False, True],
                         ids=["export", "decomposed"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_weight_transpose_equal_live(name, decomposed, tmp_path):
    cls, args = CASES[name]
    torch.manual_seed(0)
    model = cls().eval()
    ep = torch.export.export(model, args)
    if decomposed:
        ep = ep.run_decompositions()
        assert "linear" not in ops_of(ep)
        assert "permute" in ops_of(ep)  # the weight's transpose
    doc = cli_json(ep, str(tmp_path / f"{name}.pt2"))
    live = json.loads(nnscan.summary(model, inputs=args, file=False)
                      .to_json())
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert numbers(doc["totals"]) == numbers(live["totals"])
    assert by_type(doc) == by_type(live)


def test_products_only_move_no_weight(tmp_path):
    """Where only products read the transposed weights, no Transpose:
    the memory accesses are the Gemms' own (each reads x, W and the bias
    once, writes y once), counted here by hand."""
    model = Mlp().eval()
    x = torch.randn(4, 16)
    ep = torch.export.export(model, (x,)).run_decompositions()
    doc = cli_json(ep, str(tmp_path / "mlp.pt2"))
    rows = by_type(doc)
    assert ("", "Transpose") not in rows
    # a: 4x16 @ (32x16)^T + 32 -> 4x32; b: 4x32 @ (8x32)^T -> 4x8
    gemm = (4 * 16 + 32 * 16 + 32 + 4 * 32) + (4 * 32 + 8 * 32 + 4 * 8)
    assert rows[("", "Gemm")]["dmas"] == gemm
    assert rows[("", "Gemm")]["macs"] == 4 * 16 * 32 + 4 * 32 * 8


def test_read_elsewhere_makes_one_transpose(tmp_path):
    """x @ W.t() + W.t(): the product folds (a Gemm reading W), the
    addition reads a Transpose of W (12 x 12: 144 elements read, 144
    written)."""
    model = ReadElsewhere().eval()
    x = torch.randn(12, 12)
    ep = torch.export.export(model, (x,)).run_decompositions()
    rows = by_type(cli_json(ep, str(tmp_path / "re.pt2")))
    assert rows[("", "Transpose")]["nodes"] == 1
    assert rows[("", "Transpose")]["dmas"] == 2 * 144
    assert rows[("", "Gemm")]["nodes"] == 1
