#include "kernels/kernels.h"

namespace cpuml {
namespace avx512vnni {

extern const FillKernels kFillKernels;
void qgemm_u8s8_8x32c4__avx512vnni(size_t, size_t, size_t, const void*, const void*, const QGemmTileParams*);

// Dispatch refuses the tier if this TU was not built with its flags.
static bool BuiltWithIsaFlags() {
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__F16C__)
  return true;
#else
  return false;
#endif
}

const TierKernels kTierKernels = {
    CPUML_ISA_AVX512VNNI,
    BuiltWithIsaFlags,
    kFillKernels,
    {"qgemm_u8s8_8x32c4__avx512vnni", 8, 32, 4, QGemmPacking::kU8S8, qgemm_u8s8_8x32c4__avx512vnni},
};

}  // namespace avx512vnni
}  // namespace cpuml
