package capi

import (
	"fmt"
	"runtime"
)

// Failure is a failed native call: its status code, the code's name and the message that the
// library stored for it.
type Failure struct {
	Code    int
	Name    string
	Message string
}

// Call runs f, which makes one or more native calls and returns the final ct_status, with the
// calling goroutine locked to its OS thread. When the status is not CT_OK it reads the
// thread-local error message on that same thread before unlocking.
//
// Why: ctorch keeps the message of the last failure in C thread-local storage, and the Go
// scheduler may move a goroutine to another OS thread between two cgo calls (and run another
// goroutine on this one). Without the lock, the message read after a failure could be another
// goroutine's, or none at all. Every fallible native call of this module goes through Call,
// except the direct calls of direct.go, which read the message inside the failing cgo call.
func Call(f func() int) *Failure {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if st := f(); st != 0 {
		return lastFailure(st)
	}
	return nil
}

// lastFailure reads (and then clears) this thread's last error. The thread must be locked and
// the failing call must be the last ctorch call made on it.
func lastFailure(st int) *Failure {
	f := &Failure{Code: st, Name: Ct_status_name(st)}
	if code := Ct_last_error_code(); code != st {
		// Cannot happen with a conforming library; never report somebody else's message.
		f.Message = fmt.Sprintf("(no message: the thread's last error code is %d)", code)
		return f
	}
	// The "ask for the length with cap 0, then copy" pattern of ct_last_error_copy.
	if n := Ct_last_error_copy(nil, 0); n > 0 {
		buf := make([]byte, n+1)
		if m := Ct_last_error_copy(buf, int64(len(buf))); m < n {
			n = m
		}
		f.Message = string(buf[:n])
	}
	Ct_clear_error()
	return f
}

// LastErrorMessage returns ct_last_error_message() of the calling OS thread. It is meaningful
// only while the caller's goroutine is locked to its thread (runtime.LockOSThread) since the
// failing call.
func LastErrorMessage() string { return Ct_last_error_message() }

// EnumName is names[v], or "typ(v)" for a value beyond names: the String method of the
// binding's small enum types (ctorch.DeviceType, ctorch.FFTNorm, cuda.SyncDebugMode).
func EnumName(names []string, v int32, typ string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}
