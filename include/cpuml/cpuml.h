/**
 * @file cpuml.h
 * @brief cpuml's C API: SIMD CPU kernels for DirectML-style operators.
 *
 * The descriptors mirror DirectML's (DML_* -> CPUML_*), so an engine that already builds
 * DML descriptors can port by renaming. Semantics are specified in docs/semantics.md; how an
 * engine maps ONNX and DirectML operators onto cpuml is in docs/integration.md.
 *
 * Lifecycle:
 *  - cpuml_create_operator: validate the descriptor, plan the kernels;
 *  - cpuml_initialize_operator: read inputs flagged OWNED_BY_CPUML once (prepack);
 *  - cpuml_execute_operator (or cpuml_execute_operator_with_scratch): run; thread-safe on one
 *    operator;
 *  - cpuml_destroy_operator.
 *
 * Errors: every call returns a cpuml_status; on failure cpuml_last_error_message() gives the
 * calling thread's message (operator, member and the rule broken) and no output byte is written.
 *
 * Memory: create and initialize allocate. An execute given scratch of
 * cpuml_get_binding_properties()' TemporaryResourceSize (cpuml_execute_operator_with_scratch)
 * allocates nothing. A plain cpuml_execute_operator uses scratch the operator owns: one buffer
 * per caller executing it at the same moment, made on first need and kept until
 * cpuml_destroy_operator (so N threads executing one operator at once keep N buffers).
 *
 * Limits (docs/semantics.md): any uint32 size, K included, is accepted, with these exceptions,
 * each refused at create with CPUML_STATUS_INVALID_ARGUMENT and the limit named:
 *  - a tensor's element count, and its addressed byte range, must fit 64 bits (the byte range
 *    2^62 bytes);
 *  - the matrix multiplications: the output's batch x channel count is at most 2^31 - 1, and the
 *    packed workspace sizes the shapes imply must be at most 2^62 bytes.
 * Every count, offset and size derived from a descriptor is computed in 64 bits with overflow
 * checked. Memory that cannot be had is CPUML_STATUS_OUT_OF_MEMORY, with nothing written.
 *
 * Overlap: an output binding whose bytes (the range its sizes and strides address) overlap
 * those of any input binding, or of another output, is CPUML_STATUS_INVALID_ARGUMENT at execute,
 * with nothing written. Some paths read A while outputs are being written (A read in place), so
 * an overlap would give wrong bytes rather than an in-place result. Memory shared through two
 * different mappings of one page is not detected.
 *
 * NaN and infinity: a NaN that reaches a requantization (a NaN product of scales) gives the
 * output type's minimum after the clamp (docs/semantics.md gives each operator's rule); scales
 * must be finite, and scales of QUANTIZED_LINEAR_MATRIX_MULTIPLY also > 0, else
 * CPUML_STATUS_INVALID_ARGUMENT. Float inputs of DYNAMIC_QUANTIZE_LINEAR may hold any value: a
 * NaN element is left out of the range and quantizes to the zero point.
 *
 * Initialize: inputs flagged OWNED_BY_CPUML are read (and checked: bindings, and the values of
 * owned scales) at cpuml_initialize_operator, and those not owned at every execute. A second
 * initialize reads the owned inputs again: it re-packs B and may switch kernels (a kernel that
 * needs small B values is used only when the new B has them); it must not overlap executes on
 * the same operator.
 *
 * Versioning: CPUML_VERSION_MAJOR changes break the ABI, and the shared library's SONAME
 * (libcpuml.so.MAJOR) follows it; a minor version only adds (operators, enum values, functions)
 * and keeps the ABI, at every major version, 0 included; a patch version fixes only. The CMake
 * package accepts any installed version of the same major that is not older than the one asked.
 *
 * Thread safety: every function may be called from any thread. One operator may be executed
 * from several threads at once; initialize and destroy must not overlap other calls on the same
 * operator. The tier cap and the verbose switch are process-wide. Executes that share one
 * pthreadpool_t run one after another (the pool runs one parallel section at a time and
 * serializes callers), with the same bytes as when run alone; give each concurrent caller its
 * own pool to run them side by side.
 *
 * Tiers: cpuml_get_isa() reports the tier whose matrix kernels operators created now use. The
 * fills and DYNAMIC_QUANTIZE_LINEAR pick their own tier, the best under the same cap whose
 * vector instructions the CPU has (a CPU may have AVX-512 without VNNI): the bytes are the same
 * on every tier.
 */
