// qgemm_s8u4_1x64c8_pfl1__avx512vnni, _pfl2 and qgemm_s8u4_4x64c8__avx512vnni: 4-bit B in blocks
// (kS8U4Blocks, kernels/kernels.h), one row (M = 1, LLM decode) or up to four of 64 columns, on
// this tier and on the amx tier below its tile kernel, every block of the tile in one call,
// finished in float.
//
// A group of 16 columns is one zmm: 16 columns x 4 bytes. Masked, its low nibbles are each
// column's first K quad as u8; shifted, its high ones the second; vpdpbusd multiplies them by A's
// quads as s8 straight into int32, so every sum is the exact one, and the float steps are the
// formula's, lane by lane: the bits are every tier's.
#include <immintrin.h>
#include <string.h>

#include <algorithm>
#include <type_traits>

#include "kernels/kernels.h"
#include "kernels/row_count.h"

namespace cpuml {
namespace avx512vnni {
namespace {

constexpr size_t kMr = 4, kNr = 64, kKr = 8;
constexpr size_t kVectors = kNr / 16;           // zmm of columns
constexpr size_t kVectorBytes = 16 * kKr / 2;  // a group of 16 columns: one zmm
// Groups whose column-sum bytes (two nibbles each, <= 30 a group) are added before vpdpbusd widens them.
constexpr size_t kGroupsPerWiden = 8;

// How a tile that streams B (one row, or one tile's row block) requests its lines: none (B from
// the caches), every line 4 KB ahead into L1 (the 8-bit one-row kernel's kEveryLineToL1 explains
// it), or every line 8 KB ahead into L2 only (qgemm_s8u4_1x64c8_pfl2__avx512vnni says where).
enum class StreamPrefetch { kNone, kL1Near, kL2Far };

inline __m512i BroadcastQuad(const int8_t* a) {
  int32_t quad;
  memcpy(&quad, a, 4);
  return _mm512_set1_epi32(quad);
}

// One zmm of a group's B (16 columns x 4 bytes) as vpdpbusd's u8 operands: masked, the low nibbles
// are each column's first K quad; shifted, the high ones its second.
inline void Nibbles(const uint8_t* b, __m512i mask, __m512i& low, __m512i& high) {
  const __m512i raw = _mm512_loadu_si512(b);
  low = _mm512_and_si512(raw, mask);
  high = _mm512_and_si512(_mm512_srli_epi16(raw, 4), mask);
}

// Four rows of symmetric activations (no column sums) with B from the caches, prefill's common
// case: every block of a run as one asm loop, the group loop, the zero points' term, the float
// steps and the next block's chains. Written with intrinsics around an asm group loop, GCC 12
// moved the sixteen accumulators between registers at every block boundary, kept y and the start
// terms in a mix of registers and stack, and computed each block's terms in a pass of its own.
// AMD EPYC Zen 5, `dqmatmul` s8u4 at blocks of 32 against that build, four alternating rounds:
// 1.04x at 128 x 4096 x 4096 and 1.06x at 512 rows (one thread), level at blocks of 128; with a
// zero point per column (the kernel alone, three runs) 1.06x at blocks of 32, level at 128.
// The kernel on one panel in L2 (`cpuml_bench` probe
// `isa_peak/avx512vnni_s8u4_4x64_tile_b32`) runs blocks of 32 at 0.76-0.77 of the `vpdpbusd`
// probe with the float steps spread (CPUML_S8U4_SPREAD_BLOCKS; 0.71-0.73 before), where the
// formula's two float multiplies per output and block, which share vpdpbusd's two pipes on that
// core, leave 0.80 (`isa_peak/avx512vnni_vpdpbusd_vmulps`). Registers: zmm0-15
// the sums (row r, columns 16v: zmm(4r + v)), zmm16-19 and zmm20-23 a group's low and high
// nibbles, zmm24-25 a row's two A quads, zmm26 the nibble mask, zmm27 a vector of B's scales,
// zmm28 the scales' product, zmm29-30 a vector's zero points and a row's term. y stays in memory.
#define CPUML_S8U4_UNPACK(v, l, h)                 \
  "vpsrlw $4, 64*" #v "(%[b]), %%zmm" #h "\n\t"     \
  "vpandd 64*" #v "(%[b]), %%zmm26, %%zmm" #l "\n\t" \
  "vpandd %%zmm" #h ", %%zmm26, %%zmm" #h "\n\t"
// A line of the next panel into L2 (QGemmTileParams::prefetch_b), pf_step bytes further each group.
#define CPUML_S8U4_PREFETCH        \
  "prefetcht1 (%[pf])\n\t"        \
  "add %[pf_step], %[pf]\n\t"
#define CPUML_S8U4_ROW(r, c0, c1, c2, c3)      \
  "vpbroadcastd 8*" #r "(%[a]), %%zmm24\n\t"    \
  "vpbroadcastd 8*" #r "+4(%[a]), %%zmm25\n\t"  \
  "vpdpbusd %%zmm24, %%zmm16, %%zmm" #c0 "\n\t" \
  "vpdpbusd %%zmm24, %%zmm17, %%zmm" #c1 "\n\t" \
  "vpdpbusd %%zmm24, %%zmm18, %%zmm" #c2 "\n\t" \
  "vpdpbusd %%zmm24, %%zmm19, %%zmm" #c3 "\n\t" \
  "vpdpbusd %%zmm25, %%zmm20, %%zmm" #c0 "\n\t" \
  "vpdpbusd %%zmm25, %%zmm21, %%zmm" #c1 "\n\t" \
  "vpdpbusd %%zmm25, %%zmm22, %%zmm" #c2 "\n\t" \
  "vpdpbusd %%zmm25, %%zmm23, %%zmm" #c3 "\n\t"
// The two ways of a block's zero-point term (QGemmBlocks::zero_points), MODE below. SHARED: one
// zero point for all, so the term is one int32 a row, and each block's chains start from it,
// broadcast from `start`, where the loop writes the next block's (its rows' terms times the zero
// point) over this block's once its chains have read them (the integer pipes are otherwise idle
// here). COLUMNS: a zero point per column and block, the bytes after the block's nibbles; the
// chains start from zero and each sum gets its row's term times the columns' zero points.
#define CPUML_S8U4_START_SHARED(r, v, c) "vpbroadcastd 4*" #r "(%[start]), %%zmm" #c "\n\t"
#define CPUML_S8U4_START_COLUMNS(r, v, c) "vpxord %%zmm" #c ", %%zmm" #c ", %%zmm" #c "\n\t"
#define CPUML_S8U4_NEXT_TERM(r)                \
  "mov 4*" #r "(%[row_b]), %k[g]\n\t"          \
  "imul %k[zero_point], %k[g]\n\t"             \
  "mov %k[g], 4*" #r "(%[start])\n\t"
#define CPUML_S8U4_BLOCK_START_SHARED                                                                 \
  CPUML_S8U4_NEXT_TERM(0) CPUML_S8U4_NEXT_TERM(1) CPUML_S8U4_NEXT_TERM(2) CPUML_S8U4_NEXT_TERM(3) \
  "add %[row_b_step], %[row_b]\n\t"
#define CPUML_S8U4_BLOCK_START_COLUMNS
#define CPUML_S8U4_ZERO_POINTS_SHARED(v)
#define CPUML_S8U4_ZERO_POINTS_COLUMNS(v) "vpmovzxbd 16*" #v "(%[b]), %%zmm29\n\t"
#define CPUML_S8U4_TERM_SHARED(r, c)
#define CPUML_S8U4_TERM_COLUMNS(r, c)                              \
  "vpmulld 4*" #r "(%[row_b])%{1to16%}, %%zmm29, %%zmm30\n\t"       \
  "vpaddd %%zmm30, %%zmm" #c ", %%zmm" #c "\n\t"
#define CPUML_S8U4_BLOCK_END_SHARED
#define CPUML_S8U4_BLOCK_END_COLUMNS "add %[row_b_step], %[row_b]\n\t"
#define CPUML_S8U4_SCALES_HALF(v) "vcvtph2ps 32*" #v "(%[b_scale]), %%zmm27\n\t"
#define CPUML_S8U4_SCALES_FLOAT(v) "vmovups 64*" #v "(%[b_scale]), %%zmm27\n\t"
// The formula's steps for row r's 16 columns from 16v, each one IEEE operation (every operand
// order here is commutative): the zero points' term, the scales' product, the sum times it, y plus
// that; then the chain's start for the next block.
#define CPUML_S8U4_FLOAT_STEPS(MODE, r, v, c)                           \
  CPUML_S8U4_TERM_##MODE(r, c)                                          \
  "vmulps 4*" #r "(%[a_scale])%{1to16%}, %%zmm27, %%zmm28\n\t"           \
  "vcvtdq2ps %%zmm" #c ", %%zmm" #c "\n\t"                              \
  "vmulps %%zmm28, %%zmm" #c ", %%zmm" #c "\n\t"                        \
  "vaddps (256*" #r "+64*" #v ")(%[y]), %%zmm" #c ", %%zmm" #c "\n\t"   \
  "vmovups %%zmm" #c ", (256*" #r "+64*" #v ")(%[y])\n\t" CPUML_S8U4_START_##MODE(r, v, c)
#define CPUML_S8U4_COLUMNS(SCALES, MODE, v, c0, c1, c2, c3)                                          \
  SCALES(v) CPUML_S8U4_ZERO_POINTS_##MODE(v) CPUML_S8U4_FLOAT_STEPS(MODE, 0, v, c0)                  \
      CPUML_S8U4_FLOAT_STEPS(MODE, 1, v, c1) CPUML_S8U4_FLOAT_STEPS(MODE, 2, v, c2)                  \
          CPUML_S8U4_FLOAT_STEPS(MODE, 3, v, c3)
#define CPUML_S8U4_ROW_STARTS(MODE, r, c0, c1, c2, c3)                                          \
  CPUML_S8U4_START_##MODE(r, 0, c0) CPUML_S8U4_START_##MODE(r, 1, c1) CPUML_S8U4_START_##MODE(r, 2, c2) \
      CPUML_S8U4_START_##MODE(r, 3, c3)
// A group's unpacking and rows, then on to the next group; every loop below is made of these.
#define CPUML_S8U4_UNPACK_GROUP \
  CPUML_S8U4_UNPACK(0, 16, 20) CPUML_S8U4_UNPACK(1, 17, 21) CPUML_S8U4_UNPACK(2, 18, 22) CPUML_S8U4_UNPACK(3, 19, 23)
#define CPUML_S8U4_NEXT_GROUP \
  CPUML_S8U4_PREFETCH         \
  "add $256, %[b]\n\t"       \
  "add $32, %[a]\n\t"
#define CPUML_S8U4_GROUP                                                                                 \
  CPUML_S8U4_UNPACK_GROUP CPUML_S8U4_ROW(0, 0, 1, 2, 3) CPUML_S8U4_ROW(1, 4, 5, 6, 7)                     \
      CPUML_S8U4_ROW(2, 8, 9, 10, 11) CPUML_S8U4_ROW(3, 12, 13, 14, 15) CPUML_S8U4_NEXT_GROUP
#define CPUML_S8U4_BLOCKS(SCALES, MODE)                                                                         \
  "mov $0x0f0f0f0f, %k[g]\n\t"                                                                                 \
  "vpbroadcastd %k[g], %%zmm26\n\t" CPUML_S8U4_ROW_STARTS(MODE, 0, 0, 1, 2, 3)                                 \
      CPUML_S8U4_ROW_STARTS(MODE, 1, 4, 5, 6, 7) CPUML_S8U4_ROW_STARTS(MODE, 2, 8, 9, 10, 11)                  \
          CPUML_S8U4_ROW_STARTS(MODE, 3, 12, 13, 14, 15)                                                       \
  "1:\n\t" CPUML_S8U4_BLOCK_START_##MODE                                                                       \
  "mov %[groups], %[g]\n\t"                                                                                    \
  "2:\n\t" CPUML_S8U4_GROUP                                                                                   \
  "dec %[g]\n\t"                                                                                               \
  "jnz 2b\n\t" CPUML_S8U4_COLUMNS(SCALES, MODE, 0, 0, 4, 8, 12)                                                 \
      CPUML_S8U4_COLUMNS(SCALES, MODE, 1, 1, 5, 9, 13) CPUML_S8U4_COLUMNS(SCALES, MODE, 2, 2, 6, 10, 14)       \
          CPUML_S8U4_COLUMNS(SCALES, MODE, 3, 3, 7, 11, 15) CPUML_S8U4_BLOCK_END_##MODE                        \
  "add %[b_extra], %[b]\n\t"                                                                                   \
  "add %[b_scale_step], %[b_scale]\n\t"                                                                        \
  "add %[a_scale_step], %[a_scale]\n\t"                                                                        \
  "dec %[n]\n\t"                                                                                               \
  "jnz 1b\n\t"

// The same loop with one zero point (SHARED) and two groups or more a block, each block's float
// steps spread over two groups: rows 0 and 1 in its last group, each after the next row's
// vpdpbusd, rows 2 and 3 in the next block's first group, each before the vpdpbusd that restart
// its chains. Queued behind a block's last vpdpbusd, the sixteen outputs' float steps kept the
// multiply pipes from vpdpbusd; spread, they share them in the formula's ratio (AMD EPYC Zen 5, a
// register-and-L1 copy of the loop: 0.74-0.76 of vpdpbusd's rate at blocks of 32 -> 0.78-0.81,
// where the two instructions in that ratio alone run at 0.80-0.82; `dqmatmul` s8u4 at 128 and
// 512 x 4096 x 4096, five alternating rounds: blocks of 32 1.03-1.05x at one and two threads,
// blocks of 128 1.01-1.04x. Emerald Rapids, `avx512vnni` and `amx` tiers, 4-128 rows, four rounds:
// 0.91-1.18x, level within the rounds' spread). The block's four vectors of B
// scales stay in zmm27 and zmm29-31 from its last group to the next block's first; the scale
// pointers move, and the next block's start terms are written, after that group.
#define CPUML_S8U4_SPREAD_SCALES_HALF                                                                     \
  "vcvtph2ps (%[b_scale]), %%zmm27\n\t"                                                                    \
  "vcvtph2ps 32(%[b_scale]), %%zmm29\n\t"                                                                  \
  "vcvtph2ps 64(%[b_scale]), %%zmm30\n\t"                                                                  \
  "vcvtph2ps 96(%[b_scale]), %%zmm31\n\t"
#define CPUML_S8U4_SPREAD_SCALES_FLOAT                                                                    \
  "vmovups (%[b_scale]), %%zmm27\n\t"                                                                      \
  "vmovups 64(%[b_scale]), %%zmm29\n\t"                                                                    \
  "vmovups 128(%[b_scale]), %%zmm30\n\t"                                                                   \
  "vmovups 192(%[b_scale]), %%zmm31\n\t"
#define CPUML_S8U4_SPREAD_STEP(r, v, c, scale)                                                            \
  "vmulps 4*" #r "(%[a_scale])%{1to16%}, %%zmm" #scale ", %%zmm28\n\t"                                       \
  "vcvtdq2ps %%zmm" #c ", %%zmm" #c "\n\t"                                                                \
  "vmulps %%zmm28, %%zmm" #c ", %%zmm" #c "\n\t"                                                          \
  "vaddps (256*" #r "+64*" #v ")(%[y]), %%zmm" #c ", %%zmm" #c "\n\t"                                     \
  "vmovups %%zmm" #c ", (256*" #r "+64*" #v ")(%[y])\n\t" CPUML_S8U4_START_SHARED(r, v, c)
#define CPUML_S8U4_SPREAD_ROW(r, c0, c1, c2, c3)                                                             \
  CPUML_S8U4_SPREAD_STEP(r, 0, c0, 27) CPUML_S8U4_SPREAD_STEP(r, 1, c1, 29) CPUML_S8U4_SPREAD_STEP(r, 2, c2, 30) \
      CPUML_S8U4_SPREAD_STEP(r, 3, c3, 31)
#define CPUML_S8U4_SPREAD_BLOCKS(SCALES)                                                                      \
  "mov $0x0f0f0f0f, %k[g]\n\t"                                                                               \
  "vpbroadcastd %k[g], %%zmm26\n\t" CPUML_S8U4_ROW_STARTS(SHARED, 0, 0, 1, 2, 3)                               \
      CPUML_S8U4_ROW_STARTS(SHARED, 1, 4, 5, 6, 7) CPUML_S8U4_ROW_STARTS(SHARED, 2, 8, 9, 10, 11)              \
          CPUML_S8U4_ROW_STARTS(SHARED, 3, 12, 13, 14, 15) CPUML_S8U4_BLOCK_START_SHARED CPUML_S8U4_GROUP     \
  "jmp 3f\n\t"                                                                                               \
  "1:\n\t" CPUML_S8U4_UNPACK_GROUP CPUML_S8U4_ROW(0, 0, 1, 2, 3) CPUML_S8U4_SPREAD_ROW(2, 8, 9, 10, 11)        \
      CPUML_S8U4_ROW(1, 4, 5, 6, 7) CPUML_S8U4_SPREAD_ROW(3, 12, 13, 14, 15) CPUML_S8U4_ROW(2, 8, 9, 10, 11)    \
          CPUML_S8U4_ROW(3, 12, 13, 14, 15) CPUML_S8U4_NEXT_GROUP                                              \
  "add %[b_scale_step], %[b_scale]\n\t"                                                                     \
  "add %[a_scale_step], %[a_scale]\n\t" CPUML_S8U4_BLOCK_START_SHARED                                       \
  "3:\n\t"                                                                                                   \
  "mov %[middle], %[g]\n\t"                                                                                  \
  "test %[g], %[g]\n\t"                                                                                      \
  "jz 4f\n\t"                                                                                                \
  "2:\n\t" CPUML_S8U4_GROUP                                                                                 \
  "dec %[g]\n\t"                                                                                             \
  "jnz 2b\n\t"                                                                                               \
  "4:\n\t" CPUML_S8U4_UNPACK_GROUP CPUML_S8U4_ROW(0, 0, 1, 2, 3) CPUML_S8U4_ROW(1, 4, 5, 6, 7)                 \
      SCALES CPUML_S8U4_SPREAD_ROW(0, 0, 1, 2, 3) CPUML_S8U4_ROW(2, 8, 9, 10, 11)                               \
          CPUML_S8U4_SPREAD_ROW(1, 4, 5, 6, 7) CPUML_S8U4_ROW(3, 12, 13, 14, 15) CPUML_S8U4_NEXT_GROUP          \
  "add %[b_extra], %[b]\n\t"                                                                                 \
  "dec %[n]\n\t"                                                                                             \
  "jnz 1b\n\t" CPUML_S8U4_SPREAD_ROW(2, 8, 9, 10, 11) CPUML_S8U4_SPREAD_ROW(3, 12, 13, 14, 15)

// `blocks` blocks of `groups` groups each: A and B from `a` and `b` (A's blocks one after another,
// as PackFormat::ATileBytes lays them out; each of B's followed by b_extra more bytes, its zero
// points and column sums), y += each block's products. With kSharedZeroPoint, `start` holds the
// first block's four start terms and `row_b` points at the next block's row terms; else `row_b`
// points at the first block's. row_b_step: bytes from a block's row terms to the next's.
template <bool kSharedZeroPoint, bool kHalfScales>
__attribute__((always_inline)) inline void FourRowBlocks(size_t blocks, size_t groups, const int8_t* a,
                                                         const uint8_t* b, size_t b_extra, const void* b_scale,
                                                         size_t b_scale_step, const float* a_scale,
                                                         size_t a_scale_step, int32_t* start, const int32_t* row_b,
                                                         size_t row_b_step, int32_t zero_point, float* y,
                                                         const uint8_t*& pf, size_t pf_step) {
  size_t g;
  const size_t middle = groups >= 2 ? groups - 2 : 0;  // the spread loop's groups between a block's first and last
#define CPUML_S8U4_OPERANDS                                                                                      \
  : [a] "+r"(a), [b] "+r"(b), [b_scale] "+r"(b_scale), [a_scale] "+r"(a_scale), [start] "+r"(start),             \
    [row_b] "+r"(row_b), [n] "+r"(blocks), [g] "=&r"(g), [pf] "+r"(pf)                                           \
  : [groups] "rm"(groups), [b_extra] "rm"(b_extra), [b_scale_step] "rm"(b_scale_step),                          \
    [a_scale_step] "rm"(a_scale_step), [row_b_step] "rm"(row_b_step), [zero_point] "rm"(zero_point), [y] "r"(y), \
    [pf_step] "rm"(pf_step), [middle] "rm"(middle)                                                               \
  : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",    \
    "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",    \
    "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "cc"
  if constexpr (kSharedZeroPoint && kHalfScales) {
    if (groups >= 2)
      asm volatile(CPUML_S8U4_SPREAD_BLOCKS(CPUML_S8U4_SPREAD_SCALES_HALF) CPUML_S8U4_OPERANDS);
    else
      asm volatile(CPUML_S8U4_BLOCKS(CPUML_S8U4_SCALES_HALF, SHARED) CPUML_S8U4_OPERANDS);
  } else if constexpr (kSharedZeroPoint) {
    if (groups >= 2)
      asm volatile(CPUML_S8U4_SPREAD_BLOCKS(CPUML_S8U4_SPREAD_SCALES_FLOAT) CPUML_S8U4_OPERANDS);
    else
      asm volatile(CPUML_S8U4_BLOCKS(CPUML_S8U4_SCALES_FLOAT, SHARED) CPUML_S8U4_OPERANDS);
  } else if constexpr (kHalfScales) {
    asm volatile(CPUML_S8U4_BLOCKS(CPUML_S8U4_SCALES_HALF, COLUMNS) CPUML_S8U4_OPERANDS);
  } else {
    asm volatile(CPUML_S8U4_BLOCKS(CPUML_S8U4_SCALES_FLOAT, COLUMNS) CPUML_S8U4_OPERANDS);
  }
#undef CPUML_S8U4_OPERANDS
}
#undef CPUML_S8U4_BLOCKS
#undef CPUML_S8U4_SPREAD_BLOCKS
#undef CPUML_S8U4_NEXT_GROUP
#undef CPUML_S8U4_GROUP
#undef CPUML_S8U4_UNPACK_GROUP
#undef CPUML_S8U4_SPREAD_ROW
#undef CPUML_S8U4_SPREAD_STEP
#undef CPUML_S8U4_SPREAD_SCALES_FLOAT
#undef CPUML_S8U4_SPREAD_SCALES_HALF
#undef CPUML_S8U4_ROW_STARTS
#undef CPUML_S8U4_COLUMNS
#undef CPUML_S8U4_FLOAT_STEPS
#undef CPUML_S8U4_SCALES_FLOAT
#undef CPUML_S8U4_SCALES_HALF
#undef CPUML_S8U4_BLOCK_END_COLUMNS
#undef CPUML_S8U4_BLOCK_END_SHARED
#undef CPUML_S8U4_TERM_COLUMNS
#undef CPUML_S8U4_TERM_SHARED
#undef CPUML_S8U4_ZERO_POINTS_COLUMNS
#undef CPUML_S8U4_ZERO_POINTS_SHARED
#undef CPUML_S8U4_BLOCK_START_COLUMNS
#undef CPUML_S8U4_BLOCK_START_SHARED
#undef CPUML_S8U4_NEXT_TERM
#undef CPUML_S8U4_START_COLUMNS
#undef CPUML_S8U4_START_SHARED
#undef CPUML_S8U4_ROW
#undef CPUML_S8U4_UNPACK

// One block's exact sums over the panel's kVectors zmm of columns (a group's kVectors * 64 bytes):
// dot[r][v] for the tile's kRows rows (kAStride rows per group of the A tile), and when
// kColumnSums the columns' sums of u. kPrefetch: how a tile that streams B requests its lines
// (StreamPrefetch).
template <size_t kRows, size_t kAStride, bool kColumnSums, StreamPrefetch kPrefetch>
inline void BlockSums(size_t groups, const int8_t* a, const uint8_t* b, const int32_t (&start)[kRows],
                      __m512i (&dot)[kRows][kVectors], __m512i (&column_sum)[kVectors]) {
  const __m512i mask = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1);
  // One row streams B: alternate groups and the two nibbles go to four accumulators, so four
  // vpdpbusd chains are in flight instead of one.
  constexpr size_t kChains = kRows == 1 ? 4 : 1;
  constexpr size_t kGroupBytes = kVectors * kVectorBytes;
  __m512i chain[kChains][kRows][kVectors];
  __m512i column_bytes[kVectors];
  for (size_t v = 0; v < kVectors; ++v) {
    for (size_t c = 0; c < kChains; ++c)
      for (size_t r = 0; r < kRows; ++r) chain[c][r][v] = c ? _mm512_setzero_si512() : _mm512_set1_epi32(start[r]);
    column_sum[v] = column_bytes[v] = _mm512_setzero_si512();
  }
  // Group g into chains kFirst and kFirst + 1 (chain 0 with one chain). The chains are named at
  // compile time: indexed by g % 2, GCC kept them in memory, and each vpdpbusd waited on a store
  // and a reload (AMD EPYC Zen 5, one thread, 1x4096x4096: 139 -> 229 GOPS at block 32, 168 ->
  // 305 at block 128).
  auto group = [&](size_t g, auto first) __attribute__((always_inline)) {
    constexpr size_t kFirst = kChains == 1 ? 0 : decltype(first)::value, kSecond = kChains == 1 ? 0 : kFirst + 1;
    const uint8_t* bg = b + g * kGroupBytes;
    __m512i low[kVectors], high[kVectors];
    for (size_t v = 0; v < kVectors; ++v) {
      if (kPrefetch == StreamPrefetch::kL1Near)
        _mm_prefetch(reinterpret_cast<const char*>(bg + 64 * v + 4096), _MM_HINT_T0);
      else if (kPrefetch == StreamPrefetch::kL2Far)
        _mm_prefetch(reinterpret_cast<const char*>(bg + 64 * v + 8192), _MM_HINT_T1);
      Nibbles(bg + 64 * v, mask, low[v], high[v]);
      if (kColumnSums) {
        column_bytes[v] = _mm512_add_epi8(column_bytes[v], _mm512_add_epi8(low[v], high[v]));
        if ((g + 1) % kGroupsPerWiden == 0) {
          column_sum[v] = _mm512_dpbusd_epi32(column_sum[v], column_bytes[v], ones);
          column_bytes[v] = _mm512_setzero_si512();
        }
      }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) {
      const int8_t* ag = a + (g * kAStride + r) * kKr;
      const __m512i first_quad = BroadcastQuad(ag), second_quad = BroadcastQuad(ag + 4);
      for (size_t v = 0; v < kVectors; ++v) {
        chain[kFirst][r][v] = _mm512_dpbusd_epi32(chain[kFirst][r][v], low[v], first_quad);
        chain[kSecond][r][v] = _mm512_dpbusd_epi32(chain[kSecond][r][v], high[v], second_quad);
      }
    }
  };
  size_t g = 0;
  for (; g + 1 < groups; g += 2) {
    group(g, std::integral_constant<size_t, 0>{});
    group(g + 1, std::integral_constant<size_t, 2>{});
  }
  if (g < groups) group(g, std::integral_constant<size_t, 0>{});
  for (size_t v = 0; v < kVectors; ++v) {
    if (kColumnSums) column_sum[v] = _mm512_dpbusd_epi32(column_sum[v], column_bytes[v], ones);
    for (size_t r = 0; r < kRows; ++r) {
      dot[r][v] = chain[0][r][v];
      for (size_t c = 1; c < kChains; ++c) dot[r][v] = _mm512_add_epi32(dot[r][v], chain[c][r][v]);
    }
  }
}

// The four-row tile's y over all its blocks through FourRowBlocks: every block but the last as one
// run, then the last, which may be shorter. shared_zero_point: QGemmBlocks::zero_points[0] when
// kSharedZeroPoint.
template <bool kSharedZeroPoint>
__attribute__((always_inline)) inline void FourRowY(const uint8_t* a_tile, const uint8_t* b_panel,
                                                   const QGemmBlocks& blocks, int32_t shared_zero_point,
                                                   const QGemmTileParams& params, __m512 (&y)[4][kVectors]) {
  alignas(64) float y_rows[4][kNr];
  for (size_t r = 0; r < 4; ++r)
    for (size_t v = 0; v < kVectors; ++v)
      _mm512_store_ps(y_rows[r] + 16 * v,
                      blocks.y_in ? _mm512_loadu_ps(blocks.y_in + r * kNr + 16 * v) : _mm512_set1_ps(-0.0f));
  static constexpr int32_t kNoRows[4] = {0, 0, 0, 0};
  // The next panel's share (QGemmTileParams::prefetch_b) spread over the tile's groups, a line or
  // less a group and never past the share's end; without one the loop requests this panel's first
  // line, already in L1. Without it a row block's first tile on each panel read the panel from
  // memory: AMD EPYC Zen 5, rdtsc around the tiles of `dqmatmul` 128x4096x4096, that tile took
  // about twice the others' time, 1.15x with it; the operator, one thread, 5 rounds: blocks of 32
  // 1.01-1.02x (16, 128 and 512 rows), 128 level. Emerald Rapids (avx512vnni tier), 16 and 128 x
  // 4096 x 4096, blocks of 32, 5 rounds: one thread 1.05-1.10x, sixteen 0.96-1.10x (two calls).
  const size_t all_groups = (blocks.count - 1) * blocks.groups + blocks.last_groups;
  const uint8_t* pf = params.prefetch_b ? params.prefetch_b : b_panel;
  const size_t pf_step = params.prefetch_b ? std::min<size_t>(64, params.prefetch_b_bytes / all_groups) : 0;
  const bool half_scales = blocks.b_scale_half != nullptr;
  const size_t b_scale_step = blocks.b_scale_stride * (half_scales ? 2 : 4), a_scale_step = blocks.a_scale_stride * 4;
  auto run = [&](size_t first, size_t count, size_t groups) __attribute__((always_inline)) {
    const bool last = first + count == blocks.count;
    const int32_t* row_b = blocks.row_b + first * blocks.row_stride;
    size_t row_b_step = blocks.row_stride * 4;
    // With one zero point the run starts from its first block's terms and the loop computes each
    // next block's from the next rows' terms; after the last block a row of zeros stands in.
    alignas(16) int32_t start[4];
    if constexpr (kSharedZeroPoint) {
      for (size_t r = 0; r < 4; ++r) start[r] = row_b[r] * shared_zero_point;
      row_b = last ? kNoRows : row_b + blocks.row_stride;
      if (last) row_b_step = 0;
    }
    const void* b_scale = half_scales ? static_cast<const void*>(blocks.b_scale_half + first * blocks.b_scale_stride)
                                      : static_cast<const void*>(blocks.b_scale + first * blocks.b_scale_stride);
    const size_t b_extra = blocks.b_stride - groups * kVectors * kVectorBytes;
    const int8_t* a = reinterpret_cast<const int8_t*>(a_tile + first * blocks.a_stride);
    const uint8_t* b = b_panel + first * blocks.b_stride;
    const float* a_scale = blocks.a_scale + first * blocks.a_scale_stride;
    if (half_scales)
      FourRowBlocks<kSharedZeroPoint, true>(count, groups, a, b, b_extra, b_scale, b_scale_step, a_scale,
                                            a_scale_step, start, row_b, row_b_step, shared_zero_point, &y_rows[0][0],
                                            pf, pf_step);
    else
      FourRowBlocks<kSharedZeroPoint, false>(count, groups, a, b, b_extra, b_scale, b_scale_step, a_scale,
                                             a_scale_step, start, row_b, row_b_step, shared_zero_point, &y_rows[0][0],
                                             pf, pf_step);
  };
  if (blocks.count > 1) run(0, blocks.count - 1, blocks.groups);
  run(blocks.count - 1, 1, blocks.last_groups);
  for (size_t r = 0; r < 4; ++r)
    for (size_t v = 0; v < kVectors; ++v) y[r][v] = _mm512_load_ps(y_rows[r] + 16 * v);
}

template <size_t kRows, size_t kAStride, bool kColumnSums, StreamPrefetch kPrefetch, bool kSharedZeroPoint>
void Tile(size_t nr, const uint8_t* a_tile, const uint8_t* b_panel, const QGemmTileParams* p) {
  const QGemmBlocks& blocks = *p->blocks;
  // One zero point for every column and block (QGemmBlocks::zero_points): its term is one integer
  // a row, the sums' starting value, in place of a multiply and an add per vector of columns.
  const int32_t shared_zero_point = kSharedZeroPoint ? blocks.zero_points[0] : 0;
  __m512 y[kRows][kVectors];
  if constexpr (kRows == 4 && kAStride == 4 && !kColumnSums && kPrefetch == StreamPrefetch::kNone) {
    FourRowY<kSharedZeroPoint>(a_tile, b_panel, blocks, shared_zero_point, *p, y);
  } else {
    for (size_t r = 0; r < kRows; ++r)
      for (size_t v = 0; v < kVectors; ++v)  // -0 + p is p: the first y = p
        y[r][v] = blocks.y_in ? _mm512_loadu_ps(blocks.y_in + r * kNr + 16 * v) : _mm512_set1_ps(-0.0f);
    for (size_t c = 0; c < blocks.count; ++c) {
      const size_t groups = c + 1 == blocks.count ? blocks.last_groups : blocks.groups;
      const uint8_t* b = b_panel + c * blocks.b_stride;
      const int32_t* row_a = blocks.row_a + c * blocks.row_stride;
      const int32_t* row_b = blocks.row_b + c * blocks.row_stride;
      int32_t start[kRows];
      for (size_t r = 0; r < kRows; ++r) start[r] = kSharedZeroPoint ? row_b[r] * shared_zero_point : 0;
      __m512i dot[kRows][kVectors], column_sum[kVectors];
      BlockSums<kRows, kAStride, kColumnSums, kPrefetch>(
          groups, reinterpret_cast<const int8_t*>(a_tile + c * blocks.a_stride), b, start, dot, column_sum);
      const uint8_t* zero = kSharedZeroPoint ? nullptr : b + groups * kVectors * kVectorBytes;
      const float* a_scale = blocks.a_scale + c * blocks.a_scale_stride;
      for (size_t v = 0; v < kVectors; ++v) {
        const __m512i zero_point =
            kSharedZeroPoint ? _mm512_setzero_si512()
                             : _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(zero + 16 * v)));
        const __m512 b_scale = blocks.b_scale_half
                                   ? _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                         blocks.b_scale_half + c * blocks.b_scale_stride + 16 * v)))
                                   : _mm512_loadu_ps(blocks.b_scale + c * blocks.b_scale_stride + 16 * v);
        for (size_t r = 0; r < kRows; ++r) {
          __m512i s = kSharedZeroPoint
                          ? dot[r][v]
                          : _mm512_add_epi32(dot[r][v], _mm512_mullo_epi32(_mm512_set1_epi32(row_b[r]), zero_point));
          if (kColumnSums) s = _mm512_add_epi32(s, _mm512_mullo_epi32(_mm512_set1_epi32(row_a[r]), column_sum[v]));
          const __m512 product =
              _mm512_mul_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(_mm512_set1_ps(a_scale[r]), b_scale));
          y[r][v] = _mm512_add_ps(y[r][v], product);
        }
      }
    }
  }
  for (size_t v = 0; v < kVectors; ++v) {
    const size_t valid = nr > 16 * v ? nr - 16 * v : 0;
    const __mmask16 columns = static_cast<__mmask16>(valid >= 16 ? 0xFFFF : (1u << valid) - 1);
    if (!columns) break;
    for (size_t r = 0; r < kRows; ++r) {
      // The bias array is padded to whole panels (the front end's QGemmQuantization).
      if (p->bias) y[r][v] = _mm512_add_ps(y[r][v], _mm512_loadu_ps(p->bias + 16 * v));
      _mm512_mask_storeu_ps(static_cast<uint8_t*>(p->out) + r * p->out_row_stride + 64 * v, columns, y[r][v]);
    }
  }
}

