#include "bench/isa_peak.h"

#include <stdlib.h>
#include <string.h>

#include "cpuml/cpuml.h"
#include "kernels/registry.h"

namespace cpuml_bench {

uint64_t IsaPeakAvx2Madd(uint64_t iterations);       // bench/isa_peak_avx2.cc
uint64_t IsaPeakAvx2Maddubs(uint64_t iterations);    // bench/isa_peak_avx2.cc
uint64_t IsaPeakAvx512Vnni(uint64_t iterations);     // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvx512VnniLoopL1(uint64_t iterations);        // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvx512VnniLoopRowBlock(uint64_t iterations);  // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvx512VnniLoopL1Embedded(uint64_t iterations);  // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvx512VnniWithVmulps(uint64_t iterations);  // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvxVnni(uint64_t iterations);        // bench/isa_peak_avxvnni.cc
uint64_t IsaPeakAmx(uint64_t iterations);           // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxL1(uint64_t iterations);         // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxL2A(uint64_t iterations);        // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxK32(uint64_t iterations);        // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxK16(uint64_t iterations);        // bench/isa_peak_amx.cc
// The u8s8 tile kernel's loop over whole tiles, its tile ends and output stores, bench/isa_peak_amx.cc:
uint64_t IsaPeakAmxTiles(uint64_t iterations);
uint64_t IsaPeakAmxTilesSwapped(uint64_t iterations);
uint64_t IsaPeakAmxTilesFarRows(uint64_t iterations);
uint64_t IsaPeakAmxTilesFarLines(uint64_t iterations);
uint64_t IsaPeakAmxRowBlock(uint64_t iterations);
uint64_t IsaPeakAmxRowBlockRows(uint64_t iterations);
// The 4-bit tile kernel's block of 128 step by step, bench/isa_peak_amx.cc:
uint64_t IsaPeakAmxB128SumsStored(uint64_t iterations);
uint64_t IsaPeakAmxB128FloatSteps(uint64_t iterations);
uint64_t IsaPeakAmxB128FloatStepsY2(uint64_t iterations);
uint64_t IsaPeakAmxB128FloatInRegisters(uint64_t iterations);
uint64_t IsaPeakAmxB128Unpacked(uint64_t iterations);
uint64_t IsaPeakAmxB128UnpackedY2(uint64_t iterations);
uint64_t IsaPeakAmxB128UnpackedOnly(uint64_t iterations);
uint64_t IsaPeakAmxB128RegistersSliced(uint64_t iterations);
uint64_t IsaPeakAmxB128HalfRegisters(uint64_t iterations);
uint64_t IsaPeakAmxB128HalfRegistersSliced(uint64_t iterations);
uint64_t IsaPeakAmxB128QuarterRegistersSliced(uint64_t iterations);
uint64_t IsaPeakAmxB128FloatStepsSliced(uint64_t iterations);
uint64_t IsaPeakAmxB128UnpackedSliced(uint64_t iterations);
uint64_t IsaPeakAmxB128SharedUnpackedOnly(uint64_t iterations);
uint64_t IsaPeakAmxB128SharedUnpacked(uint64_t iterations);
uint64_t IsaPeakAmxB128StaticRows(uint64_t iterations);
uint64_t IsaPeakAmxB128RegistersSlicedMagic(uint64_t iterations);
uint64_t IsaPeakAmxB128StaticNoUnpack(uint64_t iterations);
uint64_t IsaPeakAmxB128StaticRawStores(uint64_t iterations);
// 256 of one vector instruction a block of eight tdpbusd, bench/isa_peak_amx.cc:
extern const IsaPeakProbe kAmxBesideProbes[];
extern const size_t kAmxBesideProbeCount;
uint64_t ReadBytesAvx2(const uint8_t* data, size_t bytes, bool prefetch);    // bench/isa_peak_avx2.cc
uint64_t ReadBytesAvx512(const uint8_t* data, size_t bytes, bool prefetch);  // bench/isa_peak_avx512vnni.cc

#if defined(__x86_64__)
namespace {

// The avx512vnni tier's four-row 4-bit kernel itself, called through the registry as the front
// end calls it (kernels/kernels.h: QGemmBlocks), on one tile's work: four rows of symmetric
// INT8 A against one 64-column panel of UINT4 B, K = 4096 in blocks of 32, one zero point for all
// (MatMulNBits' 8), FLOAT16 B scales and per-block A scales, the panel (144 KB with its scales)
// from L2 and A from L1, as a row block's tiles read them. Against `avx512vnni_vpdpbusd_vmulps`
// it says how much of the formula's share of the multiply pipes the kernel's own loop reaches,
// with nothing of the operator around it.
constexpr size_t kInt4K = 4096, kInt4Block = 32, kInt4Blocks = kInt4K / kInt4Block;
constexpr size_t kInt4Groups = kInt4Block / 8;

uint64_t FourRowInt4Tile(uint64_t iterations) {
  struct Tile {
    alignas(64) uint8_t b[kInt4Blocks * kInt4Groups * 256];
    alignas(64) int8_t a[kInt4Blocks * kInt4Groups * 32];
    alignas(64) uint16_t b_scale[kInt4Blocks * 64];
    alignas(64) float a_scale[kInt4Blocks * 4];
    alignas(64) int32_t row_terms[kInt4Blocks * 8];  // per block: row_a (zero) then row_b, 4 rows each
    alignas(64) uint8_t zero_points[64];
    const cpuml::QGemmKernel* kernel = nullptr;
  };
  static Tile* const tile = [] {
    Tile* t = new Tile();
    for (size_t i = 0; i < sizeof t->b; ++i) t->b[i] = static_cast<uint8_t>(i * 91 + 5);
    for (size_t i = 0; i < sizeof t->a; ++i) t->a[i] = static_cast<int8_t>(i * 37 + 11);
    for (auto& scale : t->b_scale) scale = 0x1400;  // 2^-10
    for (auto& scale : t->a_scale) scale = 1.0f / 4096;
    for (size_t c = 0; c < kInt4Blocks; ++c)
      for (size_t r = 0; r < 4; ++r) t->row_terms[c * 8 + 4 + r] = -static_cast<int32_t>(100 + r);
    for (auto& zero_point : t->zero_points) zero_point = 8;
    const cpuml::TierKernels& tier = cpuml::avx512vnni::kTierKernels;
    for (size_t i = 0; i < tier.qgemm_count; ++i)
      if (strcmp(tier.qgemm[i]->name, "qgemm_s8u4_4x64c8__avx512vnni") == 0) t->kernel = tier.qgemm[i];
    return t;
  }();
  if (!tile->kernel) return 0;
  cpuml::QGemmBlocks blocks{};
  blocks.count = kInt4Blocks;
  blocks.groups = blocks.last_groups = kInt4Groups;
  blocks.k = blocks.last_k = kInt4Block;
  blocks.a_stride = kInt4Groups * 32;
  blocks.b_stride = kInt4Groups * 256;
  blocks.row_a = tile->row_terms;
  blocks.row_b = tile->row_terms + 4;
  blocks.row_stride = 8;
  blocks.a_scale = tile->a_scale;
  blocks.a_scale_stride = 4;
  blocks.b_scale_half = tile->b_scale;
  blocks.b_scale_stride = 64;
  blocks.zero_points = tile->zero_points;
  alignas(64) float out[4][64];
  cpuml::QGemmTileParams params{};
  params.stage = cpuml::kStageFloat32;
  params.out = out;
  params.out_row_stride = sizeof out[0];
  params.blocks = &blocks;
  // A tile (16,384 vpdpbusd) per 256 iterations, about as long as the other probes take.
  const uint64_t tiles = iterations / 256;
  for (uint64_t i = 0; i < tiles; ++i) tile->kernel->run(4, 64, kInt4Blocks * kInt4Groups, tile->a, tile->b, &params);
  return tiles * 4 * 64 * kInt4K;
}

// The amx tier's u8s8 tile kernel itself, called through the registry as the front end calls it
// at one thread on 1024^3: a row block of eight tiles (256 KB of packed A) over 32 panels of B
// (32 KB each), enter() before and leave() after, each tile handed its eighth of the next panel
// (QGemmTileParams::prefetch_b). kRequantize: the bytes of a per-tensor QuantizedLinear into a 1 MB
// output of 1024-byte rows through the deferred row-pair epilogue; else each tile's sums are
// stored for a next K block (dot_out) and nothing more. Beside amx_row_block_k1024, which walks
// the same addresses with the tile instructions alone, it says what the kernel adds to that walk,
// and beside the operator what the front end adds.
template <bool kRequantize>
uint64_t AmxKernelRowBlock(uint64_t iterations) {
  constexpr size_t kTiles = 8, kPanels = 32, kTileA = 32 * 1024, kPanel = 32 * 1024, kN = 1024;
  struct State {
    uint8_t* a;
    uint8_t* b;
    uint8_t* out;
    alignas(64) int32_t row_terms[2][kTiles * 32];
    alignas(64) float multiplier[kN], out_scale[kTiles * 32], out_min[kTiles * 32], out_max[kTiles * 32],
        a_scale[kTiles * 32], b_scale[kN];
    alignas(64) int32_t out_zero_point[kTiles * 32];
    alignas(64) int32_t dot[32 * 32];
    alignas(64) uint8_t kernel_state[cpuml::kKernelStateBytes];
    const cpuml::QGemmKernel* kernel = nullptr;
  };
  static State* const st = [] {
    State* t = new State();
    auto fill = [](size_t bytes, int seed) {
      uint8_t* p = static_cast<uint8_t*>(aligned_alloc(4096, bytes));
      for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(i * 29 + seed);
      return p;
    };
    t->a = fill(kTiles * kTileA, 3);
    t->b = fill(kPanels * kPanel, 5);
    t->out = fill(kN * kN, 7);
    for (auto& x : t->multiplier) x = 1.0f / 65536;
    for (auto& x : t->b_scale) x = 1.0f / 256;
    for (size_t i = 0; i < kTiles * 32; ++i) {
      t->out_scale[i] = 1.0f;
      t->a_scale[i] = 1.0f / 256;
      t->out_min[i] = 0.0f;
      t->out_max[i] = 255.0f;
      t->out_zero_point[i] = 128;
      t->row_terms[0][i] = 0;
      t->row_terms[1][i] = 0;
    }
    const cpuml::TierKernels& tier = cpuml::amx::kTierKernels;
    for (size_t i = 0; i < tier.qgemm_count; ++i)
      if (strcmp(tier.qgemm[i]->name, "qgemm_u8s8_32x32c64__amx") == 0) t->kernel = tier.qgemm[i];
    return t;
  }();
  const cpuml::QGemmKernel& kernel = *st->kernel;
  const uint64_t tiles = iterations / 16;  // an iteration is a K group of four tdpbusd
  uint64_t t = 0;
  size_t row_block = 0;
  while (t < tiles) {
    if (kernel.enter) kernel.enter(st->kernel_state);
    for (size_t panel = 0; panel < kPanels && t < tiles; ++panel) {
      const uint8_t* next = panel + 1 < kPanels ? st->b + (panel + 1) * kPanel : nullptr;
      for (size_t tile = 0; tile < kTiles && t < tiles; ++tile, ++t) {
        const size_t m0 = tile * 32, n0 = panel * 32;
        cpuml::QGemmTileParams params{};
        params.row_a = st->row_terms[0] + m0;
        params.row_b = st->row_terms[1] + m0;
        params.a_scale = st->a_scale + m0;
        params.out_scale = st->out_scale + m0;
        params.out_min = st->out_min + m0;
        params.out_max = st->out_max + m0;
        params.out_zero_point = st->out_zero_point + m0;
        params.b_scale = st->b_scale + n0;
        params.multiplier = st->multiplier + n0;
        params.stage = cpuml::kStageRequantize8;
        params.out = st->out + (row_block * 256 + m0) * kN + n0;
        params.out_row_stride = kN;
        params.deferrable = true;
        params.prefetch_b = next ? next + tile * (kPanel / kTiles) : nullptr;
        params.prefetch_b_bytes = next ? kPanel / kTiles : 0;
        params.kernel_state = st->kernel_state;
        params.dot_out = kRequantize ? nullptr : st->dot;
        kernel.run(32, 32, 16, st->a + tile * kTileA, st->b + panel * kPanel, &params);
      }
    }
    if (kernel.leave) kernel.leave(st->kernel_state);
    row_block = (row_block + 1) % 4;
  }
  return tiles * 32 * 32 * 1024 + static_cast<uint64_t>(st->out[0] & 0);
}

}  // namespace
#endif

std::vector<IsaPeakProbe> IsaPeakProbes() {
#if defined(__x86_64__)
  std::vector<IsaPeakProbe> probes = {
      {"avx2_vpmaddwd_vpaddd", "vpmaddwd + vpaddd, int16 operands (exact)",
       [] { return __builtin_cpu_supports("avx2") != 0; }, IsaPeakAvx2Madd},
      {"avx2_vpmaddubsw_vpmaddwd_vpaddd", "vpmaddubsw + vpmaddwd + vpaddd, B within 7 bits (exact)",
       [] { return __builtin_cpu_supports("avx2") != 0; }, IsaPeakAvx2Maddubs},
      {"avxvnni_vpdpbusd", "vpdpbusd ymm (VEX), u8 x s8 into int32 (exact)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AVXVNNI) != 0; }, IsaPeakAvxVnni},
      {"avx512vnni_vpdpbusd", "vpdpbusd zmm, u8 x s8 into int32 (exact)",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512Vnni},
      {"avx512vnni_12x32_loop_l1", "vpdpbusd zmm, the 12 x 32 kernel's loop, A and B from L1",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512VnniLoopL1},
      {"avx512vnni_12x32_loop_row_block", "vpdpbusd zmm, the 12 x 32 kernel's loop, B from L1, 8 tiles of A from L2",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512VnniLoopRowBlock},
      {"avx512vnni_12x32_loop_l1_embedded", "vpdpbusd zmm, the same loop with A as its broadcast memory operand, from L1",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512VnniLoopL1Embedded},
      {"avx512vnni_vpdpbusd_vmulps", "vpdpbusd zmm with a vmulps per four (the 4-bit formula's share at blocks of 32)",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512VnniWithVmulps},
      {"avx512vnni_s8u4_4x64_tile_b32",
       "vpdpbusd zmm, the 4-bit four-row kernel on one panel of K = 4096 in blocks of 32, B from L2",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, FourRowInt4Tile},
      {"amx_tdpbusd", "tdpbusd, operands in tile registers (exact)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmx},
      {"amx_tdpbusd_tiles_from_l1", "tdpbusd, A and B tiles loaded from L1 (the AMX kernel's loop)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxL1},
      {"amx_tdpbusd_a_from_l2", "tdpbusd, B tiles from L1, A streamed from L2 (the AMX kernel's loop)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxL2A},
      {"amx_tdpbusd_k32", "tdpbusd of 32 K values (a block of 32 a tile instruction), operands in tiles",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxK32},
      {"amx_tdpbusd_k16", "tdpbusd of 16 K values (a block of 16 a tile instruction), operands in tiles",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxK16},
      {"amx_tiles_k1024", "the u8s8 tile loop on whole tiles of K = 1024, sums stored and restarted at each end",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxTiles},
      {"amx_tiles_k1024_swapped", "the same, odd tiles on tiles 4-7 as accumulators",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxTilesSwapped},
      {"amx_tiles_k1024_rows_far", "whole tiles, the rows stored into an 8 MB output, half a line a row",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxTilesFarRows},
      {"amx_tiles_k1024_lines_far", "whole tiles, the same bytes as whole lines, once for two panels",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxTilesFarLines},
      {"amx_row_block_k1024", "the tiles of a 1024^3 row block over 32 panels of B, the next panel asked into L2",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxRowBlock},
      {"amx_row_block_k1024_rows", "the row block over 32 panels with the output rows stored",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxRowBlockRows},
      {"amx_kernel_row_block_k1024_sums", "the u8s8 tile kernel on a 1024^3 row block's tiles, sums stored (no epilogue)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, AmxKernelRowBlock<false>},
      {"amx_kernel_row_block_k1024", "the u8s8 tile kernel on a 1024^3 row block's tiles, bytes into a 1 MB output",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, AmxKernelRowBlock<true>},
      {"amx_b128_sums_stored", "tdpbusd in blocks of 128 K on a 32 x 32 tile, each block's sums stored",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128SumsStored},
      {"amx_b128_float_in_registers", "tdpbusd in blocks of 128 K, the 4-bit formula's float operations on registers",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128FloatInRegisters},
      {"amx_b128_float_in_registers_sliced", "the same, an eighth of the float operations after each tdpbusd",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128RegistersSliced},
      {"amx_b128_half_float_in_registers", "tdpbusd in blocks of 128 K, half the formula's float operations on registers",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128HalfRegisters},
      {"amx_b128_half_float_in_registers_sliced", "the same, an eighth of them after each tdpbusd",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128HalfRegistersSliced},
      {"amx_b128_quarter_float_in_registers_sliced", "a quarter of the formula's float operations, sliced after each tdpbusd",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128QuarterRegistersSliced},
      {"amx_b128_float_steps", "tdpbusd in blocks of 128 K, sums stored, the float steps, y in memory every block",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128FloatSteps},
      {"amx_b128_float_steps_y2", "the same, y loaded and stored once for two blocks",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128FloatStepsY2},
      {"amx_b128_float_steps_sliced", "the float steps cut into eight slices, one after each tdpbusd",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128FloatStepsSliced},
      {"amx_b128_unpack_only", "tdpbusd in blocks of 128 K, B unpacked from nibbles in L1, sums stored",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128UnpackedOnly},
      {"amx_b128_unpack_float_steps", "the 4-bit tile kernel's block on L1 data: B unpacked, sums stored, float steps",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128Unpacked},
      {"amx_b128_unpack_float_steps_y2", "the same, y loaded and stored once for two blocks",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128UnpackedY2},
      {"amx_b128_unpack_float_steps_sliced", "the same block's unpacking and float steps in slices after each tdpbusd",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128UnpackedSliced},
      {"amx_b128_unpack_only_shared", "B unpacked, sums stored, each chunk's B tiles loaded once for both row halves",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128SharedUnpackedOnly},
      {"amx_b128_unpack_float_steps_shared", "the kernel's block with each chunk's B tiles loaded once for both row halves",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128SharedUnpacked},
      {"amx_b128_float_in_registers_sliced_magic", "the sliced float steps with the conversion as an integer add and a float subtract",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128RegistersSlicedMagic},
      {"amx_b128_static_rows", "the shared block unpacking B, its tiles loaded from rows nobody writes",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128StaticRows},
      {"amx_b128_static_no_unpack", "the shared block's tile loads from rows nobody writes, no unpacking",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128StaticNoUnpack},
      {"amx_b128_static_raw_stores", "the same, the nibbles stored as loaded into rows no tile reads",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxB128StaticRawStores},
  };
  probes.insert(probes.end(), kAmxBesideProbes, kAmxBesideProbes + kAmxBesideProbeCount);
  return probes;
#else
  return {};
#endif
}

uint64_t ReadBytes(const uint8_t* data, size_t bytes, ReadLoop loop) {
  const bool prefetch = loop == ReadLoop::kPrefetchL2;
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f") != 0, avx2 = __builtin_cpu_supports("avx2") != 0;
  if (avx512) return ReadBytesAvx512(data, bytes, prefetch);
  if (avx2) return ReadBytesAvx2(data, bytes, prefetch);
#endif
  uint64_t acc[4] = {0, 0, 0, 0};
  const uint64_t* words = reinterpret_cast<const uint64_t*>(data);
  for (size_t i = 0; i < bytes / 8; i += 4) {
    if (prefetch && i % 8 == 0) __builtin_prefetch(words + i + 1024, 0, 2);
    for (int u = 0; u < 4; ++u) acc[u] |= words[i + u];
  }
  return acc[0] | acc[1] | acc[2] | acc[3];
}

}  // namespace cpuml_bench
