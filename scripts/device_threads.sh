#!/usr/bin/env bash
# cpuml and the Python peers at many threads, alternating by round (one process each: idle
# workers of one library would otherwise spin while the next runs). Prints "round library shape
# GOPS" lines; compare libraries by the median of their per-round ratios.
#   bash scripts/device_threads.sh PACK_DIR [ROUNDS] [SHAPES] [THREADS] [TYPES]
set -uo pipefail
PACK=$(cd "$1" && pwd)
ROUNDS=${2:-5}
SHAPES=${3:-1x4096x4096,1x4096x11008,16x4096x4096,32x4096x4096,128x768x3072,1024x1024x1024,2048x2048x2048}
THREADS=${4:-$(nproc)}
TYPES=${5:-u8s8}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LD_LIBRARY_PATH="$PACK/lib"
for r in $(seq 1 "$ROUNDS"); do
  "$PACK/cpuml_bench" --shapes="$SHAPES" --types="$TYPES" --threads="$THREADS" --benchmark_filter='^qgemm/cpuml/' \
    --benchmark_min_time=0.1 --benchmark_format=csv 2>/dev/null |
    awk -F, -v r="$r" '/^"qgemm/ {split($1, p, "/"); print r, "cpuml_" p[3], p[4], $NF}'
  CPUML_BENCH_SHAPES="$SHAPES" CPUML_PEER_TYPES=u8s8 python3 "$ROOT/bench/device_peers.py" "$THREADS" 2>/dev/null |
    awk -v r="$r" '/GOPS=/ {split($1, p, "/"); sub("GOPS=", "", $2); print r, p[1], p[3], $2}'
done
