// The dynamic int8 path, B prepacked, GOPS = 2 * M * N * K per second:
//   dqmatmul/cpuml/<types>/<shape>/threads:N  DYNAMIC_QUANTIZE_LINEAR of float A (per tensor),
//                                             then MATRIX_MULTIPLY_INTEGER_TO_FLOAT with B's
//                                             scales per column and a bias: what ONNX Runtime's
//                                             DynamicQuantizeMatMul computes
//   i2f/cpuml/<types>/<shape>/threads:N       MATRIX_MULTIPLY_INTEGER_TO_FLOAT alone (A already
//                                             quantized), to hold against qgemm/cpuml
//   i2f/onednn/<types>/<shape>/threads:N      oneDNN's int8 matmul with a float destination,
//                                             scales and a source zero point (no quantization of A)
//   dql/cpuml/<per_tensor|per_row>/<size>     DYNAMIC_QUANTIZE_LINEAR of FLOAT32 to UINT8, GB/s of
//                                             input read (per tensor reads it twice: range, then bytes)
//   dql/cpuml/per_block32/<size>              the same to symmetric INT8 per row and block of 32
//   dqmatmul/cpuml/u8u4/<shape>/block:<32|128>/threads:N
//                                             the same with 4-bit B (UINT4, zero point 8) in
//                                             ONNX Runtime MatMulNBits' layouts, scales per block
//   dqmatmul/cpuml/s8u4/<shape>/block:<32|128>/threads:N
//                                             the same with A symmetric INT8 per row and block
//                                             (MatMulNBits at accuracy_level 4)
//   dqmatmul/cpuml/s8u4h/<shape>/block:<32|128>/threads:N
//                                             s8u4 with B scales that are FLOAT16 numbers (as
//                                             llama.cpp's Q4_0 and models quantized in half
//                                             precision hold them), which cpuml keeps as FLOAT16
//   i2f/cpuml/<u8u4|s8u4|s8u4h>/<shape>/block:<32|128>/threads:N
//                                             the 4-bit product alone, A already quantized: with
//                                             i2f/cpuml/u8s8 it splits the pairs' times into the
//                                             quantizer's share and the product's
//   after/cpuml/u8s8/<shape>/<scalar|avx512|rewrite>/threads:N
//                                             (--types=after, threads > 1) the pool's threads
//                                             first run about 20 us of a scalar chain or of the
//                                             AVX-512 probe each, or rewrite A's rows from a
//                                             copy (as the operator before the product does in
//                                             an engine), then i2f/cpuml/u8s8; before/cpuml/
//                                             <shape>/<work>/threads:N times that work alone
//   model/cpuml/<preset>[/layers:L]/<int8|int4/block:B>/M:<1|128>/threads:N
//                                             one decoder layer's linear layers (--models=),
//                                             or L layers (--model-layers=): the time per
//                                             token (M = 1) or prefill chunk
// Types: u8s8 and s8s8 (A's quantized type, s8 B), and u8u4, s8u4, s8u4h and after when asked
// for, as --types= selects.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_support.h"
#include "bench/gops.h"
#include "bench/isa_peak.h"

#if CPUML_BENCH_HAVE_ONEDNN
#include <dnnl.hpp>
extern "C" void omp_set_num_threads(int);
#endif

