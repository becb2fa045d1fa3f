// fill_*__avx512vnni: the xsimd fills (kernels/fill_xsimd.inl) instantiated for this tier.
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/common/half.h"

#define CPUML_TIER avx512vnni
#define CPUML_XSIMD_ARCH xsimd::avx512bw

namespace cpuml {
namespace avx512vnni {
namespace {

template <class T>
inline void CpuStreamStore(T* p, const xsimd::batch<T, CPUML_XSIMD_ARCH>& b) {
  const auto r = static_cast<typename xsimd::batch<T, CPUML_XSIMD_ARCH>::register_type>(b);
  _mm512_stream_si512(reinterpret_cast<__m512i*>(p), (__m512i)r);
}

inline void CpuStreamFence() { _mm_sfence(); }


inline void CpuFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

inline void CpuStreamFloatToHalf(uint16_t* dst, const xsimd::batch<float, CPUML_XSIMD_ARCH>& v) {
  _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

}  // namespace
}  // namespace avx512vnni
}  // namespace cpuml

#include "kernels/fill_xsimd.inl"
