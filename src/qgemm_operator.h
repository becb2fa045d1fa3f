// QUANTIZED_LINEAR_MATRIX_MULTIPLY's front end: validation (src/qgemm_validate.cc), the operator
// object with its bindings and quantization decoding (src/qgemm_operator.cc), and the driver
// (src/qgemm_driver.cc).
#ifndef CPUML_SRC_QGEMM_OPERATOR_H_
#define CPUML_SRC_QGEMM_OPERATOR_H_

#include "cpuml/cpuml.h"
#include "src/tensor.h"

namespace cpuml {

constexpr const char* kQGemmOp = "QUANTIZED_LINEAR_MATRIX_MULTIPLY";

// Descriptor members in their binding order.
enum QGemmMember { kA, kAScale, kAZeroPoint, kB, kBScale, kBZeroPoint, kOutScale, kOutZeroPoint, kOut, kQGemmMemberCount };
extern const char* const kQGemmMemberNames[kQGemmMemberCount];

// The largest output batch x channel count accepted. Every batch is its own product, so the
// limit bounds an execute's work; real models stay far below it (docs/semantics.md, Limits).
constexpr uint64_t kMaxQGemmBatchCount = (uint64_t{1} << 31) - 1;

// A validated descriptor: every member present (or an absent optional one), 4-D.
struct QGemmDescriptor {
  Tensor t[kQGemmMemberCount];
  bool present[kQGemmMemberCount];
};

cpuml_status ValidateQGemm(const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC* desc, QGemmDescriptor* out);

}  // namespace cpuml

#endif  // CPUML_SRC_QGEMM_OPERATOR_H_