template <size_t kRows, size_t kAStride, StreamPrefetch kPrefetch>
void TileRows(size_t nr, const void* a_packed, const void* b_packed, const QGemmTileParams* p) {
  WithColumnSums<kRows>(p->blocks->row_a, [&](auto column_sums) {
    if (p->blocks->zero_points)
      Tile<kRows, kAStride, decltype(column_sums)::value, kPrefetch, true>(
          nr, static_cast<const uint8_t*>(a_packed), static_cast<const uint8_t*>(b_packed), p);
    else
      Tile<kRows, kAStride, decltype(column_sums)::value, kPrefetch, false>(
          nr, static_cast<const uint8_t*>(a_packed), static_cast<const uint8_t*>(b_packed), p);
  });
}

}  // namespace

// One row of 64 columns for decode: sixteen chains in flight, each A quad broadcast for four
// vpdpbusd, and every line of B requested into L1 4 KB ahead. AMD EPYC Zen 5, one thread, against
// one row of 16, three alternating runs: 1x4096x4096 1.08-1.20x (block 32) and 1.05-1.12x (128),
// 1x4096x11008 1.07-1.37x and 1.01-1.29x (without the prefetch); the prefetch then gained
// 1.04-1.30x where B comes from memory (1x4096x14336, 1x11008x4096, the Llama-3-8B layer: one
// thread, five rounds; two threads 1.01-1.19x) and 0.97-1.10x where it stays in L3. Emerald Rapids
// (amx tier), against the 16-column row with the same prefetch, four alternating rounds: one thread
// 1.00-1.07x, sixteen 1.05-1.27x at 1x4096x14336 and 1x11008x4096; without the prefetch one thread
// ran 0.75-0.96x.
static void qgemm_s8u4_1x64c8_pfl1__avx512vnni(size_t, size_t nr, size_t, const void* a, const void* b,
                                               const QGemmTileParams* p) {
  TileRows<1, 1, StreamPrefetch::kL1Near>(nr, a, b, p);
}

