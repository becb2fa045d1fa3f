#!/usr/bin/env bash
# The test command: conformance tests natively (every tier this CPU has), under qemu-user for
# the tiers below it (core2duo: scalar, Nehalem: SSE4.1, Haswell: AVX2, each checked to be the
# tier dispatch picked), and again under AddressSanitizer + UndefinedBehaviorSanitizer.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BASE_PACKAGES[@]}" qemu-user

passed=0 failed=0 skipped=0
# Runs one gtest invocation, adds its counts, keeps going on failure.
run_suite() {
  local label=$1; shift
  echo "=== $label"
  local log
  log=$(mktemp)
  if "$@" 2>&1 | tee "$log" | grep -E "dispatch picked|^\[  (PASSED|FAILED) +\] [0-9]+ test|^\[  SKIPPED \] [0-9]+ test|Failure|^\[  FAILED  \] " ; then :; fi
  local p f s
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  if [ -z "$p" ] && [ -z "$f" ]; then
    echo "cpuml: $label produced no gtest summary (crash or wrong tier)"; tail -20 "$log"; f=1
  fi
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
  rm -f "$log"
}

cmake -S "$ROOT" -B "$ROOT/build/release" -DCMAKE_BUILD_TYPE=Release -DCPUML_BENCH_PEERS=OFF > /dev/null
cmake --build "$ROOT/build/release" -j "$JOBS"
TESTS="$ROOT/build/release/tests/cpuml_tests"

# Packaging checks (exports, tier namespaces) through ctest; the suite itself runs below.
(cd "$ROOT/build/release" && ctest --output-on-failure -E '^cpuml_tests$') || failed=$((failed + 1))

run_suite "native ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))" "$TESTS"
if [ "$(uname -m)" = "x86_64" ]; then
  for pair in core2duo:scalar Nehalem:sse41 Haswell:avx2; do
    cpu=${pair%%:*} tier=${pair##*:}
    run_suite "qemu-x86_64 -cpu $cpu (expects $tier)" env CPUML_EXPECT_ISA="$tier" qemu-x86_64 -cpu "$cpu" "$TESTS"
  done
fi

cmake -S "$ROOT" -B "$ROOT/build/sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCPUML_SANITIZE=ON \
  -DCPUML_BUILD_BENCHMARKS=OFF > /dev/null
cmake --build "$ROOT/build/sanitize" -j "$JOBS"
run_suite "AddressSanitizer + UndefinedBehaviorSanitizer" env ASAN_OPTIONS=detect_leaks=1 "$ROOT/build/sanitize/tests/cpuml_tests"

echo
echo "cpuml tests: $passed passed, $failed failed, $skipped skipped (skipped = tiers this CPU lacks)"
[ "$failed" -eq 0 ]
