// Products too large for whole-matrix workspaces, run in slices of the same kernel's plans (see
// QGemmSlicedPlan). The front end picks it where a plan's packed A and B would pass 64 MiB.
#ifndef CPUML_SRC_QGEMM_SLICES_H_
#define CPUML_SRC_QGEMM_SLICES_H_

#include <pthreadpool.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "src/qgemm_driver.h"

namespace cpuml {

// A problem whose whole-matrix workspaces (all of packed A, and of an unowned B packed per
// execute) would pass kWholeWorkspaceBytes runs in slices: per output matrix, blocks of rows and
// columns, each over K in slices of whole exact chunks. A, and an unowned B, are packed one slice
// at a time, and the slices' exact sums meet in int64, so the scratch depends on the slice sizes
// alone (no K x N or M x K term) and the bytes are those of the whole plan. Not for blockwise B
// scales or 4-bit B, whose K blocks are joined in float inside the tile.
class QGemmSlicedPlan {
 public:
  static constexpr uint64_t kWholeWorkspaceBytes = uint64_t{64} << 20;
  // Packed A and packed B slices each aim at about this many bytes.
  static constexpr uint64_t kSliceBytes = uint64_t{8} << 20;

  // `whole` is the plan of the entire problem: its sizes, and the layout of a B packed at initialize.
  explicit QGemmSlicedPlan(const QGemmPlan& whole);

  // Scratch after the quantization arrays: packed A and row terms of one slice, packed B of one
  // slice (when B is packed per execute), and the int64 sums of one block of outputs.
  uint64_t WorkspaceBytes(bool packs_b) const;
  // As QGemmPlan::Run: `b` is read when prepacked_b is NULL, else prepacked_b is `whole`'s packing.
  void Run(const Int8Operand& a, const Int8Operand& b, const uint8_t* prepacked_b, const QGemmQuantization& q,
           const QGemmOutput& out, uint8_t* workspace, pthreadpool_t pool) const;

 private:
  const QGemmPlan& Slice(bool m_tail, bool n_tail, bool k_tail) const {
    return plans_[(m_tail ? 4 : 0) + (n_tail ? 2 : 0) + (k_tail ? 1 : 0)];
  }

  size_t whole_panels_, whole_panel_stride_, whole_chunk_bytes_;  // whole's packed B
  size_t batches_, channels_, m_, n_, k_;
  MatrixGrid a_grid_, b_grid_;
  size_t slice_m_, slice_n_, slice_k_;
  std::vector<QGemmPlan> plans_;  // [rows: whole slice, tail][columns: ...][K: ...]
  size_t packed_a_, row_terms_, sums_, packed_b_;  // workspace offsets (64-byte aligned)
  size_t packed_b_bytes_;
};

}  // namespace cpuml

#endif  // CPUML_SRC_QGEMM_SLICES_H_
