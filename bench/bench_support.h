// Shared pieces of the benchmark suite: a prepacked cpuml matmul and its data.
#ifndef CPUML_BENCH_BENCH_SUPPORT_H_
#define CPUML_BENCH_BENCH_SUPPORT_H_

#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <stdint.h>

#include <new>
#include <random>
#include <string>
#include <vector>

#include "cpuml/cpuml.h"

namespace cpuml_bench {

struct Shape {
  uint32_t m, k, n;
};
// The peers' shapes: LLM decode (M = 1, 16), a transformer FFN, square GEMMs.
constexpr Shape kShapes[] = {{1, 4096, 4096}, {16, 4096, 4096}, {128, 768, 3072}, {1024, 1024, 1024}, {2048, 2048, 2048}};

std::string ShapeName(const Shape& s);  // "MxKxN"

// What the matmul benchmarks cover, from the command line or the environment (flags win):
//   --shapes=1x4096x11008,128x768x3072   CPUML_BENCH_SHAPES   M x K x N list (default kShapes)
//   --types=u8s8,s8s8                    CPUML_BENCH_TYPES    A and B types (default all four, and
//                                                             u8s7: u8 A, s8 B in [-64, 63], the
//                                                             reduce-range weights of engines;
//                                                             asked for only: u8u4 and s8u4,
//                                                             4-bit B in blocks after u8 A per
//                                                             tensor or symmetric s8 A per row
//                                                             and block, the dynamic path's rows,
//                                                             s8u4h, s8u4 with FLOAT16 scales,
//                                                             and after: the int8 product after
//                                                             other work on the pool's threads)
//   --threads=1,16                       CPUML_BENCH_THREADS  thread counts (default 1,2)
//   --models=llama3_8b,phi3_mini         CPUML_BENCH_MODELS   decoder-layer presets (default none)
//   --model-layers=4                     CPUML_BENCH_MODEL_LAYERS  that many layers of each preset,
//                                                             each with weights of its own, in
//                                                             one iteration (default 1): weights
//                                                             past a large last-level cache
struct BenchOptions {
  std::vector<Shape> shapes;
  std::vector<std::string> types;
  std::vector<int> threads;
  // Decoder-layer presets (--models=llama3_8b,phi3_mini): one layer's linear layers per iteration.
  std::vector<std::string> models;
  uint32_t model_layers = 1;
  bool Wants(const std::string& types_name) const;
};
// Takes the flags above out of argv (the rest goes to Google Benchmark); false with a message on
// stderr for a malformed list.
bool ParseBenchOptions(int* argc, char** argv);
const BenchOptions& Options();

// Registration, after the options are parsed.
void RegisterQGemmBenchmarks();
void RegisterPeerBenchmarks();
void RegisterFillBenchmarks();
void RegisterDynamicQuantBenchmarks();

// Registers the read probes `<what>/threads:N` and `<what>/l2_prefetch/threads:N`: `bytes` (B's size
// for a shape, or a quantization input's) streamed through vector loads split over `threads`, the
// limit an M = 1 product, which reads each byte of B once, or a quantization pass, which reads each
// input float once, can reach; the second also requests each line into L2 ahead (bench/isa_peak.h's
// ReadLoop), and the machine's limit is the faster of the two. Each reports GB/s.
void RegisterReadProbes(const std::string& what, uint64_t bytes, int threads);

// 64-byte aligned storage, as engines' activation arenas give (the AMX tier reads such an A in
// place; malloc's 16-byte alignment would split every 64-byte row load across two lines).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

// Full-range uniform data, the same for every library so results can be compared.
struct MatMulData {
  // seven_bit_b: s8 B values in [-64, 63] (reduce-range weights).
  MatMulData(Shape s, bool a_signed, bool b_signed, uint32_t seed = 1, bool seven_bit_b = false) : shape(s) {
    std::mt19937 rng(seed);
    // Rounded up to 4 bytes like TotalTensorSizeInBytes, so bindings never claim more than exists.
    a.resize((size_t{s.m} * s.k + 3) / 4 * 4);
    b_nk.resize((size_t{s.n} * s.k + 3) / 4 * 4);
    for (auto& v : a) v = static_cast<uint8_t>(rng());
    for (auto& v : b_nk) v = static_cast<uint8_t>(seven_bit_b ? static_cast<int>(rng() % 128) - 64 : static_cast<int>(rng()));
    a_zero_point = a_signed ? -3 : 131;
    b_zero_point = b_signed ? 0 : 128;  // symmetric weights, as the peers require for s8
    // About 16 * sqrt(K) for |acc| / 128 / 128: keeps most outputs inside 8 bits.
    a_scale = 0.02f;
    b_scale = 0.015f;
    out_scale = a_scale * b_scale * 128.0f * 128.0f * 0.05f * static_cast<float>(__builtin_sqrt(double(s.k))) / 8.0f;
    out_zero_point = 7;
  }
  Shape shape;
  std::vector<uint8_t, CacheLineAllocator<uint8_t>> a;
  std::vector<uint8_t> b_nk;  // B stored N x K (transposed), the usual weight layout
  int32_t a_zero_point, b_zero_point, out_zero_point;
  float a_scale, b_scale, out_scale;
};

// A prepacked cpuml QUANTIZED_LINEAR_MATRIX_MULTIPLY over MatMulData.
class CpumlMatMul {
 public:
  // `b_bound`: B not owned but bound at every execute, stored K x N (ONNX MatMul's layout), so
  // each execute packs it; otherwise owned (packed at initialize) from the N x K copy.
  CpumlMatMul(const MatMulData& d, bool a_signed, bool b_signed, bool out_signed, bool b_bound = false);
  ~CpumlMatMul();
  // `scratch`: NULL, or TemporaryResourceSize bytes (ScratchBytes()) of caller scratch.
  cpuml_status Run(uint8_t* out, pthreadpool_t pool, void* scratch = nullptr);
  uint64_t ScratchBytes() const;
  bool ok() const { return op_ != nullptr; }

 private:
  const MatMulData& d_;
  cpuml_operator* op_ = nullptr;
  std::vector<CPUML_BUFFER_BINDING> inputs_;
  std::vector<uint8_t> b_kn_;  // b_bound: B as K x N
  uint8_t za_[4], zb_[4], zo_[4];
  uint64_t out_bytes_;
};

}  // namespace cpuml_bench

#endif  // CPUML_BENCH_BENCH_SUPPORT_H_
