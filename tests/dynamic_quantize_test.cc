// DYNAMIC_QUANTIZE_LINEAR on every tier: ONNX's examples, then sweeps byte-equal to the scalar
// reference (lengths across every vector tail, per tensor and per row, FLOAT32 and FLOAT16 input,
// strides, NaN, infinities, zeros, threads).
#include <math.h>

#include <random>

#include "src/dispatch.h"
#include "tests/reference/reference.h"
#include "tests/test_support.h"

namespace cpuml_test {
namespace {

constexpr CPUML_TENSOR_DATA_TYPE kF32 = CPUML_TENSOR_DATA_TYPE_FLOAT32, kF16 = CPUML_TENSOR_DATA_TYPE_FLOAT16,
                                 kU8 = CPUML_TENSOR_DATA_TYPE_UINT8, kS8 = CPUML_TENSOR_DATA_TYPE_INT8;

struct QuantizeCase {
  std::vector<uint32_t> sizes;  // 4-D
  CPUML_TENSOR_DATA_TYPE in_type = kF32, out_type = kU8;
  bool per_row = false, strided = false;
  // Gaps before each channel (1: and each batch; 2: before each batch only): rows no longer one
  // stride apart throughout.
  int gapped = 0;
  int threads = 1;
  // Nonzero: symmetric INT8 without a zero point, this many scales per row (blocks of K).
  uint32_t symmetric_blocks = 0;
};

// Runs the case through the library and the reference; returns false with a message on mismatch.
class DynamicQuantizeTest : public TierTest {
 protected:
  void Check(const QuantizeCase& q, const std::vector<float>& values) {
    const uint32_t pad = q.strided ? 2 : 1, channel_gap = q.gapped == 1 ? 5 : 0, batch_gap = q.gapped ? 3 : 0;
    const uint32_t channel_stride = q.sizes[2] * q.sizes[3] * pad + channel_gap;
    std::vector<uint32_t> in_strides{q.sizes[1] * channel_stride + batch_gap, channel_stride, q.sizes[3] * pad, pad};
    TensorDesc input(q.in_type, q.sizes, in_strides), output(q.out_type, q.sizes, in_strides);
    const bool symmetric = q.symmetric_blocks != 0;
    const uint32_t columns = symmetric ? q.symmetric_blocks : 1;
    const std::vector<uint32_t> p_sizes = q.per_row || symmetric
                                              ? std::vector<uint32_t>{q.sizes[0], q.sizes[1], q.sizes[2], columns}
                                              : std::vector<uint32_t>{1, 1, 1, 1};
    TensorDesc scale(kF32, p_sizes), zero_point(q.out_type, p_sizes);
    GuardedBuffer in(input.MinimumBytes(), 0x5A), out(output.MinimumBytes(), 0xC3), s(scale.MinimumBytes(), 0xC3),
        z(zero_point.MinimumBytes(), 0xC3);
    const std::vector<uint64_t> in_strides64(in_strides.begin(), in_strides.end());
    const uint64_t count = uint64_t{q.sizes[0]} * q.sizes[1] * q.sizes[2] * q.sizes[3];
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t at = i * pad;
      const float v = values[i % values.size()];
      if (q.in_type == kF32)
        memcpy(in.data() + 4 * at, &v, 4);
      else {
        const uint16_t h = cpuml::FloatToHalf(v);
        memcpy(in.data() + 2 * at, &h, 2);
      }
    }
    GuardedBuffer expected_out(out.size(), 0xC3), expected_s(s.size(), 0xC3), expected_z(z.size(), 0xC3);
    const std::vector<uint64_t> p_strides = scale.Strides(), z_strides = zero_point.Strides();
    cpuml::reference::DynamicQuantizeLinear({q.in_type, 4, q.sizes.data(), in_strides64.data(), in.data()},
                                            {q.out_type, 4, q.sizes.data(), in_strides64.data(), expected_out.data()},
                                            {kF32, 4, p_sizes.data(), p_strides.data(), expected_s.data()},
                                            {q.out_type, 4, p_sizes.data(), z_strides.data(),
                                             symmetric ? nullptr : expected_z.data()});
    const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC desc{input.get(), output.get(), scale.get(),
                                                           symmetric ? nullptr : zero_point.get()};
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc};
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    const CPUML_BUFFER_BINDING inputs[] = {in.Binding()};
    const CPUML_BUFFER_BINDING outputs[] = {out.Binding(), s.Binding(),
                                            symmetric ? CPUML_BUFFER_BINDING{nullptr, 0} : z.Binding()};
    pthreadpool_t pool = CreatePool(q.threads);
    const cpuml_status status = cpuml_execute_operator(op.get(), inputs, 1, outputs, 3, pool);
    DestroyPool(pool);
    ASSERT_EQ(status, CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    EXPECT_TRUE(out.CanariesIntact() && s.CanariesIntact() && z.CanariesIntact());
    EXPECT_EQ(s.Bytes(), expected_s.Bytes());
    EXPECT_EQ(z.Bytes(), expected_z.Bytes());
    const std::vector<uint8_t> actual = out.Bytes(), expected = expected_out.Bytes();
    if (actual != expected) {
      size_t first = 0;
      while (actual[first] == expected[first]) ++first;
      ADD_FAILURE() << "output byte " << first << ": got " << int(actual[first]) << ", reference " << int(expected[first]);
    }
  }

