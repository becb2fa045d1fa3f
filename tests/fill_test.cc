// FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE on every tier, byte-equal to the scalar reference
// and to the seeds' examples. FLOAT16 expectations come from a binary16 conversion of this file's
// own (the reference shares kernels/common/half.cc with the fills, so it cannot judge that code),
// which is checked exhaustively against literal values and the library here.
#include <math.h>
#include <cpuinfo.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/test_support.h"

namespace cpuml_test {

// binary16 from the format's definition, by arithmetic on values rather than on bits (the
// library's conversion shifts bits, so the two are unlikely to share a mistake): a half is
// (1024 + fraction) * 2^(exponent - 25), or fraction * 2^-24 when subnormal. Also used by
// tests/kernels/fill_kernel_test.cc.
float OracleHalfToFloat(uint16_t h) {
  const bool negative = (h & 0x8000u) != 0;
  const int field = (h >> 10) & 0x1F, fraction = h & 0x3FF;
  if (field == 0x1F && fraction != 0) {
    // A NaN has no value to compute with: widening is exact (kernels/common/half.h), so the
    // payload moves to the top of float's fraction as it is, signalling or quiet.
    const uint32_t bits = (negative ? 0x80000000u : 0u) | 0x7F800000u | (static_cast<uint32_t>(fraction) << 13);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  const float magnitude = field == 0x1F ? std::numeric_limits<float>::infinity()
                          : field == 0  ? std::ldexp(static_cast<float>(fraction), -24)
                                        : std::ldexp(static_cast<float>(1024 + fraction), field - 25);
  return negative ? -magnitude : magnitude;
}

// Round to nearest even by exact arithmetic on the value: scale it so that one step between
// adjacent halves is 1, round the integer significand, and read the exponent off the scale.
uint16_t OracleFloatToHalf(float f) {
  const uint32_t sign = std::signbit(f) ? 0x8000u : 0u;
  if (std::isnan(f)) {
    // docs/semantics.md: a quiet NaN keeping the top ten bits of float's payload.
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return static_cast<uint16_t>(sign | 0x7E00u | ((bits & 0x7FFFFFu) >> 13));
  }
  const double magnitude = std::fabs(static_cast<double>(f));
  if (std::isinf(magnitude)) return static_cast<uint16_t>(sign | 0x7C00u);
  if (magnitude == 0) return static_cast<uint16_t>(sign);
  int exponent;
  std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent - 1), 2^exponent)
  // Halves 2^(exponent - 11) apart in that binade (11 significant bits), 2^-24 below 2^-14.
  int step = std::max(exponent - 11, -24);
  const double scaled = std::ldexp(magnitude, -step);  // exact: float's 24 bits fit double's 53
  double significand = std::floor(scaled);
  const double rest = scaled - significand;  // exact
  if (rest > 0.5 || (rest == 0.5 && std::fmod(significand, 2.0) == 1.0)) significand += 1;
  uint32_t n = static_cast<uint32_t>(significand);
  if (n == 2048) {  // rounded up into the next binade
    n = 1024;
    ++step;
  }
  if (n < 1024) return static_cast<uint16_t>(sign | n);  // subnormal (or zero): step is -24
  const int field = step + 25;                            // value = (n / 1024) * 2^(field - 15)
  if (field >= 0x1F) return static_cast<uint16_t>(sign | 0x7C00u);
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(field) << 10 | (n - 1024));
}

