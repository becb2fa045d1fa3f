// The avx2 tier's table: what kernels/registry.h lists for it.
#include "kernels/kernels.h"

namespace cpuml {
namespace avx2 {

extern const FillKernels kFillKernels;
extern const QGemmKernel kQGemm_x16_4x16c2__avx2;

#if defined(__AVX2__) && defined(__F16C__)
constexpr bool kBuiltWithIsaFlags = true;
#else
constexpr bool kBuiltWithIsaFlags = false;  // dispatch refuses the tier
#endif

const QGemmKernel* const kQGemmKernels[] = {&kQGemm_x16_4x16c2__avx2};
extern const TierKernels kTierKernels;
const TierKernels kTierKernels = {kBuiltWithIsaFlags, &kFillKernels, kQGemmKernels, sizeof kQGemmKernels / sizeof kQGemmKernels[0]};

}  // namespace avx2
}  // namespace cpuml
