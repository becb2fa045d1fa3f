// The operator objects behind the opaque cpuml_operator handle.
#ifndef CPUML_SRC_OPERATOR_H_
#define CPUML_SRC_OPERATOR_H_

#include <stddef.h>
#include <stdint.h>

#include "cpuml/cpuml.h"

// Each operator picks its kernels at create (src/dispatch.h) and keeps them for its life.
struct cpuml_operator {
  virtual ~cpuml_operator() = default;
  virtual uint32_t InputCount() const = 0;
  virtual uint32_t OutputCount() const { return 1; }
  // Fixed at create.
  virtual CPUML_BINDING_PROPERTIES BindingProperties() const = 0;
  virtual cpuml_status Initialize(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count) = 0;
  // Counts and array pointers are checked by the caller. `scratch` is NULL (the operator uses
  // scratch of its own) or checked to hold TemporaryResourceSize bytes, CPUML_SCRATCH_ALIGNMENT
  // aligned.
  virtual cpuml_status Execute(const CPUML_BUFFER_BINDING* inputs, const CPUML_BUFFER_BINDING* outputs,
                               uint8_t* scratch, pthreadpool_t threadpool) = 0;
  // The verbose log's operator-specific fields (src/verbose.h): "operator,types,sizes,strides,tier,kernel".
  virtual void Describe(char* buf, size_t size) const = 0;
};

namespace cpuml {

cpuml_status CreateFillOperator(CPUML_OPERATOR_TYPE type, const void* desc, cpuml_operator** out);
// The matrix-multiplication family (src/matmul_descriptors.cc).
cpuml_status CreateQuantizedLinearMatrixMultiply(const void* desc, cpuml_operator** out);
cpuml_status CreateMatrixMultiplyInteger(const void* desc, cpuml_operator** out);
cpuml_status CreateMatrixMultiplyIntegerToFloat(const void* desc, cpuml_operator** out);
// src/dynamic_quantize_operator.cc.
cpuml_status CreateDynamicQuantizeLinear(const void* desc, cpuml_operator** out);

}  // namespace cpuml

#endif  // CPUML_SRC_OPERATOR_H_
