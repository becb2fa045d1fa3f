#include "kernels/kernels.h"

namespace cpuml {
namespace neon { extern const FillKernels kFillKernels; }
namespace neon_dotprod {

void qgemm_s8s8_8x8c4__neondot(size_t, size_t, size_t, const void*, const void*, const QGemmTileParams*);

// Dispatch refuses the tier if this TU was not built with its flags.
static bool BuiltWithIsaFlags() {
#if defined(__ARM_FEATURE_DOTPROD)
  return true;
#else
  return false;
#endif
}

// Fills gain nothing from dot-product instructions: this tier uses the baseline NEON fills.
const TierKernels kTierKernels = {
    CPUML_ISA_NEON_DOTPROD,
    BuiltWithIsaFlags,
    neon::kFillKernels,
    {"qgemm_s8s8_8x8c4__neondot", 8, 8, 4, QGemmPacking::kS8S8, qgemm_s8s8_8x8c4__neondot},
};

}  // namespace neon_dotprod
}  // namespace cpuml
