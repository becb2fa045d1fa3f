// Every registered tier and kernel of this architecture (kernels/registry.h), for the
// kernel-level tests: tile sizes and layouts come from the kernels' own descriptors.
#ifndef CPUML_TESTS_KERNELS_REGISTERED_KERNELS_H_
#define CPUML_TESTS_KERNELS_REGISTERED_KERNELS_H_

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "kernels/registry.h"

namespace cpuml_test {

struct RegisteredTier {
  cpuml_isa isa;
  const char* name;
  const cpuml::TierKernels* kernels;
};

inline std::vector<RegisteredTier> RegisteredTiers() {
#define CPUML_TEST_TIER(ns, isa, name, arch, gemm_check, fill_check) \
  CPUML_IF_##arch(RegisteredTier{isa, name, &cpuml::ns::kTierKernels}, )
  return {CPUML_TIERS(CPUML_TEST_TIER)};
#undef CPUML_TEST_TIER
}

struct RegisteredQGemmKernel {
  RegisteredTier tier;
  const cpuml::QGemmKernel* kernel;
};

// Each kernel once, with the lowest tier that lists it (a higher tier may reuse a lower tier's
// kernel for part of its M range; the lower tier's support is what the kernel needs).
inline std::vector<RegisteredQGemmKernel> RegisteredQGemmKernels() {
  std::vector<RegisteredQGemmKernel> all;
  for (const RegisteredTier& tier : RegisteredTiers())
    for (size_t i = 0; i < tier.kernels->qgemm_count; ++i) {
      bool seen = false;
      for (const RegisteredQGemmKernel& k : all) seen |= k.kernel == tier.kernels->qgemm[i];
      if (!seen) all.push_back({tier, tier.kernels->qgemm[i]});
    }
  return all;
}

// gtest prints parameters with these instead of their bytes.
inline void PrintTo(const RegisteredTier& tier, std::ostream* os) { *os << tier.name; }
inline void PrintTo(const RegisteredQGemmKernel& k, std::ostream* os) { *os << k.kernel->name; }

inline std::string KernelTestName(const testing::TestParamInfo<RegisteredQGemmKernel>& info) {
  return info.param.kernel->name;
}
inline std::string TierTestName(const testing::TestParamInfo<RegisteredTier>& info) { return info.param.name; }

}  // namespace cpuml_test

#endif  // CPUML_TESTS_KERNELS_REGISTERED_KERNELS_H_
