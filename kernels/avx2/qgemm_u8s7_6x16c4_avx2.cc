// qgemm_u8s7_6x16c4__avx2: 6 rows x 16 columns, K in quads (kU8S8 layout), for a B whose packed
// s8 values all lie in [-64, 64] (reduce-range weights): the front end picks it only for a B the
// operator owns and has checked at initialize (QGemmKernel::max_b_magnitude).
//
// vpmaddubsw multiplies u8 A by s8 B and adds adjacent pairs into int16, saturating: with full
// 8-bit B a pair reaches 2 * 255 * 128 = 65280 and is clipped (the error of the u8 x s8 AVX2
// kernels of other libraries). With |b| <= 64 a pair is at most 2 * 255 * 64 = 32640, so nothing
// saturates and vpmaddwd against ones widens the pairs exactly into int32 quads. That is two
// multiplies per 32 products against the int16 kernel's two per 16 plus its adds: on Zen 4 it
// issues 117 products per ns against 93 (probe, one core).
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

constexpr size_t kMr = 6, kNr = 16, kKr = 4;
constexpr uint32_t kMaxBMagnitude = 64;  // 255 * (64 + 64) = 32640 <= 32767
static_assert(255 * 2 * kMaxBMagnitude <= 32767, "a vpmaddubsw pair sum must fit int16");

// The quads' dot products of one broadcast A quad against 8 columns of B, exact for |b| <= 64.
// B stays vpmaddubsw's memory operand: as an intrinsic GCC hoists the two B loads into registers,
// which are then one short and an accumulator spills to the stack on every K quad.
inline __m256i DotQuads(__m256i a_quad, const __m256i* b, __m256i ones) {
  __m256i pairs;
  __asm__("vpmaddubsw %2, %1, %0" : "=x"(pairs) : "x"(a_quad), "m"(*b));
  return _mm256_madd_epi16(pairs, ones);
}

// The dot products of the tile's first kRows rows (the packed A tile always has kMr rows). Twelve
// accumulators, the ones vector, a broadcast and a product fit the sixteen registers; B comes in
// as vpmaddubsw's memory operand (two L1 loads per row and quad, within two loads a cycle).
template <size_t kRows>
void DotRows(size_t k_groups, const int32_t* a, const __m256i* b, int32_t (*tile)[kNr],
             BlockPrefetch<1> prefetch) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[kRows][2];
#pragma GCC unroll 6
  for (size_t i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  for (size_t g = 0; g < k_groups; ++g, a += kMr, b += 2) {
    prefetch.Step();  // the next B block into L2, a line per K group
#pragma GCC unroll 6
    for (size_t i = 0; i < kRows; ++i) {
      const __m256i ai = _mm256_set1_epi32(a[i]);
      acc[i][0] = _mm256_add_epi32(acc[i][0], DotQuads(ai, b, ones));
      acc[i][1] = _mm256_add_epi32(acc[i][1], DotQuads(ai, b + 1, ones));
    }
  }
#pragma GCC unroll 6
  for (size_t i = 0; i < kRows; ++i) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i]), acc[i][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[i] + 8), acc[i][1]);
  }
}

}  // namespace

static void qgemm_u8s7_6x16c4__avx2(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                    const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m256i* b = static_cast<const __m256i*>(b_packed);
  alignas(32) int32_t tile[kMr][kNr];
  const BlockPrefetch<1> prefetch(*p, k_groups);
  WithRowCount<kMr>(mr, [&](auto rows) {
    DotRows<decltype(rows)::value>(k_groups, a, b, tile, prefetch);
  });
  RequantizeTile<kNr>(&tile[0][0], mr, nr, p);
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_u8s7_6x16c4__avx2;
const QGemmKernel kQGemm_u8s7_6x16c4__avx2 = {"qgemm_u8s7_6x16c4__avx2", kMr, kNr, kKr, QGemmPacking::kU8S8, 1,
                                              UINT32_MAX, qgemm_u8s7_6x16c4__avx2, nullptr, nullptr, 0, kMaxBMagnitude, 0, QGemmAInPlace::kNever};

}  // namespace avx2
}  // namespace cpuml
