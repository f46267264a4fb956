"""summary(..., backward=True): the backward pass, recorded on meta tensors.

Expected figures are derived by hand from the forward's structure: a
convolution's backward is a grad_input (skipped for the first layer, whose
input needs no gradient) and a grad_weight, each as many MACs as the
forward; a Linear's backward is two matrix products of the forward's size;
an eval BatchNorm's grad_input is one per-channel affine map (2 MACs per
element, its forward's cost); pooling and ReLU gradients have no MACs.
"""
import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
from torch import nn  # noqa: E402

import nnscan  # noqa: E402


def test_small_net_by_hand():
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),
                      nn.ReLU(), nn.Conv2d(8, 4, 3, stride=2),
                      nn.Flatten(), nn.Linear(4 * 7 * 7, 10))
    s = nnscan.summary(m, (3, 16, 16), backward=True, file=False)
    conv0 = 16 * 16 * 8 * 3 * 9
    conv3 = 7 * 7 * 4 * 8 * 9
    bn = 2 * 8 * 16 * 16
    fc = 196 * 10
    assert s.totals["macs"] == conv0 + bn + conv3 + fc
    bw = s.backward
    assert bw.layer("0")["macs"] == conv0            # grad_weight only
    assert bw.layer("1")["macs"] == bn
    assert bw.layer("2")["macs"] == 0
    assert bw.layer("3")["macs"] == 2 * conv3        # grad_input + grad_weight
    assert bw.layer("5")["macs"] == 2 * fc
    assert bw.totals["macs"] == conv0 + bn + 2 * conv3 + 2 * fc
    assert bw.json["uncounted_ops"] == []


def test_resnet18_backward_attributed_per_module():
    torch.manual_seed(0)
    m = torchvision.models.resnet18()
    s = nnscan.summary(m, (3, 224, 224), backward=True, file=False)
    fwd = {l["path"]: l for l in s.layers}
    bwd = {l["path"]: l for l in s.backward.layers}
    # every forward leaf with MACs has its backward row, by the rule above
    for path, row in fwd.items():
        typ = s.modules[path]["type"]
        if typ == "Conv2d":
            want = row["macs"] if path == "conv1" else 2 * row["macs"]
        elif typ in ("Linear",):
            want = 2 * row["macs"]
        elif typ == "BatchNorm2d":
            want = row["macs"]
        elif typ in ("ReLU", "MaxPool2d", "AdaptiveAvgPool2d"):
            want = 0
        else:
            continue
        assert bwd[path]["macs"] == want, path
    assert s.backward.json["uncounted_ops"] == []
    assert s.device == "meta"


def test_model_untouched_by_backward():
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    before = {k: v.clone() for k, v in m.state_dict().items()}
    nnscan.summary(m, (4,), backward=True, file=False)
    assert all(p.grad is None for p in m.parameters())
    assert all(torch.equal(before[k], v) for k, v in m.state_dict().items())
    assert not torch.nn.modules.module._global_forward_hooks


def test_printed_with_both_tables(capsys):
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    nnscan.summary(m, (4,), backward=True)
    out = capsys.readouterr().out
    assert "Backward pass" in out
    assert "Sequential (backward)" in out


@pytest.mark.parametrize("size", [1, 2])
def test_adaptive_average_pool_backward_by_hand(size):
    """Each input element takes its window's gradient over the window's
    size: one division per input element (4 x 7 x 8), whether the pool
    gives one output per channel or windows of several (2 x 2 from 7 x 8,
    whose gradient no broadcast spells, and which PyTorch 1.13 has no meta
    kernel for)."""
    m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1),
                      nn.AdaptiveAvgPool2d(size), nn.Flatten(),
                      nn.Linear(4 * size * size, 2))
    s = nnscan.summary(m, (3, 7, 8), backward=True, file=False)
    pool = s.backward.layer("1")
    assert pool["flops"] == 4 * 7 * 8
    assert pool["macs"] == 0
    assert pool["output"]["shape"] == [1, 4, 7, 8]
    assert s.backward.json["uncounted_ops"] == []


class MarginHead(nn.Module):
    """A Linear scored by multi_margin_loss: PyTorch 2 has a meta kernel
    for its forward, none for its backward; 1.13 none for either."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.register_buffer("target", torch.tensor([0, 3, 1]))

    def forward(self, x):
        return nn.functional.multi_margin_loss(self.fc(x), self.target)


def test_a_backward_with_no_meta_kernel_is_recorded_on_the_device():
    # the backward raised where the forward ran on meta: now recorded
    # again, forward and backward, on the model's own device, told in a
    # warning; the Linear's grad_weight is its forward's MACs (no
    # grad_input: the model's input needs none)
    m = MarginHead()
    with pytest.warns(UserWarning, match="cannot run on meta tensors"):
        s = nnscan.summary(m, inputs=(torch.randn(3, 6),), backward=True,
                           file=False)
    assert s.backward.layer("fc")["macs"] == 3 * 6 * 4
    assert all(not p.is_meta for p in m.parameters())
    on_device = nnscan.summary(m, inputs=(torch.randn(3, 6),),
                               backward=True, device="model", file=False)
    assert s.backward.to_json() == on_device.backward.to_json()
