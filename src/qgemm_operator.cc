// QUANTIZED_LINEAR_MATRIX_MULTIPLY: validation, packing, blocking and threading around the tier's
// micro-kernel. The micro-kernel sees only packed panels and a QGemmTileParams.
#include <math.h>
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <new>
#include <vector>

#include "src/operator.h"
#include "src/qgemm_pack.h"
#include "src/status.h"
#include "src/tensor.h"

namespace cpuml {
namespace {

constexpr const char* kOp = "QUANTIZED_LINEAR_MATRIX_MULTIPLY";

enum Member { kA, kAScale, kAZeroPoint, kB, kBScale, kBZeroPoint, kOutScale, kOutZeroPoint, kOut, kMemberCount };
constexpr const char* kMemberNames[kMemberCount] = {
    "ATensor",      "AScaleTensor",      "AZeroPointTensor",      "BTensor", "BScaleTensor", "BZeroPointTensor",
    "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"};

// The most K one int32 accumulator chain may see: |(A - za)(B - zb)| <= 255 * 255, and
// 33025 * 65025 < 2^31. Longer K is split into chunks whose sums are added in int64.
constexpr size_t kMaxExactK = 32768;

// Packed A of one block of rows aims at this many bytes (half a typical L2).
constexpr size_t kABlockBytes = 256 * 1024;

// Workspaces come from the global aligned operator new, like every other allocation of the
// library, so an engine (or a test) that replaces it sees all of cpuml's memory.
constexpr std::align_val_t kWorkspaceAlignment{64};
struct AlignedDeleter {
  void operator()(uint8_t* p) const { ::operator delete(p, kWorkspaceAlignment); }
};
using Buffer = std::unique_ptr<uint8_t, AlignedDeleter>;

Buffer Allocate(size_t bytes) {
  return Buffer(static_cast<uint8_t*>(::operator new(std::max<size_t>(bytes, 64), kWorkspaceAlignment)));
}

// The largest output batch x channel count accepted. Every batch is its own product, so the
// limit bounds an execute's work; real models stay far below it (docs/semantics.md, Limits).
constexpr uint64_t kMaxBatchCount = (uint64_t{1} << 31) - 1;

// The distinct matrices of A or B: a batch or channel dimension of size 1 or of stride 0 repeats
// one matrix, which is then packed once.
struct MatrixGrid {
  size_t batches = 1, channels = 1;
  size_t Count() const { return batches * channels; }
  // The matrix that output batch `b`, channel `c` reads.
  size_t Index(size_t b, size_t c) const { return (batches == 1 ? 0 : b) * channels + (channels == 1 ? 0 : c); }
};

// The product of `factors` if it is at most 2^62 (far beyond any allocation, and safe to add a
// few such sizes); false otherwise.
bool CheckedProduct(std::initializer_list<uint64_t> factors, uint64_t* product) {
  uint64_t p = 1;
  for (uint64_t f : factors)
    if (__builtin_mul_overflow(p, f, &p)) return false;
  *product = p;
  return p <= (uint64_t{1} << 62);
}

MatrixGrid DistinctMatrices(const Tensor& t) {
  MatrixGrid g;
  g.batches = t.strides[0] == 0 ? 1 : t.sizes[0];
  g.channels = t.strides[1] == 0 ? 1 : t.sizes[1];
  return g;
}

class QLinearMatMul final : public cpuml_operator {
 public:
  QLinearMatMul(const TierKernels& tier, const Tensor* tensors, const bool* present) : cpuml_operator(tier) {
    for (int i = 0; i < kMemberCount; ++i) {
      t_[i] = tensors[i];
      present_[i] = present[i];
    }
    const QGemmUkernel& uk = tier.qgemm;
    format_ = {uk.packing, uk.mr, uk.nr, uk.kr};
    batches_ = t_[kOut].sizes[0];
    channels_ = t_[kOut].sizes[1];
    m_ = t_[kOut].sizes[2];
    n_ = t_[kOut].sizes[3];
    k_ = t_[kA].sizes[3];
    for (size_t k0 = 0; k0 < k_; k0 += kMaxExactK) chunks_.push_back({k0, std::min<size_t>(kMaxExactK, k_ - k0)});
    size_t offset = 0;
    for (Chunk& c : chunks_) {
      c.b_offset = offset;
      offset += format_.BPanelBytes(c.k);
    }
    b_panel_stride_ = offset;
    panels_ = (n_ + uk.nr - 1) / uk.nr;
    m_tiles_ = (m_ + uk.mr - 1) / uk.mr;
    a_tile_stride_ = 0;
    for (Chunk& c : chunks_) {
      c.a_offset = a_tile_stride_;
      a_tile_stride_ += format_.ATileBytes(c.k);
    }
    a_grid_ = DistinctMatrices(t_[kA]);
    b_grid_ = DistinctMatrices(t_[kB]);
    a_matrices_ = a_grid_.Count();
    b_matrices_ = b_grid_.Count();
    for (int i = 0; i < kOut; ++i) needs_initialize_ |= present_[i] && t_[i].owned;
  }

