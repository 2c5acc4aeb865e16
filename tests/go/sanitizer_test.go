package ctorch_test

// The stream sanitizer's binding (capi/ctorch.h section 24; cuda.SetSanitizerMode and friends):
// the mode constants against the C ones, the argument error, the report count, the Go callback
// (kept reachable while registered, released once cleared, called on the goroutine's thread and
// on a native thread Go has never seen with the report's exact bytes, a panic in it recovered)
// and ctorch.ErrDataRace. The C suite (tests/capi/sanitizer_test.c) owns the races themselves;
// the GPU cases here are the seed's side-stream race through the callback and the error,
// skipped (visibly) without CUDA. Each test puts the mode it found back (off unless
// CTORCH_CUDA_SANITIZER is set) and clears the callback.

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

// sanitizerTest remembers the mode and, at the end of the test, clears the callback and puts
// that mode back.
func sanitizerTest(t *testing.T) {
	t.Helper()
	before, err := cuda.GetSanitizerMode()
	noErr(t, err)
	t.Cleanup(func() {
		noErr(t, cuda.SetSanitizerCallback(nil))
		noErr(t, cuda.SetSanitizerMode(cuda.SanitizerOff)) // forgets what the test left
		noErr(t, cuda.SetSanitizerMode(before))
	})
}

func TestSanitizerModeRoundTrip(t *testing.T) {
	sanitizerTest(t)
	if int(cuda.SanitizerOff) != capi.CT_CSAN_OFF || int(cuda.SanitizerError) != capi.CT_CSAN_ERROR ||
		int(cuda.SanitizerWarn) != capi.CT_CSAN_WARN {
		t.Fatalf("modes %d %d %d", cuda.SanitizerOff, cuda.SanitizerError, cuda.SanitizerWarn)
	}
	for m, want := range map[cuda.SanitizerMode]string{cuda.SanitizerOff: "off", cuda.SanitizerError: "error",
		cuda.SanitizerWarn: "warn", 7: "SanitizerMode(7)"} {
		if m.String() != want {
			t.Errorf("%d.String() = %q, want %q", int32(m), m.String(), want)
		}
	}
	for _, m := range []cuda.SanitizerMode{cuda.SanitizerWarn, cuda.SanitizerOff, cuda.SanitizerError, cuda.SanitizerOff} {
		noErr(t, cuda.SetSanitizerMode(m))
		got, err := cuda.GetSanitizerMode()
		noErr(t, err)
		raw := []int32{-1}
		if got != m || capi.Ct_cuda_sanitizer_mode(raw) != 0 || raw[0] != int32(m) {
			t.Errorf("mode %v: got %v, C says %d", m, got, raw[0])
		}
	}
	for i := 0; i < 2; i++ { // enable_cuda_sanitizer(): error mode, also when on already
		noErr(t, cuda.EnableSanitizer())
		if m, err := cuda.GetSanitizerMode(); err != nil || m != cuda.SanitizerError {
			t.Errorf("after EnableSanitizer: %v, %v", m, err)
		}
	}
}

func TestSanitizerInvalidModeIsErrArgument(t *testing.T) {
	sanitizerTest(t)
	noErr(t, cuda.SetSanitizerMode(cuda.SanitizerWarn))
	e := wantErr(t, cuda.SetSanitizerMode(3), ctorch.ErrArgument)
	if !strings.Contains(e.Message, "unknown sanitizer mode 3") || e.Op != "cuda_sanitizer_set_mode" {
		t.Errorf("error %+v", e)
	}
	wantErr(t, cuda.SetSanitizerMode(-1), ctorch.ErrArgument)
	if m, err := cuda.GetSanitizerMode(); err != nil || m != cuda.SanitizerWarn {
		t.Errorf("a refused mode changed it: %v, %v", m, err)
	}
}

// CPU tensors are never checked: ops on them work in error mode and report nothing.
func TestSanitizerCPUOpsInErrorModeSucceed(t *testing.T) {
	sanitizerTest(t)
	s := newScope(t)
	noErr(t, cuda.EnableSanitizer())
	n, err := cuda.SanitizerReportCount()
	noErr(t, err)
	if n < 0 {
		t.Fatalf("report count %d", n)
	}
	a := s.T(ctorch.Ones([]int64{4}))
	b := s.T(a.Add(a))
	noErr(t, b.AddInPlace(a))
	eqF64(t, s.T(b.Sum()), 12)
	if n2, err := cuda.SanitizerReportCount(); err != nil || n2 != n {
		t.Errorf("report count %d -> %d (%v)", n, n2, err)
	}
}

