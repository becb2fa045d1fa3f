#include "src/qgemm_driver.h"

#include <math.h>
#include <string.h>

#include <algorithm>
#include <initializer_list>

#include "src/status.h"

namespace cpuml {
namespace {

// Packed A of one block of rows aims at this many bytes (half a typical L2).
constexpr size_t kABlockBytes = 256 * 1024;

// The L2 of the cores whose tier asks for far output lines (QGemmTileParams::output_past_l2).
constexpr size_t kOutputPastL2Bytes = 2 * 1024 * 1024;

// Tasks per pool thread: more balance a shared machine's uneven cores, fewer re-read less of A
// and B (each column block re-reads its row block's A). A build-time tuning constant: on the
// 16-core device, builds with 1, 2, 4, 8 and 16 timed side by side, 16 had the best median on 7 of
// 8 shape x tier cases at 16 threads (2048^3 AMX 10.5k -> 13.7k GOPS); 2 threads on Zen 4 were
// within 5% either way.
#ifndef CPUML_QGEMM_TASKS_PER_THREAD
#define CPUML_QGEMM_TASKS_PER_THREAD 16
#endif

// Threads from which the VNNI kernels read u8 A in place (QGemmPlan::ReadsAInPlace).
constexpr size_t kU8RowsInPlaceThreads = 16;

// Asks for the lines of a tile's `rows` output rows, `row_bytes` each, before the kernel run that
// stores them: four-byte outputs fill a line per 16 columns of a row, which the stores would
// otherwise wait to own (the callers say when to ask).
void RequestOutputLines(uint8_t* out_tile, size_t row_stride, size_t rows, size_t row_bytes) {
  for (size_t i = 0; i < rows; ++i)
    for (size_t byte = 0; byte < row_bytes; byte += 64) __builtin_prefetch(out_tile + i * row_stride + byte, 1);
}

// The product of `factors` if it is at most 2^62 (far beyond any allocation, and safe to add a
// few such sizes); false otherwise.
bool CheckedProduct(std::initializer_list<uint64_t> factors, uint64_t* product) {
  uint64_t p = 1;
  for (uint64_t f : factors)
    if (__builtin_mul_overflow(p, f, &p)) return false;
  *product = p;
  return p <= (uint64_t{1} << 62);
}

// The documented formula for an accumulator beyond int32 (K split into chunks): the kernels
// requantize int32 accumulators themselves, and this is the same arithmetic for int64 ones.
uint8_t RequantizeWide(int64_t acc, float multiplier, float lo, float hi, int32_t zero_point) {
  float y = static_cast<float>(acc) * multiplier;
  if (!(y >= lo)) y = lo;  // NaN too
  if (y > hi) y = hi;
  return static_cast<uint8_t>(static_cast<int32_t>(nearbyintf(y)) + zero_point);
}

size_t Align64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

// The stages after the exact sum that run here rather than in the micro-kernel: an mr x nr tile
// of sums (int32 from one chain, int64 from several; row stride acc_stride) to the output, with
// the formulas of docs/semantics.md. Every tier runs this same code, so the bits cannot differ.
template <class Acc>
void FinishTile(QGemmStage stage, const QGemmQuantization& q, const Acc* acc, size_t acc_stride, size_t m0, size_t n0,
                size_t mr, size_t nr, uint8_t* out_tile, uint64_t row_stride, uint64_t col_stride) {
  for (size_t i = 0; i < mr; ++i) {
    const Acc* __restrict row = acc + i * acc_stride;
    uint8_t* out_row = out_tile + i * row_stride;
    if (stage == QGemmStage::kInt32) {
      for (size_t j = 0; j < nr; ++j) {
        const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(row[j])));  // modulo 2^32
        memcpy(out_row + j * col_stride, &v, sizeof v);
      }
      continue;
    }
    // float(sum) * (AScale[m] * BScale[n]), then + Bias[n]; no contraction (-ffp-contract=off).
    float y[kMaxKernelNr];
    const float* __restrict b_scale = q.b_scale + n0;
    if (q.multiplier) {
      const float* __restrict multiplier = q.multiplier + n0;
      for (size_t j = 0; j < nr; ++j) y[j] = static_cast<float>(row[j]) * multiplier[j];
    } else {
      const float a_scale = q.a_scale[m0 + i];
      for (size_t j = 0; j < nr; ++j) y[j] = static_cast<float>(row[j]) * (a_scale * b_scale[j]);
    }
    if (q.bias) {
      const float* __restrict bias = q.bias + n0;
      for (size_t j = 0; j < nr; ++j) y[j] = y[j] + bias[j];
    }
    if (col_stride == sizeof(float))
      memcpy(out_row, y, nr * sizeof(float));
    else
      for (size_t j = 0; j < nr; ++j) memcpy(out_row + j * col_stride, &y[j], sizeof(float));
  }
}

// MATRIX_MULTIPLY_INTEGER_TO_FLOAT with blockwise B scales (docs/semantics.md): per block c in
// ascending order, p = float(sum_c) * (AScale[m] (or AScale[m][c]) * BScale[c][n]), y = p for the
// first block and y + p after it; then y + Bias[n]. The sums are exact int32 (a block is at most
// 256 rows of 4-bit B); every tier runs this same code, so the bits cannot differ.
template <class RunChunk>
void BlockwiseFloatTile(size_t chunks, const QGemmQuantization& q, size_t padded_m, size_t padded_n, size_t mr,
                        size_t nr, size_t m0, size_t n0, RunChunk run_chunk, const int32_t* acc, size_t acc_stride,
                        uint8_t* out_tile, uint64_t row_stride, uint64_t col_stride) {
  float y[kMaxKernelMr * kMaxKernelNr];
  for (size_t c = 0; c < chunks; ++c) {
    run_chunk(c);
    const float* __restrict b_scale = q.block_b_scale + c * padded_n + n0;
    const float* __restrict a_scales = q.block_a_scale ? q.block_a_scale + c * padded_m + m0 : q.a_scale + m0;
    for (size_t i = 0; i < mr; ++i) {
      const float a_scale = a_scales[i];
      const int32_t* __restrict row = acc + i * acc_stride;
      float* __restrict y_row = y + i * kMaxKernelNr;
      for (size_t j = 0; j < nr; ++j) {
        const float product = static_cast<float>(row[j]) * (a_scale * b_scale[j]);
        y_row[j] = c == 0 ? product : y_row[j] + product;
      }
    }
  }
  for (size_t i = 0; i < mr; ++i) {
    float* __restrict y_row = y + i * kMaxKernelNr;
    if (q.bias)
      for (size_t j = 0; j < nr; ++j) y_row[j] = y_row[j] + q.bias[n0 + j];
    uint8_t* out_row = out_tile + i * row_stride;
    for (size_t j = 0; j < nr; ++j) memcpy(out_row + j * col_stride, &y_row[j], sizeof(float));
  }
}

}  // namespace

