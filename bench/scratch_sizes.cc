// TemporaryResourceSize (an execute's scratch) and PersistentResourceSize of
// QUANTIZED_LINEAR_MATRIX_MULTIPLY on the standard shapes, with B owned and with B bound at every
// execute, for every tier this CPU has; and of the K = 2^30 problem with A and B of stride 0 and
// a 3 x 5 output. docs/benchmarks.md ("Scratch") lists what it prints.
//
//   build/bench/bench/cpuml_scratch_sizes
#include <stdint.h>
#include <stdio.h>

#include <initializer_list>

#include "cpuml/cpuml.h"

namespace {

struct Shape {
  uint32_t m, k, n;
  bool stride_zero;  // A and B of one element each, repeated through stride 0
};

CPUML_TENSOR_DESC Buffer(CPUML_BUFFER_TENSOR_DESC* b, CPUML_TENSOR_DATA_TYPE type, const uint32_t* sizes,
                         const uint32_t* strides, uint64_t bytes, CPUML_TENSOR_FLAGS flags) {
  *b = {type, flags, 4, sizes, strides, bytes, 0};
  return {CPUML_TENSOR_TYPE_BUFFER, b};
}

bool Print(const Shape& s, bool b_owned) {
  const uint32_t a_sizes[4] = {1, 1, s.m, s.k}, b_sizes[4] = {1, 1, s.k, s.n}, out_sizes[4] = {1, 1, s.m, s.n};
  const uint32_t one[4] = {1, 1, 1, 1}, zero[4] = {0, 0, 0, 0};
  CPUML_BUFFER_TENSOR_DESC a_buffer, b_buffer, out_buffer, scale_buffer;
  const CPUML_TENSOR_DESC a = Buffer(&a_buffer, CPUML_TENSOR_DATA_TYPE_UINT8, a_sizes, s.stride_zero ? zero : nullptr,
                                     s.stride_zero ? 4 : (uint64_t{s.m} * s.k + 3) / 4 * 4, CPUML_TENSOR_FLAG_NONE);
  const CPUML_TENSOR_DESC b = Buffer(&b_buffer, CPUML_TENSOR_DATA_TYPE_INT8, b_sizes, s.stride_zero ? zero : nullptr,
                                     s.stride_zero ? 4 : (uint64_t{s.k} * s.n + 3) / 4 * 4,
                                     b_owned ? CPUML_TENSOR_FLAG_OWNED_BY_CPUML : CPUML_TENSOR_FLAG_NONE);
  const CPUML_TENSOR_DESC out = Buffer(&out_buffer, CPUML_TENSOR_DATA_TYPE_UINT8, out_sizes, nullptr,
                                       (uint64_t{s.m} * s.n + 3) / 4 * 4, CPUML_TENSOR_FLAG_NONE);
  const CPUML_TENSOR_DESC scale =
      Buffer(&scale_buffer, CPUML_TENSOR_DATA_TYPE_FLOAT32, one, nullptr, 4, CPUML_TENSOR_FLAG_NONE);
  const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC desc{&a,     &scale,  nullptr, &b,  &scale,
                                                                  nullptr, &scale, nullptr, &out};
  const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &desc};
  cpuml_operator* op = nullptr;
  if (cpuml_create_operator(&op_desc, &op) != CPUML_STATUS_SUCCESS) {
    fprintf(stderr, "create: %s\n", cpuml_last_error_message());
    return false;
  }
  CPUML_BINDING_PROPERTIES p{};
  cpuml_get_binding_properties(op, &p);
  printf("| %s | %ux%ux%u%s | %s | %llu | %.1f | %llu |\n", cpuml_isa_name(cpuml_get_isa()), s.m, s.k, s.n,
         s.stride_zero ? " (stride 0)" : "", b_owned ? "owned" : "bound", static_cast<unsigned long long>(p.TemporaryResourceSize),
         static_cast<double>(p.TemporaryResourceSize) / (1 << 20), static_cast<unsigned long long>(p.PersistentResourceSize));
  cpuml_destroy_operator(op);
  return true;
}

}  // namespace

int main() {
  const Shape shapes[] = {{3, 1u << 30, 5, true},   {1, 4096, 11008, false},  {1, 11008, 4096, false},
                          {16, 4096, 4096, false},  {128, 768, 3072, false},  {512, 4096, 4096, false},
                          {1024, 1024, 1024, false}, {2048, 2048, 2048, false}};
  const cpuml_isa tiers[] = {CPUML_ISA_SCALAR, CPUML_ISA_SSE41,     CPUML_ISA_AVX2,        CPUML_ISA_AVXVNNI,
                             CPUML_ISA_AVX512VNNI, CPUML_ISA_AMX, CPUML_ISA_NEON, CPUML_ISA_NEON_DOTPROD,
                             CPUML_ISA_NEON_I8MM};
  printf("| tier | M x K x N | B | TemporaryResourceSize (bytes) | (MiB) | PersistentResourceSize (bytes) |\n");
  printf("|---|---|---|---|---|---|\n");
  bool ok = true;
  for (cpuml_isa tier : tiers) {
    if (!cpuml_is_isa_supported(tier)) continue;
    cpuml_set_max_isa(tier);
    for (const Shape& s : shapes)
      for (bool owned : {false, true}) ok &= Print(s, owned);
  }
  return ok ? 0 : 1;
}
