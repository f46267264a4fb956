"""A torch.compile'd model reports the original module's tree (issue 16
item 3): no `OptimizedModule` root, no `_orig_mod.` prefix, the same counts
as the module it wraps. torch.compile is PyTorch 2.x, so this file lives in
the suite that runs only there (tests_hf, in the sid chroot of
tests/sid_chroot.sh); nothing is skipped for the torch version.
References: the plain module's parameters (sum of numel) and MACs by hand.
"""
import pytest
import torch
from torch import nn

import nnscan


def test_compiled_model_reports_its_own_tree():
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    cm = torch.compile(m)
    assert type(cm).__name__ == "OptimizedModule"  # what it wraps
    x = torch.randn(3, 8)
    s = nnscan.summary(cm, inputs=(x,), file=False)
    plain = nnscan.summary(m, inputs=(x,), file=False)
    paths = [row["path"] for row in s.layers]
    assert paths == [row["path"] for row in plain.layers] == ["", "0", "1", "2"]
    assert s.layer("")["type"] == "Sequential"
    assert not any("_orig_mod" in p for p in s.modules)
    assert s.totals["params"] == sum(p.numel() for p in m.parameters())
    assert s.totals["macs"] == 3 * (8 * 16 + 16 * 4)
    crawl = nnscan.crawl_module(cm, inputs=(x,))
    assert [layer["name"] for layer in crawl["layers"]][0] == "sequential"
    macs, params, _ = nnscan.profile(cm, inputs=(x,), verbose=False)
    assert (macs, params) == (s.totals["macs"], s.totals["params"])


def test_compiled_parts_inside_the_forward_run_as_written():
    """A compiled submodule and a compiled function inside the forward
    (transformers compiles flex attention so): Dynamo runs them eagerly
    under the recording's mode, never compiling the mode's own frames
    (nnscan/dispatch_mode.py), so every op is recorded, in a summary and
    in a training step; the counts equal the plain model's, by hand, and
    the compiled submodule is named as the module it wraps."""
    torch._dynamo.reset()
    double = torch.compile(lambda t: torch.relu(t) * 2, backend="eager")

    class Net(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.a = inner
            self.b = nn.Linear(16, 4)

        def forward(self, x):
            return self.b(double(self.a(x)))

    plain = Net(nn.Linear(8, 16))
    compiled = Net(torch.compile(plain.a, backend="eager"))
    compiled.b = plain.b
    x = torch.randn(3, 8)

    def ops(s):
        return {o["op_type"]: o["nodes"] for o in s.json["op_types"]}
    ref = nnscan.summary(plain, inputs=(x,), file=False, training=True)
    assert ops(ref) == {"Gemm": 2, "Relu": 1, "Mul": 1}
    # saved for the backward, by hand: Gemm b's input (3 x 16 floats),
    # Relu's output (3 x 16 floats), x itself is no activation to save
    for m in (compiled, plain):
        s = nnscan.summary(m, inputs=(x,), file=False, training=True)
        assert s.totals["macs"] == 3 * (8 * 16 + 16 * 4)
        assert s.totals["params"] == 8 * 16 + 16 + 16 * 4 + 4
        assert ops(s) == ops(ref)
        assert s.totals["saved_bytes"] == ref.totals["saved_bytes"] > 0
        # a compiled submodule is named as the module it wraps
        assert [row["path"] for row in s.layers] == ["", "a", "b"]
        assert s.layer("a")["type"] == "Linear"
        names = [p["name"] for p in s.json["parameters"]]
        assert names == [p["name"] for p in ref.json["parameters"]]
        assert names[:2] == ["a.weight", "a.bias"]
        # the real forward stays the model's own (values unchanged)
        assert torch.equal(m(x), plain(x))


# PyTorch warns whenever a compiled module is called while global module
# hooks exist (the recording's ModuleStack): its call is then a scope of
# its caller's, as here
@pytest.mark.filterwarnings("ignore:Using `torch.compile")
def test_a_compiled_submodule_of_a_model_recorded_in_place():
    """A model built on meta is recorded in place, not copied, so its
    compiled submodule is never unwrapped: it is named as the module it
    wraps all the same, and the model keeps its OptimizedModule. Counts
    by hand: two Linear layers of 3 rows."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.compile(nn.Linear(8, 16), backend="eager")
            self.b = nn.Linear(16, 4)

        def forward(self, x):
            return self.b(self.a(x))

    with torch.device("meta"):
        net = Net()
    wrapper = net.a
    x = torch.randn(3, 8, device="meta")
    for training in (False, True):
        s = nnscan.summary(net, inputs=(x,), file=False, training=training)
        assert [row["path"] for row in s.layers] == ["", "a", "b"]
        assert s.layer("a")["type"] == "Linear"
        assert [p["name"] for p in s.json["parameters"]] == \
            ["a.weight", "a.bias", "b.weight", "b.bias"]
        assert s.totals["params"] == 8 * 16 + 16 + 16 * 4 + 4
        assert s.totals["macs"] == 3 * (8 * 16 + 16 * 4)
    crawl = nnscan.crawl_module(net, inputs=(x,))
    assert [layer["name"] for layer in crawl["layers"]] == ["net", "a", "b"]
    assert net.a is wrapper and type(wrapper).__name__ == "OptimizedModule"
