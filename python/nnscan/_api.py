"""ctypes declarations of the libnnscan functions and structs the package uses.

This file mirrors include/nnscan.h for the part of it Python calls; the test
python/tests/test_header.py compiles small C programs against the header and
fails when a struct's size or a field's offset, an enum value, or a
function's parameter list drifts from what is declared here. `lib()` returns
the loaded library with every signature set, after checking its ABI version,
and fills the words of the enums the library names (optimizers, parameter
kinds, element types, report formats, number styles, wrap modes) and its
opset from the library itself; the module calls it at import.
"""
import ctypes
import re
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_int64, c_size_t, c_uint, c_void_p)

from . import _lib

# The ABI generation this file was written against (NNS_ABI_VERSION).
ABI_VERSION = 2

c_status = c_int
c_int32 = ctypes.c_int32


class NnsError(Structure):
    _fields_ = [("code", c_status), ("offset", c_int64),
                ("node", c_char * 128), ("message", c_char * 512)]


class Sized(Structure):
    """A struct whose first field is its own size (the header's ABI rule)."""

    def __init__(self, *args, **kw):
        super().__init__(ctypes.sizeof(self), *args, **kw)


class LoadOptions(Sized):
    _fields_ = [("size", c_size_t), ("external_dir", c_char_p),
                ("max_depth", c_int), ("flags", c_uint)]


class ModuleHeld(Sized):
    """nns_module_held: what a module's registered tensors hold."""
    _fields_ = [("size", c_size_t), ("trainable", c_int64),
                ("frozen", c_int64), ("param_bytes", c_int64),
                ("buffers", c_int64), ("buffer_bytes", c_int64),
                ("tensors", c_size_t)]


class InputShape(Sized):
    _fields_ = [("size", c_size_t), ("name", c_char_p),
                ("dims", POINTER(c_int64)), ("rank", c_size_t)]


class NodeInfo(Sized):
    """nns_node_info: a node of a model (nns_model_node)."""
    _fields_ = [("size", c_size_t), ("op_type", c_char_p),
                ("domain", c_char_p), ("name", c_char_p),
                ("opset", c_int64), ("graph_depth", c_int),
                ("parent", c_size_t), ("parent_attr", c_char_p),
                ("input_count", c_size_t), ("output_count", c_size_t),
                ("flags", c_uint), ("module_path", c_char_p),
                ("layer", c_size_t), ("kernel", c_size_t),
                ("kernel_nodes", c_size_t)]


class ValueInfo(Sized):
    """nns_value_info: a value of a model (nns_model_value)."""
    _fields_ = [("size", c_size_t), ("name", c_char_p), ("dtype", c_int),
                ("kind", c_int), ("role", c_int), ("rank", c_int),
                ("graph_depth", c_int), ("has_constant", c_int),
                ("producer", c_size_t)]


class InputValue(Sized):
    _fields_ = [("size", c_size_t), ("name", c_char_p),
                ("data", POINTER(c_int64)), ("count", c_size_t)]


class InferOptions(Sized):
    _fields_ = [("size", c_size_t), ("flags", c_uint), ("batch", c_int64),
                ("inputs", POINTER(InputShape)), ("input_count", c_size_t),
                ("values", POINTER(InputValue)), ("value_count", c_size_t)]


class Hardware(Sized):
    """nns_hardware: a device's dense peaks (by compute dtype, in the
    order nns_compute_dtype_name numbers them) and memory bandwidth."""
    _fields_ = [("size", c_size_t), ("name", c_char_p),
                ("description", c_char_p), ("source", c_char_p),
                ("peak_flops", c_double * 6), ("bandwidth", c_double)]


class AnalyzeOptions(Sized):
    _fields_ = [("size", c_size_t), ("optimizer", c_int),
                ("hardware", POINTER(Hardware)), ("compute_dtype", c_char_p),
                ("forward", c_void_p)]


class ReportOptions(Sized):
    _fields_ = [("size", c_size_t), ("format", c_int), ("numbers", c_int),
                ("max_depth", c_int), ("columns", c_uint), ("width", c_int),
                ("wrap", c_int), ("model_name", c_char_p),
                ("model_path", c_char_p), ("json_version", c_int),
                ("backward", c_void_p)]


