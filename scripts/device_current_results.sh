#!/usr/bin/env bash
# The device's part of docs/benchmarks.md's current results (the Emerald Rapids machine; see
# README): each part fits one device call of at most 10 minutes.
#   bash scripts/device_current_results.sh PACK_DIR OUT quantized   conformance with the amx tier,
#        QuantizedLinear at one thread (bench/device_interleaved.py, 13 rounds, core 3) and at all
#        threads (scripts/device_bench.sh, 3 rounds) against torch's oneDNN and FBGEMM and ONNX Runtime
#   bash scripts/device_current_results.sh PACK_DIR OUT decode      one thread on core 3 and all
#        threads: decode and the Llama-3-8B layer against read probes of their own bytes (3
#        repetitions interleaved in one process), then the dynamic int8 path and 4-bit B against
#        ONNX Runtime and torch, rounds of separate processes at one thread
#   bash scripts/device_current_results.sh PACK_DIR OUT all-threads the same rounds at all threads only
#   bash scripts/device_current_results.sh PACK_DIR OUT quantized-all-threads   QuantizedLinear's
#        rounds at all threads only (4 rounds)
set -uo pipefail
PACK=$(cd "$1" && pwd)
OUT=$2
PART=$3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LD_LIBRARY_PATH="$PACK/lib"
THREADS=$(nproc)
CORE=${CPUML_BENCH_CORE:-3}
mkdir -p "$OUT"
QUANTIZED_SHAPES=1x4096x4096,16x4096x4096,128x768x3072,1024x1024x1024,2048x2048x2048,512x4096x4096
export CPUML_BENCH_MODELS=llama3_8b CPUML_ORT_FAMILIES=dqmatmul,nbits,nbits_model CPUML_MODEL_M=1,128
DYNAMIC_SHAPES=1x4096x14336,1x14336x4096,16x4096x4096,128x4096x4096,512x4096x4096
DYNAMIC_FILTER='^(dqmatmul/cpuml/(u8s8/[0-9x]+/|s8u4/.*block:(32|128)/)|model/cpuml/llama3_8b/)'
# Rounds at all threads only: cpuml_bench, then the peers' script, each round in separate processes.
#   all_thread_rounds DIR ROUNDS FILTER PEERS_SCRIPT TYPES SHAPES BENCH_TIMEOUT PEERS_TIMEOUT SUMMARY_LINES
all_thread_rounds() {
  local dir=$1 rounds=$2 filter=$3 peers=$4 types=$5 shapes=$6 round
  mkdir -p "$dir"
  for round in $(seq 1 "$rounds"); do
    CPUML_BENCH_TYPES=$types CPUML_BENCH_SHAPES=$shapes CPUML_BENCH_THREADS=$THREADS CPUML_BENCH_TIERS=dispatched \
      timeout "$7" "$PACK/cpuml_bench" --benchmark_filter="$filter" --benchmark_min_time=0.2 --benchmark_format=csv \
      2>/dev/null | grep -E '^"(qgemm|dqmatmul|model)' > "$dir/cpuml_$round.csv"
    CPUML_BENCH_SHAPES=$shapes PYTHONUNBUFFERED=1 timeout "$8" python3 "$ROOT/$peers" "$THREADS" > "$dir/peers_$round.txt" 2>&1
  done
  python3 "$ROOT/scripts/interleaved_summary.py" "$dir" "$rounds" 2>&1 | tail -"$9"
}
lscpu | grep -E 'Model name|^CPU\(s\)|L3'
date -u
case "$PART" in
  quantized)
    echo "=== conformance (CPUML_MAX_ISA=amx, every x86 tier in one process)"
    CPUML_MAX_ISA=amx CPUML_EXPECT_ISA=amx timeout 150 "$PACK/cpuml_tests" --gtest_brief=1 2>&1 | tail -4
    echo "=== QuantizedLinear, one thread, interleaved in one process"
    CPUML_BENCH_SHAPES=$QUANTIZED_SHAPES CPUML_BENCH_BINARY="$PACK/cpuml_bench" PYTHONUNBUFFERED=1 timeout 200 \
      taskset -c "$CORE" python3 "$ROOT/bench/device_interleaved.py" "$PACK/lib/libcpuml.so" 13 2>&1 | tee "$OUT/quantized_1.txt"
    echo "=== QuantizedLinear, rounds of separate processes"
    CPUML_PEER_TYPES=u8s8 CPUML_BENCH_TYPES=u8s8 CPUML_BENCH_SHAPES=$QUANTIZED_SHAPES \
      timeout 230 bash "$ROOT/scripts/device_bench.sh" "$PACK" "$OUT/quantized" 3 '^qgemm/cpuml/u8s8/' 2>&1 | tail -40
    ;;
  decode)
    echo "=== decode and the layer against read probes of their bytes"
    for threads in 1 "$THREADS"; do
      pin=()
      [ "$threads" = 1 ] && pin=(taskset -c "$CORE")
      CPUML_BENCH_TYPES=u8s8,s8u4 CPUML_BENCH_SHAPES=1x4096x14336,1x14336x4096 CPUML_BENCH_THREADS=$threads \
        timeout 80 "${pin[@]}" "$PACK/cpuml_bench" \
        --benchmark_filter='^(read_bandwidth/|model/cpuml/llama3_8b/.*/M:1/|dqmatmul/cpuml/(u8s8|s8u4)/1x)' \
        --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
        --benchmark_report_aggregates_only=true 2>/dev/null | grep median | sed 's/ \+/ /g' | cut -d' ' -f1,2,6- |
        tee -a "$OUT/decode_probes.txt"
    done
    # One thread only: the all-threads part has the rounds at all threads, and both counts in one
    # call ran past 400 s (2026-12-04: the second round's layer presets were cut).
    echo "=== the dynamic int8 path and 4-bit B against ONNX Runtime and torch, one thread"
    CPUML_DEVICE_THREAD_COUNTS=1 CPUML_BENCH_TYPES=u8s8,s8u4 CPUML_BENCH_SHAPES=$DYNAMIC_SHAPES \
      CPUML_DEVICE_PEERS=bench/device_dynamic_peers.py \
      timeout 400 bash "$ROOT/scripts/device_bench.sh" "$PACK" "$OUT/dynamic" 2 "$DYNAMIC_FILTER" 2>&1 | tail -60
    ;;
  all-threads)
    all_thread_rounds "$OUT/dynamic_all_threads" 2 "$DYNAMIC_FILTER" bench/device_dynamic_peers.py u8s8,s8u4 \
      "$DYNAMIC_SHAPES" 100 140 45
    ;;
  quantized-all-threads)
    CPUML_PEER_TYPES=u8s8 all_thread_rounds "$OUT/quantized_all_threads" 4 '^qgemm/cpuml/u8s8/' bench/device_peers.py u8s8 \
      "$QUANTIZED_SHAPES" 50 50 30
    ;;
  *)
    echo "usage: $0 PACK_DIR OUT quantized|decode|all-threads|quantized-all-threads" >&2
    exit 2
    ;;
esac
date -u
