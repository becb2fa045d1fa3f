// qgemm_s8u4_1x64c8_pfl1__avx512vnni and qgemm_s8u4_4x64c8__avx512vnni: 4-bit B in blocks
// (kS8U4Blocks, kernels/kernels.h), one row (M = 1, LLM decode) or up to four of 64 columns, on
// this tier and on the amx tier below its tile kernel, every block of the tile in one call,
// finished in float.
//
// A group of 16 columns is one zmm: 16 columns x 4 bytes. Masked, its low nibbles are each
// column's first K quad as u8; shifted, its high ones the second; vpdpbusd multiplies them by A's
// quads as s8 straight into int32, so every sum is the exact one, and the float steps are the
// formula's, lane by lane: the bits are every tier's.
#include <immintrin.h>
#include <string.h>

#include <type_traits>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace avx512vnni {
namespace {

constexpr size_t kMr = 4, kNr = 64, kKr = 8;
constexpr size_t kVectors = kNr / 16;           // zmm of columns
constexpr size_t kVectorBytes = 16 * kKr / 2;  // a group of 16 columns: one zmm
// Groups whose column-sum bytes (two nibbles each, <= 30 a group) are added before vpdpbusd widens them.
constexpr size_t kGroupsPerWiden = 8;

inline __m512i BroadcastQuad(const int8_t* a) {
  int32_t quad;
  memcpy(&quad, a, 4);
  return _mm512_set1_epi32(quad);
}

// One zmm of a group's B (16 columns x 4 bytes) as vpdpbusd's u8 operands: masked, the low nibbles
// are each column's first K quad; shifted, the high ones its second.
inline void Nibbles(const uint8_t* b, __m512i mask, __m512i& low, __m512i& high) {
  const __m512i raw = _mm512_loadu_si512(b);
  low = _mm512_and_si512(raw, mask);
  high = _mm512_and_si512(_mm512_srli_epi16(raw, 4), mask);
}

// Four rows' block sums where A has no column sums to add (symmetric activations) and B comes from
// the caches (no L1 prefetch): prefill's common case. Written the general way below, GCC 12 passed
// the sixteen accumulators through register copies every group and kept six of them in memory
// (`objdump -d` of Tile<4, 4, false, false, true>: 18 copies, 6 stores and a load a group); each two
// rows' vpdpbusd as one asm statement on named accumulators leaves the loop with none. (One
// statement for all four rows would take 45 operands; GCC allows 30.) AMD EPYC Zen 5, `dqmatmul`
// s8u4 at 16, 128 and 512 x 4096 x 4096 against the build before, medians of four alternating
// rounds: one thread 1.05-1.10x at block 32 and 1.00-1.04x at 128, two threads 1.07-1.10x and
// 1.00-1.04x (the unchanged int8 paths 0.97-1.03x in the same rounds).
#define CPUML_S8U4_DOT_ROW(r, k)                         \
  "vpbroadcastd " #r "*8(%[a]), %[q0]\n\t"               \
  "vpbroadcastd " #r "*8+4(%[a]), %[q1]\n\t"             \
  "vpdpbusd %[q0], %[l0], %[c" #k "0]\n\t"               \
  "vpdpbusd %[q0], %[l1], %[c" #k "1]\n\t"               \
  "vpdpbusd %[q0], %[l2], %[c" #k "2]\n\t"               \
  "vpdpbusd %[q0], %[l3], %[c" #k "3]\n\t"               \
  "vpdpbusd %[q1], %[h0], %[c" #k "0]\n\t"               \
  "vpdpbusd %[q1], %[h1], %[c" #k "1]\n\t"               \
  "vpdpbusd %[q1], %[h2], %[c" #k "2]\n\t"               \
  "vpdpbusd %[q1], %[h3], %[c" #k "3]\n\t"
#define CPUML_S8U4_TWO_ROWS(r0, r1, x)                                                                  \
  asm(CPUML_S8U4_DOT_ROW(r0, 0) CPUML_S8U4_DOT_ROW(r1, 1)                                              \
      : [c00] "+v"(x[r0][0]), [c01] "+v"(x[r0][1]), [c02] "+v"(x[r0][2]), [c03] "+v"(x[r0][3]),       \
        [c10] "+v"(x[r1][0]), [c11] "+v"(x[r1][1]), [c12] "+v"(x[r1][2]), [c13] "+v"(x[r1][3]),       \
        [q0] "=&v"(q0), [q1] "=&v"(q1)                                                                 \
      : [a] "r"(ag), [l0] "v"(l[0]), [l1] "v"(l[1]), [l2] "v"(l[2]), [l3] "v"(l[3]), [h0] "v"(h[0]),  \
        [h1] "v"(h[1]), [h2] "v"(h[2]), [h3] "v"(h[3]), "m"(*reinterpret_cast<const char(*)[kKr]>(ag + r0 * kKr)), \
        "m"(*reinterpret_cast<const char(*)[kKr]>(ag + r1 * kKr)))
__attribute__((always_inline)) inline void FourRowBlockSums(size_t groups, const int8_t* a, const uint8_t* b,
                                                            const int32_t (&start)[4], __m512i (&dot)[4][kVectors]) {
  static_assert(kVectors == 4, "the asm names four vectors of columns");
  const __m512i mask = _mm512_set1_epi8(0x0F);
  __m512i c[4][kVectors];
  for (size_t r = 0; r < 4; ++r)
    for (size_t v = 0; v < kVectors; ++v) c[r][v] = _mm512_set1_epi32(start[r]);
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* bg = b + g * kVectors * kVectorBytes;
    const int8_t* ag = a + g * 4 * kKr;
    __m512i l[kVectors], h[kVectors], q0, q1;
    for (size_t v = 0; v < kVectors; ++v) Nibbles(bg + 64 * v, mask, l[v], h[v]);
    CPUML_S8U4_TWO_ROWS(0, 1, c);
    CPUML_S8U4_TWO_ROWS(2, 3, c);
  }
  for (size_t r = 0; r < 4; ++r)
    for (size_t v = 0; v < kVectors; ++v) dot[r][v] = c[r][v];
}
#undef CPUML_S8U4_TWO_ROWS
#undef CPUML_S8U4_DOT_ROW

