// The x86 tiers' float helpers for kernels/quantize_xsimd.inl: included by each x86 quantize TU
// after it defines CPUML_TIER and CPUML_XSIMD_ARCH, so every copy lives in that tier's namespace
// and is compiled with its flags only (the NEON TU defines its own).
#include <immintrin.h>

#include <xsimd/xsimd.hpp>

namespace cpuml {
namespace CPUML_TIER {
namespace {

using X86Float = xsimd::batch<float, CPUML_XSIMD_ARCH>;

// Non-temporal stores are weakly ordered: this orders them before the stores that publish the
// work as done (a thread pool's release store does not, on x86).
inline void CpuStreamFence() { _mm_sfence(); }

inline X86Float CpuDivide(const X86Float& x, const X86Float& s) { return x / s; }  // divps: IEEE division

inline X86Float CpuRoundToNearest(const X86Float& v) { return xsimd::nearbyint(v); }  // roundps, to nearest even

// MINPS and MAXPS with v first: the second operand where either is NaN. (xsimd's min and max are
// these; on AVX-512 the masked forms with every lane set, because GCC 12 reports the unmasked
// intrinsics' undefined pass-through as uninitialized, GCC bug 105593.)
#ifdef __AVX512F__
inline X86Float CpuMinKeeping(const X86Float& v, const X86Float& acc) { return _mm512_mask_min_ps(acc, 0xFFFF, v, acc); }
inline X86Float CpuMaxKeeping(const X86Float& v, const X86Float& acc) { return _mm512_mask_max_ps(acc, 0xFFFF, v, acc); }
#else
inline X86Float CpuMinKeeping(const X86Float& v, const X86Float& acc) { return xsimd::min(v, acc); }
inline X86Float CpuMaxKeeping(const X86Float& v, const X86Float& acc) { return xsimd::max(v, acc); }
#endif

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
