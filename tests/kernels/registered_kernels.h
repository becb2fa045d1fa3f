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
  RegisteredTier tier;  // the tier whose ISA flags compiled the kernel: what a CPU needs to run it
  const cpuml::QGemmKernel* kernel;
};

// The tier a kernel's code belongs to, from its name's suffix (qgemm_<...>__<tier>): a tier's
// table may list a lower tier's kernel (AMX lists AVX-512 VNNI kernels for few rows), and such a
// kernel must be tested wherever its own tier runs, not only where the listing tier does. The
// Arm kernels shorten their tier's name.
inline const RegisteredTier* KernelCodeTier(const cpuml::QGemmKernel& kernel, const std::vector<RegisteredTier>& tiers) {
  const std::string name = kernel.name;
  const size_t separator = name.rfind("__");
  if (separator == std::string::npos) return nullptr;
  std::string suffix = name.substr(separator + 2);
  if (suffix == "neondot") suffix = "neon_dotprod";
  if (suffix == "neoni8mm") suffix = "neon_i8mm";
  for (const RegisteredTier& tier : tiers)
    if (suffix == tier.name) return &tier;
  return nullptr;
}

// Each kernel of every tier's table once, with the tier of its code.
inline std::vector<RegisteredQGemmKernel> RegisteredQGemmKernels() {
  std::vector<RegisteredQGemmKernel> all;
  const std::vector<RegisteredTier> tiers = RegisteredTiers();
  for (const RegisteredTier& tier : tiers)
    for (size_t i = 0; i < tier.kernels->qgemm_count; ++i) {
      const cpuml::QGemmKernel* kernel = tier.kernels->qgemm[i];
      // The 4-bit kernels finish whole blockwise tiles: tests/matmul_int4_test.cc runs them on
      // every tier through the operator, against the reference.
      if (cpuml::HoldsNibbles(kernel->packing)) continue;
      bool seen = false;
      for (const RegisteredQGemmKernel& k : all) seen |= k.kernel == kernel;
      if (seen) continue;
      const RegisteredTier* code_tier = KernelCodeTier(*kernel, tiers);
      // A kernel whose name names no tier is tested only where its listing tier runs; the
      // naming test below fails for it.
      all.push_back({code_tier ? *code_tier : tier, kernel});
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
