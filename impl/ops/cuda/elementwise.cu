// Note [CUDA elementwise]: one generic kernel shape per arity. The op is a runtime argument
// (a uniform switch inside the kernel) and the kernels are templated only on the compute
// type, so there are ~10 instantiations per arity instead of one per (op, type). Contiguous
// operands take a fast path (plain indexing, 4 elements per thread, 16-byte vector loads and
// stores when every pointer is aligned); other layouts compute byte offsets from the
// collapsed shape (Note [Elementwise engine]). Casts go through one kernel that switches on
// both dtypes at run time, with PyTorch's conversion rules.
#include <cmath>

#include "impl/cuda/runtime.h"
#include "impl/ops/complex_div.h"
#include "impl/ops/cuda/common.cuh"

namespace ct::cuda_ops {

namespace {

constexpr int kThreads = 256;
constexpr int kVec = 4;

// ---------------------------------------------------------------------------------------------
// Generic launchers

template <int N>
bool contiguous_with(const Iter<N>& it, const int (&sizes)[N]) {
  if (it.ndim != 1 || it.scalar_mask != 0) return false;
  for (int k = 0; k < N; ++k)
    if (it.strides[k][0] != sizes[k]) return false;
  return true;
}

template <typename R, typename T, typename F>
__global__ void unary_contig(R* out, const T* in, int64_t n, F f) {
  int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kVec;
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * kVec;
  for (int64_t i = base; i < n; i += step) {
#pragma unroll
    for (int v = 0; v < kVec; ++v)
      if (i + v < n) out[i + v] = f(in[i + v]);
  }
}

template <typename R, typename T, typename F>
__global__ void unary_strided(Iter<2> it, F f) {
  char* b0 = base_of(it, 0);
  const char* b1 = base_of(it, 1);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Offsets<2> o = offsets_of(it, i);
    *reinterpret_cast<R*>(b0 + o.off[0]) = f(*reinterpret_cast<const T*>(b1 + o.off[1]));
  }
}

template <typename R, typename T, typename F>
void launch_unary(const Iter<2>& it, F f, cudaStream_t s) {
  if (it.numel == 0) return;
  if (contiguous_with(it, {static_cast<int>(sizeof(R)), static_cast<int>(sizeof(T))})) {
    unary_contig<R, T><<<blocks_for((it.numel + kVec - 1) / kVec, kThreads), kThreads, 0, s>>>(
        reinterpret_cast<R*>(it.data[0]), reinterpret_cast<const T*>(it.data[1]), it.numel, f);
  } else {
    unary_strided<R, T><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, f);
  }
}

template <typename R, typename T, typename F>
__global__ void binary_contig(R* out, const T* a, const T* b, int64_t n, F f) {
  int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kVec;
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * kVec;
  for (int64_t i = base; i < n; i += step) {
#pragma unroll
    for (int v = 0; v < kVec; ++v)
      if (i + v < n) out[i + v] = f(a[i + v], b[i + v]);
  }
}

// 16-byte vector path for float: the common contiguous float32 case.
template <typename F>
__global__ void binary_contig_f4(float4* out, const float4* a, const float4* b, int64_t n4, F f) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float4 x = a[i], y = b[i], r;
    r.x = f(x.x, y.x);
    r.y = f(x.y, y.y);
    r.z = f(x.z, y.z);
    r.w = f(x.w, y.w);
    out[i] = r;
  }
}

// One operand is a scalar (in the kernel parameters): `swap` says it is the first.
template <typename R, typename T, typename F>
__global__ void binary_with_scalar(R* out, const T* a, T y, bool swap, int64_t n, F f) {
  int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kVec;
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * kVec;
  for (int64_t i = base; i < n; i += step) {
#pragma unroll
    for (int v = 0; v < kVec; ++v)
      if (i + v < n) out[i + v] = swap ? f(y, a[i + v]) : f(a[i + v], y);
  }
}

template <typename R, typename T, typename F>
__global__ void binary_strided(Iter<3> it, F f) {
  char* b0 = base_of(it, 0);
  const char* b1 = base_of(it, 1);
  const char* b2 = base_of(it, 2);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Offsets<3> o = offsets_of(it, i);
    *reinterpret_cast<R*>(b0 + o.off[0]) =
        f(*reinterpret_cast<const T*>(b1 + o.off[1]), *reinterpret_cast<const T*>(b2 + o.off[2]));
  }
}

