"""pytest setup: the package from this checkout, the library from the build.

NNSCAN_LIBRARY names the libnnscan to test (CTest passes the one it built);
without it, the first build/*/libnnscan.so of this checkout is used.
"""
import glob
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")

if not os.environ.get("NNSCAN_LIBRARY"):
    found = sorted(glob.glob(os.path.join(ROOT, "build", "*", "libnnscan.so")))
    if found:
        os.environ["NNSCAN_LIBRARY"] = found[0]


@pytest.fixture(scope="session")
def fixtures_dir():
    return FIXTURES



def model_refs(name):
    """PyTorch's own figures for a fixture model: (<name>.ref.json from
    tools/make_fixtures.py, <name>.costs.json from tools/make_costs.py)."""
    out = []
    for ext in (".ref.json", ".costs.json"):
        with open(os.path.join(FIXTURES, name + ext)) as f:
            out.append(json.load(f))
    return tuple(out)
