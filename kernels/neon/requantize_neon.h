// The NEON tiers' shared epilogue. It is compiled once, in the baseline NEON tier, and called
// by the higher NEON tiers: higher tiers may call lower-tier code, never the reverse.
#ifndef CPUML_KERNELS_NEON_REQUANTIZE_NEON_H_
#define CPUML_KERNELS_NEON_REQUANTIZE_NEON_H_

#include "kernels/kernels.h"

namespace cpuml {
namespace neon {

constexpr size_t kTileColumns = 8;  // every NEON micro-kernel is 8 columns wide

// Finishes an mr x nr tile of dot products (row stride kTileColumns) per QGemmTileParams.
void RequantizeTile(const int32_t* tile, size_t mr, size_t nr, const QGemmTileParams* p);

}  // namespace neon
}  // namespace cpuml

#endif  // CPUML_KERNELS_NEON_REQUANTIZE_NEON_H_
