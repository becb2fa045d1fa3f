// FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE: validation, then rows handed to the tier's kernels.
#include <pthreadpool.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>

#include "src/dispatch.h"
#include "src/operator.h"
#include "src/status.h"
#include "src/tensor.h"
#include "src/verbose.h"

namespace cpuml {
namespace {

constexpr uint32_t kFillTypes = TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT32) | TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT16) |
                                TypeBit(CPUML_TENSOR_DATA_TYPE_UINT32) | TypeBit(CPUML_TENSOR_DATA_TYPE_UINT16) |
                                TypeBit(CPUML_TENSOR_DATA_TYPE_UINT8) | TypeBit(CPUML_TENSOR_DATA_TYPE_INT32) |
                                TypeBit(CPUML_TENSOR_DATA_TYPE_INT16) | TypeBit(CPUML_TENSOR_DATA_TYPE_INT8);

// Work for one thread: at least this many bytes, so small fills stay on the calling thread.
constexpr uint64_t kBytesPerTask = 256 * 1024;

class FillOperator final : public cpuml_operator {
 public:
  FillOperator(const TierChoice& tier, bool sequence, const Tensor& output, CPUML_SCALAR_UNION start,
               CPUML_SCALAR_UNION delta)
      : kernels_(*tier.kernels->fill), tier_name_(tier.name), sequence_(sequence), output_(output), start_(start),
        delta_(delta) {
    Collapse();
    streaming_ = output_.reach_bytes > LastLevelCacheBytes();
    may_alias_ = MayAlias(output_);
  }

  uint32_t InputCount() const override { return 0; }
  CPUML_BINDING_PROPERTIES BindingProperties() const override { return {0, 0}; }
  cpuml_status Initialize(const CPUML_BUFFER_BINDING*, uint32_t) override { return CPUML_STATUS_SUCCESS; }

  void Describe(char* buf, size_t size) const override {
    const char* op = sequence_ ? "FILL_VALUE_SEQUENCE" : "FILL_VALUE_CONSTANT";
    char kernel[64];
    snprintf(kernel, sizeof kernel, "fill_%s_%s__%s", sequence_ ? "sequence" : "constant", ShortTypeName(output_.type),
             tier_name_);
    const NamedTensor tensors[] = {{"Output", &output_}};
    DescribeOperator(buf, size, op, tensors, 1, tier_name_, kernel);
  }

  cpuml_status Execute(const CPUML_BUFFER_BINDING*, const CPUML_BUFFER_BINDING* outputs, uint8_t* /*scratch*/,
                       pthreadpool_t threadpool) override {
    const char* where = sequence_ ? "FILL_VALUE_SEQUENCE: OutputTensor" : "FILL_VALUE_CONSTANT: OutputTensor";
    if (cpuml_status s = CheckBinding(outputs[0], output_, where)) return s;
    char* data = static_cast<char*>(outputs[0].Data);
    const uint64_t count = output_.ElementCount();
    const size_t threads = threadpool ? pthreadpool_get_threads_count(threadpool) : 1;
    // Aliasing outputs are written in order by one thread; otherwise the elements are distinct and
    // count * element_size <= reach_bytes (checked at create) cannot wrap.
    if (threads <= 1 || may_alias_ || count * output_.element_size < 2 * kBytesPerTask) {
      FillRange(data, 0, count);
      return CPUML_STATUS_SUCCESS;
    }
    const uint64_t bytes = count * output_.element_size;
    // Chunks of whole 4096-element blocks, so neighbouring tasks never share a cache line.
    const uint64_t per_task = std::max<uint64_t>(kBytesPerTask, bytes / (threads * 4)) / output_.element_size;
    // Per-call state lives on this stack, so concurrent executes on one operator are safe.
    struct Job {
      const FillOperator* op;
      char* data;
      uint64_t chunk, count;
    } job{this, data, (per_task + 4095) & ~uint64_t{4095}, count};
    pthreadpool_parallelize_1d(
        threadpool,
        [](void* context, size_t task) {
          const Job& j = *static_cast<const Job*>(context);
          const uint64_t begin = task * j.chunk;
          j.op->FillRange(j.data, begin, std::min(begin + j.chunk, j.count));
        },
        &job, static_cast<size_t>((count + job.chunk - 1) / job.chunk), 0);
    return CPUML_STATUS_SUCCESS;
  }

