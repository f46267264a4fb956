"""The numbering left to the library (NNSCAN_TAPE_NUMBERED=defer; docs/
tape.md, "Numbers the library gives"): the recorder asks no plan per
call, counts only what it makes, and the library shifts its numbers by
what each numbered call took at the build. Checked against the path that
asks nothing of the library's numbering at all, the ops_map.py rules
(NNSCAN_TAPE_NUMBERED=0): every report byte for byte, on the models of
test_tape_numbered.py (their ops, weights' t() folded, parameters read
after the constants their node reads them with, constants from outside)
and torchvision's; and that no plan is asked."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

from nnscan import tape  # noqa: E402

import test_tape_numbered as tn  # noqa: E402


def _reports(monkeypatch, how, model):
    """Every report of test_tape_numbered's summaries of the model with
    NNSCAN_TAPE_NUMBERED=how."""
    return tn._reports(monkeypatch, numbered=how, model=model)[1]


MODELS = [tn.Mixed, tn.OneSchema, tn.Linears, tn.Indexed, tn.Scattered,
          tn.Breadth, tn.Ordered, tn.Borrowed]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_report_is_the_rules(monkeypatch, model):
    assert _reports(monkeypatch, "defer", model) == \
        _reports(monkeypatch, "0", model)


class Expanded(nn.Module):
    """ViT's input (a patch convolution, its tokens, the class token
    expanded before them): expand(token, sizes) is Expand(token, shape),
    the shape a constant the library makes before the node reads the
    token, where the rule reads the token first, then makes the shape; and
    a tensor from outside (a plain attribute) read first by a numbered
    call."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 4, stride=4)
        self.token = nn.Parameter(torch.zeros(1, 1, 8))
        self.scale = torch.full((8,), 2.0)  # no parameter, no buffer
        self.proj = nn.Linear(8, 8)

    def forward(self, x):                       # 1 x 3 x 8 x 8
        n = x.shape[0]
        h = self.conv(x).reshape(n, 8, 4).permute(0, 2, 1)
        h = torch.cat([self.token.expand(n, -1, -1), h], 1)
        return self.proj(h * self.scale)


def test_first_reads_are_where_the_rule_reads_them(monkeypatch):
    assert _reports(monkeypatch, "defer", Expanded) == \
        _reports(monkeypatch, "0", Expanded)


def test_no_plan_is_asked(monkeypatch):
    asked = []
    monkeypatch.setattr(tape, "_plan", lambda *a: asked.append(a))
    _reports(monkeypatch, "defer", tn.Mixed)
    assert asked == []
