// Tests of the Go binding (package ctorch.dev/ctorch). tools/go_test.sh copies these files
// into the root directory of the assembled module, so they build as package ctorch_test of it.
package ctorch_test

import (
	"errors"
	"fmt"
	"math/cmplx"
	"os"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// testDevice is the seed's device-agnostic choice: "cuda" if available else "cpu". (No
// fallback: on a GPU host a failure to make CUDA tensors must fail the suite, not hide.)
func testDevice() ctorch.Device {
	devOnce.Do(func() {
		dev = ctorch.CPU
		if cuda.IsAvailable() {
			dev = ctorch.CUDA
		}
	})
	return dev
}

// resolved is d with a CUDA index of -1 ("cuda") replaced by the current device, as tensors
// report their device.
func resolved(d ctorch.Device) ctorch.Device {
	if d.IsCUDA() && d.Index < 0 {
		if cur, err := cuda.CurrentDevice(); err == nil {
			return ctorch.CUDADevice(cur)
		}
	}
	return d
}

// cudaTensors reports whether the suite runs on CUDA (a GPU is available).
func cudaTensors() bool { return testDevice().IsCUDA() }

var (
	devOnce sync.Once
	dev     ctorch.Device
)

func TestMain(m *testing.M) {
	d := testDevice()
	fmt.Printf("test device: %v (cuda available: %v, %d devices)\n", d, cuda.IsAvailable(), cuda.DeviceCount())
	os.Exit(m.Run())
}

// scope tracks the tensors a test creates, closes them at the end and then checks that the
// live tensor count is back to its value at the start of the test.
type scope struct {
	t  *testing.T
	ts []*ctorch.Tensor
}

// setup is the start of most tests: a scope and the device they run on.
func setup(t *testing.T) (*scope, ctorch.Device) {
	t.Helper()
	return newScope(t), testDevice()
}

func newScope(t *testing.T) *scope {
	t.Helper()
	start := liveCount(t)
	s := &scope{t: t}
	t.Cleanup(func() {
		if n := liveCount(t); n != start {
			t.Errorf("live tensor count is %d at the end of the test, want %d (its value at the start)", n, start)
		}
	})
	t.Cleanup(func() { // runs first (cleanups are LIFO)
		for _, x := range s.ts {
			if err := x.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
	return s
}

// T takes the (tensor, error) result of a ctorch call: fails the test on error, else keeps the
// tensor for closing at the end.
func (s *scope) T(x *ctorch.Tensor, err error) *ctorch.Tensor {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("unexpected error: %v", err)
	}
	s.ts = append(s.ts, x)
	return x
}

// E takes the (tensor, error) result of a call expected to fail and returns the error; a
// tensor returned anyway is closed at the end of the test.
func (s *scope) E(x *ctorch.Tensor, err error) error {
	s.ts = append(s.ts, x)
	return err
}

// keep registers a tensor that came with an error checked elsewhere.
func (s *scope) keep(x ...*ctorch.Tensor) {
	s.ts = append(s.ts, x...)
}

func liveCount(t *testing.T) int64 {
	t.Helper()
	n, err := ctorch.LiveTensorCount()
	if err != nil {
		t.Fatalf("LiveTensorCount: %v", err)
	}
	return n
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// wantErr checks that err is a *ctorch.Error matching sentinel, with its name and a message.
func wantErr(t *testing.T, err error, sentinel error) *ctorch.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", sentinel)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want an error matching %v", err, sentinel)
	}
	var e *ctorch.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not a *ctorch.Error", err)
	}
	if e.Name != sentinel.(*ctorch.Error).Name {
		t.Errorf("error name %q, want %q", e.Name, sentinel.(*ctorch.Error).Name)
	}
	if e.Message == "" {
		t.Errorf("error %v has no message", err)
	}
	return e
}

func eqShape(t *testing.T, x *ctorch.Tensor, want ...int64) {
	t.Helper()
	got := x.Shape()
	if want == nil {
		want = []int64{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shape %v, want %v", got, want)
	}
}

func eqDType(t *testing.T, x *ctorch.Tensor, want ctorch.DType) {
	t.Helper()
	if got := x.DType(); got != want {
		t.Errorf("dtype %v, want %v", got, want)
	}
}

// near checks x's values, read as complex128 (so any dtype), against want within tol; NaN
// matches NaN.
func near(t *testing.T, x *ctorch.Tensor, tol float64, want ...complex128) {
	t.Helper()
	got, err := x.Complex128s()
	noErr(t, err)
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = cmplx.Abs(got[i]-want[i]) <= tol || (cmplx.IsNaN(got[i]) && cmplx.IsNaN(want[i]))
	}
	if !ok {
		t.Fatalf("values %v, want %v (tolerance %g)", got, want, tol)
	}
}

func nearF64(t *testing.T, x *ctorch.Tensor, tol float64, want ...float64) {
	t.Helper()
	c := make([]complex128, len(want))
	for i, w := range want {
		c[i] = complex(w, 0)
	}
	near(t, x, tol, c...)
}

func eqF64(t *testing.T, x *ctorch.Tensor, want ...float64) {
	t.Helper()
	nearF64(t, x, 0, want...)
}

func eqI64(t *testing.T, x *ctorch.Tensor, want ...int64) {
	t.Helper()
	got, err := x.Int64s()
	noErr(t, err)
	if want == nil {
		want = []int64{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("values %v, want %v", got, want)
	}
}

func eqBool(t *testing.T, x *ctorch.Tensor, want ...bool) {
	t.Helper()
	got, err := x.Bools()
	noErr(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("values %v, want %v", got, want)
	}
}

func eqRepr(t *testing.T, x *ctorch.Tensor, want string) {
	t.Helper()
	got, err := x.Repr()
	noErr(t, err)
	if got != want {
		t.Errorf("repr %q, want %q", got, want)
	}
}

// collect runs the garbage collector and gives the finalizers a moment.
func collect() {
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
}

// collectUntil runs the garbage collector until count (live tensors, streams, ...) is at most
// want, for at most 20 seconds, and fails the test if it is not want then: the finalizers must
// release what was dropped without Close.
func collectUntil(t *testing.T, what string, count func(*testing.T) int64, want int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	n := count(t)
	for n > want && time.Now().Before(deadline) {
		collect()
		n = count(t)
	}
	if n != want {
		t.Errorf("%d live %s after collecting, want %d", n, what, want)
	}
}
