#!/usr/bin/env bash
# Two builds of cpuml_bench against each other on the device, round by round: in each round the
# base build and then the new one run the same benchmarks, at one thread pinned to one core and at
# all threads, so the machine's drift (the tile unit's half-speed mode, neighbours) falls on both.
# Prints each benchmark's medians and the median of its per-round speed ratios, new / base.
#   bash scripts/device_ab.sh PACK_DIR BASE_BENCH OUT ROUNDS FILTER
# PACK_DIR is scripts/device_pack.sh's folder (its cpuml_bench is the new build); BASE_BENCH is a
# cpuml_bench built from the base tree (its shared libraries are the pack's); CPUML_AB_NEW names
# another build to stand for the new one (a variant of the bench itself). One FILTER per call:
# cpuml_bench's CSV output cannot mix rows with different counters (GOPS and GB/s).
set -uo pipefail
PACK=$(cd "$1" && pwd)
BASE=$2
OUT=$3
ROUNDS=$4
FILTER=$5
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CORE=${CPUML_BENCH_CORE:-3}
export LD_LIBRARY_PATH="$PACK/lib"
mkdir -p "$OUT"
run() {  # build label, threads, round
  local binary=$1 label=$2 threads=$3 round=$4 pin=()
  [ "$threads" = 1 ] && pin=(taskset -c "$CORE")
  CPUML_BENCH_THREADS=$threads "${pin[@]}" "$binary" --benchmark_filter="$FILTER" --benchmark_min_time=0.2 \
    --benchmark_format=csv 2>/dev/null | grep -E '^"[a-z]' >> "$OUT/${label}_$round.csv"
}
for round in $(seq 1 "$ROUNDS"); do
  for threads in 1 "$(nproc)"; do
    run "$BASE" base "$threads" "$round"
    run "${CPUML_AB_NEW:-$PACK/cpuml_bench}" new "$threads" "$round"
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
def times(label, r):
    return {row[0].replace("/real_time", ""): float(row[3]) * scale[row[4]] for row in csv.reader(open(f"{out}/{label}_{r}.csv"))}
base = [times("base", r) for r in range(1, rounds + 1)]
new = [times("new", r) for r in range(1, rounds + 1)]
print(f"{'benchmark':64s} {'base us':>9s} {'new us':>9s}  new/base speed, median of {rounds} rounds (each round)")
for name in base[0]:
    pairs = [(b[name], n[name]) for b, n in zip(base, new) if name in b and name in n]
    if not pairs:
        continue
    ratios = [b / n for b, n in pairs]
    print(f"{name:64s} {statistics.median(b for b, _ in pairs) * 1e6:9.1f} {statistics.median(n for _, n in pairs) * 1e6:9.1f}"
          f"  {statistics.median(ratios):.3f} (" + ", ".join(f"{x:.2f}" for x in ratios) + ")")
PY
