#include "src/qgemm_pack.h"

#include <string.h>

namespace cpuml {
namespace {

inline int32_t Load(const Int8Matrix& m, size_t r, size_t c) {
  const uint8_t raw = m.data[r * m.row_stride + c * m.col_stride];
  return m.is_signed ? static_cast<int32_t>(static_cast<int8_t>(raw)) : static_cast<int32_t>(raw);
}

}  // namespace

void PackBPanel(const PackFormat& f, const Int8Matrix& b, size_t k0, size_t k, size_t n0, size_t nr_valid,
                void* panel) {
  int32_t* column_sums = static_cast<int32_t*>(panel);
  const size_t groups = f.Groups(k);
  memset(panel, 0, f.BPanelBytes(k));
  if (f.packing == QGemmPacking::kInt16Pairs) {
    // [group][column][pair] int16, raw B values; the zero point enters through row terms.
    int16_t* data = reinterpret_cast<int16_t*>(column_sums + f.nr);
    for (size_t g = 0; g < groups; ++g)
      for (size_t j = 0; j < nr_valid; ++j)
        for (size_t p = 0; p < f.kr && g * f.kr + p < k; ++p)
          data[(g * f.nr + j) * f.kr + p] = static_cast<int16_t>(Load(b, k0 + g * f.kr + p, n0 + j));
  } else {
    // [group][column][quad] s8; u8 B is shifted into s8 range by -128 (an XOR of the top bit).
    int8_t* data = reinterpret_cast<int8_t*>(column_sums + f.nr);
    for (size_t j = 0; j < nr_valid; ++j) {
      int32_t sum = 0;
      for (size_t g = 0; g < groups; ++g)
        for (size_t p = 0; p < f.kr && g * f.kr + p < k; ++p) {
          const int32_t v = Load(b, k0 + g * f.kr + p, n0 + j) - (b.is_signed ? 0 : 128);
          data[(g * f.nr + j) * f.kr + p] = static_cast<int8_t>(v);
          sum += v;
        }
      column_sums[j] = sum;
    }
  }
}

void PackATile(const PackFormat& f, const Int8Matrix& a, const int32_t* a_zero_point, size_t k0, size_t k, size_t m0,
               size_t mr_valid, void* tile, int32_t* row_a, int32_t* row_b) {
  const size_t groups = f.Groups(k);
  memset(tile, 0, f.ATileBytes(k));
  for (size_t i = mr_valid; i < f.mr; ++i) row_a[i] = row_b[i] = 0;
  if (f.packing == QGemmPacking::kInt16Pairs) {
    // A - za in int16 ([-255, 255]); row_b = -sum(A - za) pairs with col_b = zb.
    int16_t* data = static_cast<int16_t*>(tile);
    for (size_t i = 0; i < mr_valid; ++i) {
      uint32_t sum = 0;
      for (size_t kk = 0; kk < k; ++kk) {
        const int32_t v = Load(a, m0 + i, k0 + kk) - a_zero_point[i];
        data[((kk / f.kr) * f.mr + i) * f.kr + kk % f.kr] = static_cast<int16_t>(v);
        sum += static_cast<uint32_t>(v);
      }
      row_a[i] = 0;
      row_b[i] = static_cast<int32_t>(0u - sum);
    }
  } else {
    // u8 A (s8 A shifted by +128). With za' = za + shift and zb' = col_b:
    //   acc = dot - za' * colsum(B') + (k * za' - rowsum(A')) * zb'      (all mod 2^32)
    uint8_t* data = static_cast<uint8_t*>(tile);
    const int32_t shift = a.is_signed ? 128 : 0;
    for (size_t i = 0; i < mr_valid; ++i) {
      uint32_t sum = 0;
      for (size_t kk = 0; kk < k; ++kk) {
        const int32_t v = Load(a, m0 + i, k0 + kk) + shift;
        data[((kk / f.kr) * f.mr + i) * f.kr + kk % f.kr] = static_cast<uint8_t>(v);
        sum += static_cast<uint32_t>(v);
      }
      const uint32_t za = static_cast<uint32_t>(a_zero_point[i] + shift);
      row_a[i] = static_cast<int32_t>(0u - za);
      row_b[i] = static_cast<int32_t>(static_cast<uint32_t>(k) * za - sum);
    }
  }
  (void)groups;
}

}  // namespace cpuml
