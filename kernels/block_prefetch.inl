// BlockPrefetch for the x86 GEMM micro-kernels: included by each kernel file after it defines
// CPUML_TIER, so every copy lives in that tier's namespace and is compiled with its flags only
// (like requantize_xsimd.inl).
#include <immintrin.h>
#include <stddef.h>

#include <algorithm>

#include "kernels/kernels.h"

namespace cpuml {
namespace CPUML_TIER {
namespace {

// Walks this tile's share of the next B block (QGemmTileParams::prefetch_b) into L2, spread over
// the tile's K groups at most kMaxLinesPerGroup lines a group, so that the row block's first tile
// on that block does not wait on the last-level cache. Step() once per K group.
template <size_t kMaxLinesPerGroup>
class BlockPrefetch {
 public:
  BlockPrefetch(const QGemmTileParams& p, size_t k_groups, bool enabled = true)
      : next_(enabled ? reinterpret_cast<const char*>(p.prefetch_b) : nullptr),
        end_(next_ ? next_ + p.prefetch_b_bytes : nullptr),
        lines_per_group_(std::min(kMaxLinesPerGroup, (p.prefetch_b_bytes / 64 + k_groups - 1) / (k_groups ? k_groups : 1))) {}

  void Step() {
    for (size_t i = 0; i < lines_per_group_ && next_ < end_; ++i, next_ += 64) _mm_prefetch(next_, _MM_HINT_T1);
  }

 private:
  const char* next_;
  const char* end_;
  size_t lines_per_group_;
};

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