// The amx tier's row for decode: blocks of 128 K values and more request every line of B 8 KB
// ahead into L2 alone, smaller blocks as qgemm_s8u4_1x64c8_pfl1__avx512vnni does. One core of the
// Emerald Rapids device reads more from memory that way (a read loop 11.8 GB/s against 10.5 with
// requests into L1 4 KB ahead and 8.8 with none), but blocks of 32 lost with it at sixteen
// threads (0.81x in a trial of 2026-11-29, docs/experiments.md). The Llama-3-8B layer at M = 1,
// block 128, against the pfl1 row, one process each in turn, medians of per-round ratios: one
// thread 1.29x and 1.14x (two calls, 5 and 4 rounds), sixteen threads 1.02x and 1.10x; single
// shapes held in the last-level cache at sixteen threads 0.91-1.01x, 1x4096x14336 0.95x over 8
// rounds that spread 0.73-1.49 (its unchanged block-32 row 1.05x, 0.82-1.42). The AMD EPYC Zen 4
// host lost with it at one thread (0.96x), so the avx512vnni tier keeps pfl1.
static void qgemm_s8u4_1x64c8_pfl2__avx512vnni(size_t, size_t nr, size_t, const void* a, const void* b,
                                               const QGemmTileParams* p) {
  if (p->blocks->groups * kKr >= 128)
    TileRows<1, 1, StreamPrefetch::kL2Far>(nr, a, b, p);
  else
    TileRows<1, 1, StreamPrefetch::kL1Near>(nr, a, b, p);
}

