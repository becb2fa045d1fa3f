// Packing of A tiles and B panels (src/qgemm_pack.cc) against plain loops written here from the
// layouts as kernels/kernels.h and src/qgemm_pack.h describe them, for every packing format of
// this architecture: each byte, row term and column sum, with tails in M, N and K, per-row zero
// points, u8 and s8 operands, and A and B read contiguously or through strides (the library has a
// vector path for contiguous lines). Packing is baseline code, so every layout runs on every CPU.
//
// The layouts, as documented:
//   A tile   [Groups(k)][mr][kr] elements; rows past the valid ones and K past k are zero.
//   B panel  int32 column sums [nr] | [Groups(k)][nr][kr] elements (kU8S8Tiles: K in quads,
//            [Groups(k) * kr / 4][nr][4]); columns past the valid ones and K past k are zero.
//   values   kInt16Pairs: A - AZeroPoint and B as int16. kU8S8, kU8S8Tiles: A as u8 (s8 A + 128),
//            B as s8 (u8 B - 128). kS8S8: A and B as s8 (u8 inputs - 128).
//   terms    with A' and B' the stored values and za' = za + A's shift, all modulo 2^32:
//            8-bit layouts  row_a = -za', row_b = k * za' - sum A', column sum = sum B';
//            kInt16Pairs    row_a = 0, row_b = -sum (A - za), column sum = sum B;
//            so that acc = dot + row_a * colsum + row_b * col_b, col_b = zb + B's shift.
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <vector>

#include "src/qgemm_pack.h"
#include "tests/kernels/registered_kernels.h"
#include "tests/test_support.h"

