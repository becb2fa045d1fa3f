// qgemm_s8u4_1x16c8__neondot, qgemm_s8u4_4x16c8__neondot and qgemm_s8u4_8x16c8__neondot: 4-bit B in
// blocks (kS8U4Blocks, kernels/kernels.h), one row (M = 1, LLM decode), up to four or up to
// eight, FEAT_DotProd.
//
// A group of a column is 4 bytes, so 16 bytes of the panel are 4 columns: masked, the low nibbles
// are each column's first K quad, shifted, the high ones the second, both in [0, 15], which sdot
// multiplies as s8 by A's quads straight into int32: every sum is the exact one, and the float
// steps are the formula's, lane by lane, so the bits are every tier's.
#include <arm_neon.h>
#include <string.h>

#include <utility>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace neon_dotprod {
namespace {

constexpr size_t kMr = 4, kWideMr = 8, kNr = 16, kKr = 8;
constexpr size_t kGroupBytes = kNr * kKr / 2, kVectors = kNr / 4;
// Groups whose column-sum bytes (two nibbles each, <= 30 a group) are added before sdot widens them.
constexpr size_t kGroupsPerWiden = 4;

// Row r's two quads of group g as the lanes of one int8x8 (sdot by element picks a lane).
template <size_t kAStride>
inline int8x8_t RowGroup(const int8_t* a, size_t g, size_t r) {
  return vld1_s8(a + (g * kAStride + r) * kKr);
}

// Columns [kFirst, kFirst + kCount) of the panel (4 per vector) over one block.
template <size_t kRows, size_t kAStride, bool kColumnSums, size_t kFirst, size_t kCount>
inline void BlockSumsOfVectors(size_t groups, const int8_t* a, const uint8_t* b, int32x4_t (&dot)[kRows][kVectors],
                               int32x4_t (&column_sum)[kVectors]) {
  const uint8x16_t mask = vdupq_n_u8(0x0F);
  const int8x16_t ones = vdupq_n_s8(1);
  // One row streams B: the high nibbles' sdot go to accumulators of their own, so eight chains
  // are in flight instead of four.
  constexpr bool kSplit = kRows == 1;
  int32x4_t high_dot[kVectors];
  uint8x16_t column_bytes[kVectors];
  for (size_t v = kFirst; v < kFirst + kCount; ++v) {
    high_dot[v] = column_sum[v] = vdupq_n_s32(0);
    column_bytes[v] = vdupq_n_u8(0);
    for (size_t r = 0; r < kRows; ++r) dot[r][v] = vdupq_n_s32(0);
  }
  // Runs of kGroupsPerWiden groups, the column sums' bytes widened after each: a loop of its own,
  // so the group loop carries no test.
  for (size_t g0 = 0; g0 < groups; g0 += kGroupsPerWiden) {
    const size_t end = groups - g0 < kGroupsPerWiden ? groups : g0 + kGroupsPerWiden;
    for (size_t g = g0; g < end; ++g) {
      int8x8_t quads[kRows];
      for (size_t r = 0; r < kRows; ++r) quads[r] = RowGroup<kAStride>(a, g, r);
      for (size_t v = kFirst; v < kFirst + kCount; ++v) {
        const uint8x16_t raw = vld1q_u8(b + g * kGroupBytes + 16 * v);
        const uint8x16_t low = vandq_u8(raw, mask), high = vshrq_n_u8(raw, 4);
        if (kColumnSums) column_bytes[v] = vaddq_u8(column_bytes[v], vaddq_u8(low, high));
        for (size_t r = 0; r < kRows; ++r) {
          dot[r][v] = vdotq_lane_s32(dot[r][v], vreinterpretq_s8_u8(low), quads[r], 0);
          if (kSplit)
            high_dot[v] = vdotq_lane_s32(high_dot[v], vreinterpretq_s8_u8(high), quads[r], 1);
          else
            dot[r][v] = vdotq_lane_s32(dot[r][v], vreinterpretq_s8_u8(high), quads[r], 1);
        }
      }
    }
    if (kColumnSums)
      for (size_t v = kFirst; v < kFirst + kCount; ++v) {
        column_sum[v] = vdotq_s32(column_sum[v], vreinterpretq_s8_u8(column_bytes[v]), ones);
        column_bytes[v] = vdupq_n_u8(0);
      }
  }
  if (kSplit)
    for (size_t v = kFirst; v < kFirst + kCount; ++v) dot[0][v] = vaddq_s32(dot[0][v], high_dot[v]);
}

// Columns [kFirst, kFirst + kCount) over one block for five to eight rows (kR... = 0..kRows-1).
// A's group is then 64 bytes, two rows to a q register (row 2i's quads in lanes 0-1, row 2i + 1's
// in lanes 2-3): four registers where eight d registers would take eight, which is what lets the
// loop keep its sixteen accumulators without moves (llvm-mca: 0.84 -> 0.89 of sdot's peak).
template <size_t kRows, bool kColumnSums, size_t kFirst, size_t kCount, size_t... kR>
inline void WideBlockSums(size_t groups, const int8_t* a, const uint8_t* b, int32x4_t (&dot)[kRows][kVectors],
                          int32x4_t (&column_sum)[kVectors], std::index_sequence<kR...>) {
  const uint8x16_t mask = vdupq_n_u8(0x0F);
  const int8x16_t ones = vdupq_n_s8(1);
  uint8x16_t column_bytes[kVectors];
  for (size_t v = kFirst; v < kFirst + kCount; ++v) {
    column_sum[v] = vdupq_n_s32(0);
    column_bytes[v] = vdupq_n_u8(0);
    for (size_t r = 0; r < kRows; ++r) dot[r][v] = vdupq_n_s32(0);
  }
  for (size_t g0 = 0; g0 < groups; g0 += kGroupsPerWiden) {
    const size_t end = groups - g0 < kGroupsPerWiden ? groups : g0 + kGroupsPerWiden;
    for (size_t g = g0; g < end; ++g) {
      int8x16_t pairs[(kRows + 1) / 2];
      for (size_t i = 0; i < (kRows + 1) / 2; ++i) pairs[i] = vld1q_s8(a + (g * kWideMr + 2 * i) * kKr);
      for (size_t v = kFirst; v < kFirst + kCount; ++v) {
        const uint8x16_t raw = vld1q_u8(b + g * kGroupBytes + 16 * v);
        const uint8x16_t low = vandq_u8(raw, mask), high = vshrq_n_u8(raw, 4);
        if (kColumnSums) column_bytes[v] = vaddq_u8(column_bytes[v], vaddq_u8(low, high));
        ((dot[kR][v] = vdotq_laneq_s32(dot[kR][v], vreinterpretq_s8_u8(low), pairs[kR / 2], (kR % 2) * 2)), ...);
        ((dot[kR][v] = vdotq_laneq_s32(dot[kR][v], vreinterpretq_s8_u8(high), pairs[kR / 2], (kR % 2) * 2 + 1)), ...);
      }
    }
    if (kColumnSums)
      for (size_t v = kFirst; v < kFirst + kCount; ++v) {
        column_sum[v] = vdotq_s32(column_sum[v], vreinterpretq_s8_u8(column_bytes[v]), ones);
        column_bytes[v] = vdupq_n_u8(0);
      }
  }
}

// More than two rows run the panel's two halves one after the other: sixteen accumulators, the
// nibbles and the column sums of a whole panel need more than the 32 registers (the four-row loop
// spilled, llvm-mca: 291 instructions for 44 sdot), those of a half do not. A's quads, read twice,
// are a few bytes a group.
template <size_t kRows, size_t kAStride, bool kColumnSums>
inline void BlockSums(size_t groups, const int8_t* a, const uint8_t* b, int32x4_t (&dot)[kRows][kVectors],
                      int32x4_t (&column_sum)[kVectors]) {
  if constexpr (kRows > 2) {
    BlockSumsOfVectors<kRows, kAStride, kColumnSums, 0, kVectors / 2>(groups, a, b, dot, column_sum);
    BlockSumsOfVectors<kRows, kAStride, kColumnSums, kVectors / 2, kVectors / 2>(groups, a, b, dot, column_sum);
  } else {
    BlockSumsOfVectors<kRows, kAStride, kColumnSums, 0, kVectors>(groups, a, b, dot, column_sum);
  }
}

// Block c's float steps for vectors [kFirst, kFirst + kCount) of its sums.
template <size_t kRows, bool kColumnSums, size_t kFirst, size_t kCount>
inline void AddBlock(const QGemmBlocks& blocks, size_t c, const uint8_t* zero_points,
                     const int32x4_t (&dot)[kRows][kVectors], const int32x4_t (&column_sum)[kVectors],
                     float32x4_t (&y)[kRows][kVectors]) {
  const uint8x16_t zero_bytes = vld1q_u8(zero_points);
  const uint16x8_t zero_low = vmovl_u8(vget_low_u8(zero_bytes)), zero_high = vmovl_u8(vget_high_u8(zero_bytes));
  const int32x4_t zero_point[kVectors] = {
      vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(zero_low))), vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(zero_low))),
      vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(zero_high))), vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(zero_high)))};
  const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
  const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
  const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
  float32x4_t b_scale[kVectors];
  for (size_t v = kFirst; v < kFirst + kCount; ++v)
    b_scale[v] = blocks.b_scale_half
                     ? vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(blocks.b_scale_half + c * blocks.b_scale_stride + 4 * v)))
                     : vld1q_f32(blocks.b_scale + c * blocks.b_scale_stride + 4 * v);
  for (size_t r = 0; r < kRows; ++r)
    for (size_t v = kFirst; v < kFirst + kCount; ++v) {
      // Integer multiply-adds wrap mod 2^32 like the formula's; the float steps stay separate
      // (the library is built with -ffp-contract=off).
      int32x4_t s = vmlaq_n_s32(dot[r][v], zero_point[v], row_b[r]);
      if (kColumnSums) s = vmlaq_n_s32(s, column_sum[v], row_a[r]);
      const float32x4_t scale = vmulq_f32(vdupq_n_f32(a_scale[r]), b_scale[v]);
      y[r][v] = vaddq_f32(y[r][v], vmulq_f32(vcvtq_f32_s32(s), scale));
    }
}

