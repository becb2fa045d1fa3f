// Picks the kernels from the registry (kernels/registry.h): built into this library, supported by
// this CPU and OS, under the cap (cpuml_set_max_isa / CPUML_MAX_ISA).
#ifndef CPUML_SRC_DISPATCH_H_
#define CPUML_SRC_DISPATCH_H_

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"

namespace cpuml {

struct TierChoice {
  cpuml_isa isa;
  const char* name;
  const TierKernels* kernels;
};

// The tier whose GEMM kernels operators created now use; never NULL (scalar is always there).
TierChoice GemmTier();
// The best tier with fills of its own that the CPU runs, under the same cap: a CPU may have a
// tier's fill instructions without its GEMM ones.
TierChoice FillTier();
// The same for DYNAMIC_QUANTIZE_LINEAR's rows (QuantizeKernels), with the fills' CPU check.
TierChoice QuantizeTier();
// The table for `isa` if it was built and this machine runs its GEMM kernels, else NULL.
const TierKernels* SupportedTier(cpuml_isa isa);
// The same for the tier's fills (NULL too when the tier has no fills of its own).
const TierKernels* SupportedFillTier(cpuml_isa isa);
// The same for its quantization rows (NULL when the tier has none of its own).
const TierKernels* SupportedQuantizeTier(cpuml_isa isa);

// The first of the tier's GEMM kernels whose M range holds m and whose B condition
// (QGemmKernel::max_b_magnitude) b_magnitude meets (the last one if none does). b_magnitude: the
// largest |packed B value| the caller has checked, or kUncheckedB. With blocks_4bit (a 4-bit B
// whose blocks the 4-bit layouts can hold) a kernel of those layouts comes first when the tier
// has one for m; such kernels are never picked otherwise.
constexpr uint32_t kUncheckedB = UINT32_MAX;
const QGemmKernel& SelectQGemmKernel(const TierKernels& tier, uint64_t m, uint32_t b_magnitude = kUncheckedB,
                                     bool blocks_4bit = false);

// This core's share of the last-level cache, in bytes (outputs larger than this are written
// with non-temporal stores); a guess if unknown.
size_t LastLevelCacheBytes();

}  // namespace cpuml

#endif  // CPUML_SRC_DISPATCH_H_
