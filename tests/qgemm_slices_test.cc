// The matrix-multiplication family on problems whose whole-matrix workspaces would pass 64 MiB
// (QGemmSlicedPlan): the scratch stays bounded by the slices, and the bytes are the reference's.
#include "tests/qgemm_support.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kU8 = CPUML_TENSOR_DATA_TYPE_UINT8, kS8 = CPUML_TENSOR_DATA_TYPE_INT8,
                                 kS32 = CPUML_TENSOR_DATA_TYPE_INT32, kF32 = CPUML_TENSOR_DATA_TYPE_FLOAT32;
constexpr uint64_t kBound = uint64_t{64} << 20;

class QGemmSlicesTest : public TierTest {
 protected:
  // Creates `c`'s operator, checks its scratch against the bound, then runs it against the
  // reference.
  void Check(const QConfig& c) {
    // Emulated runs take the emulated CPU's own tier only (the native run takes every tier the
    // host has): the reference's tens of millions of products are slow there.
    if (Emulated() && GetParam() != BestTier()) GTEST_SKIP() << "emulated: the emulated CPU's own tier only";
    SCOPED_TRACE("op=" + std::to_string(int(c.op)) + " M=" + std::to_string(c.m) + " K=" + std::to_string(c.k) +
                 " N=" + std::to_string(c.n) + " owned=" + std::to_string(c.b_owned));
    QProblem problem(c);
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(problem.Create(&raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    CPUML_BINDING_PROPERTIES properties;
    ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
    EXPECT_LT(properties.TemporaryResourceSize, kBound);
    ExpectReferenceBytes(c);
  }
};

// An unowned B of 66,000 x 1,040 (69 MB, packed per execute): slices of K (two whole chunks of
// 32,768 and a tail) and of N, with per-column quantization. One output stage per tier, in turn
// (the reference's 69M products per stage are slow under emulation).
TEST_P(QGemmSlicesTest, UnownedBInSlicesOfKAndN) {
  const MatMulOp ops[3] = {MatMulOp::kQuantizedLinear, MatMulOp::kInteger, MatMulOp::kIntegerToFloat};
  QConfig c;
  c.op = ops[GetParam() % 3];
  c.m = 1;
  c.k = 66000;
  c.n = 1040;
  c.a_type = GetParam() & 1 ? kS8 : kU8;
  c.b_type = GetParam() & 1 ? kU8 : kS8;
  c.a_zero = c.a_scale = c.out_scale = c.out_zero = Quant::kPerTensor;
  c.b_zero = c.b_scale = c.bias = Quant::kPerChannel;
  c.signed_scales = c.op == MatMulOp::kIntegerToFloat;
  c.b_transposed = GetParam() & 1;
  c.threads = 2;
  c.seed = 900 + GetParam();
  Check(c);
}

// An owned B (packed whole at initialize) against 1,000 x 68,000 of A (packed per execute):
// slices of rows, with per-row quantization, and of K, which read the prepacked panels from
// their chunk onwards.
TEST_P(QGemmSlicesTest, OwnedBWithAInSlicesOfRowsAndK) {
  QConfig c;
  c.op = MatMulOp::kQuantizedLinear;
  c.m = 1000;
  c.k = 68000;
  c.n = 1;
  c.a_zero = c.a_scale = c.out_scale = c.out_zero = Quant::kPerChannel;
  c.b_owned = true;
  c.threads = 2;
  c.seed = 17;
  Check(c);
}

// The stride-0 problem K = 2^30 with a 3 x 5 output, whose workspaces would take tens of GB:
// every product is (3 - 1) x (5 - -2) = 14, so the sum is 14 x 2^30, which the INT32 output keeps
// modulo 2^32 (2^31, that is INT32_MIN) and the requantized one divides by an output scale of 2^30.
// Every tier checks the scratch; the best tier of a native run executes it (packing 2^30 x (mr +
// nr) bytes takes seconds natively, minutes under emulation; not in the reduced sweep), since
// the slicing is the front end's and the tests above run it on every tier's kernels.
TEST_P(QGemmSlicesTest, KOfTwoTo30WithStrideZeroRunsInBoundedScratch) {
  const bool executes = GetParam() == BestTier() && !Emulated() && !ReducedSweep();
  constexpr uint32_t kK = 1u << 30;
  TensorDesc a(kU8, {1, 1, 3, kK}, {0, 0, 0, 0}), b(kS8, {1, 1, kK, 5}, {0, 0, 0, 0});
  TensorDesc one(kF32, {1, 1, 1, 1}), azp(kU8, {1, 1, 1, 1}), bzp(kS8, {1, 1, 1, 1});
  GuardedBuffer a_data(4, 3), b_data(4, 5), azp_data(4, 1), bzp_data(4, static_cast<uint8_t>(-2));
  GuardedBuffer one_data(4), out_scale_data(4);
  const float unit = 1.0f, out_scale = static_cast<float>(kK);
  memcpy(one_data.data(), &unit, 4);
  memcpy(out_scale_data.data(), &out_scale, 4);
  pthreadpool_t pool = CreatePool(2);
  for (bool integer : {true, false}) {
    SCOPED_TRACE(integer ? "MATRIX_MULTIPLY_INTEGER" : "QUANTIZED_LINEAR_MATRIX_MULTIPLY");
    TensorDesc out(integer ? kS32 : kU8, {1, 1, 3, 5});
    GuardedBuffer out_data(out.buffer().TotalTensorSizeInBytes);
    const CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC integer_desc{a.get(), azp.get(), b.get(), bzp.get(), out.get()};
    const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC linear_desc{
        a.get(), one.get(), azp.get(), b.get(), one.get(), bzp.get(), one.get(), nullptr, out.get()};
    // The output scale's binding is 2^30 (in the slot of OutputScaleTensor, the seventh).
    const CPUML_BUFFER_BINDING integer_inputs[4] = {a_data.Binding(), azp_data.Binding(), b_data.Binding(),
                                                    bzp_data.Binding()};
    const CPUML_BUFFER_BINDING linear_inputs[8] = {a_data.Binding(), one_data.Binding(), azp_data.Binding(),
                                                   b_data.Binding(), one_data.Binding(), bzp_data.Binding(),
                                                   out_scale_data.Binding(), {}};
    const CPUML_OPERATOR_DESC desc = integer
                                         ? CPUML_OPERATOR_DESC{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &integer_desc}
                                         : CPUML_OPERATOR_DESC{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &linear_desc};
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    CPUML_BINDING_PROPERTIES properties;
    ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
    EXPECT_LT(properties.TemporaryResourceSize, kBound);
    if (!executes) continue;
    const CPUML_BUFFER_BINDING out_binding = out_data.Binding();
    ASSERT_EQ(cpuml_execute_operator(op.get(), integer ? integer_inputs : linear_inputs, integer ? 4 : 8,
                                     &out_binding, 1, pool),
              CPUML_STATUS_SUCCESS)
        << cpuml_last_error_message();
    for (int i = 0; i < 15; ++i) {
      if (integer) {
        int32_t v;
        memcpy(&v, out_data.data() + 4 * i, 4);
        EXPECT_EQ(v, INT32_MIN) << "element " << i;
      } else {
        EXPECT_EQ(out_data.data()[i], 14) << "element " << i;
      }
    }
    EXPECT_TRUE(out_data.CanariesIntact());
  }
  DestroyPool(pool);
  if (!executes)
    GTEST_SKIP() << "scratch checked; executed on the best tier of a native run only (" << cpuml_isa_name(BestTier()) << ")";
}

INSTANTIATE_TEST_SUITE_P(Tiers, QGemmSlicesTest, testing::ValuesIn(AllTiers()), TierName);

}  // namespace
}  // namespace cpuml_test
