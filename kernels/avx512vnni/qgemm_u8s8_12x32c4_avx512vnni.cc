// qgemm_u8s8_12x32c4__avx512vnni: 12 rows x 32 columns, K in quads (kU8S8 layout), and the
// same loop for small M: qgemm_u8s8_4x32c4 (M = 2..4) and qgemm_u8s8_1x32c4_pfl1 (M = 1).
//
// vpdpbusd multiplies u8 by s8 and adds four products straight into int32, with no int16
// intermediate, so it is exact. s8 A and u8 B are shifted into its domain at packing; the
// row/column terms of the epilogue undo the shifts (src/qgemm_pack.cc).
//
// Twelve rows: 24 accumulators, two B vectors and the broadcast A quad in 27 of the 32 zmm
// registers, so each B load serves twelve vpdpbusd (8 x 32 left a third of the registers idle).
// A few rows (M = 2..4: batched decode, speculative decoding) stream B like M = 1, and A packed
// twelve rows to a group would spread their K over 48 KB (at K = 4096), more than Zen 4's L1
// beside B's stream; packed four rows to a group it takes 16 KB.
//
// The 12- and 4-row kernels also read a u8 A in place (QGemmTileParams::a_row_stride): a u8 row is
// already in vpdpbusd's domain, so its quads are broadcast straight from the caller's rows.
#include <immintrin.h>
#include <string.h>

#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

#define CPUML_TIER avx512vnni
#define CPUML_XSIMD_ARCH xsimd::avx512bw

#include "kernels/a_quads.inl"
#include "kernels/block_prefetch.inl"
#include "kernels/requantize_xsimd.inl"

