// ctorch against torch (libtorch, C++) in one process, alternating (issues 7 and 12). Built and
// run on the GPU host by bench/run.sh:
//   g++ ... bench/gpu_bench.cc bench/floor_kernel.o -lctorch -ltorch ... && ./gpu_bench [filter]
// For every metric: a warm-up of both, then rounds alternating ctorch and torch (the order
// flips each round), each round timed by CUDA events on the legacy default stream (GPU time,
// which both libraries use as their current stream) or by a host clock (host cost, CPU rows);
// the figure is the median of the rounds, the ratio ctorch/torch of the medians (below 1:
// ctorch faster). Prints "name ctorch torch unit ratio [GB/s GB/s]" lines (the launch floor among
// them); lines starting with '#' are notes ("# cpu_threads", "# FAILED name: why").
// bench/run.sh tabulates. The filter is a substring of the row names (several separated by '|', a
// leading '^' anchoring one at the start): only matching rows run.
//
// Rows:
//  - host cost of small CUDA ops (small_add_host, small_add_host_f16, small_add_bcast_host),
//    create+free, the bare launch floor; the float32 rows of issue 7 (add_64M_f32, ...,
//    matmul, FFT), unchanged.
//  - The matrix of issue 12, rows named op/dtype/layout (every name has a '/', so the filter
//    "/" runs the matrix alone, "add/" every add row, "/f16/" the float16 rows, "cpu/" the CPU
//    rows):
//      op      add mul div pow atan2 remainder floor_divide eq lt where clamp exp sigmoid cast copy contiguous fill_
//              sum mean amax argmax (a _dimK suffix: over dim K, else over all elements)
//              cat_dimK stack_dimK
//      dtype   f32 f16 bf16 f64 i32 i64 u8 i8 bool; "a+b": two operands of dtypes a and b
//              (f32+f16: torch's promotion, float32 result); "a->b": cast / copy_ from a into
//              b, or sum of a accumulated and returned in b (sum(dtype=b))
//      layout  contig             [n, n] operands
//              bcast_row          [n, n] op [n]
//              bcast_col          [n, n] op [n, 1]
//              cpu0d              [n, n] op a 0-dim CPU tensor (torch.tensor(2.0); 2 for
//                                 integer dtypes)
//              scalar             [n, n] op a Python scalar (2.0; 2 for integer dtypes)
//              transposed         every tensor operand an [n, n] .t() view
//              transposed_contig  a.t() op b, b contiguous (the access really transposes)
//              slice2             [n, 2n][:, ::2] views (two operands: [:, 0::2] and [:, 1::2]
//                                 of one tensor)
//              permute3d          [n*n/131072, 128, 1024] views permuted (2, 0, 1)
//    (where: the bool condition has the layout too, [n, n] for the broadcast ones.)
//    n = 8192 on the GPU (64M elements, CUDA events, 5 rounds; GPU_BENCH_N=m adds the GPU rows
//    at n = m, named "n<m>/..."), 4096 on the CPU ("cpu/..."
//    rows: 16M elements, host clock, 7 rounds, both libraries with one thread count: the CPUs
//    this process may use, or GPU_BENCH_THREADS; printed as "# cpu_threads"). fill_ writes a
//    fresh tensor of the layout, copy a fresh contiguous one, never the shared inputs. The
//    inputs are made once per dtype and device, and released after the GPU rows and again
//    after the CPU rows. Each matrix row sizes its calls per round at run time so that a
//    torch round takes about kRoundMs; ctorch gets the same count unless that would take over
//    kSlowCap (3) times as long (then fewer, reported on stderr), so a ctorch many times slower
//    costs seconds, not minutes. GB/s counts the bytes read and written (the useful elements
//    of views; broadcast and CPU scalar operands not counted). A row that fails in either
//    library (ctorch status, torch exception) prints "# FAILED name: why" and the run goes on.
//  - Issue 21's ops in the same matrix (same inputs, layouts, sizing and GB/s rules), every op
//    name marked "i21:", so the filter "i21:" runs these rows and nothing else (about 370 rows;
//    estimated 3-4 minutes on an H100 besides the build). Three size classes:
//      i21:op/dtype/layout            the matrix's n = 8192 (64M elements; every op, dtypes and
//                                     layouts below)
//      n64x1000/i21:op/f32/contig     [64, 1000], float32 contiguous, every op (Dev::rows)
//      cpu/i21:op/f32/contig          the CPU matrix's [4096, 4096] for cumsum, sort, topk10,
//                                     index_select_dim0, gather_dim1, masked_select, softmax,
//                                     layer_norm
//    (GPU_BENCH_N=m adds "n<m>/i21:..." rows too.) Contig rows in f32 f16 bf16 f64 and, where the
//    op takes integers, i32 i64 u8 (a subset for the slower ops); transposed, slice2 and permute3d
//    in f32 and most in f16 (permute3d: [1024, n*n/131072, 128], so its last dim has 128).
//    Ops over a dim work along the last dim (-1) unless the name says _dimK; on a transposed
//    operand the last dim is strided (the access really changes), on permute3d too.
//      scans      cumsum cumsum_dim0 cumprod logcumsumexp (floating) cummax
//      sorting    sort (stable) argsort (stable) topk10 topk1000 (largest, sorted; no permute3d)
//                 kthvalue (k = size/2) unique (sorted, return_inverse, return_counts; over the
//                 flattened tensor) searchsorted (boundaries: the first operand sorted along
//                 its rows, contiguous; values: the second operand in the layout)
//      indexing   index_select_dim0/_dim1 (an index of size(dim) entries; _i32idx: int32
//                 index, else int64), gather_dim1/_dim0 (index of the operand's shape),
//                 gather_dim1_expidx (index [1, ...] expanded), take (index of the operand's
//                 shape), scatter_add_dim1 (src: the second operand), index_add__dim0 (in place
//                 into a zeroed scratch tensor of the layout, made once per row, the same for
//                 both libraries; _i32idx), masked_fill (0.5, or 7 for integers), masked_select,
//                 nonzero, where_cond (torch.where(x): bool x about half true, other dtypes
//                 all nonzero); masks: the layout's bool operand (bcast_row: an [n] mask)
//      rows       softmax softmax_dim0 log_softmax log_softmax_dim0 logsumexp var_dim1
//                 (unbiased) var_corr1 (dim -1, correction=1) std_mean (dim -1, correction=1)
//                 layer_norm (last dim, weight and bias) matrix_norm_fro (over the last two
//                 dims: contig a batch [n*n/131072, 128, 1024], transposed / slice2 one [n, n]
//                 matrix, permute3d a batch of 1024 [n*n/131072, 128], n64x1000 one matrix)
//    Index tensors are contiguous and uniform in range, drawn in each library (as every
//    matrix input: same shapes and distributions, not the same values). The rows of issue 21
//    before these (cumsum/float32/16M, sort/f32/4096x4096, index_select_f32_4096x4096, ...) stay
//    as they were; note that the filter "/" (the matrix) now takes the i21: rows too.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <cuda_runtime_api.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/gpu_timer.h"  // gpu_ms
#include "capi/ctorch.h"

extern "C" void ct_bench_launch_empty(int n);  // bench/floor_kernel.cu: n empty launches on stream 0

