// The matrix-multiplication family's driver: for one shape and one micro-kernel, the packed
// layouts, K chunks, blocking and threading, and the output stages. It knows nothing of
// descriptors or bindings (src/matmul_operator.cc decodes those).
#ifndef CPUML_SRC_QGEMM_DRIVER_H_
#define CPUML_SRC_QGEMM_DRIVER_H_

#include <pthreadpool.h>
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <vector>

#include "kernels/kernels.h"
#include "src/qgemm_pack.h"

namespace cpuml {

// The distinct matrices of A or B: a batch or channel dimension of size 1 or stride 0 repeats
// one matrix, which is then packed once.
struct MatrixGrid {
  size_t batches = 1, channels = 1;
  size_t Count() const { return batches * channels; }
  // The matrix that output batch `b`, channel `c` reads.
  size_t Index(size_t b, size_t c) const { return (batches == 1 ? 0 : b) * channels + (channels == 1 ? 0 : c); }
};

// A batched int8 operand: matrix (b, c) starts at data + b * batch_stride + c * channel_stride.
struct Int8Operand {
  const uint8_t* data;
  bool is_signed;
  uint64_t batch_stride, channel_stride, row_stride, col_stride;  // elements (= bytes)
  MatrixGrid grid;
  Int8Matrix Matrix(size_t index) const {
    const size_t b = index / grid.channels, c = index % grid.channels;
    return {data + b * batch_stride + c * channel_stride, is_signed, row_stride, col_stride};
  }
};

// Whether every value v of the k x n values of every distinct matrix of `b` has |v| <= limit, v as
// the 8-bit layouts pack it: s8 as is, u8 shifted by -128 (QGemmKernel::max_b_magnitude). Reads
// in memory order and stops at the first value past the limit.
bool BFitsMagnitude(const Int8Operand& b, size_t k, size_t n, uint32_t limit);

// What becomes of the exact sums (docs/semantics.md gives each formula).
enum class QGemmStage : uint8_t {
  kRequantize8 = kStageRequantize8,  // QUANTIZED_LINEAR_MATRIX_MULTIPLY: to 8 bits
  kInt32 = kStageInt32,              // MATRIX_MULTIPLY_INTEGER: the sum modulo 2^32
  kFloat32 = kStageFloat32,          // MATRIX_MULTIPLY_INTEGER_TO_FLOAT: float(sum) * (AScale * BScale) [+ Bias]
  // Not an operator's: one K slice of a sliced execute (QGemmSlicedPlan) adds its exact sums into
  // int64 `data` (QGemmOutput::first_slice: stores them), to be finished after the last slice.
  kSum64 = 0xFF,
};

// Everything an execute decodes from the scale and zero-point tensors, in that execute's
// scratch. Per-row arrays are padded to whole tiles and per-column arrays to whole panels.
struct QGemmQuantization {
  float *a_scale, *out_scale, *out_min, *out_max;  // per row
  float* b_scale;                                  // per column
  // Per column, else NULL: kRequantize8 (AScale * BScale) / OutputScale when A and output
  // scales are per tensor; kFloat32 AScale * BScale when the A scale is per tensor.
  float* multiplier;
  float* bias;  // kFloat32: per column, or NULL for no bias
  // kFloat32 with blockwise B scales: [chunk][padded column] (the plan's K chunks are the blocks),
  // else NULL. The chunks' exact sums are then combined in float (docs/semantics.md).
  float* block_b_scale;
  // With block_b_scale, A's scales per block too: [chunk][padded row], else NULL (a_scale).
  float* block_a_scale;
  // block_b_scale laid out [panel][chunk][nr] for a 4-bit plan (owned scales, decoded at
  // initialize in the order its kernels read them), instead of [chunk][padded column].
  bool block_b_scale_by_panel;
  // A 4-bit plan's owned scales as FLOAT16 bits, [panel][chunk][nr], where every one is exactly a
  // normal FLOAT16 number or zero (QGemmBlocks::b_scale_half); block_b_scale is then NULL.
  const uint16_t* block_b_scale_half;
  int32_t *a_zero_point, *out_zero_point;          // per row
  int32_t* col_b;         // B zero points in the packing's domain, per column
  int32_t* b_zero_point;  // decoding scratch, per column
  bool use_col_b;

