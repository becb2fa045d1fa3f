// MATRIX_MULTIPLY_INTEGER_TO_FLOAT with 4-bit B (UINT4, INT4) and B's scales and zero points per
// block of K rows, on every tier: a hand-computed case, sweeps byte-equal to the scalar
// reference, and the descriptor rules.
#include <math.h>

#include "src/dispatch.h"
#include "tests/kernels/registered_kernels.h"
#include "tests/qgemm_support.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kU8 = CPUML_TENSOR_DATA_TYPE_UINT8, kS8 = CPUML_TENSOR_DATA_TYPE_INT8,
                                 kU4 = CPUML_TENSOR_DATA_TYPE_UINT4, kS4 = CPUML_TENSOR_DATA_TYPE_INT4,
                                 kF32 = CPUML_TENSOR_DATA_TYPE_FLOAT32;

class MatMulInt4Test : public TierTest {};

// Packs 4-bit values two to a byte, the lower index in the low nibble.
std::vector<uint8_t> Nibbles(const std::vector<int>& values) {
  std::vector<uint8_t> bytes((values.size() + 1) / 2 + 4, 0);
  for (size_t i = 0; i < values.size(); ++i) bytes[i / 2] |= static_cast<uint8_t>((values[i] & 0xF) << (i % 2 * 4));
  return bytes;
}

// By hand: A = 1 (1 x 20, INT8), B 20 x 2 in blocks of 16 rows (the second block 4 rows long).
// Column 0: B - zero point = 1 everywhere, so the block sums are 16 and 4; column 1: 7 in the
// first block, 0 in the second: 112 and 0. AScale 0.5; BScale {0.25, 1} then {2, 0.125}:
// y0 = 16 * 0.125 + 4 * 1 = 6, y1 = 112 * 0.5 + 0 = 56; bias {1, -6} gives 7 and 50.
TEST_P(MatMulInt4Test, BlockwiseByHand) {
  for (CPUML_TENSOR_DATA_TYPE b_type : {kU4, kS4}) {
    SCOPED_TRACE(b_type == kU4 ? "UINT4" : "INT4");
    const bool s = b_type == kS4;
    std::vector<int> b_values(40), zero_values = {s ? -4 : 8, s ? 0 : 8, s ? -4 : 8, s ? -8 : 0};
    for (int k = 0; k < 20; ++k) {
      b_values[k * 2] = s ? -3 : 9;                          // column 0: 1 above its zero point
      b_values[k * 2 + 1] = k < 16 ? (s ? 7 : 15) : (s ? -8 : 0);  // column 1: 7 above, then 0
    }
    std::vector<uint8_t> b = Nibbles(b_values), zero_point = Nibbles(zero_values);
    TensorDesc a_desc(kS8, {1, 20}), a_scale_desc(kF32, {1, 1}),
        b_desc(b_type, {20, 2}, {}, CPUML_TENSOR_FLAG_OWNED_BY_CPUML), b_scale_desc(kF32, {2, 2}),
        b_zero_desc(b_type, {2, 2}, {}, CPUML_TENSOR_FLAG_OWNED_BY_CPUML), bias_desc(kF32, {1, 2}), out_desc(kF32, {1, 2});
    std::vector<int8_t> a(20, 1);
    float a_scale = 0.5f, b_scale[4] = {0.25f, 1.0f, 2.0f, 0.125f}, bias[2] = {1.0f, -6.0f}, y[2] = {};
    const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC desc{a_desc.get(), a_scale_desc.get(), nullptr,
                                                                    b_desc.get(), b_scale_desc.get(), b_zero_desc.get(),
                                                                    bias_desc.get(), out_desc.get()};
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &desc};
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    CPUML_BUFFER_BINDING inputs[] = {{a.data(), 20},      {&a_scale, 4},       {nullptr, 0}, {b.data(), b.size()},
                                     {b_scale, 16},       {zero_point.data(), zero_point.size()}, {bias, 8}};
    ASSERT_EQ(cpuml_initialize_operator(op.get(), inputs, 7), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    inputs[3] = inputs[5] = {nullptr, 0};  // owned
    const CPUML_BUFFER_BINDING output{y, sizeof y};
    ASSERT_EQ(cpuml_execute_operator(op.get(), inputs, 7, &output, 1, nullptr), CPUML_STATUS_SUCCESS)
        << cpuml_last_error_message();
    EXPECT_EQ(y[0], 7.0f);
    EXPECT_EQ(y[1], 50.0f);
  }
}