#ifndef CPUML_CPUML_H_
#define CPUML_CPUML_H_

#include <stddef.h>
#include <stdint.h>

/** Marks the exported C API (the shared library exports these functions and nothing else). */
#if defined(_WIN32)
#define CPUML_API __declspec(dllexport)
#else
#define CPUML_API __attribute__((visibility("default")))
#endif

/** Major version of this header: changes break the ABI (the shared library's SONAME follows it). */
#define CPUML_VERSION_MAJOR 0
/** Minor version of this header: additions that keep the ABI (at every major version, 0 included). */
#define CPUML_VERSION_MINOR 2
/** Patch version of this header: fixes only. */
#define CPUML_VERSION_PATCH 0
/** This header's version as one number, major * 10000 + minor * 100 + patch; compare it with
 *  cpuml_get_version() to check the library loaded at run time. */
#define CPUML_VERSION (CPUML_VERSION_MAJOR * 10000 + CPUML_VERSION_MINOR * 100 + CPUML_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque thread pool from libpthreadpool (the pool XNNPACK uses). NULL runs on the calling thread. */
typedef struct pthreadpool* pthreadpool_t;

/** What every cpuml call returns. */
typedef enum cpuml_status {
  CPUML_STATUS_SUCCESS = 0,          /**< The call did what it was asked. */
  CPUML_STATUS_INVALID_ARGUMENT = 1, /**< A descriptor or binding breaks a rule (the message names it). */
  CPUML_STATUS_UNSUPPORTED = 2,      /**< Well-formed, but a type or operator cpuml does not implement. */
  CPUML_STATUS_INVALID_STATE = 3,    /**< E.g. execute before a required initialize. */
  CPUML_STATUS_OUT_OF_MEMORY = 4,    /**< An allocation failed; nothing was written. */
} cpuml_status;

/** Element types. Values are DirectML's DML_TENSOR_DATA_TYPE values; any other value is rejected
 *  as CPUML_STATUS_UNSUPPORTED. */
typedef enum CPUML_TENSOR_DATA_TYPE {
  CPUML_TENSOR_DATA_TYPE_UNKNOWN = 0, /**< Not a type: always rejected. */
  CPUML_TENSOR_DATA_TYPE_FLOAT32 = 1, /**< IEEE binary32. */
  CPUML_TENSOR_DATA_TYPE_FLOAT16 = 2, /**< IEEE binary16, stored as its 16-bit pattern. */
  CPUML_TENSOR_DATA_TYPE_UINT32 = 3,  /**< Unsigned 32-bit integer. */
  CPUML_TENSOR_DATA_TYPE_UINT16 = 4,  /**< Unsigned 16-bit integer. */
  CPUML_TENSOR_DATA_TYPE_UINT8 = 5,   /**< Unsigned 8-bit integer. */
  CPUML_TENSOR_DATA_TYPE_INT32 = 6,   /**< Two's complement 32-bit integer. */
  CPUML_TENSOR_DATA_TYPE_INT16 = 7,   /**< Two's complement 16-bit integer. */
  CPUML_TENSOR_DATA_TYPE_INT8 = 8,    /**< Two's complement 8-bit integer. */
  /* 9-11 are DirectML's FLOAT64, UINT64 and INT64, which no cpuml operator accepts. */
  /** Unsigned 4-bit integer, two to a byte (DirectML feature level 6.3). Strides and sizes count
   *  elements; element offset o (sum of index x stride) is in byte o / 2, in its low nibble when o
   *  is even. TotalTensorSizeInBytes covers ceil((largest offset + 1) / 2) bytes, rounded up to 4.
   *  Accepted only where a member says so (MATRIX_MULTIPLY_INTEGER_TO_FLOAT's BTensor). */
  CPUML_TENSOR_DATA_TYPE_UINT4 = 12,
  CPUML_TENSOR_DATA_TYPE_INT4 = 13, /**< Two's complement 4-bit integer (-8..7), packed as UINT4. */
} CPUML_TENSOR_DATA_TYPE;

