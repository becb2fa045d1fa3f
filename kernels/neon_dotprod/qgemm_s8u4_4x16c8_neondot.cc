// qgemm_s8u4_1x16c8__neondot, qgemm_s8u4_4x16c8__neondot and qgemm_s8u4_8x16c8__neondot: 4-bit B in
// blocks (kS8U4ColumnPairs, kernels/kernels.h), one row (M = 1, LLM decode), up to four or up to
// eight, FEAT_DotProd.
//
// A byte of the panel holds two columns at the same K: u in its low nibble, u - 8 as a signed high
// nibble, so the byte read as s8 is 16 * (u_high - 8) + u_low. One sdot of A's quad on the bytes as
// they are and one on the low nibbles (a mask) give, exactly, the low column's sum and sixteen times
// the high column's: one unpacking instruction for two sdot, where splitting the nibbles costs two
// (a mask and a shift). B's column sums, which an A zero point needs, come packed with the panel, so
// the loop is the same with and without one. Every sum is the exact one, and the float steps are
// the formula's, lane by lane, so the bits are every tier's.
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
// A panel half q is the 32 bytes of columns 4q..4q+3 (low nibbles) and 8+4q..8+4q+3 (high ones):
// one 16-byte vector for each of the group's two K quads.
constexpr size_t kHalves = 2, kHalfBytes = kGroupBytes / kHalves;

// Rows 2i and 2i + 1 of A's group g as one vector: row 2i's quads in lanes 0-1, row 2i + 1's in
// lanes 2-3 (sdot by element picks a lane). An odd last row reads its own 8 bytes only (a one-row
// tile may end there), its pair's upper lanes zero.
template <size_t kRows, size_t kAStride, size_t... kPair>
inline void LoadRowPairs(const int8_t* a, size_t g, int8x16_t (&pairs)[(kRows + 1) / 2], std::index_sequence<kPair...>) {
  const int8_t* group = a + g * kAStride * kKr;
  ((pairs[kPair] = 2 * kPair + 1 < kRows ? vld1q_s8(group + 2 * kPair * kKr)
                                         : vcombine_s8(vld1_s8(group + 2 * kPair * kKr), vdup_n_s8(0))),
   ...);
}

// The sums of one K quad kH of a half: `whole` takes the bytes as s8, `low` the low nibbles. One
// row, which streams B, keeps each quad's sums apart so that eight chains are in flight, not four.
template <size_t kH, size_t kSplit, size_t kRows, size_t... kR>
inline void QuadStep(int8x16_t bytes, int8x16_t low_nibbles, const int8x16_t (&pairs)[(kRows + 1) / 2],
                     int32x4_t (&whole)[kRows][kSplit], int32x4_t (&low)[kRows][kSplit], std::index_sequence<kR...>) {
  constexpr size_t s = kH % kSplit;
  ((whole[kR][s] = vdotq_laneq_s32(whole[kR][s], bytes, pairs[kR / 2], kR % 2 * 2 + kH)), ...);
  ((low[kR][s] = vdotq_laneq_s32(low[kR][s], low_nibbles, pairs[kR / 2], kR % 2 * 2 + kH)), ...);
}

