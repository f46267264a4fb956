"""pytest setup for the Hugging Face transformers zoo (PyTorch 2.x only).

Debian 12 (PyTorch 1.13) has no transformers, so these tests live apart
from tests/: the host run (`pytest tests`) never collects them, and the
PyTorch 2.x run (the Debian sid chroot of tests/run_all.sh) runs both:
`python3 -m pytest tests tests_hf`. The package and the library are found
as tests/conftest.py finds them, by loading it.
"""
import importlib.util
import os

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "nnscan_tests_setup", os.path.join(_here, "..", "tests", "conftest.py"))
_spec.loader.exec_module(importlib.util.module_from_spec(_spec))