  // Rejects descriptors whose work or workspace sizes cannot be represented; every product is
  // checked, so no size derived from the descriptor wraps.
  cpuml_status CheckLimits() const {
    const uint64_t batch_count = uint64_t{batches_} * channels_;
    if (batch_count > kMaxBatchCount)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: OutputTensor batch x channel count %llu must be at most %llu (docs/semantics.md, Limits)", kOp,
                  static_cast<unsigned long long>(batch_count), static_cast<unsigned long long>(kMaxBatchCount));
    uint64_t bytes;
    const char* what = nullptr;
    if (!CheckedProduct({b_matrices_, panels_, b_panel_stride_}, &bytes)) what = "packed BTensor";
    else if (!CheckedProduct({a_matrices_, m_tiles_, a_tile_stride_}, &bytes)) what = "packed ATensor";
    else if (!CheckedProduct({a_matrices_, chunks_.size(), 2, m_tiles_ * format_.mr, sizeof(int32_t)}, &bytes))
      what = "row terms of ATensor";
    if (what)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                  "%s: ATensor and BTensor sizes make the %s workspace larger than 2^62 bytes (docs/semantics.md, Limits)",
                  kOp, what);
    return CPUML_STATUS_SUCCESS;
  }

  uint32_t InputCount() const override { return kOut; }

  cpuml_status Initialize(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count) override {
    if (!needs_initialize_) return CPUML_STATUS_SUCCESS;
    if (input_count == 0)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: initialize needs the %u input bindings (some inputs are OWNED_BY_CPUML)",
                  kOp, static_cast<unsigned>(kOut));
    for (int i = 0; i < kOut; ++i) {
      if (!present_[i] || !t_[i].owned) continue;
      char where[96];
      snprintf(where, sizeof where, "%s: %s", kOp, kMemberNames[i]);
      if (cpuml_status s = CheckBinding(inputs[i], t_[i], where)) return s;
    }
    // All checked: now nothing can fail but allocation.
    for (int i = 0; i < kOut; ++i) {
      if (!present_[i] || !t_[i].owned) continue;
      if (i == kB) {
        Buffer packed = Allocate(b_matrices_ * panels_ * b_panel_stride_);
        PackB(static_cast<const uint8_t*>(inputs[i].Data), packed.get(), nullptr);
        packed_b_ = std::move(packed);
      } else {
        Buffer copy = Allocate(t_[i].reach_bytes);
        memcpy(copy.get(), inputs[i].Data, t_[i].reach_bytes);
        owned_[i] = std::move(copy);
      }
    }
    initialized_ = true;
    return CPUML_STATUS_SUCCESS;
  }

  cpuml_status Execute(const CPUML_BUFFER_BINDING* inputs, const CPUML_BUFFER_BINDING* outputs,
                       pthreadpool_t pool) override;

 private:
  struct Chunk {
    size_t k0, k;
    size_t b_offset = 0, a_offset = 0;  // within a B panel / an A tile
  };

  Int8Matrix AMatrix(const uint8_t* data, size_t index) const {
    const Tensor& a = t_[kA];
    const size_t b = index / a_grid_.channels, c = index % a_grid_.channels;
    return {data + b * a.strides[0] + c * a.strides[1], a.type == CPUML_TENSOR_DATA_TYPE_INT8, a.strides[2], a.strides[3]};
  }
  Int8Matrix BMatrix(const uint8_t* data, size_t index) const {
    const Tensor& b = t_[kB];
    const size_t bb = index / b_grid_.channels, c = index % b_grid_.channels;
    return {data + bb * b.strides[0] + c * b.strides[1], b.type == CPUML_TENSOR_DATA_TYPE_INT8, b.strides[2], b.strides[3]};
  }

  void PackB(const uint8_t* b_data, uint8_t* packed, pthreadpool_t pool) const {
    struct Job {
      const QLinearMatMul* op;
      const uint8_t* b_data;
      uint8_t* packed;
    } job{this, b_data, packed};
    pthreadpool_parallelize_2d(
        pool,
        [](void* context, size_t matrix, size_t panel) {
          const Job& j = *static_cast<const Job*>(context);
          const QLinearMatMul& op = *j.op;
          const Int8Matrix b = op.BMatrix(j.b_data, matrix);
          const size_t n0 = panel * op.format_.nr;
          uint8_t* dst = j.packed + (matrix * op.panels_ + panel) * op.b_panel_stride_;
          for (const Chunk& c : op.chunks_)
            PackBPanel(op.format_, b, c.k0, c.k, n0, std::min<size_t>(op.format_.nr, op.n_ - n0), dst + c.b_offset);
        },
        &job, b_matrices_, panels_, 0);
  }

  Tensor t_[kMemberCount];
  bool present_[kMemberCount];
  PackFormat format_;
  size_t batches_, channels_, m_, n_, k_;
  std::vector<Chunk> chunks_;
  size_t b_panel_stride_, panels_, m_tiles_, a_tile_stride_, a_matrices_, b_matrices_;
  MatrixGrid a_grid_, b_grid_;
  bool needs_initialize_ = false, initialized_ = false;
  Buffer packed_b_;
  Buffer owned_[kMemberCount];

  friend struct ExecuteJob;
};