class LayersRow(Sized):
    """nns_layers_row: one row of a layers table the caller counted."""
    _fields_ = [("size", c_size_t), ("name", c_char_p),
                ("class_name", c_char_p), ("input_shape", POINTER(c_int64)),
                ("input_rank", c_int), ("output_shape", POINTER(c_int64)),
                ("output_rank", c_int), ("macs", c_int64),
                ("params", c_int64)]


class DiffOptions(Sized):
    _fields_ = [("size", c_size_t), ("format", c_int), ("budgets", c_char_p)]


class DiffResult(Sized):
    _fields_ = [("size", c_size_t), ("comparable", c_int),
                ("added", c_size_t), ("removed", c_size_t),
                ("changed", c_size_t), ("unchanged", c_size_t),
                ("budgets", c_int), ("exceeded", c_int), ("withheld", c_int)]


class TrainStep(Sized):
    _fields_ = [("size", c_size_t), ("moment_count", c_size_t),
                ("moment_phase", POINTER(c_int)),
                ("moment_label", POINTER(c_char_p)),
                ("moment_path", POINTER(c_char_p)),
                ("event_count", c_size_t),
                ("event_moment", POINTER(ctypes.c_uint32)),
                ("event_bytes", POINTER(c_int64)),
                ("saved_count", c_size_t),
                ("saved_path", POINTER(c_char_p)),
                ("saved_region", POINTER(c_char_p)),
                ("saved_bytes", POINTER(c_int64)),
                ("saved_made", POINTER(c_int64)),
                ("saved_freed", POINTER(c_int64)),
                ("master_weights", c_int), ("budget_bytes", c_int64),
                ("recorded_on", c_char_p), ("target", c_char_p),
                ("loss", c_char_p), ("forward_set", c_char_p)]


class Parallel(Sized):
    _fields_ = [("size", c_size_t), ("dp", c_int64), ("fsdp", c_int64),
                ("tp", c_int64), ("ep", c_int64),
                ("mesh_count", c_size_t), ("mesh_name", POINTER(c_char_p)),
                ("mesh_size", POINTER(c_int64)),
                ("unit_count", c_size_t), ("unit_path", POINTER(c_char_p)),
                ("tp_count", c_size_t), ("tp_path", POINTER(c_char_p)),
                ("tp_style", POINTER(c_int)),
                ("ep_count", c_size_t), ("ep_path", POINTER(c_char_p)),
                ("ep_topk", POINTER(c_int64)),
                ("budget_bytes", c_int64),
                ("logical_count", c_size_t),
                ("logical_name", POINTER(c_char_p)),
                ("logical_elements", POINTER(c_int64))]


class AtenNumbering(Structure):
    """nns_aten_numbering_info: what the library's lowering of one aten
    call takes under the recorder's numbering (tape.py)."""
    _fields_ = [("size", c_size_t), ("values", c_int64),
                ("constants", c_int64), ("nodes", c_int64),
                ("n_outs", ctypes.c_int32), ("n_tensors", ctypes.c_int32),
                ("out_number", c_int64 * 64),
                ("first_read", ctypes.c_int32 * 64),
                ("op_types", c_char * 1024),
                ("alias_of", ctypes.c_int32 * 64),
                ("read_after", c_int64 * 64)]


# Structs the header test checks: ctypes class -> C type name.
STRUCTS = {
    DiffOptions: "nns_diff_options", DiffResult: "nns_diff_result",
    NnsError: "nns_error", LoadOptions: "nns_load_options",
    InputShape: "nns_input_shape", InputValue: "nns_input_value",
    InferOptions: "nns_infer_options",
    AnalyzeOptions: "nns_analyze_options", ReportOptions: "nns_report_options",
    Hardware: "nns_hardware", LayersRow: "nns_layers_row",
    TrainStep: "nns_train_step", Parallel: "nns_parallel",
    ModuleHeld: "nns_module_held", AtenNumbering: "nns_aten_numbering_info",
}

WRITE_FN = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(c_char), c_size_t)