namespace cpuml_test {
namespace {

using cpuml::Int8Matrix;
using cpuml::PackFormat;
using cpuml::QGemmPacking;

// The shifts that bring inputs into a layout's domain, from kernels/kernels.h's QGemmPacking.
int32_t ADomainShift(QGemmPacking packing, bool a_signed) {
  switch (packing) {
    case QGemmPacking::kU8S8:
    case QGemmPacking::kU8S8Tiles: return a_signed ? 128 : 0;
    case QGemmPacking::kS8S8:
    case QGemmPacking::kS8U4Blocks:
    case QGemmPacking::kS8U4BlockRows:
    case QGemmPacking::kS8U4ColumnPairs: return a_signed ? 0 : -128;
    case QGemmPacking::kInt16Pairs: break;
  }
  return 0;
}
int32_t BDomainShift(QGemmPacking packing, bool b_signed) {
  return packing == QGemmPacking::kInt16Pairs || b_signed ? 0 : -128;
}

int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

struct Layout {
  QGemmPacking packing;
  size_t mr, nr, kr;
  size_t element_bytes() const { return packing == QGemmPacking::kInt16Pairs ? 2 : 1; }
  size_t groups(size_t k) const { return (k + kr - 1) / kr; }
  size_t a_tile_bytes(size_t k) const { return groups(k) * mr * kr * element_bytes(); }
  size_t b_data_bytes(size_t k) const { return groups(k) * nr * kr * element_bytes(); }
  // Element positions of A row i / B column j at K index kk (from the tile's or panel's first K) of
  // a tile or panel of k values.
  size_t a_index(size_t i, size_t kk, size_t k) const {
    if (packing == QGemmPacking::kS8U4BlockRows) return i * groups(k) * kr + kk;  // rows in turn
    return (kk / kr * mr + i) * kr + kk % kr;
  }
  size_t b_index(size_t j, size_t kk) const {
    if (packing == QGemmPacking::kU8S8Tiles) return (kk / 4 * nr + j) * 4 + kk % 4;
    return (kk / kr * nr + j) * kr + kk % kr;
  }
  void Store(uint8_t* data, size_t index, int32_t v) const {
    if (element_bytes() == 2) {
      const int16_t e = static_cast<int16_t>(v);
      memcpy(data + index * 2, &e, 2);
    } else {
      data[index] = static_cast<uint8_t>(v);
    }
  }
  // A stored element as the micro-kernel multiplies it.
  int32_t LoadA(const uint8_t* data, size_t index) const {
    if (element_bytes() == 2) return LoadInt16(data, index);
    return packing == QGemmPacking::kS8S8 ? static_cast<int8_t>(data[index]) : data[index];
  }
  int32_t LoadB(const uint8_t* data, size_t index) const {
    return element_bytes() == 2 ? LoadInt16(data, index) : static_cast<int8_t>(data[index]);
  }
  static int32_t LoadInt16(const uint8_t* data, size_t index) {
    int16_t e;
    memcpy(&e, data + index * 2, 2);
    return e;
  }
};

Layout LayoutOf(const cpuml::QGemmKernel& kernel) { return {kernel.packing, kernel.mr, kernel.nr, kernel.kr}; }

// A matrix of bytes read as u8 or s8, element (r, c) at r * row_stride + c * col_stride.
struct Matrix {
  std::vector<uint8_t> bytes;
  bool is_signed;
  uint64_t row_stride, col_stride;
  int32_t At(size_t r, size_t c) const {
    const uint8_t b = bytes[r * row_stride + c * col_stride];
    return is_signed ? static_cast<int8_t>(b) : b;
  }
  Int8Matrix View() const { return {bytes.data(), is_signed, row_stride, col_stride}; }
};

// Values: random, all at the top of the range (the largest sums), or all at the bottom.
enum class Fill { kRandom, kHigh, kLow };

// row_major: a row's elements `spacing` bytes apart, else a column's. The bytes between elements
// and past the rows and columns are random, so reading one shows up in the packed values.
Matrix MakeMatrix(size_t rows, size_t cols, bool is_signed, bool row_major, size_t spacing, Fill fill,
                  std::mt19937& rng) {
  Matrix m{{}, is_signed, 0, 0};
  if (row_major) {
    m.col_stride = spacing;
    m.row_stride = (cols + 3) * spacing;
  } else {
    m.row_stride = spacing;
    m.col_stride = (rows + 3) * spacing;
  }
  m.bytes.resize(rows * m.row_stride + cols * m.col_stride);
  for (auto& b : m.bytes) b = static_cast<uint8_t>(rng());
  const uint8_t high = is_signed ? 0x7F : 0xFF, low = is_signed ? 0x80 : 0x00;
  if (fill != Fill::kRandom)
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) m.bytes[r * m.row_stride + c * m.col_stride] = fill == Fill::kHigh ? high : low;
  return m;
}

// Zero points in the operand's type; for uniform fills, the opposite extreme (largest terms).
std::vector<int32_t> ZeroPoints(size_t count, bool is_signed, Fill fill, std::mt19937& rng) {
  std::vector<int32_t> z(count);
  const int32_t lo = is_signed ? -128 : 0;
  for (auto& v : z)
    v = fill == Fill::kHigh ? lo : fill == Fill::kLow ? lo + 255 : lo + static_cast<int32_t>(rng() % 256);
  return z;
}

struct ATile {
  std::vector<uint8_t> tile;
  std::vector<int32_t> row_a, row_b;
};

ATile ExpectedATile(const Layout& l, const Matrix& a, const std::vector<int32_t>& za, size_t k0, size_t k, size_t m0,
                    size_t mr_valid) {
  ATile t{std::vector<uint8_t>(l.a_tile_bytes(k), 0), std::vector<int32_t>(l.mr, 0), std::vector<int32_t>(l.mr, 0)};
  const int32_t shift = ADomainShift(l.packing, a.is_signed);
  for (size_t i = 0; i < mr_valid; ++i) {
    const int32_t z = za[m0 + i];
    int64_t sum = 0;
    for (size_t kk = 0; kk < k; ++kk) {
      const int32_t x = a.At(m0 + i, k0 + kk);
      const int32_t v = l.packing == QGemmPacking::kInt16Pairs ? x - z : x + shift;
      l.Store(t.tile.data(), l.a_index(i, kk, k), v);
      sum += v;
    }
    if (l.packing == QGemmPacking::kInt16Pairs) {
      t.row_b[i] = Wrap(-sum);
    } else {
      const int64_t shifted_z = int64_t{z} + shift;
      t.row_a[i] = Wrap(-shifted_z);
      t.row_b[i] = Wrap(static_cast<int64_t>(k) * shifted_z - sum);
    }
  }
  return t;
}

std::vector<uint8_t> ExpectedBPanel(const Layout& l, const Matrix& b, size_t k0, size_t k, size_t n0, size_t nr_valid) {
  std::vector<uint8_t> panel(l.nr * sizeof(int32_t) + l.b_data_bytes(k), 0);
  uint8_t* data = panel.data() + l.nr * sizeof(int32_t);
  const int32_t shift = BDomainShift(l.packing, b.is_signed);
  for (size_t j = 0; j < nr_valid; ++j) {
    int64_t sum = 0;
    for (size_t kk = 0; kk < k; ++kk) {
      const int32_t v = b.At(k0 + kk, n0 + j) + shift;
      l.Store(data, l.b_index(j, kk), v);
      sum += v;
    }
    const int32_t column_sum = Wrap(sum);
    memcpy(panel.data() + j * sizeof(int32_t), &column_sum, sizeof column_sum);
  }
  return panel;
}

constexpr uint8_t kGuardByte = 0xEE;
constexpr int32_t kGuardTerm = -7;
constexpr size_t kGuardBytes = 64, kGuardTerms = 4;

// The library's tile, in buffers longer than the layout: what lies past it must stay untouched.
ATile PackA(const PackFormat& f, const Layout& l, const Matrix& a, const std::vector<int32_t>& za, size_t k0, size_t k,
            size_t m0, size_t mr_valid, bool row_b_live = true) {
  ATile t{std::vector<uint8_t>(l.a_tile_bytes(k) + kGuardBytes, kGuardByte),
          std::vector<int32_t>(l.mr + kGuardTerms, kGuardTerm), std::vector<int32_t>(l.mr + kGuardTerms, kGuardTerm)};
  cpuml::PackATile(f, a.View(), za.data() + m0, k0, k, m0, mr_valid, t.tile.data(), t.row_a.data(), t.row_b.data(),
                   row_b_live);
  return t;
}
// The tile and row terms expected when no column term reads row_b: the same, row_b zero.
ATile WithoutRowB(ATile t) {
  std::fill(t.row_b.begin(), t.row_b.end(), 0);
  return t;
}
std::vector<uint8_t> PackB(const PackFormat& f, const Layout& l, const Matrix& b, size_t k0, size_t k, size_t n0,
                           size_t nr_valid) {
  std::vector<uint8_t> panel(l.nr * sizeof(int32_t) + l.b_data_bytes(k) + kGuardBytes, kGuardByte);
  cpuml::PackBPanel(f, b.View(), k0, k, n0, nr_valid, panel.data());
  return panel;
}

void ExpectTail(const std::vector<uint8_t>& actual, size_t size) {
  for (size_t i = size; i < actual.size(); ++i) ASSERT_EQ(actual[i], kGuardByte) << "byte " << i << " past the end";
}
template <class T>
std::vector<T> Slice(const std::vector<T>& v, size_t from, size_t to) {
  return std::vector<T>(v.begin() + static_cast<ptrdiff_t>(from), v.begin() + static_cast<ptrdiff_t>(to));
}

void ExpectATile(const ATile& actual, const ATile& expected) {
  const size_t size = expected.tile.size(), mr = expected.row_a.size();
  ASSERT_EQ(Slice(actual.tile, 0, size), expected.tile);
  ASSERT_NO_FATAL_FAILURE(ExpectTail(actual.tile, size));
  ASSERT_EQ(Slice(actual.row_a, 0, mr), expected.row_a);
  ASSERT_EQ(Slice(actual.row_b, 0, mr), expected.row_b);
  for (size_t i = mr; i < actual.row_a.size(); ++i) {
    ASSERT_EQ(actual.row_a[i], kGuardTerm) << "row_a past mr";
    ASSERT_EQ(actual.row_b[i], kGuardTerm) << "row_b past mr";
  }
}
void ExpectBPanel(const std::vector<uint8_t>& actual, const std::vector<uint8_t>& expected, size_t nr) {
  const size_t sums = nr * sizeof(int32_t), size = expected.size();
  ASSERT_EQ(Slice(actual, 0, sums), Slice(expected, 0, sums)) << "column sums";
  ASSERT_EQ(Slice(actual, sums, size), Slice(expected, sums, size)) << "panel data";
  ASSERT_NO_FATAL_FAILURE(ExpectTail(actual, size));
}

// K around the group sizes (2, 4, 8, 16, 64), the 16-byte vector step, and past the points where
// the vector path folds 16-bit partial row sums (2048 K values for kr = 64).
std::vector<size_t> KValues() {
  std::vector<size_t> ks = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 2048, 5000};
  if (!ReducedSweep()) ks.insert(ks.end(), {2047, 2049, 4096});
  return ks;
}

