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

// packssdw and packuswb work within 128-bit lanes: lane k holds dwords k of n[0], n[1], n[2], n[3]
// in turn, and one dword permutation puts each vector's 16 bytes together.
inline void CpuStoreQuantizedSaturated(uint8_t* dst, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>* n, int16_t offset,
                                       uint8_t flip, bool streaming) {
  const __m512i add = _mm512_set1_epi16(offset);
  const __m512i low = _mm512_adds_epi16(_mm512_packs_epi32(n[0], n[1]), add);
  const __m512i high = _mm512_adds_epi16(_mm512_packs_epi32(n[2], n[3]), add);
  const __m512i bytes = _mm512_xor_si512(_mm512_packus_epi16(low, high), _mm512_set1_epi8(static_cast<char>(flip)));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i ordered = _mm512_permutexvar_epi32(order, bytes);
  if (streaming)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), ordered);
  else
    _mm512_storeu_si512(dst, ordered);
}

}  // namespace
}  // namespace avx512vnni
}  // namespace cpuml

#include "kernels/quantize_x86.inl"
#include "kernels/quantize_xsimd.inl"
