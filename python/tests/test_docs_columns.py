"""Every column word the package's columns= accepts (nnscan._api.COL, the
words mapped onto the library's NNS_COL_* bits) and every word the CLI's
--columns takes (read from `nnscan summary -h` of the binary beside the
library, when there is one) appears in docs/python.md's Columns paragraph
(issue 41 item 10)."""
import os
import pathlib
import re
import subprocess

import pytest

from nnscan import _api

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def _columns_paragraph():
    text = DOCS.read_text()
    start = text.index("**Columns** (`columns=`)")
    return text[start:text.index("\n\n", start)]


def test_every_package_column_word_is_documented():
    para = _columns_paragraph()
    missing = [w for w in _api.COL if f"`{w}`" not in para]
    assert not missing, f"docs/python.md's Columns lack {missing}"
    assert {"bytes", "roof", "saved"} <= set(_api.COL)


def test_every_cli_column_word_is_documented():
    lib = os.environ.get("NNSCAN_LIBRARY")
    exe = pathlib.Path(lib).resolve().parent / "nnscan" if lib else None
    if exe is None or not exe.exists():
        pytest.skip("no nnscan binary beside NNSCAN_LIBRARY")
    out = subprocess.run([str(exe), "summary", "-h"], capture_output=True,
                         text=True, check=True).stdout
    block = out.split("--columns LIST", 1)[1].split("\n  --", 1)[0]
    words = re.findall(r"\b([a-z]+)(?=,|\s|$)", block.split(":", 1)[1]
                       .split("(default", 1)[0])
    assert "roof" in words and "bytes" in words, words
    para = _columns_paragraph()
    missing = [w for w in words if w != "all" and f"`{w}`" not in para]
    assert not missing, f"docs/python.md's Columns lack {missing}"