namespace cpuml_bench {
namespace {

CPUML_TENSOR_DESC Tensor(CPUML_BUFFER_TENSOR_DESC* buffer) { return {CPUML_TENSOR_TYPE_BUFFER, buffer}; }

// One linear layer, dynamically quantized: float activations in, float out. `b_block` nonzero:
// B is 4-bit (UINT4, zero point 8) with scales per block of that many K rows, stored as ONNX
// Runtime's MatMulNBits stores it (N x K, each column padded to whole blocks). `symmetric` (with
// b_block): A quantized to INT8 per row and block with no zero point, the scales bound as AScale
// {1,1,M,blocks}: what MatMulNBits computes at accuracy_level 4.
class DynamicLinear {
 public:
  DynamicLinear(Shape s, bool a_signed, uint32_t b_block = 0, uint32_t seed = 5, bool symmetric = false,
                bool half_scales = false)
      : s_(s), a_signed_(a_signed || symmetric), symmetric_(symmetric && b_block) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    x_.resize(size_t{s.m} * s.k);
    for (float& v : x_) v = normal(rng);
    qa_.resize((size_t{s.m} * s.k + 3) / 4 * 4);
    const uint32_t blocks = b_block ? (s.k + b_block - 1) / b_block : 1, padded_k = blocks * b_block;
    const uint64_t b_bytes = b_block ? ((uint64_t{s.n} - 1) * padded_k + s.k + 1) / 2 : uint64_t{s.k} * s.n;
    b_.resize((b_bytes + 3) / 4 * 4);
    for (auto& v : b_) v = static_cast<uint8_t>(rng());
    b_scale_.resize(size_t{s.n} * blocks);
    // 0.001 + 0.0001 (i % 17) is no FLOAT16 number; (1 + (i % 17) / 32) / 1024 is.
    for (size_t i = 0; i < b_scale_.size(); ++i)
      b_scale_[i] = half_scales ? (1.0f + static_cast<float>(i % 17) / 32.0f) / 1024.0f
                                : 0.001f + 0.0001f * static_cast<float>(i % 17);
    const uint32_t zero_point_stride = (blocks + 1) / 2 * 2;  // nibbles: each column starts on a byte
    b_zero_point_.assign((size_t{s.n} * zero_point_stride / 2 + 3) / 4 * 4, 0x88);
    bias_.resize(s.n);
    for (uint32_t j = 0; j < s.n; ++j) bias_[j] = normal(rng);
    y_.resize(size_t{s.m} * s.n);
    const auto a_type = a_signed_ ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8;
    a_scales_.resize(symmetric_ ? size_t{s.m} * blocks : 1);
    a_scale_sizes_ = {1, 1, symmetric_ ? s.m : 1, symmetric_ ? blocks : 1};
    a_scale_desc_ = {CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, a_scale_sizes_.data(), nullptr,
                     a_scales_.size() * 4, 0};
    const uint64_t mk = uint64_t{s.m} * s.k, kn = uint64_t{s.k} * s.n;
    a_sizes_ = {1, 1, s.m, s.k};
    b_sizes_ = {1, 1, s.k, s.n};
    b_strides_ = {0, 0, 1, b_block ? padded_k : s.k};
    block_sizes_ = {1, 1, blocks, s.n};
    block_scale_strides_ = {0, 0, 1, blocks};
    block_zero_strides_ = {0, 0, 1, zero_point_stride};
    o_sizes_ = {1, 1, s.m, s.n};
    n_sizes_ = {1, 1, 1, s.n};
    x_desc_ = {CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, a_sizes_.data(), nullptr, mk * 4, 0};
    qa_desc_ = {a_type, CPUML_TENSOR_FLAG_NONE, 4, a_sizes_.data(), nullptr, (mk + 3) / 4 * 4, 0};
    one_f_ = {CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, one_.data(), nullptr, 4, 0};
    one_a_ = {a_type, CPUML_TENSOR_FLAG_NONE, 4, one_.data(), nullptr, 4, 0};
    b_desc_ = {b_block ? CPUML_TENSOR_DATA_TYPE_UINT4 : CPUML_TENSOR_DATA_TYPE_INT8, CPUML_TENSOR_FLAG_OWNED_BY_CPUML,
               4, b_sizes_.data(), b_strides_.data(), b_block ? b_.size() : (kn + 3) / 4 * 4, 0};
    block_scale_ = {CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4, block_sizes_.data(),
                    block_scale_strides_.data(), b_scale_.size() * 4, 0};
    block_zero_ = {CPUML_TENSOR_DATA_TYPE_UINT4, CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4, block_sizes_.data(),
                   block_zero_strides_.data(), b_zero_point_.size(), 0};
    n_f_ = {CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4, n_sizes_.data(), nullptr,
            uint64_t{s.n} * 4, 0};
    y_desc_ = {CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, o_sizes_.data(), nullptr,
               uint64_t{s.m} * s.n * 4, 0};
    const CPUML_TENSOR_DESC x = Tensor(&x_desc_), qa = Tensor(&qa_desc_), za = Tensor(&one_a_),
                            b = Tensor(&b_desc_), n = Tensor(&n_f_), y = Tensor(&y_desc_),
                            block_scale = Tensor(&block_scale_), block_zero = Tensor(&block_zero_);
    const CPUML_TENSOR_DESC a_scale = Tensor(&a_scale_desc_);
    const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC quantize{&x, &qa, &a_scale, symmetric_ ? nullptr : &za};
    const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC matmul{
        &qa, &a_scale, symmetric_ ? nullptr : &za, &b, b_block ? &block_scale : &n, b_block ? &block_zero : nullptr,
        &n, &y};
    const CPUML_OPERATOR_DESC q_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &quantize},
        m_desc{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &matmul};
    inputs_ = {{qa_.data(), qa_desc_.TotalTensorSizeInBytes},
               {a_scales_.data(), a_scale_desc_.TotalTensorSizeInBytes},
               {symmetric_ ? nullptr : a_zero_point_, symmetric_ ? 0u : 4u},
               {b_.data(), b_desc_.TotalTensorSizeInBytes},   {b_scale_.data(), b_scale_.size() * 4},
               {b_block ? b_zero_point_.data() : nullptr, b_block ? b_zero_point_.size() : 0},
               {bias_.data(), uint64_t{s.n} * 4}};
    ok_ = cpuml_create_operator(&q_desc, &quantize_) == CPUML_STATUS_SUCCESS &&
          cpuml_create_operator(&m_desc, &matmul_) == CPUML_STATUS_SUCCESS &&
          cpuml_initialize_operator(matmul_, inputs_.data(), 7) == CPUML_STATUS_SUCCESS;
    if (!ok_) fprintf(stderr, "cpuml setup failed: %s\n", cpuml_last_error_message());
    inputs_[3] = inputs_[4] = inputs_[5] = inputs_[6] = {nullptr, 0};  // owned
    // One quantization now, so i2f alone multiplies real quantized activations.
    if (ok_) Quantize(nullptr);
  }
  ~DynamicLinear() {
    cpuml_destroy_operator(quantize_);
    cpuml_destroy_operator(matmul_);
  }
  bool ok() const { return ok_; }
  std::vector<uint8_t, CacheLineAllocator<uint8_t>>& quantized_a() { return qa_; }

