// Copies with dtype conversion (copy_, casts, fill_), where, and the factory patterns on CUDA
// (Note [CUDA elementwise kernels]).
//
// Note [CUDA casts]: a cast is the identity op with the source read as C and the result stored
// as R. Contiguous casts take the vectorized kernel for every (source, destination) pair, as
// PyTorch's copy kernel does; strided ones have typed kernels for the common pairs (same dtype
// by element size, float32 <-> float16/bfloat16/float64, float16 <-> bfloat16, integers and bool
// -> float32) and the dynamic-cast kernel with C = the destination dtype for the others. fill_
// is a cast from a CPU scalar: the vectorized kernel with nothing to load, 16 one-byte elements
// per thread (PyTorch's elems_per_thread for 1-byte I/O).
#include "impl/ops/cuda/functors.cuh"

namespace ct::cuda_ops {

namespace {

// A block's share of a same-dtype move: thread t moves units first, first + 128, ... (kEwUnroll
// of them, below n), byte offsets from offs(i, off) (off[0] in out, off[1] in in), all loads
// before the stores.
template <typename U, typename Offs>
__device__ __forceinline__ void move_block(char* out, const char* in, uint32_t n, uint32_t first, const Offs& offs) {
  U v[kEwUnroll];
  uint32_t dst[kEwUnroll];
#pragma unroll
  for (int u = 0; u < kEwUnroll; ++u) {
    const uint32_t i = first + u * kEwThreads;
    if (i < n) {
      uint32_t off[2];
      offs(i, off);
      dst[u] = off[0];
      v[u] = *reinterpret_cast<const U*>(in + off[1]);
    }
  }
#pragma unroll
  for (int u = 0; u < kEwUnroll; ++u)
    if (first + u * kEwThreads < n) *reinterpret_cast<U*>(out + dst[u]) = v[u];
}

// A same-dtype copy moves bytes: one kernel per unit size, blocks of 512 units.
template <typename U>
__global__ void __launch_bounds__(kEwThreads) move_strided(Iter<2> it, OffsetCalc<2> oc) {
  move_block<U>(it.data[0], it.data[1], static_cast<uint32_t>(it.numel), blockIdx.x * (kEwThreads * kEwUnroll) + threadIdx.x,
                [&](uint32_t i, uint32_t (&off)[2]) { oc.get(i, off); });
}

template <typename U>
void move(const Iter<2>& whole, cudaStream_t s) {
  for_each_32bit(whole, [&](const Iter<2>& it) {
    unsigned blocks = static_cast<unsigned>((it.numel + kEwThreads * kEwUnroll - 1) / (kEwThreads * kEwUnroll));
    move_strided<U><<<blocks, kEwThreads, 0, s>>>(it, offset_calc(it));
  });
}

// Note [Wide moves]: when both sides of a same-dtype copy are contiguous in the innermost dim
// (cat and stack into a slice of the output, narrow, most copies between views), rows of that
// dim are moved in the widest unit of at most 16 bytes that divides the row's bytes, every
// pointer and every outer stride: a row of 8192 bytes is 512 16-byte moves, not 8192 byte moves.
int wide_unit(const Iter<2>& it, int64_t esize) {
  const int in = it.ndim - 1;  // Iter dims are outermost first
  if (in < 0 || it.strides[0][in] != esize || it.strides[1][in] != esize) return static_cast<int>(esize);
  const int64_t row = it.sizes[in] * esize;
  for (int u = 16; u > esize; u /= 2) {
    bool ok = row % u == 0 && reinterpret_cast<uintptr_t>(it.data[0]) % u == 0 && reinterpret_cast<uintptr_t>(it.data[1]) % u == 0;
    for (int d = 0; d < in && ok; ++d) ok = it.strides[0][d] % u == 0 && it.strides[1][d] % u == 0;
    if (ok) return u;
  }
  return static_cast<int>(esize);
}

// Iter with its innermost dim moved in units of u bytes (u from wide_unit, a multiple of esize).
Iter<2> in_units(const Iter<2>& in, int64_t esize, int u) {
  Iter<2> it = in;
  if (u != esize) {
    const int d = in.ndim - 1;
    it.sizes[d] = in.sizes[d] * esize / u;
    it.strides[0][d] = it.strides[1][d] = u;
    it.numel = in.numel / in.sizes[d] * it.sizes[d];
  }
  return it;
}

// Note [Tiled transpose]: a same-dtype copy whose output is contiguous along the innermost dim
// (`cols`) while its input is contiguous along another dim (`rows`) -- contiguous() of a
// transpose or of a permute that moves the inner dim, cat of transposed inputs -- reads with one
// stride and writes with the other, so elementwise one side is always a scatter (a warp touches
// 32 sectors for 32 elements): ~950 GB/s for float32 and ~280 GB/s for one-byte elements on an
// H100, torch's speed too. Here a 32 x 32 tile of the (rows, cols) plane is read along rows
// into shared memory and written along cols, so both sides move whole sectors; the other dims
// are a batch (blockIdx.z, with the OffsetCalc of those dims).
constexpr int kTile = 32;
constexpr int kTileRows = 8;  // threads per tile column: a 32 x 8 block, 4 elements each

template <typename U>
__global__ void __launch_bounds__(kTile * kTileRows) transpose_tiles(Iter<2> it, OffsetCalc<2> batch, uint32_t nbatch,
                                                                     int rd, int cd) {
  __shared__ U tile[kTile][kTile + 1];
  const uint32_t rows = static_cast<uint32_t>(it.sizes[rd]), cols = static_cast<uint32_t>(it.sizes[cd]);
  const uint32_t in_r = static_cast<uint32_t>(it.strides[1][rd]), in_c = static_cast<uint32_t>(it.strides[1][cd]);
  const uint32_t out_r = static_cast<uint32_t>(it.strides[0][rd]), out_c = static_cast<uint32_t>(it.strides[0][cd]);
  const uint32_t r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
  for (uint32_t b = blockIdx.z; b < nbatch; b += gridDim.z) {
    uint32_t off[2];
    batch.get(b, off);
#pragma unroll
    for (int k = 0; k < kTile; k += kTileRows) {
      const uint32_t r = r0 + threadIdx.x, c = c0 + threadIdx.y + k;
      if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = *reinterpret_cast<const U*>(it.data[1] + off[1] + r * in_r + c * in_c);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; k += kTileRows) {
      const uint32_t r = r0 + threadIdx.y + k, c = c0 + threadIdx.x;
      if (r < rows && c < cols) *reinterpret_cast<U*>(it.data[0] + off[0] + r * out_r + c * out_c) = tile[threadIdx.x][threadIdx.y + k];
    }
    __syncthreads();
  }
}

// Note [Tiled transpose]'s kernel when it applies (false otherwise).
bool transpose(const Iter<2>& whole, int64_t esize, cudaStream_t s) {
  const int cd = whole.ndim - 1;  // Iter dims are outermost first
  if (cd < 1 || esize > 8 || whole.strides[0][cd] != esize || whole.strides[1][cd] == esize) return false;
  int rd = -1;
  for (int d = 0; d < cd; ++d)
    if (whole.strides[1][d] == esize) rd = d;
  if (rd < 0 || whole.sizes[rd] < kTile / 2 || whole.sizes[cd] < kTile / 2 ||
      (whole.sizes[rd] + kTile - 1) / kTile > 65535)
    return false;
  for_each_32bit(whole, [&](const Iter<2>& it) {
    Iter<2> rest;  // the batch dims
    rest.ndim = 0;
    for (int d = 0; d < it.ndim; ++d) {
      if (d == rd || d == cd) continue;
      rest.sizes[rest.ndim] = it.sizes[d];
      for (int k = 0; k < 2; ++k) rest.strides[k][rest.ndim] = it.strides[k][d];
      ++rest.ndim;
    }
    int64_t nbatch = 1;
    for (int d = 0; d < rest.ndim; ++d) nbatch *= rest.sizes[d];
    if (rest.ndim == 0) rest.ndim = 1, rest.sizes[0] = 1;
    const dim3 grid(static_cast<unsigned>((it.sizes[cd] + kTile - 1) / kTile), static_cast<unsigned>((it.sizes[rd] + kTile - 1) / kTile),
                    static_cast<unsigned>(std::min<int64_t>(nbatch, 65535)));
    const dim3 block(kTile, kTileRows);
    const OffsetCalc<2> oc = offset_calc(rest);
    const uint32_t nb = static_cast<uint32_t>(nbatch);
    with_unit(esize, [&](auto unit) {
      using U = typename decltype(unit)::type;
      if constexpr (sizeof(U) <= 8) transpose_tiles<U><<<grid, block, 0, s>>>(it, oc, nb, rd, cd);  // esize <= 8 here
    });
  });
  return true;
}

void move_bytes(const Iter<2>& in, int64_t esize, cudaStream_t s) {
  if (transpose(in, esize, s)) return;
  const int u = wide_unit(in, esize);
  const Iter<2> it = in_units(in, esize, u);
  with_unit(u, [&](auto unit) { move<typename decltype(unit)::type>(it, s); });
}

// Note [One-launch cat]: cat (and stack, which is a cat of unsqueezed inputs) of same-dtype
// inputs copies up to kCatBatch inputs per launch, as PyTorch's CatArrayBatchedCopy does: one
// launch instead of one per input (cat of many small tensors), and the inputs are copied at the
// same time, so inputs that share memory -- the even and odd columns of one tensor -- are read
// through L2 once instead of twice (ncu: torch's L2 hit rate 48% there). The blocks of the
// inputs are interleaved -- block b of the first n * m (m: the fewest blocks of any input) is
// block b / n of input b % n -- and the rest are each input's remaining blocks in turn, so no
// block is idle. (A grid of PyTorch's kind, blockIdx.y the input and grid-stride x capped to the
// resident blocks, ran contiguous cats 4% and float16 stride-2 cats 18% slower than this on an
// H100.) Inputs whose copy is a tiled transpose (Note [Tiled transpose]) keep that kernel.
constexpr int kCatBatch = 8;  // inputs per launch: 8 descriptors of ~260 bytes in the parameters

struct CatPart {
  char* out = nullptr;
  const char* in = nullptr;
  uint32_t numel = 0;
  uint32_t extra_end = 0;  // end of this input's share of the blocks after the interleaved ones
  OffsetCalc<2> oc;
};
struct CatBatch {
  CatPart part[kCatBatch];
  uint32_t n = 0, common = 0;  // inputs; interleaved blocks per input (m)
};

template <typename U>
__global__ void __launch_bounds__(kEwThreads) cat_move(const __grid_constant__ CatBatch b) {
  uint32_t k, xb;
  if (blockIdx.x < b.n * b.common) {
    k = blockIdx.x % b.n;
    xb = blockIdx.x / b.n;
  } else {
    const uint32_t e = blockIdx.x - b.n * b.common;
    k = 0;
    while (e >= b.part[k].extra_end) ++k;
    xb = b.common + e - (k ? b.part[k - 1].extra_end : 0);
  }
  const CatPart& p = b.part[k];
  const uint32_t first = xb * (kEwThreads * kEwUnroll) + threadIdx.x;
  // The descriptor is indexed by a run-time input number, so each use of a field would be a
  // constant-bank load: for one or two dims (most inputs after coalescing) they are read into
  // registers once (the float16 stride-2 cat: 0.357 -> 0.199 ms on an H100, torch 0.303).
  if (p.oc.ndim == 1) {
    const uint32_t s0 = p.oc.stride[0][0], s1 = p.oc.stride[0][1];
    move_block<U>(p.out, p.in, p.numel, first, [&](uint32_t i, uint32_t (&off)[2]) { off[0] = i * s0, off[1] = i * s1; });
  } else if (p.oc.ndim == 2) {
    const IntDiv d = p.oc.size[0];
    const uint32_t s00 = p.oc.stride[0][0], s01 = p.oc.stride[0][1], s10 = p.oc.stride[1][0], s11 = p.oc.stride[1][1];
    move_block<U>(p.out, p.in, p.numel, first, [&](uint32_t i, uint32_t (&off)[2]) {
      const uint32_t q = d.div(i), r = i - q * d.d;
      off[0] = r * s00 + q * s10, off[1] = r * s01 + q * s11;
    });
  } else {
    move_block<U>(p.out, p.in, p.numel, first, [&](uint32_t i, uint32_t (&off)[2]) { p.oc.get(i, off); });
  }
}

template <typename U>
void cat_launch(const std::vector<Iter<2>>& pieces, cudaStream_t s) {
  constexpr int64_t kBlock = kEwThreads * kEwUnroll;
  for (size_t first = 0; first < pieces.size(); first += kCatBatch) {
    const int n = static_cast<int>(std::min<size_t>(kCatBatch, pieces.size() - first));
    CatBatch b;
    b.n = static_cast<uint32_t>(n);
    int64_t fewest = -1, total = 0;
    for (int k = 0; k < n; ++k) {
      const int64_t blocks = (pieces[first + k].numel + kBlock - 1) / kBlock;
      fewest = fewest < 0 ? blocks : std::min(fewest, blocks);
      total += blocks;
    }
    b.common = static_cast<uint32_t>(fewest);
    int64_t extra = 0;
    for (int k = 0; k < n; ++k) {
      const Iter<2>& it = pieces[first + k];
      b.part[k].out = it.data[0];
      b.part[k].in = it.data[1];
      b.part[k].numel = static_cast<uint32_t>(it.numel);
      b.part[k].oc = offset_calc(it);
      extra += (it.numel + kBlock - 1) / kBlock - fewest;
      b.part[k].extra_end = static_cast<uint32_t>(extra);
    }
    CT_CHECK(total < (int64_t{1} << 31), Status::NotSupported, "cat: too many elements for one launch");
    cat_move<U><<<static_cast<unsigned>(total), kEwThreads, 0, s>>>(b);
  }
}

template <typename From, typename To>
bool typed_cast(const Iter<2>& it, cudaStream_t s) {
  if (it.dtype[1] != dtype_code<From>() || it.dtype[0] != dtype_code<To>() || it.scalar_mask) return false;
  launch_ew<From, To>(it, Identity<opmath_t<From>>{}, s);
  return true;
}

template <typename T>
struct Where {
  static constexpr int kOps = 1;
  template <int>
  __device__ T run(T c, T a, T b) const { return c != T(0) ? a : b; }
};

// Contiguous casts, any pair: the vectorized kernel (false when it does not apply).
template <typename From, typename To>
bool cast_vec(const Iter<2>& it, cudaStream_t s) {
  constexpr int V = vec_width<From, From, From, To>();
  if (it.numel >= (int64_t{1} << 31) || !vectorizable<From, From, From, To, V>(it)) return false;
  launch_vec<From, From, From, To, kVecEpt>(it, Identity<opmath_t<From>>{}, s);
  return true;
}

// fill_: out = a CPU scalar converted to R.
template <typename R>
void fill_scalar(const Iter<2>& whole, cudaStream_t s) {
  for_each_32bit(whole, [&](const Iter<2>& it) {
    constexpr int V = vec_width<R, R, R, R>();
    if (vectorizable<R, R, R, R, V>(it)) launch_vec<R, R, R, R, sizeof(R) == 1 ? 16 : kVecEpt>(it, Identity<opmath_t<R>>{}, s);
    else launch_ew<R, R>(it, Identity<opmath_t<R>>{}, s);
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

}  // namespace

void cast(const Iter<2>& it, void* stream) {
  if (it.numel == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (it.dtype[0] == it.dtype[1] && !it.scalar_mask) {
    move_bytes(it, itemsize(static_cast<DType>(it.dtype[0])), s);
  } else if (it.scalar_mask) {
    CT_EW_DISPATCH(static_cast<DType>(it.dtype[0]), "fill_", [&] { fill_scalar<scalar_t>(it, s); });
  } else if ([&] {
               bool done = false;
               CT_EW_DISPATCH(static_cast<DType>(it.dtype[1]), "cast", [&] {
                 using From = scalar_t;
                 CT_EW_DISPATCH(static_cast<DType>(it.dtype[0]), "cast", [&] { done = cast_vec<From, scalar_t>(it, s); });
               });
               return done;
             }()) {
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

void cat_copy(const std::vector<Iter<2>>& parts, int64_t esize, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  std::vector<Iter<2>> pieces;
  for (const Iter<2>& p : parts) {
    if (p.numel == 0) continue;
    if (transpose(p, esize, s)) continue;  // its own launch (Note [One-launch cat])
    for_each_32bit(p, [&](const Iter<2>& it) { pieces.push_back(it); });
  }
  int u = 16;
  for (const Iter<2>& it : pieces) u = std::min(u, wide_unit(it, esize));
  for (Iter<2>& it : pieces) it = in_units(it, esize, u);
  with_unit(u, [&](auto unit) { cat_launch<typename decltype(unit)::type>(pieces, s); });
  cuda::check_launch("cat kernel", s);
}

void where(const Iter<4>& it, DType common, void* stream) {
  ew_entry(common, "where kernel", stream, [&](auto c, cudaStream_t s) {
    using C = typename decltype(c)::type;
    launch_ew2<bool, C, C>(it, Where<opmath_t<C>>{}, s);
  });
}

void fill_pattern(void* out, int64_t n, DType dtype, int kind, double a, double b, int64_t c, double d, void* stream) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<char*>(out), n, static_cast<int32_t>(dtype), itemsize(dtype), kind, a, b, c, d);
  cuda::check_launch("factory kernel", static_cast<cudaStream_t>(stream));
}

}  // namespace ct::cuda_ops
