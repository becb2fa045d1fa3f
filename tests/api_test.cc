// The C API's own contract: status strings, ISA control, argument checks.
#include "tests/test_support.h"

namespace cpuml_test {
namespace {

TEST(Api, StatusStrings) {
  EXPECT_STREQ(cpuml_status_string(CPUML_STATUS_SUCCESS), "success");
  EXPECT_STREQ(cpuml_status_string(CPUML_STATUS_INVALID_ARGUMENT), "invalid argument");
  EXPECT_STREQ(cpuml_status_string(CPUML_STATUS_UNSUPPORTED), "unsupported");
  EXPECT_STREQ(cpuml_status_string(CPUML_STATUS_INVALID_STATE), "invalid state");
  EXPECT_STREQ(cpuml_status_string(CPUML_STATUS_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(cpuml_status_string(static_cast<cpuml_status>(99)), "unknown status");
}

TEST(Api, IsaControl) {
  // Whatever cap CPUML_MAX_ISA set, the highest tier of this architecture removes it.
  const cpuml_isa previous_cap = cpuml_get_max_isa();
  const cpuml_isa uncapped = AllTiers().back();
  ASSERT_EQ(cpuml_set_max_isa(uncapped), CPUML_STATUS_SUCCESS);
  EXPECT_STREQ(cpuml_isa_name(CPUML_ISA_SCALAR), "scalar");
  EXPECT_STREQ(cpuml_isa_name(CPUML_ISA_AVX512VNNI), "avx512vnni");
  EXPECT_STREQ(cpuml_isa_name(CPUML_ISA_NEON_I8MM), "neon_i8mm");
  EXPECT_EQ(cpuml_isa_name(static_cast<cpuml_isa>(7)), nullptr);
  EXPECT_TRUE(cpuml_is_isa_supported(CPUML_ISA_SCALAR));
  EXPECT_EQ(cpuml_set_max_isa(static_cast<cpuml_isa>(7)), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(cpuml_last_error_message(), "cpuml_set_max_isa: isa 7 is not a cpuml_isa value");
  // A tier of the other architecture is no cap at all: refused, naming this architecture's tiers.
#if defined(__x86_64__)
  EXPECT_EQ(cpuml_set_max_isa(CPUML_ISA_NEON), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(cpuml_last_error_message(),
               "cpuml_set_max_isa: isa neon is a tier of another architecture (this one has scalar, sse41, avx2, "
               "avx512vnni, amx)");
#elif defined(__aarch64__)
  EXPECT_EQ(cpuml_set_max_isa(CPUML_ISA_AVX2), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(strstr(cpuml_last_error_message(), "isa avx2 is a tier of another architecture"), nullptr);
#endif
  EXPECT_EQ(cpuml_get_max_isa(), uncapped);
  ASSERT_EQ(cpuml_set_max_isa(CPUML_ISA_SCALAR), CPUML_STATUS_SUCCESS);
  EXPECT_EQ(cpuml_get_isa(), CPUML_ISA_SCALAR);
  EXPECT_EQ(cpuml_get_max_isa(), CPUML_ISA_SCALAR);
  // The highest tier of this architecture caps nothing: the best supported tier, which is the
  // last supported one in the registry's order.
  ASSERT_EQ(cpuml_set_max_isa(uncapped), CPUML_STATUS_SUCCESS);
  cpuml_isa last_supported = CPUML_ISA_SCALAR;
  for (cpuml_isa t : AllTiers())
    if (cpuml_is_isa_supported(t)) last_supported = t;
  EXPECT_EQ(cpuml_get_isa(), last_supported);
  EXPECT_EQ(cpuml_set_max_isa(previous_cap), CPUML_STATUS_SUCCESS);
}

TEST(Api, NullArguments) {
  cpuml_operator* op = nullptr;
  EXPECT_EQ(cpuml_create_operator(nullptr, &op), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(cpuml_last_error_message(), "cpuml_create_operator: desc must not be NULL");
  CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_FILL_VALUE_CONSTANT, nullptr};
  EXPECT_EQ(cpuml_create_operator(&desc, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(cpuml_create_operator(&desc, &op), CPUML_STATUS_INVALID_ARGUMENT);
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill{};
  CPUML_OPERATOR_DESC unknown{static_cast<CPUML_OPERATOR_TYPE>(42), &fill};
  EXPECT_EQ(cpuml_create_operator(&unknown, &op), CPUML_STATUS_UNSUPPORTED);
  EXPECT_STREQ(cpuml_last_error_message(), "cpuml_create_operator: desc->Type 42 is not a supported operator");
  EXPECT_EQ(cpuml_execute_operator(nullptr, nullptr, 0, nullptr, 0, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(cpuml_initialize_operator(nullptr, nullptr, 0), CPUML_STATUS_INVALID_ARGUMENT);
  cpuml_destroy_operator(nullptr);
}

TEST(Api, SuccessClearsMessage) {
  EXPECT_EQ(cpuml_create_operator(nullptr, nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_STRNE(cpuml_last_error_message(), "");
  TensorDesc out(CPUML_TENSOR_DATA_TYPE_UINT8, {4});
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill{out.get(), CPUML_TENSOR_DATA_TYPE_UINT8, {}};
  CPUML_OPERATOR_DESC desc{CPUML_OPERATOR_FILL_VALUE_CONSTANT, &fill};
  cpuml_operator* op = nullptr;
  ASSERT_EQ(cpuml_create_operator(&desc, &op), CPUML_STATUS_SUCCESS);
  EXPECT_STREQ(cpuml_last_error_message(), "");
  cpuml_destroy_operator(op);
}

}  // namespace
}  // namespace cpuml_test

#include "cpuml/cpuml.hpp"

namespace cpuml_test {
namespace {

TEST(CppApi, OperatorOwnsAndThrows) {
  TensorDesc out(CPUML_TENSOR_DATA_TYPE_INT32, {3});
  CPUML_SCALAR_UNION value{};
  value.Int32 = -9;
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill{out.get(), CPUML_TENSOR_DATA_TYPE_INT32, value};
  cpuml::Operator op(CPUML_OPERATOR_DESC{CPUML_OPERATOR_FILL_VALUE_CONSTANT, &fill});
  cpuml::Operator moved = std::move(op);
  EXPECT_EQ(op.get(), nullptr);
  int32_t result[3] = {};
  const CPUML_BUFFER_BINDING binding{result, sizeof result};
  moved.Execute(nullptr, 0, &binding, 1);
  EXPECT_EQ(result[2], -9);
  const CPUML_BUFFER_BINDING small{result, 4};
  try {
    moved.Execute(nullptr, 0, &small, 1);
    FAIL() << "expected cpuml::Error";
  } catch (const cpuml::Error& e) {
    EXPECT_EQ(e.status(), CPUML_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("SizeInBytes 4 must be >= TotalTensorSizeInBytes 12"), std::string::npos);
  }
  fill.ValueDataType = CPUML_TENSOR_DATA_TYPE_INT8;
  EXPECT_THROW(cpuml::Operator(CPUML_OPERATOR_DESC{CPUML_OPERATOR_FILL_VALUE_CONSTANT, &fill}), cpuml::Error);
}

}  // namespace
}  // namespace cpuml_test
