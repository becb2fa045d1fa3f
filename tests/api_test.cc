// The C API's own contract: status strings, ISA control, argument checks.
#include "tests/test_support.h"

#include <unistd.h>

#include <string>
#include <vector>

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
               "avxvnni, avx512vnni, amx)");
  // Rank is registry order, not the enum value: avxvnni (5) ranks below avx512vnni (3), so a cap
  // at avxvnni on a CPU without it falls to avx2, never up to avx512vnni.
  ASSERT_EQ(cpuml_set_max_isa(CPUML_ISA_AVXVNNI), CPUML_STATUS_SUCCESS);
  EXPECT_EQ(cpuml_get_isa(), cpuml_is_isa_supported(CPUML_ISA_AVXVNNI) ? CPUML_ISA_AVXVNNI
                             : cpuml_is_isa_supported(CPUML_ISA_AVX2)  ? CPUML_ISA_AVX2
                             : cpuml_is_isa_supported(CPUML_ISA_SSE41) ? CPUML_ISA_SSE41
                                                                       : CPUML_ISA_SCALAR);
  ASSERT_EQ(cpuml_set_max_isa(uncapped), CPUML_STATUS_SUCCESS);
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

TEST(Api, Version) {
  EXPECT_EQ(cpuml_get_version(), static_cast<uint32_t>(CPUML_VERSION));
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", CPUML_VERSION_MAJOR, CPUML_VERSION_MINOR, CPUML_VERSION_PATCH);
  EXPECT_STREQ(cpuml_get_version_string(), expected);
}

// A small owned-nothing matmul: A 3x5 u8, B 5x4 s8, output 3x4 u8, all scales 1, no zero points.
struct SmallMatMul {
  TensorDesc a{CPUML_TENSOR_DATA_TYPE_UINT8, {3, 5}}, b{CPUML_TENSOR_DATA_TYPE_INT8, {5, 4}},
      scale{CPUML_TENSOR_DATA_TYPE_FLOAT32, {1, 1}}, out{CPUML_TENSOR_DATA_TYPE_UINT8, {3, 4}};
  CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC desc{a.get(),     scale.get(), nullptr,   b.get(), scale.get(),
                                                            nullptr,     scale.get(), nullptr,   out.get()};
  CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &desc};
  uint8_t a_data[16] = {1, 2, 3, 4, 5, 0, 1, 0, 1, 0, 9, 9, 9, 9, 9};
  int8_t b_data[20] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  float one = 1.0f;
  std::vector<CPUML_BUFFER_BINDING> Inputs() {
    return {{a_data, sizeof a_data}, {&one, 4}, {nullptr, 0}, {b_data, sizeof b_data},
            {&one, 4},               {nullptr, 0}, {&one, 4}, {nullptr, 0}};
  }
  // Hand-computed: row i of A times B (columns: k0, k1, k2, k0+k1+k2+k3+k4).
  static constexpr uint8_t kExpected[12] = {1, 2, 3, 15, 0, 1, 0, 2, 9, 9, 9, 45};
};

