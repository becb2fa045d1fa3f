// Compiled with AMX flags; called only where cpuml reports the amx tier supported (its detection
// has by then asked Linux for the tile state). Probes of the tile unit, each with the AMX
// kernel's register plan (four 16 x 16 int32 accumulators, two A and two B tiles, four tdpbusd
// per 64 K values), so a GEMM figure reads against the step that bounds it:
//   IsaPeakAmx      tdpbusd alone, operands already in tiles: the instruction peak;
//   IsaPeakAmxL1    every operand tile loaded from L1 (16 KB of A, 16 KB of B, cycled);
//   IsaPeakAmxL2A   B from L1 and A streaming from a 512 KB buffer (L2), as the kernel reads
//                   its packed A while one B panel block stays in L1.
//   IsaPeakAmxK32, IsaPeakAmxK16
//                   IsaPeakAmx with 32 or 16 K values a tdpbusd (A tiles of 32 or 16 bytes a
//                   row, B tiles of 8 or 4 K quads): the rate of a tile kernel whose blocks of K
//                   (4-bit weights' blocks of 32 and 16) end every tdpbusd, counted in their MACs.
//   IsaPeakAmxB128* the 4-bit tile kernel's block of 128 K values on a 32 x 32 tile (eight
//                   tdpbusd), step by step, every operand in L1 or in tiles: what each step beside
//                   the tile unit's multiplies costs (sums stored, float steps, unpacking B), in
//                   the kernel's order or sliced between the tdpbusd, so that the kernel reads
//                   against its own ceiling; and where the unpacked B tiles come from (rows
//                   nobody writes, the nibbles stored untransformed), to tell the unpacking's
//                   stores from its transforms and from the tile loads that read them.
//   IsaPeakAmxBeside*
//                   eight tdpbusd with 256 of one vector instruction beside them: which of the
//                   core's vector ports stay free while the tile unit multiplies.
//   IsaPeakAmxTiles*, IsaPeakAmxRowBlock*
//                   the u8s8 kernel's loop over whole tiles of K = 1024 (each tile's sums stored
//                   and restarted), then over a 1024^3 row block's real addresses, with and
//                   without the deferred epilogue's output stores: what a tile's end, the row
//                   block's walk over B and the output's lines cost beside the loop itself
//                   (bench/isa_peak.cc's amx_kernel_row_block_* run the kernel on that walk).
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/isa_peak.h"
#include "cpuml/cpuml.h"
#include "kernels/amx/tile_config.h"

