/*
 * cpuml: SIMD CPU kernels for DirectML-style operators.
 *
 * The descriptors mirror DirectML's (DML_* -> CPUML_*), so an engine that already builds
 * DML descriptors can port by renaming. Semantics are specified in docs/semantics.md.
 *
 * Lifecycle:  cpuml_create_operator      validate the descriptor, plan the kernels
 *             cpuml_initialize_operator  read inputs flagged OWNED_BY_CPUML once (prepack)
 *             cpuml_execute_operator     run; thread-safe on one operator
 *             cpuml_destroy_operator
 *
 * Errors: every call returns a cpuml_status; on failure cpuml_last_error_message() gives the
 * calling thread's message (operator, member and the rule broken) and no output byte is written.
 *
 * Limits (docs/semantics.md): any uint32 size, K included, is accepted, with these exceptions,
 * each refused at create with CPUML_STATUS_INVALID_ARGUMENT and the limit named:
 *  - a tensor's element count, and its addressed byte range, must fit 64 bits (the byte range
 *    2^62 bytes);
 *  - QUANTIZED_LINEAR_MATRIX_MULTIPLY: the output's batch x channel count is at most 2^31 - 1, and
 *    the packed workspace sizes the shapes imply must be at most 2^62 bytes.
 * Every count, offset and size derived from a descriptor is computed in 64 bits with overflow
 * checked. Memory that cannot be had is CPUML_STATUS_OUT_OF_MEMORY, with nothing written.
 */
#ifndef CPUML_CPUML_H_
#define CPUML_CPUML_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define CPUML_API __declspec(dllexport)
#else
#define CPUML_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque thread pool from libpthreadpool (the pool XNNPACK uses). NULL runs on the calling thread. */
typedef struct pthreadpool* pthreadpool_t;

typedef enum cpuml_status {
  CPUML_STATUS_SUCCESS = 0,
  CPUML_STATUS_INVALID_ARGUMENT = 1, /* a descriptor or binding breaks a rule */
  CPUML_STATUS_UNSUPPORTED = 2,      /* well-formed, but a type/operator cpuml does not implement */
  CPUML_STATUS_INVALID_STATE = 3,    /* e.g. execute before a required initialize */
  CPUML_STATUS_OUT_OF_MEMORY = 4,
} cpuml_status;

/* Values are DirectML's DML_TENSOR_DATA_TYPE values; any other value is rejected as UNSUPPORTED. */
typedef enum CPUML_TENSOR_DATA_TYPE {
  CPUML_TENSOR_DATA_TYPE_UNKNOWN = 0,
  CPUML_TENSOR_DATA_TYPE_FLOAT32 = 1,
  CPUML_TENSOR_DATA_TYPE_FLOAT16 = 2,
  CPUML_TENSOR_DATA_TYPE_UINT32 = 3,
  CPUML_TENSOR_DATA_TYPE_UINT16 = 4,
  CPUML_TENSOR_DATA_TYPE_UINT8 = 5,
  CPUML_TENSOR_DATA_TYPE_INT32 = 6,
  CPUML_TENSOR_DATA_TYPE_INT16 = 7,
  CPUML_TENSOR_DATA_TYPE_INT8 = 8,
} CPUML_TENSOR_DATA_TYPE;

typedef enum CPUML_TENSOR_TYPE {
  CPUML_TENSOR_TYPE_INVALID = 0,
  CPUML_TENSOR_TYPE_BUFFER = 1,
} CPUML_TENSOR_TYPE;

typedef enum CPUML_TENSOR_FLAGS {
  CPUML_TENSOR_FLAG_NONE = 0,
  /* The tensor is constant: it is bound once at cpuml_initialize_operator (where it may be
   * prepacked) and not at execute. */
  CPUML_TENSOR_FLAG_OWNED_BY_CPUML = 1,
} CPUML_TENSOR_FLAGS;

typedef struct CPUML_BUFFER_TENSOR_DESC {
  CPUML_TENSOR_DATA_TYPE DataType;
  CPUML_TENSOR_FLAGS Flags;
  uint32_t DimensionCount;
  const uint32_t* Sizes;   /* DimensionCount entries, each > 0 */
  const uint32_t* Strides; /* in elements; NULL = packed row-major; 0 broadcasts along that dim */
  /* At least ((sum((Sizes[i]-1)*Strides[i]) + 1) * elementSize) rounded up to 4 (DirectML's rule). */
  uint64_t TotalTensorSizeInBytes;
  /* 0, or a power of two the bound Data pointer is promised to be aligned to. */
  uint32_t GuaranteedBaseOffsetAlignment;
} CPUML_BUFFER_TENSOR_DESC;

