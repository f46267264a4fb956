"""Packaging of the nnscan Python binding, with libnnscan bundled, from a
library already built. `pip install --no-build-isolation .` at the
repository root (../setup.py) builds the library and the nnscan command
itself and bundles both; this one is for a library built beforehand:

    cmake -S . -B build/dev && cmake --build build/dev   # the library
    pip install --no-build-isolation ./python            # offline

The package is pure Python over ctypes (no compiler at install). The
library built by CMake is copied into nnscan/lib/: from NNSCAN_LIBRARY
(a path to libnnscan.so) if set, else the newest build/*/libnnscan.so of
this checkout that is not a sanitizer build. Without one, the package installs without a bundled
library and finds the system's at run time (`cmake --install`).

No pyproject.toml on purpose, and --no-build-isolation: pip then builds
with the setuptools and wheel already installed (Debian's
python3-setuptools, python3-wheel) instead of fetching them into an
isolated environment, so it works offline (pip 23 does so by itself
without a pyproject.toml; newer pips need the flag).
"""
import glob
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import setup_common  # noqa: E402  (what both setup.py share)


def find_library():
    env = os.environ.get("NNSCAN_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise SystemExit(f"NNSCAN_LIBRARY={env}: no such file")
        return env
    found = glob.glob(os.path.join(ROOT, "build", "*", "libnnscan.so"))
    # Newest first, skipping sanitizer builds: an ASan/UBSan library needs
    # its runtime preloaded and cannot be loaded into a plain interpreter.
    for lib in sorted(found, key=os.path.getmtime, reverse=True):
        if not sanitized(lib):
            return lib
    return None


def sanitized(lib):
    """Whether lib was built with -fsanitize (it imports the runtime's
    __asan_/__ubsan_ symbols)."""
    with open(lib, "rb") as f:
        data = f.read()
    return b"__asan_" in data or b"__ubsan_" in data


class BuildWithLibrary(build_py):
    """build_py that also copies libnnscan into nnscan/lib/."""

    def run(self):
        super().run()
        lib = find_library()
        if lib is None:
            self.announce("nnscan: no libnnscan to bundle (set NNSCAN_LIBRARY);"
                          " the installed package will use the system's", 3)
            return
        dest = os.path.join(self.build_lib, "nnscan", "lib")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(os.path.realpath(lib), os.path.join(dest, "libnnscan.so"))


setup(
    package_dir={"nnscan": "nnscan"},
    cmdclass={"build_py": BuildWithLibrary},
    **setup_common.metadata(ROOT),
)