// Everything one execute call computes before the tiles run; shared read-only by the tasks.
struct ExecuteJob {
  const QLinearMatMul* op;
  const uint8_t* a_data;
  const uint8_t* packed_b;
  uint8_t* out;
  // Per-row (padded to whole tiles) and per-column (padded to whole panels) arrays.
  std::vector<float> a_scale, out_scale, out_min, out_max, b_scale, multiplier;
  std::vector<int32_t> a_zero_point, out_zero_point, col_b;
  bool use_col_b;
  Buffer packed_a;   // [a matrix][m tile] tiles of a_tile_stride bytes
  Buffer row_terms;  // [a matrix][chunk][row a / row b][padded M] int32
  size_t m_tiles_per_block, panels_per_block, m_blocks, n_blocks;

  int32_t* RowTerms(size_t a_matrix, size_t chunk, int which) const {
    const size_t padded_m = op->m_tiles_ * op->format_.mr;
    return reinterpret_cast<int32_t*>(row_terms.get()) + ((a_matrix * op->chunks_.size() + chunk) * 2 + which) * padded_m;
  }

  void PackATiles(size_t a_matrix, size_t tile) const {
    const PackFormat& f = op->format_;
    const Int8Matrix a = op->AMatrix(a_data, a_matrix);
    const size_t m0 = tile * f.mr;
    uint8_t* dst = packed_a.get() + (a_matrix * op->m_tiles_ + tile) * op->a_tile_stride_;
    for (size_t c = 0; c < op->chunks_.size(); ++c) {
      const auto& chunk = op->chunks_[c];
      PackATile(f, a, a_zero_point.data() + m0, chunk.k0, chunk.k, m0, std::min<size_t>(f.mr, op->m_ - m0),
                dst + chunk.a_offset, RowTerms(a_matrix, c, 0) + m0, RowTerms(a_matrix, c, 1) + m0);
    }
  }

