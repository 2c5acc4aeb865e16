// The jiterator's launch (impl/jit/jit.h, issue 18 in progress): values against double-precision
// references on a GPU (skipped visibly without one; the GPU bundle carries this test), the
// checks and messages of torch's jiterator, the in-memory cache. Without CUDA: the
// CUDA-unavailable error.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "impl/alloc/allocator.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/jit/jit.h"
#include "impl/ops/ops.h"
#include "tests/impl/error_of.h"

using namespace ct;

namespace {

const Device kCuda{DeviceType::CUDA, 0};
const char* kFused = "template <typename T> T my_fused_kernel(T x, T y, T alpha, T beta) { return alpha * x + beta * y; }";

#define SKIP_WITHOUT_CUDA() \
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device"

Tensor cuda_of(const std::vector<double>& v, Shape sizes, DType dt) {
  Tensor t = ops::from_buffer(v.data(), static_cast<int64_t>(v.size() * 8), sizes, DType::Float64, Device{});
  return ops::to(t, kCuda, dt, true);
}

std::vector<double> host_of(const Tensor& t) {
  Tensor h = ops::to(ops::contiguous(t), Device{}, DType::Float64, true);
  std::vector<double> v(static_cast<size_t>(h->numel()));
  ops::copy_to_buffer(h, v.data(), static_cast<int64_t>(v.size() * 8));
  return v;
}

std::vector<double> iota(int n, double scale, double shift) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * i + shift;
  return v;
}

// The caching allocator's blocks go back at the end (compute-sanitizer's leak check, as the C
// suites' harness does), in this process and in the disk-cache test's children.
class EmptyCacheAtEnd : public ::testing::Environment {
 public:
  void TearDown() override {
    if (cuda::is_available()) alloc::empty_cache();
  }
};
::testing::Environment* const g_empty_cache = ::testing::AddGlobalTestEnvironment(new EmptyCacheAtEnd);

}  // namespace

TEST(JitRun, WithoutCuda) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present: the no-CUDA error is not reachable";
  jit::JitFunction f(kFused, 1, false, {});
  Tensor x = ops::from_buffer(std::vector<float>{1, 2}.data(), 8, {2}, DType::Float32, Device{});
  auto e = error_of([&] { f.run({x, x}, {}); });
  EXPECT_EQ(e.first, Status::CudaUnavailable) << e.second;
}

TEST(JitRun, CreationErrors) {
  auto e = error_of([] { jit::JitFunction("float f(float x) { return x; }", 1, false, {}); });
  EXPECT_NE(e.second.find("Couldn't parse code"), std::string::npos) << e.second;
  e = error_of([] { jit::JitFunction(kFused, 2, false, {}); });
  EXPECT_NE(e.second.find("Return by value only works for single output."), std::string::npos) << e.second;
  e = error_of([] { jit::JitFunction(kFused, 1, false, {{"a", jit::Extra::of_int(1)}, {"a", jit::Extra::of_int(2)}}); });
  EXPECT_NE(e.second.find("extra argument 'a' is declared twice"), std::string::npos) << e.second;
}

TEST(JitRun, TorchsFusedKernelOverDtypes) {
  SKIP_WITHOUT_CUDA();
  jit::JitFunction f(kFused, 1, false, {{"alpha", jit::Extra::of_int(1)}, {"beta", jit::Extra::of_int(1)}});
  const int n = 1000;
  std::vector<double> a = iota(n, 0.01, -3), b = iota(n, -0.02, 5);
  for (DType dt : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int32, DType::Int64}) {
    std::vector<double> ai = a, bi = b;
    if (!is_floating(dt)) {
      ai = iota(n, 3, -100);
      bi = iota(n, -2, 7);
    }
    Tensor x = cuda_of(ai, {n}, dt), y = cuda_of(bi, {n}, dt);
    std::vector<double> xr = host_of(x), yr = host_of(y);  // the values in dt
    for (auto [alpha, beta] : {std::pair<double, double>{1, 1}, {2, -3}}) {
      jit::Extras over;
      if (alpha != 1) over = {{"alpha", jit::Extra::of_int(2)}, {"beta", jit::Extra::of_int(-3)}};
      std::vector<Tensor> out = f.run({x, y}, over);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0]->dtype, dt);
      std::vector<double> got = host_of(out[0]);
      double tol = dt == DType::Float16 ? 2e-2 : dt == DType::BFloat16 ? 1.5e-1 : dt == DType::Float32 ? 1e-5 : 0;
      for (int i = 0; i < n; ++i) {
        double want = alpha * xr[static_cast<size_t>(i)] + beta * yr[static_cast<size_t>(i)];
        ASSERT_NEAR(got[static_cast<size_t>(i)], want, tol * (1 + std::fabs(want))) << dtype_name(dt) << " i=" << i;
      }
    }
  }
}

