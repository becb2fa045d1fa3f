#!/usr/bin/env bash
# cpuml's dynamic int8 path, its 4-bit path and static QLinearMatMul against ONNX Runtime on this machine, ONNX
# Runtime reached through onnxruntime-node (the npm package ships ONNX Runtime's CPU library), for
# machines whose Python has no onnxruntime. Rounds alternate cpuml_bench and
# bench/ort_node_peers.mjs at 1 thread (both pinned to the same core) and at every core, so the
# machine's drift spreads over both; prints per-round ratios and their medians
# (scripts/interleaved_summary.py).
#   bash scripts/bench_ort_node.sh [ROUNDS] [OUT]
# CPUML_BENCH_SHAPES narrows the shapes (default: the standard five and the decode shapes).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BASE_PACKAGES[@]}" python3
command -v npm > /dev/null || ensure_packages nodejs npm
ROUNDS=${1:-3}
OUT=${2:-$ROOT/build/bench/ort_node}
export CPUML_BENCH_SHAPES=${CPUML_BENCH_SHAPES:-1x4096x4096,1x4096x11008,1x11008x4096,16x4096x4096,128x768x3072,1024x1024x1024,2048x2048x2048}
export CPUML_BENCH_TYPES=${CPUML_BENCH_TYPES:-u8s8,s8s8,s8u4}
# The decoder-layer presets (cpuml_bench --models, the node script's nbits_model family).
export CPUML_BENCH_MODELS=${CPUML_BENCH_MODELS-llama3_8b}

MODULES="$ROOT/build/ort-node"
if [ ! -d "$MODULES/node_modules/onnxruntime-node" ]; then
  mkdir -p "$MODULES"
  # The package's install script only fetches the CUDA provider (from outside the npm registry);
  # the CPU library is in the package itself.
  (cd "$MODULES" && npm install --no-save --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 > /dev/null)
fi
BENCH=$(cpuml_bench_binary -DCPUML_BENCH_PEERS=ON)
FILTER='^((dqmatmul|qgemm|model)/cpuml/|i2f/cpuml/(u8s8|s8s8)/)'  # the 4-bit products alone (i2f/cpuml/s8u4) have no peer here
round_step() {  # round, threads, pin...
  local round=$1 threads=$2
  shift 2
  CPUML_BENCH_THREADS=$threads CPUML_BENCH_TIERS=dispatched "$@" "$BENCH" --benchmark_filter="$FILTER" \
    --benchmark_min_time=0.2 --benchmark_format=csv 2>/dev/null | grep -E '^"(qgemm|dqmatmul|i2f|model)' >> "$OUT/cpuml_$round.csv"
  ORT_NODE_MODULES="$MODULES/node_modules" "$@" node "$ROOT/bench/ort_node_peers.mjs" "$threads" >> "$OUT/peers_$round.txt"
}
interleaved_rounds "$OUT" "$ROUNDS" round_step
echo "cpuml $(git -C "$ROOT" rev-parse --short HEAD) against onnxruntime-node 1.30.0 on $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs; $ROUNDS rounds"
grep -h exactness "$OUT/peers_1.txt" | sort -u
python3 "$ROOT/scripts/interleaved_summary.py" "$OUT" "$ROUNDS"