namespace {

float FloatFromBits(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
uint32_t BitsOfFloat(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

// binary16 values worked out by hand, both directions, so that the oracle does not rest on
// agreeing with the library alone.
TEST(FillHalfOracle, MatchesLiteralValues) {
  const std::pair<uint16_t, float> exact[] = {
      {0x0000, 0.0f},           {0x8000, -0.0f},           {0x0001, 0x1p-24f},         {0x8001, -0x1p-24f},
      {0x0002, 0x1p-23f},       {0x03FF, 1023 * 0x1p-24f}, {0x0400, 0x1p-14f},         {0x3555, 0x1.554p-2f},
      {0x3C00, 1.0f},           {0x3C01, 1.0f + 0x1p-10f}, {0xC000, -2.0f},            {0xC100, -2.5f},
      {0x2E66, 0x1.998p-4f},    {0x6800, 2048.0f},         {0x7BFF, 65504.0f},         {0xFBFF, -65504.0f},
      {0x7C00, INFINITY},       {0xFC00, -INFINITY}};
  for (const auto& [h, f] : exact) {
    SCOPED_TRACE(testing::Message() << std::hex << "half 0x" << h);
    EXPECT_EQ(BitsOfFloat(OracleHalfToFloat(h)), BitsOfFloat(f));
    EXPECT_EQ(OracleFloatToHalf(f), h);
  }
  const std::pair<uint16_t, uint32_t> nans[] = {{0x7E00, 0x7FC00000u}, {0x7C01, 0x7F802000u},
                                                {0xFE01, 0xFFC02000u}, {0x7FFF, 0x7FFFE000u}};
  for (const auto& [h, f] : nans) EXPECT_EQ(BitsOfFloat(OracleHalfToFloat(h)), f) << std::hex << h;
  const std::pair<float, uint16_t> rounded[] = {
      {0x1p-25f, 0x0000},                 // tie between 0 and the smallest subnormal: even is 0
      {-0x1p-25f, 0x8000},                //   and keeps its sign
      {0x1.000002p-25f, 0x0001},          // just above that tie
      {0x1.8p-24f, 0x0002},               // tie between subnormals 1 and 2
      {0x1.4p-23f, 0x0002},               // tie between 2 and 3
      {0x1p-14f - 0x1p-25f, 0x0400},      // tie between the largest subnormal and the smallest normal
      {0x1p-149f, 0x0000},                // float's smallest subnormal
      {0x1p-126f, 0x0000},                // float's smallest normal
      {1.0f + 0x1p-11f, 0x3C00},          // tie: to even, not away from zero
      {1.0f + 3 * 0x1p-11f, 0x3C02},      // tie: to even, which is up here
      {-1.0f - 3 * 0x1p-11f, 0xBC02},     //   and for negatives
      {1.0f + 0x1p-11f + 0x1p-23f, 0x3C01},  // just above a tie: up, not truncated
      {1.0f + 0x1p-11f - 0x1p-23f, 0x3C00},  // just below a tie: down
      {1.0f + 0x1.8p-11f, 0x3C01},           // three quarters of a step: nearest, not truncated
      {2049.0f, 0x6800},                  // ties at 2^11, where halves are 2 apart
      {2051.0f, 0x6802},
      {0.1f, 0x2E66},
      {1.0f / 3.0f, 0x3555},
      {65519.996f, 0x7BFF},               // below the overflow tie
      {65520.0f, 0x7C00},                 // the tie between 65504 (odd) and 2^16: to infinity
      {-65520.0f, 0xFC00},
      {65536.0f, 0x7C00},
      {3.4028235e38f, 0x7C00},
      {-1e10f, 0xFC00}};
  for (const auto& [f, h] : rounded) EXPECT_EQ(OracleFloatToHalf(f), h) << std::hexfloat << f;
  // A payload only in the low 13 bits is lost, but the NaN stays a NaN (quiet).
  const std::pair<uint32_t, uint16_t> nan_narrowing[] = {{0x7FC00000u, 0x7E00}, {0xFFC00000u, 0xFE00},
                                                         {0x7F800001u, 0x7E00}, {0x7FA00000u, 0x7F00},
                                                         {0x7FFFFFFFu, 0x7FFF}, {0xFF802000u, 0xFE01}};
  for (const auto& [f, h] : nan_narrowing) EXPECT_EQ(OracleFloatToHalf(FloatFromBits(f)), h) << std::hex << f;
}

// Every half widened: the library's conversion must agree bit for bit (NaN payloads included).
TEST(FillHalfOracle, EveryHalfWidensLikeTheLibrary) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h)
    ASSERT_EQ(BitsOfFloat(cpuml::HalfToFloat(static_cast<uint16_t>(h))),
              BitsOfFloat(OracleHalfToFloat(static_cast<uint16_t>(h))))
        << std::hex << "half 0x" << h;
}

// Narrowing, where rounding decides: every half itself, every midpoint between adjacent halves
// (the tie goes to the even one; above 65504 the next "half" is 2^16, infinity's bits), and the
// floats just below and above each midpoint, for both signs. The expectations come from the pair
// of halves, not from either conversion.
TEST(FillHalfOracle, EveryHalfMidpointAndNeighborNarrowsToNearestEven) {
  for (const uint32_t sign : {0u, 0x8000u})
    for (uint32_t lo = 0; lo < 0x7C00; ++lo) {
      const uint32_t hi = lo + 1;
      const double lo_value = std::fabs(OracleHalfToFloat(static_cast<uint16_t>(lo)));
      const double hi_value = hi == 0x7C00 ? 65536.0 : std::fabs(OracleHalfToFloat(static_cast<uint16_t>(hi)));
      const double mid = (lo_value + hi_value) / 2;  // 12 significant bits: exact in float
      const float s = sign ? -1.0f : 1.0f;
      const float at_lo = s * static_cast<float>(lo_value), at_mid = s * static_cast<float>(mid);
      ASSERT_EQ(static_cast<double>(std::fabs(at_mid)), mid);
      const float below = std::nextafter(at_mid, 0.0f), above = std::nextafter(at_mid, s * INFINITY);
      const uint16_t expect_lo = static_cast<uint16_t>(sign | lo), expect_hi = static_cast<uint16_t>(sign | hi);
      const uint16_t expect_mid = (lo & 1) == 0 ? expect_lo : expect_hi;
      const struct {
        float value;
        uint16_t half;
      } checks[] = {{at_lo, expect_lo}, {below, expect_lo}, {at_mid, expect_mid}, {above, expect_hi}};
      for (const auto& check : checks) {
        ASSERT_EQ(OracleFloatToHalf(check.value), check.half) << std::hexfloat << check.value;
        ASSERT_EQ(cpuml::FloatToHalf(check.value), check.half) << std::hexfloat << check.value;
      }
    }
  for (const uint32_t bits : {0x7F800000u, 0xFF800000u})  // the infinities themselves
    EXPECT_EQ(cpuml::FloatToHalf(FloatFromBits(bits)), OracleFloatToHalf(FloatFromBits(bits)));
}

// Every NaN class (quiet and signalling, both signs, payloads in the kept and the dropped bits)
// and a spread of all float bit patterns: the library agrees with the oracle bit for bit.
TEST(FillHalfOracle, FloatBitPatternsNarrowLikeTheLibrary) {
  for (uint32_t payload = 1; payload < 0x800000u; payload = payload * 3 + 1)
    for (const uint32_t top : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u}) {
      const float nan = FloatFromBits(top | payload);
      ASSERT_EQ(cpuml::FloatToHalf(nan), OracleFloatToHalf(nan)) << std::hex << (top | payload);
      ASSERT_EQ(OracleFloatToHalf(nan) & 0x7E00, 0x7E00) << std::hex << (top | payload);
    }
  const uint32_t stride = ReducedSweep() ? 40009u : 4099u;  // primes: every low-bit pattern turns up
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += stride) {
    const float f = FloatFromBits(static_cast<uint32_t>(bits));
    ASSERT_EQ(cpuml::FloatToHalf(f), OracleFloatToHalf(f)) << std::hex << bits;
  }
}


