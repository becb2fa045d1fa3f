// DYNAMIC_QUANTIZE_LINEAR: validation, the range of the input (per tensor or per row), the scale
// and zero point from it, and the rows handed to the tier's QuantizeKernels. The formula is in
// docs/semantics.md and include/cpuml/cpuml.h.
#include <math.h>
#include <pthreadpool.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>

#include "kernels/common/half.h"
#include "src/dispatch.h"
#include "src/operator.h"
#include "src/status.h"
#include "src/tensor.h"
#include "src/verbose.h"

namespace cpuml {
namespace {

constexpr const char* kOp = "DYNAMIC_QUANTIZE_LINEAR";
enum Member { kInput, kOutput, kScale, kZeroPoint, kMemberCount };
const char* const kMemberNames[kMemberCount] = {"InputTensor", "OutputTensor", "OutputScaleTensor",
                                                "OutputZeroPointTensor"};

// Rows are read and written through stack buffers of this many elements where they are not
// contiguous float32 and bytes (FLOAT16 input, strided rows): no scratch.
constexpr size_t kChunk = 1024;
// Work of one task, in elements: a long row is split, so one row of a large tensor still spreads
// over the threads.
constexpr uint64_t kElementsPerTask = 64 * 1024;
// Per-tensor ranges are reduced in at most this many task slots, on the stack.
constexpr size_t kMaxRangeTasks = 256;
// Where the input streams from memory (streaming stores: past the last-level cache), the quantize
// pass of a row requests the input of a row at least this many bytes on, and at least two rows on:
// the next row alone left each row's last lines arriving as its range pass began. AMD EPYC Zen 5,
// one thread, 64 MiB per row, fraction of the read probe in one process: rows of 4096 floats 0.59
// -> 0.78 (two rows on), rows of 1024 0.58 -> 0.84 (four on). In cache it requests the next row:
// three rows of 4096 floats overflow a 48 KB L1 (1 MiB per row, two rows on: 0.88x).
constexpr uint64_t kPrefetchLeadBytes = 16 * 1024;
// Input of a task when the bytes stream past the caches, so each task's one fence (Job::FinishTask)
// is a small part of its time; below that size a task is a row, for the balance of small tensors.
constexpr uint64_t kStreamingTaskBytes = 64 * 1024;

// The block size b of {16, 32, 64, 128, 256} with ceil(k / b) = blocks, else 0 (at most one fits
// a given count: the matmuls' blockwise scales follow the same rule, kMatMulBlockSizes).
uint32_t BlockOf(uint64_t k, uint64_t blocks) {
  for (uint32_t b : {16u, 32u, 64u, 128u, 256u})
    if ((k + b - 1) / b == blocks) return b;
  return 0;
}

// The scale and zero point of [lo, hi] (lo <= 0 <= hi), ONNX DynamicQuantizeLinear's rule,
// each operation in float32.
void Parameters(float lo, float hi, int32_t qmin, int32_t qmax, float* scale, int32_t* zero_point) {
  const float range = hi == lo ? 1.0f : hi - lo;
  const float s = range / static_cast<float>(qmax - qmin);
  float z = static_cast<float>(qmin) - lo / s;
  if (!(z >= static_cast<float>(qmin))) z = static_cast<float>(qmin);  // NaN too (an infinite range)
  if (z > static_cast<float>(qmax)) z = static_cast<float>(qmax);
  *scale = s;
  *zero_point = static_cast<int32_t>(nearbyintf(z));
}

// Whether every row of t (the rows of its three leading dimensions, in order) lies `step` elements
// after the one before, the batch dimensions continuing the rows' stride; then *step is set.
bool UniformRows(const Tensor& t, uint64_t* step) {
  const uint64_t s = t.strides[2];
  uint64_t per_channel = 0, per_batch = 0;
  if (__builtin_mul_overflow(s, uint64_t{t.sizes[2]}, &per_channel) ||
      __builtin_mul_overflow(per_channel, uint64_t{t.sizes[1]}, &per_batch))
    return false;
  if ((t.sizes[1] > 1 && t.strides[1] != per_channel) || (t.sizes[0] > 1 && t.strides[0] != per_batch)) return false;
  *step = s;
  return true;
}

class DynamicQuantizeLinear final : public cpuml_operator {
 public:
  DynamicQuantizeLinear(const Tensor* t, const TierChoice& tier) : kernels_(*tier.kernels->quantize), tier_name_(tier.name) {
    for (int i = 0; i < kMemberCount; ++i) t_[i] = t[i];
    per_row_ = t_[kScale].sizes[0] != 1 || t_[kScale].sizes[1] != 1 || t_[kScale].sizes[2] != 1;
    symmetric_ = t_[kZeroPoint].type == 0;  // no zero point: INT8, symmetric, per row or per (row, block)
    const bool is_signed = t_[kOutput].type == CPUML_TENSOR_DATA_TYPE_INT8;
    qmin_ = is_signed ? -128 : 0;
    qmax_ = is_signed ? 127 : 255;
    rows_ = uint64_t{t_[kInput].sizes[0]} * t_[kInput].sizes[1] * t_[kInput].sizes[2];
    row_length_ = t_[kInput].sizes[3];
    block_ = symmetric_ && t_[kScale].sizes[3] > 1 ? BlockOf(row_length_, t_[kScale].sizes[3]) : row_length_;
    // Past this core's share of the last-level cache, the bytes would be evicted by the input
    // before anything reads them: streaming stores then save reading every output line before
    // writing it (AMD EPYC Zen 5, one thread, 64 MiB per row: 1.15x).
    streaming_ = t_[kInput].reach_bytes + t_[kOutput].reach_bytes > LastLevelCacheBytes();
    const uint64_t row_bytes = std::max<uint64_t>(1, row_length_ * sizeof(float));
    prefetch_rows_ = streaming_ ? std::max<uint64_t>(2, (kPrefetchLeadBytes + row_bytes - 1) / row_bytes) : 1;
    task_rows_ = streaming_ ? static_cast<size_t>(std::max<uint64_t>(1, kStreamingTaskBytes / row_bytes)) : 1;
    for (int i = 0; i < kMemberCount; ++i) uniform_rows_[i] = t_[i].type != 0 && UniformRows(t_[i], &row_step_[i]);
    // Per tensor, a dense input and output (each row right after the one before) are one run:
    // the passes go by pieces of the whole, not row by row, whose calls cost about a third of a
    // 1024-float row's work (AMD EPYC Zen 5).
    const bool dense = t_[kInput].type == CPUML_TENSOR_DATA_TYPE_FLOAT32 && t_[kInput].strides[3] == 1 &&
                       t_[kOutput].strides[3] == 1 && uniform_rows_[kInput] && uniform_rows_[kOutput] &&
                       row_step_[kInput] == row_length_ && row_step_[kOutput] == row_length_;
    span_rows_ = !per_row_ && !symmetric_ && dense ? 1 : rows_;
    span_length_ = span_rows_ == 1 ? rows_ * row_length_ : row_length_;
  }