class _Words(dict):
    """word -> number of one report enum, filled from the library by lib()
    (at import). Without a library nothing can be reported, and a module
    that builds its own table at import (a word looked up then) gets None,
    a number no call will take: every call that reports needs the library
    first and says LibraryNotFound there."""

    def __missing__(self, word):
        if _ready is None:
            try:
                lib()
            except _lib.LibraryNotFound:
                return None
            return self[word]
        raise KeyError(word)


# Report enums: word -> number for nns_report_format, nns_numbers and
# nns_wrap, from the library (nns_report_format_name, ...), never retyped
# here; WRAP also takes "mid" for "middle".
FORMAT = _Words()
TP_STYLE = _Words()  # "colwise", "rowwise" -> nns_tp_style
NUMBERS = _Words()
WRAP = _Words()
COUNT_WIDTH_MAX = 64       # NNS_COUNT_WIDTH_MAX
COUNT_DIGITS_MAX = 20      # NNS_COUNT_DIGITS_MAX
COUNT_SIZE_MAX = 336       # NNS_COUNT_SIZE_MAX
DEPTH_ALL = -1
INFER_FALLBACK_DECLARED = 1 << 0
# Filled from the library by lib() (nnscan.h's X-macro lists, never retyped
# here): word -> number for the optimizers, parameter kinds, training step
# phases and element types, and the opset graphs are built at.
OPTIMIZER = {}
PARAM_KIND = {}
TRAIN_PHASE = {}
DTYPE = {}
PACKED_RECORD = {}  # nns_builder_add_packed's record tags, word -> tag
ATEN_ARG_KIND = {}  # an aten record's argument kinds, word -> number
# the library's aten table: op base name -> (form's word: "unary",
# "binary", "alias", "create", "rule"; what it lowers to)
ATEN_OPS = {}
# op base name -> which outputs its lowering may leave unwritten (bit k:
# output k; nns_aten_op_unwritten), for the ops that may
ATEN_UNWRITTEN = {}
# op base name -> (the tensor arguments its lowering may leave unread, by
# schema name: {name: None (never read) or K (read when output K is
# computed)}, {name: (ARG, V) read only when the int argument ARG is V,
# or None: read for some calls only, none said}) (nns_aten_op_unread), for
# the ops that may leave one unread
ATEN_UNREAD = {}
# op base name -> (MASK, SELF): its lowering reads how many of SELF's
# elements MASK (broadcast) holds, as an INT "tracked_count" past the
# schema's arguments (nns_aten_op_counted), for the ops that read one
ATEN_COUNTED = {}
# op base name -> "makes" (its complex output is always in real form) or
# "reads" (its lowering takes a complex value in real form) for the ops
# whose lowering takes complex values in real form (nns_aten_op_complex)
ATEN_COMPLEX = {}
TENSOR_ROLE = {}  # an inspection record's tensor roles (nns_tensor_role)
COUNT_STYLE = {}  # nns_format_count's styles (nns_count_style)
COL = {}  # the layer table's columns, word -> NNS_COL_* bit (nns_column_name)
METRIC = []  # the counted metrics' keys, in NNS_METRIC_MAP's order
COUNT_FLAG = {}  # a count's flags, v1 JSON word -> NNS_COUNT_* bit
_opset_max = 0
PACKED_VERSION = 1  # NNS_PACKED_VERSION: nns_builder_add_packed's layout