// A failed ctorch call throws: run() reports the row as failed and goes on; elsewhere the
// benchmark stops with the message.
#define CK(call)                                                                                  \
  do {                                                                                            \
    ct_status s_ = (call);                                                                        \
    if (s_ != CT_OK)                                                                              \
      throw std::runtime_error(std::string(#call) + ": " + ct_status_name(s_) + ": " + ct_last_error_message()); \
  } while (0)

// A shape argument: the temporary lives until the end of the full expression (the call).
#define SZ(...) std::vector<int64_t>{__VA_ARGS__}.data()

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The caller's time per call (us) for `iters` calls, then a synchronize outside the timing.
double host_us(const std::function<void()>& fn, int iters) {
  cudaDeviceSynchronize();
  double t0 = now_us();
  for (int i = 0; i < iters; ++i) fn();
  double t1 = now_us();
  cudaDeviceSynchronize();
  return (t1 - t0) / iters;
}

// Wall time per call (ms) including a synchronize after each (synchronous copies).
double wall_ms(const std::function<void()>& fn, int iters) {
  cudaDeviceSynchronize();
  double t0 = now_us();
  for (int i = 0; i < iters; ++i) {
    fn();
    cudaDeviceSynchronize();
  }
  return (now_us() - t0) / 1e3 / iters;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum Clock { kGpu, kHost, kWall };

struct Metric {
  std::string name;
  Clock clock;
  int iters;   // calls per round (unused when round_ms > 0)
  int rounds;
  std::function<void()> ct, th;
  double bytes = 0;     // moved per call, for a GB/s column (0: none)
  double round_ms = 0;  // > 0: calls per round sized at run time so a torch round takes about this
};

const char* g_filter = nullptr;

// A ctorch round of a row sized at run time takes at most this many times a torch round.
constexpr double kSlowCap = 3;

// The filter: substrings separated by '|'; a row runs when its name contains any of them. A
// substring that starts with '^' must start the name ("^add/" selects the GPU add rows, not
// "cpu/add/...").
bool wanted(const std::string& name) {
  if (!g_filter) return true;
  const std::string f = g_filter;
  for (size_t b = 0;;) {
    const size_t e = f.find('|', b);
    std::string part = f.substr(b, e == std::string::npos ? std::string::npos : e - b);
    const bool anchored = !part.empty() && part[0] == '^';
    if (anchored) part.erase(0, 1);
    const size_t at = name.find(part);
    if (at != std::string::npos && (!anchored || at == 0)) return true;
    if (e == std::string::npos) return false;
    b = e + 1;
  }
}

// A row that could not be measured: a note for bench/run.sh (first line of the message only).
void report_failure(const std::string& name, const char* what) {
  std::string w(what);
  w = w.substr(0, w.find('\n'));
  std::printf("# FAILED %s: %s\n", name.c_str(), w.c_str());
  std::fflush(stdout);
}

void run(const Metric& m) {
  if (!wanted(m.name)) return;
  try {
    auto measure = [&](const std::function<void()>& fn, int iters) {
      switch (m.clock) {
        case kGpu: return gpu_ms(fn, iters);
        case kHost: return host_us(fn, iters);
        default: return wall_ms(fn, iters);
      }
    };
    int ic = m.iters, it = m.iters;  // calls per round: ctorch, torch
    if (m.round_ms > 0) {
      measure(m.ct, 1), measure(m.th, 1);  // first calls: plans, allocations
      const double round = m.round_ms * (m.clock == kHost ? 1e3 : 1.0);  // in the clock's unit
      const double c1 = std::max(measure(m.ct, 2), 1e-6), t1 = std::max(measure(m.th, 2), 1e-6);
      it = static_cast<int>(std::clamp(round / t1, 1.0, 10000.0));
      ic = std::min(it, static_cast<int>(std::clamp(kSlowCap * round / c1, 1.0, 10000.0)));
      if (ic < it)
        std::fprintf(stderr, "# %s: ctorch %d calls per round, torch %d (ctorch %.1fx slower)\n", m.name.c_str(),
                     ic, it, c1 / t1);
    }
    measure(m.ct, ic), measure(m.th, it);  // warm-up: plans, handles, cached memory, clocks
    std::vector<double> c, t;
    for (int r = 0; r < m.rounds; ++r) {
      if (r % 2 == 0) c.push_back(measure(m.ct, ic)), t.push_back(measure(m.th, it));
      else t.push_back(measure(m.th, it)), c.push_back(measure(m.ct, ic));
    }
    double mc = median(c), mt = median(t);
    const char* unit = m.clock == kHost ? "us" : "ms";
    std::string extra;
    if (m.bytes > 0) {
      const double per_s = m.clock == kHost ? 1e6 : 1e3;  // the unit's calls per second
      char buf[64];
      std::snprintf(buf, sizeof buf, " %.0f %.0f GB/s", m.bytes * per_s / mc / 1e9, m.bytes * per_s / mt / 1e9);
      extra = buf;
    }
    std::printf("%s %.4f %.4f %s %.3f%s\n", m.name.c_str(), mc, mt, unit, mc / mt, extra.c_str());
    std::fflush(stdout);
  } catch (const std::exception& e) {
    report_failure(m.name, e.what());
  }
}

bool any_wanted(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (wanted(n)) return true;
  return false;
}

ct_tensor ct_new(std::initializer_list<int64_t> sizes, ct_dtype dt, ct_device_type dev = CT_CUDA) {
  ct_tensor t;
  std::vector<int64_t> s(sizes);
  CK(ct_empty(s.data(), static_cast<int32_t>(s.size()), dt, dev, dev == CT_CUDA ? 0 : -1, &t));
  return t;
}

// A ctorch op returning a new tensor, released at once (as a torch temporary is).
void ct_drop(ct_status s, ct_tensor* t) {
  CK(s);
  CK(ct_tensor_release(*t));
}

// ---- the matrix (issue 12) ------------------------------------------------------------------

// One owned reference to a ctorch tensor, released when it goes.
class Ct {
 public:
  Ct() = default;
  explicit Ct(ct_tensor t) : h_(t) {}
  Ct(Ct&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Ct& operator=(Ct&& o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  Ct(const Ct&) = delete;
  Ct& operator=(const Ct&) = delete;
  ~Ct() {
    if (h_) ct_tensor_release(h_);
  }
  operator ct_tensor() const { return h_; }

 private:
  ct_tensor h_ = nullptr;
};

// An owned [new reference] from a call that writes it to `&o`: NEWT(ct_transpose(x, 0, 1, &o)).
#define NEWT(...) ([&] { ct_tensor o = nullptr; CK(__VA_ARGS__); return Ct(o); }())

// The same tensor (values, shape, strides) in both libraries.
struct Pair {
  Ct c;
  at::Tensor t;
};

struct Dt {
  const char* name;
  ct_dtype ct;
  at::ScalarType st;
  bool fp;  // floating point
};
const Dt kDtypes[] = {{"f32", CT_FLOAT32, at::kFloat, true}, {"f16", CT_FLOAT16, at::kHalf, true},
                      {"bf16", CT_BFLOAT16, at::kBFloat16, true}, {"f64", CT_FLOAT64, at::kDouble, true},
                      {"i32", CT_INT32, at::kInt, false},          {"i64", CT_INT64, at::kLong, false},
                      {"u8", CT_UINT8, at::kByte, false},          {"i8", CT_INT8, at::kChar, false},
                      {"bool", CT_BOOL, at::kBool, false}};

const Dt& dt(const std::string& name) {
  for (const Dt& d : kDtypes)
    if (name == d.name) return d;
  throw std::invalid_argument("unknown dtype " + name);
}

// A row's dtype: "f32" (b null), "f32+f16" (operands of two dtypes), "f32->f16" (from a into b).
struct Spec {
  const Dt* a;
  const Dt* b;
};
Spec spec(const std::string& s) {
  for (const char* sep : {"->", "+"}) {
    size_t k = s.find(sep);
    if (k != std::string::npos) return {&dt(s.substr(0, k)), &dt(s.substr(k + std::strlen(sep)))};
  }
  return {&dt(s), nullptr};
}

// Where a part of the matrix runs.
struct Dev {
  std::string prefix;  // of the row names
  ct_device_type ct;
  int32_t index;
  at::Device at;
  int64_t n;  // inputs of n x n elements
  Clock clock;
  int rounds;
  int64_t rows = 0;  // > 0: inputs of rows x n instead (issue 21's small class; contig rows only)
};

constexpr double kRoundMs = 25;  // a torch round of a matrix row

enum Lay { kContig, kRow, kCol, kCpu0d, kScalar, kT, kTC, kSlice2, kPerm };
const char* const kLayName[] = {"contig",     "bcast_row",         "bcast_col", "cpu0d",    "scalar",
                                "transposed", "transposed_contig", "slice2",    "permute3d"};

// The inputs of one dtype on one device: two [n, n] tensors, [n, 2n] for the stride-2 slices,
// an [n] row and an [n, 1] column, each made on first use.
enum Base { kA, kB, kWide, kRowVec, kColVec, kNumBases };
std::map<std::pair<int, int>, std::array<Pair, kNumBases>> g_inputs;

// Uniform [0, 1) floats, integers in [1, 100), bools from rand > 0.5.
Pair random_pair(const Dev& d, const Dt& t, const std::vector<int64_t>& s) {
  const int32_t nd = static_cast<int32_t>(s.size());
  const auto opts = at::TensorOptions().device(d.at);
  Pair p;
  if (t.ct == CT_BOOL) {
    Ct u = NEWT(ct_rand(s.data(), nd, CT_FLOAT32, d.ct, d.index, nullptr, &o));
    p.c = NEWT(ct_binary_scalar_f(CT_GT, u, 0.5, 0, &o));
    p.t = at::gt(at::rand(s, opts.dtype(at::kFloat)), 0.5);
  } else if (t.fp) {
    p.c = NEWT(ct_rand(s.data(), nd, t.ct, d.ct, d.index, nullptr, &o));
    p.t = at::rand(s, opts.dtype(t.st));
  } else {
    p.c = NEWT(ct_randint(1, 100, s.data(), nd, t.ct, d.ct, d.index, nullptr, &o));
    p.t = at::randint(1, 100, s, opts.dtype(t.st));
  }
  return p;
}

Pair empty_pair(const Dev& d, const Dt& t, const std::vector<int64_t>& s) {
  return {NEWT(ct_empty(s.data(), static_cast<int32_t>(s.size()), t.ct, d.ct, d.index, &o)),
          at::empty(s, at::TensorOptions().device(d.at).dtype(t.st))};
}

const Pair& input(const Dev& d, const Dt& t, Base b) {
  Pair& p = g_inputs[{d.ct, t.ct}][b];
  if (!p.c || !p.t.defined()) {
    const int64_t n = d.n, r = d.rows > 0 ? d.rows : n;
    std::vector<int64_t> shape = b == kWide ? std::vector<int64_t>{r, 2 * n}
                                 : b == kRowVec ? std::vector<int64_t>{n}
                                 : b == kColVec ? std::vector<int64_t>{r, 1}
                                                : std::vector<int64_t>{r, n};
    p = random_pair(d, t, shape);
  }
  return p;
}

Pair same(const Pair& p) {
  CK(ct_tensor_retain(p.c));
  return {Ct(static_cast<ct_tensor>(p.c)), p.t};
}

Pair transposed(const Pair& p) { return {NEWT(ct_transpose(p.c, 0, 1, &o)), p.t.t()}; }

// [:, start::2] of an [n, 2n] tensor
Pair strided(const Pair& wide, int64_t start) {
  const int64_t end = wide.t.size(1);
  return {NEWT(ct_slice(wide.c, 1, start, end, 2, &o)), wide.t.slice(1, start, end, 2)};
}

// [n*n/131072, 128, 1024] permuted (2, 0, 1)
Pair permuted(const Pair& p) {
  const std::vector<int64_t> s3{p.t.numel() / (128 * 1024), 128, 1024};
  Ct r = NEWT(ct_reshape(p.c, s3.data(), 3, &o));
  return {NEWT(ct_permute(r, SZ(2, 0, 1), 3, &o)), p.t.reshape(s3).permute({2, 0, 1})};
}

// A one-operand layout over a base tensor ([n, 2n] for kSlice2, else [n, n]).
Pair view_of(const Pair& base, Lay lay, int which) {
  switch (lay) {
    case kT: return transposed(base);
    case kSlice2: return strided(base, which);
    case kPerm: return permuted(base);
    default: return same(base);
  }
}

// torch.tensor(2.0) (torch.tensor(2), torch.tensor(True)): a 0-dim CPU tensor.
Pair cpu_scalar(const Dt& t) {
  const Dt& s = t.fp ? dt("f32") : t.ct == CT_BOOL ? dt("bool") : dt("i64");
  return {NEWT(ct_full(nullptr, 0, 2.0, s.ct, CT_CPU, -1, &o)),
          at::scalar_tensor(at::Scalar(2.0), at::TensorOptions().dtype(s.st))};
}

// Operand `which` (0: the left one, 1: the right one) of a layout, in dtype t.
Pair operand(const Dev& d, const Dt& t, Lay lay, int which) {
  switch (lay) {
    case kContig:
    case kT:
    case kPerm: return view_of(input(d, t, which ? kB : kA), lay, which);
    case kSlice2: return view_of(input(d, t, kWide), lay, which);
    case kTC: return which ? same(input(d, t, kB)) : transposed(input(d, t, kA));
    case kRow: return same(input(d, t, which ? kRowVec : kA));
    case kCol: return same(input(d, t, which ? kColVec : kA));
    case kCpu0d: return which ? cpu_scalar(t) : same(input(d, t, kA));
    case kScalar: break;  // the right operand is a Python scalar: the caller's
  }
  return same(input(d, t, kA));
}

bool is_bcast(Lay lay) { return lay == kRow || lay == kCol || lay == kCpu0d; }

using Dts = std::vector<std::string>;
using Lays = std::vector<Lay>;

// body(name, spec, layout) for every row of dts x lays that the filter selects; a failure
// (a ctorch status, a torch exception) marks the row FAILED and the matrix goes on.
void each(const Dev& d, const std::string& op, const Dts& dts, const Lays& lays,
          const std::function<void(const std::string&, const Spec&, Lay)>& body) {
  for (const std::string& s : dts)
    for (Lay lay : lays) {
      const std::string name = d.prefix + op + "/" + s + "/" + kLayName[lay];
      if (!wanted(name)) continue;
      try {
        body(name, spec(s), lay);
      } catch (const std::exception& e) {
        report_failure(name, e.what());
      }
    }
}

// One matrix row. One call of torch's op sizes the bytes: what it returns (written) plus the
// tensors read (those on the row's device with more than one element).
// mrowv: torch's op returns several tensors (all written: their bytes add up).
void mrowv(const Dev& d, const std::string& name, std::function<void()> ct,
           std::function<std::vector<at::Tensor>()> th, std::initializer_list<at::Tensor> reads) {
  double bytes = 0;
  for (const at::Tensor& w : th()) bytes += static_cast<double>(w.nbytes());
  for (const at::Tensor& r : reads)
    if (r.device() == d.at && r.numel() > 1) bytes += static_cast<double>(r.nbytes());
  run({name, d.clock, 0, d.rounds, std::move(ct), [th] { th(); }, bytes, kRoundMs});
}
void mrow(const Dev& d, const std::string& name, std::function<void()> ct, std::function<at::Tensor()> th,
          std::initializer_list<at::Tensor> reads) {
  mrowv(d, name, std::move(ct), [th] { return std::vector<at::Tensor>{th()}; }, reads);
}

struct BinOp {
  const char* name;
  ct_binary_op op;
  at::Tensor (*tt)(const at::Tensor&, const at::Tensor&);
  at::Tensor (*ts)(const at::Tensor&, const at::Scalar&);
};
#define AT_BINARY(f)                                                     \
  [](const at::Tensor& x, const at::Tensor& y) { return at::f(x, y); }, \
      [](const at::Tensor& x, const at::Scalar& s) { return at::f(x, s); }
const BinOp kAdd{"add", CT_ADD, AT_BINARY(add)}, kMul{"mul", CT_MUL, AT_BINARY(mul)},
    kDiv{"div", CT_DIV, AT_BINARY(div)}, kPow{"pow", CT_POW, AT_BINARY(pow)}, kEq{"eq", CT_EQ, AT_BINARY(eq)},
    kLt{"lt", CT_LT, AT_BINARY(lt)}, kRemainder{"remainder", CT_REMAINDER, AT_BINARY(remainder)},
    kFloorDivide{"floor_divide", CT_FLOOR_DIVIDE, AT_BINARY(floor_divide)},
    // torch.atan2 has no Python-scalar form: no kScalar rows
    kAtan2{"atan2", CT_ATAN2, [](const at::Tensor& x, const at::Tensor& y) { return at::atan2(x, y); },
           [](const at::Tensor&, const at::Scalar&) -> at::Tensor { throw std::runtime_error("atan2: no scalar form"); }};

void binary(const Dev& d, const BinOp& f, const Dts& dts, const Lays& lays) {
  each(d, f.name, dts, lays, [&](const std::string& name, const Spec& s, Lay lay) {
    const ct_binary_op op = f.op;
    Pair x = operand(d, *s.a, lay, 0);
    const ct_tensor xc = x.c;
    const at::Tensor xt = x.t;
    if (lay == kScalar) {  // Python scalar: 2.0 for floating tensors, 2 otherwise
      const auto ts = f.ts;
      if (s.a->fp)
        mrow(d, name, [=] { ct_tensor o; ct_drop(ct_binary_scalar_f(op, xc, 2.0, 0, &o), &o); },
             [=] { return ts(xt, at::Scalar(2.0)); }, {xt});
      else
        mrow(d, name, [=] { ct_tensor o; ct_drop(ct_binary_scalar_i(op, xc, 2, 0, &o), &o); },
             [=] { return ts(xt, at::Scalar(static_cast<int64_t>(2))); }, {xt});
      return;
    }
    Pair y = operand(d, s.b ? *s.b : *s.a, lay, 1);
    const ct_tensor yc = y.c;
    const at::Tensor yt = y.t;
    const auto tt = f.tt;
    mrow(d, name, [=] { ct_tensor o; ct_drop(ct_binary(op, xc, yc, &o), &o); }, [=] { return tt(xt, yt); },
         {xt, yt});
  });
}

// One-operand ops: ctf / atf get the operand and the row's dtype spec.
using CtFn = std::function<ct_status(ct_tensor, const Spec&, ct_tensor*)>;
using AtFn = std::function<at::Tensor(const at::Tensor&, const Spec&)>;

void op1(const Dev& d, const std::string& op, const Dts& dts, const Lays& lays, const CtFn& ctf, const AtFn& atf) {
  each(d, op, dts, lays, [&](const std::string& name, const Spec& s, Lay lay) {
    Pair x = operand(d, *s.a, lay, 0);
    const ct_tensor xc = x.c;
    const at::Tensor xt = x.t;
    mrow(d, name, [=] { ct_tensor o; ct_drop(ctf(xc, s, &o), &o); }, [=] { return atf(xt, s); }, {xt});
  });
}

void unary(const Dev& d, const char* op, ct_unary_op uop, at::Tensor (*f)(const at::Tensor&), const Dts& dts,
           const Lays& lays) {
  op1(d, op, dts, lays, [uop](ct_tensor x, const Spec&, ct_tensor* o) { return ct_unary(uop, x, o); },
      [f](const at::Tensor& x, const Spec&) { return f(x); });
}

// clamp(x, 0.25, 0.75); integer dtypes clamp(x, 10, 50)
void clamp(const Dev& d, const Dts& dts, const Lays& lays) {
  op1(
      d, "clamp", dts, lays,
      [](ct_tensor x, const Spec& s, ct_tensor* o) {
        return s.a->fp ? ct_clamp(x, 1, 0.25, 1, 0.75, o) : ct_clamp(x, 1, 10.0, 1, 50.0, o);
      },
      [](const at::Tensor& x, const Spec& s) {
        return s.a->fp ? at::clamp(x, at::Scalar(0.25), at::Scalar(0.75))
                       : at::clamp(x, at::Scalar(static_cast<int64_t>(10)), at::Scalar(static_cast<int64_t>(50)));
      });
}

// x.to(dtype): "a->b" specs
void cast(const Dev& d, const Dts& dts, const Lays& lays) {
  op1(
      d, "cast", dts, lays,
      [&d](ct_tensor x, const Spec& s, ct_tensor* o) { return ct_tensor_to(x, d.ct, d.index, s.b->ct, 0, 0, o); },
      [](const at::Tensor& x, const Spec& s) { return x.to(s.b->st); });
}

void contiguous(const Dev& d, const Dts& dts, const Lays& lays) {
  op1(
      d, "contiguous", dts, lays, [](ct_tensor x, const Spec&, ct_tensor* o) { return ct_contiguous(x, o); },
      [](const at::Tensor& x, const Spec&) { return x.contiguous(); });
}

at::Tensor th_reduce(ct_reduce_op op, const at::Tensor& x, int64_t dim, const Dt* to) {
  switch (op) {
    case CT_SUM:
      if (dim < 0) return to ? at::sum(x, to->st) : at::sum(x);
      return to ? at::sum(x, at::IntArrayRef{dim}, false, to->st) : at::sum(x, at::IntArrayRef{dim});
    case CT_MEAN: return dim < 0 ? at::mean(x) : at::mean(x, at::IntArrayRef{dim});
    default: return dim < 0 ? at::amax(x) : at::amax(x, at::IntArrayRef{dim});  // CT_AMAX
  }
}

// op over all elements (dim < 0, row "sum/...") or over one dim ("sum_dim1/..."); an "a->b"
// spec accumulates and returns in b.
void reduction(const Dev& d, const char* name, ct_reduce_op rop, int64_t dim, const Dts& dts, const Lays& lays) {
  op1(
      d, std::string(name) + (dim < 0 ? "" : "_dim" + std::to_string(dim)), dts, lays,
      [rop, dim](ct_tensor x, const Spec& s, ct_tensor* o) {
        return ct_reduce(rop, x, dim < 0 ? nullptr : &dim, dim < 0 ? 0 : 1, 0, s.b ? s.b->ct : CT_DTYPE_UNDEFINED, o);
      },
      [rop, dim](const at::Tensor& x, const Spec& s) { return th_reduce(rop, x, dim, s.b); });
}

void argmax(const Dev& d, int64_t dim, const Dts& dts, const Lays& lays) {
  op1(
      d, dim < 0 ? std::string("argmax") : "argmax_dim" + std::to_string(dim), dts, lays,
      [dim](ct_tensor x, const Spec&, ct_tensor* o) {
        return ct_argmax(x, dim >= 0, dim >= 0 ? static_cast<int32_t>(dim) : 0, 0, o);
      },
      [dim](const at::Tensor& x, const Spec&) { return dim < 0 ? at::argmax(x) : at::argmax(x, dim); });
}

// where(cond, a, b): cond a bool tensor of the layout ([n, n] for the broadcast layouts)
void where(const Dev& d, const Dts& dts, const Lays& lays) {
  each(d, "where", dts, lays, [&](const std::string& name, const Spec& s, Lay lay) {
    Pair c = operand(d, dt("bool"), is_bcast(lay) ? kContig : lay, 0);
    Pair x = operand(d, *s.a, lay, 0), y = operand(d, s.b ? *s.b : *s.a, lay, 1);
    const ct_tensor cc = c.c, xc = x.c, yc = y.c;
    const at::Tensor ctt = c.t, xt = x.t, yt = y.t;
    mrow(d, name, [=] { ct_tensor o; ct_drop(ct_where(cc, xc, yc, &o), &o); },
         [=] { return at::where(ctt, xt, yt); }, {ctt, xt, yt});
  });
}

// fill_(1) of a fresh tensor of the layout
void fill(const Dev& d, const Dts& dts, const Lays& lays) {
  each(d, "fill_", dts, lays, [&](const std::string& name, const Spec& s, Lay lay) {
    const int64_t n = d.n;
    Pair base = empty_pair(d, *s.a, lay == kSlice2 ? std::vector<int64_t>{n, 2 * n} : std::vector<int64_t>{n, n});
    Pair x = view_of(base, lay, 0);
    const ct_tensor xc = x.c;
    const at::Tensor xt = x.t;
    mrow(d, name, [=] { CK(ct_fill_(xc, 1.0)); }, [=] { return xt.fill_(1); }, {});
  });
}

// dst.copy_(src): src an operand of the layout (the row, column or CPU scalar for the
// broadcast layouts), dst a fresh contiguous tensor of its shape ([n, n] when broadcast); an
// "a->b" spec copies from dtype a into dtype b.
void copy(const Dev& d, const Dts& dts, const Lays& lays) {
  each(d, "copy", dts, lays, [&](const std::string& name, const Spec& s, Lay lay) {
    Pair src = operand(d, *s.a, lay, is_bcast(lay) ? 1 : 0);
    Pair dst = empty_pair(d, s.b ? *s.b : *s.a, is_bcast(lay) ? std::vector<int64_t>{d.n, d.n} : src.t.sizes().vec());
    const ct_tensor sc = src.c, dc = dst.c;
    const at::Tensor st = src.t, dtt = dst.t;
    mrow(d, name, [=] { CK(ct_tensor_copy_(dc, sc, 0)); }, [=] { return dtt.copy_(st); }, {st});
  });
}

// cat / stack of two operands of the layout along dim
void join(const Dev& d, bool stack, int64_t dim, const Dts& dts, const Lays& lays) {
  each(d, (stack ? "stack_dim" : "cat_dim") + std::to_string(dim), dts, lays,
       [&](const std::string& name, const Spec& s, Lay lay) {
         Pair x = operand(d, *s.a, lay, 0), y = operand(d, s.b ? *s.b : *s.a, lay, 1);
         const ct_tensor xc = x.c, yc = y.c;
         const at::Tensor xt = x.t, yt = y.t;
         const int32_t dim32 = static_cast<int32_t>(dim);
         mrow(
             d, name,
             [=] {
               const ct_tensor v[2] = {xc, yc};
               ct_tensor o;
               ct_drop(stack ? ct_stack(v, 2, dim32, &o) : ct_cat(v, 2, dim32, &o), &o);
             },
             [=] { return stack ? at::stack({xt, yt}, dim) : at::cat({xt, yt}, dim); }, {xt, yt});
       });
}

// ---- issue 21's ops in the matrix: rows "i21:op/dtype/layout" (the filter "i21:" runs them alone)
// Which rows an op gets: kI21Full every dtype x layout asked for (the GPU matrix); kI21Small and
// kI21Cpu only float32 contig (the [64, 1000] class; the CPU rows, for the ops in kI21CpuOps).
enum I21Mode { kI21Full, kI21Small, kI21Cpu };
const char* const kI21CpuOps[] = {"cumsum", "sort", "topk10", "index_select_dim0", "gather_dim1",
                                  "masked_select", "softmax", "layer_norm"};

using Body = std::function<void(const std::string&, const Spec&, Lay)>;
using Ts = std::vector<at::Tensor>;

struct I21 {
  const Dev& d;
  I21Mode mode;
  // each() over the rows of one op that this mode runs (the op's name gets the "i21:" mark)
  void rows(const std::string& op, const Dts& dts, const Lays& lays, const Body& body) const {
    if (mode == kI21Full) return each(d, "i21:" + op, dts, lays, body);
    if (mode == kI21Cpu && std::none_of(std::begin(kI21CpuOps), std::end(kI21CpuOps),
                                        [&](const char* o) { return op == o; }))
      return;
    if (std::find(dts.begin(), dts.end(), "f32") != dts.end() &&
        std::find(lays.begin(), lays.end(), kContig) != lays.end())
      each(d, "i21:" + op, {"f32"}, {kContig}, body);
  }
};

// Release a ctorch call's results (up to n; the ones it left null skipped).
void ct_drop_n(ct_status s, ct_tensor* outs, int n) {
  CK(s);
  for (int i = 0; i < n; ++i)
    if (outs[i]) CK(ct_tensor_release(outs[i]));
}

// One operand of the layout, up to three results: ctf gets ctorch's operand and torch's twin (for
// its sizes), atf torch's operand; both the row's dtype spec.
using CtFnN = std::function<ct_status(ct_tensor, const at::Tensor&, const Spec&, ct_tensor*)>;
using AtFnN = std::function<Ts(const at::Tensor&, const Spec&)>;
void op1n(const I21& g, const std::string& op, const Dts& dts, const Lays& lays, const CtFnN& ctf, const AtFnN& atf) {
  g.rows(op, dts, lays, [&](const std::string& name, const Spec& s, Lay lay) {
    Pair x = operand(g.d, *s.a, lay, 0);
    const ct_tensor xc = x.c;
    const at::Tensor xt = x.t;
    mrowv(g.d, name, [=] { ct_tensor o[3] = {}; ct_drop_n(ctf(xc, xt, s, o), o, 3); }, [=] { return atf(xt, s); },
          {xt});
  });
}

// Random indices in [0, hi) of shape s (int64, or int32), drawn in each library.
Pair index_pair(const Dev& d, int64_t hi, const std::vector<int64_t>& s, bool i32 = false) {
  const Dt& t = dt(i32 ? "i32" : "i64");
  return {NEWT(ct_randint(0, hi, s.data(), static_cast<int32_t>(s.size()), t.ct, d.ct, d.index, nullptr, &o)),
          at::randint(0, hi, s, at::TensorOptions().device(d.at).dtype(t.st))};
}

// A row of an op reading operand x and index tensor i.
void xi_row(const Dev& d, const std::string& name, const Pair& x, const Pair& i,
            const std::function<ct_status(ct_tensor, ct_tensor, ct_tensor*)>& ctf,
            const std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>& atf) {
  const ct_tensor xc = x.c, ic = i.c;
  const at::Tensor xt = x.t, it = i.t;
  mrow(d, name, [=] { ct_tensor o; ct_drop(ctf(xc, ic, &o), &o); }, [=] { return atf(xt, it); }, {xt, it});
}

// Scans along the last dim (op) and along dim 0 (op_dim0).
void i21_scans(const I21& g) {
  const Dts fl{"f32", "f16", "bf16", "f64"}, ff{"f32", "f16"};
  const Lays views{kT, kSlice2, kPerm};
  for (int64_t dim : {-1, 0}) {
    const std::string sfx = dim < 0 ? "" : "_dim0";
    const CtFnN ctf = [dim](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
      return ct_cumsum(x, dim, CT_DTYPE_UNDEFINED, o);
    };
    const AtFnN atf = [dim](const at::Tensor& x, const Spec&) -> Ts { return {at::cumsum(x, dim)}; };
    op1n(g, "cumsum" + sfx, dim < 0 ? Dts{"f32", "f16", "bf16", "f64", "i32", "i64", "u8"}
                                    : Dts{"f32", "f16", "bf16", "i32"}, {kContig}, ctf, atf);
    op1n(g, "cumsum" + sfx, ff, views, ctf, atf);
  }
  const CtFnN cumprod = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    return ct_cumprod(x, -1, CT_DTYPE_UNDEFINED, o);
  };
  const AtFnN th_cumprod = [](const at::Tensor& x, const Spec&) -> Ts { return {at::cumprod(x, -1)}; };
  op1n(g, "cumprod", {"f32", "f16", "bf16", "f64", "i32"}, {kContig}, cumprod, th_cumprod);
  op1n(g, "cumprod", {"f32"}, views, cumprod, th_cumprod);
  op1n(g, "cumprod", {"f16"}, {kT}, cumprod, th_cumprod);
  const CtFnN lcse = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    return ct_logcumsumexp(x, -1, o);
  };
  const AtFnN th_lcse = [](const at::Tensor& x, const Spec&) -> Ts { return {at::logcumsumexp(x, -1)}; };
  op1n(g, "logcumsumexp", fl, {kContig}, lcse, th_lcse);
  op1n(g, "logcumsumexp", ff, views, lcse, th_lcse);
  const CtFnN cummax = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    return ct_cummax(x, -1, &o[0], &o[1]);
  };
  const AtFnN th_cummax = [](const at::Tensor& x, const Spec&) -> Ts {
    auto r = at::cummax(x, -1);
    return {std::get<0>(r), std::get<1>(r)};
  };
  op1n(g, "cummax", {"f32", "f16", "bf16", "i32"}, {kContig}, cummax, th_cummax);
  op1n(g, "cummax", ff, views, cummax, th_cummax);
}

// Sorting and selection along the last dim (permute3d: rows of 128, so no topk1000 there).
void i21_sorting(const I21& g) {
  const Dts ff{"f32", "f16"}, every{"f32", "f16", "bf16", "f64", "i32", "i64", "u8"},
      four{"f32", "f16", "bf16", "i32"};
  const Lays views{kT, kSlice2, kPerm};
  const CtFnN sort = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    return ct_sort(x, -1, 0, 1, &o[0], &o[1]);
  };
  const AtFnN th_sort = [](const at::Tensor& x, const Spec&) -> Ts {
    auto r = at::sort(x, /*stable=*/true, -1, false);
    return {std::get<0>(r), std::get<1>(r)};
  };
  op1n(g, "sort", every, {kContig}, sort, th_sort);
  op1n(g, "sort", ff, views, sort, th_sort);
  const CtFnN argsort = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    return ct_argsort(x, -1, 0, 1, o);
  };
  const AtFnN th_argsort = [](const at::Tensor& x, const Spec&) -> Ts { return {at::argsort(x, true, -1, false)}; };
  op1n(g, "argsort", four, {kContig}, argsort, th_argsort);
  op1n(g, "argsort", {"f32"}, views, argsort, th_argsort);
  for (int64_t k : {10, 1000}) {
    const CtFnN topk = [k](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
      return ct_topk(x, k, -1, 1, 1, &o[0], &o[1]);
    };
    const AtFnN th_topk = [k](const at::Tensor& x, const Spec&) -> Ts {
      auto r = at::topk(x, k, -1, true, true);
      return {std::get<0>(r), std::get<1>(r)};
    };
    const std::string op = "topk" + std::to_string(k);
    op1n(g, op, k == 10 ? every : four, {kContig}, topk, th_topk);
    op1n(g, op, ff, k == 10 ? views : Lays{kT, kSlice2}, topk, th_topk);
  }
  // k: the median of each row
  const CtFnN kth = [](ct_tensor x, const at::Tensor& xt, const Spec&, ct_tensor* o) {
    return ct_kthvalue(x, xt.size(-1) / 2, -1, 0, &o[0], &o[1]);
  };
  const AtFnN th_kth = [](const at::Tensor& x, const Spec&) -> Ts {
    auto r = at::kthvalue(x, x.size(-1) / 2, -1, false);
    return {std::get<0>(r), std::get<1>(r)};
  };
  op1n(g, "kthvalue", four, {kContig}, kth, th_kth);
  op1n(g, "kthvalue", {"f32"}, views, kth, th_kth);
  // torch.unique(x, sorted=True, return_inverse=True, return_counts=True) over the flattened tensor
  const CtFnN unique = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    return ct_unique(x, 1, 1, 1, &o[0], &o[1], &o[2]);
  };
  const AtFnN th_unique = [](const at::Tensor& x, const Spec&) -> Ts {
    auto r = at::_unique2(x, true, true, true);
    return {std::get<0>(r), std::get<1>(r), std::get<2>(r)};
  };
  op1n(g, "unique", four, {kContig}, unique, th_unique);
  op1n(g, "unique", {"f32"}, {kT}, unique, th_unique);
  // boundaries: the first operand sorted along its rows (contiguous); values: the second
  // operand, in the layout
  auto search = [&](const std::string& name, const Spec& s, Lay lay) {
    Pair x = operand(g.d, *s.a, lay, 0), v = operand(g.d, *s.a, lay, 1);
    ct_tensor sv = nullptr, si = nullptr;
    CK(ct_sort(x.c, -1, 0, 0, &sv, &si));
    Ct seq(sv), seq_idx(si);
    const at::Tensor seqt = std::get<0>(at::sort(x.t, -1)), vt = v.t;
    const ct_tensor seqc = seq, vc = v.c;
    mrow(g.d, name, [=] { ct_tensor o; ct_drop(ct_searchsorted(seqc, vc, 0, 0, nullptr, nullptr, &o), &o); },
         [=] { return at::searchsorted(seqt, vt); }, {seqt, vt});
  };
  g.rows("searchsorted", four, {kContig}, search);
  g.rows("searchsorted", {"f32"}, views, search);
}

