// Turns a tile's runtime row count into a compile-time one, so each micro-kernel is specialized
// for 1..kMax rows (a short edge tile or a small M pays only for its own rows); and, for the 4-bit
// kernels, whether the tile's rows need B's column sums.
//
// Safe to include from every tier: each instantiation is keyed by the caller's lambda, whose
// type is local to that tier's function, so no instantiation is shared across ISA flags.
#ifndef CPUML_KERNELS_ROW_COUNT_H_
#define CPUML_KERNELS_ROW_COUNT_H_

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

namespace cpuml {

// Calls body(std::integral_constant<size_t, R>{}) with R = min(rows, kMax), rows >= 1.
template <size_t kMax, class Body>
inline void WithRowCount(size_t rows, Body&& body) {
  if constexpr (kMax > 1) {
    if (rows < kMax) return WithRowCount<kMax - 1>(rows, body);
  }
  body(std::integral_constant<size_t, kMax>{});
}

// Calls body(std::true_type{}) where some of the tile's kRows rows has row_a != 0 (A's zero point
// is not 0 in the s8 domain, so a 4-bit kernel needs B's column sums), else body(std::false_type{}).
// row_a is the same for every block.
template <size_t kRows, class Body>
inline void WithColumnSums(const int32_t* row_a, Body&& body) {
  bool any = false;
  for (size_t r = 0; r < kRows; ++r) any |= row_a[r] != 0;
  if (any)
    body(std::true_type{});
  else
    body(std::false_type{});
}

}  // namespace cpuml

#endif  // CPUML_KERNELS_ROW_COUNT_H_
