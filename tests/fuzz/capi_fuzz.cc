// libFuzzer harness for the C API (issue 19; README.md, "Fuzzing").
//
// An input is a program: a sequence of ops, each an op byte (an Op below, modulo kNumOps)
// followed by the bytes its arguments take. The ops call ctorch.h's CPU functions over a pool
// of kSlots tensor handles: factories, views, elementwise, reductions, casts, joins, copies,
// repr, linalg, FFT, random, retain/release, and handles that are NULL, released or foreign.
// Arguments are mostly sane (small shapes, dims in range) and sometimes hostile (huge or
// negative sizes, out-of-range dims, bad dtypes, devices and enum values, wrong buffer sizes).
// Sizes are bounded (kMaxNumel) so that one input runs in milliseconds.
//
// Besides ASan and UBSan, every call is checked against the contract of ctorch.h, and any
// breach aborts (so libFuzzer reports the input):
//   - a failed call has a non-empty message, ct_last_error_code() equals the status, the code
//     is a known one and never CT_ERR_INTERNAL ("a bug in ctorch");
//   - a failed call leaves its out-parameters untouched (rule 3), a successful one fills them;
//   - a call given a NULL, released or foreign tensor handle fails (and the plain metadata,
//     retain, release and clone calls fail with exactly CT_ERR_INVALID_HANDLE);
//   - after every op, ct_live_tensor_count is the count at the input's start plus the distinct
//     handles in the pool (no call leaks or drops a handle);
//   - the string and buffer functions honour their sizes (ASan sees every byte written past a
//     buffer of exactly the size passed);
//   - at the end every handle is released and the live tensor and generator counts are back at
//     their start.
//
// Built with -fsanitize=fuzzer under --config=fuzz; in the other configs (gcc) the same file
// gets the small replay main at the bottom (no libFuzzer), and //tests/fuzz:capi_fuzz_corpus_test
// runs the committed corpus through it and checks that every op succeeded at least once.
#include "capi/ctorch.h"

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

// The ops. tests/fuzz/make_corpus.py reads these names and numbers from this enum.
enum Op : uint8_t {
  kOpFactory = 0,      // empty / zeros / ones / full / eye / linspace
  kOpArange = 1,
  kOpFromBuffer = 2,
  kOpLike = 3,         // *_like, new_*, new_tensor
  kOpView = 4,         // view / reshape
  kOpPermute = 5,      // permute / transpose
  kOpNarrow = 6,       // narrow / slice / select
  kOpExpand = 7,
  kOpSqueeze = 8,      // squeeze / squeeze_dim / unsqueeze / flatten
  kOpContiguous = 9,   // contiguous / clone
  kOpUnary = 10,       // unary / unary_
  kOpBinary = 11,      // binary / binary_
  kOpScalar = 12,      // binary_scalar_f / _i and their in-place forms
  kOpClamp = 13,       // clamp / clamp_ / where / fill_ / zero_
  kOpReduce = 14,
  kOpMaxMin = 15,      // max / min / max_dim / min_dim / argmax / argmin / norm
  kOpTo = 16,          // to (casts on the CPU) / copy_
  kOpJoin = 17,        // cat / stack
  kOpRepr = 18,
  kOpToBuffer = 19,    // copy_to_buffer / item
  kOpMeta = 20,        // dim, size, stride, sizes, strides, numel, ... is_same
  kOpRetain = 21,
  kOpRelease = 22,
  kOpBadHandle = 23,   // a NULL, released or foreign handle must give CT_ERR_INVALID_HANDLE
  kOpLinalg = 24,      // matmul / mm / bmm / dot / mv / addmm
  kOpFft = 25,         // fft / ifft / rfft / irfft / hfft / fftshift / ifftshift / fftfreq
  kOpRandom = 26,      // rand / randn / randint / *_like / uniform_ / normal_ / random_ / bernoulli_
  kOpDtypeDevice = 27, // dtype_itemsize / dtype_name / promote_types / device_parse / device_format
  kNumOps = 28
};

const char* const kOpNames[kNumOps] = {
    "factory", "arange", "from_buffer", "like",  "view",   "permute", "narrow",   "expand",
    "squeeze", "contiguous", "unary",   "binary", "scalar", "clamp",   "reduce",   "maxmin",
    "to",      "join",    "repr",       "to_buffer", "meta", "retain", "release", "bad_handle",
    "linalg",  "fft",     "random",     "dtype_device"};

constexpr int kSlots = 8;
constexpr int64_t kMaxNumel = 4096;   // tensors kept in the pool
constexpr int64_t kMaxWork = 1 << 16; // the largest result an op may be asked to compute
constexpr int kMaxOps = 256;          // per input

// CAPI_FUZZ_TRACE=1 prints every call and its status (for reading a reproducer).
const bool g_trace = std::getenv("CAPI_FUZZ_TRACE") != nullptr;

// Counts of successful calls per op (the replay main checks that the corpus reaches them all).
int64_t g_ok[kNumOps];

[[noreturn]] void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fputs("capi_fuzz: contract violation: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
  std::abort();
}

// ---- reading the input -------------------------------------------------------------------