// Valid rows or columns of a tile: one, a tail, all.
std::vector<size_t> Valid(size_t full) {
  std::vector<size_t> v = {1};
  if (full > 2) v.push_back(full - 1);
  if (full > 1) v.push_back(full);
  return v;
}

class QGemmPackTest : public testing::TestWithParam<RegisteredQGemmKernel> {};

// The library's own description of the layout matches the documented numbers, where the front end
// and the kernels rely on it rather than on the packed bytes.
TEST_P(QGemmPackTest, FormatMatchesTheDocumentedLayout) {
  const PackFormat f = PackFormat::Of(*GetParam().kernel);
  const Layout l = LayoutOf(*GetParam().kernel);
  EXPECT_EQ(f.ElementBytes(), l.element_bytes());
  EXPECT_EQ(f.BLineKr(), l.packing == QGemmPacking::kU8S8Tiles ? 4u : l.kr);
  for (const size_t k : KValues()) {
    EXPECT_EQ(f.Groups(k), l.groups(k)) << k;
    EXPECT_EQ(f.ATileBytes(k), l.a_tile_bytes(k)) << k;
    EXPECT_EQ(f.BPanelBytes(k), l.nr * 4 + l.b_data_bytes(k)) << k;
  }
  // col_b, which the epilogue pairs with row_b: B's zero point in the layout's domain.
  for (const bool is_signed : {false, true})
    for (const int32_t zb : {0, 5, 127, 255, -128}) {
      EXPECT_EQ(cpuml::ColumnTermB(l.packing, is_signed, zb), zb + BDomainShift(l.packing, is_signed));
    }
  EXPECT_EQ(cpuml::UsesColumnSums(l.packing), l.packing != QGemmPacking::kInt16Pairs);
}

