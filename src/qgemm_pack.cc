#include "src/qgemm_pack.h"

#include <string.h>

#include <algorithm>
#include <type_traits>

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

// A tile of an 8-bit layout from rows contiguous along K, 16 bytes at a time. Generic vectors
// (SSE2 on x86-64, NEON on Arm: the baseline of every build) so this stays in the shared, baseline
// code; the transposes for kr = 4 and 8 are shuffles of 32- and 64-bit lanes. Each stored byte is
// the input byte XOR flip; sums[i] gets the sum of row i's bytes XOR sum_flip (the caller turns
// it into PackBytesContiguous's domain sum). Writes the k bytes of each of rows [0, mr_valid);
// the caller zeroed the rest.
typedef uint8_t Bytes16 __attribute__((vector_size(16)));
typedef uint16_t Words8 __attribute__((vector_size(16)));
typedef uint32_t Lanes4 __attribute__((vector_size(16)));
typedef uint64_t Halves2 __attribute__((vector_size(16)));

// Lane interleaves (GCC spells a two-vector shuffle __builtin_shuffle, Clang __builtin_shufflevector).
#if defined(__clang__)
#define CPUML_SHUFFLE2(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define CPUML_SHUFFLE2(a, b, ...) __builtin_shuffle(a, b, decltype(a){__VA_ARGS__})
#endif
inline Lanes4 ZipLow32(Lanes4 a, Lanes4 b) { return CPUML_SHUFFLE2(a, b, 0, 4, 1, 5); }
inline Lanes4 ZipHigh32(Lanes4 a, Lanes4 b) { return CPUML_SHUFFLE2(a, b, 2, 6, 3, 7); }
inline Bytes16 Low64s(Halves2 a, Halves2 b) { return reinterpret_cast<Bytes16>(CPUML_SHUFFLE2(a, b, 0, 2)); }
inline Bytes16 High64s(Halves2 a, Halves2 b) { return reinterpret_cast<Bytes16>(CPUML_SHUFFLE2(a, b, 1, 3)); }
#undef CPUML_SHUFFLE2

inline Bytes16 Load16(const uint8_t* p) {
  Bytes16 v;
  memcpy(&v, p, 16);
  return v;
}
inline void Store16(uint8_t* p, Bytes16 v) { memcpy(p, &v, 16); }

// Byte sums of rows in 16-bit lanes; the caller folds them into 32 bits (Fold) before a lane can
// wrap: each Add puts at most 510 into a lane.
struct RowSum {
  static constexpr size_t kAddsPerFold = 128;  // 128 Adds of 510 fit 16 bits
  void Add(Bytes16 v) {
    const Words8 w = reinterpret_cast<Words8>(v);
    words += (w & 0xff) + (w >> 8);
  }
  void Fold() {
    for (int i = 0; i < 8; ++i) total += words[i];
    words = Words8{};
  }
  Words8 words{};
  uint32_t total = 0;
};

// Rows [0, mr_valid) of k contiguous bytes each, XOR flip, stored row_bytes apart (k rounded up to
// the layout's groups; the padding is zeroed here), with sums as PackTileRowsContiguous's.
template <bool kSums>
void PackRowsInTurn(const uint8_t* a, uint64_t row_stride, size_t k, size_t row_bytes, size_t mr_valid, uint8_t flip,
                    uint8_t sum_flip, uint8_t* tile, uint32_t* sums) {
  const Bytes16 flip16 = Bytes16{} + flip, sum_flip16 = Bytes16{} + static_cast<uint8_t>(flip ^ sum_flip);
  const size_t vector_k = k / 16 * 16;
  for (size_t i = 0; i < mr_valid; ++i) {
    const uint8_t* src = a + i * row_stride;
    uint8_t* dst = tile + i * row_bytes;
    RowSum s;
    size_t kk = 0;
    for (size_t until_fold = RowSum::kAddsPerFold; kk < vector_k; kk += 16) {
      const Bytes16 v = Load16(src + kk) ^ flip16;
      Store16(dst + kk, v);
      if (!kSums) continue;
      s.Add(v ^ sum_flip16);
      if (--until_fold == 0) {
        s.Fold();
        until_fold = RowSum::kAddsPerFold;
      }
    }
    s.Fold();
    for (; kk < k; ++kk) {
      dst[kk] = static_cast<uint8_t>(src[kk] ^ flip);
      if (kSums) s.total += static_cast<uint8_t>(src[kk] ^ sum_flip);
    }
    memset(dst + k, 0, row_bytes - k);
    sums[i] = s.total;
  }
}