struct FillCase {
  bool sequence;
  CPUML_SCALAR_UNION start, delta;
};

cpuml_status CreateFill(const FillCase& c, const TensorDesc& out, CPUML_TENSOR_DATA_TYPE value_type, OperatorPtr* op) {
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant{out.get(), value_type, c.start};
  CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sequence{out.get(), value_type, c.start, c.delta};
  CPUML_OPERATOR_DESC desc{c.sequence ? CPUML_OPERATOR_FILL_VALUE_SEQUENCE : CPUML_OPERATOR_FILL_VALUE_CONSTANT,
                           c.sequence ? static_cast<const void*>(&sequence) : static_cast<const void*>(&constant)};
  cpuml_operator* raw = nullptr;
  const cpuml_status s = cpuml_create_operator(&desc, &raw);
  op->reset(raw);
  return s;
}

// A FLOAT16 fill by docs/semantics.md through the oracle conversion: element i in row-major
// order gets start + float(i) * delta in float32, rounded once to binary16; where strides alias,
// the later element wins.
void FillHalfExpected(const FillCase& c, const TensorDesc& out, const std::vector<uint64_t>& strides, uint8_t* data) {
  const float start = OracleHalfToFloat(c.start.UInt16), delta = OracleHalfToFloat(c.delta.UInt16);
  const uint64_t count = out.ElementCount();
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t offset = 0, rest = i;
    for (uint32_t d = out.rank(); d-- > 0;) {
      offset += rest % out.sizes()[d] * strides[d];
      rest /= out.sizes()[d];
    }
    const uint16_t h = c.sequence ? OracleFloatToHalf(start + static_cast<float>(i) * delta) : c.start.UInt16;
    memcpy(data + offset * sizeof h, &h, sizeof h);
  }
}

