// QUANTIZED_LINEAR_MATRIX_MULTIPLY throughput: every type combination, the peers' shapes, 1 and 2
// threads, B prepacked. GOPS = 2 * M * N * K per second.
#include <benchmark/benchmark.h>

#include <stdlib.h>

#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/gops.h"
#include "bench/isa_peak.h"

namespace cpuml_bench {
namespace {

void BM_Cpuml(benchmark::State& state, Shape s, bool a_signed, bool b_signed, int threads) {
  MatMulData data(s, a_signed, b_signed);
  CpumlMatMul mm(data, a_signed, b_signed, false);
  if (!mm.ok()) return state.SkipWithError("cpuml setup failed");
  std::vector<uint8_t> out((size_t{s.m} * s.n + 3) / 4 * 4);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  for (auto _ : state) {
    if (mm.Run(out.data(), pool) != CPUML_STATUS_SUCCESS) state.SkipWithError(cpuml_last_error_message());
    benchmark::ClobberMemory();
  }
  if (pool) pthreadpool_destroy(pool);
  SetGops(state, s);
  state.SetLabel(std::string("exact, ") + cpuml_isa_name(cpuml_get_isa()));
}

void BM_IsaPeak(benchmark::State& state, IsaPeakProbe probe) {
  uint64_t macs = 0;
  for (auto _ : state) macs += probe.run(1 << 16);
  state.counters["GOPS"] = benchmark::Counter(2.0 * static_cast<double>(macs) * 1e-9, benchmark::Counter::kIsRate);
  state.SetLabel(probe.instructions);
}

const struct {
  const char* name;
  bool a_signed, b_signed;
} kCombos[] = {{"u8s8", false, true}, {"u8u8", false, false}, {"s8s8", true, true}, {"s8u8", true, false}};

// Thread counts to measure: CPUML_BENCH_THREADS="1,16" overrides the default 1 and 2.
std::vector<int> ThreadCounts() {
  std::vector<int> counts;
  if (const char* env = getenv("CPUML_BENCH_THREADS")) {
    for (const char* p = env; *p;) {
      char* end;
      const long n = strtol(p, &end, 10);
      if (end == p) break;
      if (n > 0) counts.push_back(static_cast<int>(n));
      p = *end ? end + 1 : end;
    }
  }
  if (counts.empty()) counts = {1, 2};
  return counts;
}

int Register() {
  for (const IsaPeakProbe& probe : IsaPeakProbes())
    if (probe.supported()) benchmark::RegisterBenchmark((std::string("isa_peak/") + probe.name).c_str(), BM_IsaPeak, probe);
  for (const Shape& s : kShapes)
    for (const auto& combo : kCombos)
      for (int threads : ThreadCounts()) {
        const std::string name = "qgemm/cpuml/" + std::string(combo.name) + "/" + std::to_string(s.m) + "x" +
                                 std::to_string(s.k) + "x" + std::to_string(s.n) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), BM_Cpuml, s, combo.a_signed, combo.b_signed, threads)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
  return 0;
}
const int registered = Register();

}  // namespace
}  // namespace cpuml_bench
