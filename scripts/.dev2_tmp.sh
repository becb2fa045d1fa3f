#!/usr/bin/env bash
# temporary: device call 2 (the dynamic int8 path and the 4-bit path against the peers, current tree)
set -uo pipefail
ROOT=$PWD
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export CPUML_BENCH_SHAPES=1x4096x4096,1x4096x11008,1x11008x4096,16x4096x4096,128x768x3072,1024x1024x1024,2048x2048x2048
export CPUML_BENCH_TYPES=u8s8 CPUML_BENCH_MODELS= CPUML_ORT_FAMILIES=dqmatmul,i2f CPUML_DEVICE_PEERS=bench/device_dynamic_peers.py
timeout 560 bash scripts/device_bench.sh .device "$OUT/dyn" "${ROUNDS:-3}" '^(dqmatmul|i2f|qgemm)/cpuml/' 2>&1 | tee "$OUT/dyn.txt"
tar czf "$OUT/dyn.tgz" -C "$OUT" dyn && rm -rf "$OUT/dyn"
