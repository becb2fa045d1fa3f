// DYNAMIC_QUANTIZE_LINEAR's rows (QuantizeKernels in kernels/kernels.h), written once over xsimd
// and instantiated by each SIMD tier's TU, like kernels/fill_xsimd.inl.
//
// Not a header: a tier TU includes it after <xsimd/xsimd.hpp> and after defining
//   CPUML_TIER                     the tier namespace, so every instantiation is the tier's own
//   CPUML_XSIMD_ARCH               the xsimd architecture tag
//   CpuStoreQuantized(p, q)        stores the low byte of every lane of q at p
//   CpuStoreQuantizedSaturated(p, n, offset, flip, streaming)
//                                  stores the four vectors n[0..3] at p, each lane as the byte
//                                  min(max(n + offset, 0), 255) ^ flip (offset in [0, 255]);
//                                  with `streaming`, p is aligned to the bytes stored and the
//                                  store may bypass the caches
//   CpuStreamFence()               orders the streaming stores before later stores (the caller
//                                  runs it once a task, through QuantizeKernels::stream_fence)
//   CpuDivide(x, s)                x / s, correctly rounded (IEEE division: xsimd 8's operator/ on
//                                  neon64 is a reciprocal estimate refined by Newton steps)
//   CpuRoundToNearest(v)           v rounded to an integral float, ties to even
//   CpuMinKeeping(v, acc), CpuMaxKeeping(v, acc)
//                                  the lesser / greater of v and acc, acc where v is NaN (x86
//                                  MINPS / MAXPS with acc second do exactly that in one uop)
//   CpuLaneMin(v), CpuLaneMax(v)   the least / greatest lane of v, which holds no NaN
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
  // The chains hold no NaN, so combining them keeps every lane's value; the lanes then meet in a
  // tree of shuffles, each level's steps independent (a running scalar minimum over them was a
  // chain of dependent compares: on Emerald Rapids half the range pass of a 1024-float call; a
  // scalar tree through memory, a third of the per-row calls' cost on 768-float rows).
  for (int c = 1; c < 4; ++c) {
    lo[0] = CpuMinKeeping(lo[c], lo[0]);
    hi[0] = CpuMaxKeeping(hi[c], hi[0]);
  }
  float result_lo = CpuLaneMin(lo[0]), result_hi = CpuLaneMax(hi[0]);
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

// The quotients x / scale by way of the reciprocal. With r = 1 / scale rounded, q = x * r lies
// within 1.5 * 2^-23 |q| of the correctly rounded x / scale (three roundings of 2^-24 each), which
// is under 2^-14 wherever |q| <= 256. So where q is nearer than 1/2 - 2^-14 to its nearest integer
// n (|q - n| is exact: Sterbenz), the division rounds to n too; beyond +-256 both lie outside the
// bounds, and the bytes' saturation gives qmin or qmax either way. A NaN, an infinity or a
// quotient beyond int32 fails the test (the conversion's INT32_MIN leaves a huge or NaN
// difference), as does every lane when the reciprocal overflows (a scale below 2^-128: q is
// infinite or NaN); and a group with a lane near a half-integer (about one in a hundred groups of
// 64 lanes on random data) divides. Division is the slowest vector instruction of the x86 cores
// measured. NearestOfQuotients rounds four such q to n and returns whether every lane passed.
// (Inlined: called on its own, GCC 12 reports the conversions' undefined pass-through as
// uninitialized, bug 105593.)
__attribute__((always_inline)) inline bool NearestOfQuotients(const QuantizeFloat (&q)[4], QuantizeInt (&n)[4]) {
  const QuantizeInt nearest_limit_bits(xsimd::bitwise_cast<QuantizeInt>(QuantizeFloat(0.5f - 0x1p-14f)));
  // |q - n| as the bits of a non-negative float, which order as integers do: one integer max of
  // the four vectors and one compare test them all. A NaN's bits exceed the limit's.
  QuantizeInt distance[4];
  for (int v = 0; v < 4; ++v) {
    n[v] = xsimd::nearbyint_as_int(q[v]);
    distance[v] = xsimd::bitwise_cast<QuantizeInt>(xsimd::abs(q[v] - xsimd::to_float(n[v])));
  }
  const QuantizeInt farthest = xsimd::max(xsimd::max(distance[0], distance[1]), xsimd::max(distance[2], distance[3]));
  return !xsimd::any(farthest > nearest_limit_bits);
}

