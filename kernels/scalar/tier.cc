// The scalar tier's table (kernels/registry.h).
#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {

extern const FillKernels kFillKernels;
extern const QuantizeKernels kQuantizeKernels;
extern const QGemmKernel kQGemm_x16_4x4c2__scalar;

CPUML_TIER_TABLE(&kFillKernels, &kQuantizeKernels, &kQGemm_x16_4x4c2__scalar);

}  // namespace scalar
}  // namespace cpuml
