// Local CPU timing of issue 21's rows (bench/gpu_bench.cc "cpu/i21:op/<dt>/contig"): ctorch
// and torch (Debian's libtorch 1.13) on the same [4096, 4096] inputs and thread count, the
// fastest of the host-clock calls, ctorch us / torch us. Indicative only on a small machine; the GPU host
// (16 cores) gives the recorded numbers. Not part of the Bazel build:
//   g++ -O2 -std=c++17 -I. -I/usr/include/torch/csrc/api/include bench/cpu_local/time_i21.cc \
//     -Lbazel-bin/capi -lctorch -ltorch_cpu -lc10 -o /tmp/time_i21
//   LD_LIBRARY_PATH=bazel-bin/capi /tmp/time_i21 [threads] [reps] [op-filter]
#include <torch/torch.h>

#include <cstring>
#include <functional>
#include <string>

#include "bench/host_timer.h"

namespace {

double time_fn(int reps, const std::function<void()>& f) {
  double t[101];
  if (reps > 101) reps = 101;
  for (int r = -2; r < reps; ++r) {
    double t0 = bench_now_ns() * 1e-3;
    f();
    double t1 = bench_now_ns() * 1e-3;
    if (r >= 0) t[r] = t1 - t0;
  }
  bench_median(t, reps);
  return t[0];  // the minimum: the development VM's 2 cores are shared, so medians are noisy
}

// torch's copy of a contiguous CPU ctorch tensor
at::Tensor to_torch(ct_tensor t, at::ScalarType st, at::IntArrayRef sizes) {
  int64_t p = 0;
  CK(ct_tensor_data_ptr(t, &p));
  return torch::from_blob(reinterpret_cast<void*>(p), sizes, at::TensorOptions().dtype(st)).clone();
}

void drop(ct_tensor t) {
  if (t) CK(ct_tensor_release(t));
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 11;
  std::string filter = argc > 3 ? argv[3] : "";
  CK(ct_set_num_threads(threads));
  at::set_num_threads(threads);
  const int64_t n = 4096;
  const int64_t sizes[2] = {n, n};
  struct Dt {
    const char* name;
    ct_dtype dt;
    at::ScalarType st;
  } dts[] = {{"f32", CT_FLOAT32, at::kFloat}, {"f16", CT_FLOAT16, at::kHalf}};
  printf("# %d threads, %d reps, minimum times, [4096, 4096]\n", threads, reps);
  ct_tensor row_idx, full_idx;  // a permutation-like index of n entries, and one of [n, n]
  CK(ct_randint(0, n, sizes, 1, CT_INT64, CT_CPU, -1, NULL, &row_idx));
  CK(ct_randint(0, n, sizes, 2, CT_INT64, CT_CPU, -1, NULL, &full_idx));
  at::Tensor t_row_idx = to_torch(row_idx, at::kLong, {n}), t_full_idx = to_torch(full_idx, at::kLong, {n, n});
  for (const Dt& d : dts) {
    ct_tensor x, mask;
    CK(ct_randn(sizes, 2, d.dt, CT_CPU, -1, NULL, &x));
    CK(ct_binary_scalar_f(CT_GT, x, 0.0, 0, &mask));
    at::Tensor tx = to_torch(x, d.st, {n, n}), tm = tx > 0;
    at::Tensor tw = torch::ones({n}, at::TensorOptions().dtype(d.st)), tb = torch::zeros({n}, at::TensorOptions().dtype(d.st));
    auto row = [&](const char* op, const std::function<void()>& c, const std::function<void()>& t) {
      if (!filter.empty() && std::string(op).find(filter) == std::string::npos) return;
      double tc = time_fn(reps, c), tt = 0;
      try {
        tt = time_fn(reps, t);
      } catch (const std::exception&) {  // libtorch 1.13 lacks some float16 CPU kernels
        printf("cpu/i21:%s/%s  ctorch %10.1f us  torch        n/a\n", op, d.name, tc);
        return;
      }
      printf("cpu/i21:%s/%s  ctorch %10.1f us  torch %10.1f us  ratio %6.2f\n", op, d.name, tc, tt, tc / tt);
      fflush(stdout);
    };
    row("index_select_dim0", [&] { ct_tensor o; CK(ct_index_select(x, 0, row_idx, &o)); drop(o); },
        [&] { at::index_select(tx, 0, t_row_idx); });
    row("gather_dim1", [&] { ct_tensor o; CK(ct_gather(x, 1, full_idx, &o)); drop(o); },
        [&] { at::gather(tx, 1, t_full_idx); });
    row("masked_select", [&] { ct_tensor o; CK(ct_masked_select(x, mask, &o)); drop(o); },
        [&] { at::masked_select(tx, tm); });
    row("softmax", [&] { ct_tensor o; CK(ct_softmax(x, -1, CT_DTYPE_UNDEFINED, &o)); drop(o); },
        [&] { at::softmax(tx, -1); });
    row("log_softmax", [&] { ct_tensor o; CK(ct_log_softmax(x, -1, CT_DTYPE_UNDEFINED, &o)); drop(o); },
        [&] { at::log_softmax(tx, -1); });
    row("softmax_dim0", [&] { ct_tensor o; CK(ct_softmax(x, 0, CT_DTYPE_UNDEFINED, &o)); drop(o); },
        [&] { at::softmax(tx, 0); });
    row("layer_norm", [&] { ct_tensor o; CK(ct_layer_norm(x, &n, 1, NULL, NULL, 1e-5, &o)); drop(o); },
        [&] { at::layer_norm(tx, {n}, tw, tb, 1e-5); });
    row("cumsum", [&] { ct_tensor o; CK(ct_cumsum(x, 1, CT_DTYPE_UNDEFINED, &o)); drop(o); },
        [&] { at::cumsum(tx, 1); });
    row("cumsum_dim0", [&] { ct_tensor o; CK(ct_cumsum(x, 0, CT_DTYPE_UNDEFINED, &o)); drop(o); },
        [&] { at::cumsum(tx, 0); });
    row("sort", [&] { ct_tensor v, i; CK(ct_sort(x, 1, 0, 0, &v, &i)); drop(v); drop(i); },
        [&] { at::sort(tx, 1); });
    row("topk10", [&] { ct_tensor v, i; CK(ct_topk(x, 10, 1, 1, 1, &v, &i)); drop(v); drop(i); },
        [&] { at::topk(tx, 10, 1); });
    drop(x);
    drop(mask);
  }
  drop(row_idx);
  drop(full_idx);
  return 0;
}
