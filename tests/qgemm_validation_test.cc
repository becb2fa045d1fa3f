// QUANTIZED_LINEAR_MATRIX_MULTIPLY validation: each rule gives its status and a message naming
// the member and the rule, and nothing is written to the output.
#include "tests/qgemm_support.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kU8 = CPUML_TENSOR_DATA_TYPE_UINT8, kS8 = CPUML_TENSOR_DATA_TYPE_INT8,
                                 kF32 = CPUML_TENSOR_DATA_TYPE_FLOAT32;

QConfig Small() {
  QConfig c;
  c.m = 3;
  c.k = 4;
  c.n = 6;
  c.b_scale = Quant::kPerChannel;
  return c;
}

// Replaces one member's descriptor and expects create to fail with `needle` in the message.
void ExpectCreateFails(int member, const TensorDesc* replacement, cpuml_status status, const char* needle) {
  QProblem p(Small());
  auto d = p.OperatorDesc();
  const CPUML_TENSOR_DESC** slots[9] = {&d.ATensor,      &d.AScaleTensor,      &d.AZeroPointTensor,
                                        &d.BTensor,      &d.BScaleTensor,      &d.BZeroPointTensor,
                                        &d.OutputScaleTensor, &d.OutputZeroPointTensor, &d.OutputTensor};
  *slots[member] = replacement ? replacement->get() : nullptr;
  CPUML_OPERATOR_DESC op{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d};
  cpuml_operator* out = reinterpret_cast<cpuml_operator*>(1);
  EXPECT_EQ(cpuml_create_operator(&op, &out), status) << needle;
  EXPECT_EQ(out, nullptr);
  EXPECT_NE(strstr(cpuml_last_error_message(), needle), nullptr) << "message: " << cpuml_last_error_message();
}

TEST(QGemmValidation, Shapes) {
  const TensorDesc bad_b_scale(kF32, {1, 1, 1, 5});
  ExpectCreateFails(QProblem::kBScale, &bad_b_scale, CPUML_STATUS_INVALID_ARGUMENT,
                    "QUANTIZED_LINEAR_MATRIX_MULTIPLY: BScaleTensor sizes {1,1,1,5} must be {1,1,1,1} or {1,1,1,N} with N=6");
  const TensorDesc bad_a_scale(kF32, {1, 1, 1, 3});
  ExpectCreateFails(QProblem::kAScale, &bad_a_scale, CPUML_STATUS_INVALID_ARGUMENT,
                    "AScaleTensor sizes {1,1,1,3} must be {1,1,1,1} or {1,1,M,1} with M=3");
  const TensorDesc bad_out_zero(kU8, {1, 2, 3, 1});
  ExpectCreateFails(QProblem::kOutZero, &bad_out_zero, CPUML_STATUS_INVALID_ARGUMENT,
                    "OutputZeroPointTensor sizes {1,2,3,1} must be {1,1,1,1} or {1,1,M,1}");
  const TensorDesc bad_b_zero(kS8, {1, 1, 2, 6});
  ExpectCreateFails(QProblem::kBZero, &bad_b_zero, CPUML_STATUS_INVALID_ARGUMENT, "BZeroPointTensor sizes {1,1,2,6}");
  const TensorDesc bad_k(kS8, {1, 1, 5, 6});
  ExpectCreateFails(QProblem::kB, &bad_k, CPUML_STATUS_INVALID_ARGUMENT, "BTensor sizes {1,1,5,6} must have K=4 rows");
  const TensorDesc bad_out(kU8, {1, 1, 3, 7});
  ExpectCreateFails(QProblem::kOut, &bad_out, CPUML_STATUS_INVALID_ARGUMENT,
                    "OutputTensor sizes {1,1,3,7} must end in {M,N} = {3,6}");
  const TensorDesc bad_a_batch(kU8, {2, 1, 3, 4});
  ExpectCreateFails(QProblem::kA, &bad_a_batch, CPUML_STATUS_INVALID_ARGUMENT,
                    "ATensor sizes {2,1,3,4}: its batch size 2 must be 1 or OutputTensor's 1 (OutputTensor sizes {1,1,3,6})");
  const TensorDesc bad_b_channel(kS8, {1, 3, 4, 6});
  ExpectCreateFails(QProblem::kB, &bad_b_channel, CPUML_STATUS_INVALID_ARGUMENT,
                    "BTensor sizes {1,3,4,6}: its channel size 3 must be 1 or OutputTensor's 1");
  const TensorDesc rank5(kU8, {1, 1, 1, 3, 4});
  ExpectCreateFails(QProblem::kA, &rank5, CPUML_STATUS_INVALID_ARGUMENT, "ATensor DimensionCount 5 must be in 2..4");
  const TensorDesc aliasing_out(kU8, {1, 1, 3, 6}, {0, 0, 0, 1});
  ExpectCreateFails(QProblem::kOut, &aliasing_out, CPUML_STATUS_INVALID_ARGUMENT, "OutputTensor Strides must not make two");
}

