// The scalar tier's table (kernels/registry.h).
#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {

extern const FillKernels kFillKernels;
extern const QuantizeKernels kQuantizeKernels;
extern const QGemmKernel kQGemm_s8u4_4x16c8__scalar;
extern const QGemmKernel kQGemm_x16_4x4c2__scalar;

// The 4-bit kernel serves only a 4-bit B (SelectQGemmKernel); the other serves everything else.
CPUML_TIER_TABLE(&kFillKernels, &kQuantizeKernels, &kQGemm_s8u4_4x16c8__scalar, &kQGemm_x16_4x4c2__scalar);

}  // namespace scalar
}  // namespace cpuml