 private:
  // Merges dimensions that are contiguous with their inner neighbour, so a packed tensor of any
  // rank becomes one long row and the kernels see the longest rows possible.
  void Collapse() {
    const Tensor& t = output_;
    const uint32_t r = t.rank - 1;
    uint32_t out = kMaxRank;
    uint32_t sizes[kMaxRank];
    uint64_t strides[kMaxRank];
    uint64_t size = t.sizes[r], stride = t.strides[r];
    // Built innermost first into the tail of the arrays.
    for (uint32_t d = r; d-- > 0;) {
      if (t.strides[d] == stride * size && size * t.sizes[d] <= UINT32_MAX) {
        size *= t.sizes[d];
      } else {
        sizes[--out] = static_cast<uint32_t>(size);
        strides[out] = stride;
        size = t.sizes[d];
        stride = t.strides[d];
      }
    }
    sizes[--out] = static_cast<uint32_t>(size);
    strides[out] = stride;
    rows_.rank = kMaxRank - out;
    for (uint32_t d = 0; d < rows_.rank; ++d) {
      rows_.sizes[d] = sizes[out + d];
      rows_.strides[d] = strides[out + d];
    }
  }

  // Writes logical elements [begin, end) in row-major order.
  void FillRange(char* data, uint64_t begin, uint64_t end) const {
    const uint32_t inner = rows_.rank - 1;
    const uint64_t row_length = rows_.sizes[inner];
    const auto type = output_.type;
    uint64_t i = begin;
    while (i < end) {
      uint64_t row = i / row_length, column = i % row_length;
      uint64_t offset = column * rows_.strides[inner];
      for (uint32_t d = inner; d-- > 0;) {
        offset += (row % rows_.sizes[d]) * rows_.strides[d];
        row /= rows_.sizes[d];
      }
      const uint64_t n = std::min(end - i, row_length - column);
      void* dst = data + offset * output_.element_size;
      if (sequence_) {
        kernels_.sequence_row[type](dst, n, rows_.strides[inner], i, start_, delta_, streaming_);
      } else {
        kernels_.constant_row[type](dst, n, rows_.strides[inner], start_, streaming_);
      }
      i += n;
    }
  }

  const FillKernels& kernels_;
  const char* const tier_name_;
  const bool sequence_;
  const Tensor output_;
  Tensor rows_;  // output_ with contiguous dimensions merged
  const CPUML_SCALAR_UNION start_, delta_;
  bool streaming_ = false, may_alias_ = false;
};

}  // namespace

cpuml_status CreateFillOperator(CPUML_OPERATOR_TYPE type, const void* desc, cpuml_operator** out) {
  const bool sequence = type == CPUML_OPERATOR_FILL_VALUE_SEQUENCE;
  const char* name = sequence ? "FILL_VALUE_SEQUENCE" : "FILL_VALUE_CONSTANT";
  const CPUML_TENSOR_DESC* output_desc;
  int32_t value_type;
  CPUML_SCALAR_UNION start, delta;
  memset(&delta, 0, sizeof delta);
  if (sequence) {
    const auto* d = static_cast<const CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC*>(desc);
    output_desc = d->OutputTensor;
    value_type = RawEnum(d->ValueDataType);
    start = d->ValueStart;
    delta = d->ValueDelta;
  } else {
    const auto* d = static_cast<const CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC*>(desc);
    output_desc = d->OutputTensor;
    value_type = RawEnum(d->ValueDataType);
    start = d->Value;
  }
  char where[64];
  snprintf(where, sizeof where, "%s: OutputTensor", name);
  Tensor output;
  if (cpuml_status s = ParseTensor(output_desc, {where, 1, kMaxRank, kFillTypes}, &output)) return s;
  if (output.owned)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor Flags must not include CPUML_TENSOR_FLAG_OWNED_BY_CPUML",
                name);
  if (value_type != output.type) {
    char value_name[32];
    if (value_type > CPUML_TENSOR_DATA_TYPE_UNKNOWN && value_type <= CPUML_TENSOR_DATA_TYPE_INT8)
      snprintf(value_name, sizeof value_name, "%s", DataTypeName(static_cast<CPUML_TENSOR_DATA_TYPE>(value_type)));
    else
      snprintf(value_name, sizeof value_name, "%d", static_cast<int>(value_type));
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: ValueDataType %s must equal OutputTensor DataType %s", name,
                value_name, DataTypeName(output.type));
  }
  *out = new FillOperator(FillTier(), sequence, output, start, delta);
  return CPUML_STATUS_SUCCESS;
}

}  // namespace cpuml
