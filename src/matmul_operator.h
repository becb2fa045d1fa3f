// The matrix-multiplication family's front end: QUANTIZED_LINEAR_MATRIX_MULTIPLY,
// MATRIX_MULTIPLY_INTEGER and MATRIX_MULTIPLY_INTEGER_TO_FLOAT are one operator object
// (src/matmul_operator.cc) over one validation (src/matmul_validate.cc) and one driver
// (src/qgemm_driver.cc). An operator of the family is a MatMulSpec (src/matmul_descriptors.cc):
// which roles its descriptor's members play, their names, types and whether they are optional,
// and the driver's output stage.
#ifndef CPUML_SRC_MATMUL_OPERATOR_H_
#define CPUML_SRC_MATMUL_OPERATOR_H_

#include "cpuml/cpuml.h"
#include "src/qgemm_driver.h"
#include "src/tensor.h"

namespace cpuml {

// What a descriptor member is to the front end. Every operator of the family has A, B and the
// output; the others are present in some operators' descriptors only.
enum MatMulRole {
  kA, kAScale, kAZeroPoint, kB, kBScale, kBZeroPoint, kOutScale, kOutZeroPoint, kBias, kOut, kMatMulRoleCount
};

struct MatMulMember {
  MatMulRole role;
  const char* name;      // the descriptor's member name ("AZeroPointTensor")
  bool optional;         // may be NULL
  uint32_t types;        // allowed data types (TypeBit)
};

struct MatMulSpec {
  const char* op;         // "MATRIX_MULTIPLY_INTEGER"
  QGemmStage stage;       // what the driver does with the exact sums
  uint32_t input_count;   // members[0, input_count) bind as inputs in this order
  MatMulMember members[kMatMulRoleCount];  // the inputs, then the output last
};

extern const MatMulSpec kQuantizedLinearMatMulSpec, kMatMulIntegerSpec, kMatMulIntegerToFloatSpec;

// The largest output batch x channel count accepted. Every batch is its own product, so the
// limit bounds an execute's work; real models stay far below it (docs/semantics.md, Limits).
constexpr uint64_t kMaxMatMulBatchCount = (uint64_t{1} << 31) - 1;

// A validated descriptor, by role: every member present (or an absent optional one), 4-D.
struct MatMulDescriptor {
  const MatMulSpec* spec = nullptr;
  Tensor t[kMatMulRoleCount];
  bool present[kMatMulRoleCount] = {};
  int binding[kMatMulRoleCount];  // the role's input binding index; -1 for none (and the output)
  const char* name[kMatMulRoleCount] = {};
  // B's scales (and zero points) per block of this many K rows and per column, the last block
  // possibly shorter; 0 for per-tensor or per-column scales (docs/semantics.md).
  uint32_t b_block = 0;
};

// The block sizes BScaleTensor {1,1,blocks,N} may stand for, and the longest K blockwise scales
// accept: each block is a K chunk of the plan, so K bounds the chunks' bookkeeping (a scale tensor
// with stride 0 could otherwise name 2^28 blocks in a few bytes). Real layers are far below it.
constexpr uint32_t kMatMulBlockSizes[] = {16, 32, 64, 128, 256};
constexpr uint32_t kMaxBlockwiseK = uint32_t{1} << 20;

// `members`: the descriptor's tensor pointers in member order (spec.input_count + 1 of them).
cpuml_status ValidateMatMul(const MatMulSpec& spec, const CPUML_TENSOR_DESC* const* members, MatMulDescriptor* out);

// Validates and creates the operator of `spec`.
cpuml_status CreateMatMulOperator(const MatMulSpec& spec, const CPUML_TENSOR_DESC* const* members,
                                  cpuml_operator** out);

}  // namespace cpuml

#endif  // CPUML_SRC_MATMUL_OPERATOR_H_
