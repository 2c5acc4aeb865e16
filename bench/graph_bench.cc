// Issue 15's benchmark: a chain of 100 small elementwise ops, eager and replayed as a CUDA graph,
// ctorch against torch (libtorch, C++) in one process. Built and run on the GPU host by
// `bash bench/run.sh gpu_artifacts graph`:
//   g++ ... bench/graph_bench.cc -lctorch -ltorch ... && ./graph_bench [filter]
// The filter is a substring of the row names (default "graph": every row).
//
// The chain (kPattern, 10 ops repeated 10 times, the same in both libraries): multiply and add
// by Python scalars, add and multiply by a second static input, tanh, sigmoid, neg, relu, exp;
// each op makes a new tensor and the previous one is released, as torch's temporaries are.
// Two size classes of float32: 4K (4096 elements) and 1M (2^20).
//
// Rows, as gpu_bench.cc's "name ctorch torch unit ratio" lines for bench/report.py (the ratio is
// ctorch / torch; report.py has the targets):
//   graph_eager_host_<S>   host time per op of issuing the chain eagerly (us): one chain's wall
//                          time / 100. The device is synchronized before each chain, outside
//                          the timed region, so only the issuing is timed (nothing in it waits).
//   graph_replay_host_<S>  host time per op of issuing one replay (us): one replay's wall time /
//                          100, timed the same way. Target: ctorch's eager row >= 10x this.
//   graph_replay_gpu_<S>   GPU time of one replay (ms): CUDA events on the legacy default stream
//                          (both libraries' current stream) around kGpuIters replays. Target:
//                          ctorch <= 1.05x torch.
//   graph_eager_gpu_<S>    GPU time of one eager chain (ms), the same way: for reference.
// Each figure: a warm-up of both, then rounds alternating ctorch and torch (the order flips each
// round), medians of the rounds.
//
// Before timing, each size class checks the graphs: new values are copied into the static
// inputs, both graphs replayed, and ctorch's output must equal its eager chain's bit for bit and
// torch's within 1e-5 relative (prints "# check ..."); otherwise "# FAILED graph_..._<S>: why"
// for its rows and the next size class runs. Both captures run on a side stream after a device
// synchronize, as torch.cuda.graph does: ctorch's through ct_cuda_graph_capture_enter/exit,
// torch's with at::cuda::CUDAGraph on a stream from the pool.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/gpu_timer.h"   // gpu_ms
#include "bench/host_timer.h"  // bench_now_ns, bench_median (its CK is not used: failures throw here)
#include "capi/ctorch.h"

namespace {

constexpr int kOps = 100;

// A failed ctorch call: the size class's rows are reported as failed.
void ok(ct_status s, const char* what) {
  if (s != CT_OK)
    throw std::runtime_error(std::string(what) + ": " + ct_status_name(s) + ": " + ct_last_error_message());
}

// ---- the chain ---------------------------------------------------------------------------------

enum Kind { kScalar, kTensor, kUnary };
struct Step {
  Kind kind;
  int32_t op;  // a ct_binary_op (kScalar, kTensor) or a ct_unary_op
  double s;    // the scalar of kScalar
};
// y is the second static input
constexpr Step kPattern[] = {{kScalar, CT_MUL, 0.5},   {kScalar, CT_ADD, 0.25}, {kTensor, CT_ADD, 0},
                             {kUnary, CT_TANH, 0},     {kTensor, CT_MUL, 0},    {kUnary, CT_SIGMOID, 0},
                             {kScalar, CT_SUB, 0.1},   {kUnary, CT_NEG, 0},     {kUnary, CT_RELU, 0},
                             {kUnary, CT_EXP, 0}};
constexpr int kPatternLen = sizeof kPattern / sizeof kPattern[0];
static_assert(kOps % kPatternLen == 0, "the chain repeats the pattern a whole number of times");

const Step& step(int i) { return kPattern[i % kPatternLen]; }

ct_tensor ctorch_step(const Step& st, ct_tensor a, ct_tensor y) {
  ct_tensor o = nullptr;
  switch (st.kind) {
    case kScalar: ok(ct_binary_scalar_f(st.op, a, st.s, 0, &o), "ct_binary_scalar_f"); break;
    case kTensor: ok(ct_binary(st.op, a, y, &o), "ct_binary"); break;
    case kUnary: ok(ct_unary(st.op, a, &o), "ct_unary"); break;
  }
  return o;
}

// The chain in ctorch: a new tensor [new reference]; each intermediate is released once used.
ct_tensor ctorch_chain(ct_tensor x, ct_tensor y) {
  ct_tensor cur = x;
  for (int i = 0; i < kOps; ++i) {
    ct_tensor next = ctorch_step(step(i), cur, y);
    if (cur != x) ok(ct_tensor_release(cur), "ct_tensor_release");
    cur = next;
  }
  return cur;
}

at::Tensor torch_step(const Step& st, const at::Tensor& a, const at::Tensor& y) {
  if (st.kind == kUnary) {
    switch (st.op) {
      case CT_TANH: return at::tanh(a);
      case CT_SIGMOID: return at::sigmoid(a);
      case CT_NEG: return at::neg(a);
      case CT_RELU: return at::relu(a);
      case CT_EXP: return at::exp(a);
    }
  } else {
    const bool t = st.kind == kTensor;
    switch (st.op) {
      case CT_ADD: return t ? at::add(a, y) : at::add(a, st.s);
      case CT_SUB: return t ? at::sub(a, y) : at::sub(a, st.s);
      case CT_MUL: return t ? at::mul(a, y) : at::mul(a, st.s);
    }
  }
  throw std::logic_error("graph_bench: an op of kPattern without its torch twin in torch_step");
}

at::Tensor torch_chain(const at::Tensor& x, const at::Tensor& y) {
  at::Tensor cur = x;
  for (int i = 0; i < kOps; ++i) cur = torch_step(step(i), cur, y);
  return cur;
}

// ---- timing ------------------------------------------------------------------------------------

// Host time (us) per call of fn: each call timed alone, issued to an idle device (the
// synchronization is outside the timed region).
double issue_us_per_call(const std::function<void()>& fn, int iters) {
  double ns = 0;
  for (int i = 0; i < iters; ++i) {
    cudaDeviceSynchronize();
    const double t0 = bench_now_ns();
    fn();
    ns += bench_now_ns() - t0;
  }
  cudaDeviceSynchronize();
  return ns / iters / 1e3;
}

struct Figures {
  double ct, th;
};

// A warm-up of both, then `rounds` rounds alternating ctorch and torch; medians.
Figures alternate(const std::function<double(const std::function<void()>&)>& measure,
                  const std::function<void()>& ct, const std::function<void()>& th, int rounds) {
  measure(ct), measure(th);
  std::vector<double> c, t;
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) c.push_back(measure(ct)), t.push_back(measure(th));
    else t.push_back(measure(th)), c.push_back(measure(ct));
  }
  return {bench_median(c.data(), rounds), bench_median(t.data(), rounds)};
}

