#!/usr/bin/env bash
# The test command: conformance tests natively (every tier this CPU has), the allocation tests,
# the install and downstream consumer builds with the examples, the API reference check; under qemu-user for
# the tiers below it (core2duo: scalar, Nehalem: SSE4.1, Haswell: AVX2, each checked to be the
# tier dispatch picked), cross-built for AArch64 and run under qemu-aarch64 (cortex-a53: NEON,
# cortex-a76: dotprod, max: i8mm), again under AddressSanitizer + UndefinedBehaviorSanitizer (with
# the allocation-failure test and the fuzz corpus replay), the concurrency tests under
# ThreadSanitizer, and the libFuzzer target for CPUML_FUZZ_SECONDS (default 150).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BASE_PACKAGES[@]}" qemu-user g++-aarch64-linux-gnu clang libclang-rt-14-dev pkg-config doxygen python3
ensure_arm64_packages libgtest-dev:arm64 libbenchmark-dev:arm64

passed=0 failed=0 skipped=0
source "$ROOT/scripts/test_counting.sh"

cmake -S "$ROOT" -B "$ROOT/build/release" -DCMAKE_BUILD_TYPE=Release -DCPUML_BENCH_PEERS=OFF -DCPUML_WERROR=ON > /dev/null
cmake --build "$ROOT/build/release" -j "$JOBS"
TESTS="$ROOT/build/release/tests/cpuml_tests"
counting_self_check "$TESTS"

# Packaging checks (exports, tier namespaces) through ctest; the suite itself runs below.
(cd "$ROOT/build/release" && ctest --output-on-failure -E '^cpuml_(tests|allocation_failure_test|allocation_count_test|fuzz_corpus_replay)$') \
  || failed=$((failed + 1))

run_suite "native ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))" "$TESTS"
run_suite "allocation failure (each allocation of create, initialize, execute)" \
  "$ROOT/build/release/tests/cpuml_allocation_failure_test"
run_suite "allocation count (executes with caller scratch allocate nothing)" \
  "$ROOT/build/release/tests/cpuml_allocation_count_test"
run_check "fuzz corpus replay" "$ROOT/build/release/tests/cpuml_fuzz_replay" "$ROOT/tests/fuzz/corpus"
# What an engine sees: install, then examples/ built against it with find_package and
# pkg-config, shared and static; and the API reference, which fails on an undocumented item.
run_check "consumer builds and examples" bash "$ROOT/scripts/consumer_test.sh" "$ROOT/build/release"
run_check "API reference (doxygen, undocumented public items fail)" \
  cmake --build "$ROOT/build/release" --target doc