  uint32_t InputCount() const override { return 1; }
  uint32_t OutputCount() const override { return 3; }
  CPUML_BINDING_PROPERTIES BindingProperties() const override { return {0, 0}; }
  cpuml_status Initialize(const CPUML_BUFFER_BINDING*, uint32_t) override { return CPUML_STATUS_SUCCESS; }

  void Describe(char* buf, size_t size) const override {
    char kernel[64];
    snprintf(kernel, sizeof kernel, "quantize_%s_%s_%s__%s", ShortTypeName(t_[kInput].type),
             ShortTypeName(t_[kOutput].type),
             symmetric_ ? (block_ < row_length_ ? "symmetric_per_block" : "symmetric_per_row")
                        : per_row_ ? "per_row" : "per_tensor",
             tier_name_);
    const NamedTensor tensors[] = {{"Input", &t_[kInput]}, {"Output", &t_[kOutput]}};
    DescribeOperator(buf, size, kOp, tensors, 2, tier_name_, kernel);
  }

  cpuml_status Execute(const CPUML_BUFFER_BINDING* inputs, const CPUML_BUFFER_BINDING* outputs, uint8_t*,
                       pthreadpool_t pool) override {
    const CPUML_BUFFER_BINDING* bindings[kMemberCount] = {&inputs[0], &outputs[0], &outputs[1], &outputs[2]};
    const int members = symmetric_ ? kZeroPoint : kMemberCount;  // an absent zero point is bound empty
    for (int i = 0; i < members; ++i) {
      char where[96];
      snprintf(where, sizeof where, "%s: %s", kOp, kMemberNames[i]);
      if (cpuml_status s = CheckBinding(*bindings[i], t_[i], where)) return s;
    }
    for (int out = kOutput; out < members; ++out)
      for (int other = kInput; other < out; ++other)
        if (cpuml_status s = CheckNoOverlap(kOp, *bindings[out], t_[out], kMemberNames[out], *bindings[other], t_[other],
                                            kMemberNames[other]))
          return s;
    Job job{this, static_cast<const uint8_t*>(inputs[0].Data), static_cast<uint8_t*>(outputs[0].Data),
            static_cast<uint8_t*>(outputs[1].Data), static_cast<uint8_t*>(outputs[2].Data), 0.0f, 0, {}, {}, 0, 0, 0, 0, nullptr};
    const size_t threads = pool ? pthreadpool_get_threads_count(pool) : 1;
    if (symmetric_ || per_row_) {
      // Each row its own scale: a task quantizes its rows one by one.
      job.quantize_row = symmetric_ ? &Job::QuantizeSymmetricRow : &Job::QuantizeOwnRow;
      pthreadpool_parallelize_1d_tile_1d(
          pool,
          [](void* context, size_t first, size_t count) {
            const Job& j = *static_cast<const Job*>(context);
            for (size_t row = first; row < first + count; ++row) (j.*j.quantize_row)(row);
            j.FinishTask();
          },
          &job, static_cast<size_t>(rows_), task_rows_, 0);
      return CPUML_STATUS_SUCCESS;
    }
    // Per tensor: the range over every piece of every row of the view, then the bytes.
    // Pieces of a row of the view: of kElementsPerTask, or in a dense tensor's one row small
    // enough that every thread has several (down to 4096 elements).
    job.piece_length = kElementsPerTask;
    if (span_rows_ == 1 && threads > 1) {
      const uint64_t share = (span_length_ + threads * 4 - 1) / (threads * 4);
      job.piece_length = std::min(kElementsPerTask, std::max<uint64_t>(4096, (share + 1023) / 1024 * 1024));
    }
    job.span_pieces = (span_length_ + job.piece_length - 1) / job.piece_length;
    const uint64_t pieces = span_rows_ * job.span_pieces;
    job.range_tasks = static_cast<size_t>(std::min<uint64_t>({pieces, kMaxRangeTasks, threads > 1 ? threads * 4 : 1}));
    job.pieces_per_task = (pieces + job.range_tasks - 1) / job.range_tasks;
    pthreadpool_parallelize_1d(
        pool, [](void* context, size_t task) { static_cast<Job*>(context)->RangeOfTask(task); }, &job, job.range_tasks, 0);
    float lo = 0.0f, hi = 0.0f;
    for (size_t i = 0; i < job.range_tasks; ++i) {
      lo = std::min(lo, job.lo[i]);
      hi = std::max(hi, job.hi[i]);
    }
    Parameters(lo, hi, qmin_, qmax_, &job.scale, &job.zero_point);
    pthreadpool_parallelize_1d_tile_1d(
        pool,
        [](void* context, size_t first, size_t count) {
          const Job& j = *static_cast<const Job*>(context);
          for (size_t piece = first; piece < first + count; ++piece) {
            uint64_t row, begin, end;
            j.PieceOf(piece, &row, &begin, &end);
            j.QuantizeSpan(row, begin, end, j.scale, j.zero_point, j.PieceAhead(row, begin, end));
          }
          j.FinishTask();
        },
        &job, static_cast<size_t>(pieces), job.span_pieces == 1 ? task_rows_ : 1, 0);
    job.WriteParameters(0, job.scale, job.zero_point);
    return CPUML_STATUS_SUCCESS;
  }

