package ctorch_test

// Out-of-memory hooks (cuda.AddOOMHook, cuda.RemoveOOMHook, the binding's collector hook and
// cuda.OOMHookRuns) and the per-stream memory figures (Stream.MemoryStat).
//
// Without a GPU no allocation can run out of device memory, so the CPU tests call the hooks
// the way ctorch's allocator does, through the same C trampoline (capi.RunOOMHooksForTest);
// the GPU tests (skipped here, with the reason) make real allocations fail.

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/internal/capi"
)

type oomCall struct {
	device int
	bytes  int64
}

// oomRecorder is a user hook that records its calls.
type oomRecorder struct {
	mu    sync.Mutex
	calls []oomCall
	live  []int64 // LiveTensorCount when each call ran
}

func (r *oomRecorder) hook(device int, bytes int64) {
	n, _ := ctorch.LiveTensorCount()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, oomCall{device, bytes})
	r.live = append(r.live, n)
}

func (r *oomRecorder) get() ([]oomCall, []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]oomCall(nil), r.calls...), append([]int64(nil), r.live...)
}

// addOOMHook adds fn and removes it at the end of the test (unless the test did).
func addOOMHook(t *testing.T, fn func(int, int64)) int64 {
	t.Helper()
	id, err := cuda.AddOOMHook(fn)
	noErr(t, err)
	t.Cleanup(func() { _ = cuda.RemoveOOMHook(id) })
	return id
}

// dropTensor makes a uint8 tensor of n bytes and drops it without Close: only its finalizer
// can release it. (Not inlined, so no stack slot of the caller keeps it.)
//
//go:noinline
func dropTensor(device ctorch.Device, n int64) error {
	_, err := ctorch.Empty([]int64{n}, ctorch.Uint8, device)
	return err
}

// slowObject has a finalizer that takes its time: the runtime runs finalizers one after the
// other, so the tensors' finalizers may have to wait for it.
type slowObject struct {
	p *int
	_ [32]byte
}

//go:noinline
func dropSlowObject(d time.Duration) {
	runtime.SetFinalizer(&slowObject{}, func(*slowObject) { time.Sleep(d) })
}

// collectDropped runs the garbage collector until the tensors dropped so far are released.
func collectDropped(t *testing.T) {
	t.Helper()
	prev := liveCount(t)
	for i := 0; i < 50; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		n := liveCount(t)
		if n == prev && i >= 2 {
			return
		}
		prev = n
	}
}

// The collector hook is registered once per process, when the binding is loaded; installing
// it again registers nothing (the library's hook ids are consecutive: no id is used between two
// hooks added around a second InstallCollectorHook).
func TestOOMCollectorHookRegisteredOnce(t *testing.T) {
	cid, f := capi.InstallCollectorHook()
	if f != nil {
		t.Fatalf("the collector hook could not be registered: %+v", f)
	}
	if cid < 1 {
		t.Fatalf("collector hook id %d, want >= 1", cid)
	}
	noop := func(int, int64) {}
	a := addOOMHook(t, noop)
	again, f := capi.InstallCollectorHook()
	if f != nil || again != cid {
		t.Errorf("second InstallCollectorHook: id %d, failure %+v; want %d, none", again, f, cid)
	}
	b := addOOMHook(t, noop)
	if a <= cid || b != a+1 {
		t.Errorf("hook ids: collector %d, then %d and %d around a second InstallCollectorHook; want %d < a and b = a+1",
			cid, a, b, cid)
	}
	// The collector hook stays.
	e := wantErr(t, cuda.RemoveOOMHook(cid), ctorch.ErrArgument)
	if !strings.Contains(e.Message, "collector hook, which cannot be removed") || e.Op != "cuda_remove_oom_hook" {
		t.Errorf("RemoveOOMHook(collector): %v", e)
	}
	noErr(t, cuda.RemoveOOMHook(a))
	noErr(t, cuda.RemoveOOMHook(b))
	if c := addOOMHook(t, noop); c != b+1 {
		t.Errorf("next hook id %d, want %d", c, b+1)
	}
}

