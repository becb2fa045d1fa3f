// Packing of A and B into a micro-kernel's layout (QGemmPacking in kernels/kernels.h).
//
// Packing is layout work, not arithmetic, so it is written once here, compiled for the baseline
// ISA, and shared by every tier; only the micro-kernels differ per tier.
#ifndef CPUML_SRC_QGEMM_PACK_H_
#define CPUML_SRC_QGEMM_PACK_H_

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"

namespace cpuml {

// A strided int8/uint8 matrix: element (r, c) at data[r * row_stride + c * col_stride].
struct Int8Matrix {
  const uint8_t* data;
  bool is_signed;
  uint64_t row_stride, col_stride;  // elements
};

// The packed layouts of one kernel. A packed B panel of nr columns over k elements is
//   int32 column sums [nr] | data [Groups(k)][nr][kr]   (kU8S8Tiles: [Groups(k) * kr / 4][nr][4])
// and a packed A tile of mr rows is data [Groups(k)][mr][kr], elements of ElementBytes().
struct PackFormat {
  QGemmPacking packing;
  uint32_t mr, nr, kr;
  // kS8U4Blocks: every zero point of B is one value, held once by the plan, not after each block
  // (decode reads B's bytes once per token: a block of 32 reads 16 bytes of nibbles a column, and
  // its zero point would add another).
  bool shared_zero_points = false;
  // kS8U4ColumnPairs: each block's panel ends with its columns' sums, int32 in column order (a low
  // column's sum of u, a high column's of u - 8), where A can have a zero point: the kernels then
  // run the symmetric loop and add row_a * sum after it.
  bool column_sums = false;

