// qgemm_u8s8_1x16c4__avx2: one row (M = 1, LLM decode) x 16 columns, K in quads (kU8S8 layout:
// A as u8, B as s8, one byte each); qgemm_u8s8_2x16c4__avx2, the same for M = 2.
//
// A decode step reads every byte of B once, so its speed is B's bytes over the memory system's
// bandwidth. The 6 x 16 kernel's int16 layout doubles those bytes; this one keeps B at one byte
// per value and widens in registers: vpmovsxbw of B and vpmovzxbw of A give int16 operands for
// vpmaddwd, whose pair sums (at most 2 * 255 * 128) cannot saturate, so the result is as exact
// as every tier's. Each group's four 16-byte loads cover 4 columns x 4 K; the pair sums of a
// column are added together once, after the loop. B's stream is prefetched 1 KB ahead into L1,
// a line at a time: on Zen 3 (AMD EPYC, 2 vCPUs) the hardware prefetchers alone kept one thread at
// about 0.65 of the read-bandwidth probe; with it, 4 interleaved rounds, 1x4096x11008,
// 1x11008x4096 and 1x4096x14336 ran 1.06-1.27x at one thread and 1.14-1.22x at two (512 bytes
// ahead 0.93-1.17x; 4 KB ahead into L2 alike but for 0.97x at two threads).
#include <immintrin.h>
#include <string.h>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

#define CPUML_TIER avx2
#define CPUML_XSIMD_ARCH xsimd::avx2

#include "kernels/store_low_bytes_avx2.inl"
#include "kernels/requantize_xsimd.inl"

namespace cpuml {
namespace avx2 {

namespace {

constexpr size_t kNr = 16, kKr = 4;  // a group is four 16-byte loads of 4 columns x 4 K
constexpr size_t kGroupBytes = kNr * kKr;  // one cache line
constexpr size_t kPrefetchAhead = 1024;

inline void PrefetchB(const uint8_t* b) { _mm_prefetch(reinterpret_cast<const char*>(b + kPrefetchAhead), _MM_HINT_T0); }

// A's quad (a0..a3) as int16, four times: a broadcast load and one widening.
// (vbroadcastss is a load alone; _mm_set1_epi32 compiles to a load, a move and a shuffle.)
inline __m256i WidenQuad(const int32_t* a) {
  return _mm256_cvtepu8_epi16(_mm_castps_si128(_mm_broadcast_ss(reinterpret_cast<const float*>(a))));
}

inline __m256i LoadQuarter(const uint8_t* b, size_t q) {
  return _mm256_cvtepi8_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(b + 16 * q)));
}

// The column sums of four accumulators of pair sums ([c0 c0 c1 c1 | c2 c2 c3 c3] each) into
// columns 0..7 and 8..15.
inline __m256i SumPairs(__m256i lo, __m256i hi) {
  // vphaddd works per 128-bit lane: [c0 c1 c4 c5 | c2 c3 c6 c7]; then the 64-bit quarters in order.
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), _MM_SHUFFLE(3, 1, 2, 0));
}

}  // namespace

