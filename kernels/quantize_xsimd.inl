// DYNAMIC_QUANTIZE_LINEAR's rows (QuantizeKernels in kernels/kernels.h), written once over xsimd
// and instantiated by each SIMD tier's TU, like kernels/fill_xsimd.inl.
//
// Not a header: a tier TU includes it after <xsimd/xsimd.hpp> and after defining
//   CPUML_TIER                     the tier namespace, so every instantiation is the tier's own
//   CPUML_XSIMD_ARCH               the xsimd architecture tag
//   CpuStoreQuantized(p, q)        stores the low byte of every lane of q at p
//   CpuDivide(x, s)                x / s, correctly rounded (IEEE division: xsimd 8's operator/ on
//                                  neon64 is a reciprocal estimate refined by Newton steps)
//   CpuRoundToNearest(v)           v rounded to an integral float, ties to even
//   CpuMinKeeping(v, acc), CpuMaxKeeping(v, acc)
//                                  the lesser / greater of v and acc, acc where v is NaN (x86
//                                  MINPS / MAXPS with acc second do exactly that in one uop)
// It defines cpuml::CPUML_TIER::kQuantizeKernels. Every step is exact or element-wise: min and
// max give the same answer in any order, and division, the clamp and rounding to nearest even
// are IEEE operations that every tier performs alike, so the bytes match the scalar tier's.

namespace cpuml {
namespace CPUML_TIER {
namespace {

using QuantizeFloat = xsimd::batch<float, CPUML_XSIMD_ARCH>;
using QuantizeInt = xsimd::batch<int32_t, CPUML_XSIMD_ARCH>;

// Comparisons with a NaN are false, so a NaN element leaves the range as it was.
void MinMaxRow(const float* x, size_t count, float* min_out, float* max_out) {
  constexpr size_t kLanes = QuantizeFloat::size;
  // Four independent chains: the loop is bound by loads, not by the compare-and-blend latency.
  QuantizeFloat lo[4], hi[4];
  for (int c = 0; c < 4; ++c) {
    lo[c] = QuantizeFloat(*min_out);
    hi[c] = QuantizeFloat(*max_out);
  }
  size_t i = 0;
  for (; i + 4 * kLanes <= count; i += 4 * kLanes)
    for (int c = 0; c < 4; ++c) {
      const QuantizeFloat v = QuantizeFloat::load_unaligned(x + i + c * kLanes);
      lo[c] = CpuMinKeeping(v, lo[c]);
      hi[c] = CpuMaxKeeping(v, hi[c]);
    }
  for (; i + kLanes <= count; i += kLanes) {
    const QuantizeFloat v = QuantizeFloat::load_unaligned(x + i);
    lo[0] = CpuMinKeeping(v, lo[0]);
    hi[0] = CpuMaxKeeping(v, hi[0]);
  }
  alignas(64) float lanes_lo[4 * kLanes], lanes_hi[4 * kLanes];
  for (int c = 0; c < 4; ++c) {
    lo[c].store_aligned(lanes_lo + c * kLanes);
    hi[c].store_aligned(lanes_hi + c * kLanes);
  }
  float result_lo = *min_out, result_hi = *max_out;
  for (size_t j = 0; j < 4 * kLanes; ++j) {
    if (lanes_lo[j] < result_lo) result_lo = lanes_lo[j];
    if (lanes_hi[j] > result_hi) result_hi = lanes_hi[j];
  }
  for (; i < count; ++i) {
    if (x[i] < result_lo) result_lo = x[i];
    if (x[i] > result_hi) result_hi = x[i];
  }
  *min_out = result_lo;
  *max_out = result_hi;
}

// The scalar form of one element, for the row's tail: the same operations as the lanes'.
inline uint8_t QuantizeOne(float x, float scale, float lo, float hi, int32_t zero_point) {
  float v = x / scale;
  if (v != v) v = 0.0f;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return static_cast<uint8_t>(static_cast<int32_t>(nearbyintf(v)) + zero_point);
}

void QuantizeRow(const float* x, size_t count, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                 uint8_t* dst) {
  constexpr size_t kLanes = QuantizeFloat::size;
  // The bounds are integers, so clamping before rounding equals clamping after it, and the
  // conversion never sees a value outside int32 (an infinite or tiny-scale quotient included).
  const float lo = static_cast<float>(qmin - zero_point), hi = static_cast<float>(qmax - zero_point);
  const QuantizeFloat s(scale), vlo(lo), vhi(hi), zero(0.0f), half(0.5f), margin(0x1p-11f);
  // The quotient by way of the reciprocal: x * (1 / scale) is within 2^-22.4 |x / scale| of the
  // correctly rounded x / scale, so the two round to the same integer unless a half-integer (a
  // rounding boundary) lies that close. Only |q| < 512 matters (beyond, both clamp alike), so a
  // lane within 2^-11 of a half-integer (2^-20 of 512) sends its vector to the division, and the
  // bytes are the division's everywhere; random data divides about one vector in a hundred.
  // Division is the slowest vector instruction of the x86 cores measured.
  const QuantizeFloat reciprocal(1.0f / scale);
  const QuantizeInt zp(zero_point);
  size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    const QuantizeFloat in = QuantizeFloat::load_unaligned(x + i);
    QuantizeFloat v = in * reciprocal;
    const QuantizeFloat off_boundary = xsimd::abs(xsimd::abs(v - CpuRoundToNearest(v)) - half);
    if (xsimd::any(off_boundary <= margin)) v = CpuDivide(in, s);
    v = xsimd::select(xsimd::isnan(v), zero, v);  // (v != v is an ordered compare on AVX: false for NaN)
    // No NaN is left, so min and max agree on every architecture.
    v = xsimd::min(xsimd::max(v, vlo), vhi);
    CpuStoreQuantized(dst + i, xsimd::nearbyint_as_int(v) + zp);
  }
  for (; i < count; ++i) dst[i] = QuantizeOne(x[i], scale, lo, hi, zero_point);
}

}  // namespace

extern const QuantizeKernels kQuantizeKernels;
const QuantizeKernels kQuantizeKernels = {MinMaxRow, QuantizeRow};

}  // namespace CPUML_TIER
}  // namespace cpuml
