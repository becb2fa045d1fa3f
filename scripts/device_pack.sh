#!/usr/bin/env bash
# Builds the conformance tests and the benchmark here and copies them, with the shared libraries
# they load that a bare machine lacks (cpuinfo, pthreadpool, Google Benchmark), into .device/
# (git-ignored), for a machine without those packages (the Emerald Rapids device). There:
#   cd .device && LD_LIBRARY_PATH=$PWD/lib ./cpuml_tests
#   bash scripts/device_bench.sh .device OUT_DIR     (or scripts/device_conformance_and_bench.sh: tests, probes, fills, peers)
#   CPUML_BENCH_BINARY=$PWD/cpuml_bench taskset -c 3 python3 ../bench/device_interleaved.py $PWD/lib/libcpuml.so
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BASE_PACKAGES[@]}"
cmake -S "$ROOT" -B "$ROOT/build/device" -DCMAKE_BUILD_TYPE=Release -DCPUML_BENCH_PEERS=OFF -DCPUML_WERROR=ON > /dev/null
cmake --build "$ROOT/build/device" -j "$JOBS"
DEST="$ROOT/.device"
rm -rf "$DEST"
mkdir -p "$DEST/lib"
for binary in tests/cpuml_tests tests/cpuml_allocation_failure_test tests/cpuml_allocation_count_test \
              tests/cpuml_fuzz_replay bench/cpuml_bench bench/cpuml_scratch_sizes; do
  cp "$ROOT/build/device/$binary" "$DEST/"
done
cp -r "$ROOT/tests/fuzz/corpus" "$DEST/corpus"
# The shared library itself, for bench/device_interleaved.py (ctypes).
cp -L "$ROOT/build/device/libcpuml.so" "$DEST/lib/libcpuml.so"
# Libraries outside glibc and libstdc++ (the device's are newer and serve).
ldd "$DEST"/cpuml_* | awk '/=> \// {print $3}' | sort -u | grep -E 'cpuinfo|pthreadpool|benchmark|gtest' |
  while read -r lib; do cp -L "$lib" "$DEST/lib/"; done
ls -la "$DEST" "$DEST/lib"