  // Runs a 1-D FLOAT32 input through the library and returns {bytes, scale, zero point}.
  struct Result {
    std::vector<uint8_t> y;
    float scale;
    int zero_point;
  };
  Result Run(const std::vector<float>& x, std::vector<uint32_t> sizes, CPUML_TENSOR_DATA_TYPE out_type = kU8) {
    TensorDesc input(kF32, sizes), output(out_type, sizes), scale(kF32, {1}), zero_point(out_type, {1});
    std::vector<float> in = x;
    in.resize(in.size() + 1);
    std::vector<uint8_t> y(x.size() + 4);
    float s[1] = {};
    uint8_t z[4] = {};
    const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC desc{input.get(), output.get(), scale.get(), zero_point.get()};
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc};
    cpuml_operator* raw = nullptr;
    EXPECT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
    OperatorPtr op(raw);
    const CPUML_BUFFER_BINDING inputs[] = {{in.data(), in.size() * 4}};
    const CPUML_BUFFER_BINDING outputs[] = {{y.data(), y.size()}, {s, 4}, {z, 4}};
    EXPECT_EQ(cpuml_execute_operator(op.get(), inputs, 1, outputs, 3, nullptr), CPUML_STATUS_SUCCESS)
        << cpuml_last_error_message();
    y.resize(x.size());
    return {y, s[0], out_type == kS8 ? int(int8_t(z[0])) : int(z[0])};
  }
};