template <size_t kr, bool kSums>
void PackTileRowsContiguous(const uint8_t* a, uint64_t row_stride, size_t k, size_t mr, size_t mr_valid, uint8_t flip,
                            uint8_t sum_flip, uint8_t* tile, uint32_t* sums) {
  // Rows transposed together (16 bytes of a row hold 16 / kr groups), and K values per step.
  constexpr size_t block = kr == 4 ? 4 : kr == 8 ? 2 : 1;
  constexpr size_t step = kr < 16 ? 16 : kr, pieces = step / 16;
  constexpr size_t steps_per_fold = RowSum::kAddsPerFold / pieces;
  const size_t vector_k = k / kr * kr / step * step;  // whole groups in whole steps
  const Bytes16 flip16 = Bytes16{} + flip, sum_flip16 = Bytes16{} + static_cast<uint8_t>(flip ^ sum_flip);
  auto row = [&](size_t i) { return a + i * row_stride; };
  // Bytes [from, k) of row i one at a time (the K tail, and rows past the last whole block).
  auto bytes_one_by_one = [&](size_t i, size_t from, uint32_t sum) {
    const uint8_t* src = row(i);
    for (size_t kk = from; kk < k; ++kk) {
      tile[(kk / kr * mr + i) * kr + kk % kr] = static_cast<uint8_t>(src[kk] ^ flip);
      if (kSums) sum += static_cast<uint8_t>(src[kk] ^ sum_flip);
    }
    sums[i] = sum;
  };
  size_t i = 0;
  for (; i + block <= mr_valid; i += block) {
    RowSum s[block];
    size_t until_fold = steps_per_fold;
    for (size_t kk = 0; kk < vector_k; kk += step) {
      // Rows are short streams (K bytes) that hardware prefetchers barely ramp up on: fetch the
      // next block's rows at the same K, one line each per 64 bytes of K.
      if (kk % 64 == 0)
        for (size_t b = block; b < 2 * block && i + b < mr_valid; ++b) __builtin_prefetch(row(i + b) + kk);
      // Destination of (group kk / kr, row i): groups of mr rows of kr bytes.
      uint8_t* out = tile + (kk / kr * mr + i) * kr;
      for (size_t piece = 0; piece < pieces; ++piece) {
        Bytes16 r[block];
        for (size_t b = 0; b < block; ++b) {
          r[b] = Load16(row(i + b) + kk + piece * 16) ^ flip16;
          if (kSums) s[b].Add(r[b] ^ sum_flip16);
        }
        if constexpr (block == 4) {
          const Lanes4 r0 = reinterpret_cast<Lanes4>(r[0]), r1 = reinterpret_cast<Lanes4>(r[1]),
                       r2 = reinterpret_cast<Lanes4>(r[2]), r3 = reinterpret_cast<Lanes4>(r[3]);
          const Lanes4 t0 = ZipLow32(r0, r1), t1 = ZipLow32(r2, r3);
          const Lanes4 t2 = ZipHigh32(r0, r1), t3 = ZipHigh32(r2, r3);
          const Halves2 h0 = reinterpret_cast<Halves2>(t0), h1 = reinterpret_cast<Halves2>(t1),
                        h2 = reinterpret_cast<Halves2>(t2), h3 = reinterpret_cast<Halves2>(t3);
          const size_t group_bytes = mr * 4;
          Store16(out, Low64s(h0, h1));
          Store16(out + group_bytes, High64s(h0, h1));
          Store16(out + 2 * group_bytes, Low64s(h2, h3));
          Store16(out + 3 * group_bytes, High64s(h2, h3));
        } else if constexpr (block == 2) {
          const Halves2 r0 = reinterpret_cast<Halves2>(r[0]), r1 = reinterpret_cast<Halves2>(r[1]);
          Store16(out, Low64s(r0, r1));
          Store16(out + mr * 8, High64s(r0, r1));
        } else {
          Store16(out + piece * 16, r[0]);
        }
      }
      if (kSums && --until_fold == 0) {
        for (auto& sum : s) sum.Fold();
        until_fold = steps_per_fold;
      }
    }
    for (size_t b = 0; b < block; ++b) {
      s[b].Fold();
      bytes_one_by_one(i + b, vector_k, s[b].total);
    }
  }
  for (; i < mr_valid; ++i) bytes_one_by_one(i, 0, 0);
}

