// qgemm_s8s8_8x8c8__neoni8mm: 8 rows x 8 columns, K in octets of s8 (kS8S8 layout, kr = 8),
// FEAT_I8MM.
//
// smmla multiplies a 2x8 block of A by the transpose of a 2x8 block of B into a 2x2 int32
// block: 32 exact multiply-accumulates per instruction. The [group][line][8] layout puts rows
// 2r and 2r+1 (and columns 2c and 2c+1) in one 16-byte vector, which is the operand smmla wants.
#include <arm_neon.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"
#include "kernels/neon/requantize_neon.h"

namespace cpuml {
namespace neon_i8mm {
namespace {

constexpr size_t kMr = 8, kNr = 8, kKr = 8;

template <size_t kRowPairs>
void DotRowPairs(size_t k_groups, const int8_t* a, const int8_t* b, int32_t (*tile)[kNr]) {
  int32x4_t acc[kRowPairs][4];  // [row pair][column pair] = {r0c0, r0c1, r1c0, r1c1}
  for (size_t r = 0; r < kRowPairs; ++r)
    for (int c = 0; c < 4; ++c) acc[r][c] = vdupq_n_s32(0);
  // Two groups per iteration, each group's B loaded while the other's smmla run (an in-order core,
  // A510, would otherwise wait on the loads at the top of every group); A's row pairs as needed.
  auto group = [&](const int8_t* a_group, const int8x16_t* bc) {
#pragma GCC unroll 4
    for (size_t r = 0; r < kRowPairs; ++r) {
      const int8x16_t ar = vld1q_s8(a_group + 16 * r);
      for (int c = 0; c < 4; ++c) acc[r][c] = vmmlaq_s32(acc[r][c], ar, bc[c]);
    }
  };
  int8x16_t even[4], odd[4];
  for (int c = 0; c < 4; ++c) even[c] = vld1q_s8(b + 16 * c);
  size_t g = 0;
  for (; g + 2 <= k_groups; g += 2, a += 2 * kMr * 8, b += 2 * kNr * 8) {
    for (int c = 0; c < 4; ++c) odd[c] = vld1q_s8(b + kNr * 8 + 16 * c);
    group(a, even);
    if (g + 2 < k_groups)
      for (int c = 0; c < 4; ++c) even[c] = vld1q_s8(b + 2 * kNr * 8 + 16 * c);
    group(a + kMr * 8, odd);
  }
  if (g < k_groups) group(a, even);
  for (size_t r = 0; r < kRowPairs; ++r)
    for (int half = 0; half < 2; ++half) {
      const int64x2_t left = vreinterpretq_s64_s32(acc[r][2 * half]), right = vreinterpretq_s64_s32(acc[r][2 * half + 1]);
      vst1q_s32(tile[2 * r] + 4 * half, vreinterpretq_s32_s64(vzip1q_s64(left, right)));
      vst1q_s32(tile[2 * r + 1] + 4 * half, vreinterpretq_s32_s64(vzip2q_s64(left, right)));
    }
}

}  // namespace

static void qgemm_s8s8_8x8c8__neoni8mm(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                const QGemmTileParams* p) {
  const int8_t* a = static_cast<const int8_t*>(a_packed);
  const int8_t* b = static_cast<const int8_t*>(b_packed);
  alignas(16) int32_t tile[kMr][kNr];
  WithRowCount<kMr / 2>((mr + 1) / 2, [&](auto rows) { DotRowPairs<decltype(rows)::value>(k_groups, a, b, tile); });
  neon::RequantizeTile(&tile[0][0], mr, nr, p);
}


static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8s8_8x8c8__neoni8mm;
const QGemmKernel kQGemm_s8s8_8x8c8__neoni8mm = {"qgemm_s8s8_8x8c8__neoni8mm", kMr, kNr, kKr, QGemmPacking::kS8S8, 1, UINT32_MAX, qgemm_s8s8_8x8c8__neoni8mm, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};

}  // namespace neon_i8mm
}  // namespace cpuml
