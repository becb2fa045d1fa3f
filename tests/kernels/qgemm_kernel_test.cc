// Every registered GEMM micro-kernel the CPU runs, called directly (XNNPACK's micro-kernel tester
// idea): A and B packed with the library's packing code, every row count 1..mr, every column
// count 1..nr+1 (a second panel past nr), K around every multiple of kr, all four signedness
// combinations (the packings' shift terms), zero points, both output modes. The oracle is
// computed here from the raw values: exact int64 sums, then the reference's requantization.
#include <gtest/gtest.h>

#include <string.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "src/dispatch.h"
#include "src/qgemm_pack.h"
#include "tests/kernels/registered_kernels.h"
#include "tests/reference/reference.h"

namespace cpuml_test {
namespace {

using cpuml::PackFormat;
using cpuml::QGemmKernel;

// K values around every multiple of kr up to 4 * kr, plus one long enough for several unrolled
// iterations of any loop.
std::vector<size_t> KValues(uint32_t kr) {
  std::set<size_t> ks;
  for (size_t multiple = 1; multiple <= 4; ++multiple)
    for (int delta : {-1, 0, 1}) {
      const size_t k = multiple * kr + static_cast<size_t>(static_cast<long>(delta));
      if (k >= 1) ks.insert(k);
    }
  ks.insert(1);
  ks.insert(37 * kr + 3);
  return {ks.begin(), ks.end()};
}

// How the zero points vary: the front end folds them into row and column terms, and the
// epilogues take a different path when every row's (A) or every column's (B) term is the same.
enum class ZeroPoints { kPerRowAndColumn, kPerTensor, kAbsent };

struct Operands {
  size_t m, n, k;
  bool a_signed, b_signed;
  std::vector<uint8_t> a, b;          // row-major M x K, K x N
  std::vector<int32_t> za, zb;        // per row, per column
};

// small: values within 3 of the middle of their type, so that sums stay small and the
// requantized outputs inside the output's range (where ties are decided, not clamped).
Operands RandomOperands(std::mt19937& rng, size_t m, size_t n, size_t k, bool a_signed, bool b_signed,
                        ZeroPoints zero_points = ZeroPoints::kPerRowAndColumn, bool small = false) {
  Operands o{m, n, k, a_signed, b_signed, std::vector<uint8_t>(m * k), std::vector<uint8_t>(k * n), {}, {}};
  auto value = [&](bool is_signed) {
    return static_cast<uint8_t>(small ? static_cast<int>(rng() % 7) - 3 + (is_signed ? 0 : 128) : static_cast<int>(rng()));
  };
  for (auto& v : o.a) v = value(a_signed);
  for (auto& v : o.b) v = value(b_signed);
  auto zero_point = [&](bool is_signed) {
    if (zero_points == ZeroPoints::kAbsent) return 0;
    if (small) return static_cast<int32_t>(rng() % 7) - 3 + (is_signed ? 0 : 128);
    return is_signed ? static_cast<int32_t>(rng() % 256) - 128 : static_cast<int32_t>(rng() % 256);
  };
  for (size_t i = 0; i < m; ++i) o.za.push_back(zero_points == ZeroPoints::kPerTensor && i ? o.za[0] : zero_point(a_signed));
  for (size_t j = 0; j < n; ++j) o.zb.push_back(zero_points == ZeroPoints::kPerTensor && j ? o.zb[0] : zero_point(b_signed));
  return o;
}

// A kernel with QGemmKernel::max_b_magnitude gets B values it is exact for (the front end picks
// it only for such a B): as the 8-bit layouts pack B (s8, or u8 - 128), within that magnitude.
Operands FitB(Operands o, const QGemmKernel& kernel, std::mt19937& rng) {
  const int limit = static_cast<int>(kernel.max_b_magnitude);
  if (limit == 0) return o;
  for (auto& v : o.b) v = static_cast<uint8_t>(static_cast<int>(rng() % (2 * limit + 1)) - limit + (o.b_signed ? 0 : 128));
  return o;
}

int64_t Exact(const Operands& o, size_t i, size_t j) {
  auto value = [](uint8_t raw, bool is_signed) { return is_signed ? int64_t{static_cast<int8_t>(raw)} : int64_t{raw}; };
  int64_t sum = 0;
  for (size_t kk = 0; kk < o.k; ++kk)
    sum += (value(o.a[i * o.k + kk], o.a_signed) - o.za[i]) * (value(o.b[kk * o.n + j], o.b_signed) - o.zb[j]);
  return sum;
}

// Runs one panel as the front end does: enter, K in blocks of k_block groups (0: whole) with the
// dot products carried between calls (dot_out, then dot_in), leave. `a` is the packed A tile, or
// A's rows read in place (in_place: rows p->a_row_stride apart, K contiguous).
void RunPanel(const QGemmKernel& kernel, const PackFormat& f, size_t m, size_t nr, size_t k, const uint8_t* a,
              bool in_place, const uint8_t* panel, size_t k_block, cpuml::QGemmTileParams* p) {
  alignas(64) uint8_t kernel_state[cpuml::kKernelStateBytes];
  p->kernel_state = kernel_state;
  if (kernel.enter) kernel.enter(kernel_state);
  const size_t groups = f.Groups(k), block = k_block ? k_block : groups;
  const size_t group_bytes = f.kr * f.ElementBytes();
  alignas(64) int32_t carried[cpuml::kMaxKBlockTileElements];
  for (size_t g0 = 0; g0 < groups; g0 += block) {
    const size_t g = std::min(block, groups - g0);
    if (k_block) {
      p->dot_in = g0 ? carried : nullptr;
      p->dot_out = g0 + g < groups ? carried : nullptr;
    }
    const uint8_t* a_block = in_place ? a + g0 * f.kr : a + g0 * f.mr * group_bytes;
    kernel.run(m, nr, g, a_block, f.PanelData(panel) + g0 * f.nr * group_bytes, p);
  }
  if (kernel.leave) kernel.leave(kernel_state);
  p->kernel_state = nullptr;
}

class QGemmKernelTest : public testing::TestWithParam<RegisteredQGemmKernel> {
 protected:
  void SetUp() override {
    if (!cpuml_is_isa_supported(GetParam().tier.isa))
      GTEST_SKIP() << "tier " << GetParam().tier.name << " is not supported by this CPU";
  }

