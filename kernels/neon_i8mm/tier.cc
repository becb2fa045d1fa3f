// The neon_i8mm tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__ARM_FEATURE_MATMUL_INT8)
#error "kernels/neon_i8mm must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace neon_i8mm {

extern const QGemmKernel kQGemm_s8s8_8x8c8__neoni8mm;

// Fills gain nothing from this tier's instructions: the NEON baseline's serve.
CPUML_TIER_TABLE(nullptr, nullptr, &kQGemm_s8s8_8x8c8__neoni8mm);

}  // namespace neon_i8mm
}  // namespace cpuml