// Four rows of 64 columns from two rows up (below 16 rows on the amx tier): per group each row's
// two A quads are broadcast once for eight vpdpbusd, where eight rows of 16 (the kernel it
// replaced) broadcast them for two. AMD EPYC Zen 5, against 8 x 16,
// DYNAMIC_QUANTIZE_LINEAR and the product, 16, 128 and 512 x 4096 x 4096, medians of three
// alternating runs: one thread 1.04-1.16x at block 32 and 1.09-1.27x at block 128, two threads
// 1.06-1.12x and 1.12-1.14x. Eight rows of 32 gained less; twelve rows of 32 spilled. Emerald
// Rapids (amx tier), 4 and 8 x 4096 x 4096, four rounds: one thread 0.99-1.29x, sixteen 1.07-1.39x.
static void qgemm_s8u4_4x64c8__avx512vnni(size_t mr, size_t nr, size_t, const void* a, const void* b,
                                          const QGemmTileParams* p) {
  // A row block of one tile (M = 2..4) streams B once, as M = 1 does: every line into L1 ahead
  // too. AMD EPYC Zen 5, one thread, alternating rounds, `dqmatmul` at 2x4096x11008, 4x4096x11008,
  // 4x11008x4096 and 4x4096x14336: 1.15-1.38x at block 32, 0.98-1.11x at 128. Emerald
  // Rapids-class device (amx tier), three rounds: one thread 1.07-1.37x and 1.13-1.20x, sixteen
  // 0.93-1.17x.
  WithRowCount<kMr>(mr, [&](auto rows) {
    if (p->b_streams)
      TileRows<decltype(rows)::value, kMr, StreamPrefetch::kL1Near>(nr, a, b, p);
    else
      TileRows<decltype(rows)::value, kMr, StreamPrefetch::kNone>(nr, a, b, p);
  });
}

