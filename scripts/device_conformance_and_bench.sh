#!/usr/bin/env bash
# One device call's work (the Emerald Rapids machine; see README): the conformance suite with
# the AMX tier picked (every lower tier runs in the same process), the allocation tests and the
# fuzz corpus; then, pinned to one core, the instruction and read-bandwidth probes, the fills
# next to memset and DYNAMIC_QUANTIZE_LINEAR next to the read probe of its 64 MiB; then cpuml
# and the Python peers interleaved (scripts/device_bench.sh).
#   bash scripts/device_conformance_and_bench.sh PACK_DIR OUT [ROUNDS] [bench filter]
set -uo pipefail
PACK=$(cd "$1" && pwd)
OUT=$2
ROUNDS=${3:-3}
FILTER=${4:-'qgemm/(cpuml|qgemm_.*(avx|amx))'}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PACK/lib"
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | sed 's/\(Flags:\).*\(avx_vnni\).*\(amx_int8\).*/\1 ... \2 ... \3 .../'
# The counting of scripts/test.sh: exit status, empty runs and sanitizer reports fail a run.
passed=0 failed=0 skipped=0
source "$ROOT/scripts/test_counting.sh"
# CPUML_MAX_ISA=amx runs every x86 tier's tests in one process (each test caps the tier in turn);
# the capped runs check that dispatch picks each lower tier.
run_suite "conformance (CPUML_MAX_ISA=amx, expects amx)" env CPUML_MAX_ISA=amx CPUML_EXPECT_ISA=amx "$PACK/cpuml_tests"
for tier in avx512vnni avxvnni avx2; do
  run_suite "conformance (CPUML_MAX_ISA=$tier, expects $tier)" env CPUML_MAX_ISA=$tier CPUML_EXPECT_ISA=$tier \
    "$PACK/cpuml_tests" --gtest_filter="*/$tier:*Api*"
done
for binary in cpuml_allocation_count_test cpuml_allocation_failure_test; do
  run_suite "$binary" "$PACK/$binary"
done
run_check "fuzz corpus replay" "$PACK/cpuml_fuzz_replay" "$PACK/corpus"
echo "conformance: $passed passed, $failed failed, $skipped skipped"
echo "=== probes and fills, 1 thread on core ${CPUML_BENCH_CORE:-3}"
taskset -c "${CPUML_BENCH_CORE:-3}" "$PACK/cpuml_bench" --shapes=1x4096x4096,1x4096x11008 --threads=1 \
  --benchmark_filter='^(isa_peak|read_bandwidth|dql/|fill/(memset|cpuml_(constant|sequence)_float(32|16))/(256KiB|64MiB))' \
  --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null | \
  grep median | sed 's/ \+/ /g' | cut -d' ' -f1,2,3,6-
"$PACK/cpuml_bench" --shapes=1x4096x4096,1x4096x11008 --threads="$(nproc)" --benchmark_filter='^(read_bandwidth|dql/)' \
  --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null | \
  grep median | sed 's/ \+/ /g' | cut -d' ' -f1,2,3,6-
echo "=== cpuml and peers, $ROUNDS interleaved rounds"
bash "$ROOT/scripts/device_bench.sh" "$PACK" "$OUT/bench" "$ROUNDS" "$FILTER"
