// The neon_dotprod tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__ARM_FEATURE_DOTPROD)
#error "kernels/neon_dotprod must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace neon_dotprod {

extern const QGemmKernel kQGemm_s8u4_1x16c8__neondot;
extern const QGemmKernel kQGemm_s8u4_4x16c8__neondot;
extern const QGemmKernel kQGemm_s8u4_8x16c8__neondot;
extern const QGemmKernel kQGemm_s8s8_8x8c4__neondot;

// Fills gain nothing from this tier's instructions: the NEON baseline's serve. The 4-bit kernels
// serve only a 4-bit B (SelectQGemmKernel).
CPUML_TIER_TABLE(nullptr, nullptr, &kQGemm_s8u4_1x16c8__neondot, &kQGemm_s8u4_8x16c8__neondot, &kQGemm_s8u4_4x16c8__neondot, &kQGemm_s8s8_8x8c4__neondot);

}  // namespace neon_dotprod
}  // namespace cpuml
