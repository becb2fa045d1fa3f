// Thread safety of the C API from callers' threads: one operator executed concurrently (fills
// here; owned-B matmul in qgemm_test.cc), and error messages that stay per thread. The
// ThreadSanitizer job of scripts/test.sh runs every test named *Concurrent*.
#include <condition_variable>
#include <mutex>

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
    ++runs_;
    if (status != CPUML_STATUS_SUCCESS) {
      ++failed_;
    } else if (output.Bytes() != expected) {
      ++wrong_;
    }
    memcpy(output.data(), fresh.data(), fresh.size());
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