const char* g_filter = "graph";
bool wanted(const std::string& name) { return name.find(g_filter) != std::string::npos; }

void row(const std::string& name, Figures f, const char* unit) {
  std::printf("%s %.4f %.4f %s %.3f\n", name.c_str(), f.ct, f.th, unit, f.ct / f.th);
  std::fflush(stdout);
}

// ---- one size class ----------------------------------------------------------------------------

std::vector<float> random_values(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(gen);
  return v;
}

ct_tensor ctorch_from(const std::vector<float>& v) {
  const int64_t n = static_cast<int64_t>(v.size());
  ct_tensor t = nullptr;
  ok(ct_from_buffer(v.data(), n * 4, &n, 1, CT_FLOAT32, CT_CUDA, 0, &t), "ct_from_buffer");
  return t;
}

at::Tensor torch_from(const std::vector<float>& v) {
  return at::from_blob(const_cast<float*>(v.data()), {static_cast<int64_t>(v.size())}, at::kFloat)
      .to(at::Device(at::kCUDA, 0));
}

std::vector<float> ctorch_values(ct_tensor t, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  ok(ct_tensor_copy_to_buffer(t, v.data(), n * 4), "ct_tensor_copy_to_buffer");
  return v;
}

// Owns the ctorch handles of one size class.
struct CtState {
  ct_tensor x = nullptr, y = nullptr, out = nullptr;
  ct_cuda_graph g = nullptr;
  ~CtState() {
    for (ct_tensor t : {out, x, y})
      if (t) ct_tensor_release(t);
    if (g) ct_cuda_graph_release(g);
  }
};

// The graphs' values with new inputs; throws when they are wrong.
void check_values(const std::string& tag, int64_t n, CtState& c, at::cuda::CUDAGraph& tg, const at::Tensor& tx,
                  const at::Tensor& ty, const at::Tensor& tout) {
  const std::vector<float> nx = random_values(n, 7), ny = random_values(n, 8);
  ct_tensor hx = ctorch_from(nx), hy = ctorch_from(ny), eager = nullptr;
  std::vector<float> mine, want;
  try {
    ok(ct_tensor_copy_(c.x, hx, 0), "ct_tensor_copy_");
    ok(ct_tensor_copy_(c.y, hy, 0), "ct_tensor_copy_");
    ok(ct_cuda_graph_replay(c.g), "ct_cuda_graph_replay");
    mine = ctorch_values(c.out, n);
    eager = ctorch_chain(hx, hy);
    want = ctorch_values(eager, n);
  } catch (...) {
    for (ct_tensor t : {hx, hy, eager})
      if (t) ct_tensor_release(t);
    throw;
  }
  for (ct_tensor t : {hx, hy, eager}) ok(ct_tensor_release(t), "ct_tensor_release");
  tx.copy_(torch_from(nx));
  ty.copy_(torch_from(ny));
  tg.replay();
  const at::Tensor theirs = tout.cpu();
  const float* tv = theirs.data_ptr<float>();
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    worst = std::max(worst, std::fabs(double(mine[i]) - tv[i]) / (std::fabs(double(tv[i])) + 1e-6));
  const bool same_as_eager = std::memcmp(mine.data(), want.data(), static_cast<size_t>(n) * 4) == 0;
  std::printf("# check %s: ctorch replay %s its eager chain; max relative |ctorch - torch| %.3g\n", tag.c_str(),
              same_as_eager ? "equals" : "DIFFERS FROM", worst);
  if (!same_as_eager) throw std::runtime_error("ctorch's replay differs from its eager chain");
  if (!(worst <= 1e-5)) throw std::runtime_error("ctorch's replay differs from torch's");
}