/** The kind of tensor a CPUML_TENSOR_DESC describes. */
typedef enum CPUML_TENSOR_TYPE {
  CPUML_TENSOR_TYPE_INVALID = 0, /**< Not a tensor type: always rejected. */
  CPUML_TENSOR_TYPE_BUFFER = 1,  /**< A CPUML_BUFFER_TENSOR_DESC in caller memory. */
} CPUML_TENSOR_TYPE;

/** Flags of a buffer tensor. */
typedef enum CPUML_TENSOR_FLAGS {
  CPUML_TENSOR_FLAG_NONE = 0, /**< Bound at every execute. */
  /** The tensor is constant: it is bound once at cpuml_initialize_operator (where it may be
   *  prepacked) and not at execute. */
  CPUML_TENSOR_FLAG_OWNED_BY_CPUML = 1,
} CPUML_TENSOR_FLAGS;

/** A strided tensor in a caller's buffer (DML_BUFFER_TENSOR_DESC). */
typedef struct CPUML_BUFFER_TENSOR_DESC {
  CPUML_TENSOR_DATA_TYPE DataType; /**< Element type. */
  CPUML_TENSOR_FLAGS Flags;        /**< CPUML_TENSOR_FLAG_NONE or CPUML_TENSOR_FLAG_OWNED_BY_CPUML. */
  uint32_t DimensionCount;         /**< Number of entries in Sizes (and Strides). */
  const uint32_t* Sizes;           /**< DimensionCount entries, each > 0. */
  /** In elements; NULL = packed row-major; 0 broadcasts along that dimension. */
  const uint32_t* Strides;
  /** At least ((sum((Sizes[i]-1)*Strides[i]) + 1) * elementSize) rounded up to 4 (DirectML's
   *  rule), in bytes. */
  uint64_t TotalTensorSizeInBytes;
  /** 0, or a power of two the bound Data pointer is promised to be aligned to. */
  uint32_t GuaranteedBaseOffsetAlignment;
} CPUML_BUFFER_TENSOR_DESC;

/** A tensor of any kind (only buffers exist). */
typedef struct CPUML_TENSOR_DESC {
  CPUML_TENSOR_TYPE Type; /**< CPUML_TENSOR_TYPE_BUFFER. */
  const void* Desc;       /**< const CPUML_BUFFER_TENSOR_DESC* when Type == CPUML_TENSOR_TYPE_BUFFER. */
} CPUML_TENSOR_DESC;

/** A scalar of any data type. A FLOAT16 value is the IEEE binary16 bit pattern in Bytes[0..1]
 *  (little-endian, = UInt16). */
typedef union CPUML_SCALAR_UNION {
  uint8_t Bytes[8]; /**< The raw bytes. */
  int8_t Int8;      /**< For INT8. */
  uint8_t UInt8;    /**< For UINT8. */
  int16_t Int16;    /**< For INT16. */
  uint16_t UInt16;  /**< For UINT16, and FLOAT16's bit pattern. */
  int32_t Int32;    /**< For INT32. */
  uint32_t UInt32;  /**< For UINT32. */
  int64_t Int64;    /**< Not used by any operator yet. */
  uint64_t UInt64;  /**< Not used by any operator yet. */
  float Float32;    /**< For FLOAT32. */
  double Float64;   /**< Not used by any operator yet. */
} CPUML_SCALAR_UNION;

/** The operators cpuml implements. */
typedef enum CPUML_OPERATOR_TYPE {
  CPUML_OPERATOR_INVALID = 0,                          /**< Not an operator: always rejected. */
  CPUML_OPERATOR_FILL_VALUE_CONSTANT = 1,              /**< CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC. */
  CPUML_OPERATOR_FILL_VALUE_SEQUENCE = 2,              /**< CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC. */
  CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY = 3, /**< CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC. */
  CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER = 4,          /**< CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC (since 0.2). */
  /** CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC (since 0.2). */
  CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT = 5,
  CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR = 6, /**< CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC (since 0.2). */
} CPUML_OPERATOR_TYPE;

/** Every element addressed by OutputTensor's Sizes and Strides gets Value.
 *  OutputTensor: 1 to 8 dimensions; FLOAT32, FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8. */
typedef struct CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* OutputTensor; /**< The tensor filled (output 0). */
  CPUML_TENSOR_DATA_TYPE ValueDataType;  /**< Must equal OutputTensor's DataType. */
  CPUML_SCALAR_UNION Value;              /**< The value, in the member of ValueDataType. */
} CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC;

