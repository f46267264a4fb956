"""A model whose inputs have no spatial dims that anything slides over (a
TransformerEncoder on (batch, seq, features)) reports no receptive field:
no "Receptive field" footer line, no rf in the JSON totals, no RF cells;
a CNN still reports its field, computed by hand (issue 41 item 8)."""
import torch

import nnscan


def test_transformer_encoder_prints_no_receptive_field():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2,
                                             dim_feedforward=32,
                                             batch_first=True)
    m = torch.nn.TransformerEncoder(layer, num_layers=2)
    s = nnscan.summary(m, (5, 16), file=False, receptive_field=True)
    text = s.to_text()
    assert "Receptive field:" not in text
    assert "1+g" not in text
    assert s.json["totals"].get("rf") is None


def test_cnn_keeps_its_receptive_field():
    # two 3x3 convs, stride 1: field 3 + 2 = 5 (by hand)
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(),
                            torch.nn.Conv2d(4, 4, 3))
    s = nnscan.summary(m, (3, 16, 16), file=False)
    assert "Receptive field: 5 " in s.to_text()
    assert s.json["totals"]["rf"]["field"] == [5, 5]
