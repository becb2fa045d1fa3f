// The machine's own instruction peak for the exact int8 paths: independent accumulator chains
// of the instructions a tier's inner loop uses, so GEMM figures read as a fraction of it.
#ifndef CPUML_BENCH_ISA_PEAK_H_
#define CPUML_BENCH_ISA_PEAK_H_

#include <stddef.h>
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

// How a read probe walks its bytes: loads alone (the hardware prefetchers' stream), or loads with
// each line also requested into L2 8 KB ahead. Neither is the faster everywhere: on the AMD EPYC
// Zen 4 host (2 vCPUs), 256 MiB, 7 rounds, the requests read 24.3 against 21.3 GB/s on one thread
// and 33.0 against 28.3 on two.
enum class ReadLoop { kPlain, kPrefetchL2 };

// The machine's read bandwidth for the bytes a GEMM streams: reads `bytes` (a multiple of 256,
// 64-byte aligned) with the widest vector loads this CPU has; returns a value depending on every
// byte so the reads cannot be dropped.
uint64_t ReadBytes(const uint8_t* data, size_t bytes, ReadLoop loop = ReadLoop::kPlain);

}  // namespace cpuml_bench

#endif  // CPUML_BENCH_ISA_PEAK_H_
