// QUANTIZED_LINEAR_MATRIX_MULTIPLY on every tier, byte-equal to the scalar reference.
#include "tests/qgemm_support.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kU8 = CPUML_TENSOR_DATA_TYPE_UINT8, kS8 = CPUML_TENSOR_DATA_TYPE_INT8;
constexpr CPUML_TENSOR_DATA_TYPE kTypes[2] = {kU8, kS8};

class QGemmTest : public TierTest {
 protected:
  // Runs `c` through the library (with `threads`) and the reference; bytes, gaps and canaries.
  void Check(const QConfig& c) {
    SCOPED_TRACE(Describe(c));
    ExpectReferenceBytes(c);
  }

  static std::string Describe(const QConfig& c) {
    char text[320];
    snprintf(text, sizeof text,
             "M=%u K=%u N=%u batch A{%u,%u} B{%u,%u} types %s%s->%s quant %d%d%d%d%d%d bT=%d pad=%d outS=%d "
             "a0=%d owned=%d/%d rank=%u threads=%d data=%d ties=%g seed=%u",
             c.m, c.k, c.n, c.a_batch[0], c.a_batch[1], c.b_batch[0], c.b_batch[1], IsSigned(c.a_type) ? "s8" : "u8",
             IsSigned(c.b_type) ? "s8" : "u8", IsSigned(c.out_type) ? "s8" : "u8", int(c.a_scale), int(c.a_zero),
             int(c.b_scale), int(c.b_zero), int(c.out_scale), int(c.out_zero), c.b_transposed, c.padded,
             c.out_strided, c.a_batch_stride0, c.b_owned, c.scales_owned, c.rank, c.threads, int(c.data),
             double(c.tie_out_scale), c.seed);
    return text;
  }
};

Quant RandomQuant(std::mt19937& rng, bool may_be_absent) {
  const int pick = static_cast<int>(rng() % 3);
  if (pick == 0) return may_be_absent ? Quant::kAbsent : Quant::kPerChannel;
  return pick == 1 ? Quant::kPerTensor : Quant::kPerChannel;
}

QConfig RandomConfig(std::mt19937& rng, uint32_t m, uint32_t k, uint32_t n) {
  QConfig c;
  c.m = m;
  c.k = k;
  c.n = n;
  c.a_type = kTypes[rng() % 2];
  c.b_type = kTypes[rng() % 2];
  c.out_type = kTypes[rng() % 2];
  c.a_scale = RandomQuant(rng, false);
  c.b_scale = RandomQuant(rng, false);
  c.out_scale = RandomQuant(rng, false);
  c.a_zero = RandomQuant(rng, true);
  c.b_zero = RandomQuant(rng, true);
  c.out_zero = RandomQuant(rng, true);
  c.b_transposed = rng() % 2;
  c.padded = rng() % 3 == 0;
  c.out_strided = rng() % 5 == 0;
  c.b_owned = rng() % 2;
  c.scales_owned = rng() % 4 == 0;
  c.seed = rng();
  return c;
}

// Every M remainder of the tallest tile (8) and every N remainder of the widest panel (32),
// crossing one whole tile, with all type combinations and quantization shapes rotating.
TEST_P(QGemmTest, EveryTileRemainder) {
  std::mt19937 rng(42);
  const uint32_t ks[] = {1, 2, 3, 4, 5, 8, 13};
  const uint32_t max_m = ReducedSweep() ? 9 : 17;
  for (uint32_t m = 1; m <= max_m; ++m)
    for (uint32_t n = 1; n <= 33; ++n) {
      Check(RandomConfig(rng, m, ks[rng() % 7], n));
      if (HasFatalFailure()) return;
    }
}