template <typename R, typename T, typename F>
void launch_binary(const Iter<3>& it, F f, cudaStream_t s) {
  if (it.numel == 0) return;
  const int r = sizeof(R), t = sizeof(T);
  if (contiguous_with(it, {r, t, t})) {
    if constexpr (std::is_same_v<R, float> && std::is_same_v<T, float>) {
      bool aligned = ((reinterpret_cast<uintptr_t>(it.data[0]) | reinterpret_cast<uintptr_t>(it.data[1]) |
                       reinterpret_cast<uintptr_t>(it.data[2])) % 16) == 0;
      if (aligned && it.numel % 4 == 0) {
        int64_t n4 = it.numel / 4;
        binary_contig_f4<<<blocks_for(n4, kThreads), kThreads, 0, s>>>(
            reinterpret_cast<float4*>(it.data[0]), reinterpret_cast<const float4*>(it.data[1]),
            reinterpret_cast<const float4*>(it.data[2]), n4, f);
        return;
      }
    }
    binary_contig<R, T><<<blocks_for((it.numel + kVec - 1) / kVec, kThreads), kThreads, 0, s>>>(
        reinterpret_cast<R*>(it.data[0]), reinterpret_cast<const T*>(it.data[1]), reinterpret_cast<const T*>(it.data[2]),
        it.numel, f);
  } else if (it.ndim == 1 && it.strides[0][0] == r && (it.scalar_mask == 4u || it.scalar_mask == 2u)) {
    bool swap = it.scalar_mask == 2u;  // the scalar is the first input
    int vec = swap ? 2 : 1;
    if (it.strides[vec][0] != t) {
      binary_strided<R, T><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, f);
      return;
    }
    T y;
    std::memcpy(&y, it.scalar[swap ? 1 : 2], sizeof(T));
    binary_with_scalar<R, T><<<blocks_for((it.numel + kVec - 1) / kVec, kThreads), kThreads, 0, s>>>(
        reinterpret_cast<R*>(it.data[0]), reinterpret_cast<const T*>(it.data[vec]), y, swap, it.numel, f);
  } else {
    binary_strided<R, T><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, f);
  }
}

// ---------------------------------------------------------------------------------------------
// Casts: load any dtype as a wide value, store it as any dtype.

struct Wide {
  int64_t i;   // integer value (when is_int)
  double re, im;
  bool is_int;
};

__device__ __forceinline__ Wide load_wide(const char* p, int32_t dt) {
  Wide w{0, 0, 0, false};
  switch (dt) {
    case CT_BOOL: w.i = *reinterpret_cast<const bool*>(p); w.is_int = true; break;
    case CT_UINT8: w.i = *reinterpret_cast<const uint8_t*>(p); w.is_int = true; break;
    case CT_INT8: w.i = *reinterpret_cast<const int8_t*>(p); w.is_int = true; break;
    case CT_INT16: w.i = *reinterpret_cast<const int16_t*>(p); w.is_int = true; break;
    case CT_INT32: w.i = *reinterpret_cast<const int32_t*>(p); w.is_int = true; break;
    case CT_INT64: w.i = *reinterpret_cast<const int64_t*>(p); w.is_int = true; break;
    case CT_FLOAT16: w.re = __half2float(*reinterpret_cast<const __half*>(p)); break;
    case CT_BFLOAT16: w.re = __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)); break;
    case CT_FLOAT32: w.re = *reinterpret_cast<const float*>(p); break;
    case CT_FLOAT64: w.re = *reinterpret_cast<const double*>(p); break;
    case CT_COMPLEX64: w.re = reinterpret_cast<const float*>(p)[0]; w.im = reinterpret_cast<const float*>(p)[1]; break;
    case CT_COMPLEX128: w.re = reinterpret_cast<const double*>(p)[0]; w.im = reinterpret_cast<const double*>(p)[1]; break;
  }
  return w;
}

