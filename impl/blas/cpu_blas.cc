// CPU matrix products through OpenBLAS's CBLAS interface, loaded at first use.
//
// Note [BLAS libraries load on first use]: libctorch.so has no link-time dependency on a BLAS,
// cuBLAS or cuFFT: it loads libopenblas.so.0 (Debian's libopenblas0), libcublas.so.13 and
// libcufft.so.12 with dlopen the first time a matrix product or FFT needs them, so the library
// still loads and runs elementwise work on a machine that lacks them, and a missing library is
// a clear error naming it (Status::NotSupported). OpenBLAS uses its own threads (all cores;
// OPENBLAS_NUM_THREADS overrides).
#include <dlfcn.h>

#include <complex>
#include <cstring>
#include <mutex>
#include <vector>

#include "impl/blas/backends.h"
#include "impl/blas/blas.h"
#include "impl/core/dynlib.h"
#include "impl/core/error.h"
#include "impl/core/half.h"

namespace ct::blas {

namespace {

enum { kRowMajor = 101, kNoTrans = 111 };
using sgemm_t = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using dgemm_t = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*,
                         int);
using zgemm_t = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int, const void*,
                         void*, int);

struct OpenBlas {
  sgemm_t sgemm = nullptr;
  dgemm_t dgemm = nullptr;
  zgemm_t cgemm = nullptr, zgemm = nullptr;
};

const OpenBlas& openblas() {
  static OpenBlas lib;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    void* h = open_library({"libopenblas.so.0", "libopenblas.so"}, &tried);
    if (!h) {
      error = str_cat("CPU matrix products need OpenBLAS (libopenblas.so.0, Debian package libopenblas0), which "
                      "could not be loaded:", tried);
      return;
    }
    lib.sgemm = reinterpret_cast<sgemm_t>(dlsym(h, "cblas_sgemm"));
    lib.dgemm = reinterpret_cast<dgemm_t>(dlsym(h, "cblas_dgemm"));
    lib.cgemm = reinterpret_cast<zgemm_t>(dlsym(h, "cblas_cgemm"));
    lib.zgemm = reinterpret_cast<zgemm_t>(dlsym(h, "cblas_zgemm"));
    if (!lib.sgemm || !lib.dgemm || !lib.cgemm || !lib.zgemm) {
      error = "the loaded libopenblas has no CBLAS gemm functions";
      lib = OpenBlas{};
    }
  });
  CT_CHECK(lib.sgemm != nullptr, Status::NotSupported, error);
  return lib;
}

int to_int(int64_t v, const char* what) {
  CT_CHECK(v <= INT32_MAX, Status::NotSupported, "CPU matrix product: ", what, " ", v,
           " is beyond the 32-bit BLAS interface");
  return static_cast<int>(v);
}

}  // namespace

void cpu_gemm(DType dtype, int64_t batch, int64_t n, int64_t m, int64_t k, const void* A, const void* B, void* C) {
  const OpenBlas& lib = openblas();
  int N = to_int(n, "size"), M = to_int(m, "size"), K = to_int(k, "size");
  int lda = K > 0 ? K : 1, ldb = M > 0 ? M : 1, ldc = M > 0 ? M : 1;
  for (int64_t b = 0; b < batch; ++b) {
    switch (dtype) {
      case DType::Float32:
        lib.sgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, 1.0f, static_cast<const float*>(A) + b * n * k, lda,
                  static_cast<const float*>(B) + b * k * m, ldb, 0.0f, static_cast<float*>(C) + b * n * m, ldc);
        break;
      case DType::Float64:
        lib.dgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, 1.0, static_cast<const double*>(A) + b * n * k, lda,
                  static_cast<const double*>(B) + b * k * m, ldb, 0.0, static_cast<double*>(C) + b * n * m, ldc);
        break;
      case DType::Complex64: {
        const std::complex<float> one(1), zero(0);
        lib.cgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, &one, static_cast<const std::complex<float>*>(A) + b * n * k,
                  lda, static_cast<const std::complex<float>*>(B) + b * k * m, ldb, &zero,
                  static_cast<std::complex<float>*>(C) + b * n * m, ldc);
        break;
      }
      case DType::Complex128: {
        const std::complex<double> one(1), zero(0);
        lib.zgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, &one, static_cast<const std::complex<double>*>(A) + b * n * k,
                  lda, static_cast<const std::complex<double>*>(B) + b * k * m, ldb, &zero,
                  static_cast<std::complex<double>*>(C) + b * n * m, ldc);
        break;
      }
      case DType::Float16:
      case DType::BFloat16: {
        // float accumulation (as PyTorch's CPU kernels), one rounding at the end
        auto to_f = [dtype](const uint16_t* p, int64_t cnt, std::vector<float>& out) {
          out.resize(static_cast<size_t>(cnt));
          for (int64_t i = 0; i < cnt; ++i) {
            Half h;
            BFloat16 bf;
            h.x = bf.x = p[i];
            out[static_cast<size_t>(i)] = dtype == DType::Float16 ? static_cast<float>(h) : static_cast<float>(bf);
          }
        };
        std::vector<float> a, bb, c(static_cast<size_t>(n * m));
        to_f(static_cast<const uint16_t*>(A) + b * n * k, n * k, a);
        to_f(static_cast<const uint16_t*>(B) + b * k * m, k * m, bb);
        lib.sgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, 1.0f, a.data(), lda, bb.data(), ldb, 0.0f, c.data(), ldc);
        uint16_t* out = static_cast<uint16_t*>(C) + b * n * m;
        for (int64_t i = 0; i < n * m; ++i)
          out[i] = dtype == DType::Float16 ? Half(c[static_cast<size_t>(i)]).x : BFloat16(c[static_cast<size_t>(i)]).x;
        break;
      }
      default:
        fail(Status::Internal, "cpu_gemm: unexpected dtype");
    }
  }
}

}  // namespace ct::blas
