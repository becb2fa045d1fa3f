// qgemm_u8s8_32x32c64__amx: 32 rows x 32 columns, K in groups of 64 (kU8S8Tiles layout).
//
// tdpbusd multiplies u8 A by s8 B and adds into int32 tiles with no narrower intermediate and no
// saturation, so it is exact like vpdpbusd; s8 A and u8 B are shifted into its domain at packing
// and the shifts undone by the row/column terms, as in the VNNI kernel. Four 16 x 16 int32
// accumulator tiles hold the whole 32 x 32 tile across K; each group of 64 K values loads two A
// tiles (16 rows x 64 bytes) and two B tiles (16 K quads x 16 columns x 4 bytes) for four
// tdpbusd, 65,536 multiply-adds. A tile's epilogue runs during the next tile's K loop when the
// caller allows it (QGemmTileParams::deferrable), and at the latest in leave(). A may also be read
// in place (QGemmTileParams::a_row_stride): u8 rows through tdpbusd, s8 rows through tdpbssd
// (B's packed s8 domain is the same), no shift, row terms in A's own domain.
#include <immintrin.h>
#include <string.h>

#include <new>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "kernels/amx/tile_config.h"
#include "kernels/kernels.h"

#define CPUML_TIER amx
#define CPUML_XSIMD_ARCH xsimd::avx512bw

#include "kernels/block_prefetch.inl"
#include "kernels/requantize_xsimd.inl"

