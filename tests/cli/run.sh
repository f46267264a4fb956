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
# The aten table (issue 45), and a torch.export archive (.pt2) in every
# command, told by content: the small CNN's 1,562 trainable parameters
# (tests/unit/test_pt2.c counts them by hand).
expect 0 '^conv2d +Conv$' -- ops --aten
# every family's table is listed (aten_math.c's and aten_export.c's too)
expect 0 '^nll_loss_backward +Neg, Equal, Where, ScatterElements$' -- ops --aten
expect 0 '^cross_entropy_loss +LogSoftmax, NegativeLogLikelihoodLoss$' -- ops --aten
expect 0 '^\| scaled_dot_product_attention \| ' -- ops --aten --format md
expect 2 'text or md' -- ops --aten --format json
pt2=../fixtures/pt2/small_cnn.pt2
expect 0 'Trainable params: 1,562' -- summary "$pt2"
expect 0 'conv1 +Conv2d' -- "$pt2"
expect 0 '"shape": \[4, 10\]' -- shapes "$pt2" --format json --input x=4x3x32x32
expect 0 '^\| small\\_cnn \\\* +\| +1\.56 ' -- table "$pt2"
expect 0 '' -- diff "$pt2" ../fixtures/pt2/small_cnn_deflated.pt2
cp "$pt2" "$tmp/renamed.onnx"
expect 0 'Trainable params: 1,562' -- summary "$tmp/renamed.onnx"
printf 'PK\003\004 not a zip, only its first four bytes' >"$tmp/bad.pt2"
expect 1 'no end of central directory' -- summary "$tmp/bad.pt2"
# `nnscan MODEL` is `nnscan summary MODEL`.
expect 0 '^tiny_cnn +' -- tiny_cnn.onnx
expect 0 '^nnscan [0-9]+\.[0-9]+\.[0-9]+' -- version

# A model whose external weights file is absent analyses fine, with a warning.
expect 0 "resnet18_op17_nofold.weights' \(30 tensors\) not found" -- shapes ../../examples/resnet18.onnx
# ... and summary says it the same way in the text footer as the HTML page
# does, with that counts do not need it (issue 41 item 8).
note="external data file '../../examples/resnet18_op17_nofold.weights' (30 tensors) not found: weights are not read, shapes and counts do not need them"
expect 0 "^Note: $(sed 's/[().]/\\&/g' <<<"$note")$" -- ../../examples/resnet18.onnx
if "$nnscan" ../../examples/resnet18.onnx --format html | grep -qF "$note"; then ok; else ko "the HTML page lacks: $note"; fi

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