  cpuml_status Quantize(pthreadpool_t pool) {
    const CPUML_BUFFER_BINDING in{x_.data(), x_desc_.TotalTensorSizeInBytes};
    const CPUML_BUFFER_BINDING out[] = {{qa_.data(), qa_desc_.TotalTensorSizeInBytes},
                                        {a_scales_.data(), a_scale_desc_.TotalTensorSizeInBytes},
                                        {symmetric_ ? nullptr : a_zero_point_, symmetric_ ? 0u : 4u}};
    return cpuml_execute_operator(quantize_, &in, 1, out, 3, pool);
  }
  cpuml_status Multiply(pthreadpool_t pool) {
    const CPUML_BUFFER_BINDING out{y_.data(), y_desc_.TotalTensorSizeInBytes};
    return cpuml_execute_operator(matmul_, inputs_.data(), 7, &out, 1, pool);
  }

 private:
  Shape s_;
  bool a_signed_, symmetric_;
  std::vector<float, CacheLineAllocator<float>> x_;
  std::vector<uint8_t, CacheLineAllocator<uint8_t>> qa_;
  std::vector<uint8_t> b_, b_zero_point_;
  std::vector<float> b_scale_, bias_;
  // 64-byte aligned as an engine's arena would give it: a large std::vector starts 16 bytes past a
  // page, and then half of AVX2's 32-byte float stores straddle two cache lines.
  std::vector<float, CacheLineAllocator<float>> y_;
  std::vector<float> a_scales_;  // one, or per row and block (symmetric)
  uint8_t a_zero_point_[4] = {};
  std::vector<uint32_t> a_scale_sizes_, a_sizes_, b_sizes_, b_strides_, o_sizes_, n_sizes_, one_{1, 1, 1, 1}, block_sizes_,
      block_scale_strides_, block_zero_strides_;
  CPUML_BUFFER_TENSOR_DESC a_scale_desc_, x_desc_, qa_desc_, one_f_, one_a_, b_desc_, n_f_, y_desc_, block_scale_, block_zero_;
  std::vector<CPUML_BUFFER_BINDING> inputs_;
  cpuml_operator *quantize_ = nullptr, *matmul_ = nullptr;
  bool ok_ = false;
};

