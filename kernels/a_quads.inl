// AQuads for the VNNI micro-kernels (kU8S8 layout, K in quads): included by each kernel file after
// it defines CPUML_TIER, so every copy lives in that tier's namespace and is compiled with its
// flags only (like block_prefetch.inl).
#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace cpuml {
namespace CPUML_TIER {
namespace {

// Row i's quad (4 K values) of K group g in A as a tile reads it. Packed: the tile's kTileRows
// quads per group. In place (QGemmAInPlace::kU8Rows, QGemmTileParams::a_row_stride): the caller's
// u8 rows, four rows to a base pointer, so each quad is one load through one addressing mode
// (base + {0, 1, 2, 3} x stride + the group's bytes) and A keeps a few general registers however
// many rows the tile has.
template <size_t kTileRows, bool kInPlace>
class AQuads;
template <size_t kTileRows>
class AQuads<kTileRows, false> {
 public:
  AQuads(const void* a, size_t) : a_(static_cast<const int32_t*>(a)) {}
  __attribute__((always_inline)) int32_t operator()(size_t i, size_t g) const { return a_[g * kTileRows + i]; }

 private:
  const int32_t* a_;
};
template <size_t kTileRows>
class AQuads<kTileRows, true> {
 public:
  AQuads(const void* a, size_t row_stride) : stride_(row_stride) {
    for (size_t q = 0; q < kBases; ++q) base_[q] = static_cast<const uint8_t*>(a) + 4 * q * row_stride;
  }
  __attribute__((always_inline)) int32_t operator()(size_t i, size_t g) const {
    int32_t quad;
    memcpy(&quad, base_[i / 4] + (i % 4) * stride_ + g * sizeof quad, sizeof quad);
    return quad;
  }

 private:
  static constexpr size_t kBases = (kTileRows + 3) / 4;
  const uint8_t* base_[kBases];
  size_t stride_;
};

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
