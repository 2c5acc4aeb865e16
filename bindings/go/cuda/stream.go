package cuda

// Streams: torch.cuda.Stream, the stream functions of torch.cuda and the stream guard
// (capi/ctorch.h section 13).

import (
	"fmt"
	"math"
	"runtime"
	"strings"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

// Stream is torch.cuda.Stream: it owns one reference (handle) to a CUDA stream of one device.
//
// Close releases it (idempotent, safe on a nil *Stream); a finalizer releases a Stream that
// becomes unreachable without Close. Closing a Stream does not destroy a CUDA stream that is
// still current somewhere, or that tensors recorded work on: the library keeps it alive while
// it is used. Using a nil or closed Stream returns an error matching ctorch.ErrInvalidHandle.
//
// Several Stream values can stand for the same CUDA stream (CurrentStream returns a new one on
// every call): compare them with Equal, which compares device and CUDA handle, as PyTorch's ==.
// A Stream must not be copied by value.
type Stream struct{ o capi.Owned }

func wrapStream(h int64) *Stream {
	s := &Stream{}
	s.o.Set(h)
	runtime.SetFinalizer(s, (*Stream).finalize)
	return s
}

func (s *Stream) finalize() { s.o.Finalize(capi.StreamRelease) }

// Close releases the stream's handle. Closing twice, or closing a nil *Stream, does nothing and
// returns nil.
func (s *Stream) Close() error {
	if s == nil {
		return nil
	}
	return failed("stream_release", s.o.Release(s, capi.StreamRelease))
}

// Closed reports whether s is nil or has been closed.
func (s *Stream) Closed() bool { return s.Handle() == 0 }

// Handle returns the raw ct_stream handle (0 for a nil or closed Stream), still owned by s;
// keep s alive (runtime.KeepAlive) while C code of your own uses it. It also makes *Stream a
// ctorch.CUDAStream, for Tensor.RecordStream.
func (s *Stream) Handle() int64 {
	if s == nil {
		return 0
	}
	return s.o.Get()
}

func (s *Stream) handle(op string) (int64, error) {
	if h := s.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(s == nil, "Stream"))
}

// Ref returns a second Stream holding a new reference to the same stream (ct_stream_retain):
// the same handle, r.Equal(s). Close both.
func (s *Stream) Ref() (*Stream, error) {
	h, err := s.handle("stream_retain")
	if err == nil {
		err = call("stream_retain", func() int { return capi.Ct_stream_retain(h) })
	}
	runtime.KeepAlive(s)
	if err != nil {
		return nil, err
	}
	return wrapStream(h), nil
}

// newStream runs f, which stores a new stream reference in out[0], and wraps the result.
func newStream(op string, f func(out []int64) int) (*Stream, error) {
	out := []int64{0}
	if err := call(op, func() int { return f(out) }); err != nil {
		return nil, err
	}
	return wrapStream(out[0]), nil
}

func clampInt32(v int) int {
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	if v < math.MinInt32 {
		return math.MinInt32
	}
	return v
}

// NewStream is torch.cuda.Stream(device, priority): a new stream on device (-1: the current
// device of the calling thread). Lower numbers are higher priorities; 0 is the default, and
// priorities outside StreamPriorityRange are clamped to it (as CUDA and PyTorch do).
// ErrCUDAUnavailable without a GPU, ErrIndex for a device that is not visible.
func NewStream(device, priority int) (*Stream, error) {
	if err := checkIndex("stream_create", device); err != nil {
		return nil, err
	}
	p := clampInt32(priority)
	return newStream("stream_create", func(out []int64) int { return capi.Ct_stream_create(device, p, out) })
}

// StreamPriorityRange is torch.cuda.Stream.priority_range(): the least (numerically largest,
// 0) and the greatest (most negative) stream priority.
func StreamPriorityRange() (least, greatest int, err error) {
	l, g := []int32{0}, []int32{0}
	err = call("stream_priority_range", func() int { return capi.Ct_stream_priority_range(l, g) })
	return int(l[0]), int(g[0]), err
}

// DefaultStream is torch.cuda.default_stream(device): the default (NULL) stream of device (-1:
// the current device). Its CUDAHandle is 0.
func DefaultStream(device int) (*Stream, error) {
	if err := checkIndex("stream_default", device); err != nil {
		return nil, err
	}
	return newStream("stream_default", func(out []int64) int { return capi.Ct_stream_default(device, out) })
}

// CurrentStream is torch.cuda.current_stream(device): the current stream of device (-1: the
// current device) for the calling OS thread (see the package notes on threads). It is the
// device's default stream until SetStream or WithStream changes it.
func CurrentStream(device int) (*Stream, error) {
	if err := checkIndex("stream_current", device); err != nil {
		return nil, err
	}
	return newStream("stream_current", func(out []int64) int { return capi.Ct_stream_current(device, out) })
}

