"""The Inspector's text table as a notebook, a log or CI prints it
(issue 41, item 3): at 80, 100 (the default) and 160 columns every
module's name is whole, no line is wider than asked, a column that gives
way is named in the footer with the width that shows it (never silently),
that width does show every column, and times read in a human unit.
With hardware= and predict_training=True (PyTorch 2), "Saved (pred.)" is
in the table at 100 columns. Names come from PyTorch's named_modules()."""
import re

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import nnscan  # noqa: E402


class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        q, k, v = self.c_attn(x).chunk(3, -1)
        return self.c_proj(torch.softmax(q @ k.transpose(-1, -2) / 8, -1) @ v)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(d), Attn(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2Model(nn.Module):
    def __init__(self, d=32, layers=2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(50, d), nn.Embedding(16, d)
        self.h = nn.ModuleList(Block(d) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
        for b in self.h:
            x = b(x)
        return self.ln_f(x)


class GPT2LMHeadModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = GPT2Model()
        self.lm_head = nn.Linear(32, 50, bias=False)

    def forward(self, ids):
        return self.lm_head(self.transformer(ids))


TITLES = ["Layer", "Type", "Calls", "Output Shape", "Fwd time", "Fwd self",
          "Bwd time", "Bwd self", "Fwd mem", "Saved (pred.)", "Bwd mem",
          "FLOPs", "MACs", "FLOP/s", "Roof", "% roof", "NaN/Inf"]


def _header(text):
    """The header's titles: one line, or two ("Saved" over "(pred.)")."""
    lines = text.splitlines()
    end = next(i for i, l in enumerate(lines) if l.startswith("===="))
    head = lines[1:end]
    found = [t for t in TITLES if t in head[0]]
    if len(head) == 2:  # a title on two lines: its words stacked
        for t in TITLES:
            a, _, b = t.partition(" ")
            if b and t not in found and re.search(r"(^|\s)%s(\s|$)" % re.escape(a), head[0]) \
                    and b in head[1]:
                found.append(t)
    return found


def _hidden(text):
    text = text.replace("\n  ", " ")  # the footer's wrapped lines, joined
    m = re.search(r"^(\d+) columns? hidden \((.*)\): width=(\d+) shows (it|them)\.$",
                  text, re.M)
    if not m:
        return [], None
    names = m.group(2).split(", ")
    assert int(m.group(1)) == len(names)
    return names, int(m.group(3))


def _rows(text):
    lines = text.splitlines()
    a = next(i for i, l in enumerate(lines) if l.startswith("===="))
    b = next(i for i in range(a + 1, len(lines)) if lines[i].startswith("===="))
    return lines[a + 1:b]


def _check_table(insp, model, widths=(80, 100, 160), want=()):
    names = [n.rsplit(".", 1)[-1] for n, _ in model.named_modules() if n]
    every = None
    for w in widths:
        text = insp.report(width=w) if w != 100 else insp.report()
        # every line fits, the footer's wrapped too (no path here is wider)
        assert max(len(l) for l in text.splitlines()) <= w
        rows = _rows(text)
        assert len(rows) == len(names) + 1
        for row, name in zip(rows[1:], names):  # preorder, as named_modules
            # the whole name after its tree guide, never cut with "…"
            assert re.search(r"─%s\s" % re.escape(name), row), (w, name, row)
        shown = _header(text)
        hidden, all_w = _hidden(text)
        assert not set(shown) & set(hidden)
        every = set(shown) | set(hidden) if every is None else every
        assert set(shown) | set(hidden) == every, w  # none gone silently
        for t in want:
            assert t in shown or t in hidden
        if hidden:  # the width named shows them all
            full = _header(insp.report(width=all_w))
            assert set(full) == every and not _hidden(insp.report(width=all_w))[0]
        # times in a human unit, never a bare "%.3f" of milliseconds
        for row in rows:
            assert not re.search(r"\s\d+\.\d{3}(\s|$)", row), row
            if "ModuleList" not in row:  # called: a forward time, with its unit
                assert re.search(r"\s\d+(\.\d+)? (ns|us|ms|s)\s", row), row
    return every


def test_gpt2_shaped_table_at_80_100_160():
    torch.manual_seed(0)
    model, ids = GPT2LMHeadModel(), torch.randint(0, 50, (2, 8))
    with nnscan.Inspector(model, static_inputs=ids) as insp:
        model(ids).sum().backward()
    every = _check_table(insp, model, want=("Calls", "Fwd self", "MACs"))
    assert {"FLOPs", "MACs", "FLOP/s", "Bwd time"} <= every


def test_saved_prediction_not_dropped_at_100_with_hardware():
    if not torch.__version__.startswith("2"):
        pytest.skip("predict_training needs PyTorch 2")
    torch.manual_seed(0)
    model, ids = GPT2LMHeadModel(), torch.randint(0, 50, (2, 8))
    with nnscan.Inspector(model, static_inputs=ids, hardware="h100-sxm",
                          predict_training=True) as insp:
        model(ids).sum().backward()
    every = _check_table(insp, model, want=("Saved (pred.)", "Roof", "% roof"))
    assert "Saved (pred.)" in _header(insp.report())  # asked for: kept at 100
    assert "Saved (pred.)" in every
