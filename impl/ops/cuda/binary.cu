// Binary elementwise ops on CUDA (Note [CUDA elementwise kernels]).
#include "impl/ops/cuda/functors.cuh"

namespace ct::cuda_ops {

namespace {
template <typename C>
void binary_t(ct_binary_op op, const Iter<3>& it, cudaStream_t s) {
  using T = opmath_t<C>;
  if (op >= CT_EQ && op <= CT_LOGICAL_XOR) launch_ew<C, bool>(it, BinaryBool<T>{op}, s);
  else launch_ew<C, C>(it, BinaryArith<T>{op}, s);
}
}  // namespace

void binary(ct_binary_op op, const Iter<3>& it, DType common, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  CT_EW_DISPATCH(common, "binary", [&] { binary_t<scalar_t>(op, it, s); });
  cuda::check_launch("binary kernel", s);
}

}  // namespace ct::cuda_ops
