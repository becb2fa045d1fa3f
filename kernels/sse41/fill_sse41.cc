// fill_*__sse41: the xsimd fills (kernels/fill_xsimd.inl) instantiated for this tier.
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/common/half.h"

#define CPUML_TIER sse41
#define CPUML_XSIMD_ARCH xsimd::sse4_1

namespace cpuml {
namespace sse41 {
namespace {

template <class T>
inline void CpuStreamStore(T* p, const xsimd::batch<T, CPUML_XSIMD_ARCH>& b) {
  const auto r = static_cast<typename xsimd::batch<T, CPUML_XSIMD_ARCH>::register_type>(b);
  _mm_stream_si128(reinterpret_cast<__m128i*>(p), (__m128i)r);
}

inline void CpuStreamFence() { _mm_sfence(); }

// No F16C below AVX2: the same rounding through the scalar conversion.
inline void CpuFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) {
  alignas(16) float lanes[4];
  v.store_aligned(lanes);
  for (int l = 0; l < 4; ++l) dst[l] = FloatToHalf(lanes[l]);
}

// Four halves are 8 bytes, narrower than any non-temporal vector store here.
inline void CpuStreamFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) { CpuFloatToHalf(dst, v); }

}  // namespace
}  // namespace sse41
}  // namespace cpuml

#include "kernels/fill_xsimd.inl"