# name -> (restype, argtypes): every function the package calls.
FUNCTIONS = {
    "nns_version": (c_char_p, []),
    "nns_status_name": (c_char_p, [c_status]),
    "nns_dtype_name": (c_char_p, [c_int]),
    "nns_optimizer_name": (c_char_p, [c_int]),
    "nns_report_format_name": (c_char_p, [c_int]),
    "nns_numbers_name": (c_char_p, [c_int]),
    "nns_wrap_name": (c_char_p, [c_int]),
    "nns_column_name": (c_char_p, [c_int]),
    "nns_column_flags": (c_uint, [c_int]),
    "nns_metric_name": (c_char_p, [c_int]),
    "nns_metrics_partial": (c_uint, [c_uint]),
    "nns_count_flag_name": (c_char_p, [c_int]),
    "nns_packed_record_name": (c_char_p, [c_int]),
    "nns_compute_dtype_name": (c_char_p, [c_int]),
    "nns_compute_dtype_of": (c_int, [c_int]),
    "nns_hardware_count": (c_size_t, []),
    "nns_hardware_get": (c_status, [c_size_t, POINTER(Hardware)]),
    "nns_hardware_find": (c_status, [c_char_p, POINTER(Hardware),
                                     POINTER(NnsError)]),
    "nns_hardware_list_open": (c_status, [c_char_p, POINTER(c_void_p),
                                          POINTER(NnsError)]),
    "nns_hardware_list_count": (c_size_t, [c_void_p]),
    "nns_hardware_list_get": (c_status, [c_void_p, c_size_t,
                                         POINTER(Hardware)]),
    "nns_hardware_list_free": (None, [c_void_p]),
    "nns_param_kind_name": (c_char_p, [c_int]),
    "nns_train_phase_name": (c_char_p, [c_int]),
    "nns_tensor_role_name": (c_char_p, [c_int]),
    "nns_count_style_name": (c_char_p, [c_int]),
    "nns_opset_max": (c_int, []),
    "nns_format_count": (c_status, [c_double, c_int, c_int, c_int,
                                    POINTER(c_char), c_size_t,
                                    POINTER(NnsError)]),
    "nns_family_name": (c_char_p, [c_size_t]),
    "nns_aten_op": (c_char_p, [c_size_t, POINTER(c_char_p)]),
    "nns_aten_op_form": (c_int, [c_size_t]),
    "nns_aten_op_unwritten": (c_uint, [c_size_t]),
    "nns_aten_op_unread": (c_char_p, [c_size_t]),
    "nns_aten_op_counted": (c_char_p, [c_size_t]),
    "nns_aten_op_complex": (c_char_p, [c_size_t]),
    "nns_aten_arg_kind_name": (c_char_p, [c_int]),
    "nns_aten_form_name": (c_char_p, [c_int]),
    "nns_aten_numbering": (c_status, [c_void_p, c_size_t,
                                      POINTER(AtenNumbering),
                                      POINTER(NnsError)]),
    "nns_model_load_file": (c_status, [c_char_p, POINTER(LoadOptions),
                                       POINTER(c_void_p), POINTER(NnsError)]),
    "nns_model_load_memory": (c_status, [c_void_p, c_size_t,
                                         POINTER(LoadOptions),
                                         POINTER(c_void_p), POINTER(NnsError)]),
    "nns_model_free": (None, [c_void_p]),
    "nns_model_infer": (c_status, [c_void_p, POINTER(InferOptions),
                                   POINTER(NnsError)]),
    "nns_model_analyze": (c_status, [c_void_p, POINTER(AnalyzeOptions),
                                     POINTER(c_void_p), POINTER(NnsError)]),
    "nns_analysis_free": (None, [c_void_p]),
    "nns_report_uncounted": (c_status, [c_void_p, WRITE_FN, c_void_p,
                                        POINTER(NnsError)]),
    "nns_generation_create": (c_status, [c_int64, c_int64, POINTER(c_void_p),
                                         POINTER(NnsError)]),
    "nns_generation_free": (None, [c_void_p]),
    "nns_generation_set_step": (c_status, [c_void_p, c_int64, c_void_p,
                                           c_int64, c_int64,
                                           POINTER(NnsError)]),
    "nns_generation_report": (c_status, [c_void_p, c_int, c_int, WRITE_FN,
                                         c_void_p, POINTER(NnsError)]),
    "nns_report": (c_status, [c_void_p, POINTER(ReportOptions), WRITE_FN,
                              c_void_p, POINTER(NnsError)]),
    "nns_report_shapes": (c_status, [c_void_p, POINTER(ReportOptions),
                                     WRITE_FN, c_void_p, POINTER(NnsError)]),
    "nns_report_layers": (c_status, [POINTER(LayersRow), c_size_t,
                                     POINTER(LayersRow), c_int,
                                     POINTER(ReportOptions), WRITE_FN,
                                     c_void_p, POINTER(NnsError)]),
    "nns_diff_report": (c_status, [c_char_p, c_size_t, c_char_p, c_size_t,
                                   POINTER(DiffOptions), WRITE_FN, c_void_p,
                                   POINTER(DiffResult), POINTER(NnsError)]),
    "nns_json_check": (c_status, [c_char_p, c_size_t, POINTER(NnsError)]),
    "nns_abi_version": (c_int, []),
    "nns_builder_new": (c_status, [POINTER(c_void_p), POINTER(NnsError)]),
    "nns_builder_free": (None, [c_void_p]),
    "nns_builder_set_producer": (c_status, [c_void_p, c_char_p, c_char_p,
                                            POINTER(NnsError)]),
    "nns_builder_set_graph_name": (c_status, [c_void_p, c_char_p,
                                              POINTER(NnsError)]),
    "nns_builder_add_opset": (c_status, [c_void_p, c_char_p, c_int64,
                                         POINTER(NnsError)]),
    "nns_builder_add_input": (c_status, [c_void_p, c_char_p, c_int, c_int,
                                         POINTER(c_int64), POINTER(c_char_p),
                                         POINTER(NnsError)]),
    "nns_builder_add_output": (c_status, [c_void_p, c_char_p, c_int, c_int,
                                          POINTER(c_int64), POINTER(c_char_p),
                                          POINTER(NnsError)]),
    "nns_builder_add_value_info": (c_status, [c_void_p, c_char_p, c_int,
                                              c_int, POINTER(c_int64),
                                              POINTER(c_char_p),
                                              POINTER(NnsError)]),
    "nns_builder_add_initializer": (c_status, [c_void_p, c_char_p, c_int,
                                               c_int, POINTER(c_int64),
                                               c_void_p, c_size_t,
                                               POINTER(NnsError)]),
    "nns_builder_add_node": (c_status, [c_void_p, c_char_p, c_char_p,
                                        c_char_p, c_char_p, POINTER(c_char_p),
                                        c_size_t, POINTER(c_char_p), c_size_t,
                                        POINTER(NnsError)]),
    "nns_builder_attr_int": (c_status, [c_void_p, c_char_p, c_int64,
                                        POINTER(NnsError)]),
    "nns_builder_attr_float": (c_status, [c_void_p, c_char_p, c_double,
                                          POINTER(NnsError)]),
    "nns_builder_attr_string": (c_status, [c_void_p, c_char_p, c_char_p,
                                           c_size_t, POINTER(NnsError)]),
    "nns_builder_attr_ints": (c_status, [c_void_p, c_char_p, POINTER(c_int64),
                                         c_size_t, POINTER(NnsError)]),
    "nns_builder_attr_floats": (c_status, [c_void_p, c_char_p,
                                           POINTER(c_double), c_size_t,
                                           POINTER(NnsError)]),
    "nns_builder_add_packed": (c_status, [c_void_p, c_char_p, c_size_t,
                                          POINTER(NnsError)]),
    "nns_builder_packed_name": (c_status, [c_void_p, c_char_p,
                                           POINTER(c_char_p),
                                           POINTER(NnsError)]),
    "nns_builder_packed_entries": (c_status, [c_void_p, c_size_t, c_size_t,
                                              POINTER(c_size_t),
                                              POINTER(c_size_t),
                                              POINTER(NnsError)]),
    "nns_builder_finish": (c_status, [c_void_p, POINTER(c_void_p),
                                      POINTER(NnsError)]),
    "nns_model_set_module": (c_status, [c_void_p, c_char_p, c_char_p,
                                        c_size_t, POINTER(NnsError)]),
    "nns_model_set_param_kind": (c_status, [c_void_p, c_char_p, c_int,
                                            POINTER(NnsError)]),
    "nns_model_set_module_macs": (c_status, [c_void_p, c_char_p, c_int64,
                                             POINTER(NnsError)]),
    "nns_model_mask_inputs": (c_status, [c_void_p, POINTER(c_char_p),
                                         c_size_t, POINTER(c_size_t),
                                         POINTER(c_size_t),
                                         POINTER(NnsError)]),
    "nns_model_node_count": (c_size_t, [c_void_p]),
    "nns_model_node": (c_status, [c_void_p, c_size_t, POINTER(NodeInfo)]),
    "nns_model_node_output": (c_status, [c_void_p, c_size_t, c_size_t,
                                         POINTER(c_size_t)]),
    "nns_model_value": (c_status, [c_void_p, c_size_t, POINTER(ValueInfo)]),
    "nns_model_shape_mismatches": (c_status, [c_void_p, POINTER(c_char_p),
                                              c_size_t, POINTER(c_size_t),
                                              POINTER(NnsError)]),
    "nns_model_set_value_data": (c_status, [c_void_p, POINTER(c_char_p),
                                            c_size_t, c_int, c_int,
                                            POINTER(c_int64), c_void_p,
                                            c_size_t, POINTER(NnsError)]),
    "nns_model_set_train_step": (c_status, [c_void_p, POINTER(TrainStep),
                                            POINTER(NnsError)]),
    "nns_model_set_parallel": (c_status, [c_void_p, POINTER(Parallel),
                                          POINTER(NnsError)]),
    "nns_tp_style_name": (c_char_p, [c_int]),
    "nns_model_add_module_tensor": (c_status, [
        c_void_p, c_char_p, c_char_p, c_int, c_int, POINTER(c_int64), c_int,
        POINTER(NnsError)]),
    "nns_model_module_held": (c_status, [c_void_p, c_char_p, c_int,
                                         POINTER(ModuleHeld)]),
}

