/* FILL_VALUE_CONSTANT: ONNX ConstantOfShape. Fills a 2 x 3 FLOAT32 tensor with 0.5.
 * The output descriptor may also be strided (a view into a larger tensor); here it is packed. */
#include <stdio.h>

#include <cpuml/cpuml.h>

int main(void) {
  const uint32_t sizes[2] = {2, 3};
  const CPUML_BUFFER_TENSOR_DESC buffer = {
      CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 2, sizes,
      NULL,  /* strides: NULL = packed row-major */
      6 * 4, /* TotalTensorSizeInBytes */
      0};
  const CPUML_TENSOR_DESC output_desc = {CPUML_TENSOR_TYPE_BUFFER, &buffer};
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill = {&output_desc, CPUML_TENSOR_DATA_TYPE_FLOAT32, {{0}}};
  fill.Value.Float32 = 0.5f;
  const CPUML_OPERATOR_DESC desc = {CPUML_OPERATOR_FILL_VALUE_CONSTANT, &fill};

  cpuml_operator* op = NULL;
  cpuml_status status = cpuml_create_operator(&desc, &op);
  if (status != CPUML_STATUS_SUCCESS) {
    fprintf(stderr, "create: %s: %s\n", cpuml_status_string(status), cpuml_last_error_message());
    return 1;
  }
  float values[6];
  const CPUML_BUFFER_BINDING output = {values, sizeof values};
  /* A fill has no inputs; NULL thread pool = run on this thread. */
  status = cpuml_execute_operator(op, NULL, 0, &output, 1, NULL);
  cpuml_destroy_operator(op);
  if (status != CPUML_STATUS_SUCCESS) {
    fprintf(stderr, "execute: %s: %s\n", cpuml_status_string(status), cpuml_last_error_message());
    return 1;
  }
  for (int i = 0; i < 6; ++i)
    if (values[i] != 0.5f) {
      fprintf(stderr, "element %d is %g\n", i, (double)values[i]);
      return 1;
    }
  printf("fill_constant: 2x3 FLOAT32 filled with 0.5 (cpuml %s, tier %s)\n", cpuml_get_version_string(),
         cpuml_isa_name(cpuml_get_isa()));
  return 0;
}
