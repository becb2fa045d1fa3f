// The matrix-multiplication family's operator object (src/matmul_operator.h): bindings, owned
// copies, scratch, and the decoding of scales, zero points and bias for the driver's output
// stage; the driver (src/qgemm_driver.cc) does the rest. The operators differ only in their
// MatMulSpec (src/matmul_descriptors.cc).
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "kernels/common/half.h"
#include "src/dispatch.h"
#include "src/operator.h"
#include "src/qgemm_driver.h"
#include "src/qgemm_slices.h"
#include "src/matmul_operator.h"
#include "src/status.h"
#include "src/verbose.h"
#include "src/workspace.h"

namespace cpuml {
namespace {

// The FLOAT16 bits of f where f is a normal FLOAT16 number or zero, else -1. (FLOAT16 subnormals
// are left out: no tier need then think about how its conversion treats them.)
int32_t ExactHalf(float f) {
  const uint16_t half = FloatToHalf(f);
  const float back = HalfToFloat(half);
  const uint32_t exponent = half & 0x7C00u;
  const bool normal_or_zero = (half & 0x7FFFu) == 0 || (exponent != 0 && exponent != 0x7C00u);
  return normal_or_zero && memcmp(&back, &f, sizeof f) == 0 ? half : -1;
}

MatrixGrid DistinctMatrices(const Tensor& t) {
  MatrixGrid g;
  g.batches = t.strides[0] == 0 ? 1 : t.sizes[0];
  g.channels = t.strides[1] == 0 ? 1 : t.sizes[1];
  return g;
}

Int8Operand Operand(const Tensor& t, const uint8_t* data) {
  return {data, t.type == CPUML_TENSOR_DATA_TYPE_INT8, t.strides[0], t.strides[1], t.strides[2], t.strides[3],
          DistinctMatrices(t)};
}

class MatMulOperator final : public cpuml_operator {
 public:
  MatMulOperator(const MatMulDescriptor& d, const QGemmKernel& kernel, const char* tier_name)
      : d_(d), op_(d.spec->op), general_(MakePlan(kernel)), tier_name_(tier_name) {
    for (int i = 0; i < kOut; ++i) needs_initialize_ |= Owned(i);
  }

  cpuml_status CheckLimits() const { return general_.plan.CheckLimits(op_); }

  // A second plan for a kernel that needs B's values small (QGemmKernel::max_b_magnitude), used
  // when initialize finds that the owned B fits it. Call after CheckLimits.
  void OfferNarrowBKernel(const QGemmKernel& kernel) {
    if (&kernel == &general_.plan.kernel() || !d_.t[kB].owned) return;
    std::unique_ptr<Planned> narrow(new Planned(MakePlan(kernel)));
    if (narrow->plan.CheckLimits(op_) == CPUML_STATUS_SUCCESS) narrow_ = std::move(narrow);
  }

  // After CheckLimits: every size below is at most 2^62, so these sums cannot wrap.
  void PlanMemory() {
    LayOut(&general_);
    scratch_bytes_ = general_.scratch.total;
    uint64_t packed_b_bytes = general_.plan.packed_b_bytes();
    if (narrow_) {
      LayOut(narrow_.get());
      scratch_bytes_ = std::max(scratch_bytes_, narrow_->scratch.total);
      packed_b_bytes = std::max<uint64_t>(packed_b_bytes, narrow_->plan.packed_b_bytes());
    }
    persistent_bytes_ = 0;
    for (int i = 0; i < kOut; ++i)
      if (Owned(i) && !FoldedIntoB(i) && !KeptAsBlocks(i))
        persistent_bytes_ += i == kB ? packed_b_bytes : d_.t[i].reach_bytes;
    if (DecodesBlockScalesOnce()) {
      const size_t padded_n = std::max(general_.plan.padded_n(), narrow_ ? narrow_->plan.padded_n() : size_t{0});
      persistent_bytes_ += ScaleBlocks() * padded_n * sizeof(float);
    }
  }

  uint32_t InputCount() const override { return d_.spec->input_count; }
  CPUML_BINDING_PROPERTIES BindingProperties() const override { return {scratch_bytes_, persistent_bytes_}; }

  void Describe(char* buf, size_t size) const override {
    const NamedTensor tensors[] = {{"A", &d_.t[kA]}, {"B", &d_.t[kB]}, {"Output", &d_.t[kOut]}};
    DescribeOperator(buf, size, op_, tensors, 3, tier_name_, active_->plan.kernel().name);
  }

