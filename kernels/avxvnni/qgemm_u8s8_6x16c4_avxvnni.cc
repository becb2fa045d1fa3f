// qgemm_u8s8_6x16c4__avxvnni: 6 rows x 16 columns, K in quads (kU8S8 layout), for CPUs with
// AVX-VNNI but no AVX-512 (Intel Alder Lake and later clients).
//
// The VEX-encoded vpdpbusd adds four u8 x s8 products straight into int32 like the AVX-512 one,
// so it is exact, and it does the work of vpmaddwd + vpaddd on twice the K per instruction. With
// sixteen ymm registers, 6 x 16 is the largest tile: twelve accumulators, two B vectors and one
// broadcast A quad. It also reads a u8 A in place (QGemmTileParams::a_row_stride), as the AVX-512
// VNNI kernels do.
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

#define CPUML_TIER avxvnni
#define CPUML_XSIMD_ARCH xsimd::avx2

#include "kernels/store_low_bytes_avx2.inl"
#include "kernels/a_quads.inl"
#include "kernels/block_prefetch.inl"
#include "kernels/requantize_xsimd.inl"

namespace cpuml {
namespace avxvnni {

namespace {

constexpr size_t kMr = 6, kNr = 16, kKr = 4;
constexpr size_t kGroupsPerIteration = 4;  // ForEachKGroup

// The dot products of the tile's first kRows rows (a packed A tile always has kMr rows).
template <size_t kRows, bool kAInPlace>
void DotRows(size_t k_groups, AQuads<kMr, kAInPlace> a, const __m256i* b, int32_t (*tile)[kNr],
             BlockPrefetch<1> prefetch) {
  __m256i acc[kRows][2];
#pragma GCC unroll 6
  for (size_t i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  ForEachKGroup<kGroupsPerIteration>(k_groups, prefetch, [&](size_t g) __attribute__((always_inline)) {
    const __m256i b0 = _mm256_load_si256(b + 2 * g), b1 = _mm256_load_si256(b + 2 * g + 1);
#pragma GCC unroll 6
    for (size_t i = 0; i < kRows; ++i) {
      const __m256i ai = _mm256_set1_epi32(a(i, g));
      acc[i][0] = _mm256_dpbusd_avx_epi32(acc[i][0], ai, b0);
      acc[i][1] = _mm256_dpbusd_avx_epi32(acc[i][1], ai, b1);
    }
  });
#pragma GCC unroll 6
  for (size_t i = 0; i < kRows; ++i) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i]), acc[i][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i] + 8), acc[i][1]);
  }
}

// One row (M = 1, decode) streams B: four groups per iteration into separate accumulators keep
// eight vpdpbusd chains in flight instead of two; B is prefetched 128 KB ahead into the outer
// caches and the hardware prefetchers bring it on into L1: a line 32 KB ahead into L1 as well
// cost Emerald Rapids (the tier capped, 10 interleaved rounds) a fifth, x1.26 at 1x4096x4096 and
// x1.23 at 1x4096x11008 without it. `kAStride`: int32 entries between A's K quads (6 in the 6-row
// layout, 1 in the one-row layout).
template <size_t kAStride>
void DotOneRow(size_t k_groups, const int32_t* a, const __m256i* b, int32_t* out) {
  constexpr size_t kUnroll = 4;
  __m256i acc[kUnroll][2];
  for (size_t u = 0; u < kUnroll; ++u) acc[u][0] = acc[u][1] = _mm256_setzero_si256();
  size_t g = 0;
  for (; g + kUnroll <= k_groups; g += kUnroll, a += kUnroll * kAStride, b += 2 * kUnroll) {
    _mm_prefetch(reinterpret_cast<const char*>(b + 4096), _MM_HINT_T2);
#pragma GCC unroll 4
    for (size_t u = 0; u < kUnroll; ++u) {
      const __m256i au = _mm256_set1_epi32(a[u * kAStride]);
      acc[u][0] = _mm256_dpbusd_avx_epi32(acc[u][0], au, _mm256_load_si256(b + 2 * u));
      acc[u][1] = _mm256_dpbusd_avx_epi32(acc[u][1], au, _mm256_load_si256(b + 2 * u + 1));
    }
  }
  for (; g < k_groups; ++g, a += kAStride, b += 2) {
    const __m256i a0 = _mm256_set1_epi32(a[0]);
    acc[0][0] = _mm256_dpbusd_avx_epi32(acc[0][0], a0, _mm256_load_si256(b));
    acc[0][1] = _mm256_dpbusd_avx_epi32(acc[0][1], a0, _mm256_load_si256(b + 1));
  }
  for (int h = 0; h < 2; ++h) {
    const __m256i sum = _mm256_add_epi32(_mm256_add_epi32(acc[0][h], acc[1][h]), _mm256_add_epi32(acc[2][h], acc[3][h]));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out + 8 * h), sum);
  }
}

}  // namespace

static void qgemm_u8s8_6x16c4__avxvnni(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                       const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m256i* b = static_cast<const __m256i*>(b_packed);
  alignas(32) int32_t tile[kMr][kNr];
  const BlockPrefetch<1> prefetch(*p, k_groups);
  WithRowCount<kMr>(mr, [&](auto rows) {
    constexpr size_t kRows = decltype(rows)::value;
    if (p->a_row_stride)
      DotRows<kRows>(k_groups, AQuads<kMr, true>(a_packed, p->a_row_stride), b, tile, prefetch);
    else if constexpr (kRows == 1)
      DotOneRow<kMr>(k_groups, a, b, tile[0]);
    else
      DotRows<kRows>(k_groups, AQuads<kMr, false>(a_packed, 0), b, tile, prefetch);
  });
  RequantizeTile<kNr>(&tile[0][0], mr, nr, p);
}

// M = 1 (decode): the same B layout with A packed as one row, so A's K bytes stay contiguous
// instead of spreading over the 6-row tile.
static void qgemm_u8s8_1x16c4__avxvnni(size_t, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                       const QGemmTileParams* p) {
  alignas(32) int32_t tile[1][kNr];
  DotOneRow<1>(k_groups, static_cast<const int32_t*>(a_packed), static_cast<const __m256i*>(b_packed), tile[0]);
  RequantizeTile<kNr>(&tile[0][0], 1, nr, p);
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_u8s8_1x16c4__avxvnni;
const QGemmKernel kQGemm_u8s8_1x16c4__avxvnni = {"qgemm_u8s8_1x16c4__avxvnni", 1, kNr, kKr, QGemmPacking::kU8S8, 1, 1,
                                                 qgemm_u8s8_1x16c4__avxvnni, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
extern const QGemmKernel kQGemm_u8s8_6x16c4__avxvnni;
const QGemmKernel kQGemm_u8s8_6x16c4__avxvnni = {"qgemm_u8s8_6x16c4__avxvnni", kMr, kNr, kKr, QGemmPacking::kU8S8, 1,
                                                 UINT32_MAX, qgemm_u8s8_6x16c4__avxvnni, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kU8Rows};

}  // namespace avxvnni
}  // namespace cpuml
