package ctorch_test

// NVTX (capi/ctorch.h section 22): what the binding adds to the C calls. The suite's Bazel
// target runs under the recording NVTX injection library (tests/capi/with_nvtx_inject.sh sets
// CTORCH_NVTX_RECORD): then push/pop must return the tool's per-thread depths and every message
// must reach the tool byte for byte; run without it (the GPU bundle), push and pop return -2
// and range ids are 0, NVTX's values without a tool. Push/pop tests lock their goroutine to its
// OS thread: NVTX nests pushed ranges per thread.

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
)

var nvtxRecord = os.Getenv("CTORCH_NVTX_RECORD")

// nvtxDepth is what push/pop return for a range at depth d: d under the tool, -2 without one.
func nvtxDepth(d int) int {
	if nvtxRecord != "" {
		return d
	}
	return cuda.NvtxNoPushPopTracking
}

type nvtxLine struct {
	call  string
	tid   int
	value int64
	msg   string // the bytes, decoded from hex
}

func nvtxLines(t *testing.T) []nvtxLine {
	t.Helper()
	data, err := os.ReadFile(nvtxRecord)
	if err != nil {
		t.Fatalf("the NVTX record: %v", err)
	}
	var out []nvtxLine
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			t.Fatalf("bad record line %q", l)
		}
		tid, _ := strconv.Atoi(f[1])
		v, _ := strconv.ParseInt(f[2], 10, 64)
		b, err := hex.DecodeString(f[3])
		if err != nil {
			t.Fatalf("bad record line %q: %v", l, err)
		}
		out = append(out, nvtxLine{f[0], tid, v, string(b)})
	}
	return out
}

