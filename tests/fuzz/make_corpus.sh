#!/bin/sh
# make_corpus.sh DIR - seeds a libFuzzer corpus folder with real models: the
# ONNX backend test cases (libonnx-testdata), tests/fixtures/models,
# tests/fixtures/deploy (Constant weights, If branches, node metadata) and
# the hand-built graphs of tests/unit/models (window attention, rolls).
# Models over NNS_CORPUS_MAX_KB (default 200) are left out: the fuzzer
# mutates small inputs far faster, and big ones add no new structure.
set -eu
out=${1:?usage: make_corpus.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
max_kb=${NNS_CORPUS_MAX_KB:-200}
mkdir -p "$out"
n=0
# Each backend case is a folder holding model.onnx: name the seed after it.
for f in $(find /usr/share/libonnx-testdata/data -name model.onnx \
             -size -"${max_kb}"k 2>/dev/null); do
  case_dir=${f%/*}          # .../node/test_abs
  group=${case_dir%/*}      # .../node
  cp "$f" "$out/${group##*/}-${case_dir##*/}.onnx"
  n=$((n + 1))
done
for f in $(find "$here/../fixtures/models" "$here/../fixtures/deploy" \
             "$here/../unit/models" -name '*.onnx' -size -"${max_kb}"k \
             2>/dev/null); do
  cp "$f" "$out/fixture-${f##*/}"
  n=$((n + 1))
done
echo "make_corpus.sh: $n seeds in $out"