void FinishWideTile(const QGemmOutput& out, const QGemmQuantization& q, const int64_t* acc, size_t acc_stride,
                    size_t m0, size_t n0, size_t mr, size_t nr, uint8_t* out_tile) {
  if (out.stage != QGemmStage::kRequantize8) {
    FinishTile(out.stage, q, acc, acc_stride, m0, n0, mr, nr, out_tile, out.row_stride, out.col_stride);
    return;
  }
  for (size_t i = 0; i < mr; ++i)
    for (size_t j = 0; j < nr; ++j) {
      const float multiplier =
          q.multiplier ? q.multiplier[n0 + j] : (q.a_scale[m0 + i] * q.b_scale[n0 + j]) / q.out_scale[m0 + i];
      out_tile[i * out.row_stride + j * out.col_stride] =
          RequantizeWide(acc[i * acc_stride + j], multiplier, q.out_min[m0 + i], q.out_max[m0 + i], q.out_zero_point[m0 + i]);
    }
}

size_t QGemmQuantization::Bytes(size_t padded_m, size_t padded_n, size_t b_blocks, size_t a_blocks) {
  return (6 + a_blocks) * Align64(padded_m * 4) + (5 + b_blocks) * Align64(padded_n * 4);
}

QGemmQuantization QGemmQuantization::From(size_t m0, size_t n0) const {
  QGemmQuantization q = *this;
  for (float** row : {&q.a_scale, &q.out_scale, &q.out_min, &q.out_max}) *row += m0;
  for (int32_t** row : {&q.a_zero_point, &q.out_zero_point}) *row += m0;
  q.b_scale += n0;
  if (q.multiplier) q.multiplier += n0;
  if (q.bias) q.bias += n0;
  q.col_b += n0;
  q.b_zero_point += n0;
  return q;
}

QGemmQuantization QGemmQuantization::In(uint8_t* memory, size_t padded_m, size_t padded_n, size_t b_blocks,
                                        size_t a_blocks) {
  const size_t row_bytes = Align64(padded_m * 4), column_bytes = Align64(padded_n * 4);
  auto row = [&](int i) { return memory + i * row_bytes; };
  auto column = [&](int i) { return memory + 6 * row_bytes + i * column_bytes; };
  QGemmQuantization q;
  q.a_scale = reinterpret_cast<float*>(row(0));
  q.out_scale = reinterpret_cast<float*>(row(1));
  q.out_min = reinterpret_cast<float*>(row(2));
  q.out_max = reinterpret_cast<float*>(row(3));
  q.a_zero_point = reinterpret_cast<int32_t*>(row(4));
  q.out_zero_point = reinterpret_cast<int32_t*>(row(5));
  q.b_scale = reinterpret_cast<float*>(column(0));
  q.multiplier_memory = reinterpret_cast<float*>(column(1));
  q.col_b = reinterpret_cast<int32_t*>(column(2));
  q.b_zero_point = reinterpret_cast<int32_t*>(column(3));
  q.bias_memory = reinterpret_cast<float*>(column(4));
  q.block_b_scale = b_blocks ? reinterpret_cast<float*>(column(5)) : nullptr;
  q.block_a_scale = a_blocks ? reinterpret_cast<float*>(column(5 + b_blocks)) : nullptr;
  q.block_b_scale_by_panel = false;
  q.block_b_scale_half = nullptr;
  q.multiplier = nullptr;
  q.bias = nullptr;
  q.use_col_b = false;
  return q;
}

QGemmPlan::QGemmPlan(const QGemmKernel& kernel, size_t batches, size_t channels, size_t m, size_t n, size_t k,
                     MatrixGrid a_grid, MatrixGrid b_grid, size_t chunk_k, int shared_zero_point,
                     bool a_zero_points)
    : kernel_(kernel),
      format_(PackFormat::Of(kernel)),
      batches_(batches),
      channels_(channels),
      m_(m),
      n_(n),
      k_(k),
      a_grid_(a_grid),
      b_grid_(b_grid) {
  if (format_.Nibbles() && shared_zero_point >= 0) {
    format_.shared_zero_points = true;
    memset(shared_zero_points_, shared_zero_point, sizeof shared_zero_points_);
  }
  format_.column_sums = format_.packing == QGemmPacking::kS8U4ColumnPairs && a_zero_points;
  for (size_t k0 = 0; k0 < k_; k0 += chunk_k) {
    const size_t chunk = std::min(chunk_k, k_ - k0);
    chunks_.push_back({k0, chunk, b_panel_stride_, a_tile_stride_});
    b_panel_stride_ += format_.BPanelBytes(chunk);
    a_tile_stride_ += format_.ATileBytes(chunk);
  }
  a_tile_stride_ += format_.ATileSlack();
  panels_ = (n_ + format_.nr - 1) / format_.nr;
  m_tiles_ = (m_ + format_.mr - 1) / format_.mr;
}

cpuml_status QGemmPlan::CheckLimits(const char* op) const {
  uint64_t bytes;
  const char* what = nullptr;
  if (!CheckedProduct({b_grid_.Count(), panels_, b_panel_stride_}, &bytes)) what = "packed BTensor";
  else if (!CheckedProduct({a_grid_.Count(), m_tiles_, a_tile_stride_}, &bytes)) what = "packed ATensor";
  else if (!CheckedProduct({a_grid_.Count(), chunks_.size(), 2, padded_m(), sizeof(int32_t)}, &bytes))
    what = "row terms of ATensor";
  if (what)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: ATensor and BTensor sizes make the %s workspace larger than 2^62 bytes (docs/semantics.md, Limits)",
                op, what);
  return CPUML_STATUS_SUCCESS;
}

