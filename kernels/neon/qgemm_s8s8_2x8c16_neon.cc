// qgemm_s8s8_2x8c16__neon and qgemm_s8sym_2x8c16__neon: 2 rows x 8 columns, K in groups of 16
// s8 (kS8S8 layout, kr = 16), baseline AArch64 NEON (Cortex-A53/A57/A72/A73: no dot product).
//
// smull multiplies eight s8 pairs into int16, where every product fits (|-128 * -128| = 16384),
// and sadalp adds neighbouring int16 lanes into int32. The s8s8 kernel adds the high K half with
// a second smull and sadalp: exact for every input, 8 products per two instructions against 4 per
// smlal of an int16 layout. The s8sym kernel adds the high half onto the low one in int16 with
// smlal2 first, one instruction fewer per 16 products; two products reach 32768 and overflow
// int16 only when both are -128 * -128, so it is picked only for an owned B with no -128 in the
// packed domain (symmetric weights, which XNNPACK's qs8 kernels require of every B): then a pair
// is at most 2 * 128 * 127 = 32512.
//
// The K loops are written in assembly: compiled from intrinsics, GCC 12 spilled or copied the
// tied smlal2 registers and reordered the products next to their adds, which costs an in-order
// core (A53, A55) a stall per add. Here each product is made at least four instructions before it
// is added, the products of one column pair are made while the previous pair's are added, and the
// B loads of the next pairs go between them. llvm-mca's figures are in docs/benchmarks.md
// (scripts/arm_model.sh).
#include <arm_neon.h>

#include "kernels/kernels.h"
#include "kernels/neon/requantize_neon.h"