  cpuml_status Initialize(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count) override {
    if (!needs_initialize_) return CPUML_STATUS_SUCCESS;
    if (input_count == 0)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: initialize needs the %u input bindings (some inputs are OWNED_BY_CPUML)",
                  op_, static_cast<unsigned>(InputCount()));
    for (int i = 0; i < kOut; ++i) {
      if (!Owned(i)) continue;
      if (cpuml_status s = CheckMemberBinding(inputs[d_.binding[i]], i)) return s;
      if (IsFloatVector(i))
        if (cpuml_status s = CheckFloats(static_cast<const uint8_t*>(inputs[d_.binding[i]].Data), i)) return s;
    }
    // All checked: now nothing can fail but allocation.
    for (int i = 0; i < kOut; ++i) {
      if (!Owned(i)) continue;
      const CPUML_BUFFER_BINDING& binding = inputs[d_.binding[i]];
      if (FoldedIntoB(i) || KeptAsBlocks(i)) continue;
      if (i == kB && general_.plan.format().Nibbles()) {
        // 4-bit B in its own layout (no 8-bit copy), zero points beside each block, or once for
        // all of them where they are one value.
        ShareZeroPoint(SharedZeroPoint(inputs));
        Workspace packed = AllocateWorkspace(active_->plan.packed_b_bytes());
        const Tensor& t = d_.t[kB];
        const Int4Matrix b{static_cast<const uint8_t*>(binding.Data), t.type == CPUML_TENSOR_DATA_TYPE_INT4, 0,
                           t.strides[2], t.strides[3]};
        Int4Matrix zero_point{};
        if (Owned(kBZeroPoint)) {
          const Tensor& z = d_.t[kBZeroPoint];
          zero_point = {static_cast<const uint8_t*>(inputs[d_.binding[kBZeroPoint]].Data), b.is_signed, 0,
                        z.sizes[2] == 1 ? 0 : z.strides[2], z.sizes[3] == 1 ? 0 : z.strides[3]};
        }
        active_->plan.PackB4(b, t.strides[0], t.strides[1], Owned(kBZeroPoint) ? &zero_point : nullptr, packed.get(),
                             nullptr);
        packed_b_ = std::move(packed);
      } else if (i == kB) {
        // 4-bit B: each value less its zero point, in [-15, 15], as INT8 for the 8-bit packing.
        Workspace unpacked;
        Int8Operand b = Operand(d_.t[kB], static_cast<const uint8_t*>(binding.Data));
        if (d_.t[kB].nibbles) {
          unpacked = AllocateWorkspace(UnpackedBBytes());
          UnpackB4(static_cast<const uint8_t*>(binding.Data),
                   Owned(kBZeroPoint) ? static_cast<const uint8_t*>(inputs[d_.binding[kBZeroPoint]].Data) : nullptr,
                   unpacked.get());
          b = UnpackedBOperand(unpacked.get());
        }
        const Planned* chosen = &general_;
        if (narrow_ && BFitsMagnitude(b, d_.t[kB].sizes[2], d_.t[kB].sizes[3], narrow_->plan.kernel().max_b_magnitude))
          chosen = narrow_.get();
        Workspace packed = AllocateWorkspace(chosen->plan.packed_b_bytes());
        chosen->plan.PackB(b, packed.get(), nullptr);
        packed_b_ = std::move(packed);
        active_ = chosen;
      } else {
        Workspace copy = AllocateWorkspace(d_.t[i].reach_bytes);
        memcpy(copy.get(), binding.Data, d_.t[i].reach_bytes);
        owned_[i] = std::move(copy);
      }
    }
    // Owned blockwise B scales, decoded once for the plan initialize chose (checked above).
    if (DecodesBlockScalesOnce()) {
      const size_t padded_n = active_->plan.padded_n(), n = d_.t[kOut].sizes[3];
      Workspace decoded = AllocateWorkspace(ScaleBlocks() * padded_n * sizeof(float));
      float* values = reinterpret_cast<float*>(decoded.get());
      const size_t blocks = ScaleBlocks(), nr = active_->plan.format().nr;
      std::vector<float> row(active_->plan.format().Nibbles() ? padded_n : 0);
      for (size_t c = 0; c < blocks; ++c) {
        const uint8_t* scales = static_cast<const uint8_t*>(inputs[d_.binding[kBScale]].Data) +
                                c * d_.t[kBScale].strides[2] * sizeof(float);
        if (row.empty()) {
          (void)ReadScales(scales, kBScale, n, 3, padded_n, values + c * padded_n);
          continue;
        }
        // The 4-bit kernels' order, [panel][block][nr]: a panel's scales follow its data.
        (void)ReadScales(scales, kBScale, n, 3, padded_n, row.data());
        for (size_t j = 0; j < padded_n; ++j) values[(j / nr * blocks + c) * nr + j % nr] = row[j];
      }
      block_scales_ = std::move(decoded);
      block_scales_half_ = !row.empty() && KeepScalesAsHalves(blocks * padded_n);
    }
    initialized_ = true;
    return CPUML_STATUS_SUCCESS;
  }

