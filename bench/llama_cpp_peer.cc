// llama.cpp's 4-bit matmul as a peer: ggml's CPU backend multiplying Q4_0 weights (blocks of 32,
// a float16 scale each, value - 8) by float activations, which ggml quantizes to Q8_0 (blocks of
// 32, symmetric) inside mul_mat, as llama.cpp's decode and prefill do. Built by
// scripts/bench_llama_cpp.sh against the ggml it unpacks from the npm registry's node-llama-cpp;
// not part of the library's build.
//   llama_cpp_peer THREADS MxKxN [MxKxN ...]
// prints per shape: llama_cpp_q4_0/MxKxN/threads:T  us=<median>  GOPS=<2MKN / median>
// and, per shape, whether the output's bytes equal those of the same product at one thread.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "ggml-cpu.h"
#include "ggml.h"

namespace {

struct Shape {
  int64_t m, k, n;
};

// One product on a thread pool of `threads`, timed; the output copied to `out`.
double TimeProduct(const Shape& s, int threads, std::vector<float>* out) {
  const size_t weight_bytes = ggml_row_size(GGML_TYPE_Q4_0, s.k) * s.n;
  ggml_init_params params = {weight_bytes + (s.m * s.k + s.m * s.n) * sizeof(float) + (size_t{16} << 20), nullptr,
                             false};
  ggml_context* ctx = ggml_init(params);
  ggml_tensor* w = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, s.k, s.n);  // N rows of K
  ggml_tensor* x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, s.k, s.m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  {
    std::vector<float> weights(static_cast<size_t>(s.k * s.n));
    for (float& v : weights) v = uniform(rng);
    ggml_quantize_chunk(GGML_TYPE_Q4_0, weights.data(), w->data, 0, s.n, s.k, nullptr);
  }
  float* xs = static_cast<float*>(x->data);
  for (int64_t i = 0; i < s.m * s.k; ++i) xs[i] = uniform(rng);
  ggml_tensor* y = ggml_mul_mat(ctx, w, x);  // N x M, row i of the output = column i here
  ggml_cgraph* graph = ggml_new_graph(ctx);
  ggml_build_forward_expand(graph, y);

  ggml_threadpool_params pool_params = ggml_threadpool_params_default(threads);
  ggml_threadpool* pool = ggml_threadpool_new(&pool_params);
  ggml_cplan plan = ggml_graph_plan(graph, threads, pool);
  std::vector<uint8_t> work(plan.work_size);
  plan.work_data = work.data();
  for (int i = 0; i < 3; ++i) ggml_graph_compute(graph, &plan);
  // Batches of at least 0.2 s, the median batch's time per product.
  std::vector<double> per_product;
  for (int batch = 0; batch < 5; ++batch) {
    int reps = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      ggml_graph_compute(graph, &plan);
      ++reps;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < 0.2);
    per_product.push_back(elapsed / reps);
  }
  std::sort(per_product.begin(), per_product.end());
  const float* ys = static_cast<const float*>(y->data);
  out->assign(ys, ys + s.m * s.n);
  ggml_threadpool_free(pool);
  ggml_free(ctx);
  return per_product[per_product.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s THREADS MxKxN [MxKxN ...]\n", argv[0]);
    return 2;
  }
  ggml_cpu_init();
  const int threads = atoi(argv[1]);
  for (int i = 2; i < argc; ++i) {
    Shape s;
    long long m, k, n;
    if (sscanf(argv[i], "%lldx%lldx%lld", &m, &k, &n) != 3 || m < 1 || k < 32 || n < 1 || k % 32) {
      fprintf(stderr, "llama_cpp_peer: bad shape %s (K a multiple of 32)\n", argv[i]);
      return 2;
    }
    s = {m, k, n};
    std::vector<float> out, one_thread;
    const double seconds = TimeProduct(s, threads, &out);
    const char* same = "";
    if (threads > 1) {
      TimeProduct(s, 1, &one_thread);
      same = memcmp(out.data(), one_thread.data(), out.size() * sizeof(float)) == 0 ? "  bytes: as at 1 thread"
                                                                                     : "  bytes: differ from 1 thread";
    }
    printf("llama_cpp_q4_0/%lldx%lldx%lld/threads:%d  us=%.1f  GOPS=%.1f%s\n", m, k, n, threads, seconds * 1e6,
           2.0 * m * k * n / seconds / 1e9, same);
    fflush(stdout);
  }
  return 0;
}
