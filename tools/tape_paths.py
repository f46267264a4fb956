#!/usr/bin/env python3
"""Which path each aten call a test suite records takes (issue 45, item 2:
every call the library's table lowers on the tape): runs pytest with the
recorder's `record` wrapped and counts, per path and op, every recorded
call of the suite's summaries:

  library            record_deferred put it on the tape (the default)
  one-node           tape._one_node (the recorder names the one node)
  t() held           a weight's t() held for the Gemm that reads it
  alias, create      the table's declarative entries (no node, a constant)
  copy alias         a _to_copy to its own dtype, the recorder's alias
  no tensor out      a call returning sizes or a bool: nothing recorded
  uncounted: WHY     a node the library lists as uncounted: the op has no
                     entry in the table, its call reads a complex value
                     in real form the op takes not, or the tape declined
                     the call (a value kind the record has none of)

    cd python && ../tools/tape_paths.py tests -q > paths.txt

Prints the counts per path, then every path but `library` by op, after
pytest's own output (--out FILE first: there instead).
"""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import torch  # noqa: E402
from nnscan import recorder, tape  # noqa: E402

COUNTS = collections.Counter()  # (path, op) -> calls
_CALL = []  # per call being recorded: which tape functions answered


def _noting(fn, key):
    def run(*args):
        got = fn(*args)
        if _CALL:
            _CALL[-1][key] = got
        return got
    return run


def _path(b, base, kind, out, said):
    if not isinstance(out, torch.Tensor) and not any(
            isinstance(o, torch.Tensor) for o in
            (out if isinstance(out, (tuple, list)) else ())):
        return "no tensor out"  # sizes, a bool: nothing recorded
    if isinstance(out, torch.Tensor) and id(out) in b.pending_t:
        return "t() held"
    if kind in ("alias", "create"):
        return kind
    if said.get("deferred"):
        return "library"
    if said.get("kept"):
        return "copy alias"
    if said.get("one_node"):
        return "one-node"
    if kind is None:
        return "uncounted: no entry"
    if "deferred" in said:
        return "uncounted: declined"
    return "uncounted: complex values in real form"


def install():
    tape.record_deferred = _noting(tape.record_deferred, "deferred")
    tape._one_node = _noting(tape._one_node, "one_node")
    recorder._kept_dtype = _noting(recorder._kept_dtype, "kept")
    record = recorder.record

    def counted(b, func, args, kwargs, out):
        base, kind = (b.entries.get(func) or recorder._entry(b, func))[:2]
        _CALL.append({})
        try:
            return record(b, func, args, kwargs, out)
        finally:
            said = _CALL.pop()
            COUNTS[(_path(b, base, kind, out, said), base)] += 1
    recorder.record = counted


def report(out):
    by_path = collections.Counter()
    for (path, _), n in COUNTS.items():
        by_path[path] += n
    lines = ["%-32s %d" % kv for kv in by_path.most_common()] + [""]
    for (path, op), n in sorted(COUNTS.items(),
                                key=lambda kv: (kv[0][0], -kv[1])):
        if path != "library":
            lines.append("%-32s %-40s %d" % (path, op, n))
    text = "\n".join(lines) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    import pytest
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--out"]:
        out, args = args[1], args[2:]
    install()
    status = pytest.main(args)
    report(out)
    sys.exit(status)


if __name__ == "__main__":
    main()