TEST_P(QGemmTest, RandomShapes) {
  std::mt19937 rng(7);
  const int cases = ReducedSweep() ? 12 : 60;
  for (int i = 0; i < cases; ++i) {
    QConfig c = RandomConfig(rng, 1 + rng() % 300, 1 + rng() % 300, 1 + rng() % 300);
    if (rng() % 4 == 0) {
      c.a_batch = {1 + static_cast<uint32_t>(rng() % 2), 1 + static_cast<uint32_t>(rng() % 3)};
      c.b_batch = {rng() % 2 ? c.a_batch[0] : 1u, rng() % 2 ? c.a_batch[1] : 1u};
      c.m = 1 + c.m % 40;
    }
    c.threads = 1 + static_cast<int>(rng() % 3);
    Check(c);
    if (HasFatalFailure()) return;
  }
}

// All 8 combinations of A, B and output types, with every quantization shape.
TEST_P(QGemmTest, AllTypeCombinationsAndQuantShapes) {
  const Quant shapes[] = {Quant::kAbsent, Quant::kPerTensor, Quant::kPerChannel};
  uint32_t seed = 100;
  for (auto a : kTypes)
    for (auto b : kTypes)
      for (auto o : kTypes)
        for (Quant zero : shapes)
          for (Quant scale : {Quant::kPerTensor, Quant::kPerChannel}) {
            QConfig c;
            c.m = 19;
            c.k = 45;
            c.n = 37;
            c.a_type = a;
            c.b_type = b;
            c.out_type = o;
            c.a_scale = c.b_scale = c.out_scale = scale;
            c.a_zero = c.b_zero = c.out_zero = zero;
            c.seed = ++seed;
            Check(c);
            if (HasFatalFailure()) return;
          }
}

// Full-range extremes against each other over long K: A = 255 (or -128) against B = 127 or -128
// with zero points at the far end. Any int16 saturation or int32 overflow shows up here.
TEST_P(QGemmTest, AdversarialExtremes) {
  const uint32_t ks[] = {2, 64, 300, 4096};
  uint32_t seed = 1000;
  for (auto a : kTypes)
    for (auto b : kTypes)
      for (uint32_t k : ks) {
        if (ReducedSweep() && k == 4096 && a != b) continue;
        QConfig c;
        c.m = 5;
        c.k = k;
        c.n = 35;
        c.a_type = a;
        c.b_type = b;
        c.out_type = (seed & 1) ? kS8 : kU8;
        c.data = Data::kExtremes;
        c.b_owned = seed & 2;
        c.seed = ++seed;
        Check(c);
        if (HasFatalFailure()) return;
      }
}

// K longer than a kernel's K block (AMX 1024, AVX-512 VNNI 512, AVX2 and scalar 512): row blocks
// of several tiles split K and carry the dot products between blocks; a row block of one tile
// runs K whole. Both, with a row-block tail of one tile, at one and three threads.
TEST_P(QGemmTest, KLongerThanOneKBlock) {
  const uint32_t ms[] = {5, 40, 70};
  const uint32_t ks[] = {1100, 2100};
  uint32_t seed = 500;
  for (uint32_t m : ms)
    for (uint32_t k : ks) {
      if (ReducedSweep() && m == 40) continue;
      QConfig c;
      c.m = m;
      c.k = k;
      c.n = 40;
      c.a_type = seed & 1 ? kS8 : kU8;
      c.b_owned = seed & 2;
      c.b_transposed = true;
      c.threads = seed & 4 ? 3 : 1;
      c.seed = ++seed;
      Check(c);
      if (HasFatalFailure()) return;
    }
}

// One thread runs the row blocks in turn, each packing its A into the tiles the block before it
// used (the driver's one_packed_row_block). M past several row blocks on every tier (the front
// end's blocks hold 256 KB of packed A, or eight tiles where K is split), K whole and split, a
// last row block that is short, a u8 B whose row sums the packing writes, and three threads,
// whose row blocks run at once and keep tiles of their own.
TEST_P(QGemmTest, OneThreadOverSeveralRowBlocks) {
  struct Case {
    uint32_t m, k;
    CPUML_TENSOR_DATA_TYPE a, b;
    int threads;
  };
  const Case cases[] = {{600, 1024, kU8, kS8, 1}, {600, 1100, kS8, kU8, 1}, {330, 1100, kU8, kS8, 3}};
  uint32_t seed = 900;
  for (const Case& k : cases) {
    QConfig c;
    c.m = k.m;
    c.k = k.k;
    c.n = 24;
    c.a_type = k.a;
    c.b_type = k.b;
    c.b_owned = seed & 1;
    c.b_transposed = true;
    c.threads = k.threads;
    c.seed = ++seed;
    Check(c);
    if (HasFatalFailure()) return;
  }
}

