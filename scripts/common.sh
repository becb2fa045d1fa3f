# Sourced by scripts/test.sh and scripts/bench.sh: installs missing Debian packages.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JOBS=$(nproc)

ensure_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "cpuml: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# arm64 packages that co-install with their amd64 twins (multiarch), for the AArch64 cross build.
ensure_arm64_packages() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo dpkg --add-architecture arm64
    $sudo apt-get update -q
  fi
  ensure_packages "$@"
}

BASE_PACKAGES=(cmake make g++ libxsimd-dev libcpuinfo-dev libgtest-dev libbenchmark-dev libpthreadpool-dev)

# Builds cpuml_bench (Release, build/bench, no tests; extra CMake options as arguments, kept in
# the cache) and prints its path.
cpuml_bench_binary() {
  cmake -S "$ROOT" -B "$ROOT/build/bench" -DCMAKE_BUILD_TYPE=Release -DCPUML_BUILD_TESTS=OFF "$@" > /dev/null
  cmake --build "$ROOT/build/bench" -j "$JOBS" --target cpuml_bench > /dev/null
  echo "$ROOT/build/bench/bench/cpuml_bench"
}

# A fresh OUT, then ROUNDS rounds of `STEP ROUND THREADS [PIN...]` at 1 thread and at JOBS: at one
# thread PIN is a taskset to the last core, for the step to put before each command it times, so
# cpuml and a peer share one core.
interleaved_rounds() {  # out, rounds, step
  local out=$1 rounds=$2 step=$3 round
  rm -rf "$out"
  mkdir -p "$out"
  for round in $(seq 1 "$rounds"); do
    "$step" "$round" 1 taskset -c "$(( $(nproc) - 1 ))"
    "$step" "$round" "$JOBS"
  done
}
