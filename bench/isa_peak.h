// The machine's own instruction peak for the exact int8 paths: independent accumulator chains
// of the instructions a tier's inner loop uses, so GEMM figures read as a fraction of it.
#ifndef CPUML_BENCH_ISA_PEAK_H_
#define CPUML_BENCH_ISA_PEAK_H_

#include <stdint.h>

#include <vector>

namespace cpuml_bench {

struct IsaPeakProbe {
  const char* name;
  const char* instructions;
  bool (*supported)();
  uint64_t (*run)(uint64_t iterations);  // returns multiply-accumulates done
};

std::vector<IsaPeakProbe> IsaPeakProbes();

}  // namespace cpuml_bench

#endif  // CPUML_BENCH_ISA_PEAK_H_
