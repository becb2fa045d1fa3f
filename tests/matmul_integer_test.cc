// MATRIX_MULTIPLY_INTEGER and MATRIX_MULTIPLY_INTEGER_TO_FLOAT on every tier: ONNX's and
// hand-computed examples, then sweeps byte-equal to the scalar reference.
#include <math.h>

#include "tests/qgemm_support.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kU8 = CPUML_TENSOR_DATA_TYPE_UINT8, kS8 = CPUML_TENSOR_DATA_TYPE_INT8;
constexpr CPUML_TENSOR_DATA_TYPE kTypes[2] = {kU8, kS8};

class MatMulIntegerTest : public TierTest {
 protected:
  // Runs `c` through the library (with `threads`) and the reference; bytes, gaps and canaries.
  void Check(const QConfig& c) {
    SCOPED_TRACE(Describe(c));
    ExpectReferenceBytes(c);
  }

  static std::string Describe(const QConfig& c) {
    char text[256];
    snprintf(text, sizeof text,
             "op=%d M=%u K=%u N=%u batch A{%u,%u} B{%u,%u} types %s%s zero %d%d scale %d%d bias %d bT=%d pad=%d "
             "outS=%d owned=%d/%d rank=%u threads=%d data=%d seed=%u",
             int(c.op), c.m, c.k, c.n, c.a_batch[0], c.a_batch[1], c.b_batch[0], c.b_batch[1],
             IsSigned(c.a_type) ? "s8" : "u8", IsSigned(c.b_type) ? "s8" : "u8", int(c.a_zero), int(c.b_zero),
             int(c.a_scale), int(c.b_scale), int(c.bias), c.b_transposed, c.padded, c.out_strided, c.b_owned,
             c.scales_owned, c.rank, c.threads, int(c.data), c.seed);
    return text;
  }

  static QConfig Random(std::mt19937& rng, MatMulOp op, uint32_t m, uint32_t k, uint32_t n) {
    const Quant granularity[3] = {Quant::kAbsent, Quant::kPerTensor, Quant::kPerChannel};
    QConfig c;
    c.op = op;
    c.m = m;
    c.k = k;
    c.n = n;
    c.a_type = kTypes[rng() % 2];
    c.b_type = kTypes[rng() % 2];
    c.a_zero = granularity[rng() % 3];
    c.b_zero = granularity[rng() % 3];
    c.a_scale = granularity[1 + rng() % 2];
    c.b_scale = granularity[1 + rng() % 2];
    c.bias = granularity[rng() % 3];
    c.signed_scales = rng() % 2;
    c.b_transposed = rng() % 2;
    c.padded = rng() % 3 == 0;
    c.out_strided = rng() % 5 == 0;
    c.b_owned = rng() % 2;
    c.scales_owned = rng() % 4 == 0;
    c.seed = rng();
    return c;
  }
};

// ONNX's MatMulInteger example (onnx/docs/Operators.md): u8 A with a zero point of 12.
TEST_P(MatMulIntegerTest, OnnxExample) {
  TensorDesc a(kU8, {4, 3}), azp(kU8, {1, 1}), b(kU8, {3, 2}), out(CPUML_TENSOR_DATA_TYPE_INT32, {4, 2});
  const uint8_t a_data[] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, b_data[] = {1, 4, 2, 5, 3, 6};
  uint8_t zero_point[4] = {12};
  int32_t result[8] = {};
  const CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC desc{a.get(), azp.get(), b.get(), nullptr, out.get()};
  const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &desc};
  cpuml_operator* raw = nullptr;
  ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  OperatorPtr op(raw);
  uint8_t a_copy[16], b_copy[8];
  memcpy(a_copy, a_data, sizeof a_data);
  memcpy(b_copy, b_data, sizeof b_data);
  const CPUML_BUFFER_BINDING inputs[] = {{a_copy, 12}, {zero_point, 4}, {b_copy, 8}, {nullptr, 0}};
  const CPUML_BUFFER_BINDING output{result, sizeof result};
  ASSERT_EQ(cpuml_execute_operator(op.get(), inputs, 4, &output, 1, nullptr), CPUML_STATUS_SUCCESS)
      << cpuml_last_error_message();
  const int32_t expected[8] = {-38, -83, -44, -98, -50, -113, -56, -128};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(result[i], expected[i]) << "element " << i;
}