// One block's exact sums over the panel's kVectors zmm of columns (a group's kVectors * 64 bytes):
// dot[r][v] for the tile's kRows rows (kAStride rows per group of the A tile), and when
// kColumnSums the columns' sums of u. kPrefetchL1: every line of B 4 KB ahead into L1, for Intel
// server cores (the 8-bit one-row kernel's kEveryLineToL1 explains it).
template <size_t kRows, size_t kAStride, bool kColumnSums, bool kPrefetchL1>
inline void BlockSums(size_t groups, const int8_t* a, const uint8_t* b, const int32_t (&start)[kRows],
                      __m512i (&dot)[kRows][kVectors], __m512i (&column_sum)[kVectors]) {
  if constexpr (kRows == 4 && kAStride == 4 && !kColumnSums && !kPrefetchL1) {
    FourRowBlockSums(groups, a, b, start, dot);
    return;
  }
  const __m512i mask = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1);
  // One row streams B: alternate groups and the two nibbles go to four accumulators, so four
  // vpdpbusd chains are in flight instead of one.
  constexpr size_t kChains = kRows == 1 ? 4 : 1;
  constexpr size_t kGroupBytes = kVectors * kVectorBytes;
  __m512i chain[kChains][kRows][kVectors];
  __m512i column_bytes[kVectors];
  for (size_t v = 0; v < kVectors; ++v) {
    for (size_t c = 0; c < kChains; ++c)
      for (size_t r = 0; r < kRows; ++r) chain[c][r][v] = c ? _mm512_setzero_si512() : _mm512_set1_epi32(start[r]);
    column_sum[v] = column_bytes[v] = _mm512_setzero_si512();
  }
  // Group g into chains kFirst and kFirst + 1 (chain 0 with one chain). The chains are named at
  // compile time: indexed by g % 2, GCC kept them in memory, and each vpdpbusd waited on a store
  // and a reload (AMD EPYC Zen 5, one thread, 1x4096x4096: 139 -> 229 GOPS at block 32, 168 ->
  // 305 at block 128).
  auto group = [&](size_t g, auto first) __attribute__((always_inline)) {
    constexpr size_t kFirst = kChains == 1 ? 0 : decltype(first)::value, kSecond = kChains == 1 ? 0 : kFirst + 1;
    const uint8_t* bg = b + g * kGroupBytes;
    __m512i low[kVectors], high[kVectors];
    for (size_t v = 0; v < kVectors; ++v) {
      if (kPrefetchL1) _mm_prefetch(reinterpret_cast<const char*>(bg + 64 * v + 4096), _MM_HINT_T0);
      Nibbles(bg + 64 * v, mask, low[v], high[v]);
      if (kColumnSums) {
        column_bytes[v] = _mm512_add_epi8(column_bytes[v], _mm512_add_epi8(low[v], high[v]));
        if ((g + 1) % kGroupsPerWiden == 0) {
          column_sum[v] = _mm512_dpbusd_epi32(column_sum[v], column_bytes[v], ones);
          column_bytes[v] = _mm512_setzero_si512();
        }
      }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) {
      const int8_t* ag = a + (g * kAStride + r) * kKr;
      const __m512i first_quad = BroadcastQuad(ag), second_quad = BroadcastQuad(ag + 4);
      for (size_t v = 0; v < kVectors; ++v) {
        chain[kFirst][r][v] = _mm512_dpbusd_epi32(chain[kFirst][r][v], low[v], first_quad);
        chain[kSecond][r][v] = _mm512_dpbusd_epi32(chain[kSecond][r][v], high[v], second_quad);
      }
    }
  };
  size_t g = 0;
  for (; g + 1 < groups; g += 2) {
    group(g, std::integral_constant<size_t, 0>{});
    group(g + 1, std::integral_constant<size_t, 2>{});
  }
  if (g < groups) group(g, std::integral_constant<size_t, 0>{});
  for (size_t v = 0; v < kVectors; ++v) {
    if (kColumnSums) column_sum[v] = _mm512_dpbusd_epi32(column_sum[v], column_bytes[v], ones);
    for (size_t r = 0; r < kRows; ++r) {
      dot[r][v] = chain[0][r][v];
      for (size_t c = 1; c < kChains; ++c) dot[r][v] = _mm512_add_epi32(dot[r][v], chain[c][r][v]);
    }
  }
}