namespace cpuml {
namespace neon {
namespace {

constexpr size_t kMr = 2, kNr = 8, kKr = 16;
static_assert(kNr == kTileColumns, "the NEON epilogue takes 8-column tiles");

// Around both K loops: v16-v31 start at zero and end in sums[]; the loops use v0-v13.
#define CPUML_ZERO_ACCUMULATORS                                                                    \
  "movi v16.4s, #0\n movi v17.4s, #0\n movi v18.4s, #0\n movi v19.4s, #0\n"                       \
  "movi v20.4s, #0\n movi v21.4s, #0\n movi v22.4s, #0\n movi v23.4s, #0\n"                       \
  "movi v24.4s, #0\n movi v25.4s, #0\n movi v26.4s, #0\n movi v27.4s, #0\n"                       \
  "movi v28.4s, #0\n movi v29.4s, #0\n movi v30.4s, #0\n movi v31.4s, #0\n"
#define CPUML_STORE_ACCUMULATORS                                                                   \
  "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[sums]], #64\n"                                        \
  "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[sums]], #64\n"                                        \
  "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[sums]], #64\n"                                        \
  "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[sums]], #64\n"
#define CPUML_DOT_TILE_OPERANDS                                                                    \
  : [a] "+r"(a), [b] "+r"(b), [k] "+r"(k_groups), [sums] "+r"(out)                                 \
  :                                                                                                \
  : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v16",     \
    "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", \
    "v31", "cc", "memory"

// The 16 accumulators live in v16-v31 through the K loop and are stored to sums[] after it:
// sums[4p + i] holds four partial sums of column pair p, i = 0 (row 0, column 2p), 1 (row 1, 2p),
// 2 (row 0, 2p + 1), 3 (row 1, 2p + 1). Both rows are always computed (a one-row tile's second
// row is the packing's zeros). K >= 1, so k_groups >= 1.
template <bool kPaired>
void DotTile(size_t k_groups, const int8_t* a, const int8_t* b, int32_t (*tile)[kNr]) {
  alignas(16) int32_t sums[16][4];
  int32_t* out = &sums[0][0];
  if constexpr (kPaired) {
    __asm__ volatile(
      CPUML_ZERO_ACCUMULATORS "1:\n"
      "ldp q0, q1, [%[a]], #32\n"
      "subs %[k], %[k], #1\n"
      "ldp q4, q5, [%[b]], #128\n"
      "smull v2.8h, v0.8b, v4.8b\n"
      "smull v3.8h, v1.8b, v4.8b\n"
      "smull v8.8h, v0.8b, v5.8b\n"
      "smull v9.8h, v1.8b, v5.8b\n"
      "ldp q6, q7, [%[b], #-96]\n"
      "smlal2 v2.8h, v0.16b, v4.16b\n"
      "smlal2 v3.8h, v1.16b, v4.16b\n"
      "smlal2 v8.8h, v0.16b, v5.16b\n"
      "smlal2 v9.8h, v1.16b, v5.16b\n"
      "smull v10.8h, v0.8b, v6.8b\n"
      "sadalp v16.4s, v2.8h\n"
      "smull v11.8h, v1.8b, v6.8b\n"
      "sadalp v17.4s, v3.8h\n"
      "smull v12.8h, v0.8b, v7.8b\n"
      "sadalp v18.4s, v8.8h\n"
      "smull v13.8h, v1.8b, v7.8b\n"
      "sadalp v19.4s, v9.8h\n"
      "ldp q4, q5, [%[b], #-64]\n"
      "smlal2 v10.8h, v0.16b, v6.16b\n"
      "smlal2 v11.8h, v1.16b, v6.16b\n"
      "smlal2 v12.8h, v0.16b, v7.16b\n"
      "smlal2 v13.8h, v1.16b, v7.16b\n"
      "smull v2.8h, v0.8b, v4.8b\n"
      "sadalp v20.4s, v10.8h\n"
      "smull v3.8h, v1.8b, v4.8b\n"
      "sadalp v21.4s, v11.8h\n"
      "smull v8.8h, v0.8b, v5.8b\n"
      "sadalp v22.4s, v12.8h\n"
      "smull v9.8h, v1.8b, v5.8b\n"
      "sadalp v23.4s, v13.8h\n"
      "ldp q6, q7, [%[b], #-32]\n"
      "smlal2 v2.8h, v0.16b, v4.16b\n"
      "smlal2 v3.8h, v1.16b, v4.16b\n"
      "smlal2 v8.8h, v0.16b, v5.16b\n"
      "smlal2 v9.8h, v1.16b, v5.16b\n"
      "smull v10.8h, v0.8b, v6.8b\n"
      "sadalp v24.4s, v2.8h\n"
      "smull v11.8h, v1.8b, v6.8b\n"
      "sadalp v25.4s, v3.8h\n"
      "smull v12.8h, v0.8b, v7.8b\n"
      "sadalp v26.4s, v8.8h\n"
      "smull v13.8h, v1.8b, v7.8b\n"
      "sadalp v27.4s, v9.8h\n"
      "smlal2 v10.8h, v0.16b, v6.16b\n"
      "smlal2 v11.8h, v1.16b, v6.16b\n"
      "smlal2 v12.8h, v0.16b, v7.16b\n"
      "smlal2 v13.8h, v1.16b, v7.16b\n"
      "sadalp v28.4s, v10.8h\n"
      "sadalp v29.4s, v11.8h\n"
      "sadalp v30.4s, v12.8h\n"
      "sadalp v31.4s, v13.8h\n"
      "b.ne 1b\n" CPUML_STORE_ACCUMULATORS
        CPUML_DOT_TILE_OPERANDS);
  } else {
    __asm__ volatile(
      CPUML_ZERO_ACCUMULATORS "1:\n"
      "ldp q0, q1, [%[a]], #32\n"
      "subs %[k], %[k], #1\n"
      "ldp q4, q5, [%[b]], #128\n"
      "smull v2.8h, v0.8b, v4.8b\n"
      "smull v3.8h, v1.8b, v4.8b\n"
      "smull v8.8h, v0.8b, v5.8b\n"
      "smull v9.8h, v1.8b, v5.8b\n"
      "ldp q6, q7, [%[b], #-96]\n"
      "smull2 v10.8h, v0.16b, v4.16b\n"
      "smull2 v11.8h, v1.16b, v4.16b\n"
      "smull2 v12.8h, v0.16b, v5.16b\n"
      "smull2 v13.8h, v1.16b, v5.16b\n"
      "ldp q4, q5, [%[b], #-64]\n"
      "sadalp v16.4s, v2.8h\n"
      "smull v2.8h, v0.8b, v6.8b\n"
      "sadalp v17.4s, v3.8h\n"
      "smull v3.8h, v1.8b, v6.8b\n"
      "sadalp v18.4s, v8.8h\n"
      "smull v8.8h, v0.8b, v7.8b\n"
      "sadalp v19.4s, v9.8h\n"
      "smull v9.8h, v1.8b, v7.8b\n"
      "sadalp v16.4s, v10.8h\n"
      "smull2 v10.8h, v0.16b, v6.16b\n"
      "sadalp v17.4s, v11.8h\n"
      "smull2 v11.8h, v1.16b, v6.16b\n"
      "sadalp v18.4s, v12.8h\n"
      "smull2 v12.8h, v0.16b, v7.16b\n"
      "sadalp v19.4s, v13.8h\n"
      "smull2 v13.8h, v1.16b, v7.16b\n"
      "ldp q6, q7, [%[b], #-32]\n"
      "sadalp v20.4s, v2.8h\n"
      "smull v2.8h, v0.8b, v4.8b\n"
      "sadalp v21.4s, v3.8h\n"
      "smull v3.8h, v1.8b, v4.8b\n"
      "sadalp v22.4s, v8.8h\n"
      "smull v8.8h, v0.8b, v5.8b\n"
      "sadalp v23.4s, v9.8h\n"
      "smull v9.8h, v1.8b, v5.8b\n"
      "sadalp v20.4s, v10.8h\n"
      "smull2 v10.8h, v0.16b, v4.16b\n"
      "sadalp v21.4s, v11.8h\n"
      "smull2 v11.8h, v1.16b, v4.16b\n"
      "sadalp v22.4s, v12.8h\n"
      "smull2 v12.8h, v0.16b, v5.16b\n"
      "sadalp v23.4s, v13.8h\n"
      "smull2 v13.8h, v1.16b, v5.16b\n"
      "sadalp v24.4s, v2.8h\n"
      "smull v2.8h, v0.8b, v6.8b\n"
      "sadalp v25.4s, v3.8h\n"
      "smull v3.8h, v1.8b, v6.8b\n"
      "sadalp v26.4s, v8.8h\n"
      "smull v8.8h, v0.8b, v7.8b\n"
      "sadalp v27.4s, v9.8h\n"
      "smull v9.8h, v1.8b, v7.8b\n"
      "sadalp v24.4s, v10.8h\n"
      "smull2 v10.8h, v0.16b, v6.16b\n"
      "sadalp v25.4s, v11.8h\n"
      "smull2 v11.8h, v1.16b, v6.16b\n"
      "sadalp v26.4s, v12.8h\n"
      "smull2 v12.8h, v0.16b, v7.16b\n"
      "sadalp v27.4s, v13.8h\n"
      "smull2 v13.8h, v1.16b, v7.16b\n"
      "sadalp v28.4s, v2.8h\n"
      "sadalp v29.4s, v3.8h\n"
      "sadalp v30.4s, v8.8h\n"
      "sadalp v31.4s, v9.8h\n"
      "sadalp v28.4s, v10.8h\n"
      "sadalp v29.4s, v11.8h\n"
      "sadalp v30.4s, v12.8h\n"
      "sadalp v31.4s, v13.8h\n"
      "b.ne 1b\n" CPUML_STORE_ACCUMULATORS
        CPUML_DOT_TILE_OPERANDS);
  }
  for (size_t i = 0; i < kMr; ++i) {
    int32x4_t column_sums[kNr / 2];
    for (size_t p = 0; p < kNr / 2; ++p)
      column_sums[p] = vpaddq_s32(vld1q_s32(sums[4 * p + i]), vld1q_s32(sums[4 * p + 2 + i]));
    vst1q_s32(tile[i], vpaddq_s32(column_sums[0], column_sums[1]));
    vst1q_s32(tile[i] + 4, vpaddq_s32(column_sums[2], column_sums[3]));
  }
}
#undef CPUML_ZERO_ACCUMULATORS
#undef CPUML_STORE_ACCUMULATORS
#undef CPUML_DOT_TILE_OPERANDS

template <bool kPaired>
void Run(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed, const QGemmTileParams* p) {
  alignas(16) int32_t tile[kMr][kNr];
  DotTile<kPaired>(k_groups, static_cast<const int8_t*>(a_packed), static_cast<const int8_t*>(b_packed), tile);
  RequantizeTile(&tile[0][0], mr, nr, p);
}

}  // namespace

static void qgemm_s8s8_2x8c16__neon(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                    const QGemmTileParams* p) {
  Run<false>(mr, nr, k_groups, a_packed, b_packed, p);
}

static void qgemm_s8sym_2x8c16__neon(size_t mr, size_t nr, size_t k_groups, const void* a_packed, const void* b_packed,
                                     const QGemmTileParams* p) {
  Run<true>(mr, nr, k_groups, a_packed, b_packed, p);
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
constexpr uint32_t kSymmetricB = 127;  // 2 * 128 * 127 = 32512 <= 32767
extern const QGemmKernel kQGemm_s8s8_2x8c16__neon;
const QGemmKernel kQGemm_s8s8_2x8c16__neon = {"qgemm_s8s8_2x8c16__neon", kMr, kNr, kKr, QGemmPacking::kS8S8, 1,
                                              UINT32_MAX, qgemm_s8s8_2x8c16__neon, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
extern const QGemmKernel kQGemm_s8sym_2x8c16__neon;
const QGemmKernel kQGemm_s8sym_2x8c16__neon = {"qgemm_s8sym_2x8c16__neon", kMr, kNr, kKr, QGemmPacking::kS8S8, 1,
                                               UINT32_MAX, qgemm_s8sym_2x8c16__neon, nullptr, nullptr, 0, kSymmetricB, 0, QGemmAInPlace::kNever};

}  // namespace neon
}  // namespace cpuml