QConfig RandomInt4(std::mt19937& rng, uint32_t m, uint32_t k, uint32_t n) {
  const Quant granularity[3] = {Quant::kAbsent, Quant::kPerTensor, Quant::kPerChannel};
  const uint32_t blocks[] = {0, 16, 32, 64, 128, 256};
  QConfig c;
  c.op = MatMulOp::kIntegerToFloat;
  c.m = m;
  c.k = k;
  c.n = n;
  c.a_type = rng() % 2 ? kU8 : kS8;
  c.b_type = rng() % 2 ? kU4 : kS4;
  c.b_block = blocks[rng() % 6];
  if (c.b_block && (k + c.b_block - 1) / c.b_block < 2) c.b_block = 0;  // one block: per column
  c.a_zero = granularity[rng() % 3];
  c.b_zero = c.b_block ? (rng() % 2 ? Quant::kPerChannel : Quant::kAbsent) : granularity[rng() % 3];
  c.a_scale = granularity[1 + rng() % 2];
  c.b_scale = granularity[1 + rng() % 2];
  c.bias = granularity[rng() % 3];
  c.signed_scales = rng() % 2;
  c.b_transposed = rng() % 2;  // N x K
  c.nbits_layout = c.b_block && rng() % 2;
  c.a_block_scales = c.b_block && rng() % 2;
  c.padded = rng() % 3 == 0;
  c.out_strided = rng() % 5 == 0;
  c.b_owned = true;
  c.scales_owned = rng() % 4 == 0;
  c.data = rng() % 4 == 0 ? Data::kExtremes : Data::kRandom;
  c.seed = rng();
  return c;
}

std::string Describe(const QConfig& c) {
  char text[200];
  snprintf(text, sizeof text, "M=%u K=%u N=%u A %s B %s block %u nbits %d A-blocks %d zero %d%d scale %d%d bias %d "
           "bT=%d pad=%d outS=%d threads=%d data=%d seed=%u", c.m, c.k, c.n, c.a_type == kS8 ? "s8" : "u8",
           c.b_type == kS4 ? "s4" : "u4", c.b_block, c.nbits_layout, c.a_block_scales, int(c.a_zero), int(c.b_zero), int(c.a_scale), int(c.b_scale), int(c.bias), c.b_transposed,
           c.padded, c.out_strided, c.threads, int(c.data), c.seed);
  return text;
}

// Every K around the block sizes (partial last blocks), tile remainders in M and N.
TEST_P(MatMulInt4Test, BlocksAndRemainders) {
  std::mt19937 rng(91);
  const uint32_t ks[] = {1, 15, 16, 17, 31, 33, 64, 100, 129, 256, 257, 300, 600};
  for (uint32_t k : ks)
    for (int i = 0; i < (ReducedSweep() ? 3 : 8); ++i) {
      QConfig c = RandomInt4(rng, 1 + rng() % 20, k, 1 + rng() % 40);
      SCOPED_TRACE(Describe(c));
      ExpectReferenceBytes(c);
      if (HasFatalFailure()) return;
    }
}

