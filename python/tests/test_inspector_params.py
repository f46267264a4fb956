"""The Inspector's parameter columns come from the library
(nns_inspection_add_params), checked against PyTorch's own sums over
module.parameters(): a weight tied between two modules, a frozen one, a
submodule shared by two paths, a half-precision one, and rows cut by
watch_depth."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from nnscan.inspector import Inspector  # noqa: E402


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 6)
        shared = nn.Linear(6, 6)
        self.block = nn.Sequential(nn.Linear(6, 6), shared,
                                   nn.Sequential(nn.LayerNorm(6), nn.ReLU()))
        self.again = shared                    # one module, two paths
        self.head = nn.Linear(6, 11, bias=False)
        self.head.weight = self.embed.weight   # tied
        self.frozen = nn.Linear(6, 3).half()  # held, never called
        for p in self.frozen.parameters():
            p.requires_grad_(False)

    def forward(self, ids):
        h = self.again(self.block(self.embed(ids)))
        return self.head(h)


def expected(mod):
    ps = list(mod.parameters())
    by = {}
    for p in ps:
        e = by.setdefault(str(p.dtype).replace("torch.", ""), [0, 0])
        b = p.numel() * p.element_size()
        e[0] += b
        if p.requires_grad:
            e[1] += b
    return {
        "params": sum(p.numel() for p in ps),
        "learnable_params": sum(p.numel() for p in ps if p.requires_grad),
        "param_bytes": sum(p.numel() * p.element_size() for p in ps),
        "grad_bytes": sum(p.numel() * p.element_size()
                          for p in ps if p.requires_grad),
        "dtypes": by}


def rows(doc):
    out = {}
    for m in doc["modules"]:
        out[m["path"]] = {
            **{k: m[k] for k in ("params", "learnable_params",
                                 "param_bytes", "grad_bytes")},
            "dtypes": {d["dtype"]: [d["bytes"], d["learnable_bytes"]]
                       for d in m["param_dtypes"]}}
    return out


@pytest.mark.parametrize("depth", [-1, 1])
def test_parameter_columns_are_pytorchs_sums(depth):
    model = Tied()
    with Inspector(model, watch_depth=depth) as insp:
        model(torch.tensor([[1, 2, 3]]))
    got = rows(insp.json())
    mods = dict(model.named_modules())
    want = {p: expected(m) for p, m in mods.items()
            if depth < 0 or (p.count(".") + 1 if p else 0) <= depth}
    assert got == want
    # the tie counted once at the root; "again" has no row of its own
    assert got[""]["params"] == sum(p.numel() for p in model.parameters())
    assert "again" not in got
