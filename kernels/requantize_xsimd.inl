// The x86 tiers' requantization epilogue (QGemmTileParams in kernels/kernels.h), written once
// over xsimd and instantiated by each tier's micro-kernel TU, like kernels/fill_xsimd.inl.
//
// Not a header: a tier TU includes it after <xsimd/xsimd.hpp> and after defining
//   CPUML_TIER                   the tier namespace, so every instantiation is the tier's own
//   CPUML_XSIMD_ARCH             the xsimd architecture tag
//   CpuStoreLowBytes(p, q, n)    stores the low byte of each of the first n lanes of q at p
//                                (AVX-512 tiers get the one below)
// It defines cpuml::CPUML_TIER::RequantizeTile<kTileColumns>. x86 only: it relies on MAXPS and
// MINPS returning their second operand for a NaN.

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

// Narrowing two tile rows of two vectors each to bytes with saturating packs: the int32 lanes
// to int16 (two rows' vectors), the zero point added with int16 saturation, then both rows to
// bytes in one register, put back in column order (the packs interleave 128-bit lanes), and
// stored as two row halves. One pack and a quarter of a permute per vector, where a vpmovdb and
// a masked store per vector had been the epilogue's largest cost on the AMX tier.
#if defined(__AVX512BW__)
// The masked form with every lane set is the same vminps; the plain one's _mm512_undefined_ps()
// trips GCC 12's -Wuninitialized in some inlining contexts (GCC bug 105593).
inline __m512 MinKeepingNaN(__m512 hi, __m512 y) { return _mm512_mask_min_ps(hi, static_cast<__mmask16>(0xFFFF), hi, y); }
inline __m512i RoundToInt32(__m512 y) { return _mm512_cvtps_epi32(y); }
inline __m512i PackInt32(__m512i a, __m512i b) { return _mm512_packs_epi32(a, b); }
inline __m512i AddInt16Saturating(__m512i a, int16_t b) { return _mm512_adds_epi16(a, _mm512_set1_epi16(b)); }
inline __m512i PackInt16(__m512i a, __m512i b, bool out_signed) {
  return out_signed ? _mm512_packs_epi16(a, b) : _mm512_packus_epi16(a, b);
}
inline void StoreRowPair(uint8_t* first, uint8_t* second, __m512i packed, bool both) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i rows = _mm512_permutexvar_epi32(order, packed);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(first), _mm512_castsi512_si256(rows));
  if (both) _mm256_storeu_si256(reinterpret_cast<__m256i*>(second), _mm512_extracti64x4_epi64(rows, 1));
}
#elif defined(__AVX2__)
inline __m256 MinKeepingNaN(__m256 hi, __m256 y) { return _mm256_min_ps(hi, y); }
inline __m256i RoundToInt32(__m256 y) { return _mm256_cvtps_epi32(y); }
inline __m256i PackInt32(__m256i a, __m256i b) { return _mm256_packs_epi32(a, b); }
inline __m256i AddInt16Saturating(__m256i a, int16_t b) { return _mm256_adds_epi16(a, _mm256_set1_epi16(b)); }
inline __m256i PackInt16(__m256i a, __m256i b, bool out_signed) {
  return out_signed ? _mm256_packs_epi16(a, b) : _mm256_packus_epi16(a, b);
}
inline void StoreRowPair(uint8_t* first, uint8_t* second, __m256i packed, bool both) {
  const __m256i rows = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(first), _mm256_castsi256_si128(rows));
  if (both) _mm_storeu_si128(reinterpret_cast<__m128i*>(second), _mm256_extracti128_si256(rows, 1));
}
#else
inline __m128 MinKeepingNaN(__m128 hi, __m128 y) { return _mm_min_ps(hi, y); }
inline __m128i RoundToInt32(__m128 y) { return _mm_cvtps_epi32(y); }
inline __m128i PackInt32(__m128i a, __m128i b) { return _mm_packs_epi32(a, b); }
inline __m128i AddInt16Saturating(__m128i a, int16_t b) { return _mm_adds_epi16(a, _mm_set1_epi16(b)); }
inline __m128i PackInt16(__m128i a, __m128i b, bool out_signed) {
  return out_signed ? _mm_packs_epi16(a, b) : _mm_packus_epi16(a, b);
}
inline void StoreRowPair(uint8_t* first, uint8_t* second, __m128i packed, bool both) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(first), packed);
  if (both) _mm_storel_epi64(reinterpret_cast<__m128i*>(second), _mm_unpackhi_epi64(packed, packed));
}
#endif

