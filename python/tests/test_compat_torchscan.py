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
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    try:
        import torch.utils.flop_counter as fc
    except ImportError:  # PyTorch 1.13: no FlopCounterMode to measure with
        with pytest.raises(RuntimeError, match="FlopCounterMode"):
            torchscan.measure_flops(lambda: torch.sin(a @ b))
        return
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


# ---- torchscan 0.2's formulas: nn.MultiheadAttention, an nn.Transformer
# model. The values below are worked out by hand from the formula's
# definition (docs/compat.md), term by term.

def _hooks_see_kwargs():
    import inspect
    return "with_kwargs" in inspect.signature(
        nn.Module.register_forward_pre_hook).parameters


def _attention_by_hand(n, h, d, length, src, e, masks=0, weights=False):
    """n sequences, h heads of size d, query length `length` over `src`
    source positions, embed size e = h * d (q, k, v all of size e), with
    projection biases."""
    proj = n * length * e * (2 * e) + 2 * n * src * e * (2 * e)
    scale = 1 + n * h * length * d
    scores = n * h * length * src * (2 * d - 1)
    mask = masks * n * h * length * src
    softmax = n * h * length * (3 * src - 1)
    weighted = n * h * length * d * (2 * src - 1)
    out_proj = n * length * e * (2 * e)            # 2e - 1 + the bias add
    average = n * h * length * src if weights else 0
    return proj + scale + scores + mask + softmax + weighted + out_proj + \
        average


def test_multihead_attention_formula_by_hand():
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    q = torch.ones(1, 4, 8)
    report = torchscan.crawl_module(mha, args=(q, q, q))
    assert len(report["layers"]) == 1
    flops = report["layers"][0]["metrics"]["module_flops"]
    # the averaged attention weights are returned: one add per score
    assert flops["status"] == "complete"
    assert flops["value"] == _attention_by_hand(1, 2, 4, 4, 4, 8,
                                                weights=True) == 2649
    # MACs stay the library's: projections, scores, weighted sum, output
    assert report["layers"][0]["metrics"]["macs"]["value"] == \
        3 * 4 * 8 * 8 + 2 * 2 * 4 * 4 * 4 + 4 * 8 * 8
    assert report["layers"][0]["parameters"]["trainable"] == \
        sum(p.numel() for p in mha.parameters())     # out_proj's included
    # two masks given (the model's own keyword arguments are seen on every
    # PyTorch), weights not returned
    masked = torchscan.crawl_module(mha, args=(q, q, q), kwargs={
        "key_padding_mask": torch.zeros(1, 4, dtype=torch.bool),
        "attn_mask": torch.zeros(4, 4, dtype=torch.bool),
        "need_weights": False})
    assert masked["totals"]["module_flops"]["value"] == \
        _attention_by_hand(1, 2, 4, 4, 4, 8, masks=2)


def test_nested_attention_masks_by_keyword():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(8, 2)

        def forward(self, x, mask):
            return self.attn(x, x, x, attn_mask=mask, need_weights=False)[0]

    x, mask = torch.ones(3, 2, 8), torch.zeros(3, 3, dtype=torch.bool)
    report = torchscan.crawl_module(Block(), args=(x, mask))
    (attn,) = [la for la in report["layers"] if la["path"] == "attn"]
    flops = attn["metrics"]["module_flops"]
    if _hooks_see_kwargs():
        assert flops["status"] == "complete"
        assert flops["value"] == _attention_by_hand(2, 2, 4, 3, 3, 8, masks=1)
    else:  # PyTorch < 2.0: the keyword mask is invisible, a lower bound
        assert flops["status"] == "partial"
        assert flops["known_value"] == _attention_by_hand(2, 2, 4, 3, 3, 8)
        assert any(d["code"] == "keyword_arguments_unseen"
                   for d in report["diagnostics"])


def test_attention_outside_the_formula_is_unavailable():
    mha = nn.MultiheadAttention(4, 2, batch_first=True, add_zero_attn=True)
    q = torch.ones(1, 3, 4)
    hooks = len(mha._forward_pre_hooks), len(mha._forward_hooks)
    report = torchscan.crawl_module(mha, args=(q, q, q))
    assert report["totals"]["module_flops"]["status"] == "unavailable"
    assert [d["code"] for d in report["diagnostics"]
            if d["metric"] == "module_flops"] == ["module_metric_error"]
    assert report["totals"]["macs"]["status"] == "complete"
    assert (len(mha._forward_pre_hooks), len(mha._forward_hooks)) == hooks
    with pytest.raises(torchscan.IncompleteAnalysisError):
        torchscan.crawl_module(mha, args=(q, q, q), strict=True)


def _layernorm_by_hand(numel, rows):
    return 6 * numel + 2 * rows + 2 * numel          # with scale and shift


def _ffn_by_hand(rows, e, hidden):
    return rows * hidden * 2 * e + rows * hidden + rows * e * 2 * hidden


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_model_is_one_layer_with_the_formula(batch_first):
    e, s, t = 4, 3, 2              # d_model, source and target lengths
    model = nn.Transformer(d_model=e, nhead=2, num_encoder_layers=1,
                           num_decoder_layers=1, dim_feedforward=8,
                           dropout=0, batch_first=batch_first)
    src = torch.ones((1, s, e) if batch_first else (s, 1, e))
    tgt = torch.ones((1, t, e) if batch_first else (t, 1, e))
    report = torchscan.crawl_module(model, args=(src, tgt))
    assert [la["path"] for la in report["layers"]] == [""]
    encoder = (_attention_by_hand(1, 2, 2, s, s, e) + 2 * s * e
               + 2 * _layernorm_by_hand(s * e, s) + _ffn_by_hand(s, e, 8))
    cross = (t * e * 2 * e + 2 * s * e * 2 * e + 1 + 2 * t * 2
             + 2 * t * s * 3 + 2 * t * (3 * s - 1) + 2 * t * 2 * (2 * s - 1)
             + t * e * 2 * e)
    decoder = (_attention_by_hand(1, 2, 2, t, t, e) + cross + 3 * t * e
               + 3 * _layernorm_by_hand(t * e, t) + _ffn_by_hand(t, e, 8))
    by_hand = encoder + _layernorm_by_hand(s * e, s) + decoder + \
        _layernorm_by_hand(t * e, t)
    layer = report["layers"][0]
    assert layer["metrics"]["module_flops"]["value"] == by_hand == 2635
    # attention reaches every source position: no receptive field
    assert layer["metrics"]["receptive_field"]["status"] == "unavailable"
    assert layer["parameters"]["trainable"] == \
        sum(p.numel() for p in model.parameters())
    # MACs: the library's over the whole model (projections, scores,
    # weighted sums, feed-forward; LayerNorm 2 per element, METRICS.md)
    attn = 4 * e * e
    macs = (s * attn + 2 * 2 * s * s * 2 + s * 2 * e * 8        # encoder
            + t * attn + 2 * 2 * t * t * 2                      # self
            + 2 * t * e * e + 2 * s * e * e + 2 * 2 * t * s * 2  # cross
            + t * 2 * e * 8                                     # ffn
            + 2 * (3 * s * e + 4 * t * e))                      # norms
    assert report["totals"]["macs"] == torchscan.metric_result(
        status="complete", value=macs, unit="MACs", scope="forward",
        method="nnscan")