// A hand-computed MATRIX_MULTIPLY_INTEGER_TO_FLOAT: sums 10 and -6 scaled by 0.5 * 0.25 and 0.5 * 2,
// bias 1 and -3; and without a bias a zero sum times a negative scale stays -0.0.
TEST_P(MatMulIntegerTest, IntegerToFloatByHand) {
  TensorDesc a(kS8, {1, 2}), a_scale(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1}), b(kS8, {2, 2}),
      b_scale(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 2}), bias(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 2}),
      out(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 2});
  int8_t a_data[4] = {2, 3};     // A = [2 3]
  int8_t b_data[4] = {2, 0, 2, -2};  // B = [[2 0] [2 -2]]: sums 10 and -6
  float a_scale_data[1] = {0.5f}, b_scale_data[2] = {0.25f, 2.0f}, bias_data[2] = {1.0f, -3.0f}, result[2] = {};
  for (bool with_bias : {true, false}) {
    const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC desc{
        a.get(), a_scale.get(), nullptr, b.get(), b_scale.get(), nullptr, with_bias ? bias.get() : nullptr, out.get()};
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &desc};
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    const CPUML_BUFFER_BINDING inputs[] = {{a_data, 4},         {a_scale_data, 4}, {nullptr, 0},
                                           {b_data, 4},         {b_scale_data, 8}, {nullptr, 0},
                                           {with_bias ? bias_data : nullptr, with_bias ? 8u : 0u}};
    const CPUML_BUFFER_BINDING output{result, sizeof result};
    ASSERT_EQ(cpuml_execute_operator(op.get(), inputs, 7, &output, 1, nullptr), CPUML_STATUS_SUCCESS)
        << cpuml_last_error_message();
    EXPECT_EQ(result[0], with_bias ? 2.25f : 1.25f);
    EXPECT_EQ(result[1], with_bias ? -9.0f : -6.0f);
  }
  // A = 0: both sums are 0; 0 * (0.5 * -2) is -0.0, kept without a bias.
  a_data[0] = a_data[1] = 0;
  b_scale_data[1] = -2.0f;
  const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC desc{a.get(),       a_scale.get(), nullptr, b.get(),
                                                                  b_scale.get(), nullptr,       nullptr, out.get()};
  const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &desc};
  cpuml_operator* raw = nullptr;
  ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS);
  OperatorPtr op(raw);
  const CPUML_BUFFER_BINDING inputs[] = {{a_data, 4}, {a_scale_data, 4}, {nullptr, 0}, {b_data, 4},
                                         {b_scale_data, 8}, {nullptr, 0}, {nullptr, 0}};
  const CPUML_BUFFER_BINDING output{result, sizeof result};
  ASSERT_EQ(cpuml_execute_operator(op.get(), inputs, 7, &output, 1, nullptr), CPUML_STATUS_SUCCESS);
  EXPECT_FALSE(signbit(result[0]));
  EXPECT_TRUE(signbit(result[1]) && result[1] == 0.0f) << result[1];
}

// Every M remainder of the tallest tile and N remainder of the widest panel, both operators.
TEST_P(MatMulIntegerTest, EveryTileRemainder) {
  std::mt19937 rng(77);
  const uint32_t ks[] = {1, 3, 4, 13, 64};
  const uint32_t max_m = ReducedSweep() ? 9 : 17;
  for (MatMulOp op : {MatMulOp::kInteger, MatMulOp::kIntegerToFloat})
    for (uint32_t m = 1; m <= max_m; m += ReducedSweep() ? 2 : 1)
      for (uint32_t n = 1; n <= 33; n += 2) {
        Check(Random(rng, op, m, ks[rng() % 5], n));
        if (HasFatalFailure()) return;
      }
}

