// Caller-owned scratch: an execute given TemporaryResourceSize bytes of scratch makes no heap
// allocation at all, on any thread, on every tier, even as an operator's first execute: every
// operator (the fills, the three matrix multiplications, DYNAMIC_QUANTIZE_LINEAR). Every
// allocation in the process (cpuml, libstdc++, pthreadpool) goes through malloc and its
// relatives, which this binary interposes with counting versions, so it is a binary of its own
// (and is not built with the sanitizers, which interpose malloc themselves).
#include <gtest/gtest.h>
#include <malloc.h>
#include <stdlib.h>

#include <atomic>
#include <cerrno>
#include <random>

#include "tests/qgemm_support.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
inline void Count() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
}
}  // namespace

extern "C" {
void* malloc(size_t bytes) {
  Count();
  return __libc_malloc(bytes);
}
void* calloc(size_t count, size_t bytes) {
  Count();
  return __libc_calloc(count, bytes);
}
void* realloc(void* p, size_t bytes) {
  Count();
  return __libc_realloc(p, bytes);
}
void* memalign(size_t alignment, size_t bytes) {
  Count();
  return __libc_memalign(alignment, bytes);
}
void* aligned_alloc(size_t alignment, size_t bytes) {
  Count();
  return __libc_memalign(alignment, bytes);
}
int posix_memalign(void** out, size_t alignment, size_t bytes) {
  Count();
  void* p = __libc_memalign(alignment, bytes);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void free(void* p) { __libc_free(p); }
}  // extern "C"

namespace cpuml_test {
namespace {

template <class Call>
long AllocationsOf(Call&& call) {
  g_allocations = 0;
  g_counting = true;
  call();
  g_counting = false;
  return g_allocations.load();
}

// The interposer works: a plain new is seen.
TEST(AllocationCount, InterposerSeesAllocations) {
  const long seen = AllocationsOf([] { delete new std::vector<int>(1000); });
  EXPECT_GE(seen, 1);
}

class ScratchTest : public TierTest {};

// Scratch of the reported size, 64-byte aligned, allocated before counting starts.
struct Scratch {
  explicit Scratch(uint64_t bytes) : bytes(bytes), data(bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : nullptr) {}
  ~Scratch() { free(data); }
  CPUML_BUFFER_BINDING Binding() const { return {data, bytes}; }
  uint64_t bytes;
  void* data;
};

// Creates and initializes `c`, then executes it twice with scratch of the reported size, the
// first being the operator's first execute: neither allocates, and both give the reference's bytes.
// `sliced`: the whole-matrix workspaces pass 64 MiB, so a B bound per call is packed a slice at a
// time into a scratch smaller than its K x N bytes.
void ExpectExecutesAllocateNothing(const QConfig& c, bool sliced, pthreadpool_t pool) {
  QProblem problem(c);
  OperatorPtr op;
  ASSERT_EQ(problem.CreateInitialized(&op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  CPUML_BINDING_PROPERTIES properties{};
  ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
  const uint64_t b_bytes = uint64_t{c.k} * c.n;
  if (c.b_owned) {
    EXPECT_GE(properties.PersistentResourceSize, b_bytes);
  } else {
    // B bound per call is packed into the scratch: whole, or a slice of it.
    if (sliced)
      EXPECT_LT(properties.TemporaryResourceSize, b_bytes);
    else
      EXPECT_GE(properties.TemporaryResourceSize, b_bytes);
    EXPECT_EQ(properties.PersistentResourceSize, 0u);
  }
  Scratch scratch(properties.TemporaryResourceSize);
  const CPUML_BUFFER_BINDING scratch_binding = scratch.Binding();
  const auto exec = problem.Inputs(true);
  const uint32_t input_count = static_cast<uint32_t>(exec.size());
  ASSERT_EQ(input_count, c.op == MatMulOp::kQuantizedLinear ? 8u : c.op == MatMulOp::kInteger ? 4u : 7u);
  const CPUML_BUFFER_BINDING out = problem.buffer(QProblem::kOut).Binding();
  const std::vector<uint8_t> original = problem.buffer(QProblem::kOut).Bytes();
  const std::vector<uint8_t> expected = problem.Expected();
  for (int call = 0; call < 2; ++call) {
    memcpy(problem.buffer(QProblem::kOut).data(), original.data(), original.size());
    cpuml_status status = CPUML_STATUS_INVALID_STATE;
    const long made = AllocationsOf([&] {
      status = cpuml_execute_operator_with_scratch(op.get(), exec.data(), input_count, &out, 1, &scratch_binding, pool);
    });
    ASSERT_EQ(status, CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    EXPECT_EQ(made, 0) << "execute " << call << " with caller scratch allocated";
    EXPECT_EQ(problem.buffer(QProblem::kOut).Bytes(), expected);
  }
}

// Every operator of the matrix-multiplication family (one front end): QUANTIZED_LINEAR with
// per-column B quantization; MATRIX_MULTIPLY_INTEGER and MATRIX_MULTIPLY_INTEGER_TO_FLOAT with
// per-row A scale and zero point, per-column B scale, zero point and bias as well.
TEST_P(ScratchTest, MatMulExecutesAllocateNothing) {
  pthreadpool_t pool = CreatePool(2);
  for (MatMulOp op_kind : {MatMulOp::kQuantizedLinear, MatMulOp::kInteger, MatMulOp::kIntegerToFloat})
    // M = 1 takes the decode kernel where a tier has one; M = 37 the tier's largest tiles.
    for (uint32_t m : {1u, 37u})
      for (bool b_owned : {true, false}) {
        SCOPED_TRACE(testing::Message() << "operator " << int(op_kind) << ", M " << m
                                        << (b_owned ? ", owned B" : ", B bound per call"));
        QConfig c;
        c.op = op_kind;
        c.m = m;
        c.k = 300;
        c.n = 70;
        c.b_owned = b_owned;
        c.b_scale = Quant::kPerChannel;
        c.b_zero = Quant::kPerChannel;
        if (op_kind != MatMulOp::kQuantizedLinear) {
          c.a_scale = Quant::kPerChannel;
          c.a_zero = Quant::kPerChannel;
          c.bias = Quant::kPerChannel;
          c.signed_scales = true;
        }
        ExpectExecutesAllocateNothing(c, false, pool);
        if (HasFatalFailure()) break;
      }
  DestroyPool(pool);
}

// A problem run in slices (a bound B of 66,000 x 1,040): the slices' plans are made at create.
TEST_P(ScratchTest, SlicedMatMulExecutesAllocateNothing) {
  pthreadpool_t pool = CreatePool(2);
  QConfig c;
  c.op = MatMulOp::kIntegerToFloat;
  c.m = 1;
  c.k = 66000;
  c.n = 1040;
  c.b_zero = c.b_scale = c.bias = Quant::kPerChannel;
  ExpectExecutesAllocateNothing(c, true, pool);
  DestroyPool(pool);
}

// DYNAMIC_QUANTIZE_LINEAR, per tensor (rows split between tasks, the range reduced across them)
// and per row, FLOAT32 and FLOAT16 input: with the scratch it reports (none), its first and
// second executes allocate nothing, and give the reference's bytes.
TEST_P(ScratchTest, DynamicQuantizeExecuteAllocatesNothing) {
  pthreadpool_t pool = CreatePool(2);
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> dist(-3.0f, 7.0f);
  for (bool per_row : {false, true})
    for (CPUML_TENSOR_DATA_TYPE in_type : {CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_DATA_TYPE_FLOAT16}) {
      SCOPED_TRACE(testing::Message() << (per_row ? "per row" : "per tensor")
                                      << (in_type == CPUML_TENSOR_DATA_TYPE_FLOAT16 ? ", FLOAT16" : ", FLOAT32"));
      const std::vector<uint32_t> sizes{2, 3, 70000};
      const std::vector<uint32_t> parameter_sizes = per_row ? std::vector<uint32_t>{2, 3, 1} : std::vector<uint32_t>{1};
      const TensorDesc input(in_type, sizes), output(CPUML_TENSOR_DATA_TYPE_UINT8, sizes),
          scale(CPUML_TENSOR_DATA_TYPE_FLOAT32, parameter_sizes), zero_point(CPUML_TENSOR_DATA_TYPE_UINT8, parameter_sizes);
      GuardedBuffer in(input.MinimumBytes(), 0);
      for (uint64_t i = 0; i < input.ElementCount(); ++i) {
        const float v = dist(rng);
        if (in_type == CPUML_TENSOR_DATA_TYPE_FLOAT16) {
          const uint16_t h = cpuml::FloatToHalf(v);
          memcpy(in.data() + 2 * i, &h, 2);
        } else {
          memcpy(in.data() + 4 * i, &v, 4);
        }
      }
      const TensorDesc* out_descs[3] = {&output, &scale, &zero_point};
      std::vector<GuardedBuffer> outputs, expected;
      for (const TensorDesc* d : out_descs) {
        outputs.emplace_back(d->MinimumBytes(), 0x3C);
        expected.emplace_back(d->MinimumBytes(), 0x3C);
      }
      // The scalar reference: 4-D views with leading sizes of 1.
      const std::vector<uint32_t> in4{1, sizes[0], sizes[1], sizes[2]};
      const std::vector<uint32_t> p4 = per_row ? std::vector<uint32_t>{1, 2, 3, 1} : std::vector<uint32_t>{1, 1, 1, 1};
      const std::vector<uint64_t> in_strides{0, uint64_t{sizes[1]} * sizes[2], sizes[2], 1};
      const std::vector<uint64_t> p_strides = per_row ? std::vector<uint64_t>{0, 3, 1, 1} : std::vector<uint64_t>{0, 0, 0, 1};
      cpuml::reference::DynamicQuantizeLinear({in_type, 4, in4.data(), in_strides.data(), in.data()},
                                              {CPUML_TENSOR_DATA_TYPE_UINT8, 4, in4.data(), in_strides.data(),
                                               expected[0].data()},
                                              {CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, p4.data(), p_strides.data(),
                                               expected[1].data()},
                                              {CPUML_TENSOR_DATA_TYPE_UINT8, 4, p4.data(), p_strides.data(),
                                               expected[2].data()});
      const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC desc{input.get(), output.get(), scale.get(), zero_point.get()};
      const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc};
      cpuml_operator* raw = nullptr;
      ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
      OperatorPtr op(raw);
      CPUML_BINDING_PROPERTIES properties{1, 1};
      ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
      EXPECT_EQ(properties.PersistentResourceSize, 0u);
      Scratch scratch(properties.TemporaryResourceSize);
      const CPUML_BUFFER_BINDING scratch_binding = scratch.Binding();
      const CPUML_BUFFER_BINDING input_binding = in.Binding();
      const CPUML_BUFFER_BINDING bindings[3] = {outputs[0].Binding(), outputs[1].Binding(), outputs[2].Binding()};
      for (int call = 0; call < 2; ++call) {
        for (GuardedBuffer& b : outputs) memset(b.data(), 0x3C, b.size());
        cpuml_status status = CPUML_STATUS_INVALID_STATE;
        const long made = AllocationsOf([&] {
          status = cpuml_execute_operator_with_scratch(op.get(), &input_binding, 1, bindings, 3, &scratch_binding, pool);
        });
        ASSERT_EQ(status, CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
        EXPECT_EQ(made, 0) << "execute " << call << " with caller scratch allocated";
        for (int i = 0; i < 3; ++i) EXPECT_EQ(outputs[i].Bytes(), expected[i].Bytes()) << "output " << i;
      }
    }
  DestroyPool(pool);
}

TEST_P(ScratchTest, FillExecuteAllocatesNothing) {
  const TensorDesc out(CPUML_TENSOR_DATA_TYPE_FLOAT32, {64, 1024});
  CPUML_SCALAR_UNION start{}, delta{};
  start.Float32 = 1.0f;
  delta.Float32 = 0.5f;
  const CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC seq{out.get(), CPUML_TENSOR_DATA_TYPE_FLOAT32, start, delta};
  const CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_FILL_VALUE_SEQUENCE, &seq};
  cpuml_operator* raw = nullptr;
  ASSERT_EQ(cpuml_create_operator(&desc, &raw), CPUML_STATUS_SUCCESS);
  OperatorPtr op(raw);
  CPUML_BINDING_PROPERTIES properties{1, 1};
  ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
  EXPECT_EQ(properties.TemporaryResourceSize, 0u);
  EXPECT_EQ(properties.PersistentResourceSize, 0u);
  GuardedBuffer output(out.MinimumBytes(), 0);
  const CPUML_BUFFER_BINDING binding = output.Binding();
  const CPUML_BUFFER_BINDING no_scratch{nullptr, 0};
  pthreadpool_t pool = CreatePool(2);
  cpuml_status status = CPUML_STATUS_INVALID_STATE;
  EXPECT_EQ(AllocationsOf([&] {
              status = cpuml_execute_operator_with_scratch(op.get(), nullptr, 0, &binding, 1, &no_scratch, pool);
            }),
            0);
  EXPECT_EQ(status, CPUML_STATUS_SUCCESS);
  const float* values = reinterpret_cast<const float*>(output.data());
  for (int i : {0, 1, 1000, 64 * 1024 - 1}) EXPECT_EQ(values[i], 1.0f + static_cast<float>(i) * 0.5f) << i;
  DestroyPool(pool);
}

INSTANTIATE_TEST_SUITE_P(Tiers, ScratchTest, testing::ValuesIn(AllTiers()), TierName);

}  // namespace
}  // namespace cpuml_test