// sanitizerSink collects reports with the OS thread each came on; its finalizer tells when the
// binding let go of the callback that holds it.
type sanitizerSink struct {
	mu      sync.Mutex
	reports []string
	tids    []int
	_       [32]byte // not a tiny allocation (those may never be finalized)
}

func (k *sanitizerSink) add(r string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.reports = append(k.reports, r)
	k.tids = append(k.tids, syscall.Gettid())
}

func (k *sanitizerSink) get() ([]string, []int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.reports...), append([]int(nil), k.tids...)
}

// registerSink registers a callback into a new sink that only the callback references; the
// callback copies the sink's reports and threads to *out and *outTids after each report. It
// returns the flag the sink's finalizer sets.
func registerSink(t *testing.T, out *[]string, outTids *[]int) *atomic.Bool {
	t.Helper()
	finalized := new(atomic.Bool)
	k := &sanitizerSink{}
	runtime.SetFinalizer(k, func(*sanitizerSink) { finalized.Store(true) })
	var mu sync.Mutex
	noErr(t, cuda.SetSanitizerCallback(func(r string) {
		k.add(r)
		rs, ts := k.get()
		mu.Lock()
		*out, *outTids = rs, ts
		mu.Unlock()
	}))
	return finalized
}

func gcRounds(n int) {
	for i := 0; i < n; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSanitizerCallbackKeptAndCalledFromAnyThread(t *testing.T) {
	sanitizerTest(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := syscall.Gettid()
	var got []string
	var tids []int
	finalized := registerSink(t, &got, &tids)
	gcRounds(3)
	if finalized.Load() {
		t.Fatal("the registered callback's sink was collected")
	}
	text := "CSAN race \u00fc \U0001F600\nsum\nnormal_\n"
	if !capi.SanitizerReportForTest(text, false) || !capi.SanitizerReportForTest(text, true) {
		t.Fatal("SanitizerReportForTest could not run")
	}
	if len(got) != 2 || got[0] != text || got[1] != text {
		t.Fatalf("reports %q", got)
	}
	if tids[0] != me || tids[1] == me {
		t.Errorf("threads %v: the first must be this goroutine's (%d), the second a new one", tids, me)
	}
	// replacing it lets the first go
	var got2 []string
	var tids2 []int
	finalized2 := registerSink(t, &got2, &tids2)
	if !capi.SanitizerReportForTest("again", true) || len(got2) != 1 || got2[0] != "again" || len(got) != 2 {
		t.Fatalf("after replacing: %q, %q", got, got2)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !finalized.Load() && time.Now().Before(deadline) {
		gcRounds(1)
	}
	if !finalized.Load() {
		t.Error("a replaced callback is still kept")
	}
	noErr(t, cuda.SetSanitizerCallback(nil))
	for !finalized2.Load() && time.Now().Before(deadline) {
		gcRounds(1)
	}
	if !finalized2.Load() {
		t.Error("a cleared callback is still kept")
	}
	capi.SanitizerReportForTest("after clearing\n", false) // goes to stderr, not to a callback
	if len(got2) != 1 {
		t.Errorf("a cleared callback was called: %q", got2)
	}
}

// A callback that panics: the panic is recovered in the binding (not unwound through C), and
// the next report and ops work.
func TestSanitizerPanickingCallbackDoesNotEscape(t *testing.T) {
	sanitizerTest(t)
	s := newScope(t)
	k := &sanitizerSink{}
	noErr(t, cuda.SetSanitizerCallback(func(r string) {
		k.add(r)
		panic("panicked in the test's sanitizer callback (expected)")
	}))
	capi.SanitizerReportForTest("first\n", false)
	capi.SanitizerReportForTest("second\n", true)
	if got, _ := k.get(); len(got) != 2 || got[0] != "first\n" || got[1] != "second\n" {
		t.Errorf("reports %q", got)
	}
	a := s.T(ctorch.Ones([]int64{2}))
	eqF64(t, s.T(a.MulScalar(3)), 3, 3)
}

func TestSanitizerErrDataRace(t *testing.T) {
	if ctorch.CodeDataRace != 202 || ctorch.StatusName(202) != "CT_ERR_DATA_RACE" {
		t.Fatalf("code %d %q", ctorch.CodeDataRace, ctorch.StatusName(202))
	}
	err := &ctorch.Error{Code: ctorch.CodeDataRace, Name: "CT_ERR_DATA_RACE", Message: "race", Op: "reduce"}
	wrapped := fmt.Errorf("step 3: %w", err)
	if !errors.Is(wrapped, ctorch.ErrDataRace) || errors.Is(wrapped, ctorch.ErrState) || !ctorch.IsDataRace(wrapped) ||
		ctorch.IsDataRace(ctorch.ErrTimeout) {
		t.Errorf("sentinels: %v", wrapped)
	}
}

// cudaNormal is A = empty(100, 100) on cuda, normal_ on the current stream.
func cudaNormal(s *scope) *ctorch.Tensor {
	a := s.T(ctorch.Empty([]int64{100, 100}, ctorch.Float32, ctorch.CUDA))
	if err := a.NormalInPlace(0, 1, nil); err != nil {
		s.t.Fatal(err)
	}
	return a
}

// sumOnSideStream is sum(a) on a new side stream, after side.WaitStream(current) when wait is
// set; it returns sum's error.
func sumOnSideStream(t *testing.T, s *scope, a *ctorch.Tensor, wait bool) error {
	t.Helper()
	runtime.LockOSThread() // the current stream is the thread's
	defer runtime.UnlockOSThread()
	cur, err := cuda.CurrentStream(-1)
	noErr(t, err)
	defer cur.Close()
	side, err := cuda.NewStream(-1, 0)
	noErr(t, err)
	defer side.Close()
	if wait {
		noErr(t, side.WaitStream(cur))
	}
	var sumErr error
	noErr(t, cuda.WithStream(side, func() error {
		b, err := a.Sum()
		sumErr = s.E(b, err)
		return nil
	}))
	noErr(t, cuda.Synchronize(-1)) // a stays valid until side is done with it
	return sumErr
}

func TestGPUSanitizerSideStreamRaceReportedThroughCallback(t *testing.T) {
	needGPUs(t, 1)
	sanitizerTest(t)
	s := newScope(t)
	noErr(t, cuda.SetSanitizerMode(cuda.SanitizerOff))
	noErr(t, cuda.SetSanitizerMode(cuda.SanitizerWarn))
	k := &sanitizerSink{}
	noErr(t, cuda.SetSanitizerCallback(k.add))
	runtime.GC()
	n0, err := cuda.SanitizerReportCount()
	noErr(t, err)
	noErr(t, sumOnSideStream(t, s, cudaNormal(s), false))
	got, _ := k.get()
	if len(got) != 1 {
		t.Fatalf("%d reports, want 1: %q", len(got), got)
	}
	for _, want := range []string{"CSAN detected a possible data race", "during kernel:\nsum\nreading from argument(s) self\n",
		"during kernel:\nnormal_\nwriting to argument(s) self\n"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("report without %q:\n%s", want, got[0])
		}
	}
	if n, _ := cuda.SanitizerReportCount(); n != n0+1 {
		t.Errorf("report count %d, want %d", n, n0+1)
	}
	noErr(t, sumOnSideStream(t, s, cudaNormal(s), true))
	if got, _ = k.get(); len(got) != 1 {
		t.Errorf("with WaitStream: %d reports, want 1: %q", len(got), got)
	}
}

func TestGPUSanitizerSideStreamRaceIsErrDataRace(t *testing.T) {
	needGPUs(t, 1)
	sanitizerTest(t)
	s := newScope(t)
	noErr(t, cuda.SetSanitizerMode(cuda.SanitizerOff))
	noErr(t, cuda.EnableSanitizer())
	n0, err := cuda.SanitizerReportCount()
	noErr(t, err)
	e := wantErr(t, sumOnSideStream(t, s, cudaNormal(s), false), ctorch.ErrDataRace)
	if !strings.Contains(e.Message, "The CUDA stream sanitizer detected 1 error (sum") ||
		!strings.Contains(e.Message, "during kernel:\nnormal_\nwriting to argument(s) self\n") {
		t.Errorf("message:\n%s", e.Message)
	}
	if n, _ := cuda.SanitizerReportCount(); n != n0+1 {
		t.Errorf("report count %d, want %d", n, n0+1)
	}
	noErr(t, sumOnSideStream(t, s, cudaNormal(s), true))
	if n, _ := cuda.SanitizerReportCount(); n != n0+1 {
		t.Errorf("with WaitStream: report count %d, want %d", n, n0+1)
	}
}