namespace cpuml {
namespace amx {
namespace {

constexpr size_t kMr = 32, kNr = 32, kKr = 64;
constexpr size_t kTileRows = 16;               // rows of every tile register used here
constexpr size_t kAGroupBytes = kMr * kKr;     // one K group of the packed A tile
constexpr size_t kBRowBytes = kNr * 4;         // one K quad of the packed B panel
constexpr size_t kBGroupBytes = kKr / 4 * kBRowBytes;
// K blocks of 1024: a block of the B panel (32 KiB) stays in L1 while a row block's A tiles stream.
constexpr uint32_t kKBlockGroups = 16;
// Rows of their own per thread from 64 up (QGemmKernel::own_rows_per_thread). On the 16-core
// device: 1024^3 and 2048^3 +14% and +11% at 16 threads (rewriting packed A that three other cores
// had read took a third of a 1024^3 call); 512 x 4096 x 4096, 32 rows a thread, lost 15% to every
// thread streaming all 16 MB of B.
constexpr uint32_t kOwnRowsPerThread = 64;

// Tile registers: 0-3 the accumulators C[row half][column half], 4-5 the A row halves, 6-7 the
// B column halves. Every tile is 16 rows of 64 bytes.
constexpr TileConfig kTileConfig = EightFullTiles();
static_assert(kTileRows == 16 && kKr == 64, "EightFullTiles() is 16 rows of 64 bytes");

// A finished tile whose epilogue is still to run: the next tile's K loop runs it a few rows at a
// time between its tdpbusd, so the vector units requantize while the tile unit multiplies.
struct PendingTile {
  alignas(64) int32_t acc[kMr][kNr];
  // Prepared once, used by each batch of rows: the common case's epilogue when use_row_pairs,
  // else the columns the general one reads.
  RowPairEpilogue<kNr> row_pairs;
  TileColumns<kNr> columns;
  QGemmTileParams params;
  size_t mr, nr, rows_done;
  bool use_row_pairs, valid;
};
static_assert(sizeof(PendingTile) <= kKernelStateBytes && alignof(PendingTile) <= 64,
              "the pending tile lives in the caller's kernel state");

PendingTile& Pending(void* kernel_state) { return *static_cast<PendingTile*>(kernel_state); }

// B's next block (block_prefetch.inl) up to 32 lines a K group: that bounds only a share larger
// than any block of B (32 KB over 16 groups). Emerald Rapids, one process alternating builds, one
// thread, two runs: 2048^3 x1.04-1.05, 128x768x3072 x1.08-1.11, 16x4096x4096 (one tile per block,
// 32 lines a group) x1.05-1.16; capping at 4 or 8 lines kept less of that and changed nothing at
// 16 threads.
// Not when B streams (QGemmTileParams::b_streams, a row block of one tile): the hardware
// prefetchers follow that stream better alone. One thread, 20 interleaved rounds, against
// prefetching the next panel: 16x4096x4096 and 16x4096x11008 x1.06, 32x4096x4096 x1.10, 8x4096x4096
// x1.06; line-by-line prefetches 4-32 KB ahead of the loads (T0, T1, T2) added nothing to that.
// (Zen 4's VNNI and AVX2 kernels lose up to a third without their prefetch there: they keep it.)
constexpr size_t kMaxPrefetchLinesPerGroup = 32;

// Up to `rows` more rows of the pending tile through the general epilogue (a tile the row-pair
// epilogue does not serve).
void RequantizePendingRows(PendingTile& pending, size_t rows) {
  rows = rows < pending.mr - pending.rows_done ? rows : pending.mr - pending.rows_done;
  if (rows == 0) return;
  RequantizeRows<kNr>(&pending.acc[pending.rows_done][0], pending.rows_done, rows, pending.nr, &pending.params,
                      pending.columns);
  pending.rows_done += rows;
}

void FinishPending(PendingTile& pending) {
  if (pending.valid) {
    if (!pending.use_row_pairs)
      RequantizePendingRows(pending, kMr);
    else if (pending.rows_done < pending.mr)
      pending.row_pairs.Rows(&pending.acc[pending.rows_done][0], pending.rows_done, kMr);
  }
  pending.valid = false;
}

// How the K loop finishes the pending tile: not at all (none pending, or too few K groups to
// spread it over), through the general epilogue (a call per K group), or through one of the
// row-pair epilogue's forms, inline.
enum class PendingRows { kNone, kGeneral, kBytes, kBytesClampTop, kFloat };
using RowPairForm = RowPairEpilogue<kNr>::Form;

template <PendingRows kRows>
using PendingRowsTag = std::integral_constant<PendingRows, kRows>;

template <class Body>
__attribute__((always_inline)) inline void WithPendingRows(PendingRows rows, Body&& body) {
  switch (rows) {
    case PendingRows::kNone:
      return body(PendingRowsTag<PendingRows::kNone>{});
    case PendingRows::kGeneral:
      return body(PendingRowsTag<PendingRows::kGeneral>{});
    case PendingRows::kBytes:
      return body(PendingRowsTag<PendingRows::kBytes>{});
    case PendingRows::kBytesClampTop:
      return body(PendingRowsTag<PendingRows::kBytesClampTop>{});
    case PendingRows::kFloat:
      return body(PendingRowsTag<PendingRows::kFloat>{});
  }
}

void LoadTileConfig(void* kernel_state) {
  _tile_loadconfig(&kTileConfig);
  new (kernel_state) PendingTile;
  Pending(kernel_state).valid = false;
}

void FinishAndReleaseTiles(void* kernel_state) {
  FinishPending(Pending(kernel_state));
  _tile_release();
}

// Tile c += tile a x tile b: u8 x s8 (the packed layout's domain, and u8 A in place), or s8 x s8
// (s8 A in place). A macro: GCC's tile intrinsics paste their tile numbers into the assembly.
#define CPUML_AMX_DOT(signed_a, c, a, b) \
  do {                                   \
    if constexpr (signed_a)              \
      _tile_dpbssd(c, a, b);             \
    else                                 \
      _tile_dpbusd(c, a, b);             \
  } while (0)

void qgemm_u8s8_32x32c64__amx(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                               const QGemmTileParams* p) {
  const uint8_t* a = static_cast<const uint8_t*>(a_packed);
  const uint8_t* b = static_cast<const uint8_t*>(b_packed);
  PendingTile& pending = Pending(p->kernel_state);
  BlockPrefetch<kMaxPrefetchLinesPerGroup> prefetch(*p, k_groups, !p->b_streams);
  // The previous tile's rows, in pairs as the epilogue narrows them, spread over this tile's K
  // groups from the third on: before that its accumulators, stored at the end of its own K loop,
  // are still on their way to memory (one thread: +2-6% against starting at the first group).
  const size_t first_epilogue_group = k_groups > 2 ? 2 : k_groups;
  const size_t epilogue_groups = k_groups - first_epilogue_group;
  const size_t rows_per_group =
      pending.valid && epilogue_groups ? ((pending.mr + 1) / 2 + epilogue_groups - 1) / epilogue_groups * 2 : 0;
  PendingRows pending_rows = PendingRows::kNone;
  if (rows_per_group && !pending.use_row_pairs) {
    pending_rows = PendingRows::kGeneral;
  } else if (rows_per_group) {
    switch (pending.row_pairs.form()) {
      case RowPairForm::kBytes:
        pending_rows = PendingRows::kBytes;
        break;
      case RowPairForm::kBytesClampTop:
        pending_rows = PendingRows::kBytesClampTop;
        break;
      case RowPairForm::kFloat:
        pending_rows = PendingRows::kFloat;
        break;
    }
  }
  const RowPairEpilogue<kNr> pending_epilogue =
      pending_rows == PendingRows::kNone || pending_rows == PendingRows::kGeneral ? RowPairEpilogue<kNr>()
                                                                                  : pending.row_pairs;
  // From the third K group, rows_per_group more rows of the pending tile each group; the row-pair
  // forms count them in locals, which the output's byte stores would otherwise force back to memory.
  const size_t pending_mr = pending.mr;
  size_t rows_done = pending.rows_done;
  auto requantize_pending = [&](size_t g, auto rows_tag) __attribute__((always_inline)) {
    constexpr PendingRows kRows = decltype(rows_tag)::value;
    if constexpr (kRows == PendingRows::kGeneral) {
      if (g >= first_epilogue_group) RequantizePendingRows(pending, rows_per_group);
    } else if constexpr (kRows != PendingRows::kNone) {
      constexpr RowPairForm kForm = kRows == PendingRows::kFloat           ? RowPairForm::kFloat
                                    : kRows == PendingRows::kBytesClampTop ? RowPairForm::kBytesClampTop
                                                                           : RowPairForm::kBytes;
      if (g >= first_epilogue_group && rows_done < pending_mr) {
        pending_epilogue.RowsAs<kForm>(&pending.acc[rows_done][0], rows_done, rows_per_group);
        rows_done = rows_per_group < pending_mr - rows_done ? rows_done + rows_per_group : pending_mr;
      }
    }
  };
  // A byte output past L2 (QGemmTileParams::output_past_l2): this tile's rows are asked into L2
  // during its last K block, spread over its groups, so the epilogue's stores during the next
  // tile's K loop find them near. The stores of lines new to the core cost the tile loop 5-31% of
  // a one-thread call; the same requests for an output that L2 already holds, and a burst of them
  // before the block, cost more than they saved (Emerald Rapids, docs/experiments.md, 2026-12-01).
  const char* far_rows = !p->dot_out && p->deferrable && p->output_past_l2 && p->stage == kStageRequantize8
                             ? static_cast<const char*>(p->out)
                             : nullptr;
  const size_t far_rows_per_group = k_groups ? (mr + k_groups - 1) / k_groups : mr;
  size_t far_row = 0;
  auto request_far_rows = [&]() __attribute__((always_inline)) {
    if (far_rows)
      for (size_t r = 0; r < far_rows_per_group && far_row < mr; ++r, ++far_row)
        _mm_prefetch(far_rows + far_row * p->out_row_stride, _MM_HINT_T1);
  };
  constexpr size_t kCStride = kNr * sizeof(int32_t);
  // The accumulators start from zero and the epilogue adds the column term: starting them from
  // it (tile loads with row stride 0) cost 2-4% more than the vector adds it saves.
  if (p->dot_in) {
    _tile_loadd(0, p->dot_in, kCStride);
    _tile_loadd(1, p->dot_in + 16, kCStride);
  } else {
    _tile_zero(0);
    _tile_zero(1);
  }
  if (mr > kTileRows) {
    if (p->dot_in) {
      _tile_loadd(2, p->dot_in + kTileRows * kNr, kCStride);
      _tile_loadd(3, p->dot_in + kTileRows * kNr + 16, kCStride);
    } else {
      _tile_zero(2);
      _tile_zero(3);
    }
  }
  // A packed: [group][32 rows][64 K], a group's two row halves 1 KB apart. A in place: the
  // caller's rows (QGemmTileParams::a_row_stride), a group 64 bytes on along each row.
  const size_t a_stride = p->a_row_stride ? p->a_row_stride : kKr;
  const size_t a_step = p->a_row_stride ? kKr : kAGroupBytes;
  const uint8_t* a_high = a + kTileRows * a_stride;
  auto multiply = [&](auto signed_a, auto rows_tag) __attribute__((always_inline)) {
    constexpr bool kSignedA = decltype(signed_a)::value;
    if (mr > kTileRows) {
      for (size_t g = 0; g < k_groups; ++g, a += a_step, a_high += a_step, b += kBGroupBytes) {
        prefetch.Step();
        request_far_rows();
        // A streams through (T1 hint) so the B panel, reused by the next tiles, stays in L1.
        _tile_stream_loadd(4, a, a_stride);
        _tile_loadd(6, b, kBRowBytes);
        _tile_loadd(7, b + 64, kBRowBytes);
        _tile_stream_loadd(5, a_high, a_stride);
        CPUML_AMX_DOT(kSignedA, 0, 4, 6);
        CPUML_AMX_DOT(kSignedA, 1, 4, 7);
        CPUML_AMX_DOT(kSignedA, 2, 5, 6);
        CPUML_AMX_DOT(kSignedA, 3, 5, 7);
        requantize_pending(g, rows_tag);
      }
    } else {
      // A short tile (M tail, or small M): the lower row half is all padding.
      for (size_t g = 0; g < k_groups; ++g, a += a_step, b += kBGroupBytes) {
        prefetch.Step();
        _tile_stream_loadd(4, a, a_stride);
        _tile_loadd(6, b, kBRowBytes);
        _tile_loadd(7, b + 64, kBRowBytes);
        CPUML_AMX_DOT(kSignedA, 0, 4, 6);
        CPUML_AMX_DOT(kSignedA, 1, 4, 7);
        requantize_pending(g, rows_tag);
      }
    }
  };
  WithPendingRows(pending_rows, [&](auto rows_tag) __attribute__((always_inline)) {
    if (p->a_row_stride && p->a_signed)
      multiply(std::true_type{}, rows_tag);
    else
      multiply(std::false_type{}, rows_tag);
    if constexpr (decltype(rows_tag)::value != PendingRows::kNone && decltype(rows_tag)::value != PendingRows::kGeneral)
      pending.rows_done = rows_done;
  });
  FinishPending(pending);
  alignas(64) int32_t tile[kMr][kNr];
  int32_t* acc = p->dot_out ? p->dot_out : p->deferrable ? &pending.acc[0][0] : &tile[0][0];
  _tile_stored(0, acc, kCStride);
  _tile_stored(1, acc + 16, kCStride);
  if (mr > kTileRows) {
    _tile_stored(2, acc + kTileRows * kNr, kCStride);
    _tile_stored(3, acc + kTileRows * kNr + 16, kCStride);
  }
  if (p->dot_out) return;  // a K block before the last: the sums continue in the next call
  const TileColumns<kNr> columns(*p, mr, nr);
  if (p->deferrable) {
    pending.params = *p;
    pending.use_row_pairs = RowPairEpilogue<kNr>::Serves(*p, nr, columns);
    if (pending.use_row_pairs)
      pending.row_pairs = RowPairEpilogue<kNr>(*p, mr, columns);
    else
      pending.columns = columns;
    pending.mr = mr;
    pending.nr = nr;
    pending.rows_done = 0;
    pending.valid = true;
  } else {
    RequantizeRows<kNr>(acc, 0, mr, nr, p, columns);
  }
}

#undef CPUML_AMX_DOT

}  // namespace

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
static_assert(kMr * kNr <= kMaxKBlockTileElements, "tile larger than the front end's K-block carry");
// From 4 rows up: below that a tile does under a quarter of useful work and VNNI is faster.
extern const QGemmKernel kQGemm_u8s8_32x32c64__amx;
const QGemmKernel kQGemm_u8s8_32x32c64__amx = {
    "qgemm_u8s8_32x32c64__amx", kMr,         kNr,         kKr,         QGemmPacking::kU8S8Tiles, 4, UINT32_MAX,
    qgemm_u8s8_32x32c64__amx,   LoadTileConfig, FinishAndReleaseTiles, kKBlockGroups, 0, kOwnRowsPerThread, QGemmAInPlace::kWholeTiles};

}  // namespace amx
}  // namespace cpuml
