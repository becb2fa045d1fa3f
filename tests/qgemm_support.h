// A problem of the matrix-multiplication family (QUANTIZED_LINEAR_MATRIX_MULTIPLY,
// MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT): descriptors, data, a run through
// the library and a run through the scalar reference.
#ifndef CPUML_TESTS_QGEMM_SUPPORT_H_
#define CPUML_TESTS_QGEMM_SUPPORT_H_

#include <pthreadpool.h>

#include <array>
#include <cmath>
#include <functional>
#include <optional>

#include "tests/test_support.h"

namespace cpuml_test {

enum class Quant { kAbsent, kPerTensor, kPerChannel };  // per row (A, Output) or per column (B)
// Which operator of the family: its members are the QUANTIZED_LINEAR_MATRIX_MULTIPLY ones it
// shares (MATRIX_MULTIPLY_INTEGER has no scales; neither new one has output quantization), plus
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT's bias.
enum class MatMulOp { kQuantizedLinear, kInteger, kIntegerToFloat };
// kSmall: values within 3 of the middle of their type (u8 without a zero point: 0 to 3), zero
// points within 1 of it.
// kSevenBitB: B within 7 bits (s8 in [-64, 64], u8 in [64, 192]: the reduce-range weights a
// 7-bit-B kernel takes), A random. kSevenBitExtremes: A at its ends against B at +-64, zero
// points at the far ends, the largest pair sums such a kernel sees.
enum class Data { kRandom, kExtremes, kSmall, kSevenBitB, kSevenBitExtremes };

struct QConfig {
  uint32_t m = 1, k = 1, n = 1;
  std::array<uint32_t, 2> a_batch{1, 1}, b_batch{1, 1};
  std::array<uint32_t, 2> out_batch{0, 0};  // 0: the larger of A's and B's
  CPUML_TENSOR_DATA_TYPE a_type = CPUML_TENSOR_DATA_TYPE_UINT8, b_type = CPUML_TENSOR_DATA_TYPE_INT8,
                         out_type = CPUML_TENSOR_DATA_TYPE_UINT8;
  Quant a_scale = Quant::kPerTensor, a_zero = Quant::kPerTensor, b_scale = Quant::kPerTensor,
        b_zero = Quant::kPerTensor, out_scale = Quant::kPerTensor, out_zero = Quant::kPerTensor;
  bool b_transposed = false;  // B bound as N x K through strides, the common weight layout
  bool padded = false;        // row strides larger than the row
  bool out_strided = false;   // output column stride 2
  bool a_batch_stride0 = false;  // A's batch dimension broadcast by stride 0 instead of size 1
  bool b_owned = false, scales_owned = false;
  uint32_t rank = 4;          // 2 or 3: leading dimensions dropped from every descriptor
  int threads = 1;
  Data data = Data::kRandom;
  // Nonzero: every scale a power of two, so y = acc * multiplier lands exactly on .5 for some
  // accumulators (round half to even decides them): A and B scales 1 per tensor, or 1 and 0.5
  // alternating per row or column; the output scale this per tensor, or this and twice this
  // alternating per row. 2 gives multipliers up to 0.5, where the epilogues clamp before converting.
  float tie_out_scale = 0.0f;
  uint32_t seed = 1;
  MatMulOp op = MatMulOp::kQuantizedLinear;
  Quant bias = Quant::kAbsent;  // kIntegerToFloat: absent, per tensor or per column
  // Scales of either sign (MATRIX_MULTIPLY_INTEGER_TO_FLOAT accepts any finite scale).
  bool signed_scales = false;
  // kIntegerToFloat with a 4-bit b_type: B's scales and zero points per block of this many K
  // rows and per column ({1,1,ceil(K/b_block),N}); 0 for the usual granularities.
  uint32_t b_block = 0;
  // With b_block: ONNX Runtime MatMulNBits' layouts. B N x K with each column padded to whole
  // blocks, scales N x blocks, zero points N x blocks with each column starting on a byte.
  bool nbits_layout = false;
  // With b_block: A's scales per block too, {1,1,M,blocks} (a_scale per channel) or {1,1,1,blocks}.
  bool a_block_scales = false;
};

inline bool IsFourBit(CPUML_TENSOR_DATA_TYPE t) {
  return t == CPUML_TENSOR_DATA_TYPE_UINT4 || t == CPUML_TENSOR_DATA_TYPE_INT4;
}

inline bool IsSigned(CPUML_TENSOR_DATA_TYPE t) {
  return t == CPUML_TENSOR_DATA_TYPE_INT8 || t == CPUML_TENSOR_DATA_TYPE_INT4;
}

class QProblem {
 public:
  explicit QProblem(QConfig c) : c_(Normalized(c)), rng_(c.seed) {
    c = c_;
    const uint32_t bo = c.out_batch[0] ? c.out_batch[0] : std::max(c.a_batch[0], c.b_batch[0]);
    const uint32_t co = c.out_batch[1] ? c.out_batch[1] : std::max(c.a_batch[1], c.b_batch[1]);
    const uint32_t pad = c.padded ? 3 : 0;
    // A {Ba, Ca, M, K}
    {
      const uint32_t lda = c.k + pad;
      std::vector<uint32_t> sizes{c.a_batch[0], c.a_batch[1], c.m, c.k};
      std::vector<uint32_t> strides{c.a_batch[1] * c.m * lda, c.m * lda, lda, 1};
      if (c.a_batch_stride0) {
        sizes[0] = bo;
        strides[0] = 0;
      }
      Add(kA, c.a_type, sizes, strides);
    }
    // B {Bb, Cb, K, N}, optionally stored transposed (N x K).
    {
      std::vector<uint32_t> strides;
      if (c.b_block && c.nbits_layout) {
        const uint32_t ldb = (c.k + c.b_block - 1) / c.b_block * c.b_block;
        strides = {c.b_batch[1] * c.n * ldb, c.n * ldb, 1, ldb};
      } else if (c.b_transposed) {
        const uint32_t ldb = c.k + pad;
        strides = {c.b_batch[1] * c.n * ldb, c.n * ldb, 1, ldb};
      } else {
        const uint32_t ldb = c.n + pad;
        strides = {c.b_batch[1] * c.k * ldb, c.k * ldb, ldb, 1};
      }
      Add(kB, c.b_type, {c.b_batch[0], c.b_batch[1], c.k, c.n}, strides,
          c.b_owned ? CPUML_TENSOR_FLAG_OWNED_BY_CPUML : CPUML_TENSOR_FLAG_NONE);
    }
    const auto scale_flags = c.scales_owned ? CPUML_TENSOR_FLAG_OWNED_BY_CPUML : CPUML_TENSOR_FLAG_NONE;
    // A 4-bit B's zero points are owned with it (folded in at initialize).
    const auto b_zero_flags = IsFourBit(c.b_type) ? CPUML_TENSOR_FLAG_OWNED_BY_CPUML : CPUML_TENSOR_FLAG_NONE;
    if (c.b_block && c.a_block_scales) {
      const uint32_t blocks = (c.k + c.b_block - 1) / c.b_block, rows = c.a_scale == Quant::kPerChannel ? c.m : 1;
      Add(kAScale, CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, rows, blocks}, {0, 0, rows > 1 ? blocks + 1 : 0, 1},
          scale_flags);
    } else {
      AddQuant(kAScale, CPUML_TENSOR_DATA_TYPE_FLOAT32, c.a_scale, true, scale_flags);
    }
    AddQuant(kAZero, c.a_type, c.a_zero, true, CPUML_TENSOR_FLAG_NONE);
    if (c.b_block) {
      // {1,1,blocks,N}: scales with a column stride of 2 (strides honoured), zero points packed.
      const uint32_t blocks = (c.k + c.b_block - 1) / c.b_block;
      const bool nbits = c.nbits_layout;
      Add(kBScale, CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, blocks, c.n}, nbits ? std::vector<uint32_t>{0, 0, 1, blocks}
                                                                                : std::vector<uint32_t>{0, 0, 2 * c.n, 2},
          scale_flags);
      if (c.b_zero != Quant::kAbsent)
        Add(kBZero, c.b_type, {1, 1, blocks, c.n},
            nbits ? std::vector<uint32_t>{0, 0, 1, (blocks + 1) / 2 * 2} : std::vector<uint32_t>{0, 0, c.n, 1},
            b_zero_flags);
    } else {
      AddQuant(kBScale, CPUML_TENSOR_DATA_TYPE_FLOAT32, c.b_scale, false, scale_flags);
      AddQuant(kBZero, c.b_type, c.b_zero, false, b_zero_flags);
    }
    AddQuant(kOutScale, CPUML_TENSOR_DATA_TYPE_FLOAT32, c.out_scale, true, scale_flags);
    AddQuant(kOutZero, c.out_type, c.out_zero, true, CPUML_TENSOR_FLAG_NONE);
    AddQuant(kBias, CPUML_TENSOR_DATA_TYPE_FLOAT32, c.bias, false, scale_flags);
    {
      const uint32_t col = c.out_strided ? 2 : 1, ldo = c.n * col + pad;
      Add(kOut, c.out_type, {bo, co, c.m, c.n}, {co * c.m * ldo, c.m * ldo, ldo, col});
    }
    FillData();
  }

  const TensorDesc* desc(int member) const { return descs_[member] ? &*descs_[member] : nullptr; }
  GuardedBuffer& buffer(int member) { return *buffers_[member]; }

  CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC OperatorDesc() const {
    auto d = [&](int m) { return descs_[m] ? descs_[m]->get() : nullptr; };
    return {d(kA), d(kAScale), d(kAZero), d(kB), d(kBScale), d(kBZero), d(kOutScale), d(kOutZero), d(kOut)};
  }

  // The operator's input members in its descriptor's (and binding) order.
  std::vector<int> InputMembers() const {
    switch (c_.op) {
      case MatMulOp::kInteger: return {kA, kAZero, kB, kBZero};
      case MatMulOp::kIntegerToFloat: return {kA, kAScale, kAZero, kB, kBScale, kBZero, kBias};
      default: return {kA, kAScale, kAZero, kB, kBScale, kBZero, kOutScale, kOutZero};
    }
  }

  std::vector<CPUML_BUFFER_BINDING> Inputs(bool for_execute) {
    const std::vector<int> members = InputMembers();
    std::vector<CPUML_BUFFER_BINDING> b(members.size(), CPUML_BUFFER_BINDING{nullptr, 0});
    for (size_t i = 0; i < members.size(); ++i) {
      const int member = members[i];
      if (!descs_[member]) continue;
      const bool owned = descs_[member]->buffer().Flags & CPUML_TENSOR_FLAG_OWNED_BY_CPUML;
      if (for_execute && owned) continue;
      b[i] = buffers_[member]->Binding();
    }
    return b;
  }

  // Creates the operator (not initialized).
  cpuml_status Create(cpuml_operator** raw) const {
    auto d = [&](int m) { return descs_[m] ? descs_[m]->get() : nullptr; };
    if (c_.op == MatMulOp::kInteger) {
      const CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC desc{d(kA), d(kAZero), d(kB), d(kBZero), d(kOut)};
      const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &desc};
      return cpuml_create_operator(&op_desc, raw);
    }
    if (c_.op == MatMulOp::kIntegerToFloat) {
      const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC desc{d(kA), d(kAScale), d(kAZero), d(kB),
                                                                      d(kBScale), d(kBZero), d(kBias), d(kOut)};
      const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &desc};
      return cpuml_create_operator(&op_desc, raw);
    }
    const auto desc = OperatorDesc();
    const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &desc};
    return cpuml_create_operator(&op_desc, raw);
  }

  // The reference's bytes for the output buffer (same starting fill as the library's buffer).
  std::vector<uint8_t> Expected() {
    GuardedBuffer expected(descs_[kOut]->MinimumBytes());
    memcpy(expected.data(), buffers_[kOut]->data(), expected.size());  // gaps keep their bytes
    std::vector<std::vector<uint64_t>> strides(kMembers);
    std::array<cpuml::reference::TensorView, kMembers> views{};
    for (int i = 0; i < kMembers; ++i) {
      if (!descs_[i]) {
        views[i] = {CPUML_TENSOR_DATA_TYPE_UNKNOWN, 4, nullptr, nullptr, nullptr};
        continue;
      }
      strides[i] = four_d_strides_[i];
      views[i] = {descs_[i]->type(), 4, four_d_sizes_[i].data(), strides[i].data(),
                  i == kOut ? expected.data() : buffers_[i]->data()};
    }
    if (c_.op == MatMulOp::kQuantizedLinear) {
      cpuml::reference::QuantizedLinearMatrixMultiply({views[kA], views[kAScale], views[kAZero], views[kB],
                                                       views[kBScale], views[kBZero], views[kOutScale],
                                                       views[kOutZero], views[kOut]});
    } else {
      const cpuml::reference::MatMulIntegerArgs args{views[kA],      views[kAScale], views[kAZero], views[kB],
                                                     views[kBScale], views[kBZero],  views[kBias],  views[kOut]};
      if (c_.op == MatMulOp::kInteger)
        cpuml::reference::MatrixMultiplyInteger(args);
      else
        cpuml::reference::MatrixMultiplyIntegerToFloat(args);
    }
    return expected.Bytes();
  }

  // Outputs whose y = acc * multiplier lies exactly halfway between two integers inside the
  // output's range, from exact sums over the raw data: the cases the tie rule alone decides.
  uint64_t TieCount() const {
    const std::vector<uint32_t>& out = four_d_sizes_[kOut];
    const bool out_signed = IsSigned(descs_[kOut]->type());
    uint64_t ties = 0;
    for (uint32_t b = 0; b < out[0]; ++b)
      for (uint32_t ch = 0; ch < out[1]; ++ch)
        for (uint32_t i = 0; i < out[2]; ++i)
          for (uint32_t j = 0; j < out[3]; ++j) {
            const int32_t za = Int(kAZero, 0, 0, i, 0), zb = Int(kBZero, 0, 0, 0, j);
            int64_t acc = 0;
            for (uint32_t kk = 0; kk < c_.k; ++kk)
              acc += int64_t{Int(kA, b, ch, i, kk) - za} * (Int(kB, b, ch, kk, j) - zb);
            const float multiplier = (Float(kAScale, i, 0) * Float(kBScale, 0, j)) / Float(kOutScale, i, 0);
            const float y = static_cast<float>(acc) * multiplier;
            const int32_t zo = Int(kOutZero, 0, 0, i, 0);
            const float lo = static_cast<float>((out_signed ? -128 : 0) - zo);
            const float hi = static_cast<float>((out_signed ? 127 : 255) - zo);
            ties += y - std::floor(y) == 0.5f && y > lo && y < hi;
          }
    return ties;
  }

  // Creates and initializes the operator into *op; returns the status of the first failing step.
  cpuml_status CreateInitialized(OperatorPtr* op) {
    cpuml_operator* raw = nullptr;
    if (cpuml_status s = Create(&raw)) return s;
    op->reset(raw);
    const auto init = Inputs(false);
    return cpuml_initialize_operator(raw, init.data(), static_cast<uint32_t>(init.size()));
  }

  // Creates, initializes and executes; returns the status of the first failing step.
  cpuml_status Run(pthreadpool_t pool, OperatorPtr* keep = nullptr) {
    OperatorPtr op;
    if (cpuml_status s = CreateInitialized(&op)) return s;
    const auto exec = Inputs(true);
    const CPUML_BUFFER_BINDING out = buffers_[kOut]->Binding();
    const cpuml_status s =
        cpuml_execute_operator(op.get(), exec.data(), static_cast<uint32_t>(exec.size()), &out, 1, pool);
    if (keep) *keep = std::move(op);
    return s;
  }

  static constexpr int kA = 0, kAScale = 1, kAZero = 2, kB = 3, kBScale = 4, kBZero = 5, kOutScale = 6, kOutZero = 7,
                       kOut = 8, kBias = 9, kMembers = 10;

 private:
  // The members the operator has: no scales for MATRIX_MULTIPLY_INTEGER, no output quantization
  // for either new operator, a bias only for MATRIX_MULTIPLY_INTEGER_TO_FLOAT; their output types.
  static QConfig Normalized(QConfig c) {
    if (c.op != MatMulOp::kQuantizedLinear) {
      c.out_scale = c.out_zero = Quant::kAbsent;
      c.tie_out_scale = 0.0f;
    }
    if (c.op == MatMulOp::kInteger) {
      c.a_scale = c.b_scale = Quant::kAbsent;
      c.out_type = CPUML_TENSOR_DATA_TYPE_INT32;
    }
    if (c.op == MatMulOp::kIntegerToFloat) {
      if (c.a_scale == Quant::kAbsent) c.a_scale = Quant::kPerTensor;
      if (c.b_scale == Quant::kAbsent) c.b_scale = Quant::kPerTensor;
      c.out_type = CPUML_TENSOR_DATA_TYPE_FLOAT32;
    } else {
      c.bias = Quant::kAbsent;
    }
    return c;
  }

  void Add(int member, CPUML_TENSOR_DATA_TYPE type, std::vector<uint32_t> sizes, std::vector<uint32_t> strides,
           CPUML_TENSOR_FLAGS flags = CPUML_TENSOR_FLAG_NONE) {
    four_d_sizes_[member] = sizes;
    four_d_strides_[member].assign(strides.begin(), strides.end());
    // Lower ranks drop leading dimensions (all of size 1 in the tests that use them).
    const size_t drop = 4 - c_.rank;
    sizes.erase(sizes.begin(), sizes.begin() + drop);
    strides.erase(strides.begin(), strides.begin() + drop);
    descs_[member].emplace(type, sizes, strides, flags);
    buffers_[member].emplace(descs_[member]->MinimumBytes(), 0xC3);
  }

  void AddQuant(int member, CPUML_TENSOR_DATA_TYPE type, Quant q, bool per_row, CPUML_TENSOR_FLAGS flags) {
    if (q == Quant::kAbsent) return;
    std::vector<uint32_t> sizes{1, 1, 1, 1};
    if (q == Quant::kPerChannel) sizes[per_row ? 2 : 3] = per_row ? c_.m : c_.n;
    // Per-channel tensors get a non-unit stride to prove strides are honoured.
    std::vector<uint32_t> strides{0, 0, 0, 0};
    if (q == Quant::kPerChannel) strides[per_row ? 2 : 3] = 2;
    Add(member, type, sizes, strides, flags);
  }

  // Element (b, ch, i, j) of an integer member with the operator's broadcasting (a size-1
  // dimension repeats); 0 for an absent zero point.
  int32_t Int(int member, uint32_t b, uint32_t ch, uint32_t i, uint32_t j) const {
    if (!descs_[member]) return 0;
    const uint8_t raw = buffers_[member]->data()[Offset(member, {b, ch, i, j})];
    return IsSigned(descs_[member]->type()) ? int32_t{static_cast<int8_t>(raw)} : int32_t{raw};
  }
  float Float(int member, uint32_t i, uint32_t j) const {
    float v;
    memcpy(&v, buffers_[member]->data() + 4 * Offset(member, {0, 0, i, j}), 4);
    return v;
  }
  uint64_t Offset(int member, std::array<uint32_t, 4> index) const {
    uint64_t offset = 0;
    for (int d = 0; d < 4; ++d)
      if (four_d_sizes_[member][d] > 1) offset += index[d] * four_d_strides_[member][d];
    return offset;
  }

  int32_t RandomInt(CPUML_TENSOR_DATA_TYPE t) {
    if (IsFourBit(t)) {  // a byte of two elements: random nibbles, or each at either extreme
      if (c_.data == Data::kExtremes) {
        const int lowest = IsSigned(t) ? 0x8 : 0x0, highest = IsSigned(t) ? 0x7 : 0xF;
        return (rng_() & 1 ? highest : lowest) | (rng_() & 1 ? highest : lowest) << 4;
      }
      return static_cast<int32_t>(rng_() & 0xFF);
    }
    const int lo = IsSigned(t) ? -128 : 0;
    if (c_.data == Data::kExtremes || c_.data == Data::kSevenBitExtremes) return (rng_() & 1) ? lo + 255 : lo;
    if (c_.data == Data::kSmall) return static_cast<int>(rng_() % 7) - 3 + (IsSigned(t) ? 0 : 128);
    return lo + static_cast<int>(rng_() % 256);
  }

  void FillInts(int member) {
    if (!descs_[member]) return;
    GuardedBuffer& b = *buffers_[member];
    // Random bytes past 1 MiB (the sliced problems' tens of MB): four from each draw, since one
    // draw a byte took most of such a test's time.
    if (c_.data == Data::kRandom && b.size() > (uint64_t{1} << 20)) {
      for (uint64_t i = 0; i < b.size(); i += 4) {
        const uint32_t bits = static_cast<uint32_t>(rng_());
        memcpy(b.data() + i, &bits, std::min<uint64_t>(4, b.size() - i));
      }
      return;
    }
    for (uint64_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<uint8_t>(RandomInt(descs_[member]->type()));
  }

  void FillFloats(int member, float lo, float hi) {
    if (!descs_[member]) return;
    GuardedBuffer& b = *buffers_[member];
    float* f = reinterpret_cast<float*>(b.data());
    std::uniform_real_distribution<float> dist(lo, hi);
    for (uint64_t i = 0; i < b.size() / 4; ++i) f[i] = dist(rng_);
  }

  // Writes element i (per row or column, through the tensor's stride) of a FLOAT32 quantization
  // tensor as value(i); a per-tensor one gets value(0).
  template <class Value>
  void SetScales(int member, Value value) {
    if (!descs_[member]) return;
    float* f = reinterpret_cast<float*>(buffers_[member]->data());
    const auto& sizes = four_d_sizes_[member];
    const auto& strides = four_d_strides_[member];
    const int dim = sizes[2] > 1 ? 2 : 3;
    for (uint32_t i = 0; i < sizes[dim]; ++i) f[i * strides[dim]] = value(i);
  }

  // B's values as the 8-bit layouts pack them (s8, or u8 - 128), in [-64, 64].
  void FillSevenBitB() {
    GuardedBuffer& b = *buffers_[kB];
    const int offset = IsSigned(descs_[kB]->type()) ? 0 : 128;
    for (uint64_t i = 0; i < b.size(); ++i) {
      const int v = c_.data == Data::kSevenBitExtremes ? ((rng_() & 1) ? 64 : -64) : static_cast<int>(rng_() % 129) - 64;
      b.data()[i] = static_cast<uint8_t>(v + offset);
    }
  }

  void FillData() {
    const bool seven_bit = c_.data == Data::kSevenBitB || c_.data == Data::kSevenBitExtremes;
    FillInts(kA);
    FillInts(kB);
    if (seven_bit) FillSevenBitB();
    // Small u8 values without a zero point sit near 0, not near 128: sums stay small (outputs in
    // range) and odd as often as even.
    if (c_.data == Data::kSmall)
      for (int member : {kA, kB})
        if (!IsSigned(descs_[member]->type()) && !descs_[member == kA ? kAZero : kBZero])
          for (uint64_t i = 0; i < buffers_[member]->size(); ++i) buffers_[member]->data()[i] = rng_() % 4;
    if (c_.data == Data::kExtremes || c_.data == Data::kSevenBitExtremes) {
      // Zero points at the opposite extreme maximize |A - za| * |B - zb|.
      for (int member : {kAZero, kBZero})
        if (descs_[member]) {
          const bool s = IsSigned(descs_[member]->type());
          const uint8_t lowest = IsFourBit(descs_[member]->type()) ? (s ? 0x88 : 0x00) : (s ? 0x80 : 0x00);
          memset(buffers_[member]->data(), lowest, buffers_[member]->size());
        }
    } else {
      FillInts(kAZero);
      FillInts(kBZero);
    }
    FillInts(kOutZero);
    // Small data's zero points within 1 of the middle: the values' offsets from them are then
    // small too, and long sums stay near 0 instead of drifting by K times the offsets.
    if (c_.data == Data::kSmall)
      for (int member : {kAZero, kBZero, kOutZero})
        if (descs_[member])
          for (uint64_t i = 0; i < buffers_[member]->size(); ++i)
            buffers_[member]->data()[i] = static_cast<uint8_t>(static_cast<int>(rng_() % 3) - 1 +
                                                               (IsSigned(descs_[member]->type()) ? 0 : 128));
    // Scales that keep most outputs inside the 8-bit range: |acc| is about 128 * 128 * sqrt(K).
    const float spread = 128.0f * 128.0f * std::sqrt(static_cast<float>(c_.k)) / 40.0f;
    FillFloats(kAScale, 0.5f / 64, 2.0f / 64);
    FillFloats(kBScale, 0.5f / 64, 2.0f / 64);
    FillFloats(kOutScale, spread / (64.0f * 64.0f) * 0.5f, spread / (64.0f * 64.0f) * 2.0f);
    FillFloats(kBias, -1000.0f, 1000.0f);
    if (c_.signed_scales) {
      FillFloats(kAScale, -2.0f / 64, 2.0f / 64);
      FillFloats(kBScale, -2.0f / 64, 2.0f / 64);
    }
    if (c_.tie_out_scale != 0.0f) {
      SetScales(kAScale, [](uint32_t i) { return i & 1 ? 0.5f : 1.0f; });
      SetScales(kBScale, [](uint32_t j) { return j & 1 ? 0.5f : 1.0f; });
      const float out = c_.tie_out_scale;
      SetScales(kOutScale, [out](uint32_t i) { return i & 1 ? 2.0f * out : out; });
    }
  }

  QConfig c_;
  std::mt19937 rng_;
  std::optional<TensorDesc> descs_[kMembers];
  std::optional<GuardedBuffer> buffers_[kMembers];
  std::vector<uint32_t> four_d_sizes_[kMembers];
  std::vector<uint64_t> four_d_strides_[kMembers];
};

