#include "kernels/kernels.h"

namespace cpuml {
namespace avx2 {

extern const FillKernels kFillKernels;
void qgemm_x16_4x16c2__avx2(size_t, size_t, size_t, const void*, const void*, const QGemmTileParams*);

// Dispatch refuses the tier if this TU was not built with its flags.
static bool BuiltWithIsaFlags() {
#if defined(__AVX2__) && defined(__F16C__)
  return true;
#else
  return false;
#endif
}

const TierKernels kTierKernels = {
    CPUML_ISA_AVX2,
    BuiltWithIsaFlags,
    kFillKernels,
    {"qgemm_x16_4x16c2__avx2", 4, 16, 2, QGemmPacking::kInt16Pairs, qgemm_x16_4x16c2__avx2},
};

}  // namespace avx2
}  // namespace cpuml
