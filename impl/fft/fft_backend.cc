// The FFT backends (impl/fft/fft.h): FFTW on the CPU, cuFFT with a plan cache on CUDA devices.
//
// Note [cuFFT plan cache]: as torch.backends.cuda.cufft_plan_cache[i], one LRU cache of cuFFT
// plans per device, keyed by the transform (kind, precision, signal sizes, batch), max_size
// 4096 by default (0 disables caching: plans are made and destroyed per call). Beyond PyTorch,
// a byte budget (max_bytes, 0 = none) bounds the sum of the cached plans' work-area sizes,
// evicting least recently used plans first. Plans are made without auto-allocation: each
// execution takes its work area from the caching allocator on the current stream and frees it
// at once (stream-ordered reuse makes that safe). The cache's lock is held while a plan is
// bound to the stream and launched, so one plan is never used by two threads at once.
#include <cufft.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <string>

#include "impl/alloc/allocator.h"
#include "impl/core/dynlib.h"
#include "impl/core/error.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/stream.h"
#include "impl/fft/fft.h"
#include "impl/fft/plan_cache.h"

namespace ct::fft {

namespace {

// ---- FFTW (double: libfftw3.so.3, float: libfftw3f.so.3)
// FFTW's functions without their prefix (fftw_ for double, fftwf_ for float), pointers as void*.
#define CT_FFTW_FUNCTIONS(X)                                                                                   \
  X(plan_dft, plan_many_dft,                                                                                   \
    void* (*)(int, const int*, int, void*, const int*, int, int, void*, const int*, int, int, int, unsigned))  \
  X(plan_r2c, plan_many_dft_r2c,                                                                               \
    void* (*)(int, const int*, int, void*, const int*, int, int, void*, const int*, int, int, unsigned))       \
  X(plan_c2r, plan_many_dft_c2r,                                                                               \
    void* (*)(int, const int*, int, void*, const int*, int, int, void*, const int*, int, int, unsigned))       \
  X(execute, execute, void (*)(void*))                                                                         \
  X(destroy, destroy_plan, void (*)(void*))
CT_LIBRARY_TABLE(Fftw, CT_FFTW_FUNCTIONS);

std::mutex g_fftw_planner;  // FFTW's planner is not thread-safe; execution is

// FFTW's functions for float ("fftwf_" in libfftw3f) or double ("fftw_" in libfftw3).
template <bool kDouble>
const Fftw& fftw_lib() {
  constexpr const char* name = kDouble ? "libfftw3.so.3" : "libfftw3f.so.3";
  static const LazyLibrary<Fftw> lib(
      {name},
      str_cat("CPU FFTs need FFTW 3 (", name, ", Debian package ", kDouble ? "libfftw3-double3" : "libfftw3-single3",
              "), which could not be loaded:"),
      kDouble ? "fftw_" : "fftwf_");
  return lib.get();
}

const Fftw& fftw(bool dbl) { return dbl ? fftw_lib<true>() : fftw_lib<false>(); }

int to_int(int64_t v) {
  CT_CHECK(v <= INT32_MAX, Status::NotSupported, "CPU FFT: size ", v, " is beyond FFTW's 32-bit interface");
  return static_cast<int>(v);
}

void cpu_execute(Kind kind, bool forward, bool dbl, int64_t batch, const std::vector<int64_t>& n, void* in, void* out) {
  const Fftw& l = fftw(dbl);
  std::vector<int> ni;
  int64_t total = 1;
  for (int64_t s : n) ni.push_back(to_int(s)), total *= s;
  int64_t half = total / n.back() * (n.back() / 2 + 1);
  int rank = static_cast<int>(n.size());
  constexpr unsigned kEstimate = 1u << 6;  // FFTW_ESTIMATE: plans without touching the arrays
  void* plan;
  {
    std::lock_guard<std::mutex> g(g_fftw_planner);
    if (kind == kC2C)
      plan = l.plan_dft(rank, ni.data(), to_int(batch), in, nullptr, 1, to_int(total), out, nullptr, 1, to_int(total),
                        forward ? -1 : 1, kEstimate);
    else if (kind == kR2C)
      plan = l.plan_r2c(rank, ni.data(), to_int(batch), in, nullptr, 1, to_int(total), out, nullptr, 1, to_int(half),
                        kEstimate);
    else
      plan = l.plan_c2r(rank, ni.data(), to_int(batch), in, nullptr, 1, to_int(half), out, nullptr, 1, to_int(total),
                        kEstimate);
  }
  CT_CHECK(plan != nullptr, Status::Internal, "FFTW could not plan the transform");
  l.execute(plan);
  std::lock_guard<std::mutex> g(g_fftw_planner);
  l.destroy(plan);
}

// ---- cuFFT
#define CT_CUFFT_FUNCTIONS(X)                                                                         \
  X(create, cufftCreate, cufftResult (*)(cufftHandle*))                                               \
  X(destroy, cufftDestroy, cufftResult (*)(cufftHandle))                                              \
  X(set_auto, cufftSetAutoAllocation, cufftResult (*)(cufftHandle, int))                              \
  X(make_many64, cufftMakePlanMany64,                                                                 \
    cufftResult (*)(cufftHandle, int, long long*, long long*, long long, long long, long long*, long long, long long, \
                    cufftType, long long, size_t*))                                                   \
  X(set_work, cufftSetWorkArea, cufftResult (*)(cufftHandle, void*))                                  \
  X(set_stream, cufftSetStream, cufftResult (*)(cufftHandle, cudaStream_t))                           \
  X(c2c, cufftExecC2C, cufftResult (*)(cufftHandle, cufftComplex*, cufftComplex*, int))               \
  X(z2z, cufftExecZ2Z, cufftResult (*)(cufftHandle, cufftDoubleComplex*, cufftDoubleComplex*, int))   \
  X(r2c, cufftExecR2C, cufftResult (*)(cufftHandle, cufftReal*, cufftComplex*))                       \
  X(d2z, cufftExecD2Z, cufftResult (*)(cufftHandle, cufftDoubleReal*, cufftDoubleComplex*))           \
  X(c2r, cufftExecC2R, cufftResult (*)(cufftHandle, cufftComplex*, cufftReal*))                       \
  X(z2d, cufftExecZ2D, cufftResult (*)(cufftHandle, cufftDoubleComplex*, cufftDoubleReal*))
CT_LIBRARY_TABLE(Cufft, CT_CUFFT_FUNCTIONS);

const Cufft& cufft() {
  static const LazyLibrary<Cufft> lib(cuda_library_names("libcufft.so.12", "libcufft.so"),
                                      "CUDA FFTs need cuFFT (libcufft.so.12, CUDA 13), which could not be loaded:");
  return lib.get();
}

void check(cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return;
  CT_CHECK(r != CUFFT_ALLOC_FAILED, Status::OutOfMemory, "CUDA out of memory in cuFFT (", what, ")");
  fail(Status::Cuda, "cuFFT error ", static_cast<int>(r), " in ", what);
}

struct Key {
  int kind;
  bool dbl;
  std::vector<int64_t> n;
  int64_t batch;
  bool operator<(const Key& o) const {
    if (kind != o.kind) return kind < o.kind;
    if (dbl != o.dbl) return dbl < o.dbl;
    if (batch != o.batch) return batch < o.batch;
    return n < o.n;
  }
};

struct Plan {
  cufftHandle handle;
  size_t work;
};

using PlanCache = LruPlanCache<Key, Plan>;

PlanCache& cache(int device) {
  static std::once_flag once;
  static std::vector<std::unique_ptr<PlanCache>>* caches;  // never destroyed (plans leak at exit, as PyTorch's)
  std::call_once(once, [] {
    caches = new std::vector<std::unique_ptr<PlanCache>>();
    int n = cuda::is_available() ? cuda::device_count() : 0;
    for (int i = 0; i < n; ++i)
      caches->emplace_back(new PlanCache([](Plan& p) { (void)cufft().destroy(p.handle); }));
  });
  cuda::check_device_index(device);
  return *(*caches)[device];
}

void cuda_execute(Kind kind, bool forward, bool dbl, int device, int64_t batch, const std::vector<int64_t>& n, void* in,
                  void* out) {
  const Cufft& lib = cufft();
  cuda::DeviceGuard g(device);
  cudaStream_t stream = static_cast<cudaStream_t>(cuda::current_stream(device)->stream);
  PlanCache& pc = cache(device);
  auto lk = pc.lock();
  Key key{kind, dbl, n, batch};
  Plan plan{};
  bool cached = false;
  if (Plan* hit = pc.lookup(key)) {
    plan = *hit;
    cached = true;
  } else {
    check(lib.create(&plan.handle), "cufftCreate");
    check(lib.set_auto(plan.handle, 0), "cufftSetAutoAllocation");
    std::vector<long long> nn(n.begin(), n.end());
    cufftType type = kind == kC2C ? (dbl ? CUFFT_Z2Z : CUFFT_C2C)
                     : kind == kR2C ? (dbl ? CUFFT_D2Z : CUFFT_R2C)
                                    : (dbl ? CUFFT_Z2D : CUFFT_C2R);
    cufftResult r = lib.make_many64(plan.handle, static_cast<int>(n.size()), nn.data(), nullptr, 1, 0, nullptr, 1, 0,
                                    type, batch, &plan.work);
    if (r != CUFFT_SUCCESS) {
      (void)lib.destroy(plan.handle);
      check(r, "cufftMakePlanMany64");
    }
    cached = pc.insert(key, plan, static_cast<int64_t>(plan.work)) != nullptr;
  }
  DataPtr work;  // freed on the way out
  if (plan.work > 0) work = alloc::allocate(static_cast<int64_t>(plan.work), Device{DeviceType::CUDA, device});
  struct Destroy {
    bool on;
    cufftHandle h;
    ~Destroy() {
      if (on) (void)cufft().destroy(h);
    }
  } destroy{!cached, plan.handle};
  check(lib.set_work(plan.handle, work.get()), "cufftSetWorkArea");
  check(lib.set_stream(plan.handle, stream), "cufftSetStream");
  int dir = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  if (kind == kC2C) {
    if (dbl) check(lib.z2z(plan.handle, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out), dir), "cufftExecZ2Z");
    else check(lib.c2c(plan.handle, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), dir), "cufftExecC2C");
  } else if (kind == kR2C) {
    if (dbl) check(lib.d2z(plan.handle, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out)), "cufftExecD2Z");
    else check(lib.r2c(plan.handle, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)), "cufftExecR2C");
  } else {
    if (dbl) check(lib.z2d(plan.handle, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out)), "cufftExecZ2D");
    else check(lib.c2r(plan.handle, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)), "cufftExecC2R");
  }
}

}  // namespace