template <typename I>
__device__ __forceinline__ I to_int(const Wide& w) {
  if (w.is_int) return static_cast<I>(w.i);
  if constexpr (std::is_same_v<I, uint8_t>) return static_cast<uint8_t>(static_cast<int64_t>(w.re));  // c10 rule
  else return static_cast<I>(w.re);
}

template <typename F>
__device__ __forceinline__ F to_float(const Wide& w) {
  return w.is_int ? static_cast<F>(w.i) : static_cast<F>(w.re);
}

__device__ __forceinline__ void store_wide(char* p, int32_t dt, const Wide& w) {
  switch (dt) {
    case CT_BOOL: *reinterpret_cast<bool*>(p) = w.is_int ? w.i != 0 : (w.re != 0 || w.im != 0); break;
    case CT_UINT8: *reinterpret_cast<uint8_t*>(p) = to_int<uint8_t>(w); break;
    case CT_INT8: *reinterpret_cast<int8_t*>(p) = to_int<int8_t>(w); break;
    case CT_INT16: *reinterpret_cast<int16_t*>(p) = to_int<int16_t>(w); break;
    case CT_INT32: *reinterpret_cast<int32_t*>(p) = to_int<int32_t>(w); break;
    case CT_INT64: *reinterpret_cast<int64_t*>(p) = to_int<int64_t>(w); break;
    // via float, as c10::Half(float) / c10::BFloat16(float)
    case CT_FLOAT16: *reinterpret_cast<__half*>(p) = __float2half_rn(to_float<float>(w)); break;
    case CT_BFLOAT16: *reinterpret_cast<__nv_bfloat16*>(p) = __float2bfloat16_rn(to_float<float>(w)); break;
    case CT_FLOAT32: *reinterpret_cast<float*>(p) = to_float<float>(w); break;
    case CT_FLOAT64: *reinterpret_cast<double*>(p) = to_float<double>(w); break;
    case CT_COMPLEX64:
      reinterpret_cast<float*>(p)[0] = to_float<float>(w);
      reinterpret_cast<float*>(p)[1] = static_cast<float>(w.im);
      break;
    case CT_COMPLEX128:
      reinterpret_cast<double*>(p)[0] = to_float<double>(w);
      reinterpret_cast<double*>(p)[1] = w.im;
      break;
  }
}

__global__ void cast_kernel(Iter<2> it) {
  char* b0 = base_of(it, 0);
  const char* b1 = base_of(it, 1);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Offsets<2> o = offsets_of(it, i);
    store_wide(b0 + o.off[0], it.dtype[0], load_wide(b1 + o.off[1], it.dtype[1]));
  }
}

__global__ void fill_kernel(char* out, int64_t n, int32_t dt, int64_t isz, int kind, double a, double b, int64_t c,
                            double d) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    // __dmul_rn / __dadd_rn: no fused multiply-add, so values equal the CPU's bit for bit
    double v;
    if (kind == 0) v = __dadd_rn(a, __dmul_rn(static_cast<double>(i), b));
    else if (kind == 1)
      v = i < c / 2 ? __dadd_rn(a, __dmul_rn(b, static_cast<double>(i))) : __dsub_rn(d, __dmul_rn(b, static_cast<double>(c - i - 1)));
    else if (kind == 2) v = (i / c == i % c) ? 1.0 : 0.0;
    else v = a;
    Wide w{0, v, 0, false};
    store_wide(out + i * isz, dt, w);
  }
}

// ---------------------------------------------------------------------------------------------
// Op functors (the op is a runtime value; the switch is uniform across threads)

template <typename T>
__device__ __forceinline__ bool isnan_(T v) {
  if constexpr (std::is_floating_point_v<T>) return isnan(v);
  else return false;
}

