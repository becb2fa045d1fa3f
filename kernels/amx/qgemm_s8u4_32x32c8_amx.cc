// qgemm_s8u4_32x32c8__amx: 4-bit B in blocks (kS8U4BlockRows, kernels/kernels.h) on the tile
// unit, for prefill: 32 rows x 32 columns, every block of the tile in one call, finished in float.
//
// The tile unit multiplies bytes held in memory, so each segment of the panel (up to 256 K values)
// is unpacked into B tile rows first: a group's 64 bytes of a column half are, masked, K quad 2g
// of the half's 16 columns and, shifted, quad 2g + 1, exactly a B tile's row layout. The column's
// zero point is subtracted there (u - zero in [-15, 15]; one GF(2) affine transform a nibble when
// every zero point of the block is 8), so tdpbssd (s8 A x s8 B, int32, no
// saturation) gives each block's exact sum with the B term folded in, and A's zero point, when
// it has one, adds row_a x the column sums of u - zero. The next segment is unpacked while the
// current one multiplies, both row halves share each chunk's two B tiles (the 8-bit kernel's
// 2 x 2: four tile loads for four tdpbssd), and each block's float steps (the formula's, lane by
// lane: the bits are every tier's) run while the tile unit multiplies the next block. A call may
// take up to kTilesPerCall whole tiles of a row block, which then share each unpacked block: its
// 64 stores a 32 x 32 block, which cost tile-unit time beside the tile loads, are paid once for
// them all.
#include <immintrin.h>
#include <string.h>

#include <new>

#include "kernels/amx/tile_config.h"
#include "kernels/kernels.h"

#define CPUML_TIER amx
#include "kernels/block_prefetch.inl"

namespace cpuml {
namespace amx {
namespace {

constexpr size_t kMr = 32, kNr = 32, kKr = 8;
constexpr size_t kTileRows = 16;
constexpr size_t kGroupBytes = kNr * kKr / 2;  // a K group of the panel: 64 bytes per column half
constexpr size_t kRowBytes = 64;               // a B tile row: one K quad of 16 columns
// Segments of at most 256 K values (a block of up to 256 is one segment): two buffers of the
// two column halves' B tile rows, 8 KB each.
constexpr size_t kSegmentGroups = 32, kSegmentQuads = 2 * kSegmentGroups;
constexpr size_t kHalfBytes = kSegmentQuads * kRowBytes;
// A share of the next panel is half a panel (two tiles a row block) over a tile's K groups: about a
// line a group, a little more with each block's zero points beside it.
constexpr size_t kMaxPrefetchLinesPerGroup = 4;
// Tiles a call may take (QGemmKernel::tiles_per_call): y for all of them on the stack, 16 KB.
// Intel Xeon with AMX (2 vCPUs, 2026-12-02), one thread, `i2f/cpuml/s8u4` 128 and 512 x 4096 x
// 4096, blocks of 32 and 128, against 4: two tiles 0.90-1.02x, three 0.88-0.99x, six 0.97-1.04x, eight
// 0.92-1.04x.
constexpr size_t kTilesPerCall = 4;

// What the kernel keeps on its thread between tiles: the K per tdpbssd of the loaded tile
// configuration (0: none loaded yet), which follows the operator's block size.
struct TileState {
  uint32_t chunk;
};
static_assert(sizeof(TileState) <= kKernelStateBytes, "the state lives in the caller's kernel state");

TileState& State(void* kernel_state) { return *static_cast<TileState*>(kernel_state); }

// Tiles 0-3 the int32 sums C[row half][column half], 4-5 the A row halves (chunk K values a row),
// 6-7 the B column halves (chunk / 4 K quads of 16 columns).
constexpr TileConfig ChunkConfig(size_t chunk) {
  TileConfig c{};
  c.palette_id = 1;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = static_cast<uint16_t>(t == 4 || t == 5 ? chunk : kRowBytes);
    c.rows[t] = static_cast<uint8_t>(t >= 6 ? chunk / 4 : kTileRows);
  }
  return c;
}
// Every chunk a call may use (8 to 64 K values, whole groups), in static storage: GCC 12 dropped
// the column widths of a configuration built on the stack as dead stores before ldtilecfg.
constexpr TileConfig kChunkConfigs[8] = {ChunkConfig(8),  ChunkConfig(16), ChunkConfig(24), ChunkConfig(32),
                                         ChunkConfig(40), ChunkConfig(48), ChunkConfig(56), ChunkConfig(64)};

void EnterTiles(void* kernel_state) { new (kernel_state) TileState{0}; }

void ReleaseTiles(void* kernel_state) {
  if (State(kernel_state).chunk) _tile_release();
  State(kernel_state).chunk = 0;
}

// Each column's zero point (0..15) in the four bytes of its lane, for column half `half`. (The
// zero-masking forms of the widening: GCC 12 warns of the undefined vector in the plain ones.)
inline __m512i ZeroBytes(const uint8_t* zero_points, size_t half) {
  const __m512i zero = _mm512_maskz_cvtepu8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(zero_points + 16 * half)));
  return _mm512_mullo_epi32(zero, _mm512_set1_epi32(0x01010101));
}

