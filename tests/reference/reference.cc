#include "tests/reference/reference.h"

#include <math.h>
#include <string.h>

#include <initializer_list>

namespace cpuml {

namespace reference {
namespace {

uint64_t ElementCount(const TensorView& t) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < t.rank; ++d) n *= t.sizes[d];
  return n;
}

// Offset in elements of the i-th element in row-major logical order.
uint64_t OffsetOf(const TensorView& t, uint64_t linear) {
  uint64_t offset = 0;
  for (uint32_t d = t.rank; d-- > 0;) {
    offset += (linear % t.sizes[d]) * t.strides[d];
    linear /= t.sizes[d];
  }
  return offset;
}

// Writes the low DataTypeSize bytes of `bits` (a little-endian scalar) at element `offset`.
void StoreBits(const TensorView& t, uint64_t offset, uint64_t bits) {
  const size_t size = DataTypeSize(t.type);
  memcpy(static_cast<char*>(t.data) + offset * size, &bits, size);
}

int64_t LoadInteger(const TensorView& t, uint64_t offset) {
  const char* p = static_cast<const char*>(t.data);
  switch (t.type) {
    case CPUML_TENSOR_DATA_TYPE_INT8: return reinterpret_cast<const int8_t*>(p)[offset];
    case CPUML_TENSOR_DATA_TYPE_UINT8: return reinterpret_cast<const uint8_t*>(p)[offset];
    case CPUML_TENSOR_DATA_TYPE_UINT4:
    case CPUML_TENSOR_DATA_TYPE_INT4: {
      // Offsets count nibbles: byte offset / 2, the low nibble for an even offset.
      const int64_t nibble = (reinterpret_cast<const uint8_t*>(p)[offset / 2] >> (offset % 2 == 0 ? 0 : 4)) & 0xF;
      return t.type == CPUML_TENSOR_DATA_TYPE_INT4 && nibble >= 8 ? nibble - 16 : nibble;
    }
    default: return 0;
  }
}

float LoadFloat(const TensorView& t, uint64_t offset) { return static_cast<const float*>(t.data)[offset]; }

}  // namespace

void FillValueConstant(const TensorView& out, CPUML_SCALAR_UNION value) {
  uint64_t bits;
  memcpy(&bits, value.Bytes, sizeof bits);
  const uint64_t count = ElementCount(out);
  for (uint64_t i = 0; i < count; ++i) StoreBits(out, OffsetOf(out, i), bits);
}

void FillValueSequence(const TensorView& out, CPUML_SCALAR_UNION start, CPUML_SCALAR_UNION delta) {
  const uint64_t count = ElementCount(out);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    switch (out.type) {
      case CPUML_TENSOR_DATA_TYPE_FLOAT32: {
        const float v = start.Float32 + static_cast<float>(i) * delta.Float32;
        uint32_t b;
        memcpy(&b, &v, sizeof b);
        bits = b;
        break;
      }
      case CPUML_TENSOR_DATA_TYPE_FLOAT16: {
        const float v = HalfToFloat(start.UInt16) + static_cast<float>(i) * HalfToFloat(delta.UInt16);
        bits = FloatToHalf(v);
        break;
      }
      default:
        // Integers: start + i * delta modulo 2^64, of which StoreBits keeps the low bits: the
        // same as repeated addition modulo 2^bits, for signed types too (two's complement).
        bits = start.UInt64 + i * delta.UInt64;
        break;
    }
    StoreBits(out, OffsetOf(out, i), bits);
  }
}

int32_t Requantize(int64_t acc, float a_scale, float b_scale, float out_scale, int32_t out_zero_point,
                   bool out_signed) {
  const float multiplier = (a_scale * b_scale) / out_scale;
  float y = static_cast<float>(acc) * multiplier;
  const int32_t type_min = out_signed ? -128 : 0;
  const int32_t type_max = out_signed ? 127 : 255;
  const float lo = static_cast<float>(type_min - out_zero_point);
  const float hi = static_cast<float>(type_max - out_zero_point);
  if (!(y >= lo)) y = lo;  // NaN (0 * inf) lands here too
  if (y > hi) y = hi;
  return static_cast<int32_t>(nearbyintf(y)) + out_zero_point;
}

