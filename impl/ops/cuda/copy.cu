// Copies with dtype conversion (copy_, casts, fill_), where, and the factory patterns on CUDA
// (Note [CUDA elementwise kernels]).
//
// Note [CUDA casts]: a cast is the identity op with the source read as C and the result stored
// as R. The common pairs (same dtype by element size, float32 <-> float16/bfloat16/float64,
// float16 <-> bfloat16, integers and bool -> float32) have typed kernels, vectorized when
// contiguous; every other pair runs the dynamic-cast kernel with C = the destination dtype.
#include "impl/ops/cuda/functors.cuh"

namespace ct::cuda_ops {

namespace {

template <int B> struct UIntOf;
template <> struct UIntOf<1> { using type = uint8_t; };
template <> struct UIntOf<2> { using type = uint16_t; };
template <> struct UIntOf<4> { using type = uint32_t; };
template <> struct UIntOf<8> { using type = uint64_t; };
template <> struct UIntOf<16> { using type = uint4; };

// A same-dtype copy moves bytes: one kernel per element size.
template <typename U>
struct Move {
  __device__ U operator()(U x) const { return x; }
};

template <typename U>
__global__ void move_strided(Iter<2> it, OffsetCalc<2> oc) {
  const uint32_t n = static_cast<uint32_t>(it.numel);
  uint32_t i = blockIdx.x * (blockDim.x * kEwUnroll) + threadIdx.x;
#pragma unroll
  for (int u = 0; u < kEwUnroll; ++u, i += blockDim.x) {
    if (i >= n) break;
    uint32_t off[2];
    oc.get(i, off);
    *reinterpret_cast<U*>(it.data[0] + off[0]) = *reinterpret_cast<const U*>(it.data[1] + off[1]);
  }
}

template <typename U>
void move(const Iter<2>& whole, cudaStream_t s) {
  for_each_32bit(whole, [&](const Iter<2>& it) {
    unsigned blocks = static_cast<unsigned>((it.numel + kEwThreads * kEwUnroll - 1) / (kEwThreads * kEwUnroll));
    move_strided<U><<<blocks, kEwThreads, 0, s>>>(it, offset_calc(it));
  });
}

template <typename From, typename To>
bool typed_cast(const Iter<2>& it, cudaStream_t s) {
  if (it.dtype[1] != dtype_code<From>() || it.dtype[0] != dtype_code<To>() || it.scalar_mask) return false;
  launch_ew<From, To>(it, Identity<opmath_t<From>>{}, s);
  return true;
}

// where: out = cond ? a : b, contiguous and aligned, V elements per thread.
template <typename C, int V>
__global__ void where_vec(Iter<4> it) {
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t nvec = n / V;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t v = tid; v < nvec; v += gridDim.x * blockDim.x) {
    VecOf<bool, V> c = reinterpret_cast<const VecOf<bool, V>*>(it.data[1])[v];
    VecOf<C, V> a = reinterpret_cast<const VecOf<C, V>*>(it.data[2])[v];
    VecOf<C, V> b = reinterpret_cast<const VecOf<C, V>*>(it.data[3])[v];
    VecOf<C, V> o;
#pragma unroll
    for (int j = 0; j < V; ++j) o.v[j] = c.v[j] ? a.v[j] : b.v[j];
    reinterpret_cast<VecOf<C, V>*>(it.data[0])[v] = o;
  }
  const uint32_t i = nvec * V + tid;
  if (tid < n - nvec * V) {
    reinterpret_cast<C*>(it.data[0])[i] = reinterpret_cast<const bool*>(it.data[1])[i] ? reinterpret_cast<const C*>(it.data[2])[i]
                                                                                     : reinterpret_cast<const C*>(it.data[3])[i];
  }
}

template <typename T>
struct Where {
  __device__ T operator()(T c, T a, T b) const { return c != T(0) ? a : b; }
};

template <typename C>
void where_t(const Iter<4>& whole, cudaStream_t s) {
  for_each_32bit(whole, [&](const Iter<4>& it) {
    constexpr int V = 16 / sizeof(C) > 0 ? 16 / sizeof(C) : 1;
    bool typed = it.scalar_mask == 0 && it.dtype[1] == CT_BOOL && it.ndim == 1 && it.strides[1][0] == 1;
    uintptr_t align = 0;
    for (int k = 0; k < 4; ++k) {
      if (k != 1) typed = typed && it.dtype[k] == dtype_code<C>() && it.strides[k][0] == static_cast<int64_t>(sizeof(C));
      align |= reinterpret_cast<uintptr_t>(it.data[k]) % (k == 1 ? V : sizeof(C) * V);
    }
    if (typed && align == 0) {
      int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((it.numel / V + kVecThreads - 1) / kVecThreads, 1 << 20));
      where_vec<C, V><<<static_cast<unsigned>(blocks), kVecThreads, 0, s>>>(it);
    } else {
      launch_ew<C, C>(it, Where<opmath_t<C>>{}, s);
    }
  });
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
    store_as<double>(out + i * isz, dt, v);
  }
}

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

void cast(const Iter<2>& it, void* stream) {
  if (it.numel == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (it.dtype[0] == it.dtype[1] && !it.scalar_mask) {
    switch (dtype_bytes(static_cast<DType>(it.dtype[0]))) {
      case 1: move<uint8_t>(it, s); break;
      case 2: move<uint16_t>(it, s); break;
      case 4: move<uint32_t>(it, s); break;
      case 8: move<uint64_t>(it, s); break;
      default: move<uint4>(it, s); break;
    }
  } else if (typed_cast<float, half>(it, s) || typed_cast<half, float>(it, s) || typed_cast<float, bf16>(it, s) ||
             typed_cast<bf16, float>(it, s) || typed_cast<half, bf16>(it, s) || typed_cast<bf16, half>(it, s) ||
             typed_cast<float, double>(it, s) || typed_cast<double, float>(it, s) ||
             typed_cast<int32_t, float>(it, s) || typed_cast<int64_t, float>(it, s) ||
             typed_cast<uint8_t, float>(it, s) || typed_cast<bool, float>(it, s)) {
  } else {
    CT_EW_DISPATCH(static_cast<DType>(it.dtype[0]), "cast", [&] { launch_ew<scalar_t, scalar_t>(it, Identity<opmath_t<scalar_t>>{}, s); });
  }
  cuda::check_launch("cast kernel", s);
}

void where(const Iter<4>& it, DType common, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_EW_DISPATCH(common, "where", [&] { where_t<scalar_t>(it, s); });
  cuda::check_launch("where kernel", s);
}

void fill_pattern(void* out, int64_t n, DType dtype, int kind, double a, double b, int64_t c, double d, void* stream) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<char*>(out), n, static_cast<int32_t>(dtype), dtype_bytes(dtype), kind, a, b, c, d);
  cuda::check_launch("factory kernel", static_cast<cudaStream_t>(stream));
}

}  // namespace ct::cuda_ops
