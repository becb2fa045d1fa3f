// Compiled with -mavx2; called only where the CPU has AVX2. The exact AVX2 path's instruction
// pair, vpmaddwd then vpaddd, over 12 independent chains, in assembly so the compiler adds no
// register copies.
#include <stdint.h>

namespace cpuml_bench {

uint64_t IsaPeakAvx2Madd(uint64_t iterations) {
  uint64_t n = iterations;
  __asm__ volatile(
      "vpcmpeqd %%ymm14, %%ymm14, %%ymm14\n\t"
      "vpabsw %%ymm14, %%ymm15\n\t"
      "1:\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm12\n\t"
      "vpaddd %%ymm12, %%ymm0, %%ymm0\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm13\n\t"
      "vpaddd %%ymm13, %%ymm1, %%ymm1\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm12\n\t"
      "vpaddd %%ymm12, %%ymm2, %%ymm2\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm13\n\t"
      "vpaddd %%ymm13, %%ymm3, %%ymm3\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm12\n\t"
      "vpaddd %%ymm12, %%ymm4, %%ymm4\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm13\n\t"
      "vpaddd %%ymm13, %%ymm5, %%ymm5\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm12\n\t"
      "vpaddd %%ymm12, %%ymm6, %%ymm6\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm13\n\t"
      "vpaddd %%ymm13, %%ymm7, %%ymm7\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm12\n\t"
      "vpaddd %%ymm12, %%ymm8, %%ymm8\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm13\n\t"
      "vpaddd %%ymm13, %%ymm9, %%ymm9\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm12\n\t"
      "vpaddd %%ymm12, %%ymm10, %%ymm10\n\t"
      "vpmaddwd %%ymm14, %%ymm15, %%ymm13\n\t"
      "vpaddd %%ymm13, %%ymm11, %%ymm11\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
        "xmm12", "xmm13", "xmm14", "xmm15", "cc");
  return iterations * 12 * 16;
}

// The 7-bit-B kernel's triple (qgemm_u8s7_*__avx2): vpmaddubsw, vpmaddwd against ones, vpaddd,
// over 10 independent chains (two temporaries and the ones fill the other registers).
uint64_t IsaPeakAvx2Maddubs(uint64_t iterations) {
  uint64_t n = iterations;
  __asm__ volatile(
      "vpcmpeqd %%ymm14, %%ymm14, %%ymm14\n\t"
      "vpabsb %%ymm14, %%ymm15\n\t"
      "vpabsw %%ymm14, %%ymm12\n\t"
      "1:\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm10\n\t"
      "vpmaddwd %%ymm12, %%ymm10, %%ymm10\n\t"
      "vpaddd %%ymm10, %%ymm0, %%ymm0\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm11\n\t"
      "vpmaddwd %%ymm12, %%ymm11, %%ymm11\n\t"
      "vpaddd %%ymm11, %%ymm1, %%ymm1\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm10\n\t"
      "vpmaddwd %%ymm12, %%ymm10, %%ymm10\n\t"
      "vpaddd %%ymm10, %%ymm2, %%ymm2\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm11\n\t"
      "vpmaddwd %%ymm12, %%ymm11, %%ymm11\n\t"
      "vpaddd %%ymm11, %%ymm3, %%ymm3\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm10\n\t"
      "vpmaddwd %%ymm12, %%ymm10, %%ymm10\n\t"
      "vpaddd %%ymm10, %%ymm4, %%ymm4\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm11\n\t"
      "vpmaddwd %%ymm12, %%ymm11, %%ymm11\n\t"
      "vpaddd %%ymm11, %%ymm5, %%ymm5\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm10\n\t"
      "vpmaddwd %%ymm12, %%ymm10, %%ymm10\n\t"
      "vpaddd %%ymm10, %%ymm6, %%ymm6\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm11\n\t"
      "vpmaddwd %%ymm12, %%ymm11, %%ymm11\n\t"
      "vpaddd %%ymm11, %%ymm7, %%ymm7\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm10\n\t"
      "vpmaddwd %%ymm12, %%ymm10, %%ymm10\n\t"
      "vpaddd %%ymm10, %%ymm8, %%ymm8\n\t"
      "vpmaddubsw %%ymm14, %%ymm15, %%ymm11\n\t"
      "vpmaddwd %%ymm12, %%ymm11, %%ymm11\n\t"
      "vpaddd %%ymm11, %%ymm9, %%ymm9\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
        "xmm12", "xmm14", "xmm15", "cc");
  return iterations * 10 * 32;
}

}  // namespace cpuml_bench

#include <immintrin.h>
#include <stddef.h>

namespace cpuml_bench {

namespace {  // this file's own AVX2 code: no other file may link to it

// Reads `bytes` (a multiple of 256) with 32-byte loads into four independent OR chains; with
// kPrefetch each line is also requested into L2 8 KB ahead (a prefetch past the end is harmless).
template <bool kPrefetch>
uint64_t ReadLines(const uint8_t* data, size_t bytes) {
  __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  for (size_t i = 0; i < bytes; i += 256) {
    if (kPrefetch)
      for (int u = 0; u < 4; ++u) _mm_prefetch(reinterpret_cast<const char*>(data + i + 64 * u + 8192), _MM_HINT_T1);
    for (int u = 0; u < 8; ++u)
      acc[u % 4] = _mm256_or_si256(acc[u % 4], _mm256_load_si256(reinterpret_cast<const __m256i*>(data + i + 32 * u)));
  }
  const __m256i all = _mm256_or_si256(_mm256_or_si256(acc[0], acc[1]), _mm256_or_si256(acc[2], acc[3]));
  return static_cast<uint64_t>(_mm256_extract_epi64(all, 0) | _mm256_extract_epi64(all, 3));
}

}  // namespace

uint64_t ReadBytesAvx2(const uint8_t* data, size_t bytes, bool prefetch) {
  return prefetch ? ReadLines<true>(data, bytes) : ReadLines<false>(data, bytes);
}

}  // namespace cpuml_bench
