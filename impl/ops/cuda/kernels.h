// The CUDA kernels behind the ops, as seen from host code (no CUDA types here). Every
// function launches on the given stream (a cudaStream_t) of the current device; the caller
// sets the device (cuda::DeviceGuard) and checks the launch (cuda::check_launch).
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "impl/core/dtype.h"
#include "impl/ops/cpu/loops.h"

namespace ct::cuda_ops {

constexpr int kMaxDims = 12;

// An elementwise iteration: N operands (output first) over one collapsed shape.
template <int N>
struct Iter {
  int32_t ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};  // bytes
  char* data[N] = {};
  int32_t dtype[N] = {};              // int32_t of each operand (used by cast)
  // Note [CPU scalars on CUDA]: a 0-dim CPU operand (a Python scalar, or torch.tensor(2.))
  // travels inside the kernel's parameters: its bytes (in its own dtype, it.dtype[k]) are in
  // scalar[k], bit k of scalar_mask is set and its strides are 0. No host-to-device copy,
  // so `cuda_tensor + 2` stays asynchronous. The launch of a floating or complex kernel
  // converts it to the kernel's op-math type on the host first (Note [CPU scalars on CUDA],
  // continued, impl/ops/cuda/ew.cuh).
  uint32_t scalar_mask = 0;
  alignas(16) unsigned char scalar[N][16] = {};
};

// From the CPU engine's collapsed description (Note [Elementwise engine]).
template <int N>
Iter<N> make_iter(const cpu::StridedOperands<N>& o, const int32_t (&dtypes)[N]) {
  Iter<N> it;
  CT_CHECK(o.shape.size() <= static_cast<size_t>(kMaxDims), Status::NotSupported, "CUDA kernels support at most ",
           kMaxDims, " non-collapsible dimensions, got ", o.shape.size());
  it.ndim = static_cast<int32_t>(o.shape.size());
  it.numel = 1;
  for (int d = 0; d < it.ndim; ++d) {
    it.sizes[d] = o.shape[d];
    it.numel *= o.shape[d];
  }
  for (int k = 0; k < N; ++k) {
    it.data[k] = o.base[k];
    it.dtype[k] = dtypes[k];
    for (int d = 0; d < it.ndim; ++d) it.strides[k][d] = o.strides[k][d];
  }
  return it;
}

// Moves operand k (a 0-dim CPU tensor of `bytes` bytes at host address p) into the kernel
// parameters (Note [CPU scalars on CUDA]).
template <int N>
void set_scalar(Iter<N>& it, int k, const void* p, int64_t bytes) {
  std::memcpy(it.scalar[k], p, static_cast<size_t>(bytes));
  it.scalar_mask |= 1u << k;
  it.data[k] = nullptr;
  for (int d = 0; d < kMaxDims; ++d) it.strides[k][d] = 0;
}

// Note [Elementwise engine] and Note [CUDA elementwise kernels]: each call is one launch (or one
// per 32-bit piece). Operands keep their own dtypes (it.dtype); inputs are read as `common`
// (converted from their dtype, as PyTorch's dynamic casting) and computed in its op-math type;
// the result is stored into the output's dtype. CPU scalars travel in it.scalar in their own
// dtype (set_scalar).

// out = in converted to out's dtype (PyTorch's cast rules): copy_, casts, fill_ (a CPU scalar in).
void cast(const Iter<2>& it, void* stream);
// cat of same-dtype inputs: parts[k] copies input k (data[1]) into its slice of the output
// (data[0]), both of dtype size esize; one launch per kCatBatch inputs (Note [One-launch cat]).
void cat_copy(const std::vector<Iter<2>>& parts, int64_t esize, void* stream);
// out = op(in); output dtype: common, bool (logical_not) or real (abs of complex), or any dtype
// the result can be cast to (in-place forms).
void unary(UnaryOp op, const Iter<2>& it, DType common, void* stream);
// out = op(a, b); result common, or bool for comparisons / logical ops.
void binary(BinaryOp op, const Iter<3>& it, DType common, void* stream);
// out = min(max(in, lo), hi) with the bounds that are given; NaN stays NaN. common: real, not bool.
void clamp(const Iter<2>& it, DType common, bool has_lo, double lo, bool has_hi, double hi, void* stream);
// out = cond ? a : b, with a and b read as common.
void where(const Iter<4>& it, DType common, void* stream);