// Larger shapes, batches of A, and threads.
TEST_P(MatMulInt4Test, ShapesAndThreads) {
  std::mt19937 rng(92);
  for (int i = 0; i < (ReducedSweep() ? 6 : 20); ++i) {
    QConfig c = RandomInt4(rng, 1 + rng() % 100, 16 + rng() % 1100, 1 + rng() % 150);
    if (rng() % 4 == 0) c.a_batch = {1 + static_cast<uint32_t>(rng() % 2), 1 + static_cast<uint32_t>(rng() % 2)};
    c.threads = 1 + static_cast<int>(rng() % 3);
    SCOPED_TRACE(Describe(c));
    ExpectReferenceBytes(c);
    if (HasFatalFailure()) return;
  }
}

// The tile-unit kernel's paths, from 16 rows (the others' too): zero points all 8 (INT4 without
// zero points, unpacked by one affine transform) and per column (UINT4, masked and subtracted),
// each with and without A's zero point (column sums), K not whole groups (the last group's
// padding), a short last block, and M and N with tails (77 columns: one whole panel of 64 for the
// avx512vnni kernels' four vectors of columns, then a tail). K = 600 is 19 blocks of 32, over which
// the avx512vnni four-row loop steps through each block's zero points and row terms; symmetric
// A's scales are per block but at K = 260, per row.
TEST_P(MatMulInt4Test, ZeroPointsAndColumnSumsAtSixteenRowsAndMore) {
  std::mt19937 rng(94);
  for (const bool int4 : {true, false})
    for (const bool a_zero_point : {false, true})
      for (const uint32_t k : {100u, 260u, 600u}) {
        QConfig c = RandomInt4(rng, 40, k, 77);
        c.b_type = int4 ? kS4 : kU4;
        c.b_block = 32;
        c.b_zero = int4 ? Quant::kAbsent : Quant::kPerChannel;
        c.nbits_layout = false;
        c.a_type = a_zero_point ? kU8 : kS8;
        c.a_zero = a_zero_point ? Quant::kPerTensor : Quant::kAbsent;
        c.a_block_scales = !a_zero_point && k != 260;
        c.data = Data::kRandom;
        SCOPED_TRACE(Describe(c));
        ExpectReferenceBytes(c);
        if (HasFatalFailure()) return;
      }
}

// A BZeroPointTensor whose every value is the same (ONNX Runtime's MatMulNBits default of 8,
// bound as a tensor of 8s): the panels then leave the zero points out and the kernels read the
// plan's one copy. With one value different, each block keeps its own. Both against the
// reference, for one row (decode), four, and the tile unit's forty.
TEST_P(MatMulInt4Test, ZeroPointTensorOfOneValue) {
  std::mt19937 rng(95);
  for (const CPUML_TENSOR_DATA_TYPE b_type : {kU4, kS4})
    for (const uint32_t block : {0u, 32u, 128u})
      for (const bool one_differs : {false, true})
        for (const uint32_t m : {1u, 4u, 40u}) {
          QConfig c = RandomInt4(rng, m, 300, 1 + rng() % 40);
          c.b_type = b_type;
          c.b_block = block;
          if (!block) c.nbits_layout = c.a_block_scales = false;
          c.b_zero = Quant::kPerChannel;
          c.data = Data::kRandom;
          QProblem problem(c);
          GuardedBuffer& zero_points = problem.buffer(QProblem::kBZero);
          const int value = static_cast<int>(rng() % 16);
          memset(zero_points.data(), value * 0x11, zero_points.size());
          if (one_differs) zero_points.data()[0] ^= 1;  // block 0, column 0
          SCOPED_TRACE(Describe(c) + " zero point " + std::to_string(value) + (one_differs ? " but one" : ""));
          ExpectReferenceBytes(problem, c.threads);
          if (HasFatalFailure()) return;
        }
}

