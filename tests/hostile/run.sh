#!/usr/bin/env bash
# Hostile input (issue 6, item 10), one regression test per finding of the
# campaign run against main: fold amplification within 512 MB and 5 s for
# files under 1 MB, refused folds the same in every command, a FIFO as
# MODEL, write errors, saturated counts, control characters in names, and
# external data through symbolic links. Usage:
#   run.sh PATH/TO/nnscan PATH/TO/hostile
# HOSTILE_SLOW=1 (sanitizer builds) loosens the memory and time limits.
set -u
nnscan=$1
hostile=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

max_mb=512 max_s=5
if [ -n "${HOSTILE_SLOW:-}" ]; then max_mb=1536 max_s=60; fi

"$hostile" make "$tmp" || { echo "FAIL: hostile make"; exit 1; }
tiny=$here/../cli/tiny_cnn.onnx

# ---- Fold amplification ----
# Each file is under 1 MB; each command stays under max_mb of peak RSS
# (wait4 rusage of the child) and max_s seconds, and exits 0.
for f in fold_neg fold_add fold_30k fold_small; do
  model=$tmp/$f.onnx
  size=$(stat -c %s "$model")
  [ "$size" -lt 1048576 ] && ok || ko "$f.onnx is $size bytes, not under 1 MB"
  for cmd in shapes summary; do
    "$hostile" run "$max_mb" "$max_s" "$nnscan" "$cmd" "$model" --format json \
      >"$tmp/$f.$cmd.json" 2>"$tmp/$f.$cmd.err"
    rc=$?
    line=$(grep '^rc=' "$tmp/$f.$cmd.err")
    echo "$f $cmd: $line"
    [ "$rc" -eq 0 ] && ok || ko "$f $cmd: over $max_mb MB or $max_s s: $line"
    grep -q '^rc=0 ' "$tmp/$f.$cmd.err" && ok || ko "$f $cmd exited non-zero: $(cat "$tmp/$f.$cmd.err")"
  done
  # A refused fold is the same in both commands: the same warning, naming
  # the same node. fold_small's values all fold (none is refused).
  w1=$(grep -o 'node [^"]*constant folding stopped[^"]*' "$tmp/$f.shapes.json")
  w2=$(grep -o 'node [^"]*constant folding stopped[^"]*' "$tmp/$f.summary.json")
  if [ "$f" = fold_small ]; then
    [ -z "$w1$w2" ] && ok || ko "fold_small: a small value was refused: '$w1'"
  else
    [ -n "$w1" ] && [ "$w1" = "$w2" ] && ok || ko "$f: folding warnings differ: '$w1' vs '$w2'"
  fi
done
# fold_neg's output is Reshape(last, Shape(last)): past the budget the
# 64K-element values are no longer folded, but shape arithmetic (one
# element, under NNS__FOLD_SMALL) still is, so both commands know r.
grep -q '"r": {"dtype": "float32", "shape": \[65536\]}' "$tmp/fold_neg.shapes.json" && ok \
  || ko "shapes: fold_neg's output r is not [65536]: $(grep '"r"' "$tmp/fold_neg.shapes.json")"
grep -q '"name": "r", "dtype": "float32", "shape": \[65536\]' "$tmp/fold_neg.summary.json" && ok \
  || ko "summary: fold_neg's output r is not [65536]"

# ---- A FIFO (or a device) as MODEL: refused at once, never blocking ----
mkfifo "$tmp/fifo"
for cmd in shapes summary; do
  out=$(timeout 10 "$nnscan" "$cmd" "$tmp/fifo" 2>&1); rc=$?
  [ "$rc" -eq 1 ] && grep -q "is not a regular file" <<<"$out" && ok \
    || ko "$cmd on a FIFO: rc $rc (124: blocked): $out"
done
out=$(timeout 10 "$nnscan" shapes /dev/zero 2>&1); rc=$?
[ "$rc" -eq 1 ] && ok || ko "shapes /dev/zero: rc $rc: $out"

# ---- Write errors: exit 1, naming the file and the errno text ----
if [ -w /dev/full ]; then
  full_cases=("shapes $tiny" "shapes $tiny --format json" "summary $tiny"
              "summary $tiny --format json" "summary $tiny --format csv"
              "summary $tiny --format md" "ops" "ops --format json"
              "table $tiny")
  for c in "${full_cases[@]}"; do
    # shellcheck disable=SC2086
    out=$("$nnscan" $c 2>&1 >/dev/full); rc=$?
    [ "$rc" -eq 1 ] && grep -q "cannot write '<stdout>': No space left on device" <<<"$out" && ok \
      || ko "nnscan $c > /dev/full: rc $rc: $out"
    # shellcheck disable=SC2086
    out=$("$nnscan" $c -o /dev/full 2>&1); rc=$?
    [ "$rc" -eq 1 ] && grep -q "cannot write '/dev/full': No space left on device" <<<"$out" && ok \
      || ko "nnscan $c -o /dev/full: rc $rc: $out"
  done
  out=$("$nnscan" table "$tiny" --plot /dev/full 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 1 ] && grep -q "cannot write '/dev/full'" <<<"$out" && ok || ko "table --plot /dev/full: rc $rc: $out"
  out=$("$nnscan" version 2>&1 >/dev/full); rc=$?
  [ "$rc" -eq 1 ] && ok || ko "version > /dev/full: rc $rc: $out"