// Factories: element i of a contiguous tensor of dtype gets
//   kind 0 (arange):   a + i * b
//   kind 1 (linspace): i < c / 2 ? a + b * i : end - b * (c - i - 1), with end passed in `d`
//   kind 2 (eye):      i / c == i % c ? 1 : 0          (c = number of columns)
//   kind 3 (fill):     a
void fill_pattern(void* out, int64_t n, DType dtype, int kind, double a, double b, int64_t c, double d, void* stream);

// Device scratch for one reduction (its partials), from the caller: the caching allocator on the
// launch's stream (impl/ops/reduce.cc), released when the op returns.
class ScratchFn {
 public:
  virtual void* operator()(int64_t bytes) = 0;

 protected:
  ~ScratchFn() = default;
};

// Row reductions over a contiguous [O, R] input into O outputs of `compute` dtype. The input's
// dtype is compute, or float16/bfloat16 with compute float32 (widened as loaded, so reductions
// of half-precision tensors need no converted copy). op: ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Prod, ReduceOp::Amax, ReduceOp::Amin.
inline bool reduce_input_supported(DType in, DType compute) {
  return in == compute || ((in == DType::Float16 || in == DType::BFloat16) && compute == DType::Float32);
}
// out_dtype: the stored dtype, compute or (for ReduceOp::Sum and ReduceOp::Mean of a float16/bfloat16 input)
// the input's dtype, rounded from the float32 result in the kernel (no cast afterwards).
void reduce_rows(ReduceOp op, const void* in, void* out, int64_t O, int64_t R, DType compute, DType in_dtype,
                 ScratchFn& get, void* stream, DType out_dtype);
// The same over the leading dim of a contiguous [R, O] input (no transposing copy): O outputs.
// compute: float32 or float64 only (reduce_cols_supported).
void reduce_cols(ReduceOp op, const void* in, void* out, int64_t R, int64_t O, DType compute, DType in_dtype,
                 ScratchFn& get, void* stream, DType out_dtype);
inline bool reduce_cols_supported(DType compute) { return compute == DType::Float32 || compute == DType::Float64; }
// Any strided input (strides in elements, from the tensor's data pointer): O = prod(kept sizes)
// outputs in the kept dims' row-major order, each over prod(red sizes) < 2^31 elements, the
// reduced dims listed innermost (smallest stride) first. For sum-like ops (the order of the
// reduced elements is not the logical one).
struct StridedReduction {
  int32_t kept_ndim = 0, red_ndim = 0;
  int64_t kept_sizes[kMaxDims] = {}, kept_strides[kMaxDims] = {};  // outermost first
  int64_t red_sizes[kMaxDims] = {}, red_strides[kMaxDims] = {};    // innermost first
};
void reduce_strided(ReduceOp op, const void* in, void* out, const StridedReduction& r, DType compute, DType in_dtype,
                    ScratchFn& get, void* stream, DType out_dtype);
// values and first-occurrence int64 indices of the max (min) of each row of a contiguous [O, R]
// input (cols: of each column of a contiguous [R, O] input, compute float32/float64 only); NaN
// is the extreme. values (of the compute dtype) may be null: indices only. One launch.
void arg_reduce_rows(const void* in, void* values, int64_t* indices, int64_t O, int64_t R, DType compute,
                     DType in_dtype, bool is_max, ScratchFn& get, void* stream, bool cols);
// p-norm of each row of non-negative doubles (|x| already taken).
void norm_rows(const double* in, double* out, int64_t O, int64_t R, double p, ScratchFn& get, void* stream);
// How a reduction reads its input in place: Rows as reduce_rows ([O, R] from in), Cols as
// reduce_cols ([R, O]), Strided as reduce_strided (strided; O and R from it).
enum class InPlacePlan { Rows, Cols, Strided };
// p-norm (in double, Note [Norms in double] in reduce.cu) of a real floating input (float32,
// float64, float16, bfloat16) read in place: O doubles.
void norm_in_place(InPlacePlan plan, const void* in, DType in_dtype, double* out, int64_t O, int64_t R,
                   const StridedReduction* strided, double p, ScratchFn& get, void* stream);
// var (take_sqrt false) or std, and the mean, of a real floating input (as norm_in_place) read in
// place (Note [var in place] in reduce.cu): M2 / max(0, R - correction) into var_out and the
// means into mean_out (O elements of in_dtype each; mean_out may be null).
void var_in_place(InPlacePlan plan, const void* in, DType in_dtype, void* var_out, void* mean_out, int64_t O, int64_t R,
                  const StridedReduction* strided, double correction, bool take_sqrt, ScratchFn& get, void* stream);

}  // namespace ct::cuda_ops