  cpuml_status Execute(const CPUML_BUFFER_BINDING* inputs, const CPUML_BUFFER_BINDING* outputs, uint8_t* scratch,
                       pthreadpool_t pool) override;

 private:
  bool Owned(int member) const { return d_.present[member] && d_.t[member].owned; }
  // Owned blockwise B scales are kept only as decoded at initialize (block_scales_), not copied.
  bool KeptAsBlocks(int member) const { return member == kBScale && DecodesBlockScalesOnce(); }
  // A 4-bit B's zero points are packed with B or subtracted from it as it is unpacked: not kept.
  bool FoldedIntoB(int member) const { return member == kBZeroPoint && d_.t[kB].nibbles; }

  // A 4-bit B unpacked at initialize: its distinct matrices as K x N INT8, row-major.
  uint64_t UnpackedBBytes() const {
    return uint64_t{DistinctMatrices(d_.t[kB]).Count()} * d_.t[kB].sizes[2] * d_.t[kB].sizes[3];
  }
  Int8Operand UnpackedBOperand(const uint8_t* data) const {
    const MatrixGrid grid = DistinctMatrices(d_.t[kB]);
    const uint64_t kn = uint64_t{d_.t[kB].sizes[2]} * d_.t[kB].sizes[3];
    return {data, true, grid.channels * kn, kn, d_.t[kB].sizes[3], 1, grid};
  }
  // value(B[k][n]) - value(BZeroPoint[n]) for every distinct matrix: the sums are then those of the
  // formula with no B zero point left (docs/semantics.md). Only a B without block scales comes
  // here, K past one exact chunk: every tier has 4-bit kernels for every M (MatMulInt4Kernels).
  void UnpackB4(const uint8_t* b, const uint8_t* zero_point, uint8_t* out) const {
    const Tensor& t = d_.t[kB];
    const Tensor& z = d_.t[kBZeroPoint];
    const MatrixGrid grid = DistinctMatrices(t);
    const bool is_signed = t.type == CPUML_TENSOR_DATA_TYPE_INT4;
    auto nibble = [is_signed](const uint8_t* data, uint64_t offset) {
      const int32_t v = (data[offset / 2] >> (offset % 2 * 4)) & 0xF;
      return is_signed ? (v ^ 8) - 8 : v;
    };
    const uint32_t k_count = t.sizes[2], n_count = t.sizes[3];
    for (size_t bi = 0; bi < grid.batches; ++bi)
      for (size_t ci = 0; ci < grid.channels; ++ci) {
        const uint64_t base = bi * t.strides[0] + ci * t.strides[1];
        for (uint32_t k = 0; k < k_count; ++k)
          for (uint32_t n = 0; n < n_count; ++n) {
            int32_t v = nibble(b, base + k * t.strides[2] + n * t.strides[3]);
            if (zero_point) {
              const uint64_t column = z.sizes[3] == 1 ? 0 : n;
              v -= nibble(zero_point, column * z.strides[3]);
            }
            *out++ = static_cast<uint8_t>(static_cast<int8_t>(v));
          }
      }
  }

  // A plan and where one execute's scratch regions lie for it (byte offsets, 64-byte aligned).
  // `sliced` runs it instead where its whole-matrix workspaces would be too large; its
  // workspace then starts at packed_a.
  struct Planned {
    QGemmPlan plan;
    struct {
      size_t quantization = 0, packed_a = 0, row_terms = 0, packed_b = 0, total = 0;
    } scratch;
    std::unique_ptr<QGemmSlicedPlan> sliced;
  };

  // Blockwise B scales make K's chunks the blocks: each block's sum comes back exact, and the
  // front end combines the blocks in float (BlockwiseFloatTile).
  Planned MakePlan(const QGemmKernel& kernel, int shared_zero_point = -1) const {
    return {QGemmPlan(kernel, d_.t[kOut].sizes[0], d_.t[kOut].sizes[1], d_.t[kOut].sizes[2], d_.t[kOut].sizes[3],
                      d_.t[kA].sizes[3], DistinctMatrices(d_.t[kA]), DistinctMatrices(d_.t[kB]),
                      d_.b_block ? d_.b_block : QGemmPlan::kMaxExactK, shared_zero_point,
                      d_.t[kA].type == CPUML_TENSOR_DATA_TYPE_UINT8 || d_.present[kAZeroPoint]),
            {},
            nullptr};
  }

