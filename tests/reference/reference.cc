#include "tests/reference/reference.h"

#include <math.h>
#include <string.h>

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

void QuantizedLinearMatrixMultiply(const QLinearMatMulArgs& args) {
  const uint32_t batches = args.out.sizes[0], channels = args.out.sizes[1];
  const uint32_t m_count = args.out.sizes[2], n_count = args.out.sizes[3];
  const uint32_t k_count = args.a.sizes[3];
  const bool out_signed = args.out.type == CPUML_TENSOR_DATA_TYPE_INT8;
  // Per-tensor tensors have size 1 in the indexed dimension: index 0 there.
  auto per = [](const TensorView& t, uint32_t dim, uint32_t i) -> uint64_t {
    return t.sizes[dim] == 1 ? 0 : i * t.strides[dim];
  };
  for (uint32_t b = 0; b < batches; ++b) {
    for (uint32_t c = 0; c < channels; ++c) {
      const uint64_t a_base = per(args.a, 0, b) + per(args.a, 1, c);
      const uint64_t b_base = per(args.b, 0, b) + per(args.b, 1, c);
      const uint64_t o_base = b * args.out.strides[0] + c * args.out.strides[1];
      for (uint32_t m = 0; m < m_count; ++m) {
        const int64_t za = args.a_zero_point.data ? LoadInteger(args.a_zero_point, per(args.a_zero_point, 2, m)) : 0;
        const float sa = LoadFloat(args.a_scale, per(args.a_scale, 2, m));
        const float so = LoadFloat(args.out_scale, per(args.out_scale, 2, m));
        const int32_t zo = args.out_zero_point.data
                               ? static_cast<int32_t>(LoadInteger(args.out_zero_point, per(args.out_zero_point, 2, m)))
                               : 0;
        for (uint32_t n = 0; n < n_count; ++n) {
          const int64_t zb = args.b_zero_point.data ? LoadInteger(args.b_zero_point, per(args.b_zero_point, 3, n)) : 0;
          const float sb = LoadFloat(args.b_scale, per(args.b_scale, 3, n));
          int64_t acc = 0;
          for (uint32_t k = 0; k < k_count; ++k) {
            const int64_t av = LoadInteger(args.a, a_base + m * args.a.strides[2] + k * args.a.strides[3]);
            const int64_t bv = LoadInteger(args.b, b_base + k * args.b.strides[2] + n * args.b.strides[3]);
            acc += (av - za) * (bv - zb);
          }
          const int32_t q = Requantize(acc, sa, sb, so, zo, out_signed);
          StoreBits(args.out, o_base + m * args.out.strides[2] + n * args.out.strides[3],
                    static_cast<uint64_t>(static_cast<uint32_t>(q)));
        }
      }
    }
  }
}

}  // namespace reference
}  // namespace cpuml