// Whether every column of a block has zero point 8 in the u domain (INT4 without zero points,
// or MatMulNBits' default): then u - 8 is a signed nibble, which one affine transform over GF(2)
// turns into its s8 byte (the low three bits kept, the fourth inverted and copied up), so a
// nibble takes one instruction to unpack instead of a mask or shift and a subtraction.
inline bool ZeroPointsAllEight(const uint8_t* zero_points) {
  const __m256i zero = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(zero_points));
  return _mm256_cmpeq_epi8_mask(zero, _mm256_set1_epi8(8)) == 0xFFFFFFFFu;
}
// GF2P8AFFINEQB's matrix: byte 7 - i of the qword selects the source bits of result bit i.
constexpr uint64_t kLowNibbleMinusEight = 0x0102040808080808ull;   // bits 0, 1, 2, then 3 five times
constexpr uint64_t kHighNibbleMinusEight = 0x1020408080808080ull;  // bits 4, 5, 6, then 7 five times
constexpr int kInvertSignBits = 0xF8;                              // XORed into result bits 3-7

// `groups` K groups of a block's panel data into B tile rows at dst (half 1 kHalfBytes on), u -
// zero as s8, and zero rows up to `padded_groups`; with column sums, adds each column's sum to
// column_sum[half]: of u in general, of u - 8 with kAllEight.
template <bool kColumnSums, bool kAllEight>
inline void UnpackSegment(const uint8_t* b, size_t groups, size_t padded_groups, const uint8_t* zero_points,
                          int8_t* dst, __m512i (&column_sum)[2]) {
  const __m512i mask = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1);
  const __m512i low_matrix = _mm512_set1_epi64(static_cast<long long>(kLowNibbleMinusEight));
  const __m512i high_matrix = _mm512_set1_epi64(static_cast<long long>(kHighNibbleMinusEight));
  __m512i zero[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  if (!kAllEight) {
    zero[0] = ZeroBytes(zero_points, 0);
    zero[1] = ZeroBytes(zero_points, 1);
  }
  for (size_t g = 0; g < groups; ++g)
    for (size_t half = 0; half < 2; ++half) {
      const __m512i raw = _mm512_loadu_si512(b + g * kGroupBytes + half * kRowBytes);
      __m512i low, high;
      if (kAllEight) {
        low = _mm512_gf2p8affine_epi64_epi8(raw, low_matrix, kInvertSignBits);
        high = _mm512_gf2p8affine_epi64_epi8(raw, high_matrix, kInvertSignBits);
        // vpdpbusd's first operand is the unsigned one: ones x (u - 8).
        if (kColumnSums)
          column_sum[half] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(column_sum[half], ones, low), ones, high);
      } else {
        const __m512i u_low = _mm512_and_si512(raw, mask), u_high = _mm512_and_si512(_mm512_srli_epi16(raw, 4), mask);
        if (kColumnSums)
          column_sum[half] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(column_sum[half], u_low, ones), u_high, ones);
        low = _mm512_sub_epi8(u_low, zero[half]);
        high = _mm512_sub_epi8(u_high, zero[half]);
      }
      int8_t* row = dst + half * kHalfBytes + 2 * g * kRowBytes;
      _mm512_store_si512(row, low);
      _mm512_store_si512(row + kRowBytes, high);
    }
  for (size_t g = groups; g < padded_groups; ++g)
    for (size_t half = 0; half < 2; ++half) {
      int8_t* row = dst + half * kHalfBytes + 2 * g * kRowBytes;
      _mm512_store_si512(row, _mm512_setzero_si512());
      _mm512_store_si512(row + kRowBytes, _mm512_setzero_si512());
    }
}

