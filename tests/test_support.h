// Shared helpers for the conformance tests: tensor descriptors that own their arrays, guarded
// buffers with canary bytes, tier parameterization, and the sweep size for emulated runs.
#ifndef CPUML_TESTS_TEST_SUPPORT_H_
#define CPUML_TESTS_TEST_SUPPORT_H_

#include <gtest/gtest.h>
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpuml/cpuml.h"
#include "kernels/registry.h"
#include "tests/reference/reference.h"

namespace cpuml_test {

// A buffer tensor descriptor that owns its Sizes/Strides; copyable pointers stay valid.
class TensorDesc {
 public:
  TensorDesc(CPUML_TENSOR_DATA_TYPE type, std::vector<uint32_t> sizes, std::vector<uint32_t> strides = {},
             CPUML_TENSOR_FLAGS flags = CPUML_TENSOR_FLAG_NONE)
      : sizes_(std::move(sizes)), strides_(std::move(strides)) {
    buffer_.DataType = type;
    buffer_.Flags = flags;
    buffer_.DimensionCount = static_cast<uint32_t>(sizes_.size());
    buffer_.Sizes = sizes_.data();
    buffer_.Strides = strides_.empty() ? nullptr : strides_.data();
    buffer_.TotalTensorSizeInBytes = MinimumBytes();
    buffer_.GuaranteedBaseOffsetAlignment = 0;
    desc_.Type = CPUML_TENSOR_TYPE_BUFFER;
    desc_.Desc = &buffer_;
  }
  TensorDesc(const TensorDesc& other) : TensorDesc(other.buffer_.DataType, other.sizes_, other.strides_, other.buffer_.Flags) {
    buffer_.TotalTensorSizeInBytes = other.buffer_.TotalTensorSizeInBytes;
    buffer_.GuaranteedBaseOffsetAlignment = other.buffer_.GuaranteedBaseOffsetAlignment;
  }
  TensorDesc& operator=(const TensorDesc&) = delete;

  const CPUML_TENSOR_DESC* get() const { return &desc_; }
  CPUML_BUFFER_TENSOR_DESC& buffer() { return buffer_; }
  const CPUML_BUFFER_TENSOR_DESC& buffer() const { return buffer_; }
  CPUML_TENSOR_DATA_TYPE type() const { return buffer_.DataType; }
  size_t element_size() const { return cpuml::DataTypeSize(buffer_.DataType); }
  uint32_t rank() const { return static_cast<uint32_t>(sizes_.size()); }
  const std::vector<uint32_t>& sizes() const { return sizes_; }

  std::vector<uint64_t> Strides() const {
    std::vector<uint64_t> s(sizes_.size());
    uint64_t packed = 1;
    for (size_t d = sizes_.size(); d-- > 0;) {
      s[d] = strides_.empty() ? packed : strides_[d];
      packed *= sizes_[d];
    }
    return s;
  }
  uint64_t ElementCount() const {
    uint64_t n = 1;
    for (uint32_t s : sizes_) n *= s;
    return n;
  }
  // DirectML's rule, computed independently of the library.
  uint64_t MinimumBytes() const {
    const auto s = Strides();
    uint64_t last = 0;
    for (size_t d = 0; d < sizes_.size(); ++d) last += (sizes_[d] - 1) * s[d];
    if (type() == CPUML_TENSOR_DATA_TYPE_UINT4 || type() == CPUML_TENSOR_DATA_TYPE_INT4)
      return ((last + 2) / 2 + 3) / 4 * 4;  // two elements a byte
    return ((last + 1) * element_size() + 3) / 4 * 4;
  }