// Indexing. Index tensors contiguous (int64 unless the op's name says _i32idx), drawn uniformly
// in range; masks: the layout's bool operand (bcast_row: a bool [n] row against [n, n]).
void i21_indexing(const I21& g) {
  const Dev& d = g.d;
  const Dts ff{"f32", "f16"}, every{"f32", "f16", "bf16", "f64", "i32", "i64", "u8"};
  const Lays views{kT, kSlice2, kPerm};
  // index_select(x, dim, index): index of x.size(dim) entries
  auto index_select = [&](int64_t dim, bool i32) {
    return [&d, dim, i32](const std::string& name, const Spec& s, Lay lay) {
      Pair x = operand(d, *s.a, lay, 0);
      xi_row(d, name, x, index_pair(d, x.t.size(dim), {x.t.size(dim)}, i32),
             [dim](ct_tensor xc, ct_tensor ic, ct_tensor* o) { return ct_index_select(xc, dim, ic, o); },
             [dim](const at::Tensor& xt, const at::Tensor& it) { return at::index_select(xt, dim, it); });
    };
  };
  g.rows("index_select_dim0", every, {kContig}, index_select(0, false));
  g.rows("index_select_dim0", ff, views, index_select(0, false));
  g.rows("index_select_dim0_i32idx", ff, {kContig}, index_select(0, true));
  g.rows("index_select_dim0_i32idx", {"f32"}, views, index_select(0, true));
  g.rows("index_select_dim1", {"f32", "f16", "bf16", "i32"}, {kContig}, index_select(1, false));
  g.rows("index_select_dim1", ff, views, index_select(1, false));
  g.rows("index_select_dim1_i32idx", {"f32"}, {kContig, kT}, index_select(1, true));
  // gather(x, dim, index): index of x's shape (expanded: one row [1, ...] expanded to it)
  auto gather = [&](int64_t dim, bool expanded) {
    return [&d, dim, expanded](const std::string& name, const Spec& s, Lay lay) {
      Pair x = operand(d, *s.a, lay, 0);
      std::vector<int64_t> shape = x.t.sizes().vec();
      if (expanded) shape[0] = 1;
      Pair i0 = index_pair(d, x.t.size(dim), shape);
      const std::vector<int64_t> full = x.t.sizes().vec();
      Pair i = expanded ? Pair{NEWT(ct_expand(i0.c, full.data(), static_cast<int32_t>(full.size()), &o)),
                               i0.t.expand(full)}
                        : same(i0);
      xi_row(d, name, x, i, [dim](ct_tensor xc, ct_tensor ic, ct_tensor* o) { return ct_gather(xc, dim, ic, o); },
             [dim](const at::Tensor& xt, const at::Tensor& it) { return at::gather(xt, dim, it); });
    };
  };
  g.rows("gather_dim1", every, {kContig}, gather(1, false));
  g.rows("gather_dim1", ff, views, gather(1, false));
  g.rows("gather_dim0", {"f32", "f16", "i32"}, {kContig}, gather(0, false));
  g.rows("gather_dim0", {"f32"}, views, gather(0, false));
  g.rows("gather_dim1_expidx", ff, {kContig}, gather(1, true));
  g.rows("gather_dim1_expidx", {"f32"}, {kT}, gather(1, true));
  // take(x, index): index of x's shape, positions in [0, numel)
  auto take = [&](const std::string& name, const Spec& s, Lay lay) {
    Pair x = operand(d, *s.a, lay, 0);
    xi_row(d, name, x, index_pair(d, x.t.numel(), x.t.sizes().vec()),
           [](ct_tensor xc, ct_tensor ic, ct_tensor* o) { return ct_take(xc, ic, o); },
           [](const at::Tensor& xt, const at::Tensor& it) { return at::take(xt, it); });
  };
  g.rows("take", {"f32", "f16", "bf16", "i32", "u8"}, {kContig}, take);
  g.rows("take", {"f32"}, views, take);
  // scatter_add(x, 1, index, src): index of x's shape, src the second operand of the layout
  auto scatter_add = [&](const std::string& name, const Spec& s, Lay lay) {
    Pair x = operand(d, *s.a, lay, 0), src = operand(d, *s.a, lay, 1);
    Pair i = index_pair(d, x.t.size(1), x.t.sizes().vec());
    const ct_tensor xc = x.c, sc = src.c, ic = i.c;
    const at::Tensor xt = x.t, st = src.t, it = i.t;
    mrow(d, name, [=] { ct_tensor o; ct_drop(ct_scatter_add(xc, 1, ic, sc, &o), &o); },
         [=] { return at::scatter_add(xt, 1, it, st); }, {xt, it, st});
  };
  g.rows("scatter_add_dim1", every, {kContig}, scatter_add);
  g.rows("scatter_add_dim1", ff, views, scatter_add);
  // t.index_add_(0, index, src) in place: t a zeroed scratch tensor of the layout (made once, the
  // same for both libraries' calls: each call adds into it), src the layout's operand
  auto index_add = [&](bool i32) {
    return [&d, i32](const std::string& name, const Spec& s, Lay lay) {
      const int64_t n = d.n, r = d.rows > 0 ? d.rows : n;
      Pair base = empty_pair(d, *s.a, lay == kSlice2 ? std::vector<int64_t>{r, 2 * n} : std::vector<int64_t>{r, n});
      CK(ct_fill_(base.c, 0.0));
      base.t.zero_();
      Pair t = view_of(base, lay, 0), src = operand(d, *s.a, lay, 0);
      Pair i = index_pair(d, t.t.size(0), {src.t.size(0)}, i32);
      const ct_tensor tc = t.c, sc = src.c, ic = i.c;
      const at::Tensor tt = t.t, st = src.t, it = i.t;
      mrow(d, name, [=] { CK(ct_index_add_(tc, 0, ic, sc, 1.0)); }, [=] { return tt.index_add_(0, it, st); },
           {tt, it, st});
    };
  };
  g.rows("index_add__dim0", every, {kContig}, index_add(false));
  g.rows("index_add__dim0", ff, views, index_add(false));
  g.rows("index_add__dim0_i32idx", {"f32"}, {kContig}, index_add(true));
  // masked_fill(x, mask, 0.5) (7 for integer dtypes) and masked_select(x, mask)
  auto masked = [&](bool select) {
    return [&d, select](const std::string& name, const Spec& s, Lay lay) {
      Pair x = operand(d, *s.a, lay, 0), m = operand(d, dt("bool"), lay, lay == kRow ? 1 : 0);
      const ct_tensor xc = x.c, mc = m.c;
      const at::Tensor xt = x.t, mt = m.t;
      const double v = s.a->fp ? 0.5 : 7.0;
      const at::Scalar tv = s.a->fp ? at::Scalar(0.5) : at::Scalar(static_cast<int64_t>(7));
      if (select)
        mrow(d, name, [=] { ct_tensor o; ct_drop(ct_masked_select(xc, mc, &o), &o); },
             [=] { return at::masked_select(xt, mt); }, {xt, mt});
      else
        mrow(d, name, [=] { ct_tensor o; ct_drop(ct_masked_fill(xc, mc, v, &o), &o); },
             [=] { return at::masked_fill(xt, mt, tv); }, {xt, mt});
    };
  };
  g.rows("masked_fill", every, {kContig}, masked(false));
  g.rows("masked_fill", ff, {kT, kSlice2, kPerm, kRow}, masked(false));
  g.rows("masked_select", every, {kContig}, masked(true));
  g.rows("masked_select", ff, views, masked(true));
  g.rows("masked_select", {"f32"}, {kRow}, masked(true));
  // nonzero(x) and where(x) (one argument): a bool x is about half true, other dtypes all nonzero
  const CtFnN nonzero = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) { return ct_nonzero(x, o); };
  const AtFnN th_nonzero = [](const at::Tensor& x, const Spec&) -> Ts { return {at::nonzero(x)}; };
  op1n(g, "nonzero", {"bool", "f32", "f16", "bf16", "i32"}, {kContig}, nonzero, th_nonzero);
  op1n(g, "nonzero", {"bool"}, views, nonzero, th_nonzero);
  op1n(g, "nonzero", {"f32"}, {kT}, nonzero, th_nonzero);
  const CtFnN where1 = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    int32_t n = 0;
    return ct_where_cond(x, o, 3, &n);
  };
  const AtFnN th_where1 = [](const at::Tensor& x, const Spec&) -> Ts { return at::where(x); };
  op1n(g, "where_cond", {"bool", "f32"}, {kContig}, where1, th_where1);
  op1n(g, "where_cond", {"bool"}, {kT}, where1, th_where1);
}

