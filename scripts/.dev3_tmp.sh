#!/usr/bin/env bash
# temporary: device call 3 (4-bit B against ONNX Runtime's MatMulNBits, current tree)
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export CPUML_BENCH_SHAPES=1x4096x11008,1x11008x4096,1x4096x14336,128x4096x4096
export CPUML_BENCH_TYPES=u8s8,s8u4 CPUML_BENCH_MODELS= CPUML_ORT_FAMILIES=nbits CPUML_DEVICE_PEERS=bench/device_dynamic_peers.py
timeout 570 bash scripts/device_bench.sh .device "$OUT/nb" "${ROUNDS:-3}" '^dqmatmul/cpuml/' 2>&1 | tee "$OUT/nb.txt"
tar czf "$OUT/nb.tgz" -C "$OUT" nb && rm -rf "$OUT/nb"
