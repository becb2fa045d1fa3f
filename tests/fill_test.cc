// FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE on every tier, byte-equal to the scalar reference
// and to the seeds' examples.
#include <math.h>
#include <cpuinfo.h>
#include <pthreadpool.h>

#include <algorithm>

#include "tests/test_support.h"

namespace cpuml_test {
namespace {

using cpuml::FloatToHalf;

struct FillCase {
  bool sequence;
  CPUML_SCALAR_UNION start, delta;
};

cpuml_status CreateFill(const FillCase& c, const TensorDesc& out, CPUML_TENSOR_DATA_TYPE value_type, OperatorPtr* op) {
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant{out.get(), value_type, c.start};
  CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sequence{out.get(), value_type, c.start, c.delta};
  CPUML_OPERATOR_DESC desc{c.sequence ? CPUML_OPERATOR_FILL_VALUE_SEQUENCE : CPUML_OPERATOR_FILL_VALUE_CONSTANT,
                           c.sequence ? static_cast<const void*>(&sequence) : static_cast<const void*>(&constant)};
  cpuml_operator* raw = nullptr;
  const cpuml_status s = cpuml_create_operator(&desc, &raw);
  op->reset(raw);
  return s;
}

// Runs the fill through the library and through the reference on identical starting bytes and
// checks byte equality, untouched gaps and canaries.
void ExpectMatchesReference(const FillCase& c, const TensorDesc& out, pthreadpool_t pool = nullptr) {
  OperatorPtr op;
  ASSERT_EQ(CreateFill(c, out, out.type(), &op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  GuardedBuffer actual(out.MinimumBytes()), expected(out.MinimumBytes());
  const auto strides = out.Strides();
  if (c.sequence)
    cpuml::reference::FillValueSequence(View(out, strides, expected.data()), c.start, c.delta);
  else
    cpuml::reference::FillValueConstant(View(out, strides, expected.data()), c.start);
  ASSERT_EQ(cpuml_initialize_operator(op.get(), nullptr, 0), CPUML_STATUS_SUCCESS);
  const CPUML_BUFFER_BINDING binding = actual.Binding();
  ASSERT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &binding, 1, pool), CPUML_STATUS_SUCCESS)
      << cpuml_last_error_message();
  ASSERT_TRUE(actual.CanariesIntact());
  ASSERT_EQ(actual.Bytes(), expected.Bytes());
}

CPUML_SCALAR_UNION Bits(uint64_t bits) {
  CPUML_SCALAR_UNION u;
  memcpy(u.Bytes, &bits, 8);
  return u;
}
CPUML_SCALAR_UNION F32(float f) {
  CPUML_SCALAR_UNION u{};
  u.Float32 = f;
  return u;
}
CPUML_SCALAR_UNION F16(float f) {
  CPUML_SCALAR_UNION u{};
  u.UInt16 = FloatToHalf(f);
  return u;
}

class FillTest : public TierTest {};

constexpr CPUML_TENSOR_DATA_TYPE kFillTypes[] = {
    CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_DATA_TYPE_FLOAT16, CPUML_TENSOR_DATA_TYPE_UINT32,
    CPUML_TENSOR_DATA_TYPE_UINT16,  CPUML_TENSOR_DATA_TYPE_UINT8,   CPUML_TENSOR_DATA_TYPE_INT32,
    CPUML_TENSOR_DATA_TYPE_INT16,   CPUML_TENSOR_DATA_TYPE_INT8};

// Start/delta pairs per type that exercise wrap-around, negative steps and rounding.
std::vector<FillCase> CasesFor(CPUML_TENSOR_DATA_TYPE type) {
  std::vector<FillCase> cases;
  switch (type) {
    case CPUML_TENSOR_DATA_TYPE_FLOAT32:
      cases = {{false, F32(13.0f), {}}, {true, F32(3.0f), F32(2.0f)}, {true, F32(-1.5f), F32(0.1f)},
               {true, F32(1e7f), F32(0.3f)}, {true, F32(INFINITY), F32(-INFINITY)}};
      break;
    case CPUML_TENSOR_DATA_TYPE_FLOAT16:
      cases = {{false, F16(-2.5f), {}}, {true, F16(0.0f), F16(0.1f)}, {true, F16(60000.0f), F16(7.0f)},
               {true, F16(-3.0f), F16(0.0009765625f)}, {true, F16(5.96e-8f), F16(5.96e-8f)}};
      break;
    default:
      cases = {{false, Bits(0x8765432187654321ull), {}}, {true, Bits(10), Bits(uint64_t(-2))},
               {true, Bits(0x7FFFFFF0ull), Bits(7)}, {true, Bits(250), Bits(3)}, {true, Bits(uint64_t(-5)), Bits(1)}};
  }
  return cases;
}

constexpr uint8_t kUntouched = 0xEE;

// Creates the fill and runs it into a fresh buffer at least one element longer than the
// tensor's TotalTensorSizeInBytes, every byte starting as kUntouched. Returns all its elements,
// so a test can check the values and that the element past the tensor was not written.
template <class T>
std::vector<T> RunFill(const FillCase& c, const TensorDesc& out) {
  std::vector<T> result((out.MinimumBytes() + sizeof(T) - 1) / sizeof(T) + 1);
  memset(result.data(), kUntouched, result.size() * sizeof(T));
  OperatorPtr op;
  EXPECT_EQ(CreateFill(c, out, out.type(), &op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  if (!op) return result;
  const CPUML_BUFFER_BINDING binding{result.data(), out.MinimumBytes()};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &binding, 1, nullptr), CPUML_STATUS_SUCCESS)
      << cpuml_last_error_message();
  return result;
}

template <class T>
bool Untouched(const T& value) {
  T pattern;
  memset(&pattern, kUntouched, sizeof pattern);
  return memcmp(&value, &pattern, sizeof value) == 0;
}

TEST_P(FillTest, SeedConstantExample) {
  const auto r = RunFill<float>({false, F32(13.0f), {}}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 4}));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(r[i], 13.0f) << i;
  EXPECT_TRUE(Untouched(r[8]));
}

