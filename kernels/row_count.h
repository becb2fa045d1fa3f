// Turns a tile's runtime row count into a compile-time one, so each micro-kernel is specialized
// for 1..kMax rows (a short edge tile or a small M pays only for its own rows).
//
// Safe to include from every tier: each instantiation is keyed by the caller's lambda, whose
// type is local to that tier's function, so no instantiation is shared across ISA flags.
#ifndef CPUML_KERNELS_ROW_COUNT_H_
#define CPUML_KERNELS_ROW_COUNT_H_

#include <stddef.h>

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

}  // namespace cpuml

#endif  // CPUML_KERNELS_ROW_COUNT_H_
