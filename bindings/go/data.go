package ctorch

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	"ctorch.dev/ctorch/internal/capi"
)

// To is tensor.to(device, dtype): options give the Device and/or DType (each defaults to the
// tensor's own), NonBlocking() and ForceCopy(). When nothing changes (and no ForceCopy) the
// result is t itself, as in PyTorch: a new Tensor holding a new reference to the same tensor
// (r.IsSame(t) is true); close it like any other result.
//
//	dev := ctorch.CPU
//	if cuda.IsAvailable() { dev = ctorch.CUDA }
//	g, err := t.To(dev)              // my_tensor.to(device)
//	d, err := t.To(ctorch.Float64)   // t.to(torch.float64)
func (t *Tensor) To(opts ...Option) (*Tensor, error) {
	o, err := makeOptions("to", Undefined, opts)
	if err != nil {
		return nil, err
	}
	h, err := t.handle("to")
	if err != nil {
		return nil, err
	}
	dev := o.device
	if !o.deviceSet {
		if dev, err = t.DeviceErr(); err != nil {
			return nil, err
		}
	}
	return newTensor("to", func(out []int64) int {
		return capi.Ct_tensor_to(h, int(dev.Type), dev.Index, int(o.dtype), b2i(o.nonBlocking), b2i(o.copy), out)
	}, t)
}

// CPU is tensor.cpu(): t itself (a new reference) when already on the CPU, else a copy there.
func (t *Tensor) CPU() (*Tensor, error) { return t.To(CPU) }

// CUDA is tensor.cuda() (the current CUDA device) or tensor.cuda(index).
func (t *Tensor) CUDA(index ...int) (*Tensor, error) {
	if len(index) > 0 {
		return t.To(CUDADevice(index[0]))
	}
	return t.To(CUDA)
}

// CopyFrom is dst.copy_(src): copies src into t, broadcasting src to t's shape and converting
// dtype and device. ErrShape when src does not broadcast.
func (t *Tensor) CopyFrom(src *Tensor) error { return t.copyFrom(src, false) }

// CopyFromNonBlocking is dst.copy_(src, non_blocking=True): a copy between pinned host memory
// and a GPU is queued on the current stream and returns at once (see NonBlocking for when to
// synchronize).
func (t *Tensor) CopyFromNonBlocking(src *Tensor) error { return t.copyFrom(src, true) }

func (t *Tensor) copyFrom(src *Tensor, nonBlocking bool) error {
	hs, err := handles("copy_", t, src)
	if err != nil {
		return err
	}
	return run("copy_", func() int { return capi.Ct_tensor_copy_(hs[0], hs[1], b2i(nonBlocking)) }, t, src)
}

// Clone is tensor.clone(): a contiguous copy with its own storage.
func (t *Tensor) Clone() (*Tensor, error) { return t.method1("clone", capi.Ct_tensor_clone) }

// Item is tensor.item() as float64 (complex: the real part; bool: 0 or 1). ErrShape unless the
// tensor has exactly one element.
func (t *Tensor) Item() (float64, error) {
	h, err := t.handle("item")
	if err != nil {
		return 0, err
	}
	v, f := capi.TensorItemDouble(h)
	runtime.KeepAlive(t)
	if f != nil {
		return 0, failed("item", f)
	}
	return v, nil
}

// ItemInt64 is int(tensor.item()): floating values are truncated toward zero.
func (t *Tensor) ItemInt64() (int64, error) {
	return t.query("item", capi.QueryItemInt64, 0)
}

// ItemComplex is complex(tensor.item()) (imaginary part 0 for real tensors).
func (t *Tensor) ItemComplex() (complex128, error) {
	h, err := t.handle("item")
	if err != nil {
		return 0, err
	}
	re, im := []float64{0}, []float64{0}
	err = run("item", func() int { return capi.Ct_tensor_item_complex(h, re, im) }, t)
	return complex(re[0], im[0]), err
}

// ItemBool is bool(tensor.item()).
func (t *Tensor) ItemBool() (bool, error) {
	v, err := t.Item()
	return v != 0, err
}

// ---- copy out ---------------------------------------------------------------------------

// ToSlice copies the elements of t, C-contiguous (row-major), into a new []T. When t's dtype
// is not T's, the elements are converted first as t.to(dtype) does (floats truncate toward
// zero into integers, as in PyTorch). Works for tensors on any device (synchronous).
// ErrOutOfMemory when the copy would be larger than the machine's memory (checkHostAlloc).
func ToSlice[T Element](t *Tensor) ([]T, error) {
	n, err := t.query("copy_to_buffer", capi.QueryNumel, 0)
	if err != nil {
		return nil, err
	}
	var zero T
	if err := checkHostAlloc("copy_to_buffer", n, int64(unsafe.Sizeof(zero))); err != nil {
		return nil, err
	}
	out := make([]T, n)
	if err := copyInto(t, out); err != nil {
		return nil, err
	}
	return out, nil
}