// The shift constants against literal numbers from kernels/kernels.h's QGemmPacking comments.
TEST(QGemmPackShifts, AreTheDocumentedNumbers) {
  struct Row {
    QGemmPacking packing;
    int32_t a_u8, a_s8, b_u8, b_s8;
  };
  const Row rows[] = {{QGemmPacking::kInt16Pairs, 0, 0, 0, 0},
                      {QGemmPacking::kU8S8, 0, 128, -128, 0},
                      {QGemmPacking::kS8S8, -128, 0, -128, 0},
                      {QGemmPacking::kU8S8Tiles, 0, 128, -128, 0}};
  for (const Row& r : rows) {
    SCOPED_TRACE(testing::Message() << "packing " << static_cast<int>(r.packing));
    EXPECT_EQ(ADomainShift(r.packing, false), r.a_u8);
    EXPECT_EQ(ADomainShift(r.packing, true), r.a_s8);
    EXPECT_EQ(BDomainShift(r.packing, false), r.b_u8);
    EXPECT_EQ(BDomainShift(r.packing, true), r.b_s8);
    EXPECT_EQ(cpuml::AShift(r.packing, false), r.a_u8);
    EXPECT_EQ(cpuml::AShift(r.packing, true), r.a_s8);
    EXPECT_EQ(cpuml::BShift(r.packing, false), r.b_u8);
    EXPECT_EQ(cpuml::BShift(r.packing, true), r.b_s8);
  }
}