namespace cpuml_bench {
namespace {

constexpr uint64_t kMacsPerTdpbusd = 16 * 16 * 64;
constexpr size_t kGroupBytes = 2048;  // two 16 x 64-byte tiles
constexpr size_t kL1Bytes = 16 * 1024, kL2Bytes = 512 * 1024;
alignas(64) uint8_t g_a[kL2Bytes];
alignas(64) uint8_t g_b[kL1Bytes];

void Configure() {
  static constexpr cpuml::amx::TileConfig kConfig = cpuml::amx::EightFullTiles();
  _tile_loadconfig(&kConfig);
  // Values that are neither zero nor uniform, in case the unit's timing depends on them.
  static const bool filled = [] {
    for (size_t i = 0; i < kL2Bytes; ++i) g_a[i] = static_cast<uint8_t>(i * 37 + 11);
    for (size_t i = 0; i < kL1Bytes; ++i) g_b[i] = static_cast<uint8_t>(i * 91 + 5);
    return true;
  }();
  (void)filled;
}

// The operand tiles of the register-only probes (and the first of the others).
inline void LoadOperandTiles() {
  _tile_loadd(4, g_a, 64);
  _tile_loadd(5, g_a + 1024, 64);
  _tile_loadd(6, g_b, 128);
  _tile_loadd(7, g_b + 64, 128);
}

// The A tiles' rows of kK bytes and the B tiles' kK / 4 K quads: kK K values a tdpbusd.
template <size_t kK>
constexpr cpuml::amx::TileConfig ShortKConfig() {
  cpuml::amx::TileConfig c = cpuml::amx::EightFullTiles();
  for (int t = 4; t < 6; ++t) c.colsb[t] = kK;
  for (int t = 6; t < 8; ++t) c.rows[t] = kK / 4;
  return c;
}

template <size_t kABytes, bool kLoad, size_t kK = 64>
uint64_t Run(uint64_t iterations) {
  static_assert(kK == 64 || !kLoad, "the loading probes use full tiles");
  Configure();
  if constexpr (kK != 64) {
    static constexpr cpuml::amx::TileConfig kConfig = ShortKConfig<kK>();
    _tile_loadconfig(&kConfig);
  }
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  LoadOperandTiles();
  size_t a = 0, b = 0;
  for (uint64_t i = 0; i < iterations; ++i) {
    if (kLoad) {
      _tile_stream_loadd(4, g_a + a, 64);
      _tile_loadd(6, g_b + b, 128);
      _tile_loadd(7, g_b + b + 64, 128);
      _tile_stream_loadd(5, g_a + a + 1024, 64);
      a = a + kGroupBytes == kABytes ? 0 : a + kGroupBytes;
      b = b + kGroupBytes == kL1Bytes ? 0 : b + kGroupBytes;
    }
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  alignas(64) int32_t sink[16 * 16];
  _tile_stored(0, sink, 64);
  _tile_release();
  return iterations * 4 * (kMacsPerTdpbusd / 64 * kK) + static_cast<uint64_t>(sink[0] & 0);
}

// What a block of 128 K values does beside its eight tdpbusd, as qgemm_s8u4_32x32c8__amx runs it:
// each row half's pair of sums zeroed before its multiplies and stored after the next half's are
// issued, then the block's float steps (docs/semantics.md: a conversion, the scales' product, its
// multiply and the add to y, per output) while the tile unit multiplies the next block.
enum class BlockSteps {
  kSumsStored,        // the sums stored, no float steps
  kFloatSteps,        // the float steps, y loaded and stored every block (the kernel's order)
  kFloatStepsY2,      // the same, y loaded and stored once for two blocks (two adds in turn)
};

constexpr size_t kBlockRows = 32, kBlockColumns = 32, kSumBuffers = 4;
constexpr size_t kUnpackedHalfBytes = 128 / 4 * 64;  // 32 K quads of 16 columns

struct alignas(64) BlockBuffers {
  int32_t sums[kSumBuffers][kBlockRows][kBlockColumns];
  float y[kBlockRows][kBlockColumns];
  float a_scale[kBlockRows];
  float b_scale[kBlockColumns];
  int8_t rows[2][2 * kUnpackedHalfBytes];  // unpacked B tile rows, two blocks in flight
};

inline void StartBuffers(BlockBuffers& buf) {
  for (size_t i = 0; i < kBlockRows; ++i) buf.a_scale[i] = 0.5f + static_cast<float>(i) / 64;
  for (size_t i = 0; i < kBlockColumns; ++i) buf.b_scale[i] = 0.25f + static_cast<float>(i) / 128;
  memset(buf.y, 0, sizeof(buf.y));
  memset(buf.rows, 0, sizeof(buf.rows));
  memset(buf.sums, 0, sizeof(buf.sums));
}

template <size_t kHalf>
inline void StoreHalf(BlockBuffers& buf, size_t block) {
  int32_t* sums = &buf.sums[block % kSumBuffers][kHalf * 16][0];
  if constexpr (kHalf == 0) {
    _tile_stored(0, sums, kBlockColumns * 4);
    _tile_stored(1, sums + 16, kBlockColumns * 4);
  } else {
    _tile_stored(2, sums, kBlockColumns * 4);
    _tile_stored(3, sums + 16, kBlockColumns * 4);
  }
}

inline __m512 Product(const BlockBuffers& buf, size_t block, size_t r, size_t half, __m512 a, __m512 b) {
  const __m512i s = _mm512_load_si512(&buf.sums[block % kSumBuffers][r][16 * half]);
  return _mm512_mul_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(a, b));
}

inline void FinishRows(BlockBuffers& buf, size_t block, size_t first_row, size_t rows) {
  const __m512 b[2] = {_mm512_load_ps(buf.b_scale), _mm512_load_ps(buf.b_scale + 16)};
  for (size_t r = first_row; r < first_row + rows; ++r) {
    const __m512 a = _mm512_set1_ps(buf.a_scale[r]);
    for (size_t half = 0; half < 2; ++half)
      _mm512_store_ps(&buf.y[r][16 * half],
                      _mm512_add_ps(_mm512_load_ps(&buf.y[r][16 * half]), Product(buf, block, r, half, a, b[half])));
  }
}

inline void FinishBlock(BlockBuffers& buf, size_t block) { FinishRows(buf, block, 0, kBlockRows); }

inline void FinishTwoBlocks(BlockBuffers& buf, size_t block) {
  const __m512 b[2] = {_mm512_load_ps(buf.b_scale), _mm512_load_ps(buf.b_scale + 16)};
  for (size_t r = 0; r < kBlockRows; ++r) {
    const __m512 a = _mm512_set1_ps(buf.a_scale[r]);
    for (size_t half = 0; half < 2; ++half) {
      const __m512 y = _mm512_add_ps(_mm512_load_ps(&buf.y[r][16 * half]), Product(buf, block - 1, r, half, a, b[half]));
      _mm512_store_ps(&buf.y[r][16 * half], _mm512_add_ps(y, Product(buf, block, r, half, a, b[half])));
    }
  }
}

// kSteps float steps (a conversion, two multiplies and an add on 16 outputs) into eight independent
// sums, on sums and scales that an empty asm makes the compiler treat as new each step: the
// formula's operations with no load or store (unrolled, so that every value stays in a register).
struct RegisterSteps {
  __m512i sums[4];
  __m512 scales[4], y[8];
};

inline RegisterSteps StartSteps() {
  RegisterSteps r;
  for (size_t j = 0; j < 4; ++j) {
    r.sums[j] = _mm512_set1_epi32(static_cast<int>(j * 1000 + 7));
    r.scales[j] = _mm512_set1_ps(0.75f + static_cast<float>(j));
  }
  for (size_t j = 0; j < 8; ++j) r.y[j] = _mm512_setzero_ps();
  return r;
}

// kMagic: the conversion as an integer add and a float subtract (exact for |sum| < 2^22: the sum
// placed in the mantissa of 1.5 x 2^23, then 1.5 x 2^23 taken off), two instructions any of the
// vector ports runs where vcvtdq2ps takes the one port that also multiplies.
template <size_t kSteps, bool kMagic = false>
__attribute__((always_inline)) inline void RunSteps(RegisterSteps& r, __m512 b) {
  const __m512i magic_bits = _mm512_set1_epi32(0x4B400000);
  const __m512 magic = _mm512_set1_ps(12582912.0f);
#pragma GCC unroll 64
  for (size_t i = 0; i < kSteps; ++i) {
    const size_t j = i % 4;
    asm("" : "+v"(r.sums[j]), "+v"(r.scales[j]));
    const __m512 sum = kMagic ? _mm512_sub_ps(_mm512_castsi512_ps(_mm512_add_epi32(r.sums[j], magic_bits)), magic)
                              : _mm512_cvtepi32_ps(r.sums[j]);
    r.y[i % 8] = _mm512_add_ps(r.y[i % 8], _mm512_mul_ps(sum, _mm512_mul_ps(r.scales[j], b)));
  }
}

inline float StepsSink(const RegisterSteps& r) {
  alignas(64) float lanes[16];
  float sum = 0;
  for (size_t j = 0; j < 8; ++j) {
    _mm512_store_ps(lanes, r.y[j]);
    sum += lanes[0];
  }
  return sum;
}

// 128 K values of 32 columns from their nibbles (2 KB in L1) into B tile rows, every zero point 8:
// the kernel's GF(2) affine unpacking (its kLowNibbleMinusEight and kHighNibbleMinusEight, with the
// sign bits inverted), two stores a 64-byte group half.
inline void UnpackGroups(const uint8_t* nibbles, int8_t* rows, size_t first_group, size_t groups) {
  const __m512i low_matrix = _mm512_set1_epi64(0x0102040808080808ll), high_matrix = _mm512_set1_epi64(0x1020408080808080ll);
  for (size_t g = first_group; g < first_group + groups; ++g)
    for (size_t half = 0; half < 2; ++half) {
      const __m512i raw = _mm512_load_si512(nibbles + g * 128 + half * 64);
      int8_t* row = rows + half * kUnpackedHalfBytes + 2 * g * 64;
      _mm512_store_si512(row, _mm512_gf2p8affine_epi64_epi8(raw, low_matrix, 0xF8));
      _mm512_store_si512(row + 64, _mm512_gf2p8affine_epi64_epi8(raw, high_matrix, 0xF8));
    }
}

inline void UnpackBlock(const uint8_t* nibbles, int8_t* rows) { UnpackGroups(nibbles, rows, 0, 16); }

// One row half's two chunks of 64 K values into its tile pair, from zero, calling after(i) after
// its i-th tdpbusd. With kUnpack the B tiles are loaded from the unpacked rows and A from L1 as the
// kernel does; else all stay in tiles. (A macro: GCC's tile intrinsics paste their tile numbers
// into the assembly.)
struct NothingAfter {
  void operator()(size_t) const {}
};
#define CPUML_MULTIPLY_HALF(name, half, c0, c1, a_tile)                                 \
  template <bool kUnpack, typename After = NothingAfter>                                \
  __attribute__((always_inline)) inline void name(const int8_t* rows, const uint8_t* a, \
                                                 After&& after = After{}) {             \
    _tile_zero(c0);                                                                     \
    _tile_zero(c1);                                                                     \
    _Pragma("GCC unroll 2") for (size_t chunk = 0; chunk < 2; ++chunk) {                \
      if (kUnpack) {                                                                    \
        _tile_loadd(6, rows + chunk * 16 * 64, 64);                                     \
        _tile_loadd(7, rows + kUnpackedHalfBytes + chunk * 16 * 64, 64);                \
        _tile_loadd(a_tile, a + (half) * 16 * 128 + chunk * 64, 128);                   \
      }                                                                                 \
      _tile_dpbusd(c0, a_tile, 6);                                                      \
      after(2 * chunk);                                                                 \
      _tile_dpbusd(c1, a_tile, 7);                                                      \
      after(2 * chunk + 1);                                                             \
    }                                                                                   \
  }
CPUML_MULTIPLY_HALF(MultiplyHalf0, 0, 0, 1, 4)
CPUML_MULTIPLY_HALF(MultiplyHalf1, 1, 2, 3, 5)
#undef CPUML_MULTIPLY_HALF

template <BlockSteps kSteps, bool kUnpack>
uint64_t RunBlocks(uint64_t iterations) {
  Configure();
  BlockBuffers buf;
  StartBuffers(buf);
  LoadOperandTiles();
  const uint64_t blocks = iterations / 2;  // an iteration is a chunk of 64 K values
  if (kUnpack) UnpackBlock(g_b, buf.rows[0]);
  for (uint64_t c = 0; c < blocks; ++c) {
    const int8_t* rows = buf.rows[c % 2];
    if (kUnpack) UnpackBlock(g_b + (c % 4) * 2048, buf.rows[(c + 1) % 2]);
    MultiplyHalf0<kUnpack>(rows, g_a);
    if (c > 0) StoreHalf<1>(buf, c - 1);
    MultiplyHalf1<kUnpack>(rows, g_a);
    StoreHalf<0>(buf, c);
    if (c == 0) continue;
    if (kSteps == BlockSteps::kFloatSteps) FinishBlock(buf, c - 1);
    if (kSteps == BlockSteps::kFloatStepsY2 && c % 2 == 0) FinishTwoBlocks(buf, c - 1);
  }
  alignas(64) int32_t sink[16 * 16];
  _tile_stored(0, sink, 64);
  _tile_release();
  return blocks * 8 * kMacsPerTdpbusd + static_cast<uint64_t>(sink[0] & 0) + (buf.y[0][0] == 1e30f ? 1 : 0);
}

// Where the B tiles come from, to tell the unpacking's stores from the tile loads that read them:
// the rows just unpacked (the kernel), or rows nobody writes while the block still unpacks into
// its buffers (kStaticRows), does not unpack at all (kStaticNoUnpack), or stores the nibbles it
// loads, untransformed, into a buffer no tile reads (kStaticRawStores: the stores without their
// affine transforms or a reader).
enum class BRows { kUnpacked, kStaticRows, kStaticNoUnpack, kStaticRawStores };

inline void StoreRaw(const uint8_t* nibbles, int8_t* scratch) {
  for (size_t g = 0; g < 16; ++g)
    for (size_t half = 0; half < 2; ++half) {
      const __m512i raw = _mm512_load_si512(nibbles + g * 128 + half * 64);
      int8_t* row = scratch + half * kUnpackedHalfBytes + 2 * g * 64;
      _mm512_store_si512(row, raw);
      _mm512_store_si512(row + 64, raw);
    }
}

// RunBlocks with B unpacked, but each chunk's two B tiles loaded once for the 2 x 2 tile's four
// tdpbusd (four tile loads where a row half at a time takes six), block c's second row half
// stored after block c + 1's first two tdpbusd; with kFloatSteps the previous block's float steps
// after the first chunk.
template <BlockSteps kSteps, BRows kRows = BRows::kUnpacked>
uint64_t RunSharedBlocks(uint64_t iterations) {
  Configure();
  BlockBuffers buf;
  StartBuffers(buf);
  LoadOperandTiles();
  const uint64_t blocks = iterations / 2;
  UnpackBlock(g_b, buf.rows[0]);
  const int8_t* static_rows = reinterpret_cast<const int8_t*>(g_b);
  for (uint64_t c = 0; c < blocks; ++c) {
    const int8_t* rows = kRows == BRows::kUnpacked ? buf.rows[c % 2] : static_rows;
    if (kRows == BRows::kUnpacked || kRows == BRows::kStaticRows)
      UnpackBlock(g_b + (c % 4) * 2048, buf.rows[(c + 1) % 2]);
    if (kRows == BRows::kStaticRawStores) StoreRaw(g_b + (c % 4) * 2048, buf.rows[(c + 1) % 2]);
    _tile_zero(0);
    _tile_zero(1);
    _tile_loadd(6, rows, 64);
    _tile_loadd(7, rows + kUnpackedHalfBytes, 64);
    _tile_loadd(4, g_a, 128);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    if (c > 0) StoreHalf<1>(buf, c - 1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(5, g_a + 16 * 128, 128);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
    if (kSteps == BlockSteps::kFloatSteps && c > 0) FinishBlock(buf, c - 1);
    _tile_loadd(6, rows + 16 * 64, 64);
    _tile_loadd(7, rows + kUnpackedHalfBytes + 16 * 64, 64);
    _tile_loadd(4, g_a + 64, 128);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_loadd(5, g_a + 16 * 128 + 64, 128);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
    StoreHalf<0>(buf, c);
  }
  alignas(64) int32_t sink[16 * 16];
  _tile_stored(0, sink, 64);
  _tile_release();
  asm volatile("" : : "r"(&buf) : "memory");  // the rows stored are read, as far as the compiler knows
  return blocks * 8 * kMacsPerTdpbusd + static_cast<uint64_t>(sink[0] & 0) + (buf.y[0][0] == 1e30f ? 1 : 0);
}

// RunBlocks' kFloatSteps in the same order, but a block's work beside the tile unit cut into eight
// slices, one after each tdpbusd: four rows of the previous block's float steps (rows 0-15 in the
// first half's slices, whose sums were stored a block earlier; rows 16-31 after their pair is
// stored) and, with kUnpack, two groups of the next block's unpacking.
template <bool kUnpack>
uint64_t RunSlicedBlocks(uint64_t iterations) {
  Configure();
  BlockBuffers buf;
  StartBuffers(buf);  // the first block finishes a block of zeros, unbranched
  LoadOperandTiles();
  const uint64_t blocks = iterations / 2;
  if (kUnpack) UnpackBlock(g_b, buf.rows[0]);
  for (uint64_t c = 0; c < blocks; ++c) {
    const int8_t* rows = buf.rows[c % 2];
    int8_t* next = buf.rows[(c + 1) % 2];
    const uint8_t* nibbles = g_b + (c % 4) * 2048;
    auto slice = [&](size_t n) __attribute__((always_inline)) {
      if (kUnpack) UnpackGroups(nibbles, next, 2 * n, 2);
      FinishRows(buf, c + kSumBuffers - 1, 4 * n, 4);
    };
    MultiplyHalf0<kUnpack>(rows, g_a, [&](size_t i) __attribute__((always_inline)) { slice(i); });
    StoreHalf<1>(buf, c + kSumBuffers - 1);
    MultiplyHalf1<kUnpack>(rows, g_a, [&](size_t i) __attribute__((always_inline)) { slice(4 + i); });
    StoreHalf<0>(buf, c);
  }
  alignas(64) int32_t sink[16 * 16];
  _tile_stored(0, sink, 64);
  _tile_release();
  return blocks * 8 * kMacsPerTdpbusd + static_cast<uint64_t>(sink[0] & 0) + (buf.y[0][0] == 1e30f ? 1 : 0);
}

// Eight tdpbusd a block of 128 K values with operands in tiles (each row half's pair zeroed first),
// and kSteps float steps on registers a block, in kSlices slices after the block's tdpbusd (1:
// all after the eighth; 8: one slice after each): whether the vector units' work overlaps the tile
// unit's at all, and whether its order in the instruction stream decides it.
template <size_t kSteps, size_t kSlices, bool kMagic = false>
uint64_t RunRegisterSteps(uint64_t iterations) {
  Configure();
  LoadOperandTiles();
  RegisterSteps steps = StartSteps();
  const __m512 b = _mm512_set1_ps(1.5f);
  // Slices after the tdpbusd numbered 1..8 of a block: all after the eighth, or one after each.
  constexpr size_t kSliceSteps = kSteps / kSlices, kEvery = 8 / kSlices;
  const uint64_t blocks = iterations / 2;
  for (uint64_t c = 0; c < blocks; ++c) {
    MultiplyHalf0<false>(nullptr, nullptr, [&](size_t i) __attribute__((always_inline)) {
      if ((i + 1) % kEvery == 0) RunSteps<kSliceSteps, kMagic>(steps, b);
    });
    MultiplyHalf1<false>(nullptr, nullptr, [&](size_t i) __attribute__((always_inline)) {
      if ((4 + i + 1) % kEvery == 0) RunSteps<kSliceSteps, kMagic>(steps, b);
    });
  }
  alignas(64) int32_t sink[16 * 16];
  _tile_stored(0, sink, 64);
  _tile_release();
  const float sum = StepsSink(steps);
  return blocks * 8 * kMacsPerTdpbusd + static_cast<uint64_t>(sink[0] & 0) + (sum == 1e30f ? 1 : 0);
}

// Which vector instructions issue beside the tile unit, and at what rate: eight tdpbusd a block of
// 128 K values with operands in tiles, and 256 independent instances of one vector instruction a
// block (32 after each tdpbusd, on 16 rotating registers that an empty asm renews, so no chain
// and no load or store). 256 instructions in the 128 cycles of the block's eight tdpbusd at full
// speed is two a cycle: a probe at the tile rate issues two a cycle beside the unit, at half of
// it one. The formula's float steps (a conversion, two multiplies, an add) and the epilogues'
// conversions, packs and unpacking shifts and affine transforms each get a row.
enum class VectorOp {
  kAddPs, kMulPs, kCvtDq2Ps, kCvtPs2Dq, kAddD, kTernlog, kAffine, kShufB, kSrlW, kPacksDw,
  kAddPsYmm, kMulPsYmm, kCvtDq2PsYmm, kPaddDYmm, kPermB, kMultishiftQB,
  // Two instructions in turn, 128 of each: one a cycle of the pair if they share a port, two if not.
  kAffineThenPermB, kCvtDq2PsThenPermB, kAffineThenShufB,
};
constexpr bool IsYmm(VectorOp op) {
  return op == VectorOp::kAddPsYmm || op == VectorOp::kMulPsYmm || op == VectorOp::kCvtDq2PsYmm ||
         op == VectorOp::kPaddDYmm;
}

// vpermb (AVX512_VBMI, which the amx tier's flags leave out; every AMX core has it) as assembly:
// the bytes of `table` that the low six bits of each byte of `index` pick.
__attribute__((always_inline)) inline __m512i PermB(__m512i index, __m512i table) {
  __m512i r;
  asm("vpermb %2, %1, %0" : "=v"(r) : "v"(index), "v"(table));
  return r;
}

template <VectorOp kOp>
__attribute__((always_inline)) inline void VectorOpSlice(__m512i (&v)[16], __m256i (&w)[16]) {
  const __m512i c = _mm512_set1_epi32(0x3F8000F1);
  const __m256i cy = _mm256_set1_epi32(0x3F8000F1);
#pragma GCC unroll 32
  for (size_t i = 0; i < 32; ++i) {
    const size_t j = i % 16;
    if constexpr (IsYmm(kOp)) {
      asm("" : "+v"(w[j]));
      __m256i r;
      if constexpr (kOp == VectorOp::kAddPsYmm) r = _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(w[j]), _mm256_castsi256_ps(cy)));
      if constexpr (kOp == VectorOp::kMulPsYmm) r = _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(w[j]), _mm256_castsi256_ps(cy)));
      if constexpr (kOp == VectorOp::kCvtDq2PsYmm) r = _mm256_castps_si256(_mm256_cvtepi32_ps(w[j]));
      if constexpr (kOp == VectorOp::kPaddDYmm) r = _mm256_add_epi32(w[j], cy);
      asm volatile("" : : "v"(r));
    } else {
      asm("" : "+v"(v[j]));
      __m512i r;
      if constexpr (kOp == VectorOp::kAddPs) r = _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(v[j]), _mm512_castsi512_ps(c)));
      if constexpr (kOp == VectorOp::kMulPs) r = _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(v[j]), _mm512_castsi512_ps(c)));
      if constexpr (kOp == VectorOp::kCvtDq2Ps) r = _mm512_castps_si512(_mm512_cvtepi32_ps(v[j]));
      if constexpr (kOp == VectorOp::kCvtPs2Dq) r = _mm512_cvtps_epi32(_mm512_castsi512_ps(v[j]));
      if constexpr (kOp == VectorOp::kAddD) r = _mm512_add_epi32(v[j], c);
      // (in place: vpternlogd overwrites its first operand, and a copy would be a second instruction)
      if constexpr (kOp == VectorOp::kTernlog) r = v[j] = _mm512_ternarylogic_epi32(v[j], c, v[(j + 1) % 16], 0x6A);
      if constexpr (kOp == VectorOp::kAffine) r = _mm512_gf2p8affine_epi64_epi8(v[j], c, 0xF8);
      if constexpr (kOp == VectorOp::kShufB) r = _mm512_shuffle_epi8(c, v[j]);
      if constexpr (kOp == VectorOp::kSrlW) r = _mm512_srli_epi16(v[j], 4);
      if constexpr (kOp == VectorOp::kPacksDw) r = _mm512_packs_epi32(v[j], c);
      if constexpr (kOp == VectorOp::kPermB) r = PermB(v[j], c);
      if constexpr (kOp == VectorOp::kMultishiftQB) asm("vpmultishiftqb %2, %1, %0" : "=v"(r) : "v"(c), "v"(v[j]));
      if constexpr (kOp == VectorOp::kAffineThenPermB || kOp == VectorOp::kAffineThenShufB) {
        if (i % 2 == 0) r = _mm512_gf2p8affine_epi64_epi8(v[j], c, 0xF8);
        else r = kOp == VectorOp::kAffineThenShufB ? _mm512_shuffle_epi8(c, v[j]) : PermB(v[j], c);
      }
      if constexpr (kOp == VectorOp::kCvtDq2PsThenPermB)
        r = i % 2 == 0 ? _mm512_castps_si512(_mm512_cvtepi32_ps(v[j])) : PermB(v[j], c);
      asm volatile("" : : "v"(r));
    }
  }
}