  // Packs `o` for the kernel, runs every panel of its columns in one mode, and compares.
  // k_block: 0, or run K in blocks of this many groups, carrying the dot products between calls
  // (dot_out, then dot_in), as the front end does for kernels with k_block_groups.
  // a_stride: 0, or read A in place (kernels with QGemmKernel::a_in_place: a_row_stride) from a
  // copy of its rows this many bytes apart, holding exactly o.m rows.
  // tie_out_scale: nonzero, every scale a power of two (A and B 1 or 0.5, the output this or
  // twice this), so that some outputs land exactly on .5; those are counted in ties_.
  void Check(const Operands& o, bool acc_mode, bool out_signed, bool per_column_multiplier, std::mt19937& rng,
             size_t k_block = 0, size_t a_stride = 0, float tie_out_scale = 0.0f) {
    const QGemmKernel& kernel = *GetParam().kernel;
    const PackFormat f = PackFormat::Of(kernel);
    SCOPED_TRACE(testing::Message() << "m=" << o.m << " n=" << o.n << " k=" << o.k << " a=" << (o.a_signed ? "s8" : "u8")
                                    << " b=" << (o.b_signed ? "s8" : "u8") << (acc_mode ? " acc" : " requantized")
                                    << (out_signed ? " s8 out" : " u8 out"));
    // A tile: rows past m stay zero; the kernel reads the whole tile.
    std::vector<uint8_t> a_tile(f.ATileBytes(o.k) + 64);
    uint8_t* a_packed = a_tile.data() + (64 - reinterpret_cast<uintptr_t>(a_tile.data()) % 64) % 64;
    std::vector<int32_t> row_a(f.mr), row_b(f.mr);
    const cpuml::Int8Matrix a{o.a.data(), o.a_signed, o.k, 1};
    std::vector<uint8_t> a_rows(a_stride ? (o.m - 1) * a_stride + o.k : 0, 0xEE);
    for (size_t i = 0; a_stride && i < o.m; ++i) std::copy_n(o.a.data() + i * o.k, o.k, a_rows.data() + i * a_stride);
    if (a_stride)
      cpuml::InPlaceRowTerms(cpuml::Int8Matrix{a_rows.data(), o.a_signed, a_stride, 1}, o.za.data(), o.k, 0, o.m, f.mr,
                             true, row_a.data(), row_b.data());
    else
      cpuml::PackATile(f, a, o.za.data(), 0, o.k, 0, o.m, a_packed, row_a.data(), row_b.data());

    std::vector<float> a_scale(f.mr), out_scale(f.mr), out_min(f.mr), out_max(f.mr);
    std::vector<int32_t> out_zero_point(f.mr);
    for (size_t i = 0; i < f.mr; ++i) {
      a_scale[i] = std::uniform_real_distribution<float>(0.5f, 2.0f)(rng);
      out_scale[i] = std::uniform_real_distribution<float>(20.0f, 400.0f)(rng) * std::sqrt(static_cast<float>(o.k));
      out_zero_point[i] = static_cast<int32_t>(rng() % 256) - (out_signed ? 128 : 0);
      out_min[i] = static_cast<float>((out_signed ? -128 : 0) - out_zero_point[i]);
      out_max[i] = static_cast<float>((out_signed ? 127 : 255) - out_zero_point[i]);
    }
    if (tie_out_scale != 0.0f)
      for (size_t i = 0; i < f.mr; ++i) {
        a_scale[i] = i & 1 ? 0.5f : 1.0f;
        out_scale[i] = i & 2 ? 2.0f * tie_out_scale : tie_out_scale;
      }
    if (per_column_multiplier) std::fill(out_scale.begin(), out_scale.end(), out_scale[0]);
    if (per_column_multiplier) std::fill(a_scale.begin(), a_scale.end(), a_scale[0]);

    for (size_t n0 = 0; n0 < o.n; n0 += f.nr) {
      const size_t nr = std::min<size_t>(f.nr, o.n - n0);
      std::vector<uint8_t> panel_bytes(f.BPanelBytes(o.k) + 64);
      uint8_t* panel = panel_bytes.data() + (64 - reinterpret_cast<uintptr_t>(panel_bytes.data()) % 64) % 64;
      const cpuml::Int8Matrix b{o.b.data(), o.b_signed, o.n, 1};
      cpuml::PackBPanel(f, b, 0, o.k, n0, nr, panel);
      std::vector<int32_t> col_b(f.nr, 0);
      std::vector<float> b_scale(f.nr, 1.0f), multiplier(f.nr);
      for (size_t j = 0; j < nr; ++j) {
        col_b[j] = cpuml::ColumnTermB(f.packing, o.b_signed, o.zb[n0 + j]);
        b_scale[j] = tie_out_scale != 0.0f ? (j & 1 ? 0.5f : 1.0f) : std::uniform_real_distribution<float>(0.5f, 2.0f)(rng);
        multiplier[j] = (a_scale[0] * b_scale[j]) / out_scale[0];
      }
      // Output rows with a gap after nr columns: the gap must stay untouched.
      const size_t row_stride = f.nr + 7;
      std::vector<uint8_t> out(f.mr * row_stride, 0xA5);
      std::vector<int32_t> acc(f.mr * f.nr, 0x5A5A5A5A);

      cpuml::QGemmTileParams p;
      p.row_a = row_a.data();
      p.row_b = row_b.data();
      p.col_a = cpuml::UsesColumnSums(f.packing) ? PackFormat::PanelColumnSums(panel) : nullptr;
      // As the front end: no column term when every column's is zero (B zero point absent).
      p.col_b = std::any_of(col_b.begin(), col_b.end(), [](int32_t v) { return v != 0; }) ? col_b.data() : nullptr;
      p.a_scale = a_scale.data();
      p.out_scale = out_scale.data();
      p.out_min = out_min.data();
      p.out_max = out_max.data();
      p.out_zero_point = out_zero_point.data();
      p.b_scale = b_scale.data();
      p.multiplier = per_column_multiplier ? multiplier.data() : nullptr;
      p.out = out.data();
      p.out_row_stride = row_stride;
      p.acc_out = acc_mode ? acc.data() : nullptr;
      p.out_signed = out_signed;
      p.stage = cpuml::kStageRequantize8;  // the other stages: tests/matmul_integer_test.cc, through every kernel
      p.bias = nullptr;
      // A deferring kernel finishes the tile by leave(); the output is read after that.
      p.deferrable = !acc_mode && (o.m + o.k) % 2 == 0;
      p.dot_in = nullptr;
      p.dot_out = nullptr;
      p.prefetch_b = nullptr;
      p.prefetch_b_bytes = 0;
      p.b_streams = (o.m + o.k) % 3 == 0;  // a hint: the bytes must not depend on it
      p.output_past_l2 = (o.m + o.k) % 5 < 2;  // a hint too
      p.a_row_stride = a_stride;
      p.a_signed = o.a_signed;
      RunPanel(kernel, f, o.m, nr, o.k, a_stride ? a_rows.data() : a_packed, a_stride != 0, panel, k_block, &p);

      size_t wrong = 0;
      for (size_t i = 0; i < f.mr; ++i)
        for (size_t j = 0; j < row_stride; ++j) {
          const bool inside = i < o.m && j < nr;
          if (acc_mode) {
            if (!inside || j >= f.nr) continue;  // acc_out rows are full width; only the tile counts
            const int64_t expected = Exact(o, i, n0 + j);
            if (acc[i * f.nr + j] != static_cast<int32_t>(expected) && wrong++ < 5)
              ADD_FAILURE() << "acc[" << i << "][" << n0 + j << "] = " << acc[i * f.nr + j] << ", expected " << expected;
            continue;
          }
          uint8_t expected = 0xA5;
          if (inside) {
            const int64_t exact = Exact(o, i, n0 + j);
            expected = static_cast<uint8_t>(cpuml::reference::Requantize(exact, a_scale[i], b_scale[j], out_scale[i],
                                                                         out_zero_point[i], out_signed));
            const float y = static_cast<float>(exact) * ((a_scale[i] * b_scale[j]) / out_scale[i]);
            ties_ += y - std::floor(y) == 0.5f && y > out_min[i] && y < out_max[i];
          }
          if (out[i * row_stride + j] != expected && wrong++ < 5)
            ADD_FAILURE() << "out[" << i << "][" << n0 + j << "] = " << int(out[i * row_stride + j]) << ", expected "
                          << int(expected) << (inside ? "" : " (outside the tile: must be untouched)");
        }
      if (acc_mode) {
        // Nothing was requantized into the output.
        EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint8_t v) { return v == 0xA5; }));
      }
      ASSERT_EQ(wrong, 0u);
    }
  }

  uint64_t ties_ = 0;  // outputs the tie rule decided (y exactly on .5, inside the range)

  // The int32 and float output stages (QGemmTileParams::stage) of every panel of `o`: sums
  // modulo 2^32, or float(sum) * m (+ bias) with m per column (multiplier) or a_scale * b_scale,
  // computed here from the exact sums; the row gaps stay untouched. `deferrable` lets a kernel
  // with enter and leave finish the tile late (read only after leave), `k_block` carries K.
  void CheckStage(const Operands& o, uint8_t stage, bool with_bias, bool per_column_multiplier, bool deferrable,
                  std::mt19937& rng, size_t k_block = 0) {
    const QGemmKernel& kernel = *GetParam().kernel;
    const PackFormat f = PackFormat::Of(kernel);
    SCOPED_TRACE(testing::Message() << "stage " << int(stage) << " m=" << o.m << " n=" << o.n << " k=" << o.k
                                    << " bias=" << with_bias << " per-column m=" << per_column_multiplier
                                    << " deferrable=" << deferrable << " k_block=" << k_block);
    std::vector<uint8_t> a_tile(f.ATileBytes(o.k) + 64);
    uint8_t* a_packed = a_tile.data() + (64 - reinterpret_cast<uintptr_t>(a_tile.data()) % 64) % 64;
    std::vector<int32_t> row_a(f.mr), row_b(f.mr);
    cpuml::PackATile(f, cpuml::Int8Matrix{o.a.data(), o.a_signed, o.k, 1}, o.za.data(), 0, o.k, 0, o.m, a_packed,
                     row_a.data(), row_b.data());
    std::vector<float> a_scale(f.mr);
    for (auto& v : a_scale) v = std::uniform_real_distribution<float>(-0.03f, 0.03f)(rng);
    for (size_t n0 = 0; n0 < o.n; n0 += f.nr) {
      const size_t nr = std::min<size_t>(f.nr, o.n - n0);
      std::vector<uint8_t> panel_bytes(f.BPanelBytes(o.k) + 64);
      uint8_t* panel = panel_bytes.data() + (64 - reinterpret_cast<uintptr_t>(panel_bytes.data()) % 64) % 64;
      cpuml::PackBPanel(f, cpuml::Int8Matrix{o.b.data(), o.b_signed, o.n, 1}, 0, o.k, n0, nr, panel);
      std::vector<int32_t> col_b(f.nr, 0);
      std::vector<float> b_scale(f.nr, 1.0f), multiplier(f.nr), bias(f.nr, 0.0f);
      for (size_t j = 0; j < nr; ++j) {
        col_b[j] = cpuml::ColumnTermB(f.packing, o.b_signed, o.zb[n0 + j]);
        b_scale[j] = std::uniform_real_distribution<float>(-0.02f, 0.02f)(rng);
        multiplier[j] = a_scale[0] * b_scale[j];
        bias[j] = std::uniform_real_distribution<float>(-50.0f, 50.0f)(rng);
      }
      const size_t row_stride = (f.nr + 3) * 4;  // bytes: a gap of three elements after the tile's row
      std::vector<uint8_t> out(f.mr * row_stride, 0xA5);
      cpuml::QGemmTileParams p{};
      p.row_a = row_a.data();
      p.row_b = row_b.data();
      p.col_a = cpuml::UsesColumnSums(f.packing) ? PackFormat::PanelColumnSums(panel) : nullptr;
      p.col_b = std::any_of(col_b.begin(), col_b.end(), [](int32_t v) { return v != 0; }) ? col_b.data() : nullptr;
      p.a_scale = a_scale.data();
      p.b_scale = b_scale.data();
      p.multiplier = per_column_multiplier ? multiplier.data() : nullptr;
      p.stage = stage;
      p.bias = with_bias ? bias.data() : nullptr;
      p.out = out.data();
      p.out_row_stride = row_stride;
      p.deferrable = deferrable;
      RunPanel(kernel, f, o.m, nr, o.k, a_packed, false, panel, k_block, &p);
      size_t wrong = 0;
      for (size_t i = 0; i < f.mr; ++i)
        for (size_t j = 0; j < f.nr + 3; ++j) {
          uint32_t expected = 0xA5A5A5A5u, actual;
          memcpy(&actual, out.data() + i * row_stride + j * 4, 4);
          if (i < o.m && j < nr) {
            const int64_t exact = Exact(o, i, n0 + j);
            if (stage == cpuml::kStageInt32) {
              expected = static_cast<uint32_t>(exact);
            } else {
              float y = static_cast<float>(exact) * (per_column_multiplier ? multiplier[j] : a_scale[i] * b_scale[j]);
              if (with_bias) y = y + bias[j];
              memcpy(&expected, &y, 4);
            }
          }
          if (actual != expected && wrong++ < 5)
            ADD_FAILURE() << "out[" << i << "][" << n0 + j << "] bits " << std::hex << actual << ", expected " << expected
                          << std::dec << (i < o.m && j < nr ? "" : " (outside the tile: must be untouched)");
        }
      ASSERT_EQ(wrong, 0u);
    }
  }
};

