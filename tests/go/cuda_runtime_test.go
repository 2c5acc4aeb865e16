package ctorch_test

// The CUDA runtime API (torch.cuda devices, guards, streams, events, pinned memory) on any
// machine: build information, the sync debug mode, events without a GPU, nil/closed handles,
// the guards' thread locking, and (when no GPU is present) the CT_ERR_CUDA_UNAVAILABLE
// errors. The GPU-only behaviour is in cuda_gpu_test.go.

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// cudaScope is newScope plus a check that the live stream and event counts are back to their
// start values at the end of the test.
func cudaScope(t *testing.T) *scope {
	t.Helper()
	streams, events := liveStreams(t), liveEvents(t)
	t.Cleanup(func() {
		if n := liveStreams(t); n != streams {
			t.Errorf("live stream count is %d at the end of the test, want %d", n, streams)
		}
		if n := liveEvents(t); n != events {
			t.Errorf("live event count is %d at the end of the test, want %d", n, events)
		}
	})
	return newScope(t) // its cleanups run first
}

func liveStreams(t *testing.T) int64 {
	t.Helper()
	n, err := cuda.LiveStreamCount()
	noErr(t, err)
	return n
}

func liveEvents(t *testing.T) int64 {
	t.Helper()
	n, err := cuda.LiveEventCount()
	noErr(t, err)
	return n
}

// keepOpen takes the (resource, error) result of an opening call: fails the test on error,
// else closes the resource at the end of the test.
func keepOpen[T interface{ Close() error }](t *testing.T, v T, err error) T {
	t.Helper()
	noErr(t, err)
	closeLater(t, v)
	return v
}

