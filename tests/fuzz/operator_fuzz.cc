// libFuzzer target over the whole C API: create, initialize and execute of every operator (the
// fills, QUANTIZED_LINEAR_MATRIX_MULTIPLY, MATRIX_MULTIPLY_INTEGER,
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT, DYNAMIC_QUANTIZE_LINEAR) with hostile descriptors and
// bindings exactly as large as the descriptors declare, including virtual bindings far beyond
// physical memory (MAP_NORESERVE), so size-arithmetic bugs are reachable. Checked on every input:
//   - no access outside a binding: the bytes of a heap binding's allocation around it (its
//     rounding, and the room that keeps an alignment promise deterministic) are poisoned under
//     AddressSanitizer and hold canaries that must survive;
//   - a failed call writes nothing (outputs keep their bytes; a large output keeps every page
//     unmapped) and leaves a message;
//   - an accepted operator of small work gives exactly the scalar reference's bytes.
// The three operators added in 0.2 are also executed with caller scratch (exact, or short,
// misaligned or NULL, which must be refused; guarded like the bindings), with an output bound
// over an input or another output (which must be refused), and their inputs must keep their
// bytes. The rules of an accepted descriptor are checked independently of the library.
// The same function replays the seed corpus as an ordinary test (corpus_replay.cc).
#include <float.h>
#include <math.h>
#include <pthreadpool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "cpuml/cpuml.h"
#include "kernels/common/half.h"
#include "kernels/registry.h"
#include "tests/reference/reference.h"

#if defined(__SANITIZE_ADDRESS__)
#define CPUML_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPUML_FUZZ_ASAN 1
#endif
#endif
#ifdef CPUML_FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

// Outcomes over all inputs run so far (corpus_replay.cc prints them).
struct FuzzStats {
  uint64_t inputs, created, failed_execute, compared;
} g_fuzz_stats;