// Runs `c` through the library (on a pool of c.threads) and through the reference: the status,
// the output's bytes (gaps included) and its canaries.
// `problem` as built, or with its inputs' bytes changed since (the reference reads them as they
// are now), at `threads` threads.
inline void ExpectReferenceBytes(QProblem& problem, int threads) {
  const std::vector<uint8_t> expected = problem.Expected();
  pthreadpool_t pool = CreatePool(threads);
  const cpuml_status status = problem.Run(pool);
  DestroyPool(pool);
  ASSERT_EQ(status, CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  const std::vector<uint8_t> actual = problem.buffer(QProblem::kOut).Bytes();
  ASSERT_TRUE(problem.buffer(QProblem::kOut).CanariesIntact());
  if (actual != expected) {
    size_t first = 0;
    while (actual[first] == expected[first]) ++first;
    size_t wrong = 0;
    for (size_t i = 0; i < actual.size(); ++i) wrong += actual[i] != expected[i];
    FAIL() << wrong << " of " << actual.size() << " output bytes differ; first at byte " << first << ": got "
           << int(actual[first]) << ", reference " << int(expected[first]);
  }
}

inline void ExpectReferenceBytes(const QConfig& c) {
  QProblem problem(c);
  ExpectReferenceBytes(problem, c.threads);
}

}  // namespace cpuml_test

#endif  // CPUML_TESTS_QGEMM_SUPPORT_H_