static void qgemm_u8s8_1x16c4__avx2(size_t, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                    const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const uint8_t* b = static_cast<const uint8_t*>(b_packed);
  // Two groups per iteration; one accumulator per quarter (vpaddd's one-cycle latency does not
  // bound the chain), which leaves GCC 12 enough registers to keep them out of memory.
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0;
  size_t g = 0;
  for (; g + 2 <= k_groups; g += 2, a += 2, b += 2 * kGroupBytes) {
    const __m256i a0 = WidenQuad(a), a1 = WidenQuad(a + 1);
    const uint8_t* b1 = b + kGroupBytes;
    PrefetchB(b);
    PrefetchB(b1);
    c0 = _mm256_add_epi32(c0, _mm256_add_epi32(_mm256_madd_epi16(a0, LoadQuarter(b, 0)),
                                               _mm256_madd_epi16(a1, LoadQuarter(b1, 0))));
    c1 = _mm256_add_epi32(c1, _mm256_add_epi32(_mm256_madd_epi16(a0, LoadQuarter(b, 1)),
                                               _mm256_madd_epi16(a1, LoadQuarter(b1, 1))));
    c2 = _mm256_add_epi32(c2, _mm256_add_epi32(_mm256_madd_epi16(a0, LoadQuarter(b, 2)),
                                               _mm256_madd_epi16(a1, LoadQuarter(b1, 2))));
    c3 = _mm256_add_epi32(c3, _mm256_add_epi32(_mm256_madd_epi16(a0, LoadQuarter(b, 3)),
                                               _mm256_madd_epi16(a1, LoadQuarter(b1, 3))));
  }
  if (g < k_groups) {
    const __m256i a0 = WidenQuad(a);
    c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(a0, LoadQuarter(b, 0)));
    c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(a0, LoadQuarter(b, 1)));
    c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(a0, LoadQuarter(b, 2)));
    c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(a0, LoadQuarter(b, 3)));
  }
  alignas(32) int32_t tile[1][kNr];
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[0]), SumPairs(c0, c1));
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[0] + 8), SumPairs(c2, c3));
  RequantizeTile<kNr>(&tile[0][0], 1, nr, p);
}

// M = 2 (batched decode): the same widening, each widened quarter of B serving both rows. The
// 6 x 16 kernel streams B as int16 pairs, twice its bytes, and packs A six rows to a group; here
// B stays one byte per value and A two rows to a group. (Three rows need twelve accumulators,
// and GCC then spills them: M = 3 ran no faster than the 6 x 16 kernel.)
constexpr size_t kSmallMr = 2;

namespace {

template <size_t kRows>
void DotRowsWidened(size_t k_groups, const int32_t* a, const uint8_t* b, int32_t (*tile)[kNr]) {
  __m256i acc[kRows][4];
  for (size_t r = 0; r < kRows; ++r)
    for (size_t q = 0; q < 4; ++q) acc[r][q] = _mm256_setzero_si256();
  for (size_t g = 0; g < k_groups; ++g, a += kSmallMr, b += kGroupBytes) {
    PrefetchB(b);
    __m256i quads[kRows];
    for (size_t r = 0; r < kRows; ++r) quads[r] = WidenQuad(a + r);
    for (size_t q = 0; q < 4; ++q) {
      const __m256i quarter = LoadQuarter(b, q);
      for (size_t r = 0; r < kRows; ++r) acc[r][q] = _mm256_add_epi32(acc[r][q], _mm256_madd_epi16(quads[r], quarter));
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r]), SumPairs(acc[r][0], acc[r][1]));
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r] + 8), SumPairs(acc[r][2], acc[r][3]));
  }
}

}  // namespace

static void qgemm_u8s8_2x16c4__avx2(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                    const QGemmTileParams* p) {
  alignas(32) int32_t tile[kSmallMr][kNr];
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const uint8_t* b = static_cast<const uint8_t*>(b_packed);
  WithRowCount<kSmallMr>(mr, [&](auto rows) { DotRowsWidened<decltype(rows)::value>(k_groups, a, b, tile); });
  RequantizeTile<kNr>(&tile[0][0], mr, nr, p);
}

static_assert(kSmallMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_u8s8_2x16c4__avx2;
const QGemmKernel kQGemm_u8s8_2x16c4__avx2 = {"qgemm_u8s8_2x16c4__avx2", kSmallMr, kNr, kKr, QGemmPacking::kU8S8, 2, kSmallMr,
                                             qgemm_u8s8_2x16c4__avx2, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};

static_assert(kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_u8s8_1x16c4__avx2;
const QGemmKernel kQGemm_u8s8_1x16c4__avx2 = {"qgemm_u8s8_1x16c4__avx2", 1, kNr, kKr, QGemmPacking::kU8S8, 1, 1,
                                             qgemm_u8s8_1x16c4__avx2, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};

}  // namespace avx2
}  // namespace cpuml