TEST_P(QGemmPackTest, ATilesMatchTheLayout) {
  const PackFormat f = PackFormat::Of(*GetParam().kernel);
  const Layout l = LayoutOf(*GetParam().kernel);
  std::mt19937 rng(7);
  for (const bool is_signed : {false, true})
    for (const Fill fill : {Fill::kRandom, Fill::kHigh, Fill::kLow})
      for (const size_t k : KValues())
        for (const size_t mr_valid : Valid(l.mr))
          for (const size_t spacing : {1, 3}) {  // 1: rows contiguous along K (the vector path)
            const size_t k0 = k % 3, m0 = 1 + k % 2;
            const Matrix a = MakeMatrix(m0 + mr_valid, k0 + k, is_signed, true, spacing, fill, rng);
            const std::vector<int32_t> za = ZeroPoints(m0 + mr_valid, is_signed, fill, rng);
            SCOPED_TRACE(testing::Message() << "k " << k << " k0 " << k0 << " rows " << mr_valid << " signed "
                                            << is_signed << " fill " << static_cast<int>(fill) << " column stride "
                                            << spacing);
            const ATile expected = ExpectedATile(l, a, za, k0, k, m0, mr_valid);
            ASSERT_NO_FATAL_FAILURE(ExpectATile(PackA(f, l, a, za, k0, k, m0, mr_valid), expected));
            ASSERT_NO_FATAL_FAILURE(ExpectATile(PackA(f, l, a, za, k0, k, m0, mr_valid, false), WithoutRowB(expected)));
          }
}

// The 4-bit kernels' A (their B has tests of its own, through the operators): kS8U4BlockRows, the
// tile unit's, keeps each row's K values of a block together, rows one after another.
TEST(QGemmPackBlockRows, ATilesMatchTheLayout) {
  const PackFormat f{QGemmPacking::kS8U4BlockRows, 32, 32, 8};
  const Layout l{f.packing, f.mr, f.nr, f.kr};
  std::mt19937 rng(9);
  for (const bool is_signed : {false, true})
    for (const size_t k : KValues())
      for (const size_t mr_valid : Valid(l.mr))
        for (const size_t spacing : {1, 3}) {
          const size_t k0 = k % 5, m0 = 2;
          const Matrix a = MakeMatrix(m0 + mr_valid, k0 + k, is_signed, true, spacing, Fill::kRandom, rng);
          const std::vector<int32_t> za = ZeroPoints(m0 + mr_valid, is_signed, Fill::kRandom, rng);
          SCOPED_TRACE(testing::Message() << "k " << k << " rows " << mr_valid << " signed " << is_signed
                                          << " column stride " << spacing);
          const ATile expected = ExpectedATile(l, a, za, k0, k, m0, mr_valid);
          ASSERT_NO_FATAL_FAILURE(ExpectATile(PackA(f, l, a, za, k0, k, m0, mr_valid), expected));
          ASSERT_NO_FATAL_FAILURE(ExpectATile(PackA(f, l, a, za, k0, k, m0, mr_valid, false), WithoutRowB(expected)));
        }
}

