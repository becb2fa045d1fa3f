#!/usr/bin/env bash
# Two builds of cpuml_bench against each other on the device, round by round: in each round the
# base build and the new one run the same benchmarks, at one thread pinned to one core and at all
# threads, so the machine's drift (the tile unit's half-speed mode, neighbours) falls on both.
# Prints each benchmark's median time and the median of its per-round speed ratios, new / base.
#   bash scripts/device_ab.sh PACK_DIR BASE_BENCH OUT ROUNDS FILTER
# PACK_DIR is scripts/device_pack.sh's folder (its cpuml_bench is the new build); BASE_BENCH is a
# cpuml_bench built from the base tree (its shared libraries are the pack's); CPUML_AB_NEW names
# another build to stand for the new one (a variant of the bench itself). One FILTER per call:
# cpuml_bench's CSV output cannot mix rows with different counters (GOPS and GB/s). The rounds are
# scripts/device_variants.sh's with these two builds.
set -uo pipefail
PACK=$(cd "$1" && pwd)
export CPUML_BENCH_MIN_TIME=${CPUML_BENCH_MIN_TIME:-0.2}  # as before it ran through device_variants.sh
exec bash "$(dirname "${BASH_SOURCE[0]}")/device_variants.sh" "$PACK" "$3" "$4" 2000000000 "$5" "$2" \
  "${CPUML_AB_NEW:-$PACK/cpuml_bench}"