  // The one zero point of every block and column of the owned 4-bit B, in the packing's domain
  // (the value, or the value + 8 for INT4: BShift), or -1 where they differ. Without a
  // BZeroPointTensor the zero point is 0, so u's is 0 for UINT4 and 8 for INT4. ONNX Runtime's
  // MatMulNBits without zero points (8) maps to INT4 B, or to a BZeroPointTensor of 8s.
  int SharedZeroPoint(const CPUML_BUFFER_BINDING* inputs) const {
    const int shift = BShift(general_.plan.format().packing, d_.t[kB].type == CPUML_TENSOR_DATA_TYPE_INT4);
    if (!d_.present[kBZeroPoint]) return shift;
    const Tensor& z = d_.t[kBZeroPoint];
    const uint8_t* data = static_cast<const uint8_t*>(inputs[d_.binding[kBZeroPoint]].Data);
    auto nibble = [data](uint64_t index) { return (data[index / 2] >> (index % 2 * 4)) & 0xF; };
    const uint64_t row_stride = z.sizes[2] == 1 ? 0 : z.strides[2], col_stride = z.sizes[3] == 1 ? 0 : z.strides[3];
    const int first = nibble(0);
    for (uint64_t r = 0; r < z.sizes[2]; ++r)
      for (uint64_t c = 0; c < z.sizes[3]; ++c)
        if (nibble(r * row_stride + c * col_stride) != first) return -1;
    return first ^ shift;  // INT4's nibble v is v - 16 (v >= 8); plus 8 is v XOR 8
  }

  // The 4-bit plan's decoded scales (block_scales_, `count` of them) as FLOAT16 where every one
  // is exactly a normal FLOAT16 number or zero, as a model quantized in half precision or
  // llama.cpp's Q4_0 gives them: a block of 32 then reads 18 bytes a column per token with shared
  // zero points, as Q4_0 itself does, instead of 20. The conversion back is exact on every tier.
  bool KeepScalesAsHalves(size_t count) {
    const float* values = reinterpret_cast<const float*>(block_scales_.get());
    Workspace halves = AllocateWorkspace(count * sizeof(uint16_t));
    uint16_t* bits = reinterpret_cast<uint16_t*>(halves.get());
    for (size_t i = 0; i < count; ++i) {
      const int32_t half = ExactHalf(values[i]);
      if (half < 0) return false;
      bits[i] = static_cast<uint16_t>(half);
    }
    block_scales_ = std::move(halves);
    return true;
  }

  // Runs the 4-bit plan whose panels leave out the zero points when there is one value for all
  // (shared_zero_point >= 0): a block of 32 then reads 20 bytes a column per token, not 21 (16 of
  // nibbles, 4 of scale, 1 of zero point). The same workspaces otherwise, and fewer persistent
  // bytes than PlanMemory reported.
  void ShareZeroPoint(int shared_zero_point) {
    active_ = &general_;
    shared_.reset();
    if (shared_zero_point < 0) return;
    std::unique_ptr<Planned> shared(new Planned(MakePlan(general_.plan.kernel(), shared_zero_point)));
    LayOut(shared.get());
    if (shared->scratch.total > scratch_bytes_ || shared->plan.packed_b_bytes() > general_.plan.packed_b_bytes()) return;
    shared_ = std::move(shared);
    active_ = shared_.get();
  }
  size_t ScaleBlocks() const { return d_.b_block ? d_.t[kBScale].sizes[2] : 0; }
  // Owned blockwise B scales are decoded at initialize (O(blocks x N), a cost of the weights, not of
  // each execute); others into each execute's scratch.
  bool DecodesBlockScalesOnce() const { return d_.b_block && Owned(kBScale); }
  size_t ScratchScaleBlocks() const { return DecodesBlockScalesOnce() ? 0 : ScaleBlocks(); }
  // A's scales per row and block ({1,1,M or 1,blocks}), decoded into each execute's scratch.
  size_t AScaleBlocks() const { return d_.b_block && d_.t[kAScale].sizes[3] > 1 ? d_.t[kAScale].sizes[3] : 0; }

