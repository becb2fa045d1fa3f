#include "bench/bench_support.h"

#include <stdio.h>

namespace cpuml_bench {

CpumlMatMul::CpumlMatMul(const MatMulData& d, bool a_signed, bool b_signed, bool out_signed) : d_(d) {
  const auto s8 = CPUML_TENSOR_DATA_TYPE_INT8, u8 = CPUML_TENSOR_DATA_TYPE_UINT8;
  const uint32_t a_sizes[] = {1, 1, d.shape.m, d.shape.k}, b_sizes[] = {1, 1, d.shape.k, d.shape.n},
                 b_strides[] = {0, 0, 1, d.shape.k}, o_sizes[] = {1, 1, d.shape.m, d.shape.n}, one[] = {1, 1, 1, 1};
  const uint64_t mk = uint64_t{d.shape.m} * d.shape.k, kn = uint64_t{d.shape.k} * d.shape.n;
  out_bytes_ = (uint64_t{d.shape.m} * d.shape.n + 3) / 4 * 4;
  CPUML_BUFFER_TENSOR_DESC a{a_signed ? s8 : u8, CPUML_TENSOR_FLAG_NONE, 4, a_sizes, nullptr, (mk + 3) / 4 * 4, 0};
  CPUML_BUFFER_TENSOR_DESC b{b_signed ? s8 : u8, CPUML_TENSOR_FLAG_OWNED_BY_CPUML, 4, b_sizes, b_strides, (kn + 3) / 4 * 4, 0};
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
             bind(d.b_nk.data(), b.TotalTensorSizeInBytes), bind(&d.b_scale, 4), bind(zb_, 4),
             bind(&d.out_scale, 4), bind(zo_, 4)};
  if (cpuml_create_operator(&op_desc, &op_) != CPUML_STATUS_SUCCESS ||
      cpuml_initialize_operator(op_, inputs_.data(), 8) != CPUML_STATUS_SUCCESS) {
    fprintf(stderr, "cpuml setup failed: %s\n", cpuml_last_error_message());
    cpuml_destroy_operator(op_);
    op_ = nullptr;
  }
  inputs_[3] = {nullptr, 0};  // owned: not bound at execute
}

CpumlMatMul::~CpumlMatMul() { cpuml_destroy_operator(op_); }

cpuml_status CpumlMatMul::Run(uint8_t* out, pthreadpool_t pool) {
  const CPUML_BUFFER_BINDING o{out, out_bytes_};
  return cpuml_execute_operator(op_, inputs_.data(), 8, &o, 1, pool);
}

}  // namespace cpuml_bench
