// The 4-bit weight path's accuracy against a float64 reference, on data that ONNX Runtime can be
// run on too (bench/ort_node_nbits_accuracy.mjs reads what this writes; scripts/int4_accuracy.sh
// runs both and prints the table).
//   cpuml_int4_accuracy OUTDIR [MxKxN ...]   (default 1x4096x4096 16x4096x4096)
// Each shape runs at block 32 and 128 on two activation sets: "random", A ~ N(0, 1), and
// "outliers", the same with about 1% of the elements (fixed positions) multiplied by 50, the
// few large channels of real language-model activations that set a whole block's scale.
// B is 4-bit in ONNX Runtime MatMulNBits' layout with its default zero point 8; the reference
// multiplies the dequantized weights by the unquantized activations in double, so the errors
// printed are what quantizing A to int8 per row and block (MatMulNBits at accuracy_level 4) and
// float32 accumulation cost. Per case, OUTDIR/<MxKxN>_block<B>_<dataset>/ gets:
//   a.f32       A, M x K float32           b.u8     B, [N][K blocks][block / 2], low nibble = lower k
//   scales.f32  [N * K blocks] float32     ref.f64  the reference, M x N float64
//   cpuml.f32   cpuml's output, M x N      case.txt "M K N block dataset"
// all little-endian, and one line goes to stdout:
//   <case dir name>  max_rel=<max|y - ref| / max|ref|>  rms_rel=<sqrt(sum (y - ref)^2 / sum ref^2)>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cpuml/cpuml.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the case files are written in memory order");

namespace {

struct Case {
  uint32_t m, k, n, block;
  bool outliers;
  uint32_t blocks() const { return (k + block - 1) / block; }
  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + "_block" + std::to_string(block) +
           (outliers ? "_outliers" : "_random");
  }
};

struct CaseData {
  std::vector<float> a;       // M x K
  std::vector<uint8_t> b;     // MatMulNBits: [N][blocks][block / 2]
  std::vector<float> scales;  // [N][blocks]
  std::vector<double> ref;    // M x N
};

// The seeds depend on the shape and block only, so "random" and "outliers" share B and the
// scales and differ only in A's outliers.
CaseData Generate(const Case& c) {
  CaseData d;
  const uint32_t blocks = c.blocks(), padded_k = blocks * c.block;
  std::mt19937 rng(1000003u * c.m + 1009u * c.k + 17u * c.n + c.block);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  d.a.resize(size_t{c.m} * c.k);
  for (float& v : d.a) v = normal(rng);
  if (c.outliers) {
    std::mt19937 positions(77);
    for (float& v : d.a)
      if (positions() % 100 == 0) v *= 50.0f;
  }
  // Nibbles past K in a column's last block are 8 (zero after the zero point): the padding must
  // not count, whatever a kernel does with it.
  d.b.assign(size_t{c.n} * padded_k / 2, 0x88);
  for (uint32_t j = 0; j < c.n; ++j)
    for (uint32_t k = 0; k < c.k; ++k) {
      const uint8_t value = static_cast<uint8_t>(rng() >> 28);
      uint8_t& byte = d.b[(size_t{j} * padded_k + k) / 2];
      byte = k % 2 ? static_cast<uint8_t>((byte & 0x0F) | (value << 4)) : static_cast<uint8_t>((byte & 0xF0) | value);
    }
  std::uniform_real_distribution<float> scale(0.002f, 0.02f);
  d.scales.resize(size_t{c.n} * blocks);
  for (float& s : d.scales) s = scale(rng);

  // y_ref[m][n] = sum_k A[m][k] * (nibble - 8) * scale, every product and sum in double.
  d.ref.assign(size_t{c.m} * c.n, 0.0);
  std::vector<double> a(d.a.begin(), d.a.end()), w(c.k);
  for (uint32_t j = 0; j < c.n; ++j) {
    for (uint32_t k = 0; k < c.k; ++k) {
      const size_t o = size_t{j} * padded_k + k;
      const int nibble = (d.b[o / 2] >> (o % 2 * 4)) & 0xF;
      w[k] = static_cast<double>(nibble - 8) * static_cast<double>(d.scales[size_t{j} * blocks + k / c.block]);
    }
    for (uint32_t i = 0; i < c.m; ++i) {
      const double* row = &a[size_t{i} * c.k];
      double sum = 0.0;
      for (uint32_t k = 0; k < c.k; ++k) sum += row[k] * w[k];
      d.ref[size_t{i} * c.n + j] = sum;
    }
  }
  return d;
}