// RemoveOOMHook of an id that was never added or is removed already is the library's
// CT_ERR_ARGUMENT; a nil hook function is refused.
func TestOOMHookErrors(t *testing.T) {
	for _, id := range []int64{0, -1, 1 << 50} {
		e := wantErr(t, cuda.RemoveOOMHook(id), ctorch.ErrArgument)
		if e.Code != 100 || !strings.Contains(e.Message, "no out-of-memory hook has id") {
			t.Errorf("RemoveOOMHook(%d): %v", id, e)
		}
	}
	id, err := cuda.AddOOMHook(func(int, int64) {})
	noErr(t, err)
	noErr(t, cuda.RemoveOOMHook(id))
	e := wantErr(t, cuda.RemoveOOMHook(id), ctorch.ErrArgument)
	if want := "no out-of-memory hook has id " + strconv.FormatInt(id, 10); !strings.Contains(e.Message, want) {
		t.Errorf("second RemoveOOMHook: %q does not contain %q", e.Message, want)
	}
	id, err = cuda.AddOOMHook(nil)
	if e := wantErr(t, err, ctorch.ErrNullPointer); e.Code != 101 || id != 0 {
		t.Errorf("AddOOMHook(nil): id %d, %v", id, e)
	}
}

// The collector hook, called as the allocator calls it, returns only once the tensors that
// were dropped without Close are released: the live tensor count is back at its start right
// after the call, with no garbage collection by the test, even though other finalizers keep
// the runtime's finalizer goroutine busy meanwhile. User hooks run after it, with the
// failed request's device and size, until they are removed.
func TestOOMHookRecoversDroppedTensors(t *testing.T) {
	collectDropped(t)
	newScope(t)
	start := liveCount(t)
	rec := &oomRecorder{}
	id := addOOMHook(t, rec.hook)
	for i := 0; i < 300; i++ {
		noErr(t, dropTensor(ctorch.CPU, 64))
		if i%60 == 0 { // finalizers that keep the finalizer goroutine busy for 50 ms in all
			dropSlowObject(10 * time.Millisecond)
		}
	}
	if n := liveCount(t); n <= start {
		t.Fatalf("live tensor count %d after dropping 300 tensors, want more than %d: the collector ran on its own, the test cannot see the hook work", n, start)
	}
	runs := cuda.OOMHookRuns()
	capi.RunOOMHooksForTest(3, 12345)
	if n := liveCount(t); n != start {
		t.Errorf("live tensor count %d right after the hooks, want %d (the dropped tensors released)", n, start)
	}
	if got := cuda.OOMHookRuns(); got != runs+1 {
		t.Errorf("OOMHookRuns() = %d after one out-of-memory, want %d", got, runs+1)
	}
	calls, live := rec.get()
	if want := []oomCall{{3, 12345}}; !reflect.DeepEqual(calls, want) {
		t.Errorf("user hook calls %v, want %v", calls, want)
	}
	if want := []int64{start}; !reflect.DeepEqual(live, want) {
		t.Errorf("live tensor count seen by the user hook %v, want %v (it runs after the collector)", live, want)
	}

	noErr(t, cuda.RemoveOOMHook(id))
	capi.RunOOMHooksForTest(0, 1)
	if calls, _ := rec.get(); len(calls) != 1 {
		t.Errorf("a removed hook was called: %v", calls)
	}
	if got := cuda.OOMHookRuns(); got != runs+2 {
		t.Errorf("OOMHookRuns() = %d after two out-of-memory events, want %d", got, runs+2)
	}
}

// A Tensor whose finalizer shares an allocation block with a live object would never be
// finalized (Go's tiny allocator packs objects under 16 bytes without pointers into one
// block): dropped tensors allocated next to small objects that stay alive must still be
// released by the collector hook.
func TestOOMHookReleasesTensorsNextToLiveObjects(t *testing.T) {
	collectDropped(t)
	newScope(t)
	start := liveCount(t)
	keep := make([]*int64, 0, 1000)
	for i := 0; i < 1000; i++ {
		// Small objects before and after each tensor, whatever the binding allocates between.
		p := new(int64)
		*p = int64(i)
		keep = append(keep, p)
		if i%2 == 0 {
			noErr(t, dropTensor(ctorch.CPU, 8))
		}
	}
	capi.RunOOMHooksForTest(0, 1)
	if n := liveCount(t); n != start {
		t.Errorf("live tensor count %d after the collector hook, want %d: %d dropped tensors were not finalized", n, start, n-start)
	}
	for i, p := range keep {
		if *p != int64(i) {
			t.Fatalf("kept value %d is %d", i, *p)
		}
	}
	runtime.KeepAlive(keep) // from here on the small objects are garbage too
	collectDropped(t)
}