template <VectorOp kOp>
uint64_t RunVectorOps(uint64_t iterations) {
  Configure();
  LoadOperandTiles();
  __m512i v[16];
  __m256i w[16];
  for (size_t j = 0; j < 16; ++j) {
    // Normal floats read as either type (a multiply of subnormals would take the slow path).
    v[j] = _mm512_castps_si512(_mm512_set1_ps(1.0f + static_cast<float>(j) / 16));
    w[j] = _mm256_castps_si256(_mm256_set1_ps(1.0f + static_cast<float>(j) / 16));
  }
  const uint64_t blocks = iterations / 2;
  for (uint64_t c = 0; c < blocks; ++c) {
    MultiplyHalf0<false>(nullptr, nullptr, [&](size_t) __attribute__((always_inline)) { VectorOpSlice<kOp>(v, w); });
    MultiplyHalf1<false>(nullptr, nullptr, [&](size_t) __attribute__((always_inline)) { VectorOpSlice<kOp>(v, w); });
  }
  alignas(64) int32_t sink[16 * 16];
  _tile_stored(0, sink, 64);
  _tile_release();
  return blocks * 8 * kMacsPerTdpbusd + static_cast<uint64_t>(sink[0] & 0);
}

}  // namespace

// The beside probes for IsaPeakProbes (bench/isa_peak.cc), one row an instruction.
extern const IsaPeakProbe kAmxBesideProbes[];
extern const size_t kAmxBesideProbeCount;
#define CPUML_BESIDE(name, instruction, op)                                                              \
  {"amx_beside_" name, "eight tdpbusd with 256 " instruction " beside them (two a cycle of the tile unit's)", \
   [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, RunVectorOps<VectorOp::op>}
const IsaPeakProbe kAmxBesideProbes[] = {
    CPUML_BESIDE("addps", "vaddps zmm", kAddPs),
    CPUML_BESIDE("mulps", "vmulps zmm", kMulPs),
    CPUML_BESIDE("cvtdq2ps", "vcvtdq2ps zmm", kCvtDq2Ps),
    CPUML_BESIDE("cvtps2dq", "vcvtps2dq zmm", kCvtPs2Dq),
    CPUML_BESIDE("paddd", "vpaddd zmm", kAddD),
    CPUML_BESIDE("pternlogd", "vpternlogd zmm", kTernlog),
    CPUML_BESIDE("gf2p8affineqb", "vgf2p8affineqb zmm", kAffine),
    CPUML_BESIDE("pshufb", "vpshufb zmm", kShufB),
    CPUML_BESIDE("psrlw", "vpsrlw zmm, imm", kSrlW),
    CPUML_BESIDE("packssdw", "vpackssdw zmm", kPacksDw),
    CPUML_BESIDE("addps_ymm", "vaddps ymm", kAddPsYmm),
    CPUML_BESIDE("mulps_ymm", "vmulps ymm", kMulPsYmm),
    CPUML_BESIDE("cvtdq2ps_ymm", "vcvtdq2ps ymm", kCvtDq2PsYmm),
    CPUML_BESIDE("paddd_ymm", "vpaddd ymm", kPaddDYmm),
    CPUML_BESIDE("permb", "vpermb zmm", kPermB),
    CPUML_BESIDE("pmultishiftqb", "vpmultishiftqb zmm", kMultishiftQB),
    CPUML_BESIDE("gf2p8affineqb_permb", "vgf2p8affineqb and vpermb zmm in turn", kAffineThenPermB),
    CPUML_BESIDE("cvtdq2ps_permb", "vcvtdq2ps and vpermb zmm in turn", kCvtDq2PsThenPermB),
    CPUML_BESIDE("gf2p8affineqb_pshufb", "vgf2p8affineqb and vpshufb zmm in turn", kAffineThenShufB),
};
#undef CPUML_BESIDE
const size_t kAmxBesideProbeCount = sizeof kAmxBesideProbes / sizeof kAmxBesideProbes[0];
uint64_t IsaPeakAmxB128RegistersSliced(uint64_t iterations) { return RunRegisterSteps<64, 8>(iterations); }
uint64_t IsaPeakAmxB128RegistersSlicedMagic(uint64_t iterations) { return RunRegisterSteps<64, 8, true>(iterations); }
uint64_t IsaPeakAmxB128FloatInRegisters(uint64_t iterations) { return RunRegisterSteps<64, 1>(iterations); }
uint64_t IsaPeakAmxB128HalfRegisters(uint64_t iterations) { return RunRegisterSteps<32, 1>(iterations); }
uint64_t IsaPeakAmxB128HalfRegistersSliced(uint64_t iterations) { return RunRegisterSteps<32, 8>(iterations); }
uint64_t IsaPeakAmxB128QuarterRegistersSliced(uint64_t iterations) { return RunRegisterSteps<16, 8>(iterations); }
uint64_t IsaPeakAmxB128FloatStepsSliced(uint64_t iterations) { return RunSlicedBlocks<false>(iterations); }
uint64_t IsaPeakAmxB128UnpackedSliced(uint64_t iterations) { return RunSlicedBlocks<true>(iterations); }
uint64_t IsaPeakAmxB128SumsStored(uint64_t iterations) { return RunBlocks<BlockSteps::kSumsStored, false>(iterations); }
uint64_t IsaPeakAmxB128FloatSteps(uint64_t iterations) { return RunBlocks<BlockSteps::kFloatSteps, false>(iterations); }
uint64_t IsaPeakAmxB128FloatStepsY2(uint64_t iterations) {
  return RunBlocks<BlockSteps::kFloatStepsY2, false>(iterations);
}
uint64_t IsaPeakAmxB128Unpacked(uint64_t iterations) { return RunBlocks<BlockSteps::kFloatSteps, true>(iterations); }
uint64_t IsaPeakAmxB128UnpackedY2(uint64_t iterations) { return RunBlocks<BlockSteps::kFloatStepsY2, true>(iterations); }
uint64_t IsaPeakAmxB128UnpackedOnly(uint64_t iterations) { return RunBlocks<BlockSteps::kSumsStored, true>(iterations); }
uint64_t IsaPeakAmxB128SharedUnpackedOnly(uint64_t iterations) { return RunSharedBlocks<BlockSteps::kSumsStored>(iterations); }
uint64_t IsaPeakAmxB128SharedUnpacked(uint64_t iterations) { return RunSharedBlocks<BlockSteps::kFloatSteps>(iterations); }
uint64_t IsaPeakAmxB128StaticRows(uint64_t iterations) {
  return RunSharedBlocks<BlockSteps::kSumsStored, BRows::kStaticRows>(iterations);
}
uint64_t IsaPeakAmxB128StaticNoUnpack(uint64_t iterations) {
  return RunSharedBlocks<BlockSteps::kSumsStored, BRows::kStaticNoUnpack>(iterations);
}
uint64_t IsaPeakAmxB128StaticRawStores(uint64_t iterations) {
  return RunSharedBlocks<BlockSteps::kSumsStored, BRows::kStaticRawStores>(iterations);
}

// The u8s8 tile kernel's loop over whole tiles of K = 1024, as qgemm_u8s8_32x32c64__amx runs a
// 1024^3 call: sixteen K groups a tile, A streamed from L2, the B panel's 32 KB in L1, each tile's
// four accumulators started from zero and stored at its end, and the previous tile's output rows
// stored four a group from its third group on, as the deferred epilogue stores them (each row's 32
// bytes loaded from the stored sums). What the tile's end costs against amx_tdpbusd_a_from_l2, and
// what the output's stores cost on top, by where they go:
//   TileEnd::kSameTiles     every tile on accumulators 0-3 (the kernel);
//   TileEnd::kSwappedRoles  odd tiles on tiles 4-7 as accumulators and 0-3 as operands, so a
//                           tile's first tdpbusd need not wait on the previous tile's stores;
//   OutputStores::kFarRows  the rows into an 8 MB output of 1024-byte rows, tile by tile as a row
//                           block of eight tiles walks its 32 panels: half a line a row, each line
//                           new to L2 when its first half is stored;
//   OutputStores::kFarLines the same bytes as whole lines, stored once for two panels.
enum class TileEnd { kSameTiles, kSwappedRoles };
enum class OutputStores { kNone, kFarRows, kFarLines };

constexpr size_t kPanelBytes = 16 * kGroupBytes;
constexpr size_t kFarRowBytes = 1024, kFarRows = 8192;
alignas(64) uint8_t g_panel[kPanelBytes];
alignas(64) int32_t g_sums[32][32];

uint8_t* FarOutput() {
  static uint8_t* out = [] {
    uint8_t* p = static_cast<uint8_t*>(aligned_alloc(64, kFarRowBytes * kFarRows));
    memset(p, 1, kFarRowBytes * kFarRows);
    return p;
  }();
  return out;
}

#define CPUML_PROBE_GROUP(c0, c1, c2, c3, a0, a1, b0, b1, a, b) \
  _tile_stream_loadd(a0, a, 64);                               \
  _tile_loadd(b0, b, 128);                                      \
  _tile_loadd(b1, (b) + 64, 128);                               \
  _tile_stream_loadd(a1, (a) + 1024, 64);                       \
  _tile_dpbusd(c0, a0, b0);                                     \
  _tile_dpbusd(c1, a0, b1);                                     \
  _tile_dpbusd(c2, a1, b0);                                     \
  _tile_dpbusd(c3, a1, b1)
#define CPUML_PROBE_ZERO(c0, c1, c2, c3) \
  _tile_zero(c0);                        \
  _tile_zero(c1);                        \
  _tile_zero(c2);                        \
  _tile_zero(c3)
#define CPUML_PROBE_STORE(c0, c1, c2, c3)           \
  _tile_stored(c0, &g_sums[0][0], 128);             \
  _tile_stored(c1, &g_sums[0][16], 128);            \
  _tile_stored(c2, &g_sums[16][0], 128);            \
  _tile_stored(c3, &g_sums[16][16], 128)

// Tile t of the simulated walk: output row of its first row, and its panel.
template <OutputStores kOut>
inline void StoreOutputRows(uint64_t t, size_t first_row, size_t rows) {
  const size_t panel = t / 8 % 32, row0 = (t / 256 * 256 + t % 8 * 32) % kFarRows;
  for (size_t r = first_row; r < first_row + rows; ++r) {
    if constexpr (kOut == OutputStores::kFarRows) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(FarOutput() + (row0 + r) * kFarRowBytes + panel * 32),
                         _mm256_load_si256(reinterpret_cast<const __m256i*>(&g_sums[r][0])));
    } else if constexpr (kOut == OutputStores::kFarLines) {
      if (panel % 2)
        _mm512_store_si512(FarOutput() + (row0 + r) * kFarRowBytes + (panel - 1) * 32,
                           _mm512_load_si512(&g_sums[r][0]));
    }
  }
}

