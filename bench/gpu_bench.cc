// ctorch against torch (libtorch, C++) in one process, alternating (issue 7). Built and run on
// the GPU host by bench/run.sh:
//   g++ ... bench/gpu_bench.cc bench/floor_kernel.o -lctorch -ltorch ... && ./gpu_bench [filter]
// For every metric: a warm-up of both, then rounds alternating ctorch and torch (the order
// flips each round), each round timed by CUDA events on the legacy default stream (GPU time,
// which both libraries use as their current stream) or by a host clock (host cost); the figure
// is the median of the rounds, the ratio ctorch/torch of the medians (below 1: ctorch faster).
// Prints "name ctorch torch unit ratio" lines, then the launch floor; bench/run.sh tabulates.
#include <ATen/ATen.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "capi/ctorch.h"

extern "C" void ct_bench_launch_empty(int n);  // bench/floor_kernel.cu: n empty launches on stream 0

#define CK(call)                                                                        \
  do {                                                                                  \
    ct_status s_ = (call);                                                              \
    if (s_ != CT_OK) {                                                                  \
      std::fprintf(stderr, "%s: %s: %s\n", #call, ct_status_name(s_), ct_last_error_message()); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

// A shape argument: the temporary lives until the end of the full expression (the call).
#define SZ(...) std::vector<int64_t>{__VA_ARGS__}.data()

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

cudaEvent_t g_e0, g_e1;

// fn run `iters` times between two events on stream 0: ms per call.
double gpu_ms(const std::function<void()>& fn, int iters) {
  cudaEventRecord(g_e0, nullptr);
  for (int i = 0; i < iters; ++i) fn();
  cudaEventRecord(g_e1, nullptr);
  cudaEventSynchronize(g_e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, g_e0, g_e1);
  return ms / iters;
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
  int iters;   // calls per round
  int rounds;
  std::function<void()> ct, th;
  double bytes = 0;  // moved per call, for a GB/s column (0: none)
};

const char* g_filter = nullptr;

void run(const Metric& m) {
  if (g_filter && m.name.find(g_filter) == std::string::npos) return;
  auto measure = [&](const std::function<void()>& fn) {
    switch (m.clock) {
      case kGpu: return gpu_ms(fn, m.iters);
      case kHost: return host_us(fn, m.iters);
      default: return wall_ms(fn, m.iters);
    }
  };
  measure(m.ct), measure(m.th);  // warm-up: plans, handles, cached memory, clocks
  std::vector<double> c, t;
  for (int r = 0; r < m.rounds; ++r) {
    if (r % 2 == 0) c.push_back(measure(m.ct)), t.push_back(measure(m.th));
    else t.push_back(measure(m.th)), c.push_back(measure(m.ct));
  }
  double mc = median(c), mt = median(t);
  const char* unit = m.clock == kHost ? "us" : "ms";
  std::string extra;
  if (m.bytes > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.0f %.0f GB/s", m.bytes / (mc * 1e6), m.bytes / (mt * 1e6));
    extra = buf;
  }
  std::printf("%s %.4f %.4f %s %.3f%s\n", m.name.c_str(), mc, mt, unit, mc / mt, extra.c_str());
  std::fflush(stdout);
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

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_filter = argv[1];
  cudaEventCreate(&g_e0);
  cudaEventCreate(&g_e1);
  auto cuda = at::TensorOptions().device(at::kCUDA, 0);
  auto f32 = cuda.dtype(at::kFloat);
  const int64_t N = 64LL << 20;  // 64M float32: 256 MiB
  const double B = 4.0 * N;

  // ---- host costs
  {
    ct_tensor a;
    CK(ct_ones(SZ(1), 1, CT_FLOAT32, CT_CUDA, 0, &a));
    at::Tensor ta = at::ones({1}, f32);
    run({"small_add_host", kHost, 1000, 21,
         [&] { ct_tensor c; ct_drop(ct_binary(CT_ADD, a, a, &c), &c); },
         [&] { at::Tensor c = at::add(ta, ta); }});
    static const int64_t k256[1] = {256};
    run({"create_free_256f", kHost, 20000, 21,
         [&] { ct_tensor c; ct_drop(ct_empty(k256, 1, CT_FLOAT32, CT_CUDA, 0, &c), &c); },
         [&] { at::Tensor c = at::empty({256}, f32); }});
    CK(ct_tensor_release(a));
    // the floor: an empty kernel launched the same way (reported against itself)
    if (!g_filter || std::strstr("launch_floor", g_filter)) {
      std::vector<double> v;
      host_us([] { ct_bench_launch_empty(1); }, 1000);
      for (int r = 0; r < 21; ++r) v.push_back(host_us([] { ct_bench_launch_empty(1); }, 1000));
      std::printf("launch_floor %.4f %.4f us 1.000\n", median(v), median(v));
    }
  }

  // ---- elementwise, reductions, copies, random numbers on 64M float32
  {
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
      ct_tensor x, y;
      CK(ct_rand(SZ(n, n), 2, k.dt, CT_CUDA, 0, nullptr, &x));
      CK(ct_rand(SZ(n, n), 2, k.dt, CT_CUDA, 0, nullptr, &y));
      at::Tensor tx = at::rand({n, n}, cuda.dtype(k.st)), ty = at::rand({n, n}, cuda.dtype(k.st));
      CK(ct_set_allow_tf32(k.tf32 ? 1 : 0));
      at::globalContext().setAllowTF32CuBLAS(k.tf32);
      run({"matmul_" + std::to_string(n) + "_" + k.name, kGpu, n == 8192 ? 5 : 20, 5,
           [&] { ct_tensor z; ct_drop(ct_mm(x, y, &z), &z); }, [&] { at::Tensor z = at::mm(tx, ty); }});
      CK(ct_tensor_release(x));
      CK(ct_tensor_release(y));
    }
    CK(ct_set_allow_tf32(0));
    at::globalContext().setAllowTF32CuBLAS(false);
  }

  // ---- FFT (cuFFT in both): c2c of 2^24 complex64, and 4096 transforms of 1024
  for (int batched = 0; batched < 2; ++batched) {
    std::vector<int64_t> shape = batched ? std::vector<int64_t>{4096, 1024} : std::vector<int64_t>{1LL << 24};
    ct_tensor r, x;
    CK(ct_randn(shape.data(), static_cast<int32_t>(shape.size()), CT_FLOAT32, CT_CUDA, 0, nullptr, &r));
    CK(ct_tensor_to(r, CT_CUDA, 0, CT_COMPLEX64, 0, 0, &x));
    CK(ct_tensor_release(r));
    at::Tensor tx = at::randn(shape, f32).to(at::kComplexFloat);
    run({batched ? "fft_c2c_4096x1024" : "fft_c2c_2p24", kGpu, 20, 7,
         [&] { ct_tensor y; ct_drop(ct_fft_fft(x, -1, -1, 0, &y), &y); }, [&] { at::Tensor y = at::fft_fft(tx); },
         2.0 * 8 * (1LL << 24)});
    CK(ct_tensor_release(x));
  }
  return 0;
}
