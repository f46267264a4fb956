#!/usr/bin/env python3
"""Freezes the reports the recorder's rules gave on the tape's tests
(python/tests/rules_reference.py reads them).

    tools/rules_reference.py BASE -- PYTEST_ARGS...

BASE: a checkout of the last revision that had python/nnscan/ops_map.py
(572f52dc), built (BASE/build/alt/libnnscan.so), its python/tests and
python/tests_hf replaced by this checkout's (the tests that call
rules_reference.check). Runs pytest there with NNSCAN_TAPE_NUMBERED=0
(every call through its rule) and NNSCAN_RULES_REFERENCE_WRITE, then
merges what each test recorded into this checkout's
python/tests/data/rules_reference/<torch version>[-transformers-...].json.
Run it once per PyTorch (the host's 1.13; the sid chroot's 2.x):

    tools/rules_reference.py /work/tmp/base -- tests -q -k "tape"
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "python", "tests", "data", "rules_reference")


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    base, pytest_args = os.path.abspath(args[0]), args[2:]
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, NNSCAN_TAPE_NUMBERED="0",
                   NNSCAN_RULES_REFERENCE_WRITE=out,
                   NNSCAN_LIBRARY=os.path.join(base, "build", "alt",
                                               "libnnscan.so"))
        status = subprocess.call(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
            + pytest_args, cwd=os.path.join(base, "python"), env=env)
        os.makedirs(DATA, exist_ok=True)
        for name in sorted(os.listdir(out)):
            version = name[:-len(".tsv")]
            path = os.path.join(DATA, version + ".json")
            reports = {}
            if os.path.exists(path):
                with open(path) as f:
                    reports = json.load(f)["reports"]
            with open(os.path.join(out, name)) as f:
                for line in f.read().splitlines():
                    key, digest = line.split("\t")
                    if reports.get(key, digest) != digest:
                        print(f"rules_reference: {key} gave two reports",
                              file=sys.stderr)
                        status = 1
                    reports[key] = digest
            with open(path, "w") as f:
                json.dump({"version": 1, "made_by": "tools/rules_reference.py",
                           "rules_revision": "572f52dc",
                           "reports": dict(sorted(reports.items()))},
                          f, indent=0)
                f.write("\n")
            print(f"rules_reference: {len(reports)} reports in {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
