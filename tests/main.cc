// Test entry point. CPUML_EXPECT_ISA (set by scripts/test.sh for each emulated CPU) makes the run
// fail before any test unless dispatch picked that tier, so an emulated run can never pass on the
// wrong tier.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuml/cpuml.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* expected = getenv("CPUML_EXPECT_ISA");
  const char* picked = cpuml_isa_name(cpuml_get_isa());
  printf("cpuml: dispatch picked tier '%s'\n", picked);
  if (expected != nullptr && strcmp(picked, expected) != 0) {
    fprintf(stderr, "cpuml: dispatch picked tier '%s', CPUML_EXPECT_ISA is '%s': no test runs\n", picked, expected);
    return 1;
  }
  return RUN_ALL_TESTS();
}
