#!/usr/bin/env bash
# The main job: builds cpuml and runs the benchmark suite on this machine: the active tier,
# fill throughput against memset/std::fill, and quantized matmul against oneDNN and XNNPACK
# (GOPS, exact/inexact) in the same process. Extra arguments go to Google Benchmark, e.g.
#   bash scripts/bench.sh --benchmark_filter=fill
# Shapes, types and thread counts of the matmul runs (defaults: the peers' shapes, all four type
# combinations, 1 and 2 threads):
#   bash scripts/bench.sh --shapes=1x4096x11008,128x768x3072 --types=u8s8,s8s8 --threads=1,2
# Writes build/bench/results.json, prints the tables, and draws build/bench/chart.svg.
# CPUML_MAX_ISA=avx2 benchmarks a lower tier. Repetitions are interleaved at random so that the
# machine's drift spreads over every library instead of favouring whichever ran first.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BASE_PACKAGES[@]}" libdnnl-dev libxnnpack-dev python3 python3-matplotlib

cmake -S "$ROOT" -B "$ROOT/build/bench" -DCMAKE_BUILD_TYPE=Release -DCPUML_BUILD_TESTS=OFF -DCPUML_BENCH_PEERS=ON > /dev/null
cmake --build "$ROOT/build/bench" -j "$JOBS" --target cpuml_bench
RESULTS="$ROOT/build/bench/results.json"
"$ROOT/build/bench/bench/cpuml_bench" --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.2 --benchmark_out="$RESULTS" --benchmark_out_format=json "$@"
echo
python3 "$ROOT/scripts/bench_table.py" "$RESULTS"
# Debian's python3 (python3-matplotlib), whatever python3 comes first on PATH.
/usr/bin/python3 "$ROOT/scripts/bench_chart.py" "$RESULTS" "$ROOT/build/bench/chart.svg" \
  --cpu "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
