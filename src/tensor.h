// Validated, owned copies of buffer tensor descriptors.
#ifndef CPUML_SRC_TENSOR_H_
#define CPUML_SRC_TENSOR_H_

#include <stddef.h>
#include <stdint.h>

#include "cpuml/cpuml.h"
#include "kernels/common/data_types.h"

namespace cpuml {

constexpr uint32_t kMaxRank = 8;

struct Tensor {
  CPUML_TENSOR_DATA_TYPE type = CPUML_TENSOR_DATA_TYPE_UNKNOWN;
  bool owned = false;        // CPUML_TENSOR_FLAG_OWNED_BY_CPUML
  uint32_t rank = 0;
  uint32_t sizes[kMaxRank] = {};
  uint64_t strides[kMaxRank] = {};  // elements
  uint64_t total_bytes = 0;         // the descriptor's TotalTensorSizeInBytes
  uint64_t reach_bytes = 0;         // bytes the tensor really addresses: last offset + 1 element
  uint32_t alignment = 0;           // GuaranteedBaseOffsetAlignment
  size_t element_size = 0;         // bytes; 1 for the 4-bit types, whose offsets count nibbles
  bool nibbles = false;             // UINT4 or INT4

  uint64_t ElementCount() const;
  // Prepends size-1 dimensions up to `rank` (the matmul's 2-D and 3-D descriptors).
  void PadRankTo(uint32_t new_rank);
};

// What a tensor member may be; `where` names the operator and the member in messages
// ("FILL_VALUE_CONSTANT: OutputTensor").
struct TensorRule {
  const char* where;
  uint32_t min_rank, max_rank;
  uint32_t allowed_types;  // bit (1 << CPUML_TENSOR_DATA_TYPE_x)
};

constexpr uint32_t TypeBit(CPUML_TENSOR_DATA_TYPE t) { return 1u << t; }

// Validates one member: type, dimension count, sizes, strides, TotalTensorSizeInBytes and
// alignment, without any overflow. On failure returns the status with the message set.
cpuml_status ParseTensor(const CPUML_TENSOR_DESC* desc, const TensorRule& rule, Tensor* out);

// Validates a binding at execute/initialize: present, large enough, aligned.
cpuml_status CheckBinding(const CPUML_BUFFER_BINDING& binding, const Tensor& tensor, const char* where);

// Fails when the bytes `output`'s tensor addresses overlap those `input`'s addresses (both
// bindings already checked): outputs are written while inputs are still read.
cpuml_status CheckNoOverlap(const char* op, const CPUML_BUFFER_BINDING& output, const Tensor& output_tensor,
                            const char* output_name, const CPUML_BUFFER_BINDING& input, const Tensor& input_tensor,
                            const char* input_name);

const char* DataTypeName(CPUML_TENSOR_DATA_TYPE type);
// "{1,1,2,4}" into buf.
const char* FormatSizes(const Tensor& t, char* buf, size_t buf_size);

}  // namespace cpuml

#endif  // CPUML_SRC_TENSOR_H_

namespace cpuml {
// True if two different coordinates can address the same element (a stride of 0, or strides
// that interleave). Such outputs are written in row-major order by one thread.
bool MayAlias(const Tensor& t);
}  // namespace cpuml
