#!/usr/bin/env bash
# CLI behaviour: output contract (golden JSON of a tiny model whose shapes are
# worked out by hand in make_models.py's docstring and below), options, and
# exit codes and messages for bad input. Usage: run.sh PATH/TO/nnscan
set -u
nnscan=$1
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE PATTERN -- ARGS...: exit code and a pattern in stdout+stderr.
expect() {
  local code=$1 pattern=$2; shift 3
  local out rc
  out=$("$nnscan" "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$code" ]; then ko "nnscan $* exited $rc, expected $code: $out"
  elif ! grep -qE -- "$pattern" <<<"$out"; then ko "nnscan $*: no '$pattern' in: $out"
  else ok; fi
}

# Golden JSON: conv 3x3 pad 1 keeps 8x8; flatten of 4x8x8 is 256.
if "$nnscan" shapes tiny_cnn.onnx --format json | diff -u tiny_cnn.shapes.json - ; then ok
else ko "JSON differs from tiny_cnn.shapes.json"; fi
expect 0 '"y": \{"dtype": "float32", "shape": \[8, 256\]\}' -- shapes tiny_cnn.onnx --format json --batch 8
# 2x3x16x16: conv keeps 16x16, 4*16*16 = 1024.
expect 0 '"y": \{"dtype": "float32", "shape": \[2, 1024\]\}' -- shapes tiny_cnn.onnx --format json --input x=2x3x16x16
expect 0 'y +output +float32 +\[batch, 256\]' -- shapes tiny_cnn.onnx
"$nnscan" shapes tiny_cnn.onnx -o "$tmp/out.json" --format json && diff -q tiny_cnn.shapes.json "$tmp/out.json" >/dev/null && ok || ko "-o FILE"
expect 0 'Conv' -- ops
expect 0 '^\| ai\.onnx \| Conv \| [0-9]+-[0-9]+ \| `awb` \| shape.* cost rf \|$' -- ops --format md
if "$nnscan" ops --format json | python3 -c 'import json, sys; d = json.load(sys.stdin); c = [o for o in d if o["op_type"] == "Conv"][0]; assert c["cost"] and c["rf"] and c["roles"] == "awb", c' ; then ok
else ko "ops --format json"; fi
expect 2 'text, md or json' -- ops --format yaml
# `nnscan MODEL` is `nnscan summary MODEL`.
expect 0 '^tiny_cnn +' -- tiny_cnn.onnx
expect 0 '^nnscan [0-9]+\.[0-9]+\.[0-9]+' -- version

# A model whose external weights file is absent analyses fine, with a warning.
expect 0 "resnet18_op17_nofold.weights' \(30 tensors\) not found" -- shapes ../../examples/resnet18.onnx

# Names that need escaping, or are not UTF-8, still give valid JSON.
if "$nnscan" shapes bad_names.onnx --format json | python3 -c 'import json, sys; d = json.load(sys.stdin); assert list(d["outputs"]) == ["y\"q\\\n\x01\ufffd\ufffd"], d' ; then ok
else ko "JSON of bad_names.onnx does not parse or lost the name"; fi

# Errors: one line saying what and where, exit 1; usage errors exit 2.
expect 1 "cannot open.*no-such.onnx" -- shapes "$tmp/no-such.onnx"
head -c 200 tiny_cnn.onnx > "$tmp/truncated.onnx"
expect 1 'byte [0-9]+' -- shapes "$tmp/truncated.onnx"
printf 'garbage\377\377\377' > "$tmp/garbage.onnx"
expect 1 'NNS_E_' -- shapes "$tmp/garbage.onnx"
expect 1 "no graph input and no input dim called 'nope'" -- shapes tiny_cnn.onnx --input nope=1x2
expect 2 "unknown option" -- shapes tiny_cnn.onnx --bogus
expect 2 "text or json" -- shapes tiny_cnn.onnx --format yaml
expect 2 "positive" -- shapes tiny_cnn.onnx --batch 0
expect 2 "not a dim" -- shapes tiny_cnn.onnx --input x=1xAx3
expect 2 "unknown command" -- frobnicate

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