// Row terms of a row shifted into an 8-bit layout's domain, za' = za + shift and sum = the row's
// sum in that domain (PackATile explains the formula).
void ShiftedRowTerms(int32_t shifted_zero_point, size_t k, uint32_t sum, int32_t* row_a, int32_t* row_b) {
  const uint32_t za = static_cast<uint32_t>(shifted_zero_point);
  *row_a = static_cast<int32_t>(0u - za);
  *row_b = static_cast<int32_t>(static_cast<uint32_t>(k) * za - sum);
}

// The sum of a row's k bytes, each XOR flip, 16 at a time.
uint32_t RowBytesSum(const uint8_t* row, size_t k, uint8_t flip) {
  const Bytes16 flip16 = Bytes16{} + flip;
  RowSum sum;
  size_t kk = 0, until_fold = RowSum::kAddsPerFold;
  for (; kk + 16 <= k; kk += 16) {
    sum.Add(Load16(row + kk) ^ flip16);
    if (--until_fold == 0) {
      sum.Fold();
      until_fold = RowSum::kAddsPerFold;
    }
  }
  sum.Fold();
  for (; kk < k; ++kk) sum.total += static_cast<uint8_t>(row[kk] ^ flip);
  return sum.total;
}

}  // namespace

void InPlaceRowTerms(const Int8Matrix& a, const int32_t* a_zero_point, size_t k, size_t m0, size_t rows, size_t mr,
                     bool row_b_live, int32_t* row_a, int32_t* row_b) {
  for (size_t i = 0; i < rows; ++i) {
    uint32_t sum = 0;
    if (row_b_live) {
      // s8 rows summed as u8 (x ^ 0x80 = x + 128), then 128 per value taken back.
      sum = RowBytesSum(a.data + (m0 + i) * a.row_stride, k, a.is_signed ? 0x80 : 0);
      if (a.is_signed) sum -= 128u * static_cast<uint32_t>(k);
    }
    ShiftedRowTerms(a_zero_point[i], k, sum, &row_a[i], &row_b[i]);
    if (!row_b_live) row_b[i] = 0;
  }
  for (size_t i = rows; i < mr; ++i) row_a[i] = row_b[i] = 0;
}

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

