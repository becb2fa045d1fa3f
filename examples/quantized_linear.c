/* A per-channel quantized linear layer (ONNX QLinearMatMul with per-column weight scales, as
 * quantized transformers use): Y = X W^T, X u8 activations (M x K), W s8 weights stored as
 * N x K, one scale per output channel. The weights are OWNED_BY_CPUML: packed once at
 * initialize, not bound at execute. The engine's thread pool runs the work, and the execute gets
 * caller-owned scratch, so it makes no heap allocation. The result is checked against the
 * formula of docs/semantics.md computed here in plain C. */
#include <math.h>
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>

#include <cpuml/cpuml.h>

enum { M = 4, K = 64, N = 32 };

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cpuml_status status_ = (call);                                                                    \
    if (status_ != CPUML_STATUS_SUCCESS) {                                                            \
      fprintf(stderr, "%s failed: %s: %s\n", #call, cpuml_status_string(status_), cpuml_last_error_message()); \
      return 1;                                                                                       \
    }                                                                                                 \
  } while (0)

/* A packed (or, with strides, strided) buffer tensor and its CPUML_TENSOR_DESC. */
typedef struct {
  uint32_t sizes[2], strides[2];
  CPUML_BUFFER_TENSOR_DESC buffer;
  CPUML_TENSOR_DESC desc;
} Tensor2D;

static void MakeTensor(Tensor2D* t, CPUML_TENSOR_DATA_TYPE type, uint32_t element_size, uint32_t rows, uint32_t cols,
                       uint32_t row_stride, uint32_t col_stride, CPUML_TENSOR_FLAGS flags) {
  t->sizes[0] = rows;
  t->sizes[1] = cols;
  t->strides[0] = row_stride;
  t->strides[1] = col_stride;
  const uint64_t last = (uint64_t)(rows - 1) * row_stride + (uint64_t)(cols - 1) * col_stride;
  t->buffer.DataType = type;
  t->buffer.Flags = flags;
  t->buffer.DimensionCount = 2;
  t->buffer.Sizes = t->sizes;
  t->buffer.Strides = t->strides;
  t->buffer.TotalTensorSizeInBytes = ((last + 1) * element_size + 3) / 4 * 4;
  t->buffer.GuaranteedBaseOffsetAlignment = 0;
  t->desc.Type = CPUML_TENSOR_TYPE_BUFFER;
  t->desc.Desc = &t->buffer;
}