// The bytes of B an M = 1 product streams from memory as cpuml holds them: 8-bit B and its
// scales per column, or 4-bit B (two to a byte) and its scales per block (FLOAT16 numbers held as
// FLOAT16); the benchmarks' zero point 8, shared by every block, is held once. A read probe of as
// many bytes (read_bandwidth/<types>/<shape>/block:B, read_bandwidth/model/<preset>/<weights>)
// takes the time the product would at the machine's read bandwidth, with the same share of the
// bytes left in the last-level cache between calls: the product's fraction of it is the probe's
// time over the product's.
uint64_t WeightBytes(Shape s, uint32_t b_block, bool half_scales) {
  if (!b_block) return uint64_t{s.k} * s.n + uint64_t{s.n} * 4;
  const uint64_t blocks = (uint64_t{s.k} + b_block - 1) / b_block;
  return blocks * b_block * s.n / 2 + blocks * s.n * (half_scales ? 2 : 4);
}

void BM_DynamicLinear(benchmark::State& state, Shape s, bool a_signed, bool quantize, int threads, uint32_t b_block,
                      bool symmetric, bool half_scales) {
  DynamicLinear layer(s, a_signed, b_block, 5, symmetric, half_scales);
  if (!layer.ok()) return state.SkipWithError("cpuml setup failed");
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  for (auto _ : state) {
    if ((quantize && layer.Quantize(pool) != CPUML_STATUS_SUCCESS) || layer.Multiply(pool) != CPUML_STATUS_SUCCESS)
      state.SkipWithError(cpuml_last_error_message());
    benchmark::ClobberMemory();
  }
  if (pool) pthreadpool_destroy(pool);
  SetGops(state, s);
  state.SetLabel(std::string("exact, ") + cpuml_isa_name(cpuml_get_isa()));
}

// What every pool thread does before the product in after/ rows: a scalar multiply chain, the
// AVX-512 probe (vpdpbusd and vmulps) for as long, or rewriting its share of A's rows (a copy of
// the quantized bytes), as the operator before the product in an engine would.
enum class PoolWork { kScalar, kAvx512, kRewrite };
const char* PoolWorkName(PoolWork w) {
  return w == PoolWork::kScalar ? "scalar" : w == PoolWork::kAvx512 ? "avx512" : "rewrite";
}
struct PoolWorkJob {
  PoolWork work;
  uint64_t iterations;
  const IsaPeakProbe* probe;
  uint8_t* a;
  const uint8_t* copy;
  size_t rows, row_bytes, tasks;
  static void Run(void* context, size_t task) {
    const PoolWorkJob& j = *static_cast<const PoolWorkJob*>(context);
    if (j.work == PoolWork::kScalar) {
      uint64_t x = task + 1;
      for (uint64_t i = 0; i < j.iterations; ++i) x = x * 0x9E3779B97F4A7C15ull + i;
      benchmark::DoNotOptimize(x);
    } else if (j.work == PoolWork::kAvx512) {
      benchmark::DoNotOptimize(j.probe->run(j.iterations));
    } else {
      const size_t first = j.rows * task / j.tasks, last = j.rows * (task + 1) / j.tasks;
      memcpy(j.a + first * j.row_bytes, j.copy + first * j.row_bytes, (last - first) * j.row_bytes);
    }
  }
};