// K past 33,025 can overflow an int32 accumulator in the worst case; 40,000 must stay exact.
TEST_P(QGemmTest, LongKBeyondInt32) {
  for (auto a : kTypes)
    for (auto b : kTypes) {
      QConfig c;
      c.m = 3;
      c.k = 40000;
      c.n = ReducedSweep() ? 9 : 37;
      c.a_type = a;
      c.b_type = b;
      c.data = Data::kExtremes;
      c.b_transposed = true;
      c.b_owned = a == b;
      c.seed = 77;
      Check(c);
      if (HasFatalFailure()) return;
      c.data = Data::kRandom;
      Check(c);
      if (HasFatalFailure()) return;
    }
}

// Outputs that land exactly on .5 round half to even, on every path an epilogue takes: the
// row-pair epilogue (per-tensor A and output scales, A and B zero points per tensor or absent,
// whole tiles; with multipliers of 0.5, where it clamps before converting, and below), the
// general one (per-row scales, per-row A or per-column B zero points, tile remainders), the
// strided-output copy, and K past one int32 chain (int64 sums). The shapes reach every kernel
// of a tier: one row, two to four rows, tiles and their remainders, A read in place (u8 A, K a
// multiple of 64, sixteen threads). Each case must hold ties, counted from exact sums.
TEST_P(QGemmTest, TiesThroughEveryEpilogue) {
  struct Form {
    const char* what;
    Quant a_scale, a_zero, b_scale, b_zero, out_scale, out_zero;
    float out_scale_value;
    bool out_strided;
  };
  const Quant kT = Quant::kPerTensor, kC = Quant::kPerChannel, kNo = Quant::kAbsent;
  const Form forms[] = {
      {"per tensor, multiplier 0.25", kT, kT, kT, kT, kT, kT, 4.0f, false},
      {"per tensor, multiplier 0.5", kT, kT, kT, kT, kT, kT, 2.0f, false},
      {"B scale per column", kT, kT, kC, kT, kT, kT, 2.0f, false},
      {"zero points absent", kT, kNo, kT, kNo, kT, kNo, 4.0f, false},
      {"B zero point only", kT, kNo, kC, kT, kT, kT, 2.0f, false},
      {"output zero point per row", kT, kT, kT, kNo, kT, kC, 4.0f, false},
      {"A zero point per row", kT, kC, kT, kT, kT, kT, 2.0f, false},
      {"B zero point per column", kT, kT, kC, kC, kT, kT, 4.0f, false},
      {"output scale per row", kT, kT, kT, kT, kC, kT, 2.0f, false},
      {"A scale per row", kC, kT, kC, kNo, kT, kT, 2.0f, false},
      {"strided output", kT, kT, kT, kT, kT, kT, 2.0f, true},
  };
  struct Shape {
    uint32_t m, k, n;
    int threads;
  };
  const Shape shapes[] = {{1, 17, 70, 1}, {3, 5, 66, 1}, {11, 3, 41, 1}, {32, 64, 64, 16}, {70, 9, 100, 3}};
  uint32_t seed = 3000, index = 0;
  for (const Form& form : forms)
    for (const Shape& shape : shapes) {
      if (ReducedSweep() && shape.m == 70 && index % 2) continue;
      ++index;
      QConfig c;
      c.m = shape.m;
      c.k = shape.k;
      c.n = shape.n;
      c.threads = shape.threads;
      // u8 A for the shapes read in place; the other shapes rotate through every type.
      c.a_type = shape.threads == 16 || index % 2 ? kU8 : kS8;
      c.b_type = index % 3 ? kS8 : kU8;
      c.out_type = index % 5 < 2 ? kS8 : kU8;
      c.a_scale = form.a_scale;
      c.a_zero = form.a_zero;
      c.b_scale = form.b_scale;
      c.b_zero = form.b_zero;
      c.out_scale = form.out_scale;
      c.out_zero = form.out_zero;
      c.out_strided = form.out_strided;
      c.tie_out_scale = form.out_scale_value;
      c.data = Data::kSmall;
      c.b_transposed = true;
      c.b_owned = index % 2;
      c.seed = ++seed;
      SCOPED_TRACE(form.what);
      EXPECT_GT(QProblem(c).TieCount(), 0u) << "no output lands on .5: the case tests nothing; " << Describe(c);
      Check(c);
      if (HasFatalFailure()) return;
    }
  // K past one int32 chain: the chunks' int64 sum is requantized by the front end.
  for (auto o : kTypes) {
    QConfig c;
    c.m = 3;
    c.k = 33000;
    c.n = 64;
    c.a_type = c.b_type = kS8;
    c.a_zero = c.b_zero = Quant::kAbsent;  // values centred on 0: the sum stays near 0
    c.out_type = o;
    c.tie_out_scale = 16.0f;  // sums of 33,000 small products: multipliers of 1/16 keep y in range
    c.data = Data::kSmall;
    c.b_transposed = true;
    c.seed = 3100 + static_cast<uint32_t>(o);
    EXPECT_GT(QProblem(c).TieCount(), 0u) << Describe(c);
    Check(c);
  }
}

