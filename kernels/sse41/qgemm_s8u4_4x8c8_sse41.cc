// qgemm_s8u4_4x8c8__sse41: 4-bit B in blocks (kS8U4Blocks, kernels/kernels.h), up to four rows x 8
// columns, every block of the tile in one call, finished in float; B is read as the nibbles
// initialize packed, with no 8-bit copy.
//
// A group's 32 bytes of B are 8 columns x 4 bytes: masked, the low nibbles are each column's first
// K quad, shifted, its second, as u8 against A's quads as s8 in pmaddubsw. |u * a| <= 15 * 128, so
// a pair sum is at most 3,840 and nothing saturates; four groups' pairs add to at most 30,720 before
// pmaddwd widens them. Every sum is the exact int32 one, and the float steps are the formula's,
// lane by lane (no F16C here: FLOAT16 scales convert in kernels/common/half.cc), so the bits are
// every tier's.
#include <smmintrin.h>
#include <string.h>

#include "kernels/common/half.h"
#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace sse41 {
namespace {

constexpr size_t kMr = 4, kNr = 8, kKr = 8;
constexpr size_t kGroupBytes = kNr * kKr / 2, kVectors = kNr / 4;
constexpr size_t kGroupsPerWiden = 4;

inline __m128i BroadcastQuad(const int8_t* a) {
  int32_t quad;
  memcpy(&quad, a, sizeof quad);
  return _mm_set1_epi32(quad);
}

// One block's exact sums: dot[r][v] for columns 4v..4v+3, and with kColumnSums the columns' sums
// of u (their bytes, at most 120 after four groups, widened with the pairs).
template <size_t kRows, bool kColumnSums>
inline void BlockSums(size_t groups, const int8_t* a, const uint8_t* b, __m128i (&dot)[kRows][kVectors],
                      __m128i (&column_sum)[kVectors]) {
  const __m128i mask = _mm_set1_epi8(0x0F), ones8 = _mm_set1_epi8(1), ones16 = _mm_set1_epi16(1);
  for (size_t v = 0; v < kVectors; ++v) {
    column_sum[v] = _mm_setzero_si128();
    for (size_t r = 0; r < kRows; ++r) dot[r][v] = _mm_setzero_si128();
  }
  for (size_t g = 0; g < groups;) {
    const size_t end = groups - g < kGroupsPerWiden ? groups : g + kGroupsPerWiden;
    __m128i pairs[kRows][kVectors], column_bytes[kVectors];
    for (size_t v = 0; v < kVectors; ++v) {
      column_bytes[v] = _mm_setzero_si128();
      for (size_t r = 0; r < kRows; ++r) pairs[r][v] = _mm_setzero_si128();
    }
    for (; g < end; ++g) {
      __m128i low[kVectors], high[kVectors];
      for (size_t v = 0; v < kVectors; ++v) {
        const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + g * kGroupBytes + 16 * v));
        low[v] = _mm_and_si128(raw, mask);
        high[v] = _mm_and_si128(_mm_srli_epi16(raw, 4), mask);
        if (kColumnSums) column_bytes[v] = _mm_add_epi8(column_bytes[v], _mm_add_epi8(low[v], high[v]));
      }
      for (size_t r = 0; r < kRows; ++r) {
        const int8_t* quads = a + (g * kMr + r) * kKr;
        const __m128i first = BroadcastQuad(quads), second = BroadcastQuad(quads + 4);
        for (size_t v = 0; v < kVectors; ++v)
          pairs[r][v] = _mm_add_epi16(pairs[r][v], _mm_add_epi16(_mm_maddubs_epi16(low[v], first),
                                                                 _mm_maddubs_epi16(high[v], second)));
      }
    }
    for (size_t v = 0; v < kVectors; ++v) {
      for (size_t r = 0; r < kRows; ++r) dot[r][v] = _mm_add_epi32(dot[r][v], _mm_madd_epi16(pairs[r][v], ones16));
      if (kColumnSums)
        column_sum[v] =
            _mm_add_epi32(column_sum[v], _mm_madd_epi16(_mm_maddubs_epi16(column_bytes[v], ones8), ones16));
    }
  }
}