 private:
  // One execute's state, on its caller's stack (concurrent executes share nothing).
  struct Job {
    const DynamicQuantizeLinear* op;
    const uint8_t* input;
    uint8_t *output, *scale_out, *zero_point_out;
    float scale;
    int32_t zero_point;
    float lo[kMaxRangeTasks], hi[kMaxRangeTasks];
    size_t range_tasks;
    uint64_t pieces_per_task;
    uint64_t piece_length, span_pieces;  // per tensor: elements of a piece, pieces of a row of the view
    void (Job::*quantize_row)(size_t row) const;  // per row or symmetric: a row's range and bytes

    uint64_t Offset(int member, uint64_t row, uint64_t column) const {
      const Tensor& t = op->t_[member];
      if (op->uniform_rows_[member]) return row * op->row_step_[member] + column * t.strides[3];
      const uint64_t m = row % t.sizes[2], bc = row / t.sizes[2];
      return (bc / t.sizes[1]) * t.strides[0] + (bc % t.sizes[1]) * t.strides[1] + m * t.strides[2] + column * t.strides[3];
    }

    // Elements [begin, end) of `row` as contiguous float32: in place, or through `buffer`.
    const float* Floats(uint64_t row, uint64_t begin, size_t count, float* buffer) const {
      const Tensor& t = op->t_[kInput];
      const uint64_t at = Offset(kInput, row, begin), stride = t.strides[3];
      if (t.type == CPUML_TENSOR_DATA_TYPE_FLOAT32) {
        const float* x = reinterpret_cast<const float*>(input) + at;
        if (stride == 1) return x;
        for (size_t i = 0; i < count; ++i) buffer[i] = x[i * stride];
      } else {
        const uint16_t* x = reinterpret_cast<const uint16_t*>(input) + at;
        for (size_t i = 0; i < count; ++i) buffer[i] = HalfToFloat(x[i * stride]);
      }
      return buffer;
    }

