"""nnscan.compare(before, after): what changed between two analyses.

A thin layer over the library's nns_diff_report: both sides become
`nnscan.summary` documents (a Summary's version 2 from the library, or a
saved document of either version as it is), and the library matches the
layers by path and call index, gives deltas only where both sides are
complete and the runs alike, checks the budgets, and writes the text, the
`nnscan.diff` JSON and the HTML page. Nothing here counts or compares.
"""
import ctypes
import json
import os

from . import _api
from .report import Summary, analyze, load_summary



def _document(side):
    """The JSON text of one side: a Summary (a live analysis gives its
    version 2 document), a dict, JSON text, or a path to a saved .json or
    an .onnx file (analysed here)."""
    if isinstance(side, Summary):
        if getattr(side, "_text", None) is not None and side.analysis is None:
            return side._text
        doc = side.v2 if (side.analysis is not None or side._v2 is not None) \
            else side.json
        return json.dumps(doc)
    if isinstance(side, dict):
        return json.dumps(side)
    if isinstance(side, (bytes, bytearray)):
        return bytes(side).decode("utf-8")
    if isinstance(side, str) and side.lstrip().startswith("{"):
        return side
    if isinstance(side, (str, os.PathLike)):
        path = os.fspath(side)
        with open(path, "rb") as f:
            head = f.read(64).lstrip()
        if head.startswith(b"{"):
            # As saved, for the library's reader: its rules (counts,
            # duplicate keys, depth) are the CLI's, read once in C.
            with open(path, "rb") as f:
                return f.read().decode("utf-8")
        return json.dumps(analyze(path).v2)
    raise TypeError("compare takes Summaries, summary documents (dict or "
                    f"JSON text) or paths, not {type(side).__name__}")


def _budget_text(budgets):
    """The budgets as the library takes them. Given but blank ("", [""],
    "  ") is an error: a gate switched off by an empty value would pass
    everything (the library refuses an empty item between commas)."""
    if budgets is None:
        return None
    if isinstance(budgets, str):
        items = [budgets]
    elif isinstance(budgets, (list, tuple)):
        items = list(budgets)
        for b in items:
            if not isinstance(b, str):
                raise TypeError("budgets: a string or a list of strings "
                                f"('macs > +5%'), not {type(b).__name__}")
    else:
        raise TypeError("budgets: a string or a list of strings ('macs > "
                        f"+5%'), not {type(budgets).__name__} {budgets!r:.60}")
    if not items or any(not b.strip() for b in items):
        raise ValueError(f"budgets {budgets!r}: an empty budget (each is "
                         "METRIC OP [+|-]N[%], e.g. 'macs > +5%')")
    return ", ".join(items)


def _diff(before, after, fmt, budgets):
    lib = _api.lib()
    b, a = _document(before).encode(), _document(after).encode()
    opts = _api.DiffOptions(_api.FORMAT[fmt], (_budget_text(budgets) or "").encode())
    res = _api.DiffResult()
    err = _api.NnsError()
    cb, chunks = _api.write_collector()
    st = lib.nns_diff_report(b, len(b), a, len(a), ctypes.byref(opts), cb,
                             None, ctypes.byref(res), ctypes.byref(err))
    _api.check(st, err, "diff")
    return b"".join(chunks).decode(), res


class Comparison:
    """Two analyses compared (the `nnscan.diff` document, docs/json.md).

    `.json` the document; `.added`, `.removed`, `.changed` its layer lists;
    `.comparable` whether the runs are alike (else every delta is
    withheld); `.budgets` the budgets with their status; `.exceeded` and
    `.withheld` how many budgets failed or could not be checked; `ok` when
    neither. `to_text()`, `to_html()` and `str()` are the library's
    renderings."""

    def __init__(self, before, after, budgets=None):
        self._sides = (before, after)
        self._budgets = budgets
        text, res = _diff(before, after, "json", budgets)
        self.json = json.loads(text)
        self.comparable = bool(res.comparable)
        self.exceeded = res.exceeded
        self.withheld = res.withheld

    @property
    def added(self):
        return self.json["added"]

    @property
    def removed(self):
        return self.json["removed"]

    @property
    def changed(self):
        return self.json["changed"]

    @property
    def budgets(self):
        return self.json["budgets"]

    @property
    def ok(self):
        return self.exceeded == 0 and self.withheld == 0

    def totals(self, metric):
        """{"before", "after", "delta", "delta_pct"} of a total."""
        return self.json["totals"]["metrics"][metric]

    def to_text(self):
        return _diff(*self._sides, "text", self._budgets)[0]

    def to_html(self):
        return _diff(*self._sides, "html", self._budgets)[0]

    def to_json(self, indent=None):
        return json.dumps(self.json, indent=indent)

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        c = self.json["counts"]
        return (f"<nnscan.Comparison {self.json['before']['name']} -> "
                f"{self.json['after']['name']}: {c['changed']} changed, "
                f"{c['added']} added, {c['removed']} removed>")


def compare(before, after, budgets=None):
    """Compare two analyses: Summaries (nnscan.analyze, nnscan.summary of a
    torch model), saved `nnscan.summary` documents (dicts, JSON text or
    .json paths, version 1 or 2) or .onnx paths. budgets: "macs > +5%" or a
    list of them (docs/cli.md, --fail-if). Returns a Comparison."""
    return Comparison(before, after, budgets)