class Input {
 public:
  Input(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool empty() const { return n_ == 0; }
  uint8_t u8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(u8()) << (8 * i);
    return v;
  }
  // Up to max bytes of the input (fewer when it runs out).
  std::vector<uint8_t> bytes(size_t max) {
    size_t k = max < n_ ? max : n_;
    std::vector<uint8_t> v(p_, p_ + k);
    p_ += k;
    n_ -= k;
    return v;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

const ct_dtype kDtypes[] = {CT_UINT8,   CT_INT8,     CT_INT16,     CT_INT32,   CT_INT64,   CT_FLOAT16,
                            CT_FLOAT32, CT_FLOAT64,  CT_COMPLEX64, CT_COMPLEX128, CT_BOOL, CT_BFLOAT16};
const ct_dtype kBadDtypes[] = {CT_DTYPE_UNDEFINED, 8, 12, 13, 14, 16, -2, 99, kI32Min, kI32Max};

ct_dtype dtype(Input& in) {
  uint8_t b = in.u8();
  if (b < 0xf0) return kDtypes[b % 12];
  return kBadDtypes[b % 10];
}
// A dtype where CT_DTYPE_UNDEFINED means "keep" (to, *_like, reductions).
ct_dtype dtype_or_keep(Input& in) {
  uint8_t b = in.u8();
  if (b < 0x80) return CT_DTYPE_UNDEFINED;
  if (b < 0xf8) return kDtypes[b % 12];
  return kBadDtypes[1 + b % 9];
}

struct Dev {
  ct_device_type type;
  int32_t index;
};
Dev device(Input& in) {
  static const Dev kBad[] = {{CT_CPU, 1},  {CT_CUDA, -1}, {CT_CUDA, 0},   {2, 0},
                             {-1, 0},      {CT_CPU, -2},  {CT_CPU, kI32Max}, {CT_CUDA, 99}};
  uint8_t b = in.u8();
  if (b < 0xf0) return {CT_CPU, (b & 1) ? -1 : 0};
  return kBad[b % 8];
}

double real(Input& in) {
  static const double kTable[] = {0.0,     -0.0,    1.0,      -1.0,     2.0,    0.5,     -2.5,
                                  3.0,     7.0,     100.0,    255.0,    256.0,  -128.0,  65504.0,
                                  65520.0, 1e10,    -1e10,    2147483648.0, 9.223372036854775807e18,
                                  -9.223372036854775808e18,   1e308,   -1e308,  4.9e-324, 1e-300,
                                  INFINITY, -INFINITY, NAN,   -NAN,     1.5,    0.1,     1e38,
                                  3.5e38};
  uint8_t b = in.u8();
  if (b < 0xe0) return kTable[b % (sizeof kTable / sizeof kTable[0])];
  uint64_t bits = in.u64();
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

int64_t integer(Input& in) {
  static const int64_t kTable[] = {0,       1,        -1,      2,         3,       -2,       7,
                                   -7,      127,      -128,    255,       256,     32767,    -32768,
                                   65535,   kI32Max,  kI32Min, 1LL << 32, kI64Max, kI64Min,  kI64Min + 1,
                                   1LL << 62, -(1LL << 62), 1LL << 53, 5,   -3,     100,      4096};
  uint8_t b = in.u8();
  if (b < 0xe0) return kTable[b % (sizeof kTable / sizeof kTable[0])];
  return static_cast<int64_t>(in.u64());
}

// An index along a dimension of the given size: mostly in or near [-size, size), else hostile.
int64_t index_in(Input& in, int64_t size) {
  uint8_t b = in.u8();
  if (b < 0xf0 && size >= 0 && size <= kMaxNumel) return static_cast<int64_t>(b % (2 * size + 5)) - size - 2;
  return integer(in);
}

// A dim of a tensor of ndim dims: mostly in [-ndim-1, ndim+1], else hostile.
int32_t dim_in(Input& in, int32_t ndim) {
  static const int32_t kBad[] = {kI32Min, kI32Max, 64, -65, 1000, -1000};
  uint8_t b = in.u8();
  if (b < 0xf0) return static_cast<int32_t>(b % (2 * ndim + 3)) - ndim - 1;
  return kBad[b % 6];
}

int32_t flag(Input& in) { return in.u8() & 1; }

// An int64 array argument (sizes, dims): exactly ndim elements on the heap, so that ASan sees a
// read past them; or, sometimes, a hostile ndim or a NULL pointer.
struct Ints {
  std::vector<int64_t> v;
  int32_t ndim = 0;
  bool null = false;
  const int64_t* data() const { return null ? nullptr : v.data(); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t x : v) n *= x;
    return n;
  }
  // A valid shape of more than kMaxWork elements but fewer than 2^40: a real allocation, too
  // slow for one input (beyond 2^40 the allocation fails at once, which is worth a call).
  bool slow_to_allocate() const {
    if (ndim < 0 || ndim > 64 || null) return false;
    int64_t n = 1;
    for (int64_t x : v)
      if (x < 0 || __builtin_mul_overflow(n, x, &n)) return false;
    return n > kMaxWork && n < (1LL << 40);
  }
};

// Sometimes replaces a well-formed array's count or pointer with a hostile one.
void maybe_corrupt(Input& in, Ints& s) {
  uint8_t b = in.u8();
  if (b < 0xf8) return;
  switch (b & 7) {
    case 0: s.ndim = -1; break;
    case 1: s.ndim = 65; break;
    case 2: s.ndim = kI32Min; break;
    case 3: s.ndim = kI32Max; break;
    default:
      if (s.ndim > 0) s.null = true;
      break;
  }
}

// A shape: up to 4 small dims (numel capped), sometimes with hostile sizes.
Ints shape(Input& in) {
  static const int64_t kDims[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100, 128, 255, 256, 1000, 4096};
  static const int64_t kBad[] = {-1, -2, kI64Min, kI64Max, 1LL << 62, 1LL << 40, 1LL << 31, 1LL << 32};
  Ints s;
  uint8_t nb = in.u8();
  s.ndim = nb < 0xf8 ? nb % 5 : 5 + nb % 8;  // sometimes many dims
  bool hostile = false;
  for (int32_t i = 0; i < s.ndim; ++i) {
    uint8_t b = in.u8();
    if (b < 0xf4) {
      s.v.push_back(s.ndim > 4 ? 1 + b % 2 : kDims[b % (sizeof kDims / sizeof kDims[0])]);
    } else {
      s.v.push_back(kBad[b % 8]);
      hostile = true;
    }
  }
  if (!hostile) {
    while (s.numel() > kMaxNumel) {
      size_t big = 0;
      for (size_t i = 1; i < s.v.size(); ++i)
        if (s.v[i] > s.v[big]) big = i;
      s.v[big] /= 2;
    }
  }
  maybe_corrupt(in, s);
  return s;
}

// A shape for view / reshape of a tensor of numel elements: mostly one with that numel
// (sometimes with a -1), else any shape.
Ints view_shape(Input& in, int64_t numel) {
  uint8_t b = in.u8();
  if (b >= 0xe0 || numel < 0 || numel > kMaxNumel) return shape(in);
  Ints s;
  s.ndim = b % 5;
  int64_t rest = numel;
  for (int32_t i = 0; i + 1 < s.ndim; ++i) {
    int64_t d = 1 + in.u8() % 8;
    if (rest == 0) d = in.u8() % 3;
    else if (rest % d != 0) d = 1;
    else rest /= d;
    s.v.push_back(d);
  }
  if (s.ndim > 0) s.v.push_back(rest);
  if (s.ndim > 0 && (b & 0x40)) s.v[b % s.ndim] = -1;
  maybe_corrupt(in, s);
  return s;
}

// A list of dims of a tensor of ndim dims (count 0..3; repeats and out-of-range dims happen).
Ints dims_list(Input& in, int32_t ndim) {
  Ints s;
  s.ndim = in.u8() % 4;
  for (int32_t i = 0; i < s.ndim; ++i) s.v.push_back(dim_in(in, ndim));
  maybe_corrupt(in, s);
  return s;
}

// ---- the pool and the checks -------------------------------------------------------------

const ct_tensor kSentinel = reinterpret_cast<ct_tensor>(static_cast<uintptr_t>(0xfeedfacecafef00dULL));
int g_foreign_object;  // its address is a foreign handle

class Fuzz {
 public:
  Fuzz() {
    check_ok(ct_live_tensor_count(&live0_), "ct_live_tensor_count");
    check_ok(ct_live_generator_count(&gen0_), "ct_live_generator_count");
  }

  // Runs the program; releases everything at the end and checks the counts.
  void run(Input& in) {
    check_ok(ct_generator_create(CT_CPU, -1, &gen_), "ct_generator_create");
    check_ok(ct_generator_manual_seed(gen_, 42), "ct_generator_manual_seed");
    for (int n = 0; n < kMaxOps && !in.empty(); ++n) {
      op_ = static_cast<Op>(in.u8() % kNumOps);
      step(in);
      check_live();
    }
    for (int i = 0; i < kSlots; ++i) {
      ct_tensor h = slot_[i];
      slot_[i] = nullptr;
      if (h) check_ok(ct_tensor_release(h), "ct_tensor_release (end)");
    }
    check_ok(ct_generator_release(gen_), "ct_generator_release");
    int64_t live = -1, gens = -1;
    check_ok(ct_live_tensor_count(&live), "ct_live_tensor_count");
    check_ok(ct_live_generator_count(&gens), "ct_live_generator_count");
    if (live != live0_) die("%lld live tensor handles after releasing all, %lld at the start", (long long)live, (long long)live0_);
    if (gens != gen0_) die("%lld live generators at the end, %lld at the start", (long long)gens, (long long)gen0_);
  }

 private:
  // ---- checks

  void check_ok(ct_status st, const char* fn) {
    if (st != CT_OK) die("%s failed unexpectedly: %s: %s", fn, ct_status_name(st), ct_last_error_message());
  }

  // Every fuzzed call goes through here. bad_ says that one of its tensor arguments was NULL,
  // released or foreign.
  ct_status done(ct_status st, const char* fn) {
    bool bad = bad_;
    bad_ = false;
    if (g_trace) std::fprintf(stderr, "capi_fuzz: %-12s %s -> %s\n", kOpNames[op_], fn, ct_status_name(st));
    if (st == CT_OK) {
      if (bad) die("%s succeeded with a NULL, released or foreign tensor handle", fn);
      ++g_ok[op_];
      return st;
    }
    const char* msg = ct_last_error_message();
    if (msg == nullptr || msg[0] == '\0') die("%s returned %s with an empty message", fn, ct_status_name(st));
    if (ct_last_error_code() != st)
      die("%s returned %d but ct_last_error_code() is %d", fn, (int)st, (int)ct_last_error_code());
    if (std::strcmp(ct_status_name(st), "CT_UNKNOWN") == 0) die("%s returned the unknown code %d: %s", fn, (int)st, msg);
    if (st == CT_ERR_INTERNAL) die("%s: CT_ERR_INTERNAL: %s", fn, msg);
    return st;
  }

  // A tensor out-parameter: kSentinel before the call; untouched on failure, a handle on success.
  void check_out(ct_status st, ct_tensor out, const char* fn) {
    if (st != CT_OK && out != kSentinel) die("%s failed (%s) but wrote its out-parameter", fn, ct_status_name(st));
    if (st == CT_OK && (out == kSentinel || out == nullptr)) die("%s succeeded without a result handle", fn);
  }

  // Stores a new reference (a result) in slot i, dropping the slot's old reference. Results
  // larger than kMaxNumel are released at once.
  void put(int i, ct_tensor h) {
    ct_tensor old = slot_[i];
    slot_[i] = h;
    if (old) drop(old);
    int64_t n = 0;
    check_ok(ct_tensor_numel(h, &n), "ct_tensor_numel (result)");
    if (n > kMaxNumel) {
      slot_[i] = nullptr;
      drop(h);
    }
  }
  // Releases one reference to h, which the pool no longer holds in that slot.
  void drop(ct_tensor h) {
    check_ok(ct_tensor_release(h), "ct_tensor_release");
    for (ct_tensor s : slot_)
      if (s == h) return;  // another reference is still held: h is still valid
    stale_[nstale_++ % kSlots] = h;
  }
  // A result of fn into slot i (or checked and dropped when the call failed). out by reference:
  // the call that fills it is an argument of the same call, evaluated in any order.
  void result(ct_status st, const ct_tensor& out, int i, const char* fn) {
    done(st, fn);
    check_out(st, out, fn);
    if (st == CT_OK) put(i, out);
  }

  void check_live() {
    int64_t live = -1, distinct = 0;
    check_ok(ct_live_tensor_count(&live), "ct_live_tensor_count");
    for (int i = 0; i < kSlots; ++i) {
      if (!slot_[i]) continue;
      bool first = true;
      for (int j = 0; j < i; ++j)
        if (slot_[j] == slot_[i]) first = false;
      distinct += first;
    }
    if (live != live0_ + distinct)
      die("after op %s: %lld live tensor handles, expected %lld (the pool holds %lld): a call leaked or lost a handle",
          kOpNames[op_], (long long)live, (long long)(live0_ + distinct), (long long)distinct);
  }

  bool held(ct_tensor h) const {
    for (ct_tensor s : slot_)
      if (s == h && h) return true;
    return false;
  }

  // ---- argument pickers

  // A tensor argument: mostly a slot (an empty slot gives NULL), sometimes a released or
  // foreign handle.
  ct_tensor tensor(Input& in) {
    uint8_t b = in.u8();
    ct_tensor h;
    if (b < 0xf0) {
      h = slot_[b % kSlots];
    } else {
      h = bad_handle(b & 15, in);
    }
    if (!held(h)) bad_ = true;
    return h;
  }
  ct_tensor bad_handle(int k, Input& in) {
    switch (k) {
      case 8: return nullptr;
      case 9: return reinterpret_cast<ct_tensor>(static_cast<uintptr_t>(1));
      case 10: return reinterpret_cast<ct_tensor>(&g_foreign_object);
      case 11: return reinterpret_cast<ct_tensor>(static_cast<uintptr_t>((5ULL << 60) | (1ULL << 32) | 0xffffffULL));
      case 12: {  // a live handle with another generation
        ct_tensor h = slot_[in.u8() % kSlots];
        return h ? reinterpret_cast<ct_tensor>(reinterpret_cast<uintptr_t>(h) ^ (1ULL << 32)) : nullptr;
      }
      case 13: return reinterpret_cast<ct_tensor>(static_cast<uintptr_t>((6ULL << 60) | (1ULL << 32) | 1ULL));
      case 14: case 15: return reinterpret_cast<ct_tensor>(static_cast<uintptr_t>(in.u64()));
      default: {  // a released handle of this input (the last kSlots are kept)
        int n = nstale_ < kSlots ? nstale_ : kSlots;
        return n ? stale_[(nstale_ - 1 - k % n) % kSlots] : nullptr;
      }
    }
  }
  int out_slot(Input& in) { return in.u8() % kSlots; }

  // The shape of a live tensor (false for a bad handle).
  bool shape_of(ct_tensor h, std::vector<int64_t>& s) {
    if (!held(h)) return false;
    int64_t buf[64];
    int32_t nd = 0;
    check_ok(ct_tensor_sizes(h, buf, 64, &nd), "ct_tensor_sizes");
    s.assign(buf, buf + nd);
    return true;
  }
  int32_t ndim_of(ct_tensor h) {
    int32_t nd = 0;
    if (held(h)) check_ok(ct_tensor_dim(h, &nd), "ct_tensor_dim");
    return nd;
  }
  int64_t numel_of(ct_tensor h) {
    int64_t n = 0;
    if (held(h)) check_ok(ct_tensor_numel(h, &n), "ct_tensor_numel");
    return n;
  }
  int64_t size_of(ct_tensor h, int32_t d) {
    int64_t n = 0;
    int32_t nd = ndim_of(h);
    if (held(h) && d >= -nd && d < nd) check_ok(ct_tensor_size(h, d, &n), "ct_tensor_size");
    return n;
  }
  // numel of the broadcast of the shapes of a, b (and c); 0 when they do not broadcast or a
  // handle is bad (the call is made then: it must fail cleanly).
  int64_t broadcast_numel(std::initializer_list<ct_tensor> ts) {
    std::vector<int64_t> out, s;
    for (ct_tensor t : ts) {
      if (!shape_of(t, s)) return 0;
      if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
      size_t off = out.size() - s.size();
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t& o = out[off + i];
        if (o == 1) o = s[i];
        else if (s[i] != 1 && s[i] != o) return 0;
      }
    }
    int64_t n = 1;
    for (int64_t x : out) {
      if (x > kMaxWork) return kMaxWork + 1;
      n *= x;
      if (n > kMaxWork) return kMaxWork + 1;
    }
    return n;
  }

  // ---- the ops

  void step(Input& in);
  void factory(Input& in);
  void arange(Input& in);
  void from_buffer(Input& in);
  void like(Input& in);
  void view(Input& in);
  void permute(Input& in);
  void narrow(Input& in);
  void expand(Input& in);
  void squeeze(Input& in);
  void contiguous(Input& in);
  void unary(Input& in);
  void binary(Input& in);
  void scalar(Input& in);
  void clamp(Input& in);
  void reduce(Input& in);
  void maxmin(Input& in);
  void to(Input& in);
  void join(Input& in);
  void repr(Input& in);
  void to_buffer(Input& in);
  void meta(Input& in);
  void retain(Input& in);
  void release(Input& in);
  void bad_handle_op(Input& in);
  void linalg(Input& in);
  void fft(Input& in);
  void random(Input& in);
  void dtype_device(Input& in);

  ct_tensor slot_[kSlots] = {};
  ct_tensor stale_[kSlots] = {};
  int nstale_ = 0;
  ct_generator gen_ = nullptr;
  int64_t live0_ = 0, gen0_ = 0;
  bool bad_ = false;
  Op op_ = kOpFactory;
};

void Fuzz::step(Input& in) {
  bad_ = false;  // an op may return before its call (a skipped size)
  switch (op_) {
    case kOpFactory: factory(in); break;
    case kOpArange: arange(in); break;
    case kOpFromBuffer: from_buffer(in); break;
    case kOpLike: like(in); break;
    case kOpView: view(in); break;
    case kOpPermute: permute(in); break;
    case kOpNarrow: narrow(in); break;
    case kOpExpand: expand(in); break;
    case kOpSqueeze: squeeze(in); break;
    case kOpContiguous: contiguous(in); break;
    case kOpUnary: unary(in); break;
    case kOpBinary: binary(in); break;
    case kOpScalar: scalar(in); break;
    case kOpClamp: clamp(in); break;
    case kOpReduce: reduce(in); break;
    case kOpMaxMin: maxmin(in); break;
    case kOpTo: to(in); break;
    case kOpJoin: join(in); break;
    case kOpRepr: repr(in); break;
    case kOpToBuffer: to_buffer(in); break;
    case kOpMeta: meta(in); break;
    case kOpRetain: retain(in); break;
    case kOpRelease: release(in); break;
    case kOpBadHandle: bad_handle_op(in); break;
    case kOpLinalg: linalg(in); break;
    case kOpFft: fft(in); break;
    case kOpRandom: random(in); break;
    case kOpDtypeDevice: dtype_device(in); break;
    case kNumOps: break;
  }
}

// Argument order of every op: its first byte picks the variant, then the arguments in the
// order the code reads them (make_corpus.py writes them in this order).

void Fuzz::factory(Input& in) {
  uint8_t v = in.u8() % 6;
  int o = out_slot(in);
  ct_tensor out = kSentinel;
  ct_status st;
  if (v == 4) {  // eye(n, m)
    int64_t n = index_in(in, 64), m = index_in(in, 64);
    ct_dtype dt = dtype(in);
    Dev d = device(in);
    if (n > 0 && m > 0 && n <= kMaxWork && m <= kMaxWork && n * m > kMaxWork) return;
    if (n > 0 && m < 0 && n > 256) return;  // m = n
    st = ct_eye(n, m, dt, d.type, d.index, &out);
    result(st, out, o, "ct_eye");
    return;
  }
  if (v == 5) {  // linspace(start, end, steps)
    double a = real(in), b = real(in);
    int64_t steps = index_in(in, 200);
    ct_dtype dt = dtype(in);
    Dev d = device(in);
    if (steps > kMaxWork && steps < (1LL << 40)) return;
    st = ct_linspace(a, b, steps, dt, d.type, d.index, &out);
    result(st, out, o, "ct_linspace");
    return;
  }
  Ints s = shape(in);
  ct_dtype dt = dtype(in);
  Dev d = device(in);
  double value = v == 3 ? real(in) : 0.0;
  if (s.slow_to_allocate()) return;
  switch (v) {
    case 0: st = ct_empty(s.data(), s.ndim, dt, d.type, d.index, &out); result(st, out, o, "ct_empty"); break;
    case 1: st = ct_zeros(s.data(), s.ndim, dt, d.type, d.index, &out); result(st, out, o, "ct_zeros"); break;
    case 2: st = ct_ones(s.data(), s.ndim, dt, d.type, d.index, &out); result(st, out, o, "ct_ones"); break;
    default: st = ct_full(s.data(), s.ndim, value, dt, d.type, d.index, &out); result(st, out, o, "ct_full"); break;
  }
}

void Fuzz::arange(Input& in) {
  int o = out_slot(in);
  double a = real(in), b = real(in), step = real(in);
  ct_dtype dt = dtype(in);
  Dev d = device(in);
  double n = std::ceil((b - a) / step);
  if (std::isfinite(n) && n > kMaxWork && n < 1e12) return;  // a real, slow allocation
  ct_tensor out = kSentinel;
  ct_status st = ct_arange(a, b, step, dt, d.type, d.index, &out);
  result(st, out, o, "ct_arange");
}

void Fuzz::from_buffer(Input& in) {
  int o = out_slot(in);
  Ints s = shape(in);
  ct_dtype dt = dtype(in);
  Dev d = device(in);
  uint8_t how = in.u8();
  int64_t item = 0;
  ct_status ist = ct_dtype_itemsize(dt, &item);
  int64_t want = 0;
  bool ok_shape = s.ndim >= 0 && s.ndim <= 64 && !s.null && ist == CT_OK;
  if (ok_shape)
    for (int64_t x : s.v)
      if (x < 0 || x > kMaxNumel) ok_shape = false;
  if (ok_shape) want = s.numel() * item;
  if (want > kMaxNumel * 16) return;
  // nbytes: right, one off either way, or 0; the data: input bytes, zero-padded, in a heap block
  // of exactly nbytes.
  int64_t nbytes = want;
  switch (how & 7) {
    case 5: nbytes = want + 1; break;
    case 6: nbytes = want > 0 ? want - 1 : 0; break;
    case 7: nbytes = (how & 8) ? 0 : -1; break;
    default: break;
  }
  std::vector<uint8_t> data = in.bytes(nbytes > 0 ? static_cast<size_t>(nbytes) : 0);
  std::unique_ptr<uint8_t[]> buf(nbytes > 0 ? new uint8_t[nbytes]() : nullptr);
  if (!data.empty()) std::memcpy(buf.get(), data.data(), data.size());
  const void* p = buf.get();
  if (nbytes == 0 && (how & 16)) p = &g_foreign_object;  // a pointer with nbytes 0
  ct_tensor out = kSentinel;
  ct_status st = ct_from_buffer(p, nbytes, s.data(), s.ndim, dt, d.type, d.index, &out);
  result(st, out, o, "ct_from_buffer");
}

void Fuzz::like(Input& in) {
  uint8_t v = in.u8() % 9;
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  ct_tensor out = kSentinel;
  ct_status st;
  if (v < 4) {
    ct_dtype dt = dtype_or_keep(in);
    double value = real(in);
    switch (v) {
      case 0: st = ct_empty_like(t, dt, &out); result(st, out, o, "ct_empty_like"); break;
      case 1: st = ct_zeros_like(t, dt, &out); result(st, out, o, "ct_zeros_like"); break;
      case 2: st = ct_ones_like(t, dt, &out); result(st, out, o, "ct_ones_like"); break;
      default: st = ct_full_like(t, value, dt, &out); result(st, out, o, "ct_full_like"); break;
    }
    return;
  }
  Ints s = shape(in);
  ct_dtype dt = dtype_or_keep(in);
  double value = real(in);
  if (s.slow_to_allocate()) return;
  switch (v) {
    case 4: st = ct_new_empty(t, s.data(), s.ndim, dt, &out); result(st, out, o, "ct_new_empty"); break;
    case 5: st = ct_new_zeros(t, s.data(), s.ndim, dt, &out); result(st, out, o, "ct_new_zeros"); break;
    case 6: st = ct_new_ones(t, s.data(), s.ndim, dt, &out); result(st, out, o, "ct_new_ones"); break;
    case 7: st = ct_new_full(t, s.data(), s.ndim, value, dt, &out); result(st, out, o, "ct_new_full"); break;
    default: {  // new_tensor from a buffer of buffer_dtype
      ct_dtype bdt = dtype(in);
      int64_t item = 0, nbytes = 0;
      bool ok = s.ndim >= 0 && s.ndim <= 64 && !s.null && ct_dtype_itemsize(bdt, &item) == CT_OK;
      if (ok)
        for (int64_t x : s.v)
          if (x < 0 || x > kMaxNumel) ok = false;
      if (ok) nbytes = s.numel() * item + ((in.u8() & 7) == 7 ? 1 : 0);
      std::vector<uint8_t> data = in.bytes(static_cast<size_t>(nbytes));
      std::unique_ptr<uint8_t[]> buf(nbytes > 0 ? new uint8_t[nbytes]() : nullptr);
      if (!data.empty()) std::memcpy(buf.get(), data.data(), data.size());
      st = ct_new_tensor(t, buf.get(), nbytes, s.data(), s.ndim, bdt, dt, &out);
      result(st, out, o, "ct_new_tensor");
      break;
    }
  }
}

void Fuzz::view(Input& in) {
  uint8_t v = in.u8();
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  Ints s = view_shape(in, numel_of(t));
  ct_tensor out = kSentinel;
  if (v & 1) result(ct_reshape(t, s.data(), s.ndim, &out), out, o, "ct_reshape");
  else result(ct_view(t, s.data(), s.ndim, &out), out, o, "ct_view");
}

void Fuzz::permute(Input& in) {
  uint8_t v = in.u8();
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  int32_t nd = ndim_of(t);
  ct_tensor out = kSentinel;
  if (v & 1) {
    int32_t d0 = dim_in(in, nd), d1 = dim_in(in, nd);
    result(ct_transpose(t, d0, d1, &out), out, o, "ct_transpose");
    return;
  }
  Ints p;
  p.ndim = nd;
  for (int32_t i = 0; i < nd; ++i) p.v.push_back(i);
  for (int32_t i = nd - 1; i > 0; --i) std::swap(p.v[i], p.v[in.u8() % (i + 1)]);
  uint8_t c = in.u8();
  if (nd > 0 && c >= 0xe0) p.v[c % nd] = dim_in(in, nd);  // a repeat or an out-of-range dim
  if (nd > 0 && (c & 1)) p.v[0] -= nd;                    // negative dims are fine
  if (c >= 0xfc) p.ndim = nd + 1 - (c & 2);               // a count that is not ndim
  if (p.ndim > static_cast<int32_t>(p.v.size())) p.v.resize(p.ndim, 0);
  result(ct_permute(t, p.data(), p.ndim, &out), out, o, "ct_permute");
}

void Fuzz::narrow(Input& in) {
  uint8_t v = in.u8() % 3;
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  int32_t d = dim_in(in, ndim_of(t));
  int64_t size = size_of(t, d);
  ct_tensor out = kSentinel;
  if (v == 0) {
    int64_t start = index_in(in, size), length = index_in(in, size);
    result(ct_narrow(t, d, start, length, &out), out, o, "ct_narrow");
  } else if (v == 1) {
    int64_t start = index_in(in, size), end = index_in(in, size), step = index_in(in, 3);
    result(ct_slice(t, d, start, end, step, &out), out, o, "ct_slice");
  } else {
    int64_t index = index_in(in, size);
    result(ct_select(t, d, index, &out), out, o, "ct_select");
  }
}

void Fuzz::expand(Input& in) {
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  std::vector<int64_t> cur;
  Ints s;
  if (shape_of(t, cur) && in.u8() < 0xe0) {
    // t's shape with some size-1 dims grown, some sizes -1, and maybe new leading dims
    s.v = cur;
    uint8_t lead = in.u8() % 3;
    for (uint8_t i = 0; i < lead; ++i) s.v.insert(s.v.begin(), 1 + in.u8() % 4);
    for (int64_t& x : s.v) {
      uint8_t b = in.u8();
      if (x == 1 && (b & 1)) x = 1 + b % 9;
      else if (b >= 0xf0) x = -1;
      else if (b >= 0xe8) x = integer(in);
    }
    s.ndim = static_cast<int32_t>(s.v.size());
    maybe_corrupt(in, s);
  } else {
    s = shape(in);
  }
  ct_tensor out = kSentinel;
  result(ct_expand(t, s.data(), s.ndim, &out), out, o, "ct_expand");  // a view: big ones are cheap
}

void Fuzz::squeeze(Input& in) {
  uint8_t v = in.u8() % 4;
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  int32_t nd = ndim_of(t);
  ct_tensor out = kSentinel;
  switch (v) {
    case 0: result(ct_squeeze(t, &out), out, o, "ct_squeeze"); break;
    case 1: { int32_t d = dim_in(in, nd); result(ct_squeeze_dim(t, d, &out), out, o, "ct_squeeze_dim"); break; }
    case 2: { int32_t d = dim_in(in, nd + 1); result(ct_unsqueeze(t, d, &out), out, o, "ct_unsqueeze"); break; }
    default: {
      int32_t a = dim_in(in, nd), b = dim_in(in, nd);
      result(ct_flatten(t, a, b, &out), out, o, "ct_flatten");
      break;
    }
  }
}

void Fuzz::contiguous(Input& in) {
  uint8_t v = in.u8();
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  ct_tensor out = kSentinel;
  if (v & 1) {
    result(ct_tensor_clone(t, &out), out, o, "ct_tensor_clone");
  } else {
    ct_status st = ct_contiguous(t, &out);
    int32_t c = 0;
    if (st == CT_OK) {
      check_ok(ct_tensor_is_contiguous(out, &c), "ct_tensor_is_contiguous");
      if (!c) die("ct_contiguous gave a tensor that is not contiguous");
    }
    result(st, out, o, "ct_contiguous");
  }
}

ct_unary_op unary_op(Input& in) {
  uint8_t b = in.u8();
  if (b < 0xf8) return b % 17;
  static const ct_unary_op kBad[] = {-1, 17, 18, 100, kI32Min, kI32Max, 255, -17};
  return kBad[b % 8];
}
ct_binary_op binary_op(Input& in) {
  uint8_t b = in.u8();
  if (b < 0xf8) return b % 19;
  static const ct_binary_op kBad[] = {-1, 19, 20, 100, kI32Min, kI32Max, 255, -19};
  return kBad[b % 8];
}

void Fuzz::unary(Input& in) {
  uint8_t v = in.u8();
  ct_unary_op op = unary_op(in);
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  if (v & 1) {
    done(ct_unary_(op, t), "ct_unary_");
  } else {
    ct_tensor out = kSentinel;
    result(ct_unary(op, t, &out), out, o, "ct_unary");
  }
}

void Fuzz::binary(Input& in) {
  uint8_t v = in.u8();
  ct_binary_op op = binary_op(in);
  int o = out_slot(in);
  ct_tensor a = tensor(in);
  ct_tensor b = tensor(in);
  if (broadcast_numel({a, b}) > kMaxWork) return;
  if (v & 1) {
    done(ct_binary_(op, a, b), "ct_binary_");
  } else {
    ct_tensor out = kSentinel;
    result(ct_binary(op, a, b, &out), out, o, "ct_binary");
  }
}

void Fuzz::scalar(Input& in) {
  uint8_t v = in.u8() % 4;
  ct_binary_op op = binary_op(in);
  int o = out_slot(in);
  ct_tensor a = tensor(in);
  int32_t rev = flag(in);
  ct_tensor out = kSentinel;
  switch (v) {
    case 0: { double s = real(in); result(ct_binary_scalar_f(op, a, s, rev, &out), out, o, "ct_binary_scalar_f"); break; }
    case 1: { int64_t s = integer(in); result(ct_binary_scalar_i(op, a, s, rev, &out), out, o, "ct_binary_scalar_i"); break; }
    case 2: { double s = real(in); done(ct_binary_scalar_f_(op, a, s), "ct_binary_scalar_f_"); break; }
    default: { int64_t s = integer(in); done(ct_binary_scalar_i_(op, a, s), "ct_binary_scalar_i_"); break; }
  }
}

void Fuzz::clamp(Input& in) {
  uint8_t v = in.u8() % 5;
  int o = out_slot(in);
  ct_tensor a = tensor(in);
  ct_tensor out = kSentinel;
  switch (v) {
    case 0:
    case 1: {
      int32_t has_min = flag(in), has_max = flag(in);
      double lo = real(in), hi = real(in);
      if (v == 0) result(ct_clamp(a, has_min, lo, has_max, hi, &out), out, o, "ct_clamp");
      else done(ct_clamp_(a, has_min, lo, has_max, hi), "ct_clamp_");
      break;
    }
    case 2: {
      ct_tensor b = tensor(in), c = tensor(in);
      if (broadcast_numel({a, b, c}) > kMaxWork) return;
      result(ct_where(a, b, c, &out), out, o, "ct_where");
      break;
    }
    case 3: { double x = real(in); done(ct_fill_(a, x), "ct_fill_"); break; }
    default: done(ct_zero_(a), "ct_zero_"); break;
  }
}

void Fuzz::reduce(Input& in) {
  uint8_t b = in.u8();
  ct_reduce_op op = b < 0xf8 ? b % 5 : (b & 1 ? 5 : -1);
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  Ints dims = dims_list(in, ndim_of(t));
  int32_t keep = flag(in);
  ct_dtype dt = dtype_or_keep(in);
  ct_tensor out = kSentinel;
  result(ct_reduce(op, t, dims.data(), dims.ndim, keep, dt, &out), out, o, "ct_reduce");
}

void Fuzz::maxmin(Input& in) {
  uint8_t v = in.u8() % 7;
  int o = out_slot(in), o2 = out_slot(in);
  ct_tensor t = tensor(in);
  int32_t nd = ndim_of(t);
  ct_tensor out = kSentinel, idx = kSentinel;
  switch (v) {
    case 0: result(ct_max(t, &out), out, o, "ct_max"); break;
    case 1: result(ct_min(t, &out), out, o, "ct_min"); break;
    case 2:
    case 3: {
      int32_t d = dim_in(in, nd), keep = flag(in);
      ct_status st = v == 2 ? ct_max_dim(t, d, keep, &out, &idx) : ct_min_dim(t, d, keep, &out, &idx);
      const char* fn = v == 2 ? "ct_max_dim" : "ct_min_dim";
      done(st, fn);
      check_out(st, out, fn);
      check_out(st, idx, fn);
      if (st == CT_OK) {
        put(o, out);
        put(o2, idx);
      }
      break;
    }
    case 4:
    case 5: {
      int32_t has = flag(in), d = dim_in(in, nd), keep = flag(in);
      if (v == 4) result(ct_argmax(t, has, d, keep, &out), out, o, "ct_argmax");
      else result(ct_argmin(t, has, d, keep, &out), out, o, "ct_argmin");
      break;
    }
    default: {
      double p = real(in);
      Ints dims = dims_list(in, nd);
      int32_t keep = flag(in);
      result(ct_norm(t, p, dims.data(), dims.ndim, keep, &out), out, o, "ct_norm");
      break;
    }
  }
}

void Fuzz::to(Input& in) {
  uint8_t v = in.u8();
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  if (v & 1) {
    ct_tensor src = tensor(in);
    int32_t nb = flag(in);
    std::vector<int64_t> ds;
    if (shape_of(t, ds) && numel_of(t) > kMaxNumel) return;
    done(ct_tensor_copy_(t, src, nb), "ct_tensor_copy_");
    return;
  }
  Dev d = device(in);
  ct_dtype dt = dtype_or_keep(in);
  int32_t nb = flag(in), copy = flag(in);
  ct_tensor out = kSentinel;
  ct_status st = ct_tensor_to(t, d.type, d.index, dt, nb, copy, &out);
  if (st == CT_OK && copy) {
    int32_t same = 1;
    check_ok(ct_tensor_is_same(t, out, &same), "ct_tensor_is_same");
    if (same) die("ct_tensor_to with copy=1 returned the same tensor");
  }
  result(st, out, o, "ct_tensor_to");
}

void Fuzz::join(Input& in) {
  uint8_t v = in.u8();
  int o = out_slot(in);
  uint8_t nb = in.u8();
  int32_t n = nb < 0xf8 ? nb % 5 : (nb & 1 ? -1 : kI32Min);
  std::unique_ptr<ct_tensor[]> ts(n > 0 ? new ct_tensor[n] : nullptr);
  for (int32_t i = 0; i < n; ++i) ts[i] = tensor(in);
  int32_t nd = n > 0 ? ndim_of(ts[0]) : 0;
  int32_t d = dim_in(in, nd + ((v & 1) ? 0 : 1));
  const ct_tensor* p = ts.get();
  if (n == 0 && (v & 2)) p = &slot_[0];  // a pointer with count 0
  ct_tensor out = kSentinel;
  if (v & 1) result(ct_cat(p, n, d, &out), out, o, "ct_cat");
  else result(ct_stack(p, n, d, &out), out, o, "ct_stack");
}

// ct_tensor_repr with a buffer of exactly cap bytes (cap from the input); then again with the
// size it asked for. Checks the string convention (ct_tensor_repr's comment).
void Fuzz::repr(Input& in) {
  static const int64_t kCaps[] = {0, 1, 2, 5, 9, 16, 64, 256};
  ct_tensor t = tensor(in);
  uint8_t c = in.u8();
  int64_t cap = kCaps[c % 8];
  std::unique_ptr<char[]> buf(cap > 0 ? new char[cap] : nullptr);
  int64_t needed = -7;
  ct_status st = done(ct_tensor_repr(t, buf.get(), cap, &needed), "ct_tensor_repr");
  if (st == CT_ERR_BUFFER_SIZE) {
    if (needed < cap) die("ct_tensor_repr: CT_ERR_BUFFER_SIZE with cap %lld but needed %lld", (long long)cap, (long long)needed);
  } else if (st == CT_OK) {
    if (needed < 0 || needed >= cap || std::strlen(buf.get()) != static_cast<size_t>(needed))
      die("ct_tensor_repr: OK with cap %lld, needed %lld", (long long)cap, (long long)needed);
    return;
  } else {
    return;
  }
  if (needed > (1 << 20)) die("ct_tensor_repr: needed %lld for a tensor of at most %lld elements", (long long)needed, (long long)kMaxNumel);
  std::unique_ptr<char[]> big(new char[needed + 1]);
  int64_t again = -7;
  check_ok(ct_tensor_repr(t, big.get(), needed + 1, &again), "ct_tensor_repr (sized)");
  if (again != needed || std::strlen(big.get()) != static_cast<size_t>(needed))
    die("ct_tensor_repr: asked for %lld, then wrote %zu (needed %lld)", (long long)needed, std::strlen(big.get()), (long long)again);
  ++g_ok[op_];
}

void Fuzz::to_buffer(Input& in) {
  uint8_t v = in.u8() % 4;
  ct_tensor t = tensor(in);
  if (v == 0) {
    int64_t n = numel_of(t), item = 0;
    ct_dtype dt = 0;
    if (held(t)) {
      check_ok(ct_tensor_dtype(t, &dt), "ct_tensor_dtype");
      check_ok(ct_dtype_itemsize(dt, &item), "ct_dtype_itemsize");
    }
    int64_t nbytes = n * item;
    uint8_t how = in.u8() & 7;
    if (how == 6) nbytes += 1;
    if (how == 7 && nbytes > 0) nbytes -= 1;
    std::unique_ptr<uint8_t[]> buf(nbytes > 0 ? new uint8_t[nbytes] : nullptr);
    done(ct_tensor_copy_to_buffer(t, buf.get(), nbytes), "ct_tensor_copy_to_buffer");
    return;
  }
  double d = -7, re = -7, im = -7;
  int64_t i = -7;
  ct_status st;
  if (v == 1) {
    st = done(ct_tensor_item_double(t, &d), "ct_tensor_item_double");
    if (st != CT_OK && !(d == -7)) die("ct_tensor_item_double failed but wrote its out-parameter");
  } else if (v == 2) {
    st = done(ct_tensor_item_int64(t, &i), "ct_tensor_item_int64");
    if (st != CT_OK && i != -7) die("ct_tensor_item_int64 failed but wrote its out-parameter");
  } else {
    st = done(ct_tensor_item_complex(t, &re, &im), "ct_tensor_item_complex");
    if (st != CT_OK && (re != -7 || im != -7)) die("ct_tensor_item_complex failed but wrote its out-parameters");
  }
}

void Fuzz::meta(Input& in) {
  uint8_t v = in.u8() % 14;
  ct_tensor t = tensor(in);
  int32_t nd = ndim_of(t);
  int32_t i32 = -7;
  int64_t i64 = -7;
  ct_status st = CT_OK;
  switch (v) {
    case 0: st = done(ct_tensor_dim(t, &i32), "ct_tensor_dim"); break;
    case 1: { int32_t d = dim_in(in, nd); st = done(ct_tensor_size(t, d, &i64), "ct_tensor_size"); break; }
    case 2: { int32_t d = dim_in(in, nd); st = done(ct_tensor_stride(t, d, &i64), "ct_tensor_stride"); break; }
    case 3:
    case 4: {
      int32_t cap = in.u8() % 6;
      std::unique_ptr<int64_t[]> buf(cap > 0 ? new int64_t[cap] : nullptr);
      int32_t got = -7;
      st = v == 3 ? done(ct_tensor_sizes(t, buf.get(), cap, &got), "ct_tensor_sizes")
                  : done(ct_tensor_strides(t, buf.get(), cap, &got), "ct_tensor_strides");
      if (st == CT_ERR_BUFFER_SIZE && got != nd) die("ct_tensor_sizes/strides: CT_ERR_BUFFER_SIZE without *ndim");
      if (st == CT_OK && got != nd) die("ct_tensor_sizes/strides: ndim %d, expected %d", got, nd);
      return;
    }
    case 5: st = done(ct_tensor_numel(t, &i64), "ct_tensor_numel"); break;
    case 6: st = done(ct_tensor_storage_offset(t, &i64), "ct_tensor_storage_offset"); break;
    case 7: st = done(ct_tensor_dtype(t, &i32), "ct_tensor_dtype"); break;
    case 8: {
      ct_device_type ty = -7;
      st = done(ct_tensor_device(t, &ty, &i32), "ct_tensor_device");
      if (st != CT_OK && ty != -7) die("ct_tensor_device failed but wrote its out-parameter");
      break;
    }
    case 9: st = done(ct_tensor_is_contiguous(t, &i32), "ct_tensor_is_contiguous"); break;
    case 10: st = done(ct_tensor_data_ptr(t, &i64), "ct_tensor_data_ptr"); break;
    case 11: { ct_tensor u = tensor(in); st = done(ct_tensor_shares_storage(t, u, &i32), "ct_tensor_shares_storage"); break; }
    case 12: { ct_tensor u = tensor(in); st = done(ct_tensor_is_same(t, u, &i32), "ct_tensor_is_same"); break; }
    default: { int32_t prev = -7; st = done(ct_cuda_exchange_device_of(t, &prev), "ct_cuda_exchange_device_of");
               if (st == CT_OK && prev != -1) die("ct_cuda_exchange_device_of: a CPU tensor gave prev %d", prev);
               break; }
  }
  if (st != CT_OK && (i32 != -7 || i64 != -7)) die("a metadata call failed but wrote its out-parameter");
}

void Fuzz::retain(Input& in) {
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  bool was_bad = bad_;
  ct_status st = done(ct_tensor_retain(t), "ct_tensor_retain");
  if (was_bad && st != CT_ERR_INVALID_HANDLE) die("ct_tensor_retain of a bad handle gave %s", ct_status_name(st));
  if (st == CT_OK) {
    ct_tensor old = slot_[o];
    slot_[o] = t;  // the new reference
    if (old) drop(old);
  }
}

void Fuzz::release(Input& in) {
  uint8_t b = in.u8();
  if (b < 0xf0) {
    int i = b % kSlots;
    ct_tensor h = slot_[i];
    if (!h) {
      ct_status st = done(ct_tensor_release(nullptr), "ct_tensor_release(NULL)");
      if (st != CT_ERR_INVALID_HANDLE) die("ct_tensor_release(NULL) gave %s", ct_status_name(st));
      return;
    }
    slot_[i] = nullptr;
    drop(h);
    ++g_ok[op_];
    return;
  }
  ct_tensor h = bad_handle(b & 15, in);
  if (held(h)) return;  // a random value that happens to be live
  ct_status st = ct_tensor_release(h);
  if (st != CT_ERR_INVALID_HANDLE) die("ct_tensor_release of a bad handle gave %s", ct_status_name(st));
  done(st, "ct_tensor_release");
}

// Each of these calls must give exactly CT_ERR_INVALID_HANDLE for a bad handle.
void Fuzz::bad_handle_op(Input& in) {
  ct_tensor h = bad_handle(in.u8() & 15, in);
  if (held(h)) return;
  uint8_t v = in.u8() % 7;
  ct_tensor out = kSentinel;
  int32_t i32 = 0;
  int64_t i64 = 0;
  ct_status st;
  const char* fn;
  switch (v) {
    case 0: st = ct_tensor_numel(h, &i64); fn = "ct_tensor_numel"; break;
    case 1: st = ct_tensor_dim(h, &i32); fn = "ct_tensor_dim"; break;
    case 2: st = ct_tensor_retain(h); fn = "ct_tensor_retain"; break;
    case 3: st = ct_tensor_release(h); fn = "ct_tensor_release"; break;
    case 4: st = ct_tensor_clone(h, &out); fn = "ct_tensor_clone"; break;
    case 5: st = ct_unary(CT_NEG, h, &out); fn = "ct_unary"; break;
    default: st = ct_tensor_is_contiguous(h, &i32); fn = "ct_tensor_is_contiguous"; break;
  }
  if (st != CT_ERR_INVALID_HANDLE) die("%s of a NULL, released or foreign handle gave %s", fn, ct_status_name(st));
  done(st, fn);
  check_out(st, out, fn);
  ++g_ok[op_];
}

void Fuzz::linalg(Input& in) {
  uint8_t v = in.u8() % 6;
  int o = out_slot(in);
  ct_tensor a = tensor(in), b = tensor(in);
  // the work is at most numel(a) * numel(b) multiply-adds (and so is the result)
  if (numel_of(a) * numel_of(b) > kMaxWork * 16) return;
  ct_tensor out = kSentinel;
  switch (v) {
    case 0: result(ct_matmul(a, b, &out), out, o, "ct_matmul"); break;
    case 1: result(ct_mm(a, b, &out), out, o, "ct_mm"); break;
    case 2: result(ct_bmm(a, b, &out), out, o, "ct_bmm"); break;
    case 3: result(ct_dot(a, b, &out), out, o, "ct_dot"); break;
    case 4: result(ct_mv(a, b, &out), out, o, "ct_mv"); break;
    default: {
      ct_tensor c = tensor(in);
      double beta = real(in), alpha = real(in);
      if (numel_of(c) > kMaxWork) return;
      result(ct_addmm(c, a, b, beta, alpha, &out), out, o, "ct_addmm");
      break;
    }
  }
}

void Fuzz::fft(Input& in) {
  uint8_t v = in.u8() % 8;
  int o = out_slot(in);
  ct_tensor t = tensor(in);
  int32_t nd = ndim_of(t);
  ct_tensor out = kSentinel;
  ct_fft_norm norm = in.u8() % 4;  // 3: not a norm
  if (v < 5) {
    uint8_t nb = in.u8();
    int64_t n = nb < 0xe0 ? static_cast<int64_t>(nb % 20) - 1 : integer(in);  // -1: the size of dim
    int64_t d = dim_in(in, nd);
    if (n > 0 && n < (1LL << 40) && n * (numel_of(t) + 1) > kMaxWork * 4) return;
    switch (v) {
      case 0: result(ct_fft_fft(t, n, d, norm, &out), out, o, "ct_fft_fft"); break;
      case 1: result(ct_fft_ifft(t, n, d, norm, &out), out, o, "ct_fft_ifft"); break;
      case 2: result(ct_fft_rfft(t, n, d, norm, &out), out, o, "ct_fft_rfft"); break;
      case 3: result(ct_fft_irfft(t, n, d, norm, &out), out, o, "ct_fft_irfft"); break;
      default: result(ct_fft_hfft(t, n, d, norm, &out), out, o, "ct_fft_hfft"); break;
    }
    return;
  }
  if (v < 7) {
    Ints dims = dims_list(in, nd);
    if (v == 5) result(ct_fft_fftshift(t, dims.data(), dims.ndim, &out), out, o, "ct_fft_fftshift");
    else result(ct_fft_ifftshift(t, dims.data(), dims.ndim, &out), out, o, "ct_fft_ifftshift");
    return;
  }
  bad_ = false;  // fftfreq takes no tensor
  int64_t n = index_in(in, 100);
  double d = real(in);
  ct_dtype dt = dtype(in);
  Dev dev = device(in);
  if (n > kMaxWork && n < (1LL << 40)) return;
  result(ct_fft_fftfreq(n, d, dt, dev.type, dev.index, &out), out, o, "ct_fft_fftfreq");
}

void Fuzz::random(Input& in) {
  uint8_t v = in.u8() % 9;
  int o = out_slot(in);
  ct_generator g = (in.u8() & 3) == 0 ? nullptr : gen_;  // NULL: the default CPU generator
  ct_tensor out = kSentinel;
  if (v < 3) {
    Ints s = shape(in);
    ct_dtype dt = dtype(in);
    Dev d = device(in);
    if (s.slow_to_allocate()) return;
    if (v == 0) result(ct_rand(s.data(), s.ndim, dt, d.type, d.index, g, &out), out, o, "ct_rand");
    else if (v == 1) result(ct_randn(s.data(), s.ndim, dt, d.type, d.index, g, &out), out, o, "ct_randn");
    else {
      int64_t lo = integer(in), hi = integer(in);
      result(ct_randint(lo, hi, s.data(), s.ndim, dt, d.type, d.index, g, &out), out, o, "ct_randint");
    }
    return;
  }
  ct_tensor t = tensor(in);
  switch (v) {
    case 3: { ct_dtype dt = dtype_or_keep(in); result(ct_rand_like(t, dt, g, &out), out, o, "ct_rand_like"); break; }
    case 4: { ct_dtype dt = dtype_or_keep(in); result(ct_randn_like(t, dt, g, &out), out, o, "ct_randn_like"); break; }
    case 5: { double a = real(in), b = real(in); done(ct_tensor_uniform_(t, a, b, g), "ct_tensor_uniform_"); break; }
    case 6: { double a = real(in), b = real(in); done(ct_tensor_normal_(t, a, b, g), "ct_tensor_normal_"); break; }
    case 7: {
      if (in.u8() & 1) { done(ct_tensor_random_(t, g), "ct_tensor_random_"); break; }
      int64_t a = integer(in), b = integer(in);
      done(ct_tensor_random_range_(t, a, b, g), "ct_tensor_random_range_");
      break;
    }
    default: { double p = real(in); done(ct_tensor_bernoulli_(t, p, g), "ct_tensor_bernoulli_"); break; }
  }
}

void Fuzz::dtype_device(Input& in) {
  uint8_t v = in.u8() % 5;
  switch (v) {
    case 0: {
      int64_t n = -7;
      ct_status st = done(ct_dtype_itemsize(dtype(in), &n), "ct_dtype_itemsize");
      if (st != CT_OK && n != -7) die("ct_dtype_itemsize failed but wrote its out-parameter");
      break;
    }
    case 1:
    case 4: {
      int64_t cap = in.u8() % 20, needed = -7;
      std::unique_ptr<char[]> buf(cap > 0 ? new char[cap] : nullptr);
      ct_status st;
      if (v == 1) {
        st = done(ct_dtype_name(dtype(in), buf.get(), cap, &needed), "ct_dtype_name");
      } else {
        Dev d = device(in);
        st = done(ct_device_format(d.type, d.index, buf.get(), cap, &needed), "ct_device_format");
      }
      if (st == CT_OK && (needed >= cap || std::strlen(buf.get()) != static_cast<size_t>(needed)))
        die("dtype_name / device_format: OK with cap %lld, needed %lld", (long long)cap, (long long)needed);
      if (st == CT_ERR_BUFFER_SIZE && needed < cap) die("dtype_name / device_format: CT_ERR_BUFFER_SIZE, needed %lld < cap %lld", (long long)needed, (long long)cap);
      break;
    }
    case 2: {
      ct_dtype a = dtype(in), b = dtype(in), r = -7;
      ct_status st = done(ct_promote_types(a, b, &r), "ct_promote_types");
      if (st != CT_OK && r != -7) die("ct_promote_types failed but wrote its out-parameter");
      break;
    }
    default: {  // parse a string from the input: up to 24 bytes, in a heap block of exactly len + 1
      size_t len = in.u8() % 25;
      std::vector<uint8_t> b = in.bytes(len);
      std::unique_ptr<char[]> s(new char[b.size() + 1]);
      if (!b.empty()) std::memcpy(s.get(), b.data(), b.size());
      s[b.size()] = '\0';
      ct_device_type ty = -7;
      int32_t idx = -7;
      ct_status st = done(ct_device_parse(s.get(), &ty, &idx), "ct_device_parse");
      if (st != CT_OK && (ty != -7 || idx != -7)) die("ct_device_parse failed but wrote its out-parameters");
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // One CPU thread: the kernels' thread pool plays no part in a few thousand elements, and a
  // long run then takes one core.
  if (ct_set_num_threads(1) != CT_OK) die("ct_set_num_threads(1) failed: %s", ct_last_error_message());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  Fuzz f;
  f.run(in);
  return 0;
}

#ifndef CTORCH_LIBFUZZER
// The replay main of the builds without libFuzzer: runs each file named (directories: every
// file in them), then prints how many calls of each op succeeded, and fails when some op never
// did (the corpus must exercise every op family).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace {
void files_of(const std::string& path, std::vector<std::string>& out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) die("cannot stat %s", path.c_str());
  if (!S_ISDIR(st.st_mode)) {
    out.push_back(path);
    return;
  }
  DIR* d = opendir(path.c_str());
  if (!d) die("cannot open %s", path.c_str());
  std::vector<std::string> names;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') names.push_back(path + "/" + e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) files_of(n, out);
}
}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') files_of(argv[i], files);
  for (const std::string& f : files) {
    std::ifstream s(f, std::ios::binary);
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(data.data(), data.size());
  }
  int missing = 0;
  for (int i = 0; i < kNumOps; ++i) {
    std::printf("  %-13s %6lld successful calls\n", kOpNames[i], (long long)g_ok[i]);
    if (g_ok[i] == 0) ++missing;
  }
  std::printf("%zu inputs replayed\n", files.size());
  if (missing) std::printf("%d op(s) never succeeded: the corpus misses them\n", missing);
  std::printf("%d passed, %d failed\n", missing ? 0 : 1, missing ? 1 : 0);
  return missing ? 1 : 0;
}
#endif
