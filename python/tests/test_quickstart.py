"""The quick start of docs/python.md runs as written (it is what the
README gives a newcomer to paste), and prints what its comments say."""
import os
import re

import pytest

pytest.importorskip("torchvision")
from conftest import ROOT  # noqa: E402


def test_quickstart_runs(capsys):
    text = open(os.path.join(ROOT, "docs", "python.md")).read()
    section = text[text.index("## Quick start"):text.index("## API")]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/python.md quick start", "exec"), {})
    out = capsys.readouterr().out
    assert "('1.82G', '11.70M')" in out
    assert "Layer" in out and "| Name" in out
    nums = [l for l in out.splitlines() if re.fullmatch(r"\d+ \d+", l.strip())]
    params, macs = (int(v) for v in nums[0].split())
    # by hand: per layer q, k, v, out projections (4 L E^2), two attention
    # products (2 L^2 E), two feed-forward products (2 L E F), two
    # LayerNorms (2 MACs per element each); PyTorch's own parameter count
    L, E, F, n = 128, 4096, 11008, 32
    assert macs == n * (4 * L * E * E + 2 * L * L * E + 2 * L * E * F + 4 * L * E)
    import torch
    layer = torch.nn.TransformerEncoderLayer(E, 32, F, device="meta")
    assert params == n * sum(p.numel() for p in layer.parameters())


def test_readme_quickstart_runs(capsys):
    """The README's own Python quick start, pasted as a newcomer would, on
    whichever PyTorch this is (its training step is for 2.x)."""
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("## Python quick start"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md quick start", "exec"), {})
    out = capsys.readouterr().out
    assert "('1.82G', '11.70M')" in out
    assert "| Name" in out


def test_readme_inspector_example_runs(capsys, tmp_path, monkeypatch):
    """The README's Inspector example is whole: pasted alone into a fresh
    interpreter, it runs one training step, prints the tree and writes both
    saved reports."""
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("### Inspecting a training run"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md Inspector example", "exec"), {})
    assert "Passes: 1 on 1 rank" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == \
        ["insight_ResNet.inspect.json", "insight_ResNet.json"]
