"""The reports the recorder's rules gave, frozen when they went.

Until session 107 every call a recording made could be lowered two ways:
by python/nnscan/ops_map.py's rules, and by the library's aten table
(src/ops/aten*.c) from the tape. The tests of the tape compared the two,
report by report. The rules are gone; what they reported on those
tests' models stays, as a digest per report, in data/rules_reference/,
one file per PyTorch version (and transformers version, for the HF
suite's models, whose code is theirs): written by
tools/rules_reference.py at the last revision that had the rules
(572f52dc, where tools/tape_same.py found every summary of both suites
the rules' on the library's numbering: 1,385 on 1.13, 1,999 on 2.14).

check(request, forms) compares the reports a test makes now with the
rules' for that test (its node id and, where it makes several, `part`).
Where no reference was frozen for this PyTorch (a newer one than the
suites ran on then), the comparison is skipped, saying so; the tests'
own assertions (hand-computed figures, PyTorch's own counts) still run.
A report that differs fails, naming the test and the part.
"""
import hashlib
import json
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "rules_reference")
# NNSCAN_RULES_REFERENCE_WRITE=DIR: record each test's digests into DIR
# instead of comparing (tools/rules_reference.py, at the rules' revision)
WRITE = "NNSCAN_RULES_REFERENCE_WRITE"


def _versions(hf):
    import torch
    v = "torch-" + ".".join(torch.__version__.split("+")[0].split(".")[:2])
    if hf:
        import transformers
        v += "-transformers-" + ".".join(
            transformers.__version__.split(".")[:2])
    return v


def digest(forms):
    """One digest of a report's forms (each a str), in order: SHA-256's
    first 64 bits, plenty to tell a changed report from the same."""
    h = hashlib.sha256()
    for text in forms:
        h.update(text.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


_LOADED = {}


def _reference(name):
    if name not in _LOADED:
        path = os.path.join(DATA, name + ".json")
        try:
            with open(path) as f:
                _LOADED[name] = json.load(f)["reports"]
        except FileNotFoundError:
            _LOADED[name] = None
    return _LOADED[name]


def check(request, forms, part="", hf=False):
    """Asserts the reports `forms` (a list of str, or anything whose repr
    is the outcome: an error's type and message) are the rules' for this
    test and part."""
    if not isinstance(forms, (list, tuple)) or \
            not all(isinstance(f, str) for f in forms):
        forms = [repr(forms)]
    key = request.node.nodeid.split("::", 1)[1] + (f"#{part}" if part
                                                   else "")
    got = digest(forms)
    name = _versions(hf)
    module = os.path.basename(str(getattr(request.node, "path", None)
                                  or request.node.fspath))
    out = os.environ.get(WRITE)
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, name + ".tsv"), "a") as f:
            f.write(f"{module}::{key}\t{got}\n")
        return
    ref = _reference(name)
    if ref is None:
        pytest.skip(f"no report of the rules frozen for {name} "
                    f"(data/rules_reference/)")
    want = ref.get(f"{module}::{key}")
    assert want is not None, \
        f"{module}::{key}: no report of the rules frozen for it ({name})"
    assert got == want, \
        f"{module}::{key}: the report is not the rules' ({name})"
