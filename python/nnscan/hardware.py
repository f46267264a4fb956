"""The devices the roofline knows, as the library ships them
(nns_hardware_*), and devices of the user's own.

    nnscan.hardware.devices()             # [{"name": "h100-sxm", ...}, ...]
    nnscan.hardware.devices("my.hw")      # the file's devices first
    nnscan.analyze("m.onnx", hardware="h100-sxm", compute_dtype="bf16")
    nnscan.analyze("m.onnx", hardware={"name": "cpu", "peak_flops": 2e12,
                                       "bandwidth": 80e9})

A dict names a device from the table (its figures then override the
table's) or describes a new one: "peak_flops" is one number for every
compute dtype or {"bf16": ..., "fp32": ...}; "bandwidth" is bytes/s. The
figures themselves live in the library (src/analyze/hardware.c), never
here.
"""
import ctypes
import os

from . import _api, _args


def _dtype_names():
    return _args.compute_dtypes()


def _as_dict(h):
    names = _dtype_names()
    return {"name": h.name.decode(), "description": h.description.decode(),
            "source": h.source.decode(),
            "peak_flops": {d: (h.peak_flops[i] or None)
                           for i, d in enumerate(names)},
            "bandwidth": h.bandwidth or None}


def devices(file=None):
    """Every device: those of `file` (docs/roofline.md's format) first,
    then the library's table, as dicts."""
    lib = _api.lib()
    out = []
    if file is not None:
        # the library refuses a file that is not UTF-8 text, naming the
        # byte, so the names below always decode
        _args.path("nnscan.hardware.devices()", "file", file)
        handle, err = ctypes.c_void_p(), _api.NnsError()
        st = lib.nns_hardware_list_open(os.fsencode(file),
                                        ctypes.byref(handle),
                                        ctypes.byref(err))
        _api.check(st, err, "reading the hardware file")
        try:
            for i in range(lib.nns_hardware_list_count(handle)):
                h = _api.Hardware()
                lib.nns_hardware_list_get(handle, i, ctypes.byref(h))
                out.append(_as_dict(h))
        finally:
            lib.nns_hardware_list_free(handle)
    for i in range(lib.nns_hardware_count()):
        h = _api.Hardware()
        lib.nns_hardware_get(i, ctypes.byref(h))
        out.append(_as_dict(h))
    return out


def _figure(what, v):
    """A figure as the library takes it: a real number. Its range (1e6 to
    1e21, finite) is checked once, by the library, for every way in."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"hardware {what}: a number (FLOP/s or bytes/s, e.g. "
                        f"2e12), not {v!r}")
    try:
        return float(v)
    except OverflowError:
        raise ValueError(f"hardware {what}: {v} is not a number from 1e6 to "
                         "1e21") from None


def struct(device):
    """An nns_hardware for analyze(): a device name, or a dict (above)."""
    lib = _api.lib()
    h = _api.Hardware()
    if isinstance(device, str):
        device = {"name": device}
    if not isinstance(device, dict) or "name" not in device:
        raise TypeError("hardware takes a device name ('h100-sxm') or a "
                        "dict with a 'name', not " + _args.given(device))
    if not isinstance(device["name"], str):
        raise TypeError("hardware's 'name' takes a str, not "
                        + _args.given(device["name"]))
    name = device["name"]
    err = _api.NnsError()
    st = lib.nns_hardware_find(name.encode(), ctypes.byref(h),
                               ctypes.byref(err))
    if st != 0 and not ("bandwidth" in device and "peak_flops" in device):
        _api.check(st, err, "hardware")
    names = _dtype_names()
    peaks = device.get("peak_flops")
    if isinstance(peaks, (int, float)) and not isinstance(peaks, bool):
        peaks = {d: peaks for d in names}
    if peaks is not None and not isinstance(peaks, dict):
        raise TypeError("hardware peak_flops: a number or {dtype: number}, "
                        f"not {peaks!r}")
    for d, v in (peaks or {}).items():
        if d not in names:
            raise ValueError(f"unknown compute dtype {d!r}; one of "
                             + ", ".join(names))
        h.peak_flops[names.index(d)] = _figure(f"peak_flops[{d!r}]", v)
    if "bandwidth" in device:
        h.bandwidth = _figure("bandwidth", device["bandwidth"])
    # ctypes keeps these bytes alive with the struct.
    h.name = name.encode()
    if "description" in device:
        h.description = str(device["description"]).encode()
    elif st != 0:
        h.description = h.name
    if st != 0:
        h.source = b"user"
    return h
