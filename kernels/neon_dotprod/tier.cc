// The neon_dotprod tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__ARM_FEATURE_DOTPROD)
#error "kernels/neon_dotprod must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace neon_dotprod {

extern const QGemmKernel kQGemm_s8s8_8x8c4__neondot;

// Fills gain nothing from this tier's instructions: the NEON baseline's serve.
CPUML_TIER_TABLE(nullptr, nullptr, &kQGemm_s8s8_8x8c4__neondot);

}  // namespace neon_dotprod
}  // namespace cpuml
