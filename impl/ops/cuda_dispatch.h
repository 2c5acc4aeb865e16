// Host-side glue from the ops to the CUDA kernels: the device/stream scope of a launch and
// the kernel's view of its operands.
#pragma once
#include <algorithm>
#include <array>

#include <vector>

#include "impl/alloc/allocator.h"
#include "impl/core/error.h"
#include "impl/core/tensor.h"
#include "impl/cuda/runtime.h"
#include "impl/cuda/sanitize.h"
#include "impl/cuda/stream.h"
#include "impl/ops/cpu/loops.h"
#include "impl/ops/cuda/kernels.h"

namespace ct::ops {

// Work on device d runs with d current, on d's current stream (Note [Current stream]).
struct CudaScope {
  cuda::DeviceGuard guard;
  cuda::Stream stream_ref;
  void* stream;
  explicit CudaScope(Device d)
      : guard(d.index), stream_ref(cuda::current_stream(d.index)), stream(stream_ref->stream) {}
};

// Device scratch for a CUDA op (a reduction's partials, a sort's or a selection's buffers):
// caching-allocator blocks on the current stream, returned when the op is done (stream-ordered
// reuse makes that safe). Never null, even for 0 bytes: CUB reads a null temporary storage as
// "tell me the size" and would do nothing.
class CudaScratch final : public cuda_ops::ScratchFn {
 public:
  explicit CudaScratch(Device d) : dev_(d) {}
  void* operator()(int64_t bytes) override {
    blocks_.push_back(alloc::allocate(std::max<int64_t>(bytes, 1), dev_));
    return blocks_.back().get();
  }

 private:
  Device dev_;
  std::vector<DataPtr> blocks_;  // freed with the scratch
};

// The kernel iteration over `shape` for tensors on one CUDA device; 0-dim CPU operands go in
// as kernel parameters (Note [CPU scalars on CUDA]).
template <int N>
cuda_ops::Iter<N> cuda_iter(const Shape& shape, const std::array<const TensorImpl*, N>& ts) {
  auto o = cpu::make_operands<N>(shape, ts);
  int32_t dtypes[N];
  for (int k = 0; k < N; ++k) dtypes[k] = static_cast<int32_t>(ts[k]->dtype);
  auto it = cuda_ops::make_iter<N>(o, dtypes);
  for (int k = 0; k < N; ++k) {
    if (ts[k]->device().is_cpu()) {
      CT_CHECK(ts[k]->dim() == 0, Status::Internal, "a CPU operand of a CUDA kernel must be 0-dim");
      cuda_ops::set_scalar(it, k, ts[k]->data(), ts[k]->itemsize());
    }
  }
  return it;
}

}  // namespace ct::ops
