// qgemm_u8s8_8x32c4__avx512vnni: 8 rows x 32 columns, K in quads (kU8S8 layout).
//
// vpdpbusd multiplies u8 by s8 and adds four products straight into int32, with no int16
// intermediate, so it is exact. s8 A and u8 B are shifted into its domain at packing; the
// row/column terms of the epilogue undo the shifts (src/qgemm_pack.cc).
#include <immintrin.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace avx512vnni {

namespace {

constexpr size_t kMr = 8, kNr = 32;

// The dot products of the tile's first kRows rows (the packed A tile always has kMr rows):
// a short edge tile or a small M costs only its own rows.
template <size_t kRows>
void DotRows(size_t k_groups, const int32_t* a, const __m512i* b, int32_t (*tile)[kNr]) {
  __m512i acc[kRows][2];
#pragma GCC unroll 8
  for (size_t i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  for (size_t g = 0; g < k_groups; ++g, a += kMr, b += 2) {
    const __m512i b0 = _mm512_load_si512(b), b1 = _mm512_load_si512(b + 1);
#pragma GCC unroll 8
    for (size_t i = 0; i < kRows; ++i) {
      const __m512i ai = _mm512_set1_epi32(a[i]);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], ai, b1);
    }
  }
#pragma GCC unroll 8
  for (size_t i = 0; i < kRows; ++i) {
    _mm512_store_si512(tile[i], acc[i][0]);
    _mm512_store_si512(tile[i] + 16, acc[i][1]);
  }
}

// One row (M = 1, LLM decode) is bound by streaming B, not by arithmetic: four groups per
// iteration into separate accumulators keep eight vpdpbusd chains in flight instead of two,
// and B is fetched well ahead of use.
template <>
void DotRows<1>(size_t k_groups, const int32_t* a, const __m512i* b, int32_t (*tile)[kNr]) {
  constexpr size_t kUnroll = 4;
  __m512i acc[kUnroll][2];
  for (size_t u = 0; u < kUnroll; ++u) acc[u][0] = acc[u][1] = _mm512_setzero_si512();
  size_t g = 0;
  for (; g + kUnroll <= k_groups; g += kUnroll, a += kUnroll * kMr, b += 2 * kUnroll) {
    _mm_prefetch(reinterpret_cast<const char*>(b + 32), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(b + 36), _MM_HINT_T0);
#pragma GCC unroll 4
    for (size_t u = 0; u < kUnroll; ++u) {
      const __m512i au = _mm512_set1_epi32(a[u * kMr]);
      acc[u][0] = _mm512_dpbusd_epi32(acc[u][0], au, _mm512_load_si512(b + 2 * u));
      acc[u][1] = _mm512_dpbusd_epi32(acc[u][1], au, _mm512_load_si512(b + 2 * u + 1));
    }
  }
  for (; g < k_groups; ++g, a += kMr, b += 2) {
    const __m512i a0 = _mm512_set1_epi32(a[0]);
    acc[0][0] = _mm512_dpbusd_epi32(acc[0][0], a0, _mm512_load_si512(b));
    acc[0][1] = _mm512_dpbusd_epi32(acc[0][1], a0, _mm512_load_si512(b + 1));
  }
  for (int h = 0; h < 2; ++h) {
    const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(acc[0][h], acc[1][h]), _mm512_add_epi32(acc[2][h], acc[3][h]));
    _mm512_store_si512(tile[0] + 16 * h, sum);
  }
}

}  // namespace

void qgemm_u8s8_8x32c4__avx512vnni(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                   const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m512i* b = static_cast<const __m512i*>(b_packed);
  alignas(64) int32_t tile[kMr][kNr];
  WithRowCount<kMr>(mr, [&](auto rows) { DotRows<decltype(rows)::value>(k_groups, a, b, tile); });

  const __mmask16 store_mask[2] = {
      static_cast<__mmask16>(nr >= 16 ? 0xFFFFu : (1u << nr) - 1u),
      static_cast<__mmask16>(nr >= 32 ? 0xFFFFu : nr <= 16 ? 0u : (1u << (nr - 16)) - 1u)};
  for (size_t i = 0; i < mr; ++i) {
    __m512i v[2];
    for (int h = 0; h < 2; ++h) {
      v[h] = _mm512_load_si512(tile[i] + 16 * h);
      if (p->col_a)
        v[h] = _mm512_add_epi32(v[h], _mm512_mullo_epi32(_mm512_set1_epi32(p->row_a[i]), _mm512_loadu_si512(p->col_a + 16 * h)));
      if (p->col_b)
        v[h] = _mm512_add_epi32(v[h], _mm512_mullo_epi32(_mm512_set1_epi32(p->row_b[i]), _mm512_loadu_si512(p->col_b + 16 * h)));
    }
    if (p->acc_out) {
      _mm512_storeu_si512(p->acc_out + i * kNr, v[0]);
      _mm512_storeu_si512(p->acc_out + i * kNr + 16, v[1]);
      continue;
    }
    const __m512 a_scale = _mm512_set1_ps(p->a_scale[i]), out_scale = _mm512_set1_ps(p->out_scale[i]);
    const __m512 lo = _mm512_set1_ps(p->out_min[i]), hi = _mm512_set1_ps(p->out_max[i]);
    const __m512i zero_point = _mm512_set1_epi32(p->out_zero_point[i]);
    uint8_t* out = static_cast<uint8_t*>(p->out) + i * p->out_row_stride;
    for (int h = 0; h < 2; ++h) {
      const __m512 multiplier =
          p->multiplier ? _mm512_loadu_ps(p->multiplier + 16 * h)
                        : _mm512_div_ps(_mm512_mul_ps(a_scale, _mm512_loadu_ps(p->b_scale + 16 * h)), out_scale);
      __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(v[h]), multiplier);
      y = _mm512_min_ps(_mm512_max_ps(y, lo), hi);  // max(y, lo) is lo for NaN y
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(y), zero_point);
      // In range already: the saturating narrowing only narrows.
      const __m128i bytes = p->out_signed ? _mm512_cvtsepi32_epi8(q) : _mm512_cvtusepi32_epi8(q);
      _mm_mask_storeu_epi8(out + 16 * h, store_mask[h], bytes);
    }
  }
}

}  // namespace avx512vnni
}  // namespace cpuml
