"""nnscan.compat.thop: thop's profile and clever_format, by thop's
conventions, checked against counts worked out by hand here and against
PyTorch's own parameter counts."""
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from nnscan.compat import thop  # noqa: E402


def test_conv_and_linear_macs_by_hand():
    # Conv2d 3->12, 5x5, padding 1, on 32x32: output 12x30x30, each output
    # element 3*5*5 multiply-accumulates; the bias is not a MAC in thop
    conv = nn.Conv2d(3, 12, 5, padding=1)
    macs, params = thop.profile(conv, inputs=(torch.randn(1, 3, 32, 32),),
                                verbose=False)
    assert macs == 12 * 30 * 30 * 3 * 5 * 5
    assert params == sum(p.numel() for p in conv.parameters())
    lin = nn.Linear(100, 200)
    macs, _ = thop.profile(lin, inputs=(torch.randn(7, 100),), verbose=False)
    assert macs == 7 * 100 * 200


def test_thop_conventions_for_norm_pool_and_activations():
    # thop: BatchNorm with affine 4 per element, ReLU and MaxPool 0,
    # AdaptiveAvgPool (window + 1) per output element, AvgPool 1 each
    model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.BatchNorm2d(4),
                          nn.ReLU(), nn.MaxPool2d(2), nn.AvgPool2d(3),
                          nn.AdaptiveAvgPool2d(1))
    x = torch.randn(2, 3, 20, 20)
    macs, params = thop.profile(model, inputs=(x,), verbose=False)
    conv = 2 * 4 * 18 * 18 * 3 * 3 * 3
    bn = 4 * (2 * 4 * 18 * 18)
    avg = 2 * 4 * 3 * 3            # 9x9 -> 3x3 output elements
    adaptive = (3 * 3 + 1) * 2 * 4  # window 3x3 -> 1x1
    assert macs == conv + bn + avg + adaptive
    # parameters of every counted module, no buffers
    assert params == sum(p.numel() for p in model.parameters())


def test_unregistered_module_and_functional_work_count_zero():
    class Scale(nn.Module):  # not in thop's table: not counted, not entered
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(8))

        def forward(self, x):
            return x @ torch.ones(8, 8) * self.w

    model = nn.Sequential(nn.Linear(8, 8, bias=False), Scale())
    macs, params = thop.profile(model, inputs=(torch.randn(1, 8),),
                                verbose=False)
    assert macs == 8 * 8
    assert params == 64


def test_custom_ops_add_to_total_ops_and_model_is_unchanged():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(x)

    def count_block(m, x, y):
        m.total_ops += torch.DoubleTensor([1000 * y.shape[0]])

    model = nn.Sequential(Block(), nn.ReLU())
    keys = set(model.state_dict())
    macs, params, tree = thop.profile(model, inputs=(torch.randn(3, 4),),
                                      custom_ops={Block: count_block},
                                      verbose=False, ret_layer_info=True)
    assert macs == 3000  # the custom count replaces the block's subtree
    assert params == 20
    assert tree["0"][:2] == (3000, 20)
    assert set(model.state_dict()) == keys
    assert not any(hasattr(m, "total_ops") for m in model.modules())


def test_clever_format_by_hand():
    assert thop.clever_format(1) == "1.00B"
    assert thop.clever_format([1, 2]) == ("1.00B", "2.00B")
    assert thop.clever_format([1_824_010_216, 11_689_512, 1000, 1001]) == \
        ("1.82G", "11.69M", "1000.00B", "1.00K")
    assert thop.utils.clever_format(2.5e12, "%.1f") == "2.5T"


def test_profile_origin_sums_leaves_by_hand():
    class Scale(nn.Module):  # no rule: 0 MACs, but its parameters count
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(8))

        def forward(self, x):
            return x * self.w

    model = nn.Sequential(nn.Linear(8, 8), Scale(), nn.BatchNorm1d(8))
    macs, params = thop.profile_origin(model, (torch.randn(2, 8),),
                                       verbose=False)
    assert macs == 2 * 8 * 8 + 4 * 2 * 8   # Linear + affine BatchNorm
    assert params == sum(p.numel() for p in model.parameters())