TEST_P(FillTest, SeedSequenceExamples) {
  const auto f = RunFill<float>({true, F32(3.0f), F32(2.0f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 3}));
  EXPECT_EQ(f[0], 3.0f);
  EXPECT_EQ(f[1], 5.0f);
  EXPECT_EQ(f[2], 7.0f);
  EXPECT_TRUE(Untouched(f[3]));
  const auto u = RunFill<uint8_t>({true, Bits(10), Bits(uint64_t(-2))}, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {1, 1, 2, 2}));
  EXPECT_EQ(u[0], 10);
  EXPECT_EQ(u[1], 8);
  EXPECT_EQ(u[2], 6);
  EXPECT_EQ(u[3], 4);
  EXPECT_TRUE(Untouched(u[4]));
}

// Hand-computed values the reference itself must produce.
TEST_P(FillTest, HandComputedSequences) {
  // INT8 wraps modulo 256: 120, 125, -126, -121
  const auto i8 = RunFill<int8_t>({true, Bits(120), Bits(5)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT8, {4}));
  EXPECT_EQ(i8[2], -126);
  EXPECT_EQ(i8[3], -121);
  // FLOAT32 closed form: element i is float(i) * 0.1f rounded once, not i accumulated adds
  const auto f = RunFill<float>({true, F32(0.0f), F32(0.1f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {40}));
  for (int i = 0; i < 40; ++i) EXPECT_EQ(f[i], static_cast<float>(i) * 0.1f) << i;
  // FLOAT16: 1 + i * 0.5 in half
  const auto h = RunFill<uint16_t>({true, F16(1.0f), F16(0.5f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {20}));
  EXPECT_EQ(h[0], 0x3C00);   // 1.0
  EXPECT_EQ(h[2], 0x4000);   // 2.0
  EXPECT_EQ(h[19], 0x4940);  // 10.5 = 1.3125 * 2^3
}

TEST_P(FillTest, AllTypesAllLengths) {
  const int max_length = ReducedSweep() ? 140 : 300;
  for (auto type : kFillTypes)
    for (const FillCase& c : CasesFor(type))
      for (int n = 1; n <= max_length; ++n) {
        SCOPED_TRACE(testing::Message() << "type " << type << " n " << n << " sequence " << c.sequence);
        ExpectMatchesReference(c, TensorDesc(type, {1, 1, 1, static_cast<uint32_t>(n)}));
        if (HasFatalFailure()) return;
      }
}

TEST_P(FillTest, StridedAndBroadcastOutputs) {
  struct Layout {
    std::vector<uint32_t> sizes, strides;
  };
  const Layout layouts[] = {
      {{3, 5, 37}, {300, 40, 1}},      // padded rows: gaps must stay untouched
      {{4, 33}, {1, 4}},               // transposed
      {{2, 3, 17}, {0, 17, 1}},        // stride 0: the later batch overwrites the earlier
      {{5, 9}, {9, 0}},                // every row element aliases: the last wins
      {{2, 2, 2, 2, 2, 2, 2, 3}, {}},  // rank 8
      {{7, 1, 65}, {130, 1, 2}},       // every other element
  };
  for (auto type : kFillTypes)
    for (const FillCase& c : CasesFor(type))
      for (const Layout& l : layouts) {
        SCOPED_TRACE(testing::Message() << "type " << type << " rank " << l.sizes.size());
        ExpectMatchesReference(c, TensorDesc(type, l.sizes, l.strides));
        if (HasFatalFailure()) return;
      }
}

// Bytes past which the library streams: this core's share of the last-level cache.
uint64_t StreamingThresholdBytes() {
  if (!cpuinfo_initialize()) return 8u << 20;
  const cpuinfo_processor* p = cpuinfo_get_processor(0);
  const cpuinfo_cache* last = p ? (p->cache.l3 ? p->cache.l3 : p->cache.l2) : nullptr;
  return last ? last->size / std::max<uint32_t>(1, last->processor_count) : 8u << 20;
}

TEST_P(FillTest, LargeOutputsStreamAndThread) {
  // Past the streaming threshold: exercises the non-temporal path and, with a pool, the split
  // across threads. The reduced sweep (emulation) keeps only the threaded split.
  const uint64_t bytes = std::max<uint64_t>(40u << 20, StreamingThresholdBytes() + (1u << 20));
  const uint32_t n = ReducedSweep() ? (1u << 20) : static_cast<uint32_t>(bytes / 4);
  pthreadpool_t pool = CreatePool(3);
  for (const FillCase& c : {FillCase{false, F32(-7.25f), {}}, FillCase{true, F32(0.5f), F32(0.25f)}}) {
    ExpectMatchesReference(c, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {n + 3}), pool);
    ExpectMatchesReference(c, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {n + 3}));
  }
  ExpectMatchesReference({true, Bits(3), Bits(7)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT16, {3, n / 3 + 1}), pool);
  ExpectMatchesReference({true, F16(1.0f), F16(0.001f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {n / 2 + 5}), pool);
  DestroyPool(pool);
}

// FLOAT16 sequences whose float32 values need rounding: ties to even (1 + i * 2^-11), large
// magnitudes, the tie at 65520 that overflows to inf, subnormals, and NaN (inf + 0 * -inf).
TEST_P(FillTest, HalfRoundingHardCases) {
  const std::pair<float, float> cases[] = {{1.0f, 0.00048828125f}, {-65504.0f, 0.1f},  {65504.0f, 8.0f},
                                           {0.0f, 5.9604645e-08f},  {6.1e-05f, -3e-06f}, {INFINITY, -INFINITY},
                                           {-2.0f, 0.33333f}};
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << "start " << c.first << " delta " << c.second);
    ExpectMatchesReference({true, F16(c.first), F16(c.second)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {77}));
  }
  // The tie at 65520 must give +inf (0x7C00): 65504's mantissa is odd.
  const auto r = RunFill<uint16_t>({true, F16(65504.0f), F16(16.0f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {2}));
  EXPECT_EQ(r[0], 0x7BFF);
  EXPECT_EQ(r[1], 0x7C00);
}

