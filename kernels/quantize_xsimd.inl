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
                 uint8_t* dst, const float* prefetch) {
  constexpr size_t kLanes = QuantizeFloat::size;
  // The bounds are integers, so clamping before rounding equals clamping after it, and the
  // conversion never sees a value outside int32 (an infinite or tiny-scale quotient included).
  const float lo = static_cast<float>(qmin - zero_point), hi = static_cast<float>(qmax - zero_point);
  const QuantizeFloat s(scale), vlo(lo), vhi(hi), zero(0.0f);
  // The quotient by way of the reciprocal, bracketed. With r = 1 / scale rounded, q = x * r is
  // within 2^-23 |x / scale| (two roundings) of the exact quotient, and the correctly rounded
  // x / scale within 2^-24 of it; so q * (1 - 2^-20) and q * (1 + 2^-20), each rounded once more,
  // lie on either side of x / scale as division rounds it. Rounding to nearest even never
  // decreases, so where both ends round to the same integer, so does the division. A lane whose
  // ends differ (a half-integer between them: about one vector in a hundred on random data) or
  // are NaN sends its vector to the division itself, and the bytes are the division's everywhere.
  // Division is the slowest vector instruction of the x86 cores measured. A reciprocal that
  // overflows (a scale below 2^-128) has no such bound: such a row divides throughout.
  const float reciprocal_value = 1.0f / scale;
  const bool bracketed = reciprocal_value <= 0x1.fffffep127f;  // finite (NaN fails too)
  const QuantizeFloat reciprocal(reciprocal_value), above(1.0f + 0x1p-20f), below(1.0f - 0x1p-20f);
  const QuantizeInt zp(zero_point);
  // The clamp and the bytes of a vector whose value v is settled (integral, or the quotient).
  auto store = [&](QuantizeFloat v, uint8_t* out) {
    // No NaN is left, so min and max agree on every architecture.
    v = xsimd::min(xsimd::max(v, vlo), vhi);
    CpuStoreQuantized(out, xsimd::nearbyint_as_int(v) + zp);
  };
  auto divide = [&](const QuantizeFloat& in) {
    const QuantizeFloat v = CpuDivide(in, s);
    return xsimd::select(xsimd::isnan(v), zero, v);  // (v != v is an ordered compare on AVX: false for NaN)
  };
  size_t i = 0;
  // Two vectors a check: the branch and the mask test are a good part of a vector's work.
  for (; bracketed && i + 2 * kLanes <= count; i += 2 * kLanes) {
    // One request a cache line, spread over the loop: a burst of them would wait on the core's
    // few miss buffers.
    if (prefetch && i % 16 == 0)
      for (size_t line = 0; line < 2 * kLanes; line += 16) __builtin_prefetch(prefetch + i + line);
    const QuantizeFloat in0 = QuantizeFloat::load_unaligned(x + i), in1 = QuantizeFloat::load_unaligned(x + i + kLanes);
    const QuantizeFloat q0 = in0 * reciprocal, q1 = in1 * reciprocal;
    QuantizeFloat v0 = CpuRoundToNearest(q0 * above), v1 = CpuRoundToNearest(q1 * above);
    // == is false where the ends differ or either is NaN (an ordered compare on every tier).
    if (!xsimd::all((v0 == CpuRoundToNearest(q0 * below)) & (v1 == CpuRoundToNearest(q1 * below)))) {
      v0 = divide(in0);
      v1 = divide(in1);
    }
    store(v0, dst + i);
    store(v1, dst + i + kLanes);
  }
  for (; i + kLanes <= count; i += kLanes) store(divide(QuantizeFloat::load_unaligned(x + i)), dst + i);
  for (; i < count; ++i) dst[i] = QuantizeOne(x[i], scale, lo, hi, zero_point);
}

}  // namespace

extern const QuantizeKernels kQuantizeKernels;
const QuantizeKernels kQuantizeKernels = {MinMaxRow, QuantizeRow};

}  // namespace CPUML_TIER
}  // namespace cpuml