_ready = None


class NnscanError(RuntimeError):
    """A libnnscan call failed; `status` is its NNS_E_* name."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class AbiMismatch(ImportError):
    """The loaded libnnscan has another ABI than this package expects."""


class Managed:
    """One native handle, as wasmtime-py's _managed.py holds one: close()
    frees it, `with` closes it on leaving the block, `closed` says so, and
    any use after close raises NnscanError. A subclass hands _manage() the
    pointer and the weakref.finalize that frees it: the backstop when the
    object is dropped without close() (and at exit), and what close()
    calls (a finalizer runs once)."""

    _what = "handle"

    def _manage(self, ptr, fin):
        self._ptr = ptr
        self._fin = fin

    @property
    def ptr(self):
        if not self._fin.alive:
            raise NnscanError(
                "NNS_E_STATE", f"the {self._what} is closed: make a new one")
        return self._ptr

    @property
    def closed(self):
        return not self._fin.alive

    def close(self):
        """Frees the native handle now; later calls do nothing."""
        self._fin()

    def __enter__(self):
        self.ptr  # refuses a closed handle
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()


def library_abi(lib):
    """The library's ABI generation (nns_abi_version())."""
    fn = getattr(lib, "nns_abi_version", None)
    if fn is None:
        return 0  # a library from before the ABI was versioned
    fn.restype, fn.argtypes = c_int, []
    return int(fn())


