package ctorch

import (
	"runtime"

	"ctorch.dev/ctorch/internal/capi"
)

// PinMemory is tensor.pin_memory(): a copy of a CPU tensor in page-locked host memory, from
// which non-blocking copies to a GPU (t.To(ctorch.CUDA, ctorch.NonBlocking())) are truly
// asynchronous. ErrDevice for a CUDA tensor, ErrCUDAUnavailable without CUDA.
func (t *Tensor) PinMemory() (*Tensor, error) {
	return t.method1("pin_memory", capi.Ct_tensor_pin_memory)
}

// IsPinned is tensor.is_pinned(): whether t's storage is pinned host memory. It works without
// a GPU (false). False for a closed tensor (IsPinnedErr reports the error).
func (t *Tensor) IsPinned() bool {
	v, _ := t.IsPinnedErr()
	return v
}

// IsPinnedErr is IsPinned with the error of a closed tensor.
func (t *Tensor) IsPinnedErr() (bool, error) {
	v, err := t.query("is_pinned", capi.QueryIsPinned, 0)
	return v != 0, err
}

// CUDAStream is a CUDA stream as RecordStream takes it: a *cuda.Stream of package
// ctorch.dev/ctorch/cuda. (The interface exists because package cuda imports this one.)
// Handle returns the stream's ct_stream handle, 0 for a nil or closed stream.
type CUDAStream interface {
	Handle() int64
}

// RecordStream is tensor.record_stream(stream): tells the caching allocator that t's memory is
// in use on stream s, so that it is not reused before the work queued on s up to the moment t
// is freed is done. t must be a CUDA tensor on s's device (ErrDevice otherwise); a nil or
// closed stream is ErrInvalidHandle.
func (t *Tensor) RecordStream(s CUDAStream) error {
	h, err := t.handle("record_stream")
	if err != nil {
		return err
	}
	var sh int64
	if s != nil {
		sh = s.Handle()
	}
	if sh == 0 {
		return goError("record_stream", CodeInvalidHandle, "nil or closed Stream")
	}
	err = run("record_stream", func() int { return capi.Ct_tensor_record_stream(h, sh) }, t)
	runtime.KeepAlive(s)
	return err
}