// Clamping: tiny output scales push |y| far past int32; huge scales make the multiplier inf,
// and 0 * inf is NaN, which the formula sends to the type minimum.
TEST_P(QGemmTest, ClampingAndExtremeScales) {
  struct Scales {
    float a, b, out;
  };
  const Scales scales[] = {{1.0f, 1.0f, 1e-30f}, {1e30f, 1e30f, 1.0f}, {1e-30f, 1e-30f, 1e30f}, {3e38f, 2.0f, 1e-3f}};
  for (const Scales& s : scales)
    for (auto o : kTypes) {
      QConfig c;
      c.m = 9;
      c.k = 7;
      c.n = 33;
      c.out_type = o;
      c.data = Data::kSmall;  // includes acc == 0
      QProblem problem(c);
      *reinterpret_cast<float*>(problem.buffer(QProblem::kAScale).data()) = s.a;
      *reinterpret_cast<float*>(problem.buffer(QProblem::kBScale).data()) = s.b;
      *reinterpret_cast<float*>(problem.buffer(QProblem::kOutScale).data()) = s.out;
      const auto expected = problem.Expected();
      ASSERT_EQ(problem.Run(nullptr), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
      EXPECT_EQ(problem.buffer(QProblem::kOut).Bytes(), expected) << s.a << " " << s.b << " " << s.out;
    }
}

// Accumulators near the int32 limits (every product 255 * +-255 over K = 32,768) with multipliers
// either side of 0.5: below it the epilogue may skip the top clamp (|y| < 2^30, the saturating
// narrowing clamps), at and above it y reaches past 2^31 where the conversion alone would wrap.
TEST_P(QGemmTest, AccumulatorsNearInt32LimitAcrossMultipliers) {
  const float multipliers[] = {0.49999997f, 0.5f, 4.0f};
  for (float multiplier : multipliers)
    for (int sign : {1, -1})
      for (auto o : kTypes) {
        QConfig c;
        c.m = 9;
        c.k = ReducedSweep() ? 16384 : 32768;
        c.n = 33;
        c.out_type = o;
        QProblem problem(c);
        memset(problem.buffer(QProblem::kA).data(), 255, problem.buffer(QProblem::kA).size());
        memset(problem.buffer(QProblem::kAZero).data(), 0, problem.buffer(QProblem::kAZero).size());
        // B - zb = +-255 everywhere: B = 127, zb = -128, or B = -128, zb = 127.
        memset(problem.buffer(QProblem::kB).data(), sign > 0 ? 0x7F : 0x80, problem.buffer(QProblem::kB).size());
        memset(problem.buffer(QProblem::kBZero).data(), sign > 0 ? 0x80 : 0x7F, problem.buffer(QProblem::kBZero).size());
        *reinterpret_cast<float*>(problem.buffer(QProblem::kAScale).data()) = 1.0f;
        *reinterpret_cast<float*>(problem.buffer(QProblem::kBScale).data()) = multiplier;
        *reinterpret_cast<float*>(problem.buffer(QProblem::kOutScale).data()) = 1.0f;
        const auto expected = problem.Expected();
        ASSERT_EQ(problem.Run(nullptr), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
        EXPECT_EQ(problem.buffer(QProblem::kOut).Bytes(), expected) << multiplier << " " << sign;
      }
}

TEST_P(QGemmTest, ThreadCountsGiveIdenticalBytes) {
  for (uint32_t m : {1u, 16u, 70u}) {
    QConfig c;
    c.m = m;
    c.k = 200;
    c.n = 260;
    c.b_owned = true;
    c.b_transposed = true;
    for (int threads = 1; threads <= 3; ++threads) {
      c.threads = threads;
      Check(c);  // every count against the same reference
      if (HasFatalFailure()) return;
    }
  }
}

// Fewer A tiles than threads (small M, the column blocks spread over many threads): every type
// combination (each packs and shifts A differently), B zero points per column (row_b is live), K
// with a tail group, one and two A matrices.
TEST_P(QGemmTest, FewATilesManyThreads) {
  uint32_t seed = 900;
  for (auto a : kTypes)
    for (auto b : kTypes)
      for (uint32_t m : {1u, 17u, 40u}) {
        if (ReducedSweep() && m == 17) continue;
        QConfig c;
        c.m = m;
        c.k = m == 40 ? 1030 : 197;
        c.n = 70;
        c.a_type = a;
        c.b_type = b;
        c.b_zero = Quant::kPerChannel;
        c.a_zero = Quant::kPerTensor;
        c.b_transposed = true;
        c.b_owned = m != 17;
        c.padded = m == 17;
        if (m == 1) c.a_batch = c.b_batch = {2, 1};
        c.threads = m == 40 ? 16 : 5;
        c.seed = ++seed;
        Check(c);
        if (HasFatalFailure()) return;
      }
}

// The shapes whose A the AMX tier reads in place (whole tiles of 32 rows, or a last one of 16; K a
// multiple of 64; aligned rows; several threads) and their neighbours that it packs: both A types
// (u8 through tdpbusd, s8 through tdpbssd), B zero points per column and absent (row sums needed
// or not), per-row A zero points, padded rows, two A matrices, one, three and sixteen threads.
// The VNNI kernels read u8 A in place from sixteen threads (K a multiple of 4; 102 is not).
TEST_P(QGemmTest, AReadInPlaceShapes) {
  uint32_t seed = 1300;
  for (uint32_t m : {16u, 32u, 17u, 80u})
    for (uint32_t k : {64u, 320u, 100u, 102u, 1088u}) {  // 1088: K past the AMX and VNNI kernels' K blocks
      if (ReducedSweep() && (k == 320 || k == 102)) continue;
      if (k == 1088 && m != 80) continue;
      for (int variant = 0; variant < 4; ++variant) {
        QConfig c;
        c.m = m;
        c.k = k;
        c.n = 45;
        c.a_type = variant & 1 ? kS8 : kU8;
        c.b_type = variant & 2 ? kU8 : kS8;
        c.b_zero = variant == 0 ? Quant::kAbsent : Quant::kPerChannel;
        c.a_zero = variant & 1 ? Quant::kPerChannel : Quant::kPerTensor;
        c.padded = variant == 3;
        c.b_transposed = true;
        c.b_owned = variant != 1;
        if (variant == 2) c.a_batch = c.b_batch = {2, 1};
        // One thread packs inside its task; several read in place (the VNNI kernels: u8 A, sixteen).
        c.threads = variant == 3 ? 1 : variant == 0 ? 3 : 16;
        c.seed = ++seed;
        Check(c);
        if (HasFatalFailure()) return;
      }
    }
}

TEST_P(QGemmTest, BatchBroadcastAndLowerRanks) {
  QConfig c;
  c.m = 13;
  c.k = 21;
  c.n = 34;
  c.a_batch = {2, 3};
  c.b_batch = {1, 3};
  Check(c);
  c.a_batch = {1, 1};
  c.b_batch = {2, 2};
  c.b_owned = true;
  Check(c);
  c.a_batch = {2, 1};
  c.b_batch = {2, 1};
  c.a_batch_stride0 = true;  // A's batch has size 2 but stride 0
  Check(c);
  // The documented contract: A and B may both repeat one matrix over every output batch.
  c.a_batch = {1, 1};
  c.b_batch = {1, 1};
  c.a_batch_stride0 = false;
  c.out_batch = {5, 2};
  Check(c);
  c.a_batch = {1, 2};
  c.b_owned = false;
  c.out_batch = {3, 2};
  Check(c);
  for (uint32_t rank : {2u, 3u}) {
    QConfig r;
    r.m = 6;
    r.k = 10;
    r.n = 20;
    r.rank = rank;
    r.b_transposed = true;
    Check(r);
  }
}

// One operator executed from several threads at once gives the same bytes as alone.
TEST_P(QGemmTest, ConcurrentExecutesOnOneOperator) {
  QConfig c;
  c.m = 33;
  c.k = 64;
  c.n = 65;
  c.b_owned = true;
  QProblem problem(c);
  const auto expected = problem.Expected();
  OperatorPtr op;
  ASSERT_EQ(problem.Run(nullptr, &op), CPUML_STATUS_SUCCESS);
  const auto inputs = problem.Inputs(true);
  constexpr int kCallers = 4, kRepetitions = 5;
  // Every repetition of every caller writes its own output: a wrong one cannot be overwritten by
  // a later right one.
  std::vector<std::vector<uint8_t>> outputs(kCallers * kRepetitions,
                                            std::vector<uint8_t>(problem.buffer(QProblem::kOut).size(), 0xEE));
  std::vector<cpuml_status> statuses(kCallers * kRepetitions, CPUML_STATUS_INVALID_STATE);
  auto work = [&](int t) {
    for (int rep = 0; rep < kRepetitions; ++rep) {
      std::vector<uint8_t>& output = outputs[t * kRepetitions + rep];
      CPUML_BUFFER_BINDING out{output.data(), output.size()};
      statuses[t * kRepetitions + rep] = cpuml_execute_operator(op.get(), inputs.data(), 8, &out, 1, nullptr);
    }
  };
  OnCallerThreads(kCallers, work);
  for (int r = 0; r < kCallers * kRepetitions; ++r) {
    SCOPED_TRACE(testing::Message() << "caller " << r / kRepetitions << ", repetition " << r % kRepetitions);
    EXPECT_EQ(statuses[r], CPUML_STATUS_SUCCESS);
    // The output is packed: its first M * N bytes are all addressed; the rest is rounding.
    EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + c.m * c.n, outputs[r].begin()));
  }
}

