// IEEE binary16 <-> binary32, shared by the fills of every tier and by the tests' reference.
// Compiled once, for the baseline ISA; higher tiers may call it (never the reverse).
#ifndef CPUML_KERNELS_COMMON_HALF_H_
#define CPUML_KERNELS_COMMON_HALF_H_

#include <stdint.h>

namespace cpuml {

// HalfToFloat is exact. FloatToHalf rounds to nearest even, overflows to infinity, and keeps a
// NaN a NaN (quieted, top payload bits kept), as F16C's vcvtps2ph does.
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);

}  // namespace cpuml

#endif  // CPUML_KERNELS_COMMON_HALF_H_
