// qgemm_s8u4_2x8c8__neon: 4-bit B in blocks (kS8U4Blocks, kernels/kernels.h), up to two rows x 8
// columns, with NEON's widening multiply-accumulate (no dot product), every block of the tile in one
// call, finished in float; B is read as the nibbles initialize packed, with no 8-bit copy.
//
// A group's 32 bytes of B are 8 columns x 4 bytes: masked, the low nibbles are each column's first
// K quad, shifted, its second, in [0, 15] as s8. smlal multiplies a half vector (two columns' quads)
// by A's quad, broadcast to both of its halves, into int16: each lane gains two products a group,
// |u * a| <= 15 * 128, so eight groups add to at most 30,720 < 32,768 before sadalp widens them,
// and at the block's end a pairwise add leaves one int32 lane a column. Every sum is the exact one,
// and the float steps are the formula's, lane by lane, so the bits are every tier's.
#include <arm_neon.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace neon {
namespace {

constexpr size_t kMr = 2, kNr = 8, kKr = 8;
constexpr size_t kGroupBytes = kNr * kKr / 2, kVectors = kNr / 4;
constexpr size_t kGroupsPerWiden = 8;

inline int8x16_t BroadcastQuad(const int8_t* a) {
  int32_t quad;
  memcpy(&quad, a, sizeof quad);
  return vreinterpretq_s8_s32(vdupq_n_s32(quad));
}

// One block's exact sums: dot[r][v] for columns 4v..4v+3, and with kColumnSums the columns' sums
// of u (their bytes, at most 240 after eight groups, widened with the products).
template <size_t kRows, bool kColumnSums>
inline void BlockSums(size_t groups, const int8_t* a, const uint8_t* b, int32x4_t (&dot)[kRows][kVectors],
                      int32x4_t (&column_sum)[kVectors]) {
  const uint8x16_t mask = vdupq_n_u8(0x0F);
  // wide[r][v][h]: columns 4v + 2h and 4v + 2h + 1, two int32 lanes each.
  int32x4_t wide[kRows][kVectors][2];
  uint32x4_t column_wide[kVectors];
  for (size_t v = 0; v < kVectors; ++v) {
    column_wide[v] = vdupq_n_u32(0);
    for (size_t r = 0; r < kRows; ++r) wide[r][v][0] = wide[r][v][1] = vdupq_n_s32(0);
  }
  // One row: a group's two quads go to separate int16 accumulators, so each accumulator takes one
  // smlal a group instead of two in a row, and the chains' latency (4 cycles on Neoverse V1) no
  // longer bounds the loop (llvm-mca, scripts/arm_model.sh: V1 8.0 -> 16.0 MACs a cycle).
  constexpr size_t kChains = kRows == 1 ? 2 : 1;
  for (size_t g = 0; g < groups;) {
    const size_t end = groups - g < kGroupsPerWiden ? groups : g + kGroupsPerWiden;
    int16x8_t pairs[kChains][kRows][kVectors][2];
    uint8x16_t column_bytes[kVectors];
    for (size_t v = 0; v < kVectors; ++v) {
      column_bytes[v] = vdupq_n_u8(0);
      for (size_t c = 0; c < kChains; ++c)
        for (size_t r = 0; r < kRows; ++r) pairs[c][r][v][0] = pairs[c][r][v][1] = vdupq_n_s16(0);
    }
    for (; g < end; ++g) {
      int8x16_t low[kVectors], high[kVectors];
      for (size_t v = 0; v < kVectors; ++v) {
        const uint8x16_t raw = vld1q_u8(b + g * kGroupBytes + 16 * v);
        const uint8x16_t low_u = vandq_u8(raw, mask), high_u = vshrq_n_u8(raw, 4);
        if (kColumnSums) column_bytes[v] = vaddq_u8(column_bytes[v], vaddq_u8(low_u, high_u));
        low[v] = vreinterpretq_s8_u8(low_u);
        high[v] = vreinterpretq_s8_u8(high_u);
      }
      for (size_t r = 0; r < kRows; ++r) {
        const int8_t* quads = a + (g * kMr + r) * kKr;
        const int8x16_t first = BroadcastQuad(quads), second = BroadcastQuad(quads + 4);
        constexpr size_t kSecond = kChains - 1;
        for (size_t v = 0; v < kVectors; ++v) {
          // smlal2 takes the upper halves in place, with no move of each half to a register of its
          // own (the one-row loop 24 -> 20 instructions, the two-row loop 35 -> 31).
          pairs[0][r][v][0] = vmlal_s8(pairs[0][r][v][0], vget_low_s8(low[v]), vget_low_s8(first));
          pairs[0][r][v][1] = vmlal_high_s8(pairs[0][r][v][1], low[v], first);
          pairs[kSecond][r][v][0] = vmlal_s8(pairs[kSecond][r][v][0], vget_low_s8(high[v]), vget_low_s8(second));
          pairs[kSecond][r][v][1] = vmlal_high_s8(pairs[kSecond][r][v][1], high[v], second);
        }
      }
    }
    for (size_t v = 0; v < kVectors; ++v) {
      for (size_t c = 0; c < kChains; ++c)
        for (size_t r = 0; r < kRows; ++r) {
          wide[r][v][0] = vpadalq_s16(wide[r][v][0], pairs[c][r][v][0]);
          wide[r][v][1] = vpadalq_s16(wide[r][v][1], pairs[c][r][v][1]);
        }
      if (kColumnSums) column_wide[v] = vpadalq_u16(column_wide[v], vpaddlq_u8(column_bytes[v]));
    }
  }
  for (size_t v = 0; v < kVectors; ++v) {
    for (size_t r = 0; r < kRows; ++r) dot[r][v] = vpaddq_s32(wide[r][v][0], wide[r][v][1]);
    column_sum[v] = vreinterpretq_s32_u32(column_wide[v]);
  }
}

// The whole tile: blocks in order, y = y + p from y = -0 (which makes the first y = p, bit for
// bit), then the bias, then the rows' stores. Out of line (one call a tile): scripts/arm_model.sh
// finds each row count's loop by the function's name.
template <size_t kRows, bool kColumnSums>
__attribute__((noinline)) void Tile(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel,
                                    const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  float32x4_t y[kRows][kVectors];
  for (size_t r = 0; r < kRows; ++r)
    for (size_t v = 0; v < kVectors; ++v)
      y[r][v] = blocks.y_in ? vld1q_f32(blocks.y_in + r * kNr + 4 * v) : vdupq_n_f32(-0.0f);
  for (size_t c = 0; c < blocks.count; ++c) {
    const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
    const uint8_t* b = b_panel + c * blocks.b_stride;
    int32x4_t dot[kRows][kVectors], column_sum[kVectors];
    BlockSums<kRows, kColumnSums>(groups, reinterpret_cast<const int8_t*>(a_tile + c * blocks.a_stride), b, dot,
                                  column_sum);
    const uint8_t* zero = blocks.zero_points ? blocks.zero_points : b + groups * kGroupBytes;
    const uint16x8_t zero_wide = vmovl_u8(vld1_u8(zero));
    const int32x4_t zero_point[kVectors] = {vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(zero_wide))),
                                            vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(zero_wide)))};
    const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
    const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
    const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
    for (size_t v = 0; v < kVectors; ++v) {
      const float32x4_t b_scale =
          blocks.b_scale_half
              ? vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(blocks.b_scale_half + c * blocks.b_scale_stride + 4 * v)))
              : vld1q_f32(blocks.b_scale + c * blocks.b_scale_stride + 4 * v);
      for (size_t r = 0; r < kRows; ++r) {
        // Integer multiply-adds wrap mod 2^32 like the formula's; the float steps stay separate
        // (the library is built with -ffp-contract=off).
        int32x4_t s = vmlaq_n_s32(dot[r][v], zero_point[v], row_b[r]);
        if (kColumnSums) s = vmlaq_n_s32(s, column_sum[v], row_a[r]);
        const float32x4_t scale = vmulq_f32(vdupq_n_f32(a_scale[r]), b_scale);
        y[r][v] = vaddq_f32(y[r][v], vmulq_f32(vcvtq_f32_s32(s), scale));
      }
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    float row[kNr];
    for (size_t v = 0; v < kVectors; ++v) {
      // The bias array is padded to whole panels (the front end's QGemmQuantization).
      if (p->bias) y[r][v] = vaddq_f32(y[r][v], vld1q_f32(p->bias + 4 * v));
      vst1q_f32(row + 4 * v, y[r][v]);
    }
    memcpy(static_cast<uint8_t*>(p->out) + r * p->out_row_stride, row, nr * sizeof(float));
  }
}

}  // namespace

static void qgemm_s8u4_2x8c8__neon(size_t mr, size_t nr, size_t, const void* a_packed, const void* b_packed,
                                   const QGemmTileParams* p) {
  WithRowCount<kMr>(mr, [&](auto rows) {
    constexpr size_t kRows = decltype(rows)::value;
    WithColumnSums<kRows>(p->blocks->row_a, [&](auto column_sums) {
      Tile<kRows, decltype(column_sums)::value>(nr, static_cast<const uint8_t*>(a_packed),
                                                static_cast<const uint8_t*>(b_packed), p);
    });
  });
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_2x8c8__neon;
const QGemmKernel kQGemm_s8u4_2x8c8__neon = {"qgemm_s8u4_2x8c8__neon", kMr, kNr, kKr, QGemmPacking::kS8U4Blocks,
                                            1, UINT32_MAX, qgemm_s8u4_2x8c8__neon, nullptr, nullptr, 0, 0, 0,
                                            QGemmAInPlace::kNever};

}  // namespace neon
}  // namespace cpuml