typedef struct CPUML_TENSOR_DESC {
  CPUML_TENSOR_TYPE Type;
  const void* Desc; /* const CPUML_BUFFER_TENSOR_DESC* when Type == CPUML_TENSOR_TYPE_BUFFER */
} CPUML_TENSOR_DESC;

/* A FLOAT16 value is the IEEE binary16 bit pattern in Bytes[0..1] (little-endian, = UInt16). */
typedef union CPUML_SCALAR_UNION {
  uint8_t Bytes[8];
  int8_t Int8;
  uint8_t UInt8;
  int16_t Int16;
  uint16_t UInt16;
  int32_t Int32;
  uint32_t UInt32;
  int64_t Int64;
  uint64_t UInt64;
  float Float32;
  double Float64;
} CPUML_SCALAR_UNION;

typedef enum CPUML_OPERATOR_TYPE {
  CPUML_OPERATOR_INVALID = 0,
  CPUML_OPERATOR_FILL_VALUE_CONSTANT = 1,
  CPUML_OPERATOR_FILL_VALUE_SEQUENCE = 2,
  CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY = 3,
} CPUML_OPERATOR_TYPE;

/* Every element addressed by OutputTensor's Sizes and Strides gets Value.
 * OutputTensor: 1 to 8 dimensions; FLOAT32, FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8.
 * ValueDataType must equal OutputTensor's DataType. */
typedef struct CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* OutputTensor;
  CPUML_TENSOR_DATA_TYPE ValueDataType;
  CPUML_SCALAR_UNION Value;
} CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC;

/* Element i in row-major logical order gets ValueStart + i * ValueDelta:
 *  - integer types: modulo 2^bits (identical to repeated addition);
 *  - FLOAT32: start + float(i) * delta in float32, no fused multiply-add;
 *  - FLOAT16: the same computed in float32 from the half inputs, rounded once to half (nearest even).
 * Where strides alias elements (stride 0), the element written last in that order wins. */
typedef struct CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* OutputTensor;
  CPUML_TENSOR_DATA_TYPE ValueDataType;
  CPUML_SCALAR_UNION ValueStart;
  CPUML_SCALAR_UNION ValueDelta;
} CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC;

/* Output[b,c,m,n] = clamp(roundHalfToEven(float(acc) * ((AScale[m] * BScale[n]) / OutputScale[m]))
 *                         + OutputZeroPoint[m], typeMin, typeMax)
 * with acc = sum_k (A[b,c,m,k] - AZeroPoint[m]) * (B[b,c,k,n] - BZeroPoint[n]) exact for any K.
 * Tensors are 4-D {Batch, Channel, rows, cols}; 2-D and 3-D descriptors get leading 1s.
 * A, B: INT8 or UINT8 ({B,C,M,K} and {B,C,K,N}; batch/channel sizes equal Output's or 1).
 * AScale, OutputScale: FLOAT32, {1,1,1,1} or {1,1,M,1}. BScale: FLOAT32, {1,1,1,1} or {1,1,1,N}.
 * Zero points (optional, NULL = 0): their tensor's data type, per-tensor or the scale's per-row /
 * per-column shape. Output: INT8 or UINT8, {B,C,M,N}. Scales must be finite and > 0 (checked at
 * execute). Inputs bind in member order: A, AScale, AZeroPoint, B, BScale, BZeroPoint,
 * OutputScale, OutputZeroPoint. */
typedef struct CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC {
  const CPUML_TENSOR_DESC* ATensor;
  const CPUML_TENSOR_DESC* AScaleTensor;
  const CPUML_TENSOR_DESC* AZeroPointTensor; /* may be NULL */
  const CPUML_TENSOR_DESC* BTensor;
  const CPUML_TENSOR_DESC* BScaleTensor;
  const CPUML_TENSOR_DESC* BZeroPointTensor; /* may be NULL */
  const CPUML_TENSOR_DESC* OutputScaleTensor;
  const CPUML_TENSOR_DESC* OutputZeroPointTensor; /* may be NULL */
  const CPUML_TENSOR_DESC* OutputTensor;
} CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC;