template <bool kSecondRoles, OutputStores kOut>
inline void ProbeTile(uint64_t t, size_t& a) {
  if constexpr (kSecondRoles) {
    CPUML_PROBE_ZERO(4, 5, 6, 7);
  } else {
    CPUML_PROBE_ZERO(0, 1, 2, 3);
  }
  for (size_t g = 0; g < 16; ++g) {
    const uint8_t* ag = g_a + a;
    const uint8_t* bg = g_panel + g * kGroupBytes;
    if constexpr (kSecondRoles) {
      CPUML_PROBE_GROUP(4, 5, 6, 7, 0, 1, 2, 3, ag, bg);
    } else {
      CPUML_PROBE_GROUP(0, 1, 2, 3, 4, 5, 6, 7, ag, bg);
    }
    a = a + kGroupBytes == kL2Bytes ? 0 : a + kGroupBytes;
    if (kOut != OutputStores::kNone && t > 0 && g >= 2 && g < 10) StoreOutputRows<kOut>(t - 1, (g - 2) * 4, 4);
  }
  if constexpr (kSecondRoles) {
    CPUML_PROBE_STORE(4, 5, 6, 7);
  } else {
    CPUML_PROBE_STORE(0, 1, 2, 3);
  }
}
#undef CPUML_PROBE_STORE
#undef CPUML_PROBE_ZERO
#undef CPUML_PROBE_GROUP