  void RunBlock(size_t batch, size_t m_block, size_t n_block) const {
    const QLinearMatMul& o = *op;
    const QGemmUkernel& uk = o.tier.qgemm;
    const Tensor& out_t = o.t_[kOut];
    const size_t bi = batch / o.channels_, ci = batch % o.channels_;
    const size_t a_matrix = o.a_grid_.Index(bi, ci);
    const size_t b_matrix = o.b_grid_.Index(bi, ci);
    uint8_t* out_base = out + bi * out_t.strides[0] + ci * out_t.strides[1];
    const bool unit_columns = out_t.strides[3] == 1;
    const bool exact_in_int32 = o.chunks_.size() == 1;
    const size_t tile_begin = m_block * m_tiles_per_block;
    const size_t tile_end = std::min(o.m_tiles_, tile_begin + m_tiles_per_block);
    const size_t panel_begin = n_block * panels_per_block;
    const size_t panel_end = std::min(o.panels_, panel_begin + panels_per_block);
    alignas(64) uint8_t scratch[64 * 64];  // a tile for outputs without unit column stride
    alignas(64) int32_t acc32[64 * 64];
    int64_t acc64[64 * 64];

    for (size_t panel = panel_begin; panel < panel_end; ++panel) {
      const size_t n0 = panel * uk.nr;
      const size_t nr = std::min<size_t>(uk.nr, o.n_ - n0);
      const uint8_t* b_panel = packed_b + (b_matrix * o.panels_ + panel) * o.b_panel_stride_;
      for (size_t tile = tile_begin; tile < tile_end; ++tile) {
        const size_t m0 = tile * uk.mr;
        const size_t mr = std::min<size_t>(uk.mr, o.m_ - m0);
        const uint8_t* a_tile = packed_a.get() + (a_matrix * o.m_tiles_ + tile) * o.a_tile_stride_;
        QGemmTileParams p;
        p.a_scale = a_scale.data() + m0;
        p.out_scale = out_scale.data() + m0;
        p.out_min = out_min.data() + m0;
        p.out_max = out_max.data() + m0;
        p.out_zero_point = out_zero_point.data() + m0;
        p.b_scale = b_scale.data() + n0;
        p.multiplier = multiplier.empty() ? nullptr : multiplier.data() + n0;
        p.col_b = use_col_b ? col_b.data() + n0 : nullptr;
        p.out_signed = out_t.type == CPUML_TENSOR_DATA_TYPE_INT8;
        uint8_t* out_tile = out_base + m0 * out_t.strides[2] + n0 * out_t.strides[3];
        if (exact_in_int32) {
          const auto& c = o.chunks_[0];
          p.row_a = RowTerms(a_matrix, 0, 0) + m0;
          p.row_b = RowTerms(a_matrix, 0, 1) + m0;
          p.col_a = UsesColumnSums(uk.packing) ? reinterpret_cast<const int32_t*>(b_panel + c.b_offset) : nullptr;
          p.acc_out = nullptr;
          p.out = unit_columns ? out_tile : scratch;
          p.out_row_stride = unit_columns ? out_t.strides[2] : uk.nr;
          uk.run(mr, nr, o.format_.Groups(c.k), a_tile + c.a_offset, b_panel + c.b_offset + uk.nr * sizeof(int32_t), &p);
          if (!unit_columns)
            for (size_t i = 0; i < mr; ++i)
              for (size_t j = 0; j < nr; ++j) out_tile[i * out_t.strides[2] + j * out_t.strides[3]] = scratch[i * uk.nr + j];
          continue;
        }
        // K beyond one exact int32 chain: each chunk is exact in int32, their sum in int64.
        std::fill(acc64, acc64 + uk.mr * uk.nr, 0);
        for (size_t ci2 = 0; ci2 < o.chunks_.size(); ++ci2) {
          const auto& c = o.chunks_[ci2];
          p.row_a = RowTerms(a_matrix, ci2, 0) + m0;
          p.row_b = RowTerms(a_matrix, ci2, 1) + m0;
          p.col_a = UsesColumnSums(uk.packing) ? reinterpret_cast<const int32_t*>(b_panel + c.b_offset) : nullptr;
          p.acc_out = acc32;
          uk.run(mr, nr, o.format_.Groups(c.k), a_tile + c.a_offset, b_panel + c.b_offset + uk.nr * sizeof(int32_t), &p);
          for (size_t i = 0; i < mr * uk.nr; ++i) acc64[i] += acc32[i];
        }
        for (size_t i = 0; i < mr; ++i)
          for (size_t j = 0; j < nr; ++j) {
            const int32_t q = reference::Requantize(acc64[i * uk.nr + j], p.a_scale[i], p.b_scale[j], p.out_scale[i],
                                                    p.out_zero_point[i], p.out_signed);
            out_tile[i * out_t.strides[2] + j * out_t.strides[3]] = static_cast<uint8_t>(q);
          }
      }
    }
  }
};

