// BlockPrefetch for the x86 GEMM micro-kernels: included by each kernel file after it defines
// CPUML_TIER, so every copy lives in that tier's namespace and is compiled with its flags only
// (like requantize_xsimd.inl).
#include <immintrin.h>
#include <stddef.h>

#include <algorithm>
#include <utility>

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

  // For ForEachKGroup (kMaxLinesPerGroup 1): the first line and how many lines are left.
  const char* next() const { return next_; }
  size_t lines() const { return lines_per_group_ && next_ ? static_cast<size_t>(end_ - next_ + 63) / 64 : 0; }

 private:
  const char* next_;
  const char* end_;
  size_t lines_per_group_;
};

template <class Body, size_t... kGroup>
__attribute__((always_inline)) inline void KGroupBlock(size_t g, Body& body, std::index_sequence<kGroup...>) {
  (body(g + kGroup), ...);
}

// Runs body(g) for every K group g in order, kUnroll groups to an iteration, and walks the
// tile's share of the next B block into L2 a line per group as BlockPrefetch<1>::Step() does.
// The loop's scalar work (pointer updates, the bound checks of the loop and of the prefetch)
// then issues once per kUnroll groups: Intel cores run scalar ALU work on the same ports (0 and
// 5) as the vector multiplies, so per-group checks took issue slots from vpdpbusd there.
template <size_t kUnroll, class Body>
__attribute__((always_inline)) inline void ForEachKGroup(size_t k_groups, const BlockPrefetch<1>& prefetch, Body&& body) {
  const char* next = prefetch.next();
  const size_t lines = std::min(prefetch.lines(), k_groups);
  constexpr auto block = std::make_index_sequence<kUnroll>();
  size_t g = 0;
  for (; g + kUnroll <= lines; g += kUnroll) {
#pragma GCC unroll 16
    for (size_t u = 0; u < kUnroll; ++u) _mm_prefetch(next + (g + u) * 64, _MM_HINT_T1);
    KGroupBlock(g, body, block);
  }
  for (size_t line = g; line < lines; ++line) _mm_prefetch(next + line * 64, _MM_HINT_T1);
  for (; g + kUnroll <= k_groups; g += kUnroll) KGroupBlock(g, body, block);
  for (; g < k_groups; ++g) body(g);
}

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
