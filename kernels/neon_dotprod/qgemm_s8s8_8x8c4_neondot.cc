// qgemm_s8s8_8x8c4__neondot: 8 rows x 8 columns, K in quads of s8 (kS8S8 layout), FEAT_DotProd.
//
// sdot adds four s8 x s8 products straight into an int32 lane: exact. u8 inputs were shifted to
// s8 at packing and the epilogue's row/column terms undo the shift.
#include <arm_neon.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"
#include "kernels/neon/requantize_neon.h"

namespace cpuml {
namespace neon_dotprod {
namespace {

constexpr size_t kMr = 8, kNr = 8, kKr = 4;

// One K group: sixteen sdot of the eight rows (a0: rows 0-3, a1: rows 4-7) against columns 0-3
// (b0) and 4-7 (b1).
template <size_t kRows>
inline void DotGroup(int32x4_t (*acc)[2], int8x16_t a0, int8x16_t a1, int8x16_t b0, int8x16_t b1) {
  // The lane index must be a constant: one line per row.
#define CPUML_DOT_ROW(I)                                                                 \
  if constexpr (kRows > I) {                                                             \
    acc[I][0] = vdotq_laneq_s32(acc[I][0], b0, (I) < 4 ? a0 : a1, (I) % 4);              \
    acc[I][1] = vdotq_laneq_s32(acc[I][1], b1, (I) < 4 ? a0 : a1, (I) % 4);              \
  }
  CPUML_DOT_ROW(0) CPUML_DOT_ROW(1) CPUML_DOT_ROW(2) CPUML_DOT_ROW(3)
  CPUML_DOT_ROW(4) CPUML_DOT_ROW(5) CPUML_DOT_ROW(6) CPUML_DOT_ROW(7)
#undef CPUML_DOT_ROW
}

// Two groups per iteration, each group's operands loaded while the other's sdot run: an in-order
// core (A55) would otherwise wait on the loads at the top of every group.
template <size_t kRows>
void DotRows(size_t k_groups, const int8_t* a, const int8_t* b, int32_t (*tile)[kNr]) {
  int32x4_t acc[kRows][2];
  for (size_t i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = vdupq_n_s32(0);
  int8x16_t a0 = vld1q_s8(a), a1 = vld1q_s8(a + 16), b0 = vld1q_s8(b), b1 = vld1q_s8(b + 16);
  size_t g = 0;
  for (; g + 2 <= k_groups; g += 2) {
    const int8x16_t c0 = vld1q_s8(a + 32), c1 = vld1q_s8(a + 48), d0 = vld1q_s8(b + 32), d1 = vld1q_s8(b + 48);
    DotGroup<kRows>(acc, a0, a1, b0, b1);
    a += 2 * kMr * 4;
    b += 2 * kNr * 4;
    if (g + 2 < k_groups) {
      a0 = vld1q_s8(a);
      a1 = vld1q_s8(a + 16);
      b0 = vld1q_s8(b);
      b1 = vld1q_s8(b + 16);
    }
    DotGroup<kRows>(acc, c0, c1, d0, d1);
  }
  if (g < k_groups) DotGroup<kRows>(acc, a0, a1, b0, b1);
  for (size_t i = 0; i < kRows; ++i) {
    vst1q_s32(tile[i], acc[i][0]);
    vst1q_s32(tile[i] + 4, acc[i][1]);
  }
}

}  // namespace

static void qgemm_s8s8_8x8c4__neondot(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                               const QGemmTileParams* p) {
  const int8_t* a = static_cast<const int8_t*>(a_packed);
  const int8_t* b = static_cast<const int8_t*>(b_packed);
  alignas(16) int32_t tile[kMr][kNr];
  WithRowCount<kMr>(mr, [&](auto rows) { DotRows<decltype(rows)::value>(k_groups, a, b, tile); });
  neon::RequantizeTile(&tile[0][0], mr, nr, p);
}


static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8s8_8x8c4__neondot;
const QGemmKernel kQGemm_s8s8_8x8c4__neondot = {"qgemm_s8s8_8x8c4__neondot", kMr, kNr, kKr, QGemmPacking::kS8S8, 1, UINT32_MAX, qgemm_s8s8_8x8c4__neondot, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};

}  // namespace neon_dotprod
}  // namespace cpuml