// One call's blocks: unpacking, the tile unit's runs and the float steps, with what they share.
template <bool kTwoHalves, bool kColumnSums>
class BlockTile {
 public:
  BlockTile(size_t mr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmBlocks& blocks, size_t chunk,
            const QGemmTileParams& p)
      : mr_(mr),
        tiles_((mr + kMr - 1) / kMr),
        a_tile_(a_tile),
        b_panel_(b_panel),
        blocks_(blocks),
        chunk_groups_(chunk / kKr),
        a_row_stride_(p.a_row_stride),
        prefetch_(p, (blocks.count - 1) * blocks.groups + blocks.last_groups, !p.b_streams) {
    for (size_t r = 0; r < mr; ++r)
      for (size_t j = 0; j < kNr; j += 16)  // -0 + p is p
        _mm512_store_ps(&y_[r][j], blocks.y_in ? _mm512_loadu_ps(blocks.y_in + r * kNr + j) : _mm512_set1_ps(-0.0f));
  }

  // Blocks of at most kSegmentGroups groups on one row half (16 rows or fewer), each unpacked
  // whole while the previous one multiplies. Each block accumulates in the tile pair the previous
  // block did not use, so the tile unit goes on with the next block while a finished pair is
  // stored; a block's float steps run during the next block's tdpbssd.
  void OneHalfBlocks() {
    Unpack(0, 0, groups_of(0), b_rows_[0]);
    for (size_t c = 0; c < blocks_.count; ++c) {
      if (c + 1 < blocks_.count) Unpack(c + 1, 0, groups_of(c + 1), b_rows_[(c + 1) % 2]);
      const uint8_t* a = a_tile_ + c * blocks_.a_stride;
      if (c % 2 == 0) MultiplyPair0(a, ARowStride(c), b_rows_[0], Padded(groups_of(c)), true);
      else MultiplyPair1(a, ARowStride(c), b_rows_[1], Padded(groups_of(c)), true);
      if (c == 0) continue;
      StorePair((c - 1) % 2, c - 1, 0);
      Finish(c - 1);
    }
    StorePair((blocks_.count - 1) % 2, blocks_.count - 1, 0);
    Finish(blocks_.count - 1);
  }

  // Blocks of at most kSegmentGroups groups on both row halves of each whole tile, each chunk's
  // two B tiles loaded once for the four tdpbssd of the 2 x 2 tile (four tile loads, where a row
  // half at a time loads them again for the second half: six). A step is one tile's block, tiles
  // inner: each block is unpacked once for all the call's tiles, a slice of the next block before
  // each tile's runs. A step's second row half is stored after the next step's first two tdpbssd,
  // so the tile unit has those to run while its sums drain.
  void TwoHalvesBlocks() {
    Unpack(0, 0, groups_of(0), b_rows_[0]);
    size_t step = 0;
    for (size_t c = 0; c < blocks_.count; ++c) {
      const size_t row_bytes = ARowStride(c), padded = Padded(groups_of(c));
      const size_t next_groups = c + 1 < blocks_.count ? groups_of(c + 1) : 0;
      const int8_t* rows = b_rows_[c % 2];
      for (size_t t = 0; t < tiles_; ++t, ++step) {
        const size_t first = next_groups * t / tiles_, end = next_groups * (t + 1) / tiles_;
        if (end > first) Unpack(c + 1, first, end - first, b_rows_[(c + 1) % 2] + 2 * first * kRowBytes);
        const uint8_t* a = ATile(t, c);
        const uint8_t* a_high = a + kTileRows * row_bytes;
        _tile_zero(0);
        _tile_zero(1);
        _tile_loadd(6, rows, kRowBytes);
        _tile_loadd(7, rows + kHalfBytes, kRowBytes);
        _tile_loadd(4, a, row_bytes);
        _tile_dpbssd(0, 4, 6);
        _tile_dpbssd(1, 4, 7);
        if (step > 0) StorePair(1, step - 1, 1);
        _tile_zero(2);
        _tile_zero(3);
        _tile_loadd(5, a_high, row_bytes);
        _tile_dpbssd(2, 5, 6);
        _tile_dpbssd(3, 5, 7);
        if (step > 0) Finish(step - 1);  // both of its row halves stored
        for (size_t g = chunk_groups_; g < padded; g += chunk_groups_) {
          _tile_loadd(6, rows + 2 * g * kRowBytes, kRowBytes);
          _tile_loadd(7, rows + kHalfBytes + 2 * g * kRowBytes, kRowBytes);
          _tile_loadd(4, a + g * kKr, row_bytes);
          _tile_dpbssd(0, 4, 6);
          _tile_dpbssd(1, 4, 7);
          _tile_loadd(5, a_high + g * kKr, row_bytes);
          _tile_dpbssd(2, 5, 6);
          _tile_dpbssd(3, 5, 7);
        }
        StorePair(0, step, 0);
      }
    }
    StorePair(1, step - 1, 1);
    Finish(step - 1);
  }

