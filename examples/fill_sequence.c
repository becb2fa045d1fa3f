/* FILL_VALUE_SEQUENCE: ONNX Range(start=10, limit=-2, delta=-3) as INT32 {10, 7, 4, 1}, then
 * the same ramp as FLOAT16, whose values are IEEE half bit patterns in the scalar union. */
#include <stdio.h>

#include <cpuml/cpuml.h>

/* Creates, runs and destroys one sequence fill of `count` elements of `type` into `data`. */
static int FillSequence(CPUML_TENSOR_DATA_TYPE type, uint32_t element_size, uint32_t count, CPUML_SCALAR_UNION start,
                        CPUML_SCALAR_UNION delta, void* data) {
  const uint32_t sizes[1] = {count};
  /* DirectML's rule: the byte size rounded up to a multiple of 4. */
  const uint64_t total_bytes = ((uint64_t)count * element_size + 3) / 4 * 4;
  const CPUML_BUFFER_TENSOR_DESC buffer = {type, CPUML_TENSOR_FLAG_NONE, 1, sizes, NULL, total_bytes, 0};
  const CPUML_TENSOR_DESC output_desc = {CPUML_TENSOR_TYPE_BUFFER, &buffer};
  const CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC fill = {&output_desc, type, start, delta};
  const CPUML_OPERATOR_DESC desc = {CPUML_OPERATOR_FILL_VALUE_SEQUENCE, &fill};
  cpuml_operator* op = NULL;
  cpuml_status status = cpuml_create_operator(&desc, &op);
  if (status == CPUML_STATUS_SUCCESS) {
    const CPUML_BUFFER_BINDING output = {data, total_bytes};
    status = cpuml_execute_operator(op, NULL, 0, &output, 1, NULL);
    cpuml_destroy_operator(op);
  }
  if (status != CPUML_STATUS_SUCCESS) {
    fprintf(stderr, "fill_sequence: %s: %s\n", cpuml_status_string(status), cpuml_last_error_message());
    return 1;
  }
  return 0;
}

int main(void) {
  /* ONNX Range's element count: max(ceil((limit - start) / delta), 0) = 4. */
  int32_t range[4];
  CPUML_SCALAR_UNION start = {{0}}, delta = {{0}};
  start.Int32 = 10;
  delta.Int32 = -3;
  if (FillSequence(CPUML_TENSOR_DATA_TYPE_INT32, 4, 4, start, delta, range)) return 1;
  const int32_t expected[4] = {10, 7, 4, 1};
  for (int i = 0; i < 4; ++i)
    if (range[i] != expected[i]) {
      fprintf(stderr, "element %d is %d, expected %d\n", i, range[i], expected[i]);
      return 1;
    }

  /* FLOAT16 start 1.0 (0x3C00) and delta 0.25 (0x3400): 1, 1.25, 1.5, 1.75, 2 (0x4000). */
  uint16_t half[5];
  start.UInt16 = 0x3C00;
  delta.UInt16 = 0x3400;
  if (FillSequence(CPUML_TENSOR_DATA_TYPE_FLOAT16, 2, 5, start, delta, half)) return 1;
  const uint16_t expected_half[5] = {0x3C00, 0x3D00, 0x3E00, 0x3F00, 0x4000};
  for (int i = 0; i < 5; ++i)
    if (half[i] != expected_half[i]) {
      fprintf(stderr, "half element %d is 0x%04x, expected 0x%04x\n", i, half[i], expected_half[i]);
      return 1;
    }
  printf("fill_sequence: Range(10, -2, -3) = {10, 7, 4, 1}; FLOAT16 ramp 1.0 .. 2.0 in steps of 0.25\n");
  return 0;
}