TEST(QGemmValidation, TypesAndPresence) {
  const TensorDesc f16_a(CPUML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, 3, 4});
  ExpectCreateFails(QProblem::kA, &f16_a, CPUML_STATUS_UNSUPPORTED, "ATensor DataType FLOAT16 must be one of UINT8, INT8");
  const TensorDesc u8_scale(kU8, {1, 1, 1, 1});
  ExpectCreateFails(QProblem::kOutScale, &u8_scale, CPUML_STATUS_UNSUPPORTED, "OutputScaleTensor DataType UINT8 must be one of FLOAT32");
  const TensorDesc s8_zero(kS8, {1, 1, 1, 1});
  ExpectCreateFails(QProblem::kAZero, &s8_zero, CPUML_STATUS_INVALID_ARGUMENT,
                    "AZeroPointTensor DataType INT8 must equal ATensor DataType UINT8");
  ExpectCreateFails(QProblem::kBScale, nullptr, CPUML_STATUS_INVALID_ARGUMENT, "BScaleTensor must not be NULL");
  ExpectCreateFails(QProblem::kOut, nullptr, CPUML_STATUS_INVALID_ARGUMENT, "OutputTensor must not be NULL");
  TensorDesc small_total(kS8, {1, 1, 4, 6});
  small_total.buffer().TotalTensorSizeInBytes = 20;
  ExpectCreateFails(QProblem::kB, &small_total, CPUML_STATUS_INVALID_ARGUMENT,
                    "BTensor TotalTensorSizeInBytes 20 must be at least 24");
}

// Execute-time rules leave the output untouched.
class QGemmExecuteValidation : public testing::Test {
 protected:
  void ExpectExecuteFails(QProblem& p, cpuml_status status, const char* needle,
                          const std::function<void(std::vector<CPUML_BUFFER_BINDING>&)>& edit = nullptr,
                          bool initialize = true) {
    const auto d = p.OperatorDesc();
    CPUML_OPERATOR_DESC od{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d};
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&od, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    if (initialize) {
      const auto init = p.Inputs(false);
      ASSERT_EQ(cpuml_initialize_operator(op.get(), init.data(), 8), CPUML_STATUS_SUCCESS);
    }
    auto inputs = p.Inputs(true);
    if (edit) edit(inputs);
    const auto before = p.buffer(QProblem::kOut).Bytes();
    const CPUML_BUFFER_BINDING out = p.buffer(QProblem::kOut).Binding();
    EXPECT_EQ(cpuml_execute_operator(op.get(), inputs.data(), 8, &out, 1, nullptr), status);
    EXPECT_NE(strstr(cpuml_last_error_message(), needle), nullptr) << "message: " << cpuml_last_error_message();
    EXPECT_EQ(p.buffer(QProblem::kOut).Bytes(), before);
    EXPECT_TRUE(p.buffer(QProblem::kOut).CanariesIntact());
  }
};

TEST_F(QGemmExecuteValidation, BadScalesWriteNothing) {
  const float bad[] = {0.0f, -1.0f, INFINITY, NAN};
  for (float v : bad) {
    QProblem p(Small());
    reinterpret_cast<float*>(p.buffer(QProblem::kBScale).data())[2 * 4] = v;  // element 4 (stride 2)
    ExpectExecuteFails(p, CPUML_STATUS_INVALID_ARGUMENT, "BScaleTensor element 4 is");
  }
  QProblem p(Small());
  *reinterpret_cast<float*>(p.buffer(QProblem::kOutScale).data()) = -0.0f;
  ExpectExecuteFails(p, CPUML_STATUS_INVALID_ARGUMENT, "OutputScaleTensor element 0 is -0: scales must be finite and > 0");
}

TEST_F(QGemmExecuteValidation, BindingsWriteNothing) {
  {
    QProblem p(Small());
    ExpectExecuteFails(p, CPUML_STATUS_INVALID_ARGUMENT, "ATensor binding Data must not be NULL",
                       [](std::vector<CPUML_BUFFER_BINDING>& in) { in[0] = {nullptr, 0}; });
  }
  {
    QProblem p(Small());
    ExpectExecuteFails(p, CPUML_STATUS_INVALID_ARGUMENT, "BTensor binding SizeInBytes 23 must be >= TotalTensorSizeInBytes 24",
                       [](std::vector<CPUML_BUFFER_BINDING>& in) { in[3].SizeInBytes = 23; });
  }
  {
    QProblem p(Small());
    ExpectExecuteFails(p, CPUML_STATUS_INVALID_ARGUMENT, "AScaleTensor binding Data",
                       [](std::vector<CPUML_BUFFER_BINDING>& in) {
                         in[1].Data = static_cast<char*>(in[1].Data) + 1;
                       });
  }
  {
    QConfig c = Small();
    c.b_owned = true;
    QProblem p(c);
    ExpectExecuteFails(p, CPUML_STATUS_INVALID_STATE, "call cpuml_initialize_operator before execute", nullptr, false);
  }
}

TEST(QGemmValidation, InitializeChecksOwnedBindings) {
  QConfig c = Small();
  c.b_owned = true;
  QProblem p(c);
  const auto d = p.OperatorDesc();
  CPUML_OPERATOR_DESC od{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d};
  cpuml_operator* raw = nullptr;
  ASSERT_EQ(cpuml_create_operator(&od, &raw), CPUML_STATUS_SUCCESS);
  OperatorPtr op(raw);
  auto init = p.Inputs(false);
  init[3] = {nullptr, 0};
  EXPECT_EQ(cpuml_initialize_operator(op.get(), init.data(), 8), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(strstr(cpuml_last_error_message(), "BTensor binding Data must not be NULL"), nullptr);
  EXPECT_EQ(cpuml_initialize_operator(op.get(), init.data(), 3), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(cpuml_last_error_message(), "cpuml_initialize_operator: input_count 3 must be 0 or 8");
  EXPECT_EQ(cpuml_initialize_operator(op.get(), nullptr, 0), CPUML_STATUS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace cpuml_test
