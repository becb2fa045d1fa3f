// Compiled with -mavx2; called only where the CPU has AVX2.
#include <immintrin.h>
#include <stdint.h>

#include <benchmark/benchmark.h>

namespace cpuml_bench {

uint64_t IsaPeakAvx2Madd(uint64_t iterations) {
  __m256i acc[12], a = _mm256_set1_epi16(3), b = _mm256_set1_epi16(5);
  for (auto& x : acc) x = _mm256_setzero_si256();
  for (uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(a, b));
    __asm__ volatile("" : "+x"(a), "+x"(b));
  }
  for (auto& x : acc) benchmark::DoNotOptimize(x);
  return iterations * 12 * 16;
}

}  // namespace cpuml_bench