cpuml_status QLinearMatMul::Execute(const CPUML_BUFFER_BINDING* inputs, const CPUML_BUFFER_BINDING* outputs,
                                    pthreadpool_t pool) {
  if (needs_initialize_ && !initialized_)
    return Fail(CPUML_STATUS_INVALID_STATE,
                "%s: some inputs are OWNED_BY_CPUML: call cpuml_initialize_operator before execute", kOp);
  const uint8_t* data[kMemberCount] = {};
  for (int i = 0; i < kOut; ++i) {
    if (!present_[i]) continue;
    if (t_[i].owned) {
      data[i] = owned_[i].get();  // NULL for B: its packed form is used instead
      continue;
    }
    char where[96];
    snprintf(where, sizeof where, "%s: %s", kOp, kMemberNames[i]);
    if (cpuml_status s = CheckBinding(inputs[i], t_[i], where)) return s;
    data[i] = static_cast<const uint8_t*>(inputs[i].Data);
  }
  {
    char where[96];
    snprintf(where, sizeof where, "%s: %s", kOp, kMemberNames[kOut]);
    if (cpuml_status s = CheckBinding(outputs[0], t_[kOut], where)) return s;
  }

  ExecuteJob job;
  job.op = this;
  job.a_data = data[kA];
  job.out = static_cast<uint8_t*>(outputs[0].Data);
  const size_t padded_m = m_tiles_ * format_.mr, padded_n = panels_ * format_.nr;

  // Scales: finite and > 0, else an error before anything is written.
  auto read_scales = [&](int member, size_t count, int dim, size_t padded, std::vector<float>* values) -> cpuml_status {
    const Tensor& t = t_[member];
    const float* s = reinterpret_cast<const float*>(data[member]);
    values->assign(padded, 1.0f);
    for (size_t i = 0; i < count; ++i) {
      const float v = s[t.sizes[dim] == 1 ? 0 : i * t.strides[dim]];
      if (!(v > 0.0f) || !isfinite(v))
        return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s element %zu is %g: scales must be finite and > 0", kOp,
                    kMemberNames[member], t.sizes[dim] == 1 ? size_t{0} : i, static_cast<double>(v));
      (*values)[i] = v;
    }
    return CPUML_STATUS_SUCCESS;
  };
  if (cpuml_status s = read_scales(kAScale, m_, 2, padded_m, &job.a_scale)) return s;
  if (cpuml_status s = read_scales(kBScale, n_, 3, padded_n, &job.b_scale)) return s;
  if (cpuml_status s = read_scales(kOutScale, m_, 2, padded_m, &job.out_scale)) return s;

  // Per-tensor A and output scales: the multiplier depends on the column alone.
  if (t_[kAScale].sizes[2] == 1 && t_[kOutScale].sizes[2] == 1) {
    job.multiplier.resize(padded_n);
    for (size_t j = 0; j < padded_n; ++j) job.multiplier[j] = (job.a_scale[0] * job.b_scale[j]) / job.out_scale[0];
  }

  auto read_zero_points = [&](int member, size_t count, int dim, size_t padded, std::vector<int32_t>* values) {
    values->assign(padded, 0);
    if (!present_[member]) return;
    const Tensor& t = t_[member];
    const bool is_signed = t.type == CPUML_TENSOR_DATA_TYPE_INT8;
    for (size_t i = 0; i < count; ++i) {
      const uint8_t raw = data[member][t.sizes[dim] == 1 ? 0 : i * t.strides[dim]];
      (*values)[i] = is_signed ? static_cast<int8_t>(raw) : raw;
    }
  };
  read_zero_points(kAZeroPoint, m_, 2, padded_m, &job.a_zero_point);
  read_zero_points(kOutZeroPoint, m_, 2, padded_m, &job.out_zero_point);
  std::vector<int32_t> b_zero_point;
  read_zero_points(kBZeroPoint, n_, 3, padded_n, &b_zero_point);
  const bool b_signed = t_[kB].type == CPUML_TENSOR_DATA_TYPE_INT8;
  job.col_b.resize(padded_n);
  job.use_col_b = false;
  for (size_t j = 0; j < padded_n; ++j) {
    job.col_b[j] = j < n_ ? ColumnTermB(format_.packing, b_signed, b_zero_point[j]) : 0;
    job.use_col_b |= job.col_b[j] != 0;
  }
  const bool out_signed = t_[kOut].type == CPUML_TENSOR_DATA_TYPE_INT8;
  job.out_min.resize(padded_m);
  job.out_max.resize(padded_m);
  for (size_t i = 0; i < padded_m; ++i) {
    job.out_min[i] = static_cast<float>((out_signed ? -128 : 0) - job.out_zero_point[i]);
    job.out_max[i] = static_cast<float>((out_signed ? 127 : 255) - job.out_zero_point[i]);
  }

  // B: prepacked at initialize, or packed now into this call's workspace.
  Buffer packed_b_now;
  if (t_[kB].owned) {
    job.packed_b = packed_b_.get();
  } else {
    packed_b_now = Allocate(b_matrices_ * panels_ * b_panel_stride_);
    PackB(data[kB], packed_b_now.get(), pool);
    job.packed_b = packed_b_now.get();
  }
  job.packed_a = Allocate(a_matrices_ * m_tiles_ * a_tile_stride_);
  job.row_terms = Allocate(a_matrices_ * chunks_.size() * 2 * padded_m * sizeof(int32_t));
  pthreadpool_parallelize_2d(
      pool, [](void* context, size_t matrix, size_t tile) { static_cast<ExecuteJob*>(context)->PackATiles(matrix, tile); },
      &job, a_matrices_, m_tiles_, 0);

  // Blocks: rows sized so their packed A stays in L2; columns split until every thread has
  // several blocks (M = 1 still spreads over N).
  const size_t threads = pool ? pthreadpool_get_threads_count(pool) : 1;
  const size_t batch_count = batches_ * channels_;
  job.m_tiles_per_block = std::max<size_t>(1, kABlockBytes / std::max<size_t>(1, a_tile_stride_));
  job.m_tiles_per_block = std::min(job.m_tiles_per_block, m_tiles_);
  job.m_blocks = (m_tiles_ + job.m_tiles_per_block - 1) / job.m_tiles_per_block;
  const size_t wanted_tasks = threads > 1 ? threads * 4 : 1;
  size_t n_blocks = std::max<size_t>(1, wanted_tasks / std::max<size_t>(1, batch_count * job.m_blocks));
  n_blocks = std::min(n_blocks, panels_);
  job.panels_per_block = (panels_ + n_blocks - 1) / n_blocks;
  job.n_blocks = (panels_ + job.panels_per_block - 1) / job.panels_per_block;
  pthreadpool_parallelize_3d(
      pool,
      [](void* context, size_t batch, size_t m_block, size_t n_block) {
        static_cast<const ExecuteJob*>(context)->RunBlock(batch, m_block, n_block);
      },
      &job, batch_count, job.m_blocks, job.n_blocks, 0);
  return CPUML_STATUS_SUCCESS;
}

