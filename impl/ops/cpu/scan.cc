// The CPU scan kernel (Note [Scan layout] in scan.h). Each task scans a block of up to kCols
// neighbouring lines of one outer index o, reading row l of the block at once, so a scan over an
// outer dim reads memory in order. Values accumulate in PyTorch's CPU accumulate type
// (at::acc_type<T, false>): double for float32, float for float16/bfloat16, complex<double> for
// complex64; cummax/cummin compare in the element's own precision.
#include "impl/ops/cpu/scan.h"

#include <algorithm>
#include <complex>
#include <vector>

#include "impl/core/error.h"
#include "impl/ops/cpu/parallel.h"

namespace ct::cpu {

namespace {

constexpr int64_t kCols = 256;

template <typename T> struct CpuAcc { using type = opmath_t<T>; };
template <> struct CpuAcc<float> { using type = double; };
template <> struct CpuAcc<std::complex<float>> { using type = std::complex<double>; };

// f(o, i0, i1) over every block of lines, spread over threads.
template <typename F>
void for_blocks(const ScanArgs& a, const F& f) {
  const int64_t nb = (a.I + kCols - 1) / kCols;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, a.L * std::min(a.I, kCols)));
  parallel_for(0, a.O * nb, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / nb, i0 = (t % nb) * kCols;
      f(o, i0, std::min(a.I, i0 + kCols));
    }
  });
}

// A scan over the last dim (I == 1): each line is one contiguous row, scanned in a loop whose
// kind K is a constant (the same operations as scan_values' blocks, without the per-element
// dispatch over the kind), rows in parallel.
template <typename T, ScanKind K>
void scan_rows(const ScanArgs& a) {
  using Acc = typename CpuAcc<T>::type;
  const T* x = static_cast<const T*>(a.in);
  T* y = static_cast<T*>(a.out);
  parallel_for(0, a.O, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, a.L)), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T* xr = x + o * a.L;
      T* yr = y + o * a.L;
      Acc r = scan_math::identity<Acc>(K);
      for (int64_t l = 0; l < a.L; ++l) {
        r = scan_math::combine<Acc>(K, r, convert<Acc>(xr[l]));
        yr[l] = convert<T>(r);
      }
    }
  });
}

template <typename T>
void scan_values(const ScanArgs& a) {
  using Acc = typename CpuAcc<T>::type;
  const T* x = static_cast<const T*>(a.in);
  T* y = static_cast<T*>(a.out);
  if (a.I == 1) {
    if (a.kind == ScanKind::Sum) return scan_rows<T, ScanKind::Sum>(a);
    if (a.kind == ScanKind::Prod) return scan_rows<T, ScanKind::Prod>(a);
    return scan_rows<T, ScanKind::LogSumExp>(a);
  }
  for_blocks(a, [&](int64_t o, int64_t i0, int64_t i1) {
    std::vector<Acc> acc(i1 - i0, scan_math::identity<Acc>(a.kind));
    for (int64_t l = 0; l < a.L; ++l) {
      const int64_t base = (o * a.L + l) * a.I;
      for (int64_t i = i0; i < i1; ++i) {
        Acc& r = acc[i - i0];
        r = scan_math::combine<Acc>(a.kind, r, convert<Acc>(x[base + i]));
        y[base + i] = convert<T>(r);
      }
    }
  });
}

template <typename T>
void scan_extreme(const ScanArgs& a) {
  using C = opmath_t<T>;
  const T* x = static_cast<const T*>(a.in);
  T* y = static_cast<T*>(a.out);
  const bool is_max = a.kind == ScanKind::Max;
  for_blocks(a, [&](int64_t o, int64_t i0, int64_t i1) {
    std::vector<scan_math::ValIdx<C>> acc(i1 - i0, scan_math::ValIdx<C>{C(0), -1});
    for (int64_t l = 0; l < a.L; ++l) {
      const int64_t base = (o * a.L + l) * a.I;
      for (int64_t i = i0; i < i1; ++i) {
        auto& r = acc[i - i0];
        r = scan_math::extreme(is_max, r, scan_math::ValIdx<C>{convert<C>(x[base + i]), l});
        y[base + i] = convert<T>(r.v);
        a.indices[base + i] = r.i;
      }
    }
  });
}

}  // namespace

void scan(const ScanArgs& a) {
  if (a.O * a.L * a.I == 0) return;
  const bool extreme = a.kind == ScanKind::Max || a.kind == ScanKind::Min;
  switch (a.dtype) {
#define CT_SCAN_CASE(D, ...)                                                        \
  case DType::D: {                                                                  \
    using T = CppType<DType::D>::type;                                              \
    if (extreme) {                                                                  \
      if constexpr (!is_complex_v<T>) return scan_extreme<T>(a);                    \
    } else if (a.kind != ScanKind::LogSumExp || !std::is_integral_v<T>) {           \
      return scan_values<T>(a);                                                     \
    }                                                                               \
    break;                                                                          \
  }
    CT_SCAN_CASE(Int64)
    CT_SCAN_CASE(Float16)
    CT_SCAN_CASE(BFloat16)
    CT_SCAN_CASE(Float32)
    CT_SCAN_CASE(Float64)
    CT_SCAN_CASE(Complex64)
    CT_SCAN_CASE(Complex128)
#undef CT_SCAN_CASE
    default:
      break;
  }
  fail(Status::Internal, "cpu::scan: no kernel for ", dtype_name(a.dtype));
}

}  // namespace ct::cpu