namespace {

// Bindings up to this size are ordinary heap blocks (checked byte for byte); larger ones are
// MAP_NORESERVE mappings (checked by page residency).
constexpr uint64_t kHeapBindingLimit = 1u << 20;
// Accepted operators execute only when their work is small: the fuzzer must stay fast and its
// memory bounded even when a descriptor addresses terabytes.
constexpr uint64_t kMaxExecutedElements = 1u << 16;
constexpr uint64_t kMaxExecutedMacs = 1u << 22;
constexpr uint64_t kMaxReferenceElements = 1u << 14;
// Nor is an operator initialized whose owned inputs it would keep in more than this: an owned
// input other than B is copied whole, its strides' reach, which a few elements far apart make
// gigabytes (read from an untouched mapping, so the copy alone takes seconds and the memory).
constexpr uint64_t kMaxPersistentBytes = uint64_t{64} << 20;

[[noreturn]] void Fail(const char* what) {
  fprintf(stderr, "cpuml fuzz: %s (last message: %s)\n", what, cpuml_last_error_message());
  abort();
}
#define FUZZ_CHECK(condition) \
  do {                        \
    if (!(condition)) Fail(#condition); \
  } while (0)

// Reads the fuzzer's bytes as a stream of choices; past the end every read is 0.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(Byte()) << (8 * i);
    return v;
  }
  uint64_t U64() { return U32() | (static_cast<uint64_t>(U32()) << 32); }
  // Mostly small sizes, sometimes the extremes a hostile descriptor would pick.
  uint32_t Size() {
    const uint8_t mode = Byte();
    switch (mode >> 5) {
      case 0: case 1: case 2: case 3: return 1 + (mode & 7);
      case 4: return 1 + (mode & 31) * 3;
      case 5: return static_cast<uint32_t>(65535 + (mode & 3));
      case 6: return U32();
      default: return 0xFFFFFFFFu - (mode & 3);
    }
  }
  uint32_t Stride() {
    const uint8_t mode = Byte();
    switch (mode >> 6) {
      case 0: return 0;
      case 1: return 1 + (mode & 15);
      case 2: return 1u << (mode & 31);
      default: return U32();
    }
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

size_t ElementSize(int32_t type) {
  switch (type) {
    case CPUML_TENSOR_DATA_TYPE_FLOAT32: case CPUML_TENSOR_DATA_TYPE_UINT32: case CPUML_TENSOR_DATA_TYPE_INT32:
      return 4;
    case CPUML_TENSOR_DATA_TYPE_FLOAT16: case CPUML_TENSOR_DATA_TYPE_UINT16: case CPUML_TENSOR_DATA_TYPE_INT16:
      return 2;
    default:
      return 1;
  }
}

// One tensor descriptor as the fuzzer wrote it, plus what the harness derives from it
// independently of the library.
struct FuzzTensor {
  uint32_t sizes[16] = {}, strides[16] = {};  // room past the 8 dimensions a hostile rank names
  CPUML_BUFFER_TENSOR_DESC buffer{};
  CPUML_TENSOR_DESC desc{};
  bool sane = false;          // sizes > 0 and the addressed range fits 64 bits
  uint64_t elements = 0;      // saturates at UINT64_MAX
  uint64_t minimum_bytes = 0; // DirectML's rule
  uint64_t effective_strides[8] = {};

  // `forced` (with `forced_rank` entries): sizes the harness derived from other members, so that
  // consistent descriptors are common; the rank and sizes are then not read from the input.
  void Read(Input& in, int32_t type, uint32_t min_rank, uint32_t max_rank, const uint32_t* forced = nullptr,
            uint32_t forced_rank = 0) {
    const uint8_t shape = in.Byte();
    // A hostile type, flag or rank now and then; the intended ones mostly.
    int32_t raw_type = type;
    if ((shape & 0xF0) == 0xF0) raw_type = static_cast<int32_t>(in.U32());
    else if ((shape & 0xF0) == 0xE0) raw_type = 1 + in.Byte() % 13;
    memcpy(&buffer.DataType, &raw_type, sizeof raw_type);
    int32_t flags = (shape & 1) ? CPUML_TENSOR_FLAG_OWNED_BY_CPUML : CPUML_TENSOR_FLAG_NONE;
    if ((shape & 0x0E) == 0x0E) flags = static_cast<int32_t>(in.U32());
    memcpy(&buffer.Flags, &flags, sizeof flags);
    uint32_t rank = forced_rank;
    if (!forced) {
      rank = min_rank + in.Byte() % (max_rank - min_rank + 1);
      if ((shape & 0x06) == 0x06) rank = in.Byte() % 10;
    }
    buffer.DimensionCount = rank;
    const bool given_strides = (shape & 0x10) != 0;
    for (uint32_t d = 0; d < std::min<uint32_t>(rank, 8); ++d) {
      sizes[d] = forced ? forced[d] : in.Size();
      if (given_strides) strides[d] = in.Stride();
    }
    buffer.Sizes = sizes;
    buffer.Strides = given_strides ? strides : nullptr;
    // Effective strides, element count and DirectML's minimum size, saturating.
    sane = rank <= 8 && rank > 0;
    uint64_t packed = 1, last = 0;
    elements = 1;
    for (uint32_t d = std::min<uint32_t>(rank, 8); d-- > 0;) {
      if (sizes[d] == 0) sane = false;
      effective_strides[d] = given_strides ? strides[d] : packed;
      if (__builtin_mul_overflow(packed, uint64_t{sizes[d]}, &packed)) sane = false;
      if (__builtin_mul_overflow(elements, sizes[d], &elements)) elements = UINT64_MAX;
    }
    for (uint32_t d = 0; d < std::min<uint32_t>(rank, 8) && sane; ++d) {
      uint64_t span;
      if (__builtin_mul_overflow(uint64_t{sizes[d] - 1}, effective_strides[d], &span) ||
          __builtin_add_overflow(last, span, &last))
        sane = false;
    }
    const size_t element_size = ElementSize(raw_type);
    uint64_t reach = 0;
    if (sane && (__builtin_add_overflow(last, 1, &reach) || __builtin_mul_overflow(reach, element_size, &reach) ||
                 reach > (UINT64_MAX >> 2)))
      sane = false;
    if (raw_type == CPUML_TENSOR_DATA_TYPE_UINT4 || raw_type == CPUML_TENSOR_DATA_TYPE_INT4)
      reach = (reach + 1) / 2;  // two elements a byte
    minimum_bytes = sane ? (reach + 3) / 4 * 4 : 0;
    // The declared size: DirectML's minimum, or a little less, or absurd.
    const uint8_t total = in.Byte();
    buffer.TotalTensorSizeInBytes = minimum_bytes;
    if (total == 0xFF) buffer.TotalTensorSizeInBytes = in.U64();
    else if (total >= 0xF8) buffer.TotalTensorSizeInBytes = minimum_bytes - (total & 7);
    else if (total >= 0xF0) buffer.TotalTensorSizeInBytes = minimum_bytes + 4 * (total & 7);
    const uint8_t alignment = in.Byte();
    buffer.GuaranteedBaseOffsetAlignment = alignment >= 0xF0 ? in.U32() : (alignment >= 0xE0 ? 16u : 0u);
    desc.Type = CPUML_TENSOR_TYPE_BUFFER;
    if (shape == 0xEF) {
      int32_t bad = static_cast<int32_t>(in.U32());
      memcpy(&desc.Type, &bad, sizeof bad);
    }
    desc.Desc = &buffer;
  }
};

// Elements an executed product may read from one operand: every element of a mapping may map a
// page of its own (a column stride of a page or more), so a mapped operand reads far fewer. A
// stride-4096 A of 2^22 elements took 44 s of page faults under the sanitizers.
constexpr uint64_t kMaxMappedReadElements = 1u << 14;
uint64_t MaxReadElements(const FuzzTensor& t) {
  return t.buffer.TotalTensorSizeInBytes > kHeapBindingLimit ? kMaxMappedReadElements : kMaxExecutedMacs;
}

// Memory exactly as large as a tensor declares: a heap block with its content from the fuzzer,
// or, beyond kHeapBindingLimit, an untouched MAP_NORESERVE mapping.
class Binding {
 public:
  Binding() = default;
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;
  ~Binding() {
    if (mapped_) {
      munmap(base_, capacity_);
    } else if (base_) {
#ifdef CPUML_FUZZ_ASAN
      ASAN_UNPOISON_MEMORY_REGION(base_, capacity_);
#endif
      free(base_);
    }
  }
  // `alignment` is the descriptor's GuaranteedBaseOffsetAlignment. The binding keeps that promise
  // where it is a power of two up to a page; a larger one it breaks, the same way on every run
  // (the data one page past an 8 KiB boundary), so that no outcome depends on where the allocator
  // or the kernel happens to place a block.
  void Allocate(uint64_t bytes, Input& in, uint32_t alignment) {
    bytes_ = bytes;
    uint64_t align = 64;
    if (alignment > 64 && alignment <= 4096 && (alignment & (alignment - 1)) == 0) align = alignment;
    if (alignment > 4096) {
      align = 8192;
      offset_ = 4096;
    }
    if (bytes <= kHeapBindingLimit) {
      capacity_ = std::max<uint64_t>(align, (offset_ + bytes + align - 1) / align * align);
      base_ = static_cast<uint8_t*>(aligned_alloc(align, capacity_));
      data_ = base_ + offset_;
      // A few fuzzer bytes repeated: data that is not all zero, cheaply.
      const uint64_t pattern = in.U64();
      for (uint64_t i = 0; i < bytes; ++i) data_[i] = static_cast<uint8_t>((pattern >> (8 * (i % 8))) ^ (i * 7));
      // The rest of the allocation, before and past the binding: canaries, and poisoned under
      // AddressSanitizer, so that an access outside the declared size is seen even there.
      memset(base_, kCanary, offset_);
      memset(data_ + bytes, kCanary, capacity_ - offset_ - bytes);
#ifdef CPUML_FUZZ_ASAN
      ASAN_POISON_MEMORY_REGION(base_, offset_);
      ASAN_POISON_MEMORY_REGION(data_ + bytes, capacity_ - offset_ - bytes);
#endif
      return;
    }
    const uint64_t slack = offset_ ? 8192 : 0;
    void* p = bytes > UINT64_MAX - slack ? MAP_FAILED
                                         : mmap(nullptr, bytes + slack, PROT_READ | PROT_WRITE,
                                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      bytes_ = 0;
      return;
    }
    capacity_ = bytes + slack;
    madvise(p, capacity_, MADV_NOHUGEPAGE);
    base_ = static_cast<uint8_t*>(p);
    data_ = base_;
    if (offset_)
      while (reinterpret_cast<uintptr_t>(data_) % 8192 != offset_) data_ += 4096;
    mapped_ = true;
  }
  uint8_t* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  // No page of [begin, end) of the mapping is resident.
  bool Untouched(uint64_t begin, uint64_t end) const {
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> residency((end - begin + page - 1) / page);
    if (mincore(data_ + begin, end - begin, residency.data()) != 0) return false;
    for (unsigned char r : residency)
      if (r & 1) return false;
    return true;
  }
  bool mapped() const { return mapped_; }
  // The canaries past a heap binding's end are intact (under AddressSanitizer the poisoning has
  // already stopped any access there).
  bool GuardIntact() const {
#ifndef CPUML_FUZZ_ASAN
    if (base_ && !mapped_)
      for (uint64_t i = 0; i < capacity_; ++i)
        if ((i < offset_ || i >= offset_ + bytes_) && base_[i] != kCanary) return false;
#endif
    return true;
  }
  CPUML_BUFFER_BINDING Get() const { return {data_, bytes_}; }
  std::vector<uint8_t> Snapshot() const { return mapped_ || !data_ ? std::vector<uint8_t>() : std::vector<uint8_t>(data_, data_ + bytes_); }
  // True if nothing was written since the snapshot (heap) or since the mapping (no page touched).
  // A mapping may span terabytes: its first and last GiB are checked, where a wrapped or
  // unchecked offset lands first.
  bool Unchanged(const std::vector<uint8_t>& snapshot) const {
    if (!data_ || bytes_ == 0) return true;
    if (!mapped_) return memcmp(snapshot.data(), data_, bytes_) == 0;
    const uint64_t window = uint64_t{1} << 30;
    if (bytes_ <= 2 * window) return Untouched(0, bytes_);
    return Untouched(0, window) && Untouched((bytes_ - window) & ~uint64_t{4095}, bytes_);
  }

 private:
  static constexpr uint8_t kCanary = 0xA5;
  uint8_t *base_ = nullptr, *data_ = nullptr;  // the allocation or mapping, and the binding in it
  uint64_t bytes_ = 0, capacity_ = 0, offset_ = 0;
  bool mapped_ = false;
};

// The binding a caller would pass: usually exact, sometimes NULL, short or misaligned.
CPUML_BUFFER_BINDING Bind(const Binding& b, Input& in) {
  const uint8_t mode = in.Byte();
  CPUML_BUFFER_BINDING binding = b.Get();
  if (mode == 0xFF) binding.Data = nullptr;
  if (mode == 0xFE && binding.SizeInBytes) binding.SizeInBytes -= 1;
  if (mode == 0xFD && binding.Data && binding.SizeInBytes > 1) {
    binding.Data = static_cast<uint8_t*>(binding.Data) + 1;  // misaligned, one byte shorter
    binding.SizeInBytes -= 1;
  }
  return binding;
}

cpuml::reference::TensorView View(const FuzzTensor& t, uint32_t rank, const uint32_t* sizes, const uint64_t* strides,
                                  void* data) {
  int32_t type;
  memcpy(&type, &t.buffer.DataType, sizeof type);
  return {static_cast<CPUML_TENSOR_DATA_TYPE>(type), rank, sizes, strides, data};
}

// No pool, two threads, or (pool byte 0xBF, one execute in 256) sixteen: some paths are taken
// only from sixteen threads (the VNNI kernels read A in place there), whatever the machine's core
// count. On two cores a sixteen-thread execute takes tens of milliseconds (the workers wait their
// turn on the cores), so they stay rare, and after one the workers are sent to sleep at once:
// spinning (pthreadpool's default) they slowed the executes after them severalfold.
class FuzzPool {
 public:
  static constexpr uint8_t kSixteenThreads = 0xBF;
  explicit FuzzPool(uint8_t byte) {
    static pthreadpool_t two = pthreadpool_create(2), sixteen = pthreadpool_create(16);
    if (byte & 1) pool_ = byte == kSixteenThreads ? sixteen : two;
    sixteen_ = pool_ == sixteen;
  }
  ~FuzzPool() {
    if (sixteen_)
      pthreadpool_parallelize_1d(pool_, [](void*, size_t) {}, nullptr, 16, PTHREADPOOL_FLAG_YIELD_WORKERS);
  }
  FuzzPool(const FuzzPool&) = delete;
  FuzzPool& operator=(const FuzzPool&) = delete;
  pthreadpool_t get() const { return pool_; }

 private:
  pthreadpool_t pool_ = nullptr;
  bool sixteen_ = false;
};

// Picks the tier: the best this CPU has capped at one of the architecture's registered tiers.
void PickTier(Input& in) {
#define CPUML_FUZZ_TIER(ns, isa, name, arch, gemm_check, fill_check) CPUML_IF_##arch(isa, )
  const cpuml_isa tiers[] = {CPUML_TIERS(CPUML_FUZZ_TIER)};
#undef CPUML_FUZZ_TIER
  FUZZ_CHECK(cpuml_set_max_isa(tiers[in.Byte() % (sizeof tiers / sizeof tiers[0])]) == CPUML_STATUS_SUCCESS);
}

struct OperatorDeleter {
  void operator()(cpuml_operator* op) const { cpuml_destroy_operator(op); }
};
using OperatorPtr = std::unique_ptr<cpuml_operator, OperatorDeleter>;

// Create must either succeed with an operator or fail with NULL and a message.
OperatorPtr Create(const CPUML_OPERATOR_DESC& desc) {
  cpuml_operator* op = reinterpret_cast<cpuml_operator*>(uintptr_t{1});
  const cpuml_status s = cpuml_create_operator(&desc, &op);
  if (s != CPUML_STATUS_SUCCESS) {
    FUZZ_CHECK(op == nullptr);
    FUZZ_CHECK(cpuml_last_error_message()[0] != '\0');
    return nullptr;
  }
  FUZZ_CHECK(op != nullptr);
  ++g_fuzz_stats.created;
  return OperatorPtr(op);
}

// The operator keeps at most kMaxPersistentBytes after initialize.
bool PersistentFits(const cpuml_operator* op) {
  CPUML_BINDING_PROPERTIES properties{};
  FUZZ_CHECK(cpuml_get_binding_properties(op, &properties) == CPUML_STATUS_SUCCESS);
  return properties.PersistentResourceSize <= kMaxPersistentBytes;
}

void FuzzFill(Input& in, bool sequence) {
  FuzzTensor out;
  const int32_t type = 1 + in.Byte() % 8;
  out.Read(in, type, 1, 8);
  CPUML_SCALAR_UNION start, delta;
  start.UInt64 = in.U64();
  delta.UInt64 = in.U64();
  int32_t value_type = type;
  if (in.Byte() == 0xFF) value_type = static_cast<int32_t>(in.U32());
  CPUML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant;
  CPUML_FILL_VALUE_SEQUENCE_OPERATOR_DESC seq;
  const CPUML_TENSOR_DESC* out_desc = in.Byte() == 0xFF ? nullptr : &out.desc;
  constant.OutputTensor = seq.OutputTensor = out_desc;
  memcpy(&constant.ValueDataType, &value_type, sizeof value_type);
  memcpy(&seq.ValueDataType, &value_type, sizeof value_type);
  constant.Value = seq.ValueStart = start;
  seq.ValueDelta = delta;
  const CPUML_OPERATOR_DESC desc{sequence ? CPUML_OPERATOR_FILL_VALUE_SEQUENCE : CPUML_OPERATOR_FILL_VALUE_CONSTANT,
                                 sequence ? static_cast<const void*>(&seq) : static_cast<const void*>(&constant)};
  OperatorPtr op = Create(desc);
  if (!op) return;
  FUZZ_CHECK(out.sane);  // the library accepted it, so it must be well-formed
  FUZZ_CHECK(cpuml_initialize_operator(op.get(), nullptr, 0) == CPUML_STATUS_SUCCESS);
  Binding output;
  output.Allocate(out.buffer.TotalTensorSizeInBytes, in, out.buffer.GuaranteedBaseOffsetAlignment);
  const CPUML_BUFFER_BINDING binding = Bind(output, in);
  const FuzzPool fuzz_pool(in.Byte());
  const pthreadpool_t pool = fuzz_pool.get();
  const std::vector<uint8_t> before = output.Snapshot();
  // Work bounded: a huge (or heavily aliased) fill is accepted but not run here.
  const bool runs = out.elements <= (output.mapped() ? kMaxExecutedElements : 8 * kMaxExecutedElements);
  if (!runs) return;
  const cpuml_status s = cpuml_execute_operator(op.get(), nullptr, 0, &binding, 1, pool);
  FUZZ_CHECK(output.GuardIntact());
  if (s != CPUML_STATUS_SUCCESS) {
    FUZZ_CHECK(output.Unchanged(before));
    FUZZ_CHECK(cpuml_last_error_message()[0] != '\0');
    ++g_fuzz_stats.failed_execute;
    return;
  }
  FUZZ_CHECK(binding.Data == output.data() && binding.SizeInBytes >= out.buffer.TotalTensorSizeInBytes);
  if (output.mapped() || out.elements > kMaxReferenceElements) return;
  std::vector<uint8_t> expected = before;
  const auto view = View(out, out.buffer.DimensionCount, out.sizes, out.effective_strides, expected.data());
  if (sequence) cpuml::reference::FillValueSequence(view, start, delta);
  else cpuml::reference::FillValueConstant(view, start);
  FUZZ_CHECK(memcmp(expected.data(), output.data(), output.bytes()) == 0);
  ++g_fuzz_stats.compared;
}

void FuzzMatMul(Input& in) {
  enum { kA, kAScale, kAZero, kB, kBScale, kBZero, kOutScale, kOutZero, kOut, kCount };
  FuzzTensor t[kCount];
  const int32_t a_type = in.Byte() & 1 ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8;
  const int32_t b_type = in.Byte() & 1 ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8;
  const int32_t o_type = in.Byte() & 1 ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8;
  const int32_t types[kCount] = {a_type, CPUML_TENSOR_DATA_TYPE_FLOAT32, a_type, b_type, CPUML_TENSOR_DATA_TYPE_FLOAT32,
                                 b_type, CPUML_TENSOR_DATA_TYPE_FLOAT32, o_type, o_type};
  const uint8_t absent = in.Byte();  // bit i: member i is NULL
  const CPUML_TENSOR_DESC* descs[kCount];
  for (int i = 0; i < kCount; ++i) {
    t[i].Read(in, types[i], 2, 4);
    descs[i] = (absent >> i) & 1 && (i == kAZero || i == kBZero || i == kOutZero || absent == 0xFF) ? nullptr : &t[i].desc;
  }
  // Scales are usually positive and finite; the fuzzer's bytes decide the rest.
  const bool sane_scales = in.Byte() < 0xC0;
  const CPUML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC d{descs[kA], descs[kAScale], descs[kAZero],
                                                                descs[kB], descs[kBScale], descs[kBZero],
                                                                descs[kOutScale], descs[kOutZero], descs[kOut]};
  OperatorPtr op = Create({CPUML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, &d});
  if (!op) return;
  for (int i = 0; i < kCount; ++i) FUZZ_CHECK(!descs[i] || t[i].sane);
  // Logical 4-D sizes and strides, leading dimensions padded with 1.
  uint32_t sizes4[kCount][4];
  uint64_t strides4[kCount][4];
  for (int i = 0; i < kCount; ++i) {
    const uint32_t rank = t[i].buffer.DimensionCount, pad = 4 - std::min<uint32_t>(rank, 4);
    for (uint32_t dd = 0; dd < 4; ++dd) {
      sizes4[i][dd] = dd < pad ? 1 : t[i].sizes[dd - pad];
      strides4[i][dd] = dd < pad ? 0 : t[i].effective_strides[dd - pad];
    }
  }
  const uint64_t m = sizes4[kOut][2], n = sizes4[kOut][3], k = sizes4[kA][3];
  const uint64_t batches = uint64_t{sizes4[kOut][0]} * sizes4[kOut][1];
  uint64_t macs = 0, work = 0;
  const bool small = !__builtin_mul_overflow(batches, m * n, &work) && work <= kMaxExecutedElements &&
                     !__builtin_mul_overflow(work, k, &macs) && macs <= kMaxExecutedMacs &&
                     t[kA].elements <= MaxReadElements(t[kA]) && t[kB].elements <= MaxReadElements(t[kB]);
  if (!small || !PersistentFits(op.get())) return;
  Binding memory[kCount];  // every member's declared bytes
  CPUML_BUFFER_BINDING inputs[kOut];
  for (int i = 0; i < kCount; ++i) {
    if (!descs[i]) continue;
    memory[i].Allocate(t[i].buffer.TotalTensorSizeInBytes, in, t[i].buffer.GuaranteedBaseOffsetAlignment);
    if (sane_scales && (i == kAScale || i == kBScale || i == kOutScale) && !memory[i].mapped() && memory[i].data()) {
      float* f = reinterpret_cast<float*>(memory[i].data());
      for (uint64_t e = 0; e < memory[i].bytes() / 4; ++e) f[e] = 0.001f + static_cast<float>(in.Byte()) / 64.0f;
    }
  }
  for (int i = 0; i < kOut; ++i) inputs[i] = descs[i] ? Bind(memory[i], in) : CPUML_BUFFER_BINDING{nullptr, 0};
  const CPUML_BUFFER_BINDING output = Bind(memory[kOut], in);
  const FuzzPool fuzz_pool(in.Byte());
  const pthreadpool_t pool = fuzz_pool.get();
  const std::vector<uint8_t> before = memory[kOut].Snapshot();

  cpuml_status s = cpuml_initialize_operator(op.get(), inputs, kOut);
  if (s == CPUML_STATUS_SUCCESS) s = cpuml_execute_operator(op.get(), inputs, kOut, &output, 1, pool);
  for (int i = 0; i < kCount; ++i) FUZZ_CHECK(memory[i].GuardIntact());
  if (s != CPUML_STATUS_SUCCESS) {
    FUZZ_CHECK(memory[kOut].Unchanged(before));
    FUZZ_CHECK(cpuml_last_error_message()[0] != '\0');
    ++g_fuzz_stats.failed_execute;
    return;
  }
  if (memory[kOut].mapped() || macs > kMaxReferenceElements * 64) return;
  // Accepted: the bindings were honest, so the reference can read them.
  std::vector<uint8_t> expected = before;
  cpuml::reference::TensorView views[kCount];
  for (int i = 0; i < kCount; ++i)
    views[i] = descs[i] ? View(t[i], 4, sizes4[i], strides4[i], i == kOut ? expected.data() : inputs[i].Data)
                        : cpuml::reference::TensorView{CPUML_TENSOR_DATA_TYPE_UNKNOWN, 4, nullptr, nullptr, nullptr};
  cpuml::reference::QuantizedLinearMatrixMultiply({views[kA], views[kAScale], views[kAZero], views[kB], views[kBScale],
                                                   views[kBZero], views[kOutScale], views[kOutZero], views[kOut]});
  FUZZ_CHECK(memcmp(expected.data(), memory[kOut].data(), memory[kOut].bytes()) == 0);
  ++g_fuzz_stats.compared;
}

// ---- The operators added in 0.2: MATRIX_MULTIPLY_INTEGER, MATRIX_MULTIPLY_INTEGER_TO_FLOAT and
// DYNAMIC_QUANTIZE_LINEAR. Their byte layouts are their own (the older operators' are unchanged).

// Caller scratch outside which nothing may be touched: `bytes` at `offset` past a 64-byte aligned
// address, every other byte of the allocation a canary (poisoned under AddressSanitizer).
class Scratch {
 public:
  Scratch(uint64_t bytes, uint64_t offset)
      : bytes_(bytes), offset_(offset), capacity_((offset + bytes + 64 + 63) / 64 * 64),
        base_(static_cast<uint8_t*>(aligned_alloc(64, capacity_))) {
    memset(base_, kCanary, capacity_);
#ifdef CPUML_FUZZ_ASAN
    ASAN_POISON_MEMORY_REGION(base_, offset_);
    ASAN_POISON_MEMORY_REGION(base_ + offset_ + bytes_, capacity_ - offset_ - bytes_);
#endif
  }
  ~Scratch() {
#ifdef CPUML_FUZZ_ASAN
    ASAN_UNPOISON_MEMORY_REGION(base_, capacity_);
#endif
    free(base_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  uint8_t* data() const { return base_ + offset_; }
  bool GuardIntact() const {
#ifndef CPUML_FUZZ_ASAN
    for (uint64_t i = 0; i < capacity_; ++i)
      if ((i < offset_ || i >= offset_ + bytes_) && base_[i] != kCanary) return false;
#endif
    return true;
  }

 private:
  static constexpr uint8_t kCanary = 0x5C;
  uint64_t bytes_, offset_, capacity_;
  uint8_t* base_;
};

// Scratch larger than this is not made: such an operator executes without caller scratch.
constexpr uint64_t kMaxScratchBytes = uint64_t{64} << 20;

// Executes as the scratch byte says (bits 0-1): 0 cpuml_execute_operator; 1 caller scratch of
// exactly TemporaryResourceSize bytes; 2 a NULL scratch pointer (a plain execute); 3 scratch the
// library must refuse (bits 2-3 mod 3): one byte short, 8 bytes past 64-byte alignment, or Data
// NULL. *must_fail is set where the documentation requires the refusal.
cpuml_status ExecuteAsScratchSays(cpuml_operator* op, uint8_t mode, const CPUML_BUFFER_BINDING* inputs,
                                  uint32_t input_count, const CPUML_BUFFER_BINDING* outputs, uint32_t output_count,
                                  pthreadpool_t pool, bool* must_fail) {
  *must_fail = false;
  CPUML_BINDING_PROPERTIES properties{};
  FUZZ_CHECK(cpuml_get_binding_properties(op, &properties) == CPUML_STATUS_SUCCESS);
  const uint64_t need = properties.TemporaryResourceSize;
  const uint8_t how = mode & 3;
  if (how == 0 || need > kMaxScratchBytes)
    return cpuml_execute_operator(op, inputs, input_count, outputs, output_count, pool);
  if (how == 2) return cpuml_execute_operator_with_scratch(op, inputs, input_count, outputs, output_count, nullptr, pool);
  enum { kExact, kShort, kMisaligned, kNull };
  const int kind = how == 1 ? kExact : 1 + (mode >> 2) % 3;
  const Scratch scratch(need, kind == kMisaligned ? 8 : 0);
  CPUML_BUFFER_BINDING binding{scratch.data(), need};
  if (kind == kShort && need > 0) binding.SizeInBytes = need - 1;
  if (kind == kNull) binding.Data = nullptr;
  *must_fail = (kind == kShort && need > 0) || kind == kMisaligned || (kind == kNull && need > 0);
  const cpuml_status s =
      cpuml_execute_operator_with_scratch(op, inputs, input_count, outputs, output_count, &binding, pool);
  FUZZ_CHECK(scratch.GuardIntact());
  return s;
}

// One float of a member whose values the fuzzer picks: multiples of 1/16 in [-8, 8), or, with
// specials, one byte in 32 (0xF8 and up) NaN, an infinity, -0, +-FLT_MAX, a subnormal or FLT_MIN.
float FuzzFloat(uint8_t b, bool specials) {
  if (specials && b >= 0xF8) {
    const float values[8] = {NAN, INFINITY, -INFINITY, -0.0f, FLT_MAX, -FLT_MAX, 1e-40f, FLT_MIN};
    return values[b & 7];
  }
  return static_cast<float>(static_cast<int8_t>(b)) / 16.0f;
}

// Fills a FLOAT32 or FLOAT16 member's heap binding as the mode byte says: below 0x80 ordinary
// values, below 0xF0 with specials among them, else the binding's pattern bits left as they are
// (any bits: NaNs and infinities included).
void FillFloats(Binding& b, int32_t type, uint8_t mode, Input& in) {
  if (mode >= 0xF0 || b.mapped() || !b.data()) return;
  const bool specials = mode >= 0x80;
  if (type == CPUML_TENSOR_DATA_TYPE_FLOAT16) {
    for (uint64_t e = 0; e < b.bytes() / 2; ++e) {
      const uint16_t h = cpuml::FloatToHalf(FuzzFloat(in.Byte(), specials));
      memcpy(b.data() + 2 * e, &h, sizeof h);
    }
  } else {
    for (uint64_t e = 0; e < b.bytes() / 4; ++e) {
      const float f = FuzzFloat(in.Byte(), specials);
      memcpy(b.data() + 4 * e, &f, sizeof f);
    }
  }
}

// A tensor of rank <= 4 as 4-D, leading dimensions padded with size 1 (stride 0).
void PadTo4(const FuzzTensor& t, uint32_t sizes4[4], uint64_t strides4[4]) {
  const uint32_t rank = t.buffer.DimensionCount, pad = 4 - std::min<uint32_t>(rank, 4);
  for (uint32_t d = 0; d < 4; ++d) {
    sizes4[d] = d < pad ? 1 : t.sizes[d - pad];
    strides4[d] = d < pad ? 0 : t.effective_strides[d - pad];
  }
}

int32_t TypeOf(const FuzzTensor& t) {
  int32_t type;
  memcpy(&type, &t.buffer.DataType, sizeof type);
  return type;
}

bool IsOwned(const FuzzTensor& t) {
  int32_t flags;
  memcpy(&flags, &t.buffer.Flags, sizeof flags);
  return (flags & CPUML_TENSOR_FLAG_OWNED_BY_CPUML) != 0;
}

// The last `rank` of four sizes: a derived descriptor of that rank.
void ReadDerived(FuzzTensor& t, Input& in, int32_t type, uint32_t min_rank, uint32_t max_rank, const uint32_t sizes4[4],
                 uint32_t rank) {
  t.Read(in, type, min_rank, max_rank, sizes4 + 4 - rank, rank);
}

// MATRIX_MULTIPLY_INTEGER (to_float false) and MATRIX_MULTIPLY_INTEGER_TO_FLOAT. Bytes: A's and
// B's types; which members are absent; how shapes are made (bit 7 clear: every member but A
// derived from A's sizes and an N, with bits 0-4 choosing per-row or per-column for AScale,
// AZeroPoint, BScale, BZeroPoint and Bias, and bits 5-6 B's batch and channel sizes 1; set:
// every size from the fuzzer); the tensors in descriptor order; the float mode of the scales and
// bias; the data; the bindings; aliasing; the pool; the scratch and initialize mode. For
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT, bit 1 of B's type byte makes B 4-bit, and with derived shapes
// one more byte after the shapes' picks the block of B's scales and zero points (0: none).
void FuzzMatMulInteger(Input& in, bool to_float) {
  enum { kA, kAScale, kAZero, kB, kBScale, kBZero, kBias, kOut, kCount };
  static const int kIntegerMembers[] = {kA, kAZero, kB, kBZero, kOut};
  static const int kToFloatMembers[] = {kA, kAScale, kAZero, kB, kBScale, kBZero, kBias, kOut};
  const int* const members = to_float ? kToFloatMembers : kIntegerMembers;
  const int count = to_float ? 8 : 5, input_count = count - 1;
  const bool optional[kCount] = {false, false, true, false, false, true, true, false};
  const int32_t a_type = in.Byte() & 1 ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8;
  const uint8_t b_type_byte = in.Byte();
  const bool four_bit = to_float && (b_type_byte & 2);
  const int32_t b_type = four_bit ? (b_type_byte & 1 ? CPUML_TENSOR_DATA_TYPE_INT4 : CPUML_TENSOR_DATA_TYPE_UINT4)
                                  : (b_type_byte & 1 ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8);
  const int32_t f32 = CPUML_TENSOR_DATA_TYPE_FLOAT32;
  const int32_t types[kCount] = {a_type, f32, a_type, b_type, f32, b_type, f32,
                                 to_float ? f32 : static_cast<int32_t>(CPUML_TENSOR_DATA_TYPE_INT32)};
  // Bit j: the member at descriptor position j is NULL if optional; 0xFF: every member is NULL.
  const uint8_t absent = in.Byte();
  const uint8_t shapes = in.Byte();
  const bool derived = (shapes & 0x80) == 0;
  static const uint32_t kBlocks[] = {0, 16, 32, 64, 128, 256};
  const uint32_t block = four_bit && derived ? kBlocks[in.Byte() % 6] : 0;
  FuzzTensor t[kCount];
  const CPUML_TENSOR_DESC* descs[kCount] = {};
  bool in_operator[kCount] = {};
  uint32_t a4[4] = {1, 1, 1, 1}, n = 1, rank = 4;
  for (int j = 0; j < count; ++j) {
    const int role = members[j];
    in_operator[role] = true;
    if (role == kA || !derived) {
      t[role].Read(in, types[role], 2, 4);
    } else {
      const auto bit = [&](int b) { return ((shapes >> b) & 1) != 0; };
      uint32_t s[4] = {1, 1, 1, 1};
      switch (role) {
        case kB: s[0] = bit(5) ? 1 : a4[0]; s[1] = bit(6) ? 1 : a4[1]; s[2] = a4[3]; s[3] = n; break;
        case kOut: s[0] = a4[0]; s[1] = a4[1]; s[2] = a4[2]; s[3] = n; break;
        case kAScale: s[2] = bit(0) ? a4[2] : 1; break;
        case kAZero: s[2] = bit(1) ? a4[2] : 1; break;
        case kBScale: s[3] = bit(2) ? n : 1; s[2] = block ? (a4[3] + block - 1) / block : 1; break;
        case kBZero: s[3] = bit(3) ? n : 1; s[2] = block ? (a4[3] + block - 1) / block : 1; break;
        default: s[3] = bit(4) ? n : 1; break;  // kBias
      }
      ReadDerived(t[role], in, types[role], 2, 4, s, rank);
    }
    if (role == kA && derived) {
      const uint32_t a_rank = t[kA].buffer.DimensionCount;
      if (a_rank >= 2 && a_rank <= 4) {
        rank = a_rank;
        for (uint32_t d = 0; d < a_rank; ++d) a4[4 - a_rank + d] = t[kA].sizes[d];
      }
      n = in.Size();
    }
    descs[role] = ((absent >> j) & 1) && (optional[role] || absent == 0xFF) ? nullptr : &t[role].desc;
  }
  const CPUML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC integer_desc{descs[kA], descs[kAZero], descs[kB], descs[kBZero],
                                                                  descs[kOut]};
  const CPUML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC to_float_desc{
      descs[kA], descs[kAScale], descs[kAZero], descs[kB], descs[kBScale], descs[kBZero], descs[kBias], descs[kOut]};
  OperatorPtr op = Create(to_float ? CPUML_OPERATOR_DESC{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT, &to_float_desc}
                                   : CPUML_OPERATOR_DESC{CPUML_OPERATOR_MATRIX_MULTIPLY_INTEGER, &integer_desc});
  if (!op) return;
  // Accepted: every rule of the documentation holds, checked here independently of the library.
  // (A hostile type byte may have picked the other 8-bit type for A or B: it is as valid.)
  uint32_t sizes4[kCount][4];
  uint64_t strides4[kCount][4];
  for (int role = 0; role < kCount; ++role) {
    if (!in_operator[role]) continue;
    FUZZ_CHECK(descs[role] || optional[role]);
    if (!descs[role]) continue;
    FUZZ_CHECK(t[role].sane);
    FUZZ_CHECK(t[role].buffer.DimensionCount >= 2 && t[role].buffer.DimensionCount <= 4);
    PadTo4(t[role], sizes4[role], strides4[role]);
  }
  const auto is_8bit = [](int32_t type) {
    return type == CPUML_TENSOR_DATA_TYPE_INT8 || type == CPUML_TENSOR_DATA_TYPE_UINT8;
  };
  const auto is_4bit = [](int32_t type) {
    return type == CPUML_TENSOR_DATA_TYPE_INT4 || type == CPUML_TENSOR_DATA_TYPE_UINT4;
  };
  FUZZ_CHECK(is_8bit(TypeOf(t[kA])));
  const bool b4 = is_4bit(TypeOf(t[kB]));
  FUZZ_CHECK(is_8bit(TypeOf(t[kB])) || (to_float && b4));
  // 4-bit B (and its zero points) are owned: unpacked at initialize.
  FUZZ_CHECK(!b4 || (IsOwned(t[kB]) && (!descs[kBZero] || IsOwned(t[kBZero]))));
  FUZZ_CHECK(!descs[kAZero] || TypeOf(t[kAZero]) == TypeOf(t[kA]));
  FUZZ_CHECK(!descs[kBZero] || TypeOf(t[kBZero]) == TypeOf(t[kB]));
  for (int role : {kAScale, kBScale, kBias, kOut})
    FUZZ_CHECK(!descs[role] || TypeOf(t[role]) == types[role]);
  FUZZ_CHECK(!IsOwned(t[kOut]));
  const uint32_t m = sizes4[kOut][2], n_out = sizes4[kOut][3], k = sizes4[kA][3];
  FUZZ_CHECK(sizes4[kA][2] == m && sizes4[kB][2] == k && sizes4[kB][3] == n_out);
  for (int dim = 0; dim < 2; ++dim)
    for (int role : {kA, kB}) FUZZ_CHECK(sizes4[role][dim] == 1 || sizes4[role][dim] == sizes4[kOut][dim]);
  // Blockwise B scales {1,1,ceil(K/block),N}: 4-bit B, a block of 16-256, zero points alike.
  const bool blockwise = descs[kBScale] && sizes4[kBScale][2] > 1;
  if (blockwise) {
    bool some_block = false;
    for (uint32_t size : {16u, 32u, 64u, 128u, 256u}) some_block |= (k + size - 1) / size == sizes4[kBScale][2];
    FUZZ_CHECK(b4 && some_block && sizes4[kBScale][3] == n_out && k <= (1u << 20));
    FUZZ_CHECK(!descs[kBZero] || memcmp(sizes4[kBZero], sizes4[kBScale], sizeof sizes4[kBZero]) == 0);
  }
  for (int role : {kAScale, kAZero, kBScale, kBZero, kBias}) {
    if (!descs[role]) continue;
    const uint32_t* s = sizes4[role];
    const bool per_row = role == kAScale || role == kAZero;
    FUZZ_CHECK(s[0] == 1 && s[1] == 1);
    if (blockwise && (role == kBScale || role == kBZero)) continue;
    // A's scales per block: as many as B's blocks (only with blockwise B scales).
    if (role == kAScale && s[3] > 1) {
      FUZZ_CHECK(blockwise && s[3] == sizes4[kBScale][2] && (s[2] == 1 || s[2] == m));
      continue;
    }
    FUZZ_CHECK(per_row ? s[3] == 1 && (s[2] == 1 || s[2] == m) : s[2] == 1 && (s[3] == 1 || s[3] == n_out));
  }
  // Work bounded as QUANTIZED_LINEAR_MATRIX_MULTIPLY's, and tighter where the output is a
  // mapping (each element written may map a page).
  const uint64_t batches = uint64_t{sizes4[kOut][0]} * sizes4[kOut][1];
  const bool out_mapped = t[kOut].buffer.TotalTensorSizeInBytes > kHeapBindingLimit;
  uint64_t macs = 0, work = 0;
  const bool small = !__builtin_mul_overflow(batches, uint64_t{m} * n_out, &work) &&
                     work <= (out_mapped ? 4096 : kMaxExecutedElements) && !__builtin_mul_overflow(work, k, &macs) &&
                     macs <= kMaxExecutedMacs && t[kA].elements <= MaxReadElements(t[kA]) &&
                     t[kB].elements <= MaxReadElements(t[kB]);
  if (!small || !PersistentFits(op.get())) return;
  const uint8_t float_mode = to_float ? in.Byte() : 0;
  Binding memory[kCount];
  for (int j = 0; j < count; ++j) {
    const int role = members[j];
    if (!descs[role]) continue;
    memory[role].Allocate(t[role].buffer.TotalTensorSizeInBytes, in, t[role].buffer.GuaranteedBaseOffsetAlignment);
    if (role == kAScale || role == kBScale || role == kBias) FillFloats(memory[role], f32, float_mode, in);
  }
  CPUML_BUFFER_BINDING inputs[kCount - 1];
  for (int j = 0; j < input_count; ++j)
    inputs[j] = descs[members[j]] ? Bind(memory[members[j]], in) : CPUML_BUFFER_BINDING{nullptr, 0};
  CPUML_BUFFER_BINDING output = Bind(memory[kOut], in);
  // 0xFF: the output bound over A's bytes, which execute must refuse (A not owned, so bound).
  const bool aliased = in.Byte() == 0xFF && !IsOwned(t[kA]) && memory[kA].data() && !memory[kA].mapped();
  if (aliased) output = inputs[0];
  const FuzzPool fuzz_pool(in.Byte());
  const uint8_t scratch_mode = in.Byte();
  std::vector<uint8_t> snapshots[kCount];
  for (int role = 0; role < kCount; ++role) snapshots[role] = memory[role].Snapshot();

  // Bit 7 of the scratch byte: initialize without bindings (refused where an input is owned).
  cpuml_status s = scratch_mode & 0x80 ? cpuml_initialize_operator(op.get(), nullptr, 0)
                                       : cpuml_initialize_operator(op.get(), inputs, static_cast<uint32_t>(input_count));
  bool must_fail = false;
  if (s == CPUML_STATUS_SUCCESS)
    s = ExecuteAsScratchSays(op.get(), scratch_mode, inputs, static_cast<uint32_t>(input_count), &output, 1,
                             fuzz_pool.get(), &must_fail);
  for (int role = 0; role < kCount; ++role) {
    FUZZ_CHECK(memory[role].GuardIntact());
    if (role != kOut && !memory[role].mapped()) FUZZ_CHECK(memory[role].Unchanged(snapshots[role]));  // inputs are read only
  }
  if (s != CPUML_STATUS_SUCCESS) {
    FUZZ_CHECK(memory[kOut].Unchanged(snapshots[kOut]));
    FUZZ_CHECK(cpuml_last_error_message()[0] != '\0');
    ++g_fuzz_stats.failed_execute;
    return;
  }
  FUZZ_CHECK(!aliased);
  FUZZ_CHECK(!must_fail);
  if (memory[kOut].mapped() || macs > kMaxReferenceElements * 64) return;
  std::vector<uint8_t> expected = snapshots[kOut];
  cpuml::reference::TensorView views[kCount];
  for (int role = 0; role < kCount; ++role) views[role] = {CPUML_TENSOR_DATA_TYPE_UNKNOWN, 4, nullptr, nullptr, nullptr};
  for (int j = 0; j < count; ++j) {
    const int role = members[j];
    if (descs[role])
      views[role] = View(t[role], 4, sizes4[role], strides4[role], role == kOut ? expected.data() : inputs[j].Data);
  }
  const cpuml::reference::MatMulIntegerArgs args{views[kA], views[kAScale], views[kAZero], views[kB],
                                                 views[kBScale], views[kBZero], views[kBias], views[kOut]};
  if (to_float) cpuml::reference::MatrixMultiplyIntegerToFloat(args);
  else cpuml::reference::MatrixMultiplyInteger(args);
  FUZZ_CHECK(memcmp(expected.data(), memory[kOut].data(), memory[kOut].bytes()) == 0);
  ++g_fuzz_stats.compared;
}

// DYNAMIC_QUANTIZE_LINEAR. Bytes: the input's type (FLOAT32 or FLOAT16) and the output's; which
// member is NULL (0xFC + i: member i; a NULL OutputZeroPoint asks for symmetric INT8); how shapes
// are made (bit 7 clear: Output the input's sizes, OutputScale and OutputZeroPoint per row with
// bit 0, else per tensor, of rank 1 with bit 1, and with bit 2 per row and block, the block
// 16 << (bits 3-5 mod 5); set: every size from the fuzzer); the tensors; the input's float mode;
// the data; the bindings; aliasing; the pool; the scratch and initialize mode.
void FuzzDynamicQuantize(Input& in) {
  enum { kInput, kOutput, kScale, kZeroPoint, kCount };
  const int32_t in_type = in.Byte() & 1 ? CPUML_TENSOR_DATA_TYPE_FLOAT16 : CPUML_TENSOR_DATA_TYPE_FLOAT32;
  const int32_t out_type = in.Byte() & 1 ? CPUML_TENSOR_DATA_TYPE_INT8 : CPUML_TENSOR_DATA_TYPE_UINT8;
  const int32_t types[kCount] = {in_type, out_type, CPUML_TENSOR_DATA_TYPE_FLOAT32, out_type};
  const uint8_t absent = in.Byte();
  const uint8_t shapes = in.Byte();
  const bool derived = (shapes & 0x80) == 0;
  FuzzTensor t[kCount];
  const CPUML_TENSOR_DESC* descs[kCount];
  t[kInput].Read(in, in_type, 1, 4);
  uint32_t in4[4] = {1, 1, 1, 1}, rank = 4;
  const uint32_t input_rank = t[kInput].buffer.DimensionCount;
  if (input_rank >= 1 && input_rank <= 4) {
    rank = input_rank;
    for (uint32_t d = 0; d < rank; ++d) in4[4 - rank + d] = t[kInput].sizes[d];
  }
  for (int i = kOutput; i < kCount; ++i) {
    if (!derived) {
      t[i].Read(in, types[i], 1, 4);
      continue;
    }
    uint32_t s[4] = {1, 1, 1, 1}, r = rank;
    if (i == kOutput || (shapes & 1)) memcpy(s, in4, sizeof s);
    if (i != kOutput && (shapes & 1)) s[3] = 1;
    if (i != kOutput && !(shapes & 1) && (shapes & 2)) r = 1;
    if (i != kOutput && (shapes & 4)) {
      memcpy(s, in4, sizeof s);
      const uint32_t block = 16u << ((shapes >> 3 & 7) % 5);
      s[3] = (in4[3] + block - 1) / block;
      r = rank;
    }
    ReadDerived(t[i], in, types[i], 1, 4, s, r);
  }
  for (int i = 0; i < kCount; ++i) descs[i] = absent == 0xFC + i ? nullptr : &t[i].desc;
  const bool symmetric = descs[kZeroPoint] == nullptr;
  const CPUML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC desc{descs[kInput], descs[kOutput], descs[kScale], descs[kZeroPoint]};
  OperatorPtr op = Create({CPUML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, &desc});
  if (!op) return;
  // Accepted: the documented rules hold, checked independently of the library.
  uint32_t sizes4[kCount][4];
  uint64_t strides4[kCount][4];
  const int members = symmetric ? kZeroPoint : kCount;
  for (int i = 0; i < members; ++i) {
    FUZZ_CHECK(descs[i] && t[i].sane && !IsOwned(t[i]));
    FUZZ_CHECK(t[i].buffer.DimensionCount >= 1 && t[i].buffer.DimensionCount <= 4);
    PadTo4(t[i], sizes4[i], strides4[i]);
  }
  if (symmetric) {
    // Symmetric INT8: scales per row, or per row and block (one of the block sizes).
    FUZZ_CHECK(TypeOf(t[kOutput]) == CPUML_TENSOR_DATA_TYPE_INT8 && TypeOf(t[kScale]) == CPUML_TENSOR_DATA_TYPE_FLOAT32);
    bool blocks_fit = sizes4[kScale][3] == 1;
    for (uint32_t block : {16u, 32u, 64u, 128u, 256u})
      blocks_fit |= (uint64_t{sizes4[kInput][3]} + block - 1) / block == sizes4[kScale][3];
    FUZZ_CHECK(blocks_fit);
    for (int d = 0; d < 4; ++d) {
      FUZZ_CHECK(sizes4[kOutput][d] == sizes4[kInput][d]);
      if (d < 3) FUZZ_CHECK(sizes4[kScale][d] == sizes4[kInput][d]);
    }
    memcpy(sizes4[kZeroPoint], sizes4[kScale], sizeof sizes4[kScale]);
    memset(strides4[kZeroPoint], 0, sizeof strides4[kZeroPoint]);
    t[kZeroPoint].buffer.TotalTensorSizeInBytes = 0;
    t[kZeroPoint].buffer.GuaranteedBaseOffsetAlignment = 0;
  }
  // (A hostile type byte may have picked the other allowed type for the input or the output.)
  FUZZ_CHECK(TypeOf(t[kInput]) == CPUML_TENSOR_DATA_TYPE_FLOAT32 || TypeOf(t[kInput]) == CPUML_TENSOR_DATA_TYPE_FLOAT16);
  FUZZ_CHECK(TypeOf(t[kOutput]) == CPUML_TENSOR_DATA_TYPE_UINT8 || TypeOf(t[kOutput]) == CPUML_TENSOR_DATA_TYPE_INT8);
  if (!symmetric) {
    FUZZ_CHECK(TypeOf(t[kScale]) == CPUML_TENSOR_DATA_TYPE_FLOAT32 && TypeOf(t[kZeroPoint]) == TypeOf(t[kOutput]));
    bool per_tensor = true, per_row = sizes4[kScale][3] == 1;
    for (int d = 0; d < 4; ++d) {
      FUZZ_CHECK(sizes4[kOutput][d] == sizes4[kInput][d] && sizes4[kZeroPoint][d] == sizes4[kScale][d]);
      per_tensor &= sizes4[kScale][d] == 1;
      if (d < 3) per_row &= sizes4[kScale][d] == sizes4[kInput][d];
    }
    FUZZ_CHECK(per_tensor || per_row);
  }
  // Work bounded; tighter where a binding is a mapping (each element may map a page).
  bool any_mapped = false;
  for (int i = 0; i < kCount; ++i) any_mapped |= t[i].buffer.TotalTensorSizeInBytes > kHeapBindingLimit;
  if (t[kInput].elements > (any_mapped ? 4096 : kMaxExecutedElements)) return;
  const uint8_t data_mode = in.Byte();
  Binding memory[kCount];
  for (int i = 0; i < kCount; ++i) {
    memory[i].Allocate(t[i].buffer.TotalTensorSizeInBytes, in, t[i].buffer.GuaranteedBaseOffsetAlignment);
    if (i == kInput) FillFloats(memory[i], TypeOf(t[kInput]), data_mode, in);
  }
  const CPUML_BUFFER_BINDING input = Bind(memory[kInput], in);
  CPUML_BUFFER_BINDING outputs[3];
  for (int i = kOutput; i < kCount; ++i) outputs[i - 1] = Bind(memory[i], in);
  if (symmetric) outputs[kZeroPoint - 1] = {nullptr, 0};  // an absent output is bound empty
  // 0xFC to 0xFF: one output bound over the input's or another output's bytes, which execute
  // must refuse.
  const uint8_t alias = in.Byte();
  bool aliased = false;
  if (alias >= 0xFC) {
    static const int kOver[4][2] = {{kZeroPoint, kScale}, {kZeroPoint, kInput}, {kScale, kOutput}, {kOutput, kInput}};
    const int target = kOver[alias - 0xFC][0], source = kOver[alias - 0xFC][1];
    if (memory[source].data() && !memory[source].mapped() && !(symmetric && target == kZeroPoint)) {
      outputs[target - 1] = source == kInput ? input : outputs[source - 1];
      aliased = true;
    }
  }
  const FuzzPool fuzz_pool(in.Byte());
  const uint8_t scratch_mode = in.Byte();
  std::vector<uint8_t> snapshots[kCount];
  for (int i = 0; i < kCount; ++i) snapshots[i] = memory[i].Snapshot();

  cpuml_status s = scratch_mode & 0x80 ? cpuml_initialize_operator(op.get(), nullptr, 0)
                                       : cpuml_initialize_operator(op.get(), &input, 1);
  bool must_fail = false;
  if (s == CPUML_STATUS_SUCCESS)
    s = ExecuteAsScratchSays(op.get(), scratch_mode, &input, 1, outputs, 3, fuzz_pool.get(), &must_fail);
  for (int i = 0; i < kCount; ++i) FUZZ_CHECK(memory[i].GuardIntact());
  if (!memory[kInput].mapped()) FUZZ_CHECK(memory[kInput].Unchanged(snapshots[kInput]));  // read only
  if (s != CPUML_STATUS_SUCCESS) {
    for (int i = kOutput; i < kCount; ++i) FUZZ_CHECK(memory[i].Unchanged(snapshots[i]));
    FUZZ_CHECK(cpuml_last_error_message()[0] != '\0');
    ++g_fuzz_stats.failed_execute;
    return;
  }
  FUZZ_CHECK(!aliased);
  FUZZ_CHECK(!must_fail);
  for (int i = kOutput; i < kCount; ++i)
    if (memory[i].mapped()) return;
  std::vector<uint8_t> expected[kCount];
  cpuml::reference::TensorView views[kCount];
  for (int i = 0; i < kCount; ++i) {
    expected[i] = snapshots[i];
    views[i] = View(t[i], 4, sizes4[i], strides4[i], i == kInput ? input.Data : expected[i].data());
  }
  if (symmetric) views[kZeroPoint].data = nullptr;
  cpuml::reference::DynamicQuantizeLinear(views[kInput], views[kOutput], views[kScale], views[kZeroPoint]);
  for (int i = kOutput; i < kCount; ++i)
    if (memory[i].bytes()) FUZZ_CHECK(memcmp(expected[i].data(), memory[i].data(), memory[i].bytes()) == 0);
  ++g_fuzz_stats.compared;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  ++g_fuzz_stats.inputs;
  PickTier(in);
  const uint8_t op = in.Byte();
  switch (op % 4) {
    case 0: FuzzFill(in, false); break;
    case 1: FuzzFill(in, true); break;
    case 2: FuzzMatMul(in); break;
    default:
      // Selector values 3 mod 4, split by bits 2-3: the operators added in 0.2 take three
      // quarters; the fourth (7, 23, 39, ...) stays the invalid operator, as every seed from
      // before them that reached it used 39.
      switch ((op >> 2) & 3) {
        case 0: FuzzMatMulInteger(in, false); break;
        case 2: FuzzMatMulInteger(in, true); break;
        case 3: FuzzDynamicQuantize(in); break;
        default: {
          // An operator type or descriptor pointer a caller got wrong.
          int32_t type = static_cast<int32_t>(in.U32());
          CPUML_OPERATOR_DESC desc;
          memcpy(&desc.Type, &type, sizeof type);
          desc.Desc = nullptr;
          Create(desc);
          break;
        }
      }
      break;
  }
  return 0;
}