bool BFitsMagnitude(const Int8Operand& b, size_t k, size_t n, uint32_t limit) {
  for (size_t index = 0; index < b.grid.Count(); ++index) {
    const Int8Matrix m = b.Matrix(index);
    // The inner loop along the smaller stride (weights are often stored N x K).
    const bool k_inner = m.row_stride < m.col_stride;
    const size_t outer = k_inner ? n : k, inner = k_inner ? k : n;
    const uint64_t outer_stride = k_inner ? m.col_stride : m.row_stride, inner_stride = k_inner ? m.row_stride : m.col_stride;
    for (size_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < inner; ++i) {
        const uint8_t raw = m.data[o * outer_stride + i * inner_stride];
        const int v = m.is_signed ? static_cast<int8_t>(raw) : raw - 128;
        if (static_cast<uint32_t>(v < 0 ? -v : v) > limit) return false;
      }
  }
  return true;
}

void QGemmPlan::PackB(const Int8Operand& b, uint8_t* packed, pthreadpool_t pool) const {
  // Tasks of `sweep` panels: several where B's columns are contiguous (ONNX MatMul's K x N), so
  // each task reads whole lines of B's rows (PackBPanels); one otherwise.
  const size_t threads = pool ? pthreadpool_get_threads_count(pool) : 1;
  const size_t sweep = b.col_stride != 1 ? 1
                                         : std::max<size_t>(1, std::min<size_t>(kMaxRowSweepColumns / format_.nr,
                                                                                panels_ / (4 * threads)));
  struct Job {
    const QGemmPlan* plan;
    const Int8Operand* b;
    uint8_t* packed;
    size_t sweep;
  } job{this, &b, packed, sweep};
  pthreadpool_parallelize_2d(
      pool,
      [](void* context, size_t matrix, size_t block) {
        const Job& j = *static_cast<const Job*>(context);
        const QGemmPlan& plan = *j.plan;
        const size_t first = block * j.sweep, panels = std::min(j.sweep, plan.panels_ - first);
        const size_t n0 = first * plan.format_.nr;
        uint8_t* dst = j.packed + (matrix * plan.panels_ + first) * plan.b_panel_stride_;
        for (const Chunk& c : plan.chunks_)
          PackBPanels(plan.format_, j.b->Matrix(matrix), c.k0, c.k, n0, std::min(panels * plan.format_.nr, plan.n_ - n0),
                      panels, dst + c.b_offset, plan.b_panel_stride_);
      },
      &job, b_grid_.Count(), (panels_ + sweep - 1) / sweep, 0);
}

void QGemmPlan::PackB4(const Int4Matrix& b, uint64_t batch_stride, uint64_t channel_stride,
                       const Int4Matrix* zero_point, uint8_t* packed, pthreadpool_t pool) const {
  struct Job {
    const QGemmPlan* plan;
    const Int4Matrix* b;
    uint64_t batch_stride, channel_stride;
    const Int4Matrix* zero_point;
    uint8_t* packed;
  } job{this, &b, batch_stride, channel_stride, zero_point, packed};
  pthreadpool_parallelize_2d(
      pool,
      [](void* context, size_t matrix, size_t panel) {
        const Job& j = *static_cast<const Job*>(context);
        const QGemmPlan& plan = *j.plan;
        Int4Matrix bm = *j.b;
        bm.offset += matrix / plan.b_grid_.channels * j.batch_stride + matrix % plan.b_grid_.channels * j.channel_stride;
        const size_t n0 = panel * plan.format_.nr;
        uint8_t* dst = j.packed + (matrix * plan.panels_ + panel) * plan.b_panel_stride_;
        for (size_t c = 0; c < plan.chunks_.size(); ++c) {
          const Chunk& chunk = plan.chunks_[c];
          Int4Matrix zero;
          if (j.zero_point) {
            zero = *j.zero_point;
            zero.offset += c * zero.row_stride;
          }
          PackB4Block(plan.format_, bm, j.zero_point ? &zero : nullptr, chunk.k0, chunk.k, n0,
                      std::min<size_t>(plan.format_.nr, plan.n_ - n0), dst + chunk.b_offset);
        }
      },
      &job, b_grid_.Count(), panels_, 0);
}

// One execute's shared, read-only state for its tasks.
struct QGemmPlan::RunJob {
  const QGemmPlan* plan;
  const Int8Operand* a;
  const uint8_t* packed_b;
  const QGemmQuantization* q;
  const QGemmOutput* out;
  uint8_t* packed_a;   // [a matrix][m tile] tiles of a_tile_stride bytes
  int32_t* row_terms;  // [a matrix][chunk][row a / row b][padded M]
  size_t m_tiles_per_block, panels_per_block;
  size_t b_panel_stride;  // QGemmPlan::Run's b_panel_stride, or the plan's
  // Each task packs its own row block's A just before multiplying it (no other task reads that
  // block): the packed tiles are still in L2 when the tile loop reads them, and packing all of A
  // up front no longer evicts B's panels. Otherwise a separate pass packs all of A first.
  bool pack_in_block;
  // A read in place by the kernel (QGemmTileParams::a_row_stride): nothing packed, only row terms.
  bool a_in_place;
  // QGemmTileParams::output_past_l2 for every tile of the call.
  bool output_past_l2;
  // One thread runs the row blocks one after another (pack_in_block): each packs its A into the
  // first m_tiles_per_block tiles of packed_a, the lines the row block before it packed and read,
  // which are still in L2, where tiles of their own would be lines last written in the previous
  // call, each store waiting on the last-level cache for it. Emerald Rapids device, amx, one
  // thread, 25 interleaved rounds: 1024^3 1.07x, 2048^3 1.04x, 512x4096x4096 1.05x, a single row
  // block (256x1024x4096) level; skipping the pack altogether reached 1.10x, 1.05x and 1.02x.
  bool one_packed_row_block;

  // Where tile `tile` of A matrix `a_matrix` is packed.
  uint8_t* PackedATile(size_t a_matrix, size_t tile) const {
    const QGemmPlan& p = *plan;
    return one_packed_row_block ? packed_a + tile % m_tiles_per_block * p.a_tile_stride_
                                : packed_a + (a_matrix * p.m_tiles_ + tile) * p.a_tile_stride_;
  }

