#include "src/tensor.h"

#include <stdio.h>
#include <string.h>

#include "src/status.h"

namespace cpuml {

uint64_t Tensor::ElementCount() const {
  uint64_t n = 1;
  for (uint32_t d = 0; d < rank; ++d) n *= sizes[d];
  return n;
}

void Tensor::PadRankTo(uint32_t new_rank) {
  const uint32_t pad = new_rank - rank;
  memmove(sizes + pad, sizes, rank * sizeof sizes[0]);
  memmove(strides + pad, strides, rank * sizeof strides[0]);
  for (uint32_t d = 0; d < pad; ++d) {
    sizes[d] = 1;
    strides[d] = 0;
  }
  rank = new_rank;
}

const char* DataTypeName(CPUML_TENSOR_DATA_TYPE type) {
  switch (type) {
    case CPUML_TENSOR_DATA_TYPE_UNKNOWN: return "UNKNOWN";
    case CPUML_TENSOR_DATA_TYPE_FLOAT32: return "FLOAT32";
    case CPUML_TENSOR_DATA_TYPE_FLOAT16: return "FLOAT16";
    case CPUML_TENSOR_DATA_TYPE_UINT32: return "UINT32";
    case CPUML_TENSOR_DATA_TYPE_UINT16: return "UINT16";
    case CPUML_TENSOR_DATA_TYPE_UINT8: return "UINT8";
    case CPUML_TENSOR_DATA_TYPE_INT32: return "INT32";
    case CPUML_TENSOR_DATA_TYPE_INT16: return "INT16";
    case CPUML_TENSOR_DATA_TYPE_INT8: return "INT8";
    case CPUML_TENSOR_DATA_TYPE_UINT4: return "UINT4";
    case CPUML_TENSOR_DATA_TYPE_INT4: return "INT4";
  }
  return "an unknown data type";
}

const char* FormatSizes(const Tensor& t, char* buf, size_t buf_size) {
  size_t used = static_cast<size_t>(snprintf(buf, buf_size, "{"));
  for (uint32_t d = 0; d < t.rank && used < buf_size; ++d)
    used += static_cast<size_t>(snprintf(buf + used, buf_size - used, d ? ",%u" : "%u", t.sizes[d]));
  if (used < buf_size) snprintf(buf + used, buf_size - used, "}");
  return buf;
}

static void FormatAllowedTypes(uint32_t allowed, char* buf, size_t buf_size) {
  buf[0] = '\0';
  size_t used = 0;
  for (int t = 1; t <= CPUML_TENSOR_DATA_TYPE_INT4; ++t) {
    if (!(allowed & (1u << t)) || used >= buf_size) continue;
    used += static_cast<size_t>(snprintf(buf + used, buf_size - used, "%s%s", used ? ", " : "",
                                         DataTypeName(static_cast<CPUML_TENSOR_DATA_TYPE>(t))));
  }
}

cpuml_status ParseTensor(const CPUML_TENSOR_DESC* desc, const TensorRule& rule, Tensor* out) {
  const char* where = rule.where;
  if (desc == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s must not be NULL", where);
  if (RawEnum(desc->Type) != CPUML_TENSOR_TYPE_BUFFER)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s Type %d must be CPUML_TENSOR_TYPE_BUFFER", where,
                static_cast<int>(RawEnum(desc->Type)));
  const auto* buffer = static_cast<const CPUML_BUFFER_TENSOR_DESC*>(desc->Desc);
  if (buffer == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s Desc must not be NULL", where);

  Tensor t;
  const int32_t raw_type = RawEnum(buffer->DataType);
  // The raw value is checked as an int before it becomes the enum (any int may arrive).
  t.nibbles = raw_type == CPUML_TENSOR_DATA_TYPE_UINT4 || raw_type == CPUML_TENSOR_DATA_TYPE_INT4;
  if (raw_type <= CPUML_TENSOR_DATA_TYPE_UNKNOWN || (raw_type > CPUML_TENSOR_DATA_TYPE_INT8 && !t.nibbles))
    return Fail(CPUML_STATUS_UNSUPPORTED, "%s DataType %d is not a supported data type", where,
                static_cast<int>(raw_type));
  t.type = static_cast<CPUML_TENSOR_DATA_TYPE>(raw_type);
  // A 4-bit tensor is addressed in bytes (alignment, bindings): two elements share one.
  t.element_size = t.nibbles ? 1 : DataTypeSize(t.type);
  if (!(rule.allowed_types & TypeBit(t.type))) {
    char allowed[128];
    FormatAllowedTypes(rule.allowed_types, allowed, sizeof allowed);
    return Fail(CPUML_STATUS_UNSUPPORTED, "%s DataType %s must be one of %s", where, DataTypeName(t.type), allowed);
  }
  const uint32_t flags = static_cast<uint32_t>(RawEnum(buffer->Flags));
  if (flags & ~static_cast<uint32_t>(CPUML_TENSOR_FLAG_OWNED_BY_CPUML))
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s Flags 0x%x has bits other than CPUML_TENSOR_FLAG_OWNED_BY_CPUML",
                where, flags);
  t.owned = (flags & CPUML_TENSOR_FLAG_OWNED_BY_CPUML) != 0;
  if (buffer->DimensionCount < rule.min_rank || buffer->DimensionCount > rule.max_rank)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s DimensionCount %u must be in %u..%u", where,
                buffer->DimensionCount, rule.min_rank, rule.max_rank);
  if (buffer->Sizes == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s Sizes must not be NULL", where);
  t.rank = buffer->DimensionCount;
  for (uint32_t d = 0; d < t.rank; ++d) {
    t.sizes[d] = buffer->Sizes[d];
    if (t.sizes[d] == 0) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s Sizes[%u] is 0: every size must be > 0", where, d);
  }
  // Packed row-major strides, or the given ones.
  uint64_t packed = 1;
  for (uint32_t d = t.rank; d-- > 0;) {
    t.strides[d] = buffer->Strides ? buffer->Strides[d] : packed;
    if (__builtin_mul_overflow(packed, static_cast<uint64_t>(t.sizes[d]), &packed))
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s Sizes: the element count overflows 64 bits", where);
  }
  // Largest element offset; every step checked so no descriptor can wrap an index.
  uint64_t last = 0;
  for (uint32_t d = 0; d < t.rank; ++d) {
    uint64_t span;
    if (__builtin_mul_overflow(static_cast<uint64_t>(t.sizes[d] - 1), t.strides[d], &span) ||
        __builtin_add_overflow(last, span, &last))
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s Strides: the largest element offset overflows 64 bits", where);
  }
  uint64_t reach, minimum;
  if (__builtin_add_overflow(last, 1, &reach) || __builtin_mul_overflow(reach, t.element_size, &reach) ||
      __builtin_add_overflow(reach, 3, &minimum) || reach > (UINT64_MAX >> 2))
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: the addressed byte range overflows 64 bits", where);
  if (t.nibbles) {  // offsets count nibbles: the last one's byte, rounded up to 4 bytes
    reach = (reach + 1) / 2;
    minimum = reach + 3;
  }
  minimum &= ~uint64_t{3};
  t.reach_bytes = reach;
  t.total_bytes = buffer->TotalTensorSizeInBytes;
  if (t.total_bytes < minimum)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s TotalTensorSizeInBytes %llu must be at least %llu ((sum((Sizes[i]-1)*Strides[i]) + 1) * "
                "element size%s, rounded up to 4)",
                where, static_cast<unsigned long long>(t.total_bytes), static_cast<unsigned long long>(minimum),
                t.nibbles ? " (1/2 for 4-bit types, the last byte counted whole)" : "");
  t.alignment = buffer->GuaranteedBaseOffsetAlignment;
  if (t.alignment & (t.alignment - 1))
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s GuaranteedBaseOffsetAlignment %u must be 0 or a power of two",
                where, t.alignment);
  *out = t;
  return CPUML_STATUS_SUCCESS;
}