template <TileEnd kEnd, OutputStores kOut>
uint64_t RunTiles(uint64_t iterations) {
  Configure();
  static const bool filled = [] {
    for (size_t i = 0; i < kPanelBytes; ++i) g_panel[i] = static_cast<uint8_t>(i * 53 + 7);
    if (kOut == OutputStores::kFarRows || kOut == OutputStores::kFarLines) FarOutput();
    return true;
  }();
  (void)filled;
  const uint64_t tiles = iterations / 16;  // an iteration is a K group of four tdpbusd
  size_t a = 0;
  for (uint64_t t = 0; t < tiles; ++t) {
    if (kEnd == TileEnd::kSwappedRoles && t % 2)
      ProbeTile<true, kOut>(t, a);
    else
      ProbeTile<false, kOut>(t, a);
  }
  _tile_release();
  return tiles * 16 * 4 * kMacsPerTdpbusd + static_cast<uint64_t>(g_sums[0][0] & 0);
}

uint64_t IsaPeakAmxTiles(uint64_t iterations) { return RunTiles<TileEnd::kSameTiles, OutputStores::kNone>(iterations); }
uint64_t IsaPeakAmxTilesSwapped(uint64_t iterations) {
  return RunTiles<TileEnd::kSwappedRoles, OutputStores::kNone>(iterations);
}
uint64_t IsaPeakAmxTilesFarRows(uint64_t iterations) {
  return RunTiles<TileEnd::kSameTiles, OutputStores::kFarRows>(iterations);
}
uint64_t IsaPeakAmxTilesFarLines(uint64_t iterations) {
  return RunTiles<TileEnd::kSameTiles, OutputStores::kFarLines>(iterations);
}

