// The scalar reference: plain, obviously correct loops that define cpuml's results. It is the
// oracle of every test and is not part of the library; it shares only the half conversions
// (kernels/common/half.h) with the fast paths. Compiled with -ffp-contract=off.
#ifndef CPUML_TESTS_REFERENCE_REFERENCE_H_
#define CPUML_TESTS_REFERENCE_REFERENCE_H_

#include <stddef.h>
#include <stdint.h>

#include "cpuml/cpuml.h"
#include "kernels/common/data_types.h"
#include "kernels/common/half.h"

namespace cpuml {
namespace reference {

// A strided view: element (i0..i{rank-1}) lives at data + sum(i_d * strides[d]) elements.
struct TensorView {
  CPUML_TENSOR_DATA_TYPE type;
  uint32_t rank;
  const uint32_t* sizes;
  const uint64_t* strides;  // elements
  void* data;
};

void FillValueConstant(const TensorView& out, CPUML_SCALAR_UNION value);
void FillValueSequence(const TensorView& out, CPUML_SCALAR_UNION start, CPUML_SCALAR_UNION delta);

// The requantization formula of docs/semantics.md, for one output element.
int32_t Requantize(int64_t acc, float a_scale, float b_scale, float out_scale, int32_t out_zero_point,
                   bool out_signed);

// All views are 4-D. Zero-point views may have data == NULL (absent). Broadcasting follows the
// operator's rules: a batch/channel size of 1 on A or B is repeated.
struct QLinearMatMulArgs {
  TensorView a, a_scale, a_zero_point, b, b_scale, b_zero_point, out_scale, out_zero_point, out;
};
void QuantizedLinearMatrixMultiply(const QLinearMatMulArgs& args);

// MATRIX_MULTIPLY_INTEGER (out INT32, the exact sum modulo 2^32) and
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT (out FLOAT32: float(sum) * (AScale * BScale), then + Bias when
// present). Views with data == NULL are absent.
struct MatMulIntegerArgs {
  TensorView a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, out;
};
void MatrixMultiplyInteger(const MatMulIntegerArgs& args);
void MatrixMultiplyIntegerToFloat(const MatMulIntegerArgs& args);

// DYNAMIC_QUANTIZE_LINEAR (docs/semantics.md): input FLOAT32 or FLOAT16, 4-D; scale and zero
// point all-1 sizes (per tensor) or the input's with the last size 1 (per row). A zero point with
// NULL data: symmetric INT8, scale per row and block ({..., blocks}: the blockwise rule's block).
void DynamicQuantizeLinear(const TensorView& input, const TensorView& out, const TensorView& scale,
                           const TensorView& zero_point);

}  // namespace reference
}  // namespace cpuml

#endif  // CPUML_TESTS_REFERENCE_REFERENCE_H_
