// The library's own buffers: packed weights, decoded scales, an operator's kept scratch. They come
// from the global aligned operator new, like every other allocation of the library, so an engine
// (or a test) that replaces it sees all of cpuml's memory.
#ifndef CPUML_SRC_WORKSPACE_H_
#define CPUML_SRC_WORKSPACE_H_

#include <stddef.h>
#include <stdint.h>

#include <memory>
#include <new>

namespace cpuml {

struct WorkspaceDeleter {
  std::align_val_t alignment{64};
  void operator()(uint8_t* p) const { ::operator delete(p, alignment); }
};
using Workspace = std::unique_ptr<uint8_t, WorkspaceDeleter>;

// At least max(bytes, 64) bytes, 64-byte aligned; from 2 MiB on Linux, on 2 MiB boundaries with
// their whole 2 MiB pages advised into transparent huge pages unless CPUML_HUGE_PAGES=0. Throws
// std::bad_alloc as operator new does.
Workspace AllocateWorkspace(size_t bytes);

}  // namespace cpuml

#endif  // CPUML_SRC_WORKSPACE_H_