template <size_t kRows, size_t kAStride, bool kColumnSums, bool kPrefetchL1, bool kSharedZeroPoint>
void Tile(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  // One zero point for every column and block (QGemmBlocks::zero_points): its term is one integer
  // a row, the sums' starting value, in place of a multiply and an add per vector of columns.
  const int32_t shared_zero_point = kSharedZeroPoint ? blocks.zero_points[0] : 0;
  __m512 y[kRows][kVectors];
  for (size_t r = 0; r < kRows; ++r)
    for (size_t v = 0; v < kVectors; ++v) y[r][v] = _mm512_set1_ps(-0.0f);  // -0 + p is p: the first y = p
  for (size_t c = 0; c < blocks.count; ++c) {
    const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
    const uint8_t* b = b_panel + c * blocks.b_stride;
    const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
    const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
    int32_t start[kRows];
    for (size_t r = 0; r < kRows; ++r) start[r] = kSharedZeroPoint ? row_b[r] * shared_zero_point : 0;
    __m512i dot[kRows][kVectors], column_sum[kVectors];
    BlockSums<kRows, kAStride, kColumnSums, kPrefetchL1>(
        groups, reinterpret_cast<const int8_t*>(a_tile + c * blocks.a_stride), b, start, dot, column_sum);
    const uint8_t* zero = kSharedZeroPoint ? nullptr : b + groups * kVectors * kVectorBytes;
    const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
    for (size_t v = 0; v < kVectors; ++v) {
      const __m512i zero_point =
          kSharedZeroPoint ? _mm512_setzero_si512()
                           : _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(zero + 16 * v)));
      const __m512 b_scale = blocks.b_scale_half
                                 ? _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                       blocks.b_scale_half + c * blocks.b_scale_stride + 16 * v)))
                                 : _mm512_loadu_ps(blocks.b_scale + c * blocks.b_scale_stride + 16 * v);
      for (size_t r = 0; r < kRows; ++r) {
        __m512i s = kSharedZeroPoint ? dot[r][v]
                                     : _mm512_add_epi32(dot[r][v], _mm512_mullo_epi32(_mm512_set1_epi32(row_b[r]), zero_point));
        if (kColumnSums) s = _mm512_add_epi32(s, _mm512_mullo_epi32(_mm512_set1_epi32(row_a[r]), column_sum[v]));
        const __m512 product = _mm512_mul_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(_mm512_set1_ps(a_scale[r]), b_scale));
        y[r][v] = _mm512_add_ps(y[r][v], product);
      }
    }
  }
  for (size_t v = 0; v < kVectors; ++v) {
    const size_t valid = nr > 16 * v ? nr - 16 * v : 0;
    const __mmask16 columns = static_cast<__mmask16>(valid >= 16 ? 0xFFFF : (1u << valid) - 1);
    if (!columns) break;
    for (size_t r = 0; r < kRows; ++r) {
      // The bias array is padded to whole panels (the front end's QGemmQuantization).
      if (p->bias) y[r][v] = _mm512_add_ps(y[r][v], _mm512_loadu_ps(p->bias + 16 * v));
      _mm512_mask_storeu_ps(static_cast<uint8_t*>(p->out) + r * p->out_row_stride + 64 * v, columns, y[r][v]);
    }
  }
}

