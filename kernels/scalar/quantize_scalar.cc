// DYNAMIC_QUANTIZE_LINEAR rows in portable C++: the formula element by element (docs/semantics.md).
#include <math.h>

#include "kernels/kernels.h"

namespace cpuml {
namespace scalar {
namespace {

void MinMaxRow(const float* x, size_t count, float* min_out, float* max_out) {
  float lo = *min_out, hi = *max_out;
  for (size_t i = 0; i < count; ++i) {
    if (x[i] < lo) lo = x[i];  // false for NaN
    if (x[i] > hi) hi = x[i];
  }
  *min_out = lo;
  *max_out = hi;
}

void QuantizeRow(const float* x, size_t count, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                 uint8_t* dst, const float*, bool) {
  const float lo = static_cast<float>(qmin - zero_point), hi = static_cast<float>(qmax - zero_point);
  for (size_t i = 0; i < count; ++i) {
    float v = x[i] / scale;
    if (v != v) v = 0.0f;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    dst[i] = static_cast<uint8_t>(static_cast<int32_t>(nearbyintf(v)) + zero_point);
  }
}

void QuantizeSymmetricBlocks(const float* x, size_t count, size_t block, float* scales, uint8_t* dst) {
  for (size_t begin = 0; begin < count; begin += block, ++scales) {
    const size_t end = block < count - begin ? begin + block : count;
    float amax = 0.0f;
    for (size_t i = begin; i < end; ++i)
      if (fabsf(x[i]) > amax) amax = fabsf(x[i]);  // false for NaN
    *scales = amax / 127.0f;
    QuantizeRow(x + begin, end - begin, *scales, 0, -128, 127, dst + begin, nullptr, false);
  }
}

}  // namespace

extern const QuantizeKernels kQuantizeKernels;
const QuantizeKernels kQuantizeKernels = {MinMaxRow, QuantizeRow, nullptr, QuantizeSymmetricBlocks};

}  // namespace scalar
}  // namespace cpuml