namespace {

// lanes[i] += bytes[i] ^ flip for 8 bytes, in 16-bit lanes (generic vectors: the baseline ISA).
inline void AddBytes8(const uint8_t* bytes, uint8_t flip, uint16_t* lanes) {
  typedef uint8_t Bytes8 __attribute__((vector_size(8)));
  typedef uint16_t Words8v __attribute__((vector_size(16)));
  Bytes8 b;
  memcpy(&b, bytes, 8);
  b ^= flip;
  Words8v sum;
  memcpy(&sum, lanes, 16);
  sum += __builtin_convertvector(b, Words8v);
  memcpy(lanes, &sum, 16);
}

// A byte of B as the layout stores it: flipped into s8 (8-bit layouts), or its value (kInt16Pairs).
template <class Element>
inline Element PackedElement(uint8_t raw, uint8_t flip, bool is_signed) {
  if constexpr (sizeof(Element) == 1) {
    (void)is_signed;
    return static_cast<Element>(raw ^ flip);
  } else {
    (void)flip;
    return static_cast<Element>(is_signed ? static_cast<int32_t>(static_cast<int8_t>(raw)) : static_cast<int32_t>(raw));
  }
}

// PackBPanels for a B with contiguous columns, one element type and line_kr: B's rows a K group (kLineKr rows) at a time,
// each row's bytes of every panel read once as whole lines; the group's values are written to
// each panel in the panel's order (column after column, a column's kLineKr values together).
template <class Element, size_t kLineKr>
void PackBRows(const PackFormat& f, const Int8Matrix& b, size_t k0, size_t k, size_t n0, size_t n_valid,
               size_t panels, uint8_t* first_panel, size_t panel_stride) {
  // The 8-bit layouts hold B as s8 (u8 flipped by 128: BShift), kInt16Pairs as its own value.
  // Either way a value is u - bias with u = raw ^ sum_flip in [0, 255], so the column sums add
  // bytes, 16-bit lanes at a time.
  const bool bytes = sizeof(Element) == 1;
  const uint8_t flip = bytes && !b.is_signed ? 0x80 : 0;
  const uint8_t sum_flip = bytes ? static_cast<uint8_t>(flip ^ 0x80) : b.is_signed ? 0x80 : 0;
  const uint32_t bias = bytes || b.is_signed ? 128 : 0;
  const bool is_signed = b.is_signed;
  uint32_t sums[kMaxRowSweepColumns] = {};
  uint16_t partial[kMaxRowSweepColumns] = {};
  size_t partial_rows = 0;  // at most 257 rows of bytes fit a 16-bit lane
  for (size_t p = 0; p < panels; ++p) memset(first_panel + p * panel_stride, 0, f.BPanelBytes(k));
  const size_t group_elements = f.nr * kLineKr;
  for (size_t g0 = 0; g0 < k; g0 += kLineKr) {
    const size_t rows = k - g0 < kLineKr ? k - g0 : kLineKr;
    const uint8_t* src[kLineKr];
    for (size_t q = 0; q < rows; ++q) src[q] = b.data + (k0 + g0 + q) * b.row_stride + n0;
    // The next group's rows: each starts a page or more from the last when N is large, where the
    // hardware's prefetchers stop.
    if (g0 + 2 * kLineKr <= k)
      for (size_t q = 0; q < kLineKr; ++q)
        for (size_t c = 0; c < n_valid; c += 64) __builtin_prefetch(src[q] + kLineKr * b.row_stride + c);
    for (size_t q = 0; q < rows; ++q) {
      const uint8_t* line = src[q];
      size_t c = 0;
      for (; c + 8 <= n_valid; c += 8) AddBytes8(line + c, sum_flip, partial + c);
      for (; c < n_valid; ++c) partial[c] = static_cast<uint16_t>(partial[c] + static_cast<uint8_t>(line[c] ^ sum_flip));
    }
    partial_rows += rows;
    if (partial_rows + kLineKr > 256 || g0 + kLineKr >= k) {
      for (size_t c = 0; c < n_valid; ++c) {
        sums[c] += partial[c];
        partial[c] = 0;
      }
      partial_rows = 0;
    }
    for (size_t p = 0, c0 = 0; c0 < n_valid; ++p, c0 += f.nr) {
      Element* __restrict out =
          reinterpret_cast<Element*>(first_panel + p * panel_stride + f.nr * sizeof(int32_t)) + g0 / kLineKr * group_elements;
      const size_t columns = n_valid - c0 < f.nr ? n_valid - c0 : f.nr;
      if (rows == kLineKr) {
        for (size_t j = 0; j < columns; ++j)
          for (size_t q = 0; q < kLineKr; ++q) out[j * kLineKr + q] = PackedElement<Element>(src[q][c0 + j], flip, is_signed);
      } else {
        for (size_t j = 0; j < columns; ++j)
          for (size_t q = 0; q < rows; ++q) out[j * kLineKr + q] = PackedElement<Element>(src[q][c0 + j], flip, is_signed);
      }
    }
  }
  const uint32_t bias_sum = bias * static_cast<uint32_t>(k);
  for (size_t p = 0; p < panels; ++p)
    for (size_t j = 0; j < f.nr; ++j) {
      // Columns past n_valid hold zeros and sum to 0.
      const uint32_t sum = p * f.nr + j < n_valid ? sums[p * f.nr + j] - bias_sum : 0;
      memcpy(first_panel + p * panel_stride + j * sizeof(int32_t), &sum, sizeof sum);
    }
}

}  // namespace