def lib():
    """The library with every declaration set (ABI checked once)."""
    global _ready
    if _ready is not None:
        return _ready
    cdll = _lib.load()
    abi = library_abi(cdll)
    if abi != ABI_VERSION:
        raise AbiMismatch(
            f"libnnscan {cdll.nns_version().decode()} has ABI {abi}; this "
            f"nnscan package needs ABI {ABI_VERSION}: use the library built "
            "from the same source (NNSCAN_LIBRARY) or reinstall the package")
    for name, (res, args) in FUNCTIONS.items():
        try:
            fn = getattr(cdll, name)
        except AttributeError:
            # Same ABI, fewer functions: a library from before this growth.
            raise AbiMismatch(
                f"libnnscan {cdll.nns_version().decode()} (ABI {abi}) has no "
                f"{name}, which this nnscan package calls: the library is "
                "older than the package; use the library built from the "
                "same source (NNSCAN_LIBRARY) or reinstall the package") \
                from None
        fn.restype, fn.argtypes = res, args
    _read_words(cdll)
    _ready = cdll
    return cdll


def _read_words(cdll):
    """The enums' words and the opset, as the library names them."""
    global _opset_max
    for table, fn in ((OPTIMIZER, cdll.nns_optimizer_name),
                      (PARAM_KIND, cdll.nns_param_kind_name),
                      (TRAIN_PHASE, cdll.nns_train_phase_name),
                      (FORMAT, cdll.nns_report_format_name),
                      (NUMBERS, cdll.nns_numbers_name),
                      (WRAP, cdll.nns_wrap_name),
                      (TENSOR_ROLE, cdll.nns_tensor_role_name),
                      (COUNT_STYLE, cdll.nns_count_style_name)):
        i = 0
        while fn(i) is not None:  # numbered from 0, NULL past the last
            table[fn(i).decode()] = i
            i += 1
    WRAP["mid"] = WRAP["middle"]
    i = 0
    while cdll.nns_column_name(i) is not None:  # bits from 0, no gaps
        COL[cdll.nns_column_name(i).decode()] = 1 << i
        i += 1
    i = 0
    while cdll.nns_metric_name(i) is not None:
        METRIC.append(cdll.nns_metric_name(i).decode())
        i += 1
    i = 0
    while cdll.nns_count_flag_name(i) is not None:
        COUNT_FLAG[cdll.nns_count_flag_name(i).decode()] = 1 << i
        i += 1
    i = 1
    while cdll.nns_tp_style_name(i) is not None:  # from 1, no gaps
        TP_STYLE[cdll.nns_tp_style_name(i).decode()] = i
        i += 1
    i = 1
    while cdll.nns_packed_record_name(i) is not None:  # tags from 1, no gaps
        PACKED_RECORD[cdll.nns_packed_record_name(i).decode()] = i
        i += 1
    i = 0
    while cdll.nns_aten_arg_kind_name(i) is not None:  # from 0, no gaps
        ATEN_ARG_KIND[cdll.nns_aten_arg_kind_name(i).decode()] = i
        i += 1
    i, to = 0, c_char_p()
    while cdll.nns_aten_op(i, ctypes.byref(to)) is not None:
        op = cdll.nns_aten_op(i, None).decode()
        ATEN_OPS[op] = (
            cdll.nns_aten_form_name(cdll.nns_aten_op_form(i)).decode(),
            to.value.decode())
        if cdll.nns_aten_op_unwritten(i):
            ATEN_UNWRITTEN[op] = cdll.nns_aten_op_unwritten(i)
        unread = cdll.nns_aten_op_unread(i).decode().split()
        if unread:
            ATEN_UNREAD[op] = (
                {n.partition("/")[0]: int(n.partition("/")[2])
                 if "/" in n else None
                 for n in unread if "?" not in n},
                {n.partition("?")[0]: _read_when(n.partition("?")[2])
                 for n in unread if "?" in n})
        mask, _, self_ = cdll.nns_aten_op_counted(i).decode().partition(">")
        if mask and self_:
            ATEN_COUNTED[op] = (mask, self_)
        role = cdll.nns_aten_op_complex(i).decode()
        if role:
            ATEN_COMPLEX[op] = role
        i += 1
    i = 1
    while cdll.nns_dtype_name(i) != b"unknown":  # numbered 1.. without gaps
        DTYPE[cdll.nns_dtype_name(i).decode()] = i
        i += 1
    _opset_max = cdll.nns_opset_max()