# README and docs/: every relative link and #anchor resolves (results move between documents).
run_check "documentation links" python3 "$ROOT/scripts/check_doc_links.py" "$ROOT"
if [ "$(uname -m)" = "x86_64" ]; then
  for pair in core2duo:scalar Nehalem:sse41 Haswell:avx2; do
    cpu=${pair%%:*} tier=${pair##*:}
    run_suite "qemu-x86_64 -cpu $cpu (expects $tier)" env CPUML_EXPECT_ISA="$tier" CPUML_TEST_EMULATED=1 qemu-x86_64 -cpu "$cpu" "$TESTS"
  done
fi

# AArch64: cpuinfo's and pthreadpool's arm64 packages conflict with the amd64 ones, so they are
# unpacked into a sysroot under the build folder instead of installed.
if [ "$(uname -m)" = "x86_64" ]; then
  SYSROOT="$ROOT/build/aarch64-sysroot"
  if [ ! -f "$SYSROOT/usr/include/cpuinfo.h" ] || [ ! -f "$SYSROOT/usr/include/pthreadpool.h" ]; then
    mkdir -p "$SYSROOT/debs"
    (cd "$SYSROOT/debs" && apt-get download libcpuinfo-dev:arm64 libcpuinfo0:arm64 libpthreadpool-dev:arm64 \
      libpthreadpool0:arm64 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
    for deb in "$SYSROOT"/debs/*.deb; do dpkg -x "$deb" "$SYSROOT"; done
  fi
  cmake -S "$ROOT" -B "$ROOT/build/aarch64" -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchain-aarch64-linux-gnu.cmake" \
    -DCPUML_ARM64_SYSROOT="$SYSROOT" -DCMAKE_BUILD_TYPE=Release -DCPUML_BENCH_PEERS=OFF -DCPUML_WERROR=ON > /dev/null
  cmake --build "$ROOT/build/aarch64" -j "$JOBS"  # the benchmarks too: they must build for AArch64
  # The reduced sweep keeps every tile remainder at smaller sizes, and one thread: qemu-aarch64
  # can livelock pthreadpool's spin waits on CPUs without LSE atomics (cortex-a53).
  for pair in cortex-a53:neon cortex-a76:neon_dotprod max:neon_i8mm; do
    cpu=${pair%%:*} tier=${pair##*:}
    run_suite "qemu-aarch64 -cpu $cpu (expects $tier)" env CPUML_EXPECT_ISA="$tier" CPUML_TEST_EMULATED=1 CPUML_TEST_SWEEP=reduced CPUML_TEST_MAX_THREADS=1 \
      QEMU_LD_PREFIX=/usr/aarch64-linux-gnu LD_LIBRARY_PATH="$SYSROOT/usr/lib/aarch64-linux-gnu" \
      qemu-aarch64 -cpu "$cpu" "$ROOT/build/aarch64/tests/cpuml_tests"
  done
fi

cmake -S "$ROOT" -B "$ROOT/build/sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCPUML_SANITIZE=ON \
  -DCPUML_BUILD_BENCHMARKS=OFF -DCPUML_WERROR=ON > /dev/null
cmake --build "$ROOT/build/sanitize" -j "$JOBS"
run_suite "AddressSanitizer + UndefinedBehaviorSanitizer" env ASAN_OPTIONS=detect_leaks=1 "$ROOT/build/sanitize/tests/cpuml_tests"
run_suite "AddressSanitizer + UndefinedBehaviorSanitizer: allocation failure, leak check" env ASAN_OPTIONS=detect_leaks=1 \
  "$ROOT/build/sanitize/tests/cpuml_allocation_failure_test"
run_check "AddressSanitizer + UndefinedBehaviorSanitizer: fuzz corpus replay" env ASAN_OPTIONS=detect_leaks=1 \
  "$ROOT/build/sanitize/tests/cpuml_fuzz_replay" "$ROOT/tests/fuzz/corpus"

# ThreadSanitizer: callers' threads only (CPUML_TEST_NO_POOL), since Debian's libpthreadpool is
# not instrumented; thread-count invariance with real pools is tested by the suites above.
cmake -S "$ROOT" -B "$ROOT/build/tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCPUML_THREAD_SANITIZE=ON \
  -DCPUML_BUILD_BENCHMARKS=OFF -DCPUML_WERROR=ON > /dev/null
cmake --build "$ROOT/build/tsan" -j "$JOBS" --target cpuml_tests
run_suite "ThreadSanitizer: concurrent executes and per-thread errors" env CPUML_TEST_NO_POOL=1 \
  TSAN_OPTIONS="halt_on_error=1" "$ROOT/build/tsan/tests/cpuml_tests" --gtest_filter='*Concurrent*'

# libFuzzer over create/initialize/execute of every operator, on every tier this CPU has, from
# the seed corpus; new findings go to a scratch folder (merge them into tests/fuzz/corpus by hand).
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$ROOT/build/fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCPUML_FUZZ=ON \
  -DCPUML_BUILD_BENCHMARKS=OFF -DCPUML_WERROR=ON > /dev/null
cmake --build "$ROOT/build/fuzz" -j "$JOBS" --target cpuml_fuzz
fuzz_dir=$(mktemp -d)
fuzz_log="$ROOT/build/fuzz/last_run.log"
run_fuzzer() {
  "$ROOT/build/fuzz/tests/cpuml_fuzz" -max_total_time="${CPUML_FUZZ_SECONDS:-150}" -timeout=30 -rss_limit_mb=4096 \
    -max_len=1024 -print_final_stats=1 -artifact_prefix="$ROOT/build/fuzz/" "$fuzz_dir" "$ROOT/tests/fuzz/corpus" \
    > "$fuzz_log" 2>&1 && return 0
  tail -40 "$fuzz_log"
  return 1
}
run_check "libFuzzer for ${CPUML_FUZZ_SECONDS:-150} s (log: build/fuzz/last_run.log)" run_fuzzer
grep -E "^stat::(number_of_executed_units|peak_rss_mb)|Done [0-9]+ runs" "$fuzz_log" || true
rm -rf "$fuzz_dir"

echo
echo "cpuml: skipped tests are tiers the CPU (or emulated CPU) lacks; each run checked the tier it expects."
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