TEST_P(QGemmKernelTest, EveryRowColumnAndKRemainder) {
  const QGemmKernel& kernel = *GetParam().kernel;
  std::mt19937 rng(kernel.mr * 1000 + kernel.nr);
  for (size_t k : KValues(kernel.kr))
    for (size_t m = 1; m <= kernel.mr; ++m)
      for (size_t n = 1; n <= kernel.nr + 1; ++n) {
        const int combo = static_cast<int>((m + n + k) % 4);
        const ZeroPoints zero_points = static_cast<ZeroPoints>((m + 2 * n + k) % 3);
        const Operands o = FitB(RandomOperands(rng, m, n, k, combo & 1, combo & 2, zero_points), kernel, rng);
        Check(o, false, (m + n) % 2 == 0, (m * n) % 3 == 0, rng);
        if (HasFatalFailure()) return;
      }
}

TEST_P(QGemmKernelTest, AccumulatorOutputAllSignedness) {
  const QGemmKernel& kernel = *GetParam().kernel;
  std::mt19937 rng(7);
  for (size_t k : KValues(kernel.kr))
    for (int combo = 0; combo < 4; ++combo) {
      const Operands o = FitB(RandomOperands(rng, kernel.mr, kernel.nr + 1, k, combo & 1, combo & 2), kernel, rng);
      Check(o, true, false, false, rng);
      if (HasFatalFailure()) return;
      const Operands short_tile =
          FitB(RandomOperands(rng, (kernel.mr + 1) / 2, kernel.nr - 1, k, combo & 1, combo & 2), kernel, rng);
      Check(short_tile, true, true, false, rng);
      if (HasFatalFailure()) return;
    }
}

