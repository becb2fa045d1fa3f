// DYNAMIC_QUANTIZE_LINEAR rows for AArch64 NEON (kernels/quantize_xsimd.inl). FCVTNS rounds to
// nearest even and FDIV is correctly rounded, as on x86.
#include <arm_neon.h>
#include <math.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"

#define CPUML_TIER neon
#define CPUML_XSIMD_ARCH xsimd::neon64

namespace cpuml {
namespace neon {
namespace {

inline void CpuStoreQuantized(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>& q) {
  const uint16x4_t halves = vmovn_u32(vreinterpretq_u32_s32(q));
  const uint8x8_t bytes = vmovn_u16(vcombine_u16(halves, halves));
  vst1_lane_u32(reinterpret_cast<uint32_t*>(dst), vreinterpret_u32_u8(bytes), 0);
}

inline void CpuStoreQuantizedSaturated(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>* n, int16_t offset,
                                       uint8_t flip, bool /*streaming: cached stores only*/) {
  const int16x8_t add = vdupq_n_s16(offset);
  const int16x8_t low = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(n[0]), n[1]), add);
  const int16x8_t high = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(n[2]), n[3]), add);
  vst1q_u8(dst, veorq_u8(vqmovun_high_s16(vqmovun_s16(low), high), vdupq_n_u8(flip)));
}

inline void CpuStreamFence() {}

// FDIV, correctly rounded: xsimd 8's float division on neon64 refines a reciprocal estimate
// instead, whose last bit can differ (and a quotient near .5 then rounds the other way).
inline xsimd::batch<float, CPUML_XSIMD_ARCH> CpuDivide(const xsimd::batch<float, CPUML_XSIMD_ARCH>& x,
                                                      const xsimd::batch<float, CPUML_XSIMD_ARCH>& s) {
  return vdivq_f32(x, s);
}

inline xsimd::batch<float, CPUML_XSIMD_ARCH> CpuRoundToNearest(const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) {
  return vrndnq_f32(v);  // FRINTN: to nearest, ties to even
}

// FMIN and FMAX return NaN for a NaN operand: compare and select instead, keeping acc.
inline xsimd::batch<float, CPUML_XSIMD_ARCH> CpuMinKeeping(const xsimd::batch<float, CPUML_XSIMD_ARCH>& v,
                                                          const xsimd::batch<float, CPUML_XSIMD_ARCH>& acc) {
  return vbslq_f32(vcltq_f32(v, acc), v, acc);
}
inline xsimd::batch<float, CPUML_XSIMD_ARCH> CpuMaxKeeping(const xsimd::batch<float, CPUML_XSIMD_ARCH>& v,
                                                          const xsimd::batch<float, CPUML_XSIMD_ARCH>& acc) {
  return vbslq_f32(vcgtq_f32(v, acc), v, acc);
}

// The least / greatest lane of v, which holds no NaN (FMINV, FMAXV).
inline float CpuLaneMin(const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) { return vminvq_f32(v); }
inline float CpuLaneMax(const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) { return vmaxvq_f32(v); }

}  // namespace
}  // namespace neon
}  // namespace cpuml

#include "kernels/quantize_xsimd.inl"