TEST(JitRun, PromotionBroadcastAndStrides) {
  SKIP_WITHOUT_CUDA();
  jit::JitFunction f("template <typename T> T mix(T x, T y) { return x * T(10) + y; }", 1, false, {});
  // int32 [3, 1] and a transposed float32 [4, 3] -> [3, 4]... broadcast against [3, 4] (the transpose)
  Tensor a = cuda_of({1, 2, 3}, {3, 1}, DType::Int32);
  Tensor b = ops::transpose(cuda_of(iota(12, 0.5, 0), {4, 3}, DType::Float32), 0, 1);  // [3, 4], strides (1, 3)
  std::vector<Tensor> out = f.run({a, b}, {});
  EXPECT_EQ(out[0]->dtype, DType::Float32);
  EXPECT_EQ(out[0]->sizes, (Shape{3, 4}));
  std::vector<double> got = host_of(out[0]);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_DOUBLE_EQ(got[static_cast<size_t>(r * 4 + c)], (r + 1) * 10.0 + 0.5 * (c * 3 + r));
}

TEST(JitRun, SeveralOutputsAndABoolArgument) {
  SKIP_WITHOUT_CUDA();
  jit::JitFunction f("template <typename T> void sd(T a, T b, bool neg, T& out0, T& out1) {\n"
                     "  out0 = a + b; out1 = neg ? b - a : a - b; }",
                     2, true, {{"neg", jit::Extra::of_bool(false)}});
  Tensor a = cuda_of({1, 2, 3}, {3}, DType::Float64), b = cuda_of({10, 20, 30}, {3}, DType::Float64);
  std::vector<Tensor> out = f.run({a, b}, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(host_of(out[0]), (std::vector<double>{11, 22, 33}));
  EXPECT_EQ(host_of(out[1]), (std::vector<double>{-9, -18, -27}));
  out = f.run({a, b}, {{"neg", jit::Extra::of_bool(true)}});
  EXPECT_EQ(host_of(out[1]), (std::vector<double>{9, 18, 27}));
}

TEST(JitRun, ChecksAndMessages) {
  SKIP_WITHOUT_CUDA();
  jit::JitFunction f(kFused, 1, false, {{"alpha", jit::Extra::of_int(1)}, {"beta", jit::Extra::of_int(1)}});
  Tensor x = cuda_of({1, 2}, {2}, DType::Float32);
  auto e = error_of([&] { f.run({x, x}, {{"gamma", jit::Extra::of_int(1)}}); });
  EXPECT_NE(e.second.find("gamma is not declared in function definition"), std::string::npos) << e.second;
  e = error_of([&] { f.run(std::vector<Tensor>(9, x), {}); });
  EXPECT_NE(e.second.find("jiterator only supports up to 8 tensor inputs, got 9"), std::string::npos) << e.second;
  Tensor c = ops::from_buffer(std::vector<float>{1, 2}.data(), 8, {2}, DType::Float32, Device{});
  e = error_of([&] { f.run({x, c}, {}); });
  EXPECT_EQ(e.first, Status::Device);
  EXPECT_NE(e.second.find("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"),
            std::string::npos)
      << e.second;
  jit::JitFunction bad("template <typename T> T broken(T x) { return x + undefined_name; }", 1, false, {});
  e = error_of([&] { bad.run({x}, {}); });
  EXPECT_EQ(e.first, Status::Argument);
  EXPECT_NE(e.second.find("identifier \"undefined_name\" is undefined"), std::string::npos) << e.second;
  // empty: no compile, no launch
  int64_t before = jit::compiled_kernel_count();
  std::vector<Tensor> out = bad.run({cuda_of({}, {0}, DType::Float32)}, {});
  EXPECT_EQ(out[0]->numel(), 0);
  EXPECT_EQ(jit::compiled_kernel_count(), before);
}

TEST(JitRun, CompiledOnceForManyThreads) {
  SKIP_WITHOUT_CUDA();
  jit::JitFunction f("template <typename T> T cube(T x) { return x * x * x; }", 1, false, {});
  Tensor x = cuda_of(iota(100, 1, 0), {100}, DType::Float32);
  int64_t before = jit::compiled_kernel_count();
  std::vector<std::thread> threads;
  std::vector<std::vector<double>> got(8);
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] { got[static_cast<size_t>(i)] = host_of(f.run({x}, {})[0]); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(jit::compiled_kernel_count(), before + 1);
  for (const auto& g : got) EXPECT_DOUBLE_EQ(g[7], 343.0);
  f.run({cuda_of({1}, {1}, DType::Float64)}, {});  // another dtype: another kernel
  EXPECT_EQ(jit::compiled_kernel_count(), before + 2);
}

TEST(JitRun, VectorsTailsAndMisalignedViews) {
  SKIP_WITHOUT_CUDA();
  jit::JitFunction f("template <typename T> T sq(T x, T y) { return x * x - y; }", 1, false, {});
  for (DType dt : {DType::Float32, DType::Float16, DType::UInt8}) {
    // 5003 elements: full blocks of 128 threads (8 elements a thread, 16 for uint8) and a tail
    std::vector<double> v = iota(5003, dt == DType::UInt8 ? 0 : 0.00025, 3);
    if (dt == DType::UInt8)
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 15);
    Tensor x = cuda_of(v, {5003}, dt);
    // the whole (vectors and a tail), then views starting 1 and 3 elements in (data not aligned
    // to a vector: narrower vectors or none)
    for (int64_t start : {0, 1, 3}) {
      Tensor a = ops::narrow(x, 0, start, 5003 - start);
      Tensor b = ops::narrow(x, 0, 0, 5003 - start);
      std::vector<double> ar = host_of(a), br = host_of(b), got = host_of(f.run({a, b}, {})[0]);
      ASSERT_EQ(got.size(), ar.size());
      for (size_t i = 0; i < got.size(); ++i) {
        double want = ar[i] * ar[i] - br[i];
        if (dt == DType::UInt8) want = static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(want)));
        double tol = dt == DType::Float16 ? 2e-3 * (1 + std::fabs(want)) * 4 : dt == DType::Float32 ? 1e-5 * (1 + std::fabs(want)) : 0;
        ASSERT_NEAR(got[i], want, tol) << dtype_name(dt) << " start " << start << " i=" << i;
      }
    }
  }
}

