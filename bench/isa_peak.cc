#include "bench/isa_peak.h"

namespace cpuml_bench {

uint64_t IsaPeakAvx2Madd(uint64_t iterations);       // bench/isa_peak_avx2.cc
uint64_t IsaPeakAvx512Vnni(uint64_t iterations);     // bench/isa_peak_avx512vnni.cc

std::vector<IsaPeakProbe> IsaPeakProbes() {
#if defined(__x86_64__)
  return {
      {"avx2_vpmaddwd_vpaddd", "vpmaddwd + vpaddd, int16 operands (exact)",
       [] { return __builtin_cpu_supports("avx2") != 0; }, IsaPeakAvx2Madd},
      {"avx512vnni_vpdpbusd", "vpdpbusd zmm, u8 x s8 into int32 (exact)",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512Vnni},
  };
#else
  return {};
#endif
}

}  // namespace cpuml_bench