// Row functions: softmax / log_softmax over the last dim and dim 0, logsumexp over the last dim,
// var over dim 1 (unbiased) and over the last dim with correction=1, std_mean over the last dim,
// layer_norm over the last dim (weight and bias), the Frobenius norm of the matrices of the last
// two dims (contig: a batch [n*n/131072, 128, 1024]; transposed, slice2: one [n, n] matrix;
// permute3d: a batch [1024, n*n/131072, 128]).
void i21_rowfuncs(const I21& g) {
  const Dts fl{"f32", "f16", "bf16", "f64"}, ff{"f32", "f16"};
  const Lays views{kT, kSlice2, kPerm};
  for (int32_t dim : {-1, 0})
    for (bool log : {false, true}) {
      const CtFnN ctf = [dim, log](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
        return log ? ct_log_softmax(x, dim, CT_DTYPE_UNDEFINED, o) : ct_softmax(x, dim, CT_DTYPE_UNDEFINED, o);
      };
      const AtFnN atf = [dim, log](const at::Tensor& x, const Spec&) -> Ts {
        return {log ? at::log_softmax(x, static_cast<int64_t>(dim)) : at::softmax(x, static_cast<int64_t>(dim))};
      };
      const std::string op = std::string(log ? "log_softmax" : "softmax") + (dim < 0 ? "" : "_dim0");
      op1n(g, op, fl, {kContig}, ctf, atf);
      op1n(g, op, ff, views, ctf, atf);
    }
  const CtFnN lse = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    const int64_t dim = -1;
    return ct_logsumexp(x, &dim, 1, 0, o);
  };
  const AtFnN th_lse = [](const at::Tensor& x, const Spec&) -> Ts {
    return {at::logsumexp(x, at::IntArrayRef{-1}, false)};
  };
  op1n(g, "logsumexp", fl, {kContig}, lse, th_lse);
  op1n(g, "logsumexp", ff, views, lse, th_lse);
  const CtFnN var1 = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    const int64_t dim = 1;
    return ct_var(x, &dim, 1, 1.0, 0, o);
  };
  const AtFnN th_var1 = [](const at::Tensor& x, const Spec&) -> Ts {
    return {at::var(x, at::IntArrayRef{1}, /*unbiased=*/true)};
  };
  op1n(g, "var_dim1", fl, {kContig}, var1, th_var1);
  op1n(g, "var_dim1", ff, views, var1, th_var1);
  const CtFnN var_c = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    const int64_t dim = -1;
    return ct_var(x, &dim, 1, 1.0, 0, o);
  };
  const AtFnN th_var_c = [](const at::Tensor& x, const Spec&) -> Ts {
    const std::vector<int64_t> dims{-1};
    return {at::var(x, at::OptionalIntArrayRef(at::IntArrayRef(dims)), /*correction=*/at::Scalar(1),
                    false)};
  };
  op1n(g, "var_corr1", ff, {kContig, kPerm}, var_c, th_var_c);
  const CtFnN std_mean = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    const int64_t dim = -1;
    return ct_std_mean(x, &dim, 1, 1.0, 0, &o[0], &o[1]);
  };
  const AtFnN th_std_mean = [](const at::Tensor& x, const Spec&) -> Ts {
    const std::vector<int64_t> dims{-1};
    auto r = at::std_mean(x, at::OptionalIntArrayRef(at::IntArrayRef(dims)),
                          /*correction=*/at::Scalar(1), false);
    return {std::get<0>(r), std::get<1>(r)};
  };
  op1n(g, "std_mean", fl, {kContig}, std_mean, th_std_mean);
  op1n(g, "std_mean", {"f32"}, views, std_mean, th_std_mean);
  // layer_norm over the last dim, weight and bias of its size (eps 1e-5)
  auto layer_norm = [&](const std::string& name, const Spec& s, Lay lay) {
    Pair x = operand(g.d, *s.a, lay, 0);
    const int64_t last = x.t.size(-1);
    Pair w = random_pair(g.d, *s.a, {last}), b = random_pair(g.d, *s.a, {last});
    const ct_tensor xc = x.c, wc = w.c, bc = b.c;
    const at::Tensor xt = x.t, wt = w.t, bt = b.t;
    mrow(g.d, name, [=] { ct_tensor o; ct_drop(ct_layer_norm(xc, &last, 1, wc, bc, 1e-5, &o), &o); },
         [=] { return at::layer_norm(xt, {last}, wt, bt, 1e-5); }, {xt});
  };
  g.rows("layer_norm", fl, {kContig}, layer_norm);
  g.rows("layer_norm", ff, views, layer_norm);
  // linalg.matrix_norm(x, "fro") over the last two dims
  auto fro = [&](const std::string& name, const Spec& s, Lay lay) {
    Pair x = operand(g.d, *s.a, lay, 0);
    if (lay == kContig && x.t.numel() % (128 * 1024) == 0) {  // (the small class: one [64, 1000] matrix)
      const std::vector<int64_t> s3{x.t.numel() / (128 * 1024), 128, 1024};
      x = Pair{NEWT(ct_reshape(x.c, s3.data(), 3, &o)), x.t.reshape(s3)};
    }
    const ct_tensor xc = x.c;
    const at::Tensor xt = x.t;
    const std::string ord = "fro";
    mrow(g.d, name, [=] { ct_tensor o; ct_drop(ct_matrix_norm_str(xc, "fro", -2, -1, 0, &o), &o); },
         [=] { return at::linalg_matrix_norm(xt, ord, at::IntArrayRef{-2, -1}, false); }, {xt});
  };
  g.rows("matrix_norm_fro", fl, {kContig}, fro);
  g.rows("matrix_norm_fro", {"f32"}, views, fro);
}

