#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {

extern const FillKernels kFillKernels;
void qgemm_x16_4x4c2__scalar(size_t, size_t, size_t, const void*, const void*, const QGemmTileParams*);

static bool BuiltWithIsaFlags() { return true; }

const TierKernels kTierKernels = {
    CPUML_ISA_SCALAR,
    BuiltWithIsaFlags,
    kFillKernels,
    {"qgemm_x16_4x4c2__scalar", 4, 4, 2, QGemmPacking::kInt16Pairs, qgemm_x16_4x4c2__scalar},
};

}  // namespace scalar
}  // namespace cpuml
