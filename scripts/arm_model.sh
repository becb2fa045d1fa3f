#!/usr/bin/env bash
# The Arm kernels on paper: builds every NEON-family GEMM micro-kernel and the fills for AArch64,
# unpacks Debian's arm64 XNNPACK, and has llvm-mca (LLVM 19) model the inner loops of both on the
# scheduling models of little and big Arm cores (scripts/arm_model.py says how). Prints the
# tables and writes them to build/arm_model/model.md. A model of the scheduler, not a timing.
#   bash scripts/arm_model.sh
# LLVM 19 rather than 16: 16 models Neoverse N1 (and Cortex-A76) with the Cortex-A57 model and V1
# with N2's; 19 has models of its own for N1, V1 and Cortex-A510. Cortex-A76 is an N1 core.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_packages llvm-19 g++-aarch64-linux-gnu libxsimd-dev
ensure_arm64_packages
OUT="$ROOT/build/arm_model"
mkdir -p "$OUT/obj"
MCA=llvm-mca-19
OBJDUMP=/usr/lib/llvm-19/bin/llvm-objdump

# The kernels as the library builds them (Release flags, each tier's ISA flags:
# cmake/CpumlTiers.cmake).
compile() {  # source, object, extra flags...
  local source=$1 object=$2
  shift 2
  aarch64-linux-gnu-g++ -O3 -DNDEBUG -fPIC -std=c++17 -ffp-contract=off -I"$ROOT/include" -I"$ROOT" "$@" \
    -c "$ROOT/$source" -o "$OUT/obj/$object"
}
compile kernels/neon/qgemm_s8s8_2x8c16_neon.cc neon_gemm.o
compile kernels/neon/qgemm_s8u4_2x8c8_neon.cc neon_s8u4.o
compile kernels/neon/fill_neon.cc neon_fill.o
compile kernels/neon_dotprod/qgemm_s8s8_8x8c4_neondot.cc neondot_gemm.o -march=armv8.2-a+dotprod
compile kernels/neon_dotprod/qgemm_s8u4_4x16c8_neondot.cc neondot_s8u4.o -march=armv8.2-a+dotprod
compile kernels/neon_i8mm/qgemm_s8s8_8x8c8_neoni8mm.cc i8mm_gemm.o -march=armv8.2-a+dotprod+i8mm