    // Elements from `begin` of `row` when they are contiguous float32 in the binding, else NULL.
    const float* InPlace(uint64_t row, uint64_t begin) const {
      const Tensor& t = op->t_[kInput];
      if (t.type != CPUML_TENSOR_DATA_TYPE_FLOAT32 || t.strides[3] != 1) return nullptr;
      return reinterpret_cast<const float*>(input) + Offset(kInput, row, begin);
    }

    // A span the kernels can read in place is one call (each call ends in a reduction or a tail);
    // others go through the stack buffers a chunk at a time.
    void Range(uint64_t row, uint64_t begin, uint64_t end, float* lo_out, float* hi_out) const {
      if (const float* x = InPlace(row, begin)) {
        op->kernels_.min_max(x, static_cast<size_t>(end - begin), lo_out, hi_out);
        return;
      }
      alignas(64) float buffer[kChunk];
      for (uint64_t c = begin; c < end; c += kChunk) {
        const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunk, end - c));
        op->kernels_.min_max(Floats(row, c, count, buffer), count, lo_out, hi_out);
      }
    }

    // `prefetch`, when not NULL, is contiguous input that the caller reads next (the next row),
    // whose lines the kernel requests while it quantizes this span (QuantizeKernels::quantize).
    void QuantizeSpan(uint64_t row, uint64_t begin, uint64_t end, float s, int32_t z, const float* prefetch) const {
      const float* in_place = InPlace(row, begin);
      if (in_place && op->t_[kOutput].strides[3] == 1) {
        op->kernels_.quantize(in_place, static_cast<size_t>(end - begin), s, z, op->qmin_, op->qmax_,
                              output + Offset(kOutput, row, begin), prefetch, op->streaming_);
        return;
      }
      alignas(64) float buffer[kChunk];
      uint8_t bytes[kChunk];
      const Tensor& o = op->t_[kOutput];
      for (uint64_t c = begin; c < end; c += kChunk) {
        const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunk, end - c));
        uint8_t* dst = output + Offset(kOutput, row, c);
        const bool contiguous = o.strides[3] == 1;
        op->kernels_.quantize(Floats(row, c, count, buffer), count, s, z, op->qmin_, op->qmax_, contiguous ? dst : bytes,
                              prefetch ? prefetch + (c - begin) : nullptr, contiguous && op->streaming_);
        if (!contiguous)
          for (size_t i = 0; i < count; ++i) dst[i * o.strides[3]] = bytes[i];
      }
    }

    // The input of the row the caller reads prefetch_rows_ on, when it is a run of contiguous
    // float32 (what the kernel's prefetch walks), else NULL; it is a row of the tensor, so the
    // prefetch stays inside the binding.
    const float* RowAhead(uint64_t row) const {
      return row + op->prefetch_rows_ < op->rows_ ? InPlace(row + op->prefetch_rows_, 0) : nullptr;
    }

    // Piece `piece` of the per-tensor passes: its row of the view and its elements [begin, end).
    void PieceOf(uint64_t piece, uint64_t* row, uint64_t* begin, uint64_t* end) const {
      *row = piece / span_pieces;
      *begin = (piece % span_pieces) * piece_length;
      *end = std::min(op->span_length_, *begin + piece_length);
    }

    // What the quantize pass of a piece requests ahead: the row prefetch_rows_ on (a row of one
    // piece), or in a dense tensor's single row as many elements on, while they stay inside it.
    const float* PieceAhead(uint64_t row, uint64_t begin, uint64_t end) const {
      if (op->span_rows_ > 1) return span_pieces == 1 ? RowAhead(row) : nullptr;
      const uint64_t lead = op->prefetch_rows_ * op->row_length_;
      return end + lead <= op->span_length_ ? InPlace(row, begin + lead) : nullptr;
    }

    // A task's streaming stores are weakly ordered: one fence after its last orders them before
    // the pool reports the work done (a fence after every row cost a third of a 1024-float row).
    void FinishTask() const {
      if (op->streaming_ && op->kernels_.stream_fence) op->kernels_.stream_fence();
    }

    void WriteParameters(uint64_t row, float s, int32_t z) const {
      memcpy(scale_out + Offset(kScale, row, 0) * sizeof(float), &s, sizeof s);
      zero_point_out[Offset(kZeroPoint, row, 0)] = static_cast<uint8_t>(z);
    }

    void RangeOfTask(size_t task) {
      float task_lo = 0.0f, task_hi = 0.0f;
      const uint64_t pieces = op->span_rows_ * span_pieces;
      const uint64_t first = task * pieces_per_task, last = std::min(pieces, first + pieces_per_task);
      for (uint64_t piece = first; piece < last; ++piece) {
        uint64_t row, begin, end;
        PieceOf(piece, &row, &begin, &end);
        Range(row, begin, end, &task_lo, &task_hi);
      }
      lo[task] = task_lo;
      hi[task] = task_hi;
    }

    // Symmetric INT8 (docs/semantics.md): per block of the row, scale = max|x| / 127 in float32 and
    // q = roundHalfToEven(x / scale), which |x| <= max|x| keeps within [-127, 127]; an all-zero
    // block has scale 0 and q 0 (0 / 0 is NaN, which quantizes to the zero point, 0).
    void QuantizeSymmetricRow(size_t row) const {
      const uint64_t length = op->row_length_, block = op->block_;
      if (block % 16 == 0 && block <= kChunk) return QuantizeSymmetricBlocks(row);
      for (uint64_t begin = 0, index = 0; begin < length; begin += block, ++index) {
        const uint64_t end = std::min(length, begin + block);
        float lo = 0.0f, hi = 0.0f;
        Range(row, begin, end, &lo, &hi);
        // hi first: with lo = +0, -lo is -0, and an all-zero block's scale is +0.
        const float s = std::max(hi, -lo) / 127.0f;
        QuantizeSpan(row, begin, end, s, 0, nullptr);
        memcpy(scale_out + Offset(kScale, row, index) * sizeof(float), &s, sizeof s);
      }
    }

    // The same by the kernel's blocks, up to 64 blocks a call: a row read and written in place when
    // it is contiguous FLOAT32 and bytes, else through the stack buffers a chunk at a time.
    void QuantizeSymmetricBlocks(size_t row) const {
      const uint64_t length = op->row_length_, block = op->block_;
      const Tensor &o = op->t_[kOutput], &sc = op->t_[kScale];
      const float* in_place = InPlace(row, 0);
      const bool contiguous = o.strides[3] == 1, direct = in_place && contiguous;
      const uint64_t chunk = direct ? 64 * block : kChunk / block * block;
      uint8_t* const dst_row = output + Offset(kOutput, row, 0);
      uint8_t* const scale_row = scale_out + Offset(kScale, row, 0) * sizeof(float);
      alignas(64) float buffer[kChunk];
      uint8_t bytes[kChunk];
      float scales[64];
      for (uint64_t c = 0; c < length; c += chunk) {
        const size_t count = static_cast<size_t>(std::min<uint64_t>(chunk, length - c));
        uint8_t* dst = dst_row + c * o.strides[3];
        op->kernels_.quantize_symmetric_blocks(in_place ? in_place + c : Floats(row, c, count, buffer), count,
                                               static_cast<size_t>(block), scales, contiguous ? dst : bytes);
        if (!contiguous)
          for (size_t i = 0; i < count; ++i) dst[i * o.strides[3]] = bytes[i];
        for (size_t b = 0; b < (count + block - 1) / block; ++b)
          memcpy(scale_row + (c / block + b) * sc.strides[3] * sizeof(float), &scales[b], sizeof(float));
      }
    }

    void QuantizeOwnRow(size_t row) const {
      float row_lo = 0.0f, row_hi = 0.0f, s;
      int32_t z;
      Range(row, 0, op->row_length_, &row_lo, &row_hi);
      Parameters(row_lo, row_hi, op->qmin_, op->qmax_, &s, &z);
      QuantizeSpan(row, 0, op->row_length_, s, z, op->row_length_ <= kElementsPerTask ? RowAhead(row) : nullptr);
      WriteParameters(row, s, z);
    }
  };

  const QuantizeKernels& kernels_;
  const char* const tier_name_;
  Tensor t_[kMemberCount];
  bool per_row_ = false, symmetric_ = false;
  uint64_t block_ = 0;  // elements of a row per scale (symmetric per block), else the row's length
  int32_t qmin_ = 0, qmax_ = 255;
  uint64_t rows_ = 0, row_length_ = 0;
  uint64_t prefetch_rows_ = 1;  // how many rows on the quantize pass requests input (RowAhead)
  bool streaming_ = false;
  size_t task_rows_ = 1;  // rows (pieces) a task quantizes: one, or kStreamingTaskBytes of them when streaming
  bool uniform_rows_[kMemberCount] = {};  // UniformRows, with the step in row_step_
  uint64_t row_step_[kMemberCount] = {};
  // The per-tensor passes' view: span_rows_ rows of span_length_ elements, Job::span_pieces pieces
  // a row; a dense tensor is one row of every element.
  uint64_t span_rows_ = 0, span_length_ = 0;
};

}  // namespace

