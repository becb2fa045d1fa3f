/* A linear layer with 4-bit weights, stored as ONNX Runtime's MatMulNBits stores them (bits 4,
 * block_size 32): W is N x K unsigned 4-bit, each output channel's K values contiguous and padded
 * to whole blocks; one float scale per block and channel (N x blocks); zero points packed two to
 * a byte, each channel's starting on a byte. Float activations X (M x K) are quantized per row
 * (DYNAMIC_QUANTIZE_LINEAR), then MATRIX_MULTIPLY_INTEGER_TO_FLOAT multiplies them by W, block by
 * block, adding a bias. Every layout binds as it is, through strides. The result is checked
 * exactly against the blockwise formula of docs/semantics.md and loosely against the float
 * product with the dequantized weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpuml/cpuml.h>

enum { M = 2, K = 100, N = 24, BLOCK = 32, BLOCKS = (K + BLOCK - 1) / BLOCK, PADDED_K = BLOCKS * BLOCK };
enum { ZERO_POINT_BYTES_PER_CHANNEL = (BLOCKS + 1) / 2 };

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cpuml_status status_ = (call);                                                                    \
    if (status_ != CPUML_STATUS_SUCCESS) {                                                            \
      fprintf(stderr, "%s failed: %s: %s\n", #call, cpuml_status_string(status_), cpuml_last_error_message()); \
      return 1;                                                                                       \
    }                                                                                                 \
  } while (0)

typedef struct {
  uint32_t sizes[2], strides[2];
  CPUML_BUFFER_TENSOR_DESC buffer;
  CPUML_TENSOR_DESC desc;
} Tensor2D;

/* A 2-D tensor with the given strides (elements). 4-bit tensors hold two elements a byte. */
static const CPUML_TENSOR_DESC* MakeTensor(Tensor2D* t, CPUML_TENSOR_DATA_TYPE type, uint32_t rows, uint32_t cols,
                                           uint32_t row_stride, uint32_t col_stride, CPUML_TENSOR_FLAGS flags) {
  t->sizes[0] = rows;
  t->sizes[1] = cols;
  t->strides[0] = row_stride;
  t->strides[1] = col_stride;
  const uint64_t last = (uint64_t)(rows - 1) * row_stride + (uint64_t)(cols - 1) * col_stride;
  const int four_bit = type == CPUML_TENSOR_DATA_TYPE_UINT4 || type == CPUML_TENSOR_DATA_TYPE_INT4;
  const uint64_t bytes = four_bit ? (last + 2) / 2
                                  : (last + 1) * (type == CPUML_TENSOR_DATA_TYPE_FLOAT32 ? 4 : 1);
  t->buffer = (CPUML_BUFFER_TENSOR_DESC){type, flags, 2, t->sizes, t->strides, (bytes + 3) / 4 * 4, 0};
  t->desc = (CPUML_TENSOR_DESC){CPUML_TENSOR_TYPE_BUFFER, &t->buffer};
  return &t->desc;
}

static int Nibble(const uint8_t* bytes, uint64_t offset) { return (bytes[offset / 2] >> (offset % 2 * 4)) & 0xF; }
static void SetNibble(uint8_t* bytes, uint64_t offset, int value) {
  bytes[offset / 2] = (uint8_t)((bytes[offset / 2] & ~(0xF << (offset % 2 * 4))) | (value & 0xF) << (offset % 2 * 4));
}