// Halves [kFirst, kFirst + kCount) of the panel over one block, into the panel's column order:
// dot[r][v] holds columns 4v..4v+3, the low nibbles' columns at v = q and the high ones' at
// v = 2 + q. A high column's sum is (whole - low) / 16 = Σ a (u - 8), exact: |whole| < 2^31 for a
// chunk of 2^15 K, the longest (QGemmPlan::kMaxExactK).
template <size_t kRows, size_t kAStride, size_t kFirst, size_t kCount>
inline void BlockSums(size_t groups, const int8_t* a, const uint8_t* b, int32x4_t (&dot)[kRows][kVectors]) {
  constexpr size_t kSplit = kRows == 1 ? 2 : 1;
  const uint8x16_t mask = vdupq_n_u8(0x0F);
  int32x4_t whole[kHalves][kRows][kSplit], low[kHalves][kRows][kSplit];
  for (size_t q = kFirst; q < kFirst + kCount; ++q)
    for (size_t r = 0; r < kRows; ++r)
      for (size_t s = 0; s < kSplit; ++s) whole[q][r][s] = low[q][r][s] = vdupq_n_s32(0);
  for (size_t g = 0; g < groups; ++g) {
    int8x16_t pairs[(kRows + 1) / 2];
    LoadRowPairs<kRows, kAStride>(a, g, pairs, std::make_index_sequence<(kRows + 1) / 2>());
    for (size_t q = kFirst; q < kFirst + kCount; ++q) {
      const int8_t* half = reinterpret_cast<const int8_t*>(b + g * kGroupBytes + q * kHalfBytes);
      const int8x16_t bytes0 = vld1q_s8(half), bytes1 = vld1q_s8(half + 16);
      const int8x16_t low0 = vreinterpretq_s8_u8(vandq_u8(vreinterpretq_u8_s8(bytes0), mask));
      const int8x16_t low1 = vreinterpretq_s8_u8(vandq_u8(vreinterpretq_u8_s8(bytes1), mask));
      QuadStep<0, kSplit, kRows>(bytes0, low0, pairs, whole[q], low[q], std::make_index_sequence<kRows>());
      QuadStep<1, kSplit, kRows>(bytes1, low1, pairs, whole[q], low[q], std::make_index_sequence<kRows>());
    }
  }
  for (size_t q = kFirst; q < kFirst + kCount; ++q)
    for (size_t r = 0; r < kRows; ++r) {
      int32x4_t w = whole[q][r][0], l = low[q][r][0];
      for (size_t s = 1; s < kSplit; ++s) w = vaddq_s32(w, whole[q][r][s]), l = vaddq_s32(l, low[q][r][s]);
      dot[r][q] = l;
      dot[r][kHalves + q] = vshrq_n_s32(vsubq_s32(w, l), 4);
    }
}

// Block c's float steps for halves [kFirst, kFirst + kCount) of its sums. A high column's zero
// point is taken as zero - 8, the domain its sums are in; column_sums (the panel's, NULL where
// every row_a is 0) are in that domain already.
template <size_t kRows, size_t kFirst, size_t kCount>
inline void AddBlock(const QGemmBlocks& blocks, size_t c, const uint8_t* zero_points, const int32_t* column_sums,
                     const int32x4_t (&dot)[kRows][kVectors], float32x4_t (&y)[kRows][kVectors]) {
  const int16x8_t zero_low = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(zero_points)));
  const int16x8_t zero_high = vsubq_s16(vreinterpretq_s16_u16(vmovl_u8(vld1_u8(zero_points + 8))), vdupq_n_s16(8));
  const int32x4_t zero_point[kVectors] = {vmovl_s16(vget_low_s16(zero_low)), vmovl_s16(vget_high_s16(zero_low)),
                                          vmovl_s16(vget_low_s16(zero_high)), vmovl_s16(vget_high_s16(zero_high))};
  const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
  const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
  const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
  constexpr size_t kColumnVectors[kHalves][kHalves] = {{0, 2}, {1, 3}};
  for (size_t q = kFirst; q < kFirst + kCount; ++q)
    for (size_t v : kColumnVectors[q]) {
      const float32x4_t b_scale =
          blocks.b_scale_half
              ? vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(blocks.b_scale_half + c * blocks.b_scale_stride + 4 * v)))
              : vld1q_f32(blocks.b_scale + c * blocks.b_scale_stride + 4 * v);
      const int32x4_t column_sum = column_sums ? vld1q_s32(column_sums + 4 * v) : vdupq_n_s32(0);
      for (size_t r = 0; r < kRows; ++r) {
        // Integer multiply-adds wrap mod 2^32 like the formula's; the float steps stay separate
        // (the library is built with -ffp-contract=off).
        int32x4_t s = vmlaq_n_s32(dot[r][v], zero_point[v], row_b[r]);
        if (column_sums) s = vmlaq_n_s32(s, column_sum, row_a[r]);
        const float32x4_t scale = vmulq_f32(vdupq_n_f32(a_scale[r]), b_scale);
        y[r][v] = vaddq_f32(y[r][v], vmulq_f32(vcvtq_f32_s32(s), scale));
      }
    }
}