TEST(JitRun, MoreThanTwoToThe31Elements) {
  SKIP_WITHOUT_CUDA();
  // 64-bit indices (Note [Jiterator blocks]): 2^31 + 4080 uint8 elements, contiguous and as a
  // transposed view, each element i being p[i % 251]
  const int64_t rows = 8555728, cols = 251, n = rows * cols;
  ASSERT_GT(n, int64_t{1} << 31);
  std::vector<double> pv(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j) pv[static_cast<size_t>(j)] = static_cast<double>((j * 7) % 256);
  Tensor p = cuda_of(pv, {1, cols}, DType::UInt8);
  Tensor x = ops::reshape(ops::contiguous(ops::expand(p, {rows, cols})), {n});
  jit::JitFunction f("template <typename T> T lin(T x) { return x * T(3) + T(1); }", 1, false, {});
  Tensor y = f.run({x}, {})[0];
  auto check = [&](int64_t from, int64_t len) {
    std::vector<double> got = host_of(ops::narrow(y, 0, from, len));
    for (int64_t i = 0; i < len; ++i) {
      double want = static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(pv[static_cast<size_t>((from + i) % cols)]) * 3 + 1));
      ASSERT_EQ(got[static_cast<size_t>(i)], want) << "element " << from + i;
    }
  };
  check(0, 3000);
  check((int64_t{1} << 31) - 3000, 6000);
  check(n - 3000, 3000);
  y = Tensor();
  // the strided form with 64-bit indices: the transposed view into a C-contiguous output (the
  // operands do not collapse to one dim): yt[j][r] = lin(p[j])
  Tensor xt = ops::transpose(ops::view(x, {rows, cols}), 0, 1);
  Tensor yt = empty_tensor({cols, rows}, DType::UInt8, kCuda);
  f.run_out({xt}, {}, {yt});
  for (int64_t j : {int64_t{0}, int64_t{1}, cols - 1}) {
    std::vector<double> got = host_of(ops::narrow(ops::select(yt, 0, j), 0, rows - 2000, 2000));
    double want = static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(pv[static_cast<size_t>(j)]) * 3 + 1));
    for (double g : got) ASSERT_EQ(g, want) << "row " << j;
  }
}