template <size_t kRows, size_t kAStride, bool kColumnSums>
void Tile(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  float32x4_t y[kRows][kVectors];
  for (size_t r = 0; r < kRows; ++r)
    for (size_t v = 0; v < kVectors; ++v) y[r][v] = vdupq_n_f32(-0.0f);  // -0 + p is p: the first y = p
  for (size_t c = 0; c < blocks.count; ++c) {
    const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
    const uint8_t* b = b_panel + c * blocks.b_stride;
    const int8_t* a = reinterpret_cast<const int8_t*>(a_tile + c * blocks.a_stride);
    const uint8_t* zero = blocks.zero_points ? blocks.zero_points : b + groups * kGroupBytes;
    int32x4_t dot[kRows][kVectors], column_sum[kVectors];
    if constexpr (kRows > kMr) {
      // Five to eight rows: each half of the panel's sums goes into y before the other half's
      // loop, so that loop holds sixteen accumulators, not 32 (y waits in memory meanwhile). Each
      // unpacked vector of nibbles then feeds sixteen sdot for its mask and shift, against eight
      // at four rows.
      static_assert(kAStride == kWideMr, "eight rows read A's groups as pairs of rows");
      WideBlockSums<kRows, kColumnSums, 0, kVectors / 2>(groups, a, b, dot, column_sum, std::make_index_sequence<kRows>());
      AddBlock<kRows, kColumnSums, 0, kVectors / 2>(blocks, c, zero, dot, column_sum, y);
      WideBlockSums<kRows, kColumnSums, kVectors / 2, kVectors / 2>(groups, a, b, dot, column_sum,
                                                                    std::make_index_sequence<kRows>());
      AddBlock<kRows, kColumnSums, kVectors / 2, kVectors / 2>(blocks, c, zero, dot, column_sum, y);
    } else {
      BlockSums<kRows, kAStride, kColumnSums>(groups, a, b, dot, column_sum);
      AddBlock<kRows, kColumnSums, 0, kVectors>(blocks, c, zero, dot, column_sum, y);
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    // The bias array is padded to whole panels (the front end's QGemmQuantization).
    if (p->bias)
      for (size_t v = 0; v < kVectors; ++v) y[r][v] = vaddq_f32(y[r][v], vld1q_f32(p->bias + 4 * v));
    float row[kNr];
    for (size_t v = 0; v < kVectors; ++v) vst1q_f32(row + 4 * v, y[r][v]);
    memcpy(static_cast<uint8_t*>(p->out) + r * p->out_row_stride, row, nr * sizeof(float));
  }
}

// Column sums only where some row's A zero point is not 0 in the s8 domain (row_a is the same for
// every block).
template <size_t kRows, size_t kAStride>
void TileRows(size_t nr, const void* a_packed, const void* b_packed, const QGemmTileParams* p) {
  bool column_sums = false;
  for (size_t r = 0; r < kRows; ++r) column_sums |= p->blocks->row_a[r] != 0;
  const uint8_t* a = static_cast<const uint8_t*>(a_packed);
  const uint8_t* b = static_cast<const uint8_t*>(b_packed);
  if (column_sums)
    Tile<kRows, kAStride, true>(nr, a, b, p);
  else
    Tile<kRows, kAStride, false>(nr, a, b, p);
}

}  // namespace

