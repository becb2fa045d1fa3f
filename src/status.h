// Per-thread error messages: every failing entry point records one before returning.
#ifndef CPUML_SRC_STATUS_H_
#define CPUML_SRC_STATUS_H_

#include "cpuml/cpuml.h"

namespace cpuml {

// Records printf-style message for this thread and returns `status`.
cpuml_status Fail(cpuml_status status, const char* format, ...) __attribute__((format(printf, 2, 3)));
void ClearError();

}  // namespace cpuml

#endif  // CPUML_SRC_STATUS_H_
