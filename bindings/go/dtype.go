package ctorch

import (
	"fmt"

	"ctorch.dev/ctorch/internal/capi"
)

// DType is a tensor element type. The values are PyTorch's c10::ScalarType numbers, as in
// capi/ctorch.h. A DType is also an Option: Zeros(shape, ctorch.Float64).
type DType int32

// The 12 dtypes, as torch.uint8 ... torch.bfloat16.
const (
	Uint8      DType = 0
	Int8       DType = 1
	Int16      DType = 2
	Int32      DType = 3
	Int64      DType = 4
	Float16    DType = 5
	Float32    DType = 6
	Float64    DType = 7
	Complex64  DType = 9
	Complex128 DType = 10
	Bool       DType = 11
	BFloat16   DType = 15
	// Undefined means "no dtype given": keep the input's dtype (for To, *Like, New*) or use the
	// operation's default (reductions).
	Undefined DType = -1
)

// DTypes lists the 12 dtypes in PyTorch's ScalarType order.
var DTypes = []DType{Uint8, Int8, Int16, Int32, Int64, Float16, Float32, Float64, Complex64,
	Complex128, Bool, BFloat16}

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