  void InPlaceRowTermsOf(size_t a_matrix, size_t tile) const {
    const QGemmPlan& p = *plan;
    const size_t m0 = tile * p.format_.mr;
    InPlaceRowTerms(a->Matrix(a_matrix), q->a_zero_point + m0, p.k_, m0, std::min<size_t>(p.format_.mr, p.m_ - m0),
                    p.format_.mr, q->use_col_b, RowTerms(a_matrix, 0, 0) + m0, RowTerms(a_matrix, 0, 1) + m0);
  }

  int32_t* RowTerms(size_t a_matrix, size_t chunk, int which) const {
    return row_terms + ((a_matrix * plan->chunks_.size() + chunk) * 2 + which) * plan->padded_m();
  }

  void PackATiles(size_t a_matrix, size_t tile) const {
    const QGemmPlan& p = *plan;
    const Int8Matrix am = a->Matrix(a_matrix);
    const size_t m0 = tile * p.format_.mr;
    uint8_t* dst = PackedATile(a_matrix, tile);
    for (size_t c = 0; c < p.chunks_.size(); ++c) {
      const Chunk& chunk = p.chunks_[c];
      // row_b pairs with the column terms, and with a 4-bit B's zero points (held in its panels).
      PackATile(p.format_, am, q->a_zero_point + m0, chunk.k0, chunk.k, m0, std::min<size_t>(p.format_.mr, p.m_ - m0),
                dst + chunk.a_offset, RowTerms(a_matrix, c, 0) + m0, RowTerms(a_matrix, c, 1) + m0,
                q->use_col_b || p.format_.Nibbles());
    }
  }

  // A 4-bit tile's blocks [first, end) in one kernel call, which finishes them in float: y from
  // `carried` when first > 0, and into `carried` (every column, no bias) when end is not the last
  // block (QGemmPlan::BlocksPerPart); outputs without unit column stride go through `scratch`
  // (float, row stride nr).
  void RunBlocksTile(const uint8_t* a_tile, const uint8_t* b_panel, size_t a_matrix, size_t panel, size_t m0,
                     size_t mr, size_t nr, uint8_t* out_tile, QGemmTileParams* params, int32_t* scratch,
                     size_t first, size_t end, float* carried) const {
    const QGemmPlan& p = *plan;
    const PackFormat& f = p.format_;
    const size_t n0 = panel * f.nr, chunks = p.chunks_.size();
    const bool last_part = end == chunks;
    QGemmBlocks blocks;
    blocks.count = end - first;
    blocks.groups = f.Groups(p.chunks_[0].k);
    blocks.last_groups = last_part ? f.Groups(p.chunks_.back().k) : blocks.groups;
    blocks.k = p.chunks_[0].k;
    blocks.last_k = last_part ? p.chunks_.back().k : blocks.k;
    blocks.b_stride = f.BPanelBytes(p.chunks_[0].k);
    if (a_in_place) {  // QGemmAInPlace::kS8BlockRows: block c's rows at column c * K of a block
      blocks.a_stride = p.chunks_[0].k;
      blocks.row_a = RowTerms(a_matrix, 0, 0) + m0;
      blocks.row_b = RowTerms(a_matrix, 0, 1) + m0;
      blocks.row_stride = 0;
    } else {
      blocks.a_stride = f.ATileBytes(p.chunks_[0].k);
      blocks.row_a = RowTerms(a_matrix, first, 0) + m0;
      blocks.row_b = RowTerms(a_matrix, first, 1) + m0;
      blocks.row_stride = 2 * p.padded_m();
    }
    blocks.a_scale = q->block_a_scale ? q->block_a_scale + first * p.padded_m() + m0 : q->a_scale + m0;
    blocks.a_scale_stride = q->block_a_scale ? p.padded_m() : 0;
    blocks.b_scale_half = nullptr;
    if (q->block_b_scale_half) {
      blocks.b_scale = nullptr;
      blocks.b_scale_half = q->block_b_scale_half + (panel * chunks + first) * f.nr;
      blocks.b_scale_stride = f.nr;
    } else if (!q->block_b_scale) {
      blocks.b_scale = q->b_scale + n0;  // one block
      blocks.b_scale_stride = 0;
    } else if (q->block_b_scale_by_panel) {
      blocks.b_scale = q->block_b_scale + (panel * chunks + first) * f.nr;
      blocks.b_scale_stride = f.nr;
    } else {
      blocks.b_scale = q->block_b_scale + first * p.padded_n() + n0;
      blocks.b_scale_stride = p.padded_n();
    }
    blocks.zero_points = f.shared_zero_points ? p.shared_zero_points_ : nullptr;
    blocks.column_sums = f.column_sums;
    blocks.y_in = first ? carried : nullptr;
    blocks.a_tile_stride = a_in_place ? f.mr * params->a_row_stride : p.a_tile_stride_;
    params->blocks = &blocks;
    const uint8_t* a_part = a_tile + first * blocks.a_stride;
    const uint8_t* b_part = b_panel + first * blocks.b_stride;
    if (!last_part) {
      params->out = carried;
      params->out_row_stride = f.nr * sizeof(float);
      params->bias = nullptr;
      p.kernel_.run(mr, f.nr, blocks.groups, a_part, b_part, params);
      return;
    }
    const bool unit_columns = out->col_stride == sizeof(float);
    params->out = unit_columns ? out_tile : static_cast<void*>(scratch);
    params->out_row_stride = unit_columns ? out->row_stride : f.nr * sizeof(float);
    // The tile's float lines, asked for before its blocks run (every block is in this one call),
    // as the 8-bit path asks before a tile's last K block: its stores then find them owned
    // instead of waiting, with the next tile's stores behind them, for each line's read.
    if (unit_columns) RequestOutputLines(out_tile, out->row_stride, mr, nr * sizeof(float));
    p.kernel_.run(mr, nr, blocks.groups, a_part, b_part, params);
    if (unit_columns) return;
    for (size_t i = 0; i < mr; ++i)
      for (size_t j = 0; j < nr; ++j) memcpy(out_tile + i * out->row_stride + j * out->col_stride, &scratch[i * f.nr + j], 4);
  }

  // A tile's per-row parameters (rows from m0) and per-column ones (columns from n0).
  void SetRowParams(size_t m0, QGemmTileParams* params) const {
    params->a_scale = q->a_scale + m0;
    params->out_scale = q->out_scale + m0;
    params->out_min = q->out_min + m0;
    params->out_max = q->out_max + m0;
    params->out_zero_point = q->out_zero_point + m0;
  }
  void SetColumnParams(size_t n0, QGemmTileParams* params) const {
    params->b_scale = q->b_scale + n0;
    params->multiplier = q->multiplier ? q->multiplier + n0 : nullptr;
    params->bias = q->bias ? q->bias + n0 : nullptr;
    params->col_b = q->use_col_b ? q->col_b + n0 : nullptr;
  }