# ---- issue 41 item 5: diff --fail-if on dynamic-batch exports ----
# diff_a/diff_b.onnx (tools/make_diff_models.py): x[batch, 8] -> Linear(8,
# 16 | 17) -> ReLU -> Linear(.., 4). By hand at batch 1: MACs 8*16 + 16*4
# = 192 and 8*17 + 17*4 = 204, +12 (+6.25%). Deltas compare at the
# symbols taken as 1, marked *, and the footer names the symbol and the
# option that fixes it.
expect 4 'macs > \+5%: EXCEEDED \(\+12 \(\+6\.25%\)\*\)' -- diff diff_a.onnx diff_b.onnx --fail-if 'macs > +5%'
expect 0 'macs > \+10%: ok' -- diff diff_a.onnx diff_b.onnx --fail-if 'macs > +10%'
expect 0 'macs +192\* +204\*  \+12 \(\+6\.25%\)\*' -- diff diff_a.onnx diff_b.onnx
expect 0 '^\* Symbolic dims taken as 1 on both sides.*: batch;.*Fix them with: --input x=Nx8' -- diff diff_a.onnx diff_b.onnx
# A fixed batch: complete counts, no mark and no note (8 x the above).
expect 4 'macs > \+5%: EXCEEDED \(\+96 \(\+6\.25%\)\)$' -- diff diff_a.onnx diff_b.onnx --batch 8 --fail-if 'macs > +5%'
if "$nnscan" diff diff_a.onnx diff_b.onnx --batch 8 | grep -q 'Symbolic dims'; then ko "diff --batch 8 still notes symbols"; else ok; fi
# Saved v1 summaries compare the same way.
"$nnscan" summary diff_a.onnx --format json -o "$tmp/a1.json" && "$nnscan" summary diff_b.onnx --format json -o "$tmp/b1.json"
expect 4 'macs > \+5%: EXCEEDED \(\+12 \(\+6\.25%\)\*\)' -- diff "$tmp/a1.json" "$tmp/b1.json" --fail-if 'macs > +5%'
# JSON: the delta, each side marked, the symbols, the option and the note.
if "$nnscan" diff diff_a.onnx diff_b.onnx --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["totals"]["metrics"]["macs"]
assert m["delta"] == 12 and m["delta_pct"] == 6.25, m
assert m["before"]["at_symbols_1"] and m["after"]["at_symbols_1"], m
assert d["symbols_taken_as_1"] == ["batch"], d["symbols_taken_as_1"]
assert d["symbols_fix"] == ["--input x=Nx8"], d["symbols_fix"]
assert "batch" in d["symbols_note"] and "--input x=Nx8" in d["symbols_note"]
assert [b["status"] for b in d["budgets"]] == []
'; then ok; else ko "diff JSON of the dynamic-batch pair"; fi
"$nnscan" diff diff_a.onnx diff_b.onnx --format json -o "$tmp/dyn_diff.json"
if /usr/bin/python3 ../report/check_json.py "$tmp/dyn_diff.json" >/dev/null; then ok; else ko "the dynamic-batch diff JSON does not follow docs/diff.schema.json"; fi
# HTML: the same note (the page renders the JSON it embeds).
out=$("$nnscan" diff diff_a.onnx diff_b.onnx --format html --fail-if 'macs > +5%'); rc=$?
if [ "$rc" -eq 4 ] && grep -q 'Symbolic dims taken as 1 on both sides' <<<"$out" && grep -q 'symbols_note' <<<"$out"; then ok
else ko "diff --format html: rc $rc or no symbols note"; fi

# ---- issue 17 (5, 6, 7) and issue 18 (14, 16): what a newcomer types ----
# A path-like word that is no file is a missing model, not a command.
expect 1 "cannot open 'nosuch\.onnx'" -- nosuch.onnx
expect 1 "cannot open '$tmp/dir/m'" -- "$tmp/dir/m"
out=$("$nnscan" nosuch.onnx 2>&1); [ "$(wc -l <<<"$out")" -eq 1 ] && ok || ko "nosuch.onnx printed more than one line: $out"
expect 2 "unknown command 'frobnicate'.*no file" -- frobnicate
# The unknown-command list names every command the overview (nnscan -h)
# lists, diff included (issue 41 item 8), and nothing else.
listed=$("$nnscan" frobnicate 2>&1 | sed -n 's/^commands: \(.*\); nnscan -h for help$/\1/p' | tr -d ' ' | tr ',' '\n' | sort)
overview=$("$nnscan" -h | sed -n '/^commands:$/,/^$/p' | sed -n 's/^  \([a-z]\+\) .*/\1/p' | sort)
if [ -n "$listed" ] && [ "$listed" = "$overview" ] && grep -qx diff <<<"$listed"; then ok
else ko "frobnicate lists [$listed], nnscan -h lists [$overview]"; fi
# Every command's -h / --help: usage on stdout, nothing on stderr, exit 0.
for c in summary table shapes ops version; do
  for h in -h --help; do
    out=$("$nnscan" $c $h 2>"$tmp/err"); rc=$?
    if [ "$rc" -eq 0 ] && grep -q "^usage: nnscan $c" <<<"$out" && [ ! -s "$tmp/err" ]; then ok
    else ko "nnscan $c $h: rc $rc, stdout '$out', stderr '$(cat "$tmp/err")'"; fi
  done
done
expect 0 '^usage: nnscan table' -- table tiny_cnn.onnx -h
expect 0 '^usage: nnscan shapes' -- help shapes
# The top-level help holds every command's own usage.
top=$("$nnscan" --help)
for c in summary table shapes ops version; do
  grep -q "^usage: nnscan $c" <<<"$top" && ok || ko "nnscan --help lacks the usage of $c"
