// DYNAMIC_QUANTIZE_LINEAR rows for AVX2 (kernels/quantize_xsimd.inl).
#include <immintrin.h>
#include <math.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"

#define CPUML_TIER avx2
#define CPUML_XSIMD_ARCH xsimd::avx2

namespace cpuml {
namespace avx2 {
namespace {

inline void CpuStoreQuantized(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>& q) {
  // Low bytes to the bottom of each 128-bit lane, then the two lanes' first words together.
  const __m256i picked = _mm256_shuffle_epi8(q, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  const __m256i words = _mm256_permutevar8x32_epi32(picked, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm256_castsi256_si128(words));
}

}  // namespace
}  // namespace avx2
}  // namespace cpuml

#include "kernels/quantize_x86.inl"
#include "kernels/quantize_xsimd.inl"