// Random shapes with batches, broadcasting, lower ranks and threads.
TEST_P(MatMulIntegerTest, RandomShapesAndThreads) {
  std::mt19937 rng(78);
  const int cases = ReducedSweep() ? 10 : 40;
  for (int i = 0; i < cases; ++i) {
    const MatMulOp op = i % 2 ? MatMulOp::kInteger : MatMulOp::kIntegerToFloat;
    QConfig c = Random(rng, op, 1 + rng() % 200, 1 + rng() % 300, 1 + rng() % 200);
    if (rng() % 4 == 0) {
      c.a_batch = {1 + static_cast<uint32_t>(rng() % 2), 1 + static_cast<uint32_t>(rng() % 3)};
      c.b_batch = {rng() % 2 ? c.a_batch[0] : 1u, rng() % 2 ? c.a_batch[1] : 1u};
      c.m = 1 + c.m % 40;
    } else if (rng() % 3 == 0) {
      c.rank = 2;  // leading dimensions dropped: only where they are 1
    }
    c.threads = 1 + static_cast<int>(rng() % 3);
    Check(c);
    if (HasFatalFailure()) return;
  }
}

// Extremes against each other over long K, and K past one int32 chain (32,768): the integer
// output wraps modulo 2^32 only where the exact sum leaves int32; the float one uses it whole.
TEST_P(MatMulIntegerTest, ExtremesAndLongK) {
  uint32_t seed = 500;
  const uint32_t ks[] = {300, 4096, 32769};
  for (MatMulOp op : {MatMulOp::kInteger, MatMulOp::kIntegerToFloat})
    for (auto a : kTypes)
      for (auto b : kTypes)
        for (uint32_t k : ks) {
          if (ReducedSweep() && k > 300 && a != b) continue;
          QConfig c;
          c.op = op;
          c.m = k > 4096 ? 3 : 6;
          c.k = k;
          c.n = k > 4096 ? 17 : 35;
          c.a_type = a;
          c.b_type = b;
          c.data = Data::kExtremes;
          c.bias = Quant::kPerChannel;
          c.b_owned = seed & 1;
          c.threads = seed & 2 ? 2 : 1;
          c.seed = ++seed;
          Check(c);
          if (HasFatalFailure()) return;
        }
}

