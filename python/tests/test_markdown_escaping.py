"""Markdown's one escaping rule (issue 47, item 8) in every Markdown table
nnscan writes: the summary, the comparison table, the Inspector's and
thoplw's layers table (which had none). Names a user controls are written
so that GitHub's Markdown shows them as they are: `|` `\\` `` ` `` `*` `_`
`~` `[` `]` `$` backslash-escaped, `<` `>` `&` as entities. The expected
cells are written out by hand from that rule."""
import torch
from torch import nn

import nnscan
from nnscan.report import render_layers

HOSTILE = ["x<!--", "a_b*c", "![i](u)", "~~s~~ $m$", "p|q`r"]
ESCAPED = ["x&lt;!--", "a\\_b\\*c", "!\\[i\\](u)", "\\~\\~s\\~\\~ \\$m\\$",
           "p\\|q\\`r"]


def _cells(line):
    """A Markdown table line's cells, split at the unescaped pipes."""
    out, cur, esc = [], "", False
    for ch in line.strip()[1:-1]:
        if ch == "|" and not esc:
            out.append(cur.strip())
            cur = ""
            continue
        esc = ch == "\\" and not esc
        cur += ch
    out.append(cur.strip())
    return out


def test_layers_table_markdown_uses_the_rule_and_stays_aligned():
    rows = [(n, "Linear", [1, 4], [1, 2], 8, 10) for n in HOSTILE]
    md = render_layers(rows, ("Net", [1, 4], [1, 2], 40, 50), "thoplw",
                       kind="md")
    lines = md.splitlines()
    names = [_cells(l)[0] for l in lines[2:-1]]
    assert names == ESCAPED
    # padded on the escaped text: every line is as long as the header
    assert len({len(l) for l in lines}) == 1, md
    # the text table is not Markdown: names as they are
    text = render_layers(rows, ("Net", [1, 4], [1, 2], 40, 50), "thoplw")
    assert "| a_b*c " in text and "x<!--" in text


class Named(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleDict({n: nn.Linear(4, 4) for n in HOSTILE})

    def forward(self, x):
        for m in self.blocks.values():
            x = m(x)
        return x


def test_summary_markdown_escapes_module_paths():
    s = nnscan.summary(Named(), inputs=torch.randn(1, 4), file=False)
    md = s.to_markdown()
    firsts = [_cells(l)[0] for l in md.splitlines() if l.startswith("|")]
    for esc in ESCAPED:
        assert "blocks." + esc in firsts, (esc, firsts)
    assert "<!--" not in md and "a_b" not in md


def test_inspector_markdown_escapes_module_paths():
    model = Named()
    with nnscan.Inspector(model) as insp:
        model(torch.randn(1, 4))
    md = insp.report("md")
    firsts = [_cells(l)[0] for l in md.splitlines() if l.startswith("|")]
    for esc in ESCAPED:
        assert any(f.endswith(esc) for f in firsts), (esc, firsts)
    assert "<!--" not in md


def test_markdown_footer_escapes_op_and_node_names():
    """The Markdown summary's "Not counted" line names the op type and its
    domain, which come from the file: escaped by the same rule as the
    cells, so `a_b*c` does not turn the rest of the line into emphasis."""
    onnx = __import__("pytest").importorskip("onnx")
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    node = helper.make_node("a_b*c", ["x"], ["y"], name="n[1]",
                            domain="my_dom")
    model = helper.make_model(
        helper.make_graph([node], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 17),
                       helper.make_opsetid("my_dom", 1)])
    s = nnscan.analyze(model.SerializeToString(), name="m")
    md = s.to_markdown()
    line = [l for l in md.splitlines() if l.startswith("Not counted")]
    assert line and "my\\_dom.a\\_b\\*c x1" in line[0], md
    # the text report is not Markdown: the names as they are
    assert "my_dom.a_b*c x1" in s.to_text()
