// qgemm_x16_4x16c2__avx2: 4 rows x 16 columns, K in int16 pairs (kInt16Pairs layout).
//
// vpmaddwd on int16 operands (A - za in [-255, 255], B in [-128, 255]) cannot saturate: each
// pair sum is at most 2 * 255 * 255. This is the exact replacement for the vpmaddubsw chain that
// saturates u8 x s8 pairs to int16, at the same multiply-port cost on AVX2 machines.
#include <immintrin.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace avx2 {

namespace {

constexpr size_t kMr = 4, kNr = 16;

// The dot products of the tile's first kRows rows (the packed A tile always has kMr rows).
template <size_t kRows>
void DotRows(size_t k_groups, const int32_t* a, const __m256i* b, int32_t (*tile)[kNr]) {
  __m256i acc[kRows][2];
#pragma GCC unroll 4
  for (size_t i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  for (size_t g = 0; g < k_groups; ++g, a += kMr, b += 2) {
    const __m256i b0 = _mm256_load_si256(b), b1 = _mm256_load_si256(b + 1);
#pragma GCC unroll 4
    for (size_t i = 0; i < kRows; ++i) {
      const __m256i ai = _mm256_set1_epi32(a[i]);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(ai, b0));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(ai, b1));
    }
  }
#pragma GCC unroll 4
  for (size_t i = 0; i < kRows; ++i) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i]), acc[i][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i] + 8), acc[i][1]);
  }
}

}  // namespace

void qgemm_x16_4x16c2__avx2(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                            const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m256i* b = static_cast<const __m256i*>(b_packed);
  alignas(32) int32_t tile[kMr][kNr];
  WithRowCount<kMr>(mr, [&](auto rows) { DotRows<decltype(rows)::value>(k_groups, a, b, tile); });

  for (size_t i = 0; i < mr; ++i) {
    __m256i v[2];
    for (int h = 0; h < 2; ++h) {
      v[h] = _mm256_load_si256(reinterpret_cast<const __m256i*>(tile[i] + 8 * h));
      if (p->col_a)
        v[h] = _mm256_add_epi32(v[h], _mm256_mullo_epi32(_mm256_set1_epi32(p->row_a[i]),
                                                         _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p->col_a + 8 * h))));
      if (p->col_b)
        v[h] = _mm256_add_epi32(v[h], _mm256_mullo_epi32(_mm256_set1_epi32(p->row_b[i]),
                                                         _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p->col_b + 8 * h))));
    }
    if (p->acc_out) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p->acc_out + i * kNr), v[0]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p->acc_out + i * kNr + 8), v[1]);
      continue;
    }
    const __m256 a_scale = _mm256_set1_ps(p->a_scale[i]), out_scale = _mm256_set1_ps(p->out_scale[i]);
    const __m256 lo = _mm256_set1_ps(p->out_min[i]), hi = _mm256_set1_ps(p->out_max[i]);
    const __m256i zero_point = _mm256_set1_epi32(p->out_zero_point[i]);
    __m256i q[2];
    for (int h = 0; h < 2; ++h) {
      const __m256 multiplier =
          p->multiplier ? _mm256_loadu_ps(p->multiplier + 8 * h)
                        : _mm256_div_ps(_mm256_mul_ps(a_scale, _mm256_loadu_ps(p->b_scale + 8 * h)), out_scale);
      __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(v[h]), multiplier);
      y = _mm256_min_ps(_mm256_max_ps(y, lo), hi);  // max(y, lo) is lo for NaN y
      q[h] = _mm256_add_epi32(_mm256_cvtps_epi32(y), zero_point);
    }
    // Values are in the output range already, so the saturating packs only narrow.
    const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xD8);
    const __m128i lo_words = _mm256_castsi256_si128(words), hi_words = _mm256_extracti128_si256(words, 1);
    const __m128i bytes = p->out_signed ? _mm_packs_epi16(lo_words, hi_words) : _mm_packus_epi16(lo_words, hi_words);
    uint8_t* out = static_cast<uint8_t*>(p->out) + i * p->out_row_stride;
    if (nr == kNr) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
    } else {
      alignas(16) uint8_t row[kNr];
      _mm_store_si128(reinterpret_cast<__m128i*>(row), bytes);
      memcpy(out, row, nr);
    }
  }
}

}  // namespace avx2
}  // namespace cpuml