// Owned blockwise B scales that are all FLOAT16 numbers (a model quantized in half precision,
// llama.cpp's Q4_0): the kernels then read them as FLOAT16, converted back exactly. With one
// scale that FLOAT16 cannot hold, they stay FLOAT32. Both against the reference, with A random
// and with symmetric INT8 A (the four-row kernels' own loop), N past one vector of 16 columns.
TEST_P(MatMulInt4Test, ScalesExactInHalfPrecision) {
  std::mt19937 rng(96);
  for (const uint32_t block : {32u, 128u})
    for (const bool one_inexact : {false, true})
      for (const uint32_t m : {1u, 4u, 40u})
        for (const bool symmetric_a : {false, true}) {
          QConfig c = RandomInt4(rng, m, 300, 17 + rng() % 64);
          if (symmetric_a) {
            c.a_type = kS8;
            c.a_zero = Quant::kAbsent;
          }
          c.b_block = block;
          c.scales_owned = true;
          c.data = Data::kRandom;
          QProblem problem(c);
          GuardedBuffer& scales = problem.buffer(QProblem::kBScale);
          float* values = reinterpret_cast<float*>(scales.data());
          for (size_t i = 0; i < scales.size() / sizeof(float); ++i) {
            // 1 + 10 bits of mantissa, exponents -14..2 (normal FLOAT16 numbers), either sign; some 0.
            const float magnitude =
                ldexpf(1.0f + static_cast<float>(rng() % 1024) / 1024.0f, -14 + static_cast<int>(rng() % 17));
            values[i] = rng() % 16 == 0 ? 0.0f : rng() % 2 ? -magnitude : magnitude;
          }
          if (one_inexact) values[0] = 0.1f;  // block 0, column 0: 0.1 is no FLOAT16 number
          SCOPED_TRACE(Describe(c) + (one_inexact ? " FLOAT16 scales but one" : " FLOAT16 scales"));
          ExpectReferenceBytes(problem, c.threads);
          if (HasFatalFailure()) return;
        }
}

// Scales per column, so K is one block however long: a column's sum of 4-bit values passes int16
// (15 x 9000), and A's zero point makes the kernels use it; 40 rows reach the tile unit's kernel,
// whose segments of 256 K values end in a partial one.
TEST_P(MatMulInt4Test, LongKInOneBlock) {
  std::mt19937 rng(93);
  for (Data data : {Data::kExtremes, Data::kRandom})
    for (uint32_t m : {1u, 3u, 40u}) {
      QConfig c = RandomInt4(rng, m, 9000, 40);
      c.b_block = 0;
      c.nbits_layout = false;
      c.a_block_scales = false;
      c.a_type = kU8;
      c.a_zero = Quant::kPerTensor;
      c.data = data;
      SCOPED_TRACE(Describe(c));
      ExpectReferenceBytes(c);
      if (HasFatalFailure()) return;
    }
}

// Past 4096 K values in blocks, a row block's tiles take the blocks in parts (QGemmPlan::
// BlocksPerPart), each tile's y carried between parts: two and three parts, a short last block,
// shared and per-column zero points, per-row-and-block A scales, strided outputs, B scales bound
// per call, owned (kept by panel) and owned as FLOAT16, for rows that make two tiles or more on
// every tier (the tile unit's are 32 rows).
TEST_P(MatMulInt4Test, LongKInPartsOfBlocks) {
  std::mt19937 rng(97);
  struct Case {
    uint32_t m, k, block;
  };
  enum class Scales { kBound, kOwned, kOwnedHalf };
  for (const Case shape : {Case{8, 4100, 16}, Case{70, 4100, 16}, Case{12, 8250, 32}})
    for (const bool per_column : {false, true})
      for (const Scales scales : {Scales::kBound, Scales::kOwned, Scales::kOwnedHalf}) {
        QConfig c = RandomInt4(rng, shape.m, shape.k, 40 + rng() % 50);
        c.b_block = shape.block;
        c.b_type = per_column ? kU4 : kS4;
        c.b_zero = per_column ? Quant::kPerChannel : Quant::kAbsent;
        c.a_block_scales = !per_column;
        c.out_strided = per_column;
        c.scales_owned = scales != Scales::kBound;
        c.data = Data::kRandom;
        QProblem problem(c);
        if (scales == Scales::kOwnedHalf) {
          GuardedBuffer& b_scales = problem.buffer(QProblem::kBScale);
          float* values = reinterpret_cast<float*>(b_scales.data());
          for (size_t i = 0; i < b_scales.size() / sizeof(float); ++i)  // normal FLOAT16 numbers
            values[i] = ldexpf(1.0f + static_cast<float>(rng() % 1024) / 1024.0f, -14 + static_cast<int>(rng() % 17));
        }
        SCOPED_TRACE(Describe(c) + (scales == Scales::kOwnedHalf ? " FLOAT16 scales" : ""));
        ExpectReferenceBytes(problem, c.threads);
        if (HasFatalFailure()) return;
      }
}

