// Every heap allocation of create, initialize and execute made to fail in turn: each failure is
// CPUML_STATUS_OUT_OF_MEMORY with its message, the output keeps every byte, and nothing leaks
// (the sanitizer build's leak check runs this binary too). The library allocates only through
// the global operator new (aligned or not), which this binary replaces with a counting one.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <functional>
#include <new>

#include "tests/qgemm_support.h"

// The replacements below pair malloc/aligned_alloc with free on purpose; GCC cannot see that
// they replace the global operators and warns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {

std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
std::atomic<long> g_fail_at{-1};  // index of the allocation to refuse while counting; -1: none
std::atomic<size_t> g_largest_alignment{0};  // the largest alignment asked for while counting

void* Allocate(size_t bytes, size_t alignment) {
  if (g_counting.load()) {
    const long index = g_allocations.fetch_add(1);
    size_t largest = g_largest_alignment.load();
    while (alignment > largest && !g_largest_alignment.compare_exchange_weak(largest, alignment)) {
    }
    if (index == g_fail_at.load()) return nullptr;
  }
  if (bytes == 0) bytes = 1;
  if (alignment <= alignof(std::max_align_t)) return malloc(bytes);
  return aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
}

}  // namespace

void* operator new(size_t bytes) {
  if (void* p = Allocate(bytes, 0)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t bytes) { return operator new(bytes); }
void* operator new(size_t bytes, std::align_val_t alignment) {
  if (void* p = Allocate(bytes, static_cast<size_t>(alignment))) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t bytes, std::align_val_t alignment) { return operator new(bytes, alignment); }
void* operator new(size_t bytes, const std::nothrow_t&) noexcept { return Allocate(bytes, 0); }
void* operator new(size_t bytes, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return Allocate(bytes, static_cast<size_t>(alignment));
}
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }
void operator delete[](void* p, size_t) noexcept { free(p); }
void operator delete(void* p, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { free(p); }

namespace cpuml_test {
namespace {

// Runs `call` with allocation `fail_at` refused (-1: none); returns its status and the number of
// allocations it made.
cpuml_status Counted(long fail_at, const std::function<cpuml_status()>& call, long* allocations) {
  g_allocations = 0;
  g_fail_at = fail_at;
  g_counting = true;
  const cpuml_status s = call();
  g_counting = false;
  *allocations = g_allocations.load();
  return s;
}

// Makes each allocation of `call` fail in turn, then lets it succeed. `reset` restores the
// state before the call; `untouched` says the output still holds its bytes.
void FailEachAllocation(const char* stage, const std::function<cpuml_status()>& call,
                        const std::function<void()>& reset, const std::function<bool()>& untouched) {
  SCOPED_TRACE(stage);
  long total = 0;
  reset();
  ASSERT_EQ(Counted(-1, call, &total), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  ASSERT_GT(total, 0) << stage << " made no allocation: nothing to test";
  for (long i = 0; i < total; ++i) {
    reset();
    long made = 0;
    EXPECT_EQ(Counted(i, call, &made), CPUML_STATUS_OUT_OF_MEMORY) << "allocation " << i << " of " << total;
    EXPECT_NE(strstr(cpuml_last_error_message(), "out of memory"), nullptr) << cpuml_last_error_message();
    EXPECT_TRUE(untouched()) << "allocation " << i << " of " << total << " failed, yet the output was written";
  }
  printf("%s: each of its %ld allocations failed in turn\n", stage, total);
  // Leave the call done, for the next stage.
  reset();
  long made = 0;
  ASSERT_EQ(Counted(-1, call, &made), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
}

// Initialize with each of its allocations refused in turn, a fresh operator (from `create`) before
// each try, so no state of a failed initialize carries over.
void FailEachInitializeAllocation(const char* stage, cpuml_operator*& op,
                                  const std::function<cpuml_status(cpuml_operator**)>& create,
                                  const std::vector<CPUML_BUFFER_BINDING>& init,
                                  const std::function<bool()>& untouched) {
  FailEachAllocation(
      stage, [&] { return cpuml_initialize_operator(op, init.data(), static_cast<uint32_t>(init.size())); },
      [&] {
        cpuml_destroy_operator(op);
        ASSERT_EQ(create(&op), CPUML_STATUS_SUCCESS);
      },
      untouched);
}

// On the dispatched tier, and on avx2 with a 7-bit B, where create plans a second kernel and
// initialize picks it. And with packed B (owned) or scratch (B packed per call) past 2 MiB: on
// Linux the library asks operator new for 2 MiB alignment there (whole pages it advises into huge
// pages, unless CPUML_HUGE_PAGES=0), still through the replaceable operator, and such an
// allocation fails as cleanly as the small ones.
TEST(AllocationFailure, QuantizedMatMulCreateInitializeExecute) {
  const cpuml_isa previous_cap = cpuml_get_max_isa();
  enum class Case { kDispatched, kSevenBitOnAvx2, kLargeB };
  for (Case problem_case : {Case::kDispatched, Case::kSevenBitOnAvx2, Case::kLargeB})
  for (bool b_owned : {true, false}) {
    const bool seven_bit_on_avx2 = problem_case == Case::kSevenBitOnAvx2, large_b = problem_case == Case::kLargeB;
    if (seven_bit_on_avx2) {
      if (!cpuml_is_isa_supported(CPUML_ISA_AVX2)) continue;
      ASSERT_EQ(cpuml_set_max_isa(CPUML_ISA_AVX2), CPUML_STATUS_SUCCESS);
    }
    SCOPED_TRACE(seven_bit_on_avx2 ? "avx2, 7-bit B" : large_b ? "dispatched tier, B past 2 MiB" : "dispatched tier");
    QConfig c;
    c.m = large_b ? 3 : 19;
    c.k = large_b ? 1024 : 40;
    c.n = large_b ? 2100 : 45;  // 1024 x 2100: packed past 2 MiB on every tier
    c.a_batch = {2, 1};
    c.data = seven_bit_on_avx2 ? Data::kSevenBitB : Data::kRandom;
    c.b_owned = b_owned;
    c.scales_owned = b_owned;
    c.b_scale = Quant::kPerChannel;
    QProblem problem(c);
    const auto desc = problem.OperatorDesc();
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &desc};
    const std::vector<uint8_t> original = problem.buffer(QProblem::kOut).Bytes();
    auto untouched = [&] { return problem.buffer(QProblem::kOut).Bytes() == original; };

    cpuml_operator* op = nullptr;
    g_largest_alignment = 0;
    FailEachAllocation(
        b_owned ? "create (owned B)" : "create", [&] { return cpuml_create_operator(&op_desc, &op); },
        [&] {
          cpuml_destroy_operator(op);
          op = nullptr;
        },
        [&] { return op == nullptr; });
    ASSERT_NE(op, nullptr);
    const auto init = problem.Inputs(false);
    if (b_owned) {
      FailEachInitializeAllocation(
          "initialize (owned B and scales)", op, [&](cpuml_operator** o) { return cpuml_create_operator(&op_desc, o); },
          init, untouched);
    } else {
      // Nothing owned: initialize allocates nothing and cannot run out of memory.
      long made = -1;
      EXPECT_EQ(Counted(-1, [&] { return cpuml_initialize_operator(op, init.data(), 8); }, &made), CPUML_STATUS_SUCCESS);
      EXPECT_EQ(made, 0);
    }
    const auto exec = problem.Inputs(true);
    const CPUML_BUFFER_BINDING out = problem.buffer(QProblem::kOut).Binding();
    // The first execute of an operator allocates its workspace: a fresh operator for each try.
    FailEachAllocation(
        b_owned ? "first execute (owned B)" : "first execute (B packed per call)",
        [&] { return cpuml_execute_operator(op, exec.data(), 8, &out, 1, nullptr); },
        [&] {
          memcpy(problem.buffer(QProblem::kOut).data(), original.data(), original.size());
          cpuml_destroy_operator(op);
          ASSERT_EQ(cpuml_create_operator(&op_desc, &op), CPUML_STATUS_SUCCESS);
          ASSERT_EQ(cpuml_initialize_operator(op, init.data(), 8), CPUML_STATUS_SUCCESS);
        },
        untouched);
    // Later executes reuse it: no allocation at all, so nothing on the hot path can fail.
    long made = -1;
    EXPECT_EQ(Counted(-1, [&] { return cpuml_execute_operator(op, exec.data(), 8, &out, 1, nullptr); }, &made),
              CPUML_STATUS_SUCCESS);
    EXPECT_EQ(made, 0) << "a second execute allocated";
    // After all that, the operator still gives the reference's bytes.
    memcpy(problem.buffer(QProblem::kOut).data(), original.data(), original.size());
    ASSERT_EQ(cpuml_execute_operator(op, exec.data(), 8, &out, 1, nullptr), CPUML_STATUS_SUCCESS);
    EXPECT_EQ(problem.buffer(QProblem::kOut).Bytes(), problem.Expected());
    cpuml_destroy_operator(op);
    ASSERT_EQ(cpuml_set_max_isa(previous_cap), CPUML_STATUS_SUCCESS);
#if defined(__linux__)
    const char* huge_pages = getenv("CPUML_HUGE_PAGES");
    if (large_b && (huge_pages == nullptr || strcmp(huge_pages, "0") != 0)) {
      EXPECT_EQ(g_largest_alignment.load(), size_t{2} << 20) << "no workspace asked for on 2 MiB pages";
    }
#endif
  }
}

// MATRIX_MULTIPLY_INTEGER_TO_FLOAT with 4-bit B, blockwise scales and zero points, all owned:
// initialize's allocations (B unpacked, packed, the scales decoded once) fail in turn too.
TEST(AllocationFailure, Int4BlockwiseCreateInitializeExecute) {
  QConfig c;
  c.op = MatMulOp::kIntegerToFloat;
  c.m = 5;
  c.k = 100;
  c.n = 21;
  c.b_type = CPUML_TENSOR_DATA_TYPE_UINT4;
  c.b_block = 32;
  c.b_zero = Quant::kPerChannel;
  c.b_owned = true;
  c.scales_owned = true;
  c.bias = Quant::kPerChannel;
  QProblem problem(c);
  const std::vector<uint8_t> original = problem.buffer(QProblem::kOut).Bytes();
  auto untouched = [&] { return problem.buffer(QProblem::kOut).Bytes() == original; };
  cpuml_operator* op = nullptr;
  FailEachAllocation(
      "create (4-bit B)", [&] { return problem.Create(&op); },
      [&] {
        cpuml_destroy_operator(op);
        op = nullptr;
      },
      [&] { return op == nullptr; });
  const auto init = problem.Inputs(false);
  const uint32_t count = static_cast<uint32_t>(init.size());
  FailEachInitializeAllocation(
      "initialize (4-bit B, blockwise scales)", op, [&](cpuml_operator** o) { return problem.Create(o); }, init,
      untouched);
  const auto exec = problem.Inputs(true);
  const CPUML_BUFFER_BINDING out = problem.buffer(QProblem::kOut).Binding();
  long made = -1;
  EXPECT_EQ(Counted(-1, [&] { return cpuml_execute_operator(op, exec.data(), count, &out, 1, nullptr); }, &made),
            CPUML_STATUS_SUCCESS);
  EXPECT_EQ(Counted(-1, [&] { return cpuml_execute_operator(op, exec.data(), count, &out, 1, nullptr); }, &made),
            CPUML_STATUS_SUCCESS);
  EXPECT_EQ(made, 0) << "a second execute allocated";
  memcpy(problem.buffer(QProblem::kOut).data(), original.data(), original.size());
  ASSERT_EQ(cpuml_execute_operator(op, exec.data(), count, &out, 1, nullptr), CPUML_STATUS_SUCCESS);
  EXPECT_EQ(problem.buffer(QProblem::kOut).Bytes(), problem.Expected());
  cpuml_destroy_operator(op);
}

TEST(AllocationFailure, FillCreate) {
  const TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT16, {3, 5, 7});
  CPUML_SCALAR_UNION start{}, delta{};
  start.UInt16 = 1;
  delta.UInt16 = 2;
  const CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC seq{out.get(), CPUML_TENSOR_DATA_TYPE_UINT16, start, delta};
  const CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_FILL_VALUE_SEQUENCE, &seq};
  cpuml_operator* op = nullptr;
  FailEachAllocation(
      "fill create", [&] { return cpuml_create_operator(&desc, &op); },
      [&] {
        cpuml_destroy_operator(op);
        op = nullptr;
      },
      [&] { return op == nullptr; });
  // Execute allocates nothing: it cannot run out of memory.
  GuardedBuffer output(out.MinimumBytes(), 0);
  const CPUML_BUFFER_BINDING binding = output.Binding();
  long made = -1;
  EXPECT_EQ(Counted(-1, [&] { return cpuml_execute_operator(op, nullptr, 0, &binding, 1, nullptr); }, &made),
            CPUML_STATUS_SUCCESS);
  EXPECT_EQ(made, 0);
  cpuml_destroy_operator(op);
}

}  // namespace
}  // namespace cpuml_test
