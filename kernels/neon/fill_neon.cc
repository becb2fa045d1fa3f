// fill_*__neon: the xsimd fills (kernels/fill_xsimd.inl) instantiated for AArch64 NEON.
#include <arm_neon.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/common/half.h"

#define CPUML_TIER neon
#define CPUML_XSIMD_ARCH xsimd::neon64

namespace cpuml {
namespace neon {
namespace {

// ACLE has no non-temporal store intrinsic; plain stores are the portable choice on Arm.
template <class T>
inline void CpuStreamStore(T* p, const xsimd::batch<T, CPUML_XSIMD_ARCH>& b) {
  b.store_aligned(p);
}

inline void CpuStreamFence() {}

// FCVTN rounds to nearest even under the default FPCR and keeps NaN payload bits, like F16C.
inline void CpuFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) {
  vst1_u16(dst, vreinterpret_u16_f16(vcvt_f16_f32(static_cast<float32x4_t>(v))));
}

inline void CpuStreamFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) { CpuFloatToHalf(dst, v); }

}  // namespace
}  // namespace neon
}  // namespace cpuml

#include "kernels/fill_xsimd.inl"