  static PackFormat Of(const QGemmKernel& kernel) {
    return {kernel.packing, kernel.mr, kernel.nr, kernel.kr, false, false};
  }
  size_t ElementBytes() const { return packing == QGemmPacking::kInt16Pairs ? 2 : 1; }
  bool Nibbles() const { return HoldsNibbles(packing); }
  // K values of one B column kept together: kr, except in the AMX layout (quads).
  uint32_t BLineKr() const { return packing == QGemmPacking::kU8S8Tiles ? 4 : kr; }
  size_t Groups(size_t k) const { return (k + kr - 1) / kr; }
  // The 4-bit layouts: data of Groups(k) * nr * kr / 2 bytes (kS8U4Blocks: [Groups(k)][nr][kr / 2]),
  // a zero-point byte per column (none with shared_zero_points), then with column_sums an int32
  // per column.
  size_t BPanelBytes(size_t k) const {
    return Nibbles() ? Groups(k) * nr * (kr / 2) + (shared_zero_points ? 0 : nr) +
                           (column_sums ? nr * sizeof(int32_t) : 0)
                     : nr * sizeof(int32_t) + Groups(k) * nr * kr * ElementBytes();
  }
  size_t ATileBytes(size_t k) const { return Groups(k) * mr * kr * ElementBytes(); }
  // Bytes after each A tile (its last block's chunks) that its kernel may read (kS8U4BlockRows).
  size_t ATileSlack() const { return packing == QGemmPacking::kS8U4BlockRows ? kATileSlack : 0; }
  // The panel's column sums (QGemmTileParams::col_a), and the data the micro-kernel reads.
  static const int32_t* PanelColumnSums(const uint8_t* panel) { return reinterpret_cast<const int32_t*>(panel); }
  const uint8_t* PanelData(const uint8_t* panel) const { return Nibbles() ? panel : panel + nr * sizeof(int32_t); }
};

// A 4-bit matrix (UINT4 or INT4, two elements a byte, the lower index in the low nibble):
// element (r, c) is nibble offset + r * row_stride + c * col_stride of data.
struct Int4Matrix {
  const uint8_t* data;
  bool is_signed;
  uint64_t offset, row_stride, col_stride;  // nibbles
};

// Packs columns [n0, n0 + nr_valid) and K rows [k0, k0 + k) of a 4-bit B into one block of a
// kS8U4Blocks or kS8U4ColumnPairs panel. zero_point, when not NULL, holds B's zero points with the
// block as its row (row 0 is this block's; strides of 0 broadcast); without it the zero point is
// 0. Columns past nr_valid and K past k are zero bytes. With f.shared_zero_points no zero point is
// written.
void PackB4Block(const PackFormat& f, const Int4Matrix& b, const Int4Matrix* zero_point, size_t k0, size_t k,
                 size_t n0, size_t nr_valid, void* panel);

// Packs columns [n0, n0 + nr_valid) and K rows [k0, k0 + k) of B into one panel (columns past
// nr_valid and K past k are zero).
void PackBPanel(const PackFormat& f, const Int8Matrix& b, size_t k0, size_t k, size_t n0, size_t nr_valid, void* panel);

// The panels PackBPanel writes, `panels` of them (at most kMaxRowSweepColumns columns) panel_stride
// bytes apart from columns n0 on (n_valid of them present, the rest zero). A B whose columns are
// contiguous (col_stride 1) is read row by row, each row as whole lines; PackBPanel walks a column
// down K, a line (and for rows a page apart, a page) per value: a 4096 x 4096 B bound per execute
// packed at about 120 MB/s that way on AMD EPYC Zen 3. Other B's take PackBPanel panel by panel.
constexpr size_t kMaxRowSweepColumns = 1024;
void PackBPanels(const PackFormat& f, const Int8Matrix& b, size_t k0, size_t k, size_t n0, size_t n_valid,
                    size_t panels, void* first_panel, size_t panel_stride);

// Packs rows [m0, m0 + mr_valid) and K columns [k0, k0 + k) of A into one tile and writes the
// tile's row terms (QGemmTileParams::row_a / row_b, mr entries each, zero past mr_valid).
// a_zero_point holds the zero point of each of the mr_valid rows. Without row_b_live row_b is left
// zero (no column term reads it), and rows contiguous along K are not summed.
void PackATile(const PackFormat& f, const Int8Matrix& a, const int32_t* a_zero_point, size_t k0, size_t k, size_t m0,
               size_t mr_valid, void* tile, int32_t* row_a, int32_t* row_b, bool row_b_live = true);

// The row terms of rows [m0, m0 + rows) of A read in place (QGemmTileParams::a_row_stride), in
// A's own domain (no shift: u8 rows multiply as u8, s8 rows as s8), K contiguous; zero for rows
// [rows, mr). a_zero_point, row_a and row_b are indexed from row m0. Without row_b_live the rows
// are not summed and row_b is left zero (no column term reads it).
void InPlaceRowTerms(const Int8Matrix& a, const int32_t* a_zero_point, size_t k, size_t m0, size_t rows, size_t mr,
                     bool row_b_live, int32_t* row_a, int32_t* row_b);

// What packing adds to each A or B value to bring it into the layout's domain.
inline int32_t AShift(QGemmPacking packing, bool a_signed) {
  if (packing == QGemmPacking::kU8S8 || packing == QGemmPacking::kU8S8Tiles) return a_signed ? 128 : 0;
  if (packing == QGemmPacking::kS8S8 || HoldsNibbles(packing)) return a_signed ? 0 : -128;
  return 0;
}
inline int32_t BShift(QGemmPacking packing, bool b_signed) {
  if (HoldsNibbles(packing)) return b_signed ? 8 : 0;  // u = B + 8 for INT4
  return packing != QGemmPacking::kInt16Pairs && !b_signed ? -128 : 0;
}

// The per-column term col_b: the B zero point in the packing's domain. The 8-bit layouts also
// use col_a (the column sums of packed B); kInt16Pairs does not.
inline int32_t ColumnTermB(QGemmPacking packing, bool b_signed, int32_t b_zero_point) {
  return b_zero_point + BShift(packing, b_signed);
}
inline bool UsesColumnSums(QGemmPacking packing) {
  return packing != QGemmPacking::kInt16Pairs && !HoldsNibbles(packing);
}

}  // namespace cpuml

#endif  // CPUML_SRC_QGEMM_PACK_H_
