// The matrix-multiplication family's descriptor rules: every member's own rules (src/tensor.cc),
// then the shapes and types the operator ties together. One set of rules for every operator of
// the family, read from its MatMulSpec. Nothing here allocates.
#include <stdio.h>

#include <initializer_list>

#include "src/matmul_operator.h"
#include "src/status.h"

namespace cpuml {

cpuml_status ValidateMatMul(const MatMulSpec& spec, const CPUML_TENSOR_DESC* const* members, MatMulDescriptor* out) {
  const char* const op = spec.op;
  out->spec = &spec;
  Tensor* t = out->t;
  bool* present = out->present;
  for (int role = 0; role < kMatMulRoleCount; ++role) {
    out->binding[role] = -1;
    present[role] = false;
  }
  for (uint32_t i = 0; i <= spec.input_count; ++i) {
    const MatMulMember& member = spec.members[i];
    const int role = member.role;
    out->name[role] = member.name;
    if (i < spec.input_count) out->binding[role] = static_cast<int>(i);
    present[role] = members[i] != nullptr;
    if (!present[role]) {
      if (member.optional) continue;
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s must not be NULL", op, member.name);
    }
    char where[96];
    snprintf(where, sizeof where, "%s: %s", op, member.name);
    if (cpuml_status s = ParseTensor(members[i], {where, 2, 4, member.types}, &t[role])) return s;
    t[role].PadRankTo(4);
  }
  auto same_type = [&](int value, int zero_point) -> cpuml_status {
    if (present[zero_point] && t[zero_point].type != t[value].type)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s DataType %s must equal %s DataType %s", op,
                  out->name[zero_point], DataTypeName(t[zero_point].type), out->name[value], DataTypeName(t[value].type));
    return CPUML_STATUS_SUCCESS;
  };
  if (cpuml_status s = same_type(kA, kAZeroPoint)) return s;
  if (cpuml_status s = same_type(kB, kBZeroPoint)) return s;
  if (cpuml_status s = same_type(kOut, kOutZeroPoint)) return s;

