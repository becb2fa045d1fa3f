#!/usr/bin/env bash
# Several builds of cpuml_bench against the first, round by round, on the device: each round runs
# the register-only `amx_tdpbusd` probe, then every build once at one thread pinned to one core
# and once at all threads, in an order that rotates by round, so the machine's drift (the tile
# unit's half-speed mode, neighbours) falls on all of them. Prints, per benchmark, each build's
# median time and the median of its per-round speed ratios to the first build, over all rounds
# and over the rounds whose probe ran at full speed (above 3500 GOPS); where the rows hold both
# cpuml's int8 and 4-bit `dqmatmul` pairs, also each build's int8 pair time over its 4-bit pair's
# within the same process, round by round.
#   bash scripts/device_variants.sh PACK_DIR OUT ROUNDS SECONDS FILTER BENCH...
# PACK_DIR is scripts/device_pack.sh's folder (its lib/ serves every build); each BENCH is a
# cpuml_bench binary, its own folder searched first for shared libraries. No round starts after
# SECONDS. One FILTER: cpuml_bench's CSV output cannot mix rows with different counters.
set -uo pipefail
PACK=$(cd "$1" && pwd)
OUT=$2
ROUNDS=$3
SECONDS_LEFT=$4
FILTER=$5
shift 5
BUILDS=("$@")
CORE=${CPUML_BENCH_CORE:-3}
mkdir -p "$OUT"
start=$(date +%s)
run() {  # build index, threads, round
  local bench=${BUILDS[$1]} threads=$2 round=$3 pin=()
  [ "$threads" = 1 ] && pin=(taskset -c "$CORE")
  LD_LIBRARY_PATH="$(dirname "$bench"):$PACK/lib" CPUML_BENCH_THREADS=$threads "${pin[@]}" "$bench" \
    --benchmark_filter="$FILTER" --benchmark_min_time="${CPUML_BENCH_MIN_TIME:-0.1}" --benchmark_format=csv 2>/dev/null |
    grep -E '^"[a-z]' >> "$OUT/b$1_$round.csv"
}
done_rounds=0
for round in $(seq 1 "$ROUNDS"); do
  [ $(( $(date +%s) - start )) -ge "$SECONDS_LEFT" ] && break
  LD_LIBRARY_PATH="$(dirname "${BUILDS[0]}"):$PACK/lib" taskset -c "$CORE" "${BUILDS[0]}" \
    --benchmark_filter='^isa_peak/amx_tdpbusd$' --benchmark_min_time=0.05 --benchmark_format=csv 2>/dev/null |
    grep -E '^"isa_peak' > "$OUT/probe_$round.csv"
  for threads in 1 "$(nproc)"; do
    for i in $(seq 0 $(( ${#BUILDS[@]} - 1 ))); do
      run $(( (i + round) % ${#BUILDS[@]} )) "$threads" "$round"
    done
  done
  done_rounds=$round
done
python3 - "$OUT" "$done_rounds" "${BUILDS[@]}" <<'PY'
import csv, statistics, sys
out, rounds, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
def times(b, r):
    try:
        return {row[0].replace("/real_time", ""): float(row[2]) * scale[row[4]] for row in csv.reader(open(f"{out}/b{b}_{r}.csv"))}
    except FileNotFoundError:
        return {}
def probe(r):
    try:
        return float(next(csv.reader(open(f"{out}/probe_{r}.csv")))[-1])  # GOPS
    except (FileNotFoundError, StopIteration):
        return None
rs = range(1, rounds + 1)
t = [[times(b, r) for r in rs] for b in range(len(builds))]
full = [i for i, r in enumerate(rs) if (probe(r) or 0) > 3500]
print(f"{rounds} rounds, {len(full)} at full speed; builds: " + ", ".join(f"{i}={b}" for i, b in enumerate(builds)))
for name in t[0][0] if rounds else []:
    line = f"{name:62s} {statistics.median(x[name] for x in t[0] if name in x) * 1e6:9.1f} us"
    for b in range(1, len(builds)):
        ratios = [t[0][i][name] / t[b][i][name] for i in range(rounds) if name in t[0][i] and name in t[b][i]]
        fr = [t[0][i][name] / t[b][i][name] for i in full if name in t[0][i] and name in t[b][i]]
        if ratios:
            line += f" | {b}: {statistics.median(ratios):.3f}" + (f" full {statistics.median(fr):.3f}" if fr else "")
    print(line)
for b in range(len(builds)):
    pairs = {}
    for x in t[b]:
        for name, time in x.items():
            parts = name.split("/")
            int8 = f"dqmatmul/cpuml/u8s8/{parts[3]}/{parts[-1]}" if len(parts) > 4 else None
            if parts[:3] == ["dqmatmul", "cpuml", "s8u4"] and int8 in x:
                pairs.setdefault(f"{parts[3]} {parts[4]} {parts[-1]}", []).append(x[int8] / time)
    for key, ratios in sorted(pairs.items()):
        print(f"int8 pair / 4-bit pair, build {b}, {key:40s} {statistics.median(ratios):.3f} ("
              + ", ".join(f"{r:.2f}" for r in ratios) + ")")
PY
