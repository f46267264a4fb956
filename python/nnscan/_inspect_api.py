"""ctypes declarations of the "Inspection" section of nnscan.h, used by
nnscan.Inspector (inspector.py) and checked against the header by
tests/test_inspector_header.py. Structs with a leading `size` use _api's
Sized; the error struct, report options and write callback are _api's.
"""
import ctypes
import weakref

from . import _api, _lib

_c = ctypes
_SIZE_MAX = _c.c_size_t(-1).value
_Error = _api.NnsError
_ReportOptions = _api.ReportOptions
_WRITE_FN = _api.WRITE_FN
# Every name handed to the library (module paths, class and tensor names,
# meta keys and values) goes through c_name: NUL and lone surrogates
# escaped, never cut or refused; py_name reads a report's name back.
_name = _api.c_name
py_name = _api.py_name


class _DtypeBytes(_c.Structure):
    _fields_ = [("dtype", _c.c_int), ("bytes", _c.c_int64),
                ("learnable_bytes", _c.c_int64)]


class _Module(_api.Sized):
    _fields_ = [("size", _c.c_size_t), ("path", _c.c_char_p),
                ("type", _c.c_char_p), ("parent", _c.c_size_t),
                ("params", _c.c_int64), ("learnable_params", _c.c_int64),
                ("param_bytes", _c.c_int64), ("grad_bytes", _c.c_int64),
                ("flops", _c.c_int64), ("macs", _c.c_int64),
                ("param_dtypes", _c.POINTER(_DtypeBytes)),
                ("param_dtype_count", _c.c_size_t),
                ("roofline_ms", _c.c_double),
                ("saved_bytes", _c.c_int64)]


class _Param(_api.Sized):
    _fields_ = [("size", _c.c_size_t), ("module", _c.c_size_t),
                ("tensor", _c.c_uint64), ("dtype", _c.c_int),
                ("element_bits", _c.c_int), ("elements", _c.c_int64),
                ("learnable", _c.c_int)]


class _Tensor(_c.Structure):
    _fields_ = [("role", _c.c_int), ("dtype", _c.c_int), ("rank", _c.c_int),
                ("flags", _c.c_uint), ("dims", _c.c_size_t),
                ("name", _c.c_char_p), ("bytes", _c.c_int64),
                ("min", _c.c_double), ("max", _c.c_double),
                ("mean", _c.c_double), ("std", _c.c_double),
                ("zero_fraction", _c.c_double)]


class _Event(_c.Structure):
    _fields_ = [("time_ms", _c.c_double), ("alloc_bytes", _c.c_int64),
                ("live_bytes", _c.c_int64)]


class _Call(_c.Structure):
    _fields_ = [("module", _c.c_size_t), ("parent", _c.c_size_t),
                ("flags", _c.c_uint), ("fwd_seq", _c.c_int64),
                ("bwd_seq", _c.c_int64), ("fwd_start", _Event),
                ("fwd_end", _Event), ("bwd_start", _Event),
                ("bwd_end", _Event), ("tensor_first", _c.c_size_t),
                ("tensor_count", _c.c_size_t)]


class _Batch(_api.Sized):
    _fields_ = [("size", _c.c_size_t), ("rank", _c.c_int),
                ("pass", _c.c_int64), ("wall_start", _c.c_double),
                ("calls", _c.POINTER(_Call)), ("call_count", _c.c_size_t),
                ("call_size", _c.c_size_t),
                ("tensors", _c.POINTER(_Tensor)),
                ("tensor_count", _c.c_size_t), ("tensor_size", _c.c_size_t),
                ("dims", _c.POINTER(_c.c_int64)), ("dim_count", _c.c_size_t)]


_COMM_KINDS = 4  # NNS_COMM_KIND_COUNT; the words: _api.COMM_KIND


class _PerRank(_api.Sized):
    _fields_ = [("size", _c.c_size_t), ("world_size", _c.c_int64),
                ("params", _c.c_int64), ("param_bytes", _c.c_int64),
                ("grad_bytes", _c.c_int64), ("optimizer_bytes", _c.c_int64),
                ("saved_bytes", _c.c_int64),
                ("train_peak_bytes", _c.c_int64), ("flops", _c.c_int64),
                ("macs", _c.c_int64), ("comm_bytes", _c.c_int64),
                ("comm", _c.c_int64 * _COMM_KINDS),
                ("budget_bytes", _c.c_int64), ("fits", _c.c_int),
                ("grow", _c.c_char_p), ("estimate", _c.c_int)]