  // One block longer than a segment (scales per column, K one block): segments of it unpacked in
  // turn, all four tiles accumulating across them.
  void OneLongBlock() {
    const size_t groups = groups_of(0), row_bytes = ARowStride(0);
    const size_t first_segment = groups < kSegmentGroups ? groups : kSegmentGroups;
    Unpack(0, 0, first_segment, b_rows_[0]);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    size_t index = 0;
    for (size_t g0 = 0; g0 < groups; g0 += kSegmentGroups, ++index) {
      const size_t count = groups - g0 < kSegmentGroups ? groups - g0 : kSegmentGroups;
      const size_t next = g0 + count;
      if (next < groups)
        Unpack(0, next, groups - next < kSegmentGroups ? groups - next : kSegmentGroups, b_rows_[(index + 1) % 2]);
      const uint8_t* a = a_tile_ + g0 * kKr;
      MultiplyPair0(a, row_bytes, b_rows_[index % 2], Padded(count), false);
      if (kTwoHalves) MultiplyPair1(a + kTileRows * row_bytes, row_bytes, b_rows_[index % 2], Padded(count), false);
    }
    StorePair(0, 0, 0);
    if (kTwoHalves) StorePair(1, 0, 1);
    Finish(0);
  }

  // y (+ bias) into the caller's rows, nr columns.
  void Store(size_t nr, const QGemmTileParams* p) const {
    const __mmask16 columns[2] = {static_cast<__mmask16>(nr >= 16 ? 0xFFFF : (1u << nr) - 1),
                                  static_cast<__mmask16>(nr <= 16 ? 0 : nr >= 32 ? 0xFFFF : (1u << (nr - 16)) - 1)};
    for (size_t r = 0; r < mr_; ++r)
      for (size_t half = 0; half < 2; ++half) {
        __m512 v = _mm512_load_ps(&y_[r][16 * half]);
        // The bias array is padded to whole panels (the front end's QGemmQuantization).
        if (p->bias) v = _mm512_add_ps(v, _mm512_loadu_ps(p->bias + 16 * half));
        _mm512_mask_storeu_ps(static_cast<uint8_t*>(p->out) + r * p->out_row_stride + 64 * half, columns[half], v);
      }
  }

 private:
  size_t groups_of(size_t c) const { return c + 1 == blocks_.count ? blocks_.last_groups : blocks_.groups; }
  // Bytes from a row of block c's A to the next: the packed block's row, or the caller's row when
  // A is read in place (QGemmAInPlace::kS8BlockRows).
  size_t ARowStride(size_t c) const { return a_row_stride_ ? a_row_stride_ : groups_of(c) * kKr; }
  size_t Padded(size_t groups) const { return (groups + chunk_groups_ - 1) / chunk_groups_ * chunk_groups_; }
  const uint8_t* ATile(size_t t, size_t c) const { return a_tile_ + t * blocks_.a_tile_stride + c * blocks_.a_stride; }
  const uint8_t* ZeroPoints(size_t c) const {
    return blocks_.zero_points ? blocks_.zero_points : b_panel_ + c * blocks_.b_stride + groups_of(c) * kGroupBytes;
  }

