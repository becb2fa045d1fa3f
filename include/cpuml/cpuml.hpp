/**
 * @file cpuml.hpp
 * @brief A thin C++ layer over cpuml.h: an owning operator handle and status-to-exception
 * helpers. Header-only, no ABI of its own; the C API stays the contract.
 */
#ifndef CPUML_CPUML_HPP_
#define CPUML_CPUML_HPP_

#include <stdexcept>
#include <string>
#include <utility>

#include "cpuml/cpuml.h"

/** The C++ layer's namespace. */
namespace cpuml {

/** Thrown by the helpers below; carries the status and cpuml_last_error_message(). */
class Error : public std::runtime_error {
 public:
  /** Captures `status` and the calling thread's cpuml_last_error_message(). */
  explicit Error(cpuml_status status)
      : std::runtime_error(std::string(cpuml_status_string(status)) + ": " + cpuml_last_error_message()),
        status_(status) {}
  /** The failed call's status. */
  cpuml_status status() const noexcept { return status_; }

 private:
  cpuml_status status_;
};

/** Throws Error unless `status` is CPUML_STATUS_SUCCESS. */
inline void Check(cpuml_status status) {
  if (status != CPUML_STATUS_SUCCESS) throw Error(status);
}

/** Owns one cpuml_operator; move-only. */
class Operator {
 public:
  /** cpuml_create_operator; throws Error on failure. */
  explicit Operator(const CPUML_OPERATOR_DESC& desc) { Check(cpuml_create_operator(&desc, &op_)); }
  /** Takes `other`'s operator. */
  Operator(Operator&& other) noexcept : op_(std::exchange(other.op_, nullptr)) {}
  /** Destroys this operator and takes `other`'s. */
  Operator& operator=(Operator&& other) noexcept {
    if (this != &other) {
      cpuml_destroy_operator(op_);
      op_ = std::exchange(other.op_, nullptr);
    }
    return *this;
  }
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;
  /** cpuml_destroy_operator. */
  /** cpuml_destroy_operator. */
  ~Operator() { cpuml_destroy_operator(op_); }

  /** cpuml_initialize_operator; throws Error on failure. */
  void Initialize(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count) {
    Check(cpuml_initialize_operator(op_, inputs, input_count));
  }
  /** cpuml_execute_operator; throws Error on failure. Several threads may execute one operator
   *  at once. */
  void Execute(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
               uint32_t output_count, pthreadpool_t threadpool = nullptr) const {
    Check(cpuml_execute_operator(op_, inputs, input_count, outputs, output_count, threadpool));
  }
  /** cpuml_execute_operator_with_scratch: makes no heap allocation; concurrent callers need
   *  separate scratch. Throws Error on failure. */
  void Execute(const CPUML_BUFFER_BINDING* inputs, uint32_t input_count, const CPUML_BUFFER_BINDING* outputs,
               uint32_t output_count, const CPUML_BUFFER_BINDING& scratch, pthreadpool_t threadpool = nullptr) const {
    Check(cpuml_execute_operator_with_scratch(op_, inputs, input_count, outputs, output_count, &scratch, threadpool));
  }
  /** cpuml_get_binding_properties. */
  CPUML_BINDING_PROPERTIES BindingProperties() const {
    CPUML_BINDING_PROPERTIES properties;
    Check(cpuml_get_binding_properties(op_, &properties));
    return properties;
  }
  /** The C handle, for calls this class does not wrap. */
  cpuml_operator* get() const noexcept { return op_; }

 private:
  cpuml_operator* op_ = nullptr;
};

}  // namespace cpuml

#endif  // CPUML_CPUML_HPP_
