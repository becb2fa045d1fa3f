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

// The least / greatest lane of v, which holds no NaN: the halves meet in a tree of MINPS / MAXPS.
// (The 512-bit halves through the zero-masking extracts: GCC 12 reports the plain extracts' and
// casts' undefined pass-through as uninitialized, bug 105593.)
#if defined(__AVX512F__)
#define CPUML_LANE_REDUCE(op)                                                                                      \
  const __m256 half = _mm256_##op##_ps(_mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, _mm512_castps_pd(v), 0)), \
                                       _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, _mm512_castps_pd(v), 1))); \
  __m128 m = _mm_##op##_ps(_mm256_castps256_ps128(half), _mm256_extractf128_ps(half, 1));                          \
  m = _mm_##op##_ps(m, _mm_movehl_ps(m, m));                                                                       \
  return _mm_cvtss_f32(_mm_##op##_ss(m, _mm_shuffle_ps(m, m, 1)))
#elif defined(__AVX__)
#define CPUML_LANE_REDUCE(op)                                                                                      \
  __m128 m = _mm_##op##_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));                                \
  m = _mm_##op##_ps(m, _mm_movehl_ps(m, m));                                                                       \
  return _mm_cvtss_f32(_mm_##op##_ss(m, _mm_shuffle_ps(m, m, 1)))
#else
#define CPUML_LANE_REDUCE(op)                                                                                      \
  const __m128 m = _mm_##op##_ps(v, _mm_movehl_ps(v, v));                                                          \
  return _mm_cvtss_f32(_mm_##op##_ss(m, _mm_shuffle_ps(m, m, 1)))
#endif
inline float CpuLaneMin(const X86Float& v) { CPUML_LANE_REDUCE(min); }
inline float CpuLaneMax(const X86Float& v) { CPUML_LANE_REDUCE(max); }
#undef CPUML_LANE_REDUCE

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