 private:
  std::vector<uint32_t> sizes_, strides_;
  CPUML_BUFFER_TENSOR_DESC buffer_;
  CPUML_TENSOR_DESC desc_;
};

// Memory for one tensor with canary bytes on both sides, 64-byte aligned data.
class GuardedBuffer {
 public:
  static constexpr size_t kGuard = 64;
  static constexpr uint8_t kCanary = 0xA5;
  explicit GuardedBuffer(uint64_t bytes, uint8_t fill = 0xCD) : bytes_(bytes), storage_(bytes + 2 * kGuard + 64) {
    base_ = kGuard + (64 - reinterpret_cast<uintptr_t>(storage_.data() + kGuard) % 64) % 64;
    memset(storage_.data(), kCanary, storage_.size());
    std::fill(storage_.begin() + static_cast<ptrdiff_t>(base_), storage_.begin() + static_cast<ptrdiff_t>(base_ + bytes_), fill);
  }
  uint8_t* data() { return storage_.data() + base_; }
  const uint8_t* data() const { return storage_.data() + base_; }
  uint64_t size() const { return bytes_; }
  bool CanariesIntact() const {
    for (size_t i = 0; i < base_; ++i)
      if (storage_[i] != kCanary) return false;
    for (size_t i = base_ + bytes_; i < storage_.size(); ++i)
      if (storage_[i] != kCanary) return false;
    return true;
  }
  CPUML_BUFFER_BINDING Binding() { return {data(), bytes_}; }
  std::vector<uint8_t> Bytes() const { return std::vector<uint8_t>(data(), data() + bytes_); }

 private:
  uint64_t bytes_;
  std::vector<uint8_t> storage_;
  size_t base_;
};

// An honest binding of `bytes` bytes, larger than physical memory if need be: pages are mapped
// only when touched (MAP_NORESERVE), so size arithmetic can be tested at any scale.
class VirtualBuffer {
 public:
  explicit VirtualBuffer(uint64_t bytes) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
    if (data_) madvise(data_, bytes_, MADV_NOHUGEPAGE);  // one touched byte maps one small page
  }
  ~VirtualBuffer() {
    if (data_) munmap(data_, bytes_);
  }
  VirtualBuffer(const VirtualBuffer&) = delete;
  VirtualBuffer& operator=(const VirtualBuffer&) = delete;
  uint8_t* data() const { return data_; }
  CPUML_BUFFER_BINDING Binding() const { return {data_, bytes_}; }
  // Pages that have been touched since the mapping was made (a write maps a page in).
  uint64_t ResidentPages() const {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> residency((bytes_ + page - 1) / page);
    if (mincore(data_, bytes_, residency.data()) != 0) return UINT64_MAX;
    uint64_t n = 0;
    for (unsigned char r : residency) n += r & 1;
    return n;
  }

 private:
  uint64_t bytes_;
  uint8_t* data_;
};

inline cpuml::reference::TensorView View(const TensorDesc& desc, const std::vector<uint64_t>& strides, void* data) {
  return {desc.type(), desc.rank(), desc.sizes().data(), strides.data(), data};
}

// Tiers of this architecture, from the registry; tests run once per tier and skip (saying so)
// where the CPU lacks it.
inline std::vector<cpuml_isa> AllTiers() {
#define CPUML_TEST_TIER(ns, isa, name, arch, gemm_check, fill_check) CPUML_IF_##arch(isa, )
  return {CPUML_TIERS(CPUML_TEST_TIER)};
#undef CPUML_TEST_TIER
}

// The highest tier this CPU and build support: the one dispatch picks uncapped.
inline cpuml_isa BestTier() {
  cpuml_isa best = CPUML_ISA_SCALAR;
  for (cpuml_isa tier : AllTiers())
    if (cpuml_is_isa_supported(tier)) best = tier;
  return best;
}

inline std::string TierName(const testing::TestParamInfo<cpuml_isa>& info) { return cpuml_isa_name(info.param); }

// Base fixture: caps the ISA at the parameter for operators the test creates, and puts the cap
// that was in force back afterwards.
// Everything written to stderr (fd 2) between construction and Finish(), e.g. the verbose log.
class StderrCapture {
 public:
  StderrCapture() : file_(tmpfile()) {
    fflush(stderr);
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  std::string Finish() {
    fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    std::string text;
    rewind(file_);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, file_)) > 0;) text.append(buf, n);
    fclose(file_);
    return text;
  }

 private:
  FILE* file_;
  int saved_;
};