// nvtxOnly is the one record line of call with message msg.
func nvtxOnly(t *testing.T, call, msg string) nvtxLine {
	t.Helper()
	var found []nvtxLine
	for _, l := range nvtxLines(t) {
		if l.call == call && l.msg == msg {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d record lines for %s %q, want 1", len(found), call, msg)
	}
	return found[0]
}

func nvtxUnique(what string) string { return fmt.Sprintf("%s %d", what, time.Now().UnixNano()) }

func wantDepth(t *testing.T, what string, got int, err error, want int) {
	t.Helper()
	if err != nil || got != want {
		t.Errorf("%s: %d, %v; want %d", what, got, err, want)
	}
}

// nvtxNest pushes msgs in order, then pops them all, checking each depth (on a locked thread).
func nvtxNest(t *testing.T, msgs ...string) {
	t.Helper()
	for i, m := range msgs {
		d, err := cuda.NvtxRangePush(m)
		wantDepth(t, fmt.Sprintf("push %q", m), d, err, nvtxDepth(i))
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		d, err := cuda.NvtxRangePop()
		wantDepth(t, fmt.Sprintf("pop %q", msgs[i]), d, err, nvtxDepth(i))
	}
}

func TestNvtxPushPopReturnTheDepth(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	nvtxNest(t, nvtxUnique("go outer"), "go inner", "go innermost")
	// a pop with nothing pushed: the tool's error value (-1 here), passed through
	d, err := cuda.NvtxRangePop()
	wantDepth(t, "stray pop", d, err, map[bool]int{true: -1, false: -2}[nvtxRecord != ""])
}

func TestNvtxMessagesReachTheToolAsUTF8(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	text := nvtxUnique("go étape 步 🚀")
	if err := cuda.NvtxMark(text); err != nil {
		t.Fatal(err)
	}
	nvtxNest(t, text, "")
	id, err := cuda.NvtxRangeStart(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := cuda.NvtxRangeEnd(id); err != nil {
		t.Fatal(err)
	}
	if nvtxRecord == "" {
		if id != 0 {
			t.Errorf("range id without a tool: %d, want 0", id)
		}
		return
	}
	if id == 0 {
		t.Errorf("range id 0 under the tool")
	}
	me := syscall.Gettid()
	for _, c := range []struct {
		call  string
		value int64
	}{{"mark", 0}, {"push", 0}, {"start", int64(id)}} {
		if l := nvtxOnly(t, c.call, text); l.value != c.value || l.tid != me {
			t.Errorf("%s: %+v, want value %d on thread %d", c.call, l, c.value, me)
		}
	}
	ended := false
	for _, l := range nvtxLines(t) {
		ended = ended || (l.call == "end" && l.value == int64(id))
	}
	if !ended {
		t.Errorf("range %d never ended in the record", id)
	}
}

func TestNvtxRangeIdsCrossGoroutines(t *testing.T) {
	msg := nvtxUnique("go started")
	id, err := cuda.NvtxRangeStart(msg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- cuda.NvtxRangeEnd(id) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestNvtxNulBytes(t *testing.T) {
	wantErr(t, cuda.NvtxMark("a\x00b"), ctorch.ErrArgument)
	_, err := cuda.NvtxRangePush("\x00")
	wantErr(t, err, ctorch.ErrArgument)
	_, err = cuda.NvtxRangeStart("x\x00")
	wantErr(t, err, ctorch.ErrArgument)
	ran := false
	wantErr(t, cuda.NvtxRange("a\x00", func() error { ran = true; return nil }), ctorch.ErrArgument)
	if ran {
		t.Error("NvtxRange ran fn after a failed push")
	}
	pop, err := cuda.NvtxPush("\x00")
	wantErr(t, err, ctorch.ErrArgument)
	if pop == nil || pop() != nil {
		t.Error("NvtxPush's pop after a failed push must be a no-op")
	}
	// (a Go string is never nil, and the raw wrapper's out-slices never NULL: the NULL
	// errors are the C suite's)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	nvtxNest(t, "after refusals")
}

// depthNow pushes and pops a range on a locked thread: the depth a new range gets there.
func depthNow(t *testing.T) int {
	t.Helper()
	d, err := cuda.NvtxRangePush("probe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cuda.NvtxRangePop(); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestNvtxRangePopsOnErrorAndPanic(t *testing.T) {
	msg := nvtxUnique("go step")
	boom := errors.New("body failed")
	err := cuda.NvtxRange(msg, func() error {
		return cuda.NvtxRange("inner", func() error {
			if d := depthNow(t); d != nvtxDepth(2) {
				t.Errorf("depth inside two ranges: %d, want %d", d, nvtxDepth(2))
			}
			return boom
		})
	})
	if err != boom {
		t.Errorf("NvtxRange returned %v, want fn's error", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "panicked" {
				t.Errorf("recovered %v", r)
			}
		}()
		_ = cuda.NvtxRange("go panics", func() error { panic("panicked") })
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if d := depthNow(t); d != nvtxDepth(0) {
		t.Errorf("depth after the ranges: %d, want %d (a range was not popped)", d, nvtxDepth(0))
	}
	if nvtxRecord != "" {
		// push and pop on one OS thread: the range's goroutine was locked to it
		push := nvtxOnly(t, "push", msg)
		lines := nvtxLines(t)
		for i, l := range lines {
			if l == push {
				depth := 0
				for _, m := range lines[i+1:] {
					if m.tid != push.tid {
						continue
					}
					if m.call == "push" {
						depth++
					} else if m.call == "pop" && depth == 0 {
						if m.value != 0 {
							t.Errorf("the range's pop returned %d", m.value)
						}
						return
					} else if m.call == "pop" {
						depth--
					}
				}
			}
		}
		t.Errorf("no pop of %q on its thread %d", msg, push.tid)
	}
}

func TestNvtxPushForDefer(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var pop func() error
	func() {
		var err error
		pop, err = cuda.NvtxPush("go deferred")
		if err != nil {
			t.Fatal(err)
		}
		defer pop()
		if d := depthNow(t); d != nvtxDepth(1) {
			t.Errorf("depth inside: %d, want %d", d, nvtxDepth(1))
		}
	}()
	if d := depthNow(t); d != nvtxDepth(0) {
		t.Errorf("depth after: %d, want %d", d, nvtxDepth(0))
	}
	if err := pop(); err != nil { // once only
		t.Errorf("second pop: %v", err)
	}
	if d := depthNow(t); d != nvtxDepth(0) {
		t.Errorf("depth after a second pop: %d, want %d", d, nvtxDepth(0))
	}
	// popped from another goroutine (another OS thread): refused, the range stays open
	other, err := cuda.NvtxPush("go popped elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // a thread of its own, surely not the pusher's
		defer runtime.UnlockOSThread()
		done <- other()
	}()
	wantErr(t, <-done, ctorch.ErrState)
	if d := depthNow(t); d != nvtxDepth(1) {
		t.Errorf("depth with the range still open: %d, want %d", d, nvtxDepth(1))
	}
	if err := other(); err != nil {
		t.Fatal(err)
	}
}

func TestNvtxDepthsArePerThread(t *testing.T) {
	var wg sync.WaitGroup
	var both sync.WaitGroup // both goroutines hold one range before either pushes a second
	both.Add(2)
	depths := [2][4]int{}
	errs := make(chan error, 8)
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var err error
			depths[k][0], err = cuda.NvtxRangePush(fmt.Sprintf("go thread %d outer", k))
			errs <- err
			both.Done()
			both.Wait()
			depths[k][1], err = cuda.NvtxRangePush(fmt.Sprintf("go thread %d inner", k))
			errs <- err
			depths[k][2], err = cuda.NvtxRangePop()
			errs <- err
			depths[k][3], err = cuda.NvtxRangePop()
			errs <- err
		}(k)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 2; k++ {
		want := [4]int{nvtxDepth(0), nvtxDepth(1), nvtxDepth(1), nvtxDepth(0)}
		if depths[k] != want {
			t.Errorf("goroutine %d: depths %v, want %v", k, depths[k], want)
		}
	}
}