  // Groups [first, first + count) of block c into dst (group `first`'s rows), the zero rows of
  // its last chunk after its last group; the block's column terms once its last group is in.
  void Unpack(size_t c, size_t first, size_t count, int8_t* dst) {
    const uint8_t* zero_points = ZeroPoints(c);
    const uint8_t* data = b_panel_ + c * blocks_.b_stride + first * kGroupBytes;
    const bool all_eight = ZeroPointsAllEight(zero_points);
    const size_t padded = first + count == groups_of(c) ? Padded(groups_of(c)) - first : count;
    if (first == 0) column_sum_[0] = column_sum_[1] = _mm512_setzero_si512();
    if (all_eight) UnpackSegment<kColumnSums, true>(data, count, padded, zero_points, dst, column_sum_);
    else UnpackSegment<kColumnSums, false>(data, count, padded, zero_points, dst, column_sum_);
    for (size_t g = 0; g < count; ++g) prefetch_.Step();
    if (!kColumnSums || first + count != groups_of(c)) return;
    // Over the block's k values: sum(u - zero) = sum(u) - k * zero; the sums of u - 8 also
    // counted the padding of the last group (u = 0) as -8 each.
    const size_t k = c + 1 == blocks_.count ? blocks_.last_k : blocks_.k;
    const size_t padding = groups_of(c) * kKr - k;
    for (size_t half = 0; half < 2; ++half) {
      const __m512i zero =
          _mm512_maskz_cvtepu8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(zero_points + 16 * half)));
      const __m512i sum =
          all_eight ? _mm512_add_epi32(column_sum_[half], _mm512_set1_epi32(static_cast<int32_t>(8 * padding)))
                    : _mm512_sub_epi32(column_sum_[half], _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int32_t>(k)), zero));
      _mm512_store_si512(&column_terms_[c % 3][16 * half], sum);
    }
  }

  // Sixteen rows of A (row_bytes apart) times `padded` groups of unpacked B into the tile pair
  // (the column halves), from zero when `fresh`. Pair 0 is tiles 0 and 1 with A in tile 4, pair
  // 1 tiles 2 and 3 with A in 5; a macro, since GCC's tile intrinsics paste their tile numbers
  // into the assembly.
#define CPUML_MULTIPLY_ROWS(name, c0, c1, a_tile)                                                        \
  void name(const uint8_t* a, size_t row_bytes, const int8_t* rows, size_t padded, bool fresh) const { \
    if (fresh) {                                                                                         \
      _tile_zero(c0);                                                                                    \
      _tile_zero(c1);                                                                                    \
    }                                                                                                    \
    for (size_t g = 0; g < padded; g += chunk_groups_) {                                                 \
      _tile_loadd(6, rows + 2 * g * kRowBytes, kRowBytes);                                              \
      _tile_loadd(7, rows + kHalfBytes + 2 * g * kRowBytes, kRowBytes);                                 \
      _tile_loadd(a_tile, a + g * kKr, row_bytes);                                                      \
      _tile_dpbssd(c0, a_tile, 6);                                                                       \
      _tile_dpbssd(c1, a_tile, 7);                                                                       \
    }                                                                                                    \
  }
  CPUML_MULTIPLY_ROWS(MultiplyPair0, 0, 1, 4)
  CPUML_MULTIPLY_ROWS(MultiplyPair1, 2, 3, 5)
