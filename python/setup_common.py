"""What the two setup.py routes share: the package's metadata, its
version (nnscan.h's NNS_VERSION_STRING) and the wheel being
platform-specific. The root setup.py builds libnnscan and the command with
CMake and bundles both; python/setup.py bundles a library built
beforehand. Each keeps only its own build_py. It lives here, beside
python/setup.py, because that route builds from python/ alone (with
include/nnscan.h beside it); it is not part of the installed package.
"""
import os
import re

from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    """The wheel holds a shared library (and an executable): platform-specific."""

    def has_ext_modules(self):
        return True


def version(root):
    """NNS_VERSION_STRING of root/include/nnscan.h; "0.0.0" without one."""
    try:
        with open(os.path.join(root, "include", "nnscan.h")) as f:
            m = re.search(r'#define NNS_VERSION_STRING "([^"]+)"', f.read())
    except OSError:
        return "0.0.0"
    return m.group(1) if m else "0.0.0"


def metadata(root):
    """setup()'s arguments both routes pass alike."""
    return dict(
        name="nnscan",
        version=version(root),
        description="What a neural network costs: params, FLOPs, MACs, "
                    "memory, receptive field, from ONNX files or live "
                    "PyTorch models",
        packages=["nnscan", "nnscan.compat", "nnscan.compat.torchscan",
                  "nnscan.compat.thop"],
        python_requires=">=3.8",
        distclass=BinaryDistribution,
        zip_safe=False,
    )
