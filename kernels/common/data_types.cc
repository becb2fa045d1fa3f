#include "kernels/common/data_types.h"

namespace cpuml {

size_t DataTypeSize(CPUML_TENSOR_DATA_TYPE type) {
  switch (type) {
    case CPUML_TENSOR_DATA_TYPE_FLOAT32:
    case CPUML_TENSOR_DATA_TYPE_UINT32:
    case CPUML_TENSOR_DATA_TYPE_INT32:
      return 4;
    case CPUML_TENSOR_DATA_TYPE_FLOAT16:
    case CPUML_TENSOR_DATA_TYPE_UINT16:
    case CPUML_TENSOR_DATA_TYPE_INT16:
      return 2;
    case CPUML_TENSOR_DATA_TYPE_UINT8:
    case CPUML_TENSOR_DATA_TYPE_INT8:
      return 1;
    default:
      return 0;
  }
}

}  // namespace cpuml