// Hand-computed: A = [[1,2],[3,4]] (u8, za = 1), B = [[5,6],[7,8]] (s8, zb = -1),
// acc = [(0*6 + 1*8), (0*7 + 1*9); (2*6 + 3*8), (2*7 + 3*9)] = [[8, 9], [36, 41]],
// scales 1, 1, out 2 -> y = [[4, 4.5], [18, 20.5]] -> RNE [[4, 4], [18, 20]] + zo 3.
TEST_P(QGemmTest, HandComputed2x2) {
  const uint32_t s2[] = {1, 1, 2, 2}, s1[] = {1, 1, 1, 1};
  CPUML_BUFFER_TENSOR_DESC a{kU8, CPUML_TENSOR_FLAG_NONE, 4, s2, nullptr, 4, 0};
  CPUML_BUFFER_TENSOR_DESC b = a;
  b.DataType = kS8;
  CPUML_BUFFER_TENSOR_DESC out = a;
  CPUML_BUFFER_TENSOR_DESC f{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, s1, nullptr, 4, 0};
  CPUML_BUFFER_TENSOR_DESC zu{kU8, CPUML_TENSOR_FLAG_NONE, 4, s1, nullptr, 4, 0};
  CPUML_BUFFER_TENSOR_DESC zs = zu;
  zs.DataType = kS8;
  CPUML_TENSOR_DESC ta{CPUML_TENSOR_TYPE_BUFFER, &a}, tb{CPUML_TENSOR_TYPE_BUFFER, &b}, to{CPUML_TENSOR_TYPE_BUFFER, &out},
      tf{CPUML_TENSOR_TYPE_BUFFER, &f}, tzu{CPUML_TENSOR_TYPE_BUFFER, &zu}, tzs{CPUML_TENSOR_TYPE_BUFFER, &zs};
  CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC d{&ta, &tf, &tzu, &tb, &tf, &tzs, &tf, &tzu, &to};
  CPUML_OPERATOR_DESC od{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d};
  cpuml_operator* raw;
  ASSERT_EQ(cpuml_create_operator(&od, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  OperatorPtr op(raw);
  uint8_t av[4] = {1, 2, 3, 4}, za[4] = {1}, zo[4] = {3};
  int8_t bv[4] = {5, 6, 7, 8}, zb[4] = {-1};
  float one = 1.0f, two = 2.0f;
  uint8_t result[4] = {};
  CPUML_BUFFER_BINDING in[8] = {{av, 4}, {&one, 4}, {za, 4}, {bv, 4}, {&one, 4}, {zb, 4}, {&two, 4}, {zo, 4}};
  CPUML_BUFFER_BINDING ob{result, 4};
  ASSERT_EQ(cpuml_execute_operator(op.get(), in, 8, &ob, 1, nullptr), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  EXPECT_EQ(result[0], 7);
  EXPECT_EQ(result[1], 7);
  EXPECT_EQ(result[2], 21);
  EXPECT_EQ(result[3], 23);
}

// Reduce-range weights: an owned B whose values fit 7 bits lets initialize pick a 7-bit-B kernel
// where the tier has one (vpmaddubsw on avx2). Every tier still matches the reference, at the
// largest pair sums such a kernel meets (A at its ends against B = +-64) and over long K.
TEST_P(QGemmTest, SevenBitOwnedB) {
  uint32_t seed = 2000;
  for (auto a : kTypes)
    for (auto b : kTypes)
      for (Data data : {Data::kSevenBitB, Data::kSevenBitExtremes})
        for (uint32_t k : {1u, 5u, 64u, 300u, 4100u}) {
          if (ReducedSweep() && k == 4100 && a != b) continue;
          QConfig c;
          c.m = 2 + seed % 13;
          c.k = k;
          c.n = 35;
          c.a_type = a;
          c.b_type = b;
          c.out_type = (seed & 2) ? kS8 : kU8;
          c.data = data;
          c.b_owned = true;
          c.b_transposed = seed & 1;
          c.b_zero = (seed % 3 == 0) ? Quant::kPerChannel : Quant::kPerTensor;
          c.threads = (seed % 4 == 0) ? 2 : 1;
          c.seed = ++seed;
          Check(c);
          if (HasFatalFailure()) return;
        }
}

INSTANTIATE_TEST_SUITE_P(Tiers, QGemmTest, testing::ValuesIn(AllTiers()), TierName);

// The kernel field of the verbose log's last execute line.
std::string ExecutedKernel(const std::string& log) {
  const size_t line = log.rfind("cpuml_verbose,execute,");
  if (line == std::string::npos) return "";
  size_t field = line;
  for (int i = 0; i < 7 && field != std::string::npos; ++i) field = log.find(',', field + 1);
  if (field == std::string::npos) return "";
  return log.substr(field + 1, log.find(',', field + 1) - field - 1);
}

// Which kernel a tier with a B-conditioned kernel runs: that kernel exactly when B is owned and
// every value meets its bound, the general one for any other B (one value past the bound is
// enough); the bytes equal the reference's each time. avx2: the 7-bit-B kernel; neon: the kernel
// for B without -128.
TEST(QGemmKernelChoice, BConditionedKernelOnlyForOwnedBThatFits) {
  struct Case {
    const char* what;
    uint32_t m;
    bool owned;
    int poke;  // 0, or a value written into B's first element (as the 8-bit layouts see it)
    const char* kernel;
  };
#if defined(__x86_64__)
  const cpuml_isa tier = CPUML_ISA_AVX2;
  const Case cases[] = {
      {"owned 7-bit B", 13, true, 0, "qgemm_u8s7_6x16c4__avx2"},
      {"owned B with one 65", 13, true, 65, "qgemm_x16_6x16c2__avx2"},
      {"owned B with one -65", 13, true, -65, "qgemm_x16_6x16c2__avx2"},
      {"owned B with one 64", 13, true, 64, "qgemm_u8s7_6x16c4__avx2"},
      {"7-bit B bound at execute", 13, false, 0, "qgemm_x16_6x16c2__avx2"},
      {"owned 7-bit B, M = 1", 1, true, 0, "qgemm_u8s8_1x16c4__avx2"},
  };
#elif defined(__aarch64__)
  const cpuml_isa tier = CPUML_ISA_NEON;
  const Case cases[] = {
      {"owned B without -128", 13, true, 0, "qgemm_s8sym_2x8c16__neon"},
      {"owned B with one -128", 13, true, -128, "qgemm_s8s8_2x8c16__neon"},
      {"owned B with one 127 and one -127", 13, true, 127, "qgemm_s8sym_2x8c16__neon"},
      {"B bound at execute", 13, false, 0, "qgemm_s8s8_2x8c16__neon"},
      {"owned B without -128, M = 1", 1, true, 0, "qgemm_s8sym_2x8c16__neon"},
  };
#else
  GTEST_SKIP() << "no tier of this architecture has a B-conditioned kernel";
  const cpuml_isa tier = CPUML_ISA_SCALAR;
  const Case cases[1] = {};
#endif
  if (!cpuml_is_isa_supported(tier)) GTEST_SKIP() << "tier " << cpuml_isa_name(tier) << " is not supported by this CPU";
  const cpuml_isa previous_cap = cpuml_get_max_isa();
  ASSERT_EQ(cpuml_set_max_isa(tier), CPUML_STATUS_SUCCESS);
  for (const Case& t : cases)
    for (auto b_type : kTypes) {
      SCOPED_TRACE(testing::Message() << t.what << (IsSigned(b_type) ? ", s8 B" : ", u8 B"));
      QConfig c;
      c.m = t.m;
      c.k = 77;
      c.n = 40;
      c.b_type = b_type;
      c.b_transposed = IsSigned(b_type);  // both B layouts: the check reads either in memory order
      c.data = Data::kSevenBitB;
      c.b_owned = t.owned;
      QProblem problem(c);
      const int offset = IsSigned(b_type) ? 0 : 128;
      if (t.poke) problem.buffer(QProblem::kB).data()[0] = static_cast<uint8_t>(t.poke + offset);
      if (t.poke == 127) problem.buffer(QProblem::kB).data()[1] = static_cast<uint8_t>(-127 + offset);
      const std::vector<uint8_t> expected = problem.Expected();
      cpuml_set_verbose(1);
      StderrCapture capture;
      const cpuml_status status = problem.Run(nullptr);
      cpuml_set_verbose(0);
      const std::string log = capture.Finish();
      ASSERT_EQ(status, CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
      EXPECT_EQ(ExecutedKernel(log), t.kernel) << log;
      EXPECT_EQ(problem.buffer(QProblem::kOut).Bytes(), expected);
    }
  EXPECT_EQ(cpuml_set_max_isa(previous_cap), CPUML_STATUS_SUCCESS);
}

}  // namespace
}  // namespace cpuml_test
