#include "kernels/kernels.h"

namespace cpuml {

namespace neon {
extern const FillKernels kFillKernels;
void qgemm_x16_4x8c2__neon(size_t, size_t, size_t, const void*, const void*, const QGemmTileParams*);

// Dispatch refuses the tier if this TU was not built with its flags.
static bool BuiltWithIsaFlags() {
#if defined(__ARM_NEON)
  return true;
#else
  return false;
#endif
}

const TierKernels kTierKernels = {
    CPUML_ISA_NEON,
    BuiltWithIsaFlags,
    kFillKernels,
    {"qgemm_x16_4x8c2__neon", 4, 8, 2, QGemmPacking::kInt16Pairs, qgemm_x16_4x8c2__neon},
};

}  // namespace neon
}  // namespace cpuml