// The whole tile: blocks in order, y = y + p from y = -0 (which makes the first y = p, bit for
// bit), then the bias, then the rows' stores.
template <size_t kRows, bool kColumnSums>
void Tile(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  __m128 y[kRows][kVectors];
  for (size_t r = 0; r < kRows; ++r)
    for (size_t v = 0; v < kVectors; ++v)
      y[r][v] = blocks.y_in ? _mm_loadu_ps(blocks.y_in + r * kNr + 4 * v) : _mm_set1_ps(-0.0f);
  for (size_t c = 0; c < blocks.count; ++c) {
    const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
    const uint8_t* b = b_panel + c * blocks.b_stride;
    __m128i dot[kRows][kVectors], column_sum[kVectors];
    BlockSums<kRows, kColumnSums>(groups, reinterpret_cast<const int8_t*>(a_tile + c * blocks.a_stride), b, dot,
                                  column_sum);
    const uint8_t* zero = blocks.zero_points ? blocks.zero_points : b + groups * kGroupBytes;
    const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
    const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
    const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
    alignas(16) float b_scale[kNr];
    for (size_t j = 0; j < kNr; ++j)
      b_scale[j] = blocks.b_scale_half ? HalfToFloat(blocks.b_scale_half[c * blocks.b_scale_stride + j])
                                       : blocks.b_scale[c * blocks.b_scale_stride + j];
    for (size_t v = 0; v < kVectors; ++v) {
      int32_t zero_quad;
      memcpy(&zero_quad, zero + 4 * v, sizeof zero_quad);
      const __m128i zero_point = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(zero_quad));
      const __m128 scale_b = _mm_load_ps(b_scale + 4 * v);
      for (size_t r = 0; r < kRows; ++r) {
        // Integer multiply-adds wrap mod 2^32 like the formula's; the float steps stay separate.
        __m128i s = _mm_add_epi32(dot[r][v], _mm_mullo_epi32(_mm_set1_epi32(row_b[r]), zero_point));
        if (kColumnSums) s = _mm_add_epi32(s, _mm_mullo_epi32(_mm_set1_epi32(row_a[r]), column_sum[v]));
        const __m128 product = _mm_mul_ps(_mm_cvtepi32_ps(s), _mm_mul_ps(_mm_set1_ps(a_scale[r]), scale_b));
        y[r][v] = _mm_add_ps(y[r][v], product);
      }
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    alignas(16) float row[kNr];
    for (size_t v = 0; v < kVectors; ++v) {
      // The bias array is padded to whole panels (the front end's QGemmQuantization).
      if (p->bias) y[r][v] = _mm_add_ps(y[r][v], _mm_loadu_ps(p->bias + 4 * v));
      _mm_store_ps(row + 4 * v, y[r][v]);
    }
    memcpy(static_cast<uint8_t*>(p->out) + r * p->out_row_stride, row, nr * sizeof(float));
  }
}

}  // namespace

static void qgemm_s8u4_4x8c8__sse41(size_t mr, size_t nr, size_t, const void* a_packed, const void* b_packed,
                                    const QGemmTileParams* p) {
  WithRowCount<kMr>(mr, [&](auto rows) {
    constexpr size_t kRows = decltype(rows)::value;
    WithColumnSums<kRows>(p->blocks->row_a, [&](auto column_sums) {
      Tile<kRows, decltype(column_sums)::value>(nr, static_cast<const uint8_t*>(a_packed),
                                                static_cast<const uint8_t*>(b_packed), p);
    });
  });
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_4x8c8__sse41;
const QGemmKernel kQGemm_s8u4_4x8c8__sse41 = {"qgemm_s8u4_4x8c8__sse41", kMr, kNr, kKr, QGemmPacking::kS8U4Blocks,
                                             1, UINT32_MAX, qgemm_s8u4_4x8c8__sse41, nullptr, nullptr, 0, 0, 0,
                                             QGemmAInPlace::kNever};

}  // namespace sse41
}  // namespace cpuml