class _Rank(_api.Sized):
    _fields_ = [("size", _c.c_size_t), ("rank", _c.c_int),
                ("comm_calls", _c.c_int64 * _COMM_KINDS),
                ("comm_bytes", _c.c_int64 * _COMM_KINDS),
                ("counts", _c.POINTER(_PerRank)),
                ("mesh_count", _c.c_size_t),
                ("mesh_name", _c.POINTER(_c.c_char_p)),
                ("mesh_size", _c.POINTER(_c.c_int64))]


STRUCTS = {_DtypeBytes: "nns_inspect_dtype_bytes",
           _PerRank: "nns_per_rank", _Rank: "nns_inspect_rank",
           _Module: "nns_inspect_module", _Param: "nns_inspect_param",
           _Tensor: "nns_inspect_tensor",
           _Event: "nns_inspect_event", _Call: "nns_inspect_call",
           _Batch: "nns_inspect_batch"}

_p, _E = _c.c_void_p, _c.POINTER(_Error)
# name -> (restype, argtypes), like _api.FUNCTIONS.
FUNCTIONS = {
    "nns_inspection_create": (_c.c_int, [_c.POINTER(_p), _E]),
    "nns_inspection_free": (None, [_p]),
    "nns_inspection_add_module": (
        _c.c_int, [_p, _c.POINTER(_Module), _c.POINTER(_c.c_size_t), _E]),
    "nns_inspection_add_params": (
        _c.c_int, [_p, _c.POINTER(_Param), _c.c_size_t, _E]),
    "nns_inspection_set_meta": (_c.c_int, [_p, _c.c_char_p, _c.c_char_p,
                                           _E]),
    "nns_inspection_add_batch": (_c.c_int, [_p, _c.POINTER(_Batch), _E]),
    "nns_inspection_set_rank": (_c.c_int, [_p, _c.POINTER(_Rank), _E]),
    "nns_analysis_per_rank": (_c.c_int, [_p, _c.POINTER(_PerRank)]),
    "nns_analysis_mesh_count": (_c.c_size_t, [_p]),
    "nns_comm_kind_name": (_c.c_char_p, [_c.c_int]),
    "nns_analysis_mesh": (_c.c_int, [_p, _c.c_size_t,
                                     _c.POINTER(_c.c_char_p),
                                     _c.POINTER(_c.c_int64)]),
    "nns_inspection_report": (
        _c.c_int, [_p, _c.POINTER(_ReportOptions), _WRITE_FN, _p, _E]),
    "nns_inspection_report_seed": (
        _c.c_int, [_p, _c.POINTER(_ReportOptions), _WRITE_FN, _p, _E]),
}

# Roles by the library's words (nns_tensor_role_name, read at import;
# None without a library, when nothing can be inspected anyway), flags
# (nnscan.h).
_INPUT, _OUTPUT, _GRAD_INPUT, _GRAD_OUTPUT = (
    _api.TENSOR_ROLE.get(w)
    for w in ("input", "output", "grad_input", "grad_output"))
_T_NAN, _T_INF, _T_CHECKED, _T_STATS = 1, 2, 4, 8
_C_RAISED, _C_NO_GRAD, _C_BACKWARD = 1, 2, 4
# The report formats nns_inspection_report takes (the shapes ones are not),
# "markdown" also for "md"; numbers are looked up when a report is asked.
_FORMAT_WORDS = ("text", "csv", "md", "json", "html")
_NUMBERS = _api.NUMBERS


def _format(word):
    """nns_report_format of an inspection report's format word."""
    word = "md" if word == "markdown" else word
    if word not in _FORMAT_WORDS:
        raise KeyError(word)
    return _api.FORMAT[word]

def _lib_inspect():
    """The library, with the inspection functions' signatures declared."""
    return _lib.declared(FUNCTIONS)


class Inspection(_api.Managed):
    """An nns_inspection * (wasmtime-py's pattern, as _api.Managed): freed
    by close() or, as a backstop, when dropped; any use after close raises
    NnscanError (NNS_E_STATE)."""

    _what = "inspection"

    def __init__(self, ptr):
        self._manage(ptr, weakref.finalize(
            self, _lib_inspect().nns_inspection_free, ptr))


class InspectionError(RuntimeError):
    """libnnscan refused something the inspector handed it."""


def _check(status, err):
    if status != 0:
        raise InspectionError(err.message.decode("utf-8", "replace"))
