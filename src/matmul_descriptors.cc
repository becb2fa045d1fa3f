// The matrix-multiplication operators as descriptor mappings onto the family's one front end
// (src/matmul_operator.h): each is its members in DirectML's order, the roles they play, and the
// driver's output stage.
#include "src/matmul_operator.h"
#include "src/operator.h"

namespace cpuml {
namespace {
constexpr uint32_t kInt8 = TypeBit(CPUML_TENSOR_DATA_TYPE_INT8) | TypeBit(CPUML_TENSOR_DATA_TYPE_UINT8);
constexpr uint32_t kFloat32 = TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT32);
constexpr uint32_t kInt32 = TypeBit(CPUML_TENSOR_DATA_TYPE_INT32);
constexpr uint32_t kInt4 = TypeBit(CPUML_TENSOR_DATA_TYPE_INT4) | TypeBit(CPUML_TENSOR_DATA_TYPE_UINT4);
}  // namespace

const MatMulSpec kQuantizedLinearMatMulSpec = {
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY",
    QGemmStage::kRequantize8,
    8,
    {{kA, "ATensor", false, kInt8},
     {kAScale, "AScaleTensor", false, kFloat32},
     {kAZeroPoint, "AZeroPointTensor", true, kInt8},
     {kB, "BTensor", false, kInt8},
     {kBScale, "BScaleTensor", false, kFloat32},
     {kBZeroPoint, "BZeroPointTensor", true, kInt8},
     {kOutScale, "OutputScaleTensor", false, kFloat32},
     {kOutZeroPoint, "OutputZeroPointTensor", true, kInt8},
     {kOut, "OutputTensor", false, kInt8}}};

const MatMulSpec kMatMulIntegerSpec = {"MATRIX_MULTIPLY_INTEGER",
                                       QGemmStage::kInt32,
                                       4,
                                       {{kA, "ATensor", false, kInt8},
                                        {kAZeroPoint, "AZeroPointTensor", true, kInt8},
                                        {kB, "BTensor", false, kInt8},
                                        {kBZeroPoint, "BZeroPointTensor", true, kInt8},
                                        {kOut, "OutputTensor", false, kInt32}}};

const MatMulSpec kMatMulIntegerToFloatSpec = {"MATRIX_MULTIPLY_INTEGER_TO_FLOAT",
                                              QGemmStage::kFloat32,
                                              7,
                                              {{kA, "ATensor", false, kInt8},
                                               {kAScale, "AScaleTensor", false, kFloat32},
                                               {kAZeroPoint, "AZeroPointTensor", true, kInt8},
                                               {kB, "BTensor", false, kInt8 | kInt4},
                                               {kBScale, "BScaleTensor", false, kFloat32},
                                               {kBZeroPoint, "BZeroPointTensor", true, kInt8 | kInt4},
                                               {kBias, "BiasTensor", true, kFloat32},
                                               {kOut, "OutputTensor", false, kFloat32}}};

cpuml_status CreateQuantizedLinearMatrixMultiply(const void* desc, cpuml_operator** out) {
  const auto& d = *static_cast<const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC*>(desc);
  const CPUML_TENSOR_DESC* members[] = {d.ATensor,           d.AScaleTensor,          d.AZeroPointTensor,
                                        d.BTensor,           d.BScaleTensor,          d.BZeroPointTensor,
                                        d.OutputScaleTensor, d.OutputZeroPointTensor, d.OutputTensor};
  return CreateMatMulOperator(kQuantizedLinearMatMulSpec, members, out);
}

cpuml_status CreateMatrixMultiplyInteger(const void* desc, cpuml_operator** out) {
  const auto& d = *static_cast<const CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC*>(desc);
  const CPUML_TENSOR_DESC* members[] = {d.ATensor, d.AZeroPointTensor, d.BTensor, d.BZeroPointTensor, d.OutputTensor};
  return CreateMatMulOperator(kMatMulIntegerSpec, members, out);
}

cpuml_status CreateMatrixMultiplyIntegerToFloat(const void* desc, cpuml_operator** out) {
  const auto& d = *static_cast<const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC*>(desc);
  const CPUML_TENSOR_DESC* members[] = {d.ATensor, d.AScaleTensor,     d.AZeroPointTensor, d.BTensor,
                                        d.BScaleTensor, d.BZeroPointTensor, d.BiasTensor,       d.OutputTensor};
  return CreateMatMulOperator(kMatMulIntegerToFloatSpec, members, out);
}

}  // namespace cpuml