/** Element i in row-major logical order gets ValueStart + i * ValueDelta:
 *  - integer types: modulo 2^bits (identical to repeated addition);
 *  - FLOAT32: start + float(i) * delta in float32, no fused multiply-add;
 *  - FLOAT16: the same computed in float32 from the half inputs, rounded once to half (nearest even).
 *  Where strides alias elements (stride 0), the element written last in that order wins. */
typedef struct CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* OutputTensor; /**< The tensor filled (output 0), as for the constant fill. */
  CPUML_TENSOR_DATA_TYPE ValueDataType;  /**< Must equal OutputTensor's DataType. */
  CPUML_SCALAR_UNION ValueStart;         /**< Element 0's value. */
  CPUML_SCALAR_UNION ValueDelta;         /**< The step between consecutive elements. */
} CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC;

/** Output[b,c,m,n] = clamp(roundHalfToEven(float(acc) * ((AScale[m] * BScale[n]) / OutputScale[m]))
 *                          + OutputZeroPoint[m], typeMin, typeMax)
 *  with acc = sum_k (A[b,c,m,k] - AZeroPoint[m]) * (B[b,c,k,n] - BZeroPoint[n]) exact for any K.
 *
 *  Tensors are 4-D {Batch, Channel, rows, cols}; 2-D and 3-D descriptors get leading 1s.
 *  Scales must be finite and > 0 (checked at execute, or at initialize when owned). Zero points are optional (NULL = 0) and
 *  have their tensor's data type, per-tensor or the scale's per-row / per-column shape.
 *  Inputs bind in member order: A, AScale, AZeroPoint, B, BScale, BZeroPoint, OutputScale,
 *  OutputZeroPoint; the output is binding 0. */
typedef struct CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC {
  /** INT8 or UINT8, {B,C,M,K}; batch/channel sizes equal Output's or 1. */
  const CPUML_TENSOR_DESC* ATensor;
  /** FLOAT32, {1,1,1,1} or {1,1,M,1}. */
  const CPUML_TENSOR_DESC* AScaleTensor;
  /** ATensor's type, AScaleTensor's shape; may be NULL. */
  const CPUML_TENSOR_DESC* AZeroPointTensor;
  /** INT8 or UINT8, {B,C,K,N}; batch/channel sizes equal Output's or 1. Usually OWNED_BY_CPUML
   *  (weights), which packs it once at initialize. */
  const CPUML_TENSOR_DESC* BTensor;
  /** FLOAT32, {1,1,1,1} or {1,1,1,N}. */
  const CPUML_TENSOR_DESC* BScaleTensor;
  /** BTensor's type, BScaleTensor's shape; may be NULL. */
  const CPUML_TENSOR_DESC* BZeroPointTensor;
  /** FLOAT32, {1,1,1,1} or {1,1,M,1}. */
  const CPUML_TENSOR_DESC* OutputScaleTensor;
  /** OutputTensor's type, OutputScaleTensor's shape; may be NULL. */
  const CPUML_TENSOR_DESC* OutputZeroPointTensor;
  /** INT8 or UINT8, {B,C,M,N}. */
  const CPUML_TENSOR_DESC* OutputTensor;
} CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC;

/** Output[b,c,m,n] = sum_k (A[b,c,m,k] - AZeroPoint[m]) * (B[b,c,k,n] - BZeroPoint[n]), modulo 2^32
 *  (ONNX MatMulInteger; exact for any K, reduced to int32 only at the end).
 *
 *  Shapes, strides and batch broadcasting as QUANTIZED_LINEAR_MATRIX_MULTIPLY. A and B are INT8 or
 *  UINT8 in any combination. Zero points are optional (NULL = 0), have their tensor's data type
 *  and are per tensor {1,1,1,1}, per row of A {1,1,M,1} or per column of B {1,1,1,N}.
 *  Inputs bind in member order: A, AZeroPoint, B, BZeroPoint; the output is binding 0. */
