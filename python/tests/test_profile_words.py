"""profile()'s words on what was not counted come from the library
(nns_report_uncounted, the text summary's own footer lines), never
retyped in Python (issue 42)."""
import torch
from torch import nn

import nnscan


class Odd(nn.Module):
    """torch.cummax: an aten op with no entry in the op table."""

    def forward(self, x):
        return torch.cummax(x, 1)[0] + 1


def test_profile_prints_the_librarys_uncounted_lines(capsys):
    nnscan.profile(Odd(), torch.zeros(3, 5), verbose=True)
    out = capsys.readouterr().out.splitlines()
    assert out, "profile(verbose=True) said nothing of cummax"
    assert all(line.startswith("[nnscan] ") for line in out)
    lines = [line[len("[nnscan] "):] for line in out]
    # the same lines the text summary's footer writes for this model
    text = nnscan.summary(Odd(), (3, 5), file=False).to_text()
    for line in lines:
        assert line in text.splitlines(), (line, text)
    assert any(line.startswith("Not counted (no cost rule):")
               and "cummax x1" in line for line in lines), lines


def test_profile_is_silent_when_everything_counts(capsys):
    nnscan.profile(nn.Linear(4, 2), torch.zeros(1, 4), verbose=True)
    assert capsys.readouterr().out == ""
