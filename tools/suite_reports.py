#!/usr/bin/env python3
"""Every nnscan.summary report a test suite makes, saved, and two saved
runs compared: the byte identity of the suites' reports before and after
a change (issue 45, item 2: the rules' move into the library), where
bench/same_summary.py covers the zoos.

    cd python && ../tools/suite_reports.py --save DIR tests -q
    ... (the change) ...
    cd python && ../tools/suite_reports.py --save DIR2 tests -q
    tools/suite_reports.py --compare DIR DIR2

--save runs pytest with the rest of the arguments and nnscan.summary
wrapped: each report of each call is written to DIR, named by the test
and the call's number within it: JSON v2, text, CSV and, with
backward=True, the backward table's text and JSON v2. The call itself is
made once, as the test asked. --compare prints each report that differs
or that one run made and the other did not (a test added, removed or
renamed between the two), and exits 1 when any report of a test both
runs made differs. Run it with PYTHONHASHSEED=0 (set here when unset, by
re-executing) so that set orders agree between the two runs.
"""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _forms(s):
    out = [("json", s.to_json(version=2)), ("txt", s.to_text()),
           ("csv", s.to_csv())]
    back = getattr(s, "backward", None)
    if back is not None:
        out += [("back.json", back.to_json(version=2)),
                ("back.txt", back.to_text())]
    return out


FORMS = ("json", "txt", "csv", "back.json", "back.txt", "error")


def _file_name(test, k):
    """A file name for the k-th call of `test` (its node id hashed: ids
    hold brackets, slashes and any parameter's text)."""
    digest = hashlib.sha1(test.encode()).hexdigest()[:16]
    return f"{digest}.{k}"


def save(out_dir, args):
    import pytest
    sys.path.insert(0, os.path.join(os.getcwd()))
    from nnscan import torch_api
    os.makedirs(out_dir, exist_ok=True)
    summary = torch_api.summary
    counts = {}
    index = open(os.path.join(out_dir, "INDEX"), "w")

    def saved(*a, **kw):
        s = summary(*a, **kw)
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
        k = counts[test] = counts.get(test, 0) + 1
        base = _file_name(test, k)
        try:
            forms = _forms(s)
        except Exception as e:  # noqa: BLE001 - saved as what it said
            forms = [("error", f"{type(e).__name__}: {e}")]
        for form, text in forms:
            with open(os.path.join(out_dir, f"{base}.{form}"), "w") as f:
                f.write(text)
        index.write(f"{base}\t{test}\t{k}\n")
        index.flush()
        return s
    torch_api.summary = saved
    status = pytest.main(args)
    index.close()
    print(f"\nsuite_reports: {sum(counts.values())} summaries of "
          f"{len(counts)} tests saved in {out_dir}")
    return int(status)


def _index(d):
    with open(os.path.join(d, "INDEX")) as f:
        return {line.split("\t")[0]: line.split("\t")[1]
                for line in f.read().splitlines() if line}


def compare(a, b):
    ia, ib = _index(a), _index(b)
    both = sorted(set(ia) & set(ib))
    differ = 0
    for base in both:
        for form in FORMS:
            texts = []
            for d in (a, b):
                p = os.path.join(d, f"{base}.{form}")
                texts.append(open(p).read() if os.path.exists(p) else None)
            if texts[0] != texts[1]:
                differ += 1
                print(f"differs: {ia[base]} (call {base.split('.')[1]}) "
                      f"{form}")
    only = [(ia.get(k) or ib.get(k), "first" if k in ia else "second")
            for k in sorted(set(ia) ^ set(ib))]
    tests = sorted({t for t, _ in only})
    for t in tests:
        print(f"made by one run only: {t}")
    print(f"suite_reports: {len(both)} summaries in both, {differ} reports "
          f"differ; {len(only)} summaries of {len(tests)} tests in one "
          f"run only")
    return 1 if differ else 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["--compare"] and len(args) == 3:
        return compare(args[1], args[2])
    if args[:1] != ["--save"] or len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if "PYTHONHASHSEED" not in os.environ:
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    return save(args[1], args[2:])


if __name__ == "__main__":
    sys.exit(main())