void PackBPanels(const PackFormat& f, const Int8Matrix& b, size_t k0, size_t k, size_t n0, size_t n_valid,
                 size_t panels, void* first_panel, size_t panel_stride) {
  uint8_t* out = static_cast<uint8_t*>(first_panel);
  if (b.col_stride == 1) {
    if (f.packing == QGemmPacking::kInt16Pairs) return PackBRows<int16_t, 2>(f, b, k0, k, n0, n_valid, panels, out, panel_stride);
    switch (f.BLineKr()) {
      case 4: return PackBRows<uint8_t, 4>(f, b, k0, k, n0, n_valid, panels, out, panel_stride);
      case 8: return PackBRows<uint8_t, 8>(f, b, k0, k, n0, n_valid, panels, out, panel_stride);
      case 16: return PackBRows<uint8_t, 16>(f, b, k0, k, n0, n_valid, panels, out, panel_stride);
    }
  }
  for (size_t p = 0; p < panels; ++p)
    PackBPanel(f, b, k0, k, n0 + p * f.nr, n_valid > p * f.nr ? std::min<size_t>(f.nr, n_valid - p * f.nr) : 0,
               out + p * panel_stride);
}

void PackB4Block(const PackFormat& f, const Int4Matrix& b, const Int4Matrix* zero_point, size_t k0, size_t k,
                 size_t n0, size_t nr_valid, void* panel) {
  uint8_t* out = static_cast<uint8_t*>(panel);
  memset(out, 0, f.BPanelBytes(k));
  // INT4's nibble v is the value v - 16 * (v >= 8); its u = value + 8 is v XOR 8.
  const uint8_t to_u = b.is_signed ? 8 : 0;
  auto nibble = [](const Int4Matrix& m, uint64_t index) {
    return static_cast<uint8_t>((m.data[index / 2] >> (index % 2 * 4)) & 0xF);
  };
  const size_t half_kr = f.kr / 2, group_bytes = f.nr * half_kr;
  const bool column_pairs = f.packing == QGemmPacking::kS8U4ColumnPairs;
  uint8_t* after_data = out + f.Groups(k) * group_bytes;
  for (size_t j = 0; j < nr_valid; ++j) {
    const uint64_t column = b.offset + (n0 + j) * b.col_stride;
    // kS8U4ColumnPairs: column j < nr/2 in the low nibbles of lane j % 4 of vectors 2 (j / 4) + h,
    // column nr/2 + j' in the high nibbles of column j''s place, as u XOR 8 (kernels/kernels.h).
    const bool high = column_pairs && j >= f.nr / 2;
    const size_t low_column = j % (f.nr / 2);
    int32_t sum = 0;  // of u, or u - 8 in a high nibble: |sum| < 2^20 (a chunk is at most 2^15 K)
    for (size_t kk = 0; kk < k; ++kk) {
      const uint8_t u = nibble(b, column + (k0 + kk) * b.row_stride) ^ to_u;
      const size_t in_group = kk % f.kr;
      uint8_t* group = out + kk / f.kr * group_bytes;
      sum += high ? u - 8 : u;
      if (column_pairs)
        group[(low_column / 4 * 2 + in_group / 4) * 16 + low_column % 4 * 4 + in_group % 4] |=
            static_cast<uint8_t>(high ? (u ^ 8) << 4 : u);
      else  // byte p of a column's group holds K p (low nibble) and K half_kr + p (high nibble)
        group[j * half_kr + in_group % half_kr] |= static_cast<uint8_t>(u << (in_group / half_kr * 4));
    }
    if (!f.shared_zero_points)
      after_data[j] =
          zero_point ? nibble(*zero_point, zero_point->offset + (n0 + j) * zero_point->col_stride) ^ to_u : to_u;
    if (f.column_sums) memcpy(after_data + (f.shared_zero_points ? 0 : f.nr) + j * sizeof sum, &sum, sizeof sum);
  }
}

