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

// packssdw and packuswb work within 128-bit lanes: lane k holds the dword pairs k of n[0..3] in
// turn, and one dword permutation puts each vector's 8 bytes together.
inline void CpuStoreQuantizedSaturated(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>* n, int16_t offset,
                                       uint8_t flip, bool streaming) {
  const __m256i add = _mm256_set1_epi16(offset);
  const __m256i low = _mm256_adds_epi16(_mm256_packs_epi32(n[0], n[1]), add);
  const __m256i high = _mm256_adds_epi16(_mm256_packs_epi32(n[2], n[3]), add);
  const __m256i bytes = _mm256_xor_si256(_mm256_packus_epi16(low, high), _mm256_set1_epi8(static_cast<char>(flip)));
  const __m256i ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  if (streaming)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), ordered);
  else
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), ordered);
}

}  // namespace
}  // namespace avx2
}  // namespace cpuml

#include "kernels/quantize_x86.inl"
#include "kernels/quantize_xsimd.inl"