// A panic in a user hook is recovered (it must not unwind through the allocator's C++ frames);
// the hooks after it still run.
func TestOOMHookPanicIsRecovered(t *testing.T) {
	rec := &oomRecorder{}
	addOOMHook(t, func(int, int64) { panic("an out-of-memory hook that panics (expected by the test)") })
	addOOMHook(t, rec.hook)
	capi.RunOOMHooksForTest(1, 77)
	if calls, _ := rec.get(); !reflect.DeepEqual(calls, []oomCall{{1, 77}}) {
		t.Errorf("the hook after the panicking one: calls %v, want [{1 77}]", calls)
	}
}

// Stream.MemoryStat of a nil, zero or closed Stream is ErrInvalidHandle (the C level is
// checked in TestRawStreamAndEventHandles).
func TestStreamMemoryStatInvalidHandles(t *testing.T) {
	cudaScope(t)
	var none *cuda.Stream
	v, err := none.MemoryStat("allocated_bytes.current")
	wantClosed(t, err)
	if v != 0 {
		t.Errorf("value %d with an error", v)
	}
	_, err = (&cuda.Stream{}).MemoryStat("allocated_bytes.current")
	wantClosed(t, err)
	if cuda.IsAvailable() {
		s, err := cuda.NewStream(0, 0)
		noErr(t, err)
		noErr(t, s.Close())
		_, err = s.MemoryStat("allocated_bytes.current")
		wantClosed(t, err)
	}
}

// ---- GPU-only ----

// Tensors dropped without Close come back through the collector hook: with a memory fraction
// that holds about four of them, twenty allocations in a row succeed, the hook ran, and no
// allocation ran out of memory (num_ooms unchanged).
func TestGPUOOMHookRecoversDroppedTensors(t *testing.T) {
	needGPUs(t, 1)
	skipIfAllocConf(t)
	collectDropped(t)
	cudaScope(t)
	start := liveCount(t)
	noErr(t, cuda.EmptyCache())
	_, total, err := cuda.MemGetInfo(0)
	noErr(t, err)
	n := total / 400 // a quarter of what the fraction allows
	ooms, err := cuda.MemoryStat(0, "num_ooms")
	noErr(t, err)
	runs := cuda.OOMHookRuns()
	noErr(t, cuda.SetPerProcessMemoryFraction(0.01, 0))
	t.Cleanup(func() { // before cudaScope's checks (cleanups run last-in first-out)
		noErr(t, cuda.SetPerProcessMemoryFraction(1.0, 0))
		collectUntil(t, "tensors", liveCount, start)
		noErr(t, cuda.EmptyCache())
	})
	for i := 0; i < 20; i++ {
		if err := dropTensor(ctorch.CUDADevice(0), n); err != nil {
			t.Fatalf("allocation %d of 20 (%d bytes each, a quarter of the 1%% fraction; %d collector runs so far): %v",
				i+1, n, cuda.OOMHookRuns()-runs, err)
		}
	}
	if got := cuda.OOMHookRuns(); got <= runs {
		t.Errorf("OOMHookRuns() = %d, want more than %d: the collector hook did not run", got, runs)
	}
	if got, err := cuda.MemoryStat(0, "num_ooms"); err != nil || got != ooms {
		t.Errorf("num_ooms = %d (%v), want %d: an allocation ran out of memory", got, err, ooms)
	}
}

