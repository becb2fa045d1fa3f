// QUANTIZED_LINEAR_MATRIX_MULTIPLY at the limits of its size arithmetic, with honest bindings as
// large as the descriptors say (virtual memory, MAP_NORESERVE): every product of sizes is
// computed in 64 bits, and what cpuml does not support is refused at create with the limit named.
#include "tests/qgemm_support.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kU8 = CPUML_TENSOR_DATA_TYPE_UINT8, kS8 = CPUML_TENSOR_DATA_TYPE_INT8,
                                 kF32 = CPUML_TENSOR_DATA_TYPE_FLOAT32;

// A {batch..., 1, 1} x B {1, 1} = 5 with every scale 1.0 and no zero points: each output
// element is A * 5, computed by hand.
struct TinyBatches {
  TinyBatches(std::vector<uint32_t> a_sizes, std::vector<uint32_t> a_strides, std::vector<uint32_t> out_sizes,
              std::vector<uint32_t> out_strides)
      : a(kU8, std::move(a_sizes), std::move(a_strides)),
        b(kS8, {1, 1}),
        scale(kF32, {1, 1}),
        out(kU8, std::move(out_sizes), std::move(out_strides)),
        b_data(4),
        scale_data(4) {
    b_data.data()[0] = 5;  // every product is A * 5
    const float one = 1.0f;
    memcpy(scale_data.data(), &one, 4);
  }
  CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC Desc() const {
    return {a.get(), scale.get(), nullptr, b.get(), scale.get(), nullptr, scale.get(), nullptr, out.get()};
  }
  cpuml_status Create(OperatorPtr* op) const {
    const auto d = Desc();
    const CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d};
    cpuml_operator* raw = nullptr;
    const cpuml_status s = cpuml_create_operator(&desc, &raw);
    op->reset(raw);
    return s;
  }
  // Creates, then executes with A and the output bound as given.
  cpuml_status Run(const CPUML_BUFFER_BINDING& a_binding, const CPUML_BUFFER_BINDING& out_binding, pthreadpool_t pool) {
    OperatorPtr op;
    if (cpuml_status s = Create(&op)) return s;
    const CPUML_BUFFER_BINDING inputs[8] = {a_binding,           scale_data.Binding(), {}, b_data.Binding(),
                                            scale_data.Binding(), {},                   scale_data.Binding(), {}};
    return cpuml_execute_operator(op.get(), inputs, 8, &out_binding, 1, pool);
  }
  TensorDesc a, b, scale, out;
  GuardedBuffer b_data, scale_data;
};

class QGemmLimitsTest : public TierTest {};

// The reported over-read: 65537 x 65537 batches wrapped to 131073 in 32 bits, so packed A was
// sized for 131073 matrices and read far past its end. The batch count is beyond the documented
// limit (2^31 - 1 batches: executing 2^32 one-element products is not a workload), so create
// refuses it, names the limit, and nothing is read or written.
TEST_P(QGemmLimitsTest, BatchCountThatWrapped32BitsIsRefusedAtCreate) {
  TinyBatches p({65537, 65537, 1, 1}, {0, 0, 0, 0}, {65537, 65537, 1, 1}, {});
  const uint64_t out_bytes = uint64_t{65537} * 65537;
  ASSERT_EQ(p.out.buffer().TotalTensorSizeInBytes, (out_bytes + 3) / 4 * 4);
  VirtualBuffer output(p.out.buffer().TotalTensorSizeInBytes);
  ASSERT_NE(output.data(), nullptr) << "could not reserve the 4 GiB output";
  OperatorPtr op;
  EXPECT_EQ(p.Create(&op), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(op, nullptr);
  EXPECT_STREQ(cpuml_last_error_message(),
               "QUANTIZED_LINEAR_MATRIX_MULTIPLY: OutputTensor batch x channel count 4295098369 must be at most "
               "2147483647 (docs/semantics.md, Limits)");
  EXPECT_EQ(output.ResidentPages(), 0u);
}

TEST_P(QGemmLimitsTest, LargestBatchCountIsAccepted) {
  TinyBatches at_limit({1, 1, 1, 1}, {}, {2147483647u, 1, 1, 1}, {});
  OperatorPtr op;
  EXPECT_EQ(at_limit.Create(&op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  TinyBatches beyond({1, 1, 1, 1}, {}, {1u << 30, 2, 1, 1}, {});
  EXPECT_EQ(beyond.Create(&op), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(strstr(cpuml_last_error_message(), "batch x channel count 2147483648 must be at most 2147483647"), nullptr)
      << cpuml_last_error_message();
}

// Batch counts past 2^16 x 2^16 in the spirit of the report, small enough to execute: A repeats
// one matrix (stride 0) over 3 x 65537 batches and is packed once.
TEST_P(QGemmLimitsTest, BroadcastAOverManyBatches) {
  TinyBatches p({65537, 3, 1, 1}, {0, 0, 0, 0}, {65537, 3, 1, 1}, {});
  GuardedBuffer a(4), out(p.out.buffer().TotalTensorSizeInBytes);
  a.data()[0] = 3;
  pthreadpool_t pool = CreatePool(2);
  ASSERT_EQ(p.Run(a.Binding(), out.Binding(), pool), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  DestroyPool(pool);
  const uint64_t count = uint64_t{65537} * 3;
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < count; ++i) wrong += out.data()[i] != 15;
  EXPECT_EQ(wrong, 0u);
  EXPECT_TRUE(out.CanariesIntact());
}

// Output offsets beyond 2^32 bytes: 4096 batches 2 MiB apart in an 8 GiB virtual output, each
// batch with its own A value, so a wrapped offset or batch index shows as a wrong or missing byte.
TEST_P(QGemmLimitsTest, OutputOffsetsBeyond4GiB) {
  constexpr uint32_t kBatches = 4096, kStride = 2u << 20;
  TinyBatches p({kBatches, 1, 1, 1}, {}, {kBatches, 1, 1, 1}, {kStride, kStride, 1, 1});
  VirtualBuffer output(p.out.buffer().TotalTensorSizeInBytes);
  ASSERT_NE(output.data(), nullptr);
  GuardedBuffer a(kBatches);
  for (uint32_t i = 0; i < kBatches; ++i) a.data()[i] = static_cast<uint8_t>(i % 51);
  ASSERT_EQ(p.Run(a.Binding(), output.Binding(), nullptr), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < kBatches; ++i) wrong += output.data()[uint64_t{i} * kStride] != (i % 51) * 5;
  EXPECT_EQ(wrong, 0u);
  // One page per batch written, nothing between them.
  EXPECT_EQ(output.ResidentPages(), kBatches);
}

INSTANTIATE_TEST_SUITE_P(Tiers, QGemmLimitsTest, testing::ValuesIn(AllTiers()), TierName);

}  // namespace
}  // namespace cpuml_test