namespace cpuml {
namespace avx512vnni {

namespace {

constexpr size_t kMr = 12, kSmallMr = 4, kNr = 32, kKr = 4;
constexpr size_t kGroupsPerIteration = 4;  // ForEachKGroup

template <size_t kAStride>
void DotOneRow(size_t k_groups, const int32_t* a, const __m512i* b, const int32_t* carried, int32_t* out);

// The dot products of the tile's first kRows rows (a packed A tile always has kTileRows rows):
// a short edge tile or a small M costs only its own rows.
// `carried`: the dot products of earlier K blocks ([kTileRows][kNr]), or NULL to start from zero.
// kPrefetchL1: every line of B requested into L1 4 KB ahead (B streams: one tile's row block).
template <size_t kTileRows, size_t kRows, bool kAInPlace, bool kPrefetchL1>
void DotRows(size_t k_groups, AQuads<kTileRows, kAInPlace> a, const __m512i* b, const int32_t* carried,
             int32_t (*tile)[kNr], BlockPrefetch<1> prefetch) {
  __m512i acc[kRows][2];
  constexpr size_t kLanes = sizeof(__m512i) / 4;
#pragma GCC unroll 12
  for (size_t i = 0; i < kRows; ++i) {
    if (carried) {
      acc[i][0] = _mm512_load_si512(reinterpret_cast<const __m512i*>(carried + i * kNr));
      acc[i][1] = _mm512_load_si512(reinterpret_cast<const __m512i*>(carried + i * kNr + kLanes));
    } else {
      acc[i][0] = acc[i][1] = _mm512_setzero_si512();
    }
  }
  ForEachKGroup<kGroupsPerIteration>(k_groups, prefetch, [&](size_t g) __attribute__((always_inline)) {
    if (kPrefetchL1) {  // written out: through a shared inline helper, GCC 12 emitted none of these
      _mm_prefetch(reinterpret_cast<const char*>(b + 2 * g + 64), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(b + 2 * g + 65), _MM_HINT_T0);
    }
    const __m512i b0 = _mm512_load_si512(b + 2 * g), b1 = _mm512_load_si512(b + 2 * g + 1);
#pragma GCC unroll 12
    for (size_t i = 0; i < kRows; ++i) {
      const __m512i ai = _mm512_set1_epi32(a(i, g));
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], ai, b1);
    }
  });
#pragma GCC unroll 12
  for (size_t i = 0; i < kRows; ++i) {
    _mm512_store_si512(tile[i], acc[i][0]);
    _mm512_store_si512(tile[i] + 16, acc[i][1]);
  }
}

// One row (M = 1, LLM decode): four groups per iteration into separate accumulators keep eight
// vpdpbusd chains in flight instead of two. `kAStride`: int32 entries between A's K quads (the
// tile's row count in the 12- and 4-row layouts, 1 in the one-row layout).
// Every line of B is requested into L1 4 KB ahead (M = 1 streams B and nothing else). Emerald
// Rapids, one thread, 5 interleaved rounds, against no prefetch: 1x4096x4096 37.7 -> 41.5 GOPS and
// 1x4096x11008 38.0 -> 41.2 (higher in every round; the read probe 20.6-21.3 GB/s, so now at it),
// 16 threads within the rounds' spread. AMD EPYC Zen 5, one thread, two runs of 4 alternating
// rounds, against a line 64 KB ahead into the outer caches per 512 bytes (what Zen 4 had been
// measured with): 1.14-1.39x at 1x4096x11008, 1x11008x4096 and 1x4096x14336 (B at 0.93-1.05 of
// the read probe after), 1.05-1.24x at 1x4096x4096 (B in L3), the Llama-3-8B layer 1.12-1.14x;
// two threads level (0.79-1.19x).
template <size_t kAStride>
void DotOneRow(size_t k_groups, const int32_t* a, const __m512i* b, const int32_t* carried, int32_t* out) {
  constexpr size_t kUnroll = 4;
  __m512i acc[kUnroll][2];
  for (size_t u = 0; u < kUnroll; ++u) acc[u][0] = acc[u][1] = _mm512_setzero_si512();
  if (carried) {
    acc[0][0] = _mm512_load_si512(carried);
    acc[0][1] = _mm512_load_si512(carried + 16);
  }
  size_t g = 0;
  for (; g + kUnroll <= k_groups; g += kUnroll, a += kUnroll * kAStride, b += 2 * kUnroll) {
    for (size_t line = 0; line < 2 * kUnroll; ++line)  // one zmm per line
      _mm_prefetch(reinterpret_cast<const char*>(b + 64 + line), _MM_HINT_T0);
#pragma GCC unroll 4
    for (size_t u = 0; u < kUnroll; ++u) {
      const __m512i au = _mm512_set1_epi32(a[u * kAStride]);
      acc[u][0] = _mm512_dpbusd_epi32(acc[u][0], au, _mm512_load_si512(b + 2 * u));
      acc[u][1] = _mm512_dpbusd_epi32(acc[u][1], au, _mm512_load_si512(b + 2 * u + 1));
    }
  }
  for (; g < k_groups; ++g, a += kAStride, b += 2) {
    const __m512i a0 = _mm512_set1_epi32(a[0]);
    acc[0][0] = _mm512_dpbusd_epi32(acc[0][0], a0, _mm512_load_si512(b));
    acc[0][1] = _mm512_dpbusd_epi32(acc[0][1], a0, _mm512_load_si512(b + 1));
  }
  for (int h = 0; h < 2; ++h) {
    const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(acc[0][h], acc[1][h]), _mm512_add_epi32(acc[2][h], acc[3][h]));
    _mm512_store_si512(out + 16 * h, sum);
  }
}

template <size_t kTileRows>
void MultiplyTile(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                  const QGemmTileParams* p) {
  const int32_t* a = static_cast<const int32_t*>(a_packed);
  const __m512i* b = static_cast<const __m512i*>(b_packed);
  alignas(64) int32_t own_tile[kTileRows][kNr];
  // A K block before the last leaves its dot products in the front end's carry.
  int32_t(*tile)[kNr] = p->dot_out ? reinterpret_cast<int32_t(*)[kNr]>(p->dot_out) : own_tile;
  const BlockPrefetch<1> prefetch(*p, k_groups);
  // A row block of one tile (M = 2..12 on this tier) streams B once, as M = 1 does: every line
  // into L1 ahead too. AMD EPYC Zen 5, alternating rounds, `dqmatmul`: four rows (2x4096x11008,
  // 4x4096x11008, 4x11008x4096, 4x4096x14336) 1.11-1.38x at one thread, 0.97-1.11x at two (the
  // host's spread); twelve rows (6x4096x11008, 8x4096x11008, 12x4096x11008, 12x11008x4096,
  // 8x4096x14336) 1.22-1.39x at one thread, 0.99-1.40x at two; 16 rows and more (several tiles)
  // unchanged. Emerald Rapids-class device, three rounds: the four-row kernel 0.96-1.09x on the
  // amx tier (one and 16 threads), 0.97-1.42x capped to this tier.
  const bool streams = p->b_streams;
  WithRowCount<kTileRows>(mr, [&](auto rows) {
    constexpr size_t kRows = decltype(rows)::value;
    auto dot_rows = [&](auto quads) {
      constexpr bool kInPlace = std::is_same_v<decltype(quads), AQuads<kTileRows, true>>;
      if (streams)
        DotRows<kTileRows, kRows, kInPlace, true>(k_groups, quads, b, p->dot_in, tile, prefetch);
      else
        DotRows<kTileRows, kRows, kInPlace, false>(k_groups, quads, b, p->dot_in, tile, prefetch);
    };
    if (p->a_row_stride)
      dot_rows(AQuads<kTileRows, true>(a_packed, p->a_row_stride));
    else if constexpr (kRows == 1)
      DotOneRow<kTileRows>(k_groups, a, b, p->dot_in, tile[0]);
    else
      dot_rows(AQuads<kTileRows, false>(a_packed, 0));
  });
  if (p->dot_out) return;
  RequantizeTile<kNr>(&tile[0][0], mr, nr, p);
}

}  // namespace

