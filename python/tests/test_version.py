"""nnscan.__version__ is the loaded library's nns_version(): checked
against the version the C header defines and the one the library itself
returns through a ctypes handle of its own (issue 17, item 13)."""
import ctypes
import os
import re

import nnscan

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def test_version_is_the_librarys():
    with open(os.path.join(ROOT, "include", "nnscan.h")) as f:
        header = re.search(r'#define NNS_VERSION_STRING "([^"]+)"',
                           f.read()).group(1)
    lib = ctypes.CDLL(os.environ["NNSCAN_LIBRARY"])
    lib.nns_version.restype = ctypes.c_char_p
    assert nnscan.__version__ == lib.nns_version().decode() == header
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", nnscan.__version__)
    assert nnscan.__version__ == nnscan.library_version()


def test_version_is_not_typed_into_the_package():
    # One source: a release bumps the library, and the package follows.
    src = os.path.join(ROOT, "python", "nnscan")
    for name in os.listdir(src):
        if name.endswith(".py"):
            with open(os.path.join(src, name)) as f:
                assert not re.search(r"__version__\s*=\s*['\"]", f.read()), name
