package cuda

// Events: torch.cuda.Event (capi/ctorch.h section 14).

import (
	"runtime"

	"ctorch.dev/ctorch/internal/capi"
)

// EventFlags are the options of NewEvent, ORed together: EventDefault (torch.cuda.Event()),
// EventEnableTiming (enable_timing=True: ElapsedTime works, at a small cost), EventBlocking
// (blocking=True: Synchronize yields the CPU instead of spinning); abi_gen.go, from
// capi/abi.toml.
type EventFlags int32

// Event is torch.cuda.Event: it owns one reference (handle) to a CUDA event. The CUDA event
// itself is created at the first Record, on the recording stream's device, so events can be
// created (and queried: true) on a machine without a GPU.
//
// Close releases it (idempotent, safe on a nil *Event); a finalizer releases an Event that
// becomes unreachable without Close. Using a nil or closed Event returns an error matching
// ctorch.ErrInvalidHandle. An Event must not be copied by value.
type Event struct{ o capi.Owned }

func wrapEvent(h int64) *Event {
	e := &Event{}
	e.o.Set(h)
	runtime.SetFinalizer(e, (*Event).finalize)
	return e
}

func (e *Event) finalize() { e.o.Finalize(capi.EventRelease) }

// NewEvent is torch.cuda.Event(enable_timing=, blocking=): flags is EventDefault or an OR of
// EventEnableTiming and EventBlocking (ErrArgument for other bits). Works without a GPU.
func NewEvent(flags EventFlags) (*Event, error) {
	out := []int64{0}
	if err := call("event_create", func() int { return capi.Ct_event_create(int(flags), out) }); err != nil {
		return nil, err
	}
	return wrapEvent(out[0]), nil
}

// Close releases the event's handle. Closing twice, or closing a nil *Event, does nothing and
// returns nil.
func (e *Event) Close() error {
	if e == nil {
		return nil
	}
	return failed("event_release", e.o.Release(e, capi.EventRelease))
}

// Closed reports whether e is nil or has been closed.
func (e *Event) Closed() bool { return e.Handle() == 0 }

// Handle returns the raw ct_event handle (0 for a nil or closed Event), still owned by e.
func (e *Event) Handle() int64 {
	if e == nil {
		return 0
	}
	return e.o.Get()
}

func (e *Event) handle(op string) (int64, error) {
	if h := e.Handle(); h != 0 {
		return h, nil
	}
	return 0, failed(op, capi.Unusable(e == nil, "Event"))
}

// Ref returns a second Event holding a new reference to the same event (ct_event_retain).
// Close both.
func (e *Event) Ref() (*Event, error) {
	h, err := e.handle("event_retain")
	if err == nil {
		err = call("event_retain", func() int { return capi.Ct_event_retain(h) })
	}
	runtime.KeepAlive(e)
	if err != nil {
		return nil, err
	}
	return wrapEvent(h), nil
}

// streamArg is the handle of an optional stream: 0 (the current stream) for nil, an error for
// a closed one.
func streamArg(op string, s *Stream) (int64, error) {
	if s == nil {
		return 0, nil
	}
	return s.handle(op)
}

// Record is event.record(stream): records e on s, or on the current stream of the current
// device of the calling thread when s is nil (see the package notes on threads). ErrDevice
// when e was recorded before on another device.
func (e *Event) Record(s *Stream) error { return e.withStream("event_record", s, capi.Ct_event_record) }

// Wait is event.wait(stream): work queued on s (nil: the current stream) after this call waits
// for the work e recorded (nothing, for an event never recorded).
func (e *Event) Wait(s *Stream) error { return e.withStream("event_wait", s, capi.Ct_event_wait) }

func (e *Event) withStream(op string, s *Stream, f func(e, s int64) int) error {
	h, err := e.handle(op)
	if err != nil {
		return err
	}
	sh, err := streamArg(op, s)
	if err != nil {
		return err
	}
	err = call(op, func() int { return f(h, sh) })
	runtime.KeepAlive(e)
	runtime.KeepAlive(s)
	return err
}

// Query is event.query(): whether the work e recorded is done (true for an event never
// recorded). It never waits.
func (e *Event) Query() (bool, error) {
	h, err := e.handle("event_query")
	if err != nil {
		return false, err
	}
	out := []int32{0}
	err = call("event_query", func() int { return capi.Ct_event_query(h, out) })
	runtime.KeepAlive(e)
	return out[0] != 0, err
}

// Synchronize is event.synchronize(): waits until the work e recorded is done (returns at once
// for an event never recorded). Not reported by the sync debug mode, as in PyTorch.
func (e *Event) Synchronize() error {
	h, err := e.handle("event_synchronize")
	if err != nil {
		return err
	}
	err = call("event_synchronize", func() int { return capi.Ct_event_synchronize(h) })
	runtime.KeepAlive(e)
	return err
}

// ElapsedTime is start.elapsed_time(end): milliseconds between e (the start) and end. Both
// must be EventEnableTiming events and recorded (ErrState otherwise), on one device (ErrDevice),
// and end must be done: call end.Synchronize() first (the CUDA runtime's "not ready" comes back
// as ErrCUDA otherwise).
func (e *Event) ElapsedTime(end *Event) (float64, error) {
	h, err := e.handle("event_elapsed_time")
	if err != nil {
		return 0, err
	}
	eh, err := end.handle("event_elapsed_time")
	if err != nil {
		return 0, err
	}
	out := []float64{0}
	err = call("event_elapsed_time", func() int { return capi.Ct_event_elapsed_time(h, eh, out) })
	runtime.KeepAlive(e)
	runtime.KeepAlive(end)
	return out[0], err
}

// LiveEventCount returns the number of live event handles in the process (leak checks).
func LiveEventCount() (int64, error) {
	out := []int64{0}
	err := call("live_event_count", func() int { return capi.Ct_live_event_count(out) })
	return out[0], err
}