#undef CPUML_MULTIPLY_ROWS

  // Tile pair `pair` (the column halves of one row half) into step `step`'s sums (a block of one
  // tile: TwoHalvesBlocks), rows 16 * half on.
  void StorePair(size_t pair, size_t step, size_t half) {
    constexpr size_t kCStride = kNr * sizeof(int32_t);
    int32_t* sums = &acc_[step % 2][half * kTileRows][0];
    if (pair == 0) {
      _tile_stored(0, sums, kCStride);
      _tile_stored(1, sums + 16, kCStride);
    } else {
      _tile_stored(2, sums, kCStride);
      _tile_stored(3, sums + 16, kCStride);
    }
  }

  // Step `step`'s float steps from its stored sums, in the formula's order: block step / tiles of
  // tile step % tiles.
  void Finish(size_t step) {
    const size_t c = step / tiles_, t = step % tiles_, row0 = t * kMr;
    const size_t rows = mr_ - row0 < kMr ? mr_ - row0 : kMr;
    const int32_t(&sums)[kMr][kNr] = acc_[step % 2];
    const float* a_scale = blocks_.a_scale + c * blocks_.a_scale_stride + row0;
    const int32_t* row_a = blocks_.row_a + c * blocks_.row_stride + row0;
    __m512 b_scale[2];
    for (size_t half = 0; half < 2; ++half)
      b_scale[half] = blocks_.b_scale_half ? _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                                 blocks_.b_scale_half + c * blocks_.b_scale_stride + 16 * half)))
                                           : _mm512_loadu_ps(blocks_.b_scale + c * blocks_.b_scale_stride + 16 * half);
    __m512i column_term[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    if (kColumnSums)
      for (size_t half = 0; half < 2; ++half) column_term[half] = _mm512_load_si512(&column_terms_[c % 3][16 * half]);
    for (size_t r = 0; r < rows; ++r) {
      const __m512 a = _mm512_set1_ps(a_scale[r]);
      float* y = y_[row0 + r];
      for (size_t half = 0; half < 2; ++half) {
        __m512i s = _mm512_load_si512(&sums[r][16 * half]);
        if (kColumnSums) s = _mm512_add_epi32(s, _mm512_mullo_epi32(_mm512_set1_epi32(row_a[r]), column_term[half]));
        const __m512 product = _mm512_mul_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(a, b_scale[half]));
        _mm512_store_ps(y + 16 * half, _mm512_add_ps(_mm512_load_ps(y + 16 * half), product));
      }
    }
  }

  const size_t mr_, tiles_;  // rows, and 32-row tiles (several only in TwoHalvesBlocks)
  const uint8_t* const a_tile_;
  const uint8_t* const b_panel_;
  const QGemmBlocks& blocks_;
  const size_t chunk_groups_;
  const size_t a_row_stride_;
  alignas(64) int8_t b_rows_[2][2 * kHalfBytes];
  alignas(64) int32_t acc_[2][kMr][kNr];
  alignas(64) float y_[kTilesPerCall * kMr][kNr];
  alignas(64) int32_t column_terms_[3][kNr];  // a block's sums of u - zero, three blocks in flight
  __m512i column_sum_[2];
  // The next panel's share (QGemmTileParams::prefetch_b) into L2, a step a group unpacked: a row
  // block is two tiles at K = 4096, so without it every other tile read its panel from memory.
  // Emerald Rapids, `dqmatmul` 128 and 512 x 4096 x 4096, blocks of 32 and 128, six rounds:
  // sixteen threads 1.00-1.06x, one thread 1.01-1.11x.
  BlockPrefetch<kMaxPrefetchLinesPerGroup> prefetch_;
};

template <bool kTwoHalves, bool kColumnSums>
void Tile(size_t mr, size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  // K per tdpbssd: a whole block up to 64 (each block is then whole chunks; only the last may be
  // shorter, its tile rows reading into kATileSlack), 64 for longer blocks.
  const size_t chunk = blocks.groups * kKr < 64 ? blocks.groups * kKr : 64;
  TileState& state = State(p->kernel_state);
  if (state.chunk != chunk) {
    _tile_loadconfig(&kChunkConfigs[chunk / kKr - 1]);
    state.chunk = static_cast<uint32_t>(chunk);
  }
  BlockTile<kTwoHalves, kColumnSums> tile(mr, a_tile, b_panel, blocks, chunk, *p);
  // Blocks are at most 256 K values; only scales per column make a longer one, the only block.
  if (blocks.groups > kSegmentGroups) tile.OneLongBlock();
  else if constexpr (kTwoHalves) tile.TwoHalvesBlocks();
  else tile.OneHalfBlocks();
  tile.Store(nr, p);
}