  // Bytes of the arrays for padded_m rows, padded_n columns (a multiple of 64), `b_blocks` rows of
  // blockwise B scales and `a_blocks` columns of blockwise A scales (0 for none).
  static size_t Bytes(size_t padded_m, size_t padded_n, size_t b_blocks, size_t a_blocks);
  // Points the arrays into `memory` (Bytes() of it, 64-byte aligned); multiplier stays NULL, and
  // block_b_scale and block_a_scale too where their counts are 0.
  static QGemmQuantization In(uint8_t* memory, size_t padded_m, size_t padded_n, size_t b_blocks, size_t a_blocks);
  // The same arrays indexed from row m0 and column n0 (not for blockwise scales).
  QGemmQuantization From(size_t m0, size_t n0) const;
  float* multiplier_memory;  // where multiplier points when it is used
  float* bias_memory;        // where bias points when it is used
};

struct QGemmOutput {
  uint8_t* data;
  QGemmStage stage;
  bool is_signed;  // kRequantize8: INT8, else UINT8
  uint64_t batch_stride, channel_stride, row_stride, col_stride;  // bytes
  bool first_slice;  // kSum64: the first K slice, which stores its sums rather than adding them
};

// The stages of an output tile from int64 sums (K longer than one exact chunk): the formulas of
// docs/semantics.md, as FinishTile and RequantizeWide compute them. acc has row stride acc_stride;
// the per-row and per-column arrays of `q` are indexed from (m0, n0).
void FinishWideTile(const QGemmOutput& out, const QGemmQuantization& q, const int64_t* acc, size_t acc_stride,
                    size_t m0, size_t n0, size_t mr, size_t nr, uint8_t* out_tile);

class QGemmPlan {
 public:
  // The most K one int32 accumulator chain may see: |(A - za)(B - zb)| <= 255 * 255, and
  // 33025 * 65025 < 2^31. Longer K is split into chunks whose sums are added in int64.
  static constexpr size_t kMaxExactK = 32768;

  // K runs in chunks of chunk_k (kMaxExactK, or the B scales' block for blockwise scales).
  // shared_zero_point (a 4-bit kernel only): -1, or the one zero point (0..15, in the packing's
  // domain) of every column and block of B, which the panels then leave out
  // (PackFormat::shared_zero_points). a_zero_points: A can have a zero point other than 0 in the
  // s8 domain (UINT8 A, or a zero-point tensor), which a kS8U4ColumnPairs kernel needs B's column
  // sums for (PackFormat::column_sums).
  QGemmPlan(const QGemmKernel& kernel, size_t batches, size_t channels, size_t m, size_t n, size_t k,
            MatrixGrid a_grid, MatrixGrid b_grid, size_t chunk_k = kMaxExactK, int shared_zero_point = -1,
            bool a_zero_points = true);
  // Refuses shapes whose workspaces cannot be represented (every product checked).
  cpuml_status CheckLimits(const char* op) const;

  const QGemmKernel& kernel() const { return kernel_; }
  const PackFormat& format() const { return format_; }
  size_t padded_m() const { return m_tiles_ * format_.mr; }
  // The problem: batches x channels products of m x k by k x n, and the distinct A and B matrices.
  size_t batches() const { return batches_; }
  size_t channels() const { return channels_; }
  size_t m() const { return m_; }
  size_t n() const { return n_; }
  size_t k() const { return k_; }
  MatrixGrid a_grid() const { return a_grid_; }
  MatrixGrid b_grid() const { return b_grid_; }
  size_t panels() const { return panels_; }
  size_t padded_n() const { return panels_ * format_.nr; }
  size_t chunk_count() const { return chunks_.size(); }
  size_t packed_b_bytes() const { return b_grid_.Count() * panels_ * b_panel_stride_; }
  size_t packed_a_bytes() const { return a_grid_.Count() * m_tiles_ * a_tile_stride_; }
  size_t row_terms_bytes() const { return a_grid_.Count() * chunks_.size() * 2 * padded_m() * sizeof(int32_t); }
  // Bytes from one packed B panel to the next, and from a panel's start to chunk `c`'s data.
  size_t b_panel_stride() const { return b_panel_stride_; }
  size_t b_chunk_offset(size_t c) const { return chunks_[c].b_offset; }

