package ctorch

import (
	"runtime"
	"sync/atomic"

	"ctorch.dev/ctorch/internal/capi"
)

// Tensor is torch.Tensor: it owns one reference (handle) to a ctorch tensor.
//
// Close releases it; Close is idempotent and safe on a nil *Tensor. A finalizer releases the
// handle of a Tensor that becomes unreachable without Close, but the garbage collector does
// not see the tensor's memory (it lives in C, possibly on a GPU), so close tensors explicitly
// (defer t.Close()) and treat the finalizer as a safety net.
//
// Methods that return a *Tensor return a new Tensor that must be closed too, including views
// (which share storage with t) and To when it returns the same tensor (t.IsSame(r) is true).
// Using a closed Tensor returns an error matching ErrInvalidHandle, never a crash.
//
// A Tensor may be used from several goroutines; operations that write its data in place must
// not race with other uses of it (as in PyTorch). A Tensor must not be copied by value.
type Tensor struct {
	h atomic.Int64
	// Padding to 16 bytes. Go's tiny allocator packs objects under 16 bytes without pointers
	// into shared 16-byte blocks, and a finalizer of such an object runs only once the whole
	// block is unreachable: a dropped Tensor next to a small object that stays alive would
	// never be released (and its memory would not come back on out-of-memory, see
	// internal/capi/oomhook.go).
	_ [8]byte
}

// wrap takes ownership of a new reference.
func wrap(h int64) *Tensor {
	t := &Tensor{}
	t.h.Store(h)
	runtime.SetFinalizer(t, (*Tensor).finalize)
	return t
}

func (t *Tensor) finalize() {
	if h := t.h.Swap(0); h != 0 {
		capi.Ct_tensor_release(h)
	}
}

// Close releases the tensor's handle. Closing twice, or closing a nil *Tensor, does nothing and
// returns nil.
func (t *Tensor) Close() error {
	if t == nil {
		return nil
	}
	h := t.h.Swap(0)
	if h == 0 {
		return nil
	}
	runtime.SetFinalizer(t, nil)
	if f := capi.TensorRelease(h); f != nil {
		return failed("close", f)
	}
	return nil
}

// Closed reports whether t is nil or has been closed.
func (t *Tensor) Closed() bool { return t == nil || t.h.Load() == 0 }

// Handle returns the raw ct_tensor handle (0 once closed), still owned by t. It is for passing
// the tensor to C code of your own; keep t alive (runtime.KeepAlive) while that code uses it.
func (t *Tensor) Handle() int64 {
	if t == nil {
		return 0
	}
	return t.h.Load()
}

// FromHandle makes a Tensor that owns h, a new reference to a tensor (a ct_tensor handle that
// C code of your own created, or that it retained with ct_tensor_retain): Close (or the
// finalizer) releases it. It is the way back for Handle. FromHandle(0) is nil. The library
// validates the handle on every use: a handle that is not a live tensor gives ErrInvalidHandle
// then, never a crash.
func FromHandle(h int64) *Tensor {
	if h == 0 {
		return nil
	}
	return wrap(h)
}

// handle returns t's handle or an ErrInvalidHandle error for a nil or closed tensor.
func (t *Tensor) handle(op string) (int64, error) {
	if t == nil {
		return 0, failed(op, capi.Unusable(true, "Tensor"))
	}
	h := t.h.Load()
	if h == 0 {
		return 0, failed(op, capi.Unusable(false, "Tensor"))
	}
	return h, nil
}

