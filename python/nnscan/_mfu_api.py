"""ctypes declarations of the "MFU" section of nnscan.h (nns_step_flops_of,
nns_mfu_compute and their reports), used by nnscan.StepMeter (step.py) and
checked against the header by tests/test_step_meter.py."""
import ctypes
from ctypes import POINTER, c_char_p, c_double, c_int, c_int64, c_size_t, \
    c_uint, c_void_p

from . import _api, _lib

_c_status = ctypes.c_int


class StepFlops(_api.Sized):
    _fields_ = [("size", c_size_t), ("model_flops", c_int64),
                ("model_flops_dense", c_int64), ("forward_flops", c_int64),
                ("backward_flops", c_int64), ("recompute_flops", c_int64),
                ("recompute_flops_dense", c_int64),
                ("hardware_flops", c_int64), ("all_flops", c_int64),
                ("tokens", c_int64), ("flags", c_uint)]


class MfuOptions(_api.Sized):
    _fields_ = [("size", c_size_t), ("hardware", POINTER(_api.Hardware)),
                ("step_dtype", c_char_p), ("peak_dtype", c_char_p),
                ("peak_flops", c_double)]


class Mfu(_api.Sized):
    _fields_ = [("size", c_size_t), ("step_s", c_double),
                ("samples", c_int64), ("tokens", c_int64),
                ("samples_per_s", c_double), ("tokens_per_s", c_double),
                ("model_flops_per_s", c_double),
                ("hardware_flops_per_s", c_double),
                ("peak_flops", c_double), ("peak_dtype", c_int),
                ("density", c_char_p), ("device", c_char_p),
                ("mfu", c_double), ("hfu", c_double)]


STRUCTS = {StepFlops: "nns_step_flops", MfuOptions: "nns_mfu_options",
           Mfu: "nns_mfu"}

_E = POINTER(_api.NnsError)
FUNCTIONS = {
    "nns_step_flops_of": (_c_status, [c_void_p, c_void_p, POINTER(c_char_p),
                                      c_size_t, POINTER(StepFlops), _E]),
    "nns_mfu_compute": (_c_status, [POINTER(StepFlops), c_double, c_int64,
                                    c_int64, POINTER(MfuOptions),
                                    POINTER(Mfu), _E]),
    "nns_mfu_json_line": (_c_status, [c_int64, c_int, POINTER(StepFlops),
                                      POINTER(Mfu), _api.WRITE_FN, c_void_p,
                                      _E]),
    "nns_mfu_text_row": (_c_status, [c_int64, POINTER(Mfu), c_int,
                                     _api.WRITE_FN, c_void_p, _E]),
    "nns_mfu_html": (_c_status, [POINTER(c_int64), POINTER(c_double),
                                 POINTER(c_double), POINTER(c_double),
                                 c_size_t, c_char_p, _api.WRITE_FN, c_void_p,
                                 _E]),
}

def lib():
    """The library, with this section's signatures declared."""
    _api.lib()  # the ABI check, the enums
    return _lib.declared(FUNCTIONS)


def step_flops(forward, backward, recomputed=()):
    """nns_step_flops_of over two Analysis objects; a StepFlops."""
    out = StepFlops()
    err = _api.NnsError()
    paths = [_api.c_name(p) for p in recomputed]
    arr = (c_char_p * max(1, len(paths)))(*paths)
    _api.check(lib().nns_step_flops_of(forward.ptr, backward.ptr, arr,
                                       len(paths), ctypes.byref(out),
                                       ctypes.byref(err)),
               err, "step FLOPs")
    return out


def compute(flops, step_s, samples, tokens, hardware, step_dtype,
            peak_dtype=None, peak_flops=None):
    """nns_mfu_compute; an Mfu (NnscanError for a peak that cannot apply
    or an MFU above 100 %). hardware: an nns_hardware (Hardware) or None."""
    opts = MfuOptions(ctypes.pointer(hardware) if hardware is not None
                      else None, step_dtype.encode(),
                      peak_dtype.encode() if peak_dtype else None,
                      float(peak_flops or 0))
    out = Mfu()
    err = _api.NnsError()
    _api.check(lib().nns_mfu_compute(ctypes.byref(flops), float(step_s),
                                     int(samples), int(tokens),
                                     ctypes.byref(opts), ctypes.byref(out),
                                     ctypes.byref(err)),
               err, "MFU")
    out._keep = hardware  # out.device points into it
    return out


def _written(call, what):
    cb, chunks = _api.write_collector()
    err = _api.NnsError()
    _api.check(call(cb, None, ctypes.byref(err)), err, what)
    return b"".join(chunks).decode()


def json_line(step, rank, flops, mfu):
    return _written(lambda cb, u, e: lib().nns_mfu_json_line(
        int(step), int(rank), ctypes.byref(flops), ctypes.byref(mfu), cb, u,
        e), "JSON line")


def text_row(step, mfu, header):
    return _written(lambda cb, u, e: lib().nns_mfu_text_row(
        int(step), ctypes.byref(mfu), int(bool(header)), cb, u, e),
        "table row")


def html(steps, step_s, mfu, hfu, title):
    n = len(steps)
    arrs = ((c_int64 * max(1, n))(*steps), (c_double * max(1, n))(*step_s),
            (c_double * max(1, n))(*mfu), (c_double * max(1, n))(*hfu))
    return _written(lambda cb, u, e: lib().nns_mfu_html(
        *arrs, n, title.encode() if title else None, cb, u, e), "page")
