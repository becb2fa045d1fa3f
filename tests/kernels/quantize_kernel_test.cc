// Every registered DYNAMIC_QUANTIZE_LINEAR row function the CPU runs, called directly: lengths
// across every vector remainder, destinations at several offsets from an aligned line, UINT8 and
// INT8, and the range of every length. The oracle is the formula of docs/semantics.md written
// here element by element: x / scale in float, NaN to 0, the clamp, rounding half to even.
#include <gtest/gtest.h>
#include <math.h>
#include <string.h>

#include <random>
#include <vector>

#include "src/dispatch.h"
#include "tests/kernels/registered_kernels.h"

namespace cpuml_test {
namespace {

std::vector<RegisteredTier> TiersWithQuantize() {
  std::vector<RegisteredTier> tiers;
  for (const RegisteredTier& tier : RegisteredTiers())
    if (tier.kernels->quantize) tiers.push_back(tier);
  return tiers;
}

class QuantizeKernelTest : public testing::TestWithParam<RegisteredTier> {
 protected:
  void SetUp() override {
    // The rows are compiled with the fill flags (cmake/CpumlTiers.cmake).
    if (!cpuml::SupportedFillTier(GetParam().isa))
      GTEST_SKIP() << "the quantize rows of tier " << GetParam().name << " are not supported by this CPU";
  }
};

uint8_t Expected(float x, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  volatile float quotient = x / scale;  // one IEEE division, as the formula says
  float v = quotient;
  if (v != v) v = 0.0f;
  v = fminf(fmaxf(v, static_cast<float>(qmin - zero_point)), static_cast<float>(qmax - zero_point));
  return static_cast<uint8_t>(static_cast<int32_t>(nearbyintf(v)) + zero_point);
}

TEST_P(QuantizeKernelTest, EveryLengthOffsetAndStore) {
  const cpuml::QuantizeKernels& kernels = *GetParam().kernels->quantize;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> value(-4.0f, 6.0f);
  std::vector<float> x(300);
  for (float& v : x) v = value(rng);
  x[5] = NAN;
  x[77] = (std::floor(x[77]) + 0.5f) * 0.04f;  // a quotient at a half-integer
  // 64-byte aligned storage, with room for the largest offset and a canary after the row.
  std::vector<uint8_t> storage(512 + 64);
  uint8_t* const aligned = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  // Streaming stores start at dst's first vector boundary: every offset puts a different head
  // before it.
  for (bool streaming : {false, true})
    for (bool signed_output : {false, true})
      for (size_t offset : {0, 1, 16, 32, 48})
        for (size_t count = 0; count <= 260; count += count < 70 ? 1 : 19) {
          const int32_t qmin = signed_output ? -128 : 0, qmax = signed_output ? 127 : 255;
          const int32_t zero_point = signed_output ? -26 : 102;
          const float scale = 0.04f;
          uint8_t* const dst = aligned + offset;
          memset(aligned, 0xA5, 448);
          kernels.quantize(x.data(), count, scale, zero_point, qmin, qmax, dst, nullptr, streaming);
          for (size_t i = 0; i < count; ++i) {
            ASSERT_EQ(dst[i], Expected(x[i], scale, zero_point, qmin, qmax))
                << "element " << i << " of " << count << ", offset " << offset
                << (signed_output ? ", INT8" : ", UINT8") << (streaming ? ", streaming" : "");
          }
          ASSERT_EQ(dst[count], 0xA5) << "wrote past the row: count " << count << ", offset " << offset;
          if (offset > 0) {
            ASSERT_EQ(dst[-1], 0xA5) << "wrote before the row: offset " << offset;
          }
        }
}

TEST_P(QuantizeKernelTest, RangeOfEveryLength) {
  const cpuml::QuantizeKernels& kernels = *GetParam().kernels->quantize;
  std::mt19937 rng(10);
  std::uniform_real_distribution<float> value(-50.0f, 50.0f);
  std::vector<float> x(300);
  for (float& v : x) v = value(rng);
  x[3] = NAN;
  for (size_t count = 0; count <= 300; ++count) {
    float lo = 0.0f, hi = 0.0f, expected_lo = 0.0f, expected_hi = 0.0f;
    for (size_t i = 0; i < count; ++i) {
      if (x[i] < expected_lo) expected_lo = x[i];
      if (x[i] > expected_hi) expected_hi = x[i];
    }
    kernels.min_max(x.data(), count, &lo, &hi);
    ASSERT_EQ(lo, expected_lo) << "count " << count;
    ASSERT_EQ(hi, expected_hi) << "count " << count;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, QuantizeKernelTest, testing::ValuesIn(TiersWithQuantize()), TierTestName);

}  // namespace
}  // namespace cpuml_test
