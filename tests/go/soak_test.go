package ctorch_test

// The soak (issue 19): many create/op/view/close cycles with the process's resident memory and
// the live handle counts sampled as they go, then a run where most tensors are dropped without
// Close for the garbage collector and the finalizers. Both must end with the live counts at
// their start and the resident memory within a stated bound of where it started.
// CTORCH_SOAK_CYCLES sets the cycles of the first part (default soakCycles, 10^6; docs/go.md,
// "Bad input").

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/internal/capi"
)

const (
	soakCycles = 1000000 // about 12 s on one core here
	soakSample = 100000  // cycles between two samples (fewer for shorter runs)
	// The bound on resident memory growth from start to end, both measured after the Go and C
	// heaps gave their free memory back (trimmedRSS): what stays is code and data touched once
	// (3-4 MiB here). A leak of one tensor in ten of the dropped run (20000 x 1 KiB of data, plus
	// the tensor) or of one in a hundred cycles would exceed it.
	soakBound = 16 << 20
)

// rss is the process's resident set size in bytes (/proc/self/statm, field 2, in pages).
func rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	var size, res int64
	if _, err := fmt.Sscan(string(b), &size, &res); err != nil {
		t.Fatalf("/proc/self/statm %q: %v", b, err)
	}
	return res * int64(os.Getpagesize())
}

// trimmedRSS is rss once the Go heap (debug.FreeOSMemory) and the C heap (capi.MallocTrim) have
// given their free memory back to the system: the memory still in use.
func trimmedRSS(t *testing.T) int64 {
	t.Helper()
	debug.FreeOSMemory()
	capi.MallocTrim()
	return rss(t)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func soakCycleCount(t *testing.T) int {
	t.Helper()
	if s := os.Getenv("CTORCH_SOAK_CYCLES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("CTORCH_SOAK_CYCLES=%q is not a positive count", s)
		}
		return n
	}
	return soakCycles
}

// TestSoakCreateOpClose runs the cycles with every tensor closed explicitly: the live counts
// stay at their start at every sample, and the resident memory stops growing once warm.
func TestSoakCreateOpClose(t *testing.T) {
	countsScope(t)
	cycles := soakCycleCount(t)
	sample := soakSample
	if cycles < 10*sample {
		sample = (cycles + 9) / 10
	}
	start := allLiveCounts(t)
	rss0 := trimmedRSS(t)
	peak := rss0
	began := time.Now()
	for i := 1; i <= cycles; i++ {
		x, err := ctorch.Full([]int64{16, 16}, float64(i%1000)) // 1 KiB of float32
		noErr(t, err)
		y, err := x.AddScalar(1)
		noErr(t, err)
		v, err := y.View(4, 64)
		noErr(t, err)
		if i%sample == 0 {
			vals, err := v.Float32s()
			noErr(t, err)
			if want := float32(i%1000 + 1); len(vals) != 256 || vals[255] != want {
				t.Fatalf("cycle %d: %d values ending in %g, want 256 ending in %g", i, len(vals), vals[len(vals)-1], want)
			}
		}
		noErr(t, v.Close())
		noErr(t, y.Close())
		noErr(t, x.Close())
		if i%sample == 0 {
			r := rss(t)
			if r > peak {
				peak = r
			}
			now := allLiveCounts(t)
			t.Logf("cycle %7d: %6.1fs RSS %7.1f MiB, live %+v", i, time.Since(began).Seconds(), mib(r), now)
			if now != start {
				t.Errorf("cycle %d: live counts %+v, want %+v (every tensor was closed)", i, now, start)
			}
		}
	}
	end := trimmedRSS(t)
	t.Logf("%d cycles (3 tensors, an add and a view each) in %.1fs: RSS %.1f MiB at the start, %.1f peak, %.1f at the end",
		cycles, time.Since(began).Seconds(), mib(rss0), mib(peak), mib(end))
	if raceDetector {
		t.Log("built with -race: its shadow memory makes the RSS figures meaningless, not checked")
	} else if end > rss0+soakBound {
		t.Errorf("RSS grew from %.1f MiB to %.1f MiB over the cycles (bound %d MiB)", mib(rss0), mib(end), soakBound>>20)
	}
}

// TestSoakDroppedTensors drops 90% of the tensors it makes without Close, forcing collections
// as it goes, then collects until the finalizers have released them all: the live count returns
// to its start and the resident memory to within soakGCBound of its start.
func TestSoakDroppedTensors(t *testing.T) {
	countsScope(t)
	const n = 200000
	startLive := settle(t)
	rss0 := trimmedRSS(t)
	peak := rss0
	began := time.Now()
	for i := 1; i <= n; i++ {
		x, err := ctorch.Full([]int64{256}, 1) // 1 KiB of float32
		noErr(t, err)
		if i%10 == 0 {
			noErr(t, x.Close())
		} // else dropped: the finalizer releases it
		if i%20000 == 0 {
			runtime.GC()
			if r := rss(t); r > peak {
				peak = r
			}
			t.Logf("%6d made: RSS %7.1f MiB, live tensors %d", i, mib(rss(t)), liveCount(t))
		}
	}
	collectUntil(t, "tensors", liveCount, startLive)
	end := trimmedRSS(t)
	t.Logf("%d tensors, 90%% dropped without Close, in %.1fs: RSS %.1f MiB at the start, %.1f peak, %.1f after collecting; live tensors %d -> %d",
		n, time.Since(began).Seconds(), mib(rss0), mib(peak), mib(end), startLive, liveCount(t))
	if raceDetector {
		t.Log("built with -race: its shadow memory makes the RSS figures meaningless, not checked")
	} else if end > rss0+soakBound {
		t.Errorf("RSS %.1f MiB after collecting, %.1f at the start (bound %d MiB)", mib(end), mib(rss0), soakBound>>20)
	}
}
