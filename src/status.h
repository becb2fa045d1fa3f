// Per-thread error messages: every failing entry point records one before returning.
#ifndef CPUML_SRC_STATUS_H_
#define CPUML_SRC_STATUS_H_

#include <stdint.h>

#include "cpuml/cpuml.h"

namespace cpuml {

// Records printf-style message for this thread and returns `status`.
cpuml_status Fail(cpuml_status status, const char* format, ...) __attribute__((format(printf, 2, 3)));
void ClearError();

// Reads an enum member of a caller's struct as the integer it holds. A hostile value outside
// the enumerators must be rejected, not loaded as the enum type (that load is undefined).
template <class Enum>
inline int32_t RawEnum(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "C API enums are int-sized");
  int32_t value;
  __builtin_memcpy(&value, &field, sizeof value);
  return value;
}

}  // namespace cpuml

#endif  // CPUML_SRC_STATUS_H_
