// The vectorized fills, written once over xsimd and instantiated by each SIMD tier's TU.
//
// Not a header: a tier TU includes it after <xsimd/xsimd.hpp> and after defining
//   CPUML_TIER              the tier namespace (sse41, avx2, ...), so every instantiation is the
//                           tier's own symbol and none is shared with a lower tier
//   CPUML_XSIMD_ARCH        the xsimd architecture tag
//   CpuStreamStore(p, b)    a non-temporal store of one batch at a vector-aligned address
//   CpuStreamFence()        orders those stores before the call returns
//   CpuFloatToHalf(p, b)    stores batch<float> as binary16 (round to nearest even)
//   CpuStreamFloatToHalf(p, b)  the same as a non-temporal store where the tier has one, at an
//                           address aligned to the halves' width
// It defines cpuml::CPUML_TIER::kFillKernels.

namespace cpuml {
namespace CPUML_TIER {
namespace {

using Arch = CPUML_XSIMD_ARCH;
template <class T> using Vec = xsimd::batch<T, Arch>;

// Storage type of each data type: fills move bits, so float patterns travel as integers.
template <CPUML_TENSOR_DATA_TYPE kType> struct Storage;
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_FLOAT32> { using Bits = uint32_t; };
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_FLOAT16> { using Bits = uint16_t; };
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_UINT32> { using Bits = uint32_t; };
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_UINT16> { using Bits = uint16_t; };
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_UINT8> { using Bits = uint8_t; };
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_INT32> { using Bits = uint32_t; };
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_INT16> { using Bits = uint16_t; };
template <> struct Storage<CPUML_TENSOR_DATA_TYPE_INT8> { using Bits = uint8_t; };

constexpr size_t kVectorBytes = Vec<uint8_t>::size;

// Writes `count` contiguous elements produced by `next()` (one batch per call), choosing
// non-temporal stores when asked. Elements before the first aligned address and after the last
// whole batch come from `scalar_at(j)`.
// Functors here are taken and captured by value: vector stores go through may-alias types, so
// state reached through a reference would be reloaded after every store, chaining the loop on
// store forwarding (it held FLOAT16 sequences to a third of FLOAT32's speed).
template <class Bits, class NextBatch, class ScalarAt>
void WriteContiguous(Bits* dst, size_t count, bool streaming, NextBatch next, ScalarAt scalar_at) {
  constexpr size_t kLanes = kVectorBytes / sizeof(Bits);
  size_t j = 0;
  if (streaming) {
    const size_t misalign = reinterpret_cast<uintptr_t>(dst) % kVectorBytes;
    size_t head = misalign ? (kVectorBytes - misalign) / sizeof(Bits) : 0;
    if (head > count) head = count;
    for (; j < head; ++j) dst[j] = scalar_at(j);
    for (; j + kLanes <= count; j += kLanes) CpuStreamStore(dst + j, next(j));
    CpuStreamFence();
  } else {
    for (; j + 4 * kLanes <= count; j += 4 * kLanes) {
      next(j).store_unaligned(dst + j);
      next(j + kLanes).store_unaligned(dst + j + kLanes);
      next(j + 2 * kLanes).store_unaligned(dst + j + 2 * kLanes);
      next(j + 3 * kLanes).store_unaligned(dst + j + 3 * kLanes);
    }
    for (; j + kLanes <= count; j += kLanes) next(j).store_unaligned(dst + j);
  }
  for (; j < count; ++j) dst[j] = scalar_at(j);
}

template <CPUML_TENSOR_DATA_TYPE kType>
void FillConstantRow(void* out, size_t count, size_t stride, CPUML_SCALAR_UNION value, bool streaming) {
  using Bits = typename Storage<kType>::Bits;
  Bits pattern;
  memcpy(&pattern, value.Bytes, sizeof pattern);
  Bits* dst = static_cast<Bits*>(out);
  if (stride != 1) {
    for (size_t j = 0; j < count; ++j) dst[j * stride] = pattern;
    return;
  }
  const Vec<Bits> splat(pattern);
  WriteContiguous(dst, count, streaming, [splat](size_t) { return splat; }, [pattern](size_t) { return pattern; });
}

// Integer sequences: modulo 2^bits, so a running vector sum equals start + i * delta.
template <CPUML_TENSOR_DATA_TYPE kType>
void FillIntegerSequenceRow(void* out, size_t count, size_t stride, uint64_t first_index, CPUML_SCALAR_UNION start,
                            CPUML_SCALAR_UNION delta, bool streaming) {
  using Bits = typename Storage<kType>::Bits;
  constexpr size_t kLanes = Vec<Bits>::size;
  const Bits step = static_cast<Bits>(delta.UInt64);
  const Bits first = static_cast<Bits>(start.UInt64 + first_index * delta.UInt64);
  Bits* dst = static_cast<Bits*>(out);
  // 64-bit unsigned arithmetic: narrow types would promote to int and could overflow.
  auto scalar_at = [first, step](size_t j) { return static_cast<Bits>(uint64_t{first} + uint64_t{j} * step); };
  if (stride != 1) {
    for (size_t j = 0; j < count; ++j) dst[j * stride] = scalar_at(j);
    return;
  }
  alignas(64) Bits lanes[kLanes];
  for (size_t l = 0; l < kLanes; ++l) lanes[l] = static_cast<Bits>(uint64_t{l} * step);
  const Vec<Bits> lane_offsets = Vec<Bits>::load_aligned(lanes);
  // WriteContiguous asks for the batches in order, kLanes elements apart, from wherever its
  // aligned or peeled start is: the first one comes from j, each later one is the previous plus
  // kLanes steps (modulo 2^bits like every element), one vector add instead of a scalar
  // multiply-add and a broadcast per batch.
  const Vec<Bits> batch_step(static_cast<Bits>(uint64_t{kLanes} * step));
  auto next = [scalar_at, lane_offsets, batch_step, current = lane_offsets, started = false](size_t j) mutable {
    current = started ? current + batch_step : Vec<Bits>(scalar_at(j)) + lane_offsets;
    started = true;
    return current;
  };
  WriteContiguous(dst, count, streaming, next, scalar_at);
}

// float(i) is exact per lane through int32 up to 2^31; beyond that (8 GiB of float32 in one
// row) the scalar tail below handles it, with the same conversion the reference uses.
constexpr uint64_t kVectorIndexLimit = uint64_t{1} << 31;
// Below 2^24 every integer is a float and so is every sum of two of them: float(i) is carried
// by adding kLanes in float, which saves the int-to-float conversion (the costly step on cores
// that split 512-bit conversions, where it left FLOAT16 rows at a third of FLOAT32's speed).
constexpr uint64_t kExactFloatIndexLimit = uint64_t{1} << 24;

// product * one + start as one fused operation on x86 tiers with FMA3 (the same value as
// product + start when one is 1), else the plain add. Not on Arm: fmla accumulates into its
// destination, so every use would cost a register copy of start, more than the add it replaces.
// (A template, so the branches for other register widths are never instantiated.)
template <class Batch>
Batch AddOnMultiplyPipes(const Batch& product, const Batch& one, const Batch& start) {
  using Register [[maybe_unused]] = typename Batch::register_type;
#if defined(__AVX512F__)
  if constexpr (sizeof(Register) == 64) return _mm512_fmadd_ps(Register(product), Register(one), Register(start));
#endif
#if defined(__FMA__)
  if constexpr (sizeof(Register) == 32) return _mm256_fmadd_ps(Register(product), Register(one), Register(start));
#endif
  (void)one;
  return product + start;
}

// kIndexAddsOnMultiplyPipes of the four index vectors advance by an fma with the opaque 1 instead
// of an add (exact either way below 2^24). FLOAT16 rows, whose vcvtps2ph shares the add pipes on
// Zen 4, move one of four (256 KiB: 36.5 -> 40-41 GB/s; two 39-40, three 37, four 35.5); FLOAT32
// rows, bound by the multiply pipes and the stores, keep every advance on the add pipes.
template <size_t kIndexAddsOnMultiplyPipes, class Store, class ScalarStore>
void FloatSequence(size_t count, uint64_t first_index, float start, float delta, Store store_batch,
                   ScalarStore store_scalar) {
  constexpr size_t kLanes = Vec<float>::size;
  alignas(64) int32_t lanes[kLanes];
  for (size_t l = 0; l < kLanes; ++l) lanes[l] = static_cast<int32_t>(l);
  const Vec<int32_t> lane_index = Vec<int32_t>::load_aligned(lanes);
  const Vec<float> vstart(start), vdelta(delta);
  size_t j = 0;
  if (first_index < kExactFloatIndexLimit) {
    const uint64_t exact_end = kExactFloatIndexLimit - first_index;
    // Four independent index vectors: one would chain every iteration on vaddps's latency.
    Vec<float> index[4];
    for (size_t u = 0; u < 4; ++u)
      index[u] = xsimd::to_float(Vec<int32_t>(static_cast<int32_t>(first_index + u * kLanes)) + lane_index);
    const Vec<float> step(static_cast<float>(4 * kLanes));
    // fma(p, 1, start) rounds p + start once, exactly as the add does, but issues on the multiply
    // pipes: Zen 4 runs adds and vcvtps2ph on the same two pipes, and FLOAT16 rows were bound by
    // them. The 1 is opaque so the compiler cannot fold the fma back into an add.
    volatile float opaque_one = 1.0f;
    const Vec<float> one(opaque_one);
    auto add_start = [one, vstart](const Vec<float>& product) { return AddOnMultiplyPipes(product, one, vstart); };
    for (; j + 4 * kLanes <= count && j + 4 * kLanes <= exact_end; j += 4 * kLanes) {
#pragma GCC unroll 4
      for (size_t u = 0; u < 4; ++u) {
        store_batch(j + u * kLanes, add_start(index[u] * vdelta));  // two roundings, as the reference
        index[u] = u < kIndexAddsOnMultiplyPipes ? AddOnMultiplyPipes(step, one, index[u]) : index[u] + step;
      }
    }
  }
  if (first_index + j < kVectorIndexLimit) {
    const uint64_t vector_end = kVectorIndexLimit - first_index;
    for (; j + kLanes <= count && j + kLanes <= vector_end; j += kLanes) {
      const Vec<int32_t> index = Vec<int32_t>(static_cast<int32_t>(first_index + j)) + lane_index;
      // Two roundings, multiply then add, exactly as the reference (no FMA: -ffp-contract=off).
      const Vec<float> product = xsimd::to_float(index) * vdelta;
      store_batch(j, product + vstart);
    }
  }
  for (; j < count; ++j) store_scalar(j, start + static_cast<float>(first_index + j) * delta);
}

void FillFloat32SequenceRow(void* out, size_t count, size_t stride, uint64_t first_index, CPUML_SCALAR_UNION start,
                            CPUML_SCALAR_UNION delta, bool streaming) {
  float* dst = static_cast<float*>(out);
  if (stride != 1) {
    for (size_t j = 0; j < count; ++j) dst[j * stride] = start.Float32 + static_cast<float>(first_index + j) * delta.Float32;
    return;
  }
  constexpr size_t kLanes = Vec<float>::size;
  size_t head = 0;
  if (streaming) {
    const size_t misalign = reinterpret_cast<uintptr_t>(dst) % kVectorBytes;
    head = misalign ? (kVectorBytes - misalign) / sizeof(float) : 0;
    if (head > count) head = count;
    for (size_t j = 0; j < head; ++j) dst[j] = start.Float32 + static_cast<float>(first_index + j) * delta.Float32;
  }
  float* body = dst + head;
  const size_t body_count = count - head;
  auto store_scalar = [body](size_t j, float v) { body[j] = v; };
  if (streaming) {
    const size_t whole = body_count / kLanes * kLanes;
    FloatSequence<0>(whole, first_index + head, start.Float32, delta.Float32,
                  [body](size_t j, const Vec<float>& v) { CpuStreamStore(body + j, v); }, store_scalar);
    CpuStreamFence();
    for (size_t j = whole; j < body_count; ++j)
      body[j] = start.Float32 + static_cast<float>(first_index + head + j) * delta.Float32;
  } else {
    FloatSequence<0>(body_count, first_index + head, start.Float32, delta.Float32,
                  [body](size_t j, const Vec<float>& v) { v.store_unaligned(body + j); }, store_scalar);
  }
}

void FillFloat16SequenceRow(void* out, size_t count, size_t stride, uint64_t first_index, CPUML_SCALAR_UNION start,
                            CPUML_SCALAR_UNION delta, bool streaming) {
  uint16_t* dst = static_cast<uint16_t*>(out);
  const float start_f = HalfToFloat(start.UInt16), delta_f = HalfToFloat(delta.UInt16);
  auto value = [=](size_t j) { return FloatToHalf(start_f + static_cast<float>(first_index + j) * delta_f); };
  if (stride != 1) {
    for (size_t j = 0; j < count; ++j) dst[j * stride] = value(j);
    return;
  }
  // Streaming needs the converted halves aligned to their own width; an odd address never gets there.
  constexpr size_t kHalvesBytes = Vec<float>::size * sizeof(uint16_t);
  const uintptr_t address = reinterpret_cast<uintptr_t>(dst);
  if (!streaming || address % sizeof(uint16_t) != 0) {
    FloatSequence<1>(count, first_index, start_f, delta_f, [dst](size_t j, const Vec<float>& v) { CpuFloatToHalf(dst + j, v); },
                  [dst](size_t j, float v) { dst[j] = FloatToHalf(v); });
    return;
  }
  const size_t to_aligned = (kHalvesBytes - address % kHalvesBytes) % kHalvesBytes / sizeof(uint16_t);
  const size_t head = to_aligned < count ? to_aligned : count;
  for (size_t j = 0; j < head; ++j) dst[j] = value(j);
  uint16_t* body = dst + head;
  FloatSequence<1>(count - head, first_index + head, start_f, delta_f,
                [body](size_t j, const Vec<float>& v) { CpuStreamFloatToHalf(body + j, v); },
                [body](size_t j, float v) { body[j] = FloatToHalf(v); });
  CpuStreamFence();
}

}  // namespace

extern const FillKernels kFillKernels;
const FillKernels kFillKernels = {
    {
        nullptr,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_FLOAT32>,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_FLOAT16>,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_UINT32>,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_UINT16>,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_UINT8>,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_INT32>,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_INT16>,
        FillConstantRow<CPUML_TENSOR_DATA_TYPE_INT8>,
    },
    {
        nullptr,
        FillFloat32SequenceRow,
        FillFloat16SequenceRow,
        FillIntegerSequenceRow<CPUML_TENSOR_DATA_TYPE_UINT32>,
        FillIntegerSequenceRow<CPUML_TENSOR_DATA_TYPE_UINT16>,
        FillIntegerSequenceRow<CPUML_TENSOR_DATA_TYPE_UINT8>,
        FillIntegerSequenceRow<CPUML_TENSOR_DATA_TYPE_INT32>,
        FillIntegerSequenceRow<CPUML_TENSOR_DATA_TYPE_INT16>,
        FillIntegerSequenceRow<CPUML_TENSOR_DATA_TYPE_INT8>,
    },
};

}  // namespace CPUML_TIER
}  // namespace cpuml
