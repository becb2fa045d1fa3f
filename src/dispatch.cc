#include "src/dispatch.h"

#include <cpuinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "kernels/registry.h"
#include "src/status.h"

namespace cpuml {
namespace {

// Helpers named by the registry's CPU checks.
#if defined(__x86_64__) || defined(__i386__)
// FMA3 comes with every AVX2 CPU made; the tiers' fills use it (kernels/fill_xsimd.inl).
[[maybe_unused]] bool X86Avx2() { return cpuinfo_has_x86_avx2() && cpuinfo_has_x86_f16c() && cpuinfo_has_x86_fma3(); }
// cpuinfo's AVX-512 queries include the OS check (XCR0 ZMM state).
[[maybe_unused]] bool X86Avx512Core() {
  return cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512cd() && cpuinfo_has_x86_avx512dq() &&
         cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_f16c() &&
         cpuinfo_has_x86_fma3();
}
// AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 (Debian's cpuinfo (2022) has no query); the YMM
// state check is X86Avx2's.
[[maybe_unused]] bool X86AvxVnni() {
  unsigned eax, ebx, ecx, edx;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4));
}
// AMX needs the CPU (AMX-TILE, AMX-INT8), the OS's XSAVE of the tile state (XCR0 bits 17, 18)
// and, on Linux, this process's permission to use the tile data, asked for once. Debian's
// cpuinfo (2022) has no AMX query.
[[maybe_unused]] bool X86AmxInt8() {
  static const bool supported = [] {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return false;  // OSXSAVE
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    if (!(edx & (1u << 24)) || !(edx & (1u << 25))) return false;  // AMX-TILE, AMX-INT8
    uint32_t xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & (3u << 17)) != (3u << 17)) return false;  // XTILECFG, XTILEDATA
#if defined(__linux__)
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) return false;
#endif
    return true;
  }();
  return supported;
}
#endif
#if defined(__aarch64__)
// Debian's cpuinfo (2022) has no i8mm query: ask the kernel's hwcaps directly.
[[maybe_unused]] bool ArmI8mm() {
  constexpr unsigned long kHwcap2I8mm = 1ul << 13;  // HWCAP2_I8MM in <asm/hwcap.h>
  return (getauxval(AT_HWCAP2) & kHwcap2I8mm) != 0;
}
#endif

struct TierEntry {
  cpuml_isa isa;
  const char* name;
  const TierKernels* kernels;
  bool (*runs_gemm)();
  bool (*runs_fill)();
};

// This architecture's tiers, lowest first.
#define CPUML_TIER_ENTRY(ns, isa, name, arch, gemm_check, fill_check) \
  CPUML_IF_##arch({isa, name, &ns::kTierKernels, [] { return bool(gemm_check); }, [] { return bool(fill_check); }}, )
const TierEntry kTiers[] = {CPUML_TIERS(CPUML_TIER_ENTRY)};
#undef CPUML_TIER_ENTRY

// Every tier of every architecture, for names and caps.
struct IsaName {
  cpuml_isa isa;
  const char* name;
  bool this_architecture;
};
#define CPUML_ISA_NAME(ns, isa, name, arch, gemm_check, fill_check) {isa, name, CPUML_IF_##arch(true ||) false},
const IsaName kIsaNames[] = {CPUML_TIERS(CPUML_ISA_NAME)};
#undef CPUML_ISA_NAME

// Fails to compile when a public cpuml_isa value has no registry line (-Wswitch).
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
[[maybe_unused]] constexpr bool InRegistry(cpuml_isa isa) {
  switch (isa) {
#define CPUML_ISA_CASE(ns, isa, name, arch, gemm_check, fill_check) case isa:
    CPUML_TIERS(CPUML_ISA_CASE)
#undef CPUML_ISA_CASE
    return true;
  }
  return false;
}
#pragma GCC diagnostic pop

const IsaName* FindIsa(cpuml_isa isa) {
  for (const IsaName& entry : kIsaNames)
    if (entry.isa == isa) return &entry;
  return nullptr;
}

constexpr int kNoCap = 1 << 30;
std::atomic<int> g_max_isa{kNoCap};

void ListNames(char* buf, size_t size, bool this_architecture) {
  size_t used = 0;
  buf[0] = '\0';
  for (const IsaName& entry : kIsaNames)
    if (entry.this_architecture == this_architecture && used < size)
      used += static_cast<size_t>(snprintf(buf + used, size - used, "%s%s", used ? ", " : "", entry.name));
}

struct Init {
  bool cpuinfo_ok = false;
  Init() {
    cpuinfo_ok = cpuinfo_initialize();
    const char* env = getenv("CPUML_MAX_ISA");
    if (!env) return;
    for (const IsaName& entry : kIsaNames) {
      if (strcmp(env, entry.name) != 0) continue;
      if (entry.this_architecture) {
        g_max_isa.store(entry.isa);
      } else {
        char names[160];
        ListNames(names, sizeof names, true);
        fprintf(stderr, "cpuml: ignoring CPUML_MAX_ISA=%s: that tier is for another architecture (this one has %s)\n",
                env, names);
      }
      return;
    }
    char names[160];
    ListNames(names, sizeof names, true);
    fprintf(stderr, "cpuml: ignoring CPUML_MAX_ISA=%s (expected one of %s)\n", env, names);
  }
};

