// Thread safety of the C API from callers' threads: one operator executed concurrently (fills,
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT and DYNAMIC_QUANTIZE_LINEAR here; owned-B matmul in
// qgemm_test.cc), and error messages that stay per thread. The ThreadSanitizer job of
// scripts/test.sh runs every test named *Concurrent*.
#include <math.h>

#include <condition_variable>
#include <mutex>
#include <random>

#include "tests/qgemm_support.h"

namespace cpuml_test {
namespace {

constexpr int kCallers = 4;

// Holds every caller until all have arrived.
class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const int generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation != generation_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_, arrived_ = 0, generation_ = 0;
};

// One caller's record of its repetitions: each execute's status and bytes are checked as it
// returns, and the output is put back as it was before the next, so a wrong repetition cannot
// hide behind a later right one.
class Repetitions {
 public:
  void Record(cpuml_status status, GuardedBuffer& output, const std::vector<uint8_t>& expected,
              const std::vector<uint8_t>& fresh) {
    Record(status, {&output}, {&expected}, {&fresh});
  }
  // An operator of several outputs: the repetition is wrong if any of them differs.
  void Record(cpuml_status status, const std::vector<GuardedBuffer*>& outputs,
              const std::vector<const std::vector<uint8_t>*>& expected,
              const std::vector<const std::vector<uint8_t>*>& fresh) {
    ++runs_;
    bool right = true;
    for (size_t i = 0; i < outputs.size(); ++i) right &= outputs[i]->Bytes() == *expected[i];
    if (status != CPUML_STATUS_SUCCESS) {
      ++failed_;
    } else if (!right) {
      ++wrong_;
    }
    for (size_t i = 0; i < outputs.size(); ++i) memcpy(outputs[i]->data(), fresh[i]->data(), fresh[i]->size());
  }
  void Expect(int runs) const {
    EXPECT_EQ(runs_, runs);
    EXPECT_EQ(failed_, 0) << "repetitions that did not succeed";
    EXPECT_EQ(wrong_, 0) << "repetitions whose bytes differ from the reference";
  }