// x / s as the division gives it, a NaN quotient 0, clamped to [lo, hi] and rounded to the nearest
// integer, ties to even. The bounds are integers, so clamping before rounding equals clamping after
// it, and the conversion never sees a value outside int32 (an infinite or tiny-scale quotient
// included). (Inlined for the same GCC 12 report as NearestOfQuotients.)
__attribute__((always_inline)) inline QuantizeInt DividedNearest(const QuantizeFloat& x, const QuantizeFloat& s,
                                                                 const QuantizeFloat& lo, const QuantizeFloat& hi) {
  QuantizeFloat v = CpuDivide(x, s);
  v = xsimd::select(xsimd::isnan(v), QuantizeFloat(0.0f), v);  // (v != v is an ordered compare on AVX: false for NaN)
  // No NaN is left, so min and max agree on every architecture.
  v = xsimd::min(xsimd::max(v, lo), hi);
  return xsimd::nearbyint_as_int(v);
}

void QuantizeRow(const float* x, size_t count, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                 uint8_t* dst, const float* prefetch, bool streaming) {
  constexpr size_t kLanes = QuantizeFloat::size;
  const float lo = static_cast<float>(qmin - zero_point), hi = static_cast<float>(qmax - zero_point);
  const QuantizeFloat s(scale), vlo(lo), vhi(hi);
  // The quotient by way of the reciprocal (NearestOfQuotients); the saturating pack is the clamp.
  const QuantizeFloat reciprocal(1.0f / scale);
  const QuantizeInt zp(zero_point);
  // The pack adds zero_point - qmin with unsigned saturation to [0, 255], then flips the sign bit
  // for INT8: clamp(n + zero_point, qmin, qmax) as a byte.
  const int16_t pack_offset = static_cast<int16_t>(zero_point - qmin);
  const uint8_t pack_flip = qmin < 0 ? 0x80 : 0x00;
  size_t i = 0;
  // Streaming stores write whole aligned vectors: the bytes before dst's first boundary take the
  // one-element form (the same operations).
  if (streaming) {
    constexpr size_t kStoreBytes = 4 * kLanes;
    const size_t to_boundary = (kStoreBytes - reinterpret_cast<uintptr_t>(dst) % kStoreBytes) % kStoreBytes;
    const size_t head = to_boundary < count ? to_boundary : count;
    for (; i < head; ++i) dst[i] = QuantizeOne(x[i], scale, lo, hi, zero_point);
  }
  // Four vectors a test and a pack: the branch and the mask test are a good part of a vector's work.
  for (; i + 4 * kLanes <= count; i += 4 * kLanes) {
    // One request a cache line, spread over the loop: a burst of them would wait on the core's
    // few miss buffers.
    if (prefetch)
      for (size_t line = 0; line < 4 * kLanes; line += 16) __builtin_prefetch(prefetch + i + line);
    QuantizeFloat q[4];
    QuantizeInt n[4];
    for (int v = 0; v < 4; ++v) q[v] = QuantizeFloat::load_unaligned(x + i + v * kLanes) * reciprocal;
    if (!NearestOfQuotients(q, n))
      for (int v = 0; v < 4; ++v)
        n[v] = DividedNearest(QuantizeFloat::load_unaligned(x + i + v * kLanes), s, vlo, vhi);
    CpuStoreQuantizedSaturated(dst + i, n, pack_offset, pack_flip, streaming);
  }
  for (; i + kLanes <= count; i += kLanes)
    CpuStoreQuantized(dst + i, DividedNearest(QuantizeFloat::load_unaligned(x + i), s, vlo, vhi) + zp);
  for (; i < count; ++i) dst[i] = QuantizeOne(x[i], scale, lo, hi, zero_point);
}