INSTANTIATE_TEST_SUITE_P(Tiers, FillTest, testing::ValuesIn(AllTiers()), TierName);

// Validation: each rule gives its status and a message naming the member; nothing is written.
class FillValidationTest : public testing::Test {};

void ExpectCreateFails(const FillCase& c, const TensorDesc& out, CPUML_TENSOR_DATA_TYPE value_type,
                       cpuml_status status, const char* needle) {
  OperatorPtr op;
  EXPECT_EQ(CreateFill(c, out, value_type, &op), status);
  EXPECT_EQ(op, nullptr);
  EXPECT_NE(strstr(cpuml_last_error_message(), needle), nullptr) << cpuml_last_error_message();
}

TEST(FillValidation, DescriptorRules) {
  const FillCase seq{true, Bits(0), Bits(1)};
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {2, 2}), CPUML_TENSOR_DATA_TYPE_INT32,
                    CPUML_STATUS_INVALID_ARGUMENT, "FILL_VALUE_SEQUENCE: ValueDataType INT32 must equal OutputTensor DataType FLOAT32");
  ExpectCreateFails(seq, TensorDesc(static_cast<CPUML_TENSOR_DATA_TYPE>(11), {2}), static_cast<CPUML_TENSOR_DATA_TYPE>(11),
                    CPUML_STATUS_UNSUPPORTED, "OutputTensor DataType 11");
  {  // hostile enum values are rejected, never loaded as the enum (the sanitizer build checks)
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT8, {2});
    int32_t hostile = -7;
    memcpy(&out.buffer().DataType, &hostile, sizeof hostile);
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_UNSUPPORTED, "OutputTensor DataType -7 is not");
    hostile = 0x40000000;
    TensorDesc out2(CPUML_TENSOR_DATA_TYPE_UINT8, {2});
    memcpy(&out2.buffer().Flags, &hostile, sizeof hostile);
    ExpectCreateFails(seq, out2, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT, "Flags 0x40000000 has bits");
    CPUML_TENSOR_DATA_TYPE value_type;
    hostile = 1234;
    memcpy(&value_type, &hostile, sizeof hostile);
    ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {2}), value_type, CPUML_STATUS_INVALID_ARGUMENT,
                      "ValueDataType 1234 must equal OutputTensor DataType UINT8");
  }
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {2, 0, 3}), CPUML_TENSOR_DATA_TYPE_UINT8,
                    CPUML_STATUS_INVALID_ARGUMENT, "OutputTensor Sizes[1] is 0");
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 1, 1, 1, 1, 1, 2}),
                    CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT, "DimensionCount 9 must be in 1..8");
  {
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_FLOAT32, {3, 5});
    out.buffer().TotalTensorSizeInBytes = 56;
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_STATUS_INVALID_ARGUMENT,
                      "TotalTensorSizeInBytes 56 must be at least 60");
  }
  {
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT8, {3});  // 3 bytes round up to 4
    out.buffer().TotalTensorSizeInBytes = 3;
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT, "must be at least 4");
  }
  {
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT8, {4});
    out.buffer().GuaranteedBaseOffsetAlignment = 12;
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT,
                      "GuaranteedBaseOffsetAlignment 12 must be 0 or a power of two");
  }
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT32, {0x10000, 0x10000, 0x10000, 0x10000, 0x10000}),
                    CPUML_TENSOR_DATA_TYPE_INT32, CPUML_STATUS_INVALID_ARGUMENT, "overflows 64 bits");
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT32, {0xFFFFFFFF, 3}, {0xFFFFFFFF, 0xFFFFFFFF}),
                    CPUML_TENSOR_DATA_TYPE_INT32, CPUML_STATUS_INVALID_ARGUMENT, "overflows 64 bits");
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT32, {4}, {}, CPUML_TENSOR_FLAG_OWNED_BY_CPUML),
                    CPUML_TENSOR_DATA_TYPE_INT32, CPUML_STATUS_INVALID_ARGUMENT, "OWNED_BY_CPUML");
  {
    CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant{nullptr, CPUML_TENSOR_DATA_TYPE_FLOAT32, {}};
    CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_FILL_VALUE_CONSTANT, &constant};
    cpuml_operator* op = reinterpret_cast<cpuml_operator*>(1);
    EXPECT_EQ(cpuml_create_operator(&desc, &op), CPUML_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(op, nullptr);
    EXPECT_STREQ(cpuml_last_error_message(), "FILL_VALUE_CONSTANT: OutputTensor must not be NULL");
    CPUML_TENSOR_DESC bad{CPUML_TENSOR_TYPE_INVALID, nullptr};
    constant.OutputTensor = &bad;
    EXPECT_EQ(cpuml_create_operator(&desc, &op), CPUML_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(strstr(cpuml_last_error_message(), "OutputTensor Type 0 must be CPUML_TENSOR_TYPE_BUFFER"), nullptr);
  }
}