// Runs the fill through the library and through the reference (FLOAT16: FillHalfExpected) on
// identical starting bytes and checks byte equality, untouched gaps and canaries.
void ExpectMatchesReference(const FillCase& c, const TensorDesc& out, pthreadpool_t pool = nullptr) {
  OperatorPtr op;
  ASSERT_EQ(CreateFill(c, out, out.type(), &op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  GuardedBuffer actual(out.MinimumBytes()), expected(out.MinimumBytes());
  const auto strides = out.Strides();
  if (out.type() == CPUML_TENSOR_DATA_TYPE_FLOAT16)
    FillHalfExpected(c, out, strides, expected.data());
  else if (c.sequence)
    cpuml::reference::FillValueSequence(View(out, strides, expected.data()), c.start, c.delta);
  else
    cpuml::reference::FillValueConstant(View(out, strides, expected.data()), c.start);
  ASSERT_EQ(cpuml_initialize_operator(op.get(), nullptr, 0), CPUML_STATUS_SUCCESS);
  const CPUML_BUFFER_BINDING binding = actual.Binding();
  ASSERT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &binding, 1, pool), CPUML_STATUS_SUCCESS)
      << cpuml_last_error_message();
  ASSERT_TRUE(actual.CanariesIntact());
  ASSERT_EQ(actual.Bytes(), expected.Bytes());
}

CPUML_SCALAR_UNION Bits(uint64_t bits) {
  CPUML_SCALAR_UNION u;
  memcpy(u.Bytes, &bits, 8);
  return u;
}
CPUML_SCALAR_UNION F32(float f) {
  CPUML_SCALAR_UNION u{};
  u.Float32 = f;
  return u;
}
CPUML_SCALAR_UNION HalfBits(uint16_t h) {
  CPUML_SCALAR_UNION u{};
  u.UInt16 = h;
  return u;
}
CPUML_SCALAR_UNION F16(float f) { return HalfBits(OracleFloatToHalf(f)); }

class FillTest : public TierTest {};

constexpr CPUML_TENSOR_DATA_TYPE kFillTypes[] = {
    CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_DATA_TYPE_FLOAT16, CPUML_TENSOR_DATA_TYPE_UINT32,
    CPUML_TENSOR_DATA_TYPE_UINT16,  CPUML_TENSOR_DATA_TYPE_UINT8,   CPUML_TENSOR_DATA_TYPE_INT32,
    CPUML_TENSOR_DATA_TYPE_INT16,   CPUML_TENSOR_DATA_TYPE_INT8};

// Start/delta pairs per type that exercise wrap-around, negative steps and rounding.
std::vector<FillCase> CasesFor(CPUML_TENSOR_DATA_TYPE type) {
  switch (type) {
    case CPUML_TENSOR_DATA_TYPE_FLOAT32:
      return {{false, F32(13.0f), {}}, {true, F32(3.0f), F32(2.0f)}, {true, F32(-1.5f), F32(0.1f)},
              {true, F32(1e7f), F32(0.3f)}, {true, F32(INFINITY), F32(-INFINITY)}};
    case CPUML_TENSOR_DATA_TYPE_FLOAT16:
      return {{false, F16(-2.5f), {}}, {true, F16(0.0f), F16(0.1f)}, {true, F16(60000.0f), F16(7.0f)},
              {true, F16(-3.0f), F16(0.0009765625f)}, {true, F16(5.96e-8f), F16(5.96e-8f)}};
    default:
      return {{false, Bits(0x8765432187654321ull), {}}, {true, Bits(10), Bits(uint64_t(-2))},
              {true, Bits(0x7FFFFFF0ull), Bits(7)}, {true, Bits(250), Bits(3)}, {true, Bits(uint64_t(-5)), Bits(1)}};
  }
}