def _read_when(cond):
    """nns_aten_op_unread's "ARG=V" as (ARG, V); None for "" (no condition
    said) or one of another form."""
    arg, eq, v = cond.partition("=")
    try:
        return (arg, int(v)) if eq and arg else None
    except ValueError:
        return None


def optimizer(word):
    """nns_optimizer's number for "sgd", "momentum", "adam"."""
    lib()
    return OPTIMIZER[word]


def optimizers():
    """The optimizers' words, in the library's order ("sgd", ...)."""
    lib()
    return tuple(OPTIMIZER)


def train_phases():
    """"forward", "backward", "optimizer" -> nns_train_phase."""
    lib()
    return TRAIN_PHASE


def param_kinds():
    """"trainable", "buffer", "constant", "frozen" -> nns_param_kind."""
    lib()
    return PARAM_KIND


def dtypes():
    """Element type name ("float32", PyTorch's names) -> ONNX number."""
    lib()
    return DTYPE


def opset_max():
    """The newest ai.onnx opset the library's op table covers."""
    lib()
    return _opset_max


# The opset whose forms the recorded nodes are written in (the aten
# table's lowering, src/ops/aten*.c, gives Reduce* their axes as
# attributes and Split no num_outputs, as up to
# opset 17; PyTorch's TorchScript exporter stops at opset 20), never past
# the library's newest.
_GRAPH_OPSET_FORMS = 17