void size_class(const std::string& tag, int64_t n) {
  const std::string eager_host = "graph_eager_host_" + tag, replay_host = "graph_replay_host_" + tag,
                    replay_gpu = "graph_replay_gpu_" + tag, eager_gpu = "graph_eager_gpu_" + tag;
  if (!wanted(eager_host) && !wanted(replay_host) && !wanted(replay_gpu) && !wanted(eager_gpu)) return;
  try {
    const std::vector<float> vx = random_values(n, 1), vy = random_values(n, 2);
    CtState c;
    c.x = ctorch_from(vx);
    c.y = ctorch_from(vy);
    const at::Tensor tx = torch_from(vx), ty = torch_from(vy);
    // warm-up: kernels loaded, memory cached
    for (int i = 0; i < 3; ++i) {
      ok(ct_tensor_release(ctorch_chain(c.x, c.y)), "ct_tensor_release");
      torch_chain(tx, ty);
    }
    // ctorch's graph
    ok(ct_cuda_graph_create(&c.g), "ct_cuda_graph_create");
    ct_stream prev = nullptr;
    int32_t prev_device = -1;
    ok(ct_cuda_graph_capture_enter(c.g, 0, CT_CAPTURE_MODE_GLOBAL, nullptr, &prev, &prev_device),
       "ct_cuda_graph_capture_enter");
    try {
      c.out = ctorch_chain(c.x, c.y);
    } catch (...) {
      ct_cuda_graph_capture_exit(c.g, prev, prev_device);
      throw;
    }
    ok(ct_cuda_graph_capture_exit(c.g, prev, prev_device), "ct_cuda_graph_capture_exit");
    // torch's graph (declared before its output, which lives in its pool)
    at::cuda::CUDAGraph tg;
    at::Tensor tout;
    cudaDeviceSynchronize();
    {
      c10::cuda::CUDAStreamGuard side(c10::cuda::getStreamFromPool());
      tg.capture_begin();
      tout = torch_chain(tx, ty);
      tg.capture_end();
    }
    check_values(tag, n, c, tg, tx, ty, tout);

    const ct_tensor x = c.x, y = c.y;
    const ct_cuda_graph g = c.g;
    auto ct_eager = [=] { ok(ct_tensor_release(ctorch_chain(x, y)), "ct_tensor_release"); };
    auto th_eager = [&] { at::Tensor o = torch_chain(tx, ty); };
    auto ct_replay = [=] { ok(ct_cuda_graph_replay(g), "ct_cuda_graph_replay"); };
    auto th_replay = [&] { tg.replay(); };
    const bool small = n <= 65536;
    auto issue = [](int iters) {
      return [iters](const std::function<void()>& fn) { return issue_us_per_call(fn, iters) / kOps; };
    };
    auto gpu = [](int iters) {
      return [iters](const std::function<void()>& fn) { return gpu_ms(fn, iters); };
    };
    if (wanted(eager_host)) row(eager_host, alternate(issue(50), ct_eager, th_eager, 21), "us");
    if (wanted(replay_host)) row(replay_host, alternate(issue(200), ct_replay, th_replay, 21), "us");
    if (wanted(replay_gpu)) row(replay_gpu, alternate(gpu(small ? 100 : 40), ct_replay, th_replay, 11), "ms");
    if (wanted(eager_gpu)) row(eager_gpu, alternate(gpu(small ? 50 : 20), ct_eager, th_eager, 11), "ms");
  } catch (const std::exception& e) {
    std::string why(e.what());
    why = why.substr(0, why.find('\n'));
    for (const std::string& name : {eager_host, replay_host, replay_gpu, eager_gpu})
      if (wanted(name)) std::printf("# FAILED %s: %s\n", name.c_str(), why.c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0]) g_filter = argv[1];
  size_class("4K", 4096);
  size_class("1M", 1 << 20);
  int64_t graphs = -1, tensors = -1;
  ct_live_cuda_graph_count(&graphs);
  ct_live_tensor_count(&tensors);
  if (graphs != 0 || tensors != 0)
    std::printf("# graph_bench: %lld graph and %lld tensor handles left at the end\n", static_cast<long long>(graphs),
                static_cast<long long>(tensors));
  return 0;
}