  void LayOut(Planned* p) const {
    size_t offset = 0;
    auto take = [&](size_t bytes) {
      const size_t at = offset;
      offset += (bytes + 63) & ~size_t{63};
      return at;
    };
    const QGemmPlan& plan = p->plan;
    p->scratch.quantization =
        take(QGemmQuantization::Bytes(plan.padded_m(), plan.padded_n(), ScratchScaleBlocks(), AScaleBlocks()));
    const bool packs_b = !d_.t[kB].owned;
    // Each size is at most 2^62 (CheckLimits), so the sums cannot wrap.
    const uint64_t whole = uint64_t{plan.packed_a_bytes()} + plan.row_terms_bytes() + (packs_b ? plan.packed_b_bytes() : 0);
    const uint64_t per_matrix =
        plan.packed_a_bytes() / plan.a_grid().Count() + (packs_b ? plan.packed_b_bytes() / plan.b_grid().Count() : 0);
    // Sliced where one matrix's workspaces are large (many small batches are faster whole, and
    // their workspaces are about their inputs' size). Blockwise scales and 4-bit B join their K
    // blocks in float inside a tile: never sliced.
    if (whole > QGemmSlicedPlan::kWholeWorkspaceBytes && per_matrix > 2 * QGemmSlicedPlan::kSliceBytes &&
        !d_.b_block && !d_.t[kB].nibbles) {
      p->sliced.reset(new QGemmSlicedPlan(plan));
      p->scratch.packed_a = take(p->sliced->WorkspaceBytes(packs_b));
      p->scratch.total = offset;
      return;
    }
    p->scratch.packed_a = take(plan.packed_a_bytes());
    p->scratch.row_terms = take(plan.row_terms_bytes());
    p->scratch.packed_b = d_.t[kB].owned ? 0 : take(plan.packed_b_bytes());
    p->scratch.total = offset;
  }

  cpuml_status CheckMemberBinding(const CPUML_BUFFER_BINDING& binding, int role) const {
    char where[96];
    snprintf(where, sizeof where, "%s: %s", op_, d_.name[role]);
    return CheckBinding(binding, d_.t[role], where);
  }

  // The float vectors the stage reads: the scales, and the bias.
  bool IsFloatVector(int role) const { return role == kAScale || role == kBScale || role == kOutScale || role == kBias; }

  // Scales of a requantization must be finite and > 0 (the clamp and rounding are defined for
  // those); the float stage's scales and bias need only be finite. False for NaN.
  static bool ValidFloat(bool requantize, float v) {
    return requantize ? (v > 0.0f) & (v <= FLT_MAX) : (v >= -FLT_MAX) & (v <= FLT_MAX);
  }
  bool Requantizes() const { return d_.spec->stage == QGemmStage::kRequantize8; }
  const char* FloatRule(int role) const {
    if (role == kBias) return "a bias must be finite";
    return Requantizes() ? "scales must be finite and > 0" : "scales must be finite";
  }

  // Checks every element of a float vector, or of blockwise B scales (an owned one at initialize).
  cpuml_status CheckFloats(const uint8_t* data, int role) const {
    const Tensor& t = d_.t[role];
    const int dim = (role == kBScale || role == kBias) ? 3 : 2;
    const size_t blocks = role == kBScale ? ScaleBlocks() : 0;
    const float* s = reinterpret_cast<const float*>(data);
    for (size_t c = 0; c < std::max<size_t>(blocks, 1); ++c)
      for (size_t i = 0; i < t.sizes[dim]; ++i) {
        const float v = s[c * t.strides[2] + i * t.strides[dim]];
        if (!ValidFloat(Requantizes(), v))
          return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s element %zu is %g: %s", op_, d_.name[role],
                      c * t.sizes[dim] + i, static_cast<double>(v), FloatRule(role));
      }
    return CPUML_STATUS_SUCCESS;
  }

