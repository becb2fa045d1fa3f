// qgemm_x16_4x8c2__sse41: 4 rows x 8 columns, K in int16 pairs (kInt16Pairs layout).
// pmaddwd on int16 operands is exact here: see kernels/avx2/qgemm_x16_6x16c2_avx2.cc.
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

#define CPUML_TIER sse41
#define CPUML_XSIMD_ARCH xsimd::sse4_1

namespace cpuml {
namespace sse41 {
namespace {

inline void CpuStoreLowBytes(uint8_t* out, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>& q, size_t count) {
  const __m128i bytes = _mm_shuffle_epi8(q, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  const uint32_t word = static_cast<uint32_t>(_mm_cvtsi128_si32(bytes));
  memcpy(out, &word, count);
}

}  // namespace
}  // namespace sse41
}  // namespace cpuml

#include "kernels/requantize_xsimd.inl"

namespace cpuml {
namespace sse41 {

namespace {

constexpr size_t kMr = 4, kNr = 8, kKr = 2;

// The dot products of the tile's first kRows rows (the packed A tile always has kMr rows).
template <size_t kRows>
void DotRows(size_t k_groups, const int32_t* a, const __m128i* b, int32_t (*tile)[kNr]) {
  __m128i acc[kRows][2];
#pragma GCC unroll 4
  for (size_t i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm_setzero_si128();
  for (size_t g = 0; g < k_groups; ++g, a += kMr, b += 2) {
    const __m128i b0 = _mm_load_si128(b), b1 = _mm_load_si128(b + 1);
#pragma GCC unroll 4
    for (size_t i = 0; i < kRows; ++i) {
      const __m128i ai = _mm_set1_epi32(a[i]);
      acc[i][0] = _mm_add_epi32(acc[i][0], _mm_madd_epi16(ai, b0));
      acc[i][1] = _mm_add_epi32(acc[i][1], _mm_madd_epi16(ai, b1));
    }
  }
#pragma GCC unroll 4
  for (size_t i = 0; i < kRows; ++i) {
    _mm_store_si128(reinterpret_cast<__m128i*>(tile[i]), acc[i][0]);
    _mm_store_si128(reinterpret_cast<__m128i*>(tile[i] + 4), acc[i][1]);
  }
}

}  // namespace

static void qgemm_x16_4x8c2__sse41(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                            const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m128i* b = static_cast<const __m128i*>(b_packed);
  alignas(32) int32_t tile[kMr][kNr];
  WithRowCount<kMr>(mr, [&](auto rows) { DotRows<decltype(rows)::value>(k_groups, a, b, tile); });
  RequantizeTile<kNr>(&tile[0][0], mr, nr, p);
}


static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_x16_4x8c2__sse41;
const QGemmKernel kQGemm_x16_4x8c2__sse41 = {"qgemm_x16_4x8c2__sse41", kMr, kNr, kKr, QGemmPacking::kInt16Pairs, 1, UINT32_MAX, qgemm_x16_4x8c2__sse41, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};

}  // namespace sse41
}  // namespace cpuml
