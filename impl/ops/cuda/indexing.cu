// CUDA kernels of the indexing ops (impl/ops/cuda/indexing.h): copies by element size over the
// elementwise engine's Iter (the index operand's iteration, the indexed dim restrided to 0, as
// PyTorch's gather/index kernels), the index checked in the kernel by a device-side assertion,
// and CUB for nonzero's count and positions.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstring>

#include "impl/cuda/runtime.h"
#include "impl/ops/cuda/common.cuh"
#include "impl/ops/cuda/indexing.h"

// PyTorch's CUDA_KERNEL_ASSERT on Linux: glibc's __assert_fail, which nvcc maps to the device
// assertion (the kernel traps; cudaErrorAssert, "device-side assert triggered").
#define CT_KERNEL_ASSERT(cond)                                                                    \
  do {                                                                                            \
    if (!(cond)) __assert_fail(#cond, __FILE__, static_cast<unsigned int>(__LINE__), __func__); \
  } while (0)

namespace ct::cuda_ops {

namespace {

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

template <typename F>
void with_size(int64_t esize, const F& f) {
  switch (esize) {
    case 1: f(TypeTag<uint8_t>{}); break;
    case 2: f(TypeTag<uint16_t>{}); break;
    case 4: f(TypeTag<uint32_t>{}); break;
    case 8: f(TypeTag<uint64_t>{}); break;
    case 16: f(TypeTag<Bytes16>{}); break;
    default: fail(Status::Internal, "indexing: unhandled element size ", esize);
  }
}

constexpr int kThreads = 256;

// The index at p, asserted to lie in [wrap ? -bound : 0, bound) (PyTorch's CUDA_KERNEL_ASSERT),
// a negative one counted from the end.
template <typename I>
__device__ __forceinline__ int64_t checked_index(const char* p, int64_t bound, bool wrap) {
  const int64_t idx = static_cast<int64_t>(*reinterpret_cast<const I*>(p));
  CT_KERNEL_ASSERT(idx >= (wrap ? -bound : 0) && idx < bound && "index out of bounds");
  return idx < 0 ? idx + bound : idx;
}

// The copy of gather (Scatter false: out = src[index]) and scatter (Scatter true: self[index] =
// src); operand 1 may be a kernel-parameter scalar (base_of).
template <typename U, typename I, bool Scatter>
__global__ void index_copy_kernel(Iter<3> it, int64_t stride_bytes, int64_t bound, bool wrap) {
  const char* src_base = base_of(it, 1);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    Offsets<3> o = offsets_of(it, i);
    const int64_t idx = checked_index<I>(it.data[2] + o.off[2], bound, wrap);
    const int64_t moved = idx * stride_bytes;
    *reinterpret_cast<U*>(it.data[0] + o.off[0] + (Scatter ? moved : 0)) =
        *reinterpret_cast<const U*>(src_base + o.off[1] + (Scatter ? 0 : moved));
  }
}

template <typename U>
__global__ void masked_fill_kernel(Iter<2> it, U value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    Offsets<2> o = offsets_of(it, i);
    if (*reinterpret_cast<const bool*>(it.data[1] + o.off[1])) *reinterpret_cast<U*>(it.data[0] + o.off[0]) = value;
  }
}

// Atomic adds of every device type: the hardware's where it has one (PyTorch's gpuAtomicAdd),
// a compare-and-swap on the enclosing 32-bit word for 1- and 2-byte integers and bool (or).
template <typename T>
__device__ void atomic_add_narrow(T* a, T v) {
  uintptr_t addr = reinterpret_cast<uintptr_t>(a);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3});
  const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
  const unsigned int mask = ((1u << (sizeof(T) * 8)) - 1u) << shift;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    T cur = static_cast<T>((assumed & mask) >> shift);
    T sum;
    if constexpr (std::is_same_v<T, bool>) sum = cur || v;
    else sum = static_cast<T>(cur + v);
    unsigned int bits = (static_cast<unsigned int>(static_cast<std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>>(sum)) << shift) & mask;
    old = atomicCAS(word, assumed, (assumed & ~mask) | bits);
  } while (old != assumed);
}
__device__ void atomic_add(bool* a, bool v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(uint8_t* a, uint8_t v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(int8_t* a, int8_t v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(int16_t* a, int16_t v) { atomic_add_narrow(a, v); }
__device__ void atomic_add(int32_t* a, int32_t v) { atomicAdd(a, v); }
__device__ void atomic_add(int64_t* a, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(a), static_cast<unsigned long long>(v));
}
__device__ void atomic_add(float* a, float v) { atomicAdd(a, v); }
__device__ void atomic_add(double* a, double v) { atomicAdd(a, v); }
__device__ void atomic_add(half* a, half v) { atomicAdd(a, v); }
__device__ void atomic_add(bf16* a, bf16 v) { atomicAdd(a, v); }
__device__ void atomic_add(cfloat* a, cfloat v) {
  atomicAdd(reinterpret_cast<float*>(a), v.real());
  atomicAdd(reinterpret_cast<float*>(a) + 1, v.imag());
}
__device__ void atomic_add(cdouble* a, cdouble v) {
  atomicAdd(reinterpret_cast<double*>(a), v.real());
  atomicAdd(reinterpret_cast<double*>(a) + 1, v.imag());
}

template <typename T, typename I>
__global__ void index_scatter_add_kernel(Iter<3> it, int64_t stride_bytes, int64_t bound, bool wrap) {
  const char* src = base_of(it, 1);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    Offsets<3> o = offsets_of(it, i);
    const int64_t idx = checked_index<I>(it.data[2] + o.off[2], bound, wrap);
    atomic_add(reinterpret_cast<T*>(it.data[0] + o.off[0] + idx * stride_bytes), *reinterpret_cast<const T*>(src + o.off[1]));
  }
}

template <typename I>
__global__ void index_check_kernel(Iter<1> it, int64_t bound, bool wrap) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < it.numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    Offsets<1> o = offsets_of(it, i);
    checked_index<I>(it.data[0] + o.off[0], bound, wrap);
  }
}

