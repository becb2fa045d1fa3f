// QUANTIZED_LINEAR_MATRIX_MULTIPLY throughput, B prepacked, GOPS = 2 * M * N * K per second:
//   qgemm/cpuml/<types>/<shape>/threads:N   what an engine gets (the dispatched tier), every type
//                                           combination and thread count
//   qgemm/<kernel>/u8s8/<shape>/threads:1   every registered kernel of every tier this CPU runs,
//                                           on the shapes in its M range (kernels/registry.h), so
//                                           tiers are compared in one process
// CPUML_BENCH_TIERS=dispatched leaves out the per-kernel runs.
#include <benchmark/benchmark.h>

#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/gops.h"
#include "bench/isa_peak.h"
#include "kernels/registry.h"

namespace cpuml_bench {
namespace {

// `tier`: the cap while the operator is created (its kernels are fixed then); -1 for none.
void BM_Cpuml(benchmark::State& state, Shape s, bool a_signed, bool b_signed, int threads, int tier) {
  MatMulData data(s, a_signed, b_signed);
  const cpuml_isa previous_cap = cpuml_get_max_isa();
  if (tier >= 0) cpuml_set_max_isa(static_cast<cpuml_isa>(tier));
  const cpuml_isa isa = cpuml_get_isa();
  CpumlMatMul mm(data, a_signed, b_signed, false);
  cpuml_set_max_isa(previous_cap);
  if (!mm.ok()) return state.SkipWithError("cpuml setup failed");
  std::vector<uint8_t> out((size_t{s.m} * s.n + 3) / 4 * 4);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  for (auto _ : state) {
    if (mm.Run(out.data(), pool) != CPUML_STATUS_SUCCESS) state.SkipWithError(cpuml_last_error_message());
    benchmark::ClobberMemory();
  }
  if (pool) pthreadpool_destroy(pool);
  SetGops(state, s);
  state.SetLabel(std::string("exact, ") + cpuml_isa_name(isa));
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

struct BenchKernel {
  cpuml_isa isa;
  const cpuml::QGemmKernel* kernel;
};

// Every registered kernel of this architecture whose tier this CPU runs, each once, with the
// lowest tier that lists it.
std::vector<BenchKernel> RunnableKernels() {
  std::vector<BenchKernel> kernels;
  auto add = [&](cpuml_isa isa, const cpuml::TierKernels& tier) {
    if (!cpuml_is_isa_supported(isa)) return;
    for (size_t i = 0; i < tier.qgemm_count; ++i) {
      bool seen = false;
      for (const BenchKernel& k : kernels) seen |= k.kernel == tier.qgemm[i];
      if (!seen) kernels.push_back({isa, tier.qgemm[i]});
    }
  };
#define CPUML_BENCH_TIER(ns, isa, name, arch, gemm_check, fill_check) CPUML_IF_##arch(add(isa, cpuml::ns::kTierKernels);)
  CPUML_TIERS(CPUML_BENCH_TIER)
#undef CPUML_BENCH_TIER
  return kernels;
}

std::string ShapeName(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
}

int Register() {
  for (const IsaPeakProbe& probe : IsaPeakProbes())
    if (probe.supported()) benchmark::RegisterBenchmark((std::string("isa_peak/") + probe.name).c_str(), BM_IsaPeak, probe);
  for (const Shape& s : kShapes)
    for (const auto& combo : kCombos)
      for (int threads : ThreadCounts()) {
        const std::string name = "qgemm/cpuml/" + std::string(combo.name) + "/" + ShapeName(s) + "/threads:" +
                                 std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), BM_Cpuml, s, combo.a_signed, combo.b_signed, threads, -1)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
  const char* tiers = getenv("CPUML_BENCH_TIERS");
  if (tiers && strcmp(tiers, "dispatched") == 0) return 0;
  for (const BenchKernel& k : RunnableKernels())
    for (const Shape& s : kShapes) {
      if (s.m < k.kernel->min_m || s.m > k.kernel->max_m) continue;
      const std::string name = "qgemm/" + std::string(k.kernel->name) + "/u8s8/" + ShapeName(s) + "/threads:1";
      benchmark::RegisterBenchmark(name.c_str(), BM_Cpuml, s, false, true, 1, static_cast<int>(k.isa))
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  return 0;
}
const int registered = Register();

}  // namespace
}  // namespace cpuml_bench
