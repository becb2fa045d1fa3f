// QUANTIZED_LINEAR_MATRIX_MULTIPLY throughput, B prepacked, GOPS = 2 * M * N * K per second:
//   qgemm/cpuml/<types>/<shape>/threads:N   what an engine gets (the dispatched tier), every type
//                                           combination and thread count
//   qgemm/cpuml_scratch/u8s8/...            the same with caller-owned scratch
//   qgemm/cpuml_bound_b/u8s8/...            B bound at every execute (K x N), packed by each
//   qgemm/<kernel>/u8s8/<shape>/threads:1   every registered kernel of every tier this CPU runs
//                                           (u8s7 for kernels that need 7-bit B),
//                                           on the shapes in its M range (kernels/registry.h), so
//                                           tiers are compared in one process
// Shapes, types and thread counts: bench/bench_support.h (--shapes=, --types=, --threads=).
// CPUML_BENCH_TIERS=dispatched leaves out the per-kernel runs.
#include <benchmark/benchmark.h>

#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/gops.h"
#include "bench/isa_peak.h"
#include "kernels/registry.h"
#include "src/workspace.h"

namespace cpuml_bench {
namespace {

// `tier`: the cap while the operator is created (its kernels are fixed then); -1 for none.
// `scratch`: execute with caller-owned scratch (cpuml_execute_operator_with_scratch).
// `seven_bit_b`: B's values in [-64, 63], which lets initialize pick a 7-bit-B kernel.
// `b_bound`: B bound at every execute (K x N), packed by each execute.
void BM_Cpuml(benchmark::State& state, Shape s, bool a_signed, bool b_signed, bool seven_bit_b, int threads, int tier,
              bool scratch, bool b_bound) {
  MatMulData data(s, a_signed, b_signed, 1, seven_bit_b);
  const cpuml_isa previous_cap = cpuml_get_max_isa();
  if (tier >= 0) cpuml_set_max_isa(static_cast<cpuml_isa>(tier));
  const cpuml_isa isa = cpuml_get_isa();
  CpumlMatMul mm(data, a_signed, b_signed, false, b_bound);
  cpuml_set_max_isa(previous_cap);
  if (!mm.ok()) return state.SkipWithError("cpuml setup failed");
  std::vector<uint8_t> out((size_t{s.m} * s.n + 3) / 4 * 4);
  void* scratch_memory = scratch ? aligned_alloc(CPUML_SCRATCH_ALIGNMENT, (mm.ScratchBytes() + 63) / 64 * 64 + 64) : nullptr;
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  for (auto _ : state) {
    if (mm.Run(out.data(), pool, scratch_memory) != CPUML_STATUS_SUCCESS)
      state.SkipWithError(cpuml_last_error_message());
    benchmark::ClobberMemory();
  }
  if (pool) pthreadpool_destroy(pool);
  free(scratch_memory);
  SetGops(state, s);
  state.SetLabel(std::string("exact, ") + cpuml_isa_name(isa));
}

void BM_IsaPeak(benchmark::State& state, IsaPeakProbe probe) {
  uint64_t macs = 0;
  for (auto _ : state) macs += probe.run(1 << 16);
  state.counters["GOPS"] = benchmark::Counter(2.0 * static_cast<double>(macs) * 1e-9, benchmark::Counter::kIsRate);
  state.SetLabel(probe.instructions);
}

// The same probe on every thread of a pool at once: the machine's own multi-core limit for an
// instruction (all-core clocks, a tile unit per core), against which a threaded GEMM's scaling
// reads, rather than against its one-thread speed times the threads.
void BM_IsaPeakThreads(benchmark::State& state, IsaPeakProbe probe, int threads) {
  pthreadpool_t pool = pthreadpool_create(threads);
  struct Job {
    IsaPeakProbe* probe;
    std::atomic<uint64_t> macs{0};
  } job;
  job.probe = &probe;
  for (auto _ : state)
    pthreadpool_parallelize_1d(
        pool, [](void* context, size_t) {
          Job& j = *static_cast<Job*>(context);
          j.macs += j.probe->run(1 << 14);
        },
        &job, static_cast<size_t>(threads) * 4, 0);
  pthreadpool_destroy(pool);
  state.counters["GOPS"] = benchmark::Counter(2.0 * static_cast<double>(job.macs.load()) * 1e-9, benchmark::Counter::kIsRate);
  state.SetLabel(probe.instructions);
}

void BM_ReadBandwidth(benchmark::State& state, size_t bytes, int threads, bool l2_prefetch) {
  bytes = (bytes + 255) / 256 * 256;
  // On the pages the library gives its own buffers of this size (huge pages unless CPUML_HUGE_PAGES=0).
  const cpuml::Workspace workspace = cpuml::AllocateWorkspace(bytes);
  uint8_t* data = workspace.get();
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 131);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  struct Job {
    const uint8_t* data;
    size_t slice, bytes;
    ReadLoop loop;
    uint64_t sink[64];
  } job{data, (bytes / 256 + threads - 1) / threads * 256, bytes, l2_prefetch ? ReadLoop::kPrefetchL2 : ReadLoop::kPlain, {}};
  for (auto _ : state) {
    pthreadpool_parallelize_1d(
        pool,
        [](void* context, size_t t) {
          Job& j = *static_cast<Job*>(context);
          const size_t begin = std::min(t * j.slice, j.bytes), end = std::min(begin + j.slice, j.bytes);
          j.sink[t % 64] += ReadBytes(j.data + begin, end - begin, j.loop);
        },
        &job, static_cast<size_t>(threads), 0);
    benchmark::DoNotOptimize(job.sink);
  }
  if (pool) pthreadpool_destroy(pool);
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(bytes) * static_cast<double>(state.iterations()) * 1e-9,
                                              benchmark::Counter::kIsRate);
}

}  // namespace

