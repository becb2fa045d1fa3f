// The avx2 tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__AVX2__) || !defined(__F16C__)
#error "kernels/avx2 must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace avx2 {

extern const FillKernels kFillKernels;
extern const QuantizeKernels kQuantizeKernels;
extern const QGemmKernel kQGemm_s8u4_1x16c8__avx2;
extern const QGemmKernel kQGemm_s8u4_4x16c8__avx2;
extern const QGemmKernel kQGemm_u8s8_1x16c4__avx2;
extern const QGemmKernel kQGemm_u8s8_2x16c4__avx2;
extern const QGemmKernel kQGemm_u8s7_6x16c4__avx2;
extern const QGemmKernel kQGemm_x16_6x16c2__avx2;

// Selection takes the first kernel whose M range holds M and whose B condition the operator has
// checked: the one-row kernel for M = 1, the two-row one for M = 2, the 7-bit-B kernel for an
// owned B that fits it. The 4-bit kernels serve only a 4-bit B (SelectQGemmKernel).
CPUML_TIER_TABLE(&kFillKernels, &kQuantizeKernels, &kQGemm_s8u4_1x16c8__avx2, &kQGemm_s8u4_4x16c8__avx2, &kQGemm_u8s8_1x16c4__avx2, &kQGemm_u8s8_2x16c4__avx2, &kQGemm_u8s7_6x16c4__avx2,
                 &kQGemm_x16_6x16c2__avx2);

}  // namespace avx2
}  // namespace cpuml
