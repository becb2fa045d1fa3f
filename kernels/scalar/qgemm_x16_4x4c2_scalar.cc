// qgemm_x16_4x4c2__scalar: the portable micro-kernel over the kInt16Pairs layout. It runs the
// same packing, blocking and epilogue contract as the SIMD tiers, so the scalar tier is a real
// GEMM rather than a second copy of the reference.
#include <math.h>
#include <string.h>

#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {

constexpr size_t kMr = 4, kNr = 4, kKr = 2;
// The scalar tier gains nothing from K blocks in speed; it splits K so that every machine, CI's
// emulated ones included, runs the front end's K-block path (kernels/amx relies on it).
constexpr uint32_t kKBlockGroups = 256;

static void qgemm_x16_4x4c2__scalar(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                             const QGemmTileParams* p) {
  const int16_t* a = static_cast<const int16_t*>(a_packed);
  const int16_t* b = static_cast<const int16_t*>(b_packed);
  uint32_t acc[kMr][kNr] = {};  // unsigned: the sums are exact modulo 2^32
  if (p->dot_in)
    for (size_t i = 0; i < kMr; ++i)
      for (size_t j = 0; j < kNr; ++j) acc[i][j] = static_cast<uint32_t>(p->dot_in[i * kNr + j]);
  for (size_t g = 0; g < k_groups; ++g, a += kMr * kKr, b += kNr * kKr)
    for (size_t i = 0; i < kMr; ++i)
      for (size_t j = 0; j < kNr; ++j)
        acc[i][j] += static_cast<uint32_t>(a[i * kKr] * b[j * kKr] + a[i * kKr + 1] * b[j * kKr + 1]);
  if (p->dot_out) {
    for (size_t i = 0; i < kMr; ++i)
      for (size_t j = 0; j < kNr; ++j) p->dot_out[i * kNr + j] = static_cast<int32_t>(acc[i][j]);
    return;
  }
  for (size_t i = 0; i < mr; ++i) {
    for (size_t j = 0; j < nr; ++j) {
      uint32_t v = acc[i][j];
      if (p->col_a) v += static_cast<uint32_t>(p->row_a[i]) * static_cast<uint32_t>(p->col_a[j]);
      if (p->col_b) v += static_cast<uint32_t>(p->row_b[i]) * static_cast<uint32_t>(p->col_b[j]);
      const int32_t total = static_cast<int32_t>(v);
      if (p->acc_out) {
        p->acc_out[i * kNr + j] = total;
        continue;
      }
      uint8_t* out = static_cast<uint8_t*>(p->out) + i * p->out_row_stride;
      if (p->stage == kStageInt32) {
        memcpy(out + j * 4, &total, 4);
        continue;
      }
      if (p->stage == kStageFloat32) {
        float y = static_cast<float>(total) * (p->multiplier ? p->multiplier[j] : p->a_scale[i] * p->b_scale[j]);
        if (p->bias) y = y + p->bias[j];
        memcpy(out + j * 4, &y, 4);
        continue;
      }
      const float multiplier = p->multiplier ? p->multiplier[j] : (p->a_scale[i] * p->b_scale[j]) / p->out_scale[i];
      float y = static_cast<float>(total) * multiplier;
      if (!(y >= p->out_min[i])) y = p->out_min[i];
      if (y > p->out_max[i]) y = p->out_max[i];
      const int32_t q = static_cast<int32_t>(nearbyintf(y)) + p->out_zero_point[i];
      static_cast<uint8_t*>(p->out)[i * p->out_row_stride + j] = static_cast<uint8_t>(q);
    }
  }
}


static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
static_assert(kMr * kNr <= kMaxKBlockTileElements, "tile larger than the front end's K-block carry");
extern const QGemmKernel kQGemm_x16_4x4c2__scalar;
const QGemmKernel kQGemm_x16_4x4c2__scalar = {"qgemm_x16_4x4c2__scalar", kMr, kNr, kKr, QGemmPacking::kInt16Pairs, 1, UINT32_MAX, qgemm_x16_4x4c2__scalar, nullptr, nullptr, kKBlockGroups, 0, 0, QGemmAInPlace::kNever};

}  // namespace scalar
}  // namespace cpuml
