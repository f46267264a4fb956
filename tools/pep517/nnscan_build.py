"""The build backend of the root pyproject.toml: setuptools.build_meta,
found offline.

pip builds in an isolated environment and installs the backend's
requirements into it from an index; offline there is none, and Debian
ships no wheel of `wheel` to point --find-links at. So pyproject.toml
requires nothing, and this backend uses the setuptools and wheel of the
interpreter the venv was made from (Debian: python3-setuptools,
python3-wheel) when the build environment has none: then `python3 -m venv
v && v/bin/pip install .` works offline. Where setuptools is importable
(--no-build-isolation, or a system pip) it is used as is.
"""
import os
import sys


def _system_site_packages():
    import sysconfig
    out = []
    for scheme in ("posix_local", "deb_system", "posix_prefix"):
        try:
            paths = sysconfig.get_paths(scheme, vars={"base": sys.base_prefix,
                                                      "platbase": sys.base_prefix})
        except KeyError:
            continue
        for key in ("purelib", "platlib"):
            if paths.get(key) and os.path.isdir(paths[key]):
                out.append(paths[key])
    deb = "/usr/lib/python3/dist-packages"
    if sys.base_prefix == "/usr" and os.path.isdir(deb):
        out.append(deb)
    return out


try:
    import setuptools  # noqa: F401
    import wheel  # noqa: F401
except ImportError:
    for path in _system_site_packages():
        if path not in sys.path:
            sys.path.append(path)

from setuptools import build_meta as _meta  # noqa: E402
from setuptools.build_meta import *  # noqa: E402,F401,F403
from setuptools.build_meta import __all__  # noqa: E402,F401


def _missing(reqs):
    """What setuptools asks pip to install (`wheel`), less what this
    interpreter can import already: offline pip could not install it."""
    import importlib.util
    import re
    out = []
    for req in reqs:
        name = re.split(r"[<>=!~ ;\[]", req, 1)[0].replace("-", "_")
        if importlib.util.find_spec(name) is None:
            out.append(req)
    return out


def get_requires_for_build_wheel(config_settings=None):
    return _missing(_meta.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_sdist(config_settings=None):
    return _missing(_meta.get_requires_for_build_sdist(config_settings))


if hasattr(_meta, "get_requires_for_build_editable"):
    def get_requires_for_build_editable(config_settings=None):
        return _missing(_meta.get_requires_for_build_editable(config_settings))