struct BoolToInt64 {
  __host__ __device__ int64_t operator()(bool b) const { return b ? 1 : 0; }
};

}  // namespace

namespace {

template <bool Scatter>
void launch_copy(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                 void* stream, const char* what) {
  if (it.numel == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  with_size(esize, [&](auto unit) {
    using U = typename decltype(unit)::type;
    if (idx64)
      index_copy_kernel<U, int64_t, Scatter><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, stride_bytes, bound, wrap);
    else
      index_copy_kernel<U, int32_t, Scatter><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, stride_bytes, bound, wrap);
  });
  cuda::check_launch(what, s);
}

}  // namespace

void index_gather(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                  void* stream) {
  launch_copy<false>(it, esize, idx64, stride_bytes, bound, wrap, stream, "index kernel");
}

void index_scatter(const Iter<3>& it, int64_t esize, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                   void* stream) {
  launch_copy<true>(it, esize, idx64, stride_bytes, bound, wrap, stream, "scatter kernel");
}

void index_scatter_add(const Iter<3>& it, DType dtype, bool idx64, int64_t stride_bytes, int64_t bound, bool wrap,
                       void* stream) {
  if (it.numel == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_EW_DISPATCH(dtype, "scatter_add", [&] {
    if (idx64)
      index_scatter_add_kernel<scalar_t, int64_t><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, stride_bytes, bound, wrap);
    else
      index_scatter_add_kernel<scalar_t, int32_t><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, stride_bytes, bound, wrap);
  });
  cuda::check_launch("scatter_add kernel", s);
}

void index_check(const Iter<1>& it, bool idx64, int64_t bound, bool wrap, void* stream) {
  if (it.numel == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (idx64) index_check_kernel<int64_t><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, bound, wrap);
  else index_check_kernel<int32_t><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, bound, wrap);
  cuda::check_launch("index check kernel", s);
}

void masked_fill(const Iter<2>& it, int64_t esize, const void* value, void* stream) {
  if (it.numel == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  with_size(esize, [&](auto unit) {
    using U = typename decltype(unit)::type;
    U v;
    std::memcpy(&v, value, sizeof v);
    masked_fill_kernel<U><<<blocks_for(it.numel, kThreads), kThreads, 0, s>>>(it, v);
  });
  cuda::check_launch("masked_fill kernel", s);
}

int64_t count_true(const bool* flags, int64_t n, ScratchFn& get, void* stream) {
  if (n == 0) return 0;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  thrust::transform_iterator<BoolToInt64, const bool*> in(flags, BoolToInt64{});
  int64_t* sum = static_cast<int64_t*>(get(sizeof(int64_t)));
  size_t bytes = 0;
  cuda::check(cub::DeviceReduce::Sum(nullptr, bytes, in, sum, n, s), "nonzero count");
  void* tmp = get(static_cast<int64_t>(bytes));
  cuda::check(cub::DeviceReduce::Sum(tmp, bytes, in, sum, n, s), "nonzero count");
  int64_t host = 0;
  cuda::on_host_sync("nonzero");
  cuda::check(cudaMemcpyAsync(&host, sum, sizeof host, cudaMemcpyDeviceToHost, s), "nonzero count copy");
  cuda::check(cudaStreamSynchronize(s), "nonzero count copy");
  return host;
}

void true_positions(const bool* flags, int64_t n, int64_t* out, ScratchFn& get, void* stream) {
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  thrust::counting_iterator<int64_t> in(0);
  int64_t* count = static_cast<int64_t*>(get(sizeof(int64_t)));
  size_t bytes = 0;
  cuda::check(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, count, n, s), "nonzero positions");
  void* tmp = get(static_cast<int64_t>(bytes));
  cuda::check(cub::DeviceSelect::Flagged(tmp, bytes, in, flags, out, count, n, s), "nonzero positions");
  cuda::check_launch("nonzero positions", s);
}

}  // namespace ct::cuda_ops