// after/cpuml/u8s8/<shape>/<work>/threads:N: the pool's work (PoolWork) then the int8 product;
// before/cpuml/<shape>/<work>/threads:N: the work alone. The pair dqmatmul/cpuml/u8s8 puts the
// quantizer there.
void BM_ProductAfter(benchmark::State& state, Shape s, int threads, PoolWork work, bool multiply) {
  DynamicLinear layer(s, false);
  if (!layer.ok()) return state.SkipWithError("cpuml setup failed");
  pthreadpool_t pool = pthreadpool_create(threads);
  std::vector<uint8_t> copy(layer.quantized_a().begin(), layer.quantized_a().end());
  PoolWorkJob job{work, 0, nullptr, layer.quantized_a().data(), copy.data(), s.m, s.k, static_cast<size_t>(threads)};
  for (const IsaPeakProbe& probe : IsaPeakProbes())
    if (std::string(probe.name) == "avx512vnni_vpdpbusd_vmulps" && probe.supported()) job.probe = &probe;
  if (work == PoolWork::kAvx512 && !job.probe) {
    pthreadpool_destroy(pool);
    return state.SkipWithError("no AVX-512 VNNI on this CPU");
  }
  // About 20 us of work a thread (the per-tensor quantizer's time at 128 x 4096 on 16 threads).
  if (work != PoolWork::kRewrite) {
    job.iterations = 100000;
    const auto t0 = std::chrono::steady_clock::now();
    PoolWorkJob::Run(&job, 0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    job.iterations = std::max<uint64_t>(1, static_cast<uint64_t>(100000 * 20e-6 / seconds));
  }
  for (auto _ : state) {
    pthreadpool_parallelize_1d(pool, PoolWorkJob::Run, &job, job.tasks, 0);
    if (multiply && layer.Multiply(pool) != CPUML_STATUS_SUCCESS) state.SkipWithError(cpuml_last_error_message());
    benchmark::ClobberMemory();
  }
  pthreadpool_destroy(pool);
  if (multiply) SetGops(state, s);
}

// The granularities of DYNAMIC_QUANTIZE_LINEAR: UINT8 with a zero point per tensor or per row, and
// symmetric INT8 per row and block of 32 (the activations of 4-bit products at accuracy_level 4).
enum class Granularity { kPerTensor, kPerRow, kPerBlock32 };

void BM_Quantize(benchmark::State& state, uint64_t bytes, Granularity granularity, int threads) {
  const bool per_row = granularity != Granularity::kPerTensor, symmetric = granularity == Granularity::kPerBlock32;
  const uint32_t row = 4096, rows = static_cast<uint32_t>(bytes / 4 / row), scales_per_row = symmetric ? row / 32 : 1;
  std::vector<float, CacheLineAllocator<float>> x(size_t{rows} * row);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& v : x) v = normal(rng);
  std::vector<uint8_t, CacheLineAllocator<uint8_t>> q(x.size());
  std::vector<float> scales(size_t{rows} * scales_per_row);
  std::vector<uint8_t> zero_points((rows + 3) / 4 * 4);
  const uint32_t sizes[] = {1, 1, rows, row}, p_sizes[] = {1, 1, per_row ? rows : 1u, scales_per_row};
  CPUML_BUFFER_TENSOR_DESC in{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, sizes, nullptr, x.size() * 4, 0},
      out{symmetric ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_TENSOR_FLAG_NONE, 4, sizes, nullptr,
          q.size(), 0},
      s{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, p_sizes, nullptr, scales.size() * 4, 0},
      z{CPUML_TENSOR_DATA_TYPE_UINT8, CPUML_TENSOR_FLAG_NONE, 4, p_sizes, nullptr, (uint64_t{p_sizes[2]} + 3) / 4 * 4, 0};
  const CPUML_TENSOR_DESC ti = Tensor(&in), to = Tensor(&out), ts = Tensor(&s), tz = Tensor(&z);
  const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC desc{&ti, &to, &ts, symmetric ? nullptr : &tz};
  const CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc};
  cpuml_operator* op = nullptr;
  if (cpuml_create_operator(&op_desc, &op) != CPUML_STATUS_SUCCESS) return state.SkipWithError(cpuml_last_error_message());
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  const CPUML_BUFFER_BINDING input{x.data(), in.TotalTensorSizeInBytes};
  const CPUML_BUFFER_BINDING outputs[] = {{q.data(), out.TotalTensorSizeInBytes}, {scales.data(), s.TotalTensorSizeInBytes},
                                          symmetric ? CPUML_BUFFER_BINDING{nullptr, 0}
                                                    : CPUML_BUFFER_BINDING{zero_points.data(), z.TotalTensorSizeInBytes}};
  for (auto _ : state) {
    if (cpuml_execute_operator(op, &input, 1, outputs, 3, pool) != CPUML_STATUS_SUCCESS)
      state.SkipWithError(cpuml_last_error_message());
    benchmark::ClobberMemory();
  }
  if (pool) pthreadpool_destroy(pool);
  cpuml_destroy_operator(op);
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(x.size() * 4) * 1e-9 * static_cast<double>(state.iterations()),
                                              benchmark::Counter::kIsRate);
  state.SetLabel(std::string("input read ") + (per_row ? "once" : "twice") + ", " + cpuml_isa_name(cpuml_get_isa()));
}