// The same tiles as one thread's 1024^3 call walks them (the front end's row block of eight
// tiles, 256 KB of packed A in L2, over B's 32 panels of 32 KB, 1 MB in all), every operand a
// real address of its own, each tile asking its eighth of the next panel into L2 four lines a K
// group (BlockPrefetch, as the kernel does): the row block's walk against the tile loop above.
// With kRows the previous tile's output rows are stored as the deferred epilogue stores them,
// into a 1 MB output of 1024-byte rows.
constexpr size_t kBlockTiles = 8, kPanels = 32, kTileABytes = 16 * 2048;
uint8_t* RowBlockBuffer(size_t bytes, int seed) {
  uint8_t* p = static_cast<uint8_t*>(aligned_alloc(4096, bytes));
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(i * 29 + seed);
  return p;
}

template <bool kRows>
uint64_t RunRowBlock(uint64_t iterations) {
  Configure();
  static uint8_t* const a_block = RowBlockBuffer(kBlockTiles * kTileABytes, 3);
  static uint8_t* const b_all = RowBlockBuffer(kPanels * kPanelBytes, 5);
  static uint8_t* const out = RowBlockBuffer(1024 * 1024, 7);
  const uint64_t tiles = iterations / 16;
  uint64_t t = 0;
  size_t out_row_block = 0;
  while (t < tiles) {
    for (size_t panel = 0; panel < kPanels && t < tiles; ++panel) {
      const uint8_t* b = b_all + panel * kPanelBytes;
      const char* next = reinterpret_cast<const char*>(b_all + (panel + 1) % kPanels * kPanelBytes);
      for (size_t tile = 0; tile < kBlockTiles && t < tiles; ++tile, ++t) {
        const uint8_t* a = a_block + tile * kTileABytes;
        const char* share = next + tile * (kPanelBytes / kBlockTiles);
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
        for (size_t g = 0; g < 16; ++g) {
          for (size_t l = 0; l < 4; ++l) _mm_prefetch(share + (g * 4 + l) * 64, _MM_HINT_T1);
          _tile_stream_loadd(4, a + g * kGroupBytes, 64);
          _tile_loadd(6, b + g * kGroupBytes, 128);
          _tile_loadd(7, b + g * kGroupBytes + 64, 128);
          _tile_stream_loadd(5, a + g * kGroupBytes + 1024, 64);
          _tile_dpbusd(0, 4, 6);
          _tile_dpbusd(1, 4, 7);
          _tile_dpbusd(2, 5, 6);
          _tile_dpbusd(3, 5, 7);
          if constexpr (kRows) {
            if (t > 0 && g >= 2 && g < 10) {
              // The previous tile: its panel and row tile.
              const size_t prev_tile = tile ? tile - 1 : kBlockTiles - 1;
              const size_t prev_panel = tile ? panel : (panel ? panel - 1 : kPanels - 1);
              for (size_t r = (g - 2) * 4; r < (g - 2) * 4 + 4; ++r)
                _mm256_store_si256(reinterpret_cast<__m256i*>(out + (out_row_block * 256 + prev_tile * 32 + r) * 1024 +
                                                              prev_panel * 32),
                                   _mm256_load_si256(reinterpret_cast<const __m256i*>(&g_sums[r][0])));
            }
          }
        }
        _tile_stored(0, &g_sums[0][0], 128);
        _tile_stored(1, &g_sums[0][16], 128);
        _tile_stored(2, &g_sums[16][0], 128);
        _tile_stored(3, &g_sums[16][16], 128);
      }
    }
    out_row_block = (out_row_block + 1) % 4;
  }
  _tile_release();
  return tiles * 16 * 4 * kMacsPerTdpbusd + static_cast<uint64_t>(g_sums[0][0] & 0);
}

uint64_t IsaPeakAmxRowBlock(uint64_t iterations) { return RunRowBlock<false>(iterations); }
uint64_t IsaPeakAmxRowBlockRows(uint64_t iterations) { return RunRowBlock<true>(iterations); }

uint64_t IsaPeakAmx(uint64_t iterations) { return Run<kL1Bytes, false>(iterations); }
uint64_t IsaPeakAmxL1(uint64_t iterations) { return Run<kL1Bytes, true>(iterations); }
uint64_t IsaPeakAmxL2A(uint64_t iterations) { return Run<kL2Bytes, true>(iterations); }
uint64_t IsaPeakAmxK32(uint64_t iterations) { return Run<kL1Bytes, false, 32>(iterations); }
uint64_t IsaPeakAmxK16(uint64_t iterations) { return Run<kL1Bytes, false, 16>(iterations); }

}  // namespace cpuml_bench