typedef struct CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* ATensor;          /**< INT8 or UINT8, {B,C,M,K}. */
  const CPUML_TENSOR_DESC* AZeroPointTensor; /**< ATensor's type, {1,1,1,1} or {1,1,M,1}; may be NULL. */
  /** INT8 or UINT8, {B,C,K,N}; usually OWNED_BY_CPUML (packed once at initialize). */
  const CPUML_TENSOR_DESC* BTensor;
  const CPUML_TENSOR_DESC* BZeroPointTensor; /**< BTensor's type, {1,1,1,1} or {1,1,1,N}; may be NULL. */
  const CPUML_TENSOR_DESC* OutputTensor;     /**< INT32, {B,C,M,N}. */
} CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC;

/** Output[b,c,m,n] = float32(acc) * (AScale[m] * BScale[n]) + Bias[n]
 *  with acc the exact integer sum of MATRIX_MULTIPLY_INTEGER (any K, not reduced modulo 2^32),
 *  float32(acc) rounded to nearest even, each operation rounded to float32 in that order, no
 *  fused multiply-add, and no addition at all when Bias is absent (so -0.0 stays -0.0). Every
 *  tier and thread count gives the same bits (docs/semantics.md). This is ONNX Runtime's
 *  MatMulIntegerToFloat and DynamicQuantizeMatMul (after DYNAMIC_QUANTIZE_LINEAR) and DirectML's
 *  MATRIX_MULTIPLY_INTEGER_TO_FLOAT.
 *
 *  Shapes as MATRIX_MULTIPLY_INTEGER. Scales are FLOAT32 and finite (checked at execute, or at
 *  initialize when owned); Bias is FLOAT32 and finite.
 *
 *  4-bit weights (since 0.3): B may be UINT4 or INT4, OWNED_BY_CPUML (repacked at initialize), with
 *  BScale {1,1,1,1}, {1,1,1,N} or per block of K rows and column {1,1,ceil(K/block),N} for a block
 *  of 16, 32, 64, 128 or 256 (the last block may be shorter), and an optional BZeroPoint of B's
 *  type with BScale's sizes, also owned. With blocks, each block's exact sum is scaled and the
 *  blocks are added in float in ascending order:
 *
 *    p[c] = float(sum over block c of (A - AZeroPoint[m]) * (B - BZeroPoint[c,n])) * (AScale[m,c] * BScale[c,n])
 *    y = p[0] + p[1] + ... (left to right), then y + Bias[n] when Bias is bound
 *
 *  AScale may then be per block too, {1,1,1,blocks} or {1,1,M,blocks} (else AScale[m,c] = AScale[m]).
 *  One block is the formula above. ONNX Runtime's MatMulNBits maps onto this with B bound N x K
 *  through Strides (docs/integration.md); its default zero point 8 is an explicit BZeroPoint.
 *  Inputs bind in member order: A, AScale, AZeroPoint, B, BScale, BZeroPoint, Bias; the output is
 *  binding 0. */
typedef struct CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* ATensor;          /**< INT8 or UINT8, {B,C,M,K}. */
  /** FLOAT32, {1,1,1,1} or {1,1,M,1}; with blockwise BScaleTensor also {1,1,1,blocks} or {1,1,M,blocks}. */
  const CPUML_TENSOR_DESC* AScaleTensor;
  const CPUML_TENSOR_DESC* AZeroPointTensor; /**< ATensor's type, {1,1,1,1} or {1,1,M,1}; may be NULL. */
  /** INT8 or UINT8, {B,C,K,N}; usually OWNED_BY_CPUML (packed once at initialize). UINT4 or INT4
   *  must be OWNED_BY_CPUML. */
  const CPUML_TENSOR_DESC* BTensor;
  /** FLOAT32, {1,1,1,1} or {1,1,1,N}; with 4-bit B also {1,1,ceil(K/block),N}. */
  const CPUML_TENSOR_DESC* BScaleTensor;
  /** BTensor's type, {1,1,1,1} or {1,1,1,N} (blockwise: BScaleTensor's sizes); may be NULL. Owned
   *  with a 4-bit BTensor. */
  const CPUML_TENSOR_DESC* BZeroPointTensor;
  const CPUML_TENSOR_DESC* BiasTensor;       /**< FLOAT32, {1,1,1,N} or {1,1,1,1}; may be NULL. */
  const CPUML_TENSOR_DESC* OutputTensor;     /**< FLOAT32, {B,C,M,N}. */
} CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC;

