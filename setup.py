"""`pip install .` at the repository root: builds libnnscan and the nnscan
command with CMake and installs the Python package (python/nnscan) with
both bundled: nnscan/lib/libnnscan.so, found by nnscan._lib without
NNSCAN_LIBRARY, and nnscan/bin/nnscan, run by the `nnscan` console script
(nnscan/_cli.py execs it: same arguments, same exit codes).

    python3 -m venv venv && venv/bin/pip install .    # offline

Needs cmake, a C compiler and zlib (Debian: cmake, gcc, zlib1g-dev), and
setuptools and wheel (python3-setuptools, python3-wheel; pyproject.toml
and tools/pep517/nnscan_build.py say how an isolated build finds them
offline). CMAKE_ARGS (split on spaces) is
passed to the configure step; NNSCAN_CMAKE_BUILD_DIR picks the build tree
(default build/pip, ignored by git).
"""
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "python"))
import setup_common  # noqa: E402  (what both setup.py share)


def cmake_build(build_dir):
    """Configures and builds the library and command; returns their paths."""
    cmake = shutil.which("cmake")
    if not cmake:
        raise SystemExit("nnscan: building needs cmake (Debian: apt install "
                         "cmake gcc zlib1g-dev)")
    args = [cmake, "-S", ROOT, "-B", build_dir,
            "-DCMAKE_BUILD_TYPE=Release", "-DNNS_BUILD_TESTS=OFF",
            "-DNNS_WERROR=OFF", "-DNNS_SANITIZE=OFF"]
    args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
    subprocess.run(args, check=True)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    subprocess.run([cmake, "--build", build_dir, "--target", "nnscan_shared",
                    "nnscan", "-j", jobs], check=True)
    lib = os.path.join(build_dir, "libnnscan.so")
    exe = os.path.join(build_dir, "nnscan")
    for path in (lib, exe):
        if not os.path.isfile(path):
            raise SystemExit(f"nnscan: the CMake build made no {path}")
    return lib, exe


class BuildWithCMake(build_py):
    """build_py that also builds and copies libnnscan and the command."""

    def run(self):
        super().run()
        build_dir = os.environ.get("NNSCAN_CMAKE_BUILD_DIR") or os.path.join(
            ROOT, "build", "pip")
        lib, exe = cmake_build(os.path.abspath(build_dir))
        pkg = os.path.join(self.build_lib, "nnscan")
        for sub, src, name in (("lib", lib, "libnnscan.so"),
                               ("bin", exe, "nnscan")):
            os.makedirs(os.path.join(pkg, sub), exist_ok=True)
            dest = os.path.join(pkg, sub, name)
            shutil.copy2(os.path.realpath(src), dest)
            os.chmod(dest, 0o755)


setup(
    package_dir={"": "python"},
    entry_points={"console_scripts": ["nnscan = nnscan._cli:main"]},
    cmdclass={"build_py": BuildWithCMake},
    **setup_common.metadata(ROOT),
)
