// Compiled with AMX flags; called only where cpuml reports the amx tier supported (its detection
// has by then asked Linux for the tile state). Three probes of the tile unit, each with the AMX
// kernel's register plan (four 16 x 16 int32 accumulators, two A and two B tiles, four tdpbusd
// per 64 K values), so a GEMM figure reads against the step that bounds it:
//   IsaPeakAmx      tdpbusd alone, operands already in tiles: the instruction peak;
//   IsaPeakAmxL1    every operand tile loaded from L1 (16 KB of A, 16 KB of B, cycled);
//   IsaPeakAmxL2A   B from L1 and A streaming from a 512 KB buffer (L2), as the kernel reads
//                   its packed A while one B panel block stays in L1.
//   IsaPeakAmxK32, IsaPeakAmxK16
//                   IsaPeakAmx with 32 or 16 K values a tdpbusd (A tiles of 32 or 16 bytes a
//                   row, B tiles of 8 or 4 K quads): the rate of a tile kernel whose blocks of K
//                   (4-bit weights' blocks of 32 and 16) end every tdpbusd, counted in their MACs.
#include <immintrin.h>
#include <stdint.h>

#include "kernels/amx/tile_config.h"

namespace cpuml_bench {
namespace {

constexpr uint64_t kMacsPerTdpbusd = 16 * 16 * 64;
constexpr size_t kGroupBytes = 2048;  // two 16 x 64-byte tiles
constexpr size_t kL1Bytes = 16 * 1024, kL2Bytes = 512 * 1024;
alignas(64) uint8_t g_a[kL2Bytes];
alignas(64) uint8_t g_b[kL1Bytes];

void Configure() {
  static constexpr cpuml::amx::TileConfig kConfig = cpuml::amx::EightFullTiles();
  _tile_loadconfig(&kConfig);
  // Values that are neither zero nor uniform, in case the unit's timing depends on them.
  static const bool filled = [] {
    for (size_t i = 0; i < kL2Bytes; ++i) g_a[i] = static_cast<uint8_t>(i * 37 + 11);
    for (size_t i = 0; i < kL1Bytes; ++i) g_b[i] = static_cast<uint8_t>(i * 91 + 5);
    return true;
  }();
  (void)filled;
}

// The A tiles' rows of kK bytes and the B tiles' kK / 4 K quads: kK K values a tdpbusd.
template <size_t kK>
constexpr cpuml::amx::TileConfig ShortKConfig() {
  cpuml::amx::TileConfig c = cpuml::amx::EightFullTiles();
  for (int t = 4; t < 6; ++t) c.colsb[t] = kK;
  for (int t = 6; t < 8; ++t) c.rows[t] = kK / 4;
  return c;
}

template <size_t kABytes, bool kLoad, size_t kK = 64>
uint64_t Run(uint64_t iterations) {
  static_assert(kK == 64 || !kLoad, "the loading probes use full tiles");
  Configure();
  if constexpr (kK != 64) {
    static constexpr cpuml::amx::TileConfig kConfig = ShortKConfig<kK>();
    _tile_loadconfig(&kConfig);
  }
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, g_a, 64);
  _tile_loadd(5, g_a + 1024, 64);
  _tile_loadd(6, g_b, 128);
  _tile_loadd(7, g_b + 64, 128);
  size_t a = 0, b = 0;
  for (uint64_t i = 0; i < iterations; ++i) {
    if (kLoad) {
      _tile_stream_loadd(4, g_a + a, 64);
      _tile_loadd(6, g_b + b, 128);
      _tile_loadd(7, g_b + b + 64, 128);
      _tile_stream_loadd(5, g_a + a + 1024, 64);
      a = a + kGroupBytes == kABytes ? 0 : a + kGroupBytes;
      b = b + kGroupBytes == kL1Bytes ? 0 : b + kGroupBytes;
    }
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  alignas(64) int32_t sink[16 * 16];
  _tile_stored(0, sink, 64);
  _tile_release();
  return iterations * 4 * (kMacsPerTdpbusd / 64 * kK) + static_cast<uint64_t>(sink[0] & 0);
}

}  // namespace

uint64_t IsaPeakAmx(uint64_t iterations) { return Run<kL1Bytes, false>(iterations); }
uint64_t IsaPeakAmxL1(uint64_t iterations) { return Run<kL1Bytes, true>(iterations); }
uint64_t IsaPeakAmxL2A(uint64_t iterations) { return Run<kL2Bytes, true>(iterations); }
uint64_t IsaPeakAmxK32(uint64_t iterations) { return Run<kL1Bytes, false, 32>(iterations); }
uint64_t IsaPeakAmxK16(uint64_t iterations) { return Run<kL1Bytes, false, 16>(iterations); }

}  // namespace cpuml_bench
