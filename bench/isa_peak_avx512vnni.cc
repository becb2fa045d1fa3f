// Compiled with AVX-512 VNNI flags; called only where the CPU has them.
#include <immintrin.h>
#include <stdint.h>

#include <benchmark/benchmark.h>

namespace cpuml_bench {

uint64_t IsaPeakAvx512Vnni(uint64_t iterations) {
  __m512i acc[16], a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(5);
  for (auto& x : acc) x = _mm512_setzero_si512();
  for (uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) acc[j] = _mm512_dpbusd_epi32(acc[j], a, b);
    __asm__ volatile("" : "+v"(a), "+v"(b));
  }
  for (auto& x : acc) benchmark::DoNotOptimize(x);
  return iterations * 16 * 64;
}

}  // namespace cpuml_bench
