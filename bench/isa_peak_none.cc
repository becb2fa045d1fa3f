#include <stddef.h>
#include <stdint.h>

namespace cpuml_bench {
uint64_t IsaPeakAvx2Madd(uint64_t) { return 0; }
uint64_t IsaPeakAvx512Vnni(uint64_t) { return 0; }
uint64_t IsaPeakAvxVnni(uint64_t) { return 0; }
uint64_t ReadBytesAvx2(const uint8_t*, size_t, bool) { return 0; }
uint64_t ReadBytesAvx512(const uint8_t*, size_t, bool) { return 0; }
}  // namespace cpuml_bench