// The 4-bit B layouts, from kernels/kernels.h's words: kS8U4Blocks (byte p of a column's group:
// K p low, K 4 + p high) and kS8U4ColumnPairs (vector 2q + h, byte 4c + p: column 4q + c low and
// column 8 + 4q + c high XOR 8, at K 4h + p); then the zero-point bytes unless shared, then with
// column sums an int32 a column (kS8U4ColumnPairs: u summed, u - 8 for a high column). Values are
// u = the UINT4 value, or the INT4 value + 8.
TEST(QGemmPackNibbles, BBlocksMatchTheLayout) {
  std::mt19937 rng(12);
  constexpr size_t kNr = 16, kKr = 8;
  for (const QGemmPacking packing : {QGemmPacking::kS8U4Blocks, QGemmPacking::kS8U4ColumnPairs})
    for (const bool is_signed : {false, true})
      for (const bool shared : {false, true})
        for (const bool sums : {false, true}) {
          if (sums && packing != QGemmPacking::kS8U4ColumnPairs) continue;
          for (const size_t k : {1u, 5u, 8u, 13u, 32u})
            for (const size_t nr_valid : {kNr, size_t{11}, size_t{3}}) {
              PackFormat f{packing, 4, kNr, kKr};
              f.shared_zero_points = shared;
              f.column_sums = sums;
              // B is (k0 + k) x (n0 + nr_valid) values, one nibble each, column stride 1 nibble, row
              // stride n0 + nr_valid + 1 (odd: rows start in either half of a byte).
              const size_t k0 = 2, n0 = 3, cols = n0 + nr_valid, row_stride = cols + 1, offset = 1;
              std::vector<uint8_t> nibbles((offset + (k0 + k) * row_stride + 1) / 2 + 1);
              for (uint8_t& byte : nibbles) byte = static_cast<uint8_t>(rng());
              std::vector<uint8_t> zero_nibbles(cols / 2 + 1);
              for (uint8_t& byte : zero_nibbles) byte = static_cast<uint8_t>(rng());
              auto nibble = [](const std::vector<uint8_t>& data, size_t index) {
                return static_cast<uint8_t>(index % 2 ? data[index / 2] >> 4 : data[index / 2] & 0xF);
              };
              const uint8_t to_u = is_signed ? 8 : 0;  // INT4 v: value v - 16 (v >= 8), u = value + 8
              auto u = [&](size_t j, size_t kk) {
                return static_cast<uint8_t>(nibble(nibbles, offset + (k0 + kk) * row_stride + n0 + j) ^ to_u);
              };
              const cpuml::Int4Matrix b{nibbles.data(), is_signed, offset, row_stride, 1};
              const cpuml::Int4Matrix zero{zero_nibbles.data(), is_signed, 0, 0, 1};
              std::vector<uint8_t> panel(f.BPanelBytes(k) + 64, 0xA5);
              cpuml::PackB4Block(f, b, &zero, k0, k, n0, nr_valid, panel.data());

              const size_t groups = (k + kKr - 1) / kKr, data_bytes = groups * kNr * kKr / 2;
              std::vector<uint8_t> expected(f.BPanelBytes(k), 0);
              for (size_t j = 0; j < nr_valid; ++j) {
                int32_t sum = 0;
                for (size_t kk = 0; kk < k; ++kk) {
                  const size_t g = kk / kKr, in_group = kk % kKr;
                  uint8_t* group = expected.data() + g * kNr * kKr / 2;
                  if (packing == QGemmPacking::kS8U4Blocks) {
                    group[j * 4 + in_group % 4] |= static_cast<uint8_t>(u(j, kk) << (in_group < 4 ? 0 : 4));
                    continue;
                  }
                  const bool high = j >= 8;
                  const size_t column = j % 8, q = column / 4, c = column % 4, h = in_group / 4, p = in_group % 4;
                  group[(2 * q + h) * 16 + 4 * c + p] |= static_cast<uint8_t>(high ? (u(j, kk) ^ 8) << 4 : u(j, kk));
                  sum += high ? u(j, kk) - 8 : u(j, kk);
                }
                if (!shared) expected[data_bytes + j] = static_cast<uint8_t>(nibble(zero_nibbles, n0 + j) ^ to_u);
                if (sums) memcpy(&expected[data_bytes + (shared ? 0 : kNr) + 4 * j], &sum, 4);
              }
              SCOPED_TRACE(testing::Message() << "packing " << static_cast<int>(packing) << " signed " << is_signed
                                              << " shared zero points " << shared << " sums " << sums << " k " << k
                                              << " columns " << nr_valid);
              ASSERT_EQ(0, memcmp(panel.data(), expected.data(), expected.size()));
              for (size_t i = expected.size(); i < panel.size(); ++i) ASSERT_EQ(0xA5, panel[i]) << "written past the panel";
            }
        }
}

