// Test entry point. CPUML_EXPECT_ISA (set by .ci/run for each emulated CPU) makes the run fail
// unless dispatch picked that tier, so an emulated run can never pass on the wrong tier.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <string.h>

#include "cpuml/cpuml.h"

namespace {
class ExpectedIsa : public testing::Environment {
 public:
  void SetUp() override {
    const char* expected = getenv("CPUML_EXPECT_ISA");
    const char* picked = cpuml_isa_name(cpuml_get_isa());
    printf("cpuml: dispatch picked tier '%s'\n", picked);
    if (expected != nullptr) {
      ASSERT_STREQ(picked, expected) << "dispatch picked the wrong tier";
    }
  }
};
}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  testing::AddGlobalTestEnvironment(new ExpectedIsa);
  return RUN_ALL_TESTS();
}