const Init& GetInit() {
  static const Init init;  // thread-safe, once
  return init;
}

bool RunsGemm(const TierEntry& entry) {
  if (entry.isa == CPUML_ISA_SCALAR) return true;
  return GetInit().cpuinfo_ok && entry.runs_gemm();
}

// The fills' check: a CPU may have a tier's vector instructions without its GEMM ones.
bool RunsVectorCheck(const TierEntry& entry) {
  if (entry.isa == CPUML_ISA_SCALAR) return true;
  return GetInit().cpuinfo_ok && entry.runs_fill();
}

bool RunsFill(const TierEntry& entry) {
  if (entry.kernels->fill == nullptr) return false;
  if (entry.isa == CPUML_ISA_SCALAR) return true;
  return GetInit().cpuinfo_ok && entry.runs_fill();
}

// A tier's rank is its place in the registry, so enum values need not follow the order.
int Rank(int isa) {
  for (size_t i = 0; i < sizeof kTiers / sizeof kTiers[0]; ++i)
    if (kTiers[i].isa == isa) return static_cast<int>(i);
  return kNoCap;
}

bool RunsQuantize(const TierEntry& entry) { return entry.kernels->quantize != nullptr && RunsVectorCheck(entry); }

// The highest tier under the cap that `runs` accepts; scalar runs everything.
TierChoice Best(bool (*runs)(const TierEntry&)) {
  GetInit();
  const int cap = g_max_isa.load();
  const int cap_rank = cap == kNoCap ? kNoCap : Rank(cap);
  for (size_t i = sizeof kTiers / sizeof kTiers[0]; i-- > 0;)
    if (static_cast<int>(i) <= cap_rank && runs(kTiers[i])) return {kTiers[i].isa, kTiers[i].name, kTiers[i].kernels};
  return {CPUML_ISA_SCALAR, "scalar", &scalar::kTierKernels};
}

const TierKernels* Supported(cpuml_isa isa, bool (*runs)(const TierEntry&)) {
  GetInit();
  for (const TierEntry& entry : kTiers)
    if (entry.isa == isa && runs(entry)) return entry.kernels;
  return nullptr;
}

}  // namespace

TierChoice GemmTier() { return Best(RunsGemm); }
TierChoice FillTier() { return Best(RunsFill); }
TierChoice QuantizeTier() { return Best(RunsQuantize); }
const TierKernels* SupportedTier(cpuml_isa isa) { return Supported(isa, RunsGemm); }
const TierKernels* SupportedFillTier(cpuml_isa isa) { return Supported(isa, RunsFill); }
const TierKernels* SupportedQuantizeTier(cpuml_isa isa) { return Supported(isa, RunsQuantize); }

const QGemmKernel& SelectQGemmKernel(const TierKernels& tier, uint64_t m, uint32_t b_magnitude, bool blocks_4bit) {
  if (blocks_4bit)
    for (size_t i = 0; i < tier.qgemm_count; ++i) {
      const QGemmKernel& k = *tier.qgemm[i];
      if (HoldsNibbles(k.packing) && m >= k.min_m && m <= k.max_m) return k;
    }
  for (size_t i = 0; i < tier.qgemm_count; ++i) {
    const QGemmKernel& k = *tier.qgemm[i];
    if (HoldsNibbles(k.packing)) continue;
    const bool b_fits = k.max_b_magnitude == 0 || b_magnitude <= k.max_b_magnitude;
    if (m >= k.min_m && m <= k.max_m && b_fits) return k;
  }
  return *tier.qgemm[tier.qgemm_count - 1];
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

CPUML_API cpuml_isa cpuml_get_isa(void) { return cpuml::GemmTier().isa; }

CPUML_API const char* cpuml_isa_name(cpuml_isa isa) {
  const cpuml::IsaName* entry = cpuml::FindIsa(isa);
  return entry ? entry->name : nullptr;
}

CPUML_API int cpuml_is_isa_supported(cpuml_isa isa) { return cpuml::SupportedTier(isa) != nullptr; }

CPUML_API cpuml_status cpuml_set_max_isa(cpuml_isa isa) {
  cpuml::GetInit();
  const cpuml::IsaName* entry = cpuml::FindIsa(isa);
  if (entry == nullptr)
    return cpuml::Fail(CPUML_STATUS_INVALID_ARGUMENT, "cpuml_set_max_isa: isa %d is not a cpuml_isa value",
                       static_cast<int>(isa));
  if (!entry->this_architecture) {
    char names[160];
    cpuml::ListNames(names, sizeof names, true);
    return cpuml::Fail(CPUML_STATUS_INVALID_ARGUMENT,
                       "cpuml_set_max_isa: isa %s is a tier of another architecture (this one has %s)", entry->name,
                       names);
  }
  cpuml::g_max_isa.store(isa);
  cpuml::ClearError();
  return CPUML_STATUS_SUCCESS;
}

CPUML_API cpuml_isa cpuml_get_max_isa(void) {
  cpuml::GetInit();
  const int cap = cpuml::g_max_isa.load();
  if (cap != cpuml::kNoCap) return static_cast<cpuml_isa>(cap);
  // No cap: the highest tier of this architecture, which caps nothing.
  return cpuml::kTiers[sizeof cpuml::kTiers / sizeof cpuml::kTiers[0] - 1].isa;
}

}  // extern "C"