// Column sums only where some row's A zero point is not 0 in the s8 domain (row_a is the same for
// every block).
void qgemm_s8u4_32x32c8__amx(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                             const QGemmTileParams* p) {
  // Several tiles share each unpacked block only when they are whole and each block is one
  // segment; otherwise (one block longer than a segment: scales per column) they run one at a
  // time, each unpacking for itself.
  if (mr > kMr && (mr % kMr != 0 || p->blocks->groups > kSegmentGroups)) {
    const size_t tiles = (mr + kMr - 1) / kMr;
    for (size_t t = 0; t < tiles; ++t) {
      const size_t row0 = t * kMr;
      QGemmBlocks blocks = *p->blocks;
      blocks.a_scale += row0;
      blocks.row_a += row0;
      blocks.row_b += row0;
      if (blocks.y_in) blocks.y_in += row0 * kNr;
      QGemmTileParams tile = *p;
      tile.blocks = &blocks;
      tile.out = static_cast<uint8_t*>(p->out) + row0 * p->out_row_stride;
      tile.prefetch_b_bytes = p->prefetch_b_bytes / tiles;
      if (tile.prefetch_b) tile.prefetch_b += t * tile.prefetch_b_bytes;
      qgemm_s8u4_32x32c8__amx(mr - row0 < kMr ? mr - row0 : kMr, nr, k_groups,
                              static_cast<const uint8_t*>(a_packed) + t * blocks.a_tile_stride, b_packed, &tile);
    }
    return;
  }
  bool column_sums = false;
  for (size_t r = 0; r < mr; ++r) column_sums |= p->blocks->row_a[r] != 0;
  const uint8_t* a = static_cast<const uint8_t*>(a_packed);
  const uint8_t* b = static_cast<const uint8_t*>(b_packed);
  if (mr > kTileRows) {
    if (column_sums) Tile<true, true>(mr, nr, a, b, p);
    else Tile<true, false>(mr, nr, a, b, p);
  } else {
    if (column_sums) Tile<false, true>(mr, nr, a, b, p);
    else Tile<false, false>(mr, nr, a, b, p);
  }
}

}  // namespace

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
static_assert(kSegmentGroups % 8 == 0, "a segment holds whole 64-K chunks");
// From 16 rows up. Emerald Rapids device, 4096 x 4096, blocks 32 and 128, against the 8-row AVX-512
// VNNI kernel: 16 rows 1.45-2.06x at one thread and 1.15-1.56x at sixteen; 8 rows 1.06-1.56x at
// one thread but 0.81-1.00x at sixteen; 4 rows 0.69-1.14x and 0.71-0.77x (docs/experiments.md).
// A read in place (kS8BlockRows) where the front end would pack it in a pass of its own, against
// that pass, sixteen threads, blocks of 128, three calls: 128 x 14336 x 4096 1.08x (0.71 -> 0.87 of
// cpuml's int8 pair in the same process), 128 x 4096 x 4096 1.08x, 512 x 4096 x 4096 1.05x, the
// Llama-3-8B layer's 128-row chunk 1.22x; at blocks of 32 it lost (0.88-0.99x), so they pack.
// Both row halves on each chunk's B tiles (TwoHalvesBlocks) against a row half at a time, sixteen
// threads, blocks of 128, 14 rounds of two calls: 1.01-1.08x, the int8 pair's time over the 4-bit
// pair's in the same process 0.66-0.83 -> 0.75-0.96; blocks of 32, and 1, 4 and 8 threads, level.
extern const QGemmKernel kQGemm_s8u4_32x32c8__amx;
const QGemmKernel kQGemm_s8u4_32x32c8__amx = {
    "qgemm_s8u4_32x32c8__amx", kMr, kNr, kKr, QGemmPacking::kS8U4BlockRows, 16, UINT32_MAX, qgemm_s8u4_32x32c8__amx,
    EnterTiles, ReleaseTiles, 0, 0, 0, QGemmAInPlace::kS8BlockRows, kTilesPerCall};

}  // namespace amx
}  // namespace cpuml
