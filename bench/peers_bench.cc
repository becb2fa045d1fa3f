// The peers on the same shapes, threads and data as qgemm/cpuml, in the same process:
// oneDNN matmul (u8s8 -> u8, s8s8 -> s8; runtime zero points and output scale, weights
// reordered once) and XNNPACK fully connected (qu8, qs8; symmetric s8 weights).
// Each result is compared with cpuml's on uniform and on adversarial data (A at its extreme
// against B = 127 over all of K): the label says exact or inexact, the counter how many differ.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/bench_support.h"
#include "bench/gops.h"

#if CPUML_BENCH_HAVE_ONEDNN
#include <dnnl.hpp>
extern "C" void omp_set_num_threads(int);
#endif
#if CPUML_BENCH_HAVE_XNNPACK
#include <xnnpack.h>
#endif

namespace cpuml_bench {
namespace {

// Data whose products sit at the extremes: A at its maximum magnitude, B = 127 (-64 for 7-bit B).
[[maybe_unused]] MatMulData Adversarial(Shape s, bool a_signed, bool b_signed, bool seven_bit_b = false) {
  MatMulData d(s, a_signed, b_signed, 3, seven_bit_b);
  for (auto& v : d.a) v = a_signed ? 0x80 : 0xFF;
  for (auto& v : d.b_nk) v = seven_bit_b ? 0xC0 : b_signed ? 0x7F : 0xFF;
  d.a_zero_point = 0;
  d.out_scale = d.a_scale * d.b_scale * 255.0f * 127.0f * static_cast<float>(s.k) / 90.0f;
  return d;
}

// Output bytes that differ from cpuml's on `data`.
template <class RunPeer>
[[maybe_unused]] int64_t Mismatches(const MatMulData& data, bool a_signed, bool b_signed, bool out_signed, RunPeer&& run_peer) {
  const Shape s = data.shape;
  std::vector<uint8_t> expected((size_t{s.m} * s.n + 3) / 4 * 4), actual(expected.size());
  CpumlMatMul reference(data, a_signed, b_signed, out_signed);
  reference.Run(expected.data(), nullptr);
  run_peer(data, actual.data());
  int64_t wrong = 0;
  for (size_t i = 0; i < size_t{s.m} * s.n; ++i) wrong += actual[i] != expected[i];
  return wrong;
}

#if CPUML_BENCH_HAVE_ONEDNN
class OneDnnMatMul {
 public:
  OneDnnMatMul(const MatMulData& d, bool a_signed) : d_(d), eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    const auto s = d.shape;
    const dt a_type = a_signed ? dt::s8 : dt::u8;
    const dnnl::memory::desc a_md({s.m, s.k}, a_type, tag::ab), c_md({s.m, s.n}, a_type, tag::ab);
    const dnnl::memory::desc b_any({s.k, s.n}, dt::s8, tag::any), b_plain({s.k, s.n}, dt::s8, tag::ba);
    dnnl::primitive_attr attr;
    attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, c_md), attr, eng_);
    dnnl::memory b_user(b_plain, eng_, const_cast<uint8_t*>(d.b_nk.data()));
    b_ = dnnl::memory(pd.weights_desc(), eng_);
    dnnl::reorder(b_user, b_).execute(strm_, b_user, b_);
    prim_ = dnnl::matmul(pd);
    a_md_ = a_md;
    c_md_ = c_md;
    scale_ = d.a_scale * d.b_scale / d.out_scale;
    zp_src_ = d.a_zero_point;
    zp_dst_ = d.out_zero_point;
  }
  void Run(const uint8_t* a, uint8_t* c) {
    using dt = dnnl::memory::data_type;
    dnnl::memory a_mem(a_md_, eng_, const_cast<uint8_t*>(a)), c_mem(c_md_, eng_, c);
    dnnl::memory scale({{1}, dt::f32, dnnl::memory::format_tag::x}, eng_, &scale_);
    dnnl::memory zs({{1}, dt::s32, dnnl::memory::format_tag::x}, eng_, &zp_src_);
    dnnl::memory zd({{1}, dt::s32, dnnl::memory::format_tag::x}, eng_, &zp_dst_);
    prim_.execute(strm_, {{DNNL_ARG_SRC, a_mem},
                          {DNNL_ARG_WEIGHTS, b_},
                          {DNNL_ARG_DST, c_mem},
                          {DNNL_ARG_ATTR_OUTPUT_SCALES, scale},
                          {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zs},
                          {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, zd}});
    strm_.wait();
  }

 private:
  const MatMulData& d_;
  dnnl::engine eng_;
  dnnl::stream strm_;
  dnnl::memory b_;
  dnnl::matmul prim_;
  dnnl::memory::desc a_md_, c_md_;
  float scale_;
  int32_t zp_src_, zp_dst_;
};

