"""pytest setup for the Hugging Face transformers zoo (PyTorch 2.x only).

Debian 12 (PyTorch 1.13) has no transformers, so these tests live apart
from tests/: the host run (`pytest tests`) never collects them, and the
PyTorch 2.x run (the Debian sid chroot) runs both:
`python3 -m pytest tests tests_hf`.

The setup is tests/conftest.py's (the package from this checkout, the
library from the build), loaded and re-exported: in a run of both
directories this module is the `conftest` that tests/ modules import
their helpers (ROOT, model_refs) from. That setup puts tests/ on sys.path,
so these modules import its helpers too (rules_reference: the reports the
recorder's rules gave, frozen per PyTorch and transformers version).
"""
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "nnscan_tests_conftest",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                 "conftest.py"))
_setup = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_setup)
globals().update({k: v for k, v in vars(_setup).items()
                  if not k.startswith("__")})
