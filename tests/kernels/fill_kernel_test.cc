// Every registered fill row function the CPU runs, called directly: each data type, lengths
// across every vector remainder, strides 1..3, plain and streaming stores, sequence rows that
// start mid-sequence. The oracle is the scalar reference filling the same 1-D row, except for
// FLOAT16, where the reference would use the library's own conversion (kernels/common/half.cc):
// there it is the formula of docs/semantics.md through the tests' independent conversion.
#include <gtest/gtest.h>
#include <string.h>

#include <random>

#include "src/dispatch.h"
#include "tests/kernels/registered_kernels.h"
#include "tests/reference/reference.h"

namespace cpuml_test {

// Defined in tests/fill_test.cc, where they are checked exhaustively.
float OracleHalfToFloat(uint16_t h);
uint16_t OracleFloatToHalf(float f);

namespace {

// Element `index` of a FLOAT16 sequence: float32 arithmetic, one rounding to binary16.
uint16_t HalfSequenceElement(uint16_t start, uint16_t delta, uint64_t index) {
  return OracleFloatToHalf(OracleHalfToFloat(start) + static_cast<float>(index) * OracleHalfToFloat(delta));
}

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
            if (type == CPUML_TENSOR_DATA_TYPE_FLOAT16) {
              for (size_t i = 0; i < span; ++i) {
                const uint16_t h = sequence ? HalfSequenceElement(start.UInt16, delta.UInt16, i) : start.UInt16;
                memcpy(full.data() + i * stride * size, &h, size);
              }
            } else if (sequence) {
              cpuml::reference::FillValueSequence(view, start, delta);
            } else {
              cpuml::reference::FillValueConstant(view, start);
            }
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

// Float sequences far into a row: the vector paths change how they form float(i) at 2^24 (from
// float increments to integer conversion) and at 2^31 (to scalar); rows that cross either
// boundary must match the formula computed one element at a time.
TEST_P(FillKernelTest, FloatSequencesAcrossIndexBoundaries) {
  const cpuml::FillKernels& fill = *GetParam().kernels->fill;
  const float start = 3.25f, delta = -0.3f;
  CPUML_SCALAR_UNION start32{}, delta32{}, start16{}, delta16{};
  start32.Float32 = start;
  delta32.Float32 = delta;
  start16.UInt16 = OracleFloatToHalf(start);
  delta16.UInt16 = OracleFloatToHalf(delta);
  const float start16_f = OracleHalfToFloat(start16.UInt16), delta16_f = OracleHalfToFloat(delta16.UInt16);
  for (uint64_t first : {(uint64_t{1} << 24) - 1000, (uint64_t{1} << 24) - 37, (uint64_t{1} << 24) + 5,
                         (uint64_t{1} << 31) - 1000, (uint64_t{1} << 31) - 3})
    for (bool streaming : {false, true}) {
      SCOPED_TRACE(testing::Message() << "first index " << first << (streaming ? " streaming" : ""));
      constexpr size_t kCount = 2000;
      std::vector<float> f32(kCount);
      std::vector<uint16_t> f16(kCount);
      fill.sequence_row[CPUML_TENSOR_DATA_TYPE_FLOAT32](f32.data(), kCount, 1, first, start32, delta32, streaming);
      fill.sequence_row[CPUML_TENSOR_DATA_TYPE_FLOAT16](f16.data(), kCount, 1, first, start16, delta16, streaming);
      for (size_t j = 0; j < kCount; ++j) {
        const float index = static_cast<float>(first + j);  // rounded to float, as documented
        const float product32 = index * delta, product16 = index * delta16_f;
        ASSERT_EQ(f32[j], start + product32) << "element " << j;
        ASSERT_EQ(f16[j], OracleFloatToHalf(start16_f + product16)) << "element " << j;
      }
    }
}

bool IsNan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0; }
bool IsInf(uint16_t h) { return (h & 0x7FFF) == 0x7C00; }

// FLOAT16 rows where the rounding decides, through every row function of the tier (F16C's
// vcvtps2ph on AVX2 and up, the scalar conversion below): ties to even at several scales,
// subnormal inputs and results, the overflow tie at 65520, infinities and NaN payloads, then
// starts and deltas drawn from the whole binary16 range. Strided, streaming and mid-sequence
// rows take the same values.
TEST_P(FillKernelTest, HalfSequencesRoundAsSpecified) {
  const cpuml::FillSequenceRowFn row = GetParam().kernels->fill->sequence_row[CPUML_TENSOR_DATA_TYPE_FLOAT16];
  std::vector<std::pair<uint16_t, uint16_t>> cases = {
      {0x3C00, 0x1000},  // 1 + i * 2^-11: every other element a tie
      {0xBC00, 0x9000},  // the same, negative
      {0x3C00, 0x1200},  // 1 + i * 0.75 * 2^-10: nearest, ties and non-ties
      {0x6800, 0x3C00},  // 2048 + i: ties where halves are 2 apart
      {0x0000, 0x0001},  // subnormal results, into the normals
      {0x83FF, 0x0001},  // from the largest negative subnormal up (through zero at index 1023)
      {0x0400, 0x8001},  // from the smallest normal down (through zero at index 1024)
      {0x7BFF, 0x4C00},  // 65504 + 16 i: the overflow tie at 65520 and beyond
      {0xFBFF, 0xCC00},
      {0x7BFE, 0x3C00},  // 65472 + i: below, at and above the last rounding steps
      {0x7C00, 0xFC00},  // NaN from inf + 0 * -inf and inf - inf
      {0x7C00, 0x3C00},  // infinity stays
      {0x7D01, 0x3C00},  // a signalling NaN start: quieted, payload kept
      {0xFE55, 0x0000},  // a quiet negative NaN with a payload
      {0x3C00, 0x7D01},  // a NaN delta
      {0x8000, 0x8000},  // -0 + i * -0
  };
  std::mt19937 rng(11);
  for (const size_t total = cases.size() + 400; cases.size() < total;) {
    const uint16_t start = static_cast<uint16_t>(rng()), delta = static_cast<uint16_t>(rng());
    // Two NaN operands, or a NaN start with an infinite delta (0 * inf makes a second NaN): which
    // payload an add keeps then depends on the operand order, which the formula leaves open.
    if (IsNan(start) && (IsNan(delta) || IsInf(delta))) continue;
    cases.push_back({start, delta});
  }
  constexpr size_t kCount = 70;
  for (const auto& [start_bits, delta_bits] : cases)
    for (const uint64_t first : {uint64_t{0}, uint64_t{1000}})
      for (const size_t stride : {size_t{1}, size_t{3}})
        for (const bool streaming : {false, true}) {
          SCOPED_TRACE(testing::Message() << std::hex << "start 0x" << start_bits << " delta 0x" << delta_bits
                                          << std::dec << " first " << first << " stride " << stride
                                          << (streaming ? " streaming" : ""));
          CPUML_SCALAR_UNION start{}, delta{};
          start.UInt16 = start_bits;
          delta.UInt16 = delta_bits;
          std::vector<uint16_t> out(kCount * stride, 0xEEEE);
          row(out.data(), kCount, stride, first, start, delta, streaming);
          for (size_t j = 0; j < kCount; ++j)
            ASSERT_EQ(out[j * stride], HalfSequenceElement(start_bits, delta_bits, first + j))
                << "element " << j;
        }
}

INSTANTIATE_TEST_SUITE_P(Registry, FillKernelTest, testing::ValuesIn(TiersWithFills()), TierTestName);

}  // namespace
}  // namespace cpuml_test