done
# Issue 42 item 3: help and parser come from one table (src/cli/options.c),
# so every option a command's -h lists, that command takes (never "unknown
# option"; one that wants a value and has none says so), each is listed
# once, and a word the help does not list is refused, naming the command.
for c in summary table shapes diff ops hardware version; do
  opts=$("$nnscan" $c -h | sed -n 's/^  \(-[a-z], \)\{0,1\}\(--\{0,1\}[a-z][a-z-]*\)\( [^ ]*\)\{0,1\}  .*/\2 \3/p')
  [ -n "$opts" ] || ko "nnscan $c -h lists no option"
  dup=$(cut -d' ' -f1 <<<"$opts" | sort | uniq -d)
  [ -z "$dup" ] && ok || ko "nnscan $c -h lists $dup twice"
  while read -r o mv; do
    [ "$o" = --help ] && continue
    out=$("$nnscan" $c "$o" 2>&1 </dev/null)
    if grep -q 'unknown option' <<<"$out"; then ko "nnscan $c -h lists $o, the parser refuses it: $out"
    elif [ -n "$mv" ] && ! grep -q "^nnscan $c: $o needs a value" <<<"$out"; then ko "nnscan $c $o (no value): $out"
    else ok; fi
  done <<<"$opts"
  expect 2 "^nnscan $c: unknown option '--bogus'" -- $c --bogus
done
expect 2 "^nnscan table: --plot needs a value" -- table tiny_cnn.onnx --plot
expect 2 "^nnscan diff: --fail-if needs a value" -- diff diff_a.onnx diff_b.onnx --fail-if
expect 2 "^nnscan hardware: --hardware-file needs a value" -- hardware --hardware-file
expect 2 "^nnscan ops: unexpected argument 'extra'" -- ops extra
expect 2 "^nnscan summary: one model at a time" -- summary tiny_cnn.onnx tiny_cnn.onnx
expect 2 "^nnscan diff: two files, A and B" -- diff diff_a.onnx diff_b.onnx diff_a.onnx
# Not ONNX at all: said first, the decoder's byte detail kept after.
printf 'Model card\n\nThis model classifies images.\n' > "$tmp/readme.onnx"
expect 1 "readme\.onnx: not an ONNX model: it looks like text \(decoding it as ONNX: .*at byte [0-9]+" -- "$tmp/readme.onnx"
printf '{"ir_version": 8}\n' > "$tmp/m.json"
expect 1 "not an ONNX model: it looks like JSON text" -- shapes "$tmp/m.json"
# --input: a name twice, a trailing separator, a dim beside its input's shape.
expect 2 "--input batch is given twice" -- shapes tiny_cnn.onnx --input batch=2 --input batch=3
expect 2 "ends with a separator" -- shapes tiny_cnn.onnx --input x=1x3x8x8x
expect 2 "ends with a separator" -- shapes tiny_cnn.onnx --input x=1,3,8,8,
expect 1 "'batch' is dim 0 of input 'x', whose whole shape --input x=\.\.\. also gives" -- shapes tiny_cnn.onnx --input x=1x3x8x8 --input batch=3
expect 1 "'batch' is dim 0 of input 'x', whose whole shape" -- shapes tiny_cnn.onnx --input batch=3 --input x=1x3x8x8
expect 1 "'batch' is the first dim of input 'x', which --batch 2 already sets" -- shapes tiny_cnn.onnx --batch 2 --input batch=3
# -o: concurrent runs leave one whole report (json or csv), never a mix,
# and no temporary file.
"$nnscan" summary tiny_cnn.onnx --format json -o "$tmp/ref.json" && "$nnscan" summary tiny_cnn.onnx --format csv -o "$tmp/ref.csv" || ko "-o references"
for round in 1 2 3; do
  for k in 1 2 3 4; do
    "$nnscan" summary tiny_cnn.onnx --format json -o "$tmp/race.out" &
    "$nnscan" summary tiny_cnn.onnx --format csv -o "$tmp/race.out" &
  done
  wait
  if cmp -s "$tmp/race.out" "$tmp/ref.json" || cmp -s "$tmp/race.out" "$tmp/ref.csv"; then ok
  else ko "concurrent -o left a file that is neither report (round $round)"; fi
