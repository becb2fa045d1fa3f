// The neon_i8mm tier's table: what kernels/registry.h lists for it.
#include "kernels/kernels.h"

namespace cpuml {
namespace neon_i8mm {

extern const QGemmKernel kQGemm_s8s8_8x8c8__neoni8mm;

#if defined(__ARM_FEATURE_MATMUL_INT8)
constexpr bool kBuiltWithIsaFlags = true;
#else
constexpr bool kBuiltWithIsaFlags = false;  // dispatch refuses the tier
#endif

const QGemmKernel* const kQGemmKernels[] = {&kQGemm_s8s8_8x8c8__neoni8mm};
// Fills gain nothing from this tier's instructions: the NEON baseline's serve.
extern const TierKernels kTierKernels;
const TierKernels kTierKernels = {kBuiltWithIsaFlags, nullptr, kQGemmKernels, sizeof kQGemmKernels / sizeof kQGemmKernels[0]};

}  // namespace neon_i8mm
}  // namespace cpuml