// One decoder layer's linear layers (K x N), each with its own activations, as engines run them.
struct ModelPreset {
  const char* name;
  std::vector<std::pair<uint32_t, uint32_t>> layers;
};
const ModelPreset kModelPresets[] = {
    // q, k, v, o, gate, up, down (grouped-query attention: k and v are 1024 wide)
    {"llama3_8b", {{4096, 4096}, {4096, 1024}, {4096, 1024}, {4096, 4096}, {4096, 14336}, {4096, 14336}, {14336, 4096}}},
    // qkv, o, gate_up, down
    {"phi3_mini", {{3072, 9216}, {3072, 3072}, {3072, 16384}, {8192, 3072}}},
};

uint64_t ModelWeightBytes(const ModelPreset& preset, uint32_t b_block, uint32_t layers) {
  uint64_t bytes = 0;
  for (const auto& [k, n] : preset.layers) bytes += WeightBytes(Shape{1, k, n}, b_block, false);
  return bytes * layers;
}

// A preset's linear layers at M rows, decoder_layers times over with weights of their own:
// quantize then multiply each (int8 B: A per tensor, as DynamicQuantizeMatMul; 4-bit B: A
// symmetric per row and block, as MatMulNBits at accuracy_level 4). Reports the time per call (a
// token for M = 1, a prefill chunk otherwise) and GOPS.
void BM_Model(benchmark::State& state, const ModelPreset* preset, uint32_t m, uint32_t b_block, int threads,
              uint32_t decoder_layers) {
  std::vector<std::unique_ptr<DynamicLinear>> layers;
  uint64_t macs = 0;
  for (uint32_t copy = 0; copy < decoder_layers; ++copy)
    for (size_t i = 0; i < preset->layers.size(); ++i) {
      const Shape s{m, preset->layers[i].first, preset->layers[i].second};
      const auto seed = static_cast<uint32_t>(7 + i + copy * preset->layers.size());
      layers.emplace_back(new DynamicLinear(s, false, b_block, seed, b_block != 0));
      if (!layers.back()->ok()) return state.SkipWithError("cpuml setup failed");
      macs += uint64_t{s.m} * s.k * s.n;
    }
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  for (auto _ : state) {
    for (auto& layer : layers)
      if (layer->Quantize(pool) != CPUML_STATUS_SUCCESS || layer->Multiply(pool) != CPUML_STATUS_SUCCESS)
        state.SkipWithError(cpuml_last_error_message());
    benchmark::ClobberMemory();
  }
  if (pool) pthreadpool_destroy(pool);
  state.counters["GOPS"] = benchmark::Counter(2.0 * static_cast<double>(macs) * 1e-9 * static_cast<double>(state.iterations()),
                                              benchmark::Counter::kIsRate);
  const std::string whose = decoder_layers > 1 ? std::to_string(decoder_layers) + " layers' " : std::string("a layer's ");
  state.SetLabel(whose + "linear layers, exact, " + cpuml_isa_name(cpuml_get_isa()));
}

