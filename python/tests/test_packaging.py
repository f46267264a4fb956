"""`pip install .` at the repository root builds and bundles the library
and the command (test_pip_install_repo_root). `pip install ./python` offline, with Debian's build tools, bundles the
library: installed in a fresh venv (--system-site-packages, for setuptools
and wheel), the package finds its own copy without NNSCAN_LIBRARY."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT


def test_pip_install_bundles_library(tmp_path):
    lib = os.environ.get("NNSCAN_LIBRARY")
    if not lib or not os.path.exists(lib):
        pytest.skip("no built libnnscan to bundle")
    # a copy of the sources, so the build leaves nothing in the checkout
    src = tmp_path / "src"
    shutil.copytree(os.path.join(ROOT, "python"), src / "python",
                    ignore=shutil.ignore_patterns("tests", "build", "*.egg-info",
                                                  "__pycache__"))
    (src / "include").mkdir()
    shutil.copy(os.path.join(ROOT, "include", "nnscan.h"), src / "include")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                    str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = dict(os.environ, NNSCAN_LIBRARY=os.path.abspath(lib), PIP_NO_INDEX="1")
    env.pop("PYTHONPATH", None)
    subprocess.run([py, "-m", "pip", "install", "--no-index", "--no-deps",
                    "--no-build-isolation", "--quiet", str(src / "python")],
                   check=True, env=env,
                   cwd=tmp_path)
    env.pop("NNSCAN_LIBRARY")
    code = ("import nnscan, nnscan._lib as l, sys; "
            "where, path = l.candidates()[0]; assert where == 'bundled', where; "
            "assert path.startswith(sys.prefix), path; "
            "s = nnscan.analyze(sys.argv[1]); print(s.totals['params'])")
    out = subprocess.run([py, "-c", code, os.path.join(
        FIXTURES, "resnet18_op17_nofold.onnx")], check=True, env=env,
        cwd=tmp_path, capture_output=True, text=True).stdout
    assert out.strip() == "11689512"


def test_pip_install_repo_root(tmp_path):
    """`python3 -m venv v && v/bin/pip install .` at the repository root,
    offline, build isolation on (the in-tree backend finds the system's
    setuptools and wheel): setup.py builds libnnscan and the command with
    CMake; the package finds its library without NNSCAN_LIBRARY and the
    venv's `nnscan` runs the C command with its arguments and exit codes."""
    if not shutil.which("cmake"):
        pytest.skip("no cmake")
    # a copy of what the build reads, so it leaves nothing in the checkout
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "CMakeLists.txt"):
        shutil.copy(os.path.join(ROOT, name), src)
    for name in ("cmake", "include", "src", "examples", "tools"):
        shutil.copytree(os.path.join(ROOT, name), src / name)
    shutil.copytree(os.path.join(ROOT, "python"), src / "python",
                    ignore=shutil.ignore_patterns("tests", "tests_hf", "build",
                                                  "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = dict(os.environ, PIP_NO_INDEX="1",
               NNSCAN_CMAKE_BUILD_DIR=str(tmp_path / "cmake-build"))
    env.pop("NNSCAN_LIBRARY", None)
    env.pop("PYTHONPATH", None)
    subprocess.run([py, "-m", "pip", "install", "--no-index", "--quiet", "."],
                   check=True, env=env, cwd=src)
    model = str(src / "examples" / "resnet18.onnx")
    cli = str(venv / "bin" / "nnscan")
    res = subprocess.run([cli, model], env=env, cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "11,689,512" in res.stdout
    res = subprocess.run([cli, "--no-such-option"], env=env, cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 2 and "unknown option" in res.stderr
    code = ("import nnscan, nnscan._lib as l, sys; "
            "where, path = l.candidates()[0]; assert where == 'bundled', where; "
            "assert path.startswith(sys.prefix), path; "
            "s = nnscan.analyze(sys.argv[1]); print(s.totals['params'])")
    out = subprocess.run([py, "-c", code, model], check=True, env=env,
                         cwd=tmp_path, capture_output=True, text=True).stdout
    assert out.strip() == "11689512"


def _setup_functions():
    """setup.py's helper functions, without running setup()."""
    import ast
    path = os.path.join(ROOT, "python", "setup.py")
    tree = ast.parse(open(path).read())
    tree.body = [n for n in tree.body
                 if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef))]
    ns = {"__file__": path}
    exec(compile(tree, path, "exec"), ns)
    return ns


def test_bundles_no_sanitizer_build(tmp_path, monkeypatch):
    """Without NNSCAN_LIBRARY, the newest build/*/libnnscan.so that is not
    built with -fsanitize is bundled (an ASan library cannot be loaded into
    a plain interpreter)."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler")
    src = tmp_path / "f.c"
    src.write_text("int f(int *p) { return p[1]; }\n")
    for name, flags in (("plain", []), ("asan", ["-fsanitize=address"])):
        (tmp_path / "build" / name).mkdir(parents=True)
        res = subprocess.run([cc, "-shared", "-fPIC", *flags, str(src), "-o",
                              str(tmp_path / "build" / name / "libnnscan.so")])
        if res.returncode:
            pytest.skip(f"cannot build a {name} library")
    ns = _setup_functions()
    ns["ROOT"] = str(tmp_path)
    monkeypatch.delenv("NNSCAN_LIBRARY", raising=False)
    os.utime(tmp_path / "build" / "plain" / "libnnscan.so", (1, 1))  # older
    assert ns["find_library"]() == str(tmp_path / "build" / "plain" / "libnnscan.so")
    os.remove(tmp_path / "build" / "plain" / "libnnscan.so")
    assert ns["find_library"]() is None