  const Tensor &a = t[kA], &b = t[kB], &o = t[kOut];
  char s1[64], s2[64];
  const uint32_t m = a.sizes[2], k = a.sizes[3], n = b.sizes[3];
  if (b.sizes[2] != k)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: BTensor sizes %s must have K=%u rows (ATensor sizes %s)", op,
                FormatSizes(b, s1, sizeof s1), k, FormatSizes(a, s2, sizeof s2));
  // Each of A's and B's batch/channel sizes equals the output's or is 1 (repeated).
  for (int dim = 0; dim < 2; ++dim) {
    for (int role : {kA, kB}) {
      const Tensor& x = t[role];
      if (x.sizes[dim] != 1 && x.sizes[dim] != o.sizes[dim])
        return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                    "%s: %s sizes %s: its %s size %u must be 1 or OutputTensor's %u (OutputTensor sizes %s)", op,
                    out->name[role], FormatSizes(x, s1, sizeof s1), dim == 0 ? "batch" : "channel", x.sizes[dim],
                    o.sizes[dim], FormatSizes(o, s2, sizeof s2));
    }
  }
  if (o.sizes[2] != m || o.sizes[3] != n)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor sizes %s must end in {M,N} = {%u,%u}", op,
                FormatSizes(o, s1, sizeof s1), m, n);
  // Per-tensor {1,1,1,1}, per-row {1,1,M,1} or per-column {1,1,1,N}.
  auto check_shape = [&](int role, bool per_row) -> cpuml_status {
    if (!present[role]) return CPUML_STATUS_SUCCESS;
    const Tensor& x = t[role];
    const uint32_t extent = per_row ? m : n;
    const bool ok = x.sizes[0] == 1 && x.sizes[1] == 1 &&
                    (per_row ? (x.sizes[3] == 1 && (x.sizes[2] == 1 || x.sizes[2] == m))
                             : (x.sizes[2] == 1 && (x.sizes[3] == 1 || x.sizes[3] == n)));
    if (!ok)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s sizes %s must be {1,1,1,1} or %s with %s=%u", op, out->name[role],
                  FormatSizes(x, s1, sizeof s1), per_row ? "{1,1,M,1}" : "{1,1,1,N}", per_row ? "M" : "N", extent);
    return CPUML_STATUS_SUCCESS;
  };
  // 4-bit B (MATRIX_MULTIPLY_INTEGER_TO_FLOAT): unpacked at initialize, its zero points folded in.
  if (b.nibbles) {
    if (!b.owned)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: BTensor of DataType %s must be OWNED_BY_CPUML (4-bit weights are unpacked at initialize)", op,
                  DataTypeName(b.type));
    if (present[kBZeroPoint] && !t[kBZeroPoint].owned)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: BZeroPointTensor of a 4-bit BTensor must be OWNED_BY_CPUML (folded into B at initialize)", op);
  }
  // Blockwise B scales {1,1,blocks,N}: blocks = ceil(K / block) for one of kMatMulBlockSizes.
  const Tensor& b_scale = t[kBScale];
  if (b_scale.sizes[2] > 1) {
    const uint32_t blocks = b_scale.sizes[2];
    for (uint32_t size : kMatMulBlockSizes)
      if ((k + size - 1) / size == blocks) {
        out->b_block = size;
        break;
      }
    if (!b.nibbles)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: BScaleTensor sizes %s are blockwise ({1,1,blocks,N}), which needs a UINT4 or INT4 BTensor (BTensor "
                  "DataType %s)",
                  op, FormatSizes(b_scale, s1, sizeof s1), DataTypeName(b.type));
    if (k > kMaxBlockwiseK)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: BScaleTensor sizes %s are blockwise, which allows K up to %u (K=%u; docs/semantics.md, Limits)", op,
                  FormatSizes(b_scale, s1, sizeof s1), kMaxBlockwiseK, k);
    if (out->b_block == 0 || b_scale.sizes[0] != 1 || b_scale.sizes[1] != 1 || b_scale.sizes[3] != n)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: BScaleTensor sizes %s must be {1,1,1,1}, {1,1,1,N} or blockwise {1,1,ceil(K/block),N} for a block "
                  "of 16, 32, 64, 128 or 256 rows (K=%u, N=%u)",
                  op, FormatSizes(b_scale, s1, sizeof s1), k, n);
    if (present[kBZeroPoint])
      for (int dim = 0; dim < 4; ++dim)
        if (t[kBZeroPoint].sizes[dim] != b_scale.sizes[dim])
          return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: BZeroPointTensor sizes %s must equal BScaleTensor sizes %s",
                      op, FormatSizes(t[kBZeroPoint], s1, sizeof s1), FormatSizes(b_scale, s2, sizeof s2));
  }
  for (int role : {kBScale, kBZeroPoint, kBias})
    if (out->b_block == 0 || role == kBias)
      if (cpuml_status s = check_shape(role, false)) return s;
  // With blockwise B scales, A's scales may be per row and block too: {1,1,M,blocks} or {1,1,1,blocks}.
  const bool a_blockwise = out->b_block && present[kAScale] && t[kAScale].sizes[3] > 1;
  if (a_blockwise) {
    const Tensor& a_scale = t[kAScale];
    if (a_scale.sizes[0] != 1 || a_scale.sizes[1] != 1 || (a_scale.sizes[2] != 1 && a_scale.sizes[2] != m) ||
        a_scale.sizes[3] != b_scale.sizes[2])
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: AScaleTensor sizes %s must be {1,1,1,1}, {1,1,M,1}, or per block as BScaleTensor's %u blocks: "
                  "{1,1,1,%u} or {1,1,M,%u} (M=%u)",
                  op, FormatSizes(a_scale, s1, sizeof s1), b_scale.sizes[2], b_scale.sizes[2], b_scale.sizes[2], m);
  }
  for (int role : {kAScale, kAZeroPoint, kOutScale, kOutZeroPoint})
    if (role != kAScale || !a_blockwise)
      if (cpuml_status s = check_shape(role, true)) return s;
  if (o.owned)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor Flags must not include CPUML_TENSOR_FLAG_OWNED_BY_CPUML", op);
  if (MayAlias(o))
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: OutputTensor Strides must not make two elements share an address (stride 0 or overlap)", op);
  if (uint64_t{o.sizes[0]} * o.sizes[1] > kMaxMatMulBatchCount)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: OutputTensor batch x channel count %llu must be at most %llu (docs/semantics.md, Limits)", op,
                static_cast<unsigned long long>(uint64_t{o.sizes[0]} * o.sizes[1]),
                static_cast<unsigned long long>(kMaxMatMulBatchCount));
  return CPUML_STATUS_SUCCESS;
}

}  // namespace cpuml