CPUML_TENSOR_DESC Tensor(const CPUML_BUFFER_TENSOR_DESC* buffer) { return {CPUML_TENSOR_TYPE_BUFFER, buffer}; }

bool Check(cpuml_status status, const char* what) {
  if (status == CPUML_STATUS_SUCCESS) return true;
  fprintf(stderr, "cpuml_int4_accuracy: %s: %s: %s\n", what, cpuml_status_string(status), cpuml_last_error_message());
  return false;
}

// MatMulNBits at accuracy_level 4 in cpuml: DYNAMIC_QUANTIZE_LINEAR of A, symmetric INT8 per row
// and block, then MATRIX_MULTIPLY_INTEGER_TO_FLOAT with B bound N x K through its strides, B's
// scales per block and column and an explicit zero point 8 (MatMulNBits' default).
bool RunCpuml(const Case& c, const CaseData& d, std::vector<float>* y) {
  const uint32_t blocks = c.blocks(), padded_k = blocks * c.block;
  const uint32_t zero_point_stride = (blocks + 1) / 2 * 2;  // nibbles: each column starts on a byte
  const uint64_t mk = uint64_t{c.m} * c.k;
  // TotalTensorSizeInBytes covers the last element's byte, rounded up to 4; the vectors are
  // copied so that the binding may be that long.
  const uint64_t b_bytes = ((uint64_t{c.n} - 1) * padded_k + c.k + 1) / 2;
  std::vector<uint8_t> b(std::max<uint64_t>(d.b.size(), (b_bytes + 3) / 4 * 4), 0x88);
  std::copy(d.b.begin(), d.b.end(), b.begin());
  std::vector<uint8_t> b_zero_point((size_t{c.n} * zero_point_stride / 2 + 3) / 4 * 4, 0x88);
  std::vector<float> b_scales = d.scales, a = d.a, a_scales(size_t{c.m} * blocks);
  std::vector<int8_t> qa((mk + 3) / 4 * 4);
  y->assign(size_t{c.m} * c.n, 0.0f);

  const uint32_t a_sizes[] = {1, 1, c.m, c.k}, a_scale_sizes[] = {1, 1, c.m, blocks}, b_sizes[] = {1, 1, c.k, c.n},
                 b_strides[] = {0, 0, 1, padded_k}, block_sizes[] = {1, 1, blocks, c.n},
                 scale_strides[] = {0, 0, 1, blocks}, zero_strides[] = {0, 0, 1, zero_point_stride},
                 y_sizes[] = {1, 1, c.m, c.n};
  const CPUML_BUFFER_TENSOR_DESC
      x_desc{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, a_sizes, nullptr, mk * 4, 0},
      qa_desc{CPUML_TENSOR_DATA_TYPE_INT8, CPUML_TENSOR_FLAG_NONE, 4, a_sizes, nullptr, qa.size(), 0},
      a_scale_desc{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, a_scale_sizes, nullptr,
                   a_scales.size() * 4, 0},
      b_desc{CPUML_TENSOR_DATA_TYPE_UINT4, CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4, b_sizes, b_strides, b.size(), 0},
      b_scale_desc{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4, block_sizes, scale_strides,
                   b_scales.size() * 4, 0},
      b_zero_desc{CPUML_TENSOR_DATA_TYPE_UINT4, CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4, block_sizes, zero_strides,
                  b_zero_point.size(), 0},
      y_desc{CPUML_TENSOR_DATA_TYPE_FLOAT32, CPUML_TENSOR_FLAG_NONE, 4, y_sizes, nullptr, y->size() * 4, 0};
  const CPUML_TENSOR_DESC x_t = Tensor(&x_desc), qa_t = Tensor(&qa_desc), a_scale_t = Tensor(&a_scale_desc),
                          b_t = Tensor(&b_desc), b_scale_t = Tensor(&b_scale_desc), b_zero_t = Tensor(&b_zero_desc),
                          y_t = Tensor(&y_desc);
  const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC quantize_desc{&x_t, &qa_t, &a_scale_t, nullptr};
  const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC matmul_desc{&qa_t,      &a_scale_t, nullptr, &b_t,
                                                                         &b_scale_t, &b_zero_t,  nullptr, &y_t};
  const CPUML_OPERATOR_DESC quantize_op{CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &quantize_desc},
      matmul_op{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &matmul_desc};

  cpuml_operator *quantize = nullptr, *matmul = nullptr;
  CPUML_BUFFER_BINDING inputs[] = {{qa.data(), qa.size()},
                                   {a_scales.data(), a_scales.size() * 4},
                                   {nullptr, 0},
                                   {b.data(), b.size()},
                                   {b_scales.data(), b_scales.size() * 4},
                                   {b_zero_point.data(), b_zero_point.size()},
                                   {nullptr, 0}};
  const CPUML_BUFFER_BINDING x_binding{a.data(), mk * 4};
  const CPUML_BUFFER_BINDING quantized[] = {inputs[0], inputs[1], {nullptr, 0}};
  const CPUML_BUFFER_BINDING y_binding{y->data(), y->size() * 4};
  bool ok = Check(cpuml_create_operator(&quantize_op, &quantize), "create DYNAMIC_QUANTIZE_LINEAR") &&
            Check(cpuml_create_operator(&matmul_op, &matmul), "create MATRIX_MULTIPLY_INTEGER_TO_FLOAT") &&
            Check(cpuml_initialize_operator(matmul, inputs, 7), "initialize MATRIX_MULTIPLY_INTEGER_TO_FLOAT");
  inputs[3] = inputs[4] = inputs[5] = {nullptr, 0};  // owned: read at initialize only
  ok = ok && Check(cpuml_execute_operator(quantize, &x_binding, 1, quantized, 3, nullptr), "DYNAMIC_QUANTIZE_LINEAR") &&
       Check(cpuml_execute_operator(matmul, inputs, 7, &y_binding, 1, nullptr), "MATRIX_MULTIPLY_INTEGER_TO_FLOAT");
  cpuml_destroy_operator(quantize);
  cpuml_destroy_operator(matmul);
  return ok;
}