void execute(Kind kind, bool forward, DType real, Device dev, int64_t batch, const std::vector<int64_t>& n, void* in,
             void* out) {
  if (batch == 0) return;
  for (int64_t s : n)
    if (s == 0) return;
  bool dbl = real == DType::Float64;
  if (dev.is_cuda()) cuda_execute(kind, forward, dbl, dev.index, batch, n, in, out);
  else cpu_execute(kind, forward, dbl, batch, n, in, out);
}

namespace {
// f(cache) with the cache of `device` locked.
template <class F>
auto locked(int device, F f) {
  PlanCache& pc = cache(device);
  auto g = pc.lock();
  return f(pc);
}
}  // namespace

int64_t plan_cache_max_size(int device) { return locked(device, [](PlanCache& pc) { return pc.max_size(); }); }

void set_plan_cache_max_size(int device, int64_t n) {
  CT_CHECK(n >= 0, Status::Argument, "cuFFT plan cache max_size must be non-negative, got ", n);
  locked(device, [n](PlanCache& pc) { pc.set_max_size(n); });
}

int64_t plan_cache_size(int device) { return locked(device, [](PlanCache& pc) { return pc.size(); }); }

void plan_cache_clear(int device) { locked(device, [](PlanCache& pc) { pc.clear(); }); }

int64_t plan_cache_max_bytes(int device) { return locked(device, [](PlanCache& pc) { return pc.max_bytes(); }); }

void set_plan_cache_max_bytes(int device, int64_t bytes) {
  CT_CHECK(bytes >= 0, Status::Argument, "cuFFT plan cache max_bytes must be non-negative, got ", bytes);
  locked(device, [bytes](PlanCache& pc) { pc.set_max_bytes(bytes); });
}

int64_t plan_cache_bytes(int device) { return locked(device, [](PlanCache& pc) { return pc.bytes(); }); }

int64_t plan_cache_hits(int device) { return locked(device, [](PlanCache& pc) { return pc.hits(); }); }

int64_t plan_cache_misses(int device) { return locked(device, [](PlanCache& pc) { return pc.misses(); }); }

}  // namespace ct::fft
