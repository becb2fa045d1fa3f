// The avx512vnni tier's table: what kernels/registry.h lists for it.
#include "kernels/kernels.h"

namespace cpuml {
namespace avx512vnni {

extern const FillKernels kFillKernels;
extern const QGemmKernel kQGemm_u8s8_8x32c4__avx512vnni;

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__F16C__)
constexpr bool kBuiltWithIsaFlags = true;
#else
constexpr bool kBuiltWithIsaFlags = false;  // dispatch refuses the tier
#endif

const QGemmKernel* const kQGemmKernels[] = {&kQGemm_u8s8_8x32c4__avx512vnni};
extern const TierKernels kTierKernels;
const TierKernels kTierKernels = {kBuiltWithIsaFlags, &kFillKernels, kQGemmKernels, sizeof kQGemmKernels / sizeof kQGemmKernels[0]};

}  // namespace avx512vnni
}  // namespace cpuml
