// The neon_i8mm tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__ARM_FEATURE_MATMUL_INT8)
#error "kernels/neon_i8mm must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace neon_dotprod {
extern const QGemmKernel kQGemm_s8u4_1x16c8__neondot;
extern const QGemmKernel kQGemm_s8u4_4x16c8__neondot;
extern const QGemmKernel kQGemm_s8u4_8x16c8__neondot;
}
namespace neon_i8mm {

extern const QGemmKernel kQGemm_s8s8_8x8c8__neoni8mm;

// Fills gain nothing from this tier's instructions: the NEON baseline's serve. Every i8mm CPU has
// the dot product: its 4-bit kernels serve a 4-bit B (SelectQGemmKernel).
CPUML_TIER_TABLE(nullptr, nullptr, &neon_dotprod::kQGemm_s8u4_1x16c8__neondot, &neon_dotprod::kQGemm_s8u4_8x16c8__neondot,
                 &neon_dotprod::kQGemm_s8u4_4x16c8__neondot,
                 &kQGemm_s8s8_8x8c8__neoni8mm);

}  // namespace neon_i8mm
}  // namespace cpuml