TEST(Api, ScratchIsChecked) {
  SmallMatMul mm;
  cpuml_operator* raw = nullptr;
  ASSERT_EQ(cpuml_create_operator(&mm.op_desc, &raw), CPUML_STATUS_SUCCESS) << cpuml_last_error_message();
  OperatorPtr op(raw);
  CPUML_BINDING_PROPERTIES properties{};
  EXPECT_EQ(cpuml_get_binding_properties(op.get(), nullptr), CPUML_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(cpuml_get_binding_properties(nullptr, &properties), CPUML_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(cpuml_get_binding_properties(op.get(), &properties), CPUML_STATUS_SUCCESS);
  ASSERT_GT(properties.TemporaryResourceSize, 0u);
  EXPECT_EQ(properties.PersistentResourceSize, 0u);  // nothing owned
  const auto inputs = mm.Inputs();
  GuardedBuffer output(12, 0x77), scratch(properties.TemporaryResourceSize + 64, 0);
  const CPUML_BUFFER_BINDING out = output.Binding();
  struct Case {
    CPUML_BUFFER_BINDING scratch;
    const char* message;
  } cases[] = {
      {{scratch.data(), properties.TemporaryResourceSize - 1}, "scratch->SizeInBytes"},
      {{nullptr, properties.TemporaryResourceSize}, "scratch->Data must not be NULL"},
      {{scratch.data() + 1, properties.TemporaryResourceSize}, "CPUML_SCRATCH_ALIGNMENT"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(cpuml_execute_operator_with_scratch(op.get(), inputs.data(), 8, &out, 1, &c.scratch, nullptr),
              CPUML_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(strstr(cpuml_last_error_message(), c.message), nullptr) << cpuml_last_error_message();
    EXPECT_EQ(output.Bytes(), std::vector<uint8_t>(12, 0x77)) << "written despite " << c.message;
  }
  const CPUML_BUFFER_BINDING exact{scratch.data(), properties.TemporaryResourceSize};
  ASSERT_EQ(cpuml_execute_operator_with_scratch(op.get(), inputs.data(), 8, &out, 1, &exact, nullptr),
            CPUML_STATUS_SUCCESS)
      << cpuml_last_error_message();
  EXPECT_EQ(output.Bytes(), std::vector<uint8_t>(SmallMatMul::kExpected, SmallMatMul::kExpected + 12));
  EXPECT_TRUE(scratch.CanariesIntact());
  // NULL scratch is the plain execute.
  memset(output.data(), 0x77, 12);
  ASSERT_EQ(cpuml_execute_operator_with_scratch(op.get(), inputs.data(), 8, &out, 1, nullptr, nullptr),
            CPUML_STATUS_SUCCESS);
  EXPECT_EQ(output.Bytes(), std::vector<uint8_t>(SmallMatMul::kExpected, SmallMatMul::kExpected + 12));
}

// Redirects stderr into a file for the test's lifetime and returns what was written.
std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t end; (end = text.find(separator, begin)) != std::string::npos; begin = end + 1)
    parts.push_back(text.substr(begin, end - begin));
  parts.push_back(text.substr(begin));
  return parts;
}

TEST(Api, VerboseLogLines) {
  ASSERT_EQ(cpuml_get_verbose(), 0) << "run the suite without CPUML_VERBOSE";
  SmallMatMul mm;
  const auto inputs = mm.Inputs();
  GuardedBuffer output(12, 0);
  const CPUML_BUFFER_BINDING out = output.Binding();
  {
    // Off: nothing at all.
    StderrCapture capture;
    cpuml_operator* raw = nullptr;
    ASSERT_EQ(cpuml_create_operator(&mm.op_desc, &raw), CPUML_STATUS_SUCCESS);
    OperatorPtr op(raw);
    ASSERT_EQ(cpuml_execute_operator(op.get(), inputs.data(), 8, &out, 1, nullptr), CPUML_STATUS_SUCCESS);
    EXPECT_EQ(capture.Finish(), "");
  }
  cpuml_set_verbose(1);
  EXPECT_EQ(cpuml_get_verbose(), 1);
  StderrCapture capture;
  cpuml_operator* raw = nullptr;
  const cpuml_status created = cpuml_create_operator(&mm.op_desc, &raw);
  OperatorPtr op(raw);
  const cpuml_status initialized = cpuml_initialize_operator(op.get(), nullptr, 0);
  const cpuml_status executed = cpuml_execute_operator(op.get(), inputs.data(), 8, &out, 1, nullptr);
  const CPUML_BUFFER_BINDING short_out{output.data(), 2};
  const cpuml_status refused = cpuml_execute_operator(op.get(), inputs.data(), 8, &short_out, 1, nullptr);
  cpuml_set_verbose(0);
  const std::string log = capture.Finish();
  ASSERT_EQ(created, CPUML_STATUS_SUCCESS);
  ASSERT_EQ(initialized, CPUML_STATUS_SUCCESS);
  ASSERT_EQ(executed, CPUML_STATUS_SUCCESS);
  ASSERT_EQ(refused, CPUML_STATUS_INVALID_ARGUMENT);
  std::vector<std::string> lines = Split(log, '\n');
  ASSERT_EQ(lines.size(), 5u) << log;  // four lines and the empty tail
  const char* phases[] = {"create", "initialize", "execute", "execute"};
  const char* statuses[] = {"SUCCESS", "SUCCESS", "SUCCESS", "INVALID_ARGUMENT"};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(lines[i]);
    const std::vector<std::string> f = Split(lines[i], ',');
    ASSERT_EQ(f.size(), 11u);
    EXPECT_EQ(f[0], "cpuml_verbose");
    EXPECT_EQ(f[1], phases[i]);
    EXPECT_EQ(f[2], "QUANTIZED_LINEAR_MATRIX_MULTIPLY");
    EXPECT_EQ(f[3], "A=u8 B=s8 Output=u8");
    EXPECT_EQ(f[4], "A=1x1x3x5 B=1x1x5x4 Output=1x1x3x4");
    EXPECT_EQ(f[5], "A=0:0:5:1 B=0:0:4:1 Output=0:0:4:1");  // size-1 dimensions have stride 0 once padded to 4-D
    EXPECT_EQ(f[6], cpuml_isa_name(cpuml_get_isa()));
    EXPECT_NE(f[7].find("qgemm_"), std::string::npos);
    EXPECT_EQ(f[8], "1");
    EXPECT_EQ(f[9], statuses[i]);
    EXPECT_GE(atof(f[10].c_str()), 0.0);
  }
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