// copyInto copies t (converted to T's dtype) into dst, whose length must be t's numel.
func copyInto[T Element](t *Tensor, dst []T) error {
	want := DTypeOf[T]()
	src := t
	d, err := t.dtype("copy_to_buffer")
	if err != nil {
		return err
	}
	if d != want {
		c, err := t.To(want)
		if err != nil {
			return err
		}
		defer c.Close()
		src = c
	}
	h, err := src.handle("copy_to_buffer")
	if err != nil {
		return err
	}
	b := asBytes(dst)
	err = run("copy_to_buffer", func() int { return capi.Ct_tensor_copy_to_buffer(h, b, int64(len(b))) }, src)
	runtime.KeepAlive(dst)
	return err
}

// checkHostAlloc is op's ErrOutOfMemory for a Go buffer of n elements of size bytes that cannot
// be made: Go does not survive a failed allocation (the process dies), and a tensor can have
// more elements than any machine's memory (an Expand of a scalar to [1 << 40] is a view of one
// element). The limit is the machine's RAM and swap; smaller buffers are left to Go.
func checkHostAlloc(op string, n, size int64) error {
	bytes := n * size
	if n < 1<<20 || (bytes/size == n && bytes < 1<<30) {
		return nil // small: no system call
	}
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return nil // unknown: left to Go
	}
	limit := (uint64(si.Totalram) + uint64(si.Totalswap)) * uint64(si.Unit)
	if bytes/size != n || uint64(bytes) > limit {
		return goError(op, CodeOutOfMemory, "a host copy of %d elements of %d bytes is more than the machine's memory (%d bytes of RAM and swap)", n, size, limit)
	}
	return nil
}

// CopyTo copies the elements of t into dst, a slice of an Element type ([]float32, []int64,
// []bool, ...) whose length must be t.Numel() (ErrBufferSize otherwise), converting the dtype
// like ToSlice. ErrArgument for other types of dst.
func (t *Tensor) CopyTo(dst any) error {
	switch d := dst.(type) {
	case []float32:
		return copyInto(t, d)
	case []float64:
		return copyInto(t, d)
	case []int64:
		return copyInto(t, d)
	case []int32:
		return copyInto(t, d)
	case []int16:
		return copyInto(t, d)
	case []int8:
		return copyInto(t, d)
	case []uint8:
		return copyInto(t, d)
	case []bool:
		return copyInto(t, d)
	case []complex64:
		return copyInto(t, d)
	case []complex128:
		return copyInto(t, d)
	}
	return goError("copy_to_buffer", CodeArgument, "CopyTo: unsupported destination type %T", dst)
}

// Bytes copies the elements of t, in its own dtype (native endian, C-contiguous), into a new
// []byte: the way to read float16 and bfloat16 tensors. ErrOutOfMemory as ToSlice.
func (t *Tensor) Bytes() ([]byte, error) {
	h, err := t.handle("copy_to_buffer")
	if err != nil {
		return nil, err
	}
	d, err := t.dtype("copy_to_buffer")
	if err != nil {
		return nil, err
	}
	n, err := t.query("copy_to_buffer", capi.QueryNumel, 0)
	if err != nil {
		return nil, err
	}
	size, err := d.ItemSize()
	if err != nil {
		return nil, err
	}
	if err := checkHostAlloc("copy_to_buffer", n, int64(size)); err != nil {
		return nil, err
	}
	b := make([]byte, n*int64(size))
	err = run("copy_to_buffer", func() int { return capi.Ct_tensor_copy_to_buffer(h, b, int64(len(b))) }, t)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Float32s copies the elements out as []float32 (converting like ToSlice).
func (t *Tensor) Float32s() ([]float32, error) { return ToSlice[float32](t) }

// Float64s copies the elements out as []float64.
func (t *Tensor) Float64s() ([]float64, error) { return ToSlice[float64](t) }

// Int64s copies the elements out as []int64.
func (t *Tensor) Int64s() ([]int64, error) { return ToSlice[int64](t) }

// Int32s copies the elements out as []int32.
func (t *Tensor) Int32s() ([]int32, error) { return ToSlice[int32](t) }

// Int16s copies the elements out as []int16.
func (t *Tensor) Int16s() ([]int16, error) { return ToSlice[int16](t) }

// Int8s copies the elements out as []int8.
func (t *Tensor) Int8s() ([]int8, error) { return ToSlice[int8](t) }

// Uint8s copies the elements out as []uint8.
func (t *Tensor) Uint8s() ([]uint8, error) { return ToSlice[uint8](t) }

// Bools copies the elements out as []bool.
func (t *Tensor) Bools() ([]bool, error) { return ToSlice[bool](t) }

// Complex64s copies the elements out as []complex64.
func (t *Tensor) Complex64s() ([]complex64, error) { return ToSlice[complex64](t) }

// Complex128s copies the elements out as []complex128.
func (t *Tensor) Complex128s() ([]complex128, error) { return ToSlice[complex128](t) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var _ fmt.Stringer = (*Tensor)(nil)
