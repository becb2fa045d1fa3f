#include "src/workspace.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>

namespace cpuml {
namespace {

constexpr std::align_val_t kWorkspaceAlignment{64};

// Linux's default transparent-huge-page mode, "madvise", backs a buffer with 4 KiB pages unless
// it is advised. Decode reads its packed weights from memory once a token, a new page translation
// every 4 KiB on small pages: on huge pages the Llama-3-8B layer's 4-bit decode ran 1.05-1.24x at
// sixteen threads on the Emerald Rapids device, and one thread's within 0.83-1.14x, mostly above
// 1 (docs/experiments.md, huge pages). Only whole pages inside the buffer are advised, so no byte
// past it changes; where the kernel refuses the advice it is dropped.
#if defined(__linux__) && defined(MADV_HUGEPAGE)
constexpr size_t kHugePageBytes = size_t{2} << 20;

bool HugePagesFromEnvironment() {
  const char* env = getenv("CPUML_HUGE_PAGES");
  return env == nullptr || strcmp(env, "0") != 0;
}
#endif

}  // namespace

Workspace AllocateWorkspace(size_t bytes) {
  bytes = std::max<size_t>(bytes, 64);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  static const bool huge_pages = HugePagesFromEnvironment();
  if (huge_pages && bytes >= kHugePageBytes) {
    constexpr std::align_val_t kHugePageAlignment{kHugePageBytes};
    Workspace workspace(static_cast<uint8_t*>(::operator new(bytes, kHugePageAlignment)),
                        WorkspaceDeleter{kHugePageAlignment});
    madvise(workspace.get(), bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
    return workspace;
  }
#endif
  return Workspace(static_cast<uint8_t*>(::operator new(bytes, kWorkspaceAlignment)));
}

}  // namespace cpuml