TEST(JitRun, FewElementsSpanningMoreThanTwoToThe31Bytes) {
  SKIP_WITHOUT_CUDA();
  // numel fits 31 bits but an operand's span does not: 64-bit offsets (three rows of a
  // 3 x (2^30 + 8) uint8 tensor, 1000 elements each)
  const int64_t wide = (int64_t{1} << 30) + 8;
  Tensor base = empty_tensor({3, wide}, DType::UInt8, kCuda);
  for (int64_t r = 0; r < 3; ++r) ops::fill_(ops::narrow(ops::select(base, 0, r), 0, wide - 1000, 1000), static_cast<double>(10 * r + 1));
  Tensor x = ops::narrow(base, 1, wide - 1000, 1000);  // (3, 1000), strides (wide, 1)
  jit::JitFunction f("template <typename T> T lin(T x) { return x * T(3) + T(1); }", 1, false, {});
  Tensor y = f.run({x}, {})[0];
  std::vector<double> got = host_of(y);
  ASSERT_EQ(got.size(), 3000u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<double>((10 * (i / 1000) + 1) * 3 + 1)) << i;
  // and as an output: the out form writes back into the wide rows
  f.run_out({y}, {}, {x});
  got = host_of(x);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<double>(static_cast<uint8_t>(((10 * (i / 1000) + 1) * 3 + 1) * 3 + 1))) << i;
}

// ---- the disk cache across processes (Note [Jiterator disk cache]): a first process compiles
// and stores, a second one loads the kernel from the file without compiling. Each process is
// this test binary again (DiskCacheChild, which does nothing unless the parent started it).

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

TEST(JitRun, DiskCacheChild) {
  const char* nonce = std::getenv("CT_JIT_DISK_CHILD");
  if (!nonce) GTEST_SKIP() << "run by DiskCacheAcrossProcesses in processes of its own";
  SKIP_WITHOUT_CUDA();
  jit::JitFunction f(std::string("template <typename T> T tagged(T x) { return x * T(2) + T(") + nonce + "); }", 1, false, {});
  Tensor x = cuda_of(iota(1000, 1, 0), {1000}, DType::Float32);
  std::vector<double> got = host_of(f.run({x}, {})[0]);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += got[i] != 2.0 * static_cast<double>(i) + std::atof(nonce);
  jit::KernelStats st = jit::kernel_stats();
  std::printf("child: compiled=%lld from_disk=%lld bad=%d\n", static_cast<long long>(st.compiled),
              static_cast<long long>(st.from_disk), bad);
}

TEST(JitRun, DiskCacheAcrossProcesses) {
  SKIP_WITHOUT_CUDA();
  char dir[] = "/tmp/ctorch_jit_disk_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string nonce = std::to_string(getpid() % 1000);
  auto child = [&]() {
    std::string out = std::string(dir) + "/child.txt";
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "CTORCH_KERNEL_CACHE_PATH=", 25) != 0 && std::strncmp(*e, "USE_CTORCH_KERNEL_CACHE=", 24) != 0)
        env_s.push_back(*e);
    env_s.push_back(std::string("CTORCH_KERNEL_CACHE_PATH=") + dir + "/kernels");
    env_s.push_back("CT_JIT_DISK_CHILD=" + nonce);
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(&e[0]);
    envp.push_back(nullptr);
    std::string filter = "--gtest_filter=JitRun.DiskCacheChild";
    char self[] = "/proc/self/exe";
    char* argv[] = {self, &filter[0], nullptr};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv, envp.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    size_t at = text.find("child: ");
    return at == std::string::npos ? text : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_EQ(child(), "child: compiled=1 from_disk=0 bad=0");  // compiles and stores
  EXPECT_EQ(child(), "child: compiled=0 from_disk=1 bad=0");  // loads it: NVRTC not used
  std::string cmd = std::string("rm -rf ") + dir;
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}
