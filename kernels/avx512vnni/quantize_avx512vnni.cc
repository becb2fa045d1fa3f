// DYNAMIC_QUANTIZE_LINEAR rows for AVX-512 (kernels/quantize_xsimd.inl). Compiled with the fill
// flags (AVX-512 F/BW/VL/DQ, no VNNI), so CPUs with AVX-512 but no VNNI run them too.
#include <immintrin.h>
#include <math.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"

#define CPUML_TIER avx512vnni
#define CPUML_XSIMD_ARCH xsimd::avx512bw

namespace cpuml {
namespace avx512vnni {
namespace {

inline void CpuStoreQuantized(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>& q) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm512_cvtepi32_epi8(q));
}

}  // namespace
}  // namespace avx512vnni
}  // namespace cpuml

#include "kernels/quantize_x86.inl"
#include "kernels/quantize_xsimd.inl"
