// Compiled with AVX-512 VNNI flags; called only where the CPU has them. Written in assembly so
// the compiler adds no register copies between the chains (with intrinsics GCC 12 inserts a
// move per vpdpbusd and the probe measures the moves).
#include <stddef.h>
#include <stdint.h>

namespace cpuml_bench {
namespace {

// The 12 x 32 kernel's loop (qgemm_u8s8_12x32c4__avx512vnni): per K quad two B vectors and twelve
// A quads broadcast from memory into 24 accumulators, four quads to an iteration. A tile covers
// kGroups quads; a row block of tiles shares one B block, as the driver runs them. So a GEMM's
// figure reads against what its own loop reaches with its operands in L1 (one tile) and with A
// streaming from L2 (eight tiles: 48 KB of A beside 16 KB of B, at K blocks of 512). The
// embedded form takes each quad as vpdpbusd's broadcast memory operand instead of a
// vpbroadcastd of its own: that operand is the signed one, so it needs B as u8 and A as s8, a
// layout cpuml does not use (docs/experiments.md, "2026-11-23: A as the broadcast memory operand", says why).
#define CPUML_VNNI_ROW(g, i, c0, c1)                   \
  "vpbroadcastd (48*" #g "+4*" #i ")(%[a]), %%zmm26\n\t" \
  "vpdpbusd %%zmm24, %%zmm26, %%zmm" #c0 "\n\t"         \
  "vpdpbusd %%zmm25, %%zmm26, %%zmm" #c1 "\n\t"
#define CPUML_VNNI_ROW_EMBEDDED(g, i, c0, c1)                                    \
  "vpdpbusd (48*" #g "+4*" #i ")(%[a])%{1to16%}, %%zmm24, %%zmm" #c0 "\n\t" \
  "vpdpbusd (48*" #g "+4*" #i ")(%[a])%{1to16%}, %%zmm25, %%zmm" #c1 "\n\t"
#define CPUML_VNNI_GROUP(ROW, g)                                                                  \
  "vmovdqa32 (128*" #g ")(%[b]), %%zmm24\n\t"                                                    \
  "vmovdqa32 (128*" #g "+64)(%[b]), %%zmm25\n\t" ROW(g, 0, 0, 1) ROW(g, 1, 2, 3) ROW(g, 2, 4, 5) \
      ROW(g, 3, 6, 7) ROW(g, 4, 8, 9) ROW(g, 5, 10, 11) ROW(g, 6, 12, 13) ROW(g, 7, 14, 15)         \
          ROW(g, 8, 16, 17) ROW(g, 9, 18, 19) ROW(g, 10, 20, 21) ROW(g, 11, 22, 23)
#define CPUML_VNNI_TILE_LOOP(ROW)                                                                        \
  "1:\n\t" CPUML_VNNI_GROUP(ROW, 0) CPUML_VNNI_GROUP(ROW, 1) CPUML_VNNI_GROUP(ROW, 2) CPUML_VNNI_GROUP(ROW, 3) \
  "add $192, %[a]\n\t"                                                                                   \
  "add $512, %[b]\n\t"                                                                                   \
  "dec %[n]\n\t"                                                                                         \
  "jnz 1b\n\t"

constexpr size_t kGroups = 128, kRowBlockTiles = 8;
constexpr size_t kATileBytes = kGroups * 12 * 4, kBBlockBytes = kGroups * 32 * 4;
alignas(64) uint8_t g_a[kRowBlockTiles * kATileBytes];
alignas(64) uint8_t g_b[kBBlockBytes];

template <bool kEmbedded>
void Tile(const uint8_t* a, const uint8_t* b) {
  uint64_t n = kGroups / 4;
#define CPUML_VNNI_OPERANDS                                                                                    \
  : [a] "+r"(a), [b] "+r"(b), [n] "+r"(n)                                                                     \
  :                                                                                                           \
  : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
    "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", \
    "xmm24", "xmm25", "xmm26", "cc"
  if constexpr (kEmbedded)
    __asm__ volatile(CPUML_VNNI_TILE_LOOP(CPUML_VNNI_ROW_EMBEDDED) CPUML_VNNI_OPERANDS);
  else
    __asm__ volatile(CPUML_VNNI_TILE_LOOP(CPUML_VNNI_ROW) CPUML_VNNI_OPERANDS);
#undef CPUML_VNNI_OPERANDS
}
#undef CPUML_VNNI_TILE_LOOP
#undef CPUML_VNNI_GROUP
#undef CPUML_VNNI_ROW_EMBEDDED
#undef CPUML_VNNI_ROW

// Values that are neither zero nor uniform, once for every probe that reads them.
void FillOperands() {
  static const bool filled = [] {
    for (size_t i = 0; i < sizeof(g_a); ++i) g_a[i] = static_cast<uint8_t>(i * 37 + 11);
    for (size_t i = 0; i < sizeof(g_b); ++i) g_b[i] = static_cast<uint8_t>(i * 91 + 5);
    return true;
  }();
  (void)filled;
}

template <size_t kTiles, bool kEmbedded>
uint64_t RunTiles(uint64_t iterations) {
  FillOperands();
  // A tile (3072 vpdpbusd) per 64 iterations, so these take about as long as the other probes.
  const uint64_t tiles = iterations / 64;
  for (uint64_t i = 0; i < tiles; ++i) Tile<kEmbedded>(g_a + (i % kTiles) * kATileBytes, g_b);
  __asm__ volatile("vzeroupper" ::: "memory");
  return tiles * kGroups * 24 * 64;
}

}  // namespace

uint64_t IsaPeakAvx512VnniLoopL1(uint64_t iterations) { return RunTiles<1, false>(iterations); }
uint64_t IsaPeakAvx512VnniLoopRowBlock(uint64_t iterations) { return RunTiles<kRowBlockTiles, false>(iterations); }
uint64_t IsaPeakAvx512VnniLoopL1Embedded(uint64_t iterations) { return RunTiles<1, true>(iterations); }

// vpdpbusd with one independent vmulps per four: the 4-bit formula's two float multiplies per
// output and block of 32 beside the block's eight vpdpbusd per 16 outputs, registers only. Where
// the two instructions share pipes (AMD Zen 5) this is the most 4-bit prefill at blocks of 32 can
// reach on this tier.
uint64_t IsaPeakAvx512VnniWithVmulps(uint64_t iterations) {
  uint64_t n = iterations;
  __asm__ volatile(
      "vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16\n\t"
      "vpabsb %%zmm16, %%zmm17\n\t"
      "vcvtdq2ps %%zmm17, %%zmm18\n\t"
      "1:\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm0\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm1\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm2\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm3\n\t"
      "vmulps %%zmm18, %%zmm18, %%zmm19\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm4\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm5\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm6\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm7\n\t"
      "vmulps %%zmm18, %%zmm18, %%zmm20\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm8\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm9\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm10\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm11\n\t"
      "vmulps %%zmm18, %%zmm18, %%zmm21\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm12\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm13\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm14\n\t"
      "vpdpbusd %%zmm16, %%zmm17, %%zmm15\n\t"
      "vmulps %%zmm18, %%zmm18, %%zmm22\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
        "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "cc");
  return iterations * 16 * 64;
}

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

namespace {  // this file's own AVX-512 code: no other file may link to it

// Reads `bytes` (a multiple of 256) with 64-byte loads into four independent OR chains; with
// kPrefetch each line is also requested into L2 8 KB ahead (a prefetch past the end is harmless).
template <bool kPrefetch>
uint64_t ReadLines(const uint8_t* data, size_t bytes) {
  __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  for (size_t i = 0; i < bytes; i += 256)
    for (int u = 0; u < 4; ++u) {
      if (kPrefetch) _mm_prefetch(reinterpret_cast<const char*>(data + i + 64 * u + 8192), _MM_HINT_T1);
      acc[u] = _mm512_or_si512(acc[u], _mm512_load_si512(data + i + 64 * u));
    }
  alignas(64) uint64_t lanes[8];
  _mm512_store_si512(lanes, _mm512_or_si512(_mm512_or_si512(acc[0], acc[1]), _mm512_or_si512(acc[2], acc[3])));
  return lanes[0] | lanes[7];
}

}  // namespace

uint64_t ReadBytesAvx512(const uint8_t* data, size_t bytes, bool prefetch) {
  return prefetch ? ReadLines<true>(data, bytes) : ReadLines<false>(data, bytes);
}

}  // namespace cpuml_bench
