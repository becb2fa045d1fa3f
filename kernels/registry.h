// The one list of kernel tiers. Dispatch (src/dispatch.cc), the tests and the benchmarks all
// expand it; adding a tier is a folder under kernels/, one line here, one cpuml_add_tier line in
// cmake/CpumlTiers.cmake and one cpuml_isa value in the public header (docs/architecture.md).
//
// X(namespace, cpuml_isa value, name, architecture, GEMM CPU check, fill CPU check)
//   architecture  ANY, X86 or ARM: a tier is built, dispatched and tested only on its own
//   GEMM check    an expression true when this CPU and OS run the tier's GEMM kernels
//   fill check    the same for its fills (a tier may need fewer features for fills than for GEMM)
// The checks are evaluated in src/dispatch.cc, where cpuinfo and the helpers below are visible.
// Lines are in ascending order of preference within an architecture: that order is the tiers'
// rank for dispatch and for the cap, whatever their cpuml_isa values.
#ifndef CPUML_KERNELS_REGISTRY_H_
#define CPUML_KERNELS_REGISTRY_H_

#include "kernels/kernels.h"

#define CPUML_TIERS(X)                                                                                            \
  X(scalar, CPUML_ISA_SCALAR, "scalar", ANY, true, true)                                                          \
  X(sse41, CPUML_ISA_SSE41, "sse41", X86, cpuinfo_has_x86_sse4_1(), cpuinfo_has_x86_sse4_1())                      \
  X(avx2, CPUML_ISA_AVX2, "avx2", X86, X86Avx2(), X86Avx2())                                                       \
  X(avxvnni, CPUML_ISA_AVXVNNI, "avxvnni", X86, X86Avx2() && X86AvxVnni(), false)                                  \
  X(avx512vnni, CPUML_ISA_AVX512VNNI, "avx512vnni", X86, X86Avx512Core() && cpuinfo_has_x86_avx512vnni(),        \
    X86Avx512Core())                                                                                              \
  X(amx, CPUML_ISA_AMX, "amx", X86,                                                                              \
    X86Avx512Core() && cpuinfo_has_x86_avx512vnni() && cpuinfo_has_x86_gfni() && X86AmxInt8(), false)           \
  X(neon, CPUML_ISA_NEON, "neon", ARM, cpuinfo_has_arm_neon(), cpuinfo_has_arm_neon())                             \
  X(neon_dotprod, CPUML_ISA_NEON_DOTPROD, "neon_dotprod", ARM, cpuinfo_has_arm_neon_dot(), false)                  \
  X(neon_i8mm, CPUML_ISA_NEON_I8MM, "neon_i8mm", ARM, cpuinfo_has_arm_neon_dot() && ArmI8mm(), false)

// CPUML_IF_<architecture>(...) keeps its arguments on that architecture and drops them elsewhere.
#define CPUML_IF_ANY(...) __VA_ARGS__
#if defined(__x86_64__) || defined(__i386__)
#define CPUML_IF_X86(...) __VA_ARGS__
#define CPUML_IF_ARM(...)
#elif defined(__aarch64__)
#define CPUML_IF_X86(...)
#define CPUML_IF_ARM(...) __VA_ARGS__
#else
#define CPUML_IF_X86(...)
#define CPUML_IF_ARM(...)
#endif

namespace cpuml {

#define CPUML_DECLARE_TIER(ns, isa, name, arch, gemm_check, fill_check) \
  namespace ns {                                                        \
  extern const TierKernels kTierKernels;                                \
  }
CPUML_TIERS(CPUML_DECLARE_TIER)
#undef CPUML_DECLARE_TIER

}  // namespace cpuml

#endif  // CPUML_KERNELS_REGISTRY_H_
