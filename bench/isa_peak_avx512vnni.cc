// Compiled with AVX-512 VNNI flags; called only where the CPU has them. Written in assembly so
// the compiler adds no register copies between the chains (with intrinsics GCC 12 inserts a
// move per vpdpbusd and the probe measures the moves).
#include <stdint.h>

namespace cpuml_bench {

uint64_t IsaPeakAvx512Vnni(uint64_t iterations) {
  uint64_t n = iterations;
  __asm__ volatile(
      "vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16\n\t"
      "vpabsb %%zmm16, %%zmm17\n\t"
      "1:\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm0\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm1\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm2\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm3\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm4\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm5\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm6\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm7\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm8\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm9\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm10\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm11\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm12\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm13\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm14\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm15\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
        "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "cc");
  return iterations * 16 * 64;
}

}  // namespace cpuml_bench

#include <immintrin.h>
#include <stddef.h>

namespace cpuml_bench {

// Reads `bytes` (a multiple of 256) with 64-byte loads into four independent OR chains.
uint64_t ReadBytesAvx512(const uint8_t* data, size_t bytes) {
  __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  for (size_t i = 0; i < bytes; i += 256)
    for (int u = 0; u < 4; ++u) acc[u] = _mm512_or_si512(acc[u], _mm512_load_si512(data + i + 64 * u));
  alignas(64) uint64_t lanes[8];
  _mm512_store_si512(lanes, _mm512_or_si512(_mm512_or_si512(acc[0], acc[1]), _mm512_or_si512(acc[2], acc[3])));
  return lanes[0] | lanes[7];
}

}  // namespace cpuml_bench