#if CPUML_BENCH_HAVE_ONEDNN
// oneDNN's matmul with u8 or s8 A, s8 B, a float destination: the integer-to-float product with a
// runtime source zero point and per-column output scales (A's scale times B's).
void BM_OneDnnIntegerToFloat(benchmark::State& state, Shape s, bool a_signed, int threads) {
  omp_set_num_threads(threads);
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  MatMulData d(s, a_signed, true);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const dnnl::memory::desc a_md({s.m, s.k}, a_signed ? dt::s8 : dt::u8, tag::ab), c_md({s.m, s.n}, dt::f32, tag::ab);
  const dnnl::memory::desc b_any({s.k, s.n}, dt::s8, tag::any), b_plain({s.k, s.n}, dt::s8, tag::ba);
  dnnl::primitive_attr attr;
  attr.set_output_scales(2, {DNNL_RUNTIME_F32_VAL});
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, c_md), attr, eng);
  dnnl::memory b_user(b_plain, eng, d.b_nk.data());
  dnnl::memory b(pd.weights_desc(), eng);
  dnnl::reorder(b_user, b).execute(strm, b_user, b);
  dnnl::matmul prim(pd);
  std::vector<float> scales(s.n, d.a_scale * d.b_scale), out(size_t{s.m} * s.n);
  int32_t zp = d.a_zero_point;
  dnnl::memory a_mem(a_md, eng, d.a.data()), c_mem(c_md, eng, out.data());
  dnnl::memory scale_mem({{s.n}, dt::f32, tag::x}, eng, scales.data()), zp_mem({{1}, dt::s32, tag::x}, eng, &zp);
  for (auto _ : state) {
    prim.execute(strm, {{DNNL_ARG_SRC, a_mem},
                        {DNNL_ARG_WEIGHTS, b},
                        {DNNL_ARG_DST, c_mem},
                        {DNNL_ARG_ATTR_OUTPUT_SCALES, scale_mem},
                        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zp_mem}});
    strm.wait();
  }
  SetGops(state, s);
  state.SetLabel("float out, A already quantized");
  omp_set_num_threads(1);
}
#endif

}  // namespace

