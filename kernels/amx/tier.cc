// The amx tier's table (kernels/registry.h).
#include "kernels/kernels.h"

// GCC names the AMX macros __AMX_TILE__ / __AMX_INT8__, clang __AMXTILE__ / __AMXINT8__.
#if !(defined(__AMX_TILE__) || defined(__AMXTILE__)) || !(defined(__AMX_INT8__) || defined(__AMXINT8__)) || \
    !defined(__AVX512VNNI__) || !defined(__AVX512BW__) || !defined(__GFNI__)
#error "kernels/amx must be compiled with its ISA flags (cmake/CpumlTiers.cmake)"
#endif

namespace cpuml {
namespace avx512vnni {
extern const QGemmKernel kQGemm_s8u4_1x64c8_pfl2__avx512vnni;
extern const QGemmKernel kQGemm_s8u4_4x64c8__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_1x32c4_pfl1__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_12x32c4__avx512vnni;
extern const QGemmKernel kQGemm_u8s8_4x32c4__avx512vnni;
}
namespace amx {

extern const QGemmKernel kQGemm_u8s8_32x32c64__amx;
extern const QGemmKernel kQGemm_s8u4_32x32c8__amx;

// Every AMX CPU has AVX-512 VNNI: its kernels serve the few-row shapes (M = 1, the one-row kernel
// that prefetches for Intel server cores; M = 2..4, the four-row kernel, which ran 2-8% ahead of
// the tile kernel there on Emerald Rapids), and its fills (the avx512vnni tier's) serve this tier.
// Its 4-bit kernels serve a 4-bit B (SelectQGemmKernel) below 16 rows (one row of 64 columns,
// which requests B into L2 at blocks of 128 and more and into L1 below; four rows of 64), the tile
// unit's from there.
CPUML_TIER_TABLE(nullptr, nullptr, &avx512vnni::kQGemm_s8u4_1x64c8_pfl2__avx512vnni, &kQGemm_s8u4_32x32c8__amx,
                 &avx512vnni::kQGemm_s8u4_4x64c8__avx512vnni, &avx512vnni::kQGemm_u8s8_1x32c4_pfl1__avx512vnni, &avx512vnni::kQGemm_u8s8_4x32c4__avx512vnni,
                 &kQGemm_u8s8_32x32c64__amx,
                 &avx512vnni::kQGemm_u8s8_12x32c4__avx512vnni);

}  // namespace amx
}  // namespace cpuml