cpuml_status CheckBinding(const CPUML_BUFFER_BINDING& binding, const Tensor& tensor, const char* where) {
  if (binding.Data == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s binding Data must not be NULL", where);
  if (binding.SizeInBytes < tensor.total_bytes)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s binding SizeInBytes %llu must be >= TotalTensorSizeInBytes %llu",
                where, static_cast<unsigned long long>(binding.SizeInBytes),
                static_cast<unsigned long long>(tensor.total_bytes));
  const uintptr_t address = reinterpret_cast<uintptr_t>(binding.Data);
  if (address % tensor.element_size != 0)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s binding Data %p must be aligned to the element size %zu", where,
                binding.Data, tensor.element_size);
  if (tensor.alignment != 0 && address % tensor.alignment != 0)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s binding Data %p must be aligned to GuaranteedBaseOffsetAlignment %u",
                where, binding.Data, tensor.alignment);
  return CPUML_STATUS_SUCCESS;
}

}  // namespace cpuml

namespace cpuml {

cpuml_status CheckNoOverlap(const char* op, const CPUML_BUFFER_BINDING& output, const Tensor& output_tensor,
                            const char* output_name, const CPUML_BUFFER_BINDING& input, const Tensor& input_tensor,
                            const char* input_name) {
  const uintptr_t out_begin = reinterpret_cast<uintptr_t>(output.Data), in_begin = reinterpret_cast<uintptr_t>(input.Data);
  // reach_bytes <= 2^62 and both ranges lie in bound memory, so the ends do not wrap.
  const uintptr_t out_end = out_begin + output_tensor.reach_bytes, in_end = in_begin + input_tensor.reach_bytes;
  if (out_begin < in_end && in_begin < out_end)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: %s binding [%p, +%llu bytes) overlaps %s binding [%p, +%llu bytes): an output must not share memory "
                "with an input or another output",
                op, output_name, output.Data, static_cast<unsigned long long>(output_tensor.reach_bytes), input_name,
                input.Data, static_cast<unsigned long long>(input_tensor.reach_bytes));
  return CPUML_STATUS_SUCCESS;
}

bool MayAlias(const Tensor& t) {
  // Sort the dimensions of size > 1 by stride; each must step past everything the smaller ones span.
  uint32_t order[kMaxRank];
  uint32_t n = 0;
  for (uint32_t d = 0; d < t.rank; ++d)
    if (t.sizes[d] > 1) order[n++] = d;
  for (uint32_t i = 1; i < n; ++i)
    for (uint32_t j = i; j > 0 && t.strides[order[j]] < t.strides[order[j - 1]]; --j) {
      const uint32_t tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  uint64_t span = 0;  // largest offset reachable with the dimensions seen so far
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t d = order[i];
    if (t.strides[d] <= span) return true;
    span += (t.sizes[d] - 1) * t.strides[d];
  }
  return false;
}

}  // namespace cpuml