// closeLater closes streams and events at the end of the test (before the count checks of
// cudaScope, which must be created first).
func closeLater(t *testing.T, cs ...interface{ Close() error }) {
	t.Cleanup(func() {
		for _, c := range cs {
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
}

// wantUnavailable checks the error of a call that needs a GPU on a machine without one.
func wantUnavailable(t *testing.T, err error) {
	t.Helper()
	e := wantErr(t, err, ctorch.ErrCUDAUnavailable)
	if e.Code != 301 || e.Name != "CT_ERR_CUDA_UNAVAILABLE" || !strings.Contains(e.Message, "CUDA is not available") {
		t.Errorf("got %v, want code 301 with \"CUDA is not available\" in the message", err)
	}
}

func wantClosed(t *testing.T, err error) {
	t.Helper()
	if e := wantErr(t, err, ctorch.ErrInvalidHandle); e.Code != 102 {
		t.Errorf("code %d, want 102", e.Code)
	}
}

func skipWithGPU(t *testing.T) {
	t.Helper()
	if cuda.IsAvailable() {
		t.Skipf("CUDA is available (%d devices): the no-GPU errors cannot be observed here; see the TestGPU* tests", cuda.DeviceCount())
	}
}

var errFromCallback = errors.New("the callback's own error")

// The architectures and gencode flags of the build are known without a GPU
// (tools/cuda.bzl GENCODE).
func TestCUDABuildInfo(t *testing.T) {
	arch, err := cuda.ArchList()
	noErr(t, err)
	if want := []string{"sm_80", "sm_90", "compute_90"}; !reflect.DeepEqual(arch, want) {
		t.Errorf("ArchList() = %q, want %q", arch, want)
	}
	flags, err := cuda.GencodeFlags()
	noErr(t, err)
	want := "-gencode compute=compute_80,code=sm_80 -gencode compute=compute_90,code=sm_90 " +
		"-gencode compute=compute_90,code=compute_90"
	if flags != want {
		t.Errorf("GencodeFlags() = %q, want %q", flags, want)
	}
}

func TestSyncDebugMode(t *testing.T) {
	m, err := cuda.GetSyncDebugMode()
	noErr(t, err)
	if m != cuda.SyncDebugDefault {
		t.Fatalf("initial sync debug mode %v, want default", m)
	}
	t.Cleanup(func() { noErr(t, cuda.SetSyncDebugMode(cuda.SyncDebugDefault)) })
	names := map[cuda.SyncDebugMode]string{cuda.SyncDebugDefault: "default", cuda.SyncDebugWarn: "warn",
		cuda.SyncDebugError: "error", cuda.SyncDebugMode(7): "SyncDebugMode(7)"}
	for mode, name := range names {
		if mode.String() != name {
			t.Errorf("SyncDebugMode(%d).String() = %q, want %q", int32(mode), mode.String(), name)
		}
	}
	for _, mode := range []cuda.SyncDebugMode{cuda.SyncDebugWarn, cuda.SyncDebugError, cuda.SyncDebugDefault, cuda.SyncDebugError} {
		noErr(t, cuda.SetSyncDebugMode(mode))
		got, err := cuda.GetSyncDebugMode()
		noErr(t, err)
		if got != mode {
			t.Errorf("GetSyncDebugMode() = %v after SetSyncDebugMode(%v)", got, mode)
		}
	}
	// Invalid values are refused and leave the mode alone (SyncDebugError, set last).
	for _, bad := range []cuda.SyncDebugMode{3, -1, 1 << 20} {
		e := wantErr(t, cuda.SetSyncDebugMode(bad), ctorch.ErrArgument)
		if e.Code != 100 || !strings.Contains(e.Message, "sync debug mode") {
			t.Errorf("SetSyncDebugMode(%d): %v", int32(bad), e)
		}
	}
	if got, _ := cuda.GetSyncDebugMode(); got != cuda.SyncDebugError {
		t.Errorf("mode %v after invalid sets, want error", got)
	}
	// Explicit device and event synchronization are not reported, as in PyTorch (the
	// operations that are reported need a GPU: TestGPUSyncDebugModeError).
	if err := cuda.Synchronize(-1); cuda.IsAvailable() {
		noErr(t, err)
	} else {
		wantUnavailable(t, err)
	}
	ev, err := cuda.NewEvent(cuda.EventDefault)
	noErr(t, err)
	noErr(t, ev.Synchronize())
	noErr(t, ev.Close())
	noErr(t, cuda.SetSyncDebugMode(cuda.SyncDebugDefault))
	if got, _ := cuda.GetSyncDebugMode(); got != cuda.SyncDebugDefault {
		t.Errorf("mode %v after restoring default", got)
	}
}

// Without a GPU every device, stream and pinned-memory call fails with 301 and the reason.
func TestCUDACallsWithoutGPU(t *testing.T) {
	skipWithGPU(t)
	s := cudaScope(t)

	_, err := cuda.CurrentDevice()
	wantUnavailable(t, err)
	wantUnavailable(t, cuda.SetDevice(0))
	noErr(t, cuda.SetDevice(-1)) // a negative device changes nothing, as torch.cuda.set_device
	wantUnavailable(t, cuda.Synchronize(-1))
	wantUnavailable(t, cuda.Synchronize(0))
	_, _, err = cuda.MemGetInfo(-1)
	wantUnavailable(t, err)
	_, _, err = cuda.MemGetInfo(0)
	wantUnavailable(t, err)
	_, err = cuda.CanDeviceAccessPeer(0, 1)
	wantUnavailable(t, err)

	for _, dev := range []int{-1, 0, 3} {
		st, err := cuda.NewStream(dev, 0)
		wantUnavailable(t, err)
		if st != nil {
			t.Errorf("NewStream(%d) returned a stream with an error", dev)
		}
		_, err = cuda.DefaultStream(dev)
		wantUnavailable(t, err)
		_, err = cuda.CurrentStream(dev)
		wantUnavailable(t, err)
		_, err = cuda.ExternalStream(0, dev)
		wantUnavailable(t, err)
	}
	_, err = cuda.NewStream(0, -1)
	wantUnavailable(t, err)
	_, _, err = cuda.StreamPriorityRange()
	wantUnavailable(t, err)

	// Indices that do not fit the C int32_t are refused by the Go layer, not truncated.
	wantErr(t, cuda.SetDevice(1<<40), ctorch.ErrIndex)
	_, err = cuda.NewStream(1<<33, 0)
	wantErr(t, err, ctorch.ErrIndex)
	_, _, err = cuda.MemGetInfo(-1 << 40)
	wantErr(t, err, ctorch.ErrIndex)
	_, err = cuda.CanDeviceAccessPeer(0, 1<<32)
	wantErr(t, err, ctorch.ErrIndex)

	// Tensors: pinned memory needs CUDA; is_pinned works anywhere.
	x := s.T(ctorch.FromSlice([]float32{1, 2, 3}, nil))
	wantUnavailable(t, s.E(x.PinMemory()))
	if x.IsPinned() {
		t.Error("a CPU tensor is pinned")
	}
	pinned, err := x.IsPinnedErr()
	if err != nil || pinned {
		t.Errorf("IsPinnedErr() = %v, %v", pinned, err)
	}
	// non_blocking on the CPU is an ordinary copy.
	nb := s.T(x.To(ctorch.Float64, ctorch.NonBlocking()))
	eqF64(t, nb, 1, 2, 3)
	dst := s.T(ctorch.Zeros([]int64{2, 3}, ctorch.Int32))
	noErr(t, dst.CopyFromNonBlocking(x))
	eqI64(t, dst, 1, 2, 3, 1, 2, 3)
	_, err = x.To(ctorch.CUDA, ctorch.NonBlocking())
	wantUnavailable(t, err)

	// Recording or waiting on "the current stream" needs a GPU too.
	ev := newEvent(t, cuda.EventDefault)
	wantUnavailable(t, ev.Record(nil))
	wantUnavailable(t, ev.Wait(nil))
	if done, err := ev.Query(); err != nil || !done {
		t.Errorf("Query() after a failed record = %v, %v; want true (never recorded)", done, err)
	}
}

// The guards fail cleanly without a GPU (fn does not run), or run fn when they have nothing to
// change, and always leave the thread as they found it.
func TestDeviceGuardsWithoutGPU(t *testing.T) {
	skipWithGPU(t)
	s := cudaScope(t)

	ran := false
	err := cuda.WithDevice(0, func() error { ran = true; return nil })
	wantUnavailable(t, err)
	if ran {
		t.Error("WithDevice(0) ran its callback without a GPU")
	}
	wantErr(t, cuda.WithDevice(1<<40, func() error { ran = true; return nil }), ctorch.ErrIndex)
	if ran {
		t.Error("WithDevice(1<<40) ran its callback")
	}

	// A negative device changes nothing: fn runs and its error comes back unchanged.
	err = cuda.WithDevice(-1, func() error { ran = true; return errFromCallback })
	if !ran || err != errFromCallback {
		t.Errorf("WithDevice(-1): ran %v, err %v", ran, err)
	}

	// device_of a CPU tensor changes nothing either.
	x := s.T(ctorch.Ones([]int64{2}))
	ran = false
	noErr(t, cuda.WithDeviceOf(x, func() error { ran = true; return nil }))
	if !ran {
		t.Error("WithDeviceOf(cpu tensor) did not run its callback")
	}
	closed, err := ctorch.Ones([]int64{1})
	noErr(t, err)
	noErr(t, closed.Close())
	ran = false
	wantClosed(t, cuda.WithDeviceOf(closed, func() error { ran = true; return nil }))
	wantClosed(t, cuda.WithDeviceOf(nil, func() error { ran = true; return nil }))
	if ran {
		t.Error("WithDeviceOf(closed/nil tensor) ran its callback")
	}

	// A panic in fn goes through the guard.
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the callback's panic", r)
			}
		}()
		_ = cuda.WithDevice(-1, func() error { panic("boom") })
		t.Error("the panic did not propagate")
	}()

	// Stream guards: nil is a no-op that still runs fn; a closed stream is an error.
	ran = false
	err = cuda.WithStream(nil, func() error { ran = true; return errFromCallback })
	if !ran || err != errFromCallback {
		t.Errorf("WithStream(nil): ran %v, err %v", ran, err)
	}
	ran = false
	wantClosed(t, cuda.WithStream(new(cuda.Stream), func() error { ran = true; return nil }))
	if ran {
		t.Error("WithStream(closed stream) ran its callback")
	}
	noErr(t, cuda.SetStream(nil)) // torch.cuda.set_stream(None) does nothing
	wantClosed(t, cuda.SetStream(new(cuda.Stream)))

	// Nothing changed: still no current device.
	_, err = cuda.CurrentDevice()
	wantUnavailable(t, err)
}