  // Scales and bias (ValidFloat), else an error before anything is written. `dim` is the indexed
  // dimension (2: per row, 3: per column). Decoding runs on the calling thread before any task
  // (O(M + N) per execute), so its loops are kept free of per-element branches and aliasing and
  // vectorize: a 1x4096x4096 execute spent 8 us (3%) in them on Zen 4 when they did not.
  cpuml_status ReadScales(const uint8_t* data, int role, size_t count, int dim, size_t padded,
                          float* __restrict values) const {
    const Tensor& t = d_.t[role];
    const float* __restrict s = reinterpret_cast<const float*>(data);
    const bool broadcast = t.sizes[dim] == 1;
    const uint64_t stride = t.strides[dim];
    const bool requantize = Requantizes();
    auto valid = [requantize](float v) { return ValidFloat(requantize, v); };
    bool all_valid = true;
    if (broadcast) {
      all_valid = valid(s[0]);
      std::fill(values, values + count, s[0]);
    } else if (stride == 1) {
      for (size_t i = 0; i < count; ++i) {
        values[i] = s[i];
        all_valid &= valid(s[i]);
      }
    } else {
      for (size_t i = 0; i < count; ++i) {
        values[i] = s[i * stride];
        all_valid &= valid(values[i]);
      }
    }
    if (!all_valid) {
      size_t i = 0;
      while (valid(values[i])) ++i;
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s element %zu is %g: %s", op_, d_.name[role],
                  broadcast ? size_t{0} : i, static_cast<double>(values[i]), FloatRule(role));
    }
    std::fill(values + count, values + padded, role == kBias ? 0.0f : 1.0f);
    return CPUML_STATUS_SUCCESS;
  }

  void ReadZeroPoints(const uint8_t* data, int role, size_t count, int dim, size_t padded,
                      int32_t* __restrict values) const {
    const Tensor& t = d_.t[role];
    if (!d_.present[role] || FoldedIntoB(role)) count = 0;
    const bool is_signed = t.type == CPUML_TENSOR_DATA_TYPE_INT8;
    auto value = [is_signed](uint8_t raw) { return is_signed ? int32_t{static_cast<int8_t>(raw)} : int32_t{raw}; };
    if (count && t.sizes[dim] == 1) {
      std::fill(values, values + count, value(data[0]));
    } else if (count && t.strides[dim] == 1) {
      for (size_t i = 0; i < count; ++i) values[i] = value(data[i]);
    } else {
      for (size_t i = 0; i < count; ++i) values[i] = value(data[i * t.strides[dim]]);
    }
    std::fill(values + count, values + padded, 0);
  }

  cpuml_status Decode(const QGemmPlan& plan, const uint8_t* const* data, QGemmQuantization* q) const;

  // Scratch kept by the operator for callers that pass none: one per concurrent caller, made on
  // first need, so after the first call such an execute allocates nothing either.
  Workspace AcquireScratch() {
    {
      std::lock_guard<std::mutex> lock(scratch_mutex_);
      if (!idle_scratch_.empty()) {
        Workspace b = std::move(idle_scratch_.back());
        idle_scratch_.pop_back();
        return b;
      }
      // Room to keep every buffer made, so that giving one back never allocates.
      idle_scratch_.reserve(++scratch_count_);
    }
    return AllocateWorkspace(scratch_bytes_);
  }

  void ReleaseScratch(Workspace b) {
    std::lock_guard<std::mutex> lock(scratch_mutex_);
    idle_scratch_.push_back(std::move(b));
  }

  cpuml_status Run(const uint8_t* const* data, uint8_t* output, uint8_t* scratch, pthreadpool_t pool) const;

  const MatMulDescriptor d_;
  const char* const op_;
  Planned general_;
  std::unique_ptr<Planned> narrow_;        // see OfferNarrowBKernel
  std::unique_ptr<Planned> shared_;        // see ShareZeroPoint
  // narrow_ once initialize has found that B fits it; shared_ once it has found B's zero points one
  const Planned* active_ = &general_;
  bool needs_initialize_ = false, initialized_ = false;
  Workspace packed_b_;
  Workspace block_scales_;  // DecodesBlockScalesOnce: [block][padded column] for active_'s plan
  bool block_scales_half_ = false;  // block_scales_ holds FLOAT16 bits (KeepScalesAsHalves)
  Workspace owned_[kMatMulRoleCount];
  const char* const tier_name_;
  size_t scratch_bytes_ = 0;  // the larger of the plans' scratch
  uint64_t persistent_bytes_ = 0;
  std::mutex scratch_mutex_;
  std::vector<Workspace> idle_scratch_;
  size_t scratch_count_ = 0;
};

