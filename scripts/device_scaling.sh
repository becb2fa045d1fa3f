#!/usr/bin/env bash
# Sixteen-thread scaling on the device (or any machine): for each tier, cpuml at one thread and at
# every core, and the tier's instruction probe run on one core and on every core at once (the
# machine's own multi-core limit: all-core clocks, shared caches), alternated for ROUNDS rounds.
# Prints "round tier benchmark GOPS" lines; each scaling is 16t / (threads x 1t), per round.
#   bash scripts/device_scaling.sh PACK_DIR [ROUNDS] [TIERS] [SHAPES]
set -uo pipefail
PACK=$(cd "$1" && pwd)
ROUNDS=${2:-3}
TIERS=${3:-amx avx512vnni}
SHAPES=${4:-128x768x3072,1024x1024x1024,2048x2048x2048}
export LD_LIBRARY_PATH="$PACK/lib"
threads=$(nproc)
probe_of() { case $1 in amx) echo amx_tdpbusd ;; avx512vnni) echo avx512vnni_vpdpbusd ;; avxvnni) echo avxvnni_vpdpbusd ;;
             *) echo avx2_vpmaddwd_vpaddd ;; esac; }
for r in $(seq 1 "$ROUNDS"); do
  for tier in $TIERS; do
    CPUML_MAX_ISA=$tier "$PACK/cpuml_bench" --shapes="$SHAPES" --types=u8s8 --threads=1,"$threads" \
      --benchmark_filter="^(qgemm/cpuml/|isa_peak/$(probe_of "$tier")(/|$))" --benchmark_min_time=0.2 \
      --benchmark_format=csv 2>/dev/null | awk -F, -v r="$r" -v t="$tier" '/^"(qgemm|isa_peak)/ {gsub(/"/, "", $1); print r, t, $1, $NF}'
  done
done