// Symmetric INT8 by blocks (QuantizeKernels::quantize_symmetric_blocks), with none of the per-call
// setup of MinMaxRow and QuantizeRow, which cost more than the work on blocks of 32 (AMD EPYC Zen 5,
// one thread, 64 MiB in blocks of 32 through them: 4.5 GB/s). Every block's scale first, then the
// bytes: a block's range, its scale and its quotients form one chain of dependent steps, and
// independent blocks overlap. The bytes are QuantizeRow's with zero point 0 and bounds -128, 127,
// and so is the quotient: by the reciprocal where that provably rounds as the division does.
void QuantizeSymmetricBlocksUpTo64(const float* x, size_t count, size_t block, float* scales, uint8_t* dst) {
  constexpr size_t kLanes = QuantizeFloat::size;
  const QuantizeFloat zero(0.0f), vlo(-128.0f), vhi(127.0f);
  const size_t blocks = (count + block - 1) / block;
  alignas(64) float amaxes[64], reciprocals[64];
  for (size_t b = 0; b < blocks; ++b) {
    const size_t begin = b * block, n = block < count - begin ? block : count - begin, whole = n / kLanes * kLanes;
    // |x| is at least +0, so the lanes start from +0 and an all-NaN or all-zero block gives +0.
    QuantizeFloat greatest = zero;
    for (size_t i = 0; i < whole; i += kLanes)
      greatest = CpuMaxKeeping(xsimd::abs(QuantizeFloat::load_unaligned(x + begin + i)), greatest);
    float amax = CpuLaneMax(greatest);
    for (size_t i = begin + whole; i < begin + n; ++i)
      if (fabsf(x[i]) > amax) amax = fabsf(x[i]);
    amaxes[b] = amax;
  }
  // The scales and their reciprocals a vector of blocks at a time: IEEE divisions, each lane the
  // scalar one's bits.
  size_t b = 0;
  for (; b + kLanes <= blocks; b += kLanes) {
    const QuantizeFloat scale = CpuDivide(QuantizeFloat::load_aligned(amaxes + b), QuantizeFloat(127.0f));
    scale.store_unaligned(scales + b);
    CpuDivide(QuantizeFloat(1.0f), scale).store_aligned(reciprocals + b);
  }
  for (; b < blocks; ++b) {
    scales[b] = amaxes[b] / 127.0f;
    reciprocals[b] = 1.0f / scales[b];
  }
  auto divided = [&](const QuantizeFloat& in, size_t b) { return DividedNearest(in, QuantizeFloat(scales[b]), vlo, vhi); };
  // The bytes as QuantizeRow's main loop makes them, by the reciprocal of each vector's block
  // (blocks are whole vectors): four vectors a test and a saturating pack, offset 128 and the sign
  // bit flipped for INT8. NearestOfQuotients' argument holds for every scale, zero and subnormal
  // included.
  // The block of the vector at `at`, for `at` rising a vector at a time (a block is at least one).
  size_t vector_block = 0, block_end = block;
  auto block_of = [&](size_t at) {
    if (at >= block_end) {
      ++vector_block;
      block_end += block;
    }
    return vector_block;
  };
  size_t i = 0;
  for (; i + 4 * kLanes <= count; i += 4 * kLanes) {
    QuantizeFloat q[4];
    QuantizeInt n[4];
    for (int v = 0; v < 4; ++v)
      q[v] = QuantizeFloat::load_unaligned(x + i + v * kLanes) * QuantizeFloat(reciprocals[block_of(i + v * kLanes)]);
    if (!NearestOfQuotients(q, n))
      for (int v = 0; v < 4; ++v) {
        const size_t at = i + v * kLanes;
        n[v] = divided(QuantizeFloat::load_unaligned(x + at), at / block);
      }
    CpuStoreQuantizedSaturated(dst + i, n, 128, 0x80, false);
  }
  for (; i + kLanes <= count; i += kLanes) CpuStoreQuantized(dst + i, divided(QuantizeFloat::load_unaligned(x + i), i / block));
  for (; i < count; ++i) dst[i] = QuantizeOne(x[i], scales[i / block], -128.0f, 127.0f, 0);
}

void QuantizeSymmetricBlocks(const float* x, size_t count, size_t block, float* scales, uint8_t* dst) {
  for (size_t begin = 0; begin < count; begin += 64 * block, scales += 64) {
    const size_t n = 64 * block < count - begin ? 64 * block : count - begin;
    QuantizeSymmetricBlocksUpTo64(x + begin, n, block, scales, dst + begin);
  }
}

}  // namespace

extern const QuantizeKernels kQuantizeKernels;
const QuantizeKernels kQuantizeKernels = {MinMaxRow, QuantizeRow, CpuStreamFence, QuantizeSymmetricBlocks};

}  // namespace CPUML_TIER
}  // namespace cpuml
