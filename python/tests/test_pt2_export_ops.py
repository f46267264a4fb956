"""The aten table's export family (src/ops/aten_export.c) against the live
recorder: composite ops torch.export keeps in an archive (log_sigmoid,
nll_loss_nd, cross_entropy_loss, dropout in training, broadcast_tensors)
while a live recording only sees what PyTorch decomposes them into. Each
module is exported with torch.export.export and torch.export.save, read by
the CLI with no Python, and every count of the report (totals, per op
type, memory) must equal nnscan.summary of the same live module; the
archive is checked to hold the op itself, so the entry is what was read.
Needs PyTorch 2.x (the sid chroot)."""
import json
import subprocess

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import nnscan  # noqa: E402
from test_pt2 import archive_json, cli  # noqa: E402
from test_pt2_math import Op, archive_ops, without_names  # noqa: E402


def t(*shape):
    torch.manual_seed(sum(shape) + len(shape))
    return torch.rand(*shape) * 0.8 + 0.1


def labels(classes, *shape):
    torch.manual_seed(classes + sum(shape))
    return torch.randint(0, classes, shape)


X = t(2, 3, 4)
LOGP, TGT = torch.log_softmax(t(5, 4), 1), labels(4, 5)
X3, T3 = t(2, 4, 5), labels(4, 2, 5)
X4, T4 = t(2, 4, 3, 3), labels(4, 2, 3, 3)
X5, T5 = t(2, 4, 2, 3, 2), labels(4, 2, 2, 3, 2)
W4 = t(4)

