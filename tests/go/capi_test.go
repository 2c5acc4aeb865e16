package ctorch_test

// Tests of the raw SWIG layer itself (internal/capi): handle 0 and foreign handles at the C
// level, the constants the Go layer hardcodes, and the thread-locked error read.

import (
	"runtime"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

func TestRawNullAndReleasedHandles(t *testing.T) {
	out := []int32{0}
	if st := capi.Ct_tensor_dim(0, out); st != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("ct_tensor_dim(NULL) = %d, want %d", st, capi.CT_ERR_INVALID_HANDLE)
	}
	f := capi.Call(func() int { return capi.Ct_tensor_release(0) })
	if f == nil || f.Code != 102 || f.Name != "CT_ERR_INVALID_HANDLE" || f.Message == "" {
		t.Errorf("release(NULL): %+v", f)
	}
	f = capi.Call(func() int { return capi.Ct_unary(capi.CT_NEG, 0x12345678, []int64{0}) })
	if f == nil || f.Code != 102 {
		t.Errorf("foreign handle: %+v", f)
	}
	// A released handle: releasing twice is an error, not a crash.
	h := []int64{0}
	if st := capi.Ct_zeros([]int64{2}, 1, capi.CT_FLOAT32, capi.CT_CPU, -1, h); st != 0 {
		t.Fatalf("ct_zeros: %d", st)
	}
	if st := capi.Ct_tensor_release(h[0]); st != 0 {
		t.Fatalf("release: %d", st)
	}
	f = capi.Call(func() int { return capi.Ct_tensor_release(h[0]) })
	if f == nil || f.Code != 102 {
		t.Errorf("second release: %+v", f)
	}
	f = capi.Call(func() int { return capi.Ct_tensor_numel(h[0], []int64{0}) })
	if f == nil || f.Code != 102 {
		t.Errorf("use after release: %+v", f)
	}
}

func TestRawErrorStateFunctions(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	capi.Ct_clear_error()
	if capi.Ct_last_error_code() != 0 || capi.Ct_last_error_message() != "" || ctorch.LastErrorMessage() != "" {
		t.Error("error state not clear after ct_clear_error")
	}
	if st := capi.Ct_device_parse("gpu", []int32{0}, []int32{0}); st != 107 {
		t.Fatalf("ct_device_parse(gpu) = %d", st)
	}
	msg := ctorch.LastErrorMessage()
	if capi.Ct_last_error_code() != 107 || !strings.Contains(msg, "gpu") {
		t.Errorf("code %d message %q", capi.Ct_last_error_code(), msg)
	}
	n := capi.Ct_last_error_copy(nil, 0)
	if n != int64(len(msg)) {
		t.Errorf("ct_last_error_copy(NULL, 0) = %d, want %d", n, len(msg))
	}
	small := make([]byte, 4)
	if got := capi.Ct_last_error_copy(small, 4); got != n || string(small[:3]) != msg[:3] || small[3] != 0 {
		t.Errorf("truncated copy: %d %q", got, small)
	}
	capi.Ct_clear_error()
	if capi.Ct_last_error_code() != 0 {
		t.Error("ct_clear_error")
	}
}

func TestGoConstantsMatchTheHeader(t *testing.T) {
	dt := map[ctorch.DType]int{ctorch.Uint8: capi.CT_UINT8, ctorch.Int8: capi.CT_INT8,
		ctorch.Int16: capi.CT_INT16, ctorch.Int32: capi.CT_INT32, ctorch.Int64: capi.CT_INT64,
		ctorch.Float16: capi.CT_FLOAT16, ctorch.Float32: capi.CT_FLOAT32,
		ctorch.Float64: capi.CT_FLOAT64, ctorch.Complex64: capi.CT_COMPLEX64,
		ctorch.Complex128: capi.CT_COMPLEX128, ctorch.Bool: capi.CT_BOOL,
		ctorch.BFloat16: capi.CT_BFLOAT16, ctorch.Undefined: capi.CT_DTYPE_UNDEFINED}
	for g, c := range dt {
		if int(g) != c {
			t.Errorf("DType %v = %d, header %d", g, int(g), c)
		}
	}
	codes := map[*ctorch.Error]int{ctorch.ErrArgument: capi.CT_ERR_ARGUMENT,
		ctorch.ErrNullPointer: capi.CT_ERR_NULL_POINTER, ctorch.ErrInvalidHandle: capi.CT_ERR_INVALID_HANDLE,
		ctorch.ErrShape: capi.CT_ERR_SHAPE, ctorch.ErrDType: capi.CT_ERR_DTYPE, ctorch.ErrIndex: capi.CT_ERR_INDEX,
		ctorch.ErrBufferSize: capi.CT_ERR_BUFFER_SIZE, ctorch.ErrDeviceString: capi.CT_ERR_DEVICE_STRING,
		ctorch.ErrState: capi.CT_ERR_STATE, ctorch.ErrDevice: capi.CT_ERR_DEVICE,
		ctorch.ErrCUDAUnavailable: capi.CT_ERR_CUDA_UNAVAILABLE, ctorch.ErrCUDA: capi.CT_ERR_CUDA,
		ctorch.ErrOutOfMemory: capi.CT_ERR_OUT_OF_MEMORY, ctorch.ErrNotSupported: capi.CT_ERR_NOT_SUPPORTED,
		ctorch.ErrInternal: capi.CT_ERR_INTERNAL}
	for e, c := range codes {
		if e.Code != c || e.Name != capi.Ct_status_name(c) {
			t.Errorf("sentinel %v: code %d name %s, header %d %s", e, e.Code, e.Name, c, capi.Ct_status_name(c))
		}
	}
	un := []int{capi.CT_NEG, capi.CT_ABS, capi.CT_EXP, capi.CT_LOG, capi.CT_SQRT, capi.CT_SIN, capi.CT_COS,
		capi.CT_TANH, capi.CT_SIGMOID, capi.CT_RELU, capi.CT_LOGICAL_NOT, capi.CT_SIGN, capi.CT_FLOOR,
		capi.CT_CEIL, capi.CT_ROUND, capi.CT_RECIPROCAL, capi.CT_SQUARE}
	for i, c := range un {
		if c != i || ctorch.UnaryOp(i).String() == "" {
			t.Errorf("unary op %d = %d", i, c)
		}
	}
	if capi.CT_SQUARE != int(ctorch.OpSquare) || capi.CT_REMAINDER != int(ctorch.OpRemainder) ||
		capi.CT_LOGICAL_XOR != int(ctorch.OpLogicalXor) || capi.CT_MAXIMUM != int(ctorch.OpMaximum) ||
		capi.CT_AMIN != int(ctorch.ReduceAmin) || capi.CT_MEAN != int(ctorch.ReduceMean) ||
		capi.CT_CUDA != int(ctorch.DeviceCUDA) || capi.CT_CPU != int(ctorch.DeviceCPU) {
		t.Error("op / device constants differ from the header")
	}
}