// The extremes that break int16 shortcuts: A and B at opposite ends with zero points at the other
// (B at -64 for a kernel limited to 7-bit B: its largest pair sums).
TEST_P(QGemmKernelTest, ExtremeOperandsAtLongestChunk) {
  const QGemmKernel& kernel = *GetParam().kernel;
  std::mt19937 rng(11);
  const size_t k = 32768;  // the longest K one int32 accumulator sees (src/qgemm_driver.h)
  const int b_low = kernel.max_b_magnitude ? -static_cast<int>(kernel.max_b_magnitude) : -128;
  // combo bit 2: A at its low end instead (-128 in the s8 layouts, 0 in the int16 and u8 ones).
  for (int combo = 0; combo < 8; ++combo) {
    Operands o = RandomOperands(rng, kernel.mr, kernel.nr, k, combo & 1, combo & 2);
    const bool a_low = combo & 4;
    for (auto& v : o.a) v = a_low ? (o.a_signed ? 0x80 : 0x00) : (o.a_signed ? 0x7F : 0xFF);
    for (auto& v : o.b) v = static_cast<uint8_t>(b_low + (o.b_signed ? 0 : 128));
    for (auto& z : o.za) z = a_low ? (o.a_signed ? 127 : 255) : (o.a_signed ? -128 : 0);
    for (auto& z : o.zb) z = o.b_signed ? 127 : 255;
    Check(o, true, false, false, rng);
    if (HasFatalFailure()) return;
  }
}

