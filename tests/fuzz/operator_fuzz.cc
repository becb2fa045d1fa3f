// libFuzzer target over the whole C API: create, initialize and execute of all three operators
// with hostile descriptors and bindings exactly as large as the descriptors declare, including
// virtual bindings far beyond physical memory (MAP_NORESERVE), so size-arithmetic bugs are
// reachable. Checked on every input:
//   - a failed call writes nothing (outputs keep their bytes; a large output keeps every page
//     unmapped) and leaves a message;
//   - an accepted operator of small work gives exactly the scalar reference's bytes.
// The same function replays the seed corpus as an ordinary test (corpus_replay.cc).
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
#include "kernels/registry.h"
#include "tests/reference/reference.h"

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

  void Read(Input& in, int32_t type, uint32_t min_rank, uint32_t max_rank) {
    const uint8_t shape = in.Byte();
    // A hostile type, flag or rank now and then; the intended ones mostly.
    int32_t raw_type = type;
    if ((shape & 0xF0) == 0xF0) raw_type = static_cast<int32_t>(in.U32());
    else if ((shape & 0xF0) == 0xE0) raw_type = 1 + in.Byte() % 8;
    memcpy(&buffer.DataType, &raw_type, sizeof raw_type);
    int32_t flags = (shape & 1) ? CPUML_TENSOR_FLAG_OWNED_BY_CPUML : CPUML_TENSOR_FLAG_NONE;
    if ((shape & 0x0E) == 0x0E) flags = static_cast<int32_t>(in.U32());
    memcpy(&buffer.Flags, &flags, sizeof flags);
    uint32_t rank = min_rank + in.Byte() % (max_rank - min_rank + 1);
    if ((shape & 0x06) == 0x06) rank = in.Byte() % 10;
    buffer.DimensionCount = rank;
    const bool given_strides = (shape & 0x10) != 0;
    for (uint32_t d = 0; d < std::min<uint32_t>(rank, 8); ++d) {
      sizes[d] = in.Size();
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

// Memory exactly as large as a tensor declares: a heap block with its content from the fuzzer,
// or, beyond kHeapBindingLimit, an untouched MAP_NORESERVE mapping.
class Binding {
 public:
  Binding() = default;
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;
  ~Binding() {
    if (mapped_) munmap(data_, bytes_);
    else free(data_);
  }
  void Allocate(uint64_t bytes, Input& in) {
    bytes_ = bytes;
    if (bytes <= kHeapBindingLimit) {
      data_ = static_cast<uint8_t*>(aligned_alloc(64, std::max<uint64_t>(64, (bytes + 63) / 64 * 64)));
      // A few fuzzer bytes repeated: data that is not all zero, cheaply.
      const uint64_t pattern = in.U64();
      for (uint64_t i = 0; i < bytes; ++i) data_[i] = static_cast<uint8_t>((pattern >> (8 * (i % 8))) ^ (i * 7));
      return;
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      bytes_ = 0;
      return;
    }
    madvise(p, bytes, MADV_NOHUGEPAGE);
    data_ = static_cast<uint8_t*>(p);
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
  CPUML_BUFFER_BINDING Get() const { return {data_, bytes_}; }
  std::vector<uint8_t> Snapshot() const { return mapped_ || !data_ ? std::vector<uint8_t>() : std::vector<uint8_t>(data_, data_ + bytes_); }
  // True if nothing was written since the snapshot (heap) or since the mapping (no page touched).
  // A mapping may span terabytes: its first and last GiB are checked, where a wrapped or
  // unchecked offset lands first.
  bool Unchanged(const std::vector<uint8_t>& snapshot) const {
    if (!data_) return true;
    if (!mapped_) return memcmp(snapshot.data(), data_, bytes_) == 0;
    const uint64_t window = uint64_t{1} << 30;
    if (bytes_ <= 2 * window) return Untouched(0, bytes_);
    return Untouched(0, window) && Untouched((bytes_ - window) & ~uint64_t{4095}, bytes_);
  }

 private:
  uint8_t* data_ = nullptr;
  uint64_t bytes_ = 0;
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
  output.Allocate(out.buffer.TotalTensorSizeInBytes, in);
  const CPUML_BUFFER_BINDING binding = Bind(output, in);
  const FuzzPool fuzz_pool(in.Byte());
  const pthreadpool_t pool = fuzz_pool.get();
  const std::vector<uint8_t> before = output.Snapshot();
  // Work bounded: a huge (or heavily aliased) fill is accepted but not run here.
  const bool runs = out.elements <= (output.mapped() ? kMaxExecutedElements : 8 * kMaxExecutedElements);
  if (!runs) return;
  const cpuml_status s = cpuml_execute_operator(op.get(), nullptr, 0, &binding, 1, pool);
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
                     t[kA].elements <= kMaxExecutedMacs && t[kB].elements <= kMaxExecutedMacs;
  if (!small) return;
  Binding memory[kCount];  // every member's declared bytes
  CPUML_BUFFER_BINDING inputs[kOut];
  for (int i = 0; i < kCount; ++i) {
    if (!descs[i]) continue;
    memory[i].Allocate(t[i].buffer.TotalTensorSizeInBytes, in);
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
  return 0;
}
