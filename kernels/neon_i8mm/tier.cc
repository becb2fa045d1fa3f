#include "kernels/kernels.h"

namespace cpuml {
namespace neon { extern const FillKernels kFillKernels; }
namespace neon_i8mm {

void qgemm_s8s8_8x8c8__neoni8mm(size_t, size_t, size_t, const void*, const void*, const QGemmTileParams*);

// Dispatch refuses the tier if this TU was not built with its flags.
static bool BuiltWithIsaFlags() {
#if defined(__ARM_FEATURE_MATMUL_INT8)
  return true;
#else
  return false;
#endif
}

// Fills gain nothing from dot-product instructions: this tier uses the baseline NEON fills.
const TierKernels kTierKernels = {
    CPUML_ISA_NEON_I8MM,
    BuiltWithIsaFlags,
    neon::kFillKernels,
    {"qgemm_s8s8_8x8c8__neoni8mm", 8, 8, 8, QGemmPacking::kS8S8, qgemm_s8s8_8x8c8__neoni8mm},
};

}  // namespace neon_i8mm
}  // namespace cpuml
