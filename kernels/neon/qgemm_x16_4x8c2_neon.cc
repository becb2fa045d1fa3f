// qgemm_x16_4x8c2__neon: 4 rows x 8 columns over the kInt16Pairs layout, for every AArch64 CPU.
//
// smlal widens int16 x int16 into int32 lanes, so no product or sum is ever saturated. Each lane
// accumulates one (column, k parity) pair; a pairwise add at the end gives the column sums.
#include <arm_neon.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"
#include "kernels/neon/requantize_neon.h"

namespace cpuml {
namespace neon {
namespace {

constexpr size_t kMr = 4, kNr = 8, kKr = 2;

template <size_t kRows>
void DotRows(size_t k_groups, const int32_t* a, const int16_t* b, int32_t (*tile)[kNr]) {
  int32x4_t acc[kRows][4];
  for (size_t i = 0; i < kRows; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = vdupq_n_s32(0);
  for (size_t g = 0; g < k_groups; ++g, a += kMr, b += 2 * kNr) {
    const int16x8_t b0 = vld1q_s16(b), b1 = vld1q_s16(b + 8);  // columns 0-3 and 4-7, k pairs
#pragma GCC unroll 4
    for (size_t i = 0; i < kRows; ++i) {
      const int16x8_t ai = vreinterpretq_s16_s32(vld1q_dup_s32(a + i));  // (a[k], a[k+1]) x 4
      acc[i][0] = vmlal_s16(acc[i][0], vget_low_s16(b0), vget_low_s16(ai));
      acc[i][1] = vmlal_high_s16(acc[i][1], b0, ai);
      acc[i][2] = vmlal_s16(acc[i][2], vget_low_s16(b1), vget_low_s16(ai));
      acc[i][3] = vmlal_high_s16(acc[i][3], b1, ai);
    }
  }
  for (size_t i = 0; i < kRows; ++i) {
    vst1q_s32(tile[i], vpaddq_s32(acc[i][0], acc[i][1]));
    vst1q_s32(tile[i] + 4, vpaddq_s32(acc[i][2], acc[i][3]));
  }
}

}  // namespace

static void qgemm_x16_4x8c2__neon(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                           const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const int16_t* b = static_cast<const int16_t*>(b_packed);
  alignas(16) int32_t tile[kMr][kNr];
  WithRowCount<kMr>(mr, [&](auto rows) { DotRows<decltype(rows)::value>(k_groups, a, b, tile); });
  RequantizeTile(&tile[0][0], mr, nr, p);
}


static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_x16_4x8c2__neon;
const QGemmKernel kQGemm_x16_4x8c2__neon = {"qgemm_x16_4x8c2__neon", kMr, kNr, kKr, QGemmPacking::kInt16Pairs, 1, UINT32_MAX, qgemm_x16_4x8c2__neon, nullptr, nullptr, 0, 0};

}  // namespace neon
}  // namespace cpuml
