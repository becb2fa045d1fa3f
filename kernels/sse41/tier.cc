// The sse41 tier's table: what kernels/registry.h lists for it.
#include "kernels/kernels.h"

namespace cpuml {
namespace sse41 {

extern const FillKernels kFillKernels;
extern const QGemmKernel kQGemm_x16_4x8c2__sse41;

#if defined(__SSE4_1__)
constexpr bool kBuiltWithIsaFlags = true;
#else
constexpr bool kBuiltWithIsaFlags = false;  // dispatch refuses the tier
#endif

const QGemmKernel* const kQGemmKernels[] = {&kQGemm_x16_4x8c2__sse41};
extern const TierKernels kTierKernels;
const TierKernels kTierKernels = {kBuiltWithIsaFlags, &kFillKernels, kQGemmKernels, sizeof kQGemmKernels / sizeof kQGemmKernels[0]};

}  // namespace sse41
}  // namespace cpuml
