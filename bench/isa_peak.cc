#include "bench/isa_peak.h"

#include "cpuml/cpuml.h"

namespace cpuml_bench {

uint64_t IsaPeakAvx2Madd(uint64_t iterations);       // bench/isa_peak_avx2.cc
uint64_t IsaPeakAvx2Maddubs(uint64_t iterations);    // bench/isa_peak_avx2.cc
uint64_t IsaPeakAvx512Vnni(uint64_t iterations);     // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvx512VnniLoopL1(uint64_t iterations);        // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvx512VnniLoopRowBlock(uint64_t iterations);  // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvx512VnniLoopL1Embedded(uint64_t iterations);  // bench/isa_peak_avx512vnni.cc
uint64_t IsaPeakAvxVnni(uint64_t iterations);        // bench/isa_peak_avxvnni.cc
uint64_t IsaPeakAmx(uint64_t iterations);           // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxL1(uint64_t iterations);         // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxL2A(uint64_t iterations);        // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxK32(uint64_t iterations);        // bench/isa_peak_amx.cc
uint64_t IsaPeakAmxK16(uint64_t iterations);        // bench/isa_peak_amx.cc
uint64_t ReadBytesAvx2(const uint8_t* data, size_t bytes);    // bench/isa_peak_avx2.cc
uint64_t ReadBytesAvx512(const uint8_t* data, size_t bytes);  // bench/isa_peak_avx512vnni.cc

std::vector<IsaPeakProbe> IsaPeakProbes() {
#if defined(__x86_64__)
  return {
      {"avx2_vpmaddwd_vpaddd", "vpmaddwd + vpaddd, int16 operands (exact)",
       [] { return __builtin_cpu_supports("avx2") != 0; }, IsaPeakAvx2Madd},
      {"avx2_vpmaddubsw_vpmaddwd_vpaddd", "vpmaddubsw + vpmaddwd + vpaddd, B within 7 bits (exact)",
       [] { return __builtin_cpu_supports("avx2") != 0; }, IsaPeakAvx2Maddubs},
      {"avxvnni_vpdpbusd", "vpdpbusd ymm (VEX), u8 x s8 into int32 (exact)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AVXVNNI) != 0; }, IsaPeakAvxVnni},
      {"avx512vnni_vpdpbusd", "vpdpbusd zmm, u8 x s8 into int32 (exact)",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512Vnni},
      {"avx512vnni_12x32_loop_l1", "vpdpbusd zmm, the 12 x 32 kernel's loop, A and B from L1",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512VnniLoopL1},
      {"avx512vnni_12x32_loop_row_block", "vpdpbusd zmm, the 12 x 32 kernel's loop, B from L1, 8 tiles of A from L2",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512VnniLoopRowBlock},
      {"avx512vnni_12x32_loop_l1_embedded", "vpdpbusd zmm, the same loop with A as its broadcast memory operand, from L1",
       [] { return __builtin_cpu_supports("avx512vnni") != 0; }, IsaPeakAvx512VnniLoopL1Embedded},
      {"amx_tdpbusd", "tdpbusd, operands in tile registers (exact)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmx},
      {"amx_tdpbusd_tiles_from_l1", "tdpbusd, A and B tiles loaded from L1 (the AMX kernel's loop)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxL1},
      {"amx_tdpbusd_a_from_l2", "tdpbusd, B tiles from L1, A streamed from L2 (the AMX kernel's loop)",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxL2A},
      {"amx_tdpbusd_k32", "tdpbusd of 32 K values (a block of 32 a tile instruction), operands in tiles",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxK32},
      {"amx_tdpbusd_k16", "tdpbusd of 16 K values (a block of 16 a tile instruction), operands in tiles",
       [] { return cpuml_is_isa_supported(CPUML_ISA_AMX) != 0; }, IsaPeakAmxK16},
  };
#else
  return {};
#endif
}

uint64_t ReadBytes(const uint8_t* data, size_t bytes) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f") != 0, avx2 = __builtin_cpu_supports("avx2") != 0;
  if (avx512) return ReadBytesAvx512(data, bytes);
  if (avx2) return ReadBytesAvx2(data, bytes);
#endif
  uint64_t acc[4] = {0, 0, 0, 0};
  const uint64_t* words = reinterpret_cast<const uint64_t*>(data);
  for (size_t i = 0; i < bytes / 8; i += 4)
    for (int u = 0; u < 4; ++u) acc[u] |= words[i + u];
  return acc[0] | acc[1] | acc[2] | acc[3];
}

}  // namespace cpuml_bench