cpuml_status MatMulOperator::Decode(const QGemmPlan& plan, const uint8_t* const* data, QGemmQuantization* q) const {
  const size_t m = d_.t[kOut].sizes[2], n = d_.t[kOut].sizes[3];
  const size_t padded_m = plan.padded_m(), padded_n = plan.padded_n();
  const QGemmStage stage = d_.spec->stage;
  if (stage == QGemmStage::kRequantize8) {
    if (cpuml_status s = ReadScales(data[kAScale], kAScale, m, 2, padded_m, q->a_scale)) return s;
    if (cpuml_status s = ReadScales(data[kBScale], kBScale, n, 3, padded_n, q->b_scale)) return s;
    if (cpuml_status s = ReadScales(data[kOutScale], kOutScale, m, 2, padded_m, q->out_scale)) return s;
    // Per-tensor A and output scales: the multiplier depends on the column alone.
    if (d_.t[kAScale].sizes[2] == 1 && d_.t[kOutScale].sizes[2] == 1) {
      q->multiplier = q->multiplier_memory;
      const float a_scale = q->a_scale[0], out_scale = q->out_scale[0];
      const float* __restrict b_scale = q->b_scale;
      float* __restrict multiplier = q->multiplier;
      for (size_t j = 0; j < padded_n; ++j) multiplier[j] = (a_scale * b_scale[j]) / out_scale;
    }
  } else if (stage == QGemmStage::kFloat32) {
    if (cpuml_status s = ReadScales(data[kAScale], kAScale, m, 2, padded_m, q->a_scale)) return s;
    // A's scales per row and block: block c's column of them.
    for (size_t c = 0; c < AScaleBlocks(); ++c) {
      const uint8_t* block_column = data[kAScale] + c * d_.t[kAScale].strides[3] * sizeof(float);
      if (cpuml_status s = ReadScales(block_column, kAScale, m, 2, padded_m, q->block_a_scale + c * padded_m)) return s;
    }
    // Blockwise B scales are read by block (below, or once at initialize), never as b_scale: their
    // first row would be N reads a column apart, on the calling thread, before any task starts
    // (1x4096x11008 at block 128, 16 threads on the device: 180-212 us before, about 130 after, on
    // two instances of the machine).
    if (!d_.b_block)
      if (cpuml_status s = ReadScales(data[kBScale], kBScale, n, 3, padded_n, q->b_scale)) return s;
    // Blockwise B scales: block c's row of them (BlockwiseFloatTile reads these, not b_scale).
    for (size_t c = 0; c < ScratchScaleBlocks(); ++c) {
      const uint8_t* block_row = data[kBScale] + c * d_.t[kBScale].strides[2] * sizeof(float);
      if (cpuml_status s = ReadScales(block_row, kBScale, n, 3, padded_n, q->block_b_scale + c * padded_n)) return s;
    }
    q->bias = nullptr;
    if (d_.present[kBias]) {
      if (cpuml_status s = ReadScales(data[kBias], kBias, n, 3, padded_n, q->bias_memory)) return s;
      q->bias = q->bias_memory;
    }
    // A per-tensor A scale: AScale * BScale[n] depends on the column alone.
    if (d_.t[kAScale].sizes[2] == 1 && !d_.b_block) {
      q->multiplier = q->multiplier_memory;
      const float a_scale = q->a_scale[0];
      const float* __restrict b_scale = q->b_scale;
      float* __restrict multiplier = q->multiplier;
      for (size_t j = 0; j < padded_n; ++j) multiplier[j] = a_scale * b_scale[j];
    }
  }
  ReadZeroPoints(data[kAZeroPoint], kAZeroPoint, m, 2, padded_m, q->a_zero_point);
  // A 4-bit layout holds B's zero points in its panels (PackB4Block): no column terms to decode.
  if (plan.format().Nibbles()) {
    q->use_col_b = false;
    return CPUML_STATUS_SUCCESS;
  }
  ReadZeroPoints(data[kBZeroPoint], kBZeroPoint, n, 3, padded_n, q->b_zero_point);
  const bool b_signed = d_.t[kB].type == CPUML_TENSOR_DATA_TYPE_INT8 || d_.t[kB].nibbles;  // unpacked as INT8
  const int32_t* __restrict b_zero_point = q->b_zero_point;
  int32_t* __restrict col_b = q->col_b;
  const int32_t b_shift = ColumnTermB(plan.format().packing, b_signed, 0);
  int32_t any_col_b = 0;
  for (size_t j = 0; j < n; ++j) {
    col_b[j] = b_zero_point[j] + b_shift;
    any_col_b |= col_b[j];
  }
  std::fill(col_b + n, col_b + padded_n, 0);
  q->use_col_b = any_col_b != 0;
  if (stage != QGemmStage::kRequantize8) return CPUML_STATUS_SUCCESS;
  ReadZeroPoints(data[kOutZeroPoint], kOutZeroPoint, m, 2, padded_m, q->out_zero_point);
  const bool out_signed = d_.t[kOut].type == CPUML_TENSOR_DATA_TYPE_INT8;
  const int32_t type_min = out_signed ? -128 : 0, type_max = out_signed ? 127 : 255;
  const int32_t* __restrict out_zero_point = q->out_zero_point;
  float* __restrict out_min = q->out_min;
  float* __restrict out_max = q->out_max;
  for (size_t i = 0; i < padded_m; ++i) {
    out_min[i] = static_cast<float>(type_min - out_zero_point[i]);
    out_max[i] = static_cast<float>(type_max - out_zero_point[i]);
  }
  return CPUML_STATUS_SUCCESS;
}

