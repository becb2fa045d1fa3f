#include "kernels/kernels.h"

namespace cpuml {
namespace sse41 {

extern const FillKernels kFillKernels;
void qgemm_x16_4x8c2__sse41(size_t, size_t, size_t, const void*, const void*, const QGemmTileParams*);

// Dispatch refuses the tier if this TU was not built with its flags.
static bool BuiltWithIsaFlags() {
#if defined(__SSE4_1__)
  return true;
#else
  return false;
#endif
}

const TierKernels kTierKernels = {
    CPUML_ISA_SSE41,
    BuiltWithIsaFlags,
    kFillKernels,
    {"qgemm_x16_4x8c2__sse41", 4, 8, 2, QGemmPacking::kInt16Pairs, qgemm_x16_4x8c2__sse41},
};

}  // namespace sse41
}  // namespace cpuml