// ONNX's three DynamicQuantizeLinear examples (onnx/docs/Operators.md). One published byte
// differs from the float32 formula: for x = 0.5 the published 178 is 153 + rint(25.4999991), the
// quotient 0.5 / (5 / 255) evaluated in double by the example's numpy code; in float32, as the
// operator computes (and as ONNX Runtime's MlasQuantizeLinear divides), 0.5f / 0.0196078438f is
// exactly 25.5f, which rounds half to even to 26: 179.
TEST_P(DynamicQuantizeTest, OnnxExamples) {
  Result r = Run({0, 2, -3, -2.5f, 1.34f, 0.5f}, {6});
  EXPECT_EQ(r.y, (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
  EXPECT_EQ(r.zero_point, 153);
  EXPECT_FLOAT_EQ(r.scale, 0.0196078438f);
  r = Run({-1.0f, -2.1f, -1.3f, -2.5f, -3.34f, -4.0f}, {6});
  EXPECT_EQ(r.y, (std::vector<uint8_t>{191, 121, 172, 96, 42, 0}));
  EXPECT_EQ(r.zero_point, 255);
  EXPECT_FLOAT_EQ(r.scale, 0.0156862754f);
  r = Run({1, 2.1f, 1.3f, 2.5f, 3.34f, 4.0f, 1.5f, 2.6f, 3.9f, 4.0f, 3.0f, 2.345f}, {3, 4});
  EXPECT_EQ(r.y, (std::vector<uint8_t>{64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149}));
  EXPECT_EQ(r.zero_point, 0);
  EXPECT_FLOAT_EQ(r.scale, 0.0156862754f);
}

// By hand: all zeros (scale 1/255, zero point 0), INT8 output ([-128, 127]: range [-1, 1.55] gives
// scale 2.55 / 255 = 0.01 and zero point -128 + 100 = -28), NaN to the zero point.
TEST_P(DynamicQuantizeTest, ByHand) {
  Result r = Run({0, 0, 0}, {3});
  EXPECT_EQ(r.y, (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_EQ(r.scale, 1.0f / 255.0f);
  r = Run({-1.0f, 1.55f, 0.0f, NAN}, {4}, kS8);
  EXPECT_EQ(r.zero_point, -28);
  EXPECT_EQ(int8_t(r.y[0]), -128);
  EXPECT_EQ(int8_t(r.y[1]), 127);
  EXPECT_EQ(int8_t(r.y[2]), -28);
  EXPECT_EQ(int8_t(r.y[3]), -28);
  // A symmetric range: 2.931 / (5.862 / 255) + 128 rounds to 256 before the clamp (the zero point
  // 127.5 went to even, 128), so the clamp to qmax decides the last byte.
  // Repeated past every vector width, so every loop decides it: 117 elements leave each tier's
  // groups of four vectors a tail of whole vectors (1 to 3) and then single elements.
  std::vector<float> symmetric;
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 117; ++i) {
    symmetric.push_back(i % 3 == 0 ? -2.931f : i % 3 == 1 ? 2.931f : 0.0f);
    bytes.push_back(i % 3 == 0 ? 0 : i % 3 == 1 ? 255 : 128);
  }
  r = Run(symmetric, {117});
  EXPECT_EQ(r.zero_point, 128);
  EXPECT_EQ(r.y, bytes);
}

std::vector<float> Values(std::mt19937& rng, int kind) {
  std::vector<float> v(997);
  std::uniform_real_distribution<float> dist(-3.0f, 5.0f);
  for (float& x : v) x = dist(rng);
  if (kind == 1) {  // specials
    v[3] = NAN;
    v[10] = -0.0f;
    v[500] = 1e-40f;
  }
  if (kind == 2) v[7] = INFINITY;
  if (kind == 3)
    for (float& x : v) x = std::fabs(x) + 0.5f;  // all positive: the range is widened to 0
  if (kind == 4)
    for (float& x : v) x = (x - 10.0f) * 1e-30f;  // tiny and negative
  if (kind == 5)  // the range [0, 127.5] makes the scale 0.5: x / scale lands on .5 for every odd quarter
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 511) * 0.25f;
  if (kind == 6) {
    // The range [0, 5] makes the scale 5 / 255, whose reciprocal is inexact: x = (k + 0.5) *
    // scale puts x / scale within an ulp of a half-integer, where a quotient computed any other
    // way than by division can round to the other side.
    const float scale = 5.0f / 255.0f;
    for (size_t i = 0; i < v.size(); ++i) v[i] = (static_cast<float>(i % 255) + 0.5f) * scale;
    v[0] = 5.0f;
  }
  if (kind == 7)
    // Subnormal inputs: the scale (about 2.6e-39 / 255) is subnormal and its reciprocal overflows,
    // so no product by the reciprocal stands in for x / scale (it is infinite).
    for (size_t i = 0; i < v.size(); ++i) v[i] = (static_cast<float>(i % 255) + 0.5f) * 1e-41f;
  if (kind == 8) {
    // Quotients a few ulps to either side of half-integers under a range chosen at random, so
    // the reciprocal's product and the division round to different integers somewhere: the
    // rows must notice every such lane.
    std::uniform_real_distribution<float> bound(0.5f, 300.0f);
    const float lo = -bound(rng), hi = bound(rng);
    const float scale = (hi - lo) / 255.0f;
    std::uniform_int_distribution<int> integer(-128, 126), ulps(-6, 6);
    for (size_t i = 2; i < v.size(); ++i) {
      float half = (static_cast<float>(integer(rng)) + 0.5f) * scale;
      for (int u = ulps(rng); u != 0; u += u > 0 ? -1 : 1) half = nextafterf(half, u > 0 ? INFINITY : -INFINITY);
      v[i] = std::min(std::max(half, lo), hi);
    }
    v[0] = lo;
    v[1] = hi;
  }
  if (kind == 9) {
    // The symmetric modes' counterpart: every 16th element is the same amax, so every block of a
    // multiple of 16 has the scale amax / 127, and the others are a few ulps from half-integers
    // under it (where the reciprocal's product and the division can round apart).
    std::uniform_real_distribution<float> bound(0.5f, 300.0f);
    const float amax = bound(rng), scale = amax / 127.0f;
    std::uniform_int_distribution<int> integer(-127, 126), ulps(-6, 6);
    for (size_t i = 0; i < v.size(); ++i) {
      float half = (static_cast<float>(integer(rng)) + 0.5f) * scale;
      for (int u = ulps(rng); u != 0; u += u > 0 ? -1 : 1) half = nextafterf(half, u > 0 ? INFINITY : -INFINITY);
      v[i] = i % 16 == 0 ? amax : std::min(std::max(half, -amax), amax);
    }
  }
  return v;
}

TEST_P(DynamicQuantizeTest, SweepAgainstReference) {
  std::mt19937 rng(11);
  const uint32_t lengths[] = {1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 64, 65, 100, 1025, 5000};
  uint32_t index = 0;
  for (uint32_t length : lengths)
    for (bool per_row : {false, true}) {
      QuantizeCase q;
      q.sizes = {1, 1u + index % 2, 1u + index % 3, length};
      q.in_type = index % 3 == 0 ? kF16 : kF32;
      q.out_type = index % 2 ? kS8 : kU8;
      q.per_row = per_row;
      q.strided = index % 4 == 0;
      q.threads = 1 + index % 3;
      SCOPED_TRACE(testing::Message() << "length " << length << " per_row " << per_row << " case " << index);
      Check(q, Values(rng, index % 9));
      ++index;
      if (HasFailure()) return;
    }
}

// Rows that are not one stride apart (gaps between channels and batches), and dense tensors whose
// per-tensor passes run over the whole as one run of pieces (across rows, past one piece).
TEST_P(DynamicQuantizeTest, RowLayouts) {
  std::mt19937 rng(15);
  int index = 0;
  for (const std::vector<uint32_t>& sizes : {std::vector<uint32_t>{2, 3, 5, 37}, std::vector<uint32_t>{3, 2, 7, 1024},
                                             std::vector<uint32_t>{1, 1, 70, 1000}})
    for (int gapped : {0, 1, 2})
      for (int mode = 0; mode < 3; ++mode) {
        QuantizeCase q;
        q.sizes = sizes;
        q.gapped = gapped;
        q.per_row = mode == 1;
        q.symmetric_blocks = mode == 2 ? (sizes[3] + 15) / 16 : 0;
        q.out_type = mode == 0 ? kU8 : kS8;
        q.threads = 1 + index % 3;
        SCOPED_TRACE(testing::Message() << "case " << index << ", gaps " << gapped << ", mode " << mode);
        Check(q, Values(rng, index % 10));
        ++index;
        if (HasFailure()) return;
      }
}

// Symmetric INT8 per row and block, by hand: s = max|x| / 127 and q = x / s rounded half to even.
// Row 0: max 127 (s = 1): 2.5 -> 2, 3.5 -> 4, -2.5 -> -2; its second block all zero (s = 0, q = 0).
// Row 1: max 254 (s = 2): 5 -> 2, 7 -> 4, -254 -> -127; its second block: max 63.5 (s = 0.5),
// 0.25 -> 0 (0.5, to even), NaN -> 0, 63.5 -> 127.
TEST_P(DynamicQuantizeTest, SymmetricBlocksByHand) {
  std::vector<float> x(64, 0.0f);
  const float row0[] = {127, 2.5f, 3.5f, -2.5f}, row1[] = {254, 5, 7, -254};
  for (int i = 0; i < 4; ++i) x[i] = row0[i], x[32 + i] = row1[i];
  x[48] = 0.25f, x[49] = NAN, x[50] = 63.5f;
  TensorDesc input(kF32, {2, 32}), output(kS8, {2, 32}), scale(kF32, {2, 2});
  std::vector<int8_t> y(64, 99);
  float s[4] = {-1, -1, -1, -1};
  const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC desc{input.get(), output.get(), scale.get(), nullptr};
  const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc};
  cpuml_operator* raw = nullptr;
  ASSERT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  OperatorPtr op(raw);
  const CPUML_BUFFER_BINDING inputs[] = {{x.data(), x.size() * 4}};
  const CPUML_BUFFER_BINDING outputs[] = {{y.data(), y.size()}, {s, sizeof s}, {nullptr, 0}};
  ASSERT_EQ(cpuml_execute_operator(op.get(), inputs, 1, outputs, 3, nullptr), CPUML_STATUS_SUCCESS)
      << cpuml_last_error_message();
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_EQ(s[1], 0.0f);
  EXPECT_EQ(s[2], 2.0f);
  EXPECT_EQ(s[3], 0.5f);
  const std::vector<int8_t> row0_q(y.begin(), y.begin() + 4), row1_q(y.begin() + 32, y.begin() + 36);
  EXPECT_EQ(row0_q, (std::vector<int8_t>{127, 2, 4, -2}));
  EXPECT_EQ(row1_q, (std::vector<int8_t>{127, 2, 4, -127}));
  EXPECT_EQ(y[16], 0);
  EXPECT_EQ(y[48], 0);
  EXPECT_EQ(y[49], 0);
  EXPECT_EQ(y[50], 127);
}

// Symmetric per row and block against the reference: every block size, partial last blocks,
// FLOAT16, strides, threads.
TEST_P(DynamicQuantizeTest, SymmetricBlocksSweep) {
  std::mt19937 rng(13);
  const uint32_t lengths[] = {1, 15, 16, 17, 33, 100, 129, 256, 300, 1000, 4097};
  uint32_t index = 0;
  for (uint32_t length : lengths)
    for (uint32_t block : {0u, 16u, 32u, 64u, 128u, 256u}) {
      QuantizeCase q;
      q.sizes = std::vector<uint32_t>{1, 1u + index % 2, 1u + index % 3, length};
      q.in_type = index % 3 == 0 ? kF16 : kF32;
      q.out_type = kS8;
      q.symmetric_blocks = block ? (length + block - 1) / block : 1;
      if (block && q.symmetric_blocks < 2) continue;  // one block is the per-row case
      q.strided = index % 4 == 0;
      q.threads = 1 + index % 3;
      SCOPED_TRACE(testing::Message() << "length " << length << " block " << block << " case " << index);
      Check(q, Values(rng, index % 10));
      ++index;
      if (HasFailure()) return;
    }
}

// Large inputs that split rows between tasks, per tensor, with threads.
TEST_P(DynamicQuantizeTest, LargeRowsAcrossThreads) {
  std::mt19937 rng(12);
  for (int threads : {1, 3}) {
    QuantizeCase q;
    q.sizes = {1, 1, 3, ReducedSweep() ? 70000u : 300001u};
    q.threads = threads;
    Check(q, Values(rng, 1));
    if (HasFailure()) return;
  }
}

// Past this core's share of the last-level cache the bytes go out through streaming stores (on
// tiers that have them), from the first vector boundary of each span; rows of an odd length put
// every row's start at another alignment.
TEST_P(DynamicQuantizeTest, PastTheLastLevelCache) {
  std::mt19937 rng(14);
  const uint32_t length = 4093;
  const uint32_t rows = static_cast<uint32_t>(cpuml::LastLevelCacheBytes() / (length * 5ull)) + 2;
  // Per row, per tensor, and symmetric per (row, block of 32): a task's rows share one fence.
  for (int mode = 0; mode < 3; ++mode) {
    QuantizeCase q;
    q.sizes = {1, 1, rows, length};
    q.per_row = mode == 0;
    q.out_type = mode == 1 ? kU8 : kS8;
    q.threads = mode == 1 ? 3 : 2;
    q.symmetric_blocks = mode == 2 ? (length + 31) / 32 : 0;
    SCOPED_TRACE(testing::Message() << rows << " rows of " << length
                                    << (mode == 0 ? ", per row" : mode == 1 ? ", per tensor" : ", per row and block"));
    Check(q, Values(rng, 1));
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Tiers, DynamicQuantizeTest, testing::ValuesIn(AllTiers()), TierName);

TEST(DynamicQuantizeValidation, RulesNameTheMember) {
  auto error = [](const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC& desc) -> std::string {
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc};
    cpuml_operator* raw = nullptr;
    EXPECT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_INVALID_ARGUMENT);
    cpuml_destroy_operator(raw);
    return cpuml_last_error_message();
  };
  TensorDesc in(kF32, {4, 8}), out(kU8, {4, 8}), out_wrong(kU8, {4, 7}), s(kF32, {1, 1}), s_row(kF32, {4, 1}),
      s_col(kF32, {1, 8}), z(kU8, {1, 1}), z_s8(kS8, {1, 1});
  EXPECT_NE(error({in.get(), out_wrong.get(), s.get(), z.get()}).find("OutputTensor sizes"), std::string::npos);
  EXPECT_NE(error({in.get(), out.get(), s_col.get(), z.get()}).find("OutputScaleTensor sizes"), std::string::npos);
  EXPECT_NE(error({in.get(), out.get(), s.get(), z_s8.get()}).find("OutputZeroPointTensor DataType"), std::string::npos);
  EXPECT_NE(error({in.get(), out.get(), s_row.get(), z.get()}).find("OutputZeroPointTensor sizes"), std::string::npos);
  EXPECT_NE(error({nullptr, out.get(), s.get(), z.get()}).find("InputTensor must not be NULL"), std::string::npos);
  // Without a zero point: INT8 only, scales per row or per row and block.
  TensorDesc out_s8(kS8, {4, 100}), in_long(kF32, {4, 100}), s_blocks(kF32, {4, 4}), s_blocks_wrong(kF32, {4, 3});
  EXPECT_NE(error({in.get(), out.get(), s_row.get(), nullptr}).find("OutputTensor DataType UINT8 must be INT8 without"),
            std::string::npos);
  EXPECT_NE(error({in_long.get(), out_s8.get(), s_blocks_wrong.get(), nullptr})
                .find("OutputScaleTensor sizes {1,1,4,3} must be InputTensor's {1,1,4,100} with the last size 1 (per "
                      "row) or ceil(100 / block)"),
            std::string::npos);
  const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC blocks{in_long.get(), out_s8.get(), s_blocks.get(), nullptr};
  const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &blocks};
  cpuml_operator* raw = nullptr;
  EXPECT_EQ(cpuml_create_operator(&op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  cpuml_destroy_operator(raw);
}

}  // namespace
}  // namespace cpuml_test
