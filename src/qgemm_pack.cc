#include "src/qgemm_pack.h"

#include <string.h>

namespace cpuml {
namespace {

// Packs one line along K (a row of A or a column of B) into lane `lane` of a
// [group][lanes][kKr] panel, storing each value as x + offset. Returns the sum of the stored
// values modulo 2^32. Groups past k keep the zeros the caller wrote.
template <class Element, size_t kKr, bool kSigned, bool kContiguous>
uint32_t PackLine(const uint8_t* src, uint64_t k_stride, size_t k, int32_t offset, Element* panel, size_t lanes,
                  size_t lane) {
  auto load = [&](size_t kk) -> int32_t {
    const uint8_t raw = kContiguous ? src[kk] : src[kk * k_stride];
    return kSigned ? static_cast<int32_t>(static_cast<int8_t>(raw)) : static_cast<int32_t>(raw);
  };
  uint32_t sum = 0;
  Element* out = panel + lane * kKr;
  const size_t step = lanes * kKr;
  size_t kk = 0;
  for (; kk + kKr <= k; kk += kKr, out += step) {
    for (size_t p = 0; p < kKr; ++p) {
      const int32_t v = load(kk + p) + offset;
      out[p] = static_cast<Element>(v);
      sum += static_cast<uint32_t>(v);
    }
  }
  for (size_t p = 0; kk + p < k; ++p) {
    const int32_t v = load(kk + p) + offset;
    out[p] = static_cast<Element>(v);
    sum += static_cast<uint32_t>(v);
  }
  return sum;
}

// The common case of the 8-bit layouts, a line contiguous along K: each stored byte is the input
// byte with its top bit flipped when the layout shifts by 128 (u8 <-> s8), so packing is a copy
// with an XOR and a byte sum, which compilers vectorize. Returns what PackLine returns: the sum
// of the stored values in the layout's domain (s8_domain: bytes read as int8), modulo 2^32.
template <size_t kKr>
uint32_t PackBytesContiguous(const uint8_t* src, size_t k, uint8_t flip, bool s8_domain, uint8_t* panel, size_t lanes,
                             size_t lane) {
  // int8(b) = (b ^ 0x80) - 128, so an s8 sum is a u8 sum of the bytes flipped once more.
  const uint8_t sum_flip = static_cast<uint8_t>(flip ^ (s8_domain ? 0x80 : 0));
  uint8_t* out = panel + lane * kKr;
  const size_t step = lanes * kKr;
  uint32_t sum = 0;
  size_t kk = 0;
  for (; kk + kKr <= k; kk += kKr, out += step) {
    uint32_t group = 0;
    for (size_t p = 0; p < kKr; ++p) {
      out[p] = static_cast<uint8_t>(src[kk + p] ^ flip);
      group += static_cast<uint8_t>(src[kk + p] ^ sum_flip);
    }
    sum += group;
  }
  for (size_t p = 0; kk + p < k; ++p) {
    out[p] = static_cast<uint8_t>(src[kk + p] ^ flip);
    sum += static_cast<uint8_t>(src[kk + p] ^ sum_flip);
  }
  return s8_domain ? sum - 128u * static_cast<uint32_t>(k) : sum;
}

template <class Element, size_t kKr>
uint32_t PackLineAny(const uint8_t* src, uint64_t k_stride, size_t k, bool is_signed, int32_t offset, void* panel,
                     size_t lanes, size_t lane) {
  Element* p = static_cast<Element*>(panel);
  if constexpr (sizeof(Element) == 1 && kKr >= 16) {
    // 8-bit layouts shift by 0 or +-128 only (AShift, BShift). Short groups scatter a few bytes
    // per group and gain nothing from this.
    if (k_stride == 1)
      return PackBytesContiguous<kKr>(src, k, offset != 0 ? 0x80 : 0, offset < 0 || (offset == 0 && is_signed), p,
                                      lanes, lane);
  }
  if (k_stride == 1) {
    return is_signed ? PackLine<Element, kKr, true, true>(src, 1, k, offset, p, lanes, lane)
                     : PackLine<Element, kKr, false, true>(src, 1, k, offset, p, lanes, lane);
  }
  return is_signed ? PackLine<Element, kKr, true, false>(src, k_stride, k, offset, p, lanes, lane)
                   : PackLine<Element, kKr, false, false>(src, k_stride, k, offset, p, lanes, lane);
}

// `kr`: the K values of one line kept together (the layout's kr for A, BLineKr() for B).
uint32_t PackLineFor(const PackFormat& f, uint32_t kr, const uint8_t* src, uint64_t k_stride, size_t k, bool is_signed,
                     int32_t offset, void* panel, size_t lanes, size_t lane) {
  if (f.packing == QGemmPacking::kInt16Pairs)
    return PackLineAny<int16_t, 2>(src, k_stride, k, is_signed, offset, panel, lanes, lane);
  // 8-bit layouts store two's complement bytes; the domain (u8 or s8) is in the offset.
  if (kr == 64) return PackLineAny<uint8_t, 64>(src, k_stride, k, is_signed, offset, panel, lanes, lane);
  if (kr == 16) return PackLineAny<uint8_t, 16>(src, k_stride, k, is_signed, offset, panel, lanes, lane);
  if (kr == 8) return PackLineAny<uint8_t, 8>(src, k_stride, k, is_signed, offset, panel, lanes, lane);
  return PackLineAny<uint8_t, 4>(src, k_stride, k, is_signed, offset, panel, lanes, lane);
}

}  // namespace

void PackBPanel(const PackFormat& f, const Int8Matrix& b, size_t k0, size_t k, size_t n0, size_t nr_valid,
                void* panel) {
  int32_t* column_sums = static_cast<int32_t*>(panel);
  memset(panel, 0, f.BPanelBytes(k));
  // kInt16Pairs: raw B, the zero point enters through the row terms. 8-bit layouts: u8 B shifted
  // into s8 range by -128, its column sums kept for the epilogue.
  const int32_t offset = BShift(f.packing, b.is_signed);
  for (size_t j = 0; j < nr_valid; ++j) {
    const uint8_t* line = b.data + k0 * b.row_stride + (n0 + j) * b.col_stride;
    column_sums[j] = static_cast<int32_t>(PackLineFor(f, f.BLineKr(), line, b.row_stride, k, b.is_signed, offset, column_sums + f.nr, f.nr, j));
  }
}

void PackATile(const PackFormat& f, const Int8Matrix& a, const int32_t* a_zero_point, size_t k0, size_t k, size_t m0,
               size_t mr_valid, void* tile, int32_t* row_a, int32_t* row_b) {
  memset(tile, 0, f.ATileBytes(k));
  for (size_t i = mr_valid; i < f.mr; ++i) row_a[i] = row_b[i] = 0;
  for (size_t i = 0; i < mr_valid; ++i) {
    const uint8_t* line = a.data + (m0 + i) * a.row_stride + k0 * a.col_stride;
    if (f.packing == QGemmPacking::kInt16Pairs) {
      // A - za in int16 ([-255, 255]); row_b = -sum(A - za) pairs with col_b = zb.
      const uint32_t sum = PackLineFor(f, f.kr, line, a.col_stride, k, a.is_signed, -a_zero_point[i], tile, f.mr, i);
      row_a[i] = 0;
      row_b[i] = static_cast<int32_t>(0u - sum);
    } else {
      // A shifted into the layout's domain. With za' = za + shift and zb' = col_b:
      //   acc = dot - za' * colsum(B') + (k * za' - rowsum(A')) * zb'      (all mod 2^32)
      const int32_t shift = AShift(f.packing, a.is_signed);
      const uint32_t sum = PackLineFor(f, f.kr, line, a.col_stride, k, a.is_signed, shift, tile, f.mr, i);
      const uint32_t za = static_cast<uint32_t>(a_zero_point[i] + shift);
      row_a[i] = static_cast<int32_t>(0u - za);
      row_b[i] = static_cast<int32_t>(static_cast<uint32_t>(k) * za - sum);
    }
  }
}

}  // namespace cpuml