template <size_t kRows, size_t kAStride>
void Tile(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  // The panel's column sums only where some row's A zero point is not 0 in the s8 domain (row_a is
  // the same for every block); the front end packs them wherever that can be.
  bool any_row_a = false;
  for (size_t r = 0; r < kRows; ++r) any_row_a |= blocks.row_a[r] != 0;
  const bool column_sums = blocks.column_sums && any_row_a;
  // Up to four rows hold both halves' sums at once; more run the halves one after the other, each
  // half's sums going into y before the other half's loop, so that a loop holds sixteen
  // accumulators, not 32 (y waits in memory meanwhile).
  constexpr size_t kHalvesAtOnce = kRows > kMr ? 1 : kHalves;
  float32x4_t y[kRows][kVectors];
  for (size_t r = 0; r < kRows; ++r)
    for (size_t v = 0; v < kVectors; ++v)  // -0 + p is p: the first y = p
      y[r][v] = blocks.y_in ? vld1q_f32(blocks.y_in + r * kNr + 4 * v) : vdupq_n_f32(-0.0f);
  for (size_t c = 0; c < blocks.count; ++c) {
    const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
    const uint8_t* b = b_panel + c * blocks.b_stride;
    const int8_t* a = reinterpret_cast<const int8_t*>(a_tile + c * blocks.a_stride);
    const uint8_t* after_data = b + groups * kGroupBytes;
    const uint8_t* zero = blocks.zero_points ? blocks.zero_points : after_data;
    const int32_t* sums =
        column_sums ? reinterpret_cast<const int32_t*>(after_data + (blocks.zero_points ? 0 : kNr)) : nullptr;
    int32x4_t dot[kRows][kVectors];
    BlockSums<kRows, kAStride, 0, kHalvesAtOnce>(groups, a, b, dot);
    AddBlock<kRows, 0, kHalvesAtOnce>(blocks, c, zero, sums, dot, y);
    if constexpr (kHalvesAtOnce < kHalves) {
      BlockSums<kRows, kAStride, 1, 1>(groups, a, b, dot);
      AddBlock<kRows, 1, 1>(blocks, c, zero, sums, dot, y);
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

}  // namespace

static void qgemm_s8u4_1x16c8__neondot(size_t, size_t nr, size_t, const void* a, const void* b,
                                       const QGemmTileParams* p) {
  Tile<1, 1>(nr, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), p);
}

static void qgemm_s8u4_4x16c8__neondot(size_t mr, size_t nr, size_t, const void* a, const void* b,
                                       const QGemmTileParams* p) {
  WithRowCount<kMr>(mr, [&](auto rows) {
    Tile<decltype(rows)::value, kMr>(nr, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), p);
  });
}

static void qgemm_s8u4_8x16c8__neondot(size_t mr, size_t nr, size_t, const void* a, const void* b,
                                       const QGemmTileParams* p) {
  WithRowCount<kWideMr>(mr, [&](auto rows) {
    Tile<decltype(rows)::value, kWideMr>(nr, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), p);
  });
}

static_assert(kWideMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_1x16c8__neondot, kQGemm_s8u4_4x16c8__neondot, kQGemm_s8u4_8x16c8__neondot;
const QGemmKernel kQGemm_s8u4_1x16c8__neondot = {"qgemm_s8u4_1x16c8__neondot", 1, kNr, kKr,
                                                QGemmPacking::kS8U4ColumnPairs, 1, 1, qgemm_s8u4_1x16c8__neondot,
                                                nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
const QGemmKernel kQGemm_s8u4_4x16c8__neondot = {"qgemm_s8u4_4x16c8__neondot", kMr, kNr, kKr,
                                                QGemmPacking::kS8U4ColumnPairs, 2, UINT32_MAX,
                                                qgemm_s8u4_4x16c8__neondot, nullptr, nullptr, 0, 0, 0,
                                                QGemmAInPlace::kNever};
// From 8 rows: each vector of B feeds sixteen rows' sdot for its mask (scripts/arm_model.sh).
const QGemmKernel kQGemm_s8u4_8x16c8__neondot = {"qgemm_s8u4_8x16c8__neondot", kWideMr, kNr, kKr,
                                                QGemmPacking::kS8U4ColumnPairs, kWideMr, UINT32_MAX,
                                                qgemm_s8u4_8x16c8__neondot, nullptr, nullptr, 0, 0, 0,
                                                QGemmAInPlace::kNever};

}  // namespace neon_dotprod
}  // namespace cpuml
