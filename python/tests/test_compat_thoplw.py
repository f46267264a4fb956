"""nnscan.compat.thoplw: thoplw's profile and clever_format, by thoplw's
conventions, checked against counts worked out by hand here and PyTorch's
own parameter and buffer counts."""
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from nnscan.compat import thoplw  # noqa: E402


def test_thoplw_conventions_by_hand():
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(8, 5))
    macs, params, info = thoplw.profile(model, torch.randn(1, 3, 10, 10),
                                        verbose=False)
    conv = 8 * 8 * 8 * 3 * 3 * 3 + 8   # + one MAC per bias element
    bn = 4 * 8 * 8 * 8
    pool = 2 * 8                       # output elements x 2 spatial axes
    linear = 8 * 5 + 5
    assert macs == conv + bn + pool + linear
    # parameters only: BatchNorm's running statistics are buffers
    assert params == sum(p.numel() for p in model.parameters())
    names = [row[0] for row in info.rows]
    assert names == ["0", "1", "2", "3", "4", "5", "6"]
    text = info.summary()
    assert text.splitlines()[0].split("|")[1].strip() == "Name"
    assert f"| {macs}" in text.splitlines()[-1].replace("  ", " ")


def test_unknown_classes_are_listed_and_skipped(capsys):
    class Twice(nn.Module):
        def forward(self, x):
            return x * 2

    model = nn.Sequential(nn.Linear(4, 4, bias=False), Twice())
    macs, params, info = thoplw.profile(model, torch.randn(1, 4))
    assert macs == 16 and params == 16
    out = capsys.readouterr().out
    assert "unexpectedly ignored" in out and "Twice" in out


def test_custom_ops_return_macs():
    class Twice(nn.Module):
        def forward(self, x):
            return x * 2

    macs, _, info = thoplw.profile(
        nn.Sequential(Twice()), torch.randn(3, 4), verbose=False,
        custom_ops={Twice: lambda m, xs, y: y.numel()})
    assert macs == 12


def test_clever_format_by_hand():
    assert thoplw.clever_format(1_824_010_216) == "  1.82 G"
    assert thoplw.clever_format([999, 1000]) == ["999.00  ", "  1.00 K"]
    assert thoplw.clever_format(2.5e15, "%.1f") == "2.5 P"  # its last unit
    assert thoplw.clever_format(999_999, "%8.3f") == " 999.999 K"
    with pytest.raises(ValueError, match="%.<digits>f"):
        thoplw.clever_format(1000, "%.2e")


def test_clever_table_uses_thoplws_format():
    model = nn.Sequential(nn.Linear(1000, 1000, bias=False))
    _, _, info = thoplw.profile(model, torch.randn(1, 1000), verbose=False)
    last = info.summary(fmt="clever").splitlines()[-1]
    assert "  1.00 M" in last  # 1000*1000 MACs and as many params


def test_table_by_hand():
    """thoplw's table of one Linear(4, 2), laid out by the library: 8 MACs
    + 2 for the bias, 8 weights + 2 biases; clever in thoplw's style."""
    _, _, info = thoplw.profile(nn.Sequential(nn.Linear(4, 2)),
                                torch.randn(1, 4), verbose=False)
    assert info.rows == [("0", "Linear", "4", "2", 10, 10)]
    assert info.summary() == (
        "| Name  | Class      | Input shape | Output shape | MACs | Params |\n"
        "+-------+------------+-------------+--------------+------+--------+\n"
        "| 0     | Linear     | 4           | 2            | 10   | 10     |\n"
        "+-------+------------+-------------+--------------+------+--------+\n"
        "| Total | Sequential | 4           | 2            | 10   | 10     |\n")
    assert info.summary("csv", "clever") == (
        "Name,Class,Input shape,Output shape,MACs,Params\n"
        "0,Linear,4,2, 10.00  , 10.00  \n"
        "Total,Sequential,4,2, 10.00  , 10.00  \n")
    assert info.summary("md", "ratio").splitlines()[2] == \
        "| 0     | Linear     | 4           | 2            | 100.00 % | 100.00 % |"