/** Quantizes float input to 8 bits with a scale and zero point computed from the input's range
 *  (ONNX DynamicQuantizeLinear), per tensor or per row (the last dimension):
 *
 *    rmin = min(0, min x), rmax = max(0, max x)          NaN elements left out
 *    Scale = (rmax == rmin ? 1 : rmax - rmin) / (qmax - qmin)
 *    ZeroPoint = roundHalfToEven(clamp(qmin - rmin / Scale, qmin, qmax))
 *    Output = clamp(roundHalfToEven(x / Scale) + ZeroPoint, qmin, qmax)   NaN x -> ZeroPoint
 *
 *  in float32, each operation rounded to nearest even; [qmin, qmax] is [0, 255] for UINT8 and
 *  [-128, 127] for INT8. Unlike DirectML's page, the range always includes 0 (ONNX's rule), so
 *  0.0 quantizes exactly to ZeroPoint. Every tier and thread count gives the same bytes.
 *
 *  InputTensor: FLOAT32 or FLOAT16, 1 to 4 dimensions (read with leading 1s). OutputScaleTensor
 *  and OutputZeroPointTensor have the same sizes: all 1 (per tensor) or the input's with the last
 *  one 1 (per row, e.g. {1,1,M,1} for the AScaleTensor of MATRIX_MULTIPLY_INTEGER_TO_FLOAT).
 *  The input binds as input 0; the outputs bind in member order: Output, OutputScale,
 *  OutputZeroPoint (output_count 3).
 *
 *  Symmetric (since 0.3): with OutputZeroPointTensor NULL (its output bound empty) the output is
 *  INT8 and OutputScaleTensor is the input's sizes with the last one 1 (per row) or
 *  ceil(K / block) for a block of 16, 32, 64, 128 or 256 (per row and block, the last block
 *  shorter), the AScaleTensor {1,1,M,blocks} of a 4-bit MATRIX_MULTIPLY_INTEGER_TO_FLOAT:
 *
 *    Scale = max |x| / 127 over the block (NaN left out), Output = clamp(roundHalfToEven(x / Scale), -128, 127)
 *
 *  with NaN x -> 0 (an all-zero block has Scale 0 and Output 0). */
typedef struct CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* InputTensor;           /**< FLOAT32 or FLOAT16. */
  const CPUML_TENSOR_DESC* OutputTensor;          /**< UINT8 or INT8, InputTensor's sizes. */
  const CPUML_TENSOR_DESC* OutputScaleTensor;     /**< FLOAT32: per tensor or per row, as above. */
  const CPUML_TENSOR_DESC* OutputZeroPointTensor; /**< OutputTensor's type, OutputScaleTensor's sizes; NULL: symmetric INT8. */
} CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC;

/** An operator of any type. */
typedef struct CPUML_OPERATOR_DESC {
  CPUML_OPERATOR_TYPE Type; /**< Which descriptor Desc points to. */
  const void* Desc;         /**< Points to the CPUML_*_OPERATOR_DESC matching Type. */
} CPUML_OPERATOR_DESC;

/** Memory bound to a tensor (or passed as scratch). An absent optional tensor, and an input the
 *  operator does not read in this call, is bound as {NULL, 0}. */
typedef struct CPUML_BUFFER_BINDING {
  /** The tensor's first element: aligned to the tensor's element size (and to
   *  GuaranteedBaseOffsetAlignment if set). Owned by the caller. */
  void* Data;
  /** Bytes available at Data: at least the tensor's TotalTensorSizeInBytes. */
  uint64_t SizeInBytes;
} CPUML_BUFFER_BINDING;

/** An operator: created by cpuml_create_operator, freed by cpuml_destroy_operator. */
typedef struct cpuml_operator cpuml_operator;

/** Validates `desc` and plans the operator's kernels.
 *  @param desc  the operator; it and everything it points to are copied, so they may be freed
 *               after the call.
 *  @param out   receives the operator (NULL on failure).
 *  @return CPUML_STATUS_SUCCESS; INVALID_ARGUMENT or UNSUPPORTED naming the member and the rule;
 *          OUT_OF_MEMORY.
 *  The kernel tier (see cpuml_set_max_isa) is fixed here for the operator's life. */
CPUML_API cpuml_status cpuml_create_operator(const CPUML_OPERATOR_DESC* desc, cpuml_operator** out);