int main(void) {
  /* Data: activations around the zero point, weights in [-127, 127], per-channel scales. */
  static uint8_t x[M * K], y[M * N];
  static int8_t w[N * K]; /* row n holds output channel n's K weights */
  float w_scale[N];
  const float x_scale = 0.02f, y_scale = 0.05f;
  /* A one-element tensor still binds TotalTensorSizeInBytes = 4 bytes (DirectML's rule). */
  const uint8_t x_zero_point[4] = {128}, y_zero_point[4] = {128};
  srand(7);
  for (int i = 0; i < M * K; ++i) x[i] = (uint8_t)(rand() % 256);
  for (int i = 0; i < N * K; ++i) w[i] = (int8_t)(rand() % 255 - 127);
  for (int n = 0; n < N; ++n) w_scale[n] = 0.001f * (float)(1 + n % 7);

  Tensor2D a, a_scale, a_zero, b, b_scale, out_scale, out_zero, out;
  MakeTensor(&a, CPUML_TENSOR_DATA_TYPE_UINT8, 1, M, K, K, 1, CPUML_TENSOR_FLAG_NONE);
  MakeTensor(&a_scale, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, 1, 1, 1, 1, CPUML_TENSOR_FLAG_NONE);
  MakeTensor(&a_zero, CPUML_TENSOR_DATA_TYPE_UINT8, 1, 1, 1, 1, 1, CPUML_TENSOR_FLAG_NONE);
  /* B is K x N; the weights are stored N x K, so element (k, n) is at n * K + k. */
  MakeTensor(&b, CPUML_TENSOR_DATA_TYPE_INT8, 1, K, N, 1, K, CPUML_TENSOR_FLAG_OWNED_BY_CPUML);
  MakeTensor(&b_scale, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, 1, N, N, 1, CPUML_TENSOR_FLAG_NONE);
  MakeTensor(&out_scale, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, 1, 1, 1, 1, CPUML_TENSOR_FLAG_NONE);
  MakeTensor(&out_zero, CPUML_TENSOR_DATA_TYPE_UINT8, 1, 1, 1, 1, 1, CPUML_TENSOR_FLAG_NONE);
  MakeTensor(&out, CPUML_TENSOR_DATA_TYPE_UINT8, 1, M, N, N, 1, CPUML_TENSOR_FLAG_NONE);

  const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC matmul = {
      &a.desc, &a_scale.desc, &a_zero.desc,
      &b.desc, &b_scale.desc, NULL, /* symmetric weights: no B zero point */
      &out_scale.desc, &out_zero.desc, &out.desc};
  const CPUML_OPERATOR_DESC desc = {CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &matmul};

  cpuml_operator* op = NULL;
  CHECK(cpuml_create_operator(&desc, &op));

  /* Bindings in member order: A, AScale, AZeroPoint, B, BScale, BZeroPoint, OutputScale,
   * OutputZeroPoint. An absent tensor is {NULL, 0}. */
  CPUML_BUFFER_BINDING inputs[8] = {
      {x, sizeof x}, {(void*)&x_scale, 4}, {(void*)x_zero_point, 4}, {w, sizeof w},
      {w_scale, sizeof w_scale}, {NULL, 0}, {(void*)&y_scale, 4}, {(void*)y_zero_point, 4}};
  CHECK(cpuml_initialize_operator(op, inputs, 8)); /* packs W; w may be freed after this */
  inputs[3].Data = NULL;                           /* owned: not bound at execute */
  inputs[3].SizeInBytes = 0;

  /* Scratch sized once, e.g. from the engine's arena; one per concurrent execute. */
  CPUML_BINDING_PROPERTIES properties;
  CHECK(cpuml_get_binding_properties(op, &properties));
  const size_t scratch_bytes = (size_t)(properties.TemporaryResourceSize + CPUML_SCRATCH_ALIGNMENT - 1) /
                               CPUML_SCRATCH_ALIGNMENT * CPUML_SCRATCH_ALIGNMENT;
  void* scratch_memory = scratch_bytes ? aligned_alloc(CPUML_SCRATCH_ALIGNMENT, scratch_bytes) : NULL;
  const CPUML_BUFFER_BINDING scratch = {scratch_memory, properties.TemporaryResourceSize};

  pthreadpool_t pool = pthreadpool_create(2);
  const CPUML_BUFFER_BINDING output = {y, sizeof y};
  CHECK(cpuml_execute_operator_with_scratch(op, inputs, 8, &output, 1, &scratch, pool));
  pthreadpool_destroy(pool);
  free(scratch_memory);
  cpuml_destroy_operator(op);

  /* The documented formula: exact int32 sums, one float multiply, round half to even, clamp. */
  int mismatches = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int32_t acc = 0;
      for (int k = 0; k < K; ++k) acc += (x[m * K + k] - x_zero_point[0]) * w[n * K + k];
      const float multiplier = (x_scale * w_scale[n]) / y_scale;
      float value = nearbyintf((float)acc * multiplier) + y_zero_point[0];
      value = value < 0 ? 0 : value > 255 ? 255 : value;
      if (y[m * N + n] != (uint8_t)value) ++mismatches;
    }
  if (mismatches) {
    fprintf(stderr, "quantized_linear: %d of %d outputs differ from the formula\n", mismatches, M * N);
    return 1;
  }
  printf("quantized_linear: %dx%d u8 times %dx%d s8 (per-channel), %d outputs equal to the formula; "
         "scratch %llu bytes, weights kept %llu bytes\n",
         M, K, K, N, M * N, (unsigned long long)properties.TemporaryResourceSize,
         (unsigned long long)properties.PersistentResourceSize);
  return 0;
}
