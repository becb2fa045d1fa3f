// A thin C++ layer over cpuml.h: an owning operator handle and status-to-exception helpers.
// Header-only, no ABI of its own; the C API stays the contract.
#ifndef CPUML_CPUML_HPP_
#define CPUML_CPUML_HPP_

#include <stdexcept>
#include <string>
#include <utility>

#include "cpuml/cpuml.h"

namespace cpuml {

// Thrown by the helpers below; carries the status and cpuml_last_error_message().
class Error : public std::runtime_error {
 public:
  explicit Error(cpuml_status status)
      : std::runtime_error(std::string(cpuml_status_string(status)) + ": " + cpuml_last_error_message()),
        status_(status) {}
  cpuml_status status() const noexcept { return status_; }

 private:
  cpuml_status status_;
};

inline void Check(cpuml_status status) {
  if (status != CPUML_STATUS_SUCCESS) throw Error(status);
}

// Owns one cpuml_operator; move-only.
class Operator {
 public:
  explicit Operator(const CPUML_OPERATOR_DESC& desc) { Check(cpuml_create_operator(&desc, &op_)); }
  Operator(Operator&& other) noexcept : op_(std::exchange(other.op_, nullptr)) {}
  Operator& operator=(Operator&& other) noexcept {
    if (this != &other) {
      cpuml_destroy_operator(op_);
      op_ = std::exchange(other.op_, nullptr);
    }
    return *this;
  }
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;
  ~Operator() { cpuml_destroy_operator(op_); }

  void Initialize(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count) {
    Check(cpuml_initialize_operator(op_, inputs, input_count));
  }
  // Thread-safe: several threads may execute one operator at once.
  void Execute(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
               uint32_t output_count, pthreadpool_t threadpool = nullptr) const {
    Check(cpuml_execute_operator(op_, inputs, input_count, outputs, output_count, threadpool));
  }
  // Thread-safe with separate scratch per caller; makes no heap allocation.
  void Execute(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
               uint32_t output_count, const CPUML_BUFFER_BINDING& scratch, pthreadpool_t threadpool = nullptr) const {
    Check(cpuml_execute_operator_with_scratch(op_, inputs, input_count, outputs, output_count, &scratch, threadpool));
  }
  CPUML_BINDING_PROPERTIES BindingProperties() const {
    CPUML_BINDING_PROPERTIES properties;
    Check(cpuml_get_binding_properties(op_, &properties));
    return properties;
  }
  cpuml_operator* get() const noexcept { return op_; }

 private:
  cpuml_operator* op_ = nullptr;
};

}  // namespace cpuml

#endif  // CPUML_CPUML_HPP_
