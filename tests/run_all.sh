#!/usr/bin/env bash
# Installs what the tests need (Debian packages; run as root) and runs every
# test: a gcc build, the Python suite again on PyTorch 2.x (a Debian sid
# chroot, tests/sid_chroot.sh), a clang -Werror build with ASan+UBSan
# running the whole suite, valgrind over the suite, and short libFuzzer runs
# of every parser target. This is the README's test command and what CI
# runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# ---- dependencies (installed only when missing, so it also works offline) --
packages=(build-essential cmake zlib1g-dev clang libclang-rt-14-dev valgrind
          libonnx-testdata python3 python3-jsonschema python3-onnx
          python3-torch python3-torchvision python3-pytest python3-venv
          python3-pip python3-setuptools python3-wheel chromium debootstrap)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "tests/run_all.sh: missing packages; run as root to install them" >&2
    exit 1
  fi
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
export NNS_REQUIRE_TESTDATA=1
# A run killed while the sid chroot's mounts were up leaves them mounted:
# take them down before anything else touches build/.
if [ -d build/sid ]; then bash tests/sid_chroot.sh unmount build/sid; fi

run_suite() { # build-dir, ctest-args, cmake args...
  local dir=$1 ctest_args=$2; shift 2
  echo "== build $dir: $*"
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  echo "== test $dir"
  # shellcheck disable=SC2086
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" $ctest_args
}

# 1. gcc, warnings as errors; every test, the Python (pytest) and browser
#    (headless chromium) ones included.
run_suite build/gcc "" -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo

# 1b. The Python suites (python/tests and the Hugging Face zoo
#     python/tests_hf) on the newest PyTorch Debian ships: a sid chroot made
#     once in build/sid (debootstrap + apt, a few minutes; reused after),
#     against the library step 1 built. The host's run above is PyTorch 1.13.
bash tests/sid_chroot.sh setup build/sid
bash tests/sid_chroot.sh test build/sid build/gcc/libnnscan.so

# 2. clang, warnings as errors, ASan + UBSan over the whole C suite (the
#    Python and browser tests load the library into processes that are not
#    built with the sanitizers, so they run in step 1 only).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
run_suite build/asan "-LE python|browser" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
  -DNNS_SANITIZE=ON

# 3. valgrind memcheck over the suite (gcc build): no leak, no bad read.
echo "== valgrind build/gcc"
ctest --test-dir build/gcc --output-on-failure -j "$jobs" -LE "script|python|browser" \
  -T memcheck >build/valgrind.log 2>&1 || { tail -40 build/valgrind.log; exit 1; }
# ctest lists defects ("Memory Leak - 2") after this line; there must be none.
if sed -n '/Memory checking results:/,$p' build/valgrind.log | grep -E ' - [0-9]+'; then
  echo "valgrind found defects: see build/gcc/Testing/Temporary/MemoryChecker.*.log"
  exit 1
fi
grep -E "tests passed|tests failed" build/valgrind.log

# 4. libFuzzer targets, a short run each over the seed corpus.
echo "== build build/fuzz"
cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNS_FUZZ=ON >/dev/null
cmake --build build/fuzz -j "$jobs"
ctest --test-dir build/fuzz --output-on-failure -L fuzz

echo "== all tests passed"
