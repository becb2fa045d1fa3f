// The scalar tier's table: what kernels/registry.h lists for it.
#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {

extern const FillKernels kFillKernels;
extern const QGemmKernel kQGemm_x16_4x4c2__scalar;

#if true
constexpr bool kBuiltWithIsaFlags = true;
#else
constexpr bool kBuiltWithIsaFlags = false;  // dispatch refuses the tier
#endif

const QGemmKernel* const kQGemmKernels[] = {&kQGemm_x16_4x4c2__scalar};
extern const TierKernels kTierKernels;
const TierKernels kTierKernels = {kBuiltWithIsaFlags, &kFillKernels, kQGemmKernels, sizeof kQGemmKernels / sizeof kQGemmKernels[0]};

}  // namespace scalar
}  // namespace cpuml