void BM_OneDnn(benchmark::State& state, Shape s, bool a_signed, bool seven_bit_b, int threads) {
  omp_set_num_threads(threads);
  MatMulData data(s, a_signed, true, 1, seven_bit_b);
  OneDnnMatMul mm(data, a_signed);
  std::vector<uint8_t> out(size_t{s.m} * s.n + 4);
  for (auto _ : state) mm.Run(data.a.data(), out.data());
  SetGops(state, s);
  auto run = [&](const MatMulData& d, uint8_t* c) { OneDnnMatMul(d, a_signed).Run(d.a.data(), c); };
  const int64_t wrong = Mismatches(data, a_signed, true, a_signed, run) +
                        Mismatches(Adversarial(s, a_signed, true, seven_bit_b), a_signed, true, a_signed, run);
  state.counters["wrong_outputs"] = static_cast<double>(wrong);
  state.SetLabel(wrong ? "INEXACT" : "exact");
  omp_set_num_threads(1);
}
#endif

#if CPUML_BENCH_HAVE_XNNPACK
class XnnFullyConnected {
 public:
  XnnFullyConnected(const MatMulData& d, bool is_signed) : signed_(is_signed) {
    const auto s = d.shape;
    const float out_scale = d.out_scale;
    xnn_status status;
    if (is_signed) {
      status = xnn_create_fully_connected_nc_qs8(s.k, s.n, s.k, s.n, static_cast<int8_t>(d.a_zero_point), d.a_scale,
                                                 d.b_scale, reinterpret_cast<const int8_t*>(d.b_nk.data()), nullptr,
                                                 static_cast<int8_t>(d.out_zero_point), out_scale, -128, 127, 0, &op_);
    } else {
      status = xnn_create_fully_connected_nc_qu8(s.k, s.n, s.k, s.n, static_cast<uint8_t>(d.a_zero_point), d.a_scale,
                                                 static_cast<uint8_t>(d.b_zero_point), d.b_scale, d.b_nk.data(), nullptr,
                                                 static_cast<uint8_t>(d.out_zero_point), out_scale, 0, 255, 0, &op_);
    }
    if (status != xnn_status_success) op_ = nullptr;
    m_ = s.m;
  }
  ~XnnFullyConnected() {
    if (op_) xnn_delete_operator(op_);
  }
  bool ok() const { return op_ != nullptr; }
  void Run(const uint8_t* a, uint8_t* c, pthreadpool_t pool) {
    if (signed_)
      xnn_setup_fully_connected_nc_qs8(op_, m_, reinterpret_cast<const int8_t*>(a), reinterpret_cast<int8_t*>(c), pool);
    else
      xnn_setup_fully_connected_nc_qu8(op_, m_, a, c, pool);
    xnn_run_operator(op_, pool);
  }

 private:
  bool signed_;
  xnn_operator_t op_ = nullptr;
  size_t m_;
};

void BM_Xnnpack(benchmark::State& state, Shape s, bool is_signed, int threads) {
  static const bool initialized = xnn_initialize(nullptr) == xnn_status_success;
  if (!initialized) return state.SkipWithError("xnn_initialize failed");
  MatMulData data(s, is_signed, is_signed);
  XnnFullyConnected fc(data, is_signed);
  if (!fc.ok()) return state.SkipWithError("XNNPACK setup failed");
  std::vector<uint8_t> out(size_t{s.m} * s.n + 4);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  for (auto _ : state) fc.Run(data.a.data(), out.data(), pool);
  SetGops(state, s);
  auto run = [&](const MatMulData& d, uint8_t* c) { XnnFullyConnected(d, is_signed).Run(d.a.data(), c, pool); };
  const int64_t wrong = Mismatches(data, is_signed, is_signed, is_signed, run) +
                        Mismatches(Adversarial(s, is_signed, is_signed), is_signed, is_signed, is_signed, run);
  if (pool) pthreadpool_destroy(pool);
  state.counters["wrong_outputs"] = static_cast<double>(wrong);
  state.SetLabel(wrong ? "INEXACT" : "exact");
}
#endif

}  // namespace

// The peers run the type combinations they implement, where those were asked for.
void RegisterPeerBenchmarks() {
  const BenchOptions& options = Options();
  for (const Shape& s : options.shapes)
    for (int threads : options.threads) {
      const std::string suffix = "/" + ShapeName(s) + "/threads:" + std::to_string(threads);
#if CPUML_BENCH_HAVE_ONEDNN
      if (options.Wants("u8s8"))
        benchmark::RegisterBenchmark(("qgemm/onednn/u8s8" + suffix).c_str(), BM_OneDnn, s, false, false, threads)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
      if (options.Wants("s8s8"))
        benchmark::RegisterBenchmark(("qgemm/onednn/s8s8" + suffix).c_str(), BM_OneDnn, s, true, false, threads)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
      if (options.Wants("u8s7"))
        benchmark::RegisterBenchmark(("qgemm/onednn/u8s7" + suffix).c_str(), BM_OneDnn, s, false, true, threads)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
#endif
#if CPUML_BENCH_HAVE_XNNPACK
      if (options.Wants("u8u8"))
        benchmark::RegisterBenchmark(("qgemm/xnnpack/u8u8" + suffix).c_str(), BM_Xnnpack, s, false, threads)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
      if (options.Wants("s8s8"))
        benchmark::RegisterBenchmark(("qgemm/xnnpack/s8s8" + suffix).c_str(), BM_Xnnpack, s, true, threads)
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
#endif
      (void)suffix;
    }
}

}  // namespace cpuml_bench
