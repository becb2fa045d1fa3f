// The avxvnni tier's table (kernels/registry.h): AVX-VNNI GEMM on 256-bit registers; its fills
// are avx2's (dispatch picks the best tier with fills of its own).
#include "kernels/kernels.h"

#if !defined(__AVXVNNI__) || !defined(__AVX2__) || !defined(__F16C__)
#error "kernels/avxvnni must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace avxvnni {

extern const QGemmKernel kQGemm_s8u4_1x16c8__avxvnni;
extern const QGemmKernel kQGemm_s8u4_4x16c8__avxvnni;
extern const QGemmKernel kQGemm_u8s8_1x16c4__avxvnni;
extern const QGemmKernel kQGemm_u8s8_6x16c4__avxvnni;

// Selection takes the first kernel whose M range holds M: the one-row kernel for M = 1. The 4-bit
// kernels serve only a 4-bit B (SelectQGemmKernel).
CPUML_TIER_TABLE(nullptr, nullptr, &kQGemm_s8u4_1x16c8__avxvnni, &kQGemm_s8u4_4x16c8__avxvnni, &kQGemm_u8s8_1x16c4__avxvnni, &kQGemm_u8s8_6x16c4__avxvnni);

}  // namespace avxvnni
}  // namespace cpuml