def graph_opset():
    """The ai.onnx opset of the graphs the package builds or exports."""
    return min(opset_max(), _GRAPH_OPSET_FORMS)


def check(status, err, what):
    """Raise NnscanError for a failed call, with the library's message."""
    if status != 0:
        name = lib().nns_status_name(status).decode()
        msg = err.message.decode(errors="replace") if err is not None else ""
        raise NnscanError(name, f"{what}: {msg or name}")


def format_count(value, style, width, digits):
    """`value` as nns_format_count writes it in `style` ("thop", "thoplw")
    as "%<width>.<digits>f" and its unit (thop, 0, 2: 1824010216 ->
    "1.82G")."""
    buf = ctypes.create_string_buffer(COUNT_SIZE_MAX)  # holds any value
    err = NnsError()
    check(lib().nns_format_count(float(value), COUNT_STYLE[style], width,
                                 digits, buf, len(buf), ctypes.byref(err)),
          err, "nns_format_count")
    return buf.value.decode()


_FIXED = re.compile(r"%([1-9][0-9]*)?(?:\.([0-9]*))?f")


def count_format(fmt, who):
    """(width, digits) of a "%<width>.<digits>f" format, as printf reads it
    ("%f": 6 digits, "%.f": 0); ValueError for any other, which the library
    cannot honour."""
    m = _FIXED.fullmatch(fmt) if isinstance(fmt, str) else None
    width = int(m.group(1) or 0) if m else -1
    digits = -1 if m is None else 6 if m.group(2) is None else \
        int(m.group(2) or 0)
    if not (0 <= width <= COUNT_WIDTH_MAX and 0 <= digits <= COUNT_DIGITS_MAX):
        raise ValueError(
            f"{who}: the format must be '%.<digits>f' or '%<width>.<digits>f' "
            f"(width up to {COUNT_WIDTH_MAX}, 0 to {COUNT_DIGITS_MAX} "
            f"digits), not {fmt!r}")
    return width, digits


def write_collector():
    """(callback, chunks): a WRITE_FN appending to the list `chunks`."""
    chunks = []

    def write(_user, data, size):
        chunks.append(ctypes.string_at(data, size))
        return 0
    return WRITE_FN(write), chunks


# ==== Names ====

_ESCAPED = re.compile(r"\\(\\|x00|u[0-9a-f]{4})")


def c_name(name):
    """A name (module path, value, class, tensor name) as the NUL-terminated
    UTF-8 the C API takes. A name with NUL (which C would cut short), a
    lone surrogate (which UTF-8 cannot hold) or a backslash is escaped:
    NUL as \\x00, a surrogate as \\udXXX, a backslash as \\\\. Distinct names
    stay distinct (every escaped name has a backslash, no name passed as
    it is has one) and py_name() gives the name back."""
    if "\\" not in name and "\0" not in name:
        try:
            return name.encode("utf-8")
        except UnicodeEncodeError:
            pass
    out = []
    for ch in name:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\0":
            out.append("\\x00")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out).encode("utf-8")


def py_name(text):
    """The name c_name() escaped, from the text a report gives back."""
    if "\\" not in text:
        return text
    return _ESCAPED.sub(
        lambda m: "\\" if m.group(1) == "\\" else
        "\0" if m.group(1) == "x00" else chr(int(m.group(1)[1:], 16)), text)


# The words are read at import: the modules that check a format, numbers
# or wrap word take them from the tables above as they are imported. A
# missing library is reported at first use (nnscan/__init__.py); a library
# of another ABI fails the import here.
try:
    lib()
except _lib.LibraryNotFound:
    pass
