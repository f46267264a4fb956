"""Finding and loading libnnscan (ctypes); no compiler needed.

The library is looked up in this order: the NNSCAN_LIBRARY environment
variable (a path to libnnscan.so), the copy bundled in this package
(nnscan/lib/), then the system's (what `cmake --install` put on the loader
path). `load()` returns one shared ctypes.CDLL; every module of the package
declares the signatures it uses on it (see _api.py and friends).
"""
import ctypes
import ctypes.util
import os
import threading

_lock = threading.Lock()
_lib = None


class LibraryNotFound(OSError):
    """libnnscan could not be found or loaded."""


def candidates():
    """The places libnnscan is looked for, in order."""
    return list(_places())


def _places():
    """candidates(), one at a time: the system's is looked for only once
    the ones before it failed (ctypes.util.find_library runs ldconfig,
    or a compiler where there is none: 11 to 15 ms of every process's
    `import nnscan` when NNSCAN_LIBRARY or the bundled copy loads, as
    they do for every install; bench/first_summary.py)."""
    env = os.environ.get("NNSCAN_LIBRARY")
    if env:
        yield ("NNSCAN_LIBRARY", env)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
    for name in ("libnnscan.so", "libnnscan.dylib", "nnscan.dll"):
        path = os.path.join(here, name)
        if os.path.exists(path):
            yield ("bundled", path)
    found = ctypes.util.find_library("nnscan")
    if found:
        yield ("system", found)
    yield ("system", "libnnscan.so.0")


def load():
    """The loaded library (loaded once, thread-safe)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        errors = []
        for where, path in _places():
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                errors.append(f"{where} {path}: {e}")
                if where == "NNSCAN_LIBRARY":
                    break  # an explicit choice that fails is an error
                continue
            lib.nns_version.restype = ctypes.c_char_p
            lib.nns_version.argtypes = []
            _lib = lib
            return lib
        raise LibraryNotFound(
            "libnnscan not found; set NNSCAN_LIBRARY=/path/to/libnnscan.so "
            "or install the package with its bundled library. Tried: "
            + "; ".join(errors or ["nothing"]))


_declared_sections = set()


def declared(functions):
    """The loaded library with a section's signatures ({name: (restype,
    argtypes)}) declared on it, once per section."""
    lib = load()
    if id(functions) in _declared_sections:
        return lib
    with _lock:
        for name, (res, args) in functions.items():
            fn = getattr(lib, name)
            fn.argtypes = args
            fn.restype = res
        _declared_sections.add(id(functions))
    return lib


def version():
    """The linked library's version string."""
    return load().nns_version().decode()
