/* A dynamically quantized linear layer, as ONNX Runtime's quantize_dynamic and PyTorch's dynamic
 * Linear run transformers on CPUs: float activations X (M x K) are quantized at run time, one
 * scale and zero point per row (DYNAMIC_QUANTIZE_LINEAR), then multiplied by s8 weights W
 * (stored N x K, one scale per output channel, OWNED_BY_CPUML: packed once) and brought back to
 * float with a bias (MATRIX_MULTIPLY_INTEGER_TO_FLOAT). The result is checked twice: exactly,
 * against the documented formula (docs/semantics.md) computed here from the quantized
 * activations, and loosely, against the float product the quantization approximates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpuml/cpuml.h>

enum { M = 3, K = 96, N = 40 };

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cpuml_status status_ = (call);                                                                    \
    if (status_ != CPUML_STATUS_SUCCESS) {                                                            \
      fprintf(stderr, "%s failed: %s: %s\n", #call, cpuml_status_string(status_), cpuml_last_error_message()); \
      return 1;                                                                                       \
    }                                                                                                 \
  } while (0)

/* A packed row-major tensor and its CPUML_TENSOR_DESC; strides, when given, override. */
typedef struct {
  uint32_t sizes[2], strides[2];
  CPUML_BUFFER_TENSOR_DESC buffer;
  CPUML_TENSOR_DESC desc;
} Tensor2D;

static const CPUML_TENSOR_DESC* MakeTensor(Tensor2D* t, CPUML_TENSOR_DATA_TYPE type, uint32_t element_size,
                                           uint32_t rows, uint32_t cols, uint32_t row_stride, uint32_t col_stride,
                                           CPUML_TENSOR_FLAGS flags) {
  t->sizes[0] = rows;
  t->sizes[1] = cols;
  t->strides[0] = row_stride;
  t->strides[1] = col_stride;
  const uint64_t last = (uint64_t)(rows - 1) * row_stride + (uint64_t)(cols - 1) * col_stride;
  t->buffer = (CPUML_BUFFER_TENSOR_DESC){type, flags, 2, t->sizes, t->strides, ((last + 1) * element_size + 3) / 4 * 4, 0};
  t->desc = (CPUML_TENSOR_DESC){CPUML_TENSOR_TYPE_BUFFER, &t->buffer};
  return &t->desc;
}

