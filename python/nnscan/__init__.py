"""nnscan: what a neural network costs and what it does while it runs.

`import nnscan` needs neither torch nor a compiler: the counting is done by
libnnscan (C, through ctypes), and torch is imported only when a torch model
is passed in.
"""
from ._lib import LibraryNotFound, load as _load_library  # noqa: F401
from .inspector import Inspector, InspectorGadgets  # noqa: F401

__all__ = ["LibraryNotFound", "library_version", "Inspector", "InspectorGadgets"]


def library_version():
    """Version of the libnnscan actually loaded."""
    from ._lib import version
    return version()