int main(void) {
  static float x[M * K], y[M * N], w_scale[N * BLOCKS], bias[N], x_scale[M];
  static uint8_t w[N * PADDED_K / 2 + 4], w_zero_point[N * ZERO_POINT_BYTES_PER_CHANNEL + 4];
  static uint8_t xq[M * K], x_zero_point[(M + 3) / 4 * 4];
  srand(7);
  for (int i = 0; i < M * K; ++i) x[i] = (float)(rand() % 2001 - 1000) / 300.0f;
  for (int n = 0; n < N; ++n) {
    for (int k = 0; k < K; ++k) SetNibble(w, (uint64_t)n * PADDED_K + k, rand() % 16);
    for (int c = 0; c < BLOCKS; ++c) {
      w_scale[n * BLOCKS + c] = 0.01f + 0.001f * (float)((n + c) % 9);
      SetNibble(w_zero_point, (uint64_t)n * ZERO_POINT_BYTES_PER_CHANNEL * 2 + c, 7 + (n + c) % 3);
    }
    bias[n] = 0.25f * (float)(n % 4);
  }

  /* DYNAMIC_QUANTIZE_LINEAR: X -> u8, one scale and zero point per row. */
  Tensor2D tx, txq, tscale, tzero;
  const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC quantize = {
      MakeTensor(&tx, CPUML_TENSOR_DATA_TYPE_FLOAT32, M, K, K, 1, CPUML_TENSOR_FLAG_NONE),
      MakeTensor(&txq, CPUML_TENSOR_DATA_TYPE_UINT8, M, K, K, 1, CPUML_TENSOR_FLAG_NONE),
      MakeTensor(&tscale, CPUML_TENSOR_DATA_TYPE_FLOAT32, M, 1, 1, 1, CPUML_TENSOR_FLAG_NONE),
      MakeTensor(&tzero, CPUML_TENSOR_DATA_TYPE_UINT8, M, 1, 1, 1, CPUML_TENSOR_FLAG_NONE)};
  const CPUML_OPERATOR_DESC quantize_op = {CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &quantize};

  /* B {K, N}: element (k, n) at nibble n * PADDED_K + k. Scales {BLOCKS, N}: (c, n) at n * BLOCKS
   * + c. Zero points {BLOCKS, N}: (c, n) at nibble n * 2 * ZERO_POINT_BYTES_PER_CHANNEL + c. The
   * block size, 32, follows from BLOCKS = ceil(K / 32). B and its zero points are owned. */
  const CPUML_TENSOR_FLAGS owned = CPUML_TENSOR_FLAG_OWNED_BY_CPUML;
  Tensor2D tw, tw_scale, tw_zero, tbias, ty;
  const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC matmul = {
      &txq.desc,
      &tscale.desc,
      &tzero.desc,
      MakeTensor(&tw, CPUML_TENSOR_DATA_TYPE_UINT4, K, N, 1, PADDED_K, owned),
      MakeTensor(&tw_scale, CPUML_TENSOR_DATA_TYPE_FLOAT32, BLOCKS, N, 1, BLOCKS, owned),
      MakeTensor(&tw_zero, CPUML_TENSOR_DATA_TYPE_UINT4, BLOCKS, N, 1, 2 * ZERO_POINT_BYTES_PER_CHANNEL, owned),
      MakeTensor(&tbias, CPUML_TENSOR_DATA_TYPE_FLOAT32, 1, N, N, 1, owned),
      MakeTensor(&ty, CPUML_TENSOR_DATA_TYPE_FLOAT32, M, N, N, 1, CPUML_TENSOR_FLAG_NONE)};
  const CPUML_OPERATOR_DESC matmul_op = {CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &matmul};

  cpuml_operator *quantizer = NULL, *layer = NULL;
  CHECK(cpuml_create_operator(&quantize_op, &quantizer));
  CHECK(cpuml_create_operator(&matmul_op, &layer));
  CPUML_BUFFER_BINDING inputs[7] = {{0}};
  inputs[3] = (CPUML_BUFFER_BINDING){w, sizeof w};
  inputs[4] = (CPUML_BUFFER_BINDING){w_scale, sizeof w_scale};
  inputs[5] = (CPUML_BUFFER_BINDING){w_zero_point, sizeof w_zero_point};
  inputs[6] = (CPUML_BUFFER_BINDING){bias, sizeof bias};
  CHECK(cpuml_initialize_operator(layer, inputs, 7));

  const CPUML_BUFFER_BINDING x_binding = {x, sizeof x};
  const CPUML_BUFFER_BINDING quantized[3] = {{xq, sizeof xq}, {x_scale, sizeof x_scale}, {x_zero_point, sizeof x_zero_point}};
  CHECK(cpuml_execute_operator(quantizer, &x_binding, 1, quantized, 3, NULL));
  memset(inputs, 0, sizeof inputs); /* owned inputs are bound {NULL, 0} at execute */
  inputs[0] = quantized[0];
  inputs[1] = quantized[1];
  inputs[2] = quantized[2];
  const CPUML_BUFFER_BINDING y_binding = {y, sizeof y};
  CHECK(cpuml_execute_operator(layer, inputs, 7, &y_binding, 1, NULL));

  /* The blockwise formula, exactly; and the float product with the dequantized weights. */
  int exact = 1;
  double worst = 0.0, scale = 0.0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float expected = 0.0f;
      double real = bias[n];
      for (int c = 0; c < BLOCKS; ++c) {
        const int zero_point = Nibble(w_zero_point, (uint64_t)n * ZERO_POINT_BYTES_PER_CHANNEL * 2 + c);
        int32_t sum = 0;
        for (int k = c * BLOCK; k < K && k < (c + 1) * BLOCK; ++k) {
          const int weight = Nibble(w, (uint64_t)n * PADDED_K + k) - zero_point;
          sum += ((int32_t)xq[m * K + k] - x_zero_point[m]) * weight;
          real += (double)x[m * K + k] * weight * w_scale[n * BLOCKS + c];
        }
        const float product = (float)sum * (x_scale[m] * w_scale[n * BLOCKS + c]);
        expected = c == 0 ? product : expected + product;
      }
      expected = expected + bias[n];
      exact &= memcmp(&expected, &y[m * N + n], sizeof expected) == 0;
      worst = fmax(worst, fabs(real - y[m * N + n]));
      scale = fmax(scale, fabs(real));
    }
  printf("int4 linear %dx%dx%d, blocks of %d: y[0][0] = %.4f, %s the formula, largest error against float %.4f (of %.2f)\n",
         M, K, N, BLOCK, y[0], exact ? "equal to" : "DIFFERENT FROM", worst, scale);
  cpuml_destroy_operator(quantizer);
  cpuml_destroy_operator(layer);
  return exact && worst < 0.02 * scale ? 0 : 1;
}
