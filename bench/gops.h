#ifndef CPUML_BENCH_GOPS_H_
#define CPUML_BENCH_GOPS_H_

#include <benchmark/benchmark.h>

#include "bench/bench_support.h"

namespace cpuml_bench {

// GOPS = 2 * M * N * K operations per run, per second of real time.
inline void SetGops(benchmark::State& state, Shape s) {
  state.counters["GOPS"] = benchmark::Counter(2.0 * s.m * s.n * s.k * static_cast<double>(state.iterations()) * 1e-9,
                                              benchmark::Counter::kIsRate);
}

}  // namespace cpuml_bench

#endif  // CPUML_BENCH_GOPS_H_
