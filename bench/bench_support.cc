#include "bench/bench_support.h"

#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <iterator>

namespace cpuml_bench {

CpumlMatMul::CpumlMatMul(const MatMulData& d, bool a_signed, bool b_signed, bool out_signed, bool b_bound) : d_(d) {
  const auto s8 = CPUML_TENSOR_DATA_TYPE_INT8, u8 = CPUML_TENSOR_DATA_TYPE_UINT8;
  const uint32_t a_sizes[] = {1, 1, d.shape.m, d.shape.k}, b_sizes[] = {1, 1, d.shape.k, d.shape.n},
                 b_strides[] = {0, 0, 1, d.shape.k}, o_sizes[] = {1, 1, d.shape.m, d.shape.n}, one[] = {1, 1, 1, 1};
  const uint64_t mk = uint64_t{d.shape.m} * d.shape.k, kn = uint64_t{d.shape.k} * d.shape.n;
  out_bytes_ = (uint64_t{d.shape.m} * d.shape.n + 3) / 4 * 4;
  CPUML_BUFFER_TENSOR_DESC a{a_signed ? s8 : u8, CPUML_TENSOR_FLAG_NONE, 4, a_sizes, nullptr, (mk + 3) / 4 * 4, 0};
  CPUML_BUFFER_TENSOR_DESC b{b_signed ? s8 : u8, b_bound ? CPUML_TENSOR_FLAG_NONE : CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4,
                             b_sizes, b_bound ? nullptr : b_strides, (kn + 3) / 4 * 4, 0};
  if (b_bound) {
    b_kn_.resize((kn + 3) / 4 * 4);
    for (size_t kk = 0; kk < d.shape.k; ++kk)
      for (size_t j = 0; j < d.shape.n; ++j) b_kn_[kk * d.shape.n + j] = d.b_nk[j * d.shape.k + kk];
  }
  CPUML_BUFFER_TENSOR_DESC o{out_signed ? s8 : u8, CPUML_TENSOR_FLAG_NONE, 4, o_sizes, nullptr, out_bytes_, 0};
  CPUML_BUFFER_TENSOR_DESC f{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, one, nullptr, 4, 0};
  CPUML_BUFFER_TENSOR_DESC za{a.DataType, CPUML_TENSOR_FLAG_NONE, 4, one, nullptr, 4, 0};
  CPUML_BUFFER_TENSOR_DESC zb{b.DataType, CPUML_TENSOR_FLAG_NONE, 4, one, nullptr, 4, 0};
  CPUML_BUFFER_TENSOR_DESC zo{o.DataType, CPUML_TENSOR_FLAG_NONE, 4, one, nullptr, 4, 0};
  const CPUML_TENSOR_DESC ta{CPUML_TENSOR_TYPE_BUFFER, &a}, tb{CPUML_TENSOR_TYPE_BUFFER, &b},
      to{CPUML_TENSOR_TYPE_BUFFER, &o}, tf{CPUML_TENSOR_TYPE_BUFFER, &f}, tza{CPUML_TENSOR_TYPE_BUFFER, &za},
      tzb{CPUML_TENSOR_TYPE_BUFFER, &zb}, tzo{CPUML_TENSOR_TYPE_BUFFER, &zo};
  CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC desc{&ta, &tf, &tza, &tb, &tf, &tzb, &tf, &tzo, &to};
  CPUML_OPERATOR_DESC op_desc{CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &desc};
  za_[0] = static_cast<uint8_t>(d.a_zero_point);
  zb_[0] = static_cast<uint8_t>(d.b_zero_point);
  zo_[0] = static_cast<uint8_t>(d.out_zero_point);
  auto bind = [](const void* p, uint64_t n) { return CPUML_BUFFER_BINDING{const_cast<void*>(p), n}; };
  inputs_ = {bind(d.a.data(), a.TotalTensorSizeInBytes), bind(&d.a_scale, 4), bind(za_, 4),
             bind(b_bound ? b_kn_.data() : d.b_nk.data(), b.TotalTensorSizeInBytes), bind(&d.b_scale, 4), bind(zb_, 4),
             bind(&d.out_scale, 4), bind(zo_, 4)};
  if (cpuml_create_operator(&op_desc, &op_) != CPUML_STATUS_SUCCESS ||
      cpuml_initialize_operator(op_, inputs_.data(), 8) != CPUML_STATUS_SUCCESS) {
    fprintf(stderr, "cpuml setup failed: %s\n", cpuml_last_error_message());
    cpuml_destroy_operator(op_);
    op_ = nullptr;
  }
  if (!b_bound) inputs_[3] = {nullptr, 0};  // owned: not bound at execute
}

CpumlMatMul::~CpumlMatMul() { cpuml_destroy_operator(op_); }

cpuml_status CpumlMatMul::Run(uint8_t* out, pthreadpool_t pool, void* scratch) {
  const CPUML_BUFFER_BINDING o{out, out_bytes_};
  if (scratch == nullptr) return cpuml_execute_operator(op_, inputs_.data(), 8, &o, 1, pool);
  const CPUML_BUFFER_BINDING s{scratch, ScratchBytes()};
  return cpuml_execute_operator_with_scratch(op_, inputs_.data(), 8, &o, 1, &s, pool);
}

uint64_t CpumlMatMul::ScratchBytes() const {
  CPUML_BINDING_PROPERTIES properties{};
  cpuml_get_binding_properties(op_, &properties);
  return properties.TemporaryResourceSize;
}

std::string ShapeName(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
}

namespace {

BenchOptions g_options;

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> items;
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t end = std::min(list.find(',', begin), list.size());
    if (end > begin) items.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

bool ParseShapes(const std::string& list, std::vector<Shape>* shapes) {
  for (const std::string& item : SplitList(list)) {
    unsigned m, k, n;
    char tail;
    if (sscanf(item.c_str(), "%ux%ux%u%c", &m, &k, &n, &tail) != 3 || !m || !k || !n) {
      fprintf(stderr, "cpuml_bench: shape '%s' is not MxKxN with M, K, N > 0\n", item.c_str());
      return false;
    }
    shapes->push_back({m, k, n});
  }
  return true;
}

bool ParseTypes(const std::string& list, std::vector<std::string>* types) {
  for (const std::string& item : SplitList(list)) {
    if (item != "u8s8" && item != "u8u8" && item != "s8s8" && item != "s8u8" && item != "u8s7" && item != "u8u4" &&
        item != "s8u4" && item != "s8u4h" && item != "after") {
      fprintf(stderr, "cpuml_bench: types '%s' is not one of u8s8, u8u8, s8s8, s8u8, u8s7, u8u4, s8u4, s8u4h, after\n",
              item.c_str());
      return false;
    }
    types->push_back(item);
  }
  return true;
}

bool ParseThreads(const std::string& list, std::vector<int>* threads) {
  for (const std::string& item : SplitList(list)) {
    char* end;
    const long n = strtol(item.c_str(), &end, 10);
    if (*end || n < 1 || n > 1024) {
      fprintf(stderr, "cpuml_bench: thread count '%s' is not in 1..1024\n", item.c_str());
      return false;
    }
    threads->push_back(static_cast<int>(n));
  }
  return true;
}

}  // namespace

bool BenchOptions::Wants(const std::string& types_name) const {
  for (const std::string& t : types)
    if (t == types_name) return true;
  return false;
}

bool ParseBenchOptions(int* argc, char** argv) {
  std::string shapes, types, threads, models, model_layers;
  if (const char* env = getenv("CPUML_BENCH_SHAPES")) shapes = env;
  if (const char* env = getenv("CPUML_BENCH_MODEL_LAYERS")) model_layers = env;
  if (const char* env = getenv("CPUML_BENCH_MODELS")) models = env;
  if (const char* env = getenv("CPUML_BENCH_TYPES")) types = env;
  if (const char* env = getenv("CPUML_BENCH_THREADS")) threads = env;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--shapes=", 0) == 0) shapes = arg.substr(9);
    else if (arg.rfind("--types=", 0) == 0) types = arg.substr(8);
    else if (arg.rfind("--threads=", 0) == 0) threads = arg.substr(10);
    else if (arg.rfind("--models=", 0) == 0) models = arg.substr(9);
    else if (arg.rfind("--model-layers=", 0) == 0) model_layers = arg.substr(15);
    else argv[kept++] = argv[i];
  }
  for (const std::string& item : SplitList(models)) {
    if (item != "llama3_8b" && item != "phi3_mini") {
      fprintf(stderr, "cpuml_bench: model '%s' is not one of llama3_8b, phi3_mini\n", item.c_str());
      return false;
    }
    g_options.models.push_back(item);
  }
  if (!model_layers.empty()) {
    char* end = nullptr;
    const unsigned long layers = strtoul(model_layers.c_str(), &end, 10);
    if (*end || layers < 1 || layers > 64) {
      fprintf(stderr, "cpuml_bench: model layers '%s' is not a count from 1 to 64\n", model_layers.c_str());
      return false;
    }
    g_options.model_layers = static_cast<uint32_t>(layers);
  }
  *argc = kept;
  if (!ParseShapes(shapes, &g_options.shapes) || !ParseTypes(types, &g_options.types) ||
      !ParseThreads(threads, &g_options.threads))
    return false;
  if (g_options.shapes.empty()) g_options.shapes.assign(std::begin(kShapes), std::end(kShapes));
  if (g_options.types.empty()) g_options.types = {"u8s8", "u8u8", "s8s8", "s8u8", "u8s7"};
  if (g_options.threads.empty()) g_options.threads = {1, 2};
  return true;
}

const BenchOptions& Options() { return g_options; }

}  // namespace cpuml_bench