// SetStream is torch.cuda.set_stream(s): makes s the current stream of its device for the
// calling OS thread. The setting stays with the thread, not the goroutine: lock the goroutine
// first (runtime.LockOSThread), or use WithStream. A nil *Stream does nothing, as
// torch.cuda.set_stream(None); a closed one is ErrInvalidHandle.
func SetStream(s *Stream) error {
	if s == nil {
		return nil
	}
	return s.do("stream_set_current", capi.Ct_stream_set_current)
}

// do runs f on s's handle, keeping s alive.
func (s *Stream) do(op string, f func(h int64) int) error {
	h, err := s.handle(op)
	if err != nil {
		return err
	}
	err = call(op, func() int { return f(h) })
	runtime.KeepAlive(s)
	return err
}

// WithStream is `with torch.cuda.stream(s):`: it locks the calling goroutine to its OS thread,
// makes s's device the current device and s its current stream, runs fn, and restores the
// previous stream and device (also when fn returns an error or panics) before unlocking. A nil
// *Stream changes nothing (fn still runs, locked, as torch.cuda.stream(None)); a closed one is
// ErrInvalidHandle and fn does not run. It returns fn's error, or the error of entering or
// leaving the guard. A nil fn is ctorch.ErrNullPointer (nothing changes).
func WithStream(s *Stream, fn func() error) (err error) {
	if fn == nil {
		return failed("stream_guard_enter", capi.NilFunc())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if s == nil {
		return fn()
	}
	h, err := s.handle("stream_guard_enter")
	if err != nil {
		return err
	}
	prevStream, prevDevice := []int64{0}, []int32{0}
	err = call("stream_guard_enter", func() int { return capi.Ct_stream_guard_enter(h, prevStream, prevDevice) })
	runtime.KeepAlive(s)
	if err != nil {
		return err
	}
	defer func() {
		// ct_stream_guard_exit releases prev_stream, also when the restore fails.
		ps, pd := prevStream[0], int(prevDevice[0])
		if rerr := call("stream_guard_exit", func() int { return capi.Ct_stream_guard_exit(ps, pd) }); rerr != nil && err == nil {
			err = rerr
		}
	}()
	return fn()
}

// ExternalStream is torch.cuda.ExternalStream(ptr, device): wraps a cudaStream_t that the
// caller created and owns (its value as a uintptr, e.g. uintptr(unsafe.Pointer(cs)) in cgo) on
// device (-1: the current device). ctorch never destroys it; keep it alive while ctorch may use
// it, including until tensors allocated while it was current are freed.
func ExternalStream(ptr uintptr, device int) (*Stream, error) {
	if err := checkIndex("stream_external", device); err != nil {
		return nil, err
	}
	return newStream("stream_external", func(out []int64) int { return capi.Ct_stream_external(int64(ptr), device, out) })
}

func (s *Stream) int32Query(op string, f func(h int64, out []int32) int) (int, error) {
	h, err := s.handle(op)
	if err != nil {
		return 0, err
	}
	out := []int32{0}
	err = call(op, func() int { return f(h, out) })
	runtime.KeepAlive(s)
	return int(out[0]), err
}

// DeviceIndex is stream.device_index: the index of the stream's CUDA device.
func (s *Stream) DeviceIndex() (int, error) {
	return s.int32Query("stream_device", capi.Ct_stream_device)
}

// Device is stream.device: ctorch.CUDADevice(DeviceIndex()).
func (s *Stream) Device() (ctorch.Device, error) {
	d, err := s.DeviceIndex()
	if err != nil {
		return ctorch.Device{}, err
	}
	return ctorch.CUDADevice(d), nil
}

// Priority is stream.priority.
func (s *Stream) Priority() (int, error) {
	return s.int32Query("stream_priority", capi.Ct_stream_priority)
}

// CUDAHandle is stream.cuda_stream: the cudaStream_t's value (0 for a default stream).
func (s *Stream) CUDAHandle() (uintptr, error) {
	h, err := s.handle("stream_cuda_handle")
	if err != nil {
		return 0, err
	}
	out := []int64{0}
	err = call("stream_cuda_handle", func() int { return capi.Ct_stream_cuda_handle(h, out) })
	runtime.KeepAlive(s)
	return uintptr(out[0]), err
}

// Synchronize is stream.synchronize(): waits until all work queued on s is done. ErrState when
// the sync debug mode is SyncDebugError (PyTorch reports stream synchronization too).
func (s *Stream) Synchronize() error { return s.do("stream_synchronize", capi.Ct_stream_synchronize) }

// Query is stream.query(): whether all work queued on s is done (it never waits).
func (s *Stream) Query() (bool, error) {
	v, err := s.int32Query("stream_query", capi.Ct_stream_query)
	return v != 0, err
}

// WaitStream is stream.wait_stream(other): work queued on s after this call waits for the work
// queued on other before it.
func (s *Stream) WaitStream(other *Stream) error {
	return s.withOther("stream_wait_stream", other, other.handle, capi.Ct_stream_wait_stream)
}

// withOther runs f on s's handle and other's (from handle), keeping both alive.
func (s *Stream) withOther(op string, other any, handle func(op string) (int64, error), f func(h, o int64) int) error {
	h, err := s.handle(op)
	if err != nil {
		return err
	}
	oh, err := handle(op)
	if err != nil {
		return err
	}
	err = call(op, func() int { return f(h, oh) })
	runtime.KeepAlive(s)
	runtime.KeepAlive(other)
	return err
}

// WaitEvent is stream.wait_event(e): work queued on s after this call waits for the work that
// e recorded (nothing, for an event never recorded).
func (s *Stream) WaitEvent(e *Event) error {
	return s.withOther("stream_wait_event", e, e.handle, capi.Ct_stream_wait_event)
}

// RecordEvent is stream.record_event(event=None): records e on s and returns e. With a nil e it
// creates a new Event (EventDefault flags), records it and returns it; the caller closes it.
// (When e is given, the result is e itself, not a new reference: close e once.)
func (s *Stream) RecordEvent(e *Event) (*Event, error) {
	h, err := s.handle("stream_record_event")
	if err != nil {
		return nil, err
	}
	created := false
	if e == nil {
		if e, err = NewEvent(EventDefault); err != nil {
			return nil, err
		}
		created = true
	}
	eh, err := e.handle("stream_record_event")
	if err != nil {
		return nil, err
	}
	err = call("stream_record_event", func() int { return capi.Ct_stream_record_event(h, eh) })
	runtime.KeepAlive(s)
	runtime.KeepAlive(e)
	if err != nil {
		if created {
			e.Close()
		}
		return nil, err
	}
	return e, nil
}

// MemoryStat is a per-stream figure of the caching allocator, which PyTorch lacks
// (ct_cuda_memory_stream_stat): a memory_stats-style value of the blocks and segments
// allocated while s was the current stream of its device. key is one of allocation,
// allocated_bytes, requested_bytes, active, active_bytes, segment, reserved_bytes, followed by
// .current, .peak, .allocated or .freed, e.g. "allocated_bytes.current" (no ".all" or pool
// part). Peaks and totals reset with the device's (ResetPeakMemoryStats,
// ResetAccumulatedMemoryStats); a stream that never allocated has zeros. ctorch.ErrArgument for
// an unknown key, ctorch.ErrNotSupported without the native allocator backend,
// ctorch.ErrInvalidHandle for a nil or closed Stream.
func (s *Stream) MemoryStat(key string) (int64, error) {
	const op = "cuda_memory_stream_stat"
	h, err := s.handle(op)
	if err != nil {
		return 0, err
	}
	if strings.IndexByte(key, 0) >= 0 {
		return 0, goError(op, ctorch.CodeArgument, "key %q contains a NUL byte", key)
	}
	out := []int64{0}
	err = call(op, func() int { return capi.Ct_cuda_memory_stream_stat(h, key, out) })
	runtime.KeepAlive(s)
	return out[0], err
}

// Equal is stream == other in PyTorch: both are open and stand for the same CUDA stream (the
// same device and CUDA handle), whichever handles they hold.
func (s *Stream) Equal(other *Stream) bool {
	if s.Closed() || other.Closed() {
		return false
	}
	d1, err1 := s.DeviceIndex()
	d2, err2 := other.DeviceIndex()
	c1, err3 := s.CUDAHandle()
	c2, err4 := other.CUDAHandle()
	return err1 == nil && err2 == nil && err3 == nil && err4 == nil && d1 == d2 && c1 == c2
}

// String prints the stream as PyTorch does: "<torch.cuda.Stream device=cuda:0
// cuda_stream=0x5581e6f3c9a0>" ("<torch.cuda.Stream closed>" once closed).
func (s *Stream) String() string {
	if s.Closed() {
		return "<torch.cuda.Stream closed>"
	}
	d, err := s.Device()
	if err != nil {
		return "<torch.cuda.Stream " + err.Error() + ">"
	}
	c, err := s.CUDAHandle()
	if err != nil {
		return "<torch.cuda.Stream " + err.Error() + ">"
	}
	return fmt.Sprintf("<torch.cuda.Stream device=%v cuda_stream=%#x>", d, c)
}

// LiveStreamCount returns the number of live stream handles in the process (leak checks).
func LiveStreamCount() (int64, error) {
	out := []int64{0}
	err := call("live_stream_count", func() int { return capi.Ct_live_stream_count(out) })
	return out[0], err
}

var _ ctorch.CUDAStream = (*Stream)(nil)