done
ls -A "$tmp" | grep -q '^\.race\.out\.' && ko "temporary files left: $(ls -A "$tmp")" || ok
# A failed write (file size limit) keeps the old file and removes the
# temporary one; the new file gets the mode fopen would give it.
echo old > "$tmp/keep.json"
out=$( (trap '' XFSZ; ulimit -f 1; "$nnscan" summary ../../examples/resnet18.onnx --format json -o "$tmp/keep.json") 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -q "cannot write '$tmp/keep.json'" <<<"$out" && [ "$(cat "$tmp/keep.json")" = old ] && ok || ko "failed -o: rc $rc, $out, file: $(head -c 50 "$tmp/keep.json")"
ls -A "$tmp" | grep -q '^\.keep\.json\.' && ko "failed -o left its temporary file" || ok
(umask 022; "$nnscan" ops -o "$tmp/mode.txt") && [ "$(stat -c %a "$tmp/mode.txt")" = 644 ] && ok || ko "-o file mode $(stat -c %a "$tmp/mode.txt")"
long=$(printf 'n%.0s' $(seq 250))
"$nnscan" ops -o "$tmp/$long" && [ -s "$tmp/$long" ] && ok || ko "-o with a 250-byte file name"
ln -s mode.txt "$tmp/link.txt" && "$nnscan" ops --format md -o "$tmp/link.txt" && [ -L "$tmp/link.txt" ] && grep -q '^# Supported operators' "$tmp/mode.txt" && ok || ko "-o through a symbolic link replaced the link"

# ---- issue 17 (15): the README's first command builds the demo only, and
# its venv is ignored by git.
first=$(sed -n '/^```sh$/{n;p;q}' ../../README.md)
grep -q -- '--target nnscan nnscan_shared ' <<<"$first" && ! grep -q 'test_' <<<"$first" && ok || ko "README's first command: $first"
if git -C ../.. rev-parse --git-dir >/dev/null 2>&1; then
  git -C ../.. check-ignore -q env/bin/python && ok || ko ".gitignore misses the README's env/"
fi

# ---- issue 17 (8): `table` with symbolic dims. tiny_cnn's conv: 4x8x8
# outputs x 3x3x3 = 6912 MACs per sample (batch taken as 1), 27648 at 4.
expect 0 '^tiny_cnn,112,[0-9]+,6912,.*,true,batch$' -- table tiny_cnn.onnx --format csv
expect 0 '^tiny_cnn,112,[0-9]+,27648,.*,true,$' -- table tiny_cnn.onnx --format csv --input batch=4
expect 0 '^tiny_cnn,112,[0-9]+,27648,.*,true,$' -- table tiny_cnn.onnx --format csv --batch 4
expect 0 '^tiny_cnn,112,[0-9]+,27648,.*,true,$' -- table tiny_cnn.onnx --format csv --input x=4x3x8x8
expect 0 '^\| tiny\\_cnn \\\* +\|' -- table tiny_cnn.onnx
expect 0 '^\\\* Symbolic dims taken as 1 .*tiny\\_cnn: batch\. Fix them with --input' -- table tiny_cnn.onnx
out=$("$nnscan" table tiny_cnn.onnx --format text --input batch=4)
grep -q '\*' <<<"$out" && ko "a fixed model is still marked: $out" || ok
# --input applies to the models that have the name; one no model has fails.
expect 0 '^\| resnet18 ' -- table ../../examples/resnet18.onnx tiny_cnn.onnx --input batch=2
expect 2 "--input bogus: no model has an input or input dim called 'bogus'" -- table tiny_cnn.onnx --input bogus=2
# Units per column: a tiny model's 112 params plain, its MACs in k (6.91),
# and beside resnet18 in M, 6912 as 0.0069: no exponent, no 0.00.
expect 0 '^\| Model +\| Params \| FLOPs \(k\) \| MACs \(k\) ' -- table tiny_cnn.onnx
expect 0 '^\| tiny\\_cnn \\\* +\| +112 \| +[0-9.]+ \| +6\.91 \|' -- table tiny_cnn.onnx
out=$("$nnscan" table ../../examples/resnet18.onnx tiny_cnn.onnx)
grep -q 'MACs (M)' <<<"$out" && grep -qE '^\| tiny\\_cnn \\\* +\|.*\| +0\.0069 \|' <<<"$out" && ! grep -qE 'e[-+][0-9]|\| +0\.00 ' <<<"$out" && ok || ko "mixed table units: $out"
# The plot and the page mark the same rows.
"$nnscan" table tiny_cnn.onnx --plot "$tmp/p.svg" --format html -o "$tmp/t.html" || ko "table --plot --format html"
grep -q '>tiny_cnn \*</text>' "$tmp/p.svg" && grep -q 'symbols taken as 1\|symbolic dims taken as 1' "$tmp/p.svg" && ok || ko "SVG lacks the mark"
grep -q '"symbols_at_1": "batch"' "$tmp/t.html" && ok || ko "HTML document lacks symbols_at_1"

# The roofline (docs/roofline.md). tiny_cnn by hand: the Conv reads x
# (3x8x8 float32, 768 B), W (432 B), B (16 B) and writes 1,024 B; the Relu
# 1,024 + 1,024; the Flatten is a view: 4,288 bytes, at 50 GB/s 85.76 ns.
expect 0 '^h100-sxm +67\.0 +494\.5 +989\.5 +989\.5 +1979\.0 +1979\.0 +3\.350' -- hardware
expect 0 '"name": "mi300x"' -- hardware --json
expect 0 '^,0,tiny_cnn,Conv\+Relu,"\(-1, 256\)",112,4288,[0-9.]+,memory,8\.576e-08,symbolic' -- summary tiny_cnn.onnx --hardware cpu --peak-flops 1e12 --bandwidth 5e10 --format csv
expect 1 "lists no fp8 peak" -- summary tiny_cnn.onnx --hardware a100-sxm-80g --dtype fp8
expect 1 "has no memory bandwidth" -- summary tiny_cnn.onnx --hardware cpu
expect 2 "go with --hardware" -- summary tiny_cnn.onnx --dtype bf16
expect 2 "--dtype is fp32" -- summary tiny_cnn.onnx --hardware l4 --dtype fp4
expect 1 "no hardware called 'nope'" -- summary tiny_cnn.onnx --hardware nope
printf '[my-npu]\nbandwidth = 1e11\nfp32 = 1e12\n' > "$tmp/my.hw"
expect 0 '^my-npu ' -- hardware --hardware-file "$tmp/my.hw"
expect 0 'Roofline on my-npu' -- summary tiny_cnn.onnx --hardware my-npu --hardware-file "$tmp/my.hw"
printf '[x]\nbandwidth = lots\n' > "$tmp/bad.hw"
expect 1 'bad.hw:2:' -- hardware --hardware-file "$tmp/bad.hw"

# Issue 47: the device file docs/roofline.md shows (comments after values)
# loads as it is, extracted from the docs; a URL's #fragment is no comment.
sed -n '/^# my.hw:/,/^```$/p' ../../docs/roofline.md | sed '$d' >"$tmp/docs.hw"
grep -q 'bandwidth = 1.2e12 *# bytes/s' "$tmp/docs.hw" && ok || ko "docs/roofline.md example not found"
expect 0 '^my-npu +30\.0 +- +120\.0 +- +- +240\.0 +1\.200  My NPU, 32 GB' -- hardware --hardware-file "$tmp/docs.hw"
printf '[u]\nsource = https://x.org/a#b  # the sheet\nbandwidth = 1e11 # B/s\nfp32 = 1e12\n' >"$tmp/url.hw"
expect 0 'https://x.org/a#b"' -- hardware --json --hardware-file "$tmp/url.hw"
: >"$tmp/empty.hw"
expect 1 "empty.hw: no device" -- hardware --hardware-file "$tmp/empty.hw"
printf '[a]\nbandwidth = 1e12\n[\0b]\n' >"$tmp/nul.hw"
expect 1 'nul.hw: a NUL byte at byte 22; a hardware file is text' -- hardware --hardware-file "$tmp/nul.hw"
printf '[a]\ndescription = Caf\351\nbandwidth = 1e12\nfp32 = 1e12\n' >"$tmp/latin1.hw"
expect 1 'latin1.hw: byte 21 \(0xe9\) is not UTF-8; a hardware file is UTF-8 text' -- hardware --hardware-file "$tmp/latin1.hw"
# Figures are finite and from 1e6 to 1e21, from a file or an option.
printf '[x]\nbandwidth = 1e30\nfp32 = 1e12\n' >"$tmp/big.hw"
expect 1 "big.hw:2: '1e30' is not a number from 1e6 to 1e21 \(bytes/s" -- hardware --hardware-file "$tmp/big.hw"
printf '[x]\nbandwidth = 1e12\nfp32 = inf\n' >"$tmp/inf.hw"
expect 1 "inf.hw:3: 'inf' is not a number from 1e6 to 1e21, or 0 for none \(FLOP/s" -- hardware --hardware-file "$tmp/inf.hw"
expect 1 "hardware 'cpu': fp32 peak inf FLOP/s is not a number from 1e6 to 1e21" -- summary tiny_cnn.onnx --hardware cpu --peak-flops inf --bandwidth 5e10
expect 1 "hardware 'cpu': fp32 peak nan FLOP/s is not a number from 1e6 to 1e21" -- summary tiny_cnn.onnx --hardware cpu --peak-flops nan --bandwidth 5e10
expect 1 "hardware 'cpu': bandwidth 1e-300 bytes/s is not a number from 1e6 to 1e21" -- summary tiny_cnn.onnx --hardware cpu --peak-flops 1e12 --bandwidth 1e-300
expect 2 "--bandwidth wants a number from 1e6 to 1e21" -- summary tiny_cnn.onnx --hardware cpu --peak-flops 1e12 --bandwidth fast
# A name twice is found by a hash, not a scan: 1 MiB of devices in well
# under the 20 s the quadratic check took.
python3 -c 'import sys; sys.stdout.write("".join("[d%d]\nbandwidth=1e12\nfp32=1e12\n" % i for i in range(30000)) + "[d7]\n")' >"$tmp/many.hw"
start=$(date +%s)
expect 1 "many.hw:90001: device 'd7' defined twice" -- hardware --hardware-file "$tmp/many.hw"
[ $(( $(date +%s) - start )) -lt 5 ] && ok || ko "30,000 devices took $(( $(date +%s) - start )) s"
# Issue 43: one rank of a dp / fsdp job from an ONNX file; tp and ep need
# a plan of the model's modules (Python only).
expect 0 'Per rank \(2 ranks: dp=2, estimate\)' -- summary tiny_cnn.onnx --parallel dp=2
expect 0 'does not fit in 100 B per rank: grow fsdp' -- summary tiny_cnn.onnx --optimizer adamw --parallel fsdp=2 --budget 100
expect 0 '"mesh": \{"dp": 2, "fsdp": 4\}' -- summary tiny_cnn.onnx --format json --parallel fsdp=4,dp=2
expect 2 "needs a plan of the model's modules" -- summary tiny_cnn.onnx --parallel tp=2
expect 2 'fsdp=0 is out of range \(a size from 1 to 16777216\)' -- summary tiny_cnn.onnx --parallel fsdp=0
expect 2 'fsdp=99999999999999999999 is out of range' -- summary tiny_cnn.onnx --parallel fsdp=99999999999999999999
expect 2 'names fsdp twice' -- summary tiny_cnn.onnx --parallel fsdp=8,fsdp=2
expect 2 "unknown axis 'pp'" -- summary tiny_cnn.onnx --parallel pp=2
expect 2 '--parallel wants AXIS=N pairs' -- summary tiny_cnn.onnx --parallel fsdp=
expect 2 '--parallel wants AXIS=N pairs' -- summary tiny_cnn.onnx --parallel ,fsdp=2
expect 2 '--budget goes with --parallel' -- summary tiny_cnn.onnx --budget 8GB
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
