// The contract between the front end (src/) and the per-ISA kernel folders (kernels/<tier>/).
//
// Each tier folder is compiled with its own ISA flags only and exposes exactly one object, its
// TierKernels table (listed in kernels/registry.h); nothing else in the library calls tier code
// except through such a table. Everything a tier defines lives in namespace cpuml::<tier>, so no
// inline function or template instantiated with AVX flags can be merged by the linker into a
// lower tier's code. See docs/architecture.md.
#ifndef CPUML_KERNELS_KERNELS_H_
#define CPUML_KERNELS_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "cpuml/cpuml.h"

namespace cpuml {

// Fill one row: `count` elements starting at `dst`, `stride` elements apart (the innermost
// dimension's stride after merging; 0 repeats one element). `streaming` asks for non-temporal
// stores (the whole output is larger than this core's share of the last-level cache).
using FillConstantRowFn = void (*)(void* dst, size_t count, size_t stride, CPUML_SCALAR_UNION value,
                                   bool streaming);
// Element j of the row gets ValueStart + (first_index + j) * ValueDelta under the data type's
// sequence rule (docs/semantics.md).
using FillSequenceRowFn = void (*)(void* dst, size_t count, size_t stride, uint64_t first_index,
                                   CPUML_SCALAR_UNION start, CPUML_SCALAR_UNION delta, bool streaming);

constexpr int kDataTypeCount = 9;  // indexed by CPUML_TENSOR_DATA_TYPE; entry 0 is unused

struct FillKernels {
  FillConstantRowFn constant_row[kDataTypeCount];
  FillSequenceRowFn sequence_row[kDataTypeCount];
};

// DYNAMIC_QUANTIZE_LINEAR's row functions (docs/semantics.md): a row's range, then its bytes.
// Both are element-wise or exact reductions, so every tier gives the same bits.
struct QuantizeKernels {
  // Lowers *min and raises *max (both finite on entry) to the least and greatest of `count`
  // contiguous floats; NaN elements leave them unchanged.
  void (*min_max)(const float* x, size_t count, float* min, float* max);
  // dst[i] = clamp(roundHalfToEven(x[i] / scale), qmin - zero_point, qmax - zero_point) +
  // zero_point as a byte (two's complement for INT8), computed in float with the clamp before the
  // conversion; a NaN quotient gives zero_point. `prefetch`, when not NULL, is `count` floats the
  // caller reads later (a row a few rows on, while this one is in cache from its range pass): the
  // kernel requests their lines as it goes, so memory streams them while it computes. `streaming` asks
  // for stores that bypass the caches where the tier has them (an output larger than the
  // last-level cache: each line is then written without being read first); the bytes are the same.
  void (*quantize)(const float* x, size_t count, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                   uint8_t* dst, const float* prefetch, bool streaming);
  // Orders the streaming stores of earlier `quantize` calls before later stores: the caller runs it
  // once after a task's last such call, before its thread pool reports the work done. NULL where
  // the tier's stores are all cached.
  void (*stream_fence)();
  // Symmetric INT8 by blocks of `block` contiguous floats, a multiple of 16 (the last block may be
  // shorter): for block b, scales[b] = max |x| / 127 in float32 (NaN elements left out, +0 for
  // none), and each byte the one `quantize` gives with that scale, zero point 0 and bounds -128, 127.
  void (*quantize_symmetric_blocks)(const float* x, size_t count, size_t block, float* scales, uint8_t* dst);
};

// How a tier wants A and B laid out (see src/qgemm_pack.cc). K is grouped by the kernel's kr;
// within a group a line's kr values are contiguous: [group][row or column][kr].
enum class QGemmPacking : uint8_t {
  // A as int16 (A - AZeroPoint), B as int16 (B sign- or zero-extended); kr = 2.
  // Products and pair sums never leave int32: exact with pmaddwd / smlal.
  kInt16Pairs,
  // A as u8 (s8 A shifted by +128), B as s8 (u8 B shifted by -128): vpdpbusd, usdot.
  kU8S8,
  // A and B as s8 (u8 inputs shifted by -128): sdot, smmla.
  kS8S8,
  // The kU8S8 values in AMX tile layouts: A rows of kr (64) contiguous K values per group
  // ([group][mr][kr]), B in K quads ([K/4][nr][4], K padded to kr), as tdpbusd reads them.
  kU8S8Tiles,
  // 4-bit B in blocks of K (MATRIX_MULTIPLY_INTEGER_TO_FLOAT with UINT4 or INT4 B). A as s8, as
  // in kS8S8, with kr = 8. B as u = its value (UINT4) or its value + 8 (INT4), in [0, 15], two a
  // byte: a column's group is 4 bytes, byte p holding K p in its low nibble and K 4 + p in its
  // high one, so a group's low nibbles and high nibbles are each a quad of the 8-bit layouts,
  // one mask or shift away. The plan's K chunks are B's blocks; a panel's block is its data,
  // [groups][nr][4 bytes], then its zero points in the same domain (0..15), one byte a column,
  // unless every zero point of B is the same (QGemmBlocks::zero_points): then the data alone.
  // Kernels of this layout run all of a tile's blocks in one call (QGemmTileParams::blocks).
  kS8U4Blocks,
  // kS8U4Blocks' B, with each block's A as rows: the block's A tile is [mr][K of the block rounded
  // up to kr], a row's K values contiguous as a tile register's row is (AMX), and every A tile is
  // followed by kATileSlack bytes that a kernel may read past its last row (tile rows of 64 bytes
  // over a last block shorter than that).
  kS8U4BlockRows,
  // kS8U4Blocks with two columns to a byte at the same K, for a dot instruction that takes B
  // signed (sdot): a group of kr = 8 K values of nr = 16 columns is four 16-byte vectors, vector
  // 2q + h holding columns 4q..4q+3 and 8+4q..8+4q+3 at the group's K quad h: its byte 4c + p
  // has, at K 4h + p, column 4q + c's u in the low nibble and column 8 + 4q + c's u XOR 8 in the
  // high one. The byte as s8 is then 16 * (u_high - 8) + u_low: a dot product of A on the bytes
  // and one on their low nibbles give both columns exactly, with one mask for two products.
  // Zero points (one byte a column, in column order, 0..15) and blocks as in kS8U4Blocks.
  kS8U4ColumnPairs,
};
constexpr bool HoldsNibbles(QGemmPacking packing) {
  return packing == QGemmPacking::kS8U4Blocks || packing == QGemmPacking::kS8U4BlockRows ||
         packing == QGemmPacking::kS8U4ColumnPairs;
}
constexpr size_t kATileSlack = 64;
// In the 8-bit layouts the shifts are undone exactly by the row/column terms of the epilogue.

// Everything a micro-kernel needs to finish an mr x nr tile. Per-row arrays hold >= mr entries
// and per-column arrays >= nr entries (the front end pads them), indexed from the tile's corner.
//
//   acc[i][j] = dot[i][j] + row_a[i] * col_a[j] + row_b[i] * col_b[j]        (mod 2^32, exact)
//   y         = float(acc) * ((a_scale[i] * b_scale[j]) / out_scale[i])
//   out[i][j] = cvt_rne(clamp(y, out_min[i], out_max[i])) + out_zero_point[i]
//
// out_min/out_max are typeMin - zp and typeMax - zp as floats; a NaN y becomes out_min.
//
// The other output stages (QGemmTileParams::stage) replace the last two lines:
//   kStageInt32:   out[i][j] = acc[i][j]                                  (int32)
//   kStageFloat32: out[i][j] = float(acc) * m[j] (+ bias[j] when bias)    (float, in this order,
//                  m[j] = multiplier[j], or a_scale[i] * b_scale[j] when multiplier is NULL)
constexpr uint8_t kStageRequantize8 = 0, kStageInt32 = 1, kStageFloat32 = 2;
struct QGemmBlocks;
struct QGemmTileParams {
  const int32_t* row_a;
  const int32_t* row_b;
  const int32_t* col_a;  // NULL: the row_a term is zero
  const int32_t* col_b;  // NULL: the row_b term is zero
  const float* a_scale;
  const float* out_scale;
  const float* out_min;
  const float* out_max;
  const int32_t* out_zero_point;
  const float* b_scale;
  // (a_scale * b_scale[j]) / out_scale per column, computed once per execute with exactly the
  // formula's operations when the A and output scales are per-tensor; NULL otherwise.
  const float* multiplier;
  uint8_t stage;            // kStageRequantize8, kStageInt32 or kStageFloat32
  const float* bias;        // kStageFloat32: per column, or NULL
  void* out;                // row i of the tile starts at out + i * out_row_stride bytes; unit column stride
  size_t out_row_stride;    // bytes
  int32_t* acc_out;         // non-NULL: store acc (mr x nr, row stride = the kernel's full nr) instead of requantizing
  bool out_signed;          // INT8 output, else UINT8
  // The caller reads `out` only after the thread's QGemmKernel::leave(): a kernel with enter and
  // leave may then finish the tile later, overlapping its epilogue with the next tile's work.
  // The arrays above stay valid until leave().
  bool deferrable;
  // This thread writes more output in the call than a 2 MiB L2 (an Intel server core's) holds, so
  // its output lines come from the last-level cache or memory: a kernel may ask for a tile's
  // lines into L2 during the tile's last K block (the amx tier does, for byte outputs).
  bool output_past_l2;
  // Bytes of packed B that the tiles after this one will read first (the next block of B), which
  // the kernel may pull into L2 while it multiplies; NULL when there is none. The front end hands
  // each tile of a row block an equal share, so the block is in L2 before its first tile.
  const uint8_t* prefetch_b;
  size_t prefetch_b_bytes;
  // Kernels that read A in place (QGemmKernel::a_in_place): non-zero when A is read in place
  // instead of packed. a_packed then points at the caller's A for the tile's first row and first
  // K group, rows a_row_stride bytes apart, K contiguous and a whole number of groups, every row
  // the kernel loads present; a_signed: A is s8 (multiplied as s8 x s8), else u8. The row terms
  // are then in A's own domain (no shift).
  size_t a_row_stride;
  bool a_signed;
  // No other tile reads this tile's B block while it is cached: a row block of one tile, which
  // reads B once, front to back. The kernel may then leave B to the hardware prefetchers.
  bool b_streams;
  // For a kernel with enter and leave: the kKernelStateBytes (64-byte aligned) the caller passed
  // to enter() on this thread, kept until leave(); what the kernel carries between tiles lives
  // there (a thread_local in a shared library costs a __tls_get_addr call per tile).
  void* kernel_state;
  // K split into blocks (kernels with QGemmKernel::k_block_groups only): dot_in non-NULL starts
  // the dot products from these instead of zero; dot_out non-NULL stores the raw dot products
  // there and stops (no terms, no epilogue). Both mr_max x nr_max int32, row stride nr_max.
  const int32_t* dot_in;
  int32_t* dot_out;
  // kS8U4Blocks and kS8U4BlockRows kernels: the tile's blocks (k_groups and a_scale, b_scale, the terms and the
  // stage above are then unused); `out` receives float rows, unit column stride.
  const QGemmBlocks* blocks;
};

// The blocks of a kS8U4Blocks or kS8U4BlockRows tile and the float stage that joins them (docs/semantics.md). For
// block c, with colsum[j] the sum of column j's u values in the block and zero[j] its zero point:
//   s = dot[i][j] + row_a[i] * colsum[j] + row_b[i] * zero[j]              (mod 2^32, exact)
//   p = float(s) * (a_scale[i] * b_scale[j])
//   y = p for c = 0, y + p after it;  out[i][j] = y, or y + bias[j] with a bias
// in that order, without contraction. row_a is zero for every block when A's zero point is 0 in
// the s8 domain; colsum is then not needed.
struct QGemmBlocks {
  size_t count;                // blocks
  size_t groups, last_groups;  // kr-groups of each block but the last, and of the last
  size_t k, last_k;            // K values of each block but the last, and of the last
  size_t a_stride, b_stride;   // bytes from a block to the next in the A tile and the B panel
  const int32_t *row_a, *row_b;  // block c's, for the tile's rows: row_a + c * row_stride
  size_t row_stride;             // elements
  const float* a_scale;          // block c's, for the tile's rows: a_scale + c * a_scale_stride
  size_t a_scale_stride;         // elements; 0 when the rows' scales do not change with the block
  const float* b_scale;          // block c's, for the tile's columns: b_scale + c * b_scale_stride
  // Non-NULL: the same scales as FLOAT16 bits, each exactly its FLOAT32 scale and a normal
  // number or zero, in place of b_scale (which is then NULL): block c's at
  // b_scale_half + c * b_scale_stride. Half the bytes of a block's scales to read.
  const uint16_t* b_scale_half;
  size_t b_scale_stride;         // elements
  // NULL: each block's zero points follow its data in the panel (kS8U4Blocks). Otherwise the
  // panel holds none, and every block's are these, one byte a column (kMaxKernelNr of them).
  const uint8_t* zero_points;
  // kS8U4ColumnPairs: each block's panel ends with its columns' sums, int32 in column order (u in a
  // low nibble, u - 8 in a high one), after its zero points. The front end packs them wherever a
  // tile's row_a can be nonzero.
  bool column_sums;
  // Non-NULL: y starts from these instead of -0, the sums of the blocks before these (an earlier
  // call on the same tile: the front end runs a long K in parts), row r's at y_in + r * the
  // kernel's nr. The kernel reads them all before it writes `out`, which may be the same memory.
  const float* y_in;
  // A call of several tiles (QGemmKernel::tiles_per_call): bytes from one tile's A (its first row)
  // to the next's; every per-row array above and `out` go on row by row across the tiles.
  size_t a_tile_stride;
};

// k_groups: number of kr-element K groups in the packed panels (K rounded up to kr).
// a_packed: mr_max rows x k_groups, b_packed: nr_max columns x k_groups, in the kernel's layout.
using QGemmUkernelFn = void (*)(size_t mr, size_t nr, size_t k_groups, const void* a_packed,
                                const void* b_packed, const QGemmTileParams* params);

// The per-thread state a kernel with enter and leave may keep (QGemmTileParams::kernel_state):
// the caller provides this many bytes, 64-byte aligned; such kernels check their state against it.
constexpr size_t kKernelStateBytes = 8192;

// The largest tile any kernel may declare: the front end keeps per-tile scratch of this size on
// the stack, and every kernel checks its own tile against it at compile time.
constexpr uint32_t kMaxKernelMr = 32, kMaxKernelNr = 64;

// A kernel that splits K (QGemmKernel::k_block_groups) carries at most this many tiles of at most
// this many dot products between K blocks (the front end's stack; such kernels check their tile).
constexpr size_t kMaxKBlockTiles = 8, kMaxKBlockTileElements = 32 * 32;

// Which A a kernel can read in place, rows a_row_stride apart (QGemmTileParams), instead of
// from a packed copy.
enum class QGemmAInPlace : uint8_t {
  kNever,
  // u8 A, any number of rows (the kernel loads only the tile's mr rows, 4 bytes at a time), rows
  // and data 4-byte aligned: the VNNI layout, where a u8 row is already in the kernel's domain.
  kU8Rows,
  // u8 or s8 A (tdpbusd, tdpbssd), mr a whole tile or half of one (AMX loads 16 rows at a
  // time), rows and data 64-byte aligned (a tile row across two lines costs more than packing).
  kWholeTiles,
  // s8 A of kS8U4BlockRows (tdpbssd), read as the layout's block rows: block c's rows start at
  // column c * the blocks' K, a_row_stride bytes apart. M a multiple of 16 (tile loads of 16 rows),
  // K and the blocks' K multiples of 64 (tile rows of whole lines, none past its row), rows and
  // data 64-byte aligned. The kernel reads each block's row_a at row_stride 0 (the same for every
  // block) and no row_b (it folds B's zero points into its unpacked B).
  kS8BlockRows,
};

// A GEMM micro-kernel describes itself, in its own file, from its own constants.
struct QGemmKernel {
  const char* name;    // qgemm_<operands>_<mr>x<nr>c<kr>__<tier>
  uint32_t mr, nr, kr; // tile rows, tile columns, K elements per packed group
  QGemmPacking packing;
  uint32_t min_m, max_m;  // the M range it is meant for (the front end picks by M)
  QGemmUkernelFn run;
  // Optional per-thread setup around a run of tiles on one thread (AMX: load the tile
  // configuration, then release the tile state so the caller's thread is left as it was). Both
  // get the thread's kernel state (QGemmTileParams::kernel_state).
  void (*enter)(void* kernel_state);
  void (*leave)(void* kernel_state);
  // Nonzero: the kernel accepts dot_in / dot_out, and the front end splits a K longer than this
  // many groups into the fewest blocks of at most this many, of equal size (within a group), so
  // one block of a B panel stays in L1 while the tiles of a row block pass over it (row blocks of
  // one tile, which reuse nothing, run K whole).
  uint32_t k_block_groups;
  // Nonzero: the kernel is exact only when every packed B value (the s8 of the kU8S8 layout) has
  // magnitude at most this, e.g. vpmaddubsw, whose int16 pair sums cannot saturate when
  // 255 * (|b0| + |b1|) <= 32767. The front end picks such a kernel only for a B owned by the
  // operator whose values it has checked at initialize (reduce-range weights fit 7 bits).
  uint32_t max_b_magnitude;
  // Nonzero: when every thread would have at least this many rows of A, each thread is given
  // rows of its own, so that the packed A a thread writes is only ever read by that thread. For a
  // kernel fast enough that moving packed A between cores costs more than every thread streaming
  // all of B (AMX); zero keeps the row blocks sized for L2 reuse alone.
  uint32_t own_rows_per_thread;
  QGemmAInPlace a_in_place;
  // kS8U4BlockRows: how many of a row block's tiles one call may take (mr up to this many times
  // the kernel's mr, every tile whole, unit column stride), each block unpacked once for all of
  // them (QGemmBlocks::a_tile_stride); 1: a tile a call.
  uint32_t tiles_per_call = 1;
};

// A tier's table: its fills, its quantization rows and its GEMM kernels in order of preference.
struct TierKernels {
  const FillKernels* fill;  // NULL: the tier adds no fills; a lower tier's serve
  const QGemmKernel* const* qgemm;
  size_t qgemm_count;
  // NULL: a lower tier's serve. Built with the fill flags (cmake/CpumlTiers.cmake) and picked
  // with the fills' CPU check (kernels/registry.h).
  const QuantizeKernels* quantize;
};

// Defines the tier's kTierKernels (in its tier.cc, inside its namespace) from its fills and its
// quantization rows (or nullptr) and its GEMM kernels, most preferred first.
#define CPUML_TIER_TABLE(fill, quantize, ...)                                   \
  const QGemmKernel* const kQGemmKernels[] = {__VA_ARGS__};                     \
  extern const TierKernels kTierKernels;                                        \
  const TierKernels kTierKernels = {fill, kQGemmKernels, sizeof kQGemmKernels / sizeof kQGemmKernels[0], quantize}

}  // namespace cpuml

#endif  // CPUML_KERNELS_KERNELS_H_