  // RunBlock for K of one exact int32 chain (8-bit B): only what changes from tile to tile is set
  // between two kernel calls, the rest once per row block or panel. A 1024^3 call at one thread
  // makes 1,024 tile calls on the amx tier and 5,504 on avx512vnni, and the code between them
  // runs while the tile unit, or the whole core, waits: against the loop that built every tile's
  // parameters afresh, the Emerald Rapids device (amx, one thread, 15 interleaved rounds) ran
  // 1.01-1.03x at 128x768x3072, 1024^3, 2048^3 and 512x4096x4096 (MATRIX_MULTIPLY_INTEGER_TO_FLOAT
  // 1.03-1.07x), and AMD EPYC Zen 5 (avx512vnni, 4 rounds) 1.05x at 128x768x3072 and 1024^3.
  // Outputs of unit column stride are finished by the kernel, strided bytes through `scratch`, and
  // strided int32 or float outputs come back as sums (`acc32`) that FinishTile finishes.
  void RunExactTiles(size_t a_matrix, size_t b_matrix, uint8_t* out_base, size_t tile_begin, size_t tile_end,
                     size_t panel_begin, size_t panel_end, int32_t* partial, uint8_t* scratch, int32_t* acc32,
                     void* kernel_state) const {
    const QGemmPlan& p = *plan;
    const QGemmKernel& kernel = p.kernel_;
    const PackFormat& f = p.format_;
    const Chunk& chunk = p.chunks_[0];
    // K in blocks for kernels that ask for it: a block of the B panel stays in L1 while this row
    // block's tiles pass over it, each tile's dot products carried over in `partial`. A row block
    // of one tile (few rows: M <= 32 on AMX) reuses nothing, so its K is not split and its tile is
    // not stored and reloaded between blocks.
    const size_t groups = f.Groups(chunk.k);
    const bool blocked = p.SplitsK() && tile_end - tile_begin > 1;
    const size_t block = blocked ? p.KBlockGroups() : groups;
    const Int8Matrix am = a->Matrix(a_matrix);
    const bool requantizes = out->stage == QGemmStage::kRequantize8;
    const size_t element_bytes = requantizes ? 1 : 4;
    const bool unit_columns = out->col_stride == element_bytes;
    const size_t group_bytes = f.kr * f.ElementBytes(), tiles = tile_end - tile_begin;
    const int32_t* row_a = RowTerms(a_matrix, 0, 0);
    const int32_t* row_b = RowTerms(a_matrix, 0, 1);
    QGemmTileParams params{};
    params.stage = static_cast<uint8_t>(out->stage);
    params.out_signed = out->is_signed;
    params.kernel_state = kernel_state;
    params.b_streams = tiles == 1;
    params.output_past_l2 = output_past_l2;
    params.a_row_stride = a_in_place ? am.row_stride : 0;
    params.a_signed = am.is_signed;
    const bool sums_back = !requantizes && !unit_columns;
    params.acc_out = sums_back ? acc32 : nullptr;
    params.deferrable = unit_columns;  // read back only for the copies below
    params.out_row_stride = unit_columns ? out->row_stride : f.nr;
    auto panel_data = [&](size_t panel) {
      return packed_b + (b_matrix * p.panels_ + panel) * b_panel_stride + chunk.b_offset;
    };
    for (size_t panel = panel_begin; panel < panel_end; ++panel) {
      const size_t n0 = panel * f.nr;
      const size_t nr = std::min<size_t>(f.nr, p.n_ - n0);
      const uint8_t* b_chunk = panel_data(panel);
      const uint8_t* b_data = f.PanelData(b_chunk);
      params.col_a = UsesColumnSums(f.packing) ? PackFormat::PanelColumnSums(b_chunk) : nullptr;
      SetColumnParams(n0, &params);
      for (size_t g0 = 0; g0 < groups; g0 += block) {
        const size_t g = std::min(block, groups - g0);
        const bool last_block = g0 + g >= groups;
        // The B block the next sweep over this row block reads, asked for in shares during this one.
        const uint8_t* next = nullptr;
        size_t next_bytes = 0;
        if (!last_block) {
          next = b_data + (g0 + g) * f.nr * group_bytes;
          next_bytes = f.nr * std::min(block, groups - g0 - g) * group_bytes;
        } else if (panel + 1 < panel_end) {
          next = f.PanelData(panel_data(panel + 1));
          next_bytes = f.nr * std::min(block, groups) * group_bytes;
        }
        const size_t share = (next_bytes / tiles + 63) / 64 * 64;
        const uint8_t* b_block = b_data + g0 * f.nr * group_bytes;
        for (size_t tile = tile_begin; tile < tile_end; ++tile) {
          const size_t m0 = tile * f.mr;
          const size_t mr = std::min<size_t>(f.mr, p.m_ - m0);
          params.row_a = row_a + m0;
          params.row_b = row_b + m0;
          SetRowParams(m0, &params);
          const size_t share_begin = std::min(next_bytes, (tile - tile_begin) * share);
          params.prefetch_b = next ? next + share_begin : nullptr;
          params.prefetch_b_bytes = std::min(next_bytes - share_begin, share);
          if (blocked) {
            int32_t* carried = partial + (tile - tile_begin) * kMaxKBlockTileElements;
            params.dot_in = g0 ? carried : nullptr;
            params.dot_out = last_block ? nullptr : carried;
          }
          uint8_t* out_tile = out_base + m0 * out->row_stride + n0 * out->col_stride;
          params.out = unit_columns ? static_cast<void*>(out_tile) : static_cast<void*>(scratch);
          // Four-byte outputs (int32, float): their lines, asked for before the tile's last K
          // loop, arrive while it runs. AMD EPYC Zen 3, AVX2, one thread, interleaved medians of
          // four runs, MATRIX_MULTIPLY_INTEGER_TO_FLOAT / QUANTIZED_LINEAR_MATRIX_MULTIPLY at 1024^3
          // 0.87-0.89 -> 0.96-0.97, at 128x768x3072 0.86-0.93 -> 0.87-0.98 (docs/experiments.md).
          // Asked for before the first of several K blocks instead, the lines were gone again by
          // the last: the row block's other tiles pass in between (AMD EPYC Zen 5, one thread,
          // 1024^3 and 2048^3: 1.04x for the last block).
          if (!requantizes && unit_columns && last_block)
            RequestOutputLines(out_tile, out->row_stride, mr, nr * element_bytes);
          const uint8_t* a_tile = a_in_place ? am.data + m0 * am.row_stride + g0 * f.kr
                                             : PackedATile(a_matrix, tile) + chunk.a_offset + g0 * f.mr * group_bytes;
          kernel.run(mr, nr, g, a_tile, b_block, &params);
          if (!last_block || unit_columns) continue;
          if (sums_back)
            FinishTile(out->stage, *q, acc32, f.nr, m0, n0, mr, nr, out_tile, out->row_stride, out->col_stride);
          else
            for (size_t i = 0; i < mr; ++i)
              for (size_t j = 0; j < nr; ++j) out_tile[i * out->row_stride + j * out->col_stride] = scratch[i * f.nr + j];
        }
      }
    }
  }

