// qgemm_s8u4_4x16c8__scalar: 4-bit B in blocks (kS8U4Blocks), up to 4 rows x 16 columns, in plain
// C++: the layout's definition in code, and the kernel of every CPU without a vector one.
#include <string.h>

#include "kernels/common/half.h"
#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {
namespace {

constexpr size_t kMr = 4, kNr = 16, kKr = 8, kHalf = kKr / 2;

}  // namespace

static void qgemm_s8u4_4x16c8__scalar(size_t mr, size_t nr, size_t, const void* a_packed, const void* b_packed,
                                      const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  float y[kMr][kNr];
  for (size_t r = 0; r < kMr; ++r)  // -0 + p is p, bit for bit: the first block's y = p
    for (size_t j = 0; j < kNr; ++j) y[r][j] = blocks.y_in ? blocks.y_in[r * kNr + j] : -0.0f;
  for (size_t c = 0; c < blocks.count; ++c) {
    const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
    const int8_t* a = reinterpret_cast<const int8_t*>(static_cast<const uint8_t*>(a_packed) + c * blocks.a_stride);
    const uint8_t* b = static_cast<const uint8_t*>(b_packed) + c * blocks.b_stride;
    uint32_t dot[kMr][kNr] = {}, column_sum[kNr] = {};
    for (size_t g = 0; g < groups; ++g)
      for (size_t j = 0; j < kNr; ++j)
        for (size_t q = 0; q < kHalf; ++q) {
          const uint8_t byte = b[(g * kNr + j) * kHalf + q];
          const int32_t low = byte & 0xF, high = byte >> 4;
          column_sum[j] += static_cast<uint32_t>(low + high);
          for (size_t i = 0; i < mr; ++i) {
            const int8_t* a_group = a + (g * kMr + i) * kKr;
            dot[i][j] += static_cast<uint32_t>(a_group[q] * low + a_group[kHalf + q] * high);
          }
        }
    const uint8_t* zero = blocks.zero_points ? blocks.zero_points : b + groups * kNr * kHalf;
    const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
    const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
    const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
    float b_scale[kNr];
    for (size_t j = 0; j < kNr; ++j)
      b_scale[j] = blocks.b_scale_half ? HalfToFloat(blocks.b_scale_half[c * blocks.b_scale_stride + j])
                                       : blocks.b_scale[c * blocks.b_scale_stride + j];
    for (size_t i = 0; i < mr; ++i)
      for (size_t j = 0; j < kNr; ++j) {
        const uint32_t s = dot[i][j] + static_cast<uint32_t>(row_a[i]) * column_sum[j] +
                           static_cast<uint32_t>(row_b[i]) * zero[j];
        const float product = static_cast<float>(static_cast<int32_t>(s)) * (a_scale[i] * b_scale[j]);
        y[i][j] = y[i][j] + product;
      }
  }
  for (size_t i = 0; i < mr; ++i) {
    if (p->bias)
      for (size_t j = 0; j < nr; ++j) y[i][j] = y[i][j] + p->bias[j];
    memcpy(static_cast<uint8_t*>(p->out) + i * p->out_row_stride, y[i], nr * sizeof(float));
  }
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_4x16c8__scalar;
const QGemmKernel kQGemm_s8u4_4x16c8__scalar = {"qgemm_s8u4_4x16c8__scalar", kMr, kNr, kKr, QGemmPacking::kS8U4Blocks,
                                               1, UINT32_MAX, qgemm_s8u4_4x16c8__scalar, nullptr, nullptr, 0, 0, 0,
                                               QGemmAInPlace::kNever};

}  // namespace scalar
}  // namespace cpuml