func handles(op string, ts ...*Tensor) ([]int64, error) {
	hs := make([]int64, len(ts))
	for i, t := range ts {
		h, err := t.handle(op)
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

// handles2 is handles for the two operands of a binary op, without a slice; the op's name
// (op.String() + suffix) is only built for an error.
func handles2(op BinaryOp, suffix string, a, b *Tensor) (int64, int64, error) {
	ha, hb := a.Handle(), b.Handle()
	if ha == 0 || hb == 0 {
		name := op.String() + suffix
		if _, err := a.handle(name); err != nil {
			return 0, 0, err
		}
		_, err := b.handle(name)
		return 0, 0, err
	}
	return ha, hb, nil
}

// newTensor runs f, a native call that stores a new reference in out[0], and wraps it. The
// operands are kept alive until the call has returned.
func newTensor(op string, f func(out []int64) int, operands ...*Tensor) (*Tensor, error) {
	out := []int64{0}
	err := call(op, func() int { return f(out) })
	keepAlive(operands...)
	if err != nil {
		return nil, err
	}
	return wrap(out[0]), nil
}

// run is call plus keepAlive of the operands, for native calls without a tensor result.
func run(op string, f func() int, operands ...*Tensor) error {
	err := call(op, f)
	keepAlive(operands...)
	return err
}

// method1 is the common shape of a method of t that returns a new tensor.
func (t *Tensor) method1(op string, f func(h int64, out []int64) int) (*Tensor, error) {
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int { return f(h, out) }, t)
}

// Ref returns a second Tensor holding a new reference to the very same tensor
// (ct_tensor_retain; Python's `b = a`): r.IsSame(t) is true. Close both.
func (t *Tensor) Ref() (*Tensor, error) {
	h, err := t.handle("retain")
	if err != nil {
		return nil, err
	}
	f := capi.TensorRetain(h)
	runtime.KeepAlive(t)
	if f != nil {
		return nil, failed("retain", f)
	}
	return wrap(h), nil
}

// LiveTensorCount returns the number of live tensor handles in the process (for leak checks).
func LiveTensorCount() (int64, error) {
	out := []int64{0}
	if err := call("live_tensor_count", func() int { return capi.Ct_live_tensor_count(out) }); err != nil {
		return 0, err
	}
	return out[0], nil
}

// ---- metadata ---------------------------------------------------------------------------

// query is an integer query of t made through a direct call (internal/capi/direct.go); dim is
// for QuerySize and QueryStride. 0 with the error when it fails.
func (t *Tensor) query(op string, q capi.Query, dim int) (int64, error) {
	h, err := t.handle(op)
	if err != nil {
		return 0, err
	}
	v, f := capi.TensorQuery(q, h, int32(dim))
	runtime.KeepAlive(t)
	if f != nil {
		return 0, failed(op, f)
	}
	return v, nil
}

// Dim is tensor.dim(): the number of dimensions (0 for a scalar). 0 for a closed tensor.
func (t *Tensor) Dim() int {
	n, _ := t.query("dim", capi.QueryDim, 0)
	return int(n)
}

// Numel is tensor.numel(). 0 for a closed tensor.
func (t *Tensor) Numel() int64 {
	n, _ := t.query("numel", capi.QueryNumel, 0)
	return n
}

// StorageOffset is tensor.storage_offset(), in elements. 0 for a closed tensor.
func (t *Tensor) StorageOffset() int64 {
	n, _ := t.query("storage_offset", capi.QueryStorageOffset, 0)
	return n
}

// DataPtr is tensor.data_ptr(): the address of the first element (host or device memory; 0 for
// an empty tensor), for handing the data to other libraries. It stays valid while the tensor's
// storage lives (keep t alive, runtime.KeepAlive, while the address is in use).
func (t *Tensor) DataPtr() (uintptr, error) {
	n, err := t.query("data_ptr", capi.QueryDataPtr, 0)
	return uintptr(n), err
}

// DType is tensor.dtype. Undefined for a closed tensor.
func (t *Tensor) DType() DType {
	d, err := t.dtype("dtype")
	if err != nil {
		return Undefined
	}
	return d
}

// dtype is DType with the error of a nil, closed or foreign tensor, for the methods that
// depend on the dtype (never Undefined standing in for a tensor closed meanwhile).
func (t *Tensor) dtype(op string) (DType, error) {
	d, err := t.query(op, capi.QueryDType, 0)
	return DType(d), err
}

// Device is tensor.device (CPU tensors report CPU, index -1; CUDA tensors a concrete index).
// The zero Device{} for a closed tensor.
func (t *Tensor) Device() Device {
	d, _ := t.DeviceErr()
	return d
}

// DeviceErr is Device with the error of a closed tensor.
func (t *Tensor) DeviceErr() (Device, error) {
	h, err := t.handle("device")
	if err != nil {
		return Device{}, err
	}
	d, err := deviceQuery("device", func(typ, idx []int32) int { return capi.Ct_tensor_device(h, typ, idx) })
	runtime.KeepAlive(t)
	return d, err
}

// deviceQuery is the device that f stores in its type and index out-parameters.
func deviceQuery(op string, f func(typ, idx []int32) int) (Device, error) {
	typ, idx := []int32{0}, []int32{0}
	if err := call(op, func() int { return f(typ, idx) }); err != nil {
		return Device{}, err
	}
	return Device{Type: DeviceType(typ[0]), Index: int(idx[0])}, nil
}

// IsContiguous is tensor.is_contiguous(). False for a closed tensor.
func (t *Tensor) IsContiguous() bool {
	v, _ := t.query("is_contiguous", capi.QueryIsContiguous, 0)
	return v != 0
}

// Size is tensor.size(dim); negative dims count from the end. ErrIndex when out of range.
func (t *Tensor) Size(dim int) (int64, error) {
	if err := checkDim("size", dim); err != nil {
		return 0, err
	}
	return t.query("size", capi.QuerySize, dim)
}

// Stride is tensor.stride(dim), in elements. ErrIndex when out of range.
func (t *Tensor) Stride(dim int) (int64, error) {
	if err := checkDim("stride", dim); err != nil {
		return 0, err
	}
	return t.query("stride", capi.QueryStride, dim)
}

// Shape is tensor.shape (a new slice; empty for a scalar, nil for a closed tensor).
func (t *Tensor) Shape() []int64 {
	s, _ := t.ShapeErr()
	return s
}

// ShapeErr is Shape with the error of a closed tensor.
func (t *Tensor) ShapeErr() ([]int64, error) { return t.int64Array("sizes", capi.Ct_tensor_sizes) }

// Strides is tensor.stride(), in elements (nil for a closed tensor).
func (t *Tensor) Strides() []int64 {
	s, _ := t.int64Array("strides", capi.Ct_tensor_strides)
	return s
}

func (t *Tensor) int64Array(op string, f func(h int64, dst []int64, cap int, ndim []int32) int) ([]int64, error) {
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	var res []int64
	err = run(op, func() int {
		dst := make([]int64, 8)
		ndim := []int32{0}
		st := f(h, dst, len(dst), ndim)
		if st == capi.CT_ERR_BUFFER_SIZE && int(ndim[0]) > len(dst) { // more than 8 dims
			dst = make([]int64, ndim[0])
			st = f(h, dst, len(dst), ndim)
		}
		if st == 0 {
			res = dst[:ndim[0]:ndim[0]]
		}
		return st
	}, t)
	return res, err
}

// pairQuery is a yes/no query f of t and o.
func (t *Tensor) pairQuery(op string, f func(a, b int64, out []int32) int, o *Tensor) (bool, error) {
	hs, err := handles(op, t, o)
	if err != nil {
		return false, err
	}
	out := []int32{0}
	err = run(op, func() int { return f(hs[0], hs[1], out) }, t, o)
	return out[0] != 0, err
}

// SharesStorage reports whether t and o share storage (a view and its base, for instance).
func (t *Tensor) SharesStorage(o *Tensor) (bool, error) {
	return t.pairQuery("shares_storage", capi.Ct_tensor_shares_storage, o)
}

// IsSame reports whether t and o are the very same tensor (Python's `t is o`).
func (t *Tensor) IsSame(o *Tensor) (bool, error) {
	return t.pairQuery("is_same", capi.Ct_tensor_is_same, o)
}

// Repr is repr(tensor), e.g. "tensor([1., 2.])" or
// "tensor([1, 2], device='cuda:0', dtype=torch.int32)".
func (t *Tensor) Repr() (string, error) {
	h, err := t.handle("repr")
	if err != nil {
		return "", err
	}
	var s string
	err = run("repr", func() int {
		needed := []int64{0}
		st := capi.Ct_tensor_repr(h, nil, 0, needed) // cap 0: ask for the length
		for try := 0; try < 4 && (st == 0 || st == capi.CT_ERR_BUFFER_SIZE); try++ {
			capi.Ct_clear_error()
			buf := make([]byte, needed[0]+1)
			st = capi.Ct_tensor_repr(h, buf, int64(len(buf)), needed)
			if st == 0 {
				s = string(buf[:needed[0]])
				break
			}
		}
		return st
	}, t)
	return s, err
}

// String implements fmt.Stringer with Repr; a closed tensor prints as "tensor(<closed>)".
func (t *Tensor) String() string {
	s, err := t.Repr()
	if err != nil {
		if t.Closed() {
			return "tensor(<closed>)"
		}
		return "tensor(<" + err.Error() + ">)"
	}
	return s
}

// ---- argument checks --------------------------------------------------------------------

// checkDim rejects dims that do not fit the C int32_t (which the wrapper would truncate).
func checkDim(op string, dims ...int) error {
	for _, d := range dims {
		if int(int32(d)) != d {
			return goError(op, CodeIndex, "dimension %d out of range", d)
		}
	}
	return nil
}

func dims64(op string, dims []int) ([]int64, error) {
	if dims == nil {
		return nil, nil
	}
	if err := checkDim(op, dims...); err != nil {
		return nil, err
	}
	out := make([]int64, len(dims))
	for i, d := range dims {
		out[i] = int64(d)
	}
	return out, nil
}

func checkCount(op string, n int) error {
	if int(int32(n)) != n {
		return goError(op, CodeArgument, "too many elements (%d)", n)
	}
	return nil
}
