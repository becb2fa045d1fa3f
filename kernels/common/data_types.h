// Facts about the public data types that the front end, the kernels and the tests share.
#ifndef CPUML_KERNELS_COMMON_DATA_TYPES_H_
#define CPUML_KERNELS_COMMON_DATA_TYPES_H_

#include <stddef.h>

#include "cpuml/cpuml.h"

namespace cpuml {

// Bytes of one element; 0 for a value that is not a data type.
size_t DataTypeSize(CPUML_TENSOR_DATA_TYPE type);

}  // namespace cpuml

#endif  // CPUML_KERNELS_COMMON_DATA_TYPES_H_