int main(void) {
  static float x[M * K], y[M * N], w_scale[N], bias[N], x_scale[M];
  static int8_t w[N * K]; /* row n holds output channel n's K weights */
  static uint8_t xq[M * K], x_zero_point[(M + 3) / 4 * 4];
  srand(11);
  for (int i = 0; i < M * K; ++i) x[i] = (float)(rand() % 2001 - 800) / 250.0f;
  for (int i = 0; i < N * K; ++i) w[i] = (int8_t)(rand() % 255 - 127);
  for (int n = 0; n < N; ++n) {
    w_scale[n] = 0.002f + 0.0001f * (float)(n % 7);
    bias[n] = (float)(n % 5) - 2.0f;
  }

  /* DYNAMIC_QUANTIZE_LINEAR: X -> u8 with a scale and zero point per row ({M, 1}). */
  Tensor2D tx, txq, tscale, tzero;
  const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC quantize = {
      MakeTensor(&tx, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, M, K, K, 1, CPUML_TENSOR_FLAG_NONE),
      MakeTensor(&txq, CPUML_TENSOR_DATA_TYPE_UINT8, 1, M, K, K, 1, CPUML_TENSOR_FLAG_NONE),
      MakeTensor(&tscale, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, M, 1, 1, 1, CPUML_TENSOR_FLAG_NONE),
      MakeTensor(&tzero, CPUML_TENSOR_DATA_TYPE_UINT8, 1, M, 1, 1, 1, CPUML_TENSOR_FLAG_NONE)};
  const CPUML_OPERATOR_DESC quantize_op = {CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &quantize};

  /* MATRIX_MULTIPLY_INTEGER_TO_FLOAT: A = the quantized X with its per-row scale and zero point
   * (the same tensors), B = W^T through strides (W stored N x K), per-column scales, a bias. */
  Tensor2D tw, tw_scale, tbias, ty;
  const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC matmul = {
      &txq.desc,
      &tscale.desc,
      &tzero.desc,
      MakeTensor(&tw, CPUML_TENSOR_DATA_TYPE_INT8, 1, K, N, 1, K, CPUML_TENSOR_FLAG_OWNED_BY_CPUML),
      MakeTensor(&tw_scale, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, 1, N, N, 1, CPUML_TENSOR_FLAG_OWNED_BY_CPUML),
      NULL, /* symmetric weights: no B zero point */
      MakeTensor(&tbias, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, 1, N, N, 1, CPUML_TENSOR_FLAG_OWNED_BY_CPUML),
      MakeTensor(&ty, CPUML_TENSOR_DATA_TYPE_FLOAT32, 4, M, N, N, 1, CPUML_TENSOR_FLAG_NONE)};
  const CPUML_OPERATOR_DESC matmul_op = {CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &matmul};

  cpuml_operator *quantizer = NULL, *layer = NULL;
  CHECK(cpuml_create_operator(&quantize_op, &quantizer));
  CHECK(cpuml_create_operator(&matmul_op, &layer));
  /* Inputs in member order: A, AScale, AZeroPoint, B, BScale, BZeroPoint, Bias. Only the owned
   * ones are read at initialize; the others may be unbound then. */
  CPUML_BUFFER_BINDING inputs[7] = {{0}};
  inputs[3] = (CPUML_BUFFER_BINDING){w, tw.buffer.TotalTensorSizeInBytes};
  inputs[4] = (CPUML_BUFFER_BINDING){w_scale, sizeof w_scale};
  inputs[6] = (CPUML_BUFFER_BINDING){bias, sizeof bias};
  CHECK(cpuml_initialize_operator(layer, inputs, 7));

  /* Every inference: quantize, then multiply. Owned inputs are bound {NULL, 0} at execute. */
  const CPUML_BUFFER_BINDING x_binding = {x, sizeof x};
  const CPUML_BUFFER_BINDING quantized[3] = {{xq, sizeof xq}, {x_scale, sizeof x_scale}, {x_zero_point, sizeof x_zero_point}};
  CHECK(cpuml_execute_operator(quantizer, &x_binding, 1, quantized, 3, NULL));
  memset(inputs, 0, sizeof inputs);
  inputs[0] = quantized[0];
  inputs[1] = quantized[1];
  inputs[2] = quantized[2];
  const CPUML_BUFFER_BINDING y_binding = {y, sizeof y};
  CHECK(cpuml_execute_operator(layer, inputs, 7, &y_binding, 1, NULL));

  /* The formula, exactly: float(sum) * (AScale[m] * BScale[n]) + Bias[n]. */
  int exact = 1;
  double worst = 0.0, scale = 0.0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int32_t sum = 0;
      double real = 0.0;
      for (int k = 0; k < K; ++k) {
        sum += ((int32_t)xq[m * K + k] - x_zero_point[m]) * w[n * K + k];
        real += (double)x[m * K + k] * w[n * K + k] * w_scale[n];
      }
      const float expected = (float)sum * (x_scale[m] * w_scale[n]) + bias[n];
      exact &= memcmp(&expected, &y[m * N + n], sizeof expected) == 0;
      real += bias[n];
      worst = fmax(worst, fabs(real - y[m * N + n]));
      scale = fmax(scale, fabs(real));
    }
  printf("dynamic linear %dx%dx%d: y[0][0] = %.4f, %s the formula, largest error against float %.4f (of %.2f)\n", M, K,
         N, y[0], exact ? "equal to" : "DIFFERENT FROM", worst, scale);
  cpuml_destroy_operator(quantizer);
  cpuml_destroy_operator(layer);
  return exact && worst < 0.02 * scale ? 0 : 1;
}
