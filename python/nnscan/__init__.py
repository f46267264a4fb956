"""nnscan: what a neural network costs and what it does while it runs.

`import nnscan` needs neither torch nor a compiler: the counting is done by
libnnscan (C, through ctypes), and torch is imported only when a torch model
is passed in.
"""
from ._lib import LibraryNotFound, version as _lib_version
from ._api import AbiMismatch, NnscanError
from .report import Summary, analyze, load_summary
from .compare import Comparison, compare
from . import _api
from . import hardware  # noqa: F401  (nnscan.hardware.devices())

try:  # the ABI is checked at import: a mismatched library fails here
    _api.lib()
    # The version is the loaded library's (nns_version()), never retyped
    # here: the package and its library are one release.
    __version__ = _lib_version()
except LibraryNotFound:
    pass  # reported at first use, saying where it was looked for

__all__ = ["AbiMismatch", "LibraryNotFound", "NnscanError", "Summary",
           "analyze", "library_version", "Inspector", "InspectorGadgets",
           "load_summary", "compare", "Comparison"]


def library_version():
    """Version of the libnnscan actually loaded."""
    from ._lib import version
    return version()


def __getattr__(name):
    if name == "__version__":  # only when no library was found at import
        try:
            return library_version()
        except LibraryNotFound as e:
            raise AttributeError(f"nnscan.__version__: {e}") from None
    # The Inspector's modules (a sixth of the package) are read when first
    # used: a summary does not need them (3.5 ms of `import nnscan`).
    if name in _INSPECTOR_API:
        from . import inspector
        return getattr(inspector, name)
    # The PyTorch entry points import torch only when first used.
    if name in _TORCH_API:
        from . import torch_api
        return getattr(torch_api, name)
    if name in _GENERATE_API:
        from . import generate
        return getattr(generate, name)
    if name in _STEP_API:
        from . import step
        return getattr(step, name)
    if name == "integrations":  # nnscan.integrations.HFCallback
        import importlib
        return importlib.import_module(".integrations", __name__)
    raise AttributeError(f"module 'nnscan' has no attribute {name!r}")


def __dir__():
    # the names read when first used (__getattr__) are the package's too:
    # dir() and completion list them before their modules are read
    return sorted(set(globals()) | set(__all__))


_TORCH_API = ("summary", "crawl_module", "profile", "clever_format",
              "LayersInfo", "TorchSummary")
_GENERATE_API = ("profile_generate", "GenerateProfile")
_STEP_API = ("StepMeter",)  # step.py: MFU per training step
_INSPECTOR_API = ("Inspector", "InspectorGadgets")
__all__ += list(_TORCH_API) + list(_GENERATE_API) + list(_STEP_API)