template <typename T>
struct BinaryArith {
  int op;
  __device__ T operator()(T a, T b) const {
    switch (op) {
      case CT_ADD: return w_add(a, b);
      case CT_SUB: return w_sub(a, b);
      case CT_MUL: return w_mul(a, b);
      case CT_DIV:
        if constexpr (is_cplx_v<T>) return complex_div(a, b);
        else if constexpr (std::is_floating_point_v<T>) return a / b;
        break;
      case CT_POW:
        if constexpr (std::is_floating_point_v<T>) return pow(a, b);
        else if constexpr (is_cplx_v<T>) return thrust::pow(a, b);
        else if constexpr (is_int_v<T>) return ipow(a, b);
        break;
      case CT_MAXIMUM:
      case CT_MINIMUM:
        if constexpr (!is_cplx_v<T>) {
          if (isnan_(a)) return a;
          if (isnan_(b)) return b;
          return op == CT_MAXIMUM ? (a > b ? a : b) : (a < b ? a : b);
        }
        break;
      case CT_FLOOR_DIVIDE:
      case CT_REMAINDER:
        if constexpr (std::is_floating_point_v<T>) {
          return op == CT_FLOOR_DIVIDE ? floor_div_float(a, b) : remainder_float(a, b);
        } else if constexpr (is_int_v<T>) {
          // Note: integer division by zero is not checked on CUDA (as in PyTorch): the result
          // is unspecified (0 here). See docs/differences.md.
          if (b == 0) return T(0);
          return floor_div_int(a, b, op == CT_FLOOR_DIVIDE);
        }
        break;
      default:
        break;
    }
    return T(0);
  }
};

template <typename T>
struct BinaryBool {
  int op;
  __device__ bool operator()(T a, T b) const {
    switch (op) {
      case CT_EQ: return a == b;
      case CT_NE: return a != b;
      case CT_LOGICAL_AND: return (a != T(0)) && (b != T(0));
      case CT_LOGICAL_OR: return (a != T(0)) || (b != T(0));
      case CT_LOGICAL_XOR: return (a != T(0)) != (b != T(0));
      default: break;
    }
    if constexpr (!is_cplx_v<T>) {
      switch (op) {
        case CT_LT: return a < b;
        case CT_LE: return a <= b;
        case CT_GT: return a > b;
        case CT_GE: return a >= b;
        default: break;
      }
    }
    return false;
  }
};

template <typename T>
struct UnaryOp {
  int op;
  __device__ T operator()(T x) const {
    switch (op) {
      case CT_NEG:
        if constexpr (!std::is_same_v<T, bool>) return w_sub(T(0), x);
        break;
      case CT_ABS:
        if constexpr (is_int_v<T> && std::is_signed_v<T>) return x < 0 ? w_sub(T(0), x) : x;
        else if constexpr (std::is_floating_point_v<T>) return fabs(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_RELU:
        if constexpr (!is_cplx_v<T> && !std::is_same_v<T, bool>) return isnan_(x) ? x : (x > T(0) ? x : T(0));
        break;
      case CT_SIGN:
        if constexpr (std::is_same_v<T, bool>) return x;
        else if constexpr (!is_cplx_v<T>) return static_cast<T>((T(0) < x) - (x < T(0)));
        break;
      case CT_FLOOR:
        if constexpr (std::is_floating_point_v<T>) return floor(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_CEIL:
        if constexpr (std::is_floating_point_v<T>) return ceil(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_ROUND:
        if constexpr (std::is_floating_point_v<T>) return nearbyint(x);
        else if constexpr (!is_cplx_v<T>) return x;
        break;
      case CT_SQUARE:
        return w_mul(x, x);
      default:
        break;
    }
    if constexpr (std::is_floating_point_v<T>) {
      switch (op) {
        case CT_EXP: return exp(x);
        case CT_LOG: return log(x);
        case CT_SQRT: return sqrt(x);
        case CT_SIN: return sin(x);
        case CT_COS: return cos(x);
        case CT_TANH: return tanh(x);
        case CT_SIGMOID: return T(1) / (T(1) + exp(-x));
        case CT_RECIPROCAL: return T(1) / x;
        default: break;
      }
    } else if constexpr (is_cplx_v<T>) {
      switch (op) {
        case CT_EXP: return thrust::exp(x);
        case CT_LOG: return thrust::log(x);
        case CT_SQRT: return thrust::sqrt(x);
        case CT_SIN: return thrust::sin(x);
        case CT_COS: return thrust::cos(x);
        case CT_TANH: return thrust::tanh(x);
        case CT_SIGMOID: return complex_div(T(1), T(1) + thrust::exp(-x));
        case CT_RECIPROCAL: return complex_div(T(1), x);
        default: break;
      }
    }
    return T(0);
  }
};

template <typename T>
struct LogicalNot {
  __device__ bool operator()(T x) const { return x == T(0); }
};

template <typename T>
struct AbsComplex {
  __device__ typename T::value_type operator()(T x) const { return thrust::abs(x); }
};

template <int B>
struct Bytes {
  unsigned char b[B];
};

template <int B>
__global__ void where_kernel(Iter<4> it) {
  char* b[4] = {base_of(it, 0), base_of(it, 1), base_of(it, 2), base_of(it, 3)};
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Offsets<4> o = offsets_of(it, i);
    bool c = *reinterpret_cast<const bool*>(b[1] + o.off[1]);
    const char* src = c ? b[2] + o.off[2] : b[3] + o.off[3];
    *reinterpret_cast<Bytes<B>*>(b[0] + o.off[0]) = *reinterpret_cast<const Bytes<B>*>(src);
  }
}

}  // namespace

void cast(const Iter<2>& it, void* stream) {
  if (it.numel == 0) return;
  cast_kernel<<<blocks_for(it.numel, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(it);
  cuda::check_launch("cast kernel", static_cast<cudaStream_t>(stream));
}

namespace {
// (ct::itemsize lives in the host library, which this one must not call back into.)
int64_t dtype_bytes(DType d) {
  switch (d) {
    case DType::UInt8: case DType::Int8: case DType::Bool: return 1;
    case DType::Int16: case DType::Float16: case DType::BFloat16: return 2;
    case DType::Int32: case DType::Float32: return 4;
    case DType::Int64: case DType::Float64: case DType::Complex64: return 8;
    case DType::Complex128: return 16;
  }
  return 0;
}
}  // namespace

void fill_pattern(void* out, int64_t n, DType dtype, int kind, double a, double b, int64_t c, double d, void* stream) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<char*>(out), n, static_cast<int32_t>(dtype), dtype_bytes(dtype), kind, a, b, c, d);
  cuda::check_launch("factory kernel", static_cast<cudaStream_t>(stream));
}

