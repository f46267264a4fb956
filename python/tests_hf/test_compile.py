"""A torch.compile'd model reports the original module's tree (issue 16
item 3): no `OptimizedModule` root, no `_orig_mod.` prefix, the same counts
as the module it wraps. torch.compile is PyTorch 2.x, so this file lives in
the suite that runs only there (tests_hf, in the sid chroot of
tests/sid_chroot.sh); nothing is skipped for the torch version.
References: the plain module's parameters (sum of numel) and MACs by hand.
"""
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
