package ctorch_test

// Tests of the raw SWIG layer itself (internal/capi): handle 0 and foreign handles at the C
// level, the constants the Go layer hardcodes, and the thread-locked error read.

import (
	"runtime"
	"strings"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
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

// Stream and event handles at the C level: NULL, released, and handles of another kind are
// CT_ERR_INVALID_HANDLE (each kind has its own table and tag), never a crash.
func TestRawStreamAndEventHandles(t *testing.T) {
	code := func(f func() int) int {
		if fl := capi.Call(f); fl != nil {
			if fl.Message == "" {
				t.Errorf("status %d without a message", fl.Code)
			}
			return fl.Code
		}
		return 0
	}
	i32, i64, f64 := []int32{0}, []int64{0}, []float64{0}
	null := map[string]func() int{
		"stream_release":       func() int { return capi.Ct_stream_release(0) },
		"stream_retain":        func() int { return capi.Ct_stream_retain(0) },
		"stream_device":        func() int { return capi.Ct_stream_device(0, i32) },
		"stream_priority":      func() int { return capi.Ct_stream_priority(0, i32) },
		"stream_cuda_handle":   func() int { return capi.Ct_stream_cuda_handle(0, i64) },
		"stream_synchronize":   func() int { return capi.Ct_stream_synchronize(0) },
		"stream_query":         func() int { return capi.Ct_stream_query(0, i32) },
		"stream_wait_stream":   func() int { return capi.Ct_stream_wait_stream(0, 0) },
		"stream_set_current":   func() int { return capi.Ct_stream_set_current(0) },
		"stream_guard_enter":   func() int { return capi.Ct_stream_guard_enter(0, i64, i32) },
		"stream_guard_exit":    func() int { return capi.Ct_stream_guard_exit(0, 0) },
		"stream_record_event":  func() int { return capi.Ct_stream_record_event(0, 0) },
		"stream_wait_event":    func() int { return capi.Ct_stream_wait_event(0, 0) },
		"event_release":        func() int { return capi.Ct_event_release(0) },
		"event_retain":         func() int { return capi.Ct_event_retain(0) },
		"event_record":         func() int { return capi.Ct_event_record(0, 0) },
		"event_wait":           func() int { return capi.Ct_event_wait(0, 0) },
		"event_query":          func() int { return capi.Ct_event_query(0, i32) },
		"event_synchronize":    func() int { return capi.Ct_event_synchronize(0) },
		"event_elapsed_time":   func() int { return capi.Ct_event_elapsed_time(0, 0, f64) },
		"tensor_record_stream": func() int { return capi.Ct_tensor_record_stream(0, 0) },
		"tensor_pin_memory":    func() int { return capi.Ct_tensor_pin_memory(0, i64) },
		"tensor_is_pinned":     func() int { return capi.Ct_tensor_is_pinned(0, i32) },
		"exchange_device_of":   func() int { return capi.Ct_cuda_exchange_device_of(0, i32) },
		"memory_stream_stat":   func() int { return capi.Ct_cuda_memory_stream_stat(0, "allocation.current", i64) },
	}
	for name, f := range null {
		if c := code(f); c != capi.CT_ERR_INVALID_HANDLE {
			t.Errorf("%s(NULL) = %d, want %d", name, c, capi.CT_ERR_INVALID_HANDLE)
		}
	}

	// An event, a tensor, and each used as the other kind.
	ev, tn := []int64{0}, []int64{0}
	if c := code(func() int { return capi.Ct_event_create(capi.CT_EVENT_ENABLE_TIMING, ev) }); c != 0 {
		t.Fatalf("ct_event_create: %d", c)
	}
	if c := code(func() int { return capi.Ct_zeros([]int64{2}, 1, capi.CT_FLOAT32, capi.CT_CPU, -1, tn) }); c != 0 {
		t.Fatalf("ct_zeros: %d", c)
	}
	e, x := ev[0], tn[0]
	crossed := map[string]func() int{
		"event_query(tensor)":        func() int { return capi.Ct_event_query(x, i32) },
		"event_release(tensor)":      func() int { return capi.Ct_event_release(x) },
		"stream_device(event)":       func() int { return capi.Ct_stream_device(e, i32) },
		"stream_release(event)":      func() int { return capi.Ct_stream_release(e) },
		"tensor_dim(event)":          func() int { return capi.Ct_tensor_dim(e, i32) },
		"tensor_release(event)":      func() int { return capi.Ct_tensor_release(e) },
		"tensor_record_stream(t, e)": func() int { return capi.Ct_tensor_record_stream(x, e) },
		"event_record(e, tensor)":    func() int { return capi.Ct_event_record(e, x) },
		"event_elapsed_time(e, t)":   func() int { return capi.Ct_event_elapsed_time(e, x, f64) },
		"stream_wait_event(t, e)":    func() int { return capi.Ct_stream_wait_event(x, e) },
		"memory_stream_stat(event)":  func() int { return capi.Ct_cuda_memory_stream_stat(e, "allocation.current", i64) },
	}
	for name, f := range crossed {
		if c := code(f); c != capi.CT_ERR_INVALID_HANDLE {
			t.Errorf("%s = %d, want %d", name, c, capi.CT_ERR_INVALID_HANDLE)
		}
	}
	f := capi.Call(func() int { return capi.Ct_event_query(x, i32) })
	if f == nil || !strings.Contains(f.Message, "event") {
		t.Errorf("a tensor handle given as an event: %+v", f)
	}
	// Both survived the misuse.
	if c := code(func() int { return capi.Ct_event_query(e, i32) }); c != 0 || i32[0] != 1 {
		t.Errorf("ct_event_query of a new event: status %d, out %d; want 0, 1", c, i32[0])
	}
	if c := code(func() int { return capi.Ct_tensor_is_pinned(x, i32) }); c != 0 || i32[0] != 0 {
		t.Errorf("ct_tensor_is_pinned(cpu tensor): status %d, out %d; want 0, 0", c, i32[0])
	}
	// The guard of a CPU tensor's device changes nothing: prev is -1.
	i32[0] = 7
	if c := code(func() int { return capi.Ct_cuda_exchange_device_of(x, i32) }); c != 0 || i32[0] != -1 {
		t.Errorf("ct_cuda_exchange_device_of(cpu tensor): status %d, prev %d; want 0, -1", c, i32[0])
	}
	if !cuda.IsAvailable() {
		// A negative device changes nothing; without CUDA prev is -1.
		i32[0] = 7
		if c := code(func() int { return capi.Ct_cuda_exchange_device(-1, i32) }); c != 0 || i32[0] != -1 {
			t.Errorf("ct_cuda_exchange_device(-1) without CUDA: status %d, prev %d; want 0, -1", c, i32[0])
		}
		if c := code(func() int { return capi.Ct_cuda_exchange_device(0, i32) }); c != capi.CT_ERR_CUDA_UNAVAILABLE {
			t.Errorf("ct_cuda_exchange_device(0) without CUDA: %d", c)
		}
	}

	// Released: a second release and any use are errors.
	if c := code(func() int { return capi.Ct_event_release(e) }); c != 0 {
		t.Errorf("ct_event_release: %d", c)
	}
	if c := code(func() int { return capi.Ct_event_release(e) }); c != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("second ct_event_release: %d", c)
	}
	if c := code(func() int { return capi.Ct_event_synchronize(e) }); c != capi.CT_ERR_INVALID_HANDLE {
		t.Errorf("ct_event_synchronize after release: %d", c)
	}
	if c := code(func() int { return capi.Ct_tensor_release(x) }); c != 0 {
		t.Errorf("ct_tensor_release: %d", c)
	}
}

func TestCUDAConstantsMatchTheHeader(t *testing.T) {
	if int(cuda.EventDefault) != capi.CT_EVENT_DEFAULT || int(cuda.EventEnableTiming) != capi.CT_EVENT_ENABLE_TIMING ||
		int(cuda.EventBlocking) != capi.CT_EVENT_BLOCKING {
		t.Error("event flags differ from the header")
	}
	if cuda.SyncDebugDefault != 0 || cuda.SyncDebugWarn != 1 || cuda.SyncDebugError != 2 {
		t.Error("sync debug modes differ from the header (0 default, 1 warn, 2 error)")
	}
	if int(cuda.PropPCIBusID) != capi.CT_PROP_PCI_BUS_ID || int(cuda.PropTotalMemory) != capi.CT_PROP_TOTAL_MEMORY {
		t.Error("device properties differ from the header")
	}
}
