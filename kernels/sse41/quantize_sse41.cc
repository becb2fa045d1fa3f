// DYNAMIC_QUANTIZE_LINEAR rows for SSE4.1 (kernels/quantize_xsimd.inl).
#include <math.h>
#include <smmintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"

#define CPUML_TIER sse41
#define CPUML_XSIMD_ARCH xsimd::sse4_1

namespace cpuml {
namespace sse41 {
namespace {

inline void CpuStoreQuantized(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>& q) {
  const __m128i bytes = _mm_shuffle_epi8(q, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  const int32_t word = _mm_cvtsi128_si32(bytes);
  memcpy(dst, &word, sizeof word);
}

inline void CpuStoreQuantizedSaturated(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>* n, int16_t offset,
                                       uint8_t flip, bool streaming) {
  const __m128i add = _mm_set1_epi16(offset);
  const __m128i low = _mm_adds_epi16(_mm_packs_epi32(n[0], n[1]), add);
  const __m128i high = _mm_adds_epi16(_mm_packs_epi32(n[2], n[3]), add);
  const __m128i bytes = _mm_xor_si128(_mm_packus_epi16(low, high), _mm_set1_epi8(static_cast<char>(flip)));
  if (streaming)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), bytes);
  else
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), bytes);
}

}  // namespace
}  // namespace sse41
}  // namespace cpuml

#include "kernels/quantize_x86.inl"
#include "kernels/quantize_xsimd.inl"
