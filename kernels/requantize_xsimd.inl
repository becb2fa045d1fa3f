// The x86 tiers' requantization epilogue (QGemmTileParams in kernels/kernels.h), written once
// over xsimd and instantiated by each tier's micro-kernel TU, like kernels/fill_xsimd.inl.
//
// Not a header: a tier TU includes it after <xsimd/xsimd.hpp> and after defining
//   CPUML_TIER                   the tier namespace, so every instantiation is the tier's own
//   CPUML_XSIMD_ARCH             the xsimd architecture tag
//   CpuStoreLowBytes(p, q, n)    stores the low byte of each of the first n lanes of q at p
//                                (AVX-512 tiers get the one below)
// It defines cpuml::CPUML_TIER::RequantizeTile<kTileColumns>. x86 only: it relies on MAXPS
// returning its second operand for a NaN.

namespace cpuml {
namespace CPUML_TIER {
namespace {

#if defined(__AVX512BW__)
// Every AVX-512 tier narrows the same way: vpmovdb, then a store of the first n bytes.
inline void CpuStoreLowBytes(uint8_t* out, const xsimd::batch<int32_t, CPUML_XSIMD_ARCH>& q, size_t count) {
  const __mmask16 mask = static_cast<__mmask16>(count >= 16 ? 0xFFFFu : (1u << count) - 1u);
  _mm_mask_storeu_epi8(out, mask, _mm512_cvtepi32_epi8(q));
}
#endif

using EpilogueInt = xsimd::batch<int32_t, CPUML_XSIMD_ARCH>;
using EpilogueFloat = xsimd::batch<float, CPUML_XSIMD_ARCH>;

// The per-column half of the epilogue of one mr x nr tile: what every row shares, prepared once
// per tile (a kernel that finishes its tile a few rows at a time reuses it for each batch of rows).
// The per-column arrays are padded to whole tiles, so their vectors are read whole.
template <size_t kTileColumns>
struct TileColumns {
  static constexpr size_t kLanes = EpilogueInt::size, kVectors = kTileColumns / kLanes;
  static_assert(kTileColumns % kLanes == 0, "a tile row is whole vectors");
  EpilogueInt column_term[kVectors], col_a[kVectors], col_b[kVectors];
  EpilogueFloat multiplier[kVectors];
  // With one row_a for every row (a per-tensor A zero point), row_a * col_a is the column term
  // above; with one col_b for every column (a per-tensor B zero point), row_b * col_b is a row term.
  bool uniform_col_b, per_row_a, per_column_b;