constexpr uint8_t kUntouched = 0xEE;

// Creates the fill and runs it into a fresh buffer at least one element longer than the
// tensor's TotalTensorSizeInBytes, every byte starting as kUntouched. Returns all its elements,
// so a test can check the values and that the element past the tensor was not written.
template <class T>
std::vector<T> RunFill(const FillCase& c, const TensorDesc& out) {
  std::vector<T> result((out.MinimumBytes() + sizeof(T) - 1) / sizeof(T) + 1);
  memset(result.data(), kUntouched, result.size() * sizeof(T));
  OperatorPtr op;
  EXPECT_EQ(CreateFill(c, out, out.type(), &op), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  if (!op) return result;
  const CPUML_BUFFER_BINDING binding{result.data(), out.MinimumBytes()};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &binding, 1, nullptr), CPUML_STATUS_SUCCESS)
      << cpuml_last_error_message();
  return result;
}

template <class T>
bool Untouched(const T& value) {
  T pattern;
  memset(&pattern, kUntouched, sizeof pattern);
  return memcmp(&value, &pattern, sizeof value) == 0;
}

TEST_P(FillTest, SeedConstantExample) {
  const auto r = RunFill<float>({false, F32(13.0f), {}}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 4}));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(r[i], 13.0f) << i;
  EXPECT_TRUE(Untouched(r[8]));
}

TEST_P(FillTest, SeedSequenceExamples) {
  const auto f = RunFill<float>({true, F32(3.0f), F32(2.0f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 3}));
  EXPECT_EQ(f[0], 3.0f);
  EXPECT_EQ(f[1], 5.0f);
  EXPECT_EQ(f[2], 7.0f);
  EXPECT_TRUE(Untouched(f[3]));
  const auto u = RunFill<uint8_t>({true, Bits(10), Bits(uint64_t(-2))}, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {1, 1, 2, 2}));
  EXPECT_EQ(u[0], 10);
  EXPECT_EQ(u[1], 8);
  EXPECT_EQ(u[2], 6);
  EXPECT_EQ(u[3], 4);
  EXPECT_TRUE(Untouched(u[4]));
}