 private:
  int runs_ = 0, failed_ = 0, wrong_ = 0;
};

class ConcurrencyTest : public TierTest {};

TEST_P(ConcurrencyTest, ConcurrentFillExecutesOnOneOperator) {
  const TensorDesc out(CPUML_TENSOR_DATA_TYPE_INT32, {37, 129});
  for (bool sequence : {false, true}) {
    CPUML_SCALAR_UNION start{}, delta{};
    start.Int32 = -1000;
    delta.Int32 = 7;
    const CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant{out.get(), CPUML_TENSOR_DATA_TYPE_INT32, start};
    const CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC seq{out.get(), CPUML_TENSOR_DATA_TYPE_INT32, start, delta};
    const CPUML_OPERATOR_DESC desc{sequence ? CPUML_OPERATOR_FILL_VALUE_SEQUENCE : CPUML_OPERATOR_FILL_VALUE_CONSTANT,
                                   sequence ? static_cast<const void*>(&seq) : static_cast<const void*>(&constant)};
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    // The oracle: the scalar reference into its own buffer.
    GuardedBuffer expected(out.MinimumBytes(), 0);
    const auto strides = out.Strides();
    if (sequence) cpuml::reference::FillValueSequence(View(out, strides, expected.data()), start, delta);
    else cpuml::reference::FillValueConstant(View(out, strides, expected.data()), start);

    std::vector<GuardedBuffer> outputs;
    for (int t = 0; t < kCallers; ++t) outputs.emplace_back(out.MinimumBytes(), 0);
    std::vector<Repetitions> checked(kCallers);
    const std::vector<uint8_t> fresh(out.MinimumBytes(), 0);
    Barrier start_together(CallersOverlap(kCallers) ? kCallers : 1);
    OnCallerThreads(kCallers, [&](int t) {
      const CPUML_BUFFER_BINDING binding = outputs[t].Binding();
      start_together.Wait();
      for (int rep = 0; rep < 20; ++rep)
        checked[t].Record(cpuml_execute_operator(op.get(), nullptr, 0, &binding, 1, nullptr), outputs[t], expected.Bytes(),
                          fresh);
    });
    for (int t = 0; t < kCallers; ++t) {
      SCOPED_TRACE(testing::Message() << "caller " << t << (sequence ? " (sequence)" : " (constant)"));
      checked[t].Expect(20);
      EXPECT_TRUE(outputs[t].CanariesIntact());
    }
  }
}

// Concurrent executes of one matmul operator, each caller with its own scratch (B bound per call,
// so B's packing is in the scratch too).
TEST_P(ConcurrencyTest, ConcurrentExecutesWithSeparateScratch) {
  QConfig c;
  c.m = 21;
  c.k = 77;
  c.n = 50;
  c.b_scale = Quant::kPerChannel;
  QProblem problem(c);
  OperatorPtr op;
  ASSERT_EQ(problem.CreateInitialized(&op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  CPUML_BINDING_PROPERTIES properties{};
  ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
  ASSERT_GT(properties.TemporaryResourceSize, 0u);
  const std::vector<uint8_t> expected = problem.Expected();
  const auto inputs = problem.Inputs(true);
  std::vector<GuardedBuffer> outputs, scratch;
  for (int t = 0; t < kCallers; ++t) {
    outputs.emplace_back(problem.buffer(QProblem::kOut).size(), 0);
    memcpy(outputs.back().data(), problem.buffer(QProblem::kOut).data(), outputs.back().size());
    scratch.emplace_back(properties.TemporaryResourceSize, 0);  // GuardedBuffer data is 64-byte aligned
  }
  std::vector<Repetitions> checked(kCallers);
  const std::vector<uint8_t> fresh = problem.buffer(QProblem::kOut).Bytes();
  Barrier start_together(CallersOverlap(kCallers) ? kCallers : 1);
  OnCallerThreads(kCallers, [&](int t) {
    const CPUML_BUFFER_BINDING out = outputs[t].Binding(), own_scratch = scratch[t].Binding();
    start_together.Wait();
    for (int rep = 0; rep < 10; ++rep)
      checked[t].Record(cpuml_execute_operator_with_scratch(op.get(), inputs.data(), 8, &out, 1, &own_scratch, nullptr),
                        outputs[t], expected, fresh);
  });
  for (int t = 0; t < kCallers; ++t) {
    SCOPED_TRACE(testing::Message() << "caller " << t);
    checked[t].Expect(10);
    EXPECT_TRUE(outputs[t].CanariesIntact());
    EXPECT_TRUE(scratch[t].CanariesIntact()) << "scratch of caller " << t << " overrun";
  }
}

// One MATRIX_MULTIPLY_INTEGER_TO_FLOAT operator (owned B, per-row A scale and zero point,
// per-column B scale and bias, scales of either sign) executed from several callers at once: half
// of them without scratch (the operator's own buffers, one per concurrent caller), half with
// scratch of their own; every repetition equal to the scalar reference.
void ExpectConcurrentIntegerToFloat(const QConfig& c) {
  QProblem problem(c);
  const std::vector<uint8_t> expected = problem.Expected();
  OperatorPtr op;
  ASSERT_EQ(problem.CreateInitialized(&op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  CPUML_BINDING_PROPERTIES properties{};
  ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
  ASSERT_GT(properties.TemporaryResourceSize, 0u);
  const auto inputs = problem.Inputs(true);
  ASSERT_EQ(inputs.size(), 7u);
  const std::vector<uint8_t> fresh = problem.buffer(QProblem::kOut).Bytes();
  std::vector<GuardedBuffer> outputs, scratch;
  for (int t = 0; t < kCallers; ++t) {
    outputs.emplace_back(fresh.size(), 0);
    memcpy(outputs.back().data(), fresh.data(), fresh.size());
    scratch.emplace_back(properties.TemporaryResourceSize, 0);
  }
  std::vector<Repetitions> checked(kCallers);
  constexpr int kRepetitions = 10;
  Barrier start_together(CallersOverlap(kCallers) ? kCallers : 1);
  OnCallerThreads(kCallers, [&](int t) {
    const CPUML_BUFFER_BINDING out = outputs[t].Binding(), own_scratch = scratch[t].Binding();
    start_together.Wait();
    for (int rep = 0; rep < kRepetitions; ++rep) {
      const cpuml_status status =
          t % 2 ? cpuml_execute_operator_with_scratch(op.get(), inputs.data(), 7, &out, 1, &own_scratch, nullptr)
                : cpuml_execute_operator(op.get(), inputs.data(), 7, &out, 1, nullptr);
      checked[t].Record(status, outputs[t], expected, fresh);
    }
  });
  for (int t = 0; t < kCallers; ++t) {
    SCOPED_TRACE(testing::Message() << "caller " << t << (t % 2 ? " (own scratch)" : " (operator's scratch)"));
    checked[t].Expect(kRepetitions);
    EXPECT_TRUE(outputs[t].CanariesIntact());
    EXPECT_TRUE(scratch[t].CanariesIntact()) << "scratch of caller " << t << " overrun";
  }
}

QConfig IntegerToFloatConfig() {
  QConfig c;
  c.op = MatMulOp::kIntegerToFloat;
  c.m = 19;
  c.k = 70;
  c.n = 33;
  c.a_type = CPUML_TENSOR_DATA_TYPE_INT8;
  c.a_scale = Quant::kPerChannel;
  c.a_zero = Quant::kPerChannel;
  c.b_scale = Quant::kPerChannel;
  c.b_zero = Quant::kPerTensor;
  c.bias = Quant::kPerChannel;
  c.signed_scales = true;
  c.b_owned = true;
  return c;
}

TEST_P(ConcurrencyTest, ConcurrentIntegerToFloatExecutesOnOneOperator) {
  ExpectConcurrentIntegerToFloat(IntegerToFloatConfig());
}

// The same with 4-bit B in blocks of 32 (its own kernels where the tier has them): zero points
// and scales per block, A's scales per row and block.
TEST_P(ConcurrencyTest, ConcurrentInt4IntegerToFloatExecutesOnOneOperator) {
  QConfig c = IntegerToFloatConfig();
  c.b_type = CPUML_TENSOR_DATA_TYPE_UINT4;
  c.b_block = 32;
  c.b_zero = Quant::kPerChannel;
  c.a_block_scales = true;
  ExpectConcurrentIntegerToFloat(c);
}

// One DYNAMIC_QUANTIZE_LINEAR operator executed from several callers at once, per tensor
// (FLOAT32 input to UINT8) and per row (strided FLOAT16 input to INT8), with a NaN and an
// infinity in the data; every repetition's three outputs equal to the scalar reference.
TEST_P(ConcurrencyTest, ConcurrentDynamicQuantizeExecutesOnOneOperator) {
  for (bool per_row : {false, true}) {
    SCOPED_TRACE(per_row ? "per row, FLOAT16 to INT8" : "per tensor, FLOAT32 to UINT8");
    const CPUML_TENSOR_DATA_TYPE in_type = per_row ? CPUML_TENSOR_DATA_TYPE_FLOAT16 : CPUML_TENSOR_DATA_TYPE_FLOAT32;
    const CPUML_TENSOR_DATA_TYPE out_type = per_row ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8;
    const std::vector<uint32_t> sizes{2, 3, 5, 301};
    const TensorDesc input = per_row ? TensorDesc(in_type, sizes, {3 * 5 * 610, 5 * 610, 610, 2}) : TensorDesc(in_type, sizes);
    const TensorDesc output(out_type, sizes);
    const std::vector<uint32_t> parameter_sizes = per_row ? std::vector<uint32_t>{2, 3, 5, 1} : std::vector<uint32_t>{1, 1, 1, 1};
    const TensorDesc scale(CPUML_TENSOR_DATA_TYPE_FLOAT32, parameter_sizes), zero_point(out_type, parameter_sizes);
    GuardedBuffer in(input.MinimumBytes(), 0);
    std::mt19937 rng(per_row ? 7 : 8);
    std::uniform_real_distribution<float> dist(-4.0f, 9.0f);
    const std::vector<uint64_t> in_strides = input.Strides();
    for (uint64_t i = 0; i < input.MinimumBytes() / input.element_size(); ++i) {
      float v = dist(rng);
      if (i == 17) v = NAN;
      if (i == 1000) v = per_row ? INFINITY : -INFINITY;
      if (per_row) {
        const uint16_t h = cpuml::FloatToHalf(v);
        memcpy(in.data() + 2 * i, &h, 2);
      } else {
        memcpy(in.data() + 4 * i, &v, 4);
      }
    }
    // The oracle: the scalar reference into buffers of its own.
    const TensorDesc* out_descs[3] = {&output, &scale, &zero_point};
    std::vector<std::vector<uint8_t>> expected, fresh;
    {
      std::vector<GuardedBuffer> reference;
      for (const TensorDesc* d : out_descs) reference.emplace_back(d->MinimumBytes(), 0x3C);
      const auto out_strides = output.Strides(), scale_strides = scale.Strides(), zero_strides = zero_point.Strides();
      cpuml::reference::DynamicQuantizeLinear(View(input, in_strides, in.data()),
                                              View(output, out_strides, reference[0].data()),
                                              View(scale, scale_strides, reference[1].data()),
                                              View(zero_point, zero_strides, reference[2].data()));
      for (int i = 0; i < 3; ++i) {
        expected.push_back(reference[i].Bytes());
        fresh.emplace_back(out_descs[i]->MinimumBytes(), 0x3C);
      }
    }
    const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC desc{input.get(), output.get(), scale.get(), zero_point.get()};
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc};
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    std::vector<std::vector<GuardedBuffer>> outputs(kCallers);
    for (int t = 0; t < kCallers; ++t)
      for (int i = 0; i < 3; ++i) outputs[t].emplace_back(out_descs[i]->MinimumBytes(), 0x3C);
    std::vector<Repetitions> checked(kCallers);
    constexpr int kRepetitions = 10;
    const CPUML_BUFFER_BINDING input_binding = in.Binding();
    Barrier start_together(CallersOverlap(kCallers) ? kCallers : 1);
    OnCallerThreads(kCallers, [&](int t) {
      const CPUML_BUFFER_BINDING bindings[3] = {outputs[t][0].Binding(), outputs[t][1].Binding(), outputs[t][2].Binding()};
      const std::vector<GuardedBuffer*> mine{&outputs[t][0], &outputs[t][1], &outputs[t][2]};
      start_together.Wait();
      for (int rep = 0; rep < kRepetitions; ++rep)
        checked[t].Record(cpuml_execute_operator(op.get(), &input_binding, 1, bindings, 3, nullptr), mine,
                          {&expected[0], &expected[1], &expected[2]}, {&fresh[0], &fresh[1], &fresh[2]});
    });
    for (int t = 0; t < kCallers; ++t) {
      SCOPED_TRACE(testing::Message() << "caller " << t);
      checked[t].Expect(kRepetitions);
      for (const GuardedBuffer& b : outputs[t]) EXPECT_TRUE(b.CanariesIntact());
    }
  }
}

// Each caller fails a different way at the same time; each then reads its own message.
TEST_P(ConcurrencyTest, ConcurrentFailuresKeepPerThreadMessages) {
  std::vector<std::string> messages(kCallers);
  Barrier barrier(CallersOverlap(kCallers) ? kCallers : 1);
  OnCallerThreads(kCallers, [&](int t) {
    // Sizes[t] is 0: the message names that dimension.
    std::vector<uint32_t> sizes(kCallers, 2);
    sizes[t] = 0;
    CPUML_BUFFER_TENSOR_DESC buffer{CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_TENSOR_FLAG_NONE, kCallers, sizes.data(),
                                    nullptr, 64, 0};
    const CPUML_TENSOR_DESC tensor{CPUML_TENSOR_TYPE_BUFFER, &buffer};
    CPUML_SCALAR_UNION value{};
    const CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill{&tensor, CPUML_TENSOR_DATA_TYPE_UINT8, value};
    const CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_FILL_VALUE_CONSTANT, &fill};
    cpuml_operator* op = nullptr;
    barrier.Wait();
    const cpuml_status s = cpuml_create_operator(&desc, &op);
    barrier.Wait();  // every caller has failed before any reads its message
    messages[t] = s == CPUML_STATUS_INVALID_ARGUMENT ? cpuml_last_error_message() : "unexpected status";
  });
  for (int t = 0; t < kCallers; ++t)
    EXPECT_EQ(messages[t], "FILL_VALUE_CONSTANT: OutputTensor Sizes[" + std::to_string(t) +
                               "] is 0: every size must be > 0");
}

INSTANTIATE_TEST_SUITE_P(Tiers, ConcurrencyTest, testing::ValuesIn(AllTiers()), TierName);

}  // namespace
}  // namespace cpuml_test