else
  echo "note: no writable /dev/full; write-error cases skipped"
fi

# ---- Saturated counts: flagged, incomplete, and --strict fails ----
big=9223372036854775807
out=$("$nnscan" summary "$tiny" --batch $big --format json 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -q '"complete": false, "saturated": true' <<<"$out" && ok \
  || ko "--batch $big: totals not flagged saturated: $(grep complete <<<"$out")"
out=$("$nnscan" summary "$tiny" --format json 2>&1)
grep -q '"complete": true, "saturated": false' <<<"$out" && ok || ko "batch 1 is flagged saturated"
out=$("$nnscan" summary "$tiny" --batch $big --strict 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 3 ] && grep -q "saturated" <<<"$out" && ok || ko "--strict with saturated counts: rc $rc: $out"
out=$("$nnscan" summary "$tiny" --batch $big 2>&1)
grep -q "saturated" <<<"$out" && ok || ko "the text footer does not say the counts saturated"

# ---- Control characters and invalid UTF-8 in names ----
# The scanner must catch what it is for (else this section proves nothing).
printf 'a\033[31mb\n' >"$tmp/esc.txt"
printf 'a\302\233b\n' >"$tmp/c1.txt"
printf 'a\377b\n' >"$tmp/bad.txt"
for f in esc c1 bad; do
  "$hostile" scan "$tmp/$f.txt" 2>/dev/null && ko "scan misses $f.txt" || ok
done
names=$tmp/names.onnx
evil="$tmp/evil$(printf '\033')[31m.onnx"
cp "$names" "$evil"
scan_out() { # NAME CMD...: stdout and stderr of nnscan CMD, both scanned
  local name=$1; shift
  "$nnscan" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  "$hostile" scan "$tmp/$name.out" "$tmp/$name.err" && ok || ko "nnscan $name: control characters or invalid UTF-8 written"
}
for fmt in text csv md json; do
  scan_out "summary-$fmt" summary "$names" --format "$fmt" --columns all
  scan_out "summary-evilpath-$fmt" summary "$evil" --format "$fmt"
done
scan_out summary-strict summary "$names" --strict
scan_out summary-depth1 summary "$names" --depth 1 --format md
scan_out shapes-text shapes "$names"
scan_out shapes-json shapes "$names" --format json
scan_out shapes-evil shapes "$evil"
scan_out bad-names-text shapes "$here/../cli/bad_names.onnx"
for fmt in text md csv; do
  scan_out "table-$fmt" table "$names" "$evil" --format "$fmt"
done
# The names still show, their controls replaced: the report is not empty.
grep -q 'Evil?\[5mOp' "$tmp/summary-text.out" && ok || ko "the unknown op's cleaned name is missing from the text report"

# ---- External data through symbolic links ----
# model/shape.bin -> ../outside/good.bin (int64 [2, 8]) and model/short.bin
# -> ../outside/short.bin (5 bytes). Neither is followed: Y's target shape
# stays unknown and no warning tells the outside file's size.
mkdir -p "$tmp/sl/model" "$tmp/sl/outside"
cp "$tmp/ext_link.onnx" "$tmp/sl/model/"
printf '\002\0\0\0\0\0\0\0\010\0\0\0\0\0\0\0' >"$tmp/sl/outside/good.bin"
printf '12345' >"$tmp/sl/outside/short.bin"
ln -s ../outside/good.bin "$tmp/sl/model/shape.bin"
ln -s ../outside/short.bin "$tmp/sl/model/short.bin"
out=$("$nnscan" shapes "$tmp/sl/model/ext_link.onnx" 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -qE '^Y +output +float32 +\[\?, \?\]' <<<"$out" && ok \
  || ko "a link out of the folder was read: $out"
grep -q "short.bin' (1 tensors) is a symbolic link out of the model's folder" <<<"$out" && ok \
  || ko "no warning about the link: $out"
grep -q "5 bytes" <<<"$out" && ko "the size of a file outside the folder leaked: $out" || ok
# The control: the same files inside the folder are read and measured.
rm "$tmp/sl/model/shape.bin" "$tmp/sl/model/short.bin"
cp "$tmp/sl/outside/good.bin" "$tmp/sl/model/shape.bin"
cp "$tmp/sl/outside/short.bin" "$tmp/sl/model/short.bin"
out=$("$nnscan" shapes "$tmp/sl/model/ext_link.onnx" 2>&1)
grep -qE '^Y +output +float32 +\[2, 8\]' <<<"$out" && grep -q "has 5 bytes" <<<"$out" && ok \
  || ko "files inside the folder were not read: $out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