// Section 31's elementwise functions: one operand (unary table ops, gelu, nan_to_num) and two
// or three (lerp, addcmul, addcdiv, isclose, clamp by tensors, where with a scalar), the extra
// operands of the layout's second kind (operand(.., 1): contig, views, broadcast rows).
void i21_ewfuncs(const I21& g) {
  const Dts fl{"f32", "f16", "bf16", "f64"}, ff{"f32", "f16"};
  const Lays views{kT, kSlice2, kPerm};
  const struct {
    const char* name;
    ct_unary_op op;
    at::Tensor (*f)(const at::Tensor&);
  } un[] = {{"erf", CT_ERF, [](const at::Tensor& x) { return at::erf(x); }},
            {"silu", CT_SILU, [](const at::Tensor& x) { return at::silu(x); }},
            {"isnan", CT_ISNAN, [](const at::Tensor& x) { return at::isnan(x); }},
            {"isinf", CT_ISINF, [](const at::Tensor& x) { return at::isinf(x); }},
            {"isfinite", CT_ISFINITE, [](const at::Tensor& x) { return at::isfinite(x); }}};
  for (const auto& u : un) {
    const ct_unary_op op = u.op;
    const auto f = u.f;
    const CtFnN ctf = [op](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) { return ct_unary(op, x, o); };
    const AtFnN atf = [f](const at::Tensor& x, const Spec&) -> Ts { return {f(x)}; };
    op1n(g, u.name, fl, {kContig}, ctf, atf);
    op1n(g, u.name, ff, views, ctf, atf);
  }
  for (const char* approx : {"none", "tanh"}) {
    const std::string a = approx;
    const CtFnN ctf = [a](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) { return ct_gelu(x, a.c_str(), o); };
    const AtFnN atf = [a](const at::Tensor& x, const Spec&) -> Ts { return {at::gelu(x, a)}; };
    op1n(g, std::string("gelu_") + approx, fl, {kContig}, ctf, atf);
    op1n(g, std::string("gelu_") + approx, ff, views, ctf, atf);
  }
  const CtFnN n2n = [](ct_tensor x, const at::Tensor&, const Spec&, ct_tensor* o) {
    return ct_nan_to_num(x, 0, 0, 0, 0, 0, 0, o);
  };
  const AtFnN th_n2n = [](const at::Tensor& x, const Spec&) -> Ts { return {at::nan_to_num(x)}; };
  op1n(g, "nan_to_num", fl, {kContig}, n2n, th_n2n);
  op1n(g, "nan_to_num", ff, views, n2n, th_n2n);
  // ops of x and y (and a third operand, y again): y of the layout's second kind, of the second
  // dtype in a mixed row ("f32+f16": x float32, y float16; the result float32, as PyTorch's)
  using Ct2 = std::function<ct_status(ct_tensor, ct_tensor, ct_tensor*)>;
  using At2 = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;
  auto two = [&](const std::string& op, const Dts& dts, const Lays& lays, const Ct2& ctf, const At2& atf) {
    g.rows(op, dts, lays, [&](const std::string& name, const Spec& s, Lay lay) {
      Pair x = operand(g.d, *s.a, lay, 0), y = operand(g.d, s.b ? *s.b : *s.a, lay, 1);
      const ct_tensor xc = x.c, yc = y.c;
      const at::Tensor xt = x.t, yt = y.t;
      mrow(g.d, name, [=] { ct_tensor o; ct_drop(ctf(xc, yc, &o), &o); }, [=] { return atf(xt, yt); }, {xt, yt});
    });
  };
  const Lays lay2{kT, kSlice2, kPerm, kRow};
  two("lerp_scalar", fl, {kContig}, [](ct_tensor x, ct_tensor y, ct_tensor* o) { return ct_lerp_scalar(x, y, 0.3, o); },
      [](const at::Tensor& x, const at::Tensor& y) { return at::lerp(x, y, 0.3); });
  two("lerp_scalar", ff, lay2, [](ct_tensor x, ct_tensor y, ct_tensor* o) { return ct_lerp_scalar(x, y, 0.3, o); },
      [](const at::Tensor& x, const at::Tensor& y) { return at::lerp(x, y, 0.3); });
  const Ct2 lerp = [](ct_tensor x, ct_tensor y, ct_tensor* o) { return ct_lerp(x, y, y, o); };
  const At2 th_lerp = [](const at::Tensor& x, const at::Tensor& y) { return at::lerp(x, y, y); };
  two("lerp", fl, {kContig}, lerp, th_lerp);
  two("lerp", {"f32"}, lay2, lerp, th_lerp);
  const Ct2 addcmul = [](ct_tensor x, ct_tensor y, ct_tensor* o) { return ct_addcmul(x, y, y, 0.5, o); };
  const At2 th_addcmul = [](const at::Tensor& x, const at::Tensor& y) { return at::addcmul(x, y, y, 0.5); };
  two("addcmul", fl, {kContig}, addcmul, th_addcmul);
  two("addcmul", ff, lay2, addcmul, th_addcmul);
  const Ct2 addcdiv = [](ct_tensor x, ct_tensor y, ct_tensor* o) { return ct_addcdiv(x, y, y, 0.5, o); };
  const At2 th_addcdiv = [](const at::Tensor& x, const at::Tensor& y) { return at::addcdiv(x, y, y, 0.5); };
  two("addcdiv", fl, {kContig}, addcdiv, th_addcdiv);
  two("addcdiv", {"f32"}, lay2, addcdiv, th_addcdiv);
  const Ct2 isclose = [](ct_tensor x, ct_tensor y, ct_tensor* o) { return ct_isclose(x, y, 1e-5, 1e-8, 0, o); };
  const At2 th_isclose = [](const at::Tensor& x, const at::Tensor& y) { return at::isclose(x, y, 1e-5, 1e-8, false); };
  two("isclose", {"f32", "f16", "bf16", "f64", "i32"}, {kContig}, isclose, th_isclose);
  two("isclose", {"f32"}, lay2, isclose, th_isclose);
  // clamp(x, min=y, max=y + 1): bounds of the second kind
  const Ct2 clampt = [](ct_tensor x, ct_tensor y, ct_tensor* o) { return ct_clamp_tensor(x, y, nullptr, o); };
  const At2 th_clampt = [](const at::Tensor& x, const at::Tensor& y) { return at::clamp(x, c10::optional<at::Tensor>(y), c10::optional<at::Tensor>()); };
  two("clamp_min_tensor", {"f32", "f16", "bf16", "f64", "i32"}, {kContig}, clampt, th_clampt);
  two("clamp_min_tensor", {"f32"}, lay2, clampt, th_clampt);
  // mixed dtypes: a float32 tensor with a float16 or bfloat16 one, the result float32 (lerp and
  // isclose take one dtype, in PyTorch as here)
  const Dts mixed{"f32+f16", "f32+bf16"};
  two("addcmul", mixed, {kContig, kT}, addcmul, th_addcmul);
  two("addcdiv", mixed, {kContig}, addcdiv, th_addcdiv);
  two("clamp_min_tensor", mixed, {kContig, kT}, clampt, th_clampt);
  // where(x > 0, x, 0.0): the condition computed once, of x's layout
  g.rows("where_scalar", {"f32", "f16", "bf16", "f64", "i32"}, {kContig, kT, kSlice2, kPerm},
         [&](const std::string& name, const Spec& s, Lay lay) {
           Pair x = operand(g.d, *s.a, lay, 0);
           ct_tensor cond = nullptr;
           CK(ct_binary_scalar_f(CT_GT, x.c, 0.0, 0, &cond));
           at::Tensor tcond = x.t > 0;
           const ct_tensor xc = x.c;
           const at::Tensor xt = x.t;
           const bool fp = s.a->fp;
           mrow(g.d, name,
                [=] {
                  ct_tensor o;
                  ct_drop(fp ? ct_where_scalar_f(cond, xc, 0.0, 0, &o) : ct_where_scalar_i(cond, xc, 0, 0, &o), &o);
                },
                [=] { return fp ? at::where(tcond, xt, at::Scalar(0.0)) : at::where(tcond, xt, at::Scalar(int64_t{0})); },
                {xt, tcond});
           CK(ct_tensor_release(cond));
         });
}

