#!/usr/bin/env bash
# The 4-bit weight path's accuracy: cpuml (DYNAMIC_QUANTIZE_LINEAR, symmetric int8 per row and
# block, then MATRIX_MULTIPLY_INTEGER_TO_FLOAT) and ONNX Runtime's MatMulNBits at accuracy_level 4
# (through onnxruntime-node), each against a float64 reference on the same data: the weights
# dequantized exactly, the activations not quantized. Prints a markdown table of both errors.
#   bash scripts/int4_accuracy.sh [MxKxN ...]   (default 1x4096x4096 16x4096x4096)
# Builds bench/int4_accuracy.cc in build/accuracy (an existing configuration there is kept) and
# writes the cases under build/accuracy/cases. CPUML_BUILD_JOBS caps the build's jobs (default:
# every CPU).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# Google Benchmark only because bench/ does not configure without it; this tool does not link it.
ensure_packages cmake make g++ libxsimd-dev libcpuinfo-dev libpthreadpool-dev libbenchmark-dev
command -v npm > /dev/null || ensure_packages nodejs npm

MODULES="$ROOT/build/ort-node"
if [ ! -d "$MODULES/node_modules/onnxruntime-node" ]; then
  mkdir -p "$MODULES"
  # The package's install script only fetches the CUDA provider (from outside the npm registry);
  # the CPU library is in the package itself.
  (cd "$MODULES" && npm install --no-save --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 > /dev/null)
fi
BUILD="$ROOT/build/accuracy"
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCPUML_BUILD_TESTS=OFF -DCPUML_BENCH_PEERS=OFF \
    -DCPUML_WERROR=ON > /dev/null
fi
cmake --build "$BUILD" -j "${CPUML_BUILD_JOBS:-$JOBS}" --target cpuml_int4_accuracy > /dev/null

CASES="$BUILD/cases"
rm -rf "$CASES"
"$BUILD/bench/cpuml_int4_accuracy" "$CASES" "$@" > "$BUILD/cpuml.txt"
# The tool's order (shape, block, dataset) is the table's; the node script gets the same list.
DIRS=()
while read -r name _; do DIRS+=("$CASES/$name"); done < "$BUILD/cpuml.txt"
ORT_NODE_MODULES="$MODULES/node_modules" node "$ROOT/bench/ort_node_nbits_accuracy.mjs" "${DIRS[@]}" > "$BUILD/ort.txt"

ORT_VERSION=$(node -p "require('$MODULES/node_modules/onnxruntime-node/package.json').version")
echo "cpuml $(git -C "$ROOT" rev-parse --short HEAD) and onnxruntime-node $ORT_VERSION (1 thread each) on" \
  "$(lscpu | sed -n 's/^Model name: *//p' | head -1); errors against float64:" \
  "max rel = max|y - ref| / max|ref|, RMS rel = sqrt(sum (y - ref)^2 / sum ref^2)"
echo
awk '
  # "name  key=value ...": the values by key.
  function parse(line, values,   fields, i, pair) {
    split(line, fields, /[ ]+/)
    for (i = 2; i in fields; ++i) if (split(fields[i], pair, "=") == 2) values[pair[1]] = pair[2]
    return fields[1]
  }
  FNR == NR { name = parse($0, v); ort_max[name] = v["max_rel"]; ort_rms[name] = v["rms_rel"]
              if (v["vs_cpuml"] + 0 > worst + 0) { worst = v["vs_cpuml"]; worst_case = name }
              next }
  FNR == 1 { print "| M x K x N | block | activations | cpuml max rel | cpuml RMS rel | ORT (accuracy_level 4) max rel | ORT RMS rel |"
             print "|---|---|---|---|---|---|---|" }
  { name = parse($0, v); split(name, part, "_"); sub(/^block/, "", part[2])
    if (!(name in ort_max)) { print "int4_accuracy: no ONNX Runtime result for " name > "/dev/stderr"; exit 1 }
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", part[1], part[2], part[3], v["max_rel"], v["rms_rel"],
           ort_max[name], ort_rms[name] }
  END { if (worst_case != "") printf "\nLargest difference between the two outputs, max|y_ort - y_cpuml| / max|ref|: %s (%s)\n",
                                     worst, worst_case }
' "$BUILD/ort.txt" "$BUILD/cpuml.txt"