void PackATile(const PackFormat& f, const Int8Matrix& a, const int32_t* a_zero_point, size_t k0, size_t k, size_t m0,
               size_t mr_valid, void* tile, int32_t* row_a, int32_t* row_b, bool row_b_live) {
  for (size_t i = mr_valid; i < f.mr; ++i) row_a[i] = row_b[i] = 0;
  if (f.packing != QGemmPacking::kInt16Pairs && a.col_stride == 1 && (f.kr == 4 || f.kr == 8 || f.kr == 16 || f.kr == 64) &&
      mr_valid > 0) {
    // The common case, A contiguous along K: whole groups by vectors; only padding is zeroed.
    // A one-row tile is the row itself in every layout, so it is copied 16 bytes at a time.
    const size_t kr = f.mr == 1 ? 16 : f.kr;
    const size_t full_groups = k / kr, tile_bytes = f.ATileBytes(k);
    const bool block_rows = f.packing == QGemmPacking::kS8U4BlockRows;
    uint8_t* bytes = static_cast<uint8_t*>(tile);
    if (block_rows) memset(bytes + mr_valid * tile_bytes / f.mr, 0, tile_bytes - mr_valid * tile_bytes / f.mr);
    else if (mr_valid < f.mr) memset(bytes, 0, tile_bytes);
    else memset(bytes + full_groups * f.mr * kr, 0, tile_bytes - full_groups * f.mr * kr);
    const int32_t shift = AShift(f.packing, a.is_signed);
    const bool s8_domain = shift < 0 || (shift == 0 && a.is_signed);
    const uint8_t flip = shift != 0 ? 0x80 : 0, sum_flip = static_cast<uint8_t>(flip ^ (s8_domain ? 0x80 : 0));
    uint32_t sums[kMaxKernelMr];
    const uint8_t* rows = a.data + m0 * a.row_stride + k0;
    // kS8U4BlockRows: rows one after another, each a copy of the row; the other layouts in groups.
    // The sums only where row_b is read: five of the eight vector operations per 16 bytes where
    // a row is copied as it is (kr = 64).
    auto pack = [&](auto sums_tag) {
      constexpr bool kSums = decltype(sums_tag)::value;
      if (block_rows) {
        PackRowsInTurn<kSums>(rows, a.row_stride, k, f.Groups(k) * f.kr, mr_valid, flip, sum_flip, bytes, sums);
        return;
      }
      switch (kr) {
        case 4: PackTileRowsContiguous<4, kSums>(rows, a.row_stride, k, f.mr, mr_valid, flip, sum_flip, bytes, sums); break;
        case 8: PackTileRowsContiguous<8, kSums>(rows, a.row_stride, k, f.mr, mr_valid, flip, sum_flip, bytes, sums); break;
        case 16: PackTileRowsContiguous<16, kSums>(rows, a.row_stride, k, f.mr, mr_valid, flip, sum_flip, bytes, sums); break;
        default: PackTileRowsContiguous<64, kSums>(rows, a.row_stride, k, f.mr, mr_valid, flip, sum_flip, bytes, sums); break;
      }
    };
    if (row_b_live)
      pack(std::true_type{});
    else
      pack(std::false_type{});
    for (size_t i = 0; i < mr_valid; ++i) {
      ShiftedRowTerms(a_zero_point[i] + shift, k, s8_domain ? sums[i] - 128u * static_cast<uint32_t>(k) : sums[i],
                      &row_a[i], &row_b[i]);
      if (!row_b_live) row_b[i] = 0;
    }
    return;
  }
  memset(tile, 0, f.ATileBytes(k));
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
      const uint32_t sum =
          f.packing == QGemmPacking::kS8U4BlockRows
              ? PackLineFor(f, f.kr, line, a.col_stride, k, a.is_signed, shift,
                            static_cast<uint8_t*>(tile) + i * f.Groups(k) * f.kr, 1, 0)
              : PackLineFor(f, f.kr, line, a.col_stride, k, a.is_signed, shift, tile, f.mr, i);
      ShiftedRowTerms(a_zero_point[i] + shift, k, sum, &row_a[i], &row_b[i]);
    }
    if (!row_b_live) row_b[i] = 0;
  }
}

}  // namespace cpuml