  void RunBlock(size_t batch, size_t m_block, size_t n_block) const {
    const QGemmPlan& p = *plan;
    const QGemmKernel& kernel = p.kernel_;
    const PackFormat& f = p.format_;
    const size_t bi = batch / p.channels_, ci = batch % p.channels_;
    const size_t a_matrix = p.a_grid_.Index(bi, ci), b_matrix = p.b_grid_.Index(bi, ci);
    const Int8Matrix am = a->Matrix(a_matrix);  // read in place (a_in_place)
    uint8_t* out_base = out->data + bi * out->batch_stride + ci * out->channel_stride;
    const bool sums_out = out->stage == QGemmStage::kSum64;
    const bool column_sums = UsesColumnSums(f.packing);
    const size_t tile_begin = m_block * m_tiles_per_block, panel_begin = n_block * panels_per_block;
    const size_t tile_end = std::min(p.m_tiles_, (m_block + 1) * m_tiles_per_block);
    const size_t panel_end = std::min(p.panels_, (n_block + 1) * panels_per_block);
    // Sized for the largest tile any kernel may declare (kernels static_assert against it).
    alignas(64) uint8_t scratch[kMaxKernelMr * kMaxKernelNr];  // outputs without unit column stride
    alignas(64) int32_t acc32[kMaxKernelMr * kMaxKernelNr];
    int64_t acc64[kMaxKernelMr * kMaxKernelNr];
    // Carried between calls on the same tile: a split K's dot products, a 4-bit B's y between parts.
    alignas(64) int32_t partial[kMaxKBlockTiles * kMaxKBlockTileElements];
    alignas(64) uint8_t kernel_state[kKernelStateBytes];

    if (pack_in_block)
      for (size_t tile = tile_begin; tile < tile_end; ++tile) PackATiles(a_matrix, tile);
    const bool nibbles = f.Nibbles();
    if (kernel.enter) kernel.enter(kernel_state);
    if (!nibbles && p.chunks_.size() == 1 && !sums_out) {
      RunExactTiles(a_matrix, b_matrix, out_base, tile_begin, tile_end, panel_begin, panel_end, partial, scratch, acc32,
                    kernel_state);
      if (kernel.leave) kernel.leave(kernel_state);
      return;
    }
    // A 4-bit B's sweeps go over its blocks (steps), a part of them at a time where a row block
    // has several tiles (QGemmPlan::BlocksPerPart); an 8-bit B's K chunks run in one sweep.
    const size_t steps = nibbles ? p.chunks_.size() : 1;
    const size_t step = nibbles && tile_end - tile_begin > 1 ? p.BlocksPerPart() : steps;
    const size_t block_bytes = nibbles ? f.BPanelBytes(p.chunks_[0].k) : 0;
    const bool float_columns = out->col_stride == sizeof(float);
    // The part of a 4-bit B's blocks that a (panel, first block) sweep over this row block reads;
    // the next sweep's is prefetched during this one.
    auto b_block = [&](size_t panel, size_t g0, size_t* bytes) -> const uint8_t* {
      *bytes = 0;
      if (panel >= panel_end || !nibbles) return nullptr;
      *bytes = std::min((g0 + step) * block_bytes, b_panel_stride) - g0 * block_bytes;
      return packed_b + (b_matrix * p.panels_ + panel) * b_panel_stride + g0 * block_bytes;
    };
    for (size_t panel = panel_begin; panel < panel_end; ++panel) {
      const size_t n0 = panel * f.nr;
      const size_t nr = std::min<size_t>(f.nr, p.n_ - n0);
      const uint8_t* b_panel = packed_b + (b_matrix * p.panels_ + panel) * b_panel_stride;
      for (size_t g0 = 0; g0 < steps; g0 += step) {
      size_t next_bytes;
      const uint8_t* next =
          g0 + step < steps ? b_block(panel, g0 + step, &next_bytes) : b_block(panel + 1, 0, &next_bytes);
      const size_t share = (next_bytes / (tile_end - tile_begin) + 63) / 64 * 64;
      for (size_t tile = tile_begin, tiles = 1; tile < tile_end; tile += tiles) {
        // A 4-bit B's whole tiles in runs of up to QGemmKernel::tiles_per_call, one call each.
        tiles = 1;
        if (nibbles && float_columns && (tile + 1) * f.mr <= p.m_)
          while (tiles < kernel.tiles_per_call && tile + tiles < tile_end && (tile + tiles + 1) * f.mr <= p.m_) ++tiles;
        const size_t m0 = tile * f.mr;
        const size_t mr = std::min<size_t>(tiles * f.mr, p.m_ - m0);
        const uint8_t* a_tile = a_in_place ? am.data + m0 * am.row_stride : PackedATile(a_matrix, tile);
        QGemmTileParams params;
        params.blocks = nullptr;
        SetRowParams(m0, &params);
        SetColumnParams(n0, &params);
        params.stage = static_cast<uint8_t>(sums_out ? QGemmStage::kInt32 : out->stage);
        params.out_signed = out->is_signed;
        params.kernel_state = kernel_state;
        const size_t share_begin = std::min(next_bytes, (tile - tile_begin) * share);
        params.prefetch_b = next ? next + share_begin : nullptr;
        params.prefetch_b_bytes = std::min(next_bytes - share_begin, tiles * share);
        params.b_streams = tile_end - tile_begin == 1;
        params.output_past_l2 = output_past_l2;
        params.a_row_stride = a_in_place ? am.row_stride : 0;
        params.a_signed = am.is_signed;
        uint8_t* out_tile = out_base + m0 * out->row_stride + n0 * out->col_stride;
        if (nibbles) {
          float* carried = reinterpret_cast<float*>(partial) + (tile - tile_begin) * f.mr * f.nr;
          RunBlocksTile(a_tile, b_panel, a_matrix, panel, m0, mr, nr, out_tile, &params, acc32, g0,
                        std::min(g0 + step, steps), carried);
          continue;
        }
        auto run_chunk = [&](size_t c) {
          const Chunk& chunk = p.chunks_[c];
          const uint8_t* panel_chunk = b_panel + chunk.b_offset;
          params.row_a = RowTerms(a_matrix, c, 0) + m0;
          params.row_b = RowTerms(a_matrix, c, 1) + m0;
          params.col_a = column_sums ? PackFormat::PanelColumnSums(panel_chunk) : nullptr;
          kernel.run(mr, nr, f.Groups(chunk.k), a_in_place ? a_tile : a_tile + chunk.a_offset, f.PanelData(panel_chunk),
                     &params);
        };
        params.dot_in = nullptr;
        params.dot_out = nullptr;
        params.acc_out = acc32;
        params.deferrable = false;
        if (q->block_b_scale) {
          BlockwiseFloatTile(p.chunks_.size(), *q, p.padded_m(), p.padded_n(), mr, nr, m0, n0, run_chunk, acc32, f.nr,
                             out_tile, out->row_stride, out->col_stride);
          continue;
        }
        // K beyond one exact int32 chain: each chunk is exact in int32, their sum in int64.
        std::fill(acc64, acc64 + mr * f.nr, 0);
        for (size_t c = 0; c < p.chunks_.size(); ++c) {
          run_chunk(c);
          for (size_t i = 0; i < mr; ++i)
            for (size_t j = 0; j < nr; ++j) acc64[i * f.nr + j] += acc32[i * f.nr + j];
        }
        if (sums_out) {
          for (size_t i = 0; i < mr; ++i) {
            int64_t* sums = reinterpret_cast<int64_t*>(out_tile + i * out->row_stride);
            for (size_t j = 0; j < nr; ++j) sums[j] = out->first_slice ? acc64[i * f.nr + j] : sums[j] + acc64[i * f.nr + j];
          }
          continue;
        }
        FinishWideTile(*out, *q, acc64, f.nr, m0, n0, mr, nr, out_tile);
      }
      }
    }
    if (kernel.leave) kernel.leave(kernel_state);
  }
};