constexpr uint32_t kInt8Types = TypeBit(CPUML_TENSOR_DATA_TYPE_INT8) | TypeBit(CPUML_TENSOR_DATA_TYPE_UINT8);
constexpr uint32_t kFloatTypes = TypeBit(CPUML_TENSOR_DATA_TYPE_FLOAT32);

}  // namespace

cpuml_status CreateQuantizedLinearMatrixMultiply(const void* desc_ptr, const TierKernels& tier, cpuml_operator** out) {
  const auto* d = static_cast<const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC*>(desc_ptr);
  const CPUML_TENSOR_DESC* descs[kMemberCount] = {d->ATensor,      d->AScaleTensor,      d->AZeroPointTensor,
                                                  d->BTensor,      d->BScaleTensor,      d->BZeroPointTensor,
                                                  d->OutputScaleTensor, d->OutputZeroPointTensor, d->OutputTensor};
  const bool optional[kMemberCount] = {false, false, true, false, false, true, false, true, false};
  const uint32_t types[kMemberCount] = {kInt8Types, kFloatTypes, kInt8Types, kInt8Types, kFloatTypes,
                                        kInt8Types, kFloatTypes, kInt8Types, kInt8Types};
  Tensor t[kMemberCount];
  bool present[kMemberCount];
  for (int i = 0; i < kMemberCount; ++i) {
    present[i] = descs[i] != nullptr;
    if (!present[i]) {
      if (optional[i]) continue;
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s must not be NULL", kOp, kMemberNames[i]);
    }
    char where[96];
    snprintf(where, sizeof where, "%s: %s", kOp, kMemberNames[i]);
    if (cpuml_status s = ParseTensor(descs[i], {where, 2, 4, types[i]}, &t[i])) return s;
    t[i].PadRankTo(4);
  }
  auto same_type = [&](int value, int zero_point) -> cpuml_status {
    if (present[zero_point] && t[zero_point].type != t[value].type)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s DataType %s must equal %s DataType %s", kOp,
                  kMemberNames[zero_point], DataTypeName(t[zero_point].type), kMemberNames[value],
                  DataTypeName(t[value].type));
    return CPUML_STATUS_SUCCESS;
  };
  if (cpuml_status s = same_type(kA, kAZeroPoint)) return s;
  if (cpuml_status s = same_type(kB, kBZeroPoint)) return s;
  if (cpuml_status s = same_type(kOut, kOutZeroPoint)) return s;

  const Tensor &a = t[kA], &b = t[kB], &o = t[kOut];
  char s1[64], s2[64];
  const uint32_t m = a.sizes[2], k = a.sizes[3], n = b.sizes[3];
  if (b.sizes[2] != k)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: BTensor sizes %s must have K=%u rows (ATensor sizes %s)", kOp,
                FormatSizes(b, s1, sizeof s1), k, FormatSizes(a, s2, sizeof s2));
  // Each of A's and B's batch/channel sizes equals the output's or is 1 (repeated).
  for (int dim = 0; dim < 2; ++dim) {
    for (int member : {kA, kB}) {
      const Tensor& x = t[member];
      if (x.sizes[dim] != 1 && x.sizes[dim] != o.sizes[dim])
        return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                    "%s: %s sizes %s: its %s size %u must be 1 or OutputTensor's %u (OutputTensor sizes %s)", kOp,
                    kMemberNames[member], FormatSizes(x, s1, sizeof s1), dim == 0 ? "batch" : "channel", x.sizes[dim],
                    o.sizes[dim], FormatSizes(o, s2, sizeof s2));
    }
  }
  if (o.sizes[2] != m || o.sizes[3] != n)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor sizes %s must end in {M,N} = {%u,%u}", kOp,
                FormatSizes(o, s1, sizeof s1), m, n);
  // Per-tensor {1,1,1,1}, per-row {1,1,M,1} or per-column {1,1,1,N}.
  auto check_shape = [&](int member, bool per_row) -> cpuml_status {
    if (!present[member]) return CPUML_STATUS_SUCCESS;
    const Tensor& x = t[member];
    const uint32_t extent = per_row ? m : n;
    const bool ok = x.sizes[0] == 1 && x.sizes[1] == 1 &&
                    (per_row ? (x.sizes[3] == 1 && (x.sizes[2] == 1 || x.sizes[2] == m))
                             : (x.sizes[2] == 1 && (x.sizes[3] == 1 || x.sizes[3] == n)));
    if (!ok)
      return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: %s sizes %s must be {1,1,1,1} or %s with %s=%u", kOp,
                  kMemberNames[member], FormatSizes(x, s1, sizeof s1), per_row ? "{1,1,M,1}" : "{1,1,1,N}",
                  per_row ? "M" : "N", extent);
    return CPUML_STATUS_SUCCESS;
  };
  for (int member : {kAScale, kAZeroPoint, kOutScale, kOutZeroPoint})
    if (cpuml_status s = check_shape(member, true)) return s;
  for (int member : {kBScale, kBZeroPoint})
    if (cpuml_status s = check_shape(member, false)) return s;
  if (o.owned)
    return Fail(CPUML_STATUS_INVALID_ARGUMENT, "%s: OutputTensor Flags must not include CPUML_TENSOR_FLAG_OWNED_BY_CPUML",
                kOp);
  if (MayAlias(o))
    return Fail(CPUML_STATUS_INVALID_ARGUMENT,
                "%s: OutputTensor Strides must not make two elements share an address (stride 0 or overlap)", kOp);
  std::unique_ptr<QLinearMatMul> op(new QLinearMatMul(tier, t, present));
  if (cpuml_status s = op->CheckLimits()) return s;
  *out = op.release();
  return CPUML_STATUS_SUCCESS;
}

}  // namespace cpuml
