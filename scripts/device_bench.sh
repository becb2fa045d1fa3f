#!/usr/bin/env bash
# On the device machine (Intel Xeon with AMX, torch and ONNX Runtime in python3): cpuml and the
# peers in one call, interleaved round by round so the machine's drift spreads over all of them,
# at 1 and all threads. One-thread runs of every library are pinned to the same core (cores of a
# shared machine differ by 2x: an unpinned comparison measures the scheduler). Writes every
# run's output under OUT and prints the medians.
#   bash scripts/device_bench.sh PACK_DIR OUT [ROUNDS] [cpuml_bench filter]
# CPUML_DEVICE_PEERS names the peers' script (default bench/device_peers.py; the dynamic int8
# path's is bench/device_dynamic_peers.py with the filter '^(dqmatmul|i2f)/cpuml/').
set -uo pipefail
PACK=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$2
ROUNDS=${3:-3}
FILTER=${4:-'qgemm/'}
PEERS="$ROOT/${CPUML_DEVICE_PEERS:-bench/device_peers.py}"
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
    --benchmark_format=csv 2>/dev/null | grep -E '^"(qgemm|dqmatmul|i2f|dql)' > "$OUT/cpuml_$round.csv"
  amx_probe >> "$OUT/amx_probe.txt"
  PYTHONUNBUFFERED=1 taskset -c "$CORE" python3 "$PEERS" 1 > "$OUT/peers_$round.txt" 2>&1
  CPUML_BENCH_THREADS="$THREADS" CPUML_BENCH_TIERS=dispatched "$PACK/cpuml_bench" --benchmark_filter="$FILTER" \
    --benchmark_min_time=0.2 --benchmark_format=csv 2>/dev/null | grep -E '^"(qgemm|dqmatmul|i2f|dql)' >> "$OUT/cpuml_$round.csv"
  PYTHONUNBUFFERED=1 python3 "$PEERS" "$THREADS" >> "$OUT/peers_$round.txt" 2>&1
done
echo "AMX register-only probe on core $CORE (GOPS), before cpuml's and the peers' one-thread runs of each round: $(cat "$OUT/amx_probe.txt")"
python3 - "$OUT" "$ROUNDS" <<'PY'
import csv, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
gops = {}
for r in range(1, rounds + 1):
    for row in csv.reader(open(f"{out}/cpuml_{r}.csv")):
        name = re.sub(r"/real_time$", "", row[0])
        shape = re.search(r"/(\d+)x(\d+)x(\d+)/", name)
        if not shape:
            continue
        m, k, n = map(int, shape.groups())
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
PEERS = {"qgemm": ("torch_onednn", "onnxruntime"),
         "dqmatmul": ("onnxruntime_dqmatmul", "torch_dynamic_fbgemm", "torch_dynamic_onednn", "torch_dynamic_x86"),
         "i2f": ("onnxruntime_i2f",)}
for name in sorted(gops):
    match = re.match(r"(qgemm|dqmatmul|i2f)/cpuml/u8s8/(\d+x\d+x\d+/threads:\d+)$", name)
    peers = [gops.get(f"{peer}/u8s8/{match.group(2)}") for peer in PEERS[match.group(1)]] if match else []
    peers = [p for p in peers if p and len(p) == len(gops[name])]
    if peers:
        ratios = [c / max(p[r] for p in peers) for r, c in enumerate(gops[name])]
        print(f"{match.group(1)} cpuml / fastest of {', '.join(PEERS[match.group(1)])}, {match.group(2):28s} "
              f"median {statistics.median(ratios):.2f}  (rounds: " + ", ".join(f"{x:.2f}" for x in ratios) + ")")
PY