bool QGemmPlan::ReadsAInPlace(const Int8Operand& a, bool pack_in_block, size_t threads) const {
  const QGemmAInPlace kind = kernel_.a_in_place;
  const bool block_rows = kind == QGemmAInPlace::kS8BlockRows;
  if (kind == QGemmAInPlace::kNever || (chunks_.size() != 1 && !block_rows) || k_ % format_.kr != 0 ||
      a.col_stride != 1 || a.row_stride == 0)
    return false;
  auto aligned = [&](uint64_t alignment) {
    return reinterpret_cast<uintptr_t>(a.data) % alignment == 0 && a.row_stride % alignment == 0 &&
           a.batch_stride % alignment == 0 && a.channel_stride % alignment == 0;
  };
  // The 4-bit tile kernel's A as block rows in place, under the same rule as the 8-bit tile
  // kernel's below (a pass that packs A for several column blocks rewrites lines other cores read
  // in the previous call), where its tile rows are whole lines: blocks of 64 K values and more.
  // Shorter blocks' tile rows would take half lines of sixteen rows a row stride apart, where the
  // packed block reads them contiguous.
  if (block_rows)
    return a.is_signed && m_ % 16 == 0 && chunks_[0].k % 64 == 0 && k_ % 64 == 0 && aligned(64) && !pack_in_block;
  // The VNNI kernels read u8 rows in place only where the pass that packs A for the tasks to share
  // costs more than their strided reads: from 16 threads, where that pass (one or two threads'
  // work at small M, the others waiting) rewrites packed lines other cores read in the previous
  // call. On the Emerald Rapids device, 16 threads, three calls of 6-8 rounds, medians of per-round
  // ratios in place / packed, `avx512vnni`: 16x4096x4096 1.10-1.23, 128x768x3072 1.02-1.19, 1024^3
  // 0.97-1.08, 2048^3 0.95-1.05; the `amx` tier's four-row kernel 4x4096x4096 1.12; `avxvnni`
  // 16x4096x4096 1.20, 1024^3 and 2048^3 0.99-1.02, 128x768x3072 0.94. At 2, 4 and 8 threads the
  // larger shapes lost 4-9%. One thread packs inside its task, and reading in place there gained
  // nothing on Zen 4 (and lost 6% at 16x4096x4096, whose rows 4 KB apart share one set of L1).
  if (kind == QGemmAInPlace::kU8Rows)
    return !a.is_signed && aligned(4) && !pack_in_block && threads >= kU8RowsInPlaceThreads;
  // The AMX kernel reads A in place when every tile is whole (M a multiple of 32, or of 32 plus
  // a last tile of 16), the rows are 64-byte aligned (a row load across two lines costs more
  // than packing), and A would otherwise be packed in a pass of its own (several column blocks,
  // so several threads). That pass rewrites packed A that other cores read in the previous call
  // and waits on taking those lines back: on the Emerald Rapids device, 16 threads, reading in
  // place ran 16x4096x4096 x1.54, 512x2048x2048 x1.47, 128x768x3072 x1.31, 1024^3 x1.22 and
  // 2048^3 x1.10. Packed inside a task, A costs little, and one thread ran 32x4096x4096 5% faster
  // from the packed copy.
  const bool whole_tiles = m_ % format_.mr == 0 || m_ % format_.mr == format_.mr / 2;
  return whole_tiles && aligned(64) && !pack_in_block;
}

