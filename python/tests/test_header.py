"""The ctypes declarations (nnscan/_api.py) match include/nnscan.h.

Struct sizes, field offsets and enum values come from C programs compiled
against the header at test time; function parameter lists are parsed from
the header's prototypes. Any of them drifting from _api.py fails here.
"""
import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from nnscan import _api

HEADER = os.path.join(ROOT, "include", "nnscan.h")


def _cc():
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    pytest.skip("no C compiler to measure the header's structs")


def _run_c(tmp_path, name, statements):
    """The lines a C program printing `statements` (printf calls) writes,
    compiled against nnscan.h."""
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "nnscan.h"',
             'int main(void) {'] + statements + ["return 0;", "}"]
    src = tmp_path / (name + ".c")
    src.write_text("\n".join(lines))
    exe = tmp_path / name
    subprocess.run([_cc(), "-std=c11", "-I", os.path.dirname(HEADER), str(src),
                    "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True,
                         text=True).stdout
    return [line for line in out.split("\n") if line]


def test_struct_layouts_match_header(tmp_path):
    lines = []
    for cls, cname in _api.STRUCTS.items():
        lines.append(f'printf("{cname} sizeof %zu\\n", sizeof({cname}));')
        for field, _ in cls._fields_:
            lines.append(f'printf("{cname} {field} %zu\\n", '
                         f'offsetof({cname}, {field}));')
    want = {}
    for line in _run_c(tmp_path, "layout", lines):
        cname, what, n = line.split()
        want[(cname, what)] = int(n)
    for cls, cname in _api.STRUCTS.items():
        assert ctypes.sizeof(cls) == want[(cname, "sizeof")], cname
        for field, _ in cls._fields_:
            assert getattr(cls, field).offset == want[(cname, field)], \
                f"{cname}.{field}"


def _prototypes():
    text = open(HEADER).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    protos = {}
    for m in re.finditer(r"NNS_API\s+([^;(]*?)\b(nns_\w+)\s*\(([^)]*)\)\s*;",
                         text):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        plist = [] if params in ("", "void") else \
            [p.strip() for p in params.split(",")]
        protos[name] = (ret, plist)
    return protos


def _kind(ctype):
    """A coarse C type class for a ctypes type, to compare with the header."""
    if ctype is None:
        return "void"
    if ctype in (ctypes.c_char_p,):
        return "ptr"
    if isinstance(ctype, type) and issubclass(ctype, (ctypes._Pointer,
                                                     ctypes.c_void_p)):
        return "ptr"
    if isinstance(ctype, type) and issubclass(ctype, ctypes._CFuncPtr):
        return "ptr"
    return "int%d" % (ctypes.sizeof(ctype) * 8)


def _c_kind(decl):
    decl = re.sub(r"\b(const|struct|enum)\b", "", decl).strip()
    if "*" in decl or "[" in decl:
        return "ptr"
    base = decl.split()[0]
    if base.endswith("_fn"):
        return "ptr"
    if base == "void":
        return "void"
    sizes = {"size_t": 64, "int64_t": 64, "uint64_t": 64, "double": 64,
             "int": 32, "unsigned": 32, "nns_status": 32, "int32_t": 32,
             "float": 32}
    if base in sizes:
        return "int%d" % sizes[base]
    if base.startswith("nns_"):  # an enum typedef
        return "int32"
    raise AssertionError(f"unknown C type {decl!r}")


def _enum_constants():
    """(C constant, the value _api.py uses) for every enum _api.py mirrors
    (the optimizers, parameter kinds, training phases and element types as
    read from the library at import)."""
    _api.lib()
    out = [(f"NNS_FORMAT_{k.upper()}", v) for k, v in _api.FORMAT.items()]
    out += [(f"NNS_NUMBERS_{k.upper()}", v) for k, v in _api.NUMBERS.items()]
    out += [("NNS_WRAP_" + ("MIDDLE" if k == "mid" else k.upper()), v)
            for k, v in _api.WRAP.items()]
    out += [(f"NNS_COL_{k.upper()}", v) for k, v in _api.COL.items()]
    out += [(f"NNS_OPTIMIZER_{k.upper()}", v) for k, v in _api.OPTIMIZER.items()]
    out += [(f"NNS_PARAM_{k.upper()}", v) for k, v in _api.PARAM_KIND.items()]
    out += [(f"NNS_TRAIN_{k.upper()}", v) for k, v in _api.TRAIN_PHASE.items()]
    out += [(f"NNS_DT_{c}", _api.DTYPE[w]) for c, _, w in _xmap("NNS_DTYPE_MAP")
            if c != "UNDEFINED"]
    out += [("NNS_DEPTH_ALL", _api.DEPTH_ALL),
            ("NNS_INFER_FALLBACK_DECLARED", _api.INFER_FALLBACK_DECLARED),
            ("NNS_ABI_VERSION", _api.ABI_VERSION),
            ("NNS_PACKED_VERSION", _api.PACKED_VERSION),
            ("NNS_COUNT_WIDTH_MAX", _api.COUNT_WIDTH_MAX),
            ("NNS_COUNT_DIGITS_MAX", _api.COUNT_DIGITS_MAX),
            ("NNS_COUNT_SIZE_MAX", _api.COUNT_SIZE_MAX)]
    out += [(f"NNS_COUNT_STYLE_{k.upper()}", v)
            for k, v in _api.COUNT_STYLE.items()]
    return out


def check_compiled_values(tmp_path, consts):
    """Each (C constant, value) pair against a program compiled with the
    header (also used by test_inspector_header.py)."""
    got = dict(line.split() for line in _run_c(
        tmp_path, "enums",
        [f'printf("{c} %lld\\n", (long long)({c}));' for c, _ in consts]))
    for c, v in consts:
        assert int(got[c]) == v, c


def test_enum_values_compiled_match_header(tmp_path):
    """The values _api.py uses, as the C compiler sees them (the text
    parse below checks that none is missing)."""
    check_compiled_values(tmp_path, _enum_constants())


def test_function_signatures_match_header():
    protos = _prototypes()
    for name, (res, args) in _api.FUNCTIONS.items():
        assert name in protos, f"{name} is not in nnscan.h"
        ret, params = protos[name]
        assert len(params) == len(args), \
            f"{name}: header has {len(params)} parameters, _api.py {len(args)}"
        assert _kind(res) == _c_kind(ret), f"{name}: return type {ret}"
        for i, (p, a) in enumerate(zip(params, args)):
            # drop the parameter name: the last identifier
            decl = re.sub(r"\b\w+\s*$", "", p) if re.search(r"[\s*]\w+$", p) else p
            assert _kind(a) == _c_kind(decl), f"{name} parameter {i}: {p}"


def test_abi_version_checked(monkeypatch):
    lib = _api.lib()
    assert _api.library_abi(lib) == _api.ABI_VERSION
    monkeypatch.setattr(_api, "ABI_VERSION", _api.ABI_VERSION + 1000)
    monkeypatch.setattr(_api, "_ready", None)
    with pytest.raises(_api.AbiMismatch, match="ABI"):
        _api.lib()


def _run_python(code, *args):
    """Runs `code` in a fresh interpreter with this checkout's package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    subprocess.run([sys.executable, "-c", code, *args], check=True, env=env)


def test_import_needs_no_torch(fixtures_dir):
    code = ("import sys, nnscan; s = nnscan.analyze(sys.argv[1]); "
            "assert s.totals['params'] > 0; "
            "assert 'torch' not in sys.modules, 'torch imported'")
    _run_python(code, os.path.join(fixtures_dir, "resnet18_op17_nofold.onnx"))


def test_import_reads_only_what_it_uses():
    # the library NNSCAN_LIBRARY names loads without searching the system's
    # (ctypes.util.find_library runs ldconfig: most of an import's time),
    # and the Inspector's modules are read when it is first used
    code = (
        "import sys, ctypes.util\n"
        "def searched(name):\n"
        "    raise AssertionError('find_library(%r) ran' % name)\n"
        "ctypes.util.find_library = searched\n"
        "import nnscan\n"
        "assert nnscan.__version__, 'no library loaded'\n"
        "assert 'nnscan.inspector' not in sys.modules\n"
        "assert {'Inspector', 'summary', 'StepMeter'} <= set(dir(nnscan))\n"
        "assert 'nnscan.inspector' not in sys.modules\n"
        "from nnscan import InspectorGadgets\n"
        "assert nnscan.Inspector.__module__ == 'nnscan.inspector'\n"
        "assert issubclass(InspectorGadgets, nnscan.Inspector)\n"
        "from nnscan import _lib\n"
        "ctypes.util.find_library = lambda name: None\n"
        "assert _lib.candidates()[0] == ('NNSCAN_LIBRARY', "
        "    __import__('os').environ['NNSCAN_LIBRARY'])\n"
        "assert _lib.candidates()[-1] == ('system', 'libnnscan.so.0')\n")
    _run_python(code)


def test_a_plain_summary_reads_no_training_or_parallel_code():
    pytest.importorskip("torch")
    code = (
        "import sys, torch, nnscan\n"
        "m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU())\n"
        "s = nnscan.summary(m, inputs=torch.zeros(1, 3, 8, 8), file=False)\n"
        "assert s.totals['params'] == 4 * 3 * 9 + 4\n"
        "unread = ['nnscan.train', 'nnscan.parallel', 'nnscan.inspector', "
        "'nnscan.step']\n"
        "if torch.__version__ < '2':  # (fast_meta's 2.x tables: 2.x's)\n"
        "    unread.append('nnscan.meta_shape')\n"
        "read = [m for m in unread if m in sys.modules]\n"
        "assert not read, read\n")
    _run_python(code)


def _enum(prefix):
    text = re.sub(r"/\*.*?\*/", "", open(HEADER).read(), flags=re.S)
    out = {}
    for m in re.finditer(r"\b%s(\w+)\s*=\s*(\d+)(u?\s*<<\s*(\d+))?" % prefix, text):
        v = int(m.group(2)) << int(m.group(4)) if m.group(3) else int(m.group(2))
        out[m.group(1).lower()] = v
    return out


def _xmap(name):
    """(enum suffix, number, word) of each X(...) line of an X-macro list."""
    text = open(HEADER).read()
    body = re.search(r"#define %s\(X\)(.*?)\n\n" % name, text, re.S).group(1)
    return [(c, int(n), w) for c, n, w in
            re.findall(r'X\((\w+), (\d+), "([^"]*)"\)', body)]


def test_enum_words_come_from_header_lists():
    """What the package reads from the library at import is each list of
    the header, whole: word -> number for the optimizers, parameter kinds,
    training phases, element types, report formats, number styles, wrap
    modes and packed record tags, and the opset the op table is written
    against."""
    _api.lib()
    assert _api.FORMAT == {w: n for _, n, w in _xmap("NNS_REPORT_FORMAT_MAP")}
    assert _api.NUMBERS == {w: n for _, n, w in _xmap("NNS_NUMBERS_MAP")}
    wrap = {w: n for _, n, w in _xmap("NNS_WRAP_MAP")}
    assert {k: v for k, v in _api.WRAP.items() if k != "mid"} == wrap
    assert _api.WRAP["mid"] == wrap["middle"]
    assert _api.PACKED_RECORD == {
        w: n for _, n, w in _xmap("NNS_PACKED_RECORD_MAP")}
    assert _api.OPTIMIZER == {w: n for _, n, w in _xmap("NNS_OPTIMIZER_MAP")}
    assert _api.PARAM_KIND == {w: n for _, n, w in _xmap("NNS_PARAM_KIND_MAP")}
    assert _api.DTYPE == {w: n for _, n, w in _xmap("NNS_DTYPE_MAP") if n}
    assert len(_api.OPTIMIZER) == 4 and len(_api.PARAM_KIND) == 4
    assert _api.TRAIN_PHASE == {
        w: n for _, n, w in _xmap("NNS_TRAIN_PHASE_MAP")}
    assert _api.train_phases() == {"forward": 0, "backward": 1,
                                   "optimizer": 2}
    assert _api.optimizers() == ("sgd", "momentum", "adam", "adamw")
    assert len(_api.DTYPE) == 26
    op_h = open(os.path.join(ROOT, "src", "ops", "op.h")).read()
    opset = int(re.search(r"#define NNS__OPSET_MAX (\d+)", op_h).group(1))
    assert _api.opset_max() == opset


def test_enum_values_match_header():
    """Every report format, number style, wrap mode, column, parameter kind
    and optimizer the header has is known to _api.py with the same value,
    and each word the library gives is its enum constant's name (so
    "shapes_json" is NNS_FORMAT_SHAPES_JSON)."""
    _api.lib()
    for xmap, table in (("NNS_REPORT_FORMAT_MAP", _api.FORMAT),
                        ("NNS_NUMBERS_MAP", _api.NUMBERS),
                        ("NNS_WRAP_MAP", _api.WRAP)):
        assert {c.lower(): n for c, n, _ in _xmap(xmap)} == {
            k: v for k, v in table.items() if k != "mid"}
    assert _api.COUNT_STYLE == {
        w: n for _, n, w in _xmap("NNS_COUNT_STYLE_MAP")}
    text = open(HEADER).read()
    body = re.search(r"#define NNS_COLUMN_MAP\(X\)(.*?)\n\n", text, re.S)
    cols = re.findall(r'X\((\w+), (\d+), "([^"]*)", ', body.group(1))
    assert len(cols) >= 13
    assert all(c.lower() == w for c, _, w in cols)
    assert _api.COL == {w: 1 << int(n) for _, n, w in cols}
    assert _api.PARAM_KIND == {c.lower(): n
                               for c, n, _ in _xmap("NNS_PARAM_KIND_MAP")}
    assert _api.OPTIMIZER == {c.lower(): n
                              for c, n, _ in _xmap("NNS_OPTIMIZER_MAP")}
    assert _api.INFER_FALLBACK_DECLARED == _enum("NNS_INFER_")["fallback_declared"]


def test_import_refuses_another_abi(tmp_path):
    """A libnnscan of another ABI generation fails `import nnscan`."""
    src = tmp_path / "fake.c"
    src.write_text('const char *nns_version(void) { return "9.9.9"; }\n'
                   'int nns_abi_version(void) { return 99; }\n')
    lib = tmp_path / "libfake.so"
    subprocess.run([_cc(), "-shared", "-fPIC", str(src), "-o", str(lib)],
                   check=True)
    env = dict(os.environ, NNSCAN_LIBRARY=str(lib),
               PYTHONPATH=os.path.join(ROOT, "python"))
    res = subprocess.run([sys.executable, "-c", "import nnscan"], env=env,
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert "AbiMismatch" in res.stderr and "ABI 99" in res.stderr


def test_older_library_of_the_same_abi_is_named(tmp_path):
    """A libnnscan of this ABI generation that lacks a function the package
    calls (a library from before the ABI grew) fails `import nnscan` with
    an error naming the function, not a bare AttributeError."""
    src = tmp_path / "old.c"
    src.write_text('const char *nns_version(void) { return "0.0.1"; }\n'
                   'int nns_abi_version(void) { return %d; }\n'
                   % _api.ABI_VERSION)
    lib = tmp_path / "libold.so"
    subprocess.run([_cc(), "-shared", "-fPIC", str(src), "-o", str(lib)],
                   check=True)
    env = dict(os.environ, NNSCAN_LIBRARY=str(lib),
               PYTHONPATH=os.path.join(ROOT, "python"))
    res = subprocess.run([sys.executable, "-c", "import nnscan"], env=env,
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert "AbiMismatch" in res.stderr and "has no nns_" in res.stderr
    assert "older than the package" in res.stderr
