package ctorch_test

// The CUDA runtime API on a GPU: devices and their guards, streams and their guard, stream
// ordering with events, timing, pinned memory with non-blocking copies, record_stream and the
// sync debug mode. Each test skips (visibly, with the reason) where there is no GPU, or fewer
// GPUs than it needs.

import (
	"errors"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

// needGPUs skips the test unless n CUDA devices can hold tensors.
func needGPUs(t *testing.T, n int) {
	t.Helper()
	if !cuda.IsAvailable() {
		reason := "no GPU"
		var e *ctorch.Error
		if errors.As(cuda.CheckAvailable(), &e) {
			reason = e.Message
		}
		t.Skipf("needs %d GPU(s); here %s", n, reason)
	}
	if c := cuda.DeviceCount(); c < n {
		t.Skipf("needs %d GPUs, %d visible", n, c)
	}
}

// gpuTest starts a test that needs n GPUs: it skips without them, checks the live tensor,
// stream and event counts at the end (cudaScope) and locks the goroutine to its OS thread.
func gpuTest(t *testing.T, n int) *scope {
	t.Helper()
	needGPUs(t, n)
	s := cudaScope(t)
	lockThread(t)
	return s
}

// lockThread pins the test's goroutine to its OS thread for the rest of the test: the current
// device and stream are per thread.
func lockThread(t *testing.T) {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

func currentDevice(t *testing.T) int {
	t.Helper()
	d, err := cuda.CurrentDevice()
	noErr(t, err)
	return d
}

func currentStream(t *testing.T, device int) *cuda.Stream {
	t.Helper()
	s, err := cuda.CurrentStream(device)
	return keepOpen(t, s, err)
}

func newStream(t *testing.T, device, priority int) *cuda.Stream {
	t.Helper()
	s, err := cuda.NewStream(device, priority)
	return keepOpen(t, s, err)
}

func newEvent(t *testing.T, flags cuda.EventFlags) *cuda.Event {
	t.Helper()
	e, err := cuda.NewEvent(flags)
	return keepOpen(t, e, err)
}

func TestGPUDeviceCalls(t *testing.T) {
	gpuTest(t, 1)
	n := cuda.DeviceCount()
	cur := currentDevice(t)
	if cur < 0 || cur >= n {
		t.Fatalf("CurrentDevice() = %d with %d devices", cur, n)
	}
	noErr(t, cuda.SetDevice(cur))
	if got := currentDevice(t); got != cur {
		t.Errorf("CurrentDevice() = %d after SetDevice(%d)", got, cur)
	}
	wantErr(t, cuda.SetDevice(n), ctorch.ErrIndex)
	noErr(t, cuda.SetDevice(-1)) // changes nothing
	if got := currentDevice(t); got != cur {
		t.Errorf("CurrentDevice() = %d after SetDevice(-1), want %d", got, cur)
	}
	wantErr(t, cuda.WithDevice(n, func() error { return nil }), ctorch.ErrIndex)

	free, total, err := cuda.MemGetInfo(-1)
	noErr(t, err)
	if total <= 0 || free <= 0 || free > total {
		t.Errorf("MemGetInfo(-1) = %d free of %d", free, total)
	}
	_, total0, err := cuda.MemGetInfo(0)
	noErr(t, err)
	prop, err := cuda.DeviceProperty(0, cuda.PropTotalMemory)
	noErr(t, err)
	if total0 <= 0 || total0 > prop {
		t.Errorf("MemGetInfo(0) total %d, device property total memory %d", total0, prop)
	}
	t.Logf("cuda:0: %d of %d bytes free (device property: %d)", free, total0, prop)
	_, _, err = cuda.MemGetInfo(n)
	wantErr(t, err, ctorch.ErrIndex)

	if ok, err := cuda.CanDeviceAccessPeer(0, 0); err != nil || ok {
		t.Errorf("CanDeviceAccessPeer(0, 0) = %v, %v; want false (as torch)", ok, err)
	}
	_, err = cuda.CanDeviceAccessPeer(0, n)
	wantErr(t, err, ctorch.ErrIndex)
	if n >= 2 {
		a, err := cuda.CanDeviceAccessPeer(0, 1)
		noErr(t, err)
		b, err := cuda.CanDeviceAccessPeer(1, 0)
		noErr(t, err)
		t.Logf("peer access 0->1 %v, 1->0 %v", a, b)
	}
	noErr(t, cuda.Synchronize(-1))
	noErr(t, cuda.Synchronize(0))
	wantErr(t, cuda.Synchronize(n), ctorch.ErrIndex)
}

// with torch.cuda.device(0): on one GPU: the device is current inside and restored after.
func TestGPUDeviceGuardOneDevice(t *testing.T) {
	s := gpuTest(t, 1)
	before := currentDevice(t)
	noErr(t, cuda.WithDevice(0, func() error {
		if d := currentDevice(t); d != 0 {
			t.Errorf("CurrentDevice() = %d inside WithDevice(0)", d)
		}
		x := s.T(ctorch.Ones([]int64{2}, ctorch.CUDA))
		if x.Device() != ctorch.CUDADevice(0) {
			t.Errorf("a tensor on the current device is on %v", x.Device())
		}
		return nil
	}))
	if d := currentDevice(t); d != before {
		t.Errorf("CurrentDevice() = %d after the guard, want %d", d, before)
	}
	g := s.T(ctorch.Zeros([]int64{1}, ctorch.CUDADevice(0)))
	noErr(t, cuda.WithDeviceOf(g, func() error {
		if d := currentDevice(t); d != 0 {
			t.Errorf("CurrentDevice() = %d inside WithDeviceOf(cuda:0 tensor)", d)
		}
		return nil
	}))
	// WithDevice(-1) keeps the current device.
	noErr(t, cuda.WithDevice(-1, func() error {
		if d := currentDevice(t); d != before {
			t.Errorf("CurrentDevice() = %d inside WithDevice(-1), want %d", d, before)
		}
		return nil
	}))
}

// with torch.cuda.device(1): switching devices and restoring, on return, on error, on panic,
// nested, and for device_of.
func TestGPUDeviceGuardSwitchesDevices(t *testing.T) {
	s := gpuTest(t, 2)
	noErr(t, cuda.SetDevice(0))
	t.Cleanup(func() { _ = cuda.SetDevice(0) })

	noErr(t, cuda.WithDevice(1, func() error {
		if d := currentDevice(t); d != 1 {
			t.Errorf("CurrentDevice() = %d inside WithDevice(1)", d)
		}
		x := s.T(ctorch.Ones([]int64{2}, ctorch.CUDA)) // the current device
		if x.Device() != ctorch.CUDADevice(1) {
			t.Errorf("ctorch.CUDA inside WithDevice(1) made a tensor on %v", x.Device())
		}
		return cuda.WithDevice(0, func() error { // nested
			if d := currentDevice(t); d != 0 {
				t.Errorf("CurrentDevice() = %d inside the nested WithDevice(0)", d)
			}
			return nil
		})
	}))
	if d := currentDevice(t); d != 0 {
		t.Errorf("CurrentDevice() = %d after WithDevice(1), want 0", d)
	}
	err := cuda.WithDevice(1, func() error { return errFromCallback })
	if err != errFromCallback {
		t.Errorf("WithDevice returned %v, want the callback's error", err)
	}
	if d := currentDevice(t); d != 0 {
		t.Errorf("CurrentDevice() = %d after a failing callback, want 0", d)
	}
	func() {
		defer func() { _ = recover() }()
		_ = cuda.WithDevice(1, func() error { panic("boom") })
	}()
	if d := currentDevice(t); d != 0 {
		t.Errorf("CurrentDevice() = %d after a panicking callback, want 0", d)
	}
	on1 := s.T(ctorch.Zeros([]int64{1}, ctorch.CUDADevice(1)))
	noErr(t, cuda.WithDeviceOf(on1, func() error {
		if d := currentDevice(t); d != 1 {
			t.Errorf("CurrentDevice() = %d inside WithDeviceOf(cuda:1 tensor)", d)
		}
		return nil
	}))
	if d := currentDevice(t); d != 0 {
		t.Errorf("CurrentDevice() = %d after WithDeviceOf, want 0", d)
	}
	// The stream guard restores the device too.
	s1 := newStream(t, 1, 0)
	noErr(t, cuda.WithStream(s1, func() error {
		if d := currentDevice(t); d != 1 {
			t.Errorf("CurrentDevice() = %d inside WithStream(stream on cuda:1)", d)
		}
		if cs := currentStream(t, 1); !cs.Equal(s1) {
			t.Errorf("current stream of cuda:1 is %v, want %v", cs, s1)
		}
		return nil
	}))
	if d := currentDevice(t); d != 0 {
		t.Errorf("CurrentDevice() = %d after WithStream(stream on cuda:1), want 0", d)
	}
}

func TestGPUStreams(t *testing.T) {
	gpuTest(t, 1)
	start := liveStreams(t)
	least, greatest, err := cuda.StreamPriorityRange()
	noErr(t, err)
	if least != 0 || greatest > 0 {
		t.Errorf("StreamPriorityRange() = %d, %d; want 0 and a value <= 0", least, greatest)
	}
	s := newStream(t, 0, 0)
	if d, err := s.DeviceIndex(); err != nil || d != 0 {
		t.Errorf("DeviceIndex() = %d, %v", d, err)
	}
	if d, err := s.Device(); err != nil || d != ctorch.CUDADevice(0) {
		t.Errorf("Device() = %v, %v", d, err)
	}
	if p, err := s.Priority(); err != nil || p != 0 {
		t.Errorf("Priority() = %d, %v", p, err)
	}
	h, err := s.CUDAHandle()
	noErr(t, err)
	if h == 0 {
		t.Error("a new stream has the default stream's handle 0")
	}
	if str := s.String(); !strings.HasPrefix(str, "<torch.cuda.Stream device=cuda:0 cuda_stream=0x") {
		t.Errorf("String() = %q", str)
	}
	hi := newStream(t, 0, greatest)
	if p, _ := hi.Priority(); p != greatest {
		t.Errorf("priority %d, want %d", p, greatest)
	}
	clampedHi := newStream(t, 0, greatest-100)
	if p, _ := clampedHi.Priority(); p != greatest {
		t.Errorf("priority %d beyond the range was not clamped to %d", greatest-100, greatest)
	}
	clampedLo := newStream(t, -1, 100)
	if p, _ := clampedLo.Priority(); p != least {
		t.Errorf("priority 100 was not clamped to %d", least)
	}
	if s.Equal(hi) || hi.Equal(clampedHi) {
		t.Error("different streams are equal")
	}

	def, err := cuda.DefaultStream(0)
	noErr(t, err)
	closeLater(t, def)
	if h, _ := def.CUDAHandle(); h != 0 {
		t.Errorf("default stream handle %#x, want 0", h)
	}
	// A thread's current stream is the default stream until it is set.
	if cur := currentStream(t, -1); !cur.Equal(def) || !currentStream(t, 0).Equal(def) {
		t.Errorf("current stream %v, want the default stream", cur)
	}
	// SetStream on a locked thread, then back.
	noErr(t, cuda.SetStream(s))
	if cur := currentStream(t, 0); !cur.Equal(s) {
		t.Errorf("current stream %v after SetStream(%v)", cur, s)
	}
	noErr(t, cuda.SetStream(def))
	if cur := currentStream(t, 0); !cur.Equal(def) {
		t.Errorf("current stream %v after SetStream(default)", cur)
	}

	// Ref and ExternalStream stand for the same CUDA stream.
	r, err := s.Ref()
	noErr(t, err)
	if r.Handle() != s.Handle() || !r.Equal(s) {
		t.Error("Ref() is not the same stream")
	}
	noErr(t, r.Close())
	ext, err := cuda.ExternalStream(h, 0)
	noErr(t, err)
	if !ext.Equal(s) {
		t.Errorf("ExternalStream(%#x) = %v, want %v", h, ext, s)
	}
	if p, err := ext.Priority(); err != nil || p != 0 {
		t.Errorf("external stream priority %d, %v", p, err)
	}
	noErr(t, ext.Close())

	noErr(t, s.Synchronize())
	if done, err := s.Query(); err != nil || !done {
		t.Errorf("Query() of an idle stream = %v, %v", done, err)
	}
	noErr(t, s.WaitStream(hi))

	// A closed stream (really released this time).
	c := newStream(t, 0, 0)
	noErr(t, c.Close())
	noErr(t, c.Close())
	_, err = c.Query()
	wantClosed(t, err)
	wantClosed(t, cuda.SetStream(c))
	wantClosed(t, s.WaitStream(c))
	if c.Equal(s) {
		t.Error("a closed stream equals an open one")
	}
	if n := liveStreams(t); n <= start {
		t.Errorf("live streams %d with streams open, start %d", n, start)
	}
}

// with torch.cuda.stream(s): the current stream inside, the previous one after, also on error
// and panic; the callback stays on one thread.
func TestGPUStreamGuard(t *testing.T) {
	sc := gpuTest(t, 1)
	before := currentStream(t, 0)
	s := newStream(t, 0, 0)
	noErr(t, cuda.WithStream(s, func() error {
		tid := syscall.Gettid()
		for i := 0; i < 50; i++ {
			runtime.Gosched()
			if !currentStream(t, -1).Equal(s) || syscall.Gettid() != tid {
				t.Fatalf("iteration %d: the current stream or thread changed inside WithStream", i)
			}
		}
		// Work queued inside runs on s.
		x := sc.T(ctorch.Full([]int64{1 << 16}, 2, ctorch.CUDA))
		y := sc.T(x.Mul(x))
		noErr(t, s.Synchronize())
		sum := sc.T(y.Sum())
		v, err := sum.Item()
		noErr(t, err)
		if v != 4*(1<<16) {
			t.Errorf("sum %v, want %v", v, 4*(1<<16))
		}
		return nil
	}))
	if cur := currentStream(t, 0); !cur.Equal(before) {
		t.Errorf("current stream %v after WithStream, want %v", cur, before)
	}
	if err := cuda.WithStream(s, func() error { return errFromCallback }); err != errFromCallback {
		t.Errorf("WithStream returned %v, want the callback's error", err)
	}
	func() {
		defer func() { _ = recover() }()
		_ = cuda.WithStream(s, func() error { panic("boom") })
	}()
	if cur := currentStream(t, 0); !cur.Equal(before) {
		t.Errorf("current stream %v after a failing and a panicking callback, want %v", cur, before)
	}
	// Nested guards.
	s2 := newStream(t, 0, 0)
	noErr(t, cuda.WithStream(s, func() error {
		return cuda.WithStream(s2, func() error {
			if !currentStream(t, 0).Equal(s2) {
				t.Error("inner guard: current stream is not s2")
			}
			return nil
		})
	}))
	if cur := currentStream(t, 0); !cur.Equal(before) {
		t.Errorf("current stream %v after nested guards, want %v", cur, before)
	}
}

// Work on a side stream, ordered against the default stream with an event and wait_stream.
func TestGPUStreamOrdering(t *testing.T) {
	sc := gpuTest(t, 1)
	const n = 1 << 20
	main := currentStream(t, 0)
	side := newStream(t, 0, 0)
	x := sc.T(ctorch.Ones([]int64{n}, ctorch.CUDA)) // queued on main
	var y *ctorch.Tensor
	noErr(t, side.WaitStream(main)) // side waits for x
	noErr(t, cuda.WithStream(side, func() error {
		var err error
		y, err = x.MulInt(3) // queued on side
		sc.keep(y)
		return err
	}))
	noErr(t, x.RecordStream(side)) // x was used on side: do not reuse its memory early
	e, err := side.RecordEvent(nil)
	noErr(t, err)
	closeLater(t, e)
	noErr(t, main.WaitEvent(e)) // main waits for y
	z := sc.T(y.AddInt(1))      // queued on main
	noErr(t, y.RecordStream(main))
	sum := sc.T(z.Sum())
	v, err := sum.Item() // synchronizes with main
	noErr(t, err)
	if v != 4*n {
		t.Errorf("sum %v, want %v", v, 4*n)
	}
	noErr(t, e.Synchronize())
	if done, err := e.Query(); err != nil || !done {
		t.Errorf("Query() after Synchronize = %v, %v", done, err)
	}

	// record_event with an event of ours, wait on the current stream (nil), record on the
	// current stream (nil).
	mine := newEvent(t, cuda.EventBlocking)
	got, err := side.RecordEvent(mine)
	noErr(t, err)
	if got != mine {
		t.Error("RecordEvent(e) did not return e")
	}
	noErr(t, mine.Wait(nil))
	noErr(t, mine.Record(nil))
	noErr(t, mine.Wait(side))
	noErr(t, mine.Record(side))
	noErr(t, mine.Synchronize())
	noErr(t, side.Synchronize())
	if done, _ := side.Query(); !done {
		t.Error("side stream busy after Synchronize")
	}

	// record_stream checks the device.
	cpu := sc.T(ctorch.Ones([]int64{2}))
	wantErr(t, cpu.RecordStream(side), ctorch.ErrDevice)
	if cuda.DeviceCount() >= 2 {
		on1 := newStream(t, 1, 0)
		wantErr(t, x.RecordStream(on1), ctorch.ErrDevice)
	}
}

func TestGPUEventTiming(t *testing.T) {
	sc := gpuTest(t, 1)
	start, end := newEvent(t, cuda.EventEnableTiming), newEvent(t, cuda.EventEnableTiming)
	noErr(t, start.Record(nil))
	x := sc.T(ctorch.Ones([]int64{1 << 22}, ctorch.CUDA))
	for i := 0; i < 10; i++ {
		noErr(t, x.MulScalarInPlace(1.0001))
	}
	noErr(t, end.Record(nil))
	noErr(t, end.Synchronize())
	ms, err := start.ElapsedTime(end)
	noErr(t, err)
	if ms < 0 || ms > 10000 {
		t.Errorf("ElapsedTime() = %v ms", ms)
	}
	t.Logf("10 in-place multiplies of 4M floats: %.3f ms", ms)

	plain := newEvent(t, cuda.EventDefault)
	noErr(t, plain.Record(nil))
	_, err = start.ElapsedTime(plain)
	wantErr(t, err, ctorch.ErrState)

	if cuda.DeviceCount() >= 2 {
		// An event belongs to the device of its first record.
		s1 := newStream(t, 1, 0)
		wantErr(t, start.Record(s1), ctorch.ErrDevice)
	}
}

// Pinned memory and non_blocking copies in both directions.
func TestGPUPinnedNonBlockingCopies(t *testing.T) {
	sc := gpuTest(t, 1)
	const n = 1 << 16
	host := sc.T(ctorch.ArangeInt(0, n, 1))
	if host.IsPinned() {
		t.Error("a new CPU tensor is pinned")
	}
	pinned := sc.T(host.PinMemory())
	if !pinned.IsPinned() {
		t.Error("PinMemory() is not pinned")
	}
	if same, _ := pinned.SharesStorage(host); same {
		t.Error("PinMemory() shares storage with its source (it is a copy)")
	}
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i)
	}
	// cuda:0 explicitly: "cuda" is the current device of whichever OS thread runs the test,
	// which earlier tests may have left at another device.
	g := sc.T(pinned.To(ctorch.CUDADevice(0), ctorch.NonBlocking()))
	back := sc.T(g.To(ctorch.CPU, ctorch.NonBlocking()))
	if !back.IsPinned() {
		t.Error("a non_blocking copy to the CPU is not pinned")
	}
	noErr(t, currentStream(t, 0).Synchronize())
	got, err := back.Int64s()
	noErr(t, err)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d = %d after the round trip, want %d", i, got[i], want[i])
		}
	}
	if g.IsPinned() {
		t.Error("a CUDA tensor reports pinned")
	}
	wantErr(t, sc.E(g.PinMemory()), ctorch.ErrDevice)

	// copy_(non_blocking=True) into a GPU tensor and back, on a side stream.
	side := newStream(t, 0, 0)
	dst := sc.T(ctorch.Zeros([]int64{n}, ctorch.Int64, ctorch.CUDADevice(0)))
	hostDst := sc.T(sc.T(ctorch.Zeros([]int64{n}, ctorch.Int64)).PinMemory())
	noErr(t, side.WaitStream(currentStream(t, 0)))
	noErr(t, cuda.WithStream(side, func() error {
		if err := dst.CopyFromNonBlocking(pinned); err != nil {
			return err
		}
		return hostDst.CopyFromNonBlocking(dst)
	}))
	noErr(t, dst.RecordStream(side))
	noErr(t, side.Synchronize())
	eqI64(t, hostDst, want...)
	noErr(t, cuda.Synchronize(0))
}