// The shapes whose A the tile-unit kernel reads in place (QGemmAInPlace::kS8BlockRows: INT8 A, M a
// multiple of 16, K and the blocks multiples of 64, aligned rows, several column blocks of
// threads) and their neighbours that it packs: blocks of 64, 128 and 256 and one block per column,
// K in parts past 4096, A's zero point (column sums) or none, a batch of two A matrices, and
// blocks of 16 and 32, M, K, padded rows or one thread that rule it out. Every tier runs the same
// problems.
TEST_P(MatMulInt4Test, AReadInPlaceAtSixteenRowsAndMore) {
  std::mt19937 rng(98);
  struct Case {
    uint32_t m, k, block;
  };
  for (const Case shape : {Case{48, 512, 128}, Case{80, 4160, 64}, Case{32, 1024, 256}, Case{32, 512, 0},
                           Case{16, 256, 32}, Case{64, 320, 16}, Case{17, 256, 128}, Case{32, 200, 0}, Case{32, 96, 32}})
    for (int variant = 0; variant < 4; ++variant) {
      if (ReducedSweep() && variant == 3) continue;
      QConfig c = RandomInt4(rng, shape.m, shape.k, 77);
      c.b_block = shape.block;
      if (!shape.block) c.nbits_layout = false;
      c.a_type = kS8;
      c.a_zero = variant == 1 ? Quant::kPerTensor : Quant::kAbsent;
      c.a_block_scales = shape.block && variant != 1;
      c.b_type = variant % 2 ? kU4 : kS4;
      c.b_zero = variant % 2 ? Quant::kPerChannel : Quant::kAbsent;
      if (variant == 2) c.a_batch = {2, 1};
      c.padded = variant == 3;
      c.threads = variant == 3 ? 1 : variant == 2 ? 16 : 3;
      c.data = Data::kRandom;
      SCOPED_TRACE(Describe(c));
      ExpectReferenceBytes(c);
      if (HasFatalFailure()) return;
    }
}

// Past one exact chunk (2^15 K) without block scales, B goes to the 8-bit kernels unpacked, less
// its zero points, and the chunks meet in int64 (the 4-bit kernels take one chunk a block).
TEST_P(MatMulInt4Test, LongKPastOneChunkUnpacked) {
  std::mt19937 rng(94);
  for (const CPUML_TENSOR_DATA_TYPE b_type : {kU4, kS4})
    for (const Quant b_zero : {Quant::kPerTensor, Quant::kPerChannel}) {
      QConfig c = RandomInt4(rng, 1 + rng() % 3, 33000 + rng() % 3000, 1 + rng() % 20);
      c.b_block = 0;
      c.nbits_layout = false;
      c.a_block_scales = false;
      c.b_type = b_type;
      c.b_zero = b_zero;
      SCOPED_TRACE(Describe(c));
      ExpectReferenceBytes(c);
      if (HasFatalFailure()) return;
    }
}

