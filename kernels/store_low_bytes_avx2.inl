// CpuStoreLowBytes for 256-bit tiers: included by each such tier's kernel file after it defines
// CPUML_TIER, so every copy lives in that tier's namespace and is compiled with its flags only
// (the contract requantize_xsimd.inl expects).
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

namespace cpuml {
namespace CPUML_TIER {
namespace {

inline void CpuStoreLowBytes(uint8_t* out, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>& q, size_t count) {
  // Low bytes to the bottom of each 128-bit lane, then the two lanes' first words together.
  const __m256i picked = _mm256_shuffle_epi8(q, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  const __m128i bytes = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(picked, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1)));
  if (count == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
  } else {
    alignas(16) uint8_t row[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(row), bytes);
    memcpy(out, row, count);
  }
}

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
