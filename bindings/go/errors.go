package ctorch

import (
	"errors"
	"fmt"
	"runtime"

	"ctorch.dev/ctorch/internal/capi"
)

// Error is a failed ctorch call. Code is the ct_status of capi/ctorch.h (grouped by range:
// 1xx argument, 2xx state, 3xx device, 4xx memory, 5xx not supported, 9xx internal), Name
// its name ("CT_ERR_SHAPE") and Message the library's explanation, read on the same OS thread
// right after the failing call. Op names the Go operation that failed ("add", "view", ...).
//
// Compare with the sentinels using errors.Is, which matches on the code:
//
//	if errors.Is(err, ctorch.ErrShape) { ... }
//
// or get at the fields with errors.As:
//
//	var e *ctorch.Error
//	if errors.As(err, &e) { log.Print(e.Code, e.Message) }
type Error struct {
	Code    int
	Name    string
	Message string
	Op      string
}

func (e *Error) Error() string {
	s := "ctorch: "
	if e.Op != "" {
		s += e.Op + ": "
	}
	s += fmt.Sprintf("%s (%d)", e.Name, e.Code)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is reports whether target is an *Error with the same code (and, when the target sets them,
// the same Op and Message). This makes errors.Is(err, ErrOutOfMemory) work.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || t == nil {
		return false
	}
	return t.Code == e.Code && (t.Op == "" || t.Op == e.Op) &&
		(t.Message == "" || t.Message == e.Message)
}

// Timeout reports whether the error is CodeTimeout (a wait, or a communicator's collective,
// ran past its timeout), the method that net.Error and os.IsTimeout look for.
func (e *Error) Timeout() bool { return e.Code == CodeTimeout }

// IsTimeout reports whether err is (or wraps) a ctorch timeout (ErrTimeout): an NCCL
// communicator's initialization, wait or collective that ran past its timeout.
func IsTimeout(err error) bool { return errors.Is(err, ErrTimeout) }

// IsDataRace reports whether err is (or wraps) a race the CUDA stream sanitizer found in its
// error mode (ErrDataRace; cuda.SetSanitizerMode): the failing op's kernel was queued, and the
// message holds the report.
func IsDataRace(err error) bool { return errors.Is(err, ErrDataRace) }

// sentinel makes the Err* values of abi_gen.go, one per status code of capi/abi.toml (with the
// Code* constants); ErrOutOfMemory means a host or device allocation failed after the caching
// allocator freed its cached blocks and retried, and its message says how much was asked for and
// how much is free, allocated and reserved.
func sentinel(code int, name string) *Error { return &Error{Code: code, Name: name} }

// IsOutOfMemory reports whether err is (or wraps) an out-of-memory *Error.
func IsOutOfMemory(err error) bool { return errors.Is(err, ErrOutOfMemory) }

// StatusName returns the name of a status code ("CT_ERR_SHAPE"; "CT_UNKNOWN" if unknown).
func StatusName(code int) string { return capi.Ct_status_name(code) }

// LastErrorMessage returns the message of the last failed ctorch call on the calling OS thread.
// Every function of this package already returns that message in Error.Message, read on the
// right thread; LastErrorMessage is only meaningful while the calling goroutine has been locked
// to its thread (runtime.LockOSThread) since the failing call, e.g. around a call made through
// a cgo function of your own.
func LastErrorMessage() string { return capi.LastErrorMessage() }

// call runs f (native calls returning a ct_status) through capi.Call, which locks the OS
// thread around both the call and the read of the thread-local message.
func call(op string, f func() int) error {
	if fl := capi.Call(f); fl != nil {
		return failed(op, fl)
	}
	return nil
}

// failed is the error of a failure that internal/capi's direct calls report (nil for none).
func failed(op string, f *capi.Failure) error {
	if f == nil {
		return nil
	}
	return &Error{Code: f.Code, Name: f.Name, Message: f.Message, Op: op}
}

// goError is an error found by the Go layer itself before any native call (closed tensor,
// argument out of the C types' range...). It uses the code the C layer would have used.
func goError(op string, code int, format string, args ...any) error {
	return &Error{Code: code, Name: capi.Ct_status_name(code), Message: fmt.Sprintf(format, args...), Op: op}
}

// keepAlive keeps every tensor reachable up to this point (so that no finalizer releases a
// handle while a native call is using it).
func keepAlive(ts ...*Tensor) {
	for _, t := range ts {
		runtime.KeepAlive(t)
	}
}