TEST(FillValidation, ExecuteRulesWriteNothing) {
  TensorDesc out(CPUML_TENSOR_DATA_TYPE_INT16, {10});
  OperatorPtr op;
  ASSERT_EQ(CreateFill({false, Bits(7), {}}, out, CPUML_TENSOR_DATA_TYPE_INT16, &op), CPUML_STATUS_SUCCESS);
  GuardedBuffer buffer(out.MinimumBytes(), 0x11);
  const std::vector<uint8_t> before = buffer.Bytes();
  CPUML_BUFFER_BINDING small{buffer.data(), 19};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &small, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(strstr(cpuml_last_error_message(), "OutputTensor binding SizeInBytes 19 must be >= TotalTensorSizeInBytes 20"),
            nullptr)
      << cpuml_last_error_message();
  CPUML_BUFFER_BINDING misaligned{buffer.data() + 1, 20};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &misaligned, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(strstr(cpuml_last_error_message(), "aligned to the element size 2"), nullptr);
  CPUML_BUFFER_BINDING null_data{nullptr, 20};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &null_data, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  CPUML_BUFFER_BINDING good = buffer.Binding();
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &good, 2, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(cpuml_last_error_message(), "cpuml_execute_operator: output_count 2 must be 1");
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 1, &good, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(buffer.Bytes(), before);
  EXPECT_TRUE(buffer.CanariesIntact());
}

}  // namespace
}  // namespace cpuml_test