  TileColumns() = default;
  TileColumns(const QGemmTileParams& p, size_t mr, size_t nr) {
    bool uniform_row_a = p.col_a != nullptr;
    for (size_t i = 0; i < mr && uniform_row_a; ++i) uniform_row_a = p.row_a[i] == p.row_a[0];
    uniform_col_b = p.col_b != nullptr;
    for (size_t j = 0; j < nr && uniform_col_b; ++j) uniform_col_b = p.col_b[j] == p.col_b[0];
    per_row_a = p.col_a && !uniform_row_a;
    per_column_b = p.col_b && !uniform_col_b;
    for (size_t v = 0; v < kVectors; ++v) {
      col_a[v] = p.col_a ? EpilogueInt::load_unaligned(p.col_a + v * kLanes) : EpilogueInt(0);
      col_b[v] = p.col_b ? EpilogueInt::load_unaligned(p.col_b + v * kLanes) : EpilogueInt(0);
      column_term[v] = uniform_row_a ? EpilogueInt(p.row_a[0]) * col_a[v] : EpilogueInt(0);
      multiplier[v] = p.multiplier ? EpilogueFloat::load_unaligned(p.multiplier + v * kLanes) : EpilogueFloat(0.0f);
    }
  }
};

// Finishes rows [row0, row0 + mr) of a tile of dot products (`tile` points at row row0; row
// stride kTileColumns, 64-byte aligned rows) per QGemmTileParams: row and column terms, then the
// documented formula. Rows of the parameters' per-row arrays and of the output are tile rows.
template <size_t kTileColumns>
void RequantizeRows(const int32_t* tile, size_t row0, size_t mr, size_t nr, const QGemmTileParams* params,
                    const TileColumns<kTileColumns>& columns) {
  using Int = EpilogueInt;
  using Float = EpilogueFloat;
  constexpr size_t kLanes = TileColumns<kTileColumns>::kLanes, kVectors = TileColumns<kTileColumns>::kVectors;
  // Copies the output's byte stores cannot alias: otherwise every pointer and column vector is
  // reloaded after each store (the reloads were half the epilogue's instructions, and the
  // epilogue a fifth of a one-thread AMX 1024^3 call).
  const QGemmTileParams p = *params;
  const TileColumns<kTileColumns> c = columns;
  if (p.acc_out) {  // K beyond one int32 chain: the front end sums the chunks in int64
    for (size_t i = row0; i < row0 + mr; ++i) {
      const int32_t* row = tile + (i - row0) * kTileColumns;
      const Int row_a(p.row_a[i]), row_b(p.row_b[i]);
      for (size_t v = 0; v * kLanes < nr; ++v) {
        Int acc = Int::load_aligned(row + v * kLanes) + c.column_term[v];
        if (c.per_row_a) acc += row_a * c.col_a[v];
        if (p.col_b) acc += row_b * c.col_b[v];
        acc.store_unaligned(p.acc_out + i * kTileColumns + v * kLanes);
      }
    }
    return;
  }
  // Whole rows of the tile unrolled, so the column vectors stay in registers.
  auto finish_rows = [&](auto whole_rows) {
    constexpr bool kWholeRows = decltype(whole_rows)::value;
    for (size_t i = row0; i < row0 + mr; ++i) {
      const int32_t* row = tile + (i - row0) * kTileColumns;
      const Int row_a(p.row_a[i]), row_b(p.row_b[i]);
      // Wrapping int32 arithmetic like the vector lanes' (the sum is exact; its parts may wrap).
      const Int row_term(c.uniform_col_b ? static_cast<int32_t>(static_cast<uint32_t>(p.row_b[i]) * static_cast<uint32_t>(p.col_b[0]))
                                         : 0);
      const Float a_scale(p.a_scale[i]), out_scale(p.out_scale[i]), lo(p.out_min[i]), hi(p.out_max[i]);
      const Int zero_point(p.out_zero_point[i]);
      uint8_t* out = static_cast<uint8_t*>(p.out) + i * p.out_row_stride;
#pragma GCC unroll 8
      for (size_t v = 0; v < kVectors; ++v) {
        const size_t j = v * kLanes;
        if (!kWholeRows && j >= nr) break;
        Int acc = Int::load_aligned(row + j) + c.column_term[v];
        if (c.uniform_col_b) acc += row_term;
        if (c.per_row_a) acc += row_a * c.col_a[v];
        if (c.per_column_b) acc += row_b * c.col_b[v];
        const Float m = p.multiplier ? c.multiplier[v] : (a_scale * Float::load_unaligned(p.b_scale + j)) / out_scale;
        Float y = xsimd::to_float(acc) * m;
        // x86 max returns its second operand when either is NaN: a NaN y becomes lo.
        y = xsimd::min(xsimd::max(y, lo), hi);
        // Clamped into the output type's range, so the low byte is the answer for u8 and s8 alike.
        const Int q = xsimd::nearbyint_as_int(y) + zero_point;
        CpuStoreLowBytes(out + j, q, kWholeRows || nr - j >= kLanes ? kLanes : nr - j);
      }
    }
  };
  if (nr == kTileColumns)
    finish_rows(std::true_type{});
  else
    finish_rows(std::false_type{});
}

template <size_t kTileColumns>
void RequantizeTile(const int32_t* tile, size_t mr, size_t nr, const QGemmTileParams* p) {
  RequantizeRows<kTileColumns>(tile, 0, mr, nr, p, TileColumns<kTileColumns>(*p, mr, nr));
}

}  // namespace
}  // namespace CPUML_TIER
}  // namespace cpuml
