"""torch.vmap in a torch.export archive (src/pt2/vmap.c, the vmap entries
of src/ops/aten_export.c): the ops between _add_batch_dim and
_remove_batch_dim are sized per example in the archive and run on the
whole batch; the reader lowers them on the batch. Counts against
nnscan.summary of the same live module (the recorder sees the batched
ops vmap runs) and by hand. A region with an op that reads per-example
sizes on a batched value is left uncounted, never counted per example.
Needs PyTorch 2.x."""
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)

import nnscan  # noqa: E402
from test_pt2 import archive_json  # noqa: E402

VMAP_OPS = ("torch._functorch.predispatch._add_batch_dim",
            "torch._functorch.predispatch._remove_batch_dim")


class Scan(torch.nn.Module):
    """Mamba's scan step: a*b and b*c+d on four tensors, vmapped over
    their first dim."""

    def forward(self, a, b, c, d):
        return torch.vmap(lambda w, x, y, z: (w * y, y * x + z))(a, b, c, d)


class Mask(torch.nn.Module):
    """transformers' mask functions: a causal test vmapped over batch,
    head, query and key index (four nested levels), then used."""

    def forward(self, x):
        b, q = x.shape[0], x.shape[1]
        fn = lambda bi, hi, qi, ki: ki <= qi  # noqa: E731
        for dims in ((None, None, None, 0), (None, None, 0, None),
                     (None, 0, None, None), (0, None, None, None)):
            fn = torch.vmap(fn, in_dims=dims)
        mask = fn(torch.arange(b), torch.arange(1), torch.arange(q),
                  torch.arange(q))
        return x.unsqueeze(1) * mask


class Reads(torch.nn.Module):
    """A reshape of a batched value inside the vmap: not lowered."""

    def forward(self, x):
        return torch.vmap(lambda r: r.reshape(2, -1).sum(0))(x)


def _counts(doc):
    return {k: doc["totals"][k] for k in ("params", "flops", "macs")}


def test_scan_counts_as_live(tmp_path):
    args = tuple(torch.randn(4, 3, 8) for _ in range(4))
    ep = torch.export.export(Scan(), args)
    assert any(n.target.__name__ == "_add_batch_dim" for n in ep.graph.nodes
               if n.op == "call_function" and hasattr(n.target, "__name__"))
    doc = archive_json(ep, tmp_path, "scan")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    # two Mul and one Add over the whole batch: 3 * 4*3*8 FLOPs
    assert doc["totals"]["flops"] == 3 * 4 * 3 * 8
    live = nnscan.summary(Scan(), inputs=args, file=False).totals
    assert _counts(doc) == {k: live[k] for k in ("params", "flops", "macs")}


@pytest.mark.parametrize("dynamic", [False, True])
def test_nested_mask_counts_as_live(dynamic, tmp_path):
    x = torch.randn(2, 5, 5)
    shapes = None
    if dynamic:
        b = torch.export.Dim("b", min=1, max=64)
        shapes = ({0: b},)
    ep = torch.export.export(Mask(), (x,), dynamic_shapes=shapes)
    opts = ("--input", f"{ep.graph_signature.user_inputs[0]}=3x5x5") \
        if dynamic else ()
    doc = archive_json(ep, tmp_path, "mask", *opts)
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    at = torch.randn(3, 5, 5) if dynamic else x
    live = nnscan.summary(Mask(), inputs=at, file=False).totals
    assert _counts(doc) == {k: live[k] for k in ("params", "flops", "macs")}


def test_region_reading_sizes_stays_uncounted(tmp_path):
    ep = torch.export.export(Reads(), (torch.randn(3, 8),))
    doc = archive_json(ep, tmp_path, "reads")
    names = [u["op_type"] if isinstance(u, dict) else u
             for u in doc["uncounted_ops"]]
    assert set(VMAP_OPS) <= set(names)
    assert doc["totals"]["complete"] is False  # a lower bound, said so