// Whether v[0, n) all equal v[0], a vector at a time: every tile asks it of its row and column
// terms, and the AMX kernel's tiles are short calls (1,024 of them in a 1024^3 call).
inline bool AllEqualToFirst(const int32_t* v, size_t n) {
  const EpilogueInt first(v[0]);
  size_t i = 0;
  for (; i + EpilogueInt::size <= n; i += EpilogueInt::size)
    if (xsimd::any(EpilogueInt::load_unaligned(v + i) != first)) return false;
  for (; i < n; ++i)
    if (v[i] != v[0]) return false;
  return true;
}

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
  // above (zero otherwise); with one col_b for every column (a per-tensor B zero point),
  // row_b * col_b is a row term.
  bool uniform_row_a, uniform_col_b, per_row_a, per_column_b;

  TileColumns() = default;
  TileColumns(const QGemmTileParams& p, size_t mr, size_t nr) {
    uniform_row_a = p.col_a != nullptr && AllEqualToFirst(p.row_a, mr);
    uniform_col_b = p.col_b != nullptr && AllEqualToFirst(p.col_b, nr);
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

// a * b in wrapping int32 arithmetic like the vector lanes' (a sum of such terms is exact; its
// parts may wrap): row i's row_b * col_b when every column has the same col_b (a per-tensor B
// zero point).
inline int32_t WrappingProduct(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// The common case of RequantizeRows below, a row pair at a time: whole rows of two vectors,
// one multiplier per column (per-tensor A and output scales), the A zero point per tensor. Row
// i's bytes are the formula's: min(hi, y) keeps a NaN y, which converts to INT32_MIN like any y
// below the int32 range; every y below lo converts to at most lo, and the saturating packs and
// zero-point add take all of them to the type's minimum, lo + zero point, as the clamp would.
// Above hi, min gives hi. In range, the int16 lanes hold exactly q + zero point.
// Built once per tile with everything the rows share copied out of the parameters, so a kernel
// that finishes its tile a few rows at a time inside its K loop (AMX) keeps them in registers:
// going through RequantizeRows for every two rows cost a call, a copy of the parameters and the
// flags' reloads each time (Emerald Rapids, one thread: +4-6% on the AMX kernel with it inline).
template <size_t kTileColumns>
class RowPairEpilogue {
 public:
  // The float stage too (MATRIX_MULTIPLY_INTEGER_TO_FLOAT): float(acc) * m, then + bias, in the
  // general path's order, so the bits are the same; kept in registers across the AMX kernel's K
  // loop like the bytes' epilogue.
  static bool Serves(const QGemmTileParams& p, size_t nr, const TileColumns<kTileColumns>& c) {
    return TileColumns<kTileColumns>::kVectors == 2 && !p.acc_out &&
           (p.stage == kStageRequantize8 || p.stage == kStageFloat32) && nr == kTileColumns && p.multiplier &&
           !c.per_row_a && !c.per_column_b;
  }

  RowPairEpilogue()
      : column_term0_(0), column_term1_(0), multiplier0_(0.0f), multiplier1_(0.0f), row_b_(nullptr), col_b0_(0),
        out_max_(nullptr), out_zero_point_(nullptr), out_(nullptr), out_row_stride_(0), mr_(0),
        uniform_col_b_(false), out_signed_(false), clamp_top_(true), float_out_(false), bias_(false), bias0_(0.0f),
        bias1_(0.0f) {}
  RowPairEpilogue(const QGemmTileParams& p, size_t mr, const TileColumns<kTileColumns>& c)
      : column_term0_(c.column_term[0]),
        column_term1_(c.column_term[1]),
        multiplier0_(c.multiplier[0]),
        multiplier1_(c.multiplier[1]),
        row_b_(p.row_b),
        col_b0_(c.uniform_col_b ? p.col_b[0] : 0),
        out_max_(p.out_max),
        out_zero_point_(p.out_zero_point),
        out_(static_cast<uint8_t*>(p.out)),
        out_row_stride_(p.out_row_stride),
        mr_(mr),
        uniform_col_b_(c.uniform_col_b),
        out_signed_(p.out_signed),
        clamp_top_(MayReachInt32Limit(c)),
        float_out_(p.stage == kStageFloat32),
        bias_(float_out_ && p.bias != nullptr),  // the bytes' stage has no bias to read
        bias0_(bias_ ? EpilogueFloat::load_unaligned(p.bias) : EpilogueFloat(0.0f)),
        bias1_(bias_ ? EpilogueFloat::load_unaligned(p.bias + kLanes) : EpilogueFloat(0.0f)) {}

  // Which of the three row loops serves this tile. A kernel that finishes a tile inside its own
  // loop picks the form outside that loop and calls RowsAs, so only that form's code sits in the
  // loop, inline, with the shared values in registers. Calling Rows there, whose three loops GCC
  // would not inline together, made the AMX kernel call out of its K loop once per K group,
  // spilling the values and its pointers around each call.
  enum class Form { kBytes, kBytesClampTop, kFloat };
  Form form() const { return float_out_ ? Form::kFloat : clamp_top_ ? Form::kBytesClampTop : Form::kBytes; }

  // Rows [row0, min(row0 + rows, mr)) of the tile; `tile` points at row row0 (row stride
  // kTileColumns, 64-byte aligned rows). row0 is even. kForm is form().
  template <Form kForm>
  __attribute__((always_inline)) void RowsAs(const int32_t* tile, size_t row0, size_t rows) const {
    if constexpr (kForm == Form::kFloat)
      FloatRows(tile, row0, rows);
    else
      RowsClamped<kForm == Form::kBytesClampTop>(tile, row0, rows);
  }

  void Rows(const int32_t* tile, size_t row0, size_t rows) const {
    switch (form()) {
      case Form::kFloat:
        RowsAs<Form::kFloat>(tile, row0, rows);
        break;
      case Form::kBytesClampTop:
        RowsAs<Form::kBytesClampTop>(tile, row0, rows);
        break;
      case Form::kBytes:
        RowsAs<Form::kBytes>(tile, row0, rows);
        break;
    }
  }

 private:
  static constexpr size_t kLanes = TileColumns<kTileColumns>::kLanes;

  template <bool kClampTop>
  __attribute__((always_inline)) void RowsClamped(const int32_t* tile, size_t row0, size_t rows) const {
    const size_t end = rows < mr_ - row0 ? row0 + rows : mr_;
    for (size_t i = row0; i < end; i += 2) {
      const bool both = i + 1 < mr_;
      const int32_t* row = tile + (i - row0) * kTileColumns;
      const auto first = RowInt16<kClampTop>(row, i);
      const auto second = both ? RowInt16<kClampTop>(row + kTileColumns, i + 1) : first;
      StoreRowPair(out_ + i * out_row_stride_, both ? out_ + (i + 1) * out_row_stride_ : nullptr,
                   PackInt16(first, second, out_signed_), both);
    }
  }

  __attribute__((always_inline)) void FloatRows(const int32_t* tile, size_t row0, size_t rows) const {
    const size_t end = rows < mr_ - row0 ? row0 + rows : mr_;
    for (size_t i = row0; i < end; ++i) {
      const RowValues row = RowFloats(tile + (i - row0) * kTileColumns, i);
      EpilogueFloat y0 = row.y0, y1 = row.y1;
      if (bias_) {
        y0 = y0 + bias0_;
        y1 = y1 + bias1_;
      }
      float* out = reinterpret_cast<float*>(out_ + i * out_row_stride_);
      y0.store_unaligned(out);
      y1.store_unaligned(out + kLanes);
    }
  }

  struct RowValues {
    EpilogueFloat y0, y1;
  };

  // float(acc) * multiplier for the row's two vectors, acc with its row and column terms.
  __attribute__((always_inline)) RowValues RowFloats(const int32_t* row, size_t i) const {
    EpilogueInt term0 = column_term0_, term1 = column_term1_;
    if (uniform_col_b_) {
      const EpilogueInt row_term(WrappingProduct(row_b_[i], col_b0_));
      term0 += row_term;
      term1 += row_term;
    }
    const EpilogueInt acc0 = EpilogueInt::load_aligned(row) + term0, acc1 = EpilogueInt::load_aligned(row + kLanes) + term1;
    return {xsimd::to_float(acc0) * multiplier0_, xsimd::to_float(acc1) * multiplier1_};
  }

  template <bool kClampTop>
  __attribute__((always_inline)) auto RowInt16(const int32_t* row, size_t i) const {
    const RowValues values = RowFloats(row, i);
    EpilogueFloat y0 = values.y0, y1 = values.y1;
    if constexpr (kClampTop) {
      const EpilogueFloat hi(out_max_[i]);
      y0 = MinKeepingNaN(hi, y0);
      y1 = MinKeepingNaN(hi, y1);
    }
    return AddInt16Saturating(PackInt32(RoundToInt32(y0), RoundToInt32(y1)), static_cast<int16_t>(out_zero_point_[i]));
  }

  // Whether y may reach 2^31 (or be NaN), where the conversion's out-of-range answer, INT32_MIN,
  // would take a y above hi to the minimum: then min(hi, y) first. With every multiplier of the
  // tile below 0.5 in magnitude, |y| < 2^30 for any int32 accumulator, and the saturating packs
  // alone take every y above hi to the maximum, hi + zero point (out_max is the type's maximum
  // less the zero point). Engines' multipliers are far below 0.5; this drops a third of a row's
  // float work.
  static bool MayReachInt32Limit(const TileColumns<kTileColumns>& c) {
    const EpilogueFloat half(0.5f);
    return !(xsimd::all(xsimd::abs(c.multiplier[0]) < half) && xsimd::all(xsimd::abs(c.multiplier[1]) < half));
  }

  EpilogueInt column_term0_, column_term1_;
  EpilogueFloat multiplier0_, multiplier1_;
  const int32_t* row_b_;
  int32_t col_b0_;
  const float* out_max_;
  const int32_t* out_zero_point_;
  uint8_t* out_;
  size_t out_row_stride_, mr_;
  bool uniform_col_b_, out_signed_, clamp_top_, float_out_, bias_;
  EpilogueFloat bias0_, bias1_;
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
  if constexpr (kVectors == 2) {
    if (RowPairEpilogue<kTileColumns>::Serves(p, nr, columns)) {
      RowPairEpilogue<kTileColumns>(p, row0 + mr, columns).Rows(tile, row0, mr);
      return;
    }
  }
  const TileColumns<kTileColumns> c = columns;
  if (p.acc_out) {  // K beyond one int32 chain: the front end sums the chunks in int64
    for (size_t i = row0; i < row0 + mr; ++i) {
      const int32_t* row = tile + (i - row0) * kTileColumns;
      const Int row_a(p.row_a[i]), row_b(p.row_b[i]);
      for (size_t v = 0; v * kLanes < nr; ++v) {
        Int acc = Int::load_aligned(row + v * kLanes);
        if (c.uniform_row_a) acc += c.column_term[v];
        if (c.per_row_a) acc += row_a * c.col_a[v];
        if (p.col_b) acc += row_b * c.col_b[v];
        acc.store_unaligned(p.acc_out + i * kTileColumns + v * kLanes);
      }
    }
    return;
  }
  if (p.stage != kStageRequantize8) {
    // The sums as int32, or float(sum) * m (+ bias), stored whole vectors at a time; a row's last
    // partial vector goes through `part`.
    alignas(64) int32_t part[kLanes];
    for (size_t i = row0; i < row0 + mr; ++i) {
      const int32_t* row = tile + (i - row0) * kTileColumns;
      const Int row_a(p.row_a[i]), row_b(p.row_b[i]);
      const Int row_term(c.uniform_col_b ? WrappingProduct(p.row_b[i], p.col_b[0]) : 0);
      const Float a_scale(p.a_scale[i]);
      uint8_t* out = static_cast<uint8_t*>(p.out) + i * p.out_row_stride;
      for (size_t v = 0; v < kVectors; ++v) {
        const size_t j = v * kLanes;
        if (j >= nr) break;
        Int acc = Int::load_aligned(row + j);
        if (c.uniform_row_a) acc += c.column_term[v];
        if (c.uniform_col_b) acc += row_term;
        if (c.per_row_a) acc += row_a * c.col_a[v];
        if (c.per_column_b) acc += c.col_b[v] * row_b;
        const size_t count = nr - j >= kLanes ? kLanes : nr - j;
        if (p.stage == kStageInt32) {
          if (count == kLanes) {
            acc.store_unaligned(reinterpret_cast<int32_t*>(out) + j);
          } else {
            acc.store_aligned(part);
            memcpy(out + j * 4, part, count * sizeof(int32_t));
          }
          continue;
        }
        const Float m = p.multiplier ? c.multiplier[v] : a_scale * Float::load_unaligned(p.b_scale + j);
        Float y = xsimd::to_float(acc) * m;
        if (p.bias) y = y + Float::load_unaligned(p.bias + j);
        if (count == kLanes) {
          y.store_unaligned(reinterpret_cast<float*>(out) + j);
        } else {
          y.store_aligned(reinterpret_cast<float*>(part));
          memcpy(out + j * 4, part, count * sizeof(float));
        }
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
      const Int row_term(c.uniform_col_b ? WrappingProduct(p.row_b[i], p.col_b[0]) : 0);
      const Float a_scale(p.a_scale[i]), out_scale(p.out_scale[i]), lo(p.out_min[i]), hi(p.out_max[i]);
      const Int zero_point(p.out_zero_point[i]);
      uint8_t* out = static_cast<uint8_t*>(p.out) + i * p.out_row_stride;
#pragma GCC unroll 8
      for (size_t v = 0; v < kVectors; ++v) {
        const size_t j = v * kLanes;
        if (!kWholeRows && j >= nr) break;
        Int acc = Int::load_aligned(row + j);
        if (c.uniform_row_a) acc += c.column_term[v];
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