void RegisterReadProbes(const std::string& what, uint64_t bytes, int threads) {
  for (bool l2_prefetch : {false, true})
    benchmark::RegisterBenchmark((what + (l2_prefetch ? "/l2_prefetch" : "") + "/threads:" + std::to_string(threads)).c_str(),
                                 BM_ReadBandwidth, static_cast<size_t>(bytes), threads, l2_prefetch)
        ->UseRealTime();
}

namespace {

const struct {
  const char* name;
  bool a_signed, b_signed, seven_bit_b;
} kCombos[] = {{"u8s8", false, true, false},
               {"u8u8", false, false, false},
               {"s8s8", true, true, false},
               {"s8u8", true, false, false},
               {"u8s7", false, true, true}};

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
      if (cpuml::HoldsNibbles(tier.qgemm[i]->packing)) continue;  // dqmatmul/.../u8u4 runs them
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

}  // namespace

void RegisterQGemmBenchmarks() {
  const BenchOptions& options = Options();
  for (const IsaPeakProbe& probe : IsaPeakProbes())
    if (probe.supported()) {
      benchmark::RegisterBenchmark((std::string("isa_peak/") + probe.name).c_str(), BM_IsaPeak, probe);
      for (int threads : options.threads)
        if (threads > 1)
          benchmark::RegisterBenchmark(
              (std::string("isa_peak/") + probe.name + "/threads:" + std::to_string(threads)).c_str(),
              BM_IsaPeakThreads, probe, threads)
              ->UseRealTime();
    }
  // The read-bandwidth probe at the size of each M = 1 shape's B (decode streams B once), with
  // both read loops.
  for (const Shape& s : options.shapes) {
    if (s.m != 1) continue;
    for (int threads : options.threads) RegisterReadProbes("read_bandwidth/" + ShapeName(s), uint64_t{s.k} * s.n, threads);
  }
  for (const Shape& s : options.shapes)
    for (const auto& combo : kCombos) {
      if (!options.Wants(combo.name)) continue;
      for (int threads : options.threads) {
        const std::string suffix = std::string(combo.name) + "/" + ShapeName(s) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(("qgemm/cpuml/" + suffix).c_str(), BM_Cpuml, s, combo.a_signed, combo.b_signed,
                                     combo.seven_bit_b, threads, -1, false, false)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
        // u8s8 again with caller-owned scratch: what an engine with its own arena gets; and with B
        // bound at every execute in ONNX MatMul's K x N layout (B an activation, or weights the
        // engine keeps), which each execute packs.
        if (strcmp(combo.name, "u8s8") == 0) {
          benchmark::RegisterBenchmark(("qgemm/cpuml_scratch/" + suffix).c_str(), BM_Cpuml, s, combo.a_signed,
                                       combo.b_signed, false, threads, -1, true, false)
              ->Unit(benchmark::kMicrosecond)
              ->UseRealTime();
          benchmark::RegisterBenchmark(("qgemm/cpuml_bound_b/" + suffix).c_str(), BM_Cpuml, s, combo.a_signed,
                                       combo.b_signed, false, threads, -1, false, true)
              ->Unit(benchmark::kMicrosecond)
              ->UseRealTime();
        }
      }
    }
  const char* tiers = getenv("CPUML_BENCH_TIERS");
  if (tiers && strcmp(tiers, "dispatched") == 0) return;
  for (const BenchKernel& k : RunnableKernels())
    for (const Shape& s : options.shapes) {
      if (s.m < k.kernel->min_m || s.m > k.kernel->max_m) continue;
      // A kernel for small B values runs on them (the operator picks it only then).
      const bool seven_bit_b = k.kernel->max_b_magnitude != 0;
      const std::string name = "qgemm/" + std::string(k.kernel->name) + (seven_bit_b ? "/u8s7/" : "/u8s8/") +
                               ShapeName(s) + "/threads:1";
      benchmark::RegisterBenchmark(name.c_str(), BM_Cpuml, s, false, true, seven_bit_b, 1, static_cast<int>(k.isa), false,
                                   false)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
}

}  // namespace cpuml_bench
