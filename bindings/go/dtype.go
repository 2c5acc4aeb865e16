package ctorch

import (
	"fmt"

	"ctorch.dev/ctorch/internal/capi"
)

// DType is a tensor element type. The values are PyTorch's c10::ScalarType numbers, as in
// capi/ctorch.h (constants Uint8 ... BFloat16, Undefined and the list DTypes in abi_gen.go). A
// DType is also an Option: Zeros(shape, ctorch.Float64).
type DType int32

// String returns PyTorch's name, e.g. "torch.float32" (ct_dtype_name); "DType(N)" for a value
// that is not a dtype.
func (d DType) String() string {
	if d == Undefined {
		return "Undefined"
	}
	var s string
	err := call("dtype_name", func() int {
		var buf [64]byte
		needed := []int64{0}
		st := capi.Ct_dtype_name(int(d), buf[:], int64(len(buf)), needed)
		if st == 0 {
			s = string(buf[:needed[0]])
		}
		return st
	})
	if err != nil {
		return fmt.Sprintf("DType(%d)", int32(d))
	}
	return s
}

// ItemSize returns the size in bytes of one element (4 for Float32). ct_dtype_itemsize.
func (d DType) ItemSize() (int, error) {
	out := []int64{0}
	if err := call("dtype_itemsize", func() int { return capi.Ct_dtype_itemsize(int(d), out) }); err != nil {
		return 0, err
	}
	return int(out[0]), nil
}

// IsFloatingPoint reports whether d is float16, bfloat16, float32 or float64.
func (d DType) IsFloatingPoint() bool {
	return d == Float16 || d == BFloat16 || d == Float32 || d == Float64
}

// IsComplex reports whether d is complex64 or complex128.
func (d DType) IsComplex() bool { return d == Complex64 || d == Complex128 }

// PromoteTypes is torch.promote_types: the dtype an operation on a and b computes in.
func PromoteTypes(a, b DType) (DType, error) {
	out := []int32{0}
	if err := call("promote_types", func() int { return capi.Ct_promote_types(int(a), int(b), out) }); err != nil {
		return Undefined, err
	}
	return DType(out[0]), nil
}

func (d DType) apply(o *options) { o.dtype = d }