// In "error" mode, operations that make the host wait for the GPU fail with ErrState;
// explicit device and event synchronization do not (as in PyTorch).
func TestGPUSyncDebugModeError(t *testing.T) {
	sc := gpuTest(t, 1)
	x := sc.T(ctorch.Full([]int64{1}, 5, ctorch.CUDA))
	s := newStream(t, 0, 0)
	e := newEvent(t, cuda.EventDefault)
	noErr(t, cuda.SetSyncDebugMode(cuda.SyncDebugError))
	t.Cleanup(func() { noErr(t, cuda.SetSyncDebugMode(cuda.SyncDebugDefault)) })
	_, err := x.Item()
	if m := wantErr(t, err, ctorch.ErrState); !strings.Contains(m.Message, "'error'") {
		t.Errorf("item() in error mode: %v", m)
	}
	_, err = x.Float32s()
	wantErr(t, err, ctorch.ErrState)
	wantErr(t, s.Synchronize(), ctorch.ErrState)
	noErr(t, cuda.Synchronize(0))
	noErr(t, e.Record(s))
	noErr(t, e.Synchronize())
	noErr(t, cuda.SetSyncDebugMode(cuda.SyncDebugDefault))
	v, err := x.Item()
	noErr(t, err)
	if v != 5 {
		t.Errorf("item %v, want 5", v)
	}
}

// Streams dropped without Close are released by their finalizers.
func TestGPUGarbageCollectorReleasesStreams(t *testing.T) {
	needGPUs(t, 1)
	start := liveStreams(t)
	for i := 0; i < 3000; i++ {
		s, err := cuda.CurrentStream(0) // cheap: a handle to the default stream
		noErr(t, err)
		if i%3 == 0 {
			noErr(t, s.Close())
		}
	}
	for i := 0; i < 30; i++ {
		s, err := cuda.NewStream(0, 0) // a real CUDA stream each, destroyed with its handle
		noErr(t, err)
		_ = s
	}
	collectUntil(t, "streams", liveStreams, start)
}