namespace {

// Per-tensor tensors have size 1 in the indexed dimension: index 0 there.
uint64_t Per(const TensorView& t, uint32_t dim, uint32_t i) { return t.sizes[dim] == 1 ? 0 : i * t.strides[dim]; }

// Calls store(output offset, m, n, block, exact sum) for every output element and every block of
// `block` K rows, blocks in ascending order: the sum over the block's K of (A - AZeroPoint[m]) *
// (B - BZeroPoint[block][n]), in 64 bits, with the operators' broadcasting.
template <class Store>
void ForEachBlockSum(const TensorView& a, const TensorView& a_zero_point, const TensorView& b,
                     const TensorView& b_zero_point, const TensorView& out, uint32_t block, Store store) {
  const uint32_t batches = out.sizes[0], channels = out.sizes[1];
  const uint32_t m_count = out.sizes[2], n_count = out.sizes[3];
  const uint32_t k_count = a.sizes[3];
  for (uint32_t bi = 0; bi < batches; ++bi) {
    for (uint32_t c = 0; c < channels; ++c) {
      const uint64_t a_base = Per(a, 0, bi) + Per(a, 1, c);
      const uint64_t b_base = Per(b, 0, bi) + Per(b, 1, c);
      const uint64_t o_base = bi * out.strides[0] + c * out.strides[1];
      for (uint32_t m = 0; m < m_count; ++m) {
        const int64_t za = a_zero_point.data ? LoadInteger(a_zero_point, Per(a_zero_point, 2, m)) : 0;
        for (uint32_t n = 0; n < n_count; ++n)
          for (uint32_t k0 = 0, index = 0; k0 < k_count; k0 += block, ++index) {
            const int64_t zb = b_zero_point.data
                                   ? LoadInteger(b_zero_point, Per(b_zero_point, 2, index) + Per(b_zero_point, 3, n))
                                   : 0;
            int64_t acc = 0;
            for (uint32_t k = k0; k < k_count && k < k0 + block; ++k) {
              const int64_t av = LoadInteger(a, a_base + m * a.strides[2] + k * a.strides[3]);
              const int64_t bv = LoadInteger(b, b_base + k * b.strides[2] + n * b.strides[3]);
              acc += (av - za) * (bv - zb);
            }
            store(o_base + m * out.strides[2] + n * out.strides[3], m, n, index, acc);
          }
      }
    }
  }
}

// One block of all of K: the sum of the formula over K.
template <class Store>
void ForEachSum(const TensorView& a, const TensorView& a_zero_point, const TensorView& b,
                const TensorView& b_zero_point, const TensorView& out, Store store) {
  ForEachBlockSum(a, a_zero_point, b, b_zero_point, out, a.sizes[3],
                  [&](uint64_t offset, uint32_t m, uint32_t n, uint32_t, int64_t acc) { store(offset, m, n, acc); });
}

// The K rows one block of B's scales covers: BScale {1,1,blocks,N} with blocks > 1 stands for the
// block size among 16, 32, 64, 128 and 256 with ceil(K / size) = blocks; otherwise all of K.
uint32_t ScaleBlock(const TensorView& b_scale, uint32_t k) {
  const uint32_t blocks = b_scale.sizes[2];
  if (blocks > 1)
    for (uint32_t size = 16; size <= 256; size *= 2)
      if ((k + size - 1) / size == blocks) return size;
  return k;
}

}  // namespace

void QuantizedLinearMatrixMultiply(const QLinearMatMulArgs& args) {
  const bool out_signed = args.out.type == CPUML_TENSOR_DATA_TYPE_INT8;
  ForEachSum(args.a, args.a_zero_point, args.b, args.b_zero_point, args.out,
             [&](uint64_t offset, uint32_t m, uint32_t n, int64_t acc) {
               const float sa = LoadFloat(args.a_scale, Per(args.a_scale, 2, m));
               const float sb = LoadFloat(args.b_scale, Per(args.b_scale, 3, n));
               const float so = LoadFloat(args.out_scale, Per(args.out_scale, 2, m));
               const int32_t zo = args.out_zero_point.data
                                      ? static_cast<int32_t>(LoadInteger(args.out_zero_point, Per(args.out_zero_point, 2, m)))
                                      : 0;
               const int32_t q = Requantize(acc, sa, sb, so, zo, out_signed);
               StoreBits(args.out, offset, static_cast<uint64_t>(static_cast<uint32_t>(q)));
             });
}

void MatrixMultiplyInteger(const MatMulIntegerArgs& args) {
  ForEachSum(args.a, args.a_zero_point, args.b, args.b_zero_point, args.out,
             [&](uint64_t offset, uint32_t, uint32_t, int64_t acc) {
               StoreBits(args.out, offset, static_cast<uint64_t>(acc));  // the low 32 bits: modulo 2^32
             });
}

void MatrixMultiplyIntegerToFloat(const MatMulIntegerArgs& args) {
  // Per block, in ascending order: p = float(sum) * (AScale[m] (or [m][block]) * BScale[block][n]); y = p for the
  // first block, y + p after it; then y + Bias[n]. One block (per-tensor or per-column B scales)
  // is float(sum) * (AScale * BScale) [+ Bias].
  const uint32_t k = args.a.sizes[3], block = ScaleBlock(args.b_scale, k), blocks = (k + block - 1) / block;
  float y = 0.0f;
  ForEachBlockSum(args.a, args.a_zero_point, args.b, args.b_zero_point, args.out, block,
                  [&](uint64_t offset, uint32_t m, uint32_t n, uint32_t index, int64_t acc) {
                    const float sa = LoadFloat(args.a_scale, Per(args.a_scale, 2, m) + Per(args.a_scale, 3, index));
                    const float sb = LoadFloat(args.b_scale, Per(args.b_scale, 2, index) + Per(args.b_scale, 3, n));
                    const float p = static_cast<float>(acc) * (sa * sb);
                    y = index == 0 ? p : y + p;
                    if (index + 1 < blocks) return;
                    if (args.bias.data) y = y + LoadFloat(args.bias, Per(args.bias, 3, n));
                    uint32_t bits;
                    memcpy(&bits, &y, sizeof bits);
                    StoreBits(args.out, offset, bits);
                  });
}

