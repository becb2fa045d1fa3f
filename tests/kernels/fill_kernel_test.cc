// Every registered fill row function the CPU runs, called directly: each data type, lengths
// across every vector remainder, strides 1..3, plain and streaming stores, sequence rows that
// start mid-sequence. The oracle is the scalar reference filling the same 1-D row.
#include <gtest/gtest.h>
#include <string.h>

#include <random>

#include "src/dispatch.h"
#include "tests/kernels/registered_kernels.h"
#include "tests/reference/reference.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kTypes[] = {
    CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_DATA_TYPE_FLOAT16, CPUML_TENSOR_DATA_TYPE_UINT32,
    CPUML_TENSOR_DATA_TYPE_UINT16,  CPUML_TENSOR_DATA_TYPE_UINT8,   CPUML_TENSOR_DATA_TYPE_INT32,
    CPUML_TENSOR_DATA_TYPE_INT16,   CPUML_TENSOR_DATA_TYPE_INT8};

std::vector<RegisteredTier> TiersWithFills() {
  std::vector<RegisteredTier> tiers;
  for (const RegisteredTier& tier : RegisteredTiers())
    if (tier.kernels->fill) tiers.push_back(tier);
  return tiers;
}

class FillKernelTest : public testing::TestWithParam<RegisteredTier> {
 protected:
  void SetUp() override {
    if (!cpuml::SupportedFillTier(GetParam().isa))
      GTEST_SKIP() << "the fills of tier " << GetParam().name << " are not supported by this CPU";
  }
};

// Values that exercise each type: float starts and deltas with fractions, integers that wrap.
CPUML_SCALAR_UNION Value(CPUML_TENSOR_DATA_TYPE type, std::mt19937& rng) {
  CPUML_SCALAR_UNION v;
  v.UInt64 = (uint64_t{rng()} << 32) | rng();
  if (type == CPUML_TENSOR_DATA_TYPE_FLOAT32) v.Float32 = std::uniform_real_distribution<float>(-300.0f, 300.0f)(rng);
  if (type == CPUML_TENSOR_DATA_TYPE_FLOAT16) v.UInt16 = static_cast<uint16_t>(0x3000 + rng() % 0x2000 + (rng() % 2) * 0x8000);
  return v;
}

TEST_P(FillKernelTest, EveryRowFunctionTypeLengthAndStride) {
  const cpuml::FillKernels& fill = *GetParam().kernels->fill;
  std::mt19937 rng(5);
  for (CPUML_TENSOR_DATA_TYPE type : kTypes) {
    const size_t size = cpuml::DataTypeSize(type);
    for (bool sequence : {false, true})
      for (size_t stride : {1, 2, 3})
        for (bool streaming : {false, true})
          for (size_t count : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 300}) {
            SCOPED_TRACE(testing::Message() << "type " << type << (sequence ? " sequence" : " constant") << " count "
                                            << count << " stride " << stride << (streaming ? " streaming" : ""));
            const CPUML_SCALAR_UNION start = Value(type, rng), delta = Value(type, rng);
            const uint64_t first = rng() % 1000;
            // The reference fills the sequence from index 0; the row under test is its tail,
            // written at element `offset` of a buffer with room on both sides.
            const size_t span = first + count;
            std::vector<uint8_t> full(span * stride * size);
            const uint32_t sizes[1] = {static_cast<uint32_t>(span)};
            const uint64_t strides[1] = {stride};
            const cpuml::reference::TensorView view{type, 1, sizes, strides, full.data()};
            if (sequence) cpuml::reference::FillValueSequence(view, start, delta);
            else cpuml::reference::FillValueConstant(view, start);
            const size_t offset = 1 + rng() % 40;
            std::vector<uint8_t> expected(((count - 1) * stride + 1 + offset + 64) * size, 0xC3), actual = expected;
            for (size_t j = 0; j < count; ++j)
              memcpy(expected.data() + (offset + j * stride) * size, full.data() + (first + j) * stride * size, size);
            uint8_t* dst = actual.data() + offset * size;
            if (sequence) fill.sequence_row[type](dst, count, stride, first, start, delta, streaming);
            else fill.constant_row[type](dst, count, stride, start, streaming);
            ASSERT_EQ(actual, expected);
          }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, FillKernelTest, testing::ValuesIn(TiersWithFills()), TierTestName);

}  // namespace
}  // namespace cpuml_test
