"""nnscan.summary's file= argument: None and True print to stdout, False
prints nothing, a stream gets the text, anything else is a TypeError that
says what file= takes (issue 41 item 7)."""
import io

import pytest
import torch

import nnscan


def _model():
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())


@pytest.mark.parametrize("file", [None, True])
def test_none_and_true_print_to_stdout(capsys, file):
    s = nnscan.summary(_model(), (4,), file=file)
    out = capsys.readouterr().out
    assert out.strip() == s.to_text().strip()
    assert "Linear" in out


def test_false_prints_nothing(capsys):
    s = nnscan.summary(_model(), (4,), file=False)
    assert capsys.readouterr().out == ""
    assert "Linear" in s.to_text()


def test_stream_gets_the_text(capsys):
    buf = io.StringIO()
    s = nnscan.summary(_model(), (4,), file=buf)
    assert capsys.readouterr().out == ""
    assert buf.getvalue().strip() == s.to_text().strip()


def test_other_values_are_refused_by_name():
    with pytest.raises(TypeError, match="file= takes None or True"):
        nnscan.summary(_model(), (4,), file=3)