namespace {
template <typename T>
void unary_t(ct_unary_op op, const Iter<2>& it, cudaStream_t s) {
  if (op == CT_LOGICAL_NOT) {
    launch_unary<bool, T>(it, LogicalNot<T>{}, s);
    return;
  }
  if constexpr (is_cplx_v<T>) {
    if (op == CT_ABS) {
      launch_unary<typename T::value_type, T>(it, AbsComplex<T>{}, s);
      return;
    }
  }
  launch_unary<T, T>(it, UnaryOp<T>{op}, s);
}

template <typename T>
void binary_t(ct_binary_op op, const Iter<3>& it, cudaStream_t s) {
  if (op >= CT_EQ && op <= CT_LOGICAL_XOR) launch_binary<bool, T>(it, BinaryBool<T>{op}, s);
  else launch_binary<T, T>(it, BinaryArith<T>{op}, s);
}
}  // namespace

void unary(ct_unary_op op, const Iter<2>& it, DType compute, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_CU_DISPATCH_COMPUTE(compute, "unary", [&] { unary_t<scalar_t>(op, it, s); });
  cuda::check_launch("unary kernel", s);
}

void binary(ct_binary_op op, const Iter<3>& it, DType compute, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_CU_DISPATCH_COMPUTE(compute, "binary", [&] { binary_t<scalar_t>(op, it, s); });
  cuda::check_launch("binary kernel", s);
}

void where(const Iter<4>& it, int64_t isz, void* stream) {
  if (it.numel == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int blocks = blocks_for(it.numel, kThreads);
  switch (isz) {
    case 1: where_kernel<1><<<blocks, kThreads, 0, s>>>(it); break;
    case 2: where_kernel<2><<<blocks, kThreads, 0, s>>>(it); break;
    case 4: where_kernel<4><<<blocks, kThreads, 0, s>>>(it); break;
    case 8: where_kernel<8><<<blocks, kThreads, 0, s>>>(it); break;
    case 16: where_kernel<16><<<blocks, kThreads, 0, s>>>(it); break;
    default: fail(CT_ERR_INTERNAL, "where: unexpected element size ", isz);
  }
  cuda::check_launch("where kernel", s);
}

}  // namespace ct::cuda_ops
