#include "src/verbose.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

namespace cpuml {
namespace {

int VerboseFromEnvironment() {
  const char* env = getenv("CPUML_VERBOSE");
  return env != nullptr && env[0] != '\0' && strcmp(env, "0") != 0 ? 1 : 0;
}

const char* StatusName(cpuml_status status) {
  switch (status) {
    case CPUML_STATUS_SUCCESS: return "SUCCESS";
    case CPUML_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case CPUML_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case CPUML_STATUS_INVALID_STATE: return "INVALID_STATE";
    case CPUML_STATUS_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
  }
  return "UNKNOWN";
}

// Appends printf output at *used, never past size.
__attribute__((format(printf, 4, 5))) void Append(char* buf, size_t size, size_t* used, const char* format, ...) {
  if (*used >= size) return;
  va_list args;
  va_start(args, format);
  const int n = vsnprintf(buf + *used, size - *used, format, args);
  va_end(args);
  if (n > 0) *used += static_cast<size_t>(n);
}

}  // namespace

std::atomic<int> g_verbose{VerboseFromEnvironment()};

double NowMicros() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) * 1e-3;
}

void VerboseLine(const char* phase, const char* fields, size_t threads, cpuml_status status, double micros) {
  // One fprintf per line: stderr is unbuffered, and lines of concurrent calls must not interleave.
  fprintf(stderr, "cpuml_verbose,%s,%s,%zu,%s,%.1f\n", phase, fields, threads, StatusName(status), micros);
}

const char* ShortTypeName(CPUML_TENSOR_DATA_TYPE type) {
  switch (type) {
    case CPUML_TENSOR_DATA_TYPE_FLOAT32: return "f32";
    case CPUML_TENSOR_DATA_TYPE_FLOAT16: return "f16";
    case CPUML_TENSOR_DATA_TYPE_UINT32: return "u32";
    case CPUML_TENSOR_DATA_TYPE_UINT16: return "u16";
    case CPUML_TENSOR_DATA_TYPE_UINT8: return "u8";
    case CPUML_TENSOR_DATA_TYPE_INT32: return "s32";
    case CPUML_TENSOR_DATA_TYPE_INT16: return "s16";
    case CPUML_TENSOR_DATA_TYPE_INT8: return "s8";
    case CPUML_TENSOR_DATA_TYPE_UINT4: return "u4";
    case CPUML_TENSOR_DATA_TYPE_INT4: return "s4";
    case CPUML_TENSOR_DATA_TYPE_UNKNOWN: break;
  }
  return "?";
}

void DescribeOperator(char* buf, size_t size, const char* op, const NamedTensor* tensors, size_t count,
                      const char* tier, const char* kernel) {
  size_t used = 0;
  Append(buf, size, &used, "%s,", op);
  for (size_t i = 0; i < count; ++i)
    Append(buf, size, &used, "%s%s=%s", i ? " " : "", tensors[i].name, ShortTypeName(tensors[i].tensor->type));
  Append(buf, size, &used, ",");
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = *tensors[i].tensor;
    Append(buf, size, &used, "%s%s=", i ? " " : "", tensors[i].name);
    for (uint32_t d = 0; d < t.rank; ++d) Append(buf, size, &used, d ? "x%u" : "%u", t.sizes[d]);
  }
  Append(buf, size, &used, ",");
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = *tensors[i].tensor;
    Append(buf, size, &used, "%s%s=", i ? " " : "", tensors[i].name);
    for (uint32_t d = 0; d < t.rank; ++d)
      Append(buf, size, &used, d ? ":%llu" : "%llu", static_cast<unsigned long long>(t.strides[d]));
  }
  Append(buf, size, &used, ",%s,%s", tier, kernel);
}

}  // namespace cpuml

extern "C" {

CPUML_API void cpuml_set_verbose(int level) { cpuml::g_verbose.store(level > 0 ? 1 : 0, std::memory_order_relaxed); }

CPUML_API int cpuml_get_verbose(void) { return cpuml::g_verbose.load(std::memory_order_relaxed); }

}  // extern "C"
