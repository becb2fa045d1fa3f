// qgemm_x16_4x8c2__sse41: 4 rows x 8 columns, K in int16 pairs (kInt16Pairs layout).
// pmaddwd on int16 operands is exact here: see kernels/avx2/qgemm_x16_4x16c2_avx2.cc.
#include <immintrin.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace sse41 {

namespace {

constexpr size_t kMr = 4, kNr = 8;

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

void qgemm_x16_4x8c2__sse41(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                            const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m128i* b = static_cast<const __m128i*>(b_packed);
  alignas(32) int32_t tile[kMr][kNr];
  WithRowCount<kMr>(mr, [&](auto rows) { DotRows<decltype(rows)::value>(k_groups, a, b, tile); });

  for (size_t i = 0; i < mr; ++i) {
    __m128i v[2];
    for (int h = 0; h < 2; ++h) {
      v[h] = _mm_load_si128(reinterpret_cast<const __m128i*>(tile[i] + 4 * h));
      if (p->col_a)
        v[h] = _mm_add_epi32(v[h], _mm_mullo_epi32(_mm_set1_epi32(p->row_a[i]),
                                                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(p->col_a + 4 * h))));
      if (p->col_b)
        v[h] = _mm_add_epi32(v[h], _mm_mullo_epi32(_mm_set1_epi32(p->row_b[i]),
                                                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(p->col_b + 4 * h))));
    }
    if (p->acc_out) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p->acc_out + i * kNr), v[0]);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p->acc_out + i * kNr + 4), v[1]);
      continue;
    }
    const __m128 a_scale = _mm_set1_ps(p->a_scale[i]), out_scale = _mm_set1_ps(p->out_scale[i]);
    const __m128 lo = _mm_set1_ps(p->out_min[i]), hi = _mm_set1_ps(p->out_max[i]);
    const __m128i zero_point = _mm_set1_epi32(p->out_zero_point[i]);
    __m128i q[2];
    for (int h = 0; h < 2; ++h) {
      const __m128 multiplier = p->multiplier ? _mm_loadu_ps(p->multiplier + 4 * h)
                                              : _mm_div_ps(_mm_mul_ps(a_scale, _mm_loadu_ps(p->b_scale + 4 * h)), out_scale);
      __m128 y = _mm_mul_ps(_mm_cvtepi32_ps(v[h]), multiplier);
      y = _mm_min_ps(_mm_max_ps(y, lo), hi);  // max(y, lo) is lo for NaN y
      q[h] = _mm_add_epi32(_mm_cvtps_epi32(y), zero_point);
    }
    const __m128i words = _mm_packs_epi32(q[0], q[1]);
    const __m128i bytes = p->out_signed ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    uint8_t* out = static_cast<uint8_t*>(p->out) + i * p->out_row_stride;
    if (nr == kNr) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
    } else {
      alignas(16) uint8_t row[16];
      _mm_store_si128(reinterpret_cast<__m128i*>(row), bytes);
      memcpy(out, row, nr);
    }
  }
}

}  // namespace sse41
}  // namespace cpuml
