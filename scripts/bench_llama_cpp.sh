#!/usr/bin/env bash
# cpuml's 4-bit path against llama.cpp's Q4_0 matmul on this machine. llama.cpp's source comes
# from the npm registry (node-llama-cpp ships it as a git bundle); ggml's CPU backend is built
# for this CPU (-march=native) into build/llama-cpp, with bench/llama_cpp_peer.cc, which times
# ggml's mul_mat of Q4_0 weights by float activations (quantized to Q8_0 inside, block 32) and
# says whether its output at N threads has the bytes of its output at one. Rounds alternate
# cpuml_bench (`s8u4h`, block 32: A symmetric per row and block, the same granularity, and B's
# scales FLOAT16 numbers, as Q4_0's are, which cpuml then reads as FLOAT16) and the
# peer, at 1 thread (both pinned to the same core) and at every core; prints medians and the
# median of the per-round ratios.
#   bash scripts/bench_llama_cpp.sh [ROUNDS] [OUT]
# CPUML_BENCH_SHAPES narrows the shapes (default: the 4-bit decode and prefill shapes).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages "${BASE_PACKAGES[@]}" python3 git
command -v npm > /dev/null || ensure_packages nodejs npm
ROUNDS=${1:-3}
OUT=${2:-$ROOT/build/bench/llama_cpp}
SHAPES=${CPUML_BENCH_SHAPES:-1x4096x11008,1x11008x4096,1x4096x14336,16x4096x4096,128x4096x4096}
NODE_LLAMA_CPP=3.22.1

PEER_DIR="$ROOT/build/llama-cpp"
PEER="$PEER_DIR/llama_cpp_peer"
if [ ! -x "$PEER" ]; then
  rm -rf "$PEER_DIR"
  mkdir -p "$PEER_DIR"
  (cd "$PEER_DIR" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP" > /dev/null && tar xzf "node-llama-cpp-$NODE_LLAMA_CPP.tgz")
  git clone -q "$PEER_DIR/package/llama/gitRelease.bundle" "$PEER_DIR/llama.cpp" 2> /dev/null
  cmake -S "$PEER_DIR/llama.cpp" -B "$PEER_DIR/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF -DGGML_CCACHE=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF > /dev/null
  cmake --build "$PEER_DIR/build" -j "$JOBS" --target ggml ggml-cpu > /dev/null
  lib="$PEER_DIR/build/ggml/src"
  g++ -O2 -std=c++17 -I "$PEER_DIR/llama.cpp/ggml/include" "$ROOT/bench/llama_cpp_peer.cc" "$lib/libggml.a" \
    "$lib/libggml-cpu.a" "$lib/libggml-base.a" -lpthread -ldl -o "$PEER"
fi
BENCH=$(cpuml_bench_binary)
round_step() {  # round, threads, pin...
  local round=$1 threads=$2
  shift 2
  CPUML_BENCH_SHAPES=$SHAPES CPUML_BENCH_TYPES=s8u4h CPUML_BENCH_MODELS= CPUML_BENCH_THREADS=$threads "$@" "$BENCH" \
    --benchmark_filter='^dqmatmul/cpuml/s8u4h/.*/block:32/' --benchmark_min_time=0.2 --benchmark_format=csv \
    2>/dev/null | grep -E '^"dqmatmul' >> "$OUT/cpuml_$round.csv"
  # shellcheck disable=SC2046
  "$@" "$PEER" "$threads" $(echo "$SHAPES" | tr ',' ' ') >> "$OUT/peer_$round.txt"
}
interleaved_rounds "$OUT" "$ROUNDS" round_step
echo "cpuml $(git -C "$ROOT" rev-parse --short HEAD) against llama.cpp (node-llama-cpp $NODE_LLAMA_CPP's source, ggml" \
  "$(git -C "$PEER_DIR/llama.cpp" rev-parse --short HEAD)) on $(lscpu | sed -n 's/^Model name: *//p' | head -1)," \
  "$(nproc) CPUs; $ROUNDS rounds"
python3 - "$OUT" "$ROUNDS" <<'EOF'
import csv, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}  # (shape, threads) -> [(cpuml, peer)] per round
notes = {}
for r in range(1, rounds + 1):
    cpuml = {}
    for line in csv.reader(open(f"{out}/cpuml_{r}.csv")):
        m = re.match(r"dqmatmul/cpuml/s8u4h/([0-9x]+)/block:32/threads:(\d+)", line[0])
        if m:
            cpuml[(m.group(1), int(m.group(2)))] = float(line[-1])
    for line in open(f"{out}/peer_{r}.txt"):
        m = re.match(r"llama_cpp_q4_0/([0-9x]+)/threads:(\d+)\s+us=\S+\s+GOPS=(\S+)(.*)", line)
        if m and (m.group(1), int(m.group(2))) in cpuml:
            key = (m.group(1), int(m.group(2)))
            rows.setdefault(key, []).append((cpuml[key], float(m.group(3))))
            if m.group(4).strip():
                notes.setdefault(key, set()).add(m.group(4).strip().replace("bytes: ", ""))
print("\n| M x K x N | threads | cpuml s8u4h block 32 (GOPS) | llama.cpp Q4_0 (GOPS) | cpuml / llama.cpp | llama.cpp's bytes at N threads |")
print("|---|---|---|---|---|---|")
for (shape, threads), pairs in sorted(rows.items(), key=lambda kv: (kv[0][1], [int(x) for x in kv[0][0].split("x")])):
    ratio = statistics.median(c / p for c, p in pairs)
    note = "; ".join(sorted(notes.get((shape, threads), {"-"})))
    print(f"| {shape} | {threads} | {statistics.median(c for c, _ in pairs):.1f} | "
          f"{statistics.median(p for _, p in pairs):.1f} | {ratio:.2f} | {note} |")
EOF