// The callback of a guard runs on one OS thread (the current device and stream are per
// thread), however much the scheduler is provoked into moving the goroutine: blocking system
// calls make the runtime hand the goroutine's P to another thread while busy goroutines keep
// every P occupied. (The same loop without a guard moves between threads dozens of times; the
// test logs how often.)
func TestGuardsLockTheOSThread(t *testing.T) {
	s := cudaScope(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 2*runtime.GOMAXPROCS(0); i++ { // busy goroutines competing for threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()

	// moves runs the provoking loop and counts the changes of OS thread.
	moves := func() int {
		n, tid := 0, syscall.Gettid()
		for i := 0; i < 300; i++ {
			runtime.Gosched()
			if i%10 == 0 {
				ts := syscall.NsecToTimespec(200 * 1000) // a blocking 200µs sleep
				_ = syscall.Nanosleep(&ts, nil)
			}
			if got := syscall.Gettid(); got != tid {
				n, tid = n+1, got
			}
		}
		return n
	}
	t.Logf("without a guard the loop changed OS thread %d times", moves())
	sameThread := func(name string) func() error {
		return func() error {
			if n := moves(); n != 0 {
				t.Errorf("%s: the callback changed OS thread %d times", name, n)
			}
			return nil
		}
	}
	noErr(t, cuda.WithDevice(-1, sameThread("WithDevice(-1)")))
	x := s.T(ctorch.Zeros([]int64{1}))
	noErr(t, cuda.WithDeviceOf(x, sameThread("WithDeviceOf(cpu tensor)")))
	noErr(t, cuda.WithStream(nil, sameThread("WithStream(nil)")))
	if cuda.IsAvailable() {
		noErr(t, cuda.WithDevice(0, sameThread("WithDevice(0)")))
		st, err := cuda.NewStream(0, 0)
		noErr(t, err)
		closeLater(t, st)
		noErr(t, cuda.WithStream(st, sameThread("WithStream(s)")))
	}
}

// Nil and closed streams give ErrInvalidHandle from every method, never a crash. (Without a
// GPU no stream can be made; a zero Stream is a closed one.)
func TestNilAndClosedStreams(t *testing.T) {
	s := cudaScope(t)
	ev := newEvent(t, cuda.EventDefault)
	x := s.T(ctorch.Ones([]int64{2}))

	for name, st := range map[string]*cuda.Stream{"nil": nil, "closed": new(cuda.Stream)} {
		if !st.Closed() || st.Handle() != 0 {
			t.Errorf("%s stream: Closed %v Handle %d", name, st.Closed(), st.Handle())
		}
		noErr(t, st.Close())
		noErr(t, st.Close())
		_, err := st.DeviceIndex()
		wantClosed(t, err)
		_, err = st.Device()
		wantClosed(t, err)
		_, err = st.Priority()
		wantClosed(t, err)
		_, err = st.CUDAHandle()
		wantClosed(t, err)
		wantClosed(t, st.Synchronize())
		_, err = st.Query()
		wantClosed(t, err)
		wantClosed(t, st.WaitStream(new(cuda.Stream)))
		wantClosed(t, st.WaitEvent(ev))
		events := liveEvents(t)
		r, err := st.RecordEvent(nil) // no event is created for a closed stream
		wantClosed(t, err)
		if r != nil || liveEvents(t) != events {
			t.Errorf("%s stream: RecordEvent(nil) left an event behind", name)
		}
		_, err = st.RecordEvent(ev)
		wantClosed(t, err)
		_, err = st.Ref()
		wantClosed(t, err)
		if st.Equal(st) || st.Equal(nil) {
			t.Errorf("%s stream equals something", name)
		}
		if got := st.String(); got != "<torch.cuda.Stream closed>" {
			t.Errorf("%s stream prints %q", name, got)
		}
		wantClosed(t, x.RecordStream(st))
		if st != nil {
			// An event given a closed stream reports it (a nil *Stream means the current
			// stream; a closed one does not fall back to it).
			wantClosed(t, ev.Record(st))
			wantClosed(t, ev.Wait(st))
		}
	}
	wantClosed(t, x.RecordStream(nil))
	noErr(t, x.Close())
	wantClosed(t, x.RecordStream(new(cuda.Stream)))
	wantClosed(t, x.RecordStream(nil))
	_, err := x.PinMemory()
	wantClosed(t, err)
	_, err = x.IsPinnedErr()
	wantClosed(t, err)
	if x.IsPinned() {
		t.Error("a closed tensor is pinned")
	}
}

// Events work without a GPU until they are recorded: the CUDA event is created lazily.
func TestEventsWithoutRecording(t *testing.T) {
	cudaScope(t)
	start := liveEvents(t)
	e, err := cuda.NewEvent(cuda.EventDefault)
	noErr(t, err)
	timed, err := cuda.NewEvent(cuda.EventEnableTiming)
	noErr(t, err)
	both, err := cuda.NewEvent(cuda.EventEnableTiming | cuda.EventBlocking)
	noErr(t, err)
	blocking, err := cuda.NewEvent(cuda.EventBlocking)
	noErr(t, err)
	if n := liveEvents(t); n != start+4 {
		t.Errorf("live events %d after four NewEvent, want %d", n, start+4)
	}
	for _, bad := range []cuda.EventFlags{4, 8, -1, cuda.EventBlocking | 16} {
		ev, err := cuda.NewEvent(bad)
		e := wantErr(t, err, ctorch.ErrArgument)
		if e.Code != 100 || !strings.Contains(e.Message, "flags") || ev != nil {
			t.Errorf("NewEvent(%d): %v", int32(bad), e)
		}
	}
	if n := liveEvents(t); n != start+4 {
		t.Errorf("live events %d after failed NewEvent, want %d", n, start+4)
	}

	for _, ev := range []*cuda.Event{e, timed, both, blocking} {
		done, err := ev.Query() // never recorded: done
		if err != nil || !done {
			t.Errorf("Query() of a new event = %v, %v; want true", done, err)
		}
		noErr(t, ev.Synchronize()) // nothing to wait for
		if ev.Closed() || ev.Handle() == 0 {
			t.Error("a new event is closed")
		}
	}
	// elapsed_time needs two recorded timing events.
	_, err = e.ElapsedTime(blocking)
	if m := wantErr(t, err, ctorch.ErrState); !strings.Contains(m.Message, "enable_timing") {
		t.Errorf("ElapsedTime of non-timing events: %v", m)
	}
	_, err = timed.ElapsedTime(both)
	if m := wantErr(t, err, ctorch.ErrState); !strings.Contains(m.Message, "recorded") {
		t.Errorf("ElapsedTime of events never recorded: %v", m)
	}

	// Ref is a second reference to the same event: the same handle, no new handle.
	r, err := e.Ref()
	noErr(t, err)
	if r.Handle() != e.Handle() || liveEvents(t) != start+4 {
		t.Errorf("Ref: handle %#x vs %#x, live %d", r.Handle(), e.Handle(), liveEvents(t))
	}
	noErr(t, e.Close())
	if done, err := r.Query(); err != nil || !done { // still alive through r
		t.Errorf("Query through the second reference: %v, %v", done, err)
	}
	noErr(t, r.Close())
	if n := liveEvents(t); n != start+3 {
		t.Errorf("live events %d after closing both references, want %d", n, start+3)
	}

	// A closed event: every use is ErrInvalidHandle; closing again is harmless.
	noErr(t, e.Close())
	if !e.Closed() || e.Handle() != 0 {
		t.Error("closed event: Closed/Handle")
	}
	_, err = e.Query()
	wantClosed(t, err)
	wantClosed(t, e.Record(nil))
	wantClosed(t, e.Wait(nil))
	wantClosed(t, e.Synchronize())
	_, err = e.ElapsedTime(timed)
	wantClosed(t, err)
	_, err = timed.ElapsedTime(e)
	wantClosed(t, err)
	_, err = timed.ElapsedTime(nil)
	wantClosed(t, err)
	_, err = e.Ref()
	wantClosed(t, err)
	var nilEvent *cuda.Event
	noErr(t, nilEvent.Close())
	_, err = nilEvent.Query()
	wantClosed(t, err)
	if !nilEvent.Closed() || nilEvent.Handle() != 0 {
		t.Error("nil event: Closed/Handle")
	}

	for _, ev := range []*cuda.Event{timed, both, blocking} {
		noErr(t, ev.Close())
	}
	if n := liveEvents(t); n != start {
		t.Errorf("live events %d at the end, want %d", n, start)
	}
}

// Events dropped without Close are released by their finalizers.
func TestGarbageCollectorReleasesEvents(t *testing.T) {
	start := liveEvents(t)
	const n = 3000
	for i := 0; i < n; i++ {
		e, err := cuda.NewEvent(cuda.EventFlags(i % 4))
		noErr(t, err)
		if i%3 == 0 {
			noErr(t, e.Close())
		}
	}
	collectUntil(t, "events", liveEvents, start)
}
