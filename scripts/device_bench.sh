#!/usr/bin/env bash
# On the device machine (Intel Xeon with AMX, torch and ONNX Runtime in python3): cpuml and the
# peers in one call, interleaved round by round so the machine's drift spreads over all of them,
# at 1 and all threads. One-thread runs of every library are pinned to the same core (cores of a
# shared machine differ by 2x: an unpinned comparison measures the scheduler). Writes every
# run's output under OUT and prints the medians.
#   bash scripts/device_bench.sh PACK_DIR OUT [ROUNDS] [cpuml_bench filter]
set -uo pipefail
PACK=$(cd "$1" && pwd)
OUT=$2
ROUNDS=${3:-3}
FILTER=${4:-'qgemm/'}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
THREADS=$(nproc)
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PACK/lib"
CORE=${CPUML_BENCH_CORE:-3}
# The pinned core's tile unit runs at full or about half speed, switching within seconds (it is
# shared with whatever else the host runs there): its register-only probe, just before cpuml's
# and the peers' one-thread runs, says which mode each round started in.
amx_probe() {
  taskset -c "$CORE" "$PACK/cpuml_bench" --benchmark_filter='isa_peak/amx_tdpbusd$' --benchmark_min_time=0.05 \
    --benchmark_format=csv 2>/dev/null | awk -F, '/^"isa/ {printf "%.0f ", $NF}'
}
for round in $(seq 1 "$ROUNDS"); do
  amx_probe >> "$OUT/amx_probe.txt"
  CPUML_BENCH_THREADS=1 taskset -c "$CORE" "$PACK/cpuml_bench" --benchmark_filter="$FILTER" --benchmark_min_time=0.2 \
    --benchmark_format=csv 2>/dev/null | grep '^"qgemm' > "$OUT/cpuml_$round.csv"
  amx_probe >> "$OUT/amx_probe.txt"
  PYTHONUNBUFFERED=1 taskset -c "$CORE" python3 "$ROOT/bench/device_peers.py" 1 > "$OUT/peers_$round.txt" 2>&1
  CPUML_BENCH_THREADS="$THREADS" CPUML_BENCH_TIERS=dispatched "$PACK/cpuml_bench" --benchmark_filter="$FILTER" \
    --benchmark_min_time=0.2 --benchmark_format=csv 2>/dev/null | grep '^"qgemm' >> "$OUT/cpuml_$round.csv"
  PYTHONUNBUFFERED=1 python3 "$ROOT/bench/device_peers.py" "$THREADS" >> "$OUT/peers_$round.txt" 2>&1
done
echo "AMX register-only probe on core $CORE (GOPS), before cpuml's and the peers' one-thread runs of each round: $(cat "$OUT/amx_probe.txt")"
python3 - "$OUT" "$ROUNDS" <<'PY'
import csv, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
gops = {}
for r in range(1, rounds + 1):
    for row in csv.reader(open(f"{out}/cpuml_{r}.csv")):
        name = re.sub(r"/real_time$", "", row[0])
        m, k, n = map(int, re.search(r"/(\d+)x(\d+)x(\d+)/", name).groups())
        seconds = float(row[3]) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[row[4]]
        gops.setdefault(name, []).append(2.0 * m * n * k / seconds / 1e9)
    for line in open(f"{out}/peers_{r}.txt"):
        match = re.match(r"(\S+)\s+GOPS=([\d.]+)", line)
        if match:
            gops.setdefault(match.group(1), []).append(float(match.group(2)))
for name in sorted(gops):
    values = gops[name]
    print(f"{name:70s} median {statistics.median(values):8.1f} GOPS  ({len(values)} rounds: "
          + ", ".join(f"{v:.0f}" for v in values) + ")")
# Per round, cpuml u8s8 against the faster of oneDNN and ONNX Runtime run next to it: the median
# of those ratios is the comparison the machine's drift between rounds cannot tilt.
for name in sorted(gops):
    match = re.match(r"qgemm/cpuml/u8s8/(\d+x\d+x\d+/threads:\d+)$", name)
    peers = [gops.get(f"{peer}/u8s8/{match.group(1)}") for peer in ("torch_onednn", "onnxruntime")] if match else []
    peers = [p for p in peers if p and len(p) == len(gops[name])]
    if peers:
        ratios = [c / max(p[r] for p in peers) for r, c in enumerate(gops[name])]
        print(f"cpuml / faster of oneDNN, ORT, {match.group(1):40s} median {statistics.median(ratios):.2f}  (rounds: "
              + ", ".join(f"{x:.2f}" for x in ratios) + ")")
PY
