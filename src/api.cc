// The C entry points: argument checks common to every operator, then the operator's own code.
#include <new>

#include "src/operator.h"
#include "src/status.h"

using cpuml::Fail;

extern "C" {

CPUML_API cpuml_status cpuml_create_operator(const CPUML_OPERATOR_DESC* desc, cpuml_operator** out) {
  if (out == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_create_operator: out must not be NULL");
  *out = nullptr;
  if (desc == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_create_operator: desc must not be NULL");
  if (desc->Desc == nullptr)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_create_operator: desc->Desc must not be NULL");
  cpuml_status status;
  try {
    const int32_t type = cpuml::RawEnum(desc->Type);
    switch (type) {
      case CPUML_OPERATOR_FILL_VALUE_CONSTANT:
      case CPUML_OPERATOR_FILL_VALUE_SEQUENCE:
        status = cpuml::CreateFillOperator(static_cast<CPUML_OPERATOR_TYPE>(type), desc->Desc, out);
        break;
      case CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY:
        status = cpuml::CreateQuantizedLinearMatrixMultiply(desc->Desc, out);
        break;
      default:
        return Fail(CPUML_STATUS_UNSUPPORTED, "cpuml_create_operator: desc->Type %d is not a supported operator",
                    static_cast<int>(type));
    }
  } catch (const std::bad_alloc&) {
    return Fail(CPUML_STATUS_OUT_OF_MEMORY, "cpuml_create_operator: out of memory");
  }
  if (status == CPUML_STATUS_SUCCESS) cpuml::ClearError();
  return status;
}

CPUML_API cpuml_status cpuml_initialize_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                                 uint32_t input_count) {
  if (op == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_initialize_operator: op must not be NULL");
  if (input_count != 0 && input_count != op->InputCount())
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_initialize_operator: input_count %u must be 0 or %u", input_count,
                op->InputCount());
  if (input_count != 0 && inputs == nullptr)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_initialize_operator: inputs must not be NULL");
  cpuml_status status;
  try {
    status = op->Initialize(input_count ? inputs : nullptr, input_count);
  } catch (const std::bad_alloc&) {
    return Fail(CPUML_STATUS_OUT_OF_MEMORY, "cpuml_initialize_operator: out of memory");
  }
  if (status == CPUML_STATUS_SUCCESS) cpuml::ClearError();
  return status;
}

CPUML_API cpuml_status cpuml_execute_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                              uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
                                              uint32_t output_count, pthreadpool_t threadpool) {
  if (op == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_execute_operator: op must not be NULL");
  if (input_count != op->InputCount())
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_execute_operator: input_count %u must be %u", input_count,
                op->InputCount());
  if (input_count != 0 && inputs == nullptr)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_execute_operator: inputs must not be NULL");
  if (output_count != 1)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_execute_operator: output_count %u must be 1", output_count);
  if (outputs == nullptr)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_execute_operator: outputs must not be NULL");
  cpuml_status status;
  try {
    status = op->Execute(inputs, outputs, threadpool);
  } catch (const std::bad_alloc&) {
    return Fail(CPUML_STATUS_OUT_OF_MEMORY, "cpuml_execute_operator: out of memory");
  }
  if (status == CPUML_STATUS_SUCCESS) cpuml::ClearError();
  return status;
}

CPUML_API void cpuml_destroy_operator(cpuml_operator* op) { delete op; }

}  // extern "C"
