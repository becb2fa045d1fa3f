// qgemm_s8u4_1x16c8__avxvnni and qgemm_s8u4_4x16c8__avxvnni: 4-bit B in blocks (kS8U4Blocks), for
// one row (M = 1, LLM decode) and up to four, with the VEX vpdpbusd (kernels/qgemm_s8u4_avx2.inl).
#include <immintrin.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

#define CPUML_TIER avxvnni
#define CPUML_S8U4_VNNI 1
#include "kernels/qgemm_s8u4_avx2.inl"

namespace cpuml {
namespace avxvnni {

constexpr size_t kMr = 4;

static void qgemm_s8u4_1x16c8__avxvnni(size_t, size_t nr, size_t, const void* a_packed, const void* b_packed,
                                       const QGemmTileParams* p) {
  S8U4TileRows<1, 1>(nr, static_cast<const uint8_t*>(a_packed), static_cast<const uint8_t*>(b_packed), p);
}

static void qgemm_s8u4_4x16c8__avxvnni(size_t mr, size_t nr, size_t, const void* a_packed, const void* b_packed,
                                       const QGemmTileParams* p) {
  WithRowCount<kMr>(mr, [&](auto rows) {
    S8U4TileRows<decltype(rows)::value, kMr>(nr, static_cast<const uint8_t*>(a_packed),
                                             static_cast<const uint8_t*>(b_packed), p);
  });
}

static_assert(kMr <= kMaxKernelMr && kS8U4Nr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_1x16c8__avxvnni, kQGemm_s8u4_4x16c8__avxvnni;
const QGemmKernel kQGemm_s8u4_1x16c8__avxvnni = {"qgemm_s8u4_1x16c8__avxvnni", 1, kS8U4Nr, kS8U4Kr,
                                                QGemmPacking::kS8U4Blocks, 1, 1, qgemm_s8u4_1x16c8__avxvnni, nullptr,
                                                nullptr, 0, 0, 0, QGemmAInPlace::kNever};
const QGemmKernel kQGemm_s8u4_4x16c8__avxvnni = {"qgemm_s8u4_4x16c8__avxvnni", kMr, kS8U4Nr, kS8U4Kr,
                                                QGemmPacking::kS8U4Blocks, 2, UINT32_MAX, qgemm_s8u4_4x16c8__avxvnni,
                                                nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};

}  // namespace avxvnni
}  // namespace cpuml
