package cuda

import "ctorch.dev/ctorch/internal/capi"

// The switches of torch.backends.cuda.matmul and torch.cuda.current_blas_handle (capi/ctorch.h
// section 17). The switches are process-wide, work without a GPU, and act on matrix products
// on CUDA devices only (ctorch.Tensor.Matmul, Mm, Bmm, Dot, Mv, Addmm): products on the CPU
// are computed the same way whatever they say. They are read when a product is queued, so a
// change applies to the products queued after it, on every goroutine.

func setSwitch(op string, f func(int) int, on bool) error {
	v := 0
	if on {
		v = 1
	}
	return call(op, func() int { return f(v) })
}

func getSwitch(op string, f func([]int32) int) (bool, error) {
	out := []int32{0}
	err := call(op, func() int { return f(out) })
	return out[0] != 0, err
}

// SetAllowTF32 is torch.backends.cuda.matmul.allow_tf32 = on: whether float32 matrix products
// on CUDA devices may use TF32 tensor cores (a 10-bit mantissa for the inputs, float32
// accumulation; faster, less precise). Off by default, as in PyTorch.
func SetAllowTF32(on bool) error {
	return setSwitch("set_allow_tf32", capi.Ct_set_allow_tf32, on)
}

// AllowTF32 is torch.backends.cuda.matmul.allow_tf32: false unless SetAllowTF32(true) was
// called.
func AllowTF32() (bool, error) { return getSwitch("get_allow_tf32", capi.Ct_get_allow_tf32) }

// SetAllowFP16ReducedPrecisionReduction is
// torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = on: whether float16
// matrix products on CUDA devices may use reduced-precision reductions (cuBLAS may then keep
// some partial sums, e.g. of split-K reductions, in float16). On by default, as in PyTorch.
func SetAllowFP16ReducedPrecisionReduction(on bool) error {
	return setSwitch("set_allow_fp16_reduced_precision_reduction",
		capi.Ct_set_allow_fp16_reduced_precision_reduction, on)
}

// AllowFP16ReducedPrecisionReduction is
// torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction: true unless
// SetAllowFP16ReducedPrecisionReduction(false) was called.
func AllowFP16ReducedPrecisionReduction() (bool, error) {
	return getSwitch("get_allow_fp16_reduced_precision_reduction",
		capi.Ct_get_allow_fp16_reduced_precision_reduction)
}

// SetAllowBF16ReducedPrecisionReduction is
// torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = on: the same as
// SetAllowFP16ReducedPrecisionReduction for bfloat16 products. On by default, as in PyTorch.
func SetAllowBF16ReducedPrecisionReduction(on bool) error {
	return setSwitch("set_allow_bf16_reduced_precision_reduction",
		capi.Ct_set_allow_bf16_reduced_precision_reduction, on)
}

// AllowBF16ReducedPrecisionReduction is
// torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction: true unless
// SetAllowBF16ReducedPrecisionReduction(false) was called.
func AllowBF16ReducedPrecisionReduction() (bool, error) {
	return getSwitch("get_allow_bf16_reduced_precision_reduction",
		capi.Ct_get_allow_bf16_reduced_precision_reduction)
}

// CurrentBLASHandle is torch.cuda.current_blas_handle(): the value of the cublasHandle_t that
// the library's matrix products use on the current device for the calling OS thread. It is
// created on first use (with a workspace from the caching allocator) and bound to the thread's
// current stream of that device by this call and by every product the library queues, so your
// own cuBLAS calls on it are ordered on that stream. The handle belongs to the library: do not
// destroy it or change its settings. Handles are per (device, OS thread): lock the goroutine
// (runtime.LockOSThread, or run inside WithDevice or WithStream) for as long as you use the
// value, and call CurrentBLASHandle again after changing the current stream.
// ErrCUDAUnavailable without a GPU, ErrNotSupported when cuBLAS cannot be loaded.
func CurrentBLASHandle() (uintptr, error) {
	out := []int64{0}
	err := call("cuda_current_blas_handle", func() int { return capi.Ct_cuda_current_blas_handle(out) })
	return uintptr(out[0]), err
}
