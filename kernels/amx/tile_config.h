// The 64-byte operand of ldtilecfg (palette 1), shared by the AMX kernels and the AMX probes of
// cpuml_bench: plain data, no AMX instruction, so including it compiles nothing for the tile unit.
#ifndef CPUML_KERNELS_AMX_TILE_CONFIG_H_
#define CPUML_KERNELS_AMX_TILE_CONFIG_H_

#include <stdint.h>

namespace cpuml {
namespace amx {

struct alignas(64) TileConfig {
  uint8_t palette_id;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];  // bytes per row of each tile register
  uint8_t rows[16];
};

// All eight tile registers as 16 rows of 64 bytes, the shape every tile here uses.
constexpr TileConfig EightFullTiles() {
  TileConfig c{};
  c.palette_id = 1;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = 64;
    c.rows[t] = 16;
  }
  return c;
}

}  // namespace amx
}  // namespace cpuml

#endif  // CPUML_KERNELS_AMX_TILE_CONFIG_H_