// Several whole 32-row tiles of a row block in one call of the tile-unit kernel, each block
// unpacked once for all of them (QGemmKernel::tiles_per_call), against the reference: blocks of
// 32, 128 and 256 (one segment each), one block of all K (per-column scales: the tiles then run
// one at a time inside the call), per-row A scales and zero points (every tile's rows its own),
// a part of a tile after the whole ones, and K past one part (y carried between calls).
TEST_P(MatMulInt4Test, SeveralTilesShareEachUnpackedBlock) {
  std::mt19937 rng(95);
  for (const uint32_t m : {64u, 96u, 128u, 150u, 160u})
    for (const uint32_t block : {0u, 32u, 128u, 256u}) {
      QConfig c = RandomInt4(rng, m, block == 0 ? 1000 : block == 256 ? 5000 : 700, 70);
      c.b_block = block;
      c.nbits_layout = false;
      c.a_type = kU8;
      c.a_zero = Quant::kPerChannel;
      c.a_scale = Quant::kPerChannel;
      c.a_block_scales = false;
      c.out_strided = false;
      c.threads = 1 + static_cast<int>(rng() % 2);
      SCOPED_TRACE(Describe(c));
      ExpectReferenceBytes(c);
      if (HasFatalFailure()) return;
      c.a_type = kS8;
      c.a_zero = Quant::kAbsent;
      c.a_block_scales = block != 0;
      SCOPED_TRACE(Describe(c));
      ExpectReferenceBytes(c);
      if (HasFatalFailure()) return;
    }
}

// Every tier's table has a 4-bit kernel for every M, so B with block scales always runs on one
// (the operator unpacks B to 8 bits only past one exact chunk without them). A property of the
// tables, checked on every CPU.
TEST(MatMulInt4Kernels, EveryTierServesEveryM) {
  for (const RegisteredTier& tier : RegisteredTiers())
    for (const uint64_t m : {1u, 2u, 3u, 4u, 5u, 8u, 9u, 15u, 16u, 17u, 32u, 33u, 1000u, UINT32_MAX})
      EXPECT_TRUE(cpuml::HoldsNibbles(cpuml::SelectQGemmKernel(*tier.kernels, m, 0, true).packing))
          << tier.name << ", M = " << m;
}

INSTANTIATE_TEST_SUITE_P(Tiers, MatMulInt4Test, testing::ValuesIn(AllTiers()), TierName);

