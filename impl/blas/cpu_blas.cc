// CPU matrix products through OpenBLAS's CBLAS interface, loaded at first use.
//
// Note [BLAS libraries load on first use]: libctorch.so has no link-time dependency on a BLAS,
// cuBLAS or cuFFT: it loads libopenblas.so.0 (Debian's libopenblas0), libcublas.so.13 and
// libcufft.so.12 with dlopen the first time a matrix product or FFT needs them, so the library
// still loads and runs elementwise work on a machine that lacks them, and a missing library is
// a clear error naming it (Status::NotSupported). OpenBLAS uses its own threads (all cores;
// OPENBLAS_NUM_THREADS overrides).
#include <complex>
#include <cstring>
#include <vector>

#include "impl/blas/backends.h"
#include "impl/blas/blas.h"
#include "impl/core/dynlib.h"
#include "impl/core/error.h"
#include "impl/core/half.h"

namespace ct::blas {

namespace {

enum { kRowMajor = 101, kNoTrans = 111 };
// CBLAS's ?gemm (cblas.h's, its enums as int; complex alpha and beta by address).
#define CT_OPENBLAS_FUNCTIONS(X)                                                                                      \
  X(sgemm, cblas_sgemm, void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,    \
                                 float*, int))                                                                         \
  X(dgemm, cblas_dgemm, void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, \
                                 double*, int))                                                                        \
  X(cgemm, cblas_cgemm, void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,       \
                                 const void*, void*, int))                                                             \
  X(zgemm, cblas_zgemm, void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,       \
                                 const void*, void*, int))
CT_LIBRARY_TABLE(OpenBlas, CT_OPENBLAS_FUNCTIONS);

const OpenBlas& openblas() {
  static const LazyLibrary<OpenBlas> lib(
      {"libopenblas.so.0", "libopenblas.so"},
      "CPU matrix products need OpenBLAS (libopenblas.so.0, Debian package libopenblas0), which could not be loaded:");
  return lib.get();
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
  const int64_t es = itemsize(dtype);
  const std::complex<double> one(1), zero(0);
  const std::complex<float> onef(1), zerof(0);
  for (int64_t b = 0; b < batch; ++b) {
    // matrix b of A, B and C
    const void* a = static_cast<const char*>(A) + b * n * k * es;
    const void* bm = static_cast<const char*>(B) + b * k * m * es;
    void* c = static_cast<char*>(C) + b * n * m * es;
    switch (dtype) {
      case DType::Float32:
        lib.sgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, 1.0f, static_cast<const float*>(a), lda,
                  static_cast<const float*>(bm), ldb, 0.0f, static_cast<float*>(c), ldc);
        break;
      case DType::Float64:
        lib.dgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, 1.0, static_cast<const double*>(a), lda,
                  static_cast<const double*>(bm), ldb, 0.0, static_cast<double*>(c), ldc);
        break;
      case DType::Complex64:  // alpha and beta by address
        lib.cgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, &onef, a, lda, bm, ldb, &zerof, c, ldc);
        break;
      case DType::Complex128:
        lib.zgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, &one, a, lda, bm, ldb, &zero, c, ldc);
        break;
      case DType::Float16:
      case DType::BFloat16: {
        // float accumulation (as PyTorch's CPU kernels), one rounding at the end
        auto to_f = [dtype](const void* p, int64_t cnt, std::vector<float>& out) {
          const uint16_t* bits = static_cast<const uint16_t*>(p);
          out.resize(static_cast<size_t>(cnt));
          for (int64_t i = 0; i < cnt; ++i) {
            Half h;
            BFloat16 bf;
            h.x = bf.x = bits[i];
            out[static_cast<size_t>(i)] = dtype == DType::Float16 ? static_cast<float>(h) : static_cast<float>(bf);
          }
        };
        std::vector<float> fa, fb, fc(static_cast<size_t>(n * m));
        to_f(a, n * k, fa);
        to_f(bm, k * m, fb);
        lib.sgemm(kRowMajor, kNoTrans, kNoTrans, N, M, K, 1.0f, fa.data(), lda, fb.data(), ldb, 0.0f, fc.data(), ldc);
        uint16_t* out = static_cast<uint16_t*>(c);
        for (int64_t i = 0; i < n * m; ++i)
          out[i] = dtype == DType::Float16 ? Half(fc[static_cast<size_t>(i)]).x : BFloat16(fc[static_cast<size_t>(i)]).x;
        break;
      }
      default:
        fail(Status::Internal, "cpu_gemm: unexpected dtype");
    }
  }
}

}  // namespace ct::blas
