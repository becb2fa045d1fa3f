#!/usr/bin/env bash
# temporary: device call 1 (conformance, 4-bit decode A/B against the base build)
set -uo pipefail
ROOT=$PWD
PACK=$ROOT/.device
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PACK/lib
lscpu | grep -E "Model name|^CPU\(s\)"
if [ -z "${SKIP_CONF:-}" ]; then
passed=0 failed=0 skipped=0
source "$ROOT/scripts/test_counting.sh"
{
run_suite "conformance (amx)" env CPUML_MAX_ISA=amx CPUML_EXPECT_ISA=amx "$PACK/cpuml_tests"
for tier in avx512vnni avxvnni avx2; do
  run_suite "conformance ($tier)" env CPUML_MAX_ISA=$tier CPUML_EXPECT_ISA=$tier "$PACK/cpuml_tests" --gtest_filter="*/$tier:*Api*"
done
for binary in cpuml_allocation_count_test cpuml_allocation_failure_test; do run_suite "$binary" "$PACK/$binary"; done
run_check "fuzz corpus replay" "$PACK/cpuml_fuzz_replay" "$PACK/corpus"
echo "conformance: $passed passed, $failed failed, $skipped skipped"
} > "$OUT/conformance.txt" 2>&1
grep -E '^===|PASSED|FAILED|SKIPPED \]|conformance:' "$OUT/conformance.txt" | head -40
fi
export CPUML_BENCH_SHAPES=1x4096x11008,1x11008x4096,1x4096x14336 CPUML_BENCH_MODELS=
CPUML_BENCH_TYPES=s8u4 timeout 300 bash scripts/device_ab.sh "$PACK" "$ROOT/.exp/base_cpuml_bench" "$OUT/ab" "${ROUNDS:-4}" '^dqmatmul/cpuml/s8u4' 2>&1 | tee "$OUT/ab.txt"
# FLOAT16 scales against FLOAT32 ones, the new build alone, alternating
mkdir -p "$OUT/ab/half"
for round in $(seq 1 "${ROUNDS:-4}"); do
  for threads in 1 16; do
    pin=(); [ "$threads" = 1 ] && pin=(taskset -c 3)
    for types in s8u4 s8u4h; do
      CPUML_BENCH_TYPES=$types CPUML_BENCH_THREADS=$threads "${pin[@]}" "$PACK/cpuml_bench" --benchmark_filter='^dqmatmul/cpuml/s8u4' \
        --benchmark_min_time=0.2 --benchmark_format=csv 2>/dev/null | grep -E '^"[a-z]' >> "$OUT/ab/half/${types}_$round.csv"
    done
  done
done
python3 - "$OUT/ab/half" "${ROUNDS:-4}" <<'PY'
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
def times(label, r):
    return {row[0].replace("/real_time", "").replace("s8u4h/", "s8u4/"): float(row[3]) * scale[row[4]] for row in csv.reader(open(f"{out}/{label}_{r}.csv"))}
a = [times("s8u4", r) for r in range(1, rounds + 1)]
b = [times("s8u4h", r) for r in range(1, rounds + 1)]
print("FLOAT16 scales (s8u4h) against FLOAT32 (s8u4), speed ratio, median of rounds (each round)")
for name in a[0]:
    pairs = [(x[name], y[name]) for x, y in zip(a, b) if name in x and name in y]
    if pairs:
        r = [x / y for x, y in pairs]
        print(f"{name:64s} {statistics.median(x for x, _ in pairs)*1e6:9.1f} {statistics.median(y for _, y in pairs)*1e6:9.1f}  {statistics.median(r):.3f} (" + ", ".join(f"{v:.2f}" for v in r) + ")")
PY
tar czf "$OUT/ab.tgz" -C "$OUT" ab && rm -rf "$OUT/ab"