# XNNPACK's arm64 library (its assembly micro-kernels are the exported symbols).
XNN="$OUT/xnnpack/usr/lib/aarch64-linux-gnu/libXNNPACK.so.0"
if [ ! -f "$XNN" ]; then
  mkdir -p "$OUT/debs"
  (cd "$OUT/debs" && apt-get download libxnnpack0:arm64 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  dpkg -x "$OUT"/debs/libxnnpack0_*_arm64.deb "$OUT/xnnpack"
fi
XNN_VERSION=$(ls "$OUT"/debs/libxnnpack0_*_arm64.deb 2>/dev/null | sed 's/.*libxnnpack0_\(.*\)_arm64.deb/\1/')
QS8="$XNN@xnn_qs8_gemm_minmax_fp32_ukernel_"
O="$OUT/obj"

model() {  # title, cores, entries...
  local title=$1 cpus=$2
  shift 2
  echo
  echo "### $title"
  echo
  python3 "$ROOT/scripts/arm_model.py" --llvm-mca "$MCA" --objdump "$OBJDUMP" --cpus "$cpus" --markdown "$@"
}
{
  echo "Modeled with $($MCA --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p') llvm-mca; XNNPACK $XNN_VERSION (Debian arm64)."
  echo "cycles/iter: steady state of the innermost loop; rate: multiply-accumulates (fills: bytes stored)"
  echo "per cycle; peak: the same model's rate for the loop's MAC instruction alone (fills: q-pair stores);"
  echo "of mix: the rate against the loop's own vector arithmetic alone (no loads, no loop overhead)."
  model "NEON, no dot product (Cortex-A53, A55, A510 little; Cortex-A57/A72 class; N1 = Cortex-A76 core; N2; V1)" \
    cortex-a53,cortex-a55,cortex-a510,cortex-a57,neoverse-n1,neoverse-n2,neoverse-v1 \
    "cpuml qgemm_s8s8_2x8c16__neon (exact, any B)=$O/neon_gemm.o@qgemm_s8s8_2x8c16__neon(" \
    "cpuml qgemm_s8sym_2x8c16__neon (B without -128)=$O/neon_gemm.o@qgemm_s8sym_2x8c16__neon(" \
    "XNNPACK 2x8c16 mlal (B without -128)=${QS8}2x8c16__aarch64_neon_mlal" \
    "XNNPACK 2x8c8 mlal (B without -128)=${QS8}2x8c8__aarch64_neon_mlal" \
    "XNNPACK 2x8c8 mlal cortex_a53=${QS8}2x8c8__aarch64_neon_mlal_cortex_a53" \
    "XNNPACK 4x16 mlal lane ld64=${QS8}4x16__aarch64_neon_mlal_lane_ld64"
  model "Dot product (sdot)" cortex-a55,cortex-a510,neoverse-n1,neoverse-n2,neoverse-v1 \
    "cpuml qgemm_s8s8_8x8c4__neondot=$O/neondot_gemm.o@qgemm_s8s8_8x8c4__neondot(" \
    "XNNPACK 4x16c4 neondot ld128=${QS8}4x16c4__aarch64_neondot_ld128" \
    "XNNPACK 4x16c4 neondot ld64=${QS8}4x16c4__aarch64_neondot_ld64" \
    "XNNPACK 4x16c4 neondot cortex_a55=${QS8}4x16c4__aarch64_neondot_cortex_a55"
  # The 4-bit kernels: a loop's sdot count against the MACs they do, with the nibbles' unpacking
  # (one mask per 16 bytes: two columns a byte, kS8U4ColumnPairs). The loop is the same with and
  # without an A zero point (B's column sums come packed).
  model "Dot product on 4-bit B (sdot on the bytes and on their low nibbles; the loop that does the most MACs)" \
    cortex-a55,cortex-a510,neoverse-n1,neoverse-n2,neoverse-v1 \
    "cpuml qgemm_s8u4_8x16c8__neondot, 8 rows=$O/neondot_s8u4.o@Tile<8ul, 8ul>" \
    "cpuml qgemm_s8u4_4x16c8__neondot, 4 rows=$O/neondot_s8u4.o@Tile<4ul, 4ul>" \
    "cpuml qgemm_s8u4_1x16c8__neondot, 1 row (decode)=$O/neondot_s8u4.o@Tile<1ul, 1ul>"
  model "NEON on 4-bit B (smlal on unpacked nibbles, no dot product)" \
    cortex-a53,cortex-a55,cortex-a510,cortex-a57,neoverse-n1,neoverse-n2,neoverse-v1 \
    "cpuml qgemm_s8u4_2x8c8__neon, 2 rows=$O/neon_s8u4.o@Tile<2ul, false>" \
    "cpuml qgemm_s8u4_2x8c8__neon, 1 row (decode)=$O/neon_s8u4.o@Tile<1ul, false>"
  model "Int8 matrix multiply (smmla; Debian's XNNPACK has no i8mm kernel: its best sdot kernel for comparison)" \
    cortex-a510,neoverse-n2,neoverse-v1 \
    "cpuml qgemm_s8s8_8x8c8__neoni8mm=$O/i8mm_gemm.o@qgemm_s8s8_8x8c8__neoni8mm(" \
    "XNNPACK 4x16c4 neondot ld128 (sdot)=${QS8}4x16c4__aarch64_neondot_ld128"
  model "Fills (neon tier)" cortex-a55,neoverse-n1,neoverse-v1 \
    "cpuml fill constant FLOAT32=$O/neon_fill.o@FillConstantRow<(CPUML_TENSOR_DATA_TYPE)1>#fill" \
    "cpuml fill sequence FLOAT32=$O/neon_fill.o@FillFloat32SequenceRow#fill" \
    "cpuml fill sequence FLOAT16=$O/neon_fill.o@FillFloat16SequenceRow#fill" \
    "cpuml fill sequence INT8=$O/neon_fill.o@FillIntegerSequenceRow<(CPUML_TENSOR_DATA_TYPE)8>#fill"
} | tee "$OUT/model.md"
