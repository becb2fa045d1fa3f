// qgemm_x16_6x16c2__avx2: 6 rows x 16 columns, K in int16 pairs (kInt16Pairs layout).
//
// vpmaddwd on int16 operands (A - za in [-255, 255], B in [-128, 255]) cannot saturate: each
// pair sum is at most 2 * 255 * 255. This is the exact replacement for the vpmaddubsw chain that
// saturates u8 x s8 pairs to int16, at the same multiply-port cost on AVX2 machines.
//
// Six rows fill the sixteen ymm registers (twelve accumulators, two B vectors, the broadcast A
// pair, the product) so each B load serves six vpmaddwd: on Zen 4 this ran 1024^3 at 0.88 of the
// vpmaddwd + vpaddd probe against 0.71 for 4 x 16.
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

#define CPUML_TIER avx2
#define CPUML_XSIMD_ARCH xsimd::avx2

#include "kernels/store_low_bytes_avx2.inl"
#include "kernels/block_prefetch.inl"
#include "kernels/requantize_xsimd.inl"

namespace cpuml {
namespace avx2 {

namespace {

constexpr size_t kMr = 6, kNr = 16, kKr = 2;

// The dot products of the tile's first kRows rows (the packed A tile always has kMr rows).
// `carried`: the dot products of earlier K blocks ([kMr][kNr]), or NULL to start from zero.
template <size_t kRows>
void DotRows(size_t k_groups, const int32_t* a, const __m256i* b, const int32_t* carried, int32_t (*tile)[kNr],
             BlockPrefetch<1> prefetch) {
  __m256i acc[kRows][2];
  constexpr size_t kLanes = sizeof(__m256i) / 4;
#pragma GCC unroll 6
  for (size_t i = 0; i < kRows; ++i) {
    if (carried) {
      acc[i][0] = _mm256_load_si256(reinterpret_cast<const __m256i*>(carried + i * kNr));
      acc[i][1] = _mm256_load_si256(reinterpret_cast<const __m256i*>(carried + i * kNr + kLanes));
    } else {
      acc[i][0] = acc[i][1] = _mm256_setzero_si256();
    }
  }
  for (size_t g = 0; g < k_groups; ++g, a += kMr, b += 2) {
    prefetch.Step();  // the next B block into L2, a line per K group
    const __m256i b0 = _mm256_load_si256(b), b1 = _mm256_load_si256(b + 1);
#pragma GCC unroll 6
    for (size_t i = 0; i < kRows; ++i) {
      const __m256i ai = _mm256_set1_epi32(a[i]);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(ai, b0));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(ai, b1));
    }
  }
#pragma GCC unroll 6
  for (size_t i = 0; i < kRows; ++i) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i]), acc[i][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i] + 8), acc[i][1]);
  }
}

}  // namespace

static void qgemm_x16_6x16c2__avx2(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                            const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m256i* b = static_cast<const __m256i*>(b_packed);
  alignas(32) int32_t own_tile[kMr][kNr];
  // A K block before the last leaves its dot products in the front end's carry.
  int32_t(*tile)[kNr] = p->dot_out ? reinterpret_cast<int32_t(*)[kNr]>(p->dot_out) : own_tile;
  const BlockPrefetch<1> prefetch(*p, k_groups);
  WithRowCount<kMr>(mr, [&](auto rows) {
    DotRows<decltype(rows)::value>(k_groups, a, b, p->dot_in, tile, prefetch);
  });
  if (p->dot_out) return;
  RequantizeTile<kNr>(&tile[0][0], mr, nr, p);
}


static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
static_assert(kMr * kNr <= kMaxKBlockTileElements, "tile larger than the front end's K-block carry");
// K blocks of 512: the block of a B panel (16 KB of int16 pairs) stays in L1 while the row
// block's tiles pass over it.
constexpr uint32_t kKBlockGroups = 256;
extern const QGemmKernel kQGemm_x16_6x16c2__avx2;
const QGemmKernel kQGemm_x16_6x16c2__avx2 = {"qgemm_x16_6x16c2__avx2", kMr, kNr, kKr, QGemmPacking::kInt16Pairs, 1, UINT32_MAX, qgemm_x16_6x16c2__avx2, nullptr, nullptr, kKBlockGroups, 0, 0, QGemmAInPlace::kNever};

}  // namespace avx2
}  // namespace cpuml
