"""The Inspector's ctypes declarations (nnscan/_inspect_api.py) match the
"Inspection" section of include/nnscan.h: the same checks as
test_header.py (struct sizes and offsets from a C program compiled against
the header, parameter lists from its prototypes), run on the inspector's
tables."""
import pytest

import test_header
from nnscan import _api, _inspect_api as inspector


def test_inspect_structs_match_header(tmp_path, monkeypatch):
    monkeypatch.setattr(_api, "STRUCTS", dict(inspector.STRUCTS))
    test_header.test_struct_layouts_match_header(tmp_path)


def test_inspect_functions_match_header(monkeypatch):
    monkeypatch.setattr(_api, "FUNCTIONS", dict(inspector.FUNCTIONS))
    test_header.test_function_signatures_match_header()


def test_every_inspection_function_declared():
    protos = test_header._prototypes()
    ours = {n for n in protos if n.startswith("nns_inspection_")}
    # The accessors C programs use; the Python side reads the JSON.
    c_only = {"nns_inspection_module_count", "nns_inspection_call_count",
              "nns_inspection_module_stats",
              "nns_inspection_first_nonfinite"}
    assert ours - c_only == set(inspector.FUNCTIONS)
    assert c_only <= ours
    if not ours:
        pytest.fail("no nns_inspection_ functions in the header")