void DynamicQuantizeLinear(const TensorView& input, const TensorView& out, const TensorView& scale,
                           const TensorView& zero_point) {
  const bool per_row = scale.sizes[0] != 1 || scale.sizes[1] != 1 || scale.sizes[2] != 1;
  const int32_t qmin = out.type == CPUML_TENSOR_DATA_TYPE_INT8 ? -128 : 0, qmax = qmin + 255;
  const uint64_t rows = uint64_t{input.sizes[0]} * input.sizes[1] * input.sizes[2];
  const uint32_t length = input.sizes[3];
  auto offset = [](const TensorView& t, uint64_t row, uint64_t column) {
    const uint64_t m = row % t.sizes[2], bc = row / t.sizes[2];
    return (bc / t.sizes[1]) * t.strides[0] + (bc % t.sizes[1]) * t.strides[1] + m * t.strides[2] + column * t.strides[3];
  };
  auto value = [&](uint64_t row, uint64_t column) {
    const uint64_t at = offset(input, row, column);
    if (input.type == CPUML_TENSOR_DATA_TYPE_FLOAT16) return HalfToFloat(static_cast<const uint16_t*>(input.data)[at]);
    return static_cast<const float*>(input.data)[at];
  };
  // Rows [first, last) share one scale and zero point.
  auto quantize = [&](uint64_t first, uint64_t last, uint64_t parameter_row) {
    float lo = 0.0f, hi = 0.0f;  // the range always includes 0
    for (uint64_t r = first; r < last; ++r)
      for (uint32_t k = 0; k < length; ++k) {
        const float x = value(r, k);
        if (isnan(x)) continue;
        lo = fminf(lo, x);
        hi = fmaxf(hi, x);
      }
    const float s = (hi == lo ? 1.0f : hi - lo) / static_cast<float>(qmax - qmin);
    float z = static_cast<float>(qmin) - lo / s;
    z = isnan(z) ? static_cast<float>(qmin) : fminf(fmaxf(z, static_cast<float>(qmin)), static_cast<float>(qmax));
    const int32_t zp = static_cast<int32_t>(nearbyintf(z));
    for (uint64_t r = first; r < last; ++r)
      for (uint32_t k = 0; k < length; ++k) {
        const float q = value(r, k) / s;
        int32_t v = isnan(q) ? zp : static_cast<int32_t>(fmaxf(fminf(nearbyintf(q), 1e6f), -1e6f)) + zp;
        v = v < qmin ? qmin : v > qmax ? qmax : v;
        StoreBits(out, offset(out, r, k), static_cast<uint64_t>(static_cast<uint32_t>(v)));
      }
    memcpy(static_cast<float*>(scale.data) + offset(scale, parameter_row, 0), &s, sizeof s);
    StoreBits(zero_point, offset(zero_point, parameter_row, 0), static_cast<uint64_t>(static_cast<uint32_t>(zp)));
  };
  if (zero_point.data == nullptr) {
    // Symmetric INT8: per row and block of `block` elements (the last one shorter), s = max|x| / 127.
    const uint32_t blocks = scale.sizes[3], block = (length + blocks - 1) / blocks;
    uint32_t b = block;
    for (uint32_t size : {16u, 32u, 64u, 128u, 256u})
      if (blocks > 1 && (length + size - 1) / size == blocks) b = size;
    if (blocks == 1) b = length;
    for (uint64_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < blocks; ++c) {
        float amax = 0.0f;
        for (uint32_t k = c * b; k < length && k < (c + 1) * b; ++k)
          if (!isnan(value(r, k))) amax = fmaxf(amax, fabsf(value(r, k)));
        const float s = amax / 127.0f;
        for (uint32_t k = c * b; k < length && k < (c + 1) * b; ++k) {
          // |q| <= 127 unless s underflowed to 0 (max|x| < 127 x 2^-149): then +-inf, clamped.
          const float q = value(r, k) / s;
          int32_t v = isnan(q) ? 0 : static_cast<int32_t>(fmaxf(fminf(nearbyintf(q), 1e6f), -1e6f));
          v = v < -128 ? -128 : v > 127 ? 127 : v;
          StoreBits(out, offset(out, r, k), static_cast<uint64_t>(static_cast<uint32_t>(v)));
        }
        memcpy(static_cast<float*>(scale.data) + offset(scale, r, c), &s, sizeof s);
      }
    return;
  }
  if (per_row) {
    for (uint64_t r = 0; r < rows; ++r) quantize(r, r + 1, r);
  } else {
    quantize(0, rows, 0);
  }
}

}  // namespace reference
}  // namespace cpuml
