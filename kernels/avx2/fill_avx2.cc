// fill_*__avx2: the xsimd fills (kernels/fill_xsimd.inl) instantiated for this tier.
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/common/half.h"

#define CPUML_TIER avx2
#define CPUML_XSIMD_ARCH xsimd::avx2

namespace cpuml {
namespace avx2 {
namespace {

template <class T>
inline void CpuStreamStore(T* p, const xsimd::batch<T, CPUML_XSIMD_ARCH>& b) {
  const auto r = static_cast<typename xsimd::batch<T, CPUML_XSIMD_ARCH>::register_type>(b);
  _mm256_stream_si256(reinterpret_cast<__m256i*>(p), (__m256i)r);
}

inline void CpuStreamFence() { _mm_sfence(); }


inline void CpuFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

inline void CpuStreamFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) {
  _mm_stream_si128(reinterpret_cast<__m128i*>(dst), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

}  // namespace
}  // namespace avx2
}  // namespace cpuml

#include "kernels/fill_xsimd.inl"
