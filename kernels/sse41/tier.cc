// The sse41 tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__SSE4_1__)
#error "kernels/sse41 must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace sse41 {

extern const FillKernels kFillKernels;
extern const QuantizeKernels kQuantizeKernels;
extern const QGemmKernel kQGemm_s8u4_4x8c8__sse41;
extern const QGemmKernel kQGemm_x16_4x8c2__sse41;

// The 4-bit kernel serves only a 4-bit B (SelectQGemmKernel).
CPUML_TIER_TABLE(&kFillKernels, &kQuantizeKernels, &kQGemm_s8u4_4x8c8__sse41, &kQGemm_x16_4x8c2__sse41);

}  // namespace sse41
}  // namespace cpuml