// Kernels that split K: the dot products carried between blocks (dot_out, then dot_in) give the
// same bytes and accumulators as one pass; K with a partial last block and a short tail.
TEST_P(QGemmKernelTest, KBlocksCarryTheDotProducts) {
  const QGemmKernel& kernel = *GetParam().kernel;
  if (kernel.k_block_groups == 0) GTEST_SKIP() << kernel.name << " does not split K";
  std::mt19937 rng(13);
  const size_t block_k = size_t{kernel.k_block_groups} * kernel.kr;
  for (size_t k : {2 * block_k, 2 * block_k + 3 * kernel.kr + 5, 3 * block_k - 1})
    for (int combo = 0; combo < 4; ++combo) {
      const Operands full = FitB(RandomOperands(rng, kernel.mr, kernel.nr, k, combo & 1, combo & 2), kernel, rng);
      Check(full, false, combo & 1, combo == 2, rng, kernel.k_block_groups);
      if (HasFatalFailure()) return;
      const Operands short_tile =
          FitB(RandomOperands(rng, kernel.mr / 2 - 1, kernel.nr - 3, k, combo & 1, combo & 2), kernel, rng);
      Check(short_tile, true, false, false, rng, kernel.k_block_groups);
      if (HasFatalFailure()) return;
    }
}