// Issue 21's rows (GPU: the matrix's size, or the small class; CPU: a few float32 rows).
void i21_matrix(const Dev& d, I21Mode mode) {
  const I21 g{d, mode};
  i21_scans(g);
  i21_sorting(g);
  i21_indexing(g);
  i21_rowfuncs(g);
  i21_ewfuncs(g);
}

void gpu_matrix(const Dev& g) {
  const Dts every{"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "i8", "bool"};
  const Lays views{kT, kSlice2, kPerm};  // the one-operand layouts besides contig
  const Lays bin_all{kRow, kCol, kCpu0d, kScalar, kT, kTC, kSlice2, kPerm};
  Dts add_dts = every;
  add_dts.insert(add_dts.end(), {"f32+f16", "f32+bf16"});

  binary(g, kAdd, add_dts, {kContig});
  binary(g, kAdd, {"f32", "f16"}, bin_all);
  binary(g, kAdd, {"bf16", "i32"}, {kRow, kScalar, kT});
  binary(g, kAdd, {"f32+f16"}, {kRow, kT});
  binary(g, kMul, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool", "f32+f16"}, {kContig});
  binary(g, kMul, {"f32"}, bin_all);
  binary(g, kMul, {"f16"}, {kRow, kCol, kScalar, kT});
  binary(g, kDiv, {"f32", "f16", "bf16", "f64", "i32", "f32+f16"}, {kContig});
  binary(g, kDiv, {"f32"}, {kRow, kCol, kCpu0d, kScalar, kT});
  binary(g, kDiv, {"f16"}, {kScalar});
  binary(g, kPow, {"f32", "f16"}, {kContig, kScalar});
  binary(g, kPow, {"f32"}, {kRow, kCpu0d});
  // division by a CPU scalar is a multiplication by its reciprocal (Note [Division by a CPU
  // scalar]); the heavy ops have kernels of their own (Note [Heavy binary ops])
  binary(g, kDiv, {"bf16", "f64", "i32"}, {kScalar, kCpu0d});
  binary(g, kAtan2, {"f32", "f16", "f64"}, {kContig});
  binary(g, kAtan2, {"f32"}, {kRow, kT});
  binary(g, kRemainder, {"f32", "i32"}, {kContig, kScalar});
  binary(g, kFloorDivide, {"f32", "i64"}, {kContig, kScalar});
  binary(g, kEq, {"f32", "f16", "bf16", "i32", "i64", "u8", "bool", "f32+f16"}, {kContig});
  binary(g, kEq, {"f32"}, {kRow, kScalar, kT});
  binary(g, kLt, {"f32", "f16", "bf16", "f64", "i64", "u8"}, {kContig});
  binary(g, kLt, {"f32"}, {kCol, kCpu0d, kScalar, kT, kSlice2});
  where(g, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool", "f32+f16"}, {kContig});
  where(g, {"f32"}, {kRow, kCol, kCpu0d, kT, kSlice2});
  where(g, {"f16"}, {kRow, kT});
  clamp(g, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8"}, {kContig});
  clamp(g, {"f32"}, views);
  clamp(g, {"f16"}, {kT});

  auto exp = [](const at::Tensor& x) { return at::exp(x); };
  auto sigmoid = [](const at::Tensor& x) { return at::sigmoid(x); };
  unary(g, "exp", CT_EXP, exp, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool"}, {kContig});
  unary(g, "exp", CT_EXP, exp, {"f32", "f16", "bf16"}, views);
  unary(g, "sigmoid", CT_SIGMOID, sigmoid, {"f32", "f16", "bf16", "f64"}, {kContig});
  unary(g, "sigmoid", CT_SIGMOID, sigmoid, {"f32", "f16"}, {kT, kSlice2});

  cast(g, {"f32->f16", "f32->bf16", "f16->f32", "bf16->f32", "f16->bf16", "f32->f64", "f64->f32", "f32->i32",
           "i32->f32", "f32->i64", "i64->f32", "i32->i64", "i64->i32", "u8->f32", "f32->u8", "i8->f32", "bool->f32",
           "f32->bool"},
       {kContig});
  cast(g, {"f32->f16", "f16->f32"}, views);
  cast(g, {"f32->bf16", "bf16->f32"}, {kT});
  copy(g, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool", "f32->f16", "f16->f32", "f32->bf16", "i32->i64"},
       {kContig});
  copy(g, {"f32"}, {kRow, kCol, kCpu0d, kT, kSlice2, kPerm});
  copy(g, {"f16"}, {kT, kPerm});
  copy(g, {"f32->f16", "f16->f32"}, {kT});
  contiguous(g, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool"}, {kT});
  contiguous(g, {"f32", "f16", "bf16"}, {kSlice2, kPerm});
  fill(g, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool"}, {kContig});
  fill(g, {"f32"}, views);
  fill(g, {"f16"}, {kSlice2});

  reduction(g, "sum", CT_SUM, -1, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool", "f16->f32", "bf16->f32"},
            {kContig});
  reduction(g, "sum", CT_SUM, -1, {"f32", "f16", "bf16"}, views);
  reduction(g, "sum", CT_SUM, 1, {"f32", "f16", "bf16", "f64", "i32", "i64"}, {kContig});
  reduction(g, "sum", CT_SUM, 1, {"f32", "f16", "bf16"}, views);
  reduction(g, "sum", CT_SUM, 0, {"f32", "f16", "bf16"}, {kContig, kT});
  reduction(g, "mean", CT_MEAN, -1, {"f32", "f16", "bf16", "f64"}, {kContig});
  reduction(g, "mean", CT_MEAN, -1, {"f32", "f16"}, {kT});
  reduction(g, "mean", CT_MEAN, 1, {"f32", "f16", "bf16"}, {kContig});
  reduction(g, "mean", CT_MEAN, 1, {"f32", "f16"}, {kT});
  reduction(g, "mean", CT_MEAN, 0, {"f32"}, {kContig});
  reduction(g, "amax", CT_AMAX, -1, {"f32", "f16", "bf16", "i32"}, {kContig});
  reduction(g, "amax", CT_AMAX, -1, {"f32"}, {kT});
  reduction(g, "amax", CT_AMAX, 1, {"f32", "f16", "bf16", "i32", "u8"}, {kContig});
  reduction(g, "amax", CT_AMAX, 1, {"f32", "f16"}, {kT});
  reduction(g, "amax", CT_AMAX, 0, {"f32", "f16"}, {kContig});
  argmax(g, -1, {"f32", "f16"}, {kContig});
  argmax(g, 1, {"f32", "f16", "bf16", "i32", "i64"}, {kContig});
  argmax(g, 1, {"f32", "f16"}, {kT});
  argmax(g, 0, {"f32", "f16"}, {kContig});

  join(g, false, 0, {"f32", "f16", "i64"}, {kContig});
  join(g, false, 0, {"f32"}, {kT});
  join(g, false, 1, {"f32", "f16", "bf16", "f64", "i32", "i64", "u8", "bool", "f32+f16"}, {kContig});
  join(g, false, 1, {"f32", "f16"}, {kT, kSlice2});
  join(g, true, 0, {"f32", "f16", "i64"}, {kContig});
  join(g, true, 0, {"f32"}, {kT});
  join(g, true, 1, {"f32", "f16"}, {kContig});
  join(g, true, 2, {"f32", "f16"}, {kContig});

  i21_matrix(g, kI21Full);
}

void cpu_matrix(const Dev& c) {
  binary(c, kAdd, {"f32", "f16", "bf16"}, {kContig});
  binary(c, kAdd, {"f32"}, {kRow});
  unary(c, "exp", CT_EXP, [](const at::Tensor& x) { return at::exp(x); }, {"f32"}, {kContig});
  reduction(c, "sum", CT_SUM, -1, {"f32", "f16"}, {kContig});
  reduction(c, "sum", CT_SUM, 1, {"f32"}, {kContig});
  cast(c, {"f32->f16"}, {kContig});
  // floating -> integer casts check each value's range (Note [Float to integer casts])
  cast(c, {"f32->i32", "f32->i64", "f64->i32", "f64->i64", "f16->i32", "bf16->i64", "f32->u8", "f32->i8", "f32->bool"},
       {kContig});
  cast(c, {"f32->i32"}, {kT});
  contiguous(c, {"f32"}, {kT});
  each(c, "matmul_1024", {"f32"}, {kContig}, [&](const std::string& name, const Spec& s, Lay) {
    Pair x = random_pair(c, *s.a, {1024, 1024}), y = random_pair(c, *s.a, {1024, 1024});
    const ct_tensor xc = x.c, yc = y.c;
    const at::Tensor xt = x.t, yt = y.t;
    run({name, c.clock, 0, c.rounds, [=] { ct_tensor o; ct_drop(ct_mm(xc, yc, &o), &o); },
         [=] { at::Tensor o = at::mm(xt, yt); }, 0, kRoundMs});
  });
  i21_matrix(c, kI21Cpu);
}

// The CPUs this process may run on (what nproc prints), or GPU_BENCH_THREADS.
int cpu_threads() {
  if (const char* e = std::getenv("GPU_BENCH_THREADS")) return std::max(1, std::atoi(e));
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// ---- scans (issue 21; ctorch.h section 28): torch.cumsum on CUDA against at::cumsum, float32
// and float16, rows "cumsum/<dtype>/<size>": 16M elements as one row (cub::DeviceScan in both),
// [4096, 4096] along the last dim and along dim 0, and a small [64, 1000] along the last dim.
// Bytes: the input read and the output written.
void scan_bench() {
  struct Case {
    const char* size;
    std::vector<int64_t> shape;
    int64_t dim;
  };
  const Case cases[] = {{"16M", {1LL << 24}, 0},
                        {"4096x4096_dim1", {4096, 4096}, 1},
                        {"4096x4096_dim0", {4096, 4096}, 0},
                        {"64x1000", {64, 1000}, 1}};
  const std::pair<ct_dtype, at::ScalarType> dts[] = {{CT_FLOAT32, at::kFloat}, {CT_FLOAT16, at::kHalf}};
  for (const auto& dt : dts)
    for (const Case& c : cases) {
      const std::string name = std::string("cumsum/") + (dt.first == CT_FLOAT32 ? "float32/" : "float16/") + c.size;
      if (!wanted(name)) continue;
      ct_tensor x;
      CK(ct_rand(c.shape.data(), static_cast<int32_t>(c.shape.size()), dt.first, CT_CUDA, 0, nullptr, &x));
      at::Tensor tx = at::rand(c.shape, at::TensorOptions().device(at::kCUDA, 0).dtype(dt.second));
      const int64_t dim = c.dim;
      run({name, kGpu, 20, 7, [&] { ct_tensor y; ct_drop(ct_cumsum(x, dim, CT_DTYPE_UNDEFINED, &y), &y); },
           [&] { at::Tensor y = at::cumsum(tx, dim); }, 2.0 * static_cast<double>(tx.nbytes())});
      CK(ct_tensor_release(x));
    }
}
// ---- sorting and selection (issue 21; ctorch.h section 29): rows "sort/<dtype>/<shape>" and
// "topk<k>/<dtype>/<shape>" against at::sort / at::topk along the last dim, float32 and float16,
// large (16M 1-D; [4096, 4096]) and small ([64, 1000]).
void sorting_rows() {
  const struct {
    const char* name;
    ct_dtype dt;
    at::ScalarType st;
  } dts[] = {{"f32", CT_FLOAT32, at::kFloat}, {"f16", CT_FLOAT16, at::kHalf}};
  const std::vector<std::vector<int64_t>> shapes{{1 << 24}, {4096, 4096}, {64, 1000}};
  for (const auto& dt : dts)
    for (const auto& shape : shapes) {
      std::string sh;
      for (int64_t s : shape) sh += (sh.empty() ? "" : "x") + std::to_string(s);
      const std::string suffix = std::string("/") + dt.name + "/" + sh;
      if (!wanted("sort" + suffix) && !wanted("topk10" + suffix) && !wanted("topk1000" + suffix)) continue;
      ct_tensor x;
      CK(ct_rand(shape.data(), static_cast<int32_t>(shape.size()), dt.dt, CT_CUDA, 0, nullptr, &x));
      at::Tensor tx = at::rand(shape, at::TensorOptions().device(at::kCUDA).dtype(dt.st));
      const int iters = shape.size() == 2 && shape[0] == 64 ? 200 : 10;
      run({"sort" + suffix, kGpu, iters, 7,
           [&] {
             ct_tensor v, i;
             CK(ct_sort(x, -1, 0, 0, &v, &i));
             CK(ct_tensor_release(v));
             CK(ct_tensor_release(i));
           },
           [&] { auto r = at::sort(tx, -1); }});
      for (int64_t k : {10, 1000}) {
        run({"topk" + std::to_string(k) + suffix, kGpu, iters, 7,
             [&] {
               ct_tensor v, i;
               CK(ct_topk(x, k, -1, 1, 1, &v, &i));
               CK(ct_tensor_release(v));
               CK(ct_tensor_release(i));
             },
             [&] { auto r = at::topk(tx, k, -1); }});
      }
      CK(ct_tensor_release(x));
    }
}
// ---- end of sorting and selection
// ---- indexing (issue 21): index_select, gather, masked_select over float32 and float16, large
// ([4096, 4096], 16M elements) and small ([64, 1000]); indices and masks drawn in each library.
void indexing_rows() {
  const struct {
    const char* name;
    ct_dtype ct;
    at::ScalarType st;
  } kinds[] = {{"f32", CT_FLOAT32, at::kFloat}, {"f16", CT_FLOAT16, at::kHalf}};
  const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
  for (const auto& k : kinds) {
    for (const auto& sz : {std::pair<int64_t, int64_t>{4096, 4096}, std::pair<int64_t, int64_t>{64, 1000}}) {
      const int64_t r = sz.first, c = sz.second;
      const std::string tail = std::string("_") + k.name + "_" + std::to_string(r) + "x" + std::to_string(c);
      ct_tensor x0, x, idx, gi, u, m;
      CK(ct_randn(SZ(r, c), 2, CT_FLOAT32, CT_CUDA, 0, nullptr, &x0));
      CK(ct_tensor_to(x0, CT_CUDA, 0, k.ct, 0, 0, &x));
      CK(ct_tensor_release(x0));
      CK(ct_randint(0, r, SZ(r), 1, CT_INT64, CT_CUDA, 0, nullptr, &idx));
      CK(ct_randint(0, c, SZ(r, c), 2, CT_INT64, CT_CUDA, 0, nullptr, &gi));
      CK(ct_rand(SZ(r, c), 2, CT_FLOAT32, CT_CUDA, 0, nullptr, &u));
      CK(ct_binary_scalar_f(CT_GT, u, 0.5, 0, &m));
      CK(ct_tensor_release(u));
      at::Tensor tx = at::randn({r, c}, cuda.dtype(at::kFloat)).to(k.st);
      at::Tensor tidx = at::randint(0, r, {r}, cuda.dtype(at::kLong));
      at::Tensor tgi = at::randint(0, c, {r, c}, cuda.dtype(at::kLong));
      at::Tensor tm = at::rand({r, c}, cuda.dtype(at::kFloat)) > 0.5;
      const double bytes = 2.0 * static_cast<double>(tx.nbytes());
      if (wanted("index_select" + tail))
        run({"index_select" + tail, kGpu, 20, 7, [&] { ct_tensor y; ct_drop(ct_index_select(x, 0, idx, &y), &y); },
             [&] { at::Tensor y = at::index_select(tx, 0, tidx); }, bytes});
      if (wanted("gather" + tail))
        run({"gather" + tail, kGpu, 20, 7, [&] { ct_tensor y; ct_drop(ct_gather(x, 1, gi, &y), &y); },
             [&] { at::Tensor y = at::gather(tx, 1, tgi); }, bytes + static_cast<double>(tgi.nbytes())});
      if (wanted("masked_select" + tail))
        run({"masked_select" + tail, kGpu, 20, 7, [&] { ct_tensor y; ct_drop(ct_masked_select(x, m, &y), &y); },
             [&] { at::Tensor y = at::masked_select(tx, tm); }, bytes});
      for (ct_tensor t : {x, idx, gi, m}) CK(ct_tensor_release(t));
    }
  }
}

// ---- row functions (section 32): softmax / log_softmax / layer_norm over float32 and float16
// rows ([8192, 8192] over the last dim, [64, 1000]), softmax over dim 0, var over dim 1; each
// reads its input once and writes its output once (the GB/s column).
void rowfunc_rows() {
  struct Shape2 {
    const char* tag;
    int64_t m, n;
  };
  const Shape2 shapes[] = {{"8192x8192", 8192, 8192}, {"64x1000", 64, 1000}};
  const struct {
    const char* tag;
    ct_dtype dt;
    at::ScalarType st;
  } kinds[] = {{"f32", CT_FLOAT32, at::kFloat}, {"f16", CT_FLOAT16, at::kHalf}};
  for (const Shape2& sh : shapes) {
    for (const auto& k : kinds) {
      const std::string sfx = std::string("_") + k.tag + "_" + sh.tag;
      if (!any_wanted({("softmax" + sfx).c_str(), ("log_softmax" + sfx).c_str(), ("layer_norm" + sfx).c_str(),
                       ("softmax_dim0" + sfx).c_str(), ("var_dim1" + sfx).c_str()}))
        continue;
      const int64_t m = sh.m, n = sh.n;
      const double bytes = 2.0 * m * n * (k.dt == CT_FLOAT16 ? 2 : 4);
      const int iters = m * n >= (1LL << 24) ? 10 : 200;
      ct_tensor x, w, b;
      CK(ct_randn(SZ(m, n), 2, k.dt, CT_CUDA, 0, nullptr, &x));
      CK(ct_randn(SZ(n), 1, k.dt, CT_CUDA, 0, nullptr, &w));
      CK(ct_randn(SZ(n), 1, k.dt, CT_CUDA, 0, nullptr, &b));
      auto opt = at::TensorOptions().device(at::kCUDA, 0).dtype(k.st);
      at::Tensor tx = at::randn({m, n}, opt), tw = at::randn({n}, opt), tb = at::randn({n}, opt);
      run({"softmax" + sfx, kGpu, iters, 7,
           [&] { ct_tensor o; ct_drop(ct_softmax(x, -1, CT_DTYPE_UNDEFINED, &o), &o); },
           [&] { at::Tensor o = at::softmax(tx, -1); }, bytes});
      run({"log_softmax" + sfx, kGpu, iters, 7,
           [&] { ct_tensor o; ct_drop(ct_log_softmax(x, -1, CT_DTYPE_UNDEFINED, &o), &o); },
           [&] { at::Tensor o = at::log_softmax(tx, -1); }, bytes});
      run({"softmax_dim0" + sfx, kGpu, iters, 7,
           [&] { ct_tensor o; ct_drop(ct_softmax(x, 0, CT_DTYPE_UNDEFINED, &o), &o); },
           [&] { at::Tensor o = at::softmax(tx, 0); }, bytes});
      const int64_t nn = n;
      run({"layer_norm" + sfx, kGpu, iters, 7,
           [&] { ct_tensor o; ct_drop(ct_layer_norm(x, &nn, 1, w, b, 1e-5, &o), &o); },
           [&] { at::Tensor o = at::layer_norm(tx, {nn}, tw, tb, 1e-5); }, bytes});
      const int64_t dim1 = 1;
      run({"var_dim1" + sfx, kGpu, iters, 7,
           [&] { ct_tensor o; ct_drop(ct_var(x, &dim1, 1, 1.0, 0, &o), &o); },
           [&] { at::Tensor o = at::var(tx, at::IntArrayRef{1}, /*unbiased=*/true); }, bytes / 2});
      for (ct_tensor t : {x, w, b}) CK(ct_tensor_release(t));
    }
  }
}

// ---- elementwise functions (section 31): gelu, silu, isnan, lerp with a scalar weight and
// where with a Python scalar over [8192, 8192] float32 and float16, contiguous and transposed
// (a strided read); each reads its inputs once and writes its output once (the GB/s column).
void ewfunc_rows() {
  const int64_t m = 8192, n = 8192;
  const struct {
    const char* tag;
    ct_dtype dt;
    at::ScalarType st;
    int64_t size;
  } kinds[] = {{"f32", CT_FLOAT32, at::kFloat, 4}, {"f16", CT_FLOAT16, at::kHalf, 2}};
  for (const auto& k : kinds) {
    for (int tr = 0; tr < 2; ++tr) {
      const std::string sfx = std::string("_") + k.tag + (tr ? "_transposed" : "_contiguous");
      if (!any_wanted({("gelu" + sfx).c_str(), ("silu" + sfx).c_str(), ("isnan" + sfx).c_str(),
                       ("lerp_scalar" + sfx).c_str(), ("where_scalar" + sfx).c_str()}))
        continue;
      const double elems = static_cast<double>(m) * n;
      ct_tensor x0, y0, c0, x, y, c;
      CK(ct_randn(SZ(m, n), 2, k.dt, CT_CUDA, 0, nullptr, &x0));
      CK(ct_randn(SZ(m, n), 2, k.dt, CT_CUDA, 0, nullptr, &y0));
      CK(ct_binary_scalar_f(CT_GT, x0, 0.0, 0, &c0));
      auto opt = at::TensorOptions().device(at::kCUDA, 0).dtype(k.st);
      at::Tensor tx = at::randn({m, n}, opt), ty = at::randn({m, n}, opt), tc = tx > 0;
      if (tr) {
        CK(ct_transpose(x0, 0, 1, &x));
        CK(ct_transpose(y0, 0, 1, &y));
        CK(ct_transpose(c0, 0, 1, &c));
        tx = tx.t(), ty = ty.t(), tc = tc.t();
      } else {
        for (ct_tensor t : {x0, y0, c0}) CK(ct_tensor_retain(t));
        x = x0, y = y0, c = c0;
      }
      run({"gelu" + sfx, kGpu, 10, 7, [&] { ct_tensor o; ct_drop(ct_gelu(x, "none", &o), &o); },
           [&] { at::Tensor o = at::gelu(tx); }, 2 * elems * k.size});
      run({"silu" + sfx, kGpu, 10, 7, [&] { ct_tensor o; ct_drop(ct_unary(CT_SILU, x, &o), &o); },
           [&] { at::Tensor o = at::silu(tx); }, 2 * elems * k.size});
      run({"isnan" + sfx, kGpu, 10, 7, [&] { ct_tensor o; ct_drop(ct_unary(CT_ISNAN, x, &o), &o); },
           [&] { at::Tensor o = at::isnan(tx); }, elems * (k.size + 1)});
      run({"lerp_scalar" + sfx, kGpu, 10, 7, [&] { ct_tensor o; ct_drop(ct_lerp_scalar(x, y, 0.3, &o), &o); },
           [&] { at::Tensor o = at::lerp(tx, ty, 0.3); }, 3 * elems * k.size});
      run({"where_scalar" + sfx, kGpu, 10, 7, [&] { ct_tensor o; ct_drop(ct_where_scalar_f(c, x, 0.0, 0, &o), &o); },
           [&] { at::Tensor o = at::where(tc, tx, 0.0); }, elems * (2 * k.size + 1)});
      for (ct_tensor t : {x0, y0, c0, x, y, c}) CK(ct_tensor_release(t));
    }
  }
}

int bench(int argc, char** argv) {
  if (argc > 1) g_filter = argv[1];
  auto cuda = at::TensorOptions().device(at::kCUDA, 0);
  auto f32 = cuda.dtype(at::kFloat);
  const int64_t N = 64LL << 20;  // 64M float32: 256 MiB
  const double B = 4.0 * N;

  // CPU kernels: both libraries with the same number of threads
  const int threads = cpu_threads();
  CK(ct_set_num_threads(threads));
  at::set_num_threads(threads);
  int32_t ct_threads = 0;
  CK(ct_get_num_threads(&ct_threads));
  std::printf("# cpu_threads %d (ctorch %d, torch %d)\n", threads, static_cast<int>(ct_threads),
              static_cast<int>(at::get_num_threads()));

  // ---- host costs
  if (any_wanted({"small_add_host", "small_add_host_f16", "small_add_bcast_host", "create_free_256f",
                  "launch_floor"})) {
    ct_tensor a;
    CK(ct_ones(SZ(1), 1, CT_FLOAT32, CT_CUDA, 0, &a));
    at::Tensor ta = at::ones({1}, f32);
    run({"small_add_host", kHost, 1000, 21,
         [&] { ct_tensor c; ct_drop(ct_binary(CT_ADD, a, a, &c), &c); },
         [&] { at::Tensor c = at::add(ta, ta); }});
    // the same add in float16, and a [4, 4] + [4] broadcast (the general path)
    ct_tensor h1, m44, v4;
    CK(ct_ones(SZ(1), 1, CT_FLOAT16, CT_CUDA, 0, &h1));
    CK(ct_ones(SZ(4, 4), 2, CT_FLOAT32, CT_CUDA, 0, &m44));
    CK(ct_ones(SZ(4), 1, CT_FLOAT32, CT_CUDA, 0, &v4));
    at::Tensor th1 = at::ones({1}, cuda.dtype(at::kHalf)), tm44 = at::ones({4, 4}, f32), tv4 = at::ones({4}, f32);
    run({"small_add_host_f16", kHost, 1000, 21,
         [&] { ct_tensor c; ct_drop(ct_binary(CT_ADD, h1, h1, &c), &c); },
         [&] { at::Tensor c = at::add(th1, th1); }});
    run({"small_add_bcast_host", kHost, 1000, 21,
         [&] { ct_tensor c; ct_drop(ct_binary(CT_ADD, m44, v4, &c), &c); },
         [&] { at::Tensor c = at::add(tm44, tv4); }});
    for (ct_tensor t : {h1, m44, v4}) CK(ct_tensor_release(t));
    static const int64_t k256[1] = {256};
    run({"create_free_256f", kHost, 20000, 21,
         [&] { ct_tensor c; ct_drop(ct_empty(k256, 1, CT_FLOAT32, CT_CUDA, 0, &c), &c); },
         [&] { at::Tensor c = at::empty({256}, f32); }});
    CK(ct_tensor_release(a));
    // the floor: an empty kernel launched the same way (reported against itself)
    if (wanted("launch_floor")) {
      std::vector<double> v;
      host_us([] { ct_bench_launch_empty(1); }, 1000);
      for (int r = 0; r < 21; ++r) v.push_back(host_us([] { ct_bench_launch_empty(1); }, 1000));
      std::printf("launch_floor %.4f %.4f us 1.000\n", median(v), median(v));
    }
  }

  // ---- elementwise, reductions, copies, random numbers on 64M float32
  if (any_wanted({"add_64M_f32", "mul_64M_f32", "chain3_64M_f32", "sum_64M_f32", "mean_64M_f32", "max_64M_f32",
                  "sum_dim1_8192x8192", "sum_dim0_8192x8192", "mean_dim1_8192x8192", "amax_dim1_8192x8192",
                  "d2d_copy_256MiB", "rand_64M_f32", "randn_64M_f32", "h2d_pinned_256MiB", "d2h_pinned_256MiB",
                  "h2d_pageable_256MiB", "d2h_pageable_256MiB"})) {
    ct_tensor a, b, c, d;
    CK(ct_rand(SZ(N), 1, CT_FLOAT32, CT_CUDA, 0, nullptr, &a));
    CK(ct_rand(SZ(N), 1, CT_FLOAT32, CT_CUDA, 0, nullptr, &b));
    CK(ct_rand(SZ(N), 1, CT_FLOAT32, CT_CUDA, 0, nullptr, &c));
    d = ct_new({N}, CT_FLOAT32);
    at::Tensor ta = at::rand({N}, f32), tb = at::rand({N}, f32), tc = at::rand({N}, f32), td = at::empty({N}, f32);
    run({"add_64M_f32", kGpu, 20, 7, [&] { ct_tensor o; ct_drop(ct_binary(CT_ADD, a, b, &o), &o); },
         [&] { at::Tensor o = at::add(ta, tb); }, 3 * B});
    run({"mul_64M_f32", kGpu, 20, 7, [&] { ct_tensor o; ct_drop(ct_binary(CT_MUL, a, b, &o), &o); },
         [&] { at::Tensor o = at::mul(ta, tb); }, 3 * B});
    // (a + b) * c - a: three kernels in both libraries (neither fuses in eager mode)
    run({"chain3_64M_f32", kGpu, 10, 7,
         [&] {
           ct_tensor s, p, q;
           CK(ct_binary(CT_ADD, a, b, &s));
           CK(ct_binary(CT_MUL, s, c, &p));
           CK(ct_tensor_release(s));
           ct_drop(ct_binary(CT_SUB, p, a, &q), &q);
           CK(ct_tensor_release(p));
         },
         [&] { at::Tensor q = (ta + tb) * tc - ta; }, 9 * B});
    run({"sum_64M_f32", kGpu, 20, 7,
         [&] { ct_tensor o; ct_drop(ct_reduce(CT_SUM, a, nullptr, 0, 0, CT_DTYPE_UNDEFINED, &o), &o); },
         [&] { at::Tensor o = at::sum(ta); }, B});
    run({"mean_64M_f32", kGpu, 20, 7,
         [&] { ct_tensor o; ct_drop(ct_reduce(CT_MEAN, a, nullptr, 0, 0, CT_DTYPE_UNDEFINED, &o), &o); },
         [&] { at::Tensor o = at::mean(ta); }, B});
    run({"max_64M_f32", kGpu, 20, 7, [&] { ct_tensor o; ct_drop(ct_max(a, &o), &o); },
         [&] { at::Tensor o = at::max(ta); }, B});
    // over one dim of an 8192 x 8192 view: the contiguous rows (dim 1) and the columns (dim 0)
    ct_tensor a2;
    CK(ct_reshape(a, SZ(8192, 8192), 2, &a2));
    at::Tensor ta2 = ta.view({8192, 8192});
    for (int64_t dim : {1, 0}) {
      std::string sfx = dim == 1 ? "_dim1_8192x8192" : "_dim0_8192x8192";
      run({"sum" + sfx, kGpu, 20, 7,
           [&] { ct_tensor o; ct_drop(ct_reduce(CT_SUM, a2, &dim, 1, 0, CT_DTYPE_UNDEFINED, &o), &o); },
           [&] { at::Tensor o = at::sum(ta2, at::IntArrayRef{dim}); }, B});
    }
    int64_t dim1 = 1;
    run({"mean_dim1_8192x8192", kGpu, 20, 7,
         [&] { ct_tensor o; ct_drop(ct_reduce(CT_MEAN, a2, &dim1, 1, 0, CT_DTYPE_UNDEFINED, &o), &o); },
         [&] { at::Tensor o = at::mean(ta2, at::IntArrayRef{1}); }, B});
    run({"amax_dim1_8192x8192", kGpu, 20, 7,
         [&] { ct_tensor o; ct_drop(ct_reduce(CT_AMAX, a2, &dim1, 1, 0, CT_DTYPE_UNDEFINED, &o), &o); },
         [&] { at::Tensor o = at::amax(ta2, at::IntArrayRef{1}); }, B});
    CK(ct_tensor_release(a2));
    run({"d2d_copy_256MiB", kGpu, 20, 7, [&] { CK(ct_tensor_copy_(d, a, 0)); }, [&] { td.copy_(ta); }, 2 * B});
    run({"rand_64M_f32", kGpu, 20, 7, [&] { CK(ct_tensor_uniform_(d, 0.0, 1.0, nullptr)); },
         [&] { td.uniform_(0.0, 1.0); }, B});
    run({"randn_64M_f32", kGpu, 20, 7, [&] { CK(ct_tensor_normal_(d, 0.0, 1.0, nullptr)); },
         [&] { td.normal_(0.0, 1.0); }, B});

    // host <-> device: pinned (non_blocking, GPU time) and pageable (synchronous, wall time)
    ct_tensor hp, hpin;
    CK(ct_ones(SZ(N), 1, CT_FLOAT32, CT_CPU, -1, &hp));
    CK(ct_tensor_pin_memory(hp, &hpin));
    at::Tensor thp = at::ones({N}, at::kFloat), thpin = thp.pin_memory();
    run({"h2d_pinned_256MiB", kGpu, 5, 5, [&] { CK(ct_tensor_copy_(d, hpin, 1)); },
         [&] { td.copy_(thpin, true); }, B});
    run({"d2h_pinned_256MiB", kGpu, 5, 5, [&] { CK(ct_tensor_copy_(hpin, d, 1)); },
         [&] { thpin.copy_(td, true); }, B});
    run({"h2d_pageable_256MiB", kWall, 3, 5, [&] { CK(ct_tensor_copy_(d, hp, 0)); }, [&] { td.copy_(thp); }, B});
    run({"d2h_pageable_256MiB", kWall, 3, 5, [&] { CK(ct_tensor_copy_(hp, d, 0)); }, [&] { thp.copy_(td); }, B});
    for (ct_tensor t : {a, b, c, d, hp, hpin}) CK(ct_tensor_release(t));
  }

  // ---- matrix products (cuBLAS in both)
  for (int64_t n : {4096, 8192}) {
    const struct {
      const char* name;
      ct_dtype dt;
      at::ScalarType st;
      bool tf32;
    } kinds[] = {{"fp32", CT_FLOAT32, at::kFloat, false}, {"tf32", CT_FLOAT32, at::kFloat, true},
                 {"bf16", CT_BFLOAT16, at::kBFloat16, false}, {"fp16", CT_FLOAT16, at::kHalf, false}};
    for (const auto& k : kinds) {
      const std::string name = "matmul_" + std::to_string(n) + "_" + k.name;
      if (!wanted(name)) continue;
      ct_tensor x, y;
      CK(ct_rand(SZ(n, n), 2, k.dt, CT_CUDA, 0, nullptr, &x));
      CK(ct_rand(SZ(n, n), 2, k.dt, CT_CUDA, 0, nullptr, &y));
      at::Tensor tx = at::rand({n, n}, cuda.dtype(k.st)), ty = at::rand({n, n}, cuda.dtype(k.st));
      CK(ct_set_allow_tf32(k.tf32 ? 1 : 0));
      at::globalContext().setAllowTF32CuBLAS(k.tf32);
      run({name, kGpu, n == 8192 ? 5 : 20, 5,
           [&] { ct_tensor z; ct_drop(ct_mm(x, y, &z), &z); }, [&] { at::Tensor z = at::mm(tx, ty); }});
      CK(ct_tensor_release(x));
      CK(ct_tensor_release(y));
    }
    CK(ct_set_allow_tf32(0));
    at::globalContext().setAllowTF32CuBLAS(false);
  }

  // ---- FFT (cuFFT in both): c2c of 2^24 complex64, and 4096 transforms of 1024
  for (int batched = 0; batched < 2; ++batched) {
    const char* name = batched ? "fft_c2c_4096x1024" : "fft_c2c_2p24";
    if (!wanted(name)) continue;
    std::vector<int64_t> shape = batched ? std::vector<int64_t>{4096, 1024} : std::vector<int64_t>{1LL << 24};
    ct_tensor r, x;
    CK(ct_randn(shape.data(), static_cast<int32_t>(shape.size()), CT_FLOAT32, CT_CUDA, 0, nullptr, &r));
    CK(ct_tensor_to(r, CT_CUDA, 0, CT_COMPLEX64, 0, 0, &x));
    CK(ct_tensor_release(r));
    at::Tensor tx = at::randn(shape, f32).to(at::kComplexFloat);
    run({name, kGpu, 20, 7,
         [&] { ct_tensor y; ct_drop(ct_fft_fft(x, -1, -1, 0, &y), &y); }, [&] { at::Tensor y = at::fft_fft(tx); },
         2.0 * 8 * (1LL << 24)});
    CK(ct_tensor_release(x));
  }

  scan_bench();
  indexing_rows();
  rowfunc_rows();
  ewfunc_rows();

  // ---- the matrix: GPU rows, then CPU rows (inputs released after each)
  // GPU_BENCH_N=m: the GPU matrix at m x m elements too, rows named "n<m>/op/dtype/layout"
  // (other size classes: m = 1024 is 1M elements, 4 MiB of float32, L2-resident on an H100)
  gpu_matrix(Dev{"", CT_CUDA, 0, at::Device(at::kCUDA, 0), 8192, kGpu, 5});
  if (const char* m = std::getenv("GPU_BENCH_N")) {
    const int64_t nm = std::atoll(m);
    if (nm >= 512 && nm % 512 == 0) {
      g_inputs.clear();
      gpu_matrix(Dev{"n" + std::to_string(nm) + "/", CT_CUDA, 0, at::Device(at::kCUDA, 0), nm, kGpu, 5});
    } else {
      std::fprintf(stderr, "gpu_bench: GPU_BENCH_N=%s ignored (expected a multiple of 512)\n", m);
    }
  }
  g_inputs.clear();
  // issue 21's small class: its ops in float32 on [64, 1000] ("n64x1000/i21:...")
  i21_matrix(Dev{"n64x1000/", CT_CUDA, 0, at::Device(at::kCUDA, 0), 1000, kGpu, 5, 64}, kI21Small);
  g_inputs.clear();
  sorting_rows();
  cpu_matrix(Dev{"cpu/", CT_CPU, -1, at::Device(at::kCPU), 4096, kHost, 7});
  g_inputs.clear();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return bench(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    g_inputs.clear();
    return 1;
  }
}