// Hand-computed values the reference itself must produce.
TEST_P(FillTest, HandComputedSequences) {
  // INT8 wraps modulo 256: 120, 125, -126, -121
  const auto i8 = RunFill<int8_t>({true, Bits(120), Bits(5)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT8, {4}));
  EXPECT_EQ(i8[2], -126);
  EXPECT_EQ(i8[3], -121);
  // FLOAT32 closed form: element i is float(i) * 0.1f rounded once, not i accumulated adds
  const auto f = RunFill<float>({true, F32(0.0f), F32(0.1f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {40}));
  for (int i = 0; i < 40; ++i) EXPECT_EQ(f[i], static_cast<float>(i) * 0.1f) << i;
  // FLOAT16: 1 + i * 0.5 in half
  const auto h = RunFill<uint16_t>({true, F16(1.0f), F16(0.5f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {20}));
  EXPECT_EQ(h[0], 0x3C00);   // 1.0
  EXPECT_EQ(h[2], 0x4000);   // 2.0
  EXPECT_EQ(h[19], 0x4940);  // 10.5 = 1.3125 * 2^3
}

TEST_P(FillTest, AllTypesAllLengths) {
  const int max_length = ReducedSweep() ? 140 : 300;
  for (auto type : kFillTypes)
    for (const FillCase& c : CasesFor(type))
      for (int n = 1; n <= max_length; ++n) {
        SCOPED_TRACE(testing::Message() << "type " << type << " n " << n << " sequence " << c.sequence);
        ExpectMatchesReference(c, TensorDesc(type, {1, 1, 1, static_cast<uint32_t>(n)}));
        if (HasFatalFailure()) return;
      }
}

TEST_P(FillTest, StridedAndBroadcastOutputs) {
  struct Layout {
    std::vector<uint32_t> sizes, strides;
  };
  const Layout layouts[] = {
      {{3, 5, 37}, {300, 40, 1}},      // padded rows: gaps must stay untouched
      {{4, 33}, {1, 4}},               // transposed
      {{2, 3, 17}, {0, 17, 1}},        // stride 0: the later batch overwrites the earlier
      {{5, 9}, {9, 0}},                // every row element aliases: the last wins
      {{2, 2, 2, 2, 2, 2, 2, 3}, {}},  // rank 8
      {{7, 1, 65}, {130, 1, 2}},       // every other element
  };
  for (auto type : kFillTypes)
    for (const FillCase& c : CasesFor(type))
      for (const Layout& l : layouts) {
        SCOPED_TRACE(testing::Message() << "type " << type << " rank " << l.sizes.size());
        ExpectMatchesReference(c, TensorDesc(type, l.sizes, l.strides));
        if (HasFatalFailure()) return;
      }
}

// Bytes past which the library streams: this core's share of the last-level cache.
uint64_t StreamingThresholdBytes() {
  if (!cpuinfo_initialize()) return 8u << 20;
  const cpuinfo_processor* p = cpuinfo_get_processor(0);
  const cpuinfo_cache* last = p ? (p->cache.l3 ? p->cache.l3 : p->cache.l2) : nullptr;
  return last ? last->size / std::max<uint32_t>(1, last->processor_count) : 8u << 20;
}

TEST_P(FillTest, LargeOutputsStreamAndThread) {
  // Past the streaming threshold: exercises the non-temporal path and, with a pool, the split
  // across threads. The reduced sweep (emulation) keeps only the threaded split.
  const uint64_t bytes = std::max<uint64_t>(40u << 20, StreamingThresholdBytes() + (1u << 20));
  const uint32_t n = ReducedSweep() ? (1u << 20) : static_cast<uint32_t>(bytes / 4);
  pthreadpool_t pool = CreatePool(3);
  for (const FillCase& c : {FillCase{false, F32(-7.25f), {}}, FillCase{true, F32(0.5f), F32(0.25f)}}) {
    ExpectMatchesReference(c, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {n + 3}), pool);
    ExpectMatchesReference(c, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {n + 3}));
  }
  ExpectMatchesReference({true, Bits(3), Bits(7)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT16, {3, n / 3 + 1}), pool);
  ExpectMatchesReference({true, F16(1.0f), F16(0.001f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {n / 2 + 5}), pool);
  DestroyPool(pool);
}

// FLOAT16 sequences whose float32 values need rounding: ties to even (1 + i * 2^-11), large
// magnitudes, the tie at 65520 that overflows to inf, subnormals, and NaN (inf + 0 * -inf).
TEST_P(FillTest, HalfRoundingHardCases) {
  const std::pair<float, float> cases[] = {{1.0f, 0.00048828125f}, {-65504.0f, 0.1f},  {65504.0f, 8.0f},
                                           {0.0f, 5.9604645e-08f},  {6.1e-05f, -3e-06f}, {INFINITY, -INFINITY},
                                           {-2.0f, 0.33333f}};
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << "start " << c.first << " delta " << c.second);
    ExpectMatchesReference({true, F16(c.first), F16(c.second)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {77}));
  }
  // The tie at 65520 must give +inf (0x7C00): 65504's mantissa is odd.
  const auto r = RunFill<uint16_t>({true, F16(65504.0f), F16(16.0f)}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {2}));
  EXPECT_EQ(r[0], 0x7BFF);
  EXPECT_EQ(r[1], 0x7C00);
  auto half_sequence = [](CPUML_SCALAR_UNION start, CPUML_SCALAR_UNION delta, uint32_t n) {
    return RunFill<uint16_t>({true, start, delta}, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT16, {n}));
  };
  EXPECT_EQ(half_sequence(F16(-65504.0f), F16(-16.0f), 2)[1], 0xFC00);
  // 1 + i * 2^-11: odd i are ties, which go to the even neighbour, up or down.
  const auto ties = half_sequence(F16(1.0f), F16(0x1p-11f), 6);
  EXPECT_EQ(ties[1], 0x3C00);
  EXPECT_EQ(ties[2], 0x3C01);
  EXPECT_EQ(ties[3], 0x3C02);
  EXPECT_EQ(ties[5], 0x3C02);
  // -1 - i * 0.75 * 2^-10, three quarters of a step of the halves above 1: to nearest, not cut.
  const auto quarters = half_sequence(F16(-1.0f), F16(-0x1.8p-11f), 4);
  EXPECT_EQ(quarters[1], 0xBC01);
  EXPECT_EQ(quarters[2], 0xBC02);  // a tie
  EXPECT_EQ(quarters[3], 0xBC02);
  // Subnormal results stay subnormal (no flush to zero) and reach the smallest normal.
  const auto subnormal = half_sequence(HalfBits(0x0001), HalfBits(0x0001), 1025);
  EXPECT_EQ(subnormal[0], 0x0001);
  EXPECT_EQ(subnormal[2], 0x0003);
  EXPECT_EQ(subnormal[1023], 0x0400);
  // inf + 0 * -inf and inf - inf are NaN; a NaN start keeps its payload and is quieted.
  const auto nan = half_sequence(F16(INFINITY), F16(-INFINITY), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(nan[i] & 0x7E00, 0x7E00) << i;
  const auto payload = half_sequence(HalfBits(0x7D01), F16(1.0f), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(payload[i], 0x7F01) << i;
}

INSTANTIATE_TEST_SUITE_P(Tiers, FillTest, testing::ValuesIn(AllTiers()), TierName);

// Validation: each rule gives its status and a message naming the member; nothing is written.
class FillValidationTest : public testing::Test {};

void ExpectCreateFails(const FillCase& c, const TensorDesc& out, CPUML_TENSOR_DATA_TYPE value_type,
                       cpuml_status status, const char* needle) {
  OperatorPtr op;
  EXPECT_EQ(CreateFill(c, out, value_type, &op), status);
  EXPECT_EQ(op, nullptr);
  EXPECT_NE(strstr(cpuml_last_error_message(), needle), nullptr) << cpuml_last_error_message();
}

TEST(FillValidation, DescriptorRules) {
  const FillCase seq{true, Bits(0), Bits(1)};
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_FLOAT32, {2, 2}), CPUML_TENSOR_DATA_TYPE_INT32,
                    CPUML_STATUS_INVALID_ARGUMENT, "FILL_VALUE_SEQUENCE: ValueDataType INT32 must equal OutputTensor DataType FLOAT32");
  ExpectCreateFails(seq, TensorDesc(static_cast<CPUML_TENSOR_DATA_TYPE>(11), {2}), static_cast<CPUML_TENSOR_DATA_TYPE>(11),
                    CPUML_STATUS_UNSUPPORTED, "OutputTensor DataType 11");
  {  // hostile enum values are rejected, never loaded as the enum (the sanitizer build checks)
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT8, {2});
    int32_t hostile = -7;
    memcpy(&out.buffer().DataType, &hostile, sizeof hostile);
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_UNSUPPORTED, "OutputTensor DataType -7 is not");
    hostile = 0x40000000;
    TensorDesc out2(CPUML_TENSOR_DATA_TYPE_UINT8, {2});
    memcpy(&out2.buffer().Flags, &hostile, sizeof hostile);
    ExpectCreateFails(seq, out2, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT, "Flags 0x40000000 has bits");
    CPUML_TENSOR_DATA_TYPE value_type;
    hostile = 1234;
    memcpy(&value_type, &hostile, sizeof hostile);
    ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {2}), value_type, CPUML_STATUS_INVALID_ARGUMENT,
                      "ValueDataType 1234 must equal OutputTensor DataType UINT8");
  }
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {2, 0, 3}), CPUML_TENSOR_DATA_TYPE_UINT8,
                    CPUML_STATUS_INVALID_ARGUMENT, "OutputTensor Sizes[1] is 0");
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 1, 1, 1, 1, 1, 2}),
                    CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT, "DimensionCount 9 must be in 1..8");
  {
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_FLOAT32, {3, 5});
    out.buffer().TotalTensorSizeInBytes = 56;
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_STATUS_INVALID_ARGUMENT,
                      "TotalTensorSizeInBytes 56 must be at least 60");
  }
  {
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT8, {3});  // 3 bytes round up to 4
    out.buffer().TotalTensorSizeInBytes = 3;
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT, "must be at least 4");
  }
  {
    TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT8, {4});
    out.buffer().GuaranteedBaseOffsetAlignment = 12;
    ExpectCreateFails(seq, out, CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_STATUS_INVALID_ARGUMENT,
                      "GuaranteedBaseOffsetAlignment 12 must be 0 or a power of two");
  }
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT32, {0x10000, 0x10000, 0x10000, 0x10000, 0x10000}),
                    CPUML_TENSOR_DATA_TYPE_INT32, CPUML_STATUS_INVALID_ARGUMENT, "overflows 64 bits");
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT32, {0xFFFFFFFF, 3}, {0xFFFFFFFF, 0xFFFFFFFF}),
                    CPUML_TENSOR_DATA_TYPE_INT32, CPUML_STATUS_INVALID_ARGUMENT, "overflows 64 bits");
  ExpectCreateFails(seq, TensorDesc(CPUML_TENSOR_DATA_TYPE_INT32, {4}, {}, CPUML_TENSOR_FLAG_OWNED_BY_CPUML),
                    CPUML_TENSOR_DATA_TYPE_INT32, CPUML_STATUS_INVALID_ARGUMENT, "OWNED_BY_CPUML");
  {
    CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant{nullptr, CPUML_TENSOR_DATA_TYPE_FLOAT32, {}};
    CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_FILL_VALUE_CONSTANT, &constant};
    cpuml_operator* op = reinterpret_cast<cpuml_operator*>(1);
    EXPECT_EQ(cpuml_create_operator(&desc, &op), CPUML_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(op, nullptr);
    EXPECT_STREQ(cpuml_last_error_message(), "FILL_VALUE_CONSTANT: OutputTensor must not be NULL");
    CPUML_TENSOR_DESC bad{CPUML_TENSOR_TYPE_INVALID, nullptr};
    constant.OutputTensor = &bad;
    EXPECT_EQ(cpuml_create_operator(&desc, &op), CPUML_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(strstr(cpuml_last_error_message(), "OutputTensor Type 0 must be CPUML_TENSOR_TYPE_BUFFER"), nullptr);
  }
}