// A sum past int32: u8 255 times u8 255 over K = 40,000 is 2,601,000,000, which MATRIX_MULTIPLY_INTEGER
// wraps modulo 2^32 to -1,693,967,296 and MATRIX_MULTIPLY_INTEGER_TO_FLOAT keeps whole.
TEST_P(MatMulIntegerTest, SumPastInt32WrapsOrStaysWhole) {
  constexpr uint32_t kK = 40000;
  for (MatMulOp op : {MatMulOp::kInteger, MatMulOp::kIntegerToFloat}) {
    QConfig c;
    c.op = op;
    c.m = 2;
    c.k = kK;
    c.n = 3;
    c.a_type = c.b_type = kU8;
    c.a_zero = c.b_zero = Quant::kAbsent;
    c.a_scale = c.b_scale = Quant::kPerTensor;
    QProblem problem(c);
    memset(problem.buffer(QProblem::kA).data(), 0xFF, problem.buffer(QProblem::kA).size());
    memset(problem.buffer(QProblem::kB).data(), 0xFF, problem.buffer(QProblem::kB).size());
    if (op == MatMulOp::kIntegerToFloat) {
      const float one = 1.0f;
      memcpy(problem.buffer(QProblem::kAScale).data(), &one, 4);
      memcpy(problem.buffer(QProblem::kBScale).data(), &one, 4);
    }
    ASSERT_EQ(problem.Run(nullptr), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    const uint8_t* out = problem.buffer(QProblem::kOut).data();
    for (int i = 0; i < 6; ++i) {
      if (op == MatMulOp::kInteger) {
        int32_t v;
        memcpy(&v, out + 4 * i, 4);
        EXPECT_EQ(v, -1693967296) << "element " << i;
      } else {
        float v;
        memcpy(&v, out + 4 * i, 4);
        EXPECT_EQ(v, 2601000000.0f) << "element " << i;
      }
    }
  }
}

// Shapes that reach each tier's other kernels: one row, two to four rows, whole AMX tiles with A
// read in place, many threads.
TEST_P(MatMulIntegerTest, EveryKernelOfTheTier) {
  std::mt19937 rng(79);
  const uint32_t ms[] = {1, 2, 3, 4, 5, 32, 48, 64};
  for (MatMulOp op : {MatMulOp::kInteger, MatMulOp::kIntegerToFloat})
    for (uint32_t m : ms)
      for (int threads : {1, 16}) {
        if (ReducedSweep() && threads > 1) continue;
        QConfig c = Random(rng, op, m, 256, 96);
        c.a_type = rng() % 2 ? kU8 : kS8;
        c.threads = threads;
        Check(c);
        if (HasFatalFailure()) return;
      }
}

INSTANTIATE_TEST_SUITE_P(Tiers, MatMulIntegerTest, testing::ValuesIn(AllTiers()), TierName);

// Descriptor and binding rules: each names the member and the rule, and nothing is written.
TEST(MatMulIntegerValidation, RulesNameTheMember) {
  auto create_error = [](const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC& desc) -> std::string {
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &desc};
    cpuml_operator* raw = nullptr;
    EXPECT_NE(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS);  // INVALID_ARGUMENT, or UNSUPPORTED for a type
    cpuml_destroy_operator(raw);
    return cpuml_last_error_message();
  };
  TensorDesc a(kU8, {4, 8}), b(kS8, {8, 5}), scale(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1}),
      out(CPUML_TENSOR_DATA_TYPE_FLOAT32, {4, 5}), out_u8(kU8, {4, 5}), bias_wrong(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 4});
  EXPECT_NE(create_error({a.get(), scale.get(), nullptr, b.get(), scale.get(), nullptr, nullptr, out_u8.get()})
                .find("OutputTensor"),
            std::string::npos);
  EXPECT_NE(create_error({a.get(), nullptr, nullptr, b.get(), scale.get(), nullptr, nullptr, out.get()})
                .find("AScaleTensor must not be NULL"),
            std::string::npos);
  EXPECT_NE(create_error({a.get(), scale.get(), nullptr, b.get(), scale.get(), nullptr, bias_wrong.get(), out.get()})
                .find("BiasTensor sizes"),
            std::string::npos);
}

// A NaN scale is refused at execute (or at initialize when owned), with the output untouched; an
// output that overlaps an input is refused too.
TEST(MatMulIntegerValidation, BadScalesAndOverlapWriteNothing) {
  QConfig c;
  c.op = MatMulOp::kIntegerToFloat;
  c.m = 3;
  c.k = 8;
  c.n = 5;
  c.b_scale = Quant::kPerChannel;
  for (bool owned : {false, true}) {
    c.scales_owned = owned;
    QProblem problem(c);
    float* b_scale = reinterpret_cast<float*>(problem.buffer(QProblem::kBScale).data());
    b_scale[2 * 3] = NAN;  // element 3 (stride 2)
    const std::vector<uint8_t> before = problem.buffer(QProblem::kOut).Bytes();
    EXPECT_EQ(problem.Run(nullptr), CPUML_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cpuml_last_error_message()).find("BScaleTensor element 3"), std::string::npos)
        << cpuml_last_error_message();
    EXPECT_EQ(problem.buffer(QProblem::kOut).Bytes(), before);
  }
  // The output bound over A's bytes.
  c.scales_owned = false;
  QProblem problem(c);
  OperatorPtr op;
  ASSERT_EQ(problem.CreateInitialized(&op), CPUML_STATUS_SUCCESS);
  auto inputs = problem.Inputs(true);
  std::vector<uint8_t> shared(4096, 0);
  inputs[0] = {shared.data(), 4096};
  const CPUML_BUFFER_BINDING out{shared.data() + 8, 4000};
  EXPECT_EQ(cpuml_execute_operator(op.get(), inputs.data(), 7, &out, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cpuml_last_error_message()).find("overlaps ATensor"), std::string::npos)
      << cpuml_last_error_message();
}

}  // namespace
}  // namespace cpuml_test