TEST_P(QGemmPackTest, BPanelsMatchTheLayout) {
  const PackFormat f = PackFormat::Of(*GetParam().kernel);
  const Layout l = LayoutOf(*GetParam().kernel);
  std::mt19937 rng(8);
  for (const bool is_signed : {false, true})
    for (const Fill fill : {Fill::kRandom, Fill::kHigh, Fill::kLow})
      for (const size_t k : KValues())
        for (const size_t nr_valid : Valid(l.nr))
          for (const bool row_major : {true, false})  // or transposed: K contiguous (the vector path)
            for (const size_t spacing : {1, 2}) {
              const size_t k0 = k % 3, n0 = 2;
              const Matrix b = MakeMatrix(k0 + k, n0 + nr_valid, is_signed, row_major, spacing, fill, rng);
              SCOPED_TRACE(testing::Message() << "k " << k << " k0 " << k0 << " columns " << nr_valid << " signed "
                                              << is_signed << " fill " << static_cast<int>(fill)
                                              << (row_major ? " row-major" : " column-major") << " spacing "
                                              << spacing);
              ASSERT_NO_FATAL_FAILURE(
                  ExpectBPanel(PackB(f, l, b, k0, k, n0, nr_valid), ExpectedBPanel(l, b, k0, k, n0, nr_valid), l.nr));
            }
}

// Panels packed row by row from a B with contiguous columns (PackBPanels: ONNX MatMul's K x N,
// several panels a sweep) are the documented panels: every K around the groups and past the 256
// rows after which the column sums leave their 16-bit lanes, one to three panels with a short last.
TEST_P(QGemmPackTest, BPanelsByRowsMatchTheLayout) {
  const PackFormat f = PackFormat::Of(*GetParam().kernel);
  const Layout l = LayoutOf(*GetParam().kernel);
  if (f.Nibbles()) GTEST_SKIP() << "4-bit layouts pack B from nibbles (PackB4Block)";
  std::mt19937 rng(10);
  for (const bool is_signed : {false, true})
    for (const Fill fill : {Fill::kRandom, Fill::kHigh, Fill::kLow})
      for (const size_t k : KValues())
        for (const size_t panels : {1, 3}) {
          const size_t k0 = k % 3, n0 = 2, n_valid = panels * l.nr - (panels > 1 ? 1 : 0);
          const Matrix b = MakeMatrix(k0 + k, n0 + n_valid, is_signed, true, 1, fill, rng);
          SCOPED_TRACE(testing::Message() << "k " << k << " k0 " << k0 << " panels " << panels << " columns " << n_valid
                                          << " signed " << is_signed << " fill " << static_cast<int>(fill));
          const size_t panel_bytes = l.nr * sizeof(int32_t) + l.b_data_bytes(k), stride = panel_bytes + 64;
          std::vector<uint8_t> packed(panels * stride, kGuardByte);
          cpuml::PackBPanels(f, b.View(), k0, k, n0, n_valid, panels, packed.data(), stride);
          for (size_t p = 0; p < panels; ++p) {
            const size_t columns = std::min<size_t>(l.nr, n_valid - p * l.nr);
            const std::vector<uint8_t> panel(packed.begin() + static_cast<ptrdiff_t>(p * stride),
                                             packed.begin() + static_cast<ptrdiff_t>((p + 1) * stride));
            ASSERT_NO_FATAL_FAILURE(
                ExpectBPanel(panel, ExpectedBPanel(l, b, k0, k, n0 + p * l.nr, columns), l.nr)) << "panel " << p;
          }
        }
}