/** Reads the inputs flagged OWNED_BY_CPUML once, e.g. packs B into the kernel layout (the
 *  operator keeps PersistentResourceSize bytes, see cpuml_get_binding_properties).
 *  @param op           the operator.
 *  @param inputs       the operator's input bindings in member order; entries of inputs that are
 *                      not owned are ignored. The caller may free the owned inputs afterwards.
 *  @param input_count  0 (nothing owned) or the operator's input count.
 *  @return CPUML_STATUS_SUCCESS; INVALID_ARGUMENT for a missing or short binding; OUT_OF_MEMORY.
 *  Always allowed; required before execute when any input is owned. Must not overlap executes
 *  on the same operator. */
CPUML_API cpuml_status cpuml_initialize_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                                 uint32_t input_count);

/** Runs the operator.
 *  @param op            the operator.
 *  @param inputs        input bindings in member order; owned inputs are bound {NULL, 0} or are
 *                       ignored.
 *  @param input_count   must equal the operator's input count (its descriptor's input members:
 *                       QUANTIZED_LINEAR_MATRIX_MULTIPLY 8, MATRIX_MULTIPLY_INTEGER 4,
 *                       MATRIX_MULTIPLY_INTEGER_TO_FLOAT 7, DYNAMIC_QUANTIZE_LINEAR 1; fills 0).
 *  @param outputs       the output bindings in member order.
 *  @param output_count  must equal the operator's output count (DYNAMIC_QUANTIZE_LINEAR 3, the
 *                       others 1).
 *  @param threadpool    the pool whose threads (and the caller's) do the work; NULL = the calling
 *                       thread only. The result bytes do not depend on the pool.
 *  @return CPUML_STATUS_SUCCESS; INVALID_ARGUMENT (bindings, scales), INVALID_STATE (not
 *          initialized), OUT_OF_MEMORY (the first execute allocates the operator's scratch).
 *  Safe to call concurrently on one operator from several threads. */
CPUML_API cpuml_status cpuml_execute_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                              uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
                                              uint32_t output_count, pthreadpool_t threadpool);

/** Frees the operator and everything it allocated. NULL is allowed. */
CPUML_API void cpuml_destroy_operator(cpuml_operator* op);

/** A short lower-case name of `status` ("invalid argument"); never NULL. */
CPUML_API const char* cpuml_status_string(cpuml_status status);

/** The calling thread's message for its last failed call ("" if none). Valid until that thread's
 *  next cpuml call; owned by cpuml. */
CPUML_API const char* cpuml_last_error_message(void);

/** The alignment, in bytes, of scratch passed to cpuml_execute_operator_with_scratch. */
#define CPUML_SCRATCH_ALIGNMENT 64

/** The memory an operator needs besides its bindings (DirectML's DML_BINDING_PROPERTIES). */
typedef struct CPUML_BINDING_PROPERTIES {
  /** Bytes of scratch one execute needs (0 if none); pass that much to
   *  cpuml_execute_operator_with_scratch to make an execute allocate nothing. Each concurrent
   *  execute needs its own. */
  uint64_t TemporaryResourceSize;
  /** Bytes the operator keeps from initialize until destroy (packed weights and copies of the
   *  other owned inputs); allocated by cpuml at initialize. */
  uint64_t PersistentResourceSize;
} CPUML_BINDING_PROPERTIES;

/** Reports the memory `op` needs (fixed at create).
 *  @return CPUML_STATUS_SUCCESS; INVALID_ARGUMENT if op or properties is NULL. */
CPUML_API cpuml_status cpuml_get_binding_properties(const cpuml_operator* op, CPUML_BINDING_PROPERTIES* properties);

/** cpuml_execute_operator with caller-owned scratch: the execute makes no heap allocation.
 *  @param op            the operator.
 *  @param inputs        as cpuml_execute_operator.
 *  @param input_count   as cpuml_execute_operator.
 *  @param outputs       as cpuml_execute_operator.
 *  @param output_count  as cpuml_execute_operator.
 *  @param scratch  Data aligned to CPUML_SCRATCH_ALIGNMENT with SizeInBytes >= the operator's
 *                  TemporaryResourceSize (Data may be NULL when that is 0). The operator uses it
 *                  only during this call; its contents before and after mean nothing. Concurrent
 *                  executes need separate scratch. NULL behaves as cpuml_execute_operator.
 *  @param threadpool    as cpuml_execute_operator.
 *  @return as cpuml_execute_operator, and INVALID_ARGUMENT for scratch that is too small or
 *          misaligned. */
