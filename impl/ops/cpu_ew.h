// The CPU side of the elementwise engine as the ops use it (Note [Elementwise engine] in
// impl/ops/cpu/loops.h): cpu_ew runs a functor over operands of any dtypes (Note [No promotion
// temporaries] in impl/ops/elementwise.cc), empty_for makes an output laid out as its inputs.
// Shared by impl/ops/elementwise.cc and impl/ops/ewfuncs.cc.
#pragma once
#include <algorithm>
#include <array>
#include <initializer_list>
#include <type_traits>

#include "impl/core/error.h"
#include "impl/ops/cpu/apply.h"
#include "impl/ops/cpu/convert.h"
#include "impl/ops/cpu/loops.h"
#include "impl/ops/cpu/simd.h"
#include "impl/ops/ops.h"

namespace ct::ops::ew {

// ---------------------------------------------------------------------------------------------
// The CPU engine. Operands: output first, then inputs, broadcast against `shape`.

template <typename T> constexpr DType dtype_of() { return dtype_for<CppType, T>(); }

inline bool is_cpu_scalar(const TensorImpl* t) { return t->dim() == 0 && t->device().is_cpu(); }

template <size_t N>
struct Operands {
  Shape shape;
  std::array<const TensorImpl*, N> ts;  // output first
};

// Runs of the buffered path of cpu_ew: at most kRun elements.
constexpr int64_t kRun = 256;

// n elements of dtype dt at p (byte stride st), each read as C and widened to opmath(C).
// float16/bfloat16 runs read as float are converted in bulk (Note [CPU SIMD kernels]).
template <typename C>
void load_run(cpu::opmath_t<C>* buf, const char* p, int64_t st, DType dt, int64_t n) {
  using T = cpu::opmath_t<C>;
  auto bulk = [&](auto tag) {
    using D = decltype(tag);
    if (st == static_cast<int64_t>(sizeof(D))) {
      cpu::convert_n(reinterpret_cast<const D*>(p), buf, n);
      return;
    }
    D tmp[kRun];
    for (int64_t i = 0; i < n; ++i) tmp[i] = *reinterpret_cast<const D*>(p + i * st);
    cpu::convert_n(tmp, buf, n);
  };
  if constexpr (std::is_same_v<T, float>) {
    // reading as C is exact: C is float or the operand's own dtype
    if (dt == DType::Float16 && !std::is_same_v<C, BFloat16>) return bulk(Half{});
    if (dt == DType::BFloat16 && !std::is_same_v<C, Half>) return bulk(BFloat16{});
  }
  CT_DISPATCH_ALL(dt, "load", [&] {
    for (int64_t i = 0; i < n; ++i)
      buf[i] = static_cast<T>(cpu::convert<C>(*reinterpret_cast<const scalar_t*>(p + i * st)));
  });
}

// n results stored into dtype dt at p (byte stride st). For a float16/bfloat16 R, buf holds
// the float results, rounded to R in bulk here.
template <typename R, typename U>
void store_run(char* p, int64_t st, DType dt, const U* buf, int64_t n) {
  if constexpr (!std::is_same_v<R, U>) {
    const bool direct = dt == dtype_of<R>() && st == static_cast<int64_t>(sizeof(R));
    R tmp[kRun];
    cpu::convert_n(buf, direct ? reinterpret_cast<R*>(p) : tmp, n);
    if (!direct) store_run<R>(p, st, dt, tmp, n);
  } else {
    CT_DISPATCH_ALL(dt, "store", [&] {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<scalar_t*>(p + i * st) = cpu::convert<scalar_t>(buf[i]);
    });
  }
}

template <typename T>
T scalar_value(const TensorImpl* t) {
  T v{};
  CT_DISPATCH_ALL(t->dtype, "scalar", [&] { v = cpu::convert<T>(*reinterpret_cast<const scalar_t*>(t->data())); });
  return v;
}

// out = f(inputs...) with inputs read as C (computed in opmath(C)) and the result of storage
// type R stored into the output's dtype (Note [No promotion temporaries]).
//
// Note [CPU elementwise inner loops]: a run of the engine (Note [Elementwise engine]) whose
// operands all have their op's dtypes takes a typed loop, with contiguous (and broadcast
// scalar) cases the compiler vectorizes; float32 and wider compute in place there. Every other
// run goes through kRun-element buffers in the op-math type: inputs converted as loaded
// (float16/bfloat16 in bulk, with F16C or AVX-512 where the CPU has them: Note [CPU SIMD
// kernels]), f over the buffers (for float op-math compiled for the same SIMD level: Note [CPU
// elementwise apply] in cpu/apply.h), and results converted as stored (float16/bfloat16
// results kept in float and rounded in bulk). That is also the path of float16/bfloat16 ops:
// their element-by-element conversions do not vectorize; on CPUs with AVX2 those whose operands
// are all float16 (or all bfloat16), contiguous or broadcast, skip the buffers instead (Note
// [Fused float16/bfloat16 runs] in cpu/apply.h). f may also be callable on a whole
// run, f(const T* x, T* y, n) for one input (ExpOp: cpu::exp_n), used wherever its input and
// output are runs of T.
template <typename C, typename R, size_t N, typename F>
void cpu_ew(const Operands<N>& a, const F& f) {
  constexpr size_t NIN = N - 1;
  using T = cpu::opmath_t<C>;
  // results kept in float until stored when R is float16/bfloat16
  using U = std::conditional_t<cpu::is_reduced_float_v<R>, T, R>;
  constexpr bool kRunF = NIN == 1 && std::is_same_v<U, T> && std::is_invocable_v<const F&, const T*, T*, int64_t>;
  auto o = cpu::make_operands<N>(a.shape, a.ts);
  const cpu::SimdLevel level = cpu::simd_level();
  std::array<DType, N> dt{};
  std::array<bool, N> sc{};
  std::array<T, N> sv{};
  bool typed = !cpu::is_reduced_float_v<C> && a.ts[0]->dtype == dtype_of<R>();
  dt[0] = a.ts[0]->dtype;
  for (size_t k = 1; k < N; ++k) {
    dt[k] = a.ts[k]->dtype;
    if (is_cpu_scalar(a.ts[k])) {
      sc[k] = true;
      sv[k] = scalar_value<T>(a.ts[k]);
    } else {
      typed = typed && dt[k] == dtype_of<C>();
    }
  }
  auto call = [&](const T* v) -> R {
    if constexpr (NIN == 1) return cpu::convert<R>(f(v[0]));
    else if constexpr (NIN == 2) return cpu::convert<R>(f(v[0], v[1]));
    else return cpu::convert<R>(f(v[0], v[1], v[2]));
  };
  cpu::for_each<N>(o, cpu::kGrainSize, [&](std::array<char*, N> p, const std::array<int64_t, N>& st, int64_t n) {
    if (typed) {
      R* d = reinterpret_cast<R*>(p[0]);
      const C* x = reinterpret_cast<const C*>(p[1]);
      const bool cd = st[0] == sizeof(R), c1 = st[1] == sizeof(C) && !sc[1];
      if constexpr (NIN == 1) {
        if (cd && c1) {
          if constexpr (kRunF && std::is_same_v<C, T> && std::is_same_v<R, T>) {
            f(x, d, n);
          } else {
            for (int64_t i = 0; i < n; ++i) d[i] = cpu::convert<R>(f(static_cast<T>(x[i])));
          }
          return;
        }
      } else if constexpr (NIN == 2) {
        const C* y = reinterpret_cast<const C*>(p[2]);
        const bool c2 = st[2] == sizeof(C) && !sc[2];
        if (cd && c1 && c2) {
          for (int64_t i = 0; i < n; ++i) d[i] = cpu::convert<R>(f(static_cast<T>(x[i]), static_cast<T>(y[i])));
          return;
        }
        if (cd && c1 && st[2] == 0) {
          const T yv = sc[2] ? sv[2] : static_cast<T>(*y);
          for (int64_t i = 0; i < n; ++i) d[i] = cpu::convert<R>(f(static_cast<T>(x[i]), yv));
          return;
        }
        if (cd && st[1] == 0 && c2) {
          const T xv = sc[1] ? sv[1] : static_cast<T>(*x);
          for (int64_t i = 0; i < n; ++i) d[i] = cpu::convert<R>(f(xv, static_cast<T>(y[i])));
          return;
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        T v[NIN];
        for (size_t k = 0; k < NIN; ++k)
          v[k] = sc[k + 1] ? sv[k + 1] : static_cast<T>(*reinterpret_cast<const C*>(p[k + 1] + i * st[k + 1]));
        *reinterpret_cast<R*>(p[0] + i * st[0]) = call(v);
      }
      return;
    }
    // float16/bfloat16 operands and result, contiguous or broadcast: Note [Fused float16/bfloat16
    // runs] (cpu/apply.h)
    if constexpr (cpu::is_reduced_float_v<C> && !kRunF && (std::is_same_v<R, C> || std::is_same_v<R, bool>)) {
      if (level != cpu::SimdLevel::kGeneric && dt[0] == dtype_of<R>() && st[0] == static_cast<int64_t>(sizeof(R))) {
        cpu::FusedRun<C, NIN> fr;
        bool ok = true;
        for (size_t k = 0; k < NIN && ok; ++k) {
          if (sc[k + 1]) fr.val[k] = sv[k + 1];
          else if (dt[k + 1] != dtype_of<C>()) ok = false;
          else if (st[k + 1] == static_cast<int64_t>(sizeof(C))) fr.in[k] = reinterpret_cast<const C*>(p[k + 1]);
          else if (st[k + 1] == 0) fr.val[k] = static_cast<T>(*reinterpret_cast<const C*>(p[k + 1]));
          else ok = false;
        }
        if (ok) {
          cpu::fused_n(level, f, fr, reinterpret_cast<R*>(p[0]), n);
          return;
        }
      }
    }
    // other dtypes: runs of up to kRun elements through buffers
    T in[NIN][kRun];
    U res[kRun];
    for (int64_t j = 0; j < n; j += kRun) {
      const int64_t m = std::min(kRun, n - j);
      for (size_t k = 0; k < NIN; ++k) {
        if (sc[k + 1]) std::fill(in[k], in[k] + m, sv[k + 1]);
        else load_run<C>(in[k], p[k + 1] + j * st[k + 1], st[k + 1], dt[k + 1], m);
      }
      if constexpr (kRunF) f(in[0], res, m);
      else cpu::apply_n(level, f, in, res, m);
      store_run<R>(p[0] + j * st[0], st[0], dt[0], res, m);
    }
  });
}

// An output for `shape` laid out as the inputs are iterated (PyTorch's TensorIterator rule).
inline Tensor empty_for(const Shape& shape, DType dt, Device dev, std::initializer_list<const TensorImpl*> ins) {
  Tensor t = empty_tensor(shape, dt, dev);
  t->strides = cpu::strides_for(shape, ins);
  return t;
}

}  // namespace ct::ops::ew