// The rules, each failure naming the member and the rule.
TEST(MatMulInt4Validation, RulesNameTheMember) {
  auto error = [](const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC& desc) -> std::string {
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &desc};
    cpuml_operator* raw = nullptr;
    const cpuml_status status = cpuml_create_operator(&op_desc, &raw);
    cpuml_destroy_operator(raw);
    return status == CPUML_STATUS_SUCCESS ? std::string("success") : cpuml_last_error_message();
  };
  const auto owned = CPUML_TENSOR_FLAG_OWNED_BY_CPUML;
  TensorDesc a(kU8, {4, 100}), s(kF32, {1, 1}), b(kU4, {100, 8}, {}, owned), b_loose(kU4, {100, 8}),
      b8(kS8, {100, 8}, {}, owned), blocks(kF32, {4, 8}), blocks_wrong(kF32, {3, 8}), blocks_narrow(kF32, {4, 1}),
      zero(kU4, {4, 8}, {}, owned), zero_loose(kU4, {4, 8}), zero_wrong(kU4, {1, 8}, {}, owned), out(kF32, {4, 8});
  EXPECT_EQ(error({a.get(), s.get(), nullptr, b.get(), blocks.get(), zero.get(), nullptr, out.get()}), "success");
  EXPECT_NE(error({a.get(), s.get(), nullptr, b_loose.get(), blocks.get(), nullptr, nullptr, out.get()})
                .find("BTensor of DataType UINT4 must be OWNED_BY_CPUML"),
            std::string::npos);
  EXPECT_NE(error({a.get(), s.get(), nullptr, b.get(), blocks.get(), zero_loose.get(), nullptr, out.get()})
                .find("BZeroPointTensor of a 4-bit BTensor must be OWNED_BY_CPUML"),
            std::string::npos);
  EXPECT_NE(error({a.get(), s.get(), nullptr, b8.get(), blocks.get(), nullptr, nullptr, out.get()})
                .find("BScaleTensor sizes {1,1,4,8} are blockwise"),
            std::string::npos);
  EXPECT_NE(error({a.get(), s.get(), nullptr, b.get(), blocks_wrong.get(), nullptr, nullptr, out.get()})
                .find("BScaleTensor sizes {1,1,3,8} must be"),
            std::string::npos);
  EXPECT_NE(error({a.get(), s.get(), nullptr, b.get(), blocks_narrow.get(), nullptr, nullptr, out.get()})
                .find("BScaleTensor sizes {1,1,4,1} must be"),
            std::string::npos);
  EXPECT_NE(error({a.get(), s.get(), nullptr, b.get(), blocks.get(), zero_wrong.get(), nullptr, out.get()})
                .find("BZeroPointTensor sizes {1,1,1,8} must equal BScaleTensor sizes {1,1,4,8}"),
            std::string::npos);
  // K past the blockwise limit (2^20): a scale tensor of stride 0 names 2^16 + 1 blocks of 16.
  const uint32_t long_k = (1u << 20) + 16;
  TensorDesc a_long(kU8, {4, long_k}), b_long(kU4, {long_k, 8}, {0, 0}, owned),
      blocks_long(kF32, {long_k / 16, 8}, {0, 0});
  EXPECT_NE(error({a_long.get(), s.get(), nullptr, b_long.get(), blocks_long.get(), nullptr, nullptr, out.get()})
                .find("which allows K up to 1048576 (K=1048592"),
            std::string::npos);
  // A's scales per block: as many blocks as B's, and only with blockwise B scales.
  TensorDesc a_blocks(kF32, {4, 4}), a_blocks_wrong(kF32, {4, 3}), a_blocks_one_row(kF32, {1, 4}), per_column(kF32, {1, 8});
  EXPECT_EQ(error({a.get(), a_blocks.get(), nullptr, b.get(), blocks.get(), nullptr, nullptr, out.get()}), "success");
  EXPECT_EQ(error({a.get(), a_blocks_one_row.get(), nullptr, b.get(), blocks.get(), nullptr, nullptr, out.get()}),
            "success");
  EXPECT_NE(error({a.get(), a_blocks_wrong.get(), nullptr, b.get(), blocks.get(), nullptr, nullptr, out.get()})
                .find("AScaleTensor sizes {1,1,4,3} must be {1,1,1,1}, {1,1,M,1}, or per block as BScaleTensor's 4 blocks"),
            std::string::npos);
  EXPECT_NE(error({a.get(), a_blocks.get(), nullptr, b.get(), per_column.get(), nullptr, nullptr, out.get()})
                .find("AScaleTensor sizes {1,1,4,4} must be {1,1,1,1} or {1,1,M,1}"),
            std::string::npos);
  // A zero point of B's 8-bit type with 4-bit B, and 4-bit types where no member takes them.
  TensorDesc zero8(kU8, {4, 8}, {}, owned);
  EXPECT_NE(error({a.get(), s.get(), nullptr, b.get(), blocks.get(), zero8.get(), nullptr, out.get()})
                .find("BZeroPointTensor DataType UINT8 must equal BTensor DataType UINT4"),
            std::string::npos);
  TensorDesc a4(kU4, {4, 100});
  EXPECT_NE(error({a4.get(), s.get(), nullptr, b.get(), blocks.get(), nullptr, nullptr, out.get()})
                .find("ATensor DataType UINT4 must be one of"),
            std::string::npos);
  // TotalTensorSizeInBytes of 4-bit B: 800 elements are 400 bytes.
  TensorDesc b_short(kU4, {100, 8}, {}, owned);
  b_short.buffer().TotalTensorSizeInBytes = 396;
  EXPECT_NE(error({a.get(), s.get(), nullptr, b_short.get(), blocks.get(), nullptr, nullptr, out.get()})
                .find("BTensor TotalTensorSizeInBytes 396 must be at least 400"),
            std::string::npos);
}

}  // namespace
}  // namespace cpuml_test
