// The neon tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__ARM_NEON)
#error "kernels/neon must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace neon {

extern const FillKernels kFillKernels;
extern const QuantizeKernels kQuantizeKernels;
extern const QGemmKernel kQGemm_s8u4_2x8c8__neon;
extern const QGemmKernel kQGemm_s8sym_2x8c16__neon;
extern const QGemmKernel kQGemm_s8s8_2x8c16__neon;

// The 4-bit kernel for a 4-bit B (SelectQGemmKernel); the s8sym kernel for an owned B without
// -128 (initialize checks), else the exact s8s8 one.
CPUML_TIER_TABLE(&kFillKernels, &kQuantizeKernels, &kQGemm_s8u4_2x8c8__neon, &kQGemm_s8sym_2x8c16__neon,
                 &kQGemm_s8s8_2x8c16__neon);

}  // namespace neon
}  // namespace cpuml