void RegisterDynamicQuantBenchmarks() {
  const BenchOptions& options = Options();
  for (const Shape& s : options.shapes)
    for (int threads : options.threads)
      for (bool a_signed : {false, true}) {
        const std::string types = a_signed ? "s8s8" : "u8s8";
        if (!options.Wants(types)) continue;
        const std::string suffix = "/" + types + "/" + ShapeName(s) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(("dqmatmul/cpuml" + suffix).c_str(), BM_DynamicLinear, s, a_signed, true, threads, 0u, false, false)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
        benchmark::RegisterBenchmark(("i2f/cpuml" + suffix).c_str(), BM_DynamicLinear, s, a_signed, false, threads, 0u, false, false)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
#if CPUML_BENCH_HAVE_ONEDNN
        benchmark::RegisterBenchmark(("i2f/onednn" + suffix).c_str(), BM_OneDnnIntegerToFloat, s, a_signed, threads)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
#endif
      }
  for (const Shape& s : options.shapes)
    for (int threads : options.threads) {
      if (!options.Wants("after") || threads < 2) continue;
      for (PoolWork work : {PoolWork::kScalar, PoolWork::kAvx512, PoolWork::kRewrite}) {
        const std::string tail = std::string("/") + PoolWorkName(work) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(("after/cpuml/u8s8/" + ShapeName(s) + tail).c_str(), BM_ProductAfter, s, threads,
                                     work, true)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
        benchmark::RegisterBenchmark(("before/cpuml/" + ShapeName(s) + tail).c_str(), BM_ProductAfter, s, threads, work,
                                     false)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
      }
    }
  for (const char* name : {"u8u4", "s8u4", "s8u4h"}) {
    const std::string types = name;
    if (!options.Wants(types)) continue;
    const bool symmetric = types[0] == 's', half_scales = types.size() > 4;
    for (const Shape& s : options.shapes)
      for (int threads : options.threads)
        for (uint32_t block : {32u, 128u}) {
          const std::string shape_block = types + "/" + ShapeName(s) + "/block:" + std::to_string(block);
          benchmark::RegisterBenchmark(("dqmatmul/cpuml/" + shape_block + "/threads:" + std::to_string(threads)).c_str(),
                                       BM_DynamicLinear, s, false, true, threads, block, symmetric, half_scales)
              ->Unit(benchmark::kMicrosecond)->UseRealTime();
          benchmark::RegisterBenchmark(("i2f/cpuml/" + shape_block + "/threads:" + std::to_string(threads)).c_str(),
                                       BM_DynamicLinear, s, false, false, threads, block, symmetric, half_scales)
              ->Unit(benchmark::kMicrosecond)->UseRealTime();
          // Decode's probe: the read loops over as many bytes as the product's B (WeightBytes).
          if (s.m == 1) RegisterReadProbes("read_bandwidth/" + shape_block, WeightBytes(s, block, half_scales), threads);
        }
  }
  const uint32_t decoder_layers = options.model_layers;
  for (const std::string& name : options.models)
    for (const ModelPreset& preset : kModelPresets) {
      if (name != preset.name) continue;
      const std::string model = decoder_layers > 1 ? name + "/layers:" + std::to_string(decoder_layers) : name;
      for (uint32_t m : {1u, 128u})
        for (int threads : options.threads)
          for (uint32_t block : {0u, 32u, 128u}) {
            const std::string weights = block ? "int4/block:" + std::to_string(block) : std::string("int8");
            benchmark::RegisterBenchmark(("model/cpuml/" + model + "/" + weights + "/M:" + std::to_string(m) +
                                          "/threads:" + std::to_string(threads)).c_str(),
                                         BM_Model, &preset, m, block, threads, decoder_layers)
                ->Unit(benchmark::kMicrosecond)->UseRealTime();
            if (m == 1)
              RegisterReadProbes("read_bandwidth/model/" + model + "/" + weights,
                                 ModelWeightBytes(preset, block, decoder_layers), threads);
          }
    }
  for (int threads : options.threads) {
    // The probe DYNAMIC_QUANTIZE_LINEAR's GB/s is held against: the same 64 MiB read once. Where
    // the last-level cache is half that size, part of it stays there between calls (AMD EPYC
    // Zen 4, 2 vCPUs of a 32 MiB L3: two threads read 64 MiB at 40.9 GB/s and 235 MB at 29.6),
    // so decode is held against its own bytes' probe above.
    RegisterReadProbes("read_bandwidth/64MiB", uint64_t{64} << 20, threads);
    // 64 MiB mostly streams from memory. 1 MiB stays in the last-level cache between calls and 256 KiB
    // (16 rows of 4096, the activations of dqmatmul at 16x4096) in L2, so they show the rows'
    // arithmetic and the threads' start.
    for (uint64_t kibibytes : {64 << 10, 1 << 10, 256})
      for (Granularity granularity : {Granularity::kPerTensor, Granularity::kPerRow, Granularity::kPerBlock32}) {
        const std::string size = kibibytes >= 1024 ? std::to_string(kibibytes >> 10) + "MiB" : std::to_string(kibibytes) + "KiB";
        const char* mode = granularity == Granularity::kPerTensor ? "per_tensor"
                           : granularity == Granularity::kPerRow  ? "per_row"
                                                                  : "per_block32";
        const std::string name = std::string("dql/cpuml/") + mode + "/" + size + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), BM_Quantize, uint64_t{kibibytes} << 10, granularity, threads)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
      }
  }
}

}  // namespace cpuml_bench
