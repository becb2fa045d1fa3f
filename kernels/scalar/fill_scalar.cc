// Scalar fills: the fallback tier for CPUs below SSE4.1 (and any architecture).
#include <string.h>

#include "kernels/common/half.h"
#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {
namespace {

template <class Bits>
void FillConstantRow(void* out, size_t count, size_t stride, CPUML_SCALAR_UNION value, bool) {
  Bits pattern;
  memcpy(&pattern, value.Bytes, sizeof pattern);
  Bits* dst = static_cast<Bits*>(out);
  for (size_t j = 0; j < count; ++j) dst[j * stride] = pattern;
}

template <class Bits>
void FillIntegerSequenceRow(void* out, size_t count, size_t stride, uint64_t first_index, CPUML_SCALAR_UNION start,
                            CPUML_SCALAR_UNION delta, bool) {
  Bits* dst = static_cast<Bits*>(out);
  uint64_t value = start.UInt64 + first_index * delta.UInt64;
  for (size_t j = 0; j < count; ++j, value += delta.UInt64) dst[j * stride] = static_cast<Bits>(value);
}

void FillFloat32SequenceRow(void* out, size_t count, size_t stride, uint64_t first_index, CPUML_SCALAR_UNION start,
                            CPUML_SCALAR_UNION delta, bool) {
  float* dst = static_cast<float*>(out);
  for (size_t j = 0; j < count; ++j)
    dst[j * stride] = start.Float32 + static_cast<float>(first_index + j) * delta.Float32;
}

void FillFloat16SequenceRow(void* out, size_t count, size_t stride, uint64_t first_index, CPUML_SCALAR_UNION start,
                            CPUML_SCALAR_UNION delta, bool) {
  uint16_t* dst = static_cast<uint16_t*>(out);
  const float s = HalfToFloat(start.UInt16), d = HalfToFloat(delta.UInt16);
  for (size_t j = 0; j < count; ++j) dst[j * stride] = FloatToHalf(s + static_cast<float>(first_index + j) * d);
}

}  // namespace

extern const FillKernels kFillKernels;
const FillKernels kFillKernels = {
    {nullptr, FillConstantRow<uint32_t>, FillConstantRow<uint16_t>, FillConstantRow<uint32_t>,
     FillConstantRow<uint16_t>, FillConstantRow<uint8_t>, FillConstantRow<uint32_t>, FillConstantRow<uint16_t>,
     FillConstantRow<uint8_t>},
    {nullptr, FillFloat32SequenceRow, FillFloat16SequenceRow, FillIntegerSequenceRow<uint32_t>,
     FillIntegerSequenceRow<uint16_t>, FillIntegerSequenceRow<uint8_t>, FillIntegerSequenceRow<uint32_t>,
     FillIntegerSequenceRow<uint16_t>, FillIntegerSequenceRow<uint8_t>},
};

}  // namespace scalar
}  // namespace cpuml