static_assert(kMr <= kMaxKernelMr && kNr <= kMaxKernelNr, "tile larger than the front end's scratch");
extern const QGemmKernel kQGemm_s8u4_1x64c8_pfl1__avx512vnni, kQGemm_s8u4_1x64c8_pfl2__avx512vnni,
    kQGemm_s8u4_4x64c8__avx512vnni;
const QGemmKernel kQGemm_s8u4_1x64c8_pfl1__avx512vnni = {
    "qgemm_s8u4_1x64c8_pfl1__avx512vnni", 1, kNr, kKr, QGemmPacking::kS8U4Blocks, 1, 1,
    qgemm_s8u4_1x64c8_pfl1__avx512vnni, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
const QGemmKernel kQGemm_s8u4_1x64c8_pfl2__avx512vnni = {
    "qgemm_s8u4_1x64c8_pfl2__avx512vnni", 1, kNr, kKr, QGemmPacking::kS8U4Blocks, 1, 1,
    qgemm_s8u4_1x64c8_pfl2__avx512vnni, nullptr, nullptr, 0, 0, 0, QGemmAInPlace::kNever};
const QGemmKernel kQGemm_s8u4_4x64c8__avx512vnni = {"qgemm_s8u4_4x64c8__avx512vnni", kMr, kNr, kKr,
                                                   QGemmPacking::kS8U4Blocks, 2, UINT32_MAX,
                                                   qgemm_s8u4_4x64c8__avx512vnni, nullptr, nullptr, 0, 0, 0,
                                                   QGemmAInPlace::kNever};

}  // namespace avx512vnni
}  // namespace cpuml