  // Packs every distinct B matrix into `packed` (packed_b_bytes()).
  void PackB(const Int8Operand& b, uint8_t* packed, pthreadpool_t pool) const;
  // The same for a 4-bit B and a 4-bit kernel: `b` is the first matrix, and matrix (batch,
  // channel) of B's MatrixGrid lies batch_stride and channel_stride nibbles on; zero_point as in
  // PackB4Block, with the block as its row (NULL for none).
  void PackB4(const Int4Matrix& b, uint64_t batch_stride, uint64_t channel_stride, const Int4Matrix* zero_point,
              uint8_t* packed, pthreadpool_t pool) const;
  // Packs A into the workspaces and runs every tile. `packed_a` and `row_terms` hold
  // packed_a_bytes() and row_terms_bytes(); the bytes written do not depend on the pool.
  // `b_panel_stride` (0: b_panel_stride()) lets the panels lie further apart, as in the packed B of
  // a larger plan whose chunks start with this plan's.
  void Run(const Int8Operand& a, const uint8_t* packed_b, const QGemmQuantization& q, const QGemmOutput& out,
           uint8_t* packed_a, uint8_t* row_terms, pthreadpool_t pool, size_t b_panel_stride = 0) const;

 private:
  struct Chunk {
    size_t k0, k;
    size_t b_offset, a_offset;  // within a B panel / an A tile
  };
  struct RunJob;

  // Whether the kernel reads `a` in place (QGemmKernel::a_in_place) rather than from packed
  // tiles, given whether the tasks would pack A inside themselves (pack_in_block) and the threads.
  bool ReadsAInPlace(const Int8Operand& a, bool pack_in_block, size_t threads) const;

  // True when K is run in the kernel's blocks (QGemmKernel::k_block_groups), dot products carried
  // between them: only where K is one exact chunk longer than a block.
  bool SplitsK() const {
    return chunks_.size() == 1 && kernel_.k_block_groups != 0 && format_.Groups(k_) > kernel_.k_block_groups;
  }
  // The groups of one K block (all of K unless SplitsK()): K in the fewest blocks the kernel
  // allows, of equal size, so no block is a short tail (its calls and carried dot products cost
  // as much as a full block's).
  size_t KBlockGroups() const {
    const size_t groups = format_.Groups(k_);
    if (!SplitsK()) return groups;
    const size_t blocks = (groups + kernel_.k_block_groups - 1) / kernel_.k_block_groups;
    return (groups + blocks - 1) / blocks;
  }

  // 4-bit B (format_.Nibbles()): K past kBlocksPartK runs in parts of whole blocks that a row
  // block's tiles take in turn, y carried between them (QGemmBlocks::y_in), so each part of the
  // panel stays in L2 across the tiles instead of the whole panel: the blocks of one part, parts of
  // equal size.
  size_t BlocksPerPart() const {
    const size_t blocks = chunks_.size(), most = std::max<size_t>(1, kBlocksPartK / chunks_[0].k);
    if (!format_.Nibbles() || blocks <= most) return blocks;
    const size_t parts = (blocks + most - 1) / most;
    return (blocks + parts - 1) / parts;
  }
  bool SplitsBlocks() const { return BlocksPerPart() < chunks_.size(); }
  static constexpr size_t kBlocksPartK = 4096;

  const QGemmKernel& kernel_;
  PackFormat format_;
  size_t batches_, channels_, m_, n_, k_;
  MatrixGrid a_grid_, b_grid_;
  std::vector<Chunk> chunks_;
  size_t panels_, m_tiles_, b_panel_stride_ = 0, a_tile_stride_ = 0;
  uint8_t shared_zero_points_[kMaxKernelNr] = {};  // with format_.shared_zero_points
};

}  // namespace cpuml

#endif  // CPUML_SRC_QGEMM_DRIVER_H_