cpuml_status CreateDynamicQuantizeLinear(const void* desc, cpuml_operator** out) {
  const auto& d = *static_cast<const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC*>(desc);
  const CPUML_TENSOR_DESC* descs[kMemberCount] = {d.InputTensor, d.OutputTensor, d.OutputScaleTensor,
                                                  d.OutputZeroPointTensor};
  constexpr uint32_t kFloats = TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT32) | TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT16);
  constexpr uint32_t kBytes = TypeBit(CPUML_TENSOR_DATA_TYPE_UINT8) | TypeBit(CPUML_TENSOR_DATA_TYPE_INT8);
  const uint32_t types[kMemberCount] = {kFloats, kBytes, TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT32), kBytes};
  Tensor t[kMemberCount];
  // No OutputZeroPointTensor: symmetric INT8, the per (row, block) granularity of 4-bit matmuls'
  // activations (ONNX Runtime's accuracy_level 4, llama.cpp's Q8_0).
  const bool symmetric = descs[kZeroPoint] == nullptr;
  for (int i = 0; i < kMemberCount; ++i) {
    if (i == kZeroPoint && symmetric) break;
    if (descs[i] == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s must not be NULL", kOp, kMemberNames[i]);
    char where[96];
    snprintf(where, sizeof where, "%s: %s", kOp, kMemberNames[i]);
    if (cpuml_status s = ParseTensor(descs[i], {where, 1, 4, types[i]}, &t[i])) return s;
    t[i].PadRankTo(4);
    if (t[i].owned)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s Flags must not include CPUML_TENSOR_FLAG_OWNED_BY_CPUML", kOp,
                  kMemberNames[i]);
  }
  char s1[64], s2[64];
  const Tensor &input = t[kInput], &output = t[kOutput], &scale = t[kScale], &zero_point = t[kZeroPoint];
  for (int dim = 0; dim < 4; ++dim)
    if (output.sizes[dim] != input.sizes[dim])
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor sizes %s must equal InputTensor sizes %s", kOp,
                  FormatSizes(output, s1, sizeof s1), FormatSizes(input, s2, sizeof s2));
  if (symmetric) {
    if (output.type != CPUML_TENSOR_DATA_TYPE_INT8)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: OutputTensor DataType %s must be INT8 without an OutputZeroPointTensor (symmetric quantization)",
                  kOp, DataTypeName(output.type));
    bool rows = true;
    for (int dim = 0; dim < 3; ++dim) rows &= scale.sizes[dim] == input.sizes[dim];
    const uint32_t k = input.sizes[3], blocks = scale.sizes[3];
    if (!rows || (blocks != 1 && BlockOf(k, blocks) == 0))
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: OutputScaleTensor sizes %s must be InputTensor's %s with the last size 1 (per row) or "
                  "ceil(%u / block) for a block of 16, 32, 64, 128 or 256 (per row and block) without an "
                  "OutputZeroPointTensor",
                  kOp, FormatSizes(scale, s1, sizeof s1), FormatSizes(input, s2, sizeof s2), k);
    if (MayAlias(output) || MayAlias(scale))
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: %s Strides must not make two elements share an address (stride 0 or overlap)", kOp,
                  MayAlias(output) ? "OutputTensor" : "OutputScaleTensor");
    *out = new DynamicQuantizeLinear(t, QuantizeTier());
    return CPUML_STATUS_SUCCESS;
  }
  if (zero_point.type != output.type)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputZeroPointTensor DataType %s must equal OutputTensor DataType %s",
                kOp, DataTypeName(zero_point.type), DataTypeName(output.type));
  bool per_tensor = true, per_row = scale.sizes[3] == 1;
  for (int dim = 0; dim < 4; ++dim) {
    per_tensor &= scale.sizes[dim] == 1;
    if (dim < 3) per_row &= scale.sizes[dim] == input.sizes[dim];
  }
  if (!per_tensor && !per_row)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: OutputScaleTensor sizes %s must be all 1 (per tensor) or InputTensor's %s with the last size 1 (per row)",
                kOp, FormatSizes(scale, s1, sizeof s1), FormatSizes(input, s2, sizeof s2));
  for (int dim = 0; dim < 4; ++dim)
    if (zero_point.sizes[dim] != scale.sizes[dim])
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputZeroPointTensor sizes %s must equal OutputScaleTensor sizes %s",
                  kOp, FormatSizes(zero_point, s1, sizeof s1), FormatSizes(scale, s2, sizeof s2));
  for (int i = kOutput; i < kMemberCount; ++i)
    if (MayAlias(t[i]))
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: %s Strides must not make two elements share an address (stride 0 or overlap)", kOp, kMemberNames[i]);
  *out = new DynamicQuantizeLinear(t, QuantizeTier());
  return CPUML_STATUS_SUCCESS;
}

}  // namespace cpuml
