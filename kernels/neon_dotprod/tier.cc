// The neon_dotprod tier's table: what kernels/registry.h lists for it.
#include "kernels/kernels.h"

namespace cpuml {
namespace neon_dotprod {

extern const QGemmKernel kQGemm_s8s8_8x8c4__neondot;

#if defined(__ARM_FEATURE_DOTPROD)
constexpr bool kBuiltWithIsaFlags = true;
#else
constexpr bool kBuiltWithIsaFlags = false;  // dispatch refuses the tier
#endif

const QGemmKernel* const kQGemmKernels[] = {&kQGemm_s8s8_8x8c4__neondot};
// Fills gain nothing from this tier's instructions: the NEON baseline's serve.
extern const TierKernels kTierKernels;
const TierKernels kTierKernels = {kBuiltWithIsaFlags, nullptr, kQGemmKernels, sizeof kQGemmKernels / sizeof kQGemmKernels[0]};

}  // namespace neon_dotprod
}  // namespace cpuml
