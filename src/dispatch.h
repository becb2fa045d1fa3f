// Picks the kernel tier: built into this library, supported by this CPU and OS, under the cap.
#ifndef CPUML_SRC_DISPATCH_H_
#define CPUML_SRC_DISPATCH_H_

#include <stddef.h>

#include "kernels/kernels.h"

namespace cpuml {

// The table operators created now use; never NULL (the scalar tier is always there).
const TierKernels& ActiveTier();
// The table for `isa` if it was built and this machine runs it, else NULL.
const TierKernels* SupportedTier(cpuml_isa isa);
// This core's share of the last-level cache, in bytes (outputs larger than this are written
// with non-temporal stores); a guess if unknown.
size_t LastLevelCacheBytes();

}  // namespace cpuml

#endif  // CPUML_SRC_DISPATCH_H_
