# Sourced by the before/after scripts (compare.sh, same_output.sh): builds
# nnscan at a base revision and the working tree, both in Release.
#
#   build_base_and_now REV
#
# Sets `work` to a temporary folder removed on exit (the base's binary is
# $work/base/nnscan); the working tree's is build-bench/nnscan. Run from the
# repository's root.
build_base_and_now() {
  local rev=$1 jobs
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  jobs=$(nproc 2>/dev/null || echo 2)
  git archive "$rev" | tar -x -C "$work" --one-top-level=base-src
  cmake -S "$work/base-src" -B "$work/base" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/base" -j "$jobs" --target nnscan >/dev/null
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-bench -j "$jobs" --target nnscan >/dev/null
}
