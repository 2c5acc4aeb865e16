package ctorch

import (
	"runtime"
	"unsafe"

	"ctorch.dev/ctorch/internal/capi"
)

// Element is a Go element type with a ctorch dtype of the same memory layout:
// float32, float64, int64, int32, int16, int8, uint8, bool, complex64, complex128.
// (float16 and bfloat16 have no Go type: use FromBytes and Bytes.)
type Element interface {
	float32 | float64 | int64 | int32 | int16 | int8 | uint8 | bool | complex64 | complex128
}

// DTypeOf returns the dtype that matches the Go element type T.
func DTypeOf[T Element]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int64:
		return Int64
	case int32:
		return Int32
	case int16:
		return Int16
	case int8:
		return Int8
	case uint8:
		return Uint8
	case bool:
		return Bool
	case complex64:
		return Complex64
	case complex128:
		return Complex128
	}
	return Undefined
}

// asBytes views a typed slice as the bytes the SWIG wrapper takes (no copy). The caller keeps
// s alive (runtime.KeepAlive) until the native call has returned.
func asBytes[T Element](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

func checkShape(op string, shape []int64) error { return checkCount(op, len(shape)) }

type shapeFactory func(sizes []int64, ndim int, dtype int, devType int, devIndex int, out []int64) int

func shaped(op string, f shapeFactory, shape []int64, opts []Option) (*Tensor, error) {
	if err := checkShape(op, shape); err != nil {
		return nil, err
	}
	o, err := makeOptions(op, Float32, opts)
	if err != nil {
		return nil, err
	}
	return newTensor(op, func(out []int64) int {
		return f(shape, len(shape), int(o.dtype), int(o.device.Type), o.device.Index, out)
	})
}

// Empty is torch.empty(shape): uninitialised memory. Options: DType (default Float32), Device
// (default CPU). An empty (non-nil) shape gives a 0-dim tensor.
func Empty(shape []int64, opts ...Option) (*Tensor, error) {
	return shaped("empty", capi.Ct_empty, shape, opts)
}

// Zeros is torch.zeros(shape).
func Zeros(shape []int64, opts ...Option) (*Tensor, error) {
	return shaped("zeros", capi.Ct_zeros, shape, opts)
}

// Ones is torch.ones(shape).
func Ones(shape []int64, opts ...Option) (*Tensor, error) {
	return shaped("ones", capi.Ct_ones, shape, opts)
}

// Full is torch.full(shape, value) (value converted to the dtype as torch.full does).
func Full(shape []int64, value float64, opts ...Option) (*Tensor, error) {
	return shaped("full", func(s []int64, n, dt, ty, ix int, out []int64) int {
		return capi.Ct_full(s, n, value, dt, ty, ix, out)
	}, shape, opts)
}

// Arange is torch.arange(start, end, step) with float arguments: ceil((end-start)/step)
// elements start + i*step, Float32 unless a DType is given. ErrArgument for step 0 or a step
// whose sign disagrees with end - start.
func Arange(start, end, step float64, opts ...Option) (*Tensor, error) {
	o, err := makeOptions("arange", Float32, opts)
	if err != nil {
		return nil, err
	}
	return newTensor("arange", func(out []int64) int {
		return capi.Ct_arange(start, end, step, int(o.dtype), int(o.device.Type), o.device.Index, out)
	})
}

// ArangeInt is torch.arange(start, end, step) with integer arguments: Int64 unless a DType is
// given, as in PyTorch.
func ArangeInt(start, end, step int64, opts ...Option) (*Tensor, error) {
	return Arange(float64(start), float64(end), float64(step), append([]Option{Int64}, opts...)...)
}

// Linspace is torch.linspace(start, end, steps). ErrArgument for steps < 0.
func Linspace(start, end float64, steps int64, opts ...Option) (*Tensor, error) {
	o, err := makeOptions("linspace", Float32, opts)
	if err != nil {
		return nil, err
	}
	return newTensor("linspace", func(out []int64) int {
		return capi.Ct_linspace(start, end, steps, int(o.dtype), int(o.device.Type), o.device.Index, out)
	})
}

// Eye is torch.eye(n): an n x n identity matrix.
func Eye(n int64, opts ...Option) (*Tensor, error) { return EyeNM(n, -1, opts...) }

// EyeNM is torch.eye(n, m): ones on the diagonal of an n x m matrix (m = -1 means m = n; other
// negative m is ErrArgument).
func EyeNM(n, m int64, opts ...Option) (*Tensor, error) {
	o, err := makeOptions("eye", Float32, opts)
	if err != nil {
		return nil, err
	}
	return newTensor("eye", func(out []int64) int {
		return capi.Ct_eye(n, m, int(o.dtype), int(o.device.Type), o.device.Index, out)
	})
}

// FromSlice is torch.tensor(data).reshape(shape): a new tensor holding a copy of data, whose
// dtype is the one of T (float32 -> Float32, int64 -> Int64, bool -> Bool, ...). A nil shape
// means a 1-D tensor of len(data) elements; an empty non-nil shape a 0-dim tensor (see Scalar).
// Options: Device (default CPU) and DType (converts, as torch.tensor(data, dtype=...) does).
// ErrBufferSize when len(data) is not the shape's number of elements.
func FromSlice[T Element](data []T, shape []int64, opts ...Option) (*Tensor, error) {
	if shape == nil {
		shape = []int64{int64(len(data))}
	}
	src := DTypeOf[T]()
	o, err := makeOptions("from_slice", src, opts)
	if err != nil {
		return nil, err
	}
	b := asBytes(data)
	t, err := fromBuffer("from_slice", b, shape, src, o)
	runtime.KeepAlive(data)
	return t, err
}

// Scalar is torch.tensor(v): a 0-dim tensor of T's dtype (options as FromSlice).
func Scalar[T Element](v T, opts ...Option) (*Tensor, error) {
	return FromSlice([]T{v}, []int64{}, opts...)
}

// FromBytes is a new tensor from raw host bytes in dtype (native endian, C-contiguous); the
// way to build float16 and bfloat16 tensors. A nil shape means 1-D of len(data)/itemsize
// elements. ErrBufferSize when len(data) is not numel * itemsize. Options: Device, and DType to
// convert to another dtype.
func FromBytes(data []byte, shape []int64, dtype DType, opts ...Option) (*Tensor, error) {
	if shape == nil {
		size, err := dtype.ItemSize()
		if err != nil {
			return nil, err
		}
		if len(data)%size != 0 {
			return nil, goError("from_bytes", CodeBufferSize, "%d bytes is not a whole number of %v elements", len(data), dtype)
		}
		shape = []int64{int64(len(data) / size)}
	}
	o, err := makeOptions("from_bytes", dtype, opts)
	if err != nil {
		return nil, err
	}
	t, err := fromBuffer("from_bytes", data, shape, dtype, o)
	runtime.KeepAlive(data)
	return t, err
}

// fromBuffer builds the tensor in the buffer's dtype on the target device, then converts when
// another dtype was asked for.
func fromBuffer(op string, b []byte, shape []int64, src DType, o options) (*Tensor, error) {
	if err := checkShape(op, shape); err != nil {
		return nil, err
	}
	t, err := newTensor(op, func(out []int64) int {
		return capi.Ct_from_buffer(b, int64(len(b)), shape, len(shape), int(src), int(o.device.Type), o.device.Index, out)
	})
	if err != nil || o.dtype == src || o.dtype == Undefined {
		return t, err
	}
	defer t.Close()
	return t.To(o.dtype)
}

// ---- *_like and new_* -------------------------------------------------------------------

// moveIfAsked finishes a *Like / New* call: the DType option went to the C call; a Device
// option moves the result there (r.To(device); no copy when it is already there).
func (t *Tensor) moveIfAsked(r *Tensor, err error, o options) (*Tensor, error) {
	if err != nil || !o.deviceSet {
		return r, err
	}
	defer r.Close()
	return r.To(o.device)
}

func likeOptions(op string, opts []Option) (options, error) { return makeOptions(op, Undefined, opts) }

// EmptyLike is torch.empty_like(t): same shape, device and dtype (options override dtype and
// device).
func EmptyLike(t *Tensor, opts ...Option) (*Tensor, error) {
	o, err := likeOptions("empty_like", opts)
	if err != nil {
		return nil, err
	}
	r, err := t.method1("empty_like", func(h int64, out []int64) int { return capi.Ct_empty_like(h, int(o.dtype), out) })
	return t.moveIfAsked(r, err, o)
}

// ZerosLike is torch.zeros_like(t).
func ZerosLike(t *Tensor, opts ...Option) (*Tensor, error) {
	o, err := likeOptions("zeros_like", opts)
	if err != nil {
		return nil, err
	}
	r, err := t.method1("zeros_like", func(h int64, out []int64) int { return capi.Ct_zeros_like(h, int(o.dtype), out) })
	return t.moveIfAsked(r, err, o)
}

// OnesLike is torch.ones_like(t).
func OnesLike(t *Tensor, opts ...Option) (*Tensor, error) {
	o, err := likeOptions("ones_like", opts)
	if err != nil {
		return nil, err
	}
	r, err := t.method1("ones_like", func(h int64, out []int64) int { return capi.Ct_ones_like(h, int(o.dtype), out) })
	return t.moveIfAsked(r, err, o)
}

// FullLike is torch.full_like(t, value).
func FullLike(t *Tensor, value float64, opts ...Option) (*Tensor, error) {
	o, err := likeOptions("full_like", opts)
	if err != nil {
		return nil, err
	}
	r, err := t.method1("full_like", func(h int64, out []int64) int { return capi.Ct_full_like(h, value, int(o.dtype), out) })
	return t.moveIfAsked(r, err, o)
}

type newFactory func(h int64, sizes []int64, ndim int, dtype int, out []int64) int

func (t *Tensor) newShaped(op string, f newFactory, shape []int64, opts []Option) (*Tensor, error) {
	if err := checkShape(op, shape); err != nil {
		return nil, err
	}
	o, err := likeOptions(op, opts)
	if err != nil {
		return nil, err
	}
	r, err := t.method1(op, func(h int64, out []int64) int { return f(h, shape, len(shape), int(o.dtype), out) })
	return t.moveIfAsked(r, err, o)
}

// NewEmpty is tensor.new_empty(shape): t's device and dtype (a DType option overrides).
func (t *Tensor) NewEmpty(shape []int64, opts ...Option) (*Tensor, error) {
	return t.newShaped("new_empty", capi.Ct_new_empty, shape, opts)
}

// NewZeros is tensor.new_zeros(shape).
func (t *Tensor) NewZeros(shape []int64, opts ...Option) (*Tensor, error) {
	return t.newShaped("new_zeros", capi.Ct_new_zeros, shape, opts)
}

// NewOnes is tensor.new_ones(shape).
func (t *Tensor) NewOnes(shape []int64, opts ...Option) (*Tensor, error) {
	return t.newShaped("new_ones", capi.Ct_new_ones, shape, opts)
}

// NewFull is tensor.new_full(shape, value).
func (t *Tensor) NewFull(shape []int64, value float64, opts ...Option) (*Tensor, error) {
	return t.newShaped("new_full", func(h int64, s []int64, n, dt int, out []int64) int {
		return capi.Ct_new_full(h, s, n, value, dt, out)
	}, shape, opts)
}

// NewTensorFrom is tensor.new_tensor(data): a copy of data (shape as in FromSlice) converted
// to t's dtype (or a DType option) on t's device.
func NewTensorFrom[T Element](t *Tensor, data []T, shape []int64, opts ...Option) (*Tensor, error) {
	if shape == nil {
		shape = []int64{int64(len(data))}
	}
	if err := checkShape("new_tensor", shape); err != nil {
		return nil, err
	}
	o, err := likeOptions("new_tensor", opts)
	if err != nil {
		return nil, err
	}
	b := asBytes(data)
	src := DTypeOf[T]()
	r, err := t.method1("new_tensor", func(h int64, out []int64) int {
		return capi.Ct_new_tensor(h, b, int64(len(b)), shape, len(shape), int(src), int(o.dtype), out)
	})
	runtime.KeepAlive(data)
	return t.moveIfAsked(r, err, o)
}