bool WriteFile(const std::filesystem::path& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (out) return true;
  fprintf(stderr, "cpuml_int4_accuracy: cannot write %s\n", path.c_str());
  return false;
}

bool WriteCase(const std::filesystem::path& dir, const Case& c, const CaseData& d) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string text = std::to_string(c.m) + " " + std::to_string(c.k) + " " + std::to_string(c.n) + " " +
                           std::to_string(c.block) + " " + (c.outliers ? "outliers" : "random") + "\n";
  return WriteFile(dir / "a.f32", d.a.data(), d.a.size() * 4) && WriteFile(dir / "b.u8", d.b.data(), d.b.size()) &&
         WriteFile(dir / "scales.f32", d.scales.data(), d.scales.size() * 4) &&
         WriteFile(dir / "ref.f64", d.ref.data(), d.ref.size() * 8) && WriteFile(dir / "case.txt", text.data(), text.size());
}

bool ParseShape(const char* text, Case* c) {
  unsigned m = 0, k = 0, n = 0;
  char end = 0;
  if (sscanf(text, "%ux%ux%u%c", &m, &k, &n, &end) != 3 || !m || !k || !n) return false;
  c->m = m;
  c->k = k;
  c->n = n;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s OUTDIR [MxKxN ...]\n", argv[0]);
    return 2;
  }
  std::vector<Case> shapes;
  for (int i = 2; i < argc; ++i) {
    Case c{};
    if (!ParseShape(argv[i], &c)) {
      fprintf(stderr, "cpuml_int4_accuracy: not a shape MxKxN: %s\n", argv[i]);
      return 2;
    }
    shapes.push_back(c);
  }
  if (shapes.empty()) shapes = {{1, 4096, 4096, 0, false}, {16, 4096, 4096, 0, false}};
  const std::filesystem::path out_dir(argv[1]);
  for (Case c : shapes)
    for (uint32_t block : {32u, 128u})
      for (bool outliers : {false, true}) {
        c.block = block;
        c.outliers = outliers;
        const CaseData d = Generate(c);
        std::vector<float> y;
        if (!WriteCase(out_dir / c.name(), c, d) || !RunCpuml(c, d, &y) ||
            !WriteFile(out_dir / c.name() / "cpuml.f32", y.data(), y.size() * 4))
          return 1;
        double max_error = 0.0, max_ref = 0.0, error2 = 0.0, ref2 = 0.0;
        for (size_t i = 0; i < y.size(); ++i) {
          const double e = static_cast<double>(y[i]) - d.ref[i];
          max_error = std::max(max_error, fabs(e));
          max_ref = std::max(max_ref, fabs(d.ref[i]));
          error2 += e * e;
          ref2 += d.ref[i] * d.ref[i];
        }
        printf("%s  max_rel=%.3e  rms_rel=%.3e\n", c.name().c_str(), max_error / max_ref, sqrt(error2 / ref2));
        fflush(stdout);
      }
  return 0;
}
