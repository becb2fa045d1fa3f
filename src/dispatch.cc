#include "src/dispatch.h"

#include <cpuinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "src/status.h"

namespace cpuml {
namespace {

struct TierEntry {
  cpuml_isa isa;
  const char* name;
  const TierKernels* kernels;  // NULL when the tier was not built for this target
  bool (*cpu_supports)();
};

bool Always() { return true; }

#if defined(__aarch64__)
constexpr unsigned long kHwcap2I8mm = 1ul << 13;  // HWCAP2_I8MM in <asm/hwcap.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
bool CpuHasSse41() { return cpuinfo_has_x86_sse4_1(); }
bool CpuHasAvx2() { return cpuinfo_has_x86_avx2() && cpuinfo_has_x86_f16c(); }
// cpuinfo's AVX-512 queries include the OS check (XCR0 ZMM state).
bool CpuHasAvx512Vnni() {
  return cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512cd() && cpuinfo_has_x86_avx512dq() &&
         cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() &&
         cpuinfo_has_x86_avx512vnni() && cpuinfo_has_x86_f16c();
}
#endif

#if defined(__aarch64__)
bool CpuHasNeon() { return cpuinfo_has_arm_neon(); }
bool CpuHasDotprod() { return cpuinfo_has_arm_neon() && cpuinfo_has_arm_neon_dot(); }
// Debian's cpuinfo (2022) has no i8mm query: ask the kernel's hwcaps directly.
bool CpuHasI8mm() { return CpuHasDotprod() && (getauxval(AT_HWCAP2) & kHwcap2I8mm) != 0; }
#endif

// Ordered lowest first; the dispatch walks it downwards.
const TierEntry kTiers[] = {
    {CPUML_ISA_SCALAR, "scalar", &scalar::kTierKernels, Always},
#if defined(__x86_64__) || defined(__i386__)
#ifdef CPUML_BUILD_SSE41
    {CPUML_ISA_SSE41, "sse41", &sse41::kTierKernels, CpuHasSse41},
#else
    {CPUML_ISA_SSE41, "sse41", nullptr, CpuHasSse41},
#endif
#ifdef CPUML_BUILD_AVX2
    {CPUML_ISA_AVX2, "avx2", &avx2::kTierKernels, CpuHasAvx2},
#else
    {CPUML_ISA_AVX2, "avx2", nullptr, CpuHasAvx2},
#endif
#ifdef CPUML_BUILD_AVX512VNNI
    {CPUML_ISA_AVX512VNNI, "avx512vnni", &avx512vnni::kTierKernels, CpuHasAvx512Vnni},
#else
    {CPUML_ISA_AVX512VNNI, "avx512vnni", nullptr, CpuHasAvx512Vnni},
#endif
#endif
#if defined(__aarch64__)
#ifdef CPUML_BUILD_NEON
    {CPUML_ISA_NEON, "neon", &neon::kTierKernels, CpuHasNeon},
#endif
#ifdef CPUML_BUILD_NEON_DOTPROD
    {CPUML_ISA_NEON_DOTPROD, "neon_dotprod", &neon_dotprod::kTierKernels, CpuHasDotprod},
#endif
#ifdef CPUML_BUILD_NEON_I8MM
    {CPUML_ISA_NEON_I8MM, "neon_i8mm", &neon_i8mm::kTierKernels, CpuHasI8mm},
#endif
#endif
};

const char* const kAllIsaNames[][2] = {
    {"scalar", "0"}, {"sse41", "1"}, {"avx2", "2"}, {"avx512vnni", "3"},
    {"neon", "16"}, {"neon_dotprod", "17"}, {"neon_i8mm", "18"},
};

bool ParseIsa(const char* text, cpuml_isa* isa) {
  for (const auto& entry : kAllIsaNames) {
    if (strcmp(text, entry[0]) == 0) {
      *isa = static_cast<cpuml_isa>(atoi(entry[1]));
      return true;
    }
  }
  return false;
}

// Tier ranks compare within one architecture: the enum's values already order them.
constexpr int kNoCap = 1 << 30;
std::atomic<int> g_max_isa{kNoCap};

struct Init {
  bool cpuinfo_ok = false;
  Init() {
    cpuinfo_ok = cpuinfo_initialize();
    if (const char* env = getenv("CPUML_MAX_ISA")) {
      cpuml_isa isa;
      if (ParseIsa(env, &isa)) {
        g_max_isa.store(isa);
      } else {
        fprintf(stderr, "cpuml: ignoring CPUML_MAX_ISA=%s (expected scalar, sse41, avx2, avx512vnni, neon, "
                        "neon_dotprod or neon_i8mm)\n", env);
      }
    }
  }
};

const Init& GetInit() {
  static const Init init;  // thread-safe, once
  return init;
}

bool Runs(const TierEntry& entry) {
  if (entry.kernels == nullptr || !entry.kernels->built_with_isa_flags()) return false;
  if (entry.isa == CPUML_ISA_SCALAR) return true;
  return GetInit().cpuinfo_ok && entry.cpu_supports();
}

}  // namespace

const TierKernels& ActiveTier() {
  GetInit();
  const int cap = g_max_isa.load();
  for (size_t i = sizeof kTiers / sizeof kTiers[0]; i-- > 0;) {
    if (kTiers[i].isa <= cap && Runs(kTiers[i])) return *kTiers[i].kernels;
  }
  return scalar::kTierKernels;
}

const TierKernels* SupportedTier(cpuml_isa isa) {
  GetInit();
  for (const TierEntry& entry : kTiers)
    if (entry.isa == isa && Runs(entry)) return entry.kernels;
  return nullptr;
}

size_t LastLevelCacheBytes() {
  if (GetInit().cpuinfo_ok) {
    if (const cpuinfo_processor* p = cpuinfo_get_processor(0)) {
      // This core's share: the last level is shared by processor_count processors, and a fill
      // that overflows its share evicts the neighbours' data all the same.
      const cpuinfo_cache* last = p->cache.l3 ? p->cache.l3 : p->cache.l2;
      if (last && last->size) return last->size / (last->processor_count ? last->processor_count : 1);
    }
  }
  return size_t{8} << 20;
}

}  // namespace cpuml

extern "C" {

CPUML_API cpuml_isa cpuml_get_isa(void) { return cpuml::ActiveTier().isa; }

CPUML_API const char* cpuml_isa_name(cpuml_isa isa) {
  for (const auto& entry : cpuml::kAllIsaNames)
    if (atoi(entry[1]) == static_cast<int>(isa)) return entry[0];
  return nullptr;
}

CPUML_API int cpuml_is_isa_supported(cpuml_isa isa) { return cpuml::SupportedTier(isa) != nullptr; }

CPUML_API cpuml_status cpuml_set_max_isa(cpuml_isa isa) {
  cpuml::GetInit();
  if (cpuml_isa_name(isa) == nullptr)
    return cpuml::Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_set_max_isa: isa %d is not a cpuml_isa value",
                       static_cast<int>(isa));
  cpuml::g_max_isa.store(isa);
  cpuml::ClearError();
  return CPUML_STATUS_SUCCESS;
}

}  // extern "C"
