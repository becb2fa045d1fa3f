#include "src/status.h"

#include <stdarg.h>
#include <stdio.h>

namespace cpuml {
namespace {
thread_local char g_last_error[512];
}

cpuml_status Fail(cpuml_status status, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_last_error, sizeof g_last_error, format, args);
  va_end(args);
  return status;
}

void ClearError() { g_last_error[0] = '\0'; }

}  // namespace cpuml

extern "C" {

CPUML_API const char* cpuml_last_error_message(void) { return cpuml::g_last_error; }

CPUML_API const char* cpuml_status_string(cpuml_status status) {
  switch (status) {
    case CPUML_STATUS_SUCCESS: return "success";
    case CPUML_STATUS_INVALID_ARGUMENT: return "invalid argument";
    case CPUML_STATUS_UNSUPPORTED: return "unsupported";
    case CPUML_STATUS_INVALID_STATE: return "invalid state";
    case CPUML_STATUS_OUT_OF_MEMORY: return "out of memory";
  }
  return "unknown status";
}

}  // extern "C"
