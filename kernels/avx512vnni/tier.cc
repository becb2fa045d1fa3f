// The avx512vnni tier's table (kernels/registry.h).
#include "kernels/kernels.h"

#if !defined(__AVX512VNNI__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__F16C__)
#error "kernels/avx512vnni must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace avx512vnni {

extern const FillKernels kFillKernels;
extern const QuantizeKernels kQuantizeKernels;
extern const QGemmKernel kQGemm_s8u4_1x64c8_pfl1__avx512vnni;
extern const QGemmKernel kQGemm_s8u4_4x64c8__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_1x32c4_pfl1__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_4x32c4__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_12x32c4__avx512vnni;

// Selection takes the first kernel whose M range holds M: the one-row kernel for M = 1, the
// four-row one for M = 2..4. The 4-bit kernels serve only a 4-bit B (SelectQGemmKernel).
CPUML_TIER_TABLE(&kFillKernels, &kQuantizeKernels, &kQGemm_s8u4_1x64c8_pfl1__avx512vnni, &kQGemm_s8u4_4x64c8__avx512vnni,
                 &kQGemm_u8s8_1x32c4_pfl1__avx512vnni, &kQGemm_u8s8_4x32c4__avx512vnni,
                 &kQGemm_u8s8_12x32c4__avx512vnni);

}  // namespace avx512vnni
}  // namespace cpuml
