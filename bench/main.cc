// Benchmark entry point: names the active tier first, reads the shape, type and thread lists
// (bench/bench_support.h), registers the benchmarks, then runs Google Benchmark.
#include <benchmark/benchmark.h>
#include <stdio.h>

#include "bench/bench_support.h"
#include "cpuml/cpuml.h"

int main(int argc, char** argv) {
  printf("cpuml %s, active tier: %s\n", cpuml_get_version_string(), cpuml_isa_name(cpuml_get_isa()));
  if (!cpuml_bench::ParseBenchOptions(&argc, argv)) return 2;
  cpuml_bench::RegisterQGemmBenchmarks();
  cpuml_bench::RegisterPeerBenchmarks();
  cpuml_bench::RegisterDynamicQuantBenchmarks();
  cpuml_bench::RegisterFillBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