template <size_t kRows, size_t kAStride, bool kPrefetchL1>
void TileRows(size_t nr, const void* a_packed, const void* b_packed, const QGemmTileParams* p) {
  WithColumnSums<kRows>(p->blocks->row_a, [&](auto column_sums) {
    if (p->blocks->zero_points)
      Tile<kRows, kAStride, decltype(column_sums)::value, kPrefetchL1, true>(
          nr, static_cast<const uint8_t*>(a_packed), static_cast<const uint8_t*>(b_packed), p);
    else
      Tile<kRows, kAStride, decltype(column_sums)::value, kPrefetchL1, false>(
          nr, static_cast<const uint8_t*>(a_packed), static_cast<const uint8_t*>(b_packed), p);
  });
}

}  // namespace

// One row of 64 columns for decode: sixteen chains in flight, each A quad broadcast for four
// vpdpbusd, and every line of B requested into L1 4 KB ahead. AMD EPYC Zen 5, one thread, against
// one row of 16, three alternating runs: 1x4096x4096 1.08-1.20x (block 32) and 1.05-1.12x (128),
// 1x4096x11008 1.07-1.37x and 1.01-1.29x (without the prefetch); the prefetch then gained
// 1.04-1.30x where B comes from memory (1x4096x14336, 1x11008x4096, the Llama-3-8B layer: one
// thread, five rounds; two threads 1.01-1.19x) and 0.97-1.10x where it stays in L3. Emerald Rapids
// (amx tier), against the 16-column row with the same prefetch, four alternating rounds: one thread
// 1.00-1.07x, sixteen 1.05-1.27x at 1x4096x14336 and 1x11008x4096; without the prefetch one thread
// ran 0.75-0.96x.
static void qgemm_s8u4_1x64c8_pfl1__avx512vnni(size_t, size_t nr, size_t, const void* a, const void* b,
                                               const QGemmTileParams* p) {
  TileRows<1, 1, true>(nr, a, b, p);
}

// Four rows of 64 columns from two rows up (below 16 rows on the amx tier): per group each row's
// two A quads are broadcast once for eight vpdpbusd, where eight rows of 16 (the kernel it
// replaced) broadcast them for two. AMD EPYC Zen 5, against 8 x 16,
// DYNAMIC_QUANTIZE_LINEAR and the product, 16, 128 and 512 x 4096 x 4096, medians of three
// alternating runs: one thread 1.04-1.16x at block 32 and 1.09-1.27x at block 128, two threads
// 1.06-1.12x and 1.12-1.14x. Eight rows of 32 gained less; twelve rows of 32 spilled. Emerald
// Rapids (amx tier), 4 and 8 x 4096 x 4096, four rounds: one thread 0.99-1.29x, sixteen 1.07-1.39x.
static void qgemm_s8u4_4x64c8__avx512vnni(size_t mr, size_t nr, size_t, const void* a, const void* b,
                                          const QGemmTileParams* p) {
  // A row block of one tile (M = 2..4) streams B once, as M = 1 does: every line into L1 ahead
  // too. AMD EPYC Zen 5, one thread, alternating rounds, `dqmatmul` at 2x4096x11008, 4x4096x11008,
  // 4x11008x4096 and 4x4096x14336: 1.15-1.38x at block 32, 0.98-1.11x at 128. Emerald
  // Rapids-class device (amx tier), three rounds: one thread 1.07-1.37x and 1.13-1.20x, sixteen
  // 0.93-1.17x.
  WithRowCount<kMr>(mr, [&](auto rows) {
    if (p->b_streams)
      TileRows<decltype(rows)::value, kMr, true>(nr, a, b, p);
    else
      TileRows<decltype(rows)::value, kMr, false>(nr, a, b, p);
  });
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_1x64c8_pfl1__avx512vnni, kQGemm_s8u4_4x64c8__avx512vnni;
const QGemmKernel kQGemm_s8u4_1x64c8_pfl1__avx512vnni = {
    "qgemm_s8u4_1x64c8_pfl1__avx512vnni", 1, kNr, kKr, QGemmPacking::kS8U4Blocks, 1, 1,
    qgemm_s8u4_1x64c8_pfl1__avx512vnni, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
const QGemmKernel kQGemm_s8u4_4x64c8__avx512vnni = {"qgemm_s8u4_4x64c8__avx512vnni", kMr, kNr, kKr,
                                                   QGemmPacking::kS8U4Blocks, 2, UINT32_MAX,
                                                   qgemm_s8u4_4x64c8__avx512vnni, nullptr, nullptr, 0, 0, 0,
                                                   QGemmAInPlace::kNever};

}  // namespace avx512vnni
}  // namespace cpuml