// Kernels that read A in place do so when the front end allows: the AMX tile kernel for one tile
// of exactly 16 or 32 rows, u8 rows through tdpbusd and s8 rows through tdpbssd; the VNNI kernels
// for u8 rows, any number of them. K whole groups, row terms in A's own domain, any row stride
// (the copy holds exactly the tile's rows, so a read past them is out of bounds), K whole or in
// blocks.
TEST_P(QGemmKernelTest, ReadsAInPlace) {
  const QGemmKernel& kernel = *GetParam().kernel;
  if (kernel.a_in_place == cpuml::QGemmAInPlace::kNever) GTEST_SKIP() << kernel.name << " packs A always";
  const bool whole_tiles = kernel.a_in_place == cpuml::QGemmAInPlace::kWholeTiles;
  const std::vector<size_t> row_counts =
      whole_tiles ? std::vector<size_t>{kernel.mr, kernel.mr / 2} : std::vector<size_t>{kernel.mr, kernel.mr - 1, 1};
  std::mt19937 rng(17);
  for (size_t m : row_counts)
    for (size_t groups : {1, 2, 37})
      for (int combo = 0; combo < 4; ++combo) {
        const bool a_signed = whole_tiles && (combo & 1);
        const size_t k = groups * kernel.kr;
        const Operands o = RandomOperands(rng, m, kernel.nr + 5, k, a_signed, combo & 2);
        Check(o, combo & 1, combo & 2, combo == 3, rng, 0, combo & 1 ? k + 13 : k);
        if (HasFatalFailure()) return;
      }
  if (kernel.k_block_groups == 0) return;
  const size_t k = (2 * size_t{kernel.k_block_groups} + 3) * kernel.kr;
  for (int combo = 0; combo < 4; ++combo) {
    const Operands o = RandomOperands(rng, kernel.mr, kernel.nr, k, whole_tiles && (combo & 1), combo & 2);
    Check(o, false, combo & 1, false, rng, kernel.k_block_groups, k + 64);
    if (HasFatalFailure()) return;
  }
}

