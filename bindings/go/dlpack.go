package ctorch

import (
	"runtime"
	"sync"
	"unsafe"

	"ctorch.dev/ctorch/internal/capi"
)

// DLPack and foreign memory (capi/ctorch.h section 26, docs/dlpack.md): zero-copy exchange
// with other libraries (PyTorch, CuPy, JAX, ONNX Runtime, CUDA code of your own) through
// DLPack's structs, passed as unsafe.Pointer (a *C.DLManagedTensor or
// *C.struct_DLManagedTensorVersioned of <dlpack/dlpack.h>, which your cgo code includes).
//
//	torch.utils.dlpack.to_dlpack(t)        ->  t.ToDLPack()            (a *DLPackCapsule)
//	t.__dlpack__(stream=s, max_version=..)  ->  t.DLPack(s, versioned)
//	t.__dlpack_device__()                  ->  t.DLPackDevice()
//	torch.from_dlpack(capsule)             ->  ctorch.FromDLPack(p) / FromDLPackVersioned(p)
//	torch.from_blob(ptr, shape, ...)       ->  ctorch.FromBlob(ptr, shape, strides, dtype, device, deleter)

// DLPackCapsule is an exported tensor: a DLManagedTensor (or DLManagedTensorVersioned) that
// keeps the tensor's memory alive until its deleter runs. Hand Pointer to the consumer and call
// Consumed (the consumer calls the deleter from then on), or import it back with Import; Close
// calls the deleter of a capsule that no one consumed (the finalizer does too). Closing twice,
// or after Consumed or Import, does nothing.
type DLPackCapsule struct {
	mu        sync.Mutex
	p         unsafe.Pointer
	versioned bool
}

func newCapsule(p unsafe.Pointer, versioned bool) *DLPackCapsule {
	c := &DLPackCapsule{p: p, versioned: versioned}
	runtime.SetFinalizer(c, func(c *DLPackCapsule) { _ = c.Close() })
	return c
}

// Pointer is the struct's address (nil once consumed or closed).
func (c *DLPackCapsule) Pointer() unsafe.Pointer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.p
}

// Versioned reports whether Pointer is a DLManagedTensorVersioned (else a DLManagedTensor).
func (c *DLPackCapsule) Versioned() bool { return c.versioned }

// Consumed says that a consumer took the capsule: from now on it calls the deleter, and Close
// does nothing. It returns the struct's address (nil if already consumed or closed).
func (c *DLPackCapsule) Consumed() unsafe.Pointer {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.p
	c.p = nil
	return p
}

// Import consumes the capsule into a ctorch tensor (FromDLPack or FromDLPackVersioned): the same
// memory, no copy. On failure the capsule stays the caller's (Close deletes it).
func (c *DLPackCapsule) Import() (*Tensor, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p == nil {
		return nil, failed("from_dlpack", capi.Unusable(false, "DLPackCapsule"))
	}
	t, err := fromDLPack(c.p, c.versioned)
	if err == nil {
		c.p = nil
	}
	return t, err
}

// Close calls the deleter of a capsule that no one consumed (ct_dlpack_delete).
func (c *DLPackCapsule) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	p := c.p
	c.p = nil
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	runtime.SetFinalizer(c, nil)
	return call("dlpack_delete", func() int { return capi.DLPackDelete(p, c.versioned) })
}

func (t *Tensor) export(op string, form int32, stream int64, versioned bool) (*DLPackCapsule, error) {
	h, err := t.handle(op)
	if err != nil {
		return nil, err
	}
	var p unsafe.Pointer
	err = run(op, func() int { return capi.ToDLPack(h, form, stream, &p) }, t)
	if err != nil {
		return nil, err
	}
	return newCapsule(p, versioned), nil
}

// ToDLPack is torch.utils.dlpack.to_dlpack(t): a DLManagedTensor (the legacy form) over t's
// memory, no stream synchronization.
func (t *Tensor) ToDLPack() (*DLPackCapsule, error) {
	return t.export("to_dlpack", capi.DLPackLegacy, -1, false)
}

// ToDLPackVersioned is ToDLPack as a DLManagedTensorVersioned (version 1.1, flags 0).
func (t *Tensor) ToDLPackVersioned() (*DLPackCapsule, error) {
	return t.export("to_dlpack_versioned", capi.DLPackVersioned, -1, true)
}

// DLPack is t.__dlpack__(stream=stream): the consumer's CUDA stream (a cudaStream_t's bits; 1
// the default stream; -1 no synchronization; CPU tensors take -1 only) waits for the work
// queued so far on the current stream of t's device, then t is exported in the versioned form
// or the legacy one.
func (t *Tensor) DLPack(stream int64, versioned bool) (*DLPackCapsule, error) {
	form := int32(capi.DLPackLegacyStream)
	if versioned {
		form = capi.DLPackVersionedStream
	}
	return t.export("tensor_dlpack", form, stream, versioned)
}

// DLPackDevice is t.__dlpack_device__(): DLPack's device type (1 kDLCPU, 2 kDLCUDA) and id.
func (t *Tensor) DLPackDevice() (deviceType int32, deviceID int32, err error) {
	h, err := t.handle("tensor_dlpack_device")
	if err != nil {
		return 0, 0, err
	}
	err = run("tensor_dlpack_device", func() int { return capi.DLPackDevice(h, &deviceType, &deviceID) }, t)
	return deviceType, deviceID, err
}

func fromDLPack(p unsafe.Pointer, versioned bool) (*Tensor, error) {
	op := "from_dlpack"
	if versioned {
		op = "from_dlpack_versioned"
	}
	return newTensor(op, func(out []int64) int { return capi.FromDLPack(p, versioned, &out[0]) })
}

// FromDLPack is torch.from_dlpack on a DLManagedTensor (the legacy form) that another library
// made: a Tensor over its memory that owns the struct on success (its deleter runs once, when
// the last tensor using the memory, views included, is closed). On failure the caller still
// owns it.
func FromDLPack(capsule unsafe.Pointer) (*Tensor, error) { return fromDLPack(capsule, false) }

// FromDLPackVersioned is FromDLPack for a DLManagedTensorVersioned (major version 1).
func FromDLPackVersioned(capsule unsafe.Pointer) (*Tensor, error) { return fromDLPack(capsule, true) }

// FromBlob is torch.from_blob: a Tensor over memory that ctorch did not allocate (C memory,
// host or CUDA, never Go memory), no copy. strides (in elements) may be nil: C-contiguous.
// deleter, if not nil, runs exactly once when the last tensor using the memory (views
// included) goes, on whatever thread that happens (a cgo callback); never when FromBlob fails.
// A nil deleter leaves the memory to the caller, who keeps it valid while any tensor uses it.
func FromBlob(ptr unsafe.Pointer, shape, strides []int64, dtype DType, device Device, deleter func()) (*Tensor, error) {
	if strides != nil && len(strides) != len(shape) {
		return nil, goError("from_blob", CodeArgument, "strides has %d values, shape %d", len(strides), len(shape))
	}
	return newTensor("from_blob", func(out []int64) int {
		return capi.FromBlob(ptr, shape, strides, int32(dtype), int32(device.Type), int32(device.Index), deleter, &out[0])
	})
}
