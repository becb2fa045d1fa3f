// Benchmark entry point: names the active tier first, then runs Google Benchmark.
#include <benchmark/benchmark.h>
#include <stdio.h>

#include "cpuml/cpuml.h"

int main(int argc, char** argv) {
  printf("cpuml active tier: %s\n", cpuml_isa_name(cpuml_get_isa()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
