// The C entry points: argument checks common to every operator, the verbose log, then the
// operator's own code.
#include <pthreadpool.h>
#include <stdio.h>

#include <new>

#include "src/operator.h"
#include "src/status.h"
#include "src/verbose.h"

using cpuml::Fail;

namespace {

const char* OperatorName(int32_t type) {
  switch (type) {
    case CPUML_OPERATOR_FILL_VALUE_CONSTANT: return "FILL_VALUE_CONSTANT";
    case CPUML_OPERATOR_FILL_VALUE_SEQUENCE: return "FILL_VALUE_SEQUENCE";
    case CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY: return "QUANTIZED_LINEAR_MATRIX_MULTIPLY";
    case CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER: return "MATRIX_MULTIPLY_INTEGER";
    case CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT: return "MATRIX_MULTIPLY_INTEGER_TO_FLOAT";
    case CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR: return "DYNAMIC_QUANTIZE_LINEAR";
  }
  return "?";
}

cpuml_status Create(const CPUML_OPERATOR_DESC* desc, cpuml_operator** out) {
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
      case CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER:
        status = cpuml::CreateMatrixMultiplyInteger(desc->Desc, out);
        break;
      case CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT:
        status = cpuml::CreateMatrixMultiplyIntegerToFloat(desc->Desc, out);
        break;
      case CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR:
        status = cpuml::CreateDynamicQuantizeLinear(desc->Desc, out);
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

cpuml_status Initialize(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs, uint32_t input_count) {
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

cpuml_status Execute(const char* api, cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs, uint32_t input_count,
                     const CPUML_BUFFER_BINDING* outputs, uint32_t output_count, const CPUML_BUFFER_BINDING* scratch,
                     pthreadpool_t threadpool) {
  if (op == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: op must not be NULL", api);
  if (input_count != op->InputCount())
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: input_count %u must be %u", api, input_count, op->InputCount());
  if (input_count != 0 && inputs == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: inputs must not be NULL", api);
  if (output_count != op->OutputCount())
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: output_count %u must be %u", api, output_count, op->OutputCount());
  if (outputs == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: outputs must not be NULL", api);
  uint8_t* scratch_data = nullptr;
  if (scratch != nullptr) {
    const uint64_t needed = op->BindingProperties().TemporaryResourceSize;
    if (scratch->SizeInBytes < needed)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: scratch->SizeInBytes %llu must be at least the operator's TemporaryResourceSize %llu", api,
                  static_cast<unsigned long long>(scratch->SizeInBytes), static_cast<unsigned long long>(needed));
    if (needed != 0 && scratch->Data == nullptr)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: scratch->Data must not be NULL (TemporaryResourceSize is %llu)",
                  api, static_cast<unsigned long long>(needed));
    if (reinterpret_cast<uintptr_t>(scratch->Data) % CPUML_SCRATCH_ALIGNMENT != 0)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: scratch->Data must be aligned to CPUML_SCRATCH_ALIGNMENT (%d bytes)",
                  api, CPUML_SCRATCH_ALIGNMENT);
    // Non-NULL even when nothing is needed: it tells the operator not to use scratch of its own.
    static uint8_t no_scratch alignas(CPUML_SCRATCH_ALIGNMENT);
    scratch_data = needed != 0 ? static_cast<uint8_t*>(scratch->Data) : &no_scratch;
  }
  cpuml_status status;
  try {
    status = op->Execute(inputs, outputs, scratch_data, threadpool);
  } catch (const std::bad_alloc&) {
    return Fail(CPUML_STATUS_OUT_OF_MEMORY, "%s: out of memory", api);
  }
  if (status == CPUML_STATUS_SUCCESS) cpuml::ClearError();
  return status;
}

constexpr size_t kVerboseFieldsSize = 768;

void LogOperator(const char* phase, const cpuml_operator* op, size_t threads, cpuml_status status, double start) {
  char fields[kVerboseFieldsSize];
  op->Describe(fields, sizeof fields);
  cpuml::VerboseLine(phase, fields, threads, status, cpuml::NowMicros() - start);
}

// Execute, and its verbose line when the log is on.
cpuml_status LoggedExecute(const char* api, cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs, uint32_t input_count,
                           const CPUML_BUFFER_BINDING* outputs, uint32_t output_count,
                           const CPUML_BUFFER_BINDING* scratch, pthreadpool_t threadpool) {
  if (!cpuml::VerboseOn() || op == nullptr)
    return Execute(api, op, inputs, input_count, outputs, output_count, scratch, threadpool);
  const double start = cpuml::NowMicros();
  const cpuml_status status = Execute(api, op, inputs, input_count, outputs, output_count, scratch, threadpool);
  LogOperator("execute", op, threadpool ? pthreadpool_get_threads_count(threadpool) : 1, status, start);
  return status;
}

}  // namespace

extern "C" {

CPUML_API cpuml_status cpuml_create_operator(const CPUML_OPERATOR_DESC* desc, cpuml_operator** out) {
  if (!cpuml::VerboseOn()) return Create(desc, out);
  const double start = cpuml::NowMicros();
  const cpuml_status status = Create(desc, out);
  if (status == CPUML_STATUS_SUCCESS) {
    LogOperator("create", *out, 1, status, start);
  } else {
    // No operator to describe: the requested type and empty fields.
    char fields[64];
    snprintf(fields, sizeof fields, "%s,,,,,", desc && desc->Desc ? OperatorName(cpuml::RawEnum(desc->Type)) : "?");
    cpuml::VerboseLine("create", fields, 1, status, cpuml::NowMicros() - start);
  }
  return status;
}

CPUML_API cpuml_status cpuml_initialize_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                                 uint32_t input_count) {
  if (!cpuml::VerboseOn() || op == nullptr) return Initialize(op, inputs, input_count);
  const double start = cpuml::NowMicros();
  const cpuml_status status = Initialize(op, inputs, input_count);
  LogOperator("initialize", op, 1, status, start);
  return status;
}

CPUML_API cpuml_status cpuml_execute_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                              uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
                                              uint32_t output_count, pthreadpool_t threadpool) {
  return LoggedExecute("cpuml_execute_operator", op, inputs, input_count, outputs, output_count, nullptr, threadpool);
}

CPUML_API cpuml_status cpuml_execute_operator_with_scratch(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                                           uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
                                                           uint32_t output_count, const CPUML_BUFFER_BINDING* scratch,
                                                           pthreadpool_t threadpool) {
  return LoggedExecute("cpuml_execute_operator_with_scratch", op, inputs, input_count, outputs, output_count, scratch,
                       threadpool);
}

CPUML_API cpuml_status cpuml_get_binding_properties(const cpuml_operator* op, CPUML_BINDING_PROPERTIES* properties) {
  if (op == nullptr) return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_get_binding_properties: op must not be NULL");
  if (properties == nullptr)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_get_binding_properties: properties must not be NULL");
  *properties = op->BindingProperties();
  cpuml::ClearError();
  return CPUML_STATUS_SUCCESS;
}

CPUML_API void cpuml_destroy_operator(cpuml_operator* op) { delete op; }

#define CPUML_STRINGIFY_(x) #x
#define CPUML_STRINGIFY(x) CPUML_STRINGIFY_(x)

CPUML_API uint32_t cpuml_get_version(void) { return CPUML_VERSION; }

CPUML_API const char* cpuml_get_version_string(void) {
  return CPUML_STRINGIFY(CPUML_VERSION_MAJOR) "." CPUML_STRINGIFY(CPUML_VERSION_MINOR) "." CPUML_STRINGIFY(
      CPUML_VERSION_PATCH);
}

}  // extern "C"