CPUML_API cpuml_status cpuml_execute_operator_with_scratch(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                                           uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
                                                           uint32_t output_count, const CPUML_BUFFER_BINDING* scratch,
                                                           pthreadpool_t threadpool);

/** Kernel tiers. Each architecture's tiers rank in this order: scalar, sse41, avx2, avxvnni,
 *  avx512vnni, amx; scalar, neon, neon_dotprod, neon_i8mm. The values are names, not ranks. */
typedef enum cpuml_isa {
  CPUML_ISA_SCALAR = 0,     /**< Portable C++; every CPU. */
  CPUML_ISA_SSE41 = 1,      /**< x86 SSE4.1. */
  CPUML_ISA_AVX2 = 2,       /**< x86 AVX2 (+F16C). */
  CPUML_ISA_AVX512VNNI = 3, /**< x86 AVX-512 (F, BW, VL) with VNNI. */
  /** Intel AMX-INT8 tiles (Sapphire Rapids and later), with the AVX-512 VNNI kernels for M <= 4. */
  CPUML_ISA_AMX = 4,
  /** x86 AVX-VNNI on 256-bit registers, without AVX-512 (Intel Alder Lake and later clients);
   *  ranks between avx2 and avx512vnni. */
  CPUML_ISA_AVXVNNI = 5,
  CPUML_ISA_NEON = 16,         /**< AArch64 Advanced SIMD. */
  CPUML_ISA_NEON_DOTPROD = 17, /**< AArch64 with the dot product extension (sdot). */
  CPUML_ISA_NEON_I8MM = 18,    /**< AArch64 with the int8 matrix multiply extension (smmla). */
} cpuml_isa;

/** The tier operators created now get: the highest tier that was built, that the CPU and OS
 *  support, and that does not exceed the cap (cpuml_set_max_isa, or the environment variable
 *  CPUML_MAX_ISA read once at load: scalar, sse41, avx2, avxvnni, avx512vnni, amx, neon,
 *  neon_dotprod, neon_i8mm). */
CPUML_API cpuml_isa cpuml_get_isa(void);
/** The tier's name ("scalar", "avx2", ...), as CPUML_MAX_ISA spells it; NULL if unknown. */
CPUML_API const char* cpuml_isa_name(cpuml_isa isa);
/** Nonzero if `isa` was built into this library and this CPU and OS can run it. */
CPUML_API int cpuml_is_isa_supported(cpuml_isa isa);
/** Caps the tier for operators created afterwards (existing operators keep theirs). A cap above
 *  what the machine supports selects the best supported tier below it. A tier of another
 *  architecture (neon on x86) is CPUML_STATUS_INVALID_ARGUMENT, and so is CPUML_MAX_ISA naming one
 *  (reported on stderr and ignored). Process-wide. */
CPUML_API cpuml_status cpuml_set_max_isa(cpuml_isa isa);
/** The cap now in force: the last cpuml_set_max_isa or CPUML_MAX_ISA value, or, with none, the
 *  highest tier of this architecture (which caps nothing). Passing it back to cpuml_set_max_isa
 *  restores the cap. */
CPUML_API cpuml_isa cpuml_get_max_isa(void);

/** The loaded library's version, major * 10000 + minor * 100 + patch (see CPUML_VERSION). */
CPUML_API uint32_t cpuml_get_version(void);
/** The loaded library's version as "major.minor.patch"; owned by cpuml. */
CPUML_API const char* cpuml_get_version_string(void);

/** Turns the verbose log on (1) or off (0) for the whole process; the environment variable
 *  CPUML_VERBOSE=1 turns it on at load. When on, every create, initialize and execute writes one
 *  line to stderr, comma-separated (docs/integration.md, "Verbose log"):
 *  cpuml_verbose,phase,operator,types,sizes,strides,tier,kernel,threads,status,time_us.
 *  When off, a call costs one branch. */
CPUML_API void cpuml_set_verbose(int level);
/** The verbose level in force (0 = off). */
CPUML_API int cpuml_get_verbose(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CPUML_CPUML_H_ */
