#!/usr/bin/env bash
# Reports end to end: golden text, CSV, Markdown and JSON of small models
# (their figures checked by hand in README.md), the JSON against its
# schema, and the summary / table / plot command line. Usage:
#   run.sh PATH/TO/nnscan
#   NNS_UPDATE_GOLDEN=1 run.sh PATH/TO/nnscan    # rewrite the golden files
# Regenerating is on purpose only: review `git diff tests/report/golden`
# against README.md's hand calculations before committing it.
set -u
nnscan=$1
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
py=/usr/bin/python3
fixtures=../fixtures/models

# expect CODE PATTERN -- ARGS...: exit code and a pattern in stdout+stderr.
expect() {
  local code=$1 pattern=$2; shift 3
  local out rc
  out=$("$nnscan" "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$code" ]; then ko "nnscan $* exited $rc, expected $code: $out"
  elif ! grep -qE -- "$pattern" <<<"$out"; then ko "nnscan $*: no '$pattern' in: $out"
  else ok; fi
}

# ---- golden files ----
# golden NAME ARGS...: nnscan ARGS must print golden/NAME exactly (the JSON's
# nnscan_version is masked so that a release does not touch the goldens).
golden() {
  local name=$1; shift
  if ! "$nnscan" "$@" >"$tmp/out" 2>"$tmp/err"; then
    ko "nnscan $* failed: $(cat "$tmp/err")"; return
  fi
  sed -i 's/^  "nnscan_version": ".*",$/  "nnscan_version": "*",/' "$tmp/out"
  if [ "${NNS_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$tmp/out" "golden/$name"; echo "updated golden/$name"; ok
  elif [ ! -f "golden/$name" ]; then
    ko "golden/$name is missing (NNS_UPDATE_GOLDEN=1 $0 $nnscan writes it)"
  elif diff -u "golden/$name" "$tmp/out" >"$tmp/diff"; then ok
  else ko "output differs from golden/$name:"; head -40 "$tmp/diff"; fi
}

for m in ../cli/tiny_cnn tiny_resnet tiny_tied; do
  b=$(basename "$m")
  golden "$b.txt"     summary "$m.onnx" --width 100
  golden "$b.all.txt" summary "$m.onnx" --columns all --depth all --width 200
  golden "$b.csv"     summary "$m.onnx" --format csv --columns all
  golden "$b.md"      summary "$m.onnx" --format md --columns params,macs,rf
  golden "$b.json"    summary "$m.onnx" --format json
done
golden tiny_resnet.clever.txt summary tiny_resnet.onnx --numbers clever \
  --columns params,flops,macs,dmas,rf,act --width 100 --optimizer sgd
golden tiny_resnet.ratio.md summary tiny_resnet.onnx --format md \
  --numbers ratio --columns params,flops,macs,act --depth 1
golden tiny_resnet.narrow.txt summary tiny_resnet.onnx --columns all \
  --width 60 --wrap end
golden tiny_cnn.batch.json summary ../cli/tiny_cnn.onnx --format json --batch 4
# nnscan.summary v2: statuses and diagnostics (tiny_tied's MyOp is counted
# by nothing; docs/json.md).
golden tiny_tied.v2.json summary tiny_tied.onnx --format json --json-version 2
golden tiny_resnet.v2.json summary tiny_resnet.onnx --format json --json-version 2

# ---- the JSON contract: schema and invariants ----
jsons=(golden/*.json)
"$nnscan" summary tiny_resnet.onnx --format json --depth 1 >"$tmp/depth1.json" && jsons+=("$tmp/depth1.json")
if [ -f "$fixtures/resnet18_op17_nofold.onnx" ]; then
  "$nnscan" summary "$fixtures/resnet18_op17_nofold.onnx" --format json >"$tmp/resnet18.json" \
    && jsons+=("$tmp/resnet18.json") || ko "summary of resnet18 failed"
fi
# Windowed attention: layers with rf.period and rf.spans, a whole model field.
for w in analyze_window analyze_window_global; do
  "$nnscan" summary "../unit/models/$w.onnx" --format json >"$tmp/$w.json" \
    && jsons+=("$tmp/$w.json") || ko "summary of $w failed"
done
grep -q '"period": \[4, 4\], "spans": \[\[\[-5, 4\]' "$tmp/analyze_window.json" && ok \
  || ko "analyze_window: no period and spans in b2's rf"
# v2 of models with each kind of diagnostic: an unbounded loop, symbolic
# dims taken as 1, an If of unknown condition, a windowed model, resnet18.
deploy=../fixtures/deploy
for m in $deploy/loop_linear.onnx $deploy/nameless_dims.onnx $deploy/vad_if.onnx \
    ../unit/models/analyze_window.onnx ../unit/models/cost_conv_gru_sym.onnx \
    $fixtures/resnet18_op17_nofold.onnx; do
  [ -f "$m" ] || continue
  b=$(basename "$m" .onnx)
  "$nnscan" summary "$m" --format json --json-version 2 >"$tmp/$b.v2.json" \
    && jsons+=("$tmp/$b.v2.json") || ko "v2 summary of $b failed"
done
# ---- nnscan diff: both versions read alike, budgets and exit codes ----
"$nnscan" summary tiny_resnet.onnx --format json >"$tmp/r1.json"
"$nnscan" summary tiny_resnet.onnx --format json --json-version 2 >"$tmp/r2.json"
# v1 and v2 of one analysis: the same layers and statuses, nothing changed.
expect 0 'Layers: 0 changed, 0 added, 0 removed, 12 unchanged' -- diff "$tmp/r1.json" "$tmp/r2.json"
expect 0 'Layers: 0 changed, 0 added, 0 removed, 12 unchanged' -- diff tiny_resnet.onnx "$tmp/r1.json"
# after: fc's MACs 80 -> 8998 (a hand edit): the totals grow by 8,918 of
# 89,176 = +10.00%, one layer and the root changed.
$py - "$tmp/r2.json" "$tmp/r2b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for row in d['layers']:
    if row['path'] in ('', 'fc'):
        row['metrics']['macs']['value'] += 8918
d['totals']['metrics']['macs']['value'] += 8918
json.dump(d, open(sys.argv[2], 'w'))
PY
expect 4 'macs > \+5%: EXCEEDED \(\+8,918 \(\+10\.00%\)\)' -- diff "$tmp/r2.json" "$tmp/r2b.json" --fail-if 'macs > +5%'
expect 0 'macs > \+10\.5%: ok' -- diff "$tmp/r2.json" "$tmp/r2b.json" --fail-if 'macs > +10.5%'
expect 4 'params > \+0: ok' -- diff "$tmp/r2.json" "$tmp/r2b.json" --fail-if 'params > +0' --fail-if 'macs >= 8918'
expect 4 'macs >= 8918: EXCEEDED' -- diff "$tmp/r2.json" "$tmp/r2b.json" --fail-if 'params > +0' --fail-if 'macs >= 8918'
expect 0 'Layers: 2 changed, 0 added, 0 removed, 10 unchanged' -- diff "$tmp/r2.json" "$tmp/r2b.json"
expect 0 '  ~ fc \(Gemm\)' -- diff "$tmp/r2.json" "$tmp/r2b.json"
# tiny_tied's MyOp is counted by nothing: no MAC delta, the budget unchecked.
expect 5 'macs > \+5%: WITHHELD' -- diff tiny_tied.onnx tiny_tied.onnx --fail-if 'macs > +5%'
expect 0 'params > \+5%: ok' -- diff tiny_tied.onnx tiny_tied.onnx --fail-if 'params > +5%'
# The percentage is of the before side: fc's own MACs grew 8,918 / 80.
expect 0 'macs .* 80 .* 8,998  \+8,918 \(\+11147\.50%\)' -- diff "$tmp/r2.json" "$tmp/r2b.json"
# Runs that differ: every delta withheld, and said why.
expect 5 'deltas withheld: the inputs differ' -- diff tiny_resnet.onnx tiny_tied.onnx --fail-if 'params > +0'
expect 2 "budget 'macs > five' is not" -- diff tiny_tied.onnx tiny_tied.onnx --fail-if 'macs > five'
expect 2 "budget 'latency > \+1' is not" -- diff tiny_tied.onnx tiny_tied.onnx --fail-if 'latency > +1'
# Counts that are no count (issue 47): a float with a fraction, a string, a
# number past int64 or below 0 refuses the document, naming side, row and
# key; a whole float reads as its integer; a missing count is unavailable,
# so a budget on it is withheld (exit 5), never read as 0.
$py - "$tmp/r1.json" "$tmp" <<'PY'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
def edit(name, fn):
    d = json.load(open(src)); fn(d); json.dump(d, open(f"{tmp}/{name}", "w"))
edit("c_float.json", lambda d: d["totals"].__setitem__("macs", float(2 * d["totals"]["macs"])))
edit("c_frac.json", lambda d: d["totals"].__setitem__("macs", 3641344000.5))
edit("c_str.json", lambda d: d["totals"].__setitem__("macs", "178352"))
edit("c_big.json", lambda d: d["totals"].__setitem__("macs", 2 ** 64))
edit("c_neg.json", lambda d: d["totals"].__setitem__("macs", -1))
edit("c_missing.json", lambda d: d["totals"].pop("macs"))
edit("c_layer.json", lambda d: d["layers"][3].__setitem__("params", 1.5))
PY
expect 4 'macs > \+5%: EXCEEDED \(\+89,176 \(\+100\.00%\)\)' -- diff "$tmp/r1.json" "$tmp/c_float.json" --fail-if 'macs > +5%'
expect 1 'after: totals "macs" is 3641344000.5, not a count \(a whole number from 0 to 9223372036854775807\)' -- diff "$tmp/r1.json" "$tmp/c_frac.json" --fail-if 'macs > +5%'
expect 1 'before: totals "macs" is the string "178352", not a count' -- diff "$tmp/c_str.json" "$tmp/r1.json"
expect 1 'after: totals "macs" is 1.8446744073709552e\+19, not a count' -- diff "$tmp/r1.json" "$tmp/c_big.json"
expect 1 'after: totals "macs" is -1, not a count' -- diff "$tmp/r1.json" "$tmp/c_neg.json"
expect 1 'after: layers\[3\] "params" is 1.5, not a count' -- diff "$tmp/r1.json" "$tmp/c_layer.json"
expect 5 'macs > \+5%: WITHHELD' -- diff "$tmp/r1.json" "$tmp/c_missing.json" --fail-if 'macs > +5%'
$py - "$tmp/r2.json" "$tmp/c2_str.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["totals"]["metrics"]["macs"]["value"] = str(d["totals"]["metrics"]["macs"]["value"])
json.dump(d, open(sys.argv[2], "w"))
PY
expect 1 'after: totals "metrics.macs.value" is the string "89176", not a count' -- diff "$tmp/r2.json" "$tmp/c2_str.json"
# A key twice: refused by the one reader, named with its byte.
sed 's/^{/{"schema": "x", /' "$tmp/r1.json" >"$tmp/dup.json"
expect 1 'before: duplicate key "schema" at byte 1[0-9]' -- diff "$tmp/dup.json" "$tmp/r1.json"
# 300 levels of nesting: refused at the 257th bracket ({"a": then 256 '[').
$py -c 'import sys; sys.stdout.write("{\"a\":" + "[" * 300 + "]" * 300 + "}")' >"$tmp/deep.json"
expect 1 'after: nesting deeper than 256 levels at byte 260' -- diff "$tmp/r1.json" "$tmp/deep.json"
# An empty budget switches nothing off: it is refused (exit 2).
expect 2 "--fail-if '' is no budget" -- diff "$tmp/r2.json" "$tmp/r2b.json" --fail-if ''
expect 2 "budgets ',': budget 1 is empty" -- diff "$tmp/r2.json" "$tmp/r2b.json" --fail-if ','
expect 2 "budgets 'macs > \+5%,': budget 2 is empty" -- diff "$tmp/r2.json" "$tmp/r2b.json" --fail-if 'macs > +5%,'
printf '{"schema": "nnscan.summary", "schema_version": 1,' >"$tmp/cut.json"
# Cut after 49 bytes: the reader wants a key there, and names the side.
expect 1 'before: expected a key at byte 49' -- diff "$tmp/cut.json" tiny_tied.onnx
echo '{"schema": "nnscan.inspect"}' >"$tmp/other.json"
expect 1 'after is not an nnscan.summary document' -- diff tiny_tied.onnx "$tmp/other.json"
expect 2 'two files' -- diff tiny_tied.onnx
"$nnscan" diff "$tmp/r2.json" "$tmp/r2b.json" --format json >"$tmp/diff1.json" && jsons+=("$tmp/diff1.json")
"$nnscan" diff tiny_resnet.onnx tiny_tied.onnx --format json >"$tmp/diff2.json" && jsons+=("$tmp/diff2.json")
if $py check_json.py "${jsons[@]}"; then ok; else ko "JSON does not follow docs/summary.schema.json (v2: summary.v2.schema.json)"; fi
expect 2 'json-version is 1 or 2' -- summary tiny_tied.onnx --format json --json-version 3

# ---- the command line ----
m18=$fixtures/resnet18_op17_nofold.onnx
if [ -f "$m18" ]; then
  # torchvision's resnet18: 11,689,512 parameters (its ref.json, measured
  # in PyTorch) and 9,600 BatchNorm buffers.
  expect 0 'Total params: 11,699,112' -- summary "$m18"
  expect 0 'Trainable params: 11,689,512' -- "$m18"
  "$nnscan" summary "$m18" --depth 1 >"$tmp/a" && "$nnscan" "$m18" --depth 1 >"$tmp/b" \
    && cmp -s "$tmp/a" "$tmp/b" && ok || ko "nnscan MODEL differs from nnscan summary MODEL"
  expect 0 '^├─layer1 ' -- "$m18" --depth 1
fi
expect 0 'Peak activation memory' -- tiny_resnet.onnx
expect 0 '"schema": "nnscan.summary"' -- tiny_resnet.onnx --format json
# --strict: exit 3 when something is not counted, 0 when all is.
expect 3 'strict.*com.example.MyOp x1' -- summary tiny_tied.onnx --strict
expect 0 'Total params' -- summary tiny_resnet.onnx --strict
expect 0 'Not counted.*MyOp' -- summary tiny_tied.onnx
"$nnscan" summary tiny_resnet.onnx --format csv -o "$tmp/o.csv" && [ "$(head -c 10 "$tmp/o.csv")" = "path,depth" ] && ok || ko "-o FILE"
expect 0 '^path,depth,name,type,output_shape,params,flags$' -- summary tiny_resnet.onnx --format csv --columns params
expect 0 'RF +Stride +Pad' -- summary tiny_resnet.onnx --rf
expect 0 'usage: nnscan summary' -- summary --help
expect 2 'usage: nnscan summary' -- summary
expect 2 '--depth wants' -- summary tiny_resnet.onnx --depth 0
expect 2 "unknown column 'bogus'" -- summary tiny_resnet.onnx --columns params,bogus
expect 2 'raw, clever or ratio' -- summary tiny_resnet.onnx --numbers big
expect 0 'id="nnscan-data" data-kind="nnscan.summary"' -- summary tiny_resnet.onnx --format html
expect 0 'data-kind="nnscan.table"' -- table tiny_resnet.onnx ../cli/tiny_cnn.onnx --format html
expect 2 'text, csv, md, json or html' -- summary tiny_resnet.onnx --format yaml
expect 2 'sgd, momentum, adam or adamw' -- summary tiny_resnet.onnx --optimizer lion
expect 2 'middle, start or end' -- summary tiny_resnet.onnx --wrap left
expect 2 'unknown option' -- summary tiny_resnet.onnx --bogus
expect 1 'cannot open' -- summary "$tmp/none.onnx"
expect 1 'cannot open' -- "$tmp/none.onnx"

# ---- the model table and its plot ----
# 1482 params: the column's unit is k (docs/cli.md), 1.48 k.
expect 0 '^\| tiny\\_resnet +\| +1\.48 \|' -- table tiny_resnet.onnx ../cli/tiny_cnn.onnx
expect 0 '^tiny_resnet,1482,.*,true,$' -- table tiny_resnet.onnx --format csv
if "$nnscan" table tiny_resnet.onnx ../cli/tiny_cnn.onnx tiny_tied.onnx --plot "$tmp/p.svg" >/dev/null \
  && $py - "$tmp/p.svg" <<'PY'
import sys
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + 'svg', root.tag
texts = [t.text for t in root.iter(ns + 'text')]
assert len(list(root.iter(ns + 'circle'))) == 3
for label in ('tiny_resnet', 'tiny_cnn', 'tiny_tied', 'MACs', 'Parameters'):
    assert any(t and t.startswith(label) for t in texts), (label, texts)
PY
then ok; else ko "table --plot did not write a valid SVG with 3 labelled points"; fi
expect 2 'md, csv, text or html' -- table tiny_resnet.onnx --format json
expect 2 'usage: nnscan table' -- table

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
