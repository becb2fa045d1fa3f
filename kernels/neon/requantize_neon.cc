#include "kernels/neon/requantize_neon.h"

#include <arm_neon.h>
#include <string.h>

namespace cpuml {
namespace neon {

void RequantizeTile(const int32_t* tile, size_t mr, size_t nr, const QGemmTileParams* p) {
  for (size_t i = 0; i < mr; ++i) {
    int32x4_t v[2];
    for (int h = 0; h < 2; ++h) {
      v[h] = vld1q_s32(tile + i * kTileColumns + 4 * h);
      if (p->col_a) v[h] = vmlaq_s32(v[h], vdupq_n_s32(p->row_a[i]), vld1q_s32(p->col_a + 4 * h));
      if (p->col_b) v[h] = vmlaq_s32(v[h], vdupq_n_s32(p->row_b[i]), vld1q_s32(p->col_b + 4 * h));
    }
    if (p->acc_out) {
      vst1q_s32(p->acc_out + i * kTileColumns, v[0]);
      vst1q_s32(p->acc_out + i * kTileColumns + 4, v[1]);
      continue;
    }
    if (p->stage != kStageRequantize8) {
      // The sums as int32, or float(sum) * m (+ bias): vcvtq_f32_s32 rounds to nearest even, and
      // the multiply and add are separate instructions (no FMLA), as the formula has them.
      uint32x4_t words[2];
      for (int h = 0; h < 2; ++h) {
        if (p->stage == kStageInt32) {
          words[h] = vreinterpretq_u32_s32(v[h]);
          continue;
        }
        const float32x4_t m = p->multiplier ? vld1q_f32(p->multiplier + 4 * h)
                                            : vmulq_f32(vdupq_n_f32(p->a_scale[i]), vld1q_f32(p->b_scale + 4 * h));
        float32x4_t y = vmulq_f32(vcvtq_f32_s32(v[h]), m);
        if (p->bias) y = vaddq_f32(y, vld1q_f32(p->bias + 4 * h));
        words[h] = vreinterpretq_u32_f32(y);
      }
      uint32_t row[kTileColumns];
      vst1q_u32(row, words[0]);
      vst1q_u32(row + 4, words[1]);
      memcpy(static_cast<uint8_t*>(p->out) + i * p->out_row_stride, row, nr * 4);
      continue;
    }
    const float32x4_t lo = vdupq_n_f32(p->out_min[i]), hi = vdupq_n_f32(p->out_max[i]);
    const int32x4_t zero_point = vdupq_n_s32(p->out_zero_point[i]);
    int32x4_t q[2];
    for (int h = 0; h < 2; ++h) {
      const float32x4_t multiplier =
          p->multiplier ? vld1q_f32(p->multiplier + 4 * h)
                        : vdivq_f32(vmulq_f32(vdupq_n_f32(p->a_scale[i]), vld1q_f32(p->b_scale + 4 * h)),
                                    vdupq_n_f32(p->out_scale[i]));
      float32x4_t y = vmulq_f32(vcvtq_f32_s32(v[h]), multiplier);
      // FMAXNM returns the number when y is NaN (plain FMAX would return the NaN).
      y = vminq_f32(vmaxnmq_f32(y, lo), hi);
      q[h] = vaddq_s32(vcvtnq_s32_f32(y), zero_point);  // FCVTNS: round to nearest, ties to even
    }
    const int16x8_t words = vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1]));
    const uint8x8_t bytes = p->out_signed ? vreinterpret_u8_s8(vqmovn_s16(words)) : vqmovun_s16(words);
    uint8_t* out = static_cast<uint8_t*>(p->out) + i * p->out_row_stride;
    if (nr == kTileColumns) {
      vst1_u8(out, bytes);
    } else {
      uint8_t row[kTileColumns];
      vst1_u8(row, bytes);
      memcpy(out, row, nr);
    }
  }
}

}  // namespace neon
}  // namespace cpuml
