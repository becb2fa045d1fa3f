// Compiled with AVX-VNNI flags; called only where the CPU has them. The VEX vpdpbusd on ymm, in
// assembly for the reason given in isa_peak_avx512vnni.cc.
#include <stdint.h>

namespace cpuml_bench {

uint64_t IsaPeakAvxVnni(uint64_t iterations) {
  uint64_t n = iterations;
  __asm__ volatile(
      "vpcmpeqd %%ymm14, %%ymm14, %%ymm14\n\t"
      "vpabsb %%ymm14, %%ymm15\n\t"
      "1:\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm0\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm1\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm2\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm3\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm4\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm5\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm6\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm7\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm8\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm9\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm10\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm11\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm12\n\t"
      "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm13\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
        "xmm12", "xmm13", "xmm14", "xmm15", "cc");
  return iterations * 14 * 32;
}

}  // namespace cpuml_bench