// Outputs exactly on .5 round half to even through every form of the epilogue: zero points per
// row and column, per tensor (uniform row and column terms) and absent (no column term); one
// multiplier per column (per-tensor A and output scales) or scales per row; whole tiles (the
// row-pair epilogue) and remainders; multipliers of 0.5 (clamped before converting) and below;
// both output types and all four signedness combinations. Small operands keep the outputs in
// range, so the tie rule, not the clamp, decides them; the count of ties proves it did.
TEST_P(QGemmKernelTest, TiesInEveryEpilogueForm) {
  const QGemmKernel& kernel = *GetParam().kernel;
  std::mt19937 rng(19);
  const size_t k = 3 * kernel.kr + 1;
  for (ZeroPoints zero_points : {ZeroPoints::kPerRowAndColumn, ZeroPoints::kPerTensor, ZeroPoints::kAbsent})
    for (bool per_column_multiplier : {true, false})
      for (float tie_out_scale : {2.0f, 4.0f}) {
        SCOPED_TRACE(testing::Message() << "zero points " << static_cast<int>(zero_points) << ", multiplier "
                                        << (per_column_multiplier ? "per column" : "per element")
                                        << ", output scale " << tie_out_scale);
        const uint64_t ties_before = ties_;
        for (size_t m : {size_t{kernel.mr}, size_t{(kernel.mr + 1) / 2}})
          for (size_t n : {size_t{kernel.nr}, size_t{kernel.nr} - 1})
            for (int combo = 0; combo < 4; ++combo) {
              const Operands o =
                  FitB(RandomOperands(rng, m, n, k, combo & 1, combo & 2, zero_points, true), kernel, rng);
              Check(o, false, combo == 1 || combo == 2, per_column_multiplier, rng, 0, 0, tie_out_scale);
              if (HasFatalFailure()) return;
            }
        EXPECT_GT(ties_, ties_before) << "no output of these cases lands on .5";
      }
}

