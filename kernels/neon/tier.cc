// The neon tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__ARM_NEON)
#error "kernels/neon must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace neon {

extern const FillKernels kFillKernels;
extern const QGemmKernel kQGemm_x16_4x8c2__neon;

CPUML_TIER_TABLE(&kFillKernels, &kQGemm_x16_4x8c2__neon);

}  // namespace neon
}  // namespace cpuml
