#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a consumer against
# it with pkg-config and with CMake's find_package(nnscan), shared and
# static.
# Usage: run.sh BUILD_DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/ | head -1)
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pass=0
# 1. pkg-config, shared library.
cc $(pkg-config --cflags nnscan) "$here/consumer.c" -o "$tmp/c1" $(pkg-config --libs nnscan)
LD_LIBRARY_PATH="$libdir" "$tmp/c1" "$here/../cli/tiny_cnn.onnx" >/dev/null && pass=$((pass + 1))
# 2. CMake package.
cmake -S "$here" -B "$tmp/cb" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cb" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/cb/consumer" "$here/../cli/tiny_cnn.onnx" >/dev/null && pass=$((pass + 1))
# 4. The static library, through each: its private dependencies (libm,
# and the thread the analysis starts) come with it.
libs=$(pkg-config --static --libs nnscan)
cc $(pkg-config --cflags nnscan) "$here/consumer.c" -o "$tmp/c4" ${libs/-lnnscan/-l:libnnscan.a}
"$tmp/c4" "$here/../cli/tiny_cnn.onnx" >/dev/null && pass=$((pass + 1))
cmake -S "$here" -B "$tmp/cs" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCONSUMER_STATIC=ON >/dev/null
cmake --build "$tmp/cs" >/dev/null
"$tmp/cs/consumer" "$here/../cli/tiny_cnn.onnx" >/dev/null && pass=$((pass + 1))
# 3. Only nns_ symbols are exported from the shared library.
bad=$(nm -D --defined-only "$libdir"/libnnscan.so | awk '$2 ~ /[TDB]/ {print $3}' | grep -v '^nns_' | grep -v '^_' || true)
[ -z "$bad" ] && pass=$((pass + 1)) || echo "exported non-API symbols: $bad"
echo "$pass passed, $((5 - pass)) failed"
[ "$pass" -eq 5 ]