TEST(FillValidation, ExecuteRulesWriteNothing) {
  TensorDesc out(CPUML_TENSOR_DATA_TYPE_INT16, {10});
  OperatorPtr op;
  ASSERT_EQ(CreateFill({false, Bits(7), {}}, out, CPUML_TENSOR_DATA_TYPE_INT16, &op), CPUML_STATUS_SUCCESS);
  GuardedBuffer buffer(out.MinimumBytes(), 0x11);
  const std::vector<uint8_t> before = buffer.Bytes();
  CPUML_BUFFER_BINDING small{buffer.data(), 19};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &small, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(strstr(cpuml_last_error_message(), "OutputTensor binding SizeInBytes 19 must be >= TotalTensorSizeInBytes 20"),
            nullptr)
      << cpuml_last_error_message();
  CPUML_BUFFER_BINDING misaligned{buffer.data() + 1, 20};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &misaligned, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(strstr(cpuml_last_error_message(), "aligned to the element size 2"), nullptr);
  CPUML_BUFFER_BINDING null_data{nullptr, 20};
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &null_data, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  CPUML_BUFFER_BINDING good = buffer.Binding();
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 0, &good, 2, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(cpuml_last_error_message(), "cpuml_execute_operator: output_count 2 must be 1");
  EXPECT_EQ(cpuml_execute_operator(op.get(), nullptr, 1, &good, 1, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(buffer.Bytes(), before);
  EXPECT_TRUE(buffer.CanariesIntact());
}

}  // namespace
}  // namespace cpuml_test