static void qgemm_u8s8_12x32c4__avx512vnni(size_t mr, size_t nr, size_t k_groups, const void* a_packed,
                                           const void* b_packed, const QGemmTileParams* p) {
  MultiplyTile<kMr>(mr, nr, k_groups, a_packed, b_packed, p);
}
static void qgemm_u8s8_4x32c4__avx512vnni(size_t mr, size_t nr, size_t k_groups, const void* a_packed,
                                          const void* b_packed, const QGemmTileParams* p) {
  MultiplyTile<kSmallMr>(mr, nr, k_groups, a_packed, b_packed, p);
}

// M = 1 (decode): the same B layout with A packed as one row, so A's K bytes stay in 4 KB
// contiguous instead of spreading over the 12-row tile's 48 KB, which would evict B's stream
// from L1.
void OneRow(size_t nr, size_t k_groups, const void* a_packed, const void* b_packed, const QGemmTileParams* p) {
  alignas(64) int32_t tile[1][kNr];
  DotOneRow<1>(k_groups, static_cast<const int32_t*>(a_packed), static_cast<const __m512i*>(b_packed), nullptr,
               tile[0]);
  RequantizeTile<kNr>(&tile[0][0], 1, nr, p);
}
// Both tiers' M = 1 kernel.
static void qgemm_u8s8_1x32c4_pfl1__avx512vnni(size_t, size_t nr, size_t k_groups, const void* a_packed,
                                               const void* b_packed, const QGemmTileParams* p) {
  OneRow(nr, k_groups, a_packed, b_packed, p);
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
static_assert(kMr * kNr <= kMaxKBlockTileElements, "tile larger than the front end's K-block carry");
// K blocks of at most 768: the block of a B panel (at most 24 KB) stays in L1 (32 KB on Zen 4,
// 48 KB on Intel servers) while the row block's tiles pass, and K = 768 (BERT-base's width) is
// one block. Blocks of 512 split it into 512 + 256, and the carried dot products and the short
// block's calls cost 128x768x3072 7-9% on Emerald Rapids (15 interleaved rounds); 1024^3 and
// 2048^3 were within 1% and Zen 4 within its noise.
constexpr uint32_t kKBlockGroups = 192;
extern const QGemmKernel kQGemm_u8s8_12x32c4__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_4x32c4__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_1x32c4_pfl1__avx512vnni;
const QGemmKernel kQGemm_u8s8_1x32c4_pfl1__avx512vnni = {"qgemm_u8s8_1x32c4_pfl1__avx512vnni", 1, kNr, kKr, QGemmPacking::kU8S8, 1, 1, qgemm_u8s8_1x32c4_pfl1__avx512vnni, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
// One tile of at most four rows never splits K (the front end splits it only for row blocks of
// several tiles), so no K block.
const QGemmKernel kQGemm_u8s8_4x32c4__avx512vnni = {"qgemm_u8s8_4x32c4__avx512vnni", kSmallMr, kNr, kKr, QGemmPacking::kU8S8, 2, kSmallMr, qgemm_u8s8_4x32c4__avx512vnni, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kU8Rows};
const QGemmKernel kQGemm_u8s8_12x32c4__avx512vnni = {"qgemm_u8s8_12x32c4__avx512vnni", kMr, kNr, kKr, QGemmPacking::kU8S8, 1, UINT32_MAX, qgemm_u8s8_12x32c4__avx512vnni, nullptr, nullptr, kKBlockGroups, 0, 0, QGemmAInPlace::kU8Rows};

}  // namespace avx512vnni
}  // namespace cpuml
