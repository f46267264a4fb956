"""Reads back the JSON document an nnscan HTML page embeds (for the tests).

The page (src/report/html.c) holds the document in
<script type="application/json" id="nnscan-data" data-kind=... data-encoding=...>,
as JSON with every '<' written \\u003c, or gzipped and base64-encoded when
large.
"""
import base64
import gzip
import json
import re

_BLOCK = re.compile(r'<script type="application/json" id="nnscan-data" '
                    r'data-kind="([^"]*)" data-encoding="([^"]*)">\n(.*?)\n'
                    r'</script>', re.S)


def embedded(page):
    """(kind, document) of the page's data block."""
    m = _BLOCK.search(page)
    assert m, "no nnscan-data block in the page"
    kind, encoding, body = m.groups()
    if encoding == "gzip+base64":
        body = gzip.decompress(base64.b64decode("".join(body.split()))).decode()
    else:
        assert encoding == "json", encoding
        assert "</script" not in body.lower()
    return kind, json.loads(body)