// Every kernel's name ends in the tier whose code it is, and a tier lists only its own kernels
// and lower tiers': so each is tested on every CPU that has its own tier.
TEST(QGemmKernelRegistry, EveryKernelNamesItsTier) {
  const std::vector<RegisteredTier> tiers = RegisteredTiers();
  for (size_t listing = 0; listing < tiers.size(); ++listing)
    for (size_t i = 0; i < tiers[listing].kernels->qgemm_count; ++i) {
      const QGemmKernel& kernel = *tiers[listing].kernels->qgemm[i];
      const RegisteredTier* code = KernelCodeTier(kernel, tiers);
      ASSERT_NE(code, nullptr) << kernel.name << " (listed by " << tiers[listing].name << ") names no tier";
      EXPECT_LE(static_cast<size_t>(code - tiers.data()), listing)
          << kernel.name << " is listed by the lower tier " << tiers[listing].name;
    }
}

// The int32 and float stages of MATRIX_MULTIPLY_INTEGER and MATRIX_MULTIPLY_INTEGER_TO_FLOAT in
// every kernel: every row count, columns around one panel, K remainders, all signedness, zero
// points in each form, bias or none, deferred tiles and K blocks where the kernel has them.
TEST_P(QGemmKernelTest, OutputStages) {
  const QGemmKernel& kernel = *GetParam().kernel;
  std::mt19937 rng(kernel.mr * 31 + kernel.nr);
  const std::vector<size_t> ks = KValues(kernel.kr);
  int index = 0;
  for (size_t m = 1; m <= kernel.mr; ++m)
    for (size_t n : {size_t{1}, size_t{kernel.nr - 1}, size_t{kernel.nr}, size_t{kernel.nr + 1}}) {
      ++index;
      const size_t k = ks[static_cast<size_t>(index) % ks.size()];
      const ZeroPoints zero_points = static_cast<ZeroPoints>(index % 3);
      const Operands o = FitB(RandomOperands(rng, m, n, k, index & 1, index & 2, zero_points), kernel, rng);
      const uint8_t stage = index % 3 == 0 ? cpuml::kStageInt32 : cpuml::kStageFloat32;
      CheckStage(o, stage, index & 4, index % 5 < 2, index % 2 == 0, rng);
      if (HasFatalFailure()) return;
    }
  if (kernel.k_block_groups == 0) return;
  const size_t k = 2 * size_t{kernel.k_block_groups} * kernel.kr + 3 * kernel.kr + 1;
  for (uint8_t stage : {cpuml::kStageInt32, cpuml::kStageFloat32}) {
    const Operands o = FitB(RandomOperands(rng, kernel.mr, kernel.nr, k, stage & 1, true), kernel, rng);
    CheckStage(o, stage, true, false, true, rng, kernel.k_block_groups);
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, QGemmKernelTest, testing::ValuesIn(RegisteredQGemmKernels()), KernelTestName);

}  // namespace
}  // namespace cpuml_test