static void qgemm_s8u4_1x16c8__neondot(size_t, size_t nr, size_t, const void* a, const void* b,
                                       const QGemmTileParams* p) {
  TileRows<1, 1>(nr, a, b, p);
}

static void qgemm_s8u4_4x16c8__neondot(size_t mr, size_t nr, size_t, const void* a, const void* b,
                                       const QGemmTileParams* p) {
  WithRowCount<kMr>(mr, [&](auto rows) { TileRows<decltype(rows)::value, kMr>(nr, a, b, p); });
}

static void qgemm_s8u4_8x16c8__neondot(size_t mr, size_t nr, size_t, const void* a, const void* b,
                                       const QGemmTileParams* p) {
  WithRowCount<kWideMr>(mr, [&](auto rows) { TileRows<decltype(rows)::value, kWideMr>(nr, a, b, p); });
}

static_assert(kWideMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_1x16c8__neondot, kQGemm_s8u4_4x16c8__neondot, kQGemm_s8u4_8x16c8__neondot;
const QGemmKernel kQGemm_s8u4_1x16c8__neondot = {"qgemm_s8u4_1x16c8__neondot", 1, kNr, kKr, QGemmPacking::kS8U4Blocks,
                                                1, 1, qgemm_s8u4_1x16c8__neondot, nullptr, nullptr, 0, 0, 0,
                                                QGemmAInPlace::kNever};
const QGemmKernel kQGemm_s8u4_4x16c8__neondot = {"qgemm_s8u4_4x16c8__neondot", kMr, kNr, kKr,
                                                QGemmPacking::kS8U4Blocks, 2, UINT32_MAX, qgemm_s8u4_4x16c8__neondot,
                                                nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
// From 8 rows: by llvm-mca's count, its loop keeps sdot busy 0.89 of the cycles where the four-row
// loop's mask and shift hold it to 0.80 (scripts/arm_model.sh).
const QGemmKernel kQGemm_s8u4_8x16c8__neondot = {"qgemm_s8u4_8x16c8__neondot", kWideMr, kNr, kKr,
                                                QGemmPacking::kS8U4Blocks, kWideMr, UINT32_MAX, qgemm_s8u4_8x16c8__neondot,
                                                nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};

}  // namespace neon_dotprod
}  // namespace cpuml