void QGemmPlan::Run(const Int8Operand& a, const uint8_t* packed_b, const QGemmQuantization& q, const QGemmOutput& out,
                    uint8_t* packed_a, uint8_t* row_terms, pthreadpool_t pool, size_t b_panel_stride) const {
  RunJob job{this,  &a,    packed_b, &q, &out, packed_a, reinterpret_cast<int32_t*>(row_terms), 0, 0,
             b_panel_stride ? b_panel_stride : b_panel_stride_, false, false, false, false};

  // Blocks: rows sized so their packed A stays in L2; columns split until every thread has
  // several blocks (M = 1 still spreads over N).
  const size_t threads = pool ? pthreadpool_get_threads_count(pool) : 1;
  const size_t batch_count = batches_ * channels_;
  // One thread's share of the output against a 2 MiB L2. The amx tier asks for the lines of such an
  // output early: Emerald Rapids, one thread, 2048^3 (4 MB of bytes) 1.12-1.16x, where the shapes
  // whose output fits L2 lost 1-3% to the same requests (docs/experiments.md, 2026-12-01).
  const uint64_t out_element_bytes = out.stage == QGemmStage::kRequantize8 ? 1 : out.stage == QGemmStage::kSum64 ? 8 : 4;
  uint64_t out_bytes = 0;
  job.output_past_l2 = !CheckedProduct({batch_count, m_, n_, out_element_bytes}, &out_bytes) ||
                       out_bytes / threads > kOutputPastL2Bytes;
  // A kernel that splits K reads one K block of each A tile at a time, so that block is what must
  // stay in L2 (for AMX at K = 2048 this doubles the tiles that share each B block).
  const size_t a_tile_bytes = SplitsK()         ? format_.ATileBytes(KBlockGroups() * format_.kr)
                              : SplitsBlocks() ? BlocksPerPart() * format_.ATileBytes(chunks_[0].k)
                                               : a_tile_stride_;
  job.m_tiles_per_block = std::min(m_tiles_, std::max<size_t>(1, kABlockBytes / std::max<size_t>(1, a_tile_bytes)));
  // A kernel that unpacks each block of a 4-bit B once for several tiles (tiles_per_call) gets row
  // blocks of that many tiles where their A fits half of a 2 MiB L2, on one or two threads. Intel
  // Xeon with AMX (2 vCPUs, 2026-12-02), `i2f/cpuml/s8u4` at 128 and 512 x 4096 x 4096 against row
  // blocks of one tile: one thread 1.09-1.11x (block 128) and 1.06x (block 32), two threads
  // 1.10-1.17x and 1.08-1.16x; on the Emerald Rapids device one thread level (0.97-1.05x) and
  // sixteen threads 0.78-1.14x, so more threads keep the row blocks their A sizes.
  if (kernel_.tiles_per_call > 1 && threads <= 2)
    job.m_tiles_per_block = std::min(m_tiles_, std::max(job.m_tiles_per_block,
        std::min<size_t>(kernel_.tiles_per_call, std::max<size_t>(1, 4 * kABlockBytes / std::max<size_t>(1, a_tile_bytes)))));
  // Only a split K carries dot products between blocks, in the front end's stack; K whole lets a
  // row block hold every tile whose A fits (128x768x3072 on the VNNI tier: one pass over B, not
  // two).
  if (SplitsK()) job.m_tiles_per_block = std::min(job.m_tiles_per_block, kMaxKBlockTiles);
  // A 4-bit B in parts: each tile's y between parts in the same stack (floats, mr x nr a tile).
  if (SplitsBlocks())
    job.m_tiles_per_block = std::min(job.m_tiles_per_block,
                                     kMaxKBlockTiles * kMaxKBlockTileElements / (format_.mr * format_.nr));
  // Rows of their own per thread (QGemmKernel::own_rows_per_thread): the pack pass hands tiles
  // out in the same contiguous order as the blocks, so each thread multiplies what it packed.
  if (kernel_.own_rows_per_thread && threads > 1 && m_ >= size_t{kernel_.own_rows_per_thread} * threads)
    job.m_tiles_per_block = std::min(job.m_tiles_per_block, std::max<size_t>(1, m_tiles_ / threads));
  const size_t m_blocks = (m_tiles_ + job.m_tiles_per_block - 1) / job.m_tiles_per_block;
  const size_t wanted_tasks = threads > 1 ? threads * CPUML_QGEMM_TASKS_PER_THREAD : 1;
  const size_t n_blocks = std::min(panels_, std::max<size_t>(1, wanted_tasks / std::max<size_t>(1, batch_count * m_blocks)));
  job.panels_per_block = (panels_ + n_blocks - 1) / n_blocks;
  // With one column block, each row block of each A matrix belongs to one task; batches that share
  // an A matrix (broadcast A) would each pack it, so they keep the separate pass.
  job.pack_in_block = n_blocks == 1 && a_grid_.Count() == batch_count;
  job.a_in_place = out.stage != QGemmStage::kSum64 && ReadsAInPlace(a, job.pack_in_block, threads);
  job.one_packed_row_block = job.pack_in_block && threads == 1;
  if (job.a_in_place) {
    // Row sums only where a column term reads them (a u8 B, or B zero points): then a pass over
    // A's rows shared by the threads; otherwise the terms are a few stores per row.
    if (q.use_col_b)
      pthreadpool_parallelize_2d(
          pool,
          [](void* context, size_t matrix, size_t tile) {
            static_cast<const RunJob*>(context)->InPlaceRowTermsOf(matrix, tile);
          },
          &job, a_grid_.Count(), m_tiles_, 0);
    else
      for (size_t matrix = 0; matrix < a_grid_.Count(); ++matrix)
        for (size_t tile = 0; tile < m_tiles_; ++tile) job.InPlaceRowTermsOf(matrix, tile);
  } else if (!job.pack_in_block)
    pthreadpool_parallelize_2d(
        pool,
        [](void* context, size_t matrix, size_t tile) { static_cast<const RunJob*>(context)->PackATiles(matrix, tile); },
        &job, a_grid_.Count(), m_tiles_, 0);
  pthreadpool_parallelize_3d(
      pool,
      [](void* context, size_t batch, size_t m_block, size_t n_block) {
        static_cast<const RunJob*>(context)->RunBlock(batch, m_block, n_block);
      },
      &job, batch_count, m_blocks, (panels_ + job.panels_per_block - 1) / job.panels_per_block, 0);
}

}  // namespace cpuml
