// QUANTIZED_LINEAR_MATRIX_MULTIPLY descriptor rules: every member's own rules (src/tensor.cc),
// then the shapes and types the operator ties together. Nothing here allocates.
#include <stdio.h>

#include <initializer_list>

#include "src/qgemm_operator.h"
#include "src/status.h"

namespace cpuml {

const char* const kQGemmMemberNames[kQGemmMemberCount] = {
    "ATensor",      "AScaleTensor",      "AZeroPointTensor",      "BTensor", "BScaleTensor", "BZeroPointTensor",
    "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"};

namespace {
constexpr uint32_t kInt8Types = TypeBit(CPUML_TENSOR_DATA_TYPE_INT8) | TypeBit(CPUML_TENSOR_DATA_TYPE_UINT8);
constexpr uint32_t kFloatTypes = TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT32);
}  // namespace

cpuml_status ValidateQGemm(const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC* d, QGemmDescriptor* out) {

  const CPUML_TENSOR_DESC* descs[kQGemmMemberCount] = {d->ATensor,      d->AScaleTensor,      d->AZeroPointTensor,
                                                  d->BTensor,      d->BScaleTensor,      d->BZeroPointTensor,
                                                  d->OutputScaleTensor, d->OutputZeroPointTensor, d->OutputTensor};
  const bool optional[kQGemmMemberCount] = {false, false, true, false, false, true, false, true, false};
  const uint32_t types[kQGemmMemberCount] = {kInt8Types, kFloatTypes, kInt8Types, kInt8Types, kFloatTypes,
                                        kInt8Types, kFloatTypes, kInt8Types, kInt8Types};
  Tensor* t = out->t;
  bool* present = out->present;
  for (int i = 0; i < kQGemmMemberCount; ++i) {
    present[i] = descs[i] != nullptr;
    if (!present[i]) {
      if (optional[i]) continue;
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s must not be NULL", kQGemmOp, kQGemmMemberNames[i]);
    }
    char where[96];
    snprintf(where, sizeof where, "%s: %s", kQGemmOp, kQGemmMemberNames[i]);
    if (cpuml_status s = ParseTensor(descs[i], {where, 2, 4, types[i]}, &t[i])) return s;
    t[i].PadRankTo(4);
  }
  auto same_type = [&](int value, int zero_point) -> cpuml_status {
    if (present[zero_point] && t[zero_point].type != t[value].type)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s DataType %s must equal %s DataType %s", kQGemmOp,
                  kQGemmMemberNames[zero_point], DataTypeName(t[zero_point].type), kQGemmMemberNames[value],
                  DataTypeName(t[value].type));
    return CPUML_STATUS_SUCCESS;
  };
  if (cpuml_status s = same_type(kA, kAZeroPoint)) return s;
  if (cpuml_status s = same_type(kB, kBZeroPoint)) return s;
  if (cpuml_status s = same_type(kOut, kOutZeroPoint)) return s;

  const Tensor &a = t[kA], &b = t[kB], &o = t[kOut];
  char s1[64], s2[64];
  const uint32_t m = a.sizes[2], k = a.sizes[3], n = b.sizes[3];
  if (b.sizes[2] != k)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: BTensor sizes %s must have K=%u rows (ATensor sizes %s)", kQGemmOp,
                FormatSizes(b, s1, sizeof s1), k, FormatSizes(a, s2, sizeof s2));
  // Each of A's and B's batch/channel sizes equals the output's or is 1 (repeated).
  for (int dim = 0; dim < 2; ++dim) {
    for (int member : {kA, kB}) {
      const Tensor& x = t[member];
      if (x.sizes[dim] != 1 && x.sizes[dim] != o.sizes[dim])
        return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                    "%s: %s sizes %s: its %s size %u must be 1 or OutputTensor's %u (OutputTensor sizes %s)", kQGemmOp,
                    kQGemmMemberNames[member], FormatSizes(x, s1, sizeof s1), dim == 0 ? "batch" : "channel", x.sizes[dim],
                    o.sizes[dim], FormatSizes(o, s2, sizeof s2));
    }
  }
  if (o.sizes[2] != m || o.sizes[3] != n)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor sizes %s must end in {M,N} = {%u,%u}", kQGemmOp,
                FormatSizes(o, s1, sizeof s1), m, n);
  // Per-tensor {1,1,1,1}, per-row {1,1,M,1} or per-column {1,1,1,N}.
  auto check_shape = [&](int member, bool per_row) -> cpuml_status {
    if (!present[member]) return CPUML_STATUS_SUCCESS;
    const Tensor& x = t[member];
    const uint32_t extent = per_row ? m : n;
    const bool ok = x.sizes[0] == 1 && x.sizes[1] == 1 &&
                    (per_row ? (x.sizes[3] == 1 && (x.sizes[2] == 1 || x.sizes[2] == m))
                             : (x.sizes[2] == 1 && (x.sizes[3] == 1 || x.sizes[3] == n)));
    if (!ok)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s sizes %s must be {1,1,1,1} or %s with %s=%u", kQGemmOp,
                  kQGemmMemberNames[member], FormatSizes(x, s1, sizeof s1), per_row ? "{1,1,M,1}" : "{1,1,1,N}",
                  per_row ? "M" : "N", extent);
    return CPUML_STATUS_SUCCESS;
  };
  for (int member : {kAScale, kAZeroPoint, kOutScale, kOutZeroPoint})
    if (cpuml_status s = check_shape(member, true)) return s;
  for (int member : {kBScale, kBZeroPoint})
    if (cpuml_status s = check_shape(member, false)) return s;
  if (o.owned)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor Flags must not include CPUML_TENSOR_FLAG_OWNED_BY_CPUML",
                kQGemmOp);
  if (MayAlias(o))
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: OutputTensor Strides must not make two elements share an address (stride 0 or overlap)", kQGemmOp);
  if (uint64_t{o.sizes[0]} * o.sizes[1] > kMaxQGemmBatchCount)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: OutputTensor batch x channel count %llu must be at most %llu (docs/semantics.md, Limits)", kQGemmOp,
                static_cast<unsigned long long>(uint64_t{o.sizes[0]} * o.sizes[1]),
                static_cast<unsigned long long>(kMaxQGemmBatchCount));
  return CPUML_STATUS_SUCCESS;
}

}  // namespace cpuml