typedef struct CPUML_OPERATOR_DESC {
  CPUML_OPERATOR_TYPE Type;
  const void* Desc; /* points to the CPUML_*_OPERATOR_DESC matching Type */
} CPUML_OPERATOR_DESC;

/* Data must be aligned to the tensor's element size (and to GuaranteedBaseOffsetAlignment if
 * set) and hold SizeInBytes >= the tensor's TotalTensorSizeInBytes. An absent optional tensor,
 * and an input the operator does not read in this call, is bound as {NULL, 0}. */
typedef struct CPUML_BUFFER_BINDING {
  void* Data;
  uint64_t SizeInBytes;
} CPUML_BUFFER_BINDING;

typedef struct cpuml_operator cpuml_operator;

/* Validates and plans. The descriptor and everything it points to are copied: they may be freed
 * after the call. The kernel tier (see cpuml_set_max_isa) is fixed here for the operator's life. */
CPUML_API cpuml_status cpuml_create_operator(const CPUML_OPERATOR_DESC* desc, cpuml_operator** out);

/* Reads the inputs flagged OWNED_BY_CPUML (the entries of other inputs are ignored), e.g. packs B
 * into the kernel layout. Always allowed; required before execute when any input is OWNED.
 * Not thread-safe with concurrent executes on the same operator. */
CPUML_API cpuml_status cpuml_initialize_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                                 uint32_t input_count);

/* input_count / output_count must equal the operator's tensor counts (QUANTIZED_LINEAR_MATRIX_MULTIPLY:
 * 8 and 1; fills: 0 and 1). OWNED inputs are bound {NULL, 0} or are ignored. Safe to call
 * concurrently on one operator from several threads. The result bytes do not depend on the pool. */
CPUML_API cpuml_status cpuml_execute_operator(cpuml_operator* op, const CPUML_BUFFER_BINDING* inputs,
                                              uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
                                              uint32_t output_count, pthreadpool_t threadpool);

CPUML_API void cpuml_destroy_operator(cpuml_operator* op);

CPUML_API const char* cpuml_status_string(cpuml_status status);

/* The calling thread's message for its last failed call ("" if none). Valid until that thread's
 * next cpuml call. */
CPUML_API const char* cpuml_last_error_message(void);

/* Kernel tiers. Each architecture's tiers rank in the order listed (scalar, sse41, avx2,
 * avx512vnni, amx; scalar, neon, neon_dotprod, neon_i8mm); the values are names, not ranks. */
typedef enum cpuml_isa {
  CPUML_ISA_SCALAR = 0,
  CPUML_ISA_SSE41 = 1,
  CPUML_ISA_AVX2 = 2,
  CPUML_ISA_AVX512VNNI = 3,
  /* Intel AMX-INT8 tiles (Sapphire Rapids and later), with the AVX-512 VNNI kernel for M < 4. */
  CPUML_ISA_AMX = 4,
  CPUML_ISA_NEON = 16,
  CPUML_ISA_NEON_DOTPROD = 17,
  CPUML_ISA_NEON_I8MM = 18,
} cpuml_isa;

/* The tier operators created now get: the highest tier that was built, that the CPU and OS
 * support, and that does not exceed the cap (cpuml_set_max_isa, or the environment variable
 * CPUML_MAX_ISA read once at load: scalar, sse41, avx2, avx512vnni, amx, neon, neon_dotprod, neon_i8mm). */
CPUML_API cpuml_isa cpuml_get_isa(void);
CPUML_API const char* cpuml_isa_name(cpuml_isa isa); /* "scalar", "avx2", ...; NULL if unknown */
/* Nonzero if `isa` was built into this library and this CPU and OS can run it. */
CPUML_API int cpuml_is_isa_supported(cpuml_isa isa);
/* Caps the tier for operators created afterwards (existing operators keep theirs). A cap above
 * what the machine supports selects the best supported tier below it. A tier of another
 * architecture (neon on x86) is CPUML_STATUS_INVALID_ARGUMENT, and so is CPUML_MAX_ISA naming one
 * (reported on stderr and ignored). */
CPUML_API cpuml_status cpuml_set_max_isa(cpuml_isa isa);
/* The cap now in force: the last cpuml_set_max_isa or CPUML_MAX_ISA value, or, with none, the
 * highest tier of this architecture (which caps nothing). Passing it back to cpuml_set_max_isa
 * restores the cap. */
CPUML_API cpuml_isa cpuml_get_max_isa(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CPUML_CPUML_H_ */
