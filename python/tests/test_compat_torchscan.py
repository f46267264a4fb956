"""nnscan.compat.torchscan (torchscan 0.2's API) and nnscan.summary /
crawl_module as torchscan 0.1.2 calls them, checked against counts worked
out by hand here, PyTorch's own parameter counts and, on PyTorch 2.1+,
FlopCounterMode run directly."""
import io
import json

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import nnscan  # noqa: E402
from nnscan.compat import torchscan  # noqa: E402


def _total(report, name):
    return report["totals"][name]["value"]


def test_conv_report_by_hand():
    conv = nn.Conv2d(3, 8, 3)
    report = torchscan.crawl_module(conv, (3, 32, 32))
    macs = 8 * 30 * 30 * 3 * 3 * 3          # one MAC per weight per output
    assert _total(report, "macs") == macs
    # a multiply and an add per MAC, minus the first add, plus the bias
    assert _total(report, "module_flops") == 8 * 30 * 30 * (2 * 27 - 1 + 1)
    assert _total(report, "parameters") == \
        sum(p.numel() for p in conv.parameters())
    layer = report["layers"][0]
    assert (layer["path"], layer["call_index"]) == ("", 0)
    assert layer["output"]["shape"] == [1, 8, 30, 30]
    assert layer["metrics"]["receptive_field"]["value"] == 3
    assert json.loads(json.dumps(report)) == report


def test_reused_module_calls_and_shared_parameters():
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(self.lin(x))

    model = Twice()
    report = torchscan.crawl_module(model, args=(torch.ones(2, 4),))
    calls = [layer for layer in report["layers"] if layer["path"] == "lin"]
    assert [c["call_index"] for c in calls] == [0, 1]
    # each call: 2 rows x 4 x 4 MACs; the parameters belong to the first
    assert [c["metrics"]["macs"]["value"] for c in calls] == [32, 32]
    assert calls[0]["parameters"]["trainable"] == 20
    assert (calls[1]["parameters"]["trainable"],
            calls[1]["parameters"]["shared"]) == (0, True)
    assert _total(report, "macs") == 64


def test_real_inputs_are_passed_unchanged_and_flags_restored():
    class Keep(nn.Module):
        def forward(self, x, *, mask):
            self.got = (x, mask)
            return x * mask

    model = Keep().train()
    x, mask = torch.ones(2, 3), torch.ones(2, 3)
    torchscan.crawl_module(model, args=(x,), kwargs={"mask": mask})
    assert model.got[0] is x and model.got[1] is mask
    assert model.training
    with pytest.raises(ValueError, match="Exactly one"):
        torchscan.crawl_module(model)


def test_opaque_user_module_is_partial_and_strict_raises():
    class PassThrough(nn.Module):
        def forward(self, x):
            return x

    report = torchscan.crawl_module(PassThrough(), args=(torch.ones(2),))
    assert report["totals"]["macs"]["status"] == "partial"
    assert report["totals"]["macs"]["known_value"] == 0
    assert report["diagnostics"][0]["code"] == "no_recorded_operator"
    with pytest.raises(torchscan.IncompleteAnalysisError):
        torchscan.crawl_module(PassThrough(), args=(torch.ones(2),),
                               strict=True)
    # a torch.nn pass-through is known to do nothing
    report = torchscan.crawl_module(nn.Identity(), args=(torch.ones(2),))
    assert report["totals"]["macs"] == torchscan.metric_result(
        status="complete", value=0, unit="MACs", scope="forward",
        method="nnscan")


def test_compare_reports_by_hand():
    small = torchscan.crawl_module(nn.Linear(4, 2), (4,))
    big = torchscan.crawl_module(nn.Linear(4, 3), (4,))
    diff = torchscan.compare_reports(small, big)
    assert diff["totals"]["macs"]["delta"] == 4 * 3 - 4 * 2
    assert diff["totals"]["parameters"]["delta"] == 15 - 10
    assert [c["path"] for c in diff["layers"]["changed"]] == [""]
    with pytest.raises(ValueError, match="schema"):
        torchscan.compare_reports(small, dict(big, schema_version=2))


def test_metric_result_invariants():
    with pytest.raises(ValueError):
        torchscan.metric_result(status="partial", unit="x", scope="s",
                                method="m")
    r = torchscan.metric_result(status="partial", known_value=3, value=9,
                                unit="x", scope="s", method="m")
    assert (r["value"], r["known_value"]) == (None, 3)


def test_measure_flops_agrees_with_flop_counter_mode():
    fc = pytest.importorskip("torch.utils.flop_counter")
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    with fc.FlopCounterMode(display=False) as direct:
        torch.sin(a @ b)
    report = torchscan.measure_flops(lambda: torch.sin(a @ b))
    assert report["total"]["known_value"] == direct.get_total_flops() == \
        2 * 2 * 3 * 4
    assert report["total"]["status"] == "partial"  # aten.sin: no formula
    assert report["diagnostics"][0]["operator"] == "aten.sin"


def test_summary_table_and_depth_errors(capsys):
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    report = torchscan.summary(model, (4,), max_depth=1)
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["Layer", "Type", "Output", "Shape", "Param",
                              "#", "Trainable"]
    assert out[4].startswith("├─0 ")
    assert f"Total params: {sum(p.numel() for p in model.parameters())}" \
        in out
    assert report["layers"][0]["type"] == "Sequential"
    with pytest.raises(ValueError):
        torchscan.summary(nn.Conv2d(3, 8, 3), (3, 8, 8), max_depth=1)


def test_torchscan_012_receptive_field_columns_and_depth_error():
    conv = nn.Conv2d(3, 8, 3)
    out = io.StringIO()
    nnscan.summary(conv, (3, 32, 32), receptive_field=True, file=out)
    lines = out.getvalue().splitlines()
    assert lines[1].rpartition("  ")[2] == "Receptive field"
    assert lines[3].split()[-1] == "3"          # 3x3 kernel, stride 1
    out = io.StringIO()
    nnscan.summary(conv, (3, 32, 32), receptive_field=True,
                   effective_rf_stats=True, file=out)
    lines = out.getvalue().splitlines()
    assert lines[1].split("  ")[-3:] == ["Receptive field",
                                         "Effective stride",
                                         "Effective padding"]
    assert lines[3].split()[-2:] == ["1", "0"]  # stride 1, no padding
    with pytest.raises(ValueError, match="depth"):
        nnscan.summary(conv, (3, 32, 32), max_depth=1, file=False)