cpuml_status MatMulOperator::Execute(const CPUML_BUFFER_BINDING* inputs, const CPUML_BUFFER_BINDING* outputs,
                                     uint8_t* scratch, pthreadpool_t pool) {
  if (needs_initialize_ && !initialized_)
    return Fail(CPUML_STATUS_INVALID_STATE,
                "%s: some inputs are OWNED_BY_CPUML: call cpuml_initialize_operator before execute", op_);
  const uint8_t* data[kMatMulRoleCount] = {};
  for (int i = 0; i < kOut; ++i) {
    if (!d_.present[i]) continue;
    if (d_.t[i].owned) {
      data[i] = owned_[i].get();  // NULL for B: its packed form is used instead
      continue;
    }
    if (cpuml_status s = CheckMemberBinding(inputs[d_.binding[i]], i)) return s;
    data[i] = static_cast<const uint8_t*>(inputs[d_.binding[i]].Data);
  }
  if (cpuml_status s = CheckMemberBinding(outputs[0], kOut)) return s;
  for (int i = 0; i < kOut; ++i) {
    if (!d_.present[i] || d_.t[i].owned) continue;
    if (cpuml_status s = CheckNoOverlap(op_, outputs[0], d_.t[kOut], d_.name[kOut], inputs[d_.binding[i]], d_.t[i],
                                        d_.name[i]))
      return s;
  }
  uint8_t* output = static_cast<uint8_t*>(outputs[0].Data);
  if (scratch != nullptr) return Run(data, output, scratch, pool);
  Workspace own = AcquireScratch();
  const cpuml_status status = Run(data, output, own.get(), pool);
  ReleaseScratch(std::move(own));
  return status;
}

cpuml_status MatMulOperator::Run(const uint8_t* const* data, uint8_t* output, uint8_t* scratch, pthreadpool_t pool) const {
  const QGemmPlan& plan = active_->plan;
  const auto& regions = active_->scratch;
  QGemmQuantization q =
      QGemmQuantization::In(scratch + regions.quantization, plan.padded_m(), plan.padded_n(), ScratchScaleBlocks(),
                            AScaleBlocks());
  if (DecodesBlockScalesOnce()) {
    q.block_b_scale = reinterpret_cast<float*>(block_scales_.get());
    q.block_b_scale_by_panel = plan.format().Nibbles();
    if (block_scales_half_) {
      q.block_b_scale = nullptr;
      q.block_b_scale_half = reinterpret_cast<const uint16_t*>(block_scales_.get());
    }
  }
  if (cpuml_status s = Decode(plan, data, &q)) return s;
  const Tensor& o = d_.t[kOut];
  const uint64_t e = o.element_size;  // strides * e <= reach_bytes, checked at create
  const QGemmOutput out{output,           d_.spec->stage,   o.type == CPUML_TENSOR_DATA_TYPE_INT8,
                        o.strides[0] * e, o.strides[1] * e, o.strides[2] * e,
                        o.strides[3] * e, false};
  if (active_->sliced) {
    const bool owned = d_.t[kB].owned;
    active_->sliced->Run(Operand(d_.t[kA], data[kA]), owned ? Int8Operand{} : Operand(d_.t[kB], data[kB]),
                         owned ? packed_b_.get() : nullptr, q, out, scratch + regions.packed_a, pool);
    return CPUML_STATUS_SUCCESS;
  }
  // B: prepacked at initialize, or packed now into this call's scratch.
  const uint8_t* packed_b = packed_b_.get();
  if (!d_.t[kB].owned) {
    plan.PackB(Operand(d_.t[kB], data[kB]), scratch + regions.packed_b, pool);
    packed_b = scratch + regions.packed_b;
  }
  plan.Run(Operand(d_.t[kA], data[kA]), packed_b, q, out, scratch + regions.packed_a, scratch + regions.row_terms,
           pool);
  return CPUML_STATUS_SUCCESS;
}

}  // namespace

cpuml_status CreateMatMulOperator(const MatMulSpec& spec, const CPUML_TENSOR_DESC* const* members, cpuml_operator** out) {
  MatMulDescriptor d;
  if (cpuml_status s = ValidateMatMul(spec, members, &d)) return s;
  const TierChoice tier = GemmTier();
  const uint64_t m = d.t[kOut].sizes[2];
  // A 4-bit B stays 4-bit in kernels of its own where the tier has them for M, when its blocks are
  // exact int32 sums joined in float: blockwise scales, or K in one exact chunk.
  const bool blocks_4bit = d.t[kB].nibbles && (d.b_block || d.t[kA].sizes[3] <= QGemmPlan::kMaxExactK);
  const QGemmKernel& kernel = SelectQGemmKernel(*tier.kernels, m, kUncheckedB, blocks_4bit);
  std::unique_ptr<MatMulOperator> op(new MatMulOperator(d, kernel, tier.name));
  if (cpuml_status s = op->CheckLimits()) return s;
  // Magnitude 0 meets every B bound: the kernel initialize may switch to if the owned B allows.
  if (!HoldsNibbles(kernel.packing)) op->OfferNarrowBKernel(SelectQGemmKernel(*tier.kernels, m, 0));
  op->PlanMemory();
  *out = op.release();
  return CPUML_STATUS_SUCCESS;
}

}  // namespace cpuml
