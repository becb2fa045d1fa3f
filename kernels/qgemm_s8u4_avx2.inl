// The 4-bit B kernels of the 256-bit tiers (kS8U4Blocks, kernels/kernels.h): up to kRows rows x 16
// columns, every block of the tile in one call, finished in float.
//
// Not a header: a tier TU includes it after <immintrin.h>, having defined
//   CPUML_TIER        the tier namespace, so every instantiation is the tier's own
//   CPUML_S8U4_VNNI   1 where vpdpbusd (AVX-VNNI) adds u8 x s8 quads into int32, else 0
// A group's 32 bytes of B are 8 columns x 4 bytes: masked, its low nibbles are the first K quad of
// each column, shifted, its high ones the second, as u8, against A's quads as s8.
//
// Without VNNI, vpmaddubsw multiplies them into int16 pair sums. It saturates nowhere here:
// |u * a| <= 15 * 128, so a pair is at most 3,840 in magnitude, and four groups' two pairs each add
// to at most 30,720 < 32,768 before vpmaddwd widens them. Every sum is therefore the exact int32
// one, and the float steps are the formula's, lane by lane, so the bits are every tier's.
#if !defined(CPUML_TIER) || !defined(CPUML_S8U4_VNNI)
#error "define CPUML_TIER and CPUML_S8U4_VNNI before including kernels/qgemm_s8u4_avx2.inl"
#endif

#include "kernels/block_prefetch.inl"

