// Packing of A (src/qgemm_pack.cc): the vector path for A contiguous along K must write the same
// tile and row terms as the element-by-element path, which packs the same values read through a
// column stride. Packing is baseline code, so every registered layout runs on every CPU.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "src/qgemm_pack.h"
#include "tests/kernels/registered_kernels.h"

namespace cpuml_test {
namespace {

using cpuml::Int8Matrix;
using cpuml::PackFormat;

class QGemmPackTest : public testing::TestWithParam<RegisteredQGemmKernel> {};

struct Packed {
  std::vector<uint8_t> tile;
  std::vector<int32_t> row_a, row_b;
};

Packed Pack(const PackFormat& f, const Int8Matrix& a, const std::vector<int32_t>& za, size_t k0, size_t k, size_t m0,
            size_t mr_valid) {
  Packed p{std::vector<uint8_t>(f.ATileBytes(k), 0xEE), std::vector<int32_t>(f.mr, -7), std::vector<int32_t>(f.mr, -7)};
  cpuml::PackATile(f, a, za.data() + m0, k0, k, m0, mr_valid, p.tile.data(), p.row_a.data(), p.row_b.data());
  return p;
}

// Values: random, all at the top of the range (the largest row sums), or all at the bottom.
enum class Fill { kRandom, kHigh, kLow };

TEST_P(QGemmPackTest, ContiguousRowsPackLikeStridedRows) {
  const PackFormat f = PackFormat::Of(*GetParam().kernel);
  std::mt19937 rng(7);
  // K around the group size, the 16-byte step, and past the point where 16-bit partial row sums
  // are folded (2048 K values for kr = 64); k0 > 0 is a later K chunk of the same rows.
  const size_t ks[] = {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 129, 200, 2047, 2048, 2049, 5000};
  for (const bool is_signed : {false, true})
    for (const Fill fill : {Fill::kRandom, Fill::kHigh, Fill::kLow})
      for (const size_t k : ks)
        for (const size_t mr_valid : {size_t{1}, size_t{f.mr > 2 ? f.mr - 1 : 1}, size_t{f.mr}}) {
          const size_t k0 = k % 3, m0 = 1, rows = m0 + mr_valid, row_stride = k0 + k + 5;
          std::vector<uint8_t> contiguous(rows * row_stride), strided(rows * row_stride * 2);
          for (size_t i = 0; i < contiguous.size(); ++i) {
            const uint8_t high = is_signed ? 0x7F : 0xFF, low = is_signed ? 0x80 : 0x00;
            contiguous[i] = fill == Fill::kHigh ? high : fill == Fill::kLow ? low : static_cast<uint8_t>(rng());
            strided[i * 2] = contiguous[i];
            strided[i * 2 + 1] = static_cast<uint8_t>(rng());  // never read
          }
          std::vector<int32_t> za(rows);
          for (auto& z : za) z = static_cast<int32_t>(rng() % 256) - (is_signed ? 128 : 0);
          SCOPED_TRACE(testing::Message() << "k=" << k << " k0=" << k0 << " rows=" << mr_valid << " signed=" << is_signed
                                          << " fill=" << static_cast<int>(fill));
          const Packed fast = Pack(f, Int8Matrix{contiguous.data(), is_signed, row_stride, 1}, za, k0, k, m0, mr_valid);
          const Packed oracle = Pack(f, Int8Matrix{strided.data(), is_signed, row_stride * 2, 2}, za, k0, k, m0, mr_valid);
          ASSERT_EQ(fast.tile, oracle.tile);
          ASSERT_EQ(fast.row_a, oracle.row_a);
          ASSERT_EQ(fast.row_b, oracle.row_b);
        }
}

INSTANTIATE_TEST_SUITE_P(Layouts, QGemmPackTest, testing::ValuesIn(RegisteredQGemmKernels()), KernelTestName);

}  // namespace
}  // namespace cpuml_test