class TierTest : public testing::TestWithParam<cpuml_isa> {
 protected:
  void SetUp() override {
    if (!cpuml_is_isa_supported(GetParam()))
      GTEST_SKIP() << "tier " << cpuml_isa_name(GetParam()) << " is not supported by this CPU or build";
    previous_cap_ = cpuml_get_max_isa();
    capped_ = true;
    ASSERT_EQ(cpuml_set_max_isa(GetParam()), CPUML_STATUS_SUCCESS);
    ASSERT_EQ(cpuml_get_isa(), GetParam());
  }
  void TearDown() override {
    if (capped_) {
      EXPECT_EQ(cpuml_set_max_isa(previous_cap_), CPUML_STATUS_SUCCESS);
    }
  }
  cpuml_isa previous_cap_ = CPUML_ISA_SCALAR;
  bool capped_ = false;
};

// CPUML_TEST_EMULATED=1: the suite runs under qemu-user (scripts/test.sh sets it), where the
// few tests whose work is fixed by a size limit (tens of millions of products) take the emulated
// CPU's own tier only.
inline bool Emulated() {
  const char* e = getenv("CPUML_TEST_EMULATED");
  return e != nullptr && strcmp(e, "1") == 0;
}

// CPUML_TEST_SWEEP=reduced shrinks random sweeps for emulated runs (every tile remainder stays).
inline bool ReducedSweep() {
  const char* s = getenv("CPUML_TEST_SWEEP");
  return s && strcmp(s, "reduced") == 0;
}

// A thread pool of `threads` workers, or NULL (the calling thread) for 1. CPUML_TEST_MAX_THREADS
// caps it: qemu-user livelocks pthreadpool's spin waits on CPUs without LSE atomics, so the
// emulated Arm runs use 1 (the threading code is architecture-neutral and runs natively).
inline int CapThreads(int threads) {
  if (const char* cap = getenv("CPUML_TEST_MAX_THREADS")) threads = std::max(1, std::min(threads, atoi(cap)));
  return threads;
}
// CPUML_TEST_NO_POOL=1 runs everything on callers' threads (the ThreadSanitizer job: Debian's
// libpthreadpool is not instrumented, so TSan cannot see its hand-offs).
inline pthreadpool_t CreatePool(int threads) {
  if (const char* no_pool = getenv("CPUML_TEST_NO_POOL"); no_pool && strcmp(no_pool, "1") == 0) return nullptr;
  threads = CapThreads(threads);
  return threads > 1 ? pthreadpool_create(static_cast<size_t>(threads)) : nullptr;
}
inline void DestroyPool(pthreadpool_t pool) {
  if (pool) pthreadpool_destroy(pool);
}

// Runs body(t) for callers t = 0..count-1, each on its own thread, all at once. Under
// CPUML_TEST_MAX_THREADS=1 (emulated Arm: qemu-aarch64 livelocks threads on CPUs without LSE
// atomics) they take turns on this thread instead.
inline bool CallersOverlap(int count) { return CapThreads(count) > 1; }
template <class Body>
void OnCallerThreads(int count, Body&& body) {
  if (!CallersOverlap(count)) {
    for (int t = 0; t < count; ++t) body(t);
    return;
  }
  std::vector<std::thread> callers;
  for (int t = 0; t < count; ++t) callers.emplace_back(body, t);
  for (auto& c : callers) c.join();
}

struct OperatorDeleter {
  void operator()(cpuml_operator* op) const { cpuml_destroy_operator(op); }
};
using OperatorPtr = std::unique_ptr<cpuml_operator, OperatorDeleter>;

}  // namespace cpuml_test

#endif  // CPUML_TESTS_TEST_SUPPORT_H_
