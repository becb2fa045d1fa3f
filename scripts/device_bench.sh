#!/usr/bin/env bash
# On the device machine (Intel Xeon with AMX, torch and ONNX Runtime in python3): cpuml and the
# peers in one call, interleaved round by round so the machine's drift spreads over all of them,
# at 1 and all threads (CPUML_DEVICE_THREAD_COUNTS, below). One-thread runs of every library are
# pinned to the same core (cores of a shared machine differ by 2x: an unpinned comparison measures
# the scheduler). Writes every run's output under OUT and prints the medians.
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
# CPUML_DEVICE_THREAD_COUNTS narrows the thread counts (default: 1 and all), for a call that must
# fit the device's 10-minute limit.
THREAD_COUNTS=${CPUML_DEVICE_THREAD_COUNTS:-"1 $THREADS"}
touch "$OUT/amx_probe.txt"
for round in $(seq 1 "$ROUNDS"); do
  : > "$OUT/cpuml_$round.csv"
  : > "$OUT/peers_$round.txt"
  for threads in $THREAD_COUNTS; do
    pin=() bench_env=(CPUML_BENCH_THREADS="$threads")
    if [ "$threads" = 1 ]; then
      pin=(taskset -c "$CORE")
      amx_probe >> "$OUT/amx_probe.txt"
    else
      bench_env+=(CPUML_BENCH_TIERS=dispatched)
    fi
    env "${bench_env[@]}" "${pin[@]}" "$PACK/cpuml_bench" --benchmark_filter="$FILTER" --benchmark_min_time=0.2 \
      --benchmark_format=csv 2>/dev/null | grep -E '^"(qgemm|dqmatmul|i2f|dql|model)' >> "$OUT/cpuml_$round.csv"
    [ "$threads" = 1 ] && amx_probe >> "$OUT/amx_probe.txt"
    PYTHONUNBUFFERED=1 "${pin[@]}" python3 "$PEERS" "$threads" >> "$OUT/peers_$round.txt" 2>&1
  done
done
echo "AMX register-only probe on core $CORE (GOPS), before cpuml's and the peers' one-thread runs of each round: $(cat "$OUT/amx_probe.txt")"
python3 "$ROOT/scripts/interleaved_summary.py" "$OUT" "$ROUNDS"
