#!/bin/sh
# Everything a session lent a CUDA GPU checks, in one call (the device
# time is short): builds the library there, runs bench/gpu_check.py
# (every section), then the Python test suites on that machine's PyTorch
# (its CUDA tests run; the rest check another PyTorch and transformers
# than CI's). Logs go to $OUT (the device tool's folder) or build/gpu.
#
#   sh bench/gpu_all.sh [HARDWARE] [SECONDS_FOR_CHECKS] [SECONDS_FOR_PYTEST]
#
# A library built elsewhere can stand in: NNSCAN_LIBRARY=path.
set -u
hw=${1:-h100-sxm}
out=${OUT:-build/gpu}
mkdir -p "$out" build/gpu
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv \
    >"$out/device.txt" 2>&1
python3 -c 'import torch, transformers, sys; print(sys.version.split()[0],
    torch.__version__, transformers.__version__)' >>"$out/device.txt" 2>&1
cat "$out/device.txt"
if [ -z "${NNSCAN_LIBRARY:-}" ]; then
    cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DNNS_BUILD_TESTS=OFF \
        >"$out/build.log" 2>&1 &&
        cmake --build build/gpu -j"$(nproc)" \
            >>"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
    NNSCAN_LIBRARY=$PWD/build/gpu/libnnscan.so
fi
export NNSCAN_LIBRARY PYTHONPATH=python PYTHONUNBUFFERED=1
# 0 seconds skips a part
if [ "${2:-270}" != 0 ]; then
    timeout "${2:-270}" python3 bench/gpu_check.py --hardware "$hw" \
        >"$out/gpu_check.md" 2>&1
    echo "gpu_check.py: exit $?"
fi
# xdist is in that machine's image; -v names each result as it comes, so
# a run cut off by its timeout still says what failed
if [ "${3:-240}" != 0 ]; then
    timeout "${3:-240}" python3 -m pytest python/tests python/tests_hf -v \
        -rfE --tb=short --maxfail=50 -p no:cacheprovider -n "$(nproc)" \
        --dist loadfile >"$out/pytest.log" 2>&1
    echo "pytest: exit $?"
    grep -E "FAILED|ERROR" "$out/pytest.log" | head -20
    tail -3 "$out/pytest.log"
fi