// The packed operands and their terms give the exact product of docs/semantics.md, read the way
// the layout says a micro-kernel reads them: the layout's description above is the right one.
TEST_P(QGemmPackTest, PackedTermsGiveTheProduct) {
  const PackFormat f = PackFormat::Of(*GetParam().kernel);
  const Layout l = LayoutOf(*GetParam().kernel);
  std::mt19937 rng(9);
  for (const bool a_signed : {false, true})
    for (const bool b_signed : {false, true})
      for (const size_t k : {1, 5, 17, 64, 67, 131})
        for (const Fill fill : {Fill::kRandom, Fill::kHigh}) {
          // Random values in a tail tile (padding rows and columns), uniform ones in a whole tile.
          const bool tail = fill == Fill::kRandom;
          const size_t k0 = 1, m0 = 2, n0 = 3, mr_valid = tail && l.mr > 1 ? l.mr - 1 : l.mr,
                       nr_valid = tail && l.nr > 1 ? l.nr - 1 : l.nr;
          SCOPED_TRACE(testing::Message() << "k " << k << " A signed " << a_signed << " B signed " << b_signed
                                          << " fill " << static_cast<int>(fill));
          const Matrix a = MakeMatrix(m0 + mr_valid, k0 + k, a_signed, true, 1, fill, rng);
          const Matrix b = MakeMatrix(k0 + k, n0 + nr_valid, b_signed, true, 1, fill, rng);
          const std::vector<int32_t> za = ZeroPoints(m0 + mr_valid, a_signed, Fill::kRandom, rng);
          const std::vector<int32_t> zb = ZeroPoints(n0 + nr_valid, b_signed, Fill::kRandom, rng);
          const ATile tile = PackA(f, l, a, za, k0, k, m0, mr_valid);
          const std::vector<uint8_t> panel = PackB(f, l, b, k0, k, n0, nr_valid);
          const uint8_t* b_data = panel.data() + l.nr * sizeof(int32_t);
          const size_t k_padded = l.groups(k) * l.kr;
          for (size_t i = 0; i < mr_valid; ++i)
            for (size_t j = 0; j < nr_valid; ++j) {
              uint32_t dot = 0;
              for (size_t kk = 0; kk < k_padded; ++kk)
                dot += static_cast<uint32_t>(l.LoadA(tile.tile.data(), l.a_index(i, kk, k)) *
                                             l.LoadB(b_data, l.b_index(j, kk)));
              uint32_t column_sum;
              memcpy(&column_sum, panel.data() + j * sizeof(int32_t), sizeof column_sum);
              const uint32_t col_b = static_cast<uint32_t>(zb[n0 + j] + BDomainShift(l.packing, b_signed));
              // kInt16Pairs has no column-sum term (its kernels get col_a = NULL).
              const uint32_t column_term =
                  l.packing == QGemmPacking::kInt16Pairs ? 0u : static_cast<uint32_t>(tile.row_a[i]) * column_sum;
              const uint32_t acc = dot + column_term + static_cast<uint32_t>(tile.row_b[i]) * col_b;
              int64_t exact = 0;
              for (size_t kk = 0; kk < k; ++kk)
                exact += int64_t{a.At(m0 + i, k0 + kk) - za[m0 + i]} * (b.At(k0 + kk, n0 + j) - zb[n0 + j]);
              ASSERT_EQ(static_cast<int32_t>(acc), exact) << "row " << i << " column " << j;
            }
        }
}

INSTANTIATE_TEST_SUITE_P(Layouts, QGemmPackTest, testing::ValuesIn(RegisteredQGemmKernels()), KernelTestName);

}  // namespace
}  // namespace cpuml_test