// A user hook runs when an allocation runs out of memory, with the device and the size of the
// request, after the collector hook; once removed it no longer runs.
func TestGPUUserOOMHookRuns(t *testing.T) {
	needGPUs(t, 1)
	skipIfAllocConf(t)
	s := cudaScope(t)
	noErr(t, cuda.EmptyCache())
	_, total, err := cuda.MemGetInfo(0)
	noErr(t, err)
	n := total / 50 // 2% of the device, beyond a 1% fraction
	rec := &oomRecorder{}
	id := addOOMHook(t, rec.hook)
	noErr(t, cuda.SetPerProcessMemoryFraction(0.01, 0))
	t.Cleanup(func() {
		noErr(t, cuda.SetPerProcessMemoryFraction(1.0, 0))
		noErr(t, cuda.EmptyCache())
	})
	runs := cuda.OOMHookRuns()
	wantErr(t, s.E(ctorch.Empty([]int64{n}, ctorch.Uint8, ctorch.CUDADevice(0))), ctorch.ErrOutOfMemory)
	if calls, _ := rec.get(); !reflect.DeepEqual(calls, []oomCall{{0, n}}) {
		t.Errorf("user hook calls %v, want [{0 %d}]", calls, n)
	}
	if got := cuda.OOMHookRuns(); got != runs+1 {
		t.Errorf("OOMHookRuns() = %d, want %d", got, runs+1)
	}
	noErr(t, cuda.RemoveOOMHook(id))
	wantErr(t, s.E(ctorch.Empty([]int64{n}, ctorch.Uint8, ctorch.CUDADevice(0))), ctorch.ErrOutOfMemory)
	if calls, _ := rec.get(); len(calls) != 1 {
		t.Errorf("a removed hook ran: calls %v", calls)
	}
	if got := cuda.OOMHookRuns(); got != runs+2 {
		t.Errorf("OOMHookRuns() = %d, want %d", got, runs+2)
	}
	wantErr(t, cuda.RemoveOOMHook(id), ctorch.ErrArgument)
}

func streamStat(t *testing.T, s *cuda.Stream, key string) int64 {
	t.Helper()
	v, err := s.MemoryStat(key)
	noErr(t, err)
	return v
}

// Per-stream figures (tests/capi/memory_test.c test_stream_stats): 1000 bytes (a 1024-byte
// block in a 2 MiB small-pool segment) and 3 MiB (in a 20 MiB large-pool segment) allocated
// under a stream guard.
func TestGPUStreamMemoryStats(t *testing.T) {
	s := gpuMemoryTest(t)
	st := newStream(t, -1, 0)
	if v := streamStat(t, st, "allocation.allocated"); v != 0 {
		t.Errorf("a new stream's allocation.allocated = %d, want 0", v)
	}
	var a, b *ctorch.Tensor
	noErr(t, cuda.WithStream(st, func() error {
		a = gpuBytes(t, s, 1000)
		b = gpuBytes(t, s, 3*miB)
		return nil
	}))
	c := gpuBytes(t, s, 512) // on the default stream: not counted
	want := map[string]int64{
		"allocation.current":      2,
		"allocated_bytes.current": 1024 + 3*miB,
		"requested_bytes.current": 1000 + 3*miB,
		"segment.current":         2,
		"reserved_bytes.current":  22 * miB,
	}
	for k, v := range want {
		if got := streamStat(t, st, k); got != v {
			t.Errorf("%s = %d, want %d", k, got, v)
		}
	}
	noErr(t, a.Close())
	noErr(t, b.Close())
	want = map[string]int64{
		"allocated_bytes.current": 0,
		"allocated_bytes.peak":    1024 + 3*miB,
		"allocated_bytes.freed":   1024 + 3*miB,
		"reserved_bytes.current":  22 * miB, // cached
	}
	for k, v := range want {
		if got := streamStat(t, st, k); got != v {
			t.Errorf("after closing both, %s = %d, want %d", k, got, v)
		}
	}
	_, err := st.MemoryStat("allocated_bytes.all.current")
	if e := wantErr(t, err, ctorch.ErrArgument); !strings.Contains(e.Message, "unknown per-stream memory statistic") {
		t.Errorf("unknown key: %v", e)
	}
	_, err = st.MemoryStat("allocated_bytes\x00.current")
	wantErr(t, err, ctorch.ErrArgument)
	noErr(t, cuda.EmptyCache())
	if v := streamStat(t, st, "reserved_bytes.current"); v != 0 {
		t.Errorf("after EmptyCache, reserved_bytes.current = %d, want 0", v)
	}
	noErr(t, c.Close())
	noErr(t, st.Close())
	_, err = st.MemoryStat("allocated_bytes.current")
	wantClosed(t, err)
}
