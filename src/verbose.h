// The verbose log (CPUML_VERBOSE=1 or cpuml_set_verbose): one line per create, initialize and
// execute on stderr, in the documented comma-separated form (docs/integration.md):
//   cpuml_verbose,phase,operator,types,sizes,strides,tier,kernel,threads,status,time_us
#ifndef CPUML_SRC_VERBOSE_H_
#define CPUML_SRC_VERBOSE_H_

#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "cpuml/cpuml.h"
#include "src/tensor.h"

namespace cpuml {

extern std::atomic<int> g_verbose;

// The only cost of the log when it is off: one relaxed load and a branch.
inline bool VerboseOn() { return g_verbose.load(std::memory_order_relaxed) != 0; }

// Monotonic clock in microseconds.
double NowMicros();

// Writes one line; `fields` is the operator's Describe() (or the create request's fields when
// create failed).
void VerboseLine(const char* phase, const char* fields, size_t threads, cpuml_status status, double micros);

// Describe() building blocks: "u8", "s8", "f32", ...; and "name=AxBxC" / "name=s0:s1:s2" lists.
const char* ShortTypeName(CPUML_TENSOR_DATA_TYPE type);
struct NamedTensor {
  const char* name;
  const Tensor* tensor;
};
// Appends "operator,types,sizes,strides,tier,kernel" for `tensors` to buf.
void DescribeOperator(char* buf, size_t size, const char* op, const NamedTensor* tensors, size_t count,
                      const char* tier, const char* kernel);

}  // namespace cpuml

#endif  // CPUML_SRC_VERBOSE_H_