namespace cpuml {
namespace CPUML_TIER {
namespace {

constexpr size_t kS8U4Nr = 16, kS8U4Kr = 8;
// Groups whose int16 sums (pairs of products, and bytes of column sums) are added before they are
// widened to int32: see above.
constexpr size_t kS8U4GroupsPerWiden = 4;
// Decode (one to four rows: a row block of one tile, QGemmTileParams::b_streams) streams B: each
// group's line is requested 2 KB ahead into L1. On Zen 3 (AMD EPYC, 2 vCPUs, `avx2`) the hardware
// prefetchers alone kept the stream well below the read probe; with it, 4 interleaved rounds at
// 1x4096x11008, 1x11008x4096 and 1x4096x14336, blocks 32 and 128: 1.05-1.55x at one thread,
// 1.29-1.52x at two (1 KB ahead 0.98-1.47x, 512 bytes less); 3 rounds at M = 2 and 4 (4096x11008,
// 11008x4096): 1.01-1.54x but for one 0.97x. Not for a B block that several tiles share.
constexpr size_t kS8U4PrefetchAhead = 2048;
// Prefill: the next panel's share (QGemmTileParams::prefetch_b) into L2, Step() once a block. A
// share is a panel over the row block's tiles, about a line a block at blocks of 32 (16 tiles,
// K = 4096) and more for longer blocks. AMD EPYC Zen 5 capped to each tier, 128 and 512 x 4096 x
// 4096, one thread, 4 rounds: avxvnni 1.02x at blocks of 32, 0.99-1.02x at 128; avx2 1.00-1.01x
// and 1.02-1.03x.
constexpr size_t kS8U4PrefetchLinesPerBlock = 16;

inline __m256i BroadcastQuad(const int8_t* a) {
  return _mm256_castps_si256(_mm256_broadcast_ss(reinterpret_cast<const float*>(a)));
}

// One block's exact sums of the tile's kRows rows (kAStride rows per group in the A tile):
// dot[r][v] for columns 8v..8v+7, and when kColumnSums the columns' sums of u.
template <size_t kRows, size_t kAStride, bool kColumnSums>
inline void S8U4BlockSums(size_t groups, const int8_t* a, const uint8_t* b, bool b_streams, __m256i (&dot)[kRows][2],
                          __m256i (&column_sum)[2]) {
  const __m256i mask = _mm256_set1_epi8(0x0F);
  const __m256i ones16 = _mm256_set1_epi16(1);
  for (size_t r = 0; r < kRows; ++r) dot[r][0] = dot[r][1] = _mm256_setzero_si256();
  column_sum[0] = column_sum[1] = _mm256_setzero_si256();
#if CPUML_S8U4_VNNI
  // One row streams B: the low and high nibbles' vpdpbusd go to separate accumulators, so four
  // chains are in flight instead of two.
  constexpr bool kSplit = kRows == 1;
  __m256i high_dot[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
#endif
  for (size_t g = 0; g < groups;) {
    const size_t run = groups - g < kS8U4GroupsPerWiden ? groups - g : kS8U4GroupsPerWiden;
#if !CPUML_S8U4_VNNI
    __m256i pairs[kRows][2];
    for (size_t r = 0; r < kRows; ++r) pairs[r][0] = pairs[r][1] = _mm256_setzero_si256();
#endif
    __m256i column_bytes[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    for (size_t t = 0; t < run; ++t, ++g) {
      const uint8_t* bg = b + g * kS8U4Nr * (kS8U4Kr / 2);
      if (b_streams) _mm_prefetch(reinterpret_cast<const char*>(bg + kS8U4PrefetchAhead), _MM_HINT_T0);
      __m256i low[2], high[2];
      for (size_t v = 0; v < 2; ++v) {
        const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bg + 32 * v));
        low[v] = _mm256_and_si256(raw, mask);
        high[v] = _mm256_and_si256(_mm256_srli_epi16(raw, 4), mask);
        if (kColumnSums) column_bytes[v] = _mm256_add_epi8(column_bytes[v], _mm256_add_epi8(low[v], high[v]));
      }
#pragma GCC unroll 4
      for (size_t r = 0; r < kRows; ++r) {
        const int8_t* ag = a + (g * kAStride + r) * kS8U4Kr;
        const __m256i first = BroadcastQuad(ag), second = BroadcastQuad(ag + 4);
        for (size_t v = 0; v < 2; ++v) {
#if CPUML_S8U4_VNNI
          dot[r][v] = _mm256_dpbusd_avx_epi32(dot[r][v], low[v], first);
          if (kSplit)
            high_dot[v] = _mm256_dpbusd_avx_epi32(high_dot[v], high[v], second);
          else
            dot[r][v] = _mm256_dpbusd_avx_epi32(dot[r][v], high[v], second);
#else
          pairs[r][v] = _mm256_add_epi16(
              pairs[r][v], _mm256_add_epi16(_mm256_maddubs_epi16(low[v], first), _mm256_maddubs_epi16(high[v], second)));
#endif
        }
      }
    }
#if !CPUML_S8U4_VNNI
    for (size_t r = 0; r < kRows; ++r)
      for (size_t v = 0; v < 2; ++v) dot[r][v] = _mm256_add_epi32(dot[r][v], _mm256_madd_epi16(pairs[r][v], ones16));
#endif
    // Bytes of at most four groups' two nibbles (<= 120) into 16-bit pairs, then int32 at once: a
    // block of one chunk (per-column scales) may be 4,096 groups long.
    if (kColumnSums)
      for (size_t v = 0; v < 2; ++v)
        column_sum[v] = _mm256_add_epi32(
            column_sum[v], _mm256_madd_epi16(_mm256_maddubs_epi16(column_bytes[v], _mm256_set1_epi8(1)), ones16));
  }
#if CPUML_S8U4_VNNI
  if (kSplit)
    for (size_t v = 0; v < 2; ++v) dot[0][v] = _mm256_add_epi32(dot[0][v], high_dot[v]);
#endif
}

// The whole tile: blocks in order, y = y + p from y = -0 (which makes the first y = p, bit for
// bit), then the bias, then the rows' stores.
template <size_t kRows, size_t kAStride, bool kColumnSums>
void S8U4Tile(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  __m256 y[kRows][2];
  for (size_t r = 0; r < kRows; ++r)
    for (size_t v = 0; v < 2; ++v)
      y[r][v] = blocks.y_in ? _mm256_loadu_ps(blocks.y_in + r * kS8U4Nr + 8 * v) : _mm256_set1_ps(-0.0f);
  BlockPrefetch<kS8U4PrefetchLinesPerBlock> prefetch(*p, blocks.count, !p->b_streams);
  for (size_t c = 0; c < blocks.count; ++c) {
    prefetch.Step();
    const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
    const uint8_t* b = b_panel + c * blocks.b_stride;
    __m256i dot[kRows][2], column_sum[2];
    S8U4BlockSums<kRows, kAStride, kColumnSums>(groups, reinterpret_cast<const int8_t*>(a_tile + c * blocks.a_stride),
                                               b, kRows == 1 || p->b_streams, dot, column_sum);
    const uint8_t* zero = blocks.zero_points ? blocks.zero_points : b + groups * kS8U4Nr * (kS8U4Kr / 2);
    const __m256i zero_point[2] = {
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(zero))),
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(zero + 8)))};
    const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
    const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
    const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
    __m256 b_scales[2];
    if (blocks.b_scale_half) {
      const uint16_t* b_scale = blocks.b_scale_half + c * blocks.b_scale_stride;
      for (size_t v = 0; v < 2; ++v)
        b_scales[v] = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b_scale + 8 * v)));
    } else {
      const float* b_scale = blocks.b_scale + c * blocks.b_scale_stride;
      for (size_t v = 0; v < 2; ++v) b_scales[v] = _mm256_loadu_ps(b_scale + 8 * v);
    }
    for (size_t r = 0; r < kRows; ++r) {
      const __m256i rb = _mm256_set1_epi32(row_b[r]);
      const __m256 as = _mm256_broadcast_ss(a_scale + r);
      for (size_t v = 0; v < 2; ++v) {
        __m256i s = _mm256_add_epi32(dot[r][v], _mm256_mullo_epi32(rb, zero_point[v]));
        if (kColumnSums) s = _mm256_add_epi32(s, _mm256_mullo_epi32(_mm256_set1_epi32(row_a[r]), column_sum[v]));
        const __m256 product = _mm256_mul_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(as, b_scales[v]));
        y[r][v] = _mm256_add_ps(y[r][v], product);
      }
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    if (p->bias)
      for (size_t v = 0; v < 2; ++v) {
        // The bias array is padded to whole panels (the front end's QGemmQuantization).
        y[r][v] = _mm256_add_ps(y[r][v], _mm256_loadu_ps(p->bias + 8 * v));
      }
    float* out = reinterpret_cast<float*>(static_cast<uint8_t*>(p->out) + r * p->out_row_stride);
    if (nr == kS8U4Nr) {
      _mm256_storeu_ps(out, y[r][0]);
      _mm256_storeu_ps(out + 8, y[r][1]);
    } else {
      alignas(32) float row[kS8U4Nr];
      _mm256_store_ps(row, y[r][0]);
      _mm256_store_ps(row + 8, y[r][1]);
      memcpy(out, row, nr * sizeof(float));
    }
  }
}

template <size_t kRows, size_t kAStride>
void S8U4TileRows(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  WithColumnSums<kRows>(p->blocks->row_a, [&](auto column_sums) {
    S8U4Tile<kRows, kAStride, decltype(column_sums)::value>(nr, a_tile, b_panel, p);
  });
}

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