# name: (the aten op the archive must hold, forward, inputs)
CASES = {
    "log_sigmoid": ("log_sigmoid", lambda x: F.logsigmoid(x), (X,)),
    "nll_loss_nd": ("nll_loss_nd", lambda x, y: F.nll_loss(x, y),
                    (LOGP, TGT)),
    "nll_loss_nd_4d": ("nll_loss_nd", lambda x, y: F.nll_loss(
        x, y, W4, ignore_index=1, reduction="sum"), (X4, T4)),
    # 3 and 5 dims: viewed as 4 around nll_loss2d_forward
    "nll_loss_nd_3d": ("nll_loss_nd", lambda x, y: F.nll_loss(x, y),
                       (X3, T3)),
    "nll_loss_nd_3d_none": ("nll_loss_nd", lambda x, y: F.nll_loss(
        x, y, reduction="none"), (X3, T3)),
    "nll_loss_nd_5d_none": ("nll_loss_nd", lambda x, y: F.nll_loss(
        x, y, W4, reduction="none"), (X5, T5)),
    "cross_entropy_loss": ("cross_entropy_loss",
                           lambda x, y: F.cross_entropy(x, y), (LOGP, TGT)),
    "cross_entropy_loss_4d": ("cross_entropy_loss",
                              lambda x, y: F.cross_entropy(
                                  x, y, W4, ignore_index=2,
                                  reduction="sum"), (X4, T4)),
    "cross_entropy_loss_3d": ("cross_entropy_loss",
                              lambda x, y: F.cross_entropy(x, y), (X3, T3)),
    # training=True in the call: the recording is in eval mode, the call
    # is not
    "dropout_train": ("dropout", lambda x: F.dropout(x, 0.5, True), (X,)),
    "dropout_train_p1": ("dropout", lambda x: F.dropout(x, 1.0, True),
                         (X,)),
    "dropout_train_p0": ("dropout", lambda x: F.dropout(x, 0.0, True) * 2,
                         (X,)),
    "dropout_eval": ("dropout", lambda x: F.dropout(x, 0.5, False) * 2,
                     (X,)),
    # nn.Dropout(inplace=True) (torchvision's EfficientNet head): dropout_,
    # whose tensor argument is `self`, not `input`
    "dropout_inplace_eval": ("dropout_", lambda x: F.dropout(
        x * 2, 0.2, False, inplace=True) + 1, (X,)),
    "dropout_inplace_train": ("dropout_", lambda x: F.dropout(
        x * 2, 0.2, True, inplace=True), (X,)),
    "broadcast_tensors_mse": ("broadcast_tensors",
                              lambda x, y: F.mse_loss(x, y), (X, t(1, 3, 4))),
    "broadcast_tensors_same": ("broadcast_tensors",
                               lambda x, y: F.mse_loss(x, y), (X, t(2, 3, 4))),
    # x.expand_as(y): kept by torch.export, expand live (Swin V2's
    # logit scale)
    "expand_as": ("expand_as", lambda x, y: x.expand_as(y) * y,
                  (t(3, 1), X)),
    # composites the sweep met uncounted (rwkv, BiT, wav2vec2's positional
    # convolution, EfficientNet's "same" convolutions)
    "square": ("square", lambda x: torch.square(x) + 1, (X,)),
    "reshape_as": ("reshape_as", lambda x, y: x.reshape_as(y) * 2,
                   (X, t(4, 6))),
    "weight_norm_last": ("_weight_norm", lambda v, g: torch._weight_norm(
        v, g, 2) * 2, (t(4, 3, 5), t(1, 1, 5))),
    "weight_norm_first": ("_weight_norm", lambda v, g: torch._weight_norm(
        v, g, 0) * 2, (t(4, 3, 5), t(4, 1, 1))),
    "conv2d_same": ("conv2d", lambda x, w: F.conv2d(x, w, padding="same"),
                    (t(1, 2, 5, 6), t(3, 2, 3, 3))),
    "conv2d_same_dilated": ("conv2d", lambda x, w: F.conv2d(
        x, w, padding="same", dilation=2), (t(1, 2, 7, 6), t(3, 2, 3, 1))),
    "broadcast_tensors_three": ("broadcast_tensors",
                                lambda a, b, c: sum(torch.broadcast_tensors(
                                    a, b, c)), (X, t(3, 1), t(2, 1, 4))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pt2_counts_equal_live(name, tmp_path):
    op, fn, args = CASES[name]
    model = Op(fn)
    path = str(tmp_path / f"{name}.pt2")
    torch.export.save(torch.export.export(model, args), path)
    held = archive_ops(path)
    assert op in held, (op, held)
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    live = json.loads(nnscan.summary(model, inputs=args, file=False)
                      .to_json())
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert live["uncounted_ops"] == [] and live["unknown_ops"] == []
    assert without_names(doc["totals"]) == without_names(live["totals"])
    assert doc["op_types"] == live["op_types"]
    assert doc["memory"] == live["memory"]


def test_label_smoothing_stays_uncounted(tmp_path):
    """cross_entropy_loss with label smoothing takes another path in
    PyTorch, which the entry does not spell: the call is reported
    uncounted, never counted as the plain loss."""
    model = Op(lambda x, y: F.cross_entropy(x, y, label_smoothing=0.1))
    path = str(tmp_path / "ce_ls.pt2")
    torch.export.save(torch.export.export(model, (LOGP, TGT)), path)
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert [u["op_type"] if isinstance(u, dict) else u
            for u in doc["uncounted_ops"]] == ["cross_entropy_loss"]


class GroupedFallback(torch.nn.Module):
    """transformers' own grouped product (integrations/moe.py), what its
    mixture-of-experts layers call under torch.export with float32
    experts in place of _grouped_mm."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(t(3, 8, 16))  # (E, K, N)
        self.register_buffer("offs", torch.tensor([4, 8, 12],
                                                  dtype=torch.int32))

    def forward(self, x):
        return torch.ops.transformers.grouped_mm_fallback(x, self.w,
                                                          self.offs) * 2


def test_transformers_grouped_mm_fallback(tmp_path):
    """Read as _grouped_mm: 12 rows x K 8 x N 16 = 1,536 MACs over the
    experts, nothing uncounted, the parameters sum(p.numel())."""
    pytest.importorskip("transformers.integrations.moe")
    model, x = GroupedFallback().eval(), t(12, 8)
    ep = torch.export.export(model, (x,))
    assert "torch.ops.transformers.grouped_mm_fallback" in str(ep.graph)
    doc = archive_json(ep, tmp_path, "fallback")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert doc["totals"]["params"] == 3 * 8 * 16
    matmul = [r for r in doc["op_types"] if r["op_type"] == "MatMul"]
    assert sum(r["macs"] for r in matmul) == 12 * 8 * 16


@pytest.mark.parametrize("rows", [12, 7, 2])
def test_grouped_mm_fallback_of_dynamic_rows(rows, tmp_path):
    """The tokens a dynamic archive routes are a symbol: the grouped
    product read at any row count is rows x K 8 x N 16 MACs, however the
    rows split over E = 3 experts (7 rows: 3 + 2 + 2; 2 rows: an expert
    with none)."""
    pytest.importorskip("transformers.integrations.moe")
    model = GroupedFallback().eval()
    s = torch.export.Dim("s", min=2, max=64)
    ep = torch.export.export(model, (t(12, 8),), dynamic_shapes=({0: s},))
    doc = archive_json(ep, tmp_path, "fallback", "--input", f"x={rows}x8")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    matmul = [r for r in doc["op_types"] if r["op_type"] == "MatMul"]
    assert sum(r["macs"] for r in matmul) == rows * 8 * 16


class Routing(torch.nn.Module):
    """What transformers' grouped experts run before the product, on a
    dynamic batch and sequence: sort of the flattened expert ids, a
    histogram of them, the inverse permutation written by index_put_ into
    an empty_like, and arange over sizes the archive computes (s0*s1)."""

    def forward(self, x):
        flat = x.reshape(-1).float()
        order, perm = torch.sort(flat)
        counts = torch.histc(flat, bins=4, min=0, max=3)
        inv = torch.empty_like(perm)
        inv = inv.index_put_((perm,), torch.arange(perm.shape[0]))
        return torch.arange(x.shape[1]), order, counts, inv


def test_routing_ops_of_computed_sizes(tmp_path):
    """Every call lowers at sizes that are expressions of the symbols
    (nothing uncounted), and the outputs have the sizes PyTorch gives at
    the read sizes: 3 x 5 ids -> 15 sorted, 4 bins, 5 positions."""
    x = torch.zeros(2, 6, dtype=torch.long)
    b, s = torch.export.Dim("b", min=1, max=64), torch.export.Dim("s", min=2,
                                                                  max=16)
    ep = torch.export.export(Routing(), (x,),
                             dynamic_shapes=({0: b, 1: s},))
    doc = archive_json(ep, tmp_path, "routing", "--input", "x=3x5")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    live = Routing()(torch.zeros(3, 5, dtype=torch.long))
    got = [o["shape"] for o in doc["outputs"]]
    assert got == [list(o.shape) for o in live]


class ScatterOne(torch.nn.Module):
    """PhiMoE's routing mask: a number scattered at top-k indices of
    dynamic batch and sequence."""

    def forward(self, x, i):
        return torch.zeros_like(x).scatter(-1, i, 1.0) + x


def test_scatter_of_a_number_at_symbolic_sizes(tmp_path):
    """Read at 3 x 5: nothing uncounted, FLOPs those of the Add alone
    (3 * 5 * 4 = 60, the scatter writes and adds nothing), as live."""
    b, s = torch.export.Dim("b", min=1, max=64), torch.export.Dim("s", min=2,
                                                                  max=16)
    ep = torch.export.export(
        ScatterOne(), (t(2, 6, 4), torch.zeros(2, 6, 2, dtype=torch.long)),
        dynamic_shapes=({0: b, 1: s}, {0: b, 1: s}))
    doc = archive_json(ep, tmp_path, "scatter", "--input", "x=3x5x4",
                       "--input", "i=3x5x2")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert doc["totals"]["flops"] == 3 * 5 * 4
    live = nnscan.summary(ScatterOne(), inputs=(
        t(3, 5, 4), torch.zeros(3, 5, 2, dtype=torch.long)), file=False)
    assert live.totals["flops"] == doc["totals"]["flops"]
