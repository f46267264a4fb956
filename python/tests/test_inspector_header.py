"""The Inspector's ctypes declarations (nnscan/_inspect_api.py) match the
"Inspection" section of include/nnscan.h: the same checks as
test_header.py (struct sizes and offsets from a C program compiled against
the header, parameter lists from its prototypes, enum values), run on the
inspector's tables."""
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
              "nns_inspection_first_nonfinite", "nns_inspection_module",
              "nns_inspection_call", "nns_inspection_call_tensor",
              "nns_inspection_batch_count", "nns_inspection_batch",
              "nns_inspection_meta_count", "nns_inspection_meta",
              "nns_inspection_rank_count", "nns_inspection_rank"}
    assert ours - c_only == {n for n in inspector.FUNCTIONS
                             if n.startswith("nns_inspection_")}
    assert c_only <= ours
    if not ours:
        pytest.fail("no nns_inspection_ functions in the header")


def test_inspect_enums_match_header(tmp_path):
    i = inspector
    test_header.check_compiled_values(tmp_path, [
        ("NNS_TENSOR_INPUT", i._INPUT), ("NNS_TENSOR_OUTPUT", i._OUTPUT),
        ("NNS_TENSOR_GRAD_INPUT", i._GRAD_INPUT),
        ("NNS_TENSOR_GRAD_OUTPUT", i._GRAD_OUTPUT),
        ("NNS_TENSOR_NAN", i._T_NAN), ("NNS_TENSOR_INF", i._T_INF),
        ("NNS_TENSOR_CHECKED", i._T_CHECKED), ("NNS_TENSOR_STATS", i._T_STATS),
        ("NNS_CALL_RAISED", i._C_RAISED), ("NNS_CALL_NO_GRAD", i._C_NO_GRAD),
        ("NNS_CALL_BACKWARD", i._C_BACKWARD)]
        + [(f"NNS_FORMAT_{k.upper()}", i._format(k))
           for k in i._FORMAT_WORDS])
