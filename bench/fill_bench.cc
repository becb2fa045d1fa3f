// Fill throughput for every type at 4 KiB, 256 KiB and 64 MiB, GB/s of output written, with
// memset and std::fill in the same binary as the yardsticks.
#include <benchmark/benchmark.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.h"

namespace cpuml_bench {
namespace {

struct Buffer {
  explicit Buffer(size_t bytes) : data(static_cast<uint8_t*>(aligned_alloc(64, (bytes + 63) / 64 * 64))), size(bytes) {
    memset(data, 1, size);  // fault the pages in before timing
  }
  ~Buffer() { free(data); }
  uint8_t* data;
  size_t size;
};

void SetBandwidth(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(bytes) * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

void BM_Fill(benchmark::State& state, CPUML_OPERATOR_TYPE type, CPUML_TENSOR_DATA_TYPE data_type, size_t element_size,
             size_t bytes, int threads) {
  Buffer buffer(bytes);
  const uint32_t sizes[] = {static_cast<uint32_t>(bytes / element_size)};
  CPUML_BUFFER_TENSOR_DESC out{data_type, CPUML_TENSOR_FLAG_NONE, 1, sizes, nullptr, bytes, 64};
  CPUML_TENSOR_DESC tensor{CPUML_TENSOR_TYPE_BUFFER, &out};
  CPUML_SCALAR_UNION start{}, delta{};
  // Non-zero in every type (0x3C in each byte: 60 as an 8-bit integer, 1.06 as a half): some
  // CPUs store zeros faster than other bytes (AMD Zen 4: 86 GB/s of zero stores against 27 for
  // other bytes at 64 MiB), which would be the machine's result, not the kernel's.
  start.UInt64 = 0x3C3C3C3C3C3C3C3Cull;
  delta.UInt64 = data_type == CPUML_TENSOR_DATA_TYPE_FLOAT32 ? 0x3DCCCCCDull : 1;  // 0.1f
  if (data_type == CPUML_TENSOR_DATA_TYPE_FLOAT32) start.Float32 = 1.0f;
  if (data_type == CPUML_TENSOR_DATA_TYPE_FLOAT16) delta.UInt16 = 0x1400;  // 2^-10
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant{&tensor, data_type, start};
  CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sequence{&tensor, data_type, start, delta};
  CPUML_OPERATOR_DESC desc{type, type == CPUML_OPERATOR_FILL_VALUE_CONSTANT ? static_cast<const void*>(&constant)
                                                                             : static_cast<const void*>(&sequence)};
  cpuml_operator* op = nullptr;
  if (cpuml_create_operator(&desc, &op) != CPUML_STATUS_SUCCESS) return state.SkipWithError(cpuml_last_error_message());
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  const CPUML_BUFFER_BINDING binding{buffer.data, bytes};
  for (auto _ : state) {
    cpuml_execute_operator(op, nullptr, 0, &binding, 1, pool);
    benchmark::ClobberMemory();
  }
  if (pool) pthreadpool_destroy(pool);
  cpuml_destroy_operator(op);
  SetBandwidth(state, bytes);
  state.SetLabel(cpuml_isa_name(cpuml_get_isa()));
}

void BM_Memset(benchmark::State& state, size_t bytes) {
  Buffer buffer(bytes);
  for (auto _ : state) {
    memset(buffer.data, 0x5A, bytes);
    benchmark::ClobberMemory();
  }
  SetBandwidth(state, bytes);
}

void BM_StdFillFloat(benchmark::State& state, size_t bytes) {
  Buffer buffer(bytes);
  float* f = reinterpret_cast<float*>(buffer.data);
  for (auto _ : state) {
    std::fill(f, f + bytes / 4, 13.0f);
    benchmark::ClobberMemory();
  }
  SetBandwidth(state, bytes);
}

}  // namespace

void RegisterFillBenchmarks() {
  const struct {
    const char* name;
    CPUML_TENSOR_DATA_TYPE type;
    size_t size;
  } types[] = {{"float32", CPUML_TENSOR_DATA_TYPE_FLOAT32, 4}, {"float16", CPUML_TENSOR_DATA_TYPE_FLOAT16, 2},
               {"uint32", CPUML_TENSOR_DATA_TYPE_UINT32, 4},   {"uint16", CPUML_TENSOR_DATA_TYPE_UINT16, 2},
               {"uint8", CPUML_TENSOR_DATA_TYPE_UINT8, 1},     {"int32", CPUML_TENSOR_DATA_TYPE_INT32, 4},
               {"int16", CPUML_TENSOR_DATA_TYPE_INT16, 2},     {"int8", CPUML_TENSOR_DATA_TYPE_INT8, 1}};
  const struct {
    const char* name;
    size_t bytes;
  } sizes[] = {{"4KiB", 4096}, {"256KiB", 256 * 1024}, {"64MiB", 64 << 20}};
  for (const auto& size : sizes) {
    benchmark::RegisterBenchmark((std::string("fill/memset/") + size.name).c_str(), BM_Memset, size.bytes);
    benchmark::RegisterBenchmark((std::string("fill/std_fill_float32/") + size.name).c_str(), BM_StdFillFloat, size.bytes);
    for (const auto& t : types)
      for (auto op : {CPUML_OPERATOR_FILL_VALUE_CONSTANT, CPUML_OPERATOR_FILL_VALUE_SEQUENCE}) {
        const std::string name = std::string("fill/cpuml_") +
                                 (op == CPUML_OPERATOR_FILL_VALUE_CONSTANT ? "constant_" : "sequence_") + t.name + "/" +
                                 size.name;
        benchmark::RegisterBenchmark(name.c_str(), BM_Fill, op, t.type, t.size, size.bytes, 1);
      }
  }
  // Two threads on the large outputs, where a second core adds bandwidth.
  for (auto op : {CPUML_OPERATOR_FILL_VALUE_CONSTANT, CPUML_OPERATOR_FILL_VALUE_SEQUENCE})
    benchmark::RegisterBenchmark(
        (std::string("fill/cpuml_") + (op == CPUML_OPERATOR_FILL_VALUE_CONSTANT ? "constant" : "sequence") +
         "_float32/64MiB/threads:2")
            .c_str(),
        BM_Fill, op, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, size_t{64} << 20, 2)->UseRealTime();
}

}  // namespace cpuml_bench
