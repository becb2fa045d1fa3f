#include "src/qgemm_slices.h"

#include <algorithm>

namespace cpuml {
namespace {

size_t Align64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

}  // namespace

QGemmSlicedPlan::QGemmSlicedPlan(const QGemmPlan& whole)
    : whole_panels_(whole.panels()),
      whole_panel_stride_(whole.b_panel_stride()),
      whole_chunk_bytes_(whole.chunk_count() > 1 ? whole.b_chunk_offset(1) : 0),
      batches_(whole.batches()),
      channels_(whole.channels()),
      m_(whole.m()),
      n_(whole.n()),
      k_(whole.k()),
      a_grid_(whole.a_grid()),
      b_grid_(whole.b_grid()) {
  const PackFormat& f = whole.format();
  const size_t m = m_, n = n_, k = k_;
  // K slices are whole exact chunks, so every slice's sums are those of the whole plan's chunks.
  slice_k_ = std::min(k, QGemmPlan::kMaxExactK);
  const size_t a_tile_bytes = f.ATileBytes(slice_k_), b_panel_bytes = f.BPanelBytes(slice_k_);
  slice_m_ = std::min(m, std::max<size_t>(1, kSliceBytes / a_tile_bytes) * f.mr);
  slice_n_ = std::min(n, std::max<size_t>(1, kSliceBytes / b_panel_bytes) * f.nr);
  auto tail = [](size_t size, size_t slice) { return size % slice ? size % slice : slice; };
  for (size_t i = 0; i < 8; ++i)
    plans_.emplace_back(whole.kernel(), 1, 1, i & 4 ? tail(m, slice_m_) : slice_m_, i & 2 ? tail(n, slice_n_) : slice_n_,
                        i & 1 ? tail(k, slice_k_) : slice_k_, MatrixGrid{}, MatrixGrid{}, QGemmPlan::kMaxExactK);
  size_t packed_a = 0, row_terms = 0, packed_b = 0;
  for (const QGemmPlan& plan : plans_) {
    packed_a = std::max(packed_a, plan.packed_a_bytes());
    row_terms = std::max(row_terms, plan.row_terms_bytes());
    packed_b = std::max(packed_b, plan.packed_b_bytes());
  }
  const size_t sums = k_ > slice_k_ ? slice_m_ * slice_n_ * sizeof(int64_t) : 0;
  packed_a_ = 0;
  row_terms_ = packed_a_ + Align64(packed_a);
  sums_ = row_terms_ + Align64(row_terms);
  packed_b_ = sums_ + Align64(sums);
  packed_b_bytes_ = Align64(packed_b);
}

uint64_t QGemmSlicedPlan::WorkspaceBytes(bool packs_b) const { return packed_b_ + (packs_b ? packed_b_bytes_ : 0); }

void QGemmSlicedPlan::Run(const Int8Operand& a, const Int8Operand& b, const uint8_t* prepacked_b,
                          const QGemmQuantization& q, const QGemmOutput& out, uint8_t* workspace,
                          pthreadpool_t pool) const {
  const bool k_sliced = k_ > slice_k_;
  int64_t* sums = reinterpret_cast<int64_t*>(workspace + sums_);
  const size_t nr = plans_[0].format().nr;
  for (size_t batch = 0; batch < batches_ * channels_; ++batch) {
    const size_t bi = batch / channels_, ci = batch % channels_;
    const size_t a_matrix = a_grid_.Index(bi, ci), b_matrix = b_grid_.Index(bi, ci);
    const Int8Matrix am = a.Matrix(a_matrix);
    uint8_t* out_matrix = out.data + bi * out.batch_stride + ci * out.channel_stride;
    for (size_t m0 = 0; m0 < m_; m0 += slice_m_) {
      const size_t rows = std::min(slice_m_, m_ - m0);
      for (size_t n0 = 0; n0 < n_; n0 += slice_n_) {
        const size_t columns = std::min(slice_n_, n_ - n0);
        const QGemmQuantization qs = q.From(m0, n0);
        uint8_t* out_block = out_matrix + m0 * out.row_stride + n0 * out.col_stride;
        for (size_t k0 = 0; k0 < k_; k0 += slice_k_) {
          const QGemmPlan& plan = Slice(rows != slice_m_, columns != slice_n_, k_ - k0 < slice_k_);
          const Int8Operand a_slice{am.data + m0 * am.row_stride + k0 * am.col_stride, am.is_signed, 0, 0,
                                    am.row_stride, am.col_stride, MatrixGrid{}};
          const uint8_t* packed_b;
          size_t panel_stride = 0;
          if (prepacked_b) {
            packed_b = prepacked_b + (b_matrix * whole_panels_ + n0 / nr) * whole_panel_stride_ +
                       k0 / QGemmPlan::kMaxExactK * whole_chunk_bytes_;
            panel_stride = whole_panel_stride_;
          } else {
            const Int8Matrix bm = b.Matrix(b_matrix);
            const Int8Operand b_slice{bm.data + k0 * bm.row_stride + n0 * bm.col_stride, bm.is_signed, 0, 0,
                                      bm.row_stride, bm.col_stride, MatrixGrid{}};
            plan.PackB(b_slice, workspace + packed_b_, pool);
            packed_b = workspace + packed_b_;
          }
          QGemmOutput slice_out = out;
          slice_out.data = out_block;
          if (k_sliced)
            slice_out = {reinterpret_cast<uint8_t*>(sums), QGemmStage::kSum64, false, 0, 0,
                         slice_n_ * sizeof(int64_t), sizeof(int64_t), k0 == 0};
          plan.Run(a_slice, packed_b, qs, slice_out, workspace + packed_a_, workspace + row_terms_, pool,
                   panel_stride);
        }
        if (!k_sliced) continue;
        for (size_t i = 0; i < rows; ++i)
          for (size_t j = 0; j < columns; j += kMaxKernelNr)
            FinishWideTile(out, qs, sums + i * slice_n_ + j, slice_n_, i, j, 1, std::min<size_t>(kMaxKernelNr, columns - j),
                           out_block + i * out.row_stride + j * out.col_stride);
      }
    }
  }
}

}  // namespace cpuml
